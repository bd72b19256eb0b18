//! From a key press to a message: a pure function, so every key can be tested without a terminal.

use super::app::{App, Overlay, Screen};
use super::key::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use super::msg::Msg;
use crate::scenario::fork::WhatIf;
use crate::sim::Design;

/// The message a key press stands for in the current state, if any.
pub fn map_key(key: KeyEvent, app: &App) -> Option<Msg> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Msg::QuitNow);
    }
    match &app.screens.overlay {
        Overlay::Help => {
            return match key.code {
                KeyCode::Esc | KeyCode::Char('?') | KeyCode::Enter => Some(Msg::ToggleHelp),
                KeyCode::Down | KeyCode::Char('j') | KeyCode::PageDown => Some(Msg::Down),
                KeyCode::Up | KeyCode::Char('k') | KeyCode::PageUp => Some(Msg::Up),
                KeyCode::Char('g') => Some(Msg::OpenGlossary),
                KeyCode::Char('q') => Some(Msg::Quit),
                _ => None,
            };
        }
        Overlay::Glossary => {
            return match key.code {
                KeyCode::Esc | KeyCode::Enter | KeyCode::Char('g') => Some(Msg::Back),
                KeyCode::Char('q') => Some(Msg::Quit),
                _ => None,
            };
        }
        Overlay::Explore { .. } => {
            return match key.code {
                KeyCode::Esc | KeyCode::Char('e') => Some(Msg::Back),
                KeyCode::Up | KeyCode::Char('k') => Some(Msg::Up),
                KeyCode::Down | KeyCode::Char('j') => Some(Msg::Down),
                KeyCode::Left | KeyCode::Char('h') => Some(Msg::ScrollStory(-1)),
                KeyCode::Right | KeyCode::Char('l') => Some(Msg::ScrollStory(1)),
                KeyCode::Enter => Some(Msg::Confirm),
                KeyCode::Char('q') => Some(Msg::Quit),
                _ => None,
            };
        }
        Overlay::Traffic(_) => {
            return match key.code {
                KeyCode::Esc | KeyCode::Char('T') => Some(Msg::Back),
                KeyCode::Left | KeyCode::Char('h') | KeyCode::Up | KeyCode::Char('k') => {
                    Some(Msg::Up)
                }
                KeyCode::Right | KeyCode::Char('l') | KeyCode::Down | KeyCode::Char('j') => {
                    Some(Msg::Down)
                }
                KeyCode::Char(c @ '1'..='6') => {
                    Design::from_hotkey(c as u8 - b'0').map(Msg::SwitchDesign)
                }
                KeyCode::Char('q') => Some(Msg::Quit),
                _ => None,
            };
        }
        Overlay::ConfirmQuit => {
            return match key.code {
                KeyCode::Char('y') | KeyCode::Char('q') => Some(Msg::QuitNow),
                KeyCode::Char('n') | KeyCode::Esc => Some(Msg::Back),
                KeyCode::Char('S') => Some(Msg::OpenSave),
                _ => None,
            };
        }
        Overlay::Checklist(_) => {
            return match key.code {
                KeyCode::Esc | KeyCode::Char('k') => Some(Msg::Back),
                KeyCode::Up => Some(Msg::Up),
                KeyCode::Down | KeyCode::Tab => Some(Msg::Down),
                KeyCode::Enter => Some(Msg::Confirm),
                KeyCode::Char('q') => Some(Msg::Quit),
                _ => None,
            };
        }
        // Typing overlays take every printable key as text.
        // With nothing typed yet, j and k move in the picker; once typing starts they are text.
        Overlay::Picker(p)
            if p.typed.is_empty() && matches!(key.code, KeyCode::Char('j' | 'k')) =>
        {
            return Some(if key.code == KeyCode::Char('j') {
                Msg::Down
            } else {
                Msg::Up
            });
        }
        // Answer mode: a number is the room's answer; nothing else acts but Esc.
        Overlay::Answering => {
            return match key.code {
                KeyCode::Char(c @ '1'..='9') => Some(Msg::Answer(usize::from(c as u8 - b'1'))),
                KeyCode::Esc => Some(Msg::Back),
                _ => None,
            };
        }
        // Counting hands: digits type the count of the chosen choice, the arrows choose.
        Overlay::Voting { .. } => {
            return match key.code {
                KeyCode::Char(c @ ('0'..='9' | '+' | '-')) => Some(Msg::Type(c)),
                KeyCode::Backspace => Some(Msg::Backspace),
                KeyCode::Up | KeyCode::Left | KeyCode::BackTab => Some(Msg::Up),
                KeyCode::Down | KeyCode::Right | KeyCode::Tab => Some(Msg::Down),
                KeyCode::Enter => Some(Msg::Confirm),
                KeyCode::Esc => Some(Msg::Back),
                _ => None,
            };
        }
        Overlay::Picker(_) | Overlay::Save(_) | Overlay::Goto { .. } => {
            return match key.code {
                KeyCode::Esc => Some(Msg::Back),
                KeyCode::Enter => Some(Msg::Confirm),
                KeyCode::Up => Some(Msg::Up),
                KeyCode::Down | KeyCode::Tab => Some(Msg::Down),
                KeyCode::Backspace => Some(Msg::Backspace),
                KeyCode::Char(c) => Some(Msg::Type(c)),
                _ => None,
            };
        }
        Overlay::None => {}
    }
    if app.screens.screen == Screen::Window {
        if key.code == KeyCode::Char('?') {
            return Some(Msg::ToggleHelp);
        }
        return super::window::message(key).map(Msg::Window);
    }
    if app.talk.present.is_some() {
        match key.code {
            KeyCode::Char('.') | KeyCode::Char('b') => return Some(Msg::Blank),
            KeyCode::Char('t') => return Some(Msg::ToggleElapsed),
            KeyCode::Char('q') => return Some(Msg::Quit),
            // A blanked screen wakes on any other key without acting on it.
            _ if app.talk.present.is_some_and(|p| p.blank) => return Some(Msg::Blank),
            KeyCode::Char('n') => return Some(Msg::ToggleHidden),
            KeyCode::Char('L') => return Some(Msg::TogglePanels),
            _ => {}
        }
    }
    // At a question: `a` answers, `v` counts hands. Number keys keep switching design, so a
    // stray digit never answers. While the room's answer waits, Enter reveals it and `u` (or
    // Backspace) takes it back.
    if app.question_here().is_some() {
        match key.code {
            KeyCode::Char('a') => return Some(Msg::OpenAnswer),
            KeyCode::Char('v') => return Some(Msg::OpenVotes),
            KeyCode::Enter if app.answer_waiting() => return Some(Msg::Reveal),
            KeyCode::Char('u') | KeyCode::Backspace if app.answer_waiting() => {
                return Some(Msg::TakeBack);
            }
            _ => {}
        }
    }
    let msg = match key.code {
        KeyCode::Right | KeyCode::Char('l') | KeyCode::PageDown => Msg::Next,
        KeyCode::Left | KeyCode::Char('h') | KeyCode::PageUp => Msg::Prev,
        KeyCode::Home | KeyCode::Char('g') => Msg::First,
        KeyCode::End | KeyCode::Char('G') => Msg::Last,
        KeyCode::Char(' ') => Msg::TogglePlay,
        KeyCode::Char('+') | KeyCode::Char('=') => Msg::Faster,
        KeyCode::Char('-') => Msg::Slower,
        KeyCode::Char('d') => Msg::JumpToDivergence,
        KeyCode::Char('c') => Msg::ToggleCompare,
        KeyCode::Char('?') => Msg::ToggleHelp,
        KeyCode::Char('x') => Msg::Fork(WhatIf::DropInFlight),
        KeyCode::Char('!') => Msg::Fork(WhatIf::CrashNext),
        KeyCode::Char('s') => Msg::Fork(WhatIf::SlowAttempt),
        KeyCode::Char('u') => Msg::Unfork,
        KeyCode::Char('r') => Msg::Redo,
        KeyCode::Char(']') => Msg::JumpEvent(true),
        KeyCode::Char('[') => Msg::JumpEvent(false),
        KeyCode::Char(':') => Msg::OpenGoto,
        KeyCode::Char('e') => Msg::OpenExplore,
        KeyCode::Char('T') => Msg::OpenTraffic,
        KeyCode::Char('f') => Msg::ToggleFold,
        KeyCode::Char('m') => Msg::CycleStepKeys,
        KeyCode::Char('K') => Msg::CycleKeyStrategy,
        KeyCode::Char('0') => Msg::AsWritten,
        KeyCode::Down => Msg::ScrollStory(1),
        KeyCode::Up => Msg::ScrollStory(-1),
        KeyCode::Char('S') => Msg::OpenSave,
        KeyCode::Char('o') => Msg::OpenPicker,
        KeyCode::Char('k') => Msg::OpenChecklist,
        KeyCode::Char('w') => Msg::OpenWindow,
        KeyCode::Esc => Msg::Back,
        KeyCode::Char('q') => Msg::Quit,
        KeyCode::Char(c @ '1'..='6') if app.screens.screen == Screen::Compare => {
            Msg::ToggleCompared(Design::from_hotkey(c as u8 - b'0')?)
        }
        KeyCode::Char(c @ '1'..='6') => Msg::SwitchDesign(Design::from_hotkey(c as u8 - b'0')?),
        _ => return None,
    };
    // In front of a room, the keys that open the author's tools do nothing: presenter mode
    // keeps to the keys its help lists.
    if app.talk.present.is_some() && !works_in_present(&msg) {
        return None;
    }
    Some(msg)
}

