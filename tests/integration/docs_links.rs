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
