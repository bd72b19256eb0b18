//! The calculator's numbers, held to plain arithmetic: counts and spans exact while they fit
//! in a `u128`, logarithms beyond, never wrapping; and how they are written for people. Each
//! case says what it would catch (found by mutation testing, `docs/testing.md`).

use std::time::Duration;

use idem::units::SCIENTIFIC_FROM;
use idem::window::{Count, Layer, Span, Stack, seconds_text, two_units};

/// 10^(35 × n), well past `u128::MAX` for n ≥ 2: a count only a logarithm can hold.
fn ten_to_the_35_times(n: usize) -> Count {
    let step = Count::new(10u128.pow(35));
    (1..n).fold(step, |acc, _| acc.times(step))
}

#[test]
fn a_count_reads_its_own_value_back() {
    assert_eq!(Count::new(5).as_u64(), Some(5));
    assert_eq!(Count::new(u128::from(u64::MAX) + 1).as_u64(), None);
    assert_eq!(Count::new(1234).as_f64(), 1234.0);
    // Beyond u128, the float is still the value: 10^70 within a part in a million.
    let huge = ten_to_the_35_times(2);
    assert_eq!(huge.exact(), None);
    assert!(
        (huge.as_f64() / 1e70 - 1.0).abs() < 1e-6,
        "{}",
        huge.as_f64()
    );
    assert!(Count::UNBOUNDED.is_unbounded());
    assert!(!huge.is_unbounded());
}

#[test]
fn nothing_times_anything_is_nothing_exactly() {
    for other in [Count::ONE, ten_to_the_35_times(20), Count::UNBOUNDED] {
        assert_eq!(Count::ZERO.times(other).exact(), Some(0), "{other:?}");
        assert_eq!(other.times(Count::ZERO).exact(), Some(0), "{other:?}");
    }
}

#[test]
fn adding_a_small_huge_number_to_a_large_one_never_overflows() {
    // 10^700 + 10^210: the sum is 10^700 to the precision kept, whichever comes first; the
    // larger must lead the sum's logarithm, or 10^(700 − 210) overflows a float.
    let (large, small) = (ten_to_the_35_times(20), ten_to_the_35_times(6));
    for sum in [large.plus(small), small.plus(large)] {
        assert!(!sum.is_unbounded(), "{sum:?}");
        assert!((sum.log10() - 700.0).abs() < 1e-9, "{}", sum.log10());
    }
}

#[test]
fn a_whole_safety_factor_keeps_a_span_exact() {
    // 2^60 + 1 nanoseconds doubled and tripled: a float would drop the last nanosecond.
    let n = (1u128 << 60) + 1;
    assert_eq!(Span::from_nanos(n).scaled(2.0).as_nanos(), Some(2 * n));
    assert_eq!(Span::from_nanos(n).scaled(3.0).as_nanos(), Some(3 * n));
}

#[test]
fn a_fractional_factor_rounds_and_past_u128_becomes_a_logarithm() {
    assert_eq!(
        Span::from_nanos(1_000_000_001).scaled(1.5).as_nanos(),
        Some(1_500_000_002)
    );
    let big = Span::from_nanos(u128::MAX / 2);
    let scaled = big.scaled(2.5);
    assert_eq!(scaled.as_nanos(), None);
    let expected = ((u128::MAX / 2) as f64).log10() + 2.5f64.log10();
    assert!(
        (scaled.log10_nanos() - expected).abs() < 1e-9,
        "{}",
        scaled.log10_nanos()
    );
}

#[test]
fn a_factor_below_one_or_not_finite_counts_as_one() {
    let span = Span::from_nanos(7_000_000_000);
    for factor in [0.5, 0.0, -2.0, f64::INFINITY, f64::NAN] {
        assert_eq!(span.scaled(factor), span, "{factor}");
    }
}

