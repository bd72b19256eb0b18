//! The input of the calculator: a stack of retrying layers, the human
//! recovery paths around it, the retention window and the safety factor.

use std::time::Duration;

use super::error::WindowError;
use super::magnitude::Count;
use super::schedule::{Jitter, Schedule};

/// The name given to the path made of every automatic retry.
pub const AUTOMATIC_PATH: &str = "automatic";

/// The retention window used when none is given: 24 hours.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// The safety factor used when none is given.
pub const DEFAULT_SAFETY: f64 = 2.0;

/// How long the processor works on a request before its key is stored, when
/// nothing says otherwise: the simulator's default.
pub const DEFAULT_PROCESSING: Duration = Duration::from_millis(200);

/// Where a value of the stack was read: the file and the field, so a person
/// can check it against the configuration it came from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Provenance {
    /// The file as named on the command line, or "preset NAME".
    pub file: String,
    /// The part of the file the layer or path was built from, e.g.
    /// `spec.http[0].retries`.
    pub field: String,
    /// The line that part starts on, when known.
    pub line: Option<usize>,
    /// How each value was found: "attempts 3 = retries.attempts 2 + 1",
    /// "backoff 25 ms: Envoy's default (not written)".
    pub values: Vec<String>,
}

impl Provenance {
    /// A source with no per-value notes yet.
    pub fn new(file: impl Into<String>, field: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            field: field.into(),
            line: None,
            values: Vec::new(),
        }
    }

    /// Adds a note on how one value was found.
    pub fn note(&mut self, text: impl Into<String>) {
        self.values.push(text.into());
    }

    /// "FILE:LINE (FIELD)".
    pub fn place(&self) -> String {
        let file = match self.line {
            Some(line) => format!("{}:{line}", self.file),
            None => self.file.clone(),
        };
        if self.field.is_empty() {
            file
        } else {
            format!("{file} ({})", self.field)
        }
    }
}

/// One retrying layer: it makes `attempts` tries in total (the first call plus
/// `attempts - 1` retries), waiting as its [`Schedule`] says before each retry.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// What the layer is, e.g. "http client".
    pub name: String,
    /// Total tries including the first; at least 1. Ignored when `forever`.
    pub attempts: u64,
    /// The layer sets no limit on its attempts (Temporal's
    /// `maximumAttempts: 0`, Celery's `max_retries=None`): only a deadline
    /// ends it.
    pub forever: bool,
    /// The wait before each retry.
    pub schedule: Schedule,
    /// How the waits are drawn at random; the calculator takes the longest.
    pub jitter: Jitter,
    /// How long one try may last before the layer gives up on it. For the
    /// innermost layer, how long a request waits for its answer; for an outer
    /// layer, a deadline on one whole run of the layers beneath it. `None`
    /// when unknown: the try then costs no time (the seed's model).
    pub timeout: Option<Duration>,
    /// A deadline on the layer's whole budget, every try and wait included
    /// (Envoy's route timeout, Polly's total timeout, a Job's
    /// `activeDeadlineSeconds`).
    pub deadline: Option<Duration>,
    /// Where the layer was read, if it came from a file or a preset.
    pub provenance: Option<Provenance>,
    /// What a person should know about this layer: no bound, a layer nobody
    /// wrote down, a value the calculator had to assume.
    pub warnings: Vec<String>,
}

impl Layer {
    /// A layer with the given name, constant backoff and attempts.
    pub fn new(name: impl Into<String>, backoff: Duration, attempts: u64) -> Self {
        Self {
            name: name.into(),
            attempts,
            forever: false,
            schedule: Schedule::Constant(backoff),
            jitter: Jitter::None,
            timeout: None,
            deadline: None,
            provenance: None,
            warnings: Vec::new(),
        }
    }

    /// The same layer, each try lasting at most `timeout`.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The wait before the first retry.
    pub fn backoff(&self) -> Duration {
        self.schedule.first()
    }

    /// The waits the calculator counts: the schedule stretched to the
    /// longest its jitter can draw.
    pub fn worst_schedule(&self) -> Schedule {
        self.schedule.worst_with(self.jitter)
    }

    /// The attempts as a count: unbounded for a layer that never stops.
    pub fn attempt_count(&self) -> Count {
        if self.forever {
            Count::UNBOUNDED
        } else {
            Count::new(u128::from(self.attempts))
        }
    }
}

