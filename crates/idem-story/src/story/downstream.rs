//! The words for the shop's downstream steps (docs/model.md §5.1): its calls to the warehouse, the
//! mailer and the courier, written from the calls the trace keeps and the services' state.

use super::{Teller, plural, times_word};
use crate::sim::Tick;
use crate::sim::config::{Direction, KeyMode, Service};
use crate::sim::fact::{CallId, Fact, Next, SentCall};
use crate::units::duration_ms;

/// How a service and its work are named, wherever they are written: the narration, the
/// outcome line, the panels.
pub struct ServiceWords {
    /// `the courier firm`
    pub service: &'static str,
    /// `booking`
    pub noun: &'static str,
    /// `books a pickup`: what the service does, after its name
    pub acts: &'static str,
    /// `booked`
    pub done: &'static str,
    /// `book a courier`
    pub step: &'static str,
    /// `the courier`: what the work gives the customer, as in "the courier was booked twice"
    pub thing: &'static str,
}

pub fn service_words(service: Service) -> ServiceWords {
    match service {
        Service::Warehouse => ServiceWords {
            service: "the warehouse",
            noun: "reservation",
            acts: "reserves the stock",
            done: "reserved",
            step: "reserve the stock",
            thing: "stock",
        },
        Service::Mailer => ServiceWords {
            service: "the mailer",
            noun: "e-mail",
            acts: "sends the confirmation e-mail",
            done: "sent",
            step: "send the confirmation",
            thing: "the confirmation",
        },
        Service::Courier => ServiceWords {
            service: "the courier firm",
            noun: "booking",
            acts: "books a pickup",
            done: "booked",
            step: "book a courier",
            thing: "the courier",
        },
    }
}

/// `book courier`, the verb on a call's arrow.
fn arrow_verb(service: Service) -> &'static str {
    match service {
        Service::Warehouse => "reserve stock",
        Service::Mailer => "send e-mail",
        Service::Courier => "book courier",
    }
}

