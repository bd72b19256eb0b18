//! The design the drill names must make the charges the endpoint made. From what the drill
//! saw it works out how often each situation of its story charged (repeats of a request in
//! flight, repeats of a completed one, a used key with another body), simulates the story
//! under the design the answers point to, and names it only when its charges agree; otherwise
//! the first design that agrees, or none, saying so.

use super::battery::{Observed, Plan};
use super::client::Seen;
use super::judge::nearest;
use crate::sim::Design;

/// What the drill saw of one situation: a second charge, none, or it cannot tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charged {
    Again,
    NotAgain,
    Unknown,
}

/// What the endpoint's charges were, situation by situation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Charges {
    /// The first request, sent once: did it make more than one charge (the read-back counts)?
    pub single: Charged,
    /// Requests sent together with one key: were several charged?
    pub overlapping: Charged,
    /// The retry after the first had completed: charged again?
    pub completed: Charged,
    /// The used key with another body: charged?
    pub reused: Charged,
}

/// A refusal: an answer that made nothing (a 4xx).
fn refused(s: &Seen) -> bool {
    s.status.is_some_and(|c| (400..500).contains(&c))
}

/// The endpoint's charges as the drill's answers and its read-back show them.
pub fn seen_charges(o: &Observed) -> Charges {
    let overlapping = match &o.race {
        Some(race) if race.iter().any(Seen::ok) => {
            let mut new: Vec<&str> = race
                .iter()
                .filter(|s| s.ok() && !s.replayed)
                .map(|s| s.body.as_str())
                .collect();
            new.sort_unstable();
            new.dedup();
            if new.len() > 1 {
                Charged::Again
            } else {
                Charged::NotAgain
            }
        }
        _ => Charged::Unknown,
    };
    let single = match &o.read_back {
        Some([before, after_first, _]) if before.ok() && after_first.ok() => {
            match super::judge::made_by_first(before, after_first) {
                Some(n) if n > 1 => Charged::Again,
                Some(_) => Charged::NotAgain,
                None => Charged::Unknown,
            }
        }
        _ => Charged::Unknown,
    };
    let completed = match (&o.read_back, &o.first, &o.retry) {
        (Some([_, after_first, after_retry]), Some(a), _)
            if a.ok() && after_first.ok() && after_retry.ok() =>
        {
            if after_first.body != after_retry.body {
                Charged::Again
            } else {
                Charged::NotAgain
            }
        }
        (_, Some(a), Some(b)) if a.ok() && b.ok() && a.whole() && b.whole() => {
            if b.replayed || a.body == b.body {
                Charged::NotAgain
            } else {
                Charged::Again
            }
        }
        (_, Some(a), Some(b)) if a.ok() && refused(b) => Charged::NotAgain,
        _ => Charged::Unknown,
    };
    let reused = match (&o.first, &o.mismatch) {
        (Some(a), Some(m)) if a.ok() && m.ok() && m.whole() && a.whole() => {
            if m.replayed || m.body == a.body {
                Charged::NotAgain
            } else {
                Charged::Again
            }
        }
        (Some(a), Some(m)) if a.ok() && refused(m) => Charged::NotAgain,
        _ => Charged::Unknown,
    };
    Charges {
        single,
        overlapping,
        completed,
        reused,
    }
}

/// Whether the story's charges under a design agree with what the endpoint did: order 5531
/// charged once when no repeat was charged again, more than once when one was; the order
/// that reuses the key charged when the reused key was, not when it was refused.
fn agrees(seen: Charges, first: u32, second: Option<u32>) -> bool {
    let repeats = [seen.overlapping, seen.completed];
    let first_ok = if seen.single == Charged::Again || repeats.contains(&Charged::Again) {
        first > 1
    } else if repeats.iter().all(|c| *c == Charged::NotAgain) {
        first == 1
    } else {
        first >= 1
    };
    let second_ok = match (seen.reused, second) {
        (Charged::Again, Some(n)) => n >= 1,
        (Charged::NotAgain, Some(n)) => n == 0,
        _ => true,
    };
    first_ok && second_ok
}

/// What the endpoint's charges were, in words.
fn said(seen: Charges) -> String {
    let mut parts = Vec::new();
    if seen.single == Charged::Again {
        parts.push("one request, sent once, made several charges".to_string());
    }
    match (seen.overlapping, seen.completed) {
        (Charged::Again, _) | (_, Charged::Again) => {
            parts.push("it charged a repeated request again".to_string())
        }
        (Charged::NotAgain, Charged::NotAgain) => {
            parts.push("it charged each request once, however it was repeated".to_string())
        }
        _ => {}
    }
    match seen.reused {
        Charged::Again => parts.push("charged the used key again for another body".into()),
        Charged::NotAgain => parts.push("did not charge the used key for another body".into()),
        Charged::Unknown => {}
    }
    crate::text::and_list(&parts.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The design to name, chosen to make the charges the endpoint made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// This design, and why.
    Named(Design, String),
    /// No design of the simulation makes the charges the drill saw: why.
    NoneFits(String),
    /// Too little came back to tell.
    Unknown,
}

/// The nearest design by the answers, kept when the story simulated under it makes the charges
/// the endpoint made; otherwise the first design that does, or none.
pub fn choose(plan: &Plan, o: &Observed) -> Choice {
    let Some((first_pick, why)) = nearest(o) else {
        return Choice::Unknown;
    };
    let seen = seen_charges(o);
    let mut candidates = vec![first_pick];
    candidates.extend(Design::ALL.into_iter().filter(|d| *d != first_pick));
    let mut miss = None;
    for design in candidates {
        let Ok((first, second)) = super::scenario_out::charges_under(plan, o, design) else {
            continue;
        };
        if agrees(seen, first, second) {
            if design == first_pick {
                return Choice::Named(design, why);
            }
            let (missed, n) = miss.unwrap_or((first_pick, 0));
            return Choice::Named(
                design,
                format!(
                    "{why}; yet {} would charge order 5531 {} in this story, while {}, so the design named is {}, the first that makes the same charges",
                    missed.id(),
                    times(n),
                    said(seen),
                    design.id()
                ),
            );
        }
        if design == first_pick {
            miss = Some((design, first));
        }
    }
    Choice::NoneFits(format!(
        "{}, and no design of the simulation makes those charges in the drill's story, so none is named",
        capitalised(&said(seen))
    ))
}

fn times(n: u32) -> String {
    match n {
        0 => "never".into(),
        1 => "once".into(),
        2 => "twice".into(),
        n => format!("{n} times"),
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_story_agrees_only_with_the_charges_seen() {
        let once = Charges {
            single: Charged::NotAgain,
            overlapping: Charged::NotAgain,
            completed: Charged::NotAgain,
            reused: Charged::NotAgain,
        };
        assert!(agrees(once, 1, Some(0)));
        assert!(!agrees(once, 2, Some(0)));
        assert!(!agrees(once, 1, Some(1)));
        let twice = Charges {
            completed: Charged::Again,
            ..once
        };
        assert!(agrees(twice, 3, Some(0)));
        assert!(!agrees(twice, 1, Some(0)));
        let unknown = Charges {
            single: Charged::Unknown,
            overlapping: Charged::Unknown,
            completed: Charged::Unknown,
            reused: Charged::Unknown,
        };
        assert!(agrees(unknown, 1, None) && agrees(unknown, 4, Some(1)));
        assert!(!agrees(unknown, 0, None));
    }
}
