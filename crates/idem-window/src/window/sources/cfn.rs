//! CloudFormation's intrinsic functions, as far as a retry window needs them: `Ref` to a
//! parameter takes its `Default` (or the value `--param NAME=VALUE` gives), and `Fn::If`
//! takes the branch its condition picks (`Fn::Equals`, `Fn::Not`, `Fn::And`, `Fn::Or`,
//! `Condition`). The YAML short forms (`!Ref`, `!If`, `!Equals`) lose their tag on the way in,
//! so a bare parameter name stands for `!Ref` and a list of three whose first item names a
//! condition for `!If`. What cannot be worked out is named, never guessed.

use super::fields::Doc;
use super::tree::{Node, Value};
use crate::window::WindowError;

/// How deep conditions and values may nest before the template is refused.
const DEPTH: usize = 32;

struct Template<'a> {
    doc: &'a Doc<'a>,
    parameters: Option<&'a Node>,
    conditions: Option<&'a Node>,
    given: &'a [(String, String)],
    notes: Vec<String>,
}

/// The template's `Resources` with every `Ref` to a parameter and every `Fn::If` worked out,
/// and a note for each parameter and condition used.
pub fn resolve(
    doc: &Doc<'_>,
    root: &Node,
    given: &[(String, String)],
) -> Result<(Node, Vec<String>), WindowError> {
    let mut t = Template {
        doc,
        parameters: root.get_exact("Parameters"),
        conditions: root.get_exact("Conditions"),
        given,
        notes: Vec::new(),
    };
    if let Some((name, _)) = given.iter().find(|(name, _)| t.parameter(name).is_none()) {
        return Err(doc.error(
            root,
            format!(
                "--param {}: the template declares no such parameter",
                crate::text::sanitize_line(name)
            ),
        ));
    }
    let mut out = root.clone();
    if let Value::Map(entries) = &mut out.value {
        for (key, value) in entries.iter_mut() {
            if key == "Resources" {
                *value = t.value(value, 0)?;
            }
        }
    }
    t.notes.dedup();
    Ok((out, t.notes))
}

