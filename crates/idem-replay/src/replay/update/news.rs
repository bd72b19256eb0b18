//! News from outside the viewer: the clock, a changed scenario or session file, a finished
//! simulation, a load or a save, the notes' link.

use super::*;

/// News from outside the viewer: the clock, a changed file, a finished simulation, a load or a
/// save, the notes' link.
pub(super) fn news(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
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

/// The session file was read again: its agenda takes the new list of parts, or the notice
/// says why the one read before is kept. The story on screen is not touched: the part on
/// screen is read again from its own file when the trainer moves to it.
pub(super) fn session_changed(
    app: &mut App,
    result: Result<Box<crate::present::playlist::Playlist>, String>,
) {
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
