//! The fault-space explorer: every plan of up to K faults over a scenario's own attempts, run
//! under each design, counted by verdict, with the shortest plan that reaches each verdict.
//!
//! What it proves is bounded by what it enumerates: the fault kinds below, on the attempts the
//! runs actually send, under the model's assumptions (one processor, a network that only loses,
//! delays or copies messages, clocks that never drift). Nothing beyond them.
//!
//! How plans are pruned: a plan is grown one fault at a time, and a fault is only added on an
//! attempt that the run of the smaller plan sends (a fault on an attempt that never happens
//! cannot change the run, so that plan is the smaller one, counted once), and only in order
//! (by order, attempt, then kind), so the same set of faults is never counted twice in
//! another order. A plan whose run passes a planned crash without reaching it (a crash after
//! the key under a design that writes none) is the smaller plan too, and is not counted.

use crate::scenario::Scenario;
use crate::sim::config::{CrashPoint, Direction, FailPoint, Fault, FaultAction};
use crate::sim::{Design, SimConfig, Verdict};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How long a crashed processor stays down when the scenario does not say.
const DEFAULT_RESTART_MS: u64 = 2_000;
/// How much later than the timeout a delayed or slowed message comes.
const PAST_TIMEOUT_MS: u64 = 15_000;
/// The most attempts of one intent the search puts faults on.
const MAX_ATTEMPTS: u32 = 12;

/// What to search.
#[derive(Clone, Debug, Default)]
pub struct Search {
    /// The most faults in one plan.
    pub faults_max: usize,
    /// Search on top of the scenario's own faults, rather than from a scenario without them.
    pub keep_faults: bool,
    pub designs: Vec<Design>,
    /// Counts the plans run so far, for a progress display, when given.
    pub progress: Option<Arc<AtomicUsize>>,
    /// Stops the search when set (Ctrl-C): the counts so far are kept, marked partial.
    pub stop: Option<Arc<AtomicBool>>,
    /// The most plans tried for one design, when bounded: the search stops there, marked
    /// partial, and never holds more plans waiting than that.
    pub max_plans: Option<usize>,
}

/// The results for one design.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesignResult {
    pub design: Design,
    /// Plans ending in each verdict (every verdict present, zero included).
    pub verdicts: BTreeMap<Verdict, usize>,
    pub max_charges: usize,
    /// For each verdict other than `correct`, the shortest plan that reaches it: fewest faults,
    /// then the earliest in the search's order.
    pub counterexamples: Vec<(Verdict, Vec<Fault>)>,
    /// Plans run, this design.
    pub plans: usize,
    /// The search was stopped before every plan was run.
    pub partial: bool,
}

/// The whole search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exploration {
    pub faults_max: usize,
    pub keep_faults: bool,
    pub designs: Vec<DesignResult>,
}

impl Exploration {
    /// Whether the search was stopped before it ran every plan.
    pub fn partial(&self) -> bool {
        self.designs.iter().any(|d| d.partial)
    }
}

impl Exploration {
    /// Plans run over every design.
    pub fn plans(&self) -> usize {
        self.designs.iter().map(|d| d.plans).sum()
    }
}

/// The fault kinds the search tries on one attempt.
pub fn kinds(cfg: &SimConfig, restart_ms: u64) -> Vec<FaultAction> {
    let late = cfg.timeout_ms.saturating_add(PAST_TIMEOUT_MS);
    let mut out = vec![
        FaultAction::Lose {
            direction: Direction::Request,
        },
        FaultAction::Lose {
            direction: Direction::Reply,
        },
        FaultAction::Delay {
            direction: Direction::Request,
            by_ms: late,
        },
        FaultAction::Delay {
            direction: Direction::Reply,
            by_ms: late,
        },
        FaultAction::Duplicate {
            direction: Direction::Request,
            gap_ms: 10,
        },
    ];
    out.extend(CrashPoint::ALL.map(|after| FaultAction::Crash {
        after,
        restart_after_ms: restart_ms,
    }));
    out.push(FaultAction::Slow {
        processing_ms: late,
    });
    out.extend(FailPoint::ALL.map(|after| FaultAction::Fail { after }));
    out
}

/// What a search would cost before it runs, from one run of the scenario as it stands: the
/// places a fault can go (every attempt each order sends, each kind), the plans of up to
/// `faults_max` faults among them, and the ticks of that run. The plans counted are those
/// of the places the plain run opens; faults open a few more (a lost answer lets a retry be
/// sent), so the search may run somewhat more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    pub places: usize,
    pub plans: u128,
    pub ticks: usize,
}

impl Estimate {
    /// Plans times ticks: what the search costs each design.
    pub fn work(&self) -> u128 {
        self.plans.saturating_mul(self.ticks.max(1) as u128)
    }
}

/// How much one design's search may cost, in plans times ticks: about a second of the
/// engine's time.
pub const MAX_WORK: u128 = 1_000_000;

/// The estimate of a search of up to `faults_max` faults on `scenario`, under its design.
pub fn estimate(scenario: &Scenario, faults_max: usize) -> Result<Estimate, String> {
    let mut base = scenario.config.clone();
    base.faults.clear();
    let trace = crate::sim::simulate(&base, scenario.design).map_err(|e| e.to_string())?;
    let kinds = kinds(&base, DEFAULT_RESTART_MS).len();
    let places: usize = attempts_sent(&trace, base.intents.len())
        .iter()
        .map(|&a| a.min(MAX_ATTEMPTS) as usize * kinds)
        .sum();
    // Plans of 0 to k faults, each at a later place than the one before.
    let mut plans: u128 = 0;
    let mut choose: u128 = 1;
    for j in 0..=faults_max {
        if j > 0 {
            choose = choose.saturating_mul((places + 1 - j.min(places + 1)) as u128) / j as u128;
        }
        plans = plans.saturating_add(choose);
    }
    Ok(Estimate {
        places,
        plans,
        ticks: trace.ticks.len(),
    })
}

