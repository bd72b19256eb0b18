//! Terraform `.tf`: each `aws_sqs_queue` resource, read with a real HCL parser (`hcl-rs`).
//!
//! `visibility_timeout_seconds`, `message_retention_seconds` and `redrive_policy` are
//! evaluated with the file's `variable` defaults (or `--param NAME=VALUE`), its `locals`, and
//! `jsonencode`; a reference to another queue (`aws_sqs_queue.dlq.arn`) names that queue. The
//! queue is then read as the CloudFormation reader reads one, so both give the same numbers.
//! An expression that needs anything else (another resource's attribute, a function Terraform
//! has and this reader does not) is named with the error, never guessed.

use super::fields::Doc;
use super::tree::{At, Node, Value, error_at};
use super::{Imported, queues};
use crate::window::WindowError;
use hcl::eval::{Context, Evaluate, FuncArgs, FuncDef, ParamType};

/// Whether the text is Terraform: a block such as `resource "…" "…" {` or `variable "…" {`.
pub fn present(lower_name: &str, text: &str) -> bool {
    lower_name.ends_with(".tf")
        || text.lines().map(str::trim_start).any(|l| {
            l.starts_with("resource \"aws_sqs_queue\"")
                || (l.starts_with("terraform {") && text.contains("resource \""))
        })
}

/// `jsonencode(value)`: the value as JSON text.
fn jsonencode(args: FuncArgs) -> Result<hcl::Value, String> {
    let value = args.first().cloned().unwrap_or(hcl::Value::Null);
    serde_json::to_string(&value)
        .map(hcl::Value::from)
        .map_err(|e| e.to_string())
}

/// The line where `needle` first stands, for provenance.
fn line_of(text: &str, needle: &str) -> At {
    text.lines()
        .position(|l| l.contains(needle))
        .map_or((1, 1), |i| (i + 1, 1))
}

/// An HCL value as a tree node, placed at `at`.
fn node(value: &hcl::Value, at: At) -> Node {
    let v = match value {
        hcl::Value::Null => Value::Null,
        hcl::Value::Bool(b) => Value::Bool(*b),
        hcl::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        hcl::Value::String(s) => Value::Text(s.clone()),
        hcl::Value::Array(items) => Value::List(items.iter().map(|i| node(i, at)).collect()),
        hcl::Value::Object(map) => {
            Value::Map(map.iter().map(|(k, v)| (k.clone(), node(v, at))).collect())
        }
    };
    Node::new(at, v)
}

