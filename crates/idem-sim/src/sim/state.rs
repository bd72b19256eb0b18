//! The state of the world after a tick: what the processor remembers, the ledger, what each
//! client believes, and the counters. Parts that did not change are shared with the tick before.

use super::config::Direction;
use super::money::Cents;
use super::time::Instant;
use serde::{Deserialize, Serialize};
use smol_str::SmolStr;
use std::sync::Arc;

/// A list shared between snapshots: a persistent vector, so a change copies a few small
/// nodes rather than the whole list, and thousands of ticks over thousands of charges stay
/// small in memory.
pub type Shared<T> = imbl::Vector<Arc<T>>;

/// The complete state after one tick. Cloning it is cheap: what a tick shows is kept once
/// for the whole run, in a [`History`] every tick of the run shares, and the snapshot says
/// where its part of it is. The processor's memory and the services change only now and then:
/// each version of them ([`Parts`]) is read through the snapshot as if they were its fields
/// (`state.memory`). The ledger, the refunds, the checkout's views and the messages on the
/// wire are stretches of the run's lists, read with [`Snapshot::ledger`] and the like.
#[derive(Clone, Default)]
pub struct Snapshot {
    /// What every tick of the run reads (given to the ticks when the run is over).
    history: Option<Arc<History>>,
    /// The version of the parts this tick shows.
    version: u32,
    /// How many of the run's charges and refunds had been made by this tick.
    ledger: u32,
    refunds: u32,
    /// Where this tick's views of the checkout, and its messages on the wire, sit in the
    /// history's lists of them.
    clients: Stretch,
    flights: Stretch,
    pub processor_up: bool,
    pub counters: Counters,
}

/// What every tick of a run reads its state from: each version of the parts; the charges and
/// refunds in the order they were made; and each list of the checkout's views and of the
/// messages on the wire that a tick showed, one after another.
#[derive(Clone, Debug, Default)]
pub(super) struct History {
    pub parts: Vec<Parts>,
    pub ledger: Vec<Charge>,
    pub refunds: Vec<Refund>,
    /// Every view of an intent the run's ticks showed, each once.
    pub client_views: Vec<ClientView>,
    /// Lists of places in `client_views`, one per intent, one list after another.
    pub clients: Vec<u32>,
    pub flights: Vec<Flight>,
}

/// Where a run of items starts in a list, and how many there are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Stretch {
    pub start: u32,
    pub len: u32,
}

impl Stretch {
    /// The stretch of `len` items from `start`.
    pub fn at(start: usize, len: usize) -> Stretch {
        Stretch {
            start: count(start),
            len: count(len),
        }
    }

    fn range(self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start + self.len as usize
    }
}

/// A position or a length in a run's lists, which the tick limit keeps far below `u32::MAX`
/// (past it, the stretch reads as empty rather than as the wrong items).
pub(super) fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The parts of a snapshot that most ticks leave as they were.
#[derive(Clone, Debug, Default)]
pub struct Parts {
    /// The processor's dedupe memory: key records, key log entries or body hashes. Behind
    /// an `Arc` of its own, so a change elsewhere shares it outright.
    pub memory: Arc<Shared<MemoryEntry>>,
    /// The shop's downstream services (docs/model.md §5.1), in the order the scenario runs its
    /// steps: what each remembers and the effects it has had.
    pub services: Arc<Vec<ServiceView>>,
}

/// Where a snapshot's lists stand, as the engine records them during a run.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Marks {
    pub version: u32,
    pub ledger: u32,
    pub refunds: u32,
    pub clients: Stretch,
    pub flights: Stretch,
}

impl Snapshot {
    /// The state after a tick whose lists stand at `marks`: see [`Snapshot::attach`].
    pub(super) fn new(marks: Marks, processor_up: bool, counters: Counters) -> Snapshot {
        Snapshot {
            history: None,
            version: marks.version,
            ledger: marks.ledger,
            refunds: marks.refunds,
            clients: marks.clients,
            flights: marks.flights,
            processor_up,
            counters,
        }
    }

