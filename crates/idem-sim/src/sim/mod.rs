//! The simulation engine: a deterministic discrete-event model of a checkout, a network and a
//! card processor. Scenario in, trace out; it knows nothing about terminals.

mod client;
pub mod config;
pub mod design;
pub mod digest;
mod downstream;
mod engine;
pub mod fact;
mod lookup;
pub mod money;
mod network;
mod per_design;
mod processor;
mod reconcile;
pub mod state;
pub mod time;
pub mod trace;
mod world;

pub use config::SimConfig;
pub use design::Design;
pub use engine::{SimError, describe_layers, runs_on_this_thread, simulate};
pub use fact::Fact;
pub use money::Cents;
pub use per_design::PerDesign;
pub use state::{Belief, Snapshot};
pub use time::{ClockStyle, Instant};
pub use trace::{Actor, Outcome, Tick, TickKind, Trace, Verdict};
