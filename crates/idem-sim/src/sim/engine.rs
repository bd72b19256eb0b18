//! Runs a scenario to the end under one design and turns the run into a trace.

use super::config::{KeySource, SimConfig};
use super::design::Design;
use super::fact::Fact;
use super::state::Belief;
use super::time::ClockStyle;
use super::trace::{Actor, IntentOutcome, Outcome, StepOutcome, TickKind, Trace, Verdict};
use super::world::{Event, TickDraft, World};

/// Why a simulation could not be completed: a typed error at the core crate's border, which
/// callers above may match on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The run would produce more ticks than the configured limit.
    #[error(
        "the simulation passed {limit} ticks and was stopped; the retry layers ({layers}) multiply into more attempts than can be shown"
    )]
    TooManyTicks { limit: usize, layers: String },
    /// The engine handled more events than any run within the tick limit needs: something
    /// keeps scheduling work without telling it, and the run is stopped rather than left to
    /// spin.
    #[error(
        "the simulation handled {limit} events without finishing and was stopped: the engine is going round in circles, which is a bug in idem"
    )]
    TooManyEvents { limit: usize },
    /// The processor took more steps than its requests can need: a chain of steps that
    /// schedules itself again.
    #[error(
        "the processor took {steps} steps over {requests} requests and was stopped: its work is going round in circles, which is a bug in idem"
    )]
    TooManySteps { steps: usize, requests: usize },
}

/// Events the engine may handle per tick the limit allows. Nearly every event records a tick;
/// the rest (a timer that no longer matters, work a crash cut off, an expiry already done)
/// come a few at most for each tick that scheduled them, so this is generous.
const EVENTS_PER_TICK: usize = 16;

/// Steps the processor may take per request: every design needs at most three (the charge,
/// a key or record write, the answer), so four leaves room.
const STEPS_PER_REQUEST: usize = 4;

thread_local! {
    static RUNS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many simulations this thread has started: what lets a test see that work meant to be
/// done once (a scenario a session names twice, a recording refused) is not done again.
pub fn runs_on_this_thread() -> u64 {
    RUNS.with(std::cell::Cell::get)
}

/// Simulates `cfg` under `design` from the first Pay to the last answer.
pub fn simulate(cfg: &SimConfig, design: Design) -> Result<Trace, SimError> {
    RUNS.with(|r| r.set(r.get() + 1));
    let mut world = World::new(cfg, design);
    for (intent, i) in cfg.intents.iter().enumerate() {
        world.schedule(i.at, Event::Pay { intent });
    }
    if let Some(job) = cfg.reconcile {
        world.schedule(job.at, Event::Reconcile);
    }
    run_events(&mut world, dispatch)?;
    world.read_statement();
    let outcome = outcome(&world);
    let warnings = unused_faults(&world);
    // A story that runs past midnight is told with day numbers.
    let clock = if cfg.clock == ClockStyle::TimeOfDay && world.ticks.iter().any(|t| t.at.day() != 0)
    {
        ClockStyle::DayNumber
    } else {
        cfg.clock
    };
    // Drained, not taken: the list itself is kept for the next run.
    let requests = world.requests.drain(..).map(|r| r.sent()).collect();
    let replies = std::mem::take(&mut world.replies);
    // Every tick is given the run's versions of the state, ledger and refunds included.
    world.close();
    world.recycle();
    let lookups = std::mem::take(&mut world.lookups);
    let calls = std::mem::take(&mut world.calls);
    Ok(Trace {
        design,
        clock,
        ticks: world.ticks,
        requests,
        replies,
        lookups,
        calls,
        outcome,
        warnings,
    })
}

/// Handles events in time order until none is left, within three bounds: the ticks the
/// scenario allows, the events those ticks can need, and the processor steps its requests can
/// need, so a loop that schedules work ends in an error instead of a hang (or, told tick by
/// tick, a long crawl to the tick limit).
fn run_events<'a>(
    world: &mut World<'a>,
    mut handle: impl FnMut(&mut World<'a>, Event),
) -> Result<(), SimError> {
    let cfg = world.cfg;
    let max_events = cfg.max_ticks.saturating_mul(EVENTS_PER_TICK);
    let mut handled = 0usize;
    while let Some(event) = world.pop() {
        handled += 1;
        if handled > max_events {
            return Err(SimError::TooManyEvents { limit: max_events });
        }
        handle(world, event);
        let requests = world.requests.len();
        if world.steps_taken > requests.saturating_mul(STEPS_PER_REQUEST) {
            return Err(SimError::TooManySteps {
                steps: world.steps_taken,
                requests,
            });
        }
        if world.ticks.len() > cfg.max_ticks {
            return Err(SimError::TooManyTicks {
                limit: cfg.max_ticks,
                layers: describe_layers(cfg),
            });
        }
    }
    Ok(())
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
        Event::LookupArrive { lookup } => world.on_lookup_arrive(lookup),
        Event::LookupReply { lookup } => world.on_lookup_reply(lookup),
        Event::LookupTimeout { lookup } => world.on_lookup_timeout(lookup),
        Event::CallSend { intent, step } => world.on_call_send(intent, step),
        Event::CallArrive { call } => world.on_call_arrive(call),
        Event::CallWork { call } => world.on_call_work(call),
        Event::CallAnswer { call } => world.on_call_answer(call),
        Event::CallLose { call, direction } => world.on_call_lose(call, direction),
        Event::CallDelay {
            call,
            direction,
            by_ms,
        } => world.on_call_delay(call, direction, by_ms),
        Event::CallTimeout { call } => world.on_call_timeout(call),
        Event::Reconcile => {
            if let Some(job) = world.cfg.reconcile {
                world.on_reconcile(job.unconfirmed);
            }
        }
    }
}

