//! Polly v8 through `HttpStandardResilienceOptions`, bound from a section
//! of `appsettings.json` (.NET configuration keys ignore letter case).
//!
//! Documented defaults of the standard HTTP pipeline: `Retry` makes 3
//! retries (`MaxRetryAttempts`) after the first call, waiting `Delay` 2 s
//! growing exponentially (×2) with jitter, at most `MaxDelay` when given;
//! `AttemptTimeout` bounds each try (10 s), `TotalRequestTimeout` bounds
//! them all (30 s). Polly's exponential jitter draws around the exponential
//! value; it is counted at up to twice that value (a bound with room to
//! spare: Polly's own documentation gives no maximum).

use std::time::Duration;

use super::durations::Style;
use super::fields::Doc;
use super::tree::Node;
use super::{Imported, pick};
use crate::window::{Jitter, Layer, Provenance, Schedule, WindowError};

const KEYS: [&str; 3] = ["Retry", "AttemptTimeout", "TotalRequestTimeout"];

/// Whether some section of the file holds Polly options.
pub fn present(root: &Node) -> bool {
    !sections(root).is_empty()
}

/// Every map holding a `Retry`, `AttemptTimeout` or `TotalRequestTimeout`
/// entry, named by its path as .NET writes it (`Payments:Resilience`).
fn sections(root: &Node) -> Vec<(String, &Node)> {
    let mut found = Vec::new();
    walk(root, String::new(), &mut found, 0);
    found
}

fn walk<'a>(node: &'a Node, path: String, found: &mut Vec<(String, &'a Node)>, depth: usize) {
    if depth > 16 {
        return;
    }
    if KEYS.iter().any(|k| node.get(k).is_some()) {
        found.push((
            if path.is_empty() {
                "(top level)".to_owned()
            } else {
                path
            },
            node,
        ));
        return;
    }
    for (key, child) in node.entries() {
        let name = crate::text::sanitize_line(key);
        let next = if path.is_empty() {
            name
        } else {
            format!("{path}:{name}")
        };
        walk(child, next, found, depth + 1);
    }
}

fn span(d: Duration) -> String {
    crate::window::Span::from_duration(d).to_string()
}

/// A `{ "Timeout": "00:00:10" }` block, or its default.
fn timeout(
    doc: &Doc<'_>,
    section: &Node,
    key: &str,
    default: Duration,
    source: &mut Provenance,
    meaning: &str,
) -> Result<Duration, WindowError> {
    let Some(block) = section.get(key) else {
        source.note(format!("{meaning} {}: the default {key}", span(default)));
        return Ok(default);
    };
    let value = match block.get("Timeout") {
        Some(n) => n,
        None => block,
    };
    let t = doc.duration(value, Style::TimeSpan, &format!("{key}.Timeout"))?;
    if t.is_zero() {
        return Err(doc.error(value, format!("{key}.Timeout must be longer than zero")));
    }
    source.note(format!("{meaning} {} ({key}.Timeout)", span(t)));
    Ok(t)
}

/// Reads the section `selector` names (by its path, such as
/// `Payments:Resilience`), or the first.
pub fn read(doc: &Doc<'_>, root: &Node, selector: Option<&str>) -> Result<Imported, WindowError> {
    let mut notes = Vec::new();
    let (name, section) = pick(
        doc,
        "resilience section",
        sections(root),
        selector,
        &mut notes,
    )?;
    let mut source = doc.provenance(section, name.clone());
    let mut layer = Layer::new(format!("polly {name}"), Duration::ZERO, 4);
    let retry = section.get("Retry");
    let get = |key: &str| retry.and_then(|r| r.get(key));
    if let Some(r) = retry {
        doc.map(r, "Retry")?;
        // .NET's binder ignores a field it does not know, and so would this reader.
        super::tree::unknown_fields(r, &RETRY_FIELDS, "Retry", "Polly", &mut layer.warnings);
    }
    let retries = match get("MaxRetryAttempts") {
        Some(n) => doc.count(n, "Retry.MaxRetryAttempts")?,
        None => 3,
    };
    source.note(match get("MaxRetryAttempts") {
        Some(_) => format!(
            "attempts {} = Retry.MaxRetryAttempts {retries} + 1",
            retries + 1
        ),
        None => "attempts 4: 3 retries, the default Retry.MaxRetryAttempts".to_owned(),
    });
    layer.attempts = retries + 1;
    let delay = match get("Delay") {
        Some(n) => {
            let d = doc.duration(n, Style::TimeSpan, "Retry.Delay")?;
            source.note(format!("waits from {} (Retry.Delay)", span(d)));
            d
        }
        None => {
            source.note("waits from 2 s: the default Retry.Delay");
            Duration::from_secs(2)
        }
    };
    let cap = get("MaxDelay")
        .map(|n| doc.duration(n, Style::TimeSpan, "Retry.MaxDelay"))
        .transpose()?;
    if let Some(cap) = cap {
        source.note(format!("at most {} each (Retry.MaxDelay)", span(cap)));
    }
    let kind = match get("BackoffType") {
        Some(n) => doc.text(n, "Retry.BackoffType")?,
        None => "Exponential".to_owned(),
    };
    layer.schedule = match kind.to_ascii_lowercase().as_str() {
        "exponential" => {
            source.note("each wait ×2 (BackoffType Exponential)");
            Schedule::Exponential {
                initial: delay,
                multiplier: 2.0,
                cap,
            }
        }
        "constant" => Schedule::Constant(cap.map_or(delay, |c| c.min(delay))),
        "linear" => {
            source.note("waits grow by the delay each retry (BackoffType Linear)");
            linear(delay, cap, retries)
        }
        _ => {
            let at = get("BackoffType").unwrap_or(section);
            return Err(doc.error(
                at,
                format!(
                    "Retry.BackoffType must be Constant, Linear or Exponential; found {kind:?}"
                ),
            ));
        }
    };
    let jitter = match get("UseJitter") {
        Some(n) => doc.flag(n, "Retry.UseJitter")?,
        None => true,
    };
    if jitter {
        layer.jitter = Jitter::UpTo(2.0);
        source.note("UseJitter: Polly draws each wait around its value");
    }
    layer.timeout = Some(timeout(
        doc,
        section,
        "AttemptTimeout",
        Duration::from_secs(10),
        &mut source,
        "each try waits",
    )?);
    layer.deadline = Some(timeout(
        doc,
        section,
        "TotalRequestTimeout",
        Duration::from_secs(30),
        &mut source,
        "all tries within",
    )?);
    layer.provenance = Some(source);
    Ok(Imported {
        layers: vec![layer],
        paths: Vec::new(),
        notes,
        ..Imported::default()
    })
}

/// `delay × n` before retry `n`, at most `cap`.
fn linear(delay: Duration, cap: Option<Duration>, retries: u64) -> Schedule {
    let count = retries.clamp(1, 1000);
    let waits = (1..=count)
        .map(|n| {
            let wait = delay.saturating_mul(u32::try_from(n).unwrap_or(u32::MAX));
            cap.map_or(wait, |c| wait.min(c))
        })
        .collect();
    Schedule::List(waits)
}

/// What Polly's retry options bind from configuration.
const RETRY_FIELDS: [&str; 7] = [
    "MaxRetryAttempts",
    "Delay",
    "MaxDelay",
    "BackoffType",
    "UseJitter",
    "Name",
    "ShouldHandle",
];
