//! `idem run` through the real binary: JSON and text output, `--design`, built-in names and
//! byte-for-byte determinism.

use crate::common;

use common::{TempDir, manifest};
use serde_json::Value;
use std::path::Path;

struct Out {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

impl Out {
    fn text(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }
}

/// Runs the binary with `args` in `dir`, failing the test if it takes more than 10 s.
fn idem_in(dir: Option<&Path>, args: &[&str]) -> Out {
    let output = common::run_idem_in(dir, args);
    Out {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn idem(args: &[&str]) -> Out {
    idem_in(None, args)
}

fn ok(args: &[&str]) -> Out {
    let out = idem(args);
    assert_eq!(out.code, Some(0), "idem {args:?}: {}", out.stderr);
    out
}

fn json(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("idem {args:?} printed invalid JSON: {e}\n{}", out.text()))
}

fn scenario(name: &str) -> String {
    manifest(&format!("scenarios/{name}.toml"))
}

fn check_run_object(v: &Value) {
    for field in [
        "scenario",
        "title",
        "design",
        "design_name",
        "charges",
        "charged_cents",
        "verdict",
        "intents",
        "counters",
        "warnings",
        "ticks",
    ] {
        assert!(v.get(field).is_some(), "missing {field} in {v}");
    }
    for field in [
        "attempts_sent",
        "requests_received",
        "dedupe_hits",
        "conflicts_409",
        "mismatches_422",
        "keys_stored",
        "keys_evicted",
    ] {
        assert!(v["counters"][field].is_u64(), "counter {field} in {v}");
    }
    for intent in v["intents"].as_array().unwrap() {
        for field in [
            "id",
            "key",
            "charges",
            "charged_cents",
            "client_view",
            "verdict",
        ] {
            assert!(intent.get(field).is_some(), "intent lacks {field}");
        }
    }
    let ticks = v["ticks"].as_array().expect("ticks is an array");
    assert!(!ticks.is_empty());
    let mut previous = 0;
    for t in ticks {
        for field in ["at", "actor", "kind", "label", "narration"] {
            assert!(t[field].is_string(), "tick lacks {field}: {t}");
        }
        let at_ms = t["at_ms"].as_u64().expect("at_ms is a number");
        assert!(at_ms >= previous, "time goes back at {t}");
        previous = at_ms;
        // `at` is the millisecond count written as a clock.
        let ms = at_ms % 86_400_000;
        let clock = format!(
            "{:02}:{:02}:{:02}.{:03}",
            ms / 3_600_000,
            ms / 60_000 % 60,
            ms / 1000 % 60,
            ms % 1000
        );
        assert!(
            t["at"].as_str().unwrap().ends_with(&clock),
            "{} vs {clock}",
            t["at"]
        );
    }
}

#[test]
fn default_scenario_as_json() {
    let v = json(&["run", "--json"]);
    check_run_object(&v);
    assert_eq!(v["scenario"], "order-5531");
    assert_eq!(v["design"], "with-charge");
    assert_eq!(v["design_name"], "key stored with the charge");
    assert_eq!(v["charges"], 1);
    assert_eq!(v["charged_cents"], 4860);
    assert_eq!(v["verdict"], "correct");
    assert_eq!(v["intents"][0]["id"], "5531");
    assert_eq!(v["intents"][0]["key"], "K7Q4");
    assert_eq!(v["intents"][0]["client_view"], "paid");
    assert_eq!(v["counters"]["attempts_sent"], 2);
    assert_eq!(v["counters"]["dedupe_hits"], 1);
    assert_eq!(v["warnings"].as_array().unwrap().len(), 0);
    let ticks = v["ticks"].as_array().unwrap();
    assert_eq!(ticks[0]["at"], "14:02:07.000");
    assert_eq!(ticks[0]["actor"], "customer");
    assert_eq!(ticks[0]["kind"], "pay");
    let retry = ticks
        .iter()
        .find(|t| t["at"] == "14:02:38.000")
        .expect("a tick at 14:02:38.000");
    assert_eq!(retry["actor"], "checkout");
    assert_eq!(retry["kind"], "send");
    assert!(retry["label"].as_str().unwrap().contains("K7Q4"));
    assert_eq!(retry["at_ms"], 50_558_000);
    let kinds: Vec<&str> = ticks.iter().map(|t| t["kind"].as_str().unwrap()).collect();
    for k in ["crash", "restart", "timeout", "replay", "statement"] {
        assert!(kinds.contains(&k), "no {k} tick in {kinds:?}");
    }
    assert_eq!(*kinds.last().unwrap(), "statement");
}

#[test]
fn the_default_file_and_the_builtin_print_the_same() {
    let builtin = ok(&["run", "--json"]).stdout;
    let by_name = ok(&["run", "order-5531", "--json"]).stdout;
    assert!(builtin == by_name, "the built-in and its name differ");
    let file: Value = json(&["run", &scenario("order-5531"), "--json"]);
    let builtin: Value = serde_json::from_slice(&builtin).unwrap();
    assert_eq!(file["ticks"], builtin["ticks"]);
    assert_eq!(file["counters"], builtin["counters"]);
}

#[test]
fn all_designs_as_a_json_array() {
    let v = json(&["run", "--design", "all", "--json"]);
    let runs = v.as_array().expect("an array");
    assert_eq!(runs.len(), 6);
    let ids: Vec<&str> = runs.iter().map(|r| r["design"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "with-charge",
            "log-after-charge",
            "no-key",
            "log-before-charge",
            "content-hash",
            "inprogress-record"
        ]
    );
    for r in runs {
        check_run_object(r);
        assert_eq!(r["scenario"], "order-5531");
    }
    // docs/model.md §3, order-5531: 1 / 2 / 1 / 2 / –.
    let charges = |id: &str| {
        runs.iter().find(|r| r["design"] == id).unwrap()["charges"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(charges("with-charge"), 1);
    assert_eq!(charges("log-after-charge"), 2);
    assert_eq!(charges("log-before-charge"), 1);
    assert_eq!(charges("no-key"), 2);
    assert_eq!(runs[1]["verdict"], "duplicate");
    assert_eq!(runs[2]["charged_cents"], 9720);
}

#[test]
fn all_designs_as_text() {
    let text = ok(&["run", "reply-lost", "--design", "all"]).text();
    assert!(text.starts_with("reply-lost — "), "{text}");
    for id in [
        "with-charge",
        "log-after-charge",
        "no-key",
        "log-before-charge",
        "content-hash",
    ] {
        let row = text
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(id))
            .unwrap_or_else(|| panic!("no row for {id} in\n{text}"));
        let expected = if id == "no-key" { "2" } else { "1" };
        assert!(row.split_whitespace().any(|w| w == expected), "{id}: {row}");
    }
    assert!(text.contains("charged-unconfirmed"), "{text}");
}

#[test]
fn the_same_command_twice_prints_the_same_bytes() {
    for args in [
        &["run", "--json"][..],
        &["run", "--design", "all", "--json"],
        &["run", "slow-processor"],
        &["run", "monday-rerun", "--design", "all"],
    ] {
        let a = ok(args).stdout;
        let b = ok(args).stdout;
        assert!(a == b, "idem {args:?} printed different output twice");
    }
}

const JITTERED: &str = r#"title = "Decorrelated jitter"
seed = 77

[[checkout.layer]]
name = "http client"
attempts = 4
timeout = "5s"
backoff = "2s"
multiplier = 2.0
jitter = "decorrelated"

[[checkout.layer]]
name = "job"
attempts = 2
backoff = "1m"
jitter = "full"

[[intent]]
order = "5531"
key = "K7Q4"
amount = "$48.60"
at = "14:02:07"

[[fault]]
attempt = 1
lose = "request"

[[fault]]
attempt = 2
lose = "reply"

[[fault]]
attempt = 3
lose = "request"

[[fault]]
attempt = 4
lose = "request"

[[fault]]
attempt = 5
lose = "reply"
"#;

#[test]
fn a_jittered_scenario_is_deterministic_across_processes() {
    let dir = TempDir::new("jitter");
    let file = dir.file("jitter.toml", JITTERED);
    for design in ["with-charge", "all"] {
        let args = ["run", file.as_str(), "--design", design, "--json"];
        let a = ok(&args).stdout;
        let b = ok(&args).stdout;
        assert!(a == b, "--design {design}: two runs differ");
    }
    let v = json(&["run", file.as_str(), "--json"]);
    check_run_object(&v);
    let stem = Path::new(&file).file_stem().unwrap().to_str().unwrap();
    assert_eq!(
        v["scenario"], stem,
        "a file scenario is named after its stem"
    );
    assert_eq!(v["counters"]["attempts_sent"], 6);
    assert_eq!(v["charges"], 1);
    // The jitter really moved the sends off the un-jittered schedule.
    let sends: Vec<u64> = v["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"] == "send")
        .map(|t| t["at_ms"].as_u64().unwrap())
        .collect();
    let gaps: Vec<u64> = sends.windows(2).map(|w| w[1] - w[0]).collect();
    assert_ne!(gaps[..3], [7_000, 9_000, 13_000], "no jitter applied");
    let text_a = ok(&["run", file.as_str()]).stdout;
    let text_b = ok(&["run", file.as_str()]).stdout;
    assert!(text_a == text_b);
}

#[test]
fn text_output_has_the_timeline_and_the_outcome() {
    let text = ok(&["run"]).text();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("order-5531 — Order 5531: the answer that never came")
    );
    assert_eq!(
        lines.next(),
        Some("design: with-charge (key stored with the charge)")
    );
    for expected in [
        "14:02:07.000  Customer   presses Pay: order 5531, $48.60",
        "14:02:07.000  Checkout   charge $48.60 key K7Q4 #1",
        "14:02:07.250  Processor  crashes",
        "14:02:38.000  Checkout   charge $48.60 key K7Q4 #2",
        "Outcome: ✓ Charged once — $48.60",
        "Verdict: correct",
        "order 5531 (key K7Q4): 1 charge, $48.60; the checkout believes paid",
        "Counters: attempts sent 2",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    let outcome = text.lines().filter(|l| l.starts_with("Outcome: ")).count();
    assert_eq!(outcome, 1);
    // The timeline comes before the outcome, in time order.
    let pay = text.find("presses Pay").unwrap();
    let retry = text.find("14:02:38.000").unwrap();
    let out = text.find("Outcome:").unwrap();
    assert!(pay < retry && retry < out);
    assert!(text.ends_with('\n'));
    assert!(out > 0 && ok(&["run"]).stderr.is_empty());
}

#[test]
fn design_by_number() {
    let v = json(&["run", "--design", "3", "--json"]);
    assert_eq!(v["design"], "no-key");
    assert_eq!(v["charges"], 2);
    assert_eq!(v["verdict"], "duplicate");
    let text = ok(&["run", "--design", "3"]).text();
    assert!(text.contains("design: no-key (no key)"), "{text}");
    assert!(text.contains("Outcome: ✗ Charged twice — $97.20"), "{text}");
    // Every number key and every id selects the same design.
    for (n, id) in [
        ("1", "with-charge"),
        ("2", "log-after-charge"),
        ("3", "no-key"),
        ("4", "log-before-charge"),
        ("5", "content-hash"),
    ] {
        let by_number = ok(&["run", "-d", n, "--json"]).stdout;
        let by_id = ok(&["run", "--design", id, "--json"]).stdout;
        assert!(by_number == by_id, "{n} vs {id}");
        let v: Value = serde_json::from_slice(&by_id).unwrap();
        assert_eq!(v["design"], id);
    }
}

#[test]
fn a_builtin_by_name() {
    // Run from a directory with no scenario files, so only the built-in can answer.
    let dir = std::env::temp_dir();
    let out = idem_in(Some(&dir), &["run", "reply-lost", "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scenario"], "reply-lost");
    assert_eq!(v["title"], "Reply lost: charged, and nobody told");
    assert_eq!(v["charges"], 1);
    assert_eq!(v["verdict"], "correct");
    let kinds: Vec<&str> = v["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"lost") && kinds.contains(&"replay"));

    let no_key = idem_in(
        Some(&dir),
        &["run", "reply-lost", "--design", "no-key", "--json"],
    );
    let v: Value = serde_json::from_slice(&no_key.stdout).unwrap();
    assert_eq!(v["charges"], 2);

    // `name.toml` also finds the built-in when no such file exists here.
    let with_ext = idem_in(Some(&dir), &["run", "reply-lost.toml", "--json"]);
    assert_eq!(with_ext.code, Some(0), "{}", with_ext.stderr);
    assert!(with_ext.stdout == out.stdout);
}

#[test]
fn every_builtin_runs_under_every_design() {
    let expected: [(&str, [Option<u64>; 5]); 9] = [
        // with-charge, log-after-charge, no-key, log-before-charge, content-hash (--design all order)
        ("order-5531", [Some(1), Some(2), Some(2), Some(1), None]),
        ("reply-lost", [Some(1), Some(1), Some(2), Some(1), Some(1)]),
        (
            "request-lost",
            [Some(1), Some(1), Some(1), Some(1), Some(1)],
        ),
        ("slow-processor", [Some(1), Some(2), Some(2), Some(1), None]),
        ("crash-after-key", [Some(1), Some(1), None, Some(0), None]),
        ("key-reuse", [Some(1), None, None, None, None]),
        (
            "second-purchase",
            [Some(2), Some(2), Some(2), Some(2), Some(1)],
        ),
        (
            "per-attempt-key",
            [Some(2), Some(2), Some(2), Some(2), None],
        ),
        ("monday-rerun", [Some(2), None, Some(2), None, None]),
    ];
    for (name, cells) in expected {
        let v = json(&["run", name, "--design", "all", "--json"]);
        let runs = v.as_array().unwrap();
        assert_eq!(runs.len(), 6);
        for (run, cell) in runs.iter().zip(cells) {
            check_run_object(run);
            if let Some(c) = cell {
                assert_eq!(run["charges"], c, "{name} {}", run["design"]);
            }
        }
    }
}

/// A story that names its lanes prints those names in the actor column, each checkout tick
/// under its layer's name when the layers are drawn apart, and the column grows to fit them.
#[test]
fn the_timeline_names_the_lanes_as_the_scenario_does() {
    let text = ok(&["run", "mobile-gateway", "--design", "with-charge"]).text();
    let line = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle}:\n{text}"))
            .to_string()
    };
    assert!(line("charge $48.60 key K7Q4 #1").contains("  API gateway      charge"));
    assert!(line("receives #1").contains("  Payment service  receives #1"));
    assert!(line("presses Pay").contains("  Customer         presses Pay"));
    assert!(line("no answer to #1").contains("  API gateway      no answer"));
}

/// `--design all` lines its columns up however long a cell is, and says what the steps after
/// payment and the night's reconciliation did.
#[test]
fn design_all_lines_up_and_tells_steps_and_reconcile() {
    for name in [
        "courier-retry",
        "nightly-reconcile",
        "order-5531",
        "second-purchase",
    ] {
        let s = idem::scenario::library::find(name)
            .expect("built in")
            .load()
            .expect("loads");
        let traces: Vec<_> = idem::sim::Design::ALL
            .iter()
            .map(|d| s.simulate(*d).expect("runs"))
            .collect();
        let text = idem::cli::run::comparison_text(&s, &traces);
        let rows: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("key"))
            .take(1 + traces.len())
            .collect();
        // Every row's outcome starts in the header's outcome column, after a gap.
        let head: Vec<char> = rows[0].chars().collect();
        let at = (0..head.len())
            .find(|&i| head[i..].starts_with(&['o', 'u', 't', 'c', 'o', 'm', 'e']))
            .expect("an outcome column");
        for r in &rows[1..] {
            let chars: Vec<char> = r.chars().collect();
            assert!(
                chars[at - 2..at].iter().all(|c| *c == ' ') && chars[at] != ' ',
                "{name}: {r}\n{text}"
            );
        }
        let has_steps = traces
            .iter()
            .any(|t| t.outcome.intents.iter().any(|i| !i.steps.is_empty()));
        assert_eq!(text.contains(": then "), has_steps, "{name}\n{text}");
        let has_reconcile = traces.iter().any(|t| t.outcome.reconcile.is_some());
        assert_eq!(
            text.contains("reconcile at "),
            has_reconcile,
            "{name}\n{text}"
        );
    }
}

