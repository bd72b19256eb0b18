//! Adds one design's orders up, in the order they arrive: totals, a series in buckets of
//! time, and the store swept from every key's life: written during its order's story,
//! evicted when its design's rules or its retention say, whether or not the story has ended
//! by then. The changes still to come are held as runs of orders that share a set of faults,
//! so what is held grows with those runs, not with the keys or the day.

use super::order::{self, Disruptions, Mark, Memo};
use super::{Clock, Progress, Settings};
use crate::sim::{Design, SimConfig, Verdict};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::Ordering;

/// The most buckets a series holds.
pub const MAX_BUCKETS: usize = 2_000;

/// Orders simulated between two looks at the stop flag.
const CHUNK: u64 = 4_096;

/// One stretch of the period.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Bucket {
    /// Orders that arrived in it.
    pub orders: u64,
    pub attempts: u64,
    pub received: u64,
    pub hits: u64,
    pub conflicts_409: u64,
    pub mismatches_422: u64,
    /// Orders arriving in it that were charged more than once.
    pub duplicates: u64,
    /// The most keys the store held at any moment of it.
    pub peak_keys: u64,
}

impl Bucket {
    /// Requests answered from memory, out of those received: 0 when none was.
    pub fn hit_rate(&self) -> f64 {
        if self.received == 0 {
            0.0
        } else {
            self.hits as f64 / self.received as f64
        }
    }
}

/// One design over the day.
#[derive(Clone, Debug, Serialize)]
pub struct DesignReport {
    #[serde(serialize_with = "design_id")]
    pub design: Design,
    pub orders: u64,
    pub attempts: u64,
    pub received: u64,
    pub charges: u64,
    /// Orders charged more than once.
    pub duplicate_orders: u64,
    /// Charges beyond the first for an order.
    pub duplicate_charges: u64,
    pub duplicate_cents: i64,
    /// The shop believed the order paid and nothing was charged: it ships unpaid.
    pub unpaid: u64,
    /// Charged once, and the shop does not know it.
    pub charged_unconfirmed: u64,
    /// Nothing charged, and the shop knows it was not paid.
    pub not_charged: u64,
    /// Charged once and confirmed, with any downstream repeat.
    pub correct: u64,
    /// Orders that ended wrong in any way: charged more than once, believed paid and never
    /// charged, charged and not believed paid, or repeated downstream. What a chart of
    /// harm draws, so a design that charges once but leaves the shop unaware never looks safe.
    pub ended_wrong: u64,
    pub downstream_duplicates: u64,
    pub refunds: u64,
    pub refunded_cents: i64,
    pub marked_paid: u64,
    pub alerts: u64,
    pub hits: u64,
    pub conflicts_409: u64,
    pub mismatches_422: u64,
    pub refusals_400: u64,
    /// Entries the design wrote to its store (key records, key log lines, body hashes or
    /// records), whenever they were written.
    pub keys_stored: u64,
    /// Entries that left the store before the period's end: their retention or expiry ran
    /// out, a crash lost them, an error deleted them, or a new entry took their place.
    pub keys_evicted: u64,
    /// Entries still held at the period's end.
    pub keys_held_at_end: u64,
    /// Orders a person ran again after they ended unpaid.
    pub reruns: u64,
    /// The most entries held at one moment, the period's tail included, each key's life
    /// running from its write to its eviction across every order.
    pub peak_keys: u64,
    /// When the store first held its peak, from the period's start.
    pub peak_at_ms: u64,
    /// The peak at the stated size of one entry.
    pub peak_bytes: u64,
    /// The most entries the store would hold at one moment had every entry written been kept
    /// for 7 days from its write: the week of keys.
    pub week_peak_keys: u64,
    /// When that store would first hold them, from the period's start.
    pub week_peak_at_ms: u64,
    /// The engine runs it took: distinct sets of faults, each simulated once.
    pub simulated: u64,
    pub series: Vec<Bucket>,
}

fn design_id<S: serde::Serializer>(d: &Design, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(d.id())
}

