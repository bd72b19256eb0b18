//! The claim checker: decides every claim a story makes true or false from the trace alone.
//! It shares no code with the story that makes the claims (nothing from `idem::story` but the
//! claim type itself), so a sentence that is wrong in a combination nobody wrote a test for
//! shows up as a false claim here.

use idem::sim::Trace;
use idem::sim::fact::{Fact, LookupAnswer};
use idem::sim::state::{ChargeId, EntryKind, EntryStatus};
use idem::story::{Claim, Told, Via};

/// The charge an answer the checkout read at tick `i` names, and how it read it.
fn read_at(trace: &Trace, i: usize) -> Option<(ChargeId, Via)> {
    match &trace.ticks[i].fact {
        Fact::Read { reply, .. } => trace.replies[*reply]
            .response
            .charge
            .map(|c| (c, Via::Answer)),
        Fact::LookedUp { lookup, .. } => match &trace.lookups[*lookup].answer {
            Some(LookupAnswer::Found { response }) => response.charge.map(|c| (c, Via::Lookup)),
            _ => None,
        },
        _ => None,
    }
}

/// The first tick at which the checkout reads an answer naming `charge`.
fn first_heard(trace: &Trace, charge: ChargeId) -> Option<(usize, Via)> {
    (0..trace.ticks.len()).find_map(|i| match read_at(trace, i) {
        Some((c, via)) if c == charge => Some((i, via)),
        _ => None,
    })
}

/// Whether some request with `key` is under way at tick `at`: taken on at or before it, with
/// no answer, error or crash between.
fn under_way(trace: &Trace, key: &str, at: usize) -> bool {
    let keyed = |req: usize| trace.requests[req].key.as_deref() == Some(key);
    (0..=at).any(|start| match &trace.ticks[start].fact {
        Fact::Takes { req, .. } if keyed(*req) => !trace.ticks[start + 1..=at].iter().any(|t| {
            matches!(t.fact, Fact::Crash { .. })
                || matches!(&t.fact, Fact::Replied { req: r, .. } | Fact::HandlerError { req: r, .. } if r == req)
        }),
        _ => false,
    })
}

