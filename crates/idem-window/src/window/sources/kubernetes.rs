//! Kubernetes `Job` and `CronJob` (batch/v1).
//!
//! Documented behaviour: a failed pod is replaced up to `backoffLimit`
//! times (6 by default), after an exponential delay of 10 s, 20 s, 40 s...
//! capped at six minutes; `activeDeadlineSeconds` on the Job bounds every
//! try and wait together, and on the pod template it bounds one pod (a
//! try). `backoffLimitPerIndex` (an Indexed Job) gives each index its own limit, and with it
//! `backoffLimit` defaults to 2,147,483,647; `podFailurePolicy` rules decide which failures
//! are retried (see `pod_failure_policy`). A CronJob starts the same work again at its next scheduled time: a
//! human path of one schedule period, counted from the run that failed.

use std::time::Duration;

use super::durations::Style;
use super::fields::Doc;
use super::tree::Node;
use super::{Imported, pick};
use crate::window::{HumanPath, Layer, Schedule, WindowError};

fn span(d: Duration) -> String {
    crate::window::Span::from_duration(d).to_string()
}

/// Reads the Job or CronJob `selector` names (by `metadata.name`), or the
/// first.
pub fn read(
    doc: &Doc<'_>,
    documents: &[Node],
    selector: Option<&str>,
) -> Result<Imported, WindowError> {
    let mut candidates = Vec::new();
    for (i, document) in documents.iter().enumerate() {
        let kind = document.get_exact("kind").and_then(Node::scalar_text);
        if !matches!(kind.as_deref(), Some("Job" | "CronJob")) {
            continue;
        }
        let name = document
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::scalar_text)
            .map(|n| crate::text::sanitize_line(&n))
            .unwrap_or_else(|| format!("document {}", i + 1));
        candidates.push((name, (document, kind.unwrap_or_default())));
    }
    let mut notes = Vec::new();
    let (name, (document, kind)) = pick(doc, "Job or CronJob", candidates, selector, &mut notes)?;
    let spec = document
        .get("spec")
        .ok_or_else(|| doc.error(document, format!("a {kind} needs a spec")))?;
    doc.map(spec, "spec")?;
    let (job_spec, field) = if kind == "CronJob" {
        let template = spec
            .get("jobTemplate")
            .and_then(|t| t.get("spec"))
            .ok_or_else(|| doc.error(spec, "a CronJob needs spec.jobTemplate.spec"))?;
        (template, "spec.jobTemplate.spec")
    } else {
        (spec, "spec")
    };
    doc.map(job_spec, field)?;
    let mut source = doc.provenance(job_spec, field);
    let mut layer = Layer::new(format!("{} {name}", kind.to_lowercase()), Duration::ZERO, 7);
    let per_index = job_spec
        .get("backoffLimitPerIndex")
        .map(|n| doc.count(n, "backoffLimitPerIndex"))
        .transpose()?;
    let limit = job_spec
        .get("backoffLimit")
        .map(|n| doc.count(n, "backoffLimit"))
        .transpose()?;
    match (per_index, limit) {
        (Some(per), None) => {
            source.note(format!(
                "attempts {} per index = backoffLimitPerIndex {per} + 1 (with it, backoffLimit \
                 defaults to 2,147,483,647, no limit for the Job as a whole)",
                per + 1
            ));
            layer.attempts = per + 1;
        }
        (Some(per), Some(limit)) => {
            let attempts = per.min(limit) + 1;
            source.note(format!(
                "attempts {attempts} per index: backoffLimitPerIndex {per}, within the Job's \
                 backoffLimit {limit} (failures of every index counted together)"
            ));
            layer.attempts = attempts;
        }
        (None, Some(limit)) => {
            source.note(format!("attempts {} = backoffLimit {limit} + 1", limit + 1));
            layer.attempts = limit + 1;
        }
        (None, None) => source.note("attempts 7: Kubernetes' default backoffLimit of 6"),
    }
    layer.schedule = Schedule::Exponential {
        initial: Duration::from_secs(10),
        multiplier: 2.0,
        cap: Some(Duration::from_secs(360)),
    };
    source.note("waits 10 s, doubling, at most 6 min (Kubernetes' pod backoff)");
    if let Some(n) = job_spec.get("activeDeadlineSeconds") {
        let d = doc.duration(n, Style::Seconds, "activeDeadlineSeconds")?;
        if d.is_zero() {
            return Err(doc.error(n, "activeDeadlineSeconds must be longer than zero"));
        }
        source.note(format!(
            "all pods within {} (activeDeadlineSeconds)",
            span(d)
        ));
        layer.deadline = Some(d);
    }
    if let Some(policy) = job_spec.get("podFailurePolicy") {
        pod_failure_policy(doc, policy, &mut layer, &mut source)?;
    }
    let pod_deadline = job_spec
        .get("template")
        .and_then(|t| t.get("spec"))
        .and_then(|s| s.get("activeDeadlineSeconds"));
    match pod_deadline {
        Some(n) => {
            let t = doc.duration(n, Style::Seconds, "template.spec.activeDeadlineSeconds")?;
            if t.is_zero() {
                return Err(doc.error(n, "activeDeadlineSeconds must be longer than zero"));
            }
            source.note(format!(
                "each pod within {} (template.spec.activeDeadlineSeconds)",
                span(t)
            ));
            layer.timeout = Some(t);
        }
        None => source.note("no deadline per pod: a try counts as taking no time"),
    }
    let skipped: Vec<&str> = [
        "completions",
        "parallelism",
        "maxFailedIndexes",
        "successPolicy",
        "ttlSecondsAfterFinished",
        "suspend",
    ]
    .into_iter()
    .filter(|k| job_spec.get_exact(k).is_some())
    .collect();
    if !skipped.is_empty() {
        source.note(format!(
            "not read, as they bound how many pods run or when the Job ends, not how often one \
             is replaced: {}",
            skipped.join(", ")
        ));
    }
    layer.provenance = Some(source);
    let mut paths = Vec::new();
    if kind == "CronJob"
        && let Some(schedule) = spec.get("schedule")
    {
        let text = doc.text(schedule, "spec.schedule")?;
        match cron_period(&text) {
            Some(period) => {
                let mut path = HumanPath::new("next CronJob run", period);
                let mut path_source = doc.provenance(schedule, "spec.schedule");
                path_source.note(format!(
                    "{text:?} runs every {}: the next run starts the same work again one period \
                     after the first",
                    span(period)
                ));
                path.provenance = Some(path_source);
                paths.push(path);
            }
            None => notes.push(format!(
                "{}: cannot tell how far apart the runs of {text:?} are; add the next run with \
                 --path \"next CronJob run=DURATION\"",
                doc.file
            )),
        }
    }
    Ok(Imported {
        layers: vec![layer],
        paths,
        notes,
        ..Imported::default()
    })
}

