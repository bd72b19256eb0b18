//! How idem reports on standard error: one shape for every problem, `error: …` as clap
//! writes its own, with the file position right after the level where there is one
//! (`error: story.toml:4:1: unknown field …`), and the offending line under it.
//!
//! The text is built plain, so tests and callers can read it; [`eprint`] colours the level
//! the way clap does, through `anstream`, which writes colour only to a terminal and follows
//! `NO_COLOR` and `CLICOLOR_FORCE`.

use crate::scenario::ScenarioError;
use crate::scenario::diagnostic::{Diagnostic, Severity, write_diagnostic};
use anstyle::{AnsiColor, Style};
use std::io::Write;

/// Why a command failed: a scenario's problems, each with its position, or one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    Scenario(ScenarioError),
    Message(String),
}

impl From<ScenarioError> for Failure {
    fn from(e: ScenarioError) -> Failure {
        Failure::Scenario(e)
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Message(message)
    }
}

impl Failure {
    /// The report, plain, ending in a newline.
    pub fn text(&self) -> String {
        match self {
            Failure::Scenario(e) => scenario_text(e),
            Failure::Message(m) => message_text(m),
        }
    }
}

/// `error: MESSAGE`, ending in a newline.
pub fn message_text(message: &str) -> String {
    format!("error: {message}\n")
}

/// Every problem of a scenario, one after another, ending in a newline.
pub fn scenario_text(e: &ScenarioError) -> String {
    let mut out = String::new();
    for d in &e.diagnostics {
        out.push_str(&diagnostic_text(&e.file, d));
    }
    if e.diagnostics.is_empty() {
        out.push_str(&message_text(&format!("{}: cannot be read", e.file)));
    }
    out
}

/// One problem: `error: file:3:12: message` (or `warning: …`), then the line with a caret
/// under the bad part, ending in a newline. The scenario module draws the snippet; only the
/// order of the first line's parts changes here.
pub fn diagnostic_text(file: &str, d: &Diagnostic) -> String {
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut drawn = String::new();
    let _ = write_diagnostic(&mut drawn, file, d);
    let position = if d.line == 0 {
        file.to_string()
    } else {
        format!("{file}:{}:{}", d.line, d.column)
    };
    let rest = drawn
        .strip_prefix(&format!("{position}: {level}: "))
        .unwrap_or(&drawn);
    format!("{level}: {position}: {rest}\n")
}

/// The style clap gives `error:`, and the one for `warning:`.
const ERROR: Style = AnsiColor::Red.on_default().bold();
const WARNING: Style = AnsiColor::Yellow.on_default().bold();

/// The text with each line's leading `error:` or `warning:` styled.
pub fn styled(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 32);
    for line in text.split_inclusive('\n') {
        let level = [("error:", ERROR), ("warning:", WARNING)]
            .into_iter()
            .find(|(word, _)| line.starts_with(word));
        match level {
            Some((word, style)) => {
                out.push_str(&format!("{style}{word}{style:#}"));
                out.push_str(&line[word.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Writes a report to standard error, coloured only where `anstream` says colour belongs.
pub fn eprint(text: &str) {
    let mut err = anstream::stderr();
    // Nothing is left to tell the user if standard error itself is gone.
    let _ = err.write_all(styled(text).as_bytes());
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_positioned_problem_puts_the_level_first() {
        let source = "name = \"x\"\nbogus = 1\n";
        let d = Diagnostic::at(Severity::Error, source, 11..16, "unknown field".into());
        let text = diagnostic_text("s.toml", &d);
        assert!(
            text.starts_with("error: s.toml:2:1: unknown field\n"),
            "{text}"
        );
        assert!(text.contains("2 | bogus = 1"), "{text}");
        let whole = Diagnostic::whole(Severity::Warning, "empty".into());
        assert_eq!(
            diagnostic_text("s.toml", &whole),
            "warning: s.toml: empty\n"
        );
    }

    #[test]
    fn only_the_leading_level_is_styled() {
        let text = styled("error: a\n  | error: b\nwarning: c\n");
        assert!(
            text.starts_with("\u{1b}[1m\u{1b}[31merror:\u{1b}[0m a\n"),
            "{text:?}"
        );
        assert!(text.contains("\n  | error: b\n"), "{text:?}");
        assert!(text.contains("\u{1b}[33mwarning:"), "{text:?}");
    }
}
