//! The scenario file as written: the serde schema. Unknown keys are rejected, and values that
//! later checks need to point at keep their position (`Spanned`).

use super::values::{
    AttemptNo, Attempts, Charges, ClockTime, CrashAt, DesignId, Dur, Factor, FailAt, JitterKind,
    KeyChoice, KeyModeId, LayerKeyChoice, Money, Policy, Seed, ServiceId, Way,
};
use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    pub title: String,
    #[serde(default)]
    pub description: String,
    /// Seeds the jitter; the same seed gives the same trace.
    pub seed: Option<Seed>,
    /// The design the replay opens with.
    pub design: Option<DesignId>,
    /// The name on the card statement.
    pub merchant: Option<String>,
    #[serde(default)]
    pub checkout: Checkout,
    #[serde(default)]
    pub network: Network,
    #[serde(default)]
    pub processor: Processor,
    /// The names written over the lanes, where the story's systems have names of their own.
    #[serde(default)]
    pub lanes: Lanes,
    #[serde(default)]
    pub intent: Vec<Spanned<Intent>>,
    #[serde(default)]
    pub fault: Vec<Spanned<Fault>>,
    #[serde(default)]
    pub human: Vec<Spanned<Human>>,
    /// The shop's reconciliation job.
    pub reconcile: Option<Spanned<Reconcile>>,
    /// The shop's own steps once an order is paid, in the order it runs them.
    #[serde(default)]
    pub step: Vec<Spanned<Step>>,
    #[serde(default)]
    pub narration: Vec<Spanned<Narration>>,
    #[serde(default)]
    pub expect: Vec<Spanned<Expect>>,
    #[serde(default)]
    pub quiz: Vec<Spanned<Quiz>>,
    #[serde(default)]
    pub note: Vec<Spanned<Note>>,
    /// The day of orders `idem traffic` runs this checkout through; read by
    /// `scenario::traffic`, which knows its keys.
    pub traffic: Option<Spanned<toml::Table>>,
}

/// A prediction checkpoint: the replay stops at its tick and asks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quiz {
    pub label: Option<Spanned<String>>,
    pub at: Option<Spanned<ClockTime>>,
    pub question: String,
    pub choices: Spanned<Vec<String>>,
    /// A choice number (1–4), or `"charges"`: the choice numbered one more than the charges
    /// the run ends with (so the answer follows the design in force).
    pub answer: Spanned<toml::Value>,
    /// One text for every design, or a table of texts keyed by design id (and `other`).
    pub explanation: Option<Spanned<toml::Value>>,
    /// Ask under these designs only.
    pub designs: Option<Spanned<Vec<Spanned<String>>>>,
}

/// The trainer's private notes for a tick, shown in the speaker-notes terminal.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    pub label: Option<Spanned<String>>,
    pub at: Option<Spanned<ClockTime>>,
    pub text: String,
    /// Show under these designs only.
    pub designs: Option<Spanned<Vec<Spanned<String>>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkout {
    pub key_strategy: Option<KeyChoice>,
    /// The body carries the time it was sent.
    #[serde(default)]
    pub stamp_body: bool,
    /// Before each retry, ask the processor about the key (docs/model.md §5.4).
    #[serde(default)]
    pub lookup: bool,
    /// Retrying layers, innermost first.
    #[serde(default = "no_layers")]
    pub layer: Spanned<Vec<Spanned<Layer>>>,
}

impl Default for Checkout {
    fn default() -> Self {
        Checkout {
            key_strategy: None,
            stamp_body: false,
            lookup: false,
            layer: no_layers(),
        }
    }
}