/// The webhook and queue templates open on their own story: no customer pressing Pay at a
/// checkout that mints a key, where a marketplace or a queue carries the payment.
#[test]
fn the_webhook_and_queue_templates_tell_their_own_story() {
    for name in ["webhook-redelivery", "queue-redelivery"] {
        let out = ok(&["run", &format!("scenarios/{name}.toml")]).text();
        for wrong in ["customer presses Pay", "The checkout mints"] {
            assert!(!out.contains(wrong), "{name}: {wrong}\n{}", out);
        }
        assert!(!out.contains("  Customer  "), "{name}\n{}", out);
    }
}

/// `idem run` under `--key-strategy` tells a story the file's author did not
/// write: where the trainer's words are part of a moment's narration (the queue's message
/// "carrying the order's idempotency key K7Q4"), the text and the JSON say they were written
/// for the file's story; the story as written, and moments without them, say nothing more.
#[test]
fn the_trainers_words_say_they_were_written_for_the_file_under_other_keys() {
    let file = "scenarios/queue-redelivery.toml";
    let caveat = "The trainer's words at this moment were written for the file's story;";
    let as_written = ok(&["run", file]).text();
    assert!(as_written.contains("K7Q4"), "{as_written}");
    assert!(!as_written.contains("trainer's words"), "{as_written}");
    for (flag, mode, changed) in [
        (
            "--key-strategy",
            "per-attempt",
            "the checkout's keys changed it here.",
        ),
        (
            "--key-strategy",
            "none",
            "the checkout's keys changed it here.",
        ),
    ] {
        let text = common::collapse(&ok(&["run", file, flag, mode]).text());
        assert_eq!(text.matches(caveat).count(), 1, "{flag} {mode}: {text}");
        assert!(text.contains(&format!("{caveat} {changed}")), "{text}");
        let v = json(&["run", file, flag, mode, "--json"]);
        let ticks = v["ticks"].as_array().expect("ticks");
        let said: Vec<&str> = ticks
            .iter()
            .filter_map(|t| t["narration"].as_str())
            .filter(|n| n.contains(caveat))
            .collect();
        assert_eq!(said.len(), 1, "{flag} {mode}: {said:?}");
        assert!(
            said[0].starts_with("At 14:02:07 the shop puts"),
            "{}",
            said[0]
        );
        assert!(said[0].ends_with(changed), "{}", said[0]);
    }
    let json_as_written = json(&["run", file, "--json"]).to_string();
    assert!(!json_as_written.contains("trainer's words"));
}
