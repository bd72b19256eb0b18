//! Resilience4j, as Spring Boot configures it in `application.yml` or
//! `application.properties`: a retry instance (or the shared config it
//! builds on) and its TimeLimiter.
//!
//! Documented defaults: `maxAttempts` 3 (the first call included),
//! `waitDuration` 500 ms; with `enableExponentialBackoff` each wait is the
//! last × `exponentialBackoffMultiplier` (1.5 when absent), at most
//! `exponentialMaxWaitDuration`; with `enableRandomizedWait` each wait is
//! drawn within ± `randomizedWaitFactor` (0.5 when absent). An instance
//! takes what it does not set from its `baseConfig`, else from
//! `configs.default`. The TimeLimiter's `timeoutDuration` (1 s when a time
//! limiter is configured without one) is the per-try timeout.

use std::time::Duration;

use super::durations::Style;
use super::fields::Doc;
use super::tree::Node;
use super::{Imported, pick};
use crate::window::{Jitter, Layer, Provenance, Schedule, WindowError};

/// The `retry` or `timelimiter` section, written nested or with a dotted key.
fn section<'a>(root: &'a Node, name: &str) -> Option<&'a Node> {
    root.get("resilience4j")
        .and_then(|r| r.get(name))
        .or_else(|| root.get_exact(&format!("resilience4j.{name}")))
}

/// Whether any document configures Resilience4j retries.
pub fn present(documents: &[Node]) -> bool {
    documents.iter().any(|d| section(d, "retry").is_some())
}

/// One setting of an instance, looked up in the instance, then its base
/// config, then `configs.default`; with the field path it was found at.
struct Lookup<'a> {
    levels: Vec<(&'a Node, String)>,
}

impl<'a> Lookup<'a> {
    fn get(&self, key: &str) -> Option<(&'a Node, String)> {
        self.levels
            .iter()
            .find_map(|(node, path)| node.get(key).map(|n| (n, format!("{path}.{key}"))))
    }
}

/// The instances of a section, under `instances` or under `backends`, the name Resilience4j's
/// Spring Boot starters used before 1.0 and still accept: the node and the key it was under.
fn instances(section_node: &Node) -> Option<(&Node, &'static str)> {
    section_node
        .get("instances")
        .map(|n| (n, "instances"))
        .or_else(|| section_node.get("backends").map(|n| (n, "backends")))
}

fn levels<'a>(
    doc: &Doc<'_>,
    section_node: &'a Node,
    section_path: &str,
    instance: Option<(&'a Node, &str)>,
) -> Result<Lookup<'a>, WindowError> {
    let mut levels = Vec::new();
    let configs = section_node.get("configs");
    let group = instances(section_node).map_or("instances", |(_, key)| key);
    if let Some((node, name)) = instance {
        levels.push((node, format!("{section_path}.{group}.{name}")));
        if let Some(base) = node.get("baseConfig") {
            let base_name = doc.text(base, "baseConfig")?;
            let Some(config) = configs.and_then(|c| c.get_exact(&base_name)) else {
                return Err(doc.error(
                    base,
                    format!("baseConfig names {base_name:?}, which is not under configs"),
                ));
            };
            levels.push((config, format!("{section_path}.configs.{base_name}")));
        }
    }
    if let Some(default) = configs.and_then(|c| c.get_exact("default")) {
        levels.push((default, format!("{section_path}.configs.default")));
    }
    Ok(Lookup { levels })
}