/// Runs the search: each design on a thread of its own (results do not depend on the order
/// the threads finish in).
pub fn explore(scenario: &Scenario, search: &Search) -> Result<Exploration, String> {
    let mut base = scenario.config.clone();
    let kept: Vec<Fault> = if search.keep_faults {
        base.faults.clone()
    } else {
        Vec::new()
    };
    base.faults.clear();
    let restart_ms = scenario
        .config
        .faults
        .iter()
        .find_map(|f| match f.action {
            FaultAction::Crash {
                restart_after_ms, ..
            } => Some(restart_after_ms),
            _ => None,
        })
        .unwrap_or(DEFAULT_RESTART_MS);
    let kinds = kinds(&base, restart_ms);
    let results: Vec<Result<DesignResult, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = search
            .designs
            .iter()
            .map(|&design| {
                let (base, kept, kinds) = (&base, &kept, &kinds);
                scope.spawn(move || search_design(base, kept, kinds, design, search))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a search thread failed".to_string()))
            })
            .collect()
    });
    Ok(Exploration {
        faults_max: search.faults_max,
        keep_faults: search.keep_faults,
        designs: results.into_iter().collect::<Result<_, _>>()?,
    })
}

/// One fault's place in the search's order: order, attempt, kind.
type Slot = (usize, u32, usize);

fn search_design(
    base: &SimConfig,
    kept: &[Fault],
    kinds: &[FaultAction],
    design: Design,
    search: &Search,
) -> Result<DesignResult, String> {
    let faults_max = search.faults_max;
    let mut result = DesignResult {
        design,
        verdicts: Verdict::ALL.iter().map(|v| (*v, 0)).collect(),
        max_charges: 0,
        counterexamples: Vec::new(),
        plans: 0,
        partial: false,
    };
    let mut cfg = base.clone();
    let mut base_missed: Option<usize> = None;
    // Breadth first: every plan of k faults before any of k + 1, each in the search's order,
    // so the first plan found for a verdict is its shortest and earliest.
    let mut level: Vec<Vec<Slot>> = vec![Vec::new()];
    let mut tried = 0usize;
    // Plans waiting for the next level beyond what the bound lets run would only take memory.
    let room = search.max_plans.unwrap_or(usize::MAX);
    for size in 0..=faults_max {
        let mut next = Vec::new();
        for plan in &level {
            if search
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
                || search.max_plans.is_some_and(|m| tried >= m)
            {
                result.partial = true;
                result.counterexamples.sort_by_key(|(v, _)| *v);
                return Ok(result);
            }
            if let Some(p) = &search.progress {
                p.fetch_add(1, Ordering::Relaxed);
            }
            tried += 1;
            cfg.faults = kept.to_vec();
            cfg.faults.extend(plan.iter().map(|&s| fault(s, kinds)));
            let trace = crate::sim::simulate(&cfg, design).map_err(|e| e.to_string())?;
            // A planned crash the run never reached changes nothing: this is a smaller plan,
            // already counted. (The scenario's own faults, when kept, may miss theirs.)
            let missed: usize = trace.ticks.iter().map(|t| t.missed.len()).sum();
            let missed_before = *base_missed.get_or_insert(missed);
            if missed > missed_before {
                continue;
            }
            let o = &trace.outcome;
            result.plans += 1;
            *result.verdicts.entry(o.verdict).or_default() += 1;
            result.max_charges = result.max_charges.max(o.charges);
            if o.verdict != Verdict::Correct
                && !result.counterexamples.iter().any(|(v, _)| *v == o.verdict)
            {
                let faults = plan.iter().map(|&s| fault(s, kinds)).collect();
                result.counterexamples.push((o.verdict, faults));
            }
            if size == faults_max {
                continue;
            }
            // The attempts this run sent, per order: only they can take another fault.
            let sent = attempts_sent(&trace, base.intents.len());
            let after = plan.last().copied();
            for (intent, &attempts) in sent.iter().enumerate() {
                for attempt in 1..=attempts.min(MAX_ATTEMPTS) {
                    for kind in 0..kinds.len() {
                        let slot = (intent, attempt, kind);
                        if after.is_none_or(|a| slot > a) {
                            if next.len() >= room {
                                result.partial = true;
                                continue;
                            }
                            let mut grown = plan.clone();
                            grown.push(slot);
                            next.push(grown);
                        }
                    }
                }
            }
        }
        level = next;
    }
    result.counterexamples.sort_by_key(|(v, _)| *v);
    Ok(result)
}

fn fault((intent, attempt, kind): Slot, kinds: &[FaultAction]) -> Fault {
    Fault {
        intent,
        attempt,
        action: kinds[kind],
    }
}

/// How many attempts of each intent a run sent (copies the network made not counted).
fn attempts_sent(trace: &crate::sim::Trace, intents: usize) -> Vec<u32> {
    let mut sent = vec![0u32; intents];
    for r in &trace.requests {
        if r.copy == 0
            && let Some(n) = sent.get_mut(r.intent)
        {
            *n = (*n).max(r.attempt);
        }
    }
    sent
}
