//! CloudFormation's intrinsic functions, worked out as CloudFormation works them out when it
//! creates the stack with the template's defaults: `Ref` to a parameter (its `Default`, or the
//! value `--param NAME=VALUE` gives) or a pseudo parameter, `Fn::If` with its condition
//! (`Fn::Equals`, `Fn::Not`, `Fn::And`, `Fn::Or`, `Condition`), `AWS::NoValue` (the property is
//! removed), `Fn::Sub`, `Fn::FindInMap`, `Fn::Join`, `Fn::Select`, `Fn::Split`, and a resource's
//! own `Condition` (a resource whose condition is false is not created). `Fn::GetAtt` and `Ref`
//! to a resource are kept as they are written: the queue reader follows them to the resource.
//!
//! The YAML short forms (`!Ref`, `!If`, `!Not [!Equals [...]]`) arrive as these long forms
//! (see `tree`), so JSON and YAML templates are one case.
//!
//! Lazily: what cannot be known from the template (a parameter without a `Default`, the stack's
//! region, another stack's export) becomes [`Value::Unknown`] with the reason and, where there
//! is one, the `--param` that gives it. It fails nothing until a reader needs that value, and
//! then the reader's error carries the reason.

use std::collections::BTreeMap;

use super::fields::Doc;
use super::tree::{Node, Value};
use crate::window::WindowError;

/// How deep conditions and values may nest before the template is refused.
const DEPTH: usize = 32;

/// Pseudo parameters whose value CloudFormation knows before the stack exists, as the
/// "Pseudo parameters reference" gives them for the standard partition.
const PSEUDO_KNOWN: [(&str, &str); 2] = [
    ("AWS::Partition", "aws"),
    ("AWS::URLSuffix", "amazonaws.com"),
];

/// Pseudo parameters known only where and when the stack is created.
const PSEUDO_UNKNOWN: [&str; 5] = [
    "AWS::AccountId",
    "AWS::Region",
    "AWS::StackId",
    "AWS::StackName",
    "AWS::NotificationARNs",
];

/// A template with its `Resources` worked out.
pub struct Resolved {
    pub root: Node,
    /// What was chosen or assumed, for the report.
    pub notes: Vec<String>,
    /// The template's parameters, which `--param` may name.
    pub declared: Vec<String>,
}

/// Whether a condition holds, or why that cannot be known.
#[derive(Clone, Debug)]
enum Truth {
    Known(bool),
    Unknown(String),
}

struct Template<'a> {
    doc: &'a Doc<'a>,
    parameters: Option<&'a Node>,
    conditions: Option<&'a Node>,
    mappings: Option<&'a Node>,
    resources: Option<&'a Node>,
    given: &'a [(String, String)],
    notes: Vec<String>,
    decided: BTreeMap<String, Truth>,
    deciding: Vec<String>,
}

