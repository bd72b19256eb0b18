//! docs/model.md §5.3 rule by rule: the `inprogress-record` design (the AWS Lambda Powertools
//! shape) and the handler error it forgets a charge on, each through a small inline scenario and
//! checked by its effect on the trace.

use crate::common;

use common::inline::{ORDER, one_layer};
use idem::scenario::{self, Scenario, library};
use idem::sim::state::{EntryKind, EntryStatus};
use idem::sim::{Belief, Design, TickKind, Verdict};
use idem::story::{Story, ToldTick};

/// Order 5531 with `attempts` attempts (30 s timeout, 1 s backoff), plus `extra`.
fn checkout(attempts: u32, extra: &str) -> Scenario {
    with_backoff(attempts, "backoff = \"1s\"", extra)
}

/// Order 5531 with `attempts` attempts, a 30 s timeout and the given backoff keys, plus `extra`.
fn with_backoff(attempts: u32, backoff: &str, extra: &str) -> Scenario {
    let source = one_layer(attempts, backoff, extra);
    let s = scenario::parse("inline.toml", "inline", &source)
        .unwrap_or_else(|e| panic!("the inline scenario does not parse:\n{e}\n---\n{source}"));
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    s
}

fn builtin(name: &str) -> Scenario {
    library::find(name)
        .unwrap_or_else(|| panic!("no built-in {name}"))
        .load()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn run(s: &Scenario, design: Design) -> Story {
    let trace = s.run(design).unwrap_or_else(|e| panic!("{design}: {e}"));
    let last = trace.ticks.last().expect("a trace has ticks");
    assert_eq!(last.state.ledger().len(), trace.outcome.charges, "{design}");
    common::end_state::check(&trace).unwrap_or_else(|e| panic!("{e}"));
    trace
}

fn kinds(trace: &Story, kind: TickKind) -> Vec<ToldTick<'_>> {
    trace
        .ticks()
        .into_iter()
        .filter(|t| t.kind == kind)
        .collect()
}

const IPR: Design = Design::InProgressRecord;

#[test]
fn the_design_has_id_name_and_key_six() {
    assert_eq!(IPR.id(), "inprogress-record");
    assert_eq!(IPR.hotkey(), 6);
    assert_eq!(Design::from_hotkey(6), Some(IPR));
    assert_eq!("inprogress-record".parse::<Design>(), Ok(IPR));
    assert_eq!(Design::ALL.last(), Some(&IPR), "appended at the end");
    assert!(IPR.uses_key());
}

#[test]
fn order_5531_is_charged_once_and_the_retry_replays_the_completed_record() {
    let trace = run(&builtin("order-5531"), IPR);
    assert_eq!(trace.outcome.charges, 1);
    assert_eq!(trace.outcome.verdict, Verdict::Correct);
    // The completed record is a write of its own, after the charge.
    let charge = kinds(&trace, TickKind::Charge);
    let write = kinds(&trace, TickKind::KeyWrite);
    assert_eq!((charge.len(), write.len()), (1, 1));
    // At the charge the record is still in progress: the completion is a later write.
    let at_charge = charge[0].state.memory.iter().find(|e| e.key == "K7Q4");
    assert_eq!(at_charge.map(|e| e.status), Some(EntryStatus::InProgress));
    let at_write = write[0].state.memory.iter().find(|e| e.key == "K7Q4");
    assert_eq!(at_write.map(|e| e.status), Some(EntryStatus::Completed));
    assert!(write[0].label.contains("K7Q4"), "{}", write[0].label);
    let replay = kinds(&trace, TickKind::Replay);
    assert_eq!(replay.len(), 1);
    assert_eq!(replay[0].attempt, Some(2));
}

#[test]
fn the_in_progress_record_is_on_disk_before_the_charge_and_expires_after_the_setting() {
    let s = checkout(1, "[processor]\nin_progress_expiry = \"90s\"\n");
    let trace = run(&s, IPR);
    let received = kinds(&trace, TickKind::Receive);
    let entry = received[0]
        .state
        .memory
        .iter()
        .find(|e| e.key == "K7Q4")
        .expect("the record is written on arrival")
        .clone();
    assert_eq!(entry.kind, EntryKind::Record);
    assert_eq!(entry.status, EntryStatus::InProgress);
    assert!(entry.durable(), "the in-progress record is on disk");
    assert_eq!(
        entry.expires_at.map(|t| t.0 - received[0].at.0),
        Some(90_000)
    );
}

