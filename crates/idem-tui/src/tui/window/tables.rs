//! The two editable tables: the retrying layers, and every path a duplicate
//! can take, each with a bar against the window.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::parts::{
    boxed, delays_by_layer, first_visible, level_marker, level_of, level_style, pad, selected_style,
};
use super::state::{Row, WindowScreen};
use crate::story::outcome::Tone;
use crate::tui::theme::Theme;
use crate::window::{Count, Level, Report, Span as Spell, Stack};
use unicode_width::UnicodeWidthStr;

/// What the automatic path is called in the paths box.
const AUTOMATIC_NAME: &str = "automatic retries";

/// A duration as the screen writes it.
fn spell(duration: std::time::Duration) -> String {
    Spell::from_duration(duration).to_string()
}

/// Rows the paths box wants: borders, the header, the automatic path and
/// one per human path.
pub(super) fn paths_height(stack: &Stack) -> u16 {
    let rows = 2 + 1 + 1 + stack.paths.len();
    u16::try_from(rows).unwrap_or(u16::MAX)
}

pub(super) fn layers(frame: &mut Frame<'_>, area: Rect, screen: &WindowScreen, theme: &Theme) {
    let block = boxed(" Layers, innermost first ", theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    let stack = screen.stack();
    // The running products come first: the widest sets their column's width.
    let mut so_far = Count::ONE;
    let totals: Vec<(String, Level)> = stack
        .layers
        .iter()
        .map(|layer| {
            so_far = so_far.times(Count::new(u128::from(layer.attempts)));
            let level = level_of(so_far);
            (format!("{so_far}{}", level_marker(level)), level)
        })
        .collect();
    let widest_total = totals.iter().map(|(t, _)| t.width()).max().unwrap_or(0);
    let backoffs: Vec<String> = stack.layers.iter().map(|l| l.schedule.describe()).collect();
    let timeouts: Vec<String> = stack
        .layers
        .iter()
        .map(|l| l.timeout.map_or_else(|| "-".to_owned(), spell))
        .collect();
    let with_timeouts = stack.layers.iter().any(|l| l.timeout.is_some());
    // Every number column keeps at least one space before its values.
    let widest_backoff = backoffs.iter().map(|b| b.width()).max().unwrap_or(0);
    let backoff_w = (widest_backoff + 1).clamp(8, 19);
    let attempts_w = 9;
    let timeout_w = if with_timeouts { 8 } else { 0 };
    let total_w = widest_total.max("so far".len()) + 1;
    // The delay of the layers so far, when there is room for it.
    let fixed = 4 + backoff_w + attempts_w + timeout_w + total_w;
    let waits_w = if width >= fixed + 14 + 19 { 14 } else { 0 };
    let name_w = width.saturating_sub(fixed + waits_w);
    // Each number column keeps a space before its values, even when cut.
    let column = |text: &str, w: usize| {
        if w == 0 {
            String::new()
        } else {
            format!(" {}", pad(text, w - 1, true))
        }
    };
    let columns = |mark: &str, number: &str, name: &str, backoff: &str, attempts: &str, t: &str| {
        format!(
            "{mark}{} {}{}{}{}",
            pad(number, 1, true),
            pad(name, name_w, false),
            column(backoff, backoff_w),
            column(attempts, attempts_w),
            column(t, timeout_w),
        )
    };
    let mut lines = vec![Line::styled(
        format!(
            "{}{}{}",
            columns("  ", "#", "layer", "backoff", "attempts", "timeout"),
            pad("so far", total_w, true),
            pad(
                if with_timeouts {
                    "delay so far"
                } else {
                    "waits so far"
                },
                waits_w,
                true
            )
        ),
        theme.dim(),
    )];
    let selected = match screen.selected() {
        Row::Layer(i) => Some(i),
        _ => None,
    };
    if stack.layers.is_empty() {
        lines.push(Line::styled(
            "  no retrying layer: one attempt (a adds one)",
            theme.dim(),
        ));
    }
    let height = (inner.height as usize).saturating_sub(1);
    let start = first_visible(stack.layers.len(), height, selected);
    let delays = delays_by_layer(stack);
    let rows = stack.layers.iter().zip(&totals).enumerate();
    for (i, (layer, (total, level))) in rows.skip(start).take(height) {
        let is_selected = selected == Some(i);
        // The warning mark goes first, so a long name cut short keeps it.
        let name = if layer.warnings.is_empty() {
            layer.name.clone()
        } else {
            format!("⚠ {}", layer.name)
        };
        let attempts = if layer.forever {
            "∞".to_owned()
        } else {
            layer.attempts.to_string()
        };
        let text = columns(
            if is_selected { "▶ " } else { "  " },
            &(i + 1).to_string(),
            &name,
            &backoffs[i],
            &attempts,
            &timeouts[i],
        );
        // The running product keeps its own colour even on the selected row.
        lines.push(Line::from(vec![
            Span::styled(text, selected_style(is_selected, theme)),
            Span::styled(pad(total, total_w, true), level_style(*level, theme)),
            Span::raw(pad(
                &delays.get(i).map_or_else(String::new, |d| d.seconds_text()),
                waits_w,
                true,
            )),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// `a / b` for display, between 0 and 1, for spans of any size.
fn ratio(a: Spell, b: Spell) -> f64 {
    let (la, lb) = (a.log10_nanos(), b.log10_nanos());
    if la == f64::NEG_INFINITY {
        return 0.0;
    }
    if lb == f64::NEG_INFINITY {
        return 1.0;
    }
    10f64.powf(la - lb).clamp(0.0, 1.0)
}

/// The column of a value on a track of `width` columns scaled to `scale`.
fn column(value: Spell, scale: Spell, width: usize) -> usize {
    let last = width.saturating_sub(1);
    ((ratio(value, scale) * last as f64).round() as usize).min(last)
}

pub(super) fn paths(
    frame: &mut Frame<'_>,
    area: Rect,
    screen: &WindowScreen,
    report: &Report,
    theme: &Theme,
) {
    let block = boxed(
        &format!(
            " Paths a duplicate can take, against a window of {} ",
            report.window
        ),
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    let longest_name = report
        .paths
        .iter()
        .skip(1)
        .map(|p| p.name.chars().count())
        .chain(std::iter::once(AUTOMATIC_NAME.chars().count()))
        .max()
        .unwrap_or(0);
    let name_w = longest_name.clamp(10, 22);
    let status_head = format!("within {}?", report.window);
    let delays: Vec<String> = report.paths.iter().map(|p| p.delay.to_string()).collect();
    let widest_delay = delays.iter().map(|d| d.width()).max().unwrap_or(0);
    let delay_w = widest_delay.clamp("delay".len(), 12);
    let status_w = status_head.width().max("NOT covered".len() + 1);
    let track = width.saturating_sub(2 + name_w + 1 + delay_w + 1 + status_w + 1);
    let text_columns = |mark: &str, name: &str, delay: &str, status: &str| {
        format!(
            "{mark}{} {} {}",
            pad(name, name_w, false),
            pad(delay, delay_w, true),
            pad(status, status_w, false),
        )
    };
    // Scaled to the longest of the required window and the longest path (which
    // the required window always reaches), or to the window when it is longer.
    let scale = report.required_window.max(report.window);
    let window_at = column(report.window, scale, track);
    let needed_at = column(report.required_window, scale, track);

    let mut head = vec![Span::styled(
        text_columns("  ", "path", "delay", &status_head),
        theme.dim(),
    )];
    if track >= 8 {
        let (window, needed) = (report.window, report.required_window);
        let legend = [
            format!("│ window {window}  ┃ needed {needed}  (0 to {scale})"),
            format!("│ window {window}  ┃ needed {needed}"),
            "│ window  ┃ needed".to_owned(),
        ]
        .into_iter()
        .find(|l| l.chars().count() <= track)
        .unwrap_or_default();
        head.push(Span::raw(" "));
        head.push(Span::styled(pad(&legend, track, false), theme.dim()));
    }
    let mut lines = vec![Line::from(head)];

    let selected = match screen.selected() {
        Row::Path(i) => Some(i + 1),
        _ => None,
    };
    let height = (inner.height as usize).saturating_sub(1);
    let start = first_visible(report.paths.len(), height, selected);
    for (i, path) in report.paths.iter().enumerate().skip(start).take(height) {
        let is_selected = selected == Some(i);
        let mark = match (i, is_selected) {
            (0, _) => "  ",
            (_, true) => "▶ ",
            (_, false) => "· ",
        };
        let name = if i == 0 {
            AUTOMATIC_NAME
        } else {
            path.name.as_str()
        };
        let (status, tone) = if path.covered {
            ("covered", Tone::Good)
        } else {
            ("NOT covered", Tone::Bad)
        };
        let row_style = selected_style(is_selected, theme);
        let mut spans = vec![
            Span::styled(
                format!(
                    "{mark}{} {} ",
                    pad(name, name_w, false),
                    pad(&delays[i], delay_w, true)
                ),
                row_style,
            ),
            Span::styled(
                pad(status, status_w, false),
                theme.tone(tone).patch(row_style),
            ),
            Span::raw(" "),
        ];
        if track >= 8 {
            spans.extend(bar(
                path.delay,
                report.window,
                scale,
                window_at,
                needed_at,
                track,
                theme,
            ));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// One bar: `█` up to the window, `▒` beyond it, `│` where the window ends and
/// `┃` where the required window ends.
fn bar(
    delay: Spell,
    window: Spell,
    scale: Spell,
    window_at: usize,
    needed_at: usize,
    track: usize,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let mut filled = column(delay, scale, track);
    if delay > Spell::ZERO {
        // A tiny path still shows one cell of its own, past the marks that may stand on
        // the first columns.
        let own = (0..track)
            .find(|x| *x != needed_at && *x != window_at)
            .map_or(1, |x| x + 1);
        filled = filled.max(own);
    }
    // A path that misses the window by a hair still shows a late part.
    let late_from = if delay > window {
        filled = filled.max(window_at + 2).min(track);
        window_at
    } else {
        track
    };
    let cell = |x: usize| -> (char, Style) {
        if x == needed_at {
            ('┃', theme.bold())
        } else if x == window_at {
            ('│', theme.bold())
        } else if x < filled && x >= late_from {
            ('▒', theme.tone(Tone::Bad))
        } else if x < filled {
            ('█', Style::new())
        } else {
            (' ', Style::new())
        }
    };
    // Runs of one style become one span.
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut run_style = Style::new();
    for x in 0..track {
        let (c, style) = cell(x);
        if style != run_style && !run.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut run), run_style));
        }
        run_style = style;
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, run_style));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn secs(s: u64) -> Spell {
        Spell::from_duration(Duration::from_secs(s))
    }

    #[test]
    fn ratios_hold_at_the_edges() {
        assert_eq!(ratio(Spell::ZERO, secs(10)), 0.0);
        assert_eq!(ratio(secs(10), Spell::ZERO), 1.0);
        assert_eq!(ratio(Spell::ZERO, Spell::ZERO), 0.0);
        assert!((ratio(secs(5), secs(10)) - 0.5).abs() < 1e-9);
        assert_eq!(column(secs(10), secs(10), 20), 19);
        assert_eq!(column(secs(10), secs(10), 0), 0);
    }
}
