//! Terraform's values as the reader holds them, with one addition: a value not known from the
//! files given ([`Tv::Unknown`], with why), which flows through expressions as Terraform's own
//! unknown values do and fails nothing until a queue needs it. Text may hold such a value in
//! part (a queue's ARN built from the account id): the unknown part is kept inside the text
//! between [`OPEN`] and [`CLOSE`], so a redrive policy written as JSON text still gives its
//! `maxReceiveCount` when only its `deadLetterTargetArn` is unknown.

use std::collections::BTreeMap;

/// Where an unknown part of a text starts and ends (control characters no file holds).
pub const OPEN: char = '\u{1}';
pub const CLOSE: char = '\u{2}';

/// A key no Terraform object has, marking a resource's attributes: an attribute this reader
/// does not keep is unknown rather than missing.
pub const RESOURCE: &str = "\u{1}resource";

#[derive(Clone, Debug, PartialEq)]
pub enum Tv {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    List(Vec<Tv>),
    /// Objects and maps alike, their keys in Terraform's order (lexical).
    Map(BTreeMap<String, Tv>),
    Unknown(String),
}

impl Tv {
    pub fn unknown(why: impl Into<String>) -> Tv {
        Tv::Unknown(why.into())
    }

    /// Why the value is not known, when it is not (a text holding an unknown part included).
    pub fn why_unknown(&self) -> Option<String> {
        match self {
            Tv::Unknown(why) => Some(why.clone()),
            Tv::Str(s) => marked(s),
            _ => None,
        }
    }

    /// The text an unknown value stands as inside a text.
    pub fn as_part(why: &str) -> String {
        format!("{OPEN}{why}{CLOSE}")
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Tv::Null => "null",
            Tv::Bool(_) => "a bool",
            Tv::Num(_) => "a number",
            Tv::Str(_) => "a string",
            Tv::List(_) => "a list",
            Tv::Map(_) => "an object",
            Tv::Unknown(_) => "an unknown value",
        }
    }

    /// The value as text, as Terraform converts a number or bool to a string.
    pub fn to_text(&self) -> Option<String> {
        match self {
            Tv::Str(s) => Some(s.clone()),
            Tv::Num(n) => Some(number_text(*n)),
            Tv::Bool(b) => Some(b.to_string()),
            Tv::Unknown(why) => Some(Tv::as_part(why)),
            _ => None,
        }
    }

    /// The value as a number, as Terraform converts a string of digits.
    pub fn to_number(&self) -> Option<f64> {
        match self {
            Tv::Num(n) => Some(*n),
            Tv::Str(s) if marked(s).is_none() => s.trim().parse::<f64>().ok(),
            _ => None,
        }
    }

    pub fn to_bool(&self) -> Option<bool> {
        match self {
            Tv::Bool(b) => Some(*b),
            Tv::Str(s) if s == "true" => Some(true),
            Tv::Str(s) if s == "false" => Some(false),
            _ => None,
        }
    }

    /// Lists, and sets and tuples (which the reader holds as lists), as items.
    pub fn items(&self) -> Option<&[Tv]> {
        match self {
            Tv::List(items) => Some(items),
            _ => None,
        }
    }

    /// The value as JSON, as `jsonencode` writes it; an unknown part is written as text.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Tv::Null => serde_json::Value::Null,
            Tv::Bool(b) => serde_json::Value::Bool(*b),
            Tv::Num(n) => json_number(*n),
            Tv::Str(s) => serde_json::Value::String(s.clone()),
            Tv::List(items) => serde_json::Value::Array(items.iter().map(Tv::to_json).collect()),
            Tv::Map(map) => serde_json::Value::Object(
                map.iter()
                    .filter(|(k, _)| k.as_str() != RESOURCE)
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
            Tv::Unknown(why) => serde_json::Value::String(Tv::as_part(why)),
        }
    }

    pub fn from_json(value: &serde_json::Value) -> Tv {
        match value {
            serde_json::Value::Null => Tv::Null,
            serde_json::Value::Bool(b) => Tv::Bool(*b),
            serde_json::Value::Number(n) => Tv::Num(n.as_f64().unwrap_or(0.0)),
            serde_json::Value::String(s) => Tv::Str(s.clone()),
            serde_json::Value::Array(items) => Tv::List(items.iter().map(Tv::from_json).collect()),
            serde_json::Value::Object(map) => Tv::Map(
                map.iter()
                    .map(|(k, v)| (k.clone(), Tv::from_json(v)))
                    .collect(),
            ),
        }
    }
}

/// The reason of the first unknown part of a text.
pub fn marked(s: &str) -> Option<String> {
    let start = s.find(OPEN)?;
    let rest = &s[start + OPEN.len_utf8()..];
    let end = rest.find(CLOSE).unwrap_or(rest.len());
    Some(rest[..end].to_owned())
}

/// A number as Terraform writes it: whole numbers without a point.
pub fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

fn json_number(n: f64) -> serde_json::Value {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        serde_json::Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(serde_json::Value::Null, serde_json::Value::Number)
    }
}

/// A value given to a module's variable, and where it came from (for the notes).
#[derive(Clone, Debug)]
pub struct Input {
    pub value: Tv,
    pub from: String,
}

/// A queue as a reference sees it: its ARN and URL name it for the queue reader.
pub fn queue_object(id: &str) -> Tv {
    let mut m = BTreeMap::new();
    m.insert(RESOURCE.to_owned(), Tv::Bool(true));
    m.insert("arn".to_owned(), Tv::Str(format!("{id}.Arn")));
    m.insert("id".to_owned(), Tv::Str(format!("{id}.Url")));
    m.insert("url".to_owned(), Tv::Str(format!("{id}.Url")));
    Tv::Map(m)
}

/// A value as the notes show it.
pub fn shown_value(v: &Tv) -> String {
    let text = match v {
        Tv::Unknown(_) => "not known".to_owned(),
        Tv::Str(s) if s.contains(OPEN) => "not known".to_owned(),
        Tv::Str(s) => format!("{s:?}"),
        other => other.to_json().to_string(),
    };
    crate::text::shorten(&crate::text::sanitize_line(&text), 60)
}
