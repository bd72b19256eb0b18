//! From arithmetic to motion: turns a retry [`Stack`] into a scenario the
//! replay can play, so the numbers of the calculator can be watched tick by
//! tick.
//!
//! The scenario is the harshest case the stack allows: every reply of the
//! first run is lost, so the checkout never hears back and spends its whole
//! budget; each human path then starts the purchase again. It is written as
//! TOML text and read back with [`crate::scenario::parse`], so it passes every
//! check a file from a trainer passes.
//!
//! Two simplifications, both the engine's: the engine starts a human path
//! once the previous run has given up (the calculator measures each path from
//! the first attempt), and a later path runs only when the earlier ones left
//! the order unpaid.

use std::fmt::Write as _;
use std::time::Duration;

use super::magnitude::Span;
use super::stack::Stack;
use crate::scenario::{MAX_TICKS, Scenario, values};

/// The name the built scenario carries (in messages and the share line).
pub const SCENARIO_NAME: &str = "your-stack";

/// The same generous estimate of ticks per attempt that the scenario checker
/// uses to refuse a configuration before simulating it.
const TICKS_PER_ATTEMPT: u128 = crate::scenario::TICKS_PER_ATTEMPT as u128;

/// How many attempts, over every run, the replay can show.
pub const MAX_REPLAY_ATTEMPTS: u128 = MAX_TICKS as u128 / TICKS_PER_ATTEMPT;

/// Builds a replayable scenario from `stack`: the stack's layers (innermost
/// first, the innermost waiting 30 s for each reply), every reply of the
/// first run lost, keys kept for the stack's window, one purchase (order 5531,
/// key K7Q4, $48.60 at 14:02:07) and one `[[human]]` rerun per human path.
///
/// Refuses, with a sentence a person can act on, a stack the engine cannot
/// replay: too many attempts over every run, a duration finer than a
/// millisecond or longer than about 30 years, a zero window or path delay.
pub fn scenario_from_stack(stack: &Stack) -> Result<Scenario, String> {
    let report = stack.report().map_err(|e| e.to_string())?;
    let runs = 1 + stack.paths.len() as u128;
    let per_run = report
        .attempts
        .exact()
        .filter(|&n| n <= MAX_REPLAY_ATTEMPTS);
    let total = per_run.and_then(|n| n.checked_mul(runs));
    let per_run = match (per_run, total) {
        (Some(per_run), Some(total)) if total <= MAX_REPLAY_ATTEMPTS => per_run,
        _ => {
            let most = super::group_digits(MAX_REPLAY_ATTEMPTS);
            return Err(if stack.paths.is_empty() {
                format!(
                    "Too many attempts to replay: {}, over the {most} the replay can show. \
                     Lower a layer's attempts.",
                    report.attempts
                )
            } else {
                format!(
                    "Too many attempts to replay: {} per run × {runs} runs, over the {most} \
                     the replay can show. Lower a layer's attempts or remove a path.",
                    report.attempts
                )
            });
        }
    };

    let source = scenario_toml(stack, per_run, report.window)?;
    crate::scenario::parse(SCENARIO_NAME, SCENARIO_NAME, &source)
        .map_err(|e| format!("The stack cannot be replayed: {e}"))
}

/// Writes the scenario file for a stack already checked for size.
fn scenario_toml(stack: &Stack, per_run: u128, window: Span) -> Result<String, String> {
    let mut out = String::new();
    let title = format!(
        "Your retry stack: {} attempts, a {window} window",
        super::group_digits(per_run)
    );
    let _ = writeln!(out, "title = {}", quoted(&title));
    let description = describe(stack, per_run, window);
    let _ = writeln!(out, "description = {}", quoted(&description));
    out.push_str("seed = 1\ndesign = \"with-charge\"\n");

    if stack.layers.is_empty() {
        // No retrying layer: one attempt, and nothing to wait for.
        out.push_str(
            "\n[[checkout.layer]]\nname = \"checkout\"\nattempts = 1\ntimeout = \"30s\"\n",
        );
    }
    for (i, layer) in stack.layers.iter().enumerate() {
        let which = format!("the backoff of layer {} ({})", i + 1, layer.name);
        let backoff = duration_text(layer.backoff, &which)?;
        let _ = write!(
            out,
            "\n[[checkout.layer]]\nname = {}\nattempts = {}\n",
            quoted(&layer.name),
            layer.attempts
        );
        if i == 0 {
            out.push_str("timeout = \"30s\"\n");
        }
        let _ = writeln!(out, "backoff = {}\nmultiplier = 1.0", quoted(&backoff));
    }

    let retention = duration_text(stack.window, "the window")?;
    if stack.window.is_zero() {
        return Err("The window is zero: keys must be kept for some time.".to_owned());
    }
    let _ = writeln!(out, "\n[processor]\nretention = {}", quoted(&retention));

    out.push_str(
        "\n[[intent]]\norder = \"5531\"\nkey = \"K7Q4\"\namount = \"$48.60\"\n\
         items = [\"2 × notebook\", \"fountain pen\"]\nat = \"14:02:07\"\n",
    );

    for attempt in 1..=per_run {
        let _ = writeln!(out, "\n[[fault]]\nattempt = {attempt}\nlose = \"reply\"");
    }

    for path in &stack.paths {
        let which = format!("the delay of {}", path.name);
        if path.delay.is_zero() {
            return Err(format!(
                "{} is zero: a person takes some time before running the payment again.",
                capitalised(&which)
            ));
        }
        let after = duration_text(path.delay, &which)?;
        let _ = write!(
            out,
            "\n[[human]]\nname = {}\nafter = {}\n",
            quoted(&path.name),
            quoted(&after)
        );
    }
    Ok(out)
}

