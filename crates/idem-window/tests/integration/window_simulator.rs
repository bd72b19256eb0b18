//! The calculator held to the simulator. Whatever the stack, the figures of
//! `idem window` are moments of the replay that Enter builds from it, to the
//! millisecond, and "every path covered" is true exactly when the design that
//! stores the key with the charge charges once.
//!
//! The definitions both sides share (`window/calculation.rs` says them in full):
//! - times are counted from the first request;
//! - the automatic delay is the moment of the automatic run's last request,
//!   every answer lost; the run gives up once that request's timeout (or a
//!   deadline) has run out;
//! - a human path's delay is the moment its rerun sends its first request;
//! - a path is covered when that request reaches the processor while the key
//!   is kept, that is when `delay < window + processing`.

use std::time::Duration;

use idem::scenario::{self, Scenario};
use idem::sim::{Design, Tick, TickKind, Trace};
use idem::window::scenario::{Purchase, replay_scenario, stack_from_config};
use idem::window::{HumanPath, Jitter, Layer, PathStart, Report, Schedule, Stack};
use proptest::prelude::*;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn trace(scenario: &Scenario, design: Design) -> Trace {
    scenario
        .simulate(design)
        .unwrap_or_else(|e| panic!("{design}: {e}"))
}

fn of_kind(trace: &Trace, kind: TickKind) -> Vec<&Tick> {
    trace.ticks.iter().filter(|t| t.kind == kind).collect()
}

fn nanos_ms(span: idem::window::Span) -> u64 {
    let nanos = span.as_nanos().expect("a replayable span");
    assert_eq!(nanos % 1_000_000, 0, "whole milliseconds");
    u64::try_from(nanos / 1_000_000).expect("fits")
}

/// What the simulator does with `stack`, set side by side with what the
/// calculator says about it.
fn compare(stack: &Stack) -> Result<(), TestCaseError> {
    let report = stack.report().expect("a valid stack");
    let scenario = replay_scenario(stack, &Purchase::default())
        .map_err(|e| TestCaseError::fail(format!("the stack does not replay: {e}")))?;
    prop_assert!(
        !scenario.description.contains("evened out"),
        "every wait of the stack replays exactly:\n{}",
        scenario.description
    );
    let t = trace(&scenario, Design::WithCharge);
    let sends = of_kind(&t, TickKind::Send);
    let reruns = of_kind(&t, TickKind::Rerun);
    let first = sends.first().expect("a first request").at.0;
    let ends_first_run = reruns.first().map_or(u64::MAX, |r| r.at.0);
    let first_run: Vec<&&Tick> = sends.iter().filter(|s| s.at.0 < ends_first_run).collect();
    let gives_up = of_kind(&t, TickKind::GiveUp)
        .first()
        .map(|g| g.at.0)
        .expect("every answer lost: the run gives up");

    let context = || format!("{stack:#?}\n{}", scenario.text);
    prop_assert_eq!(
        first_run.len() as u128,
        report.sends.exact().expect("exact"),
        "requests in the automatic run\n{}",
        context()
    );
    let last = first_run.last().expect("at least one").at.0 - first;
    prop_assert_eq!(
        last,
        nanos_ms(report.automatic_delay),
        "last automatic request\n{}",
        context()
    );
    prop_assert_eq!(
        gives_up - first,
        nanos_ms(report.gives_up),
        "give-up\n{}",
        context()
    );
    // The replay runs the paths in the order of their delays.
    let mut delays: Vec<u64> = report.paths[1..]
        .iter()
        .map(|p| nanos_ms(p.delay))
        .collect();
    delays.sort_unstable();
    let rerun_at: Vec<u64> = reruns.iter().map(|r| r.at.0 - first).collect();
    prop_assert_eq!(rerun_at, delays, "each rerun's start\n{}", context());
    let longest = report
        .paths
        .iter()
        .map(|p| nanos_ms(p.delay))
        .max()
        .expect("the automatic path");
    prop_assert_eq!(nanos_ms(report.longest.delay), longest);

    let charges = t.outcome.charges;
    prop_assert_eq!(
        report.uncovered_count() == 0,
        charges == 1,
        "covered: {:?}, charges {}\n{}",
        report.paths,
        charges,
        context()
    );
    Ok(())
}

/// Where an outer layer's timeout is put: anywhere, or right at a moment of
/// the layers beneath it (their give-up, their last request), a millisecond
/// either side or on it, since the edges are where the two could part.
#[derive(Debug, Clone, Copy)]
enum Edge {
    Anywhere,
    GivesUp(i64),
    LastSend(i64),
}

