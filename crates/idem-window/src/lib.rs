//! The window calculator: how many attempts and how long a stack of retrying layers can take,
//! and how long idempotency keys must be kept to cover every path a duplicate can take; with
//! readers of real retry configurations. Built on `idem-core` alone; no terminal, network or
//! database. The core's modules are re-exported, so `crate::scenario` and the rest name the
//! same thing here as in every crate of the workspace.

pub use idem_core::{bounded_read, explore, files, scenario, sim, story, text, traffic, units};
pub mod window;
