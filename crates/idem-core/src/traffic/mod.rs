//! A day of traffic: many orders through a scenario's checkout under every design, faults
//! drawn at stated rates, and what each design costs: duplicates and their money, the
//! dedupe store's hit rate and its live keys over the period.
//!
//! Each order is a copy of the scenario's first order as a purchase of its own: no key and
//! no request body is shared with another order, so orders never meet in the processor's
//! memory and each is simulated alone (see [`order`]). The
//! day adds them up in arrival order, keeping only the keys still live, so memory grows with
//! the store, not with the number of orders.

pub mod order;
mod tally;
pub mod words;

pub use tally::{Bucket, DesignReport};

use crate::scenario::Scenario;
use crate::scenario::traffic::{Arrivals, Loses, Outage, TrafficPlan};
use crate::sim::config::Rerun;
use crate::sim::{Design, SimConfig};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Orders a run simulates when neither the file nor the command line says.
pub const DEFAULT_ORDERS: u64 = 100_000;
/// The period when none is given: a day.
pub use crate::scenario::traffic::DEFAULT_PERIOD_MS;
/// How long a crashed processor stays down when nothing says.
pub const DEFAULT_RESTART_MS: u64 = 30_000;
/// The size of one stored key and its answer when nothing says.
pub const DEFAULT_RECORD_BYTES: u64 = 600;
/// The share of answers lost on a screen's day when the scenario's `[traffic]` sets no
/// fault: the figure the docs and the retry seed work with.
pub const ASSUMED_LOSE_REPLY: f64 = 0.005;

/// Everything one run of traffic needs, every default applied.
#[derive(Clone, Debug, Serialize)]
pub struct Settings {
    pub orders: u64,
    pub over_ms: u64,
    #[serde(serialize_with = "arrivals_id")]
    pub arrivals: Arrivals,
    pub lose_reply: f64,
    pub lose_request: f64,
    pub slow: f64,
    pub crash_per_hour: f64,
    pub restart_after_ms: u64,
    #[serde(serialize_with = "outage_json")]
    pub outage: Option<Outage>,
    pub rerun_after_ms: Option<u64>,
    pub record_bytes: u64,
    pub seed: u64,
}

fn arrivals_id<S: serde::Serializer>(a: &Arrivals, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(a.id())
}

fn outage_json<S: serde::Serializer>(o: &Option<Outage>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct O {
        start_ms: u64,
        len_ms: u64,
        loses: &'static str,
    }
    o.map(|o| O {
        start_ms: o.start_ms,
        len_ms: o.len_ms,
        loses: o.loses.id(),
    })
    .serialize(s)
}

impl Settings {
    /// The settings a plan gives (the file's `[traffic]` with the command line over it),
    /// seeded by the scenario's seed.
    pub fn from_plan(plan: &TrafficPlan, seed: u64) -> Result<Settings, String> {
        let over_ms = plan.over_ms.unwrap_or(DEFAULT_PERIOD_MS);
        let outage = plan.outage.map(|(start_ms, len_ms)| Outage {
            start_ms,
            len_ms,
            loses: plan.outage_loses.unwrap_or(Loses::All),
        });
        if let Some((_, message)) = plan.problems().into_iter().next() {
            return Err(message);
        }
        Ok(Settings {
            orders: plan.orders.unwrap_or(DEFAULT_ORDERS),
            over_ms,
            arrivals: plan.arrivals.unwrap_or(Arrivals::Steady),
            lose_reply: plan.lose_reply.unwrap_or(0.0),
            lose_request: plan.lose_request.unwrap_or(0.0),
            slow: plan.slow.unwrap_or(0.0),
            crash_per_hour: plan.crash_per_hour.unwrap_or(0.0),
            restart_after_ms: plan.restart_after_ms.unwrap_or(DEFAULT_RESTART_MS),
            outage,
            rerun_after_ms: plan.rerun_after_ms,
            record_bytes: plan.record_bytes.unwrap_or(DEFAULT_RECORD_BYTES),
            seed,
        })
    }

