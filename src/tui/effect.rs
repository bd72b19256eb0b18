//! What the update function asks the world to do: simulate a story, read the scenario
//! folder, read or write a file, tell the speaker notes where the presenter stands. The
//! update function only describes these; they run here (or, for the slow and the socket
//! ones, in the terminal's loop), and their results come back as messages.

use super::app::{App, Picker};
use super::msg::Msg;
use super::story::{Job, prepare_job};
use super::update::update;
use crate::scenario;
use std::path::PathBuf;

// A story or a scenario travels once, by value, from the loop to the update function;
// boxing it would only add an indirection at both ends.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Effect {
    /// Simulate a story under every design: [`Msg::Simulated`].
    Simulate(Job),
    /// List the scenario files of a folder, then the built-ins: [`Msg::Listed`].
    ListScenarios(Vec<PathBuf>),
    /// Read the scenario chosen in the picker: [`Msg::Loaded`].
    Load {
        source: String,
        /// The file by its real name, when it was listed.
        path: Option<PathBuf>,
        builtin: bool,
        picker: Picker,
    },
    /// Write a saved what-if; `replace` once the viewer has agreed to replace a file:
    /// [`Msg::Saved`].
    Save {
        path: PathBuf,
        text: String,
        replace: bool,
    },
    /// Presenter mode: the position changed, or the notes came on; tell them.
    Publish,
    /// Search every fault plan of a scenario on top of its own faults: [`Msg::Explored`].
    Explore(Box<crate::scenario::Scenario>),
}

/// The most faults in a plan the replay's explorer tries.
pub const EXPLORE_FAULTS: usize = 2;

/// Runs an effect that needs no terminal at once, and says what came of it. The speaker
/// notes' link has no meaning without a terminal loop: publishing here does nothing.
pub fn run_now(effect: Effect) -> Option<Msg> {
    match effect {
        Effect::Simulate(Job {
            original,
            added,
            after,
        }) => Some(Msg::Simulated {
            result: prepare_job(original, added, &after).map_err(|e| e.to_string()),
            after,
        }),
        Effect::Explore(scenario) => {
            let search = crate::explore::Search {
                faults_max: EXPLORE_FAULTS,
                keep_faults: true,
                designs: crate::sim::Design::ALL.to_vec(),
                ..Default::default()
            };
            Some(Msg::Explored(crate::explore::explore(&scenario, &search)))
        }
        Effect::ListScenarios(dirs) => Some(Msg::Listed(super::picker::list_all(&dirs))),
        Effect::Load {
            source,
            path,
            builtin,
            picker,
        } => {
            let result = match (&path, builtin) {
                (Some(path), _) => scenario::load(path),
                (None, true) => scenario::library::find(&source)
                    .map(|b| b.load())
                    .unwrap_or_else(|| scenario::resolve(&source)),
                (None, false) => scenario::resolve(&source),
            };
            Some(Msg::Loaded {
                source,
                result: result.map_err(|e| e.one_line()),
                picker,
            })
        }
        Effect::Save {
            path,
            text,
            replace,
        } => {
            let result = if replace {
                crate::files::write_file(&path, text.as_bytes(), true)
                    .map_err(crate::files::WriteError::Other)
            } else {
                crate::files::write_new(&path, text.as_bytes())
            };
            Some(Msg::Saved { path, result })
        }
        Effect::Publish => None,
    }
}

/// Updates the app with a message and runs every effect that follows, at once and on this
/// thread, until nothing is left: the replay as tests and exports drive it.
pub fn settle(app: &mut App, msg: Msg) {
    let mut pending = vec![msg];
    while let Some(msg) = pending.pop() {
        for effect in update(app, msg) {
            if let Some(next) = run_now(effect) {
                pending.push(next);
            }
        }
    }
}
