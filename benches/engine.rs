//! How fast the engine simulates: order-5531 under each design, snapshots included, and a
//! 27-attempt retry storm. Throughput is reported in ticks per second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idem::scenario::library::default_scenario;
use idem::sim::{Design, simulate};
use std::hint::black_box;

const STORM: &str = r#"
title = "Storm"
[[checkout.layer]]
attempts = 3
timeout = "2s"
[[checkout.layer]]
attempts = 3
backoff = "1m"
[[checkout.layer]]
attempts = 3
backoff = "1h"
[[intent]]
order = "1"
key = "K1"
amount = "$1.00"
at = "10:00:00"
"#;

fn engine(c: &mut Criterion) {
    let scenario = match default_scenario() {
        Ok(s) => s,
        Err(e) => panic!("the built-in scenario must load: {e}"),
    };
    let mut group = c.benchmark_group("order-5531");
    for design in Design::ALL {
        let ticks = simulate(&scenario.config, design).map_or(0, |t| t.ticks.len());
        group.throughput(Throughput::Elements(ticks as u64));
        group.bench_function(design.id(), |b| {
            b.iter(|| simulate(black_box(&scenario.config), design))
        });
    }
    group.finish();

    // Every answer is lost, so all 27 attempts go out.
    let mut source = STORM.to_string();
    for attempt in 1..=27 {
        source.push_str(&format!(
            "[[fault]]\nattempt = {attempt}\nlose = \"reply\"\n"
        ));
    }
    let storm = match idem::scenario::parse("storm", "storm", &source) {
        Ok(s) => s,
        Err(e) => panic!("the storm scenario must parse: {e}"),
    };
    let mut group = c.benchmark_group("storm-27");
    for design in [Design::WithCharge, Design::NoKey] {
        let ticks = simulate(&storm.config, design).map_or(0, |t| t.ticks.len());
        group.throughput(Throughput::Elements(ticks as u64));
        group.bench_function(design.id(), |b| {
            b.iter(|| simulate(black_box(&storm.config), design))
        });
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
