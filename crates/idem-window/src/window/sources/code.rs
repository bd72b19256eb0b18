//! Retry settings that live in program source, read where they are written:
//!
//! - Celery (5.4, *Tasks*): a task's decorator, `@app.task(...)` or `@shared_task(...)`:
//!   `max_retries` (3; `None` retries for ever), `retry_kwargs={"max_retries": ...,
//!   "countdown": ...}`, `autoretry_for`, `retry_backoff` (`True` is a factor of 1 s, a number
//!   is the factor: the wait before retry n is factor × 2^(n−1)), `retry_backoff_max` (600 s),
//!   `retry_jitter` (on by default: anywhere from zero to the wait), `default_retry_delay`
//!   (180 s, the wait when there is no back-off).
//! - Spring Retry (2.0): `@Retryable(maxAttempts = 3, backoff = @Backoff(delay = 1000,
//!   multiplier = 0, maxDelay = 30000, random = false))`, the first call counted in
//!   `maxAttempts`; with a multiplier each wait grows and stops at `maxDelay` (30 s when
//!   not written).
//! - Temporal (*Retry Policies*): `RetryPolicy` written as Go, Java, TypeScript or Python:
//!   initial interval (1 s), backoff coefficient (2.0), maximum interval (100 × the initial
//!   interval), maximum attempts (0 = no limit), with the activity's start-to-close timeout
//!   as each try's time and schedule-to-close as the deadline.
//!
//! Only the literal values of those arguments are read; a value computed in code is named,
//! with the `--layer` that gives it instead.

use std::time::Duration;

use super::tree::error_at;
use super::{Imported, pick};
use crate::window::{Jitter, Layer, Provenance, Schedule, WindowError};

/// The languages this reader knows, by file extension.
pub fn language(lower_name: &str) -> Option<&'static str> {
    let ext = lower_name.rsplit('.').next()?;
    match ext {
        "py" => Some("python"),
        "java" | "kt" => Some("java"),
        "go" => Some("go"),
        "ts" | "js" | "mjs" => Some("typescript"),
        _ => None,
    }
}

