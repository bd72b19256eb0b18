//! The window calculator: given a stack of retrying layers and the
//! human ways of sending an intent again, how long must idempotency keys be
//! kept so that every duplicate still finds its original?
//!
//! - [`Stack`] is the input, [`Stack::report`] computes a [`Report`];
//! - [`Count`] and [`Span`] never overflow, however large the stack;
//! - [`human_span`] and friends write spans as "2.1 h" or "6 days";
//! - [`attempts_matrix`] is the data behind the attempts-matrix screen;
//! - the `idem window` command (in the command-line layer) is built on it.
//!
//! Nothing here depends on a terminal library.

pub mod config;
mod error;
mod format;
pub mod json;

mod calculation;
mod magnitude;
mod matrix;
pub mod parse;
pub mod scenario;
mod schedule;
pub mod sources;
mod stack;
mod text;
mod timing;

pub use calculation::{PathKind, PathReport, Report, compute};
pub use config::{line_column, load_stack, parse_stack};
pub use error::WindowError;
pub use format::{group_digits, human_span, scientific, seconds_text, two_units};
pub use magnitude::{Count, Span};
pub use matrix::{
    AMBER_FROM, AttemptsMatrix, Level, MATRIX_ATTEMPTS, MATRIX_LAYERS, MatrixCell, RED_FROM,
    attempts_matrix, attempts_matrix_for,
};
pub use schedule::{Jitter, Schedule};
pub use stack::{
    AUTOMATIC_PATH, DEFAULT_PROCESSING, DEFAULT_SAFETY, DEFAULT_WINDOW, HumanPath, Layer,
    PathStart, Provenance, Stack,
};
pub use timing::{Timing, timing};
