//! Keys typed into what is open (a dialog, the hands being counted, a long job), Esc, and
//! quitting.

use super::*;

/// Keys typed into what is open (a dialog, the hands being counted, a long job), Esc, and
/// quitting: the arms of one key stay together, in the order they are tried.
pub(super) fn keys_in_dialogs(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    // The last choice of the question here, for counting hands.
    let last_choice = app
        .question_here()
        .map_or(0, |(_, q)| app.choices(q).len().saturating_sub(1));
    match msg {
        // Esc while the search runs stops it; what it found so far comes, marked partial.
        Msg::Back if app.screens.overlay == Overlay::None && app.jobs.searching.is_some() => {
            if let Some(s) = &app.jobs.searching {
                s.cancel();
            }
            app.screens.notice =
                Some("stopping the search: what it found so far comes next".into());
        }
        Msg::Back if app.screens.overlay == Overlay::None && app.jobs.counting.is_some() => {
            if let Some((p, _)) = &app.jobs.counting {
                p.stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            app.screens.notice =
                Some("stopping the count: the orders counted so far come next".into());
        }
        Msg::Type(c) if matches!(app.screens.overlay, Overlay::Voting { .. }) => {
            count(app, Some(c))
        }
        Msg::Backspace if matches!(app.screens.overlay, Overlay::Voting { .. }) => count(app, None),
        Msg::Type(c) => match &mut app.screens.overlay {
            Overlay::Picker(p) => {
                p.typed.push(c);
                p.refilter();
            }
            Overlay::Save(s) => {
                s.path.push(c);
                s.confirm_overwrite = false;
                s.error = None;
            }
            Overlay::Goto { typed, error } => {
                typed.push(c);
                *error = None;
            }
            _ => {}
        },
        Msg::Backspace => match &mut app.screens.overlay {
            Overlay::Picker(p) => {
                p.typed.pop();
                p.refilter();
            }
            Overlay::Goto { typed, error } => {
                typed.pop();
                *error = None;
            }
            Overlay::Save(s) => {
                s.path.pop();
                s.confirm_overwrite = false;
            }
            _ => {}
        },
        Msg::Up => match &mut app.screens.overlay {
            Overlay::Voting { selected, fresh } => {
                *selected = selected.saturating_sub(1);
                *fresh = true;
            }
            Overlay::Picker(p) => p.step(false),
            Overlay::Checklist(i) => *i = i.saturating_sub(1),
            Overlay::Help => app.screens.help_scroll = app.screens.help_scroll.saturating_sub(1),
            Overlay::Explore { row, .. } => *row = row.saturating_sub(1),
            Overlay::Traffic(v) => v.selected = v.selected.saturating_sub(1),
            _ => {}
        },
        Msg::Down => match &mut app.screens.overlay {
            Overlay::Voting { selected, fresh } => {
                *selected = (*selected + 1).min(last_choice);
                *fresh = true;
            }
            Overlay::Picker(p) => p.step(true),
            Overlay::Checklist(i) => *i = (*i + 1).min(CHECKLIST.len() - 1),
            // Bounded when drawn: the help never scrolls past its last line.
            Overlay::Help => {
                app.screens.help_scroll = app.screens.help_scroll.saturating_add(1).min(200)
            }
            Overlay::Explore { found, row, .. } => {
                *row = (*row + 1).min(found.designs.len().saturating_sub(1))
            }
            Overlay::Traffic(v) => {
                v.selected = (v.selected + 1).min(v.report.designs.len().saturating_sub(1))
            }
            _ => {}
        },
        Msg::Confirm => match app.screens.overlay.clone() {
            Overlay::Voting { .. } => reveal(app),
            Overlay::Picker(p) => effects.extend(pick(app, p)),
            Overlay::Save(s) => effects.extend(save(app, s)),
            Overlay::Goto { typed, .. } => go_to(app, &typed),
            Overlay::Explore { found, row, col } => {
                effects.extend(open_counterexample(app, &found, row, col))
            }
            Overlay::Checklist(i) if app.talk.agenda.is_some() => {
                // In a session the part on screen, and the room's answers to it, stay: the
                // checklist's scenario would take their place.
                let name = CHECKLIST.get(i).map_or("order-5531", |c| c.scenario);
                app.screens.overlay = Overlay::None;
                app.screens.notice = Some(format!(
                    "in a session, {name} would take the place of this part and its answers: add it to the session file as a part to show it"
                ));
            }
            Overlay::Checklist(i) => {
                let name = CHECKLIST.get(i).map_or("order-5531", |c| c.scenario);
                let loaded = scenario::library::find(name)
                    .ok_or_else(|| format!("no built-in scenario {name}"))
                    .and_then(|b| b.load().map_err(|e| e.one_line()));
                match loaded {
                    Ok(s) => effects.push(open(app, s, name, None, ErrorsTo::Notice)),
                    Err(e) => app.screens.notice = Some(e),
                }
            }
            _ => {}
        },
        Msg::Back => {
            if app.screens.overlay != Overlay::None {
                app.screens.overlay = Overlay::None;
            } else if app.screens.screen == Screen::Compare {
                toggle_compare(app);
            } else if app.talk.present.is_some() && app.talk.room_answered() {
                // In front of a room that has answered, Esc asks whether to leave: it never
                // leaves on its own, and a second Esc stays.
                app.place.playing = false;
                app.screens.overlay = Overlay::ConfirmQuit;
            } else {
                // Esc never quits: a room's stray key press must not end the session.
                app.screens.notice = Some("nothing open to close: q quits".into());
            }
        }
        Msg::Quit if leaving_loses(app) && app.screens.overlay != Overlay::ConfirmQuit => {
            app.place.playing = false;
            app.screens.overlay = Overlay::ConfirmQuit;
        }
        Msg::Quit | Msg::QuitNow => app.quit = true,
        _ => {}
    }
}

/// A dialog of `replay/dialog/` opened, or sent a key: it answers what to do, and the update
/// does it.
pub(super) fn dialog(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    match msg {
        Msg::OpenDialog(row) => {
            if let Some(open) = crate::replay::keymap::opener(row) {
                app.place.playing = false;
                app.screens.overlay = Overlay::Dialog(crate::replay::dialog::Open(open(app)));
            }
        }
        Msg::InDialog(key) => {
            let Overlay::Dialog(mut open) =
                std::mem::replace(&mut app.screens.overlay, Overlay::None)
            else {
                return;
            };
            match open.0.act(key, app) {
                crate::replay::dialog::Done::Stay => app.screens.overlay = Overlay::Dialog(open),
                crate::replay::dialog::Done::Close => {}
                crate::replay::dialog::Done::Then(next) => apply(app, next, effects),
            }
        }
        _ => {}
    }
}
