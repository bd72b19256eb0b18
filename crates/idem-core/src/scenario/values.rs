//! The value types of the scenario format: durations, money, clock times and named choices.
//! Each parses itself during deserialisation, so a bad value is reported at its position.

use crate::sim::config::{
    CrashPoint, Direction, FailPoint, Jitter, KeyMode, KeyStrategy, LayerKey, Service, Unconfirmed,
};
use crate::sim::{Cents, Design};
use serde::de::{self, Deserialize, Deserializer};

/// A duration written as `30s`, `200ms`, `2h`, `6d` or `1h 30m`, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dur(pub u64);

/// The longest duration a scenario may name: about 30 years, far beyond any retry.
const MAX_DURATION_MS: u64 = 1_000_000_000_000;

pub fn parse_duration(text: &str) -> Result<u64, String> {
    let hint = "expected a duration such as \"200ms\", \"30s\", \"2h\" or \"6d\"";
    let bare = text.trim();
    if bare != "0" && !bare.is_empty() && bare.parse::<f64>().is_ok() {
        return Err(no_unit(&crate::text::shorten(bare, 40)));
    }
    let parsed = crate::units::parse_human_duration(text.trim()).map_err(|e| match e {
        crate::units::DurationError::TooLong => format!(
            "`{}` is too long a duration (at most about 30 years)",
            crate::text::shorten(text, 60)
        ),
        crate::units::DurationError::Unreadable(_) => format!(
            "`{}` is not a duration; {hint}",
            crate::text::shorten(text, 60)
        ),
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
        let text = text_value(d, |got| match got {
            de::Unexpected::Signed(_) | de::Unexpected::Unsigned(_) | de::Unexpected::Float(_) => {
                no_unit(&written(got))
            }
            other => format!(
                "a duration is written as a string with a unit, like \"30s\", not {}",
                written(other)
            ),
        })?;
        parse_duration(&text).map(Dur).map_err(de::Error::custom)
    }
}

/// `5` has no unit; write "5s".
fn no_unit(number: &str) -> String {
    format!("`{number}` has no unit; write \"{number}s\" (or ms, m, h, d), in quotes")
}

/// An amount written as `"$48.60"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Money(pub Cents);

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = text_value(d, |got| {
            let example = match got {
                de::Unexpected::Float(x) if (0.0..1e9).contains(&x) => format!("${x:.2}"),
                de::Unexpected::Signed(n) if (0..1_000_000_000).contains(&n) => format!("${n}.00"),
                _ => "$23.90".to_string(),
            };
            format!("an amount is written as a string, like \"{example}\"")
        })?;
        crate::sim::money::parse_money(&text)
            .map(Money)
            .map_err(de::Error::custom)
    }
}

/// What a value of the wrong type was, in plain words, for messages.
fn written(u: de::Unexpected<'_>) -> String {
    match u {
        de::Unexpected::Str(s) => format!(
            "the text \"{}\"",
            crate::text::shorten(&crate::text::sanitize_line(s), 40)
        ),
        de::Unexpected::Signed(n) => n.to_string(),
        de::Unexpected::Unsigned(n) => n.to_string(),
        de::Unexpected::Float(x) => plain_number(x),
        de::Unexpected::Bool(b) => b.to_string(),
        de::Unexpected::Map => "a table or a TOML date".to_string(),
        de::Unexpected::Seq => "a list".to_string(),
        other => other.to_string(),
    }
}

