//! Zipkin's v2 JSON: a list of spans as its `POST /api/v2/spans` takes them, or a list of
//! traces (lists of spans) as `GET /api/v2/traces` answers. Times are microseconds; `kind`
//! is `CLIENT` or `SERVER`; tags are strings (`http.method`, `http.path`,
//! `http.status_code`, `error`, and the captured key header).

use crate::import::error::ImportError;
use crate::import::model::{Exchange, Side};
use crate::import::sink::Sink;
use crate::import::tags::{self, lenient_u64, scalar_text};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// One element of the list: a span, or a trace (a list of spans). Told apart as it is read,
/// so an error keeps its place in the file.
enum Item {
    Trace(Vec<Span>),
    Span(Box<Span>),
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Item, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Item;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a Zipkin span (an object) or a trace (a list of spans)")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Item, A::Error> {
                let mut spans = Vec::new();
                while let Some(s) = seq.next_element::<Span>()? {
                    spans.push(s);
                }
                Ok(Item::Trace(spans))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Item, A::Error> {
                Span::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|s| Item::Span(Box::new(s)))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Span {
    #[serde(default)]
    trace_id: String,
    #[serde(default)]
    id: String,
    #[serde(default)]
    parent_id: Option<String>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default, deserialize_with = "lenient_u64")]
    timestamp: Option<u64>,
    #[serde(default, deserialize_with = "lenient_u64")]
    duration: Option<u64>,
    #[serde(default)]
    local_endpoint: Option<Endpoint>,
    #[serde(default)]
    tags: BTreeMap<String, Tagged>,
    #[serde(default)]
    annotations: Vec<Annotation>,
}

#[derive(Deserialize)]
struct Tagged(#[serde(deserialize_with = "scalar_text")] Option<String>);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Endpoint {
    #[serde(default)]
    service_name: Option<String>,
}

#[derive(Deserialize)]
struct Annotation {
    #[serde(default)]
    value: String,
}

pub const EXPECTED: &str =
    "Zipkin v2 spans ([{\"traceId\", \"id\", \"kind\", \"timestamp\", ...}])";

pub fn read(
    path: &Path,
    shown: &str,
    sink: &mut Sink,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    crate::import::read::each_value::<crate::import::read::Owned<Vec<Item>>>(
        path,
        shown,
        EXPECTED,
        notes,
        |items, line| {
            for item in items {
                match item {
                    Item::Trace(spans) => {
                        for s in spans {
                            let (x, name) = exchange(shown, line, s);
                            sink.push(x, &name);
                        }
                    }
                    Item::Span(s) => {
                        let (x, name) = exchange(shown, line, *s);
                        sink.push(x, &name);
                    }
                }
            }
            Ok(())
        },
    )
}

fn exchange(shown: &str, line: usize, span: Span) -> (Exchange, String) {
    let start = span.timestamp.unwrap_or(0) as i64;
    let mut x = Exchange {
        side: span.kind.as_deref().and_then(tags::side_word),
        trace_id: Some(span.trace_id.clone()).filter(|t| !t.is_empty()),
        span_id: Some(span.id.clone()).filter(|t| !t.is_empty()),
        parent_id: span.parent_id.clone().filter(|p| !p.is_empty()),
        start_us: start,
        end_us: span.duration.map(|d| start + d as i64),
        ..Exchange::default()
    };
    for (k, Tagged(v)) in &span.tags {
        if let Some(v) = v {
            tags::take(&mut x, k, v);
        }
    }
    if x.error.as_deref() == Some("true") {
        x.error = Some("error".to_string());
    }
    for a in &span.annotations {
        if a.value.to_ascii_lowercase().contains("charge") && x.charge.is_none() {
            x.charge = Some(a.value.clone());
        }
    }
    let service = span
        .local_endpoint
        .as_ref()
        .and_then(|e| e.service_name.as_deref())
        .map_or(String::new(), |s| {
            format!(" of {}", idem_core::text::sanitize_line(s))
        });
    let kind = match x.side {
        Some(Side::Client) => "client ",
        Some(Side::Server) => "server ",
        None => "",
    };
    x.origin = format!(
        "{shown}:{line} {kind}span {}{service} (trace {})",
        span.id.get(..8).unwrap_or(&span.id),
        span.trace_id.get(..8).unwrap_or(&span.trace_id)
    );
    (x, span.name)
}
