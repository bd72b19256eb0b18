//! Holds what the compiler cannot say about the layers. The workspace's crates are the
//! layers the compiler holds (`idem-sim` below `idem-story`, below `idem-core`, below
//! `idem-window`, below `idem-net` and `idem-replay`, below `idem-tui`, below `idem`): a
//! crate's manifest names what it may use, so no terminal crate reaches the engine or the
//! replay's model, no network or database crate reaches the replay, and clap stays in the
//! command line (`each_crate_names_only_the_crates_beneath_it` holds the manifests to it).
//! Inside a crate, too, every module sits on a floor, and an import may only point down to a
//! lower floor, never up or sideways across one:
//!
//! ```text
//!   main, cli, fuzzing       the command line; the fuzz targets' bodies     idem
//!   export                   handouts: drawn with the replay's frames       idem-tui
//!                            (SVG, cast); the Markdown one                  idem-replay
//!   tui                      the loop, runtime and drawing of the screens   idem-tui
//!   replay                   the replay's model: state, update, key table   idem-replay
//!   present                  session files, the link to the notes           idem-replay
//!   serve, drill             the HTTP processor, the drill of an endpoint   idem-net
//!   window                   the window calculator                          idem-window
//!   import                   an incident's records read into a scenario      idem-import
//!   explore, traffic         every fault plan; a day of orders              idem-core
//!   scenario                 the file format, checked against its stories   idem-core
//!   files, bounded_read      the one file writer, bounded reads             idem-core
//!   story                    the words written from the engine's facts      idem-story
//!   sim                      the engine: facts, no words, no terminal       idem-sim
//!   units, text              numbers and text for people                    idem-sim
//! ```
//!
//! And no two modules of one folder import each other.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each top-level module and its floor; a module may import only from lower floors.
const FLOORS: &[(&str, u8)] = &[
    ("text", 0),
    ("units", 0),
    ("sim", 1),
    ("story", 2),
    ("bounded_read", 3),
    ("checkers", 3),
    ("pty", 0),
    ("files", 4),
    ("scenario", 6),
    ("explore", 7),
    ("window", 7),
    ("import", 7),
    ("traffic", 7),
    ("present", 8),
    ("serve", 8),
    ("drill", 8),
    ("replay", 9),
    ("tui", 10),
    ("export", 11),
    ("cli", 12),
    ("fuzzing", 13),
    ("main", 13),
    ("lib", 14),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the source folder is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The workspace's crates, bottom first, each with the crates of the workspace it may use.
const CRATES: &[(&str, &[&str])] = &[
    ("crates/idem-sim", &[]),
    ("crates/idem-story", &["idem-sim"]),
    ("crates/idem-core", &["idem-sim", "idem-story"]),
    ("crates/idem-window", &["idem-core"]),
    ("crates/idem-net", &["idem-core", "idem-window"]),
    ("crates/idem-replay", &["idem-core", "idem-window"]),
    (
        "crates/idem-tui",
        &["idem-core", "idem-window", "idem-replay"],
    ),
    ("crates/idem-import", &["idem-core"]),
    (
        "",
        &[
            "idem-core",
            "idem-window",
            "idem-net",
            "idem-tui",
            "idem-import",
        ],
    ),
    ("crates/idem-testkit", &["idem-story"]),
];

/// The crate only tests use: any crate may name it among its dev-dependencies, and no crate
/// among its dependencies.
const TEST_KIT: &str = "idem-testkit";

/// The source folders of the workspace's crates. The floors run through all of them: a
/// module's floor is the same whichever crate holds it.
fn roots() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    CRATES
        .iter()
        .map(|(dir, _)| here.join(dir).join("src"))
        .collect()
}

/// Every source file of every crate.
fn all_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for root in roots() {
        let before = files.len();
        rust_files(&root, &mut files);
        assert!(files.len() > before, "no sources in {}", root.display());
    }
    files
}

/// A file's path inside its crate's `src`.
fn in_crate(file: &Path) -> &Path {
    roots()
        .iter()
        .find_map(|root| file.strip_prefix(root).ok())
        .expect("a file under a crate's src")
}

/// The top-level module a source file belongs to: `src/tui/view/lanes.rs` is in `tui`.
fn module_of(file: &Path) -> String {
    let relative = in_crate(file);
    let first = relative
        .components()
        .next()
        .expect("a path under src")
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    first.trim_end_matches(".rs").to_owned()
}

