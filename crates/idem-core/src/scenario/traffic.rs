//! A scenario's `[traffic]` table: the day of orders `idem traffic` runs the scenario's
//! checkout through, and the one reading of every traffic setting, shared by the file and
//! the command line so both accept and refuse the same words.

use crate::sim::time::DAY_MS;
use serde::{Deserialize, Serialize};

/// The most orders one run may simulate: ten times the figure the docs quote.
pub const MAX_ORDERS: u64 = 10_000_000;
/// The longest period orders may arrive over.
pub const MAX_PERIOD_MS: u64 = 31 * DAY_MS;
/// The largest stated size of one stored record.
pub const MAX_RECORD_BYTES: u64 = 1 << 30;
/// The most crashes an hour a run may ask for.
pub const MAX_CRASHES_PER_HOUR: f64 = 3_600.0;

/// How orders spread over the period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arrivals {
    /// The same rate all along.
    Steady,
    /// A shop's day: quiet at night, a midday rise and an evening peak.
    Daily,
}

impl Arrivals {
    pub fn id(self) -> &'static str {
        match self {
            Arrivals::Steady => "steady",
            Arrivals::Daily => "daily",
        }
    }
}

/// What an outage loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Loses {
    /// Every message either way: nothing reaches the processor and nothing comes back.
    All,
    /// Only the processor's answers: it keeps charging, and nobody hears back.
    Answers,
}

impl Loses {
    pub fn id(self) -> &'static str {
        match self {
            Loses::All => "all",
            Loses::Answers => "answers",
        }
    }
}

/// A stretch of the period in which the network between checkout and processor fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outage {
    /// From the start of the period (midnight of its first day), in milliseconds.
    pub start_ms: u64,
    pub len_ms: u64,
    pub loses: Loses,
}

impl Outage {
    pub fn end_ms(&self) -> u64 {
        self.start_ms.saturating_add(self.len_ms)
    }
    pub fn covers(&self, t: u64) -> bool {
        t >= self.start_ms && t < self.end_ms()
    }
}

/// The period when none is given: a day.
pub const DEFAULT_PERIOD_MS: u64 = crate::sim::time::DAY_MS;

/// The settings a `[traffic]` table or the command line may give; `None` is "not said".
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrafficPlan {
    pub orders: Option<u64>,
    pub over_ms: Option<u64>,
    pub arrivals: Option<Arrivals>,
    pub lose_reply: Option<f64>,
    pub lose_request: Option<f64>,
    pub slow: Option<f64>,
    pub crash_per_hour: Option<f64>,
    pub restart_after_ms: Option<u64>,
    pub outage: Option<(u64, u64)>,
    pub outage_loses: Option<Loses>,
    pub rerun_after_ms: Option<u64>,
    pub record_bytes: Option<u64>,
}

impl TrafficPlan {
    /// This plan with every setting `over` says put in place of this one's.
    pub fn overlaid(&self, over: &TrafficPlan) -> TrafficPlan {
        TrafficPlan {
            orders: over.orders.or(self.orders),
            over_ms: over.over_ms.or(self.over_ms),
            arrivals: over.arrivals.or(self.arrivals),
            lose_reply: over.lose_reply.or(self.lose_reply),
            lose_request: over.lose_request.or(self.lose_request),
            slow: over.slow.or(self.slow),
            crash_per_hour: over.crash_per_hour.or(self.crash_per_hour),
            restart_after_ms: over.restart_after_ms.or(self.restart_after_ms),
            outage: over.outage.or(self.outage),
            outage_loses: over.outage_loses.or(self.outage_loses),
            rerun_after_ms: over.rerun_after_ms.or(self.rerun_after_ms),
            record_bytes: over.record_bytes.or(self.record_bytes),
        }
    }

