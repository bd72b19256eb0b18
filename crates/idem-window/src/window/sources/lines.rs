//! The two line-based formats, read into the same tree as YAML: Java
//! `.properties` files (dotted keys become nested maps) and INI files such as
//! `~/.aws/config` (each `[section]` becomes a map).

use super::tree::{At, Node, Value, error_at};
use crate::window::WindowError;

/// Reads a `.properties` file: `a.b.c = value` becomes `{a: {b: {c: value}}}`.
pub fn parse_properties(text: &str, file: &str) -> Result<Node, WindowError> {
    let mut root = Node::new((1, 1), Value::Map(Vec::new()));
    let mut lines = text.lines().enumerate().peekable();
    while let Some((index, raw)) = lines.next() {
        let line_no = index + 1;
        let trimmed = raw.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('!') {
            continue;
        }
        let indent = raw.len() - trimmed.len();
        // A line ending in an odd number of backslashes goes on on the next one.
        let mut logical = trimmed.to_owned();
        while ends_in_continuation(&logical) {
            logical.pop();
            match lines.next() {
                Some((_, next)) => logical.push_str(next.trim_start()),
                None => break,
            }
        }
        let (key, value, value_col) = split_property(&logical);
        let key = unescape(key.trim());
        if key.is_empty() {
            return Err(error_at(
                file,
                (line_no, indent + 1),
                "expected key=value, such as resilience4j.retry.instances.payments.maxAttempts=3",
            ));
        }
        let lead = value.len() - value.trim_start().len();
        let value = Node::new(
            (line_no, indent + value_col + lead + 1),
            Value::Text(unescape(value.trim())),
        );
        insert(&mut root, &key, value, (line_no, indent + 1), file)?;
    }
    Ok(root)
}

fn ends_in_continuation(line: &str) -> bool {
    line.chars().rev().take_while(|c| *c == '\\').count() % 2 == 1
}

/// Key, value and the value's 0-based column: the key ends at the first
/// unescaped `=`, `:` or blank.
fn split_property(line: &str) -> (&str, &str, usize) {
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '=' | ':' => return (&line[..i], &line[i + 1..], i + 1),
            c if c.is_whitespace() => {
                let rest = line[i..].trim_start();
                let rest = rest
                    .strip_prefix('=')
                    .or_else(|| rest.strip_prefix(':'))
                    .unwrap_or(rest);
                return (&line[..i], rest, line.len() - rest.len());
            }
            _ => {}
        }
    }
    (line, "", line.len())
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    crate::text::sanitize_line(&out)
}

/// Puts `value` at the dotted `key` under `root`.
fn insert(root: &mut Node, key: &str, value: Node, at: At, file: &str) -> Result<(), WindowError> {
    let parts: Vec<&str> = key.split('.').collect();
    let mut node = root;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let Value::Map(entries) = &mut node.value else {
            return Err(error_at(
                file,
                at,
                format!(
                    "{} is already set to a value, so it cannot also hold {key}",
                    parts[..i].join(".")
                ),
            ));
        };
        let position = entries.iter().position(|(k, _)| k == part);
        if last {
            match position {
                Some(p) if matches!(entries[p].1.value, Value::Map(_)) => {
                    return Err(error_at(
                        file,
                        at,
                        format!("{key} is a group of settings, so it cannot also be a value"),
                    ));
                }
                // The last of two lines setting one key wins, as in Java.
                Some(p) => entries[p].1 = value,
                None => entries.push(((*part).to_owned(), value)),
            }
            return Ok(());
        }
        let p = match position {
            Some(p) => p,
            None => {
                entries.push(((*part).to_owned(), Node::new(at, Value::Map(Vec::new()))));
                entries.len() - 1
            }
        };
        node = &mut entries[p].1;
    }
    Ok(())
}

