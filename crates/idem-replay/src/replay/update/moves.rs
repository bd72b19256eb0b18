//! Stepping through the story and between designs: ticks, play and its pace, the design
//! shown, compare and its columns, where two designs part, a clicked row.

use super::*;

/// Moves through the story: ticks, play, designs, compare, jumps.
pub(super) fn moves(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    let cards = app.talk.agenda.as_ref().is_some_and(|a| a.cards);
    match msg {
        Msg::Prev
            if cards
                && app.screens.screen == Screen::Replay
                && app.place.tick == 0
                && app.talk.agenda.as_ref().is_some_and(|a| a.at == 0) =>
        {
            app.place.playing = false;
            set_card(app, Some(crate::replay::app::Card::Agenda));
        }
        Msg::Next
            if cards
                && app.screens.screen == Screen::Replay
                && app.at_end()
                && !app.quiz_pending()
                && !app.answer_waiting()
                && next_section(app).is_none() =>
        {
            app.place.playing = false;
            set_card(app, Some(crate::replay::app::Card::End));
        }
        // A clicker's PageDown reveals the room's answer when one waits.
        Msg::Next if app.answer_waiting() => reveal(app),
        Msg::Next if app.quiz_pending() => {
            app.place.playing = false;
            app.screens.notice = Some(quiz_reminder(app));
        }
        Msg::Next
            if app.screens.screen == Screen::Replay
                && app.at_end()
                && next_section(app).is_some() =>
        {
            app.place.playing = false;
            if let Some(to) = next_section(app) {
                effects.push(open_section(app, to, false));
            }
        }
        Msg::Next => {
            app.place.playing = false;
            step_forward(app);
        }
        Msg::Prev
            if app.screens.screen == Screen::Replay
                && app.place.tick == 0
                && app.talk.agenda.as_ref().is_some_and(|a| a.at > 0) =>
        {
            app.place.playing = false;
            if let Some(a) = &app.talk.agenda {
                let to = a.at - 1;
                effects.push(open_section(app, to, true));
            }
        }
        Msg::Prev => {
            app.place.playing = false;
            step_back(app);
        }
        Msg::First => {
            app.place.playing = false;
            go_first(app);
        }
        Msg::Last => {
            app.place.playing = false;
            match app.screens.screen {
                Screen::Replay | Screen::Window if app.quiz_pending() => {
                    // The question open here waits for the room, as it does for PageDown.
                    app.screens.notice = Some(quiz_reminder(app));
                }
                Screen::Replay | Screen::Window => {
                    // A question for the room is not skipped on the way to the end: not one
                    // the room has not been asked under this design either.
                    app.place.tick = next_question(app).unwrap_or(app.last_tick());
                    if app.quiz_pending() {
                        app.screens.notice = Some(quiz_reminder(app));
                    } else if app.question_here().is_some() && app.response_here().is_none() {
                        // Answered under another design only: asked again here if the
                        // trainer wants, or passed by with G once more.
                        app.screens.notice = Some(format!(
                            "not asked under {} yet: a or v asks it here, G goes on",
                            crate::replay::shown::design_name(app, app.place.design)
                        ));
                    }
                }
                Screen::Compare => app.place.compare_at = last_time(app),
            }
        }
        Msg::TogglePlay | Msg::PlayStep if app.quiz_pending() => {
            app.place.playing = false;
            app.screens.notice = Some(quiz_reminder(app));
        }
        Msg::TogglePlay => {
            if !app.place.playing && finished(app) {
                // Play from the top when already at the end.
                go_first(app);
            }
            app.place.playing = !app.place.playing;
        }
        Msg::PlayStep if app.place.playing => {
            step_forward(app);
            // Autoplay stops at the end, and at a question for the room.
            if finished(app) || app.quiz_pending() {
                app.place.playing = false;
            }
        }
        Msg::Faster => app.place.faster(),
        Msg::Slower => app.place.slower(),
        _ => {}
    }
}

