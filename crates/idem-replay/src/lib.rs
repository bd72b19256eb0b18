//! The replay as a model, with no terminal: the replay's state and the messages that change
//! it (`replay`: the app, its update, the key table, the room, the window screen's state),
//! teaching a room (`present`: session files, the link to the speaker notes, what is hidden)
//! and the Markdown handout (`export::markdown`). It links no terminal library, so nothing
//! here can draw: the compiler holds that the update never does. `idem-tui` draws it.

pub use idem_core::{bounded_read, explore, files, scenario, sim, story, text, traffic, units};
pub use idem_window::window;
pub mod export;
pub mod present;
pub mod replay;
