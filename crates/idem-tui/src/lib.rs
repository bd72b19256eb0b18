//! The terminal UI: the replay and presenter mode (`tui`), teaching a room (`present`: session
//! files, the link to the speaker notes, what is hidden), and the handouts drawn with the
//! replay's own frames (`export`). The only crate of the workspace that links a terminal
//! library, and it links no network or database one.

pub use idem_core::{bounded_read, explore, files, scenario, sim, story, text, traffic, units};
pub use idem_window::window;
pub mod export;
pub mod present;
pub mod tui;
