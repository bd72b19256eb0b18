//! Dialogs behind one trait: each is one file of this folder holding its state, what its keys
//! do and the rows it shows. The key table opens one (`Intent::Open`) and sends it the keys of
//! the dialog layer ([`DialogKey`]); the update hands each to the open dialog's [`Dialog::act`]
//! and does what it answers; the terminal draws any of them the same way, as a list in a box
//! with its title and footer. Adding a dialog is a file here and a row of the key table.

pub mod questions;

use super::app::App;
use super::msg::Msg;

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
pub enum Done {
    /// Stay open (perhaps changed).
    Stay,
    /// Close.
    Close,
    /// Close, then do this as if it had been asked for.
    Then(Msg),
}

/// A dialog: its state, its keys' behaviour, and what it shows. Its rows are read from the
/// state each frame, so they are never out of date.
pub trait Dialog: std::fmt::Debug + Send + Sync {
    /// The box's title.
    fn title(&self) -> &str;
    /// The rows it lists, in the state it is open over.
    fn rows(&self, app: &App) -> Vec<String>;
    /// The row chosen.
    fn selected(&self) -> usize;
    /// The keys it answers, as its footer says them.
    fn footer(&self) -> &str;
    /// What a key does.
    fn act(&mut self, key: DialogKey, app: &App) -> Done;
    /// A copy, for a state that is cloned.
    fn boxed(&self) -> Box<dyn Dialog>;
}

/// An open dialog, as the state holds it. Two compare equal when they are the same dialog
/// with the same row chosen.
#[derive(Debug)]
pub struct Open(pub Box<dyn Dialog>);

impl Clone for Open {
    fn clone(&self) -> Open {
        Open(self.0.boxed())
    }
}

impl PartialEq for Open {
    fn eq(&self, other: &Open) -> bool {
        self.0.title() == other.0.title() && self.0.selected() == other.0.selected()
    }
}

impl Eq for Open {}