fn no_layers() -> Spanned<Vec<Spanned<Layer>>> {
    Spanned::new(0..0, Vec::new())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    pub name: Option<String>,
    pub attempts: Spanned<Attempts>,
    pub timeout: Option<Spanned<Dur>>,
    pub backoff: Option<Dur>,
    pub multiplier: Option<Spanned<Factor>>,
    pub cap: Option<Dur>,
    pub jitter: Option<JitterKind>,
    /// What the layer does with the key handed to it: forward, per-attempt or none.
    pub key: Option<LayerKeyChoice>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lanes {
    pub customer: Option<Spanned<String>>,
    pub checkout: Option<Spanned<String>>,
    pub network: Option<Spanned<String>>,
    pub processor: Option<Spanned<String>>,
    /// Draw each of the checkout's layers as a lane of its own, named after the layer.
    #[serde(default)]
    pub layers: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Network {
    pub latency: Option<Dur>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Processor {
    pub processing: Option<Spanned<Dur>>,
    pub retention: Option<Spanned<Dur>>,
    /// `inprogress-record`: how long an in-progress record blocks its key.
    pub in_progress_expiry: Option<Spanned<Dur>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Intent {
    pub order: String,
    pub key: Option<String>,
    pub amount: Money,
    #[serde(default)]
    pub items: Vec<String>,
    pub at: Spanned<ClockTime>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// Which intent, by order id; the first intent when absent.
    pub intent: Option<Spanned<String>>,
    /// Counted from 1 across every layer and every human rerun.
    #[serde(default = "one")]
    pub attempt: Spanned<AttemptNo>,
    pub lose: Option<Way>,
    pub delay: Option<Way>,
    pub by: Option<Dur>,
    pub duplicate: Option<Way>,
    pub gap: Option<Dur>,
    pub crash_after: Option<CrashAt>,
    pub restart_after: Option<Dur>,
    pub processing: Option<Dur>,
    #[serde(default)]
    pub decline: bool,
    /// The handler fails at this point and the processor answers 500.
    pub fail_after: Option<FailAt>,
}

fn one() -> Spanned<AttemptNo> {
    Spanned::new(0..0, AttemptNo(1))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Human {
    pub name: String,
    pub after: Spanned<Dur>,
    pub intent: Option<Spanned<String>>,
}

/// A downstream step: a service the shop calls once the order is paid.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub service: Spanned<ServiceId>,
    /// `derived` (the default), `per-attempt` or `none`.
    pub key: Option<KeyModeId>,
    pub attempts: Option<Spanned<Attempts>>,
    pub timeout: Option<Spanned<Dur>>,
    pub backoff: Option<Dur>,
    pub processing: Option<Dur>,
    #[serde(default)]
    pub fault: Vec<Spanned<StepFault>>,
}

/// Something that goes wrong on one try of a downstream call.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepFault {
    pub intent: Option<Spanned<String>>,
    #[serde(default = "one")]
    pub attempt: Spanned<AttemptNo>,
    pub lose: Option<Way>,
    pub delay: Option<Way>,
    pub by: Option<Dur>,
    pub processing: Option<Dur>,
}

/// The shop's reconciliation job: when it runs and what it does with a charge the shop does
/// not believe paid.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reconcile {
    /// The next such time after the story starts.
    pub at: Spanned<ClockTime>,
    /// `refund` (the default) or `mark-paid`.
    pub unconfirmed: Option<Policy>,
}

/// A trainer's own words for a tick, chosen by label or by time.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Narration {
    pub label: Option<Spanned<String>>,
    pub at: Option<Spanned<ClockTime>>,
    pub text: Spanned<String>,
    /// `replace` the engine's sentence (the default) or `append` to it.
    pub mode: Option<Spanned<String>>,
    /// Tell under these designs only.
    pub designs: Option<Spanned<Vec<Spanned<String>>>>,
}

/// What a design must produce on this scenario.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub design: DesignId,
    pub charges: Option<Spanned<Charges>>,
    pub verdict: Option<Spanned<String>>,
    pub client: Option<Spanned<String>>,
    /// Refunds the `[reconcile]` job makes.
    pub refunds: Option<Spanned<Charges>>,
    /// The run under the checkout keyed this way (what `K` shows), not as the file keys it.
    pub key_strategy: Option<Spanned<super::values::KeyChoice>>,
    /// The run under the steps keyed this way (what `m` shows).
    pub step_keys: Option<Spanned<super::values::KeyModeId>>,
}
