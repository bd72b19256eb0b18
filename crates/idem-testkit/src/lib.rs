//! The checkers idem's tests share, as a crate that only tests name (a dev-dependency of the
//! core, of the command line's tests and of `tests/memory.rs`): the processor's memory at the
//! end of a run (`end_state`), scenarios written inline (`inline`), and the claims and the
//! truth of a run's words (`claims`, `truth`), each held to the trace by code that shares none
//! with the engine. It uses the engine and its words alone, so the core's own tests can use
//! it too.

// The checkers name the engine and its words as every test does: `idem::sim`, `idem::story`.
extern crate idem_story as idem;

pub mod checkers;
pub mod pty;
pub use checkers::{claims, end_state, inline, truth};
