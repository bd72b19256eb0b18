//! Reading one value out of a tree with the file's conventions, each bad
//! value reported at its place with what was expected.

use std::time::Duration;

use super::durations::{self, Style};
use super::tree::{Node, Value, error_at};
use crate::window::{Provenance, WindowError};

/// The file being read: its name for messages and provenance.
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    pub file: &'a str,
}

impl<'a> Doc<'a> {
    pub fn new(file: &'a str) -> Self {
        Self { file }
    }

    /// An error placed at `node`.
    pub fn error(&self, node: &Node, message: impl Into<String>) -> WindowError {
        error_at(self.file, node.at, message)
    }

    /// A source for a layer or path read at `node`, under `field`.
    pub fn provenance(&self, node: &Node, field: impl Into<String>) -> Provenance {
        let mut source = Provenance::new(self.file, field);
        source.line = (node.at.0 > 0).then_some(node.at.0);
        source
    }

    /// `Ok` unless `node` is a value the files given do not determine: then an error saying
    /// why, and how to give it.
    pub fn known(&self, node: &Node, what: &str) -> Result<(), WindowError> {
        match &node.value {
            Value::Unknown(why) => Err(self.error(
                node,
                format!("{what} is needed and cannot be worked out from the files given: {why}"),
            )),
            _ => Ok(()),
        }
    }

    /// A whole number of at least 0: an integer, or digits written as text.
    pub fn count(&self, node: &Node, what: &str) -> Result<u64, WindowError> {
        self.known(node, what)?;
        let parsed = match &node.value {
            Value::Int(n) => u64::try_from(*n).ok(),
            Value::Text(t) => t.trim().parse::<u64>().ok(),
            _ => None,
        };
        parsed.ok_or_else(|| {
            self.error(
                node,
                format!(
                    "{what} must be a whole number of 0 or more, such as 3; found {}",
                    shown(node)
                ),
            )
        })
    }

    /// A number (integer or decimal).
    pub fn number(&self, node: &Node, what: &str) -> Result<f64, WindowError> {
        self.known(node, what)?;
        let parsed = match &node.value {
            Value::Int(n) => Some(*n as f64),
            Value::Float(f) => Some(*f),
            Value::Text(t) => t.trim().parse::<f64>().ok(),
            _ => None,
        };
        parsed
            .filter(|f| f.is_finite() && *f >= 0.0)
            .ok_or_else(|| {
                self.error(
                    node,
                    format!(
                        "{what} must be a number of 0 or more, such as 1.5; found {}",
                        shown(node)
                    ),
                )
            })
    }

    /// `true` or `false` (also written as text, as properties files do).
    pub fn flag(&self, node: &Node, what: &str) -> Result<bool, WindowError> {
        self.known(node, what)?;
        let parsed = match &node.value {
            Value::Bool(b) => Some(*b),
            Value::Text(t) => match t.trim().to_ascii_lowercase().as_str() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
            _ => None,
        };
        parsed.ok_or_else(|| {
            self.error(
                node,
                format!("{what} must be true or false; found {}", shown(node)),
            )
        })
    }

    /// Text (a number is taken as written).
    pub fn text(&self, node: &Node, what: &str) -> Result<String, WindowError> {
        self.known(node, what)?;
        node.scalar_text()
            .map(|t| crate::text::sanitize_line(&t))
            .ok_or_else(|| {
                self.error(
                    node,
                    format!("{what} must be a single value; found {}", node.kind()),
                )
            })
    }

    /// A length of time in `style`. A bare number counts in seconds for
    /// [`Style::Seconds`] and milliseconds for [`Style::Spring`].
    pub fn duration(&self, node: &Node, style: Style, what: &str) -> Result<Duration, WindowError> {
        self.known(node, what)?;
        // Protobuf's JSON form of a duration may also be a map of seconds and nanos.
        if style == Style::Go
            && let Value::Map(_) = node.value
        {
            let seconds = node
                .get("seconds")
                .map(|n| self.count(n, "seconds"))
                .transpose()?;
            let nanos = node
                .get("nanos")
                .map(|n| self.count(n, "nanos"))
                .transpose()?;
            if seconds.is_some() || nanos.is_some() {
                let nanos = u32::try_from(nanos.unwrap_or(0).min(999_999_999)).unwrap_or(0);
                return Ok(Duration::new(seconds.unwrap_or(0), nanos));
            }
        }
        let text = match &node.value {
            Value::Text(t) => t.clone(),
            Value::Int(n) if matches!(style, Style::Seconds | Style::Spring) => n.to_string(),
            _ => {
                return Err(self.error(
                    node,
                    format!("{what} must be {}; found {}", style.example(), shown(node)),
                ));
            }
        };
        durations::parse(&text, style).map_err(|p| self.error(node, format!("{what}: {p}")))
    }

    /// A map (or an error at `node` saying one was expected).
    pub fn map<'n>(&self, node: &'n Node, what: &str) -> Result<&'n Node, WindowError> {
        self.known(node, what)?;
        match node.value {
            Value::Map(_) => Ok(node),
            _ => Err(self.error(
                node,
                format!("{what} must be a map of settings; found {}", node.kind()),
            )),
        }
    }

    /// A list (or an error at `node` saying one was expected).
    pub fn list<'n>(&self, node: &'n Node, what: &str) -> Result<&'n [Node], WindowError> {
        self.known(node, what)?;
        match &node.value {
            Value::List(items) => Ok(items),
            _ => Err(self.error(
                node,
                format!("{what} must be a list; found {}", node.kind()),
            )),
        }
    }
}

/// A node as a message shows it: its text when it is a scalar.
fn shown(node: &Node) -> String {
    match node.scalar_text() {
        Some(text) => format!(
            "{:?}",
            crate::text::shorten(&crate::text::sanitize_line(&text), 40)
        ),
        None => node.kind().to_owned(),
    }
}
