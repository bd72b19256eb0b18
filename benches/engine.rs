//! How fast the engine simulates: order-5531 under each design, snapshots included, a
//! 27-attempt retry storm, and a 12,000-attempt storm. Throughput is reported in ticks per
//! second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idem::scenario::library::default_scenario;
use idem::sim::{Design, SimConfig, simulate};
use std::hint::black_box;
use std::time::Duration;

#[path = "common/storm.rs"]
mod common_storm;
use common_storm::storm_source;

/// Three layers whose attempts multiply to `inner × middle × outer`, every answer lost.
fn storm(inner: u32, middle: u32, outer: u32) -> SimConfig {
    storm_scenario(&storm_source(inner, middle, outer)).config
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
    let source = storm_source(10, 12, 100);
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
