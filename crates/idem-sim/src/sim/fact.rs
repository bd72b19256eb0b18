//! What happened at a tick, as data. The engine records facts and nothing else; the words a
//! reader sees are written from these facts at the edge (the story module), in the display's
//! clock style, when a tick is shown or exported.

use super::config::{CrashPoint, Direction, FailPoint};
use super::state::{ChargeId, Digest, EntryKind, Key, RefundReason, Response, WrittenBy};
use super::time::Instant;
use serde::Serialize;

/// A request the checkout sent (or the network copied): index into `Trace::requests`.
pub type RequestId = usize;
/// An answer the processor sent: index into `Trace::replies`.
pub type ReplyId = usize;

/// One copy of a charge request, as the trace keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SentRequest {
    pub intent: usize,
    pub attempt: u32,
    pub key: Option<Key>,
    pub amount: super::money::Cents,
    /// 0 for the original, 1 for a copy made by the network.
    pub copy: u8,
    pub processing_ms: u64,
    /// Digest of the body as sent: what `content-hash` compares.
    pub content: u64,
}

impl SentRequest {
    /// The body's hash as `content-hash` remembers it: `1cea76`.
    pub fn body_hash(&self) -> String {
        Digest(self.content).to_string()
    }
}

/// A lookup the checkout sent: index into `Trace::lookups`.
pub type LookupId = usize;

/// The checkout asking the processor about a key before it retries (docs/model.md §5.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SentLookup {
    pub intent: usize,
    /// The key of the attempt whose outcome is unknown.
    pub key: Key,
    /// The processor's answer, once it gave one.
    pub answer: Option<LookupAnswer>,
}

/// What the processor's memory says about a key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum LookupAnswer {
    /// A finished request under the key, with the answer stored for it.
    Found { response: Response },
    /// A request under the key is still being worked on.
    InProgress,
    /// Nothing is remembered under the key (or the design remembers no keys).
    NotFound,
}

/// A call the shop made to a downstream service: index into `Trace::calls`.
pub type CallId = usize;

/// One try of a downstream step (docs/model.md §5.1), as the trace keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SentCall {
    pub intent: usize,
    /// Index into the scenario's steps.
    pub step: usize,
    pub service: super::config::Service,
    /// The try, counted from 1.
    pub attempt: u32,
    pub key: Option<Key>,
    /// What the service did with it, once it did anything.
    pub answer: Option<CallAnswer>,
}

/// The service's answer to a call: the effect it reports, new or from memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CallAnswer {
    /// The effect, counted from 1 within the service (booking #1).
    pub effect: u32,
    /// Found under the call's key rather than done anew.
    pub replayed: bool,
}

/// An answer on its way back, as the trace keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SentReply {
    pub req: RequestId,
    pub response: Response,
}

/// What the network does to a message besides losing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WireFault {
    Delay { by_ms: u64 },
    Duplicate { gap_ms: u64 },
}

/// How the processor takes a request on as new work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Takes {
    /// `with-charge`: marks the key in progress, in memory, and starts the charge.
    MarkInProgress,
    /// `log-before-charge`: will log the key first, then charge.
    LogFirst,
    /// `log-after-charge`: charges with nothing marking the key.
    ChargeUnmarked,
    /// A key-log design given no key: nothing to look up.
    ChargeWithoutKey,
    /// `no-key`: no memory at all.
    ChargeForgetful,
    /// `content-hash`: no charged body it remembers has this hash.
    ChargeNewBody,
    /// `inprogress-record`: writes a durable in-progress record that expires, then charges.
    WriteInProgress {
        /// When an earlier in-progress record of this key expired, if one did.
        lapsed: Option<Instant>,
    },
}

/// Why the processor refuses a request outright.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Refusal {
    /// `with-charge` will not charge without a key: 400.
    NoKey,
    /// `content-hash`: the body matches a charge already made: 400.
    DuplicateBody { written_by: WrittenBy },
}

