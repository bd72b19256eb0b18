//! HAR 1.2, the HTTP Archive format browsers' developer tools and proxies save: `{"log":
//! {"version", "creator", "entries": [...]}}`, each entry a request with its headers and
//! body, the answer (status 0 for one that never came), and its timings. A HAR is the
//! caller's view: every entry is a client-side attempt.

use crate::import::error::ImportError;
use crate::import::model::{Exchange, KEY_HEADERS, Side, parse_time};
use crate::import::sink::Sink;
use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
struct File {
    log: Log,
}

#[derive(Deserialize)]
struct Log {
    #[serde(default)]
    version: String,
    #[serde(default)]
    creator: Option<Creator>,
    #[serde(default)]
    entries: Vec<Entry>,
}

#[derive(Deserialize)]
struct Creator {
    #[serde(default)]
    name: String,
    #[serde(default)]
    version: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    #[serde(default)]
    started_date_time: String,
    #[serde(default)]
    time: Option<f64>,
    request: Request,
    #[serde(default)]
    response: Option<Response>,
    #[serde(default, rename = "_error")]
    error: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Request {
    #[serde(default)]
    method: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    headers: Vec<Header>,
    #[serde(default)]
    post_data: Option<Content>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    #[serde(default)]
    status: i64,
    #[serde(default)]
    status_text: String,
    #[serde(default)]
    headers: Vec<Header>,
    #[serde(default)]
    content: Option<Content>,
    #[serde(default, rename = "_error")]
    error: Option<String>,
}

#[derive(Deserialize)]
struct Header {
    #[serde(default)]
    name: String,
    #[serde(default)]
    value: String,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    text: Option<String>,
}

pub const EXPECTED: &str = "a HAR 1.2 file ({\"log\": {\"version\", \"entries\": [...]}})";

/// Reads every entry; the creator's name goes into `notes`, for the file's comments.
pub fn read(
    path: &Path,
    shown: &str,
    sink: &mut Sink,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    let mut creators = Vec::new();
    crate::import::read::each_value::<crate::import::read::Owned<File>>(
        path,
        shown,
        EXPECTED,
        notes,
        |file, _| {
            if let Some(c) = &file.log.creator {
                creators.push(format!("{} {}", c.name, c.version));
            }
            if !file.log.version.is_empty() && !file.log.version.starts_with('1') {
                return Err(ImportError::refused(
                    shown,
                    format!(
                        "is HAR version {}; idem reads HAR 1.1 and 1.2",
                        file.log.version
                    ),
                ));
            }
            for (i, e) in file.log.entries.into_iter().enumerate() {
                let (x, name) = exchange(shown, i + 1, e);
                sink.push(x, &name);
            }
            Ok(())
        },
    )?;
    if let Some(c) = creators.first() {
        sink.creator = Some(idem_core::text::sanitize_line(c));
    }
    Ok(())
}

fn json_field(text: &str, field: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    match v.get(field)? {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn exchange(shown: &str, n: usize, e: Entry) -> (Exchange, String) {
    let start = parse_time(&e.started_date_time);
    let mut x = Exchange {
        side: Some(Side::Client),
        method: Some(e.request.method.to_ascii_uppercase()).filter(|m| !m.is_empty()),
        target: Some(e.request.url.clone()).filter(|u| !u.is_empty()),
        start_us: start.unwrap_or(0),
        origin: format!("{shown} entry {n} ({} {})", e.request.method, e.request.url),
        ..Exchange::default()
    };
    if start.is_none() {
        x.error = Some(format!(
            "startedDateTime `{}` is not an ISO 8601 time",
            e.started_date_time
        ));
    }
    x.end_us = e
        .time
        .filter(|t| t.is_finite() && *t >= 0.0)
        .map(|t| x.start_us + (t * 1000.0) as i64);
    x.key = e
        .request
        .headers
        .iter()
        .find(|h| KEY_HEADERS.iter().any(|k| h.name.eq_ignore_ascii_case(k)))
        .map(|h| h.value.clone());
    if let Some(body) = e.request.post_data.as_ref().and_then(|p| p.text.as_deref()) {
        x.order = json_field(body, "order");
        x.amount = json_field(body, "amount");
    }
    match &e.response {
        Some(r) if r.status > 0 => {
            x.status = u16::try_from(r.status).ok();
            x.replayed = r.headers.iter().any(|h| {
                h.name.eq_ignore_ascii_case("idempotent-replayed")
                    && h.value.eq_ignore_ascii_case("true")
            });
            if (200..300).contains(&r.status)
                && let Some(text) = r.content.as_ref().and_then(|c| c.text.as_deref())
            {
                x.charge = json_field(text, "id");
            }
        }
        r => {
            let why = e
                .error
                .clone()
                .or_else(|| r.as_ref().and_then(|r| r.error.clone()))
                .or_else(|| {
                    r.as_ref()
                        .map(|r| r.status_text.clone())
                        .filter(|s| !s.is_empty())
                });
            x.error = Some(why.unwrap_or_else(|| "no answer".to_string()));
        }
    }
    (x, e.request.url)
}
