//! The compare screen: the designs the room chose (two to five) side by side at the same
//! moment, each with its condensed timeline, its ledger and, once it is over, its outcome.
//! Rows line up by time across the columns, so one row is one moment in every design.

use super::fit;
use super::lanes::mark;
use crate::replay::app::App;
use crate::sim::{Design, Instant, Trace};
use crate::story::outcome::headline;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// One aligned row: its moment, and the tick each column shows on it (or none).
type Row = (Instant, Vec<Option<usize>>);

pub fn compare(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let designs = &app.screens.compared;
    // The first tick where the first design and another stop telling the same story.
    let split = designs
        .get(1..)
        .unwrap_or_default()
        .iter()
        .filter_map(|d| app.first_difference(designs[0], *d))
        .min();
    let rows = aligned(app, designs);
    // One time column for every design: rows are aligned, so each row is one moment.
    let clock = app.trace().clock;
    let gutter = rows
        .iter()
        .map(|(at, _)| clock.format(*at).len())
        .max()
        .unwrap_or(12) as u16
        + 2;
    let mut constraints = vec![Constraint::Length(gutter)];
    let n = designs.len().max(1) as u32;
    constraints.extend(designs.iter().map(|_| Constraint::Ratio(1, n)));
    let areas = Layout::horizontal(constraints).split(area);
    let inner = super::outline(frame.buffer_mut(), areas[0], " time ", Style::new());
    let room = inner.height.saturating_sub(TAIL) as usize;
    let start = rows.len().saturating_sub(room);
    let times: Vec<Line> = rows[start..]
        .iter()
        .map(|(at, _)| Line::styled(clock.format(*at), theme.dim()))
        .collect();
    super::rows(frame.buffer_mut(), inner, times);
    for (i, (design, rect)) in designs.iter().zip(areas.iter().skip(1)).enumerate() {
        column(frame, *rect, app, *design, &rows, i, split, theme);
    }
}

/// The rows under each column's timeline: its ledger and its outcome.
const TAIL: u16 = 2;

/// The ticks of every compared design up to the compare moment, lined up by time: a moment
/// with several ticks in one design takes as many rows, and the other designs leave blanks.
fn aligned(app: &App, designs: &[Design]) -> Vec<Row> {
    let now = app.place.compare_at;
    let traces: Vec<&Trace> = designs.iter().map(|d| app.version.trace_of(*d)).collect();
    let shown: Vec<usize> = traces
        .iter()
        .map(|t| t.ticks.partition_point(|k| k.at <= now))
        .collect();
    let mut next = vec![0usize; traces.len()];
    let mut rows = Vec::new();
    loop {
        let at = traces
            .iter()
            .zip(&next)
            .zip(&shown)
            .filter(|((_, i), s)| *i < *s)
            .map(|((t, i), _)| t.ticks[*i].at)
            .min();
        let Some(at) = at else { break };
        // As many rows as the design with the most ticks at this moment.
        loop {
            let cells: Vec<Option<usize>> = traces
                .iter()
                .zip(next.iter_mut())
                .zip(&shown)
                .map(|((t, i), s)| {
                    (*i < *s && t.ticks[*i].at == at).then(|| {
                        *i += 1;
                        *i - 1
                    })
                })
                .collect();
            if cells.iter().all(Option::is_none) {
                break;
            }
            rows.push((at, cells));
        }
    }
    rows
}

#[allow(clippy::too_many_arguments)]
fn column(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    design: Design,
    rows: &[Row],
    index: usize,
    split: Option<usize>,
    theme: &Theme,
) {
    let trace = app.version.trace_of(design);
    let told = app.version.told_of(design);
    let now = app.place.compare_at;
    let shown = trace.ticks.partition_point(|t| t.at <= now);
    let title_style = if design == app.place.design {
        theme.active_design()
    } else {
        theme.bold()
    };
    let title = fit(
        format!(
            " {} {} ",
            design.hotkey(),
            crate::replay::shown::design_name(app, design)
        ),
        area.width.saturating_sub(2) as usize,
    );
    let inner = super::outline(frame.buffer_mut(), area, &title, title_style);
    let width = inner.width as usize;
    let hide = app.withheld().hide;
    let tail = tail_lines(trace, shown, now, width, hide, theme);
    let room = inner.height.saturating_sub(TAIL) as usize;
    // Every column shows the same rows: the latest that fit.
    let start = rows.len().saturating_sub(room);
    let mut lines: Vec<Line> = rows[start..]
        .iter()
        .map(|(_, cells)| match cells.get(index).copied().flatten() {
            Some(i) => {
                let t = &trace.ticks[i];
                let diverge = if Some(i) == split { "◆" } else { " " };
                let style = if i + 1 == shown {
                    theme.current()
                } else {
                    Style::new()
                };
                row(diverge, mark(t.kind), &told.labels[i], width).style(style)
            }
            // Nothing happens in this design at that moment.
            None => Line::styled(fit(" ·", width), theme.dim()),
        })
        .collect();
    while lines.len() < room {
        lines.push(Line::raw(""));
    }
    lines.extend(tail);
    super::rows(frame.buffer_mut(), inner, lines);
}

