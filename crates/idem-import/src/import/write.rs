//! The scenario an incident becomes: the checkout's retry layer as observed, one intent per
//! order, a fault for each attempt whose fate the records show (an answer lost, a request
//! lost, a slow service, an error, a decline), and `[[expect]]` blocks stating what really
//! happened. Every line says, in a comment, where it came from.

use crate::import::incident::{Attempt, Incident, Order};
use crate::import::model::{clock_of, date_of};
use idem_core::sim::Design;
use idem_core::text::sanitize_line;
use std::fmt::Write;

/// What the checkout believed at the end of an order, as `[[expect]] client` words it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Belief {
    Paid,
    Failed,
    Unknown,
}

impl Belief {
    pub fn id(self) -> &'static str {
        match self {
            Belief::Paid => "paid",
            Belief::Failed => "failed",
            Belief::Unknown => "unknown",
        }
    }
}

/// What really happened to one order, with where each fact came from.
#[derive(Clone, Debug)]
pub struct Facts {
    pub order: String,
    pub charges: Option<usize>,
    /// Whether `charges` is exact (a ledger) or a floor (charges named in answers).
    pub exact: bool,
    pub charges_from: String,
    pub money: Option<String>,
    pub belief: Belief,
    pub belief_from: String,
}

/// The facts of one order.
pub fn facts(inc: &Incident, o: &Order) -> Facts {
    let (charges, exact, charges_from) = match &o.ledger {
        Some(l) => (
            Some(l.len()),
            true,
            format!(
                "{} under key {} in the ledger {}",
                plural(l.len(), "charge"),
                o.key,
                inc.ledger_file.as_deref().unwrap_or("")
            ),
        ),
        None => {
            let named = o.charges_named();
            if named.is_empty() {
                (
                    None,
                    false,
                    "no charge is named in the records and no --ledger was given".to_string(),
                )
            } else {
                let ids: Vec<String> = named.iter().map(|c| sanitize_line(c)).collect();
                (
                    Some(named.len()),
                    false,
                    format!(
                        "the records name {} ({}); without --ledger this is the least there were",
                        plural(named.len(), "charge"),
                        ids.join(", ")
                    ),
                )
            }
        }
    };
    let money = o.ledger.as_ref().and_then(|l| {
        let cents: Option<Vec<u64>> = l
            .iter()
            .map(|c| c.amount.as_deref().and_then(cents_of))
            .collect();
        cents.map(|c| format!("${}", dollars(c.iter().sum())))
    });
    let (belief, belief_from) = match o.attempts.last() {
        None => (Belief::Unknown, "no attempt".to_string()),
        Some(a) => belief_of(a),
    };
    Facts {
        order: sanitize_line(o.id()),
        charges,
        exact,
        charges_from: sanitize_line(&charges_from),
        money,
        belief,
        belief_from: sanitize_line(&belief_from),
    }
}

fn belief_of(a: &Attempt) -> (Belief, String) {
    let (status, who, origin) = match (&a.client, &a.server) {
        (Some(c), _) => (c.status, "the checkout read", c.origin.clone()),
        (None, Some(s)) => (
            s.status,
            "the service answered (the checkout's side is not recorded)",
            s.origin.clone(),
        ),
        (None, None) => (None, "", String::new()),
    };
    match status {
        Some(s) if (200..300).contains(&s) => (
            Belief::Paid,
            format!("{who} {s} on the last attempt, {origin}"),
        ),
        Some(409) | None => (
            Belief::Unknown,
            format!("the last attempt heard no final answer, {origin}"),
        ),
        Some(s) if s >= 500 => (
            Belief::Unknown,
            format!("the last attempt was answered {s}, {origin}"),
        ),
        Some(s) => (
            Belief::Failed,
            format!("{who} {s} on the last attempt, {origin}"),
        ),
    }
}

