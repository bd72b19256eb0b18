//! The JSON shape of a report (`idem window --json`).
//!
//! One object:
//!
//! ```json
//! {
//!   "attempts": 27,
//!   "automatic_delay_s": 7596,
//!   "gives_up_s": 7596,
//!   "requests_sent": 27,
//!   "timeouts_known": false,
//!   "processing_s": 0.2,
//!   "layers": [{"name": "http client", "backoff_s": 2, "attempts": 3,
//!               "schedule": {"kind": "constant", "text": "2 s"},
//!               "jitter": {"kind": "none", "worst_case": "no jitter"},
//!               "timeout_s": null, "deadline_s": null,
//!               "source": null, "warnings": []}, ...],
//!   "paths": [{"name": "automatic", "kind": "automatic", "delay_s": 7596, "covered": true,
//!              "source": null}, ...],
//!   "longest_path": "operator rerun",
//!   "longest_path_s": 259200,
//!   "safety_factor": 2.0,
//!   "required_window_s": 518400,
//!   "window_s": 86400,
//!   "uncovered_paths": 2,
//!   "window_is_enough": false,
//!   "keys_kept_by": null,
//!   "keys_sentence": null,
//!   "notes": []
//! }
//!
//! A layer read from a file has `"source": {"file", "field", "line",
//! "values"}`: where it was read and how each value was found.
//! ```
//!
//! `automatic_delay_s` runs from the first request to the last one the
//! retries send; `gives_up_s` to the moment the run gives up, its last try's
//! timeout waited out (the same without timeouts). `requests_sent` is below
//! `attempts` when a deadline cuts some short.
//!
//! Number rules:
//! - seconds (`*_s`) are integers when the span is a whole number of seconds
//!   that fits in a `u64`, floats otherwise; a span beyond the range of `f64`
//!   (about 10^308 s) is written as a string such as `"1.0e400"`;
//! - `attempts` is an integer while it fits in a `u64`; above that it is a
//!   string: every digit while it fits in a `u128`, scientific notation
//!   (`"1.0e120"`) beyond.

use serde::{Serialize, Serializer};

use crate::window::Provenance;
use crate::window::scientific;
use crate::window::{Count, Span};
use crate::window::{PathKind, Report};

impl Serialize for Count {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.is_unbounded() {
            serializer.serialize_str("unbounded")
        } else if let Some(small) = self.as_u64() {
            serializer.serialize_u64(small)
        } else if let Some(exact) = self.exact() {
            serializer.serialize_str(&exact.to_string())
        } else {
            serializer.serialize_str(&scientific(self.log10()))
        }
    }
}

impl Serialize for Span {
    /// Seconds, following the number rules of this module.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.is_unbounded() {
            return serializer.serialize_str("unbounded");
        }
        if let Some(whole) = self.whole_seconds() {
            return serializer.serialize_u64(whole);
        }
        let secs = self.as_secs_f64();
        if secs.is_finite() {
            serializer.serialize_f64(secs)
        } else {
            serializer.serialize_str(&scientific(self.log10_nanos() - 9.0))
        }
    }
}

impl Serialize for PathKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(match self {
            PathKind::Automatic => "automatic",
            PathKind::Human => "human",
        })
    }
}

#[derive(Serialize)]
struct SourceJson<'a> {
    file: &'a str,
    field: &'a str,
    line: Option<usize>,
    values: &'a [String],
}

impl<'a> SourceJson<'a> {
    fn of(source: Option<&'a Provenance>) -> Option<Self> {
        source.map(|s| SourceJson {
            file: &s.file,
            field: &s.field,
            line: s.line,
            values: &s.values,
        })
    }
}

#[derive(Serialize)]
struct ScheduleJson {
    kind: &'static str,
    text: String,
}

#[derive(Serialize)]
struct JitterJson {
    kind: &'static str,
    worst_case: String,
}

#[derive(Serialize)]
struct LayerJson<'a> {
    name: &'a str,
    backoff_s: Span,
    /// A whole number, or "unbounded" for a layer without a limit.
    attempts: Count,
    schedule: ScheduleJson,
    jitter: JitterJson,
    timeout_s: Option<Span>,
    deadline_s: Option<Span>,
    source: Option<SourceJson<'a>>,
    warnings: &'a [String],
}

#[derive(Serialize)]
struct PathJson<'a> {
    name: &'a str,
    kind: PathKind,
    delay_s: Span,
    covered: bool,
    source: Option<SourceJson<'a>>,
}

#[derive(Serialize)]
struct ReportJson<'a> {
    attempts: Count,
    automatic_delay_s: Span,
    gives_up_s: Span,
    requests_sent: Count,
    timeouts_known: bool,
    processing_s: Span,
    layers: Vec<LayerJson<'a>>,
    paths: Vec<PathJson<'a>>,
    longest_path: &'a str,
    longest_path_s: Span,
    safety_factor: f64,
    required_window_s: Span,
    window_s: Span,
    uncovered_paths: usize,
    window_is_enough: bool,
    keys_kept_by: Option<&'a str>,
    keys_sentence: Option<String>,
    notes: &'a [String],
}

impl Serialize for Report {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let layers = self
            .layers
            .iter()
            .map(|l| LayerJson {
                name: &l.name,
                backoff_s: Span::from_duration(l.backoff()),
                attempts: l.attempt_count(),
                schedule: ScheduleJson {
                    kind: l.schedule.kind(),
                    text: l.schedule.describe(),
                },
                jitter: JitterJson {
                    kind: l.jitter.id(),
                    worst_case: l.jitter.worst_case(),
                },
                timeout_s: l.timeout.map(Span::from_duration),
                deadline_s: l.deadline.map(Span::from_duration),
                source: SourceJson::of(l.provenance.as_ref()),
                warnings: &l.warnings,
            })
            .collect();
        let paths = self
            .paths
            .iter()
            .map(|p| PathJson {
                name: &p.name,
                kind: p.kind,
                delay_s: p.delay,
                covered: p.covered,
                source: SourceJson::of(p.provenance.as_ref()),
            })
            .collect();
        ReportJson {
            attempts: self.attempts,
            automatic_delay_s: self.automatic_delay,
            gives_up_s: self.gives_up,
            requests_sent: self.sends,
            timeouts_known: self.timeouts_known,
            processing_s: self.processing,
            layers,
            paths,
            longest_path: &self.longest.name,
            longest_path_s: self.longest.delay,
            safety_factor: self.safety,
            required_window_s: self.required_window,
            window_s: self.window,
            uncovered_paths: self.uncovered_count(),
            window_is_enough: self.window_is_enough(),
            keys_kept_by: self.keys_kept_by.as_deref(),
            keys_sentence: self.keys_sentence(),
            notes: &self.notes,
        }
        .serialize(serializer)
    }
}

/// The report as one line of JSON.
pub fn to_json(report: &Report) -> Result<String, crate::window::WindowError> {
    serde_json::to_string(report).map_err(|e| crate::window::WindowError::Json(e.to_string()))
}
