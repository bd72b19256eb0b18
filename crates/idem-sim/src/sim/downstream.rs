//! Downstream steps (docs/model.md §5.1): once the checkout reads "paid", the shop calls its own
//! services in order (reserve the stock, send the confirmation, book the courier). Each call
//! crosses the network, can be lost or held up, and is retried on a timeout; each service keeps
//! its own memory of keys, so only a key that is the same on every try lets it answer a repeat
//! from memory instead of doing the work again.

use super::config::{Direction, KeyMode, StepFaultAction};
use super::fact::{CallAnswer, Fact, Next, SentCall};
use super::state::{Flight, Key, ServiceEntry, StepEffect};
use super::trace::{Actor, Fate, Message, StepState, TickKind};
use super::world::{Event, TickDraft, World};

/// How the network treats one leg of a call.
struct Leg {
    lost: bool,
    delay_ms: u64,
}

impl World<'_> {
    /// The order has been read paid: the shop starts its first step, if it has any.
    pub(super) fn start_steps(&mut self, intent: usize) {
        if self.cfg.steps.is_empty() || self.step_runs[intent][0].tries > 0 {
            return;
        }
        self.schedule_in(0, Event::CallSend { intent, step: 0 });
    }

    pub(super) fn on_call_send(&mut self, intent: usize, step: usize) {
        let cfg = &self.cfg.steps[step];
        let run = &mut self.step_runs[intent][step];
        run.tries += 1;
        let attempt = run.tries;
        let order = &self.cfg.intents[intent].order;
        let suffix = cfg.service.key_suffix();
        let key = match cfg.key_mode {
            KeyMode::Derived => Some(Key::from(format!("{order}:{suffix}"))),
            KeyMode::PerAttempt => Some(Key::from(format!("{order}:{suffix}:{attempt}"))),
            KeyMode::None => None,
        };
        let (service, timeout) = (cfg.service, cfg.timeout_ms);
        self.calls.push(SentCall {
            intent,
            step,
            service,
            attempt,
            key,
            answer: None,
        });
        let call = self.calls.len() - 1;
        self.step_runs[intent][step].waiting = Some(call);
        let leg = self.leg(call, Direction::Request);
        self.take_off_call(call, Direction::Request);
        let arrow = Message {
            from: Actor::Checkout,
            to: Actor::of(service),
            fate: Fate::Sent,
        };
        self.record(
            TickDraft::new(Actor::Checkout, TickKind::Call, Fact::CallSent { call })
                .message(arrow)
                .of(intent, None),
        );
        self.send_leg(call, Direction::Request, leg);
        let seq = self.schedule_in(timeout, Event::CallTimeout { call });
        self.step_runs[intent][step].timeout = Some(seq);
    }

    /// What the scenario's faults do to one leg of a call.
    fn leg(&self, call: usize, direction: Direction) -> Leg {
        let c = &self.calls[call];
        let mut leg = Leg {
            lost: false,
            delay_ms: 0,
        };
        let faults = self.cfg.steps[c.step]
            .faults
            .iter()
            .filter(|f| f.intent == c.intent && f.attempt == c.attempt);
        for f in faults {
            match f.action {
                StepFaultAction::Lose { direction: d } if d == direction => leg.lost = true,
                StepFaultAction::Delay {
                    direction: d,
                    by_ms,
                } if d == direction => leg.delay_ms = leg.delay_ms.saturating_add(by_ms),
                _ => {}
            }
        }
        leg
    }

    fn take_off_call(&mut self, call: usize, direction: Direction) {
        let c = &self.calls[call];
        let flight = Flight {
            intent: c.intent,
            attempt: c.attempt,
            direction,
            id: call,
            service: Some(c.service),
        };
        self.put_on_wire(flight);
    }

    fn land_call(&mut self, call: usize, direction: Direction) {
        let service = Some(self.calls[call].service);
        self.take_off_wire(|f| f.id == call && f.direction == direction && f.service == service);
    }

    /// Schedules what becomes of one leg: lost, held up on the way, or delivered.
    fn send_leg(&mut self, call: usize, direction: Direction, leg: Leg) {
        let latency = self.cfg.latency_ms;
        if leg.lost {
            self.schedule_in(latency, Event::CallLose { call, direction });
            return;
        }
        if leg.delay_ms > 0 {
            let by_ms = leg.delay_ms;
            self.schedule_in(
                latency,
                Event::CallDelay {
                    call,
                    direction,
                    by_ms,
                },
            );
        }
        let at = latency.saturating_add(leg.delay_ms);
        let event = match direction {
            Direction::Request => Event::CallArrive { call },
            Direction::Reply => Event::CallAnswer { call },
        };
        self.schedule_in(at, event);
    }

    /// The ends of a leg, for its arrow.
    fn ends(&self, call: usize, direction: Direction) -> (Actor, Actor) {
        let service = Actor::of(self.calls[call].service);
        match direction {
            Direction::Request => (Actor::Checkout, service),
            Direction::Reply => (service, Actor::Checkout),
        }
    }

    pub(super) fn on_call_lose(&mut self, call: usize, direction: Direction) {
        self.land_call(call, direction);
        let (from, to) = self.ends(call, direction);
        let intent = self.calls[call].intent;
        self.record(
            TickDraft::new(
                Actor::Network,
                TickKind::Lost,
                Fact::CallLost { call, direction },
            )
            .message(Message {
                from,
                to,
                fate: Fate::Lost,
            })
            .of(intent, None),
        );
    }

    pub(super) fn on_call_delay(&mut self, call: usize, direction: Direction, by_ms: u64) {
        let intent = self.calls[call].intent;
        let fact = Fact::CallDelayed {
            call,
            direction,
            by_ms,
        };
        self.record(TickDraft::new(Actor::Network, TickKind::Delayed, fact).of(intent, None));
    }

    /// The call reaches the service, which works on it for its processing time.
    pub(super) fn on_call_arrive(&mut self, call: usize) {
        self.land_call(call, Direction::Request);
        let c = &self.calls[call];
        let step = &self.cfg.steps[c.step];
        let slow = step.faults.iter().find_map(|f| match f.action {
            StepFaultAction::Slow { processing_ms }
                if f.intent == c.intent && f.attempt == c.attempt =>
            {
                Some(processing_ms)
            }
            _ => None,
        });
        let work = slow.unwrap_or(step.processing_ms);
        self.schedule_in(work, Event::CallWork { call });
    }

    /// The service answers from its memory when it knows the key, or does the work and stores
    /// the key with it; then it sends its answer.
    pub(super) fn on_call_work(&mut self, call: usize) {
        let (intent, step, attempt) = {
            let c = &self.calls[call];
            (c.intent, c.step, c.attempt)
        };
        let key = self.calls[call].key.clone();
        let known = key.as_ref().and_then(|k| {
            self.services[step]
                .memory
                .iter()
                .find(|e| e.key == *k)
                .map(|e| e.effect)
        });
        let (answer, kind, fact) = match known {
            Some(effect) => (
                CallAnswer {
                    effect,
                    replayed: true,
                },
                TickKind::Replay,
                Fact::CallReplayed { call },
            ),
            None => {
                let at = self.now;
                let view = &mut self.services_mut()[step];
                let n = view.effects.len() as u32 + 1;
                view.effects.push(StepEffect {
                    n,
                    intent,
                    attempt,
                    key: key.clone(),
                    at,
                });
                if let Some(key) = key {
                    // The key and the effect are one write: the service stores both or neither.
                    view.memory.push(ServiceEntry {
                        key,
                        effect: n,
                        intent,
                        attempt,
                    });
                }
                (
                    CallAnswer {
                        effect: n,
                        replayed: false,
                    },
                    TickKind::Effect,
                    Fact::CallDone { call },
                )
            }
        };
        self.calls[call].answer = Some(answer);
        let actor = Actor::of(self.calls[call].service);
        self.record(TickDraft::new(actor, kind, fact).of(intent, None));
        let leg = self.leg(call, Direction::Reply);
        self.take_off_call(call, Direction::Reply);
        self.record(
            TickDraft::new(actor, TickKind::Reply, Fact::CallReplied { call })
                .message(Message {
                    from: actor,
                    to: Actor::Checkout,
                    fate: Fate::Sent,
                })
                .of(intent, None),
        );
        self.send_leg(call, Direction::Reply, leg);
    }

    /// The service's answer reaches the shop: the step is done and the next one starts, or
    /// nobody is waiting for it any more.
    pub(super) fn on_call_answer(&mut self, call: usize) {
        self.land_call(call, Direction::Reply);
        let (intent, step) = (self.calls[call].intent, self.calls[call].step);
        let run = &mut self.step_runs[intent][step];
        if run.waiting != Some(call) {
            self.record(
                TickDraft::new(Actor::Checkout, TickKind::Dropped, Fact::CallLate { call })
                    .of(intent, None),
            );
            return;
        }
        run.waiting = None;
        run.state = StepState::Done;
        let timer = run.timeout.take();
        self.cancel(timer);
        let next = (step + 1 < self.cfg.steps.len()).then_some(step + 1);
        self.record(
            TickDraft::new(
                Actor::Checkout,
                TickKind::Answer,
                Fact::CallRead { call, next },
            )
            .of(intent, None),
        );
        if let Some(step) = next {
            self.schedule_in(0, Event::CallSend { intent, step });
        }
    }

    /// No answer in time: try again after the backoff, or give the step up, in which case
    /// the steps after it never run.
    pub(super) fn on_call_timeout(&mut self, call: usize) {
        let (intent, step) = (self.calls[call].intent, self.calls[call].step);
        let cfg = &self.cfg.steps[step];
        let run = &mut self.step_runs[intent][step];
        if run.waiting != Some(call) {
            return;
        }
        run.waiting = None;
        run.timeout = None;
        let next = if run.tries < cfg.attempts {
            let delay_ms = cfg.backoff_ms;
            let n = run.tries + 1;
            let of = cfg.attempts;
            self.schedule_in(delay_ms, Event::CallSend { intent, step });
            Next::Retry {
                layer: 0,
                n,
                of,
                delay_ms,
            }
        } else {
            run.state = StepState::Unknown;
            Next::GiveUp
        };
        self.record(
            TickDraft::new(
                Actor::Checkout,
                TickKind::Timeout,
                Fact::CallTimedOut { call, next },
            )
            .of(intent, None),
        );
    }
}
