//! The words of a run, made in this folder and nowhere else: each tick's label, its narration
//! and the label of its arrow, written from the engine's facts and the scenario's settings, in
//! the trace's clock style, and the words for outcomes (`outcome`) and terms (`glossary`). It
//! decides nothing about the run.
//!
//! A narration is a list of sentences; a sentence that says more than its tick's own fact is
//! made from a `Claim` (`claim`, `claimed`), which the tests' claim checker holds to the trace.
//! A sentence about what happens later is settled here, against the whole trace, so no
//! narration claims a future that a later tick contradicts.

use crate::sim::config::{FailPoint, KeySource};
use crate::sim::fact::{
    CrashMoment, Cut, CutStep, Fact, HandOver, LookupAnswer, Refusal, RequestId, SentRequest,
    WireFault,
};
use crate::sim::state::Key;
use crate::sim::state::{Belief, ChargeId, EntryKind, EntryStatus, RefundReason, Response};
use crate::sim::{Cents, Design, Instant, SimConfig, Tick, Trace};
use crate::units::duration_ms;
use std::collections::HashMap;

pub mod claim;
mod claimed;
mod downstream;
pub mod glossary;
pub mod outcome;
pub mod written;

pub use claim::{Claim, Sentence, Via};
pub use downstream::{ServiceWords, service_words};

/// The words for every tick of one trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Told {
    pub labels: Vec<String>,
    pub narrations: Vec<String>,
    /// The label on the tick's arrow, for a tick that draws one.
    pub arrows: Vec<Option<String>>,
    /// Shorter forms of the arrow's label for a narrow screen, longest first: the prose goes,
    /// the key and the attempt number stay (`$48.60 K7Q4 #1`, then `K7Q4 #1`).
    pub arrows_short: Vec<Vec<String>>,
    /// The ticks whose narration the scenario's `[[narration]]` rewrote or added to, in order.
    pub rewritten: Vec<usize>,
    /// Each tick's narration as the engine wrote it, sentence by sentence, with the claims
    /// each sentence makes (before any `[[narration]]` of the trainer's).
    pub sentences: Vec<Vec<Sentence>>,
    /// The trainer's own words for a tick, from `[[narration]]`, alone: what a question box
    /// may show without giving the engine's account away. One block's text is shared by every
    /// tick it lands on, not copied to each.
    pub trainer: Vec<Option<std::sync::Arc<str>>>,
    /// For each tick that sends a request, or an answer, that the network loses further on,
    /// the tick where it is lost: until then its arrow heads for the network with its end
    /// untold, and from then on it is drawn cut there, on its send row too.
    pub lost_later: Vec<Option<usize>>,
}

/// Writes the words for every tick of `trace`, which `cfg` produced.
pub fn tell(cfg: &SimConfig, trace: &Trace) -> Told {
    // Each tick's words depend on the whole trace but on no other tick's words, so a long
    // story is told in two halves side by side when the machine has a core to spare.
    let parts = if trace.ticks.len() >= TOLD_IN_PARTS_FROM {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
    } else {
        1
    };
    tell_in_parts(cfg, trace, parts)
}

/// From how many ticks a story is told in parts, each on a thread of its own.
const TOLD_IN_PARTS_FROM: usize = 8_192;

/// Tells `trace` in `parts` runs of ticks, each on a thread of its own but the first, and puts
/// them back together in order: the same words however many parts. [`tell`] chooses the parts.
pub fn tell_in_parts(cfg: &SimConfig, trace: &Trace, parts: usize) -> Told {
    let teller = Teller::new(cfg, trace);
    let lost = lost_on_the_way(trace);
    let n = trace.ticks.len();
    let parts = parts.clamp(1, n.max(1));
    let bounds: Vec<usize> = (0..=parts).map(|p| p * n / parts).collect();
    let tell_part = |from: usize, to: usize| tell_ticks(&teller, &lost, from..to, usize::MAX);
    if parts == 1 {
        let mut told = tell_part(0, n);
        one_tick_a_label(&mut told.labels);
        return told;
    }
    let tell_part = &tell_part;
    std::thread::scope(|s| {
        let rest: Vec<_> = bounds
            .windows(2)
            .skip(1)
            .map(|w| {
                let (from, to) = (w[0], w[1]);
                s.spawn(move || tell_part(from, to))
            })
            .collect();
        let mut told = tell_part(bounds[0], bounds[1]);
        for part in rest {
            let part = part
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            told.append(part);
        }
        one_tick_a_label(&mut told.labels);
        told
    })
}

