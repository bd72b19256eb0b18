//! `idem window` through the real binary: output, JSON, config files and
//! exit code 2 with `error: ...` on stderr for bad input.

use std::path::Path;
use std::process::{Command, Output};

fn idem_window(flags: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idem"))
        .arg("window")
        .args(flags)
        .output()
        .expect("the idem binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn succeeds(flags: &[&str]) -> String {
    let output = idem_window(flags);
    assert!(
        output.status.success(),
        "{flags:?} failed: {}",
        stderr(&output)
    );
    stdout(&output)
}

/// Runs with `flags`, expects exit code 2 and returns stderr.
fn fails(flags: &[&str]) -> String {
    let output = idem_window(flags);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{flags:?}: {}{}",
        stdout(&output),
        stderr(&output)
    );
    let message = stderr(&output);
    assert!(message.starts_with("error: "), "{flags:?}: {message}");
    message
}

const ASSET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/window-stack.toml");

#[test]
fn no_arguments_prints_the_worked_example() {
    let out = succeeds(&[]);
    for expected in [
        "Attempts for one intent  27",
        "7,596 s (2.1 h)",
        "Required window          6 days (518,400 s)",
        "Current window           24 h",
        "2 of 3 paths arrive after it expires; it needs 6 days.",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in\n{out}");
    }
    assert_eq!(out.matches("NOT covered").count(), 2, "{out}");
}

#[test]
fn json_output_is_one_object() {
    let out = succeeds(&["--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid json");
    assert_eq!(json["attempts"], 27);
    assert_eq!(json["automatic_delay_s"], 7596);
    assert_eq!(json["paths"][0]["name"], "automatic");
    assert_eq!(json["paths"][0]["covered"], true);
    assert_eq!(json["paths"][1]["covered"], false);
    assert_eq!(json["paths"][2]["covered"], false);
    assert_eq!(json["longest_path_s"], 259_200);
    assert_eq!(json["safety_factor"], 2.0);
    assert_eq!(json["required_window_s"], 518_400);
    assert_eq!(json["window_s"], 86_400);
}

#[test]
fn the_config_asset_gives_the_same_report() {
    assert_eq!(succeeds(&["--config", ASSET]), succeeds(&[]));
}

#[test]
fn a_long_enough_window_is_reported_as_such() {
    let out = succeeds(&["--config", ASSET, "--window", "6d"]);
    assert!(out.contains("The window of 6 days is long enough"), "{out}");
    assert!(!out.contains("NOT covered"), "{out}");
}

#[test]
fn a_layer_of_one_attempt_lists_no_backoff() {
    let out = succeeds(&["--layer", "api=2s:1:5s", "--layer", "service=1m:3"]);
    let api = out
        .lines()
        .find(|l| l.contains(" api "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(api.contains("no retry") && !api.contains("2 s"), "{api}");
}

#[test]
fn custom_layers_and_paths() {
    let out = succeeds(&[
        "--layer",
        "http client=2s:3",
        "--path",
        "restore from backup=7d",
        "--safety",
        "1",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid json");
    assert_eq!(json["attempts"], 3);
    assert_eq!(json["automatic_delay_s"], 4);
    assert_eq!(json["paths"][1]["name"], "restore from backup");
    assert_eq!(json["required_window_s"], 7 * 86_400);
}

#[test]
fn huge_stacks_print_without_overflow() {
    let mut flags = Vec::new();
    for _ in 0..40 {
        flags.extend(["--layer", "1000d:1000"]);
    }
    let out = succeeds(&flags);
    assert!(out.contains("Attempts for one intent  1.0e120"), "{out}");
    assert!(out.contains("1.0e123 days"), "{out}");
}

#[test]
fn bad_input_exits_with_code_2_and_explains() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--layer", "3"],
            "error: --layer 3: expected BACKOFF:ATTEMPTS such as 2s:3",
        ),
        (
            &["--layer", "2s:0"],
            "error: --layer 2s:0: attempts must be at least 1",
        ),
        (
            &["--layer", "2fortnights:3"],
            "error: --layer 2fortnights:3: backoff: cannot read",
        ),
        (
            &["--layer", "=2s:3"],
            "error: --layer =2s:3: the name is empty",
        ),
        (
            &["--path", "26h"],
            "error: --path 26h: expected NAME=DURATION",
        ),
        (
            &["--safety", "0.5"],
            "error: --safety 0.5: the safety factor must be at least 1",
        ),
        (
            &["--window", "soon"],
            "error: --window soon: cannot read \"soon\"",
        ),
        (
            &["--config", "/no/such/window.toml"],
            "error: /no/such/window.toml: cannot read",
        ),
    ];
    for (flags, expected) in cases {
        let message = fails(flags);
        assert!(message.starts_with(expected), "{flags:?}: {message:?}");
    }
}

#[test]
fn config_errors_name_file_line_and_column() {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("window-cli-bad.toml");
    std::fs::write(
        &path,
        "window = \"24h\"\n[[layer]]\nbackoff = \"2s\"\nattempt = 3\n",
    )
    .expect("write temp config");
    let file = path.to_str().expect("utf-8 temp path");
    let message = fails(&["--config", file]);
    assert!(
        message.starts_with(&format!("error: {file}:4:1: unknown field `attempt`")),
        "{message}"
    );
}

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/window");

#[test]
fn from_reads_a_real_config_and_a_broken_one_exits_2_with_its_place() {
    let out = succeeds(&[
        "--from",
        &format!("{FIXTURES}/sqs-queue-attributes.json"),
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(json["layers"][0]["name"], "SQS capture-requests");
    assert_eq!(json["paths"][1]["name"], "dead-letter redrive");
    assert_eq!(json["paths"][1]["covered"], false);
    let message = fails(&["--from", &format!("{FIXTURES}/broken/envoy-route.yaml")]);
    assert!(
        message.contains("envoy-route.yaml:8:22: num_retries"),
        "{message}"
    );
    let message = fails(&["--from", &format!("{FIXTURES}/no-such-file.yaml")]);
    assert!(message.contains("no-such-file.yaml"), "{message}");
}

/// A span under a minute is said once: "77 s", never "77 s (77 s)".
#[test]
fn a_short_span_is_not_said_twice() {
    let out = succeeds(&["--layer", "client=1s:3:20s", "--layer", "gateway=2s:2"]);
    let delay = out
        .lines()
        .find(|l| l.starts_with("Automatic delay"))
        .expect("the delay line");
    let value = delay.trim_start_matches("Automatic delay").trim();
    if let Some((seconds, human)) = value.split_once(" (") {
        assert_ne!(format!("{seconds})"), human, "{delay}");
    }
    assert!(!value.contains('('), "{delay}");
}
