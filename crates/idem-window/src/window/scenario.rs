//! From arithmetic to motion: turns a retry [`Stack`] into a scenario the
//! replay can play, so the numbers of the calculator can be watched tick by
//! tick, and reads the stack a scenario's checkout is configured with.
//!
//! The scenario is the harshest case the stack allows. Every answer of the
//! automatic run is lost, so the checkout never hears back and spends its
//! whole budget; then each human path sends the purchase again. The engine
//! starts a person's rerun once the run before it has given up, so the paths
//! are replayed one after the other, in the order of their delays, each
//! `after` chosen so that it starts exactly at its delay from the first
//! request; the reruns before the last one hear nothing either, and the last
//! one is answered (a person is there to see the outcome). Every figure of
//! the calculator is then a moment of the replay: the last automatic request,
//! the give-up, each rerun's first request; and with-charge charges once
//! exactly when the calculator says every path is covered.
//!
//! The scenario is written as TOML text and read back with
//! [`crate::scenario::parse`], so it passes every check a file from a trainer
//! passes.

use std::fmt::Write as _;
use std::time::Duration;

use super::calculation::human_delays;
use super::magnitude::Span;
use super::schedule::{Jitter, Schedule};
use super::stack::{HumanPath, Layer, Stack};
use crate::scenario::{MAX_TICKS, Scenario, values};
use crate::sim::money::Cents;
use crate::sim::time::{ClockStyle, Instant};
use crate::sim::{SimConfig, config};

/// The name the built scenario carries (in messages and the share line).
pub const SCENARIO_NAME: &str = "your-stack";

/// The same generous estimate of ticks per attempt that the scenario checker
/// uses to refuse a configuration before simulating it.
const TICKS_PER_ATTEMPT: u128 = crate::scenario::TICKS_PER_ATTEMPT as u128;

/// How many attempts, over every run, the replay can show.
pub const MAX_REPLAY_ATTEMPTS: u128 = MAX_TICKS as u128 / TICKS_PER_ATTEMPT;

/// How long the replay's checkout waits for each answer when the stack does
/// not say: the simulator's own default.
pub const REPLAY_TIMEOUT: Duration = Duration::from_secs(30);

/// The simulator's largest backoff multiplier.
const MAX_MULTIPLIER: f64 = 100.0;

/// What a replay built from a stack buys, and the world it buys it in.
#[derive(Debug, Clone, PartialEq)]
pub struct Purchase {
    /// The order id.
    pub order: String,
    /// The idempotency key minted with the order.
    pub key: String,
    /// What the customer pays.
    pub amount: Cents,
    /// What is in the basket.
    pub items: Vec<String>,
    /// When the customer presses Pay.
    pub at: Instant,
    /// Whether the times name weekdays ("Fri 18:00:00").
    pub weekdays: bool,
    /// The name on the card statement.
    pub merchant: String,
    /// One-way network latency, in milliseconds.
    pub latency_ms: u64,
}

impl Default for Purchase {
    /// The essay's order 5531: $48.60 at 14:02:07, key K7Q4.
    fn default() -> Self {
        Self {
            order: "5531".to_owned(),
            key: "K7Q4".to_owned(),
            amount: Cents(4860),
            items: vec!["2 × notebook".to_owned(), "fountain pen".to_owned()],
            at: Instant(14 * 3_600_000 + 2 * 60_000 + 7_000),
            weekdays: false,
            merchant: "INKWELL STATIONERY".to_owned(),
            latency_ms: 50,
        }
    }
}

impl Purchase {
    /// The first purchase of a scenario, in that scenario's world.
    pub fn of_scenario(cfg: &SimConfig) -> Self {
        let Some(intent) = cfg.intents.first() else {
            return Self::default();
        };
        Self {
            order: intent.order.to_string(),
            key: intent.key.to_string(),
            amount: intent.amount,
            items: intent.items.clone(),
            at: intent.at,
            weekdays: cfg.clock == ClockStyle::Weekday,
            merchant: cfg.merchant.clone(),
            latency_ms: cfg.latency_ms,
        }
    }

    /// The time of Pay as a scenario writes it.
    fn at_text(&self) -> String {
        let style = if self.weekdays {
            ClockStyle::Weekday
        } else if self.at.day() > 0 {
            ClockStyle::DayNumber
        } else {
            ClockStyle::TimeOfDay
        };
        style.format(self.at)
    }
}

/// Builds a replayable scenario from `stack` buying order 5531 (see
/// [`replay_scenario`]).
pub fn scenario_from_stack(stack: &Stack) -> Result<Scenario, String> {
    replay_scenario(stack, &Purchase::default())
}

/// One layer of the checkout as the simulator is configured.
struct EngineLayer {
    name: String,
    attempts: u64,
    timeout: Option<Duration>,
    backoff: Duration,
    multiplier: f64,
    cap: Option<Duration>,
}

