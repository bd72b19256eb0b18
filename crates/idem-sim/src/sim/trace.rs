//! The engine's output: a list of ticks, each with the full state after it, and the outcome.

use super::design::Design;
use super::fact::{Fact, MissedCrash, SentCall, SentLookup, SentReply, SentRequest};
use super::money::Cents;
use super::state::{Belief, Counters, Snapshot};
use super::time::{ClockStyle, Instant};
use serde::{Deserialize, Serialize};

/// The lanes of the sequence diagram, left to right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Actor {
    Customer,
    Checkout,
    Network,
    Processor,
    /// The downstream services of docs/model.md §5.1, each a lane when the scenario calls it.
    Warehouse,
    Mailer,
    Courier,
}

impl Actor {
    pub const ALL: [Actor; 4] = [
        Actor::Customer,
        Actor::Checkout,
        Actor::Network,
        Actor::Processor,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Actor::Customer => "Customer",
            Actor::Checkout => "Checkout",
            Actor::Network => "Network",
            Actor::Processor => "Processor",
            Actor::Warehouse => "Warehouse",
            Actor::Mailer => "Mailer",
            Actor::Courier => "Courier",
        }
    }

    /// The lane of a downstream service.
    pub fn of(service: super::config::Service) -> Actor {
        match service {
            super::config::Service::Warehouse => Actor::Warehouse,
            super::config::Service::Mailer => Actor::Mailer,
            super::config::Service::Courier => Actor::Courier,
        }
    }
}

/// What happened at a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TickKind {
    /// The customer presses Pay.
    Pay,
    /// The checkout sends a charge request.
    Send,
    /// The checkout asks the processor about a key before retrying.
    Lookup,
    /// The network loses a message.
    Lost,
    /// The network holds a message up: it arrives late.
    Delayed,
    /// The network delivers a request or an answer twice.
    Duplicated,
    /// A request reaches the processor and it looks the key up.
    Receive,
    /// A request reaches a processor that is down.
    Unanswered,
    /// The processor writes the charge (and, in `with-charge`, the key record with it).
    Charge,
    /// The shop calls a downstream service after the payment.
    Call,
    /// A downstream service does its work: stock reserved, an e-mail sent, a courier booked.
    Effect,
    /// The processor appends to its key log or remembers a body hash.
    KeyWrite,
    /// The processor declines the card.
    Decline,
    /// The processor answers from memory.
    Replay,
    /// The processor answers 409: the key is in progress.
    Conflict,
    /// The processor answers 422: same key, different request.
    Mismatch,
    /// The processor refuses a request (400: no key, or a duplicate body).
    Reject,
    /// The processor sends its answer.
    Reply,
    /// The checkout reads an answer.
    Answer,
    /// An answer arrives after its attempt was abandoned: nobody reads it.
    Dropped,
    /// An attempt's wait runs out.
    Timeout,
    /// The checkout stops retrying.
    GiveUp,
    /// The processor crashes.
    Crash,
    /// The processor comes back.
    Restart,
    /// A remembered key or hash passes its retention window and is evicted.
    Expire,
    /// A person re-runs the payment (operator rerun, dead-letter replay).
    Rerun,
    /// The shop's reconciliation job compares the ledger with the orders.
    Reconcile,
    /// The reconciliation gives a charge back.
    Refund,
    /// The reconciliation keeps a charge and marks its order paid.
    MarkPaid,
    /// The reconciliation raises an alert for a person: an order shipped unpaid.
    Alert,
    /// The customer reads the card statement.
    Statement,
}

