//! Words off the tested path: for each kind of sentence that once said what usually happens
//! rather than what its own trace holds, a story of this file's own where the usual is not
//! what happens, and what the words must say there. Every story is also held to the claim
//! checker, and its words before a question to the story cut off at the question.

use crate::common;
use idem::scenario::{self, Scenario, library};
use idem::sim::fact::Fact;
use idem::sim::{Design, Trace};
use idem::story::Told;

fn parse(source: &str) -> Scenario {
    scenario::parse("words.toml", "words", source).unwrap_or_else(|e| panic!("{e}"))
}

fn builtin(name: &str) -> Scenario {
    library::find(name)
        .and_then(|b| b.load().ok())
        .unwrap_or_else(|| panic!("no built-in {name}"))
}

/// The story under `design`, told as `idem run` and the replay tell it, with every claim
/// checked and no claim before a question decided by a later tick.
fn tell(s: &Scenario, design: Design) -> (Trace, Told) {
    let trace = s.simulate(design).expect("simulates");
    let told = s.tell(&trace);
    common::claims::check(&trace, &told).unwrap_or_else(|e| panic!("{e}"));
    common::claims::labels_name_one_thing(&trace, &told.labels).unwrap_or_else(|e| panic!("{e}"));
    let questions: Vec<usize> = s
        .quizzes
        .iter()
        .filter_map(|q| q.target.find(&trace, &told))
        .collect();
    common::claims::no_hindsight_before(&trace, &told, &questions)
        .unwrap_or_else(|e| panic!("{e}"));
    (trace, told)
}

/// The narration of the first tick whose label is `label`.
fn said<'a>(told: &'a Told, label: &str) -> &'a str {
    let i = told
        .labels
        .iter()
        .position(|l| l == label)
        .unwrap_or_else(|| panic!("no tick `{label}` in {:?}", told.labels));
    &told.narrations[i]
}

const ONE_LAYER: &str = r#"
title = "words"
[[checkout.layer]]
name = "checkout"
attempts = 3
timeout = "1s"
backoff = "0ms"
[[intent]]
order = "5531"
key = "K7Q4"
amount = "$48.60"
at = "14:02:07"
"#;

// 1. Another order answered from a stored record is neither a retry nor the same purchase.
#[test]
fn another_orders_stored_answer_is_not_called_a_retry() {
    let (_, told) = tell(&builtin("key-reuse"), Design::InProgressRecord);
    let words = said(&told, "5538 #1: replays K7Q4");
    assert!(!words.contains("retry is recognised"), "{words}");
    assert!(!words.contains("same purchase"), "{words}");
    assert!(words.contains("stored for order 5531"), "{words}");
}

// 2. Content-hash reads bodies, not keys: a new key does not make it see a new purchase.
#[test]
fn content_hash_is_not_told_as_if_it_read_keys() {
    for name in ["per-attempt-key", "mobile-gateway"] {
        let (_, told) = tell(&builtin(name), Design::ContentHash);
        for words in &told.narrations {
            assert!(
                !words.contains("different purchase") && !words.contains("brand-new purchase"),
                "{name}: {words}"
            );
        }
    }
}

// 3. "Tries again" only when that attempt goes out when the wait ends; an outer deadline
// that ends the wait first leaves only the policy told.
#[test]
fn a_retry_an_outer_deadline_cuts_off_is_not_told_as_made() {
    let s = parse(
        r#"
title = "deadline"
[[checkout.layer]]
name = "client"
attempts = 3
timeout = "5s"
backoff = "5s"
[[checkout.layer]]
name = "gateway"
attempts = 2
timeout = "8s"
backoff = "1s"
[[intent]]
order = "5531"
amount = "$48.60"
at = "14:02:07"
[[fault]]
attempt = 1
lose = "request"
"#,
    );
    let (_, told) = tell(&s, Design::WithCharge);
    let words = said(&told, "no answer to #1");
    assert!(!words.contains("tries again"), "{words}");
    assert!(words.contains("says to wait 5 s"), "{words}");
    // A deadline shorter than the timeout ends the first wait sooner, and the send says so.
    let s = parse(&format!(
        "{}\n[[fault]]\nattempt = 1\nlose = \"request\"\n",
        ONE_LAYER.replace(
            "[[intent]]",
            "[[checkout.layer]]\nname = \"gateway\"\nattempts = 1\ntimeout = \"500ms\"\n\n[[intent]]",
        )
    ));
    let (_, told) = tell(&s, Design::WithCharge);
    let words = said(&told, "charge $48.60 key K7Q4 #1");
    assert!(!words.contains("will wait 1 s"), "{words}");
    assert!(words.contains("deadline ends the wait sooner"), "{words}");
}