/// Whether `claim` is true of `trace`; the error says why not.
pub fn holds(trace: &Trace, claim: &Claim) -> Result<(), String> {
    let ok = |b: bool, why: &str| if b { Ok(()) } else { Err(why.to_string()) };
    match claim {
        Claim::HearsLater { charge, after, via } => match first_heard(trace, *charge) {
            Some((at, how)) if at > *after && how == *via => Ok(()),
            Some((at, how)) => Err(format!("first heard at tick {at} by {how:?}")),
            None => Err("never heard".into()),
        },
        Claim::HeardBefore { charge, by } => ok(
            first_heard(trace, *charge).is_some_and(|(at, _)| at < *by),
            "not heard before",
        ),
        Claim::NeverHears { charge } => ok(first_heard(trace, *charge).is_none(), "it is heard"),
        Claim::ChargeMade { charge } => {
            let last = trace.ticks.last().ok_or("no ticks")?;
            ok(
                last.state.ledger().iter().any(|c| c.id == *charge),
                "no such charge in the ledger",
            )
        }
        Claim::AttemptCharged { req } | Claim::AttemptNotCharged { req } => {
            let r = &trace.requests[*req];
            let last = trace.ticks.last().ok_or("no ticks")?;
            let charged = last
                .state
                .ledger()
                .iter()
                .any(|c| c.intent == r.intent && c.attempt == r.attempt);
            let want = matches!(claim, Claim::AttemptCharged { .. });
            ok(charged == want, &format!("attempt #{} charged: {charged}", r.attempt))
        }
        Claim::NextIsRetry { intent, after } | Claim::NextIsLookup { intent, after } => {
            let next = trace.ticks[after + 1..].iter().find_map(|t| match &t.fact {
                Fact::Send { req } if trace.requests[*req].intent == *intent => Some(false),
                Fact::LookupSent { lookup } if trace.lookups[*lookup].intent == *intent => {
                    Some(true)
                }
                _ => None,
            });
            let want_lookup = matches!(claim, Claim::NextIsLookup { .. });
            ok(next == Some(want_lookup), &format!("what comes next is {next:?}"))
        }
        Claim::Working { key, at } => ok(under_way(trace, key, *at), "no work under way"),
        Claim::NotWorking { key, at } => ok(!under_way(trace, key, *at), "work is under way"),
        Claim::GoesToCard { req, at } => {
            // It reaches the card, or a crash stops the processor while it is still at work.
            let mut reached = false;
            for t in &trace.ticks[*at..] {
                match &t.fact {
                    Fact::Charged { req: r, .. } | Fact::OneWrite { req: r, .. } if r == req => {
                        reached = true;
                        break;
                    }
                    Fact::HandlerError { req: r, after, .. } if r == req => {
                        reached = *after != idem::sim::config::FailPoint::Receive;
                        break;
                    }
                    Fact::Replied { req: r, .. } if r == req => break,
                    Fact::Crash { .. } => {
                        reached = true;
                        break;
                    }
                    _ => {}
                }
            }
            ok(reached, "the request never reaches the card")
        }
        Claim::FailsBeforeCard { req } => ok(
            trace.ticks.iter().any(|t| {
                matches!(t.fact, Fact::HandlerError { req: r, after: idem::sim::config::FailPoint::Receive, .. } if r == *req)
            }) && !trace.ticks.iter().any(|t| {
                matches!(t.fact, Fact::Charged { req: r, .. } | Fact::OneWrite { req: r, .. } if r == *req)
            }),
            "the handler does not fail before the card",
        ),
        Claim::Overwrites { key, at, charge, .. } => {
            let before = &trace.ticks[at - 1].state.memory;
            ok(
                before.iter().any(|e| {
                    e.kind == EntryKind::Record
                        && e.key == *key
                        && e.status == EntryStatus::Completed
                        && e.response.and_then(|r| r.charge) == *charge
                }),
                "no completed record stood there",
            )
        }
        Claim::CompletesInProgress { key, at } => ok(
            trace.ticks[at - 1].state.memory.iter().any(|e| {
                e.kind == EntryKind::Record && e.key == *key && e.status == EntryStatus::InProgress
            }),
            "the record was not in progress",
        ),
        Claim::NotRemembered { key, at } => {
            let t = &trace.ticks[at.saturating_sub(1)];
            let now = trace.ticks[*at].at;
            ok(
                !t.state.memory.iter().any(|e| {
                    &*e.key == key.as_str()
                        && e.expires_at.is_none_or(|x| x > now)
                        && !(e.status == EntryStatus::InProgress && e.kind == EntryKind::KeyRecord)
                }),
                "the key is remembered",
            )
        }
        Claim::Holds { at, n } => {
            let t = &trace.ticks[*at];
            let live = t
                .state
                .memory
                .iter()
                .filter(|e| e.expires_at.is_none_or(|x| x > t.at))
                .count();
            ok(live == *n, &format!("it holds {live}"))
        }
        Claim::EveryRetryNewKey { intent } => {
            let mut seen: Vec<Option<&str>> = Vec::new();
            for r in trace.requests.iter().filter(|r| r.intent == *intent && r.copy == 0) {
                let k = r.key.as_deref();
                if k.is_none() || seen.contains(&k) {
                    return Err(format!("attempt #{} carries {k:?} again", r.attempt));
                }
                seen.push(k);
            }
            Ok(())
        }
    }
}

/// Every claim of every sentence of `told`, checked; the error names the tick, the sentence
/// and what is false about it.
pub fn check(trace: &Trace, told: &Told) -> Result<usize, String> {
    let mut n = 0;
    for (i, sentences) in told.sentences.iter().enumerate() {
        for s in sentences {
            for claim in &s.claims {
                n += 1;
                if let Err(why) = holds(trace, claim) {
                    return Err(format!(
                        "{}: tick {i} `{}`: the sentence {:?} claims {claim:?}, which is false: {why}",
                        trace.design, told.labels[i], s.text
                    ));
                }
            }
        }
    }
    Ok(n)
}

