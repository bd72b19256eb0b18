//! `idem import`: an incident's records read into a scenario that replays it.
//!
//! The records are the ones a team already has: OpenTelemetry traces exported as OTLP JSON,
//! Jaeger or Zipkin traces, a HAR file from a browser or a proxy, a JSON access log. Each
//! source is read into the same [`model::Exchange`]s (one HTTP request as one side saw it);
//! [`incident`] pairs the two sides, groups the attempts by their idempotency key and works
//! out what happened to each (an answer lost, a request lost, a slow service); [`write`]
//! turns that into a scenario file whose every line says where it came from, with
//! `[[expect]]` blocks stating what really happened; [`which`] simulates it under each
//! design and says which reproduce it.
//!
//! Nothing here opens a socket or a terminal. Files are read bounded and streamed: a
//! JSON-lines export a line at a time, any other JSON as a stream of values.

pub mod accesslog;
pub mod error;
pub mod har;
pub mod incident;
pub mod jaeger;
pub mod ledger;
pub mod model;
pub mod otlp;
pub mod read;
pub mod sink;
pub mod tags;
pub mod which;
pub mod write;
pub mod zipkin;

pub use error::ImportError;
pub use incident::Incident;

use std::path::{Path, PathBuf};

pub use model::Format;

/// What the command asks for.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Keep only this order (its key, or its order id).
    pub order: Option<String>,
    /// A ledger export: the charges that really happened.
    pub ledger: Option<PathBuf>,
    /// Which access-log field plays which role.
    pub mapping: accesslog::Mapping,
}

/// Says which format a file is in, from its first bytes.
pub fn detect(path: &Path, shown: &str) -> Result<Format, ImportError> {
    let head = read::head(path, shown, 1 << 16)?;
    let text = String::from_utf8_lossy(&head);
    let first = text.trim_start().chars().next();
    let has = |s: &str| text.contains(s);
    match first {
        None => Err(ImportError::refused(
            shown,
            format!("is empty; {}", LOOKED_FOR),
        )),
        Some('[') => {
            if has("\"traceId\"") || has("\"localEndpoint\"") {
                Ok(Format::Zipkin)
            } else {
                Err(ImportError::refused(
                    shown,
                    format!(
                        "is a JSON list, but not of Zipkin v2 spans (no \"traceId\" in its first 64 KiB); {LOOKED_FOR}"
                    ),
                ))
            }
        }
        Some('{') => {
            if has("\"resourceSpans\"") || has("\"instrumentationLibrarySpans\"") {
                Ok(Format::Otlp)
            } else if has("\"log\"") && has("\"entries\"") {
                Ok(Format::Har)
            } else if has("\"traceID\"") && has("\"spans\"") {
                Ok(Format::Jaeger)
            } else if has("\"resourceLogs\"") || has("\"resourceMetrics\"") {
                Err(ImportError::refused(
                    shown,
                    format!("is an OTLP export of logs or metrics, not of traces; {LOOKED_FOR}"),
                ))
            } else {
                Ok(Format::AccessLog)
            }
        }
        Some(_) => Err(ImportError::refused(
            shown,
            format!("is not JSON (it does not start with {{ or [); {LOOKED_FOR}"),
        )),
    }
}

/// What a refusal says was looked for.
pub const LOOKED_FOR: &str = "idem import reads OTLP JSON traces ({\"resourceSpans\": …}), Jaeger JSON ({\"data\": [{\"traceID\": …}]}), Zipkin v2 JSON ([{\"traceId\": …}]), HAR 1.2 ({\"log\": {\"entries\": …}}) and JSON-lines access logs";

