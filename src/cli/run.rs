//! `idem run`: replays a scenario without the terminal UI, as text or JSON.

use super::json::RunJson;
use crate::scenario::Scenario;
use crate::scenario::values::DesignChoice;
use crate::sim::{Design, Trace};
use crate::story::glossary;
use crate::story::outcome::{headline, intent_line, reconcile_line, verdict_meaning};
use anyhow::{Context, Result};
use std::fmt::Write;

/// Simulates and renders; the returned text is what the command prints.
pub fn run(scenario: &Scenario, choice: &DesignChoice, json: bool) -> Result<String> {
    if json {
        let mut out = Vec::new();
        run_json(scenario, choice, &mut out)?;
        return String::from_utf8(out).context("the JSON is not UTF-8");
    }
    let designs: Vec<Design> = match choice {
        DesignChoice::One(d) => vec![*d],
        DesignChoice::All => Design::ALL.to_vec(),
    };
    // A table of every design's outcome keeps each run's outcome alone: six long runs held
    // whole at once would cost six times the memory of one.
    let traces = designs
        .iter()
        .map(|d| {
            let trace = scenario
                .simulate(*d)
                .with_context(|| format!("simulating {}", scenario.name))?;
            Ok(match choice {
                DesignChoice::One(_) => trace,
                DesignChoice::All => trace.outcome_only(),
            })
        })
        .collect::<Result<Vec<Trace>>>()?;
    Ok(match choice {
        DesignChoice::One(_) => timeline_text(scenario, &traces[0]),
        DesignChoice::All => comparison_text(scenario, &traces),
    })
}

/// Writes the JSON of `idem run --json` to `out` as it is made: one design is simulated, told
/// and written before the next is simulated, so a run of every design holds one trace at a
/// time, never all six and their text at once. A design that cannot be simulated stops the
/// output where it is, with the error.
pub fn run_json(
    scenario: &Scenario,
    choice: &DesignChoice,
    out: &mut impl std::io::Write,
) -> Result<()> {
    match choice {
        DesignChoice::One(d) => serde_json::to_writer_pretty(
            &mut *out,
            &OneJson {
                scenario,
                design: *d,
            },
        )?,
        DesignChoice::All => {
            let all: Vec<OneJson> = Design::ALL
                .iter()
                .map(|&design| OneJson { scenario, design })
                .collect();
            serde_json::to_writer_pretty(&mut *out, &all)?;
        }
    }
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// One design's run, simulated only when it is written.
struct OneJson<'a> {
    scenario: &'a Scenario,
    design: Design,
}

impl serde::Serialize for OneJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let trace = self.scenario.simulate(self.design).map_err(|e| {
            serde::ser::Error::custom(format!("simulating {}: {e}", self.scenario.name))
        })?;
        RunJson::new(self.scenario, &trace).serialize(s)
    }
}

/// The whole timeline and the outcome, for one design.
pub fn timeline_text(scenario: &Scenario, trace: &Trace) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", scenario.name, scenario.title);
    let _ = writeln!(
        out,
        "design: {} ({})\n",
        trace.design.id(),
        trace.design.name()
    );
    let width = trace
        .ticks
        .iter()
        .map(|t| trace.format_time(t.at).chars().count())
        .max()
        .unwrap_or(12);
    let indent = " ".repeat(width + 2);
    let told = scenario.tell(trace);
    let first = glossary::first_uses(&told);
    let columns = 96usize.saturating_sub(width).max(40);
    // The actor column is as wide as the longest lane name the story uses.
    let actor_width = trace
        .ticks
        .iter()
        .map(|t| scenario.lanes.of_tick(t).chars().count())
        .max()
        .unwrap_or(9)
        .max(9);
    for (index, tick) in trace.ticks.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:<width$}  {:<actor_width$}  {}",
            trace.format_time(tick.at),
            scenario.lanes.of_tick(tick),
            told.labels[index]
        );
        let caveat = crate::story::written::trainer_written_for_the_file(
            told.trainer[index].is_some(),
            &scenario.keys_changed(),
        );
        let narration = match caveat {
            Some(caveat) => format!("{} {caveat}", told.narrations[index]),
            None => told.narrations[index].clone(),
        };
        for line in crate::text::wrap(&narration, columns) {
            let _ = writeln!(out, "{indent}{line}");
        }
        for (term, meaning) in glossary::introduced_at(&first, index) {
            for (n, line) in
                crate::text::wrap(&format!("{term}: {meaning}"), columns.saturating_sub(2))
                    .iter()
                    .enumerate()
            {
                let lead = if n == 0 { "▸ " } else { "  " };
                let _ = writeln!(out, "{indent}{lead}{line}");
            }
        }
    }
    out.push('\n');
    out.push_str(&outcome_text(trace));
    for w in &trace.warnings {
        let _ = writeln!(out, "note: {w}");
    }
    out
}

