//! The replay's dialogs behind the trait of [`crate::replay::dialog`], one file each.

pub mod questions;

use super::app::App;
use super::msg::Msg;

/// A dialog of the replay: shown over its state, answering with its messages.
pub type ReplayDialog = dyn crate::replay::dialog::Dialog<App, Msg>;
