//! The update function: a message in, the new state out, and the effects it asks for. It is
//! the only place the replay's state changes; it draws nothing, reads and writes no file, and
//! never waits.

use super::app::{App, Overlay, Parted, SavePrompt, Screen};
use super::effect::Effect;
use super::msg::Msg;
use super::picker::Picker;
use super::room::MAX_VOTES;
use crate::files::WriteError;
use crate::replay::checklist::CHECKLIST;
use crate::replay::prepare::{After, ErrorsTo, Job};
use crate::replay::window::{WindowAction, WindowScreen};
use crate::scenario::{self, Scenario, fork, fork_toml};
use crate::sim::config::KeyStrategy;
use std::path::{Path, PathBuf};

/// Applies one message; returns the effects it asks for, in order.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    // Whatever the message, the next frame is drawn from the whole story, not its opening.
    app.version.runs().open();
    let mut effects = Vec::new();
    apply(app, msg, &mut effects);
    // The speaker notes follow the presenter: each new position goes out once.
    if app.talk.present.is_some() {
        let here = (
            app.version.revision,
            app.place.design,
            app.place.tick,
            super::shown::shown(app),
        );
        if app.talk.published.as_ref() != Some(&here) {
            app.talk.published = Some(here);
            effects.push(Effect::Publish);
        }
    }
    effects
}

fn apply(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    if msg.from_viewer() || matches!(msg, Msg::PlayStep) {
        app.screens.notice = None;
    }
    if app.jobs.simulating.is_some() && changes_the_story(app, &msg) {
        app.screens.notice = Some("still simulating the last change: one moment".into());
        return;
    }
    if matches!(
        msg,
        Msg::Next
            | Msg::Prev
            | Msg::First
            | Msg::Last
            | Msg::PlayStep
            | Msg::GoToTick(_)
            | Msg::JumpEvent(_)
            | Msg::JumpToDivergence
    ) {
        // The viewer moved: a moment kept from before a re-keying is no longer wanted.
        app.place.anchor = None;
    }
    // The talk's own cards: PageDown leaves the agenda for part 1, PageUp from part 1's
    // first tick comes back to it; PageDown at the last part's end shows the end card.
    if let Some(card) = app.talk.card() {
        match (card, &msg) {
            (super::app::Card::Agenda, Msg::Next) => return set_card(app, None),
            (super::app::Card::End, Msg::Prev) => return set_card(app, None),
            (_, Msg::Next | Msg::Prev | Msg::First | Msg::Last | Msg::TogglePlay) => return,
            _ => {}
        }
    }
    // A short router: each part of the replay's behaviour has a function of its own, and every
    // message is routed by name (no catch-all), so a new one must be given its part.
    match msg {
        Msg::Prev
        | Msg::Next
        | Msg::First
        | Msg::Last
        | Msg::TogglePlay
        | Msg::PlayStep
        | Msg::Faster
        | Msg::Slower
        | Msg::SwitchDesign(..)
        | Msg::JumpToDivergence
        | Msg::ToggleCompare
        | Msg::ToggleCompared(..)
        | Msg::JumpEvent(..)
        | Msg::GoToTick(..) => moves(app, msg, effects),
        Msg::OpenGoto
        | Msg::ToggleHelp
        | Msg::OpenGlossary
        | Msg::Blank
        | Msg::ToggleElapsed
        | Msg::ToggleHidden
        | Msg::TogglePanels
        | Msg::ToggleFold
        | Msg::ScrollStory(..)
        | Msg::OpenSave
        | Msg::OpenPicker
        | Msg::Listed(..)
        | Msg::OpenChecklist
        | Msg::OpenWindow
        | Msg::Window(..) => screens(app, msg, effects),
        Msg::Fork(..)
        | Msg::Unfork
        | Msg::Redo
        | Msg::CycleStepKeys
        | Msg::CycleKeyStrategy
        | Msg::AsWritten => story(app, msg, effects),
        Msg::OpenExplore
        | Msg::ChoreDone
        | Msg::Searched(..)
        | Msg::OpenTraffic
        | Msg::Counted(..)
        | Msg::Explored(..) => jobs(app, msg, effects),
        Msg::Answer(..) | Msg::OpenAnswer | Msg::OpenVotes | Msg::Reveal | Msg::TakeBack => {
            room(app, msg)
        }
        Msg::Type(..)
        | Msg::Backspace
        | Msg::Up
        | Msg::Down
        | Msg::Confirm
        | Msg::Back
        | Msg::Quit
        | Msg::QuitNow => keys_in_dialogs(app, msg, effects),
        Msg::Clock(..)
        | Msg::FileChanged(..)
        | Msg::SessionChanged(..)
        | Msg::Simulated { .. }
        | Msg::Loaded { .. }
        | Msg::Saved { .. }
        | Msg::NotesLink(..) => news(app, msg, effects),
    }
}

