//! idem: a deterministic simulation of retries, idempotency keys and the charges they cause.

pub use idem_core::bounded_read;
pub mod cli;
pub mod drill;
pub mod explore;
pub mod export;
pub use idem_core::files;
pub mod present;
pub use idem_core::scenario;
pub mod serve;
pub use idem_core::sim;
pub use idem_core::story;
pub use idem_core::text;
pub mod traffic;
pub mod tui;
pub use idem_core::units;
pub mod window;