/// Where a human path's delay is counted from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PathStart {
    /// From the first attempt, as the seed measures "the delay before a
    /// duplicate can arrive".
    #[default]
    FirstAttempt,
    /// From the moment the run before it gave up, as a scenario's
    /// `[[human]] after` does: the first such path follows the automatic
    /// run, each later one follows the rerun before it (which, in the worst
    /// case, heard nothing either).
    AfterGiveUp,
}

/// A way a person can send the same intent again after the automatic retries
/// gave up, e.g. replaying a dead-letter queue 26 hours later.
#[derive(Debug, Clone, PartialEq)]
pub struct HumanPath {
    /// What the person does, e.g. "dead-letter replay".
    pub name: String,
    /// How long until the person sends the intent again, counted as `start`
    /// says.
    pub delay: Duration,
    /// What `delay` is counted from.
    pub start: PathStart,
    /// Where the path was read, if it came from a file or a preset.
    pub provenance: Option<Provenance>,
}

impl HumanPath {
    /// A human path with the given name and delay after the first attempt.
    pub fn new(name: impl Into<String>, delay: Duration) -> Self {
        Self {
            name: name.into(),
            delay,
            start: PathStart::FirstAttempt,
            provenance: None,
        }
    }

    /// A human path that starts `after` the run before it gave up.
    pub fn after_give_up(name: impl Into<String>, after: Duration) -> Self {
        Self {
            start: PathStart::AfterGiveUp,
            ..Self::new(name, after)
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
    /// How long the processor works on the first request before its key is
    /// stored; the window counts from then. The simulator's default of
    /// 200 ms for a stack typed by hand, a scenario's own processing time for
    /// a stack taken from one.
    pub processing: Duration,
    /// Who keeps the keys for `window`, when `--keys-kept` set it ("Stripe",
    /// "the provider").
    pub keys_kept_by: Option<String>,
    /// What the readers of configuration files chose or assumed.
    pub notes: Vec<String>,
}

impl Default for Stack {
    /// No layers, no human paths, a 24 h window, a safety factor of 2 and
    /// the simulator's default processing time.
    fn default() -> Self {
        Self {
            layers: Vec::new(),
            paths: Vec::new(),
            window: DEFAULT_WINDOW,
            safety: DEFAULT_SAFETY,
            processing: DEFAULT_PROCESSING,
            keys_kept_by: None,
            notes: Vec::new(),
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
            ..Self::default()
        }
    }

    /// Checks the rules: non-empty names, at least one attempt per layer, no
    /// human path called "automatic", a finite safety factor of at least 1.
    pub fn validate(&self) -> Result<(), WindowError> {
        for (i, layer) in self.layers.iter().enumerate() {
            let which = format!("layer {} ({:?})", i + 1, layer.name);
            check_name(&layer.name)
                .map_err(|p| WindowError::Stack(format!("layer {}: {p}", i + 1)))?;
            if !layer.forever {
                check_attempts(layer.attempts)
                    .map_err(|p| WindowError::Stack(format!("{which}: {p}")))?;
            }
            for (what, value) in [("timeout", layer.timeout), ("deadline", layer.deadline)] {
                if value.is_some_and(|d| d.is_zero()) {
                    return Err(WindowError::Stack(format!(
                        "{which}: a {what} must be longer than zero"
                    )));
                }
            }
            if let Schedule::Exponential { multiplier, .. } = layer.schedule
                && !(multiplier.is_finite() && multiplier >= 1.0)
            {
                return Err(WindowError::Stack(format!(
                    "{which}: the backoff multiplier must be a number of at least 1; got {multiplier}"
                )));
            }
        }
        for (i, path) in self.paths.iter().enumerate() {
            check_path_name(&path.name)
                .map_err(|p| WindowError::Stack(format!("human path {}: {p}", i + 1)))?;
        }
        check_safety(self.safety).map_err(WindowError::Stack)
    }
}

/// A name must contain something other than spaces.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        Err("the name is empty".to_owned())
    } else {
        Ok(())
    }
}

/// Human paths follow the name rule and may not take the automatic path's name.
pub fn check_path_name(name: &str) -> Result<(), String> {
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
pub fn check_attempts(attempts: u64) -> Result<(), String> {
    if attempts == 0 {
        Err("attempts must be at least 1 (1 means the layer does not retry)".to_owned())
    } else {
        Ok(())
    }
}

/// The safety factor is a finite number of at least 1.
pub fn check_safety(safety: f64) -> Result<(), String> {
    if safety.is_finite() && safety >= 1.0 {
        Ok(())
    } else {
        Err(format!(
            "the safety factor must be a number of at least 1, such as 2; got {safety}"
        ))
    }
}