impl DesignReport {
    /// A design with nothing counted yet.
    pub fn empty(design: Design) -> DesignReport {
        DesignReport {
            design,
            orders: 0,
            attempts: 0,
            received: 0,
            charges: 0,
            duplicate_orders: 0,
            duplicate_charges: 0,
            duplicate_cents: 0,
            unpaid: 0,
            charged_unconfirmed: 0,
            not_charged: 0,
            correct: 0,
            ended_wrong: 0,
            downstream_duplicates: 0,
            refunds: 0,
            refunded_cents: 0,
            marked_paid: 0,
            alerts: 0,
            hits: 0,
            conflicts_409: 0,
            mismatches_422: 0,
            refusals_400: 0,
            keys_stored: 0,
            keys_evicted: 0,
            keys_held_at_end: 0,
            reruns: 0,
            peak_keys: 0,
            peak_at_ms: 0,
            peak_bytes: 0,
            week_peak_keys: 0,
            week_peak_at_ms: 0,
            simulated: 0,
            series: Vec::new(),
        }
    }

    /// Requests answered from memory, out of those received.
    pub fn hit_rate(&self) -> f64 {
        if self.received == 0 {
            0.0
        } else {
            self.hits as f64 / self.received as f64
        }
    }

    /// Attempts sent per order.
    pub fn amplification(&self) -> f64 {
        if self.orders == 0 {
            0.0
        } else {
            self.attempts as f64 / self.orders as f64
        }
    }
}

/// How long the week of keys keeps each key: seven days from its write.
pub const WEEK_MS: u64 = 7 * crate::sim::time::DAY_MS;

/// What one change of the store's sweep does to its two counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    /// An entry is written: one more held, now and in the week of keys.
    Stored,
    /// An entry leaves the store as the design's rules and its retention say.
    Evicted,
    /// Seven days after a write: the entry leaves the week of keys.
    WeekOver,
}

/// The orders of one run of the memo (one distinct set of faults) whose changes to the store
/// are still to come. Orders are added in arrival order, so for each change of the run the
/// moments it happens to these orders come in order too: each change keeps a queue of the
/// orders still to pass it, as runs of consecutive order numbers, and when an order arrives
/// is worked out again from its number. So the sweep holds a run of orders, not one entry
/// per key, and a day of orders with the same faults costs a few runs.
struct Group {
    id: u64,
    changes: Vec<(u64, Change)>,
    /// For each change: runs of order numbers `(next, last)` still to pass it.
    queues: Vec<std::collections::VecDeque<(u64, u64)>>,
    /// Queues that still hold an order.
    busy: usize,
}

/// The store over the period, swept in time order from every key's life: written at a
/// moment of its order's story, evicted when the design's rules or its retention say (after
/// the story's end too), overlapping the keys of every other order.
struct Store {
    groups: Vec<Option<Group>>,
    free: Vec<usize>,
    /// The slot of each group with orders still to come, by its run's id.
    slots: std::collections::HashMap<u64, usize>,
    /// The next moment of each busy queue: (when, slot, change).
    heads: BinaryHeap<Reverse<(u64, usize, usize)>>,
    live: u64,
    peak: u64,
    peak_at: u64,
    week_live: u64,
    week_peak: u64,
    week_peak_at: u64,
    period_ms: u64,
    /// Evictions at moments before the period's end.
    evicted_in_period: u64,
    /// Keys held when the period ends, once the sweep has passed it.
    held_at_end: Option<u64>,
}

impl Store {
    fn new(period_ms: u64) -> Store {
        Store {
            groups: Vec::new(),
            free: Vec::new(),
            slots: std::collections::HashMap::new(),
            heads: BinaryHeap::new(),
            live: 0,
            peak: 0,
            peak_at: 0,
            week_live: 0,
            week_peak: 0,
            week_peak_at: 0,
            period_ms,
            evicted_in_period: 0,
            held_at_end: None,
        }
    }

