//! `idem window --from` held to a corpus of real configuration files: each entry of
//! tests/fixtures/window-corpus/corpus.toml gives the figures worked out by hand, or the
//! message it is refused with; each mutation changes a number in a file and gives the figures
//! the product's rules then make. The files are kept as published, under
//! tests/fixtures/window-corpus/files/, each named in SOURCES.md beside the table with its
//! repository, path, commit and licence. A file missing, or one there that SOURCES.md does not
//! name, fails the test.

use crate::common;

use std::path::{Path, PathBuf};

use idem::cli::window::{WindowArgs, stack_from_args};
use serde::Deserialize;

#[derive(Deserialize)]
struct Corpus {
    entry: Vec<Entry>,
}

#[derive(Deserialize, Clone)]
struct Figures {
    attempts: Option<String>,
    requests: Option<u64>,
    last_request: Option<u64>,
    give_up: Option<u64>,
    window: Option<u64>,
}

#[derive(Deserialize)]
struct Entry {
    id: String,
    from: Vec<String>,
    #[serde(default)]
    params: Vec<String>,
    refused: Option<String>,
    /// What the reader must say it did not read (each a part of some note).
    #[serde(default)]
    notes_say: Vec<String>,
    #[serde(flatten)]
    figures: Figures,
    #[serde(default)]
    mutation: Vec<Mutation>,
}

#[derive(Deserialize)]
struct Mutation {
    file: String,
    find: String,
    replace: String,
    #[serde(flatten)]
    figures: Figures,
}

fn table() -> Corpus {
    let text =
        std::fs::read_to_string(common::manifest("tests/fixtures/window-corpus/corpus.toml"))
            .expect("the corpus table");
    toml::from_str(&text).unwrap_or_else(|e| panic!("the corpus table: {}", e.message()))
}

/// The folder holding the files.
fn corpus_dir() -> PathBuf {
    common::root().join("tests/fixtures/window-corpus/files")
}

/// Every file under `dir`, as paths relative to it with `/` between parts, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else if let Ok(rel) = path.strip_prefix(base) {
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The rows of SOURCES.md's table: (folder, file), for each file kept.
fn source_rows() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(common::manifest("tests/fixtures/window-corpus/SOURCES.md"))
        .expect("SOURCES.md");
    text.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| folder") && !l.starts_with("| ---"))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells.len() > 3).then(|| (cells[1].to_owned(), cells[2].trim_matches('`').to_owned()))
        })
        .collect()
}

fn args(flags: &[String]) -> WindowArgs {
    use clap::Parser;
    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        window: WindowArgs,
    }
    let mut all = vec!["window".to_owned()];
    all.extend_from_slice(flags);
    Cli::try_parse_from(all).expect("valid flags").window
}

/// What `idem window` makes of the entry read from `dir`: its figures and notes, or its
/// refusal.
fn figures(
    dir: &Path,
    from: &[String],
    params: &[String],
) -> Result<(Figures, Vec<String>), String> {
    let mut flags = Vec::new();
    for f in from {
        flags.push("--from".to_owned());
        flags.push(dir.join(f).display().to_string());
    }
    for p in params {
        flags.push("--param".to_owned());
        flags.push(p.clone());
    }
    let stack = stack_from_args(&args(&flags)).map_err(|e| e.to_string())?;
    let report = stack.report().map_err(|e| e.to_string())?;
    let figures = Figures {
        attempts: Some(
            report
                .attempts
                .exact()
                .map_or_else(|| "unbounded".to_owned(), |n| n.to_string()),
        ),
        requests: report.sends.exact().and_then(|n| u64::try_from(n).ok()),
        last_request: report.automatic_delay.whole_seconds(),
        give_up: report.gives_up.whole_seconds(),
        window: report.required_window.whole_seconds(),
    };
    let mut notes = stack.notes.clone();
    for layer in &stack.layers {
        notes.extend(layer.warnings.iter().cloned());
        if let Some(source) = &layer.provenance {
            notes.extend(source.values.iter().cloned());
        }
    }
    Ok((figures, notes))
}

