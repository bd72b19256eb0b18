//! The retry-window arithmetic, exercised through the library API.

use std::time::Duration;

use idem::window::{
    Count, HumanPath, Layer, Level, PathKind, Span, Stack, WindowError, attempts_matrix,
    human_span, seconds_text,
};
use proptest::prelude::*;

const SECOND: Duration = Duration::from_secs(1);
const HOUR: u64 = 3600;
const DAY: u64 = 86_400;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn stack(layers: &[(u64, u64)]) -> Stack {
    Stack {
        layers: layers
            .iter()
            .enumerate()
            .map(|(i, &(backoff, attempts))| {
                Layer::new(format!("layer {}", i + 1), secs(backoff), attempts)
            })
            .collect(),
        ..Stack::default()
    }
}

#[test]
fn worked_example_matches_the_numbers_by_hand() {
    let report = Stack::worked_example()
        .report()
        .expect("the example is valid");

    assert_eq!(report.attempts.exact(), Some(27));
    assert_eq!(report.attempts.to_string(), "27");
    assert_eq!(report.automatic_delay.whole_seconds(), Some(7596));
    assert_eq!(report.automatic_delay.seconds_text(), "7,596 s");
    assert_eq!(report.automatic_delay.to_string(), "2.1 h");

    let names: Vec<&str> = report.paths.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["automatic", "dead-letter replay", "operator rerun"]);
    assert_eq!(report.paths[0].kind, PathKind::Automatic);
    assert_eq!(report.paths[1].kind, PathKind::Human);
    let covered: Vec<bool> = report.paths.iter().map(|p| p.covered).collect();
    assert_eq!(covered, [true, false, false]);
    assert_eq!(report.uncovered_count(), 2);

    assert_eq!(report.longest.name, "operator rerun");
    assert_eq!(report.longest.delay.whole_seconds(), Some(72 * HOUR));
    assert_eq!(report.safety, 2.0);
    assert_eq!(report.required_window.whole_seconds(), Some(518_400));
    assert_eq!(report.required_window.to_string(), "6 days");
    assert_eq!(report.window.whole_seconds(), Some(24 * HOUR));
    assert_eq!(report.window_duration(), Some(secs(24 * HOUR)));
    assert!(!report.window_is_enough());
    assert_eq!(
        report.verdict(),
        "The window of 24 h is too short: 2 of 3 paths arrive after it expires; it needs 6 days."
    );
}

