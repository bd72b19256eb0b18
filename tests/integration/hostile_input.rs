//! Hostile scenario files beyond those in `tests/bad_input.rs`: numbers too large (or too
//! negative) for their field, TOML dates where text belongs, text made of escape sequences,
//! bidirectional overrides and NUL characters, very long lines, thousands of blocks and huge
//! arrays. Each one ends with a clear, positioned error or runs with its text cleaned; none
//! panics, hangs, or lets an escape byte reach the terminal.
//!
//! The fixed cases are `tests/bad_scenarios/hostile-*.toml`; the large ones are generated here.
//! `idem check` is tested through the library and through the binary.

use crate::common;

use common::{TempDir, corpus};
use idem::cli::check::{self, CheckArgs};
use std::path::Path;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------- helpers

struct Out {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Out {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Runs the binary, failing the test if it panics, dies on a signal, or outlives `limit`.
fn idem_within(args: &[&str], limit: Duration) -> Out {
    let what = format!("idem {:?}", short(args));
    let output = common::run_with_timeout(common::idem_command(args), &what, limit);
    common::assert_exited(&output, &what);
    Out {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: output.stderr,
    }
}

fn idem(args: &[&str]) -> Out {
    idem_within(args, common::LIMIT)
}

/// Arguments cut short for messages: generated paths are long enough as it is.
fn short(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.chars().take(120).collect()).collect()
}

/// No escape, bell, NUL or other control byte, and no character that reorders or hides text.
fn assert_clean(bytes: &[u8], what: &str) {
    for (byte, name) in [(0x1b, "ESC"), (0x07, "BEL"), (0x00, "NUL"), (0x9b, "CSI")] {
        assert!(
            !bytes.contains(&byte),
            "{what}: a raw {name} byte got through"
        );
    }
    let text = String::from_utf8_lossy(bytes);
    let bad = text.chars().find(|c| {
        (c.is_control() && *c != '\n')
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    });
    assert!(bad.is_none(), "{what}: {bad:?} got through");
}

/// JSON output must not smuggle a control character through as an escape either. (A quoted
/// line of the file may show `\u001b` as the six characters the trainer typed; that is text.)
fn assert_clean_json(bytes: &[u8], what: &str) {
    assert_clean(bytes, what);
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text.contains("\\u001b") && !text.contains("\\u0000") && !text.contains("\\u0007"),
        "{what}: an escaped control character got through"
    );
}

fn check_lib(path: &str) -> check::CheckOutcome {
    check::run(&CheckArgs {
        files: vec![path.into()],
        json: false,
    })
}

const ORDER: &str = "\n[[intent]]\norder = \"5531\"\namount = \"$48.60\"\nat = \"14:02:07\"\n";

// ---------------------------------------------------------------- the fixed corpus

/// Each hostile corpus file, the position of its (first) error, and words its message holds.
const REFUSED: &[(&str, usize, usize, &[&str])] = &[
    (
        "hostile-attempts-too-many.toml",
        4,
        12,
        &["9999999999999 attempts", "10,000"],
    ),
    (
        "hostile-seed-negative.toml",
        2,
        8,
        &["not -1", "seed must be a whole number from 0 up"],
    ),
    ("hostile-seed-float-overflow.toml", 2, 8, &["overflow"]),
    (
        "hostile-multiplier-float-overflow.toml",
        5,
        14,
        &["overflow"],
    ),
    (
        "hostile-fault-attempt-most-negative.toml",
        9,
        11,
        &["counted from 1", "-9223372036854775808"],
    ),
    ("hostile-quiz-answer-huge.toml", 12, 10, &["1 to 2"]),
    ("hostile-amount-huge.toml", 5, 10, &["too large an amount"]),
    (
        "hostile-duration-huge.toml",
        5,
        11,
        &["too long a duration"],
    ),
    // A TOML date or time where text belongs: refused at the value, whatever the wording.
    ("hostile-datetime-for-clock.toml", 6, 6, &[]),
    ("hostile-datetime-for-title.toml", 1, 9, &[]),
    ("hostile-datetime-for-duration.toml", 5, 11, &[]),
    (
        "hostile-title-only-escapes.toml",
        1,
        1,
        &["the title is empty"],
    ),
    (
        "hostile-bidi-order-collision.toml",
        8,
        1,
        &["order `5531` appears twice"],
    ),
    (
        "hostile-bidi-key-name.toml",
        2,
        1,
        &["unknown field `title2`"],
    ),
    ("hostile-nul-order.toml", 3, 1, &["needs an order id"]),
];

#[test]
fn the_table_covers_every_hostile_corpus_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_scenarios");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("the corpus folder")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("hostile-") && n.ends_with(".toml"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = REFUSED.iter().map(|r| r.0.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}

