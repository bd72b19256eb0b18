//! docs/model.md §2 rule by rule, each through a small inline scenario and checked by its effect on
//! the trace: charges, answers, tick kinds, times and state, never against a copied table.

use crate::common;

use common::inline::{ORDER, one_layer};
use idem::scenario::{self, Scenario, library};
use idem::sim::state::EntryStatus;
use idem::sim::{Belief, Design, TickKind, Verdict};
use idem::story::{Story, ToldTick};

/// A one-layer checkout (3 attempts, 30 s timeout, 1 s backoff) paying order 5531, plus `extra`.
fn simple(extra: &str) -> String {
    one_layer(3, "backoff = \"1s\"", extra)
}

fn parse(source: &str) -> Scenario {
    let s = scenario::parse("inline.toml", "inline", source)
        .unwrap_or_else(|e| panic!("the inline scenario does not parse:\n{e}\n---\n{source}"));
    assert!(
        s.warnings.is_empty(),
        "unexpected warnings {:?}\n---\n{source}",
        s.warnings
    );
    s
}

fn run(s: &Scenario, design: Design) -> Story {
    let trace = s.run(design).unwrap_or_else(|e| panic!("{design}: {e}"));
    check_invariants(&trace);
    trace
}

fn kinds(trace: &Story, kind: TickKind) -> Vec<ToldTick<'_>> {
    trace
        .ticks()
        .into_iter()
        .filter(|t| t.kind == kind)
        .collect()
}

fn send_times(trace: &Story) -> Vec<u64> {
    kinds(trace, TickKind::Send)
        .iter()
        .map(|t| t.at.0)
        .collect()
}

/// What holds for every trace, whatever the scenario: checked on every run in this file.
fn check_invariants(trace: &Story) {
    let d = trace.design;
    assert!(!trace.ticks.is_empty(), "{d}: an empty trace");
    let ticks = trace.ticks();
    for pair in ticks.windows(2) {
        assert!(
            pair[0].at <= pair[1].at,
            "{d}: the clock goes back from {} ({}) to {} ({})",
            trace.format_time(pair[0].at),
            pair[0].label,
            trace.format_time(pair[1].at),
            pair[1].label
        );
        // Each tick's state is complete on its own: the ledger only grows, counters never drop.
        let (a, b) = (&pair[0].state, &pair[1].state);
        assert!(
            a.ledger().len() <= b.ledger().len(),
            "{d}: the ledger shrank"
        );
        assert!(
            b.ledger()
                .iter()
                .zip(a.ledger().iter())
                .all(|(x, y)| x == y),
            "{d}: a past charge changed"
        );
        assert!(a.counters.attempts_sent <= b.counters.attempts_sent, "{d}");
        assert!(
            a.counters.requests_received <= b.counters.requests_received,
            "{d}"
        );
    }
    for t in &ticks {
        assert!(
            t.state.ledger().len() <= t.state.counters.requests_received as usize,
            "{d}: at {} more charges ({}) than requests received ({})",
            t.label,
            t.state.ledger().len(),
            t.state.counters.requests_received
        );
        assert!(
            t.state.counters.requests_received <= 2 * t.state.counters.attempts_sent.max(1),
            "{d}: more arrivals than the network could deliver"
        );
        assert!(
            !t.label.is_empty() && !t.narration.is_empty(),
            "{d}: a bare tick"
        );
    }
    common::end_state::check(trace).unwrap_or_else(|e| panic!("{e}"));
    let o = &trace.outcome;
    let last = &trace.ticks.last().unwrap().state;
    assert_eq!(
        last.ledger().len(),
        o.charges,
        "{d}: final ledger vs outcome"
    );
    assert_eq!(last.charged_total(), o.charged_cents, "{d}");
    assert_eq!(last.counters, o.counters, "{d}: final counters vs outcome");
    assert!(o.charges <= o.counters.requests_received as usize, "{d}");
    assert_eq!(
        trace.ticks.last().unwrap().kind,
        TickKind::Statement,
        "{d}: the story ends with the statement"
    );
    for (i, intent) in o.intents.iter().enumerate() {
        let ledger_count = last.ledger().iter().filter(|c| c.intent == i).count();
        assert_eq!(intent.charges, ledger_count, "{d}: order {}", intent.id);
        assert_eq!(
            intent.verdict,
            Verdict::judge(intent.charges, intent.client_view)
        );
    }
    let worst = o.intents.iter().map(|i| i.verdict).min().unwrap();
    assert_eq!(
        o.verdict, worst,
        "{d}: the overall verdict is the first that applies"
    );
}

// ---------------------------------------------------------------- memory at the edges

/// Order 5532 for the same $48.60 of the same items as order 5531 (so the same body to
/// `content-hash`), under its own key, sent at `at`.
fn same_body_order(at: &str) -> String {
    format!(
        "\n[[intent]]\norder = \"5532\"\nkey = \"K9B2\"\namount = \"$48.60\"\nitems = [\"2 × notebook\", \"fountain pen\"]\nat = \"{at}\"\n"
    )
}

/// Order 5531's reply is lost; order 5532 (its own key, another amount) is charged and
/// remembered while 5531's checkout waits to retry. Writing 5532's entry leaves 5531's where
/// it is, so the retry still finds it: one charge each, nothing evicted, both entries kept.
#[test]
fn one_orders_entry_leaves_another_orders_entry_in_place() {
    let src = format!(
        "{}\n[[intent]]\norder = \"5532\"\nkey = \"K9B2\"\namount = \"$12.00\"\nat = \"14:02:10\"\n",
        simple("[[fault]]\nintent = \"5531\"\nattempt = 1\nlose = \"reply\"\n")
    );
    let scenario = parse(&src);
    // Every design that remembers anything: a key with the charge, a record, a log line, or
    // a hash of the body (the two bodies differ).
    for design in Design::ALL.into_iter().filter(|&d| d != Design::NoKey) {
        let trace = run(&scenario, design);
        let c = trace.outcome.counters;
        assert_eq!(trace.outcome.charges, 2, "{design}: one charge per order");
        assert_eq!(c.keys_evicted, 0, "{design}");
        let memory = &trace.ticks.last().expect("ticks").state.memory;
        assert_eq!(memory.len(), 2, "{design}: {memory:?}");
        // A hash is not a key the retry carries: it refuses the same body rather than
        // replaying an answer under a key.
        if design != Design::ContentHash {
            assert_eq!(c.dedupe_hits, 1, "{design}");
            let mut keys: Vec<&str> = memory.iter().map(|e| &*e.key).collect();
            keys.sort_unstable();
            assert_eq!(keys, ["K7Q4", "K9B2"], "{design}: {memory:?}");
        }
    }
}

/// As below, but order 5532's body differs from 5531's: its hash lands on the millisecond
/// 5531's expires without taking its place. The old hash leaves by its own eviction, which
/// the trace shows as a tick of its own.
#[test]
fn a_hash_written_as_another_bodys_hash_expires_leaves_it_to_its_eviction() {
    let src = format!(
        "{}\n[[intent]]\norder = \"5532\"\nkey = \"K9B2\"\namount = \"$12.00\"\nat = \"14:02:07.100\"\n",
        simple(
            "[processor]\nretention = \"10s\"\n\n[[fault]]\nintent = \"5532\"\nattempt = 1\nprocessing = \"10100ms\"\n"
        ),
    );
    let trace = run(&parse(&src), Design::ContentHash);
    let charges = kinds(&trace, TickKind::Charge);
    assert_eq!(charges.len(), 2);
    assert_eq!(
        charges[0].state.memory[0].expires_at,
        Some(charges[1].at),
        "the second charge lands as the first hash expires"
    );
    let expired: Vec<_> = kinds(&trace, TickKind::Expire)
        .into_iter()
        .filter(|t| t.at == charges[1].at)
        .collect();
    assert_eq!(expired.len(), 1, "5531's hash is evicted by its own tick");
    assert_eq!(expired[0].intent, Some(0));
    let c = trace.outcome.counters;
    assert_eq!((c.keys_stored, c.keys_evicted), (2, 1));
}

