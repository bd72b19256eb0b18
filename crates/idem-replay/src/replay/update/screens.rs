//! What is on screen beside the story: help, panels, the room's screen, the pickers and the
//! window calculator.

use super::*;

/// What is on screen beside the story: help, panels, the room's screen, the pickers and the
/// window calculator.
pub(super) fn screens(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    match msg {
        Msg::OpenGoto => {
            app.place.playing = false;
            app.screens.overlay = Overlay::Goto {
                typed: String::new(),
                error: None,
            };
        }
        Msg::ToggleHelp
        | Msg::OpenGlossary
        | Msg::OpenChecklist
        | Msg::Listed(..)
        | Msg::ToggleFold => {
            if let Some(notice) = app.screens.update(msg) {
                app.screens.notice = Some(notice);
            }
        }
        Msg::ScrollStory(by) if matches!(app.screens.overlay, Overlay::Explore { .. }) => {
            app.screens.update(Msg::ScrollStory(by));
        }
        Msg::Blank | Msg::ToggleElapsed | Msg::ToggleHidden | Msg::TogglePanels => {
            if let Some(notice) = app.talk.present.as_mut().and_then(|p| p.update(&msg)) {
                app.screens.notice = Some(notice);
            }
        }
        Msg::ScrollStory(by) => {
            let offset = app.place.story_offset().saturating_add_signed(by);
            app.place.story_scroll = (app.place.tick, app.place.design, offset);
        }
        Msg::OpenSave => {
            if app.version.added.is_empty() {
                app.screens.notice =
                    Some("nothing to save yet: add a what-if with x, ! or s first".into());
            } else {
                app.screens.overlay = Overlay::Save(SavePrompt {
                    path: format!("{}-what-if.toml", app.version.original.name),
                    confirm_overwrite: false,
                    error: None,
                });
            }
        }
        Msg::OpenPicker => effects.push(Effect::ListScenarios(vec![
            PathBuf::from("scenarios"),
            PathBuf::from("."),
        ])),
        Msg::OpenWindow => {
            app.place.playing = false;
            let config = &app.version.scenario().config;
            let stack = crate::window::scenario::stack_from_config(config);
            let purchase = crate::window::scenario::Purchase::of_scenario(config);
            // Closed and opened again on the same story, the screen keeps its edits.
            let kept = app
                .screens
                .window
                .as_ref()
                .is_some_and(|w| *w.opened_on() == stack && *w.purchase() == purchase);
            if !kept {
                app.screens.window = Some(Box::new(WindowScreen::buying(stack, purchase)));
            }
            app.screens.screen = Screen::Window;
        }
        Msg::Window(msg) => {
            let action = match app.screens.window.as_mut() {
                Some(w) => w.update(msg),
                None => WindowAction::Close,
            };
            match action {
                WindowAction::None => {}
                WindowAction::Close => app.screens.screen = Screen::Replay,
                WindowAction::OpenScenario(s) => effects.push(open(
                    app,
                    s,
                    crate::window::scenario::SCENARIO_NAME,
                    Some("your stack, every answer lost: watch the attempts multiply".into()),
                    ErrorsTo::Window,
                )),
            }
        }
        _ => {}
    }
}

/// Between the replay and the compare screen, keeping the moment.
pub(super) fn toggle_compare(app: &mut App) {
    match app.screens.screen {
        Screen::Replay | Screen::Window => {
            // From the end of one story, show the end of all three.
            app.place.compare_at = if app.at_end() {
                last_time(app).max(app.now())
            } else {
                app.now()
            };
            app.place.compare_from = Some((
                app.place.design,
                app.place.tick,
                app.place.compare_at,
                app.version.revision,
            ));
            app.screens.screen = Screen::Compare;
        }
        Screen::Compare => {
            let at = app.place.compare_at;
            app.screens.screen = Screen::Replay;
            app.place.tick = match app.place.compare_from.take() {
                // Not moved in compare, and the same story: the very tick it was opened from.
                // A story changed meanwhile (a what-if, K, back as written) is found by time.
                Some((design, tick, opened, revision))
                    if design == app.place.design
                        && opened == at
                        && revision == app.version.revision
                        && tick < app.trace().ticks.len() =>
                {
                    tick
                }
                _ => app.trace().tick_at_or_before(at),
            };
        }
    }
}
