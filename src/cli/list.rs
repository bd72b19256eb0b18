//! `idem list`: the scenarios compiled into the binary, each with its title and the opening
//! sentence of its description; or all of it as JSON.

use crate::scenario::library::BUILTIN;
use crate::text::{cut, sanitize_line, summary};
use anyhow::Context;
use serde::Serialize;
use std::fmt::Write;

/// Flags of `idem list`.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(after_help = "Examples:\n  idem list\n  idem list --json | jq -r '.[].name'")]
pub struct ListArgs {
    /// Print a JSON array, one object per scenario (name, title, summary, description,
    /// designs, quizzes), instead of the listing.
    #[arg(long)]
    pub json: bool,
}

/// One built-in scenario, as `idem list --json` prints it.
#[derive(Serialize, Debug)]
pub struct ListedJson {
    pub name: &'static str,
    pub title: String,
    /// The opening sentence of the description, never cut.
    pub summary: String,
    pub description: String,
    /// The design the scenario opens with.
    pub design: &'static str,
    pub quizzes: usize,
    pub expectations: usize,
    /// Why the scenario does not load, when it does not (the fields above are then empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Every built-in scenario as a pretty JSON array, ending in a newline.
pub fn json() -> anyhow::Result<String> {
    let listed: Vec<ListedJson> = BUILTIN
        .iter()
        .map(|b| match b.load() {
            Ok(s) => ListedJson {
                name: b.name,
                title: sanitize_line(&s.title),
                summary: summary(&s.description, usize::MAX),
                description: crate::text::sanitize_block(s.description.trim()),
                design: s.design.id(),
                quizzes: s.quizzes.len(),
                expectations: s.expectations.len(),
                error: None,
            },
            Err(e) => ListedJson {
                name: b.name,
                title: String::new(),
                summary: String::new(),
                description: String::new(),
                design: "",
                quizzes: 0,
                expectations: 0,
                error: Some(e.one_line()),
            },
        })
        .collect();
    serde_json::to_string_pretty(&listed)
        .map(|t| t + "\n")
        .context("cannot write the listing as JSON")
}

/// How wide the listing may grow, in terminal columns.
const COLUMNS: usize = 100;

/// Where titles and summaries start: past the two-space margin, the longest name and two
/// spaces more, so every title lines up however long a name is.
fn indent() -> usize {
    let longest = BUILTIN
        .iter()
        .map(|b| b.name.chars().count())
        .max()
        .unwrap_or(0);
    2 + longest + 2
}

/// The listing `idem list` prints: two lines per scenario (name and title, then a summary
/// beneath the title), and a closing hint on how to open one. On a terminal (`fit`) titles
/// and summaries are cut to fit its width; elsewhere, a pipe or a file, they are whole.
pub fn run(fit: bool) -> String {
    let indent = indent();
    let room = if fit {
        COLUMNS.saturating_sub(indent).max(20)
    } else {
        usize::MAX
    };
    let mut out = String::from("Built-in scenarios:\n\n");
    for b in BUILTIN {
        let (title, about) = match b.load() {
            Ok(s) => (s.title, summary(&s.description, room)),
            // The built-ins are checked by the test suite; should one ever break, the listing
            // still names it and says why instead of failing as a whole.
            Err(e) => ("(does not load)".to_string(), summary(&e.to_string(), room)),
        };
        let _ = writeln!(
            out,
            "  {:<w$}  {}",
            b.name,
            cut(&sanitize_line(&title), room),
            w = indent - 4
        );
        if !about.is_empty() {
            let _ = writeln!(out, "{:indent$}{about}", "");
        }
    }
    out.push_str(
        "\nReplay one with `idem NAME` (e.g. `idem reply-lost`), or print its timeline with\n\
         `idem run NAME`; `idem run NAME --design all` puts every design's outcome side by side.\n\
         To write your own, start from `idem new NAME` and test it with `idem check NAME.toml`.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_width::UnicodeWidthStr;

    #[test]
    fn the_listing_names_every_builtin_within_the_width() {
        let text = run(true);
        for b in BUILTIN {
            assert!(text.contains(&format!("  {}  ", b.name)), "{text}");
        }
        for line in text.lines() {
            assert!(line.width() <= COLUMNS, "too wide: {line}");
        }
        assert!(text.contains("idem run NAME"));
        assert!(!text.contains("does not load"));
    }

    /// Every title starts in one column, two spaces past the longest name, and every
    /// summary under it.
    #[test]
    fn titles_line_up_past_the_longest_name() {
        let longest = BUILTIN.iter().map(|b| b.name.len()).max().unwrap_or(0);
        let column = 2 + longest + 2;
        let text = run(false);
        for b in BUILTIN {
            let s = b.load().expect("a built-in loads");
            let line = text
                .lines()
                .find(|l| l.starts_with(&format!("  {} ", b.name)))
                .unwrap_or_else(|| panic!("{}:\n{text}", b.name));
            let title = sanitize_line(&s.title);
            assert_eq!(line.find(&title), Some(column), "{line}");
            let about = summary(&s.description, usize::MAX);
            assert!(
                text.contains(&format!("\n{:column$}{about}\n", "")),
                "{about}:\n{text}"
            );
        }
    }

    #[test]
    fn the_listing_is_whole_off_a_terminal() {
        let whole = run(false);
        assert!(!whole.contains('…'), "{whole}");
        for b in BUILTIN {
            let s = b.load().expect("a built-in loads");
            assert!(whole.contains(&summary(&s.description, usize::MAX)));
        }
        assert!(whole.len() >= run(true).len());
    }

    #[test]
    fn the_json_names_every_builtin() {
        let v: serde_json::Value = serde_json::from_str(&json().expect("json")).expect("parses");
        let items = v.as_array().expect("an array");
        assert_eq!(items.len(), BUILTIN.len());
        for (item, b) in items.iter().zip(BUILTIN) {
            assert_eq!(item["name"], b.name);
            assert!(item["title"].as_str().is_some_and(|t| !t.is_empty()));
            assert!(item["summary"].is_string() && item["description"].is_string());
            assert!(item.get("error").is_none());
        }
    }
}
