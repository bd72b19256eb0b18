//! The replay's model: the application state, the messages that change it, the update
//! function, the key table and what the loop is asked to do. Nothing here draws or knows a
//! terminal; the loop, the runtime and the views live in `idem-tui`.

pub mod app;
pub mod arrive;
pub mod checklist;
pub mod dialog;
pub mod dialogs;
pub mod effect;
pub mod key;
pub mod keymap;
pub mod msg;
pub mod picker;
pub mod prepare;
pub mod repeats;
pub mod results;
pub mod room;
pub mod shown;
pub mod spare;
pub mod update;
pub mod version;
pub mod window;

pub use app::App;
pub use effect::Effect;
pub use msg::Msg;
pub use update::{settle, update};
