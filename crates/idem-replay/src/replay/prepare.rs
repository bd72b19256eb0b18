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
    /// Every design's run, each told the first time it is wanted.
    pub(super) runs: std::sync::Arc<Runs>,
    /// How many ticks each design's run has without the what-ifs, keyed as `original` is.
    pub(super) before_what_ifs: PerDesign<usize>,
    /// The story as a file, for the speaker notes, when it was worked out here too.
    pub(super) file: Option<String>,
    /// Why the file could not be read again, so the version kept from before is shown.
    pub(super) warning: Option<String>,
}

/// Every design's run of one story. Telling a long run takes far longer than simulating it,
/// so each design is told the first time it is wanted: the first frame waits for the design
/// on screen alone (for its opening alone, when it has one: [`Runs::words`]), and the
/// terminal's loop tells it and the others beside it
/// ([`Runs::tell_every_design`]). What is told is the same whenever, and on whichever thread,
/// it is told.
pub struct Runs {
    scenario: std::sync::Arc<Scenario>,
    traces: PerDesign<Trace>,
    told: PerDesign<std::sync::OnceLock<Told>>,
    /// Where each design's story first uses each glossary term, found when first wanted.
    glossary: PerDesign<std::sync::OnceLock<Vec<Option<usize>>>>,
    /// The same for the terms each design's story uses in its first ticks (as many as each
    /// of [`GLOSSARY_SEARCHED_AHEAD_UP_TO`] says), `None` for the others: what the marks of
    /// an early tick need while the whole story has not been searched, each found once.
    glossary_ahead:
        PerDesign<[std::sync::OnceLock<Vec<Option<usize>>>; GLOSSARY_SEARCHED_AHEAD_UP_TO.len()]>,
    /// Each design's runs of repeated attempts (folded with `f`), found when first wanted.
    repeats: PerDesign<std::sync::OnceLock<Vec<crate::replay::repeats::Run>>>,
    /// The words the story's first frame is drawn from, when it opens on its first tick:
    /// the design shown told through that tick alone ([`Scenario::tell_opening`]), the rest
    /// of it told after the frame is drawn.
    opening: Option<Opening>,
    /// For a view that never leaves one design: the others keep their outcomes alone, and
    /// are told as nothing.
    only: Option<crate::sim::Design>,
}

impl std::fmt::Debug for Runs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runs")
            .field("scenario", &self.scenario.name)
            .field(
                "told",
                &self
                    .told
                    .values()
                    .iter()
                    .filter(|t| t.get().is_some())
                    .count(),
            )
            .finish()
    }
}

/// The opening's words of one design, and whether they are still to be drawn from. Once
/// spent they are kept, unread, as long as the story is on screen (a long story's labels
/// twice: its opening's and its whole telling's).
struct Opening {
    design: crate::sim::Design,
    /// Told through the story's first tick ([`Scenario::tell_opening`]).
    told: Told,
    spent: std::sync::atomic::AtomicBool,
}

impl Runs {
    /// The scenario simulated: the original plus the what-ifs.
    #[inline]
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    #[inline]
    pub fn trace(&self, design: crate::sim::Design) -> &Trace {
        &self.traces[design]
    }

    #[inline]
    pub fn traces(&self) -> &PerDesign<Trace> {
        &self.traces
    }

    /// A design's run in words, told now if it has not been yet (or being told on another
    /// thread: then this waits for it).
    #[inline]
    pub fn telling(&self, design: crate::sim::Design) -> &Told {
        self.told[design].get_or_init(|| {
            if self.only.is_some_and(|o| o != design) {
                return Told::default();
            }
            self.scenario.tell(&self.traces[design])
        })
    }

    /// The words a frame of `design` at `tick` is drawn from: the whole story once told; until
    /// then, at the story's first tick (the one tick an opening tells the narration of) and
    /// before anything has happened since it was prepared ([`Runs::open`]), its opening, if it
    /// has one; otherwise the whole story, told now. A test holds the first frame drawn from the opening to the one drawn from the
    /// whole story.
    #[inline]
    pub fn words(&self, design: crate::sim::Design, tick: usize) -> &Told {
        if let Some(told) = self.told[design].get() {
            return told;
        }
        match &self.opening {
            Some(o)
                if o.design == design
                    && tick == 0
                    && !o.spent.load(std::sync::atomic::Ordering::Acquire) =>
            {
                &o.told
            }
            _ => self.telling(design),
        }
    }

