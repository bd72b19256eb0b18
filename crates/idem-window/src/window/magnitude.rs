//! Numbers that can outgrow every machine integer without ever wrapping.
//!
//! A retry stack multiplies attempts layer by layer, so forty layers of a
//! thousand attempts already reach 10^120, far beyond `u128`. [`Count`]
//! (attempts) and [`Span`] (a delay in nanoseconds) therefore keep an exact
//! `u128` while the value fits, and fall back to its base-10 logarithm once it
//! does not. The fallback is only ever used for values above `u128::MAX`, so
//! comparing an exact value with an approximate one needs no arithmetic.

use std::cmp::Ordering;
use std::time::Duration;

const NANOS_PER_SEC: u128 = 1_000_000_000;

/// The shared representation behind [`Count`] and [`Span`].
#[derive(Debug, Clone, Copy)]
enum Magnitude {
    /// The value itself.
    Exact(u128),
    /// Base-10 logarithm of a value larger than `u128::MAX`.
    Huge(f64),
}

impl Magnitude {
    const ZERO: Self = Self::Exact(0);
    const ONE: Self = Self::Exact(1);
    /// Without end: what a layer that never stops retrying adds up to.
    const UNBOUNDED: Self = Self::Huge(f64::INFINITY);

    fn is_unbounded(self) -> bool {
        matches!(self, Self::Huge(log) if log.is_infinite() && log > 0.0)
    }

    fn log10(self) -> f64 {
        match self {
            // `u128 -> f64` rounds but never fails; log10(0) is -inf, which the
            // callers treat as "contributes nothing".
            Self::Exact(n) => (n as f64).log10(),
            Self::Huge(log) => log,
        }
    }

    fn add(self, other: Self) -> Self {
        if self.is_unbounded() || other.is_unbounded() {
            return Self::UNBOUNDED;
        }
        if let (Self::Exact(a), Self::Exact(b)) = (self, other)
            && let Some(sum) = a.checked_add(b)
        {
            return Self::Exact(sum);
        }
        // log10(x + y) = hi + log10(1 + 10^(lo - hi)), which cannot overflow.
        let (x, y) = (self.log10(), other.log10());
        let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
        Self::Huge(hi + (1.0 + 10f64.powf(lo - hi)).log10())
    }

    fn mul(self, other: Self) -> Self {
        match (self, other) {
            (Self::Exact(0), _) | (_, Self::Exact(0)) => Self::ZERO,
            (Self::Exact(a), Self::Exact(b)) => match a.checked_mul(b) {
                Some(product) => Self::Exact(product),
                None => Self::Huge(self.log10() + other.log10()),
            },
            _ => Self::Huge(self.log10() + other.log10()),
        }
    }

    /// Multiplies by a finite factor of at least 1 (the safety factor).
    fn scale(self, factor: f64) -> Self {
        let factor = if factor.is_finite() && factor >= 1.0 {
            factor
        } else {
            1.0
        };
        match self {
            Self::Exact(_) if factor.fract() == 0.0 && factor < u128::MAX as f64 => {
                self.mul(Self::Exact(factor as u128))
            }
            Self::Exact(n) => {
                let product = n as f64 * factor;
                if product < u128::MAX as f64 {
                    Self::Exact(product.round() as u128)
                } else {
                    Self::Huge(self.log10() + factor.log10())
                }
            }
            Self::Huge(log) => Self::Huge(log + factor.log10()),
        }
    }

    fn to_f64(self) -> f64 {
        match self {
            Self::Exact(n) => n as f64,
            Self::Huge(log) => 10f64.powf(log),
        }
    }
}

impl Ord for Magnitude {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Self::Exact(a), Self::Exact(b)) => a.cmp(b),
            (Self::Exact(_), Self::Huge(_)) => Ordering::Less,
            (Self::Huge(_), Self::Exact(_)) => Ordering::Greater,
            (Self::Huge(a), Self::Huge(b)) => a.total_cmp(b),
        }
    }
}

impl PartialOrd for Magnitude {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Magnitude {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Magnitude {}

/// A number of attempts; exact up to `u128::MAX`, approximate beyond.
///
/// `Display` gives digit groups ("1,000") up to 10^18 and scientific notation
/// ("1.0e120") above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Count(Magnitude);

impl Count {
    /// No attempt at all.
    pub const ZERO: Self = Self(Magnitude::ZERO);

    /// One attempt: the product of an empty stack.
    pub const ONE: Self = Self(Magnitude::ONE);