    /// What is wrong with the plan as a whole, each problem with the key it is about: the
    /// one validation `idem check` (at the value's `file:line:column`) and `idem traffic`
    /// (for the file and the command line together) both hold a plan to.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        let over_ms = self.over_ms.unwrap_or(DEFAULT_PERIOD_MS);
        if let Some((start, _)) = self.outage
            && start >= over_ms
        {
            out.push((
                "outage",
                format!(
                    "the outage starts at {}, after the period of {} ends",
                    crate::sim::ClockStyle::DayNumber.format(crate::sim::Instant(start)),
                    crate::units::duration_ms(over_ms)
                ),
            ));
        }
        if self.outage_loses.is_some() && self.outage.is_none() {
            out.push((
                "outage_loses",
                "`outage_loses` says what an outage loses, and no outage is given".into(),
            ));
        }
        let rates = [self.lose_reply, self.lose_request, self.slow]
            .iter()
            .map(|r| r.unwrap_or(0.0))
            .sum::<f64>();
        if rates > 1.0 {
            let key = [
                ("slow", self.slow),
                ("lose_request", self.lose_request),
                ("lose_reply", self.lose_reply),
            ]
            .into_iter()
            .find_map(|(k, r)| r.map(|_| k))
            .unwrap_or("lose_reply");
            out.push((
                key,
                format!(
                    "the rates of lost requests, lost answers and slow attempts add up to {:.1}%, more than every attempt",
                    rates * 100.0
                ),
            ));
        }
        out
    }
}

/// A share of messages: `0.5%`, `2 %` or a fraction such as `0.005`.
pub fn parse_rate(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let bad = || {
        format!(
            "`{}` is not a rate; expected a share such as \"0.5%\" or \"0.005\", from 0 to 100%",
            crate::text::shorten(&crate::text::sanitize_line(t), 40)
        )
    };
    let (number, scale) = match t.strip_suffix('%') {
        Some(n) => (n.trim(), 100.0),
        None => (t, 1.0),
    };
    let x: f64 = number.parse().map_err(|_| bad())?;
    let rate = x / scale;
    if !rate.is_finite() || !(0.0..=1.0).contains(&rate) {
        return Err(bad());
    }
    Ok(rate)
}

/// A rate of events in time, per hour: `2/h`, `30/d`, `1/m`, or `0`.
pub fn parse_per_hour(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let bad = || {
        format!(
            "`{}` is not a rate in time; expected a count per unit such as \"2/h\", \"10/d\" or \"1/m\"",
            crate::text::shorten(&crate::text::sanitize_line(t), 40)
        )
    };
    if t == "0" {
        return Ok(0.0);
    }
    let (n, unit) = t.split_once('/').ok_or_else(bad)?;
    let n: f64 = n.trim().parse().map_err(|_| bad())?;
    let hours = match unit.trim() {
        "s" => 1.0 / 3_600.0,
        "m" | "min" => 1.0 / 60.0,
        "h" => 1.0,
        "d" => 24.0,
        _ => return Err(bad()),
    };
    let per_hour = n / hours;
    if !per_hour.is_finite() || per_hour < 0.0 {
        return Err(bad());
    }
    if per_hour > MAX_CRASHES_PER_HOUR {
        return Err(format!(
            "`{t}` is more than one a second; a processor crashing that often is never up"
        ));
    }
    Ok(per_hour)
}

/// An outage window: `14:00+10m`, `day 2 09:30+1h` (a start on the period's clock, then how
/// long), as milliseconds from the period's start and a length.
pub fn parse_outage(text: &str) -> Result<(u64, u64), String> {
    let t = text.trim();
    let (start, len) = t.rsplit_once('+').ok_or_else(|| {
        format!(
            "`{}` is not an outage; expected a start and a length such as \"14:00+10m\"",
            crate::text::shorten(&crate::text::sanitize_line(t), 40)
        )
    })?;
    let clock = super::values::parse_clock(start)?;
    if clock.weekday.is_some() {
        return Err(
            "an outage starts at a time of day (\"14:00\") or on a day (\"day 2 14:00\"), not on a weekday"
                .into(),
        );
    }
    let len = super::values::parse_duration(len)?;
    if len == 0 {
        return Err("an outage must last longer than zero".into());
    }
    Ok((clock.ms_of_day, len))
}