/// A body hash is kept 10 s. Order 5532, the same body as 5531, arrives before 5531's hash is
/// written, and its slow charge (10.1 s) lands on the very millisecond that hash expires, with
/// the eviction still pending: the new hash takes the old one's place at once, and the old
/// one counts as evicted.
#[test]
fn a_hash_written_as_its_predecessor_expires_takes_its_place() {
    let src = format!(
        "{}{}",
        simple(
            "[processor]\nretention = \"10s\"\n\n[[fault]]\nintent = \"5532\"\nattempt = 1\nprocessing = \"10100ms\"\n"
        ),
        same_body_order("14:02:07.100")
    );
    let trace = run(&parse(&src), Design::ContentHash);
    let charges = kinds(&trace, TickKind::Charge);
    assert_eq!(
        charges.len(),
        2,
        "the second body came before the first hash"
    );
    let old = charges[0].state.memory[0].expires_at;
    assert_eq!(
        old,
        Some(charges[1].at),
        "the second charge lands as the hash expires"
    );
    assert_eq!(
        charges[1].state.memory.len(),
        1,
        "the old hash is gone the moment the new one is written"
    );
    let c = trace.outcome.counters;
    assert_eq!((c.keys_stored, c.keys_evicted), (2, 1));
    let memory = &trace.ticks.last().unwrap().state.memory;
    assert_eq!(memory.len(), 1, "one hash for one body: {memory:?}");
    assert_eq!(
        memory[0].intent, 1,
        "the hash written with order 5532's charge"
    );
}

/// The same under `inprogress-record`: a second copy of the request, made by the network, reaches
/// the processor on the millisecond the completed record expires (processing 200 ms + 10 s
/// kept), before the eviction has run. The copy's in-progress record replaces the stale one.
#[test]
fn a_record_written_as_its_predecessor_expires_takes_its_place() {
    let s = parse(&simple(
        "[processor]\nretention = \"10s\"\n\n[[fault]]\nattempt = 1\nduplicate = \"request\"\ngap = \"10200ms\"\n",
    ));
    let trace = run(&s, Design::InProgressRecord);
    assert_eq!(
        trace.outcome.charges, 2,
        "the copy came as the record was forgotten"
    );
    let copy = kinds(&trace, TickKind::Receive)[1];
    assert_eq!(copy.attempt, Some(1));
    assert_eq!(
        copy.state.memory.len(),
        1,
        "the stale record is gone the moment the copy's is written"
    );
    assert_eq!(copy.state.memory[0].status, EntryStatus::InProgress);
    // The stale record was completed: the key was forgotten, not left in progress.
    match copy.fact {
        idem::sim::Fact::Takes { how, forgotten, .. } => {
            assert_eq!(
                how,
                idem::sim::fact::Takes::WriteInProgress { lapsed: None }
            );
            assert_eq!(forgotten, Some(copy.at));
        }
        ref other => panic!("the copy is taken on: {other:?}"),
    }
    let c = trace.outcome.counters;
    assert_eq!((c.keys_stored, c.keys_evicted), (2, 1));
    let memory = &trace.ticks.last().unwrap().state.memory;
    assert_eq!(memory.len(), 1, "one record for one key: {memory:?}");
    assert_eq!(memory[0].status, EntryStatus::Completed);
    assert_eq!(
        memory[0].response.and_then(|r| r.charge).map(|c| c.0),
        Some(2)
    );
}

/// A lost answer and one retry: every design that keeps something stores it once and answers
/// the retry from it once (a replay, or `content-hash`'s refusal of the same body, which is
/// counted as a refusal rather than a hit); `no-key` keeps nothing.
#[test]
fn each_design_counts_what_it_stores_and_what_it_finds() {
    let s = parse(&simple("[[fault]]\nattempt = 1\nlose = \"reply\"\n"));
    for design in Design::ALL {
        let trace = run(&s, design);
        let c = trace.outcome.counters;
        // content-hash's 400 for the same body is a refusal, counted as one, not a hit.
        let expected = match design {
            Design::NoKey => (0, 0),
            Design::ContentHash => (1, 0),
            _ => (1, 1),
        };
        let refused = u32::from(design == Design::ContentHash);
        assert_eq!(c.refusals_400, refused, "{design}: refusals");
        assert_eq!(
            (c.keys_stored, c.dedupe_hits),
            expected,
            "{design}: keys stored, dedupe hits"
        );
        // What it keeps, and in which state: a key log holds lines, the others completed
        // records (or hashes).
        let kept: Vec<EntryStatus> = trace
            .ticks
            .last()
            .unwrap()
            .state
            .memory
            .iter()
            .map(|e| e.status)
            .collect();
        let expected = match design {
            Design::NoKey => vec![],
            Design::LogAfterCharge | Design::LogBeforeCharge => vec![EntryStatus::Logged],
            _ => vec![EntryStatus::Completed],
        };
        assert_eq!(kept, expected, "{design}");
    }
}

/// A crash planned after the key never comes under `no-key`, and the answer that passes the
/// point says so, even while another order's request, filed next to it, is still unanswered
/// (only a network copy of the same attempt could still reach the point).
#[test]
fn a_missed_crash_is_told_though_another_order_is_still_in_progress() {
    let src = format!(
        "{}{}",
        simple(
            "[[fault]]\nattempt = 1\ncrash_after = \"key\"\n\n[[fault]]\nintent = \"5532\"\nattempt = 1\nprocessing = \"20s\"\n"
        ),
        same_body_order("14:02:07")
    );
    let trace = run(&parse(&src), Design::NoKey);
    let replies = kinds(&trace, TickKind::Reply);
    let first = replies
        .iter()
        .find(|t| t.intent == Some(0))
        .expect("order 5531 is answered");
    assert!(
        replies
            .iter()
            .all(|t| t.intent != Some(1) || t.at > first.at),
        "order 5532 is still in progress when 5531 is answered"
    );
    assert_eq!(first.missed.len(), 1, "{}", first.narration);
    assert_eq!(first.missed[0].attempt, 1);
    assert!(first.missed[0].key_less);
}

/// A network copy of the attempt could still reach the planned point while the original is
/// answered: the crash that never came is told only with the last copy's answer.
#[test]
fn a_missed_crash_waits_for_the_copy_of_its_attempt() {
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\ncrash_after = \"key\"\n\n[[fault]]\nattempt = 1\nduplicate = \"request\"\ngap = \"10ms\"\n",
    ));
    let trace = run(&s, Design::NoKey);
    let replies = kinds(&trace, TickKind::Reply);
    assert_eq!(replies.len(), 2, "the original and its copy are answered");
    assert!(replies[0].missed.is_empty(), "{}", replies[0].narration);
    assert_eq!(replies[1].missed.len(), 1, "{}", replies[1].narration);
}

/// Under `log-after-charge` the key is logged after the answer: a crash planned after the key
/// still comes, right after that write, though the answer has already left.
#[test]
fn a_crash_after_the_key_comes_after_a_late_key_log() {
    let s = parse(&simple("[[fault]]\nattempt = 1\ncrash_after = \"key\"\n"));
    let trace = run(&s, Design::LogAfterCharge);
    let ticks = trace.ticks();
    let logged = ticks
        .iter()
        .position(|t| t.kind == TickKind::KeyWrite)
        .expect("the key is logged");
    assert_eq!(ticks[logged + 1].kind, TickKind::Crash);
    assert!(
        ticks.iter().all(|t| t.missed.is_empty()),
        "no crash was missed"
    );
}

