//! From the terminal's events to the replay's messages: a key through the model's key table
//! ([`crate::replay::keymap`]), a click through where the last frame drew things.

use crate::replay::app::{App, Overlay, Screen};
use crate::replay::msg::Msg;
use idem_replay::replay::key;
use ratatui::crossterm::event::{self as term, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

pub use idem_replay::replay::keymap::{KEYS, PRESENTER_KEYS};

/// The model's key for a key event of the terminal's.
pub fn key(event: term::KeyEvent) -> key::KeyEvent {
    use term::KeyCode as C;
    let code = match event.code {
        C::Char(c) => key::KeyCode::Char(c),
        C::Esc => key::KeyCode::Esc,
        C::Enter => key::KeyCode::Enter,
        C::Tab => key::KeyCode::Tab,
        C::BackTab => key::KeyCode::BackTab,
        C::Backspace => key::KeyCode::Backspace,
        C::Delete => key::KeyCode::Delete,
        C::Up => key::KeyCode::Up,
        C::Down => key::KeyCode::Down,
        C::Left => key::KeyCode::Left,
        C::Right => key::KeyCode::Right,
        C::Home => key::KeyCode::Home,
        C::End => key::KeyCode::End,
        C::PageUp => key::KeyCode::PageUp,
        C::PageDown => key::KeyCode::PageDown,
        _ => key::KeyCode::Other,
    };
    let mut modifiers = key::KeyModifiers::NONE;
    for (theirs, ours) in [
        (term::KeyModifiers::SHIFT, key::KeyModifiers::SHIFT),
        (term::KeyModifiers::CONTROL, key::KeyModifiers::CONTROL),
        (term::KeyModifiers::ALT, key::KeyModifiers::ALT),
    ] {
        if event.modifiers.contains(theirs) {
            modifiers = modifiers | ours;
        }
    }
    let kind = match event.kind {
        term::KeyEventKind::Press => key::KeyEventKind::Press,
        term::KeyEventKind::Repeat => key::KeyEventKind::Repeat,
        term::KeyEventKind::Release => key::KeyEventKind::Release,
    };
    key::KeyEvent {
        code,
        modifiers,
        kind,
    }
}

/// The message a key press stands for in the current state, if any: the model's key table
/// read with the terminal's key.
pub fn map_key(event: term::KeyEvent, app: &App) -> Option<Msg> {
    idem_replay::replay::keymap::map_key(key(event), app)
}

/// Where the last frame drew what a click can choose: each frame's draw returns it, the
/// terminal's loop keeps it and the mouse reads it. Geometry only; what a click does is decided in the keymap and `update`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hits {
    /// Each design's tab in the design bar.
    pub designs: Vec<(Rect, crate::sim::Design)>,
    /// Each timeline row, and the tick it shows.
    pub rows: Vec<(Rect, usize)>,
}

impl Hits {
    /// The design whose tab is at a column and row.
    pub fn design_at(&self, column: u16, row: u16) -> Option<crate::sim::Design> {
        let at = Position::new(column, row);
        self.designs
            .iter()
            .find(|(r, _)| r.contains(at))
            .map(|(_, d)| *d)
    }

    /// The tick whose timeline row is at a column and row.
    pub fn tick_at(&self, column: u16, row: u16) -> Option<usize> {
        let at = Position::new(column, row);
        self.rows
            .iter()
            .find(|(r, _)| r.contains(at))
            .map(|(_, t)| *t)
    }
}

/// The message a mouse event stands for: the wheel steps through the story (or scrolls the
/// help), a click on a design's tab switches to it (in compare, adds or removes its column),
/// and a click on a timeline row goes to that tick. Clicks never answer a question.
pub fn map_mouse(mouse: MouseEvent, app: &App, hits: &Hits) -> Option<Msg> {
    let wheel = match mouse.kind {
        MouseEventKind::ScrollDown => Some(true),
        MouseEventKind::ScrollUp => Some(false),
        _ => None,
    };
    match (&app.screens.overlay, wheel) {
        (Overlay::None, Some(down)) => {
            return Some(if down { Msg::Next } else { Msg::Prev });
        }
        (Overlay::Help | Overlay::Explore { .. } | Overlay::Checklist(_), Some(down)) => {
            return Some(if down { Msg::Down } else { Msg::Up });
        }
        _ => {}
    }
    if mouse.kind != MouseEventKind::Down(MouseButton::Left)
        || app.screens.overlay != Overlay::None
        || app.screens.screen == Screen::Window
        || app.talk.present.is_some_and(|p| p.blank)
    {
        return None;
    }
    if let Some(design) = hits.design_at(mouse.column, mouse.row) {
        return Some(if app.screens.screen == Screen::Compare {
            Msg::ToggleCompared(design)
        } else {
            Msg::SwitchDesign(design)
        });
    }
    hits.tick_at(mouse.column, mouse.row).map(Msg::GoToTick)
}
