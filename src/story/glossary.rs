//! The glossary's words and where a story first uses each: data for the glossary screen and
//! for marking terms in the narration.

use crate::story::Told;

/// Each term with what it means here, in the order a newcomer meets them.
pub const TERMS: &[(&str, &str)] = &[
    (
        "intent",
        "what the customer decided to do once: pay for an order. However many messages it takes, there is one intent.",
    ),
    (
        "attempt",
        "one message the checkout sends to carry out an intent. Attempts can be lost, delayed, repeated; the intent should not be.",
    ),
    (
        "idempotency key",
        "a name for the intent, minted when the order is created and carried by every attempt, so the processor can tell a repeat from a new purchase.",
    ),
    (
        "fingerprint",
        "a digest of what a key was first used for. The same key with a different request is a bug, answered 422 rather than guessed at.",
    ),
    (
        "retention window",
        "how long the processor remembers a key. A repeat inside it is recognised; one after it is processed as new.",
    ),
    (
        "replay",
        "answering a repeat from memory: the stored response of the first attempt, sent again, with no second charge.",
    ),
    (
        "in progress",
        "a key the processor has taken on and holds no answer for yet. A repeat gets 409 (ask again later) instead of starting a second charge. Usually the work is still going on; a record kept on disk can outlive work a crash ended, and answers 409 until it expires.",
    ),
    (
        "reconciliation",
        "comparing what was charged with what was ordered, after the fact, and refunding what does not match: the net under every guarantee.",
    ),
];

/// Where `term` first stands as a whole word (so "replay" is not found in "replayed").
pub fn whole_word(text: &str, term: &str) -> Option<usize> {
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    text.match_indices(term).map(|(i, _)| i).find(|&i| {
        boundary(text[..i].chars().next_back()) && boundary(text[i + term.len()..].chars().next())
    })
}

/// For each term, the first tick whose narration uses it, if any.
pub fn first_uses(told: &Told) -> Vec<Option<usize>> {
    // One pass over the story, each narration lowered once, stopping as soon as every term
    // has been found: a long story's terms are all used within its first ticks.
    let mut first: Vec<Option<usize>> = vec![None; TERMS.len()];
    let mut missing = TERMS.len();
    let mut lowered = String::new();
    for (tick, narration) in told.narrations.iter().enumerate() {
        if missing == 0 {
            break;
        }
        lowered.clear();
        lowered.extend(narration.chars().flat_map(char::to_lowercase));
        for ((term, _), at) in TERMS.iter().zip(first.iter_mut()) {
            if at.is_none() && whole_word(&lowered, term).is_some() {
                *at = Some(tick);
                missing -= 1;
            }
        }
    }
    first
}

/// The terms a tick's narration uses for the first time in the story, with their meanings:
/// where `idem run` and the handout define them, as the replay marks them.
pub fn introduced_at(first: &[Option<usize>], tick: usize) -> Vec<(&'static str, &'static str)> {
    TERMS
        .iter()
        .zip(first)
        .filter(|(_, at)| **at == Some(tick))
        .map(|(&(term, meaning), _)| (term, meaning))
        .collect()
}

#[cfg(test)]
mod tests {
    /// A definition is shown beside any story, so it names no story's key or order: under a
    /// story keyed `evt_K7Q4` an example "(K7Q4)" is simply false.
    #[test]
    fn no_definition_names_one_story() {
        for (term, what) in super::TERMS {
            for one_story in ["K7Q4", "5531", "ch_1"] {
                assert!(!what.contains(one_story), "{term}: {what}");
            }
        }
    }
}
