//! From a key press to a message, through one key table: every key of the replay is a row of
//! [`TABLE`] (the layer it acts in, its chords, what it asks for, and its line of help), and
//! both the key mapping ([`map_key`]) and every help page of the replay ([`KEYS`],
//! [`PRESENTER_KEYS`]) are read from it. A key acts in presenter mode exactly when a row of
//! the presenter's page binds it. A pure function of the state and the key, so every key can
//! be tested without a terminal.

use super::app::{App, Overlay, Screen};
use super::dialog::DialogKey;
use super::key::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use super::msg::Msg;
use crate::scenario::fork::WhatIf;
use crate::sim::Design;

/// Where a key is looked up: a dialog, a screen, or a mode of the replay. The state decides
/// which layers are live ([`layers`]), in order; the first live layer that binds a key says
/// what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// The help overlay.
    Help,
    Glossary,
    /// The fault-space matrix (`e`).
    Explore,
    /// A day of traffic (`T`).
    Traffic,
    ConfirmQuit,
    Checklist,
    /// The picker while nothing is typed: j and k move, as in a list.
    PickerBrowse,
    /// A line being typed: the picker's path, the save prompt, the go-to line.
    Typing,
    /// A question's answer mode: a number is the room's answer.
    Answering,
    /// Counting hands.
    Voting,
    /// The retry window's screen (its own keys are [`super::window::message`]'s).
    Window,
    /// A dialog of `replay/dialog/`: its keys go to it.
    Dialog,
    /// Presenter mode with the screen blanked: any key brings it back.
    Blank,
    /// At a question whose answer waits for the reveal.
    Waiting,
    /// At a question.
    Question,
    /// Presenter mode.
    Presenter,
    /// The replay.
    Replay,
}

/// The keys a row answers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chord {
    /// This key.
    Key(KeyCode),
    /// Any character from the first to the last, inclusive.
    Chars(char, char),
    /// Any character.
    AnyChar,
    /// Any key at all.
    AnyKey,
}

impl Chord {
    fn matches(self, code: KeyCode) -> bool {
        match (self, code) {
            (Chord::Key(k), code) => k == code,
            (Chord::Chars(first, last), KeyCode::Char(c)) => (first..=last).contains(&c),
            (Chord::AnyChar, KeyCode::Char(_)) => true,
            (Chord::AnyKey, _) => true,
            _ => false,
        }
    }
}

/// What a key asks for.
#[derive(Clone, Copy, Debug)]
pub enum Intent {
    /// This message (made when the key is pressed: a table of messages would be a table of
    /// values with destructors, which a constant cannot hold).
    Send(fn() -> Msg),
    /// The design whose hotkey was pressed: switch to it, or in compare add or remove its
    /// column.
    Design,
    /// The design whose hotkey was pressed: switch to it.
    SwitchDesign,
    /// The room's answer: the digit pressed, counted from 1.
    Answer,
    /// The character typed.
    Type,
    /// Open this dialog, made from the state.
    Open(fn(&App) -> Box<super::dialogs::ReplayDialog>),
}

/// Which help page a row's line is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    /// The replay's help (`?`), and docs/replay.md's table.
    Replay,
    /// Presenter mode's help.
    Presenter,
}

/// One key binding: in `layer`, `chord` asks for `intent`.
#[derive(Clone, Copy, Debug)]
pub struct Bind {
    pub layer: Layer,
    pub chord: Chord,
    pub intent: Intent,
}

/// A row of the key table: its bindings, and the line of help that names them on a page
/// (`None`: a dialog's keys, listed in its own footer).
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub page: Option<Page>,
    pub keys: &'static str,
    pub help: &'static str,
    pub binds: &'static [Bind],
}

const fn bind(layer: Layer, code: KeyCode, msg: fn() -> Msg) -> Bind {
    Bind {
        layer,
        chord: Chord::Key(code),
        intent: Intent::Send(msg),
    }
}

const fn ch(layer: Layer, c: char, msg: fn() -> Msg) -> Bind {
    bind(layer, KeyCode::Char(c), msg)
}

const fn row(page: Page, keys: &'static str, help: &'static str, binds: &'static [Bind]) -> Row {
    Row {
        page: Some(page),
        keys,
        help,
        binds,
    }
}