/// No hindsight is shown on or before a tick where a question waits: `questions` are the
/// ticks that stop for one.
pub fn no_hindsight_before(told: &Told, questions: &[usize]) -> Result<(), String> {
    let Some(&last) = questions.iter().max() else {
        return Ok(());
    };
    for (i, sentences) in told.sentences.iter().enumerate().take(last + 1) {
        for s in sentences.iter().filter(|s| s.hindsight()) {
            if told.narrations[i].contains(s.text.trim()) {
                return Err(format!(
                    "tick {i} `{}` tells {:?} before the question at tick {last}",
                    told.labels[i], s.text
                ));
            }
        }
    }
    Ok(())
}

/// The counters' identities, on every tick: the store holds what was stored less what was
/// evicted; dedupe hits are replays and lookups that found a stored answer; refusals are the
/// 400s the processor gave.
pub fn counters_add_up(trace: &Trace) -> Result<(), String> {
    let (mut replays, mut found, mut refusals) = (0u32, 0u32, 0u32);
    for (i, t) in trace.ticks.iter().enumerate() {
        match &t.fact {
            Fact::Replayed { .. } => replays += 1,
            Fact::Refused { .. } => refusals += 1,
            Fact::LookupAnswered { lookup } => {
                if matches!(
                    trace.lookups[*lookup].answer,
                    Some(idem::sim::fact::LookupAnswer::Found { .. })
                ) {
                    found += 1;
                }
            }
            _ => {}
        }
        let c = &t.state.counters;
        let at = || format!("{}, tick {i} ({:?})", trace.design, t.fact);
        let held = t.state.memory.len() as u32;
        if c.keys_stored.checked_sub(c.keys_evicted) != Some(held) {
            return Err(format!(
                "stored {} · evicted {} · holds {held} at {}",
                c.keys_stored,
                c.keys_evicted,
                at()
            ));
        }
        if c.dedupe_hits != replays + found {
            return Err(format!(
                "{} dedupe hits, but {replays} replays and {found} found lookups at {}",
                c.dedupe_hits,
                at()
            ));
        }
        if c.refusals_400 != refusals {
            return Err(format!(
                "{} refusals counted, {refusals} told, at {}",
                c.refusals_400,
                at()
            ));
        }
    }
    Ok(())
}

/// Two ticks share a label only when they are the same kind of fact about the same service,
/// so a `label` in a quiz or a narration reaches the tick it means: the payment's timeout, the
/// mailer's and the courier's each have their own.
pub fn labels_name_one_thing(trace: &Trace, labels: &[String]) -> Result<(), String> {
    let service = |f: &Fact| match f {
        Fact::CallSent { call }
        | Fact::CallLost { call, .. }
        | Fact::CallDelayed { call, .. }
        | Fact::CallDone { call }
        | Fact::CallReplayed { call }
        | Fact::CallReplied { call }
        | Fact::CallRead { call, .. }
        | Fact::CallLate { call }
        | Fact::CallTimedOut { call, .. } => Some(trace.calls[*call].service),
        _ => None,
    };
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, label) in labels.iter().enumerate() {
        if label.is_empty() {
            continue;
        }
        match seen.get(label.as_str()) {
            Some(&j) => {
                let (a, b) = (&trace.ticks[j].fact, &trace.ticks[i].fact);
                if std::mem::discriminant(a) != std::mem::discriminant(b)
                    || service(a) != service(b)
                {
                    return Err(format!(
                        "ticks {j} and {i} are both labelled `{label}`: {a:?} and {b:?}"
                    ));
                }
            }
            None => {
                seen.insert(label, i);
            }
        }
    }
    Ok(())
}
