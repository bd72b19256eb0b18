//! The scenario picker's list: the files of a folder, then the built-in library. Reading them is
//! an effect the update function asks for; this is where it happens.

use crate::scenario;
use std::path::{Path, PathBuf};

/// The most files listed from one folder.
const MAX_FILES: usize = 200;

/// Lists `dir`'s scenario files, then the built-in library.
pub fn list(dir: &Path) -> Picker {
    list_all(&[dir.to_path_buf()])
}

/// Lists the scenario files of each folder in turn (a file reached twice is listed once),
/// then the built-in library. In a folder other than the first, only files that look like
/// scenarios (a `title` line) are listed, so `Cargo.toml` and its kind stay out.
pub fn list_all(dirs: &[PathBuf]) -> Picker {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (n, dir) in dirs.iter().enumerate() {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                    .take(MAX_FILES)
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        for path in found {
            let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if (n == 0 || looks_like_a_scenario(&path)) && seen.insert(real) {
                files.push(path);
            }
        }
    }
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

/// Whether a file has a top-level `title = …` line in its first 64 KiB.
fn looks_like_a_scenario(path: &Path) -> bool {
    // Never an ordinary open: a FIFO or a link to a device named `*.toml` would wait for ever.
    crate::bounded_read::read_head(path, 64 * 1024).is_ok_and(|head| {
        String::from_utf8_lossy(&head)
            .lines()
            .any(|l| l.trim_start().starts_with("title") && l.contains('='))
    })
}

/// The scenario picker: files in `./scenarios`, the built-in library, and a typed path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picker {
    pub entries: Vec<PickerEntry>,
    /// Index into `entries`; `entries.len()` is the typed-path line.
    pub selected: usize,
    pub typed: String,
    /// Why the last choice could not be opened.
    pub error: Option<String>,
}

impl Picker {
    /// Whether entry `i` matches what is typed: every entry while nothing is, else those whose
    /// name or title holds the text, in any letter case.
    pub fn matches(&self, i: usize) -> bool {
        let typed = self.typed.trim().to_lowercase();
        self.entries.get(i).is_some_and(|e| {
            typed.is_empty()
                || e.source.to_lowercase().contains(&typed)
                || e.title.to_lowercase().contains(&typed)
        })
    }

    /// The entries that match, in order.
    pub fn visible(&self) -> Vec<usize> {
        (0..self.entries.len())
            .filter(|&i| self.matches(i))
            .collect()
    }

    /// Moves the selection to the next (or previous) matching entry; past the last comes the
    /// typed-path line.
    pub fn step(&mut self, down: bool) {
        let visible = self.visible();
        let at = visible.iter().position(|&i| i == self.selected);
        self.selected = match (at, down) {
            (Some(p), true) => visible.get(p + 1).copied().unwrap_or(self.entries.len()),
            (Some(p), false) => visible[p.saturating_sub(1)],
            // On the path line: down stays, up goes to the last match.
            (None, true) => self.entries.len(),
            (None, false) => visible.last().copied().unwrap_or(self.entries.len()),
        };
    }

    /// After the text changed: the first match is selected, or the path line when none is.
    pub fn refilter(&mut self) {
        self.error = None;
        // Nothing typed any more: every entry shows again, and the selection stays put.
        if self.typed.trim().is_empty() {
            return;
        }
        self.selected = self
            .visible()
            .first()
            .copied()
            .unwrap_or(self.entries.len());
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickerEntry {
    /// What it is listed as: a path (stripped of control characters), or a built-in name.
    pub source: String,
    /// The file itself, by its real name, which may hold characters `source` leaves out.
    pub path: Option<PathBuf>,
    pub title: String,
    pub summary: String,
    pub builtin: bool,
}