    /// Gives the tick the run's history, once the run is over.
    pub(super) fn attach(&mut self, history: &Arc<History>) {
        self.history = Some(Arc::clone(history));
    }

    /// Charges that moved money, in the order they were made.
    pub fn ledger(&self) -> &[Charge] {
        self.history
            .as_deref()
            .and_then(|h| h.ledger.get(..self.ledger as usize))
            .unwrap_or_default()
    }

    /// Refunds the shop's reconciliation made, in order: ledger lines of their own, and lines
    /// on the card statement.
    pub fn refunds(&self) -> &[Refund] {
        self.history
            .as_deref()
            .and_then(|h| h.refunds.get(..self.refunds as usize))
            .unwrap_or_default()
    }

    /// What the checkout knows about each intent, in the scenario's order.
    pub fn clients(&self) -> Clients<'_> {
        match self.history.as_deref() {
            Some(h) => Clients {
                views: &h.client_views,
                ids: h.clients.get(self.clients.range()).unwrap_or_default(),
            },
            None => Clients::default(),
        }
    }

    /// Messages on the wire: sent, not yet delivered or lost, in the order they left.
    pub fn in_flight(&self) -> &[Flight] {
        self.history
            .as_deref()
            .and_then(|h| h.flights.get(self.flights.range()))
            .unwrap_or_default()
    }

    /// Whether two snapshots show the very same views of the checkout: the same stretch of
    /// the same run's list (no view compared), as when nothing at the checkout changed
    /// between two ticks.
    pub fn same_clients(&self, other: &Snapshot) -> bool {
        let shared = match (&self.history, &other.history) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        shared && self.clients == other.clients
    }

    /// Adds a refund to this tick alone; the other ticks keep theirs.
    pub fn push_refund(&mut self, refund: Refund) {
        let refunds = &mut self.own().refunds;
        refunds.push(refund);
        let len = count(refunds.len());
        self.refunds = len;
    }

    /// Gives this snapshot a history of its own that holds just what it shows, so that a
    /// change to it leaves the other ticks as they were.
    fn own(&mut self) -> &mut History {
        let own = History {
            parts: vec![Parts::clone(self)],
            ledger: self.ledger().to_vec(),
            refunds: self.refunds().to_vec(),
            client_views: self.clients().iter().cloned().collect(),
            clients: (0..count(self.clients().len())).collect(),
            flights: self.in_flight().to_vec(),
        };
        self.version = 0;
        self.ledger = count(own.ledger.len());
        self.refunds = count(own.refunds.len());
        self.clients = Stretch::at(0, own.clients.len());
        self.flights = Stretch::at(0, own.flights.len());
        Arc::make_mut(self.history.insert(Arc::new(own)))
    }
}

/// What the checkout knows about each intent at one tick: a list that reads like a slice of
/// views, each view kept once in the run's history however many ticks show it.
#[derive(Clone, Copy, Default)]
pub struct Clients<'a> {
    views: &'a [ClientView],
    ids: &'a [u32],
}

impl<'a> Clients<'a> {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The view of the `i`th intent.
    pub fn get(&self, i: usize) -> Option<&'a ClientView> {
        let views = self.views;
        self.ids.get(i).and_then(|&id| views.get(id as usize))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &'a ClientView> + ExactSizeIterator + 'a {
        let views = self.views;
        self.ids.iter().map(move |&id| &views[id as usize])
    }

    pub fn to_vec(&self) -> Vec<ClientView> {
        self.iter().cloned().collect()
    }
}

impl std::ops::Index<usize> for Clients<'_> {
    type Output = ClientView;
    fn index(&self, i: usize) -> &ClientView {
        &self.views[self.ids[i] as usize]
    }
}

