//! The value types of the scenario format: durations, money, clock times and named choices.
//! Each parses itself during deserialisation, so a bad value is reported at its position.

use crate::sim::config::{CrashPoint, Direction, Jitter, KeyStrategy};
use crate::sim::{Cents, Design};
use serde::de::{self, Deserialize, Deserializer};

/// A duration written as `30s`, `200ms`, `2h`, `6d` or `1h 30m`, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dur(pub u64);

/// The longest duration a scenario may name: about 30 years, far beyond any retry.
const MAX_DURATION_MS: u64 = 1_000_000_000_000;

pub fn parse_duration(text: &str) -> Result<u64, String> {
    let hint = "expected a duration such as \"200ms\", \"30s\", \"2h\" or \"6d\"";
    let parsed = humantime::parse_duration(text.trim()).map_err(|_| {
        format!(
            "`{}` is not a duration; {hint}",
            crate::text::shorten(text, 60)
        )
    })?;
    let ms = parsed.as_millis();
    if parsed.as_nanos() % 1_000_000 != 0 {
        return Err(format!(
            "`{text}` is finer than a millisecond, the simulation's resolution"
        ));
    }
    u64::try_from(ms)
        .ok()
        .filter(|ms| *ms <= MAX_DURATION_MS)
        .ok_or_else(|| format!("`{text}` is too long a duration (at most about 30 years)"))
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        parse_duration(&text).map(Dur).map_err(de::Error::custom)
    }
}

/// An amount written as `"$48.60"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Money(pub Cents);

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        crate::sim::money::parse_money(&text)
            .map(Money)
            .map_err(de::Error::custom)
    }
}

/// A clock time, `14:02:07`, `14:02:07.250` or `Fri 18:00:00`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockTime {
    /// Milliseconds since midnight.
    pub ms_of_day: u64,
    /// 0 for Monday, when the time names a weekday.
    pub weekday: Option<u64>,
}

impl ClockTime {
    /// The instant this time names. A weekday is taken as the first such day not before
    /// `not_before`, so `Mon 18:00` after a Friday start is the Monday after it.
    pub fn resolve(self, not_before: crate::sim::Instant) -> crate::sim::Instant {
        let day = match self.weekday {
            None => 0,
            Some(w) => {
                let start = not_before.day();
                w + start.saturating_sub(w).div_ceil(7) * 7
            }
        };
        crate::sim::Instant(day * crate::sim::time::DAY_MS + self.ms_of_day)
    }
}

pub fn parse_clock(text: &str) -> Result<ClockTime, String> {
    let bad = || {
        format!(
            "`{text}` is not a clock time; expected HH:MM:SS such as \"14:02:07\", optionally with milliseconds (\"14:02:07.250\") or a weekday (\"Fri 18:00:00\")"
        )
    };
    let t = text.trim();
    // `day 2 14:02:38`, as the replay writes times past midnight in a story without weekdays.
    if let Some(rest) = t.strip_prefix("day ")
        && let Some((n, time)) = rest.trim().split_once(' ')
    {
        let day: u64 = n
            .parse()
            .ok()
            .filter(|d| (1..=3650).contains(d))
            .ok_or_else(|| format!("`day {n}` is not a day: expected day 1, day 2, …"))?;
        let mut clock = parse_clock(time)?;
        clock.ms_of_day += (day - 1) * crate::sim::time::DAY_MS;
        return Ok(clock);
    }
    let (weekday, time) = match t.split_once(' ') {
        Some((day, rest)) => {
            let index = crate::sim::time::weekday_index(day).ok_or_else(|| {
                format!("`{day}` is not a weekday; expected Mon, Tue, Wed, Thu, Fri, Sat or Sun")
            })?;
            (Some(index), rest.trim())
        }
        None => (None, t),
    };
    let (hms, millis) = match time.split_once('.') {
        Some((hms, ms)) if ms.len() == 3 && ms.bytes().all(|b| b.is_ascii_digit()) => {
            (hms, ms.parse::<u64>().map_err(|_| bad())?)
        }
        Some(_) => return Err(bad()),
        None => (time, 0),
    };
    let parts: Vec<&str> = hms.split(':').collect();
    if parts.len() != 3
        || parts
            .iter()
            .any(|p| p.len() != 2 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(bad());
    }
    let num = |s: &str| s.parse::<u64>().map_err(|_| bad());
    let (h, m, s) = (num(parts[0])?, num(parts[1])?, num(parts[2])?);
    if h > 23 || m > 59 || s > 59 {
        return Err(format!(
            "`{text}` is not a time of day: hours go to 23, minutes and seconds to 59"
        ));
    }
    Ok(ClockTime {
        ms_of_day: ((h * 60 + m) * 60 + s) * 1000 + millis,
        weekday,
    })
}