/// Reads the retry instance `selector` names (or the first), from the first
/// document that configures Resilience4j retries.
pub fn read(
    doc: &Doc<'_>,
    documents: &[Node],
    selector: Option<&str>,
) -> Result<Imported, WindowError> {
    let Some(root) = documents.iter().find(|d| section(d, "retry").is_some()) else {
        return Err(super::tree::error_at(
            doc.file,
            (0, 0),
            "found no resilience4j.retry section; expected one with instances or configs",
        ));
    };
    let retry = section(root, "retry").unwrap_or(root);
    doc.map(retry, "resilience4j.retry")?;
    let group = instances(retry).map_or("instances", |(_, key)| key);
    let mut candidates: Vec<(String, Option<&Node>)> = instances(retry)
        .map(|(i, _)| {
            i.entries()
                .iter()
                .map(|(name, node)| (crate::text::sanitize_line(name), Some(node)))
                .collect()
        })
        .unwrap_or_default();
    if candidates.is_empty() {
        // No instance: the shared default config is what every retry gets.
        candidates.push(("default".to_owned(), None));
    }
    let mut notes = Vec::new();
    let (name, instance) = pick(doc, "retry instance", candidates, selector, &mut notes)?;
    let lookup = levels(
        doc,
        retry,
        "resilience4j.retry",
        instance.map(|n| (n, name.as_str())),
    )?;
    let anchor = instance.unwrap_or(retry);
    let field = match instance {
        Some(_) => format!("resilience4j.retry.{group}.{name}"),
        None => "resilience4j.retry.configs.default".to_owned(),
    };
    let mut source = doc.provenance(anchor, field);
    let mut layer = Layer::new(format!("resilience4j {name}"), Duration::ZERO, 3);

    let attempts = lookup.get("maxAttempts").or_else(|| {
        lookup.get("maxRetryAttempts").inspect(|_| {
            layer
                .warnings
                .push("maxRetryAttempts is the old name of maxAttempts".to_owned());
        })
    });
    match attempts {
        Some((n, path)) => {
            let attempts = doc.count(n, "maxAttempts")?;
            if attempts == 0 {
                return Err(doc.error(n, "maxAttempts must be at least 1 (the first call)"));
            }
            source.note(format!(
                "attempts {attempts} ({path}, the first call included)"
            ));
            layer.attempts = attempts;
        }
        None => source.note("attempts 3: Resilience4j's default maxAttempts"),
    }
    let skipped: Vec<&str> = [
        "retryExceptions",
        "ignoreExceptions",
        "retryOnResultPredicate",
        "retryExceptionPredicate",
        "failAfterMaxAttempts",
    ]
    .into_iter()
    .filter(|k| lookup.get(k).is_some())
    .collect();
    if !skipped.is_empty() {
        source.note(format!(
            "not read (every failure is taken as retried): {}",
            skipped.join(", ")
        ));
    }
    let wait = match lookup.get("waitDuration") {
        Some((n, path)) => {
            let wait = doc.duration(n, Style::Spring, "waitDuration")?;
            source.note(format!("waits {} ({path})", span(wait)));
            wait
        }
        None => {
            source.note("waits 500 ms: Resilience4j's default waitDuration");
            Duration::from_millis(500)
        }
    };
    layer.schedule = schedule(doc, &lookup, wait, &mut source)?;
    if flag(doc, &lookup, "enableRandomizedWait")? {
        let factor = match lookup.get("randomizedWaitFactor") {
            Some((n, _)) => {
                let f = doc.number(n, "randomizedWaitFactor")?;
                if f >= 1.0 {
                    return Err(doc.error(n, "randomizedWaitFactor must be below 1, such as 0.5"));
                }
                f
            }
            None => 0.5,
        };
        layer.jitter = Jitter::Proportional(factor);
        source.note(format!(
            "waits randomized by ±{factor} (randomizedWaitFactor)"
        ));
    }
    layer.timeout = time_limit(doc, root, &name, &mut source)?;
    layer.provenance = Some(source);
    Ok(Imported {
        layers: vec![layer],
        paths: Vec::new(),
        notes,
        ..Imported::default()
    })
}

fn flag(doc: &Doc<'_>, lookup: &Lookup<'_>, key: &str) -> Result<bool, WindowError> {
    lookup
        .get(key)
        .map(|(n, _)| doc.flag(n, key))
        .transpose()
        .map(|f| f.unwrap_or(false))
}

fn schedule(
    doc: &Doc<'_>,
    lookup: &Lookup<'_>,
    wait: Duration,
    source: &mut Provenance,
) -> Result<Schedule, WindowError> {
    if !flag(doc, lookup, "enableExponentialBackoff")? {
        return Ok(Schedule::Constant(wait));
    }
    let multiplier = match lookup.get("exponentialBackoffMultiplier") {
        Some((n, path)) => {
            let m = doc.number(n, "exponentialBackoffMultiplier")?;
            if m < 1.0 {
                return Err(doc.error(n, "exponentialBackoffMultiplier must be at least 1"));
            }
            source.note(format!("each wait × {m} ({path})"));
            m
        }
        None => {
            source.note("each wait × 1.5: Resilience4j's default multiplier");
            1.5
        }
    };
    let cap = lookup
        .get("exponentialMaxWaitDuration")
        .map(|(n, path)| {
            let cap = doc.duration(n, Style::Spring, "exponentialMaxWaitDuration")?;
            source.note(format!("at most {} each ({path})", span(cap)));
            Ok::<_, WindowError>(cap)
        })
        .transpose()?;
    Ok(Schedule::Exponential {
        initial: wait,
        multiplier,
        cap,
    })
}

/// The TimeLimiter of the same name (or the default time-limiter config).
fn time_limit(
    doc: &Doc<'_>,
    root: &Node,
    name: &str,
    source: &mut Provenance,
) -> Result<Option<Duration>, WindowError> {
    let Some(limiter) = section(root, "timelimiter") else {
        source.note("no timelimiter: tries count as taking no time");
        return Ok(None);
    };
    let lookup = levels(
        doc,
        limiter,
        "resilience4j.timelimiter",
        instances(limiter)
            .and_then(|(i, _)| i.get_exact(name))
            .map(|n| (n, name)),
    )?;
    if lookup.levels.is_empty() {
        source.note(format!(
            "no time limiter for {name}: tries count as taking no time"
        ));
        return Ok(None);
    }
    match lookup.get("timeoutDuration") {
        Some((n, path)) => {
            let t = doc.duration(n, Style::Spring, "timeoutDuration")?;
            if t.is_zero() {
                return Err(doc.error(n, "timeoutDuration must be longer than zero"));
            }
            source.note(format!("each try waits {} ({path})", span(t)));
            Ok(Some(t))
        }
        None => {
            source.note("each try waits 1 s: the TimeLimiter's default timeoutDuration");
            Ok(Some(Duration::from_secs(1)))
        }
    }
}

fn span(d: Duration) -> String {
    crate::window::Span::from_duration(d).to_string()
}
