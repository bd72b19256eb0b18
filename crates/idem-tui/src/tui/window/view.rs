//! Draws the window screen: a header with the verdict, the layers beside the
//! attempts matrix, the paths with their bars against the window, the
//! arithmetic, and the keys. It draws the state and decides nothing.
//!
//! Two layouts: a compact one for 80×24 and a roomy one from 110×30, which
//! adds the working of the automatic delay layer by layer.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use super::parts::{boxed, level_marker, level_of, level_style, pad, selected_style};
use super::state::{Row, WindowScreen};
use super::{matrix, tables};
use crate::story::outcome::Tone;
use crate::tui::kit::fit;
use crate::tui::theme::Theme;
use crate::window::{AMBER_FROM, Level, RED_FROM, Report, Span as Spell, Stack};

/// The smallest area the screen is laid out for, as for the replay.
pub const MIN_WIDTH: u16 = 80;
/// See [`MIN_WIDTH`].
pub const MIN_HEIGHT: u16 = 24;

/// From this size on, the roomy layout.
const ROOMY_WIDTH: u16 = 110;
const ROOMY_HEIGHT: u16 = 30;

/// Draws the screen over `area`, whatever was there before.
pub fn render(frame: &mut Frame<'_>, area: Rect, screen: &WindowScreen, theme: &Theme) {
    frame.render_widget(Clear, area);
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        crate::tui::kit::too_small(frame, area, "The retry window", "Esc closes", theme);
        return;
    }
    let roomy = area.width >= ROOMY_WIDTH && area.height >= ROOMY_HEIGHT;
    let [head, body, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(2),
    ])
    .areas(area);
    let report = screen.report();
    header(frame, head, report.as_ref(), roomy, theme);
    footer(frame, foot, screen, theme);
    let Some(report) = report else {
        let problem = screen.problem().unwrap_or_default();
        let text = vec![
            Line::styled("This stack cannot be computed:", theme.bold()),
            Line::raw(problem),
            Line::styled("r puts back the worked example.", theme.dim()),
        ];
        crate::tui::cells::wrap::draw_wrapped(frame.buffer_mut(), body, &Text::from(text), true, 0);
        return;
    };

    let matrix_width = if roomy {
        matrix::ROOMY_WIDTH
    } else {
        matrix::COMPACT_WIDTH
    };
    let top_height = if roomy { 9 } else { 8 };
    let arithmetic_height = if roomy { 8 } else { 5 };
    let paths_height = tables::paths_height(screen.stack());
    let (top, paths, arithmetic) = if roomy {
        let [top, paths, arithmetic] = Layout::vertical([
            Constraint::Length(top_height),
            Constraint::Length(paths_height),
            Constraint::Min(arithmetic_height),
        ])
        .areas(body);
        (top, paths, arithmetic)
    } else {
        let [top, paths, arithmetic] = Layout::vertical([
            Constraint::Length(top_height),
            Constraint::Min(3),
            Constraint::Length(arithmetic_height),
        ])
        .areas(body);
        (top, paths, arithmetic)
    };
    let [layers_area, matrix_area] =
        Layout::horizontal([Constraint::Min(20), Constraint::Length(matrix_width)]).areas(top);
    tables::layers(frame, layers_area, screen, theme);
    matrix::matrix(frame, matrix_area, screen.stack(), &report, roomy, theme);
    tables::paths(frame, paths, screen, &report, theme);
    if roomy {
        let [summary_area, working_area] =
            Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)])
                .areas(arithmetic);
        summary(frame, summary_area, screen, &report, true, theme);
        working(frame, working_area, screen.stack(), &report, theme);
    } else {
        summary(frame, arithmetic, screen, &report, false, theme);
    }
}

