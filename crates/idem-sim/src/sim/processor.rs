//! The processor under each design: what it looks up, what it writes and in which order,
//! what it answers, and what a crash leaves behind. It records facts; the words are written
//! from them at the edge.

use super::config::{CrashPoint, FailPoint, FaultAction};
use super::design::Design;
use super::fact::{CrashMoment, Cut, CutStep, Fact, MissedCrash, Refusal, Takes};
use super::state::{
    Body, Charge, ChargeId, Digest, EntryKind, EntryStatus, Key, MemoryEntry, Response, Write,
    WrittenBy,
};
use super::trace::{Actor, Fate, Message, TickKind};
use super::world::{Event, Step, TickDraft, World};
use std::sync::Arc;

/// The processor's decision on a request it has just received.
enum Decision {
    /// Answer now, from memory or with a refusal.
    Answer {
        kind: TickKind,
        fact: Fact,
        response: Response,
    },
    /// Take the request on as new work: the next step and how long until it.
    Work {
        how: Takes,
        step: Step,
        after_ms: u64,
    },
}

/// The answer a success leaves when nothing more specific was prepared.
const OK: Response = Response {
    status: 200,
    body: Body::Ok,
    charge: None,
    replayed: false,
};

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

    /// Whether the scenario makes the handler fail at `point` on this request's attempt.
    fn fails(&self, req: usize, point: FailPoint) -> bool {
        let r = &self.requests[req];
        self.faults_for(r.intent, r.attempt)
            .any(|(_, f)| f.action == FaultAction::Fail { after: point })
    }

    fn declined(&self, req: usize) -> bool {
        let r = &self.requests[req];
        self.faults_for(r.intent, r.attempt)
            .any(|(_, f)| f.action == FaultAction::Decline)
    }

    /// The live entry of this kind under this key (expired entries are already forgotten).
    pub(super) fn find(&self, kind: EntryKind, key: &str) -> Option<&MemoryEntry> {
        self.memory
            .iter()
            .find(|e| e.kind == kind && &*e.key == key && e.expires_at.is_none_or(|t| t > self.now))
            .map(|e| &**e)
    }

    /// Writes a key log line or a body hash to disk, kept for the retention window.
    fn remember_on_disk(
        &mut self,
        kind: EntryKind,
        key: Key,
        response: Response,
        written_by: WrittenBy,
        intent: usize,
    ) {
        let now = self.now;
        // An entry past its expiry whose eviction is still pending gives way to the new one.
        if let Some(stale) = self
            .memory
            .iter()
            .position(|e| e.kind == kind && e.key == key && e.expires_at.is_some_and(|t| t <= now))
        {
            self.memory_mut().remove(stale);
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
        self.memory_mut().push_back(Arc::new(MemoryEntry {
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

    pub(super) fn on_arrive(&mut self, req: usize) {
        self.land(super::config::Direction::Request, req);
        let (intent, attempt) = (self.requests[req].intent, self.requests[req].attempt);
        if !self.processor_up {
            let message = Message {
                from: Actor::Checkout,
                to: Actor::Processor,
                fate: Fate::Unanswered,
            };
            self.record(
                TickDraft::new(
                    Actor::Processor,
                    TickKind::Unanswered,
                    Fact::ArrivesDown { req },
                )
                .message(message)
                .of(intent, Some(attempt)),
            );
            return;
        }
        self.counters.requests_received += 1;
        if let Some(restart) = self.take_crash(req, CrashPoint::Receive) {
            self.record(
                TickDraft::new(
                    Actor::Processor,
                    TickKind::Receive,
                    Fact::ReceivedThenCrash { req },
                )
                .of(intent, Some(attempt)),
            );
            self.crash(restart, CrashMoment::AfterReceive { req });
            return;
        }
        match self.decide(req) {
            Decision::Answer {
                kind,
                fact,
                response,
            } => {
                self.requests[req].response = Some(response);
                self.transmit_reply(req, response);
                self.record_answer(kind, fact, intent, attempt);
                self.after_reply(req);
            }
            Decision::Work {
                how,
                step,
                after_ms,
            } => {
                let forgotten = self.forgotten(req, how);
                let fact = Fact::Takes {
                    req,
                    how,
                    forgotten,
                };
                self.record(
                    TickDraft::new(Actor::Processor, TickKind::Receive, fact)
                        .of(intent, Some(attempt)),
                );
                if self.fails(req, FailPoint::Receive) {
                    self.handler_error(req, FailPoint::Receive);
                    return;
                }
                self.next_step(req, step, after_ms);
            }
        }
    }

    /// When the key (or body hash) a request is looked up by was evicted, if it was.
    fn forgotten(&self, req: usize, how: Takes) -> Option<super::time::Instant> {
        let r = &self.requests[req];
        if self.evicted.is_empty() {
            return None;
        }
        match how {
            Takes::ChargeNewBody => self.evicted.get(Digest(r.content).hex().as_str()).copied(),
            Takes::MarkInProgress
            | Takes::LogFirst
            | Takes::ChargeUnmarked
            | Takes::WriteInProgress { .. } => self.evicted.get(r.key.as_deref()?).copied(),
            Takes::ChargeWithoutKey | Takes::ChargeForgetful => None,
        }
    }

    /// The rules of each design for a request that has just arrived: answer from memory,
    /// refuse, or take it on as new work.
    fn decide(&mut self, req: usize) -> Decision {
        let r = &self.requests[req];
        let (key, processing) = (r.key.clone(), r.processing_ms);
        let work = |how, step, after_ms| Decision::Work {
            how,
            step,
            after_ms,
        };
        match (self.design, key) {
            (Design::WithCharge | Design::InProgressRecord, None) => {
                self.counters.refusals_400 += 1;
                Decision::Answer {
                    kind: TickKind::Reject,
                    fact: Fact::Refused {
                        req,
                        why: Refusal::NoKey,
                    },
                    response: Response::new(400, Body::KeyRequired),
                }
            }
            (Design::WithCharge, Some(key)) => self.with_charge(req, key),
            (Design::InProgressRecord, Some(key)) => self.in_progress_record(req, key),
            (Design::LogAfterCharge | Design::LogBeforeCharge, Some(key)) => {
                if let Some(e) = self.find(EntryKind::LogEntry, &key) {
                    let (stored, written_by) = (e.response, e.written_by);
                    return self.replay(req, stored, written_by, true);
                }
                if self.design == Design::LogBeforeCharge {
                    work(Takes::LogFirst, Step::KeyLog, 0)
                } else {
                    work(Takes::ChargeUnmarked, Step::Charge, processing)
                }
            }
            (Design::LogAfterCharge | Design::LogBeforeCharge, None) => {
                work(Takes::ChargeWithoutKey, Step::Charge, processing)
            }
            (Design::NoKey, _) => work(Takes::ChargeForgetful, Step::Charge, processing),
            (Design::ContentHash, _) => {
                let hash = Digest(self.requests[req].content).hex();
                let Some(e) = self.find(EntryKind::BodyHash, hash.as_str()) else {
                    return work(Takes::ChargeNewBody, Step::Charge, processing);
                };
                let written_by = e.written_by;
                // A refusal, not an answer from memory: the checkout that reads it stops.
                self.counters.refusals_400 += 1;
                Decision::Answer {
                    kind: TickKind::Reject,
                    fact: Fact::Refused {
                        req,
                        why: Refusal::DuplicateBody { written_by },
                    },
                    response: Response::new(400, Body::DuplicateRequest),
                }
            }
        }
    }

    /// `with-charge`: a known key with another fingerprint is refused, a completed one
    /// replayed, one in progress answered 409; a new key is marked in progress, in memory.
    fn with_charge(&mut self, req: usize, key: Key) -> Decision {
        let r = &self.requests[req];
        let fp = Digest(r.fingerprint);
        let (intent, attempt, processing) = (r.intent, r.attempt, r.processing_ms);
        let found = self
            .find(EntryKind::KeyRecord, &key)
            .map(|e| (e.fingerprint, e.status, e.response, e.written_by));
        let Some((fingerprint, status, stored, written_by)) = found else {
            // The in-progress mark is held in memory only, but while it stands it is an entry
            // of the store like any other: counted as stored now, evicted if a crash loses it.
            self.counters.keys_stored += 1;
            self.memory_mut().push_back(Arc::new(MemoryEntry {
                key,
                kind: EntryKind::KeyRecord,
                status: EntryStatus::InProgress,
                fingerprint: Some(fp),
                response: None,
                expires_at: None,
                written_by: WrittenBy {
                    attempt,
                    how: Write::InMemory,
                },
                intent,
            }));
            return Decision::Work {
                how: Takes::MarkInProgress,
                step: Step::Commit,
                after_ms: processing,
            };
        };
        if fingerprint != Some(fp) {
            self.counters.mismatches_422 += 1;
            return Decision::Answer {
                kind: TickKind::Mismatch,
                fact: Fact::Mismatch {
                    req,
                    first: fingerprint.unwrap_or(Digest(0)),
                    this: fp,
                },
                response: Response::new(422, Body::KeyReused),
            };
        }
        if status == EntryStatus::Completed {
            return self.replay(req, stored, written_by, false);
        }
        self.counters.conflicts_409 += 1;
        Decision::Answer {
            kind: TickKind::Conflict,
            fact: Fact::InProgress { req, until: None },
            response: Response::new(409, Body::KeyInProgress),
        }
    }

    /// `inprogress-record`: a completed record is replayed, an in-progress one that has not
    /// expired answered 409; otherwise a durable in-progress record is written, expiring
    /// after `in_progress_expiry`, and the charge starts.
    fn in_progress_record(&mut self, req: usize, key: Key) -> Decision {
        let r = &self.requests[req];
        let (intent, attempt, processing) = (r.intent, r.attempt, r.processing_ms);
        if let Some(e) = self.find(EntryKind::Record, &key) {
            let (status, stored, written_by, until) =
                (e.status, e.response, e.written_by, e.expires_at);
            if status == EntryStatus::Completed {
                return self.replay(req, stored, written_by, false);
            }
            self.counters.conflicts_409 += 1;
            return Decision::Answer {
                kind: TickKind::Conflict,
                fact: Fact::InProgress { req, until },
                response: Response::new(409, Body::KeyInProgress),
            };
        }
        let now = self.now;
        // A record past its expiry whose eviction is still pending gives way to the new one.
        if let Some(stale) = self
            .memory
            .iter()
            .position(|e| e.kind == EntryKind::Record && e.key == key)
        {
            let e = self.memory_mut().remove(stale);
            self.counters.keys_evicted += 1;
            let at = e.expires_at.unwrap_or(now);
            if e.status == EntryStatus::InProgress {
                self.lapsed.insert(key.clone(), at);
            } else {
                self.evicted.insert(key.clone(), at);
            }
        }
        let lapsed = self.lapsed.get(&key).copied();
        let expiry = now.plus(self.cfg.in_progress_expiry_ms);
        self.schedule(
            expiry,
            Event::Expire {
                key: key.clone(),
                at: expiry,
            },
        );
        self.counters.keys_stored += 1;
        self.memory_mut().push_back(Arc::new(MemoryEntry {
            key,
            kind: EntryKind::Record,
            status: EntryStatus::InProgress,
            fingerprint: None,
            response: None,
            expires_at: Some(expiry),
            written_by: WrittenBy {
                attempt,
                how: Write::InProgressOnDisk,
            },
            intent,
        }));
        Decision::Work {
            how: Takes::WriteInProgress { lapsed },
            step: Step::Charge,
            after_ms: processing,
        }
    }

    /// The handler fails: the processor answers 500. The error deletes the in-progress
    /// record (or the in-memory mark) of its key, so a retry is taken on as new.
    fn handler_error(&mut self, req: usize, after: FailPoint) {
        let r = &self.requests[req];
        let (intent, attempt) = (r.intent, r.attempt);
        let charge = r.response.and_then(|x| x.charge);
        let held = r.key.as_ref().and_then(|key| {
            self.memory.iter().position(|e| {
                e.key == *key
                    && e.status == EntryStatus::InProgress
                    && matches!(e.kind, EntryKind::Record | EntryKind::KeyRecord)
            })
        });
        let deleted = held.map(|i| self.memory_mut().remove(i)).is_some();
        if deleted {
            self.counters.keys_evicted += 1;
        }
        let resp = Response::new(500, Body::HandlerError);
        self.requests[req].response = Some(resp);
        self.transmit_reply(req, resp);
        let fact = Fact::HandlerError {
            req,
            after,
            charge,
            deleted,
        };
        self.record_answer(TickKind::Reply, fact, intent, attempt);
        self.after_reply(req);
    }

    /// `inprogress-record`: the record completed with the answer, in a write of its own
    /// after the charge.
    fn complete_record(&mut self, req: usize) {
        let r = &self.requests[req];
        let (intent, attempt) = (r.intent, r.attempt);
        let key = r.key.clone().unwrap_or_else(|| Key::from(""));
        let resp = r.response.unwrap_or(OK);
        let expiry = self.now.plus(self.cfg.retention_ms);
        let written_by = WrittenBy {
            attempt,
            how: Write::After(resp.charge),
        };
        let entry = Arc::new(MemoryEntry {
            key: key.clone(),
            kind: EntryKind::Record,
            status: EntryStatus::Completed,
            fingerprint: None,
            response: Some(resp),
            expires_at: Some(expiry),
            written_by,
            intent,
        });
        match self
            .memory
            .iter()
            .position(|e| e.kind == EntryKind::Record && e.key == key)
        {
            // Completing (or overwriting) the record keeps it one entry of the store.
            Some(i) => {
                self.memory_mut().set(i, entry);
            }
            None => {
                self.memory_mut().push_back(entry);
                self.counters.keys_stored += 1;
            }
        }
        self.schedule(expiry, Event::Expire { key, at: expiry });
        let fact = Fact::RecordCompleted {
            req,
            response: resp,
        };
        self.record(
            TickDraft::new(Actor::Processor, TickKind::KeyWrite, fact).of(intent, Some(attempt)),
        );
        if let Some(restart) = self.take_crash(req, CrashPoint::Key) {
            self.crash(restart, CrashMoment::AfterRecord { req });
            return;
        }
        self.next_step(req, Step::Reply, 0);
    }

    /// Answers from a remembered entry: its stored response, marked as a replay.
    fn replay(
        &mut self,
        req: usize,
        stored: Option<Response>,
        written_by: WrittenBy,
        from_log: bool,
    ) -> Decision {
        let mut stored = stored.unwrap_or(OK);
        stored.replayed = true;
        self.counters.dedupe_hits += 1;
        Decision::Answer {
            kind: TickKind::Replay,
            fact: Fact::Replayed {
                req,
                stored,
                written_by,
                from_log,
            },
            response: stored,
        }
    }

    /// Records the tick at which an answer leaves the processor, drawn as an arrow home.
    fn record_answer(&mut self, kind: TickKind, fact: Fact, intent: usize, attempt: u32) {
        self.record(
            TickDraft::new(Actor::Processor, kind, fact)
                .message(Message {
                    from: Actor::Processor,
                    to: Actor::Checkout,
                    fate: Fate::Sent,
                })
                .of(intent, Some(attempt)),
        );
    }

    pub(super) fn on_step(&mut self, req: usize, step: Step, incarnation: u32) {
        if incarnation != self.incarnation {
            // The work was in memory when the processor crashed: it will never finish.
            return;
        }
        self.requests[req].pending = None;
        self.steps_taken += 1;
        match step {
            Step::Commit => self.commit(req),
            Step::Charge => self.charge(req),
            Step::KeyLog => self.key_log(req),
            Step::Record => self.complete_record(req),
            Step::Reply => self.reply(req),
        }
    }

    /// Moves the money unless the card is declined; returns the answer to send.
    fn move_money(&mut self, req: usize) -> (Response, Option<ChargeId>) {
        if self.declined(req) {
            return (Response::new(402, Body::Declined), None);
        }
        let r = &self.requests[req];
        let id = ChargeId(self.ledger.len() as u32 + 1);
        let charge = Charge {
            id,
            amount: r.amount,
            key: r.key.clone(),
            order: self.clients[r.intent].order.clone(),
            intent: r.intent,
            attempt: r.attempt,
            at: self.now,
        };
        self.add_charge(charge);
        (Response::new(200, Body::Charged(id)), Some(id))
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
        let r = &self.requests[req];
        let (intent, attempt) = (r.intent, r.attempt);
        let key = r.key.clone();
        let expiry = self.now.plus(self.cfg.retention_ms);
        let held = key.as_ref().and_then(|key| {
            self.memory.iter().position(|e| {
                e.kind == EntryKind::KeyRecord
                    && e.key == *key
                    && e.status == EntryStatus::InProgress
            })
        });
        if let Some(e) = held
            .and_then(|i| self.memory_mut().get_mut(i))
            .map(Arc::make_mut)
        {
            e.status = EntryStatus::Completed;
            e.response = Some(resp);
            e.expires_at = Some(expiry);
            e.written_by = WrittenBy {
                attempt,
                how: Write::OneWrite(id),
            };
            // The mark was counted as stored when it was made; completing it adds no entry.
            let key = e.key.clone();
            self.schedule(expiry, Event::Expire { key, at: expiry });
        }
        self.requests[req].response = Some(resp);
        let kind = if id.is_some() {
            TickKind::Charge
        } else {
            TickKind::Decline
        };
        let fact = Fact::OneWrite {
            req,
            charge: id,
            response: resp,
        };
        self.record(TickDraft::new(Actor::Processor, kind, fact).of(intent, Some(attempt)));
        let crash = self
            .take_crash(req, CrashPoint::Key)
            .or_else(|| self.take_crash(req, CrashPoint::Charge));
        match crash {
            Some(restart) => self.crash(restart, CrashMoment::AfterOneWrite { req }),
            None if self.fails(req, FailPoint::Charge) => {
                self.handler_error(req, FailPoint::Charge);
            }
            None => self.next_step(req, Step::Reply, 0),
        }
    }

    fn charge(&mut self, req: usize) {
        let (resp, id) = self.move_money(req);
        self.requests[req].response = Some(resp);
        let r = &self.requests[req];
        let (intent, attempt, content) = (r.intent, r.attempt, r.content);
        let mut hash = None;
        if let (Design::ContentHash, Some(id)) = (self.design, id) {
            let h = Digest(content);
            let written_by = WrittenBy {
                attempt,
                how: Write::With(id),
            };
            let key = Key::from(h.hex().as_str());
            self.remember_on_disk(EntryKind::BodyHash, key, resp, written_by, intent);
            hash = Some(h);
        }
        let kind = if id.is_some() {
            TickKind::Charge
        } else {
            TickKind::Decline
        };
        let fact = Fact::Charged {
            req,
            charge: id,
            hash,
        };
        self.record(TickDraft::new(Actor::Processor, kind, fact).of(intent, Some(attempt)));
        if let Some(restart) = self.take_crash(req, CrashPoint::Charge) {
            self.crash(restart, CrashMoment::AfterCharge { req });
            return;
        }
        if self.fails(req, FailPoint::Charge) {
            self.handler_error(req, FailPoint::Charge);
            return;
        }
        // The completed record is a write of its own, after the charge.
        let step = if self.design == Design::InProgressRecord {
            Step::Record
        } else {
            Step::Reply
        };
        self.next_step(req, step, 0);
    }

    fn key_log(&mut self, req: usize) {
        let r = &self.requests[req];
        let (intent, attempt, processing) = (r.intent, r.attempt, r.processing_ms);
        let key = r.key.clone().unwrap_or_else(|| Key::from(""));
        let before = self.design == Design::LogBeforeCharge;
        let held = if before {
            Response::new(200, Body::Approved)
        } else {
            r.response.unwrap_or(OK)
        };
        let written_by = WrittenBy {
            attempt,
            how: Write::Logged { before },
        };
        self.remember_on_disk(EntryKind::LogEntry, key, held, written_by, intent);
        let fact = Fact::KeyLogged { req, before, held };
        self.record(
            TickDraft::new(Actor::Processor, TickKind::KeyWrite, fact).of(intent, Some(attempt)),
        );
        if let Some(restart) = self.take_crash(req, CrashPoint::Key) {
            self.crash(restart, CrashMoment::AfterKeyLog { req, before });
            return;
        }
        if before {
            self.next_step(req, Step::Charge, processing);
        }
    }

    fn reply(&mut self, req: usize) {
        let r = &self.requests[req];
        let (intent, attempt, keyed) = (r.intent, r.attempt, r.key.is_some());
        let resp = r.response.unwrap_or(OK);
        self.transmit_reply(req, resp);
        let fact = Fact::Replied {
            req,
            response: resp,
        };
        self.record_answer(TickKind::Reply, fact, intent, attempt);
        // The after-response hook: the key reaches the log only once the answer has left.
        // Scheduled before a crash after the reply can strike, so that crash cuts it off.
        if self.design == Design::LogAfterCharge && keyed {
            self.next_step(req, Step::KeyLog, 0);
        }
        self.after_reply(req);
    }

    /// After an answer leaves: note which planned crash never came, and crash now if the
    /// scenario asks for a crash after the reply.
    fn after_reply(&mut self, req: usize) {
        let (intent, attempt) = (self.requests[req].intent, self.requests[req].attempt);
        if self.faults_for(intent, attempt).next().is_none() {
            return;
        }
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
        let mut missed = Vec::new();
        for (i, point) in pending {
            self.fault_fired[i] = true;
            missed.push(MissedCrash {
                point,
                attempt,
                key_less: point == CrashPoint::Key && key_less,
            });
        }
        if !missed.is_empty() {
            self.note_missed(missed);
        }
        if let Some(restart) = self.take_crash(req, CrashPoint::Reply) {
            self.crash(restart, CrashMoment::AfterReply { req });
        }
    }

    fn crash(&mut self, restart_ms: u64, moment: CrashMoment) {
        self.processor_up = false;
        self.incarnation += 1;
        let marks_lost: Vec<Key> = self
            .memory
            .iter()
            .filter(|e| !e.durable())
            .map(|e| e.key.clone())
            .collect();
        if !marks_lost.is_empty() {
            self.memory_mut().retain(|e| e.durable());
            self.counters.keys_evicted += marks_lost.len() as u32;
        }
        let cut = self.cut_off_work();
        self.interrupted = cut.clone();
        self.schedule_in(restart_ms, Event::Restart);
        let fact = Fact::Crash {
            moment,
            marks_lost,
            cut,
            restart_ms,
        };
        self.record(TickDraft::new(Actor::Processor, TickKind::Crash, fact));
    }

    /// The steps the processor had scheduled but not taken: a crash wipes them.
    fn cut_off_work(&mut self) -> Vec<Cut> {
        let mut cut = Vec::new();
        for (req, r) in self.requests.iter_mut().enumerate() {
            let Some(step) = r.pending.take() else {
                continue;
            };
            let step = match step {
                Step::Commit => CutStep::Commit,
                Step::Charge => CutStep::Charge,
                Step::KeyLog => CutStep::KeyLog,
                Step::Record => CutStep::Record,
                Step::Reply => CutStep::Reply,
            };
            let charge = r.response.and_then(|resp| resp.charge);
            cut.push(Cut { req, step, charge });
        }
        cut
    }

    pub(super) fn on_restart(&mut self) {
        self.processor_up = true;
        let cut = std::mem::take(&mut self.interrupted);
        self.record(TickDraft::new(
            Actor::Processor,
            TickKind::Restart,
            Fact::Restart { cut },
        ));
    }

    pub(super) fn on_expire(&mut self, key: Key, at: super::time::Instant) {
        let Some(pos) = self
            .memory
            .iter()
            .position(|e| e.key == key && e.expires_at == Some(at))
        else {
            return;
        };
        let entry = self.memory_mut().remove(pos);
        self.counters.keys_evicted += 1;
        let in_progress = entry.status == EntryStatus::InProgress;
        if in_progress {
            self.lapsed.insert(key.clone(), self.now);
        } else {
            self.evicted.insert(key.clone(), self.now);
        }
        let fact = Fact::Expired {
            key,
            kind: entry.kind,
            in_progress,
        };
        self.record(
            TickDraft::new(Actor::Processor, TickKind::Expire, fact).of(entry.intent, None),
        );
    }
}
