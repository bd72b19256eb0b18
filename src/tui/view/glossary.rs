//! The glossary: the words the replay relies on, defined once, and marked in the narration
//! where the story first uses them.

use crate::tui::app::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span, Text};

/// Each term with what it means here, in the order a newcomer meets them.
pub const TERMS: &[(&str, &str)] = &[
    (
        "intent",
        "what the customer decided to do once: pay for order 5531. However many messages it takes, there is one intent.",
    ),
    (
        "attempt",
        "one message the checkout sends to carry out an intent. Attempts can be lost, delayed, repeated; the intent should not be.",
    ),
    (
        "idempotency key",
        "a name for the intent (K7Q4), minted when the order is created and carried by every attempt, so the processor can tell a repeat from a new purchase.",
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
        "a key whose first attempt is still being worked on. A repeat gets 409 (ask again later) instead of starting a second charge.",
    ),
    (
        "reconciliation",
        "comparing what was charged with what was ordered, after the fact, and refunding what does not match: the net under every guarantee.",
    ),
];

/// The narration with each glossary term marked where the story first uses it.
pub fn marked<'a>(text: &'a str, app: &App, theme: &Theme) -> Text<'a> {
    let trace = app.trace();
    let lower = text.to_lowercase();
    // The terms whose first use in this run is at the current tick, with where they start.
    let mut hits: Vec<(usize, usize)> = TERMS
        .iter()
        .filter_map(|(term, _)| {
            let first = trace
                .ticks
                .iter()
                .position(|t| whole_word(&t.narration.to_lowercase(), term).is_some())?;
            if first != app.tick {
                return None;
            }
            whole_word(&lower, term).map(|at| (at, term.len()))
        })
        .collect();
    hits.sort_unstable();
    if hits.is_empty() || lower.len() != text.len() {
        return Text::raw(text);
    }
    let mark = theme.bold().add_modifier(Modifier::UNDERLINED);
    let mut spans = Vec::new();
    let mut at = 0;
    for (start, len) in hits {
        if start < at || !text.is_char_boundary(start) || !text.is_char_boundary(start + len) {
            continue;
        }
        spans.push(Span::raw(&text[at..start]));
        spans.push(Span::styled(&text[start..start + len], mark));
        at = start + len;
    }
    spans.push(Span::raw(&text[at..]));
    Text::from(Line::from(spans))
}

/// Where `term` first stands as a whole word (so "replay" is not found in "replayed").
fn whole_word(text: &str, term: &str) -> Option<usize> {
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    text.match_indices(term).map(|(i, _)| i).find(|&i| {
        boundary(text[..i].chars().next_back()) && boundary(text[i + term.len()..].chars().next())
    })
}

pub fn glossary(frame: &mut Frame<'_>, area: Rect, theme: &Theme) {
    let mut lines = Vec::new();
    for (term, meaning) in TERMS {
        lines.push(Line::from(vec![
            Span::styled(format!("{term}: "), theme.key()),
            Span::raw(*meaning),
        ]));
    }
    lines.push(Line::styled(
        "Terms are underlined in the narration where the story first uses them. Esc closes.",
        theme.dim(),
    ));
    super::popup(
        frame,
        area,
        (90, TERMS.len() as u16 * 3 + 4),
        "Glossary",
        lines,
        theme,
    );
}
