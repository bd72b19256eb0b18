//! The store figures of a day of traffic (peak keys, peak bytes, evictions, keys held at the
//! period's end, and the week of keys), held to a brute-force replay of every key's life
//! that shares no code with the day's sweep: each order is written out as a scenario of its
//! own, simulated tick by tick, and the processor's memory is read off every tick. A key is
//! held from the tick that shows it to the tick that no longer does; what the last tick
//! still holds stays until its expiry. The orders' stores are then laid over each other at
//! their arrival times and counted moment by moment.

use idem::scenario::traffic::{Arrivals, TrafficPlan};
use idem::scenario::{Scenario, parse};
use idem::sim::Design;
use idem::traffic::{self, Progress, Report, Settings};
use proptest::prelude::*;

const WEEK_MS: u64 = 7 * 86_400_000;

/// A shop whose checkout and processor the case chooses.
fn shop(attempts: u32, timeout_s: u32, retention_ms: u64) -> String {
    format!(
        r#"title = "A shop for the store's figures"
seed = 17

[[checkout.layer]]
name = "checkout"
attempts = {attempts}
timeout = "{timeout_s}s"
backoff = "2s"

[processor]
retention = "{retention_ms}ms"

[[intent]]
order = "8101"
key = "K810"
amount = "$12.00"
at = "00:00:00"
"#
    )
}

