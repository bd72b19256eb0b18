//! What the update function asks the world to do: simulate a story, read the scenario
//! folder, read or write a file, tell the speaker notes where the presenter stands. The
//! update function only describes these; they run here (or, for the slow and the socket
//! ones, in the terminal's loop), and their results come back as messages.

use super::msg::Msg;
use super::picker::Picker;
use super::prepare::{Job, prepare_job};
use crate::scenario;
use std::path::PathBuf;

// A story or a scenario travels once, by value, from the loop to the update function;
// boxing it would only add an indirection at both ends.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Effect {
    /// Simulate a story under every design, telling it at once under `showing` (the file's
    /// own design when `None`), the design it will be shown under: [`Msg::Simulated`].
    Simulate {
        job: Job,
        showing: Option<crate::sim::Design>,
    },
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
    /// `search` counts the plans and is told to stop.
    Explore {
        scenario: Box<crate::scenario::Scenario>,
        search: Searching,
    },
    /// Count a day of traffic through every design: [`Msg::Counted`]. `progress` is told
    /// to stop.
    Traffic {
        scenario: Box<crate::scenario::Scenario>,
        settings: Box<crate::traffic::Settings>,
        progress: std::sync::Arc<crate::traffic::Progress>,
    },
}

/// The most faults in a plan the replay's explorer tries.
pub const EXPLORE_FAULTS: usize = 2;
/// The most plans the replay's explorer tries for one design: past it the matrix is marked
/// partial. A story of a few orders has far fewer; one of dozens of orders with a dozen
/// attempts each would otherwise take hours and gigabytes.
pub const EXPLORE_MAX_PLANS: usize = 20_000;

/// The threads a day of traffic counted beside the replay may use: one design each, and one
/// core left for the screen on a small machine.
pub const TRAFFIC_THREADS: usize = 2;

/// A search running beside the replay: how many plans it has run, and the flag that stops
/// it. Both are shared with the search's thread; setting the flag never waits.
#[derive(Clone, Debug, Default)]
pub struct Searching {
    pub plans: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    pub stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Searching {
    pub fn plans_run(&self) -> usize {
        self.plans.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn cancel(&self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether an effect may take long or wait on the world (reading a folder or a file the
/// user named, writing one, a search): the terminal's loop runs those beside itself.
pub fn runs_beside(effect: &Effect) -> bool {
    matches!(
        effect,
        Effect::ListScenarios(_)
            | Effect::Load { .. }
            | Effect::Save { .. }
            | Effect::Explore { .. }
            | Effect::Traffic { .. }
    )
}

/// Runs an effect that needs no terminal at once, and says what came of it. The speaker
/// notes' link has no meaning without a terminal loop: publishing here does nothing.
pub fn run_now(effect: Effect) -> Option<Msg> {
    match effect {
        Effect::Simulate {
            job:
                Job {
                    original,
                    added,
                    after,
                },
            showing,
        } => Some(Msg::Simulated {
            result: prepare_job(original, added, &after, showing).map_err(|e| e.to_string()),
            after,
        }),
        Effect::Explore { scenario, search } => {
            let search = crate::explore::Search {
                faults_max: EXPLORE_FAULTS,
                keep_faults: true,
                designs: crate::sim::Design::ALL.to_vec(),
                progress: Some(search.plans),
                stop: Some(search.stop),
                max_plans: Some(EXPLORE_MAX_PLANS),
            };
            Some(Msg::Explored(crate::explore::explore(&scenario, &search)))
        }
        Effect::Traffic {
            scenario,
            settings,
            progress,
        } => Some(Msg::Counted(
            crate::traffic::run(
                &scenario,
                &settings,
                &crate::sim::Design::ALL,
                TRAFFIC_THREADS,
                &progress,
            )
            .map(Box::new),
        )),
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
