//! `idem import` on records real software wrote (tests/fixtures/import/, made by
//! interop/import/run; its README says how): each becomes a scenario `idem check` passes,
//! whose charges are the ledger's under the design the middleware behaves like, and that the
//! opposite design does not reproduce. And bad input: malformed JSON at its
//! `file:line:column`, a trace of something else refused with what was looked for, no file
//! overwritten unasked, no control character printed.

use super::common::{TempDir, root, run_idem_in};

/// Each fixture, its ledger, the design its middleware behaves like (docs/interop.md), and one
/// that does not reproduce it.
const FIXTURES: [(&str, &str, &str); 5] = [
    ("otlp-express.jsonl", "with-charge", "no-key"),
    ("zipkin-express.jsonl", "with-charge", "no-key"),
    ("jaeger-express.json", "with-charge", "no-key"),
    ("mitmproxy.har", "with-charge", "no-key"),
    ("gunicorn-access.jsonl", "no-key", "with-charge"),
];

fn fixture(name: &str) -> String {
    root()
        .join("tests/fixtures/import")
        .join(name)
        .display()
        .to_string()
}

fn ledger_of(name: &str) -> String {
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    fixture(&format!("{stem}.ledger.json"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ledger_count(name: &str) -> u64 {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ledger_of(name)).expect("a ledger"))
            .expect("a ledger is JSON");
    v["charges"].as_array().map_or(0, |c| c.len() as u64)
}

#[test]
fn each_fixture_imports_to_a_scenario_that_check_passes_and_reproduces_the_ledger() {
    let dir = TempDir::new("import-fixtures");
    for (name, design, other) in FIXTURES {
        let out = dir.join(&format!("{name}.toml")).display().to_string();
        let run = run_idem_in(
            None,
            &[
                "import",
                &fixture(name),
                "--ledger",
                &ledger_of(name),
                "--design",
                design,
                "--out",
                &out,
            ],
        );
        assert_eq!(run.status.code(), Some(0), "{name}: {}", text(&run.stderr));
        let written = std::fs::read_to_string(&out).expect("the scenario is written");
        let charges = ledger_count(name);
        assert!(
            written.contains(&format!("charges = {charges}  # the ledger")),
            "{name}: the expectation holds the ledger's {charges} charges:\n{written}"
        );
        // Every value line of the intent and the layer says where it came from.
        for key in ["attempts = ", "timeout = ", "at = ", "order = ", "key = "] {
            let line = written
                .lines()
                .find(|l| l.starts_with(key))
                .expect("the line");
            assert!(line.contains("  # "), "{name}: `{line}` has no comment");
        }
        let check = run_idem_in(None, &["check", &out]);
        assert_eq!(
            check.status.code(),
            Some(0),
            "{name}: idem check fails:\n{}{}\n{written}",
            text(&check.stdout),
            text(&check.stderr)
        );
        assert!(text(&check.stdout).contains("1 passed, 0 failed"), "{name}");
        // The replay's own reading of the file: `idem run` loads and simulates it.
        let replay = run_idem_in(None, &["run", &out, "--design", design]);
        assert_eq!(
            replay.status.code(),
            Some(0),
            "{name}: {}",
            text(&replay.stderr)
        );
        let which = run_idem_in(
            None,
            &[
                "import",
                &fixture(name),
                "--ledger",
                &ledger_of(name),
                "--which",
            ],
        );
        assert_eq!(
            which.status.code(),
            Some(0),
            "{name}: {}",
            text(&which.stderr)
        );
        let table = text(&which.stdout);
        let row = |d: &str| {
            table
                .lines()
                .find(|l| l.starts_with(&format!("{d} ")))
                .unwrap_or_default()
                .to_string()
        };
        assert!(
            row(design).ends_with(" yes"),
            "{name}: {design} reproduces it:\n{table}"
        );
        assert!(
            row(other).contains(" no: "),
            "{name}: {other} does not:\n{table}"
        );
    }
}

#[test]
fn the_otlp_record_is_read_as_a_lost_answer_with_both_sides_paired() {
    let run = run_idem_in(
        None,
        &[
            "import",
            &fixture("otlp-express.jsonl"),
            "--design",
            "with-charge",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let scenario = text(&run.stdout);
    assert!(scenario.contains("lose = \"reply\""), "{scenario}");
    assert!(
        scenario.contains("the answer was lost on the way back"),
        "{scenario}"
    );
    assert!(scenario.contains("key = \"K7Q4\""), "{scenario}");
    // Spans carry no amount: said, not guessed.
    assert!(
        scenario.contains("the amount is not in the records"),
        "{scenario}"
    );
    assert!(
        scenario.contains("timeout = \"20"),
        "axios's 2 s timeout: {scenario}"
    );
    // Without a ledger the charges come from nowhere: the expectation says so and does not guess.
    assert!(scenario.contains("# charges: not known"), "{scenario}");
}

#[test]
fn without_a_design_the_file_says_none_was_chosen_and_check_skips_it() {
    let dir = TempDir::new("import-nodesign");
    let out = dir.join("x.toml").display().to_string();
    let run = run_idem_in(
        None,
        &[
            "import",
            &fixture("mitmproxy.har"),
            "--ledger",
            &ledger_of("mitmproxy.har"),
            "--out",
            &out,
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let written = std::fs::read_to_string(&out).expect("written");
    assert!(written.contains("# No design chosen"), "{written}");
    let check = run_idem_in(None, &["check", &out]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    assert!(
        text(&check.stdout).contains("skip"),
        "{}",
        text(&check.stdout)
    );
}

#[test]
fn malformed_json_is_reported_at_its_file_line_and_column() {
    let dir = TempDir::new("import-malformed");
    // A JSON-lines export with a broken third line.
    let good = std::fs::read_to_string(fixture("otlp-express.jsonl")).expect("fixture");
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
    lines[2] = lines[2].replacen("\"spans\":[", "\"spans\":[}", 1);
    let column = lines[2].find("[}").expect("the break") + 2;
    let broken = dir.file("broken.jsonl", &(lines.join("\n") + "\n"));
    let run = run_idem_in(None, &["import", &broken]);
    assert_eq!(run.status.code(), Some(2));
    let err = text(&run.stderr);
    assert!(err.contains(&format!("{broken}:3:{column}: ")), "{err}");
    assert!(err.contains("expected"), "{err}");
    // A pretty-printed HAR broken on its fourth line.
    let har = dir.file(
        "broken.har",
        "{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"entries\": [,]\n  }\n}\n",
    );
    let run = run_idem_in(None, &["import", &har]);
    assert_eq!(run.status.code(), Some(2));
    let err = text(&run.stderr);
    assert!(err.contains(&format!("{har}:4:17: ")), "{err}");
    // Cut off in the middle of the first value: the end of the file is named.
    let first = good.lines().next().expect("a line");
    let cut = dir.file("cut.json", &first[..first.len() / 2]);
    let run = run_idem_in(None, &["import", &cut]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("cut off"),
        "{}",
        text(&run.stderr)
    );
}

#[test]
fn a_last_line_cut_off_is_said_and_the_lines_before_it_are_read() {
    let dir = TempDir::new("import-cut");
    let good = std::fs::read_to_string(fixture("otlp-express.jsonl")).expect("fixture");
    let cut = dir.file("cut.jsonl", &good[..good.len() - 40]);
    let run = run_idem_in(None, &["import", &cut, "--design", "with-charge"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let err = text(&run.stderr);
    assert!(err.contains("the last line is cut off"), "{err}");
}

#[test]
fn a_trace_of_something_else_is_refused_saying_what_was_looked_for() {
    let run = run_idem_in(None, &["import", &fixture("otlp-report-job.jsonl")]);
    assert_eq!(run.status.code(), Some(2));
    let err = text(&run.stderr);
    assert!(err.contains("records no HTTP request"), "{err}");
    assert!(err.contains("nightly report"), "names what it held: {err}");
    assert!(
        err.contains("looked for client or server spans with http.request.method"),
        "{err}"
    );
    // HTTP spans, but no key anywhere.
    let dir = TempDir::new("import-nokey");
    let zipkin = std::fs::read_to_string(fixture("zipkin-express.jsonl")).expect("fixture");
    let keyless = dir.file(
        "keyless.jsonl",
        &zipkin.replace("\"http.request.header.idempotency_key\":\"K7Q4\",", ""),
    );
    let run = run_idem_in(None, &["import", &keyless]);
    assert_eq!(run.status.code(), Some(2));
    let err = text(&run.stderr);
    assert!(err.contains("no idempotency key"), "{err}");
    assert!(err.contains("http.request.header.idempotency-key"), "{err}");
    // Not JSON at all.
    let csv = dir.file("log.csv", "time,status\n14:02,201\n");
    let run = run_idem_in(None, &["import", &csv]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("is not JSON"),
        "{}",
        text(&run.stderr)
    );
}

#[test]
fn an_existing_out_is_never_replaced_without_force() {
    let dir = TempDir::new("import-out");
    let out = dir.file("mine.toml", "title = \"mine\"\n");
    let args = ["import", &fixture("mitmproxy.har"), "--out", &out];
    let run = run_idem_in(None, &args);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("--force"),
        "{}",
        text(&run.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&out).expect("kept"),
        "title = \"mine\"\n"
    );
    let run = run_idem_in(None, &[&args[..], &["--force"]].concat());
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert!(
        std::fs::read_to_string(&out)
            .expect("written")
            .contains("Imported incident")
    );
}

#[test]
fn control_characters_from_a_file_never_reach_the_output() {
    let dir = TempDir::new("import-control");
    let har = std::fs::read_to_string(fixture("mitmproxy.har")).expect("fixture");
    let hostile = har
        .replace("/charges", "/charges\\u001b[2J\\u0007")
        .replace("\"K7Q4\"", "\"K7\\u001b]0;x\\u0007Q4\"");
    let path = dir.file("hostile.har", &hostile);
    let run = run_idem_in(None, &["import", &path, "--which"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let run2 = run_idem_in(None, &["import", &path]);
    for out in [&run.stdout, &run.stderr, &run2.stdout, &run2.stderr] {
        assert!(
            !out.iter().any(|&b| b == 0x1b || b == 0x07),
            "{}",
            text(out)
        );
    }
}

#[test]
fn an_order_no_record_carries_is_named() {
    let run = run_idem_in(
        None,
        &["import", &fixture("mitmproxy.har"), "--order", "9999"],
    );
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("--order 9999"),
        "{}",
        text(&run.stderr)
    );
    let run = run_idem_in(
        None,
        &["import", &fixture("mitmproxy.har"), "--order", "5531"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
}

#[test]
fn a_pretty_printed_otlp_document_is_streamed_with_the_same_reading() {
    let dir = TempDir::new("import-pretty");
    let lines = std::fs::read_to_string(fixture("otlp-express.jsonl")).expect("fixture");
    let mut pretty = String::new();
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        pretty.push_str(&serde_json::to_string_pretty(&v).expect("writes"));
        pretty.push('\n');
    }
    let path = dir.file("pretty.json", &pretty);
    let ledger = ledger_of("otlp-express.jsonl");
    let a = run_idem_in(None, &["import", &path, "--ledger", &ledger, "--which"]);
    let b = run_idem_in(
        None,
        &[
            "import",
            &fixture("otlp-express.jsonl"),
            "--ledger",
            &ledger,
            "--which",
        ],
    );
    assert_eq!(a.status.code(), Some(0), "{}", text(&a.stderr));
    assert_eq!(text(&a.stdout), text(&b.stdout));
    // A wrong type deep in the document is named at its line and column.
    let at = pretty.find("\"kind\": 2").expect("a server span");
    let line = pretty[..at].lines().count();
    // The column is where serde_json stopped: just past the `[` that opens the wrong value.
    let column = pretty[..at].rsplit('\n').next().map_or(0, str::len) + "\"kind\": [".len() + 1;
    let bad = pretty.replacen("\"kind\": 2", "\"kind\": [2]", 1);
    let path = dir.file("bad.json", &bad);
    let run = run_idem_in(None, &["import", &path]);
    assert_eq!(run.status.code(), Some(2));
    let err = text(&run.stderr);
    assert!(err.contains(&format!("{path}:{line}:{column}: ")), "{err}");
    assert!(err.contains("expected a span kind"), "{err}");
}

/// A device or a named pipe is refused at once, before anything is read, through the same
/// bounded opening every file idem reads goes through.
#[test]
fn a_device_or_a_pipe_is_refused_without_a_wait() {
    let dir = TempDir::new("import-pipe");
    let fifo = dir.path().join("records.json");
    let c = std::ffi::CString::new(fifo.to_str().expect("utf-8")).expect("no nul");
    // SAFETY: mkfifo only reads the path it is given.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for (path, kind) in [
        ("/dev/zero".to_string(), "character device"),
        (fifo.display().to_string(), "FIFO"),
    ] {
        let out = run_idem_in(None, &["import", &path]);
        assert_eq!(out.status.code(), Some(2), "{path}");
        assert!(
            text(&out.stderr).contains(kind),
            "{path}: {}",
            text(&out.stderr)
        );
    }
}