fn parsed(text: &str) -> Scenario {
    parse("store.toml", "store", text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// What one design's store did over the period, counted the slow way.
#[derive(Debug, PartialEq)]
struct Brute {
    peak: u64,
    peak_at: u64,
    evicted_in_period: u64,
    held_at_end: u64,
    week_peak: u64,
    stored: u64,
}

/// The most held at once over `changes` (moment, +1 or -1), every change at one moment made
/// before the store is looked at, and the first moment it was held.
fn peak_of(mut changes: Vec<(u64, i64)>) -> (u64, u64) {
    changes.sort_by_key(|&(t, _)| t);
    let (mut live, mut peak, mut peak_at) = (0i64, 0i64, 0u64);
    let mut i = 0;
    while i < changes.len() {
        let t = changes[i].0;
        while i < changes.len() && changes[i].0 == t {
            live += changes[i].1;
            i += 1;
        }
        assert!(live >= 0, "the store went below empty at {t}");
        if live > peak {
            peak = live;
            peak_at = t;
        }
    }
    (peak as u64, peak_at)
}

fn brute(s: &Scenario, settings: &Settings, design: Design) -> Brute {
    let period = settings.over_ms;
    let mut held: Vec<(u64, i64)> = Vec::new();
    let mut week: Vec<(u64, i64)> = Vec::new();
    let mut stored = 0u64;
    let mut writes_before_end = 0u64;
    for index in 0..settings.orders {
        let case = traffic::order_case(s, settings, design, index)
            .unwrap_or_else(|e| panic!("order {index}: {e}"));
        let text = traffic::order_scenario_toml(s, settings, design, &case)
            .unwrap_or_else(|e| panic!("order {index}: {e}"));
        let one = parsed(&text);
        let trace = one
            .simulate(design)
            .unwrap_or_else(|e| panic!("order {index}: {e}"));
        let pay = one.config.intents[0].at.0;
        let abs = |t: u64| case.start_ms + t.saturating_sub(pay);
        let mut before = 0i64;
        let mut writes = 0u32;
        for tick in &trace.ticks {
            let now = tick.state.memory.iter().count() as i64;
            if now != before {
                held.push((abs(tick.at.0), now - before));
                before = now;
            }
            for _ in writes..tick.state.counters.keys_stored {
                let at = abs(tick.at.0);
                week.push((at, 1));
                week.push((at + WEEK_MS, -1));
                stored += 1;
                if at < period {
                    writes_before_end += 1;
                }
            }
            writes = tick.state.counters.keys_stored;
        }
        if let Some(last) = trace.ticks.last() {
            for e in last.state.memory.iter() {
                if let Some(x) = e.expires_at {
                    held.push((abs(x.0.max(last.at.0)), -1));
                }
            }
        }
    }
    let (peak, peak_at) = peak_of(held.clone());
    let held_at_end = held
        .iter()
        .filter(|&&(t, _)| t < period)
        .map(|&(_, d)| d)
        .sum::<i64>() as u64;
    let (week_peak, _) = peak_of(week);
    Brute {
        peak,
        peak_at,
        evicted_in_period: writes_before_end - held_at_end,
        held_at_end,
        week_peak,
        stored,
    }
}

fn day(s: &Scenario, settings: &Settings) -> Report {
    traffic::run(s, settings, &Design::ALL, 1, &Progress::default())
        .unwrap_or_else(|e| panic!("the day did not run: {e}"))
}

#[allow(clippy::too_many_arguments)]
fn holds(
    attempts: u32,
    timeout_s: u32,
    retention_ms: u64,
    orders: u64,
    over_ms: u64,
    daily: bool,
    faults: (f64, f64, f64),
    crash_per_hour: f64,
    rerun_after_ms: Option<u64>,
) -> Result<(), TestCaseError> {
    let s = parsed(&shop(attempts, timeout_s, retention_ms));
    let plan = TrafficPlan {
        orders: Some(orders),
        over_ms: Some(over_ms),
        arrivals: Some(if daily {
            Arrivals::Daily
        } else {
            Arrivals::Steady
        }),
        lose_reply: Some(faults.0),
        lose_request: Some(faults.1),
        slow: Some(faults.2),
        crash_per_hour: Some(crash_per_hour),
        rerun_after_ms,
        ..TrafficPlan::default()
    };
    let settings = Settings::from_plan(&plan, s.config.seed)
        .map_err(|e| TestCaseError::fail(format!("settings refused: {e}")))?;
    let report = day(&s, &settings);
    for d in &report.designs {
        let b = brute(&s, &settings, d.design);
        let what = format!(
            "{} with {plan:?}, retention {retention_ms} ms",
            d.design.id()
        );
        prop_assert_eq!(d.keys_stored, b.stored, "stored: {}", what);
        prop_assert_eq!(d.peak_keys, b.peak, "peak: {}", what);
        if b.peak > 0 {
            prop_assert_eq!(d.peak_at_ms, b.peak_at, "peak at: {}", what);
        }
        prop_assert_eq!(
            d.peak_bytes,
            b.peak * settings.record_bytes,
            "bytes: {}",
            what
        );
        prop_assert_eq!(d.keys_evicted, b.evicted_in_period, "evicted: {}", what);
        prop_assert_eq!(d.keys_held_at_end, b.held_at_end, "held at end: {}", what);
        prop_assert_eq!(d.week_peak_keys, b.week_peak, "week: {}", what);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Retention from a millisecond to longer than the period, steady and daily arrivals,
    /// lost answers, lost requests, slow attempts, crashes and a person's reruns.
    #[test]
    fn the_store_figures_are_every_keys_life_added_up(
        attempts in 1u32..4,
        timeout_s in 1u32..20,
        retention_ms in prop_oneof![
            1u64..1_000,
            1_000u64..600_000,
            600_000u64..10_000_000,
            10_000_000u64..400_000_000,
            Just(8 * 86_400_000u64),
        ],
        orders in 1u64..60,
        over_ms in prop_oneof![60_000u64..3_600_000, 3_600_000u64..200_000_000, Just(9 * 86_400_000u64)],
        daily in any::<bool>(),
        faults in prop_oneof![
            Just((0.0, 0.0, 0.0)),
            (0.05f64..0.5, Just(0.0), Just(0.0)),
            (0.0f64..0.3, 0.0f64..0.3, 0.0f64..0.3),
        ],
        crash_per_hour in prop_oneof![Just(0.0), 0.5f64..30.0],
        rerun_after_ms in prop_oneof![Just(None), (1_000u64..100_000_000).prop_map(Some)],
    ) {
        holds(attempts, timeout_s, retention_ms, orders, over_ms, daily, faults, crash_per_hour, rerun_after_ms)?;
    }
}

/// The figures the issue found wrong, worked by hand: 1,440 steady orders over a day, one a
/// minute, each keeping its one key for a minute, hold at most 2 at once (a key written at
/// the minute's start is still held when the next order writes), evict all but the last
/// ones before the day ends, and a week of the same keys holds all 1,440.
#[test]
fn a_minute_of_retention_holds_a_minute_of_keys_not_the_day() {
    let s = parsed(&shop(3, 10, 60_000));
    let plan = TrafficPlan {
        orders: Some(1_440),
        over_ms: Some(86_400_000),
        ..TrafficPlan::default()
    };
    let settings = Settings::from_plan(&plan, s.config.seed).expect("settings");
    let report = day(&s, &settings);
    let keyed = report
        .designs
        .iter()
        .find(|d| d.design == Design::WithCharge)
        .expect("with-charge");
    assert_eq!(keyed.keys_stored, 1_440);
    assert!(keyed.peak_keys <= 2, "peak {}", keyed.peak_keys);
    assert!(
        keyed.keys_evicted >= 1_438,
        "evicted {}",
        keyed.keys_evicted
    );
    assert_eq!(keyed.week_peak_keys, 1_440);
    let words = idem::traffic::words::week_of_keys(&report, s.config.retention_ms).join("\n");
    assert!(
        words.contains(&format!(
            "with-charge's keys peaked at {} held at once",
            keyed.peak_keys
        )),
        "{words}"
    );
    assert!(
        words.contains("would have held at most 1,440 (864.0 KB)")
            && words.contains("at about 1,440 keys a day, 7 such days hold 10,080"),
        "{words}"
    );
}

/// The screen's bars count every order a design left wrong, so a design that charges once and
/// leaves the shop unaware (content-hash on a lost answer) never reads as safe.
#[test]
fn the_bars_of_harm_count_every_order_left_wrong() {
    let s = parsed(&shop(3, 10, 86_400_000));
    let plan = TrafficPlan {
        orders: Some(4_000),
        lose_reply: Some(0.02),
        ..TrafficPlan::default()
    };
    let settings = Settings::from_plan(&plan, s.config.seed).expect("settings");
    let report = day(&s, &settings);
    for d in &report.designs {
        let parts = [
            d.duplicate_orders,
            d.unpaid,
            d.charged_unconfirmed,
            d.downstream_duplicates,
        ];
        assert!(
            parts.iter().all(|&p| d.ended_wrong >= p) && d.ended_wrong <= parts.iter().sum(),
            "{}: {} wrong of {parts:?}",
            d.design.id(),
            d.ended_wrong
        );
        assert_eq!(
            d.ended_wrong + d.correct + d.not_charged,
            d.orders,
            "{}",
            d.design.id()
        );
    }
    let hash = report
        .designs
        .iter()
        .find(|d| d.design == Design::ContentHash)
        .expect("content-hash");
    assert!(hash.charged_unconfirmed > 0 && hash.ended_wrong == hash.charged_unconfirmed);
}