    /// Stops drawing from the opening: the first frame is drawn, or something has happened
    /// since, so the next frame is drawn from the whole story.
    pub fn open(&self) {
        if let Some(o) = &self.opening {
            o.spent.store(true, std::sync::atomic::Ordering::Release);
        }
    }

    /// Where a design's story first uses each glossary term, found now if not yet.
    #[inline]
    pub fn glossary(&self, design: crate::sim::Design) -> &[Option<usize>] {
        self.glossary[design]
            .get_or_init(|| crate::story::glossary::first_uses(self.telling(design)))
    }

    /// Where a design's story first uses each glossary term that it uses by `tick`; a term
    /// first used later may read `None`. What marking the terms at `tick` needs: while the
    /// whole story has not been searched, an early tick is answered from a search of the
    /// story's first ticks alone, made once, so a long story's first frame does not wait for
    /// the search of all of it, and no frame searches again.
    #[inline]
    pub fn glossary_through(&self, design: crate::sim::Design, tick: usize) -> &[Option<usize>] {
        if let Some(all) = self.glossary[design].get() {
            return all;
        }
        let ahead = GLOSSARY_SEARCHED_AHEAD_UP_TO
            .iter()
            .zip(&self.glossary_ahead[design])
            .find(|(up_to, _)| tick < **up_to);
        match ahead {
            Some((up_to, found)) => found.get_or_init(|| {
                crate::story::glossary::first_uses_through(self.words(design, up_to - 1), up_to - 1)
            }),
            None => self.glossary(design),
        }
    }

    /// A design's runs of repeated attempts, found now if they have not been yet.
    #[inline]
    pub fn repeats(&self, design: crate::sim::Design) -> &[crate::replay::repeats::Run] {
        self.repeats[design].get_or_init(|| {
            crate::replay::repeats::runs(&self.traces[design], self.telling(design))
        })
    }

    /// Tells every design not told yet, `first` first, and finds their repeats: what the
    /// terminal's loop runs beside itself once a story is on screen, so switching designs
    /// and folding seldom wait.
    pub fn tell_every_design(&self, first: crate::sim::Design) {
        self.glossary(first);
        self.repeats(first);
        for d in crate::sim::Design::ALL {
            self.glossary(d);
            self.repeats(d);
        }
    }

    /// The designs told so far, in order.
    pub fn told_so_far(&self) -> Vec<crate::sim::Design> {
        crate::sim::Design::ALL
            .into_iter()
            .filter(|d| self.told[*d].get().is_some())
            .collect()
    }