const fn dialog(binds: &'static [Bind]) -> Row {
    Row {
        page: None,
        keys: "",
        help: "",
        binds,
    }
}

use KeyCode as C;
use Layer as L;
use Msg as M;

/// Stepping, in either page.
const fn steps(layer: Layer) -> [Bind; 6] {
    [
        bind(layer, C::Right, || M::Next),
        ch(layer, 'l', || M::Next),
        bind(layer, C::PageDown, || M::Next),
        bind(layer, C::Left, || M::Prev),
        ch(layer, 'h', || M::Prev),
        bind(layer, C::PageUp, || M::Prev),
    ]
}

const REPLAY_STEPS: [Bind; 6] = steps(L::Replay);
const PRESENTER_STEPS: [Bind; 6] = steps(L::Presenter);

/// The replay's keys: each row once, in the order its help page lists them.
pub const TABLE: &[Row] = &[
    // ------------------------------------------------------------------ the replay's page
    row(
        Page::Replay,
        "→ ← / l h",
        "next / previous tick (PageDown / PageUp too)",
        &REPLAY_STEPS,
    ),
    row(
        Page::Replay,
        "g / G",
        "first / last tick (Home / End too)",
        &[
            bind(L::Replay, C::Home, || M::First),
            ch(L::Replay, 'g', || M::First),
            bind(L::Replay, C::End, || M::Last),
            ch(L::Replay, 'G', || M::Last),
        ],
    ),
    row(
        Page::Replay,
        "Space",
        "play / pause",
        &[ch(L::Replay, ' ', || M::TogglePlay)],
    ),
    row(
        Page::Replay,
        "↓ / ↑",
        "scroll the narration when it is longer than its box",
        &[
            bind(L::Replay, C::Down, || M::ScrollStory(1)),
            bind(L::Replay, C::Up, || M::ScrollStory(-1)),
        ],
    ),
    row(
        Page::Replay,
        "+ / -",
        "faster / slower",
        &[
            ch(L::Replay, '+', || M::Faster),
            ch(L::Replay, '=', || M::Faster),
            ch(L::Replay, '-', || M::Slower),
        ],
    ),
    row(
        Page::Replay,
        "1 – 6",
        "switch design, keeping the moment (at a question too)",
        &[Bind {
            layer: L::Replay,
            chord: Chord::Chars('1', '6'),
            intent: Intent::Design,
        }],
    ),
    row(
        Page::Replay,
        "a / v",
        "at a question: answer mode (then 1–9), or count hands per choice",
        &[
            ch(L::Question, 'a', || M::OpenAnswer),
            ch(L::Question, 'v', || M::OpenVotes),
        ],
    ),
    row(
        Page::Replay,
        "Enter",
        "reveal the room's answer; until then u or Backspace takes it back",
        &[
            bind(L::Waiting, C::Enter, || M::Reveal),
            ch(L::Waiting, 'u', || M::TakeBack),
            bind(L::Waiting, C::Backspace, || M::TakeBack),
        ],
    ),
    row(
        Page::Replay,
        "d",
        "jump to where this design and another first differ",
        &[ch(L::Replay, 'd', || M::JumpToDivergence)],
    ),
    row(
        Page::Replay,
        "] / [",
        "next / previous event that matters: a charge, crash, loss, expiry",
        &[
            ch(L::Replay, ']', || M::JumpEvent(true)),
            ch(L::Replay, '[', || M::JumpEvent(false)),
        ],
    ),
    row(
        Page::Replay,
        ":",
        "go to a tick number or a time (14:02:38, day 2 02:00)",
        &[ch(L::Replay, ':', || M::OpenGoto)],
    ),
    row(
        Page::Replay,
        "c",
        "compare designs side by side; there 1–6 choose the columns",
        &[ch(L::Replay, 'c', || M::ToggleCompare)],
    ),
    row(
        Page::Replay,
        "e",
        "every plan of up to 2 faults, by design; Enter replays one",
        &[ch(L::Replay, 'e', || M::OpenExplore)],
    ),
    row(
        Page::Replay,
        "T",
        "a day of traffic: this order many times, through every design",
        &[ch(L::Replay, 'T', || M::OpenTraffic)],
    ),
    row(
        Page::Replay,
        "x",
        "what if the message on the wire were lost?",
        &[ch(L::Replay, 'x', || M::Fork(WhatIf::DropInFlight))],
    ),
    row(
        Page::Replay,
        "!",
        "what if the processor crashed at its next step?",
        &[ch(L::Replay, '!', || M::Fork(WhatIf::CrashNext))],
    ),
    row(
        Page::Replay,
        "s",
        "what if this attempt were slow at the processor?",
        &[ch(L::Replay, 's', || M::Fork(WhatIf::SlowAttempt))],
    ),
    row(
        Page::Replay,
        "u / r",
        "undo the last what-if (then K, m) / redo it",
        &[
            ch(L::Replay, 'u', || M::Unfork),
            ch(L::Replay, 'r', || M::Redo),
        ],
    ),
    row(
        Page::Replay,
        "f",
        "fold runs of repeated attempts into one row, or unfold",
        &[ch(L::Replay, 'f', || M::ToggleFold)],
    ),
    row(
        Page::Replay,
        "K",
        "key the checkout: per order, per attempt, none, as written",
        &[ch(L::Replay, 'K', || M::CycleKeyStrategy)],
    ),
    row(
        Page::Replay,
        "0",
        "back to the scenario as written: what-ifs, K and m undone",
        &[ch(L::Replay, '0', || M::AsWritten)],
    ),
    row(
        Page::Replay,
        "mouse",
        "wheel steps; click a design's tab, or a row to go back to it",
        &[],
    ),
    row(
        Page::Replay,
        "m",
        "key the steps after payment another way: derived, per try, none",
        &[ch(L::Replay, 'm', || M::CycleStepKeys)],
    ),
    row(
        Page::Replay,
        "S",
        "save the scenario with its what-ifs as a new file",
        &[ch(L::Replay, 'S', || M::OpenSave)],
    ),
    row(
        Page::Replay,
        "o",
        "open another scenario",
        &[ch(L::Replay, 'o', || M::OpenPicker)],
    ),
    row(
        Page::Replay,
        "k",
        "the checklist: five questions to ask before trusting a retry",
        &[ch(L::Replay, 'k', || M::OpenChecklist)],
    ),
    row(
        Page::Replay,
        "w",
        "the retry window: what this checkout's layers permit",
        &[ch(L::Replay, 'w', || M::OpenWindow)],
    ),
    row(
        Page::Replay,
        "Q",
        "the story's questions for the room; Enter goes to one",
        &[Bind {
            layer: L::Replay,
            chord: Chord::Key(C::Char('Q')),
            intent: Intent::Open(super::dialogs::questions::open),
        }],
    ),
    row(
        Page::Replay,
        "?",
        "this help; then g for the glossary",
        &[ch(L::Replay, '?', || M::ToggleHelp)],
    ),
    row(
        Page::Replay,
        "Esc",
        "close what is open (q quits)",
        &[bind(L::Replay, C::Esc, || M::Back)],
    ),
    row(
        Page::Replay,
        "q",
        "quit (asks first if what-ifs are not saved)",
        &[ch(L::Replay, 'q', || M::Quit)],
    ),
    // ---------------------------------------------------------------- presenter mode's page
    row(
        Page::Presenter,
        "→ ← / l h",
        "next / previous tick (a clicker's PageDown / PageUp too); at the last tick of a session's scenario, the next scenario",
        &PRESENTER_STEPS,
    ),
    row(
        Page::Presenter,
        "g / G",
        "first / last tick (Home / End too)",
        &[
            bind(L::Presenter, C::Home, || M::First),
            ch(L::Presenter, 'g', || M::First),
            bind(L::Presenter, C::End, || M::Last),
            ch(L::Presenter, 'G', || M::Last),
        ],
    ),
    row(
        Page::Presenter,
        "Space",
        "play / pause",
        &[ch(L::Presenter, ' ', || M::TogglePlay)],
    ),
    row(
        Page::Presenter,
        "+ / -",
        "faster / slower (= is + without shift)",
        &[
            ch(L::Presenter, '+', || M::Faster),
            ch(L::Presenter, '=', || M::Faster),
            ch(L::Presenter, '-', || M::Slower),
        ],
    ),
    row(
        Page::Presenter,
        "↓ / ↑",
        "scroll the narration or the question's box",
        &[
            bind(L::Presenter, C::Down, || M::ScrollStory(1)),
            bind(L::Presenter, C::Up, || M::ScrollStory(-1)),
        ],
    ),
    row(
        Page::Presenter,
        "1 – 6",
        "switch design, keeping the moment (at a question too)",
        &[Bind {
            layer: L::Presenter,
            chord: Chord::Chars('1', '6'),
            intent: Intent::Design,
        }],
    ),
    row(
        Page::Presenter,
        "a",
        "at a question: answer mode, then 1–9 is the room's answer (Esc leaves)",
        &[ch(L::Question, 'a', || M::OpenAnswer)],
    ),
    row(
        Page::Presenter,
        "v",
        "at a question: count hands; digits type each choice's count, ↑↓ choose, Enter reveals",
        &[ch(L::Question, 'v', || M::OpenVotes)],
    ),
    row(
        Page::Presenter,
        "Enter",
        "reveal the answer the room gave; u (or Backspace) takes it back before that",
        &[
            bind(L::Waiting, C::Enter, || M::Reveal),
            ch(L::Waiting, 'u', || M::TakeBack),
            bind(L::Waiting, C::Backspace, || M::TakeBack),
        ],
    ),
    row(
        Page::Presenter,
        "n",
        "reveal what is hidden from the room, or hide it again",
        &[ch(L::Presenter, 'n', || M::ToggleHidden)],
    ),
    row(
        Page::Presenter,
        "d",
        "jump to where this design and another first differ",
        &[ch(L::Presenter, 'd', || M::JumpToDivergence)],
    ),
    row(
        Page::Presenter,
        "] / [",
        "next / previous event that matters",
        &[
            ch(L::Presenter, ']', || M::JumpEvent(true)),
            ch(L::Presenter, '[', || M::JumpEvent(false)),
        ],
    ),
    row(
        Page::Presenter,
        "c",
        "compare designs side by side; there 1–6 choose the columns",
        &[ch(L::Presenter, 'c', || M::ToggleCompare)],
    ),
    row(
        Page::Presenter,
        "k",
        "the checklist; Enter opens the scenario that shows it",
        &[ch(L::Presenter, 'k', || M::OpenChecklist)],
    ),
    row(
        Page::Presenter,
        "L",
        "the ledger, statement and memory beside the timeline",
        &[ch(L::Presenter, 'L', || M::TogglePanels)],
    ),
    row(
        Page::Presenter,
        "f",
        "fold runs of repeated attempts into one row, or unfold",
        &[ch(L::Presenter, 'f', || M::ToggleFold)],
    ),
    row(
        Page::Presenter,
        "x ! s",
        "what if: the message lost / a crash next / this attempt slow",
        &[
            ch(L::Presenter, 'x', || M::Fork(WhatIf::DropInFlight)),
            ch(L::Presenter, '!', || M::Fork(WhatIf::CrashNext)),
            ch(L::Presenter, 's', || M::Fork(WhatIf::SlowAttempt)),
        ],
    ),
    row(
        Page::Presenter,
        "u / r",
        "undo the last what-if (then K, m) / redo it",
        &[
            ch(L::Presenter, 'u', || M::Unfork),
            ch(L::Presenter, 'r', || M::Redo),
        ],
    ),
    row(
        Page::Presenter,
        "K",
        "key the checkout's attempts another way: one per order, per attempt, none, as written",
        &[ch(L::Presenter, 'K', || M::CycleKeyStrategy)],
    ),
    row(
        Page::Presenter,
        "m",
        "key the steps after payment another way: derived, per try, none",
        &[ch(L::Presenter, 'm', || M::CycleStepKeys)],
    ),
    row(
        Page::Presenter,
        "0",
        "back to the scenario as written: what-ifs, K and m undone",
        &[ch(L::Presenter, '0', || M::AsWritten)],
    ),
    row(
        Page::Presenter,
        ". / b",
        "blank the screen; any key brings it back",
        &[
            ch(L::Presenter, '.', || M::Blank),
            ch(L::Presenter, 'b', || M::Blank),
        ],
    ),
    row(
        Page::Presenter,
        "t",
        "show or hide the elapsed time",
        &[ch(L::Presenter, 't', || M::ToggleElapsed)],
    ),
    row(
        Page::Presenter,
        "mouse",
        "wheel steps; click a design's tab, or a row to go back to it",
        &[],
    ),
    row(
        Page::Presenter,
        "?",
        "this help; then g for the glossary",
        &[ch(L::Presenter, '?', || M::ToggleHelp)],
    ),
    row(
        Page::Presenter,
        "Esc",
        "close what is open",
        &[bind(L::Presenter, C::Esc, || M::Back)],
    ),
    row(
        Page::Presenter,
        "q",
        "quit (asks first if the room has answered or what-ifs are not saved)",
        &[ch(L::Presenter, 'q', || M::Quit)],
    ),
    // ------------------------------------------- the dialogs, each listing its keys itself
    // A blanked screen wakes on any key without acting on it, but these.
    dialog(&[
        ch(L::Blank, '.', || M::Blank),
        ch(L::Blank, 'b', || M::Blank),
        ch(L::Blank, 't', || M::ToggleElapsed),
        ch(L::Blank, 'q', || M::Quit),
        Bind {
            layer: L::Blank,
            chord: Chord::AnyKey,
            intent: Intent::Send(|| M::Blank),
        },
    ]),
    dialog(&[
        bind(L::Help, C::Esc, || M::ToggleHelp),
        ch(L::Help, '?', || M::ToggleHelp),
        bind(L::Help, C::Enter, || M::ToggleHelp),
        bind(L::Help, C::Down, || M::Down),
        ch(L::Help, 'j', || M::Down),
        bind(L::Help, C::PageDown, || M::Down),
        bind(L::Help, C::Up, || M::Up),
        ch(L::Help, 'k', || M::Up),
        bind(L::Help, C::PageUp, || M::Up),
        ch(L::Help, 'g', || M::OpenGlossary),
        ch(L::Help, 'q', || M::Quit),
    ]),
    dialog(&[
        bind(L::Glossary, C::Esc, || M::Back),
        bind(L::Glossary, C::Enter, || M::Back),
        ch(L::Glossary, 'g', || M::Back),
        ch(L::Glossary, 'q', || M::Quit),
    ]),
    dialog(&[
        bind(L::Explore, C::Esc, || M::Back),
        ch(L::Explore, 'e', || M::Back),
        bind(L::Explore, C::Up, || M::Up),
        ch(L::Explore, 'k', || M::Up),
        bind(L::Explore, C::Down, || M::Down),
        ch(L::Explore, 'j', || M::Down),
        bind(L::Explore, C::Left, || M::ScrollStory(-1)),
        ch(L::Explore, 'h', || M::ScrollStory(-1)),
        bind(L::Explore, C::Right, || M::ScrollStory(1)),
        ch(L::Explore, 'l', || M::ScrollStory(1)),
        bind(L::Explore, C::Enter, || M::Confirm),
        ch(L::Explore, 'q', || M::Quit),
    ]),
    dialog(&[
        bind(L::Traffic, C::Esc, || M::Back),
        ch(L::Traffic, 'T', || M::Back),
        bind(L::Traffic, C::Left, || M::Up),
        ch(L::Traffic, 'h', || M::Up),
        bind(L::Traffic, C::Up, || M::Up),
        ch(L::Traffic, 'k', || M::Up),
        bind(L::Traffic, C::Right, || M::Down),
        ch(L::Traffic, 'l', || M::Down),
        bind(L::Traffic, C::Down, || M::Down),
        ch(L::Traffic, 'j', || M::Down),
        Bind {
            layer: L::Traffic,
            chord: Chord::Chars('1', '6'),
            intent: Intent::SwitchDesign,
        },
        ch(L::Traffic, 'q', || M::Quit),
    ]),
    dialog(&[
        ch(L::ConfirmQuit, 'y', || M::QuitNow),
        ch(L::ConfirmQuit, 'q', || M::QuitNow),
        ch(L::ConfirmQuit, 'n', || M::Back),
        bind(L::ConfirmQuit, C::Esc, || M::Back),
        ch(L::ConfirmQuit, 'S', || M::OpenSave),
    ]),
    dialog(&[
        bind(L::Checklist, C::Esc, || M::Back),
        ch(L::Checklist, 'k', || M::Back),
        bind(L::Checklist, C::Up, || M::Up),
        bind(L::Checklist, C::Down, || M::Down),
        bind(L::Checklist, C::Tab, || M::Down),
        bind(L::Checklist, C::Enter, || M::Confirm),
        ch(L::Checklist, 'q', || M::Quit),
    ]),
    // With nothing typed yet, j and k move in the picker; once typing starts they are text.
    dialog(&[
        ch(L::PickerBrowse, 'j', || M::Down),
        ch(L::PickerBrowse, 'k', || M::Up),
    ]),
    // Answer mode: a number is the room's answer; nothing else acts but Esc.
    dialog(&[
        Bind {
            layer: L::Answering,
            chord: Chord::Chars('1', '9'),
            intent: Intent::Answer,
        },
        bind(L::Answering, C::Esc, || M::Back),
    ]),
    // Counting hands: digits type the count of the chosen choice, the arrows choose.
    dialog(&[
        Bind {
            layer: L::Voting,
            chord: Chord::Chars('0', '9'),
            intent: Intent::Type,
        },
        Bind {
            layer: L::Voting,
            chord: Chord::Key(C::Char('+')),
            intent: Intent::Type,
        },
        Bind {
            layer: L::Voting,
            chord: Chord::Key(C::Char('-')),
            intent: Intent::Type,
        },
        bind(L::Voting, C::Backspace, || M::Backspace),
        bind(L::Voting, C::Up, || M::Up),
        bind(L::Voting, C::Left, || M::Up),
        bind(L::Voting, C::BackTab, || M::Up),
        bind(L::Voting, C::Down, || M::Down),
        bind(L::Voting, C::Right, || M::Down),
        bind(L::Voting, C::Tab, || M::Down),
        bind(L::Voting, C::Enter, || M::Confirm),
        bind(L::Voting, C::Esc, || M::Back),
    ]),
    // Typing overlays take every printable key as text.
    dialog(&[
        bind(L::Typing, C::Esc, || M::Back),
        bind(L::Typing, C::Enter, || M::Confirm),
        bind(L::Typing, C::Up, || M::Up),
        bind(L::Typing, C::Down, || M::Down),
        bind(L::Typing, C::Tab, || M::Down),
        bind(L::Typing, C::Backspace, || M::Backspace),
        Bind {
            layer: L::Typing,
            chord: Chord::AnyChar,
            intent: Intent::Type,
        },
    ]),
    dialog(&[ch(L::Window, '?', || M::ToggleHelp)]),
    // Every dialog of `replay/dialog/` answers these, each as it says in its footer.
    dialog(&[
        bind(L::Dialog, C::Up, || M::InDialog(DialogKey::Up)),
        ch(L::Dialog, 'k', || M::InDialog(DialogKey::Up)),
        bind(L::Dialog, C::Down, || M::InDialog(DialogKey::Down)),
        ch(L::Dialog, 'j', || M::InDialog(DialogKey::Down)),
        bind(L::Dialog, C::Tab, || M::InDialog(DialogKey::Down)),
        bind(L::Dialog, C::Enter, || M::InDialog(DialogKey::Choose)),
        bind(L::Dialog, C::Esc, || M::Back),
        ch(L::Dialog, 'q', || M::Quit),
    ]),
];

