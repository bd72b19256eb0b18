//! What every source is read into: one HTTP exchange as one side saw it, with where it came
//! from. The sources differ in their words; from here on they are the same.

/// The formats `idem import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Otlp,
    Jaeger,
    Zipkin,
    Har,
    AccessLog,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Otlp => "OTLP JSON traces",
            Format::Jaeger => "Jaeger JSON traces",
            Format::Zipkin => "Zipkin v2 JSON spans",
            Format::Har => "HAR",
            Format::AccessLog => "JSON access log",
        }
    }
}

/// Which side of the wire recorded the exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The caller: a client span, a HAR entry (a browser or a proxy in front of the service).
    Client,
    /// The service: a server span, an access-log line.
    Server,
}

/// One request and its answer, as one side recorded it.
#[derive(Clone, Debug, Default)]
pub struct Exchange {
    /// Where it came from, as a comment can say it: `otel.json span 9f1c… (trace 4b2e…)`.
    pub origin: String,
    pub side: Option<Side>,
    pub trace_id: Option<String>,
    pub span_id: Option<String>,
    pub parent_id: Option<String>,
    pub method: Option<String>,
    pub target: Option<String>,
    /// The idempotency key the request carried.
    pub key: Option<String>,
    /// Microseconds since the Unix epoch, on the recording side's clock.
    pub start_us: i64,
    pub end_us: Option<i64>,
    /// The answer's status code, when one was recorded.
    pub status: Option<u16>,
    /// An error recorded instead of (or besides) an answer.
    pub error: Option<String>,
    /// The retry number the instrumentation recorded (`http.request.resend_count`).
    pub resend: Option<u64>,
    pub order: Option<String>,
    pub amount: Option<String>,
    /// A charge the record names (a span event or attribute, an answer's body).
    pub charge: Option<String>,
    /// The service said the answer was replayed from memory (`Idempotent-Replayed: true`).
    pub replayed: bool,
}

impl Exchange {
    pub fn duration_us(&self) -> Option<i64> {
        self.end_us.map(|e| e - self.start_us)
    }

    /// Whether the error is a timeout, as the instrumentations word one.
    pub fn timed_out(&self) -> bool {
        self.error.as_deref().is_some_and(|e| {
            let e = e.to_ascii_lowercase();
            e.contains("timeout")
                || e.contains("timed out")
                || e.contains("etimedout")
                || e.contains("econnaborted")
                || e.contains("deadline")
        })
    }

    /// Whether the error says nobody was listening (a service down or restarting).
    pub fn refused(&self) -> bool {
        self.error.as_deref().is_some_and(|e| {
            let e = e.to_ascii_lowercase();
            e.contains("refused") || e.contains("econnreset") || e.contains("reset by peer")
        })
    }
}

/// The header names read as the idempotency key, lower case.
pub const KEY_HEADERS: [&str; 3] = ["idempotency-key", "x-idempotency-key", "idempotency_key"];

/// Whether an attribute or tag name holds the key: a captured request header
/// (`http.request.header.idempotency-key`, or with `_` as older instrumentations write it),
/// or an attribute of its own (`idempotency.key`).
pub fn is_key_attribute(name: &str) -> bool {
    const HEADER: &str = "http.request.header.";
    let same = |a: &str, b: &str| {
        a.len() == b.len()
            && a.bytes()
                .zip(b.bytes())
                .all(|(x, y)| x.eq_ignore_ascii_case(&y) || (x == b'_' && y == b'-'))
    };
    match name.get(..HEADER.len()) {
        Some(p) if p.eq_ignore_ascii_case(HEADER) => {
            let h = &name[HEADER.len()..];
            same(h, "idempotency-key") || same(h, "x-idempotency-key")
        }
        _ => {
            name.eq_ignore_ascii_case("idempotency.key")
                || name.eq_ignore_ascii_case("idempotency_key")
                || name.eq_ignore_ascii_case("app.idempotency_key")
        }
    }
}

