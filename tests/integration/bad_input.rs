//! Bad input to `idem run`, through the real binary and the library: every case ends with a
//! clear message (with `file:line:column` where there is one) and exit code 2, or a warning and
//! exit code 0, within a few seconds and never with a panic. The fixed cases live in
//! `tests/bad_scenarios/`; the large and binary ones are generated at test time.

use crate::common;

use common::{TempDir, corpus};
use std::path::Path;
use std::time::{Duration, Instant};

struct Out {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

impl Out {
    fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// Runs the binary, failing the test if it has not finished after 10 s, if it panicked or if
/// it was killed by a signal.
fn idem(args: &[&str]) -> Out {
    let output = common::run_idem_in(None, args);
    common::assert_exited(&output, &format!("idem {args:?}"));
    Out {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Expects exit code 2, nothing on stdout and an `error: ` message; returns the message.
fn refused(args: &[&str]) -> String {
    let out = idem(args);
    assert_eq!(
        out.code,
        Some(2),
        "idem {args:?} should fail with 2:\nstdout: {}\nstderr: {}",
        out.stdout_text(),
        out.stderr
    );
    assert!(out.stdout.is_empty(), "idem {args:?} printed to stdout");
    assert!(
        out.stderr.contains("error: "),
        "idem {args:?}: {}",
        out.stderr
    );
    assert!(
        !out.stderr.as_bytes().contains(&0x1b),
        "an escape byte reached the terminal"
    );
    out.stderr
}

/// Runs a corpus file and expects exit 2 with a message at `line:column` containing `needles`.
fn refused_at(name: &str, line: usize, column: usize, needles: &[&str]) -> String {
    let path = corpus(name);
    let message = refused(&["run", &path]);
    let at = format!("error: {path}:{line}:{column}: ");
    assert!(message.contains(&at), "expected {at:?} in\n{message}");
    for n in needles {
        assert!(message.contains(n), "expected {n:?} in\n{message}");
    }
    // The offending line is quoted with a caret under it.
    assert!(message.contains(&format!("{line} | ")), "{message}");
    assert!(message.contains('^'), "{message}");
    message
}

// ---------------------------------------------------------------- files that are not scenarios

#[test]
fn a_missing_file() {
    let dir = TempDir::new("missing");
    let path = dir.join("no-such-scenario.toml").display().to_string();
    let message = refused(&["run", &path]);
    assert!(message.contains(&path), "{message}");
    assert!(message.contains("no such file"), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
}

#[test]
fn a_near_miss_of_a_builtin_name() {
    let message = refused(&["run", "reply-lots"]);
    assert!(
        message.contains("did you mean the built-in `reply-lost`?"),
        "{message}"
    );
}

#[test]
fn a_directory() {
    let dir = TempDir::new("dir");
    let path = dir.path().display().to_string();
    let message = refused(&["run", &path]);
    assert!(message.contains("is a directory"), "{message}");
    // The library says the same.
    let err = idem::scenario::load(dir.path()).unwrap_err();
    assert_eq!(err.diagnostics.len(), 1);
    assert_eq!(
        err.diagnostics[0].line, 0,
        "a whole-file problem has no line"
    );
}

#[test]
fn a_file_that_is_not_utf8() {
    let dir = TempDir::new("utf8");
    let mut bytes = b"title = \"caf".to_vec();
    bytes.push(0xe9); // Latin-1 é
    bytes.extend_from_slice(
        b"\"\n\n[[intent]]\norder = \"5531\"\namount = \"$48.60\"\nat = \"14:02:07\"\n",
    );
    let path = dir.file("latin1.toml", &bytes);
    let message = refused(&["run", &path]);
    assert!(
        message.contains(&format!("error: {path}:1:13: ")),
        "{message}"
    );
    assert!(message.contains("not valid UTF-8"), "{message}");

    // A bad byte on a later line, after multi-byte characters, is still placed exactly.
    let mut bytes = "title = \"ünïcode\"\nseed = 1\n# é".as_bytes().to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe]);
    let path = dir.file("later.toml", &bytes);
    let err = idem::scenario::load(Path::new(&path)).unwrap_err();
    let d = &err.diagnostics[0];
    assert_eq!((d.line, d.column), (3, 4), "{err}");
}

#[test]
fn a_binary_file() {
    let dir = TempDir::new("binary");
    let bytes: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    let path = dir.file("random.toml", &bytes);
    let message = refused(&["run", &path]);
    assert!(message.contains(&path), "{message}");
}

#[test]
fn a_ten_megabyte_file() {
    let dir = TempDir::new("big");
    let mut text = String::from(
        "title = \"big\"\n[[intent]]\norder = \"5531\"\namount = \"$48.60\"\nat = \"14:02:07\"\n",
    );
    let line = "# padding padding padding padding padding padding padding padding padding\n";
    while text.len() < 10 * 1024 * 1024 {
        text.push_str(line);
    }
    text.truncate(10 * 1024 * 1024);
    let path = dir.file("big.toml", text.as_bytes());
    let started = Instant::now();
    let message = refused(&["run", &path]);
    assert!(message.contains("10485760 bytes"), "{message}");
    assert!(message.contains("at most 1048576 bytes"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn an_empty_file() {
    refused_at("empty.toml", 1, 1, &["missing field `title`"]);
}

// ---------------------------------------------------------------- TOML and schema errors

#[test]
fn malformed_toml() {
    refused_at("malformed.toml", 4, 18, &["expected `]`"]);
}

#[test]
fn an_unknown_key_suggests_the_near_miss() {
    let message = refused_at(
        "unknown-key.toml",
        5,
        1,
        &["unknown field `atempts`", "(did you mean `attempts`?)"],
    );
    assert!(message.contains("5 | atempts = 3"), "{message}");
    assert!(message.contains("  | ^^^^^^^\n") || message.ends_with("^^^^^^^\n"));
}

/// A value of the wrong type is named in the words of the format, with an example.
#[test]
fn a_wrong_type() {
    refused_at(
        "wrong-type.toml",
        4,
        12,
        &["attempts must be a whole number, like 3\n"],
    );
    refused_at(
        "amount-as-number.toml",
        5,
        10,
        &["an amount is written as a string, like \"$23.90\""],
    );
    refused_at(
        "duration-without-unit.toml",
        4,
        11,
        &["`5` has no unit; write \"5s\""],
    );
    let message = refused_at("huge-attempts.toml", 4, 12, &["too large for attempts"]);
    assert!(!message.contains("i128"), "{message}");
}

/// The same mistakes in other forms, through the library.
#[test]
fn wrong_types_in_plain_words() {
    let intent = "\n[[intent]]\norder = \"1\"\namount = \"$1\"\nat = \"14:00:00\"\n";
    for (text, words) in [
        (
            "[[checkout.layer]]\nattempts = 2.5\n",
            "attempts must be a whole number, like 3, not 2.5",
        ),
        (
            "[network]\nlatency = \"5\"\n",
            "`5` has no unit; write \"5s\"",
        ),
        ("seed = \"7\"\n", "seed must be a whole number, like 5531\n"),
        (
            "seed = -1\n",
            "seed must be a whole number from 0 up, like 5531, not -1",
        ),
        (
            "[[checkout.layer]]\nattempts = 3\nmultiplier = \"2\"\n",
            "multiplier must be a number, like 2 or 1.5",
        ),
        (
            "[checkout]\nstamp_body = \"yes\"\n",
            "this is true or false, not the text \"yes\"",
        ),
        ("merchant = 7\n", "this is text and goes in quotes"),
        (
            "[[expect]]\ndesign = \"no-key\"\ncharges = \"two\"\n",
            "charges must be a whole number, like 1",
        ),
        (
            "[[fault]]\nattempt = true\nlose = \"reply\"\n",
            "attempt must be a whole number, like 2, not true",
        ),
    ] {
        let source = format!("title = \"t\"\n{text}{intent}");
        let err = idem::scenario::parse("t.toml", "t", &source).expect_err(text);
        assert!(err.to_string().contains(words), "{text}: {err}");
        assert!(!err.to_string().contains("invalid type"), "{text}: {err}");
    }
}

/// Every problem of a file is listed, in the order of its lines, whatever order they are
/// found in.
#[test]
fn problems_are_listed_in_line_order() {
    let err = idem::scenario::load(Path::new(&corpus("errors-out-of-order.toml"))).unwrap_err();
    let lines: Vec<usize> = err.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, [5, 7, 12, 20], "{err}");
    let message = refused(&["run", &corpus("errors-out-of-order.toml")]);
    let at = |line: usize| {
        message
            .find(&format!(".toml:{line}:"))
            .unwrap_or_else(|| panic!("line {line} in {message}"))
    };
    assert!(
        at(5) < at(7) && at(7) < at(12) && at(12) < at(20),
        "{message}"
    );
}

#[test]
fn zero_attempts() {
    refused_at(
        "zero-attempts.toml",
        5,
        12,
        &["attempts must be at least 1, not 0"],
    );
}

#[test]
fn an_integer_too_large_for_any_type() {
    refused_at("huge-attempts.toml", 4, 12, &["99999999999999999999"]);
}

#[test]
fn a_multiplier_out_of_range() {
    refused_at(
        "huge-multiplier.toml",
        5,
        14,
        &["between 1 and 100, not 1e308"],
    );
    // Written as a plain number, as the file has it.
    let source = "title = \"t\"\n[[checkout.layer]]\nattempts = 3\nmultiplier = 100.5\n\
                  [[intent]]\norder = \"1\"\namount = \"$1\"\nat = \"14:00:00\"\n";
    let err = idem::scenario::parse("t.toml", "t", source).expect_err("out of range");
    assert!(
        err.to_string().contains("between 1 and 100, not 100.5\n"),
        "{err}"
    );
}

#[test]
fn an_unknown_design_in_the_file() {
    refused_at(
        "unknown-design.toml",
        2,
        10,
        &[
            "unknown design `with-charg`",
            "did you mean `with-charge`?",
            "with-charge, log-after-charge, no-key, log-before-charge, content-hash",
        ],
    );
}

#[test]
fn an_unknown_design_on_the_command_line() {
    for bad in ["with-charg", "7", "0", "ALL", ""] {
        let message = refused(&["run", "--design", bad]);
        for id in [
            "with-charge",
            "log-after-charge",
            "no-key",
            "log-before-charge",
            "content-hash",
            "all",
        ] {
            assert!(
                message.contains(id),
                "--design {bad:?}: {id} missing in {message}"
            );
        }
    }
    let message = refused(&["run", "--design", "with-charg"]);
    assert!(message.contains("did you mean `with-charge`?"), "{message}");
}

#[test]
fn an_unknown_crash_point() {
    refused_at(
        "unknown-crash-point.toml",
        10,
        15,
        &[
            "unknown crash point `chrage`",
            "did you mean `charge`?",
            "receive, key, charge, reply",
        ],
    );
}

#[test]
fn values_that_do_not_parse() {
    refused_at("bad-amount.toml", 5, 10, &["not an amount", "$48.60"]);
    refused_at("bad-duration.toml", 5, 11, &["not a duration"]);
    refused_at("bad-time.toml", 6, 6, &["not a time of day"]);
    refused_at(
        "reconcile-bad-time.toml",
        9,
        6,
        &["`2am` is not a clock time", "HH:MM"],
    );
}

#[test]
fn an_unknown_reconcile_policy() {
    refused_at(
        "reconcile-unknown-policy.toml",
        10,
        15,
        &[
            "unknown unconfirmed policy `refnud`",
            "did you mean `refund`?",
            "refund, mark-paid",
        ],
    );
}

#[test]
fn faults_that_make_no_sense() {
    refused_at(
        "fault-two-actions.toml",
        8,
        1,
        &["one action per [[fault]]: this one has lose and crash_after"],
    );
    refused_at("delay-without-by.toml", 8, 1, &["`delay` needs `by`"]);
}

/// A quiz, note or narration that names a tick no design ever reaches would never be seen:
/// an error at its label or time, not something silently ignored.
#[test]
fn targets_that_match_no_tick_are_errors() {
    let message = refused_at(
        "quiz-no-such-label.toml",
        9,
        9,
        &[
            "no tick is labelled `the moon lands` under any design",
            "this [[quiz]] would never be seen",
            "the labels are: `",
        ],
    );
    assert!(!message.contains("did you mean"), "{message}");
    refused_at(
        "narration-no-such-label.toml",
        9,
        9,
        &["[[narration]] would never be seen"],
    );
    refused_at(
        "note-after-the-end.toml",
        9,
        6,
        &[
            "no tick comes at or after this time under any design",
            "[[note]] would never be seen",
            "the story's last tick, under any design, is at 14:",
        ],
    );
}

/// Thousands of quizzes on ticks that never come: refused in bounded time and output, the
/// first fifty in full, in the order of the file.
#[test]
fn thousands_of_targets_that_match_no_tick() {
    let dir = TempDir::new("many-targets");
    let mut text = String::from(
        "title = \"t\"\n[[intent]]\norder = \"1\"\namount = \"$1\"\nat = \"14:00:00\"\n",
    );
    for i in 0..10_000 {
        text.push_str(&format!(
            "[[quiz]]\nlabel = \"nope {i}\"\nquestion = \"q\"\nchoices = [\"a\", \"b\"]\nanswer = 1\n"
        ));
    }
    let path = dir.file("quizzes.toml", text.as_bytes());
    let message = refused(&["run", &path]);
    let labelled = |l: &&str| l.starts_with("error: ") && l.contains(": no tick is labelled");
    assert_eq!(message.lines().filter(labelled).count(), 50);
    assert!(
        message.contains(": and 9950 more problems like those above"),
        "{message:.300}"
    );
    let first = message.find("`nope 0`").expect("the first quiz");
    let second = message.find("`nope 1`").expect("the second quiz");
    assert!(first < second);
}

/// A fault on an order that does not exist is a warning, like a fault on an attempt that
/// never comes: the scenario runs, and the message says where and what was meant.
#[test]
fn a_fault_on_an_unknown_order_is_a_warning() {
    let path = corpus("unknown-fault-intent.toml");
    let out = idem(&["run", &path]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!("warning: {path}:9:10: ")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("no intent has order `5513`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("did you mean `5531`?"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("it is ignored"), "{}", out.stderr);
}

#[test]
fn a_scenario_with_no_purchase() {
    let message = refused(&["run", &corpus("no-intent.toml")]);
    assert!(message.contains("has no [[intent]]"), "{message}");
    refused_at("missing-title.toml", 1, 1, &["missing field `title`"]);
}

#[test]
fn deep_nesting() {
    let dir = TempDir::new("deep");
    // Arrays: the 33rd bracket, at column 5 + 32, is one too many.
    let deep = format!(
        "title = \"deep\"\nx = {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let path = dir.file("arrays.toml", deep.as_bytes());
    let message = refused(&["run", &path]);
    assert!(
        message.contains(&format!("error: {path}:2:37: ")),
        "{message}"
    );
    assert!(message.contains("nest deeper than 32"), "{message}");

    // Inline tables, mixed with arrays.
    let mut mixed = String::from("title = \"deep\"\ny = ");
    for _ in 0..20_000 {
        mixed.push_str("{a=[");
    }
    let path = dir.file("tables.toml", mixed.as_bytes());
    let message = refused(&["run", &path]);
    assert!(message.contains(&format!("{path}:2:")), "{message}");

    // Brackets at the start of a line look like a table header.
    let header = format!("title = \"deep\"\n{}\n", "[".repeat(50_000));
    let path = dir.file("header.toml", header.as_bytes());
    let message = refused(&["run", &path]);
    assert!(message.contains(&format!("{path}:2:")), "{message}");

    // Deep nesting inside a string is only text.
    let text = format!(
        "title = \"{}\"\n[[intent]]\norder = \"5531\"\namount = \"$48.60\"\nat = \"14:02:07\"\n",
        "[{".repeat(1000)
    );
    let path = dir.file("string.toml", text.as_bytes());
    let out = idem(&["run", &path]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}

// ---------------------------------------------------------------- size and warnings

#[test]
fn a_configuration_too_large_to_simulate() {
    let started = Instant::now();
    let message = refused_at(
        "too-many-ticks.toml",
        3,
        1,
        &[
            "retry layers multiply",
            "http client 30 × service 30 × queue 30 × scheduler 30 = 810000 attempts",
            "100000",
        ],
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{message}");
    // The library refuses it before simulating anything.
    let err = idem::scenario::load(Path::new(&corpus("too-many-ticks.toml"))).unwrap_err();
    assert_eq!(err.diagnostics.len(), 1);
    assert_eq!((err.diagnostics[0].line, err.diagnostics[0].column), (3, 1));
}

#[test]
fn a_fault_on_an_attempt_that_never_happens_is_a_warning() {
    let path = corpus("unreachable-fault.toml");
    let out = idem(&["run", &path]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with(&format!("warning: {path}:12:11: attempt 9 never happens")),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("error"), "{}", out.stderr);
    let text = out.stdout_text();
    assert!(text.contains("Outcome: ✓ Charged once"), "{text}");
    // JSON stays clean on stdout; the warning goes to stderr only.
    let out = idem(&["run", &path, "--json"]);
    assert_eq!(out.code, Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(v["charges"], 1);
    assert!(out.stderr.contains("warning:"));
    // The library keeps the warning with the scenario.
    let s = idem::scenario::load(Path::new(&path)).unwrap();
    assert_eq!(s.warnings.len(), 1);
    assert_eq!((s.warnings[0].line, s.warnings[0].column), (12, 11));
}

// ---------------------------------------------------------------- hostile text

fn assert_clean(bytes: &[u8], what: &str) {
    assert!(!bytes.contains(&0x1b), "{what}: an ESC byte got through");
    assert!(!bytes.contains(&0x07), "{what}: a BEL byte got through");
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{what}: a control character got through"
    );
}

#[test]
fn control_characters_never_reach_the_terminal() {
    let path = corpus("control-chars.toml");
    for args in [
        &["run", &path][..],
        &["run", &path, "--json"],
        &["run", &path, "--design", "all"],
        &["run", &path, "--design", "all", "--json"],
    ] {
        let out = idem(args);
        assert_eq!(out.code, Some(0), "{args:?}: {}", out.stderr);
        assert_clean(&out.stdout, &format!("stdout of {args:?}"));
        assert_clean(out.stderr.as_bytes(), &format!("stderr of {args:?}"));
    }
    let text = idem(&["run", &path]).stdout_text();
    assert!(
        text.starts_with("control-chars — Escape [31mred[0m and bell  and  CSI\n"),
        "{text}"
    );
    assert!(text.contains("order 55[5m31"), "{text}");
    // JSON holds the cleaned text too, not an escaped ESC.
    let out = idem(&["run", &path, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["title"], "Escape [31mred[0m and bell  and  CSI");
    assert!(
        !out.stdout_text().contains("\\u001b"),
        "an escaped ESC in the JSON"
    );
}

#[test]
fn control_characters_in_error_messages_and_paths() {
    let dir = TempDir::new("esc");
    // A raw ESC in the file is a TOML error; its line is quoted without it.
    let path = dir.file("raw.toml", b"title = \"raw \x1b[31m escape\"\n");
    let message = refused(&["run", &path]);
    assert!(message.contains(&format!("{path}:1:")), "{message}");
    // An escaped ESC in an unknown key name.
    let path = dir.file("key.toml", b"title = \"ok\"\n\"at\\u001bempts\" = 3\n");
    let message = refused(&["run", &path]);
    assert!(
        message.contains(&format!("error: {path}:2:1: unknown field")),
        "{message}"
    );
    // An ESC in the file name itself.
    let path = dir.file("evil\x1b[31m.toml", b"title = 3\n");
    let message = refused(&["run", &path]);
    assert!(message.starts_with("error: "), "{message}");
    assert!(message.contains("evil[31m.toml:1:9: "), "{message}");
}

// ---------------------------------------------------------------- the corpus as a whole

#[test]
fn every_corpus_file_fails_cleanly_through_the_library_and_the_binary() {
    let warn_or_ok = [
        "control-chars.toml",
        "unreachable-fault.toml",
        "unknown-fault-intent.toml",
    ];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_scenarios");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 20, "{names:?}");
    for name in &names {
        let path = dir.join(name);
        let loaded = idem::scenario::load(&path);
        let out = idem(&["run", path.to_str().unwrap()]);
        if warn_or_ok.contains(&name.as_str()) {
            assert!(loaded.is_ok(), "{name}: {}", loaded.unwrap_err());
            assert_eq!(out.code, Some(0), "{name}: {}", out.stderr);
            continue;
        }
        let err = loaded.expect_err(name);
        assert!(!err.diagnostics.is_empty(), "{name}");
        assert!(err.diagnostics.iter().any(|d| d.is_error()), "{name}");
        assert_eq!(out.code, Some(2), "{name}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{name}");
        // The binary prints what the library reports, in the one error shape.
        assert_eq!(
            out.stderr,
            idem::cli::failure::scenario_text(&err),
            "{name}"
        );
        for d in &err.diagnostics {
            assert!(!d.message.is_empty(), "{name}");
            if d.line > 0 {
                assert!(d.column >= 1, "{name}");
                let rendered = err.to_string();
                assert!(
                    rendered.contains(&format!(":{}:{}: ", d.line, d.column)),
                    "{name}: {rendered}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------- resource use

/// Many small purchases in a 120 KB file: far under the size and tick limits.
fn many_intents(n: usize) -> String {
    let mut s = String::from("title = \"many\"\n[[checkout.layer]]\nattempts = 1\n");
    for i in 0..n {
        s.push_str(&format!(
            "\n[[intent]]\norder = \"o{i}\"\namount = \"$1.00\"\nat = \"14:02:07\"\n"
        ));
    }
    s
}

#[test]
fn sixty_four_intents_run() {
    let dir = TempDir::new("sixty-four");
    let path = dir.file("many.toml", many_intents(64).as_bytes());
    let out = idem(&["run", &path, "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["charges"], 64);
    assert_eq!(v["verdict"], "correct");
}

/// Thousands of purchases in a small file are refused at once, with the intent that went
/// over the limit pointed at, instead of exhausting memory.
#[test]
fn thousands_of_intents_are_refused_with_a_position() {
    let dir = TempDir::new("thousands");
    let text = many_intents(2000);
    assert!(text.len() < 200 * 1024);
    let path = dir.file("many.toml", text.as_bytes());
    let message = refused(&["run", &path]);
    assert!(message.contains("at most 64 intents"), "{message}");
    // The 65th [[intent]] starts on line 4 + 64 × 5 + 1.
    assert!(message.contains(&format!("{path}:325:")), "{message}");
}

// ---------------------------------------------------------------- diagnostics on hostile shapes

/// On a long line the header names the real column; the quoted part is shortened and the
/// caret still sits under the culprit.
#[test]
fn a_long_line_reports_its_real_column() {
    let dir = TempDir::new("long-line");
    let text = format!("title = \"t\"\nseed = {}\"x\"\n", " ".repeat(500_000));
    let path = dir.file("long.toml", text.as_bytes());
    let message = refused(&["run", &path]);
    assert!(
        message.contains(&format!(
            "error: {path}:2:500008: seed must be a whole number"
        )),
        "{}",
        &message[..message.len().min(300)]
    );
    let lines: Vec<&str> = message.lines().collect();
    assert!(lines.len() == 4 && lines[2].len() < 400, "{message:.400}");
    // The caret is under the `"x"` of the shortened line.
    let quoted = lines[2].find("\"x\"").expect("the value is shown");
    let caret = lines[3].find('^').expect("a caret");
    assert_eq!(
        lines[2][..quoted].chars().count(),
        lines[3][..caret].chars().count(),
        "{}\n{}",
        lines[2],
        lines[3]
    );
}

/// A dotted key longer than any scenario needs is refused where it is, before the TOML
/// parser reaches its own limit (which has no position).
#[test]
fn a_long_dotted_key_is_refused_with_a_position() {
    let dir = TempDir::new("dotted");
    let key = vec!["a"; 300].join(".");
    for (name, text) in [
        ("key.toml", format!("title = \"t\"\n{key} = 1\n")),
        ("header.toml", format!("title = \"t\"\n[{key}]\nx = 1\n")),
        (
            "inline.toml",
            format!("title = \"t\"\nx = {{ {key} = 1 }}\n"),
        ),
    ] {
        let path = dir.file(name, text.as_bytes());
        let message = refused(&["run", &path]);
        assert!(message.contains(&format!("{path}:2:")), "{name}: {message}");
        assert!(
            message.contains("dotted key has more than 32 parts"),
            "{message}"
        );
        assert!(!message.contains("recursion limit"), "{message}");
    }
}

/// Layers that multiply past any number are still described in words a person can read.
#[test]
fn a_huge_tick_estimate_is_not_a_capped_number() {
    let mut text = String::from("title = \"t\"\n");
    for _ in 0..8 {
        text.push_str("[[checkout.layer]]\nattempts = 10000\n");
    }
    text.push_str("[[intent]]\norder = \"1\"\namount = \"$1\"\nat = \"14:00:00\"\n");
    let err = idem::scenario::parse("t.toml", "t", &text).expect_err("too large");
    let message = err.to_string();
    assert!(
        message.contains("could simulate about 10^33 ticks"),
        "{message}"
    );
    assert!(
        message.contains("= about 10^32 attempts per run"),
        "{message}"
    );
    assert!(!message.contains(&u64::MAX.to_string()), "{message}");
}

/// Thousands of `[[human]]` reruns are refused at the rerun that takes the story past the
/// limit, not as a problem of the whole file.
#[test]
fn thousands_of_human_reruns_are_refused_with_a_position() {
    let dir = TempDir::new("humans");
    let mut text = String::from(
        "title = \"t\"\n[[intent]]\norder = \"1\"\namount = \"$1\"\nat = \"14:00:00\"\n",
    );
    for _ in 0..5000 {
        text.push_str("[[human]]\nname = \"h\"\nafter = \"1h\"\n");
    }
    let path = dir.file("humans.toml", text.as_bytes());
    let message = refused(&["run", &path]);
    // 3 attempts × 8 ticks a run: run 4167 (rerun 4166) passes 100000; its block starts on
    // line 5 + 3 × 4165 + 1.
    assert!(
        message.contains(&format!("error: {path}:12501:1: ")),
        "{message}"
    );
    assert!(
        message.contains("this is rerun 4166 of 5000; remove some [[human]] blocks"),
        "{message}"
    );
}

/// A comma out of place in an amount is a mistake, not a thousands separator.
#[test]
fn misplaced_commas_in_an_amount_are_refused() {
    let intent = |amount: &str| {
        format!(
            "title = \"t\"\n[[intent]]\norder = \"1\"\namount = \"{amount}\"\nat = \"14:00:00\"\n"
        )
    };
    for bad in ["$1,,2", "$12,50", "$,5", "$1,2345", "$1.2,5", "1,"] {
        let err = idem::scenario::parse("t.toml", "t", &intent(bad)).expect_err(bad);
        assert!(
            err.to_string()
                .contains("commas go between groups of three digits"),
            "{bad}: {err}"
        );
        assert_eq!(
            (err.diagnostics[0].line, err.diagnostics[0].column),
            (4, 10),
            "{bad}"
        );
    }
    for good in ["$1,250.00", "$12,345,678", "$999", "1,000"] {
        idem::scenario::parse("t.toml", "t", &intent(good))
            .unwrap_or_else(|e| panic!("{good}: {e}"));
    }
}

/// `TERM=dumb` cannot draw the replay: a clear message, a non-zero exit, and the command that
/// prints the story instead; nothing is drawn.
#[test]
fn a_dumb_terminal_is_not_drawn_on() {
    for (args, hint) in [
        (
            &["reply-lost"][..],
            "`idem run reply-lost --design all` prints the story as text",
        ),
        (
            &["present", "reply-lost"][..],
            "`idem run reply-lost --design all`",
        ),
        (
            &["window", "--tui"][..],
            "without --tui, `idem window` prints the same as text",
        ),
        (&["notes"][..], "a terminal that can"),
    ] {
        let mut cmd = common::idem_command(args);
        cmd.env("TERM", "dumb");
        let out = common::run_with_timeout(cmd, &format!("TERM=dumb idem {args:?}"), common::LIMIT);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: something was drawn");
        assert!(
            stderr.contains("this terminal (TERM=dumb) cannot draw the full-screen interface"),
            "{stderr}"
        );
        assert!(stderr.contains(hint), "{args:?}: {stderr}");
        assert!(!stderr.contains('\u{1b}'), "{stderr}");
    }
}

#[test]
fn downstream_steps_that_cannot_be() {
    refused_at(
        "step-unknown-key-mode.toml",
        10,
        7,
        &["unknown key mode `random`", "derived, per-attempt, none"],
    );
    refused_at(
        "step-unknown-service.toml",
        9,
        11,
        &["did you mean `courier`?", "warehouse, mailer, courier"],
    );
    refused_at(
        "step-service-twice.toml",
        12,
        11,
        &["the courier already has a [[step]]"],
    );
    refused_at(
        "step-fault-no-action.toml",
        11,
        1,
        &[
            "this [[step.fault]] does nothing",
            "lose, delay (with by) or processing",
        ],
    );
}

#[test]
fn a_handler_error_at_a_point_no_design_has() {
    refused_at(
        "fail-after-unknown-point.toml",
        10,
        14,
        &["unknown handler error point `key`", "receive, charge"],
    );
}

/// With standard output captured (a pipe), the screens are not started: one line that says
/// why and names the plain-text command, exit 2, nothing written to the pipe.
#[test]
fn the_screens_need_a_terminal() {
    for args in [&["reply-lost"][..], &["present", "reply-lost"][..]] {
        let mut cmd = common::idem_command(args);
        cmd.env("TERM", "xterm-256color");
        let out = common::run_with_timeout(cmd, &format!("idem {args:?} | …"), common::LIMIT);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: something was drawn");
        assert!(stderr.contains("standard output is not one"), "{stderr}");
        assert!(
            stderr.contains("`idem run reply-lost --design all`"),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

/// Each of these once got a message a user could not act on: a control character removed
/// without a word, a system folder called missing, a port past 65535 sent anyway, the YAML
/// reader's own words for an alias. Each now gets a plain sentence.
#[test]
fn odd_inputs_get_plain_sentences() {
    let err = refused(&["--at", "\u{1b}[31m14:02"]);
    assert!(
        err.contains("shown without the control characters it held"),
        "{err}"
    );
    if Path::new("/proc/self").is_dir() {
        let err = refused(&[
            "export",
            "order-5531",
            "--format",
            "md",
            "--out",
            "/proc/self/handout.md",
        ]);
        assert!(
            err.contains("is there but takes no new files") && !err.contains("does not exist"),
            "{err}"
        );
    }
    let err = refused(&["drill", "http://127.0.0.1:99999/charges"]);
    assert!(err.contains("ports run from 1 to 65535"), "{err}");
    let dir = TempDir::new("plain-sentences");
    let yaml = dir.join("alias.yaml");
    std::fs::write(&yaml, "spec:\n  backoffLimit: *limit\n").expect("write");
    let err = refused(&["window", "--from", &yaml.display().to_string()]);
    assert!(
        err.contains("alias (`*name`) stands for an anchor") && err.contains(":2:"),
        "{err}"
    );
    let made = common::run_idem_in(Some(dir.path()), &["new", "odd\nname.toml"]);
    let said = String::from_utf8_lossy(&made.stdout);
    assert!(made.status.success(), "{said}");
    assert!(
        said.starts_with("Wrote $'odd\\x0aname.toml' (its name holds control characters"),
        "{said}"
    );
}