/// Reads an INI file: `[section]` headers, `key = value` lines, `#` and `;`
/// comments, and AWS's indented sub-settings under a key with no value.
pub fn parse_ini(text: &str, file: &str) -> Result<Node, WindowError> {
    let mut sections: Vec<(String, Node)> = Vec::new();
    // The key whose value is the indented block being read, if any.
    let mut open_key: Option<String> = None;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let indent = raw.len() - raw.trim_start().len();
        let col = indent + 1;
        if let Some(header) = trimmed.strip_prefix('[') {
            let Some(name) = header.strip_suffix(']') else {
                return Err(error_at(
                    file,
                    (line_no, col),
                    "a section header must end with ], such as [profile payments]",
                ));
            };
            let name = crate::text::sanitize_line(name.trim());
            sections.push((name, Node::new((line_no, col), Value::Map(Vec::new()))));
            open_key = None;
            continue;
        }
        let Some((key, value)) = trimmed.split_once('=') else {
            return Err(error_at(
                file,
                (line_no, col),
                "expected [section] or key = value, such as max_attempts = 5",
            ));
        };
        let Some((_, section)) = sections.last_mut() else {
            return Err(error_at(
                file,
                (line_no, col),
                "a setting must come after a section header such as [default]",
            ));
        };
        let key = crate::text::sanitize_line(key.trim());
        let value_col = col
            + raw.trim_start().find('=').unwrap_or(0)
            + 1
            + (value.len() - value.trim_start().len());
        let value_text = crate::text::sanitize_line(value.trim());
        let Value::Map(entries) = &mut section.value else {
            continue;
        };
        if indent > 0
            && let Some(parent) = &open_key
            && let Some((_, block)) = entries.iter_mut().find(|(k, _)| k == parent)
            && let Value::Map(sub) = &mut block.value
        {
            sub.push((
                key,
                Node::new((line_no, value_col), Value::Text(value_text)),
            ));
            continue;
        }
        if value_text.is_empty() {
            open_key = Some(key.clone());
            entries.push((key, Node::new((line_no, col), Value::Map(Vec::new()))));
        } else {
            open_key = None;
            entries.push((
                key,
                Node::new((line_no, value_col), Value::Text(value_text)),
            ));
        }
    }
    Ok(Node::new((1, 1), Value::Map(sections)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_nest_on_dots() {
        let text =
            "# a comment\nr4j.retry.maxAttempts = 5\nr4j.retry.wait: 1s\nr4j.limit \\\n  3\n";
        let root = parse_properties(text, "app.properties").expect("valid");
        let attempts = root
            .get("r4j")
            .and_then(|r| r.get("retry"))
            .and_then(|r| r.get("maxAttempts"))
            .expect("nested");
        assert_eq!(attempts.value, Value::Text("5".into()));
        assert_eq!(attempts.at, (2, 25));
        let limit = root
            .get("r4j")
            .and_then(|r| r.get("limit"))
            .expect("continued");
        assert_eq!(limit.value, Value::Text("3".into()));
    }

    #[test]
    fn a_value_and_a_group_under_one_key_is_an_error() {
        let err = parse_properties("a.b=1\na.b.c=2\n", "x.properties").expect_err("clash");
        assert!(err.to_string().starts_with("x.properties:2:1:"), "{err}");
    }

    #[test]
    fn ini_sections_and_sub_settings() {
        let text = "[default]\nretry_mode = standard\ns3 =\n  max_attempts = 9\n[profile pay]\nmax_attempts=4\n";
        let root = parse_ini(text, "config").expect("valid");
        let pay = root.get_exact("profile pay").expect("section");
        assert_eq!(pay.get("max_attempts").map(|n| n.at), Some((6, 14)));
        let s3 = root
            .get_exact("default")
            .and_then(|d| d.get("s3"))
            .expect("block");
        assert!(s3.get("max_attempts").is_some());
    }

    #[test]
    fn ini_errors_have_a_place() {
        let err = parse_ini("[default\n", "config").expect_err("header");
        assert!(err.to_string().starts_with("config:1:1:"), "{err}");
        let err = parse_ini("max_attempts = 3\n", "config").expect_err("no section");
        assert!(err.to_string().contains("section header"), "{err}");
        let err = parse_ini("[default]\nretries\n", "config").expect_err("no =");
        assert!(err.to_string().starts_with("config:2:1:"), "{err}");
    }
}
