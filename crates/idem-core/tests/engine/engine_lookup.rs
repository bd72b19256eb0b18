//! docs/model.md §5.4 rule by rule: a checkout that asks about the key before it retries. Each rule
//! is a small inline scenario, checked by its effect on the trace.

use crate::common;

use common::inline::one_layer;
use idem::scenario::{self, Scenario};
use idem::sim::fact::{Fact, LookupAnswer};
use idem::sim::{Actor, Belief, Design, TickKind, Trace};

/// Order 5531 with `attempts` attempts (30 s timeout, 1 s backoff), the lookup on, plus
/// `faults`.
fn asking(attempts: u32, faults: &str) -> Scenario {
    asking_after(attempts, "1s", faults)
}

/// The same with another backoff between tries.
fn asking_after(attempts: u32, backoff: &str, faults: &str) -> Scenario {
    let source = one_layer(
        attempts,
        &format!("backoff = \"{backoff}\""),
        &format!("[checkout]\nlookup = true\n{faults}"),
    );
    scenario::parse("inline.toml", "inline", &source)
        .unwrap_or_else(|e| panic!("the inline scenario does not parse:\n{e}\n---\n{source}"))
}

fn run(s: &Scenario, design: Design) -> Trace {
    let trace = s.simulate(design).expect("it simulates");
    common::end_state::check(&trace).unwrap_or_else(|e| panic!("{e}"));
    trace
}

fn sends(t: &Trace) -> usize {
    t.ticks.iter().filter(|k| k.kind == TickKind::Send).count()
}

fn answers(t: &Trace) -> Vec<Option<LookupAnswer>> {
    t.lookups.iter().map(|l| l.answer.clone()).collect()
}

const REPLY_LOST: &str = "[[fault]]\nattempt = 1\nlose = \"reply\"\n";

#[test]
fn a_charge_found_under_the_key_ends_the_run_without_a_second_request() {
    let t = run(&asking(3, REPLY_LOST), Design::WithCharge);
    assert_eq!(sends(&t), 1, "no retry goes out");
    assert_eq!(t.outcome.charges, 1);
    assert_eq!(t.outcome.intents[0].client_view, Belief::Paid);
    let got = answers(&t);
    let [Some(LookupAnswer::Found { response })] = got.as_slice() else {
        panic!("one lookup, found: {got:?}");
    };
    assert_eq!(response.status, 200);
    assert!(
        t.ticks
            .iter()
            .any(|k| matches!(k.fact, Fact::LookedUp { next: None, .. })),
        "the checkout reads it"
    );
    // The checkout asks and reads on its own lane; the answer is the processor's.
    let lanes: Vec<(Actor, TickKind)> = t
        .ticks
        .iter()
        .filter(|k| {
            matches!(
                k.fact,
                Fact::LookupSent { .. } | Fact::LookupAnswered { .. } | Fact::LookedUp { .. }
            )
        })
        .map(|k| (k.actor, k.kind))
        .collect();
    assert_eq!(
        lanes,
        [
            (Actor::Checkout, TickKind::Lookup),
            (Actor::Processor, TickKind::Reply),
            (Actor::Checkout, TickKind::Answer),
        ]
    );
    // The lookup found the stored charge: a hit of the key, counted as a replay's would be.
    let c = &t.outcome.counters;
    assert_eq!((c.lookups_answered, c.dedupe_hits), (1, 1));
}

#[test]
fn nothing_found_lets_the_retry_go_at_once() {
    for design in [Design::NoKey, Design::ContentHash] {
        let t = run(&asking(3, REPLY_LOST), design);
        assert_eq!(answers(&t)[0], Some(LookupAnswer::NotFound), "{design}");
        // The retry leaves the moment the answer is read.
        let read = t
            .ticks
            .iter()
            .find(|k| matches!(k.fact, Fact::LookedUp { .. }))
            .expect("the answer is read");
        let retry = t
            .ticks
            .iter()
            .filter(|k| k.kind == TickKind::Send)
            .nth(1)
            .expect("a retry");
        assert_eq!(retry.at, read.at, "{design}");
    }
    assert_eq!(
        run(&asking(3, REPLY_LOST), Design::NoKey).outcome.charges,
        2
    );
}

#[test]
fn without_the_lookup_nothing_is_asked() {
    let source = one_layer(3, "backoff = \"1s\"", REPLY_LOST);
    let s = scenario::parse("inline.toml", "inline", &source).expect("parses");
    let t = run(&s, Design::WithCharge);
    assert!(t.lookups.is_empty());
    assert_eq!(sends(&t), 2, "the retry goes out unasked");
}

