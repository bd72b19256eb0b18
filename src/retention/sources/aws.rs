//! `~/.aws/config`: a profile's `retry_mode` and `max_attempts`.
//!
//! The AWS SDKs' documented behaviour: in `standard` (and `adaptive`) mode a
//! call makes 3 attempts unless `max_attempts` says otherwise, waiting a
//! random time up to `1 s × 2^(n−1)` before retry `n`, never more than 20 s
//! (full jitter). `legacy` mode is each SDK's own; it is counted like
//! `standard`, with a warning. The file sets no per-try timeout (that lives
//! in code), so tries count as taking no time unless one is given.

use std::time::Duration;

use super::fields::Doc;
use super::tree::Node;
use super::{Imported, pick};
use crate::retention::{Jitter, Layer, RetentionError, Schedule};

const BASE: Duration = Duration::from_secs(1);
const CAP: Duration = Duration::from_secs(20);

/// Reads the profile `selector` names (`default` when it is there, else the
/// first).
pub fn read(
    doc: &Doc<'_>,
    root: &Node,
    selector: Option<&str>,
) -> Result<Imported, RetentionError> {
    let mut candidates: Vec<(String, &Node)> = root
        .entries()
        .iter()
        .filter_map(|(section, node)| {
            if section == "default" {
                Some(("default".to_owned(), node))
            } else {
                section
                    .strip_prefix("profile ")
                    .map(|p| (p.trim().to_owned(), node))
            }
        })
        .collect();
    // The default profile is the one an SDK uses unless told otherwise.
    if let Some(i) = candidates.iter().position(|(n, _)| n == "default") {
        let default = candidates.remove(i);
        candidates.insert(0, default);
    }
    let mut notes = Vec::new();
    let (name, profile) = pick(doc, "profile", candidates, selector, &mut notes)?;
    let section = if name == "default" {
        "[default]".to_owned()
    } else {
        format!("[profile {name}]")
    };
    let mut source = doc.provenance(profile, section);
    let mut layer = Layer::new(format!("AWS SDK ({name})"), Duration::ZERO, 3);
    let mode = match profile.get_exact("retry_mode") {
        Some(n) => {
            let mode = doc.text(n, "retry_mode")?;
            if !["standard", "adaptive", "legacy"].contains(&mode.as_str()) {
                return Err(doc.error(
                    n,
                    format!("retry_mode must be standard, adaptive or legacy; found {mode:?}"),
                ));
            }
            source.note(format!("retry_mode {mode}"));
            mode
        }
        None => {
            source.note("no retry_mode: counted as standard");
            layer.warnings.push(
                "no retry_mode: each SDK picks its own default mode; counted as standard"
                    .to_owned(),
            );
            "standard".to_owned()
        }
    };
    if mode == "legacy" {
        layer.warnings.push(
            "legacy mode retries as each SDK sees fit (boto3 makes 5 attempts); counted as \
             standard"
                .to_owned(),
        );
    }
    match profile.get_exact("max_attempts") {
        Some(n) => {
            let attempts = doc.count(n, "max_attempts")?;
            if attempts == 0 {
                return Err(doc.error(n, "max_attempts must be at least 1 (the first attempt)"));
            }
            source.note(format!(
                "attempts {attempts} (max_attempts, the first included)"
            ));
            layer.attempts = attempts;
        }
        None => source.note("attempts 3: the default of standard and adaptive modes"),
    }
    layer.schedule = Schedule::Exponential {
        initial: BASE,
        multiplier: 2.0,
        cap: Some(CAP),
    };
    layer.jitter = Jitter::Full;
    source.note("waits up to 1 s × 2^(n−1) before retry n, at most 20 s (full jitter)");
    source.note("no per-try timeout in this file (each SDK sets its own in code)");
    layer.provenance = Some(source);
    Ok(Imported {
        layers: vec![layer],
        paths: Vec::new(),
        notes,
    })
}
