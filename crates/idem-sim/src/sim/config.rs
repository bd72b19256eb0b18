//! The engine's input: a fully resolved scenario, with every default applied.

use super::money::Cents;
use super::time::{ClockStyle, Instant};
use serde::{Deserialize, Serialize};

/// Everything the engine needs to simulate one scenario under any design.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SimConfig {
    pub title: String,
    pub seed: u64,
    /// The merchant name printed on the card statement.
    pub merchant: String,
    pub intents: Vec<IntentConfig>,
    /// The checkout's retrying layers, innermost (the one that sends requests) first.
    pub layers: Vec<LayerConfig>,
    pub key_strategy: KeyStrategy,
    /// How long the innermost layer waits for each answer before the attempt counts as failed.
    pub timeout_ms: u64,
    /// The request body carries the time it was sent, so no two attempts have the same body.
    pub stamp_body: bool,
    /// One-way network latency in milliseconds.
    pub latency_ms: u64,
    /// Before each retry, the checkout asks the processor about the key (docs/model.md §5.4).
    pub lookup: bool,
    /// Time the processor takes to charge a card, in milliseconds.
    pub processing_ms: u64,
    /// How long the processor remembers a key (or a body hash), in milliseconds.
    pub retention_ms: u64,
    /// `inprogress-record`: how long an in-progress record blocks its key, in milliseconds.
    pub in_progress_expiry_ms: u64,
    pub faults: Vec<Fault>,
    /// Human paths: each re-runs the whole retry budget when the previous run ended unpaid.
    pub reruns: Vec<Rerun>,
    pub clock: ClockStyle,
    /// The shop's reconciliation job, if the scenario runs one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconcile: Option<Reconcile>,
    /// The shop's own steps after it reads "paid", in the order it runs them (docs/model.md §5.1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepConfig>,
    /// The engine stops with an error rather than trace more ticks than this.
    pub max_ticks: usize,
}

/// One business intent: a purchase the customer means to pay for once.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IntentConfig {
    /// The order id (`5531`): short text every run's views copy without allocating.
    pub order: smol_str::SmolStr,
    /// The idempotency key minted when the order is created, held the same way.
    pub key: smol_str::SmolStr,
    pub amount: Cents,
    pub items: Vec<String>,
    /// When the customer presses Pay and the first request goes out.
    pub at: Instant,
    /// What the processor compares of this purchase, worked out from the fields above and
    /// the merchant by [`SimConfig::digest_intents`] when the scenario is read, rather than
    /// at every run.
    #[serde(skip)]
    pub digests: IntentDigests,
}

/// The digests of one intent's requests that are the same for every attempt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntentDigests {
    /// What is charged (order, amount, items): the `with-charge` fingerprint.
    pub fingerprint: u64,
    /// The body (merchant, amount, items) before any send time: what `content-hash`
    /// compares.
    pub content: u64,
}

/// One retrying layer of the checkout.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LayerConfig {
    pub name: String,
    pub attempts: u32,
    /// An outer layer's deadline on one whole attempt of the layers beneath it, if it has
    /// one. Always `None` for the innermost layer, whose wait is `SimConfig::timeout_ms`.
    pub deadline_ms: Option<u64>,
    pub backoff: Backoff,
    /// What this layer does with the idempotency key it is handed.
    pub key: LayerKey,
}

/// What one retrying layer does with the key handed to it by the layer above (the outermost
/// layer is handed the order's key, if the shop mints one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LayerKey {
    /// Passes the key on unchanged, to every attempt it makes.
    Forward,
    /// Gives each of its attempts a fresh key (the order's key on the very first request).
    PerAttempt,
    /// Drops the key: its requests carry none.
    None,
}

/// Where the key that reaches the processor comes from: the innermost layer that does not
/// just pass it on, or else the order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeySource {
    /// Every layer forwards the order's key (or the lack of one).
    Order,
    /// This layer mints a key per attempt, and the layers beneath it forward it.
    Minted { layer: usize },
    /// This layer drops the key, and the layers beneath it forward nothing.
    Dropped { layer: usize },
}

