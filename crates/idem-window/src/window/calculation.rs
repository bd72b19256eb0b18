//! The calculation itself: attempts per intent, automatic delay, which paths
//! the window covers and how long the window ought to be.
//!
//! The automatic delay is built from the innermost layer outwards. A layer
//! with `a` attempts and backoff `b` waits `b` before each of its `a - 1`
//! retries, and every one of its `a` tries runs the whole inner stack again:
//!
//! ```text
//! D_0 = 0
//! D_i = b_i × (a_i − 1) + a_i × D_(i−1)
//! ```
//!
//! That is the seed's count, where a try that hears nothing costs no time.
//! Where timeouts are known they count too (see [`super::timing`]): every try
//! waits out its timeout, deadlines cut budgets short, and the figures are
//! those the simulator produces with the same stack, to the millisecond.
//!
//! What each figure means, every answer lost:
//! - the **automatic delay** runs from the first request to the last one the
//!   retries send: the latest a duplicate can reach the processor;
//! - the run **gives up** once the last try has waited out its timeout;
//! - a **human path** sends the intent again once, at its delay from the
//!   first request; a path taken from a scenario starts after the run before
//!   it gave up (give-up time + `after`);
//! - a path is **covered** when its duplicate reaches the processor while the
//!   key is still kept. The key is stored when the first charge completes,
//!   `processing` after the first request arrives, and kept for the window;
//!   a duplicate travels as long as the first request did, so the path is
//!   covered when `delay < window + processing`. At the very instant the
//!   window ends the key is already gone.

use std::time::Duration;

use super::magnitude::{Count, Span};
use super::stack::{AUTOMATIC_PATH, Layer, PathStart, Stack};

/// Whether a path is made of automatic retries or of a person's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    /// Every retry layer exhausting its attempts.
    Automatic,
    /// A person sending the intent again (replay, rerun, restore, ...).
    Human,
}

/// One way a duplicate of an intent can arrive, and whether the window
/// still remembers the original by then.
#[derive(Debug, Clone, PartialEq)]
pub struct PathReport {
    /// "automatic" or the human path's name.
    pub name: String,
    /// Automatic or human.
    pub kind: PathKind,
    /// Time from the first request to the last possible duplicate.
    pub delay: Span,
    /// True when the duplicate still finds the key (see the module docs).
    pub covered: bool,
    /// Where a human path was read, if it came from a file or a preset.
    pub provenance: Option<super::stack::Provenance>,
}

/// The result of evaluating a [`Stack`].
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The layers evaluated, innermost first.
    pub layers: Vec<Layer>,
    /// Tries of the side effect one intent can cause: the product of every
    /// layer's attempts.
    pub attempts: Count,
    /// Delay of the automatic path: from the first request to the last.
    pub automatic_delay: Span,
    /// When the automatic run gives up, its last try's timeout waited out.
    pub gives_up: Span,
    /// Requests the automatic run sends: `attempts`, unless a deadline cuts
    /// some of them short.
    pub sends: Count,
    /// Whether any layer has a timeout or a deadline, so that tries cost
    /// time; without, the figures are the seed's.
    pub timeouts_known: bool,
    /// How long after the first request arrives its key is stored.
    pub processing: Span,
    /// What the readers of configuration files chose or assumed.
    pub notes: Vec<String>,
    /// Who keeps the keys, when `--keys-kept` said.
    pub keys_kept_by: Option<String>,
    /// The automatic path first, then the human paths in input order.
    pub paths: Vec<PathReport>,
    /// The path with the longest delay (the earliest one on ties).
    pub longest: PathReport,
    /// The safety factor applied to the longest path.
    pub safety: f64,
    /// Longest path × safety factor.
    pub required_window: Span,
    /// The retention window being checked.
    pub window: Span,
}

impl Report {
    /// How many paths arrive after the window has expired.
    pub fn uncovered_count(&self) -> usize {
        self.paths.iter().filter(|p| !p.covered).count()
    }

    /// True when every path is covered and the window is at least the
    /// required window.
    pub fn window_is_enough(&self) -> bool {
        self.uncovered_count() == 0 && self.window >= self.required_window
    }

    /// The window as a `Duration` (it always fits, since it came from one).
    pub fn window_duration(&self) -> Option<Duration> {
        self.window.to_duration()
    }
}

impl Stack {
    /// Validates the stack and computes its [`Report`].
    pub fn report(&self) -> Result<Report, super::WindowError> {
        self.validate()?;
        Ok(compute_valid(self))
    }
}

/// Computes the report for `stack`; free-function form of [`Stack::report`].
pub fn compute(stack: &Stack) -> Result<Report, super::WindowError> {
    stack.report()
}

/// Computes the report of a stack that has already been validated.
pub fn compute_valid(stack: &Stack) -> Report {
    let attempts = stack.layers.iter().fold(Count::ONE, |product, layer| {
        product.times(layer.attempt_count())
    });
    let timing = super::timing::timing(stack);

    let window = Span::from_duration(stack.window);
    let keeps_until = window.plus(Span::from_duration(stack.processing));
    // Names come from flags and files: what is printed or encoded is cleaned here, once.
    let path = |name: &str, kind, delay: Span| PathReport {
        name: crate::text::sanitize_line(name),
        kind,
        delay,
        covered: delay < keeps_until,
        provenance: None,
    };
    let mut paths = vec![path(AUTOMATIC_PATH, PathKind::Automatic, timing.last_send)];
    for (human, delay) in stack.paths.iter().zip(human_delays(stack, timing.gives_up)) {
        let mut report = path(&human.name, PathKind::Human, delay);
        report.provenance = human.provenance.clone();
        paths.push(report);
    }

    // The first path is always there, so the fold needs no fallback value.
    let mut longest = paths[0].clone();
    for candidate in &paths[1..] {
        if candidate.delay > longest.delay {
            longest = candidate.clone();
        }
    }

    let layers = stack
        .layers
        .iter()
        .map(|l| Layer {
            name: crate::text::sanitize_line(&l.name),
            ..l.clone()
        })
        .collect();
    Report {
        layers,
        attempts,
        automatic_delay: timing.last_send,
        gives_up: timing.gives_up,
        sends: timing.sends,
        timeouts_known: stack
            .layers
            .iter()
            .any(|l| l.timeout.is_some() || l.deadline.is_some()),
        processing: Span::from_duration(stack.processing),
        notes: stack.notes.clone(),
        keys_kept_by: stack.keys_kept_by.clone(),
        required_window: longest.delay.scaled(stack.safety),
        longest,
        paths,
        safety: stack.safety,
        window,
    }
}

/// Each human path's delay from the first request. A path counted from a
/// give-up follows the run before it: the automatic run for the first such
/// path, then the rerun of the one before (which, in the worst case, heard
/// nothing either and spent its whole budget too).
pub fn human_delays(stack: &Stack, gives_up: Span) -> Vec<Span> {
    let mut previous_start = Span::ZERO;
    stack
        .paths
        .iter()
        .map(|p| match p.start {
            PathStart::FirstAttempt => Span::from_duration(p.delay),
            PathStart::AfterGiveUp => {
                let start = previous_start
                    .plus(gives_up)
                    .plus(Span::from_duration(p.delay));
                previous_start = start;
                start
            }
        })
        .collect()
}