/// A crash planned after the key on an attempt answered from memory never comes; under a
/// design that keeps keys that is not for want of a key.
#[test]
fn a_crash_missed_by_a_replay_is_not_blamed_on_a_missing_key() {
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\nlose = \"reply\"\n\n[[fault]]\nattempt = 2\ncrash_after = \"key\"\n",
    ));
    let trace = run(&s, Design::WithCharge);
    let missed: Vec<_> = trace.ticks.iter().flat_map(|t| t.missed.iter()).collect();
    assert_eq!(missed.len(), 1);
    assert_eq!(missed[0].attempt, 2);
    assert!(!missed[0].key_less);
}

/// A crash cuts off the work the processor had under way for other requests: order 5531's
/// slow charge is cut when order 5532's arrival crashes the processor.
#[test]
fn a_crash_cuts_off_the_other_orders_work_in_progress() {
    let src = format!(
        "{}\n[[intent]]\norder = \"5532\"\nkey = \"K9B2\"\namount = \"$12.00\"\nat = \"14:02:08\"\n",
        simple(
            "[[fault]]\nintent = \"5531\"\nattempt = 1\nprocessing = \"5s\"\n\n[[fault]]\nintent = \"5532\"\nattempt = 1\ncrash_after = \"receive\"\n"
        )
    );
    let trace = run(&parse(&src), Design::WithCharge);
    let crash = kinds(&trace, TickKind::Crash)[0];
    match &crash.fact {
        idem::sim::Fact::Crash {
            cut, marks_lost, ..
        } => {
            assert_eq!(cut.len(), 1, "{cut:?}");
            assert_eq!(cut[0].req, 0);
            assert_eq!(cut[0].step, idem::sim::fact::CutStep::Commit);
            assert_eq!(cut[0].charge, None);
            // 5531's in-progress mark was held in memory: lost with it, counted as evicted.
            assert_eq!(marks_lost.len(), 1, "{marks_lost:?}");
            assert_eq!(marks_lost[0], "K7Q4");
            assert!(crash.state.memory.is_empty());
            assert_eq!(crash.state.counters.keys_evicted, 1);
        }
        other => panic!("a crash tells {other:?}"),
    }
}

// ---------------------------------------------------------------- retry arithmetic

fn three_layers_every_reply_lost() -> String {
    let mut s = String::from("title = \"three layers\"\nseed = 9\n");
    // Only the innermost layer times a request out; the outer layers set no deadline.
    for (name, timeout, backoff) in [
        ("http client", "timeout = \"30s\"\n", "1s"),
        ("service", "", "10s"),
        ("scheduler", "", "100s"),
    ] {
        s.push_str(&format!(
            "\n[[checkout.layer]]\nname = \"{name}\"\nattempts = 3\n{timeout}backoff = \"{backoff}\"\n"
        ));
    }
    s.push_str(ORDER);
    for attempt in 1..=27 {
        s.push_str(&format!(
            "\n[[fault]]\nattempt = {attempt}\nlose = \"reply\"\n"
        ));
    }
    s
}

#[test]
fn three_layers_of_three_multiply_into_27_attempts() {
    let s = parse(&three_layers_every_reply_lost());
    assert_eq!(s.config.attempts_per_run(), 27);

    let nk = run(&s, Design::NoKey);
    assert_eq!(nk.outcome.counters.attempts_sent, 27);
    assert_eq!(nk.outcome.counters.requests_received, 27);
    assert_eq!(nk.outcome.charges, 27, "every lost reply cost a charge");
    assert_eq!(nk.outcome.intents[0].client_view, Belief::Unknown);
    assert_eq!(nk.outcome.verdict, Verdict::Duplicate);
    assert_eq!(kinds(&nk, TickKind::GiveUp).len(), 1);
    assert!(
        nk.warnings.is_empty(),
        "all 27 faults fired: {:?}",
        nk.warnings
    );

    let wc = run(&s, Design::WithCharge);
    assert_eq!(wc.outcome.counters.attempts_sent, 27);
    assert_eq!(
        wc.outcome.charges, 1,
        "the key holds across all 27 attempts"
    );
    assert_eq!(wc.outcome.counters.dedupe_hits, 26);
    assert_eq!(wc.outcome.intents[0].client_view, Belief::Unknown);
    assert_eq!(wc.outcome.verdict, Verdict::ChargedUnconfirmed);
}

#[test]
fn an_outer_attempt_replays_the_inner_budget_after_its_own_backoff() {
    let s = parse(&three_layers_every_reply_lost());
    let trace = run(&s, Design::NoKey);
    let sends = send_times(&trace);
    assert_eq!(sends.len(), 27);
    // Between two sends: the 30 s wait, then the backoff of the layer that retried.
    let mut gaps: Vec<u64> = sends.windows(2).map(|w| w[1] - w[0]).collect();
    let inner = gaps.iter().filter(|g| **g == 31_000).count();
    let middle = gaps.iter().filter(|g| **g == 40_000).count();
    let outer = gaps.iter().filter(|g| **g == 130_000).count();
    assert_eq!(
        (inner, middle, outer),
        (18, 6, 2),
        "gaps between sends: {gaps:?}"
    );
    // The pattern is the nested loop: inner, inner, middle, inner, inner, middle, ...
    gaps.truncate(9);
    assert_eq!(
        gaps,
        [
            31_000, 31_000, 40_000, 31_000, 31_000, 40_000, 31_000, 31_000, 130_000
        ]
    );
    // The whole automatic path: 27 waits of 30 s plus 18 × 1 s + 6 × 10 s + 2 × 100 s.
    let give_up = kinds(&trace, TickKind::GiveUp)[0].at.0;
    assert_eq!(
        give_up - sends[0],
        27 * 30_000 + 18 * 1_000 + 6 * 10_000 + 2 * 100_000
    );
}

#[test]
fn exponential_backoff_with_a_cap() {
    let src = format!(
        "title = \"backoff\"\n[[checkout.layer]]\nattempts = 6\ntimeout = \"10s\"\nbackoff = \"1s\"\nmultiplier = 2.0\ncap = \"5s\"\n{ORDER}{}",
        (1..=6)
            .map(|a| format!("\n[[fault]]\nattempt = {a}\nlose = \"request\"\n"))
            .collect::<String>()
    );
    let trace = run(&parse(&src), Design::WithCharge);
    let gaps: Vec<u64> = send_times(&trace).windows(2).map(|w| w[1] - w[0]).collect();
    // 10 s timeout + 1, 2, 4, then capped at 5, 5.
    assert_eq!(gaps, [11_000, 12_000, 14_000, 15_000, 15_000]);
    assert_eq!(trace.outcome.charges, 0);
    assert_eq!(trace.outcome.counters.requests_received, 0);
    assert_eq!(trace.outcome.intents[0].client_view, Belief::Unknown);
    assert_eq!(trace.outcome.verdict, Verdict::NotCharged);
}

/// Each timeout says what comes next: attempt 2 of 3 after the backoff, then 3 of 3, then
/// nothing left.
#[test]
fn each_timeout_names_the_next_attempt_and_its_wait() {
    use idem::sim::fact::Next;
    let lost = (1..=3)
        .map(|a| format!("\n[[fault]]\nattempt = {a}\nlose = \"request\"\n"))
        .collect::<String>();
    let trace = run(&parse(&simple(&lost)), Design::WithCharge);
    let next: Vec<Next> = kinds(&trace, TickKind::Timeout)
        .iter()
        .map(|t| match t.fact {
            idem::sim::Fact::TimedOut { next, .. } => next,
            ref other => panic!("a timeout tells {other:?}"),
        })
        .collect();
    let retry = |n| Next::Retry {
        layer: 0,
        n,
        of: 3,
        delay_ms: 1000,
    };
    assert_eq!(next, [retry(2), retry(3), Next::GiveUp]);
}

// ---------------------------------------------------------------- processor answers

