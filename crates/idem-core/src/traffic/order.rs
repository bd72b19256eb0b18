//! One order of a day of traffic: the faults it draws, the faults the day's crashes and
//! outage put on it, and what the engine makes of them.
//!
//! Orders do not share keys, so each is simulated alone, from the scenario's own checkout,
//! with its faults. Runs with the same faults come out the same, so each distinct set of
//! faults is simulated once per design and remembered ([`Memo`]).

use super::Settings;
use crate::scenario::traffic::Loses;
use crate::sim::config::{CrashPoint, Direction, Fault, FaultAction, SimConfig};
use crate::sim::state::Counters;
use crate::sim::{Actor, Belief, Design, SimError, TickKind, Verdict};
use std::collections::HashMap;
use std::rc::Rc;

/// A fault on one attempt, as small as a memo key can be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Act {
    LoseRequest,
    LoseReply,
    Slow,
    Crash(CrashPoint),
}

/// Faults by attempt number, in attempt order, at most one per attempt.
pub type Pattern = Vec<(u32, Act)>;

fn set(pattern: &mut Pattern, attempt: u32, act: Act) {
    match pattern.binary_search_by_key(&attempt, |(a, _)| *a) {
        Ok(i) => pattern[i].1 = act,
        Err(i) => pattern.insert(i, (attempt, act)),
    }
}

fn has(pattern: &Pattern, attempt: u32, act: Act) -> bool {
    pattern
        .binary_search_by_key(&attempt, |(a, _)| *a)
        .is_ok_and(|i| pattern[i].1 == act)
}

/// The engine's faults for a pattern, on the scenario's one order.
pub fn faults_of(pattern: &Pattern, settings: &Settings, cfg: &SimConfig) -> Vec<Fault> {
    pattern
        .iter()
        .map(|&(attempt, act)| Fault {
            intent: 0,
            attempt,
            action: match act {
                Act::LoseRequest => FaultAction::Lose {
                    direction: Direction::Request,
                },
                Act::LoseReply => FaultAction::Lose {
                    direction: Direction::Reply,
                },
                Act::Slow => FaultAction::Slow {
                    processing_ms: slow_ms(cfg),
                },
                Act::Crash(after) => FaultAction::Crash {
                    after,
                    restart_after_ms: settings.restart_after_ms,
                },
            },
        })
        .collect()
}

/// How long a slow attempt keeps the processor busy: twice the checkout's wait, so the
/// checkout always gives up on it first.
pub fn slow_ms(cfg: &SimConfig) -> u64 {
    cfg.timeout_ms
        .saturating_mul(2)
        .max(cfg.processing_ms.saturating_add(1))
}

/// When one attempt's messages moved, from the order's Pay, in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct AttemptTimes {
    pub attempt: u32,
    pub sent: Option<u64>,
    /// When it reached the processor, and whether the processor was down then.
    pub arrived: Option<(u64, bool)>,
    /// When the processor's answer left it.
    pub answered: Option<u64>,
    /// The processor's durable steps on it, in time order.
    pub steps: Vec<(u64, CrashPoint)>,
}

/// Something that changed the day's figures, from the order's Pay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Attempt,
    Received,
    Hit,
    Conflict,
    Mismatch,
}

/// A change to the processor's store that one order's story makes, from the order's Pay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyChange {
    /// An entry is written: a key record, a key log line, a body hash or a record.
    Stored,
    /// An entry leaves the store: its retention or expiry runs out, a crash loses it, an
    /// error deletes it or a new entry takes its place. Entries still held when the story
    /// ends leave at their expiry, however long after the story that is.
    Evicted,
}

/// What one order came to under one design.
#[derive(Clone, Debug)]
pub struct Summary {
    pub charges: u32,
    pub charged_cents: i64,
    pub verdict: Verdict,
    pub belief: Belief,
    pub refunds: u32,
    pub refunded_cents: i64,
    pub marked_paid: bool,
    pub alert: bool,
    pub reruns: u32,
    pub counters: Counters,
    pub marks: Vec<(u64, Mark)>,
    /// Every entry the order's story puts in the store and takes out, in time order, with
    /// an eviction at its expiry for each entry the story ends holding. An entry that has no
    /// expiry when the story ends has no eviction: it is held for good.
    pub keys: Vec<(u64, KeyChange)>,
    pub attempts: Vec<AttemptTimes>,
    /// Which run of the memo this is, unique within a design's day.
    pub id: u64,
    /// The highest attempt number the order sent: faults drawn for later attempts never
    /// act, so runs whose faults agree up to here come out the same.
    pub sent_upto: u32,
}