/// A tick's row in a column `width` wide: the divergence mark, the tick's mark and its label,
/// cut to the column. A label that starts a grapheme of its own and fits is written as it
/// stands, beside the marks, without putting the row together first (a test holds the two
/// ways to the same cells).
fn row<'a>(diverge: &'a str, symbol: &'a str, label: &'a str, width: usize) -> Line<'a> {
    if label.as_bytes().first().is_some_and(u8::is_ascii)
        && diverge.width() + symbol.width() + 1 + label.width() <= width
    {
        Line::from(vec![
            Span::raw(diverge),
            Span::raw(symbol),
            Span::raw(" "),
            Span::raw(label),
        ])
    } else {
        Line::raw(fit(format!("{diverge}{symbol} {label}"), width))
    }
}

/// The ledger (its charges and total, never cut) and, when the column has reached its end,
/// the outcome.
fn tail_lines(
    trace: &Trace,
    shown: usize,
    now: Instant,
    width: usize,
    hide: crate::present::Hide,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let state = shown.checked_sub(1).map(|i| &trace.ticks[i].state);
    // The longest form that fits: amounts are never cut, words give way first.
    let first_fitting = |forms: Vec<String>| {
        let last = forms.last().cloned().unwrap_or_default();
        forms
            .into_iter()
            .find(|f| f.chars().count() <= width)
            .unwrap_or(last)
    };
    let ledger = match state {
        // The room predicts before it sees what the card went through.
        Some(_) if hide.statement => {
            first_fitting(vec![" ledger hidden (n reveals)".into(), " hidden".into()])
        }
        Some(s) if !s.ledger().is_empty() => {
            let total = s.charged_total();
            let n = s.ledger().len();
            let ids: Vec<String> = s.ledger().iter().map(|c| c.id.to_string()).collect();
            first_fitting(vec![
                format!(" ledger: {} · {total}", ids.join(" ")),
                format!(" ledger: {} · {total}", crate::story::plural(n, "charge")),
                format!(" {n}× · {total}"),
                format!("{n}×{total}"),
            ])
        }
        _ => first_fitting(vec![" ledger: none".into(), " none".into()]),
    };
    let mut lines = vec![Line::styled(ledger, theme.money())];
    let ended = trace.ticks.last().is_some_and(|t| t.at <= now);
    lines.push(if ended && hide.outcome {
        Line::styled(
            first_fitting(vec![" outcome hidden (n reveals)".into(), " hidden".into()]),
            theme.dim(),
        )
    } else if ended {
        let (tone, head) = headline(&trace.outcome);
        let o = &trace.outcome;
        let symbol = head.chars().next().unwrap_or(' ');
        let short = first_fitting(vec![
            format!(" {head}"),
            format!(" {symbol} {} · {}", o.verdict.id(), o.charged_cents),
            format!(" {symbol} {}", o.charged_cents),
        ]);
        Line::styled(short, theme.tone(tone))
    } else {
        Line::styled(" …", theme.dim())
    });
    lines
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::text::Line;

    /// A row written from its pieces is the row put together and cut to the column, cell for
    /// cell, for any label and width.
    #[test]
    fn a_row_from_its_pieces_is_the_row_put_together() {
        let label = prop_oneof![
            "[ -~]{0,30}",
            "[a-z]{1,8}[ \u{301}\u{fe0f}\u{200d}注❤👍é·→✗]{0,6}[a-z ]{0,8}",
            "[\u{301}\u{fe0f}注❤][a-z ]{0,10}",
        ];
        let marks = prop_oneof![Just("●"), Just("→"), Just("✗"), Just("$"), Just("⟲")];
        let diverge = prop_oneof![Just("◆"), Just(" ")];
        proptest!(|(label in label, symbol in marks, diverge in diverge, width in 1usize..40)| {
            let area = Rect::new(0, 0, 40, 1);
            let mut ours = Buffer::empty(area);
            let mut whole = Buffer::empty(area);
            let cut = Rect::new(0, 0, width as u16, 1);
            crate::tui::cells::rows(&mut ours, cut, vec![super::row(diverge, symbol, &label, width)]);
            let put_together = super::fit(format!("{diverge}{symbol} {label}"), width);
            crate::tui::cells::rows(&mut whole, cut, vec![Line::raw(put_together)]);
            prop_assert_eq!(ours, whole);
        });
    }
}
