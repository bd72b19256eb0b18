//! The simulated world: the event queue, the working state, and how a tick is recorded.

use super::config::{CrashPoint, Fault, FaultAction, SimConfig};
use super::design::Design;
use super::fact::{Cut, Fact, MissedCrash, SentReply, WireFault};
use super::money::Cents;
use super::state::{
    Charge, ClientView, Counters, Flight, History, Key, Marks, MemoryEntry, Parts, Response,
    Snapshot, Stretch, count,
};
use super::time::Instant;
use super::trace::{Actor, Message, Tick, TickKind};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::Arc;

/// Where one step stands for one order.
#[derive(Clone, Copy, Debug)]
pub(super) struct StepRun {
    /// Tries sent so far.
    pub tries: u32,
    /// The call whose answer the shop is waiting for.
    pub waiting: Option<usize>,
    pub state: super::trace::StepState,
    /// The pending timeout of the call it waits for.
    pub timeout: Option<u64>,
}

impl StepRun {
    pub const NEW: StepRun = StepRun {
        tries: 0,
        waiting: None,
        state: super::trace::StepState::NotRun,
        timeout: None,
    };
}

/// The services of a scenario's steps, as they stand before anything happens.
pub(super) fn services(cfg: &SimConfig) -> Vec<super::state::ServiceView> {
    cfg.steps
        .iter()
        .map(|s| super::state::ServiceView {
            service: s.service,
            memory: Vec::new(),
            effects: Vec::new(),
        })
        .collect()
}

/// Ticks a typical attempt makes (send, receive, charge, answer, and a timeout or two).
const TICKS_PER_ATTEMPT: usize = 6;

/// The buffers a run needs only while it runs, kept for the next run on the same thread so
/// that a short run does not spend its time allocating them.
#[derive(Default)]
struct Scratch {
    /// The checkout's bookkeeping per intent, each with its list of layers.
    runs: Vec<ClientRun>,
    /// What the checkout knows now, per intent.
    clients: Vec<ClientView>,
    /// The requests sent (the trace keeps what it needs of them).
    requests: Vec<Request>,
    /// The messages on the wire now.
    in_flight: Vec<Flight>,
    queue: BinaryHeap<Reverse<Due>>,
    events: Vec<Option<Event>>,
    fault_index: Vec<(usize, u32, usize)>,
    fault_fired: Vec<bool>,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Option<Scratch>> = const { std::cell::Cell::new(None) };
    /// The memory and services a run starts with: empty, and shared by every run rather than
    /// allocated for each (the first change copies them anyway, as a tick holds them by then).
    static EMPTY_MEMORY: Arc<super::state::Shared<MemoryEntry>> = Arc::default();
    static NO_SERVICES: Arc<Vec<super::state::ServiceView>> = Arc::default();
}

/// Something scheduled to happen at a virtual time.
#[derive(Clone, Debug)]
pub(super) enum Event {
    /// The customer presses Pay for an intent.
    Pay { intent: usize },
    /// The checkout sends its next attempt (start of a run, or a backoff has elapsed).
    Send { intent: usize, epoch: u64 },
    /// A copy of a request reaches the processor's door.
    Arrive { req: usize },
    /// The network drops a request.
    LoseRequest { req: usize },
    /// The network holds a message up, or makes a second copy of it: told as a tick at the
    /// moment the message would otherwise have arrived.
    Wire {
        direction: super::config::Direction,
        id: usize,
        what: WireFault,
    },
    /// The processor carries out the next step of its work on a request.
    Step {
        req: usize,
        step: Step,
        incarnation: u32,
    },
    /// A reply reaches the checkout.
    ReplyArrive { reply: usize },
    /// The network drops a reply.
    LoseReply { reply: usize },
    /// The innermost layer's wait for an attempt runs out.
    Timeout {
        intent: usize,
        attempt: u32,
        epoch: u64,
    },
    /// An outer layer's deadline on one of its attempts runs out.
    Deadline {
        intent: usize,
        layer: usize,
        token: u64,
    },
    /// The processor comes back after a crash.
    Restart,
    /// A remembered entry reaches the end of its retention window.
    Expire { key: Key, at: Instant },
    /// A person re-runs an intent that ended unpaid.
    Rerun { intent: usize, path: usize },
    /// A lookup reaches the processor.
    LookupArrive { lookup: usize },
    /// The answer to a lookup reaches the checkout.
    LookupReply { lookup: usize },
    /// No answer to a lookup in time.
    LookupTimeout { lookup: usize },
    /// The shop's reconciliation job runs.
    Reconcile,
    /// The shop calls a downstream service: the step's first try, or a retry.
    CallSend { intent: usize, step: usize },
    /// A call reaches its service.
    CallArrive { call: usize },
    /// The service has worked on a call for its processing time.
    CallWork { call: usize },
    /// The service's answer reaches the shop.
    CallAnswer { call: usize },
    /// The network drops a call or its answer.
    CallLose {
        call: usize,
        direction: super::config::Direction,
    },
    /// The network holds a call or its answer up: told when it would have arrived.
    CallDelay {
        call: usize,
        direction: super::config::Direction,
        by_ms: u64,
    },
    /// The shop's wait for a call runs out.
    CallTimeout { call: usize },
}