#[test]
fn a_count_is_written_in_digit_groups_until_it_is_written_in_powers_of_ten() {
    assert_eq!(Count::new(1234).to_string(), "1,234");
    let last_grouped = Count::new(SCIENTIFIC_FROM - 1).to_string();
    assert!(last_grouped.contains(',') && !last_grouped.contains('e'));
    let first_scientific = Count::new(SCIENTIFIC_FROM).to_string();
    assert!(first_scientific.contains('e'), "{first_scientific}");
    assert_eq!(Count::UNBOUNDED.to_string(), "unbounded");
}

#[test]
fn seconds_are_written_whole_until_they_are_written_in_powers_of_ten() {
    let seconds = |s: u128| Span::from_nanos(s * 1_000_000_000);
    assert_eq!(seconds_text(seconds(7596)), "7,596 s");
    let last_whole = seconds_text(seconds(SCIENTIFIC_FROM - 1));
    assert!(!last_whole.contains('e'), "{last_whole}");
    let first_scientific = seconds_text(seconds(SCIENTIFIC_FROM));
    assert!(first_scientific.contains('e'), "{first_scientific}");
    // A whole number of seconds past the bound, give or take a nanosecond.
    let just_past = seconds_text(Span::from_nanos(SCIENTIFIC_FROM * 1_000_000_000 + 1));
    assert!(just_past.contains('e'), "{just_past}");
}

#[test]
fn up_to_two_days_a_span_is_written_in_hours() {
    let hours = |h: u64| Span::from_duration(Duration::from_secs(h * 3600));
    assert_eq!(two_units(hours(26)), "26 h");
    assert_eq!(two_units(hours(47)), "47 h");
    assert_eq!(two_units(hours(50)), "2 d 2 h");
}

#[test]
fn the_report_cleans_layer_names_and_knows_a_deadline_is_a_timeout() {
    let mut with_deadline = Layer::new("gateway\u{1b}[31m", Duration::from_secs(1), 2);
    with_deadline.deadline = Some(Duration::from_secs(10));
    let stack = Stack {
        layers: vec![with_deadline],
        ..Stack::default()
    };
    let report = stack.report().expect("valid");
    assert!(
        !report.layers[0].name.contains('\u{1b}'),
        "{:?}",
        report.layers[0].name
    );
    assert!(report.layers[0].name.starts_with("gateway"));
    assert!(report.timeouts_known, "a deadline is a known time limit");
}

#[test]
fn a_product_that_reaches_two_to_the_128_is_no_longer_exact() {
    // 2^128 is one more than u128 holds: whether reached by a whole factor or a fraction.
    assert_eq!(
        Span::from_nanos(1).scaled(u128::MAX as f64).as_nanos(),
        None
    );
    let n: u128 = 226_854_911_280_625_629_715_939_117_302_124_904_448; // 2^128 / 1.5
    assert_eq!(Span::from_nanos(n).scaled(1.5).as_nanos(), None);
}

#[test]
fn where_a_layer_was_read_is_written_file_line_and_field() {
    let mut found = idem::window::Provenance::new("retry.yaml", "maxAttempts");
    assert_eq!(found.place(), "retry.yaml (maxAttempts)");
    found.line = Some(12);
    assert_eq!(found.place(), "retry.yaml:12 (maxAttempts)");
    assert_eq!(
        idem::window::Provenance::new("app.properties", "").place(),
        "app.properties"
    );
    found.note("3 attempts, the default");
    assert_eq!(found.values, ["3 attempts, the default"]);
}

#[test]
fn a_layers_backoff_is_its_first_wait_and_its_multiplier_at_least_one() {
    let mut layer = Layer::new("client", Duration::from_secs(2), 3);
    assert_eq!(layer.backoff(), Duration::from_secs(2));
    layer.schedule = idem::window::Schedule::Exponential {
        initial: Duration::from_millis(500),
        multiplier: 0.5,
        cap: None,
    };
    assert_eq!(layer.backoff(), Duration::from_millis(500));
    let stack = Stack {
        layers: vec![layer],
        ..Stack::default()
    };
    assert!(stack.report().is_err(), "a multiplier below 1 is refused");
}