    /// The settings a scenario's own `[traffic]` gives, with answers lost at
    /// [`ASSUMED_LOSE_REPLY`] when it sets no fault at all, and whether that was assumed: a
    /// day where nothing goes wrong shows nothing. The replay's traffic screen runs these.
    pub fn of_scenario_or_assumed(scenario: &Scenario) -> Result<(Settings, bool), String> {
        let mut settings = Settings::from_plan(&scenario.traffic, scenario.config.seed)?;
        if settings.has_faults() {
            return Ok((settings, false));
        }
        settings.lose_reply = ASSUMED_LOSE_REPLY;
        Ok((settings, true))
    }

    /// Whether anything can go wrong at all.
    pub fn has_faults(&self) -> bool {
        self.lose_reply + self.lose_request + self.slow > 0.0
            || self.crash_per_hour > 0.0
            || self.outage.is_some()
    }
}

/// The checkout one order of the day runs through: the scenario's first order alone, its
/// own faults and people taken out (the day draws its own), a rerun by a person if the day
/// has one. A `[reconcile]` job runs as long after each order as the file's runs after its
/// order.
pub fn order_config(scenario: &Scenario, settings: &Settings) -> Result<SimConfig, String> {
    let mut cfg = scenario.config.clone();
    if cfg.intents.is_empty() {
        return Err("the scenario has no order to copy".into());
    }
    cfg.intents.truncate(1);
    cfg.faults.clear();
    cfg.steps.iter_mut().for_each(|s| s.faults.clear());
    cfg.reruns = settings
        .rerun_after_ms
        .map(|after_ms| Rerun {
            name: "rerun of what failed".into(),
            after_ms,
            intent: None,
        })
        .into_iter()
        .collect();
    Ok(cfg)
}

/// Attempts one order may send: every layer's budget, once per run a person makes.
pub fn attempts_per_order(cfg: &SimConfig) -> u32 {
    let runs = 1 + cfg.reruns.len() as u64;
    u32::try_from(cfg.attempts_per_run().saturating_mul(runs))
        .unwrap_or(u32::MAX)
        .min(MAX_DRAWN_ATTEMPTS)
}

/// Faults are drawn for at most this many attempts of one order.
const MAX_DRAWN_ATTEMPTS: u32 = 4_096;

/// When each order arrives, from the period's start, in order.
pub struct Clock {
    n: u64,
    over_ms: u64,
    seed: u64,
    /// For a daily curve: the share of orders by the end of each minute of the period.
    cumulative: Vec<f64>,
}

/// A shop's day, minute by minute: a quiet night, a midday rise and an evening peak.
fn daily_weight(minute_of_day: u64) -> f64 {
    let h = minute_of_day as f64 / 60.0;
    let bump = |centre: f64, width: f64| (-((h - centre) / width).powi(2) / 2.0).exp();
    0.15 + 0.8 * bump(12.5, 2.5) + 1.0 * bump(20.0, 2.0)
}

impl Clock {
    pub fn new(settings: &Settings) -> Clock {
        let cumulative = match settings.arrivals {
            Arrivals::Steady => Vec::new(),
            Arrivals::Daily => {
                let minutes = settings.over_ms.div_ceil(60_000).max(1);
                let mut sum = 0.0;
                let mut out = Vec::with_capacity(minutes as usize);
                for m in 0..minutes {
                    // The last minute may be cut short by the period's end.
                    let len = (settings.over_ms - m * 60_000).min(60_000) as f64 / 60_000.0;
                    sum += daily_weight(m % 1_440) * len;
                    out.push(sum);
                }
                out.iter_mut().for_each(|c| *c /= sum);
                out
            }
        };
        Clock {
            n: settings.orders,
            over_ms: settings.over_ms,
            seed: settings.seed,
            cumulative,
        }
    }

