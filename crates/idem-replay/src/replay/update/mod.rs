//! The update function: a message in, the new state out, and the effects it asks for. It is
//! the only place the replay's state changes; it draws nothing (its crate has no terminal
//! library) and reads and writes no file. This file is the router: each part of the replay's
//! behaviour is a file of this folder, and every message is routed to one by name.

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

mod dialogs;
mod files;
mod jobs;
mod jumps;
mod moves;
mod news;
mod room;
mod screens;
mod story;
mod talk;
#[cfg(test)]
mod tests;

use dialogs::*;
use files::*;
use jobs::*;
use jumps::*;
use moves::*;
use news::*;
use room::*;
use screens::*;
use story::*;
use talk::*;

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

pub(super) fn apply(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
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
        | Msg::Slower => moves(app, msg, effects),
        Msg::SwitchDesign(..)
        | Msg::JumpToDivergence
        | Msg::ToggleCompare
        | Msg::ToggleCompared(..)
        | Msg::JumpEvent(..)
        | Msg::GoToTick(..) => designs(app, msg),
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
        Msg::OpenDialog(..) | Msg::InDialog(..) => dialog(app, msg, effects),
        Msg::Clock(..)
        | Msg::FileChanged(..)
        | Msg::SessionChanged(..)
        | Msg::Simulated { .. }
        | Msg::Loaded { .. }
        | Msg::Saved { .. }
        | Msg::NotesLink(..) => news(app, msg, effects),
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
