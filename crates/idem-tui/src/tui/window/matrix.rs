//! The attempts matrix: 1–4 layers × 2–5 attempts each, every cell the
//! attempts one intent can cause, marked `!` from 16 and `!!` from 64 as well
//! as coloured, and the user's own stack marked `▶` or spelled out beside it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::parts::{boxed, level_marker, level_of, level_style, pad};
use crate::tui::kit::fit;
use crate::tui::theme::Theme;
use crate::window::{
    AMBER_FROM, MATRIX_ATTEMPTS, MATRIX_LAYERS, RED_FROM, Report, Stack, attempts_matrix_for,
};

/// Width of the box in the compact layout: a 3-column label and four cells
/// of 7, plus the borders.
pub(super) const COMPACT_WIDTH: u16 = 2 + 3 + 4 * CELL as u16;
/// Width of the box in the roomy layout, wide enough for the legend.
pub(super) const ROOMY_WIDTH: u16 = 44;

/// One cell: a space and six columns ("▶625!!").
const CELL: usize = 7;

/// The matrix cell that is the user's stack: all layers with the same
/// attempts, within the matrix.
fn own_cell(stack: &Stack) -> Option<(u32, u64)> {
    let first = stack.layers.first()?.attempts;
    if !stack.layers.iter().all(|l| l.attempts == first) {
        return None;
    }
    let layers = u32::try_from(stack.layers.len()).ok()?;
    (MATRIX_LAYERS.contains(&layers) && MATRIX_ATTEMPTS.contains(&first)).then_some((layers, first))
}

pub(super) fn matrix(
    frame: &mut Frame<'_>,
    area: Rect,
    stack: &Stack,
    report: &Report,
    roomy: bool,
    theme: &Theme,
) {
    let grid = attempts_matrix_for(&MATRIX_LAYERS, &MATRIX_ATTEMPTS);
    let own = own_cell(stack);
    let label_width = if roomy { 8 } else { 3 };
    let mut lines = Vec::new();

    let mut head = vec![Span::styled(
        pad(if roomy { "layers" } else { " n" }, label_width, false),
        theme.dim(),
    )];
    for a in &grid.attempt_counts {
        head.push(Span::styled(
            pad(&format!("a={a}"), CELL, true),
            theme.dim(),
        ));
    }
    lines.push(Line::from(head));

    for (layers, row) in grid.layer_counts.iter().zip(&grid.rows) {
        let mut spans = vec![Span::styled(
            pad(&format!(" {layers}"), label_width, false),
            theme.dim(),
        )];
        for cell in row {
            let mine = own == Some((cell.layers, cell.attempts_per_layer));
            let text = format!(
                "{}{}{}",
                if mine { "▶" } else { "" },
                cell.attempts,
                level_marker(cell.level)
            );
            let mut style = level_style(cell.level, theme);
            if mine {
                style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            }
            spans.push(Span::raw(" "));
            spans.push(Span::styled(pad(&text, CELL - 1, true), style));
        }
        lines.push(Line::from(spans));
    }

    let width = area.width.saturating_sub(2) as usize;
    if roomy {
        lines.push(Line::styled(
            fit(
                format!("! amber: {AMBER_FROM} or more  !! red: {RED_FROM} or more"),
                width,
            ),
            theme.dim(),
        ));
    }
    let level = level_of(report.attempts);
    let yours = match own {
        Some((layers, attempts)) => {
            let noun = if layers == 1 { "layer" } else { "layers" };
            format!("▶ your stack: {layers} {noun} of {attempts}")
        }
        None => {
            let product =
                super::parts::attempt_factors(stack, "×").unwrap_or_else(|| "no layer".to_owned());
            format!(
                "your stack: {product} = {}{}",
                report.attempts,
                level_marker(level)
            )
        }
    };
    lines.push(Line::styled(fit(&yours, width), level_style(level, theme)));

    let mut block = boxed(" Attempts matrix: a^n ", theme);
    if !roomy {
        block = block.title_bottom(Line::styled(
            format!(" !≥{AMBER_FROM} amber  !!≥{RED_FROM} red "),
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