/// Line and column (1-based) of byte `at` in `text`.
fn position(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..floor(text, at)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// The index just past the bracket closing the one at `open`, skipping strings.
fn closing(text: &str, open: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = open;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'"' | b'\'' | b'`' => quote = Some(b),
                b'(' | b'{' | b'[' => depth += 1,
                b')' | b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                b'#' if bytes.get(i + 1) != Some(&b'{') => {
                    // A Python comment runs to the end of the line.
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// One `key = value` (or `key: value`) argument: its key, its value's text, and where the
/// value starts.
#[derive(Debug, Clone)]
struct Arg {
    key: String,
    value: String,
    at: usize,
}

/// The top-level arguments between the brackets at `open` and `close` (exclusive of both).
fn arguments(text: &str, open: usize, close: usize) -> Vec<Arg> {
    let inner_start = open + 1;
    let inner = &text[inner_start..close.saturating_sub(1)];
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut skip_line = false;
    let mut prev = '\0';
    for (i, c) in inner.char_indices() {
        if skip_line {
            if c == '\n' {
                skip_line = false;
            }
            prev = c;
            continue;
        }
        match quote {
            Some(q) => {
                if c == q && prev != '\\' {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' | '`' => quote = Some(c),
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => depth -= 1,
                '#' => skip_line = true,
                '/' if prev == '/' => skip_line = true,
                ',' | ';' if depth == 0 => {
                    parts.push((start, &inner[start..i]));
                    start = i + c.len_utf8();
                }
                _ => {}
            },
        }
        prev = c;
    }
    parts.push((start, &inner[start..]));
    parts
        .into_iter()
        .filter_map(|(offset, part)| {
            let raw = part;
            let part = strip_comments(part);
            // Where the text kept starts in the raw part (past blanks and comment lines).
            let raw_lead = part
                .lines()
                .next()
                .and_then(|first| raw.find(first))
                .unwrap_or(0);
            let split = part
                .char_indices()
                .find(|&(_, c)| c == '=' || c == ':')
                .map(|(i, _)| i)?;
            let key = part[..split].trim();
            if key.is_empty() || !key.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let value = part[split + 1..].trim().to_owned();
            let lead = part[split + 1..].len() - part[split + 1..].trim_start().len();
            Some(Arg {
                key: key.to_owned(),
                value,
                at: inner_start + offset + raw_lead + split + 1 + lead,
            })
        })
        .collect()
}

/// `text` without `#` and `//` comments (outside quotes).
fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut quote: Option<char> = None;
        let mut prev = '\0';
        let mut cut = line.len();
        for (i, c) in line.char_indices() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == '"' || c == '\'' => quote = Some(c),
                None if c == '#' || (c == '/' && prev == '/') => {
                    cut = if c == '/' { i - 1 } else { i };
                    break;
                }
                None => {}
            }
            prev = c;
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out.trim().to_owned()
}

/// The argument whose key is one of `names` (compared without case or underscores).
fn find<'a>(args: &'a [Arg], names: &[&str]) -> Option<&'a Arg> {
    let norm = |s: &str| s.replace('_', "").to_ascii_lowercase();
    args.iter()
        .find(|a| names.iter().any(|n| norm(&a.key) == norm(n)))
}

/// What a reader needs to report a bad value at its place.
struct Src<'a> {
    file: &'a str,
    text: &'a str,
}

impl Src<'_> {
    fn error(&self, at: usize, message: impl Into<String>) -> WindowError {
        error_at(self.file, position(self.text, at), message)
    }

    fn provenance(&self, at: usize, field: impl Into<String>) -> Provenance {
        let mut p = Provenance::new(self.file, field);
        p.line = Some(position(self.text, at).0);
        p
    }

    /// A whole number written as a literal.
    fn count(&self, arg: &Arg, what: &str) -> Result<u64, WindowError> {
        let v = arg.value.trim_end_matches(['L', 'l']).replace('_', "");
        v.parse::<u64>().map_err(|_| {
            self.error(
                arg.at,
                format!(
                    "{what} = {}: not a whole number written in the file; give the layer \
                     with --layer instead",
                    crate::text::shorten(&crate::text::sanitize_line(&arg.value), 60)
                ),
            )
        })
    }

    /// A number written as a literal.
    fn number(&self, arg: &Arg, what: &str) -> Result<f64, WindowError> {
        let v = arg
            .value
            .trim_end_matches(['d', 'D', 'f', 'F'])
            .replace('_', "");
        v.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n >= 0.0)
            .ok_or_else(|| {
                self.error(
                    arg.at,
                    format!(
                        "{what} = {}: not a number written in the file; give the layer with \
                         --layer instead",
                        crate::text::shorten(&crate::text::sanitize_line(&arg.value), 60)
                    ),
                )
            })
    }

    /// A duration in any of the languages' literal forms.
    fn duration(
        &self,
        arg: &Arg,
        what: &str,
        bare_unit: Duration,
    ) -> Result<Duration, WindowError> {
        duration_literal(&arg.value, bare_unit).ok_or_else(|| {
            self.error(
                arg.at,
                format!(
                    "{what} = {}: not a duration written in the file (such as 5 * time.Second, \
                     Duration.ofSeconds(5), timedelta(seconds=5) or '5s'); give the layer with \
                     --layer instead",
                    crate::text::shorten(&crate::text::sanitize_line(&arg.value), 60)
                ),
            )
        })
    }
}

/// `5 * time.Second`, `time.Minute*2`, `Duration.ofSeconds(5)`, `timedelta(seconds=5)`,
/// `'5s'`, `"1 minute"`, or a bare number of `bare_unit`.
fn duration_literal(text: &str, bare_unit: Duration) -> Option<Duration> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let t = t.trim_end_matches(',');
    let number = |s: &str| {
        s.replace('_', "")
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n >= 0.0)
    };
    let scaled = |n: f64, unit: f64| Duration::try_from_secs_f64(n * unit).ok();
    // Go: products of numbers and time.Unit.
    if t.contains("time.") {
        let mut total = 1.0f64;
        for factor in t.split('*') {
            let f = factor
                .trim_start_matches("time.Duration(")
                .trim_end_matches(')');
            let unit = match f {
                "time.Nanosecond" => Some(1e-9),
                "time.Microsecond" => Some(1e-6),
                "time.Millisecond" => Some(1e-3),
                "time.Second" => Some(1.0),
                "time.Minute" => Some(60.0),
                "time.Hour" => Some(3600.0),
                _ => None,
            };
            total *= unit.or_else(|| number(f))?;
        }
        return scaled(total, 1.0);
    }
    // Java: Duration.ofX(n).
    if let Some(rest) = t.strip_prefix("Duration.of") {
        let (unit, n) = rest.split_once('(')?;
        let n = number(n.trim_end_matches(')'))?;
        let unit = match unit {
            "Millis" => 1e-3,
            "Seconds" => 1.0,
            "Minutes" => 60.0,
            "Hours" => 3600.0,
            "Days" => 86_400.0,
            _ => return None,
        };
        return scaled(n, unit);
    }
    // Python: timedelta(seconds=5, minutes=1).
    if let Some(rest) = t
        .strip_prefix("timedelta(")
        .or_else(|| t.strip_prefix("datetime.timedelta("))
    {
        let mut total = 0.0;
        for part in rest.trim_end_matches(')').split(',') {
            let (unit, n) = part.split_once('=')?;
            let unit = match unit {
                "milliseconds" => 1e-3,
                "seconds" => 1.0,
                "minutes" => 60.0,
                "hours" => 3600.0,
                "days" => 86_400.0,
                _ => return None,
            };
            total += number(n)? * unit;
        }
        return scaled(total, 1.0);
    }
    // A string: '5s', '500ms', '1 minute', '2m'.
    if let Some(s) = t
        .strip_prefix(['\'', '"', '`'])
        .and_then(|s| s.strip_suffix(['\'', '"', '`']))
    {
        let s = s.to_ascii_lowercase();
        let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
        let (n, unit) = s.split_at(split);
        let n = number(n)?;
        let unit = match unit {
            "ms" | "millisecond" | "milliseconds" => 1e-3,
            "s" | "sec" | "second" | "seconds" => 1.0,
            "m" | "min" | "minute" | "minutes" => 60.0,
            "h" | "hour" | "hours" => 3600.0,
            "d" | "day" | "days" => 86_400.0,
            _ => return None,
        };
        return scaled(n, unit);
    }
    number(t.trim_end_matches(['L', 'l'])).and_then(|n| scaled(n, bare_unit.as_secs_f64()))
}

