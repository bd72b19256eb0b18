//! Text that came from a file, made safe to show: control characters and escape sequences
//! never reach the terminal. And the one reader of a word from a fixed set (`choice`), which
//! names the nearest valid word when one is misspelt (`did_you_mean`).

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Removes every control character, newlines included: for titles, names and labels.
pub fn sanitize_line(text: &str) -> String {
    if nothing_to_remove(text, false) {
        return text.to_owned();
    }
    line_by_chars(text)
}

/// Removes control characters but keeps line breaks: for descriptions and narration.
pub fn sanitize_block(text: &str) -> String {
    if nothing_to_remove(text, true) {
        // The lines joined again are the text without its last newline.
        return text.strip_suffix('\n').unwrap_or(text).to_owned();
    }
    block_by_chars(text)
}

/// Text written across several lines of a file, as flowing paragraphs: the lines of a
/// paragraph are joined with spaces, paragraphs are kept apart by one line break.
pub fn reflow(text: &str) -> String {
    // Text with nothing to remove, the commonest, is flowed without a cleaned copy: cleaning
    // would change nothing but a last newline, which ends a paragraph anyway.
    if nothing_to_remove(text, true) {
        return flow(text);
    }
    flow(&block_by_chars(text))
}

/// [`sanitize_line`] a character at a time.
fn line_by_chars(text: &str) -> String {
    text.chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .filter(|c| !c.is_control() && !is_invisible_format(*c))
        .collect()
}

/// [`sanitize_block`] a line at a time.
fn block_by_chars(text: &str) -> String {
    text.lines()
        .map(line_by_chars)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Clean text as paragraphs (split at each blank line): each one's words joined by single
/// spaces, the paragraphs that have any by line breaks.
fn flow(clean: &str) -> String {
    let mut out = String::with_capacity(clean.len());
    for paragraph in clean.split("\n\n") {
        let mut words = paragraph.split_whitespace();
        let Some(first) = words.next() else {
            continue;
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(first);
        for word in words {
            out.push(' ');
            out.push_str(word);
        }
    }
    out
}

/// Whether sanitizing would leave `text` as it is: no control character (but line feeds,
/// when `line_feeds`) and no invisible mark. Printable ASCII is passed a byte at a time.
fn nothing_to_remove(text: &str, line_feeds: bool) -> bool {
    let printable = |b: u8| (0x20..0x7f).contains(&b) || (line_feeds && b == b'\n');
    if text.bytes().all(printable) {
        return true;
    }
    text.chars()
        .all(|c| (line_feeds && c == '\n') || !(c.is_control() || is_invisible_format(c)))
}

/// At most `max` characters of `text`, with `…` where it was cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A path or name as one word to paste into a shell, safe to show on a terminal: as it is
/// when it holds nothing a shell treats specially, else in single quotes; a control character
/// or an invisible mark (which must not reach the terminal) is written as an escape inside
/// `$'…'`, which bash and zsh read back as the same bytes.
pub fn shell_word(word: &str) -> String {
    let hidden = |c: char| c.is_control() || is_invisible_format(c);
    if !word.chars().any(hidden) {
        // Quoting fails only on a NUL byte, which is a control character.
        return shlex::try_quote(word).map_or_else(|_| format!("'{word}'"), |q| q.into_owned());
    }
    let mut out = String::from("$'");
    for c in word.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if hidden(c) && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if hidden(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Bidirectional overrides and similar marks can reorder what a terminal shows.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}'
    )
}

/// Splits text into lines of at most `width` characters, at spaces.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        for word in paragraph.split(' ').filter(|w| !w.is_empty()) {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(line);
    }
    lines
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
pub fn cut(text: &str, width: usize) -> String {
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

/// `a`, `a and b`, `a, b and c`: items joined as a sentence would list them.
pub fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [only] => (*only).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// How a column of a text table lines up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Words: to the left.
    Left,
    /// Counts and money: to the right, so their last digits line up.
    Right,
}

