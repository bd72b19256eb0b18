//! Changing the story: the what-ifs, their undoing, keying the checkout or its steps another
//! way, back to the scenario as written, a counterexample replayed.

use super::*;

/// Changes to the story on screen: what-ifs and their undoing, the keys K and m, back as
/// written.
pub(super) fn story(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    match msg {
        Msg::Fork(what) => {
            app.place.playing = false;
            let made = fork::fault_for(app.version.scenario(), app.trace(), app.place.tick, what);
            match made {
                Ok(fault) => {
                    let mut added = app.version.added.clone();
                    let words = fork::describe(app.version.scenario(), &fault);
                    added.push(fault);
                    // A new what-if starts a new line of history: nothing left to redo.
                    app.version.undone.clear();
                    effects.push(app.start(Job {
                        original: app.version.original.clone(),
                        added,
                        after: After::Fork { words },
                    }));
                }
                Err(why) => app.screens.notice = Some(why),
            }
        }
        // Nothing added, but the keys changed: u takes that back.
        Msg::Unfork
            if app.version.added.is_empty() && !app.version.changed_from_written().is_empty() =>
        {
            as_written(app, effects)
        }
        Msg::Unfork => {
            if app.version.added.is_empty() {
                app.screens.notice =
                    Some("this is the scenario as written: there is no what-if to undo".into());
            } else {
                let mut added = app.version.added.clone();
                if let Some(last) = added.pop() {
                    app.version.undone.push(last);
                }
                let left = added.len();
                effects.push(app.start(Job {
                    original: app.version.original.clone(),
                    added,
                    after: After::Unfork { left },
                }));
            }
        }
        Msg::Redo => match app.version.undone.pop() {
            None => {
                app.screens.notice = Some("nothing to redo: u takes back a what-if first".into())
            }
            Some(fault) => {
                let words = fork::describe(app.version.scenario(), &fault);
                let mut added = app.version.added.clone();
                added.push(fault);
                effects.push(app.start(Job {
                    original: app.version.original.clone(),
                    added,
                    after: After::Fork { words },
                }));
            }
        },
        Msg::CycleStepKeys => match app.version.original.config.steps.first() {
            None => {
                app.screens.notice = Some(
                    "this scenario has no steps after the payment: m keys its [[step]] calls"
                        .into(),
                )
            }
            Some(first) => {
                app.place.playing = false;
                let mode = first.key_mode.next();
                let mut original = app.version.original.clone();
                for step in &mut original.config.steps {
                    step.key_mode = mode;
                }
                effects.push(app.start(Job {
                    original,
                    added: app.version.added.clone(),
                    after: After::StepKeys { mode },
                }));
            }
        },
        Msg::CycleKeyStrategy => {
            app.place.playing = false;
            let strategy = next_keys(app);
            let mut original = app.version.original.clone();
            match strategy {
                Some(strategy) => original.config.set_key_strategy(strategy),
                None => {
                    // The checkout as written; the steps stay as m left them.
                    let mut keying = app.version.original.keying_as_written.clone();
                    keying.steps = original.config.keying().steps;
                    original.config.set_keying(&keying);
                }
            }
            effects.push(app.start(Job {
                original,
                added: app.version.added.clone(),
                after: After::KeyStrategy { strategy },
            }));
        }
        Msg::AsWritten => as_written(app, effects),
        _ => {}
    }
}

/// A file read again after an edit, keyed as the story on screen is: what K and m chose
/// stays in force through a live edit, as the what-ifs do (the file's own keys are still
/// what `0` goes back to).
pub(super) fn keyed_as_on_screen(app: &App, mut fresh: Scenario) -> Scenario {
    let (now, written) = (
        app.version.original.config.keying(),
        &app.version.original.keying_as_written,
    );
    if let Some(strategy) = app.version.keys_set() {
        fresh.config.set_key_strategy(strategy);
    }
    if now.steps_differ(written)
        && let Some(mode) = now.steps.first()
    {
        for step in &mut fresh.config.steps {
            step.key_mode = *mode;
        }
    }
    fresh
}

/// The way K keys the checkout next: one key per order, one per attempt, none, and back
/// round. A file that mixes them across its layers has its own way in the round too (`None`),
/// after none and before one per order.
pub(super) fn next_keys(app: &App) -> Option<KeyStrategy> {
    let written = &app.version.original.keying_as_written;
    let config = &app.version.original.config;
    let mut as_written = config.clone();
    as_written.set_keying(written);
    let mixed = as_written.layer_keys_differ();
    if !config.keying().checkout_differs(written) {
        return Some(if mixed {
            KeyStrategy::PerIntent
        } else {
            written.strategy.next()
        });
    }
    let next = config.key_strategy.next();
    let round = if mixed {
        next == KeyStrategy::PerIntent
    } else {
        next == written.strategy
    };
    (!round).then_some(next)
}

/// Back to the scenario as written: every what-if taken back, the keys as the file writes
/// them.
pub(super) fn as_written(app: &mut App, effects: &mut Vec<Effect>) {
    app.place.playing = false;
    if app.version.changed_from_written().is_empty() {
        app.screens.notice = Some("this is the scenario as written: nothing to undo".into());
        return;
    }
    let mut original = app.version.original.clone();
    original
        .config
        .set_keying(&app.version.original.keying_as_written);
    effects.push(app.start(Job {
        original,
        added: Vec::new(),
        after: After::AsWritten,
    }));
}

/// Replays the explorer's chosen cell as a what-if: its design, with its plan's faults added
/// to the scenario's own.
pub(super) fn open_counterexample(
    app: &mut App,
    found: &crate::explore::Exploration,
    row: usize,
    col: usize,
) -> Option<Effect> {
    let d = found.designs.get(row)?;
    let verdict = *crate::sim::Verdict::ALL.get(col)?;
    let Some((_, plan)) = d.counterexamples.iter().find(|(v, _)| *v == verdict) else {
        app.screens.notice = Some(format!(
            "no plan ends {} under {}: choose a cell with a count",
            verdict.id(),
            d.design.name()
        ));
        return None;
    };
    app.screens.overlay = Overlay::None;
    app.place.design = d.design;
    app.version.undone.clear();
    let words = plan
        .iter()
        .map(|f| fork::describe(app.version.scenario(), f))
        .collect::<Vec<_>>()
        .join("; ");
    let mut added = app.version.added.clone();
    added.extend(plan.iter().cloned());
    Some(app.start(Job {
        original: app.version.original.clone(),
        added,
        after: After::Fork {
            words: if words.is_empty() {
                "as written".to_string()
            } else {
                words
            },
        },
    }))
}
