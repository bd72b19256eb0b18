//! The lesson must be true of the trace it sits in: the essay's story (the answer lost on the
//! way back), narration that never claims what a later tick contradicts, and words about one
//! order that hold only that order's facts.

use crate::common;

use common::inline::{ORDER, one_layer};
use idem::scenario::{self, Scenario, library};
use idem::sim::trace::Fate;
use idem::sim::{Design, TickKind};
use idem::story::Story;
use idem::story::outcome::{headline, verdict_meaning};

fn builtin(name: &str) -> Scenario {
    library::find(name)
        .unwrap_or_else(|| panic!("no built-in {name}"))
        .load()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn parse(source: &str) -> Scenario {
    scenario::parse("inline.toml", "inline", source)
        .unwrap_or_else(|e| panic!("the inline scenario does not parse:\n{e}\n---\n{source}"))
}

fn run(s: &Scenario, design: Design) -> Story {
    s.run(design).unwrap_or_else(|e| panic!("{design}: {e}"))
}

/// A one-layer checkout paying order 5531, plus `extra`.
fn simple(extra: &str) -> Scenario {
    parse(&one_layer(3, "backoff = \"1s\"", extra))
}

/// Faults that make the narration talk about the future: every kind on attempt 1, alone.
const FAULTS: &[&str] = &[
    "lose = \"reply\"",
    "lose = \"request\"",
    "delay = \"reply\"\nby = \"40s\"",
    "delay = \"request\"\nby = \"40s\"",
    "duplicate = \"request\"",
    "duplicate = \"reply\"",
    "crash_after = \"receive\"\nrestart_after = \"2s\"",
    "crash_after = \"key\"\nrestart_after = \"2s\"",
    "crash_after = \"charge\"\nrestart_after = \"2s\"",
    "crash_after = \"reply\"\nrestart_after = \"2s\"",
    "processing = \"45s\"",
    "decline = true",
    "fail_after = \"receive\"",
    "fail_after = \"charge\"",
];

#[test]
fn every_builtin_and_every_single_fault_keeps_the_narration_rules() {
    let mut stories: Vec<(String, Scenario)> = library::BUILTIN
        .iter()
        .map(|b| (b.name.to_string(), builtin(b.name)))
        .collect();
    for fault in FAULTS {
        stories.push((
            fault.to_string(),
            simple(&format!("[[fault]]\nattempt = 1\n{fault}\n")),
        ));
        // The same fault with the shop's night job, under both policies.
        for policy in ["refund", "mark-paid"] {
            stories.push((
                format!("{fault} + reconcile ({policy})"),
                simple(&format!(
                    "[reconcile]\nat = \"02:00\"\nunconfirmed = \"{policy}\"\n[[fault]]\nattempt = 1\n{fault}\n"
                )),
            ));
        }
    }
    for (name, s) in &stories {
        for design in Design::ALL {
            let trace = run(s, design);
            if let Err(e) = common::truth::check(&trace, &trace.told) {
                panic!("{name}: {e}");
            }
        }
    }
}

#[test]
fn the_default_story_loses_the_answer_on_the_network_in_every_design() {
    let s = builtin("order-5531");
    for design in Design::ALL {
        let trace = run(&s, design);
        let cut = trace.ticks().into_iter().find(|t| {
            t.kind == TickKind::Lost
                && t.message.is_some_and(|m| m.fate == Fate::Lost)
                && t.arrow.is_some_and(|a| a.contains("charged ch_1"))
        });
        assert!(cut.is_some(), "{design}: no cut arrow for the answer to #1");
        let crash = trace
            .ticks()
            .into_iter()
            .position(|t| t.kind == TickKind::Crash);
        let answer = trace
            .ticks()
            .into_iter()
            .position(|t| t.kind == TickKind::Reply && t.attempt == Some(1));
        assert!(
            answer < crash && crash.is_some(),
            "{design}: the processor must answer attempt 1, then crash"
        );
    }
}

#[test]
fn the_memory_panel_shows_where_k7q4_lives_when_the_processor_crashes() {
    let s = builtin("order-5531");
    let at_crash = |design| {
        let trace = run(&s, design);
        let tick = trace
            .ticks()
            .into_iter()
            .find(|t| t.kind == TickKind::Crash)
            .unwrap_or_else(|| panic!("{design}: no crash"));
        tick.state
            .memory
            .iter()
            .any(|e| e.key == "K7Q4" && e.durable())
    };
    assert!(
        at_crash(Design::WithCharge),
        "K7Q4 survives with the charge"
    );
    assert!(
        !at_crash(Design::LogAfterCharge),
        "under log-after-charge K7Q4 has not reached the log when the processor crashes"
    );
    assert!(
        at_crash(Design::LogBeforeCharge),
        "logged first, K7Q4 is on disk"
    );
}

#[test]
fn log_after_charge_answers_before_it_logs() {
    let s = simple("");
    let trace = run(&s, Design::LogAfterCharge);
    let reply = trace
        .ticks()
        .into_iter()
        .position(|t| t.kind == TickKind::Reply);
    let log = trace
        .ticks()
        .into_iter()
        .position(|t| t.kind == TickKind::KeyWrite);
    assert!(
        reply.is_some() && log.is_some() && reply < log,
        "the answer leaves first, then the key is logged"
    );
}

/// Order 5531's question explains itself under each design: the explanation shown follows the
/// design on screen, and each tells that design's count of charges.
#[test]
fn the_quiz_explanation_does_not_contradict_any_design() {
    let s = builtin("order-5531");
    let quiz = &s.quizzes[0];
    assert!(quiz.explanation.varies(), "one text per design");
    for design in Design::ALL {
        let text = quiz.explanation.for_design(design).to_lowercase();
        assert!(!text.is_empty(), "{design}");
        let charges = run(&s, design).outcome.charges;
        let says = match charges {
            1 => text.contains("one charge"),
            2 => text.contains("two charges") || text.contains("a second time"),
            _ => false,
        };
        assert!(says, "{design} ends with {charges} charges: {text}");
    }
    // A key stored on disk before the crash is named as surviving it.
    assert!(
        quiz.explanation
            .for_design(Design::LogBeforeCharge)
            .contains("survives the crash")
    );
}

/// The sentences for the first lost answer of a run, as the scenario tells them, and the
/// narration shown.
fn lost_answer(story: &Story) -> (String, String) {
    let i = story
        .trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Lost)
        .expect("an answer is lost");
    (
        idem::story::claim::join(&story.told.sentences[i]),
        story.told.narrations[i].clone(),
    )
}