impl<'de> Deserialize<'de> for ClockTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        parse_clock(&text).map_err(de::Error::custom)
    }
}

/// The closest valid word to a misspelt one, if any is close enough to be a likely typo.
pub fn did_you_mean<'a>(word: &str, valid: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    // A word far longer than any option is no typo, and comparing it would take a long time.
    if word.len() > 64 {
        return None;
    }
    valid
        .into_iter()
        .map(|v| (strsim::damerau_levenshtein(word, v), v))
        .filter(|(d, v)| *d <= 2.max(v.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, v)| v)
}

/// Reads one of a fixed set of words, suggesting the nearest when it is misspelt.
fn choice<T: Copy>(text: &str, what: &str, options: &[(&'static str, T)]) -> Result<T, String> {
    if let Some((_, v)) = options.iter().find(|(name, _)| *name == text) {
        return Ok(*v);
    }
    let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
    let hint = did_you_mean(text, names.iter().copied())
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    Err(format!(
        "unknown {what} `{}`{hint}; expected one of: {}",
        crate::text::shorten(&crate::text::sanitize_line(text), 60),
        names.join(", ")
    ))
}

macro_rules! word_type {
    ($(#[$doc:meta])* $name:ident, $inner:ty, $what:expr, $options:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name(pub $inner);

        impl $name {
            pub fn parse(text: &str) -> Result<$inner, String> {
                choice(text, $what, &$options)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                Self::parse(&text).map($name).map_err(de::Error::custom)
            }
        }
    };
}

word_type!(
    /// A design id.
    DesignId,
    Design,
    "design",
    Design::ALL.map(|d| (d.id(), d))
);
word_type!(
    /// Where a crash happens.
    CrashAt,
    CrashPoint,
    "crash point",
    CrashPoint::ALL.map(|c| (c.id(), c))
);
word_type!(
    /// Which message a network fault applies to.
    Way,
    Direction,
    "direction",
    [("request", Direction::Request), ("reply", Direction::Reply)]
);
word_type!(
    /// How backoff waits are randomised.
    JitterKind,
    Jitter,
    "jitter",
    [
        ("none", Jitter::None),
        ("full", Jitter::Full),
        ("equal", Jitter::Equal),
        ("decorrelated", Jitter::Decorrelated)
    ]
);
word_type!(
    /// How the checkout chooses keys.
    KeyChoice,
    KeyStrategy,
    "key strategy",
    [
        ("per-intent", KeyStrategy::PerIntent),
        ("per-attempt", KeyStrategy::PerAttempt),
        ("none", KeyStrategy::None)
    ]
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(30_000));
        assert_eq!(parse_duration("200ms"), Ok(200));
        assert_eq!(parse_duration("6d"), Ok(6 * 86_400_000));
        assert_eq!(parse_duration("1h 30m"), Ok(5_400_000));
        assert!(parse_duration("3").is_err());
        assert!(parse_duration("2fortnights").is_err());
        assert!(parse_duration("99999999999d").is_err());
    }

    #[test]
    fn clocks() {
        assert_eq!(parse_clock("14:02:07").map(|c| c.ms_of_day), Ok(50_527_000));
        assert_eq!(parse_clock("Fri 18:00:00").map(|c| c.weekday), Ok(Some(4)));
        assert_eq!(
            parse_clock("14:02:07.250").map(|c| c.ms_of_day),
            Ok(50_527_250)
        );
        assert!(parse_clock("24:00:00").is_err());
        assert!(parse_clock("14:2:7").is_err());
        assert!(parse_clock("Someday 14:02:07").is_err());
        assert_eq!(
            parse_clock("day 2 00:00:01").map(|c| c.ms_of_day),
            Ok(86_401_000)
        );
        assert!(parse_clock("day 0 00:00:01").is_err());
        let fri = crate::sim::Instant(4 * crate::sim::time::DAY_MS);
        let mon = parse_clock("Mon 18:00:00").map(|c| c.resolve(fri).day());
        assert_eq!(mon, Ok(7), "the Monday after a Friday start");
        assert_eq!(
            parse_clock("Fri 09:00:00").map(|c| c.resolve(fri).day()),
            Ok(4)
        );
    }

    #[test]
    fn suggestions() {
        assert_eq!(DesignId::parse("with-charge"), Ok(Design::WithCharge));
        let err = DesignId::parse("with-charg").unwrap_err();
        assert!(err.contains("did you mean `with-charge`"), "{err}");
        let err = CrashAt::parse("chrage").unwrap_err();
        assert!(err.contains("did you mean `charge`"), "{err}");
    }
}