/// Reads every file and works out the incident they record.
pub fn import(paths: &[PathBuf], opts: &Options) -> Result<Incident, ImportError> {
    let mut sink = sink::Sink::new(opts.order.clone(), incident::MAX_ORDERS);
    let mut notes = Vec::new();
    let mut sources = Vec::new();
    for path in paths {
        let shown = idem_core::text::sanitize_line(&path.display().to_string());
        let format = detect(path, &shown)?;
        sink.start_file();
        match format {
            Format::Otlp => otlp::read(path, &shown, &mut sink, &mut notes)?,
            Format::Jaeger => jaeger::read(path, &shown, &mut sink, &mut notes)?,
            Format::Zipkin => zipkin::read(path, &shown, &mut sink, &mut notes)?,
            Format::Har => har::read(path, &shown, &mut sink, &mut notes)?,
            Format::AccessLog => {
                accesslog::read(path, &shown, &opts.mapping, &mut sink, &mut notes)?
            }
        }
        refuse_if_empty(&shown, format, &sink, opts)?;
        sources.push(incident::Source {
            file: shown,
            format,
            records: sink.records,
            kept: sink.kept,
            creator: sink.creator.clone(),
        });
    }
    let ledger = match &opts.ledger {
        Some(p) => {
            let shown = idem_core::text::sanitize_line(&p.display().to_string());
            Some((shown.clone(), ledger::read(p, &shown, &mut notes)?))
        }
        None => None,
    };
    let (seen, dropped) = sink.keys();
    if dropped > 0 {
        notes.push(format!(
            "{seen} orders (distinct keys) were found; a scenario holds at most {}, so the {} whose first record is earliest were kept (--order picks one)",
            incident::MAX_ORDERS,
            seen - dropped
        ));
    }
    incident::build(sink.take(), sources, ledger, notes, opts.order.as_deref())
}

/// A file that held no HTTP exchange, or none with a key, is a trace of something else.
fn refuse_if_empty(
    shown: &str,
    format: Format,
    sink: &sink::Sink,
    opts: &Options,
) -> Result<(), ImportError> {
    let what = match format {
        Format::Otlp | Format::Jaeger | Format::Zipkin => "span",
        Format::Har => "entry",
        Format::AccessLog => "line",
    };
    let plural = |n: u64, w: &str| {
        if n == 1 {
            format!("1 {w}")
        } else if let Some(stem) = w.strip_suffix("entry") {
            format!("{n} {stem}entries")
        } else {
            format!("{n} {w}s")
        }
    };
    let others = if sink.other.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = sink
            .other
            .iter()
            .map(|o| idem_core::text::sanitize_line(o))
            .collect();
        format!(" (such as {})", names.join(", "))
    };
    if sink.http == 0 {
        let looked = match format {
            Format::Otlp | Format::Jaeger | Format::Zipkin => {
                "client or server spans with http.request.method (or http.method) and http.response.status_code (or http.status_code)"
            }
            Format::Har => "entries with a request method",
            Format::AccessLog => {
                "lines with a method or a status (fields method, request_method, status, response_code, or --log-field)"
            }
        };
        return Err(ImportError::refused(
            shown,
            format!(
                "is {} but records no HTTP request: {} read{others}, none of them HTTP; looked for {looked}",
                format.name(),
                plural(sink.records, what)
            ),
        ));
    }
    if sink.keyed == 0 {
        let looked = match format {
            Format::Otlp | Format::Jaeger | Format::Zipkin => {
                "an attribute http.request.header.idempotency-key (captured request header; also with _ or x-idempotency-key) or idempotency.key"
            }
            Format::Har => "a request header Idempotency-Key (or X-Idempotency-Key)",
            Format::AccessLog => {
                "a field idempotency_key, http_idempotency_key or x-idempotency-key (or --log-field key=FIELD)"
            }
        };
        return Err(ImportError::refused(
            shown,
            format!(
                "records {} but no idempotency key in any of them; looked for {looked}. Capture the header (OpenTelemetry: OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_CLIENT_REQUEST=idempotency-key) and export again",
                plural(sink.http, &format!("HTTP {what}"))
            ),
        ));
    }
    let _ = opts;
    Ok(())
}
