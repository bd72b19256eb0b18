//! The drawing kit every screen shares, below the views of each: text cut to a width, the
//! notice of a terminal too small, the box an overlay is drawn in.

use super::cells::wrap;
use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

/// The smallest terminal the replay is laid out for.
pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

/// Says the screen is too small for `what`, and how to leave, instead of a broken layout.
pub fn too_small(frame: &mut Frame<'_>, area: Rect, what: &str, leave: &str, theme: &Theme) {
    let lines = vec![
        Line::styled(format!("{what} needs a larger terminal"), theme.bold()),
        Line::raw(format!(
            "Enlarge the terminal to at least {MIN_WIDTH}×{MIN_HEIGHT} (it is {}×{} now).",
            area.width, area.height
        )),
        Line::styled(leave.to_string(), theme.dim()),
    ];
    let height = area.height.min(6);
    let top = area.height.saturating_sub(height) / 2;
    let rect = Rect::new(area.x, area.y + top, area.width, height);
    frame.render_widget(
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true }),
        rect,
    );
}

/// A box drawn over the screen, centred, at most `width`×`height`: what every overlay is.
pub fn popup(
    frame: &mut Frame<'_>,
    area: Rect,
    size: (u16, u16),
    title: &str,
    lines: Vec<Line<'_>>,
    theme: &Theme,
) {
    let width = area.width.min(size.0);
    let height = area.height.min(size.1);
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let block = ratatui::widgets::Block::default()
        .borders(ratatui::widgets::Borders::ALL)
        .title(format!(" {title} "))
        .title_style(theme.title());
    frame.render_widget(ratatui::widgets::Clear, rect);
    let inside = block.inner(rect);
    frame.render_widget(block, rect);
    wrap::draw_wrapped(
        frame.buffer_mut(),
        inside,
        &ratatui::text::Text::from(lines),
        false,
        0,
    );
}

/// Cuts text to `width` columns, marking the cut with `…`.
pub fn fit<S: AsRef<str> + Into<String>>(text: S, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    // Widths are measured on whole strings: a character's width alone can differ from its
    // width in context (an emoji with a variation selector). Text that fits is given back as
    // it is, without a copy when it is owned.
    // No character is wider than its bytes are many, so text with no more bytes than
    // columns fits without being measured.
    if text.as_ref().len() <= width || text.as_ref().width() <= width {
        return text.into();
    }
    let text = text.as_ref();
    if width == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(width).collect();
    while !out.is_empty() && out.width() + 1 > width {
        out.pop();
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use unicode_width::UnicodeWidthStr;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// `fit` takes text with no more bytes than columns as fitting without measuring it:
        /// no text is wider than its bytes are many, whatever its characters (wide, emoji
        /// with selectors and joiners, flags, keycaps, controls).
        #[test]
        fn no_text_is_wider_than_its_bytes(
            text in prop_oneof![
                "\\PC{0,40}",
                "[a1#*注👩\u{200d}💻🇫🇷\u{fe0f}\u{20e3}\u{301}\u{1100}\u{1161}⚠⌚\t\u{7}]{0,20}",
            ],
            width in 0usize..48,
        ) {
            prop_assert!(text.width() <= text.len());
            let cut = super::fit(text.as_str(), width);
            if text.width() <= width {
                prop_assert_eq!(cut, text);
            } else {
                prop_assert!(cut.ends_with('…') || cut.is_empty());
            }
        }
    }
}
