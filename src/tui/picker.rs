//! The scenario picker's list: the files of a folder, then the built-in library. Reading them is
//! an effect the update function asks for; this is where it happens.

use super::app::{Picker, PickerEntry};
use crate::scenario;
use std::path::{Path, PathBuf};

/// Lists `dir`'s scenario files, then the built-in library.
pub fn list(dir: &Path) -> Picker {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut entries: Vec<PickerEntry> = files
        .iter()
        .map(|path| {
            let source = crate::text::sanitize_line(&path.display().to_string());
            match scenario::load(path) {
                Ok(s) => PickerEntry {
                    source,
                    path: Some(path.clone()),
                    summary: crate::text::summary(&s.description, 200),
                    title: s.title,
                    builtin: false,
                },
                Err(e) => PickerEntry {
                    source,
                    path: Some(path.clone()),
                    title: "(this file has errors)".to_string(),
                    // The row already names the file: keep the position and the message.
                    summary: {
                        let line = e.one_line();
                        line.strip_prefix(&format!("{}:", e.file))
                            .map_or(line.clone(), |rest| format!("line {}", rest.trim_start()))
                    },
                    builtin: false,
                },
            }
        })
        .collect();
    for b in scenario::library::BUILTIN {
        if let Ok(s) = b.load() {
            entries.push(PickerEntry {
                source: b.name.to_string(),
                path: None,
                summary: crate::text::summary(&s.description, 200),
                title: s.title,
                builtin: true,
            });
        }
    }
    Picker {
        entries,
        selected: 0,
        typed: String::new(),
        error: None,
    }
}
