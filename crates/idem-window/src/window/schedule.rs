//! How long a layer waits before each retry, and how far jitter can stretch
//! those waits.
//!
//! A [`Schedule`] gives the wait before retry `n` (counted from 1): the same
//! every time, growing by a factor up to a cap, growing as a power of the
//! retry count (Sidekiq), or read off a written list. A [`Jitter`] draws each
//! wait at random around that value; the calculator takes the longest wait a
//! jitter can draw, since the window has to outlast the slowest path.
//!
//! Growing waits are counted in whole milliseconds, truncating as the
//! simulator does (`initial × multiplier^(n−1)`, never above the cap), so that
//! a stack replayed as a scenario waits exactly what the calculator says.

use std::time::Duration;

use super::magnitude::{Count, Span};

/// The simulator never waits longer than this many milliseconds at once.
const LONGEST_WAIT_MS: f64 = 1e15;

/// Growing waits are worked out one by one up to this many retries; beyond,
/// each wait is taken at the largest value the schedule can reach, which
/// can only make the path longer (the safe side for a window).
const COUNTED_RETRIES: u64 = 1_000_000;

/// The waits of one layer, retry after retry.
#[derive(Debug, Clone, PartialEq)]
pub enum Schedule {
    /// The same wait before every retry (an SQS visibility timeout).
    Constant(Duration),
    /// `initial × multiplier^(n−1)` before retry `n`, never more than `cap`.
    Exponential {
        /// The wait before the first retry.
        initial: Duration,
        /// How much each wait grows over the one before; at least 1.
        multiplier: f64,
        /// The longest single wait, if any.
        cap: Option<Duration>,
    },
    /// `unit × (n−1)^power + per_retry × n + offset` before retry `n`
    /// (Sidekiq waits `count⁴ + 15` seconds, its count starting at 0).
    Polynomial {
        /// The exponent applied to the retry count.
        power: u32,
        /// What one unit of `count^power` is worth.
        unit: Duration,
        /// Added once per retry number (where jitter grows with the count).
        per_retry: Duration,
        /// Added to every wait.
        offset: Duration,
    },
    /// The waits as written, first retry first; the last repeats after the
    /// list runs out (Lambda's 1 min then 2 min).
    List(Vec<Duration>),
}

/// How a wait is drawn at random around its scheduled value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Jitter {
    /// Exactly the scheduled wait.
    None,
    /// Anywhere from zero to the scheduled wait.
    Full,
    /// From half the scheduled wait to all of it.
    Equal,
    /// From the first wait to three times the previous one (AWS's
    /// "decorrelated" jitter), never above the cap.
    Decorrelated,
    /// The scheduled wait, plus or minus this fraction of it
    /// (Resilience4j's `randomizedWaitFactor`).
    Proportional(f64),
    /// The scheduled wait plus up to this much for each retry so far
    /// (Sidekiq adds `rand(10) × (count + 1)` seconds).
    Growing(Duration),
    /// Drawn at random around the scheduled wait, never above this many
    /// times it (Polly's exponential jitter, counted at ×2).
    UpTo(f64),
}

impl Jitter {
    /// What the longest draw is, in words: "never longer than the schedule",
    /// "up to ×1.5", ...
    pub fn worst_case(self) -> String {
        match self {
            Self::None => "no jitter".to_owned(),
            Self::Full => "full jitter: at most the scheduled wait (×1)".to_owned(),
            Self::Equal => "equal jitter: at most the scheduled wait (×1)".to_owned(),
            Self::Decorrelated => {
                "decorrelated jitter: up to 3 × the previous wait, to the cap".to_owned()
            }
            Self::Proportional(f) => format!(
                "±{}% jitter: up to ×{}",
                trim_float(f * 100.0),
                trim_float(1.0 + f)
            ),
            Self::Growing(d) => format!(
                "jitter of up to {} per retry so far",
                Span::from_duration(d)
            ),
            Self::UpTo(f) => format!(
                "random around each wait: counted at up to ×{}",
                trim_float(f)
            ),
        }
    }

    /// The word used in files and JSON: "none", "full", ...
    pub fn id(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Full => "full",
            Self::Equal => "equal",
            Self::Decorrelated => "decorrelated",
            Self::Proportional(_) => "proportional",
            Self::Growing(_) => "growing",
            Self::UpTo(_) => "up-to",
        }
    }
}

