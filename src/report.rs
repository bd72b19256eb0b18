//! Plain words for an outcome, shared by the command line and the terminal UI. It describes
//! what the engine decided; it decides nothing.

use crate::sim::trace::{Outcome, Verdict};
use crate::sim::{Belief, Cents};

/// How an outcome should look: good, bad, or a warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Good,
    Bad,
    Warn,
}

/// A symbol and a short sentence, never colour alone: `✓ Charged once — $48.60`.
pub fn headline(outcome: &Outcome) -> (Tone, String) {
    let total = outcome.charged_cents;
    let single = outcome.intents.len() == 1;
    match outcome.verdict {
        Verdict::Correct if single => (Tone::Good, format!("✓ Charged once — {total}")),
        Verdict::Correct => (Tone::Good, format!("✓ Each order charged once — {total}")),
        Verdict::Duplicate => {
            let worst = outcome.intents.iter().max_by_key(|i| i.charges);
            let times = worst.map_or(0, |i| i.charges);
            let who = match (single, worst) {
                (false, Some(i)) => format!("Order {} charged", i.id),
                _ => "Charged".to_string(),
            };
            (
                Tone::Bad,
                format!("✗ {who} {} — {total}", times_word(times)),
            )
        }
        Verdict::Unpaid => (
            Tone::Bad,
            "✗ Never charged — but the checkout believes it was paid".to_string(),
        ),
        Verdict::ChargedUnconfirmed => {
            let belief = outcome
                .intents
                .iter()
                .find(|i| i.verdict == Verdict::ChargedUnconfirmed)
                .map_or(Belief::Unknown, |i| i.client_view);
            let thinks = match belief {
                Belief::Failed => "the checkout believes it failed",
                _ => "the checkout does not know",
            };
            (Tone::Warn, format!("! Charged {total} — but {thinks}"))
        }
        Verdict::NotCharged => {
            let charged = if total == Cents(0) {
                "Not charged".to_string()
            } else {
                format!("An order went unpaid ({total} charged in all)")
            };
            // Nothing moved; what the checkout believes decides how bad that is.
            let unsure = outcome
                .intents
                .iter()
                .any(|i| i.verdict == Verdict::NotCharged && i.client_view != Belief::Failed);
            let knows = if unsure {
                "and the checkout does not know whether it was"
            } else {
                "the checkout knows the payment did not go through"
            };
            (Tone::Warn, format!("• {charged} — {knows}"))
        }
    }
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

/// One sentence on what a verdict means.
pub fn verdict_meaning(v: Verdict) -> &'static str {
    match v {
        Verdict::Duplicate => "one purchase became more than one charge",
        Verdict::Unpaid => "the shop thinks it was paid and no money moved",
        Verdict::ChargedUnconfirmed => "the money moved and the shop does not know it",
        Verdict::NotCharged => "nothing was charged and the shop knows it",
        Verdict::Correct => "every purchase charged exactly once, and the shop knows",
    }
}
