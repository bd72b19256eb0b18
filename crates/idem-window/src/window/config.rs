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
//! backoff = "2s"        # the first wait (or waits = ["1m", "2m"], the last repeating)
//! multiplier = 2        # optional: each wait × 2 ...
//! cap = "20s"           # ... never more than this
//! jitter = "full"       # optional: none, full, equal or decorrelated (counted at its longest)
//! attempts = 3          # or "unbounded" (a layer that never stops on its own)
//! timeout = "30s"       # optional: how long one try may last
//! deadline = "2m"       # optional: all of this layer's tries and waits together
//!
//! [[path]]              # human recovery paths; repeat per path
//! name = "dead-letter replay"
//! delay = "26h"         # after the first attempt (or after = "24h", after the retries gave up)
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
use super::schedule::{Jitter, Schedule};
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
                "a timeout or deadline must be longer than zero, such as \"30s\"",
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

/// An attempts count of at least 1, or `"unbounded"` (`None`) for a layer
/// that never stops on its own.
struct Attempts(Option<u64>);

impl<'de> Deserialize<'de> for Attempts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(AttemptsVisitor)
    }
}

struct AttemptsVisitor;

impl serde::de::Visitor<'_> for AttemptsVisitor {
    type Value = Attempts;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a whole number of at least 1, or \"unbounded\"")
    }

    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Attempts, E> {
        match u64::try_from(value) {
            Ok(n) if n >= 1 => Ok(Attempts(Some(n))),
            _ => Err(E::custom(format!(
                "attempts must be a whole number of at least 1 (1 means no retry), or \
                 \"unbounded\"; got {value}"
            ))),
        }
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Attempts, E> {
        self.visit_i64(i64::try_from(value).unwrap_or(i64::MAX))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Attempts, E> {
        if text.trim() == "unbounded" {
            Ok(Attempts(None))
        } else {
            Err(E::custom(format!(
                "attempts must be a whole number such as 3, or \"unbounded\"; got {text:?}"
            )))
        }
    }
}

/// A jitter kind: "none", "full", "equal" or "decorrelated".
struct JitterName(Jitter);

impl<'de> Deserialize<'de> for JitterName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        match text.trim() {
            "none" => Ok(Self(Jitter::None)),
            "full" => Ok(Self(Jitter::Full)),
            "equal" => Ok(Self(Jitter::Equal)),
            "decorrelated" => Ok(Self(Jitter::Decorrelated)),
            other => Err(D::Error::custom(format!(
                "jitter must be none, full, equal or decorrelated; got {other:?}"
            ))),
        }
    }
}

/// A backoff multiplier of at least 1.
struct Multiplier(f64);

impl<'de> Deserialize<'de> for Multiplier {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(deserializer)?;
        if value.is_finite() && value >= 1.0 {
            Ok(Self(value))
        } else {
            Err(D::Error::custom(format!(
                "the multiplier must be a number of at least 1, such as 2; got {value}"
            )))
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
    backoff: Option<TomlDuration>,
    attempts: Attempts,
    timeout: Option<Positive>,
    deadline: Option<Positive>,
    multiplier: Option<Multiplier>,
    cap: Option<TomlDuration>,
    waits: Option<Vec<TomlDuration>>,
    jitter: Option<JitterName>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PathEntry {
    name: PathName,
    delay: Option<TomlDuration>,
    after: Option<TomlDuration>,
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
    fn into_stack(self, file: &Path) -> Result<Stack, WindowError> {
        let error = |message: String| WindowError::Config {
            file: file.to_path_buf(),
            position: None,
            message,
        };
        let mut layers = Vec::new();
        for (i, entry) in self.layer.into_iter().enumerate() {
            let name = entry
                .name
                .map_or_else(|| format!("layer {}", i + 1), |n| n.0);
            let mut layer = Layer::new(name.clone(), Duration::ZERO, entry.attempts.0.unwrap_or(1));
            layer.forever = entry.attempts.0.is_none();
            if layer.forever {
                layer.warnings.push(
                    "no bound: attempts = \"unbounded\" retries until a deadline stops it"
                        .to_owned(),
                );
            }
            layer.schedule = match (entry.waits, entry.backoff) {
                (Some(_), Some(_)) => {
                    return Err(error(format!(
                        "layer {} ({name}): give backoff or waits, not both",
                        i + 1
                    )));
                }
                (Some(waits), None) if waits.is_empty() => {
                    return Err(error(format!(
                        "layer {} ({name}): waits needs at least one duration, such as [\"1m\", \"2m\"]",
                        i + 1
                    )));
                }
                (Some(waits), None) => Schedule::List(waits.into_iter().map(|w| w.0).collect()),
                (None, Some(backoff)) => match entry.multiplier {
                    Some(m) if m.0 > 1.0 => Schedule::Exponential {
                        initial: backoff.0,
                        multiplier: m.0,
                        cap: entry.cap.map(|c| c.0),
                    },
                    _ => Schedule::Constant(entry.cap.map_or(backoff.0, |c| c.0.min(backoff.0))),
                },
                (None, None) => {
                    return Err(error(format!(
                        "layer {} ({name}): missing backoff (such as \"2s\") or waits (such as [\"1m\", \"2m\"])",
                        i + 1
                    )));
                }
            };
            layer.timeout = entry.timeout.map(|t| t.0);
            layer.deadline = entry.deadline.map(|t| t.0);
            layer.jitter = entry.jitter.map_or(Jitter::None, |j| j.0);
            layers.push(layer);
        }
        let mut paths = Vec::new();
        for p in self.path {
            let name = p.name.0;
            paths.push(match (p.delay, p.after) {
                (Some(delay), None) => HumanPath::new(name, delay.0),
                (None, Some(after)) => HumanPath::after_give_up(name, after.0),
                _ => {
                    return Err(error(format!(
                        "path {name:?}: give delay (after the first attempt) or after (after \
                         the retries gave up), one of the two"
                    )));
                }
            });
        }
        Ok(Stack {
            layers,
            paths,
            window: self.window.map_or(DEFAULT_WINDOW, |w| w.0),
            safety: self.safety.map_or(DEFAULT_SAFETY, |s| s.0),
            ..Stack::default()
        })
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
        .map_err(|e| WindowError::Config {
            file: file.to_path_buf(),
            position: e.span().map(|span| line_column(source, span.start)),
            message: crate::text::sanitize_line(e.message().trim()),
        })?
        .into_stack(file)
}

/// Reads and parses the TOML file at `file`.
pub fn load_stack(file: &Path) -> Result<Stack, WindowError> {
    let source = super::sources::read_bounded(file)?;
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