impl PartialEq for Clients<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Clients<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Clients<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// The parts of a state that has none yet (a default snapshot): all empty.
static NO_PARTS: std::sync::LazyLock<Parts> = std::sync::LazyLock::new(Parts::default);

impl std::ops::Deref for Snapshot {
    type Target = Parts;
    fn deref(&self) -> &Parts {
        match self
            .history
            .as_deref()
            .and_then(|h| h.parts.get(self.version as usize))
        {
            Some(parts) => parts,
            None => &NO_PARTS,
        }
    }
}

/// Changing a part gives this snapshot a history of its own; the other ticks keep theirs.
impl std::ops::DerefMut for Snapshot {
    fn deref_mut(&mut self) -> &mut Parts {
        &mut self.own().parts[0]
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("memory", &self.memory)
            .field("ledger", &self.ledger())
            .field("refunds", &self.refunds())
            .field("clients", &self.clients())
            .field("processor_up", &self.processor_up)
            .field("counters", &self.counters)
            .field("in_flight", &self.in_flight())
            .field("services", &self.services)
            .finish()
    }
}

/// Serialised as one flat record, refunds and services only when there are any.
impl Serialize for Snapshot {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut fields = 6;
        fields += usize::from(!self.refunds().is_empty()) + usize::from(!self.services.is_empty());
        let mut out = s.serialize_struct("Snapshot", fields)?;
        out.serialize_field("memory", &self.memory)?;
        out.serialize_field("ledger", self.ledger())?;
        if self.refunds().is_empty() {
            out.skip_field("refunds")?;
        } else {
            out.serialize_field("refunds", self.refunds())?;
        }
        out.serialize_field("clients", &self.clients())?;
        out.serialize_field("processor_up", &self.processor_up)?;
        out.serialize_field("counters", &self.counters)?;
        out.serialize_field("in_flight", self.in_flight())?;
        if self.services.is_empty() {
            out.skip_field("services")?;
        } else {
            out.serialize_field("services", &self.services)?;
        }
        out.end()
    }
}

/// One downstream service as it stands: its memory of keys and the effects it has had.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ServiceView {
    pub service: super::config::Service,
    pub memory: Vec<ServiceEntry>,
    pub effects: Vec<StepEffect>,
}

impl ServiceView {
    /// How many of the effects belong to one order.
    pub fn effects_for(&self, intent: usize) -> usize {
        self.effects.iter().filter(|e| e.intent == intent).count()
    }
}

/// A key a service stored with its effect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ServiceEntry {
    pub key: Key,
    /// The effect stored with it, counted from 1 within the service.
    pub effect: u32,
    pub intent: usize,
    /// The try of the shop's call that wrote it.
    pub attempt: u32,
}

/// Something a service did: a reservation made, an e-mail sent, a courier booked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepEffect {
    /// Counted from 1 within the service.
    pub n: u32,
    pub intent: usize,
    pub attempt: u32,
    pub key: Option<Key>,
    pub at: Instant,
}

/// A message on its way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Flight {
    pub intent: usize,
    pub attempt: u32,
    pub direction: Direction,
    /// Which copy this is: the engine's own number for the request or reply, or for a call
    /// to a downstream service, the call's number.
    pub id: usize,
    /// The downstream service a call or its answer travels to or from; `None` for the charge
    /// request and its answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<super::config::Service>,
}

impl Snapshot {
    /// The card statement the customer sees: one line per charge.
    pub fn statement(&self) -> impl Iterator<Item = &Charge> {
        self.ledger().iter()
    }

    pub fn charged_total(&self) -> Cents {
        Cents(self.ledger().iter().map(|c| c.amount.0).sum())
    }

    pub fn refunded_total(&self) -> Cents {
        Cents(self.refunds().iter().map(|r| r.amount.0).sum())
    }

    /// What the customer has paid once refunds are taken off.
    pub fn net_total(&self) -> Cents {
        Cents(self.charged_total().0 - self.refunded_total().0)
    }

