//! docs/model.md §5.1 rule by rule: the shop's steps after the payment (reserve the stock, send the
//! confirmation, book the courier), each a service with its own memory, retries and faults,
//! keyed `derived`, `per-attempt` or `none`.

use crate::common;

use common::inline::one_layer;
use idem::scenario::{self, Scenario, library};
use idem::sim::config::{KeyMode, Service};
use idem::sim::fact::Fact;
use idem::sim::trace::{StepState, Trace};
use idem::sim::{Actor, Belief, Design, TickKind, Verdict};
use idem::story::outcome::{headline, intent_line};

fn parse(extra: &str) -> Scenario {
    let source = one_layer(3, "backoff = \"1s\"", extra);
    let s = scenario::parse("inline.toml", "inline", &source)
        .unwrap_or_else(|e| panic!("the inline scenario does not parse:\n{e}\n---\n{source}"));
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    s
}

fn courier_retry() -> Scenario {
    library::find("courier-retry")
        .expect("courier-retry is built in")
        .load()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn keyed(mut s: Scenario, mode: KeyMode) -> Scenario {
    for step in &mut s.config.steps {
        step.key_mode = mode;
    }
    s
}

fn run(s: &Scenario, design: Design) -> Trace {
    let trace = s
        .simulate(design)
        .unwrap_or_else(|e| panic!("{design}: {e}"));
    // What holds for every run with steps: the outcome's effects are the services' own.
    let last = &trace.ticks.last().expect("ticks").state;
    for (i, intent) in trace.outcome.intents.iter().enumerate() {
        for (s, step) in intent.steps.iter().enumerate() {
            assert_eq!(step.effects, last.services[s].effects_for(i), "{design}");
        }
    }
    common::end_state::check(&trace).unwrap_or_else(|e| panic!("{e}"));
    trace
}

fn bookings(trace: &Trace) -> usize {
    let o = &trace.outcome.intents[0];
    o.steps
        .iter()
        .find(|s| s.service == Service::Courier)
        .map_or(0, |s| s.effects)
}

#[test]
fn a_derived_key_books_the_courier_once_after_a_lost_answer() {
    let s = courier_retry();
    for design in Design::ALL {
        let trace = run(&s, design);
        assert_eq!(bookings(&trace), 1, "{design}");
        assert_eq!(trace.outcome.verdict, Verdict::Correct, "{design}");
        // The retry is answered from the courier's memory.
        assert!(
            trace
                .ticks
                .iter()
                .any(|t| matches!(t.fact, Fact::CallReplayed { .. }) && t.actor == Actor::Courier),
            "{design}"
        );
    }
}

#[test]
fn without_a_key_or_with_one_per_try_the_courier_books_twice() {
    for mode in [KeyMode::None, KeyMode::PerAttempt] {
        let s = keyed(courier_retry(), mode);
        for design in Design::ALL {
            let trace = run(&s, design);
            assert_eq!(bookings(&trace), 2, "{mode:?} {design}");
            assert_eq!(trace.outcome.charges, 1, "{mode:?} {design}");
            assert_eq!(
                trace.outcome.verdict,
                Verdict::DownstreamDuplicate,
                "{mode:?} {design}"
            );
            let (_, words) = headline(&trace.outcome);
            assert!(words.contains("courier was booked twice"), "{words}");
            assert!(
                intent_line(&trace.outcome.intents[0]).contains("courier booked twice"),
                "{}",
                intent_line(&trace.outcome.intents[0])
            );
        }
    }
}

#[test]
fn derived_keys_are_made_from_the_order_and_the_step_and_per_try_keys_differ() {
    let derived = run(&courier_retry(), Design::WithCharge);
    let keys: Vec<String> = derived
        .calls
        .iter()
        .filter(|c| c.service == Service::Courier)
        .map(|c| c.key.as_deref().unwrap_or_default().to_string())
        .collect();
    assert_eq!(keys, ["5531:courier", "5531:courier"]);
    let per_try = run(
        &keyed(courier_retry(), KeyMode::PerAttempt),
        Design::WithCharge,
    );
    let keys: Vec<String> = per_try
        .calls
        .iter()
        .filter(|c| c.service == Service::Courier)
        .map(|c| c.key.as_deref().unwrap_or_default().to_string())
        .collect();
    assert_eq!(keys, ["5531:courier:1", "5531:courier:2"]);
    let none = run(&keyed(courier_retry(), KeyMode::None), Design::WithCharge);
    assert!(none.calls.iter().all(|c| c.key.is_none()));
    assert!(
        none.ticks
            .last()
            .unwrap()
            .state
            .services
            .iter()
            .all(|s| s.memory.is_empty())
    );
}

#[test]
fn steps_run_in_order_each_after_the_answer_to_the_one_before() {
    let trace = run(&courier_retry(), Design::WithCharge);
    let order: Vec<Service> = trace
        .ticks
        .iter()
        .filter_map(|t| match t.fact {
            Fact::CallRead { call, .. } => Some(trace.calls[call].service),
            _ => None,
        })
        .collect();
    assert_eq!(
        order,
        [Service::Warehouse, Service::Mailer, Service::Courier]
    );
    // The first call goes out only once the checkout has read "paid".
    let paid = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Answer)
        .expect("the checkout reads an answer");
    let first_call = trace
        .ticks
        .iter()
        .position(|t| matches!(t.fact, Fact::CallSent { .. }))
        .expect("a call");
    assert!(paid < first_call);
    for step in &trace.outcome.intents[0].steps {
        assert_eq!(step.state, StepState::Done);
    }
}