#[test]
fn a_lost_reply_that_the_checkout_learns_of_later_says_so() {
    let s = builtin("reply-lost");
    let story = run(&s, Design::WithCharge);
    // Told whole, the story says so; reply-lost asks the room later on, so the words shown
    // before the question are told as if the story ended there, and do not.
    let whole = idem::story::tell(&s.config, &story.trace);
    let i = story
        .trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Lost)
        .expect("an answer is lost");
    let told = idem::story::claim::join(&whole.sentences[i]);
    assert!(told.contains("learns of ch_1 only later"), "{told}");
    assert!(!s.quizzes.is_empty());
    let (_, shown) = lost_answer(&story);
    assert!(!shown.contains("only later"), "{shown}");
    let story = run(&s, Design::NoKey);
    let whole = idem::story::tell(&s.config, &story.trace);
    let told = idem::story::claim::join(&whole.sentences[i]);
    assert!(
        told.contains("never reads an answer that names ch_1"),
        "{told}"
    );
    let (_, shown) = lost_answer(&story);
    assert!(!shown.contains("never reads"), "{shown}");
}

#[test]
fn a_restart_says_only_what_the_crash_really_cut_off() {
    let s = builtin("slow-processor");
    for design in Design::ALL {
        let trace = run(&s, design);
        for t in trace
            .ticks()
            .into_iter()
            .filter(|t| t.kind == TickKind::Restart)
        {
            assert!(!t.narration.contains("never"), "{design}: {}", t.narration);
        }
    }
    let s = builtin("order-5531");
    let d2 = run(&s, Design::LogAfterCharge);
    let restart = d2
        .ticks()
        .into_iter()
        .find(|t| t.kind == TickKind::Restart)
        .map(|t| t.narration.to_string())
        .unwrap_or_default();
    assert!(
        restart.contains("does not go back to log K7Q4"),
        "{restart}"
    );
    let log = d2
        .ticks()
        .into_iter()
        .find(|t| t.kind == TickKind::KeyWrite)
        .map(|t| t.narration.to_string())
        .unwrap_or_default();
    assert!(
        log.contains("ch_1 (attempt #1) stays in the ledger with no line of its own"),
        "{log}"
    );
}