/// Makes every label name one tick of its run: a label that an earlier tick already has (a
/// second crash, a second decline, another lookup of the same key) gets its count, `crashes
/// (2nd)`, so a trainer's block or a question aimed at a label lands on one tick. The first of
/// them keeps the plain label.
fn one_tick_a_label(labels: &mut [String]) {
    let mut seen: HashMap<String, u32> = HashMap::new();
    for label in labels.iter_mut().filter(|l| !l.is_empty()) {
        let n = seen.entry(label.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            let mut count = *n;
            // A count that is itself some tick's label moves on to the next free one.
            let mut named = format!("{label} ({})", ordinal(count));
            while seen.contains_key(&named) {
                count += 1;
                named = format!("{label} ({})", ordinal(count));
            }
            seen.insert(named.clone(), 1);
            *label = named;
        }
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`.
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The words a story's opening frame needs, sooner than [`tell`] gives them all: every tick's
/// label, arrow and loss as [`tell`] writes them, and the narration and shorter arrow labels
/// of the ticks up to `through` alone; after it, those are left empty. A frame of those first
/// ticks reads no later tick's narration, which the replay's tests hold.
pub fn tell_opening(cfg: &SimConfig, trace: &Trace, through: usize) -> Told {
    let teller = Teller::new(cfg, trace);
    let lost = lost_on_the_way(trace);
    let mut told = tell_ticks(&teller, &lost, 0..trace.ticks.len(), through);
    one_tick_a_label(&mut told.labels);
    told
}

/// The words of the ticks in `ticks`, the narration and shorter arrow labels of those up to
/// `words_through` alone.
fn tell_ticks(
    teller: &Teller,
    lost: &[Option<usize>],
    ticks: std::ops::Range<usize>,
    words_through: usize,
) -> Told {
    // Each list has one entry a tick: made to size, a long story's lists are never copied
    // while they grow nor left up to twice as large as they need.
    let len = ticks.len();
    let mut told = Told {
        labels: Vec::with_capacity(len),
        narrations: Vec::with_capacity(len),
        arrows: Vec::with_capacity(len),
        arrows_short: Vec::with_capacity(len),
        rewritten: Vec::new(),
        sentences: Vec::with_capacity(len),
        trainer: Vec::with_capacity(len),
        lost_later: Vec::with_capacity(len),
    };
    for i in ticks {
        let tick = &teller.trace.ticks[i];
        told.lost_later.push(lost[i]);
        let (label, arrow) = teller.label(tick);
        told.labels.push(label);
        told.trainer.push(None);
        told.arrows.push(tick.message.map(|_| arrow));
        if i > words_through {
            told.narrations.push(String::new());
            told.sentences.push(Vec::new());
            told.arrows_short.push(Vec::new());
            continue;
        }
        let sentences = teller.narration(i, tick);
        told.narrations.push(claim::join(&sentences));
        told.sentences.push(sentences);
        told.arrows_short.push(match tick.message {
            Some(_) => teller.short_arrows(tick),
            None => Vec::new(),
        });
    }
    told
}

impl Told {
    /// Adds the ticks of `later`, told after these, to the end.
    fn append(&mut self, later: Told) {
        let Told {
            labels,
            narrations,
            arrows,
            arrows_short,
            rewritten,
            sentences,
            trainer,
            lost_later,
        } = later;
        self.labels.extend(labels);
        self.narrations.extend(narrations);
        self.arrows.extend(arrows);
        self.arrows_short.extend(arrows_short);
        self.rewritten.extend(rewritten);
        self.sentences.extend(sentences);
        self.trainer.extend(trainer);
        self.lost_later.extend(lost_later);
    }
}

/// For each tick that puts on the wire a request or an answer the network loses further on,
/// the tick where the network loses it.
fn lost_on_the_way(trace: &Trace) -> Vec<Option<usize>> {
    use crate::sim::config::Direction;
    use crate::sim::fact::Fact;
    let (mut requests, mut replies) = (
        std::collections::HashMap::new(),
        std::collections::HashMap::new(),
    );
    for (i, t) in trace.ticks.iter().enumerate() {
        match t.fact {
            Fact::LostRequest { req } => {
                requests.insert(req, i);
            }
            Fact::LostReply { reply } => {
                replies.insert(reply, i);
            }
            _ => {}
        }
    }
    // An answer's tick names the request it answers, not the reply: the reply is the one
    // this tick puts on the wire, the answer's flight that the tick before did not have (a
    // send puts none there, so its tick need not be looked at).
    let answers = |state: &crate::sim::Snapshot| -> Vec<usize> {
        state
            .in_flight()
            .iter()
            .filter(|f| f.direction == Direction::Reply && f.service.is_none())
            .map(|f| f.id)
            .collect()
    };
    let mut before = Vec::new();
    trace
        .ticks
        .iter()
        .map(|t| match t.fact {
            Fact::Send { req } => requests.get(&req).copied(),
            _ if replies.is_empty() => None,
            _ => {
                let now = answers(&t.state);
                let sent = t
                    .message
                    .is_some_and(|m| m.from == crate::sim::Actor::Processor);
                let lost = now
                    .iter()
                    .filter(|r| sent && !before.contains(*r))
                    .find_map(|r| replies.get(r).copied());
                before = now;
                lost
            }
        })
        .collect()
}

/// The sentences of the ticks up to `through`, told as if the story ended there: the words a
/// room reads before a question at `through` is answered. No later tick reaches them, so no
/// wording is chosen from what happens next; what they claim holds of the whole trace too.
/// Only the ticks up to `words_through` are told, for a frame that reads no later one.
pub fn tell_before(
    cfg: &SimConfig,
    trace: &Trace,
    through: usize,
    words_through: usize,
) -> Vec<Vec<Sentence>> {
    let teller = Teller::through(cfg, trace, through);
    teller
        .ticks
        .iter()
        .take(words_through.saturating_add(1))
        .enumerate()
        .map(|(i, tick)| teller.narration(i, tick))
        .collect()
}

/// A trace told a tick at a time, for a writer that needs each tick's words once and in
/// order (`idem run --json`): every label first, since questions and the trainer's words
/// find their ticks by label, then each tick's sentences when asked for, kept by nobody.
/// The same teller as [`tell`], so the words are the same.
pub struct Telling<'a> {
    teller: Teller<'a>,
    labels: Vec<String>,
    /// The teller of the ticks up to a question, which reads no later tick.
    before: Option<(usize, Teller<'a>)>,
}

impl<'a> Telling<'a> {
    pub fn new(cfg: &'a SimConfig, trace: &'a Trace) -> Telling<'a> {
        let teller = Teller::new(cfg, trace);
        let mut labels: Vec<String> = trace.ticks.iter().map(|t| teller.label(t).0).collect();
        one_tick_a_label(&mut labels);
        Telling {
            teller,
            labels,
            before: None,
        }
    }

    /// Tells the ticks up to `question` as [`tell_before`] does, from then on.
    pub fn hold_back_through(&mut self, question: usize) {
        let (cfg, trace) = (self.teller.cfg, self.teller.trace);
        self.before = Some((question, Teller::through(cfg, trace, question)));
    }

    /// Every tick's label, in order, handed over: the sentences do not need them.
    pub fn take_labels(&mut self) -> Vec<String> {
        std::mem::take(&mut self.labels)
    }

    /// The sentences of tick `index`, as [`tell`] writes them.
    pub fn sentences(&self, index: usize) -> Vec<Sentence> {
        let teller = match &self.before {
            Some((question, before)) if index <= *question => before,
            _ => &self.teller,
        };
        match teller.trace.ticks.get(index) {
            Some(tick) => teller.narration(index, tick),
            None => Vec::new(),
        }
    }
}

/// How the checkout keys its attempts under a strategy, in words.
pub fn checkout_keys(strategy: crate::sim::config::KeyStrategy) -> &'static str {
    use crate::sim::config::KeyStrategy;
    match strategy {
        KeyStrategy::PerIntent => "one key per order, on every attempt",
        KeyStrategy::PerAttempt => "a new key on every attempt",
        KeyStrategy::None => "no key",
    }
}

/// How the downstream steps are keyed, in words.
pub fn step_keys(mode: crate::sim::config::KeyMode) -> &'static str {
    use crate::sim::config::KeyMode;
    match mode {
        KeyMode::Derived => "a key derived from the order and the step",
        KeyMode::PerAttempt => "a fresh key per try",
        KeyMode::None => "no key",
    }
}

/// `1 attempt`, `3 attempts`.
pub fn plural(n: usize, word: &str) -> String {
    match (n, word) {
        (1, _) => format!("1 {word}"),
        (_, "entry") => format!("{n} entries"),
        _ => format!("{n} {word}s"),
    }
}

/// `once`, `twice`, `three times`, `27 times`.
pub fn times_word(n: usize) -> String {
    match n {
        0 => "never".to_string(),
        1 => "once".to_string(),
        2 => "twice".to_string(),
        // Words up to nine, as a grown list of choices goes (nine at most), so a list never
        // mixes "Three times" with "4 times".
        3 => "three times".to_string(),
        4 => "four times".to_string(),
        5 => "five times".to_string(),
        6 => "six times".to_string(),
        7 => "seven times".to_string(),
        8 => "eight times".to_string(),
        9 => "nine times".to_string(),
        n => format!("{n} times"),
    }
}

/// The first letter in upper case, for a phrase that opens a sentence.
fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

struct Teller<'a> {
    cfg: &'a SimConfig,
    trace: &'a Trace,
    /// The ticks this teller may read: the whole trace, or, for words told before a question
    /// is answered, the ticks up to the question's alone. Nothing after them reaches the words.
    ticks: &'a [Tick],
    /// Whether `ticks` stops short of the trace: then the absence of something in them says
    /// nothing about what comes later, and no sentence may be chosen from such an absence.
    cut: bool,
    /// The first tick at which the checkout reads an answer naming each charge.
    heard: HashMap<ChargeId, usize>,
    /// The first answer the processor sent to each request.
    reply_of: HashMap<RequestId, usize>,
    /// What the whole trace says once, so that no tick's words scan it again: worked out by
    /// `Facts::of` in one pass.
    facts: claimed::Facts,
}

impl<'a> Teller<'a> {
    fn new(cfg: &'a SimConfig, trace: &'a Trace) -> Teller<'a> {
        Teller::through(cfg, trace, usize::MAX)
    }

    /// A teller that reads the ticks up to `through` alone, as if the story ended there.
    fn through(cfg: &'a SimConfig, trace: &'a Trace, through: usize) -> Teller<'a> {
        let ticks = &trace.ticks[..trace.ticks.len().min(through.saturating_add(1))];
        let cut = ticks.len() < trace.ticks.len();
        let mut heard = HashMap::new();
        for (i, tick) in ticks.iter().enumerate() {
            let read = match &tick.fact {
                Fact::Read { reply, .. } => trace.replies[*reply].response.charge,
                // A lookup's stored answer names its charge too.
                Fact::LookedUp { lookup, .. } => match &trace.lookups[*lookup].answer {
                    Some(LookupAnswer::Found { response }) => response.charge,
                    _ => None,
                },
                _ => None,
            };
            if let Some(id) = read {
                heard.entry(id).or_insert(i);
            }
        }
        let mut reply_of = HashMap::new();
        for (i, r) in trace.replies.iter().enumerate() {
            reply_of.entry(r.req).or_insert(i);
        }
        Teller {
            cfg,
            trace,
            ticks,
            cut,
            heard,
            reply_of,
            facts: claimed::Facts::of(trace, ticks),
        }
    }

    fn clock(&self, t: Instant) -> String {
        self.trace.clock.format_short(t)
    }

    fn req(&self, req: RequestId) -> &SentRequest {
        &self.trace.requests[req]
    }

    fn order(&self, intent: usize) -> &str {
        &self.cfg.intents[intent].order
    }

    fn several_orders(&self) -> bool {
        self.cfg.intents.len() > 1
    }

    /// `#2`, or `5538 #2` when the story has several orders; `#2 copy` for the second copy
    /// the network made of it, so its ticks have labels of their own.
    fn tag(&self, req: RequestId) -> String {
        let copy = if self.req(req).copy > 0 { " copy" } else { "" };
        format!("{}{copy}", self.attempt_tag(req))
    }

    /// `#2`, or `5538 #2`: the attempt a request belongs to, copy or not.
    fn attempt_tag(&self, req: RequestId) -> String {
        let r = self.req(req);
        if self.several_orders() {
            format!("{} #{}", self.order(r.intent), r.attempt)
        } else {
            format!("#{}", r.attempt)
        }
    }

    /// `attempt #2`, or `attempt #2 of order 5538` when the story has several orders.
    fn name(&self, req: RequestId) -> String {
        let r = self.req(req);
        if self.several_orders() {
            format!("attempt #{} of order {}", r.attempt, self.order(r.intent))
        } else {
            format!("attempt #{}", r.attempt)
        }
    }

    fn key_text(&self, req: RequestId) -> String {
        self.req(req)
            .key
            .as_deref()
            .map_or("no key".to_string(), |k| format!("key {k}"))
    }

    fn key(&self, req: RequestId) -> &str {
        self.req(req).key.as_deref().unwrap_or_default()
    }

    /// `attempt #1 ($48.60, key K7Q4)`, saying so when the network made the copy.
    fn describe(&self, req: RequestId) -> String {
        let r = self.req(req);
        let copy = if r.copy > 0 {
            ", a second copy the network delivered"
        } else {
            ""
        };
        format!(
            "{} ({}, {}{copy})",
            self.name(req),
            r.amount,
            self.key_text(req)
        )
    }

    fn retention(&self) -> String {
        duration_ms(self.cfg.retention_ms)
    }

    fn in_progress_expiry(&self) -> String {
        duration_ms(self.cfg.in_progress_expiry_ms)
    }

    /// The answer sent for a request the processor answered at once.
    fn answer_to(&self, req: RequestId) -> String {
        self.reply_of
            .get(&req)
            .map_or_else(String::new, |&r| self.trace.replies[r].response.summary())
    }

    /// The tick's short label, and the label its arrow carries.
    fn label(&self, tick: &Tick) -> (String, String) {
        if let Some(pair) = self.call_label(tick) {
            return pair;
        }
        let label = match &tick.fact {
            Fact::Pay => {
                let intent = tick.intent.unwrap_or(0);
                let i = &self.cfg.intents[intent];
                format!("presses Pay: order {}, {}", i.order, i.amount)
            }
            Fact::Send { req } => {
                let label = format!(
                    "charge {} {} {}",
                    self.req(*req).amount,
                    self.key_text(*req),
                    self.tag(*req)
                );
                return (label.clone(), label);
            }
            Fact::LostRequest { req } => {
                let arrow = format!(
                    "charge {} {} {}",
                    self.req(*req).amount,
                    self.key_text(*req),
                    self.tag(*req)
                );
                return (format!("request {} lost", self.tag(*req)), arrow);
            }
            Fact::LostReply { reply } => {
                let r = &self.trace.replies[*reply];
                return (
                    format!("answer to {} lost", self.tag(r.req)),
                    r.response.summary(),
                );
            }
            Fact::Wire {
                direction,
                id,
                what,
            } => {
                let short = match direction {
                    crate::sim::config::Direction::Request => format!("request {}", self.tag(*id)),
                    crate::sim::config::Direction::Reply => {
                        format!("answer to {}", self.tag(self.trace.replies[*id].req))
                    }
                };
                match what {
                    WireFault::Delay { by_ms } => {
                        format!("{short} held {}", duration_ms(*by_ms))
                    }
                    WireFault::Duplicate { .. } => format!("{short} copied"),
                }
            }
            Fact::ArrivesDown { req } => format!("{} arrives: processor down", self.tag(*req)),
            Fact::ReceivedThenCrash { req } | Fact::Takes { req, .. } => {
                format!("receives {}", self.tag(*req))
            }
            Fact::Refused { req, why } => {
                let label = match why {
                    Refusal::NoKey => format!("{} refused: 400 no key", self.tag(*req)),
                    Refusal::DuplicateBody { .. } => {
                        format!("{}: 400 duplicate body", self.tag(*req))
                    }
                };
                return (label, self.answer_to(*req));
            }
            Fact::Mismatch { req, .. } => {
                let label = format!("{}: 422 key {} reused", self.tag(*req), self.key(*req));
                return (label, self.answer_to(*req));
            }
            Fact::Replayed {
                req,
                stored,
                from_log,
                ..
            } => {
                let label = if *from_log {
                    format!("{}: {} found in log", self.tag(*req), self.key(*req))
                } else {
                    format!("{}: replays {}", self.tag(*req), self.key(*req))
                };
                return (label, stored.summary());
            }
            Fact::InProgress { req, .. } => {
                let label = format!("{}: 409 {} in progress", self.tag(*req), self.key(*req));
                return (label, self.answer_to(*req));
            }
            Fact::OneWrite { req, charge, .. } => match charge {
                Some(id) => format!("{id} + {} in one write", self.key(*req)),
                None => format!("402 declined, {} stored", self.key(*req)),
            },
            Fact::Charged { req, charge, .. } => match charge {
                Some(id) => format!("charges {id} {}", self.req(*req).amount),
                None => "card declined".to_string(),
            },
            Fact::KeyLogged { req, .. } => format!("logs {}", self.key(*req)),
            Fact::RecordCompleted { req, .. } => format!("completes {}", self.key(*req)),
            Fact::HandlerError { req, .. } => {
                let label = format!("answers {}: 500 handler error", self.tag(*req));
                return (label, "500 handler error".to_string());
            }
            Fact::Replied { req, response } => {
                let label = format!("answers {}: {}", self.tag(*req), response.summary());
                return (label, response.summary());
            }
            Fact::Crash { .. } => "crashes".to_string(),
            Fact::Restart { .. } => "restarts".to_string(),
            Fact::Expired { key, .. } => format!("{key} expires"),
            Fact::TimedOut { .. } => match self.tick_req(tick) {
                Some(tag) => format!("no answer to {tag}"),
                None => "no answer".to_string(),
            },
            Fact::Deadline { layer, .. } => format!("{} deadline", self.cfg.layers[*layer].name),
            Fact::Read { reply, .. } => {
                let r = &self.trace.replies[*reply];
                format!("reads {} for {}", r.response.summary(), self.tag(r.req))
            }
            Fact::Late { reply } => {
                format!(
                    "late answer to {} ignored",
                    self.tag(self.trace.replies[*reply].req)
                )
            }
            Fact::CopyAnswered { reply } => format!(
                "answer to the copy of {} unread",
                self.attempt_tag(self.trace.replies[*reply].req)
            ),
            Fact::GaveUp { .. } => {
                format!(
                    "gives up on {}: unknown",
                    self.order(tick.intent.unwrap_or(0))
                )
            }
            Fact::Rerun { path } => format!(
                "{}: order {}",
                self.cfg.reruns[*path].name,
                self.order(tick.intent.unwrap_or(0))
            ),
            Fact::Reconcile {
                orders, charges, ..
            } => format!(
                "reconciles {} with {}",
                plural(*charges, "charge"),
                plural(*orders, "order")
            ),
            Fact::Refund { charge, .. } => {
                let amount = self.amount_of(tick, *charge);
                format!("refunds {charge}: refund −{amount}")
            }
            Fact::MarkPaid { charge } => format!(
                "keeps {charge}, marks {} paid",
                self.order(tick.intent.unwrap_or(0))
            ),
            Fact::ShippedUnpaid => format!(
                "alert: {} shipped unpaid",
                self.order(tick.intent.unwrap_or(0))
            ),
            Fact::Statement => match tick.state.ledger().len() + tick.state.refunds().len() {
                1 => "statement: 1 line".to_string(),
                n => format!("statement: {n} lines"),
            },
            Fact::LookupSent { lookup } => {
                let key = &self.trace.lookups[*lookup].key;
                return (format!("asks about {key}"), format!("lookup {key}"));
            }
            Fact::LookupDown { .. } => "lookup arrives: processor down".to_string(),
            Fact::LookupAnswered { lookup } => {
                let l = &self.trace.lookups[*lookup];
                let answer = lookup_answer(l.answer.as_ref());
                return (format!("{}: {answer}", l.key), answer);
            }
            Fact::LookedUp { lookup, .. } => {
                let l = &self.trace.lookups[*lookup];
                match &l.answer {
                    Some(LookupAnswer::Found { response }) => {
                        format!("reads {} from the lookup", response.summary())
                    }
                    Some(LookupAnswer::InProgress) => "reads: still in progress".to_string(),
                    Some(LookupAnswer::NotFound) | None => "reads: not found, retries".to_string(),
                }
            }
            Fact::LookupTimedOut { .. } => "no answer to the lookup".to_string(),
            Fact::CallSent { .. }
            | Fact::CallLost { .. }
            | Fact::CallDelayed { .. }
            | Fact::CallDone { .. }
            | Fact::CallReplayed { .. }
            | Fact::CallReplied { .. }
            | Fact::CallRead { .. }
            | Fact::CallLate { .. }
            | Fact::CallTimedOut { .. } => String::new(),
        };
        (label.clone(), label)
    }

    /// Shorter forms of a tick's arrow label, longest first (empty: the label has none).
    fn short_arrows(&self, tick: &Tick) -> Vec<String> {
        let request = |req: RequestId| {
            let r = self.req(req);
            let key = r.key.as_deref().unwrap_or("no key");
            vec![
                format!("{} {key} {}", r.amount, self.tag(req)),
                format!("{key} {}", self.tag(req)),
            ]
        };
        let answer = |response: &Response| match response.charge {
            Some(id) => vec![
                format!("{} {id}", response.status),
                response.status.to_string(),
            ],
            None => vec![response.status.to_string()],
        };
        let first_answer = |req: RequestId| {
            self.reply_of
                .get(&req)
                .map_or_else(Vec::new, |&r| answer(&self.trace.replies[r].response))
        };
        match &tick.fact {
            Fact::Send { req } | Fact::LostRequest { req } => request(*req),
            Fact::LostReply { reply } => answer(&self.trace.replies[*reply].response),
            Fact::Replied { response, .. } => answer(response),
            Fact::Replayed { stored, .. } => answer(stored),
            Fact::Refused { req, .. }
            | Fact::Mismatch { req, .. }
            | Fact::InProgress { req, .. }
            | Fact::HandlerError { req, .. } => first_answer(*req),
            _ => self.call_short_arrows(tick),
        }
    }

    /// `#1` (or `5538 #1`) for a tick that names an attempt without a request of its own.
    fn tick_req(&self, tick: &Tick) -> Option<String> {
        let (intent, attempt) = (tick.intent?, tick.attempt?);
        Some(if self.several_orders() {
            format!("{} #{attempt}", self.order(intent))
        } else {
            format!("#{attempt}")
        })
    }

    fn narration(&self, index: usize, tick: &Tick) -> Vec<Sentence> {
        let clock = self.clock(tick.at);
        let mut said = match self.claimed(index, tick, &clock) {
            Some(said) => said,
            None => vec![self.tells(index, self.plain_narration(index, tick, &clock))],
        };
        for m in &tick.missed {
            said.push(self.tells(index, if m.key_less {
                format!(
                    "The scenario plans a crash after the key is written on attempt #{}, but this processor writes no key, so it never reaches that point.",
                    m.attempt
                )
            } else {
                format!(
                    "The crash the scenario plans after the {} step of attempt #{} never comes: this answer did not go through that step.",
                    m.point.id(),
                    m.attempt
                )
            }));
        }
        said
    }

    /// The narration of a tick whose words claim nothing beyond its own fact.
    fn plain_narration(&self, index: usize, tick: &Tick, clock: &str) -> String {
        let clock = clock.to_string();
        match &tick.fact {
            Fact::Wire {
                direction,
                id,
                what,
            } => {
                let thing = match direction {
                    crate::sim::config::Direction::Request => {
                        format!("{}'s request", self.name(*id))
                    }
                    crate::sim::config::Direction::Reply => {
                        let r = &self.trace.replies[*id];
                        format!(
                            "the answer to {} ({})",
                            self.name(r.req),
                            r.response.summary()
                        )
                    }
                };
                match what {
                    WireFault::Delay { by_ms } => format!(
                        "At {clock} the network holds up {thing}: it arrives {} later than usual.",
                        duration_ms(*by_ms)
                    ),
                    WireFault::Duplicate { gap_ms } => format!(
                        "At {clock} the network delivers {thing} and makes a second copy, which follows {} behind. Only one was sent.",
                        duration_ms(*gap_ms)
                    ),
                }
            }
            Fact::ArrivesDown { req } => format!(
                "At {clock} {} reaches the processor while it is down after its crash. Nobody is there to read it or answer it.",
                self.describe(*req)
            ),
            Fact::ReceivedThenCrash { req } => format!(
                "At {clock} the processor receives {}, and crashes at once, before it has looked anything up or charged anything.",
                self.describe(*req)
            ),
            Fact::Refused { req, why } => {
                let who = self.describe(*req);
                match why {
                    Refusal::NoKey => format!(
                        "At {clock} the processor receives {who}. This design will not charge without an idempotency key, so it refuses with 400 and nothing is charged."
                    ),
                    Refusal::DuplicateBody { written_by } => format!(
                        "At {clock} the processor receives {who}. Its body hashes to {}, the same as a charge already made ({written_by}), so it refuses with 400 duplicate request. That is an error, not a replay: a checkout that reads it stops and takes the payment as failed.",
                        self.req(*req).body_hash()
                    ),
                }
            }
            Fact::Mismatch { req, first, this } => format!(
                "At {clock} the processor receives {}. {} is known, but for a different request (fingerprint {first}, this one {this}). Reusing a key for another payment is a client bug, so it refuses with 422 and charges nothing.",
                self.describe(*req),
                self.key(*req)
            ),
            Fact::Replayed {
                req,
                stored,
                written_by,
                from_log,
            } => {
                let (who, key) = (self.describe(*req), self.key(*req));
                if *from_log {
                    let caveat = if self.trace.design == Design::LogBeforeCharge {
                        "It reports success without checking that a charge exists."
                    } else {
                        "It does not check that this request matches the one that wrote the line."
                    };
                    format!(
                        "At {clock} the processor receives {who}, finds {key} in its key log ({written_by}) and sends back what the log holds, {}. {caveat}",
                        stored.summary()
                    )
                } else {
                    // Told, with whose answer it is, by `claimed`.
                    String::new()
                }
            }
            Fact::InProgress {
                req,
                until: Some(until),
            } => format!(
                "At {clock} the processor receives {} and finds an in-progress record for {} on disk, not yet expired (it expires at {}). Rather than start a second charge it answers 409: ask again later.",
                self.describe(*req),
                self.key(*req),
                self.clock(*until)
            ),
            Fact::OneWrite {
                req,
                charge,
                response,
            } => {
                let key = self.key(*req);
                match charge {
                    Some(id) => format!(
                        "At {clock} the processor charges {} as {id} and, in the same atomic write, stores {key} as completed with its answer ({}) and the request's fingerprint, kept for a retention window of {}. Either both exist or neither does.",
                        self.req(*req).amount,
                        response.summary(),
                        self.retention()
                    ),
                    None => format!(
                        "At {clock} the card is declined. The processor stores {key} as completed with the 402 answer, so while the key is kept a retry carrying it gets the same refusal rather than a second try at the card."
                    ),
                }
            }
            Fact::Charged { req, charge, hash } => match charge {
                Some(id) => {
                    let extra = hash.as_ref().map_or(String::new(), |h| {
                        format!(" It remembers the body hash {h} for {}.", self.retention())
                    });
                    let r = self.req(*req);
                    format!(
                        "At {clock} the processor charges {} to the card for order {}: {id} is in the ledger and the money has moved.{extra}",
                        r.amount,
                        self.order(r.intent)
                    )
                }
                None => format!(
                    "At {clock} the card is declined: no money moves, and the answer it prepares is 402."
                ),
            },
            Fact::KeyLogged { req, before, held } => {
                self.key_logged(index, *req, *before, held, &clock)
            }
            Fact::HandlerError {
                req,
                after,
                charge,
                deleted,
            } => self.handler_error(*req, *after, *charge, *deleted, &clock),
            Fact::Replied { req, response } => format!(
                "At {clock} the processor sends its answer to attempt #{}: {}.",
                self.req(*req).attempt,
                response.summary()
            ),
            Fact::Restart { cut } => {
                let interrupted: String = cut
                    .iter()
                    .map(|c| format!(" {}", self.after_restart(c)))
                    .collect();
                format!(
                    "At {clock} the processor is back. What was on disk is intact.{interrupted}"
                )
            }
            Fact::CopyAnswered { reply } => {
                let r = &self.trace.replies[*reply];
                format!(
                    "At {clock} the answer to the network's extra copy of attempt #{} ({}) comes back. The checkout never sent that copy, so nobody is waiting for this answer.",
                    self.req(r.req).attempt,
                    r.response.summary()
                )
            }
            Fact::GaveUp {
                attempts,
                hand_over,
            } => {
                let order = self.order(tick.intent.unwrap_or(0));
                format!(
                    "At {clock} the checkout has used its whole retry budget for order {order} ({}) and gives up. It does not know whether the card was charged: the outcome is unknown.{}",
                    plural(*attempts as usize, "attempt"),
                    self.hand_over(*hand_over)
                )
            }
            Fact::LookupSent { lookup } => {
                let l = &self.trace.lookups[*lookup];
                format!(
                    "At {clock}, rather than send another charge request for order {} straight away, the checkout asks the processor what it remembers under key {}: a lookup, which charges nothing.",
                    self.order(l.intent),
                    l.key
                )
            }
            Fact::LookupDown { .. } => format!(
                "At {clock} the lookup reaches the processor while it is down: no answer to it will come."
            ),
            Fact::LookupAnswered { lookup } => self.lookup_answered(*lookup, &clock),
            Fact::LookupTimedOut { .. } => format!(
                "At {clock} the lookup has waited {} with no answer. The checkout knows no more than before, so it sends the retry anyway.",
                duration_ms(self.cfg.timeout_ms)
            ),
            Fact::Refund {
                charge,
                why,
                charged_at,
            } => self.refund(tick, *charge, *why, *charged_at, &clock),
            Fact::ShippedUnpaid => format!(
                "At {clock} the job finds no charge for order {}, which the shop believes paid, so the goods go out unpaid. No refund can put that right: the job raises an alert, \"shipped unpaid\", for a person to chase the money.",
                self.order(tick.intent.unwrap_or(0))
            ),
            Fact::Statement => self.statement(tick),
            Fact::CallSent { .. }
            | Fact::CallLost { .. }
            | Fact::CallDelayed { .. }
            | Fact::CallDone { .. }
            | Fact::CallReplayed { .. }
            | Fact::CallReplied { .. }
            | Fact::CallRead { .. }
            | Fact::CallLate { .. }
            | Fact::CallTimedOut { .. } => self.call_narration(tick, &clock).unwrap_or_default(),
            // Told, with their claims, by `claimed`.
            Fact::Pay
            | Fact::Send { .. }
            | Fact::LostRequest { .. }
            | Fact::LostReply { .. }
            | Fact::Takes { .. }
            | Fact::RecordCompleted { .. }
            | Fact::TimedOut { .. }
            | Fact::Deadline { .. }
            | Fact::Read { .. }
            | Fact::Late { .. }
            | Fact::LookedUp { .. }
            | Fact::Crash { .. }
            | Fact::InProgress { until: None, .. }
            | Fact::Expired { .. }
            | Fact::Reconcile { .. }
            | Fact::Rerun { .. }
            | Fact::MarkPaid { .. } => String::new(),
        }
    }

    /// The names of the layers beneath `layer`, innermost last: `gateway`, `client and
    /// gateway`, `sdk, client and gateway`.
    fn layer_names(&self, layer: usize) -> String {
        let names: Vec<&str> = self.cfg.layers[..layer]
            .iter()
            .rev()
            .map(|l| l.name.as_str())
            .collect();
        crate::text::and_list(&names)
    }

    /// The key carried by the intent's next request after tick `index`: `None` when no
    /// request follows, `Some(None)` when the next one carries no key.
    fn next_send_key(&self, index: usize, intent: usize) -> Option<Option<&Key>> {
        self.ticks
            .get(index + 1..)?
            .iter()
            .find_map(|t| match t.fact {
                Fact::Send { req } if self.trace.requests[req].intent == intent => {
                    Some(self.trace.requests[req].key.as_ref())
                }
                _ => None,
            })
    }

    /// The first of the attempts just before request `req` (of its intent) that carried the
    /// same key, when there are any: a key an outer layer minted stays on the retries beneath
    /// it, one after another, so the search stops at the first attempt with another key.
    fn first_with_same_key(&self, req: RequestId) -> Option<u32> {
        let r = self.req(req);
        let mut first = None;
        for o in self.trace.requests[..req]
            .iter()
            .rev()
            .filter(|o| o.intent == r.intent && o.copy == 0)
        {
            if o.key != r.key {
                break;
            }
            first = Some(o.attempt);
        }
        first
    }

    /// The handler fails: the 500, and what the error did to the key's memory.
    fn handler_error(
        &self,
        req: RequestId,
        after: FailPoint,
        charge: Option<ChargeId>,
        deleted: bool,
        clock: &str,
    ) -> String {
        let (name, key) = (self.name(req), self.key(req));
        let when = match (after, charge) {
            (FailPoint::Receive, _) => "before anything is charged".to_string(),
            (FailPoint::Charge, Some(id)) => format!("after {id} was made"),
            (FailPoint::Charge, None) => "after the card was declined".to_string(),
        };
        let memory = match (self.trace.design, deleted) {
            (Design::InProgressRecord, true) => match charge {
                Some(id) => format!(
                    " The error deletes the in-progress record for {key}, so a retry is processed as new, though {id} has already moved the money: nothing the processor keeps ties {id} to {key} any more."
                ),
                None => format!(
                    " The error deletes the in-progress record for {key}, so a retry is processed as new."
                ),
            },
            (_, true) => format!(
                " The in-progress mark for {key} goes with the failed work, so a retry is processed as new."
            ),
            (Design::WithCharge, false) if after == FailPoint::Charge => format!(
                " The one write had already stored {key} as completed, so a retry carrying it is answered from memory."
            ),
            (Design::LogAfterCharge, false) if self.req(req).key.is_some() => format!(
                " {key} never reaches the key log: the after-response hook only runs for an answer the handler returned."
            ),
            _ => String::new(),
        };
        format!(
            "At {clock} the handler fails on {name} {when}, and the processor answers 500.{memory}"
        )
    }

    /// Charges an earlier crash left without their key log line: the charge ids, with the
    /// attempts that made them, up to tick `index`.
    fn orphans(&self, index: usize, key: &str) -> Vec<String> {
        self.ticks[..index]
            .iter()
            .filter_map(|t| match &t.fact {
                Fact::Crash { cut, .. } => Some(cut),
                _ => None,
            })
            .flatten()
            .filter(|c| self.orphaned(c) && self.key(c.req) == key)
            .filter_map(|c| {
                let id = c.charge?;
                Some(format!("{id} (attempt #{})", self.req(c.req).attempt))
            })
            .collect()
    }

    /// Whether the crash cut a charge off from its key log line.
    fn orphaned(&self, c: &Cut) -> bool {
        let keyed_log_after =
            self.trace.design == Design::LogAfterCharge && self.req(c.req).key.is_some();
        c.charge.is_some()
            && (c.step == CutStep::KeyLog || (c.step == CutStep::Reply && keyed_log_after))
    }

    fn key_logged(
        &self,
        index: usize,
        req: RequestId,
        before: bool,
        held: &Response,
        clock: &str,
    ) -> String {
        let key = self.key(req);
        if before {
            return format!(
                "At {clock} the processor appends {key} to its key log with the answer it means to give ({}), before any money has moved. Should it crash now, the log would claim a payment that was not made.",
                held.summary()
            );
        }
        let earlier = self.orphans(index, key);
        let lesson = if earlier.is_empty() {
            "A crash between the charge and this line would leave a charge with no memory of its key.".to_string()
        } else {
            format!(
                "The line is for this attempt's charge; {} stays in the ledger with no line of its own, because a crash came between its charge and its log write.",
                earlier.join(" and ")
            )
        };
        format!(
            "At {clock} the answer has left, and only now does the processor append {key} and that answer ({}) to its key log: a second write, separate from the charge. {lesson}",
            held.summary()
        )
    }

    pub(super) fn crash(
        &self,
        tick: &Tick,
        moment: CrashMoment,
        marks_lost: &[crate::sim::state::Key],
        cut: &[Cut],
        restart_ms: u64,
        clock: &str,
    ) -> String {
        let why = match moment {
            CrashMoment::AfterReceive { req } => {
                format!("right after receiving {}", self.name(req))
            }
            CrashMoment::AfterOneWrite { req } => format!(
                "right after the write for {}, before it can answer",
                self.name(req)
            ),
            CrashMoment::AfterCharge { req } if self.facts.declined.contains(&req) => format!(
                "right after the card declined {}, before it can answer",
                self.name(req)
            ),
            CrashMoment::AfterCharge { req } => format!(
                "right after charging {}, before it can answer",
                self.name(req)
            ),
            CrashMoment::AfterKeyLog { req, before: true } => format!(
                "right after logging {}, before charging the card",
                self.key(req)
            ),
            CrashMoment::AfterKeyLog { req, before: false } => {
                format!("right after logging {}", self.key(req))
            }
            CrashMoment::AfterReply { req } => format!("right after answering {}", self.name(req)),
            CrashMoment::AfterRecord { req } => format!(
                "right after completing the record for {}, before it can answer",
                self.key(req)
            ),
        };
        let lost = if marks_lost.is_empty() {
            String::new()
        } else {
            format!(
                " The in-progress mark for {} was only in memory and is gone.",
                marks_lost.join(", ")
            )
        };
        let cut_text: String = cut
            .iter()
            .map(|c| format!(" {}", self.at_crash(c)))
            .collect();
        // Records written in progress are on disk: they outlast the crash and block their key.
        let records: String = tick
            .state
            .memory
            .iter()
            .filter(|e| e.kind == EntryKind::Record && e.status == EntryStatus::InProgress)
            .filter_map(|e| {
                e.expires_at.map(|t| {
                    format!(
                        " The in-progress record for {} is on disk and outlasts the crash: it keeps the key blocked until it expires at {}.",
                        e.key,
                        self.clock(t)
                    )
                })
            })
            .collect();
        format!(
            "At {clock} the processor crashes {why}. Its disk survives: {} in the ledger, {} remembered.{lost}{cut_text}{records} It restarts in {}.",
            plural(tick.state.ledger().len(), "charge"),
            plural(self.live_entries(tick), "entry"),
            duration_ms(restart_ms)
        )
    }

    /// The entries of the processor's memory still within their expiry at the tick: what it
    /// remembers (an entry past its expiry is forgotten, though its eviction may be pending).
    pub(crate) fn live_entries(&self, tick: &Tick) -> usize {
        tick.state
            .memory
            .iter()
            .filter(|e| e.expires_at.is_none_or(|t| t > tick.at))
            .count()
    }

    /// What a crash interrupted, as it stands at the crash.
    fn at_crash(&self, c: &Cut) -> String {
        let (name, key) = (self.name(c.req), self.key(c.req));
        match (c.step, &c.charge) {
            (CutStep::KeyLog, Some(id)) => format!(
                "{id} is in the ledger and its answer has left, but {key} had not reached the key log: the disk now holds a charge with no memory of its key."
            ),
            (CutStep::KeyLog, None) => format!("{key} had not reached the key log."),
            (CutStep::Reply, Some(id)) if self.orphaned(c) => format!(
                "{id} is in the ledger, but no answer went out for {name} and {key} had not reached the key log."
            ),
            (CutStep::Reply, _) => format!("No answer had gone out for {name}."),
            (CutStep::Record, Some(id)) => format!(
                "{id} is in the ledger, but the record for {key} had not been completed: it stays in progress on disk until it expires."
            ),
            (CutStep::Record, None) => format!(
                "The answer to {name} had not been stored: the record for {key} stays in progress on disk until it expires."
            ),
            (CutStep::Commit | CutStep::Charge, _) => format!(
                "{} had not been charged yet, and that work is gone.",
                capitalise(&name)
            ),
        }
    }

    /// What a crash interrupted, as the processor comes back.
    fn after_restart(&self, c: &Cut) -> String {
        let (name, key) = (self.name(c.req), self.key(c.req));
        match (c.step, &c.charge) {
            (CutStep::KeyLog, Some(id)) => {
                format!(
                    "It does not go back to log {key}: nothing on disk says {id} was made for it."
                )
            }
            (CutStep::KeyLog, None) => format!("It does not go back to log {key}."),
            (CutStep::Reply, Some(id)) if self.orphaned(c) => format!(
                "It does not resume {name}: that attempt gets no answer, and nothing on disk ties {id} to {key}."
            ),
            (CutStep::Reply, _) => {
                format!("It does not resume {name}: that attempt gets no answer.")
            }
            (CutStep::Record, _) => format!(
                "It does not go back to complete the record for {key}, and {name} gets no answer. A retry carrying {key} is answered 409 while the in-progress record lasts, and processed as new once it has expired."
            ),
            (CutStep::Commit | CutStep::Charge, _) => {
                format!("It does not pick up the work on {name}: that request gets no answer.")
            }
        }
    }

    /// The processor's side of a lookup: what its memory holds under the key.
    fn lookup_answered(&self, lookup: usize, clock: &str) -> String {
        let l = &self.trace.lookups[lookup];
        match &l.answer {
            Some(LookupAnswer::Found { response }) => format!(
                "At {clock} the processor finds an answer stored under {} and sends it back: {}.",
                l.key,
                response.summary()
            ),
            Some(LookupAnswer::InProgress) => format!(
                "At {clock} the processor finds {} but no answer stored under it yet: a request with this key is still being worked on, as far as it knows.",
                l.key
            ),
            Some(LookupAnswer::NotFound) | None if !self.trace.design.uses_key() => format!(
                "At {clock} the lookup reaches a processor that keeps nothing under keys, so it has nothing to report about {} whatever it has charged.",
                l.key
            ),
            Some(LookupAnswer::NotFound) | None => format!(
                "At {clock} the processor has nothing under {} in its memory and says so: not found.",
                l.key
            ),
        }
    }

    fn hand_over(&self, hand_over: Option<HandOver>) -> String {
        hand_over.map_or_else(String::new, |h| {
            format!(
                " The order is not settled, so it goes to the {}, {} from now.",
                self.cfg.reruns[h.path].name,
                duration_ms(h.after_ms)
            )
        })
    }

    pub(super) fn rerun(&self, index: usize, tick: &Tick, path: usize, clock: &str) -> Sentence {
        let p = &self.cfg.reruns[path];
        let i = &self.cfg.intents[tick.intent.unwrap_or(0)];
        let key = match self.cfg.key_source() {
            KeySource::Order if self.cfg.order_has_key() => format!("key {}", i.key),
            KeySource::Order => "no key".to_string(),
            KeySource::Minted { layer: 0 } => "a fresh key for every attempt".to_string(),
            KeySource::Minted { layer } => format!(
                "a fresh key for every attempt of the {}",
                self.cfg.layers[layer].name
            ),
            KeySource::Dropped { layer } => {
                format!("no key (the {} drops it)", self.cfg.layers[layer].name)
            }
        };
        let intent = tick.intent.unwrap_or(0);
        // How the run before it ended: it gave up, or it failed on a final answer.
        let gave_up = self.ticks[..index]
            .iter()
            .rev()
            .find_map(|t| match &t.fact {
                Fact::GaveUp {
                    hand_over: Some(_), ..
                } if t.intent == Some(intent) => Some(true),
                Fact::Read {
                    hand_over: Some(_),
                    reply,
                    ..
                } if self.req(self.trace.replies[*reply].req).intent == intent => Some(false),
                Fact::LookedUp {
                    hand_over: Some(_),
                    lookup,
                    ..
                } if self.trace.lookups[*lookup].intent == intent => Some(false),
                _ => None,
            });
        let ended = match gave_up {
            Some(false) => "ended in a failure",
            _ => "gave up",
        };
        Sentence::all(
            vec![Claim::HandedOver {
                intent,
                at: index,
                gave_up: gave_up.unwrap_or(true),
            }],
            format!(
                "At {clock}, {} after the last run {ended}, the {} starts order {} again: the same purchase, {key}, and the checkout's whole retry budget once more. Whether this charges the card again depends on whether the processor still remembers the first attempt.",
                duration_ms(p.after_ms),
                p.name,
                i.order
            ),
        )
    }

    /// The amount of a charge, from the ledger as it stands at the tick.
    fn amount_of(&self, tick: &Tick, charge: ChargeId) -> Cents {
        tick.state
            .ledger()
            .iter()
            .find(|c| c.id == charge)
            .map_or(Cents(0), |c| c.amount)
    }

    /// What the checkout concluded about an order (the job never changes that).
    fn belief_before(&self, tick: &Tick, intent: usize) -> Belief {
        tick.state
            .clients()
            .get(intent)
            .map_or(Belief::Unknown, |c| c.belief)
    }

    fn refund(
        &self,
        tick: &Tick,
        charge: ChargeId,
        why: RefundReason,
        charged_at: Instant,
        clock: &str,
    ) -> String {
        let i = tick.intent.unwrap_or(0);
        let amount = self.amount_of(tick, charge);
        let reason = match why {
            RefundReason::Duplicate => format!(
                "order {} was charged more than once, and {charge} is one of the extra charges",
                self.order(i)
            ),
            RefundReason::Unconfirmed => format!(
                "the shop believes order {} {}, so it shipped nothing for {charge}, and its policy for such a charge is to give the money back",
                self.order(i),
                match self.belief_before(tick, i) {
                    Belief::Failed => "failed".to_string(),
                    b => format!("ended {}", b.label()),
                }
            ),
        };
        format!(
            "At {clock} the job refunds {charge} ({amount}): {reason}. The refund is a ledger line of its own, and the card statement shows it as refund −{amount}. The customer saw that money, which was not owed, from {} until now: {}.",
            self.clock(charged_at),
            crate::units::lived_ms(tick.at.0.saturating_sub(charged_at.0))
        )
    }

    fn statement(&self, tick: &Tick) -> String {
        if !tick.state.refunds().is_empty() || tick.state.clients().iter().any(|c| c.marked_paid) {
            return self.reconciled_statement(tick);
        }
        let ledger = &tick.state.ledger();
        let merchant = &self.cfg.merchant;
        let total = Cents(ledger.iter().map(|c| c.amount.0).sum());
        let mut what = match ledger.len() {
            0 => format!("no charge from {merchant}"),
            1 => format!("one line from {merchant}, {total}"),
            n => format!("{n} lines from {merchant}, {total} in all"),
        };
        let mine = |i: usize| ledger.iter().filter(move |c| c.intent == i);
        if self.several_orders() {
            let per_order: Vec<String> = self
                .cfg
                .intents
                .iter()
                .enumerate()
                .map(|(i, intent)| {
                    let sum = Cents(mine(i).map(|c| c.amount.0).sum());
                    match mine(i).count() {
                        0 => format!("order {} no line", intent.order),
                        1 => format!("order {} one line ({sum})", intent.order),
                        n => format!("order {} {n} lines ({sum})", intent.order),
                    }
                })
                .collect();
            what = format!("{what}: {}", per_order.join(", "));
        }
        let orders = |pick: &dyn Fn(usize) -> bool| -> Vec<String> {
            (0..self.cfg.intents.len())
                .filter(|&i| pick(i))
                .map(|i| self.order(i).to_string())
                .collect()
        };
        let duplicated = orders(&|i| mine(i).count() > 1);
        let unconfirmed =
            orders(&|i| mine(i).next().is_some() && tick.state.clients()[i].belief != Belief::Paid);
        let meaning = if !duplicated.is_empty() {
            format!(
                " {} paid for more than once, although the customer pressed Pay once{}; only a reconciliation of charges against orders will find the extra and refund it.",
                capitalise(&orders_phrase(&duplicated, "was", "were")),
                if self.several_orders() {
                    " for each"
                } else {
                    ""
                }
            )
        } else if !unconfirmed.is_empty() {
            format!(
                " The money for {} moved, but the checkout does not believe it was paid; only a reconciliation of charges against orders will bring the two together.",
                orders_phrase(&unconfirmed, "", "").trim_end()
            )
        } else {
            String::new()
        };
        format!("Later the customer opens the card statement: {what}.{meaning}")
    }
}

impl Teller<'_> {
    /// The statement once the reconciliation has refunded a charge or marked an order paid.
    fn reconciled_statement(&self, tick: &Tick) -> String {
        let state = &tick.state;
        let merchant = &self.cfg.merchant;
        let charges = state.ledger().len();
        let refunds = state.refunds().len();
        let mut text = format!(
            "Later the customer opens the card statement: {} and {} from {merchant}, {} charged, {} refunded, net {}.",
            plural(charges, "charge"),
            plural(refunds, "refund"),
            state.charged_total(),
            state.refunded_total(),
            state.net_total()
        );
        if let Some(longest) = state
            .refunds()
            .iter()
            .map(|r| r.at.0.saturating_sub(r.charged_at.0))
            .max()
        {
            text.push_str(&format!(
                " The money came back, but only after the customer had seen it taken: {} for the longest-standing refunded charge.",
                crate::units::lived_ms(longest)
            ));
        }
        let marked: Vec<String> = (0..self.cfg.intents.len())
            .filter(|&i| state.clients().get(i).is_some_and(|c| c.marked_paid))
            .map(|i| self.order(i).to_string())
            .collect();
        if !marked.is_empty() {
            text.push_str(&format!(
                " The shop kept the charge for {}, which the checkout never saw confirmed, and marked it paid.",
                orders_phrase(&marked, "", "").trim_end()
            ));
        }
        // Orders that still carry more than one charge nobody refunded (the order was still
        // being paid when the job ran, or the charge came after it).
        let standing: Vec<String> = (0..self.cfg.intents.len())
            .filter(|&i| {
                state
                    .ledger()
                    .iter()
                    .filter(|c| c.intent == i && !state.refunds().iter().any(|r| r.charge == c.id))
                    .count()
                    > 1
            })
            .map(|i| self.order(i).to_string())
            .collect();
        if !standing.is_empty() {
            text.push_str(&format!(
                " {} still charged more than once: the job did not refund those charges.",
                capitalise(&orders_phrase(&standing, "is", "are"))
            ));
        }
        text
    }
}

