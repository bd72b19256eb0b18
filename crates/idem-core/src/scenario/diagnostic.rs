//! Problems found in a scenario file, with their position, shown the way compilers do.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One problem at one place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// 1-based; 0 when the problem has no position (the file as a whole).
    pub line: usize,
    /// 1-based, in characters of the whole line.
    pub column: usize,
    /// Where the caret goes under `snippet` (1-based): the same as `column`, except on a long
    /// line, of which the snippet shows only a part.
    pub snippet_column: usize,
    /// Width of the caret underline.
    pub width: usize,
    pub message: String,
    /// The offending line, already stripped of control characters.
    pub snippet: Option<String>,
}

/// The line, counted from 1, that byte `offset` of `source` is on (its end, past the end).
pub fn line_at(source: &str, offset: usize) -> usize {
    let before = &source.as_bytes()[..offset.min(source.len())];
    before.iter().filter(|b| **b == b'\n').count() + 1
}

impl Diagnostic {
    /// A diagnostic at a byte range of `source`.
    pub fn at(
        severity: Severity,
        source: &str,
        span: std::ops::Range<usize>,
        message: String,
    ) -> Diagnostic {
        let start = floor_char_boundary(source, span.start.min(source.len()));
        let before = &source[..start];
        let line = line_at(source, start);
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = source[line_start..start].chars().count() + 1;
        let line_text = source[line_start..].split('\n').next().unwrap_or("");
        let end = floor_char_boundary(source, span.end.min(source.len()).max(start));
        let width = source[start..end]
            .split('\n')
            .next()
            .map_or(1, |s| s.chars().count().max(1));
        let (snippet, snippet_column) = window(line_text.trim_end_matches('\r'), column);
        Diagnostic {
            severity,
            line,
            column,
            snippet_column,
            width,
            message,
            snippet: Some(snippet),
        }
    }

    /// A diagnostic about the whole file.
    pub fn whole(severity: Severity, message: String) -> Diagnostic {
        Diagnostic {
            severity,
            line: 0,
            column: 0,
            snippet_column: 0,
            width: 0,
            message,
            snippet: None,
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The part of a long line around `column`, so a huge line is never printed whole, and the
/// column of the same character in that part.
fn window(line: &str, column: usize) -> (String, usize) {
    const SHOWN: usize = 100;
    let clean = crate::text::sanitize_line(line);
    let chars: Vec<char> = clean.chars().collect();
    if chars.len() <= SHOWN {
        return (clean, column);
    }
    let start = column
        .saturating_sub(SHOWN / 2)
        .min(chars.len().saturating_sub(SHOWN));
    let end = (start + SHOWN).min(chars.len());
    let mut text: String = chars[start..end].iter().collect();
    let mut col = column - start;
    if start > 0 {
        text.insert(0, '…');
        col += 1;
    }
    if end < chars.len() {
        text.push('…');
    }
    (text, col)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Every problem found in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub diagnostics: Vec<Diagnostic>,
}

impl ScenarioError {
    pub fn whole(file: &str, message: String) -> ScenarioError {
        ScenarioError {
            file: file.to_string(),
            diagnostics: vec![Diagnostic::whole(Severity::Error, message)],
        }
    }
}

impl ScenarioError {
    /// The first error on one line, `file:3:12: message`, for places with room for one line.
    pub fn one_line(&self) -> String {
        let first = self
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .or(self.diagnostics.first());
        match first {
            Some(d) if d.line > 0 => {
                format!("{}:{}:{}: {}", self.file, d.line, d.column, d.message)
            }
            Some(d) => format!("{}: {}", self.file, d.message),
            None => self.file.clone(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write_diagnostic(f, &self.file, d)?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// `file:3:12: error: message`, then the line with a caret under the bad part.
pub fn write_diagnostic(f: &mut impl fmt::Write, file: &str, d: &Diagnostic) -> fmt::Result {
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    if d.line == 0 {
        return write!(f, "{file}: {level}: {}", d.message);
    }
    write!(f, "{file}:{}:{}: {level}: {}", d.line, d.column, d.message)?;
    if let Some(snippet) = &d.snippet {
        let gutter = d.line.to_string().len();
        let pad = " ".repeat(gutter);
        write!(
            f,
            "\n{pad} |\n{} | {snippet}\n{pad} | {}{}",
            d.line,
            " ".repeat(d.snippet_column.saturating_sub(1)),
            "^".repeat(d.width.min(80))
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_is_on_the_line_its_newlines_before_it_say() {
        let source = "a = 1\n\nb = \"é\"\nc";
        assert_eq!(line_at(source, 0), 1);
        assert_eq!(line_at(source, 5), 1);
        assert_eq!(line_at(source, 6), 2);
        assert_eq!(line_at(source, 7), 3);
        assert_eq!(line_at(source, source.len()), 4);
        assert_eq!(line_at(source, 999), 4);
    }

    #[test]
    fn positions_and_caret() {
        let src = "title = \"x\"\nseed = \"nope\"\n";
        let d = Diagnostic::at(Severity::Error, src, 19..25, "bad seed".into());
        assert_eq!((d.line, d.column, d.width), (2, 8, 6));
        let mut out = String::new();
        write_diagnostic(&mut out, "a.toml", &d).unwrap();
        assert_eq!(
            out,
            "a.toml:2:8: error: bad seed\n  |\n2 | seed = \"nope\"\n  |        ^^^^^^"
        );
    }
}
