//! The scenario file format: reading a TOML file safely, reporting every problem with its
//! position, and turning it into the engine's configuration.

mod convert;
pub mod diagnostic;
pub mod fork;
pub mod fork_toml;
pub mod library;
mod prescan;
mod schema;
pub mod targets;
pub mod traffic;
pub mod values;

pub use convert::{MAX_TICKS, TICKS_PER_ATTEMPT};
pub use diagnostic::{Diagnostic, ScenarioError, Severity};

use crate::sim::{Belief, Design, Instant, SimConfig, SimError, Trace, Verdict};
use crate::story::Told;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The largest scenario file read: far more than any real scenario needs.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// The most text, in bytes, a story's `[[narration]]` blocks may put on its ticks under one
/// design: each block's text counted once for every tick it lands on. A label can match
/// hundreds of ticks, so a file well under [`MAX_FILE_BYTES`] could otherwise tell gigabytes.
pub const MAX_TOLD_BYTES: usize = 4 * 1024 * 1024;
/// The longest message shown: a huge bad key is not echoed whole.
const MAX_MESSAGE: usize = 400;
/// The deepest nesting of arrays and inline tables accepted.
const MAX_NESTING: usize = 32;
/// The most parts a dotted key (`a.b.c`) may have.
const MAX_KEY_PARTS: usize = 32;

/// A scenario ready to simulate, with what the trainer wrote around it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scenario {
    /// The file stem or built-in name (`order-5531`).
    pub name: String,
    pub title: String,
    pub description: String,
    /// The design the replay opens with.
    pub design: Design,
    pub config: SimConfig,
    pub narration: Vec<NarrationRule>,
    pub expectations: Vec<Expectation>,
    pub quizzes: Vec<Quiz>,
    pub notes: Vec<Note>,
    /// Problems that do not stop the scenario from running.
    #[serde(skip)]
    pub warnings: Vec<Diagnostic>,
    /// The names written over the lanes.
    pub lanes: LaneNames,
    /// The file as written, so a fork can be saved as the original plus its added faults.
    pub text: String,
    /// How the file keys the story. `K`, `m` and `--key-strategy` change `config` and leave
    /// this as the file wrote it: a saved what-if writes what they changed, and a question
    /// knows when the story on screen is no longer the one it was written for.
    pub keying_as_written: crate::sim::config::Keying,
    /// Where the scenario came from.
    #[serde(skip, default = "Origin::made")]
    pub origin: Origin,
    /// The day of orders `idem traffic` runs this checkout through (`[traffic]`).
    pub traffic: traffic::TrafficPlan,
}

/// The names over the lanes of the customer, the checkout, the network and the processor:
/// their roles unless the scenario names the systems (`Mobile app`, `Payment service`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneNames {
    pub customer: String,
    pub checkout: String,
    pub network: String,
    pub processor: String,
    /// The checkout's layers, innermost first, when they are drawn as lanes of their own
    /// (`[lanes] layers = true`); empty when the checkout is one lane.
    pub layers: Vec<String>,
}

impl Default for LaneNames {
    fn default() -> LaneNames {
        LaneNames {
            customer: crate::sim::Actor::Customer.name().to_string(),
            checkout: crate::sim::Actor::Checkout.name().to_string(),
            network: crate::sim::Actor::Network.name().to_string(),
            processor: crate::sim::Actor::Processor.name().to_string(),
            layers: Vec::new(),
        }
    }
}

impl LaneNames {
    /// The longest name a lane may carry, in characters.
    pub const MAX: usize = 24;

    /// The name over `actor`'s lane; a downstream service keeps its own.
    pub fn of(&self, actor: crate::sim::Actor) -> &str {
        use crate::sim::Actor;
        match actor {
            Actor::Customer => &self.customer,
            Actor::Checkout => &self.checkout,
            Actor::Network => &self.network,
            Actor::Processor => &self.processor,
            other => other.name(),
        }
    }

