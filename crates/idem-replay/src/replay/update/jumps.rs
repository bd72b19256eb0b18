//! Jumps through the story: to the next event that matters, to a tick or a time typed, to
//! the next question for the room.

use super::*;

/// Moves to the next or previous tick that matters, stopping at a question on the way.
pub(super) fn jump_event(app: &mut App, forward: bool) {
    if forward && app.quiz_pending() {
        app.screens.notice = Some(quiz_reminder(app));
        return;
    }
    let ticks = &app.trace().ticks;
    let found = if forward {
        (app.place.tick + 1..ticks.len()).find(|&i| matters(&ticks[i]))
    } else {
        (0..app.place.tick).rev().find(|&i| matters(&ticks[i]))
    };
    let Some(mut target) = found else {
        app.screens.notice = Some(if forward {
            "nothing more that matters after this tick".into()
        } else {
            "nothing that matters before this tick".into()
        });
        return;
    };
    if forward && let Some(q) = next_question(app).filter(|&q| q < target) {
        target = q;
    }
    app.place.tick = target;
    app.screens.notice = Some(format!(
        "tick {}: {}",
        target + 1,
        app.told().labels[target]
    ));
}

/// Whether a tick is one of the events `]` and `[` stop at.
pub(super) fn matters(tick: &crate::sim::Tick) -> bool {
    use crate::sim::TickKind;
    matches!(
        tick.kind,
        TickKind::Charge
            | TickKind::Crash
            | TickKind::Lost
            | TickKind::Expire
            | TickKind::Refund
            | TickKind::Alert
            | TickKind::Effect
            | TickKind::GiveUp
    )
}

/// Goes to what `typed` names: a tick number (`12`) or a time (`14:02:38`, `day 2 02:00`,
/// `Fri 18:00`), the tick a question at that time would stop on. A question on the way is
/// not skipped.
pub(super) fn go_to(app: &mut App, typed: &str) {
    let typed = typed.trim();
    let last = app.last_tick();
    let target = if let Ok(n) = typed.parse::<usize>() {
        match n {
            1.. if n <= last + 1 => Ok(n - 1),
            _ => Err(format!(
                "there is no tick {n}: this story has ticks 1 to {}",
                last + 1
            )),
        }
    } else {
        crate::scenario::values::parse_clock(typed)
            .map_err(|e| format!("{e}; or a tick number"))
            .and_then(|c| tick_of_time(app, c))
    };
    match target {
        Ok(mut t) => {
            if t > app.place.tick
                && let Some(q) = next_question(app).filter(|&q| q < t)
            {
                t = q;
            }
            if app.screens.screen == Screen::Compare {
                toggle_compare(app);
            }
            app.place.tick = t;
            app.screens.overlay = Overlay::None;
        }
        Err(e) => {
            app.screens.overlay = Overlay::Goto {
                typed: typed.to_string(),
                error: Some(crate::text::sanitize_line(&e)),
            }
        }
    }
}

/// The tick a `[[quiz]] at` of this time would name: the time read as every time in the
/// file is (the first such moment at or after the start), then its first tick at or after.
pub(super) fn tick_of_time(
    app: &App,
    clock: crate::scenario::values::ClockTime,
) -> Result<usize, String> {
    let at = app.version.scenario().instant_of(clock);
    let trace = app.trace();
    crate::scenario::NarrationTarget::At(at)
        .find(trace, app.told())
        .ok_or_else(|| {
            let last = trace.ticks.last().map_or_else(String::new, |t| {
                format!("; the last is at {}", trace.clock.format_short(t.at))
            });
            format!(
                "no tick comes at or after {} under {}{last}",
                trace.clock.format_short(at),
                app.place.design.id()
            )
        })
}

/// The first question after the current tick still open under the design on screen, which
/// no jump passes.
pub(super) fn next_question(app: &App) -> Option<usize> {
    app.next_question(app.place.tick + 1).map(|(tick, _)| tick)
}
