//! Plain words for an outcome, shared by the command line and the terminal UI. It describes
//! what the engine decided; it decides nothing.

use crate::sim::Belief;
use crate::sim::trace::{IntentOutcome, Outcome, Verdict};

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
    match outcome.verdict {
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
        Verdict::ChargedUnconfirmed => "the money moved and the shop does not know it",
        Verdict::NotCharged => "nothing was charged and the shop knows it",
        Verdict::Correct => "every purchase charged exactly once, and the shop knows",
    };
    match deciding_intent(outcome) {
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
    format!(
        "order {} ({key}): {} charge{}, {}; the checkout believes {}",
        i.id,
        i.charges,
        if i.charges == 1 { "" } else { "s" },
        i.charged_cents,
        i.client_view.label()
    )
}

/// `once`, `twice`, `three times`, `27 times`.
pub fn times_word(n: usize) -> String {
    match n {
        0 => "never".to_string(),
        1 => "once".to_string(),
        2 => "twice".to_string(),
        3 => "three times".to_string(),
        n => format!("{n} times"),
    }
}
