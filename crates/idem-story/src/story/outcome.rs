//! Plain words for an outcome, shared by the command line and the terminal UI (the prose of
//! the story folder). It describes what the engine decided; it decides nothing.

use crate::sim::Belief;
use crate::sim::config::{KeyMode, Service};
use crate::sim::trace::{
    IntentOutcome, IntentReconcile, Outcome, ReconcileOutcome, StepOutcome, StepState, Verdict,
};

/// How an outcome should look: good, bad, or a warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Good,
    Bad,
    Warn,
}

/// A symbol and a short sentence, never colour alone: `✓ Charged once — $48.60`. With several
/// orders it names the order that decided the verdict and gives that order's money alone.
pub fn headline(outcome: &Outcome) -> (Tone, String) {
    let single = outcome.intents.len() == 1;
    let decider = deciding_intent(outcome);
    let (who, whose) = match decider {
        Some(i) if !single => (format!("Order {} ", i.id), i.charged_cents),
        Some(i) => (String::new(), i.charged_cents),
        None => (String::new(), outcome.charged_cents),
    };
    let refunded = outcome
        .intents
        .iter()
        .find(|i| i.reconcile.as_ref().is_some_and(|r| r.refunds > 0));
    match outcome.verdict {
        Verdict::Correct if refunded.is_some() => {
            let subject = match refunded {
                Some(i) if !single => format!("Order {} charged once", i.id),
                _ => "Charged once".to_string(),
            };
            (
                Tone::Warn,
                format!("! {subject}, then refunded — yet the checkout believes it paid"),
            )
        }
        Verdict::Correct if single => (Tone::Good, format!("✓ Charged once — {whose}")),
        Verdict::Correct => (
            Tone::Good,
            format!(
                "✓ Each order charged once — {} in all",
                outcome.charged_cents
            ),
        ),
        Verdict::Duplicate => {
            let times = decider.map_or(0, |i| i.charges);
            let subject = if single {
                "Charged".to_string()
            } else {
                format!("{who}charged")
            };
            (
                Tone::Bad,
                format!("✗ {subject} {} — {whose}", times_word(times)),
            )
        }
        Verdict::Unpaid => {
            let subject = if single {
                "Never charged".to_string()
            } else {
                format!("{who}never charged")
            };
            (
                Tone::Bad,
                format!("✗ {subject} — but the checkout believes it was paid"),
            )
        }
        Verdict::DownstreamDuplicate => {
            let subject = if single {
                "Charged once".to_string()
            } else {
                format!("{who}charged once")
            };
            let repeated = decider
                .and_then(|i| i.steps.iter().max_by_key(|s| s.effects))
                .map_or("a step after it ran twice".to_string(), |s| {
                    effect_phrase(s.service, s.effects)
                });
            (Tone::Bad, format!("✗ {subject} — {whose}, but {repeated}"))
        }
        Verdict::ChargedUnconfirmed => {
            let thinks = match decider.map_or(Belief::Unknown, |i| i.client_view) {
                Belief::Failed => "the checkout believes it failed",
                _ => "the checkout does not know",
            };
            let subject = if single {
                "Charged".to_string()
            } else {
                format!("{who}charged")
            };
            (Tone::Warn, format!("! {subject} {whose} — but {thinks}"))
        }
        Verdict::NotCharged => {
            let subject = if single {
                "Not charged".to_string()
            } else {
                format!("{who}not charged")
            };
            // Nothing moved; what the checkout believes decides how bad that is.
            let knows = match decider.map_or(Belief::Unknown, |i| i.client_view) {
                Belief::Failed => "the checkout knows the payment did not go through",
                _ => "and the checkout does not know whether it was",
            };
            (Tone::Warn, format!("• {subject} — {knows}"))
        }
    }
}

/// The order whose result sets the overall verdict (the first with the worst verdict).
fn deciding_intent(outcome: &Outcome) -> Option<&IntentOutcome> {
    outcome
        .intents
        .iter()
        .find(|i| i.verdict == outcome.verdict)
}

