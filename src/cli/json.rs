//! The JSON form of a run, as `idem run --json` prints it.

use crate::scenario::Scenario;
use crate::sim::state::Counters;
use crate::sim::trace::{IntentOutcome, Trace, Verdict};
use crate::sim::{Actor, Cents, TickKind};
use crate::story::Told;
use serde::Serialize;

#[derive(Serialize)]
pub struct RunJson<'a> {
    pub scenario: &'a str,
    pub title: &'a str,
    pub design: &'static str,
    pub design_name: &'static str,
    pub charges: usize,
    pub charged_cents: Cents,
    pub verdict: Verdict,
    pub intents: &'a [IntentOutcome],
    pub counters: Counters,
    pub warnings: &'a [String],
    pub ticks: Vec<TickJson<'a>>,
}

#[derive(Serialize)]
pub struct TickJson<'a> {
    pub at: String,
    pub at_ms: u64,
    pub actor: Actor,
    pub kind: TickKind,
    pub label: &'a str,
    pub narration: &'a str,
}

impl<'a> RunJson<'a> {
    pub fn new(scenario: &'a Scenario, trace: &'a Trace, told: &'a Told) -> RunJson<'a> {
        RunJson {
            scenario: &scenario.name,
            title: &scenario.title,
            design: trace.design.id(),
            design_name: trace.design.name(),
            charges: trace.outcome.charges,
            charged_cents: trace.outcome.charged_cents,
            verdict: trace.outcome.verdict,
            intents: &trace.outcome.intents,
            counters: trace.outcome.counters,
            warnings: &trace.warnings,
            ticks: trace
                .ticks
                .iter()
                .zip(told.labels.iter().zip(&told.narrations))
                .map(|(t, (label, narration))| TickJson {
                    at: trace.format_time(t.at),
                    at_ms: t.at.0,
                    actor: t.actor,
                    kind: t.kind,
                    label,
                    narration,
                })
                .collect(),
        }
    }
}
