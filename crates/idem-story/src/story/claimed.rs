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
    /// The charge each attempt (intent, attempt number) made, copies included, with the tick
    /// that made it.
    charge_of_attempt: HashMap<(usize, u32), (usize, ChargeId)>,
    /// For each intent, the ticks at which it sends something, in order, and whether that is a
    /// lookup (`Some(lookup)`) or a charge request (`None`).
    sends: HashMap<usize, Vec<(usize, Option<usize>)>>,
    /// For each intent, the ticks that break off a wait the checkout is in: a layer's
    /// deadline, a give-up, a person's rerun.
    breaks: HashMap<usize, Vec<usize>>,
    /// The attempts (intent, attempt number) of which the checkout reads an answer, to any
    /// copy of them.
    attempts_read: HashSet<(usize, u32)>,
    /// Requests whose card was declined, in these ticks.
    pub(super) declined: HashSet<RequestId>,
    /// Requests whose fate at the card shows in these ticks: charged or declined, failed, or
    /// cut off by a crash while at work.
    fate_seen: HashSet<RequestId>,
    /// For each intent, the ticks that end a wait for an answer, in order, each saying
    /// whether it is a layer's deadline (`true`) or the answer or the timeout (`false`).
    wait_ends: HashMap<usize, Vec<(usize, bool)>>,
    /// For each request, the first request sent before it that carried its key, of any order.
    pub(super) key_carried_by: Vec<Option<RequestId>>,
    /// For each intent, whether every retry (not a copy) carries a key that no earlier request
    /// of the intent carried, and whether no earlier request of any intent carried it.
    retry_keys_new: HashMap<usize, (bool, bool)>,
    /// For each request, whether a request sent before it had the same body.
    pub(super) body_sent_before: Vec<bool>,
    /// For each tick that reads a 409, whether a request with its key was still being worked
    /// on then: taken on, and not yet answered, failed or stopped by a crash.
    working_at: HashMap<usize, bool>,
    /// For each request answered 409, the tick of that answer and what stood behind it then.
    pub(super) refused_busy: HashMap<RequestId, (usize, Behind)>,
}

/// What stood behind a 409 when the processor gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Behind {
    /// This request, taken on earlier, was still being worked on.
    Work(RequestId),
    /// No work: the last work on the key was cut off by a crash (`true`) or by the handler's
    /// error (`false`).
    CutOff(bool),
    /// No work, and none that a crash or an error cut off.
    Nothing,
}

