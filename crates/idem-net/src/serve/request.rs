//! Reading what a client sent: the `Idempotency-Key` header, an RFC 8941 string, and the
//! charge in the body. Whatever is wrong is said in words fit for a problem's `detail`.

use crate::sim::Cents;
use serde_json::Value;

/// The longest key taken, in characters: the draft sets no limit, Stripe's is 255.
pub const MAX_KEY: usize = 255;

/// The longest order id taken, in characters.
const MAX_ORDER: usize = 64;
/// The most items a charge may list, and the longest item.
const MAX_ITEMS: usize = 32;
const MAX_ITEM: usize = 100;
/// The largest amount a number of cents may give: the scenario format's own limit.
const MAX_CENTS: i64 = 100_000_000_000;

/// The `Idempotency-Key` header of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyHeader {
    Missing,
    Key(String),
    /// Present, but not one usable sf-string: why.
    Invalid(String),
}

/// Reads the values of every `Idempotency-Key` header a request carried.
pub fn read_key(values: &[&str]) -> KeyHeader {
    let value = match values {
        [] => return KeyHeader::Missing,
        [one] => *one,
        more => {
            return KeyHeader::Invalid(format!(
                "the request carries {} Idempotency-Key headers; send exactly one",
                more.len()
            ));
        }
    };
    let shown = crate::text::shorten(&crate::text::sanitize_line(value), 40);
    // A key sent bare, as client libraries send it, is the same key as that key in quotes.
    let bare = value.trim_matches([' ', '\t']);
    if !bare.starts_with('"') && !bare.is_empty() && bare.chars().all(bare_key_char) {
        return checked(bare);
    }
    let item: sfv::Item = match sfv::Parser::new(value).parse() {
        Ok(item) => item,
        Err(_) if !value.trim_start().starts_with('"') => {
            return KeyHeader::Invalid(format!(
                "`{shown}` is neither a key in quotes nor a bare key of letters, digits and {BARE_MARKS}"
            ));
        }
        Err(e) => {
            return KeyHeader::Invalid(format!(
                "`{shown}` is not one Structured Field string (RFC 8941): {e}"
            ));
        }
    };
    let Some(key) = item.bare_item.as_string() else {
        return KeyHeader::Invalid(format!(
            "`{shown}` is neither a key in quotes nor a bare key of letters, digits and {BARE_MARKS}"
        ));
    };
    checked(key.as_str())
}

/// The marks a bare key may hold besides letters and digits: HTTP's token characters, and
/// the `:`, `/` and `=` of base64 and prefixed keys.
const BARE_MARKS: &str = "!#$%&'*+-.^_`|~:/=";

fn bare_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || BARE_MARKS.contains(c)
}

/// A key read from the header, held to the server's limits.
fn checked(key: &str) -> KeyHeader {
    let length = key.chars().count();
    if key.is_empty() {
        return KeyHeader::Invalid("the key is empty".into());
    }
    if length > MAX_KEY {
        return KeyHeader::Invalid(format!(
            "the key is {length} characters long; this server takes at most {MAX_KEY}"
        ));
    }
    KeyHeader::Key(key.to_string())
}

/// A charge as the body asks for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChargeBody {
    pub order: String,
    pub amount: Cents,
    pub items: Vec<String>,
}

impl ChargeBody {
    /// What a key is first used for, as the simulation's with-charge design keeps it.
    pub fn fingerprint(&self) -> u64 {
        crate::sim::digest::fingerprint(&self.order, self.amount, &self.items)
    }

    /// The body a content-hashing processor compares: everything but the order id.
    pub fn content(&self) -> u64 {
        crate::sim::digest::content_unstamped("", self.amount, &self.items)
    }
}

