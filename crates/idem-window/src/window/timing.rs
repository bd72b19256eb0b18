//! When a stack's attempts leave and when it gives up, every answer lost: the
//! calculator's model of time, which is the simulator's.
//!
//! The rules (those of `crates/idem-sim/src/sim/client.rs`):
//! - a try of the innermost layer lasts its timeout: it sends one request and
//!   waits that long for an answer that never comes. With no timeout known a
//!   try costs no time, which is the seed's count;
//! - an outer layer's timeout is a deadline on each of its attempts, that is
//!   on one whole run of the layers beneath it, starting with that attempt's
//!   first request;
//! - a layer's own deadline bounds its whole budget, so it is a deadline on
//!   each attempt of the layer outside it (on the whole run for the outermost);
//! - a layer waits its schedule's next wait (at its longest, jitter included)
//!   between the end of one attempt and the start of the next;
//! - at the instant a deadline runs out it wins over anything beneath it that
//!   ends at that same instant, and a request due at that instant is not sent.
//!
//! Without deadlines this is the closed form of docs/model.md §4,
//! `L_i = attempts_i × L_(i−1) + waits_i` with `L_0 = T`, where `waits_i` is the
//! sum of the layer's waits (`backoff × (attempts − 1)` when they are all the
//! same); with `T = 0` it is the seed's `D_i`. Deadlines are followed attempt
//! by attempt, skipping over runs of identical attempts, so even a stack of
//! 10^120 attempts is worked out at once.

use std::time::Duration;

use super::magnitude::{Count, Span};
use super::schedule::Schedule;
use super::stack::Stack;

/// The automatic path of a stack, every answer lost. Times are counted from
/// the first request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// When the last request leaves: the latest a duplicate can reach the
    /// processor on the automatic path.
    pub last_send: Span,
    /// When the outermost layer gives up, the whole budget spent.
    pub gives_up: Span,
    /// Requests actually sent: the product of the attempts, unless a deadline
    /// cut some of them.
    pub sends: Count,
}

/// One layer as the walk sees it.
struct Tier {
    /// `None` when the layer never stops on its own.
    attempts: Option<u64>,
    /// The longest waits, jitter included.
    waits: Schedule,
    /// The retry from which every wait is the same, if any.
    steady_from: Option<u64>,
    /// A deadline on each attempt, in nanoseconds (the innermost layer has
    /// none: its tries last the timeout).
    limit: Option<u128>,
}

/// What one run of a layer (or one try of the innermost) amounts to.
#[derive(Debug, Clone, Copy)]
struct Run {
    /// When it ends, from its first request.
    end: Span,
    /// When its last request leaves.
    last: Span,
    /// How many requests it sends.
    sends: Count,
}

impl Run {
    const UNBOUNDED: Self = Self {
        end: Span::UNBOUNDED,
        last: Span::UNBOUNDED,
        sends: Count::UNBOUNDED,
    };
}

/// The walk over a whole stack, with what every layer's attempt amounts to.
struct Walk {
    tiers: Vec<Tier>,
    /// `attempt[i]`: one attempt of layer `i` when nothing outside cuts it.
    attempt: Vec<Run>,
    /// `free[i]`: layer `i`'s whole budget when nothing outside cuts it.
    free: Vec<Run>,
}

fn nanos(d: Duration) -> u128 {
    d.as_nanos()
}

/// A span as nanoseconds, or `u128::MAX` when it is beyond them.
fn span_nanos(span: Span) -> u128 {
    span.as_nanos().unwrap_or(u128::MAX)
}

impl Walk {
    fn new(stack: &Stack) -> Self {
        let layers = &stack.layers;
        let tiers: Vec<Tier> = layers
            .iter()
            .enumerate()
            .map(|(i, layer)| {
                let waits = layer.worst_schedule();
                let own = if i == 0 { None } else { layer.timeout };
                let inner_deadline = i.checked_sub(1).and_then(|j| layers[j].deadline);
                let limit = match (own, inner_deadline) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                Tier {
                    attempts: (!layer.forever).then_some(layer.attempts),
                    steady_from: waits.steady_from(),
                    waits,
                    limit: limit.map(nanos),
                }
            })
            .collect();
        let request = Run {
            end: Span::from_duration(layers.first().and_then(|l| l.timeout).unwrap_or_default()),
            last: Span::ZERO,
            sends: Count::ONE,
        };
        let mut walk = Self {
            tiers,
            attempt: Vec::new(),
            free: Vec::new(),
        };
        for i in 0..walk.tiers.len() {
            let attempt = if i == 0 {
                request
            } else {
                walk.bounded(i - 1, walk.tiers[i].limit)
            };
            walk.attempt.push(attempt);
            let free = walk.unbounded_run(i);
            walk.free.push(free);
        }
        walk
    }

