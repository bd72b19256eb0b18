//! The `idem window` command logic through the library: flag parsing with
//! clap, how flags combine with a config file, text and JSON output, and the
//! error messages for bad input. (`window_cli.rs` runs the real binary.)

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;
use idem::cli::window::{WindowArgs, run, stack_from_args};
use idem::window::{Stack, WindowError, parse_stack};

/// A stand-in for the binary's `window` subcommand.
#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: WindowArgs,
}

fn args(flags: &[&str]) -> WindowArgs {
    let argv = std::iter::once("window").chain(flags.iter().copied());
    Cli::try_parse_from(argv)
        .expect("clap accepts the flags")
        .args
}

fn error(flags: &[&str]) -> String {
    match run(&args(flags)) {
        Ok(out) => panic!("expected {flags:?} to fail, got\n{out}"),
        Err(e) => e.to_string(),
    }
}

fn asset() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/assets/window-stack.toml").to_owned()
}

fn write_config(name: &str, body: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, body).expect("write temp config");
    path
}

#[test]
fn no_arguments_gives_the_worked_example() {
    assert_eq!(
        stack_from_args(&args(&[])).expect("valid"),
        Stack::worked_example()
    );
    let text = run(&args(&[])).expect("runs");
    assert!(text.contains("Attempts for one intent  27"), "{text}");
    assert!(text.contains("7,596 s (2.1 h)"), "{text}");
    assert!(
        text.contains("2 of 3 paths arrive after it expires; it needs 6 days."),
        "{text}"
    );
}

#[test]
fn the_asset_file_is_the_worked_example() {
    let stack = stack_from_args(&args(&["--config", &asset()])).expect("valid asset");
    assert_eq!(stack, Stack::worked_example());
    assert_eq!(run(&args(&["--config", &asset()])), run(&args(&[])));
}

#[test]
fn layers_from_flags_replace_the_example() {
    let stack =
        stack_from_args(&args(&["--layer", "http client=2s:3", "--layer", "1m:4"])).expect("valid");
    assert_eq!(stack.layers.len(), 2);
    assert_eq!(stack.layers[0].name, "http client");
    assert_eq!(stack.layers[1].name, "layer 2");
    assert_eq!(stack.layers[1].backoff(), Duration::from_secs(60));
    assert_eq!(stack.layers[1].attempts, 4);
    assert!(
        stack.paths.is_empty(),
        "the example's human paths only come with the example"
    );
    assert_eq!(stack.window, Duration::from_secs(86_400));
    assert_eq!(stack.safety, 2.0);
}

#[test]
fn flags_adjust_the_example_when_no_layer_is_given() {
    let stack = stack_from_args(&args(&[
        "--path",
        "restore from backup=7d",
        "--window",
        "6d",
        "--safety",
        "1.5",
    ]))
    .expect("valid");
    assert_eq!(stack.layers, Stack::worked_example().layers);
    assert_eq!(stack.paths.len(), 3);
    assert_eq!(stack.paths[2].delay, Duration::from_secs(7 * 86_400));
    assert_eq!(stack.window, Duration::from_secs(6 * 86_400));
    assert_eq!(stack.safety, 1.5);
}

#[test]
fn flags_beside_a_config_replace_by_name_or_add() {
    let stack = stack_from_args(&args(&[
        "--config",
        &asset(),
        "--layer",
        "calling service=5s:2",
        "--layer",
        "1d:2",
        "--path",
        "operator rerun=5d",
        "--path",
        "restore from backup=7d",
        "--window",
        "30d",
    ]))
    .expect("valid");
    let layers: Vec<(&str, u64)> = stack
        .layers
        .iter()
        .map(|l| (l.name.as_str(), l.attempts))
        .collect();
    assert_eq!(
        layers,
        [
            ("http client", 3),
            ("calling service", 2),
            ("job scheduler", 3),
            ("layer 4", 2)
        ]
    );
    assert_eq!(stack.layers[1].backoff(), Duration::from_secs(5));
    let paths: Vec<(&str, u64)> = stack
        .paths
        .iter()
        .map(|p| (p.name.as_str(), p.delay.as_secs() / 86_400))
        .collect();
    assert_eq!(
        paths,
        [
            ("dead-letter replay", 1),
            ("operator rerun", 5),
            ("restore from backup", 7)
        ]
    );
    assert_eq!(stack.window, Duration::from_secs(30 * 86_400));
    assert_eq!(stack.safety, 2.0);
}