/// Reads a charge from a request body.
pub fn read_body(bytes: &[u8]) -> Result<ChargeBody, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "the body is not UTF-8 text".to_string())?;
    if text.trim().is_empty() {
        return Err("the body is empty; send a JSON object with order and amount".into());
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| crate::text::sanitize_line(&format!("the body is not JSON: {e}")))?;
    let Value::Object(fields) = value else {
        return Err("the body is not a JSON object; send {\"order\": …, \"amount\": …}".into());
    };
    if let Some(unknown) = fields
        .keys()
        .find(|k| !matches!(k.as_str(), "order" | "amount" | "items"))
    {
        return Err(format!(
            "unknown field `{}`; a charge has order, amount and items",
            crate::text::shorten(&crate::text::sanitize_line(unknown), 40)
        ));
    }
    let order = match fields.get("order") {
        Some(Value::String(s)) => clean("order", s, MAX_ORDER)?,
        Some(Value::Number(n)) if n.is_u64() => n.to_string(),
        Some(_) => return Err("order is a string (or a whole number), as in \"5531\"".into()),
        None => return Err("the field order is missing".into()),
    };
    if order.is_empty() {
        return Err("order is empty".into());
    }
    let amount = match fields.get("amount") {
        Some(Value::String(s)) => crate::sim::money::parse_money(s)
            .map_err(|e| crate::text::sanitize_line(&format!("amount: {e}")))?,
        Some(Value::Number(n)) => match n.as_i64() {
            Some(c) if (1..=MAX_CENTS).contains(&c) => Cents(c),
            Some(0) => return Err(nothing_to_charge("0 cents")),
            _ => {
                return Err(format!(
                    "amount as a number is whole cents, from 1 to {MAX_CENTS}"
                ));
            }
        },
        Some(_) => return Err("amount is a string such as \"$48.60\", or whole cents".into()),
        None => return Err("the field amount is missing".into()),
    };
    if amount.0 <= 0 {
        return Err(nothing_to_charge(&amount.to_string()));
    }
    let items = match fields.get("items") {
        None => Vec::new(),
        Some(Value::Array(list)) if list.len() <= MAX_ITEMS => list
            .iter()
            .map(|v| match v {
                Value::String(s) => clean("an item", s, MAX_ITEM),
                _ => Err("items is a list of strings".to_string()),
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(Value::Array(_)) => return Err(format!("items lists at most {MAX_ITEMS} items")),
        Some(_) => return Err("items is a list of strings".into()),
    };
    Ok(ChargeBody {
        order,
        amount,
        items,
    })
}

/// Why an amount of nothing is refused.
fn nothing_to_charge(shown: &str) -> String {
    format!("amount is {shown}; a charge moves money, so it is at least one cent")
}

/// A text field with no control characters, at most `max` characters long.
fn clean(what: &str, s: &str, max: usize) -> Result<String, String> {
    if crate::text::sanitize_line(s) != s {
        return Err(format!("{what} holds control characters"));
    }
    if s.chars().count() > max {
        return Err(format!("{what} is longer than {max} characters"));
    }
    Ok(s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_one_quoted_string_or_one_bare_key() {
        assert_eq!(read_key(&[]), KeyHeader::Missing);
        assert_eq!(read_key(&["\"K7Q4\""]), KeyHeader::Key("K7Q4".into()));
        assert_eq!(read_key(&[" \"K7Q4\" "]), KeyHeader::Key("K7Q4".into()));
        assert_eq!(read_key(&[r#""a\"b""#]), KeyHeader::Key("a\"b".into()));
        let invalid = |v: &[&str]| match read_key(v) {
            KeyHeader::Invalid(why) => why,
            other => panic!("{v:?} read as {other:?}"),
        };
        // Bare, as client libraries send it: the same key as in quotes.
        assert_eq!(read_key(&["K7Q4"]), KeyHeader::Key("K7Q4".into()));
        assert_eq!(
            read_key(&["550e8400-e29b-41d4-a716-446655440000"]),
            KeyHeader::Key("550e8400-e29b-41d4-a716-446655440000".into())
        );
        assert!(invalid(&["K7 Q4"]).contains("neither a key in quotes"));
        assert!(invalid(&["(K7Q4)"]).contains("neither a key in quotes"));
        assert!(invalid(&["\"K7Q4"]).contains("RFC 8941"));
        assert!(invalid(&["\"\""]).contains("empty"));
        assert!(invalid(&["\"a\", \"b\""]).contains("RFC 8941"));
        assert!(invalid(&["\"a\u{1}b\""]).contains("RFC 8941"));
        assert!(invalid(&["\"a\"", "\"b\""]).contains("2 Idempotency-Key headers"));
        let long = format!("\"{}\"", "k".repeat(MAX_KEY + 1));
        assert!(invalid(&[&long]).contains("at most 255"));
        let longest = format!("\"{}\"", "k".repeat(MAX_KEY));
        assert!(matches!(read_key(&[&longest]), KeyHeader::Key(_)));
    }

    #[test]
    fn a_charge_has_an_order_and_an_amount() {
        let body = read_body(br#"{"order": "5531", "amount": "$48.60"}"#).expect("a charge");
        assert_eq!(body.order, "5531");
        assert_eq!(body.amount, Cents(4860));
        let cents = read_body(br#"{"order": 5531, "amount": 4860, "items": ["pen"]}"#)
            .expect("a charge in cents");
        assert_eq!((cents.order.as_str(), cents.amount), ("5531", Cents(4860)));
        assert_ne!(body.fingerprint(), cents.fingerprint(), "the items differ");
        for (bad, why) in [
            (&b"\xff"[..], "UTF-8"),
            (b"", "empty"),
            (b"[1]", "not a JSON object"),
            (b"{", "not JSON"),
            (br#"{"amount": "$1"}"#, "order is missing"),
            (br#"{"order": "1"}"#, "amount is missing"),
            (br#"{"order": "1", "amount": "-5"}"#, "amount"),
            (br#"{"order": "1", "amount": "$0.00"}"#, "at least one cent"),
            (br#"{"order": "1", "amount": "0"}"#, "at least one cent"),
            (br#"{"order": "1", "amount": 0}"#, "at least one cent"),
            (br#"{"order": "1", "amount": -1}"#, "from 1 to"),
            (br#"{"order": "1", "amount": 1e30}"#, "whole cents"),
            (
                br#"{"order": "a\u0007", "amount": 1}"#,
                "control characters",
            ),
            (
                br#"{"order": "1", "amount": 1, "x": 1}"#,
                "unknown field `x`",
            ),
            (br#"{"order": "", "amount": 1}"#, "empty"),
        ] {
            let err = read_body(bad).expect_err("refused");
            assert!(err.contains(why), "{bad:?}: {err}");
        }
    }
}
