//! The update function: a message in, the new state out. No drawing, no terminal.

use super::app::{App, Overlay, SPEEDS, Screen};
use super::msg::Msg;
use crate::sim::Design;

pub fn update(app: &mut App, msg: Msg) {
    app.notice = None;
    match msg {
        Msg::Next => {
            app.playing = false;
            step_forward(app);
        }
        Msg::Prev => {
            app.playing = false;
            step_back(app);
        }
        Msg::First => {
            app.playing = false;
            match app.screen {
                Screen::Replay => app.tick = 0,
                Screen::Compare => app.compare_at = first_time(app),
            }
        }
        Msg::Last => {
            app.playing = false;
            match app.screen {
                Screen::Replay => app.tick = app.last_tick(),
                Screen::Compare => app.compare_at = last_time(app),
            }
        }
        Msg::TogglePlay => {
            if !app.playing && finished(app) {
                // Play from the top when already at the end.
                update(app, Msg::First);
            }
            app.playing = !app.playing;
        }
        Msg::PlayStep => {
            if app.playing {
                step_forward(app);
                if finished(app) {
                    app.playing = false;
                }
            }
        }
        Msg::Faster => app.speed = (app.speed + 1).min(SPEEDS.len() - 1),
        Msg::Slower => app.speed = app.speed.saturating_sub(1),
        Msg::SwitchDesign(design) => {
            if app.screen == Screen::Replay {
                app.tick = app.position_in(design);
            }
            app.design = design;
        }
        Msg::JumpToDivergence => {
            if app.screen == Screen::Compare {
                update(app, Msg::ToggleCompare);
            }
            app.playing = false;
            match app.divergence() {
                Some((i, other)) => {
                    app.tick = i.min(app.last_tick());
                    app.notice = Some(format!(
                        "{} and {} part ways here",
                        app.design.name(),
                        other.name()
                    ));
                }
                None => {
                    app.notice = Some("every design tells the same story here".to_string());
                }
            }
        }
        Msg::ToggleCompare => match app.screen {
            Screen::Replay => {
                // From the end of one story, show the end of all three.
                app.compare_at = if app.at_end() {
                    last_time(app).max(app.now())
                } else {
                    app.now()
                };
                app.screen = Screen::Compare;
            }
            Screen::Compare => {
                let at = app.compare_at;
                app.screen = Screen::Replay;
                app.tick = app.trace().tick_at_or_before(at);
            }
        },
        Msg::ToggleHelp => {
            app.overlay = match app.overlay {
                Overlay::Help => Overlay::None,
                Overlay::None => Overlay::Help,
            }
        }
        Msg::Back => {
            if app.overlay != Overlay::None {
                app.overlay = Overlay::None;
            } else if app.screen == Screen::Compare {
                update(app, Msg::ToggleCompare);
            } else {
                app.quit = true;
            }
        }
        Msg::Quit => app.quit = true,
    }
}

fn finished(app: &App) -> bool {
    match app.screen {
        Screen::Replay => app.at_end(),
        Screen::Compare => app.compare_at >= last_time(app),
    }
}

fn step_forward(app: &mut App) {
    match app.screen {
        Screen::Replay => app.tick = (app.tick + 1).min(app.last_tick()),
        Screen::Compare => {
            let now = app.compare_at;
            if let Some(next) = Design::CORE
                .into_iter()
                .filter_map(|d| {
                    app.trace_of(d)
                        .ticks
                        .iter()
                        .map(|t| t.at)
                        .find(|t| *t > now)
                })
                .min()
            {
                app.compare_at = next;
            }
        }
    }
}

fn step_back(app: &mut App) {
    match app.screen {
        Screen::Replay => app.tick = app.tick.saturating_sub(1),
        Screen::Compare => {
            let now = app.compare_at;
            if let Some(prev) = Design::CORE
                .into_iter()
                .filter_map(|d| {
                    app.trace_of(d)
                        .ticks
                        .iter()
                        .map(|t| t.at)
                        .rfind(|t| *t < now)
                })
                .max()
            {
                app.compare_at = prev;
            }
        }
    }
}

fn first_time(app: &App) -> crate::sim::Instant {
    Design::CORE
        .into_iter()
        .filter_map(|d| app.trace_of(d).ticks.first().map(|t| t.at))
        .min()
        .unwrap_or_default()
}

fn last_time(app: &App) -> crate::sim::Instant {
    Design::CORE
        .into_iter()
        .filter_map(|d| app.trace_of(d).ticks.last().map(|t| t.at))
        .max()
        .unwrap_or_default()
}