// 4. The checkout that gave up does not know; the verdict's gloss does not say it does.
#[test]
fn a_give_up_with_nothing_charged_is_not_told_as_known() {
    let s = parse(&format!(
        "{ONE_LAYER}\n[[fault]]\nattempt = 1\nlose = \"request\"\n[[fault]]\nattempt = 2\nlose = \"request\"\n[[fault]]\nattempt = 3\nlose = \"request\"\n"
    ));
    let (trace, _) = tell(&s, Design::WithCharge);
    let meaning = idem::story::outcome::verdict_meaning(&trace.outcome);
    assert!(!meaning.contains("knows it"), "{meaning}");
    assert!(meaning.contains("does not know"), "{meaning}");
}

// 5. A charge is not told before it is made: the copy's lost answer comes long before it.
#[test]
fn a_charge_made_later_is_not_told_as_made() {
    let s = parse(
        r#"
title = "copy"
[[checkout.layer]]
attempts = 2
timeout = "30s"
[[intent]]
order = "5531"
amount = "$48.60"
at = "14:02:07"
[[fault]]
attempt = 1
duplicate = "request"
gap = "10ms"
[[fault]]
attempt = 1
processing = "20s"
[[fault]]
attempt = 1
lose = "reply"
"#,
    );
    let (_, told) = tell(&s, Design::WithCharge);
    let words = said(&told, "answer to #1 copy lost");
    assert!(!words.contains("did make ch_1"), "{words}");
    assert!(!words.contains("The money has moved"), "{words}");
    assert!(
        words.contains("No money has moved for this attempt so far"),
        "{words}"
    );
}

// 6. A 409 that crossed the finish of the work it named is not told as a crash's leftover,
// and the work behind a 409 is named as the trace has it.
#[test]
fn a_409_is_told_from_the_work_that_stood_behind_it() {
    let s = parse(&format!(
        "{ONE_LAYER}\n[[fault]]\nattempt = 1\nprocessing = \"1020ms\"\n"
    ));
    let (_, told) = tell(&s, Design::WithCharge);
    let words = said(&told, "reads 409 key in progress for #2");
    assert!(!words.contains("crash or an error"), "{words}");
    assert!(words.contains("that work has ended"), "{words}");
    // The work is attempt #2's, not the first attempt's.
    let s = parse(&format!(
        "{ONE_LAYER}\n[[fault]]\nattempt = 1\nlose = \"request\"\n[[fault]]\nattempt = 2\nprocessing = \"1500ms\"\n"
    ));
    let (_, told) = tell(&s, Design::WithCharge);
    let words = said(&told, "#3: 409 K7Q4 in progress");
    assert!(!words.contains("first attempt"), "{words}");
    assert!(
        words.contains("attempt #2 is still being worked on"),
        "{words}"
    );
}

// 7. Keys minted per attempt from a shared order key are not new to the processor.
#[test]
fn minted_keys_another_order_sent_are_not_called_unseen() {
    let s = parse(
        r#"
title = "minted"
[checkout]
key_strategy = "per-attempt"
[[checkout.layer]]
attempts = 2
timeout = "1s"
backoff = "0ms"
[[intent]]
order = "5531"
key = "K7Q4"
amount = "$48.60"
at = "14:02:07"
[[intent]]
order = "5538"
key = "K7Q4"
amount = "$52.10"
at = "14:05:00"
[[fault]]
intent = "5531"
attempt = 1
lose = "request"
[[fault]]
intent = "5538"
attempt = 1
lose = "request"
"#,
    );
    let (_, told) = tell(&s, Design::WithCharge);
    let words = said(&told, "presses Pay: order 5538, $52.10");
    assert!(!words.contains("never seen"), "{words}");
}

