//! The narration of standard traces, read for a handful of key phrases: the first attempt
//! and a retry each say what is theirs, counts agree with their nouns, and the steps after
//! payment tell a derived key and its replay. The prose lives in `crates/idem-story/src/story/mod.rs` and
//! `crates/idem-story/src/story/downstream.rs`; these tests catch a sentence moved to the wrong tick or a
//! number written with the wrong word, which no engine test reads.

use idem::scenario::{Scenario, library};
use idem::sim::{Actor, Design, TickKind};
use idem::story::Story;

fn builtin(name: &str) -> Scenario {
    library::find(name)
        .unwrap_or_else(|| panic!("no built-in {name}"))
        .load()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn story(name: &str, design: Design) -> Story {
    builtin(name)
        .run(design)
        .unwrap_or_else(|e| panic!("{name} under {design}: {e}"))
}

/// The narration of every tick of this kind (and actor, if given), in order.
fn said(story: &Story, kind: TickKind, actor: Option<Actor>) -> Vec<String> {
    story
        .ticks()
        .into_iter()
        .filter(|t| t.kind == kind && actor.is_none_or(|a| t.actor == a))
        .map(|t| t.narration.to_string())
        .collect()
}

fn assert_says(text: &str, phrase: &str) {
    assert!(text.contains(phrase), "`{phrase}` is missing from:\n{text}");
}

fn assert_never_says(text: &str, phrase: &str) {
    assert!(
        !text.contains(phrase),
        "`{phrase}` should not be in:\n{text}"
    );
}

/// Attempt #1 warns that silence will not tell; the retry says it carries the same key.
#[test]
fn the_first_attempt_and_the_retry_each_say_their_own_part() {
    let s = story("order-5531", Design::WithCharge);
    let sends = said(&s, TickKind::Send, None);
    assert_eq!(sends.len(), 2);
    assert_says(
        &sends[0],
        "sends attempt #1: charge $48.60 for order 5531, key K7Q4.",
    );
    assert_says(&sends[0], "It will wait 30 s for an answer");
    assert_never_says(&sends[0], "same key as attempt #1");
    assert_says(&sends[1], "sends attempt #2");
    assert_says(
        &sends[1],
        "the same purchase and the same key as attempt #1",
    );
    assert_never_says(&sends[1], "It will wait");

    let timeout = said(&s, TickKind::Timeout, None);
    assert_says(&timeout[0], "attempt #1 has waited 30 s and heard nothing");
    assert_says(
        &timeout[0],
        "It waits 1 s and tries again (attempt 2 of 3).",
    );

    let replay = said(&s, TickKind::Replay, None);
    assert_says(
        &replay[0],
        "finds K7Q4 completed (attempt #1, one write with ch_1)",
    );
    assert_says(&replay[0], "charges nothing");

    let statement = said(&s, TickKind::Statement, None);
    assert_says(&statement[0], "one line from INKWELL STATIONERY, $48.60.");
}

/// Counts agree with their nouns: one charge, no entries, two lines, and a retry with no
/// memory told as a new payment.
#[test]
fn counts_are_written_with_the_right_word() {
    let with_charge = story("order-5531", Design::WithCharge);
    let crash = said(&with_charge, TickKind::Crash, None);
    assert_says(&crash[0], "1 charge in the ledger, 1 entry remembered");

    let no_key = story("order-5531", Design::NoKey);
    let crash = said(&no_key, TickKind::Crash, None);
    assert_says(&crash[0], "1 charge in the ledger, 0 entries remembered");
    let received = said(&no_key, TickKind::Receive, None);
    assert_says(
        &received[1],
        "It keeps no memory of earlier requests, so it charges $48.60 as a new payment",
    );
    let statement = said(&no_key, TickKind::Statement, None);
    assert_says(
        &statement[0],
        "2 lines from INKWELL STATIONERY, $97.20 in all",
    );
    assert_says(&statement[0], "paid for more than once");
}

/// The checkout that runs out of attempts says how many it made: three lost requests, and
/// the Monday rerun's single attempt.
#[test]
fn giving_up_counts_the_attempts() {
    let text = "title = \"lost\"\n[[checkout.layer]]\nattempts = 3\ntimeout = \"30s\"\n\
                [[intent]]\norder = \"1\"\nkey = \"K1\"\namount = \"$10\"\nat = \"10:00:00\"\n\
                [[fault]]\nattempt = 1\nlose = \"request\"\n\
                [[fault]]\nattempt = 2\nlose = \"request\"\n\
                [[fault]]\nattempt = 3\nlose = \"request\"\n";
    let s = idem::scenario::parse("inline.toml", "inline", text)
        .unwrap_or_else(|e| panic!("{e}"))
        .run(Design::WithCharge)
        .unwrap_or_else(|e| panic!("{e}"));
    let gave_up = said(&s, TickKind::GiveUp, None);
    assert_says(
        &gave_up[0],
        "its whole retry budget for order 1 (3 attempts)",
    );

    let monday = story("monday-rerun", Design::WithCharge);
    let gave_up = said(&monday, TickKind::GiveUp, None);
    assert_says(&gave_up[0], "for order 5531 (1 attempt) and gives up");
}

/// The steps after payment: the derived key is named as made from the order and the step,
/// the retry sends the same key, and the courier answers it from memory.
#[test]
fn a_derived_key_and_its_replay_are_told() {
    let s = story("courier-retry", Design::WithCharge);
    let courier: Vec<String> = s
        .ticks()
        .into_iter()
        .filter(|t| t.actor == Actor::Courier || t.label.contains("courier"))
        .map(|t| t.narration.to_string())
        .collect();
    let all = courier.join("\n");
    assert_says(
        &all,
        "It sends key 5531:courier, made from the order and the step, so every try of this call carries the same key.",
    );
    assert_says(&all, "books a pickup for order 5531: booking #1.");
    assert_says(
        &all,
        "try 2 of 3. It sends the same key as before, 5531:courier.",
    );
    assert_says(
        &all,
        "finds key 5531:courier already stored with booking #1, so it answers with that booking instead of doing the work again.",
    );
    assert_never_says(&all, "2 bookings");
}

/// A story told in parts side by side says, tick for tick, what it says told whole: over
/// every built-in and design, cut into two to five parts; and a story long enough to be told
/// in parts unasked is told as it is told whole.
#[test]
fn a_story_told_in_parts_is_the_story_told_whole() {
    for builtin in idem::scenario::library::BUILTIN {
        let scenario = builtin.load().expect("a built-in loads");
        for design in idem::sim::Design::ALL {
            let trace = scenario.simulate(design).expect("simulates");
            let whole = idem::story::tell_in_parts(&scenario.config, &trace, 1);
            for parts in 2..=5 {
                assert_eq!(
                    idem::story::tell_in_parts(&scenario.config, &trace, parts),
                    whole,
                    "{} under {design:?} in {parts} parts",
                    builtin.name
                );
            }
        }
    }
    let mut storm = String::from(
        "title = \"Storm\"\n[[checkout.layer]]\nattempts = 10\ntimeout = \"2s\"\n[[checkout.layer]]\nattempts = 12\nbackoff = \"1m\"\n[[checkout.layer]]\nattempts = 12\nbackoff = \"1h\"\n[[intent]]\norder = \"1\"\nkey = \"K1\"\namount = \"$1.00\"\nat = \"10:00:00\"\n",
    );
    for attempt in 1..=1440 {
        storm.push_str(&format!(
            "[[fault]]\nattempt = {attempt}\nlose = \"reply\"\n"
        ));
    }
    let scenario = idem::scenario::parse("storm", "storm", &storm).expect("parses");
    let trace = scenario
        .simulate(idem::sim::Design::NoKey)
        .expect("simulates");
    assert!(trace.ticks.len() > 8_192, "{} ticks", trace.ticks.len());
    assert_eq!(
        idem::story::tell(&scenario.config, &trace),
        idem::story::tell_in_parts(&scenario.config, &trace, 1)
    );
}