    /// The checkout layer a tick stands on when the layers are drawn apart (0 the innermost):
    /// an outer layer's own deadline on that layer; what ends or restarts the whole run, the
    /// shop's own steps after it and its night job (the comparison, each refund, each order
    /// marked paid, each alert), on the outermost, the shop's side; sending, hearing and
    /// waiting on the innermost, which does them. `None` for another actor's tick, or one
    /// checkout lane.
    pub fn layer_of(&self, tick: &crate::sim::Tick) -> Option<usize> {
        use crate::sim::fact::Fact;
        if tick.actor != crate::sim::Actor::Checkout || self.layers.len() < 2 {
            return None;
        }
        let top = self.layers.len() - 1;
        Some(match &tick.fact {
            Fact::Deadline { layer, .. } => (*layer).min(top),
            Fact::GaveUp { .. }
            | Fact::Rerun { .. }
            | Fact::Reconcile { .. }
            | Fact::Refund { .. }
            | Fact::MarkPaid { .. }
            | Fact::ShippedUnpaid
            | Fact::CallSent { .. }
            | Fact::CallRead { .. }
            | Fact::CallLate { .. }
            | Fact::CallTimedOut { .. } => top,
            _ => 0,
        })
    }

    /// The name over the lane a tick stands on: its layer's, when the layers are drawn apart.
    pub fn of_tick(&self, tick: &crate::sim::Tick) -> &str {
        match self.layer_of(tick) {
            Some(layer) => &self.layers[layer],
            None => self.of(tick.actor),
        }
    }

    /// The name in a narrow lane: a role's short form, or a system's first word.
    pub fn short(&self, actor: crate::sim::Actor, role: &'static str) -> String {
        let name = self.of(actor);
        if name == actor.name() {
            return role.to_string();
        }
        name.split_whitespace().next().unwrap_or(name).to_string()
    }
}

/// Where a scenario came from: what can reopen it, and whether a file is there to watch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Read from this file, by its real name.
    File(PathBuf),
    /// One of the scenarios built into idem, by name.
    BuiltIn(&'static str),
    /// Made from text that is in no file: a stack turned into a purchase, the presenter's
    /// story as sent to the notes, a starter. It lives only in this session.
    Made,
}

impl Origin {
    /// [`Origin::Made`], for what is read without saying where it came from.
    fn made() -> Origin {
        Origin::Made
    }

    /// The file to watch, if the scenario has one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Origin::File(path) => Some(path),
            Origin::BuiltIn(_) | Origin::Made => None,
        }
    }
}

/// A prediction checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quiz {
    pub target: NarrationTarget,
    /// Where the file names the tick (its `label` or `at` value), for reports.
    pub target_span: std::ops::Range<usize>,
    pub question: String,
    pub choices: Vec<String>,
    pub answer: QuizAnswer,
    pub explanation: Explanation,
    /// The designs the room is asked under (every design unless the file lists some).
    pub designs: Scope,
}

/// The designs a `[[quiz]]`, `[[note]]` or `[[narration]]` is for: every design, unless its
/// `designs` key lists some.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope(Option<Vec<Design>>);

impl Scope {
    /// Every design: what a block without `designs` is for.
    pub fn every() -> Scope {
        Scope(None)
    }

    /// These designs only, each once, in the order given (the file's order); none at all is
    /// read as every design, since the file refuses an empty list.
    pub fn only(designs: &[Design]) -> Scope {
        let mut listed: Vec<Design> = Vec::new();
        for d in designs {
            if !listed.contains(d) {
                listed.push(*d);
            }
        }
        if listed.is_empty() {
            Scope(None)
        } else {
            Scope(Some(listed))
        }
    }

    /// Whether the block applies under this design.
    pub fn covers(&self, design: Design) -> bool {
        self.0
            .as_ref()
            .is_none_or(|listed| listed.contains(&design))
    }

    /// The designs listed, or `None` when the block is for every design.
    pub fn listed(&self) -> Option<&[Design]> {
        self.0.as_deref()
    }
}

/// What a quiz says once answered: one text for every design, or a text per design (the one
/// shown follows the design on screen), with `other` for the designs the table leaves out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// The texts written for particular designs.
    pub by_design: Vec<(Design, String)>,
    /// The text for every other design (the whole explanation when it is one string).
    pub other: String,
}

impl Explanation {
    /// One text for every design.
    pub fn same(text: &str) -> Explanation {
        Explanation {
            by_design: Vec::new(),
            other: text.to_string(),
        }
    }