// 8. An eviction leaves a key new only when nothing else is held under it.
#[test]
fn an_eviction_with_another_line_still_held_does_not_make_the_key_new() {
    // A second order a minute later carries the story past both lines' windows.
    let s = parse(&format!(
        "{}\n[[intent]]\norder = \"5538\"\nkey = \"P2W9\"\namount = \"$52.10\"\nat = \"14:03:07\"\n[processor]\nretention = \"10s\"\n[[fault]]\nintent = \"5531\"\nattempt = 1\nprocessing = \"1500ms\"\n",
        ONE_LAYER.replace("attempts = 3", "attempts = 2")
    ));
    let (trace, told) = tell(&s, Design::LogAfterCharge);
    let expiries: Vec<usize> = (0..trace.ticks.len())
        .filter(|&i| matches!(trace.ticks[i].fact, Fact::Expired { .. }))
        .collect();
    assert!(expiries.len() >= 2, "{:?}", told.labels);
    let words = &told.narrations[expiries[0]];
    assert!(!words.contains("From now on"), "{words}");
    assert!(words.contains("still kept"), "{words}");
}

// 9. Steps that never happen are not told: a log-first handler that fails on receipt logs
// nothing, and a crash after a declined card did not follow a charge.
#[test]
fn steps_that_never_happen_are_not_told() {
    let s = parse(&format!(
        "{ONE_LAYER}\n[[fault]]\nattempt = 1\nfail_after = \"receive\"\n"
    ));
    let (_, told) = tell(&s, Design::LogBeforeCharge);
    let words = said(&told, "receives #1");
    assert!(!words.contains("appends it first"), "{words}");
    let s = parse(&format!(
        "{ONE_LAYER}\n[[fault]]\nattempt = 1\ndecline = true\n[[fault]]\nattempt = 1\ncrash_after = \"charge\"\n"
    ));
    let (_, told) = tell(&s, Design::LogAfterCharge);
    let words = said(&told, "crashes");
    assert!(!words.contains("right after charging"), "{words}");
    assert!(words.contains("declined"), "{words}");
}

// 9, continued. A lost answer that reports success without a charge is not told as an
// answer that says no money moved.
#[test]
fn a_lost_success_without_a_charge_is_not_told_as_saying_nothing_moved() {
    let s = parse(&format!(
        "{ONE_LAYER}\n[[fault]]\nattempt = 1\ncrash_after = \"key\"\nrestart_after = \"100ms\"\n[[fault]]\nattempt = 2\nlose = \"reply\"\n"
    ));
    let (_, told) = tell(&s, Design::LogBeforeCharge);
    let words = said(&told, "answer to #2 lost");
    assert!(!words.contains("the answer that says so"), "{words}");
    assert!(words.contains("reports success"), "{words}");
}

// 10. The reconciliation is told against the rest of the story: an order placed after the
// job is not "still being paid", and a mark-paid is not told as the final word.
#[test]
fn the_reconciliation_is_told_against_the_orders_as_they_stand() {
    let s = parse(
        r#"
title = "early job"
[[checkout.layer]]
attempts = 1
timeout = "1s"
[[intent]]
order = "5531"
amount = "$48.60"
at = "01:00"
[[intent]]
order = "5538"
amount = "$52.10"
at = "03:00"
[reconcile]
at = "02:00"
"#,
    );
    let (_, told) = tell(&s, Design::WithCharge);
    let words = said(&told, "reconciles 1 charge with 1 order");
    assert!(!words.contains("still being paid"), "{words}");
    assert!(words.contains("not placed yet"), "{words}");
    let s = parse(&format!(
        "{}\n[reconcile]\nat = \"02:00\"\nunconfirmed = \"mark-paid\"\n[[human]]\nname = \"operator rerun\"\nafter = \"20h\"\n[[fault]]\nattempt = 1\nlose = \"reply\"\n",
        ONE_LAYER.replace("attempts = 3", "attempts = 1")
    ));
    let (_, told) = tell(&s, Design::NoKey);
    let words = said(&told, "keeps ch_1, marks 5531 paid");
    assert!(!words.contains("at last"), "{words}");
}

