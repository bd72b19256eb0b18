//! The day's words, made here and nowhere else: the command's text report, the replay's
//! traffic screen and the SVG for a slide all say the same things the same way, from the
//! report's own figures.

use super::{ASSUMED_LOSE_REPLY, Report, Settings};
use crate::scenario::traffic::Loses;
use crate::sim::{Cents, Design};

/// A share as every view writes it: `0.52%`, `0.0050%` for a tiny one, or `0%`.
pub fn rate(x: f64) -> String {
    if x == 0.0 {
        "0%".into()
    } else if x < 0.0001 {
        format!("{:.4}%", x * 100.0)
    } else {
        format!("{:.2}%", x * 100.0)
    }
}

/// A count with its thousands grouped.
pub fn count(n: u64) -> String {
    crate::units::group_digits(u128::from(n))
}

/// Each fault of the day in a few words, in a fixed order; empty when nothing goes wrong.
pub fn faults(s: &Settings) -> Vec<String> {
    let mut parts = Vec::new();
    if s.lose_reply > 0.0 {
        parts.push(format!("{} of answers lost", rate(s.lose_reply)));
    }
    if s.lose_request > 0.0 {
        parts.push(format!("{} of requests lost", rate(s.lose_request)));
    }
    if s.slow > 0.0 {
        parts.push(format!("{} of attempts slow", rate(s.slow)));
    }
    if s.crash_per_hour > 0.0 {
        parts.push(format!(
            "{} crashes an hour, down {} each",
            crate::scenario::values::plain_number(s.crash_per_hour),
            crate::units::duration_ms(s.restart_after_ms)
        ));
    }
    if let Some(o) = s.outage {
        parts.push(format!(
            "an outage at {} for {} losing {}",
            crate::sim::ClockStyle::DayNumber.format(crate::sim::Instant(o.start_ms)),
            crate::units::duration_ms(o.len_ms),
            match o.loses {
                Loses::All => "every message",
                Loses::Answers => "every answer",
            }
        ));
    }
    parts
}

/// The faults joined with `sep`, or "no faults".
pub fn faults_joined(s: &Settings, sep: &str) -> String {
    let parts = faults(s);
    if parts.is_empty() {
        "no faults".into()
    } else {
        parts.join(sep)
    }
}

/// What the day is, a line each: its orders and period, what each order is (`order`, such
/// as "order 5531 ($48.60)"), its faults, and its reruns if any.
pub fn heading(r: &Report, order: &str) -> Vec<String> {
    let s = &r.settings;
    let mut lines = vec![
        format!(
            "{} — {} orders over {} ({})",
            r.scenario,
            count(s.orders),
            crate::units::duration_ms(s.over_ms),
            s.arrivals.id(),
        ),
        format!("Each is a copy of {order} as a purchase of its own."),
        match faults(s).as_slice() {
            [] => "Faults: none.".to_string(),
            parts => format!("Faults: {}.", parts.join(", ")),
        },
    ];
    lines.extend(reruns(s));
    lines
}

/// Said of a day stopped before its end.
pub const PARTIAL: &str =
    "PARTIAL: stopped early; each design counts only the orders it got through.";

/// Said of a design whose store never held a key over the day.
pub const NO_KEYS_HELD: &str = "No key was held at any moment of this day.";

/// One design's figures in two sentences: what it charged, then what its store did.
pub fn design_figures(r: &Report, d: &super::DesignReport) -> [String; 2] {
    [
        format!(
            "{:.3} attempts an order · {} charges · {} orders charged more than once ({} too much) · {} believed paid and never charged · {} charged and not believed paid",
            d.amplification(),
            count(d.charges),
            count(d.duplicate_orders),
            Cents(d.duplicate_cents),
            count(d.unpaid),
            count(d.charged_unconfirmed),
        ),
        format!(
            "hit rate {} · {} 409s · {} 422s · {} keys stored, {} evicted · peak {} keys, {} at {} B each",
            rate(d.hit_rate()),
            count(d.conflicts_409),
            count(d.mismatches_422),
            count(d.keys_stored),
            count(d.keys_evicted),
            count(d.peak_keys),
            crate::units::bytes_si(u128::from(d.peak_bytes)),
            r.settings.record_bytes
        ),
    ]
}

/// The person who reruns what gave up, when the day has one.
pub fn reruns(s: &Settings) -> Option<String> {
    s.rerun_after_ms.map(|after| {
        format!(
            "A person reruns every order the checkout gave up on, {} after it gave up.",
            crate::units::duration_ms(after)
        )
    })
}