/// Whether one of the replay's messages has a key in presenter mode.
fn works_in_present(msg: &Msg) -> bool {
    !matches!(
        msg,
        Msg::OpenSave
            | Msg::OpenPicker
            | Msg::OpenWindow
            | Msg::OpenExplore
            | Msg::OpenTraffic
            | Msg::OpenGoto
    )
}

/// The keys of presenter mode: the replay's moves, and the keys for the room. Exactly the keys
/// that act there (a test holds it to that).
pub const PRESENTER_KEYS: &[(&str, &str)] = &[
    (
        "→ ← / l h",
        "next / previous tick (a clicker's PageDown / PageUp too); at the last tick of a session's scenario, the next scenario",
    ),
    ("g / G", "first / last tick (Home / End too)"),
    ("Space", "play / pause"),
    ("+ / -", "faster / slower (= is + without shift)"),
    ("↓ / ↑", "scroll the narration or the question's box"),
    (
        "1 – 6",
        "switch design, keeping the moment (at a question too)",
    ),
    (
        "a",
        "at a question: answer mode, then 1–9 is the room's answer (Esc leaves)",
    ),
    (
        "v",
        "at a question: count hands; digits type each choice's count, ↑↓ choose, Enter reveals",
    ),
    (
        "Enter",
        "reveal the answer the room gave; u (or Backspace) takes it back before that",
    ),
    ("n", "reveal what is hidden from the room, or hide it again"),
    ("d", "jump to where this design and another first differ"),
    ("] / [", "next / previous event that matters"),
    (
        "c",
        "compare designs side by side; there 1–6 choose the columns",
    ),
    ("k", "the checklist; Enter opens the scenario that shows it"),
    ("L", "the ledger, statement and memory beside the timeline"),
    (
        "f",
        "fold runs of repeated attempts into one row, or unfold",
    ),
    (
        "x ! s",
        "what if: the message lost / a crash next / this attempt slow",
    ),
    ("u / r", "undo the last what-if (then K, m) / redo it"),
    (
        "K",
        "key the checkout's attempts another way: one per order, per attempt, none, as written",
    ),
    (
        "m",
        "key the steps after payment another way: derived, per try, none",
    ),
    (
        "0",
        "back to the scenario as written: what-ifs, K and m undone",
    ),
    (". / b", "blank the screen; any key brings it back"),
    ("t", "show or hide the elapsed time"),
    (
        "mouse",
        "wheel steps; click a design's tab, or a row to go back to it",
    ),
    ("?", "this help; then g for the glossary"),
    ("Esc", "close what is open"),
    (
        "q",
        "quit (asks first if the room has answered or what-ifs are not saved)",
    ),
];

