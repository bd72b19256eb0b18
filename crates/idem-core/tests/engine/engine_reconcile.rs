//! docs/model.md §5.2 rule by rule: the shop's `[reconcile]` job, each rule through a small inline
//! scenario (or the canonical `nightly-reconcile`) and checked by its effect on the trace:
//! ticks, refunds in the ledger and on the statement, and the outcome.

use crate::common;

use common::inline::one_layer;
use idem::scenario::{self, Scenario, library};
use idem::sim::fact::Fact;
use idem::sim::state::{RefundReason, StatementLine};
use idem::sim::{Belief, Cents, Design, Instant, TickKind, Verdict};
use idem::story::outcome::{intent_line, reconcile_line};
use idem::story::{Story, ToldTick};

const DAY: u64 = 86_400_000;
/// 14:02:07, when order 5531 is paid.
const PAY: u64 = 50_527_000;

/// Order 5531 with `attempts` attempts (30 s timeout, 1 s backoff), plus `extra`.
fn checkout(attempts: u32, extra: &str) -> Scenario {
    let source = one_layer(attempts, "backoff = \"1s\"", extra);
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

/// Runs and checks what holds for every reconciled run: the refunds in the last state are
/// the outcome's, the net is charged less refunded, and nothing is refunded twice.
fn run(s: &Scenario, design: Design) -> Story {
    let trace = s.run(design).unwrap_or_else(|e| panic!("{design}: {e}"));
    let last = &trace.ticks.last().expect("a trace has ticks").state;
    let o = &trace.outcome;
    assert_eq!(last.ledger().len(), o.charges, "{design}");
    common::end_state::check(&trace).unwrap_or_else(|e| panic!("{e}"));
    if let Some(r) = &o.reconcile {
        assert_eq!(last.refunds().len(), r.refunds, "{design}");
        assert_eq!(last.refunded_total(), r.refunded_cents, "{design}");
        assert_eq!(r.net_cents.0, o.charged_cents.0 - r.refunded_cents.0);
        let mut charges: Vec<_> = last.refunds().iter().map(|r| r.charge).collect();
        charges.sort();
        charges.dedup();
        assert_eq!(
            charges.len(),
            last.refunds().len(),
            "{design}: a charge refunded twice"
        );
    } else {
        assert!(last.refunds().is_empty(), "{design}");
    }
    trace
}

fn kinds(trace: &Story, kind: TickKind) -> Vec<ToldTick<'_>> {
    trace
        .ticks()
        .into_iter()
        .filter(|t| t.kind == kind)
        .collect()
}

/// Every reply lost, on every attempt, so the checkout never hears an answer.
fn every_reply_lost(attempts: u32) -> String {
    (1..=attempts)
        .map(|n| format!("[[fault]]\nattempt = {n}\nlose = \"reply\"\n"))
        .collect()
}

// ---------------------------------------------------------------- the canonical scenario

#[test]
fn no_key_is_charged_twice_and_the_night_job_refunds_the_second() {
    let s = builtin("nightly-reconcile");
    let trace = run(&s, Design::NoKey);
    let o = &trace.outcome;
    assert_eq!(o.charges, 2);
    // The verdict stays what the payment path did.
    assert_eq!(o.verdict, Verdict::Duplicate);
    let r = o.reconcile.as_ref().expect("the scenario reconciles");
    assert_eq!(
        r.at,
        Instant(DAY + 2 * 3_600_000),
        "the first 02:00 after 14:02"
    );
    assert_eq!(
        (r.refunds, r.refunded_cents, r.net_cents),
        (1, Cents(4860), Cents(4860))
    );
    let refunds = kinds(&trace, TickKind::Refund);
    assert_eq!(refunds.len(), 1);
    assert_eq!(refunds[0].at, r.at);
    assert_eq!(refunds[0].actor, idem::sim::Actor::Checkout);
    let Fact::Refund { charge, why, .. } = &refunds[0].fact else {
        panic!("a refund tick records a refund");
    };
    assert!(
        *charge == "ch_2",
        "the extra charge is refunded, not the first"
    );
    assert_eq!(*why, RefundReason::Duplicate);
    assert_eq!(refunds[0].label, "refunds ch_2: refund −$48.60");
    // From the second charge (14:02:38.250) to 02:00: the customer saw it for 11 h 58 m.
    assert_eq!(r.unowed_ms, Some(DAY + 7_200_000 - (PAY + 31_250)));
    assert!(
        intent_line(&o.intents[0]).ends_with("1 refund, net $48.60, refunded after 11 h 58 m"),
        "{}",
        intent_line(&o.intents[0])
    );
    assert_eq!(
        reconcile_line(r),
        "1 refund ($48.60), net $48.60; refunded after 11 h 58 m"
    );
}

