//! The input of the calculator: a stack of retrying layers, the human
//! recovery paths around it, the retention window and the safety factor.

use std::time::Duration;

use super::error::WindowError;
use super::report::{self, Report};

/// The name given to the path made of every automatic retry.
pub const AUTOMATIC_PATH: &str = "automatic";

/// The retention window used when none is given: 24 hours.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// The safety factor used when none is given.
pub const DEFAULT_SAFETY: f64 = 2.0;

/// One retrying layer: it makes `attempts` tries in total (the first call plus
/// `attempts - 1` retries), waiting `backoff` before each retry.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// What the layer is, e.g. "http client".
    pub name: String,
    /// Wait before each retry.
    pub backoff: Duration,
    /// Total tries including the first; at least 1.
    pub attempts: u64,
}

impl Layer {
    /// A layer with the given name, backoff and attempts.
    pub fn new(name: impl Into<String>, backoff: Duration, attempts: u64) -> Self {
        Self {
            name: name.into(),
            backoff,
            attempts,
        }
    }
}

/// A way a person can send the same intent again after the automatic retries
/// gave up, e.g. replaying a dead-letter queue 26 hours later.
#[derive(Debug, Clone, PartialEq)]
pub struct HumanPath {
    /// What the person does, e.g. "dead-letter replay".
    pub name: String,
    /// How long after the first attempt the duplicate can arrive.
    pub delay: Duration,
}

impl HumanPath {
    /// A human path with the given name and delay.
    pub fn new(name: impl Into<String>, delay: Duration) -> Self {
        Self {
            name: name.into(),
            delay,
        }
    }
}

/// Everything the calculator needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Stack {
    /// Retrying layers, innermost (closest to the side effect) first.
    pub layers: Vec<Layer>,
    /// Human recovery paths, in the order they should be reported.
    pub paths: Vec<HumanPath>,
    /// How long idempotency keys are kept.
    pub window: Duration,
    /// Multiplier applied to the longest path; finite and at least 1.
    pub safety: f64,
}

impl Default for Stack {
    /// No layers, no human paths, a 24 h window and a safety factor of 2.
    fn default() -> Self {
        Self {
            layers: Vec::new(),
            paths: Vec::new(),
            window: DEFAULT_WINDOW,
            safety: DEFAULT_SAFETY,
        }
    }
}

impl Stack {
    /// The stack shown by `idem window` without arguments: an HTTP client
    /// (2 s × 3) inside a calling service (1 min × 3) inside a job scheduler
    /// (1 h × 3), with a dead-letter replay after 26 h, an operator rerun
    /// after 72 h, a 24 h window and a safety factor of 2.
    pub fn worked_example() -> Self {
        Self {
            layers: vec![
                Layer::new("http client", Duration::from_secs(2), 3),
                Layer::new("calling service", Duration::from_secs(60), 3),
                Layer::new("job scheduler", Duration::from_secs(3600), 3),
            ],
            paths: vec![
                HumanPath::new("dead-letter replay", Duration::from_secs(26 * 3600)),
                HumanPath::new("operator rerun", Duration::from_secs(72 * 3600)),
            ],
            window: DEFAULT_WINDOW,
            safety: DEFAULT_SAFETY,
        }
    }

    /// Checks the rules: non-empty names, at least one attempt per layer, no
    /// human path called "automatic", a finite safety factor of at least 1.
    pub fn validate(&self) -> Result<(), WindowError> {
        for (i, layer) in self.layers.iter().enumerate() {
            let which = format!("layer {} ({:?})", i + 1, layer.name);
            check_name(&layer.name)
                .map_err(|p| WindowError::Stack(format!("layer {}: {p}", i + 1)))?;
            check_attempts(layer.attempts)
                .map_err(|p| WindowError::Stack(format!("{which}: {p}")))?;
        }
        for (i, path) in self.paths.iter().enumerate() {
            check_path_name(&path.name)
                .map_err(|p| WindowError::Stack(format!("human path {}: {p}", i + 1)))?;
        }
        check_safety(self.safety).map_err(WindowError::Stack)
    }

    /// Validates the stack and computes its [`Report`].
    pub fn report(&self) -> Result<Report, WindowError> {
        self.validate()?;
        Ok(report::compute_valid(self))
    }
}

/// A name must contain something other than spaces.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        Err("the name is empty".to_owned())
    } else {
        Ok(())
    }
}

/// Human paths follow the name rule and may not take the automatic path's name.
pub(crate) fn check_path_name(name: &str) -> Result<(), String> {
    check_name(name)?;
    if name.trim() == AUTOMATIC_PATH {
        Err(format!(
            "the name {AUTOMATIC_PATH:?} is reserved for the path of automatic retries"
        ))
    } else {
        Ok(())
    }
}

/// Every layer tries at least once.
pub(crate) fn check_attempts(attempts: u64) -> Result<(), String> {
    if attempts == 0 {
        Err("attempts must be at least 1 (1 means the layer does not retry)".to_owned())
    } else {
        Ok(())
    }
}

/// The safety factor is a finite number of at least 1.
pub(crate) fn check_safety(safety: f64) -> Result<(), String> {
    if safety.is_finite() && safety >= 1.0 {
        Ok(())
    } else {
        Err(format!(
            "the safety factor must be a number of at least 1, such as 2; got {safety}"
        ))
    }
}