/// Moves between designs and through the story by jumps: another design, compare and its
/// columns, where two designs part, the next event that matters, a clicked row.
pub(super) fn designs(app: &mut App, msg: Msg) {
    match msg {
        Msg::SwitchDesign(design) if matches!(app.screens.overlay, Overlay::Traffic(_)) => {
            if let Overlay::Traffic(v) = &mut app.screens.overlay
                && let Some(i) = v.report.designs.iter().position(|d| d.design == design)
            {
                v.selected = i;
            }
        }
        Msg::SwitchDesign(design) => {
            if app.screens.screen == Screen::Replay {
                app.place.tick = app.position_in(design);
            }
            if design != app.place.design
                && let Some(p) = app.talk.present.as_mut()
            {
                // Another design's name stays hidden until it too is revealed.
                p.revealed = false;
            }
            app.place.design = design;
        }
        Msg::JumpToDivergence => {
            if app.screens.screen == Screen::Compare {
                toggle_compare(app);
            }
            app.place.playing = false;
            match app.divergence() {
                Some((i, other)) => {
                    app.place.tick = i.min(app.last_tick());
                    app.place.parted = Some(Parted {
                        tick: app.place.tick,
                        this: app.place.design,
                        other,
                    });
                    app.screens.notice = Some(format!(
                        "{} and {} part ways here",
                        crate::replay::shown::design_name(app, app.place.design),
                        crate::replay::shown::design_name(app, other)
                    ));
                }
                None => {
                    app.screens.notice = Some("every design tells the same story here".to_string());
                }
            }
        }
        Msg::ToggleCompare => toggle_compare(app),
        Msg::ToggleCompared(design) => {
            let shown = app.screens.compared.contains(&design);
            match (shown, app.screens.compared.len()) {
                (true, n) if n <= 2 => {
                    app.screens.notice = Some("compare shows at least two designs".into());
                }
                (false, n) if n >= 5 => {
                    app.screens.notice =
                        Some("compare shows at most five designs: take one away first".into());
                }
                (true, _) => app.screens.compared.retain(|d| *d != design),
                (false, _) => {
                    app.screens.compared.push(design);
                    app.screens.compared.sort_by_key(|d| d.hotkey());
                }
            }
        }
        Msg::JumpEvent(forward) => {
            app.place.playing = false;
            if app.screens.screen == Screen::Compare {
                toggle_compare(app);
            }
            jump_event(app, forward);
        }
        Msg::GoToTick(tick) => {
            let mut target = tick.min(app.last_tick());
            // Forward, a question on the way is not passed.
            if target > app.place.tick {
                if app.quiz_pending() {
                    app.screens.notice = Some(quiz_reminder(app));
                    return;
                }
                if let Some(q) = next_question(app).filter(|&q| q < target) {
                    target = q;
                }
            }
            app.place.playing = false;
            app.place.tick = target;
        }
        _ => {}
    }
}

pub(super) fn step_forward(app: &mut App) {
    match app.screens.screen {
        Screen::Replay | Screen::Window => {
            app.place.tick = (app.place.tick + 1).min(app.last_tick())
        }
        Screen::Compare => {
            let now = app.place.compare_at;
            if let Some(next) = compare_times(app).into_iter().find(|t| *t > now) {
                app.place.compare_at = next;
            }
        }
    }
}

pub(super) fn step_back(app: &mut App) {
    match app.screens.screen {
        Screen::Replay | Screen::Window => app.place.tick = app.place.tick.saturating_sub(1),
        Screen::Compare => {
            let now = app.place.compare_at;
            if let Some(prev) = compare_times(app).into_iter().rfind(|t| *t < now) {
                app.place.compare_at = prev;
            }
        }
    }
}

/// Every moment at which one of the compared designs has a tick, in order: the stops of
/// the compare screen.
pub(super) fn compare_times(app: &App) -> Vec<crate::sim::Instant> {
    let mut times: Vec<_> = app
        .screens
        .compared
        .iter()
        .copied()
        .flat_map(|d| app.version.trace_of(d).ticks.iter().map(|t| t.at))
        .collect();
    times.sort_unstable();
    times.dedup();
    times
}

pub(super) fn first_time(app: &App) -> crate::sim::Instant {
    compare_times(app).first().copied().unwrap_or_default()
}

pub(super) fn last_time(app: &App) -> crate::sim::Instant {
    compare_times(app).last().copied().unwrap_or_default()
}

pub(super) fn go_first(app: &mut App) {
    match app.screens.screen {
        Screen::Replay | Screen::Window => app.place.tick = 0,
        Screen::Compare => app.place.compare_at = first_time(app),
    }
}
