//! docs/model.md §3 through the library: every cell of the canonical table, every `[[expect]]`
//! block the scenario files carry, the verdicts the model implies, and the built-in copies of
//! the files compiled into the binary.

use crate::common;

use idem::scenario::{self, Scenario, library};
use idem::sim::{Belief, Design, TickKind, Trace, Verdict};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The designs in the order of the docs/model.md §3 columns.
const COLUMNS: [Design; 5] = [
    Design::WithCharge,
    Design::LogAfterCharge,
    Design::LogBeforeCharge,
    Design::NoKey,
    Design::ContentHash,
];

/// docs/model.md §3: charges per design, `None` for a `–` cell.
const TABLE: &[(&str, [Option<usize>; 5])] = &[
    ("order-5531", [Some(1), Some(2), Some(1), Some(2), None]),
    ("reply-lost", [Some(1), Some(1), Some(1), Some(2), Some(1)]),
    (
        "request-lost",
        [Some(1), Some(1), Some(1), Some(1), Some(1)],
    ),
    ("slow-processor", [Some(1), Some(2), Some(1), Some(2), None]),
    ("crash-after-key", [Some(1), Some(1), Some(0), None, None]),
    ("key-reuse", [Some(1), None, None, None, None]),
    (
        "second-purchase",
        [Some(2), Some(2), Some(2), Some(2), Some(1)],
    ),
    (
        "per-attempt-key",
        [Some(2), Some(2), Some(2), Some(2), None],
    ),
    ("monday-rerun", [Some(2), None, None, Some(2), None]),
    (
        "webhook-redelivery",
        [Some(1), Some(1), Some(1), Some(2), Some(1)],
    ),
    (
        "queue-redelivery",
        [Some(1), Some(2), Some(1), Some(2), Some(2)],
    ),
    // docs/model.md §5.3's handler error, added as a row (the sixth design is checked on its own).
    (
        "powertools-handler-error",
        [Some(1), Some(2), Some(1), Some(2), Some(1)],
    ),
    // docs/model.md §5.4's lookup: order-5531 with the checkout asking before it retries.
    (
        "lookup-first",
        [Some(1), Some(2), Some(1), Some(2), Some(1)],
    ),
    // docs/model.md §5.2's reconciliation: order-5531 with the shop's job at 02:00. The job
    // refunds, it never charges, so the charges are the default story's.
    (
        "nightly-reconcile",
        [Some(1), Some(2), Some(1), Some(2), None],
    ),
    // docs/model.md §5.1's downstream steps: the payment goes right under every design; what
    // differs is the courier's bookings, which tests/engine_downstream.rs checks.
    (
        "courier-retry",
        [Some(1), Some(1), Some(1), Some(1), Some(1)],
    ),
    // docs/model.md §5.3's crash after the charge, before the completed write (the sixth design's
    // two charges are checked by the file's own [[expect]]).
    (
        "inprogress-crash",
        [Some(1), Some(2), Some(1), Some(2), Some(1)],
    ),
    // Beyond the docs/model.md §3 table, a trainer's incident: an app minting a key per attempt
    // behind a gateway that forwards it, a deploy restarting the service after attempt 1's charge.
    // The app's retry carries a new key, so every design that keys on it charges twice; the body
    // hash sees the same body.
    (
        "mobile-gateway",
        [Some(2), Some(2), Some(2), Some(2), Some(1)],
    ),
];

fn scenario_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(format!("{name}.toml"))
}

fn load(name: &str) -> Scenario {
    let path = scenario_path(name);
    scenario::load(&path).unwrap_or_else(|e| panic!("{} does not load:\n{e}", path.display()))
}

fn run(s: &Scenario, design: Design) -> Trace {
    let trace = s
        .simulate(design)
        .unwrap_or_else(|e| panic!("{} under {design}: {e}", s.name));
    common::end_state::check(&trace).unwrap_or_else(|e| panic!("{}: {e}", s.name));
    trace
}