/// Moves through the story: ticks, play, designs, compare, jumps.
fn moves(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    let cards = app.talk.agenda.as_ref().is_some_and(|a| a.cards);
    match msg {
        Msg::Prev
            if cards
                && app.screens.screen == Screen::Replay
                && app.place.tick == 0
                && app.talk.agenda.as_ref().is_some_and(|a| a.at == 0) =>
        {
            app.place.playing = false;
            set_card(app, Some(super::app::Card::Agenda));
        }
        Msg::Next
            if cards
                && app.screens.screen == Screen::Replay
                && app.at_end()
                && !app.quiz_pending()
                && !app.answer_waiting()
                && next_section(app).is_none() =>
        {
            app.place.playing = false;
            set_card(app, Some(super::app::Card::End));
        }
        // A clicker's PageDown reveals the room's answer when one waits.
        Msg::Next if app.answer_waiting() => reveal(app),
        Msg::Next if app.quiz_pending() => {
            app.place.playing = false;
            app.screens.notice = Some(quiz_reminder(app));
        }
        Msg::Next
            if app.screens.screen == Screen::Replay
                && app.at_end()
                && next_section(app).is_some() =>
        {
            app.place.playing = false;
            if let Some(to) = next_section(app) {
                effects.push(open_section(app, to, false));
            }
        }
        Msg::Next => {
            app.place.playing = false;
            step_forward(app);
        }
        Msg::Prev
            if app.screens.screen == Screen::Replay
                && app.place.tick == 0
                && app.talk.agenda.as_ref().is_some_and(|a| a.at > 0) =>
        {
            app.place.playing = false;
            if let Some(a) = &app.talk.agenda {
                let to = a.at - 1;
                effects.push(open_section(app, to, true));
            }
        }
        Msg::Prev => {
            app.place.playing = false;
            step_back(app);
        }
        Msg::First => {
            app.place.playing = false;
            go_first(app);
        }
        Msg::Last => {
            app.place.playing = false;
            match app.screens.screen {
                Screen::Replay | Screen::Window if app.quiz_pending() => {
                    // The question open here waits for the room, as it does for PageDown.
                    app.screens.notice = Some(quiz_reminder(app));
                }
                Screen::Replay | Screen::Window => {
                    // A question for the room is not skipped on the way to the end: not one
                    // the room has not been asked under this design either.
                    app.place.tick = next_question(app).unwrap_or(app.last_tick());
                    if app.quiz_pending() {
                        app.screens.notice = Some(quiz_reminder(app));
                    } else if app.question_here().is_some() && app.response_here().is_none() {
                        // Answered under another design only: asked again here if the
                        // trainer wants, or passed by with G once more.
                        app.screens.notice = Some(format!(
                            "not asked under {} yet: a or v asks it here, G goes on",
                            crate::replay::shown::design_name(app, app.place.design)
                        ));
                    }
                }
                Screen::Compare => app.place.compare_at = last_time(app),
            }
        }
        Msg::TogglePlay | Msg::PlayStep if app.quiz_pending() => {
            app.place.playing = false;
            app.screens.notice = Some(quiz_reminder(app));
        }
        Msg::TogglePlay => {
            if !app.place.playing && finished(app) {
                // Play from the top when already at the end.
                go_first(app);
            }
            app.place.playing = !app.place.playing;
        }
        Msg::PlayStep if app.place.playing => {
            step_forward(app);
            // Autoplay stops at the end, and at a question for the room.
            if finished(app) || app.quiz_pending() {
                app.place.playing = false;
            }
        }
        Msg::Faster => app.place.faster(),
        Msg::Slower => app.place.slower(),
        Msg::SwitchDesign(design) if matches!(app.screens.overlay, Overlay::Traffic(_)) => {
            if let Overlay::Traffic(v) = &mut app.screens.overlay
                && let Some(i) = v.report.designs.iter().position(|d| d.design == design)
            {
                v.selected = i;
            }
        }
        Msg::SwitchDesign(design) => {
            if app.screens.screen == Screen::Replay {
                app.place.tick = app.position_in(design);
            }
            if design != app.place.design
                && let Some(p) = app.talk.present.as_mut()
            {
                // Another design's name stays hidden until it too is revealed.
                p.revealed = false;
            }
            app.place.design = design;
        }
        Msg::JumpToDivergence => {
            if app.screens.screen == Screen::Compare {
                toggle_compare(app);
            }
            app.place.playing = false;
            match app.divergence() {
                Some((i, other)) => {
                    app.place.tick = i.min(app.last_tick());
                    app.place.parted = Some(Parted {
                        tick: app.place.tick,
                        this: app.place.design,
                        other,
                    });
                    app.screens.notice = Some(format!(
                        "{} and {} part ways here",
                        crate::replay::shown::design_name(app, app.place.design),
                        crate::replay::shown::design_name(app, other)
                    ));
                }
                None => {
                    app.screens.notice = Some("every design tells the same story here".to_string());
                }
            }
        }
        Msg::ToggleCompare => toggle_compare(app),
        Msg::ToggleCompared(design) => {
            let shown = app.screens.compared.contains(&design);
            match (shown, app.screens.compared.len()) {
                (true, n) if n <= 2 => {
                    app.screens.notice = Some("compare shows at least two designs".into());
                }
                (false, n) if n >= 5 => {
                    app.screens.notice =
                        Some("compare shows at most five designs: take one away first".into());
                }
                (true, _) => app.screens.compared.retain(|d| *d != design),
                (false, _) => {
                    app.screens.compared.push(design);
                    app.screens.compared.sort_by_key(|d| d.hotkey());
                }
            }
        }
        Msg::JumpEvent(forward) => {
            app.place.playing = false;
            if app.screens.screen == Screen::Compare {
                toggle_compare(app);
            }
            jump_event(app, forward);
        }
        Msg::GoToTick(tick) => {
            let mut target = tick.min(app.last_tick());
            // Forward, a question on the way is not passed.
            if target > app.place.tick {
                if app.quiz_pending() {
                    app.screens.notice = Some(quiz_reminder(app));
                    return;
                }
                if let Some(q) = next_question(app).filter(|&q| q < target) {
                    target = q;
                }
            }
            app.place.playing = false;
            app.place.tick = target;
        }
        _ => {}
    }
}