    /// The lines of the card statement in the order they appeared: charges, then refunds at
    /// the time each was made.
    pub fn statement_lines(&self) -> Vec<StatementLine<'_>> {
        let mut lines: Vec<StatementLine<'_>> = self
            .ledger()
            .iter()
            .map(StatementLine::Charge)
            .chain(self.refunds().iter().map(StatementLine::Refund))
            .collect();
        lines.sort_by_key(|l| l.at());
        lines
    }
}

/// One line of the card statement: a charge or a refund.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatementLine<'a> {
    Charge(&'a Charge),
    Refund(&'a Refund),
}

impl StatementLine<'_> {
    pub fn at(&self) -> super::time::Instant {
        match self {
            StatementLine::Charge(c) => c.at,
            StatementLine::Refund(r) => r.at,
        }
    }

    /// The amount as the statement prints it: a refund is negative.
    pub fn signed_amount(&self) -> Cents {
        match self {
            StatementLine::Charge(c) => c.amount,
            StatementLine::Refund(r) => Cents(-r.amount.0),
        }
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
    pub key: Key,
    pub kind: EntryKind,
    pub status: EntryStatus,
    /// A short digest of the request body the key was first used with.
    pub fingerprint: Option<Digest>,
    pub response: Option<Response>,
    pub expires_at: Option<Instant>,
    /// Which write put the entry here, for the screen: `attempt #1, one write with ch_1`.
    pub written_by: WrittenBy,
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

/// A response as the processor sends it, and as it may be replayed later. Small and `Copy`:
/// the engine hands it from the processor to the wire, the memory and the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Response {
    pub status: u16,
    /// A short body: `charged ch_1`, `key in progress`, `card declined`.
    pub body: Body,
    /// The charge the response reports, if any.
    pub charge: Option<ChargeId>,
    /// Sent from memory rather than from new work (`Idempotent-Replayed: true`).
    pub replayed: bool,
}

impl Response {
    /// A fresh answer (not a replay).
    pub fn new(status: u16, body: Body) -> Response {
        let charge = match body {
            Body::Charged(id) => Some(id),
            _ => None,
        };
        Response {
            status,
            body,
            charge,
            replayed: false,
        }
    }

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

/// What a response says, written out only when it is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// `charged ch_1`
    Charged(ChargeId),
    /// The key log's stand-in answer, written before the charge.
    Approved,
    /// A success with nothing more to say.
    Ok,
    Declined,
    KeyRequired,
    DuplicateRequest,
    KeyReused,
    KeyInProgress,
    HandlerError,
}

impl std::fmt::Display for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Body::Charged(id) => return write!(f, "charged {id}"),
            Body::Approved => "approved",
            Body::Ok => "ok",
            Body::Declined => "card declined",
            Body::KeyRequired => "idempotency key required",
            Body::DuplicateRequest => "duplicate request",
            Body::KeyReused => "key reused for another request",
            Body::KeyInProgress => "key in progress",
            Body::HandlerError => "handler error",
        })
    }
}

/// An idempotency key (or a body hash standing in for one). A key of up to 23 bytes is held
/// inline, so the many requests, memory entries, charges and views that carry it copy it
/// without touching a shared count; a longer one is shared.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Key(pub SmolStr);

impl Key {
    /// The same text.
    pub fn text(&self) -> SmolStr {
        self.0.clone()
    }
}

