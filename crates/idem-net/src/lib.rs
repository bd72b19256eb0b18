//! The network tools: `serve`, a small HTTP card processor running the designs for real on
//! SQLite, and `drill`, a bounded battery of requests against someone's endpoint, read against
//! the model. The only crate of the workspace that links a network or database library; the
//! engine and the replay never wait on a socket.

pub use idem_core::{bounded_read, explore, files, scenario, sim, story, text, traffic, units};
pub use idem_window::window;
pub mod drill;
pub mod serve;