#[test]
fn hostile_corpus_files_are_refused_with_their_position() {
    for (name, line, column, needles) in REFUSED {
        let path = corpus(name);
        let out = idem(&["run", &path]);
        let stderr = out.stderr();
        assert_eq!(out.code, Some(2), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name} printed to stdout");
        let at = format!("error: {path}:{line}:{column}: ");
        assert!(
            stderr.starts_with(&at),
            "{name}: expected {at:?} in\n{stderr}"
        );
        for n in *needles {
            assert!(stderr.contains(n), "{name}: expected {n:?} in\n{stderr}");
        }
        assert!(stderr.contains(&format!("{line} | ")), "{name}: {stderr}");
        assert!(stderr.contains('^'), "{name}: {stderr}");
        assert_clean(&out.stderr, name);

        // `idem check` reports the same problems and counts the file invalid.
        let err = idem::scenario::load(Path::new(&path)).expect_err(name);
        let checked = check_lib(&path);
        assert_eq!(checked.exit, 2, "{name}");
        assert_eq!(
            checked.errors,
            idem::cli::failure::scenario_text(&err),
            "{name}"
        );
        assert!(
            checked
                .text
                .ends_with("0 passed, 0 failed, 1 invalid file\n"),
            "{name}: {}",
            checked.text
        );
        assert_clean(checked.text.as_bytes(), name);
        assert_clean(checked.errors.as_bytes(), name);
    }
}

#[test]
fn hostile_corpus_files_through_the_check_binary() {
    let paths: Vec<String> = REFUSED.iter().map(|r| corpus(r.0)).collect();
    let mut args = vec!["check"];
    args.extend(paths.iter().map(String::as_str));
    let out = idem(&args);
    assert_eq!(out.code, Some(2), "{}", out.stderr());
    assert!(
        out.stdout().ends_with(&format!(
            "0 passed, 0 failed, {} invalid files\n",
            REFUSED.len()
        )),
        "{}",
        out.stdout()
    );
    assert_clean(&out.stdout, "check stdout");
    assert_clean(&out.stderr, "check stderr");
}

#[test]
fn a_bidi_override_never_reaches_the_message() {
    let out = idem(&["run", &corpus("hostile-bidi-order-collision.toml")]);
    let stderr = out.stderr();
    // The quoted line keeps the escape as written, which is harmless text.
    assert!(stderr.contains("order `5531` appears twice"), "{stderr}");
    assert!(!stderr.contains('\u{202e}'), "{stderr}");
}

// ---------------------------------------------------------------- text cleaned, run allowed

