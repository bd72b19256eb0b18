//! OTLP JSON trace exports: the OpenTelemetry protocol's JSON encoding of an
//! `ExportTraceServiceRequest`, one a line as the collector's file exporter writes them, or
//! one document as an OTLP/HTTP JSON exporter sends it. Spans are read with the HTTP
//! semantic conventions (client and server spans; method, URL, status code, resend count,
//! the captured `Idempotency-Key` request header), their status and their events.

use crate::import::error::ImportError;
use crate::import::model::{Exchange, Side};
use crate::import::sink::Sink;
use crate::import::tags::{self, lenient_u64};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::borrow::Cow;
use std::fmt;
use std::path::Path;

/// An export request; its strings are borrowed from the line when they hold no escape.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Request<'a> {
    #[serde(default, borrow)]
    resource_spans: Vec<ResourceSpans<'a>>,
}

/// What `each_value` reads an OTLP file as.
struct Requests;

impl crate::import::read::Record for Requests {
    type Value<'a> = Request<'a>;
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResourceSpans<'a> {
    #[serde(default, borrow)]
    resource: Option<Attributes<'a>>,
    // Exports written before OTLP 0.15 name it instrumentationLibrarySpans.
    #[serde(default, borrow, alias = "instrumentationLibrarySpans")]
    scope_spans: Vec<ScopeSpans<'a>>,
}

#[derive(Deserialize)]
struct Attributes<'a> {
    #[serde(default, borrow)]
    attributes: Vec<KeyValue<'a>>,
}

#[derive(Deserialize)]
struct ScopeSpans<'a> {
    #[serde(default, borrow)]
    spans: Vec<Span<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Span<'a> {
    #[serde(default, borrow)]
    trace_id: Cow<'a, str>,
    #[serde(default, borrow)]
    span_id: Cow<'a, str>,
    #[serde(default, borrow)]
    parent_span_id: Cow<'a, str>,
    #[serde(default, borrow)]
    name: Cow<'a, str>,
    #[serde(default, deserialize_with = "kind")]
    kind: Option<Side>,
    #[serde(default, deserialize_with = "lenient_u64")]
    start_time_unix_nano: Option<u64>,
    #[serde(default, deserialize_with = "lenient_u64")]
    end_time_unix_nano: Option<u64>,
    #[serde(default, borrow)]
    attributes: Vec<KeyValue<'a>>,
    #[serde(default, borrow)]
    events: Vec<Event<'a>>,
    #[serde(default, borrow)]
    status: Option<Status<'a>>,
}

#[derive(Deserialize)]
struct KeyValue<'a> {
    #[serde(default, borrow)]
    key: Cow<'a, str>,
    #[serde(default, borrow)]
    value: Option<AnyValue<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AnyValue<'a> {
    #[serde(default, borrow)]
    string_value: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_i64")]
    int_value: Option<i64>,
    #[serde(default)]
    bool_value: Option<bool>,
    #[serde(default)]
    double_value: Option<f64>,
    #[serde(default, borrow)]
    array_value: Option<ArrayValue<'a>>,
}

#[derive(Deserialize)]
struct ArrayValue<'a> {
    #[serde(default, borrow)]
    values: Vec<AnyValue<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event<'a> {
    #[serde(default, borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    attributes: Vec<KeyValue<'a>>,
}

#[derive(Deserialize)]
struct Status<'a> {
    #[serde(default, deserialize_with = "status_code")]
    code: bool,
    #[serde(default, borrow)]
    message: Option<Cow<'a, str>>,
}

impl AnyValue<'_> {
    fn text(&self) -> Option<Cow<'_, str>> {
        if let Some(s) = &self.string_value {
            return Some(Cow::Borrowed(s.as_ref()));
        }
        if let Some(i) = self.int_value {
            return Some(Cow::Owned(i.to_string()));
        }
        if let Some(b) = self.bool_value {
            return Some(Cow::Owned(b.to_string()));
        }
        if let Some(d) = self.double_value {
            return Some(Cow::Owned(d.to_string()));
        }
        // A captured header is a list of its values: the first.
        self.array_value
            .as_ref()
            .and_then(|a| a.values.iter().find_map(AnyValue::text))
    }
}

fn lenient_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(lenient_u64(d)?.and_then(|v| i64::try_from(v).ok()))
}

