//! idem: a deterministic simulation of retries, idempotency keys and the charges they cause.
//!
//! The command line (`cli`) on top of the workspace's crates, whose modules are re-exported
//! here so every path reads `idem::…`: `idem-sim` (the engine), `idem-story` (its words),
//! `idem-core` (the scenario files, the explorer and a day of traffic), `idem-window` (the
//! window calculator), `idem-net` (`serve` and `drill`) and `idem-tui` (the replay, the room
//! and the handouts). And the fuzz targets' bodies (`fuzzing`), so they build with the rest.

pub use idem_core::{bounded_read, explore, files, scenario, sim, story, text, traffic, units};
pub use idem_import::import;
pub use idem_net::{drill, serve};
pub use idem_tui::{export, present, tui};
pub use idem_window::window;
pub mod cli;
pub mod fuzzing;