#[test]
fn in_progress_key_gets_409_then_the_stored_answer_is_replayed() {
    let src = format!(
        "title = \"slow\"\n[[checkout.layer]]\nattempts = 5\ntimeout = \"30s\"\nbackoff = \"10s\"\n{ORDER}\n[[fault]]\nattempt = 1\nprocessing = \"45s\"\n"
    );
    let s = parse(&src);
    let trace = run(&s, Design::WithCharge);
    let o = &trace.outcome;
    let conflicts = kinds(&trace, TickKind::Conflict);
    assert!(
        !conflicts.is_empty(),
        "no 409 while attempt #1 was in progress"
    );
    assert_eq!(o.counters.conflicts_409 as usize, conflicts.len());
    let charge = kinds(&trace, TickKind::Charge)[0].at;
    assert!(
        conflicts.iter().all(|t| t.at < charge),
        "409 only while in progress"
    );
    // The first 409 reaches the checkout, which retries rather than stopping.
    let answered_409 = trace
        .ticks()
        .into_iter()
        .filter(|t| t.kind == TickKind::Answer && t.label.contains("409"))
        .count();
    assert_eq!(answered_409, conflicts.len());
    let replay = kinds(&trace, TickKind::Replay);
    assert_eq!(replay.len(), 1);
    assert!(replay[0].at > charge, "the replay follows the commit");
    assert!(replay[0].label.contains("K7Q4"));
    assert_eq!(o.charges, 1);
    assert_eq!(o.intents[0].client_view, Belief::Paid);
    assert_eq!(o.verdict, Verdict::Correct);
    let paid = trace
        .ticks()
        .into_iter()
        .rev()
        .find(|t| t.kind == TickKind::Answer)
        .unwrap();
    assert!(paid.label.contains("(replayed)"), "{}", paid.label);
    // Attempt #1's own answer comes after the checkout stopped waiting for it.
    assert!(
        kinds(&trace, TickKind::Dropped)
            .iter()
            .any(|t| t.attempt == Some(1))
    );

    // Without an in-progress mark the retry is charged too.
    let lac = run(&s, Design::LogAfterCharge);
    assert_eq!(lac.outcome.charges, 2);
    assert_eq!(lac.outcome.counters.conflicts_409, 0);
}

/// Two orders in the processor's hands at once, the first slowed to 20 s: each one-write
/// completes its own order's record, so the second order's charge never lands in the first
/// order's record and neither record is left in progress.
#[test]
fn overlapping_orders_each_complete_their_own_record() {
    let src = format!(
        "{}\n[[intent]]\norder = \"5532\"\nkey = \"K9B2\"\namount = \"$12.00\"\nitems = [\"ink\"]\nat = \"14:02:08\"\n",
        simple("[[fault]]\nintent = \"5531\"\nattempt = 1\nprocessing = \"20s\"\n")
    );
    let s = parse(&src);
    let trace = run(&s, Design::WithCharge);
    let o = &trace.outcome;
    assert_eq!(o.charges, 2);
    assert_eq!(o.verdict, Verdict::Correct);
    let last = &trace.ticks.last().unwrap().state;
    let records: Vec<(String, EntryStatus, Option<usize>)> = last
        .memory
        .iter()
        .map(|e| {
            let charged_by = e
                .response
                .and_then(|r| r.charge)
                .and_then(|id| last.ledger().iter().find(|c| c.id == id))
                .map(|c| c.intent);
            (e.key.to_string(), e.status, charged_by)
        })
        .collect();
    assert_eq!(
        records,
        [
            ("K7Q4".to_string(), EntryStatus::Completed, Some(0)),
            ("K9B2".to_string(), EntryStatus::Completed, Some(1)),
        ]
    );
    // The second order was charged while the first was still in progress.
    let charges = kinds(&trace, TickKind::Charge);
    assert_eq!(charges[0].intent, Some(1));
    let during = &charges[0].state.memory;
    assert!(
        during
            .iter()
            .any(|e| &*e.key == "K7Q4" && e.status == EntryStatus::InProgress),
        "order 5531 is still in progress when 5532 is charged"
    );
}

#[test]
fn same_key_different_amount_is_422_and_charges_nothing() {
    let src = format!(
        "title = \"reuse\"\n{ORDER}\n[[intent]]\norder = \"5538\"\nkey = \"K7Q4\"\namount = \"$52.10\"\nitems = [\"desk lamp\"]\nat = \"14:05:00\"\n"
    );
    let s = parse(&src);
    let trace = run(&s, Design::WithCharge);
    let o = &trace.outcome;
    assert_eq!(o.counters.mismatches_422, 1);
    let mismatch = kinds(&trace, TickKind::Mismatch);
    assert_eq!(mismatch.len(), 1);
    assert_eq!(mismatch[0].intent, Some(1));
    // No money moved at the 422, and the checkout did not retry it.
    let idx = trace
        .ticks()
        .into_iter()
        .position(|t| t.kind == TickKind::Mismatch)
        .unwrap();
    assert_eq!(trace.ticks[idx].state.ledger().len(), 1);
    assert_eq!(o.charges, 1);
    assert_eq!(o.charged_cents.0, 4860);
    assert_eq!(o.intents[1].charges, 0);
    assert_eq!(o.intents[1].client_view, Belief::Failed);
    assert_eq!(
        trace.ticks.last().unwrap().state.clients()[1].attempts_sent,
        1
    );
    assert_eq!(o.counters.attempts_sent, 2);
    assert_eq!(o.verdict, Verdict::NotCharged);
}

#[test]
fn a_stored_error_is_replayed_too() {
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\ndecline = true\n\n[[fault]]\nattempt = 1\nlose = \"reply\"\n",
    ));
    let trace = run(&s, Design::WithCharge);
    let o = &trace.outcome;
    assert_eq!(kinds(&trace, TickKind::Decline).len(), 1);
    assert_eq!(o.charges, 0);
    assert_eq!(
        o.counters.attempts_sent, 2,
        "one retry, then the 402 is final"
    );
    assert_eq!(o.counters.dedupe_hits, 1);
    let replay = kinds(&trace, TickKind::Replay);
    assert_eq!(replay.len(), 1);
    assert_eq!(replay[0].attempt, Some(2));
    let answer = kinds(&trace, TickKind::Answer);
    assert_eq!(answer.len(), 1);
    assert!(
        answer[0].label.contains("402") && answer[0].label.contains("(replayed)"),
        "{}",
        answer[0].label
    );
    assert_eq!(o.intents[0].client_view, Belief::Failed);
    assert_eq!(o.verdict, Verdict::NotCharged);

    // Without memory the retry is a fresh try at the card, which succeeds.
    let nk = run(&s, Design::NoKey);
    assert_eq!(nk.outcome.charges, 1);
    assert_eq!(nk.outcome.intents[0].client_view, Belief::Paid);
}

#[test]
fn a_request_without_a_key_is_refused_400_by_with_charge() {
    let s = parse(&simple("[checkout]\nkey_strategy = \"none\"\n"));
    let trace = run(&s, Design::WithCharge);
    let o = &trace.outcome;
    let reject = kinds(&trace, TickKind::Reject);
    assert_eq!(reject.len(), 1);
    assert!(reject[0].label.contains("400"), "{}", reject[0].label);
    assert_eq!(o.charges, 0);
    assert_eq!(o.counters.attempts_sent, 1, "a 400 is final");
    assert_eq!(o.counters.keys_stored, 0, "the refusal had no effect");
    assert!(trace.ticks.last().unwrap().state.memory.is_empty());
    assert_eq!(o.intents[0].client_view, Belief::Failed);
    assert_eq!(o.verdict, Verdict::NotCharged);
    let sends = kinds(&trace, TickKind::Send);
    assert!(sends[0].label.contains("no key"), "{}", sends[0].label);

    let nk = run(&s, Design::NoKey);
    assert_eq!(nk.outcome.charges, 1);
    assert_eq!(nk.outcome.verdict, Verdict::Correct);
}

// ---------------------------------------------------------------- the network

