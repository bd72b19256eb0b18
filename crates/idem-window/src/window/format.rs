//! Spans of the retention report written for people, by the rule of `crate::units`, plus
//! what only a span can be: larger than any count of nanoseconds, or without end.

use super::magnitude::{Count, Span};
use crate::units::{DAY, HOUR, MINUTE, SCIENTIFIC_FROM, SECOND, duration_nanos, in_unit};
pub use crate::units::{group_digits, scientific};

/// Writes a span in the most readable unit: "7.6 min", "2.1 h", "6 days".
pub fn human_span(span: Span) -> String {
    let Some(nanos) = span.as_nanos() else {
        // Beyond u128 nanoseconds: days in scientific notation.
        return format!(
            "{} days",
            scientific(span.log10_nanos() - (DAY as f64).log10())
        );
    };
    duration_nanos(nanos)
}

/// Writes a span in its two largest whole units, dropping the rest:
/// "20 d 10 h", "2 h 5 min", "1 min 2 s", "62 s", "250 ms". Used where a
/// sentence reads better than a decimal ("your retries last 20 d 10 h").
pub fn two_units(span: Span) -> String {
    if span.is_unbounded() {
        return "without end".to_owned();
    }
    let Some(nanos) = span.as_nanos() else {
        return human_span(span);
    };
    let units: [(u128, &str); 4] = [(DAY, "d"), (HOUR, "h"), (MINUTE, "min"), (SECOND, "s")];
    for (i, (unit, name)) in units.iter().enumerate() {
        // Up to two days, hours read better: "24 h", "26 h", not "1 d 2 h".
        let at_least = if *unit == DAY { 2 * DAY } else { *unit };
        if nanos >= at_least {
            let whole = nanos / unit;
            let rest = nanos % unit;
            let mut text = format!("{} {name}", group_digits(whole));
            if let Some((next, next_name)) = units.get(i + 1) {
                let part = rest / next;
                if part > 0 {
                    text.push_str(&format!(" {part} {next_name}"));
                }
            }
            return text;
        }
    }
    human_span(span)
}

/// Writes a span in seconds whatever its size: "4 s", "7,596 s", "8.6e127 s".
pub fn seconds_text(span: Span) -> String {
    match span.as_nanos() {
        Some(n) if n / SECOND < SCIENTIFIC_FROM => in_unit(n, SECOND, "s"),
        _ => format!("{} s", scientific(span.log10_nanos() - 9.0)),
    }
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.exact() {
            _ if self.is_unbounded() => f.write_str("unbounded"),
            Some(n) if n < crate::units::SCIENTIFIC_FROM => f.write_str(&group_digits(n)),
            _ => f.write_str(&scientific(self.log10())),
        }
    }
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_unbounded() {
            return f.write_str("without end");
        }
        f.write_str(&human_span(*self))
    }
}

impl Span {
    /// The span in seconds with digit groups: "7,596 s", "8.6e127 s".
    pub fn seconds_text(&self) -> String {
        if self.is_unbounded() {
            return "without end".to_owned();
        }
        seconds_text(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn secs(s: u64) -> Span {
        Span::from_duration(Duration::from_secs(s))
    }

    #[test]
    fn picks_units() {
        assert_eq!(human_span(secs(2)), "2 s");
        assert_eq!(human_span(secs(119)), "119 s");
        assert_eq!(human_span(secs(120)), "2 min");
        assert_eq!(human_span(secs(7596)), "2.1 h");
        assert_eq!(human_span(secs(26 * 3600)), "26 h");
        assert_eq!(human_span(secs(72 * 3600)), "3 days");
        assert_eq!(human_span(secs(72 * 3600 + 60)), "3.0 days");
        assert_eq!(
            human_span(Span::from_duration(Duration::from_millis(250))),
            "250 ms"
        );
        assert_eq!(
            human_span(Span::from_duration(Duration::from_nanos(5))),
            "under 1 ms"
        );
    }

    #[test]
    fn two_units_drop_the_rest() {
        assert_eq!(two_units(secs(1_766_320)), "20 d 10 h");
        assert_eq!(two_units(secs(86_400)), "24 h");
        assert_eq!(two_units(secs(31 * 86_400)), "31 d");
        assert_eq!(two_units(secs(7_500)), "2 h 5 min");
        assert_eq!(two_units(secs(62)), "1 min 2 s");
        assert_eq!(two_units(secs(5)), "5 s");
        assert_eq!(
            two_units(Span::from_duration(Duration::from_millis(250))),
            "250 ms"
        );
    }
}
