//! `idem list`: the scenarios compiled into the binary, each with its title and the opening
//! sentence of its description.

use crate::scenario::library::BUILTIN;
use crate::text::{cut, summary};
use std::fmt::Write;

/// How wide the listing may grow, in terminal columns.
const COLUMNS: usize = 100;
/// Where titles and summaries start, past the two-space margin and the longest name.
const INDENT: usize = 2 + 16 + 2;

/// The listing `idem list` prints: two lines per scenario (name and title, then a summary
/// beneath the title), and a closing hint on how to open one.
pub fn run() -> String {
    let mut out = String::from("Built-in scenarios:\n\n");
    for b in BUILTIN {
        let (title, about) = match b.load() {
            Ok(s) => (s.title, summary(&s.description, COLUMNS - INDENT)),
            // The built-ins are checked by the test suite; should one ever break, the listing
            // still names it and says why instead of failing as a whole.
            Err(e) => (
                "(does not load)".to_string(),
                summary(&e.to_string(), COLUMNS - INDENT),
            ),
        };
        let _ = writeln!(
            out,
            "  {:<w$}  {}",
            b.name,
            cut(&title, COLUMNS - INDENT),
            w = INDENT - 4
        );
        if !about.is_empty() {
            let _ = writeln!(out, "{:INDENT$}{about}", "");
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
        let text = run();
        for b in BUILTIN {
            assert!(text.contains(&format!("  {:<16}  ", b.name)), "{text}");
        }
        for line in text.lines() {
            assert!(line.width() <= COLUMNS, "too wide: {line}");
        }
        assert!(text.contains("idem run NAME"));
        assert!(!text.contains("does not load"));
    }
}
