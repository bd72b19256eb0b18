//! Text that came from a file, made safe to show: control characters and escape sequences
//! never reach the terminal.

/// Removes every control character, newlines included: for titles, names and labels.
pub fn sanitize_line(text: &str) -> String {
    text.chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .filter(|c| !c.is_control() && !is_invisible_format(*c))
        .collect()
}

/// Removes control characters but keeps line breaks: for descriptions and narration.
pub fn sanitize_block(text: &str) -> String {
    text.lines()
        .map(sanitize_line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Text written across several lines of a file, as flowing paragraphs: the lines of a
/// paragraph are joined with spaces, paragraphs are kept apart by one line break.
pub fn reflow(text: &str) -> String {
    let clean = sanitize_block(text);
    clean
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
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

/// Bidirectional overrides and similar marks can reorder what a terminal shows.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_escapes_and_controls() {
        assert_eq!(sanitize_line("a\u{1b}[31mred\u{7}\0b"), "a[31mredb");
        assert_eq!(sanitize_block("one\r\ntwo\u{1b}]0;x\u{7}"), "one\ntwo]0;x");
        assert_eq!(sanitize_line("tab\there"), "tab here");
        assert_eq!(sanitize_line("\u{202e}evil"), "evil");
    }
}