// 11. Before a question, nothing is worded from what comes after it: two stories that differ
// only after the question read the same up to it, in the replay's words and in `idem run`'s.
#[test]
fn words_before_a_question_are_the_same_whatever_follows() {
    let question = "\n[[quiz]]\nat = \"14:02:07.050\"\nquestion = \"What now?\"\nchoices = [\"None\", \"One\", \"Two\"]\nanswer = \"charges\"\nexplanation = \"As the run shows.\"\n";
    let plain = parse(&format!("{ONE_LAYER}{question}"));
    let failing = parse(&format!(
        "{ONE_LAYER}{question}\n[[fault]]\nattempt = 1\nfail_after = \"receive\"\n"
    ));
    for design in Design::ALL {
        let (a, told_a) = tell(&plain, design);
        let (b, told_b) = tell(&failing, design);
        let q = a
            .ticks
            .iter()
            .position(|t| t.at.0 >= b.ticks[2].at.0)
            .expect("the question's tick");
        assert_eq!(
            told_a.narrations[..=q],
            told_b.narrations[..=q],
            "{design}: the words before the question differ"
        );
        let mut each_a = Vec::new();
        plain.tell_each(&a, |_, _, n, _| each_a.push(n.to_string()));
        let mut each_b = Vec::new();
        failing.tell_each(&b, |_, _, n, _| each_b.push(n.to_string()));
        assert_eq!(
            each_a[..=q],
            each_b[..=q],
            "{design}: idem run's words differ"
        );
        assert_eq!(each_a, told_a.narrations, "{design}");
    }
}

// 12. Labels name one tick: a trainer's block aimed at a label that would repeat lands once.
#[test]
fn a_label_names_one_tick_and_a_trainers_block_lands_once() {
    let s = parse(&format!(
        "{ONE_LAYER}\n[[fault]]\nattempt = 1\ncrash_after = \"receive\"\nrestart_after = \"100ms\"\n[[fault]]\nattempt = 2\ncrash_after = \"receive\"\nrestart_after = \"100ms\"\n[[narration]]\nlabel = \"crashes\"\ntext = \"Down it goes.\"\n"
    ));
    for design in Design::ALL {
        let (_, told) = tell(&s, design);
        assert_eq!(told.rewritten.len(), 1, "{design}: {:?}", told.labels);
        assert!(told.labels.iter().any(|l| l == "crashes (2nd)"), "{design}");
    }
}

// 10, continued. A charge the job refunded and the checkout later reads as payment leaves
// the shop with no money for an order it believes paid; the verdict's gloss says so.
#[test]
fn a_refunded_charge_read_later_as_payment_is_not_told_as_correct() {
    let s = parse(&format!(
        "{}\n[reconcile]\nat = \"02:00\"\nunconfirmed = \"refund\"\n[[human]]\nname = \"operator rerun\"\nafter = \"20h\"\n[[fault]]\nattempt = 1\nlose = \"reply\"\n",
        ONE_LAYER.replace("attempts = 3", "attempts = 1")
    ));
    let (trace, told) = tell(&s, Design::WithCharge);
    let meaning = idem::story::outcome::verdict_meaning(&trace.outcome);
    assert!(!meaning.contains("the shop knows"), "{meaning}");
    assert!(meaning.contains("refunded"), "{meaning}");
    let (tone, headline) = idem::story::outcome::headline(&trace.outcome);
    assert_eq!(tone, idem::story::outcome::Tone::Warn, "{headline}");
    let words = said(&told, "reads 200 charged ch_1 (replayed) for #2");
    assert!(words.contains("ch_1 was refunded"), "{words}");
}
