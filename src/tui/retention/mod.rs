//! The window screen: the retry-window calculator made interactive. The user
//! edits a stack of retrying layers and human paths and sees at once how many
//! attempts one intent can cause, how long the last duplicate can take to
//! arrive and whether the idempotency keys are kept long enough; Enter turns
//! the stack into a scenario the replay can play.
//!
//! The replay opens it with `w`; `idem window --tui` runs it on its own with
//! [`run_standalone`]. State and keys ([`RetentionScreen::handle_key`]) need no
//! terminal; [`render`] draws onto any area.

mod keys;
mod matrix;
mod state;
mod tables;
mod view;

pub use keys::{KEYS, RetentionAction};
pub use state::{
    BACKOFF_LADDER_MS, DELAY_LADDER_MS, Direction, MAX_ATTEMPTS, MAX_LAYERS, MAX_PATHS,
    MIN_ATTEMPTS, RetentionScreen, Row, SAFETY_LADDER, TIMEOUT_LADDER_MS, WINDOW_LADDER_MS,
};
pub use view::{MIN_HEIGHT, MIN_WIDTH, render};

use std::io;

use ratatui::crossterm::event::{Event, KeyEventKind};

use super::session::{Session, Wake};
use super::theme::Theme;
use crate::retention::Stack;
use crate::scenario::Scenario;

/// How long the screen sleeps when nothing happens: it has no clock of its own.
const IDLE: std::time::Duration = std::time::Duration::from_secs(3600);

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
    let mut screen = RetentionScreen::new(stack);
    let mut dirty = true;
    loop {
        if dirty {
            session.draw(|frame| render(frame, frame.area(), &screen, &theme))?;
            dirty = false;
        }
        match session.wait(IDLE)? {
            Wake::Event(Event::Key(key)) if key.kind != KeyEventKind::Release => {
                dirty = true;
                match screen.handle_key(key) {
                    RetentionAction::None => {}
                    RetentionAction::Close => return Ok(None),
                    RetentionAction::OpenScenario(scenario) => return Ok(Some(scenario)),
                }
            }
            Wake::Event(Event::Resize(_, _)) | Wake::Redraw => dirty = true,
            Wake::End => return Ok(None),
            Wake::Event(_) | Wake::Timeout => {}
        }
    }
}
