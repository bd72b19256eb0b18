//! Limits checked on the raw text before it is parsed, so a hostile file is refused with a
//! position instead of running the parser into its own limits.

/// The offset where nesting first passes the limit, if it does; strings and comments are
/// skipped so brackets inside them do not count.
pub fn too_deep(source: &str, max: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                i = skip_comment(bytes, i);
                continue;
            }
            b'"' | b'\'' => {
                i = skip_string(bytes, i);
                line_start = false;
                continue;
            }
            // `[table]` and `[[array]]` headers at the start of a line are not nesting.
            b'[' if line_start && depth == 0 => {
                while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'#' {
                    i += 1;
                }
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            _ => {}
        }
        line_start = false;
        i += 1;
    }
    None
}

/// Where a comment that starts at `i` ends: at its line's newline, which is not skipped.
fn skip_comment(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |n| i + n)
}

/// Where a string that starts at `i` ends (just past its closing quote, or the line's end for
/// a broken one).
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    let quote = bytes[i];
    let triple = bytes.get(i..i + 3) == Some(&[quote, quote, quote][..]);
    i += if triple { 3 } else { 1 };
    while i < bytes.len() {
        if quote == b'"' && bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if triple && bytes.get(i..i + 3) == Some(&[quote, quote, quote][..]) {
            return i + 3;
        }
        if !triple && (bytes[i] == quote || bytes[i] == b'\n') {
            return i + 1;
        }
        i += 1;
    }
    i
}

/// The offset of the dot that gives a key (`a.b.c = 1`, `[a.b.c]`, or a key inside an
/// inline table) more than `max` parts, if one does. Dots in values and in quoted keys do
/// not count.
pub fn too_many_key_parts(source: &str, max: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    // The open value brackets, `[` or `{`; a header's brackets are not values.
    let mut open: Vec<u8> = Vec::new();
    let mut in_key = true;
    let mut parts = 1;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                i = skip_comment(bytes, i);
                continue;
            }
            b'"' | b'\'' => {
                i = skip_string(bytes, i);
                continue;
            }
            b'\n' if open.is_empty() => {
                in_key = true;
                parts = 1;
            }
            b'=' if in_key => {
                in_key = false;
                parts = 1;
            }
            b'.' if in_key => {
                parts += 1;
                if parts > max {
                    return Some(i);
                }
            }
            // A table header: its brackets hold a key.
            b'[' | b']' if in_key && open.is_empty() => {}
            b'[' => open.push(b'['),
            b'{' => {
                open.push(b'{');
                in_key = true;
                parts = 1;
            }
            b']' | b'}' => {
                open.pop();
                in_key = false;
            }
            b',' if open.last() == Some(&b'{') => {
                in_key = true;
                parts = 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_guard() {
        assert_eq!(
            too_deep("a = [[1], [2]]\n[table]\n[[arr]]\nb = \"[[[[\"", 32),
            None
        );
        let deep = format!("a = {}{}", "[".repeat(40), "]".repeat(40));
        assert!(too_deep(&deep, 32).is_some());
    }

    #[test]
    fn key_parts() {
        let many = |n: usize| vec!["a"; n].join(".");
        assert_eq!(too_many_key_parts(&format!("{} = 1", many(32)), 32), None);
        assert_eq!(
            too_many_key_parts(&format!("{} = 1", many(33)), 32),
            Some(63)
        );
        assert!(too_many_key_parts(&format!("[{}]", many(40)), 32).is_some());
        assert!(too_many_key_parts(&format!("x = [{{ {} = 1 }}]", many(40)), 32).is_some());
        // Dots in values and quoted keys are not key parts.
        let values = format!(
            "x = [{}]\ny = \"{}\"\n\"{}\" = 1\nz = {{ a = 1.5, b = 2.5 }}",
            vec!["1.5"; 50].join(", "),
            many(50),
            many(50)
        );
        assert_eq!(too_many_key_parts(&values, 32), None);
    }
}
