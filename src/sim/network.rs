//! The network between checkout and processor: latency, and the faults a scenario injects on
//! a request or a reply (lose, delay, duplicate).

use super::config::{Direction, FaultAction};
use super::state::{Flight, Response};
use super::trace::{Actor, Fate, Message, TickKind};
use super::world::{Event, Reply, TickDraft, World};
use std::sync::Arc;

/// How the network treats one message.
struct Plan {
    lost: bool,
    extra_ms: u64,
    duplicate_gap_ms: Option<u64>,
}

impl World<'_> {
    fn take_off(&mut self, intent: usize, attempt: u32, direction: Direction, id: usize) {
        Arc::make_mut(&mut self.in_flight).push(Flight {
            intent,
            attempt,
            direction,
            id,
        });
    }

    /// The message has arrived or been lost: it is no longer on the wire.
    pub(super) fn land(&mut self, direction: Direction, id: usize) {
        if let Some(i) = self
            .in_flight
            .iter()
            .position(|f| f.direction == direction && f.id == id)
        {
            Arc::make_mut(&mut self.in_flight).remove(i);
        }
    }

    fn plan(&mut self, intent: usize, attempt: u32, direction: Direction) -> Plan {
        let mut plan = Plan {
            lost: false,
            extra_ms: 0,
            duplicate_gap_ms: None,
        };
        let mut fired = Vec::new();
        for (i, f) in self.faults_for(intent, attempt) {
            match f.action {
                FaultAction::Lose { direction: d } if d == direction => plan.lost = true,
                FaultAction::Delay {
                    direction: d,
                    by_ms,
                } if d == direction => plan.extra_ms = plan.extra_ms.saturating_add(by_ms),
                FaultAction::Duplicate {
                    direction: d,
                    gap_ms,
                } if d == direction => plan.duplicate_gap_ms = Some(gap_ms),
                _ => continue,
            }
            fired.push(i);
        }
        for i in fired {
            self.fault_fired[i] = true;
        }
        plan
    }

    /// Puts a request on the wire.
    pub(super) fn transmit_request(&mut self, req: usize) {
        let (intent, attempt) = (self.requests[req].intent, self.requests[req].attempt);
        let plan = self.plan(intent, attempt, Direction::Request);
        let travel = self.cfg.latency_ms.saturating_add(plan.extra_ms);
        self.take_off(intent, attempt, Direction::Request, req);
        if plan.lost {
            self.schedule_in(travel, Event::LoseRequest { req });
            return;
        }
        self.schedule_in(travel, Event::Arrive { req });
        if let Some(gap) = plan.duplicate_gap_ms {
            let mut copy = self.requests[req].clone();
            copy.copy = 1;
            self.requests.push(copy);
            let dup = self.requests.len() - 1;
            self.take_off(intent, attempt, Direction::Request, dup);
            self.schedule_in(travel.saturating_add(gap), Event::Arrive { req: dup });
        }
    }

    /// Puts the processor's answer to a request on the wire.
    pub(super) fn transmit_reply(&mut self, req: usize, response: Response) {
        let (intent, attempt) = (self.requests[req].intent, self.requests[req].attempt);
        let plan = self.plan(intent, attempt, Direction::Reply);
        let travel = self.cfg.latency_ms.saturating_add(plan.extra_ms);
        self.replies.push(Reply {
            req,
            response: response.clone(),
        });
        let reply = self.replies.len() - 1;
        self.take_off(intent, attempt, Direction::Reply, reply);
        if plan.lost {
            self.schedule_in(travel, Event::LoseReply { reply });
            return;
        }
        self.schedule_in(travel, Event::ReplyArrive { reply });
        if let Some(gap) = plan.duplicate_gap_ms {
            self.replies.push(Reply { req, response });
            let dup = self.replies.len() - 1;
            self.take_off(intent, attempt, Direction::Reply, dup);
            self.schedule_in(
                travel.saturating_add(gap),
                Event::ReplyArrive { reply: dup },
            );
        }
    }

    pub(super) fn on_lose_request(&mut self, req: usize) {
        self.land(Direction::Request, req);
        let r = &self.requests[req];
        let (intent, attempt, amount) = (r.intent, r.attempt, r.amount);
        let key = r
            .key
            .as_deref()
            .map_or("no key".to_string(), |k| format!("key {k}"));
        let narration = format!(
            "At {} the network loses attempt #{attempt} ({amount}, {key}) on its way to the processor. Nothing was charged, but the checkout cannot see that: all it will notice is silence.",
            self.clock()
        );
        let label = format!("request #{attempt} lost");
        self.record(
            TickDraft::new(Actor::Network, TickKind::Lost, label, narration)
                .message(Message {
                    from: Actor::Checkout,
                    to: Actor::Processor,
                    label: format!("charge {amount} {key} #{attempt}"),
                    fate: Fate::Lost,
                })
                .of(intent, Some(attempt)),
        );
    }

    pub(super) fn on_lose_reply(&mut self, reply: usize) {
        self.land(Direction::Reply, reply);
        let r = &self.replies[reply];
        let summary = r.response.summary();
        let req = &self.requests[r.req];
        let (intent, attempt) = (req.intent, req.attempt);
        let consequence = if r.response.charge.is_some() {
            "The money has moved, and the checkout will never hear that it did."
        } else {
            "The checkout will never hear it."
        };
        let narration = format!(
            "At {} the network loses the processor's answer to attempt #{attempt} ({summary}). {consequence} A lost answer does not mean the charge failed; it means nobody on this side knows.",
            self.clock()
        );
        self.record(
            TickDraft::new(
                Actor::Network,
                TickKind::Lost,
                format!("answer to #{attempt} lost"),
                narration,
            )
            .message(Message {
                from: Actor::Processor,
                to: Actor::Checkout,
                label: summary,
                fate: Fate::Lost,
            })
            .of(intent, Some(attempt)),
        );
    }
}