#[test]
fn six_d_and_other_spellings_are_durations() {
    for (text, secs) in [
        ("6d", 6 * 86_400),
        ("3days", 3 * 86_400),
        ("26h", 26 * 3600),
        ("1m", 60),
    ] {
        let stack = stack_from_args(&args(&["--window", text])).expect("valid duration");
        assert_eq!(stack.window, Duration::from_secs(secs), "{text}");
    }
}

#[test]
fn json_has_the_documented_fields() {
    let out = run(&args(&["--json"])).expect("runs");
    assert_eq!(out.lines().count(), 1);
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid json");
    assert_eq!(json["attempts"], 27);
    assert_eq!(json["automatic_delay_s"], 7596);
    assert_eq!(json["paths"][0]["name"], "automatic");
    assert_eq!(json["paths"][0]["delay_s"], 7596);
    assert_eq!(json["paths"][0]["covered"], true);
    assert_eq!(json["paths"][1]["name"], "dead-letter replay");
    assert_eq!(json["paths"][1]["delay_s"], 93_600);
    assert_eq!(json["paths"][1]["covered"], false);
    assert_eq!(json["paths"][2]["covered"], false);
    assert_eq!(json["longest_path"], "operator rerun");
    assert_eq!(json["longest_path_s"], 259_200);
    assert_eq!(json["safety_factor"], 2.0);
    assert_eq!(json["required_window_s"], 518_400);
    assert_eq!(json["window_s"], 86_400);
    assert_eq!(json["window_is_enough"], false);
}

#[test]
fn fractional_seconds_are_json_floats() {
    let out = run(&args(&["--json", "--layer", "500ms:2"])).expect("runs");
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid json");
    assert_eq!(json["automatic_delay_s"], 0.5);
}

#[test]
fn the_tui_flag_is_accepted_and_left_to_the_caller() {
    let parsed = args(&["--tui"]);
    assert!(parsed.tui);
    assert!(idem::cli::window::report_from_args(&parsed).is_ok());
    assert_eq!(run(&parsed), run(&args(&[])));
}

#[test]
fn bad_flags_say_what_is_wrong_and_what_is_expected() {
    assert_eq!(
        error(&["--layer", "3"]),
        "--layer 3: expected BACKOFF:ATTEMPTS such as 2s:3, or BACKOFF:ATTEMPTS:TIMEOUT such as \
         2s:3:30s, optionally named as in \"http client=2s:3:30s\""
    );
    let cases: &[(&[&str], &[&str])] = &[
        (&["--layer", "2s:0"], &["--layer 2s:0:", "at least 1"]),
        (
            &["--layer", "2s:three"],
            &["--layer 2s:three:", "not a whole number"],
        ),
        (
            &["--layer", "2fortnights:3"],
            &["--layer 2fortnights:3:", "\"fortnights\"", "such as 2s"],
        ),
        (&["--layer", "2:3"], &["--layer 2:3:", "time unit needed"]),
        (&["--layer", "=2s:3"], &["--layer =2s:3:", "name is empty"]),
        (
            &["--layer", "2s:3:0s"],
            &["--layer 2s:3:0s:", "timeout", "longer than zero"],
        ),
        (
            &["--layer", "2s:3:soon"],
            &["--layer 2s:3:soon:", "timeout", "such as 2s"],
        ),
        (
            &["--layer", "2s:3:30s:9"],
            &["--layer 2s:3:30s:9:", "BACKOFF:ATTEMPTS:TIMEOUT"],
        ),
        (&["--layer", " =2s:3"], &["name is empty"]),
        (
            &["--path", "26h"],
            &["--path 26h:", "expected NAME=DURATION"],
        ),
        (&["--path", "=26h"], &["--path =26h:", "name is empty"]),
        (&["--path", "automatic=1h"], &["reserved"]),
        (
            &["--path", "rerun=soon"],
            &["--path rerun=soon:", "\"soon\"", "such as 2s"],
        ),
        (
            &["--window", "forever"],
            &["--window forever:", "such as 2s"],
        ),
        (&["--safety", "0.5"], &["--safety 0.5:", "at least 1"]),
        (&["--safety", "-1"], &["--safety -1:", "at least 1"]),
        (&["--safety", "NaN"], &["--safety NaN:", "at least 1"]),
        (
            &["--safety", "lots"],
            &["--safety lots:", "a number of at least 1"],
        ),
    ];
    for (flags, fragments) in cases {
        let message = error(flags);
        for fragment in *fragments {
            assert!(
                message.contains(fragment),
                "{flags:?}: {message:?} lacks {fragment:?}"
            );
        }
    }
}

