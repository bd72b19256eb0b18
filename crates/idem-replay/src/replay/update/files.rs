//! Files chosen and written: the scenario picked in the picker, opened, or saved with its
//! what-ifs.

use super::*;

/// Reads the chosen entry (or the typed path) next; an empty choice says what to do.
pub(super) fn pick(app: &mut App, mut picker: Picker) -> Option<Effect> {
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
pub(super) fn open(
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
pub(super) fn save(app: &mut App, mut prompt: SavePrompt) -> Option<Effect> {
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
pub(super) fn saved(app: &mut App, path: &Path, result: Result<(), WriteError>) {
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