/// The layers live in the current state, the first asked first. Each dialog, the window
/// screen and a blanked screen are the only layer live while they are up.
pub fn layers(app: &App) -> Vec<Layer> {
    let only = match &app.screens.overlay {
        Overlay::Help => Some(vec![L::Help]),
        Overlay::Glossary => Some(vec![L::Glossary]),
        Overlay::Explore { .. } => Some(vec![L::Explore]),
        Overlay::Traffic(_) => Some(vec![L::Traffic]),
        Overlay::Dialog(_) => Some(vec![L::Dialog]),
        Overlay::ConfirmQuit => Some(vec![L::ConfirmQuit]),
        Overlay::Checklist(_) => Some(vec![L::Checklist]),
        Overlay::Picker(p) if p.typed.is_empty() => Some(vec![L::PickerBrowse, L::Typing]),
        Overlay::Answering => Some(vec![L::Answering]),
        Overlay::Voting { .. } => Some(vec![L::Voting]),
        Overlay::Picker(_) | Overlay::Save(_) | Overlay::Goto { .. } => Some(vec![L::Typing]),
        Overlay::None if app.screens.screen == Screen::Window => Some(vec![L::Window]),
        Overlay::None if app.talk.present.is_some_and(|p| p.blank) => Some(vec![L::Blank]),
        Overlay::None => None,
    };
    if let Some(only) = only {
        return only;
    }
    let mut live = Vec::new();
    // At a question: `a` answers, `v` counts hands. Number keys keep switching design, so a
    // stray digit never answers. While the room's answer waits, Enter reveals it and `u` (or
    // Backspace) takes it back.
    if app.question_here().is_some() {
        if app.answer_waiting() {
            live.push(L::Waiting);
        }
        live.push(L::Question);
    }
    live.push(if app.talk.present.is_some() {
        L::Presenter
    } else {
        L::Replay
    });
    live
}

