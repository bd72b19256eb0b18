//! Reading a retry stack from a TOML file (`idem window --config FILE`).
//!
//! The format (see `assets/window-stack.toml` for a commented example):
//!
//! ```toml
//! window = "24h"        # optional, default 24h
//! safety = 2            # optional, default 2, at least 1
//!
//! [[layer]]             # innermost first; repeat per layer
//! name = "http client"  # optional, default "layer N"
//! backoff = "2s"
//! attempts = 3
//! timeout = "30s"       # optional: how long one try may last
//!
//! [[path]]              # human recovery paths; repeat per path
//! name = "dead-letter replay"
//! delay = "26h"
//! ```
//!
//! Unknown keys are rejected, and every error names the place it was found
//! as `FILE:LINE:COLUMN: message`.

use std::path::Path;
use std::time::Duration;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

use super::error::WindowError;
use super::parse;
use super::stack::{DEFAULT_SAFETY, DEFAULT_WINDOW, HumanPath, Layer, Stack};
use super::stack::{check_name, check_path_name, check_safety};

/// A duration written as a humantime string ("26h").
struct TomlDuration(Duration);

impl<'de> Deserialize<'de> for TomlDuration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(DurationVisitor)
    }
}

/// Accepts only strings, so `window = 24` says a quoted duration is expected.
struct DurationVisitor;

impl serde::de::Visitor<'_> for DurationVisitor {
    type Value = TomlDuration;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a quoted duration such as \"26h\"")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        parse::duration(text).map(TomlDuration).map_err(E::custom)
    }
}

/// A duration longer than zero (a timeout).
struct Positive(Duration);

impl<'de> Deserialize<'de> for Positive {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let TomlDuration(value) = TomlDuration::deserialize(deserializer)?;
        if value.is_zero() {
            return Err(D::Error::custom(
                "a timeout must be longer than zero, such as \"30s\"",
            ));
        }
        Ok(Self(value))
    }
}

/// A layer name: any non-blank text.
struct LayerName(String);

impl<'de> Deserialize<'de> for LayerName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        check_name(&text)
            .map_err(|p| D::Error::custom(format!("{p}; give a label such as \"http client\"")))?;
        Ok(Self(crate::text::sanitize_line(text.trim())))
    }
}

/// A human path name: non-blank and not "automatic".
struct PathName(String);

impl<'de> Deserialize<'de> for PathName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        check_path_name(&text).map_err(|p| {
            D::Error::custom(format!("{p}; give a label such as \"dead-letter replay\""))
        })?;
        Ok(Self(crate::text::sanitize_line(text.trim())))
    }
}

/// An attempts count of at least 1.
struct Attempts(u64);

impl<'de> Deserialize<'de> for Attempts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = i64::deserialize(deserializer)?;
        match u64::try_from(value) {
            Ok(n) if n >= 1 => Ok(Self(n)),
            _ => Err(D::Error::custom(format!(
                "attempts must be a whole number of at least 1 (1 means no retry); got {value}"
            ))),
        }
    }
}

/// A safety factor of at least 1 (integer or float in TOML).
struct Safety(f64);

impl<'de> Deserialize<'de> for Safety {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(deserializer)?;
        check_safety(value).map_err(D::Error::custom)?;
        Ok(Self(value))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LayerEntry {
    name: Option<LayerName>,
    backoff: TomlDuration,
    attempts: Attempts,
    timeout: Option<Positive>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PathEntry {
    name: PathName,
    delay: TomlDuration,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StackFile {
    #[serde(default)]
    layer: Vec<LayerEntry>,
    #[serde(default)]
    path: Vec<PathEntry>,
    window: Option<TomlDuration>,
    safety: Option<Safety>,
}

impl StackFile {
    fn into_stack(self) -> Stack {
        let layers = self
            .layer
            .into_iter()
            .enumerate()
            .map(|(i, entry)| {
                let name = entry
                    .name
                    .map_or_else(|| format!("layer {}", i + 1), |n| n.0);
                let mut layer = Layer::new(name, entry.backoff.0, entry.attempts.0);
                layer.timeout = entry.timeout.map(|t| t.0);
                layer
            })
            .collect();
        let paths = self
            .path
            .into_iter()
            .map(|p| HumanPath::new(p.name.0, p.delay.0))
            .collect();
        Stack {
            layers,
            paths,
            window: self.window.map_or(DEFAULT_WINDOW, |w| w.0),
            safety: self.safety.map_or(DEFAULT_SAFETY, |s| s.0),
            ..Stack::default()
        }
    }
}

/// 1-based line and column (counted in characters) of byte `offset` in `source`.
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// Parses TOML `source`; `file` is only used to label errors.
pub fn parse_stack(source: &str, file: &Path) -> Result<Stack, WindowError> {
    toml::from_str::<StackFile>(source)
        .map(StackFile::into_stack)
        .map_err(|e| WindowError::Config {
            file: file.to_path_buf(),
            position: e.span().map(|span| line_column(source, span.start)),
            message: e.message().trim().to_owned(),
        })
}

/// Reads and parses the TOML file at `file`.
pub fn load_stack(file: &Path) -> Result<Stack, WindowError> {
    let source = std::fs::read_to_string(file).map_err(|e| WindowError::ReadConfig {
        file: file.to_path_buf(),
        reason: e.to_string(),
    })?;
    parse_stack(&source, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_and_columns_from_one() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        assert_eq!(line_column(text, 10), (2, 4));
        assert_eq!(line_column(text, 999), (3, 1));
    }
}
