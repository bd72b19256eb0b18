//! What the processor's memory must look like in every trace, whatever the scenario and the
//! design: each entry that names a charge names one its own request made, and the run does not
//! end with work marked in progress that nobody will finish. The engine tests call [`check`] on
//! every run, and so do the property tests on every random scenario.

use idem::sim::TickKind;
use idem::sim::Trace;
use idem::sim::state::{EntryKind, EntryStatus, MemoryEntry, Write};
use std::sync::Arc;

/// Both checks below, on one trace.
pub fn check(trace: &Trace) -> Result<(), String> {
    own_charges(trace)?;
    nothing_left_in_progress(trace)
}

/// At every tick, an entry of the processor's memory that holds a charge holds one made by
/// the intent that wrote the entry, on the attempt that wrote it, under the entry's own key
/// (a body hash stands in for a key, so there only the intent and attempt are compared).
/// A key record that ended up with another order's charge would replay it to the wrong
/// customer.
pub fn own_charges(trace: &Trace) -> Result<(), String> {
    let d = trace.design;
    let mut seen: Option<&Arc<_>> = None;
    for tick in &trace.ticks {
        // Ticks that left the memory as it was share it: look at each version once.
        if seen.is_some_and(|m| Arc::ptr_eq(m, &tick.state.memory)) {
            continue;
        }
        seen = Some(&tick.state.memory);
        for e in tick.state.memory.iter() {
            let Some(id) = e.response.and_then(|r| r.charge) else {
                continue;
            };
            let at = trace.format_time(tick.at);
            let Some(charge) = tick.state.ledger().iter().find(|c| c.id == id) else {
                return Err(format!(
                    "{d}: at {at} the entry under {} holds {id}, which is not in the ledger",
                    e.key
                ));
            };
            if charge.intent != e.intent || charge.attempt != e.written_by.attempt {
                return Err(format!(
                    "{d}: at {at} the {:?} entry under {} (order #{}, attempt #{}) holds {id}, made by order #{} on attempt #{}",
                    e.kind, e.key, e.intent, e.written_by.attempt, charge.intent, charge.attempt
                ));
            }
            if e.kind != EntryKind::BodyHash && charge.key.as_ref() != Some(&e.key) {
                return Err(format!(
                    "{d}: at {at} the entry under {} holds {id}, charged under {:?}",
                    e.key, charge.key
                ));
            }
            let named = match e.written_by.how {
                Write::OneWrite(c) | Write::After(c) => c,
                Write::With(c) => Some(c),
                Write::InMemory | Write::InProgressOnDisk | Write::Logged { .. } => Some(id),
            };
            if named != Some(id) {
                return Err(format!(
                    "{d}: at {at} the entry under {} holds {id} but says it was written with {named:?}",
                    e.key
                ));
            }
        }
    }
    Ok(())
}

/// When the story ends nothing is pending any more: every request that reached the processor
/// was answered, or its work was cut off by a crash (the engine only stops once no step, send,
/// timer or restart is left; only expiries may still be due). So no entry may be left in
/// progress, with one exception that is always legitimate: `inprogress-record` writes its
/// in-progress record to disk before the charge, and a crash that cuts the work off leaves that
/// record on disk until it expires, which may be after the story ends (expiries alone do not
/// keep it going). Such a record is allowed only when a crash came after it was written. An
/// in-memory mark (`with-charge`) never survives a crash, so one left at the end is always a bug:
/// work that finished but wrote its result somewhere else.
pub fn nothing_left_in_progress(trace: &Trace) -> Result<(), String> {
    let d = trace.design;
    let Some(last) = trace.ticks.last() else {
        return Ok(());
    };
    for e in last.state.memory.iter() {
        if e.status != EntryStatus::InProgress {
            continue;
        }
        let left = describe(e);
        if e.kind != EntryKind::Record {
            return Err(format!("{d}: the story ends with {left}"));
        }
        let written = trace
            .ticks
            .iter()
            .position(|t| t.state.memory.iter().any(|m| m == e))
            .unwrap_or(0);
        let crashed = trace.ticks[written..]
            .iter()
            .any(|t| t.kind == TickKind::Crash);
        if !crashed {
            return Err(format!(
                "{d}: the story ends with {left}, though no crash cut its work off"
            ));
        }
    }
    Ok(())
}

fn describe(e: &MemoryEntry) -> String {
    format!(
        "the {:?} under {} (order #{}, attempt #{}) still in progress",
        e.kind, e.key, e.intent, e.written_by.attempt
    )
}