/// One sentence on what the verdict means; with several orders it names the deciding one.
pub fn verdict_meaning(outcome: &Outcome) -> String {
    let meaning = match outcome.verdict {
        Verdict::Duplicate => "one purchase became more than one charge",
        Verdict::Unpaid => "the shop thinks it was paid and no money moved",
        Verdict::DownstreamDuplicate => {
            "paid once, and a step the shop ran after the payment took effect more than once"
        }
        Verdict::ChargedUnconfirmed => "the money moved and the shop does not know it",
        // What the checkout believes of an order with no charge is told from the order itself.
        Verdict::NotCharged => match deciding_intent(outcome).map(|i| i.client_view) {
            Some(Belief::Failed) => "nothing was charged and the shop knows the payment failed",
            _ => "nothing was charged, and the shop does not know whether anything was",
        },
        Verdict::Correct => "every purchase charged exactly once, and the shop knows",
    };
    let decider = deciding_intent(outcome);
    // The verdict is what the payment path did; a reconciliation after it changes what the
    // shop knows, and the sentence says so rather than describe the shop before the job ran.
    let meaning = match (outcome.verdict, decider.and_then(|i| i.reconcile.as_ref())) {
        (Verdict::ChargedUnconfirmed, Some(r)) if r.refunds > 0 => {
            "the money moved without the checkout knowing, until the reconciliation found the charge and refunded it"
        }
        (Verdict::ChargedUnconfirmed, Some(r)) if r.marked_paid => {
            "the money moved without the checkout knowing, until the reconciliation found the charge and marked the order paid"
        }
        (Verdict::Unpaid, Some(r)) if r.alert => {
            "the checkout thinks it was paid and no money moved; the reconciliation raised a shipped-unpaid alert for a person to chase it"
        }
        (Verdict::Duplicate, Some(r)) if r.refunds > 0 => {
            "one purchase became more than one charge; the reconciliation gave money back later"
        }
        _ => meaning,
    };
    // A verdict that every order was paid once still leaves an order whose one charge the job
    // refunded before the checkout read it paid: the shop holds no money for it.
    if outcome.verdict == Verdict::Correct
        && let Some(i) = outcome
            .intents
            .iter()
            .find(|i| i.reconcile.as_ref().is_some_and(|r| r.refunds > 0))
    {
        let refunded = "charged once and believed paid, but the reconciliation refunded that charge: the shop holds no money for an order it believes paid";
        return if outcome.intents.len() > 1 {
            format!("order {}: {refunded}", i.id)
        } else {
            refunded.to_string()
        };
    }
    match decider {
        Some(i) if outcome.intents.len() > 1 && outcome.verdict != Verdict::Correct => {
            format!("order {}: {meaning}", i.id)
        }
        _ => meaning.to_string(),
    }
}

/// `order 5531 (key K7Q4): 1 charge, $48.60; the checkout believes paid`.
pub fn intent_line(i: &IntentOutcome) -> String {
    let key = i
        .key
        .as_deref()
        .map_or("no key".to_string(), |k| format!("key {k}"));
    let line = format!(
        "order {} ({key}): {} charge{}, {}; the checkout believes {}",
        i.id,
        i.charges,
        if i.charges == 1 { "" } else { "s" },
        i.charged_cents,
        i.client_view.label()
    );
    let line = match &i.reconcile {
        Some(r) => format!("{line}; {}", intent_reconcile_line(r)),
        None => line,
    };
    if i.steps.is_empty() {
        return line;
    }
    let steps: Vec<String> = i.steps.iter().map(step_line).collect();
    format!("{line}; then: {}", steps.join("; "))
}

/// `courier booked twice (derived key)`, `confirmation not sent (not run, no key)`.
pub fn step_line(s: &StepOutcome) -> String {
    let words = crate::story::service_words(s.service);
    let (noun, verb) = (words.thing.trim_start_matches("the "), words.done);
    let key = match s.key_mode {
        KeyMode::Derived => "derived key",
        KeyMode::PerAttempt => "a key per try",
        KeyMode::None => "no key",
    };
    let state = match s.state {
        StepState::NotRun => "not run, ",
        StepState::Unknown => "no answer, ",
        StepState::Done => "",
    };
    let times = match s.effects {
        0 => format!("not {verb}"),
        n => format!("{verb} {}", times_word(n)),
    };
    format!("{noun} {times} ({state}{key})")
}