#[test]
fn a_missing_config_file_is_an_error() {
    let message = error(&["--config", "/no/such/window.toml"]);
    assert!(
        message.starts_with("/no/such/window.toml: cannot read"),
        "{message}"
    );
}

#[test]
fn config_errors_point_at_file_line_and_column() {
    let cases = [
        (
            "window = \"24h\"\nsafty = 2\n",
            "2:1: unknown field `safty`",
        ),
        (
            "[[layer]]\nbackoff = \"2s\"\nattempts = 3\nretries = 1\n",
            "4:1: unknown field `retries`",
        ),
        (
            "[[layer]]\nbackoff = \"2fortnights\"\nattempts = 3\n",
            "2:11: cannot read \"2fortnights\"",
        ),
        (
            "[[layer]]\nbackoff = \"2s\"\nattempts = 0\n",
            "3:12: attempts must be",
        ),
        ("safety = 0.5\n", "1:10: the safety factor must be"),
        (
            "window = 24\n",
            "1:10: invalid type: integer `24`, expected a quoted duration",
        ),
        (
            "[[path]]\nname = \"\"\ndelay = \"1h\"\n",
            "2:8: the name is empty",
        ),
    ];
    for (body, expected) in cases {
        let file = Path::new("stack.toml");
        let message = parse_stack(body, file)
            .expect_err("invalid config")
            .to_string();
        assert_eq!(
            message.split(": ").next().map(|p| p.matches(':').count()),
            Some(2),
            "{message}"
        );
        assert!(
            message.starts_with(&format!("stack.toml:{expected}")),
            "{message}"
        );
    }

    let path = write_config(
        "window-bad.toml",
        "window = \"24h\"\n\n  colour = \"red\"\n",
    );
    let message = error(&["--config", path.to_str().expect("utf-8 temp path")]);
    assert!(
        message.starts_with(&format!("{}:3:3: unknown field `colour`", path.display())),
        "{message}"
    );
}

#[test]
fn config_errors_keep_their_structure() {
    match parse_stack("safty = 2\n", Path::new("s.toml")) {
        Err(WindowError::Config { position, .. }) => assert_eq!(position, Some((1, 1))),
        other => panic!("expected a config error, got {other:?}"),
    }
}

#[test]
fn integer_and_float_safety_both_parse() {
    let a = parse_stack("safety = 3\n", Path::new("a")).expect("integer");
    let b = parse_stack("safety = 3.0\n", Path::new("b")).expect("float");
    assert_eq!(a.safety, 3.0);
    assert_eq!(b.safety, 3.0);
    let unnamed = parse_stack(
        "[[layer]]\nbackoff = \"1s\"\nattempts = 2\n",
        Path::new("c"),
    )
    .expect("unnamed layer");
    assert_eq!(unnamed.layers[0].name, "layer 1");
}