impl std::ops::Deref for Key {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Key {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Key {
    fn from(text: &str) -> Key {
        Key(SmolStr::from(text))
    }
}

impl From<String> for Key {
    fn from(text: String) -> Key {
        Key(SmolStr::from(text))
    }
}

impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Key {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

/// A charge's place in the ledger, counted from 1 and shown as `ch_1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChargeId(pub u32);

impl std::fmt::Display for ChargeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ch_{}", self.0)
    }
}

/// `ch_3` compared with the text a reader sees.
impl PartialEq<&str> for ChargeId {
    fn eq(&self, other: &&str) -> bool {
        other
            .strip_prefix("ch_")
            .is_some_and(|n| !n.starts_with('0') && n.parse() == Ok(self.0))
    }
}

/// A 64-bit digest shown by its top six hex digits (`1cea76`): a request fingerprint or a
/// body hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest(pub u64);

impl Digest {
    /// The six hex digits it is shown by, written without allocating.
    pub fn hex(self) -> ShortHex {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut text = [0; 6];
        for (i, digit) in text.iter_mut().enumerate() {
            *digit = DIGITS[((self.0 >> (60 - 4 * i)) & 0xf) as usize];
        }
        ShortHex(text)
    }
}

/// A digest's six hex digits, held on the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShortHex([u8; 6]);

impl ShortHex {
    pub fn as_str(&self) -> &str {
        // Only ASCII hex digits are ever written into it.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.hex().as_str())
    }
}

/// Which write put a memory entry there, shown as `attempt #1, one write with ch_1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrittenBy {
    pub attempt: u32,
    pub how: Write,
}

/// The kinds of write that leave an entry in the processor's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    /// `with-charge`: the in-progress mark, held in memory.
    InMemory,
    /// `with-charge`: the one write with the charge (`None`: with the decline).
    OneWrite(Option<ChargeId>),
    /// `inprogress-record`: the in-progress record, on disk.
    InProgressOnDisk,
    /// `inprogress-record`: the write completing the record after the charge (`None`: after
    /// the decline).
    After(Option<ChargeId>),
    /// `content-hash`: the body hash stored with the charge.
    With(ChargeId),
    /// A key log line, written before or after the charge.
    Logged { before: bool },
}

impl std::fmt::Display for WrittenBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.attempt;
        match self.how {
            Write::InMemory => write!(f, "attempt #{n}, in memory"),
            Write::OneWrite(Some(id)) => write!(f, "attempt #{n}, one write with {id}"),
            Write::OneWrite(None) => write!(f, "attempt #{n}, one write with the decline"),
            Write::InProgressOnDisk => write!(f, "attempt #{n}, in progress, on disk"),
            Write::After(Some(id)) => write!(f, "attempt #{n}, a write after {id}"),
            Write::After(None) => write!(f, "attempt #{n}, a write after the decline"),
            Write::With(id) => write!(f, "attempt #{n}, with {id}"),
            Write::Logged { before } => write!(
                f,
                "attempt #{n}, {} the charge",
                if before { "before" } else { "after" }
            ),
        }
    }
}

/// Serialised as the text they show, as they were when they were kept as strings.
macro_rules! serialize_as_text {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    )*};
}
serialize_as_text!(Body, ChargeId, Digest, WrittenBy);

/// A charge in the ledger; the statement shows the same lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Charge {
    /// `ch_1`, `ch_2`, …
    pub id: ChargeId,
    pub amount: Cents,
    pub key: Option<Key>,
    pub order: SmolStr,
    pub intent: usize,
    pub attempt: u32,
    pub at: Instant,
}

/// Why the reconciliation gave a charge back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefundReason {
    /// The order was charged more than once: every charge after its first.
    Duplicate,
    /// The shop does not believe the order paid, and its policy is to refund.
    Unconfirmed,
}

/// A refund of one charge, made by the shop's reconciliation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refund {
    /// The charge given back.
    pub charge: ChargeId,
    pub amount: Cents,
    pub order: SmolStr,
    pub intent: usize,
    pub why: RefundReason,
    pub at: Instant,
    /// When the charge was made: the customer saw that money from then until `at`.
    pub charged_at: Instant,
}

