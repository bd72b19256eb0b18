//! docs/model.md §5.1, leg by leg: each call to a downstream service and each answer is on
//! the wire from the tick it is sent until it lands, is lost or is read, and a step fault
//! touches only the leg and the try it names: a lost request is told lost, a held-up answer
//! leaves the request on time, a slow try is slow only at the service. The services count
//! their effects from 1.

use crate::common;

use common::inline::one_layer;
use idem::scenario::{self, Scenario};
use idem::sim::config::Direction;
use idem::sim::fact::Fact;
use idem::sim::trace::Trace;
use idem::sim::{Design, Instant};

fn parse(extra: &str) -> Scenario {
    let source = one_layer(3, "backoff = \"1s\"", extra);
    scenario::parse("inline.toml", "inline", &source)
        .unwrap_or_else(|e| panic!("the inline scenario does not parse:\n{e}\n---\n{source}"))
}

fn run(s: &Scenario) -> Trace {
    s.simulate(Design::WithCharge)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// When the first tick whose fact is such stands.
fn when(trace: &Trace, fact: impl Fn(&Fact) -> bool) -> Option<Instant> {
    trace.ticks.iter().find(|t| fact(&t.fact)).map(|t| t.at)
}

/// The legs of calls on the wire at a tick, as (call, direction).
fn call_legs(trace: &Trace, tick: usize) -> Vec<(usize, Direction)> {
    trace.ticks[tick]
        .state
        .in_flight()
        .iter()
        .filter(|f| f.service.is_some())
        .map(|f| (f.id, f.direction))
        .collect()
}

#[test]
fn a_lost_request_is_told_lost_and_leaves_the_wire_there() {
    let s =
        parse("[[step]]\nservice = \"courier\"\n[[step.fault]]\nattempt = 1\nlose = \"request\"\n");
    let trace = run(&s);
    let lost: Vec<usize> = trace
        .ticks
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            matches!(
                t.fact,
                Fact::CallLost {
                    call: 0,
                    direction: Direction::Request
                }
            )
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(lost.len(), 1, "the lost request is one tick of its own");
    let sent = trace
        .ticks
        .iter()
        .position(|t| matches!(t.fact, Fact::CallSent { call: 0 }))
        .expect("the first call is sent");
    for tick in sent..lost[0] {
        assert!(
            call_legs(&trace, tick).contains(&(0, Direction::Request)),
            "tick {tick}: the request is on its way until it is lost"
        );
    }
    for tick in lost[0]..trace.ticks.len() {
        assert!(
            !call_legs(&trace, tick).contains(&(0, Direction::Request)),
            "tick {tick}: a lost request is no longer on the wire"
        );
    }
    // The second try goes through: the only answer lost is none.
    assert!(
        !trace
            .ticks
            .iter()
            .any(|t| matches!(t.fact, Fact::CallLost { call: 1, .. }))
    );
}

#[test]
fn every_leg_has_landed_by_the_end_of_the_story() {
    for extra in [
        "[[step]]\nservice = \"courier\"\n",
        "[[step]]\nservice = \"courier\"\n[[step.fault]]\nattempt = 1\nlose = \"reply\"\n",
        "[[step]]\nservice = \"mailer\"\ntimeout = \"5s\"\n[[step.fault]]\nattempt = 1\ndelay = \"reply\"\nby = \"20s\"\n",
        "[[step]]\nservice = \"warehouse\"\n[[step]]\nservice = \"courier\"\n",
    ] {
        let trace = run(&parse(extra));
        assert!(!trace.calls.is_empty(), "{extra}");
        let last = trace.ticks.len() - 1;
        assert_eq!(call_legs(&trace, last), [], "{extra}");
        // And while a call's answer is read, neither of its legs is still in the air.
        for (i, t) in trace.ticks.iter().enumerate() {
            if let Fact::CallRead { call, .. } = t.fact {
                let legs = call_legs(&trace, i);
                assert!(
                    !legs.iter().any(|(c, _)| *c == call),
                    "{extra}: tick {i}: {legs:?}"
                );
            }
        }
    }
}

#[test]
fn an_answer_held_up_leaves_its_request_on_time() {
    let plain = parse("[[step]]\nservice = \"mailer\"\ntimeout = \"30s\"\n");
    let held = parse(
        "[[step]]\nservice = \"mailer\"\ntimeout = \"30s\"\n[[step.fault]]\nattempt = 1\ndelay = \"reply\"\nby = \"4s\"\n",
    );
    let (plain, held) = (run(&plain), run(&held));
    let done = |t: &Trace| when(t, |f| matches!(f, Fact::CallDone { call: 0 }));
    let read = |t: &Trace| when(t, |f| matches!(f, Fact::CallRead { call: 0, .. }));
    assert_eq!(done(&plain), done(&held), "the request is not held up");
    let (Some(a), Some(b)) = (read(&plain), read(&held)) else {
        panic!("both answers are read");
    };
    assert_eq!(b.0 - a.0, 4_000, "the answer comes 4 s later");
    // One delay, told once, on the answer.
    let delayed: Vec<&Fact> = held
        .ticks
        .iter()
        .map(|t| &t.fact)
        .filter(|f| matches!(f, Fact::CallDelayed { .. }))
        .collect();
    assert_eq!(delayed.len(), 1, "{delayed:?}");
    assert!(matches!(
        delayed[0],
        Fact::CallDelayed {
            call: 0,
            direction: Direction::Reply,
            by_ms: 4_000
        }
    ));
    assert!(
        !plain
            .ticks
            .iter()
            .any(|t| matches!(t.fact, Fact::CallDelayed { .. })),
        "nothing is held up without a delay"
    );
}

#[test]
fn a_slow_try_is_slow_at_the_service_and_only_that_try() {
    let plain = parse("[[step]]\nservice = \"courier\"\ntimeout = \"60s\"\n");
    let slow = parse(
        "[[step]]\nservice = \"courier\"\ntimeout = \"60s\"\n[[step.fault]]\nattempt = 1\nprocessing = \"7s\"\n",
    );
    let done = |t: &Trace| {
        when(t, |f| matches!(f, Fact::CallDone { call: 0 })).expect("the courier books")
    };
    let sent =
        |t: &Trace| when(t, |f| matches!(f, Fact::CallSent { call: 0 })).expect("the call is sent");
    let (plain, slow_run) = (run(&plain), run(&slow));
    let latency = slow.config.latency_ms;
    assert_eq!(
        done(&slow_run).0 - sent(&slow_run).0,
        latency + 7_000,
        "the booking takes the try's own processing time"
    );
    assert_eq!(
        done(&plain).0 - sent(&plain).0,
        latency + slow.config.steps[0].processing_ms
    );
    // A fault on the second try leaves the first at the usual pace.
    let second = parse(
        "[[step]]\nservice = \"courier\"\ntimeout = \"60s\"\n[[step.fault]]\nattempt = 2\nprocessing = \"7s\"\n",
    );
    let second = run(&second);
    assert_eq!(
        done(&second).0 - sent(&second).0,
        done(&plain).0 - sent(&plain).0
    );
}

#[test]
fn a_service_counts_its_effects_from_one() {
    let s = parse(
        "[[step]]\nservice = \"courier\"\nkey = \"none\"\n[[step.fault]]\nattempt = 1\nlose = \"reply\"\n",
    );
    let trace = run(&s);
    let last = &trace.ticks.last().expect("ticks").state;
    let numbers: Vec<u32> = last.services[0].effects.iter().map(|e| e.n).collect();
    assert_eq!(numbers, [1, 2], "two bookings, numbered 1 and 2");
}
