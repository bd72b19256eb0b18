//! `idem list`: the scenarios compiled into the binary, each with its title and the opening
//! sentence of its description.

use crate::scenario::library::BUILTIN;
use crate::text::sanitize_line;
use std::fmt::Write;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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

/// The first sentence of `description` on one line, no wider than `width` columns: cut at a
/// word with `…` when it is longer. Line breaks and runs of spaces become single spaces, and
/// control characters are dropped, so any text is safe to show.
pub fn summary(description: &str, width: usize) -> String {
    let flat = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat = sanitize_line(&flat);
    cut(first_sentence(&flat), width)
}

/// Up to and including the first `.`, `!` or `?` that ends a word (so `$48.60` is not cut).
fn first_sentence(text: &str) -> &str {
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|(_, next)| *next == ' ') {
            return &text[..i + c.len_utf8()];
        }
    }
    text
}

/// `text` if it fits in `width` columns; otherwise as much as fits with `…` after it, broken
/// at a space when one is not too far back.
fn cut(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let room = width - 1;
    let mut used = 0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        end = i + c.len_utf8();
    }
    let kept = &text[..end];
    let kept = match kept.rfind(' ') {
        Some(space) if kept[..space].width() >= room / 2 => &kept[..space],
        _ => kept,
    };
    format!("{}…", kept.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_sentence_ignores_decimal_points() {
        let d = "A customer pays $48.60 for two notebooks.\nThen the reply is lost.";
        assert_eq!(summary(d, 100), "A customer pays $48.60 for two notebooks.");
        assert_eq!(summary("No full stop at all", 100), "No full stop at all");
        assert_eq!(summary("", 100), "");
        assert_eq!(summary("Really? Yes.", 100), "Really?");
    }

    #[test]
    fn long_sentences_are_cut_at_a_word() {
        let d = "The processor charges the card and then crashes before it can answer anyone.";
        let s = summary(d, 30);
        assert_eq!(s, "The processor charges the…");
        assert!(s.width() <= 30);
        assert_eq!(summary(d, 1), "…");
        assert_eq!(summary(d, 0), "");
        // A single long word is cut inside it.
        assert_eq!(summary("Supercalifragilistic.", 8), "Superca…");
        // Wide characters count double.
        let wide = summary("日本語の説明文です。とても長い。", 9);
        assert!(wide.width() <= 9, "{wide}");
    }

    #[test]
    fn control_characters_are_dropped() {
        assert_eq!(summary("Red \u{1b}[31mtext.\u{7}", 100), "Red [31mtext.");
    }

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