#[test]
fn a_reply_after_its_timeout_is_dropped() {
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\ndelay = \"reply\"\nby = \"40s\"\n",
    ));
    for design in [Design::WithCharge, Design::NoKey] {
        let trace = run(&s, design);
        let dropped = kinds(&trace, TickKind::Dropped);
        assert_eq!(dropped.len(), 1, "{design}");
        assert_eq!(dropped[0].attempt, Some(1));
        let timeout = kinds(&trace, TickKind::Timeout)[0];
        assert_eq!(timeout.attempt, Some(1));
        assert!(dropped[0].at > timeout.at, "{design}");
        // 50 ms there, 200 ms of work, then 50 ms + 40 s back.
        assert_eq!(trace.format_time(dropped[0].at), "14:02:47.300", "{design}");
        // The dropped answer changes nothing the checkout knows.
        let i = trace
            .ticks()
            .into_iter()
            .position(|t| t.kind == TickKind::Dropped)
            .unwrap();
        let (now, before) = (
            &trace.ticks[i].state.clients()[0],
            &trace.ticks[i - 1].state.clients()[0],
        );
        assert_eq!(
            now, before,
            "{design}: a dropped answer changes nothing the checkout knows"
        );
        assert_eq!(now.attempts_sent, 2, "{design}");
        assert_eq!(
            now.belief,
            Belief::Paid,
            "{design}: paid by the retry, before #1's answer"
        );
        assert_eq!(trace.outcome.intents[0].client_view, Belief::Paid);
    }
    assert_eq!(run(&s, Design::WithCharge).outcome.charges, 1);
    assert_eq!(run(&s, Design::NoKey).outcome.charges, 2);
}

#[test]
fn a_reply_inside_its_timeout_is_read() {
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\ndelay = \"reply\"\nby = \"20s\"\n",
    ));
    let trace = run(&s, Design::NoKey);
    assert!(kinds(&trace, TickKind::Dropped).is_empty());
    assert!(kinds(&trace, TickKind::Timeout).is_empty());
    assert_eq!(trace.outcome.counters.attempts_sent, 1);
    assert_eq!(trace.outcome.charges, 1);
}

#[test]
fn a_duplicated_request_is_charged_once_under_with_charge() {
    for gap in ["10ms", "1s"] {
        let s = parse(&simple(&format!(
            "[[fault]]\nattempt = 1\nduplicate = \"request\"\ngap = \"{gap}\"\n"
        )));
        let wc = run(&s, Design::WithCharge);
        assert_eq!(wc.outcome.charges, 1, "gap {gap}");
        assert_eq!(wc.outcome.intents[0].client_view, Belief::Paid, "gap {gap}");
        assert_eq!(wc.outcome.verdict, Verdict::Correct, "gap {gap}");
        let receives = wc
            .ticks()
            .into_iter()
            .filter(|t| t.attempt == Some(1) && t.actor == idem::sim::Actor::Processor)
            .filter(|t| {
                matches!(
                    t.kind,
                    TickKind::Receive | TickKind::Conflict | TickKind::Replay
                )
            })
            .count();
        assert_eq!(
            receives, 2,
            "gap {gap}: both copies of #1 reached the processor"
        );

        let nk = run(&s, Design::NoKey);
        assert_eq!(nk.outcome.charges, 2, "gap {gap}");
        assert_eq!(nk.outcome.counters.attempts_sent, 1, "gap {gap}");
        assert_eq!(nk.outcome.counters.requests_received, 2, "gap {gap}");
    }
}

#[test]
fn a_lost_request_costs_nothing_but_time() {
    let s = parse(&simple("[[fault]]\nattempt = 1\nlose = \"request\"\n"));
    for design in Design::ALL {
        let trace = run(&s, design);
        let lost = kinds(&trace, TickKind::Lost);
        assert_eq!(lost.len(), 1, "{design}");
        assert_eq!(lost[0].state.ledger().len(), 0);
        assert_eq!(trace.outcome.charges, 1, "{design}");
        assert_eq!(trace.outcome.counters.requests_received, 1, "{design}");
    }
}

// ---------------------------------------------------------------- crashes

#[test]
fn a_crash_on_receive_charges_once_after_the_retry() {
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\ncrash_after = \"receive\"\nrestart_after = \"2s\"\n",
    ));
    for design in Design::ALL {
        let trace = run(&s, design);
        let crash = trace
            .ticks()
            .into_iter()
            .position(|t| t.kind == TickKind::Crash)
            .unwrap_or_else(|| panic!("{design}: no crash"));
        assert_eq!(trace.ticks[crash].state.ledger().len(), 0, "{design}");
        assert!(!trace.ticks[crash].state.processor_up, "{design}");
        let restart = trace
            .ticks()
            .into_iter()
            .position(|t| t.kind == TickKind::Restart)
            .unwrap();
        assert_eq!(
            trace.ticks[restart].at.0 - trace.ticks[crash].at.0,
            2_000,
            "{design}"
        );
        assert!(trace.ticks[restart].state.processor_up);
        assert_eq!(trace.outcome.charges, 1, "{design}");
        assert_eq!(trace.outcome.counters.attempts_sent, 2, "{design}");
        assert_eq!(trace.outcome.intents[0].client_view, Belief::Paid);
        assert_eq!(trace.outcome.verdict, Verdict::Correct, "{design}");
    }
}

#[test]
fn a_request_reaching_a_crashed_processor_is_unanswered() {
    // The processor is down for a minute; attempt #2 arrives while it is down.
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\ncrash_after = \"receive\"\nrestart_after = \"60s\"\n",
    ));
    let trace = run(&s, Design::WithCharge);
    let unanswered = kinds(&trace, TickKind::Unanswered);
    assert_eq!(unanswered.len(), 1);
    assert_eq!(unanswered[0].attempt, Some(2));
    assert_eq!(trace.outcome.counters.requests_received, 2);
    assert_eq!(trace.outcome.counters.attempts_sent, 3);
    assert_eq!(trace.outcome.charges, 1);
}

#[test]
fn a_crash_point_the_design_never_reaches_is_narrated_not_crashed() {
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\ncrash_after = \"key\"\nrestart_after = \"2s\"\n",
    ));
    for design in [Design::NoKey, Design::ContentHash] {
        let trace = run(&s, design);
        assert!(kinds(&trace, TickKind::Crash).is_empty(), "{design}");
        assert!(
            trace.ticks().into_iter().all(|t| t.state.processor_up),
            "{design}"
        );
        let said = trace
            .ticks()
            .into_iter()
            .filter(|t| t.narration.contains("never reaches that point"))
            .count();
        assert_eq!(
            said, 1,
            "{design}: the narration says the crash never comes"
        );
        assert_eq!(trace.outcome.charges, 1, "{design}");
        assert_eq!(trace.outcome.counters.attempts_sent, 1, "{design}");
        assert_eq!(trace.outcome.verdict, Verdict::Correct, "{design}");
    }
    // A keyed design does reach it.
    let wc = run(&s, Design::WithCharge);
    assert_eq!(kinds(&wc, TickKind::Crash).len(), 1);
}

#[test]
fn a_crash_while_in_progress_rolls_everything_back() {
    // Attempt #1 takes 45 s; attempt #2 reaches the processor meanwhile and crashes it on
    // receive. #1's work was only in memory: no charge, no key, and the mark is gone.
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\nprocessing = \"45s\"\n\n[[fault]]\nattempt = 2\ncrash_after = \"receive\"\nrestart_after = \"2s\"\n",
    ));
    let trace = run(&s, Design::WithCharge);
    let crash = trace
        .ticks()
        .into_iter()
        .position(|t| t.kind == TickKind::Crash)
        .expect("a crash");
    let before = &trace.ticks[crash - 1].state;
    let mark = before
        .memory
        .iter()
        .find(|e| e.key == "K7Q4")
        .expect("an in-progress mark before the crash");
    assert!(!mark.durable(), "the in-progress mark lives in memory only");
    let after = &trace.ticks[crash].state;
    assert!(after.memory.is_empty(), "{:?}", after.memory);
    assert!(after.ledger().is_empty());
    let charges = kinds(&trace, TickKind::Charge);
    assert_eq!(charges.len(), 1);
    assert_eq!(charges[0].attempt, Some(3), "attempt #1 never finished");
    assert_eq!(trace.outcome.charges, 1);
    assert_eq!(trace.outcome.counters.conflicts_409, 0);
    assert_eq!(trace.outcome.verdict, Verdict::Correct);
}