#[test]
fn with_charge_gives_the_night_job_nothing_to_do() {
    let trace = run(&builtin("nightly-reconcile"), Design::WithCharge);
    let o = &trace.outcome;
    assert_eq!((o.charges, o.verdict), (1, Verdict::Correct));
    let jobs = kinds(&trace, TickKind::Reconcile);
    assert_eq!(jobs.len(), 1, "the job runs, and says so");
    assert!(matches!(
        jobs[0].fact,
        Fact::Reconcile {
            orders: 1,
            pending: 0,
            charges: 1,
            actions: 0,
        }
    ));
    assert!(jobs[0].narration.contains("nothing to put right"));
    for kind in [TickKind::Refund, TickKind::MarkPaid, TickKind::Alert] {
        assert!(kinds(&trace, kind).is_empty(), "{kind:?}");
    }
    let r = o.reconcile.as_ref().expect("the scenario reconciles");
    assert_eq!(
        (r.refunds, r.net_cents, r.unowed_ms),
        (0, Cents(4860), None)
    );
    assert_eq!(reconcile_line(r), "nothing to put right, net $48.60");
}

/// The refund is a ledger line of its own and a statement line `refund −$48.60`, in the state
/// of every tick from the refund on, never before it.
#[test]
fn the_refund_is_in_the_ledger_and_on_the_statement_from_its_tick_on() {
    let trace = run(&builtin("nightly-reconcile"), Design::NoKey);
    let at = kinds(&trace, TickKind::Refund)[0].at;
    for t in &trace.ticks {
        let lines = t.state.statement_lines();
        let refunds: Vec<_> = lines
            .iter()
            .filter(|l| matches!(l, StatementLine::Refund(_)))
            .collect();
        if t.at < at || t.kind == TickKind::Reconcile {
            assert!(refunds.is_empty(), "a refund before the job made it");
        }
        if t.kind == TickKind::Statement {
            assert_eq!(lines.len(), 3);
            assert_eq!(refunds.len(), 1);
            assert_eq!(refunds[0].signed_amount(), Cents(-4860));
            assert_eq!(t.state.net_total(), Cents(4860));
            assert!(lines.windows(2).all(|w| w[0].at() <= w[1].at()));
        }
    }
}

#[test]
fn the_canonical_scenario_is_built_in_and_its_expectations_hold() {
    let s = builtin("nightly-reconcile");
    assert!(!s.expectations.is_empty());
    for e in &s.expectations {
        let o = run(&s, e.design).outcome.clone();
        if let Some(c) = e.charges {
            assert_eq!(o.charges, c, "{}", e.design);
        }
        if let Some(v) = e.verdict {
            assert_eq!(o.verdict, v, "{}", e.design);
        }
        if let Some(n) = e.refunds {
            assert_eq!(o.reconcile.map(|r| r.refunds), Some(n), "{}", e.design);
        }
    }
}

// ---------------------------------------------------------------- the time of the job