    /// The text for a design: its own, else the one for every other design.
    pub fn for_design(&self, design: Design) -> &str {
        self.by_design
            .iter()
            .find(|(d, _)| *d == design)
            .map_or(self.other.as_str(), |(_, text)| text.as_str())
    }

    /// Whether the text differs from one design to another.
    pub fn varies(&self) -> bool {
        !self.by_design.is_empty()
    }
}

/// The most choices a question shows: one number key each.
pub const MAX_CHOICES: usize = 9;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum QuizAnswer {
    /// This choice (0-based) is right whatever the design.
    Choice(usize),
    /// The choice whose index equals the number of charges the run ends with.
    Charges,
}

impl Quiz {
    /// The tick the replay stops on in this run: `None` when no tick fits, or when the run's
    /// design is not one the question is asked under.
    pub fn tick(&self, trace: &Trace, told: &Told) -> Option<usize> {
        self.designs
            .covers(trace.design)
            .then(|| self.target.find(trace, told))
            .flatten()
    }

    /// The choices the room is shown, when the runs of this scenario end with at most `most`
    /// charges. With `answer = "charges"` the list grows to reach that count, so every run's
    /// answer is among the choices (the same list under every design, so it gives nothing
    /// away); past [`MAX_CHOICES`] the last one reads "or more".
    pub fn shown_choices(&self, most: usize) -> Vec<String> {
        let mut choices = self.choices.clone();
        if self.answer == QuizAnswer::Charges {
            let want = (most + 1).min(MAX_CHOICES);
            for n in choices.len()..want {
                let mut label = crate::story::times_word(n);
                if let Some(first) = label.get(..1) {
                    label = first.to_uppercase() + &label[1..];
                }
                if n + 1 == MAX_CHOICES && most >= MAX_CHOICES {
                    label.push_str(" or more");
                }
                choices.push(label);
            }
        }
        choices
    }

    /// The right choice (0-based) for a trace, among the choices shown when the scenario's
    /// runs end with at most `most` charges; `None` when no choice fits the run.
    pub fn correct(&self, trace: &Trace, most: usize) -> Option<usize> {
        let shown = self.shown_choices(most).len();
        match self.answer {
            QuizAnswer::Choice(i) => (i < shown).then_some(i),
            QuizAnswer::Charges => {
                let charges = trace.outcome.charges;
                if charges < shown {
                    Some(charges)
                } else if shown == MAX_CHOICES && self.choices.len() < MAX_CHOICES {
                    // The last choice grown is "or more".
                    Some(shown - 1)
                } else {
                    None
                }
            }
        }
    }
}

/// The most charges any of these runs ends with: how far a `"charges"` question's choices grow.
pub fn most_charges<'a>(traces: impl IntoIterator<Item = &'a Trace>) -> usize {
    traces
        .into_iter()
        .map(|t| t.outcome.charges)
        .max()
        .unwrap_or(0)
}

/// The trainer's notes for a tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub target: NarrationTarget,
    /// Where the file names the tick (its `label` or `at` value), for reports.
    pub target_span: std::ops::Range<usize>,
    pub text: String,
    /// The designs the note is shown under.
    pub designs: Scope,
}

impl Note {
    /// The tick the note is for in this run, if its design is one the note is for.
    pub fn tick(&self, trace: &Trace, told: &Told) -> Option<usize> {
        self.designs
            .covers(trace.design)
            .then(|| self.target.find(trace, told))
            .flatten()
    }
}

impl NarrationTarget {
    /// The first tick this target names: by label, or the first tick at or after the time.
    pub fn find(&self, trace: &Trace, told: &Told) -> Option<usize> {
        match self {
            NarrationTarget::Label(label) => told.labels.iter().position(|l| l == label),
            NarrationTarget::At(at) => trace.ticks.iter().position(|t| t.at >= *at),
        }
    }
}