/// Checks one row of the table and returns every mismatch, so a failure names them all.
fn row_mismatches(name: &str, expected: &[Option<usize>; 5]) -> Vec<String> {
    let s = load(name);
    assert_eq!(s.name, name, "the scenario is named after its file stem");
    let mut wrong = Vec::new();
    for (design, cell) in COLUMNS.iter().zip(expected) {
        let Some(charges) = cell else { continue };
        let trace = run(&s, *design);
        if trace.outcome.charges != *charges {
            wrong.push(format!(
                "{name} under {design}: docs/model.md §3 says {charges} charge(s), the engine made {}",
                trace.outcome.charges
            ));
        }
        // The ledger and the outcome must agree on what moved.
        let per_intent: usize = trace.outcome.intents.iter().map(|i| i.charges).sum();
        assert_eq!(
            per_intent, trace.outcome.charges,
            "{name} under {design}: per-intent charges do not add up"
        );
    }
    wrong
}

fn assert_row(name: &str) {
    let (_, expected) = TABLE
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{name} is not in the table"));
    let wrong = row_mismatches(name, expected);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

macro_rules! spec_row {
    ($test:ident, $name:literal) => {
        #[test]
        fn $test() {
            assert_row($name);
        }
    };
}

spec_row!(table_order_5531, "order-5531");
spec_row!(table_reply_lost, "reply-lost");
spec_row!(table_request_lost, "request-lost");
spec_row!(table_slow_processor, "slow-processor");
spec_row!(table_crash_after_key, "crash-after-key");
spec_row!(table_key_reuse, "key-reuse");
spec_row!(table_second_purchase, "second-purchase");
spec_row!(table_per_attempt_key, "per-attempt-key");
spec_row!(table_monday_rerun, "monday-rerun");
spec_row!(table_powertools_handler_error, "powertools-handler-error");
spec_row!(table_lookup_first, "lookup-first");
spec_row!(table_nightly_reconcile, "nightly-reconcile");
spec_row!(table_courier_retry, "courier-retry");
spec_row!(table_inprogress_crash, "inprogress-crash");
spec_row!(table_mobile_gateway, "mobile-gateway");
spec_row!(table_webhook_redelivery, "webhook-redelivery");
spec_row!(table_queue_redelivery, "queue-redelivery");

#[test]
fn the_table_has_72_claims_and_names_every_scenario_file() {
    let claims: usize = TABLE
        .iter()
        .map(|(_, cells)| cells.iter().flatten().count())
        .sum();
    assert_eq!(
        claims, 72,
        "the docs/model.md §3 table has 33 non-`–` cells, the handler-error, lookup, courier and in-progress crash rows 5 more each, the reconcile row 4, and the mobile-gateway, webhook and queue rows 5 each"
    );

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("scenarios/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let in_table: BTreeSet<String> = TABLE.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(
        on_disk, in_table,
        "every scenario file is a docs/model.md §3 row and back"
    );
}

#[test]
fn every_expect_block_holds() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (name, _) in TABLE {
        let s = load(name);
        assert!(
            !s.expectations.is_empty(),
            "{name} carries no [[expect]] block"
        );
        assert!(
            s.warnings.is_empty(),
            "{name} has warnings: {:?}",
            s.warnings
        );
        for e in &s.expectations {
            // An expectation under K or m is of the story keyed that way.
            let keyed = s
                .rekeyed(e.key_strategy, e.step_keys)
                .unwrap_or_else(|why| panic!("{name}: {why}"));
            let trace = run(&keyed, e.design);
            let o = &trace.outcome;
            let at = format!("{name}.toml:{} ({})", e.line, e.design);
            if let Some(c) = e.charges {
                checked += 1;
                if o.charges != c {
                    wrong.push(format!("{at}: charges {} != expected {c}", o.charges));
                }
            }
            if let Some(v) = e.verdict {
                checked += 1;
                if o.verdict != v {
                    wrong.push(format!("{at}: verdict {:?} != expected {v:?}", o.verdict));
                }
            }
            if let Some(b) = e.client {
                checked += 1;
                for i in &o.intents {
                    if i.client_view != b {
                        wrong.push(format!(
                            "{at}: order {} client {:?} != expected {b:?}",
                            i.id, i.client_view
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked >= 40, "only {checked} expectations checked");
}

#[test]
fn expect_blocks_agree_with_the_spec_table() {
    // A file's own [[expect]] charges must never contradict docs/model.md §3.
    for (name, cells) in TABLE {
        let s = load(name);
        for e in &s.expectations {
            // The sixth design has no §3 column, and a story rekeyed by K or m is not the
            // table's: those expectations are checked above.
            let Some(column) = COLUMNS.iter().position(|d| *d == e.design) else {
                continue;
            };
            if e.key_strategy.is_some() || e.step_keys.is_some() {
                continue;
            }
            if let (Some(file), Some(spec)) = (e.charges, cells[column]) {
                assert_eq!(file, spec, "{name}.toml line {} ({})", e.line, e.design);
            }
        }
    }
}

#[test]
fn order_5531_verdicts() {
    let s = load("order-5531");
    assert_eq!(
        s.design,
        Design::WithCharge,
        "the file opens on with-charge"
    );

    let wc = run(&s, Design::WithCharge).outcome;
    assert_eq!(wc.verdict, Verdict::Correct);
    assert_eq!(wc.intents.len(), 1);
    assert_eq!(wc.intents[0].client_view, Belief::Paid);
    assert_eq!(wc.intents[0].key.as_deref(), Some("K7Q4"));
    assert_eq!(&*wc.intents[0].id, "5531");
    assert_eq!(wc.charged_cents.0, 4860);
    assert_eq!(wc.counters.attempts_sent, 2);
    assert_eq!(wc.counters.dedupe_hits, 1);

    let lac = run(&s, Design::LogAfterCharge).outcome;
    assert_eq!(lac.verdict, Verdict::Duplicate);
    assert_eq!(lac.charged_cents.0, 9720);
    assert_eq!(lac.intents[0].client_view, Belief::Paid);

    let nk = run(&s, Design::NoKey).outcome;
    assert_eq!(nk.verdict, Verdict::Duplicate);

    let lbc = run(&s, Design::LogBeforeCharge).outcome;
    assert_eq!(lbc.verdict, Verdict::Correct);
    assert_eq!(lbc.intents[0].client_view, Belief::Paid);
}

#[test]
fn order_5531_retry_goes_out_at_14_02_38_with_the_same_key() {
    let s = load("order-5531");
    for design in Design::ALL {
        let trace = run(&s, design);
        let sends: Vec<String> = trace
            .ticks
            .iter()
            .filter(|t| t.kind == TickKind::Send)
            .map(|t| trace.format_time(t.at))
            .collect();
        assert_eq!(
            sends[..2],
            ["14:02:07.000".to_string(), "14:02:38.000".to_string()],
            "{design}"
        );
        let told = s.tell(&trace);
        let retry = trace
            .ticks
            .iter()
            .position(|t| t.kind == TickKind::Send && t.attempt == Some(2))
            .map(|i| &told.labels[i])
            .unwrap();
        assert!(retry.contains("key K7Q4"), "{design}: {}", retry);
        // The money moves and the answer leaves; the crash comes right after, and the
        // network loses the answer on its way back.
        let crash = trace
            .ticks
            .iter()
            .position(|t| t.kind == TickKind::Crash)
            .unwrap_or_else(|| panic!("{design}: no crash"));
        assert_eq!(trace.ticks[crash].state.ledger().len(), 1, "{design}");
        assert_eq!(
            trace.ticks[crash - 1].kind,
            TickKind::Reply,
            "{design}: the crash comes right after the answer"
        );
        assert!(
            trace.ticks[crash..]
                .iter()
                .any(|t| t.kind == TickKind::Lost),
            "{design}: the answer is lost on the network"
        );
    }
}

#[test]
fn crash_after_key_under_log_before_charge_ships_unpaid() {
    let s = load("crash-after-key");
    let o = run(&s, Design::LogBeforeCharge).outcome;
    assert_eq!(o.charges, 0);
    assert_eq!(o.charged_cents.0, 0);
    assert_eq!(o.verdict, Verdict::Unpaid);
    assert_eq!(o.intents[0].client_view, Belief::Paid);
    assert_eq!(o.intents[0].verdict, Verdict::Unpaid);
    assert_eq!(o.counters.dedupe_hits, 1, "the retry found the logged key");

    let wc = run(&s, Design::WithCharge).outcome;
    assert_eq!(wc.verdict, Verdict::Correct);
    assert_eq!(wc.intents[0].client_view, Belief::Paid);
    let lac = run(&s, Design::LogAfterCharge).outcome;
    assert_eq!(lac.verdict, Verdict::Correct);
}

#[test]
fn reply_lost_verdicts() {
    let s = load("reply-lost");
    for d in [
        Design::WithCharge,
        Design::LogAfterCharge,
        Design::LogBeforeCharge,
    ] {
        let o = run(&s, d).outcome;
        assert_eq!(o.verdict, Verdict::Correct, "{d}");
        assert_eq!(o.intents[0].client_view, Belief::Paid, "{d}");
        assert_eq!(o.counters.dedupe_hits, 1, "{d}");
    }
    assert_eq!(run(&s, Design::NoKey).outcome.verdict, Verdict::Duplicate);
    // Content hash refuses the retry with a 4xx error: charged once, the shop thinks it failed.
    let ch = run(&s, Design::ContentHash).outcome;
    assert_eq!(ch.verdict, Verdict::ChargedUnconfirmed);
    assert_eq!(ch.intents[0].client_view, Belief::Failed);
    assert_eq!(
        ch.counters.conflicts_409, 0,
        "a duplicate body is not a 409"
    );
}

#[test]
fn request_lost_every_design_is_correct() {
    let s = load("request-lost");
    for d in Design::ALL {
        let o = run(&s, d).outcome;
        assert_eq!(o.verdict, Verdict::Correct, "{d}");
        assert_eq!(o.intents[0].client_view, Belief::Paid, "{d}");
        assert_eq!(o.counters.attempts_sent, 2, "{d}");
        assert_eq!(
            o.counters.requests_received, 1,
            "{d}: the lost one never arrived"
        );
    }
}

#[test]
fn slow_processor_answers_409_then_replays() {
    let s = load("slow-processor");
    let trace = run(&s, Design::WithCharge);
    let o = &trace.outcome;
    assert_eq!(o.verdict, Verdict::Correct);
    assert_eq!(o.intents[0].client_view, Belief::Paid);
    assert!(o.counters.conflicts_409 >= 1, "{:?}", o.counters);
    let last_conflict = trace
        .ticks
        .iter()
        .rposition(|t| t.kind == TickKind::Conflict)
        .expect("a 409 tick");
    let replay = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Replay)
        .expect("a replay tick");
    assert!(
        replay > last_conflict,
        "the replay comes after the last 409"
    );
    for d in [Design::LogAfterCharge, Design::NoKey] {
        assert_eq!(run(&s, d).outcome.verdict, Verdict::Duplicate, "{d}");
    }
}

#[test]
fn key_reuse_is_refused_with_422() {
    let s = load("key-reuse");
    let o = run(&s, Design::WithCharge).outcome;
    assert_eq!(o.intents.len(), 2);
    assert_eq!(o.intents[0].charges, 1);
    assert_eq!(o.intents[0].client_view, Belief::Paid);
    assert_eq!(&*o.intents[1].id, "5538");
    assert_eq!(o.intents[1].charges, 0);
    assert_eq!(o.intents[1].client_view, Belief::Failed);
    assert_eq!(o.intents[1].verdict, Verdict::NotCharged);
    assert_eq!(o.counters.mismatches_422, 1);
    assert_eq!(o.charged_cents.0, 4860, "nothing of the $52.10 moved");
    assert_eq!(o.verdict, Verdict::NotCharged);
}

#[test]
fn second_purchase_content_hash_loses_the_sale() {
    let s = load("second-purchase");
    for d in [
        Design::WithCharge,
        Design::LogAfterCharge,
        Design::LogBeforeCharge,
        Design::NoKey,
    ] {
        let o = run(&s, d).outcome;
        assert_eq!(o.verdict, Verdict::Correct, "{d}");
        assert!(o.intents.iter().all(|i| i.charges == 1), "{d}");
    }
    let o = run(&s, Design::ContentHash).outcome;
    assert_eq!(o.intents[0].charges, 1);
    assert_eq!(o.intents[1].charges, 0);
    assert_eq!(o.intents[1].client_view, Belief::Failed);
    assert_eq!(o.verdict, Verdict::NotCharged);
}

#[test]
fn per_attempt_key_defeats_every_keyed_design() {
    let s = load("per-attempt-key");
    for d in [
        Design::WithCharge,
        Design::LogAfterCharge,
        Design::LogBeforeCharge,
    ] {
        let trace = run(&s, d);
        assert_eq!(trace.outcome.verdict, Verdict::Duplicate, "{d}");
        assert_eq!(trace.outcome.counters.dedupe_hits, 0, "{d}");
        let keys: BTreeSet<&str> = trace
            .ticks
            .last()
            .unwrap()
            .state
            .ledger()
            .iter()
            .map(|c| c.key.as_deref().expect("a keyed charge"))
            .collect();
        assert_eq!(keys.len(), 2, "{d}: the two charges carry different keys");
    }
}

#[test]
fn monday_rerun_outlives_the_key() {
    let s = load("monday-rerun");
    let trace = run(&s, Design::WithCharge);
    let o = &trace.outcome;
    assert_eq!(o.verdict, Verdict::Duplicate);
    assert!(o.counters.keys_evicted >= 1, "{:?}", o.counters);
    let expire = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Expire)
        .expect("an expire tick");
    let rerun = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Rerun)
        .expect("a rerun tick");
    assert!(
        expire < rerun,
        "the key expired before the operator reran it"
    );
    assert_eq!(trace.format_time(trace.ticks[0].at), "Fri 18:00:00.000");
    assert!(
        trace
            .format_time(trace.ticks[rerun].at)
            .starts_with("Mon 18:00:30"),
        "{}",
        trace.format_time(trace.ticks[rerun].at)
    );
    assert_eq!(run(&s, Design::NoKey).outcome.verdict, Verdict::Duplicate);
}

#[test]
fn every_builtin_parses_and_matches_its_file() {
    let names: BTreeSet<&str> = library::BUILTIN.iter().map(|b| b.name).collect();
    let table: BTreeSet<&str> = TABLE.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names, table,
        "the built-ins are exactly the canonical scenarios"
    );
    assert_eq!(
        library::BUILTIN[0].name,
        "order-5531",
        "the default comes first"
    );

    for b in library::BUILTIN {
        let built = b
            .load()
            .unwrap_or_else(|e| panic!("built-in {} does not parse:\n{e}", b.name));
        let file = load(b.name);
        assert_eq!(built.name, b.name);
        assert_eq!(built.title, file.title, "{}", b.name);
        assert_eq!(built.design, file.design, "{}", b.name);
        assert_eq!(built.expectations, file.expectations, "{}", b.name);
        for d in Design::ALL {
            let from_builtin = run(&built, d);
            let from_file = run(&file, d);
            assert_eq!(from_builtin.outcome, from_file.outcome, "{} {d}", b.name);
            let a = serde_json::to_string(&from_builtin).unwrap();
            let z = serde_json::to_string(&from_file).unwrap();
            assert!(a == z, "{} under {d}: the traces differ", b.name);
        }
        let resolved = scenario::resolve(b.name).expect("resolves by name");
        assert_eq!(resolved.title, file.title);
    }
}

#[test]
fn the_default_scenario_is_order_5531() {
    let s = library::default_scenario().expect("the default parses");
    assert_eq!(s.name, "order-5531");
    assert_eq!(s.design, Design::WithCharge);
    let o = run(&s, s.design).outcome;
    assert_eq!((o.charges, o.verdict), (1, Verdict::Correct));
}