/// A number as a person writes it: `100`, `2.5`, and only a huge one with an exponent.
pub fn plain_number(x: f64) -> String {
    if x.is_finite() && x.abs() < 1e15 {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A whole-number key (`attempts = 3`): a value of another type is refused in plain words,
/// naming the key and an example.
macro_rules! whole_number {
    ($(#[$doc:meta])* $name:ident, $int:ty, $key:expr, $example:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name(pub $int);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl V {
                    fn refuse<E: de::Error>(&self, got: de::Unexpected<'_>) -> E {
                        // Text in quotes: the example shows the number without them.
                        let how = match got {
                            de::Unexpected::Str(_) => String::new(),
                            other => format!(", not {}", written(other)),
                        };
                        let range = match got {
                            de::Unexpected::Signed(n) if n < 0 => " from 0 up",
                            _ => "",
                        };
                        E::custom(format!(
                            "{} must be a whole number{range}, like {}{how}",
                            $key, $example
                        ))
                    }
                }
                impl<'de> de::Visitor<'de> for V {
                    type Value = $int;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        write!(f, "a whole number, like {}", $example)
                    }
                    fn visit_i64<E: de::Error>(self, n: i64) -> Result<$int, E> {
                        <$int>::try_from(n).map_err(|_| self.refuse(de::Unexpected::Signed(n)))
                    }
                    fn visit_u64<E: de::Error>(self, n: u64) -> Result<$int, E> {
                        <$int>::try_from(n).map_err(|_| {
                            E::custom(format!("{} is too large for {}", n, $key))
                        })
                    }
                    fn visit_i128<E: de::Error>(self, n: i128) -> Result<$int, E> {
                        <$int>::try_from(n).map_err(|_| {
                            E::custom(format!(
                                "{n} is too large for {}: whole numbers in a scenario go up to 9223372036854775807",
                                $key
                            ))
                        })
                    }
                    fn visit_u128<E: de::Error>(self, n: u128) -> Result<$int, E> {
                        self.visit_i128(i128::try_from(n).unwrap_or(i128::MAX))
                    }
                    fn visit_f64<E: de::Error>(self, x: f64) -> Result<$int, E> {
                        Err(self.refuse(de::Unexpected::Float(x)))
                    }
                    fn visit_bool<E: de::Error>(self, b: bool) -> Result<$int, E> {
                        Err(self.refuse(de::Unexpected::Bool(b)))
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$int, E> {
                        Err(self.refuse(de::Unexpected::Str(s)))
                    }
                    fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<$int, A::Error> {
                        Err(self.refuse(de::Unexpected::Map))
                    }
                    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<$int, A::Error> {
                        Err(self.refuse(de::Unexpected::Seq))
                    }
                }
                d.deserialize_any(V).map($name)
            }
        }
    };
}

whole_number!(
    /// `attempts` of a layer.
    Attempts,
    i64,
    "attempts",
    3
);
whole_number!(
    /// `attempt` of a fault.
    AttemptNo,
    i64,
    "attempt",
    2
);
whole_number!(
    /// `charges` of an expectation.
    Charges,
    i64,
    "charges",
    1
);
whole_number!(
    /// The jitter seed.
    Seed,
    u64,
    "seed",
    5531
);

/// The backoff multiplier: a number, whole or not.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Factor(pub f64);