/// Reads `text` (a source file named `file`, in `language`).
pub fn read(
    text: &str,
    file: &str,
    language: &str,
    selector: Option<&str>,
) -> Result<Imported, WindowError> {
    let src = Src { file, text };
    let mut candidates: Vec<(String, (Kind, usize, usize))> = Vec::new();
    if language == "python" {
        candidates.extend(celery_tasks(text));
    }
    if language == "java" {
        candidates.extend(spring_retryables(text));
    }
    candidates.extend(temporal_policies(text));
    if candidates.is_empty() {
        let hint = match language {
            "python" => {
                "a Celery task decorator (@app.task(...) or @shared_task(...)) or a Temporal RetryPolicy(...)"
            }
            "java" => "a Spring Retry @Retryable(...) or a Temporal RetryOptions builder",
            _ => "a Temporal RetryPolicy",
        };
        return Err(error_at(
            file,
            (0, 0),
            format!(
                "found no retry settings in this source file; expected {hint} (stacks configured \
                 elsewhere in code: --preset celery, temporal or sidekiq, or --layer)"
            ),
        ));
    }
    let mut notes = Vec::new();
    let (name, (kind, open, close)) = pick(
        &super::fields::Doc::new(file),
        "retry policy",
        candidates,
        selector,
        &mut notes,
    )?;
    let layer = match kind {
        Kind::Celery => celery(&src, &name, open, close)?,
        Kind::Spring => spring(&src, &name, open, close)?,
        Kind::Temporal => temporal(&src, &name, open, close)?,
    };
    Ok(Imported {
        layers: vec![layer],
        notes,
        ..Imported::default()
    })
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Celery,
    Spring,
    Temporal,
}