/// The trainer's own words for a tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NarrationRule {
    pub target: NarrationTarget,
    /// Where the file names the tick (its `label` or `at` value), for reports.
    pub target_span: std::ops::Range<usize>,
    /// Shared by every tick the block lands on: a label that matches thousands of ticks holds
    /// its text once.
    pub text: std::sync::Arc<str>,
    /// Where the file writes the text, for reports.
    pub text_span: std::ops::Range<usize>,
    pub mode: NarrationMode,
    /// The designs whose story carries these words.
    pub designs: Scope,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum NarrationTarget {
    /// Every tick with exactly this label.
    Label(String),
    /// The first tick at this time.
    At(Instant),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NarrationMode {
    Replace,
    Append,
}

/// What a design must produce on this scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expectation {
    pub design: Design,
    pub charges: Option<usize>,
    pub verdict: Option<Verdict>,
    pub client: Option<Belief>,
    /// Refunds the reconciliation makes (only with a `[reconcile]`).
    pub refunds: Option<usize>,
    /// The checkout keyed this way for this expectation (what `K` shows in the replay).
    pub key_strategy: Option<crate::sim::config::KeyStrategy>,
    /// The steps after payment keyed this way (what `m` shows).
    pub step_keys: Option<crate::sim::config::KeyMode>,
    /// Where the `[[expect]]` block starts, for reports.
    pub line: usize,
}

