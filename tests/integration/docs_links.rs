//! The README and every page under `docs/` point only at files that exist, and at headings
//! those files have: a link that moved with its section is caught here, not by a reader.

use crate::common;
use std::path::{Path, PathBuf};

/// A heading as GitHub makes it an anchor: lower case, spaces to hyphens, every other
/// character but letters, digits, `-` and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside fenced code).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// Every link target `](...)` of a Markdown text, outside fenced code.
fn links(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

fn pages() -> Vec<PathBuf> {
    let root = PathBuf::from(common::manifest(""));
    let mut pages = vec![root.join("README.md"), root.join("scenarios/README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

#[test]
fn every_link_in_the_readme_and_the_docs_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page reads");
        let dir = page.parent().unwrap_or(Path::new("."));
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") {
                continue;
            }
            checked += 1;
            let (file, heading) = match link.split_once('#') {
                Some((f, h)) => (f, Some(h)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            if !target.exists() {
                broken.push(format!("{}: {link}: no such file", page.display()));
                continue;
            }
            if let Some(h) = heading
                && target.extension().is_some_and(|x| x == "md")
            {
                let target_text = std::fs::read_to_string(&target).expect("reads");
                if !anchors(&target_text).iter().any(|a| a == h) {
                    broken.push(format!("{}: {link}: no such heading", page.display()));
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} links found");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The README stays a front page: what idem is, the picture, install, the two commands, the
/// first things to do, and where the rest lives.
#[test]
fn the_readme_fits_on_a_screen_and_keeps_its_two_commands() {
    let readme = std::fs::read_to_string(common::manifest("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(lines <= 250, "the README has {lines} lines");
    for command in ["cargo run --release", "cargo test"] {
        assert!(readme.contains(command), "{command}");
    }
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    assert_eq!(anchor(" Mutation testing"), "mutation-testing");
    assert_eq!(
        anchor(" Without the UI: `idem run`"),
        "without-the-ui-idem-run"
    );
    assert_eq!(links("see [a](b.md#c) and [d](e)"), ["b.md#c", "e"]);
}

/// Every `idem …` command the README names runs as written on a fresh clone: each one that
/// needs no terminal is run here (from a scratch folder for those that write, from the root
/// for those that read the clone's files) and must succeed; the ones that take the terminal or
/// serve are listed, so a new command in the README must be added to one list or the other.
#[test]
fn every_command_in_the_readme_runs_as_written() {
    let root = crate::common::root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("the README");
    let named: std::collections::BTreeSet<String> = readme
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|c| c.starts_with("idem") && !c.contains('\n'))
        .map(str::to_string)
        .collect();
    // The terminal's, the server's, a mistyped one shown for its message, and bare names.
    let not_run = [
        "idem",
        "idem my-outage.toml",
        "idem notes",
        "idem present reply-lost --hide-design",
        "idem serve",
        "idem drill http://localhost:8080/charges",
        "idem rnu",
        "idem run",
        "idem drill",
        "idem explore",
        "idem import",
    ];
    let scratch = crate::common::TempDir::new("readme-commands");
    // In the order the README gives them: `idem new my-outage` before `idem check` of it.
    let run_in_order = [
        "idem run reply-lost --design all",
        "idem run reply-lost --design no-key",
        "idem new my-outage",
        "idem new --list",
        "idem check my-outage.toml",
        "idem export reply-lost --format md --out pre-read.md",
        "idem window --from tests/fixtures/window/envoy-route.yaml --from tests/fixtures/window/resilience4j-application.yml",
        "idem import tests/fixtures/import/otlp-express.jsonl --ledger tests/fixtures/import/otlp-express.ledger.json --which",
    ];
    for command in &named {
        assert!(
            not_run.contains(&command.as_str()) || run_in_order.contains(&command.as_str()),
            "the README names `{command}`: add it to a list of this test"
        );
    }
    for command in run_in_order {
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        // Commands that read the clone's files run from its root, the rest in the scratch folder.
        let dir = if command.contains("tests/fixtures") {
            root.as_path()
        } else {
            scratch.path()
        };
        let out = crate::common::run_idem_in(Some(dir), &args);
        assert!(
            out.status.success(),
            "`{command}` failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