pub fn parse_arrivals(text: &str) -> Result<Arrivals, String> {
    match text.trim() {
        "steady" => Ok(Arrivals::Steady),
        "daily" => Ok(Arrivals::Daily),
        other => Err(format!(
            "`{}` is not a way orders arrive; expected \"steady\" or \"daily\"",
            crate::text::shorten(&crate::text::sanitize_line(other), 40)
        )),
    }
}

pub fn parse_loses(text: &str) -> Result<Loses, String> {
    match text.trim() {
        "all" => Ok(Loses::All),
        "answers" => Ok(Loses::Answers),
        other => Err(format!(
            "`{}` is not what an outage loses; expected \"all\" or \"answers\"",
            crate::text::shorten(&crate::text::sanitize_line(other), 40)
        )),
    }
}

pub fn check_orders(n: u64) -> Result<u64, String> {
    if n == 0 || n > MAX_ORDERS {
        return Err(format!("orders must be from 1 to {MAX_ORDERS}, not {n}"));
    }
    Ok(n)
}

pub fn check_period(ms: u64) -> Result<u64, String> {
    if ms == 0 || ms > MAX_PERIOD_MS {
        return Err("the period must be longer than zero and at most 31 days".into());
    }
    Ok(ms)
}

pub fn check_record_bytes(n: u64) -> Result<u64, String> {
    if n == 0 || n > MAX_RECORD_BYTES {
        return Err(format!(
            "a stored record's size must be from 1 byte to {MAX_RECORD_BYTES} bytes"
        ));
    }
    Ok(n)
}

/// Reads one `[traffic]` value as text (`"0.5%"`) or, where a number is meant, a number.
fn text_of(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(n) => Some(n.to_string()),
        toml::Value::Float(x) => Some(super::values::plain_number(*x)),
        _ => None,
    }
}

/// The keys a `[traffic]` table may hold.
pub const KEYS: [&str; 12] = [
    "orders",
    "over",
    "arrivals",
    "lose_reply",
    "lose_request",
    "slow",
    "crash",
    "restart_after",
    "outage",
    "outage_loses",
    "rerun_after",
    "record_bytes",
];

/// The table read into a plan, each problem with the span of the value it is about.
pub fn read_table(
    table: &toml::Spanned<toml::Table>,
    source: &str,
) -> (TrafficPlan, Vec<(std::ops::Range<usize>, String)>) {
    let mut plan = TrafficPlan::default();
    let mut problems = Vec::new();
    let whole = table.span();
    for (key, value) in table.get_ref() {
        let known = KEYS.contains(&key.as_str());
        let span = find_span(source, &whole, key, !known);
        let Some(text) = text_of(value) else {
            problems.push((
                span,
                format!("`{key}` is written as a string, like \"0.5%\""),
            ));
            continue;
        };
        let result: Result<(), String> = (|| {
            match key.as_str() {
                "orders" => {
                    let n: u64 = text
                        .trim()
                        .parse()
                        .map_err(|_| format!("`orders` is a whole number, not `{text}`"))?;
                    plan.orders = Some(check_orders(n)?);
                }
                "over" => plan.over_ms = Some(check_period(super::values::parse_duration(&text)?)?),
                "arrivals" => plan.arrivals = Some(parse_arrivals(&text)?),
                "lose_reply" => plan.lose_reply = Some(parse_rate(&text)?),
                "lose_request" => plan.lose_request = Some(parse_rate(&text)?),
                "slow" => plan.slow = Some(parse_rate(&text)?),
                "crash" => plan.crash_per_hour = Some(parse_per_hour(&text)?),
                "restart_after" => {
                    plan.restart_after_ms = Some(super::values::parse_duration(&text)?)
                }
                "outage" => plan.outage = Some(parse_outage(&text)?),
                "outage_loses" => plan.outage_loses = Some(parse_loses(&text)?),
                "rerun_after" => plan.rerun_after_ms = Some(super::values::parse_duration(&text)?),
                "record_bytes" => {
                    let n: u64 = text
                        .trim()
                        .parse()
                        .map_err(|_| format!("`record_bytes` is a whole number, not `{text}`"))?;
                    plan.record_bytes = Some(check_record_bytes(n)?);
                }
                other => {
                    let hint = super::values::did_you_mean(other, KEYS)
                        .map(|k| format!("; did you mean `{k}`?"))
                        .unwrap_or_default();
                    return Err(format!(
                        "`{}` is not a traffic setting{hint} (expected one of {})",
                        crate::text::shorten(&crate::text::sanitize_line(other), 40),
                        KEYS.join(", ")
                    ));
                }
            }
            Ok(())
        })();
        if let Err(message) = result {
            problems.push((span, message));
        }
    }
    for (key, message) in plan.problems() {
        problems.push((value_span(source, &whole, key), message));
    }
    (plan, problems)
}

