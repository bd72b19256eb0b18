//! The checkers the engine's tests share with the root crate's integration tests, from the
//! test kit (`crates/idem-testkit`): the processor's memory at the end of a run, scenarios
//! written inline, and the claims and the truth of a run's words, each held to the trace by
//! code that shares none with the engine.

pub use idem_testkit::{claims, end_state, inline, truth};