/// `podFailurePolicy`: which failures are retried, as the Job controller applies its rules
/// (the first rule that matches a failed pod decides): `FailJob` and `FailIndex` end the Job
/// or the index with no retry, `Count` counts the failure against the limit as usual, and
/// `Ignore` retries the pod without counting it, so with such failures nothing but
/// `activeDeadlineSeconds` bounds the pods.
fn pod_failure_policy(
    doc: &Doc<'_>,
    policy: &Node,
    layer: &mut Layer,
    source: &mut crate::window::Provenance,
) -> Result<(), WindowError> {
    let rules = policy
        .get("rules")
        .ok_or_else(|| doc.error(policy, "podFailurePolicy needs rules"))?;
    for (i, rule) in doc
        .list(rules, "podFailurePolicy.rules")?
        .iter()
        .enumerate()
    {
        let action = rule
            .get("action")
            .ok_or_else(|| doc.error(rule, "a podFailurePolicy rule needs an action"))?;
        let action = doc.text(action, "action")?;
        let matches = match (rule.get("onExitCodes"), rule.get("onPodConditions")) {
            (Some(codes), _) => {
                let operator = codes
                    .get("operator")
                    .and_then(Node::scalar_text)
                    .unwrap_or_else(|| "In".to_owned());
                let values: Vec<String> = codes
                    .get("values")
                    .map(|v| v.items().iter().filter_map(Node::scalar_text).collect())
                    .unwrap_or_default();
                format!(
                    "exit codes {} {}",
                    if operator == "NotIn" { "not in" } else { "in" },
                    crate::text::sanitize_line(&values.join(", "))
                )
            }
            (None, Some(conditions)) => {
                let types: Vec<String> = conditions
                    .items()
                    .iter()
                    .filter_map(|c| c.get("type").and_then(Node::scalar_text))
                    .collect();
                format!(
                    "pod conditions {}",
                    crate::text::sanitize_line(&types.join(", "))
                )
            }
            (None, None) => "no failure named".to_owned(),
        };
        let n = i + 1;
        match action.as_str() {
            "FailJob" => source.note(format!(
                "podFailurePolicy rule {n} ({matches}): FailJob, such a failure is not retried"
            )),
            "FailIndex" => source.note(format!(
                "podFailurePolicy rule {n} ({matches}): FailIndex, such a failure ends its index \
                 with no retry"
            )),
            "Count" => source.note(format!(
                "podFailurePolicy rule {n} ({matches}): Count, as without a rule"
            )),
            "Ignore" => {
                layer.forever = true;
                layer.warnings.push(format!(
                    "podFailurePolicy rule {n} ({matches}) is Ignore: such failures are retried \
                     without counting against the limit, so the pods have no limit{}",
                    if layer.deadline.is_some() {
                        " but activeDeadlineSeconds"
                    } else {
                        "; set activeDeadlineSeconds to bound them"
                    }
                ));
            }
            other => {
                return Err(doc.error(
                    rule,
                    format!(
                        "podFailurePolicy action {:?}: expected FailJob, FailIndex, Ignore or Count",
                        crate::text::sanitize_line(other)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The longest gap between two runs of a cron schedule, for the simple
/// shapes whose gap is plain: the `@` shorthands, every N minutes or hours,
/// daily, weekly, monthly (31 days at most).
pub fn cron_period(schedule: &str) -> Option<Duration> {
    const MIN: u64 = 60;
    const HOUR: u64 = 3600;
    const DAY: u64 = 86_400;
    let secs = match schedule.trim() {
        "@hourly" => Some(HOUR),
        "@daily" | "@midnight" => Some(DAY),
        "@weekly" => Some(7 * DAY),
        "@monthly" => Some(31 * DAY),
        "@yearly" | "@annually" => Some(366 * DAY),
        text => {
            let fields: Vec<&str> = text.split_whitespace().collect();
            let [minute, hour, dom, month, dow] = fields.as_slice() else {
                return None;
            };
            let fixed = |f: &str| f.parse::<u64>().is_ok();
            let every = |f: &str| f.strip_prefix("*/").and_then(|n| n.parse::<u64>().ok());
            match (*minute, *hour, *dom, *month, *dow) {
                ("*", "*", "*", "*", "*") => Some(MIN),
                (m, "*", "*", "*", "*") if every(m).is_some() => every(m).map(|n| n * MIN),
                (m, "*", "*", "*", "*") if fixed(m) => Some(HOUR),
                (m, h, "*", "*", "*") if fixed(m) && every(h).is_some() => {
                    every(h).map(|n| n * HOUR)
                }
                (m, h, "*", "*", "*") if fixed(m) && fixed(h) => Some(DAY),
                (m, h, "*", "*", d) if fixed(m) && fixed(h) && fixed(d) => Some(7 * DAY),
                (m, h, d, "*", "*") if fixed(m) && fixed(h) && fixed(d) => Some(31 * DAY),
                _ => None,
            }
        }
    }?;
    (secs > 0).then(|| Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cron_periods() {
        let h = |n: u64| Some(Duration::from_secs(n * 3600));
        assert_eq!(cron_period("0 2 * * *"), h(24));
        assert_eq!(cron_period("@hourly"), h(1));
        assert_eq!(cron_period("15 */6 * * *"), h(6));
        assert_eq!(cron_period("*/15 * * * *"), Some(Duration::from_secs(900)));
        assert_eq!(cron_period("0 9 * * 1"), h(7 * 24));
        assert_eq!(cron_period("0 9 1 * *"), h(31 * 24));
        assert_eq!(cron_period("0 9,17 * * *"), None);
        assert_eq!(cron_period("*/0 * * * *"), None);
    }
}