impl<'de> Deserialize<'de> for Factor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        fn refuse<E: de::Error>(got: de::Unexpected<'_>) -> E {
            let how = match got {
                de::Unexpected::Str(_) => String::new(),
                other => format!(", not {}", written(other)),
            };
            E::custom(format!("multiplier must be a number, like 2 or 1.5{how}"))
        }
        impl<'de> de::Visitor<'de> for V {
            type Value = f64;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number, like 2 or 1.5")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<f64, E> {
                Ok(n as f64)
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<f64, E> {
                Ok(n as f64)
            }
            fn visit_i128<E: de::Error>(self, n: i128) -> Result<f64, E> {
                Ok(n as f64)
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<f64, E> {
                Ok(x)
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<f64, E> {
                Err(refuse(de::Unexpected::Bool(b)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<f64, E> {
                Err(refuse(de::Unexpected::Str(s)))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<f64, A::Error> {
                Err(refuse(de::Unexpected::Map))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<f64, A::Error> {
                Err(refuse(de::Unexpected::Seq))
            }
        }
        d.deserialize_any(V).map(Factor)
    }
}

/// Reads a value that is written as text, refusing any other type with `hint`, which says how
/// it is written (`an amount is written as a string, like "$23.90"`).
fn text_value<'de, D: Deserializer<'de>>(
    d: D,
    hint: impl Fn(de::Unexpected<'_>) -> String,
) -> Result<String, D::Error> {
    struct V<F>(F);
    impl<'de, F: Fn(de::Unexpected<'_>) -> String> de::Visitor<'de> for V<F> {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<String, E> {
            Ok(s.to_string())
        }
        fn visit_string<E: de::Error>(self, s: String) -> Result<String, E> {
            Ok(s)
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<String, E> {
            Err(E::custom((self.0)(de::Unexpected::Signed(n))))
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<String, E> {
            Err(E::custom((self.0)(de::Unexpected::Unsigned(n))))
        }
        fn visit_i128<E: de::Error>(self, n: i128) -> Result<String, E> {
            Err(E::custom((self.0)(de::Unexpected::Other(&n.to_string()))))
        }
        fn visit_f64<E: de::Error>(self, x: f64) -> Result<String, E> {
            Err(E::custom((self.0)(de::Unexpected::Float(x))))
        }
        fn visit_bool<E: de::Error>(self, b: bool) -> Result<String, E> {
            Err(E::custom((self.0)(de::Unexpected::Bool(b))))
        }
        fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<String, A::Error> {
            Err(de::Error::custom((self.0)(de::Unexpected::Map)))
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<String, A::Error> {
            Err(de::Error::custom((self.0)(de::Unexpected::Seq)))
        }
    }
    d.deserialize_any(V(hint))
}

/// A clock time, `14:02:07`, `14:02:07.250`, `Fri 18:00:00` or `day 2 02:00`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockTime {
    /// Milliseconds since midnight of day 1, when a day number is written (`day 2 02:00`);
    /// else since midnight.
    pub ms_of_day: u64,
    /// 0 for Monday, when the time names a weekday.
    pub weekday: Option<u64>,
    /// Whether a day number is written (`day 1 02:00`): the time then names one instant.
    pub dated: bool,
}

impl ClockTime {
    /// The instant an intent's time names: a weekday is the first such day not before
    /// `not_before`, so `Mon 18:00` after a Friday start is the Monday after it. Every other
    /// time a file or a reader gives is read by [`ClockTime::first_at_or_after`].
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

    /// The one reading of a time that points into a story starting at `start`: a question's,
    /// a note's or a narration's `at`, the reconcile job's, or a time typed at `:`. It is the
    /// first such moment at or after the start: `02:00` after a 14:02 start is the next
    /// night's 02:00, `Sat 02:00` the first Saturday's, and `14:02` the start itself. A time
    /// with a day number (`day 2 02:00`) names that instant, even one before the start.
    pub fn first_at_or_after(self, start: crate::sim::Instant) -> crate::sim::Instant {
        use crate::sim::time::DAY_MS;
        let (at, step) = match self.weekday {
            Some(_) => (self.resolve(start), 7 * DAY_MS),
            None if self.dated => return crate::sim::Instant(self.ms_of_day),
            None => (
                crate::sim::Instant(start.day() * DAY_MS + self.ms_of_day),
                DAY_MS,
            ),
        };
        // `at` is on the start's day or later, so one step past it is always enough.
        if at < start { at.plus(step) } else { at }
    }
}

pub fn parse_clock(text: &str) -> Result<ClockTime, String> {
    let bad = || {
        let shown = crate::text::sanitize_line(text);
        let cleaned = if shown == text {
            ""
        } else {
            " (shown without the control characters it held)"
        };
        format!(
            "`{shown}`{cleaned} is not a clock time; expected HH:MM or HH:MM:SS such as \"14:02\" or \"14:02:07\", optionally with milliseconds (\"14:02:07.250\"), a weekday (\"Fri 18:00\") or a day (\"day 2 09:30\")"
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
        clock.dated = true;
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
        // Milliseconds only after seconds: `14:02.250` is not a time anyone writes.
        Some((hms, ms))
            if hms.matches(':').count() == 2
                && ms.len() == 3
                && ms.bytes().all(|b| b.is_ascii_digit()) =>
        {
            (hms, ms.parse::<u64>().map_err(|_| bad())?)
        }
        Some(_) => return Err(bad()),
        None => (time, 0),
    };
    let mut parts: Vec<&str> = hms.split(':').collect();
    // `HH:MM` is the minute's first second.
    if parts.len() == 2 {
        parts.push("00");
    }
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
        dated: false,
    })
}

impl<'de> Deserialize<'de> for ClockTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = text_value(d, |got| {
            format!(
                "a clock time is written as a string, in quotes, like \"14:02:07\", not {}",
                written(got)
            )
        })?;
        parse_clock(&text).map_err(de::Error::custom)
    }
}

use crate::text::choice;
pub use crate::text::did_you_mean;

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

/// A design as a scenario file writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DesignId(pub Design);

impl<'de> Deserialize<'de> for DesignId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map(DesignId).map_err(de::Error::custom)
    }
}

/// Which designs a command runs: one, or all of them side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DesignChoice {
    One(Design),
    All,
}

impl std::str::FromStr for DesignChoice {
    type Err = String;

    /// `all`, or anything [`Design`] reads.
    fn from_str(text: &str) -> Result<DesignChoice, String> {
        if text == "all" {
            return Ok(DesignChoice::All);
        }
        text.parse()
            .map(DesignChoice::One)
            .map_err(|e: String| format!("{e}, or all"))
    }
}

/// Reads `--design` where only one design makes sense: an id or a number key.
pub fn parse_one_design(text: &str) -> Result<Design, String> {
    match text.parse()? {
        DesignChoice::One(d) => Ok(d),
        DesignChoice::All => Err(format!(
            "this shows one design at a time: give an id or a number 1–{}",
            Design::ALL.len()
        )),
    }
}