/// What a service did, counted: `the courier was booked twice`, `no e-mail was sent`.
pub fn effect_phrase(service: Service, times: usize) -> String {
    let words = crate::story::service_words(service);
    let (noun, verb) = (words.thing, words.done);
    match times {
        0 => format!("{noun} was not {verb}"),
        1 => format!("{noun} was {verb} once"),
        n => format!("{noun} was {verb} {}", times_word(n)),
    }
}

/// What the reconciliation did over the run, in one line: `1 refund ($48.60), net $48.60;
/// refunded after 11 h 58 m`. The verdict above it stays what the payment path did.
pub fn reconcile_line(r: &ReconcileOutcome) -> String {
    let mut parts = Vec::new();
    if r.refunds > 0 {
        parts.push(format!(
            "{} ({})",
            crate::story::plural(r.refunds, "refund"),
            r.refunded_cents
        ));
    }
    if r.marked_paid > 0 {
        parts.push(format!(
            "{} marked paid",
            crate::story::plural(r.marked_paid, "order")
        ));
    }
    if r.alerts > 0 {
        parts.push(format!(
            "{} \"shipped unpaid\"",
            crate::story::plural(r.alerts, "alert")
        ));
    }
    let did = if parts.is_empty() {
        "nothing to put right".to_string()
    } else {
        parts.join(", ")
    };
    let after = r
        .unowed_ms
        .map(|ms| format!("; refunded after {}", crate::units::lived_ms(ms)))
        .unwrap_or_default();
    format!("{did}, net {}{after}", r.net_cents)
}

/// The reconciliation's part in one order: `1 refund, net $48.60, refunded after 11 h 58 m`.
pub fn intent_reconcile_line(r: &IntentReconcile) -> String {
    let mut text = match r.refunds {
        0 => "no refund".to_string(),
        n => crate::story::plural(n, "refund"),
    };
    text.push_str(&format!(", net {}", r.net_cents));
    if let Some(ms) = r.unowed_ms {
        text.push_str(&format!(", refunded after {}", crate::units::lived_ms(ms)));
    }
    if r.marked_paid {
        text.push_str(", marked paid");
    }
    if r.alert {
        text.push_str(", alert: shipped unpaid");
    }
    text
}

pub use crate::story::times_word;

/// The dedupe store over a run, as an operator watches it: `holds 1 key · hit rate 50.0 % (1 of
/// 2 requests answered from memory)`. The hit rate is dedupe hits (replays and lookups that
/// found a stored answer) over what the processor was asked (requests received and lookups).
pub fn store_line(counters: &crate::sim::state::Counters, held: usize) -> String {
    let asked = counters.requests_received + counters.lookups_answered;
    let what = if counters.lookups_answered == 0 {
        crate::story::plural(asked as usize, "request")
    } else {
        format!(
            "{} and {}",
            crate::story::plural(counters.requests_received as usize, "request"),
            crate::story::plural(counters.lookups_answered as usize, "lookup")
        )
    };
    let rate = if asked == 0 {
        "no requests received".to_string()
    } else {
        format!(
            "hit rate {:.1} % ({} of {what} answered from memory)",
            f64::from(counters.dedupe_hits) * 100.0 / f64::from(asked),
            counters.dedupe_hits,
        )
    };
    format!("holds {} · {rate}", crate::story::plural(held, "entry"))
}

/// `Two`, `Three`, … `Six`: a count that opens a sentence.
pub fn count_word(n: usize) -> String {
    match n {
        2 => "Two".to_string(),
        3 => "Three".to_string(),
        4 => "Four".to_string(),
        5 => "Five".to_string(),
        6 => "Six".to_string(),
        n => n.to_string(),
    }
}