/// The wait between two attempts of a layer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Backoff {
    pub initial_ms: u64,
    pub multiplier: f64,
    pub cap_ms: Option<u64>,
    pub jitter: Jitter,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Jitter {
    None,
    Full,
    Equal,
    Decorrelated,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyStrategy {
    /// One key minted with the order and carried by every attempt.
    PerIntent,
    /// A fresh key for every attempt: the classic bug.
    PerAttempt,
    /// No key at all.
    None,
}

/// A fault injected on one attempt of one intent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// Index into `SimConfig::intents`.
    pub intent: usize,
    /// The attempt number, counted from 1 across every layer and every human rerun.
    pub attempt: u32,
    pub action: FaultAction,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Request,
    Reply,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CrashPoint {
    Receive,
    Key,
    Charge,
    Reply,
}

impl CrashPoint {
    pub const ALL: [CrashPoint; 4] = [
        CrashPoint::Receive,
        CrashPoint::Key,
        CrashPoint::Charge,
        CrashPoint::Reply,
    ];
    pub fn id(self) -> &'static str {
        match self {
            CrashPoint::Receive => "receive",
            CrashPoint::Key => "key",
            CrashPoint::Charge => "charge",
            CrashPoint::Reply => "reply",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum FaultAction {
    /// The message never arrives.
    Lose { direction: Direction },
    /// The message arrives this much later than usual.
    Delay { direction: Direction, by_ms: u64 },
    /// A second copy of the message arrives this much after the first.
    Duplicate { direction: Direction, gap_ms: u64 },
    /// The processor crashes the instant the named step becomes durable.
    Crash {
        after: CrashPoint,
        restart_after_ms: u64,
    },
    /// The processor takes this long over the attempt.
    Slow { processing_ms: u64 },
    /// The card is declined: an error response, no charge.
    Decline,
    /// The handler raises an error at the named point and the processor answers 500.
    Fail { after: FailPoint },
}

/// Where a handler error strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailPoint {
    /// Once the request is taken on as new work, before anything is charged.
    Receive,
    /// Right after the charge (and under `with-charge`, after its one write).
    Charge,
}

impl FailPoint {
    pub const ALL: [FailPoint; 2] = [FailPoint::Receive, FailPoint::Charge];
    pub fn id(self) -> &'static str {
        match self {
            FailPoint::Receive => "receive",
            FailPoint::Charge => "charge",
        }
    }
}

/// The shop's nightly job that compares the processor's ledger with its own orders and
/// puts right what it can.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reconcile {
    /// When the job runs.
    pub at: Instant,
    /// What it does with a charge for an order the shop does not believe paid.
    pub unconfirmed: Unconfirmed,
}

/// The policy for a charge the shop does not believe paid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unconfirmed {
    /// Give the money back: the shop never shipped.
    Refund,
    /// Keep the money and mark the order paid, so the shop ships it.
    MarkPaid,
}

impl Unconfirmed {
    pub const ALL: [Unconfirmed; 2] = [Unconfirmed::Refund, Unconfirmed::MarkPaid];
    pub fn id(self) -> &'static str {
        match self {
            Unconfirmed::Refund => "refund",
            Unconfirmed::MarkPaid => "mark-paid",
        }
    }
}

/// A call the shop makes to a service of its own once an order is paid: reserve the stock,
/// send the confirmation, book the courier. Each service keeps its own memory.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StepConfig {
    pub service: Service,
    pub key_mode: KeyMode,
    /// Tries of the call: the first and its retries.
    pub attempts: u32,
    /// How long the shop waits for the service's answer before it tries again.
    pub timeout_ms: u64,
    /// The wait between a failed try and the next.
    pub backoff_ms: u64,
    /// How long the service takes over one call.
    pub processing_ms: u64,
    pub faults: Vec<StepFault>,
}

/// The services a shop calls after the payment, each a lane with its own memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Service {
    /// Reserves the stock for the order.
    Warehouse,
    /// Sends the confirmation e-mail.
    Mailer,
    /// Books the courier.
    Courier,
}

impl Service {
    pub const ALL: [Service; 3] = [Service::Warehouse, Service::Mailer, Service::Courier];
    pub fn id(self) -> &'static str {
        match self {
            Service::Warehouse => "warehouse",
            Service::Mailer => "mailer",
            Service::Courier => "courier",
        }
    }
    /// What the key is derived from besides the order: `5531:courier`.
    pub fn key_suffix(self) -> &'static str {
        match self {
            Service::Warehouse => "stock",
            Service::Mailer => "email",
            Service::Courier => "courier",
        }
    }
}

/// How the shop keys its calls to a downstream service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyMode {
    /// Made from the order and the step (`5531:courier`): the same on every try, stored by
    /// the service with its effect, so a repeat is answered from memory.
    Derived,
    /// A fresh key on every try: the service never sees one twice.
    PerAttempt,
    /// No key: every call is a new effect.
    None,
}

impl KeyMode {
    pub const ALL: [KeyMode; 3] = [KeyMode::Derived, KeyMode::PerAttempt, KeyMode::None];
    pub fn id(self) -> &'static str {
        match self {
            KeyMode::Derived => "derived",
            KeyMode::PerAttempt => "per-attempt",
            KeyMode::None => "none",
        }
    }
    /// The next mode, for a toggle that walks through all three.
    pub fn next(self) -> KeyMode {
        match self {
            KeyMode::Derived => KeyMode::PerAttempt,
            KeyMode::PerAttempt => KeyMode::None,
            KeyMode::None => KeyMode::Derived,
        }
    }
}

/// Something that goes wrong on one try of a downstream call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepFault {
    /// Index into `SimConfig::intents`.
    pub intent: usize,
    /// The try, counted from 1.
    pub attempt: u32,
    pub action: StepFaultAction,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum StepFaultAction {
    /// The call or its answer never arrives.
    Lose { direction: Direction },
    /// The call or its answer arrives this much later than usual.
    Delay { direction: Direction, by_ms: u64 },
    /// The service takes this long over the call.
    Slow { processing_ms: u64 },
}