#[test]
fn a_nul_in_a_key_is_dropped_and_an_empty_key_falls_back() {
    let dir = TempDir::new("nul");
    let path = dir.file(
        "nul.toml",
        "title = \"NUL keys\"\n\n[[intent]]\norder = \"5531\"\nkey = \"K7\\u0000Q4\"\namount = \"$48.60\"\nat = \"14:02:07\"\n\n\
         [[intent]]\norder = \"5532\"\nkey = \"\\u0000\"\namount = \"$10\"\nat = \"14:03:00\"\n",
    );
    let out = idem(&["run", &path, "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr());
    assert_clean_json(&out.stdout, "JSON");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(v["intents"][0]["key"], "K7Q4");
    assert_eq!(v["intents"][1]["key"], "5532-key");
    let out = idem(&["run", &path, "--design", "all"]);
    assert_eq!(out.code, Some(0));
    assert_clean(&out.stdout, "comparison");
}

#[test]
fn bidi_overrides_in_an_order_id_are_dropped() {
    let dir = TempDir::new("bidi");
    let path = dir.file(
        "bidi.toml",
        "title = \"Bidi \\u2067order\\u2069\"\n\n[[intent]]\norder = \"\\u202e5531\\u202c\"\nkey = \"K7\\u200fQ4\"\namount = \"$48.60\"\nat = \"14:02:07\"\n",
    );
    for args in [
        vec!["run", path.as_str()],
        vec!["run", path.as_str(), "--json"],
    ] {
        let out = idem(&args);
        assert_eq!(out.code, Some(0), "{}", out.stderr());
        assert_clean(&out.stdout, "stdout");
        assert_clean(&out.stderr, "stderr");
        let text = out.stdout();
        assert!(text.contains("5531"), "{text}");
        assert!(text.contains("K7Q4"), "{text}");
    }
    let checked = check_lib(&path);
    assert_eq!(checked.exit, 0, "{}", checked.errors);
    assert_clean(checked.text.as_bytes(), "check");
}

#[test]
fn a_title_of_escape_sequences_is_shown_without_them() {
    let dir = TempDir::new("title");
    let path = dir.file(
        "title.toml",
        &format!("title = \"\\u001b[31m\\u001b[0m\\u001b]0;owned\\u0007\"{ORDER}"),
    );
    let out = idem(&["run", &path]);
    assert_eq!(out.code, Some(0), "{}", out.stderr());
    assert_clean(&out.stdout, "text");
    assert!(
        out.stdout().starts_with("title — [31m[0m]0;owned\n"),
        "{}",
        out.stdout()
    );
    let out = idem(&["run", &path, "--json"]);
    assert_clean_json(&out.stdout, "JSON");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(v["title"], "[31m[0m]0;owned");
}

/// Known gap: U+061C ARABIC LETTER MARK is a bidirectional control like U+200F, but the
/// sanitiser does not remove it.
#[test]
fn an_arabic_letter_mark_is_dropped_too() {
    let dir = TempDir::new("alm");
    let path = dir.file("alm.toml", &format!("title = \"A\\u061cB\"{ORDER}"));
    let out = idem(&["run", &path]);
    assert_eq!(out.code, Some(0), "{}", out.stderr());
    assert!(!out.stdout().contains('\u{61c}'), "U+061C got through");
}

// ---------------------------------------------------------------- size

#[test]
fn very_long_lines() {
    let dir = TempDir::new("long");
    // A 500,000-character title is text like any other.
    let title = "t".repeat(500_000);
    let path = dir.file("title.toml", &format!("title = \"{title}\"{ORDER}"));
    let out = idem(&["run", &path]);
    assert_eq!(out.code, Some(0), "{}", out.stderr());
    assert_eq!(check_lib(&path).exit, 0);

    // An error far along a long line: the quoted part of the line stays short.
    let path = dir.file(
        "late.toml",
        &format!(
            "title = \"t\"\nseed = 1{}oops\n{ORDER}",
            " ".repeat(300_000)
        ),
    );
    let out = idem(&["run", &path]);
    let stderr = out.stderr();
    assert_eq!(out.code, Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!("error: {path}:2:8: ")),
        "{stderr}"
    );
    assert!(stderr.len() < 2_000, "{} bytes of message", stderr.len());

    // A long comment line does not move the next line's position.
    let path = dir.file(
        "comment.toml",
        &format!(
            "title = \"t\"\n# {}\nseed = \"x\"\n{ORDER}",
            "c".repeat(400_000)
        ),
    );
    let out = idem(&["run", &path]);
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr().starts_with(&format!("error: {path}:3:8: ")),
        "{}",
        out.stderr()
    );
    assert!(out.stderr.len() < 2_000);
}

#[test]
fn a_long_unknown_key_is_refused_in_time() {
    let dir = TempDir::new("long-key");
    let path = dir.file(
        "key.toml",
        &format!("title = \"t\"\n{} = 1\n{ORDER}", "k".repeat(100_000)),
    );
    let out = idem(&["run", &path]);
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr()
            .starts_with(&format!("error: {path}:2:1: unknown field")),
        "{}",
        &out.stderr()[..200.min(out.stderr.len())]
    );
}

/// Known problem: the message echoes a bad key or value in full (the quoted line is cut to
/// 100 characters, the message is not), so a 100,000-character key makes a 200 KB error.
#[test]
fn a_long_unknown_key_is_not_echoed_whole() {
    let dir = TempDir::new("long-key-echo");
    let path = dir.file(
        "key.toml",
        &format!("title = \"t\"\n{} = 1\n{ORDER}", "k".repeat(100_000)),
    );
    let out = idem(&["run", &path]);
    assert!(out.stderr.len() < 4_000, "{} bytes", out.stderr.len());
}

fn faults(n: usize, block: impl Fn(usize) -> String) -> String {
    let mut text = format!("title = \"faults\"\nseed = 9\n{ORDER}");
    for i in 0..n {
        text.push_str("\n[[fault]]\n");
        text.push_str(&block(i));
    }
    text
}

#[test]
fn ten_thousand_faults_on_the_first_attempts() {
    let dir = TempDir::new("faults");
    let same = dir.file(
        "same.toml",
        &faults(10_000, |_| "attempt = 1\nlose = \"reply\"\n".into()),
    );
    let kinds = [
        "lose = \"request\"",
        "lose = \"reply\"",
        "delay = \"reply\"\nby = \"40s\"",
        "duplicate = \"request\"\ngap = \"5ms\"",
        "crash_after = \"charge\"\nrestart_after = \"1s\"",
        "crash_after = \"receive\"",
        "processing = \"45s\"",
        "decline = true",
    ];
    let mixed = dir.file(
        "mixed.toml",
        &faults(10_000, |i| {
            format!("attempt = {}\n{}\n", i % 3 + 1, kinds[i % kinds.len()])
        }),
    );
    for path in [&same, &mixed] {
        let started = Instant::now();
        let out = idem(&["run", path, "--design", "all"]);
        assert_eq!(out.code, Some(0), "{}", out.stderr());
        assert!(out.stderr.is_empty(), "{}", out.stderr());
        assert!(started.elapsed() < Duration::from_secs(10));
        let checked = check_lib(path);
        assert_eq!(checked.exit, 0, "{}", checked.errors);
    }
}

