//! Checks that every `[[quiz]]`, `[[note]]` and `[[narration]]` names a tick the story has.
//!
//! A target is looked for in the trace of every design, because the replay can show any of
//! them. It is an error when no design has the tick (the block would never be seen), and, for
//! a quiz or a note, a warning when some designs lack it (the room is not asked, the trainer
//! not prompted, under those). A narration that speaks to some designs only is how a trainer
//! comments on one design, so that is not worth a warning.

use super::diagnostic::Severity;
use super::values::did_you_mean;
use super::{NarrationTarget, Scenario, Scope};
use crate::sim::{ClockStyle, Design, Instant, Trace};
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// How much of the list of existing labels a message quotes.
const LABELS_SHOWN: usize = 300;
/// How many problems get the full message, with a suggestion and the labels there are.
const FULL_MESSAGES: usize = 50;
/// How many labels a misspelt one is compared with, at most.
const SUGGEST_FROM: usize = 5_000;

/// What kind of block names the tick, for messages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    Quiz,
    Note,
    Narration,
}

impl Block {
    /// The key of its blocks in the file.
    fn key(self) -> &'static str {
        match self {
            Block::Quiz => "quiz",
            Block::Note => "note",
            Block::Narration => "narration",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Block::Quiz => "[[quiz]]",
            Block::Note => "[[note]]",
            Block::Narration => "[[narration]]",
        }
    }
}

/// What one design's run offers a target: its labels, and when its last tick comes.
struct Run {
    design: Design,
    /// Every label, in the order of the ticks, once each.
    labels: Vec<String>,
    known: HashSet<String>,
    /// How many ticks carry each label.
    counts: HashMap<String, usize>,
    last: Option<(Instant, ClockStyle)>,
}

impl Run {
    /// The run of `trace`, whose labels the story module writes from `cfg`.
    fn new(cfg: &crate::sim::SimConfig, trace: &Trace) -> Run {
        let mut known = HashSet::new();
        let mut labels = Vec::new();
        let mut counts: HashMap<String, usize> = HashMap::new();
        // The labels alone: a check needs no narration.
        for label in crate::story::Telling::new(cfg, trace).take_labels() {
            *counts.entry(label.clone()).or_default() += 1;
            if known.insert(label.clone()) {
                labels.push(label);
            }
        }
        Run {
            design: trace.design,
            labels,
            known,
            counts,
            last: trace.ticks.last().map(|t| (t.at, trace.clock)),
        }
    }

    /// Whether the run has the tick: a tick with the label, or one at or after the time.
    fn has(&self, target: &NarrationTarget) -> bool {
        match target {
            NarrationTarget::Label(label) => self.known.contains(label),
            NarrationTarget::At(at) => self.last.is_some_and(|(last, _)| last >= *at),
        }
    }

    /// How many ticks of the run the target lands on: every tick with the label, or the one
    /// tick at or after the time.
    fn lands_on(&self, target: &NarrationTarget) -> usize {
        match target {
            NarrationTarget::Label(label) => self.counts.get(label).copied().unwrap_or(0),
            NarrationTarget::At(_) => usize::from(self.has(target)),
        }
    }
}

/// One block that names a tick, and the designs whose run lacks it.
struct Reach<'a> {
    block: Block,
    /// Its index among the blocks of its kind.
    index: usize,
    target: &'a NarrationTarget,
    span: &'a Range<usize>,
    /// The designs it is for whose run could be simulated: where it is looked for.
    wanted: Vec<Design>,
    /// Those of them whose run lacks the tick.
    missing: Vec<Design>,
    /// Whether its `designs` key lists some designs only.
    scoped: bool,
}

impl Reach<'_> {
    /// None of the designs it is for has its tick.
    fn nowhere(&self) -> bool {
        !self.wanted.is_empty() && self.missing.len() == self.wanted.len()
    }
}

/// Looks for every block's tick in the run of each design. A design whose run cannot be
/// simulated is left out (its own error is reported where it is run).
fn survey(scenario: &Scenario) -> (Vec<Reach<'_>>, Vec<Run>) {
    type Named<'a> = (
        Block,
        usize,
        &'a NarrationTarget,
        &'a Range<usize>,
        &'a Scope,
    );
    let targets: Vec<Named<'_>> = scenario
        .quizzes
        .iter()
        .enumerate()
        .map(|(i, q)| (Block::Quiz, i, &q.target, &q.target_span, &q.designs))
        .chain(
            scenario
                .notes
                .iter()
                .enumerate()
                .map(|(i, n)| (Block::Note, i, &n.target, &n.target_span, &n.designs)),
        )
        .chain(
            scenario
                .narration
                .iter()
                .enumerate()
                .map(|(i, n)| (Block::Narration, i, &n.target, &n.target_span, &n.designs)),
        )
        .collect();
    if targets.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let runs: Vec<Run> = Design::ALL
        .iter()
        .filter_map(|d| crate::sim::simulate(&scenario.config, *d).ok())
        .map(|trace| Run::new(&scenario.config, &trace))
        .collect();
    let reach = targets
        .into_iter()
        .map(|(block, index, target, span, designs)| {
            let mine = || runs.iter().filter(|r| designs.covers(r.design));
            Reach {
                block,
                index,
                target,
                span,
                wanted: mine().map(|r| r.design).collect(),
                missing: mine()
                    .filter(|r| !r.has(target))
                    .map(|r| r.design)
                    .collect(),
                scoped: designs.listed().is_some(),
            }
        })
        .collect();
    (reach, runs)
}

