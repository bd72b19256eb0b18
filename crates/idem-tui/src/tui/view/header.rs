//! The header (scenario, clock, position, play state), the design bar and the footer.

use super::fit;
use crate::replay::app::{App, SPEEDS, Screen};
use crate::sim::Design;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

pub fn header(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let intent = app.version.scenario().config.intents.first();
    let order = intent.map_or(String::new(), |i| {
        format!("order {} · {}", i.order, i.amount)
    });
    let width = area.width as usize;
    let title_room = width.saturating_sub(order.chars().count() + 10);
    let first = Line::from(vec![
        Span::styled(" idem ", theme.title()),
        Span::styled(fit(&app.version.scenario().title, title_room), theme.bold()),
        Span::raw("  "),
        Span::styled(order, theme.dim()),
    ]);
    let second = status_line(app, width, theme);
    super::rows(frame.buffer_mut(), area, vec![first, second]);
}

/// The second header line: design, clock, position, play state and speed, and the mode
/// (what-if, compare, a question waiting). The mode and the speed always stay; when the line
/// is too long, the design's long name shortens first, then the steps' keys, then the what-if's
/// description.
fn status_line(app: &App, width: usize, theme: &Theme) -> Line<'static> {
    let trace = app.trace();
    let clock = trace.format_time(app.now());
    let position = match app.screens.screen {
        Screen::Replay | Screen::Window => {
            format!("tick {}/{}", app.place.tick + 1, trace.ticks.len())
        }
        Screen::Compare => "COMPARE".to_string(),
    };
    let play = if app.place.playing {
        "▶ PLAYING"
    } else {
        "❚❚ paused"
    };
    let steps = app
        .version
        .scenario()
        .config
        .steps
        .first()
        .map(|s| match s.key_mode {
            crate::sim::config::KeyMode::Derived => ("derived keys", "derived"),
            crate::sim::config::KeyMode::PerAttempt => ("a key per try", "per try"),
            crate::sim::config::KeyMode::None => ("no key", "no key"),
        });
    let keys = key_source_words(app);
    let what_if = app.version.added.last().map(|last| {
        let more = match app.version.added.len() {
            1 => String::new(),
            n => format!(" (+{} more)", n - 1),
        };
        format!(
            " (u undoes): {}{more}",
            crate::scenario::fork::describe(&app.version.original, last)
        )
    });
    let quiz = app.quiz_pending();
    let withheld = app.withheld();
    // While the design is hidden its number stands for both its names (the line reads
    // `design 3`); while a question is open the key strategies are kept back, since they may
    // answer it.
    let label = app.place.design.hotkey().to_string();
    let designs = if withheld.shows_design() {
        [app.place.design.name(), short_name(app.place.design)]
    } else {
        [label.as_str(), label.as_str()]
    };
    let (keys, steps) = if withheld.shows_keys() {
        (keys, steps)
    } else {
        (None, None)
    };
    // `steps`: 0 writes the steps' key mode in full, 1 in short, 2 leaves it out (the steps'
    // arrows still carry their keys).
    let build = |design: &str, steps_form: u8, detail: bool| -> Vec<Span<'static>> {
        let mut spans = vec![
            Span::raw(" design "),
            Span::styled(design.to_string(), theme.bold()),
        ];
        if let Some((long, short)) = keys.as_ref().filter(|_| steps_form < 2) {
            spans.push(Span::raw(" · keys: "));
            spans.push(Span::styled(
                if steps_form == 0 {
                    long.clone()
                } else {
                    short.clone()
                },
                theme.bold(),
            ));
        }
        if let Some((long, short)) = steps.filter(|_| steps_form < 2) {
            spans.push(Span::raw(" · steps: "));
            spans.push(Span::styled(
                if steps_form == 0 { long } else { short },
                theme.bold(),
            ));
        }
        spans.push(Span::raw("   "));
        spans.push(Span::styled(format!("◷ {clock}"), theme.bold()));
        spans.push(Span::raw(format!(
            "   {position}   {play} · {}×",
            SPEEDS[app.place.speed]
        )));
        if quiz {
            spans.push(Span::styled("   ? QUIZ", theme.changed()));
        }
        if let Some(text) = &what_if {
            spans.push(Span::styled("   ⑂ WHAT-IF", theme.changed()));
            if detail {
                spans.push(Span::styled(text.clone(), theme.changed()));
            }
        }
        spans
    };
    let length = |spans: &[Span<'_>]| -> usize {
        spans
            .iter()
            .map(|s| unicode_width::UnicodeWidthStr::width(s.content.as_ref()))
            .sum()
    };
    // From the richest line to the plainest; the first that fits is shown. Past the last, the
    // what-if's words are cut to the room left, with a mark, rather than dropped.
    let order = [
        (designs[0], 0, true),
        (designs[1], 0, true),
        (designs[1], 1, true),
    ];
    for (design, steps_form, detail) in order {
        let spans = build(design, steps_form, detail);
        if length(&spans) <= width {
            return Line::from(spans);
        }
    }
    for steps_form in [1, 2] {
        let mut spans = build(designs[1], steps_form, false);
        if length(&spans) > width {
            continue;
        }
        if let Some(text) = &what_if {
            let room = width.saturating_sub(length(&spans));
            if room > 12 {
                spans.push(Span::styled(fit(text, room), theme.changed()));
            }
        }
        return Line::from(spans);
    }
    // The design's number alone, before the mode or the speed could be lost.
    let number = app.place.design.hotkey().to_string();
    Line::from(build(&number, 2, false))
}