/// What comes after an attempt that ended without a final answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Next {
    /// The layer waits `delay_ms` and starts its attempt `n` of `of`.
    Retry {
        layer: usize,
        n: u32,
        of: u32,
        delay_ms: u64,
    },
    /// No layer has attempts left.
    GiveUp,
}

/// A human path an unsettled intent is handed to: index into the config's paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HandOver {
    pub path: usize,
    pub after_ms: u64,
}

/// The step a crash interrupted on one request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cut {
    pub req: RequestId,
    pub step: CutStep,
    /// The charge the request had already made, if any.
    pub charge: Option<ChargeId>,
}

/// The processor's steps, as a crash can interrupt them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CutStep {
    Commit,
    Charge,
    KeyLog,
    /// `inprogress-record`: the write that completes the record.
    Record,
    Reply,
}

/// Where a crash struck, as the narration names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CrashMoment {
    AfterReceive { req: RequestId },
    AfterOneWrite { req: RequestId },
    AfterCharge { req: RequestId },
    AfterKeyLog { req: RequestId, before: bool },
    AfterRecord { req: RequestId },
    AfterReply { req: RequestId },
}

/// A planned crash this answer did not pass through, told beside the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MissedCrash {
    pub point: CrashPoint,
    pub attempt: u32,
    /// The processor writes no key at all, so a crash after the key cannot come.
    pub key_less: bool,
}