/// The first binding of `layer` that `code` matches, and the number of its row.
pub fn binding(layer: Layer, code: KeyCode) -> Option<(usize, &'static Bind)> {
    TABLE.iter().enumerate().find_map(|(n, row)| {
        row.binds
            .iter()
            .find(|b| b.layer == layer && b.chord.matches(code))
            .map(|b| (n, b))
    })
}

/// What opens the dialog row `n` of the table opens, if it opens one.
pub fn opener(n: usize) -> Option<fn(&App) -> Box<super::dialogs::ReplayDialog>> {
    TABLE.get(n)?.binds.iter().find_map(|b| match b.intent {
        Intent::Open(open) => Some(open),
        _ => None,
    })
}

/// The message a key press stands for in the current state, if any.
pub fn map_key(key: KeyEvent, app: &App) -> Option<Msg> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Msg::QuitNow);
    }
    let live = layers(app);
    let found = live.iter().find_map(|layer| binding(*layer, key.code));
    match found {
        Some((row, bind)) => intended(&bind.intent, row, key.code, app),
        // The window screen's own keys are its model's.
        None if live == [L::Window] => super::window::message(key).map(Msg::Window),
        None => None,
    }
}

/// What an intent asks for, given the key that asked.
fn intended(intent: &Intent, row: usize, code: KeyCode, app: &App) -> Option<Msg> {
    let typed = match code {
        KeyCode::Char(c) => Some(c),
        _ => None,
    };
    let hotkey = || {
        typed
            .and_then(|c| c.to_digit(10))
            .and_then(|d| Design::from_hotkey(d as u8))
    };
    match intent {
        Intent::Send(msg) => Some(msg()),
        Intent::Design if app.screens.screen == Screen::Compare => {
            hotkey().map(Msg::ToggleCompared)
        }
        Intent::Design | Intent::SwitchDesign => hotkey().map(Msg::SwitchDesign),
        Intent::Answer => typed
            .and_then(|c| c.to_digit(10))
            .map(|d| Msg::Answer(d as usize - 1)),
        Intent::Type => typed.map(Msg::Type),
        Intent::Open(_) => Some(Msg::OpenDialog(row)),
    }
}