#[test]
fn worked_example_text_has_every_line() {
    let text = Stack::worked_example().report().expect("valid").to_text();
    for expected in [
        "http client",
        "calling service",
        "job scheduler",
        "Attempts for one intent  27",
        "7,596 s (2.1 h)",
        "Longest path             operator rerun, 3 days",
        "Safety factor            2",
        "Required window          6 days (518,400 s)",
        "Current window           24 h",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    let automatic = text
        .lines()
        .find(|l| l.starts_with("automatic"))
        .expect("automatic row");
    assert!(
        automatic.ends_with(" covered") && !automatic.contains("NOT"),
        "{automatic}"
    );
    assert_eq!(text.matches("NOT covered").count(), 2, "{text}");
}

#[test]
fn one_layer_waits_between_its_own_tries() {
    let report = stack(&[(2, 3)]).report().expect("valid");
    assert_eq!(report.attempts.exact(), Some(3));
    assert_eq!(report.automatic_delay.whole_seconds(), Some(4));
    assert_eq!(report.longest.name, "automatic");
    assert_eq!(report.required_window.whole_seconds(), Some(8));
}

#[test]
fn a_layer_with_one_attempt_adds_nothing() {
    let report = stack(&[(5, 1), (60, 3)]).report().expect("valid");
    assert_eq!(report.attempts.exact(), Some(3));
    assert_eq!(report.automatic_delay.whole_seconds(), Some(120));

    let report = stack(&[(5, 1), (60, 1), (HOUR, 1)])
        .report()
        .expect("valid");
    assert_eq!(report.attempts.exact(), Some(1));
    assert_eq!(report.automatic_delay, Span::ZERO);
}

#[test]
fn zero_backoff_multiplies_attempts_but_not_time() {
    let mut s = stack(&[(0, 3), (0, 4)]);
    s.paths
        .push(HumanPath::new("restore from backup", secs(7 * DAY)));
    let report = s.report().expect("valid");
    assert_eq!(report.attempts.exact(), Some(12));
    assert_eq!(report.automatic_delay.whole_seconds(), Some(0));
    assert_eq!(report.automatic_delay.to_string(), "0 s");
    assert_eq!(report.longest.name, "restore from backup");
    assert_eq!(report.required_window.to_string(), "14 days");
}

#[test]
fn no_layers_means_one_attempt_and_no_delay() {
    let report = Stack::default().report().expect("valid");
    assert_eq!(report.attempts, Count::ONE);
    assert_eq!(report.automatic_delay, Span::ZERO);
    assert_eq!(report.paths.len(), 1);
    assert!(report.window_is_enough());
}

#[test]
fn a_path_exactly_as_long_as_the_window_is_covered() {
    let mut s = stack(&[]);
    s.paths.push(HumanPath::new("rerun", secs(24 * HOUR)));
    s.safety = 1.0;
    let report = s.report().expect("valid");
    assert!(report.paths[1].covered);
    assert!(report.window_is_enough());
    assert!(
        report.verdict().contains("long enough"),
        "{}",
        report.verdict()
    );
}

#[test]
fn ties_go_to_the_earlier_path() {
    let mut s = stack(&[(2, 3)]);
    s.paths.push(HumanPath::new("quick rerun", secs(4)));
    let report = s.report().expect("valid");
    assert_eq!(report.longest.name, "automatic");
}

#[test]
fn fractional_safety_factor() {
    let mut s = Stack::worked_example();
    s.safety = 1.5;
    let report = s.report().expect("valid");
    assert_eq!(report.required_window.whole_seconds(), Some(108 * HOUR));
    assert_eq!(report.required_window.to_string(), "4.5 days");
}

#[test]
fn window_long_enough_for_paths_but_not_the_margin() {
    let mut s = Stack::worked_example();
    s.window = secs(4 * DAY);
    let report = s.report().expect("valid");
    assert_eq!(report.uncovered_count(), 0);
    assert!(!report.window_is_enough());
    assert!(
        report.verdict().contains("without the safety factor of 2"),
        "{}",
        report.verdict()
    );
}

#[test]
fn forty_layers_of_a_thousand_attempts_do_not_overflow() {
    let s = stack(&[(1000 * DAY, 1000); 40]);
    let report = s.report().expect("valid");

    assert_eq!(report.attempts.exact(), None);
    assert!((report.attempts.log10() - 120.0).abs() < 1e-9);
    assert_eq!(report.attempts.to_string(), "1.0e120");

    // D = b × (a^n − 1) when every layer is the same: 8.64e7 s × 1e120.
    assert_eq!(report.automatic_delay.to_duration(), None);
    assert_eq!(report.automatic_delay.seconds_text(), "8.6e127 s");
    assert_eq!(report.automatic_delay.to_string(), "1.0e123 days");
    assert_eq!(report.required_window.to_string(), "2.0e123 days");
    assert!(report.required_window > report.automatic_delay);
    assert!(!report.paths[0].covered);

    let text = report.to_text();
    assert!(text.contains("Attempts for one intent  1.0e120"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&idem::window::json::to_json(&report).expect("json"))
            .expect("valid json");
    assert_eq!(json["attempts"], "1.0e120");
    assert!(json["automatic_delay_s"].as_f64().expect("a number") > 8.6e127);
}

#[test]
fn attempts_beyond_u64_are_exact_strings_in_json() {
    let report = stack(&[(1, 1000); 7]).report().expect("valid");
    assert_eq!(report.attempts.exact(), Some(10u128.pow(21)));
    assert_eq!(report.attempts.as_u64(), None);
    assert_eq!(report.attempts.to_string(), "1.0e21");
    let json: serde_json::Value =
        serde_json::from_str(&idem::window::json::to_json(&report).expect("json"))
            .expect("valid json");
    assert_eq!(json["attempts"], "1000000000000000000000");
}

#[test]
fn extreme_inputs_never_panic() {
    let layer = Layer::new("extreme", Duration::MAX, u64::MAX);
    let s = Stack {
        layers: vec![layer; 200],
        window: Duration::MAX,
        safety: 1e300,
        ..Stack::default()
    };
    let report = s.report().expect("valid");
    assert!(report.attempts.to_string().contains('e'));
    assert!(report.required_window.to_string().ends_with(" days"));
    let _ = report.to_text();
    let _ = idem::window::json::to_json(&report).expect("json");
}

#[test]
fn human_units_follow_one_rule() {
    let span = |s: u64| Span::from_duration(secs(s));
    assert_eq!(human_span(span(0)), "0 s");
    assert_eq!(human_span(Span::from_duration(SECOND / 4)), "250 ms");
    assert_eq!(human_span(span(2)), "2 s");
    assert_eq!(human_span(span(119)), "119 s");
    assert_eq!(human_span(span(120)), "2 min");
    assert_eq!(human_span(span(150)), "2.5 min");
    assert_eq!(human_span(span(7596)), "2.1 h");
    assert_eq!(human_span(span(26 * HOUR)), "26 h");
    assert_eq!(human_span(span(47 * HOUR + 1800)), "47.5 h");
    assert_eq!(human_span(span(48 * HOUR)), "2 days");
    assert_eq!(human_span(span(72 * HOUR)), "3 days");
    assert_eq!(human_span(span(72 * HOUR + 600)), "3.0 days");
    assert_eq!(human_span(span(6 * DAY)), "6 days");
    assert_eq!(human_span(span(1500 * DAY)), "1,500 days");
    assert_eq!(seconds_text(span(7596)), "7,596 s");
    assert_eq!(
        seconds_text(Span::from_duration(Duration::from_millis(1500))),
        "1.5 s"
    );
}

#[test]
fn matrix_values_and_levels() {
    let matrix = attempts_matrix();
    assert_eq!(matrix.layer_counts, [1, 2, 3, 4]);
    assert_eq!(matrix.attempt_counts, [2, 3, 4, 5]);
    assert_eq!(matrix.rows.len(), 4);
    for (r, row) in matrix.rows.iter().enumerate() {
        assert_eq!(row.len(), 4);
        for (c, cell) in row.iter().enumerate() {
            assert_eq!(cell.layers, matrix.layer_counts[r]);
            assert_eq!(cell.attempts_per_layer, matrix.attempt_counts[c]);
            assert_eq!(cell.attempts, cell.attempts_per_layer.pow(cell.layers));
        }
    }
    let level = |layers, attempts| {
        let cell = matrix.cell(layers, attempts).expect("in the grid");
        (cell.attempts, cell.level)
    };
    assert_eq!(level(1, 2), (2, Level::Normal));
    assert_eq!(level(3, 2), (8, Level::Normal));
    assert_eq!(level(4, 2), (16, Level::Amber));
    assert_eq!(level(2, 4), (16, Level::Amber));
    assert_eq!(level(3, 3), (27, Level::Amber));
    assert_eq!(level(3, 4), (64, Level::Red));
    assert_eq!(level(4, 5), (625, Level::Red));
    assert!(matrix.cell(5, 2).is_none());

    assert_eq!(Level::of(15), Level::Normal);
    assert_eq!(Level::of(16), Level::Amber);
    assert_eq!(Level::of(63), Level::Amber);
    assert_eq!(Level::of(64), Level::Red);
    assert_eq!(Level::Amber.as_str(), "amber");
    let json = serde_json::to_value(&matrix).expect("json");
    assert_eq!(json["rows"][3][3]["level"], "red");
    assert_eq!(json["rows"][3][3]["attempts"], 625);
}

#[test]
fn invalid_stacks_are_rejected_with_a_reason() {
    let message = |s: Stack| match s.report() {
        Err(WindowError::Stack(message)) => message,
        other => panic!("expected a stack error, got {other:?}"),
    };

    let m = message(stack(&[(2, 3), (60, 0)]));
    assert!(m.contains("layer 2") && m.contains("at least 1"), "{m}");

    let mut s = stack(&[(2, 3)]);
    s.safety = 0.5;
    assert!(message(s).contains("at least 1"));

    let mut s = stack(&[(2, 3)]);
    s.safety = f64::NAN;
    assert!(message(s).contains("at least 1"));

    let mut s = stack(&[(2, 3)]);
    s.layers[0].name = "  ".into();
    assert!(message(s).contains("name is empty"));

    let mut s = stack(&[]);
    s.paths.push(HumanPath::new("automatic", secs(1)));
    assert!(message(s).contains("reserved"));
}

/// The plain recursion, in u128 seconds, for stacks small enough not to overflow.
fn naive(layers: &[(u64, u64)]) -> (u128, u128) {
    layers.iter().fold((1, 0), |(attempts, delay), &(b, a)| {
        (
            attempts * u128::from(a),
            u128::from(b) * u128::from(a - 1) + u128::from(a) * delay,
        )
    })
}

proptest! {
    #[test]
    fn exact_results_match_the_plain_recursion(
        layers in prop::collection::vec((0u64..100_000, 1u64..20), 0..8)
    ) {
        let report = stack(&layers).report().expect("valid");
        let (attempts, delay) = naive(&layers);
        prop_assert_eq!(report.attempts.exact(), Some(attempts));
        prop_assert_eq!(report.automatic_delay.as_nanos(), Some(delay * 1_000_000_000));
    }

    #[test]
    fn any_stack_evaluates_without_panicking(
        layers in prop::collection::vec((any::<u64>(), 1u64..=u64::MAX), 0..64),
        safety in 1.0f64..1e6,
    ) {
        let mut s = stack(&[]);
        s.layers = layers
            .iter()
            .map(|&(nanos, a)| Layer::new("l", Duration::from_nanos(nanos), a))
            .collect();
        s.safety = safety;
        let report = s.report().expect("valid");
        prop_assert!(report.required_window >= report.longest.delay);
        prop_assert!(report.paths.iter().all(|p| p.delay <= report.longest.delay));
        let _ = report.to_text();
    }

    #[test]
    fn adding_an_outer_layer_never_shrinks_anything(
        layers in prop::collection::vec((0u64..1_000_000, 1u64..1000), 0..30),
        outer in (0u64..1_000_000, 1u64..1000),
    ) {
        let inner = stack(&layers).report().expect("valid");
        let mut bigger = layers.clone();
        bigger.push(outer);
        let outer_report = stack(&bigger).report().expect("valid");
        prop_assert!(outer_report.attempts >= inner.attempts);
        prop_assert!(outer_report.automatic_delay >= inner.automatic_delay);
    }
}
