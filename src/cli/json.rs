//! The JSON form of a run, as `idem run --json` prints it.

use crate::scenario::Scenario;
use crate::sim::state::Counters;
use crate::sim::trace::{IntentOutcome, ReconcileOutcome, Trace, Verdict};
use crate::sim::{Actor, Cents, TickKind};
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
    /// What the `[reconcile]` job did, when the scenario runs one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconcile: Option<ReconcileJson>,
    pub warnings: &'a [String],
    pub ticks: TicksJson<'a>,
}

/// Every tick with its words, written as each is told: the story's words are never held
/// whole, only the tick being written.
pub struct TicksJson<'a> {
    scenario: &'a Scenario,
    trace: &'a Trace,
}

impl Serialize for TicksJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let trace = self.trace;
        let mut seq = s.serialize_seq(Some(trace.ticks.len()))?;
        let mut failed = None;
        let changed = self.scenario.keys_changed();
        self.scenario.tell_each(trace, |i, label, narration, own| {
            if failed.is_some() {
                return;
            }
            let Some(t) = trace.ticks.get(i) else {
                return;
            };
            let tick = TickJson {
                at: trace.format_time(t.at),
                at_ms: t.at.0,
                actor: t.actor,
                kind: t.kind,
                label,
                narration: match crate::story::written::trainer_written_for_the_file(own, &changed)
                {
                    Some(caveat) => format!("{narration} {caveat}").into(),
                    None => narration.into(),
                },
            };
            if let Err(e) = seq.serialize_element(&tick) {
                failed = Some(e);
            }
        });
        match failed {
            Some(e) => Err(e),
            None => seq.end(),
        }
    }
}

/// The reconciliation's totals, with its time written as the replay writes it and its
/// summary in words.
#[derive(Serialize)]
pub struct ReconcileJson {
    pub at: String,
    pub at_ms: u64,
    pub refunds: usize,
    pub refunded_cents: Cents,
    pub net_cents: Cents,
    pub marked_paid: usize,
    pub alerts: usize,
    /// The longest a refunded charge stood on the statement before its refund.
    pub unowed_ms: Option<u64>,
    pub summary: String,
}

impl ReconcileJson {
    fn new(trace: &Trace, r: &ReconcileOutcome) -> ReconcileJson {
        ReconcileJson {
            at: trace.format_time(r.at),
            at_ms: r.at.0,
            refunds: r.refunds,
            refunded_cents: r.refunded_cents,
            net_cents: r.net_cents,
            marked_paid: r.marked_paid,
            alerts: r.alerts,
            unowed_ms: r.unowed_ms,
            summary: crate::story::outcome::reconcile_line(r),
        }
    }
}

#[derive(Serialize)]
pub struct TickJson<'a> {
    pub at: String,
    pub at_ms: u64,
    pub actor: Actor,
    pub kind: TickKind,
    pub label: &'a str,
    pub narration: std::borrow::Cow<'a, str>,
}

impl<'a> RunJson<'a> {
    pub fn new(scenario: &'a Scenario, trace: &'a Trace) -> RunJson<'a> {
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
            reconcile: trace
                .outcome
                .reconcile
                .as_ref()
                .map(|r| ReconcileJson::new(trace, r)),
            warnings: &trace.warnings,
            ticks: TicksJson { scenario, trace },
        }
    }
}
