//! How fast a day of traffic is counted: 1,000,000 orders of order-5531 over 24 h through
//! all six designs, with answers lost, crashes and an outage, on two threads and on one.
//! The replay path's figures for the same engine are in `benches/engine.rs`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idem::scenario::library::default_scenario;
use idem::scenario::traffic::{Loses, TrafficPlan};
use idem::sim::Design;
use idem::traffic::{Progress, Settings, run};
use std::hint::black_box;
use std::time::Duration;

fn traffic(c: &mut Criterion) {
    let scenario = match default_scenario() {
        Ok(s) => s,
        Err(e) => panic!("the built-in scenario must load: {e}"),
    };
    let plan = TrafficPlan {
        orders: Some(1_000_000),
        lose_reply: Some(0.005),
        crash_per_hour: Some(2.0),
        outage: Some((14 * 3_600_000, 600_000)),
        outage_loses: Some(Loses::Answers),
        ..TrafficPlan::default()
    };
    let settings = match Settings::from_plan(&plan, scenario.config.seed) {
        Ok(s) => s,
        Err(e) => panic!("the day's settings must hold: {e}"),
    };
    let mut group = c.benchmark_group("traffic-1m");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(
        settings.orders * Design::ALL.len() as u64,
    ));
    for threads in [2, 1] {
        group.bench_function(format!("six-designs-{threads}-threads"), |b| {
            b.iter(|| {
                run(
                    black_box(&scenario),
                    black_box(&settings),
                    &Design::ALL,
                    threads,
                    &Progress::default(),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, traffic);
criterion_main!(benches);
