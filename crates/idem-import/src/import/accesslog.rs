//! Access logs written as JSON lines, one request a line, as Envoy (`json_format`) and nginx
//! (`log_format … escape=json`) write them, or any server whose format can be set to JSON.
//! Which field holds what is a small mapping: each role has the field names the usual
//! configurations give it, and `--log-field ROLE=FIELD` names another. An access log is the
//! service's (or its gateway's) view: every line is a server-side exchange.

use crate::import::error::ImportError;
use crate::import::model::{Exchange, Side, parse_time};
use crate::import::sink::Sink;
use std::path::Path;

/// The roles a field can play, and the names looked for when none is given.
pub const ROLES: [(&str, &[&str]); 9] = [
    (
        "key",
        &[
            "idempotency_key",
            "http_idempotency_key",
            "idempotency-key",
            "x-idempotency-key",
            "req_idempotency_key",
        ],
    ),
    ("start", &["start_time", "request_start", "start"]),
    (
        "end",
        &[
            "time_iso8601",
            "time_local",
            "@timestamp",
            "timestamp",
            "time",
        ],
    ),
    ("epoch", &["msec"]),
    ("status", &["response_code", "status", "status_code"]),
    ("method", &["method", "request_method"]),
    ("path", &["path", "request_uri", "uri", "url"]),
    (
        "duration_ms",
        &["duration", "duration_ms", "response_duration"],
    ),
    ("duration_s", &["request_time", "duration_s"]),
];

/// A field mapping: for each role, the field to read, or the usual names.
#[derive(Clone, Debug, Default)]
pub struct Mapping {
    pub given: Vec<(String, String)>,
}

impl Mapping {
    /// Reads `ROLE=FIELD`; `duration_us` is a role too (gunicorn's `%(D)s`).
    pub fn add(&mut self, spec: &str) -> Result<(), String> {
        let Some((role, field)) = spec.split_once('=') else {
            return Err(format!(
                "--log-field `{spec}`: expected ROLE=FIELD, as in key=idem_key"
            ));
        };
        let role = role.trim();
        let known: Vec<&str> = ROLES
            .iter()
            .map(|r| r.0)
            .chain(["duration_us", "attempts"])
            .collect();
        if !known.contains(&role) {
            return Err(format!(
                "--log-field `{spec}`: `{role}` is not a role; the roles are {}",
                known.join(", ")
            ));
        }
        self.given
            .push((role.to_string(), field.trim().to_string()));
        Ok(())
    }

    fn fields(&self, role: &str) -> Vec<&str> {
        let given: Vec<&str> = self
            .given
            .iter()
            .filter(|(r, _)| r == role)
            .map(|(_, f)| f.as_str())
            .collect();
        if !given.is_empty() {
            return given;
        }
        match role {
            "duration_us" => vec!["duration_us"],
            "attempts" => vec!["upstream_request_attempt_count", "attempt_count"],
            _ => ROLES
                .iter()
                .find(|r| r.0 == role)
                .map_or(Vec::new(), |r| r.1.to_vec()),
        }
    }
}

pub const EXPECTED: &str = "an access log of JSON objects, one a line";

fn text(v: &serde_json::Value) -> Option<String> {
    let s = match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let t = s.trim();
    // Envoy writes `-` for a value it does not have; nginx an empty string or `-`.
    (!t.is_empty() && t != "-").then(|| t.to_string())
}

pub fn read(
    path: &Path,
    shown: &str,
    mapping: &Mapping,
    sink: &mut Sink,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    let mut bad_time = None;
    crate::import::read::each_value::<
        crate::import::read::Owned<serde_json::Map<String, serde_json::Value>>,
    >(path, shown, EXPECTED, notes, |line, n| {
        let get = |role: &str| {
            mapping
                .fields(role)
                .into_iter()
                .find_map(|f| line.get(f).and_then(text))
        };
        let num = |role: &str| {
            get(role)
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite())
        };
        let duration_us = num("duration_us")
            .map(|v| v as i64)
            .or_else(|| num("duration_ms").map(|v| (v * 1000.0) as i64))
            .or_else(|| num("duration_s").map(|v| (v * 1_000_000.0) as i64));
        let start = get("start").and_then(|t| parse_time(&t));
        let end = get("end")
            .and_then(|t| parse_time(&t))
            .or_else(|| num("epoch").map(|s| (s * 1_000_000.0) as i64));
        let (start, end) = match (start, end, duration_us) {
            (Some(s), _, Some(d)) => (Some(s), Some(s + d)),
            (Some(s), e, None) => (Some(s), e),
            (None, Some(e), Some(d)) => (Some(e - d), Some(e)),
            (None, Some(e), None) => (Some(e), Some(e)),
            (None, None, _) => (None, None),
        };
        if start.is_none() && bad_time.is_none() {
            bad_time = Some(n);
        }
        let status = get("status").and_then(|s| s.parse::<u16>().ok());
        let x = Exchange {
            origin: format!("{shown}:{n}"),
            side: Some(Side::Server),
            method: get("method").map(|m| m.to_ascii_uppercase()),
            target: get("path"),
            key: get("key"),
            start_us: start.unwrap_or(0),
            end_us: end,
            status,
            error: (status.is_none() || status == Some(0)).then(|| "no status logged".to_string()),
            resend: num("attempts").map(|a| a.max(1.0) as u64 - 1),
            ..Exchange::default()
        };
        sink.push(x, "a line without a method or status");
        Ok(())
    })?;
    if let Some(n) = bad_time {
        notes.push(format!(
            "{shown}:{n}: no time found (looked for the fields {} and {}, or give --log-field start=FIELD); lines without one are placed at the epoch",
            mapping.fields("start").join(", "),
            mapping.fields("end").join(", ")
        ));
    }
    Ok(())
}