/// The checkout's layers for the simulator: each layer's deadline becomes a
/// deadline on the attempts of the layer outside it (or a layer of its own,
/// of one attempt, around the outermost), and its waits the simulator's
/// backoff. Also says which layers' waits had to be evened out.
fn engine_layers(stack: &Stack) -> Result<(Vec<EngineLayer>, Vec<String>), String> {
    let mut out = Vec::new();
    let mut evened = Vec::new();
    for (i, layer) in stack.layers.iter().enumerate() {
        if layer.forever {
            return Err(format!(
                "The {} layer retries without a limit, which the replay cannot show: give it \
                 a number of attempts.",
                layer.name
            ));
        }
        let retries = layer.attempts.saturating_sub(1);
        let worst = layer.worst_schedule();
        let (backoff, multiplier, cap) = match worst
            .as_backoff(retries)
            .filter(|(_, m, _)| *m <= MAX_MULTIPLIER)
        {
            Some(b) => b,
            None => {
                evened.push(layer.name.clone());
                (even_wait(&worst, retries), 1.0, None)
            }
        };
        let timeout = if i == 0 {
            layer.timeout
        } else {
            let inner_deadline = stack.layers[i - 1].deadline;
            match (layer.timeout, inner_deadline) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        };
        out.push(EngineLayer {
            name: layer.name.clone(),
            attempts: layer.attempts,
            timeout,
            backoff,
            multiplier,
            cap,
        });
    }
    if let Some(outer) = stack.layers.last()
        && let Some(deadline) = outer.deadline
    {
        out.push(EngineLayer {
            name: format!("{} deadline", outer.name),
            attempts: 1,
            timeout: Some(deadline),
            backoff: Duration::ZERO,
            multiplier: 1.0,
            cap: None,
        });
    }
    Ok((out, evened))
}

/// One wait that adds up to the same total over `retries` as `schedule`
/// (to the millisecond below): the simulator has one growth rule, and a
/// polynomial or an irregular list is not one of its kind.
fn even_wait(schedule: &Schedule, retries: u64) -> Duration {
    if retries == 0 {
        return schedule.first();
    }
    let total = schedule.total(retries).as_nanos().unwrap_or(u128::MAX);
    let each = total / u128::from(retries);
    Duration::from_millis(u64::try_from(each / 1_000_000).unwrap_or(u64::MAX))
}

/// The stack the replay plays: `stack` with the innermost layer waiting
/// [`REPLAY_TIMEOUT`] for its answers when it gives no timeout.
pub fn replay_stack(stack: &Stack) -> Stack {
    let mut replayed = stack.clone();
    if replayed.layers.is_empty() {
        replayed
            .layers
            .push(Layer::new("checkout", Duration::ZERO, 1).with_timeout(REPLAY_TIMEOUT));
    }
    if let Some(first) = replayed.layers.first_mut()
        && first.timeout.is_none()
    {
        first.timeout = Some(REPLAY_TIMEOUT);
    }
    replayed
}

