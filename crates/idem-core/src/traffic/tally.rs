//! Adds one design's orders up, in the order they arrive: totals, a series in buckets of
//! time, and the store's live keys swept with a heap of the changes still to come, so that
//! what is held is the store, not the day.

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
    pub downstream_duplicates: u64,
    pub refunds: u64,
    pub refunded_cents: i64,
    pub marked_paid: u64,
    pub alerts: u64,
    pub hits: u64,
    pub conflicts_409: u64,
    pub mismatches_422: u64,
    pub refusals_400: u64,
    pub keys_stored: u64,
    pub keys_evicted: u64,
    /// Orders a person ran again after they ended unpaid.
    pub reruns: u64,
    pub peak_keys: u64,
    /// When the store first held its peak, from the period's start.
    pub peak_at_ms: u64,
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
            reruns: 0,
            peak_keys: 0,
            peak_at_ms: 0,
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

/// The store's live keys, swept in time order.
struct Store {
    /// Changes still to come: (when, +1 stored / -1 evicted as 1 / 0).
    pending: BinaryHeap<Reverse<(u64, u8)>>,
    live: u64,
    peak: u64,
    peak_at: u64,
}

impl Store {
    /// Applies every change up to and including `t`.
    fn settle(&mut self, t: u64, series: &mut Series) {
        while let Some(&Reverse((at, stored))) = self.pending.peek() {
            if at > t {
                break;
            }
            self.pending.pop();
            series.reach(at, self.live);
            if stored == 1 {
                self.live += 1;
                if self.live > self.peak {
                    self.peak = self.live;
                    self.peak_at = at;
                }
            } else {
                self.live = self.live.saturating_sub(1);
            }
            series.note_keys(at, self.live);
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
    let mut store = Store {
        pending: BinaryHeap::new(),
        live: 0,
        peak: 0,
        peak_at: 0,
    };
    let mut pattern = Vec::new();
    let mut since_look = 0u64;
    for i in 0..settings.orders {
        since_look += 1;
        if since_look == CHUNK {
            progress.done.fetch_add(CHUNK, Ordering::Relaxed);
            since_look = 0;
            if progress.stopped() {
                break;
            }
        }
        let start = clock.at(i);
        store.settle(start, &mut series);
        order::draw(settings, i, attempts, &mut pattern);
        let s = order::run_order(&mut memo, &day, start, &mut pattern)
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
        r.keys_evicted += u64::from(c.keys_evicted);
        r.charges += u64::from(s.charges);
        if s.charges > 1 {
            r.duplicate_orders += 1;
            r.duplicate_charges += u64::from(s.charges - 1);
            r.duplicate_cents += i64::from(s.charges - 1) * amount;
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
            let t = start.saturating_add(off);
            match mark {
                Mark::Stored => store.pending.push(Reverse((t, 1))),
                Mark::Evicted => store.pending.push(Reverse((t, 0))),
                other => {
                    let b = series.at(t);
                    match other {
                        Mark::Attempt => b.attempts += 1,
                        Mark::Received => b.received += 1,
                        Mark::Hit => b.hits += 1,
                        Mark::Conflict => b.conflicts_409 += 1,
                        Mark::Mismatch => b.mismatches_422 += 1,
                        Mark::Stored | Mark::Evicted => {}
                    }
                }
            }
        }
    }
    progress.done.fetch_add(since_look, Ordering::Relaxed);
    store.settle(u64::MAX, &mut series);
    r.peak_keys = store.peak;
    r.peak_at_ms = store.peak_at;
    r.simulated = memo.simulated;
    r.series = series.buckets;
    Ok(r)
}
