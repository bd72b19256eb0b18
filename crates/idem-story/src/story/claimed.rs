//! The ticks whose words say more than the tick's own fact: what the checkout will hear,
//! what it does next, whether work is still going on, what a write replaced. Each such
//! sentence is made from a `Claim`, which the tests check against the trace.

use super::claim::{Claim, Sentence, Via};
use super::{Teller, charge_owner};
use crate::sim::Trace;
use crate::sim::config::{FailPoint, KeySource};
use crate::sim::fact::{Fact, HandOver, LookupAnswer, Next, RequestId, Takes};
use crate::sim::state::{ChargeId, EntryKind, EntryStatus, Response};
use crate::sim::{Instant, Tick};
use crate::units::duration_ms;
use std::collections::{HashMap, HashSet};

/// What the narration needs to know about the rest of the trace, worked out in one pass so
/// that telling a long story stays linear.
#[derive(Default)]
pub(super) struct Facts {
    /// Requests whose handler fails before the card is touched.
    fails_before_card: HashSet<RequestId>,
    /// The charge each attempt (intent, attempt number) made, copies included.
    charge_of_attempt: HashMap<(usize, u32), ChargeId>,
    /// For each intent, the ticks at which it sends something, in order, and whether that is a
    /// lookup (`Some(lookup)`) or a charge request (`None`).
    sends: HashMap<usize, Vec<(usize, Option<usize>)>>,
    /// For each tick that reads a 409, whether a request with its key was still being worked
    /// on then: taken on, and not yet answered, failed or stopped by a crash.
    working_at: HashMap<usize, bool>,
}

impl Facts {
    pub(super) fn of(trace: &Trace) -> Facts {
        let mut f = Facts::default();
        let key = |req: RequestId| trace.requests[req].key.as_ref();
        let mut open: Vec<RequestId> = Vec::new();
        for (i, t) in trace.ticks.iter().enumerate() {
            match &t.fact {
                Fact::HandlerError {
                    req,
                    after: FailPoint::Receive,
                    ..
                } => {
                    f.fails_before_card.insert(*req);
                }
                Fact::Charged {
                    req,
                    charge: Some(id),
                    ..
                }
                | Fact::OneWrite {
                    req,
                    charge: Some(id),
                    ..
                } => {
                    let r = &trace.requests[*req];
                    f.charge_of_attempt
                        .entry((r.intent, r.attempt))
                        .or_insert(*id);
                }
                Fact::Send { req } => f
                    .sends
                    .entry(trace.requests[*req].intent)
                    .or_default()
                    .push((i, None)),
                Fact::LookupSent { lookup } => f
                    .sends
                    .entry(trace.lookups[*lookup].intent)
                    .or_default()
                    .push((i, Some(*lookup))),
                _ => {}
            }
            match &t.fact {
                Fact::Takes { req, .. } => open.push(*req),
                Fact::Replied { req, .. } | Fact::HandlerError { req, .. } => {
                    open.retain(|r| r != req)
                }
                Fact::Crash { .. } => open.clear(),
                Fact::Read { reply, .. } if trace.replies[*reply].response.status == 409 => {
                    let k = key(trace.replies[*reply].req);
                    let busy = k.is_some() && open.iter().any(|r| key(*r) == k);
                    f.working_at.insert(i, busy);
                }
                _ => {}
            }
        }
        f
    }
}

