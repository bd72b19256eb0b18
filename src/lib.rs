//! idem: a deterministic simulation of retries, idempotency keys and the charges they cause.

pub mod bounded_read;
pub mod cli;
pub mod drill;
pub mod explore;
pub mod export;
pub mod files;
pub mod present;
pub mod scenario;
pub mod serve;
pub mod sim;
pub mod story;
pub mod text;
pub mod traffic;
pub mod tui;
pub mod units;
pub mod window;
