//! The pieces of an inline scenario the engine tests share: order 5531 as an intent, and a
//! one-layer checkout paying it.

/// Order 5531, $48.60, key K7Q4, at 14:02:07, as an `[[intent]]` block.
pub const ORDER: &str = r#"
[[intent]]
order = "5531"
key = "K7Q4"
amount = "$48.60"
items = ["2 × notebook", "fountain pen"]
at = "14:02:07"
"#;

/// A checkout layer of `attempts` attempts with a 30 s timeout and the given backoff keys,
/// paying order 5531, plus `extra`.
pub fn one_layer(attempts: u32, backoff: &str, extra: &str) -> String {
    format!(
        "title = \"rule\"\nseed = 1\n\n[[checkout.layer]]\nname = \"checkout\"\nattempts = {attempts}\ntimeout = \"30s\"\n{backoff}\n{ORDER}\n{extra}"
    )
}