/// Where `key = …` sits in the table's text: its value, or with `key_only` the key itself;
/// the table's header when it cannot be found. The table's own span may cover only its
/// header, so the search runs on to the next table.
fn find_span(
    source: &str,
    within: &std::ops::Range<usize>,
    key: &str,
    key_only: bool,
) -> std::ops::Range<usize> {
    let text = source.get(within.start..).unwrap_or("");
    let mut at = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim_start();
        if n > 0 && trimmed.starts_with('[') {
            break;
        }
        if let Some(rest) = trimmed.strip_prefix(key)
            && let Some(value) = rest.trim_start().strip_prefix('=')
        {
            let key_start = within.start + at + (line.len() - trimmed.len());
            if key_only {
                return key_start..key_start + key.len();
            }
            let value = value.trim_start();
            let start = within.start + at + (line.len() - value.len());
            let len = value.trim_end().len().max(1);
            return start..start + len;
        }
        at += line.len();
    }
    within.clone()
}

fn value_span(source: &str, within: &std::ops::Range<usize>, key: &str) -> std::ops::Range<usize> {
    find_span(source, within, key, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_as_shares() {
        assert_eq!(parse_rate("0.5%"), Ok(0.005));
        assert_eq!(parse_rate("0.005"), Ok(0.005));
        assert_eq!(parse_rate("100%"), Ok(1.0));
        assert!(parse_rate("101%").is_err());
        assert!(parse_rate("-1%").is_err());
        assert!(parse_rate("NaN").is_err());
        assert!(parse_rate("half").is_err());
    }

    #[test]
    fn crash_rates_read_per_hour() {
        assert_eq!(parse_per_hour("2/h"), Ok(2.0));
        assert_eq!(parse_per_hour("48/d"), Ok(2.0));
        assert_eq!(parse_per_hour("1/m"), Ok(60.0));
        assert_eq!(parse_per_hour("0"), Ok(0.0));
        assert!(parse_per_hour("2").is_err());
        assert!(parse_per_hour("2/week").is_err());
        assert!(parse_per_hour("2/s").is_err(), "more than one a second");
    }

    #[test]
    fn outages_read_as_a_start_and_a_length() {
        assert_eq!(parse_outage("14:00+10m"), Ok((14 * 3_600_000, 600_000)));
        assert_eq!(
            parse_outage("day 2 09:30+1h"),
            Ok((DAY_MS + 9 * 3_600_000 + 30 * 60_000, 3_600_000))
        );
        assert!(parse_outage("14:00").is_err());
        assert!(parse_outage("14:00+0s").is_err());
        assert!(parse_outage("Fri 14:00+1h").is_err());
    }
}
