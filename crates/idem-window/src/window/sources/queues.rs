//! AWS queues and asynchronous Lambda: the attributes of an SQS queue (as
//! `aws sqs get-queue-attributes` prints them), a Lambda `EventInvokeConfig`
//! (as `aws lambda get-function-event-invoke-config` prints it), or a
//! CloudFormation template declaring either.
//!
//! Documented behaviour, as counted here:
//! - SQS: a message not deleted comes back once its `VisibilityTimeout`
//!   (30 s by default) has passed, up to `maxReceiveCount` receives in all
//!   when the queue has a `RedrivePolicy`, after which it moves to the
//!   dead-letter queue; without one it comes back until the queue's
//!   `MessageRetentionPeriod` (4 days by default) deletes it. The wait is
//!   counted after each attempt (the message reappears a visibility timeout
//!   after it was received, never sooner). From a standard queue's dead-letter
//!   queue a person can redrive the message until that queue's retention,
//!   counted from the message's first arrival; a FIFO queue's dead-letter
//!   queue counts from the move.
//! - Lambda, invoked asynchronously: `MaximumRetryAttempts` retries (2 by
//!   default), one minute before the first and two before the second, all
//!   within `MaximumEventAgeInSeconds` (6 hours by default).

use std::time::Duration;

use super::durations::Style;
use super::fields::Doc;
use super::tree::{Node, Value};
use super::{Imported, pick};
use crate::window::{HumanPath, Jitter, Layer, PathStart, Schedule, WindowError};

const VISIBILITY: Duration = Duration::from_secs(30);
const RETENTION: Duration = Duration::from_secs(4 * 86_400);
const EVENT_AGE: Duration = Duration::from_secs(6 * 3600);

fn span(d: Duration) -> String {
    crate::window::Span::from_duration(d).to_string()
}

/// What a candidate in the file is.
enum Candidate<'a> {
    Queue {
        /// The queue's own settings (attributes or CloudFormation properties).
        props: &'a Node,
        field: String,
    },
    Lambda {
        props: &'a Node,
        field: String,
    },
}