#[test]
fn a_lost_call_did_nothing_so_even_without_a_key_the_courier_books_once() {
    let s = parse(
        "[[step]]\nservice = \"courier\"\nkey = \"none\"\n[[step.fault]]\nattempt = 1\nlose = \"request\"\n",
    );
    let trace = run(&s, Design::WithCharge);
    assert_eq!(bookings(&trace), 1);
    assert_eq!(trace.outcome.verdict, Verdict::Correct);
}

#[test]
fn no_steps_run_for_an_order_the_checkout_never_reads_paid() {
    // Every answer lost: the checkout gives up not knowing, so the shop never ships.
    let faults: String = (1..=3)
        .map(|n| format!("[[fault]]\nattempt = {n}\nlose = \"reply\"\n"))
        .collect();
    let s = parse(&format!("{faults}[[step]]\nservice = \"courier\"\n"));
    let trace = run(&s, Design::WithCharge);
    assert_eq!(trace.outcome.intents[0].client_view, Belief::Unknown);
    assert!(trace.calls.is_empty());
    let step = &trace.outcome.intents[0].steps[0];
    assert_eq!(
        (step.state, step.effects, step.calls),
        (StepState::NotRun, 0, 0)
    );
}

#[test]
fn a_step_with_no_answer_left_gives_up_and_the_steps_after_it_never_run() {
    let s = parse(
        "[[step]]\nservice = \"warehouse\"\nattempts = 2\n[[step.fault]]\nattempt = 1\nlose = \"reply\"\n\
         [[step.fault]]\nattempt = 2\nlose = \"reply\"\n[[step]]\nservice = \"courier\"\n",
    );
    let trace = run(&s, Design::WithCharge);
    let steps = &trace.outcome.intents[0].steps;
    assert_eq!(steps[0].state, StepState::Unknown);
    // Under a derived key the retry was answered from memory: reserved once.
    assert_eq!(steps[0].effects, 1);
    assert_eq!(steps[1].state, StepState::NotRun);
    assert!(trace.calls.iter().all(|c| c.service == Service::Warehouse));
    let gave_up = trace
        .ticks
        .iter()
        .find(|t| {
            matches!(
                t.fact,
                Fact::CallTimedOut {
                    next: idem::sim::fact::Next::GiveUp,
                    ..
                }
            )
        })
        .expect("the step gives up");
    assert_eq!(gave_up.actor, Actor::Checkout);
}