    /// Whether every design has been told and its repeats found.
    pub fn all_told(&self) -> bool {
        self.repeats.values().iter().all(|r| r.get().is_some())
            && self.glossary.values().iter().all(|g| g.get().is_some())
    }
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("scenario", &self.runs.scenario.name)
            .field("added", &self.added.len())
            .field(
                "ticks",
                &self
                    .runs
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
/// kept from before, with a warning, when the file no longer reads). The story under
/// `showing` (the file's own design when `None`), the one the screen will show, is told too.
pub fn prepare_job(
    original: Scenario,
    added: Vec<Fault>,
    after: &After,
    showing: Option<crate::sim::Design>,
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
    let showing = showing.unwrap_or(original.design);
    let mut prepared = prepare_telling(original, added, None, Some(showing), false)?;
    prepared.warning = warning;
    Ok(prepared)
}

/// Simulates `original` with the what-if faults `added` under every design; each design's
/// story is told when first wanted ([`Runs::telling`]). Pure and self-contained: safe to run on
/// any thread.
pub fn prepare(original: Scenario, added: Vec<Fault>) -> Result<Prepared, SimError> {
    prepare_telling(original, added, None, None, false)
}

/// As [`prepare`], and the story under `design` is told at once, or only its opening when
/// `opening` says so ([`Runs::words`]): the first frame of a story waits for that alone, and
/// the rest of it is told when a frame first needs it, or beside the terminal's loop.
pub fn prepare_showing(
    original: Scenario,
    design: crate::sim::Design,
    opening: bool,
) -> Result<Prepared, SimError> {
    prepare_telling(original, Vec::new(), None, Some(design), opening)
}

/// As [`prepare`] without what-ifs, but the story of `design` alone is told: the other runs
/// keep only their outcomes (see [`Trace::outcome_only`]) and no words, each shed as soon as
/// it is made. For a view that never leaves `design`, such as an export.
pub fn prepare_one(scenario: Scenario, design: crate::sim::Design) -> Result<Prepared, SimError> {
    prepare_telling(scenario, Vec::new(), Some(design), Some(design), false)
}

/// The work of all three: every design simulated, to be told unless `only` names another,
/// and `showing` told at once, or only its opening when `opening` says so. The design shown
/// is simulated and told on this thread while a helper simulates the rest: telling a long run
/// takes longer than simulating every design.
/// The two share the rest, each taking the next run not yet taken, so this thread never
/// waits for a helper that has not started (on a busy machine a new thread can take longer
/// to start than a short story takes to simulate); a short story's ([`is_short`]) helper is
/// the spare thread ([`super::spare`]), already running, when there is one, except before the
/// first frame (`opening`), when this thread runs them all.
fn prepare_telling(
    original: Scenario,
    added: Vec<Fault>,
    only: Option<crate::sim::Design>,
    showing: Option<crate::sim::Design>,
    opening: bool,
) -> Result<Prepared, SimError> {
    use crate::sim::Design;
    let scenario = std::sync::Arc::new(crate::scenario::fork::with_faults(&original, &added));
    let mut list: Vec<Simulation> = Design::ALL
        .into_iter()
        .filter(|d| Some(*d) != showing)
        .map(Simulation::Run)
        .collect();
    // Each design's length before the what-ifs, when there are some.
    if !added.is_empty() {
        list.extend(Design::ALL.into_iter().map(Simulation::Before));
    }
    let jobs = std::sync::Arc::new(Jobs::new(
        std::sync::Arc::clone(&scenario),
        (!added.is_empty()).then(|| original.clone()),
        only,
        list,
    ));
    // A short story's runs are shared with the spare thread, if there is one: starting a
    // helper takes longer than they do. Not before the first frame, though (`opening`): the
    // spare is then kept idle, so as not to take a core from the threads that frame waits
    // for. Without a helper (none, or no thread could be made), this thread does every run.
    let helper = std::sync::Arc::clone(&jobs);
    if !is_short(&scenario) {
        let _ = std::thread::Builder::new().spawn(move || helper.work());
    } else if !opening {
        super::spare::lend(move || helper.work());
    }
    let first = showing.map(|d| {
        let run = scenario.simulate(d).map(|t| {
            let telling = told_here(only, d).then(|| {
                if opening {
                    scenario.tell_opening(&t, 0)
                } else {
                    scenario.tell(&t)
                }
            });
            (kept(only, t, d), telling)
        });
        (d, run)
    });
    jobs.work();
    let done = jobs.wait();
    // Each run in its design's place, so the first design that cannot be simulated is the
    // one said, as when they ran one after another.
    let mut told_first = None;
    let mut slots: Vec<Option<Simulated>> = Design::ALL.iter().map(|_| None).collect();
    let mut before: Vec<Option<Result<usize, SimError>>> =
        Design::ALL.iter().map(|_| None).collect();
    for result in done {
        match result {
            Done::Run(d, run) => slots[d.index()] = Some(*run),
            Done::Before(d, length) => before[d.index()] = Some(length),
        }
    }
    if let Some((d, run)) = first {
        slots[d.index()] = Some(run.map(|(kept, telling)| {
            told_first = telling.map(|t| (d, t));
            kept
        }));
    }
    let mut lengths = Vec::new();
    let traces = PerDesign::try_new(|d| {
        let (trace, length) = slots[d.index()]
            .take()
            .unwrap_or_else(|| unreachable!("every design is simulated once"))?;
        lengths.push(length);
        Ok(trace)
    })?;
    let before_what_ifs = if added.is_empty() {
        PerDesign::new(|d| lengths[d.index()])
    } else {
        PerDesign::try_new(|d| before[d.index()].take().unwrap_or(Ok(0)))?
    };
    let told = PerDesign::new(|_| std::sync::OnceLock::new());
    let mut opened = None;
    if let Some((d, telling)) = told_first {
        if opening {
            opened = Some(Opening {
                design: d,
                told: telling,
                spent: std::sync::atomic::AtomicBool::new(false),
            });
        } else {
            let _ = told[d].set(telling);
        }
    }
    Ok(Prepared {
        original,
        added,
        runs: std::sync::Arc::new(Runs {
            scenario,
            traces,
            told,
            repeats: PerDesign::new(|_| std::sync::OnceLock::new()),
            glossary: PerDesign::new(|_| std::sync::OnceLock::new()),
            glossary_ahead: PerDesign::new(|_| Default::default()),
            opening: opened,
            only,
        }),
        before_what_ifs,
        file: None,
        warning: None,
    })
}

/// Whether a story is short enough that simulating it under every design on one thread
/// takes less than starting another: its checkout's attempts (every intent and every rerun
/// of them, each as often as the layers' budget allows) number at most
/// [`SHORT_STORY_ATTEMPTS`].
fn is_short(scenario: &Scenario) -> bool {
    let config = &scenario.config;
    let intents =
        (config.intents.len().max(1) as u64).saturating_mul(1 + config.reruns.len() as u64);
    intents.saturating_mul(config.attempts_per_run()) <= SHORT_STORY_ATTEMPTS
}

/// The most attempts a story may make for its runs to be shared with the spare thread rather
/// than a new one (see [`is_short`]). Order 5531 can make a handful: with a new helper its
/// first frame came about 0.04 ms later (of 1.8) than with none; with the spare thread idle
/// until that frame is drawn, 0.03 ms sooner than with the spare thread sharing the runs.
const SHORT_STORY_ATTEMPTS: u64 = 256;

/// Whether `design`'s run is told, when a view wants `only` one.
fn told_here(only: Option<crate::sim::Design>, design: crate::sim::Design) -> bool {
    only.is_none_or(|o| o == design)
}

/// A design's run as it is kept: whole when it is told, its outcome alone when not.
fn kept(
    only: Option<crate::sim::Design>,
    trace: Trace,
    design: crate::sim::Design,
) -> (Trace, usize) {
    let length = trace.ticks.len();
    let trace = if told_here(only, design) {
        trace
    } else {
        trace.outcome_only()
    };
    (trace, length)
}

/// One simulation of [`prepare_telling`]'s that either thread may run.
#[derive(Clone, Copy)]
enum Simulation {
    /// A design's run of the story.
    Run(crate::sim::Design),
    /// A design's length without the what-ifs.
    Before(crate::sim::Design),
}

/// What a [`Simulation`] came to.
enum Done {
    Run(crate::sim::Design, Box<Simulated>),
    Before(crate::sim::Design, Result<usize, SimError>),
}

/// The simulations two threads share: each takes the next not yet taken, and puts what it
/// came to in its place; a panic is kept to be raised on the thread that waits. One runs at a
/// time, the taker holding `progress` (a long run's trace is large: with the design shown, at
/// most two are held at once).
struct Jobs {
    scenario: std::sync::Arc<Scenario>,
    original: Option<Scenario>,
    only: Option<crate::sim::Design>,
    list: Vec<Simulation>,
    progress: std::sync::Mutex<Progress>,
    finished: std::sync::Condvar,
}

/// How far [`Jobs`] have come: the next to take, and what each taken one came to.
struct Progress {
    next: usize,
    done: Vec<Option<std::thread::Result<Done>>>,
}

impl Jobs {
    /// `list` to run on `scenario` (on `original` for the lengths before the what-ifs).
    fn new(
        scenario: std::sync::Arc<Scenario>,
        original: Option<Scenario>,
        only: Option<crate::sim::Design>,
        list: Vec<Simulation>,
    ) -> Jobs {
        let progress = Progress {
            next: 0,
            done: list.iter().map(|_| None).collect(),
        };
        Jobs {
            scenario,
            original,
            only,
            list,
            progress: std::sync::Mutex::new(progress),
            finished: std::sync::Condvar::new(),
        }
    }

    /// Runs jobs until none is left to take.
    fn work(&self) {
        loop {
            let mut progress = self.progress.lock().unwrap_or_else(|e| e.into_inner());
            let i = progress.next;
            let Some(job) = self.list.get(i).copied() else {
                return;
            };
            progress.next += 1;
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run(job)));
            progress.done[i] = Some(result);
            // Only the last wakes the thread that waits for them all.
            if progress.done.iter().all(Option::is_some) {
                self.finished.notify_all();
            }
        }
    }