#[test]
fn a_payment_in_progress_spends_the_try_and_is_asked_about_again() {
    // Attempt 1 takes 45 s: the checkout stops waiting at 30 s, asks at 40 s and 50 s (in
    // progress both times), and at 60 s finds the charge finished at 52 s.
    let t = run(
        &asking_after(4, "10s", "[[fault]]\nattempt = 1\nprocessing = \"45s\"\n"),
        Design::WithCharge,
    );
    let got = answers(&t);
    assert_eq!(got[0], Some(LookupAnswer::InProgress), "{got:?}");
    assert!(
        matches!(got.last(), Some(Some(LookupAnswer::Found { .. }))),
        "asked again until the charge is done: {got:?}"
    );
    assert_eq!(
        sends(&t),
        1,
        "no second request while the first is in progress"
    );
    assert_eq!(t.outcome.charges, 1);
    assert_eq!(t.outcome.intents[0].client_view, Belief::Paid);
}

#[test]
fn a_lookup_to_a_processor_that_is_down_times_out_and_the_retry_goes_ahead() {
    let t = run(
        &asking(
            3,
            &format!(
                "{REPLY_LOST}[[fault]]\nattempt = 1\ncrash_after = \"reply\"\nrestart_after = \"60s\"\n"
            ),
        ),
        Design::WithCharge,
    );
    assert!(
        t.ticks
            .iter()
            .any(|k| matches!(k.fact, Fact::LookupDown { .. }))
    );
    let timed_out = t
        .ticks
        .iter()
        .position(|k| matches!(k.fact, Fact::LookupTimedOut { .. }))
        .expect("the lookup times out");
    let retry = t
        .ticks
        .iter()
        .rposition(|k| k.kind == TickKind::Send)
        .expect("a retry");
    assert!(retry > timed_out, "the retry follows the silence");
    assert_eq!(t.outcome.charges, 1, "and is answered from the stored key");
}

#[test]
fn the_built_in_lookup_story_charges_once_only_where_the_key_was_kept() {
    let s = scenario::library::find("lookup-first")
        .expect("a built-in")
        .load()
        .expect("loads");
    assert_eq!(run(&s, Design::WithCharge).outcome.charges, 1);
    assert_eq!(sends(&run(&s, Design::WithCharge)), 1);
    assert_eq!(run(&s, Design::LogAfterCharge).outcome.charges, 2);
    assert_eq!(
        answers(&run(&s, Design::LogAfterCharge))[0],
        Some(LookupAnswer::NotFound),
        "the crash left ch_1 without its key"
    );
}

#[test]
fn a_lookup_that_is_not_a_boolean_is_refused_with_its_position() {
    let source = one_layer(2, "", "[checkout]\nlookup = \"yes\"\n");
    let err = scenario::parse("inline.toml", "inline", &source).expect_err("refused");
    let text = err.to_string();
    assert!(text.contains("inline.toml:"), "{text}");
    assert!(
        text.contains("lookup") || text.contains("boolean"),
        "{text}"
    );
}

#[test]
fn a_person_rerunning_the_payment_asks_first_too() {
    // One attempt, its answer lost: the checkout gives up, and an operator reruns it an hour
    // later; the rerun's first request is preceded by a lookup, which finds the charge.
    let s = asking(
        1,
        &format!("{REPLY_LOST}[[human]]\nname = \"operator rerun\"\nafter = \"1h\"\n"),
    );
    let t = run(&s, Design::WithCharge);
    let rerun = t
        .ticks
        .iter()
        .position(|k| k.kind == TickKind::Rerun)
        .expect("the operator reruns it");
    assert!(
        matches!(t.ticks[rerun + 1].fact, Fact::LookupSent { .. }),
        "{:?}",
        t.ticks[rerun + 1].fact
    );
    assert_eq!(sends(&t), 1, "the rerun sends no charge request");
    assert_eq!(t.outcome.intents[0].client_view, Belief::Paid);
}

/// A lookup's answer that comes back after its timeout is not read: the retry has gone ahead
/// without it, and its own timer and reply are what count from then on.
#[test]
fn an_answer_to_a_lookup_that_timed_out_is_not_read() {
    // 20 s each way: an answer takes 40 s to come back, the checkout waits 30 s for it.
    let t = run(
        &asking(2, &format!("{REPLY_LOST}\n[network]\nlatency = \"20s\"\n")),
        Design::WithCharge,
    );
    let timed_out: Vec<usize> = t
        .ticks
        .iter()
        .filter_map(|k| match k.fact {
            Fact::LookupTimedOut { lookup } => Some(lookup),
            _ => None,
        })
        .collect();
    assert!(!timed_out.is_empty(), "a lookup times out");
    for k in &t.ticks {
        if let Fact::LookedUp { lookup, .. } = k.fact {
            assert!(
                !timed_out.contains(&lookup),
                "lookup #{lookup} is read after its timeout"
            );
        }
    }
    // The retry's request is answered from the key, after 40 s, and that too is too late.
    assert_eq!(t.outcome.charges, 1);
    assert_eq!(sends(&t), 2);
}
