//! `idem check`, `idem list` and `idem new`, through the library functions the binary calls
//! and through the real binary.

use crate::common;

use common::{TempDir, manifest};
use idem::cli::check::{self, CheckArgs, CheckOutcome};
use idem::cli::new::{self, NewArgs};
use std::path::Path;

const CANONICAL: [&str; 9] = [
    "order-5531",
    "reply-lost",
    "request-lost",
    "slow-processor",
    "crash-after-key",
    "key-reuse",
    "second-purchase",
    "per-attempt-key",
    "monday-rerun",
];

// ---------------------------------------------------------------- helpers

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary in `dir` (or here), failing the test after 10 s or on a panic.
/// `idem new NAME`, as the command line gives it.
fn named(name: String) -> NewArgs {
    NewArgs {
        name: Some(name),
        from: None,
        list: false,
    }
}

fn idem_in(dir: Option<&Path>, args: &[&str]) -> Out {
    let output = common::run_idem_in(dir, args);
    Out {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn idem(args: &[&str]) -> Out {
    idem_in(None, args)
}

fn canonical_paths() -> Vec<String> {
    CANONICAL
        .iter()
        .map(|n| manifest(&format!("scenarios/{n}.toml")))
        .collect()
}

fn check_lib(files: &[String]) -> CheckOutcome {
    check::run(&CheckArgs {
        files: files.iter().map(Into::into).collect(),
        json: false,
    })
}

/// reply-lost with its no-key expectation turned wrong: 1 charge, where the run makes 2.
fn wrong_expectation(dir: &TempDir) -> (String, usize) {
    let source = std::fs::read_to_string(manifest("scenarios/reply-lost.toml"))
        .expect("reply-lost.toml reads");
    let needle = "design = \"no-key\"\ncharges = 2";
    let at = source
        .find(needle)
        .expect("reply-lost has a no-key expectation");
    // The [[expect]] header is the line before `design`.
    let line = source[..at].matches('\n').count();
    let changed = source.replace(needle, "design = \"no-key\"\ncharges = 1");
    (dir.file("wrong.toml", &changed), line)
}

const INVALID: &str = "title = \"broken\"\n\n[[checkout.layer]]\natempts = 3\n";

// ---------------------------------------------------------------- check, through the library

#[test]
fn every_canonical_scenario_passes() {
    let out = check_lib(&canonical_paths());
    assert_eq!(out.exit, 0, "{}\n{}", out.text, out.errors);
    assert!(out.errors.is_empty(), "{}", out.errors);
    let ok = out.text.lines().filter(|l| l.starts_with("ok    ")).count();
    assert!(ok >= 30, "{}", out.text);
    assert!(
        out.text.ends_with(&format!("\n{ok} passed, 0 failed\n")),
        "{}",
        out.text
    );
    // Every file is named, with the line of each [[expect]] block.
    for (name, path) in CANONICAL.iter().zip(canonical_paths()) {
        assert!(
            out.text.contains(&format!("{path}:")),
            "{name}: {}",
            out.text
        );
    }
    assert!(!out.text.contains("FAIL"), "{}", out.text);
}

#[test]
fn a_passing_line_names_the_design_and_what_held() {
    let path = manifest("scenarios/reply-lost.toml");
    let out = check_lib(std::slice::from_ref(&path));
    let line = out
        .text
        .lines()
        .find(|l| l.contains(" no-key "))
        .expect("a no-key line");
    assert!(line.starts_with(&format!("ok    {path}:")), "{line}");
    assert!(line.ends_with("charges 2, verdict duplicate"), "{line}");
    let line = out
        .text
        .lines()
        .find(|l| l.contains(" content-hash "))
        .expect("a content-hash line");
    assert!(
        line.ends_with("charges 1, verdict charged-unconfirmed, client failed"),
        "{line}"
    );
}

#[test]
fn a_wrong_expectation_fails_with_expected_and_got() {
    let dir = TempDir::new("wrong");
    let (path, line) = wrong_expectation(&dir);
    let out = check_lib(std::slice::from_ref(&path));
    assert_eq!(out.exit, 1, "{}", out.text);
    let fail = out
        .text
        .lines()
        .find(|l| l.starts_with("FAIL"))
        .unwrap_or_else(|| panic!("no FAIL line in\n{}", out.text));
    assert!(fail.starts_with(&format!("FAIL  {path}:{line}")), "{fail}");
    assert!(fail.contains("no-key"), "{fail}");
    assert!(fail.ends_with("charges: expected 1, got 2"), "{fail}");
    // The other four expectations still hold.
    assert!(out.text.ends_with("4 passed, 1 failed\n"), "{}", out.text);
}

#[test]
fn several_differences_are_all_named() {
    let dir = TempDir::new("several");
    let path = dir.file(
        "several.toml",
        "title = \"several\"\n\n[[intent]]\norder = \"1\"\namount = \"$5\"\nat = \"10:00:00\"\n\n\
         [[fault]]\nlose = \"reply\"\n\n\
         [[expect]]\ndesign = \"no-key\"\ncharges = 1\nverdict = \"correct\"\nclient = \"failed\"\n",
    );
    let out = check_lib(&[path]);
    assert_eq!(out.exit, 1);
    assert!(
        out.text.contains(
            "charges: expected 1, got 2; verdict: expected correct, got duplicate; client: expected failed, got paid"
        ),
        "{}",
        out.text
    );
}

#[test]
fn an_invalid_file_exits_2_with_its_position() {
    let dir = TempDir::new("invalid");
    let path = dir.file("broken.toml", INVALID);
    let out = check_lib(std::slice::from_ref(&path));
    assert_eq!(out.exit, 2);
    assert!(
        out.errors
            .contains(&format!("error: {path}:4:1: unknown field `atempts`")),
        "{}",
        out.errors
    );
    assert!(out.errors.contains("4 | atempts = 3"), "{}", out.errors);
    assert!(
        out.text.starts_with(&format!("ERROR {path}")),
        "{}",
        out.text
    );
    assert!(
        out.text.ends_with("0 passed, 0 failed, 1 invalid file\n"),
        "{}",
        out.text
    );
}

#[test]
fn a_mix_exits_2_and_still_checks_the_rest() {
    let dir = TempDir::new("mix");
    let (wrong, _) = wrong_expectation(&dir);
    let broken = dir.file("broken.toml", INVALID);
    let good = manifest("scenarios/request-lost.toml");
    let out = check_lib(&[good.clone(), wrong.clone(), broken.clone(), good]);
    assert_eq!(out.exit, 2, "{}", out.text);
    // request-lost twice (5 + 5) and four of wrong.toml's five.
    assert!(
        out.text.ends_with("14 passed, 1 failed, 1 invalid file\n"),
        "{}",
        out.text
    );
    // Files are reported in the order given.
    let first_wrong = out.text.find(&wrong).expect("wrong.toml reported");
    let first_broken = out.text.find(&broken).expect("broken.toml reported");
    assert!(first_wrong < first_broken, "{}", out.text);
    // The same input always gives the same report.
    let again = check_lib(&[
        manifest("scenarios/request-lost.toml"),
        wrong,
        broken,
        manifest("scenarios/request-lost.toml"),
    ]);
    assert_eq!(out, again);
}

#[test]
fn a_file_without_expectations_is_not_a_failure() {
    let dir = TempDir::new("none");
    let path = dir.file(
        "plain.toml",
        "title = \"plain\"\n[[intent]]\norder = \"1\"\namount = \"$5\"\nat = \"10:00:00\"\n",
    );
    let out = check_lib(std::slice::from_ref(&path));
    assert_eq!(out.exit, 0, "{}", out.text);
    assert_eq!(
        out.text,
        format!(
            "skip  {path}  no [[expect]] blocks, so there is nothing to check\n0 passed, 0 failed\n"
        )
    );
}

#[test]
fn warnings_go_to_stderr_and_do_not_fail() {
    let path = manifest("tests/bad_scenarios/unreachable-fault.toml");
    let out = check_lib(std::slice::from_ref(&path));
    assert_ne!(out.exit, 2, "{}", out.errors);
    assert!(
        out.errors.contains(&format!("warning: {path}:12:11: ")),
        "{}",
        out.errors
    );
}

#[test]
fn built_in_names_are_checked_too() {
    let out = check_lib(&["monday-rerun".to_string()]);
    assert_eq!(out.exit, 0, "{}", out.text);
    assert!(
        out.text.starts_with("ok    monday-rerun (built-in):"),
        "{}",
        out.text
    );
}

// ---------------------------------------------------------------- ticks named by quizzes, notes, narration

/// One purchase whose first answer is lost, so the designs part ways on the retry.
const LOST_REPLY: &str = "title = \"targets\"\n\n[[intent]]\norder = \"5531\"\nkey = \"K7Q4\"\n\
    amount = \"$48.60\"\nat = \"14:02:07\"\n\n[[fault]]\nlose = \"reply\"\n";

/// The labels of LOST_REPLY's ticks under each design, as the engine writes them today.
fn labels_by_design() -> Vec<(idem::sim::Design, Vec<String>)> {
    let s = idem::scenario::parse("t.toml", "t", LOST_REPLY).expect("LOST_REPLY parses");
    idem::sim::Design::ALL
        .iter()
        .map(|d| (*d, s.run(*d).expect("simulates").told.labels))
        .collect()
}

fn with_block(dir: &TempDir, block: &str) -> String {
    dir.file("t.toml", &format!("{LOST_REPLY}\n{block}"))
}

fn quiz_on(label: &str) -> String {
    format!(
        "[[quiz]]\nlabel = {}\nquestion = \"q\"\nchoices = [\"a\", \"b\"]\nanswer = 1\n",
        toml_string(label)
    )
}

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[test]
fn a_misspelt_label_is_an_error_with_a_suggestion_and_the_labels() {
    let labels = labels_by_design();
    // A real label of a few words, with two letters swapped.
    let real = labels[0]
        .1
        .iter()
        .find(|l| l.len() >= 10 && l.is_ascii())
        .expect("a long enough label")
        .clone();
    let mut bytes = real.clone().into_bytes();
    let i = bytes.len() / 2;
    bytes.swap(i - 1, i);
    let typo = String::from_utf8(bytes).expect("ascii");
    assert_ne!(typo, real);
    let dir = TempDir::new("typo-label");
    let path = with_block(&dir, &quiz_on(&typo));
    let out = check_lib(std::slice::from_ref(&path));
    assert_eq!(out.exit, 2, "{}", out.text);
    let quiz_line = LOST_REPLY.lines().count() + 3;
    assert!(
        out.errors.contains(&format!(
            "error: {path}:{quiz_line}:9: no tick is labelled `{typo}` under any design (did you mean `{real}`?)"
        )),
        "{}",
        out.errors
    );
    assert!(out.errors.contains("the labels are: `"), "{}", out.errors);
    assert!(out.errors.contains(&format!("`{real}`")), "{}", out.errors);
    assert!(
        out.text.starts_with(&format!("ERROR {path}")),
        "{}",
        out.text
    );
}

/// A label that some designs reach and others do not: the quiz is asked only under those
/// that reach it. Not an error (the file says what it means), but a warning naming the
/// designs that miss it; a narration may speak to one design on purpose, without a warning.
#[test]
fn a_label_some_designs_miss_is_a_warning_for_a_quiz_and_fine_for_a_narration() {
    let by_design = labels_by_design();
    let (label, missing): (String, Vec<idem::sim::Design>) = by_design
        .iter()
        .flat_map(|(_, labels)| labels.iter())
        .find_map(|l| {
            let missing: Vec<_> = by_design
                .iter()
                .filter(|(_, ls)| !ls.contains(l))
                .map(|(d, _)| *d)
                .collect();
            (!missing.is_empty()).then(|| (l.clone(), missing))
        })
        .expect("the designs differ somewhere after a lost reply");
    let dir = TempDir::new("some-designs");
    let path = with_block(&dir, &quiz_on(&label));
    let out = check_lib(std::slice::from_ref(&path));
    assert_eq!(out.exit, 0, "{}{}", out.text, out.errors);
    assert!(
        out.errors
            .lines()
            .any(|l| l.starts_with("warning: ") && l.contains(": under ")),
        "{}",
        out.errors
    );
    for d in &missing {
        assert!(out.errors.contains(d.id()), "{d:?}: {}", out.errors);
    }
    assert!(
        out.errors.contains("the room is not asked there"),
        "{}",
        out.errors
    );
    assert!(!out.errors.contains("error"), "{}", out.errors);

    let narration = format!(
        "[[narration]]\nlabel = {}\ntext = \"mine\"\n",
        toml_string(&label)
    );
    let path = with_block(&dir, &narration);
    let out = check_lib(std::slice::from_ref(&path));
    assert_eq!(out.exit, 0, "{}", out.errors);
    assert!(out.errors.is_empty(), "{}", out.errors);
}

/// `at` names the first tick at or after the time: the time of the last tick still matches,
/// a moment later matches nothing.
#[test]
fn a_time_matches_up_to_the_last_tick() {
    let s = idem::scenario::parse("t.toml", "t", LOST_REPLY).expect("parses");
    let last = idem::sim::Design::ALL
        .iter()
        .map(|d| {
            let t = s.simulate(*d).expect("simulates");
            t.ticks.last().expect("a tick").at
        })
        .max()
        .expect("five designs");
    let clock = |ms: u64| {
        let s = ms / 1000;
        format!(
            "{:02}:{:02}:{:02}.{:03}",
            s / 3600,
            s / 60 % 60,
            s % 60,
            ms % 1000
        )
    };
    let dir = TempDir::new("time-target");
    let note = |at: String| format!("[[note]]\nat = \"{at}\"\ntext = \"n\"\n");
    let out = check_lib(&[with_block(&dir, &note(clock(last.0)))]);
    assert_eq!(out.exit, 0, "{}", out.errors);
    let out = check_lib(&[with_block(&dir, &note(clock(last.0 + 1)))]);
    assert_eq!(out.exit, 2, "{}", out.errors);
    assert!(
        out.errors
            .contains("no tick comes at or after this time under any design"),
        "{}",
        out.errors
    );
}

// ---------------------------------------------------------------- list and new, through the library

#[test]
fn the_listing_holds_all_nine_with_titles() {
    let text = idem::cli::list::run(true);
    for name in CANONICAL {
        let s = idem::scenario::resolve(name).expect("a built-in loads");
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} missing from\n{text}"));
        assert!(line.ends_with(&s.title), "{line}");
    }
    assert!(text.contains("idem run NAME"), "{text}");
}

#[test]
fn new_writes_once_and_refuses_a_second_time() {
    let dir = TempDir::new("new-lib");
    let target = dir.join("drill");
    let name = target.display().to_string();
    let message = new::run(&named(name.clone())).expect("the first write works");
    let path = format!("{name}.toml");
    assert!(message.contains(&path), "{message}");
    assert!(message.contains("idem check"), "{message}");
    let written = std::fs::read(&path).expect("the file exists");
    assert_eq!(written, new::STARTER.as_bytes());

    // Named with .toml already: no second extension.
    let err = new::run(&named(path.clone()))
        .expect_err("it exists")
        .to_string();
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read(&path).expect("still there"), written);

    let out = check_lib(&[path]);
    assert_eq!(out.exit, 0, "{}\n{}", out.text, out.errors);
    assert!(out.errors.is_empty(), "{}", out.errors);
    assert!(out.text.ends_with(" passed, 0 failed\n"), "{}", out.text);
}

