//! The window screen's model: the retry-window calculator's state ([`WindowScreen`]) and
//! what a key asks of it ([`message`], [`WindowScreen::update`]). Drawing it, and running it
//! on its own terminal, belong to `idem-tui`.

pub mod keys;
pub mod state;

pub use keys::{KEYS, WindowAction, WindowMsg, message};
pub use state::{
    BACKOFF_LADDER_MS, DELAY_LADDER_MS, Direction, MAX_ATTEMPTS, MAX_LAYERS, MAX_PATHS,
    MIN_ATTEMPTS, Row, SAFETY_LADDER, TIMEOUT_LADDER_MS, WINDOW_LADDER_MS, WindowScreen,
};
