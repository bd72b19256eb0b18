//! Jaeger's JSON traces: what its query service answers on `/api/traces` and its UI saves
//! ("Download JSON"): `{"data": [{"traceID", "spans": [...], "processes": {...}}]}`, each
//! span with microsecond times, tags, logs and references to its parent.

use crate::import::error::ImportError;
use crate::import::model::Exchange;
use crate::import::sink::Sink;
use crate::import::tags::{self, lenient_u64, scalar_text};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    data: Vec<Trace>,
}

#[derive(Deserialize)]
struct Trace {
    #[serde(default)]
    spans: Vec<Span>,
    #[serde(default)]
    processes: BTreeMap<String, Process>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Process {
    #[serde(default)]
    service_name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Span {
    #[serde(default, rename = "traceID")]
    trace_id: String,
    #[serde(default, rename = "spanID")]
    span_id: String,
    #[serde(default)]
    operation_name: String,
    #[serde(default)]
    references: Vec<Reference>,
    #[serde(default, deserialize_with = "lenient_u64")]
    start_time: Option<u64>,
    #[serde(default, deserialize_with = "lenient_u64")]
    duration: Option<u64>,
    #[serde(default)]
    tags: Vec<Tag>,
    #[serde(default)]
    logs: Vec<Log>,
    #[serde(default, rename = "processID")]
    process_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reference {
    #[serde(default)]
    ref_type: String,
    #[serde(default, rename = "spanID")]
    span_id: String,
}

#[derive(Deserialize)]
struct Tag {
    #[serde(default)]
    key: String,
    #[serde(default, deserialize_with = "scalar_text")]
    value: Option<String>,
}

#[derive(Deserialize)]
struct Log {
    #[serde(default)]
    fields: Vec<Tag>,
}

pub const EXPECTED: &str = "a Jaeger trace file ({\"data\": [{\"traceID\", \"spans\": [...]}]})";

pub fn read(
    path: &Path,
    shown: &str,
    sink: &mut Sink,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    crate::import::read::each_value::<crate::import::read::Owned<File>>(
        path,
        shown,
        EXPECTED,
        notes,
        |file, line| {
            for trace in file.data {
                for span in trace.spans {
                    let service = trace
                        .processes
                        .get(&span.process_id)
                        .map(|p| p.service_name.as_str());
                    let (x, name) = exchange(shown, line, service, span);
                    sink.push(x, &name);
                }
            }
            Ok(())
        },
    )
}

fn exchange(shown: &str, line: usize, service: Option<&str>, span: Span) -> (Exchange, String) {
    let start = span.start_time.unwrap_or(0) as i64;
    let mut x = Exchange {
        trace_id: Some(span.trace_id.clone()).filter(|t| !t.is_empty()),
        span_id: Some(span.span_id.clone()).filter(|t| !t.is_empty()),
        parent_id: span
            .references
            .iter()
            .find(|r| r.ref_type.eq_ignore_ascii_case("CHILD_OF"))
            .or(span.references.first())
            .map(|r| r.span_id.clone()),
        start_us: start,
        end_us: span.duration.map(|d| start + d as i64),
        ..Exchange::default()
    };
    for t in &span.tags {
        if let Some(v) = &t.value {
            tags::take(&mut x, &t.key, v);
        }
    }
    for log in &span.logs {
        let event = log
            .fields
            .iter()
            .find(|f| f.key == "event")
            .and_then(|f| f.value.clone());
        for f in &log.fields {
            if let Some(v) = &f.value {
                let error_field = f.key == "error.object" || f.key == "exception.message";
                if error_field || (f.key == "message" && event.as_deref() == Some("error")) {
                    x.error = Some(v.clone());
                }
                if f.key.ends_with("charge.id") {
                    x.charge = Some(v.clone());
                }
            }
        }
        if let Some(e) = &event
            && e.to_ascii_lowercase().contains("charge")
            && x.charge.is_none()
        {
            x.charge = Some(format!("{e} log"));
        }
    }
    let at = service.map_or(String::new(), |s| {
        format!(" of {}", idem_core::text::sanitize_line(s))
    });
    x.origin = format!(
        "{shown}:{line} span {}{at} (trace {})",
        span.span_id.get(..8).unwrap_or(&span.span_id),
        span.trace_id.get(..8).unwrap_or(&span.trace_id)
    );
    (x, span.operation_name)
}
