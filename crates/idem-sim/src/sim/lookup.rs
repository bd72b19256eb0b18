//! Asking instead of retrying (docs/model.md §5.4): before a retry, a checkout with `lookup` on
//! asks the processor what it remembers under the key of the attempt whose outcome it does not
//! know. A payment found there ends the run without a new attempt; one still in progress waits for
//! the next try; nothing found lets the retry go ahead.

use super::fact::{Fact, LookupAnswer, SentLookup};
use super::state::{Belief, EntryKind, EntryStatus, Key};
use super::trace::{Actor, Fate, Message, TickKind};
use super::world::{Event, TickDraft, World};

impl World<'_> {
    /// Sends a lookup instead of the attempt, when this send is a retry and the checkout asks
    /// first; returns whether it did. The retry itself follows the answer.
    pub(super) fn ask_first(&mut self, intent: usize) -> bool {
        let run = &mut self.runs[intent];
        if !self.cfg.lookup || run.attempts == 0 || std::mem::take(&mut run.cleared) {
            return false;
        }
        // The key of the last attempt: nothing to look up without one.
        let Some(key) = self.clients[intent].key.clone() else {
            return false;
        };
        self.lookups.push(SentLookup {
            intent,
            key: Key(key),
            answer: None,
        });
        let lookup = self.lookups.len() - 1;
        self.runs[intent].lookup = Some(lookup);
        let asks = Message {
            from: Actor::Checkout,
            to: Actor::Processor,
            fate: Fate::Sent,
        };
        self.lookup_tick(
            lookup,
            TickKind::Lookup,
            Fact::LookupSent { lookup },
            Some(asks),
        );
        self.schedule_in(self.cfg.latency_ms, Event::LookupArrive { lookup });
        let timeout = self.cfg.timeout_ms;
        let seq = self.schedule_in(timeout, Event::LookupTimeout { lookup });
        self.runs[intent].timeout = Some(seq);
        true
    }

    /// The processor answers from its memory, if it is up.
    pub(super) fn on_lookup_arrive(&mut self, lookup: usize) {
        if !self.processor_up {
            let unanswered = Message {
                from: Actor::Checkout,
                to: Actor::Processor,
                fate: Fate::Unanswered,
            };
            let fact = Fact::LookupDown { lookup };
            self.lookup_tick(lookup, TickKind::Unanswered, fact, Some(unanswered));
            return;
        }
        let answer = self.remembered(&self.lookups[lookup].key.0);
        self.counters.lookups_answered += 1;
        if matches!(answer, LookupAnswer::Found { .. }) {
            self.counters.dedupe_hits += 1;
        }
        self.lookups[lookup].answer = Some(answer);
        let answers = Message {
            from: Actor::Processor,
            to: Actor::Checkout,
            fate: Fate::Sent,
        };
        let fact = Fact::LookupAnswered { lookup };
        self.lookup_tick(lookup, TickKind::Reply, fact, Some(answers));
        self.schedule_in(self.cfg.latency_ms, Event::LookupReply { lookup });
    }

    /// What the processor's memory holds under a key, as its design keeps keys.
    fn remembered(&self, key: &str) -> LookupAnswer {
        let kind = match self.design {
            super::Design::WithCharge => EntryKind::KeyRecord,
            super::Design::InProgressRecord => EntryKind::Record,
            super::Design::LogAfterCharge | super::Design::LogBeforeCharge => EntryKind::LogEntry,
            // These designs keep nothing under a key.
            super::Design::NoKey | super::Design::ContentHash => return LookupAnswer::NotFound,
        };
        match self.find(kind, key) {
            Some(e) if e.status == EntryStatus::InProgress => LookupAnswer::InProgress,
            Some(e) => match e.response {
                Some(response) => LookupAnswer::Found { response },
                // A log line that holds no answer says only that the key was seen.
                None => LookupAnswer::InProgress,
            },
            None => LookupAnswer::NotFound,
        }
    }

    /// The checkout reads the answer: the run ends, waits for its next try, or retries now.
    pub(super) fn on_lookup_reply(&mut self, lookup: usize) {
        let intent = self.lookups[lookup].intent;
        if self.runs[intent].lookup != Some(lookup) || self.runs[intent].finished {
            return;
        }
        self.runs[intent].lookup = None;
        let timer = self.runs[intent].timeout.take();
        self.cancel(timer);
        match self.lookups[lookup].answer.clone() {
            Some(LookupAnswer::Found { response }) => {
                let paid = response.is_success();
                self.finish(intent, if paid { Belief::Paid } else { Belief::Failed });
                let hand_over = if paid { None } else { self.hand_over(intent) };
                let fact = Fact::LookedUp {
                    lookup,
                    next: None,
                    hand_over,
                };
                self.lookup_tick(lookup, TickKind::Answer, fact, None);
            }
            Some(LookupAnswer::InProgress) => {
                // Not yet: the lookup takes the place of this try, and the next one asks again.
                self.fail_attempt(intent, 0, TickKind::Answer, None, |next| Fact::LookedUp {
                    lookup,
                    next: Some(next),
                    hand_over: None,
                });
            }
            Some(LookupAnswer::NotFound) | None => {
                let fact = Fact::LookedUp {
                    lookup,
                    next: None,
                    hand_over: None,
                };
                self.lookup_tick(lookup, TickKind::Answer, fact, None);
                self.retry_now(intent);
            }
        }
    }

    /// No answer came: the outcome is as unknown as before, and the retry goes ahead.
    pub(super) fn on_lookup_timeout(&mut self, lookup: usize) {
        let intent = self.lookups[lookup].intent;
        if self.runs[intent].lookup != Some(lookup) || self.runs[intent].finished {
            return;
        }
        self.runs[intent].lookup = None;
        self.runs[intent].timeout = None;
        self.lookup_tick(
            lookup,
            TickKind::Timeout,
            Fact::LookupTimedOut { lookup },
            None,
        );
        self.retry_now(intent);
    }

    /// Records a tick of a lookup, on the lane of whoever acts: the processor answers, the
    /// checkout does everything else.
    fn lookup_tick(&mut self, lookup: usize, kind: TickKind, fact: Fact, arrow: Option<Message>) {
        let actor = match kind {
            TickKind::Reply | TickKind::Unanswered => Actor::Processor,
            _ => Actor::Checkout,
        };
        let mut draft = TickDraft::new(actor, kind, fact).of(self.lookups[lookup].intent, None);
        draft.message = arrow;
        self.record(draft);
    }

    fn retry_now(&mut self, intent: usize) {
        self.runs[intent].cleared = true;
        let epoch = self.runs[intent].epoch;
        let send = self.schedule_in(0, Event::Send { intent, epoch });
        self.runs[intent].send = Some(send);
    }
}
