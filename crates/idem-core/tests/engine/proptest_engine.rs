//! Random valid scenarios, written out as TOML text and read back through the parser, then
//! simulated under every design. Whatever the layers, faults and people do, some things must
//! always hold: the run is repeatable, time only moves forward, money only moves when a
//! request arrives, the ledger is only ever appended to, the story ends on the statement, and
//! a key stored with the charge never lets one purchase be charged twice while it is kept.

use crate::common;

use idem::scenario::{self, Scenario};
use idem::sim::config::{KeySource, Unconfirmed};
use idem::sim::{Belief, Design, TickKind, Trace};
use proptest::prelude::*;
use std::fmt::Write;

// ---------------------------------------------------------------- what the generator draws

#[derive(Clone, Debug)]
struct LayerSpec {
    attempts: u32,
    /// Always set on the innermost layer (a reply timeout); optional outside it (a deadline).
    timeout_ms: Option<u64>,
    backoff_ms: u64,
    /// Hundredths, so the file shows an exact decimal.
    multiplier_centi: u32,
    cap_ms: Option<u64>,
    jitter: &'static str,
    /// What the layer does with the key, when the file says (`forward`, `per-attempt`, `none`).
    key: Option<&'static str>,
}

#[derive(Clone, Debug)]
struct IntentSpec {
    /// Milliseconds after the previous intent (or after 08:00:00 for the first).
    gap_ms: u64,
    cents: u64,
    /// An index into a small pool, so two intents sometimes share a key; `None` takes the
    /// default `<order>-key`.
    key: Option<usize>,
}