/// The scenario's description: what the stack is and what the replay shows.
fn describe(stack: &Stack, per_run: u128, window: Span) -> String {
    let layers = if stack.layers.is_empty() {
        "a checkout that never retries".to_owned()
    } else {
        let parts: Vec<String> = stack
            .layers
            .iter()
            .map(|l| {
                format!(
                    "{} ({} × {})",
                    l.name,
                    l.attempts,
                    Span::from_duration(l.backoff)
                )
            })
            .collect();
        parts.join(" inside ")
    };
    let mut text = format!(
        "Built from the retry-window calculator: {layers}, {per_run} attempts for one \
         purchase. Every answer of the first run is lost, so the checkout spends its whole \
         budget without hearing back. The processor keeps keys for {window}."
    );
    if !stack.paths.is_empty() {
        let names: Vec<String> = stack
            .paths
            .iter()
            .map(|p| format!("{} after {}", p.name, Span::from_duration(p.delay)))
            .collect();
        let _ = write!(
            text,
            " Then people take over, each once the run before gave up unpaid: {}.",
            names.join(", then ")
        );
    }
    text
}

/// Writes a duration in the largest unit that holds it exactly ("2s", "26h",
/// "7d"), and checks that the engine accepts it.
fn duration_text(duration: Duration, what: &str) -> Result<String, String> {
    const UNITS: [(u128, &str); 5] = [
        (86_400_000_000_000, "d"),
        (3_600_000_000_000, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
    ];
    let nanos = duration.as_nanos();
    let text = if nanos == 0 {
        "0s".to_owned()
    } else {
        UNITS
            .iter()
            .find(|(unit, _)| nanos.is_multiple_of(*unit))
            .map_or_else(
                || format!("{nanos}ns"),
                |(unit, name)| format!("{}{name}", nanos / unit),
            )
    };
    values::parse_duration(&text)
        .map(|_| text)
        .map_err(|problem| format!("{} cannot be replayed: {problem}.", capitalised(what)))
}

/// A TOML basic string holding `text`, every special character escaped.
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The calculator knows one backoff per layer; a growing backoff is replaced by the even wait
/// that adds up to the same total, so the automatic delay comes out the same.
fn even_backoff(b: &crate::sim::config::Backoff, attempts: u32) -> u64 {
    let retries = attempts.saturating_sub(1);
    if retries == 0 {
        return b.initial_ms;
    }
    let cap = b.cap_ms.map_or(f64::MAX, |c| c as f64);
    let total: f64 = (0..retries)
        .map(|r| (b.initial_ms as f64 * b.multiplier.powi(r as i32)).min(cap))
        .sum();
    (total / f64::from(retries)).min(1e15) as u64
}

/// The retry stack a scenario's checkout is configured with: its layers, its human paths and
/// its retention window (the `w` key opens the calculator on the scenario in the replay).
pub fn stack_from_config(cfg: &crate::sim::SimConfig) -> Stack {
    use super::stack::{HumanPath, Layer};
    Stack {
        layers: cfg
            .layers
            .iter()
            .map(|l| {
                Layer::new(
                    l.name.clone(),
                    Duration::from_millis(even_backoff(&l.backoff, l.attempts)),
                    u64::from(l.attempts),
                )
            })
            .collect(),
        paths: cfg
            .human_paths
            .iter()
            .map(|p| HumanPath::new(p.name.clone(), Duration::from_millis(p.after_ms)))
            .collect(),
        window: Duration::from_millis(cfg.retention_ms),
        safety: super::DEFAULT_SAFETY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_the_largest_exact_unit() {
        let text = |d| duration_text(d, "it");
        assert_eq!(text(Duration::from_secs(0)), Ok("0s".to_owned()));
        assert_eq!(text(Duration::from_secs(2)), Ok("2s".to_owned()));
        assert_eq!(text(Duration::from_secs(26 * 3600)), Ok("26h".to_owned()));
        assert_eq!(text(Duration::from_secs(7 * 86_400)), Ok("7d".to_owned()));
        assert_eq!(text(Duration::from_millis(100)), Ok("100ms".to_owned()));
        assert!(text(Duration::from_micros(1500)).is_err());
    }

    #[test]
    fn strings_are_escaped() {
        let text = "a \"b\" 'c'\n\\";
        let read: toml::Table =
            toml::from_str(&format!("x = {}", quoted(text))).expect("valid TOML");
        assert_eq!(read.get("x").and_then(toml::Value::as_str), Some(text));
    }
}
