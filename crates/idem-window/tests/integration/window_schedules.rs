//! Retry schedules held to plain arithmetic: the waits they give, the retry from which they
//! stop growing (what lets a walk through 10^120 attempts skip the identical ones), and the
//! words and seconds they are written with. Each case says what it would catch (found by
//! mutation testing, `docs/testing.md`).

use std::time::Duration;

use idem::window::{Jitter, Schedule, Span};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The first retry whose wait is already the longest any retry will wait, found by trying
/// every retry in turn: what `steady_from` finds by halving.
fn first_at_the_ceiling(schedule: &Schedule, counted: u64) -> u64 {
    let ceiling = schedule.wait(counted + 1);
    (1..=counted + 1)
        .find(|&n| schedule.wait(n) >= ceiling)
        .unwrap_or(counted + 1)
}

#[test]
fn an_exponential_schedule_settles_where_its_waits_reach_the_ceiling() {
    let cases = [
        (ms(100), 2.0, Some(Duration::from_secs(60))),
        (ms(1000), 1.5, Some(Duration::from_secs(3600))),
        (ms(250), 3.0, Some(ms(250))),
        (ms(7), 1.1, Some(Duration::from_secs(2))),
        (ms(1), 10.0, None),
        // Still growing at the last retry worked out one by one: it settles just after.
        (ms(1000), 1.000_001, None),
    ];
    for (initial, multiplier, cap) in cases {
        let schedule = Schedule::Exponential {
            initial,
            multiplier,
            cap,
        };
        assert_eq!(
            schedule.steady_from(),
            Some(first_at_the_ceiling(&schedule, 1_000_000)),
            "{schedule:?}"
        );
    }
}

#[test]
fn the_last_counted_retry_still_grows_and_the_next_is_at_the_ceiling() {
    // 1.000001^999,999 is about e: the millionth retry waits about 2.7 s, the next one the
    // longest any wait may be.
    let schedule = Schedule::Exponential {
        initial: ms(1000),
        multiplier: 1.000_001,
        cap: None,
    };
    let millionth = schedule.wait(1_000_000).to_duration().expect("fits");
    assert!(
        (2700..2730).contains(&millionth.as_millis()),
        "{millionth:?}"
    );
    assert!(schedule.wait(1_000_001) > schedule.wait(1_000_000));
}

#[test]
fn an_exponential_schedule_started_elsewhere_keeps_its_growth() {
    let schedule = Schedule::Exponential {
        initial: ms(100),
        multiplier: 2.0,
        cap: Some(Duration::from_secs(30)),
    };
    assert_eq!(
        schedule.with_first(ms(500)),
        Schedule::Exponential {
            initial: ms(500),
            multiplier: 2.0,
            cap: Some(Duration::from_secs(30)),
        }
    );
    assert_eq!(
        Schedule::List(vec![ms(1), ms(2)]).with_first(ms(9)),
        Schedule::Constant(ms(9))
    );
}

#[test]
fn each_jitter_has_the_word_files_use() {
    let words: Vec<&str> = [
        Jitter::None,
        Jitter::Full,
        Jitter::Equal,
        Jitter::Decorrelated,
        Jitter::Proportional(0.2),
        Jitter::Growing(ms(100)),
        Jitter::UpTo(1.5),
    ]
    .iter()
    .map(|j| j.id())
    .collect();
    assert_eq!(
        words,
        [
            "none",
            "full",
            "equal",
            "decorrelated",
            "proportional",
            "growing",
            "up-to"
        ]
    );
}

#[test]
fn a_span_in_seconds_is_its_nanoseconds_over_a_billion() {
    assert_eq!(Span::from_nanos(1_500_000_000).as_secs_f64(), 1.5);
    assert_eq!(Span::from_nanos(250_000_000).as_secs_f64(), 0.25);
    // Beyond u128 nanoseconds: 10^70 ns are 10^61 s.
    let huge = Span::from_nanos(10u128.pow(35)).times(idem::window::Count::new(10u128.pow(35)));
    assert!(
        (huge.as_secs_f64() / 1e61 - 1.0).abs() < 1e-6,
        "{}",
        huge.as_secs_f64()
    );
}

#[test]
fn the_sum_of_a_schedules_waits_is_each_wait_added_up() {
    let schedules = [
        Schedule::Constant(ms(1500)),
        Schedule::Exponential {
            initial: ms(100),
            multiplier: 2.0,
            cap: Some(Duration::from_secs(10)),
        },
        Schedule::Exponential {
            initial: ms(40),
            multiplier: 1.5,
            cap: None,
        },
        Schedule::Polynomial {
            power: 4,
            unit: Duration::from_secs(1),
            per_retry: ms(10),
            offset: Duration::from_secs(15),
        },
        Schedule::List(vec![Duration::from_secs(60), Duration::from_secs(120)]),
    ];
    for schedule in &schedules {
        for n in [0, 1, 2, 3, 7, 25, 60] {
            let by_hand = (1..=n).fold(Span::ZERO, |sum, k| sum.plus(schedule.wait(k)));
            assert_eq!(schedule.total(n), by_hand, "{schedule:?}, {n} retries");
        }
    }
}

#[test]
fn a_schedule_is_described_in_a_few_words() {
    let s = Duration::from_secs;
    assert_eq!(Schedule::Constant(s(2)).describe(), "2 s");
    assert_eq!(
        Schedule::Exponential {
            initial: s(1),
            multiplier: 2.0,
            cap: Some(s(20))
        }
        .describe(),
        "1 s ×2 to 20 s"
    );
    assert_eq!(
        Schedule::Polynomial {
            power: 4,
            unit: s(1),
            per_retry: Duration::ZERO,
            offset: s(15)
        }
        .describe(),
        "1 s × count^4 + 15 s"
    );
    assert_eq!(
        Schedule::Polynomial {
            power: 2,
            unit: s(1),
            per_retry: s(3),
            offset: Duration::ZERO
        }
        .describe(),
        "1 s × count^2 + 3 s × n"
    );
    assert_eq!(
        Schedule::List(vec![s(60), s(120)]).describe(),
        "60 s, 2 min"
    );
    let kinds: Vec<&str> = [
        Schedule::Constant(s(1)),
        Schedule::Exponential {
            initial: s(1),
            multiplier: 2.0,
            cap: None,
        },
        Schedule::Polynomial {
            power: 1,
            unit: s(1),
            per_retry: Duration::ZERO,
            offset: Duration::ZERO,
        },
        Schedule::List(vec![s(1)]),
    ]
    .iter()
    .map(Schedule::kind)
    .collect();
    assert_eq!(kinds, ["constant", "exponential", "polynomial", "list"]);
}

#[test]
fn past_the_retries_counted_one_by_one_a_growing_schedule_is_summed_at_its_largest() {
    // A wait of (n − 1) ms before retry n never settles: beyond the first million retries
    // the rest are counted at the largest wait, so the total is never less than the sum.
    let schedule = Schedule::Polynomial {
        power: 1,
        unit: ms(1),
        per_retry: Duration::ZERO,
        offset: Duration::ZERO,
    };
    let n: u64 = 1_200_000;
    let sum_ms: u128 = (0..u128::from(n)).sum();
    let total = schedule.total(n).as_nanos().expect("fits");
    assert!(total >= sum_ms * 1_000_000, "{total} < {sum_ms} ms");
    // And no more than every retry at the last one's wait.
    assert!(total <= u128::from(n) * u128::from(n - 1) * 1_000_000);
}