/// `order 5531 was` or `orders 5531 and 5538 were`; empty verbs give just the noun phrase.
fn orders_phrase(orders: &[String], one: &str, many: &str) -> String {
    match orders {
        [only] => format!("order {only} {one}"),
        _ => format!("orders {} {many}", orders.join(" and ")),
    }
}

/// A tick with its words, for code that reads both.
#[derive(Clone, Copy, Debug)]
pub struct ToldTick<'a> {
    pub tick: &'a Tick,
    pub label: &'a str,
    pub narration: &'a str,
    pub arrow: Option<&'a str>,
}

impl std::ops::Deref for ToldTick<'_> {
    type Target = Tick;
    fn deref(&self) -> &Tick {
        self.tick
    }
}

/// A run with its words: what `idem run` prints and the tests read.
#[derive(Clone, Debug)]
pub struct Story {
    pub trace: Trace,
    pub told: Told,
}

impl std::ops::Deref for Story {
    type Target = Trace;
    fn deref(&self) -> &Trace {
        &self.trace
    }
}

impl Story {
    /// Every tick with its label and narration.
    pub fn ticks(&self) -> Vec<ToldTick<'_>> {
        self.trace
            .ticks
            .iter()
            .enumerate()
            .map(|(i, tick)| ToldTick {
                tick,
                label: &self.told.labels[i],
                narration: &self.told.narrations[i],
                arrow: self.told.arrows[i].as_deref(),
            })
            .collect()
    }
}

/// The charge a successful answer names, and the intent it was made for, if the ledger at
/// this tick holds it.
fn charge_owner(tick: &Tick, response: &Response) -> Option<(ChargeId, usize)> {
    let id = response.charge?;
    tick.state
        .ledger()
        .iter()
        .find(|c| c.id == id)
        .map(|c| (c.id, c.intent))
}

/// A lookup's answer in a few words: `found: 200 charged ch_1`, `in progress`, `not found`.
fn lookup_answer(answer: Option<&LookupAnswer>) -> String {
    match answer {
        Some(LookupAnswer::Found { response }) => format!("found: {}", response.summary()),
        Some(LookupAnswer::InProgress) => "in progress".to_string(),
        Some(LookupAnswer::NotFound) | None => "not found".to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_a_grown_list_can_reach_are_all_words() {
        for n in 0..=9 {
            let word = super::times_word(n);
            assert!(!word.chars().any(|c| c.is_ascii_digit()), "{n}: {word}");
        }
        assert_eq!(super::times_word(12), "12 times");
    }
}