/// What the checkout believes about a payment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    pub order: SmolStr,
    /// The key the latest attempt carried.
    pub key: Option<SmolStr>,
    pub belief: Belief,
    pub attempts_sent: u32,
    /// The reconciliation found a charge and marked the order paid (`unconfirmed =
    /// "mark-paid"`). What the checkout itself concluded stays in `belief`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub marked_paid: bool,
    /// The reconciliation raised "shipped unpaid" for this order: believed paid, no charge.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub alerted: bool,
}

/// Running totals over the whole scenario.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub attempts_sent: u32,
    pub requests_received: u32,
    /// Requests answered from memory (replays) and lookups that found a stored answer.
    pub dedupe_hits: u32,
    pub conflicts_409: u32,
    pub mismatches_422: u32,
    /// Entries that entered the processor's memory: keys, log lines, body hashes, and
    /// in-progress marks and records (completing one adds no entry).
    pub keys_stored: u32,
    /// Entries that left it: expired, lost in a crash, deleted by a handler error, or
    /// replaced once past their expiry. The memory holds `keys_stored - keys_evicted`.
    pub keys_evicted: u32,
    /// 400 refusals: no key where one is required, or a body already charged.
    pub refusals_400: u32,
    /// Lookups the processor answered; each that found a stored answer is also a dedupe hit.
    pub lookups_answered: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn charge(n: u32, at: u64) -> Charge {
        Charge {
            id: ChargeId(n),
            amount: Cents(100 * i64::from(n)),
            key: None,
            order: "5531".into(),
            intent: 0,
            attempt: n,
            at: Instant(at),
        }
    }

    fn refund(of: u32, at: u64) -> Refund {
        Refund {
            charge: ChargeId(of),
            amount: Cents(100 * i64::from(of)),
            order: "5531".into(),
            intent: 0,
            why: RefundReason::Duplicate,
            at: Instant(at),
            charged_at: Instant(0),
        }
    }

    fn view(belief: Belief) -> ClientView {
        ClientView {
            order: "5531".into(),
            key: Some("K7Q4".into()),
            belief,
            attempts_sent: 1,
            marked_paid: false,
            alerted: false,
        }
    }

    /// A run of two ticks: the first shows the first charge and a waiting checkout, the
    /// second both charges, the refund and a paid checkout.
    fn two_ticks() -> (Snapshot, Snapshot) {
        let history = Arc::new(History {
            parts: vec![Parts::default()],
            ledger: vec![charge(1, 10), charge(2, 30)],
            refunds: vec![refund(2, 20)],
            client_views: vec![view(Belief::Waiting), view(Belief::Paid)],
            clients: vec![0, 1],
            flights: Vec::new(),
        });
        let mut first = Snapshot::new(
            Marks {
                ledger: 1,
                clients: Stretch::at(0, 1),
                ..Marks::default()
            },
            true,
            Counters::default(),
        );
        let mut second = Snapshot::new(
            Marks {
                ledger: 2,
                refunds: 1,
                clients: Stretch::at(1, 1),
                ..Marks::default()
            },
            true,
            Counters::default(),
        );
        first.attach(&history);
        second.attach(&history);
        (first, second)
    }

    #[test]
    fn the_statement_lists_charges_and_refunds_by_the_time_each_was_made() {
        let (first, second) = two_ticks();
        let ids: Vec<ChargeId> = second.statement().map(|c| c.id).collect();
        assert_eq!(ids, [ChargeId(1), ChargeId(2)]);
        assert_eq!(first.statement().count(), 1);
        let lines: Vec<(u64, i64)> = second
            .statement_lines()
            .iter()
            .map(|l| (l.at().0, l.signed_amount().0))
            .collect();
        assert_eq!(lines, [(10, 100), (20, -200), (30, 200)]);
        assert_eq!(second.net_total(), Cents(100));
    }

    #[test]
    fn two_ticks_show_the_same_checkout_only_from_the_same_stretch_of_the_same_run() {
        let (first, second) = two_ticks();
        assert!(first.same_clients(&first.clone()));
        assert!(Snapshot::default().same_clients(&Snapshot::default()));
        assert!(!first.same_clients(&second), "another stretch of the run");
        assert!(!first.same_clients(&Snapshot::default()));
        assert!(!Snapshot::default().same_clients(&first));
        // A tick given a history of its own shows the same views, but not the run's.
        let mut own = first.clone();
        own.services = Arc::new(Vec::new());
        assert_eq!(own.clients(), first.clients());
        assert!(!own.same_clients(&first));
    }

    #[test]
    fn a_change_to_one_tick_leaves_the_others_as_they_were() {
        let (first, second) = two_ticks();
        let mut changed = second.clone();
        changed.memory = Arc::new(Shared::new());
        Arc::make_mut(&mut changed.memory).push_back(Arc::new(MemoryEntry {
            kind: EntryKind::KeyRecord,
            key: Key::from("K7Q4".to_string()),
            status: EntryStatus::Completed,
            fingerprint: None,
            response: None,
            expires_at: None,
            written_by: WrittenBy {
                attempt: 1,
                how: Write::InMemory,
            },
            intent: 0,
        }));
        changed.push_refund(refund(1, 40));
        assert_eq!(changed.memory.len(), 1);
        assert_eq!(changed.refunds().len(), 2);
        assert_eq!(changed.ledger(), second.ledger(), "the rest is kept");
        assert_eq!(changed.clients(), second.clients());
        assert!(
            second.memory.is_empty(),
            "the tick it came from is unchanged"
        );
        assert_eq!(second.refunds().len(), 1);
        assert_eq!(first.refunds().len(), 0);
        let shown = format!("{changed:?}");
        assert!(shown.starts_with("Snapshot {"), "{shown}");
        assert!(shown.contains("processor_up: true"), "{shown}");
        assert!(shown.contains("K7Q4"), "{shown}");
    }

    #[test]
    fn the_words_of_states_and_writes() {
        let statuses = [
            EntryStatus::InProgress,
            EntryStatus::Completed,
            EntryStatus::Logged,
        ];
        let words: Vec<&str> = statuses.iter().map(|s| s.label()).collect();
        assert_eq!(words, ["in progress", "completed", "logged"]);
        let beliefs = [
            Belief::NotStarted,
            Belief::Waiting,
            Belief::Paid,
            Belief::Failed,
            Belief::Unknown,
        ];
        let words: Vec<&str> = beliefs.iter().map(|b| b.label()).collect();
        assert_eq!(
            words,
            ["not started", "waiting", "paid", "failed", "unknown"]
        );
        let by = |how| WrittenBy { attempt: 2, how }.to_string();
        assert_eq!(by(Write::InMemory), "attempt #2, in memory");
        assert_eq!(
            by(Write::OneWrite(Some(ChargeId(3)))),
            "attempt #2, one write with ch_3"
        );
        assert_eq!(
            by(Write::Logged { before: true }),
            "attempt #2, before the charge"
        );
        assert_eq!(
            by(Write::Logged { before: false }),
            "attempt #2, after the charge"
        );
    }

    #[test]
    fn a_key_equals_the_text_it_holds_and_nothing_else() {
        let key = Key::from("K7Q4".to_string());
        assert!(key == *"K7Q4");
        assert!(key == "K7Q4");
        assert!(key != *"K7Q5");
        assert!(key != "K7Q");
    }

    #[test]
    fn a_digest_shows_its_top_six_hex_digits() {
        for n in [0, 1, 0xff, 1 << 40, 0x1cea_76ff_0000_0000, u64::MAX] {
            assert_eq!(Digest(n).to_string(), format!("{:06x}", n >> 40), "{n:#x}");
            assert_eq!(
                Digest(n).hex().as_str(),
                format!("{:06x}", n >> 40),
                "{n:#x}"
            );
        }
    }
}
