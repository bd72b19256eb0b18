//! The talk's own cards and its parts: the agenda, the end card, moving to another part of
//! a session.

use super::*;

/// Puts one of the talk's cards on screen, or takes it away.
pub(super) fn set_card(app: &mut App, card: Option<crate::replay::app::Card>) {
    if let Some(a) = app.talk.agenda.as_mut() {
        a.card = card;
    }
    app.screens.notice = None;
}

/// The section after the one on screen, when a session file is played.
pub(super) fn next_section(app: &App) -> Option<usize> {
    let a = app.talk.agenda.as_ref()?;
    (a.at + 1 < a.playlist.sections.len()).then_some(a.at + 1)
}

/// Opens section `to` of the playlist, at its first tick (or its last, going back).
pub(super) fn open_section(app: &mut App, to: usize, at_end: bool) -> Effect {
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
