//! A what-if written back as a scenario file: the trainer's file, edited in place (comments,
//! order and layout kept), with the added faults, and with whatever the faults made untrue
//! brought back in line, so the saved file passes `idem check`:
//!
//! - an `[[expect]]` a fault falsifies is rewritten to what the design now does (a comment
//!   says what it was), or dropped when nothing it checked still holds a value;
//! - a `[[quiz]]`, `[[note]]` or `[[narration]]` whose tick no design reaches any more is
//!   taken out, its text kept as a comment.
//!
//! Faults and expectations may be written either way TOML allows, `[[fault]]` blocks or an
//! inline `fault = [{ … }]`; the added ones are written the same way.

use super::{Expectation, Scenario};
use crate::sim::config::{Direction, Fault, FaultAction};
use crate::sim::{Belief, Trace};
use toml_edit::{ArrayOfTables, DocumentMut, InlineTable, Item, Table, TableLike, Value};

/// The forked scenario as a file, or why it cannot be written.
pub fn to_toml(original: &Scenario, added: &[Fault]) -> Result<String, String> {
    if added.is_empty() {
        let (now, written) = (original.config.keying(), &original.keying_as_written);
        if !now.checkout_differs(written) && !now.steps_differ(written) {
            return Ok(original.text.clone());
        }
        // Keyed another way (K, m): the file says so, so whoever reads it (the speaker
        // notes) tells the story the room sees.
        let mut doc = editable(&original.text)?;
        write_key_choices(&mut doc, original);
        return Ok(doc.to_string());
    }
    with_faults_written(original, added, "What-if faults added in the replay")
}

/// A scenario's text as a document to edit in place, comments and layout kept.
pub fn editable(text: &str) -> Result<DocumentMut, String> {
    text.parse()
        .map_err(|e| format!("the scenario's text could not be edited: {e}"))
}

/// The file with `added` written in, under a comment that starts with `heading`.
fn with_faults_written(
    original: &Scenario,
    added: &[Fault],
    heading: &str,
) -> Result<String, String> {
    let mut doc = editable(&original.text)?;
    let forked = super::fork::with_faults(original, added);
    let mut notes = vec![format!(
        "{heading}: {}.",
        added
            .iter()
            .map(|f| super::fork::describe(original, f))
            .collect::<Vec<_>>()
            .join("; ")
    )];
    write_key_choices(&mut doc, original);
    bring_expectations_in_line(&mut doc, &forked, &mut notes)?;
    drop_unreached(&mut doc, &forked, &mut notes);
    add_faults(&mut doc, original, added, &notes)?;
    Ok(doc.to_string())
}

/// The file `text` opening on `design` (its `design` key set, or added).
pub fn opening_on(text: &str, design: crate::sim::Design) -> Result<String, String> {
    let mut doc = editable(text)?;
    doc.insert("design", toml_edit::value(design.id()));
    Ok(doc.to_string())
}

/// A plan of faults found by the explorer, written as a scenario that `idem run` reproduces:
/// the original file (its own faults taken out unless `keep_faults`), opening on `design`,
/// with the plan's faults added and whatever they made untrue brought back in line.
pub fn plan_toml(
    original: &Scenario,
    keep_faults: bool,
    plan: &[Fault],
    design: crate::sim::Design,
) -> Result<String, String> {
    let plan_words: Vec<String> = plan
        .iter()
        .map(|f| super::fork::describe(original, f))
        .collect();
    let told = if plan_words.is_empty() {
        "with no fault at all".to_string()
    } else {
        plan_words.join("; ")
    };
    let own = if keep_faults {
        "on top of its own faults"
    } else {
        "with its own faults taken out"
    };
    let description = format!(
        "{} ({}), {own}, under a fault plan found by idem explore: {told}.",
        crate::text::sanitize_line(&original.title),
        original.name
    );
    faults_toml(
        original,
        keep_faults,
        plan,
        design,
        &description,
        "Faults of the plan idem explore found",
    )
}