#[test]
fn a_config_file_writes_every_kind_of_layer() {
    use idem::window::{Jitter, PathStart, Schedule};
    let path = write_config(
        "kinds.toml",
        r#"
[[layer]]
name = "client"
backoff = "1s"
multiplier = 2
cap = "20s"
jitter = "full"
attempts = 3
timeout = "5s"

[[layer]]
name = "lambda"
waits = ["1m", "2m"]
attempts = 3
deadline = "6h"

[[layer]]
name = "celery"
backoff = "3m"
attempts = "unbounded"
deadline = "1d"

[[path]]
name = "operator"
after = "72h"
"#,
    );
    let stack = idem::window::load_stack(&path).expect("valid");
    assert_eq!(
        stack.layers[0].schedule,
        Schedule::Exponential {
            initial: Duration::from_secs(1),
            multiplier: 2.0,
            cap: Some(Duration::from_secs(20)),
        }
    );
    assert_eq!(stack.layers[0].jitter, Jitter::Full);
    assert_eq!(stack.layers[0].timeout, Some(Duration::from_secs(5)));
    assert_eq!(
        stack.layers[1].schedule,
        Schedule::List(vec![Duration::from_secs(60), Duration::from_secs(120)])
    );
    assert_eq!(
        stack.layers[1].deadline,
        Some(Duration::from_secs(6 * 3600))
    );
    assert!(stack.layers[2].forever);
    assert!(
        stack.layers[2]
            .warnings
            .iter()
            .any(|w| w.contains("no bound"))
    );
    assert_eq!(stack.paths[0].start, PathStart::AfterGiveUp);
    // The celery layer is bounded by its deadline: the report ends.
    let report = stack.report().expect("valid");
    assert!(!report.gives_up.is_unbounded());
}

#[test]
fn a_config_file_with_a_wrong_layer_kind_says_what_to_write() {
    let both = write_config(
        "both.toml",
        "[[layer]]\nbackoff = \"1s\"\nwaits = [\"1m\"]\nattempts = 2\n",
    );
    let err = idem::window::load_stack(&both)
        .expect_err("two schedules")
        .to_string();
    assert!(err.contains("backoff or waits, not both"), "{err}");
    let neither = write_config("neither.toml", "[[layer]]\nattempts = 2\n");
    let err = idem::window::load_stack(&neither)
        .expect_err("no schedule")
        .to_string();
    assert!(err.contains("missing backoff"), "{err}");
    let word = write_config(
        "word.toml",
        "[[layer]]\nbackoff = \"1s\"\nattempts = \"many\"\n",
    );
    let err = idem::window::load_stack(&word)
        .expect_err("bad attempts")
        .to_string();
    assert!(err.contains("word.toml:3:"), "{err}");
    assert!(err.contains("\"unbounded\""), "{err}");
    let jitter = write_config(
        "jitter.toml",
        "[[layer]]\nbackoff = \"1s\"\nattempts = 2\njitter = \"wobbly\"\n",
    );
    let err = idem::window::load_stack(&jitter)
        .expect_err("bad jitter")
        .to_string();
    assert!(err.contains("jitter.toml:4:"), "{err}");
    assert!(err.contains("none, full, equal or decorrelated"), "{err}");
}

#[test]
fn keys_kept_takes_a_provider_or_a_duration_but_not_with_window() {
    let stack = stack_from_args(&args(&["--keys-kept", "adyen"])).expect("valid");
    assert_eq!(stack.window, Duration::from_secs(31 * 86_400));
    assert_eq!(stack.keys_kept_by.as_deref(), Some("Adyen"));
    let err = error(&["--keys-kept", "forever"]);
    assert!(err.contains("stripe, adyen"), "{err}");
    let argv = ["window", "--keys-kept", "stripe", "--window", "2d"];
    assert!(
        Cli::try_parse_from(argv).is_err(),
        "the two say the same thing"
    );
    let argv = ["window", "--preset", "resque"];
    assert!(Cli::try_parse_from(argv).is_err(), "an unknown preset");
}
