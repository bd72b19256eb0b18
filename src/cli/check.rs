//! `idem check`: loads scenario files, simulates each `[[expect]]` block against its design,
//! and reports the way a test runner does, one line per expectation.
//!
//! Nothing here prints: [`run`] returns what belongs on standard output, what belongs on
//! standard error, and the exit code, so the binary and the tests see the same thing.

use crate::scenario::{self, Expectation, Scenario, ScenarioError};
use crate::sim::{Design, SimError, Trace};
use crate::text::sanitize_line;
use serde::Serialize;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::Write;
use std::path::Path;

/// The width of the status column: `ok`, `FAIL`, `skip` or `ERROR`, then padding.
const STATUS_WIDTH: usize = 6;

/// Arguments of `idem check`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Exit status: 0 when every expectation holds, 1 when one does not, 2 when a file is invalid.

Examples:
  idem check my-story.toml
  idem check scenarios/*.toml reply-lost
  idem check --json my-story.toml | jq '.files[].expectations[] | select(.status == \"fail\")'")]
pub struct CheckArgs {
    /// Scenario files to check, or names of built-in scenarios (reply-lost, …).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<OsString>,
    /// Print one JSON object on standard output instead of the report: every file, its
    /// problems and each expectation's result, and the totals.
    #[arg(long)]
    pub json: bool,
}

/// `idem check --json`: the whole run.
#[derive(Serialize, Debug, Default)]
pub struct CheckJson {
    pub files: Vec<FileJson>,
    pub passed: usize,
    pub failed: usize,
    pub invalid: usize,
    /// The exit code: 0, 1 or 2.
    pub exit: u8,
}

/// One file checked.
#[derive(Serialize, Debug, Default)]
pub struct FileJson {
    /// The path as given, or `NAME (built-in)`.
    pub file: String,
    /// `ok`, `fail` (an expectation does not hold), `skip` (nothing to check) or `invalid`.
    pub status: &'static str,
    /// Errors and warnings, each with its position (line 0: the file as a whole).
    pub problems: Vec<ProblemJson>,
    pub expectations: Vec<ExpectationJson>,
}

#[derive(Serialize, Debug)]
pub struct ProblemJson {
    pub severity: &'static str,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

#[derive(Serialize, Debug)]
pub struct ExpectationJson {
    pub line: usize,
    pub design: &'static str,
    /// `ok` or `fail`.
    pub status: &'static str,
    /// What held, or every difference.
    pub detail: String,
}

fn problem_json(d: &crate::scenario::diagnostic::Diagnostic) -> ProblemJson {
    ProblemJson {
        severity: if d.is_error() { "error" } else { "warning" },
        line: d.line,
        column: d.column,
        message: sanitize_line(&d.message),
    }
}

/// What `idem check` prints, and how it exits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOutcome {
    /// For standard output: one line per expectation, then the totals.
    pub text: String,
    /// For standard error: every problem found in an invalid file, and every warning.
    pub errors: String,
    /// 0 when every expectation holds, 1 when one does not, 2 when a file is invalid.
    pub exit: u8,
}

/// Running totals over every file checked.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    invalid: usize,
}

/// Checks every file named in `args`, in the order given.
pub fn run(args: &CheckArgs) -> CheckOutcome {
    let mut text = String::new();
    let mut errors = String::new();
    let mut tally = Tally::default();
    let mut report = CheckJson::default();
    for arg in &args.files {
        if crate::present::playlist::names_session_at(Path::new(arg)) {
            check_session(arg, &mut text, &mut errors, &mut tally, &mut report.files);
            continue;
        }
        let mut file = FileJson::default();
        check_one(arg, &mut text, &mut errors, &mut tally, &mut file);
        report.files.push(file);
    }
    let _ = write!(text, "{} passed, {} failed", tally.passed, tally.failed);
    if tally.invalid > 0 {
        let _ = write!(
            text,
            ", {} invalid file{}",
            tally.invalid,
            if tally.invalid == 1 { "" } else { "s" }
        );
    }
    text.push('\n');
    let exit = if tally.invalid > 0 {
        2
    } else if tally.failed > 0 {
        1
    } else {
        0
    };
    if args.json {
        report.passed = tally.passed;
        report.failed = tally.failed;
        report.invalid = tally.invalid;
        report.exit = exit;
        text = match serde_json::to_string_pretty(&report) {
            Ok(json) => json + "\n",
            Err(e) => {
                let _ = writeln!(errors, "error: cannot write the report as JSON: {e}");
                return CheckOutcome {
                    text: String::new(),
                    errors,
                    exit: 2,
                };
            }
        };
    }
    CheckOutcome { text, errors, exit }
}

/// A session file: the session itself (every scenario it names must load), then each part's
/// scenario, checked as a file of its own and reported under `session.toml part N`.
fn check_session(
    arg: &OsStr,
    text: &mut String,
    errors: &mut String,
    tally: &mut Tally,
    files: &mut Vec<FileJson>,
) {
    let playlist = match crate::present::playlist::load(Path::new(arg)) {
        Ok(p) => p,
        Err(e) => {
            report_invalid(&e, text, errors);
            tally.invalid += 1;
            files.push(FileJson {
                file: sanitize_line(&e.file),
                status: "invalid",
                problems: e.diagnostics.iter().map(problem_json).collect(),
                expectations: Vec::new(),
            });
            return;
        }
    };
    let _ = writeln!(
        text,
        "{:<STATUS_WIDTH$}{}  a session of {}: each part's scenario is checked below",
        "",
        sanitize_line(&arg.to_string_lossy()),
        crate::story::plural(playlist.sections.len(), "part")
    );
    for section in &playlist.sections {
        let mut json = FileJson::default();
        // Under the scenario's own name, so `file:line` points at its expectation.
        let label = match &section.scenario.origin {
            scenario::Origin::File(path) => sanitize_line(&path.display().to_string()),
            _ => format!("{} (built-in)", section.scenario.name),
        };
        check_scenario(&label, &section.scenario, text, errors, tally, &mut json);
        files.push(json);
    }
}

fn check_one(
    arg: &OsStr,
    text: &mut String,
    errors: &mut String,
    tally: &mut Tally,
    json: &mut FileJson,
) {
    let scenario = match scenario::resolve_os(arg) {
        Ok(s) => s,
        Err(e) => {
            report_invalid(&e, text, errors);
            tally.invalid += 1;
            json.file = sanitize_line(&e.file);
            json.status = "invalid";
            json.problems = e.diagnostics.iter().map(problem_json).collect();
            return;
        }
    };
    let file = shown_name(arg, &scenario);
    check_scenario(&file, &scenario, text, errors, tally, json);
}

/// Simulates each of a loaded scenario's expectations and reports them under `file`.
fn check_scenario(
    file: &str,
    scenario: &Scenario,
    text: &mut String,
    errors: &mut String,
    tally: &mut Tally,
    json: &mut FileJson,
) {
    let file = file.to_string();
    json.file = file.clone();
    json.problems = scenario.warnings.iter().map(problem_json).collect();
    json.status = "ok";
    for w in &scenario.warnings {
        errors.push_str(&super::failure::diagnostic_text(&file, w));
    }
    if scenario.expectations.is_empty() {
        json.status = "skip";
        let _ = writeln!(
            text,
            "{:<STATUS_WIDTH$}{file}  no [[expect]] blocks, so there is nothing to check",
            "skip"
        );
        return;
    }
    let width = scenario
        .expectations
        .iter()
        .map(|e| location(&file, e).chars().count())
        .max()
        .unwrap_or(0);
    type Keys = (
        Design,
        Option<crate::sim::config::KeyStrategy>,
        Option<crate::sim::config::KeyMode>,
    );
    let mut traces: BTreeMap<Keys, Result<Trace, SimError>> = BTreeMap::new();
    for e in &scenario.expectations {
        // The fix a trainer shows with K or m is checked like the failure the file tells.
        let trace = traces
            .entry((e.design, e.key_strategy, e.step_keys))
            .or_insert_with(|| match scenario.rekeyed(e.key_strategy, e.step_keys) {
                Ok(s) => s.simulate(e.design),
                Err(_) => scenario.simulate(e.design),
            });
        let keyed = [
            e.key_strategy
                .map(|k| format!("checkout keys {}", crate::story::checkout_keys(k))),
            e.step_keys
                .map(|m| format!("steps keyed with {}", crate::story::step_keys(m))),
        ];
        let keyed: Vec<String> = keyed.into_iter().flatten().collect();
        let (status, detail) = match judge(e, trace) {
            Ok(detail) => {
                tally.passed += 1;
                ("ok", detail)
            }
            Err(detail) => {
                tally.failed += 1;
                json.status = "fail";
                ("FAIL", detail)
            }
        };
        let detail = if keyed.is_empty() {
            detail
        } else {
            format!("{detail} ({})", keyed.join("; "))
        };
        json.expectations.push(ExpectationJson {
            line: e.line,
            design: e.design.id(),
            status: if status == "ok" { "ok" } else { "fail" },
            detail: detail.clone(),
        });
        let _ = writeln!(
            text,
            "{status:<STATUS_WIDTH$}{:<width$}  {:<17}  {detail}",
            location(&file, e),
            e.design.id()
        );
    }
}

/// The problems go to standard error in full; standard output gets one line saying so, so
/// that it alone still accounts for every file.
fn report_invalid(e: &ScenarioError, text: &mut String, errors: &mut String) {
    errors.push_str(&super::failure::scenario_text(e));
    let count = e.diagnostics.iter().filter(|d| d.is_error()).count().max(1);
    let _ = writeln!(
        text,
        "{:<STATUS_WIDTH$}{}  not checked: {count} error{}, shown on stderr",
        "ERROR",
        e.file,
        if count == 1 { "" } else { "s" }
    );
}

/// The name a file is reported under: the path as given, or the built-in's name.
fn shown_name(arg: &OsStr, scenario: &Scenario) -> String {
    if Path::new(arg).exists() {
        sanitize_line(&arg.to_string_lossy())
    } else {
        format!("{} (built-in)", scenario.name)
    }
}

fn location(file: &str, e: &Expectation) -> String {
    format!("{file}:{}", e.line)
}

/// `Ok` with what held, or `Err` with every difference, each naming expected and got.
fn judge(e: &Expectation, trace: &Result<Trace, SimError>) -> Result<String, String> {
    let trace = match trace {
        Ok(t) => t,
        Err(err) => return Err(format!("the simulation could not finish: {err}")),
    };
    let o = &trace.outcome;
    let mut held = Vec::new();
    let mut wrong = Vec::new();
    if let Some(want) = e.charges {
        if o.charges == want {
            held.push(format!("charges {want}"));
        } else {
            wrong.push(format!("charges: expected {want}, got {}", o.charges));
        }
    }
    if let Some(want) = e.verdict {
        if o.verdict == want {
            held.push(format!("verdict {}", want.id()));
        } else {
            wrong.push(format!(
                "verdict: expected {}, got {}",
                want.id(),
                o.verdict.id()
            ));
        }
    }
    if let Some(want) = e.client {
        // The checkout must end up believing this about every purchase in the scenario.
        if o.intents.iter().all(|i| i.client_view == want) {
            held.push(format!("client {}", want.label()));
        } else {
            let got: Vec<&str> = o.intents.iter().map(|i| i.client_view.label()).collect();
            wrong.push(format!(
                "client: expected {}, got {}",
                want.label(),
                got.join("/")
            ));
        }
    }
    if let Some(want) = e.refunds {
        let got = o.reconcile.as_ref().map_or(0, |r| r.refunds);
        if got == want {
            held.push(format!("refunds {want}"));
        } else {
            wrong.push(format!("refunds: expected {want}, got {got}"));
        }
    }
    if wrong.is_empty() {
        Ok(held.join(", "))
    } else {
        Err(wrong.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(files: &[&str]) -> CheckOutcome {
        run(&CheckArgs {
            files: files.iter().map(OsString::from).collect(),
            json: false,
        })
    }

    #[test]
    fn every_builtin_passes_by_name() {
        let names: Vec<&str> = scenario::library::BUILTIN.iter().map(|b| b.name).collect();
        let out = check(&names);
        assert_eq!(out.exit, 0, "{}{}", out.text, out.errors);
        assert!(out.errors.is_empty(), "{}", out.errors);
        assert!(out.text.ends_with(" passed, 0 failed\n"), "{}", out.text);
        assert!(
            out.text.contains("ok    reply-lost (built-in):"),
            "{}",
            out.text
        );
    }

    #[test]
    fn the_json_report_has_every_file_and_expectation() {
        let out = run(&CheckArgs {
            files: vec!["reply-lost".into(), "reply-lots".into()],
            json: true,
        });
        assert_eq!(out.exit, 2);
        let v: serde_json::Value = serde_json::from_str(&out.text).expect("valid JSON");
        assert_eq!(v["invalid"], 1);
        assert_eq!(v["exit"], 2);
        assert_eq!(v["files"][0]["file"], "reply-lost (built-in)");
        assert_eq!(v["files"][0]["status"], "ok");
        let first = &v["files"][0]["expectations"][0];
        assert!(first["line"].as_u64().is_some_and(|l| l > 0), "{first}");
        assert_eq!(first["status"], "ok");
        assert!(first["design"].is_string() && first["detail"].is_string());
        assert_eq!(v["files"][1]["status"], "invalid");
        assert_eq!(v["files"][1]["problems"][0]["severity"], "error");
        assert_eq!(
            v["passed"].as_u64(),
            v["files"][0]["expectations"]
                .as_array()
                .map(|a| a.len() as u64)
        );
    }

    #[test]
    fn an_unknown_name_is_an_invalid_file() {
        let out = check(&["reply-lots"]);
        assert_eq!(out.exit, 2);
        assert!(
            out.errors
                .contains("did you mean the built-in `reply-lost`?")
        );
        assert!(out.text.starts_with("ERROR reply-lots  not checked"));
        assert!(out.text.ends_with("0 passed, 0 failed, 1 invalid file\n"));
    }
}