#[derive(Clone, Debug)]
enum Action {
    Lose(&'static str),
    Delay(&'static str, u64),
    Duplicate(&'static str, u64),
    Crash(&'static str, u64),
    Slow(u64),
    Decline,
    FailAfter(&'static str),
}

#[derive(Clone, Debug)]
struct FaultSpec {
    /// Taken modulo the number of intents.
    intent: usize,
    attempt: u32,
    action: Action,
}

#[derive(Clone, Debug)]
struct HumanSpec {
    after_ms: u64,
    /// Restricted to one intent (modulo the number of intents), or for every intent.
    intent: Option<usize>,
}

#[derive(Clone, Debug)]
struct Spec {
    seed: u64,
    key_strategy: &'static str,
    stamp_body: bool,
    /// The checkout asks about the key before each retry.
    lookup: bool,
    latency_ms: u64,
    processing_ms: u64,
    retention_ms: u64,
    layers: Vec<LayerSpec>,
    intents: Vec<IntentSpec>,
    faults: Vec<FaultSpec>,
    human: Option<HumanSpec>,
    /// Extra questions, each on a tick of the story under `with-charge` picked by this number
    /// (modulo the ticks): a question can stop on any kind of tick.
    questions: Vec<usize>,
    /// The shop's night job: minutes after midnight, and its policy for an unconfirmed charge.
    reconcile: Option<(u64, &'static str)>,
    /// The shop's steps after the payment.
    steps: Vec<StepSpec>,
}

/// A downstream step: its service, key mode, tries, and faults on its tries.
#[derive(Clone, Debug)]
struct StepSpec {
    service: &'static str,
    key: &'static str,
    attempts: u32,
    /// (intent, try, `lose = "…"` or `delay` by milliseconds)
    faults: Vec<(usize, u32, &'static str, u64)>,
}

fn steps() -> impl Strategy<Value = Vec<StepSpec>> {
    let fault = (
        0usize..3,
        1u32..=3,
        direction(),
        prop_oneof![Just(0u64), 1u64..=30_000],
    );
    let step = (
        prop_oneof![Just("derived"), Just("per-attempt"), Just("none")],
        1u32..=3,
        prop::collection::vec(fault, 0..=3),
    );
    prop::collection::vec(step, 0..=3).prop_map(|steps| {
        steps
            .into_iter()
            .zip(["warehouse", "mailer", "courier"])
            .map(|((key, attempts, faults), service)| StepSpec {
                service,
                key,
                attempts,
                faults,
            })
            .collect()
    })
}

const KEYS: [&str; 3] = ["K7Q4", "P2W9", "Z8M3"];
const HOUR_MS: u64 = 3_600_000;

fn direction() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("request"), Just("reply")]
}

fn layer(innermost: bool) -> impl Strategy<Value = LayerSpec> {
    let timeout = if innermost {
        (1_000u64..=60_000).prop_map(Some).boxed()
    } else {
        prop::option::of(prop_oneof![1_000u64..=600_000, 500u64..=20_000]).boxed()
    };
    (
        1u32..=4,
        timeout,
        0u64..=10_000,
        100u32..=400,
        prop::option::of(0u64..=30_000),
        prop_oneof![
            Just("none"),
            Just("full"),
            Just("equal"),
            Just("decorrelated")
        ],
        prop_oneof![
            6 => Just(None),
            1 => Just(Some("forward")),
            1 => Just(Some("per-attempt")),
            1 => Just(Some("none")),
        ],
    )
        .prop_map(
            |(attempts, timeout_ms, backoff_ms, multiplier_centi, cap_ms, jitter, key)| LayerSpec {
                attempts,
                timeout_ms,
                backoff_ms,
                multiplier_centi,
                cap_ms,
                jitter,
                key,
            },
        )
}

fn layers() -> impl Strategy<Value = Vec<LayerSpec>> {
    (layer(true), prop::collection::vec(layer(false), 0..=2)).prop_map(|(first, mut rest)| {
        rest.insert(0, first);
        rest
    })
}

fn intent() -> impl Strategy<Value = IntentSpec> {
    (
        0u64..=2 * HOUR_MS,
        1u64..=99_999,
        prop::option::of(0usize..KEYS.len()),
    )
        .prop_map(|(gap_ms, cents, key)| IntentSpec { gap_ms, cents, key })
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        direction().prop_map(Action::Lose),
        (direction(), 0u64..=120_000).prop_map(|(d, by)| Action::Delay(d, by)),
        (direction(), 0u64..=60_000).prop_map(|(d, gap)| Action::Duplicate(d, gap)),
        (
            prop_oneof![Just("receive"), Just("key"), Just("charge"), Just("reply")],
            0u64..=10_000
        )
            .prop_map(|(p, restart)| Action::Crash(p, restart)),
        (0u64..=90_000).prop_map(Action::Slow),
        Just(Action::Decline),
        prop_oneof![Just("receive"), Just("charge")].prop_map(Action::FailAfter),
    ]
}

fn fault() -> impl Strategy<Value = FaultSpec> {
    // Most runs end within their first few attempts, so the early ones get most faults.
    let attempt = prop_oneof![3 => Just(1u32), 2 => 2u32..=3, 1 => 4u32..=6];
    (0usize..3, attempt, action()).prop_map(|(intent, attempt, action)| FaultSpec {
        intent,
        attempt,
        action,
    })
}

fn human() -> impl Strategy<Value = HumanSpec> {
    let after = prop_oneof![1_000u64..=300_000, 1_000u64..=72 * HOUR_MS];
    (after, prop::option::of(0usize..3))
        .prop_map(|(after_ms, intent)| HumanSpec { after_ms, intent })
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        (
            any::<u64>(),
            prop_oneof![Just("per-intent"), Just("per-attempt"), Just("none")],
            (any::<bool>(), any::<bool>()),
            0u64..=500,
            0u64..=2_000,
            // Short windows half the time, so keys expire while the story is still going.
            prop_oneof![1_000u64..=120_000, 1_000u64..=48 * HOUR_MS],
        ),
        layers(),
        prop::collection::vec(intent(), 1..=3),
        prop::collection::vec(fault(), 0..=4),
        (
            prop::option::of(human()),
            prop::collection::vec(any::<usize>(), 0..=2),
        ),
        (
            prop::option::of((
                0u64..24 * 60,
                prop_oneof![Just("refund"), Just("mark-paid")],
            )),
            steps(),
        ),
    )
        .prop_map(
            |(
                (seed, key_strategy, (stamp_body, lookup), latency_ms, processing_ms, retention_ms),
                layers,
                intents,
                faults,
                (human, questions),
                (reconcile, steps),
            )| Spec {
                seed,
                key_strategy,
                stamp_body,
                lookup,
                latency_ms,
                processing_ms,
                retention_ms,
                layers,
                intents,
                faults,
                human,
                questions,
                reconcile,
                steps,
            },
        )
}

// ---------------------------------------------------------------- the TOML written from it

fn clock(ms: u64) -> String {
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / HOUR_MS,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

fn order(i: usize) -> String {
    format!("o{}", i + 1)
}

fn toml(spec: &Spec) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "title = \"generated\"\nseed = {}", spec.seed);
    let _ = writeln!(
        s,
        "\n[checkout]\nkey_strategy = \"{}\"\nstamp_body = {}\nlookup = {}",
        spec.key_strategy, spec.stamp_body, spec.lookup
    );
    for (i, l) in spec.layers.iter().enumerate() {
        let _ = writeln!(
            s,
            "\n[[checkout.layer]]\nname = \"layer {i}\"\nattempts = {}\nbackoff = \"{}ms\"\nmultiplier = {}.{:02}\njitter = \"{}\"",
            l.attempts,
            l.backoff_ms,
            l.multiplier_centi / 100,
            l.multiplier_centi % 100,
            l.jitter
        );
        if let Some(t) = l.timeout_ms {
            let _ = writeln!(s, "timeout = \"{t}ms\"");
        }
        if let Some(c) = l.cap_ms {
            let _ = writeln!(s, "cap = \"{c}ms\"");
        }
        if let Some(k) = l.key {
            let _ = writeln!(s, "key = \"{k}\"");
        }
    }
    let _ = writeln!(
        s,
        "\n[network]\nlatency = \"{}ms\"\n\n[processor]\nprocessing = \"{}ms\"\nretention = \"{}ms\"",
        spec.latency_ms, spec.processing_ms, spec.retention_ms
    );
    // In-progress records that expire before, or long after, a slow attempt ends.
    let _ = writeln!(
        s,
        "in_progress_expiry = \"{}ms\"",
        1_000 + spec.seed % 120_000
    );
    let mut at = 8 * HOUR_MS;
    for (i, intent) in spec.intents.iter().enumerate() {
        at += intent.gap_ms;
        let _ = writeln!(
            s,
            "\n[[intent]]\norder = \"{}\"\namount = \"${}.{:02}\"\nitems = [\"item {i}\"]\nat = \"{}\"",
            order(i),
            intent.cents / 100,
            intent.cents % 100,
            clock(at)
        );
        if let Some(k) = intent.key {
            let _ = writeln!(s, "key = \"{}\"", KEYS[k]);
        }
    }
    // A question where the last order is paid for, so the story must keep its hindsight back
    // until the room has answered.
    let _ = writeln!(
        s,
        "\n[[quiz]]\nat = \"{}\"\nquestion = \"How many charges?\"\nchoices = [\"None\", \"One\", \"Two\"]\nanswer = \"charges\"\nexplanation = \"As the run shows.\"",
        clock(at)
    );
    for f in &spec.faults {
        let _ = writeln!(
            s,
            "\n[[fault]]\nintent = \"{}\"\nattempt = {}",
            order(f.intent % spec.intents.len()),
            f.attempt
        );
        let _ = match f.action {
            Action::Lose(d) => writeln!(s, "lose = \"{d}\""),
            Action::Delay(d, by) => writeln!(s, "delay = \"{d}\"\nby = \"{by}ms\""),
            Action::Duplicate(d, gap) => writeln!(s, "duplicate = \"{d}\"\ngap = \"{gap}ms\""),
            Action::Crash(p, r) => writeln!(s, "crash_after = \"{p}\"\nrestart_after = \"{r}ms\""),
            Action::Slow(p) => writeln!(s, "processing = \"{p}ms\""),
            Action::Decline => writeln!(s, "decline = true"),
            Action::FailAfter(p) => writeln!(s, "fail_after = \"{p}\""),
        };
    }
    if let Some(h) = &spec.human {
        let _ = writeln!(
            s,
            "\n[[human]]\nname = \"operator rerun\"\nafter = \"{}ms\"",
            h.after_ms
        );
        if let Some(i) = h.intent {
            let _ = writeln!(s, "intent = \"{}\"", order(i % spec.intents.len()));
        }
    }
    if let Some((minutes, policy)) = spec.reconcile {
        let _ = writeln!(
            s,
            "\n[reconcile]\nat = \"{:02}:{:02}\"\nunconfirmed = \"{policy}\"",
            minutes / 60,
            minutes % 60
        );
    }
    for step in &spec.steps {
        let _ = writeln!(
            s,
            "\n[[step]]\nservice = \"{}\"\nkey = \"{}\"\nattempts = {}\ntimeout = \"10s\"",
            step.service, step.key, step.attempts
        );
        for &(intent, attempt, direction, by_ms) in &step.faults {
            let _ = writeln!(
                s,
                "[[step.fault]]\nintent = \"{}\"\nattempt = {attempt}",
                order(intent % spec.intents.len())
            );
            if by_ms == 0 {
                let _ = writeln!(s, "lose = \"{direction}\"");
            } else {
                let _ = writeln!(s, "delay = \"{direction}\"\nby = \"{by_ms}ms\"");
            }
        }
    }
    s
}

// ---------------------------------------------------------------- the invariants

fn parse(source: &str) -> Result<Scenario, TestCaseError> {
    scenario::parse("generated.toml", "generated", source)
        .map_err(|e| TestCaseError::fail(format!("a valid scenario was refused:\n{e}")))
}

fn simulate(s: &Scenario, design: Design) -> Result<Trace, TestCaseError> {
    s.simulate(design)
        .map_err(|e| TestCaseError::fail(format!("{design}: {e}")))
}

fn json(trace: &Trace) -> Result<String, TestCaseError> {
    serde_json::to_string(trace).map_err(|e| TestCaseError::fail(format!("JSON: {e}")))
}

/// Under `with-charge`, a key's record is written in the same atomic write as the charge and
/// is looked up before any new work. A request for an intent is taken on as new work only
/// when no live record holds its key: none was ever written, a crash rolled the work back
/// before the write (then nothing was charged either), or the record's window has run out.
/// The same key reused by another intent is refused 422 while that intent's record lives,
/// and a retry during the work gets 409. So an intent's next charge can only come once the
/// record written with its previous charge has expired: at least `retention_ms` later. (A
/// record expires at the very millisecond its window ends, so exactly `retention_ms` apart
/// is possible and allowed.)
fn no_double_charge_within_retention(s: &Scenario, trace: &Trace) -> Result<(), TestCaseError> {
    let retention = s.config.retention_ms;
    let Some(last) = trace.ticks.last() else {
        return Ok(());
    };
    for (i, intent) in s.config.intents.iter().enumerate() {
        let mut times: Vec<u64> = last
            .state
            .ledger()
            .iter()
            .filter(|c| c.intent == i)
            .map(|c| c.at.0)
            .collect();
        times.sort_unstable();
        for pair in times.windows(2) {
            prop_assert!(
                pair[1] - pair[0] >= retention,
                "order {} was charged at {} ms and again at {} ms, {} ms apart, while its key is kept for {} ms",
                intent.order,
                pair[0],
                pair[1],
                pair[1] - pair[0],
                retention
            );
        }
    }
    Ok(())
}

/// The night job gives back no more than the charges an order was not owed, never the same
/// charge twice, and leaves each order it settled at the amount the shop keeps: the price
/// when it believes the order paid (or marks it so), nothing otherwise.
fn reconciled_money(s: &Scenario, trace: &Trace) -> Result<(), TestCaseError> {
    let d = trace.design;
    let Some(job) = s.config.reconcile else {
        prop_assert!(trace.outcome.reconcile.is_none(), "{}", d);
        return Ok(());
    };
    let o = &trace.outcome;
    let r = o
        .reconcile
        .as_ref()
        .ok_or_else(|| TestCaseError::fail("no reconcile outcome"))?;
    let at = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Reconcile)
        .ok_or_else(|| TestCaseError::fail(format!("{d}: the job never ran")))?;
    let seen = &trace.ticks[at].state;
    let last = &trace.ticks[trace.ticks.len() - 1].state;
    let mut refunded: Vec<_> = last.refunds().iter().map(|x| x.charge).collect();
    refunded.sort();
    refunded.dedup();
    prop_assert_eq!(
        refunded.len(),
        last.refunds().len(),
        "{}: a charge refunded twice",
        d
    );
    prop_assert_eq!(r.refunds, last.refunds().len(), "{}", d);
    for (i, intent) in s.config.intents.iter().enumerate() {
        let belief = seen.clients()[i].belief;
        let charged = seen.ledger().iter().filter(|c| c.intent == i).count();
        let refunds = last.refunds().iter().filter(|x| x.intent == i).count();
        let kept =
            charged > 0 && (belief == Belief::Paid || job.unconfirmed == Unconfirmed::MarkPaid);
        let extra = charged - usize::from(kept);
        let pending = matches!(belief, Belief::Waiting | Belief::NotStarted);
        prop_assert!(
            refunds <= if pending { 0 } else { extra },
            "{}: order {} got {} refunds for {} extra charges",
            d,
            intent.order,
            refunds,
            extra
        );
        for x in last.refunds().iter().filter(|x| x.intent == i) {
            prop_assert!(
                seen.ledger()
                    .iter()
                    .any(|c| c.id == x.charge && c.intent == i),
                "{}: a refund of a charge not this order's",
                d
            );
        }
        // Net equals intended, for an order the job settled and nothing charged after it.
        let later = last.ledger().iter().filter(|c| c.intent == i).count() > charged;
        if !pending && !later {
            let net = o.intents[i].reconcile.as_ref().map_or(0, |x| x.net_cents.0);
            let intended = if kept { intent.amount.0 } else { 0 };
            prop_assert_eq!(net, intended, "{}: order {}", d, intent.order);
        }
    }
    Ok(())
}

/// The scenario's text with its extra questions, each at the time of the tick it picks in the
/// story under `with-charge` (one of the first day's, which a clock time can name).
fn with_questions(spec: &Spec) -> Result<String, TestCaseError> {
    let mut source = toml(spec);
    if spec.questions.is_empty() {
        return Ok(source);
    }
    let trace = simulate(&parse(&source)?, Design::WithCharge)?;
    let start = trace.ticks.first().map_or(0, |t| t.at.0);
    let times: Vec<u64> = trace
        .ticks
        .iter()
        .map(|t| t.at.0)
        .filter(|&at| at < start + 24 * HOUR_MS)
        .collect();
    for q in &spec.questions {
        let at = times[q % times.len()];
        let _ = writeln!(
            source,
            "\n[[quiz]]\nat = \"{}\"\nquestion = \"What happens next?\"\nchoices = [\"None\", \"One\", \"Two\"]\nanswer = \"charges\"\nexplanation = \"As the run shows.\"",
            clock(at % (24 * HOUR_MS))
        );
    }
    Ok(source)
}

fn check(spec: &Spec) -> Result<(), TestCaseError> {
    let source = with_questions(spec)?;
    let first = parse(&source)?;
    let second = parse(&source)?;
    prop_assert_eq!(first.config.retention_ms, spec.retention_ms);
    for design in Design::ALL {
        let trace = simulate(&first, design)?;
        let again = simulate(&second, design)?;
        prop_assert!(
            json(&trace)? == json(&again)?,
            "{}: the same file gave two different traces",
            design
        );

        prop_assert!(!trace.ticks.is_empty(), "{}: no ticks", design);
        for pair in trace.ticks.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            prop_assert!(
                a.at <= b.at,
                "{}: the clock goes back from {:?} ({:?}) to {:?} ({:?})",
                design,
                a.at,
                a.fact,
                b.at,
                b.fact
            );
            let (before, after) = (&a.state.ledger(), &b.state.ledger());
            prop_assert!(
                before.len() <= after.len() && after.iter().zip(before.iter()).all(|(x, y)| x == y),
                "{}: the ledger before `{:?}` is not a prefix of the ledger after it",
                design,
                b.fact
            );
        }
        for tick in &trace.ticks {
            let received = tick.state.counters.requests_received as usize;
            prop_assert!(
                tick.state.ledger().len() <= received,
                "{}: {} charges after only {} requests received, at `{:?}`",
                design,
                tick.state.ledger().len(),
                received,
                tick.fact
            );
        }
        let last = trace.ticks.last().map(|t| t.kind);
        prop_assert_eq!(last, Some(TickKind::Statement), "{}", design);
        let final_ledger = trace.ticks.last().map_or(0, |t| t.state.ledger().len());
        prop_assert_eq!(trace.outcome.charges, final_ledger, "{}", design);

        let told = first.tell(&trace);
        common::truth::check(&trace, &told).map_err(TestCaseError::fail)?;
        common::claims::check(&trace, &told).map_err(TestCaseError::fail)?;
        common::claims::counters_add_up(&trace).map_err(TestCaseError::fail)?;
        common::claims::labels_name_one_thing(&trace, &told.labels).map_err(TestCaseError::fail)?;
        let questions: Vec<usize> = first
            .quizzes
            .iter()
            .filter_map(|q| q.target.find(&trace, &told))
            .collect();
        common::claims::no_hindsight_before(&trace, &told, &questions)
            .map_err(TestCaseError::fail)?;
        a_found_payment_ends_its_run(&trace)?;
        common::end_state::check(&trace).map_err(TestCaseError::fail)?;

        if design == Design::WithCharge
            && first.config.key_source() == KeySource::Order
            && first.config.order_has_key()
        {
            no_double_charge_within_retention(&first, &trace)?;
        }
        keys_follow_the_layers(&first, &trace)?;
        reconciled_money(&first, &trace)?;
        downstream_steps(&first, &trace)?;
    }
    // The words hold however the checkout and the steps are keyed, as `K` and `m` key them.
    use idem::sim::config::{KeyMode, KeyStrategy};
    let modes: &[Option<KeyMode>] = if first.config.steps.is_empty() {
        &[None]
    } else {
        &[
            Some(KeyMode::Derived),
            Some(KeyMode::PerAttempt),
            Some(KeyMode::None),
        ]
    };
    for strategy in [
        KeyStrategy::PerIntent,
        KeyStrategy::PerAttempt,
        KeyStrategy::None,
    ] {
        for &mode in modes {
            let keyed = first
                .rekeyed(Some(strategy), mode)
                .map_err(TestCaseError::fail)?;
            for design in Design::ALL {
                words_hold(&keyed, &simulate(&keyed, design)?).map_err(|e| {
                    TestCaseError::fail(format!("keyed {strategy:?}, {mode:?}: {e}"))
                })?;
            }
        }
    }
    Ok(())
}