/// `kind`: the enum's number (2 server, 3 client) or its name (`SPAN_KIND_SERVER`).
fn kind<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Side>, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = Option<Side>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a span kind: a number from 0 to 5 or a name such as SPAN_KIND_CLIENT")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(match v {
                2 => Some(Side::Server),
                3 => Some(Side::Client),
                _ => None,
            })
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            self.visit_u64(u64::try_from(v).unwrap_or(0))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(tags::side_word(v))
        }
    }
    d.deserialize_any(V)
}

/// `status.code`: whether it is an error (2, or `STATUS_CODE_ERROR`).
fn status_code<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a status code: 0, 1 or 2, or its name")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<bool, E> {
            Ok(v == 2)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<bool, E> {
            Ok(v == 2)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
            Ok(v.eq_ignore_ascii_case("STATUS_CODE_ERROR") || v.eq_ignore_ascii_case("ERROR"))
        }
    }
    d.deserialize_any(V)
}

/// What a span in an OTLP export is called in a refusal.
pub const EXPECTED: &str = "an OTLP ExportTraceServiceRequest ({\"resourceSpans\": [...]})";

/// Reads every span of the file into `sink`.
pub fn read(
    path: &Path,
    shown: &str,
    sink: &mut Sink,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    crate::import::read::each_value::<Requests>(path, shown, EXPECTED, notes, |req, line| {
        for rs in req.resource_spans {
            let service = rs.resource.as_ref().and_then(|r| {
                r.attributes
                    .iter()
                    .find(|a| a.key == "service.name")
                    .and_then(|a| a.value.as_ref().and_then(AnyValue::text))
                    .map(|s| idem_core::text::sanitize_line(&s))
            });
            for ss in rs.scope_spans {
                for span in ss.spans {
                    let (x, name) = exchange(shown, line, service.as_deref(), span);
                    sink.push(x, &name);
                }
            }
        }
        Ok(())
    })
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

fn exchange(shown: &str, line: usize, service: Option<&str>, span: Span<'_>) -> (Exchange, String) {
    let http = span
        .attributes
        .iter()
        .any(|a| a.key == "http.request.method" || a.key == "http.method");
    if !http {
        // Not an attempt: only its name is kept, to say what the file held instead.
        return (Exchange::default(), span.name.into_owned());
    }
    let mut x = Exchange {
        side: span.kind,
        trace_id: (!span.trace_id.is_empty()).then(|| span.trace_id.to_string()),
        span_id: (!span.span_id.is_empty()).then(|| span.span_id.to_string()),
        parent_id: (!span.parent_span_id.is_empty()).then(|| span.parent_span_id.to_string()),
        start_us: span.start_time_unix_nano.map_or(0, |n| (n / 1000) as i64),
        end_us: span
            .end_time_unix_nano
            .filter(|&n| n > 0)
            .map(|n| (n / 1000) as i64),
        ..Exchange::default()
    };
    for a in &span.attributes {
        if let Some(v) = a.value.as_ref().and_then(AnyValue::text) {
            tags::take(&mut x, &a.key, &v);
        }
    }
    if let Some(status) = &span.status
        && status.code
    {
        let message = status
            .message
            .as_ref()
            .filter(|m| !m.is_empty())
            .map(|m| m.to_string());
        x.error = message
            .or(x.error.take())
            .or_else(|| Some("error".to_string()));
    }
    for e in &span.events {
        let lower = e.name.to_ascii_lowercase();
        if lower == "exception" {
            let message = e.attributes.iter().find(|a| a.key == "exception.message");
            if let Some(m) = message.and_then(|a| a.value.as_ref().and_then(AnyValue::text)) {
                x.error = Some(m.into_owned());
            }
        } else if lower.contains("charge") {
            let id = e.attributes.iter().find(|a| a.key.ends_with("charge.id"));
            x.charge = id
                .and_then(|a| a.value.as_ref().and_then(AnyValue::text))
                .map(Cow::into_owned)
                .or(x.charge.take())
                .or_else(|| Some(format!("{} event", e.name)));
        }
    }
    let at = match service {
        Some(s) => format!(" of {s}"),
        None => String::new(),
    };
    x.origin = format!(
        "{shown}:{line} span {}{at} (trace {})",
        short(&span.span_id),
        short(&span.trace_id)
    );
    (x, span.name.into_owned())
}