#[test]
fn an_answer_held_up_past_the_timeout_is_ignored_and_the_retry_replays() {
    let s = parse(
        "[[step]]\nservice = \"mailer\"\ntimeout = \"5s\"\n[[step.fault]]\nattempt = 1\ndelay = \"reply\"\nby = \"20s\"\n",
    );
    let trace = run(&s, Design::WithCharge);
    assert!(
        trace
            .ticks
            .iter()
            .any(|t| matches!(t.fact, Fact::CallDelayed { .. }))
    );
    assert!(
        trace
            .ticks
            .iter()
            .any(|t| matches!(t.fact, Fact::CallLate { .. }))
    );
    assert_eq!(trace.outcome.intents[0].steps[0].effects, 1);
    assert_eq!(trace.outcome.verdict, Verdict::Correct);
    // Keyed per try, the same delay sends two e-mails.
    let trace = run(&keyed(s, KeyMode::PerAttempt), Design::WithCharge);
    assert_eq!(trace.outcome.intents[0].steps[0].effects, 2);
    assert_eq!(trace.outcome.verdict, Verdict::DownstreamDuplicate);
}

#[test]
fn a_double_charge_outranks_a_double_booking() {
    // order-5531's story (the answer lost, the processor down) with a courier step that books
    // twice: under no-key the card is charged twice, and that is the verdict.
    let base = library::find("order-5531").unwrap().load().unwrap();
    let mut text = base.text.clone();
    text.push_str(
        "\n[[step]]\nservice = \"courier\"\nkey = \"none\"\n[[step.fault]]\nattempt = 1\nlose = \"reply\"\n",
    );
    let s = scenario::parse("o.toml", "o", &text).unwrap_or_else(|e| panic!("{e}"));
    let no_key = run(&s, Design::NoKey);
    assert_eq!(bookings(&no_key), 2);
    assert_eq!(no_key.outcome.verdict, Verdict::Duplicate);
    let with_charge = run(&s, Design::WithCharge);
    assert_eq!(with_charge.outcome.verdict, Verdict::DownstreamDuplicate);
    assert!(Verdict::Unpaid < Verdict::DownstreamDuplicate);
    assert!(Verdict::DownstreamDuplicate < Verdict::ChargedUnconfirmed);
}

#[test]
fn two_orders_keep_their_own_derived_keys() {
    let s = parse(
        "[[intent]]\norder = \"5547\"\nkey = \"P2W9\"\namount = \"$48.60\"\nat = \"16:00:00\"\n\
         [[step]]\nservice = \"courier\"\n",
    );
    let trace = run(&s, Design::WithCharge);
    let last = &trace.ticks.last().unwrap().state;
    let keys: Vec<&str> = last.services[0].memory.iter().map(|e| &*e.key).collect();
    assert_eq!(keys, ["5531:courier", "5547:courier"]);
    assert_eq!(last.services[0].effects.len(), 2);
    assert_eq!(trace.outcome.verdict, Verdict::Correct);
}

#[test]
fn the_story_tells_a_second_booking_only_when_there_is_one() {
    let s = keyed(courier_retry(), KeyMode::None);
    let trace = s.run(Design::WithCharge).unwrap();
    let done: Vec<_> = trace
        .ticks()
        .into_iter()
        .filter(|t| matches!(t.fact, Fact::CallDone { .. }) && t.actor == Actor::Courier)
        .collect();
    assert_eq!(done.len(), 2);
    assert!(
        !done[0].narration.contains("2 bookings"),
        "{}",
        done[0].narration
    );
    assert!(
        done[1].narration.contains("2 bookings for order 5531"),
        "{}",
        done[1].narration
    );
    let derived = courier_retry().run(Design::WithCharge).unwrap();
    assert!(
        derived
            .ticks()
            .iter()
            .all(|t| !t.narration.contains("2 bookings"))
    );
}

/// A step's tries are counted from 1, as the checkout's attempts are: try 0 is refused where
/// it is written, in the step's own word.
#[test]
fn a_step_fault_on_try_zero_is_refused_in_the_steps_words() {
    let source = one_layer(
        3,
        "backoff = \"1s\"",
        "[[step]]\nservice = \"courier\"\nkey = \"derived\"\n\n[[step.fault]]\nattempt = 0\nlose = \"reply\"\n",
    );
    let e = scenario::parse("inline.toml", "inline", &source)
        .expect_err("try 0 never happens")
        .to_string();
    assert!(
        e.contains("tries are counted from 1, so try 0 never happens"),
        "{e}"
    );
}
