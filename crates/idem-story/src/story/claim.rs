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
    /// The checkout first reads an answer naming `charge` at a tick after `after`, by `via`.
    HearsLater {
        charge: ChargeId,
        after: usize,
        via: Via,
    },
    /// The checkout had read an answer naming `charge` before tick `by`.
    HeardBefore { charge: ChargeId, by: usize },
    /// The checkout reads no answer naming `charge` in the whole run.
    NeverHears { charge: ChargeId },
    /// The ledger holds `charge` at the end of the run.
    ChargeMade { charge: ChargeId },
    /// Attempt `req` made a charge that stands in the ledger at the end.
    AttemptCharged { req: RequestId },
    /// No charge in the ledger was made by attempt `req`.
    AttemptNotCharged { req: RequestId },
    /// After tick `after`, the next thing the checkout sends for `intent` is a charge request
    /// (not a lookup).
    NextIsRetry { intent: usize, after: usize },
    /// After tick `after`, the next thing the checkout sends for `intent` is a lookup.
    NextIsLookup { intent: usize, after: usize },
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
    /// Every request of `intent` after the first carries a key no earlier one of its
    /// requests carried.
    EveryRetryNewKey { intent: usize },
}

impl Claim {
    /// Whether the claim is about something later in the story than the tick it sits on:
    /// such a sentence is not shown on or before a tick where a question about it waits.
    pub fn hindsight(&self) -> bool {
        matches!(
            self,
            Claim::HearsLater { .. } | Claim::NeverHears { .. } | Claim::EveryRetryNewKey { .. }
        )
    }
}

/// One sentence (or a few that stand together) of a tick's narration, with what it claims.
/// A sentence with no claims only describes the tick's own fact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sentence {
    pub text: String,
    pub claims: Vec<Claim>,
}

impl Sentence {
    /// Words that describe the tick's own fact and claim nothing beyond it.
    pub fn plain(text: impl Into<String>) -> Sentence {
        Sentence {
            text: text.into(),
            claims: Vec::new(),
        }
    }

    /// Words made from `claim`.
    pub fn claims(claim: Claim, text: impl Into<String>) -> Sentence {
        Sentence {
            text: text.into(),
            claims: vec![claim],
        }
    }

    pub fn hindsight(&self) -> bool {
        self.claims.iter().any(Claim::hindsight)
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