#[test]
fn the_completed_record_is_written_with_the_charge() {
    let s = parse(&simple("[[fault]]\nattempt = 1\nprocessing = \"5s\"\n"));
    let trace = run(&s, Design::WithCharge);
    let receive = kinds(&trace, TickKind::Receive)[0];
    let mark = receive
        .state
        .memory
        .iter()
        .find(|e| e.key == "K7Q4")
        .expect("an in-progress mark");
    assert!(!mark.durable());
    assert!(mark.response.is_none());
    assert!(receive.state.ledger().is_empty());
    let charge = kinds(&trace, TickKind::Charge)[0];
    assert_eq!(
        charge.at.0 - receive.at.0,
        5_000,
        "the slow attempt took 5 s"
    );
    let record = charge
        .state
        .memory
        .iter()
        .find(|e| e.key == "K7Q4")
        .unwrap();
    assert!(
        record.durable(),
        "the completed record is written with the charge"
    );
    assert_eq!(
        charge.state.ledger().len(),
        1,
        "in the same tick as the ledger line"
    );
    assert_eq!(record.fingerprint, mark.fingerprint);
    assert_eq!(record.response.as_ref().map(|r| r.status), Some(200));
    assert_eq!(
        record.expires_at.map(|t| t.0),
        Some(charge.at.0 + 24 * 3_600_000),
        "kept for the default 24 h"
    );
    assert_eq!(trace.outcome.charges, 1);
    assert_eq!(trace.outcome.counters.keys_stored, 1);
}

// ---------------------------------------------------------------- retention

fn human_after(after: &str) -> Scenario {
    parse(&format!(
        "title = \"retention\"\n[[checkout.layer]]\nattempts = 1\ntimeout = \"30s\"\n\n[processor]\nretention = \"24h\"\n{ORDER}\n[[fault]]\nattempt = 1\nlose = \"reply\"\n\n[[human]]\nname = \"operator rerun\"\nafter = \"{after}\"\n"
    ))
}

#[test]
fn a_rerun_after_the_retention_window_is_charged_again() {
    let late = run(&human_after("48h"), Design::WithCharge);
    let expire = late
        .ticks()
        .into_iter()
        .position(|t| t.kind == TickKind::Expire)
        .expect("an expire tick");
    let rerun = late
        .ticks()
        .into_iter()
        .position(|t| t.kind == TickKind::Rerun)
        .expect("a rerun tick");
    assert!(expire < rerun);
    assert!(
        late.ticks[expire]
            .state
            .memory
            .iter()
            .all(|e| e.key != "K7Q4"),
        "the key is gone after its expiry"
    );
    // Expiry comes 24 h after the write at 14:02:07.250.
    assert_eq!(
        late.ticks[expire].at.0,
        late.ticks()
            .into_iter()
            .find(|t| t.kind == TickKind::Charge)
            .unwrap()
            .at
            .0
            + 24 * 3_600_000
    );
    assert_eq!(late.outcome.charges, 2);
    assert_eq!(late.outcome.verdict, Verdict::Duplicate);
    assert_eq!(late.outcome.counters.keys_evicted, 1);
    assert_eq!(late.outcome.counters.dedupe_hits, 0);
    // The first request found the key new; the rerun's found it forgotten at its expiry.
    let forgotten: Vec<Option<u64>> = kinds(&late, TickKind::Receive)
        .iter()
        .filter_map(|t| match t.fact {
            idem::sim::Fact::Takes { forgotten, .. } => Some(forgotten.map(|at| at.0)),
            _ => None,
        })
        .collect();
    assert_eq!(forgotten, [None, Some(late.ticks[expire].at.0)]);

    let early = run(&human_after("12h"), Design::WithCharge);
    assert!(kinds(&early, TickKind::Expire).is_empty());
    assert_eq!(kinds(&early, TickKind::Rerun).len(), 1);
    assert_eq!(early.outcome.charges, 1);
    assert_eq!(early.outcome.counters.dedupe_hits, 1);
    assert_eq!(early.outcome.counters.keys_evicted, 0);
    assert_eq!(early.outcome.intents[0].client_view, Belief::Paid);
    assert_eq!(early.outcome.verdict, Verdict::Correct);
}

#[test]
fn a_rerun_starts_the_whole_budget_again_with_the_same_key() {
    let trace = run(&human_after("12h"), Design::WithCharge);
    let rerun = kinds(&trace, TickKind::Rerun)[0];
    let give_up = kinds(&trace, TickKind::GiveUp)[0];
    assert_eq!(rerun.at.0 - give_up.at.0, 12 * 3_600_000);
    let sends = kinds(&trace, TickKind::Send);
    assert_eq!(sends.len(), 2);
    assert_eq!(sends[1].attempt, Some(2), "attempts count across reruns");
    assert!(sends[1].label.contains("key K7Q4"));
}

/// Each human path is tried once, in order: a first rerun that also ends unpaid hands the order
/// to the second path, and once every path has been tried the order is left as it is.
#[test]
fn human_paths_are_taken_in_turn_and_each_once() {
    let lost = (1..=3)
        .map(|a| format!("\n[[fault]]\nattempt = {a}\nlose = \"request\"\n"))
        .collect::<String>();
    let s = parse(&format!(
        "{}{lost}\n[[human]]\nname = \"operator rerun\"\nafter = \"1h\"\n\n[[human]]\nname = \"dead-letter replay\"\nafter = \"1d\"\n",
        one_layer(1, "", "")
    ));
    let trace = run(&s, Design::WithCharge);
    let paths: Vec<usize> = kinds(&trace, TickKind::Rerun)
        .iter()
        .map(|t| match t.fact {
            idem::sim::Fact::Rerun { path } => path,
            ref other => panic!("a rerun tick tells {other:?}"),
        })
        .collect();
    assert_eq!(paths, [0, 1]);
    assert_eq!(kinds(&trace, TickKind::Send).len(), 3);
    assert_eq!(kinds(&trace, TickKind::GiveUp).len(), 3);
    assert_eq!(trace.outcome.intents[0].client_view, Belief::Unknown);
}

/// Under per-attempt keys, attempt #1 carries the key minted with the order, and every retry a
/// fresh one of its own.
#[test]
fn per_attempt_keys_start_with_the_orders_own() {
    let s = parse(&simple(
        "[checkout]\nkey_strategy = \"per-attempt\"\n\n[[fault]]\nattempt = 1\nlose = \"reply\"\n\n[[fault]]\nattempt = 2\nlose = \"reply\"\n",
    ));
    let trace = run(&s, Design::WithCharge);
    let keys: Vec<String> = trace
        .requests
        .iter()
        .map(|r| {
            r.key
                .as_deref()
                .expect("every attempt has a key")
                .to_string()
        })
        .collect();
    assert_eq!(keys.len(), 3);
    assert_eq!(keys[0], "K7Q4");
    assert!(
        keys[1] != keys[0] && keys[2] != keys[0] && keys[1] != keys[2],
        "{keys:?}"
    );
}