/// `text` filled out with spaces to `width` columns of the terminal, after it (`Left`) or
/// before it (`Right`); text already as wide or wider is left whole.
pub fn pad(text: &str, width: usize, align: Align) -> String {
    let gap = " ".repeat(width.saturating_sub(text.width()));
    match align {
        Align::Left => format!("{text}{gap}"),
        Align::Right => format!("{gap}{text}"),
    }
}

/// Rows as lines of a text table, each column as wide as its widest cell, `gap` between
/// columns, trailing spaces dropped; and the widths. A row with fewer cells than `align`
/// ends early; a cell beyond `align` is left-aligned.
pub fn columns(rows: &[Vec<String>], align: &[Align], gap: &str) -> (Vec<String>, Vec<usize>) {
    let mut widths: Vec<usize> = Vec::new();
    for row in rows {
        for (c, cell) in row.iter().enumerate() {
            let n = cell.width();
            match widths.get_mut(c) {
                Some(w) => *w = (*w).max(n),
                None => widths.push(n),
            }
        }
    }
    let lines = rows
        .iter()
        .map(|row| {
            let mut line = String::new();
            for (c, (cell, &w)) in row.iter().zip(&widths).enumerate() {
                if c > 0 {
                    line.push_str(gap);
                }
                line.push_str(&pad(cell, w, align.get(c).copied().unwrap_or(Align::Left)));
            }
            line.trim_end().to_string()
        })
        .collect();
    (lines, widths)
}

/// The closest valid word to a misspelt one, if any is close enough to be a likely typo.
pub fn did_you_mean<'a>(word: &str, valid: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    // A word far longer than any option is no typo, and comparing it would take a long time.
    if word.len() > 64 {
        return None;
    }
    let length = word.chars().count();
    valid
        .into_iter()
        // The distance is at least the difference in length: skip what cannot be close.
        .filter(|v| length.abs_diff(v.chars().count()) <= 2.max(v.len() / 3))
        .map(|v| (strsim::damerau_levenshtein(word, v), v))
        .filter(|(d, v)| *d <= 2.max(v.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, v)| v)
}