/// The verdict in a few words, with its symbol: never colour alone.
pub(super) fn verdict(report: &Report, roomy: bool) -> (Tone, String) {
    if report.required_window.is_unbounded() {
        return (
            Tone::Bad,
            "✗ no window is long enough: a layer never stops retrying".to_owned(),
        );
    }
    let window = report.window;
    let needed = report.required_window;
    let late = report.uncovered_count();
    let total = report.paths.len();
    if late > 0 {
        let paths = if total == 1 { "path" } else { "paths" };
        let text = if roomy {
            let verb = if late == 1 { "arrives" } else { "arrive" };
            format!(
                "✗ {window} is too short: {late} of {total} {paths} {verb} after it expires; it needs {needed}"
            )
        } else {
            format!("✗ {window} is too short: {late} of {total} {paths} late; needs {needed}")
        };
        (Tone::Bad, text)
    } else if !report.window_is_enough() {
        let text = if roomy {
            format!(
                "! {window} covers every path, but not with the ×{} margin; it needs {needed}",
                report.safety
            )
        } else {
            format!(
                "! {window} covers all, not the ×{} margin: needs {needed}",
                report.safety
            )
        };
        (Tone::Warn, text)
    } else if roomy {
        (
            Tone::Good,
            format!(
                "✓ {window} is enough: it covers every path with the margin (it needs {needed})"
            ),
        )
    } else {
        (Tone::Good, format!("✓ {window} is enough (needs {needed})"))
    }
}