/// The template's `Resources` with every intrinsic function it can work out worked out, and a
/// note for each parameter and condition used.
pub fn resolve(
    doc: &Doc<'_>,
    root: &Node,
    given: &[(String, String)],
) -> Result<Resolved, WindowError> {
    let mut t = Template {
        doc,
        parameters: root.get_exact("Parameters"),
        conditions: root.get_exact("Conditions"),
        mappings: root.get_exact("Mappings"),
        resources: root.get_exact("Resources"),
        given,
        notes: Vec::new(),
        decided: BTreeMap::new(),
        deciding: Vec::new(),
    };
    let declared = t
        .parameters
        .map(|p| p.entries().iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let mut out = root.clone();
    if let Value::Map(entries) = &mut out.value {
        for (key, value) in entries.iter_mut() {
            if key == "Resources" {
                *value = t.resources_section(value)?;
            }
        }
    }
    let mut notes = Vec::new();
    for note in t.notes {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    Ok(Resolved {
        root: out,
        notes,
        declared,
    })
}

fn unknown(at: &Node, why: impl Into<String>) -> Node {
    Node::new(at.at, Value::Unknown(why.into()))
}

fn shown(name: &str) -> String {
    crate::text::sanitize_line(name)
}

impl Template<'_> {
    fn parameter(&self, name: &str) -> Option<&Node> {
        self.parameters?.get_exact(name)
    }

    fn is_resource(&self, name: &str) -> bool {
        self.resources.is_some_and(|r| r.get_exact(name).is_some())
    }

    /// Each resource, without those whose `Condition` is false.
    fn resources_section(&mut self, node: &Node) -> Result<Node, WindowError> {
        let mut out = Vec::new();
        for (id, resource) in node.entries() {
            if let Some(condition) = resource.get_exact("Condition") {
                let name = condition.scalar_text().unwrap_or_default();
                match self.holds(&name, condition, 0)? {
                    Truth::Known(false) => {
                        self.notes.push(format!(
                            "resource {} is not created: its Condition {} is false",
                            shown(id),
                            shown(&name)
                        ));
                        continue;
                    }
                    Truth::Known(true) => {}
                    Truth::Unknown(why) => self.notes.push(format!(
                        "resource {} is read as created, though its Condition {} cannot be worked out ({why})",
                        shown(id),
                        shown(&name)
                    )),
                }
            }
            let value = self
                .value(resource, 1)?
                .unwrap_or_else(|| Node::new(resource.at, Value::Map(Vec::new())));
            out.push((id.clone(), value));
        }
        Ok(Node::new(node.at, Value::Map(out)))
    }

    /// The value of parameter `name`, referred to at `at`.
    fn reference(&mut self, name: &str, at: &Node) -> Node {
        let name_shown = shown(name);
        let declared = self.parameter(name).cloned();
        let kind = declared
            .as_ref()
            .and_then(|d| d.get_exact("Type"))
            .and_then(Node::scalar_text)
            .unwrap_or_default();
        if let Some((_, value)) = self.given.iter().find(|(n, _)| n == name) {
            self.notes.push(format!(
                "parameter {name_shown} = {} (from --param)",
                shown(value)
            ));
            return typed(at, &kind, &Value::Text(value.clone()));
        }
        if kind.starts_with("AWS::SSM::Parameter::Value") {
            return unknown(
                at,
                format!(
                    "parameter {name_shown} is read from SSM Parameter Store when the stack is created; give its value with --param {name_shown}=VALUE"
                ),
            );
        }
        let Some(default) = declared.as_ref().and_then(|d| d.get_exact("Default")) else {
            return unknown(
                at,
                format!(
                    "parameter {name_shown} has no Default; give its value with --param {name_shown}=VALUE"
                ),
            );
        };
        self.notes.push(format!(
            "parameter {name_shown} = {} (its Default; --param {name_shown}=VALUE to use another)",
            default
                .scalar_text()
                .map_or_else(|| "a value".to_owned(), |t| shown(&t))
        ));
        typed(at, &kind, &default.value)
    }

    /// `Ref NAME`: a parameter, a pseudo parameter, or a resource (kept for the readers).
    /// `None` is `AWS::NoValue`.
    fn referenced(&mut self, node: &Node, inner: &Node) -> Result<Option<Node>, WindowError> {
        let name = inner.scalar_text().ok_or_else(|| {
            self.doc
                .error(inner, "Ref takes the name of a parameter or a resource")
        })?;
        if name == "AWS::NoValue" {
            return Ok(None);
        }
        if let Some((_, value)) = PSEUDO_KNOWN.iter().find(|(n, _)| *n == name) {
            return Ok(Some(Node::new(node.at, Value::Text((*value).to_owned()))));
        }
        if PSEUDO_UNKNOWN.contains(&name.as_str()) {
            return Ok(Some(unknown(
                node,
                format!("{name} is known only where the stack is created"),
            )));
        }
        if self.parameter(&name).is_some() {
            return Ok(Some(self.reference(&name, node)));
        }
        if self.is_resource(&name) {
            return Ok(Some(node.clone()));
        }
        Ok(Some(unknown(
            node,
            format!(
                "Ref {}: the template has no parameter or resource of that name",
                shown(&name)
            ),
        )))
    }

    /// `node` with the functions it holds worked out; `None` when it is `AWS::NoValue`.
    fn value(&mut self, node: &Node, depth: usize) -> Result<Option<Node>, WindowError> {
        if depth > DEPTH {
            return Err(self.doc.error(node, "values nest too deep to work out"));
        }
        match &node.value {
            Value::Map(entries) if entries.len() == 1 => {
                let (key, inner) = &entries[0];
                match key.as_str() {
                    "Ref" => self.referenced(node, inner),
                    "Fn::If" => self.branch(node, inner, depth),
                    "Fn::Sub" => self.sub(node, inner, depth).map(Some),
                    "Fn::FindInMap" => self.find_in_map(node, inner, depth).map(Some),
                    "Fn::Join" => self.join(node, inner, depth).map(Some),
                    "Fn::Select" => self.select(node, inner, depth),
                    "Fn::Split" => self.split(node, inner, depth).map(Some),
                    "Fn::ImportValue" => Ok(Some(unknown(
                        node,
                        "Fn::ImportValue is another stack's export, known only where it is deployed",
                    ))),
                    "Fn::GetAZs" | "Fn::Base64" | "Fn::Cidr" | "Fn::Length"
                    | "Fn::ToJsonString" | "Fn::Transform" | "Fn::ForEach" => Ok(Some(unknown(
                        node,
                        format!("{key} is not worked out by this reader"),
                    ))),
                    _ => self.map(node, depth).map(Some),
                }
            }
            Value::Map(_) => self.map(node, depth).map(Some),
            Value::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    if let Some(v) = self.value(item, depth + 1)? {
                        out.push(v);
                    }
                }
                Ok(Some(Node::new(node.at, Value::List(out))))
            }
            _ => Ok(Some(node.clone())),
        }
    }

    fn map(&mut self, node: &Node, depth: usize) -> Result<Node, WindowError> {
        let mut out = Vec::new();
        for (key, value) in node.entries() {
            if let Some(v) = self.value(value, depth + 1)? {
                out.push((key.clone(), v));
            }
        }
        Ok(Node::new(node.at, Value::Map(out)))
    }

    /// A function's arguments: a list of `n` values, each worked out.
    fn arguments(
        &mut self,
        function: &str,
        inner: &Node,
        n: usize,
        depth: usize,
    ) -> Result<Vec<Node>, WindowError> {
        let items = inner.items();
        if items.len() != n {
            return Err(self.doc.error(
                inner,
                format!(
                    "{function} takes a list of {n} values; found {}",
                    inner.kind()
                ),
            ));
        }
        let mut out = Vec::with_capacity(n);
        for item in items {
            out.push(
                self.value(item, depth + 1)?
                    .unwrap_or_else(|| unknown(item, "AWS::NoValue")),
            );
        }
        Ok(out)
    }

    /// `Fn::If [condition, then, else]`: the branch the condition picks.
    fn branch(
        &mut self,
        at: &Node,
        inner: &Node,
        depth: usize,
    ) -> Result<Option<Node>, WindowError> {
        let [condition, then, otherwise] = inner.items() else {
            return Err(self.doc.error(
                at,
                "Fn::If takes a list of a condition's name and two values",
            ));
        };
        let name = condition.scalar_text().ok_or_else(|| {
            self.doc
                .error(condition, "Fn::If names its condition first")
        })?;
        match self.holds(&name, condition, depth)? {
            Truth::Known(holds) => {
                self.notes.push(format!(
                    "condition {} is {holds}, so Fn::If takes its {} value",
                    shown(&name),
                    if holds { "first" } else { "second" }
                ));
                self.value(if holds { then } else { otherwise }, depth + 1)
            }
            Truth::Unknown(why) => Ok(Some(unknown(
                at,
                format!(
                    "Fn::If's condition {} cannot be worked out: {why}",
                    shown(&name)
                ),
            ))),
        }
    }

    /// Whether the named condition holds (each condition worked out once).
    fn holds(&mut self, name: &str, at: &Node, depth: usize) -> Result<Truth, WindowError> {
        if let Some(truth) = self.decided.get(name) {
            return Ok(truth.clone());
        }
        if self.deciding.iter().any(|n| n == name) {
            return Err(self
                .doc
                .error(at, format!("condition {} depends on itself", shown(name))));
        }
        let expr = self
            .conditions
            .and_then(|c| c.get_exact(name))
            .cloned()
            .ok_or_else(|| {
                self.doc
                    .error(at, format!("no condition named {}", shown(name)))
            })?;
        self.deciding.push(name.to_owned());
        let truth = self.test(&expr, depth + 1);
        self.deciding.pop();
        let truth = truth?;
        self.decided.insert(name.to_owned(), truth.clone());
        Ok(truth)
    }

    /// A condition's expression, worked out.
    fn test(&mut self, expr: &Node, depth: usize) -> Result<Truth, WindowError> {
        if depth > DEPTH {
            return Err(self.doc.error(expr, "conditions nest too deep to work out"));
        }
        let refuse = |t: &Self| {
            t.doc.error(
                expr,
                format!(
                    "a condition is Fn::Equals, Fn::Not, Fn::And, Fn::Or or Condition; found {}",
                    expr.kind()
                ),
            )
        };
        let [(key, inner)] = expr.entries() else {
            return Err(refuse(self));
        };
        match key.as_str() {
            "Fn::Equals" => {
                let [a, b] = &self.arguments("Fn::Equals", inner, 2, depth)?[..] else {
                    return Err(refuse(self));
                };
                Ok(match (&a.value, &b.value) {
                    (Value::Unknown(why), _) | (_, Value::Unknown(why)) => {
                        Truth::Unknown(why.clone())
                    }
                    _ => match (a.scalar_text(), b.scalar_text()) {
                        (Some(a), Some(b)) => Truth::Known(a == b),
                        _ => Truth::Known(a.value == b.value),
                    },
                })
            }
            "Fn::Not" => match inner.items() {
                [one] => Ok(match self.test(one, depth + 1)? {
                    Truth::Known(b) => Truth::Known(!b),
                    unknown => unknown,
                }),
                _ => Err(self
                    .doc
                    .error(inner, "Fn::Not takes a list of one condition")),
            },
            "Fn::And" | "Fn::Or" => {
                let and = key == "Fn::And";
                let mut why = None;
                for item in inner.items() {
                    match self.test(item, depth + 1)? {
                        // One false settles And, one true settles Or, whatever the others.
                        Truth::Known(b) if b != and => return Ok(Truth::Known(b)),
                        Truth::Known(_) => {}
                        Truth::Unknown(w) => why = why.or(Some(w)),
                    }
                }
                Ok(why.map_or(Truth::Known(and), Truth::Unknown))
            }
            "Condition" => match inner.scalar_text() {
                Some(name) => self.holds(&name, inner, depth),
                None => Err(refuse(self)),
            },
            _ => Err(refuse(self)),
        }
    }

    /// `Fn::Sub`: `${NAME}` from its own variables, the parameters, the pseudo parameters or a
    /// resource; `${!text}` is written as `${text}`.
    fn sub(&mut self, at: &Node, inner: &Node, depth: usize) -> Result<Node, WindowError> {
        let (text, variables) = match &inner.value {
            Value::List(items) if items.len() == 2 => (&items[0], Some(&items[1])),
            _ => (inner, None),
        };
        let Some(text) = text.scalar_text() else {
            return Err(self
                .doc
                .error(inner, "Fn::Sub takes text, or a list of text and a map"));
        };
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                out.push_str(&rest[start..]);
                rest = "";
                break;
            };
            let name = &after[..end];
            rest = &after[end + 1..];
            if let Some(literal) = name.strip_prefix('!') {
                out.push_str("${");
                out.push_str(literal);
                out.push('}');
                continue;
            }
            let own = variables.and_then(|v| v.get_exact(name));
            let value = match own {
                Some(v) => self.value(v, depth + 1)?,
                None => {
                    let (id, attribute) = name.split_once('.').unwrap_or((name, ""));
                    if attribute.is_empty() || !self.is_resource(id) {
                        let reference = Node::new(
                            at.at,
                            Value::Map(vec![(
                                "Ref".to_owned(),
                                Node::new(at.at, Value::Text(name.to_owned())),
                            )]),
                        );
                        self.value(&reference, depth + 1)?
                    } else {
                        // `${Queue.Arn}` alone names that resource for the readers.
                        if text.trim() == format!("${{{name}}}") {
                            return Ok(Node::new(at.at, Value::Text(name.to_owned())));
                        }
                        Some(unknown(
                            at,
                            format!("{name} is known once the resource exists"),
                        ))
                    }
                }
            };
            match value.map(|v| v.value) {
                Some(Value::Map(_)) if self.is_resource(name) => {
                    return Ok(unknown(
                        at,
                        format!("${{{name}}} is the resource's id, known once it exists"),
                    ));
                }
                Some(Value::Unknown(why)) => return Ok(unknown(at, why)),
                Some(v) => match Node::new(at.at, v).scalar_text() {
                    Some(t) => out.push_str(&t),
                    None => {
                        return Err(self
                            .doc
                            .error(at, "Fn::Sub puts only single values in text"));
                    }
                },
                None => {
                    return Err(self
                        .doc
                        .error(at, "Fn::Sub cannot put AWS::NoValue in text"));
                }
            }
        }
        out.push_str(rest);
        Ok(Node::new(at.at, Value::Text(out)))
    }

    /// `Fn::FindInMap [map, top-level key, second-level key]`.
    fn find_in_map(&mut self, at: &Node, inner: &Node, depth: usize) -> Result<Node, WindowError> {
        let keys = self.arguments("Fn::FindInMap", inner, 3, depth)?;
        let mut texts = Vec::new();
        for key in &keys {
            if let Value::Unknown(why) = &key.value {
                return Ok(unknown(at, why.clone()));
            }
            texts.push(
                key.scalar_text()
                    .ok_or_else(|| self.doc.error(key, "Fn::FindInMap takes three names"))?,
            );
        }
        let found = self
            .mappings
            .and_then(|m| m.get_exact(&texts[0]))
            .and_then(|m| m.get_exact(&texts[1]))
            .and_then(|m| m.get_exact(&texts[2]));
        match found {
            Some(v) => {
                self.notes.push(format!(
                    "Fn::FindInMap {}.{}.{} = {}",
                    shown(&texts[0]),
                    shown(&texts[1]),
                    shown(&texts[2]),
                    v.scalar_text()
                        .map_or_else(|| "a value".to_owned(), |t| shown(&t))
                ));
                Ok(self
                    .value(v, depth + 1)?
                    .unwrap_or_else(|| unknown(at, "AWS::NoValue")))
            }
            None => Err(self.doc.error(
                at,
                format!(
                    "Fn::FindInMap: Mappings has no {}.{}.{}",
                    shown(&texts[0]),
                    shown(&texts[1]),
                    shown(&texts[2])
                ),
            )),
        }
    }

    /// `Fn::Join [delimiter, [values]]`.
    fn join(&mut self, at: &Node, inner: &Node, depth: usize) -> Result<Node, WindowError> {
        let [delimiter, list] = &self.arguments("Fn::Join", inner, 2, depth)?[..] else {
            return Err(self
                .doc
                .error(inner, "Fn::Join takes a delimiter and a list"));
        };
        let mut parts = Vec::new();
        for item in list.items() {
            match &item.value {
                Value::Unknown(why) => return Ok(unknown(at, why.clone())),
                _ => parts.push(
                    item.scalar_text()
                        .ok_or_else(|| self.doc.error(item, "Fn::Join joins single values"))?,
                ),
            }
        }
        if let Value::Unknown(why) = &list.value {
            return Ok(unknown(at, why.clone()));
        }
        let delimiter = delimiter.scalar_text().unwrap_or_default();
        Ok(Node::new(at.at, Value::Text(parts.join(&delimiter))))
    }

    /// `Fn::Select [index, [values]]`.
    fn select(
        &mut self,
        at: &Node,
        inner: &Node,
        depth: usize,
    ) -> Result<Option<Node>, WindowError> {
        let [index, list] = &self.arguments("Fn::Select", inner, 2, depth)?[..] else {
            return Err(self
                .doc
                .error(inner, "Fn::Select takes an index and a list"));
        };
        if let Value::Unknown(why) = &index.value {
            return Ok(Some(unknown(at, why.clone())));
        }
        if let Value::Unknown(why) = &list.value {
            return Ok(Some(unknown(at, why.clone())));
        }
        let i = self.doc.count(index, "Fn::Select's index")?;
        let items = list.items();
        usize::try_from(i)
            .ok()
            .and_then(|i| items.get(i))
            .cloned()
            .map(Some)
            .ok_or_else(|| {
                self.doc.error(
                    at,
                    format!("Fn::Select: index {i} of a list of {}", items.len()),
                )
            })
    }

    /// `Fn::Split [delimiter, text]`.
    fn split(&mut self, at: &Node, inner: &Node, depth: usize) -> Result<Node, WindowError> {
        let [delimiter, text] = &self.arguments("Fn::Split", inner, 2, depth)?[..] else {
            return Err(self
                .doc
                .error(inner, "Fn::Split takes a delimiter and text"));
        };
        if let Value::Unknown(why) = &text.value {
            return Ok(unknown(at, why.clone()));
        }
        let (Some(delimiter), Some(text)) = (delimiter.scalar_text(), text.scalar_text()) else {
            return Err(self
                .doc
                .error(inner, "Fn::Split takes a delimiter and text"));
        };
        if delimiter.is_empty() {
            return Err(self.doc.error(inner, "Fn::Split needs a delimiter"));
        }
        Ok(Node::new(
            at.at,
            Value::List(
                text.split(delimiter.as_str())
                    .map(|p| Node::new(at.at, Value::Text(p.to_owned())))
                    .collect(),
            ),
        ))
    }
}

/// A parameter's value as its `Type` makes it: a `Number` is a number, a list type a list.
fn typed(at: &Node, kind: &str, value: &Value) -> Node {
    let text = Node::new(at.at, value.clone()).scalar_text();
    let v = match (kind, text) {
        ("Number", Some(t)) => match t.trim().parse::<i64>() {
            Ok(n) => Value::Int(n),
            Err(_) => t
                .trim()
                .parse::<f64>()
                .map_or(Value::Text(t.clone()), Value::Float),
        },
        (k, Some(t)) if k == "CommaDelimitedList" || k.starts_with("List<") => Value::List(
            t.split(',')
                .map(|p| Node::new(at.at, Value::Text(p.trim().to_owned())))
                .collect(),
        ),
        _ => value.clone(),
    };
    Node::new(at.at, v)
}