/// Reads one of a fixed set of words, suggesting the nearest when it is misspelt.
pub fn choice<T: Copy>(text: &str, what: &str, options: &[(&'static str, T)]) -> Result<T, String> {
    if let Some((_, v)) = options.iter().find(|(name, _)| *name == text) {
        return Ok(*v);
    }
    let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
    let hint = did_you_mean(text, names.iter().copied())
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    Err(format!(
        "unknown {what} `{}`{hint}; expected one of: {}",
        shorten(&sanitize_line(text), 60),
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Text mostly of the characters a scenario's prose is written in, with line breaks,
    /// blank lines, tabs, carriage returns, other controls and a few letters beyond ASCII.
    fn prose() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                8 => "[a-z]{1,6}",
                4 => Just(" ".to_string()),
                3 => Just("\n".to_string()),
                2 => Just("\n\n".to_string()),
                1 => Just("  \n ".to_string()),
                1 => Just("\t".to_string()),
                1 => Just("\r\n".to_string()),
                1 => Just("\u{7}".to_string()),
                1 => Just("\u{a0}".to_string()),
                1 => Just("\u{b}".to_string()),
                1 => Just("é".to_string()),
                1 => Just("\u{202e}".to_string()),
                1 => any::<char>().prop_map(String::from),
            ],
            0..40,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        #[test]
        fn the_shortcuts_clean_as_the_character_walk_does(text in prose()) {
            prop_assert_eq!(sanitize_line(&text), line_by_chars(&text));
            prop_assert_eq!(sanitize_block(&text), block_by_chars(&text));
            prop_assert_eq!(reflow(&text), flow(&block_by_chars(&text)));
        }
    }

    /// A paragraph's lines and runs of spaces become single spaces; a blank line starts a new
    /// paragraph, and paragraphs with no words are dropped.
    #[test]
    fn prose_flows_into_paragraphs() {
        assert_eq!(flow("a\nb"), "a b");
        assert_eq!(flow("a \t  b\n"), "a b");
        assert_eq!(flow("a\n\nb"), "a\nb");
        assert_eq!(flow("a\n\n\n\nb"), "a\nb");
        assert_eq!(flow("  \n\n a \n\n"), "a");
        assert_eq!(
            reflow("The answer\n  never came.\n\nK7Q4 \u{7}stays."),
            "The answer never came.\nK7Q4 stays."
        );
    }

    #[test]
    fn the_shortcuts_meet_the_edges_of_a_block() {
        for text in [
            "",
            "\n",
            "\n\n",
            "a\n",
            "a\n\n",
            "a\n\n\n",
            "\n\na",
            " \n \n",
            "a\n\n\n\nb",
        ] {
            assert_eq!(sanitize_block(text), block_by_chars(text), "{text:?}");
            assert_eq!(reflow(text), flow(&block_by_chars(text)), "{text:?}");
        }
    }

    #[test]
    fn a_list_reads_as_a_sentence() {
        assert_eq!(and_list(&[]), "");
        assert_eq!(and_list(&["a"]), "a");
        assert_eq!(and_list(&["a", "b"]), "a and b");
        assert_eq!(and_list(&["a", "b", "c"]), "a, b and c");
    }

    /// A table's columns line up on the terminal whatever their letters: a name in
    /// characters two columns wide takes two columns each, not one.
    #[test]
    fn a_table_lines_up_by_the_columns_its_cells_take() {
        let rows = vec![
            vec!["注文".to_string(), "1".to_string()],
            vec!["order".to_string(), "22".to_string()],
        ];
        let (lines, widths) = columns(&rows, &[Align::Left, Align::Right], " | ");
        assert_eq!(widths, [5, 2]);
        assert_eq!(lines, ["注文  |  1", "order | 22"]);
        assert_eq!(pad("注文", 6, Align::Right), "  注文");
        assert_eq!(pad("longer", 3, Align::Left), "longer");
    }

    #[test]
    fn strips_escapes_and_controls() {
        assert_eq!(sanitize_line("a\u{1b}[31mred\u{7}\0b"), "a[31mredb");
        assert_eq!(sanitize_block("one\r\ntwo\u{1b}]0;x\u{7}"), "one\ntwo]0;x");
        assert_eq!(sanitize_line("tab\there"), "tab here");
        assert_eq!(sanitize_line("\u{202e}evil"), "evil");
    }

    #[test]
    fn shell_words() {
        assert_eq!(
            shell_word("scenarios/my-drill.toml"),
            "scenarios/my-drill.toml"
        );
        assert_eq!(shell_word("my drill.toml"), "'my drill.toml'");
        // Whatever the quoting, a shell reads the word back whole.
        for word in [
            "it's.toml",
            "$HOME;rm.toml",
            "a \"b\" c",
            "*?[x]",
            "~/x y",
            "é ü.toml",
        ] {
            assert_eq!(
                shlex::split(&shell_word(word)),
                Some(vec![word.to_string()])
            );
        }
        assert_eq!(
            shell_word("evil\u{1b}[31m'.toml"),
            r"$'evil\x1b[31m\'.toml'"
        );
        assert_eq!(shell_word("a\u{202e}b"), r"$'a\u202eb'");
        for word in ["a\tb", "x\u{1b}]0;t\u{7}", "\u{202e}"] {
            assert!(
                !shell_word(word).chars().any(|c| c.is_control()),
                "{word:?}"
            );
        }
    }

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
    fn columns_are_as_wide_as_their_widest_cell() {
        let rows: Vec<Vec<String>> = [["design", "charges"], ["no-key", "100,522"], ["x", "1"]]
            .iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect();
        let (lines, widths) = columns(&rows, &[Align::Left, Align::Right], "  ");
        assert_eq!(widths, vec![6, 7]);
        assert_eq!(
            lines,
            ["design  charges", "no-key  100,522", "x             1"]
        );
    }
}