fn header(frame: &mut Frame<'_>, area: Rect, report: Option<&Report>, roomy: bool, theme: &Theme) {
    let title = " idem · retry window ";
    let mut spans = vec![Span::styled(title, theme.title())];
    let room = (area.width as usize).saturating_sub(title.width() + 1);
    if let Some(report) = report {
        let (tone, text) = verdict(report, roomy);
        spans.push(Span::raw(" "));
        spans.push(Span::styled(fit(&text, room), theme.tone(tone)));
    } else {
        spans.push(Span::styled(
            fit(" how long must idempotency keys be kept?", room),
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn footer(frame: &mut Frame<'_>, area: Rect, screen: &WindowScreen, theme: &Theme) {
    let mut keys: Vec<(&str, &str)> = vec![("↑↓", "select"), ("←→", screen.value_name())];
    if matches!(screen.selected(), Row::Layer(_)) {
        keys.push(("[ ]", "backoff"));
        keys.push(("{ }", "timeout"));
    }
    // Enter and Esc come early: a notice takes the second line on narrow screens.
    keys.extend([
        ("Enter", "replay it"),
        ("Esc", "close"),
        ("a", "add layer"),
        ("A", "add path"),
        ("x", "remove"),
        ("r", "reset"),
    ]);
    let width = area.width as usize;
    let mut lines: Vec<Vec<Span<'static>>> = vec![vec![Span::raw(" ")]];
    let mut used = 1;
    for (key, what) in keys {
        let item = key.width() + 1 + what.width() + 2;
        if used + item > width && used > 1 {
            lines.push(vec![Span::raw(" ")]);
            used = 1;
        }
        if let Some(line) = lines.last_mut() {
            line.push(Span::styled(key.to_owned(), theme.key()));
            line.push(Span::raw(format!(" {what}  ")));
        }
        used += item;
    }
    let mut rows: Vec<Line> = lines.into_iter().map(Line::from).collect();
    if let Some(notice) = screen.notice() {
        let room = width.saturating_sub(2);
        if notice.width() > room {
            // A long notice (why Enter refused) takes both lines until the next key.
            let text = Text::from(Line::styled(notice.to_owned(), theme.changed()));
            let inset = Rect {
                x: area.x + 1,
                width: area.width.saturating_sub(2),
                ..area
            };
            crate::tui::cells::wrap::draw_wrapped(frame.buffer_mut(), inset, &text, true, 0);
            return;
        }
        rows.truncate(1);
        rows.push(Line::from(vec![
            Span::raw(" "),
            Span::styled(notice.to_owned(), theme.changed()),
        ]));
    }
    frame.render_widget(Paragraph::new(rows), area);
}

/// How long the innermost `n` layers take to give up, for each `n`: the
/// figure each layer of the working multiplies.
fn budgets_by_layer(stack: &Stack) -> Vec<Spell> {
    super::parts::reports_by_layer(stack)
        .into_iter()
        .map(|r| r.gives_up)
        .collect()
}

/// "×2", "×1.5".
fn factor(safety: f64) -> String {
    format!("×{safety}")
}

/// The numbers of the calculation; the window and the safety factor are
/// selectable rows.
fn summary(
    frame: &mut Frame<'_>,
    area: Rect,
    screen: &WindowScreen,
    report: &Report,
    roomy: bool,
    theme: &Theme,
) {
    let level = level_of(report.attempts);
    let attempts = match (level, roomy) {
        (Level::Normal, _) => report.attempts.to_string(),
        (Level::Amber, true) => format!("{} !  amber: {AMBER_FROM} or more", report.attempts),
        (Level::Red, true) => format!("{} !! red: {RED_FROM} or more", report.attempts),
        (_, false) => format!(
            "{} {} {}",
            report.attempts,
            level_marker(level),
            level.as_str()
        ),
    };
    let automatic = if report.timeouts_known {
        // The give-up, after the last request's timeout: short enough for
        // the compact column even in days.
        format!("{} (ends {})", report.automatic_delay, report.gives_up)
    } else {
        // Seconds, then the same span in larger units, unless that reads the same.
        let (seconds, human) = (
            report.automatic_delay.seconds_text(),
            report.automatic_delay.to_string(),
        );
        if seconds == human {
            seconds
        } else {
            format!("{seconds} ({human})")
        }
    };
    let longest = format!("{}, {}", report.longest.name, report.longest.delay);
    let required = format!(
        "{} = {} {}",
        report.required_window,
        report.longest.delay,
        factor(report.safety)
    );
    let selected = screen.selected();
    let labels: [&str; 6] = if roomy {
        [
            "attempts for one intent",
            "automatic delay",
            "longest path",
            "window (keys kept)",
            "safety factor",
            "required window",
        ]
    } else {
        [
            "attempts/intent",
            "automatic delay",
            "longest path",
            "window",
            "safety factor",
            "required window",
        ]
    };
    // Each value, the row it edits if any, and its style.
    let values: [(String, Option<Row>, Style); 6] = [
        (attempts, None, level_style(level, theme)),
        (automatic, None, Style::new()),
        (longest, None, Style::new()),
        (report.window.to_string(), Some(Row::Window), theme.bold()),
        (factor(report.safety), Some(Row::Safety), theme.bold()),
        (required, None, theme.bold()),
    ];
    let block = boxed(" The arithmetic ", theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    // Roomy: one column. Compact: two, the right one holding the window and
    // the safety factor, sized for them.
    let columns: Vec<(usize, usize, std::ops::Range<usize>)> = if roomy {
        vec![(width, 25, 0..6)]
    } else {
        let right = 36.min(width / 2);
        vec![(width - right, 15, 0..3), (right, 15, 3..6)]
    };
    let mut lines: Vec<Line> = Vec::new();
    for r in 0..columns.iter().map(|c| c.2.len()).max().unwrap_or(0) {
        let mut spans = Vec::new();
        for (column_width, label_width, range) in &columns {
            let index = range.start + r;
            if !range.contains(&index) {
                continue;
            }
            let (value, row, style) = &values[index];
            let is_selected = row.is_some_and(|row| row == selected);
            let marker = match (row, is_selected) {
                (Some(_), true) => "▶ ",
                (Some(_), false) => "· ",
                (None, _) => "  ",
            };
            let value_width = column_width.saturating_sub(label_width + 3);
            let label_text = pad(
                &format!("{marker}{}", labels[index]),
                label_width + 2,
                false,
            );
            spans.push(Span::styled(label_text, selected_style(is_selected, theme)));
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                pad(value, value_width, false),
                style.patch(selected_style(is_selected, theme)),
            ));
        }
        lines.push(Line::from(spans));
    }
    if roomy {
        lines.push(Line::raw(""));
        lines.push(Line::styled(screen.editing_hint(), theme.dim()));
    }
    crate::tui::cells::wrap::draw_wrapped(frame.buffer_mut(), inner, &Text::from(lines), false, 0);
}

/// The roomy layout's working: how the attempts multiply and the delay
/// builds up layer by layer, and what the verdict means.
fn working(frame: &mut Frame<'_>, area: Rect, stack: &Stack, report: &Report, theme: &Theme) {
    let mut lines = Vec::new();
    let product = match super::parts::attempt_factors(stack, " × ") {
        Some(factors) => format!("{factors} = {}", report.attempts),
        None => "no retrying layer: 1 attempt".to_owned(),
    };
    lines.push(Line::from(vec![
        Span::styled("Attempts multiply: ", theme.bold()),
        Span::raw(product),
    ]));
    let timed = report.timeouts_known;
    let rule = if timed {
        "L = waits + attempts × L of the layers inside, starting from the innermost timeout"
    } else {
        "D = backoff × (attempts − 1) + attempts × D of the layers inside"
    };
    lines.push(Line::from(vec![
        Span::styled("Waits build up from the inside: ", theme.bold()),
        Span::raw(rule),
    ]));
    let mut inner = if timed {
        stack
            .layers
            .first()
            .and_then(|l| l.timeout)
            .map_or(Spell::ZERO, Spell::from_duration)
    } else {
        Spell::ZERO
    };
    for (layer, now) in stack.layers.iter().zip(budgets_by_layer(stack)) {
        let retries = layer.attempts.saturating_sub(1);
        let waits = match layer.worst_schedule() {
            crate::window::Schedule::Constant(b) => {
                format!("{} × {retries}", Spell::from_duration(b))
            }
            other => other.total(retries).to_string(),
        };
        let attempts = if layer.forever {
            "∞".to_owned()
        } else {
            layer.attempts.to_string()
        };
        lines.push(Line::raw(format!(
            "  {}: {waits} + {attempts} × {} = {}",
            layer.name,
            inner.seconds_text(),
            now.seconds_text()
        )));
        inner = now;
    }
    if timed {
        lines.push(Line::raw(format!(
            "  the last request leaves {} after the first; deadlines and the last timeout \
             come after it",
            report.automatic_delay
        )));
    }
    lines.push(Line::from(vec![
        Span::styled("Required window: ", theme.bold()),
        Span::raw(format!(
            "the longest path × the safety factor = {} × {} = {}",
            report.longest.delay, report.safety, report.required_window
        )),
    ]));
    let (tone, _) = verdict(report, true);
    lines.push(Line::styled(report.verdict(), theme.tone(tone)));
    if let Some(sentence) = report.keys_sentence() {
        lines.push(Line::styled(sentence, theme.tone(tone)));
    }
    for note in &report.notes {
        lines.push(Line::styled(note.clone(), theme.dim()));
    }
    lines.push(Line::from(vec![
        Span::styled("Human paths are not retries: ", theme.bold()),
        Span::raw(
            "each is a single wait that ends when somebody acts. A duplicate that arrives \
             after the window finds no key and is charged as new.",
        ),
    ]));
    lines.push(Line::styled(
        format!(
            "Enter replays this stack: every answer lost but the last person's, keys kept {}.",
            report.window
        ),
        theme.dim(),
    ));
    let block = boxed(" How it adds up ", theme);
    let inside = block.inner(area);
    frame.render_widget(block, area);
    crate::tui::cells::wrap::draw_wrapped(frame.buffer_mut(), inside, &Text::from(lines), false, 0);
}
