//! The simulated world: the event queue, the working state, and how a tick is recorded.

use super::config::{CrashPoint, Fault, FaultAction, SimConfig};
use super::design::Design;
use super::fact::{Cut, Fact, MissedCrash, WireFault};
use super::money::Cents;
use super::state::{Charge, ClientView, Counters, MemoryEntry, Response, Snapshot};
use super::time::Instant;
use super::trace::{Actor, Message, Tick, TickKind};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::Arc;

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
    Expire { key: String, at: Instant },
    /// A person re-runs an intent that ended unpaid.
    Rerun { intent: usize, path: usize },
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

struct Scheduled {
    at: Instant,
    seq: u64,
    event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

/// One copy of a charge request on its way or at the processor.
#[derive(Clone, Debug)]
pub(super) struct Request {
    pub intent: usize,
    pub attempt: u32,
    pub epoch: u64,
    pub key: Option<String>,
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

/// An answer on its way back to the checkout.
#[derive(Clone, Debug)]
pub(super) struct Reply {
    pub req: usize,
    pub response: Response,
}

/// The checkout's bookkeeping for one intent.
#[derive(Clone, Debug, Default)]
pub(super) struct ClientRun {
    /// Current attempt (1-based) of each layer, innermost first.
    pub layer_attempt: Vec<u32>,
    /// Identifies the current attempt of each layer, so a stale deadline can be recognised.
    pub layer_token: Vec<u64>,
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
    /// The previous sleep of each layer, for decorrelated jitter.
    pub last_sleep: Vec<u64>,
    pub finished: bool,
    /// The pending timers of this intent, so they can be called off when they stop mattering
    /// (an answer arrived, an attempt was abandoned, the run ended).
    pub timeout: Option<u64>,
    pub send: Option<u64>,
    /// The pending deadline of each outer layer's current attempt.
    pub deadlines: Vec<Option<u64>>,
}

/// The simulation in motion.
pub(super) struct World<'a> {
    pub cfg: &'a SimConfig,
    pub design: Design,
    pub now: Instant,
    queue: BinaryHeap<Reverse<Scheduled>>,
    seq: u64,
    alive: usize,
    /// Whether each scheduled event (by its number) has been called off.
    cancelled: Vec<bool>,
    pub rng: fastrand::Rng,
    pub memory: super::state::Shared<MemoryEntry>,
    pub ledger: super::state::Shared<Charge>,
    /// Indices of `cfg.faults` by (intent, attempt), so a lookup does not scan every fault.
    fault_index: BTreeMap<(usize, u32), Vec<usize>>,
    pub clients: Arc<Vec<ClientView>>,
    pub processor_up: bool,
    pub in_flight: Arc<Vec<super::state::Flight>>,
    pub incarnation: u32,
    pub counters: Counters,
    pub runs: Vec<ClientRun>,
    pub requests: Vec<Request>,
    pub replies: Vec<Reply>,
    pub fault_fired: Vec<bool>,
    pub ticks: Vec<Tick>,
    pub token_seq: u64,
    /// What the last crash cut off, told when the processor is back.
    pub interrupted: Vec<Cut>,
    /// Keys (and body hashes) the retention window has evicted, with when.
    pub evicted: BTreeMap<String, Instant>,
    /// `inprogress-record`: keys whose in-progress record expired, with when.
    pub lapsed: BTreeMap<String, Instant>,
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
        let layers = cfg.layers.len();
        let clients = cfg
            .intents
            .iter()
            .map(|i| ClientView {
                order: Arc::from(i.order.as_str()),
                key: None,
                belief: super::state::Belief::NotStarted,
                attempts_sent: 0,
            })
            .collect();
        let run = ClientRun {
            layer_attempt: vec![1; layers],
            layer_token: vec![0; layers],
            last_sleep: vec![0; layers],
            deadlines: vec![None; layers],
            ..ClientRun::default()
        };
        World {
            cfg,
            design,
            now: Instant(0),
            queue: BinaryHeap::new(),
            seq: 0,
            alive: 0,
            cancelled: vec![false],
            rng: fastrand::Rng::with_seed(cfg.seed),
            memory: imbl::Vector::new(),
            ledger: imbl::Vector::new(),
            fault_index: {
                let mut index: BTreeMap<(usize, u32), Vec<usize>> = BTreeMap::new();
                for (i, f) in cfg.faults.iter().enumerate() {
                    index.entry((f.intent, f.attempt)).or_default().push(i);
                }
                index
            },
            clients: Arc::new(clients),
            processor_up: true,
            in_flight: Arc::new(Vec::new()),
            incarnation: 0,
            counters: Counters::default(),
            runs: vec![run; cfg.intents.len()],
            requests: Vec::new(),
            replies: Vec::new(),
            fault_fired: vec![false; cfg.faults.len()],
            // Most stories run to a few dozen ticks: start with room for them.
            ticks: Vec::with_capacity(64),
            token_seq: 0,
            interrupted: Vec::new(),
            evicted: BTreeMap::new(),
            lapsed: BTreeMap::new(),
        }
    }