/// Each figure the table gives, compared with what was made; the differences, said.
fn differences(what: &str, expected: &Figures, got: &Figures) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |name: &str, e: Option<String>, g: Option<String>| {
        if let Some(e) = e
            && Some(&e) != g.as_ref()
        {
            out.push(format!("{what}: {name} expected {e}, got {g:?}"));
        }
    };
    check("attempts", expected.attempts.clone(), got.attempts.clone());
    check(
        "requests",
        expected.requests.map(|n| n.to_string()),
        got.requests.map(|n| n.to_string()),
    );
    check(
        "last request",
        expected.last_request.map(|n| n.to_string()),
        got.last_request.map(|n| n.to_string()),
    );
    check(
        "give-up",
        expected.give_up.map(|n| n.to_string()),
        got.give_up.map(|n| n.to_string()),
    );
    check(
        "window",
        expected.window.map(|n| n.to_string()),
        got.window.map(|n| n.to_string()),
    );
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a scratch folder");
    for entry in std::fs::read_dir(from).expect("a corpus folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("a copy");
        }
    }
}

#[test]
fn every_corpus_file_is_here_named_in_sources_and_has_a_figure_or_a_refusal() {
    let corpus = table();
    let dir = corpus_dir();
    let kept = files_under(&dir);
    let rows = source_rows();
    let named: Vec<String> = rows.iter().map(|(d, f)| format!("{d}/{f}")).collect();
    let mut wrong = Vec::new();
    for file in &named {
        if !kept.contains(file) {
            wrong.push(format!(
                "SOURCES.md names {file}, which is not under files/"
            ));
        }
    }
    for file in &kept {
        if !named.contains(file) {
            wrong.push(format!("files/{file} has no row in SOURCES.md"));
        }
    }
    assert!(
        kept.len() >= 60,
        "{} files kept; the corpus holds at least 60",
        kept.len()
    );
    let mut folders_used = std::collections::BTreeSet::new();
    for e in &corpus.entry {
        for from in &e.from {
            let path = from.split('#').next().unwrap_or_default();
            if !dir.join(path).exists() {
                wrong.push(format!("{}: {path} is not under files/", e.id));
            }
            folders_used.insert(path.split('/').next().unwrap_or_default().to_owned());
        }
        if e.refused.is_some() == e.figures.attempts.is_some() {
            wrong.push(format!("{}: either figures or a refusal", e.id));
        }
        for m in &e.mutation {
            if m.figures.attempts.is_none() {
                wrong.push(format!("{}: a mutation's figures", e.id));
            }
            if !dir.join(&m.file).is_file() {
                wrong.push(format!(
                    "{}: the mutated {} is not under files/",
                    e.id, m.file
                ));
            }
        }
    }
    for (folder, _) in &rows {
        if !folders_used.contains(folder) {
            wrong.push(format!("{folder}: kept, but no entry reads it"));
        }
    }
    wrong.dedup();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_corpus_gives_the_figures_worked_by_hand_and_its_mutations_move_them() {
    let dir = corpus_dir();
    let mut wrong = Vec::new();
    let (mut read, mut refused, mut mutations) = (0, 0, 0);
    for e in table().entry {
        match (&e.refused, figures(&dir, &e.from, &e.params)) {
            (Some(message), Err(err)) if err.contains(message.as_str()) => refused += 1,
            (Some(message), got) => wrong.push(format!(
                "{}: expected the refusal {message:?}, got {:?}",
                e.id,
                got.map(|_| "figures")
            )),
            (None, Err(err)) => wrong.push(format!("{}: refused: {err}", e.id)),
            (None, Ok((got, notes))) => {
                wrong.extend(differences(&e.id, &e.figures, &got));
                for said in &e.notes_say {
                    if !notes.iter().any(|n| n.contains(said.as_str())) {
                        wrong.push(format!("{}: no note says {said:?}; notes: {notes:?}", e.id));
                    }
                }
                read += 1;
            }
        }
        for m in &e.mutation {
            let scratch = common::TempDir::new("window-corpus");
            let top = m.file.split('/').next().unwrap_or_default();
            copy_tree(&dir.join(top), &scratch.path().join(top));
            let path = scratch.path().join(&m.file);
            let text = std::fs::read_to_string(&path).expect("the file to mutate");
            assert_eq!(
                text.matches(m.find.as_str()).count(),
                1,
                "{}: {:?} once in {}",
                e.id,
                m.find,
                m.file
            );
            std::fs::write(&path, text.replacen(m.find.as_str(), &m.replace, 1)).expect("written");
            match figures(scratch.path(), &e.from, &e.params) {
                Ok((got, _)) => wrong.extend(differences(
                    &format!("{} with {:?} → {:?}", e.id, m.find, m.replace),
                    &m.figures,
                    &got,
                )),
                Err(err) => wrong.push(format!("{} mutated: refused: {err}", e.id)),
            }
            mutations += 1;
        }
    }
    eprintln!("window corpus: {read} read, {refused} refused as expected, {mutations} mutations");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
