//! The glossary: the words the replay relies on, defined once, and marked in the narration
//! where the story first uses them.

use crate::replay::app::App;
use crate::story::glossary::whole_word;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span, Text};

pub use crate::story::glossary::TERMS;

/// The narration with each glossary term marked where the story first uses it.
pub fn marked<'a>(text: &'a str, app: &App, theme: &Theme) -> Text<'a> {
    let lower = text.to_lowercase();
    // The terms whose first use in this run is at the current tick, with where they start.
    let firsts = app.glossary_first();
    let mut hits: Vec<(usize, usize)> = TERMS
        .iter()
        .zip(firsts.iter())
        .filter(|(_, first)| **first == Some(app.place.tick))
        .filter_map(|((term, _), _)| whole_word(&lower, term).map(|at| (at, term.len())))
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
