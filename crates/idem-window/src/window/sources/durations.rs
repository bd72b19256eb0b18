//! The ways configuration files write a length of time.

use std::time::Duration;

/// Which convention a file follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Go and protobuf (Istio, Envoy): `2s`, `0.25s`, `1m30s`, `100ms`.
    Go,
    /// Spring Boot: `500ms`, `10s`, `2h`, `1d`, ISO-8601 `PT10S`, or a bare
    /// number of milliseconds.
    Spring,
    /// .NET `TimeSpan`: `00:00:02`, `1.00:00:00`, `00:00:00.500`.
    TimeSpan,
    /// A whole number of seconds (AWS, Kubernetes).
    Seconds,
}

impl Style {
    /// An example of the style, for messages.
    pub fn example(self) -> &'static str {
        match self {
            Style::Go => "a duration such as \"2s\", \"250ms\" or \"1m30s\"",
            Style::Spring => "a duration such as \"500ms\", \"10s\" or \"PT10S\"",
            Style::TimeSpan => "a time span such as \"00:00:02\" or \"1.00:00:00\"",
            Style::Seconds => "a whole number of seconds such as 30",
        }
    }
}

const NANOS: [(&str, f64); 9] = [
    ("ns", 1.0),
    ("us", 1e3),
    ("µs", 1e3),
    ("ms", 1e6),
    ("s", 1e9),
    ("m", 60e9),
    ("h", 3600e9),
    ("d", 86_400e9),
    ("w", 604_800e9),
];

/// Reads `text` in `style`.
pub fn parse(text: &str, style: Style) -> Result<Duration, String> {
    let t = text.trim();
    let bad = || format!("cannot read {t:?} as {}", style.example());
    let nanos = match style {
        Style::Seconds => t
            .parse::<u64>()
            .ok()
            .map(|s| s as f64 * 1e9)
            .ok_or_else(bad)?,
        Style::Go => units(t, false).ok_or_else(bad)?,
        Style::Spring => {
            if let Ok(ms) = t.parse::<u64>() {
                ms as f64 * 1e6
            } else if let Some(iso) = t.strip_prefix(['P', 'p']) {
                iso8601(iso).ok_or_else(bad)?
            } else {
                units(t, true).ok_or_else(bad)?
            }
        }
        Style::TimeSpan => time_span(t).ok_or_else(bad)?,
    };
    if !nanos.is_finite() || nanos < 0.0 || nanos > Duration::MAX.as_secs_f64() * 1e9 {
        return Err(bad());
    }
    Ok(Duration::from_nanos(
        nanos.round().min(u64::MAX as f64) as u64
    ))
}

/// `1h30m`, `0.25s`, `500ms`; with `one_unit` only a single number and unit
/// (Spring writes `10s`, never `1m10s`).
fn units(text: &str, one_unit: bool) -> Option<f64> {
    if text.is_empty() {
        return None;
    }
    let mut rest = text;
    let mut total = 0.0;
    let mut parts = 0;
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..number_end].parse().ok()?;
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = rest[..unit_end].to_ascii_lowercase();
        let factor = NANOS.iter().find(|(u, _)| *u == unit)?.1;
        total += number * factor;
        rest = &rest[unit_end..];
        parts += 1;
    }
    (!one_unit || parts == 1).then_some(total)
}

/// The part of an ISO-8601 duration after the `P`: `T10S`, `1DT2H`, `T0.5S`.
fn iso8601(text: &str) -> Option<f64> {
    let upper = text.to_ascii_uppercase();
    let (days, time) = match upper.split_once('T') {
        Some((d, t)) => (d.to_owned(), t.to_owned()),
        None => (upper.clone(), String::new()),
    };
    let mut total = 0.0;
    if !days.is_empty() {
        total += days.strip_suffix('D')?.parse::<f64>().ok()? * 86_400e9;
    }
    let mut rest = time.as_str();
    while !rest.is_empty() {
        let end = rest.find(['H', 'M', 'S'])?;
        let number: f64 = rest[..end].parse().ok()?;
        total += number
            * match &rest[end..=end] {
                "H" => 3600e9,
                "M" => 60e9,
                _ => 1e9,
            };
        rest = &rest[end + 1..];
    }
    Some(total)
}

/// `[d.]hh:mm:ss[.fffffff]`.
fn time_span(text: &str) -> Option<f64> {
    let (days, clock) = match text.split_once(':') {
        Some((head, _)) if head.contains('.') => {
            let (d, _) = head.split_once('.')?;
            (d.parse::<f64>().ok()?, &text[d.len() + 1..])
        }
        Some(_) => (0.0, text),
        None => (text.parse::<f64>().ok()?, ""),
    };
    if clock.is_empty() {
        return Some(days * 86_400e9);
    }
    let parts: Vec<&str> = clock.split(':').collect();
    let [h, m, s] = parts.as_slice() else {
        return None;
    };
    let h: f64 = h.parse().ok()?;
    let m: f64 = m.parse().ok()?;
    let s: f64 = s.parse().ok()?;
    if m >= 60.0 || s >= 60.0 {
        return None;
    }
    Some(((days * 24.0 + h) * 60.0 + m) * 60e9 + s * 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn go_durations() {
        assert_eq!(parse("2s", Style::Go), Ok(ms(2000)));
        assert_eq!(parse("0.25s", Style::Go), Ok(ms(250)));
        assert_eq!(parse("1m30s", Style::Go), Ok(ms(90_000)));
        assert_eq!(parse("100ms", Style::Go), Ok(ms(100)));
        assert!(parse("2 seconds", Style::Go).is_err());
        assert!(parse("", Style::Go).is_err());
    }

    #[test]
    fn spring_durations() {
        assert_eq!(parse("500", Style::Spring), Ok(ms(500)));
        assert_eq!(parse("500ms", Style::Spring), Ok(ms(500)));
        assert_eq!(parse("PT10S", Style::Spring), Ok(ms(10_000)));
        assert_eq!(parse("PT0.5S", Style::Spring), Ok(ms(500)));
        assert_eq!(parse("P1DT1H", Style::Spring), Ok(ms(25 * 3_600_000)));
        assert!(parse("1m10s", Style::Spring).is_err());
    }

    #[test]
    fn time_spans() {
        assert_eq!(parse("00:00:02", Style::TimeSpan), Ok(ms(2000)));
        assert_eq!(parse("00:00:00.5", Style::TimeSpan), Ok(ms(500)));
        assert_eq!(parse("1.00:00:00", Style::TimeSpan), Ok(ms(86_400_000)));
        assert!(parse("00:61:00", Style::TimeSpan).is_err());
        assert!(parse("2s", Style::TimeSpan).is_err());
    }

    #[test]
    fn seconds() {
        assert_eq!(parse("30", Style::Seconds), Ok(ms(30_000)));
        assert!(parse("-1", Style::Seconds).is_err());
    }
}
