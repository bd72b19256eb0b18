//! The interactive replay: application state, messages, the update function, the key map and
//! the views, and the loop that ties them to a real terminal.

pub mod app;
pub mod arrive;
pub mod backend;
pub mod cells;
pub mod checklist;
pub mod effect;
pub mod first;
pub mod keymap;
pub mod msg;
pub mod notes;
pub mod picker;
pub mod prepare;
pub mod program;
pub mod repeats;
pub mod results;
pub mod room;
pub mod session;
pub mod shown;
pub mod spare;
pub mod terminal;
pub mod theme;
pub mod traffic;
pub mod update;
pub mod version;
pub mod view;
pub mod window;

pub use app::App;
pub use effect::Effect;
pub use msg::Msg;
pub use update::{settle, update};