/// `1.5` rather than `1.5000000000000002`.
fn trim_float(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A duration scaled by `factor` (at least 0), to the nearest millisecond
/// once it is at least one.
fn scaled(duration: Duration, factor: f64) -> Duration {
    let nanos = duration.as_nanos() as f64 * factor.max(0.0);
    if nanos >= 1e6 {
        Duration::from_millis((nanos / 1e6).round().min(u64::MAX as f64) as u64)
    } else {
        Duration::from_nanos(nanos.round() as u64)
    }
}

impl Schedule {
    /// The wait before the first retry.
    pub fn first(&self) -> Duration {
        match self {
            Self::Constant(d) => *d,
            Self::Exponential { .. } | Self::Polynomial { .. } => self.wait_duration(1),
            Self::List(list) => list.first().copied().unwrap_or_default(),
        }
    }

    /// The same schedule starting from `first` instead: a constant wait
    /// becomes `first`; an exponential one starts there; a polynomial or a
    /// list becomes a constant `first` (the screen's `[`/`]` keys).
    pub fn with_first(&self, first: Duration) -> Self {
        match self {
            Self::Exponential {
                multiplier, cap, ..
            } => Self::Exponential {
                initial: first,
                multiplier: *multiplier,
                cap: *cap,
            },
            _ => Self::Constant(first),
        }
    }

    /// The wait before retry `n` (from 1), as a span (it may outgrow a
    /// `Duration`).
    pub fn wait(&self, n: u64) -> Span {
        match self {
            Self::Constant(d) => Span::from_duration(*d),
            Self::Exponential { .. } => Span::from_duration(self.wait_duration(n)),
            Self::Polynomial {
                power,
                unit,
                per_retry,
                offset,
            } => {
                let count = Count::new(u128::from(n.saturating_sub(1)));
                let mut grown = Count::ONE;
                for _ in 0..*power {
                    grown = grown.times(count);
                }
                Span::from_duration(*unit)
                    .times(grown)
                    .plus(Span::from_duration(*per_retry).times(Count::new(u128::from(n))))
                    .plus(Span::from_duration(*offset))
            }
            Self::List(list) => {
                let index = usize::try_from(n.saturating_sub(1)).unwrap_or(usize::MAX);
                Span::from_duration(list.get(index).or(list.last()).copied().unwrap_or_default())
            }
        }
    }

    /// The wait before retry `n` for kinds that always fit a `Duration`.
    fn wait_duration(&self, n: u64) -> Duration {
        match self {
            Self::Exponential {
                initial,
                multiplier,
                cap,
            } => {
                let ceiling = cap.map_or(LONGEST_WAIT_MS, |c| millis_f64(c).min(LONGEST_WAIT_MS));
                if n > COUNTED_RETRIES {
                    return Duration::from_millis(ceiling as u64);
                }
                let exponent = i32::try_from(n.saturating_sub(1)).unwrap_or(i32::MAX);
                let grown = millis_f64(*initial) * multiplier.max(1.0).powi(exponent);
                // The simulator's own arithmetic: grow, cap, then drop the fraction.
                Duration::from_millis(grown.min(ceiling) as u64)
            }
            _ => self.wait(n).to_duration().unwrap_or(Duration::MAX),
        }
    }

    /// The retry from which every wait is the same, if the schedule settles
    /// within the retries worked out one by one.
    pub fn steady_from(&self) -> Option<u64> {
        match self {
            Self::Constant(_) => Some(1),
            Self::List(list) => Some(list.len().max(1) as u64),
            Self::Polynomial {
                power,
                unit,
                per_retry,
                ..
            } => ((*power == 0 || unit.is_zero()) && per_retry.is_zero()).then_some(1),
            Self::Exponential {
                initial,
                multiplier,
                ..
            } => {
                if *multiplier <= 1.0 || initial.is_zero() {
                    return Some(1);
                }
                // Waits never shrink, so the first one at the ceiling is found
                // by halving.
                let ceiling = self.wait_duration(COUNTED_RETRIES + 1);
                let (mut low, mut high) = (1, COUNTED_RETRIES + 1);
                while low < high {
                    let mid = low + (high - low) / 2;
                    if self.wait_duration(mid) >= ceiling {
                        high = mid;
                    } else {
                        low = mid + 1;
                    }
                }
                Some(low)
            }
        }
    }

    /// The sum of the waits before retries `1..=n`.
    pub fn total(&self, n: u64) -> Span {
        let steady = self
            .steady_from()
            .unwrap_or(u64::MAX)
            .min(n.saturating_add(1));
        let mut total = Span::ZERO;
        let counted = n.min(steady.saturating_sub(1)).min(COUNTED_RETRIES);
        for k in 1..=counted {
            total = total.plus(self.wait(k));
        }
        if n > counted {
            // From here on every wait is the same, or is taken at its largest.
            let rest = Count::new(u128::from(n - counted));
            let each = if counted < steady.saturating_sub(1) {
                self.largest_wait(n)
            } else {
                self.wait(counted + 1)
            };
            total = total.plus(each.times(rest));
        }
        total
    }

    /// An upper bound on every wait up to retry `n`.
    fn largest_wait(&self, n: u64) -> Span {
        match self {
            Self::Exponential { .. } => self.wait(COUNTED_RETRIES + 1),
            _ => self.wait(n),
        }
    }

    /// The schedule of the longest waits `jitter` can draw, with no jitter
    /// left: what the calculator counts and what a replay waits.
    pub fn worst_with(&self, jitter: Jitter) -> Self {
        match jitter {
            Jitter::None | Jitter::Full | Jitter::Equal => self.clone(),
            Jitter::Proportional(f) => self.scaled(1.0 + f.max(0.0)),
            Jitter::UpTo(f) => self.scaled(f.max(1.0)),
            Jitter::Decorrelated => Self::Exponential {
                initial: scaled(self.first(), 3.0),
                multiplier: 3.0,
                cap: match self {
                    Self::Exponential { cap, .. } => *cap,
                    _ => None,
                },
            },
            Jitter::Growing(extra) => match self {
                Self::Polynomial {
                    power,
                    unit,
                    per_retry,
                    offset,
                } => Self::Polynomial {
                    power: *power,
                    unit: *unit,
                    per_retry: per_retry.saturating_add(extra),
                    offset: *offset,
                },
                Self::Constant(d) => Self::Polynomial {
                    power: 0,
                    unit: Duration::ZERO,
                    per_retry: extra,
                    offset: *d,
                },
                // Other kinds with a growing jitter are written as a list
                // of their longest waits would be: rare enough to bound.
                other => other.clone(),
            },
        }
    }

    /// Every wait multiplied by `factor`.
    fn scaled(&self, factor: f64) -> Self {
        match self {
            Self::Constant(d) => Self::Constant(scaled(*d, factor)),
            Self::Exponential {
                initial,
                multiplier,
                cap,
            } => Self::Exponential {
                initial: scaled(*initial, factor),
                multiplier: *multiplier,
                cap: cap.map(|c| scaled(c, factor)),
            },
            Self::Polynomial {
                power,
                unit,
                per_retry,
                offset,
            } => Self::Polynomial {
                power: *power,
                unit: scaled(*unit, factor),
                per_retry: scaled(*per_retry, factor),
                offset: scaled(*offset, factor),
            },
            Self::List(list) => Self::List(list.iter().map(|d| scaled(*d, factor)).collect()),
        }
    }

    /// A short description: "2 s", "1 s ×2 to 20 s", "1 s × count^4 + 15 s",
    /// "60 s, 2 min".
    pub fn describe(&self) -> String {
        let span = |d: Duration| Span::from_duration(d).to_string();
        match self {
            Self::Constant(d) => span(*d),
            Self::Exponential {
                initial,
                multiplier,
                cap,
            } => {
                let mut text = format!("{} ×{}", span(*initial), trim_float(*multiplier));
                if let Some(cap) = cap {
                    text.push_str(&format!(" to {}", span(*cap)));
                }
                text
            }
            Self::Polynomial {
                power,
                unit,
                per_retry,
                offset,
            } => {
                let mut text = format!("{} × count^{power}", span(*unit));
                if !per_retry.is_zero() {
                    text.push_str(&format!(" + {} × n", span(*per_retry)));
                }
                if !offset.is_zero() {
                    text.push_str(&format!(" + {}", span(*offset)));
                }
                text
            }
            Self::List(list) => list.iter().map(|d| span(*d)).collect::<Vec<_>>().join(", "),
        }
    }

    /// "constant", "exponential", "polynomial" or "list".
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Constant(_) => "constant",
            Self::Exponential { .. } => "exponential",
            Self::Polynomial { .. } => "polynomial",
            Self::List(_) => "list",
        }
    }

    /// The same schedule as the simulator's one backoff setting (initial
    /// wait, multiplier, cap), when it has one that gives every wait of the
    /// first `retries` exactly.
    pub fn as_backoff(&self, retries: u64) -> Option<(Duration, f64, Option<Duration>)> {
        match self {
            Self::Constant(d) => Some((*d, 1.0, None)),
            Self::Exponential {
                initial,
                multiplier,
                cap,
            } => Some((*initial, *multiplier, *cap)),
            Self::Polynomial { .. } | Self::List(_) => {
                // A list that grows by one factor and then stays put is an
                // exponential schedule capped at its last wait. The factor
                // is taken a half millisecond high, so that the simulator's
                // truncation lands on the written second wait.
                let first = self.first();
                let second = self.wait_duration_any(2);
                let first_ms = first.as_nanos() as f64 / 1e6;
                let second_ms = second.as_nanos() as f64 / 1e6;
                let multiplier = if first_ms <= 0.0 {
                    1.0
                } else {
                    ((second_ms + 0.5) / first_ms).max(1.0)
                };
                let last = self.wait_duration_any(retries.max(1));
                let candidate = Self::Exponential {
                    initial: first,
                    multiplier,
                    cap: Some(last),
                };
                (1..=retries.min(COUNTED_RETRIES))
                    .all(|n| candidate.wait(n) == self.wait(n))
                    .then_some((first, multiplier, Some(last)))
            }
        }
    }

    fn wait_duration_any(&self, n: u64) -> Duration {
        self.wait(n).to_duration().unwrap_or(Duration::MAX)
    }
}

