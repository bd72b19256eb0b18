//! Timers, deadlines and network copies: the cases where a stale timer or a second copy of a
//! request could change what the checkout believes.

use crate::common;

use idem::scenario::{Scenario, parse};
use idem::sim::{Belief, Design, TickKind, Verdict};
use idem::story::Story;

fn scenario(text: &str) -> Scenario {
    parse("inline.toml", "inline", text).unwrap_or_else(|e| panic!("{e}"))
}

fn run(s: &Scenario, design: Design) -> Story {
    let story = s.run(design).unwrap_or_else(|e| panic!("{e}"));
    common::end_state::check(&story).unwrap_or_else(|e| panic!("{e}"));
    story
}

fn faults(n: u32, what: &str) -> String {
    (1..=n)
        .map(|a| format!("[[fault]]\nattempt = {a}\n{what}\n"))
        .collect()
}

const ONE_PURCHASE: &str = r#"
[[intent]]
order = "1"
key = "K1"
amount = "$10"
at = "10:00:00"
"#;

/// An outer layer's deadline belongs to one of its attempts: once that attempt has failed,
/// the old deadline must not cut the next one short.
#[test]
fn an_outer_deadline_ends_with_its_attempt() {
    let text = format!(
        "title = \"deadline\"\n[[checkout.layer]]\nname = \"http\"\nattempts = 2\ntimeout = \"1s\"\nbackoff = \"0s\"\n\
         [[checkout.layer]]\nname = \"job\"\nattempts = 3\ntimeout = \"3s\"\nbackoff = \"10s\"\n{ONE_PURCHASE}{}",
        faults(6, "lose = \"request\"")
    );
    let trace = run(&scenario(&text), Design::WithCharge);
    assert_eq!(trace.outcome.counters.attempts_sent, 6, "2 × 3 attempts");
    assert!(trace.warnings.is_empty(), "{:?}", trace.warnings);
    let sends: Vec<String> = trace
        .ticks()
        .into_iter()
        .filter(|t| t.kind == TickKind::Send)
        .map(|t| trace.format_time(t.at))
        .collect();
    assert_eq!(
        sends,
        [
            "10:00:00.000",
            "10:00:01.000",
            "10:00:12.000",
            "10:00:13.000",
            "10:00:24.000",
            "10:00:25.000"
        ]
    );
    assert!(
        !trace
            .ticks()
            .into_iter()
            .any(|t| t.label.contains("job deadline")),
        "each job attempt ends by itself, inside its 3 s"
    );
}

/// A timer that no longer matters does not keep the story going: paid at once with a 48 h
/// timeout, the story ends the same second (no eviction, no day 2).
#[test]
fn a_called_off_timeout_does_not_prolong_the_story() {
    let text = format!(
        "title = \"stale\"\n[[checkout.layer]]\nattempts = 1\ntimeout = \"48h\"\n{ONE_PURCHASE}"
    );
    for design in Design::ALL {
        let trace = run(&scenario(&text), design);
        let last = trace.ticks.last().expect("ticks");
        assert_eq!(trace.format_time(last.at), "10:00:00.300", "{design}");
        assert!(
            !trace
                .ticks()
                .into_iter()
                .any(|t| t.kind == TickKind::Expire),
            "{design}"
        );
    }
}

/// An outer layer's deadline is called off with everything else once the order is paid:
/// a two-layer checkout (a 300 s deadline on each job attempt, keys kept 60 s) paid at once
/// ends with the answer. A deadline left running would keep the story going past the key's
/// expiry, adding an eviction nobody waited for and moving the statement 60 s later.
#[test]
fn a_paid_order_calls_off_the_outer_deadline() {
    let text = format!(
        "title = \"paid at once\"\n[[checkout.layer]]\nname = \"http\"\nattempts = 3\ntimeout = \"30s\"\n\
         [[checkout.layer]]\nname = \"job\"\nattempts = 2\ntimeout = \"300s\"\n\
         [processor]\nretention = \"60s\"\n{ONE_PURCHASE}"
    );
    for design in Design::ALL {
        let trace = run(&scenario(&text), design);
        assert_eq!(
            trace.outcome.intents[0].client_view,
            Belief::Paid,
            "{design}"
        );
        let ticks = trace.ticks();
        assert!(
            !ticks.iter().any(|t| t.kind == TickKind::Expire),
            "{design}: an eviction after the story was over"
        );
        let answer = ticks
            .iter()
            .find(|t| t.kind == TickKind::Answer)
            .expect("an answer");
        let statement = ticks.last().expect("ticks");
        assert_eq!(statement.kind, TickKind::Statement, "{design}");
        assert_eq!(
            trace.format_time(statement.at),
            trace.format_time(answer.at),
            "{design}: the statement comes with the answer"
        );
    }
}

