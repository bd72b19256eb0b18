//! The processor under each design: what it looks up, what it writes and in which order,
//! what it answers, and what a crash leaves behind.

use super::config::{CrashPoint, FaultAction};
use super::design::Design;
use super::digest;
use super::state::{Charge, EntryKind, EntryStatus, MemoryEntry, Response};
use super::time::human_duration;
use super::trace::{Actor, Fate, Message, TickKind};
use super::world::{Event, Step, TickDraft, World, capitalise};
use std::sync::Arc;

/// The processor's decision on a request it has just received.
enum Decision {
    /// Answer now, from memory or with a refusal.
    Answer {
        kind: TickKind,
        label: String,
        narration: String,
        response: Response,
    },
    /// Take the request on as new work: the next step and how long until it.
    Work {
        narration: String,
        step: Step,
        after_ms: u64,
    },
}

fn response(status: u16, body: &str, charge: Option<String>) -> Response {
    Response {
        status,
        body: body.to_string(),
        charge,
        replayed: false,
    }
}

impl World<'_> {
    /// How long the processor spends on an attempt: the scenario's default unless slowed.
    pub(super) fn processing_for(&self, intent: usize, attempt: u32) -> u64 {
        self.faults_for(intent, attempt)
            .find_map(|(_, f)| match f.action {
                FaultAction::Slow { processing_ms } => Some(processing_ms),
                _ => None,
            })
            .unwrap_or(self.cfg.processing_ms)
    }

    fn declined(&self, req: usize) -> bool {
        let r = &self.requests[req];
        self.faults_for(r.intent, r.attempt)
            .any(|(_, f)| f.action == FaultAction::Decline)
    }

    /// The live entry of this kind under this key (expired entries are already forgotten).
    fn find(&self, kind: EntryKind, key: &str) -> Option<&MemoryEntry> {
        self.memory
            .iter()
            .find(|e| e.kind == kind && e.key == key && e.expires_at.is_none_or(|t| t > self.now))
            .map(|e| &**e)
    }

    /// Writes a key log line or a body hash to disk, kept for the retention window.
    fn remember_on_disk(
        &mut self,
        kind: EntryKind,
        key: String,
        response: Response,
        written_by: String,
        intent: usize,
    ) {
        let now = self.now;
        // An entry past its expiry whose eviction is still pending gives way to the new one.
        if let Some(stale) = self
            .memory
            .iter()
            .position(|e| e.kind == kind && e.key == key && e.expires_at.is_some_and(|t| t <= now))
        {
            self.memory.remove(stale);
            self.counters.keys_evicted += 1;
        }
        let expiry = now.plus(self.cfg.retention_ms);
        self.schedule(
            expiry,
            Event::Expire {
                key: key.clone(),
                at: expiry,
            },
        );
        let status = match kind {
            EntryKind::LogEntry => EntryStatus::Logged,
            _ => EntryStatus::Completed,
        };
        self.memory.push_back(Arc::new(MemoryEntry {
            key,
            kind,
            status,
            fingerprint: None,
            response: Some(response),
            expires_at: Some(expiry),
            written_by,
            intent,
        }));
        self.counters.keys_stored += 1;
    }

    /// `K7Q4 is new`, or, for a key the retention window evicted, that it was forgotten.
    fn unknown_key(&self, key: &str, usual: &str) -> String {
        match self.evicted.get(key) {
            Some(&at) => format!(
                "{key} was forgotten when its retention window of {} ran out at {}, which makes it new again",
                human_duration(self.cfg.retention_ms),
                self.cfg.clock.format_short(at)
            ),
            None => format!("{key} {usual}"),
        }
    }

    fn describe(&self, req: usize) -> String {
        let r = &self.requests[req];
        let key = r
            .key
            .as_deref()
            .map_or("no key".to_string(), |k| format!("key {k}"));
        let copy = if r.copy > 0 {
            ", a second copy the network delivered"
        } else {
            ""
        };
        format!(
            "{} ({}, {key}{copy})",
            self.attempt_name(r.intent, r.attempt),
            r.amount
        )
    }

    pub(super) fn on_arrive(&mut self, req: usize) {
        self.land(super::config::Direction::Request, req);
        let (intent, attempt) = (self.requests[req].intent, self.requests[req].attempt);
        let who = self.describe(req);
        if !self.processor_up {
            let narration = format!(
                "At {} {who} reaches the processor while it is down after its crash. Nobody is there to read it or answer it.",
                self.clock()
            );
            let label = format!(
                "{} arrives: processor down",
                self.attempt_tag(intent, attempt)
            );
            let message = Message {
                from: Actor::Checkout,
                to: Actor::Processor,
                label: label.clone(),
                fate: Fate::Unanswered,
            };
            self.record(
                TickDraft::new(Actor::Processor, TickKind::Unanswered, label, narration)
                    .message(message)
                    .of(intent, Some(attempt)),
            );
            return;
        }
        self.counters.requests_received += 1;
        if let Some(restart) = self.take_crash(req, CrashPoint::Receive) {
            let narration = format!(
                "At {} the processor receives {who}, and crashes at once, before it has looked anything up or charged anything.",
                self.clock()
            );
            self.record(
                TickDraft::new(
                    Actor::Processor,
                    TickKind::Receive,
                    format!("receives {}", self.attempt_tag(intent, attempt)),
                    narration,
                )
                .of(intent, Some(attempt)),
            );
            let name = self.attempt_name(intent, attempt);
            self.crash(restart, format!("right after receiving {name}"));
            return;
        }
        match self.decide(req) {
            Decision::Answer {
                kind,
                label,
                narration,
                response,
            } => {
                self.requests[req].response = Some(response.clone());
                self.transmit_reply(req, response.clone());
                self.record(
                    TickDraft::new(Actor::Processor, kind, label, narration)
                        .message(Message {
                            from: Actor::Processor,
                            to: Actor::Checkout,
                            label: response.summary(),
                            fate: Fate::Sent,
                        })
                        .of(intent, Some(attempt)),
                );
                self.after_reply(req);
            }
            Decision::Work {
                narration,
                step,
                after_ms,
            } => {
                self.record(
                    TickDraft::new(
                        Actor::Processor,
                        TickKind::Receive,
                        format!("receives {}", self.attempt_tag(intent, attempt)),
                        narration,
                    )
                    .of(intent, Some(attempt)),
                );
                self.next_step(req, step, after_ms);
            }
        }
    }

    fn decide(&mut self, req: usize) -> Decision {
        let r = self.requests[req].clone();
        let who = self.describe(req);
        let clock = self.clock();
        let processing = human_duration(r.processing_ms);
        let tag = self.attempt_tag(r.intent, r.attempt);
        let at = |e: &MemoryEntry| e.written_by.clone();
        match self.design {
            Design::WithCharge => {
                let Some(key) = r.key.clone() else {
                    return Decision::Answer {
                        kind: TickKind::Reject,
                        label: format!("{tag} refused: 400 no key"),
                        narration: format!(
                            "At {clock} the processor receives {who}. This design will not charge without an idempotency key, so it refuses with 400 and nothing is charged."
                        ),
                        response: response(400, "idempotency key required", None),
                    };
                };
                let fp = digest::short(r.fingerprint);
                if let Some(e) = self.find(super::state::EntryKind::KeyRecord, &key) {
                    if e.fingerprint.as_deref() != Some(fp.as_str()) {
                        let first = e.fingerprint.clone().unwrap_or_default();
                        self.counters.mismatches_422 += 1;
                        return Decision::Answer {
                            kind: TickKind::Mismatch,
                            label: format!("{tag}: 422 key {key} reused"),
                            narration: format!(
                                "At {clock} the processor receives {who}. {key} is known, but for a different request (fingerprint {first}, this one {fp}). Reusing a key for another payment is a client bug, so it refuses with 422 and charges nothing."
                            ),
                            response: response(422, "key reused for another request", None),
                        };
                    }
                    if e.status == EntryStatus::Completed {
                        let mut stored = e
                            .response
                            .clone()
                            .unwrap_or_else(|| response(200, "ok", None));
                        let written = at(e);
                        stored.replayed = true;
                        self.counters.dedupe_hits += 1;
                        return Decision::Answer {
                            kind: TickKind::Replay,
                            label: format!("{tag}: replays {key}"),
                            narration: format!(
                                "At {clock} the processor receives {who} and finds {key} completed ({written}). It sends back the stored answer, {}, marked as a replay, and charges nothing: the retry is recognised as the same purchase.",
                                stored.summary()
                            ),
                            response: stored,
                        };
                    }
                    self.counters.conflicts_409 += 1;
                    return Decision::Answer {
                        kind: TickKind::Conflict,
                        label: format!("{tag}: 409 {key} in progress"),
                        narration: format!(
                            "At {clock} the processor receives {who} while {key} is still in progress. Rather than start a second charge it answers 409: the first attempt is still being worked on, ask again later."
                        ),
                        response: response(409, "key in progress", None),
                    };
                }
                let new = self.unknown_key(&key, "is new");
                // The in-progress mark is held in memory only: it is not a stored key yet.
                self.memory.push_back(Arc::new(MemoryEntry {
                    key: key.clone(),
                    kind: EntryKind::KeyRecord,
                    status: EntryStatus::InProgress,
                    fingerprint: Some(fp),
                    response: None,
                    expires_at: None,
                    written_by: format!("attempt #{}, in memory", r.attempt),
                    intent: r.intent,
                }));
                Decision::Work {
                    narration: format!(
                        "At {clock} the processor receives {who}. {new}, so it marks the key in progress (in memory for now) and starts charging {}; that takes {processing}.",
                        r.amount
                    ),
                    step: Step::Commit,
                    after_ms: r.processing_ms,
                }
            }
            Design::LogAfterCharge | Design::LogBeforeCharge => {
                if let Some(key) = r.key.clone() {
                    if let Some(e) = self.find(EntryKind::LogEntry, &key) {
                        let mut stored = e
                            .response
                            .clone()
                            .unwrap_or_else(|| response(200, "ok", None));
                        let written = at(e);
                        stored.replayed = true;
                        self.counters.dedupe_hits += 1;
                        let caveat = if self.design == Design::LogBeforeCharge {
                            "It reports success without checking that a charge exists."
                        } else {
                            "It does not check that this request matches the one that wrote the line."
                        };
                        return Decision::Answer {
                            kind: TickKind::Replay,
                            label: format!("{tag}: {key} found in log"),
                            narration: format!(
                                "At {clock} the processor receives {who}, finds {key} in its key log ({written}) and sends back what the log holds, {}. {caveat}",
                                stored.summary()
                            ),
                            response: stored,
                        };
                    }
                    let absent = self.unknown_key(&key, "is not in its key log");
                    if self.design == Design::LogBeforeCharge {
                        return Decision::Work {
                            narration: format!(
                                "At {clock} the processor receives {who}. {absent}, so it appends it first and means to charge {} after.",
                                r.amount
                            ),
                            step: Step::KeyLog,
                            after_ms: 0,
                        };
                    }
                    return Decision::Work {
                        narration: format!(
                            "At {clock} the processor receives {who}. {absent}, so it starts charging {} ({processing}). Nothing marks the key as in progress: a retry arriving meanwhile would be charged too.",
                            r.amount
                        ),
                        step: Step::Charge,
                        after_ms: r.processing_ms,
                    };
                }
                Decision::Work {
                    narration: format!(
                        "At {clock} the processor receives {who}. With no key there is nothing to look up, so it simply charges {} ({processing}).",
                        r.amount
                    ),
                    step: Step::Charge,
                    after_ms: r.processing_ms,
                }
            }
            Design::NoKey => Decision::Work {
                narration: format!(
                    "At {clock} the processor receives {who}. It keeps no memory of earlier requests, so it charges {} as a new payment ({processing}).",
                    r.amount
                ),
                step: Step::Charge,
                after_ms: r.processing_ms,
            },
            Design::ContentHash => {
                let hash = digest::short(r.content);
                if let Some(e) = self.find(EntryKind::BodyHash, &hash) {
                    let written = at(e);
                    self.counters.dedupe_hits += 1;
                    return Decision::Answer {
                        kind: TickKind::Reject,
                        label: format!("{tag}: 400 duplicate body"),
                        narration: format!(
                            "At {clock} the processor receives {who}. Its body hashes to {hash}, the same as a charge already made ({written}), so it refuses with 400 duplicate request. That is an error, not a replay: a checkout that reads it stops and takes the payment as failed."
                        ),
                        response: response(400, "duplicate request", None),
                    };
                }
                Decision::Work {
                    narration: format!(
                        "At {clock} the processor receives {who}. {}, so it charges {} ({processing}).",
                        self.unknown_key(&hash, "matches no body it remembers charging"),
                        r.amount
                    ),
                    step: Step::Charge,
                    after_ms: r.processing_ms,
                }
            }
        }
    }

    pub(super) fn on_step(&mut self, req: usize, step: Step, incarnation: u32) {
        if incarnation != self.incarnation {
            // The work was in memory when the processor crashed: it will never finish.
            return;
        }
        self.requests[req].pending = None;
        match step {
            Step::Commit => self.commit(req),
            Step::Charge => self.charge(req),
            Step::KeyLog => self.key_log(req),
            Step::Reply => self.reply(req),
        }
    }

    /// Moves the money unless the card is declined; returns the answer to send.
    fn move_money(&mut self, req: usize) -> (Response, Option<String>) {
        if self.declined(req) {
            return (response(402, "card declined", None), None);
        }
        let r = &self.requests[req];
        let id = format!("ch_{}", self.ledger.len() + 1);
        let charge = Charge {
            id: id.clone(),
            amount: r.amount,
            key: r.key.clone(),
            order: self.cfg.intents[r.intent].order.clone(),
            intent: r.intent,
            attempt: r.attempt,
            at: self.now,
        };
        self.ledger.push_back(Arc::new(charge));
        (
            response(200, &format!("charged {id}"), Some(id.clone())),
            Some(id),
        )
    }

    fn next_step(&mut self, req: usize, step: Step, after_ms: u64) {
        self.requests[req].pending = Some(step);
        let incarnation = self.incarnation;
        self.schedule_in(
            after_ms,
            Event::Step {
                req,
                step,
                incarnation,
            },
        );
    }

    fn commit(&mut self, req: usize) {
        let (resp, id) = self.move_money(req);
        let r = self.requests[req].clone();
        let key = r.key.clone().unwrap_or_default();
        let expiry = self.now.plus(self.cfg.retention_ms);
        let what = match &id {
            Some(id) => format!("with {id}"),
            None => "with the decline".to_string(),
        };
        let held = self.memory.iter().position(|e| {
            e.kind == EntryKind::KeyRecord && e.key == key && e.status == EntryStatus::InProgress
        });
        if let Some(e) = held.and_then(|i| self.memory.get_mut(i)).map(Arc::make_mut) {
            e.status = EntryStatus::Completed;
            e.response = Some(resp.clone());
            e.expires_at = Some(expiry);
            e.written_by = format!("attempt #{}, one write {what}", r.attempt);
            self.counters.keys_stored += 1;
            self.schedule(
                expiry,
                Event::Expire {
                    key: key.clone(),
                    at: expiry,
                },
            );
        }
        self.requests[req].response = Some(resp.clone());
        let clock = self.clock();
        let narration = match &id {
            Some(id) => format!(
                "At {clock} the processor charges {} as {id} and, in the same atomic write, stores {key} as completed with its answer ({}) and the request's fingerprint, kept for a retention window of {}. Either both exist or neither does.",
                r.amount,
                resp.summary(),
                human_duration(self.cfg.retention_ms)
            ),
            None => format!(
                "At {clock} the card is declined. The processor stores {key} as completed with the 402 answer, so while the key is kept a retry carrying it gets the same refusal rather than a second try at the card."
            ),
        };
        let label = match &id {
            Some(id) => format!("{id} + {key} in one write"),
            None => format!("402 declined, {key} stored"),
        };
        let kind = if id.is_some() {
            TickKind::Charge
        } else {
            TickKind::Decline
        };
        self.record(
            TickDraft::new(Actor::Processor, kind, label, narration).of(r.intent, Some(r.attempt)),
        );
        let crash = self
            .take_crash(req, CrashPoint::Key)
            .or_else(|| self.take_crash(req, CrashPoint::Charge));
        match crash {
            Some(restart) => self.crash(
                restart,
                format!(
                    "right after the write for attempt #{}, before it can answer",
                    r.attempt
                ),
            ),
            None => self.next_step(req, Step::Reply, 0),
        }
    }

    fn charge(&mut self, req: usize) {
        let (resp, id) = self.move_money(req);
        let r = self.requests[req].clone();
        self.requests[req].response = Some(resp.clone());
        let clock = self.clock();
        let mut extra = String::new();
        if self.design == Design::ContentHash && id.is_some() {
            let hash = digest::short(r.content);
            let written_by = format!(
                "attempt #{}, with {}",
                r.attempt,
                id.clone().unwrap_or_default()
            );
            self.remember_on_disk(
                EntryKind::BodyHash,
                hash.clone(),
                resp.clone(),
                written_by,
                r.intent,
            );
            extra = format!(
                " It remembers the body hash {hash} for {}.",
                human_duration(self.cfg.retention_ms)
            );
        }
        let (kind, label, narration) = match &id {
            Some(id) => (
                TickKind::Charge,
                format!("charges {id} {}", r.amount),
                format!(
                    "At {clock} the processor charges {} to the card for order {}: {id} is in the ledger and the money has moved.{extra}",
                    r.amount, self.cfg.intents[r.intent].order
                ),
            ),
            None => (
                TickKind::Decline,
                "card declined".to_string(),
                format!(
                    "At {clock} the card is declined: no money moves, and the answer it prepares is 402."
                ),
            ),
        };
        self.record(
            TickDraft::new(Actor::Processor, kind, label, narration).of(r.intent, Some(r.attempt)),
        );
        if let Some(restart) = self.take_crash(req, CrashPoint::Charge) {
            let why = format!(
                "right after charging {}, before it can answer",
                self.attempt_name(r.intent, r.attempt)
            );
            self.crash(restart, why);
            return;
        }
        self.next_step(req, Step::Reply, 0);
    }

    fn key_log(&mut self, req: usize) {
        let r = self.requests[req].clone();
        let key = r.key.clone().unwrap_or_default();
        let before = self.design == Design::LogBeforeCharge;
        let held = if before {
            response(200, "approved", None)
        } else {
            r.response
                .clone()
                .unwrap_or_else(|| response(200, "ok", None))
        };
        let written_by = format!(
            "attempt #{}, {} the charge",
            r.attempt,
            if before { "before" } else { "after" }
        );
        self.remember_on_disk(
            EntryKind::LogEntry,
            key.clone(),
            held.clone(),
            written_by,
            r.intent,
        );
        let clock = self.clock();
        let narration = if before {
            format!(
                "At {clock} the processor appends {key} to its key log with the answer it means to give ({}), before any money has moved. Should it crash now, the log would claim a payment that was not made.",
                held.summary()
            )
        } else {
            let earlier: Vec<String> = self
                .orphans
                .iter()
                .filter(|(k, _, _)| *k == key)
                .map(|(_, a, id)| format!("{id} (attempt #{a})"))
                .collect();
            let lesson = if earlier.is_empty() {
                "A crash between the charge and this line would leave a charge with no memory of its key.".to_string()
            } else {
                format!(
                    "The line is for this attempt's charge; {} stays in the ledger with no line of its own, because a crash came between its charge and its log write.",
                    earlier.join(" and ")
                )
            };
            format!(
                "At {clock} the answer has left, and only now does the processor append {key} and that answer ({}) to its key log: a second write, separate from the charge. {lesson}",
                held.summary()
            )
        };
        self.record(
            TickDraft::new(
                Actor::Processor,
                TickKind::KeyWrite,
                format!("logs {key}"),
                narration,
            )
            .of(r.intent, Some(r.attempt)),
        );
        if let Some(restart) = self.take_crash(req, CrashPoint::Key) {
            let why = if before {
                format!("right after logging {key}, before charging the card")
            } else {
                format!("right after logging {key}")
            };
            self.crash(restart, why);
            return;
        }
        if before {
            self.next_step(req, Step::Charge, r.processing_ms);
        }
    }

    fn reply(&mut self, req: usize) {
        let r = self.requests[req].clone();
        let resp = r
            .response
            .clone()
            .unwrap_or_else(|| response(200, "ok", None));
        let narration = format!(
            "At {} the processor sends its answer to attempt #{}: {}.",
            self.clock(),
            r.attempt,
            resp.summary()
        );
        self.transmit_reply(req, resp.clone());
        self.record(
            TickDraft::new(
                Actor::Processor,
                TickKind::Reply,
                format!(
                    "answers {}: {}",
                    self.attempt_tag(r.intent, r.attempt),
                    resp.summary()
                ),
                narration,
            )
            .message(Message {
                from: Actor::Processor,
                to: Actor::Checkout,
                label: resp.summary(),
                fate: Fate::Sent,
            })
            .of(r.intent, Some(r.attempt)),
        );
        // The after-response hook: the key reaches the log only once the answer has left.
        // Scheduled before a crash after the reply can strike, so that crash cuts it off.
        let logs_after = self.design == Design::LogAfterCharge && r.key.is_some();
        if logs_after {
            self.next_step(req, Step::KeyLog, 0);
        }
        self.after_reply(req);
    }

    /// After an answer leaves: put it on the wire, say which planned crash never came, and
    /// crash now if the scenario asks for a crash after the reply.
    fn after_reply(&mut self, req: usize) {
        let (intent, attempt) = (self.requests[req].intent, self.requests[req].attempt);
        // Another copy of this attempt may still reach the planned step: only once every
        // copy has been answered is a crash that never came worth a word.
        // (A network copy is filed right after its original.)
        let copies_pending = [req.wrapping_sub(1), req + 1].iter().any(|&i| {
            self.requests
                .get(i)
                .is_some_and(|r| r.intent == intent && r.attempt == attempt && r.response.is_none())
        });
        let key_less = !self.design.uses_key() || self.requests[req].key.is_none();
        // Under log-after-charge the key is still to be written once the answer has left.
        let key_ahead = self.requests[req].pending == Some(Step::KeyLog);
        let mut notes = Vec::new();
        let pending: Vec<(usize, CrashPoint)> = self
            .faults_for(intent, attempt)
            .filter(|_| !copies_pending)
            .filter_map(|(i, f)| match f.action {
                FaultAction::Crash { after, .. }
                    if after != CrashPoint::Reply
                        && !(after == CrashPoint::Key && key_ahead)
                        && !self.fault_fired[i] =>
                {
                    Some((i, after))
                }
                _ => None,
            })
            .collect();
        for (i, point) in pending {
            self.fault_fired[i] = true;
            notes.push(if point == CrashPoint::Key && key_less {
                format!(
                    " The scenario plans a crash after the key is written on attempt #{attempt}, but this processor writes no key, so it never reaches that point."
                )
            } else {
                format!(
                    " The crash the scenario plans after the {} step of attempt #{attempt} never comes: this answer did not go through that step.",
                    point.id()
                )
            });
        }
        if let Some(last) = self.ticks.last_mut() {
            for n in notes {
                last.narration.push_str(&n);
            }
        }
        if let Some(restart) = self.take_crash(req, CrashPoint::Reply) {
            let name = self.attempt_name(intent, attempt);
            self.crash(restart, format!("right after answering {name}"));
        }
    }

    fn crash(&mut self, restart_after_ms: u64, why: String) {
        self.processor_up = false;
        self.incarnation += 1;
        let lost: Vec<String> = self
            .memory
            .iter()
            .filter(|e| !e.durable())
            .map(|e| e.key.clone())
            .collect();
        if !lost.is_empty() {
            self.memory.retain(|e| e.durable());
        }
        let cut = self.cut_off_work();
        self.schedule_in(restart_after_ms, Event::Restart);
        let lost_text = if lost.is_empty() {
            String::new()
        } else {
            format!(
                " The in-progress mark for {} was only in memory and is gone.",
                lost.join(", ")
            )
        };
        let cut_text: String = cut.iter().map(|c| format!(" {}", c.at_crash)).collect();
        let narration = format!(
            "At {} the processor crashes {why}. Its disk survives: {} in the ledger, {} remembered.{lost_text}{cut_text} It restarts in {}.",
            self.clock(),
            plural(self.ledger.len(), "charge"),
            plural(self.memory.len(), "entry"),
            human_duration(restart_after_ms)
        );
        self.interrupted = cut.into_iter().map(|c| c.after_restart).collect();
        self.record(TickDraft::new(
            Actor::Processor,
            TickKind::Crash,
            "crashes".to_string(),
            narration,
        ));
    }

    /// The steps the processor had scheduled but not taken: a crash wipes them, and each is
    /// described as it stands at the crash and once the processor is back.
    fn cut_off_work(&mut self) -> Vec<CutWork> {
        let mut cut = Vec::new();
        for i in 0..self.requests.len() {
            let Some(step) = self.requests[i].pending.take() else {
                continue;
            };
            let r = &self.requests[i];
            let attempt = r.attempt;
            let key = r.key.clone().unwrap_or_default();
            let charge = r.response.as_ref().and_then(|resp| resp.charge.clone());
            let name = self.attempt_name(r.intent, attempt);
            let sentence = capitalise(&name);
            cut.push(match (step, charge) {
                (Step::KeyLog, Some(id)) => {
                    self.orphans.push((key.clone(), attempt, id.clone()));
                    CutWork {
                        at_crash: format!(
                            "{id} is in the ledger and its answer has left, but {key} had not reached the key log: the disk now holds a charge with no memory of its key."
                        ),
                        after_restart: format!(
                            "It does not go back to log {key}: nothing on disk says {id} was made for it."
                        ),
                    }
                }
                (Step::KeyLog, None) => CutWork {
                    at_crash: format!("{key} had not reached the key log."),
                    after_restart: format!("It does not go back to log {key}."),
                },
                (Step::Reply, Some(id)) if self.design == Design::LogAfterCharge && r.key.is_some() => {
                    self.orphans.push((key.clone(), attempt, id.clone()));
                    CutWork {
                        at_crash: format!(
                            "{id} is in the ledger, but no answer went out for {name} and {key} had not reached the key log."
                        ),
                        after_restart: format!(
                            "It does not resume {name}: that attempt gets no answer, and nothing on disk ties {id} to {key}."
                        ),
                    }
                }
                (Step::Reply, _) => CutWork {
                    at_crash: format!("No answer had gone out for {name}."),
                    after_restart: format!(
                        "It does not resume {name}: that attempt gets no answer."
                    ),
                },
                (Step::Commit | Step::Charge, _) => CutWork {
                    at_crash: format!(
                        "{sentence} had not been charged yet, and that work is gone."
                    ),
                    after_restart: format!(
                        "It does not pick up the work on {name}: that request gets no answer."
                    ),
                },
            });
        }
        cut
    }

    pub(super) fn on_restart(&mut self) {
        self.processor_up = true;
        let interrupted: String = std::mem::take(&mut self.interrupted)
            .iter()
            .map(|t| format!(" {t}"))
            .collect();
        let narration = format!(
            "At {} the processor is back. What was on disk is intact.{interrupted}",
            self.clock()
        );
        self.record(TickDraft::new(
            Actor::Processor,
            TickKind::Restart,
            "restarts".to_string(),
            narration,
        ));
    }

    pub(super) fn on_expire(&mut self, key: String, at: super::time::Instant) {
        let Some(pos) = self
            .memory
            .iter()
            .position(|e| e.key == key && e.expires_at == Some(at))
        else {
            return;
        };
        let entry = self.memory.remove(pos);
        self.counters.keys_evicted += 1;
        self.evicted.insert(key.clone(), self.now);
        let what = match entry.kind {
            EntryKind::BodyHash => format!("the body hash {key}"),
            _ => format!("key {key}"),
        };
        let narration = format!(
            "At {} the processor's retention window of {} runs out and {what} is evicted. From now on a request carrying it is processed as new.",
            self.clock(),
            human_duration(self.cfg.retention_ms)
        );
        self.record(
            TickDraft::new(
                Actor::Processor,
                TickKind::Expire,
                format!("{key} expires"),
                narration,
            )
            .of(entry.intent, None),
        );
    }
}

/// A step a crash wiped out, told at the crash and again at the restart.
struct CutWork {
    at_crash: String,
    after_restart: String,
}

fn plural(n: usize, word: &str) -> String {
    match (n, word) {
        (1, _) => format!("1 {word}"),
        (_, "entry") => format!("{n} entries"),
        _ => format!("{n} {word}s"),
    }
}