/// Ten thousand faults on attempts that never happen: the first fifty warnings are shown, the
/// rest are counted in one closing line, and the run is quick.
#[test]
fn ten_thousand_faults_that_never_happen_are_warnings() {
    let dir = TempDir::new("unreachable");
    let path = dir.file(
        "far.toml",
        &faults(10_000, |i| {
            format!("attempt = {}\nlose = \"reply\"\n", i + 4)
        }),
    );
    let started = Instant::now();
    let out = idem_within(&["run", &path], Duration::from_secs(60));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.code, Some(0), "{}", &out.stderr()[..300]);
    let stderr = out.stderr();
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .count(),
        51,
        "{}",
        &stderr[..300]
    );
    assert!(
        stderr.contains("and 9950 more problems like those above"),
        "{stderr}"
    );
    assert!(!stderr.lines().any(|l| l.starts_with("error: ")));
    assert_clean(&out.stdout, "stdout");
}

#[test]
fn an_array_of_a_hundred_thousand_items() {
    let dir = TempDir::new("items");
    let items = vec!["\"pen\""; 100_000].join(",");
    // As the items of a purchase: accepted, and it runs.
    let path = dir.file(
        "items.toml",
        &format!(
            "title = \"items\"\n[[intent]]\norder = \"5531\"\namount = \"$48.60\"\nat = \"14:02:07\"\nitems = [{items}]\n"
        ),
    );
    let out = idem(&["run", &path, "--design", "all"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr());
    assert_eq!(check_lib(&path).exit, 0);

    // As the choices of a quiz: refused at the array, with the line cut short.
    let path = dir.file(
        "choices.toml",
        &format!(
            "title = \"quiz\"{ORDER}\n[[quiz]]\nat = \"14:02:07\"\nquestion = \"?\"\nanswer = 1\nchoices = [{items}]\n"
        ),
    );
    let out = idem(&["run", &path]);
    let stderr = out.stderr();
    assert_eq!(out.code, Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: {path}:11:11: a quiz offers two to four choices, not 100000"
        )),
        "{stderr}"
    );
    assert!(stderr.len() < 2_000);

    // Where a number belongs: a type error, not a hang.
    let numbers = vec!["1"; 100_000].join(",");
    let path = dir.file(
        "seed.toml",
        &format!("title = \"seed\"\nseed = [{numbers}]\n{ORDER}"),
    );
    let out = idem(&["run", &path]);
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr().starts_with(&format!("error: {path}:2:8: ")),
        "{}",
        out.stderr()
    );
    assert!(out.stderr.len() < 2_000);
}

#[test]
fn a_fault_names_an_order_with_control_characters_as_the_intent_does() {
    // The order is kept cleaned; the fault's reference to it is cleaned the same way, so it
    // finds its intent instead of being ignored with a puzzling "did you mean" the same name.
    let text = "title = \"t\"\n[[intent]]\norder = \"55\\u001b31\"\namount = \"$1.00\"\nat = \"10:00:00\"\n\
                [[fault]]\nintent = \"55\\u001b31\"\nattempt = 1\nlose = \"reply\"\n";
    let s = idem::scenario::parse("t.toml", "t", text).expect("parses");
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.config.faults.len(), 1);
}

/// Found by the `values` fuzz target (`fuzz/regressions/values-duration-overflow.txt`): a
/// duration whose parts add up past what a duration holds made the parser panic. In a
/// scenario file and on `idem window`'s command line it is now refused with a message.
#[test]
fn a_duration_whose_parts_overflow_is_refused_not_a_panic() {
    let dir = TempDir::new("duration-overflow");
    let text = "title = \"x\"\n[[checkout.layer]]\nattempts = 2\ntimeout = \"18446744073709551615s1000ms\"\n[[intent]]\norder = \"1\"\nkey = \"K\"\namount = \"$1.00\"\nat = \"10:00:00\"\n";
    let path = dir.write("overflow.toml", text);
    let path = path.to_string_lossy().to_string();
    let out = idem(&["check", &path]);
    assert_eq!(out.code, Some(2), "{}", out.stderr());
    assert!(out.stderr().contains(":4:11:"), "{}", out.stderr());
    assert!(
        out.stderr().contains("too long a duration"),
        "{}",
        out.stderr()
    );
    let out = idem(&["window", "--window", "18446744073709551615s1000ms"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr());
    assert!(
        out.stderr().contains("longer than any duration"),
        "{}",
        out.stderr()
    );
    assert!(!out.stderr().contains("panicked"), "{}", out.stderr());
}
