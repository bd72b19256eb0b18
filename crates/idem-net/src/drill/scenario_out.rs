//! `idem drill --scenario OUT.toml`: a scenario that tells order 5531's story under the
//! design the endpoint behaves like, so the room can replay their own API tick by tick. Its
//! `[[expect]]` blocks are what the simulation makes of it, and the text is read back
//! before it is written: what the drill writes, `idem check` and `idem run` read.

use super::battery::{Observed, Plan};
use super::judge::Row;
use crate::sim::{Cents, Design};
use serde_json::Value;

/// The checkout waits this long for an answer; the first attempt takes longer.
const TIMEOUT_MS: u64 = 30_000;
const SLOW_MS: u64 = 45_000;
const BACKOFF_MS: u64 = 1_000;
/// The story's attempts all come within this long of the first answer being stored; a
/// published expiry shorter than it shrinks the story's times in proportion, so that what the
/// story shows is what the drill saw (every request within the key's life), not an expiry.
const STORY_SPAN_MS: u64 = 100_000;
/// Order 5531 is paid at 14:02:07.
const PAY_MS: u64 = (14 * 3600 + 2 * 60 + 7) * 1000;

/// The story's times, shrunk to fit within a published expiry shorter than its span.
struct Times {
    timeout: u64,
    slow: u64,
    backoff: u64,
    /// When the order that reuses the key comes: a moment after the first is charged.
    reuse_at: u64,
}

impl Times {
    fn for_plan(plan: &Plan) -> Times {
        let keep = plan
            .expiry
            .as_ref()
            .map_or(STORY_SPAN_MS, |e| e.published_ms.min(STORY_SPAN_MS));
        let scaled = |ms: u64| (ms.saturating_mul(keep) / STORY_SPAN_MS).max(1);
        let slow = scaled(SLOW_MS);
        Times {
            timeout: scaled(TIMEOUT_MS),
            slow,
            backoff: scaled(BACKOFF_MS),
            reuse_at: PAY_MS + slow + scaled(BACKOFF_MS),
        }
    }
}