/// Every claim of the story's words holds of its trace, before a question as of the trace cut
/// off there; the counters add up and no two ticks share a label.
fn words_hold(s: &Scenario, trace: &Trace) -> Result<(), String> {
    let told = s.tell(trace);
    common::claims::check(trace, &told)?;
    common::claims::counters_add_up(trace)?;
    common::claims::labels_name_one_thing(trace, &told.labels)?;
    let questions: Vec<usize> = s
        .quizzes
        .iter()
        .filter_map(|q| q.target.find(trace, &told))
        .collect();
    common::claims::no_hindsight_before(trace, &told, &questions)
}

/// The keys the requests carry are what the layers make of the order's key: the order's key
/// on every request when every layer forwards it, none when a layer drops it, and a fresh key
/// for every request the checkout sends when the innermost layer mints one per attempt.
fn keys_follow_the_layers(s: &Scenario, trace: &idem::sim::Trace) -> Result<(), TestCaseError> {
    let sent: Vec<_> = trace.requests.iter().filter(|r| r.copy == 0).collect();
    for (n, intent) in s.config.intents.iter().enumerate() {
        let keys: Vec<Option<String>> = sent
            .iter()
            .filter(|r| r.intent == n)
            .map(|r| r.key.as_ref().map(|k| k.to_string()))
            .collect();
        match s.config.key_source() {
            KeySource::Order => {
                let want = s.config.order_has_key().then(|| intent.key.to_string());
                prop_assert!(
                    keys.iter().all(|k| *k == want),
                    "{:?} want {:?}",
                    keys,
                    want
                );
            }
            KeySource::Dropped { .. } => {
                prop_assert!(keys.iter().all(Option::is_none), "{:?}", keys);
            }
            KeySource::Minted { layer } => {
                prop_assert_eq!(
                    keys.first().cloned().flatten(),
                    Some(intent.key.to_string())
                );
                if layer == 0 {
                    // Every attempt after the first carries the key minted for its number.
                    for r in sent.iter().filter(|r| r.intent == n && r.attempt > 1) {
                        let want = idem::sim::digest::mint_key(&intent.key, r.attempt);
                        prop_assert_eq!(r.key.as_ref().map(|k| k.to_string()), Some(want));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The shop calls a service only for an order it has read paid, never more than a step's
/// tries, and a key derived from the order and the step lets each service act once per order.
fn downstream_steps(s: &Scenario, trace: &idem::sim::Trace) -> Result<(), TestCaseError> {
    let d = trace.design;
    for tick in &trace.ticks {
        if let idem::sim::Fact::CallSent { call } = tick.fact {
            let intent = trace.calls[call].intent;
            prop_assert_eq!(
                tick.state.clients()[intent].belief,
                idem::sim::Belief::Paid,
                "{}: a call for an order not read paid",
                d
            );
        }
    }
    let last = &trace.ticks.last().expect("ticks").state;
    for (i, intent) in trace.outcome.intents.iter().enumerate() {
        for (n, step) in intent.steps.iter().enumerate() {
            let cfg = &s.config.steps[n];
            prop_assert_eq!(step.effects, last.services[n].effects_for(i), "{}", d);
            prop_assert!(step.calls <= cfg.attempts, "{}: more calls than tries", d);
            prop_assert!(
                step.effects <= step.calls as usize,
                "{}: an effect without a call",
                d
            );
            if cfg.key_mode == idem::sim::config::KeyMode::Derived {
                prop_assert!(step.effects <= 1, "{}: a derived key acted twice", d);
            }
        }
    }
    Ok(())
}

/// A lookup that finds a finished payment ends that run: no request for the intent goes out
/// again until a person reruns it.
fn a_found_payment_ends_its_run(trace: &idem::sim::Trace) -> Result<(), TestCaseError> {
    use idem::sim::fact::{Fact, LookupAnswer};
    for (i, tick) in trace.ticks.iter().enumerate() {
        let Fact::LookedUp { lookup, .. } = tick.fact else {
            continue;
        };
        let l = &trace.lookups[lookup];
        let Some(LookupAnswer::Found { .. }) = l.answer else {
            continue;
        };
        let after = trace.ticks[i + 1..]
            .iter()
            .filter(|t| t.intent == Some(l.intent))
            .take_while(|t| t.kind != TickKind::Rerun)
            .find(|t| matches!(t.fact, idem::sim::Fact::Send { .. }));
        prop_assert!(
            after.is_none(),
            "{}: a request went out after the lookup found the payment: {:?}",
            trace.design,
            after.map(|t| &t.fact)
        );
    }
    Ok(())
}

proptest! {
    // A failing case prints its whole scenario, which is all it takes to reproduce it, so
    // nothing is written into the source tree.
    #![proptest_config(ProptestConfig {
        // PROPTEST_CASES raises it for a long run (the README quotes one).
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_design_keeps_the_invariants_on_random_scenarios(spec in spec()) {
        let source = with_questions(&spec)?;
        check(&spec).map_err(|e| TestCaseError::fail(format!("{e}\n--- the scenario:\n{source}")))?;
    }
}

/// Before a question, the words are told from the ticks up to it alone: a story that differs
/// from another only in a fault whose first effect comes after the question reads, up to the
/// question, word for word the same, whatever that fault does.
fn words_before_a_question_do_not_depend_on_what_follows(
    spec: &Spec,
    pick: usize,
    design: Design,
    action: &Action,
) -> Result<(), TestCaseError> {
    let source = with_questions(spec)?;
    let s = parse(&source)?;
    let trace = simulate(&s, design)?;
    let told = s.tell(&trace);
    let Some(q) = s
        .quizzes
        .iter()
        .filter_map(|quiz| quiz.target.find(&trace, &told))
        .max()
    else {
        return Ok(());
    };
    // Any attempt: one sent before the question may still be worked on after it. The two
    // stories are compared only where their ticks agree up to the question.
    let later: Vec<usize> = trace
        .ticks
        .iter()
        .filter_map(|t| match t.fact {
            idem::sim::fact::Fact::Send { req } => Some(req),
            _ => None,
        })
        .collect();
    if later.is_empty() {
        return Ok(());
    }
    let r = &trace.requests[later[pick % later.len()]];
    let mut variant = source.clone();
    let _ = writeln!(
        variant,
        "\n[[fault]]\nintent = \"{}\"\nattempt = {}",
        order(r.intent),
        r.attempt
    );
    let _ = match action {
        Action::Lose(d) => writeln!(variant, "lose = \"{d}\""),
        Action::Decline => writeln!(variant, "decline = true"),
        Action::FailAfter(p) => writeln!(variant, "fail_after = \"{p}\""),
        Action::Crash(p, restart) => {
            writeln!(
                variant,
                "crash_after = \"{p}\"\nrestart_after = \"{restart}ms\""
            )
        }
        Action::Slow(p) => writeln!(variant, "processing = \"{p}ms\""),
        Action::Delay(d, by) => writeln!(variant, "delay = \"{d}\"\nby = \"{by}ms\""),
        Action::Duplicate(d, gap) => writeln!(variant, "duplicate = \"{d}\"\ngap = \"{gap}ms\""),
    };
    let Ok(other) = scenario::parse("variant.toml", "variant", &variant) else {
        return Ok(());
    };
    let trace2 = simulate(&other, design)?;
    // The two stories must agree up to the question for the test to compare them.
    let prefix = |t: &Trace| -> Result<String, TestCaseError> {
        let facts: Vec<_> = t
            .ticks
            .iter()
            .take(q + 1)
            .map(|t| (&t.fact, t.at, &t.missed))
            .collect();
        serde_json::to_string(&facts).map_err(|e| TestCaseError::fail(format!("JSON: {e}")))
    };
    // The clock's style (`day 1 08:00:00` once a story runs past midnight) is the whole
    // timeline's, chosen for every row alike; the words are compared where it is the same.
    if trace2.ticks.len() <= q || prefix(&trace)? != prefix(&trace2)? || trace.clock != trace2.clock
    {
        return Ok(());
    }
    let told2 = other.tell(&trace2);
    for i in 0..=q {
        prop_assert_eq!(
            &told.narrations[i],
            &told2.narrations[i],
            "{}: tick {} `{}` reads differently before the question at tick {} when attempt #{} of order {} goes otherwise",
            design,
            i,
            &told.labels[i],
            q,
            r.attempt,
            order(r.intent)
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn words_before_a_question_are_told_from_the_ticks_up_to_it(
        spec in spec(),
        pick in any::<usize>(),
        design in 0usize..6,
        action in action(),
    ) {
        let source = with_questions(&spec)?;
        words_before_a_question_do_not_depend_on_what_follows(&spec, pick, Design::ALL[design], &action)
            .map_err(|e| TestCaseError::fail(format!("{e}\n--- the scenario:\n{source}")))?;
    }
}

/// The window rule is tight: a rerun after the window charges again, and the charges are
/// then at least a window apart, which the invariant above allows.
#[test]
fn the_retention_invariant_allows_a_charge_after_the_window() {
    let spec = Spec {
        seed: 1,
        key_strategy: "per-intent",
        stamp_body: false,
        lookup: false,
        latency_ms: 50,
        processing_ms: 200,
        retention_ms: 1_000,
        layers: vec![LayerSpec {
            attempts: 1,
            timeout_ms: Some(30_000),
            backoff_ms: 1_000,
            multiplier_centi: 100,
            cap_ms: None,
            jitter: "none",
            key: None,
        }],
        intents: vec![IntentSpec {
            gap_ms: 0,
            cents: 4860,
            key: Some(0),
        }],
        faults: vec![FaultSpec {
            intent: 0,
            attempt: 1,
            action: Action::Lose("reply"),
        }],
        human: Some(HumanSpec {
            after_ms: 60_000,
            intent: None,
        }),
        questions: Vec::new(),
        reconcile: None,
        steps: Vec::new(),
    };
    let s = scenario::parse("x.toml", "x", &toml(&spec)).expect("it parses");
    let trace = s.simulate(Design::WithCharge).expect("it runs");
    assert_eq!(trace.outcome.charges, 2, "the key expired before the rerun");
    assert!(no_double_charge_within_retention(&s, &trace).is_ok());
    check(&spec).expect("the invariants hold");
}

/// The check is not vacuous: where the key is logged apart from the charge, order 5531 is
/// charged twice 31 seconds apart, well inside its 24-hour window, and the check says so.
#[test]
fn the_retention_invariant_catches_a_double_charge_inside_the_window() {
    let s = idem::scenario::library::default_scenario().expect("order-5531 loads");
    let trace = s.simulate(Design::LogAfterCharge).expect("it runs");
    assert_eq!(trace.outcome.charges, 2);
    assert!(no_double_charge_within_retention(&s, &trace).is_err());
    let trace = s.simulate(Design::WithCharge).expect("it runs");
    assert!(no_double_charge_within_retention(&s, &trace).is_ok());
}

/// The money check is not vacuous: order 5531 charged twice under no-key, reconciled at
/// 02:00, passes; the same trace with the kept charge refunded as well fails it.
#[test]
fn the_reconcile_invariant_catches_a_refund_of_the_kept_charge() {
    let spec = Spec {
        seed: 1,
        key_strategy: "per-intent",
        stamp_body: false,
        lookup: false,
        latency_ms: 50,
        processing_ms: 200,
        retention_ms: 24 * HOUR_MS,
        layers: vec![LayerSpec {
            attempts: 3,
            timeout_ms: Some(30_000),
            backoff_ms: 1_000,
            multiplier_centi: 100,
            cap_ms: None,
            jitter: "none",
            key: None,
        }],
        intents: vec![IntentSpec {
            gap_ms: 0,
            cents: 4860,
            key: Some(0),
        }],
        faults: vec![FaultSpec {
            intent: 0,
            attempt: 1,
            action: Action::Lose("reply"),
        }],
        human: None,
        questions: Vec::new(),
        reconcile: Some((120, "refund")),
        steps: Vec::new(),
    };
    let s = scenario::parse("x.toml", "x", &toml(&spec)).expect("it parses");
    let mut trace = s.simulate(Design::NoKey).expect("it runs");
    assert_eq!(trace.outcome.charges, 2);
    assert!(reconciled_money(&s, &trace).is_ok());
    check(&spec).expect("the invariants hold");
    let last = trace.ticks.last_mut().expect("ticks");
    let mut wrong = last.state.refunds()[0].clone();
    wrong.charge = last.state.ledger()[0].id;
    last.state.push_refund(wrong);
    if let Some(r) = trace.outcome.reconcile.as_mut() {
        r.refunds += 1;
    }
    assert!(reconciled_money(&s, &trace).is_err());
}
