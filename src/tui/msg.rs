//! Everything that can happen to the replay: a key was pressed, or the autoplay timer fired.

use crate::scenario::fork::WhatIf;
use crate::sim::Design;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Drop every what-if fault: back to the scenario as written.
    Unfork,
    /// Ask where to save the forked scenario.
    OpenSave,
    OpenPicker,
    OpenChecklist,
    /// Answer the quiz at this tick with a choice (0-based).
    Answer(usize),
    /// Typing into the picker's path line or the save prompt.
    Type(char),
    Backspace,
    Up,
    Down,
    Confirm,
    /// Open the retry-window calculator on this scenario's stack.
    OpenWindow,
    /// A key for the window calculator, which has keys of its own.
    RetentionKey(ratatui::crossterm::event::KeyEvent),
    /// Presenter mode: blank the screen, or bring it back.
    Blank,
    /// Presenter mode: show or hide the elapsed time.
    ToggleElapsed,
}
