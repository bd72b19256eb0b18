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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Flag {
                flag,
                value,
                problem,
            } => write!(f, "{flag} {value}: {problem}"),
            Self::ReadConfig { file, reason } => {
                write!(
                    f,
                    "{}: cannot read the config file: {reason}",
                    file.display()
                )
            }
            Self::Config {
                file,
                position: Some((line, column)),
                message,
            } => {
                write!(f, "{}:{line}:{column}: {message}", file.display())
            }
            Self::Config {
                file,
                position: None,
                message,
            } => {
                write!(f, "{}: {message}", file.display())
            }
            Self::Stack(message) => f.write_str(message),
            Self::Json(message) => write!(f, "cannot encode the report as JSON: {message}"),
        }
    }
}

impl std::error::Error for WindowError {}