/// What a day drawn from a scenario that sets no traffic faults says it assumed.
pub fn assumed() -> String {
    format!(
        "{} of answers lost is assumed: the file sets no traffic faults (a [traffic] table would).",
        rate(ASSUMED_LOSE_REPLY)
    )
}

/// The figures of a week of keys against the duplicates' money, as [`week_of_keys`] says
/// them. Every count of keys held comes from the sweep of each key's life.
#[derive(Clone, Debug, PartialEq)]
pub struct WeekOfKeys {
    /// The most keys the design that keeps its key with the charge held at once, at the
    /// processor's own retention.
    pub peak_keys: u64,
    pub peak_bytes: u128,
    /// The most it would have held at once had every key it wrote been kept 7 days.
    pub week_peak_keys: u64,
    pub week_bytes: u128,
    pub keys_a_day: u64,
    /// Seven days at this period's rate, when the period is shorter than seven days (so the
    /// sweep above cannot show a full week).
    pub steady_week: Option<u128>,
    /// Orders the design that keeps its key with the charge charged more than once.
    pub keyed_duplicates: u64,
    /// The design that charged the most too much, and how much, when one did.
    pub worst: Option<(Design, i64, u64)>,
}

/// The retry seed's question, worked out: what seven days of keys would hold under the design
/// that keeps its key with the charge, against the most any design charged too much.
pub fn week_figures(r: &Report) -> Option<WeekOfKeys> {
    let s = &r.settings;
    let days = s.over_ms as f64 / crate::sim::time::DAY_MS as f64;
    let keyed = r.designs.iter().find(|d| d.design == Design::WithCharge)?;
    let per_day = (keyed.keys_stored as f64 / days.max(f64::MIN_POSITIVE)).round();
    let steady_week = (s.over_ms < super::tally::WEEK_MS).then_some((per_day * 7.0) as u128);
    let worst = r
        .designs
        .iter()
        .filter(|d| d.duplicate_orders > 0)
        .max_by_key(|d| d.duplicate_cents)
        .map(|d| (d.design, d.duplicate_cents, d.duplicate_charges));
    let size = u128::from(s.record_bytes);
    Some(WeekOfKeys {
        peak_keys: keyed.peak_keys,
        peak_bytes: u128::from(keyed.peak_keys) * size,
        week_peak_keys: keyed.week_peak_keys,
        week_bytes: u128::from(keyed.week_peak_keys) * size,
        keys_a_day: per_day as u64,
        steady_week,
        keyed_duplicates: keyed.duplicate_orders,
        worst,
    })
}

/// The week of keys in sentences, one a line: the store at the processor's own retention,
/// then the same keys kept a week, then the money that is set against them.
pub fn week_of_keys(r: &Report, retention_ms: u64) -> Vec<String> {
    let s = &r.settings;
    let mut out = Vec::new();
    let Some(w) = week_figures(r) else {
        return out;
    };
    let bytes = crate::units::bytes_si;
    out.push(format!(
        "Kept for {} as here, with-charge's keys peaked at {} held at once ({} at {} B each).",
        crate::units::duration_ms(retention_ms),
        count(w.peak_keys),
        bytes(w.peak_bytes),
        s.record_bytes
    ));
    let week = format!(
        "A week of keys: had each of these keys been kept 7 days from its write, the store would have held at most {} ({})",
        count(w.week_peak_keys),
        bytes(w.week_bytes),
    );
    out.push(match w.steady_week {
        Some(n) => format!(
            "{week}; at about {} keys a day, 7 such days hold {} ({}).",
            count(w.keys_a_day),
            crate::units::group_digits(n),
            bytes(n * u128::from(s.record_bytes))
        ),
        None => format!("{week}."),
    });
    out.push(format!(
        "with-charge charged {} orders more than once.",
        count(w.keyed_duplicates)
    ));
    match w.worst {
        Some((design, cents, charges)) => out.push(format!(
            "Against that: {} charged {} too much over this period ({} duplicate charges).",
            design.id(),
            Cents(cents),
            count(charges)
        )),
        None if !s.has_faults() => out.push(
            "No faults were drawn, so no design charged an order more than once: try --lose-reply 0.5%."
                .into(),
        ),
        None => out.push("No design charged an order more than once.".into()),
    }
    out
}
