//! The checkers the engine's tests share, and the root crate's integration tests too: the
//! processor's memory at the end of a run, scenarios written inline, and the claims and the
//! truth of a run's words, each held to the trace by code that shares none with the engine.

#![allow(dead_code)]

pub mod claims;
pub mod end_state;
pub mod inline;
pub mod truth;
