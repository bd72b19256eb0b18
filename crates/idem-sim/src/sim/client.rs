//! The checkout: presses Pay, sends attempts through its retrying layers, reads answers,
//! backs off, gives up, and hands unpaid intents to the people who re-run them.

use super::config::{Jitter, KeySource, LayerKey};
use super::digest;
use super::fact::{Fact, HandOver, Next};
use super::state::{Belief, Key, Response};
use super::trace::{Actor, Fate, Message, TickKind};
use super::world::{Event, Request, TickDraft, World};

impl World<'_> {
    pub(super) fn on_pay(&mut self, intent: usize) {
        self.client_mut(intent).belief = Belief::Waiting;
        self.record(TickDraft::new(Actor::Customer, TickKind::Pay, Fact::Pay).of(intent, None));
        self.start_run(intent);
    }

    /// Starts the whole retry budget for an intent, from the first attempt of every layer.
    fn start_run(&mut self, intent: usize) {
        self.cancel_timers(intent, 0);
        let layers = self.cfg.layers.len();
        let run = &mut self.runs[intent];
        run.epoch += 1;
        for layer in &mut run.layers {
            layer.attempt = 1;
        }
        run.fresh_layers = layers.saturating_sub(1);
        run.finished = false;
        let epoch = run.epoch;
        let send = self.schedule_in(0, Event::Send { intent, epoch });
        self.runs[intent].send = Some(send);
    }

    /// Calls off the intent's pending timers: the retry wait, the attempt's timeout, and the
    /// deadlines of outer layers from `from_layer` up (0 means all of them).
    fn cancel_timers(&mut self, intent: usize, from_layer: usize) {
        let (timeout, send) = {
            let run = &mut self.runs[intent];
            (run.timeout.take(), run.send.take())
        };
        self.cancel(timeout);
        self.cancel(send);
        for layer in from_layer..self.runs[intent].layers.len() {
            let seq = self.runs[intent].layers[layer].deadline.take();
            self.cancel(seq);
        }
    }

    /// The attempts of layers `1..=top` have ended: their deadlines no longer apply.
    fn end_layer_attempts(&mut self, intent: usize, top: usize) {
        for layer in 1..=top.min(self.cfg.layers.len().saturating_sub(1)) {
            let seq = self.runs[intent].layers[layer].deadline.take();
            self.cancel(seq);
            self.runs[intent].layers[layer].token = 0;
        }
    }

    pub(super) fn on_send(&mut self, intent: usize, epoch: u64) {
        if self.runs[intent].epoch != epoch || self.runs[intent].finished {
            return;
        }
        self.runs[intent].send = None;
        // A retry whose outcome before it is unknown may ask about the key first.
        if self.ask_first(intent) {
            return;
        }
        // Outer layers whose attempt starts with this request start their deadlines now.
        for layer in 1..=self.runs[intent]
            .fresh_layers
            .min(self.cfg.layers.len() - 1)
        {
            let token = self.next_token();
            self.runs[intent].layers[layer].token = token;
            if let Some(t) = self.cfg.layers[layer].deadline_ms {
                let seq = self.schedule_in(
                    t,
                    Event::Deadline {
                        intent,
                        layer,
                        token,
                    },
                );
                let old = self.runs[intent].layers[layer].deadline.replace(seq);
                self.cancel(old);
            }
        }
        self.runs[intent].attempts += 1;
        let attempt = self.runs[intent].attempts;
        let key = self.attempt_key(intent, attempt);
        self.runs[intent].fresh_layers = 0;
        self.runs[intent].waiting_for = Some(attempt);

        let cfg = &self.cfg.intents[intent];
        let stamp = self.cfg.stamp_body.then_some(self.now.0);
        let fingerprint = self.runs[intent].fingerprint;
        let content = digest::stamped(self.runs[intent].content, stamp);
        let amount = cfg.amount;
        let processing_ms = self.processing_for(intent, attempt);
        let request = Request {
            intent,
            attempt,
            epoch,
            key: key.clone(),
            amount,
            fingerprint,
            content,
            copy: 0,
            processing_ms,
            response: None,
            pending: None,
        };
        self.counters.attempts_sent += 1;
        {
            let view = self.client_mut(intent);
            view.key = key.as_ref().map(Key::text);
            view.attempts_sent += 1;
            view.belief = Belief::Waiting;
        }
        self.requests.push(request);
        let req = self.requests.len() - 1;
        // On the wire before the tick is recorded, so the tick shows it in flight.
        self.transmit_request(req);
        self.record(
            TickDraft::new(Actor::Checkout, TickKind::Send, Fact::Send { req })
                .message(Message {
                    from: Actor::Checkout,
                    to: Actor::Processor,
                    fate: Fate::Sent,
                })
                .of(intent, Some(attempt)),
        );
        let timeout = self.cfg.timeout_ms;
        let seq = self.schedule_in(
            timeout,
            Event::Timeout {
                intent,
                attempt,
                epoch,
            },
        );
        self.runs[intent].timeout = Some(seq);
    }

    /// The key request `attempt` carries: handed from the order down through the layers,
    /// each layer whose attempt starts with this request forwarding it, minting a fresh one,
    /// or dropping it.
    fn attempt_key(&mut self, intent: usize, attempt: u32) -> Option<Key> {
        let order = self
            .cfg
            .order_has_key()
            .then(|| self.runs[intent].key.clone());
        if self.cfg.key_source() == KeySource::Order {
            return order;
        }
        let run = &mut self.runs[intent];
        let fresh = run.fresh_layers;
        let mut above = order;
        for layer in (0..self.cfg.layers.len()).rev() {
            if layer == 0 || layer <= fresh {
                run.layers[layer].key = match self.cfg.layers[layer].key {
                    LayerKey::Forward => above,
                    LayerKey::None => None,
                    LayerKey::PerAttempt if attempt == 1 => Some(run.key.clone()),
                    LayerKey::PerAttempt => Some(Key::from(digest::mint_key(
                        &self.cfg.intents[intent].key,
                        attempt,
                    ))),
                };
            }
            above = run.layers[layer].key.clone();
        }
        above
    }

    pub(super) fn on_timeout(&mut self, intent: usize, attempt: u32, epoch: u64) {
        let run = &self.runs[intent];
        if run.epoch != epoch || run.waiting_for != Some(attempt) || run.finished {
            return;
        }
        self.runs[intent].timeout = None;
        self.fail_attempt(intent, 0, TickKind::Timeout, Some(attempt), |next| {
            Fact::TimedOut { attempt, next }
        });
    }

    pub(super) fn on_deadline(&mut self, intent: usize, layer: usize, token: u64) {
        let run = &self.runs[intent];
        if run.finished || run.layers[layer].token != token {
            return;
        }
        // Whatever the layers beneath were doing is abandoned: forget their pending events.
        self.runs[intent].layers[layer].deadline = None;
        let inner = self.runs[intent].timeout.take();
        let wait = self.runs[intent].send.take();
        self.cancel(inner);
        self.cancel(wait);
        self.end_layer_attempts(intent, layer.saturating_sub(1));
        self.runs[intent].epoch += 1;
        self.runs[intent].waiting_for = None;
        // A lookup under way is abandoned with the attempt it stood in for.
        self.runs[intent].lookup = None;
        self.fail_attempt(intent, layer, TickKind::Timeout, None, |next| {
            Fact::Deadline { layer, next }
        });
    }

    /// An attempt ended without a final answer: retry in the innermost layer that still has
    /// attempts left (starting at `layer`), or give up. `fact` says how it ended.
    pub(super) fn fail_attempt(
        &mut self,
        intent: usize,
        layer: usize,
        kind: TickKind,
        attempt: Option<u32>,
        fact: impl FnOnce(Next) -> Fact,
    ) {
        let next = self.plan_retry(intent, layer);
        self.record(TickDraft::new(Actor::Checkout, kind, fact(next)).of(intent, attempt));
        if next == Next::GiveUp {
            self.give_up(intent);
        }
    }

    fn plan_retry(&mut self, intent: usize, from_layer: usize) -> Next {
        self.runs[intent].waiting_for = None;
        for layer in from_layer..self.cfg.layers.len() {
            if self.runs[intent].layers[layer].attempt < self.cfg.layers[layer].attempts {
                // This layer's attempt, and every attempt beneath it, is over.
                self.end_layer_attempts(intent, layer);
                let run = &mut self.runs[intent];
                run.layers[layer].attempt += 1;
                for inner in 0..layer {
                    run.layers[inner].attempt = 1;
                }
                run.fresh_layers = layer;
                let retry = run.layers[layer].attempt - 1;
                let epoch = run.epoch;
                let delay_ms = self.backoff(intent, layer, retry);
                let send = self.schedule_in(delay_ms, Event::Send { intent, epoch });
                self.runs[intent].send = Some(send);
                return Next::Retry {
                    layer,
                    n: retry + 1,
                    of: self.cfg.layers[layer].attempts,
                    delay_ms,
                };
            }
        }
        Next::GiveUp
    }

    /// The wait before retry number `retry` (1-based) of a layer, jitter included.
    fn backoff(&mut self, intent: usize, layer: usize, retry: u32) -> u64 {
        let b = &self.cfg.layers[layer].backoff;
        let cap = b.cap_ms.unwrap_or(u64::MAX) as f64;
        let grown = b.initial_ms as f64 * b.multiplier.powi(retry.saturating_sub(1) as i32);
        // Clamp in floating point first so a huge multiplier cannot overflow the cast.
        let base = grown.min(cap).min(1e15) as u64;
        match b.jitter {
            Jitter::None => base,
            Jitter::Full => self.rng.u64(0..=base),
            Jitter::Equal => base / 2 + self.rng.u64(0..=base - base / 2),
            Jitter::Decorrelated => {
                let low = b.initial_ms;
                let prev = self.runs[intent].layers[layer].last_sleep.max(low);
                let high = prev.saturating_mul(3).clamp(low, 1_000_000_000_000_000);
                let sleep = (self.rng.u64(low..=high) as f64).min(cap) as u64;
                self.runs[intent].layers[layer].last_sleep = sleep;
                sleep
            }
        }
    }

    pub(super) fn on_reply_arrive(&mut self, reply: usize) {
        self.land(super::config::Direction::Reply, reply);
        let Some(r) = self.replies.get(reply).cloned() else {
            return;
        };
        let req = &self.requests[r.req];
        let (intent, attempt, epoch, copy) = (req.intent, req.attempt, req.epoch, req.copy);
        let run = &self.runs[intent];
        if copy > 0 {
            // The checkout sent one request; the network made the other. Its answer comes
            // back on no connection the checkout is listening on.
            self.record(
                TickDraft::new(
                    Actor::Checkout,
                    TickKind::Dropped,
                    Fact::CopyAnswered { reply },
                )
                .of(intent, Some(attempt)),
            );
            return;
        }
        if run.finished || run.epoch != epoch || run.waiting_for != Some(attempt) {
            self.record(
                TickDraft::new(Actor::Checkout, TickKind::Dropped, Fact::Late { reply })
                    .of(intent, Some(attempt)),
            );
            return;
        }
        // The answer came: the attempt's timeout no longer matters.
        let timer = self.runs[intent].timeout.take();
        self.cancel(timer);
        self.read_answer(intent, attempt, reply, &r.response);
    }

    fn read_answer(&mut self, intent: usize, attempt: u32, reply: usize, response: &Response) {
        if response.is_success() {
            self.finish(intent, Belief::Paid);
            let fact = Fact::Read {
                reply,
                next: None,
                hand_over: None,
            };
            self.record(
                TickDraft::new(Actor::Checkout, TickKind::Answer, fact).of(intent, Some(attempt)),
            );
            return;
        }
        if response.status == 409 || response.status >= 500 {
            self.fail_attempt(intent, 0, TickKind::Answer, Some(attempt), |next| {
                Fact::Read {
                    reply,
                    next: Some(next),
                    hand_over: None,
                }
            });
            return;
        }
        self.finish(intent, Belief::Failed);
        let hand_over = self.hand_over(intent);
        let fact = Fact::Read {
            reply,
            next: None,
            hand_over,
        };
        self.record(
            TickDraft::new(Actor::Checkout, TickKind::Answer, fact).of(intent, Some(attempt)),
        );
    }

    /// The automatic path is spent and the outcome is unknown: say so, then hand the intent
    /// to the next human path if there is one.
    fn give_up(&mut self, intent: usize) {
        self.finish(intent, Belief::Unknown);
        let hand_over = self.hand_over(intent);
        let fact = Fact::GaveUp {
            attempts: self.runs[intent].attempts,
            hand_over,
        };
        self.record(TickDraft::new(Actor::Checkout, TickKind::GiveUp, fact).of(intent, None));
    }

    /// Schedules the next human path for an intent that ended unpaid.
    pub(super) fn hand_over(&mut self, intent: usize) -> Option<HandOver> {
        let (path, p) = self
            .cfg
            .reruns
            .iter()
            .enumerate()
            .filter(|(_, p)| p.intent.is_none_or(|i| i == intent))
            .nth(self.runs[intent].next_path)?;
        let after_ms = p.after_ms;
        self.runs[intent].next_path += 1;
        self.schedule_in(after_ms, Event::Rerun { intent, path });
        Some(HandOver { path, after_ms })
    }

    pub(super) fn finish(&mut self, intent: usize, belief: Belief) {
        self.cancel_timers(intent, 0);
        self.runs[intent].finished = true;
        self.runs[intent].waiting_for = None;
        self.client_mut(intent).belief = belief;
        if belief == Belief::Paid {
            self.start_steps(intent);
        }
    }

    pub(super) fn on_rerun(&mut self, intent: usize, path: usize) {
        self.client_mut(intent).belief = Belief::Waiting;
        self.record(
            TickDraft::new(Actor::Checkout, TickKind::Rerun, Fact::Rerun { path }).of(intent, None),
        );
        self.start_run(intent);
    }
}