#[test]
fn slow_processor_gets_409s_until_the_first_attempt_completes_then_one_charge() {
    let trace = run(&builtin("slow-processor"), IPR);
    assert_eq!(trace.outcome.charges, 1);
    assert_eq!(trace.outcome.intents[0].client_view, Belief::Paid);
    let conflicts = kinds(&trace, TickKind::Conflict);
    assert!(!conflicts.is_empty(), "no 409 while attempt #1 worked");
    let completed = kinds(&trace, TickKind::KeyWrite)[0].at;
    assert!(conflicts.iter().all(|t| t.at < completed));
    assert!(
        kinds(&trace, TickKind::Replay)
            .iter()
            .all(|t| t.at > completed)
    );
}

#[test]
fn a_crash_before_the_completed_write_gives_409s_until_expiry_then_a_second_charge() {
    // Retries at 14:02:52 (inside the 60 s expiry) and 14:03:22 (past it).
    let s = with_backoff(
        3,
        "backoff = \"15s\"\nmultiplier = 2.0",
        "[[fault]]\nattempt = 1\ncrash_after = \"charge\"\nrestart_after = \"2s\"\n",
    );
    let trace = run(&s, IPR);
    let crash = &kinds(&trace, TickKind::Crash)[0];
    // The record survives the crash, still in progress.
    assert!(crash.state.memory.iter().any(|e| e.key == "K7Q4"
        && e.status == EntryStatus::InProgress
        && e.kind == EntryKind::Record));
    let expiry = kinds(&trace, TickKind::Expire);
    assert_eq!(expiry.len(), 1, "the in-progress record expires");
    let expired_at = expiry[0].at;
    let conflicts = kinds(&trace, TickKind::Conflict);
    assert_eq!(conflicts.len(), 1, "the retry inside the expiry gets 409");
    assert!(conflicts.iter().all(|t| t.at < expired_at));
    let charges = kinds(&trace, TickKind::Charge);
    assert_eq!(charges.len(), 2);
    assert!(charges[1].at > expired_at);
    assert_eq!(trace.outcome.verdict, Verdict::Duplicate);
    assert!(
        crash.narration.contains("in-progress record for K7Q4"),
        "{}",
        crash.narration
    );

    // With the key stored with the charge the same crash is rolled into one write: 1 charge.
    assert_eq!(run(&s, Design::WithCharge).outcome.charges, 1);
}

#[test]
fn a_crash_before_the_completed_write_costs_nothing_more_once_the_checkout_stops() {
    // Five quick attempts all land inside the 60 s expiry and get 409, then no more.
    let s = checkout(
        5,
        "[[fault]]\nattempt = 1\ncrash_after = \"charge\"\nrestart_after = \"2s\"\n",
    );
    let trace = run(&s, IPR);
    assert_eq!(trace.outcome.charges, 1);
    assert_eq!(kinds(&trace, TickKind::Conflict).len(), 4);
    assert_eq!(trace.outcome.intents[0].client_view, Belief::Unknown);
    assert_eq!(trace.outcome.verdict, Verdict::ChargedUnconfirmed);
}

#[test]
fn a_handler_error_after_the_charge_deletes_the_record_and_the_retry_charges_again() {
    let s = checkout(3, "[[fault]]\nattempt = 1\nfail_after = \"charge\"\n");
    let trace = run(&s, IPR);
    assert_eq!(trace.outcome.charges, 2);
    assert_eq!(trace.outcome.verdict, Verdict::Duplicate);
    let error = trace
        .ticks()
        .into_iter()
        .find(|t| t.label.contains("500"))
        .expect("a 500 answer");
    assert!(
        !error.state.memory.iter().any(|e| e.key == "K7Q4"),
        "the error deleted the record"
    );
    assert!(error.narration.contains("deletes the in-progress record"));

    // The key stored with the charge keeps its one write: the retry is a replay.
    let wc = run(&s, Design::WithCharge);
    assert_eq!(wc.outcome.charges, 1);
    assert_eq!(wc.outcome.intents[0].client_view, Belief::Paid);
    assert_eq!(kinds(&wc, TickKind::Replay).len(), 1);
}