/// The count of rows on a page, for [`page`]'s array.
const fn rows_on(page: Page) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < TABLE.len() {
        if matches!(TABLE[i].page, Some(p) if p as u8 == page as u8) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// A page of help: each of its rows' keys and line, in the table's order.
const fn page<const N: usize>(page: Page) -> [(&'static str, &'static str); N] {
    let mut out = [("", ""); N];
    let (mut i, mut n) = (0, 0);
    while i < TABLE.len() {
        if matches!(TABLE[i].page, Some(p) if p as u8 == page as u8) {
            out[n] = (TABLE[i].keys, TABLE[i].help);
            n += 1;
        }
        i += 1;
    }
    out
}

const REPLAY_PAGE: [(&str, &str); rows_on(Page::Replay)] = page(Page::Replay);
const PRESENTER_PAGE: [(&str, &str); rows_on(Page::Presenter)] = page(Page::Presenter);

/// Every key, as the help overlay and docs/replay.md list them: the replay's page of
/// [`TABLE`].
pub const KEYS: &[(&str, &str)] = &REPLAY_PAGE;

/// The keys of presenter mode, the replay's moves and the keys for the room: the presenter's
/// page of [`TABLE`], whose rows bind every key that acts there, and only those.
pub const PRESENTER_KEYS: &[(&str, &str)] = &PRESENTER_PAGE;
