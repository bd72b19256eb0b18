//! How long the fault-space explorer takes: every plan of at most 2 (and 3) faults over
//! order-5531, under the five designs of docs/model.md §3's table.

use criterion::{Criterion, criterion_group, criterion_main};
use idem::explore::{Search, explore};
use idem::scenario::library::default_scenario;
use idem::sim::Design;

fn search(c: &mut Criterion) {
    let scenario = match default_scenario() {
        Ok(s) => s,
        Err(e) => panic!("the built-in scenario must load: {e}"),
    };
    let designs = vec![
        Design::WithCharge,
        Design::LogAfterCharge,
        Design::LogBeforeCharge,
        Design::NoKey,
        Design::ContentHash,
    ];
    let mut group = c.benchmark_group("explore order-5531");
    group.sample_size(10);
    for k in [2, 3] {
        let search = Search {
            faults_max: k,
            keep_faults: false,
            designs: designs.clone(),
            ..Default::default()
        };
        group.bench_function(format!("k={k}, 5 designs"), |b| {
            b.iter(|| explore(&scenario, &search).map(|e| e.plans()))
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
