//! Everything that can happen to the replay: a key was pressed, or the autoplay timer fired.

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
    /// Esc: close what is open, or quit when nothing is.
    Back,
    Quit,
}