/// A duration in milliseconds, fractions kept.
fn millis_f64(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn exponential_waits_grow_to_their_cap() {
        let s = Schedule::Exponential {
            initial: ms(1000),
            multiplier: 2.0,
            cap: Some(ms(20_000)),
        };
        let waits: Vec<Option<u128>> = (1..=7).map(|n| s.wait(n).as_nanos()).collect();
        let expected: Vec<Option<u128>> = [1, 2, 4, 8, 16, 20, 20]
            .iter()
            .map(|s| Some(s * 1_000_000_000))
            .collect();
        assert_eq!(waits, expected);
        assert_eq!(s.steady_from(), Some(6));
        assert_eq!(s.total(7).whole_seconds(), Some(71));
        assert_eq!(s.total(1_000).whole_seconds(), Some(31 + 20 * 995));
    }

    #[test]
    fn sidekiq_waits_follow_the_fourth_power() {
        let s = Schedule::Polynomial {
            power: 4,
            unit: Duration::from_secs(1),
            per_retry: Duration::ZERO,
            offset: Duration::from_secs(15),
        };
        assert_eq!(s.wait(1).whole_seconds(), Some(15));
        assert_eq!(s.wait(3).whole_seconds(), Some(31));
        assert_eq!(s.total(25).whole_seconds(), Some(1_763_395));
        let worst = s.worst_with(Jitter::Growing(Duration::from_secs(9)));
        assert_eq!(worst.wait(1).whole_seconds(), Some(24));
        assert_eq!(worst.total(25).whole_seconds(), Some(1_763_395 + 9 * 325));
    }

    #[test]
    fn a_list_repeats_its_last_wait() {
        let s = Schedule::List(vec![Duration::from_secs(60), Duration::from_secs(120)]);
        assert_eq!(s.total(4).whole_seconds(), Some(60 + 120 * 3));
        let (initial, multiplier, cap) = s.as_backoff(2).expect("geometric");
        assert_eq!(initial, Duration::from_secs(60));
        assert_eq!(cap, Some(Duration::from_secs(120)));
        let replayed = Schedule::Exponential {
            initial,
            multiplier,
            cap,
        };
        assert_eq!(replayed.total(4), s.total(4));
        // Waits that round to an odd millisecond still land exactly.
        let odd = Schedule::List(vec![ms(311), ms(932)]);
        let (initial, multiplier, cap) = odd.as_backoff(2).expect("geometric");
        let replayed = Schedule::Exponential {
            initial,
            multiplier,
            cap,
        };
        assert_eq!(replayed.wait(2), odd.wait(2));
        let irregular = Schedule::List(vec![
            Duration::from_secs(5),
            Duration::from_secs(9),
            Duration::from_secs(6),
        ]);
        assert_eq!(irregular.as_backoff(3), None);
    }

    #[test]
    fn jitter_worst_cases() {
        let base = Schedule::Exponential {
            initial: ms(500),
            multiplier: 2.0,
            cap: Some(ms(4000)),
        };
        assert_eq!(base.worst_with(Jitter::Full), base);
        let r4j = base.worst_with(Jitter::Proportional(0.5));
        assert_eq!(r4j.first(), ms(750));
        let decorrelated = base.worst_with(Jitter::Decorrelated);
        assert_eq!(decorrelated.wait(1).as_nanos(), Some(1_500_000_000));
        assert_eq!(decorrelated.wait(2).as_nanos(), Some(4_000_000_000));
        assert_eq!(
            Jitter::Proportional(0.5).worst_case(),
            "±50% jitter: up to ×1.5"
        );
    }

    #[test]
    fn a_huge_number_of_retries_is_bounded_not_looped() {
        let s = Schedule::Exponential {
            initial: ms(1),
            multiplier: 1.000_001,
            cap: None,
        };
        // Never settles within the retries counted one by one: the rest is
        // taken at the longest wait the simulator allows.
        let total = s.total(u64::MAX);
        assert!(total > Span::from_duration(Duration::from_secs(1)));
    }
}