/// Every key, as the help overlay and docs/replay.md list them.
pub const KEYS: &[(&str, &str)] = &[
    ("→ ← / l h", "next / previous tick (PageDown / PageUp too)"),
    ("g / G", "first / last tick (Home / End too)"),
    ("Space", "play / pause"),
    (
        "↓ / ↑",
        "scroll the narration when it is longer than its box",
    ),
    ("+ / -", "faster / slower"),
    (
        "1 – 6",
        "switch design, keeping the moment (at a question too)",
    ),
    (
        "a / v",
        "at a question: answer mode (then 1–9), or count hands per choice",
    ),
    (
        "Enter",
        "reveal the room's answer; until then u or Backspace takes it back",
    ),
    ("d", "jump to where this design and another first differ"),
    (
        "] / [",
        "next / previous event that matters: a charge, crash, loss, expiry",
    ),
    (":", "go to a tick number or a time (14:02:38, day 2 02:00)"),
    (
        "c",
        "compare designs side by side; there 1–6 choose the columns",
    ),
    (
        "e",
        "every plan of up to 2 faults, by design; Enter replays one",
    ),
    (
        "T",
        "a day of traffic: this order many times, through every design",
    ),
    ("x", "what if the message on the wire were lost?"),
    ("!", "what if the processor crashed at its next step?"),
    ("s", "what if this attempt were slow at the processor?"),
    ("u / r", "undo the last what-if (then K, m) / redo it"),
    (
        "f",
        "fold runs of repeated attempts into one row, or unfold",
    ),
    (
        "K",
        "key the checkout: per order, per attempt, none, as written",
    ),
    (
        "0",
        "back to the scenario as written: what-ifs, K and m undone",
    ),
    (
        "mouse",
        "wheel steps; click a design's tab, or a row to go back to it",
    ),
    (
        "m",
        "key the steps after payment another way: derived, per try, none",
    ),
    ("S", "save the scenario with its what-ifs as a new file"),
    ("o", "open another scenario"),
    (
        "k",
        "the checklist: five questions to ask before trusting a retry",
    ),
    ("w", "the retry window: what this checkout's layers permit"),
    ("?", "this help; then g for the glossary"),
    ("Esc", "close what is open (q quits)"),
    ("q", "quit (asks first if what-ifs are not saved)"),
];
