//! Runs a scenario to the end under one design and turns the run into a trace.

use super::config::SimConfig;
use super::design::Design;
use super::state::Belief;
use super::time::ClockStyle;
use super::trace::{Actor, IntentOutcome, Outcome, TickKind, Trace, Verdict};
use super::world::{Event, TickDraft, World, capitalise};
use std::fmt;

/// Why a simulation could not be completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// The run would produce more ticks than the configured limit.
    TooManyTicks { limit: usize, layers: String },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::TooManyTicks { limit, layers } => write!(
                f,
                "the simulation passed {limit} ticks and was stopped; the retry layers ({layers}) multiply into more attempts than can be shown"
            ),
        }
    }
}

impl std::error::Error for SimError {}

/// Simulates `cfg` under `design` from the first Pay to the last answer.
pub fn simulate(cfg: &SimConfig, design: Design) -> Result<Trace, SimError> {
    let trace = run(cfg, design)?;
    // A story that runs past midnight needs day numbers; the narration carries the times,
    // so the run is repeated with the clock that names them.
    if cfg.clock == ClockStyle::TimeOfDay && trace.ticks.iter().any(|t| t.at.day() != 0) {
        let mut with_days = cfg.clone();
        with_days.clock = ClockStyle::DayNumber;
        return run(&with_days, design);
    }
    Ok(trace)
}

fn run(cfg: &SimConfig, design: Design) -> Result<Trace, SimError> {
    let mut world = World::new(cfg, design);
    for (intent, i) in cfg.intents.iter().enumerate() {
        world.schedule(i.at, Event::Pay { intent });
    }
    while let Some(event) = world.pop() {
        dispatch(&mut world, event);
        if world.ticks.len() > cfg.max_ticks {
            return Err(SimError::TooManyTicks {
                limit: cfg.max_ticks,
                layers: describe_layers(cfg),
            });
        }
    }
    world.read_statement();
    world.settle_hindsight();
    let outcome = outcome(&world);
    let warnings = unused_faults(&world);
    Ok(Trace {
        design,
        clock: cfg.clock,
        ticks: world.ticks,
        outcome,
        warnings,
    })
}

/// `http client 3 × service 3 × scheduler 3 = 27 attempts`.
pub fn describe_layers(cfg: &SimConfig) -> String {
    let parts: Vec<String> = cfg
        .layers
        .iter()
        .map(|l| format!("{} {}", l.name, l.attempts))
        .collect();
    format!(
        "{} = {} attempts per run",
        parts.join(" × "),
        cfg.attempts_per_run()
    )
}

fn dispatch(world: &mut World<'_>, event: Event) {
    match event {
        Event::Pay { intent } => world.on_pay(intent),
        Event::Send { intent, epoch } => world.on_send(intent, epoch),
        Event::Arrive { req } => world.on_arrive(req),
        Event::LoseRequest { req } => world.on_lose_request(req),
        Event::Wire {
            direction,
            id,
            what,
        } => world.on_wire_fault(direction, id, what),
        Event::Step {
            req,
            step,
            incarnation,
        } => world.on_step(req, step, incarnation),
        Event::ReplyArrive { reply } => world.on_reply_arrive(reply),
        Event::LoseReply { reply } => world.on_lose_reply(reply),
        Event::Timeout {
            intent,
            attempt,
            epoch,
        } => world.on_timeout(intent, attempt, epoch),
        Event::Deadline {
            intent,
            layer,
            token,
        } => world.on_deadline(intent, layer, token),
        Event::Restart => world.on_restart(),
        Event::Expire { key, at } => world.on_expire(key, at),
        Event::Rerun { intent, path } => world.on_rerun(intent, path),
    }
}