    /// When order `i` arrives: its share of the period, `(i + u) / n` for a draw `u` of its
    /// own, read through the day's curve. Orders come out in order.
    pub fn at(&self, i: u64) -> u64 {
        let u = (order::mix(self.seed ^ 0x5EED ^ order::mix(i)) >> 11) as f64 / (1u64 << 53) as f64;
        let share = (i as f64 + u) / self.n as f64;
        if self.cumulative.is_empty() {
            return ((share * self.over_ms as f64) as u64).min(self.over_ms.saturating_sub(1));
        }
        let m = self.cumulative.partition_point(|&c| c < share);
        let before = if m == 0 { 0.0 } else { self.cumulative[m - 1] };
        let here = self.cumulative.get(m).copied().unwrap_or(1.0);
        let within = if here > before {
            (share - before) / (here - before)
        } else {
            0.0
        };
        let t = (m as f64 + within) * 60_000.0;
        (t as u64).min(self.over_ms.saturating_sub(1))
    }
}

/// The processor's crashes over the period: a Poisson process at the stated rate, from the
/// seed.
pub fn crash_times(settings: &Settings) -> Vec<u64> {
    if settings.crash_per_hour <= 0.0 {
        return Vec::new();
    }
    let mut rng = fastrand::Rng::with_seed(order::mix(settings.seed ^ 0xC4A5));
    let mean_gap_ms = 3_600_000.0 / settings.crash_per_hour;
    let mut out = Vec::new();
    let mut t = 0.0;
    loop {
        // 1 - u is in (0, 1], so its logarithm is finite.
        t += -(1.0 - rng.f64()).ln() * mean_gap_ms;
        if t >= settings.over_ms as f64 {
            return out;
        }
        out.push(t as u64);
    }
}

/// A run of traffic: each design's figures, and whether it was stopped early.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub settings: Settings,
    /// The amount of one order.
    pub amount_cents: i64,
    /// How long one bucket of the series lasts.
    pub bucket_ms: u64,
    pub crashes: Vec<u64>,
    /// Stopped before every order was simulated: each design's figures count the orders
    /// it got through.
    pub partial: bool,
    pub designs: Vec<DesignReport>,
}

/// Watches a run from another thread: how far it has got, and a way to stop it.
#[derive(Debug, Default)]
pub struct Progress {
    /// Orders simulated, summed over the designs.
    pub done: AtomicU64,
    pub stop: std::sync::Arc<AtomicBool>,
}

impl Progress {
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// How long one bucket of the series lasts: an hour, or longer when the whole run (the
/// period, the keys' retention and any rerun) would need more than `MAX_BUCKETS` of them.
fn bucket_ms(settings: &Settings, cfg: &SimConfig) -> u64 {
    let span = settings
        .over_ms
        .saturating_add(cfg.retention_ms)
        .saturating_add(settings.rerun_after_ms.unwrap_or(0))
        .saturating_add(crate::sim::time::DAY_MS);
    let hour = 3_600_000u64;
    let hours = span.div_ceil(hour);
    hour * hours.div_ceil(tally::MAX_BUCKETS as u64).max(1)
}

/// Runs the day under each of `designs` on up to `threads` threads. The same settings give
/// the same figures however many threads run them: each order draws from its own seed.
pub fn run(
    scenario: &Scenario,
    settings: &Settings,
    designs: &[Design],
    threads: usize,
    progress: &Progress,
) -> Result<Report, String> {
    let cfg = order_config(scenario, settings)?;
    let crashes = crash_times(settings);
    let bucket = bucket_ms(settings, &cfg);
    let next = AtomicU64::new(0);
    let threads = threads.clamp(1, designs.len().max(1));
    let mut results: Vec<Option<Result<DesignReport, String>>> = vec![None; designs.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let d = next.fetch_add(1, Ordering::Relaxed) as usize;
                        let Some(&design) = designs.get(d) else {
                            return mine;
                        };
                        let r =
                            tally::run_design(&cfg, settings, design, &crashes, bucket, progress);
                        mine.push((d, r));
                    }
                })
            })
            .collect();
        for w in workers {
            match w.join() {
                Ok(done) => {
                    for (d, r) in done {
                        results[d] = Some(r);
                    }
                }
                Err(_) => {
                    // A worker that panicked leaves its designs unfilled, reported below.
                }
            }
        }
    });
    let mut out = Vec::with_capacity(designs.len());
    for (d, r) in results.into_iter().enumerate() {
        match r {
            Some(Ok(report)) => out.push(report),
            Some(Err(e)) => return Err(e),
            None => return Err(format!("the run of {} did not finish", designs[d].id())),
        }
    }
    let partial = out.iter().any(|d| d.orders < settings.orders);
    Ok(Report {
        scenario: scenario.name.clone(),
        settings: settings.clone(),
        amount_cents: cfg.intents.first().map_or(0, |i| i.amount.0),
        bucket_ms: bucket,
        crashes,
        partial,
        designs: out,
    })
}

