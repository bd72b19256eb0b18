//! How fast the engine simulates: order-5531 under each design, snapshots included, a
//! 27-attempt retry storm, and a 12,000-attempt storm. Throughput is reported in ticks per
//! second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idem::scenario::library::default_scenario;
use idem::sim::{Design, SimConfig, simulate};
use std::hint::black_box;
use std::time::Duration;

/// Three layers whose attempts multiply to `inner × middle × outer`, every answer lost.
fn storm(inner: u32, middle: u32, outer: u32) -> SimConfig {
    let mut source = format!(
        r#"
title = "Storm"
[[checkout.layer]]
attempts = {inner}
timeout = "2s"
[[checkout.layer]]
attempts = {middle}
backoff = "1m"
[[checkout.layer]]
attempts = {outer}
backoff = "1h"
[[intent]]
order = "1"
key = "K1"
amount = "$1.00"
at = "10:00:00"
"#
    );
    for attempt in 1..=inner * middle * outer {
        source.push_str(&format!(
            "[[fault]]\nattempt = {attempt}\nlose = \"reply\"\n"
        ));
    }
    storm_scenario(&source).config
}

fn storm_scenario(source: &str) -> idem::scenario::Scenario {
    match idem::scenario::parse("storm", "storm", source) {
        Ok(s) => s,
        Err(e) => panic!("the storm scenario must parse: {e}"),
    }
}

/// `idem run --json` on the 12,000-attempt storm, minus reading the file: simulated, told a
/// tick at a time and written (to nowhere).
fn run_json(c: &mut Criterion) {
    let cfg = storm(10, 12, 100);
    let mut source = String::from(
        "title = \"Storm\"\n[[checkout.layer]]\nattempts = 10\ntimeout = \"2s\"\n[[checkout.layer]]\nattempts = 12\nbackoff = \"1m\"\n[[checkout.layer]]\nattempts = 100\nbackoff = \"1h\"\n[[intent]]\norder = \"1\"\nkey = \"K1\"\namount = \"$1.00\"\nat = \"10:00:00\"\n",
    );
    for attempt in 1..=12_000 {
        source.push_str(&format!(
            "[[fault]]\nattempt = {attempt}\nlose = \"reply\"\n"
        ));
    }
    let scenario = storm_scenario(&source);
    let mut group = c.benchmark_group("run-json-storm-12000");
    group.sample_size(10);
    for design in [Design::WithCharge, Design::NoKey] {
        group.throughput(Throughput::Elements(ticks(&cfg, design)));
        group.bench_function(design.id(), |b| {
            b.iter(|| {
                idem::cli::run::run_json(
                    black_box(&scenario),
                    &idem::scenario::values::DesignChoice::One(design),
                    &mut std::io::sink(),
                )
            })
        });
    }
    group.finish();
}

fn ticks(cfg: &SimConfig, design: Design) -> u64 {
    simulate(cfg, design).map_or(0, |t| t.ticks.len() as u64)
}

fn engine(c: &mut Criterion) {
    let scenario = match default_scenario() {
        Ok(s) => s,
        Err(e) => panic!("the built-in scenario must load: {e}"),
    };
    let mut group = c.benchmark_group("order-5531");
    for design in Design::ALL {
        group.throughput(Throughput::Elements(ticks(&scenario.config, design)));
        group.bench_function(design.id(), |b| {
            b.iter(|| simulate(black_box(&scenario.config), design))
        });
    }
    group.finish();

    // Every answer is lost, so all 27 attempts go out.
    let storm27 = storm(3, 3, 3);
    let mut group = c.benchmark_group("storm-27");
    for design in [Design::WithCharge, Design::NoKey] {
        group.throughput(Throughput::Elements(ticks(&storm27, design)));
        group.bench_function(design.id(), |b| {
            b.iter(|| simulate(black_box(&storm27), design))
        });
    }
    group.finish();

    // 10 × 12 × 100 = 12,000 attempts, every answer lost: under no-key each one is a charge.
    let storm12k = storm(10, 12, 100);
    let mut group = c.benchmark_group("storm-12000");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for design in [Design::WithCharge, Design::NoKey] {
        group.throughput(Throughput::Elements(ticks(&storm12k, design)));
        group.bench_function(design.id(), |b| {
            b.iter(|| simulate(black_box(&storm12k), design))
        });
    }
    group.finish();
}

/// The words for a trace: each tick's label and narration, made from its claims. Telling
/// must stay linear in the ticks, as simulating is.
fn story(c: &mut Criterion) {
    let mut group = c.benchmark_group("tell");
    group.sample_size(10);
    for (name, cfg) in [
        ("storm-27", storm(3, 3, 3)),
        ("storm-12000", storm(10, 12, 100)),
    ] {
        let trace = match simulate(&cfg, Design::NoKey) {
            Ok(t) => t,
            Err(e) => panic!("the storm must simulate: {e}"),
        };
        group.throughput(Throughput::Elements(trace.ticks.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| idem::story::tell(black_box(&cfg), black_box(&trace)))
        });
    }
    group.finish();
}

criterion_group!(benches, engine, story, run_json);
criterion_main!(benches);
