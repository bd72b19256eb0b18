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
//! (Time spent in the calls themselves is ignored; only waiting counts.)

use std::time::Duration;

use super::magnitude::{Count, Span};
use super::stack::{AUTOMATIC_PATH, Layer, Stack};

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
    /// Time from the first attempt to the last possible duplicate.
    pub delay: Span,
    /// True when `delay <= window`.
    pub covered: bool,
}

/// The result of evaluating a [`Stack`].
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The layers evaluated, innermost first.
    pub layers: Vec<Layer>,
    /// Tries of the side effect one intent can cause: the product of every
    /// layer's attempts.
    pub attempts: Count,
    /// Delay of the automatic path.
    pub automatic_delay: Span,
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

    /// True when the window is at least the required window.
    pub fn window_is_enough(&self) -> bool {
        self.window >= self.required_window
    }

    /// The window as a `Duration` (it always fits, since it came from one).
    pub fn window_duration(&self) -> Option<Duration> {
        self.window.to_duration()
    }
}

/// Computes the report for `stack`; free-function form of [`Stack::report`].
pub fn compute(stack: &Stack) -> Result<Report, super::WindowError> {
    stack.report()
}

/// Computes the report of a stack that has already been validated.
pub(crate) fn compute_valid(stack: &Stack) -> Report {
    let mut attempts = Count::ONE;
    let mut automatic_delay = Span::ZERO;
    for layer in &stack.layers {
        let tries = Count::new(u128::from(layer.attempts));
        let retries = Count::new(u128::from(layer.attempts.saturating_sub(1)));
        let waiting = Span::from_duration(layer.backoff).times(retries);
        automatic_delay = waiting.plus(automatic_delay.times(tries));
        attempts = attempts.times(tries);
    }

    let window = Span::from_duration(stack.window);
    let path = |name: &str, kind, delay: Span| PathReport {
        name: name.to_owned(),
        kind,
        delay,
        covered: delay <= window,
    };
    let mut paths = vec![path(AUTOMATIC_PATH, PathKind::Automatic, automatic_delay)];
    for human in &stack.paths {
        paths.push(path(
            &human.name,
            PathKind::Human,
            Span::from_duration(human.delay),
        ));
    }

    // The first path is always there, so the fold needs no fallback value.
    let mut longest = paths[0].clone();
    for candidate in &paths[1..] {
        if candidate.delay > longest.delay {
            longest = candidate.clone();
        }
    }

    Report {
        layers: stack.layers.clone(),
        attempts,
        automatic_delay,
        required_window: longest.delay.scaled(stack.safety),
        longest,
        paths,
        safety: stack.safety,
        window,
    }
}
