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
    text.match_indices(term)
        .map(|(i, _)| i)
        .find(|&i| stands_alone(text, i, i + term.len()))
}

/// For each term, the first tick whose narration uses it, if any.
pub fn first_uses(told: &Told) -> Vec<Option<usize>> {
    first_uses_in(&told.narrations)
}

/// For each term, the first tick up to `tick` whose narration uses it: [`first_uses`] for
/// every term the story uses by then, `None` for the others.
pub fn first_uses_through(told: &Told, tick: usize) -> Vec<Option<usize>> {
    let end = tick.saturating_add(1).min(told.narrations.len());
    first_uses_in(&told.narrations[..end])
}

/// For each term, the first of `narrations` that uses it.
fn first_uses_in(narrations: &[String]) -> Vec<Option<usize>> {
    let mut lowered = String::new();
    // A story's first tick alone, what its first frame marks: each term is looked for on its
    // own, which needs no automaton, so that frame does not wait for one to be built.
    if let [narration] = narrations {
        lower_into(&mut lowered, narration);
        return TERMS
            .iter()
            .map(|(term, _)| whole_word(&lowered, term).map(|_| 0))
            .collect();
    }
    // One pass over the story, stopping as soon as every term has been found: a long story's
    // terms are all used within its first ticks, but one it never uses means reading to the
    // end. Each narration is lowered, as the glossary's marks are (in ASCII a byte at a time),
    // then searched for every term at once by one automaton built once for the whole
    // process; a match of a term already found is passed over. A match that is no whole word
    // may hide one that starts inside it only if a term's end is another's start after a
    // space, and none is.
    let mut first: Vec<Option<usize>> = vec![None; TERMS.len()];
    let mut missing = TERMS.len();
    let Some(finder) = every_term() else {
        return first;
    };
    for (tick, narration) in narrations.iter().enumerate() {
        if missing == 0 {
            break;
        }
        lower_into(&mut lowered, narration);
        let text: &str = &lowered;
        for found in finder.find_iter(text) {
            let term = found.pattern().as_usize();
            if first[term].is_none() && stands_alone(text, found.start(), found.end()) {
                first[term] = Some(tick);
                missing -= 1;
            }
        }
    }
    first
}

/// `narration` lowered, as the glossary's marks lower it, in `lowered`.
fn lower_into(lowered: &mut String, narration: &str) {
    lowered.clear();
    if narration.is_ascii() {
        lowered.push_str(narration);
        lowered.make_ascii_lowercase();
    } else {
        // The standard lowering runs through ASCII a block at a time. It differs from
        // lowering letter by letter only in a final sigma, a letter either way, which no
        // term (all ASCII) can match or touch differently.
        lowered.push_str(&narration.to_lowercase());
    }
}

/// Builds the search for the glossary's terms now, if it is not built yet: a program can do
/// this on a thread beside its loop, rather than have a frame wait for it.
pub fn prepare() {
    every_term();
}

/// One search of lowered text for every term of [`TERMS`], a match's pattern being the term's
/// place there; built the first time it is wanted.
fn every_term() -> Option<&'static aho_corasick::AhoCorasick> {
    static FINDER: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::OnceLock::new();
    FINDER
        .get_or_init(|| {
            // A contiguous automaton: built in a fraction of the time a DFA takes (the first
            // frame waits for it), and as quick over a story's short sentences.
            aho_corasick::AhoCorasick::builder()
                .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
                .build(TERMS.iter().map(|(term, _)| *term))
                .ok()
        })
        .as_ref()
}

/// Whether `text[start..end]` is a whole word: no letter or digit just before or after it.
fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    boundary(text[..start].chars().next_back()) && boundary(text[end..].chars().next())
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

    /// The search lowers a narration as a whole, which lowers a final sigma unlike lowering
    /// letter by letter: no term has a letter beyond ASCII, so none can tell the two apart.
    #[test]
    fn every_term_is_ascii() {
        for (term, _) in super::TERMS {
            assert!(term.is_ascii(), "{term}");
        }
    }

    /// The one-pass search finds each term where lowering every narration and looking for
    /// the term as a whole word does, whatever the narrations' letters and case; so does the
    /// search of one narration, term by term.
    #[test]
    fn every_term_at_once_finds_what_each_term_alone_finds() {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just("Replay".to_string()),
            Just("replayed".to_string()),
            Just("IDEMPOTENCY KEY".to_string()),
            Just("idempotency \u{212A}ey".to_string()),
            Just("in progress".to_string()),
            Just("intent".to_string()),
            Just("xintent".to_string()),
            Just("ATTEMPT".to_string()),
            Just("Retention window".to_string()),
            Just("ÄReplay".to_string()),
            Just("fingerprintent".to_string()),
            Just("idempotency keyintent".to_string()),
            Just(" reconciliation".to_string()),
            Just("ΣReplay Σ".to_string()),
            Just("intentΣ".to_string()),
            "[ a-zé.,İΣ]{0,6}",
        ];
        let narration = proptest::collection::vec(piece, 0..6).prop_map(|p| p.join(""));
        proptest!(|(narrations in proptest::collection::vec(narration, 0..8))| {
            let told = crate::story::Told { narrations: narrations.clone(), ..Default::default() };
            let alone: Vec<Option<usize>> = super::TERMS
                .iter()
                .map(|(term, _)| {
                    narrations.iter().position(|n| {
                        let lower: String = n.chars().flat_map(char::to_lowercase).collect();
                        super::whole_word(&lower, term).is_some()
                    })
                })
                .collect();
            prop_assert_eq!(super::first_uses(&told), alone);
        });
    }

    /// The one-pass search skips past each match, so a whole word starting inside another
    /// match would be missed: no term may start where another, after a space or a mark,
    /// still goes on.
    #[test]
    fn no_term_starts_inside_another_after_a_space() {
        for (a, _) in super::TERMS {
            for (i, c) in a.char_indices() {
                if c.is_alphanumeric() {
                    continue;
                }
                let rest = &a[i + c.len_utf8()..];
                for (b, _) in super::TERMS {
                    for end in 1..=rest.len().min(b.len()) {
                        assert!(
                            !b.starts_with(&rest[..end]) || rest[..end].is_empty(),
                            "{b} starts inside {a}"
                        );
                    }
                }
            }
        }
    }
}