impl Template<'_> {
    fn parameter(&self, name: &str) -> Option<&Node> {
        self.parameters?.get_exact(name)
    }

    fn condition(&self, name: &str) -> Option<&Node> {
        self.conditions?.get_exact(name)
    }

    /// The value of parameter `name`, referred to at `at`.
    fn reference(&mut self, name: &str, at: &Node) -> Result<Node, WindowError> {
        let shown = crate::text::sanitize_line(name);
        if let Some((_, value)) = self.given.iter().find(|(n, _)| n == name) {
            self.notes
                .push(format!("parameter {shown} = {value} (from --param)"));
            let value = match value.parse::<i64>() {
                Ok(n) => Value::Int(n),
                Err(_) => Value::Text(value.clone()),
            };
            return Ok(Node::new(at.at, value));
        }
        let declared = self.parameter(name).ok_or_else(|| {
            self.doc
                .error(at, format!("Ref {shown}: no parameter of that name"))
        })?;
        let default = declared
            .get_exact("Default")
            .ok_or_else(|| {
                self.doc.error(
                    at,
                    format!(
                        "parameter {shown} has no Default; give its value with --param {shown}=VALUE"
                    ),
                )
            })?
            .clone();
        self.notes.push(format!(
            "parameter {shown} = {} (its Default; --param {shown}=VALUE to use another)",
            default
                .scalar_text()
                .map_or_else(|| "a value".to_owned(), |t| crate::text::sanitize_line(&t))
        ));
        Ok(default)
    }

    /// `node` with its references and conditional values worked out.
    fn value(&mut self, node: &Node, depth: usize) -> Result<Node, WindowError> {
        if depth > DEPTH {
            return Err(self.doc.error(node, "values nest too deep to work out"));
        }
        match &node.value {
            Value::Map(entries) if entries.len() == 1 => {
                let (key, inner) = &entries[0];
                match key.as_str() {
                    "Ref" => match inner.scalar_text() {
                        Some(name) if self.parameter(&name).is_some() => {
                            self.reference(&name, node)
                        }
                        // A Ref to a resource names it; the readers follow those.
                        _ => Ok(node.clone()),
                    },
                    "Fn::If" => self.branch(node, inner.items(), depth),
                    _ => self.map(node, depth),
                }
            }
            Value::Map(_) => self.map(node, depth),
            // `!Ref Name`, its tag lost.
            Value::Text(name) if self.parameter(name).is_some() => self.reference(name, node),
            // `!If [Condition, a, b]`, its tag lost.
            Value::List(items)
                if items.len() == 3
                    && items[0]
                        .scalar_text()
                        .is_some_and(|c| self.condition(&c).is_some()) =>
            {
                self.branch(node, items, depth)
            }
            Value::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.value(item, depth + 1)?);
                }
                Ok(Node::new(node.at, Value::List(out)))
            }
            _ => Ok(node.clone()),
        }
    }

    fn map(&mut self, node: &Node, depth: usize) -> Result<Node, WindowError> {
        let mut out = Vec::new();
        for (key, value) in node.entries() {
            out.push((key.clone(), self.value(value, depth + 1)?));
        }
        Ok(Node::new(node.at, Value::Map(out)))
    }

    /// `Fn::If [condition, then, else]`: the branch the condition picks.
    fn branch(&mut self, at: &Node, items: &[Node], depth: usize) -> Result<Node, WindowError> {
        let [condition, then, otherwise] = items else {
            return Err(self
                .doc
                .error(at, "Fn::If takes a condition and two values"));
        };
        let name = condition.scalar_text().ok_or_else(|| {
            self.doc
                .error(condition, "Fn::If names its condition first")
        })?;
        let holds = self.holds(&name, condition, depth)?;
        self.notes.push(format!(
            "condition {} is {holds}, so Fn::If takes its {} value",
            crate::text::sanitize_line(&name),
            if holds { "first" } else { "second" }
        ));
        self.value(if holds { then } else { otherwise }, depth + 1)
    }

    /// Whether the named condition holds.
    fn holds(&mut self, name: &str, at: &Node, depth: usize) -> Result<bool, WindowError> {
        let expr = self.condition(name).cloned().ok_or_else(|| {
            self.doc.error(
                at,
                format!("no condition named {}", crate::text::sanitize_line(name)),
            )
        })?;
        self.test(&expr, depth + 1)
    }

    /// A condition's expression, worked out.
    fn test(&mut self, expr: &Node, depth: usize) -> Result<bool, WindowError> {
        if depth > DEPTH {
            return Err(self.doc.error(expr, "conditions nest too deep to work out"));
        }
        let unknown = |t: &Self| {
            t.doc.error(
                expr,
                "a condition this reader cannot work out (it takes Fn::Equals, Fn::Not, Fn::And, Fn::Or and Condition); give the parameters' values with --param",
            )
        };
        match &expr.value {
            Value::Map(entries) if entries.len() == 1 => {
                let (key, inner) = &entries[0];
                let items = inner.items();
                match key.as_str() {
                    "Fn::Equals" => self.equals(expr, items, depth),
                    "Fn::Not" => match items {
                        [one] => Ok(!self.test(one, depth + 1)?),
                        _ => Err(unknown(self)),
                    },
                    "Fn::And" | "Fn::Or" => {
                        let mut all = Vec::new();
                        for item in items {
                            all.push(self.test(item, depth + 1)?);
                        }
                        Ok(if key == "Fn::And" {
                            all.iter().all(|b| *b)
                        } else {
                            all.iter().any(|b| *b)
                        })
                    }
                    "Condition" => match inner.scalar_text() {
                        Some(name) => self.holds(&name, inner, depth),
                        None => Err(unknown(self)),
                    },
                    _ => Err(unknown(self)),
                }
            }
            // `!Equals [a, b]`, its tag lost.
            Value::List(items) if items.len() == 2 => self.equals(expr, items, depth),
            _ => Err(unknown(self)),
        }
    }

    fn equals(&mut self, at: &Node, items: &[Node], depth: usize) -> Result<bool, WindowError> {
        let [a, b] = items else {
            return Err(self.doc.error(at, "Fn::Equals compares two values"));
        };
        let (a, b) = (self.value(a, depth + 1)?, self.value(b, depth + 1)?);
        match (a.scalar_text(), b.scalar_text()) {
            (Some(a), Some(b)) => Ok(a == b),
            _ => Err(self.doc.error(at, "Fn::Equals compares two plain values")),
        }
    }
}