#[test]
fn the_job_runs_at_the_next_such_time_after_the_story_starts() {
    // Later the same day.
    let s = checkout(3, "[reconcile]\nat = \"18:00\"\n");
    let trace = run(&s, Design::WithCharge);
    assert_eq!(
        kinds(&trace, TickKind::Reconcile)[0].at,
        Instant(18 * 3_600_000)
    );
    // Earlier in the day than the purchase: the next night.
    let s = checkout(3, "[reconcile]\nat = \"09:30:00\"\n");
    let trace = run(&s, Design::WithCharge);
    assert_eq!(
        kinds(&trace, TickKind::Reconcile)[0].at,
        Instant(DAY + 9 * 3_600_000 + 30 * 60_000)
    );
}

/// A job that runs while the checkout is still waiting leaves that order alone, and says so.
#[test]
fn an_order_still_being_paid_is_left_alone() {
    let s = checkout(
        3,
        &format!("[reconcile]\nat = \"14:02:20\"\n{}", every_reply_lost(3)),
    );
    let trace = run(&s, Design::NoKey);
    let job = &kinds(&trace, TickKind::Reconcile)[0];
    assert!(matches!(
        job.fact,
        Fact::Reconcile {
            orders: 0,
            pending: 1,
            actions: 0,
            ..
        }
    ));
    assert!(
        job.narration.contains("still being paid"),
        "{}",
        job.narration
    );
    // The three charges that follow are never refunded: the job has already run.
    assert_eq!(trace.outcome.charges, 3);
    assert_eq!(trace.outcome.reconcile.as_ref().map(|r| r.refunds), Some(0));
}

// ---------------------------------------------------------------- the rules

/// n charges for an order the shop believes paid: n − 1 refunds, the first charge kept.
#[test]
fn an_order_charged_three_times_gets_two_refunds() {
    let faults =
        "[[fault]]\nattempt = 1\nlose = \"reply\"\n[[fault]]\nattempt = 2\nlose = \"reply\"\n";
    let s = checkout(3, &format!("[reconcile]\nat = \"02:00\"\n{faults}"));
    let trace = run(&s, Design::NoKey);
    let o = &trace.outcome;
    assert_eq!((o.charges, o.intents[0].client_view), (3, Belief::Paid));
    let refunded: Vec<String> = kinds(&trace, TickKind::Refund)
        .iter()
        .map(|t| match &t.fact {
            Fact::Refund { charge, .. } => charge.to_string(),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(refunded, ["ch_2", "ch_3"]);
    let r = o.reconcile.as_ref().expect("reconciles");
    assert_eq!((r.refunds, r.net_cents), (2, Cents(4860)));
    assert_eq!(o.verdict, Verdict::Duplicate, "the verdict stays");
}

/// A charge for an order the shop does not believe paid: refunded by default.
#[test]
fn an_unconfirmed_charge_is_refunded_by_default() {
    let s = checkout(
        3,
        &format!("[reconcile]\nat = \"02:00\"\n{}", every_reply_lost(3)),
    );
    let trace = run(&s, Design::WithCharge);
    let o = &trace.outcome;
    assert_eq!((o.charges, o.intents[0].client_view), (1, Belief::Unknown));
    assert_eq!(o.verdict, Verdict::ChargedUnconfirmed, "the verdict stays");
    let refunds = kinds(&trace, TickKind::Refund);
    assert_eq!(refunds.len(), 1);
    assert!(matches!(
        refunds[0].fact,
        Fact::Refund {
            why: RefundReason::Unconfirmed,
            ..
        }
    ));
    assert!(refunds[0].narration.contains("give the money back"));
    let r = o.reconcile.as_ref().expect("reconciles");
    assert_eq!((r.refunds, r.net_cents, r.marked_paid), (1, Cents(0), 0));
    // Under no-key the same story charges three times: two extras and the unconfirmed one.
    let trace = run(&s, Design::NoKey);
    let r = trace.outcome.reconcile.as_ref().expect("reconciles");
    assert_eq!(
        (trace.outcome.charges, r.refunds, r.net_cents),
        (3, 3, Cents(0))
    );
}

#[test]
fn mark_paid_keeps_the_charge_and_marks_the_order() {
    let s = checkout(
        3,
        &format!(
            "[reconcile]\nat = \"02:00\"\nunconfirmed = \"mark-paid\"\n{}",
            every_reply_lost(3)
        ),
    );
    let trace = run(&s, Design::WithCharge);
    let o = &trace.outcome;
    assert!(kinds(&trace, TickKind::Refund).is_empty());
    let marks = kinds(&trace, TickKind::MarkPaid);
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].label, "keeps ch_1, marks 5531 paid");
    let last = &trace.ticks.last().expect("ticks").state;
    assert!(last.clients()[0].marked_paid);
    // What the checkout concluded, and the verdict, are the payment path's.
    assert_eq!(o.intents[0].client_view, Belief::Unknown);
    assert_eq!(o.verdict, Verdict::ChargedUnconfirmed);
    let r = o.reconcile.as_ref().expect("reconciles");
    assert_eq!((r.refunds, r.marked_paid, r.net_cents), (0, 1, Cents(4860)));
    // Duplicates are still refunded under mark-paid: only the first charge is kept.
    let trace = run(&s, Design::NoKey);
    let r = trace.outcome.reconcile.as_ref().expect("reconciles");
    assert_eq!((r.refunds, r.marked_paid, r.net_cents), (2, 1, Cents(4860)));
}