    fn run(&self, job: Simulation) -> Done {
        match job {
            Simulation::Run(d) => Done::Run(
                d,
                Box::new(self.scenario.simulate(d).map(|t| kept(self.only, t, d))),
            ),
            Simulation::Before(d) => {
                let of = self.original.as_ref().unwrap_or(&self.scenario);
                Done::Before(d, of.simulate(d).map(|t| t.ticks.len()))
            }
        }
    }

    /// Every job's outcome, once all are done; a panic in one is raised here.
    fn wait(&self) -> Vec<Done> {
        let mut progress = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        while progress.done.iter().any(Option::is_none) {
            progress = self
                .finished
                .wait(progress)
                .unwrap_or_else(|e| e.into_inner());
        }
        progress
            .done
            .drain(..)
            .flatten()
            .map(|result| result.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    }
}

/// A design's run kept for the screen, with its length in ticks before anything was shed.
type Simulated = Result<(Trace, usize), SimError>;

/// Up to which tick the glossary's marks are found by searching only the ticks before, while
/// the whole story has not been searched: a story's first frame (at its first tick) from a
/// search of that tick alone, a later early tick from one of the first 512, and beyond them
/// the whole story at once.
const GLOSSARY_SEARCHED_AHEAD_UP_TO: [usize; 2] = [1, 512];

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

#[cfg(test)]
mod tests {
    use super::{Done, Jobs, Simulation};
    use crate::sim::Design;