impl World<'_> {
    /// The last tick: the customer reads the card statement.
    fn read_statement(&mut self) {
        // Stale timers may have run past the last visible step; the story ends with it.
        if let Some(last) = self.ticks.last() {
            self.now = last.at;
        }
        self.record(TickDraft::new(
            Actor::Customer,
            TickKind::Statement,
            Fact::Statement,
        ));
    }
}

fn outcome(world: &World<'_>) -> Outcome {
    let intents: Vec<IntentOutcome> = world
        .cfg
        .intents
        .iter()
        .enumerate()
        .map(|(i, cfg)| {
            let (charges, cents) = world
                .ledger
                .iter()
                .filter(|c| c.intent == i)
                .fold((0, 0), |(n, sum), c| (n + 1, sum + c.amount.0));
            let belief = match world.clients[i].belief {
                Belief::Waiting | Belief::NotStarted => Belief::Unknown,
                b => b,
            };
            let steps: Vec<StepOutcome> = world
                .cfg
                .steps
                .iter()
                .enumerate()
                .map(|(s, step)| StepOutcome {
                    service: step.service,
                    key_mode: step.key_mode,
                    effects: world.services[s].effects_for(i),
                    calls: world.step_runs[i][s].tries,
                    state: world.step_runs[i][s].state,
                })
                .collect();
            let most_effects = steps.iter().map(|s| s.effects).max().unwrap_or(0);
            IntentOutcome {
                id: cfg.order.clone(),
                // The key the intent's first request carries.
                key: match world.cfg.key_source() {
                    KeySource::Order => world.cfg.order_has_key().then(|| cfg.key.clone()),
                    KeySource::Minted { .. } => Some(cfg.key.clone()),
                    KeySource::Dropped { .. } => None,
                },
                charges,
                charged_cents: super::money::Cents(cents),
                client_view: belief,
                verdict: Verdict::judge_with_steps(charges, belief, most_effects),
                reconcile: world.cfg.reconcile.map(|_| world.reconciled(i)),
                steps,
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
        reconcile: world
            .cfg
            .reconcile
            .map(|job| world.reconcile_outcome(job.at)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::config::KeyStrategy;
    use crate::sim::time::Instant;

    /// A scenario with nothing in it, allowing `max_ticks` ticks.
    fn empty(max_ticks: usize) -> SimConfig {
        SimConfig {
            title: String::new(),
            seed: 0,
            merchant: String::new(),
            intents: Vec::new(),
            layers: Vec::new(),
            key_strategy: KeyStrategy::None,
            timeout_ms: 1,
            stamp_body: false,
            latency_ms: 1,
            lookup: false,
            processing_ms: 1,
            retention_ms: 1,
            in_progress_expiry_ms: 1,
            faults: Vec::new(),
            reruns: Vec::new(),
            clock: ClockStyle::TimeOfDay,
            reconcile: None,
            steps: Vec::new(),
            max_ticks,
        }
    }

    /// An event that schedules itself again and records nothing would spin forever without
    /// the bound on events: the run ends in an error after that many.
    #[test]
    fn an_event_that_reschedules_itself_untold_is_stopped() {
        let cfg = empty(10);
        let mut world = World::new(&cfg, Design::WithCharge);
        world.schedule(Instant(0), Event::Restart);
        let mut handled = 0;
        let result = run_events(&mut world, |w, event| {
            handled += 1;
            // The test's own way out, so a missing bound fails the test rather than hang it.
            if handled < 100 * EVENTS_PER_TICK * 10 {
                w.schedule_in(0, event);
            }
        });
        assert_eq!(
            result,
            Err(SimError::TooManyEvents {
                limit: 10 * EVENTS_PER_TICK
            })
        );
        assert_eq!(
            handled,
            10 * EVENTS_PER_TICK,
            "every event up to the bound is handled"
        );
        assert!(world.ticks.is_empty());
    }

    /// One that records a tick each time meets the tick limit first.
    #[test]
    fn an_event_that_reschedules_itself_told_meets_the_tick_limit() {
        let cfg = empty(10);
        let mut world = World::new(&cfg, Design::WithCharge);
        world.schedule(Instant(0), Event::Restart);
        let result = run_events(&mut world, |w, event| {
            dispatch(w, Event::Restart);
            w.schedule_in(0, event);
        });
        assert!(
            matches!(result, Err(SimError::TooManyTicks { limit: 10, .. })),
            "{result:?}"
        );
        assert_eq!(world.ticks.len(), 11);
    }

    /// A processor step that schedules itself again is stopped as soon as it outruns what
    /// its requests can need.
    #[test]
    fn a_chain_of_steps_that_never_ends_is_stopped() {
        let cfg = empty(1_000);
        let mut world = World::new(&cfg, Design::WithCharge);
        world.schedule(Instant(0), Event::Restart);
        let result = run_events(&mut world, |w, event| {
            w.steps_taken += 1;
            if w.steps_taken < 1_000 {
                w.schedule_in(0, event);
            }
        });
        assert_eq!(
            result,
            Err(SimError::TooManySteps {
                steps: 1,
                requests: 0
            })
        );
    }

    /// A run that ends by itself is untouched by any bound.
    #[test]
    fn a_run_that_ends_meets_no_bound() {
        let cfg = empty(10);
        let mut world = World::new(&cfg, Design::WithCharge);
        for at in 0..5 {
            world.schedule(Instant(at), Event::Restart);
        }
        assert_eq!(run_events(&mut world, dispatch), Ok(()));
        assert_eq!(world.ticks.len(), 5);
    }
}