/// The name of the next `def NAME`, `fun NAME`, `void NAME(`... after `from`.
fn next_function(text: &str, from: usize, keywords: &[&str]) -> Option<String> {
    let rest = text.get(from..)?;
    for line in rest.lines().take(12) {
        let l = line.trim();
        for k in keywords {
            if let Some(after) = l.strip_prefix(k) {
                let name: String = after
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    return Some(name);
                }
            }
        }
        // Java and Kotlin: the first `name(` on a line that declares a method.
        if keywords.is_empty()
            && !l.starts_with('@')
            && let Some(paren) = l.find('(')
        {
            let name: String = l[..paren]
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if !name.is_empty() {
                return Some(name);
            }
        }
    }
    None
}

fn celery_tasks(text: &str) -> Vec<(String, (Kind, usize, usize))> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices('@') {
        let head: String = text[at + 1..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        if !(head == "shared_task" || head.ends_with(".task")) {
            continue;
        }
        let open = at + 1 + head.len();
        if text.as_bytes().get(open) != Some(&b'(') {
            continue;
        }
        let Some(close) = closing(text, open) else {
            continue;
        };
        let name = next_function(text, close, &["def ", "async def "])
            .unwrap_or_else(|| format!("task at line {}", position(text, at).0));
        out.push((name, (Kind::Celery, open, close)));
    }
    out
}

fn spring_retryables(text: &str) -> Vec<(String, (Kind, usize, usize))> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("@Retryable") {
        let open = at + "@Retryable".len();
        let (open, close) = if text.as_bytes().get(open) == Some(&b'(') {
            match closing(text, open) {
                Some(close) => (open, close),
                None => continue,
            }
        } else {
            // `@Retryable` alone: every default.
            (open, open)
        };
        let name = next_function(text, close, &[])
            .unwrap_or_else(|| format!("method at line {}", position(text, at).0));
        out.push((name, (Kind::Spring, open, close)));
    }
    out
}

fn temporal_policies(text: &str) -> Vec<(String, (Kind, usize, usize))> {
    let mut out = Vec::new();
    for marker in [
        "RetryPolicy{",
        "RetryPolicy(",
        "RetryOptions.newBuilder()",
        "retry: {",
    ] {
        for (at, _) in text.match_indices(marker) {
            let open = at + marker.len() - 1;
            let close = if marker == "RetryOptions.newBuilder()" {
                // Java: the builder chain runs to `.build()`.
                match text[at..].find(".build()") {
                    Some(end) => at + end,
                    None => continue,
                }
            } else {
                match closing(text, open) {
                    Some(close) => close,
                    None => continue,
                }
            };
            let name = format!("RetryPolicy at line {}", position(text, at).0);
            out.push((name, (Kind::Temporal, open, close)));
        }
    }
    out.sort_by_key(|(_, (_, open, _))| *open);
    out
}