fn plural(n: usize, w: &str) -> String {
    if n == 1 {
        format!("1 {w}")
    } else {
        format!("{n} {w}s")
    }
}

/// Cents of an amount as records write it: `$48.60`, `48.60`, `48.6`, `1,250.00`.
pub fn cents_of(text: &str) -> Option<u64> {
    let t = text.trim().trim_start_matches('$').replace(',', "");
    let (whole, frac) = match t.split_once('.') {
        Some((w, f)) => (w.to_string(), f.to_string()),
        None => (t.clone(), String::new()),
    };
    if whole.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 2
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let w: u64 = whole.parse().ok()?;
    let f: u64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<2}").parse().ok()?
    };
    w.checked_mul(100)?.checked_add(f)
}

fn dollars(cents: u64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// A TOML basic string, control characters taken out.
pub fn toml_string(text: &str) -> String {
    let clean = sanitize_line(text);
    let mut out = String::with_capacity(clean.len() + 2);
    out.push('"');
    for ch in clean.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A comment's text: one line, control characters taken out.
fn c(text: &str) -> String {
    sanitize_line(text)
}

fn ms(us: i64) -> i64 {
    (us + 500).div_euclid(1000)
}

/// The retry layer as the records show it.
#[derive(Clone, Debug)]
pub struct Layer {
    pub attempts: usize,
    pub attempts_from: String,
    pub timeout_ms: i64,
    pub timeout_from: String,
    pub backoff_ms: i64,
    pub backoff_from: String,
    pub multiplier: Option<f64>,
    pub latency_ms: i64,
    pub latency_from: String,
    pub processing_ms: i64,
    pub processing_from: String,
}

fn median(mut v: Vec<i64>) -> Option<i64> {
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

/// Works out the layer, the network's latency and the service's processing time.
pub fn layer(inc: &Incident, notes: &mut Vec<String>) -> Layer {
    let most = inc.orders.iter().max_by_key(|o| o.attempts.len());
    let attempts = most.map_or(1, |o| o.attempts.len()).max(1);
    let attempts_from = most.map_or(String::new(), |o| {
        format!(
            "the most attempts one order made: {} under key {}",
            o.attempts.len(),
            c(&o.key)
        )
    });
    // Attempts that heard nothing: their duration is the timeout.
    let mut unanswered: Vec<(i64, String)> = Vec::new();
    let mut answered: Vec<i64> = Vec::new();
    let mut pairs: Vec<i64> = Vec::new();
    let mut served: Option<(i64, String)> = None;
    for o in &inc.orders {
        for (i, a) in o.attempts.iter().enumerate() {
            if let Some(cl) = &a.client
                && let Some(d) = cl.duration_us().filter(|d| *d > 0)
            {
                if cl.status.is_none() && !cl.refused() {
                    // A recorder that saw the attempt fail early (a proxy that lost the
                    // answer) records less than the client waited: the next attempt's start
                    // bounds the wait from above, and is the better reading when far longer.
                    let next = o.attempts.get(i + 1).and_then(|n| n.client.as_ref());
                    match next.map(|n| n.start_us - cl.start_us) {
                        Some(gap) if gap > 2 * d => unanswered.push((
                            gap,
                            format!("{}, whose recorded {} ms is less than the wait until the next attempt left; the wait is taken, and the backoff cannot be told apart from it", cl.origin, ms(d)),
                        )),
                        _ => unanswered.push((d, cl.origin.clone())),
                    }
                } else if cl.status.is_some() {
                    answered.push(d);
                }
            }
            if let (Some(cl), Some(s)) = (&a.client, &a.server)
                && cl.status.is_some()
                && let (Some(cd), Some(sd)) = (cl.duration_us(), s.duration_us())
                && cd >= sd
            {
                pairs.push((cd - sd) / 2);
            }
            if served.is_none()
                && let Some(s) = &a.server
                && s.status.is_some()
                && let Some(d) = s.duration_us().filter(|d| *d >= 0)
            {
                served = Some((d, s.origin.clone()));
            }
        }
    }
    let gaps = arrival_gaps(inc);
    let (timeout_ms, timeout_from, server_only) = if let Some((d, origin)) =
        unanswered.iter().min_by_key(|u| u.0)
    {
        (
            ms(*d).max(1),
            format!("the shortest attempt that heard nothing, {}", c(origin)),
            false,
        )
    } else if inc.client_seen {
        let longest = answered.iter().copied().max().map_or(0, ms);
        let t = (2 * longest).max(30_000);
        (t, "no attempt timed out, so the timeout is not in the records: 30 s, or twice the slowest answer".to_string(), false)
    } else if let Some((g, origin)) = gaps.iter().min_by_key(|g| g.0) {
        (
            (*g).max(1),
            format!(
                "the records are the service's only: the shortest gap between two arrivals with one key, {}, taken as the client's timeout (its backoff cannot be told apart)",
                c(origin)
            ),
            true,
        )
    } else {
        (
            30_000,
            "one attempt, and no client record: 30 s, the usual default".to_string(),
            false,
        )
    };
    let (backoff_ms, backoff_from, multiplier) = if server_only {
        (
            0,
            "not told apart from the timeout in the service's records".to_string(),
            None,
        )
    } else {
        backoff(inc, timeout_ms, notes)
    };
    let (latency_ms, latency_from) = match median(pairs) {
        Some(l) => (ms(l).max(1), "half the difference between the client's and the server's durations of an answered attempt (the median)".to_string()),
        None => (50, "no attempt recorded on both sides: the default 50 ms".to_string()),
    };
    let (mut processing_ms, mut processing_from) = match served {
        Some((d, origin)) => (
            ms(d).max(1),
            format!("the first answer's time at the service, {}", c(&origin)),
        ),
        None => (
            200,
            "the service's side is not recorded: the default 200 ms".to_string(),
        ),
    };
    if processing_ms + 2 * latency_ms >= timeout_ms {
        processing_ms = (timeout_ms - 2 * latency_ms - 1).max(1);
        processing_from.push_str(&format!(
            ", cut to {processing_ms} ms so that an answer can come back within the timeout"
        ));
    }
    Layer {
        attempts,
        attempts_from,
        timeout_ms,
        timeout_from,
        backoff_ms,
        backoff_from,
        multiplier,
        latency_ms,
        latency_from,
        processing_ms,
        processing_from,
    }
}

/// The gaps between consecutive arrivals of one key at the service, in ms.
fn arrival_gaps(inc: &Incident) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    for o in &inc.orders {
        for w in o.attempts.windows(2) {
            if let (Some(a), Some(b)) = (&w[0].server, &w[1].server) {
                out.push((ms(b.start_us - a.start_us), b.origin.clone()));
            }
        }
    }
    out
}

fn backoff(inc: &Incident, timeout_ms: i64, notes: &mut Vec<String>) -> (i64, String, Option<f64>) {
    let mut best: Option<(Vec<i64>, String)> = None;
    for o in &inc.orders {
        let mut gaps = Vec::new();
        let mut from = String::new();
        for w in o.attempts.windows(2) {
            let (Some(a), Some(b)) = (&w[0].client, &w[1].client) else {
                continue;
            };
            let ended = match (a.status, a.end_us) {
                (Some(_), Some(e)) => e,
                (_, Some(e)) if a.refused() => e,
                _ => a.start_us + timeout_ms * 1000,
            };
            gaps.push(ms(b.start_us - ended).max(0));
            if from.is_empty() {
                from = format!(
                    "from the end of {} to the start of {}",
                    c(&a.origin),
                    c(&b.origin)
                );
            }
        }
        if best.as_ref().is_none_or(|(g, _)| g.len() < gaps.len()) && !gaps.is_empty() {
            best = Some((gaps, from));
        }
    }
    let Some((gaps, from)) = best else {
        return (
            1000,
            "no retry is recorded: the default 1 s".to_string(),
            None,
        );
    };
    let first = gaps[0];
    let mut multiplier = None;
    if gaps.len() >= 2 && first > 0 {
        let m = gaps[1] as f64 / first as f64;
        if m > 1.1 {
            multiplier = Some(((m * 100.0).round() / 100.0).clamp(1.0, 100.0));
        }
    }
    if gaps.len() >= 3 {
        let m = multiplier.unwrap_or(1.0);
        let predicted = (first as f64 * m * m).round() as i64;
        if (gaps[2] - predicted).abs() > predicted / 5 + 20 {
            notes.push(format!(
                "the waits between retries ({} ms) follow no fixed growth: jitter, or a retry library's own rounding; the scenario keeps the first wait and its growth, without jitter",
                gaps.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    (
        first,
        format!("the first wait between attempts, {from}"),
        multiplier,
    )
}

/// One fault a record shows, with why.
struct Fault {
    attempt: usize,
    line: String,
    why: String,
}

fn faults(inc: &Incident, o: &Order, layer: &Layer) -> Vec<Fault> {
    let mut out = Vec::new();
    let n = o.attempts.len();
    for (i, a) in o.attempts.iter().enumerate() {
        let attempt = i + 1;
        let mut add = |line: String, why: String| {
            out.push(Fault {
                attempt,
                line,
                why: c(&why),
            })
        };
        let origin = a.origin();
        match (&a.client, &a.server) {
            (Some(cl), server) if cl.status.is_some() => {
                let status = cl.status.unwrap_or(0);
                if status == 402 {
                    add("decline = true".into(), format!("answered 402, {origin}"));
                } else if status >= 500 {
                    let after = if server.as_ref().is_some_and(|s| s.charge.is_some()) {
                        "charge"
                    } else {
                        "receive"
                    };
                    add(
                        format!("fail_after = \"{after}\""),
                        format!("answered {status}, {origin}"),
                    );
                }
            }
            (Some(cl), Some(s)) => {
                // The client heard nothing, and the service did take the request.
                let sd = s.duration_us().map_or(0, ms);
                if s.status.is_some() && sd + 2 * layer.latency_ms < layer.timeout_ms {
                    add(
                        "lose = \"reply\"".into(),
                        format!(
                            "the service answered {} after {sd} ms, but the client heard nothing ({}): the answer was lost on the way back; {origin}",
                            s.status.unwrap_or(0),
                            cl.error.as_deref().unwrap_or("no answer")
                        ),
                    );
                } else if s.status.is_some() {
                    add(
                        format!("processing = \"{sd}ms\""),
                        format!(
                            "the service took {sd} ms, longer than the client waited: slow, not lost; {origin}"
                        ),
                    );
                } else {
                    add(
                        "lose = \"reply\"".into(),
                        format!(
                            "the service recorded the request but no answer, and the client heard nothing; {origin}"
                        ),
                    );
                }
            }
            (Some(cl), None) => {
                if cl.refused() {
                    add(
                        "lose = \"request\"".into(),
                        format!(
                            "refused ({}): nobody was listening, the service was down or restarting; {origin}",
                            cl.error.as_deref().unwrap_or("")
                        ),
                    );
                } else if inc.server_seen {
                    add(
                        "lose = \"request\"".into(),
                        format!(
                            "no server record answers this client attempt: the request never reached the service; {origin}"
                        ),
                    );
                } else {
                    add(
                        "lose = \"reply\"".into(),
                        format!(
                            "the client heard nothing and the service's side is not recorded: whether it arrived cannot be read, so the answer is taken as lost (the money may have moved); {origin}"
                        ),
                    );
                }
            }
            (None, Some(s)) => {
                let status = s.status.unwrap_or(0);
                let sd = s.duration_us().map_or(0, ms);
                if status == 402 {
                    add("decline = true".into(), format!("answered 402, {origin}"));
                } else if status >= 500 {
                    add(
                        "fail_after = \"receive\"".into(),
                        format!("answered {status}, {origin}"),
                    );
                } else if sd + 2 * layer.latency_ms >= layer.timeout_ms {
                    add(
                        format!("processing = \"{sd}ms\""),
                        format!(
                            "the service took {sd} ms, longer than the client waited; {origin}"
                        ),
                    );
                } else if attempt < n && status != 409 && status != 0 {
                    add(
                        "lose = \"reply\"".into(),
                        format!(
                            "answered {status}, yet the same key came again: the client never got this answer; {origin}"
                        ),
                    );
                }
            }
            (None, None) => {}
        }
    }
    restarts(o, &mut out);
    out
}

/// A refused attempt after one the service took: the service went down in between and came
/// back before the next attempt it answered. The records show that it was down, not the
/// instant it fell: the crash is placed right after the attempt before (after its answer,
/// when it answered), and the restart when the next attempt was taken.
fn restarts(o: &Order, out: &mut Vec<Fault>) {
    let refused = |a: &Attempt| {
        a.client
            .as_ref()
            .is_some_and(|c| c.status.is_none() && c.refused())
    };
    for i in 1..o.attempts.len() {
        let (before, now) = (&o.attempts[i - 1], &o.attempts[i]);
        if !refused(now) || refused(before) {
            continue;
        }
        let answered = before.server.as_ref().is_some_and(|s| s.status.is_some())
            || before.client.as_ref().is_some_and(|c| c.status.is_some());
        let down_from = before
            .server
            .as_ref()
            .and_then(|s| s.end_us)
            .or_else(|| before.client.as_ref().and_then(|c| c.end_us))
            .unwrap_or_else(|| before.start_us());
        let back = o.attempts[i..].iter().find(|a| !refused(a));
        let restart_ms = back.map_or(1000, |b| ms(b.start_us() - down_from).max(1));
        let point = if answered { "reply" } else { "receive" };
        let until = match back {
            Some(b) => format!("it took {} again", c(&b.origin())),
            None => "no later attempt was taken; 1 s is assumed".to_string(),
        };
        out.push(Fault {
            attempt: i,
            line: format!("crash_after = \"{point}\"\nrestart_after = \"{restart_ms}ms\""),
            why: c(&format!(
                "the next attempt was refused ({}), so the service went down after this one; the records do not say when, so the crash is placed right after its {point}, and the restart when {until}",
                now.origin()
            )),
        });
    }
}

/// The scenario file, commented line by line.
pub fn scenario(inc: &Incident, design: Option<Design>, command: &str) -> (String, Vec<Facts>) {
    let mut notes = inc.notes.clone();
    let layer = layer(inc, &mut notes);
    let facts: Vec<Facts> = inc.orders.iter().map(|o| facts(inc, o)).collect();
    let mut t = String::new();
    let first = inc
        .orders
        .first()
        .and_then(|o| o.attempts.first())
        .map_or(0, Attempt::start_us);
    let last = inc
        .orders
        .last()
        .and_then(|o| o.attempts.first())
        .map_or(0, Attempt::start_us);
    let days = date_of(first) != date_of(last);
    let _ = writeln!(t, "# Written by `{}`.", c(command));
    let _ = writeln!(
        t,
        "# Every line says where it came from. Times are UTC, on the client's clock where it was recorded."
    );
    for s in &inc.sources {
        let by = s
            .creator
            .as_ref()
            .map_or(String::new(), |w| format!(", written by {}", c(w)));
        let _ = writeln!(
            t,
            "# source: {} ({}{by}: {} records read, {} HTTP exchanges kept)",
            c(&s.file),
            s.format.name(),
            s.records,
            s.kept
        );
    }
    if let Some(l) = &inc.ledger_file {
        let _ = writeln!(t, "# ledger: {}", c(l));
    }
    if !notes.is_empty() {
        let _ = writeln!(t, "#\n# What the records leave out or in doubt:");
        for n in &notes {
            let _ = writeln!(t, "#   - {}", c(n));
        }
    }
    let title = if inc.orders.len() == 1 {
        format!("Imported incident: order {}", facts[0].order)
    } else {
        format!("Imported incident: {} orders", inc.orders.len())
    };
    let _ = writeln!(t, "\ntitle = {}", toml_string(&title));
    let mut description = format!(
        "Read by idem import from {} on {}.",
        inc.sources
            .iter()
            .map(|s| s.file.clone())
            .collect::<Vec<_>>()
            .join(", "),
        date_of(first)
    );
    for f in &facts {
        let charged = match f.charges {
            Some(n) if f.exact => plural(n, "charge"),
            Some(n) => format!("at least {}", plural(n, "charge")),
            None => "charges not known".to_string(),
        };
        let _ = write!(
            description,
            " Order {}: {charged}, the checkout believed {}.",
            f.order,
            f.belief.id()
        );
    }
    let _ = writeln!(t, "description = {}", toml_string(&description));
    let _ = writeln!(t, "seed = 0");
    match design {
        Some(d) => {
            let _ = writeln!(
                t,
                "design = \"{}\"  # given with --design: the records cannot say which design the service runs",
                d.id()
            );
        }
        None => {
            let _ = writeln!(
                t,
                "# No design chosen: the records cannot say which design the service runs. Name one with"
            );
            let _ = writeln!(
                t,
                "# --design, or run `idem import --which` to see which designs reproduce what happened."
            );
        }
    }
    let _ = writeln!(
        t,
        "\n[checkout]\nkey_strategy = \"per-intent\"  # every attempt of an order carried the same key (attempts are grouped by it)"
    );
    let _ = writeln!(t, "\n[[checkout.layer]]\nname = \"client\"");
    let _ = writeln!(
        t,
        "attempts = {}  # {}",
        layer.attempts, layer.attempts_from
    );
    let _ = writeln!(
        t,
        "timeout = \"{}ms\"  # {}",
        layer.timeout_ms, layer.timeout_from
    );
    let _ = writeln!(
        t,
        "backoff = \"{}ms\"  # {}",
        layer.backoff_ms,
        c(&layer.backoff_from)
    );
    if let Some(m) = layer.multiplier {
        let _ = writeln!(t, "multiplier = {m:.2}  # the second wait over the first");
    }
    let _ = writeln!(
        t,
        "\n[network]\nlatency = \"{}ms\"  # {}",
        layer.latency_ms, layer.latency_from
    );
    let _ = writeln!(
        t,
        "\n[processor]\nprocessing = \"{}ms\"  # {}",
        layer.processing_ms, layer.processing_from
    );
    for (o, f) in inc.orders.iter().zip(&facts) {
        let start = o.attempts.first().map_or(0, Attempt::start_us);
        let (weekday, clock) = clock_of(start);
        let at = if days {
            format!("{weekday} {clock}")
        } else {
            clock
        };
        let _ = writeln!(t, "\n[[intent]]");
        let order_from = if o.order.is_some() {
            "named in the records"
        } else {
            "the records name no order id: its key stands for it"
        };
        let _ = writeln!(t, "order = {}  # {order_from}", toml_string(o.id()));
        let _ = writeln!(
            t,
            "key = {}  # the Idempotency-Key every attempt carried",
            toml_string(&o.key)
        );
        match o.amount.as_deref().and_then(cents_of) {
            Some(cents) => {
                let _ = writeln!(t, "amount = \"${}\"  # from the records", dollars(cents));
            }
            None => {
                let _ = writeln!(
                    t,
                    "amount = \"$0.00\"  # the amount is not in the records (give --ledger, or edit it)"
                );
            }
        }
        let first_origin = o.attempts.first().map(Attempt::origin).unwrap_or_default();
        let _ = writeln!(
            t,
            "at = \"{at}\"  # the first attempt left, {}",
            c(&first_origin)
        );
        for (n, a) in o.attempts.iter().enumerate() {
            let _ = writeln!(t, "# attempt {}: {}", n + 1, c(&describe(a)));
        }
        let _ = writeln!(
            t,
            "# what really happened: {}; checkout believed {} ({})",
            f.charges_from,
            f.belief.id(),
            f.belief_from
        );
        if let Some(m) = &f.money {
            let _ = writeln!(t, "# money charged under this key: {m}");
        }
        for fault in faults(inc, o, &layer) {
            let _ = writeln!(t, "\n[[fault]]  # {}", fault.why);
            let _ = writeln!(
                t,
                "intent = {}\nattempt = {}\n{}",
                toml_string(o.id()),
                fault.attempt,
                fault.line
            );
        }
    }
    write_expect(&mut t, &facts, design);
    (t, facts)
}

/// The `[[expect]]` block: the charges and the checkout's belief, as the records show them.
fn write_expect(t: &mut String, facts: &[Facts], design: Option<Design>) {
    let total: Option<usize> = facts.iter().map(|f| f.charges).sum();
    let exact = facts.iter().all(|f| f.exact);
    let belief = facts
        .first()
        .map(|f| f.belief)
        .filter(|b| facts.iter().all(|f| f.belief == *b));
    let mut lines = Vec::new();
    match (total, exact) {
        (Some(n), true) => lines.push(format!("charges = {n}  # the ledger")),
        (Some(n), false) => lines.push(format!(
            "charges = {n}  # charges named in the records; give --ledger for the ledger's count"
        )),
        (None, _) => lines.push(
            "# charges: not known (no --ledger, and no charge named in the records)".to_string(),
        ),
    }
    match belief {
        Some(b) => lines.push(format!(
            "client = \"{}\"  # what the checkout's last answer told it",
            b.id()
        )),
        None => lines
            .push("# client: the orders ended differently; see each intent's comment".to_string()),
    }
    let _ = writeln!(
        t,
        "\n# What really happened. `idem check` says whether the design named here, simulated, reproduces it."
    );
    let checks = lines.iter().any(|l| !l.starts_with('#'));
    match design {
        Some(d) if checks => {
            let _ = writeln!(t, "[[expect]]\ndesign = \"{}\"", d.id());
            for l in lines {
                let _ = writeln!(t, "{l}");
            }
        }
        _ => {
            let _ = writeln!(
                t,
                "# [[expect]]  (no design chosen: name the one the service runs, then uncomment)"
            );
            let _ = writeln!(t, "# design = \"with-charge\"");
            for l in lines {
                let _ = writeln!(t, "# {}", l.trim_start_matches("# "));
            }
        }
    }
}

/// One attempt in words, for its comment.
fn describe(a: &Attempt) -> String {
    let side = |x: &crate::import::model::Exchange| {
        let d = x
            .duration_us()
            .map_or("no end".to_string(), |d| format!("{} ms", ms(d)));
        let what = match (x.status, &x.error) {
            (Some(s), _) => format!("answered {s}"),
            (None, Some(e)) => format!("no answer: {e}"),
            (None, None) => "no answer".to_string(),
        };
        let replayed = if x.replayed { ", marked replayed" } else { "" };
        format!("{what}{replayed}, {d}, {}", x.origin)
    };
    match (&a.client, &a.server) {
        (Some(cl), Some(s)) => format!("client {}; service {}", side(cl), side(s)),
        (Some(cl), None) => format!("client {}; no service record", side(cl)),
        (None, Some(s)) => format!("service {}", side(s)),
        (None, None) => String::new(),
    }
}