/// The replay's network takes 50 ms each way; a try must outlast the round
/// trip so that a person can hear the answer (the replay refuses otherwise).
fn round_trip(processing: u64) -> u64 {
    2 * 50 + processing
}

/// How a layer's waits are written: the same each time, growing to a cap, or
/// a written list that grows by one factor (as Lambda's 1 min, 2 min does).
#[derive(Debug, Clone, Copy)]
enum Waits {
    Constant,
    Exponential(f64, Option<u64>),
    List(u64),
}

/// One layer: attempts, waits, the jitter the calculator takes at its
/// longest, how long a try may last (always for the innermost, sometimes for
/// the others), and a deadline on the layer's whole budget.
fn layer_strategy(innermost: bool) -> impl Strategy<Value = (Layer, Edge, Option<Edge>)> {
    layer_strategy_of(innermost, 1..=5)
}

/// As [`layer_strategy`], with `attempts` drawn from the range given.
fn layer_strategy_of(
    innermost: bool,
    attempts: std::ops::RangeInclusive<u64>,
) -> impl Strategy<Value = (Layer, Edge, Option<Edge>)> {
    (
        attempts,
        prop_oneof![Just(0u64), 1u64..=2_000, 1_000u64..=90_000],
        prop_oneof![
            Just(Waits::Constant),
            (
                prop_oneof![Just(2.0f64), 1.0f64..3.0],
                proptest::option::of(1u64..=120_000)
            )
                .prop_map(|(m, cap)| Waits::Exponential(m, cap)),
            (2u64..=3).prop_map(Waits::List),
        ],
        prop_oneof![
            Just(Jitter::None),
            Just(Jitter::Full),
            Just(Jitter::Equal),
            Just(Jitter::Proportional(0.5)),
            Just(Jitter::Decorrelated),
        ],
        proptest::option::of(1u64..=200_000),
        prop_oneof![
            Just(Edge::Anywhere),
            (-1i64..=1).prop_map(Edge::GivesUp),
            (-1i64..=1).prop_map(Edge::LastSend),
        ],
        proptest::option::of(prop_oneof![
            Just(Edge::Anywhere),
            (-1i64..=1).prop_map(Edge::GivesUp),
            (-1i64..=1).prop_map(Edge::LastSend),
        ]),
    )
        .prop_map(
            move |(attempts, wait, waits, jitter, timeout, edge, deadline)| {
                let mut layer = Layer::new("layer", ms(wait), attempts);
                layer.schedule = match waits {
                    Waits::Constant => Schedule::Constant(ms(wait)),
                    Waits::Exponential(multiplier, cap) => Schedule::Exponential {
                        initial: ms(wait),
                        multiplier,
                        cap: cap.map(ms),
                    },
                    Waits::List(factor) => Schedule::List(vec![ms(wait), ms(wait * factor)]),
                };
                layer.jitter = jitter;
                layer.timeout = if innermost {
                    Some(ms(timeout.unwrap_or(30_000).min(60_000)))
                } else {
                    timeout.map(ms)
                };
                // A deadline placed anywhere is drawn from the timeout's range.
                if matches!(deadline, Some(Edge::Anywhere)) {
                    layer.deadline = Some(ms(timeout.unwrap_or(45_000) * 3));
                }
                (layer, edge, deadline)
            },
        )
}

/// Puts each outer layer's timeout, and each deadline, where its [`Edge`]
/// says, every one longer than a round trip.
fn place_edges(layers: &mut [Layer], edges: &[(Edge, Option<Edge>)], processing: u64) {
    let shortest = round_trip(processing) + 1;
    let at = |moment: idem::window::Span, nudge: i64| {
        let at = nanos_ms(moment) as i64 + nudge;
        ms((at.max(0) as u64).max(shortest))
    };
    for layer in layers.iter_mut() {
        layer.timeout = layer.timeout.map(|t| t.max(ms(shortest)));
        layer.deadline = layer.deadline.map(|t| t.max(ms(shortest)));
    }
    for i in 0..layers.len() {
        if i > 0 {
            let beneath = Stack {
                layers: layers[..i].to_vec(),
                ..Stack::default()
            };
            let report = beneath.report().expect("valid");
            match edges[i].0 {
                Edge::Anywhere => {}
                Edge::GivesUp(n) => layers[i].timeout = Some(at(report.gives_up, n)),
                Edge::LastSend(n) => layers[i].timeout = Some(at(report.automatic_delay, n)),
            }
        }
        // A deadline at a moment of this layer's own budget, counted without it.
        let mut own = Stack {
            layers: layers[..=i].to_vec(),
            ..Stack::default()
        };
        own.layers[i].deadline = None;
        let report = own.report().expect("valid");
        match edges[i].1 {
            None | Some(Edge::Anywhere) => {}
            Some(Edge::GivesUp(n)) => layers[i].deadline = Some(at(report.gives_up, n)),
            Some(Edge::LastSend(n)) => {
                layers[i].deadline = Some(at(report.automatic_delay, n));
            }
        }
    }
}