/// `14:02:53.000`.
fn clock(ms: u64) -> String {
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// A TOML string holding `text`, made safe first.
fn string(text: &str) -> String {
    toml::Value::String(crate::text::sanitize_line(text)).to_string()
}

/// A TOML multi-line string: safe text, written as a basic string (TOML escapes it).
fn block(text: &str) -> String {
    toml::Value::String(crate::text::sanitize_block(text)).to_string()
}

/// The order and amount of the drilled body, when it has them in a form the scenario takes.
fn order_and_amount(body: &Value) -> (String, Cents) {
    let order = match body.get("order") {
        Some(Value::String(s)) => crate::text::shorten(&crate::text::sanitize_line(s), 24),
        Some(Value::Number(n)) if n.is_u64() => n.to_string(),
        _ => String::new(),
    };
    let order = if order.trim().is_empty() {
        "5531".to_string()
    } else {
        order
    };
    let amount = match body.get("amount") {
        Some(Value::String(s)) => crate::sim::money::parse_money(s).ok(),
        Some(Value::Number(n)) => n
            .as_i64()
            .filter(|c| (0..=100_000_000_000).contains(c))
            .map(Cents),
        _ => None,
    };
    (order, amount.unwrap_or(Cents(4860)))
}

/// The scenario's text, with its expectations worked out by the simulation.
pub fn write(
    plan: &Plan,
    observed: &Observed,
    rows: &[Row],
    design: Design,
    why: &str,
) -> Result<String, String> {
    let mut text = story(plan, observed, rows, design, why);
    let scenario = crate::scenario::parse("drill.toml", "drill", &text)
        .map_err(|e| format!("the drill's scenario does not read back: {e}"))?;
    let mut designs = vec![design];
    if design != Design::WithCharge {
        designs.push(Design::WithCharge);
    }
    for d in designs {
        let trace = scenario
            .simulate(d)
            .map_err(|e| format!("the drill's scenario does not simulate under {d}: {e}"))?;
        let o = &trace.outcome;
        text.push_str(&format!(
            "\n[[expect]]\ndesign = \"{}\"\ncharges = {}\nverdict = \"{}\"\n",
            d.id(),
            o.charges,
            o.verdict.id()
        ));
    }
    crate::scenario::parse("drill.toml", "drill", &text)
        .map_err(|e| format!("the drill's scenario does not read back: {e}"))?;
    Ok(text)
}

/// The charges the drill's story makes under `design`: order 5531's, and the second order's
/// that reuses its key when the story has one.
pub fn charges_under(
    plan: &Plan,
    observed: &Observed,
    design: Design,
) -> Result<(u32, Option<u32>), String> {
    let text = story(plan, observed, &[], design, "");
    let scenario = crate::scenario::parse("drill.toml", "drill", &text)
        .map_err(|e| format!("the drill's scenario does not read back: {e}"))?;
    let trace = scenario
        .simulate(design)
        .map_err(|e| format!("the drill's scenario does not simulate under {design}: {e}"))?;
    let intents = &trace.outcome.intents;
    let first = intents.first().map_or(0, |i| i.charges as u32);
    Ok((first, intents.get(1).map(|i| i.charges as u32)))
}

/// The scenario's text without its expectations: the checkout, the processor, the orders
/// and the slow first attempt.
fn story(plan: &Plan, observed: &Observed, rows: &[Row], design: Design, why: &str) -> String {
    let url = crate::text::sanitize_line(&plan.target.url);
    let (order, amount) = order_and_amount(&plan.body);
    let other = plan
        .other_body
        .as_ref()
        .map(|b| order_and_amount(b).1)
        .filter(|_| observed.mismatch.is_some());
    let mut seen = String::new();
    for r in rows {
        seen.push_str(&format!(
            "- {} ({}): {}, {}\n",
            r.check,
            r.level.word(),
            r.verdict.word(),
            r.seen
        ));
    }
    let times = Times::for_plan(plan);
    let span = |ms: u64| crate::units::duration_ms(ms);
    let mut story = format!(
        "Here that design meets the story: the first attempt takes {}, longer than the {} the \
checkout waits, so the retries arrive while it is still being worked on, as the drill's \
requests at once did",
        span(times.slow),
        span(times.timeout)
    );
    if other.is_some() {
        story.push_str(&format!(
            "; {} after the first is charged, a second order comes with the same key and another \
amount, as the drill's reused key did",
            span(times.reuse_at - PAY_MS - times.slow)
        ));
    }
    story.push('.');
    let description = format!(
        "What idem drill saw at {url}:\n{seen}\nIt behaves most like the design {} ({}): {why}.\n\n{story}\n",
        design.id(),
        design.name()
    );
    let retention = plan.expiry.as_ref().map_or_else(
        || "24h".to_string(),
        |e| {
            humantime::format_duration(std::time::Duration::from_millis(e.published_ms)).to_string()
        },
    );
    let mut text = format!(
        "# Written by `idem drill --scenario` from the answers of {url}.\n\
         # Replay it with `idem FILE`, compare the designs with `idem run FILE --design all`.\n\
         title = {}\n\
         description = {}\n\
         seed = 1\n\
         design = \"{}\"\n\n\
         [[checkout.layer]]\n\
         name = \"checkout\"\n\
         attempts = 5\n\
         timeout = \"{}ms\"\n\
         backoff = \"{}ms\"\n\
         multiplier = 3.0\n\n\
         [processor]\n\
         retention = \"{retention}\"\n\n\
         [[intent]]\n\
         order = {}\n\
         key = \"K7Q4\"\n\
         amount = \"{amount}\"\n\
         at = \"14:02:07\"\n\n",
        string(&format!(
            "Drill of {}: it behaves like {}",
            crate::text::shorten(&url, 60),
            design.id()
        )),
        block(&description),
        design.id(),
        times.timeout,
        times.backoff,
        string(&order),
    );
    if let Some(other) = other {
        text.push_str(&format!(
            "[[intent]]\norder = {}\nkey = \"K7Q4\"\namount = \"{other}\"\nat = \"{}\"\n\n",
            string(&format!("{order}-2")),
            clock(times.reuse_at)
        ));
    }
    text.push_str(&format!(
        "[[fault]]\nattempt = 1\nprocessing = \"{}ms\"\n",
        times.slow
    ));
    text
}
