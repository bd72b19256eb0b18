//! The compare screen: the three designs of the design card side by side at the same moment,
//! each with its condensed timeline, its ledger and, once it is over, its outcome.

use super::fit;
use super::lanes::mark;
use crate::report::headline;
use crate::sim::{Design, Trace};
use crate::tui::app::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

pub fn compare(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let columns: [Rect; 3] = Layout::horizontal([Constraint::Ratio(1, 3); 3]).areas(area);
    // The first tick where the three stop telling the same story.
    let split = Design::CORE[1..]
        .iter()
        .filter_map(|d| app.first_difference(Design::CORE[0], *d))
        .min();
    for (design, rect) in Design::CORE.into_iter().zip(columns) {
        column(frame, rect, app, design, split, theme);
    }
}

fn column(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    design: Design,
    split: Option<usize>,
    theme: &Theme,
) {
    let trace = app.trace_of(design);
    let told = app.told_of(design);
    let now = app.compare_at;
    let shown = trace.ticks.partition_point(|t| t.at <= now);
    let title_style = if design == app.design {
        theme.active_design()
    } else {
        theme.bold()
    };
    let title = fit(
        &format!(" {} {} ", design.hotkey(), design.name()),
        area.width.saturating_sub(2) as usize,
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, title_style));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    let tail = tail_lines(trace, shown, now, width, theme);
    let rows = inner.height.saturating_sub(tail.len() as u16) as usize;
    let start = shown.saturating_sub(rows);
    let mut lines: Vec<Line> = (start..shown)
        .map(|i| {
            let t = &trace.ticks[i];
            let time = trace.clock.format(t.at);
            let diverge = if Some(i) == split { "◆" } else { " " };
            let style = if i + 1 == shown {
                theme.current()
            } else {
                Style::new()
            };
            let text = format!("{diverge}{time} {} {}", mark(t.kind), told.labels[i]);
            Line::styled(fit(&text, width), style)
        })
        .collect();
    while lines.len() < rows {
        lines.push(Line::raw(""));
    }
    lines.extend(tail);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The ledger and, when the column has reached its end, the outcome.
fn tail_lines(
    trace: &Trace,
    shown: usize,
    now: crate::sim::Instant,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let state = shown.checked_sub(1).map(|i| &trace.ticks[i].state);
    let charges: Vec<String> = state.map_or(Vec::new(), |s| {
        s.ledger
            .iter()
            .map(|c| format!("{} {}", c.id, c.amount))
            .collect()
    });
    let ledger = if charges.is_empty() {
        "none".to_string()
    } else {
        charges.join(", ")
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(" ledger: ", theme.bold()),
        Span::styled(fit(&ledger, width.saturating_sub(9)), theme.money()),
    ])];
    let ended = trace.ticks.last().is_some_and(|t| t.at <= now);
    lines.push(if ended {
        let (tone, head) = headline(&trace.outcome);
        Line::styled(fit(&format!(" {head}"), width), theme.tone(tone))
    } else {
        Line::styled(" …", theme.dim())
    });
    lines
}