/// A person re-running the whole retry budget for an intent that ended unpaid.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rerun {
    pub name: String,
    /// Delay after the previous run gave up.
    pub after_ms: u64,
    /// Restrict the path to one intent; `None` means every intent.
    pub intent: Option<usize>,
}

impl KeyStrategy {
    /// Every strategy, in the order the replay's `K` steps through them.
    pub const ALL: [KeyStrategy; 3] = [
        KeyStrategy::PerIntent,
        KeyStrategy::PerAttempt,
        KeyStrategy::None,
    ];

    /// The strategy's name in a scenario file and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            KeyStrategy::PerIntent => "per-intent",
            KeyStrategy::PerAttempt => "per-attempt",
            KeyStrategy::None => "none",
        }
    }

    /// The next strategy in the order the replay's toggle cycles through them.
    pub fn next(self) -> KeyStrategy {
        match self {
            KeyStrategy::PerIntent => KeyStrategy::PerAttempt,
            KeyStrategy::PerAttempt => KeyStrategy::None,
            KeyStrategy::None => KeyStrategy::PerIntent,
        }
    }

    /// What a layer does with the key when the scenario does not say: the innermost layer
    /// mints per attempt under `per-attempt`, and every other layer forwards.
    pub fn layer_default(self, layer: usize) -> LayerKey {
        match self {
            KeyStrategy::PerAttempt if layer == 0 => LayerKey::PerAttempt,
            _ => LayerKey::Forward,
        }
    }
}

/// How a story keys its requests: the checkout's strategy, what each of its layers does with
/// the key, and how each step after payment keys its calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Keying {
    pub strategy: KeyStrategy,
    pub layers: Vec<LayerKey>,
    pub steps: Vec<KeyMode>,
}

impl Keying {
    /// Whether the checkout keys its attempts another way: its strategy or a layer's key.
    pub fn checkout_differs(&self, other: &Keying) -> bool {
        self.strategy != other.strategy || self.layers != other.layers
    }

    /// Whether a step after payment keys its calls another way.
    pub fn steps_differ(&self, other: &Keying) -> bool {
        self.steps != other.steps
    }
}

impl SimConfig {
    /// How this configuration keys its requests.
    pub fn keying(&self) -> Keying {
        Keying {
            strategy: self.key_strategy,
            layers: self.layers.iter().map(|l| l.key).collect(),
            steps: self.steps.iter().map(|s| s.key_mode).collect(),
        }
    }

    /// Works out every intent's [`IntentDigests`] from its order, amount and items and the
    /// merchant: to be called whenever any of them is set.
    pub fn digest_intents(&mut self) {
        for i in &mut self.intents {
            i.digests = IntentDigests {
                fingerprint: super::digest::fingerprint(&i.order, i.amount, &i.items),
                content: super::digest::content_unstamped(&self.merchant, i.amount, &i.items),
            };
        }
    }

    /// Sets the checkout's key strategy for the whole chain: the order mints a key unless it
    /// is `none`, and every layer takes the strategy's default.
    pub fn set_key_strategy(&mut self, strategy: KeyStrategy) {
        self.key_strategy = strategy;
        for (i, layer) in self.layers.iter_mut().enumerate() {
            layer.key = strategy.layer_default(i);
        }
    }

    /// Keys the checkout and its steps as `keying` says (a story's keying as written, say).
    /// Layers and steps beyond those `keying` names keep their own.
    pub fn set_keying(&mut self, keying: &Keying) {
        self.key_strategy = keying.strategy;
        for (layer, key) in self.layers.iter_mut().zip(&keying.layers) {
            layer.key = *key;
        }
        for (step, mode) in self.steps.iter_mut().zip(&keying.steps) {
            step.key_mode = *mode;
        }
    }

    /// Whether any layer handles the key other than the strategy's default.
    pub fn layer_keys_differ(&self) -> bool {
        self.layers
            .iter()
            .enumerate()
            .any(|(i, l)| l.key != self.key_strategy.layer_default(i))
    }

    /// Where the key the processor sees comes from.
    pub fn key_source(&self) -> KeySource {
        for (layer, l) in self.layers.iter().enumerate() {
            match l.key {
                LayerKey::Forward => {}
                LayerKey::PerAttempt => return KeySource::Minted { layer },
                LayerKey::None => return KeySource::Dropped { layer },
            }
        }
        KeySource::Order
    }

    /// Whether the order itself carries a key into the first layer.
    pub fn order_has_key(&self) -> bool {
        self.key_strategy != KeyStrategy::None
    }

    /// Attempts one run of the retry budget can make: the product of every layer's attempts.
    pub fn attempts_per_run(&self) -> u64 {
        self.layers
            .iter()
            .fold(1u64, |acc, l| acc.saturating_mul(u64::from(l.attempts)))
    }
}
