//! What a sentence of the story asserts, as data. The narration is written from these; a
//! checker that shares none of this code (the tests' `claims` module) reads only the trace and
//! decides each one true or false. A claim names ticks by their index in the trace.

use crate::sim::fact::RequestId;
use crate::sim::state::{ChargeId, Key};

/// How the checkout comes to read an answer that names a charge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// The processor's answer to an attempt.
    Answer,
    /// The answer stored under the key, read from a lookup.
    Lookup,
}

/// One thing a sentence says is so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Tick `at` is a fact of the kind named `fact` (as [`fact_name`] names it): the sentence
    /// tells that tick's own fact, what happened at it and nothing the trace does not show.
    Tells { at: usize, fact: &'static str },
    /// The checkout first reads an answer naming `charge` at a tick after `after`, by `via`.
    HearsLater {
        charge: ChargeId,
        after: usize,
        via: Via,
    },
    /// The checkout had read an answer naming `charge` before tick `by`.
    HeardBefore { charge: ChargeId, by: usize },
    /// The checkout has read no answer naming `charge` before tick `by`.
    NotHeardBy { charge: ChargeId, by: usize },
    /// The checkout reads no answer naming `charge` in the whole run.
    NeverHears { charge: ChargeId },
    /// The ledger holds `charge` at tick `by`.
    ChargeMade { charge: ChargeId, by: usize },
    /// At tick `by`, the ledger holds a charge made by attempt `req` (it or a copy of it).
    AttemptCharged { req: RequestId, by: usize },
    /// At tick `by`, the ledger holds no charge made by attempt `req` (nor by a copy of it).
    AttemptNotCharged { req: RequestId, by: usize },
    /// After tick `after`, the next thing the checkout sends for `intent` is a charge request
    /// (not a lookup), at instant `at`, with no deadline, give-up or rerun of the order in
    /// between: the wait the sentence names is the wait that happens.
    NextIsRetry {
        intent: usize,
        after: usize,
        at: crate::sim::Instant,
    },
    /// As `NextIsRetry`, but what goes out at `at` is a lookup.
    NextIsLookup {
        intent: usize,
        after: usize,
        at: crate::sim::Instant,
    },
    /// At tick `at`, the processor answers request `req` from memory written for `intent`.
    AnsweredFor {
        req: RequestId,
        at: usize,
        intent: usize,
    },
    /// Request `req` is attempt number `attempt` of its order: a copy the network made of it
    /// (`copy`), or the attempt as the checkout sent it, which no earlier request of its order
    /// was; a retry when `attempt` is above 1.
    IsAttempt {
        req: RequestId,
        attempt: u32,
        copy: bool,
    },
    /// The processor of this run looks requests up by key (`true`) or ignores keys (`false`).
    ReadsKeys { yes: bool },
    /// Some request sent before `req` carried a body with the same hash (`true`), or none did
    /// (`false`).
    BodySeen { req: RequestId, yes: bool },
    /// Some request sent before `req` carried its key (`true`), or none did (`false`).
    KeySeen { req: RequestId, yes: bool },
    /// At tick `at`, request `req` has been taken on and is still being worked on.
    WorkingOn { req: RequestId, at: usize },
    /// Before tick `at`, the last work on `key` was ended by a crash (`crash`) or by the
    /// handler's error, not by an answer.
    WorkCutOff { key: Key, at: usize, crash: bool },
    /// At tick `at`, the processor still holds `n` live entries under `key` (0: none).
    HeldUnder { key: String, at: usize, n: usize },
    /// The checkout's wait for the answer to `req` is ended by a layer's deadline (`true`),
    /// or by the answer or its own timeout (`false`).
    WaitCutByDeadline { req: RequestId, yes: bool },
    /// Request `req`'s card was declined (`true`) or charged (`false`) before tick `by`.
    Declined {
        req: RequestId,
        by: usize,
        yes: bool,
    },
    /// At tick `at`, the order of `intent` has been placed and the checkout has not settled it.
    StillPaying { intent: usize, at: usize },
    /// Before tick `at`, the last run of the order of `intent` ended by handing the order to
    /// a person's rerun: by giving up (`gave_up`) or on a final failure.
    HandedOver {
        intent: usize,
        at: usize,
        gave_up: bool,
    },
    /// The checkout reads no answer to attempt `req`, nor to any copy of it, in the whole run.
    AttemptUnanswered { req: RequestId },
    /// By tick `by`, a refund has given `charge` back.
    Refunded { charge: ChargeId, by: usize },
    /// At tick `at`, the order of `intent` has not been placed: its Pay comes later or never.
    NotPlaced { intent: usize, at: usize },
    /// At tick `at`, the shop believes the order of `intent` paid and the ledger holds exactly
    /// one charge for it that no refund gave back.
    Agrees { intent: usize, at: usize },
    /// At tick `at`, some request carrying `key` has been taken on by the processor and is
    /// still being worked on: not answered, failed or cut off by a crash.
    Working { key: Key, at: usize },
    /// At tick `at`, no request carrying `key` is being worked on any more.
    NotWorking { key: Key, at: usize },
    /// Request `req`, taken on at tick `at`, goes on to the card: it is charged or declined
    /// later, or a crash stops it mid-charge. Its handler does not fail before the charge.
    GoesToCard { req: RequestId, at: usize },
    /// Request `req`'s handler fails before the card is touched.
    FailsBeforeCard { req: RequestId },
    /// Just before tick `at`, the record for `key` was completed with an answer naming
    /// `charge`, which this tick's write replaces.
    Overwrites {
        key: Key,
        at: usize,
        charge: Option<ChargeId>,
    },
    /// Just before tick `at`, the record for `key` was in progress.
    CompletesInProgress { key: Key, at: usize },
    /// Just before tick `at`, nothing live was remembered under `key` (of any kind).
    NotRemembered { key: String, at: usize },
    /// At tick `at`, the processor's memory holds `n` live entries.
    Holds { at: usize, n: usize },
    /// Every request of `intent` after the first carries a key no request sent before it
    /// carried, of this order or any other (`any_order`), or of this order alone.
    EveryRetryNewKey { intent: usize, any_order: bool },
}