/// The original file (its own faults taken out unless `keep_faults`), opening on `design`,
/// described as `description`, with `faults` added under a comment that starts with
/// `heading`, and whatever they made untrue brought back in line.
pub fn faults_toml(
    original: &Scenario,
    keep_faults: bool,
    faults: &[Fault],
    design: crate::sim::Design,
    description: &str,
    heading: &str,
) -> Result<String, String> {
    let mut doc = editable(&original.text)?;
    if !keep_faults {
        doc.remove("fault");
    }
    doc.insert("design", toml_edit::value(design.id()));
    doc.insert("description", toml_edit::value(description));
    // The scenario as edited so far, without re-reading it: what the faults leave unreached
    // (a quiz after the story now ends) is taken out below, with the faults added.
    let mut base = original.clone();
    base.text = doc.to_string();
    base.design = design;
    if !keep_faults {
        base.config.faults.clear();
    }
    with_faults_written(&base, faults, heading)
}

/// Writes how the keys are chosen now, where the replay changed it (`K` for the checkout,
/// `m` for the steps after payment), so the saved file tells the story on screen: the
/// checkout's strategy, with every layer back to its default, and each step's key mode.
fn write_key_choices(doc: &mut DocumentMut, original: &Scenario) {
    let now = &original.config;
    let (keying, written) = (now.keying(), &original.keying_as_written);
    if keying.checkout_differs(written) {
        if doc.get("checkout").is_none() {
            doc.insert("checkout", Item::Table(Table::new()));
        }
        if let Some(checkout) = doc.get_mut("checkout").and_then(Item::as_table_like_mut) {
            checkout.insert("key_strategy", toml_edit::value(now.key_strategy.id()));
            match checkout.get_mut("layer") {
                Some(Item::ArrayOfTables(layers)) => {
                    for layer in layers.iter_mut() {
                        layer.remove("key");
                    }
                }
                Some(Item::Value(Value::Array(layers))) => {
                    for layer in layers.iter_mut().filter_map(Value::as_inline_table_mut) {
                        layer.remove("key");
                    }
                }
                _ => {}
            }
        }
    }
    if keying.steps_differ(written)
        && let Some(mut steps) = blocks(doc, "step")
    {
        for (i, step) in now.steps.iter().enumerate() {
            if let Some(table) = steps.get(i) {
                table.insert("key", toml_edit::value(step.key_mode.id()));
            }
        }
    }
}

/// The blocks of `key`, whichever way they are written.
enum Blocks<'a> {
    Tables(&'a mut ArrayOfTables),
    Inline(&'a mut toml_edit::Array),
}

fn blocks<'a>(doc: &'a mut DocumentMut, key: &str) -> Option<Blocks<'a>> {
    match doc.get_mut(key)? {
        Item::ArrayOfTables(a) => Some(Blocks::Tables(a)),
        Item::Value(Value::Array(a)) => Some(Blocks::Inline(a)),
        _ => None,
    }
}

impl Blocks<'_> {
    fn get(&mut self, i: usize) -> Option<&mut dyn TableLike> {
        match self {
            Blocks::Tables(a) => a.get_mut(i).map(|t| t as &mut dyn TableLike),
            Blocks::Inline(a) => a
                .get_mut(i)
                .and_then(Value::as_inline_table_mut)
                .map(|t| t as &mut dyn TableLike),
        }
    }

    /// Block `i` as it is written, with the comments before it, for a comment.
    fn text(&self, key: &str, i: usize) -> String {
        let text = match self {
            Blocks::Tables(a) => {
                let Some(table) = a.get(i) else {
                    return String::new();
                };
                let mut one = DocumentMut::new();
                let mut tables = ArrayOfTables::new();
                tables.push(table.clone());
                one.insert(key, Item::ArrayOfTables(tables));
                one.to_string()
            }
            Blocks::Inline(a) => a.get(i).map_or_else(String::new, |value| {
                let mut value = value.clone();
                value.decor_mut().clear();
                format!("{key} = [{value}]")
            }),
        };
        text.trim().to_string()
    }

    fn remove(&mut self, i: usize) {
        match self {
            Blocks::Tables(a) => {
                a.remove(i);
            }
            Blocks::Inline(a) => {
                a.remove(i);
            }
        }
    }

    fn is_inline(&self) -> bool {
        matches!(self, Blocks::Inline(_))
    }
}