/// Reads the `aws_sqs_queue` `selector` names, or the first.
pub fn read(
    doc: &Doc<'_>,
    file: &str,
    text: &str,
    selector: Option<&str>,
    params: &[(String, String)],
) -> Result<Imported, WindowError> {
    let body = hcl::parse(text).map_err(|e| {
        error_at(
            file,
            (1, 1),
            format!("not Terraform this reader can parse: {e}"),
        )
    })?;
    let mut notes = Vec::new();
    // Variables: their defaults, or what --param gives.
    let mut vars = hcl::Map::new();
    for block in body.blocks().filter(|b| b.identifier() == "variable") {
        let Some(name) = block.labels().first().map(|l| l.as_str().to_owned()) else {
            continue;
        };
        let given = params.iter().find(|(n, _)| *n == name);
        let value = match given {
            Some((_, v)) => {
                notes.push(format!("variable {name} = {v} (from --param)"));
                v.parse::<i64>()
                    .map_or_else(|_| hcl::Value::from(v.clone()), hcl::Value::from)
            }
            None => match block.body().attributes().find(|a| a.key() == "default") {
                Some(default) => {
                    let v = default
                        .expr()
                        .evaluate(&Context::new())
                        .map_err(|e| error_at(file, line_of(text, &name), e.to_string()))?;
                    notes.push(format!(
                        "variable {name} = {} (its default; --param {name}=VALUE to use another)",
                        crate::text::sanitize_line(&v.to_string())
                    ));
                    v
                }
                None => continue,
            },
        };
        vars.insert(name, value);
    }
    if let Some((name, _)) = params.iter().find(|(n, _)| !vars.contains_key(n)) {
        return Err(error_at(
            file,
            (1, 1),
            format!(
                "--param {}: the file declares no such variable",
                crate::text::sanitize_line(name)
            ),
        ));
    }
    let queues_found: Vec<&hcl::Block> = body
        .blocks()
        .filter(|b| {
            b.identifier() == "resource"
                && b.labels()
                    .first()
                    .is_some_and(|l| l.as_str() == "aws_sqs_queue")
        })
        .collect();
    // Each queue, as a reference from another: `aws_sqs_queue.NAME.arn` gives `NAME.Arn`,
    // which the queue reader follows to the dead-letter queue.
    let mut refs = hcl::Map::new();
    for q in &queues_found {
        if let Some(name) = q.labels().get(1) {
            let name = name.as_str().to_owned();
            let mut attrs = hcl::Map::new();
            attrs.insert("arn".to_owned(), hcl::Value::from(format!("{name}.Arn")));
            attrs.insert("id".to_owned(), hcl::Value::from(format!("{name}.Arn")));
            attrs.insert("url".to_owned(), hcl::Value::from(format!("{name}.Arn")));
            refs.insert(name, hcl::Value::Object(attrs));
        }
    }
    let mut ctx = Context::new();
    ctx.declare_var("var", hcl::Value::Object(vars));
    ctx.declare_var("aws_sqs_queue", hcl::Value::Object(refs));
    ctx.declare_func("jsonencode", FuncDef::new(jsonencode, [ParamType::Any]));
    // Locals, in the order written (a local may use an earlier one).
    let mut locals = hcl::Map::new();
    for block in body.blocks().filter(|b| b.identifier() == "locals") {
        for attr in block.body().attributes() {
            let mut with = ctx.clone();
            with.declare_var("local", hcl::Value::Object(locals.clone()));
            if let Ok(v) = attr.expr().evaluate(&with) {
                locals.insert(attr.key().to_owned(), v);
            }
        }
    }
    ctx.declare_var("local", hcl::Value::Object(locals));
    // Every queue as a CloudFormation resource, for the queue reader.
    let mut resources = Vec::new();
    for q in &queues_found {
        let Some(name) = q.labels().get(1).map(|l| l.as_str().to_owned()) else {
            continue;
        };
        let at = line_of(text, &format!("\"aws_sqs_queue\" \"{name}\""));
        let mut props = Vec::new();
        for (tf, cfn) in [
            ("visibility_timeout_seconds", "VisibilityTimeout"),
            ("message_retention_seconds", "MessageRetentionPeriod"),
            ("redrive_policy", "RedrivePolicy"),
            ("fifo_queue", "FifoQueue"),
        ] {
            let Some(attr) = q.body().attributes().find(|a| a.key() == tf) else {
                continue;
            };
            let attr_at = line_of(text, tf);
            let value = attr.expr().evaluate(&ctx).map_err(|e| {
                error_at(
                    file,
                    attr_at,
                    format!(
                        "aws_sqs_queue.{name}.{tf}: cannot work this out ({e}); give the variables it needs with --param"
                    ),
                )
            })?;
            // `jsonencode({...})` is JSON text; the policy is read as the map it encodes.
            let value = match (&value, cfn) {
                (hcl::Value::String(json), "RedrivePolicy") => {
                    serde_json::from_str::<hcl::Value>(json).unwrap_or(value)
                }
                _ => value,
            };
            props.push((cfn.to_owned(), node(&value, attr_at)));
        }
        let resource = Node::new(
            at,
            Value::Map(vec![
                (
                    "Type".to_owned(),
                    Node::new(at, Value::Text("AWS::SQS::Queue".to_owned())),
                ),
                ("Properties".to_owned(), Node::new(at, Value::Map(props))),
            ]),
        );
        resources.push((name, resource));
    }
    if resources.is_empty() {
        return Err(error_at(
            file,
            (1, 1),
            "no aws_sqs_queue resource in this Terraform file; the calculator reads SQS queues from .tf",
        ));
    }
    let root = Node::new(
        (1, 1),
        Value::Map(vec![(
            "Resources".to_owned(),
            Node::new((1, 1), Value::Map(resources)),
        )]),
    );
    let imported = queues::read(doc, &root, selector, &[])?;
    notes.extend(imported.notes);
    Ok(Imported { notes, ..imported })
}
