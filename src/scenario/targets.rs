//! Checks that every `[[quiz]]`, `[[note]]` and `[[narration]]` names a tick the story has.
//!
//! A target is looked for in the trace of every design, because the replay can show any of
//! them. It is an error when no design has the tick (the block would never be seen), and, for
//! a quiz or a note, a warning when some designs lack it (the room is not asked, the trainer
//! not prompted, under those). A narration that speaks to some designs only is how a trainer
//! comments on one design, so that is not worth a warning.

use super::diagnostic::Severity;
use super::values::did_you_mean;
use super::{NarrationTarget, Scenario};
use crate::sim::{Design, Trace};
use std::ops::Range;

/// How much of the list of existing labels a message quotes.
const LABELS_SHOWN: usize = 300;

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

/// One block that names a tick, and the designs whose trace lacks it.
struct Reach<'a> {
    block: Block,
    /// Its index among the blocks of its kind.
    index: usize,
    target: &'a NarrationTarget,
    span: &'a Range<usize>,
    missing: Vec<Design>,
}

/// Looks for every block's tick in the trace of each design. A design whose run cannot be
/// simulated is left out (its own error is reported where it is run).
fn survey(scenario: &Scenario) -> (Vec<Reach<'_>>, Vec<Trace>) {
    let targets: Vec<(Block, usize, &NarrationTarget, &Range<usize>)> = scenario
        .quizzes
        .iter()
        .enumerate()
        .map(|(i, q)| (Block::Quiz, i, &q.target, &q.target_span))
        .chain(
            scenario
                .notes
                .iter()
                .enumerate()
                .map(|(i, n)| (Block::Note, i, &n.target, &n.target_span)),
        )
        .chain(
            scenario
                .narration
                .iter()
                .enumerate()
                .map(|(i, n)| (Block::Narration, i, &n.target, &n.target_span)),
        )
        .collect();
    if targets.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let traces: Vec<Trace> = Design::ALL
        .iter()
        .filter_map(|d| crate::sim::simulate(&scenario.config, *d).ok())
        .collect();
    let reach = targets
        .into_iter()
        .map(|(block, index, target, span)| Reach {
            block,
            index,
            target,
            span,
            missing: traces
                .iter()
                .filter(|t| target.find(t).is_none())
                .map(|t| t.design)
                .collect(),
        })
        .collect();
    (reach, traces)
}

/// Every problem with the scenario's tick targets, as severity, span and message.
pub fn check(scenario: &Scenario) -> Vec<(Severity, Range<usize>, String)> {
    let (reach, traces) = survey(scenario);
    if traces.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for r in reach {
        let message = if r.missing.len() == traces.len() {
            let message = match r.target {
                NarrationTarget::Label(label) => no_such_label(r.block, label, &traces),
                NarrationTarget::At(_) => too_late(r.block, &traces),
            };
            Some((Severity::Error, message))
        } else if !r.missing.is_empty() && r.block != Block::Narration {
            Some((
                Severity::Warning,
                partly_missing(r.block, r.target, &r.missing, &traces),
            ))
        } else {
            None
        };
        if let Some((severity, message)) = message {
            found.push((severity, r.span.clone(), message));
        }
    }
    found
}

/// The blocks whose tick no design reaches, each as its key in the file (`quiz`, `note`,
/// `narration`) and its index among the blocks of that key.
pub fn unreached(scenario: &Scenario) -> Vec<(&'static str, usize)> {
    let (reach, traces) = survey(scenario);
    if traces.is_empty() {
        return Vec::new();
    }
    reach
        .into_iter()
        .filter(|r| r.missing.len() == traces.len())
        .map(|r| (r.block.key(), r.index))
        .collect()
}

/// No design has a tick with this label: suggest the nearest, and list those there are.
fn no_such_label(block: Block, label: &str, traces: &[Trace]) -> String {
    let labels = distinct_labels(traces);
    let hint = did_you_mean(label, labels.iter().map(String::as_str))
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    format!(
        "no tick is labelled `{}` under any design{hint}, so this {} would never be seen; the labels are: {}",
        crate::text::shorten(label, 60),
        block.name(),
        list_labels(&labels)
    )
}

/// The time is after the last tick of every design.
fn too_late(block: Block, traces: &[Trace]) -> String {
    let last = traces
        .iter()
        .filter_map(|t| t.ticks.last().map(|k| (k.at, t.clock)))
        .max_by_key(|(at, _)| *at);
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
    traces: &[Trace],
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
    let present: Vec<Design> = traces
        .iter()
        .map(|t| t.design)
        .filter(|d| !missing.contains(d))
        .collect();
    format!(
        "under {}, {what}, so {seen} there; this {} is seen under {} only",
        and_list(missing),
        block.name(),
        and_list(&present)
    )
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(designs: &[Design]) -> String {
    let ids: Vec<&str> = designs.iter().map(|d| d.id()).collect();
    match ids.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Every label of every trace, each once, in the order first met.
fn distinct_labels(traces: &[Trace]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for t in traces {
        for tick in &t.ticks {
            if seen.insert(tick.label.as_str()) {
                out.push(tick.label.clone());
            }
        }
    }
    out
}

/// `` `a`, `b`, … and 40 more ``, kept short.
fn list_labels(labels: &[String]) -> String {
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
            " and {} more (`idem run FILE --design all` prints them all)",
            labels.len() - shown
        ));
    }
    out
}