/// 1 to 4 layers, 0 to 3 human paths each some time after the run before it
/// gave up, a window placed right at one of the paths (a millisecond either
/// side of the edge, or on it), and a processing time.
fn stack_strategy() -> impl Strategy<Value = Stack> {
    stack_of(
        layer_strategy(true),
        proptest::collection::vec(layer_strategy(false), 0..=3),
    )
}

/// Stacks whose innermost layer makes many attempts, most of them alike, which the
/// calculator skips over in bulk rather than one by one while a deadline may cut them.
fn long_stack_strategy() -> impl Strategy<Value = Stack> {
    stack_of(
        layer_strategy_of(true, 8..=60),
        proptest::collection::vec(layer_strategy_of(false, 1..=3), 0..=1),
    )
    // A replay covers at most about 30 years; exponential waits over 60 attempts may not.
    .prop_filter("a stack a replay can cover", |stack| {
        let year = Duration::from_secs(365 * 86_400);
        let limits_fit = stack
            .layers
            .iter()
            .all(|l| l.timeout.is_none_or(|t| t < year) && l.deadline.is_none_or(|d| d < year));
        limits_fit
            && stack.report().is_ok_and(|r| {
                r.paths
                    .iter()
                    .all(|p| p.delay < idem::window::Span::from_duration(year))
            })
    })
}

