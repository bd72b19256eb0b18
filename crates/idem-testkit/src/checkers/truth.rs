//! Rules every narration must keep, whatever the scenario and design: a sentence may not
//! claim about the future what a later tick contradicts, and words about one order hold only
//! that order's facts. Shared by the built-in sweep and the random-scenario property test.

use idem::sim::{TickKind, Trace};
use idem::story::Told;

/// Phrases that state a future as fact without the run having settled it.
const UNSETTLED: &[&str] = &[
    "will never",
    "would have left",
    "never be finished",
    "instead of charging again",
];

/// Where `word` stands whole in `text` (so `ch_1` is not found in `ch_12`).
fn names(text: &str, word: &str) -> bool {
    let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
    text.match_indices(word).any(|(i, _)| {
        boundary(text[..i].chars().next_back()) && boundary(text[i + word.len()..].chars().next())
    })
}

/// The word that follows `marker` in `text`, up to a space or full stop.
fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    let start = text.find(marker)? + marker.len();
    let rest = &text[start..];
    let end = rest.find([' ', '.', ',', ':', ')']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Every rule, checked on one trace; the error names the tick and the rule.
pub fn check(trace: &Trace, told: &Told) -> Result<(), String> {
    let d = trace.design;
    let several = trace.outcome.intents.len() > 1;
    for (i, tick) in trace.ticks.iter().enumerate() {
        let (n, label) = (&told.narrations[i], &told.labels[i]);
        let at = || format!("{d}, tick {i} `{label}`: {n}");
        for phrase in UNSETTLED {
            if n.contains(phrase) {
                return Err(format!("an unsettled claim ({phrase:?}) at {}", at()));
            }
        }
        let later_reads = |id: &str| {
            (i + 1..trace.ticks.len())
                .any(|j| trace.ticks[j].kind == TickKind::Answer && names(&told.labels[j], id))
        };
        if let Some(id) = after(n, "never reads an answer that names ")
            && later_reads(id)
        {
            return Err(format!(
                "says the checkout never hears of {id}, yet it does later: {}",
                at()
            ));
        }
        for marker in ["learns of ", "hears of "] {
            if let Some(id) = after(n, marker)
                && n.contains("only")
                && !later_reads(id)
            {
                return Err(format!(
                    "says the checkout hears of {id} later, yet it never does: {}",
                    at()
                ));
            }
        }
        // A key called new has not been evicted before; one called forgotten has.
        if let Some(pos) = n.find(" is new, so") {
            let key = n[..pos].rsplit(' ').next().unwrap_or_default();
            let evicted = (0..i).any(|j| {
                trace.ticks[j].kind == TickKind::Expire
                    && told.labels[j] == format!("{key} expires")
            });
            if evicted {
                return Err(format!("calls the evicted key {key} new: {}", at()));
            }
        }
        // In a story of several orders, an attempt's number comes with its order.
        if several
            && let (Some(intent), Some(_)) = (tick.intent, tick.attempt)
            && label.contains('#')
        {
            let order = &trace.outcome.intents[intent].id;
            if !names(label, order) {
                return Err(format!("the label does not say which order: {}", at()));
            }
        }
        // A replay read as "answered from memory with ch_N" is that order's own charge.
        if let Some(id) = after(n, "answered from memory with ") {
            let owner = tick
                .state
                .ledger()
                .iter()
                .find(|c| c.id == id)
                .map(|c| c.intent);
            if owner != tick.intent {
                return Err(format!(
                    "calls another order's charge {id} this order's own: {}",
                    at()
                ));
            }
        }
        // A refund names a charge of this order, refunded at this tick and never before, and
        // the amount the ledger holds for it.
        if let Some(id) = after(label, "refunds ") {
            let now = tick.state.refunds().iter().find(|r| r.charge == id);
            let charge = tick.state.ledger().iter().find(|c| c.id == id);
            let before = i
                .checked_sub(1)
                .map_or(0, |j| trace.ticks[j].state.refunds().len());
            match (now, charge) {
                (Some(r), Some(c))
                    if c.intent == r.intent
                        && Some(r.intent) == tick.intent
                        && before + 1 == tick.state.refunds().len()
                        && n.contains(&format!("refund −{}", c.amount)) => {}
                _ => return Err(format!("a refund the state does not bear out: {}", at())),
            }
        }
        // The net the statement gives is charged less refunded.
        if tick.kind == TickKind::Statement
            && n.contains("net $")
            && !n.contains(&format!("net {}.", tick.state.net_total()))
        {
            return Err(format!("the statement's net is not the ledger's: {}", at()));
        }
    }
    Ok(())
}