#[test]
fn an_evicted_key_is_called_forgotten_not_new() {
    let s = builtin("monday-rerun");
    let trace = run(&s, Design::WithCharge);
    let second = trace
        .ticks()
        .into_iter()
        .filter(|t| t.kind == TickKind::Receive)
        .nth(1)
        .map(|t| t.narration.to_string())
        .unwrap_or_default();
    assert!(second.contains("K7Q4 was forgotten"), "{second}");
    assert!(!second.contains("K7Q4 is new"), "{second}");
}

#[test]
fn a_reused_key_is_named_as_another_orders_and_its_replay_as_not_this_orders_charge() {
    let s = builtin("key-reuse");
    let trace = run(&s, Design::LogAfterCharge);
    let pay = trace
        .ticks()
        .into_iter()
        .filter(|t| t.kind == TickKind::Pay)
        .nth(1)
        .map(|t| t.narration.to_string())
        .unwrap_or_default();
    assert!(pay.contains("the key of order 5531 too"), "{pay}");
    assert!(!pay.contains("mints"), "{pay}");
    let read = trace
        .ticks()
        .into_iter()
        .rfind(|t| t.kind == TickKind::Answer)
        .map(|t| t.narration.to_string())
        .unwrap_or_default();
    assert!(read.contains("belongs to order 5531"), "{read}");
}

#[test]
fn with_two_orders_the_headline_verdict_and_statement_speak_per_order() {
    // Order 5538 is charged twice (its answer is lost, no key); order 5531 once.
    let two = parse(&format!(
        "title = \"two\"\nseed = 1\n\n[[checkout.layer]]\nname = \"checkout\"\nattempts = 3\ntimeout = \"30s\"\nbackoff = \"1s\"\n{ORDER}\n[[intent]]\norder = \"5538\"\nkey = \"P2X9\"\namount = \"$52.10\"\nat = \"14:10:00\"\n\n[[fault]]\nintent = \"5538\"\nattempt = 1\nlose = \"reply\"\n"
    ));
    let trace = run(&two, Design::NoKey);
    let (_, head) = headline(&trace.outcome);
    assert_eq!(head, "✗ Order 5538 charged twice — $104.20");
    assert!(verdict_meaning(&trace.outcome).starts_with("order 5538:"));
    let statement = trace.told.narrations.last().cloned().unwrap_or_default();
    assert!(
        statement.contains("order 5531 one line ($48.60), order 5538 2 lines ($104.20)"),
        "{statement}"
    );
    common::truth::check(&trace, &trace.told).unwrap_or_else(|e| panic!("{e}"));
    // One order refused, the other charged: the verdict line must not say nothing was charged.
    let s = builtin("key-reuse");
    let d1 = run(&s, Design::WithCharge);
    let meaning = verdict_meaning(&d1.outcome);
    assert!(
        meaning.starts_with("order 5538: nothing was charged"),
        "{meaning}"
    );
}

#[test]
fn no_key_strategy_prints_no_key_in_the_outcome() {
    let s = simple("[checkout]\nkey_strategy = \"none\"\n");
    let trace = run(&s, Design::NoKey);
    assert_eq!(trace.outcome.intents[0].key, None);
    let text = idem::cli::run::timeline_text(&s, &trace.trace);
    assert!(!text.contains("(key K7Q4)"), "{text}");
    assert!(text.contains("(no key)"), "{text}");
}

#[test]
fn only_an_outer_layer_replays_the_budget_beneath_it() {
    let s = parse(&format!(
        "title = \"two layers\"\nseed = 1\n\n[[checkout.layer]]\nname = \"http\"\nattempts = 2\ntimeout = \"2s\"\nbackoff = \"1s\"\n\n[[checkout.layer]]\nname = \"job\"\nattempts = 2\nbackoff = \"10s\"\n{ORDER}\n[[fault]]\nattempt = 1\nlose = \"request\"\n"
    ));
    let trace = run(&s, Design::WithCharge);
    let timeout = trace
        .ticks()
        .into_iter()
        .find(|t| t.kind == TickKind::Timeout)
        .map(|t| t.narration.to_string())
        .unwrap_or_default();
    assert!(timeout.contains("tries again"), "{timeout}");
    assert!(!timeout.contains("replays the whole budget"), "{timeout}");
}

