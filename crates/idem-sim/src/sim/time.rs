//! Virtual time: milliseconds on a week-long clock, and how to show them.

use serde::{Deserialize, Serialize};

/// Milliseconds in one day.
pub const DAY_MS: u64 = 86_400_000;
const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// A point on the virtual clock: milliseconds since 00:00:00 of the scenario's first day
/// (Monday of the scenario's week when the scenario names weekdays).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Instant(pub u64);

impl Instant {
    pub fn plus(self, ms: u64) -> Instant {
        Instant(self.0.saturating_add(ms))
    }
    pub fn day(self) -> u64 {
        self.0 / DAY_MS
    }
}

/// How a trace writes its times: with weekday names, with day numbers, or time of day alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClockStyle {
    TimeOfDay,
    Weekday,
    DayNumber,
}

impl ClockStyle {
    /// `14:02:38.000`, `Fri 18:00:00.000` or `day 2 14:02:38.000`.
    pub fn format(self, t: Instant) -> String {
        let mut out = String::with_capacity(24);
        self.write(&mut out, t, false);
        out
    }

    /// The shortest form that still names the time exactly: drops `.000`.
    pub fn format_short(self, t: Instant) -> String {
        let mut out = String::with_capacity(24);
        self.write(&mut out, t, true);
        out
    }

    /// Writes the time without going through the formatting machinery: the engine narrates
    /// every tick with it, so it sits on the hot path.
    pub fn write(self, out: &mut String, t: Instant, short: bool) {
        fn two(out: &mut String, n: u64) {
            out.push(char::from(b'0' + (n / 10 % 10) as u8));
            out.push(char::from(b'0' + (n % 10) as u8));
        }
        match self {
            ClockStyle::TimeOfDay => {}
            ClockStyle::Weekday => {
                out.push_str(WEEKDAYS[(t.day() % 7) as usize]);
                out.push(' ');
            }
            ClockStyle::DayNumber => {
                out.push_str("day ");
                out.push_str(&(t.day() + 1).to_string());
                out.push(' ');
            }
        }
        let ms = t.0 % DAY_MS;
        two(out, ms / 3_600_000);
        out.push(':');
        two(out, ms / 60_000 % 60);
        out.push(':');
        two(out, ms / 1000 % 60);
        let frac = ms % 1000;
        if !(short && frac == 0) {
            out.push('.');
            out.push(char::from(b'0' + (frac / 100) as u8));
            two(out, frac % 100);
        }
    }
}

/// Index of a weekday abbreviation (`Mon` = 0), accepting any letter case.
pub fn weekday_index(name: &str) -> Option<u64> {
    WEEKDAYS
        .iter()
        .position(|d| d.eq_ignore_ascii_case(name))
        .map(|i| i as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_each_style() {
        let t = Instant(14 * 3_600_000 + 2 * 60_000 + 38_000);
        assert_eq!(ClockStyle::TimeOfDay.format(t), "14:02:38.000");
        assert_eq!(ClockStyle::TimeOfDay.format_short(t), "14:02:38");
        let fri = Instant(4 * DAY_MS + 18 * 3_600_000);
        assert_eq!(ClockStyle::Weekday.format(fri), "Fri 18:00:00.000");
        assert_eq!(ClockStyle::DayNumber.format(fri), "day 5 18:00:00.000");
    }
}