fn outcome_text(trace: &Trace) -> String {
    let o = &trace.outcome;
    let mut out = String::new();
    let (_, head) = headline(o);
    let _ = writeln!(out, "Outcome: {head}");
    let _ = writeln!(out, "Verdict: {} ({})", o.verdict.id(), verdict_meaning(o));
    for i in &o.intents {
        let _ = writeln!(out, "  {}", intent_line(i));
    }
    if let Some(r) = &o.reconcile {
        let _ = writeln!(
            out,
            "Reconcile at {}: {}",
            trace.format_time(r.at),
            reconcile_line(r)
        );
    }
    let c = &o.counters;
    let _ = writeln!(
        out,
        "Counters: attempts sent {} · requests received {} · dedupe hits {} · 409s {} · 422s {} · 400s {} · keys stored {} · keys evicted {}",
        c.attempts_sent,
        c.requests_received,
        c.dedupe_hits,
        c.conflicts_409,
        c.mismatches_422,
        c.refusals_400,
        c.keys_stored,
        c.keys_evicted
    );
    let held = trace.ticks.last().map_or(0, |t| t.state.memory.len());
    let _ = writeln!(
        out,
        "Dedupe store: {}",
        crate::story::outcome::store_line(c, held)
    );
    out
}

/// Every design's outcome, one row each (a run's ticks are not read: see
/// [`Trace::outcome_only`]), the columns as wide as their widest cell; then, for
/// each design, what its steps after payment and its reconciliation did, when the story has
/// them.
pub fn comparison_text(scenario: &Scenario, traces: &[Trace]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}\n", scenario.name, scenario.title);
    use crate::text::Align;
    let mut rows: Vec<Vec<String>> = vec![
        [
            "key", "design", "", "charges", "charged", "verdict", "client", "outcome",
        ]
        .map(String::from)
        .to_vec(),
    ];
    rows.extend(traces.iter().map(|t| {
        let o = &t.outcome;
        let client: Vec<&str> = o.intents.iter().map(|i| i.client_view.label()).collect();
        vec![
            t.design.hotkey().to_string(),
            t.design.id().to_string(),
            t.design.name().to_string(),
            o.charges.to_string(),
            o.charged_cents.to_string(),
            o.verdict.id().to_string(),
            client.join("/"),
            headline(o).1,
        ]
    }));
    // Counts and money right-aligned, words left-aligned; the last column runs free.
    let (lines, widths) = crate::text::columns(
        &rows,
        &[
            Align::Left,
            Align::Left,
            Align::Left,
            Align::Right,
            Align::Right,
            Align::Left,
            Align::Left,
            Align::Left,
        ],
        "  ",
    );
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    // What happened after the payment and overnight, which the row has no room for.
    let mut after = Vec::new();
    for t in traces {
        let o = &t.outcome;
        for i in o.intents.iter().filter(|i| !i.steps.is_empty()) {
            let steps: Vec<String> = i
                .steps
                .iter()
                .map(crate::story::outcome::step_line)
                .collect();
            after.push(format!(
                "{:<w$}  order {}: then {}",
                t.design.id(),
                i.id,
                steps.join("; "),
                w = widths[1]
            ));
        }
        if let Some(r) = &o.reconcile {
            after.push(format!(
                "{:<w$}  reconcile at {}: {}",
                t.design.id(),
                t.format_time(r.at),
                reconcile_line(r),
                w = widths[1]
            ));
        }
    }
    if !after.is_empty() {
        out.push('\n');
        for l in after {
            let _ = writeln!(out, "{l}");
        }
    }
    out
}