impl World<'_> {
    /// The last tick: the customer reads the card statement.
    fn read_statement(&mut self) {
        // Stale timers may have run past the last visible step; the story ends with it.
        if let Some(last) = self.ticks.last() {
            self.now = last.at;
        }
        let merchant = self.cfg.merchant.clone();
        let lines = self.ledger.len();
        let total = super::money::Cents(self.ledger.iter().map(|c| c.amount.0).sum());
        let mut dup_orders: Vec<String> = Vec::new();
        for (i, intent) in self.cfg.intents.iter().enumerate() {
            if self.ledger.iter().filter(|c| c.intent == i).count() > 1 {
                dup_orders.push(intent.order.clone());
            }
        }
        let mut what = match lines {
            0 => format!("no charge from {merchant}"),
            1 => format!("one line from {merchant}, {total}"),
            n => format!("{n} lines from {merchant}, {total} in all"),
        };
        if self.several_orders() {
            let per_order: Vec<String> = self
                .cfg
                .intents
                .iter()
                .enumerate()
                .map(|(i, intent)| {
                    let mine: Vec<_> = self.ledger.iter().filter(|c| c.intent == i).collect();
                    let sum = super::money::Cents(mine.iter().map(|c| c.amount.0).sum());
                    match mine.len() {
                        0 => format!("order {} no line", intent.order),
                        1 => format!("order {} one line ({sum})", intent.order),
                        n => format!("order {} {n} lines ({sum})", intent.order),
                    }
                })
                .collect();
            what = format!("{what}: {}", per_order.join(", "));
        }
        let unconfirmed: Vec<String> = self
            .cfg
            .intents
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                self.ledger.iter().any(|c| c.intent == *i)
                    && self.clients[*i].belief != Belief::Paid
            })
            .map(|(_, intent)| intent.order.clone())
            .collect();
        let meaning = if !dup_orders.is_empty() {
            format!(
                " {} paid for more than once, although the customer pressed Pay once for each; only a reconciliation of charges against orders will find the extra and refund it.",
                capitalise(&orders_phrase(&dup_orders, "was", "were"))
            )
        } else if !unconfirmed.is_empty() {
            format!(
                " The money for {} moved, but the checkout does not believe it was paid; only a reconciliation of charges against orders will bring the two together.",
                orders_phrase(&unconfirmed, "", "").trim_end()
            )
        } else {
            String::new()
        };
        let narration = format!("Later the customer opens the card statement: {what}.{meaning}");
        let label = match lines {
            1 => "statement: 1 line".to_string(),
            n => format!("statement: {n} lines"),
        };
        self.record(TickDraft::new(
            Actor::Customer,
            TickKind::Statement,
            label,
            narration,
        ));
    }
}

/// `Order 5531 was` or `Orders 5531 and 5538 were`; empty verbs give just the noun phrase.
fn orders_phrase(orders: &[String], one: &str, many: &str) -> String {
    match orders {
        [only] => format!("order {only} {one}"),
        _ => format!("orders {} {many}", orders.join(" and ")),
    }
}

fn outcome(world: &World<'_>) -> Outcome {
    let intents: Vec<IntentOutcome> = world
        .cfg
        .intents
        .iter()
        .enumerate()
        .map(|(i, cfg)| {
            let charges: Vec<_> = world.ledger.iter().filter(|c| c.intent == i).collect();
            let belief = match world.clients[i].belief {
                Belief::Waiting | Belief::NotStarted => Belief::Unknown,
                b => b,
            };
            IntentOutcome {
                id: cfg.order.clone(),
                key: (world.cfg.key_strategy != super::config::KeyStrategy::None)
                    .then(|| cfg.key.clone()),
                charges: charges.len(),
                charged_cents: super::money::Cents(charges.iter().map(|c| c.amount.0).sum()),
                client_view: belief,
                verdict: Verdict::judge(charges.len(), belief),
            }
        })
        .collect();
    let verdict = intents
        .iter()
        .map(|i| i.verdict)
        .min()
        .unwrap_or(Verdict::Correct);
    Outcome {
        charges: world.ledger.len(),
        charged_cents: super::money::Cents(world.ledger.iter().map(|c| c.amount.0).sum()),
        verdict,
        intents,
        counters: world.counters,
    }
}

/// Faults the scenario planned on attempts that were never sent under this design.
fn unused_faults(world: &World<'_>) -> Vec<String> {
    world
        .cfg
        .faults
        .iter()
        .filter(|f| f.attempt > world.runs[f.intent].attempts)
        .map(|f| {
            format!(
                "the fault on attempt #{} of order {} never came into play under {}: only {} sent",
                f.attempt,
                world.cfg.intents[f.intent].order,
                world.design.id(),
                match world.runs[f.intent].attempts {
                    1 => "1 attempt was".to_string(),
                    n => format!("{n} attempts were"),
                }
            )
        })
        .collect()
}