fn celery(src: &Src<'_>, name: &str, open: usize, close: usize) -> Result<Layer, WindowError> {
    let args = arguments(src.text, open, close);
    let mut source = src.provenance(open, format!("@task {name}"));
    let mut layer = Layer::new(format!("celery {name}"), Duration::ZERO, 4);
    // retry_kwargs is a dict literal whose keys are quoted.
    let retry_kwargs: Vec<Arg> = match find(&args, &["retry_kwargs"]) {
        Some(a) => {
            let end = closing(src.text, a.at).unwrap_or(a.at);
            quoted_keys(src.text, a.at, end)
        }
        None => Vec::new(),
    };
    let max_retries =
        find(&retry_kwargs, &["max_retries"]).or_else(|| find(&args, &["max_retries"]));
    match max_retries {
        Some(a) if a.value == "None" => {
            layer.forever = true;
            source.note("max_retries None: Celery retries for ever");
        }
        Some(a) => {
            let r = src.count(a, "max_retries")?;
            layer.attempts = r.saturating_add(1);
            source.note(format!("attempts {} = max_retries {r} + 1", r + 1));
        }
        None => source.note("attempts 4: max_retries 3, Celery's default"),
    }
    let auto = find(&args, &["autoretry_for"]);
    match auto {
        Some(a) if a.value.replace(' ', "") == "()" => layer.warnings.push(
            "autoretry_for is empty: the task retries only where its code calls self.retry()"
                .to_owned(),
        ),
        Some(_) => {}
        None => layer.warnings.push(
            "no autoretry_for: the task retries only where its code calls self.retry() (counted \
             as if it does on every failure)"
                .to_owned(),
        ),
    }
    let backoff = find(&args, &["retry_backoff"]);
    let factor = match backoff {
        Some(a) if a.value == "True" => Some(Duration::from_secs(1)),
        Some(a) if a.value == "False" || a.value == "0" => None,
        Some(a) => Some(src.duration(a, "retry_backoff", Duration::from_secs(1))?),
        None => None,
    };
    match factor {
        Some(factor) => {
            let cap = match find(&args, &["retry_backoff_max"]) {
                Some(a) => src.duration(a, "retry_backoff_max", Duration::from_secs(1))?,
                None => Duration::from_secs(600),
            };
            source.note(format!(
                "retry_backoff: waits {} × 2^(n−1) before retry n, at most {}",
                super::envoy::span(factor),
                super::envoy::span(cap)
            ));
            layer.schedule = Schedule::Exponential {
                initial: factor,
                multiplier: 2.0,
                cap: Some(cap),
            };
            if find(&retry_kwargs, &["countdown"]).is_some() {
                source.note("retry_kwargs countdown not read: the back-off sets each wait instead");
            }
            let jitter = match find(&args, &["retry_jitter"]) {
                Some(a) => a.value != "False",
                None => true,
            };
            if jitter {
                source.note("retry_jitter (on by default): anywhere from zero to the wait, counted at the top");
                layer.jitter = Jitter::Full;
            }
        }
        None => {
            let wait = match find(&retry_kwargs, &["countdown"])
                .or_else(|| find(&args, &["default_retry_delay"]))
            {
                Some(a) => {
                    let d = src.duration(a, &a.key, Duration::from_secs(1))?;
                    source.note(format!(
                        "waits {} before each retry ({})",
                        super::envoy::span(d),
                        a.key
                    ));
                    d
                }
                None => {
                    source.note("waits 3 min before each retry: Celery's default_retry_delay");
                    Duration::from_secs(180)
                }
            };
            layer.schedule = Schedule::Constant(wait);
        }
    }
    for key in ["time_limit", "soft_time_limit", "rate_limit", "acks_late"] {
        if find(&args, &[key]).is_some() {
            source.note(format!(
                "{key} not read: it does not change how often the task is retried"
            ));
        }
    }
    layer.provenance = Some(source);
    Ok(layer)
}

/// Arguments of a Python dict literal, whose keys are quoted.
fn quoted_keys(text: &str, open: usize, close: usize) -> Vec<Arg> {
    let inner = &text[open + 1..close.saturating_sub(1)];
    let mut out = Vec::new();
    let mut offset = 0;
    for part in inner.split(',') {
        if let Some((k, v)) = part.split_once(':') {
            let lead = v.len() - v.trim_start().len();
            out.push(Arg {
                key: k.trim().trim_matches(['"', '\'']).to_owned(),
                value: v.trim().to_owned(),
                at: open + 1 + offset + k.len() + 1 + lead,
            });
        }
        offset += part.len() + 1;
    }
    out
}

