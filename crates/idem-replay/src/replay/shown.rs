//! What the presenter says about its own state, in words: the same lines on the room's screen
//! and in the speaker notes, so the trainer always knows what the room is looking at.

use super::app::{App, Screen};
use crate::present::link::Shown;

/// The presenter's state lines: a what-if in force (and how the run's length changed), the
/// checkout's or the steps' keys changed (K, m), a broken edit of the scenario file, the two designs `d` set apart here, the designs compared.
pub fn banners(app: &App) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(last) = app.version.added.last() {
        let more = match app.version.added.len() {
            1 => String::new(),
            n => format!(" (+{} more)", n - 1),
        };
        let now = app.trace().ticks.len();
        let before = app.version.ticks_before_what_ifs(app.place.design);
        let length = if now == before {
            String::new()
        } else {
            format!(" · the run has {now} ticks; before the what-ifs, {before}")
        };
        lines.push(format!(
            "⑂ WHAT-IF: {}{more}{length} · u undoes",
            crate::scenario::fork::describe(&app.version.original, last)
        ));
    }
    if let Some(strategy) = app.version.keys_set() {
        lines.push(format!(
            "K: the checkout sends {}",
            crate::replay::prepare::checkout_keys(strategy)
        ));
    }
    let keying = app.version.original.config.keying();
    if keying.steps_differ(&app.version.original.keying_as_written)
        && let Some(mode) = keying.steps.first()
    {
        lines.push(format!(
            "m: the steps after payment are sent with {}",
            crate::replay::prepare::step_keys(*mode)
        ));
    }
    if let Some(e) = &app.error {
        lines.push(format!(
            "⚠ the file has an error; the last good version keeps running · {e}"
        ));
    }
    if app.screens.screen == Screen::Compare {
        let names: Vec<String> = app
            .screens
            .compared
            .iter()
            .map(|d| format!("{} {}", d.hotkey(), design_name(app, *d)))
            .collect();
        lines.push(format!("COMPARE: {}", names.join(" · ")));
    } else if let Some(p) = app.place.parted
        && p.tick == app.place.tick
        && p.this == app.place.design
    {
        lines.push(format!(
            "◆ d: {} and {} part ways at this tick",
            design_name(app, p.this),
            design_name(app, p.other)
        ));
    }
    lines
}

/// A design as the room may see it: its name, or its number alone while names are hidden.
pub fn design_name(app: &App, design: crate::sim::Design) -> String {
    app.withheld().design(design)
}

/// Everything the notes are told about the presenter's state, but the countdown (which
/// changes every second and is added as the position is sent).
pub fn shown(app: &App) -> Shown {
    let hidden = app.talk.present.map(|p| p.hidden()).filter(|h| h.any());
    Shown {
        banners: banners(app),
        changed: app
            .version
            .changed_from_written()
            .into_iter()
            .map(String::from)
            .collect(),
        hidden: hidden.map(|h| format!("hidden from the room: {} (n reveals)", h.words())),
        section: app.talk.agenda.as_ref().and_then(|a| {
            match a.card {
                Some(crate::replay::app::Card::Agenda) => {
                    return Some("the agenda is on screen: PageDown starts part 1".to_string());
                }
                Some(crate::replay::app::Card::End) => {
                    return Some("the end card is on screen: PageUp goes back".to_string());
                }
                None => {}
            }
            let s = a.section()?;
            let budget = s
                .budget
                .map(|b| format!(" · budget {}", clock(b.as_secs() as i64)))
                .unwrap_or_default();
            Some(format!(
                "part {} of {}: {}{budget}",
                a.at + 1,
                a.playlist.sections.len(),
                s.title
            ))
        }),
        left_secs: None,
        room: room_here(app),
        play: Some(play_state(app)),
        score: app.talk.session_score().text(),
    }
}

/// Whether the replay plays, at what speed, and whether the room's screen is blank: the same
/// words on the presenter's title line and in the notes.
pub fn play_state(app: &App) -> String {
    let speed = crate::replay::app::SPEEDS[app.place.speed];
    if app.talk.present.is_some_and(|p| p.blank) {
        "the room's screen is blank (any key brings it back)".to_string()
    } else if app.place.playing {
        format!("▶ playing · {speed}×")
    } else {
        format!("❚❚ paused · {speed}×")
    }
}

/// What the room has said to the question here, under the design on screen.
fn room_here(app: &App) -> Option<String> {
    let (_, quiz) = app.question_here()?;
    let r = app.response_here()?;
    if !r.started() {
        return None;
    }
    let choices = app.choices(quiz);
    let said = r
        .answer()
        .and_then(|i| choices.get(i).map(|c| format!("{} {c}", i + 1)));
    let hands = if r.hands() > 0 {
        let counts: Vec<String> = r
            .votes
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{}: {n}", i + 1))
            .collect();
        format!(" (hands {})", counts.join(", "))
    } else {
        String::new()
    };
    let state = match r.revealed {
        None => "not revealed yet".to_string(),
        Some(_) if r.right() => "revealed: right".to_string(),
        // A tie gives the room no answer to be right or wrong with.
        Some(_) if r.choice.is_none() => "revealed: a tie, so no answer".to_string(),
        Some(_) => "revealed: wrong".to_string(),
    };
    Some(format!(
        "the room says {}{hands}; {state}",
        said.unwrap_or_else(|| "nothing clear (a tie)".to_string())
    ))
}

/// `04:12`, or `-01:05` once over.
pub fn clock(secs: i64) -> String {
    let sign = if secs < 0 { "-" } else { "" };
    let secs = secs.unsigned_abs();
    format!("{sign}{:02}:{:02}", secs / 60, secs % 60)
}
