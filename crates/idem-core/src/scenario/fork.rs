//! What-if forks: a fault added to a scenario at a chosen tick, worked out from the trace.
//! Writing the forked scenario back as TOML is `fork_toml.rs`, which builds on this.

use super::Scenario;
use crate::sim::config::{CrashPoint, Direction, Fault, FaultAction};
use crate::sim::{Actor, Fact, TickKind, Trace};

/// What the trainer asks "what if" about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhatIf {
    /// The message on the wire at this tick is lost.
    DropInFlight,
    /// The processor crashes at its next step after this tick.
    CrashNext,
    /// The attempt in progress at this tick is slow at the processor.
    SlowAttempt,
}

/// How long a forked crash keeps the processor down.
const FORK_RESTART_MS: u64 = 2_000;
/// How much longer than the checkout's timeout a slowed attempt takes.
const SLOW_MARGIN_MS: u64 = 15_000;

/// The fault that makes `what` happen in the run `trace`, standing at tick `at`; an error
/// says why nothing can be done here, a story that already has that very fault included.
pub fn fault_for(
    scenario: &Scenario,
    trace: &Trace,
    at: usize,
    what: WhatIf,
) -> Result<Fault, String> {
    let fault = made_for(scenario, trace, at, what)?;
    let had = scenario.config.faults.iter().any(|f| {
        f.intent == fault.intent
            && f.attempt == fault.attempt
            && same_effect(&f.action, &fault.action)
    });
    if had {
        // Added again, it would change nothing, and say nothing.
        return Err(format!(
            "the story already has that: {}; nothing new to add",
            describe(scenario, &fault)
        ));
    }
    Ok(fault)
}

/// Whether two faults do the same thing: a crash at the same point (however long it keeps
/// the processor down), or the very same loss or delay.
fn same_effect(a: &crate::sim::config::FaultAction, b: &crate::sim::config::FaultAction) -> bool {
    use crate::sim::config::FaultAction::Crash;
    match (a, b) {
        (Crash { after: x, .. }, Crash { after: y, .. }) => x == y,
        _ => a == b,
    }
}

fn made_for(scenario: &Scenario, trace: &Trace, at: usize, what: WhatIf) -> Result<Fault, String> {
    let tick = trace.ticks.get(at).ok_or("there is no tick here")?;
    match what {
        WhatIf::DropInFlight => {
            // Only the charge request and its answer: a call to a downstream service has
            // faults of its own, written in its [[step]].
            let flight = tick
                .state
                .in_flight()
                .iter()
                .rev()
                .find(|f| f.service.is_none())
                .ok_or(if tick.state.in_flight().is_empty() {
                    "nothing is on the wire at this tick: step to a tick where a message is travelling"
                } else {
                    "only a call to a downstream service is on the wire here; x drops a charge request or its answer (a call's faults go in its [[step.fault]])"
                })?;
            Ok(Fault {
                intent: flight.intent,
                attempt: flight.attempt,
                action: FaultAction::Lose {
                    direction: flight.direction,
                },
            })
        }
        WhatIf::CrashNext => {
            let next = trace.ticks[at + 1..]
                .iter()
                .find(|t| t.actor == Actor::Processor && crash_point(t.kind).is_some())
                .ok_or("the processor has nothing more to do in this run")?;
            let (Some(intent), Some(attempt), Some(after)) =
                (next.intent, next.attempt, crash_point(next.kind))
            else {
                return Err("the processor's next step belongs to no attempt".into());
            };
            Ok(Fault {
                intent,
                attempt,
                action: FaultAction::Crash {
                    after,
                    restart_after_ms: FORK_RESTART_MS,
                },
            })
        }
        WhatIf::SlowAttempt => {
            let sent = trace.ticks[..=at]
                .iter()
                .rev()
                .find(|t| matches!(t.fact, Fact::Send { .. }))
                .ok_or("no attempt has been sent yet: step to the first request")?;
            let (Some(intent), Some(mut attempt)) = (sent.intent, sent.attempt) else {
                return Err("the last request belongs to no attempt".into());
            };
            // Work the processor has already finished cannot be slowed: slow the next attempt.
            let finished = trace.ticks[..=at].iter().any(|t| {
                t.actor == Actor::Processor
                    && t.intent == Some(intent)
                    && t.attempt == Some(attempt)
                    && matches!(
                        t.kind,
                        TickKind::Charge | TickKind::Reply | TickKind::Decline
                    )
            });
            if finished {
                attempt += 1;
            }
            let timeout = scenario.config.timeout_ms;
            Ok(Fault {
                intent,
                attempt,
                action: FaultAction::Slow {
                    processing_ms: timeout + SLOW_MARGIN_MS,
                },
            })
        }
    }
}