impl Teller<'_> {
    /// The sentences of a tick whose narration makes claims; `None` for the others.
    pub(super) fn claimed(&self, index: usize, tick: &Tick, clock: &str) -> Option<Vec<Sentence>> {
        Some(match &tick.fact {
            Fact::Pay => self.pay(tick, clock),
            Fact::Crash {
                moment,
                marks_lost,
                cut,
                restart_ms,
            } => vec![Sentence::claims(
                Claim::Holds {
                    at: index,
                    n: self.live_entries(tick),
                },
                self.crash(tick, *moment, marks_lost, cut, *restart_ms, clock),
            )],
            Fact::LostReply { reply } => self.lost_reply(index, *reply, clock),
            Fact::Late { reply } => {
                let r = &self.trace.replies[*reply];
                let mut said = vec![Sentence::plain(format!(
                    "At {clock} the answer to {} ({}) reaches the checkout, but the checkout stopped waiting for that attempt. Nobody reads it.",
                    self.name(r.req),
                    r.response.summary()
                ))];
                said.extend(self.settle(index, &r.response));
                said
            }
            Fact::Takes {
                req,
                how,
                forgotten,
            } => vec![self.takes(index, *req, *how, *forgotten, clock)],
            Fact::RecordCompleted { req, response } => {
                self.record_completed(index, *req, response, clock)
            }
            Fact::TimedOut { attempt, next } => {
                let mut said = vec![Sentence::plain(format!(
                    "At {clock} attempt #{attempt} has waited {} and heard nothing. The request may have been lost, the card may have been charged with the answer lost, or the processor may still be working: from here the three look the same.",
                    duration_ms(self.cfg.timeout_ms)
                ))];
                said.extend(self.next(index, tick.intent.unwrap_or(0), *next));
                said
            }
            Fact::Deadline { layer, next } => {
                let l = &self.cfg.layers[*layer];
                let mut said = vec![Sentence::plain(format!(
                    "At {clock} the {} layer's deadline of {} for one of its attempts runs out; it abandons everything beneath it, including any answer still on its way.",
                    l.name,
                    duration_ms(l.deadline_ms.unwrap_or(0)),
                ))];
                said.extend(self.next(index, tick.intent.unwrap_or(0), *next));
                said
            }
            Fact::Read {
                reply,
                next,
                hand_over,
            } => self.read(index, tick, *reply, *next, *hand_over, clock),
            Fact::LookedUp {
                lookup,
                next,
                hand_over,
            } => self.looked_up((index, tick), *lookup, *next, *hand_over, clock),
            Fact::MarkPaid { charge } => {
                let i = tick.intent.unwrap_or(0);
                vec![
                    Sentence::plain(format!(
                        "At {clock} the job finds {charge} ({}) for order {}, which the shop believed {}. Its policy for such a charge is to keep it and mark the order paid, so the order and the ledger agree at last.",
                        self.amount_of(tick, *charge),
                        self.order(i),
                        self.belief_before(tick, i).label()
                    )),
                    Sentence::plain(
                        "The verdict on the payment path stays as it was: the checkout itself never learned of the charge.",
                    ),
                ]
            }
            _ => return None,
        })
    }

    fn pay(&self, tick: &Tick, clock: &str) -> Vec<Sentence> {
        let intent = tick.intent.unwrap_or(0);
        let i = &self.cfg.intents[intent];
        let key = &i.key;
        let shared_with: Vec<&str> = self
            .cfg
            .intents
            .iter()
            .enumerate()
            .filter(|(n, other)| *n != intent && other.key == *key)
            .map(|(_, other)| other.order.as_ref())
            .collect();
        let items = if i.items.is_empty() {
            String::new()
        } else {
            format!(" ({})", i.items.join(", "))
        };
        let mut said = vec![Sentence::plain(format!(
            "At {clock} the customer presses Pay once for order {}{items}: {}.",
            i.order, i.amount
        ))];
        let minted = match self.cfg.key_source() {
            KeySource::Order if !self.cfg.order_has_key() => {
                "The checkout sends no idempotency key: nothing will tie a retry to this purchase."
                    .to_string()
            }
            KeySource::Order if shared_with.is_empty() => format!(
                "The checkout mints the idempotency key {key} for this intent and stores it with the order, so every attempt can carry the same one."
            ),
            KeySource::Order => format!(
                "The checkout gives this intent the idempotency key {key}, the key of order {} too: two different purchases now carry one key, a client bug a processor can only catch by comparing the requests.",
                shared_with.join(" and order ")
            ),
            KeySource::Minted { layer: 0 } => {
                said.push(Sentence::plain(format!(
                    "The checkout will mint a new key for every attempt ({key} first)."
                )));
                // What that does to the retries is the story's to show, not tick 1's to tell.
                said.push(Sentence::claims(
                    Claim::EveryRetryNewKey { intent },
                    "Each retry will carry a key the processor has never seen, and look like a brand-new purchase.",
                ));
                return said;
            }
            KeySource::Minted { layer } => format!(
                "The {} gives each of its attempts a new key ({key} first), and the {} beneath it pass{} that key on: their own retries carry it again, and a retry of the {} carries a new one.",
                self.cfg.layers[layer].name,
                self.layer_names(layer),
                if layer == 1 { "es" } else { "" },
                self.cfg.layers[layer].name
            ),
            KeySource::Dropped { layer } => format!(
                "The {} passes the request on without its idempotency key: no attempt reaches the processor with one, so nothing will tie a retry to this purchase.",
                self.cfg.layers[layer].name
            ),
        };
        said.push(Sentence::plain(minted));
        said
    }

    fn lost_reply(&self, index: usize, reply: usize, clock: &str) -> Vec<Sentence> {
        let r = &self.trace.replies[reply];
        let mut said = vec![Sentence::plain(format!(
            "At {clock} the network loses the processor's answer to {} ({}).",
            self.name(r.req),
            r.response.summary()
        ))];
        let made = self.charge_made_by(r.req);
        said.push(match (r.response.charge, made) {
            (Some(id), _) if r.response.replayed => Sentence::claims(
                Claim::ChargeMade { charge: id },
                format!(
                    "It is a replay: {id} moved the money earlier, and this answer, which says so, will not reach the checkout. A lost answer does not mean the charge failed; it means nobody on this side knows."
                ),
            ),
            (Some(id), _) => Sentence::claims(
                Claim::ChargeMade { charge: id },
                "The money has moved, and this answer, which says so, will not reach the checkout. A lost answer does not mean the charge failed; it means nobody on this side knows.",
            ),
            (None, Some(id)) => Sentence::claims(
                Claim::AttemptCharged { req: r.req },
                format!(
                    "The answer does not name it, but this attempt did make {id}: the money has moved, and nobody on this side knows."
                ),
            ),
            (None, None) => Sentence::claims(
                Claim::AttemptNotCharged { req: r.req },
                "No money moved for this attempt, and the answer that says so will not reach the checkout: on this side nobody knows how the attempt ended.",
            ),
        });
        said.extend(self.settle(index, &r.response));
        said
    }

    /// When `response` names a charge: whether, and how, the checkout hears of it after tick
    /// `index`, settled against the trace.
    fn settle(&self, index: usize, response: &Response) -> Option<Sentence> {
        let id = response.charge?;
        Some(match self.heard.get(&id) {
            Some(&at) if at > index => {
                let (via, how) = match &self.trace.ticks[at].fact {
                    Fact::LookedUp { lookup, .. } => (
                        Via::Lookup,
                        format!(
                            "when it looks {} up before retrying",
                            self.trace.lookups[*lookup].key
                        ),
                    ),
                    Fact::Read { reply, .. } => (
                        Via::Answer,
                        format!(
                            "from the answer to {}",
                            self.name(self.trace.replies[*reply].req)
                        ),
                    ),
                    _ => (Via::Answer, "from another answer".to_string()),
                };
                Sentence::claims(
                    Claim::HearsLater {
                        charge: id,
                        after: index,
                        via,
                    },
                    format!("The checkout learns of {id} only later, {how}."),
                )
            }
            Some(_) => Sentence::claims(
                Claim::HeardBefore {
                    charge: id,
                    by: index,
                },
                format!("The checkout already knows of {id} from an earlier answer."),
            ),
            None => Sentence::claims(
                Claim::NeverHears { charge: id },
                format!("The checkout never reads an answer that names {id}."),
            ),
        })
    }

    /// `K7Q4 is new`, or, for a key the retention window evicted, that it was forgotten, with
    /// the claim that nothing live is remembered under it.
    fn unknown(&self, key: &str, usual: &str, forgotten: Option<Instant>) -> String {
        match forgotten {
            Some(at) => format!(
                "{key} was forgotten when its retention window of {} ran out at {}, and nothing is kept under it now",
                self.retention(),
                self.clock(at)
            ),
            None => format!("{key} {usual}"),
        }
    }

    /// The charge attempt `req` made (it or a copy the network made of it), if any.
    fn charge_made_by(&self, req: RequestId) -> Option<ChargeId> {
        let r = self.req(req);
        self.facts
            .charge_of_attempt
            .get(&(r.intent, r.attempt))
            .copied()
    }

    fn takes(
        &self,
        index: usize,
        req: RequestId,
        how: Takes,
        forgotten: Option<Instant>,
        clock: &str,
    ) -> Sentence {
        let r = self.req(req);
        let (who, key, amount) = (self.describe(req), self.key(req), r.amount);
        let processing = duration_ms(r.processing_ms);
        let fails = self.facts.fails_before_card.contains(&req);
        // What the processor goes on to do, told as the trace has it: the handler that fails
        // on receipt never starts the charge.
        let charging = if fails {
            "passes the request to its handler".to_string()
        } else {
            format!("starts charging {amount}; that takes {processing}")
        };
        let charges = if fails {
            "passes the request to its handler".to_string()
        } else {
            format!("charges {amount} ({processing})")
        };
        let text = match how {
            Takes::MarkInProgress => format!(
                "At {clock} the processor receives {who}. {}, so it marks the key in progress (in memory for now) and {charging}.",
                self.unknown(key, "is new", forgotten)
            ),
            Takes::LogFirst => format!(
                "At {clock} the processor receives {who}. {}, so it appends it first and means to charge {amount} after.",
                self.unknown(key, "is not in its key log", forgotten)
            ),
            Takes::ChargeUnmarked if fails => format!(
                "At {clock} the processor receives {who}. {}, so it {charges}.",
                self.unknown(key, "is not in its key log", forgotten)
            ),
            Takes::ChargeUnmarked => format!(
                "At {clock} the processor receives {who}. {}, so it {charging}. Nothing marks the key as in progress: a retry arriving meanwhile would be charged too.",
                self.unknown(key, "is not in its key log", forgotten)
            ),
            Takes::ChargeWithoutKey => format!(
                "At {clock} the processor receives {who}. With no key there is nothing to look up, so it simply {charges}."
            ),
            Takes::ChargeForgetful if fails => format!(
                "At {clock} the processor receives {who}. It keeps no memory of earlier requests, so it {charges} as a new payment."
            ),
            Takes::ChargeForgetful => format!(
                "At {clock} the processor receives {who}. It keeps no memory of earlier requests, so it charges {amount} as a new payment ({processing})."
            ),
            Takes::WriteInProgress { lapsed } => {
                let known = match (lapsed, forgotten) {
                    (Some(at), f) if f.is_none_or(|f| f <= at) => format!(
                        "The in-progress record for {key} expired at {} without being completed, and nothing is kept under the key now",
                        self.clock(at)
                    ),
                    _ => self.unknown(key, "has no record", forgotten),
                };
                format!(
                    "At {clock} the processor receives {who}. {known}, so it writes an in-progress record for the key to disk, expiring in {} unless completed, and {charging}.",
                    self.in_progress_expiry()
                )
            }
            Takes::ChargeNewBody => format!(
                "At {clock} the processor receives {who}. {}, so it {charges}.",
                self.unknown(
                    &r.body_hash(),
                    "matches no body it remembers charging",
                    forgotten
                )
            ),
        };
        let mut claims = Vec::new();
        if fails {
            claims.push(Claim::FailsBeforeCard { req });
        } else if how != Takes::LogFirst {
            // A key logged first may never reach the card; that is the story's to show.
            claims.push(Claim::GoesToCard { req, at: index });
        }
        let remembered = match how {
            Takes::ChargeNewBody => Some(r.body_hash()),
            Takes::ChargeWithoutKey | Takes::ChargeForgetful => None,
            _ => Some(key.to_string()),
        };
        if let Some(key) = remembered {
            claims.push(Claim::NotRemembered { key, at: index });
        }
        Sentence { text, claims }
    }

    fn record_completed(
        &self,
        index: usize,
        req: RequestId,
        response: &Response,
        clock: &str,
    ) -> Vec<Sentence> {
        let key = self.key(req);
        let attempt = self.req(req).attempt;
        // What the record held just before this write.
        let before = index
            .checked_sub(1)
            .and_then(|i| self.trace.ticks.get(i))
            .and_then(|t| {
                t.state
                    .memory
                    .iter()
                    .find(|e| e.kind == EntryKind::Record && &*e.key == key)
                    .cloned()
            });
        if let Some(e) = before
            .clone()
            .filter(|e| e.status == EntryStatus::Completed)
        {
            let who = if e.intent != self.req(req).intent {
                format!(
                    "attempt #{} of order {}",
                    e.written_by.attempt,
                    self.order(e.intent)
                )
            } else if e.written_by.attempt == attempt {
                format!("the other copy of attempt #{attempt}")
            } else {
                format!("attempt #{}", e.written_by.attempt)
            };
            let held = e.response.unwrap_or(*response);
            let mut said = vec![Sentence::claims(
                Claim::Overwrites {
                    key: e.key.clone(),
                    at: index,
                    charge: held.charge,
                },
                format!(
                    "At {clock} the processor writes the answer to {} ({}) over the record for {key}, which {who} had already completed with {}. The write that completes a record does not look at what the record holds (the success write in Powertools for AWS Lambda does not either), so from now on a retry carrying {key} is told {} instead.",
                    self.name(req),
                    response.summary(),
                    held.summary(),
                    response.summary()
                ),
            )];
            if let Some(id) = held.charge
                && self.heard.get(&id).is_some_and(|&at| at < index)
            {
                said.push(Sentence::claims(
                    Claim::HeardBefore {
                        charge: id,
                        by: index,
                    },
                    format!("{id} is the charge the checkout already holds an answer for."),
                ));
            }
            return said;
        }
        if before.is_none() {
            // The in-progress record expired while the work went on: this write makes a new
            // record, with nothing under the key to complete.
            return vec![Sentence::claims(
                Claim::NotRemembered {
                    key: key.to_string(),
                    at: index,
                },
                format!(
                    "At {clock} the processor writes its answer ({}) for {key}, but the in-progress record it meant to complete has already expired: the write makes a new record, kept for a retention window of {}. A retry carrying the key is now answered from it.",
                    response.summary(),
                    self.retention()
                ),
            )];
        }
        let claim = Claim::CompletesInProgress {
            key: key.into(),
            at: index,
        };
        vec![Sentence::claims(
            claim,
            match &response.charge {
                Some(_) => format!(
                    "At {clock}, in a write of its own after the charge, the processor completes the record for {key} with its answer ({}), kept for a retention window of {}. A retry carrying the key is now answered from the record.",
                    response.summary(),
                    self.retention()
                ),
                None => format!(
                    "At {clock} the processor completes the record for {key} with the {} answer. A decline is an answer the handler returned, so a retry carrying the key gets the same answer while the record is kept.",
                    response.summary()
                ),
            },
        )]
    }

    /// What the checkout does next, after an attempt of `intent` ended at tick `index`
    /// without a final answer: a retry, or first a lookup of the key.
    fn next(&self, index: usize, intent: usize, next: Next) -> Option<Sentence> {
        let Next::Retry {
            layer,
            n,
            of,
            delay_ms,
        } = next
        else {
            return None;
        };
        // The first thing the intent sends after this tick: a charge request or a lookup.
        let sends = self.facts.sends.get(&intent).map_or(&[][..], Vec::as_slice);
        let lookup = sends
            .get(sends.partition_point(|(at, _)| *at <= index))
            .map(|(_, lookup)| *lookup);
        let wait = duration_ms(delay_ms);
        if let Some(Some(lookup)) = lookup {
            let key = &self.trace.lookups[lookup].key;
            let what = if layer == 0 {
                format!("attempt {n} of {of}")
            } else {
                format!(
                    "the {} layer's attempt {n} of {of}",
                    self.cfg.layers[layer].name
                )
            };
            return Some(Sentence::claims(
                Claim::NextIsLookup {
                    intent,
                    after: index,
                },
                format!(
                    "It waits {wait}; then, rather than send {what} straight away, it asks the processor what it holds under {key}."
                ),
            ));
        }
        if lookup.is_none() {
            // Something ends the run before the wait is over (an outer deadline, a late
            // answer): the policy is told, not a retry that never goes out.
            let who = if layer == 0 {
                "Its retry policy".to_string()
            } else {
                format!("The {} layer's retry policy", self.cfg.layers[layer].name)
            };
            return Some(Sentence::plain(format!(
                "{who} would wait {wait} and make attempt {n} of {of}, unless something ends the payment first."
            )));
        }
        let text = if layer == 0 {
            format!("It waits {wait} and tries again (attempt {n} of {of}).")
        } else {
            format!(
                "The {} layer waits {wait} and starts its attempt {n} of {of}, which replays the whole budget of the layers beneath it.",
                self.cfg.layers[layer].name,
            )
        };
        Some(Sentence::claims(
            Claim::NextIsRetry {
                intent,
                after: index,
            },
            text,
        ))
    }

    fn read(
        &self,
        index: usize,
        tick: &Tick,
        reply: usize,
        next: Option<Next>,
        hand_over: Option<HandOver>,
        clock: &str,
    ) -> Vec<Sentence> {
        let r = &self.trace.replies[reply];
        let response = &r.response;
        let summary = response.summary();
        let req = self.req(r.req);
        let (intent, order) = (req.intent, self.order(req.intent));
        let head = Sentence::plain(format!(
            "At {clock} the checkout reads {summary} for attempt #{} of order {order}.",
            req.attempt
        ));
        if response.is_success() {
            let how = match (response.replayed, charge_owner(tick, response)) {
                (false, _) => "The checkout marks the order paid.".to_string(),
                (true, Some((id, owner))) if owner == intent => format!(
                    "The processor recognised the key and answered from memory with {id}, charging nothing more, so the checkout marks the order paid."
                ),
                (true, Some((id, owner))) => format!(
                    "That stored answer belongs to order {}: {id} paid for that order, not this one. This answer charged nothing for order {order}, yet the checkout marks it paid.",
                    self.order(owner)
                ),
                (true, None) => "The processor answered from memory and charged nothing for this request, so the checkout marks the order paid.".to_string(),
            };
            return vec![head, Sentence::plain(how)];
        }
        if let Some(next) = next {
            let key = self.key(r.req);
            let working = self.facts.working_at.get(&index).copied().unwrap_or(false);
            let why = if response.status == 409 && working {
                Sentence::claims(
                    Claim::Working {
                        key: key.into(),
                        at: index,
                    },
                    "409 means the processor is still working on this key: not a failure, a reason to wait and ask again.",
                )
            } else if response.status == 409 {
                Sentence::claims(
                    Claim::NotWorking {
                        key: key.into(),
                        at: index,
                    },
                    format!(
                        "The 409 says a request with {key} is in progress, but no work stands behind it any more: {} outlived the work a crash or an error ended, and it answers 409 until it expires.",
                        if self.trace.design == crate::sim::Design::InProgressRecord {
                            "the record on disk"
                        } else {
                            "the key's in-progress mark"
                        }
                    ),
                )
            } else {
                Sentence::plain(
                    "A server error says nothing about whether the card was charged, so the checkout may retry.",
                )
            };
            let mut said = vec![head, why];
            said.extend(self.next(index, intent, next));
            return said;
        }
        vec![
            head,
            Sentence::plain(format!(
                "A {} is final: the checkout stops retrying and tells the customer the payment failed.{}",
                response.status,
                self.hand_over(hand_over)
            )),
        ]
    }

    /// The checkout reading a lookup's answer.
    fn looked_up(
        &self,
        (index, tick): (usize, &Tick),
        lookup: usize,
        next: Option<Next>,
        hand_over: Option<HandOver>,
        clock: &str,
    ) -> Vec<Sentence> {
        let l = &self.trace.lookups[lookup];
        let order = self.order(l.intent);
        match &l.answer {
            Some(LookupAnswer::Found { response }) if response.is_success() => {
                let whose = match charge_owner(tick, response) {
                    Some((id, owner)) if owner == l.intent => format!(
                        "It names {id}, the charge made for order {order}, so the checkout marks the order paid."
                    ),
                    Some((id, owner)) => format!(
                        "That answer belongs to order {}: {id} paid for that order, not this one, yet the checkout marks order {order} paid.",
                        self.order(owner)
                    ),
                    None if tick.state.ledger().iter().any(|c| c.intent == l.intent) => {
                        format!("The checkout marks order {order} paid.")
                    }
                    None => format!(
                        "No charge for order {order} is in the ledger, yet the checkout marks it paid."
                    ),
                };
                vec![
                    Sentence::plain(format!(
                        "At {clock} the checkout reads the stored answer ({}) and sends no new charge request.",
                        response.summary()
                    )),
                    Sentence::plain(whose),
                ]
            }
            Some(LookupAnswer::Found { response }) => vec![Sentence::plain(format!(
                "At {clock} the checkout reads the stored answer ({}): the payment failed, and retrying would not change that.{}",
                response.summary(),
                self.hand_over(hand_over)
            ))],
            Some(LookupAnswer::InProgress) => {
                let mut said = vec![Sentence::plain(format!(
                    "At {clock} the checkout reads that the payment is still in progress, so it does not send another request now; this try is spent on waiting."
                ))];
                said.extend(next.and_then(|n| self.next(index, l.intent, n)));
                said
            }
            Some(LookupAnswer::NotFound) | None => {
                let key = match self.next_send_key(index, l.intent) {
                    Some(Some(k)) if *k == l.key => ", with the same key".to_string(),
                    Some(Some(k)) => format!(", with a new key, {k}"),
                    Some(None) => ", without a key".to_string(),
                    None => String::new(),
                };
                vec![Sentence::plain(format!(
                    "At {clock} the checkout reads \"not found\" and sends its retry now{key}."
                ))]
            }
        }
    }
}