    /// Adds order `i`'s changes to the store, its story being `s`.
    fn add(&mut self, i: u64, start: u64, s: &order::Summary) {
        if s.keys.is_empty() {
            return;
        }
        let slot = match self.slots.get(&s.id) {
            Some(&slot) => slot,
            None => {
                let mut changes: Vec<(u64, Change)> = Vec::with_capacity(s.keys.len() * 2);
                for &(off, k) in &s.keys {
                    match k {
                        order::KeyChange::Stored => {
                            changes.push((off, Change::Stored));
                            changes.push((off.saturating_add(WEEK_MS), Change::WeekOver));
                        }
                        order::KeyChange::Evicted => changes.push((off, Change::Evicted)),
                    }
                }
                changes.sort_by_key(|&(t, _)| t);
                let group = Group {
                    id: s.id,
                    queues: vec![std::collections::VecDeque::new(); changes.len()],
                    changes,
                    busy: 0,
                };
                let slot = match self.free.pop() {
                    Some(slot) => {
                        self.groups[slot] = Some(group);
                        slot
                    }
                    None => {
                        self.groups.push(Some(group));
                        self.groups.len() - 1
                    }
                };
                self.slots.insert(s.id, slot);
                slot
            }
        };
        let Some(group) = self.groups[slot].as_mut() else {
            return;
        };
        for (c, queue) in group.queues.iter_mut().enumerate() {
            match queue.back_mut() {
                Some(run) if run.1 + 1 == i => run.1 = i,
                back => {
                    if back.is_none() {
                        group.busy += 1;
                        let at = start.saturating_add(group.changes[c].0);
                        self.heads.push(Reverse((at, slot, c)));
                    }
                    queue.push_back((i, i));
                }
            }
        }
    }

    /// Applies every change before `t`, each moment's changes all at once before the
    /// store is looked at: a key held from `s` to `e` is held at the moments `s..e`.
    fn settle_before(&mut self, t: u64, clock: &Clock, series: &mut Series) {
        while let Some(&Reverse((at, _, _))) = self.heads.peek() {
            if at >= t {
                break;
            }
            if at >= self.period_ms && self.held_at_end.is_none() {
                self.held_at_end = Some(self.live);
            }
            let before = self.live;
            let mut touched = false;
            while let Some(mut top) = self.heads.peek_mut() {
                let Reverse((when, slot, c)) = *top;
                if when != at {
                    break;
                }
                let Some(group) = self.groups[slot].as_mut() else {
                    std::collections::binary_heap::PeekMut::pop(top);
                    continue;
                };
                match group.changes[c].1 {
                    Change::Stored => {
                        touched = true;
                        self.live += 1;
                        self.week_live += 1;
                    }
                    Change::Evicted => {
                        touched = true;
                        self.live = self.live.saturating_sub(1);
                        if at < self.period_ms {
                            self.evicted_in_period += 1;
                        }
                    }
                    Change::WeekOver => self.week_live = self.week_live.saturating_sub(1),
                }
                let queue = &mut group.queues[c];
                let next = match queue.front_mut() {
                    Some(run) if run.0 < run.1 => {
                        run.0 += 1;
                        Some(run.0)
                    }
                    Some(_) => {
                        queue.pop_front();
                        queue.front().map(|run| run.0)
                    }
                    None => None,
                };
                match next {
                    Some(k) => {
                        let when = clock.at(k).saturating_add(group.changes[c].0);
                        *top = Reverse((when, slot, c));
                    }
                    None => {
                        std::collections::binary_heap::PeekMut::pop(top);
                        group.busy -= 1;
                        if group.busy == 0 {
                            self.slots.remove(&group.id);
                            self.groups[slot] = None;
                            self.free.push(slot);
                        }
                    }
                }
            }
            if self.live > self.peak {
                self.peak = self.live;
                self.peak_at = at;
            }
            if self.week_live > self.week_peak {
                self.week_peak = self.week_live;
                self.week_peak_at = at;
            }
            // The week of keys' own ends do not stretch the series past the store's tail.
            if touched {
                series.reach(at, before);
                series.note_keys(at, self.live);
            }
        }
    }
}

/// The buckets, grown as time reaches them.
struct Series {
    bucket_ms: u64,
    buckets: Vec<Bucket>,
    /// The last bucket whose keys have been carried forward.
    carried: usize,
}

impl Series {
    fn index(&self, t: u64) -> usize {
        ((t / self.bucket_ms) as usize).min(MAX_BUCKETS - 1)
    }
    fn at(&mut self, t: u64) -> &mut Bucket {
        let i = self.index(t);
        if self.buckets.len() <= i {
            self.buckets.resize(i + 1, Bucket::default());
        }
        &mut self.buckets[i]
    }
    /// Carries the store's size into every bucket from the last one noted up to `t`'s.
    fn reach(&mut self, t: u64, live: u64) {
        let i = self.index(t);
        if self.buckets.len() <= i {
            self.buckets.resize(i + 1, Bucket::default());
        }
        while self.carried < i {
            self.carried += 1;
            let b = &mut self.buckets[self.carried];
            b.peak_keys = b.peak_keys.max(live);
        }
    }
    fn note_keys(&mut self, t: u64, live: u64) {
        let b = self.at(t);
        b.peak_keys = b.peak_keys.max(live);
    }
}

