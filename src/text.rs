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

/// Bidirectional overrides and similar marks can reorder what a terminal shows.
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
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