impl Event {
    /// Expiries alone do not keep the simulation going: once nothing else is pending, the
    /// story is over and the keys would simply age out.
    fn keeps_alive(&self) -> bool {
        !matches!(self, Event::Expire { .. })
    }
}

/// The processor's steps after it has accepted a request as new work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// `with-charge`: the ledger line and the key record in one atomic write.
    Commit,
    /// Write the charge alone.
    Charge,
    /// Append the key to the separate log.
    KeyLog,
    /// `inprogress-record`: complete the record with the answer.
    Record,
    /// Send the answer.
    Reply,
}

/// When a scheduled event is due: its time, then the order it was scheduled in, in one
/// number so that the queue compares and moves a single word pair. The event itself waits in
/// [`World::events`] under its number.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Due(u128);

impl Due {
    fn new(at: Instant, seq: u64) -> Due {
        Due(u128::from(at.0) << 64 | u128::from(seq))
    }
    fn at(self) -> Instant {
        Instant((self.0 >> 64) as u64)
    }
    fn seq(self) -> usize {
        // The low half is the sequence number, which counts events and fits a usize.
        (self.0 as u64) as usize
    }
}

/// One copy of a charge request on its way or at the processor.
#[derive(Clone, Debug)]
pub(super) struct Request {
    pub intent: usize,
    pub attempt: u32,
    pub epoch: u64,
    pub key: Option<Key>,
    pub amount: Cents,
    /// Digest of what is charged (order, amount, items): the `with-charge` fingerprint.
    pub fingerprint: u64,
    /// Digest of the body as sent (without the order id): what `content-hash` compares.
    pub content: u64,
    /// 0 for the original, 1 for a copy made by the network.
    pub copy: u8,
    pub processing_ms: u64,
    /// The answer the processor has prepared, once it has one.
    pub response: Option<Response>,
    /// The processor's next step on this request, while one is scheduled.
    pub pending: Option<Step>,
}

impl Request {
    /// What the trace keeps of the request.
    pub fn sent(self) -> super::fact::SentRequest {
        super::fact::SentRequest {
            intent: self.intent,
            attempt: self.attempt,
            key: self.key,
            amount: self.amount,
            copy: self.copy,
            processing_ms: self.processing_ms,
            content: self.content,
        }
    }
}

/// The checkout's bookkeeping for one intent.
#[derive(Clone, Debug)]
pub(super) struct ClientRun {
    /// Where each layer stands, innermost first.
    pub layers: Vec<LayerRun>,
    /// Bumped whenever pending client events must be forgotten (a run abandoned or restarted).
    pub epoch: u64,
    /// Layers (0..=n) whose attempt begins with the next send, so their deadlines start then.
    pub fresh_layers: usize,
    /// The attempt whose answer the checkout is waiting for.
    pub waiting_for: Option<u32>,
    /// Attempts sent for this intent, across every run.
    pub attempts: u32,
    /// Index of the next human path to try when a run ends unpaid.
    pub next_path: usize,
    pub finished: bool,
    /// The pending timers of this intent, so they can be called off when they stop mattering
    /// (an answer arrived, an attempt was abandoned, the run ended).
    pub timeout: Option<u64>,
    pub send: Option<u64>,
    /// The lookup the checkout is waiting on before its retry, if any.
    pub lookup: Option<usize>,
    /// The last lookup said to go ahead: the next send is the retry itself.
    pub cleared: bool,
    /// The intent's key, shared by every request, view and charge that carries it.
    pub key: Key,
    /// The intent's request fingerprint, and its body digest before any send time: the same
    /// for every attempt, so worked out once.
    pub fingerprint: u64,
    pub content: u64,
}