/// How the checkout keys its attempts, long and short, when it is not the one key per order
/// every attempt carries (or when `K` chose it, so the room sees the toggle land).
fn key_source_words(app: &App) -> Option<(String, String)> {
    use crate::sim::config::KeySource;
    let cfg = &app.version.scenario().config;
    let words = match cfg.key_source() {
        KeySource::Order if cfg.order_has_key() => {
            app.version.keys_set()?;
            ("one per order".to_string(), "per order".to_string())
        }
        KeySource::Order => ("none".to_string(), "none".to_string()),
        KeySource::Minted { layer: 0 } => (
            "new on every attempt".to_string(),
            "per attempt".to_string(),
        ),
        KeySource::Minted { layer } => {
            let name = &cfg.layers[layer].name;
            (format!("new per {name} attempt"), format!("per {name}"))
        }
        KeySource::Dropped { layer } => {
            let name = &cfg.layers[layer].name;
            (format!("dropped by the {name}"), "dropped".to_string())
        }
    };
    Some(words)
}

pub fn design_bar(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    theme: &Theme,
) -> Vec<(Rect, Design)> {
    // The full names of all six designs need 134 columns.
    let compact = area.width < 134;
    // In front of a room that is to predict first, the designs are numbers only.
    let hidden = !app.withheld().shows_design();
    let mut spans = vec![Span::raw(" ")];
    let mut x = area.x + 1;
    let mut tabs = Vec::new();
    for design in Design::ALL {
        let name = if hidden {
            ""
        } else if compact {
            short_name(design)
        } else {
            design.name()
        };
        let text = if name.is_empty() {
            format!(" {} ", design.hotkey())
        } else {
            format!(" {} {} ", design.hotkey(), name)
        };
        let width = unicode_width::UnicodeWidthStr::width(text.as_str()) as u16;
        let tab = Rect::new(x, area.y, width, 1).intersection(area);
        tabs.push((tab, design));
        x += width + 1;
        if design == app.place.design {
            spans.push(Span::styled(text, theme.active_design()));
        } else {
            spans.push(Span::raw(text));
        }
        spans.push(Span::styled("│", theme.dim()));
    }
    spans.pop();
    if hidden {
        // A picture has no key to press.
        let why = if app.export.is_some() {
            "   design names hidden"
        } else {
            "   design names hidden: n reveals"
        };
        spans.push(Span::styled(why, theme.dim()));
    }
    super::rows(frame.buffer_mut(), area, vec![Line::from(spans)]);
    tabs
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
    let compare = app.screens.screen == Screen::Compare;
    // At a question the hint bar says how the room answers, in the mode the keys are in.
    let keys: &[(&str, &str)] = match app.screens.overlay {
        crate::replay::app::Overlay::Answering => {
            &[("1-9", "the room's answer"), ("Esc", "leave answer mode")]
        }
        crate::replay::app::Overlay::Voting { .. } => &[
            ("0-9", "hands for the marked choice"),
            ("↑↓", "choose"),
            ("Enter", "reveal"),
            ("Esc", "leave"),
        ],
        _ if app.answer_waiting() => &[
            ("→/Enter", "reveal"),
            ("u", "take back"),
            ("a", "change"),
            ("1-6", "design"),
        ],
        _ if app.quiz_pending() => &[
            ("a", "answer"),
            ("v", "count hands"),
            ("1-6", "design"),
            ("←", "back"),
            ("?", "help"),
            ("q", "quit"),
        ],
        _ => &[
            ("←→", "step"),
            ("Space", "play"),
            ("1-6", if compare { "columns" } else { "design" }),
            ("d", "diverge"),
            ("c", if compare { "back" } else { "compare" }),
            ("?", "help"),
            ("q", "quit"),
        ],
    };
    let mut spans = vec![Span::raw(" ")];
    for (k, what) in keys {
        spans.push(Span::styled(*k, theme.key()));
        spans.push(Span::raw(format!(" {what}  ")));
    }
    let second = match (&app.error, &app.screens.notice) {
        // The story on screen stays live while the next one is worked out.
        _ if app.jobs.simulating.is_some() => Line::from(vec![
            Span::styled(" ⧗ simulating… ", theme.key()),
            Span::raw(fit(
                app.jobs.simulating.as_deref().unwrap_or_default(),
                (area.width as usize).saturating_sub(17),
            )),
        ]),
        (Some(e), _) => Line::from(vec![
            Span::styled(" ⚠ ", theme.lost()),
            Span::styled(
                fit(
                    format!("the last good version keeps running · {e}"),
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
                Span::raw(fit(app.share_command(), area.width as usize - 9)),
            ]),
        },
    };
    super::rows(frame.buffer_mut(), area, vec![Line::from(spans), second]);
}
