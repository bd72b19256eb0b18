//! Everything that can happen to the replay: a key the viewer pressed, or news from outside
//! (the autoplay timer, the clock, the watched file, a finished simulation, the result of an
//! effect). [`crate::replay::update`] is the only place any of them changes the state.

use super::picker::Picker;
use super::prepare::{After, Prepared};
use super::window::WindowMsg;
use crate::files::WriteError;
use crate::scenario::Scenario;
use crate::scenario::fork::WhatIf;
use crate::sim::Design;
use std::path::PathBuf;

// A story or a scenario travels once, by value, from the loop to the update function;
// boxing it would only add an indirection at both ends.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Msg {
    Next,
    Prev,
    First,
    Last,
    TogglePlay,
    Faster,
    Slower,
    /// The autoplay timer fired.
    PlayStep,
    SwitchDesign(Design),
    JumpToDivergence,
    ToggleCompare,
    ToggleHelp,
    OpenGlossary,
    /// Esc: close what is open, or quit when nothing is.
    Back,
    Quit,
    /// Add a what-if fault at the current tick.
    Fork(WhatIf),
    /// Scroll the narration box by this many rows (negative: up).
    ScrollStory(i16),
    /// Jump to the next (`true`) or previous event that matters: a charge, a crash, a lost
    /// message, an expiry, a refund, a downstream effect.
    JumpEvent(bool),
    /// Ask for a tick number or a time to go to.
    OpenGoto,
    /// In compare, add a design to the columns or take it away.
    ToggleCompared(Design),
    /// Take back the last what-if fault.
    Unfork,
    /// Add again the last what-if taken back.
    Redo,
    /// Quit without asking, whatever is unsaved (Ctrl-C, or `y` when asked).
    QuitNow,
    /// Key the downstream steps the next way: derived, per attempt, none.
    CycleStepKeys,
    /// Goes back (or forward) to a tick shown in the timeline: a click on its row.
    GoToTick(usize),
    /// Sends the checkout's keys the next way: one per order, one per attempt, none, and
    /// (when the file mixes them across its layers) the file's own way.
    CycleKeyStrategy,
    /// Back to the scenario as written: every what-if taken back, K and m undone (`0`).
    AsWritten,
    /// Ask where to save the forked scenario.
    OpenSave,
    OpenPicker,
    OpenChecklist,
    /// The room's answer to the question at this tick (0-based), in answer mode; it waits for
    /// the reveal.
    Answer(usize),
    /// `a` at a question: the next number is the room's answer.
    OpenAnswer,
    /// `v` at a question: count hands per choice.
    OpenVotes,
    /// Show the right answer and the explanation for the room's answer (or its votes).
    Reveal,
    /// Take back the room's answer (and its votes) before the reveal.
    TakeBack,
    /// Presenter mode: reveal what is hidden from the room (the design's name, the statement,
    /// the outcome), or hide it again.
    ToggleHidden,
    /// Presenter mode: show or hide the side panels (memory, ledger, statement).
    TogglePanels,
    /// Draw runs of repeated attempts as one row, or every row.
    ToggleFold,
    /// Typing into the picker's path line or the save prompt.
    Type(char),
    Backspace,
    Up,
    Down,
    Confirm,
    /// Open the retention calculator on this scenario's stack.
    OpenWindow,
    /// Something for the retention calculator, which has messages of its own.
    Window(WindowMsg),
    /// Presenter mode: blank the screen, or bring it back.
    Blank,
    /// Presenter mode: show or hide the elapsed time.
    ToggleElapsed,

    // ---------------------------------------------------------------- news from outside
    /// Presenter mode: whole seconds since the talk started.
    Clock(u64),
    /// The watched scenario file changed and was read again: the scenario, or why not.
    FileChanged(Result<Scenario, String>),
    /// The session file changed and was read again: the session, or why not.
    SessionChanged(Result<Box<crate::present::playlist::Playlist>, String>),
    /// A story finished simulating.
    Simulated {
        after: After,
        result: Result<Prepared, String>,
    },
    /// The scenario files were listed for the picker.
    Listed(Picker),
    /// A scenario chosen in the picker was read: `picker` is where its errors go.
    Loaded {
        source: String,
        result: Result<Scenario, String>,
        picker: Picker,
    },
    /// A save finished.
    Saved {
        path: PathBuf,
        result: Result<(), WriteError>,
    },
    /// Presenter mode: the speaker notes' socket is open (`None`), or why it is not.
    NotesLink(Option<String>),
    /// Search every fault plan of this scenario (`e`).
    OpenExplore,
    /// The fault-space search finished.
    Explored(Result<crate::explore::Exploration, String>),
    /// The search running beside the replay has run this many plans.
    Searched(usize),
    /// Count a day of traffic through every design (`T`).
    OpenTraffic,
    /// The day of traffic was counted.
    Counted(Result<Box<crate::traffic::Report>, String>),
    /// A job that ran beside the loop has sent all it will (the loop's own bookkeeping).
    ChoreDone,
    /// Open over the screen the dialog this row of the key table opens
    /// ([`crate::replay::keymap::opener`]).
    OpenDialog(usize),
    /// A key for the dialog that is open.
    InDialog(crate::replay::dialog::DialogKey),
}

impl Msg {
    /// Whether the message came from the viewer rather than from outside.
    pub fn from_viewer(&self) -> bool {
        !matches!(
            self,
            Msg::PlayStep
                | Msg::Clock(_)
                | Msg::FileChanged(_)
                | Msg::SessionChanged(_)
                | Msg::Simulated { .. }
                | Msg::Listed(_)
                | Msg::Loaded { .. }
                | Msg::Saved { .. }
                | Msg::NotesLink(_)
                | Msg::Explored(_)
                | Msg::Searched(_)
                | Msg::Counted(_)
                | Msg::ChoreDone
        )
    }
}

/// Messages from the viewer compare by what was asked for. News that carries a whole story
/// or file never equals anything: nothing needs to compare those, and a story has no cheap
/// equality.
impl PartialEq for Msg {
    fn eq(&self, other: &Msg) -> bool {
        use Msg::*;
        match (self, other) {
            (SwitchDesign(a), SwitchDesign(b)) => a == b,
            (Fork(a), Fork(b)) => a == b,
            (Answer(a), Answer(b)) => a == b,
            (Type(a), Type(b)) => a == b,
            (Window(a), Window(b)) => a == b,
            (Clock(a), Clock(b)) => a == b,
            (NotesLink(a), NotesLink(b)) => a == b,
            (ScrollStory(a), ScrollStory(b)) => a == b,
            (JumpEvent(a), JumpEvent(b)) => a == b,
            (ToggleCompared(a), ToggleCompared(b)) => a == b,
            (Explored(a), Explored(b)) => a == b,
            (Searched(a), Searched(b)) => a == b,
            (OpenDialog(a), OpenDialog(b)) => a == b,
            (InDialog(a), InDialog(b)) => a == b,
            (
                FileChanged(_)
                | SessionChanged(_)
                | Simulated { .. }
                | Listed(_)
                | Loaded { .. }
                | Saved { .. }
                | Counted(_),
                _,
            ) => false,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }
}