/// What is on screen beside the story: help, panels, the room's screen, the pickers and the
/// window calculator.
fn screens(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    match msg {
        Msg::OpenGoto => {
            app.place.playing = false;
            app.screens.overlay = Overlay::Goto {
                typed: String::new(),
                error: None,
            };
        }
        Msg::ToggleHelp
        | Msg::OpenGlossary
        | Msg::OpenChecklist
        | Msg::Listed(..)
        | Msg::ToggleFold => {
            if let Some(notice) = app.screens.update(msg) {
                app.screens.notice = Some(notice);
            }
        }
        Msg::ScrollStory(by) if matches!(app.screens.overlay, Overlay::Explore { .. }) => {
            app.screens.update(Msg::ScrollStory(by));
        }
        Msg::Blank | Msg::ToggleElapsed | Msg::ToggleHidden | Msg::TogglePanels => {
            if let Some(notice) = app.talk.present.as_mut().and_then(|p| p.update(&msg)) {
                app.screens.notice = Some(notice);
            }
        }
        Msg::ScrollStory(by) => {
            let offset = app.place.story_offset().saturating_add_signed(by);
            app.place.story_scroll = (app.place.tick, app.place.design, offset);
        }
        Msg::OpenSave => {
            if app.version.added.is_empty() {
                app.screens.notice =
                    Some("nothing to save yet: add a what-if with x, ! or s first".into());
            } else {
                app.screens.overlay = Overlay::Save(SavePrompt {
                    path: format!("{}-what-if.toml", app.version.original.name),
                    confirm_overwrite: false,
                    error: None,
                });
            }
        }
        Msg::OpenPicker => effects.push(Effect::ListScenarios(vec![
            PathBuf::from("scenarios"),
            PathBuf::from("."),
        ])),
        Msg::OpenWindow => {
            app.place.playing = false;
            let config = &app.version.scenario().config;
            let stack = crate::window::scenario::stack_from_config(config);
            let purchase = crate::window::scenario::Purchase::of_scenario(config);
            // Closed and opened again on the same story, the screen keeps its edits.
            let kept = app
                .screens
                .window
                .as_ref()
                .is_some_and(|w| *w.opened_on() == stack && *w.purchase() == purchase);
            if !kept {
                app.screens.window = Some(Box::new(WindowScreen::buying(stack, purchase)));
            }
            app.screens.screen = Screen::Window;
        }
        Msg::Window(msg) => {
            let action = match app.screens.window.as_mut() {
                Some(w) => w.update(msg),
                None => WindowAction::Close,
            };
            match action {
                WindowAction::None => {}
                WindowAction::Close => app.screens.screen = Screen::Replay,
                WindowAction::OpenScenario(s) => effects.push(open(
                    app,
                    s,
                    crate::window::scenario::SCENARIO_NAME,
                    Some("your stack, every answer lost: watch the attempts multiply".into()),
                    ErrorsTo::Window,
                )),
            }
        }
        _ => {}
    }
}