impl Scenario {
    /// The scenario with its keys changed as `K` (the checkout's strategy, every layer alike)
    /// and `m` (the steps after payment) change them; an error when `step_keys` is given to a
    /// scenario with no steps.
    pub fn rekeyed(
        &self,
        key_strategy: Option<crate::sim::config::KeyStrategy>,
        step_keys: Option<crate::sim::config::KeyMode>,
    ) -> Result<Scenario, &'static str> {
        let mut s = self.clone();
        if let Some(mode) = step_keys {
            if s.config.steps.is_empty() {
                return Err(
                    "--step-keys keys the steps after payment, and this scenario has no [[step]]",
                );
            }
            for step in &mut s.config.steps {
                step.key_mode = mode;
            }
        }
        if let Some(strategy) = key_strategy {
            s.config.set_key_strategy(strategy);
        }
        Ok(s)
    }

    /// When the story starts: the first purchase.
    pub fn start(&self) -> Instant {
        self.config.intents.first().map_or(Instant(0), |i| i.at)
    }

    /// The instant a time written in the file or typed by the reader names, read the one way
    /// every time is read: the first such moment at or after the start.
    pub fn instant_of(&self, clock: values::ClockTime) -> Instant {
        clock.first_at_or_after(self.start())
    }

    /// Simulates the scenario under one design.
    pub fn simulate(&self, design: Design) -> Result<Trace, SimError> {
        crate::sim::simulate(&self.config, design)
    }

    /// Simulates the scenario under one design and tells it.
    pub fn run(&self, design: Design) -> Result<crate::story::Story, SimError> {
        let trace = self.simulate(design)?;
        let told = self.tell(&trace);
        Ok(crate::story::Story { trace, told })
    }

    /// The last tick a question of this scenario stops on in `trace`: hindsight waits until
    /// after it.
    fn last_question(&self, trace: &Trace, told: &Told) -> Option<usize> {
        self.quizzes
            .iter()
            .filter_map(|q| q.tick(trace, told))
            .max()
    }

    /// Each tick the trainer's `[[narration]]` blocks land on in `trace`, with its block, in
    /// the order they apply: the blocks in file order, a label's ticks in time order.
    fn narration_edits(&self, trace: &Trace, labels: &[String]) -> Vec<(usize, &NarrationRule)> {
        let mut by_label: std::collections::HashMap<&str, Vec<usize>> =
            std::collections::HashMap::new();
        if self
            .narration
            .iter()
            .any(|r| matches!(r.target, NarrationTarget::Label(_)))
        {
            for (i, label) in labels.iter().enumerate() {
                by_label.entry(label.as_str()).or_default().push(i);
            }
        }
        let mut edits: Vec<(usize, &NarrationRule)> = Vec::new();
        for rule in self
            .narration
            .iter()
            .filter(|r| r.designs.covers(trace.design))
        {
            match &rule.target {
                NarrationTarget::Label(label) => edits.extend(
                    by_label
                        .get(label.as_str())
                        .into_iter()
                        .flatten()
                        .map(|&i| (i, rule)),
                ),
                NarrationTarget::At(at) => {
                    if let Some(i) = trace.ticks.iter().position(|t| t.at >= *at) {
                        edits.push((i, rule));
                    }
                }
            }
        }
        edits
    }

    /// Hands each tick's label and narration, exactly as [`Scenario::tell`] gives them, to
    /// `each` in tick order, keeping none: a writer that needs each tick's words once holds
    /// one tick's at a time, not the story's. The last argument says whether the trainer's
    /// words are part of the narration.
    pub fn tell_each(&self, trace: &Trace, mut each: impl FnMut(usize, &str, &str, bool)) {
        let mut telling = crate::story::Telling::new(&self.config, trace);
        let labels_only = Told {
            labels: telling.take_labels(),
            ..Told::default()
        };
        if let Some(q) = self.last_question(trace, &labels_only) {
            telling.hold_back_through(q);
        }
        let mut edits = self.narration_edits(trace, &labels_only.labels);
        // Stable: blocks on one tick keep the order they apply in.
        edits.sort_by_key(|(i, _)| *i);
        let mut next_edit = edits.iter().peekable();
        for (i, label) in labels_only.labels.iter().enumerate() {
            let mut narration = crate::story::claim::join(&telling.sentences(i));
            let mut own = false;
            while let Some((_, rule)) = next_edit.next_if(|(at, _)| *at == i) {
                own = true;
                match rule.mode {
                    NarrationMode::Replace => narration = rule.text.to_string(),
                    NarrationMode::Append => {
                        narration.push(' ');
                        narration.push_str(&rule.text);
                    }
                }
            }
            each(i, label, &narration, own);
        }
    }

    /// What `K`, `m`, `--key-strategy` or `--step-keys` changed of the keys the file writes,
    /// in words; empty while the story is keyed as written.
    pub fn keys_changed(&self) -> Vec<&'static str> {
        let (now, written) = (self.config.keying(), &self.keying_as_written);
        let mut changes = Vec::new();
        if now.checkout_differs(written) {
            changes.push("the checkout's keys");
        }
        if now.steps_differ(written) {
            changes.push("the steps' keys");
        }
        changes
    }

    /// The words for a trace of this scenario, with the trainer's own narration applied.
    pub fn tell(&self, trace: &Trace) -> Told {
        self.told_with_own_words(trace, crate::story::tell(&self.config, trace), usize::MAX)
    }

    /// As [`Scenario::tell`], but the narration (with its sentences and the shorter arrow
    /// labels) of the ticks up to `through` alone, the others' left empty: what a frame of
    /// those ticks reads (see [`crate::story::tell_opening`]).
    pub fn tell_opening(&self, trace: &Trace, through: usize) -> Told {
        let told = crate::story::tell_opening(&self.config, trace, through);
        self.told_with_own_words(trace, told, through)
    }

    /// `told`, the engine's words for `trace` with the narration of the ticks up to `through`,
    /// with hindsight held back until the questions are asked and the trainer's own words
    /// applied.
    fn told_with_own_words(&self, trace: &Trace, mut told: Told, through: usize) -> Told {
        // Hindsight waits for the questions: the ticks up to the last one are told as if the
        // story ended there, so no word of theirs is chosen from what happens later.
        if let Some(q) = self.last_question(trace, &told) {
            let before = crate::story::tell_before(&self.config, trace, q, through);
            for (i, sentences) in before.into_iter().enumerate() {
                told.narrations[i] = crate::story::claim::join(&sentences);
                told.sentences[i] = sentences;
            }
        }
        if self.narration.is_empty() {
            return told;
        }
        for (i, rule) in self.narration_edits(trace, &told.labels) {
            if let Err(at) = told.rewritten.binary_search(&i) {
                told.rewritten.insert(at, i);
            }
            let narration = (i <= through).then(|| &mut told.narrations[i]);
            let own = &mut told.trainer[i];
            match rule.mode {
                NarrationMode::Replace => {
                    if let Some(narration) = narration {
                        *narration = rule.text.to_string();
                    }
                    *own = Some(std::sync::Arc::clone(&rule.text));
                }
                NarrationMode::Append => {
                    if let Some(narration) = narration {
                        narration.push(' ');
                        narration.push_str(&rule.text);
                    }
                    *own = Some(match own.take() {
                        Some(before) => format!("{before} {}", rule.text).into(),
                        None => std::sync::Arc::clone(&rule.text),
                    });
                }
            }
        }
        told
    }
}

/// Reads a scenario from TOML text; `file` names it in messages.
pub fn parse(file: &str, name: &str, source: &str) -> Result<Scenario, ScenarioError> {
    parse_surveyed(file, name, source, Survey::Every)
}

