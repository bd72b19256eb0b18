//! Putting a new story on screen: a what-if, its undoing, a reloaded file, another scenario.
//! The expensive part, simulating every design, is [`prepare`]: it needs nothing from the
//! screen, so the terminal's loop runs it on another thread and the replay stays live, showing
//! "simulating…"; the outcome comes from the engine, and the screen only shows it. Without a
//! terminal (tests, exports) the same job runs at once.

use super::picker::Picker;
use crate::scenario::Scenario;
use crate::sim::config::Fault;
use crate::sim::{PerDesign, SimError, Trace};
use crate::story::Told;

/// A story simulated under every design, ready to be shown.
#[derive(Clone)]
pub struct Prepared {
    pub(super) original: Scenario,
    pub(super) added: Vec<Fault>,
    pub(super) scenario: Scenario,
    pub(super) traces: PerDesign<Trace>,
    pub(super) told: PerDesign<Told>,
    pub(super) glossary: PerDesign<Vec<Option<usize>>>,
    /// For each trace, its runs of repeated attempts (folded with `f`).
    pub(super) repeats: PerDesign<Vec<crate::tui::repeats::Run>>,
    /// How many ticks each design's run has without the what-ifs, keyed as `original` is.
    pub(super) before_what_ifs: PerDesign<usize>,
    /// The story as a file, for the speaker notes, when it was worked out here too.
    pub(super) file: Option<String>,
    /// Why the file could not be read again, so the version kept from before is shown.
    pub(super) warning: Option<String>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("scenario", &self.scenario.name)
            .field("added", &self.added.len())
            .field(
                "ticks",
                &self
                    .traces
                    .values()
                    .iter()
                    .map(|t| t.ticks.len())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Prepared {
    /// Also writes the story as a file (for the speaker notes): saving a what-if simulates it
    /// again, so this too belongs off the UI thread.
    pub fn with_file(mut self) -> Prepared {
        self.file = crate::scenario::fork_toml::to_toml(&self.original, &self.added).ok();
        self
    }
}

/// Simulates a job: as [`prepare`], but a session's part read from a file is read again
/// first, so a part left and come back to shows the file as it is on disk now (the version
/// kept from before, with a warning, when the file no longer reads).
pub fn prepare_job(
    original: Scenario,
    added: Vec<Fault>,
    after: &After,
) -> Result<Prepared, SimError> {
    let mut warning = None;
    let original = match (after, original.origin.file()) {
        (After::Section { keys, .. }, Some(path)) => match crate::scenario::load(path) {
            Ok(fresh) => keys.apply(&fresh),
            Err(e) => {
                warning = Some(format!(
                    "the file has an error, so the version read before is shown: {}",
                    e.one_line()
                ));
                original
            }
        },
        _ => original,
    };
    let mut prepared = prepare(original, added)?;
    prepared.warning = warning;
    Ok(prepared)
}

/// Simulates `original` with the what-if faults `added` under every design, and tells every
/// design's story, so switching designs never waits. Pure and self-contained: safe to run on
/// any thread.
pub fn prepare(original: Scenario, added: Vec<Fault>) -> Result<Prepared, SimError> {
    prepare_telling(original, added, None)
}

/// As [`prepare`] without what-ifs, but the story of `design` alone is told: the other runs
/// keep only their outcomes (see [`Trace::outcome_only`]) and no words, each shed as soon as
/// it is made. For a view that never leaves `design`, such as an export.
pub fn prepare_one(scenario: Scenario, design: crate::sim::Design) -> Result<Prepared, SimError> {
    prepare_telling(scenario, Vec::new(), Some(design))
}

/// The work of both: every design simulated, and told unless `only` names another.
fn prepare_telling(
    original: Scenario,
    added: Vec<Fault>,
    only: Option<crate::sim::Design>,
) -> Result<Prepared, SimError> {
    let told_here = |d: crate::sim::Design| only.is_none_or(|o| o == d);
    let scenario = crate::scenario::fork::with_faults(&original, &added);
    let mut lengths = Vec::new();
    let traces = PerDesign::try_new(|d| {
        let trace = scenario.simulate(d)?;
        lengths.push(trace.ticks.len());
        Ok(if told_here(d) {
            trace
        } else {
            trace.outcome_only()
        })
    })?;
    let told = traces.map(|d, t| {
        if told_here(d) {
            scenario.tell(t)
        } else {
            Told::default()
        }
    });
    let glossary = told.map(|_, t| crate::story::glossary::first_uses(t));
    let repeats = told.map(|d, t| crate::tui::repeats::runs(&traces[d], t));
    let before_what_ifs = if added.is_empty() {
        PerDesign::new(|d| lengths[d.index()])
    } else {
        PerDesign::try_new(|d| original.simulate(d).map(|t| t.ticks.len()))?
    };
    Ok(Prepared {
        original,
        added,
        scenario,
        traces,
        told,
        glossary,
        repeats,
        before_what_ifs,
        file: None,
        warning: None,
    })
}

/// What to say, and where to go, once the story is simulated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum After {
    /// A what-if fault was added; `words` say which.
    Fork { words: String },
    /// The last what-if taken back; `left` are still in force.
    Unfork { left: usize },
    /// The downstream steps keyed another way.
    StepKeys { mode: crate::sim::config::KeyMode },
    /// The checkout's keys, sent another way by every layer.
    KeyStrategy {
        /// `None`: back to the keys as the file writes them.
        strategy: Option<crate::sim::config::KeyStrategy>,
    },
    /// Back to the story as the file writes it: every what-if taken back, and the keys (K, m)
    /// as written.
    AsWritten,
    /// The watched file changed.
    Reload,
    /// Another scenario of the session file being played: section `index`, at its first tick,
    /// or its last when going back.
    Section {
        index: usize,
        at_end: bool,
        /// The keys the session was started with, applied again when the part is read.
        keys: crate::present::playlist::Keys,
    },
    /// Another scenario, from the picker, the checklist or the window screen.
    Open {
        source: String,
        notice: Option<String>,
        errors_to: ErrorsTo,
    },
}

/// Where an `Open` that cannot be simulated says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorsTo {
    /// Back in the picker, with the error under its list.
    Picker(Picker),
    /// In the footer.
    Notice,
    /// Out of the window screen, then in the footer.
    Window,
}

impl After {
    /// What is being simulated, for the "simulating…" line.
    pub fn doing(&self) -> String {
        match self {
            After::Fork { words } => format!("what if: {words}"),
            After::Unfork { left: 0 } => "the scenario as written".to_string(),
            After::Unfork { .. } => "one what-if fewer".to_string(),
            After::StepKeys { mode } => {
                format!("the steps after payment with {}", step_keys(*mode))
            }
            After::KeyStrategy {
                strategy: Some(strategy),
            } => {
                format!("the checkout sending {}", checkout_keys(*strategy))
            }
            After::KeyStrategy { strategy: None } => {
                "the checkout keyed as the file writes it".to_string()
            }
            After::AsWritten => "the scenario as written".to_string(),
            After::Reload => "the changed scenario file".to_string(),
            After::Section { index, .. } => format!("the session's scenario {}", index + 1),
            After::Open { source, .. } => source.clone(),
        }
    }
}

pub use crate::story::{checkout_keys, step_keys};

/// A story to simulate, and what follows.
#[derive(Debug)]
pub struct Job {
    pub original: Scenario,
    pub added: Vec<Fault>,
    pub after: After,
}