/// The crash point a processor tick reaches, if a crash can follow it.
fn crash_point(kind: TickKind) -> Option<CrashPoint> {
    match kind {
        TickKind::Receive
        | TickKind::Replay
        | TickKind::Conflict
        | TickKind::Mismatch
        | TickKind::Reject => Some(CrashPoint::Receive),
        TickKind::Charge | TickKind::Decline => Some(CrashPoint::Charge),
        TickKind::KeyWrite => Some(CrashPoint::Key),
        TickKind::Reply => Some(CrashPoint::Reply),
        _ => None,
    }
}

/// The scenario with extra faults, ready to simulate.
pub fn with_faults(original: &Scenario, added: &[Fault]) -> Scenario {
    let mut forked = original.clone();
    forked.config.faults.extend(added.iter().cloned());
    forked
}

/// A fault in words, for the header: `drop the answer to #1 of order 5531`.
pub fn describe(scenario: &Scenario, fault: &Fault) -> String {
    let order = scenario
        .config
        .intents
        .get(fault.intent)
        .map_or("?", |i| i.order.as_ref());
    let n = fault.attempt;
    match fault.action {
        FaultAction::Lose {
            direction: Direction::Request,
        } => format!("request #{n} of order {order} lost"),
        FaultAction::Lose {
            direction: Direction::Reply,
        } => format!("answer to #{n} of order {order} lost"),
        FaultAction::Crash { after, .. } => format!("crash after {} of #{n}", after.id()),
        FaultAction::Slow { processing_ms } => {
            format!(
                "#{n} takes {} at the processor",
                crate::units::duration_ms(processing_ms)
            )
        }
        FaultAction::Delay { .. } => format!("#{n} delayed"),
        FaultAction::Duplicate { .. } => format!("#{n} duplicated"),
        FaultAction::Decline => format!("#{n} declined"),
        FaultAction::Fail { after } => format!("handler error after {} of #{n}", after.id()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::fork_toml::to_toml;
    use crate::scenario::library::default_scenario;
    use crate::sim::Design;

    fn base() -> Scenario {
        match default_scenario() {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn dropping_the_first_request_in_flight() {
        let s = base();
        let trace = s.simulate(Design::WithCharge).expect("simulates");
        let send = trace
            .ticks
            .iter()
            .position(|t| t.kind == TickKind::Send)
            .expect("a send");
        let fault =
            fault_for(&s, &trace, send, WhatIf::DropInFlight).expect("a message is in flight");
        assert_eq!(fault.attempt, 1);
        assert_eq!(
            fault.action,
            FaultAction::Lose {
                direction: Direction::Request
            }
        );
        let forked = with_faults(&s, &[fault]);
        let t = forked.run(Design::NoKey).expect("simulates");
        // Nothing reached the processor on attempt 1, so even no-key charges once.
        assert_eq!(t.outcome.charges, 1);
        // The past is unchanged up to the fork.
        assert_eq!(t.told.labels[send], s.tell(&trace).labels[send]);
    }

    #[test]
    fn nothing_in_flight_is_an_error() {
        let s = base();
        let trace = s.simulate(Design::WithCharge).expect("simulates");
        assert!(fault_for(&s, &trace, 0, WhatIf::DropInFlight).is_err());
    }

    #[test]
    fn a_crash_at_the_next_step_and_a_slow_attempt() {
        let s = base();
        let trace = s.simulate(Design::WithCharge).expect("simulates");
        let fault = fault_for(&s, &trace, 1, WhatIf::CrashNext).expect("a next step");
        assert!(matches!(
            fault.action,
            FaultAction::Crash {
                after: CrashPoint::Receive,
                ..
            }
        ));
        let slow = fault_for(&s, &trace, 1, WhatIf::SlowAttempt).expect("an attempt");
        assert_eq!(slow.attempt, 1);
    }

    #[test]
    fn saved_forks_parse_back_to_the_same_faults() {
        let s = base();
        let added = vec![Fault {
            intent: 0,
            attempt: 2,
            action: FaultAction::Lose {
                direction: Direction::Reply,
            },
        }];
        let text = to_toml(&s, &added).expect("the fork is written");
        let back =
            crate::scenario::parse("fork.toml", "fork", &text).expect("the saved fork parses");
        assert_eq!(back.config.faults.len(), s.config.faults.len() + 1);
        assert_eq!(back.config.faults.last(), added.last());
    }
}