/// The engine's run of `cfg` (one order, its faults set) boiled down to what the day adds up.
pub fn summarise(cfg: &SimConfig, design: Design) -> Result<Summary, SimError> {
    let trace = crate::sim::simulate(cfg, design)?;
    let pay = cfg.intents.first().map_or(0, |i| i.at.0);
    let off = |t: crate::sim::Instant| t.0.saturating_sub(pay);
    let mut marks = Vec::new();
    let mut keys = Vec::new();
    let mut prev = Counters::default();
    let mut attempts: Vec<AttemptTimes> = Vec::new();
    let mut reruns = 0;
    for tick in &trace.ticks {
        let now = &tick.state.counters;
        let at = off(tick.at);
        let deltas = [
            (now.attempts_sent, prev.attempts_sent, Mark::Attempt),
            (
                now.requests_received,
                prev.requests_received,
                Mark::Received,
            ),
            (now.dedupe_hits, prev.dedupe_hits, Mark::Hit),
            (now.conflicts_409, prev.conflicts_409, Mark::Conflict),
            (now.mismatches_422, prev.mismatches_422, Mark::Mismatch),
        ];
        for (n, p, mark) in deltas {
            for _ in p..n {
                marks.push((at, mark));
            }
        }
        for _ in prev.keys_stored..now.keys_stored {
            keys.push((at, KeyChange::Stored));
        }
        for _ in prev.keys_evicted..now.keys_evicted {
            keys.push((at, KeyChange::Evicted));
        }
        prev = *now;
        if tick.kind == TickKind::Rerun {
            reruns += 1;
        }
        let Some(attempt) = tick.attempt else {
            continue;
        };
        let entry = match attempts.iter_mut().find(|a| a.attempt == attempt) {
            Some(e) => e,
            None => {
                attempts.push(AttemptTimes {
                    attempt,
                    ..AttemptTimes::default()
                });
                attempts.last_mut().expect("just pushed")
            }
        };
        match (tick.actor, tick.kind) {
            (Actor::Checkout, TickKind::Send) => {
                entry.sent.get_or_insert(at);
            }
            (_, TickKind::Receive) => {
                entry.arrived.get_or_insert((at, false));
                entry.steps.push((at, CrashPoint::Receive));
            }
            (_, TickKind::Unanswered) => {
                entry.arrived.get_or_insert((at, true));
            }
            (_, TickKind::KeyWrite) => entry.steps.push((at, CrashPoint::Key)),
            (_, TickKind::Charge) => entry.steps.push((at, CrashPoint::Charge)),
            (
                Actor::Processor,
                TickKind::Reply
                | TickKind::Replay
                | TickKind::Conflict
                | TickKind::Mismatch
                | TickKind::Reject
                | TickKind::Decline,
            ) => {
                entry.answered.get_or_insert(at);
            }
            _ => {}
        }
    }
    attempts.sort_by_key(|a| a.attempt);
    // The story is over once nothing but expiries is left to happen: what it still holds
    // leaves the store when each entry's expiry comes.
    if let Some(last) = trace.ticks.last() {
        keys.extend(
            last.state
                .memory
                .iter()
                .filter_map(|e| e.expires_at)
                .map(|t| (off(t), KeyChange::Evicted)),
        );
    }
    // Stable, so a key stored and evicted at one moment keeps its order.
    keys.sort_by_key(|&(t, _)| t);
    let intent = trace.outcome.intents.first();
    let reconcile = intent.and_then(|i| i.reconcile.as_ref());
    Ok(Summary {
        charges: intent.map_or(0, |i| i.charges as u32),
        charged_cents: intent.map_or(0, |i| i.charged_cents.0),
        verdict: intent.map_or(Verdict::Correct, |i| i.verdict),
        belief: intent.map_or(Belief::Unknown, |i| i.client_view),
        refunds: reconcile.map_or(0, |r| r.refunds as u32),
        refunded_cents: reconcile.map_or(0, |r| r.refunded_cents.0),
        marked_paid: reconcile.is_some_and(|r| r.marked_paid),
        alert: reconcile.is_some_and(|r| r.alert),
        reruns,
        counters: trace.outcome.counters,
        marks,
        keys,
        sent_upto: attempts
            .iter()
            .filter(|a| a.sent.is_some())
            .map(|a| a.attempt)
            .max()
            .unwrap_or(0)
            .max(trace.outcome.counters.attempts_sent),
        attempts,
        id: 0,
    })
}

