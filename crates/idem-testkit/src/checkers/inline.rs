//! The pieces of an inline scenario the engine tests share: order 5531 as an intent, and a
//! one-layer checkout paying it, and a story of many purchases that makes every attempt.

use std::fmt::Write;

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

/// `orders` orders of $1.00 a minute apart from 10:00, keyed K0, K1, …, paid by one checkout
/// layer of `attempts` attempts (`timeout` each, 1 s backoff), plus `extra`: a story as long
/// as a test needs.
pub fn many_orders(orders: usize, attempts: u32, timeout: &str, extra: &str) -> String {
    let mut text = format!(
        "title = \"{orders} orders\"\nseed = 1\n\n[[checkout.layer]]\nname = \"checkout\"\nattempts = {attempts}\ntimeout = \"{timeout}\"\nbackoff = \"1s\"\n"
    );
    for i in 0..orders {
        text.push_str(&format!(
            "\n[[intent]]\norder = \"{}\"\nkey = \"K{i}\"\namount = \"$1.00\"\nat = \"{:02}:{:02}:00\"\n",
            1000 + i,
            10 + i / 60,
            i % 60
        ));
    }
    text.push_str(extra);
    text
}

/// A scenario of 64 purchases whose every attempt but the last loses its reply, so that each
/// of the `attempts` is made: about six ticks an attempt under every design.
pub fn every_attempt_lost(attempts: u32) -> String {
    let mut text = format!(
        "title = \"Every attempt\"\nseed = 1\ndesign = \"no-key\"\n\n[checkout]\nkey_strategy = \"per-intent\"\n\n[[checkout.layer]]\nname = \"checkout\"\nattempts = {attempts}\ntimeout = \"1s\"\nbackoff = \"10ms\"\n"
    );
    for i in 0..64 {
        let _ = write!(
            text,
            "\n[[intent]]\norder = \"{}\"\nkey = \"K{i:02}\"\namount = \"$48.60\"\nat = \"14:{:02}:{:02}\"\n",
            10 + i,
            i / 60,
            i % 60
        );
    }
    for i in 0..64 {
        for a in 1..attempts {
            let _ = write!(
                text,
                "\n[[fault]]\nintent = \"{}\"\nattempt = {a}\nlose = \"reply\"\n",
                10 + i
            );
        }
    }
    text
}
