//! `idem drill`: a bounded, opt-in battery of requests against one endpoint, read against
//! the IETF draft *The Idempotency-Key HTTP Header Field*.
//!
//! - [`target`]: loopback only, unless the user allows otherwise;
//! - [`battery`]: the plan, fixed and told before anything is sent, and the sending;
//! - [`client`]: one bounded request;
//! - [`judge`]: a row per requirement, and the design the endpoint behaves like;
//! - [`report`]: the table, the JSON and the conformance summary;
//! - [`reproduce`]: the design named, held to make the charges the endpoint made;
//! - [`scenario_out`]: a scenario that replays what was seen.
//!
//! Neither the engine nor the replay knows this module.

pub mod battery;
pub mod client;
pub mod judge;
pub mod report;
pub mod reproduce;
pub mod scenario_out;
pub mod target;

pub use battery::{Expiry, Plan};

use crate::sim::Design;

/// What a drill found.
pub struct Drilled {
    pub observed: battery::Observed,
    pub rows: Vec<judge::Row>,
    pub nearest: Option<(Design, String)>,
    /// Why no design is named although the answers pointed to one: none of the simulation's
    /// designs makes the charges the endpoint made.
    pub none_fits: Option<String>,
}

impl Drilled {
    pub fn conforms(&self) -> bool {
        report::conforms(&self.rows)
    }
}

/// Sends the plan's requests and judges the answers.
pub fn run(plan: &Plan) -> Drilled {
    let observed = battery::run(plan);
    let rows = judge::rows(plan, &observed);
    // Answers to keys the endpoint did not take say nothing about how it keeps them.
    let choice = match judge::keys_not_taken(plan, &observed) {
        Some(_) => reproduce::Choice::Unknown,
        None => reproduce::choose(plan, &observed),
    };
    let (nearest, none_fits) = match choice {
        reproduce::Choice::Named(d, why) => (Some((d, why)), None),
        reproduce::Choice::NoneFits(why) => (None, Some(why)),
        reproduce::Choice::Unknown => (None, None),
    };
    Drilled {
        observed,
        rows,
        nearest,
        none_fits,
    }
}