impl TickKind {
    pub fn id(self) -> &'static str {
        match self {
            TickKind::Pay => "pay",
            TickKind::Send => "send",
            TickKind::Lookup => "lookup",
            TickKind::Lost => "lost",
            TickKind::Delayed => "delayed",
            TickKind::Duplicated => "duplicated",
            TickKind::Receive => "receive",
            TickKind::Unanswered => "unanswered",
            TickKind::Charge => "charge",
            TickKind::Effect => "effect",
            TickKind::Call => "call",
            TickKind::KeyWrite => "key-write",
            TickKind::Decline => "decline",
            TickKind::Replay => "replay",
            TickKind::Conflict => "conflict",
            TickKind::Mismatch => "mismatch",
            TickKind::Reject => "reject",
            TickKind::Reply => "reply",
            TickKind::Answer => "answer",
            TickKind::Dropped => "dropped",
            TickKind::Timeout => "timeout",
            TickKind::GiveUp => "give-up",
            TickKind::Crash => "crash",
            TickKind::Restart => "restart",
            TickKind::Expire => "expire",
            TickKind::Rerun => "rerun",
            TickKind::Reconcile => "reconcile",
            TickKind::Refund => "refund",
            TickKind::MarkPaid => "mark-paid",
            TickKind::Alert => "alert",
            TickKind::Statement => "statement",
        }
    }
}

/// What became of a message drawn at a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fate {
    /// Leaves its sender (drawn on the send row).
    Sent,
    /// Lost on the way (drawn cut, at the Network lane).
    Lost,
    /// Arrives at a processor that is down.
    Unanswered,
}

/// An arrow of the sequence diagram; its label is written from the tick's fact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Message {
    pub from: Actor,
    pub to: Actor,
    pub fate: Fate,
}

/// One visible step of the simulation: what happened, as data, and the state after it.
#[derive(Clone, Debug, Serialize)]
pub struct Tick {
    pub at: Instant,
    pub actor: Actor,
    pub kind: TickKind,
    pub fact: Fact,
    /// Crashes the scenario planned on this attempt that its answer never passed through.
    pub missed: Vec<MissedCrash>,
    pub message: Option<Message>,
    /// The intent and attempt the tick belongs to, when it belongs to one.
    pub intent: Option<usize>,
    pub attempt: Option<u32>,
    pub state: Snapshot,
}

/// The verdict on a run, the first that applies in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// An intent was charged more than once.
    Duplicate,
    /// The client believes it paid, and nothing was charged.
    Unpaid,
    /// Charged as it should be, but a downstream step's effect happened more than once (two
    /// couriers booked, two e-mails sent).
    DownstreamDuplicate,
    /// Charged once, and the client does not believe it paid.
    ChargedUnconfirmed,
    /// Nothing charged, and the client does not believe it paid.
    NotCharged,
    /// Every intent charged exactly once, and the client knows.
    Correct,
}

impl Verdict {
    pub const ALL: [Verdict; 6] = [
        Verdict::Duplicate,
        Verdict::Unpaid,
        Verdict::DownstreamDuplicate,
        Verdict::ChargedUnconfirmed,
        Verdict::NotCharged,
        Verdict::Correct,
    ];
    pub fn id(self) -> &'static str {
        match self {
            Verdict::Duplicate => "duplicate",
            Verdict::Unpaid => "unpaid",
            Verdict::DownstreamDuplicate => "downstream-duplicate",
            Verdict::ChargedUnconfirmed => "charged-unconfirmed",
            Verdict::NotCharged => "not-charged",
            Verdict::Correct => "correct",
        }
    }

    /// Judges one intent from its charges and what the client believes.
    pub fn judge(charges: usize, belief: Belief) -> Verdict {
        Verdict::judge_with_steps(charges, belief, 0)
    }

    /// Judges one intent, with the largest number of times any of its downstream steps took
    /// effect: a repeated effect ranks just below an order paid for nothing.
    pub fn judge_with_steps(charges: usize, belief: Belief, most_effects: usize) -> Verdict {
        match (charges, belief) {
            (c, _) if c > 1 => Verdict::Duplicate,
            (0, Belief::Paid) => Verdict::Unpaid,
            _ if most_effects > 1 => Verdict::DownstreamDuplicate,
            (0, _) => Verdict::NotCharged,
            (_, Belief::Paid) => Verdict::Correct,
            _ => Verdict::ChargedUnconfirmed,
        }
    }
}