/// Whether reading a scenario simulates it under every design to find the ticks its
/// questions, notes and narrations name, and warns of those some design lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Survey {
    /// Any file a person wrote.
    Every,
    /// A built-in scenario: its survey finds nothing and its shape is within bounds, which
    /// a test holds for every one of them, so checking either at every start would only
    /// delay the first frame.
    Done,
}

/// [`parse`], surveying the ticks and checking the shape, or not.
pub(crate) fn parse_surveyed(
    file: &str,
    name: &str,
    source: &str,
    survey: Survey,
) -> Result<Scenario, ScenarioError> {
    if survey == Survey::Every {
        check_shape(file, source)?;
    }
    let parsed: schema::File = toml::from_str(source).map_err(|e| ScenarioError {
        file: file.to_string(),
        diagnostics: vec![toml_diagnostic(source, &e)],
    })?;
    convert::convert(name, source, parsed, survey).map_err(|diagnostics| ScenarioError {
        file: file.to_string(),
        diagnostics,
    })
}

/// Refuses TOML nested deeper, or with dotted keys longer, than any file of idem's needs,
/// before the TOML reader sees it.
pub fn check_shape(file: &str, source: &str) -> Result<(), ScenarioError> {
    let too_much = prescan::too_deep(source, MAX_NESTING)
        .map(|offset| {
            (
                offset,
                format!(
                    "arrays and tables nest deeper than {MAX_NESTING} levels here; a scenario never needs that"
                ),
            )
        })
        .or_else(|| {
            prescan::too_many_key_parts(source, MAX_KEY_PARTS).map(|offset| {
                (
                    offset,
                    format!(
                        "this dotted key has more than {MAX_KEY_PARTS} parts; a scenario's keys have at most three (checkout.layer.attempts)"
                    ),
                )
            })
        });
    match too_much {
        Some((offset, message)) => Err(ScenarioError {
            file: file.to_string(),
            diagnostics: vec![Diagnostic::at(
                Severity::Error,
                source,
                offset..offset + 1,
                message,
            )],
        }),
        None => Ok(()),
    }
}

/// Reads a scenario file, refusing what is not a small UTF-8 text file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let (file, source) = read_text(path, MAX_FILE_BYTES, "a scenario file")?;
    let name = path
        .file_stem()
        .map(|s| crate::text::sanitize_line(&s.to_string_lossy()))
        .unwrap_or_else(|| "scenario".to_string());
    let mut scenario = parse(&file, &name, &source)?;
    scenario.origin = Origin::File(path.to_path_buf());
    Ok(scenario)
}

/// Reads a small UTF-8 text file of idem's (`what` names the kind in messages): its name as
/// messages show it, and its text. Not a regular file, more than `limit` bytes, or not UTF-8
/// (pointed at, line and column) are refused.
pub fn read_text(path: &Path, limit: u64, what: &str) -> Result<(String, String), ScenarioError> {
    let file = crate::text::sanitize_line(&path.display().to_string());
    let bytes = crate::bounded_read::read_regular_file(path, limit).map_err(|e| {
        let hint = match e {
            crate::bounded_read::ReadError::NotAFile(_) => format!("; expected {what} (.toml)"),
            crate::bounded_read::ReadError::TooLarge { .. } => {
                format!("; {what} never needs that much")
            }
            _ => String::new(),
        };
        ScenarioError::whole(&file, format!("{e}{hint}"))
    })?;
    match String::from_utf8(bytes) {
        Ok(s) => match s.find('\0') {
            // Valid UTF-8, yet no text: NUL bytes are what a binary file, or a disk that lost
            // a write, is full of. Pointed at the first one, which the file does hold.
            Some(at) => Err(ScenarioError {
                file: file.clone(),
                diagnostics: vec![Diagnostic::at(
                    Severity::Error,
                    &s,
                    at..at + 1,
                    format!(
                        "the file holds NUL bytes ({} of its {} bytes), first here: it is not a text file; expected {what} (.toml)",
                        s.bytes().filter(|&b| b == 0).count(),
                        s.len()
                    ),
                )],
            }),
            None => Ok((file, s)),
        },
        Err(e) => {
            let good = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            // Point at the first bad byte, counted in the lossy text up to it.
            let prefix = String::from_utf8_lossy(&e.as_bytes()[..good]).len();
            Err(ScenarioError {
                file: file.clone(),
                diagnostics: vec![Diagnostic::at(
                    Severity::Error,
                    &text,
                    prefix..prefix + 1,
                    "the file is not valid UTF-8 here; save it as UTF-8 text".into(),
                )],
            })
        }
    }
}

