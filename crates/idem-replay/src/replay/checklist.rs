//! The checklist: five questions to ask of any system before trusting its retries, each tied
//! to the scenario that shows what goes wrong when the answer is bad.

/// One question, why it matters, and the built-in scenario that shows it.
pub struct Check {
    pub question: &'static str,
    pub why: &'static str,
    pub scenario: &'static str,
}

pub const CHECKLIST: &[Check] = &[
    Check {
        question: "Who names the purchase, and when?",
        why: "The key must be created once, when the customer decides, and stored with the order. A key made per request turns every retry into a new purchase.",
        scenario: "per-attempt-key",
    },
    Check {
        question: "Does the key land in the same write as the money?",
        why: "The key and the charge must be written together or not at all. Written apart, a crash between the two leaves a charge nobody remembers, or a memory of a charge that never happened.",
        scenario: "crash-after-key",
    },
    Check {
        question: "How long does the processor remember a key?",
        why: "The retention window must outlast the slowest way a repeat can arrive, people included. A rerun after the key has expired is processed as new.",
        scenario: "monday-rerun",
    },
    Check {
        question: "What does the checkout do when it hears nothing?",
        why: "Silence can mean lost, done or still working. Someone must decide whether to wait, retry or ask, and what the customer is told meanwhile.",
        scenario: "slow-processor",
    },
    Check {
        question: "Where does recognition end, and what catches the rest?",
        why: "Recognition covers one boundary. Past it, and wherever a repeat is mistaken for an error, only reconciliation (charges compared with orders) catches the money that moved twice or without the shop knowing.",
        scenario: "nightly-reconcile",
    },
];