/// A human path limited to one order reruns that order only.
#[test]
fn a_human_path_for_one_order_leaves_the_others_alone() {
    let s = parse(&format!(
        "{}\n[[intent]]\norder = \"5532\"\nkey = \"K9B2\"\namount = \"$12.00\"\nat = \"14:03:00\"\n\n\
         [[fault]]\nintent = \"5531\"\nattempt = 1\nlose = \"request\"\n\n\
         [[fault]]\nintent = \"5532\"\nattempt = 1\nlose = \"request\"\n\n\
         [[human]]\nname = \"operator rerun\"\nafter = \"1h\"\nintent = \"5532\"\n",
        one_layer(1, "", "")
    ));
    let trace = run(&s, Design::WithCharge);
    let reruns: Vec<Option<usize>> = kinds(&trace, TickKind::Rerun)
        .iter()
        .map(|t| t.intent)
        .collect();
    assert_eq!(reruns, [Some(1)]);
    let o = &trace.outcome;
    assert_eq!(o.intents[0].client_view, Belief::Unknown);
    assert_eq!(o.intents[1].client_view, Belief::Paid);
}

// ---------------------------------------------------------------- determinism and jitter

fn jittered(seed: u64, jitter: &str) -> Scenario {
    parse(&format!(
        "title = \"jitter\"\nseed = {seed}\n[[checkout.layer]]\nattempts = 6\ntimeout = \"5s\"\nbackoff = \"10s\"\nmultiplier = 2.0\njitter = \"{jitter}\"\n{ORDER}{}",
        (1..=6)
            .map(|a| format!("\n[[fault]]\nattempt = {a}\nlose = \"request\"\n"))
            .collect::<String>()
    ))
}

fn fingerprint(trace: &Story) -> String {
    serde_json::to_string(&trace.trace).expect("a trace serialises")
}

#[test]
fn the_same_seed_gives_the_same_trace() {
    for jitter in ["none", "full", "equal", "decorrelated"] {
        let a = run(&jittered(42, jitter), Design::WithCharge);
        let b = run(&jittered(42, jitter), Design::WithCharge);
        assert!(
            fingerprint(&a) == fingerprint(&b),
            "{jitter}: traces differ"
        );
    }
    for b in library::BUILTIN {
        let s = b.load().unwrap();
        for d in Design::ALL {
            assert!(
                fingerprint(&run(&s, d)) == fingerprint(&run(&s, d)),
                "{} {d}",
                b.name
            );
        }
    }
}

#[test]
fn a_different_seed_moves_jittered_sends() {
    let a = send_times(&run(&jittered(1, "full"), Design::WithCharge));
    let b = send_times(&run(&jittered(2, "full"), Design::WithCharge));
    assert_eq!(a.len(), 6);
    assert_eq!(a[0], b[0], "the first send is not delayed by jitter");
    assert_ne!(a, b, "seeds 1 and 2 gave the same jittered send times");
    // Full jitter never waits longer than the un-jittered backoff.
    let caps = [10_000u64, 20_000, 40_000, 80_000, 160_000];
    for times in [&a, &b] {
        for (i, w) in times.windows(2).enumerate() {
            let wait = w[1] - w[0] - 5_000;
            assert!(wait <= caps[i], "retry {} waited {wait} ms", i + 1);
        }
    }
    // Without jitter the seed is irrelevant.
    assert_eq!(
        send_times(&run(&jittered(1, "none"), Design::WithCharge)),
        send_times(&run(&jittered(2, "none"), Design::WithCharge))
    );
}

#[test]
fn equal_and_decorrelated_jitter_stay_in_their_bounds() {
    // Over 20 seeds the waits spread across their ranges, not just sit at one end.
    let (mut equal_high, mut decorrelated_long) = (false, false);
    for seed in 0..20 {
        let eq = send_times(&run(&jittered(seed, "equal"), Design::NoKey));
        for (i, w) in eq.windows(2).enumerate() {
            let base = 10_000u64 << i;
            let wait = w[1] - w[0] - 5_000;
            assert!(
                (base / 2..=base).contains(&wait),
                "seed {seed}: equal jitter waited {wait} of {base}"
            );
            equal_high |= wait > base * 3 / 4;
        }
        let de = send_times(&run(&jittered(seed, "decorrelated"), Design::NoKey));
        let mut prev = 10_000u64;
        for w in de.windows(2) {
            let wait = w[1] - w[0] - 5_000;
            assert!(
                (10_000..=prev * 3).contains(&wait),
                "seed {seed}: decorrelated wait {wait} outside 10 s..={}",
                prev * 3
            );
            decorrelated_long |= wait > 20_000;
            prev = wait;
        }
    }
    assert!(
        equal_high,
        "equal jitter never waited more than 3/4 of its base"
    );
    assert!(
        decorrelated_long,
        "decorrelated jitter never waited over 20 s"
    );
}

// ---------------------------------------------------------------- invariants everywhere

#[test]
fn every_canonical_trace_keeps_the_invariants() {
    for b in library::BUILTIN {
        let s = b.load().unwrap();
        for d in Design::ALL {
            // `run` checks the clock, the ledger, the counters and the final state.
            let trace = run(&s, d);
            assert!(
                trace.outcome.charges <= trace.outcome.counters.requests_received as usize,
                "{} {d}",
                b.name
            );
        }
    }
}

#[test]
fn each_tick_state_is_self_contained() {
    // Stepping backwards: the state at tick i can be read on its own, and replaying the
    // ledger growth from the ticks reconstructs the final ledger in order.
    let s = library::default_scenario().unwrap();
    for d in Design::ALL {
        let trace = run(&s, d);
        let mut rebuilt = Vec::new();
        for t in &trace.ticks {
            if t.state.ledger().len() > rebuilt.len() {
                rebuilt.extend(t.state.ledger().iter().skip(rebuilt.len()).cloned());
                assert_eq!(
                    t.kind,
                    TickKind::Charge,
                    "{d}: money moved at a {:?}",
                    t.kind
                );
            }
        }
        let last = &trace.ticks.last().unwrap().state;
        assert_eq!(rebuilt, last.ledger().to_vec(), "{d}");
        assert_eq!(rebuilt.len(), trace.outcome.charges, "{d}");
        let ids: Vec<String> = rebuilt.iter().map(|c| c.id.to_string()).collect();
        let expected: Vec<String> = (1..=ids.len()).map(|i| format!("ch_{i}")).collect();
        assert_eq!(ids, expected, "{d}: charge ids count up");
        // The first tick knows nothing yet; a clone of any tick's state stands alone.
        assert!(trace.ticks[0].state.ledger().is_empty());
        let middle = trace.ticks[trace.ticks.len() / 2].state.clone();
        drop(trace);
        assert!(middle.ledger().len() <= 2);
    }
}

#[test]
fn counters_match_the_ticks() {
    for b in library::BUILTIN {
        let s = b.load().unwrap();
        for d in Design::ALL {
            let trace = run(&s, d);
            let c = trace.outcome.counters;
            let name = b.name;
            assert_eq!(
                c.attempts_sent as usize,
                kinds(&trace, TickKind::Send).len(),
                "{name} {d}"
            );
            assert_eq!(
                c.conflicts_409 as usize,
                kinds(&trace, TickKind::Conflict).len(),
                "{name} {d}"
            );
            assert_eq!(
                c.mismatches_422 as usize,
                kinds(&trace, TickKind::Mismatch).len(),
                "{name} {d}"
            );
            // Every expiry evicts; so do a crash that loses marks held in memory and a
            // handler error that deletes its record. The store holds what is left.
            assert!(
                c.keys_evicted as usize >= kinds(&trace, TickKind::Expire).len(),
                "{name} {d}"
            );
            let held = trace.ticks.last().map_or(0, |t| t.state.memory.len());
            assert_eq!(
                (c.keys_stored - c.keys_evicted) as usize,
                held,
                "{name} {d}"
            );
            let charges = kinds(&trace, TickKind::Charge).len();
            assert_eq!(trace.outcome.charges, charges, "{name} {d}");
        }
    }
}