/// Every problem with the scenario's tick targets, as severity, span and message. Only the
/// first few, in the order of the file, get the full message: no more are shown, and a
/// suggestion costs a comparison with every label.
pub fn check(scenario: &Scenario) -> Vec<(Severity, Range<usize>, String)> {
    let (mut reach, runs) = survey(scenario);
    if runs.is_empty() {
        return Vec::new();
    }
    reach.sort_by_key(|r| r.span.start);
    let labels = distinct_labels(&runs);
    let start = scenario.start();
    let mut found = Vec::new();
    for r in reach {
        let full = found.len() < FULL_MESSAGES;
        let message = if let NarrationTarget::At(at) = r.target
            && *at < start
        {
            Some((
                Severity::Error,
                before_start(r.block, *at, start, scenario.config.clock),
            ))
        } else if r.nowhere() && r.scoped {
            Some((Severity::Error, nowhere_listed(&r, &runs, full)))
        } else if r.nowhere() {
            let message = match r.target {
                NarrationTarget::Label(label) if full => no_such_label(r.block, label, &labels),
                NarrationTarget::Label(label) => format!(
                    "no tick is labelled `{}` under any design",
                    crate::text::shorten(label, 60)
                ),
                NarrationTarget::At(_) => too_late(r.block, &runs),
            };
            Some((Severity::Error, message))
        } else if !r.missing.is_empty() && r.block != Block::Narration {
            Some((
                Severity::Warning,
                partly_missing(r.block, r.target, &r.missing, &r.wanted),
            ))
        } else {
            None
        };
        if let Some((severity, message)) = message {
            found.push((severity, r.span.clone(), message));
        }
    }
    found.extend(too_much_told(scenario, &runs));
    found
}

/// The narration blocks would tell more text than a story may hold under some design: the
/// error is at the text of the block that takes the total past the bound, under the design
/// where the total is largest.
fn too_much_told(scenario: &Scenario, runs: &[Run]) -> Option<(Severity, Range<usize>, String)> {
    let bound = super::MAX_TOLD_BYTES;
    let told = |run: &Run| -> usize {
        scenario
            .narration
            .iter()
            .map(|n| n.text.len().saturating_mul(run.lands_on(&n.target)))
            .fold(0, usize::saturating_add)
    };
    let (run, total) = runs
        .iter()
        .map(|r| (r, told(r)))
        .max_by_key(|(_, total)| *total)?;
    if total <= bound {
        return None;
    }
    let mut sum = 0usize;
    for n in &scenario.narration {
        let ticks = run.lands_on(&n.target);
        let own = n.text.len().saturating_mul(ticks);
        sum = sum.saturating_add(own);
        if sum > bound {
            let target = match &n.target {
                NarrationTarget::Label(label) => format!(
                    "the label `{}` matches {}",
                    crate::text::shorten(label, 60),
                    crate::story::plural(ticks, "tick")
                ),
                NarrationTarget::At(_) => "its time names 1 tick".to_string(),
            };
            return Some((
                Severity::Error,
                n.text_span.clone(),
                format!(
                    "the [[narration]] blocks would put {} of text on the ticks under {} (this text is {}, and {target}), more than the {} a story's narration may add in all; narrow the label so it lands on fewer ticks, or shorten the text",
                    bytes(total),
                    run.design.id(),
                    bytes(n.text.len()),
                    bytes(bound),
                ),
            ));
        }
    }
    None
}

/// A size in bytes for a message: `4.0 MiB (4,194,304 bytes)`, or `812 bytes`.
fn bytes(n: usize) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if n < 1024 * 1024 {
        return format!("{grouped} bytes");
    }
    format!("{:.1} MiB ({grouped} bytes)", n as f64 / (1024.0 * 1024.0))
}

/// The blocks whose tick no design reaches, each as its key in the file (`quiz`, `note`,
/// `narration`) and its index among the blocks of that key.
pub fn unreached(scenario: &Scenario) -> Vec<(&'static str, usize)> {
    let (reach, runs) = survey(scenario);
    if runs.is_empty() {
        return Vec::new();
    }
    reach
        .into_iter()
        .filter(Reach::nowhere)
        .map(|r| (r.block.key(), r.index))
        .collect()
}

/// No design has a tick with this label: suggest the nearest, and list those there are.
fn no_such_label(block: Block, label: &str, labels: &[&str]) -> String {
    let hint = did_you_mean(label, labels.iter().take(SUGGEST_FROM).copied())
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    format!(
        "no tick is labelled `{}` under any design{hint}, so this {} would never be seen; the labels are: {}",
        crate::text::shorten(label, 60),
        block.name(),
        list_labels(labels)
    )
}

