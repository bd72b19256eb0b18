//! Why an import stopped: a file that cannot be read, JSON that is malformed (with its
//! `file:line:column` and what was expected there), or records that are not an incident idem
//! can replay (with what was looked for).

use idem_core::text::sanitize_line;

/// An import that could not go on. Every message names the file, already made safe to show.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be opened or read.
    #[error("{file}: {why}")]
    Read { file: String, why: String },
    /// The JSON is malformed at this place.
    #[error("{file}:{line}:{column}: {message}")]
    Json {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// Read, but not an incident: what was looked for and not found.
    #[error("{file}: {why}")]
    Refused { file: String, why: String },
    /// The command's arguments do not fit the records (an --order no record carries, …).
    #[error("{0}")]
    Usage(String),
}

impl ImportError {
    pub fn read(file: &str, why: impl std::fmt::Display) -> ImportError {
        ImportError::Read {
            file: sanitize_line(file),
            why: sanitize_line(&why.to_string()),
        }
    }

    pub fn refused(file: &str, why: impl Into<String>) -> ImportError {
        ImportError::Refused {
            file: sanitize_line(file),
            why: sanitize_line(&why.into()),
        }
    }

    /// A serde_json error at a place in the file: `line_offset` lines come before the text
    /// the error's own line counts from (a JSON-lines file is read a line at a time).
    pub fn json(file: &str, e: &serde_json::Error, line_offset: usize, what: &str) -> ImportError {
        let message = sanitize_line(&e.to_string());
        // serde_json ends its message with " at line L column C": the place is given apart.
        let message = match message.rfind(" at line ") {
            Some(at) => message[..at].to_string(),
            None => message,
        };
        let hint = match e.classify() {
            serde_json::error::Category::Eof => {
                format!("{message}: the file ends in the middle of a JSON value (cut off?)")
            }
            serde_json::error::Category::Syntax => {
                format!("{message}; expected {what} as JSON")
            }
            serde_json::error::Category::Data => format!("{message}; expected {what}"),
            serde_json::error::Category::Io => message,
        };
        ImportError::Json {
            file: sanitize_line(file),
            line: e.line() + line_offset,
            column: e.column(),
            message: hint,
        }
    }
}
