//! The retry storm the benchmarks share: three layers whose attempts multiply to
//! `inner × middle × outer`, every answer lost, as a scenario file's text.

pub fn storm_source(inner: u32, middle: u32, outer: u32) -> String {
    let mut source = format!(
        r#"title = "Storm"
[[checkout.layer]]
attempts = {inner}
timeout = "2s"
[[checkout.layer]]
attempts = {middle}
backoff = "1m"
[[checkout.layer]]
attempts = {outer}
backoff = "1h"
[[intent]]
order = "1"
key = "K1"
amount = "$1.00"
at = "10:00:00"
"#
    );
    for attempt in 1..=inner * middle * outer {
        source.push_str(&format!(
            "[[fault]]\nattempt = {attempt}\nlose = \"reply\"\n"
        ));
    }
    source
}
