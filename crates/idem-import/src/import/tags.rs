//! The attributes the three trace formats share: the HTTP semantic conventions of
//! OpenTelemetry (the stable names and the older ones many instrumentations still write),
//! read the same from an OTLP attribute, a Jaeger tag or a Zipkin tag.

use crate::import::model::{Exchange, Side, is_key_attribute};
use serde::de::{self, Deserializer, Visitor};
use std::fmt;

/// Reads one attribute into the exchange; returns whether it was an HTTP one.
pub fn take(x: &mut Exchange, name: &str, value: &str) -> bool {
    if value.is_empty() {
        return false;
    }
    if is_key_attribute(name) {
        x.key = Some(value.to_string());
        return true;
    }
    match name {
        "http.request.method" | "http.method" => {
            x.method = Some(value.to_ascii_uppercase());
            true
        }
        "url.full" | "http.url" => {
            x.target = Some(value.to_string());
            true
        }
        "url.path" | "http.target" | "http.path" | "http.route" => {
            if x.target.is_none() {
                x.target = Some(value.to_string());
            }
            true
        }
        "http.response.status_code" | "http.status_code" => {
            x.status = value.trim().parse().ok();
            true
        }
        "http.request.resend_count" => {
            x.resend = value.trim().parse().ok();
            true
        }
        "error.type" | "error.message" | "otel.status_description" | "exception.message" => {
            if x.error.is_none() || name == "exception.message" {
                x.error = Some(value.to_string());
            }
            false
        }
        "error" if value != "false" => {
            // Zipkin and OpenTracing put the message in the `error` tag, or just `true`.
            if value != "true" || x.error.is_none() {
                x.error = Some(if value == "true" { "error" } else { value }.to_string());
            }
            false
        }
        "span.kind" => {
            x.side = side_word(value).or(x.side);
            false
        }
        "app.order.id" | "order.id" | "order" | "payment.order" => {
            x.order = Some(value.to_string());
            false
        }
        "app.amount" | "payment.amount" | "order.amount" => {
            x.amount = Some(value.to_string());
            false
        }
        "payment.charge.id" | "charge.id" | "app.charge.id" => {
            x.charge = Some(value.to_string());
            false
        }
        n if n.eq_ignore_ascii_case("http.response.header.idempotent-replayed")
            || n.eq_ignore_ascii_case("http.response.header.idempotent_replayed") =>
        {
            x.replayed = value.eq_ignore_ascii_case("true");
            false
        }
        _ => false,
    }
}

/// `client` or `server` in the words of Jaeger, Zipkin and OpenTracing.
pub fn side_word(word: &str) -> Option<Side> {
    match word.to_ascii_lowercase().as_str() {
        "client" | "span_kind_client" => Some(Side::Client),
        "server" | "span_kind_server" => Some(Side::Server),
        _ => None,
    }
}

/// A whole number written as a JSON number or as a string of digits (OTLP's JSON writes
/// 64-bit integers as strings; some exporters write numbers).
pub fn lenient_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = Option<u64>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a whole number, or a string of digits")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(u64::try_from(v).ok())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok((v >= 0.0 && v.is_finite()).then_some(v as u64))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if v.is_empty() {
                return Ok(None);
            }
            v.trim()
                .parse()
                .map(Some)
                .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(V)
}

/// A value of any JSON scalar type, as text (Jaeger's and Zipkin's tags, a log line's
/// fields): strings as they are, numbers and booleans as JSON writes them.
pub fn scalar_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string, a number or a boolean")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            // A list (a header captured as an array): its first scalar.
            let mut first = None;
            while let Some(v) = seq.next_element::<serde_json::Value>()? {
                if first.is_none() {
                    first = match v {
                        serde_json::Value::String(s) => Some(s),
                        serde_json::Value::Null => None,
                        other => Some(other.to_string()),
                    };
                }
            }
            Ok(first)
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map
                .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                .is_some()
            {}
            Ok(None)
        }
    }
    d.deserialize_any(V)
}
