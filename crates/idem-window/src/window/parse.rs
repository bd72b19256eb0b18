//! Reading the small text forms used by flags and config files:
//! durations ("26h"), layers ("http client=2s:3"), human paths
//! ("dead-letter replay=26h") and the safety factor ("2").

use std::time::Duration;

use super::error::WindowError;
use super::stack::{HumanPath, check_attempts, check_name, check_path_name, check_safety};

/// How a layer is written on the command line.
pub const LAYER_FORM: &str = "expected BACKOFF:ATTEMPTS such as 2s:3, or BACKOFF:ATTEMPTS:TIMEOUT \
     such as 2s:3:30s, optionally named as in \"http client=2s:3:30s\"";

/// How a human path is written on the command line.
pub const PATH_FORM: &str = "expected NAME=DURATION such as \"dead-letter replay=26h\"";

/// A layer read from a flag; unnamed layers get their name once their final
/// position in the stack is known.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerSpec {
    pub name: Option<String>,
    pub backoff: Duration,
    pub attempts: u64,
    /// How long one try may last, when given.
    pub timeout: Option<Duration>,
}

/// Reads a duration such as "2s", "90m", "26h", "3days" or "7d".
pub fn duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    crate::units::parse_human_duration(text).map_err(|e| match e {
        crate::units::DurationError::TooLong => {
            format!("{text:?} is longer than any duration can be; expected one such as 26h or 7d")
        }
        crate::units::DurationError::Unreadable(e) => format!(
            "cannot read {text:?} as a duration ({e}); expected a number and a unit \
             such as 2s, 90m, 26h or 7d"
        ),
    })
}

/// Reads an attempts count: a whole number of at least 1.
pub fn attempts(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let value: u64 = text.parse().map_err(|_| {
        format!("attempts {text:?} is not a whole number; expected a count of at least 1 such as 3")
    })?;
    check_attempts(value)?;
    Ok(value)
}

fn flag_error(flag: &'static str, value: &str, problem: impl Into<String>) -> WindowError {
    WindowError::Flag {
        flag,
        value: value.to_owned(),
        problem: problem.into(),
    }
}

/// Reads `--layer [NAME=]BACKOFF:ATTEMPTS[:TIMEOUT]`.
pub fn layer(value: &str) -> Result<LayerSpec, WindowError> {
    let err = |problem: String| flag_error("--layer", value, problem);
    let (name, rest) = match value.split_once('=') {
        Some((name, rest)) => {
            check_name(name).map_err(|p| err(format!("{p}; {LAYER_FORM}")))?;
            (Some(crate::text::sanitize_line(name.trim())), rest)
        }
        None => (None, value),
    };
    let parts: Vec<&str> = rest.split(':').collect();
    let (backoff, count, timeout) = match parts.as_slice() {
        [backoff, count] => (backoff, count, None),
        [backoff, count, timeout] => (backoff, count, Some(timeout)),
        _ => return Err(err(LAYER_FORM.to_owned())),
    };
    let backoff = duration(backoff).map_err(|p| err(format!("backoff: {p}")))?;
    let attempts = attempts(count).map_err(err)?;
    let timeout = timeout
        .map(|t| positive(t, "timeout"))
        .transpose()
        .map_err(err)?;
    Ok(LayerSpec {
        name,
        backoff,
        attempts,
        timeout,
    })
}

/// Reads a duration that must be longer than zero (a timeout, a deadline).
pub fn positive(text: &str, what: &str) -> Result<Duration, String> {
    let value = duration(text).map_err(|p| format!("{what}: {p}"))?;
    if value.is_zero() {
        return Err(format!(
            "{what}: a {what} must be longer than zero, such as 30s"
        ));
    }
    Ok(value)
}

/// Reads `--path NAME=DURATION`.
pub fn path(value: &str) -> Result<HumanPath, WindowError> {
    let err = |problem: String| flag_error("--path", value, problem);
    let Some((name, delay)) = value.split_once('=') else {
        return Err(err(PATH_FORM.to_owned()));
    };
    check_path_name(name).map_err(|p| err(format!("{p}; {PATH_FORM}")))?;
    let delay = duration(delay).map_err(err)?;
    Ok(HumanPath::new(
        crate::text::sanitize_line(name.trim()),
        delay,
    ))
}

/// Reads `--window DURATION`.
pub fn window(value: &str) -> Result<Duration, WindowError> {
    duration(value).map_err(|p| flag_error("--window", value, p))
}

/// Reads `--safety FACTOR`.
pub fn safety(value: &str) -> Result<f64, WindowError> {
    let err = |problem: String| flag_error("--safety", value, problem);
    let factor: f64 = value
        .trim()
        .parse()
        .map_err(|_| err("expected a number of at least 1, such as 2 or 1.5".to_owned()))?;
    check_safety(factor).map_err(|_| {
        err("the safety factor must be at least 1 (1 means no margin at all); try 2".to_owned())
    })?;
    Ok(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_named_and_unnamed_layers() {
        let named = layer("http client=2s:3").expect("valid layer");
        assert_eq!(named.name.as_deref(), Some("http client"));
        assert_eq!(named.backoff, Duration::from_secs(2));
        assert_eq!(named.attempts, 3);
        let unnamed = layer("1h:4").expect("valid layer");
        assert_eq!(unnamed.name, None);
        assert_eq!(unnamed.attempts, 4);
        assert_eq!(unnamed.timeout, None);
    }

    #[test]
    fn a_third_part_is_the_timeout() {
        let timed = layer("http=2s:3:30s").expect("valid layer");
        assert_eq!(timed.timeout, Some(Duration::from_secs(30)));
        assert!(layer("2s:3:0s").is_err());
        assert!(layer("2s:3:30s:1").is_err());
    }

    #[test]
    fn humantime_accepts_day_suffix() {
        assert_eq!(duration("6d"), Ok(Duration::from_secs(6 * 86_400)));
        assert_eq!(duration("3days"), Ok(Duration::from_secs(3 * 86_400)));
    }
}
