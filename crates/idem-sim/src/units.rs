//! Counts and durations written for people, the same way everywhere: in the narration, the
//! replay's panels, `idem run` and the retention report.
//!
//! The rule for a duration:
//! - below 1 second: milliseconds ("250 ms"; "under 1 ms" for less, "0 s" for none);
//! - below 2 minutes: seconds ("90 s");
//! - below 2 hours: minutes ("45 min");
//! - below 48 hours: hours ("2.1 h", "26 h");
//! - from 48 hours on: days ("3 days", "3.0 days", "6 days").
//!
//! A whole number of the chosen unit is written without decimals ("6 days"); anything else
//! gets exactly one decimal, even when it rounds to ".0": "3.0 days" means close to three
//! days but not exactly, which matters when a window must outlast a path by any margin.
//! Integers get comma digit groups ("7,596"). From 10^18 on (10^9 for days) numbers switch
//! to scientific notation with one decimal ("1.2e30").

/// Counts at or above this value are written in scientific notation.
pub const SCIENTIFIC_FROM: u128 = 1_000_000_000_000_000_000;

/// Day counts at or above this value are written in scientific notation.
pub const SCIENTIFIC_DAYS_FROM: f64 = 1e9;

pub const MILLI: u128 = 1_000_000;
pub const SECOND: u128 = 1_000_000_000;
pub const MINUTE: u128 = 60 * SECOND;
pub const HOUR: u128 = 60 * MINUTE;
pub const DAY: u128 = 24 * HOUR;

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
pub fn in_unit(nanos: u128, unit: u128, suffix: &str) -> String {
    if nanos.is_multiple_of(unit) {
        format!("{} {suffix}", group_digits(nanos / unit))
    } else {
        format!("{} {suffix}", one_decimal(nanos as f64 / unit as f64))
    }
}

/// Writes a duration of `nanos` nanoseconds by the module's rule.
pub fn duration_nanos(nanos: u128) -> String {
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

/// Writes a duration of `ms` milliseconds by the module's rule: `200 ms`, `30 s`, `1.5 min`.
pub fn duration_ms(ms: u64) -> String {
    duration_nanos(u128::from(ms) * MILLI)
}

/// A span a person lived through, to the minute: `11 h 58 m`, `3 d 2 h 0 m`, `45 s`. A
/// started minute counts as a whole one (the customer saw the money for part of it).
pub fn lived_ms(ms: u64) -> String {
    if ms < 60_000 {
        return format!("{} s", ms.div_ceil(1000));
    }
    let minutes = ms.div_ceil(60_000);
    let (d, h, m) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    match (d, h) {
        (0, 0) => format!("{m} m"),
        (0, _) => format!("{h} h {m} m"),
        _ => format!("{d} d {h} h {m} m"),
    }
}

/// A size in bytes in decimal units, as storage is sold: `600 B`, `57.6 MB`, `1.2 TB`.
pub fn bytes_si(n: u128) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut x = n as f64;
    let mut unit = 0;
    while x >= 1000.0 && unit < UNITS.len() - 1 {
        x /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{x:.1} {}", UNITS[unit])
    }
}

/// Why a duration could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DurationError {
    /// Its parts add up past what any duration can hold.
    TooLong,
    /// Not a duration at all: the parser's own words.
    Unreadable(String),
}

/// Reads a duration such as "30s", "2h 30m" or "7days", as `humantime` does, but refuses
/// one whose parts add up past about 290 billion years before `humantime` sees it (it
/// panics on a sum that overflows, such as "18446744073709551615s1000ms").
pub fn parse_human_duration(text: &str) -> Result<std::time::Duration, DurationError> {
    if human_duration_bound_ns(text) > u128::from(u64::MAX / 2) * 1_000_000_000 {
        return Err(DurationError::TooLong);
    }
    humantime::parse_duration(text).map_err(|e| DurationError::Unreadable(e.to_string()))
}

/// The most nanoseconds `text` can stand for: each number times its unit, a unit not known
/// here counted as a year, the longest `humantime` knows.
fn human_duration_bound_ns(text: &str) -> u128 {
    const YEAR_NS: u128 = 31_557_600 * 1_000_000_000;
    let mut total: u128 = 0;
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if !c.is_ascii_digit() {
            chars.next();
            continue;
        }
        let mut n: u128 = 0;
        while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(u128::from(d));
            chars.next();
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut unit = String::new();
        while let Some(&c) = chars.peek() {
            if !c.is_alphabetic() || unit.len() >= 16 {
                break;
            }
            unit.push(c);
            chars.next();
        }
        let ns: u128 = match unit.as_str() {
            "nsec" | "ns" => 1,
            "usec" | "us" | "µs" => 1_000,
            "msec" | "ms" => 1_000_000,
            "seconds" | "second" | "sec" | "s" => 1_000_000_000,
            "minutes" | "minute" | "min" | "mins" | "m" => 60 * 1_000_000_000,
            "hours" | "hour" | "hr" | "hrs" | "h" => 3_600 * 1_000_000_000,
            "days" | "day" | "d" => 86_400 * 1_000_000_000,
            "weeks" | "week" | "w" => 604_800 * 1_000_000_000,
            _ => YEAR_NS,
        };
        total = total.saturating_add(n.saturating_mul(ns));
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lived_spans() {
        // 14:02:38.250 to 02:00:00: the started minute counts.
        assert_eq!(lived_ms(43_041_750), "11 h 58 m");
        assert_eq!(lived_ms(43_080_000), "11 h 58 m");
        assert_eq!(lived_ms(1_500), "2 s");
        assert_eq!(lived_ms(45 * 60_000), "45 m");
        assert_eq!(lived_ms(3 * 86_400_000 + 60_000), "3 d 0 h 1 m");
    }

    #[test]
    fn groups_digits() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(7596), "7,596");
        assert_eq!(group_digits(1_234_567), "1,234,567");
    }

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(duration_ms(0), "0 s");
        assert_eq!(duration_ms(200), "200 ms");
        assert_eq!(duration_ms(30_000), "30 s");
        assert_eq!(duration_ms(90_000), "90 s");
        assert_eq!(duration_ms(90_500), "90.5 s");
        assert_eq!(duration_ms(120_000), "2 min");
        assert_eq!(duration_ms(7_596_000), "2.1 h");
        assert_eq!(duration_ms(26 * 3_600_000), "26 h");
        assert_eq!(duration_ms(72 * 3_600_000), "3 days");
        // Not quite three days is not written as three days.
        assert_eq!(duration_ms(72 * 3_600_000 + 60_000), "3.0 days");
        assert_eq!(duration_nanos(5), "under 1 ms");
    }

    #[test]
    fn scientific_carries_rounding() {
        assert_eq!(scientific(30.0 + 1.2f64.log10()), "1.2e30");
        assert_eq!(scientific(119.999_999), "1.0e120");
    }

    #[test]
    fn a_duration_whose_parts_overflow_is_refused_not_a_panic() {
        assert_eq!(
            parse_human_duration("18446744073709551615s1000ms"),
            Err(DurationError::TooLong)
        );
        assert_eq!(
            parse_human_duration("584942417355y 1000ms"),
            Err(DurationError::TooLong)
        );
        assert_eq!(
            parse_human_duration("2h 30m"),
            Ok(std::time::Duration::from_secs(9_000))
        );
        assert_eq!(
            parse_human_duration("1000000000000ns"),
            Ok(std::time::Duration::from_secs(1_000))
        );
        assert!(matches!(
            parse_human_duration("soon"),
            Err(DurationError::Unreadable(_))
        ));
    }
}