/// Changes to the story on screen: what-ifs and their undoing, the keys K and m, back as
/// written.
fn story(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
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

/// Long work beside the loop: the explorer and a day of traffic, their progress and results.
fn jobs(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    match msg {
        Msg::OpenExplore if app.jobs.searching.is_some() => {
            app.screens.notice = Some(searching_words(0, app));
        }
        Msg::OpenExplore => {
            app.place.playing = false;
            let search = crate::replay::effect::Searching::default();
            app.jobs.searching = Some(search.clone());
            app.screens.notice = Some(searching_words(0, app));
            effects.push(Effect::Explore {
                scenario: Box::new(app.version.scenario().clone()),
                search,
            });
        }
        Msg::ChoreDone => {}
        Msg::Searched(plans) if app.jobs.searching.is_some() => {
            app.screens.notice = Some(searching_words(plans, app));
        }
        Msg::OpenTraffic if app.jobs.counting.is_some() => {
            app.screens.notice = Some("still counting the day of traffic · Esc stops".into());
        }
        Msg::OpenTraffic => {
            match crate::traffic::Settings::of_scenario_or_assumed(app.version.scenario()) {
                Ok((settings, assumed)) => {
                    app.place.playing = false;
                    let progress = std::sync::Arc::new(crate::traffic::Progress::default());
                    let note = assumed.then(crate::traffic::words::assumed);
                    app.jobs.counting = Some((progress.clone(), note));
                    app.screens.notice = Some(format!(
                        "counting {} orders through every design · Esc stops",
                        crate::units::group_digits(u128::from(settings.orders))
                    ));
                    effects.push(Effect::Traffic {
                        scenario: Box::new(app.version.scenario().clone()),
                        settings: Box::new(settings),
                        progress,
                    });
                }
                Err(e) => app.screens.notice = Some(format!("no day of traffic: {e}")),
            }
        }
        Msg::Counted(result) => {
            let note = app.jobs.counting.take().and_then(|(_, note)| note);
            match result {
                Err(e) => app.screens.notice = Some(format!("the day of traffic failed: {e}")),
                Ok(_) if app.screens.overlay != Overlay::None => {
                    app.screens.notice =
                        Some("the day of traffic is counted: close this and press T".into());
                }
                Ok(report) => {
                    app.screens.notice = None;
                    let selected = report
                        .designs
                        .iter()
                        .position(|d| d.design == app.place.design)
                        .unwrap_or(0);
                    app.screens.overlay = Overlay::Traffic(super::app::TrafficView {
                        report: std::sync::Arc::from(report),
                        selected,
                        note,
                    });
                }
            }
        }
        Msg::Explored(Err(e)) => {
            app.jobs.searching = None;
            app.screens.notice = Some(format!("the search failed: {e}"))
        }
        Msg::Explored(Ok(found)) => {
            app.jobs.searching = None;
            app.screens.notice = None;
            let row = found
                .designs
                .iter()
                .position(|d| d.design == app.place.design)
                .unwrap_or(0);
            app.screens.overlay = Overlay::Explore { found, row, col: 0 };
        }
        _ => {}
    }
}

/// The room's answers to a question: answer mode, hands, the reveal, taking an answer back.
fn room(app: &mut App, msg: Msg) {
    match msg {
        Msg::Answer(choice) => answer(app, choice),
        Msg::OpenAnswer => open_answer(app, false),
        Msg::OpenVotes => open_answer(app, true),
        Msg::Reveal => reveal(app),
        Msg::TakeBack => take_back(app),
        _ => {}
    }
}

/// Keys typed into what is open (a dialog, the hands being counted, a long job), Esc, and
/// quitting: the arms of one key stay together, in the order they are tried.
fn keys_in_dialogs(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
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

/// News from outside the viewer: the clock, a changed file, a finished simulation, a load or a
/// save, the notes' link.
fn news(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    match msg {
        Msg::Clock(secs) => {
            if let Some(p) = app.talk.present.as_mut() {
                p.elapsed_secs = secs;
            }
        }
        Msg::FileChanged(Ok(scenario)) => effects.push(app.start(Job {
            original: keyed_as_on_screen(app, scenario),
            added: app.version.added.clone(),
            after: After::Reload,
        })),
        Msg::FileChanged(Err(e)) => {
            // An older "reloaded" would say the file is fine while it is not.
            app.screens.notice = None;
            app.error = Some(e);
        }
        Msg::SessionChanged(result) => session_changed(app, result),
        Msg::Simulated { after, result } => app.finish(after, result),
        Msg::Loaded {
            source,
            result,
            mut picker,
        } => match result {
            Ok(s) => effects.push(open(app, s, &source, None, ErrorsTo::Picker(picker))),
            Err(e) => {
                picker.error = Some(e);
                app.screens.overlay = Overlay::Picker(picker);
            }
        },
        Msg::Saved { path, result } => saved(app, &path, result),
        Msg::NotesLink(off) => {
            // Notes that have just come on need the position, even an old one.
            if off.is_none() {
                app.talk.published = None;
            }
            app.talk.notes_off = off;
        }
        _ => {}
    }
}

/// Messages that start another story, or act on the one being replaced: they wait while a
/// story is being simulated. Stepping, switching designs and the overlays do not.
fn changes_the_story(app: &App, msg: &Msg) -> bool {
    match msg {
        Msg::Fork(_)
        | Msg::Unfork
        | Msg::Redo
        | Msg::CycleStepKeys
        | Msg::CycleKeyStrategy
        | Msg::AsWritten
        | Msg::OpenSave
        | Msg::OpenPicker
        | Msg::OpenWindow => true,
        // Moving to another scenario of the session.
        Msg::Next => {
            app.screens.screen == Screen::Replay && app.at_end() && next_section(app).is_some()
        }
        Msg::Prev => {
            app.screens.screen == Screen::Replay
                && app.place.tick == 0
                && app.talk.agenda.as_ref().is_some_and(|a| a.at > 0)
        }
        Msg::Window(_) => true,
        Msg::Confirm => matches!(
            app.screens.overlay,
            Overlay::Picker(_) | Overlay::Save(_) | Overlay::Checklist(_)
        ),
        _ => false,
    }
}

fn finished(app: &App) -> bool {
    match app.screens.screen {
        Screen::Replay | Screen::Window => app.at_end(),
        Screen::Compare => app.place.compare_at >= last_time(app),
    }
}

/// Replays the explorer's chosen cell as a what-if: its design, with its plan's faults added
/// to the scenario's own.
fn open_counterexample(
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

/// Whether a tick is one of the events `]` and `[` stop at.
fn matters(tick: &crate::sim::Tick) -> bool {
    use crate::sim::TickKind;
    matches!(
        tick.kind,
        TickKind::Charge
            | TickKind::Crash
            | TickKind::Lost
            | TickKind::Expire
            | TickKind::Refund
            | TickKind::Alert
            | TickKind::Effect
            | TickKind::GiveUp
    )
}

/// The search's progress, as the notice line shows it.
fn searching_words(plans: usize, app: &App) -> String {
    let plans = app
        .jobs
        .searching
        .as_ref()
        .map_or(plans, |s| s.plans_run().max(plans));
    format!(
        "searching every plan of up to {} faults: {plans} run (at most {} per design) · Esc stops",
        crate::replay::effect::EXPLORE_FAULTS,
        crate::replay::effect::EXPLORE_MAX_PLANS
    )
}

/// Puts one of the talk's cards on screen, or takes it away.
fn set_card(app: &mut App, card: Option<super::app::Card>) {
    if let Some(a) = app.talk.agenda.as_mut() {
        a.card = card;
    }
    app.screens.notice = None;
}

/// A file read again after an edit, keyed as the story on screen is: what K and m chose
/// stays in force through a live edit, as the what-ifs do (the file's own keys are still
/// what `0` goes back to).
fn keyed_as_on_screen(app: &App, mut fresh: Scenario) -> Scenario {
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
fn next_keys(app: &App) -> Option<KeyStrategy> {
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
fn as_written(app: &mut App, effects: &mut Vec<Effect>) {
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

/// The first question after the current tick still open under the design on screen, which
/// no jump passes.
fn next_question(app: &App) -> Option<usize> {
    app.next_question(app.place.tick + 1).map(|(tick, _)| tick)
}

/// Moves to the next or previous tick that matters, stopping at a question on the way.
fn jump_event(app: &mut App, forward: bool) {
    if forward && app.quiz_pending() {
        app.screens.notice = Some(quiz_reminder(app));
        return;
    }
    let ticks = &app.trace().ticks;
    let found = if forward {
        (app.place.tick + 1..ticks.len()).find(|&i| matters(&ticks[i]))
    } else {
        (0..app.place.tick).rev().find(|&i| matters(&ticks[i]))
    };
    let Some(mut target) = found else {
        app.screens.notice = Some(if forward {
            "nothing more that matters after this tick".into()
        } else {
            "nothing that matters before this tick".into()
        });
        return;
    };
    if forward && let Some(q) = next_question(app).filter(|&q| q < target) {
        target = q;
    }
    app.place.tick = target;
    app.screens.notice = Some(format!(
        "tick {}: {}",
        target + 1,
        app.told().labels[target]
    ));
}

/// Goes to what `typed` names: a tick number (`12`) or a time (`14:02:38`, `day 2 02:00`,
/// `Fri 18:00`), the tick a question at that time would stop on. A question on the way is
/// not skipped.
fn go_to(app: &mut App, typed: &str) {
    let typed = typed.trim();
    let last = app.last_tick();
    let target = if let Ok(n) = typed.parse::<usize>() {
        match n {
            1.. if n <= last + 1 => Ok(n - 1),
            _ => Err(format!(
                "there is no tick {n}: this story has ticks 1 to {}",
                last + 1
            )),
        }
    } else {
        crate::scenario::values::parse_clock(typed)
            .map_err(|e| format!("{e}; or a tick number"))
            .and_then(|c| tick_of_time(app, c))
    };
    match target {
        Ok(mut t) => {
            if t > app.place.tick
                && let Some(q) = next_question(app).filter(|&q| q < t)
            {
                t = q;
            }
            if app.screens.screen == Screen::Compare {
                toggle_compare(app);
            }
            app.place.tick = t;
            app.screens.overlay = Overlay::None;
        }
        Err(e) => {
            app.screens.overlay = Overlay::Goto {
                typed: typed.to_string(),
                error: Some(crate::text::sanitize_line(&e)),
            }
        }
    }
}

/// The tick a `[[quiz]] at` of this time would name: the time read as every time in the
/// file is (the first such moment at or after the start), then its first tick at or after.
fn tick_of_time(app: &App, clock: crate::scenario::values::ClockTime) -> Result<usize, String> {
    let at = app.version.scenario().instant_of(clock);
    let trace = app.trace();
    crate::scenario::NarrationTarget::At(at)
        .find(trace, app.told())
        .ok_or_else(|| {
            let last = trace.ticks.last().map_or_else(String::new, |t| {
                format!("; the last is at {}", trace.clock.format_short(t.at))
            });
            format!(
                "no tick comes at or after {} under {}{last}",
                trace.clock.format_short(at),
                app.place.design.id()
            )
        })
}

fn step_forward(app: &mut App) {
    match app.screens.screen {
        Screen::Replay | Screen::Window => {
            app.place.tick = (app.place.tick + 1).min(app.last_tick())
        }
        Screen::Compare => {
            let now = app.place.compare_at;
            if let Some(next) = compare_times(app).into_iter().find(|t| *t > now) {
                app.place.compare_at = next;
            }
        }
    }
}

fn step_back(app: &mut App) {
    match app.screens.screen {
        Screen::Replay | Screen::Window => app.place.tick = app.place.tick.saturating_sub(1),
        Screen::Compare => {
            let now = app.place.compare_at;
            if let Some(prev) = compare_times(app).into_iter().rfind(|t| *t < now) {
                app.place.compare_at = prev;
            }
        }
    }
}

/// Every moment at which one of the compared designs has a tick, in order: the stops of
/// the compare screen.
fn compare_times(app: &App) -> Vec<crate::sim::Instant> {
    let mut times: Vec<_> = app
        .screens
        .compared
        .iter()
        .copied()
        .flat_map(|d| app.version.trace_of(d).ticks.iter().map(|t| t.at))
        .collect();
    times.sort_unstable();
    times.dedup();
    times
}

fn first_time(app: &App) -> crate::sim::Instant {
    compare_times(app).first().copied().unwrap_or_default()
}

fn last_time(app: &App) -> crate::sim::Instant {
    compare_times(app).last().copied().unwrap_or_default()
}

fn quiz_reminder(app: &App) -> String {
    if matches!(app.screens.overlay, Overlay::Answering) {
        let n = app.question_here().map_or(0, |(_, q)| app.choices(q).len());
        return format!("the room's answer first: press 1 to {n}, or Esc");
    }
    "the room answers first: a, then the answer's number; or v to count hands".to_string()
}

/// `a` or `v` at a question: answer mode, or counting hands. A revealed answer is final under
/// its design; another design asks the question again.
fn open_answer(app: &mut App, votes: bool) {
    let Some((index, quiz)) = app.question_here() else {
        return;
    };
    let choices = app.choices(quiz).len();
    app.place.playing = false;
    if app.response_here().is_some_and(|r| r.is_revealed()) {
        app.screens.notice = Some(format!(
            "the room's answer under {} is revealed and stays; switch design (1–6) to ask again under another",
            crate::replay::shown::design_name(app, app.place.design)
        ));
        return;
    }
    if votes {
        if let Some(r) = app.talk.room.entry(index, app.place.design) {
            r.votes.resize(choices, 0);
        }
        app.screens.overlay = Overlay::Voting {
            selected: 0,
            fresh: true,
        };
    } else {
        app.screens.overlay = Overlay::Answering;
    }
}

/// The room's answer, in answer mode: kept, and revealed by the next step (or Enter).
fn answer(app: &mut App, choice: usize) {
    let Some((index, quiz)) = app.question_here() else {
        return;
    };
    let choices = app.choices(quiz);
    let Some(text) = choices.get(choice).cloned() else {
        app.screens.notice = Some(format!("choose 1 to {}, or Esc", choices.len()));
        return;
    };
    let design = app.place.design;
    match app.talk.room.entry(index, design) {
        Some(r) if r.is_revealed() => {}
        Some(r) => {
            r.choice = Some(choice);
            app.screens.overlay = Overlay::None;
            app.screens.notice = Some(format!(
                "the room says {} {text}: → or Enter reveals, u takes it back",
                choice + 1
            ));
        }
        None => {}
    }
}

/// A digit typed while counting hands (the selected choice's count), `+` or `-` (one more or
/// less), or `None` for Backspace (its last digit erased).
fn count(app: &mut App, typed: Option<char>) {
    let Overlay::Voting { selected, fresh } = app.screens.overlay else {
        return;
    };
    let Some((index, _)) = app.question_here() else {
        return;
    };
    let Some(r) = app.talk.room.entry(index, app.place.design) else {
        return;
    };
    let Some(n) = r.votes.get_mut(selected) else {
        return;
    };
    *n = match typed {
        Some('+') => n.saturating_add(1),
        Some('-') => n.saturating_sub(1),
        Some(c) => {
            let digit = c.to_digit(10).unwrap_or(0);
            if fresh {
                digit
            } else {
                n.saturating_mul(10).saturating_add(digit)
            }
        }
        None => *n / 10,
    }
    .min(MAX_VOTES);
    app.screens.overlay = Overlay::Voting {
        selected,
        fresh: false,
    };
}

/// Shows the right answer to what the room said, under the design on screen: final from now.
fn reveal(app: &mut App) {
    app.place.playing = false;
    let Some((index, quiz)) = app.question_here() else {
        return;
    };
    let correct = app.correct(quiz, app.place.design);
    let started = app.response_here().is_some_and(|r| r.started());
    if !started {
        app.screens.notice = Some(if matches!(app.screens.overlay, Overlay::Voting { .. }) {
            "no hands counted yet: type each choice's count, then Enter".into()
        } else {
            quiz_reminder(app)
        });
        return;
    }
    if let Some(r) = app.talk.room.entry(index, app.place.design)
        && !r.is_revealed()
    {
        r.reveal(correct);
        if r.choice.is_none() {
            app.screens.notice = Some("the room is split: no choice has the most hands".into());
        }
    }
    app.screens.overlay = Overlay::None;
}

/// Takes back the room's answer (and its counted hands) before the reveal.
fn take_back(app: &mut App) {
    let Some((index, _)) = app.question_here() else {
        return;
    };
    if let Some(r) = app.talk.room.entry(index, app.place.design)
        && r.waiting()
    {
        *r = crate::replay::room::Response::default();
        app.screens.notice =
            Some("the room's answer is taken back: the question waits again".into());
    }
}

/// Whether leaving now loses something: what-ifs never saved, or a room's answers.
fn leaving_loses(app: &App) -> bool {
    app.version.unsaved() || (app.talk.present.is_some() && app.talk.room_answered())
}

/// The section after the one on screen, when a session file is played.
fn next_section(app: &App) -> Option<usize> {
    let a = app.talk.agenda.as_ref()?;
    (a.at + 1 < a.playlist.sections.len()).then_some(a.at + 1)
}

/// Opens section `to` of the playlist, at its first tick (or its last, going back).
fn open_section(app: &mut App, to: usize, at_end: bool) -> Effect {
    let section = app
        .talk
        .agenda
        .as_ref()
        .and_then(|a| a.playlist.sections.get(to));
    let keys = section.map(|s| s.keys).unwrap_or_default();
    let scenario = section
        .map(|s| s.scenario.clone())
        .unwrap_or_else(|| app.version.original.clone());
    app.screens.overlay = Overlay::None;
    app.start(Job {
        original: scenario,
        added: Vec::new(),
        after: After::Section {
            index: to,
            at_end,
            keys,
        },
    })
}

/// Reads the chosen entry (or the typed path) next; an empty choice says what to do.
fn pick(app: &mut App, mut picker: Picker) -> Option<Effect> {
    let chosen = picker
        .entries
        .get(picker.selected)
        .filter(|_| picker.matches(picker.selected));
    let (source, path, builtin) = match chosen {
        Some(e) => (e.source.clone(), e.path.clone(), e.builtin),
        None => (picker.typed.trim().to_string(), None, false),
    };
    if source.is_empty() {
        picker.error = Some("type a path to a scenario file".into());
        app.screens.overlay = Overlay::Picker(picker);
        return None;
    }
    // A listed file is opened by its real name: the name shown may have lost characters.
    Some(Effect::Load {
        source,
        path,
        builtin,
        picker,
    })
}

/// Replaces the story on screen with another scenario, from its start, once it is simulated.
fn open(
    app: &mut App,
    scenario: Scenario,
    source: &str,
    notice: Option<String>,
    errors_to: ErrorsTo,
) -> Effect {
    app.screens.overlay = Overlay::None;
    app.start(Job {
        original: scenario,
        added: Vec::new(),
        after: After::Open {
            source: source.to_string(),
            notice,
            errors_to,
        },
    })
}

/// Writes the what-if next: a new file, or (once the viewer has agreed) over one.
fn save(app: &mut App, mut prompt: SavePrompt) -> Option<Effect> {
    let path = PathBuf::from(prompt.path.trim());
    if prompt.path.trim().is_empty() {
        prompt.error = Some("type a file name".into());
        app.screens.overlay = Overlay::Save(prompt);
        return None;
    }
    // The saved file opens on the design on screen, so `idem run` tells the same story.
    let written = fork_toml::to_toml(&app.version.original, &app.version.added).and_then(|text| {
        if app.place.design == app.version.original.design {
            Ok(text)
        } else {
            fork_toml::opening_on(&text, app.place.design)
        }
    });
    match written {
        Ok(text) => Some(Effect::Save {
            path,
            text,
            replace: prompt.confirm_overwrite,
        }),
        Err(e) => {
            prompt.error = Some(e);
            app.screens.overlay = Overlay::Save(prompt);
            None
        }
    }
}

/// What came of a save: done, a file in the way (the next Enter replaces it), or an error.
fn saved(app: &mut App, path: &Path, result: Result<(), WriteError>) {
    let Overlay::Save(mut prompt) = app.screens.overlay.clone() else {
        return;
    };
    match result {
        Ok(()) => {
            app.screens.overlay = Overlay::None;
            app.version.saved_added = app.version.added.clone();
            app.screens.notice = Some(format!(
                "saved to {}",
                crate::text::sanitize_line(&path.display().to_string())
            ));
        }
        Err(WriteError::Exists(_)) => {
            prompt.confirm_overwrite = true;
            prompt.error = Some("that file exists: Enter again replaces it, Esc keeps it".into());
            app.screens.overlay = Overlay::Save(prompt);
        }
        Err(WriteError::Other(e)) => {
            prompt.error = Some(e);
            app.screens.overlay = Overlay::Save(prompt);
        }
    }
}

/// Between the replay and the compare screen, keeping the moment.
fn toggle_compare(app: &mut App) {
    match app.screens.screen {
        Screen::Replay | Screen::Window => {
            // From the end of one story, show the end of all three.
            app.place.compare_at = if app.at_end() {
                last_time(app).max(app.now())
            } else {
                app.now()
            };
            app.place.compare_from = Some((
                app.place.design,
                app.place.tick,
                app.place.compare_at,
                app.version.revision,
            ));
            app.screens.screen = Screen::Compare;
        }
        Screen::Compare => {
            let at = app.place.compare_at;
            app.screens.screen = Screen::Replay;
            app.place.tick = match app.place.compare_from.take() {
                // Not moved in compare, and the same story: the very tick it was opened from.
                // A story changed meanwhile (a what-if, K, back as written) is found by time.
                Some((design, tick, opened, revision))
                    if design == app.place.design
                        && opened == at
                        && revision == app.version.revision
                        && tick < app.trace().ticks.len() =>
                {
                    tick
                }
                _ => app.trace().tick_at_or_before(at),
            };
        }
    }
}

fn go_first(app: &mut App) {
    match app.screens.screen {
        Screen::Replay | Screen::Window => app.place.tick = 0,
        Screen::Compare => app.place.compare_at = first_time(app),
    }
}

/// The session file was read again: its agenda takes the new list of parts, or the notice
/// says why the one read before is kept. The story on screen is not touched: the part on
/// screen is read again from its own file when the trainer moves to it.
fn session_changed(app: &mut App, result: Result<Box<crate::present::playlist::Playlist>, String>) {
    let Some(agenda) = app.talk.agenda.as_mut() else {
        return;
    };
    match result {
        Ok(playlist) => {
            agenda.replace(*playlist);
            let parts = agenda.playlist.sections.len();
            app.screens.notice = Some(format!(
                "the session file changed: {parts} part{}, part {} on screen",
                if parts == 1 { "" } else { "s" },
                agenda.at + 1
            ));
            // The notes show the agenda too: send them the new one.
            app.talk.published = None;
        }
        Err(e) => {
            app.screens.notice = Some(crate::text::sanitize_line(&format!(
                "the session file has an error, so the agenda read before is kept: {e}"
            )));
        }
    }
}

/// Updates the app with a message and runs every effect that follows, at once and on this
/// thread, until nothing is left: the replay as tests and exports drive it.
pub fn settle(app: &mut App, msg: Msg) {
    let mut pending = vec![msg];
    while let Some(msg) = pending.pop() {
        for effect in update(app, msg) {
            if let Some(next) = super::effect::run_now(effect) {
                pending.push(next);
            }
        }
    }
}
