//! The checkout: presses Pay, sends attempts through its retrying layers, reads answers,
//! backs off, gives up, and hands unpaid intents to the people who re-run them.

use super::config::{Jitter, KeyStrategy};
use super::digest;
use super::state::{Belief, Response};
use super::time::human_duration;
use super::trace::{Actor, Fate, Message, TickKind};
use super::world::{Event, Request, TickDraft, World};
use std::sync::Arc;

/// What the checkout does after an attempt ends without a final answer.
enum Next {
    Retry { layer: usize, delay_ms: u64 },
    GiveUp,
}

impl World<'_> {
    pub(super) fn on_pay(&mut self, intent: usize) {
        let cfg = &self.cfg.intents[intent];
        let (order, amount, key) = (cfg.order.clone(), cfg.amount, cfg.key.clone());
        let shared_with: Vec<String> = self
            .cfg
            .intents
            .iter()
            .enumerate()
            .filter(|(i, other)| *i != intent && other.key == key)
            .map(|(_, other)| other.order.clone())
            .collect();
        let minted = match self.cfg.key_strategy {
            KeyStrategy::PerIntent if shared_with.is_empty() => format!(
                "The checkout mints the idempotency key {key} for this intent and stores it with the order, so every attempt can carry the same one."
            ),
            KeyStrategy::PerIntent => format!(
                "The checkout gives this intent the idempotency key {key}, the key of order {} too: two different purchases now carry one key, a client bug a processor can only catch by comparing the requests.",
                shared_with.join(" and order ")
            ),
            KeyStrategy::PerAttempt => format!(
                "The checkout will mint a new key for every attempt ({key} first): each retry will look like a brand-new purchase."
            ),
            KeyStrategy::None => {
                "The checkout sends no idempotency key: nothing will tie a retry to this purchase."
                    .to_string()
            }
        };
        let items = if cfg.items.is_empty() {
            String::new()
        } else {
            format!(" ({})", cfg.items.join(", "))
        };
        let narration = format!(
            "At {} the customer presses Pay once for order {order}{items}: {amount}. {minted}",
            self.clock()
        );
        self.client_mut(intent).belief = Belief::Waiting;
        self.record(
            TickDraft::new(
                Actor::Customer,
                TickKind::Pay,
                format!("presses Pay: order {order}, {amount}"),
                narration,
            )
            .of(intent, None),
        );
        self.start_run(intent);
    }

    /// Starts the whole retry budget for an intent, from the first attempt of every layer.
    fn start_run(&mut self, intent: usize) {
        self.cancel_timers(intent, 0);
        let layers = self.cfg.layers.len();
        let run = &mut self.runs[intent];
        run.epoch += 1;
        run.layer_attempt = vec![1; layers];
        run.fresh_layers = layers.saturating_sub(1);
        run.finished = false;
        let epoch = run.epoch;
        let send = self.schedule_in(0, Event::Send { intent, epoch });
        self.runs[intent].send = Some(send);
    }

    /// Calls off the intent's pending timers: the retry wait, the attempt's timeout, and the
    /// deadlines of outer layers from `from_layer` up (0 means all of them).
    fn cancel_timers(&mut self, intent: usize, from_layer: usize) {
        let run = &mut self.runs[intent];
        let mut off = vec![run.timeout.take(), run.send.take()];
        for (layer, d) in run.deadlines.iter_mut().enumerate() {
            if layer >= from_layer {
                off.push(d.take());
            }
        }
        for seq in off {
            self.cancel(seq);
        }
    }

    /// The attempts of layers `1..=top` have ended: their deadlines no longer apply.
    fn end_layer_attempts(&mut self, intent: usize, top: usize) {
        for layer in 1..=top.min(self.cfg.layers.len().saturating_sub(1)) {
            let seq = self.runs[intent].deadlines[layer].take();
            self.cancel(seq);
            self.runs[intent].layer_token[layer] = 0;
        }
    }

    pub(super) fn on_send(&mut self, intent: usize, epoch: u64) {
        if self.runs[intent].epoch != epoch || self.runs[intent].finished {
            return;
        }
        self.runs[intent].send = None;
        // Outer layers whose attempt starts with this request start their deadlines now.
        for layer in 1..=self.runs[intent]
            .fresh_layers
            .min(self.cfg.layers.len() - 1)
        {
            let token = self.next_token();
            self.runs[intent].layer_token[layer] = token;
            if let Some(t) = self.cfg.layers[layer].timeout_ms {
                let seq = self.schedule_in(
                    t,
                    Event::Deadline {
                        intent,
                        layer,
                        token,
                    },
                );
                let old = self.runs[intent].deadlines[layer].replace(seq);
                self.cancel(old);
            }
        }
        self.runs[intent].fresh_layers = 0;
        self.runs[intent].attempts += 1;
        let attempt = self.runs[intent].attempts;
        self.runs[intent].waiting_for = Some(attempt);

        let cfg = &self.cfg.intents[intent];
        let key = match self.cfg.key_strategy {
            KeyStrategy::PerIntent => Some(cfg.key.clone()),
            KeyStrategy::PerAttempt if attempt == 1 => Some(cfg.key.clone()),
            KeyStrategy::PerAttempt => Some(digest::mint_key(&cfg.key, attempt)),
            KeyStrategy::None => None,
        };
        let stamp = self.cfg.stamp_body.then_some(self.now.0);
        let fingerprint = digest::fingerprint(&cfg.order, cfg.amount, &cfg.items);
        let content = digest::content(&self.cfg.merchant, cfg.amount, &cfg.items, stamp);
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
            view.key = key.as_deref().map(Arc::from);
            view.attempts_sent += 1;
            view.belief = Belief::Waiting;
        }
        let key_text = key
            .as_deref()
            .map_or("no key".to_string(), |k| format!("key {k}"));
        let label = format!(
            "charge {amount} {key_text} {}",
            self.attempt_tag(intent, attempt)
        );
        let timeout = self.cfg.layers[0].timeout_ms.unwrap_or(30_000);
        let why = if attempt == 1 {
            format!(
                "It will wait {} for an answer; silence will not tell it whether the card was charged.",
                human_duration(timeout)
            )
        } else if key.as_deref() == Some(self.cfg.intents[intent].key.as_str()) {
            format!(
                "It is the same purchase and the same key as attempt #1, so a processor that remembers {key_text} can recognise it."
            )
        } else {
            format!(
                "This attempt carries {key_text}, not the key of attempt #1, so to the processor it is a different purchase."
            )
        };
        let narration = format!(
            "At {} the checkout sends attempt #{attempt}: charge {amount} for order {}, {key_text}. {why}",
            self.clock(),
            self.cfg.intents[intent].order
        );
        self.requests.push(request);
        let req = self.requests.len() - 1;
        // On the wire before the tick is recorded, so the tick shows it in flight.
        self.transmit_request(req);
        self.record(
            TickDraft::new(Actor::Checkout, TickKind::Send, label.clone(), narration)
                .message(Message {
                    from: Actor::Checkout,
                    to: Actor::Processor,
                    label,
                    fate: Fate::Sent,
                })
                .of(intent, Some(attempt)),
        );
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

    pub(super) fn on_timeout(&mut self, intent: usize, attempt: u32, epoch: u64) {
        let run = &self.runs[intent];
        if run.epoch != epoch || run.waiting_for != Some(attempt) || run.finished {
            return;
        }
        self.runs[intent].timeout = None;
        let timeout = self.cfg.layers[0].timeout_ms.unwrap_or(30_000);
        let head = format!(
            "At {} attempt #{attempt} has waited {} and heard nothing. The request may have been lost, the card may have been charged with the answer lost, or the processor may still be working: from here the three look the same.",
            self.clock(),
            human_duration(timeout)
        );
        self.fail_attempt(
            intent,
            0,
            TickKind::Timeout,
            format!("no answer to {}", self.attempt_tag(intent, attempt)),
            head,
            Some(attempt),
        );
    }

    pub(super) fn on_deadline(&mut self, intent: usize, layer: usize, token: u64) {
        let run = &self.runs[intent];
        if run.finished || run.layer_token[layer] != token {
            return;
        }
        // Whatever the layers beneath were doing is abandoned: forget their pending events.
        self.runs[intent].deadlines[layer] = None;
        let inner = self.runs[intent].timeout.take();
        let wait = self.runs[intent].send.take();
        self.cancel(inner);
        self.cancel(wait);
        self.end_layer_attempts(intent, layer.saturating_sub(1));
        self.runs[intent].epoch += 1;
        self.runs[intent].waiting_for = None;
        let name = self.cfg.layers[layer].name.clone();
        let limit = self.cfg.layers[layer].timeout_ms.unwrap_or(0);
        let head = format!(
            "At {} the {name} layer's deadline of {} for one of its attempts runs out; it abandons everything beneath it, including any answer still on its way.",
            self.clock(),
            human_duration(limit)
        );
        self.fail_attempt(
            intent,
            layer,
            TickKind::Timeout,
            format!("{name} deadline"),
            head,
            None,
        );
    }

    /// An attempt ended without a final answer: retry in the innermost layer that still has
    /// attempts left (starting at `layer`), or give up.
    fn fail_attempt(
        &mut self,
        intent: usize,
        layer: usize,
        kind: TickKind,
        label: String,
        head: String,
        attempt: Option<u32>,
    ) {
        let next = self.plan_retry(intent, layer);
        let tail = match next {
            Next::Retry { layer, delay_ms } => {
                let l = &self.cfg.layers[layer];
                let n = self.runs[intent].layer_attempt[layer];
                if layer == 0 {
                    format!(
                        " It waits {} and tries again (attempt {n} of {}).",
                        human_duration(delay_ms),
                        l.attempts
                    )
                } else {
                    format!(
                        " The {} layer waits {} and starts its attempt {n} of {}, which replays the whole budget of the layers beneath it.",
                        l.name,
                        human_duration(delay_ms),
                        l.attempts
                    )
                }
            }
            Next::GiveUp => String::new(),
        };
        let gave_up = matches!(next, Next::GiveUp);
        self.record(TickDraft::new(Actor::Checkout, kind, label, head + &tail).of(intent, attempt));
        if gave_up {
            self.give_up(intent);
        }
    }

    fn plan_retry(&mut self, intent: usize, from_layer: usize) -> Next {
        self.runs[intent].waiting_for = None;
        for layer in from_layer..self.cfg.layers.len() {
            if self.runs[intent].layer_attempt[layer] < self.cfg.layers[layer].attempts {
                // This layer's attempt, and every attempt beneath it, is over.
                self.end_layer_attempts(intent, layer);
                let run = &mut self.runs[intent];
                run.layer_attempt[layer] += 1;
                for inner in 0..layer {
                    run.layer_attempt[inner] = 1;
                }
                run.fresh_layers = layer;
                let retry = run.layer_attempt[layer] - 1;
                let epoch = run.epoch;
                let delay_ms = self.backoff(intent, layer, retry);
                let send = self.schedule_in(delay_ms, Event::Send { intent, epoch });
                self.runs[intent].send = Some(send);
                return Next::Retry { layer, delay_ms };
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
                let prev = self.runs[intent].last_sleep[layer].max(low);
                let high = prev.saturating_mul(3).clamp(low, 1_000_000_000_000_000);
                let sleep = (self.rng.u64(low..=high) as f64).min(cap) as u64;
                self.runs[intent].last_sleep[layer] = sleep;
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
        let summary = r.response.summary();
        if copy > 0 {
            // The checkout sent one request; the network made the other. Its answer comes
            // back on no connection the checkout is listening on.
            let narration = format!(
                "At {} the answer to the network's extra copy of attempt #{attempt} ({summary}) comes back. The checkout never sent that copy, so nobody is waiting for this answer.",
                self.clock()
            );
            self.record(
                TickDraft::new(
                    Actor::Checkout,
                    TickKind::Dropped,
                    format!(
                        "answer to the copy of {} unread",
                        self.attempt_tag(intent, attempt)
                    ),
                    narration,
                )
                .of(intent, Some(attempt)),
            );
            return;
        }
        if run.finished || run.epoch != epoch || run.waiting_for != Some(attempt) {
            let narration = format!(
                "At {} the answer to {} ({summary}) reaches the checkout, but the checkout stopped waiting for that attempt. Nobody reads it.",
                self.clock(),
                self.attempt_name(intent, attempt)
            );
            let charge = r.response.charge.clone();
            self.record(
                TickDraft::new(
                    Actor::Checkout,
                    TickKind::Dropped,
                    format!(
                        "late answer to {} ignored",
                        self.attempt_tag(intent, attempt)
                    ),
                    narration,
                )
                .of(intent, Some(attempt)),
            );
            if let Some(id) = charge {
                self.tell_later(
                    &id,
                    format!("The checkout hears of {id} only through another answer."),
                    format!("The checkout never reads an answer that names {id}."),
                );
            }
            return;
        }
        // The answer came: the attempt's timeout no longer matters.
        let timer = self.runs[intent].timeout.take();
        self.cancel(timer);
        self.read_answer(intent, attempt, &r.response);
    }

    fn read_answer(&mut self, intent: usize, attempt: u32, response: &Response) {
        if let Some(id) = &response.charge {
            let tick = self.ticks.len();
            self.heard.entry(id.clone()).or_insert(tick);
        }
        let summary = response.summary();
        let label = format!("reads {summary} for {}", self.attempt_tag(intent, attempt));
        let order = self.cfg.intents[intent].order.clone();
        let clock = self.clock();
        if response.is_success() {
            let owner = response
                .charge
                .as_ref()
                .and_then(|id| self.ledger.iter().find(|c| &c.id == id))
                .map(|c| (c.id.clone(), c.intent));
            let how = match (response.replayed, owner) {
                (false, _) => "The checkout marks the order paid.".to_string(),
                (true, Some((id, owner))) if owner == intent => format!(
                    "The processor recognised the key and answered from memory with {id}, charging nothing more, so the checkout marks the order paid."
                ),
                (true, Some((id, owner))) => format!(
                    "That stored answer belongs to order {}: {id} paid for that order, not this one. This answer charged nothing for order {order}, yet the checkout marks it paid.",
                    self.cfg.intents[owner].order
                ),
                (true, None) => "The processor answered from memory and charged nothing for this request, so the checkout marks the order paid.".to_string(),
            };
            let narration = format!(
                "At {clock} the checkout reads {summary} for attempt #{attempt} of order {order}. {how}"
            );
            self.finish(intent, Belief::Paid);
            self.record(
                TickDraft::new(Actor::Checkout, TickKind::Answer, label, narration)
                    .of(intent, Some(attempt)),
            );
            return;
        }
        if response.status == 409 || response.status >= 500 {
            let why = if response.status == 409 {
                "409 means the processor is still working on this key: not a failure, a reason to wait and ask again."
            } else {
                "A server error says nothing about whether the card was charged, so the checkout may retry."
            };
            let head = format!(
                "At {clock} the checkout reads {summary} for attempt #{attempt} of order {order}. {why}"
            );
            self.fail_attempt(intent, 0, TickKind::Answer, label, head, Some(attempt));
            return;
        }
        self.finish(intent, Belief::Failed);
        let follow = self.hand_over(intent);
        let narration = format!(
            "At {clock} the checkout reads {summary} for attempt #{attempt} of order {order}. A {} is final: the checkout stops retrying and tells the customer the payment failed.{follow}",
            response.status
        );
        self.record(
            TickDraft::new(Actor::Checkout, TickKind::Answer, label, narration)
                .of(intent, Some(attempt)),
        );
    }

    /// The automatic path is spent and the outcome is unknown: say so, then hand the intent
    /// to the next human path if there is one.
    fn give_up(&mut self, intent: usize) {
        self.finish(intent, Belief::Unknown);
        let follow = self.hand_over(intent);
        let order = self.cfg.intents[intent].order.clone();
        let attempts = self.runs[intent].attempts;
        let narration = format!(
            "At {} the checkout has used its whole retry budget for order {order} ({}) and gives up. It does not know whether the card was charged: the outcome is unknown.{follow}",
            self.clock(),
            plural(attempts, "attempt")
        );
        self.record(
            TickDraft::new(
                Actor::Checkout,
                TickKind::GiveUp,
                format!("gives up on {order}: unknown"),
                narration,
            )
            .of(intent, None),
        );
    }

    /// Schedules the next human path for an intent that ended unpaid, and says so.
    fn hand_over(&mut self, intent: usize) -> String {
        let path = self
            .cfg
            .human_paths
            .iter()
            .enumerate()
            .filter(|(_, p)| p.intent.is_none_or(|i| i == intent))
            .nth(self.runs[intent].next_path);
        let Some((index, p)) = path else {
            return String::new();
        };
        let text = format!(
            " The order is not settled, so it goes to the {}, {} from now.",
            p.name,
            human_duration(p.after_ms)
        );
        let after = p.after_ms;
        self.runs[intent].next_path += 1;
        self.schedule_in(
            after,
            Event::Rerun {
                intent,
                path: index,
            },
        );
        text
    }

    fn finish(&mut self, intent: usize, belief: Belief) {
        self.cancel_timers(intent, 0);
        self.runs[intent].finished = true;
        self.runs[intent].waiting_for = None;
        self.client_mut(intent).belief = belief;
    }

    pub(super) fn on_rerun(&mut self, intent: usize, path: usize) {
        let p = &self.cfg.human_paths[path];
        let (name, after) = (p.name.clone(), p.after_ms);
        let cfg = &self.cfg.intents[intent];
        let key = match self.cfg.key_strategy {
            KeyStrategy::None => "no key".to_string(),
            KeyStrategy::PerAttempt => "a fresh key for every attempt".to_string(),
            KeyStrategy::PerIntent => format!("key {}", cfg.key),
        };
        let narration = format!(
            "At {}, {} after the last run gave up, the {name} starts order {} again: the same purchase, {key}, and the checkout's whole retry budget once more. Whether this charges the card again depends on whether the processor still remembers the first attempt.",
            self.clock(),
            human_duration(after),
            cfg.order
        );
        let label = format!("{name}: order {}", cfg.order);
        self.client_mut(intent).belief = Belief::Waiting;
        self.record(
            TickDraft::new(Actor::Checkout, TickKind::Rerun, label, narration).of(intent, None),
        );
        self.start_run(intent);
    }
}

/// `1 attempt`, `3 attempts`.
pub(super) fn plural(n: u32, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