fn spring(src: &Src<'_>, name: &str, open: usize, close: usize) -> Result<Layer, WindowError> {
    let args = if close > open {
        arguments(src.text, open, close)
    } else {
        Vec::new()
    };
    let mut source = src.provenance(open, format!("@Retryable {name}"));
    let mut layer = Layer::new(format!("spring-retry {name}"), Duration::ZERO, 3);
    if let Some(a) = find(&args, &["maxAttemptsExpression"]) {
        return Err(src.error(
            a.at,
            "maxAttemptsExpression is worked out when the program runs; give the layer with \
             --layer instead",
        ));
    }
    match find(&args, &["maxAttempts"]) {
        Some(a) => {
            let n = src.count(a, "maxAttempts")?;
            if n == 0 {
                return Err(src.error(a.at, "maxAttempts must be at least 1 (the first call)"));
            }
            layer.attempts = n;
            source.note(format!(
                "attempts {n} (maxAttempts, the first call included)"
            ));
        }
        None => source.note("attempts 3: Spring Retry's default maxAttempts"),
    }
    let backoff = find(&args, &["backoff"]);
    let backoff_args = match backoff {
        Some(a) => match a.value.find('(') {
            Some(p) => {
                let open = a.at + p;
                let close = closing(src.text, open).unwrap_or(open);
                arguments(src.text, open, close)
            }
            None => Vec::new(),
        },
        None => Vec::new(),
    };
    let ms = Duration::from_millis(1);
    let delay = match find(&backoff_args, &["delay"]).or_else(|| find(&backoff_args, &["value"])) {
        Some(a) => {
            let d = src.duration(a, "@Backoff delay", ms)?;
            if d.is_zero() {
                Duration::from_secs(1)
            } else {
                d
            }
        }
        None => Duration::from_secs(1),
    };
    source.note(format!(
        "waits {} (@Backoff delay; 1 s when not written)",
        super::envoy::span(delay)
    ));
    let multiplier = match find(&backoff_args, &["multiplier"]) {
        Some(a) => src.number(a, "@Backoff multiplier")?,
        None => 0.0,
    };
    if multiplier > 1.0 {
        let cap = match find(&backoff_args, &["maxDelay"]) {
            Some(a) => {
                let d = src.duration(a, "@Backoff maxDelay", ms)?;
                if d < delay {
                    Duration::from_secs(30)
                } else {
                    d
                }
            }
            None => Duration::from_secs(30),
        };
        source.note(format!(
            "each wait × {multiplier}, at most {} (@Backoff maxDelay; 30 s when not written)",
            super::envoy::span(cap)
        ));
        layer.schedule = Schedule::Exponential {
            initial: delay,
            multiplier,
            cap: Some(cap),
        };
    } else {
        layer.schedule = Schedule::Constant(delay);
    }
    if find(&backoff_args, &["random"]).is_some_and(|a| a.value == "true") {
        source.note("random = true: each wait drawn up to the scheduled one, counted at the top");
        layer.jitter = Jitter::Full;
    }
    for key in [
        "retryFor",
        "include",
        "value",
        "noRetryFor",
        "exclude",
        "recover",
        "listeners",
    ] {
        if find(&args, &[key]).is_some() {
            source.note(format!("{key} not read: every failure is taken as retried"));
        }
    }
    source.note("no per-try timeout in @Retryable (the client's own timeout is elsewhere)");
    layer.provenance = Some(source);
    Ok(layer)
}

