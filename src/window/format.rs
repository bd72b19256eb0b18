//! Turning counts and spans of time into short text for people.
//!
//! The rule for spans, used everywhere in the window report:
//! - below 1 second: milliseconds ("250 ms"; "under 1 ms" for less);
//! - below 2 minutes: seconds ("90 s");
//! - below 2 hours: minutes ("45 min");
//! - below 48 hours: hours ("2.1 h", "26 h");
//! - from 48 hours on: days ("3 days", "3.0 days", "6 days").
//!
//! A whole number of the chosen unit is written without decimals ("6 days");
//! anything else gets exactly one decimal, even when it rounds to ".0"
//! ("3.0 days" means "a little over three days"). Integers get comma digit
//! groups ("7,596"). From 10^18 on (10^9 for days) numbers switch to
//! scientific notation with one decimal ("1.2e30").

use super::magnitude::Span;

/// Counts at or above this value are written in scientific notation.
pub(crate) const SCIENTIFIC_FROM: u128 = 1_000_000_000_000_000_000;

/// Day counts at or above this value are written in scientific notation.
const SCIENTIFIC_DAYS_FROM: f64 = 1e9;

const MILLI: u128 = 1_000_000;
const SECOND: u128 = 1_000_000_000;
const MINUTE: u128 = 60 * SECOND;
const HOUR: u128 = 60 * MINUTE;
const DAY: u128 = 24 * HOUR;

/// Writes `n` with comma digit groups: `7596` → `"7,596"`.
pub fn group_digits(n: u128) -> String {
    group_digit_text(&n.to_string())
}

/// Inserts commas every three digits into a run of ASCII digits.
fn group_digit_text(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Writes a non-negative value with exactly one decimal and digit groups:
/// `12345.67` → `"12,345.7"`.
fn one_decimal(value: f64) -> String {
    let text = format!("{value:.1}");
    match text.split_once('.') {
        Some((whole, tenth)) => format!("{}.{tenth}", group_digit_text(whole)),
        None => text,
    }
}

/// Writes the number whose base-10 logarithm is `log10` as `"1.2e30"`.
pub fn scientific(log10: f64) -> String {
    if !log10.is_finite() {
        return if log10 > 0.0 {
            "more than 1e308".to_owned()
        } else {
            "0".to_owned()
        };
    }
    let mut exponent = log10.floor();
    let mut mantissa = 10f64.powf(log10 - exponent);
    // Rounding 9.96 to one decimal would give "10.0e29"; carry it over.
    if mantissa >= 9.95 {
        mantissa = 1.0;
        exponent += 1.0;
    }
    format!("{mantissa:.1}e{exponent}")
}

/// Writes `nanos` in `unit` (nanoseconds per unit) following the module rule.
fn in_unit(nanos: u128, unit: u128, suffix: &str) -> String {
    if nanos.is_multiple_of(unit) {
        format!("{} {suffix}", group_digits(nanos / unit))
    } else {
        format!("{} {suffix}", one_decimal(nanos as f64 / unit as f64))
    }
}

/// Writes a span in the most readable unit: "7.6 min", "2.1 h", "6 days".
pub fn human_span(span: Span) -> String {
    let Some(nanos) = span.as_nanos() else {
        // Beyond u128 nanoseconds: days in scientific notation.
        return format!(
            "{} days",
            scientific(span.log10_nanos() - (DAY as f64).log10())
        );
    };
    match nanos {
        0 => "0 s".to_owned(),
        n if n < MILLI => "under 1 ms".to_owned(),
        n if n < SECOND => in_unit(n, MILLI, "ms"),
        n if n < 2 * MINUTE => in_unit(n, SECOND, "s"),
        n if n < 2 * HOUR => in_unit(n, MINUTE, "min"),
        n if n < 48 * HOUR => in_unit(n, HOUR, "h"),
        n if (n / DAY) as f64 >= SCIENTIFIC_DAYS_FROM => {
            format!("{} days", scientific((n as f64 / DAY as f64).log10()))
        }
        n => in_unit(n, DAY, "days"),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn secs(s: u64) -> Span {
        Span::from_duration(Duration::from_secs(s))
    }

    #[test]
    fn groups_digits() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(7596), "7,596");
        assert_eq!(group_digits(1_234_567), "1,234,567");
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

    #[test]
    fn scientific_carries_rounding() {
        assert_eq!(scientific(30.0 + 1.2f64.log10()), "1.2e30");
        assert_eq!(scientific(119.999_999), "1.0e120");
    }
}