/// The name a trace gives the kind of `fact` (its `fact` field in `idem run --json`): what a
/// sentence that tells a tick's own fact says the tick is.
pub fn fact_name(fact: &crate::sim::fact::Fact) -> &'static str {
    use crate::sim::fact::Fact;
    match fact {
        Fact::Pay => "pay",
        Fact::Send { .. } => "send",
        Fact::LostRequest { .. } => "lost-request",
        Fact::LostReply { .. } => "lost-reply",
        Fact::Wire { .. } => "wire",
        Fact::ArrivesDown { .. } => "arrives-down",
        Fact::ReceivedThenCrash { .. } => "received-then-crash",
        Fact::Refused { .. } => "refused",
        Fact::Mismatch { .. } => "mismatch",
        Fact::Replayed { .. } => "replayed",
        Fact::InProgress { .. } => "in-progress",
        Fact::Takes { .. } => "takes",
        Fact::OneWrite { .. } => "one-write",
        Fact::Charged { .. } => "charged",
        Fact::KeyLogged { .. } => "key-logged",
        Fact::RecordCompleted { .. } => "record-completed",
        Fact::HandlerError { .. } => "handler-error",
        Fact::Replied { .. } => "replied",
        Fact::Crash { .. } => "crash",
        Fact::Restart { .. } => "restart",
        Fact::Expired { .. } => "expired",
        Fact::TimedOut { .. } => "timed-out",
        Fact::Deadline { .. } => "deadline",
        Fact::Read { .. } => "read",
        Fact::Late { .. } => "late",
        Fact::CopyAnswered { .. } => "copy-answered",
        Fact::GaveUp { .. } => "gave-up",
        Fact::Rerun { .. } => "rerun",
        Fact::Reconcile { .. } => "reconcile",
        Fact::Refund { .. } => "refund",
        Fact::MarkPaid { .. } => "mark-paid",
        Fact::ShippedUnpaid => "shipped-unpaid",
        Fact::Statement => "statement",
        Fact::LookupSent { .. } => "lookup-sent",
        Fact::LookupDown { .. } => "lookup-down",
        Fact::LookupAnswered { .. } => "lookup-answered",
        Fact::LookedUp { .. } => "looked-up",
        Fact::LookupTimedOut { .. } => "lookup-timed-out",
        Fact::CallSent { .. } => "call-sent",
        Fact::CallLost { .. } => "call-lost",
        Fact::CallDelayed { .. } => "call-delayed",
        Fact::CallDone { .. } => "call-done",
        Fact::CallReplayed { .. } => "call-replayed",
        Fact::CallReplied { .. } => "call-replied",
        Fact::CallRead { .. } => "call-read",
        Fact::CallLate { .. } => "call-late",
        Fact::CallTimedOut { .. } => "call-timed-out",
    }
}

/// One sentence (or a few that stand together) of a tick's narration, with what it claims:
/// every sentence claims at least that it tells its tick's own fact ([`Claim::Tells`]), and
/// each clause that says more is a claim of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sentence {
    pub text: String,
    pub claims: Vec<Claim>,
}

impl Sentence {
    /// Words made from `claim`.
    pub fn claims(claim: Claim, text: impl Into<String>) -> Sentence {
        Sentence {
            text: text.into(),
            claims: vec![claim],
        }
    }

    /// Words made from several claims, every one of which they state.
    pub fn all(claims: Vec<Claim>, text: impl Into<String>) -> Sentence {
        Sentence {
            text: text.into(),
            claims,
        }
    }
}

/// The sentences joined into the narration the reader sees.
pub fn join(sentences: &[Sentence]) -> String {
    let mut out = String::with_capacity(sentences.iter().map(|s| s.text.len() + 1).sum());
    for s in sentences.iter().filter(|s| !s.text.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(s.text.trim());
    }
    out
}
