//! The terminal UI: the replay's loop, runtime, backend and drawing (`tui`), and the handouts
//! drawn with the replay's own frames (`export`). The replay's model (its state, update and
//! key table), the room and the Markdown handout live in `idem-replay`, which has no terminal;
//! they are re-exported here under the paths they have always had. The only crate of the
//! workspace that links a terminal library, and it links no network or database one.

pub use idem_core::{bounded_read, explore, files, scenario, sim, story, text, traffic, units};
pub use idem_replay::{present, replay};
pub use idem_window::window;
pub mod export;
pub mod tui;