/// The checkout sent one request; the network made a second. Only the original's answer is
/// read: under with-charge the copy's 409 does not make the checkout give up.
#[test]
fn the_answer_to_a_network_copy_is_not_the_checkouts() {
    let text = format!(
        "title = \"dup\"\n[[checkout.layer]]\nattempts = 1\ntimeout = \"30s\"\n{ONE_PURCHASE}\
         [[fault]]\nattempt = 1\nduplicate = \"request\"\ngap = \"10ms\"\n"
    );
    let trace = run(&scenario(&text), Design::WithCharge);
    assert_eq!(trace.outcome.charges, 1);
    assert_eq!(trace.outcome.intents[0].client_view, Belief::Paid);
    assert_eq!(trace.outcome.verdict, Verdict::Correct);
    assert!(
        trace
            .ticks()
            .into_iter()
            .any(|t| t.kind == TickKind::Conflict),
        "the copy got 409"
    );
    assert!(
        trace
            .ticks()
            .into_iter()
            .any(|t| t.label == "answer to the copy of #1 unread"),
        "and nobody read it"
    );
}

/// A second copy answered early does not cancel a crash planned for the original.
#[test]
fn a_network_copy_does_not_cancel_a_planned_crash() {
    let text = format!(
        "title = \"dup crash\"\n{ONE_PURCHASE}\
         [[fault]]\nattempt = 1\nduplicate = \"request\"\ngap = \"10ms\"\n\
         [[fault]]\nattempt = 1\ncrash_after = \"charge\"\n"
    );
    let trace = run(&scenario(&text), Design::WithCharge);
    let write = trace
        .ticks()
        .into_iter()
        .position(|t| t.kind == TickKind::Charge)
        .expect("a charge");
    assert_eq!(
        trace.ticks[write + 1].kind,
        TickKind::Crash,
        "the crash follows the write"
    );
    assert!(
        !trace
            .ticks()
            .into_iter()
            .any(|t| t.narration.contains("never comes"))
    );
}

/// Nothing charged and the checkout does not know: the headline must not say it knows.
#[test]
fn not_charged_and_not_knowing_is_said_so() {
    let text = format!(
        "title = \"lost\"\n[[checkout.layer]]\nattempts = 1\n{ONE_PURCHASE}[[fault]]\nlose = \"request\"\n"
    );
    let trace = run(&scenario(&text), Design::WithCharge);
    assert_eq!(trace.outcome.verdict, Verdict::NotCharged);
    assert_eq!(trace.outcome.intents[0].client_view, Belief::Unknown);
    let (_, head) = idem::story::outcome::headline(&trace.outcome);
    assert!(head.contains("does not know"), "{head}");
    assert!(
        !head.contains("knows the payment did not go through"),
        "{head}"
    );
}

/// A rerun under per-attempt keys says it sends a fresh key, because it does.
#[test]
fn a_rerun_with_per_attempt_keys_names_no_old_key() {
    let text = format!(
        "title = \"rerun\"\n[checkout]\nkey_strategy = \"per-attempt\"\n[[checkout.layer]]\nattempts = 1\n\
         {ONE_PURCHASE}[[fault]]\nlose = \"reply\"\n[[human]]\nname = \"operator rerun\"\nafter = \"1h\"\n"
    );
    let trace = run(&scenario(&text), Design::WithCharge);
    let rerun = trace
        .ticks()
        .into_iter()
        .find(|t| t.kind == TickKind::Rerun)
        .expect("a rerun");
    assert!(
        rerun.narration.contains("a fresh key for every attempt"),
        "{}",
        rerun.narration
    );
    assert!(!rerun.narration.contains("key K1"), "{}", rerun.narration);
}
