//! The interactive replay on a real terminal: the loop and the runtime that run what the
//! update asks for, the backend, and the views that draw the state. The state, the messages
//! and the update function are the model crate's (`idem-replay`), re-exported here under the
//! paths they have always had; nothing there can draw.

pub use crate::replay::{
    app, arrive, checklist, effect, key, msg, picker, prepare, repeats, results, room, shown,
    spare, update, version,
};
pub mod backend;
pub mod cells;
pub mod first;
pub mod keymap;
pub mod kit;
pub mod notes;
pub mod program;
pub mod session;
pub mod terminal;
pub mod theme;
pub mod traffic;
pub mod view;
pub mod window;

pub use crate::replay::{App, Effect, Msg, settle};
