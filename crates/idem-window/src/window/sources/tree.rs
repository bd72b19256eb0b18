//! One shape for every configuration format: a tree of maps, lists and
//! scalars, each node knowing the line and column it was written at. YAML and
//! JSON become one through `serde-saphyr`; `.properties` and INI files are
//! read into the same shape by their own small parsers. The readers of each
//! product then walk the tree and report a bad value at its place.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Spanned, Tagged};

use crate::window::WindowError;

/// Where a node was written: 1-based line and column.
pub type At = (usize, usize);

/// A value and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub at: At,
    pub value: Value,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Keys in the order written.
    Map(Vec<(String, Node)>),
    List(Vec<Node>),
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Null,
    /// A value that cannot be known from the files given, with why and how to give it
    /// (a template's parameter without a default, a Terraform variable without one, an
    /// attribute AWS assigns when it creates a resource). Nothing fails until a reader needs it.
    Unknown(String),
}

/// A value with no place of its own (built by a parser that knows the place).
impl Node {
    pub fn new(at: At, value: Value) -> Self {
        Self { at, value }
    }

    /// The entry under `key`, matched as Spring matches keys: letter case,
    /// dashes and underscores do not matter (`maxAttempts`, `max-attempts`).
    pub fn get(&self, key: &str) -> Option<&Node> {
        let wanted = loose(key);
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| loose(k) == wanted)
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The entry under `key`, matched exactly.
    pub fn get_exact(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The entries of a map (empty for anything else).
    pub fn entries(&self) -> &[(String, Node)] {
        match &self.value {
            Value::Map(entries) => entries,
            _ => &[],
        }
    }

    /// The items of a list (empty for anything else).
    pub fn items(&self) -> &[Node] {
        match &self.value {
            Value::List(items) => items,
            _ => &[],
        }
    }

    /// The scalar as text, as it would be written ("3", "2s", "true").
    pub fn scalar_text(&self) -> Option<String> {
        match &self.value {
            Value::Text(t) => Some(t.clone()),
            Value::Int(n) => Some(n.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// A short name for what the node is, for messages.
    pub fn kind(&self) -> &'static str {
        match &self.value {
            Value::Map(_) => "a map",
            Value::List(_) => "a list",
            Value::Text(_) => "text",
            Value::Int(_) => "a whole number",
            Value::Float(_) => "a number",
            Value::Bool(_) => "true or false",
            Value::Null => "nothing",
            Value::Unknown(_) => "a value not known from the files given",
        }
    }
}

/// A key as Spring's relaxed binding compares it.
pub(super) fn loose(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// A warning for each field of `node` that the tool does not read (compared as `loose`
/// compares keys), with the field it most likely meant: a misspelt field changes nothing,
/// silently, in the tool as here.
pub(super) fn unknown_fields(
    node: &Node,
    known: &[&str],
    path: &str,
    tool: &str,
    warnings: &mut Vec<String>,
) {
    for (key, _) in node.entries() {
        let lower = loose(key);
        if known.iter().any(|f| loose(f) == lower) {
            continue;
        }
        let meant =
            crate::scenario::values::did_you_mean(key, known.iter().copied()).or_else(|| {
                known
                    .iter()
                    .copied()
                    .find(|f| !lower.is_empty() && loose(f).starts_with(&lower))
            });
        let hint = meant.map_or(String::new(), |m| format!(" (did you mean {m}?)"));
        warnings.push(format!(
            "{path}.{} is not a field {tool} reads, so it changes nothing{hint}",
            crate::text::sanitize_line(key)
        ));
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Tagged<Value>>::deserialize(deserializer)?;
        let at = (
            usize::try_from(spanned.referenced.line()).unwrap_or(0),
            usize::try_from(spanned.referenced.column()).unwrap_or(0),
        );
        let Tagged(value, tag) = spanned.value;
        let value = match tag.as_deref().and_then(short_form) {
            Some(function) => Value::Map(vec![(function, Node { at, value })]),
            None => value,
        };
        Ok(Node { at, value })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map, a list or a value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Text(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Text(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<KeyText>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key.0, value));
        }
        Ok(Value::Map(entries))
    }
}

/// The long form of a CloudFormation short-form tag (`!Ref` is `Ref`, `!Sub` is `Fn::Sub`),
/// or `None` for any other tag, which is left off as YAML readers do.
fn short_form(tag: &str) -> Option<String> {
    const FUNCTIONS: [&str; 19] = [
        "And",
        "Base64",
        "Cidr",
        "Equals",
        "FindInMap",
        "ForEach",
        "GetAZs",
        "GetAtt",
        "If",
        "ImportValue",
        "Join",
        "Length",
        "Not",
        "Or",
        "Select",
        "Split",
        "Sub",
        "ToJsonString",
        "Transform",
    ];
    let name = tag.strip_prefix('!')?;
    match name {
        "Ref" | "Condition" => Some(name.to_owned()),
        _ if FUNCTIONS.contains(&name) => Some(format!("Fn::{name}")),
        _ => None,
    }
}

/// A map key: text, or a number or flag written as a key.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Text(t) => Ok(KeyText(t)),
            Value::Int(n) => Ok(KeyText(n.to_string())),
            Value::Bool(b) => Ok(KeyText(b.to_string())),
            Value::Float(f) => Ok(KeyText(f.to_string())),
            Value::Null => Ok(KeyText(String::new())),
            Value::Unknown(why) => Err(de::Error::custom(why)),
            _ => Err(de::Error::custom(
                "a map key must be text, not a map or a list",
            )),
        }
    }
}

