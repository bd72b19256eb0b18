//! The pieces the window screen's panes share: a boxed pane, cells cut or padded to their
//! column, the row to scroll to, how a count of attempts is marked, and the delays layer by
//! layer. Below the view and the panes it lays out (`view.rs`, `matrix.rs`, `tables.rs`).

use crate::story::outcome::Tone;
use crate::tui::kit::fit;
use crate::tui::theme::Theme;
use crate::window::{Count, Level, Span as Spell, Stack};
use ratatui::style::Style;
use ratatui::widgets::{Block, Borders};

/// A boxed area with a bold title.
pub(super) fn boxed(title: &str, theme: &Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .title(title.to_owned())
        .title_style(theme.bold())
}

/// `text` cut or padded to exactly `width` columns, on the left or the right.
pub(super) fn pad(text: &str, width: usize, right: bool) -> String {
    let align = if right {
        crate::text::Align::Right
    } else {
        crate::text::Align::Left
    };
    crate::text::pad(&fit(text, width), width, align)
}

/// The first index to show so that `selected` is visible among `count` rows
/// of which `height` fit.
pub(super) fn first_visible(count: usize, height: usize, selected: Option<usize>) -> usize {
    match selected {
        Some(s) if height > 0 && s >= height => (s + 1 - height).min(count.saturating_sub(height)),
        _ => 0,
    }
}

/// The style of a selected row, or none.
pub(super) fn selected_style(selected: bool, theme: &Theme) -> Style {
    if selected {
        theme.current()
    } else {
        Style::new()
    }
}

/// The marker for a number of attempts: "", "!" (amber) or "!!" (red).
pub(super) fn level_marker(level: Level) -> &'static str {
    match level {
        Level::Normal => "",
        Level::Amber => "!",
        Level::Red => "!!",
    }
}

/// The style for a number of attempts.
pub(super) fn level_style(level: Level, theme: &Theme) -> Style {
    match level {
        Level::Normal => Style::new(),
        Level::Amber => theme.tone(Tone::Warn),
        Level::Red => theme.tone(Tone::Bad),
    }
}

/// The level of a count of attempts, however large.
pub(super) fn level_of(count: Count) -> Level {
    Level::of(count.as_u64().unwrap_or(u64::MAX))
}

/// Each layer's attempts joined by `between` ("3×2", "3 × 2"): how the stack multiplies;
/// `None` for a stack with no retrying layer.
pub(super) fn attempt_factors(stack: &Stack, between: &str) -> Option<String> {
    let factors: Vec<String> = stack
        .layers
        .iter()
        .map(|l| l.attempts.to_string())
        .collect();
    (!factors.is_empty()).then(|| factors.join(between))
}

/// The report of the innermost `n` layers alone, for each `n` (until one cannot be worked
/// out): how the stack builds up from the inside out.
pub(super) fn reports_by_layer(stack: &Stack) -> Vec<crate::window::Report> {
    (1..=stack.layers.len())
        .map_while(|n| {
            let inner = Stack {
                layers: stack.layers[..n].to_vec(),
                paths: Vec::new(),
                ..stack.clone()
            };
            inner.report().ok()
        })
        .collect()
}

/// The automatic delay of the innermost `n` layers, for each `n`: how the
/// waiting builds up from the inside out.
pub(super) fn delays_by_layer(stack: &Stack) -> Vec<Spell> {
    reports_by_layer(stack)
        .into_iter()
        .map(|r| r.automatic_delay)
        .collect()
}
