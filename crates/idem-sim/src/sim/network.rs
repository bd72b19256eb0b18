//! The network between checkout and processor: latency, and the faults a scenario injects on
//! a request or a reply (lose, delay, duplicate).

use super::config::{Direction, FaultAction};
use super::fact::SentReply;
use super::fact::{Fact, WireFault};
use super::state::{Flight, Response};
use super::trace::{Actor, Fate, Message, TickKind};
use super::world::{Event, TickDraft, World};

/// How the network treats one message.
struct Plan {
    lost: bool,
    extra_ms: u64,
    duplicate_gap_ms: Option<u64>,
}

impl World<'_> {
    fn take_off(&mut self, intent: usize, attempt: u32, direction: Direction, id: usize) {
        self.put_on_wire(Flight {
            intent,
            attempt,
            direction,
            id,
            service: None,
        });
    }

    /// The message has arrived or been lost: it is no longer on the wire.
    pub(super) fn land(&mut self, direction: Direction, id: usize) {
        self.take_off_wire(|f| f.direction == direction && f.id == id);
    }

    fn plan(&mut self, intent: usize, attempt: u32, direction: Direction) -> Plan {
        let mut plan = Plan {
            lost: false,
            extra_ms: 0,
            duplicate_gap_ms: None,
        };
        let cfg = self.cfg;
        for k in self.fault_range(intent, attempt) {
            let i = self.fault_index[k].2;
            match cfg.faults[i].action {
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
            self.fault_fired[i] = true;
        }
        plan
    }

    /// Schedules the ticks that show a delay or a copy, at the moment the message would
    /// otherwise have arrived (so before its own arrival at that instant).
    fn announce(&mut self, plan: &Plan, direction: Direction, id: usize) {
        if plan.lost {
            return;
        }
        if plan.extra_ms > 0 {
            let what = WireFault::Delay {
                by_ms: plan.extra_ms,
            };
            self.schedule_in(
                self.cfg.latency_ms,
                Event::Wire {
                    direction,
                    id,
                    what,
                },
            );
        }
        if let Some(gap_ms) = plan.duplicate_gap_ms {
            let what = WireFault::Duplicate { gap_ms };
            let at = self.cfg.latency_ms.saturating_add(plan.extra_ms);
            self.schedule_in(
                at,
                Event::Wire {
                    direction,
                    id,
                    what,
                },
            );
        }
    }

    pub(super) fn on_wire_fault(&mut self, direction: Direction, id: usize, what: WireFault) {
        let req = match direction {
            Direction::Request => id,
            Direction::Reply => self.replies[id].req,
        };
        let (intent, attempt) = (self.requests[req].intent, self.requests[req].attempt);
        let kind = match what {
            WireFault::Delay { .. } => TickKind::Delayed,
            WireFault::Duplicate { .. } => TickKind::Duplicated,
        };
        let fact = Fact::Wire {
            direction,
            id,
            what,
        };
        self.record(TickDraft::new(Actor::Network, kind, fact).of(intent, Some(attempt)));
    }

    /// Puts a request on the wire.
    pub(super) fn transmit_request(&mut self, req: usize) {
        let (intent, attempt) = (self.requests[req].intent, self.requests[req].attempt);
        let plan = self.plan(intent, attempt, Direction::Request);
        let travel = self.cfg.latency_ms.saturating_add(plan.extra_ms);
        self.take_off(intent, attempt, Direction::Request, req);
        self.announce(&plan, Direction::Request, req);
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
        self.replies.push(SentReply { req, response });
        let reply = self.replies.len() - 1;
        self.take_off(intent, attempt, Direction::Reply, reply);
        self.announce(&plan, Direction::Reply, reply);
        if plan.lost {
            self.schedule_in(travel, Event::LoseReply { reply });
            return;
        }
        self.schedule_in(travel, Event::ReplyArrive { reply });
        if let Some(gap) = plan.duplicate_gap_ms {
            self.replies.push(SentReply { req, response });
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
        let (intent, attempt) = (self.requests[req].intent, self.requests[req].attempt);
        self.record(
            TickDraft::new(Actor::Network, TickKind::Lost, Fact::LostRequest { req })
                .message(Message {
                    from: Actor::Checkout,
                    to: Actor::Processor,
                    fate: Fate::Lost,
                })
                .of(intent, Some(attempt)),
        );
    }

    pub(super) fn on_lose_reply(&mut self, reply: usize) {
        self.land(Direction::Reply, reply);
        let req = &self.requests[self.replies[reply].req];
        let (intent, attempt) = (req.intent, req.attempt);
        self.record(
            TickDraft::new(Actor::Network, TickKind::Lost, Fact::LostReply { reply })
                .message(Message {
                    from: Actor::Processor,
                    to: Actor::Checkout,
                    fate: Fate::Lost,
                })
                .of(intent, Some(attempt)),
        );
    }
}
