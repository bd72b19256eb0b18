//! `Q`: the story's questions for the room, one row each, and where it asks them under the
//! design on screen; Enter goes there, as a click on that tick's row would.

use super::ReplayDialog;
use crate::replay::app::App;
use crate::replay::dialog::{Dialog, DialogKey, Done};
use crate::replay::msg::Msg;
use crate::replay::room::Response;

/// The list of questions and the one chosen.
#[derive(Clone, Debug, Default)]
pub struct Questions {
    selected: usize,
}

/// Opens the list on the next question from where the viewer stands.
pub fn open(app: &App) -> Box<ReplayDialog> {
    let ticks = ticks(app);
    let selected = ticks
        .iter()
        .position(|t| t.is_some_and(|t| t >= app.place.tick))
        .unwrap_or(0);
    Box::new(Questions { selected })
}

/// Each question's tick under the design on screen, `None` where it is not asked.
fn ticks(app: &App) -> Vec<Option<usize>> {
    app.version
        .scenario()
        .quizzes
        .iter()
        .map(|q| q.tick(app.trace(), app.told()))
        .collect()
}

impl Dialog<App, Msg> for Questions {
    fn title(&self) -> &str {
        "Questions"
    }

    fn rows(&self, app: &App) -> Vec<String> {
        let quizzes = &app.version.scenario().quizzes;
        if quizzes.is_empty() {
            return vec!["This story asks the room no questions.".to_string()];
        }
        let design = app.place.design;
        quizzes
            .iter()
            .zip(ticks(app))
            .enumerate()
            .map(|(i, (q, tick))| {
                let revealed = app
                    .talk
                    .room
                    .get(i, design)
                    .is_some_and(Response::is_revealed);
                let mark = if revealed { "✓" } else { " " };
                let question = crate::text::sanitize_line(&q.question);
                match tick {
                    Some(t) => format!("{mark} tick {:>3}  {question}", t + 1),
                    None => format!("  not asked under this design  {question}"),
                }
            })
            .collect()
    }

    fn selected(&self) -> usize {
        self.selected
    }

    fn footer(&self) -> &str {
        "↑↓ choose · Enter goes to its tick · Esc closes"
    }

    fn act(&mut self, key: DialogKey, app: &App) -> Done<Msg> {
        let ticks = ticks(app);
        match key {
            DialogKey::Up => self.selected = self.selected.saturating_sub(1),
            DialogKey::Down => {
                self.selected = (self.selected + 1).min(ticks.len().saturating_sub(1))
            }
            DialogKey::Choose => {
                return match ticks.get(self.selected).copied().flatten() {
                    Some(tick) => Done::Then(Msg::GoToTick(tick)),
                    None if ticks.is_empty() => Done::Close,
                    None => Done::Stay,
                };
            }
        }
        Done::Stay
    }

    fn boxed(&self) -> Box<ReplayDialog> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use crate::replay::app::{App, Overlay};
    use crate::replay::key::{KeyCode, KeyEvent, KeyModifiers};
    use crate::replay::keymap::map_key;
    use crate::replay::msg::Msg;
    use crate::replay::update::settle;

    fn press(app: &mut App, code: KeyCode) {
        let key = KeyEvent::new(code, KeyModifiers::NONE);
        if let Some(msg) = map_key(key, app) {
            settle(app, msg);
        }
    }

    fn app() -> App {
        let scenario = crate::scenario::library::default_scenario().expect("the default story");
        App::new(scenario, "order-5531".into()).expect("it simulates")
    }

    /// `Q` lists the story's questions, one row each; Enter goes to the chosen one's tick and
    /// closes the list; Esc closes it where it stands.
    #[test]
    fn q_lists_the_questions_and_enter_goes_to_one() {
        let mut app = app();
        let quizzes = app.version.scenario().quizzes.len();
        assert!(quizzes > 0, "the default story asks the room");
        press(&mut app, KeyCode::Char('Q'));
        let Overlay::Dialog(open) = &app.screens.overlay else {
            panic!("Q opens the list: {:?}", app.screens.overlay);
        };
        assert_eq!(open.0.rows(&app).len(), quizzes);
        assert_eq!(open.0.selected(), 0);
        let first = app.version.scenario().quizzes[0]
            .tick(app.trace(), app.told())
            .expect("asked under the design on screen");
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screens.overlay, Overlay::None);
        assert_eq!(app.place.tick, first);
        press(&mut app, KeyCode::Char('Q'));
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.screens.overlay, Overlay::None);
        assert_eq!(app.place.tick, first, "Esc moves nothing");
    }

    /// The list's keys stay inside it: j and k choose, other keys do nothing behind it.
    #[test]
    fn the_list_keeps_its_keys() {
        let mut app = app();
        press(&mut app, KeyCode::Char('Q'));
        press(&mut app, KeyCode::Char('k'));
        press(&mut app, KeyCode::Char('l'));
        assert_eq!(app.place.tick, 0, "l does not step behind the list");
        assert!(matches!(
            map_key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE), &app),
            Some(Msg::InDialog(_))
        ));
    }
}