/// A name that is only a folder would write a file called `.toml` in it.
#[test]
fn new_refuses_a_name_that_is_only_a_folder() {
    let dir = TempDir::new("new-folder");
    let folder = format!("{}/", dir.path().display());
    for name in ["/", folder.as_str(), ".", "..", ".toml", "x/.toml", "./"] {
        let err = new::run(&named(name.into())).expect_err(name).to_string();
        assert!(
            err.contains("names a folder, not a scenario file"),
            "{name}: {err}"
        );
    }
    assert!(!dir.join(".toml").exists());
    assert_eq!(std::fs::read_dir(dir.path()).expect("reads").count(), 0);
}

#[test]
fn new_refuses_an_empty_name_and_a_missing_folder() {
    let err = new::run(&named("  ".into()))
        .expect_err("no name")
        .to_string();
    assert!(err.contains("needs a name"), "{err}");
    let dir = TempDir::new("new-missing");
    let name = dir.join("no/such/folder/x").display().to_string();
    let err = new::run(&named(name)).expect_err("no folder").to_string();
    let folder = dir.join("no/such/folder").display().to_string();
    assert!(
        err.contains(&format!("the folder `{folder}` does not exist")),
        "{err}"
    );
}

// ---------------------------------------------------------------- the real binary

#[test]
fn binary_every_canonical_scenario_passes() {
    let paths = canonical_paths();
    let mut args = vec!["check"];
    args.extend(paths.iter().map(String::as_str));
    let out = idem(&args);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert_eq!(out.stdout, check_lib(&paths).text);
    let last = out.stdout.lines().last().unwrap_or_default();
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
    assert!(!last.starts_with("0 "), "{last}");
}