/// The runs one design has made, by the faults they were made with. A run that sent
/// attempts 1 to n is kept under its faults on those attempts alone (faults on later ones
/// never acted), so an order is answered from the memo whenever its faults agree with a
/// run's up to that run's last attempt, however many attempts its layers allow: what is
/// kept grows with the distinct fault patterns that acted, not with the attempts drawn.
pub struct Memo<'a> {
    cfg: SimConfig,
    settings: &'a Settings,
    design: Design,
    /// By the last attempt sent, then by the faults up to it.
    runs: HashMap<u32, HashMap<Pattern, Rc<Summary>>>,
    /// The last attempts sent that the memo holds runs for, ascending.
    depths: Vec<u32>,
    kept: usize,
    plain: Option<Rc<Summary>>,
    /// How many runs the engine made: what a test reads to see that the memo works.
    pub simulated: u64,
}

/// A memo holds at most this many runs; past it, it starts again.
const MAX_MEMO: usize = 200_000;

/// One order's faults, drawn attempt by attempt from its own seed as far as they are needed:
/// up to the last attempt any run of the memo sent, and all of them only for a run the memo
/// has not seen.
pub struct Draw {
    rng: fastrand::Rng,
    pub pattern: Pattern,
    /// Attempts drawn so far.
    upto: u32,
    attempts: u32,
}

impl Draw {
    /// Order `i`'s draw, nothing drawn yet, for an order that may send `attempts`.
    pub fn new(settings: &Settings, i: u64, attempts: u32) -> Draw {
        Draw {
            rng: fastrand::Rng::with_seed(mix(settings.seed ^ mix(i))),
            pattern: Vec::new(),
            upto: 0,
            attempts,
        }
    }

    /// Draws the faults of the attempts up to `to` not drawn yet: each, independently, loses
    /// its request, loses its answer or is slow, in that order of precedence.
    fn extend(&mut self, settings: &Settings, to: u32) {
        let to = to.min(self.attempts);
        let any = settings.lose_request + settings.lose_reply + settings.slow;
        if any <= 0.0 {
            self.upto = self.attempts;
            return;
        }
        while self.upto < to {
            self.upto += 1;
            let r = self.rng.f64();
            let act = if r < settings.lose_request {
                Act::LoseRequest
            } else if r < settings.lose_request + settings.lose_reply {
                Act::LoseReply
            } else if r < any {
                Act::Slow
            } else {
                continue;
            };
            // Attempts drawn later always come after every fault already set.
            set(&mut self.pattern, self.upto, act);
        }
    }

    fn full(&self) -> bool {
        self.upto >= self.attempts
    }
}

impl<'a> Memo<'a> {
    pub fn new(cfg: SimConfig, settings: &'a Settings, design: Design) -> Memo<'a> {
        Memo {
            cfg,
            settings,
            design,
            runs: HashMap::new(),
            depths: Vec::new(),
            kept: 0,
            plain: None,
            simulated: 0,
        }
    }

    pub fn get(&mut self, draw: &mut Draw) -> Result<Rc<Summary>, SimError> {
        if let Some(&deepest) = self.depths.last() {
            draw.extend(self.settings, deepest);
        }
        if draw.full()
            && draw.pattern.is_empty()
            && let Some(s) = &self.plain
        {
            return Ok(Rc::clone(s));
        }
        for &n in &self.depths {
            let cut = draw.pattern.partition_point(|&(a, _)| a <= n);
            if let Some(s) = self
                .runs
                .get(&n)
                .and_then(|by| by.get(&draw.pattern[..cut]))
            {
                return Ok(Rc::clone(s));
            }
        }
        draw.extend(self.settings, u32::MAX);
        let mut cfg = self.cfg.clone();
        cfg.faults = faults_of(&draw.pattern, self.settings, &self.cfg);
        let mut summary = summarise(&cfg, self.design)?;
        summary.id = self.simulated;
        let summary = Rc::new(summary);
        self.simulated += 1;
        if draw.pattern.is_empty() {
            self.plain = Some(Rc::clone(&summary));
        }
        if self.kept >= MAX_MEMO {
            self.runs.clear();
            self.depths.clear();
            self.kept = 0;
        }
        let n = summary.sent_upto;
        let cut = draw.pattern.partition_point(|&(a, _)| a <= n);
        self.runs
            .entry(n)
            .or_default()
            .insert(draw.pattern[..cut].to_vec(), Rc::clone(&summary));
        self.kept += 1;
        if let Err(at) = self.depths.binary_search(&n) {
            self.depths.insert(at, n);
        }
        Ok(summary)
    }

    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }
}