/// Builds a replayable scenario from `stack`, buying `purchase`: the stack's
/// layers, every answer lost but those of the last person's rerun, keys kept
/// for the stack's window, and one `[[human]]` rerun per human path, each
/// starting at its delay (see the module docs).
///
/// Refuses, with a sentence a person can act on, a stack the engine cannot
/// replay: too many attempts over every run, a duration finer than a
/// millisecond or longer than about 30 years, a zero window, a human path
/// that would start before the run before it has given up, a try shorter
/// than a round trip to the processor.
pub fn replay_scenario(stack: &Stack, purchase: &Purchase) -> Result<Scenario, String> {
    let replayed = replay_stack(stack);
    let report = replayed.report().map_err(|e| e.to_string())?;
    let runs = 1 + stack.paths.len() as u128;
    let per_run = report
        .attempts
        .exact()
        .filter(|&n| n <= MAX_REPLAY_ATTEMPTS);
    let total = per_run.and_then(|n| n.checked_mul(runs));
    if !matches!(total, Some(total) if total <= MAX_REPLAY_ATTEMPTS) {
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
    let source = scenario_toml(&replayed, stack, purchase, &report)?;
    crate::scenario::parse(SCENARIO_NAME, SCENARIO_NAME, &source)
        .map_err(|e| format!("The stack cannot be replayed: {}", e.one_line()))
}

/// The replay's people hear the answer to their rerun's first request; that
/// needs every try to outlast a round trip (the request, the processor's
/// work, the answer). A stack whose tries are shorter never hears anything,
/// so a person's rerun would go on retrying like the automatic run: the
/// calculator does not count that, and the replay refuses it.
fn check_round_trip(
    layers: &[EngineLayer],
    stack: &Stack,
    purchase: &Purchase,
) -> Result<(), String> {
    let latency = Duration::from_millis(purchase.latency_ms);
    let round_trip = latency.saturating_mul(2).saturating_add(stack.processing);
    let shortest = layers
        .iter()
        .filter_map(|l| l.timeout.map(|t| (t, &l.name)))
        .min_by_key(|(t, _)| *t);
    match shortest {
        Some((t, name)) if t <= round_trip => Err(format!(
            "The {name} layer allows {} per try, no longer than a round trip to the processor \
             ({} there and back, {} of work): no answer could ever be heard, not even by a \
             person rerunning the payment. Give it more time.",
            Span::from_duration(t),
            Span::from_duration(latency.saturating_mul(2)),
            Span::from_duration(stack.processing)
        )),
        _ => Ok(()),
    }
}

/// Each human path's `after` for the engine, in the order the engine runs
/// them: a path starts once the run before it has given up.
fn chained_paths(stack: &Stack, gives_up: Span) -> Result<Vec<(HumanPath, Duration)>, String> {
    let starts = human_delays(stack, gives_up);
    let mut order: Vec<usize> = (0..stack.paths.len()).collect();
    order.sort_by(|&a, &b| starts[a].cmp(&starts[b]));
    let mut ready = gives_up;
    let mut out = Vec::new();
    for i in order {
        let path = &stack.paths[i];
        let start = starts[i];
        let after = match (start.as_nanos(), ready.as_nanos()) {
            (Some(start), Some(ready)) if start > ready => start - ready,
            _ => {
                return Err(format!(
                    "The {} sends the payment again {} after the first request, before the \
                     run ahead of it has given up ({}): the replay starts a person's rerun only \
                     once the run before it is over. Lengthen its delay or remove it.",
                    path.name, start, ready
                ));
            }
        };
        let after = u64::try_from(after)
            .map(Duration::from_nanos)
            .map_err(|_| format!("The delay of {} is too long to replay.", path.name))?;
        out.push((path.clone(), after));
        ready = start.plus(gives_up);
    }
    Ok(out)
}

/// Writes the scenario file for a stack already checked for size.
fn scenario_toml(
    replayed: &Stack,
    stack: &Stack,
    purchase: &Purchase,
    report: &super::Report,
) -> Result<String, String> {
    let (layers, evened) = engine_layers(replayed)?;
    check_round_trip(&layers, stack, purchase)?;
    let paths = chained_paths(replayed, report.gives_up)?;
    let sends = report.sends.exact().unwrap_or(u128::MAX);
    let window = report.window;

    let mut out = String::new();
    let title = format!(
        "Your retry stack: {} attempts, a {window} window",
        super::group_digits(sends)
    );
    let _ = writeln!(out, "title = {}", quoted(&title));
    let description = describe(stack, replayed, report, &evened);
    let _ = writeln!(out, "description = {}", quoted(&description));
    let _ = writeln!(out, "seed = 1\ndesign = \"with-charge\"");
    let _ = writeln!(out, "merchant = {}", quoted(&purchase.merchant));

    for layer in &layers {
        let which = |what: &str| format!("the {what} of the {} layer", layer.name);
        let _ = write!(
            out,
            "\n[[checkout.layer]]\nname = {}\nattempts = {}\n",
            quoted(&layer.name),
            layer.attempts
        );
        if let Some(timeout) = layer.timeout {
            let timeout = duration_text(timeout, &which("timeout"))?;
            let _ = writeln!(out, "timeout = {}", quoted(&timeout));
        }
        let backoff = duration_text(layer.backoff, &which("backoff"))?;
        let _ = writeln!(
            out,
            "backoff = {}\nmultiplier = {:?}",
            quoted(&backoff),
            layer.multiplier
        );
        if let Some(cap) = layer.cap {
            let cap = duration_text(cap, &which("longest wait"))?;
            let _ = writeln!(out, "cap = {}", quoted(&cap));
        }
    }

    if stack.window.is_zero() {
        return Err("The window is zero: keys must be kept for some time.".to_owned());
    }
    let retention = duration_text(stack.window, "the window")?;
    let processing = duration_text(stack.processing, "the processing time")?;
    let latency = duration_text(Duration::from_millis(purchase.latency_ms), "the latency")?;
    let _ = writeln!(
        out,
        "\n[network]\nlatency = {}\n\n[processor]\nretention = {}\nprocessing = {}",
        quoted(&latency),
        quoted(&retention),
        quoted(&processing)
    );

    let items: Vec<String> = purchase.items.iter().map(|i| quoted(i)).collect();
    let _ = writeln!(
        out,
        "\n[[intent]]\norder = {}\nkey = {}\namount = {}\nitems = [{}]\nat = {}",
        quoted(&purchase.order),
        quoted(&purchase.key),
        quoted(&purchase.amount.to_string()),
        items.join(", "),
        quoted(&purchase.at_text())
    );

    // Every run but a person's last rerun hears nothing.
    let silent_runs = paths.len().max(1) as u128;
    for attempt in 1..=sends.saturating_mul(silent_runs) {
        let _ = writeln!(out, "\n[[fault]]\nattempt = {attempt}\nlose = \"reply\"");
    }

    for (path, after) in &paths {
        let which = format!("the delay of {}", path.name);
        let after = duration_text(*after, &which)?;
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
fn describe(stack: &Stack, replayed: &Stack, report: &super::Report, evened: &[String]) -> String {
    let layers = if stack.layers.is_empty() {
        "a checkout that never retries".to_owned()
    } else {
        let parts: Vec<String> = stack
            .layers
            .iter()
            .map(|l| {
                let jitter = if l.jitter == Jitter::None {
                    String::new()
                } else {
                    ", waits at their longest".to_owned()
                };
                format!(
                    "{} ({} × {}{jitter})",
                    l.name,
                    l.attempts,
                    l.schedule.describe()
                )
            })
            .collect();
        parts.join(" inside ")
    };
    let mut text = format!(
        "Built from the retry-window calculator: {layers}. Every answer is lost, so the \
         checkout spends its whole budget without hearing back: {} requests, the last one \
         {} after the first, and it gives up after {}. The processor keeps keys for {}.",
        report.sends, report.automatic_delay, report.gives_up, report.window
    );
    let timed_out = stack.layers.first().is_none_or(|l| l.timeout.is_none());
    if timed_out && let Some(first) = replayed.layers.first() {
        let _ = write!(
            text,
            " The stack gives no timeout, so the {} layer waits {} for each answer here, \
             as a checkout does; those figures count that wait.",
            first.name,
            Span::from_duration(REPLAY_TIMEOUT)
        );
    }
    if !evened.is_empty() {
        let _ = write!(
            text,
            " The simulator has one growth rule for waits, so the waits of {} are evened out \
             here: the same total, but each retry leaves at a slightly different moment than \
             the calculator says.",
            evened.join(" and ")
        );
    }
    if !stack.paths.is_empty() {
        let starts = human_delays(replayed, report.gives_up);
        let names: Vec<String> = replayed
            .paths
            .iter()
            .zip(&starts)
            .map(|(p, start)| format!("{} {} after the first request", p.name, start))
            .collect();
        let _ = write!(
            text,
            " Then people take over, one after the other, each once the run before gave up \
             without an answer: {}. The last rerun is answered.",
            names.join(", then ")
        );
    }
    text
}

/// The retry stack a scenario's checkout is configured with: its layers, the
/// human paths of its first purchase and its retention window (the `w` key
/// opens the calculator on the scenario in the replay). A human path's
/// `after` counts from the give-up of the run before it, as the engine does.
pub fn stack_from_config(cfg: &SimConfig) -> Stack {
    Stack {
        layers: cfg
            .layers
            .iter()
            .enumerate()
            .map(|(i, l)| {
                layer_from_config(
                    l,
                    if i == 0 {
                        Some(cfg.timeout_ms)
                    } else {
                        l.deadline_ms
                    },
                )
            })
            .collect(),
        paths: cfg
            .reruns
            .iter()
            .filter(|p| p.intent.is_none_or(|i| i == 0))
            .map(|p| HumanPath::after_give_up(p.name.clone(), Duration::from_millis(p.after_ms)))
            .collect(),
        window: Duration::from_millis(cfg.retention_ms),
        processing: Duration::from_millis(cfg.processing_ms),
        ..Stack::default()
    }
}

/// One of the checkout's layers as the calculator sees it.
fn layer_from_config(l: &config::LayerConfig, timeout_ms: Option<u64>) -> Layer {
    let b = &l.backoff;
    let ms = Duration::from_millis;
    let schedule = if b.multiplier <= 1.0 {
        // The simulator still caps a wait that does not grow.
        Schedule::Constant(ms(b.cap_ms.map_or(b.initial_ms, |c| c.min(b.initial_ms))))
    } else {
        Schedule::Exponential {
            initial: ms(b.initial_ms),
            multiplier: b.multiplier,
            cap: b.cap_ms.map(ms),
        }
    };
    let mut layer = Layer::new(l.name.clone(), Duration::ZERO, u64::from(l.attempts));
    layer.schedule = schedule;
    layer.jitter = match b.jitter {
        config::Jitter::None => Jitter::None,
        config::Jitter::Full => Jitter::Full,
        config::Jitter::Equal => Jitter::Equal,
        config::Jitter::Decorrelated => Jitter::Decorrelated,
    };
    layer.timeout = timeout_ms.map(ms);
    layer
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
