//! The fault-space explorer (`idem explore`): what it must find on the canonical scenarios,
//! that its counterexamples reproduce, and that its counts do not change from run to run.

use crate::common;

use idem::cli::explore::to_json;
use idem::explore::{Search, explore};
use idem::scenario::library::{BUILTIN, find};
use idem::scenario::{self, Scenario};
use idem::sim::config::{CrashPoint, Direction, FaultAction};
use idem::sim::{Design, Verdict};

fn builtin(name: &str) -> Scenario {
    find(name).expect("built in").load().expect("loads")
}

fn search(k: usize, designs: &[Design]) -> Search {
    Search {
        faults_max: k,
        keep_faults: false,
        designs: designs.to_vec(),
        ..Default::default()
    }
}

#[test]
fn with_charge_has_no_duplicate_plan_of_two_faults_on_the_core_stories() {
    for name in ["order-5531", "reply-lost", "request-lost", "slow-processor"] {
        let found = explore(&builtin(name), &search(2, &[Design::WithCharge])).expect("runs");
        let d = &found.designs[0];
        assert_eq!(d.verdicts[&Verdict::Duplicate], 0, "{name}: {d:?}");
        assert!(d.max_charges <= 1, "{name}: {d:?}");
        assert!(d.plans > 100, "{name}: the search ran ({} plans)", d.plans);
    }
}

#[test]
fn one_fault_is_enough_to_charge_twice_without_a_key_or_with_a_key_logged_after() {
    let s = builtin("order-5531");
    let found = explore(&s, &search(1, &[Design::NoKey, Design::LogAfterCharge])).expect("runs");
    let no_key = &found.designs[0];
    let (verdict, plan) = &no_key.counterexamples[0];
    assert_eq!(*verdict, Verdict::Duplicate);
    assert_eq!(plan.len(), 1);
    assert_eq!(
        plan[0].action,
        FaultAction::Lose {
            direction: Direction::Reply
        }
    );
    let log_after = &found.designs[1];
    let (verdict, plan) = &log_after.counterexamples[0];
    assert_eq!((*verdict, plan.len()), (Verdict::Duplicate, 1));
    // A crash after the charge does it on its own too: the key is never logged.
    let mut crash = s.clone();
    crash.config.faults = vec![idem::sim::config::Fault {
        intent: 0,
        attempt: 1,
        action: FaultAction::Crash {
            after: CrashPoint::Charge,
            restart_after_ms: 2_000,
        },
    }];
    let trace = crash.simulate(Design::LogAfterCharge).expect("runs");
    assert_eq!(trace.outcome.verdict, Verdict::Duplicate);
    assert!(
        log_after.verdicts[&Verdict::Duplicate] >= 3,
        "{log_after:?}"
    );
}

/// Every counterexample of every built-in at K = 2, written as a scenario, gives its verdict
/// when that file is run under the design it opens with.
#[test]
fn every_counterexample_reproduces_its_verdict() {
    let mut checked = 0;
    for b in BUILTIN {
        let s = b.load().expect("loads");
        let found = explore(&s, &search(2, &Design::ALL)).expect("runs");
        let json = to_json(&s, &found).expect("written");
        for d in &json.designs {
            for c in &d.counterexamples {
                let file =
                    scenario::parse("plan.toml", "plan", &c.scenario_toml).unwrap_or_else(|e| {
                        panic!("{} {}: {e}\n{}", b.name, d.design, c.scenario_toml)
                    });
                assert_eq!(file.design.id(), d.design);
                let trace = file.simulate(file.design).expect("runs");
                assert_eq!(
                    trace.outcome.verdict.id(),
                    c.verdict,
                    "{} {}: {:?}\n{}",
                    b.name,
                    d.design,
                    c.faults,
                    c.scenario_toml
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "{checked} counterexamples checked");
}

/// Through the real binary: `idem explore --json`, then `idem run --json` on a counterexample.
#[test]
fn the_binary_writes_counterexamples_that_idem_run_reproduces() {
    let out = common::run_idem_in(None, &["explore", "reply-lost", "--faults", "1", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["faults_max"], 1);
    assert_eq!(json["kept_faults"], false);
    let no_key = json["designs"]
        .as_array()
        .expect("designs")
        .iter()
        .find(|d| d["design"] == "no-key")
        .expect("no-key");
    let c = &no_key["counterexamples"][0];
    assert_eq!(c["verdict"], "duplicate");
    let dir = common::TempDir::new("explore-plan");
    let path = dir.file("plan.toml", c["scenario_toml"].as_str().expect("text"));
    let run = common::run_idem_in(None, &["run", &path, "--json"]);
    let result: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_eq!(result["verdict"], "duplicate");
    assert_eq!(result["design"], "no-key");

    let bad = common::run_idem_in(None, &["explore", "--faults", "9"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--faults takes 1 to 3"));
}

/// The same search gives the same counts every time, and a design searched alone gives what it
/// gives beside the others (each design runs on its own thread).
#[test]
fn the_counts_are_stable() {
    let s = builtin("order-5531");
    let all = explore(&s, &search(2, &Design::ALL)).expect("runs");
    let again = explore(&s, &search(2, &Design::ALL)).expect("runs");
    assert_eq!(all, again);
    for (i, d) in Design::ALL.iter().enumerate() {
        let alone = explore(&s, &search(2, &[*d])).expect("runs");
        assert_eq!(alone.designs[0], all.designs[i], "{d}");
    }
}

/// A search told to stop (Ctrl-C) keeps what it counted and says it is partial; the progress
/// counter counts every plan run.
#[test]
fn a_stopped_search_is_marked_partial() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let s = builtin("order-5531");
    let stop = Arc::new(AtomicBool::new(true));
    let stopped = explore(
        &s,
        &Search {
            faults_max: 2,
            designs: vec![Design::NoKey],
            stop: Some(stop),
            ..Default::default()
        },
    )
    .expect("runs");
    assert!(stopped.partial());
    assert_eq!(stopped.plans(), 0);
    assert!(to_json(&s, &stopped).expect("written").partial);

    let progress = Arc::new(AtomicUsize::new(0));
    let whole = explore(
        &s,
        &Search {
            faults_max: 2,
            designs: vec![Design::NoKey],
            progress: Some(Arc::clone(&progress)),
            ..Default::default()
        },
    )
    .expect("runs");
    assert!(!whole.partial());
    assert!(progress.load(Ordering::Relaxed) >= whole.plans());
}

/// `--keep-faults` searches on top of the scenario's own faults: reply-lost's lost answer
/// stays, so no-key is charged twice with no plan at all, and every counterexample file keeps it.
#[test]
fn keep_faults_searches_on_top_of_the_scenarios_own() {
    let s = builtin("reply-lost");
    let kept = explore(
        &s,
        &Search {
            faults_max: 1,
            keep_faults: true,
            designs: vec![Design::NoKey],
            ..Default::default()
        },
    )
    .expect("runs");
    let (verdict, plan) = &kept.designs[0].counterexamples[0];
    assert_eq!((*verdict, plan.len()), (Verdict::Duplicate, 0));
    let json = to_json(&s, &kept).expect("written");
    assert!(json.kept_faults);
    let file = scenario::parse(
        "k.toml",
        "k",
        &json.designs[0].counterexamples[0].scenario_toml,
    )
    .expect("parses");
    assert_eq!(
        file.config.faults.len(),
        1,
        "the scenario's own lost answer is kept"
    );
    // Without it, the same search starts from a clean run.
    let clean = explore(&s, &search(1, &[Design::NoKey])).expect("runs");
    assert_eq!(clean.designs[0].counterexamples[0].1.len(), 1);
}