/// Every order of the day under one design.
pub fn run_design(
    cfg: &SimConfig,
    settings: &Settings,
    design: Design,
    crashes: &[u64],
    bucket_ms: u64,
    progress: &Progress,
) -> Result<DesignReport, String> {
    let mut memo = Memo::new(cfg.clone(), settings, design);
    let day = Disruptions {
        crashes,
        restart_after_ms: settings.restart_after_ms,
        outage: settings.outage,
    };
    let clock = Clock::new(settings);
    let attempts = super::attempts_per_order(cfg);
    let amount = cfg.intents.first().map_or(0, |i| i.amount.0);
    let mut r = DesignReport::empty(design);
    let mut series = Series {
        bucket_ms,
        buckets: Vec::new(),
        carried: 0,
    };
    let mut store = Store::new(settings.over_ms);
    let mut since_look = 0u64;
    for i in 0..settings.orders {
        since_look += 1;
        if since_look == CHUNK {
            progress.done.fetch_add(CHUNK, Ordering::Relaxed);
            since_look = 0;
        }
        // Looked at every order, so a stop is heard within one order's run, however heavy
        // the orders are.
        if progress.stopped() {
            break;
        }
        let start = clock.at(i);
        store.settle_before(start, &clock, &mut series);
        let mut draw = order::Draw::new(settings, i, attempts);
        let s = order::run_order(&mut memo, &day, start, &mut draw)
            .map_err(|e| format!("order {i} under {}: {e}", design.id()))?;
        r.orders += 1;
        let c = &s.counters;
        r.attempts += u64::from(c.attempts_sent);
        r.received += u64::from(c.requests_received);
        r.hits += u64::from(c.dedupe_hits);
        r.conflicts_409 += u64::from(c.conflicts_409);
        r.mismatches_422 += u64::from(c.mismatches_422);
        r.refusals_400 += u64::from(c.refusals_400);
        r.keys_stored += u64::from(c.keys_stored);
        r.charges += u64::from(s.charges);
        if s.charges > 1 {
            r.duplicate_orders += 1;
            r.duplicate_charges += u64::from(s.charges - 1);
            r.duplicate_cents += i64::from(s.charges - 1) * amount;
        }
        if s.charges > 1 || !matches!(s.verdict, Verdict::Correct | Verdict::NotCharged) {
            r.ended_wrong += 1;
        }
        match s.verdict {
            Verdict::Duplicate => {}
            Verdict::Unpaid => r.unpaid += 1,
            Verdict::DownstreamDuplicate => r.downstream_duplicates += 1,
            Verdict::ChargedUnconfirmed => r.charged_unconfirmed += 1,
            Verdict::NotCharged => r.not_charged += 1,
            Verdict::Correct => r.correct += 1,
        }
        r.refunds += u64::from(s.refunds);
        r.refunded_cents += s.refunded_cents;
        r.marked_paid += u64::from(s.marked_paid);
        r.alerts += u64::from(s.alert);
        r.reruns += u64::from(s.reruns);
        {
            let b = series.at(start);
            b.orders += 1;
            if s.charges > 1 {
                b.duplicates += 1;
            }
        }
        for &(off, mark) in &s.marks {
            let b = series.at(start.saturating_add(off));
            match mark {
                Mark::Attempt => b.attempts += 1,
                Mark::Received => b.received += 1,
                Mark::Hit => b.hits += 1,
                Mark::Conflict => b.conflicts_409 += 1,
                Mark::Mismatch => b.mismatches_422 += 1,
            }
        }
        store.add(i, start, &s);
    }
    progress.done.fetch_add(since_look, Ordering::Relaxed);
    store.settle_before(u64::MAX, &clock, &mut series);
    r.peak_keys = store.peak;
    r.peak_at_ms = store.peak_at;
    r.peak_bytes = store.peak.saturating_mul(settings.record_bytes);
    r.keys_evicted = store.evicted_in_period;
    r.keys_held_at_end = store.held_at_end.unwrap_or(store.live);
    r.week_peak_keys = store.week_peak;
    r.week_peak_at_ms = store.week_peak_at;
    r.simulated = memo.simulated;
    r.series = series.buckets;
    Ok(r)
}