/// A day written out that comes before the first purchase: no tick is at that moment, and
/// the block would silently wait on the first one.
fn before_start(block: Block, at: Instant, start: Instant, clock: ClockStyle) -> String {
    format!(
        "{} comes before the story starts (at {}), so no tick is at that time and this {} would stop on the first one; name a later day, or leave the day out for the first such time after the start",
        clock.format_short(at),
        clock.format_short(start),
        block.name()
    )
}

/// The time is after the last tick of every design.
fn too_late(block: Block, runs: &[Run]) -> String {
    let last = runs.iter().filter_map(|r| r.last).max_by_key(|(at, _)| *at);
    let ends = last.map_or_else(String::new, |(at, clock)| {
        format!(
            "; the story's last tick, under any design, is at {}",
            clock.format_short(at)
        )
    });
    format!(
        "no tick comes at or after this time under any design, so this {} would never be seen{ends}",
        block.name()
    )
}

/// Some designs never reach the tick: the block is seen only under the others.
fn partly_missing(
    block: Block,
    target: &NarrationTarget,
    missing: &[Design],
    wanted: &[Design],
) -> String {
    let what = match target {
        NarrationTarget::Label(label) => {
            format!("no tick is labelled `{}`", crate::text::shorten(label, 60))
        }
        NarrationTarget::At(_) => "no tick comes at or after this time".to_string(),
    };
    let seen = match block {
        Block::Quiz => "the room is not asked",
        _ => "the note is not shown",
    };
    let present: Vec<Design> = wanted
        .iter()
        .copied()
        .filter(|d| !missing.contains(d))
        .collect();
    format!(
        "under {}, {what}, so {seen} there; this {} is seen under {} only",
        and_list(missing),
        block.name(),
        and_list(&present)
    )
}

/// A block whose `designs` key lists designs none of which has its tick. The designs that do
/// have it are named; for a label, while `full`, the nearest label under the listed designs
/// and the labels there are follow.
fn nowhere_listed(r: &Reach<'_>, runs: &[Run], full: bool) -> String {
    let what = match r.target {
        NarrationTarget::Label(label) => {
            format!("no tick is labelled `{}`", crate::text::shorten(label, 60))
        }
        NarrationTarget::At(_) => "no tick comes at or after this time".to_string(),
    };
    let elsewhere: Vec<Design> = runs
        .iter()
        .filter(|run| !r.wanted.contains(&run.design) && run.has(r.target))
        .map(|run| run.design)
        .collect();
    let only = if elsewhere.is_empty() {
        String::new()
    } else {
        format!(
            "; {} {} it, but `designs` leaves {} out",
            and_list(&elsewhere),
            if elsewhere.len() == 1 { "has" } else { "have" },
            if elsewhere.len() == 1 {
                "that design"
            } else {
                "those"
            },
        )
    };
    let (near, labels) = match r.target {
        NarrationTarget::Label(label) if full => {
            let mut seen = HashSet::new();
            let labels: Vec<&str> = runs
                .iter()
                .filter(|run| r.wanted.contains(&run.design))
                .flat_map(|run| run.labels.iter())
                .map(String::as_str)
                .filter(|l| seen.insert(*l))
                .collect();
            let near = did_you_mean(label, labels.iter().take(SUGGEST_FROM).copied())
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            (
                near,
                format!("; the labels there are: {}", list_labels(&labels)),
            )
        }
        _ => (String::new(), String::new()),
    };
    let whom = if r.wanted.len() == 1 {
        "the design"
    } else {
        "the designs"
    };
    format!(
        "under {}, {whom} this {} is for, {what}{near}, so it would never be seen{only}{labels}",
        and_list(&r.wanted),
        r.block.name()
    )
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(designs: &[Design]) -> String {
    let ids: Vec<&str> = designs.iter().map(|d| d.id()).collect();
    crate::text::and_list(&ids)
}

/// Every label of every run, each once, in the order first met.
fn distinct_labels(runs: &[Run]) -> Vec<&str> {
    let mut seen = HashSet::new();
    runs.iter()
        .flat_map(|r| r.labels.iter())
        .map(String::as_str)
        .filter(|l| seen.insert(*l))
        .collect()
}

/// `` `a`, `b`, … and 40 more ``, kept short.
fn list_labels(labels: &[&str]) -> String {
    let mut out = String::new();
    let mut shown = 0;
    for label in labels {
        let item = format!("`{label}`");
        if !out.is_empty() && out.chars().count() + item.chars().count() > LABELS_SHOWN {
            break;
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(&item);
        shown += 1;
    }
    if shown < labels.len() {
        out.push_str(&format!(
            " and {} more (with the blocks that name no tick taken out, `idem run FILE --design all --json` gives every tick's `label`)",
            labels.len() - shown
        ));
    }
    out
}
