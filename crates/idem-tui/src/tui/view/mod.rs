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

use super::theme::Theme;
use crate::replay::app::{App, Overlay, Screen};
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Rect};

pub use super::keymap::Hits;
pub use super::kit::{MIN_HEIGHT, MIN_WIDTH, fit, popup, too_small};

/// Draws one frame of the replay.
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: &Theme) {
    let _ = drawn(frame, app, theme);
}

/// Draws one frame of the replay and says where it drew what a click can choose. The state
/// is only read: what a click needs comes back with the frame.
pub fn drawn(frame: &mut Frame<'_>, app: &App, theme: &Theme) -> Hits {
    let mut hits = Hits::default();
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(frame, area, "idem", "q quits", theme);
        return hits;
    }
    if app.screens.screen == Screen::Window
        && let Some(w) = &app.screens.window
    {
        crate::tui::window::render(frame, area, w, theme);
        if app.screens.overlay == Overlay::Help {
            help::help(frame, area, app, theme);
        }
        return hits;
    }
    if let Some(p) = &app.talk.present {
        hits = presenter::presenter(frame, app, p, theme);
        if !p.blank {
            overlay(frame, area, app, theme);
        }
        return hits;
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
    hits.designs = header::design_bar(frame, designs, app, theme);
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
            hits.rows = lanes::timeline(frame, timeline, app, theme);
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
    hits
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
        Overlay::Dialog(open) => dialogs::listed(frame, area, app, open, theme),
        Overlay::Traffic(v) => {
            let name = |d: crate::sim::Design| crate::replay::shown::design_name(app, d);
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
