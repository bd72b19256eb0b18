//! The window screen: the retry-window calculator made interactive. The user
//! edits a stack of retrying layers and human paths and sees at once how many
//! attempts one intent can cause, how long the last duplicate can take to
//! arrive and whether the idempotency keys are kept long enough; Enter turns
//! the stack into a scenario the replay can play.
//!
//! The replay opens it with `w`; `idem window --tui` runs it on its own with
//! [`run_standalone`]. State and keys ([`WindowScreen::handle_key`]) are the
//! model crate's and need no terminal; [`render`] draws onto any area.

mod matrix;
mod parts;
mod tables;
mod view;

pub use crate::replay::window::{
    BACKOFF_LADDER_MS, DELAY_LADDER_MS, Direction, KEYS, MAX_ATTEMPTS, MAX_LAYERS, MAX_PATHS,
    MIN_ATTEMPTS, Row, SAFETY_LADDER, TIMEOUT_LADDER_MS, WINDOW_LADDER_MS, WindowAction, WindowMsg,
    WindowScreen, keys, message, state,
};
pub use view::{MIN_HEIGHT, MIN_WIDTH, render};

use std::io;

use ratatui::Frame;
use ratatui::crossterm::event::Event;

use super::program::{self, Program, Quiet};
use super::session::Session;
use super::theme::Theme;
use crate::scenario::Scenario;
use crate::window::Stack;

/// The window screen as a program of its own, for `idem window --tui`.
pub struct Standalone {
    pub screen: WindowScreen,
    /// Once the screen is closed: `Some(None)` for Esc, `Some(Some(scenario))` for Enter.
    pub outcome: Option<Option<Scenario>>,
}

impl Program for Standalone {
    type Msg = WindowMsg;
    type Effect = std::convert::Infallible;
    type Hits = ();

    fn message(&self, event: &Event) -> Option<WindowMsg> {
        match event {
            Event::Key(key) => message(super::keymap::key(*key)),
            _ => None,
        }
    }

    fn update(&mut self, msg: WindowMsg) -> Vec<Self::Effect> {
        match self.screen.update(msg) {
            WindowAction::None => {}
            WindowAction::Close => self.outcome = Some(None),
            WindowAction::OpenScenario(scenario) => self.outcome = Some(Some(scenario)),
        }
        Vec::new()
    }

    fn view(&self, frame: &mut Frame, theme: &Theme) {
        render(frame, frame.area(), &self.screen, theme);
    }

    fn done(&self) -> bool {
        self.outcome.is_some()
    }
}

/// Runs the window screen on its own terminal until the user closes it
/// (`Ok(None)`) or presses Enter (`Ok(Some(scenario))`, for the caller to
/// open in the replay once this terminal is restored).
pub fn run_standalone(mut stack: Stack) -> io::Result<Option<Scenario>> {
    // Names typed in flags or a config file are drawn: no control or bidi characters.
    for layer in &mut stack.layers {
        layer.name = crate::text::sanitize_line(&layer.name);
    }
    for path in &mut stack.paths {
        path.name = crate::text::sanitize_line(&path.name);
    }
    let theme = Theme::from_env();
    let mut session = Session::start()?;
    let mut program = Standalone {
        screen: WindowScreen::new(stack),
        outcome: None,
    };
    program::run(&mut session, &mut program, &mut Quiet, &theme)?;
    Ok(program.outcome.flatten())
}