/// How one intent ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntentOutcome {
    pub id: smol_str::SmolStr,
    /// The intent's key, or `None` when the checkout sends no key.
    pub key: Option<smol_str::SmolStr>,
    pub charges: usize,
    pub charged_cents: Cents,
    pub client_view: Belief,
    pub verdict: Verdict,
    /// What the shop's reconciliation did for this order, when the scenario runs one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconcile: Option<IntentReconcile>,
    /// The shop's downstream steps for this order, in the order it runs them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepOutcome>,
}

/// How one downstream step ended for one order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepOutcome {
    pub service: super::config::Service,
    pub key_mode: super::config::KeyMode,
    /// Times the service did the work for this order.
    pub effects: usize,
    /// Calls the shop made.
    pub calls: u32,
    pub state: StepState,
}

/// Where a downstream step stands at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepState {
    /// The shop never got to it: the order was not read paid, or an earlier step gave up.
    NotRun,
    /// The shop read the service's answer.
    Done,
    /// Every try went unanswered: the shop does not know whether it happened.
    Unknown,
}

impl StepState {
    pub fn label(self) -> &'static str {
        match self {
            StepState::NotRun => "not run",
            StepState::Done => "done",
            StepState::Unknown => "unknown",
        }
    }
}

/// What the reconciliation did for one order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IntentReconcile {
    pub refunds: usize,
    pub refunded_cents: Cents,
    /// Charged less refunded.
    pub net_cents: Cents,
    /// The longest time a refunded charge stood on the statement, from the charge to its
    /// refund: how long the customer saw money that was not owed.
    pub unowed_ms: Option<u64>,
    /// The order was not believed paid, and the job kept its charge and marked it paid.
    pub marked_paid: bool,
    /// Believed paid with no charge: the job raised "shipped unpaid".
    pub alert: bool,
}

/// What the reconciliation did over the whole run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReconcileOutcome {
    /// When the job ran.
    pub at: Instant,
    pub refunds: usize,
    pub refunded_cents: Cents,
    /// Charged less refunded, over every order.
    pub net_cents: Cents,
    pub marked_paid: usize,
    pub alerts: usize,
    /// The longest time any refunded charge stood on the statement.
    pub unowed_ms: Option<u64>,
}

/// How the whole run ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    pub charges: usize,
    pub charged_cents: Cents,
    pub verdict: Verdict,
    pub intents: Vec<IntentOutcome>,
    pub counters: Counters,
    /// What the shop's reconciliation did, when the scenario runs one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconcile: Option<ReconcileOutcome>,
}

/// A whole simulated run of one scenario under one design.
#[derive(Clone, Debug, Serialize)]
pub struct Trace {
    pub design: Design,
    pub clock: ClockStyle,
    pub ticks: Vec<Tick>,
    /// Every request the checkout sent or the network copied, as facts refer to them.
    pub requests: Vec<SentRequest>,
    /// Every answer the processor sent.
    pub replies: Vec<SentReply>,
    /// Every lookup of a key the checkout made before a retry.
    pub lookups: Vec<SentLookup>,
    /// Every call the shop made to a downstream service.
    pub calls: Vec<SentCall>,
    pub outcome: Outcome,
    /// Things the scenario asked for that never happened (a fault on an attempt never sent).
    pub warnings: Vec<String>,
}

impl Trace {
    pub fn format_time(&self, t: Instant) -> String {
        self.clock.format(t)
    }

    /// The run without its ticks and messages: its design, clock, outcome and warnings, all
    /// that a table of outcomes reads, in a few hundred bytes however long the run was.
    pub fn outcome_only(self) -> Trace {
        Trace {
            ticks: Vec::new(),
            requests: Vec::new(),
            replies: Vec::new(),
            lookups: Vec::new(),
            calls: Vec::new(),
            ..self
        }
    }

    /// The index of the last tick at or before `t` (0 when `t` precedes every tick).
    pub fn tick_at_or_before(&self, t: Instant) -> usize {
        self.ticks.partition_point(|k| k.at <= t).saturating_sub(1)
    }
}