/// Believed paid, nothing charged (log-before-charge, crash after the key): an alert.
#[test]
fn shipped_unpaid_raises_an_alert_and_refunds_nothing() {
    let s = checkout(
        3,
        "[reconcile]\nat = \"02:00\"\n[[fault]]\nattempt = 1\ncrash_after = \"key\"\nrestart_after = \"2s\"\n",
    );
    let trace = run(&s, Design::LogBeforeCharge);
    let o = &trace.outcome;
    assert_eq!(o.verdict, Verdict::Unpaid);
    let alerts = kinds(&trace, TickKind::Alert);
    assert_eq!(alerts.len(), 1);
    assert_eq!(alerts[0].label, "alert: 5531 shipped unpaid");
    assert!(alerts[0].narration.contains("shipped unpaid"));
    let r = o.reconcile.as_ref().expect("reconciles");
    assert_eq!((r.refunds, r.alerts, r.net_cents), (0, 1, Cents(0)));
}

/// Without a `[reconcile]` nothing of it appears: no tick, no outcome field.
#[test]
fn a_scenario_without_reconcile_has_no_job() {
    let trace = run(&builtin("order-5531"), Design::NoKey);
    assert!(trace.outcome.reconcile.is_none());
    assert!(kinds(&trace, TickKind::Reconcile).is_empty());
    let json = serde_json::to_string(&trace.outcome).expect("serialises");
    assert!(!json.contains("reconcile"), "{json}");
}

// ---------------------------------------------------------------- bad input

fn refused(source: &str) -> String {
    match scenario::parse("bad.toml", "bad", source) {
        Ok(_) => panic!("accepted:\n{source}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_bad_reconcile_is_refused_where_it_is_written() {
    let base = one_layer(3, "backoff = \"1s\"", "");
    let lines = base.lines().count();
    let message = refused(&format!("{base}[reconcile]\nat = \"2am\"\n"));
    assert!(
        message.contains(&format!("bad.toml:{}:6", lines + 2)),
        "{message}"
    );
    assert!(message.contains("not a clock time"), "{message}");
    let message = refused(&format!(
        "{base}[reconcile]\nat = \"02:00\"\nunconfirmed = \"refnd\"\n"
    ));
    assert!(
        message.contains(&format!("bad.toml:{}:", lines + 3)),
        "{message}"
    );
    assert!(
        message.contains("unknown unconfirmed policy `refnd`"),
        "{message}"
    );
    assert!(message.contains("did you mean `refund`?"), "{message}");
    assert!(message.contains("refund, mark-paid"), "{message}");
    let message = refused(&format!(
        "{base}[[expect]]\ndesign = \"no-key\"\nrefunds = 1\n"
    ));
    assert!(message.contains("has no [reconcile]"), "{message}");
    let message = refused(&format!("{base}[reconcile]\nunconfirmed = \"refund\"\n"));
    assert!(message.contains("missing field `at`"), "{message}");
}
