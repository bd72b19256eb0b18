//! The network's own faults, tick by tick, and what is on the wire: a delayed message is marked
//! where it would have arrived and lands late; a duplicated one lands twice; a message is on
//! the wire from its sending until it lands. Written for what mutation testing showed no
//! engine test looked at (`docs/testing.md`).

use crate::common;

use common::inline::one_layer;
use idem::scenario;
use idem::sim::config::Direction;
use idem::sim::{Actor, Design, Tick, TickKind, Trace};

/// Order 5531 paid by one layer (3 attempts, 30 s timeout, 1 s backoff), with `faults`.
fn trace(faults: &str) -> Trace {
    let source = one_layer(3, "backoff = \"1s\"", faults);
    let s = scenario::parse("wire.toml", "wire", &source).expect("the scenario parses");
    s.simulate(Design::WithCharge).expect("it simulates")
}

fn of(trace: &Trace, kind: TickKind) -> Vec<&Tick> {
    trace.ticks.iter().filter(|t| t.kind == kind).collect()
}

fn latency(faults: &str) -> u64 {
    let source = one_layer(3, "backoff = \"1s\"", faults);
    scenario::parse("wire.toml", "wire", &source)
        .expect("parses")
        .config
        .latency_ms
}

#[test]
fn a_delayed_request_is_marked_where_it_was_due_and_lands_late() {
    let faults = "[[fault]]\nattempt = 1\ndelay = \"request\"\nby = \"5s\"\n";
    let t = trace(faults);
    let sent = of(&t, TickKind::Send)[0].at.0;
    let delayed = of(&t, TickKind::Delayed);
    assert_eq!(delayed.len(), 1, "one delay marked");
    assert_eq!(
        delayed[0].at.0,
        sent + latency(faults),
        "marked when it was due"
    );
    let received = of(&t, TickKind::Receive)[0].at.0;
    assert_eq!(
        received,
        sent + latency(faults) + 5_000,
        "it lands 5 s late"
    );
}

#[test]
fn a_delayed_answer_lands_late_by_its_delay() {
    let on_time = trace("");
    let late = trace("[[fault]]\nattempt = 1\ndelay = \"reply\"\nby = \"2s\"\n");
    let answered = |t: &Trace| of(t, TickKind::Answer)[0].at.0;
    assert_eq!(answered(&late), answered(&on_time) + 2_000);
    assert_eq!(of(&late, TickKind::Delayed).len(), 1);
}

#[test]
fn a_duplicated_request_is_marked_and_lands_twice() {
    let faults = "[[fault]]\nattempt = 1\nduplicate = \"request\"\ngap = \"10ms\"\n";
    let t = trace(faults);
    let sent = of(&t, TickKind::Send)[0].at.0;
    let copies = of(&t, TickKind::Duplicated);
    assert_eq!(copies.len(), 1, "one copy marked");
    assert_eq!(copies[0].at.0, sent + latency(faults));
    let due = sent + latency(faults);
    assert_eq!(
        of(&t, TickKind::Receive)[0].at.0,
        due,
        "the request lands when due"
    );
    // The copy lands 10 ms behind: the processor meets attempt #1 again (under this design,
    // while the first is still in progress).
    let copy = of(&t, TickKind::Conflict);
    assert_eq!(copy.len(), 1, "the copy is met once");
    assert_eq!((copy[0].at.0, copy[0].attempt), (due + 10, Some(1)));
    assert_eq!(copy[0].actor, Actor::Processor);
}

#[test]
fn a_message_is_on_the_wire_from_its_sending_until_it_lands() {
    let t = trace("");
    let on_wire = |tick: &Tick, direction: Direction| {
        tick.state
            .in_flight()
            .iter()
            .filter(|f| f.direction == direction)
            .count()
    };
    let send = t
        .ticks
        .iter()
        .position(|x| x.kind == TickKind::Send)
        .expect("a send");
    let receive = t
        .ticks
        .iter()
        .position(|x| x.kind == TickKind::Receive)
        .expect("a receive");
    assert_eq!(
        on_wire(&t.ticks[send], Direction::Request),
        1,
        "sent: on the wire"
    );
    assert_eq!(
        on_wire(&t.ticks[receive], Direction::Request),
        0,
        "landed: off it"
    );
    let reply = t
        .ticks
        .iter()
        .position(|x| x.kind == TickKind::Reply)
        .expect("a reply");
    let answer = t
        .ticks
        .iter()
        .position(|x| x.kind == TickKind::Answer)
        .expect("an answer");
    assert_eq!(on_wire(&t.ticks[reply], Direction::Reply), 1);
    assert_eq!(on_wire(&t.ticks[answer], Direction::Reply), 0);
    assert!(t.ticks.last().expect("a tick").state.in_flight().is_empty());
}

#[test]
fn a_duplicated_answer_is_marked_and_its_copy_arrives_after_it() {
    let t = trace("[[fault]]\nattempt = 1\nduplicate = \"reply\"\ngap = \"10ms\"\n");
    let read = of(&t, TickKind::Answer);
    assert_eq!(read.len(), 1, "the checkout reads the answer once");
    let copies = of(&t, TickKind::Duplicated);
    assert_eq!(copies.len(), 1, "one copy marked");
    assert_eq!(copies[0].at.0, read[0].at.0, "marked as the answer lands");
    // The copy lands 10 ms behind and is set aside: the checkout is no longer waiting.
    let late: Vec<&Tick> = t
        .ticks
        .iter()
        .filter(|x| x.actor == Actor::Checkout && x.at.0 == read[0].at.0 + 10)
        .collect();
    assert_eq!(late.len(), 1, "the copy arrives once, 10 ms later");
    assert_eq!(late[0].attempt, Some(1));
    assert!(t.ticks.last().expect("a tick").state.in_flight().is_empty());
}

/// Two requests on the wire at once, the earlier one held up: the later one lands first, and
/// the one left on the wire is the earlier, delayed one.
#[test]
fn the_message_that_lands_is_the_one_taken_off_the_wire() {
    let source = format!(
        "{}\n[[intent]]\norder = \"5532\"\nkey = \"K9B2\"\namount = \"$12.00\"\nat = \"14:02:07.010\"\n",
        one_layer(
            3,
            "backoff = \"1s\"",
            "[[fault]]\nintent = \"5531\"\nattempt = 1\ndelay = \"request\"\nby = \"1s\"\n"
        )
    );
    let s = scenario::parse("wire.toml", "wire", &source).expect("the scenario parses");
    let t = s.simulate(Design::WithCharge).expect("it simulates");
    let first = of(&t, TickKind::Receive)[0];
    assert_eq!(first.intent, Some(1), "5532's request arrives first");
    let left: Vec<(usize, Direction)> = first
        .state
        .in_flight()
        .iter()
        .map(|f| (f.intent, f.direction))
        .collect();
    assert_eq!(
        left,
        [(0, Direction::Request)],
        "5531's is still on its way"
    );
}