word_type!(
    /// Where a crash happens.
    CrashAt,
    CrashPoint,
    "crash point",
    CrashPoint::ALL.map(|c| (c.id(), c))
);
word_type!(
    /// Where a handler error strikes.
    FailAt,
    FailPoint,
    "handler error point",
    FailPoint::ALL.map(|c| (c.id(), c))
);
word_type!(
    /// What the reconciliation does with a charge the shop does not believe paid.
    Policy,
    Unconfirmed,
    "unconfirmed policy",
    Unconfirmed::ALL.map(|u| (u.id(), u))
);
word_type!(
    /// The service a downstream step calls.
    ServiceId,
    Service,
    "service",
    Service::ALL.map(|s| (s.id(), s))
);
word_type!(
    /// How the shop keys its calls to a downstream service.
    KeyModeId,
    KeyMode,
    "key mode",
    KeyMode::ALL.map(|k| (k.id(), k))
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
word_type!(
    /// What one checkout layer does with the key it is handed.
    LayerKeyChoice,
    LayerKey,
    "key handling",
    [
        ("forward", LayerKey::Forward),
        ("per-attempt", LayerKey::PerAttempt),
        ("none", LayerKey::None)
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
        assert_eq!(parse_clock("02:00").map(|c| c.ms_of_day), Ok(7_200_000));
        assert!(parse_clock("02:00.500").is_err());
        assert!(parse_clock("2:00").is_err());
    }

    #[test]
    fn a_time_after_the_start() {
        use crate::sim::Instant;
        let two = |t: &str| parse_clock(t).map(|c| c.first_at_or_after(Instant(50_527_000)));
        // 02:00 after 14:02:07 is the next night's.
        assert_eq!(two("02:00"), Ok(Instant(86_400_000 + 7_200_000)));
        // A later time the same day is that day's.
        assert_eq!(two("18:00"), Ok(Instant(64_800_000)));
        // The very instant of the start is at or after it.
        assert_eq!(two("14:02:07"), Ok(Instant(50_527_000)));
        // A day written out is that day, even the first, before the start.
        assert_eq!(two("day 1 02:00"), Ok(Instant(7_200_000)));
        // A weekday is the first such day and time at or after the start (a Monday here).
        assert_eq!(two("Mon 18:00"), Ok(Instant(64_800_000)));
        assert_eq!(two("Mon 02:00"), Ok(Instant(7 * 86_400_000 + 7_200_000)));
        assert_eq!(two("Tue 02:00"), Ok(Instant(86_400_000 + 7_200_000)));
        assert_eq!(
            two("day 3 02:00:00"),
            Ok(Instant(2 * 86_400_000 + 7_200_000))
        );
        assert!(parse_clock("Someday 14:02:07").is_err());
        assert_eq!(
            parse_clock("day 2 00:00:01").map(|c| c.ms_of_day),
            Ok(86_401_000)
        );
        assert!(parse_clock("day 0 00:00:01").is_err());
    }

    #[test]
    fn a_clock_may_leave_out_the_seconds() {
        assert_eq!(parse_clock("15:00").map(|c| c.ms_of_day), Ok(54_000_000));
        assert_eq!(parse_clock("Fri 18:00"), parse_clock("Fri 18:00:00"));
        assert_eq!(parse_clock("day 2 09:30"), parse_clock("day 2 09:30:00"));
        assert!(
            parse_clock("15:00.250").is_err(),
            "milliseconds need seconds"
        );
        assert!(parse_clock("15").is_err());
        assert!(parse_clock("24:00").is_err());
        assert!(parse_clock("15:60").is_err());
    }

    #[test]
    fn clocks_resolve_weekdays() {
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
        assert_eq!("with-charge".parse(), Ok(Design::WithCharge));
        assert_eq!("2".parse(), Ok(Design::LogAfterCharge));
        assert_eq!("all".parse(), Ok(DesignChoice::All));
        assert!(parse_one_design("all").is_err());
        let err = "with-charg".parse::<Design>().unwrap_err();
        assert!(err.contains("did you mean `with-charge`"), "{err}");
        let err = CrashAt::parse("chrage").unwrap_err();
        assert!(err.contains("did you mean `charge`"), "{err}");
        assert_eq!(FailAt::parse("receive"), Ok(FailPoint::Receive));
        let err = FailAt::parse("reply").unwrap_err();
        assert!(err.contains("expected one of: receive, charge"), "{err}");
    }
}