#[test]
fn an_outer_deadline_abandons_the_attempts_beneath_it() {
    let src = format!(
        "title = \"deadline\"\n[[checkout.layer]]\nname = \"http client\"\nattempts = 3\ntimeout = \"30s\"\nbackoff = \"1s\"\n\n[[checkout.layer]]\nname = \"service\"\nattempts = 2\ntimeout = \"45s\"\nbackoff = \"5s\"\n{ORDER}{}",
        (1..=6)
            .map(|a| format!("\n[[fault]]\nattempt = {a}\nlose = \"request\"\n"))
            .collect::<String>()
    );
    let s = scenario::parse("inline.toml", "inline", &src).expect("parses");
    // Faults 5 and 6 are on attempts the deadline never lets happen: the engine says so.
    let trace = run(&s, Design::WithCharge);
    let start = trace.ticks[0].at.0;
    let sends: Vec<u64> = send_times(&trace).iter().map(|t| t - start).collect();
    assert_eq!(sends, [0, 31_000, 50_000, 81_000]);
    let deadlines: Vec<u64> = kinds(&trace, TickKind::Timeout)
        .iter()
        .filter(|t| t.label.contains("deadline"))
        .map(|t| t.at.0 - start)
        .collect();
    assert_eq!(deadlines, [45_000, 95_000]);
    assert_eq!(kinds(&trace, TickKind::GiveUp).len(), 1);
    assert_eq!(trace.outcome.intents[0].client_view, Belief::Unknown);
    assert_eq!(trace.warnings.len(), 2, "{:?}", trace.warnings);
}

#[test]
fn an_answer_tick_carries_the_belief_it_narrates() {
    // Each tick carries the whole state as it stands after it (docs/model.md §2). The tick on
    // which the checkout reads 200 and marks the order paid must already show it as paid; the
    // tick on which it reads a final 4xx must show it as failed.
    let cases = [
        (simple(""), Design::WithCharge, Belief::Paid),
        (
            simple("[checkout]\nkey_strategy = \"none\"\n"),
            Design::WithCharge,
            Belief::Failed,
        ),
    ];
    for (src, design, belief) in cases {
        let trace = run(&parse(&src), design);
        let answer = kinds(&trace, TickKind::Answer)[0];
        assert_eq!(
            answer.state.clients()[0].belief,
            belief,
            "{design}: the tick `{}` says {:?}",
            answer.label,
            answer.state.clients()[0].belief
        );
    }
}

#[test]
fn a_trace_that_spans_days_names_the_day() {
    // docs/model.md §2: times read `14:02:38.000`, and a story that runs past midnight names
    // the day. The rerun comes exactly 48 h after the give-up, so time of day alone makes the
    // two ticks read the same.
    let trace = run(&human_after("48h"), Design::WithCharge);
    let give_up = kinds(&trace, TickKind::GiveUp)[0];
    let rerun = kinds(&trace, TickKind::Rerun)[0];
    assert_eq!(rerun.at.0 - give_up.at.0, 48 * 3_600_000);
    let (a, b) = (trace.format_time(give_up.at), trace.format_time(rerun.at));
    assert_ne!(a, b, "two ticks 48 h apart both display as {a}");
}

#[test]
fn content_hash_misses_a_retry_whose_body_carries_a_timestamp() {
    let lost = "[[fault]]\nattempt = 1\nlose = \"reply\"\n";
    let plain = run(&parse(&simple(lost)), Design::ContentHash);
    assert_eq!(plain.outcome.charges, 1);
    assert_eq!(
        kinds(&plain, TickKind::Reject).len(),
        1,
        "the retry is refused"
    );
    assert_eq!(plain.outcome.intents[0].client_view, Belief::Failed);
    assert_eq!(plain.outcome.verdict, Verdict::ChargedUnconfirmed);

    let stamped = parse(&simple(&format!("[checkout]\nstamp_body = true\n\n{lost}")));
    let ch = run(&stamped, Design::ContentHash);
    assert_eq!(
        ch.outcome.charges, 2,
        "the stamped retry hashes differently"
    );
    assert!(kinds(&ch, TickKind::Reject).is_empty());
    assert_eq!(ch.outcome.verdict, Verdict::Duplicate);
    // A key does not care about the stamp.
    assert_eq!(run(&stamped, Design::WithCharge).outcome.charges, 1);
}

#[test]
fn the_key_log_replays_without_checking_the_request() {
    let src = format!(
        "title = \"reuse\"\n{ORDER}\n[[intent]]\norder = \"5538\"\nkey = \"K7Q4\"\namount = \"$52.10\"\nat = \"14:05:00\"\n"
    );
    let s = parse(&src);
    for design in [Design::LogAfterCharge, Design::LogBeforeCharge] {
        let o = run(&s, design).trace.outcome;
        assert_eq!(o.counters.mismatches_422, 0, "{design}");
        assert_eq!(o.counters.dedupe_hits, 1, "{design}");
        assert_eq!(o.intents[1].charges, 0, "{design}");
        assert_eq!(o.intents[1].client_view, Belief::Paid, "{design}");
        assert_eq!(o.verdict, Verdict::Unpaid, "{design}");
    }
}

#[test]
fn a_crash_after_the_reply_loses_nothing() {
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\ncrash_after = \"reply\"\nrestart_after = \"2s\"\n",
    ));
    for design in Design::ALL {
        let trace = run(&s, design);
        let crash = trace
            .ticks()
            .into_iter()
            .position(|t| t.kind == TickKind::Crash)
            .unwrap_or_else(|| panic!("{design}: no crash"));
        assert_eq!(trace.ticks[crash - 1].kind, TickKind::Reply, "{design}");
        assert_eq!(trace.outcome.charges, 1, "{design}");
        assert_eq!(trace.outcome.counters.attempts_sent, 1, "{design}");
        assert_eq!(trace.outcome.verdict, Verdict::Correct, "{design}");
    }
}

#[test]
fn log_after_charge_forgets_a_charge_made_just_before_a_crash() {
    let s = parse(&simple(
        "[[fault]]\nattempt = 1\ncrash_after = \"charge\"\nrestart_after = \"2s\"\n",
    ));
    let trace = run(&s, Design::LogAfterCharge);
    let crash = trace
        .ticks()
        .into_iter()
        .position(|t| t.kind == TickKind::Crash)
        .unwrap();
    assert_eq!(trace.ticks[crash].state.ledger().len(), 1);
    assert!(
        trace.ticks[crash].state.memory.is_empty(),
        "the key never reached the log"
    );
    assert_eq!(trace.outcome.charges, 2);
    // Key stored with the charge: the same crash leaves both or neither.
    let wc = run(&s, Design::WithCharge);
    let crash = wc
        .ticks()
        .into_iter()
        .position(|t| t.kind == TickKind::Crash)
        .unwrap();
    assert_eq!(wc.ticks[crash].state.ledger().len(), 1);
    assert_eq!(wc.ticks[crash].state.memory.len(), 1);
    assert!(wc.ticks[crash].state.memory[0].durable());
    assert_eq!(wc.outcome.charges, 1);
}

/// The digests worked out once when a scenario is read are the ones its intents' fields and
/// its merchant give, for every built-in scenario and every file under `scenarios/`.
#[test]
fn each_intents_digests_are_those_of_its_fields() {
    use idem::sim::digest::{content_unstamped, fingerprint};
    let mut scenarios: Vec<Scenario> = library::BUILTIN
        .iter()
        .map(|b| b.load().expect("a built-in scenario loads"))
        .collect();
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    for entry in std::fs::read_dir(folder).expect("the scenarios folder") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(&path).expect("readable");
            let name = path.display().to_string();
            if let Ok(s) = scenario::parse(&name, &name, &text) {
                scenarios.push(s);
            }
        }
    }
    assert!(scenarios.len() > 20, "{} scenarios", scenarios.len());
    for s in &scenarios {
        let cfg = &s.config;
        for i in &cfg.intents {
            assert_eq!(
                (i.digests.fingerprint, i.digests.content),
                (
                    fingerprint(&i.order, i.amount, &i.items),
                    content_unstamped(&cfg.merchant, i.amount, &i.items)
                ),
                "{}: order {}",
                s.title,
                i.order
            );
        }
    }
}