/// Where one retrying layer of the checkout stands for one intent.
#[derive(Clone, Debug)]
pub(super) struct LayerRun {
    /// The layer's current attempt, counted from 1.
    pub attempt: u32,
    /// Identifies the current attempt, so a stale deadline can be recognised.
    pub token: u64,
    /// The previous sleep, for decorrelated jitter.
    pub last_sleep: u64,
    /// The pending deadline of an outer layer's current attempt.
    pub deadline: Option<u64>,
    /// The key this layer hands down for its current attempt.
    pub key: Option<Key>,
}

impl LayerRun {
    /// A layer before its first attempt.
    const START: LayerRun = LayerRun {
        attempt: 1,
        token: 0,
        last_sleep: 0,
        deadline: None,
        key: None,
    };
}

/// The simulation in motion.
pub(super) struct World<'a> {
    pub cfg: &'a SimConfig,
    pub design: Design,
    pub now: Instant,
    queue: BinaryHeap<Reverse<Due>>,
    seq: u64,
    alive: usize,
    /// Every event scheduled, by its number: `None` once it has happened or been called off.
    events: Vec<Option<Event>>,
    pub rng: fastrand::Rng,
    pub memory: Arc<super::state::Shared<MemoryEntry>>,
    /// Charges and refunds so far: each tick sees how many there were, and is given the
    /// finished lists when the run is over.
    pub ledger: Vec<Charge>,
    pub refunds: Vec<super::state::Refund>,
    /// Every version of the parts of the state the ticks have shown so far, and whether the
    /// parts have changed since the last one (the next tick then shows a new version).
    versions: Vec<Parts>,
    parts_changed: bool,
    /// Where the lists the ticks read stand at the latest tick.
    marks: Marks,
    /// `(intent, attempt, index into cfg.faults)`, sorted, so a lookup does not scan every
    /// fault.
    pub fault_index: Vec<(usize, u32, usize)>,
    /// The last lookup in `fault_index`: intent, attempt, and where its faults sit.
    last_faults: std::cell::Cell<(usize, u32, usize, usize)>,
    /// What the checkout knows about each intent now.
    pub clients: Vec<ClientView>,
    /// Every view of an intent the ticks have shown, each once; the view each intent shows
    /// now, by its place there; every list of those places a tick has shown, one after
    /// another; and whether the next tick needs a new list. A change to one intent adds one
    /// view and a list of places, not a copy of every intent's view.
    client_views: Vec<ClientView>,
    client_ids: Vec<u32>,
    client_lists: Vec<u32>,
    clients_changed: bool,
    pub processor_up: bool,
    /// The messages on the wire now; every list of them a tick has shown, one after
    /// another; and whether the next tick needs a new one.
    in_flight: Vec<Flight>,
    flight_log: Vec<Flight>,
    flights_changed: bool,
    pub incarnation: u32,
    pub counters: Counters,
    pub runs: Vec<ClientRun>,
    pub requests: Vec<Request>,
    pub replies: Vec<SentReply>,
    pub lookups: Vec<super::fact::SentLookup>,
    pub fault_fired: Vec<bool>,
    pub ticks: Vec<Tick>,
    pub token_seq: u64,
    /// What the last crash cut off, told when the processor is back.
    pub interrupted: Vec<Cut>,
    /// Keys (and body hashes) the retention window has evicted, with when.
    pub evicted: BTreeMap<Key, Instant>,
    /// `inprogress-record`: keys whose in-progress record expired, with when.
    pub lapsed: BTreeMap<Key, Instant>,
    /// The downstream services, one per step, shared with the ticks that show them.
    pub services: Arc<Vec<super::state::ServiceView>>,
    /// Where each step stands, by intent and then by step.
    pub step_runs: Vec<Vec<StepRun>>,
    /// Every call the shop made to a downstream service.
    pub calls: Vec<super::fact::SentCall>,
    /// Steps the processor has taken on requests, to tell a runaway chain of steps.
    pub steps_taken: usize,
}

/// The fields of a tick other than the state, which is taken from the world.
pub(super) struct TickDraft {
    pub actor: Actor,
    pub kind: TickKind,
    pub fact: Fact,
    pub message: Option<Message>,
    pub intent: Option<usize>,
    pub attempt: Option<u32>,
}