    /// No limit: a layer that retries until something else stops it.
    pub const UNBOUNDED: Self = Self(Magnitude::UNBOUNDED);

    /// True for [`Count::UNBOUNDED`] and anything it was added to.
    pub fn is_unbounded(&self) -> bool {
        self.0.is_unbounded()
    }

    /// `self + other`, never overflowing.
    pub fn plus(self, other: Count) -> Count {
        Count(self.0.add(other.0))
    }

    /// A count known exactly.
    pub fn new(value: u128) -> Self {
        Self(Magnitude::Exact(value))
    }

    /// The exact value, if it fits in a `u128`.
    pub fn exact(&self) -> Option<u128> {
        match self.0 {
            Magnitude::Exact(n) => Some(n),
            Magnitude::Huge(_) => None,
        }
    }

    /// The exact value, if it fits in a `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        self.exact().and_then(|n| u64::try_from(n).ok())
    }

    /// Base-10 logarithm of the value (`-inf` for zero).
    pub fn log10(&self) -> f64 {
        self.0.log10()
    }

    /// The value as a float (may be `inf` for absurdly large counts).
    pub fn as_f64(&self) -> f64 {
        self.0.to_f64()
    }

    /// `self × other`, never overflowing.
    pub fn times(self, other: Count) -> Count {
        Count(self.0.mul(other.0))
    }
}

/// A length of time that may exceed `Duration::MAX`, stored in nanoseconds.
///
/// `Display` (in `format.rs`, with the rest of the writing) uses the human rule of
/// [`human_span`](super::human_span):
/// "2.1 h", "26 h", "6 days".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Span(Magnitude);

impl Span {
    /// No time at all.
    pub const ZERO: Self = Self(Magnitude::ZERO);

    /// Without end: the path of a layer that never stops retrying.
    pub const UNBOUNDED: Self = Self(Magnitude::UNBOUNDED);

    /// True for [`Span::UNBOUNDED`] and anything it was added to.
    pub fn is_unbounded(&self) -> bool {
        self.0.is_unbounded()
    }

    /// A span of exactly `nanos` nanoseconds.
    pub fn from_nanos(nanos: u128) -> Self {
        Self(Magnitude::Exact(nanos))
    }

    /// The same length as `duration`.
    pub fn from_duration(duration: Duration) -> Self {
        Self(Magnitude::Exact(duration.as_nanos()))
    }

    /// The exact number of nanoseconds, if it fits in a `u128`.
    pub fn as_nanos(&self) -> Option<u128> {
        match self.0 {
            Magnitude::Exact(n) => Some(n),
            Magnitude::Huge(_) => None,
        }
    }

    /// The span as a `Duration`, if it fits in one.
    pub fn to_duration(&self) -> Option<Duration> {
        let nanos = self.as_nanos()?;
        let secs = u64::try_from(nanos / NANOS_PER_SEC).ok()?;
        // The remainder is below 10^9, so it always fits in a u32.
        let sub = u32::try_from(nanos % NANOS_PER_SEC).ok()?;
        Some(Duration::new(secs, sub))
    }

    /// The span in whole seconds, if it is a whole number of seconds that
    /// fits in a `u64`.
    pub fn whole_seconds(&self) -> Option<u64> {
        let nanos = self.as_nanos()?;
        if !nanos.is_multiple_of(NANOS_PER_SEC) {
            return None;
        }
        u64::try_from(nanos / NANOS_PER_SEC).ok()
    }

    /// The span in seconds as a float (`inf` only beyond ~10^308 s).
    pub fn as_secs_f64(&self) -> f64 {
        match self.0 {
            Magnitude::Exact(n) => n as f64 / NANOS_PER_SEC as f64,
            Magnitude::Huge(log) => 10f64.powf(log - 9.0),
        }
    }

    /// Base-10 logarithm of the span in nanoseconds (`-inf` for zero).
    pub fn log10_nanos(&self) -> f64 {
        self.0.log10()
    }

    /// `self + other`, never overflowing.
    pub fn plus(self, other: Span) -> Span {
        Span(self.0.add(other.0))
    }

    /// `self × count`, never overflowing.
    pub fn times(self, count: Count) -> Span {
        Span(self.0.mul(count.0))
    }

    /// `self × factor` for a finite factor of at least 1; any other factor is
    /// treated as 1. Whole factors keep the result exact.
    pub fn scaled(self, factor: f64) -> Span {
        Span(self.0.scale(factor))
    }
}