impl Facts {
    pub(super) fn of(trace: &Trace, ticks: &[Tick]) -> Facts {
        let mut f = Facts::default();
        let key = |req: RequestId| trace.requests[req].key.as_ref();
        let mut first_with_key: HashMap<&str, RequestId> = HashMap::new();
        let mut own_keys: HashSet<(usize, &str)> = HashSet::new();
        let mut bodies: HashSet<u64> = HashSet::new();
        for (n, r) in trace.requests.iter().enumerate() {
            let k = r.key.as_deref();
            f.key_carried_by
                .push(k.and_then(|k| first_with_key.get(k).copied()));
            f.body_sent_before.push(!bodies.insert(r.content));
            if r.copy == 0 && r.attempt > 1 {
                let new = f.retry_keys_new.entry(r.intent).or_insert((true, true));
                new.0 &= k.is_some_and(|k| !own_keys.contains(&(r.intent, k)));
                new.1 &= k.is_some_and(|k| !first_with_key.contains_key(k));
            }
            if let Some(k) = k {
                first_with_key.entry(k).or_insert(n);
                own_keys.insert((r.intent, k));
            }
        }
        let mut open: Vec<RequestId> = Vec::new();
        // How the last work on each key ended: by a crash (`true`) or an error (`false`); gone
        // once it ended with an answer.
        let mut ended: HashMap<&str, bool> = HashMap::new();
        for (i, t) in ticks.iter().enumerate() {
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
                        .or_insert((i, *id));
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
                Fact::Deadline { .. } | Fact::GaveUp { .. } | Fact::Rerun { .. } => {
                    if let Some(intent) = t.intent {
                        f.breaks.entry(intent).or_default().push(i);
                    }
                }
                _ => {}
            }
            let wait_end = match &t.fact {
                Fact::Deadline { .. } => t.intent.map(|n| (n, true)),
                Fact::TimedOut { .. } => t.intent.map(|n| (n, false)),
                Fact::Read { reply, .. } | Fact::Late { reply } => {
                    Some((trace.requests[trace.replies[*reply].req].intent, false))
                }
                _ => None,
            };
            if let Fact::Read { reply, .. } = &t.fact {
                let r = &trace.requests[trace.replies[*reply].req];
                f.attempts_read.insert((r.intent, r.attempt));
            }
            if let Some((intent, deadline)) = wait_end {
                f.wait_ends.entry(intent).or_default().push((i, deadline));
            }
            match &t.fact {
                Fact::Charged {
                    req, charge: None, ..
                }
                | Fact::OneWrite {
                    req, charge: None, ..
                } => {
                    f.declined.insert(*req);
                    f.fate_seen.insert(*req);
                }
                Fact::Charged { req, .. }
                | Fact::OneWrite { req, .. }
                | Fact::HandlerError { req, .. } => {
                    f.fate_seen.insert(*req);
                }
                Fact::Crash { .. } => f.fate_seen.extend(open.iter().copied()),
                _ => {}
            }
            match &t.fact {
                Fact::Takes { req, .. } => {
                    if let Some(k) = key(*req) {
                        ended.remove(&**k);
                    }
                    open.push(*req)
                }
                Fact::Replied { req, .. } | Fact::HandlerError { req, .. } => {
                    if let Some(k) = key(*req) {
                        if matches!(t.fact, Fact::HandlerError { .. }) {
                            ended.insert(k, false);
                        } else {
                            ended.remove(&**k);
                        }
                    }
                    open.retain(|r| r != req)
                }
                Fact::Crash { .. } => {
                    for r in open.drain(..) {
                        if let Some(k) = key(r) {
                            ended.insert(k, true);
                        }
                    }
                }
                Fact::InProgress { req, .. } => {
                    let k = key(*req);
                    let behind = match open.iter().find(|r| k.is_some() && key(**r) == k) {
                        Some(w) => Behind::Work(*w),
                        None => match k.and_then(|k| ended.get(&**k)) {
                            Some(&crash) => Behind::CutOff(crash),
                            None => Behind::Nothing,
                        },
                    };
                    f.refused_busy.insert(*req, (i, behind));
                }
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
    /// Words that tell tick `index`'s own fact and claim nothing beyond it.
    pub(super) fn tells(&self, index: usize, text: impl Into<String>) -> Sentence {
        Sentence::claims(
            Claim::Tells {
                at: index,
                fact: super::claim::fact_name(&self.ticks[index].fact),
            },
            text,
        )
    }

    /// The sentences of a tick whose narration makes claims; `None` for the others.
    pub(super) fn claimed(&self, index: usize, tick: &Tick, clock: &str) -> Option<Vec<Sentence>> {
        Some(match &tick.fact {
            Fact::Pay => self.pay(index, tick, clock),
            Fact::Send { req } => self.send(index, *req, clock),
            Fact::LostRequest { req } => {
                let head = format!(
                    "At {clock} the network loses {} on its way to the processor. Nothing was charged for it, but the checkout cannot see that",
                    self.describe(*req)
                );
                let r = self.req(*req);
                // Whether any copy of the attempt is answered and read is the story's to show.
                let read = self.facts.attempts_read.contains(&(r.intent, r.attempt));
                vec![if self.cut || read {
                    self.tells(index, format!("{head}."))
                } else {
                    Sentence::claims(
                        Claim::AttemptUnanswered { req: *req },
                        format!("{head}: all it gets from this attempt is silence."),
                    )
                }]
            }
            Fact::Crash {
                moment,
                marks_lost,
                cut,
                restart_ms,
            } => {
                let mut claims = vec![Claim::Holds {
                    at: index,
                    n: self.live_entries(tick),
                }];
                if let crate::sim::fact::CrashMoment::AfterCharge { req } = moment {
                    claims.push(Claim::Declined {
                        req: *req,
                        by: index,
                        yes: self.facts.declined.contains(req),
                    });
                }
                vec![Sentence::all(
                    claims,
                    self.crash(tick, *moment, marks_lost, cut, *restart_ms, clock),
                )]
            }
            Fact::LostReply { reply } => self.lost_reply(index, *reply, clock),
            Fact::Late { reply } => {
                let r = &self.trace.replies[*reply];
                let mut said = vec![self.tells(index, format!(
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
                let mut said = vec![self.tells(index, format!(
                    "At {clock} attempt #{attempt} has waited {} and heard nothing. The request may have been lost, the card may have been charged with the answer lost, or the processor may still be working: from here the three look the same.",
                    duration_ms(self.cfg.timeout_ms)
                ))];
                said.extend(self.next(index, tick.intent.unwrap_or(0), *next));
                said
            }
            Fact::Deadline { layer, next } => {
                let l = &self.cfg.layers[*layer];
                let mut said = vec![self.tells(index, format!(
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
            Fact::Replayed {
                req,
                stored,
                written_by,
                from_log: false,
            } => vec![self.replayed(index, *req, stored, written_by, clock)],
            Fact::InProgress { req, until: None } => {
                let (who, key) = (self.describe(*req), self.key(*req));
                let head = format!(
                    "At {clock} the processor receives {who} while {key} is still in progress. Rather than start a second charge it answers 409"
                );
                vec![match self.facts.refused_busy.get(req) {
                    Some(&(_, super::claimed::Behind::Work(w))) => Sentence::claims(
                        Claim::WorkingOn { req: w, at: index },
                        format!(
                            "{head}: {} is still being worked on, ask again later.",
                            self.name(w)
                        ),
                    ),
                    _ => Sentence::claims(
                        Claim::NotWorking {
                            key: key.into(),
                            at: index,
                        },
                        format!(
                            "{head}, although no request with {key} is being worked on any more."
                        ),
                    ),
                }]
            }
            Fact::Rerun { path } => vec![self.rerun(index, tick, *path, clock)],
            Fact::Expired {
                key,
                kind,
                in_progress,
            } => vec![self.expired(index, tick, key, *kind, *in_progress, clock)],
            Fact::Reconcile {
                orders,
                charges,
                actions,
                ..
            } => self.reconcile(index, tick, *orders, *charges, *actions, clock),
            Fact::MarkPaid { charge } => {
                let i = tick.intent.unwrap_or(0);
                vec![
                    Sentence::claims(
                        Claim::Agrees {
                            intent: i,
                            at: index,
                        },
                        format!(
                            "At {clock} the job finds {charge} ({}) for order {}, which the shop believed {}. Its policy for such a charge is to keep it and mark the order paid, so the order and the ledger now agree.",
                            self.amount_of(tick, *charge),
                            self.order(i),
                            self.belief_before(tick, i).label()
                        ),
                    ),
                    self.never_learned(index, *charge),
                ]
            }
            _ => return None,
        })
    }

    fn pay(&self, index: usize, tick: &Tick, clock: &str) -> Vec<Sentence> {
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
        let mut said = vec![self.tells(
            index,
            format!(
                "At {clock} the customer presses Pay once for order {}{items}: {}.",
                i.order, i.amount
            ),
        )];
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
                said.push(self.tells(
                    index,
                    format!("The checkout will mint a new key for every attempt ({key} first)."),
                ));
                said.extend(self.minted_keys(intent));
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
        said.push(self.tells(index, minted));
        said
    }

    /// The processor answers a request from a completed entry: whose answer it is, and
    /// whether this is a retry of the same purchase, a copy, or another order altogether.
    fn replayed(
        &self,
        index: usize,
        req: RequestId,
        stored: &Response,
        written_by: &crate::sim::state::WrittenBy,
        clock: &str,
    ) -> Sentence {
        let (who, key) = (self.describe(req), self.key(req));
        let r = self.req(req);
        let owner = index
            .checked_sub(1)
            .and_then(|i| self.ticks.get(i))
            .and_then(|t| {
                t.state
                    .memory
                    .iter()
                    .find(|e| &*e.key == key && e.response.is_some())
            })
            .map_or(r.intent, |e| e.intent);
        let head = format!(
            "At {clock} the processor receives {who} and finds {key} completed ({written_by}). It sends back the stored answer, {}, marked as a replay, and charges nothing",
            stored.summary()
        );
        let answered = Claim::AnsweredFor {
            req,
            at: index,
            intent: owner,
        };
        if owner != r.intent {
            return Sentence::claims(
                answered,
                format!(
                    "{head}. That answer was stored for order {}: this request is another purchase, answered as if it were that one.",
                    self.order(owner)
                ),
            );
        }
        let what = if r.copy > 0 {
            "the network's copy"
        } else if r.attempt > 1 {
            "the retry"
        } else {
            "the first attempt, answered already by a later one,"
        };
        Sentence::all(
            vec![
                answered,
                Claim::IsAttempt {
                    req,
                    attempt: r.attempt,
                    copy: r.copy > 0,
                },
            ],
            format!("{head}: {what} is recognised as the same purchase."),
        )
    }

    /// An entry leaves the processor's memory: what is still kept under its key decides
    /// whether a request carrying it is now new.
    fn expired(
        &self,
        index: usize,
        tick: &Tick,
        key: &str,
        kind: EntryKind,
        in_progress: bool,
        clock: &str,
    ) -> Sentence {
        let left = tick
            .state
            .memory
            .iter()
            .filter(|e| &*e.key == key && e.expires_at.is_none_or(|t| t > tick.at))
            .count();
        let head = if in_progress {
            format!(
                "At {clock} the in-progress record for {key} reaches its expiry of {} without having been completed, and is removed.",
                self.in_progress_expiry()
            )
        } else {
            let what = match kind {
                EntryKind::BodyHash => format!("the body hash {key}"),
                _ => format!("key {key}"),
            };
            format!(
                "At {clock} the processor's retention window of {} runs out and {what} is evicted.",
                self.retention()
            )
        };
        let carrying = if kind == EntryKind::BodyHash {
            "a request with that body"
        } else {
            "a request carrying it"
        };
        let held = Claim::HeldUnder {
            key: key.to_string(),
            at: index,
            n: left,
        };
        Sentence::claims(
            held,
            match left {
                0 => format!("{head} From now on {carrying} is processed as new."),
                1 => format!(
                    "{head} Another entry under {key} is still kept, so {carrying} is not processed as new yet."
                ),
                n => format!(
                    "{head} {n} other entries under {key} are still kept, so {carrying} is not processed as new yet."
                ),
            },
        )
    }

    /// The shop's reconciliation job compares the ledger with the orders it has settled.
    fn reconcile(
        &self,
        index: usize,
        tick: &Tick,
        orders: usize,
        charges: usize,
        actions: usize,
        clock: &str,
    ) -> Vec<Sentence> {
        use crate::sim::state::Belief;
        let mut said = vec![self.tells(index, format!(
            "At {clock} the shop's reconciliation job runs. It reads the processor's ledger ({}) and sets it beside what the shop believes of {}.",
            super::plural(charges, "charge"),
            match orders {
                0 => "its orders".to_string(),
                1 if !self.several_orders() => "the order".to_string(),
                n => super::plural(n, "settled order"),
            }
        ))];
        said.push(self.tells(index, match actions {
            0 => "They agree: every order the shop believes paid has one charge, and no charge belongs to an order it does not believe paid. There is nothing to put right.".to_string(),
            1 => "They disagree, and the job has one thing to put right.".to_string(),
            n => format!("They disagree, and the job has {n} things to put right, one at a time."),
        }));
        let (mut paying, mut unplaced) = (Vec::new(), Vec::new());
        for (i, c) in tick.state.clients().iter().enumerate() {
            match c.belief {
                Belief::Waiting => paying.push(i),
                Belief::NotStarted => unplaced.push(i),
                _ => {}
            }
        }
        let names = |of: &[usize]| -> Vec<String> {
            of.iter().map(|&i| self.order(i).to_string()).collect()
        };
        if !paying.is_empty() {
            let claims = paying
                .iter()
                .map(|&intent| Claim::StillPaying { intent, at: index })
                .collect();
            said.push(Sentence::all(
                claims,
                format!(
                    "{} still being paid, so the job leaves {} alone.",
                    super::capitalise(&super::orders_phrase(&names(&paying), "is", "are")),
                    if paying.len() == 1 { "it" } else { "them" }
                ),
            ));
        }
        if !unplaced.is_empty() {
            let claims = unplaced
                .iter()
                .map(|&intent| Claim::NotPlaced { intent, at: index })
                .collect();
            said.push(Sentence::all(
                claims,
                format!(
                    "{} not placed yet, so there is nothing of {} to compare.",
                    super::capitalise(&super::orders_phrase(&names(&unplaced), "is", "are")),
                    if unplaced.len() == 1 { "it" } else { "them" }
                ),
            ));
        }
        said
    }

    /// The checkout's view of a charge the job kept: it never learns of it, told only from the
    /// whole story; it had not yet, told from the story so far.
    fn never_learned(&self, index: usize, charge: ChargeId) -> Sentence {
        match self.heard.get(&charge) {
            None if !self.cut => Sentence::claims(
                Claim::NeverHears { charge },
                "The verdict on the payment path stays as it was: the checkout itself never learned of the charge.",
            ),
            Some(&at) if at < index => Sentence::claims(
                Claim::HeardBefore { charge, by: index },
                format!(
                    "The checkout had already read an answer naming {charge}, after its run ended."
                ),
            ),
            _ => Sentence::claims(
                Claim::NotHeardBy { charge, by: index },
                "The verdict on the payment path stays as it was: the checkout had not learned of the charge.",
            ),
        }
    }

    /// What keys minted for every attempt do to the retries of `intent`, told from the
    /// whole trace: nothing before a question, where the retries are still to come.
    fn minted_keys(&self, intent: usize) -> Option<Sentence> {
        if self.cut {
            return None;
        }
        if !self.trace.design.uses_key() {
            return Some(Sentence::claims(
                Claim::ReadsKeys { yes: false },
                "This processor does not look at keys, so a new key changes nothing for it.",
            ));
        }
        // Whether each retry's key is new to this order, and to every request sent before it.
        let (own, any) = self
            .facts
            .retry_keys_new
            .get(&intent)
            .copied()
            .unwrap_or((true, true));
        let every = |any_order| Claim::EveryRetryNewKey { intent, any_order };
        if any {
            Some(Sentence::claims(
                every(true),
                "Each retry will carry a key the processor has never seen, and look like a brand-new purchase.",
            ))
        } else if own {
            Some(Sentence::claims(
                every(false),
                "Each retry will carry a key none of this order's attempts carried before.",
            ))
        } else {
            None
        }
    }

    /// The checkout sends an attempt: what it carries, and what that lets the processor see.
    fn send(&self, index: usize, req: RequestId, clock: &str) -> Vec<Sentence> {
        let r = self.req(req);
        let key_text = self.key_text(req);
        let mut said =
            vec![self.tells(index, format!(
            "At {clock} the checkout sends attempt #{}: charge {} for order {}, {key_text}.",
            r.attempt,
            r.amount,
            self.order(r.intent)
        ))];
        if r.attempt == 1 {
            said.push(self.first_wait(index, req));
            return said;
        }
        let design = self.trace.design;
        let seen = self.facts.key_carried_by.get(req).copied().flatten();
        let same_key = r.key.as_deref() == Some(&*self.cfg.intents[r.intent].key);
        let repeats = if r.key.is_some() && !same_key {
            self.first_with_same_key(req)
        } else {
            None
        };
        said.push(if same_key {
            Sentence::claims(
                Claim::IsAttempt {
                    req,
                    attempt: r.attempt,
                    copy: false,
                },
                format!(
                    "It is the same purchase and the same key as attempt #1, so a processor that remembers {key_text} can recognise it."
                ),
            )
        } else if let Some(first) = repeats {
            // A layer that mints per attempt passes its key to the retries beneath it.
            Sentence::claims(
                Claim::KeySeen { req, yes: true },
                format!(
                    "It carries {key_text}, the key of attempt #{first}, not the key of attempt #1: a processor that remembers {key_text} can recognise it as a repeat of attempt #{first}, but not of attempt #1."
                ),
            )
        } else if design == crate::sim::Design::ContentHash {
            let same = self.facts.body_sent_before.get(req).copied().unwrap_or(false);
            Sentence::all(
                vec![
                    Claim::ReadsKeys { yes: false },
                    Claim::BodySeen { req, yes: same },
                ],
                if same {
                    "This processor ignores keys and compares bodies, and this body is the same as one sent before."
                } else {
                    "This processor ignores keys and compares bodies, and no request sent before had this body."
                },
            )
        } else if !design.uses_key() {
            Sentence::claims(
                Claim::ReadsKeys { yes: false },
                "This processor keeps nothing of earlier requests, so to it this is a new purchase.",
            )
        } else if r.key.is_none() {
            Sentence::all(
                vec![
                    Claim::ReadsKeys { yes: true },
                    Claim::IsAttempt {
                        req,
                        attempt: r.attempt,
                        copy: false,
                    },
                ],
                "It carries no key, so nothing lets the processor tie this retry to an earlier attempt.",
            )
        } else if let Some(other) = seen {
            Sentence::claims(
                Claim::KeySeen { req, yes: true },
                format!(
                    "This attempt carries {key_text}, not the key of attempt #1, but {} carried it before: a processor that remembers {key_text} takes this for that request.",
                    self.name(other)
                ),
            )
        } else {
            Sentence::claims(
                Claim::KeySeen { req, yes: false },
                format!(
                    "This attempt carries {key_text}, which no request before it carried, so to the processor it is a different purchase."
                ),
            )
        });
        said
    }

    /// How long the checkout waits for the first attempt's answer: its timeout, or less when
    /// a layer's deadline ends the wait first. Before a question whose ticks do not show what
    /// ends it, the timeout alone.
    fn first_wait(&self, index: usize, req: RequestId) -> Sentence {
        let timeout = duration_ms(self.cfg.timeout_ms);
        let intent = self.req(req).intent;
        let ends = self
            .facts
            .wait_ends
            .get(&intent)
            .map_or(&[][..], Vec::as_slice);
        let end = ends
            .get(ends.partition_point(|(at, _)| *at <= index))
            .copied();
        let silence = "silence will not tell it whether the card was charged.";
        match end {
            Some((at, true)) => Sentence::claims(
                Claim::WaitCutByDeadline { req, yes: true },
                format!(
                    "Its timeout is {timeout}, but a layer's deadline ends the wait sooner, at {}; {silence}",
                    self.clock(self.ticks[at].at)
                ),
            ),
            None if self.cut => self.tells(
                index,
                format!("Its timeout for an answer is {timeout}; {silence}"),
            ),
            _ => Sentence::claims(
                Claim::WaitCutByDeadline { req, yes: false },
                format!("It will wait {timeout} for an answer; {silence}"),
            ),
        }
    }

    fn lost_reply(&self, index: usize, reply: usize, clock: &str) -> Vec<Sentence> {
        let r = &self.trace.replies[reply];
        let mut said = vec![self.tells(
            index,
            format!(
                "At {clock} the network loses the processor's answer to {} ({}).",
                self.name(r.req),
                r.response.summary()
            ),
        )];
        let made = self.charge_made_by(r.req, index);
        let attempt = "this attempt";
        said.push(match (r.response.charge, made) {
            (Some(id), _) if r.response.replayed => Sentence::claims(
                Claim::ChargeMade { charge: id, by: index },
                format!(
                    "It is a replay: {id} moved the money earlier, and this answer, which says so, will not reach the checkout. A lost answer does not mean the charge failed; it means nobody on this side knows."
                ),
            ),
            (Some(id), _) => Sentence::claims(
                Claim::ChargeMade { charge: id, by: index },
                "The money has moved, and this answer, which says so, will not reach the checkout. A lost answer does not mean the charge failed; it means nobody on this side knows.",
            ),
            (None, Some(id)) => Sentence::claims(
                Claim::AttemptCharged { req: r.req, by: index },
                format!(
                    "The answer does not name it, but {attempt} has already made {id}: the money has moved, and nobody on this side knows."
                ),
            ),
            (None, None) if r.response.is_success() => Sentence::claims(
                Claim::AttemptNotCharged { req: r.req, by: index },
                format!(
                    "The answer reports success, yet no charge made by {attempt} stands in the ledger so far; either way this answer will not reach the checkout, and on this side nobody knows how the attempt ended."
                ),
            ),
            (None, None) => Sentence::claims(
                Claim::AttemptNotCharged { req: r.req, by: index },
                format!(
                    "No money has moved for {attempt} so far, and this answer will not reach the checkout: on this side nobody knows how the attempt ended."
                ),
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
                let (via, how) = match &self.ticks[at].fact {
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
            // Told before a question, the story may stop short of the answer that names it.
            None if self.cut => return None,
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

    /// The charge attempt `req` made (it or a copy the network made of it) by tick `by`, if
    /// any: one made later is not yet in the ledger.
    fn charge_made_by(&self, req: RequestId, by: usize) -> Option<ChargeId> {
        let r = self.req(req);
        self.facts
            .charge_of_attempt
            .get(&(r.intent, r.attempt))
            .filter(|(at, _)| *at <= by)
            .map(|(_, id)| *id)
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
        // What the processor goes on to do, told as the trace has it: the handler that fails
        // on receipt never starts the charge. Told before a question, what the handler goes on
        // to do is not known yet, and the words say only that it has the request.
        let fails = self.facts.fails_before_card.contains(&req);
        let unknown_yet = self.cut && !self.facts.fate_seen.contains(&req);
        let charging = if fails || unknown_yet {
            "passes the request to its handler".to_string()
        } else {
            format!("starts charging {amount}; that takes {processing}")
        };
        let charges = if fails || unknown_yet {
            "passes the request to its handler".to_string()
        } else {
            format!("charges {amount} ({processing})")
        };
        let text = match how {
            Takes::MarkInProgress => format!(
                "At {clock} the processor receives {who}. {}, so it marks the key in progress (in memory for now) and {charging}.",
                self.unknown(key, "is new", forgotten)
            ),
            Takes::LogFirst if fails || unknown_yet => format!(
                "At {clock} the processor receives {who}. {}, so it {charges}, which is to log the key before it charges.",
                self.unknown(key, "is not in its key log", forgotten)
            ),
            Takes::LogFirst => format!(
                "At {clock} the processor receives {who}. {}, so it appends it first and means to charge {amount} after.",
                self.unknown(key, "is not in its key log", forgotten)
            ),
            Takes::ChargeUnmarked if fails || unknown_yet => format!(
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
            Takes::ChargeForgetful if unknown_yet => format!(
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
        let mut claims = vec![Claim::Tells {
            at: index,
            fact: super::claim::fact_name(&self.ticks[index].fact),
        }];
        if fails {
            claims.push(Claim::FailsBeforeCard { req });
        } else if how != Takes::LogFirst && !unknown_yet {
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
            .and_then(|i| self.ticks.get(i))
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
    /// without a final answer: a retry, or first a lookup of the key. The wait and what
    /// follows it are told as happening only when the trace has the next request go out when
    /// the wait ends, with nothing breaking it off; otherwise, and always before a question,
    /// only the policy is told, and the ticks that follow show what comes of it.
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
        let wait = duration_ms(delay_ms);
        let due = Instant(self.ticks[index].at.0.saturating_add(delay_ms));
        // The first thing the intent sends after this tick, a charge request or a lookup, if
        // it goes out when the wait is over and nothing of the order comes between.
        let sends = self.facts.sends.get(&intent).map_or(&[][..], Vec::as_slice);
        let breaks = self
            .facts
            .breaks
            .get(&intent)
            .map_or(&[][..], Vec::as_slice);
        let first_break = breaks
            .get(breaks.partition_point(|at| *at <= index))
            .copied();
        let kept = sends
            .get(sends.partition_point(|(at, _)| *at <= index))
            .filter(|(at, _)| self.ticks[*at].at == due && first_break.is_none_or(|b| b > *at))
            .map(|(_, lookup)| *lookup);
        let whose = if layer == 0 {
            "Its retry policy".to_string()
        } else {
            format!("The {} layer's retry policy", self.cfg.layers[layer].name)
        };
        let what = if layer == 0 {
            format!("attempt {n} of {of}")
        } else {
            format!(
                "the {} layer's attempt {n} of {of}",
                self.cfg.layers[layer].name
            )
        };
        let after = index;
        Some(match kept {
            Some(Some(lookup)) => Sentence::claims(
                Claim::NextIsLookup {
                    intent,
                    after,
                    at: due,
                },
                format!(
                    "It waits {wait}; then, rather than send {what} straight away, it asks the processor what it holds under {}.",
                    self.trace.lookups[lookup].key
                ),
            ),
            Some(None) if layer == 0 => Sentence::claims(
                Claim::NextIsRetry {
                    intent,
                    after,
                    at: due,
                },
                format!("It waits {wait} and tries again (attempt {n} of {of})."),
            ),
            Some(None) => Sentence::claims(
                Claim::NextIsRetry {
                    intent,
                    after,
                    at: due,
                },
                format!(
                    "The {} layer waits {wait} and starts its attempt {n} of {of}, which replays the whole budget of the layers beneath it.",
                    self.cfg.layers[layer].name,
                ),
            ),
            None => self.tells(
                index,
                format!("{whose} says to wait {wait} and then make {what}."),
            ),
        })
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
        let head = self.tells(
            index,
            format!(
                "At {clock} the checkout reads {summary} for attempt #{} of order {order}.",
                req.attempt
            ),
        );
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
            let mut said = vec![head, self.tells(index, how)];
            // A stored answer can name a charge the job has refunded since.
            if let Some(id) = response.charge
                && tick.state.refunds().iter().any(|r| r.charge == id)
            {
                said.push(Sentence::claims(
                    Claim::Refunded { charge: id, by: index },
                    format!(
                        "But {id} was refunded by the reconciliation: the order is now believed paid with no money kept for it."
                    ),
                ));
            }
            return said;
        }
        if let Some(next) = next {
            let working = self.facts.working_at.get(&index).copied().unwrap_or(false);
            let why = if response.status == 409 {
                self.why_409(index, r.req, working)
            } else {
                self.tells(index,
                    "A server error says nothing about whether the card was charged, so the checkout may retry.",
                )
            };
            let mut said = vec![head, why];
            said.extend(self.next(index, intent, next));
            return said;
        }
        vec![
            head,
            self.tells(index, format!(
                "A {} is final: the checkout stops retrying and tells the customer the payment failed.{}",
                response.status,
                self.hand_over(hand_over)
            )),
        ]
    }

    /// What a 409 the checkout reads at tick `index` means: the work it points to is still
    /// going on, it has ended since the 409 was given, or no work stood behind it even then.
    fn why_409(&self, index: usize, req: RequestId, working: bool) -> Sentence {
        let key = self.key(req);
        if working {
            return Sentence::claims(
                Claim::Working {
                    key: key.into(),
                    at: index,
                },
                "409 means the processor is still working on this key: not a failure, a reason to wait and ask again.",
            );
        }
        let not_now = Claim::NotWorking {
            key: key.into(),
            at: index,
        };
        let held = if self.trace.design == crate::sim::Design::InProgressRecord {
            "the record on disk"
        } else {
            "the key's in-progress mark"
        };
        match self.facts.refused_busy.get(&req) {
            Some(&(at, Behind::Work(w))) => Sentence::all(
                vec![Claim::WorkingOn { req: w, at }, not_now],
                format!(
                    "The 409 was true when it was given: {} was still being worked on. By the time the checkout reads it, that work has ended.",
                    self.name(w)
                ),
            ),
            Some(&(at, Behind::CutOff(crash))) => Sentence::all(
                vec![
                    Claim::WorkCutOff {
                        key: key.into(),
                        at,
                        crash,
                    },
                    not_now,
                ],
                format!(
                    "The 409 says a request with {key} is in progress, but no work stands behind it: {held} outlived the work {} ended, and it answers 409 until it expires.",
                    if crash {
                        "a crash"
                    } else {
                        "the handler's error"
                    }
                ),
            ),
            _ => Sentence::claims(
                not_now,
                format!(
                    "The 409 says a request with {key} is in progress, but no request with {key} is being worked on now."
                ),
            ),
        }
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
                    self.tells(index, format!(
                        "At {clock} the checkout reads the stored answer ({}) and sends no new charge request.",
                        response.summary()
                    )),
                    self.tells(index, whose),
                ]
            }
            Some(LookupAnswer::Found { response }) => vec![self.tells(index, format!(
                "At {clock} the checkout reads the stored answer ({}): the payment failed, and retrying would not change that.{}",
                response.summary(),
                self.hand_over(hand_over)
            ))],
            Some(LookupAnswer::InProgress) => {
                let mut said = vec![self.tells(index, format!(
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
                    None => {
                        return vec![self.tells(
                            index,
                            format!("At {clock} the checkout reads \"not found\"."),
                        )];
                    }
                };
                vec![Sentence::all(
                    vec![Claim::NextIsRetry {
                        intent: l.intent,
                        after: index,
                        at: tick.at,
                    }],
                    format!(
                        "At {clock} the checkout reads \"not found\" and sends its retry now{key}."
                    ),
                )]
            }
        }
    }
}