    /// Schedules an event; the number returned can call it off.
    pub fn schedule(&mut self, at: Instant, event: Event) -> u64 {
        if event.keeps_alive() {
            self.alive += 1;
        }
        self.seq += 1;
        self.cancelled.push(false);
        self.queue.push(Reverse(Scheduled {
            at,
            seq: self.seq,
            event,
        }));
        self.seq
    }

    pub fn schedule_in(&mut self, delay_ms: u64, event: Event) -> u64 {
        let at = self.now.plus(delay_ms);
        self.schedule(at, event)
    }

    /// Calls off a scheduled event: it will neither happen nor keep the story going.
    pub fn cancel(&mut self, seq: Option<u64>) {
        if let Some(flag) = seq.and_then(|s| self.cancelled.get_mut(s as usize))
            && !*flag
        {
            *flag = true;
            self.alive = self.alive.saturating_sub(1);
        }
    }

    /// The next event, once anything but expiries is still pending.
    pub fn pop(&mut self) -> Option<Event> {
        loop {
            if self.alive == 0 {
                return None;
            }
            let Reverse(next) = self.queue.pop()?;
            if self
                .cancelled
                .get(next.seq as usize)
                .copied()
                .unwrap_or(false)
            {
                continue;
            }
            if next.event.keeps_alive() {
                self.alive -= 1;
            }
            self.now = self.now.max(next.at);
            return Some(next.event);
        }
    }

    /// Records a tick with the complete state as it stands now.
    pub fn record(&mut self, draft: TickDraft) {
        self.ticks.push(Tick {
            at: self.now,
            actor: draft.actor,
            kind: draft.kind,
            fact: draft.fact,
            missed: Vec::new(),
            message: draft.message,
            intent: draft.intent,
            attempt: draft.attempt,
            state: self.snapshot(),
        });
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            memory: self.memory.clone(),
            ledger: self.ledger.clone(),
            clients: Arc::clone(&self.clients),
            processor_up: self.processor_up,
            counters: self.counters,
            in_flight: Arc::clone(&self.in_flight),
        }
    }

    pub fn client_mut(&mut self, intent: usize) -> &mut ClientView {
        &mut Arc::make_mut(&mut self.clients)[intent]
    }

    /// Adds crashes the scenario planned but this answer never passed through to the last tick.
    pub fn note_missed(&mut self, missed: Vec<MissedCrash>) {
        if let Some(last) = self.ticks.last_mut() {
            last.missed.extend(missed);
        }
    }

    /// The faults that apply to one attempt of one intent, with their indices.
    pub fn faults_for(&self, intent: usize, attempt: u32) -> impl Iterator<Item = (usize, &Fault)> {
        self.fault_index
            .get(&(intent, attempt))
            .into_iter()
            .flatten()
            .map(|&i| (i, &self.cfg.faults[i]))
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
