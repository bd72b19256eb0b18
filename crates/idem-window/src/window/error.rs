//! The one error type of the retry-window calculator.
//!
//! Every message says what was wrong and what would have been accepted, so
//! the binary can print it verbatim after `error: `.

use std::fmt;
use std::path::PathBuf;

/// Why a retry stack could not be read or evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum WindowError {
    /// A command-line flag had a value we cannot use.
    ///
    /// Displayed as `FLAG VALUE: PROBLEM`, e.g.
    /// `--layer 3: expected BACKOFF:ATTEMPTS such as 2s:3`.
    Flag {
        /// The flag, e.g. `--layer`.
        flag: &'static str,
        /// The value as given.
        value: String,
        /// What is wrong and what is expected.
        problem: String,
    },
    /// The config file could not be read at all.
    ReadConfig {
        /// The file as named on the command line.
        file: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// The config file was read but its contents are invalid.
    ///
    /// Displayed as `FILE:LINE:COLUMN: MESSAGE` when the position is known.
    Config {
        /// The file as named on the command line.
        file: PathBuf,
        /// 1-based line and column (in characters) of the offending text.
        position: Option<(usize, usize)>,
        /// What is wrong.
        message: String,
    },
    /// A stack built in code breaks a rule (zero attempts, empty name, ...).
    Stack(String),
    /// The report could not be encoded as JSON.
    Json(String),
}

impl fmt::Display for WindowError {
    /// Values, file names and messages echo what the user gave: cleaned before they are shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::text::sanitize_line(&self.raw_message()))
    }
}

impl WindowError {
    /// The message as put together, before cleaning.
    fn raw_message(&self) -> String {
        match self {
            Self::Flag {
                flag,
                value,
                problem,
            } => format!("{flag} {value}: {problem}"),
            Self::ReadConfig { file, reason } => {
                format!("{}: cannot read the config file: {reason}", file.display())
            }
            Self::Config {
                file,
                position: Some((line, column)),
                message,
            } => format!("{}:{line}:{column}: {message}", file.display()),
            Self::Config {
                file,
                position: None,
                message,
            } => format!("{}: {message}", file.display()),
            Self::Stack(message) => message.clone(),
            Self::Json(message) => format!("cannot encode the report as JSON: {message}"),
        }
    }
}

impl std::error::Error for WindowError {}