    /// Layer `i`'s whole budget with nothing outside to cut it.
    fn unbounded_run(&self, i: usize) -> Run {
        let tier = &self.tiers[i];
        let one = self.attempt[i];
        let Some(attempts) = tier.attempts else {
            return Run::UNBOUNDED;
        };
        let tries = Count::new(u128::from(attempts));
        let retries = attempts.saturating_sub(1);
        let waits = tier.waits.total(retries);
        let before_last = one.end.times(Count::new(u128::from(retries))).plus(waits);
        Run {
            end: before_last.plus(one.end),
            last: before_last.plus(one.last),
            sends: one.sends.times(tries),
        }
    }

    /// Layer `i`'s whole budget, cut by `limit` if it runs that long.
    fn bounded(&self, i: usize, limit: Option<u128>) -> Run {
        let free = self.free[i];
        match limit {
            Some(limit) if free.end.as_nanos().is_none_or(|end| end >= limit) => {
                self.limited(i, limit)
            }
            _ => free,
        }
    }

    /// Layer `i`'s budget when a deadline outside it runs out `limit` after
    /// its first request (and the budget would last at least that long).
    fn limited(&self, i: usize, limit: u128) -> Run {
        let tier = &self.tiers[i];
        let one = self.attempt[i];
        let one_end = one.end.as_nanos();
        let (mut start, mut done, mut sends, mut last) = (0u128, 0u64, Count::ZERO, 0u128);
        loop {
            if start >= limit {
                return Run {
                    end: Span::from_nanos(limit),
                    last: Span::from_nanos(last),
                    sends,
                };
            }
            let room = limit - start;
            let Some(end) = one_end.filter(|&end| end < room) else {
                // The deadline runs out during this attempt.
                let part = if i == 0 {
                    Run {
                        end: Span::from_nanos(room),
                        last: Span::ZERO,
                        sends: Count::ONE,
                    }
                } else {
                    self.limited(i - 1, room)
                };
                return Run {
                    end: Span::from_nanos(limit),
                    last: Span::from_nanos(start.saturating_add(span_nanos(part.last))),
                    sends: sends.plus(part.sends),
                };
            };
            sends = sends.plus(one.sends);
            last = start.saturating_add(span_nanos(one.last));
            done += 1;
            let finished = start + end;
            if tier.attempts == Some(done) {
                return Run {
                    end: Span::from_nanos(finished),
                    last: Span::from_nanos(last),
                    sends,
                };
            }
            start = finished.saturating_add(span_nanos(tier.waits.wait(done)));
            // From here on every attempt may be the same: skip over those
            // that certainly end before the deadline.
            if tier.steady_from.is_some_and(|s| s <= done + 1) && start < limit {
                let step = end.saturating_add(span_nanos(tier.waits.wait(done + 1)));
                let left = tier.attempts.map(|a| a - done);
                let fit = if step == 0 {
                    match left {
                        Some(left) => left,
                        // Endless attempts that take no time: nothing ever ends.
                        None => return Run::UNBOUNDED,
                    }
                } else if start.saturating_add(end) < limit {
                    (limit - start - end)
                        .div_ceil(step)
                        .min(u128::from(u64::MAX)) as u64
                } else {
                    0
                };
                let skip = left.map_or(fit, |left| fit.min(left)).saturating_sub(1);
                if skip > 0 {
                    sends = sends.plus(one.sends.times(Count::new(u128::from(skip))));
                    done += skip;
                    start = start.saturating_add(step.saturating_mul(u128::from(skip)));
                }
            }
        }
    }
}

