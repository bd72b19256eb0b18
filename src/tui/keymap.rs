//! From a key press to a message: a pure function, so every key can be tested without a terminal.

use super::app::{App, Overlay};
use super::msg::Msg;
use crate::sim::Design;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// The message a key press stands for in the current state, if any.
pub fn map_key(key: KeyEvent, app: &App) -> Option<Msg> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Msg::Quit);
    }
    if app.overlay == Overlay::Help {
        // The help overlay is read, not used: any of its closing keys close it.
        return match key.code {
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Enter => Some(Msg::ToggleHelp),
            KeyCode::Char('q') => Some(Msg::Quit),
            _ => None,
        };
    }
    Some(match key.code {
        KeyCode::Right | KeyCode::Char('l') => Msg::Next,
        KeyCode::Left | KeyCode::Char('h') => Msg::Prev,
        KeyCode::Home | KeyCode::Char('g') => Msg::First,
        KeyCode::End | KeyCode::Char('G') => Msg::Last,
        KeyCode::Char(' ') => Msg::TogglePlay,
        KeyCode::Char('+') | KeyCode::Char('=') => Msg::Faster,
        KeyCode::Char('-') => Msg::Slower,
        KeyCode::Char('d') => Msg::JumpToDivergence,
        KeyCode::Char('c') => Msg::ToggleCompare,
        KeyCode::Char('?') => Msg::ToggleHelp,
        KeyCode::Esc => Msg::Back,
        KeyCode::Char('q') => Msg::Quit,
        KeyCode::Char(c @ '1'..='5') => Msg::SwitchDesign(Design::from_hotkey(c as u8 - b'0')?),
        _ => return None,
    })
}

/// Every key, as the help overlay and the README list them.
pub const KEYS: &[(&str, &str)] = &[
    ("→ / l", "next tick"),
    ("← / h", "previous tick"),
    ("Home / g", "first tick"),
    ("End / G", "last tick"),
    ("Space", "play / pause"),
    ("+ / -", "faster / slower"),
    ("1 – 5", "switch design, keeping the moment"),
    ("d", "jump to where this design and another first differ"),
    ("c", "compare the three designs side by side"),
    ("?", "this help"),
    ("Esc", "close the overlay or compare; quit from the replay"),
    ("q", "quit"),
];