/// Reads the queue or Lambda configuration `selector` names, or the first.
pub fn read(
    doc: &Doc<'_>,
    root: &Node,
    selector: Option<&str>,
    params: &[(String, String)],
) -> Result<Imported, WindowError> {
    // A template's parameters and conditions are worked out first, and said.
    let (resolved, mut notes, declared) = if root.get_exact("Resources").is_some() {
        let r = super::cfn::resolve(doc, root, params)?;
        (r.root, r.notes, r.declared)
    } else {
        (root.clone(), Vec::new(), Vec::new())
    };
    let root = &resolved;
    let mut candidates: Vec<(String, Candidate<'_>)> = Vec::new();
    let resources = root.get_exact("Resources");
    if let Some(attributes) = root.get_exact("Attributes") {
        doc.map(attributes, "Attributes")?;
        let name = attributes
            .get_exact("QueueArn")
            .and_then(Node::scalar_text)
            .and_then(|arn| arn.rsplit(':').next().map(str::to_owned))
            .unwrap_or_else(|| "queue".to_owned());
        candidates.push((
            crate::text::sanitize_line(&name),
            Candidate::Queue {
                props: attributes,
                field: "Attributes".to_owned(),
            },
        ));
    } else if let Some(resources) = resources {
        doc.map(resources, "Resources")?;
        let dead_letter_targets = dead_letter_targets(resources);
        for (id, resource) in resources.entries() {
            let id = &crate::text::sanitize_line(id);
            let kind = resource.get_exact("Type").and_then(Node::scalar_text);
            let props = resource.get_exact("Properties").unwrap_or(resource);
            let field = format!("Resources.{id}.Properties");
            match kind.as_deref() {
                Some("AWS::SQS::Queue") if !dead_letter_targets.contains(id) => {
                    candidates.push((id.clone(), Candidate::Queue { props, field }));
                }
                Some("AWS::Lambda::EventInvokeConfig") => {
                    candidates.push((id.clone(), Candidate::Lambda { props, field }));
                }
                _ => {}
            }
        }
    } else {
        candidates.push((
            "function".to_owned(),
            Candidate::Lambda {
                props: root,
                field: "(top level)".to_owned(),
            },
        ));
    }
    let what = "queue or asynchronous Lambda configuration";
    let (name, candidate) = pick(doc, what, candidates, selector, &mut notes)?;
    let imported = match candidate {
        Candidate::Queue { props, field } => queue(doc, &name, props, &field, resources)?,
        Candidate::Lambda { props, field } => lambda(doc, &name, props, &field)?,
    };
    Ok(Imported {
        notes,
        declared,
        ..imported
    })
}

/// A CloudFormation value naming another resource: `{"Fn::GetAtt": [ID,
/// "Arn"]}`, `{"Ref": ID}`, or the text `ID.Arn` a `!GetAtt` tag leaves.
fn referenced_id(node: &Node) -> Option<String> {
    if let Some(get) = node.get_exact("Fn::GetAtt") {
        return match &get.value {
            Value::List(items) => items.first().and_then(Node::scalar_text),
            _ => get.scalar_text().map(|t| {
                t.rsplit_once('.')
                    .map_or(t.clone(), |(id, _)| id.to_owned())
            }),
        };
    }
    if let Some(reference) = node.get_exact("Ref") {
        return reference.scalar_text();
    }
    node.scalar_text()
        .filter(|t| !t.starts_with("arn:"))
        .map(|t| {
            t.rsplit_once('.')
                .map_or(t.clone(), |(id, _)| id.to_owned())
        })
}

/// The logical ids that some queue names as its dead-letter queue.
pub(super) fn dead_letter_targets(resources: &Node) -> Vec<String> {
    resources
        .entries()
        .iter()
        .filter_map(|(_, r)| {
            r.get_exact("Properties")
                .and_then(|p| p.get_exact("RedrivePolicy"))
                .and_then(|p| p.get_exact("deadLetterTargetArn"))
                .and_then(referenced_id)
        })
        .collect()
}

/// A value in seconds: a number, or digits as text (as the CLI prints them).
fn seconds(doc: &Doc<'_>, node: &Node, what: &str) -> Result<Duration, WindowError> {
    doc.duration(node, Style::Seconds, what)
}

fn queue(
    doc: &Doc<'_>,
    name: &str,
    props: &Node,
    field: &str,
    resources: Option<&Node>,
) -> Result<Imported, WindowError> {
    let mut source = doc.provenance(props, field);
    let mut layer = Layer::new(format!("SQS {name}"), Duration::ZERO, 1);
    let visibility = match props.get_exact("VisibilityTimeout") {
        Some(n) => {
            let v = seconds(doc, n, "VisibilityTimeout")?;
            source.note(format!("comes back every {} (VisibilityTimeout)", span(v)));
            v
        }
        None => {
            source.note("comes back every 30 s: SQS's default VisibilityTimeout");
            VISIBILITY
        }
    };
    layer.schedule = Schedule::Constant(visibility);
    let retention = match props.get_exact("MessageRetentionPeriod") {
        Some(n) => {
            let r = seconds(doc, n, "MessageRetentionPeriod")?;
            source.note(format!(
                "deleted {} after arriving (MessageRetentionPeriod)",
                span(r)
            ));
            r
        }
        None => {
            source.note("deleted 4 days after arriving: SQS's default MessageRetentionPeriod");
            RETENTION
        }
    };
    // DelaySeconds: the first receive comes that long after the message arrives, and the
    // retention (the dead-letter queue's too, for a standard queue) counts from the arrival.
    let delay = match props.get_exact("DelaySeconds") {
        Some(n) => match doc.known(n, "DelaySeconds") {
            Ok(()) => {
                let d = seconds(doc, n, "DelaySeconds")?;
                if !d.is_zero() {
                    source.note(format!(
                        "DelaySeconds {}: the first receive comes that long after the message \
                         arrives, and its retention counts from the arrival",
                        span(d)
                    ));
                }
                d
            }
            Err(_) => {
                layer.warnings.push(
                    "DelaySeconds is not known from the files given: counted as 0, the longest \
                     case (a delay shortens the time the receives have by as much)"
                        .to_owned(),
                );
                Duration::ZERO
            }
        },
        None => Duration::ZERO,
    };
    if delay >= retention {
        layer.warnings.push(format!(
            "DelaySeconds {} is not shorter than the retention of {}: the message is deleted \
             before it can be received",
            span(delay),
            span(retention)
        ));
    }
    layer.deadline = Some(retention.saturating_sub(delay));
    let fifo = match props.get_exact("FifoQueue") {
        Some(n) => doc.flag(n, "FifoQueue")?,
        None => name.ends_with(".fifo"),
    };
    let mut paths = Vec::new();
    // An empty RedrivePolicy is none: SQS removes the policy when it is set to "", and
    // Terraform modules pass "" for "not set".
    let redrive = props.get_exact("RedrivePolicy").filter(|n| {
        let empty = matches!(&n.value, Value::Text(t) if t.trim().is_empty());
        if empty {
            source.note("RedrivePolicy is empty: no redrive policy");
        }
        !empty
    });
    match redrive {
        None => {
            layer.forever = true;
            layer.warnings.push(
                "no RedrivePolicy: no limit on receives, the message comes back until its \
                 retention period deletes it"
                    .to_owned(),
            );
        }
        Some(node) => {
            let policy = redrive_policy(doc, node)?;
            let count = policy.get("maxReceiveCount").ok_or_else(|| {
                doc.error(node, "a RedrivePolicy needs maxReceiveCount (1 to 1,000)")
            })?;
            doc.known(count, "RedrivePolicy.maxReceiveCount")?;
            let receives = doc.count(count, "maxReceiveCount").map_err(|_| {
                doc.error(
                    node,
                    "RedrivePolicy.maxReceiveCount must be a whole number from 1 to 1,000",
                )
            })?;
            if !(1..=1000).contains(&receives) {
                return Err(doc.error(
                    node,
                    format!(
                        "RedrivePolicy.maxReceiveCount must be from 1 to 1,000; found {receives}"
                    ),
                ));
            }
            layer.attempts = receives;
            source.note(format!(
                "attempts {receives} (RedrivePolicy.maxReceiveCount), then the dead-letter queue"
            ));
            let mut path = dead_letter_path(doc, &policy, resources, fifo, node)?;
            if !fifo && !delay.is_zero() {
                path.delay = path.delay.saturating_sub(delay);
                if let Some(p) = path.provenance.as_mut() {
                    p.note(format!(
                        "less the {} of DelaySeconds before the first receive",
                        span(delay)
                    ));
                }
            }
            paths.push(path);
        }
    }
    source.note("each receive counted as taking no time beyond the wait (the consumer's own time is not in this file)");
    layer.provenance = Some(source);
    Ok(Imported {
        layers: vec![layer],
        paths,
        notes: Vec::new(),
        ..Imported::default()
    })
}

/// The redrive policy: a map in CloudFormation, JSON text in the CLI's
/// attributes.
fn redrive_policy(doc: &Doc<'_>, node: &Node) -> Result<Node, WindowError> {
    doc.known(node, "RedrivePolicy")?;
    match &node.value {
        Value::Map(_) => Ok(node.clone()),
        Value::Text(text) => {
            let parsed = super::tree::parse_yaml(text, doc.file).map_err(|e| {
                doc.error(node, format!("RedrivePolicy is not readable JSON ({e})"))
            })?;
            let Some(mut root) = parsed.into_iter().next() else {
                return Err(doc.error(node, "RedrivePolicy is empty"));
            };
            // Places inside the text point at the attribute itself.
            relocate(&mut root, node.at);
            Ok(root)
        }
        _ => Err(doc.error(node, "RedrivePolicy must be a map or JSON text")),
    }
}

fn relocate(node: &mut Node, at: super::tree::At) {
    node.at = at;
    match &mut node.value {
        Value::Map(entries) => entries.iter_mut().for_each(|(_, n)| relocate(n, at)),
        Value::List(items) => items.iter_mut().for_each(|n| relocate(n, at)),
        _ => {}
    }
}

fn dead_letter_path(
    doc: &Doc<'_>,
    policy: &Node,
    resources: Option<&Node>,
    fifo: bool,
    at: &Node,
) -> Result<HumanPath, WindowError> {
    let mut source = doc.provenance(at, "RedrivePolicy.deadLetterTargetArn");
    let target = policy
        .get_exact("deadLetterTargetArn")
        .and_then(referenced_id);
    let declared = target
        .as_ref()
        .and_then(|id| resources.and_then(|r| r.get_exact(id)))
        .and_then(|r| r.get_exact("Properties"));
    let retention = match declared.and_then(|p| p.get_exact("MessageRetentionPeriod")) {
        Some(n) => {
            let r = seconds(doc, n, "MessageRetentionPeriod")?;
            source.note(format!(
                "redrive possible for {} (the dead-letter queue's MessageRetentionPeriod)",
                span(r)
            ));
            r
        }
        None => {
            match policy.get_exact("deadLetterTargetArn").map(|n| &n.value) {
                Some(Value::Unknown(why)) => source.note(format!(
                    "redrive possible for 4 days: SQS's default retention (the dead-letter queue \
                     is not known here: {why})"
                )),
                _ => source.note(
                    "redrive possible for 4 days: SQS's default retention (the dead-letter \
                     queue's own setting is not in this file)",
                ),
            }
            RETENTION
        }
    };
    let mut path = HumanPath::new("dead-letter redrive", retention);
    if fifo {
        path.start = PathStart::AfterGiveUp;
        source.note("a FIFO dead-letter queue counts its retention from the move");
    } else {
        source.note("counted from the message's first arrival, as a standard queue does");
    }
    path.provenance = Some(source);
    Ok(path)
}

fn lambda(doc: &Doc<'_>, name: &str, props: &Node, field: &str) -> Result<Imported, WindowError> {
    let mut source = doc.provenance(props, field);
    let retries = match props.get_exact("MaximumRetryAttempts") {
        Some(n) => {
            let r = doc.count(n, "MaximumRetryAttempts")?;
            if r > 2 {
                return Err(doc.error(
                    n,
                    format!("MaximumRetryAttempts must be 0, 1 or 2; found {r}"),
                ));
            }
            source.note(format!("attempts {} = MaximumRetryAttempts {r} + 1", r + 1));
            r
        }
        None => {
            source.note("attempts 3: Lambda's default of 2 retries");
            2
        }
    };
    let mut layer = Layer::new(format!("lambda async {name}"), Duration::ZERO, retries + 1);
    layer.schedule = Schedule::List(vec![Duration::from_secs(60), Duration::from_secs(120)]);
    layer.jitter = Jitter::None;
    source.note("waits 1 min before the first retry and 2 min before the second");
    layer.deadline = Some(match props.get_exact("MaximumEventAgeInSeconds") {
        Some(n) => {
            let age = seconds(doc, n, "MaximumEventAgeInSeconds")?;
            if !(60..=21_600).contains(&age.as_secs()) {
                return Err(doc.error(
                    n,
                    "MaximumEventAgeInSeconds must be from 60 to 21,600 (6 hours)",
                ));
            }
            source.note(format!(
                "all within {} (MaximumEventAgeInSeconds)",
                span(age)
            ));
            age
        }
        None => {
            source.note("all within 6 h: Lambda's default maximum event age");
            EVENT_AGE
        }
    });
    source.note("no per-try timeout here (the function's own timeout is set elsewhere)");
    layer.provenance = Some(source);
    Ok(Imported {
        layers: vec![layer],
        paths: Vec::new(),
        notes: Vec::new(),
        ..Imported::default()
    })
}