impl Teller<'_> {
    fn call(&self, call: CallId) -> &SentCall {
        &self.trace.calls[call]
    }

    /// `#2`, or `5538 #2` when the story has several orders: the try of a call.
    fn call_tag(&self, call: CallId) -> String {
        let c = self.call(call);
        if self.several_orders() {
            format!("{} #{}", self.order(c.intent), c.attempt)
        } else {
            format!("#{}", c.attempt)
        }
    }

    fn call_key(&self, call: CallId) -> String {
        self.call(call)
            .key
            .as_deref()
            .map_or("no key".to_string(), |k| format!("key {k}"))
    }

    /// The label on a call's own arrow: `book courier key 5531:courier #1`.
    fn call_arrow(&self, call: CallId) -> String {
        format!(
            "{} {} {}",
            arrow_verb(self.call(call).service),
            self.call_key(call),
            self.call_tag(call)
        )
    }

    /// What the service's answer reports: `booking #1`, `booking #1 (replayed)`.
    fn call_answer(&self, call: CallId) -> String {
        let c = self.call(call);
        let w = service_words(c.service);
        match c.answer {
            Some(a) if a.replayed => format!("{} #{} (replayed)", w.noun, a.effect),
            Some(a) => format!("{} #{}", w.noun, a.effect),
            None => "no answer".to_string(),
        }
    }

    /// `courier`, `mailer`, `warehouse`: the name that opens a call tick's label, so that no
    /// two services' ticks share one (and no call's tick shares the payment's).
    fn call_who(&self, call: CallId) -> &'static str {
        match self.call(call).service {
            Service::Warehouse => "warehouse",
            Service::Mailer => "mailer",
            Service::Courier => "courier",
        }
    }

    /// `try 2`, or `5538 try 2` when the story has several orders: a call's try in a label.
    fn call_try(&self, call: CallId) -> String {
        let c = self.call(call);
        if self.several_orders() {
            format!("{} try {}", self.order(c.intent), c.attempt)
        } else {
            format!("try {}", c.attempt)
        }
    }

    /// A call tick's label and its arrow's label. Every label but the call's own arrow opens
    /// with the service's name: `mailer: no answer to try 1`.
    pub(super) fn call_label(&self, tick: &Tick) -> Option<(String, String)> {
        let named = |call: CallId, rest: String| format!("{}: {rest}", self.call_who(call));
        let pair = |label: String| Some((label.clone(), label));
        match &tick.fact {
            Fact::CallSent { call } => pair(self.call_arrow(*call)),
            Fact::CallLost {
                call,
                direction: Direction::Request,
            } => Some((
                named(*call, format!("call {} lost", self.call_try(*call))),
                self.call_arrow(*call),
            )),
            Fact::CallLost {
                call,
                direction: Direction::Reply,
            } => Some((
                named(*call, format!("answer to {} lost", self.call_try(*call))),
                self.call_answer(*call),
            )),
            Fact::CallDelayed {
                call,
                direction,
                by_ms,
            } => {
                let what = match direction {
                    Direction::Request => "call",
                    Direction::Reply => "answer to",
                };
                pair(named(
                    *call,
                    format!(
                        "{what} {} held up {}",
                        self.call_try(*call),
                        duration_ms(*by_ms)
                    ),
                ))
            }
            Fact::CallDone { call } => {
                let c = self.call(*call);
                let w = service_words(c.service);
                let n = c.answer.map_or(0, |a| a.effect);
                pair(format!("{}: {} #{n}", w.acts, w.noun))
            }
            Fact::CallReplayed { call } => {
                let c = self.call(*call);
                let key = c.key.as_deref().unwrap_or_default();
                pair(named(
                    *call,
                    format!("{key} known: {}", self.call_answer(*call)),
                ))
            }
            Fact::CallReplied { call } => Some((
                named(*call, format!("answers {}", self.call_try(*call))),
                self.call_answer(*call),
            )),
            Fact::CallRead { call, .. } => pair(named(
                *call,
                format!(
                    "reads {} for {}",
                    self.call_answer(*call),
                    self.call_try(*call)
                ),
            )),
            Fact::CallLate { call } => pair(named(
                *call,
                format!("late answer to {} ignored", self.call_try(*call)),
            )),
            Fact::CallTimedOut { call, next } => {
                let tag = self.call_try(*call);
                match next {
                    Next::GiveUp => pair(named(
                        *call,
                        format!(
                            "no answer to {tag}: gives up on {}",
                            service_words(self.call(*call).service).step
                        ),
                    )),
                    Next::Retry { .. } => pair(named(*call, format!("no answer to {tag}"))),
                }
            }
            _ => None,
        }
    }

    /// Shorter forms of a call's arrow label: the key and the try, or what the answer reports.
    pub(super) fn call_short_arrows(&self, tick: &Tick) -> Vec<String> {
        match &tick.fact {
            Fact::CallSent { call }
            | Fact::CallLost {
                call,
                direction: Direction::Request,
            } => {
                let c = self.call(*call);
                let key = c.key.as_deref().unwrap_or("no key");
                vec![format!("{key} {}", self.call_tag(*call))]
            }
            // An answer's label (`booking #1`) is short already.
            _ => Vec::new(),
        }
    }

    /// A call tick's narration.
    pub(super) fn call_narration(&self, tick: &Tick, clock: &str) -> Option<String> {
        Some(match &tick.fact {
            Fact::CallSent { call } => self.call_sent(*call, clock),
            Fact::CallLost { call, direction } => self.call_lost(*call, *direction, clock),
            Fact::CallDelayed {
                call,
                direction,
                by_ms,
            } => {
                let c = self.call(*call);
                let w = service_words(c.service);
                let what = match direction {
                    Direction::Request => format!("the call to {} (try #{})", w.service, c.attempt),
                    Direction::Reply => format!("{}'s answer to try #{}", w.service, c.attempt),
                };
                format!(
                    "At {clock} the network holds up {what}: it arrives {} later than usual.",
                    duration_ms(*by_ms)
                )
            }
            Fact::CallDone { call } => self.call_done(tick, *call, clock),
            Fact::CallReplayed { call } => {
                let c = self.call(*call);
                let w = service_words(c.service);
                let n = c.answer.map_or(0, |a| a.effect);
                format!(
                    "At {clock} {} finds key {} already stored with {} #{n}, so it answers with that {} instead of doing the work again. Nothing new happens for order {}.",
                    w.service,
                    c.key.as_deref().unwrap_or_default(),
                    w.noun,
                    w.noun,
                    self.order(c.intent)
                )
            }
            Fact::CallReplied { call } => {
                let c = self.call(*call);
                format!(
                    "At {clock} {} answers try #{}: {}.",
                    service_words(c.service).service,
                    c.attempt,
                    self.call_answer(*call)
                )
            }
            Fact::CallRead { call, next } => {
                let c = self.call(*call);
                let w = service_words(c.service);
                let then = match next {
                    Some(step) => format!(
                        " Next it goes on to {}.",
                        service_words(self.cfg.steps[*step].service).step
                    ),
                    None => " That was its last step for this order.".to_string(),
                };
                format!(
                    "At {clock} the shop reads the answer, {}, and counts the step to {} as done for order {}.{then}",
                    self.call_answer(*call),
                    w.step,
                    self.order(c.intent)
                )
            }
            Fact::CallLate { call } => {
                let c = self.call(*call);
                format!(
                    "At {clock} the answer to try #{} ({}) reaches the shop, which has stopped waiting for that try. Nobody reads it.",
                    c.attempt,
                    self.call_answer(*call)
                )
            }
            Fact::CallTimedOut { call, next } => self.call_timed_out(*call, *next, clock),
            _ => return None,
        })
    }

    fn call_sent(&self, call: CallId, clock: &str) -> String {
        let c = self.call(call);
        let step = &self.cfg.steps[c.step];
        let w = service_words(c.service);
        let order = self.order(c.intent);
        let key = c.key.as_deref().unwrap_or_default();
        let keyed = match step.key_mode {
            KeyMode::Derived if c.attempt == 1 => format!(
                "It sends key {key}, made from the order and the step, so every try of this call carries the same key."
            ),
            KeyMode::Derived => format!("It sends the same key as before, {key}."),
            KeyMode::PerAttempt => format!(
                "It sends key {key}, minted for this try alone, so {} has never seen it.",
                w.service
            ),
            KeyMode::None => format!(
                "It sends no key, so {} cannot tell this call from a new one.",
                w.service
            ),
        };
        if c.attempt == 1 {
            let asks = format!("asks {} to {} for order {order}", w.service, w.step);
            if c.step == 0 {
                format!(
                    "At {clock} order {order} is paid, and the shop starts its own steps, which the processor's key does not cover. It {asks}. {keyed}"
                )
            } else {
                format!("At {clock} the shop {asks}. {keyed}")
            }
        } else {
            format!(
                "At {clock} the shop calls {} again for order {order}, try {} of {}. {keyed}",
                w.service, c.attempt, step.attempts
            )
        }
    }

    fn call_lost(&self, call: CallId, direction: Direction, clock: &str) -> String {
        let c = self.call(call);
        let w = service_words(c.service);
        match direction {
            Direction::Request => format!(
                "At {clock} the network loses try #{} on its way to {}. Nothing was {}, but the shop gets only silence.",
                c.attempt, w.service, w.done
            ),
            Direction::Reply => {
                let what = match c.answer {
                    Some(a) if a.replayed => format!(
                        "{} #{} was {} earlier, and this answer from memory says so",
                        w.noun, a.effect, w.done
                    ),
                    Some(a) => format!("{} did the work ({} #{})", w.service, w.noun, a.effect),
                    None => format!("{} did the work", w.service),
                };
                format!(
                    "At {clock} the network loses {}'s answer to try #{}. {}, but the shop will not hear it from this try.",
                    w.service,
                    c.attempt,
                    super::capitalise(&what)
                )
            }
        }
    }

    fn call_done(&self, tick: &Tick, call: CallId, clock: &str) -> String {
        let c = self.call(call);
        let step = &self.cfg.steps[c.step];
        let w = service_words(c.service);
        let n = c.answer.map_or(0, |a| a.effect);
        let order = self.order(c.intent);
        let kept = match (step.key_mode, c.key.as_deref()) {
            (KeyMode::Derived, Some(key)) => format!(
                " It stores key {key} in the same write, so a repeat of this call can be answered from memory."
            ),
            (KeyMode::PerAttempt, Some(key)) => {
                format!(" It stores key {key} with it, a key no other try carries.")
            }
            _ => " With no key, it keeps nothing that could recognise a repeat.".to_string(),
        };
        let so_far = tick
            .state
            .services
            .get(c.step)
            .map_or(0, |s| s.effects_for(c.intent));
        let repeat = if so_far > 1 {
            format!(
                " That is {} for order {order}: the step has now taken effect {}.",
                plural(so_far, w.noun),
                times_word(so_far)
            )
        } else {
            String::new()
        };
        format!(
            "At {clock} {} {} for order {order}: {} #{n}.{kept}{repeat}",
            w.service, w.acts, w.noun
        )
    }

    fn call_timed_out(&self, call: CallId, next: Next, clock: &str) -> String {
        let c = self.call(call);
        let step = &self.cfg.steps[c.step];
        let w = service_words(c.service);
        let then = match next {
            Next::Retry {
                n, of, delay_ms, ..
            } => format!(
                " It waits {} and tries again (try {n} of {of}).",
                duration_ms(delay_ms)
            ),
            Next::GiveUp => {
                let later = if c.step + 1 < self.cfg.steps.len() {
                    ", and the steps after it do not run"
                } else {
                    ""
                };
                format!(
                    " It has no tries left and gives up on the step to {}{later}.",
                    w.step
                )
            }
        };
        format!(
            "At {clock} try #{} to {} has waited {} with no answer. The call may have been lost, or done with its answer lost: from the shop the two look the same.{then}",
            c.attempt,
            w.service,
            duration_ms(step.timeout_ms)
        )
    }
}