/// A stack of the innermost layer and the outer ones, each timeout and deadline put where
/// its edge says, with people's reruns and a window on the edge of one path.
fn stack_of(
    inner: impl Strategy<Value = (Layer, Edge, Option<Edge>)>,
    outer: impl Strategy<Value = Vec<(Layer, Edge, Option<Edge>)>>,
) -> impl Strategy<Value = Stack> {
    (
        inner,
        outer,
        proptest::collection::vec(1u64..=3 * 86_400_000, 0..=3),
        any::<bool>(),
        0u64..=1_000,
        any::<prop::sample::Index>(),
        -1i64..=1,
    )
        .prop_map(
            |(inner, outer, afters, from_first, processing, which, nudge)| {
                let (mut layers, mut edges) = (vec![inner.0], vec![(inner.1, inner.2)]);
                for (layer, edge, deadline) in outer {
                    layers.push(layer);
                    edges.push((edge, deadline));
                }
                for (i, layer) in layers.iter_mut().enumerate() {
                    layer.name = format!("layer {}", i + 1);
                }
                place_edges(&mut layers, &edges, processing);
                let mut stack = Stack {
                    layers,
                    paths: afters
                        .iter()
                        .enumerate()
                        .map(|(i, &a)| HumanPath::after_give_up(format!("person {}", i + 1), ms(a)))
                        .collect(),
                    processing: ms(processing),
                    ..Stack::default()
                };
                let report = stack.report().expect("valid");
                if from_first {
                    // The same paths, counted from the first request.
                    for (path, delay) in stack.paths.iter_mut().zip(&report.paths[1..]) {
                        path.start = PathStart::FirstAttempt;
                        path.delay = delay.delay.to_duration().expect("fits");
                    }
                }
                let edge = nanos_ms(report.paths[which.index(report.paths.len())].delay);
                let window = (edge as i64 - processing as i64 + nudge).max(1) as u64;
                stack.window = ms(window);
                stack
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 160,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_calculator_says_what_the_simulator_does(stack in stack_strategy()) {
        compare(&stack)?;
    }

    #[test]
    fn many_alike_attempts_cut_by_deadlines_are_counted_as_the_simulator_sends_them(
        stack in long_stack_strategy()
    ) {
        compare(&stack)?;
    }

    #[test]
    fn a_scenario_gives_back_the_stack_it_was_built_from(stack in stack_strategy()) {
        // Reading the replay's scenario back (its [[human]] after counting from
        // each give-up) gives the same figures.
        let scenario = replay_scenario(&stack, &Purchase::default())
            .map_err(TestCaseError::fail)?;
        let read = stack_from_config(&scenario.config);
        let (a, b) = (stack.report().expect("valid"), read.report().expect("valid"));
        prop_assert_eq!(a.automatic_delay, b.automatic_delay);
        prop_assert_eq!(a.gives_up, b.gives_up);
        let mut da: Vec<_> = a.paths.iter().map(|p| (p.delay, p.covered)).collect();
        let mut db: Vec<_> = b.paths.iter().map(|p| (p.delay, p.covered)).collect();
        da.sort_by_key(|x| x.0);
        db.sort_by_key(|x| x.0);
        prop_assert_eq!(da, db);
    }
}

fn built_in(name: &str) -> Scenario {
    scenario::library::find(name)
        .unwrap_or_else(|| panic!("{name} is built in"))
        .load()
        .expect("a built-in loads")
}

fn with_retention(scenario: &Scenario, retention: &str) -> Scenario {
    let source = scenario.text.replace(
        "[[intent]]",
        &format!("[processor]\nretention = \"{retention}\"\n\n[[intent]]"),
    );
    scenario::parse("copy.toml", "copy", &source).expect("the copy parses")
}

fn report_of(scenario: &Scenario) -> Report {
    stack_from_config(&scenario.config)
        .report()
        .expect("a scenario's stack is valid")
}

#[test]
fn order_5531_needs_its_timeouts_counted() {
    // Three tries of 30 s, 1 s apart: requests at 14:02:07, 14:02:38 and
    // 14:03:09; the checkout gives up at 14:03:39.
    let order = built_in("order-5531");
    let report = report_of(&order);
    assert_eq!(report.automatic_delay.whole_seconds(), Some(62));
    assert_eq!(report.gives_up.whole_seconds(), Some(92));
    assert_eq!(report.required_window.whole_seconds(), Some(124));

    // Keys kept for 4 s: the calculator says the retries outlive them, and a
    // copy of the scenario with that retention charges twice.
    let short = with_retention(&order, "4s");
    let report = report_of(&short);
    assert!(!report.paths[0].covered, "{report:?}");
    assert!(!report.window_is_enough());
    assert_eq!(trace(&short, Design::WithCharge).outcome.charges, 2);
}

#[test]
fn a_scenario_rerun_counts_from_the_give_up() {
    // The batch job gives up 30 s after Friday 18:00 and the operator reruns
    // it 72 h later: 72 h 30 s after the first request.
    let monday = built_in("monday-rerun");
    let report = report_of(&monday);
    let rerun = &report.paths[1];
    assert_eq!(rerun.name, "operator rerun");
    assert_eq!(rerun.delay.whole_seconds(), Some(72 * 3600 + 30));
    let t = trace(&monday, Design::WithCharge);
    let first = of_kind(&t, TickKind::Send)[0].at.0;
    let rerun_tick = of_kind(&t, TickKind::Rerun)[0].at.0;
    assert_eq!((rerun_tick - first) / 1000, 72 * 3600 + 30);
}

#[test]
fn without_timeouts_the_worked_example_is_the_seeds() {
    let report = Stack::worked_example().report().expect("valid");
    assert_eq!(report.automatic_delay.whole_seconds(), Some(7596));
    assert_eq!(report.gives_up, report.automatic_delay);
    assert!(!report.timeouts_known);
    assert_eq!(report.required_window.to_string(), "6 days");
    assert!(!report.to_text().contains("Gives up"));
}

#[test]
fn the_key_is_gone_the_instant_its_window_ends() {
    // Keys are stored 200 ms after the first request arrives and kept 24 h
    // from then: a rerun 24 h 0.2 s after the first request is too late, one
    // a millisecond earlier is not. The simulator agrees on both sides.
    for (offset_ms, covered) in [(199, true), (200, false)] {
        let mut stack = Stack {
            layers: vec![Layer::new("checkout", ms(1000), 1).with_timeout(ms(30_000))],
            ..Stack::default()
        };
        let delay = ms(24 * 3_600_000 + offset_ms);
        stack.paths = vec![HumanPath::new("rerun", delay)];
        let report = stack.report().expect("valid");
        assert_eq!(report.paths[1].covered, covered, "{offset_ms}");
        compare(&stack).expect("the simulator agrees");
    }
}

#[test]
fn tries_shorter_than_a_round_trip_are_not_replayed() {
    // With tries of 100 ms, nobody could ever hear an answer (50 ms each way
    // and 200 ms of work): a person's rerun would retry like the automatic
    // run, which the calculator does not count. The replay says so.
    let stack = Stack {
        layers: vec![Layer::new("checkout", ms(0), 2).with_timeout(ms(100))],
        paths: vec![HumanPath::new("rerun", Duration::from_secs(3600))],
        ..Stack::default()
    };
    let err = replay_scenario(&stack, &Purchase::default()).expect_err("refused");
    assert!(err.contains("round trip"), "{err}");
    assert!(err.contains("checkout"), "{err}");
}
