//! The trait every dialog of `replay/dialogs/` stands behind: each is one file there holding
//! its state, what its keys do and the rows it shows. The key table opens one (`Intent::Open`)
//! and sends it the keys of the dialog layer ([`DialogKey`]); the update hands each to the open
//! dialog's [`Dialog::act`] and does what it answers; the terminal draws any of them the same
//! way, as a list in a box with its title and footer. Adding a dialog is a file there and a
//! row of the key table.
//!
//! The trait is written over the state it is shown over (`S`, the replay's `App`) and the
//! message it may answer with (`M`, the replay's `Msg`), so this module names neither: the
//! state and the messages hold an open dialog, and the dialogs read the state.

/// A key a dialog is sent: the dialog layer's keys in the key table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogKey {
    Up,
    Down,
    /// Enter: do what the chosen row says.
    Choose,
}

/// What a dialog answers a key with.
// Made once per key and taken apart at once: boxing the message would only add an
// indirection at both ends, as for `Msg` itself.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Done<M> {
    /// Stay open (perhaps changed).
    Stay,
    /// Close.
    Close,
    /// Close, then do this as if it had been asked for.
    Then(M),
}

/// A dialog: its state, its keys' behaviour, and what it shows. Its rows are read from the
/// state each frame, so they are never out of date.
pub trait Dialog<S, M>: std::fmt::Debug + Send + Sync {
    /// The box's title.
    fn title(&self) -> &str;
    /// The rows it lists, in the state it is open over.
    fn rows(&self, state: &S) -> Vec<String>;
    /// The row chosen.
    fn selected(&self) -> usize;
    /// The keys it answers, as its footer says them.
    fn footer(&self) -> &str;
    /// What a key does.
    fn act(&mut self, key: DialogKey, state: &S) -> Done<M>;
    /// A copy, for a state that is cloned.
    fn boxed(&self) -> Box<dyn Dialog<S, M>>;
}

/// An open dialog, as the state holds it. Two compare equal when they are the same dialog
/// with the same row chosen.
#[derive(Debug)]
pub struct Open<S, M>(pub Box<dyn Dialog<S, M>>);

impl<S, M> Clone for Open<S, M> {
    fn clone(&self) -> Open<S, M> {
        Open(self.0.boxed())
    }
}

impl<S, M> PartialEq for Open<S, M> {
    fn eq(&self, other: &Open<S, M>) -> bool {
        self.0.title() == other.0.title() && self.0.selected() == other.0.selected()
    }
}

impl<S, M> Eq for Open<S, M> {}