/// Reads YAML or JSON text (several `---` documents allowed) into trees, one
/// per document. `file` only labels errors.
pub fn parse_yaml(text: &str, file: &str) -> Result<Vec<Node>, WindowError> {
    serde_saphyr::from_str_multiple::<Node, Vec<Node>>(text).map_err(|e| {
        let position = e
            .location()
            .map(|l| {
                (
                    usize::try_from(l.line()).unwrap_or(0),
                    usize::try_from(l.column()).unwrap_or(0),
                )
            })
            .filter(|(line, _)| *line > 0);
        let message = e.without_snippet().to_string();
        // The crate says where; the place goes in front of the message instead.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_owned(),
            None => message,
        };
        // The library's advice to its own callers means nothing to a person with a file.
        let message = message.replace(", set DuplicateKeyPolicy in Options if acceptable", "");
        // The YAML reader's own words for the commonest slips, said plainly.
        let message = if message.contains("unknown anchor") {
            "an alias (`*name`) stands for an anchor (`&name`) that the file does not set before it"
                .to_string()
        } else {
            message
        };
        WindowError::Config {
            file: file.into(),
            position,
            message: format!(
                "{}; expected YAML or JSON",
                crate::text::sanitize_line(&message)
            ),
        }
    })
}

/// A positioned error about a node.
pub fn error_at(file: &str, at: At, message: impl Into<String>) -> WindowError {
    WindowError::Config {
        file: file.into(),
        position: (at.0 > 0).then_some(at),
        message: message.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_know_their_place() {
        let docs = parse_yaml("a:\n  b: 3\n  c: [x, 2s]\n", "f.yaml").expect("valid");
        let root = &docs[0];
        let b = root.get("a").and_then(|a| a.get("B")).expect("b");
        assert_eq!(b.value, Value::Int(3));
        assert_eq!(b.at, (2, 6));
        let c = root.get("a").and_then(|a| a.get("c")).expect("c");
        assert_eq!(c.items()[1].value, Value::Text("2s".into()));
    }

    #[test]
    fn cloudformation_short_forms_become_their_long_forms() {
        let docs = parse_yaml(
            "a: !Not [!Equals [\"\", !Ref X]]\nb: !GetAtt Q.Arn\nc: !Condition C\nd: !Other 3\n",
            "f.yaml",
        )
        .expect("valid");
        let root = &docs[0];
        let not = root
            .get_exact("a")
            .and_then(|a| a.get_exact("Fn::Not"))
            .expect("Fn::Not");
        let equals = not.items()[0].get_exact("Fn::Equals").expect("Fn::Equals");
        let reference = equals.items()[1].get_exact("Ref").expect("Ref");
        assert_eq!(reference.value, Value::Text("X".into()));
        assert_eq!(reference.at, equals.items()[1].at);
        let get = root.get_exact("b").and_then(|b| b.get_exact("Fn::GetAtt"));
        assert_eq!(get.map(|g| &g.value), Some(&Value::Text("Q.Arn".into())));
        assert!(
            root.get_exact("c")
                .and_then(|c| c.get_exact("Condition"))
                .is_some()
        );
        // A tag CloudFormation does not define is left off, as before.
        assert_eq!(root.get_exact("d").map(|d| &d.value), Some(&Value::Int(3)));
    }

    #[test]
    fn keys_match_loosely_like_spring() {
        let docs = parse_yaml("max-attempts: 4\n", "f.yaml").expect("valid");
        assert!(docs[0].get("maxAttempts").is_some());
        assert!(docs[0].get_exact("maxAttempts").is_none());
    }

    #[test]
    fn syntax_errors_have_a_place() {
        let err = parse_yaml("a:\n  b: [1\n", "f.yaml").expect_err("broken");
        let text = err.to_string();
        assert!(text.starts_with("f.yaml:"), "{text}");
        assert!(!text.contains(" at line "), "{text}");
    }
}