fn temporal(src: &Src<'_>, name: &str, open: usize, close: usize) -> Result<Layer, WindowError> {
    let text = &src.text[open..close];
    // Java builders are calls (`.setMaximumAttempts(5)`); make them `key: value` arguments.
    let args: Vec<Arg> = if text.contains(".set") {
        text.match_indices(".set")
            .filter_map(|(i, _)| {
                let start = open + i + ".set".len();
                let paren = src.text[start..].find('(')? + start;
                let end = closing(src.text, paren)?;
                Some(Arg {
                    key: src.text[start..paren].to_owned(),
                    value: src.text[paren + 1..end - 1].trim().to_owned(),
                    at: paren + 1,
                })
            })
            .collect()
    } else {
        arguments(src.text, open, close)
    };
    let mut source = src.provenance(open, name.to_owned());
    let mut layer = Layer::new("temporal activity".to_owned(), Duration::ZERO, 1);
    let ms = Duration::from_millis(1);
    let initial = match find(&args, &["InitialInterval"]) {
        Some(a) => src.duration(a, "initial interval", ms)?,
        None => Duration::from_secs(1),
    };
    let coefficient = match find(&args, &["BackoffCoefficient"]) {
        Some(a) => src.number(a, "backoff coefficient")?,
        None => 2.0,
    };
    if coefficient < 1.0 {
        return Err(match find(&args, &["BackoffCoefficient"]) {
            Some(a) => src.error(a.at, "the backoff coefficient must be at least 1"),
            None => src.error(open, "the backoff coefficient must be at least 1"),
        });
    }
    let maximum = match find(&args, &["MaximumInterval"]) {
        Some(a) => src.duration(a, "maximum interval", ms)?,
        None => initial.saturating_mul(100),
    };
    source.note(format!(
        "waits {} × {coefficient}^(n−1) before retry n, at most {} (1 s, 2.0 and 100 × the \
         initial interval when not written)",
        super::envoy::span(initial),
        super::envoy::span(maximum)
    ));
    layer.schedule = Schedule::Exponential {
        initial,
        multiplier: coefficient,
        cap: Some(maximum),
    };
    match find(&args, &["MaximumAttempts"]) {
        Some(a) => {
            let n = src.count(a, "maximum attempts")?;
            if n == 0 {
                layer.forever = true;
                source.note("maximum attempts 0: no limit");
            } else {
                layer.attempts = n;
                source.note(format!(
                    "attempts {n} (maximum attempts, the first included)"
                ));
            }
        }
        None => {
            layer.forever = true;
            source.note("no maximum attempts: Temporal retries an activity without limit");
        }
    }
    // The activity's timeouts are written beside the policy, in the options that hold it.
    let around_start = floor(src.text, open.saturating_sub(400));
    let around = &src.text[around_start..floor(src.text, close.saturating_add(400))];
    let options = option_args(around_start, around);
    if let Some(a) = find(&options, &["StartToCloseTimeout"]) {
        let t = src.duration(a, "start-to-close timeout", ms)?;
        source.note(format!(
            "each try waits {} (start-to-close timeout)",
            super::envoy::span(t)
        ));
        layer.timeout = Some(t);
    }
    if let Some(a) = find(&options, &["ScheduleToCloseTimeout"]) {
        let t = src.duration(a, "schedule-to-close timeout", ms)?;
        source.note(format!(
            "all tries within {} (schedule-to-close timeout)",
            super::envoy::span(t)
        ));
        layer.deadline = Some(t);
    }
    if layer.forever && layer.deadline.is_none() {
        layer.warnings.push(
            "no attempt limit and no schedule-to-close timeout: the activity is retried until \
             someone stops it"
                .to_owned(),
        );
    }
    layer.provenance = Some(source);
    Ok(layer)
}

/// `key: value`, `key = value` and `.setKey(value)` pairs naming timeouts in `around`.
fn option_args(base: usize, around: &str) -> Vec<Arg> {
    let mut out = Vec::new();
    for key in ["StartToCloseTimeout", "ScheduleToCloseTimeout"] {
        let variants = [
            key.to_owned(),
            format!("{}{}", key[..1].to_ascii_lowercase(), &key[1..]),
            snake(key),
        ];
        for v in variants {
            for (i, _) in around.match_indices(v.as_str()) {
                let after = &around[i + v.len()..];
                let lead = after.len() - after.trim_start().len();
                let rest = after.trim_start();
                let Some(sep) = rest.chars().next() else {
                    continue;
                };
                if !matches!(sep, ':' | '=' | '(') {
                    continue;
                }
                let value_start = i + v.len() + lead + 1;
                let value_text = &around[value_start..];
                let value_end = if sep == '(' {
                    closing(around, value_start - 1)
                        .map_or(value_text.len(), |e| e - 1 - value_start)
                } else {
                    value_text
                        .find([',', '\n', ';', '}'])
                        .unwrap_or(value_text.len())
                };
                let value = value_text[..value_end.min(value_text.len())]
                    .trim()
                    .to_owned();
                out.push(Arg {
                    key: key.to_owned(),
                    value,
                    at: base + value_start,
                });
            }
        }
    }
    out
}

fn snake(key: &str) -> String {
    let mut out = String::new();
    for (i, c) in key.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The largest char boundary of `text` at or below `at`.
fn floor(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