#[test]
fn a_body_hash_is_not_written_like_an_attempt_number() {
    let s = builtin("second-purchase");
    let trace = run(&s, Design::ContentHash);
    for t in trace.ticks() {
        for e in t.state.memory.iter() {
            assert!(!e.key.starts_with('#'), "{}", e.key);
        }
        assert!(!t.narration.contains("hashes to #"), "{}", t.narration);
    }
}

#[test]
fn delayed_and_copied_messages_get_their_own_tick_on_the_wire() {
    for (fault, kind) in [
        ("delay = \"request\"\nby = \"5s\"", TickKind::Delayed),
        ("delay = \"reply\"\nby = \"5s\"", TickKind::Delayed),
        ("duplicate = \"request\"", TickKind::Duplicated),
        ("duplicate = \"reply\"", TickKind::Duplicated),
    ] {
        let s = simple(&format!("[[fault]]\nattempt = 1\n{fault}\n"));
        let trace = run(&s, Design::WithCharge);
        let tick = trace.ticks().into_iter().find(|t| t.kind == kind);
        let tick = tick.unwrap_or_else(|| panic!("{fault}: no {kind:?} tick"));
        assert_eq!(tick.actor, idem::sim::Actor::Network, "{fault}");
    }
}

#[test]
fn run_and_the_handout_define_each_glossary_term_where_it_is_first_used() {
    let s = builtin("order-5531");
    let trace = run(&s, Design::WithCharge);
    let text = idem::cli::run::timeline_text(&s, &trace.trace);
    assert!(text.contains("▸ idempotency key: "), "{text}");
    let pay = text.find("presses Pay").unwrap_or(usize::MAX);
    let defined = text.find("▸ idempotency key").unwrap_or(0);
    let send = text.find("Checkout   charge").unwrap_or(0);
    assert!(
        pay < defined && defined < send,
        "defined at the Pay tick that first uses it"
    );
    assert_eq!(text.matches("▸ idempotency key").count(), 1);
}

/// A lookup answered from a key logged before the charge, when the charge never happened, must
/// not tell the room the order is paid: the checkout only marks it so.
#[test]
fn a_lookup_that_finds_a_logged_key_without_a_charge_says_nothing_was_charged() {
    let s = simple(
        "[checkout]\nlookup = true\n[[fault]]\nattempt = 1\ncrash_after = \"key\"\nrestart_after = \"2s\"\n",
    );
    let story = run(&s, Design::LogBeforeCharge);
    assert_eq!(
        story.outcome.charges, 0,
        "the crash struck before the charge"
    );
    let ticks = story.ticks();
    let read = ticks
        .iter()
        .find(|t| matches!(t.fact, idem::sim::Fact::LookedUp { .. }))
        .expect("the checkout reads the lookup");
    assert!(
        read.narration
            .contains("No charge for order 5531 is in the ledger"),
        "{}",
        read.narration
    );
    assert!(!read.narration.contains("is paid"), "{}", read.narration);
}

/// The refund rule catches a refund told with the wrong amount, and a statement whose net is
/// not the ledger's.
#[test]
fn a_refund_or_a_net_the_state_does_not_bear_out_is_caught() {
    let s = builtin("nightly-reconcile");
    let trace = run(&s, Design::NoKey);
    assert!(common::truth::check(&trace, &trace.told).is_ok());
    let refund = trace
        .ticks
        .iter()
        .position(|t| t.kind == idem::sim::TickKind::Refund)
        .expect("a refund tick");
    let mut told = trace.told.clone();
    told.narrations[refund] = told.narrations[refund].replace("−$48.60", "−$97.20");
    let err = common::truth::check(&trace, &told).expect_err("a wrong amount");
    assert!(err.contains("refund the state does not bear out"), "{err}");
    let mut told = trace.told.clone();
    let last = told.narrations.len() - 1;
    told.narrations[last] = told.narrations[last].replace("net $48.60", "net $97.20");
    let err = common::truth::check(&trace, &told).expect_err("a wrong net");
    assert!(err.contains("net is not the ledger's"), "{err}");
}