#[test]
fn binary_a_wrong_expectation_exits_1() {
    let dir = TempDir::new("bin-wrong");
    let (path, line) = wrong_expectation(&dir);
    let out = idem(&["check", &path]);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(&format!("FAIL  {path}:{line}")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("charges: expected 1, got 2"),
        "{}",
        out.stdout
    );
}

#[test]
fn binary_an_invalid_file_exits_2() {
    let dir = TempDir::new("bin-invalid");
    let path = dir.file("broken.toml", INVALID);
    let out = idem(&["check", &path]);
    assert_eq!(out.code, Some(2), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains(&format!("error: {path}:4:1: ")),
        "{}",
        out.stderr
    );
}

#[test]
fn binary_a_mix_exits_2() {
    let dir = TempDir::new("bin-mix");
    let (wrong, _) = wrong_expectation(&dir);
    let broken = dir.file("broken.toml", INVALID);
    let good = manifest("scenarios/order-5531.toml");
    let out = idem(&["check", &good, &wrong, &broken]);
    assert_eq!(out.code, Some(2), "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("FAIL"), "{}", out.stdout);
    assert!(out.stdout.contains("1 invalid file"), "{}", out.stdout);
}

#[test]
fn binary_check_needs_a_file() {
    let out = idem(&["check"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stdout.is_empty());
}

#[test]
fn binary_list_names_all_nine_with_titles() {
    let out = idem(&["list"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    for name in CANONICAL {
        let s = idem::scenario::resolve(name).expect("a built-in loads");
        assert!(out.stdout.contains(name), "{name}: {}", out.stdout);
        assert!(out.stdout.contains(&s.title), "{name}: {}", out.stdout);
    }
}

#[test]
fn binary_new_writes_once_and_the_file_passes_check() {
    let dir = TempDir::new("bin-new");
    let out = idem_in(Some(dir.path()), &["new", "my-drill"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("my-drill.toml"), "{}", out.stdout);
    let path = dir.join("my-drill.toml");
    let first = std::fs::read(&path).expect("idem new wrote my-drill.toml");
    assert_eq!(first, new::STARTER.as_bytes());

    // A second time: refused, and the file is untouched, byte for byte.
    std::fs::write(&path, b"# edited by the trainer\n").expect("edit the file");
    let edited = std::fs::read(&path).expect("read it back");
    for name in ["my-drill", "my-drill.toml"] {
        let again = idem_in(Some(dir.path()), &["new", name]);
        assert_ne!(again.code, Some(0), "{name}: {}", again.stdout);
        assert!(again.stderr.contains("already exists"), "{}", again.stderr);
        assert_eq!(std::fs::read(&path).expect("still there"), edited);
    }

    // A fresh one passes `idem check`, run where it was written.
    let out = idem_in(Some(dir.path()), &["new", "second"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let out = idem_in(Some(dir.path()), &["check", "second.toml"]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains(" passed, 0 failed"), "{}", out.stdout);
}

/// `idem check` on a session file checks the scenario of every part, each under its own name
/// so `file:line` points at the expectation; a broken part makes the session invalid, with the
/// position of the culprit; a part whose expectation no longer holds fails.
#[test]
fn a_session_file_checks_every_part() {
    let run = |files: Vec<String>| {
        check::run(&CheckArgs {
            files: files.into_iter().map(Into::into).collect(),
            json: false,
        })
    };
    let out = run(vec![manifest("scenarios/sessions/payments-45min.toml")]);
    assert_eq!(out.exit, 0, "{}{}", out.text, out.errors);
    assert!(out.text.contains("a session of 5 parts"), "{}", out.text);
    assert!(
        out.text.contains("ok    order-5531 (built-in):41"),
        "{}",
        out.text
    );
    assert!(out.text.contains("reply-lost.toml:28"), "{}", out.text);
    assert!(out.text.contains("19 passed, 0 failed"), "{}", out.text);

    let broken = run(vec![manifest("tests/bad_sessions/broken-scenario.toml")]);
    assert_eq!(broken.exit, 2, "{}", broken.text);
    assert!(
        broken.errors.contains("bad-time.toml:6:6:"),
        "{}",
        broken.errors
    );

    let dir = TempDir::new("session-check");
    let story = dir.file(
        "story.toml",
        &common::builtin_source("reply-lost").replace("charges = 2", "charges = 3"),
    );
    let session = dir.file(
        "talk.toml",
        &format!("title = \"A talk\"\n[[section]]\nscenario = \"{story}\"\n"),
    );
    let failing = run(vec![session]);
    assert_eq!(failing.exit, 1, "{}{}", failing.text, failing.errors);
    assert!(failing.text.contains("FAIL  "), "{}", failing.text);
}

#[test]
fn binary_new_starts_from_a_template_and_lists_them() {
    let dir = TempDir::new("bin-new-from");
    let out = idem_in(Some(dir.path()), &["new", "--list"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    for name in new::TEMPLATES {
        assert!(out.stdout.contains(name), "{}", out.stdout);
    }
    for template in new::TEMPLATES {
        let file = format!("{template}-mine");
        let out = idem_in(Some(dir.path()), &["new", &file, "--from", template]);
        assert_eq!(out.code, Some(0), "{template}: {}", out.stderr);
        let written = std::fs::read_to_string(dir.join(&format!("{file}.toml"))).expect("written");
        let builtin = idem::scenario::library::find(template).expect("built in");
        assert_eq!(written, builtin.text, "{template}");
        // Each holds to its own [[expect]] blocks where it was written.
        let out = idem_in(Some(dir.path()), &["check", &format!("{file}.toml")]);
        assert_eq!(
            out.code,
            Some(0),
            "{template}: {}\n{}",
            out.stdout,
            out.stderr
        );
    }
    // A misspelt template says which it meant, and writes nothing.
    let out = idem_in(
        Some(dir.path()),
        &["new", "x", "--from", "webhook-redelivry"],
    );
    assert_eq!(out.code, Some(2), "{}", out.stdout);
    assert!(
        out.stderr.contains("did you mean webhook-redelivery?"),
        "{}",
        out.stderr
    );
    assert!(!dir.join("x.toml").exists());
}

/// The label of a second charge: LOST_REPLY's retry is charged again under some designs only.
fn second_charge() -> (String, Vec<idem::sim::Design>, Vec<idem::sim::Design>) {
    let label = "charges ch_2 $48.60".to_string();
    let (with, without): (Vec<_>, Vec<_>) = labels_by_design()
        .into_iter()
        .partition(|(_, labels)| labels.contains(&label));
    assert!(
        !with.is_empty() && !without.is_empty(),
        "some designs charge the retry, some do not"
    );
    (
        label,
        with.into_iter().map(|(d, _)| d).collect(),
        without.into_iter().map(|(d, _)| d).collect(),
    )
}

fn ids(designs: &[idem::sim::Design]) -> String {
    designs
        .iter()
        .map(|d| toml_string(d.id()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A quiz and a note scoped to the designs that reach their tick: no warning, the check
/// passes; the same quiz unscoped warns.
#[test]
fn a_quiz_scoped_to_the_designs_that_reach_its_tick_is_not_warned_about() {
    let (label, with, _) = second_charge();
    let dir = TempDir::new("scoped");
    let unscoped = with_block(&dir, &quiz_on(&label));
    let out = check_lib(std::slice::from_ref(&unscoped));
    assert!(out.errors.contains("warning: "), "{}", out.errors);

    let scoped = format!(
        "{}designs = [{}]\n\n[[note]]\nlabel = {}\ndesigns = [{}]\ntext = \"the statement\"\n",
        quiz_on(&label),
        ids(&with),
        toml_string(&label),
        ids(&with[..1]),
    );
    let path = with_block(&dir, &scoped);
    let out = check_lib(std::slice::from_ref(&path));
    assert_eq!(out.exit, 0, "{}{}", out.text, out.errors);
    assert!(!out.errors.contains("warning"), "{}", out.errors);
    assert!(!out.errors.contains("error"), "{}", out.errors);
}

/// Scoped to designs none of which has the tick: an error at the label, naming the designs
/// that do have it.
#[test]
fn a_quiz_scoped_to_designs_that_miss_its_tick_is_an_error() {
    let (label, with, without) = second_charge();
    let dir = TempDir::new("scoped-nowhere");
    let block = format!("{}designs = [{}]\n", quiz_on(&label), ids(&without));
    let path = with_block(&dir, &block);
    let out = check_lib(std::slice::from_ref(&path));
    assert_eq!(out.exit, 2, "{}{}", out.text, out.errors);
    assert!(
        out.errors.contains(&format!("error: {path}:13:9: ")),
        "{}",
        out.errors
    );
    assert!(out.errors.contains("would never be seen"), "{}", out.errors);
    for d in &with {
        assert!(out.errors.contains(d.id()), "{d:?}: {}", out.errors);
    }
}

/// `designs` holds design ids: a misspelt one is an error at its own line and column with the
/// id it was meant to be, a repeated one a warning at the repeat, an empty list an error.
#[test]
fn a_designs_list_is_checked_where_it_is_written() {
    let dir = TempDir::new("scoped-bad");
    let block = format!(
        "{}designs = [\"no-kee\", \"no-key\", \"no-key\"]\n\n[[note]]\nat = \"14:02:07\"\ndesigns = []\ntext = \"x\"\n",
        quiz_on("receives #1")
    );
    let path = with_block(&dir, &block);
    let out = check_lib(std::slice::from_ref(&path));
    assert_eq!(out.exit, 2, "{}{}", out.text, out.errors);
    let typo = out
        .errors
        .lines()
        .find(|l| l.starts_with(&format!("error: {path}:17:12: ")))
        .unwrap_or_else(|| panic!("no error at 17:12: {}", out.errors));
    assert!(typo.contains("`no-kee`"), "{typo}");
    assert!(typo.contains("did you mean `no-key`?"), "{typo}");
    assert!(
        out.errors
            .contains(&format!("warning: {path}:17:32: `no-key` is listed twice")),
        "{}",
        out.errors
    );
    let empty = out
        .errors
        .lines()
        .find(|l| l.starts_with(&format!("error: {path}:21:11: ")))
        .unwrap_or_else(|| panic!("no error at 21:11: {}", out.errors));
    assert!(empty.contains("lists no design"), "{empty}");
}

/// A question whose label names no tick is refused with the labels there are; the command
/// it points to for the rest prints them once that block is taken out, and not before.
#[test]
fn a_quiz_label_that_names_no_tick_points_to_a_way_that_prints_every_label() {
    let dir = TempDir::new("quiz-label");
    let base = std::fs::read_to_string(manifest("scenarios/reply-lost.toml")).expect("reply-lost");
    let quiz = "\n[[quiz]]\nlabel = \"charge $48.60 key K7Q #2\"\nquestion = \"What now?\"\nchoices = [\"A\", \"B\"]\nanswer = 1\n";
    let bad = dir.write("bad.toml", &format!("{base}{quiz}"));
    let bad = bad.to_string_lossy().to_string();
    let out = idem(&["check", &bad]);
    assert_ne!(out.code, Some(0));
    assert!(
        out.stderr
            .contains("did you mean `charge $48.60 key K7Q4 #2`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("with the blocks that name no tick taken out"),
        "{}",
        out.stderr
    );
    // What the message says: the same file without the block prints every label.
    let good = dir.write("good.toml", &base);
    let out = idem(&["run", &good.to_string_lossy(), "--design", "all", "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    let labels: Vec<&str> = json
        .as_array()
        .expect("one run a design")
        .iter()
        .flat_map(|run| run["ticks"].as_array().into_iter().flatten())
        .filter_map(|t| t["label"].as_str())
        .collect();
    for named in [
        "charge $48.60 key K7Q4 #2",
        "statement: 1 line",
        "answer to #1 lost",
    ] {
        assert!(labels.contains(&named), "{named} in {labels:?}");
    }
}
