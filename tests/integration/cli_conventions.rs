//! The binary as a good command-line citizen: completions and a manual page generated from the
//! flags, "did you mean" for a mistyped command, `--out -`, every form of a time, the JSON of
//! `list` and `check`, `window --require-covered`'s exit status, and one error shape whose
//! colour follows `NO_COLOR` and `CLICOLOR_FORCE`.

use crate::common;

use common::{LIMIT, TempDir, idem_command, run_idem_in, run_with_timeout};
use serde_json::Value;
use std::process::Output;

fn idem(args: &[&str]) -> Output {
    run_idem_in(None, args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs the binary with the colour variables set as given and every other one removed, so
/// the machine's own settings never decide a test.
fn idem_with_colour(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = idem_command(args);
    for name in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM"] {
        cmd.env_remove(name);
    }
    for (name, value) in vars {
        cmd.env(name, value);
    }
    run_with_timeout(cmd, &format!("idem {args:?} with {vars:?}"), LIMIT)
}

// ---------------------------------------------------------------- completions and manual

#[test]
fn completions_for_every_shell() {
    for (shell, mark) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef idem"),
        ("fish", "complete -c idem"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion"),
    ] {
        let out = idem(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        assert!(script.contains(mark), "{shell}: no {mark:?} in\n{script}");
        // The subcommands and their flags are in it.
        for word in [
            "window",
            "export",
            "require-covered",
            "drill",
            "allow-remote",
        ] {
            assert!(script.contains(word), "{shell}: {word} missing");
        }
    }
    let out = idem(&["completions", "tcsh"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

#[test]
fn the_manual_page_is_roff() {
    let out = idem(&["man"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    // clap_mangen opens with two lines defining a quote string for groff; the page itself
    // starts at its title.
    let first_macro = page
        .lines()
        .find(|l| l.starts_with('.') && !l.starts_with(".ie") && !l.starts_with(".el"))
        .expect("a roff request");
    assert!(first_macro.starts_with(".TH idem 1"), "{first_macro}");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH SUBCOMMANDS"] {
        assert!(page.contains(section), "{section} missing");
    }
}

/// Bash completion offers what each flag takes: a design's ids after `--design` (and `all`
/// where the command takes it), the built-in scenarios where a scenario goes, and no file
/// names for a time; a flag that takes a path still gets file names.
#[test]
fn bash_completion_offers_what_each_flag_takes() {
    let script = text(&idem(&["completions", "bash"]).stdout);
    let block = |name: &str| -> String {
        let start = script
            .find(&format!("\n        {name})\n"))
            .unwrap_or_else(|| panic!("no block for {name}"));
        let rest = &script[start + 1..];
        let end = rest[1..]
            .find("\n        idem")
            .map_or(rest.len(), |e| e + 1);
        rest[..end].to_string()
    };
    let after = |block: &str, flag: &str| -> String {
        let at = block
            .find(&format!("                {flag})\n"))
            .unwrap_or_else(|| panic!("no case for {flag} in\n{block}"));
        block[at..].lines().nth(1).unwrap_or_default().to_string()
    };
    let root = block("idem");
    for b in idem::scenario::library::BUILTIN {
        assert!(
            root.contains(&format!(" {} ", b.name)),
            "{} not offered",
            b.name
        );
    }
    let design = after(&root, "--design");
    for d in idem::sim::Design::ALL {
        assert!(design.contains(d.id()), "{design}");
    }
    assert!(!design.contains("compgen -f"), "{design}");
    assert!(!after(&root, "--at").contains("compgen -f"));
    let run = block("idem__subcmd__run");
    let run_design = after(&run, "--design");
    assert!(
        run_design.contains(" all ") || run_design.contains("\"all "),
        "{run_design}"
    );
    let export = block("idem__subcmd__export");
    assert!(after(&export, "--out").contains("compgen -f"));
}

/// Every page idem(1) refers to exists: `idem man --out DIR` writes idem.1 and one page per
/// command, `idem man run` prints one of them, an unknown command is named, and pages already
/// in the folder are replaced only with --force.
#[test]
fn every_page_the_manual_names_is_written() {
    let dir = TempDir::new("man-pages");
    let out = idem(&["man", "--out", &dir.path().display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let main = std::fs::read_to_string(dir.path().join("idem.1")).expect("idem.1");
    let mut named = 0;
    for (i, _) in main.match_indices("idem\\-") {
        let rest = &main[i + "idem\\-".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if rest[name.len()..].starts_with("(1)") {
            named += 1;
            let page = dir.path().join(format!("idem-{name}.1"));
            assert!(page.exists(), "idem(1) names idem-{name}(1), not written");
        }
    }
    assert!(named >= 10, "idem(1) names {named} pages");
    let run = text(&idem(&["man", "run"]).stdout);
    assert!(
        run.contains(".TH idem-run 1"),
        "{}",
        &run[..run.len().min(300)]
    );
    let unknown = idem(&["man", "rnu"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        text(&unknown.stderr).contains("run"),
        "{}",
        text(&unknown.stderr)
    );
    std::fs::write(dir.path().join("idem-run.1"), "mine").expect("writable");
    let again = idem(&["man", "--out", &dir.path().display().to_string()]);
    assert_ne!(again.status.code(), Some(0));
    assert!(
        text(&again.stderr).contains("--force"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("idem-run.1")).expect("kept"),
        "mine"
    );
    let forced = idem(&["man", "--out", &dir.path().display().to_string(), "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced.stderr));
    assert!(
        std::fs::read_to_string(dir.path().join("idem-run.1"))
            .expect("written")
            .contains(".TH idem-run")
    );
}

// ---------------------------------------------------------------- did you mean

#[test]
fn a_mistyped_command_is_named() {
    for args in [&["rnu"][..], &["rnu", "reply-lost"], &["windwo"], &["lsit"]] {
        let out = idem(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        let err = text(&out.stderr);
        let want = match args[0] {
            "rnu" => "did you mean `idem run`?",
            "windwo" => "did you mean `idem window`?",
            _ => "did you mean `idem list`?",
        };
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // A mistyped scenario name still gets the built-in it is close to.
    let err = text(&idem(&["reply-lots"]).stderr);
    assert!(
        err.contains("did you mean the built-in `reply-lost`?"),
        "{err}"
    );
    // A real file of that name is a scenario, not a typo: it is read, and its problem shown.
    let dir = TempDir::new("typo-file");
    dir.write("rnu", "title = 3\n");
    let out = run_idem_in(Some(dir.path()), &["rnu"]);
    let err = text(&out.stderr);
    assert!(!err.contains("did you mean"), "{err}");
    assert!(err.starts_with("error: rnu:1:9: "), "{err}");
}

// ---------------------------------------------------------------- --out -

#[test]
fn out_dash_writes_to_standard_output() {
    let dir = TempDir::new("out-dash");
    for format in ["md", "svg", "cast"] {
        let out = run_idem_in(
            Some(dir.path()),
            &["export", "order-5531", "--format", format, "--out", "-"],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: {}",
            text(&out.stderr)
        );
        let file = dir.join(&format!("via-file.{format}"));
        let written = idem(&[
            "export",
            "order-5531",
            "--format",
            format,
            "--out",
            file.to_str().expect("a UTF-8 path"),
        ]);
        assert_eq!(written.status.code(), Some(0));
        let on_disk = std::fs::read(&file).expect("the file was written");
        assert_eq!(
            out.stdout, on_disk,
            "{format}: stdout holds exactly the export"
        );
    }
    assert!(!dir.join("-").exists(), "no file named -");
}

// ---------------------------------------------------------------- times

#[test]
fn every_form_of_a_time_is_accepted() {
    let svg_at = |at: &str| {
        let out = idem(&[
            "export",
            "order-5531",
            "--format",
            "svg",
            "--design",
            "no-key",
            "--at",
            at,
            "--out",
            "-",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "--at {at}: {}",
            text(&out.stderr)
        );
        out.stdout
    };
    // The same moment, written five ways: the same picture.
    let minute = svg_at("14:03");
    for same in ["14:03:00", "14:03:00.000", "Mon 14:03", "day 1 14:03"] {
        assert_eq!(svg_at(same), minute, "{same} is 14:03");
    }
    // Milliseconds count: the processor receives the retry 50 ms after it is sent.
    assert_ne!(svg_at("14:02:38.050"), svg_at("14:02:38"));
    assert!(text(&svg_at("14:02:38.050")).contains("14:02:38.050"));
    // And a bad one says what is expected.
    let out = idem(&["--at", "25:00", "order-5531"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("hours go to 23"),
        "{}",
        text(&out.stderr)
    );
    let out = idem(&["--at", "1400", "order-5531"]);
    assert!(text(&out.stderr).contains("HH:MM"), "{}", text(&out.stderr));
}

// ---------------------------------------------------------------- --json

#[test]
fn list_json_names_every_builtin() {
    let out = idem(&["list", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let items = v.as_array().expect("an array");
    assert_eq!(items.len(), idem::scenario::library::BUILTIN.len());
    let reply = items
        .iter()
        .find(|i| i["name"] == "reply-lost")
        .expect("reply-lost is listed");
    for field in ["title", "summary", "description", "design"] {
        assert!(
            reply[field].as_str().is_some_and(|s| !s.is_empty()),
            "{field}"
        );
    }
    assert!(reply["quizzes"].is_u64() && reply["expectations"].is_u64());
}

#[test]
fn list_cuts_only_on_a_terminal() {
    // Piped, as here: every summary whole, however long.
    let listing = text(&idem(&["list"]).stdout);
    assert!(!listing.contains('…'), "{listing}");
    for b in idem::scenario::library::BUILTIN {
        let s = b.load().expect("a built-in loads");
        let whole = idem::text::summary(&s.description, usize::MAX);
        assert!(listing.contains(&whole), "{} cut:\n{listing}", b.name);
    }
}

#[test]
fn check_json_reports_files_and_expectations() {
    let out = idem(&["check", "--json", "reply-lost", "order-5531"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(v["exit"], 0);
    assert_eq!(v["failed"], 0);
    assert_eq!(v["invalid"], 0);
    let files = v["files"].as_array().expect("files");
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["file"], "reply-lost (built-in)");
    let expectations: usize = files
        .iter()
        .map(|f| f["expectations"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(v["passed"].as_u64(), Some(expectations as u64));
    let e = &files[1]["expectations"][0];
    assert_eq!(e["status"], "ok");
    assert!(e["line"].is_u64() && e["design"].is_string() && e["detail"].is_string());

    // An invalid file: exit 2, and its problem with its position in the JSON.
    let dir = TempDir::new("check-json");
    let bad = dir.file("bad.toml", "title = \"x\"\nbogus = 1\n");
    let out = idem(&["check", "--json", &bad]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let problem = &v["files"][0]["problems"][0];
    assert_eq!(v["files"][0]["status"], "invalid");
    assert_eq!(problem["severity"], "error");
    assert_eq!(
        (problem["line"].as_u64(), problem["column"].as_u64()),
        (Some(2), Some(1))
    );
    assert!(
        problem["message"]
            .as_str()
            .is_some_and(|m| m.contains("bogus"))
    );
}

// ---------------------------------------------------------------- window --require-covered

#[test]
fn window_require_covered_sets_the_exit_status() {
    // The worked example: the human paths outlive the 24 h window.
    let out = idem(&["window", "--require-covered"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("NOT covered"),
        "the report is printed"
    );
    let err = text(&out.stderr);
    assert!(
        err.starts_with("error: ") && err.contains("NOT covered"),
        "{err}"
    );
    // Without the flag the same configuration exits 0, as before.
    assert_eq!(idem(&["window"]).status.code(), Some(0));
    // A window that covers every path passes.
    let out = idem(&[
        "window",
        "--layer",
        "2s:3",
        "--window",
        "24h",
        "--require-covered",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // And with --json, the JSON is still there to read.
    let out = idem(&["window", "--require-covered", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let _: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
}

#[test]
fn window_help_has_examples_and_no_caller_talk() {
    let help = text(&idem(&["window", "--help"]).stdout);
    assert!(!help.contains("handled by the caller"), "{help}");
    assert!(help.contains("--require-covered"));
    assert!(help.contains("Examples:"));
    for command in [
        "run",
        "check",
        "list",
        "new",
        "present",
        "notes",
        "export",
        "serve",
        "drill",
        "completions",
        "man",
    ] {
        let help = text(&idem(&[command, "--help"]).stdout);
        assert!(
            help.contains("Examples:"),
            "{command} --help has no examples"
        );
    }
    assert!(text(&idem(&["--help"]).stdout).contains("Examples:"));
}

// ---------------------------------------------------------------- one error shape, coloured

const RED_ERROR: &str = "\u{1b}[1m\u{1b}[31merror:\u{1b}[0m";

#[test]
fn errors_share_one_shape_and_colour() {
    let dir = TempDir::new("error-shape");
    let bad = dir.file("bad.toml", "title = \"x\"\nbogus = 1\n");
    // idem's own (a scenario, with its position), and clap's (an unknown flag).
    let ours = ["run", bad.as_str()];
    let clap = ["run", "--bogus"];
    for args in [&ours[..], &clap[..]] {
        let plain = idem_with_colour(args, &[]);
        let err = text(&plain.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains('\u{1b}'), "piped: no colour");

        let forced = text(&idem_with_colour(args, &[("CLICOLOR_FORCE", "1")]).stderr);
        assert!(forced.starts_with(RED_ERROR), "{args:?} forced: {forced:?}");

        let both = [("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")];
        let off = text(&idem_with_colour(args, &both).stderr);
        assert!(!off.contains('\u{1b}'), "{args:?}: NO_COLOR wins: {off:?}");
    }
    let err = text(&idem_with_colour(&ours, &[]).stderr);
    assert!(
        err.starts_with(&format!("error: {bad}:2:1: unknown field `bogus`")),
        "{err}"
    );
    // Warnings take the same shape, in yellow.
    let warned = common::corpus("unreachable-fault.toml");
    let out = idem_with_colour(&["run", &warned], &[("CLICOLOR_FORCE", "1")]);
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(
        err.starts_with(&format!(
            "\u{1b}[1m\u{1b}[33mwarning:\u{1b}[0m {warned}:12:11: "
        )),
        "{err:?}"
    );
}