#[test]
fn a_handler_error_on_receive_charges_nothing_and_the_retry_is_new() {
    let s = checkout(3, "[[fault]]\nattempt = 1\nfail_after = \"receive\"\n");
    for design in Design::ALL {
        let trace = run(&s, design);
        assert_eq!(trace.outcome.charges, 1, "{design}");
        assert_eq!(trace.outcome.counters.attempts_sent, 2, "{design}");
        assert_eq!(
            trace.outcome.intents[0].client_view,
            Belief::Paid,
            "{design}"
        );
    }
    let trace = run(&s, IPR);
    let error = trace
        .ticks()
        .into_iter()
        .find(|t| t.label.contains("500"))
        .expect("a 500 answer");
    assert!(error.state.memory.is_empty());
    assert!(error.state.ledger().is_empty());
}

#[test]
fn a_declined_card_is_stored_and_replayed() {
    let s = checkout(
        3,
        "[[fault]]\nattempt = 1\ndecline = true\n\n[[fault]]\nattempt = 1\nlose = \"reply\"\n",
    );
    let trace = run(&s, IPR);
    assert_eq!(trace.outcome.charges, 0);
    assert_eq!(kinds(&trace, TickKind::Decline).len(), 1);
    let replay = kinds(&trace, TickKind::Replay);
    assert_eq!(replay.len(), 1);
    let answer = kinds(&trace, TickKind::Answer);
    assert!(answer[0].label.contains("402") && answer[0].label.contains("(replayed)"));
    assert_eq!(trace.outcome.intents[0].client_view, Belief::Failed);
}

#[test]
fn a_request_without_a_key_is_refused_400() {
    let s = checkout(3, "[checkout]\nkey_strategy = \"none\"\n");
    let trace = run(&s, IPR);
    assert_eq!(trace.outcome.charges, 0);
    assert_eq!(kinds(&trace, TickKind::Reject).len(), 1);
}

#[test]
fn the_handler_error_scenario_meets_its_expectations() {
    let s = builtin("powertools-handler-error");
    assert_eq!(run(&s, Design::WithCharge).outcome.charges, 1);
    assert_eq!(run(&s, IPR).outcome.charges, 2);
}

#[test]
fn fail_after_refuses_an_unknown_point_with_its_position() {
    let source = format!(
        "title = \"bad\"\n[[checkout.layer]]\nattempts = 2\n{ORDER}\n[[fault]]\nattempt = 1\nfail_after = \"reply\"\n"
    );
    let Err(err) = scenario::parse("bad.toml", "bad", &source) else {
        panic!("an unknown point is refused");
    };
    let err = err.to_string();
    assert!(err.contains("bad.toml:"), "{err}");
    assert!(err.contains("expected one of: receive, charge"), "{err}");
}

#[test]
fn in_progress_expiry_must_be_longer_than_zero() {
    let source = format!(
        "title = \"bad\"\n[[checkout.layer]]\nattempts = 2\n[processor]\nin_progress_expiry = \"0s\"\n{ORDER}"
    );
    let Err(err) = scenario::parse("bad.toml", "bad", &source) else {
        panic!("zero is refused");
    };
    let err = err.to_string();
    assert!(err.contains("in-progress expiry"), "{err}");
}

/// The in-progress record blocks its key for 5 s; the charge takes 10 s. The record lapses
/// while the work goes on, and the completed record is then written as a new entry: two
/// written, one evicted, one held.
#[test]
fn a_record_that_lapsed_while_its_charge_ran_is_written_again_when_it_completes() {
    let s = checkout(
        1,
        "[processor]\nin_progress_expiry = \"5s\"\n\n[[fault]]\nattempt = 1\nprocessing = \"10s\"\n",
    );
    let trace = run(&s, IPR);
    assert_eq!(trace.outcome.charges, 1);
    let lapsed = kinds(&trace, TickKind::Expire);
    assert_eq!(lapsed.len(), 1, "the in-progress record lapses");
    let completed = kinds(&trace, TickKind::KeyWrite);
    let completed = completed.last().expect("the record is completed");
    assert!(completed.at > lapsed[0].at);
    let c = trace.outcome.counters;
    assert_eq!((c.keys_stored, c.keys_evicted), (2, 1));
    let memory = &trace.trace.ticks.last().expect("ticks").state.memory;
    assert_eq!(memory.len(), 1);
    assert_eq!(memory[0].status, EntryStatus::Completed);
}