/// Rewrites each falsified `[[expect]]` to what its design now does, or drops it.
fn bring_expectations_in_line(
    doc: &mut DocumentMut,
    forked: &Scenario,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    if forked.expectations.is_empty() {
        return Ok(());
    }
    let traces: Vec<(crate::sim::Design, Option<Trace>)> = crate::sim::Design::ALL
        .iter()
        .filter(|d| forked.expectations.iter().any(|e| e.design == **d))
        .map(|d| (*d, forked.simulate(*d).ok()))
        .collect();
    let mut blocks =
        blocks(doc, "expect").ok_or("the file's [[expect]] blocks could not be found")?;
    let inline = blocks.is_inline();
    let mut dropped = Vec::new();
    for (i, e) in forked.expectations.iter().enumerate() {
        let trace = traces
            .iter()
            .find(|(d, _)| *d == e.design)
            .and_then(|(_, t)| t.as_ref());
        let was = blocks.text("expect", i);
        let table = blocks
            .get(i)
            .ok_or("the file's [[expect]] blocks could not be matched")?;
        let Some(trace) = trace else {
            dropped.push((
                i,
                e,
                "its design can no longer be simulated".to_string(),
                was,
            ));
            continue;
        };
        let changes = rewrite(table, e, trace, !inline);
        if changes.is_empty() {
            continue;
        }
        let checks_something = ["charges", "verdict", "client"]
            .iter()
            .any(|k| table.contains_key(k));
        if checks_something {
            notes.push(format!(
                "[[expect]] for {} on line {} rewritten: {}.",
                e.design.id(),
                e.line,
                changes.join(", ")
            ));
        } else {
            dropped.push((i, e, changes.join(", "), was));
        }
    }
    for (i, e, why, text) in dropped.into_iter().rev() {
        blocks.remove(i);
        notes.push(format!(
            "[[expect]] for {} on line {} dropped ({why}); it read:",
            e.design.id(),
            e.line
        ));
        notes.extend(text.lines().map(str::to_string));
    }
    Ok(())
}

/// Makes one expectation true of `trace`; returns what changed, in words.
fn rewrite(
    table: &mut dyn TableLike,
    e: &Expectation,
    trace: &Trace,
    comment: bool,
) -> Vec<String> {
    let o = &trace.outcome;
    let mut changes = Vec::new();
    let mut set = |key: &str, was: String, now: Value| {
        let shown = now.to_string();
        let mut now = now;
        if comment {
            now.decor_mut()
                .set_suffix(format!("  # was {was} before the what-if"));
        }
        table.insert(key, Item::Value(now));
        changes.push(format!("{key} {was} → {}", shown.trim()));
    };
    if let Some(want) = e.charges
        && want != o.charges
    {
        set(
            "charges",
            want.to_string(),
            Value::from(i64::try_from(o.charges).unwrap_or(i64::MAX)),
        );
    }
    if let Some(want) = e.verdict
        && want != o.verdict
    {
        set(
            "verdict",
            want.id().to_string(),
            Value::from(o.verdict.id()),
        );
    }
    let refunds = o.reconcile.as_ref().map_or(0, |r| r.refunds);
    if let Some(want) = e.refunds
        && want != refunds
    {
        set(
            "refunds",
            want.to_string(),
            Value::from(i64::try_from(refunds).unwrap_or(i64::MAX)),
        );
    }
    if let Some(want) = e.client
        && !o.intents.iter().all(|i| i.client_view == want)
    {
        let first = o.intents.first().map(|i| i.client_view);
        let shared = first.filter(|b| {
            o.intents.iter().all(|i| i.client_view == *b)
                && matches!(b, Belief::Paid | Belief::Failed | Belief::Unknown)
        });
        match shared {
            Some(b) => set("client", want.label().to_string(), Value::from(b.label())),
            None => {
                table.remove("client");
                changes.push(format!(
                    "client {} no longer holds for every order",
                    want.label()
                ));
            }
        }
    }
    changes
}