/// One order of the day as the traffic path saw it: when it came, the faults it ran with,
/// and what came of it.
#[derive(Clone, Debug)]
pub struct OrderCase {
    pub index: u64,
    pub start_ms: u64,
    pub faults: Vec<crate::sim::config::Fault>,
    pub charges: u32,
    pub verdict: crate::sim::Verdict,
    pub belief: crate::sim::Belief,
}

/// Order `index` of the day under `design`, worked out as [`run`] works out every order.
pub fn order_case(
    scenario: &Scenario,
    settings: &Settings,
    design: Design,
    index: u64,
) -> Result<OrderCase, String> {
    if index >= settings.orders {
        return Err(format!(
            "the day has {} orders, numbered from 0; there is no order {index}",
            settings.orders
        ));
    }
    let cfg = order_config(scenario, settings)?;
    let crashes = crash_times(settings);
    let day = order::Disruptions {
        crashes: &crashes,
        restart_after_ms: settings.restart_after_ms,
        outage: settings.outage,
    };
    let attempts = attempts_per_order(&cfg);
    let start = Clock::new(settings).at(index);
    let mut memo = order::Memo::new(cfg.clone(), settings, design);
    let mut draw = order::Draw::new(settings, index, attempts);
    let summary = order::run_order(&mut memo, &day, start, &mut draw).map_err(|e| e.to_string())?;
    // Faults drawn for attempts the order never sent never acted: only the rest are its own.
    let acted: order::Pattern = draw
        .pattern
        .iter()
        .copied()
        .filter(|&(a, _)| a <= summary.sent_upto)
        .collect();
    Ok(OrderCase {
        index,
        start_ms: start,
        faults: order::faults_of(&acted, settings, &cfg),
        charges: summary.charges,
        verdict: summary.verdict,
        belief: summary.belief,
    })
}

/// One order of the day as a scenario file the replay and `idem run` tell tick by tick: the
/// scenario with its first order alone, its own faults, people, questions and expectations
/// taken out, a rerun by a person if the day has one, and the faults the order ran with.
pub fn order_scenario_toml(
    scenario: &Scenario,
    settings: &Settings,
    design: Design,
    case: &OrderCase,
) -> Result<String, String> {
    use toml_edit::Item;
    let mut doc = crate::scenario::fork_toml::editable(&scenario.text)?;
    for key in ["human", "expect", "quiz", "note", "fault", "traffic"] {
        doc.remove(key);
    }
    if let Some(Item::ArrayOfTables(intents)) = doc.get_mut("intent") {
        while intents.len() > 1 {
            intents.remove(intents.len() - 1);
        }
    }
    if let Some(Item::ArrayOfTables(steps)) = doc.get_mut("step") {
        for step in steps.iter_mut() {
            step.remove("fault");
        }
    }
    if let Some(after) = settings.rerun_after_ms {
        let mut human = toml_edit::Table::new();
        human.insert("name", toml_edit::value("rerun of what failed"));
        human.insert("after", toml_edit::value(format!("{after}ms")));
        let mut people = toml_edit::ArrayOfTables::new();
        people.push(human);
        doc.insert("human", Item::ArrayOfTables(people));
    }
    let mut base = scenario.clone();
    base.text = doc.to_string();
    base.config = order_config(scenario, settings)?;
    base.expectations.clear();
    base.quizzes.clear();
    base.notes.clear();
    let description = format!(
        "Order {} of a day of traffic through {} ({}), paid {} into the period, with the faults it drew and the day put on it.",
        case.index,
        crate::text::sanitize_line(&scenario.title),
        scenario.name,
        crate::units::duration_ms(case.start_ms)
    );
    crate::scenario::fork_toml::faults_toml(
        &base,
        false,
        &case.faults,
        design,
        &description,
        "Faults this order of the day ran with",
    )
}
