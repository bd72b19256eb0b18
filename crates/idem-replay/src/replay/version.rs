//! The story on screen as this session has made it: the scenario as its file writes it (with
//! the keys `K` and `m` chose), the what-ifs added, taken back and saved, the scenario they
//! make, every design's run of it, and the revision that counts each change. A new story
//! arrives in one way only, [`Version::take`]; the update function keeps the what-ifs' lists,
//! and every view reads the rest.

use crate::replay::prepare::{Prepared, Runs};
use crate::scenario::Scenario;
use crate::sim::config::Fault;
use crate::sim::{Design, PerDesign, Trace};
use crate::story::Told;
use std::sync::Arc;

#[derive(Debug)]
pub struct Version {
    /// The scenario as loaded, before any what-if fault.
    pub original: Scenario,
    /// What-if faults added in the replay, in the order they were added.
    pub added: Vec<Fault>,
    /// What-ifs taken back with `u`, the last one last: `r` adds it again.
    pub undone: Vec<Fault>,
    /// The what-ifs as last saved with `S` (none saved: empty), so `q` knows whether
    /// quitting loses any.
    pub saved_added: Vec<Fault>,
    /// The run under each design, and its words (told once, when first wanted): shared with
    /// the thread that tells the designs not on screen.
    runs: Arc<Runs>,
    /// How many ticks each design's run has before the what-ifs (keyed as on screen).
    before_what_ifs: PerDesign<usize>,
    /// Counts the stories shown: it changes whenever the scenario on screen does.
    pub revision: u64,
    /// The story on screen as a file, for the speaker notes, with its revision, when it was
    /// written along with the simulation.
    pub file: Option<(u64, String)>,
}

impl Version {
    /// The story of a scenario just opened, as `prepared` simulated it.
    pub(super) fn new(prepared: Prepared) -> Version {
        let Prepared {
            original,
            runs,
            before_what_ifs,
            ..
        } = prepared;
        Version {
            original,
            added: Vec::new(),
            undone: Vec::new(),
            saved_added: Vec::new(),
            runs,
            before_what_ifs,
            revision: 0,
            file: None,
        }
    }

    /// Takes a newly simulated story: the next revision. Gives back the runs it replaces,
    /// for the caller to let go of where freeing them costs the screen nothing.
    pub(super) fn take(&mut self, prepared: Prepared) -> Arc<Runs> {
        let Prepared {
            original,
            added,
            runs,
            before_what_ifs,
            file,
            warning: _,
        } = prepared;
        self.original = original;
        self.added = added;
        self.before_what_ifs = before_what_ifs;
        self.revision += 1;
        self.file = file.map(|f| (self.revision, f));
        std::mem::replace(&mut self.runs, runs)
    }

    /// The scenario being shown: the original plus the added faults (the one its runs
    /// simulated).
    #[inline]
    pub fn scenario(&self) -> &Scenario {
        self.runs.scenario()
    }

    /// Every design's run of the story.
    #[inline]
    pub fn runs(&self) -> &Arc<Runs> {
        &self.runs
    }

    pub fn trace_of(&self, design: Design) -> &Trace {
        self.runs.trace(design)
    }

    /// The words of a design's run (told now, if they were not yet).
    pub fn told_of(&self, design: Design) -> &Told {
        self.runs.telling(design)
    }

    /// How many ticks a design's run has before the what-ifs, keyed as on screen.
    pub fn ticks_before_what_ifs(&self, design: Design) -> usize {
        self.before_what_ifs[design]
    }

    /// The most charges any design's run makes: how far a question's choices must reach.
    pub fn most_charges(&self) -> usize {
        crate::scenario::most_charges(self.runs.traces().values())
    }

    /// The checkout's key strategy as `K` (or `--key-strategy`) set it for every layer, when
    /// the story keys the checkout otherwise than its file: the banner and the share line
    /// carry it. Worked out from the story, never kept beside it.
    pub fn keys_set(&self) -> Option<crate::sim::config::KeyStrategy> {
        let config = &self.original.config;
        config
            .keying()
            .checkout_differs(&self.original.keying_as_written)
            .then_some(config.key_strategy)
    }

    /// What has made the story differ from the scenario as its file tells it: the what-ifs
    /// added here, and the checkout's or the steps' keys changed with `K` or `m`. Empty while
    /// the story is the one the file's author wrote the questions for.
    pub fn changed_from_written(&self) -> Vec<&'static str> {
        let mut changes = Vec::new();
        if !self.added.is_empty() {
            changes.push("the what-ifs");
        }
        changes.extend(self.scenario().keys_changed());
        changes
    }

    /// Whether quitting now would lose what-ifs never saved.
    pub fn unsaved(&self) -> bool {
        !self.added.is_empty() && self.added != self.saved_added
    }

    /// The file the story was read from, watched for changes; `None` for a built-in or a
    /// scenario made in this session.
    pub fn watched(&self) -> Option<&std::path::Path> {
        self.original.origin.file()
    }
}