    /// Every built-in story's runs go to the spare thread, already running, once the first
    /// frame is drawn (before it, the screen's thread runs them); a storm of thousands of
    /// attempts has a helper of its own.
    #[test]
    fn a_short_story_is_lent_to_the_spare_thread_and_a_storm_has_a_helper() {
        for builtin in crate::scenario::library::BUILTIN {
            match builtin.load() {
                Ok(s) => assert!(super::is_short(&s), "{}", builtin.name),
                Err(e) => panic!("{}: {e}", builtin.name),
            }
        }
        let storm = "title = \"Storm\"\n[[checkout.layer]]\nattempts = 10\n\
            [[checkout.layer]]\nattempts = 12\nbackoff = \"1m\"\n\
            [[checkout.layer]]\nattempts = 100\nbackoff = \"1h\"\n\
            [[intent]]\norder = \"1\"\nkey = \"K1\"\namount = \"$1.00\"\nat = \"10:00:00\"\n";
        match crate::scenario::parse("storm", "storm", storm) {
            Ok(s) => assert!(!super::is_short(&s)),
            Err(e) => panic!("{e}"),
        }
    }

    /// Order 5531's runs under every design and before the what-ifs, and each one's length.
    fn order_5531_jobs() -> (Jobs, Vec<usize>) {
        let scenario = match crate::scenario::library::BUILTIN[0].load() {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        let expected: Vec<usize> = Design::ALL
            .into_iter()
            .map(|d| scenario.simulate(d).map_or(0, |t| t.ticks.len()))
            .collect();
        let list: Vec<Simulation> = Design::ALL
            .into_iter()
            .map(Simulation::Run)
            .chain(Design::ALL.into_iter().map(Simulation::Before))
            .collect();
        let jobs = Jobs::new(
            std::sync::Arc::new(scenario.clone()),
            Some(scenario),
            None,
            list,
        );
        (jobs, expected)
    }

    /// Each run came to what simulating its design gives, and every one is there once.
    fn assert_every_run_once(done: Vec<Done>, expected: &[usize]) {
        assert_eq!(done.len(), 2 * Design::ALL.len());
        for result in done {
            match result {
                Done::Run(d, run) => {
                    let length = (*run).map(|(trace, length)| {
                        assert_eq!(trace.ticks.len(), length);
                        length
                    });
                    assert_eq!(length.ok(), Some(expected[d.index()]), "{d:?}");
                }
                Done::Before(d, length) => {
                    assert_eq!(length.ok(), Some(expected[d.index()]), "{d:?}")
                }
            }
        }
    }

    /// The runs a thread shares with a helper are all done by it when the helper never
    /// starts: it waits for no run nobody took.
    #[test]
    fn a_thread_alone_takes_every_run_and_waits_for_none() {
        let (jobs, expected) = order_5531_jobs();
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            jobs.work();
            let _ = send.send(jobs.wait());
        });
        match receive.recv_timeout(std::time::Duration::from_secs(20)) {
            Ok(done) => assert_every_run_once(done, &expected),
            Err(e) => panic!("the thread alone waited for a helper: {e}"),
        }
    }

    /// Shared with a helper that works beside it, as the spare thread does, every run is
    /// still done once and comes to the same.
    #[test]
    fn a_helper_beside_the_thread_shares_the_runs() {
        for _ in 0..20 {
            let (jobs, expected) = order_5531_jobs();
            let jobs = std::sync::Arc::new(jobs);
            let helper = std::sync::Arc::clone(&jobs);
            let beside = std::thread::spawn(move || helper.work());
            jobs.work();
            assert_every_run_once(jobs.wait(), &expected);
            assert!(beside.join().is_ok());
        }
    }
}