/// What happened at one tick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "fact")]
pub enum Fact {
    /// The customer presses Pay for the tick's intent.
    Pay,
    /// The checkout sends a request.
    Send { req: RequestId },
    /// The network loses a request.
    LostRequest { req: RequestId },
    /// The network loses an answer.
    LostReply { reply: ReplyId },
    /// The network holds up or copies a message.
    Wire {
        direction: Direction,
        /// A request id or a reply id, as `direction` says.
        id: usize,
        what: WireFault,
    },
    /// A request reaches a processor that is down.
    ArrivesDown { req: RequestId },
    /// The processor receives a request and crashes at once.
    ReceivedThenCrash { req: RequestId },
    /// The processor refuses a request.
    Refused { req: RequestId, why: Refusal },
    /// `with-charge`: the key is known for a different request.
    Mismatch {
        req: RequestId,
        first: Digest,
        this: Digest,
    },
    /// The processor answers from memory: a key record, or a key log line.
    Replayed {
        req: RequestId,
        stored: Response,
        written_by: WrittenBy,
        from_log: bool,
    },
    /// `with-charge` or `inprogress-record`: the key is still in progress.
    InProgress {
        req: RequestId,
        /// `inprogress-record`: when the in-progress record expires.
        until: Option<Instant>,
    },
    /// The processor takes the request on as new work.
    Takes {
        req: RequestId,
        how: Takes,
        /// When the key (or body hash) was evicted, for a key it once knew.
        forgotten: Option<Instant>,
    },
    /// `with-charge`: the charge and the key record in one write (or the decline, stored).
    OneWrite {
        req: RequestId,
        charge: Option<ChargeId>,
        response: Response,
    },
    /// The charge alone (or the decline).
    Charged {
        req: RequestId,
        charge: Option<ChargeId>,
        /// `content-hash`: the body hash remembered with the charge.
        hash: Option<Digest>,
    },
    /// The key appended to the separate log, before or after the charge.
    KeyLogged {
        req: RequestId,
        before: bool,
        held: Response,
    },
    /// `inprogress-record`: the record completed with the answer, a write of its own.
    RecordCompleted { req: RequestId, response: Response },
    /// The handler fails and the processor answers 500.
    HandlerError {
        req: RequestId,
        after: FailPoint,
        /// The charge made before the error, if any.
        charge: Option<ChargeId>,
        /// The in-progress record or mark the error deleted, if any.
        deleted: bool,
    },
    /// The processor sends its answer.
    Replied { req: RequestId, response: Response },
    /// The processor crashes.
    Crash {
        moment: CrashMoment,
        /// Keys whose in-progress marks, held in memory, are gone.
        marks_lost: Vec<Key>,
        cut: Vec<Cut>,
        restart_ms: u64,
    },
    /// The processor is back; `cut` is what the crash interrupted.
    Restart { cut: Vec<Cut> },
    /// A remembered entry passes its retention window.
    Expired {
        key: Key,
        kind: EntryKind,
        /// An in-progress record reached its expiry, rather than the retention window.
        in_progress: bool,
    },
    /// The innermost layer's wait for an attempt runs out.
    TimedOut { attempt: u32, next: Next },
    /// An outer layer's deadline runs out.
    Deadline { layer: usize, next: Next },
    /// The checkout reads an answer.
    Read {
        reply: ReplyId,
        /// For a retryable answer (409, 5xx): what comes next.
        next: Option<Next>,
        /// For a final refusal: the human path it goes to, if any.
        hand_over: Option<HandOver>,
    },
    /// An answer arrives after its attempt was abandoned.
    Late { reply: ReplyId },
    /// The answer to a copy the network made arrives: nobody asked for it.
    CopyAnswered { reply: ReplyId },
    /// The checkout has spent its retry budget: the outcome is unknown.
    GaveUp {
        attempts: u32,
        hand_over: Option<HandOver>,
    },
    /// A person re-runs the intent.
    Rerun { path: usize },
    /// The shop's reconciliation job compares the ledger with what the shop believes of
    /// each order; the ticks after it are what it does.
    Reconcile {
        /// Orders the job compared: every one whose payment had settled.
        orders: usize,
        /// Orders still being paid, which the job leaves alone.
        pending: usize,
        /// Ledger lines (charges) the job read.
        charges: usize,
        /// What it is about to do: refunds, orders marked paid and alerts.
        actions: usize,
    },
    /// The job refunds a charge of the tick's intent.
    Refund {
        charge: ChargeId,
        why: RefundReason,
        /// When the charge was made.
        charged_at: Instant,
    },
    /// The job keeps the charge for an order the shop did not believe paid, and marks the
    /// order paid (`unconfirmed = "mark-paid"`).
    MarkPaid { charge: ChargeId },
    /// The shop believes the tick's order paid, and the ledger holds no charge for it: an
    /// alert for a person.
    ShippedUnpaid,
    /// The customer reads the card statement.
    Statement,
    /// The checkout asks the processor about a key before retrying.
    LookupSent { lookup: LookupId },
    /// The lookup reaches a processor that is down: no answer will come.
    LookupDown { lookup: LookupId },
    /// The processor answers a lookup from its memory.
    LookupAnswered { lookup: LookupId },
    /// The checkout reads the lookup's answer (kept with the lookup): found, and the run is
    /// over (with `hand_over` when it ended unpaid); in progress, and `next` says when it asks
    /// again; not found, and the retry goes out now.
    LookedUp {
        lookup: LookupId,
        next: Option<Next>,
        hand_over: Option<HandOver>,
    },
    /// No answer to a lookup within the attempt timeout: the retry goes ahead.
    LookupTimedOut { lookup: LookupId },
    /// The shop calls a downstream service (reserve stock, send the confirmation, book the
    /// courier).
    CallSent { call: CallId },
    /// The network loses a call or its answer.
    CallLost { call: CallId, direction: Direction },
    /// The network holds a call or its answer up.
    CallDelayed {
        call: CallId,
        direction: Direction,
        by_ms: u64,
    },
    /// The service does the work anew, and stores the key with it when the call has one.
    CallDone { call: CallId },
    /// The service finds the call's key and answers with the effect stored under it.
    CallReplayed { call: CallId },
    /// The service sends its answer.
    CallReplied { call: CallId },
    /// The shop reads the service's answer; `next` is the step it starts next, if any.
    CallRead { call: CallId, next: Option<usize> },
    /// An answer to a try the shop has stopped waiting for.
    CallLate { call: CallId },
    /// The shop's wait for a call runs out: it tries again, or gives the step up.
    CallTimedOut { call: CallId, next: Next },
}
