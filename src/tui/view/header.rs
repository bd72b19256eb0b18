//! The header (scenario, clock, position, play state), the design bar and the footer.

use super::fit;
use crate::sim::Design;
use crate::tui::app::{App, SPEEDS, Screen};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn header(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let intent = app.scenario.config.intents.first();
    let order = intent.map_or(String::new(), |i| {
        format!("order {} · {}", i.order, i.amount)
    });
    let width = area.width as usize;
    let title_room = width.saturating_sub(order.chars().count() + 10);
    let first = Line::from(vec![
        Span::styled(" idem ", theme.title()),
        Span::styled(fit(&app.scenario.title, title_room), theme.bold()),
        Span::raw("  "),
        Span::styled(order, theme.dim()),
    ]);
    let trace = app.trace();
    let clock = trace.format_time(app.now());
    let position = match app.screen {
        Screen::Replay | Screen::Window => format!("tick {}/{}", app.tick + 1, trace.ticks.len()),
        Screen::Compare => "compare".to_string(),
    };
    let play = if app.playing {
        "▶ playing"
    } else {
        "❚❚ paused"
    };
    let mut second = vec![
        Span::raw(" design "),
        Span::styled(app.design.name(), theme.bold()),
    ];
    // How the steps after payment are keyed, which m changes.
    if let Some(step) = app.scenario.config.steps.first() {
        let keys = match step.key_mode {
            crate::sim::config::KeyMode::Derived => "derived keys",
            crate::sim::config::KeyMode::PerAttempt => "a key per try",
            crate::sim::config::KeyMode::None => "no key",
        };
        second.push(Span::raw(" · steps: "));
        second.push(Span::styled(keys, theme.bold()));
    }
    second.extend([
        Span::raw("   "),
        Span::styled(format!("◷ {clock}"), theme.bold()),
        Span::raw(format!("   {position}   {play} · {}×", SPEEDS[app.speed])),
    ]);
    // The room must know when it is looking at a what-if rather than the scenario as written.
    if let Some(last) = app.added.last() {
        let more = match app.added.len() {
            1 => String::new(),
            n => format!(" (+{} more)", n - 1),
        };
        let used: usize = second.iter().map(|s| s.content.chars().count()).sum();
        let text = format!(
            "   ⑂ WHAT-IF (u undoes): {}{more}",
            crate::scenario::fork::describe(&app.original, last)
        );
        second.push(Span::styled(
            fit(&text, width.saturating_sub(used)),
            theme.changed(),
        ));
    }
    let second = Line::from(second);
    frame.render_widget(Paragraph::new(vec![first, second]), area);
}

pub fn design_bar(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    // The full names of all six designs need 134 columns.
    let compact = area.width < 134;
    let mut spans = vec![Span::raw(" ")];
    for design in Design::ALL {
        let name = if compact {
            short_name(design)
        } else {
            design.name()
        };
        let text = format!(" {} {} ", design.hotkey(), name);
        if design == app.design {
            spans.push(Span::styled(text, theme.active_design()));
        } else {
            spans.push(Span::raw(text));
        }
        spans.push(Span::styled("│", theme.dim()));
    }
    spans.pop();
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Names that fit all six designs on an 80-column line.
fn short_name(d: Design) -> &'static str {
    match d {
        Design::WithCharge => "with charge",
        Design::LogAfterCharge => "log after",
        Design::NoKey => "no key",
        Design::LogBeforeCharge => "log first",
        Design::ContentHash => "content",
        Design::InProgressRecord => "record",
    }
}

pub fn footer(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let keys: &[(&str, &str)] = &[
        ("←→", "step"),
        ("Space", "play"),
        ("1-6", "design"),
        ("d", "diverge"),
        ("c", "compare"),
        ("?", "help"),
        ("q", "quit"),
    ];
    let mut spans = vec![Span::raw(" ")];
    for (k, what) in keys {
        spans.push(Span::styled(*k, theme.key()));
        spans.push(Span::raw(format!(" {what}  ")));
    }
    let second = match (&app.error, &app.notice) {
        // The story on screen stays live while the next one is worked out.
        _ if app.simulating.is_some() => Line::from(vec![
            Span::styled(" ⧗ simulating… ", theme.key()),
            Span::raw(fit(
                app.simulating.as_deref().unwrap_or_default(),
                (area.width as usize).saturating_sub(17),
            )),
        ]),
        (Some(e), _) => Line::from(vec![
            Span::styled(" ⚠ ", theme.lost()),
            Span::styled(
                fit(
                    &format!("the last good version keeps running · {e}"),
                    area.width as usize - 4,
                ),
                theme.lost(),
            ),
        ]),
        (None, notice) => match notice {
            Some(n) => Line::from(vec![
                Span::raw(" "),
                Span::styled(fit(n, area.width as usize - 2), theme.changed()),
            ]),
            None => Line::from(vec![
                Span::styled(" share: ", theme.dim()),
                Span::raw(fit(&app.share_command(), area.width as usize - 9)),
            ]),
        },
    };
    frame.render_widget(Paragraph::new(vec![Line::from(spans), second]), area);
}