/// A key as sent, without one pair of surrounding quotes (the IETF draft quotes it).
pub fn bare_key(key: &str) -> &str {
    let k = key.trim();
    k.strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .unwrap_or(k)
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Microseconds since the epoch of an RFC 3339 time (`2024-05-03T14:02:07.250Z`, an offset
/// or none, read as UTC), or of the common log format's (`03/May/2024:14:02:07 +0000`).
pub fn parse_time(text: &str) -> Option<i64> {
    let t = text.trim().trim_start_matches('[').trim_end_matches(']');
    if t.len() >= 19 && t.as_bytes().get(4) == Some(&b'-') {
        return parse_rfc3339(t);
    }
    parse_clf(t)
}

fn num(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn parse_rfc3339(t: &str) -> Option<i64> {
    let date = t.get(0..10)?;
    let y = num(date.get(0..4)?)?;
    let mo = num(date.get(5..7)?)?;
    let d = num(date.get(8..10)?)?;
    let rest = t.get(11..)?;
    let h = num(rest.get(0..2)?)?;
    let mi = num(rest.get(3..5)?)?;
    let s = num(rest.get(6..8)?)?;
    let mut rest = rest.get(8..)?;
    let mut micros = 0i64;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits: String = frac.chars().take_while(char::is_ascii_digit).collect();
        rest = &frac[digits.len()..];
        let mut padded: String = digits.chars().take(6).collect();
        while padded.len() < 6 {
            padded.push('0');
        }
        micros = num(&padded)?;
    }
    let offset_s = offset_seconds(rest)?;
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    Some(((days * 86_400 + h * 3600 + mi * 60 + s) - offset_s) * 1_000_000 + micros)
}

fn offset_seconds(rest: &str) -> Option<i64> {
    let rest = rest.trim();
    if rest.is_empty() || rest == "Z" || rest == "z" {
        return Some(0);
    }
    let sign = match rest.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: String = rest[1..].chars().filter(char::is_ascii_digit).collect();
    if digits.len() != 4 {
        return None;
    }
    Some(sign * (num(&digits[0..2])? * 3600 + num(&digits[2..4])? * 60))
}

fn parse_clf(t: &str) -> Option<i64> {
    // 03/May/2024:14:02:07 +0000
    let (date, zone) = match t.split_once(' ') {
        Some((d, z)) => (d, z),
        None => (t, ""),
    };
    let mut parts = date.splitn(3, '/');
    let d = num(parts.next()?)?;
    let mon = parts.next()?;
    let rest = parts.next()?;
    let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let mo = months.iter().position(|m| m.eq_ignore_ascii_case(mon))? as i64 + 1;
    let y = num(rest.get(0..4)?)?;
    let h = num(rest.get(5..7)?)?;
    let mi = num(rest.get(8..10)?)?;
    let s = num(rest.get(11..13)?)?;
    let offset_s = offset_seconds(zone)?;
    let days = days_from_civil(y, mo, d);
    Some(((days * 86_400 + h * 3600 + mi * 60 + s) - offset_s) * 1_000_000)
}

/// The weekday (`Mon` … `Sun`) and the clock time (`14:02:07.250`) of a moment, in UTC.
pub fn clock_of(us: i64) -> (&'static str, String) {
    let ms = us.div_euclid(1000);
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    // 1970-01-01 was a Thursday.
    let names = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    let weekday = names[days.rem_euclid(7) as usize];
    let (h, m, s, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    (weekday, format!("{h:02}:{m:02}:{s:02}.{milli:03}"))
}

/// The civil date of a moment, `2024-05-03`, in UTC.
pub fn date_of(us: i64) -> String {
    let days = us.div_euclid(86_400_000_000);
    // Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_read_in_both_forms_and_written_back() {
        let a = parse_time("2024-05-03T14:02:07.250Z").expect("rfc 3339");
        let b = parse_time("03/May/2024:16:02:07 +0200").expect("common log format");
        assert_eq!(a - 250_000, b);
        assert_eq!(clock_of(a), ("Fri", "14:02:07.250".to_string()));
        assert_eq!(date_of(a), "2024-05-03");
        assert_eq!(
            parse_time("2024-05-03T14:02:07.250+02:00"),
            Some(a - 7_200_000_000)
        );
        assert_eq!(parse_time("yesterday"), None);
    }

    #[test]
    fn key_attributes_are_found_in_every_spelling() {
        assert!(is_key_attribute("http.request.header.idempotency-key"));
        assert!(is_key_attribute("http.request.header.idempotency_key"));
        assert!(is_key_attribute("http.request.header.Idempotency-Key"));
        assert!(!is_key_attribute("http.request.header.content-type"));
        assert_eq!(bare_key("\"K7Q4\""), "K7Q4");
    }
}