/// A well-mixed 64-bit value from `x` (splitmix64), so neighbouring orders draw unrelated
/// faults.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The day's processor crashes and outage, as they touch orders.
pub struct Disruptions<'a> {
    /// Crash times from the period's start, in order.
    pub crashes: &'a [u64],
    pub restart_after_ms: u64,
    pub outage: Option<crate::scenario::traffic::Outage>,
}

impl Disruptions<'_> {
    fn none(&self) -> bool {
        self.crashes.is_empty() && self.outage.is_none()
    }

    /// The first crash at or after `from` and before `to`.
    fn crash_within(&self, from: u64, to: u64) -> Option<u64> {
        let i = self.crashes.partition_point(|&c| c < from);
        self.crashes.get(i).copied().filter(|&c| c < to)
    }

    /// Whether the processor is down at `t` after a crash.
    fn down_at(&self, t: u64) -> bool {
        let i = self.crashes.partition_point(|&c| c <= t);
        i > 0 && t < self.crashes[i - 1].saturating_add(self.restart_after_ms)
    }

    /// What the day does to one attempt of an order paid at `start`, if anything.
    fn strikes(&self, start: u64, a: &AttemptTimes) -> Option<Act> {
        let abs = |off: u64| start.saturating_add(off);
        if let (Some(o), Some(sent)) = (self.outage, a.sent)
            && o.loses == Loses::All
            && o.covers(abs(sent))
        {
            return Some(Act::LoseRequest);
        }
        if let Some((arrived, false)) = a.arrived {
            if self.down_at(abs(arrived)) {
                return Some(Act::LoseRequest);
            }
            let until = a.answered.map_or(u64::MAX, abs);
            if let Some(c) = self.crash_within(abs(arrived), until) {
                let point = a
                    .steps
                    .iter()
                    .take_while(|(t, _)| abs(*t) <= c)
                    .last()
                    .map_or(CrashPoint::Receive, |(_, p)| *p);
                return Some(Act::Crash(point));
            }
        }
        if let (Some(o), Some(answered)) = (self.outage, a.answered)
            && o.covers(abs(answered))
        {
            return Some(Act::LoseReply);
        }
        None
    }
}

/// Order `i`'s run under the memo's design: its drawn faults, with whatever the day's
/// crashes and outage do to the attempts it sends added one attempt at a time (a fault on
/// an attempt changes nothing before it, so each pass settles one more attempt).
pub fn run_order(
    memo: &mut Memo<'_>,
    day: &Disruptions<'_>,
    start: u64,
    draw: &mut Draw,
) -> Result<Rc<Summary>, SimError> {
    let mut summary = memo.get(draw)?;
    if day.none() {
        return Ok(summary);
    }
    let mut settled = 0u32;
    loop {
        let change = summary
            .attempts
            .iter()
            .filter(|a| a.attempt > settled)
            .find_map(|a| match day.strikes(start, a) {
                Some(act) if has(&draw.pattern, a.attempt, act) => None,
                Some(act) => Some((a.attempt, act)),
                None => None,
            });
        let Some((attempt, act)) = change else {
            return Ok(summary);
        };
        set(&mut draw.pattern, attempt, act);
        settled = attempt;
        summary = memo.get(draw)?;
    }
}