fn floor(module: &str) -> u8 {
    FLOORS
        .iter()
        .find(|(name, _)| *name == module)
        .unwrap_or_else(|| {
            panic!("src/{module} has no floor in tests/architecture.rs: give it one")
        })
        .1
}

/// The code of a file with its comments taken out, so that prose may name any module.
fn code_of(file: &Path) -> String {
    let text = std::fs::read_to_string(file).expect("a source file is text");
    text.lines()
        .map(|line| match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every top-level module a piece of code names through `crate::` or `idem::`, including
/// those inside a braced group such as `crate::{sim, text}`.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for prefix in [
        "crate::",
        "idem::",
        "idem_core::",
        "idem_window::",
        "idem_net::",
        "idem_replay::",
        "idem_tui::",
    ] {
        for (i, _) in code.match_indices(prefix) {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &code[i + prefix.len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                for part in inner.split(',') {
                    let name: String = part
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != "self" {
                        out.insert(name);
                    }
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

#[test]
fn every_import_points_down() {
    let files = all_files();
    let mut upward = Vec::new();
    for file in &files {
        let from = module_of(file);
        let code = code_of(file);
        for to in named_modules(&code) {
            if to == from || !FLOORS.iter().any(|(name, _)| *name == to) {
                continue;
            }
            if floor(&to) >= floor(&from) {
                upward.push(format!(
                    "{} ({from}, floor {}) imports {to} (floor {})",
                    file.display(),
                    floor(&from),
                    floor(&to)
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that do not point down:\n{}",
        upward.join("\n")
    );
}

#[test]
fn every_module_has_a_floor() {
    let files = all_files();
    for file in &files {
        floor(&module_of(file));
    }
}

#[test]
fn the_check_finds_an_upward_import() {
    // The checker itself must see the kinds of import it exists to forbid.
    let found =
        named_modules("use crate::tui::App;\nuse crate::{sim, text::wrap};\nidem::cli::run()");
    let names: Vec<&str> = found.iter().map(String::as_str).collect();
    assert_eq!(names, ["cli", "sim", "text", "tui"]);
    assert!(named_modules("// crate::tui in a comment").contains("tui"));
    assert!(
        code_of_text("let a = 1; // crate::tui")
            .trim_end()
            .ends_with("1;")
    );
}

fn code_of_text(text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("idem-arch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("probe.rs");
    std::fs::write(&file, text).expect("a probe file");
    let code = code_of(&file);
    let _ = std::fs::remove_dir_all(&dir);
    code
}

/// Outside libraries each crate may use: the terminal's only in `idem-tui`, the network's and
/// the database's only in `idem-net`, the command line's only in `idem`.
const TERMINAL: &[&str] = &["ratatui", "crossterm"];
const NETWORK: &[&str] = &[
    "ureq",
    "rusqlite",
    "rustls",
    "httparse",
    "sfv",
    "http",
    "percent-encoding",
    "uuid",
];
const COMMAND_LINE: &[&str] = &[
    "clap",
    "clap_complete",
    "clap_mangen",
    "indicatif",
    "anstream",
    "anstyle",
];

/// Each crate's manifest names, among the workspace's crates, only those beneath it, and no
/// terminal, network, database or command-line library that is not its own: the compiler
/// then refuses one anywhere else, and a crate's tests build only what it names (the
/// engine's and the replay's tests build no SQLite and no TLS).
#[test]
fn each_crate_names_only_the_crates_beneath_it() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (dir, beneath) in CRATES {
        let path = here.join(dir).join("Cargo.toml");
        let manifest: toml::Table = std::fs::read_to_string(&path)
            .expect("a crate's manifest")
            .parse()
            .expect("a manifest is TOML");
        let name = manifest["package"]["name"].as_str().expect("a name");
        let allowed: &[&str] = match name {
            "idem-tui" => TERMINAL,
            "idem-net" => NETWORK,
            "idem" => COMMAND_LINE,
            _ => &[],
        };
        let table_keys = |table: &str| -> Vec<String> {
            manifest
                .get(table)
                .and_then(|t| t.as_table())
                .map(|t| t.keys().cloned().collect())
                .unwrap_or_default()
        };
        // A crate's own tests and benches may drive a terminal; they build no network or
        // database library but the root's, whose tests drill a real server.
        for (table, strict) in [
            ("dependencies", true),
            ("build-dependencies", true),
            ("dev-dependencies", false),
        ] {
            for dep in table_keys(table) {
                if dep == TEST_KIT && !strict {
                    continue;
                }
                if dep.starts_with("idem") {
                    assert!(
                        beneath.contains(&dep.as_str()),
                        "{name}'s [{table}] names {dep}, which is not beneath it"
                    );
                }
                let foreign = [TERMINAL, NETWORK, COMMAND_LINE]
                    .iter()
                    .any(|set| set.contains(&dep.as_str()))
                    && !allowed.contains(&dep.as_str());
                let test_only = !strict
                    && (TERMINAL.contains(&dep.as_str())
                        || (name == "idem" && NETWORK.contains(&dep.as_str())));
                assert!(
                    !foreign || test_only,
                    "{name}'s [{table}] names {dep}, which belongs to another crate"
                );
            }
        }
    }
}

/// A file's module path under `src`: `src/tui/window/view.rs` is `tui::window::view`, and a
/// folder's `mod.rs` is the folder.
fn module_path(file: &Path) -> Vec<String> {
    module_path_of(in_crate(file))
}

/// [`module_path`] of a path inside a crate's `src`.
fn module_path_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The modules a file's code (its tests left out) names, as paths from its crate's root:
/// `super::x`, `super::super::x` and `super::{x, y}` resolved from where the file stands,
/// `crate::a::b` as written.
fn paths_named(me: &[String], code: &str) -> BTreeSet<Vec<String>> {
    let mut code = code.to_string();
    if let Some(i) = code.find("#[cfg(test)]") {
        code.truncate(i);
    }
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut named = BTreeSet::new();
    for (i, _) in code.match_indices("super::") {
        // Only the start of a chain: `super::super::x` is read once, from its first `super`.
        if code[..i].ends_with("::") {
            continue;
        }
        let mut rest = &code[i..];
        let mut up = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            up += 1;
        }
        let base = &me[..me.len().saturating_sub(up)];
        let names: Vec<String> = match rest.strip_prefix('{') {
            Some(group) => group[..group.find('}').unwrap_or(group.len())]
                .split(',')
                .map(|p| word(p.trim()))
                .collect(),
            None => vec![word(rest)],
        };
        for n in names.into_iter().filter(|n| !n.is_empty()) {
            let mut path = base.to_vec();
            path.push(n);
            named.insert(path);
        }
    }
    for (i, _) in code.match_indices("crate::") {
        let path: Vec<String> = code[i + "crate::".len()..]
            .split("::")
            .map(word)
            .take_while(|w| !w.is_empty())
            .collect();
        named.insert(path);
    }
    named
}

/// The modules and folders one file makes its own folder's modules, and every folder it sits
/// in, lean on. A file of `tui/window/` naming `crate::tui::view::fit` makes `tui::window`
/// lean on `tui::view`, its sibling in `tui/`; a file naming its own sibling makes itself
/// lean on it. Each edge joins two siblings of one folder.
fn leanings(file: &Path, modules: &BTreeSet<Vec<String>>) -> Vec<(Vec<String>, Vec<String>)> {
    leanings_of(&module_path(file), &code_of(file), modules)
}

/// [`leanings`] of the code of the module `me`.
fn leanings_of(
    me: &[String],
    code: &str,
    modules: &BTreeSet<Vec<String>>,
) -> Vec<(Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    for path in paths_named(me, code) {
        for depth in 1..=me.len() {
            let (from, parent) = (&me[..depth], &me[..depth - 1]);
            if path.len() < depth || path[..depth - 1] != *parent {
                continue;
            }
            let to = &path[..depth];
            if to != from && modules.contains(to) {
                out.push((from.to_vec(), to.to_vec()));
            }
        }
    }
    out
}

/// No modules of one folder name each other in a circle, of two or of more, and no folders
/// of one folder either (a file anywhere under `tui/window/` naming `tui::view` while one
/// under `tui/view/` names `tui::window` is a circle of the two folders): in each folder the
/// modules stand in an order, every one naming only those below it, and what two need lives
/// below both.
#[test]
fn no_modules_of_a_folder_import_each_other_in_a_circle() {
    let files = all_files();
    let modules = every_module(&files);
    let mut edges: std::collections::BTreeMap<Vec<String>, BTreeSet<Vec<String>>> =
        std::collections::BTreeMap::new();
    for f in &files {
        for (from, to) in leanings(f, &modules) {
            edges.entry(from).or_default().insert(to);
        }
    }
    // Depth first: a module met again while still on the path closes a circle.
    fn walk(
        at: &Vec<String>,
        edges: &std::collections::BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        path: &mut Vec<Vec<String>>,
        done: &mut BTreeSet<Vec<String>>,
        circles: &mut Vec<String>,
    ) {
        if let Some(i) = path.iter().position(|p| p == at) {
            let mut circle: Vec<String> = path[i..].iter().map(|m| m.join("::")).collect();
            circle.push(at.join("::"));
            circles.push(circle.join(" → "));
            return;
        }
        if !done.insert(at.clone()) {
            return;
        }
        path.push(at.clone());
        for next in edges.get(at).into_iter().flatten() {
            walk(next, edges, path, done, circles);
        }
        path.pop();
    }
    let mut circles = Vec::new();
    let mut done = BTreeSet::new();
    for m in edges.keys() {
        walk(m, &edges, &mut Vec::new(), &mut done, &mut circles);
    }
    assert!(
        circles.is_empty(),
        "modules that import each other: {circles:#?}"
    );
}

/// Every module and folder of the sources: each file's module path and the folders above it.
fn every_module(files: &[PathBuf]) -> BTreeSet<Vec<String>> {
    let mut modules = BTreeSet::new();
    for f in files {
        let path = module_path(f);
        for depth in 1..=path.len() {
            modules.insert(path[..depth].to_vec());
        }
    }
    modules
}

/// The check sees two folders leaning on each other through files deep inside them, and
/// resolves `super` from a folder's `mod.rs` and through `super::super`.
#[test]
fn the_circle_check_sees_folders_as_well_as_files() {
    let path = |p: &[&str]| -> Vec<String> { p.iter().map(|s| s.to_string()).collect() };
    let modules: BTreeSet<Vec<String>> = [
        path(&["tui"]),
        path(&["tui", "view"]),
        path(&["tui", "view", "lanes"]),
        path(&["tui", "window"]),
        path(&["tui", "window", "view"]),
    ]
    .into_iter()
    .collect();
    let lean =
        |file: &str, code: &str| leanings_of(&module_path_of(Path::new(file)), code, &modules);
    let there = (path(&["tui", "window"]), path(&["tui", "view"]));
    let back = (path(&["tui", "view"]), path(&["tui", "window"]));
    assert_eq!(
        lean("tui/window/view.rs", "use crate::tui::view::fit;"),
        [there]
    );
    // A folder's mod.rs is the folder: its `super` is the folder above.
    let from_mod = lean("tui/view/mod.rs", "use super::window::render;");
    assert_eq!(from_mod, std::slice::from_ref(&back));
    assert_eq!(
        lean("tui/view/lanes.rs", "use super::super::window::Row;"),
        [back]
    );
    // Within a folder, as before: a file leans on its sibling.
    let siblings = lean("tui/window/view.rs", "use super::matrix::draw;");
    assert!(siblings.is_empty(), "no such module: {siblings:?}");
}

/// Every Rust file of the workspace's crates, their tests and benches included.
fn every_rust_file_of_the_workspace() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for (dir, _) in CRATES {
        for sub in ["src", "tests", "benches"] {
            let folder = here.join(dir).join(sub);
            if folder.is_dir() {
                rust_files(&folder, &mut files);
            }
        }
    }
    files
}

/// The tests docs/architecture.md names as holding its statements: each name in backticks
/// between a `held:` and the next closing bracket that reads as a function's name.
fn tests_the_page_names(page: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (i, _) in page.match_indices("held:") {
        let rest = &page[i..];
        let marked = &rest[..rest.find(')').unwrap_or(rest.len())];
        for (n, quoted) in marked.split('`').enumerate() {
            let a_name = !quoted.is_empty()
                && quoted
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if n % 2 == 1 && a_name {
                names.push(quoted.to_string());
            }
        }
    }
    names
}

/// docs/architecture.md marks each statement a test holds with the test's name: every name
/// so marked is a test of the workspace, so a test renamed or removed leaves no statement
/// claiming to be held.
#[test]
fn every_test_the_architecture_page_names_exists() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(here.join("docs/architecture.md")).expect("the page");
    let names = tests_the_page_names(&page);
    assert!(
        names.len() >= 10,
        "the page marks few statements: {names:?}"
    );
    let sources: Vec<String> = every_rust_file_of_the_workspace()
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("a source file is text"))
        .collect();
    let missing: Vec<&String> = names
        .iter()
        .filter(|name| {
            let defined = format!("fn {name}(");
            !sources.iter().any(|s| s.contains(&defined))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md names tests that do not exist: {missing:?}"
    );
    assert_eq!(
        tests_the_page_names("a (held: `one_test` and `two`, not `Three`) `four`"),
        ["one_test", "two"]
    );
}