/// Takes out the quizzes, notes and narration whose tick no design reaches any more.
fn drop_unreached(doc: &mut DocumentMut, forked: &Scenario, notes: &mut Vec<String>) {
    let mut gone = super::targets::unreached(forked);
    // From the last, so the indices of the others stay right.
    gone.sort_by(|a, b| b.cmp(a));
    for (key, i) in gone {
        let Some(mut blocks) = blocks(doc, key) else {
            continue;
        };
        let text = blocks.text(key, i);
        blocks.remove(i);
        notes.push(format!(
            "A [[{key}]] was taken out: no design reaches its tick after the what-if. It read:"
        ));
        notes.extend(text.lines().map(str::to_string));
    }
}

/// Appends the faults, in the form the file already uses, with the notes before them.
fn add_faults(
    doc: &mut DocumentMut,
    original: &Scenario,
    added: &[Fault],
    notes: &[String],
) -> Result<(), String> {
    let comment: String = notes
        .iter()
        .map(|n| {
            let n = crate::text::sanitize_line(n);
            if n.is_empty() {
                "#\n".to_string()
            } else {
                format!("# {n}\n")
            }
        })
        .collect();
    if doc.get("fault").is_none() {
        doc.insert("fault", Item::ArrayOfTables(ArrayOfTables::new()));
    }
    match doc.get_mut("fault") {
        Some(Item::ArrayOfTables(tables)) => {
            for (n, f) in added.iter().enumerate() {
                let mut table = Table::new();
                for (key, value) in fault_entries(original, f) {
                    table.insert(key, Item::Value(value));
                }
                // After everything else in the file, as the last blocks.
                table.set_position(Some(isize::MAX));
                if n == 0 {
                    table.decor_mut().set_prefix(format!("\n{comment}"));
                }
                tables.push(table);
            }
        }
        Some(Item::Value(Value::Array(array))) => {
            // The space before the closing bracket stays after the last block.
            let closing = array.iter_mut().last().map(|last| {
                let suffix = last.decor().suffix().cloned();
                last.decor_mut().set_suffix("");
                suffix
            });
            for f in added {
                let mut table = InlineTable::new();
                for (key, value) in fault_entries(original, f) {
                    table.insert(key, value);
                }
                array.push(table);
            }
            if let (Some(Some(suffix)), Some(last)) = (closing, array.iter_mut().last()) {
                last.decor_mut().set_suffix(suffix);
            }
            let trailing = doc.trailing().as_str().unwrap_or("").trim_end().to_string();
            doc.set_trailing(if trailing.is_empty() {
                format!("\n{comment}")
            } else {
                format!("{trailing}\n\n{comment}")
            });
        }
        _ => return Err("the file's `fault` is neither [[fault]] blocks nor a list".into()),
    }
    Ok(())
}

/// The keys of one fault block, in the order a person writes them.
fn fault_entries(original: &Scenario, f: &Fault) -> Vec<(&'static str, Value)> {
    let order = original
        .config
        .intents
        .get(f.intent)
        .map_or_else(String::new, |i| i.order.to_string());
    let ms = |n: u64| Value::from(format!("{n}ms"));
    let mut out = vec![
        ("intent", Value::from(order)),
        ("attempt", Value::from(i64::from(f.attempt))),
    ];
    match f.action {
        FaultAction::Lose { direction } => out.push(("lose", Value::from(way(direction)))),
        FaultAction::Delay { direction, by_ms } => {
            out.push(("delay", Value::from(way(direction))));
            out.push(("by", ms(by_ms)));
        }
        FaultAction::Duplicate { direction, gap_ms } => {
            out.push(("duplicate", Value::from(way(direction))));
            out.push(("gap", ms(gap_ms)));
        }
        FaultAction::Crash {
            after,
            restart_after_ms,
        } => {
            out.push(("crash_after", Value::from(after.id())));
            out.push(("restart_after", ms(restart_after_ms)));
        }
        FaultAction::Slow { processing_ms } => out.push(("processing", ms(processing_ms))),
        FaultAction::Decline => out.push(("decline", Value::from(true))),
        FaultAction::Fail { after } => out.push(("fail_after", Value::from(after.id()))),
    }
    out
}

fn way(d: Direction) -> &'static str {
    match d {
        Direction::Request => "request",
        Direction::Reply => "reply",
    }
}