/// Turns a TOML or schema error into a diagnostic, with a suggestion for a misspelt key.
pub fn toml_diagnostic(source: &str, e: &toml::de::Error) -> Diagnostic {
    let mut message = crate::text::sanitize_line(e.message().trim());
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((field, expected)) = rest.split_once('`')
    {
        let options: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        if source
            .lines()
            .any(|l| l.trim_start().starts_with("[[section]]"))
        {
            // A session file opened as a scenario.
            message = format!(
                "{message}; this looks like a session file, which `idem present FILE` plays"
            );
        } else if let Some(s) = values::did_you_mean(field, options.iter().copied()) {
            message = format!("{message} (did you mean `{s}`?)");
        }
    }
    message = plain_type_error(message);
    let message = crate::text::shorten(&message, MAX_MESSAGE);
    match e.span() {
        Some(span) => Diagnostic::at(Severity::Error, source, span, message),
        None => Diagnostic::whole(Severity::Error, message),
    }
}

/// serde's `invalid type: integer `3`, expected a string`, in the words of the format.
fn plain_type_error(message: String) -> String {
    let Some(rest) = message.strip_prefix("invalid type: ") else {
        return message;
    };
    let Some((got, expected)) = rest.split_once(", expected ") else {
        return message;
    };
    // A bare TOML date or time reaches the schema as a table.
    let got = got.replace('`', "");
    let got = if got == "map" {
        "a table or an unquoted date or time".to_string()
    } else if got == "sequence" {
        "a list".to_string()
    } else if let Some(n) = got
        .strip_prefix("integer ")
        .or(got.strip_prefix("floating point "))
    {
        format!("the number {n}")
    } else if let Some(text) = got.strip_prefix("string ") {
        format!("the text {text}")
    } else {
        got.strip_prefix("boolean ").unwrap_or(&got).to_string()
    };
    match expected {
        "a string" if got.starts_with("a table or") => format!(
            "this is text and goes in quotes, not {got}; write times and dates in quotes too, such as at = \"14:02:07\""
        ),
        "a string" => format!("this is text and goes in quotes, like \"…\", not {got}"),
        "a boolean" => format!("this is true or false, not {got}"),
        "a sequence" => format!("this is a list in brackets, like [\"…\", \"…\"], not {got}"),
        _ => message,
    }
}

/// Finds a scenario by path, or by the name of a built-in one (`reply-lost`).
pub fn resolve(arg: &str) -> Result<Scenario, ScenarioError> {
    resolve_os(std::ffi::OsStr::new(arg))
}

/// [`resolve`] for a command-line argument, which need not be UTF-8: a file is opened by its
/// own bytes, and its name is only shown (lossily) in messages.
pub fn resolve_os(arg: &std::ffi::OsStr) -> Result<Scenario, ScenarioError> {
    let path = Path::new(arg);
    if path.exists() {
        return load(path);
    }
    let Some(arg) = arg.to_str() else {
        // No built-in has such a name.
        return Err(ScenarioError::whole(
            &crate::text::sanitize_line(&arg.to_string_lossy()),
            "no such file".to_string(),
        ));
    };
    let stem = arg.strip_suffix(".toml").unwrap_or(arg);
    let stem = stem.rsplit('/').next().unwrap_or(stem);
    if let Some(builtin) = library::find(stem)
        && !arg.contains('/')
    {
        return builtin.load();
    }
    let shown = crate::text::sanitize_line(arg);
    let hint = values::did_you_mean(stem, library::BUILTIN.iter().map(|b| b.name))
        .map(|s| format!(" (did you mean the built-in `{s}`?)"))
        .unwrap_or_default();
    Err(ScenarioError::whole(
        &shown,
        format!(
            "no such file, and no built-in scenario by that name{hint}; `idem list` shows the built-in ones"
        ),
    ))
}
