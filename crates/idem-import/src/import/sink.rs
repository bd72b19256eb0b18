//! Where the sources put what they read: the HTTP exchanges kept, and counts of what was
//! passed over, for the refusal that says what a file held instead.
//!
//! Memory is bounded by the orders kept: the exchanges of at most `cap` keys are held, those
//! whose first exchange is earliest (a scenario holds at most 64 orders), or of the one order
//! asked for. A key pushed out by an earlier one is not taken back, and every key seen is
//! counted (by its hash), so the file can say how many orders there were.

use crate::import::model::{Exchange, bare_key};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};

#[derive(Debug, Default)]
pub struct Sink {
    /// Exchanges whose key is not known yet (a server span that gets it from its client).
    unkeyed: Vec<Exchange>,
    /// Each key kept (bare): its earliest start, and its exchanges.
    buckets: HashMap<String, (i64, Vec<Exchange>)>,
    /// The keys kept, by their earliest start: the last is the first to go.
    by_start: BTreeSet<(i64, String)>,
    /// Every key seen, and those pushed out, by hash.
    seen: HashSet<u64>,
    dropped: HashSet<u64>,
    /// How many keys are kept at most.
    pub cap: usize,
    /// Exchanges kept from the current file.
    pub kept: u64,
    /// Records seen in the current file: spans, entries or lines.
    pub records: u64,
    /// Of them, HTTP exchanges.
    pub http: u64,
    /// Of those, the ones that carried a key.
    pub keyed: u64,
    /// The names of a few records that were not HTTP, to say what the file held instead.
    pub other: Vec<String>,
    /// Keep only exchanges of this order or key (and those whose key is not known yet).
    pub filter: Option<String>,
    /// The program that wrote the current file, when it says (a HAR's creator).
    pub creator: Option<String>,
}

fn hash(key: &str) -> u64 {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

impl Sink {
    pub fn new(filter: Option<String>, cap: usize) -> Sink {
        Sink {
            filter,
            cap: cap.max(1),
            ..Sink::default()
        }
    }

    /// Starts the counts of a new file.
    pub fn start_file(&mut self) {
        self.records = 0;
        self.http = 0;
        self.keyed = 0;
        self.kept = 0;
        self.other.clear();
        self.creator = None;
    }

    /// How many distinct keys were seen, and how many of them were not kept.
    pub fn keys(&self) -> (usize, usize) {
        (self.seen.len(), self.dropped.len())
    }

    /// Every exchange kept.
    pub fn take(self) -> Vec<Exchange> {
        let mut all = self.unkeyed;
        for (_, (_, mut v)) in self.buckets {
            all.append(&mut v);
        }
        all
    }

    /// One record read: kept when it is an HTTP exchange of an order kept.
    pub fn push(&mut self, x: Exchange, name: &str) {
        self.records += 1;
        if x.method.is_none() && x.status.is_none() {
            if self.other.len() < 5 && !name.is_empty() && !self.other.iter().any(|o| o == name) {
                self.other.push(name.to_string());
            }
            return;
        }
        self.http += 1;
        let Some(key) = x.key.as_deref().map(|k| bare_key(k).to_string()) else {
            self.kept += 1;
            self.unkeyed.push(x);
            return;
        };
        self.keyed += 1;
        if let Some(want) = &self.filter
            && key != *want
            && x.order.as_deref() != Some(want.as_str())
        {
            return;
        }
        let h = hash(&key);
        self.seen.insert(h);
        if self.dropped.contains(&h) {
            return;
        }
        self.kept += 1;
        if let Some((first, v)) = self.buckets.get_mut(&key) {
            if x.start_us < *first {
                self.by_start.remove(&(*first, key.clone()));
                *first = x.start_us;
                self.by_start.insert((*first, key));
            }
            v.push(x);
            return;
        }
        self.by_start.insert((x.start_us, key.clone()));
        self.buckets.insert(key, (x.start_us, vec![x]));
        if self.filter.is_none()
            && self.buckets.len() > self.cap
            && let Some((_, last)) = self.by_start.pop_last()
        {
            if let Some((_, v)) = self.buckets.remove(&last) {
                self.kept = self.kept.saturating_sub(v.len() as u64);
            }
            self.dropped.insert(hash(&last));
        }
    }
}