/// The automatic path of `stack`, every answer lost.
pub fn timing(stack: &Stack) -> Timing {
    if stack.layers.is_empty() {
        return Timing {
            last_send: Span::ZERO,
            gives_up: Span::ZERO,
            sends: Count::ONE,
        };
    }
    let walk = Walk::new(stack);
    let top = stack.layers.len() - 1;
    let run = walk.bounded(top, stack.layers[top].deadline.map(nanos));
    Timing {
        last_send: run.last,
        gives_up: run.end,
        sends: run.sends,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::{Layer, Stack};

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    fn stack(layers: Vec<Layer>) -> Stack {
        Stack {
            layers,
            ..Stack::default()
        }
    }

    #[test]
    fn without_timeouts_it_is_the_seed() {
        let t = timing(&Stack::worked_example());
        assert_eq!(t.last_send.whole_seconds(), Some(7596));
        assert_eq!(t.gives_up.whole_seconds(), Some(7596));
        assert_eq!(t.sends.exact(), Some(27));
    }

    #[test]
    fn timeouts_count_once_per_try() {
        // 3 tries of 30 s with 1 s between: sent at 0, 31, 62; gives up at 92.
        let t = timing(&stack(vec![
            Layer::new("checkout", secs(1), 3).with_timeout(secs(30)),
        ]));
        assert_eq!(t.last_send.whole_seconds(), Some(62));
        assert_eq!(t.gives_up.whole_seconds(), Some(92));
    }

    #[test]
    fn an_outer_deadline_cuts_the_layers_beneath() {
        // Inner: 3 tries of 10 s, 1 s apart = 32 s. The outer layer allows
        // each of its attempts 25 s: the third try (due at 22 s) is sent, and
        // the deadline cuts it at 25 s. Then 5 s, and again.
        let t = timing(&stack(vec![
            Layer::new("inner", secs(1), 3).with_timeout(secs(10)),
            Layer::new("outer", secs(5), 2).with_timeout(secs(25)),
        ]));
        assert_eq!(t.gives_up.whole_seconds(), Some(25 + 5 + 25));
        assert_eq!(t.last_send.whole_seconds(), Some(30 + 22));
        assert_eq!(t.sends.exact(), Some(6));
    }

    #[test]
    fn a_request_due_as_the_deadline_runs_out_is_not_sent() {
        // Tries of 10 s, 5 s apart: the second is due at 15 s, just as the
        // layer's own deadline of 15 s runs out.
        let mut inner = Layer::new("inner", secs(5), 3).with_timeout(secs(10));
        inner.deadline = Some(secs(15));
        let t = timing(&stack(vec![inner]));
        assert_eq!(t.sends.exact(), Some(1));
        assert_eq!(t.gives_up.whole_seconds(), Some(15));
        assert_eq!(t.last_send, Span::ZERO);
    }

    /// Half a trillion attempts fit before the deadline: walked one by one they would take
    /// hours, so this also holds that the skip happens at all (every guard on it).
    #[test]
    fn half_a_trillion_attempts_under_a_deadline_are_worked_out_at_once() {
        // Tries of 1 ms, 1 ms apart: try k is sent at 2k ms and ends at 2k + 1 ms. Under a
        // deadline of 10^9 s, tries 0 to 5·10^11 − 1 end before it; the next is due just as
        // it runs out and is not sent.
        let mut layer = Layer::new("endless", Duration::from_millis(1), 1_000_000_000_000_000)
            .with_timeout(Duration::from_millis(1));
        layer.deadline = Some(secs(1_000_000_000));
        let t = timing(&stack(vec![layer]));
        assert_eq!(t.sends.exact(), Some(500_000_000_000));
        assert_eq!(t.gives_up.whole_seconds(), Some(1_000_000_000));
        let last_ms: u128 = 2 * (500_000_000_000 - 1);
        assert_eq!(t.last_send, Span::from_nanos(last_ms * 1_000_000));
    }

    #[test]
    fn many_identical_attempts_are_skipped_not_walked() {
        let mut layer = Layer::new("tight", Duration::from_millis(1), 4_000_000_000)
            .with_timeout(Duration::from_millis(1));
        layer.deadline = Some(secs(3600));
        let t = timing(&stack(vec![layer]));
        assert_eq!(t.sends.exact(), Some(1_800_000));
        assert_eq!(t.gives_up.whole_seconds(), Some(3600));
    }

    #[test]
    fn a_layer_without_end_never_gives_up_unless_a_deadline_stops_it() {
        let mut forever = Layer::new("temporal", secs(1), 1).with_timeout(secs(10));
        forever.forever = true;
        let t = timing(&stack(vec![forever.clone()]));
        assert!(t.gives_up.is_unbounded());
        forever.deadline = Some(secs(60));
        let t = timing(&stack(vec![forever]));
        assert_eq!(t.gives_up.whole_seconds(), Some(60));
        assert_eq!(t.sends.exact(), Some(6));
    }
}