impl TickDraft {
    pub fn new(actor: Actor, kind: TickKind, fact: Fact) -> TickDraft {
        TickDraft {
            actor,
            kind,
            fact,
            message: None,
            intent: None,
            attempt: None,
        }
    }
    pub fn message(mut self, message: Message) -> TickDraft {
        self.message = Some(message);
        self
    }
    pub fn of(mut self, intent: usize, attempt: Option<u32>) -> TickDraft {
        self.intent = Some(intent);
        self.attempt = attempt;
        self
    }
}

impl<'a> World<'a> {
    pub fn new(cfg: &'a SimConfig, design: Design) -> World<'a> {
        let mut scratch = SCRATCH.with(std::cell::Cell::take).unwrap_or_default();
        let layers = cfg.layers.len();
        // Attempts every intent would make if each one ran its whole retry budget, and every
        // human path too.
        let attempts = usize::try_from(cfg.attempts_per_run())
            .unwrap_or(usize::MAX)
            .saturating_mul(cfg.intents.len())
            .saturating_mul(1 + cfg.reruns.len());
        let mut clients = std::mem::take(&mut scratch.clients);
        clients.clear();
        clients.extend(cfg.intents.iter().map(|i| ClientView {
            order: i.order.clone(),
            key: None,
            belief: super::state::Belief::NotStarted,
            attempts_sent: 0,
            marked_paid: false,
            alerted: false,
        }));
        // The last run's bookkeeping, its lists kept, started afresh for this one.
        let mut runs = std::mem::take(&mut scratch.runs);
        runs.truncate(cfg.intents.len());
        for (n, i) in cfg.intents.iter().enumerate() {
            let mut lanes = runs
                .get_mut(n)
                .map(|r| std::mem::take(&mut r.layers))
                .unwrap_or_default();
            lanes.clear();
            lanes.resize(layers, LayerRun::START);
            let run = ClientRun {
                layers: lanes,
                epoch: 0,
                fresh_layers: 0,
                waiting_for: None,
                attempts: 0,
                next_path: 0,
                finished: false,
                timeout: None,
                send: None,
                lookup: None,
                cleared: false,
                key: Key(i.key.clone()),
                fingerprint: i.digests.fingerprint,
                content: i.digests.content,
            };
            match runs.get_mut(n) {
                Some(slot) => *slot = run,
                None => runs.push(run),
            }
        }
        // Room for the ticks the attempts are likely to make, so a long story is not
        // copied as its list grows (and does not briefly need twice its memory).
        let ticks = attempts
            .saturating_mul(TICKS_PER_ATTEMPT)
            .saturating_add(8)
            .min(cfg.max_ticks.saturating_add(1));
        scratch.queue.clear();
        scratch.events.clear();
        scratch.events.push(None);
        scratch.fault_index.clear();
        scratch.fault_index.extend(
            cfg.faults
                .iter()
                .enumerate()
                .map(|(i, f)| (f.intent, f.attempt, i)),
        );
        scratch.fault_index.sort_unstable();
        scratch.fault_fired.clear();
        scratch.fault_fired.resize(cfg.faults.len(), false);
        World {
            cfg,
            design,
            now: Instant(0),
            queue: scratch.queue,
            seq: 0,
            alive: 0,
            events: scratch.events,
            rng: fastrand::Rng::with_seed(cfg.seed),
            memory: EMPTY_MEMORY.with(Arc::clone),
            ledger: Vec::new(),
            refunds: Vec::new(),
            // The memory changes once or twice per attempt.
            versions: Vec::with_capacity(attempts.saturating_mul(2).min(ticks)),
            parts_changed: true,
            marks: Marks::default(),
            fault_index: scratch.fault_index,
            last_faults: std::cell::Cell::new((usize::MAX, 0, 0, 0)),
            clients,
            // Room for a few versions of the checkout's views before the lists must grow.
            client_views: Vec::with_capacity(cfg.intents.len().saturating_mul(2)),
            client_ids: Vec::with_capacity(cfg.intents.len()),
            client_lists: Vec::with_capacity(cfg.intents.len().saturating_mul(8)),
            clients_changed: true,
            processor_up: true,
            in_flight: {
                let mut flights = std::mem::take(&mut scratch.in_flight);
                flights.clear();
                flights
            },
            // Room for a message or so at every tick before the list must grow.
            flight_log: Vec::with_capacity(ticks),
            flights_changed: false,
            incarnation: 0,
            counters: Counters::default(),
            runs,
            requests: {
                let mut requests = std::mem::take(&mut scratch.requests);
                requests.clear();
                requests.reserve(attempts.min(64));
                requests
            },
            replies: Vec::with_capacity(attempts.min(64)),
            lookups: Vec::new(),
            fault_fired: scratch.fault_fired,
            ticks: Vec::with_capacity(ticks),
            token_seq: 0,
            interrupted: Vec::new(),
            evicted: BTreeMap::new(),
            lapsed: BTreeMap::new(),
            services: if cfg.steps.is_empty() {
                NO_SERVICES.with(Arc::clone)
            } else {
                Arc::new(services(cfg))
            },
            step_runs: if cfg.steps.is_empty() {
                Vec::new()
            } else {
                vec![vec![StepRun::NEW; cfg.steps.len()]; cfg.intents.len()]
            },
            calls: Vec::new(),
            steps_taken: 0,
        }
    }

    /// Hands the run's working buffers to the next run on this thread.
    pub fn recycle(&mut self) {
        // What is still queued (keys waiting to expire) is let go now, not at the next run.
        self.queue.clear();
        self.events.clear();
        self.requests.clear();
        let scratch = Scratch {
            runs: std::mem::take(&mut self.runs),
            clients: std::mem::take(&mut self.clients),
            requests: std::mem::take(&mut self.requests),
            in_flight: std::mem::take(&mut self.in_flight),
            queue: std::mem::take(&mut self.queue),
            events: std::mem::take(&mut self.events),
            fault_index: std::mem::take(&mut self.fault_index),
            fault_fired: std::mem::take(&mut self.fault_fired),
        };
        SCRATCH.with(|s| s.set(Some(scratch)));
    }

    /// Schedules an event; the number returned can call it off.
    pub fn schedule(&mut self, at: Instant, event: Event) -> u64 {
        if event.keeps_alive() {
            self.alive += 1;
        }
        self.seq += 1;
        self.events.push(Some(event));
        self.queue.push(Reverse(Due::new(at, self.seq)));
        self.seq
    }

    pub fn schedule_in(&mut self, delay_ms: u64, event: Event) -> u64 {
        let at = self.now.plus(delay_ms);
        self.schedule(at, event)
    }

    /// Calls off a scheduled event: it will neither happen nor keep the story going.
    pub fn cancel(&mut self, seq: Option<u64>) {
        let slot = seq
            .and_then(|s| usize::try_from(s).ok())
            .and_then(|s| self.events.get_mut(s));
        if let Some(event) = slot.and_then(Option::take)
            && event.keeps_alive()
        {
            self.alive = self.alive.saturating_sub(1);
        }
    }

    /// The next event, once anything but expiries is still pending.
    pub fn pop(&mut self) -> Option<Event> {
        loop {
            if self.alive == 0 {
                return None;
            }
            let Reverse(due) = self.queue.pop()?;
            // An event called off has left its slot empty.
            let Some(event) = self.events.get_mut(due.seq()).and_then(Option::take) else {
                continue;
            };
            if event.keeps_alive() {
                self.alive -= 1;
            }
            self.now = self.now.max(due.at());
            return Some(event);
        }
    }

    /// Records a tick with the complete state as it stands now.
    pub fn record(&mut self, draft: TickDraft) {
        let state = self.snapshot();
        self.ticks.push(Tick {
            at: self.now,
            actor: draft.actor,
            kind: draft.kind,
            fact: draft.fact,
            missed: Vec::new(),
            message: draft.message,
            intent: draft.intent,
            attempt: draft.attempt,
            state,
        });
    }

    pub fn snapshot(&mut self) -> Snapshot {
        let marks = &mut self.marks;
        if self.parts_changed {
            marks.version = count(self.versions.len());
            self.versions.push(Parts {
                memory: Arc::clone(&self.memory),
                services: Arc::clone(&self.services),
            });
            self.parts_changed = false;
        }
        if self.clients_changed {
            self.client_ids.truncate(self.clients.len());
            for (i, view) in self.clients.iter().enumerate() {
                let kept = self
                    .client_ids
                    .get(i)
                    .and_then(|&id| self.client_views.get(id as usize));
                if kept != Some(view) {
                    let id = count(self.client_views.len());
                    self.client_views.push(view.clone());
                    match self.client_ids.get_mut(i) {
                        Some(slot) => *slot = id,
                        None => self.client_ids.push(id),
                    }
                }
            }
            marks.clients = Stretch::at(self.client_lists.len(), self.client_ids.len());
            self.client_lists.extend_from_slice(&self.client_ids);
            self.clients_changed = false;
        }
        if self.flights_changed {
            marks.flights = Stretch::at(self.flight_log.len(), self.in_flight.len());
            self.flight_log.extend_from_slice(&self.in_flight);
            self.flights_changed = false;
        }
        marks.ledger = count(self.ledger.len());
        marks.refunds = count(self.refunds.len());
        Snapshot::new(*marks, self.processor_up, self.counters)
    }

    /// A message leaves its sender and is on the wire.
    pub fn put_on_wire(&mut self, flight: Flight) {
        self.flights_changed = true;
        self.in_flight.push(flight);
    }

    /// The first message on the wire that `which` picks has arrived or been lost.
    pub fn take_off_wire(&mut self, which: impl Fn(&Flight) -> bool) {
        if let Some(i) = self.in_flight.iter().position(which) {
            self.flights_changed = true;
            self.in_flight.remove(i);
        }
    }

    /// The processor's memory, to change: copied first if a recorded tick still shows it.
    pub fn memory_mut(&mut self) -> &mut super::state::Shared<MemoryEntry> {
        self.parts_changed = true;
        Arc::make_mut(&mut self.memory)
    }

    /// The downstream services, to change (copied the same way).
    pub fn services_mut(&mut self) -> &mut Vec<super::state::ServiceView> {
        self.parts_changed = true;
        Arc::make_mut(&mut self.services)
    }

    /// A charge goes into the ledger.
    pub fn add_charge(&mut self, charge: Charge) {
        self.ledger.push(charge);
    }

    /// A refund goes into the list of refunds.
    pub fn add_refund(&mut self, refund: super::state::Refund) {
        self.refunds.push(refund);
    }

    /// Gives every tick the run's history: the versions of the parts, and the lists the
    /// ticks show stretches of.
    pub fn close(&mut self) {
        let history = Arc::new(History {
            parts: std::mem::take(&mut self.versions),
            ledger: std::mem::take(&mut self.ledger),
            refunds: std::mem::take(&mut self.refunds),
            client_views: std::mem::take(&mut self.client_views),
            clients: std::mem::take(&mut self.client_lists),
            flights: std::mem::take(&mut self.flight_log),
        });
        for tick in &mut self.ticks {
            tick.state.attach(&history);
        }
    }

    pub fn client_mut(&mut self, intent: usize) -> &mut ClientView {
        self.clients_changed = true;
        &mut self.clients[intent]
    }

    /// Adds crashes the scenario planned but this answer never passed through to the last tick.
    pub fn note_missed(&mut self, missed: Vec<MissedCrash>) {
        if let Some(last) = self.ticks.last_mut() {
            last.missed.extend(missed);
        }
    }

    /// The faults that apply to one attempt of one intent, with their indices.
    pub fn faults_for(&self, intent: usize, attempt: u32) -> impl Iterator<Item = (usize, &Fault)> {
        self.fault_index[self.fault_range(intent, attempt)]
            .iter()
            .map(|&(_, _, i)| (i, &self.cfg.faults[i]))
    }

    /// Where the faults of one attempt of one intent sit in `fault_index`.
    pub fn fault_range(&self, intent: usize, attempt: u32) -> std::ops::Range<usize> {
        if self.fault_index.is_empty() {
            return 0..0;
        }
        // The same attempt is asked about several times in a row (at its send, arrival,
        // each step and its answer): remember the last answer.
        let (i, a, start, end) = self.last_faults.get();
        if (i, a) == (intent, attempt) {
            return start..end;
        }
        let key = (intent, attempt);
        let start = self.fault_index.partition_point(|&(i, a, _)| (i, a) < key);
        let end = start + self.fault_index[start..].partition_point(|&(i, a, _)| (i, a) == key);
        self.last_faults.set((intent, attempt, start, end));
        start..end
    }

    /// The crash the scenario places at `point` of this request, if it has not happened yet.
    pub fn take_crash(&mut self, req: usize, point: CrashPoint) -> Option<u64> {
        let (intent, attempt) = (self.requests[req].intent, self.requests[req].attempt);
        let found = self
            .faults_for(intent, attempt)
            .find_map(|(i, f)| match f.action {
                FaultAction::Crash {
                    after,
                    restart_after_ms,
                } if after == point && !self.fault_fired[i] => Some((i, restart_after_ms)),
                _ => None,
            });
        let (i, restart) = found?;
        self.fault_fired[i] = true;
        Some(restart)
    }

    /// A fresh token to tell one attempt of a layer from the next.
    pub fn next_token(&mut self) -> u64 {
        self.token_seq += 1;
        self.token_seq
    }
}
