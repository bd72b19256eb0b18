//! The view: draws the state, decides nothing. One file per part of the screen.

mod compare;
mod dialogs;
pub mod glossary;
mod header;
mod help;
mod lanes;
mod narration;
mod panels;
mod presenter;

// The drawing primitives, each held to the ratatui code it stands for by the tests beside it.
pub(super) use super::cells::{outline, put, rows, rules, split, text_at, wrap};

use super::app::{App, Overlay, Screen};
use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Direction, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

/// The smallest terminal the replay is laid out for.
pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

pub fn draw(frame: &mut Frame<'_>, app: &App, theme: &Theme) {
    let area = frame.area();
    // What a click can choose is worked out again with every frame.
    app.hits.replace(crate::tui::app::Hits::default());
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(frame, area, "idem", "q quits", theme);
        return;
    }
    if app.screens.screen == Screen::Window
        && let Some(w) = &app.screens.window
    {
        crate::tui::window::render(frame, area, w, theme);
        if app.screens.overlay == Overlay::Help {
            help::help(frame, area, app, theme);
        }
        return;
    }
    if let Some(p) = &app.talk.present {
        presenter::presenter(frame, app, p, theme);
        if !p.blank {
            overlay(frame, area, app, theme);
        }
        return;
    }
    // A question and its explanation need more room than a narration sentence.
    let asking = app.screens.screen == Screen::Replay && app.quiz_here().is_some();
    // The narration box grows to its text, leaving the timeline at least 8 rows.
    // An export has no footer: no keys to press, no command to share.
    let footer_height = if app.export.is_some() { 0 } else { 2 };
    // Made once: the layout counts its lines, then they are drawn.
    let outcome = narration::outcome_lines(app, area.width as usize, theme);
    let outcome_height = outcome.len() as u16;
    // The body keeps at least 8 rows, and room for every line of the card statement.
    let body_least = match app.screens.screen {
        Screen::Replay => panels::least_height(app).max(8),
        _ => 8,
    };
    let room = area
        .height
        .saturating_sub(2 + 1 + body_least + outcome_height + footer_height)
        .max(5);
    // The question box keeps room for its choices and answer even when its text is short.
    let least = if asking { 6 } else { 5 };
    let text = narration::narration_text(app).unwrap_or_default();
    let story_box = narration::StoryBox::new(app, &text, area.width, theme);
    let rows = story_box.rows() as u16;
    let story_height = (rows + 2).clamp(least, room.max(least));
    let [head, designs, body, story, outcome_area, foot] = split::split(
        area,
        Direction::Vertical,
        [
            Constraint::Length(2),
            Constraint::Length(1),
            Constraint::Min(8),
            Constraint::Length(story_height),
            Constraint::Length(outcome_height),
            Constraint::Length(footer_height),
        ],
    );
    header::header(frame, head, app, theme);
    header::design_bar(frame, designs, app, theme);
    match app.screens.screen {
        Screen::Replay | Screen::Window => {
            let side = match area.width {
                w if w >= 150 => 56,
                w if w >= 110 => 46,
                _ => 32,
            };
            let [timeline, panels] = split::split(
                body,
                Direction::Horizontal,
                [Constraint::Min(40), Constraint::Length(side)],
            );
            lanes::timeline(frame, timeline, app, theme);
            panels::panels(frame, panels, app, theme);
        }
        Screen::Compare => compare::compare(frame, body, app, theme),
    }
    narration::narration(frame, story, app, story_box, theme);
    narration::outcome(frame, outcome_area, outcome);
    if app.export.is_none() {
        header::footer(frame, foot, app, theme);
    }
    overlay(frame, area, app, theme);
}

/// What is drawn over the screen, if anything. Answer mode and counting hands are drawn in the
/// question's own box, not over it.
fn overlay(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    match &app.screens.overlay {
        Overlay::None | Overlay::Answering | Overlay::Voting { .. } => {}
        Overlay::Help => help::help(frame, area, app, theme),
        Overlay::Glossary => glossary::glossary(frame, area, theme),
        Overlay::Picker(p) => dialogs::picker(frame, area, p, theme),
        Overlay::Save(s) => dialogs::save(frame, area, s, theme),
        Overlay::Checklist(i) => dialogs::checklist(frame, area, *i, theme),
        Overlay::Goto { typed, error } => {
            dialogs::goto(frame, area, typed, error.as_deref(), theme)
        }
        Overlay::Explore { found, row, col } => {
            dialogs::explore(frame, area, app, found, (*row, *col), theme)
        }
        Overlay::ConfirmQuit => dialogs::confirm_quit(frame, area, app, theme),
        Overlay::Traffic(v) => {
            let name = |d: crate::sim::Design| crate::tui::shown::design_name(app, d);
            let look = crate::tui::traffic::Look {
                selected: v.selected,
                name: &name,
                marker: ratatui::symbols::Marker::Braille,
                keys: Some("←→ or 1–6 another design · Esc back · q quit"),
                note: v.note.as_deref(),
            };
            crate::tui::traffic::draw(frame, area, &v.report, &look, theme)
        }
    }
}

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

/// Draws `app`'s replay on a test screen as a terminal of `real` would get it: at its
/// bounded size. Returns the size drawn at.
pub fn draw_on_bounded_screen(
    app: &crate::tui::App,
    real: crate::tui::backend::Size,
) -> crate::tui::backend::Size {
    let (size, _) = crate::tui::backend::bounded(real);
    let Ok(mut terminal) =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(size.width, size.height));
    let theme = crate::tui::theme::Theme::from_env();
    let _ = terminal.draw(|frame| draw(frame, app, &theme));
    size
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
