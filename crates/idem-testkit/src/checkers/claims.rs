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
        Claim::Tells { at, fact } => {
            let tick = trace.ticks.get(*at).ok_or("no such tick")?;
            let kind = serde_json::to_value(&tick.fact)
                .ok()
                .and_then(|v| v.get("fact").and_then(|f| f.as_str()).map(str::to_string));
            ok(kind.as_deref() == Some(*fact), &format!("the tick is {kind:?}"))
        }
        Claim::HandedOver { intent, at, gave_up } => {
            let last = trace.ticks[..*at].iter().rev().find_map(|t| match &t.fact {
                Fact::GaveUp { hand_over: Some(_), .. } if t.intent == Some(*intent) => Some(true),
                Fact::Read { hand_over: Some(_), reply, .. }
                    if trace.requests[trace.replies[*reply].req].intent == *intent =>
                {
                    Some(false)
                }
                Fact::LookedUp { hand_over: Some(_), lookup, .. }
                    if trace.lookups[*lookup].intent == *intent =>
                {
                    Some(false)
                }
                _ => None,
            });
            ok(last == Some(*gave_up), &format!("the last run ended by a give-up: {last:?}"))
        }
        Claim::HearsLater { charge, after, via } => match first_heard(trace, *charge) {
            Some((at, how)) if at > *after && how == *via => Ok(()),
            Some((at, how)) => Err(format!("first heard at tick {at} by {how:?}")),
            None => Err("never heard".into()),
        },
        Claim::HeardBefore { charge, by } => ok(
            first_heard(trace, *charge).is_some_and(|(at, _)| at < *by),
            "not heard before",
        ),
        Claim::AttemptUnanswered { req } => {
            let r = &trace.requests[*req];
            let read = trace.ticks.iter().any(|t| match &t.fact {
                Fact::Read { reply, .. } => {
                    let o = &trace.requests[trace.replies[*reply].req];
                    o.intent == r.intent && o.attempt == r.attempt
                }
                _ => false,
            });
            ok(!read, "an answer to the attempt is read")
        }
        Claim::Refunded { charge, by } => ok(
            trace.ticks[*by].state.refunds().iter().any(|r| r.charge == *charge),
            "not refunded by then",
        ),
        Claim::NotHeardBy { charge, by } => ok(
            first_heard(trace, *charge).is_none_or(|(at, _)| at >= *by),
            "heard before",
        ),
        Claim::NeverHears { charge } => ok(first_heard(trace, *charge).is_none(), "it is heard"),
        Claim::ChargeMade { charge, by } => ok(
            trace.ticks[*by].state.ledger().iter().any(|c| c.id == *charge),
            "no such charge in the ledger by then",
        ),
        Claim::AttemptCharged { req, by } | Claim::AttemptNotCharged { req, by } => {
            let r = &trace.requests[*req];
            let charged = trace.ticks[*by]
                .state
                .ledger()
                .iter()
                .any(|c| c.intent == r.intent && c.attempt == r.attempt);
            let want = matches!(claim, Claim::AttemptCharged { .. });
            ok(charged == want, &format!("attempt #{} charged by then: {charged}", r.attempt))
        }
        Claim::NextIsRetry { intent, after, at } | Claim::NextIsLookup { intent, after, at } => {
            // The next thing of the order after the tick: a send, a lookup, or something that
            // breaks the wait off.
            let mine = |t: &idem::sim::Tick| t.intent == Some(*intent);
            let next = trace.ticks[after + 1..].iter().find_map(|t| match &t.fact {
                Fact::Send { req } if trace.requests[*req].intent == *intent => Some((t.at, "send")),
                Fact::LookupSent { lookup } if trace.lookups[*lookup].intent == *intent => {
                    Some((t.at, "lookup"))
                }
                Fact::Deadline { .. } | Fact::GaveUp { .. } | Fact::Rerun { .. } if mine(t) => {
                    Some((t.at, "a break"))
                }
                _ => None,
            });
            let want = if matches!(claim, Claim::NextIsLookup { .. }) { "lookup" } else { "send" };
            ok(next == Some((*at, want)), &format!("what comes next is {next:?}"))
        }
        Claim::AnsweredFor { req, at, intent } => {
            let key = trace.requests[*req].key.as_deref();
            ok(
                *at > 0
                    && trace.ticks[at - 1]
                        .state
                        .memory
                        .iter()
                        .any(|e| Some(&*e.key) == key && e.intent == *intent),
                "no entry of that order under the key",
            )
        }
        Claim::IsAttempt { req, attempt, copy } => {
            let r = &trace.requests[*req];
            let earlier = trace.requests[..*req]
                .iter()
                .any(|o| o.intent == r.intent && o.attempt == r.attempt);
            ok(
                r.attempt == *attempt && (r.copy > 0) == *copy && (*copy || !earlier),
                "not that attempt of its order",
            )
        }
        Claim::ReadsKeys { yes } => {
            use idem::sim::Design;
            let reads = matches!(
                trace.design,
                Design::WithCharge
                    | Design::LogAfterCharge
                    | Design::LogBeforeCharge
                    | Design::InProgressRecord
            );
            ok(reads == *yes, "the design reads keys otherwise")
        }
        Claim::BodySeen { req, yes } => {
            let body = trace.requests[*req].content;
            let seen = trace.requests[..*req].iter().any(|o| o.content == body);
            ok(seen == *yes, &format!("a body seen before: {seen}"))
        }
        Claim::KeySeen { req, yes } => {
            let key = &trace.requests[*req].key;
            let seen = key.is_some() && trace.requests[..*req].iter().any(|o| o.key == *key);
            ok(seen == *yes, &format!("the key carried before: {seen}"))
        }
        Claim::WorkingOn { req, at } => {
            let taken = (0..=*at).rev().find(|&i| {
                matches!(&trace.ticks[i].fact, Fact::Takes { req: r, .. } if r == req)
            });
            ok(
                taken.is_some_and(|from| {
                    !trace.ticks[from + 1..=*at].iter().any(|t| {
                        matches!(t.fact, Fact::Crash { .. })
                            || matches!(&t.fact, Fact::Replied { req: r, .. } | Fact::HandlerError { req: r, .. } if r == req)
                    })
                }),
                "that request is not being worked on",
            )
        }
        Claim::WorkCutOff { key, at, crash } => {
            let keyed = |req: usize| trace.requests[req].key.as_deref() == Some(&**key);
            let taken = (0..*at).rev().find_map(|i| match &trace.ticks[i].fact {
                Fact::Takes { req, .. } if keyed(*req) => Some((i, *req)),
                _ => None,
            });
            let Some((from, req)) = taken else {
                return Err("no work on the key before".into());
            };
            let end = trace.ticks[from + 1..*at].iter().find_map(|t| match &t.fact {
                Fact::Crash { .. } => Some("crash"),
                Fact::HandlerError { req: r, .. } if *r == req => Some("error"),
                Fact::Replied { req: r, .. } if *r == req => Some("answer"),
                _ => None,
            });
            let want = if *crash { "crash" } else { "error" };
            ok(end == Some(want), &format!("the work ended by {end:?}"))
        }
        Claim::HeldUnder { key, at, n } => {
            let t = &trace.ticks[*at];
            let held = t
                .state
                .memory
                .iter()
                .filter(|e| &*e.key == key.as_str() && e.expires_at.is_none_or(|x| x > t.at))
                .count();
            ok(held == *n, &format!("{held} entries held"))
        }
        Claim::Declined { req, by, yes } => {
            let declined = trace.ticks[..*by].iter().find_map(|t| match &t.fact {
                Fact::Charged { req: r, charge, .. } | Fact::OneWrite { req: r, charge, .. }
                    if r == req =>
                {
                    Some(charge.is_none())
                }
                _ => None,
            });
            ok(declined == Some(*yes), &format!("declined: {declined:?}"))
        }
        Claim::StillPaying { intent, at } => {
            let placed = trace.ticks[..=*at]
                .iter()
                .any(|t| matches!(t.fact, Fact::Pay) && t.intent == Some(*intent));
            // Settled by a final answer, a final lookup or a give-up; paying again once a
            // person reruns it.
            let mut settled = false;
            for t in trace.ticks[..=*at].iter().filter(|t| t.intent == Some(*intent)) {
                match &t.fact {
                    Fact::GaveUp { .. } | Fact::Read { next: None, .. } => settled = true,
                    // A lookup ends the run only when it finds a stored answer; "not found"
                    // sends the retry at once.
                    Fact::LookedUp { next: None, lookup, .. }
                        if matches!(trace.lookups[*lookup].answer, Some(LookupAnswer::Found { .. })) =>
                    {
                        settled = true
                    }
                    Fact::Rerun { .. } => settled = false,
                    _ => {}
                }
            }
            ok(placed && !settled, &format!("placed {placed}, settled {settled}"))
        }
        Claim::NotPlaced { intent, at } => ok(
            !trace.ticks[..=*at]
                .iter()
                .any(|t| matches!(t.fact, Fact::Pay) && t.intent == Some(*intent)),
            "the order was placed",
        ),
        Claim::Agrees { intent, at } => {
            let state = &trace.ticks[*at].state;
            let standing = state
                .ledger()
                .iter()
                .filter(|c| c.intent == *intent && !state.refunds().iter().any(|r| r.charge == c.id))
                .count();
            let c = &state.clients()[*intent];
            ok(
                standing == 1 && (c.marked_paid || c.belief == idem::sim::Belief::Paid),
                &format!("{standing} standing charges, {:?}", c.belief),
            )
        }
        Claim::WaitCutByDeadline { req, yes } => {
            let r = &trace.requests[*req];
            let sent = trace
                .ticks
                .iter()
                .position(|t| matches!(t.fact, Fact::Send { req: q } if q == *req))
                .ok_or("never sent")?;
            let end = trace.ticks[sent + 1..].iter().find_map(|t| match &t.fact {
                Fact::Deadline { .. } if t.intent == Some(r.intent) => Some(true),
                Fact::TimedOut { .. } if t.intent == Some(r.intent) => Some(false),
                Fact::Read { reply, .. } | Fact::Late { reply }
                    if trace.requests[trace.replies[*reply].req].intent == r.intent =>
                {
                    Some(false)
                }
                _ => None,
            });
            ok(end.unwrap_or(false) == *yes, &format!("cut by a deadline: {end:?}"))
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
        Claim::EveryRetryNewKey { intent, any_order } => {
            for (n, r) in trace.requests.iter().enumerate() {
                if r.intent != *intent || r.copy > 0 || r.attempt == 1 {
                    continue;
                }
                let carried = trace.requests[..n]
                    .iter()
                    .any(|o| o.key == r.key && (*any_order || o.intent == *intent));
                if r.key.is_none() || carried {
                    return Err(format!("attempt #{} carries {:?}, carried before", r.attempt, r.key));
                }
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
            if s.claims.is_empty() && !s.text.is_empty() {
                return Err(format!(
                    "{}: tick {i} `{}`: the sentence {:?} carries no claim",
                    trace.design, told.labels[i], s.text
                ));
            }
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

/// No hindsight is shown on or before a tick where a question waits (`questions` are the ticks
/// that stop for one): every claim of the words up to the last question holds of the story cut
/// off there, as well as of the whole, so none was decided from what comes after; and those
/// words are the sentences' own, unless the trainer's block rewrote them.
pub fn no_hindsight_before(trace: &Trace, told: &Told, questions: &[usize]) -> Result<(), String> {
    let Some(&last) = questions.iter().max() else {
        return Ok(());
    };
    let mut cut = trace.clone();
    cut.ticks.truncate(last + 1);
    for (i, sentences) in told.sentences.iter().enumerate().take(last + 1) {
        for s in sentences {
            for claim in &s.claims {
                holds(&cut, claim).map_err(|why| {
                    format!(
                        "tick {i} `{}` tells {:?} before the question at tick {last}, which claims {claim:?}: not decided by then ({why})",
                        told.labels[i], s.text
                    )
                })?;
            }
        }
        let joined = idem::story::claim::join(sentences);
        if !told.rewritten.contains(&i) && told.narrations[i] != joined {
            return Err(format!(
                "tick {i} `{}` shows {:?}, not its sentences {joined:?}",
                told.labels[i], told.narrations[i]
            ));
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

/// No two ticks of a run share a label, so a `label` in a quiz or a narration block reaches
/// the one tick it means: the payment's timeout, the mailer's and the courier's each have
/// their own, and a second crash or decline is told apart from the first.
pub fn labels_name_one_thing(trace: &Trace, labels: &[String]) -> Result<(), String> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, label) in labels.iter().enumerate() {
        if label.is_empty() {
            continue;
        }
        if let Some(&j) = seen.get(label.as_str()) {
            return Err(format!(
                "ticks {j} and {i} are both labelled `{label}`: {:?} and {:?}",
                trace.ticks[j].fact, trace.ticks[i].fact
            ));
        }
        seen.insert(label, i);
    }
    Ok(())
}
