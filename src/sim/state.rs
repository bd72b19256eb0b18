//! The state of the world after a tick: what the processor remembers, the ledger, what each
//! client believes, and the counters. Parts that did not change are shared with the tick before.

use super::config::Direction;
use super::money::Cents;
use super::time::Instant;
use serde::Serialize;
use std::sync::Arc;

/// A list shared between snapshots: a persistent vector, so a change copies a few small
/// nodes rather than the whole list, and thousands of ticks over thousands of charges stay
/// small in memory.
pub type Shared<T> = imbl::Vector<Arc<T>>;

/// The complete state after one tick. Cloning it is cheap: the large parts are shared.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Snapshot {
    /// The processor's dedupe memory: key records, key log entries or body hashes.
    pub memory: Shared<MemoryEntry>,
    /// Charges that moved money, in the order they were made.
    pub ledger: Shared<Charge>,
    /// What the checkout knows about each intent, in the scenario's order.
    pub clients: Arc<Vec<ClientView>>,
    pub processor_up: bool,
    pub counters: Counters,
    /// Messages on the wire: sent, not yet delivered or lost.
    pub in_flight: Arc<Vec<Flight>>,
}

/// A message on its way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Flight {
    pub intent: usize,
    pub attempt: u32,
    pub direction: Direction,
    /// Which copy this is: the engine's own number for the request or reply.
    pub id: usize,
}

impl Snapshot {
    /// The card statement the customer sees: one line per charge.
    pub fn statement(&self) -> impl Iterator<Item = &Charge> {
        self.ledger.iter().map(|c| &**c)
    }

    pub fn charged_total(&self) -> Cents {
        Cents(self.ledger.iter().map(|c| c.amount.0).sum())
    }
}

/// What kind of memory an entry is; it depends on the design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntryKind {
    /// A key record kept in the same store as the charge.
    KeyRecord,
    /// A line of a key log kept beside the charges.
    LogEntry,
    /// A hash of a charged request body.
    BodyHash,
    /// `inprogress-record`: a record in the idempotency table, written to disk in progress
    /// before the charge and completed after it.
    Record,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntryStatus {
    /// Being processed: a mark held in memory (lost in a crash), or a durable record.
    InProgress,
    /// Finished, with its response stored.
    Completed,
    /// Present in the key log (what it holds is in `response`).
    Logged,
}

impl EntryStatus {
    pub fn label(self) -> &'static str {
        match self {
            EntryStatus::InProgress => "in progress",
            EntryStatus::Completed => "completed",
            EntryStatus::Logged => "logged",
        }
    }
}

/// One thing the processor remembers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemoryEntry {
    /// The idempotency key, or for body hashes a short hex digest.
    pub key: String,
    pub kind: EntryKind,
    pub status: EntryStatus,
    /// A short digest of the request body the key was first used with.
    pub fingerprint: Option<String>,
    pub response: Option<Response>,
    pub expires_at: Option<Instant>,
    /// Which write put the entry here, for the screen: `attempt #1, one write with ch_1`.
    pub written_by: String,
    /// The intent whose request wrote it.
    pub intent: usize,
}

impl MemoryEntry {
    /// Survives a crash: everything but an in-progress mark held in memory is on disk
    /// (an in-progress record is written to the table, so it survives).
    pub fn durable(&self) -> bool {
        self.status != EntryStatus::InProgress || self.kind == EntryKind::Record
    }
}

/// A response as the processor sends it, and as it may be replayed later.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Response {
    pub status: u16,
    /// A short body: `charged ch_1`, `key in progress`, `card declined`.
    pub body: String,
    /// The charge the response reports, if any.
    pub charge: Option<String>,
    /// Sent from memory rather than from new work (`Idempotent-Replayed: true`).
    pub replayed: bool,
}

impl Response {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// `200 charged ch_1`, with `(replayed)` when it came from memory.
    pub fn summary(&self) -> String {
        if self.replayed {
            format!("{} {} (replayed)", self.status, self.body)
        } else {
            format!("{} {}", self.status, self.body)
        }
    }
}

/// A charge in the ledger; the statement shows the same lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Charge {
    /// `ch_1`, `ch_2`, …
    pub id: String,
    pub amount: Cents,
    pub key: Option<String>,
    pub order: String,
    pub intent: usize,
    pub attempt: u32,
    pub at: Instant,
}

/// What the checkout believes about a payment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Belief {
    /// The customer has not pressed Pay yet.
    NotStarted,
    /// An attempt is out, or a retry is scheduled.
    Waiting,
    Paid,
    Failed,
    Unknown,
}

impl Belief {
    pub fn label(self) -> &'static str {
        match self {
            Belief::NotStarted => "not started",
            Belief::Waiting => "waiting",
            Belief::Paid => "paid",
            Belief::Failed => "failed",
            Belief::Unknown => "unknown",
        }
    }
}

/// The checkout's view of one intent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClientView {
    pub order: Arc<str>,
    /// The key the latest attempt carried.
    pub key: Option<Arc<str>>,
    pub belief: Belief,
    pub attempts_sent: u32,
}

/// Running totals over the whole scenario.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub attempts_sent: u32,
    pub requests_received: u32,
    pub dedupe_hits: u32,
    pub conflicts_409: u32,
    pub mismatches_422: u32,
    pub keys_stored: u32,
    pub keys_evicted: u32,
}
