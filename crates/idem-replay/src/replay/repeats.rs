//! Runs of repeated attempts, folded into one row of the timeline (`f`). Attempts #4 to #9
//! that do exactly what #3 did (the same lanes, the same kinds of event, the same words but
//! for the attempt's number) are drawn as one row, "attempts #4–#9: same as #3", so a long
//! story's lesson is not scrolled away by its repetition. Worked out once per story; the view
//! only asks which rows to draw.

use crate::sim::trace::Message;
use crate::sim::{Actor, TickKind, Trace};
use crate::story::Told;

/// One attempt's ticks: consecutive ticks of the same purchase and attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub attempt: u32,
    pub first: usize,
    pub last: usize,
}

impl Block {
    fn ticks(&self) -> usize {
        self.last + 1 - self.first
    }
}

/// An attempt (`like`) and the attempts right after it that repeat it, tick for tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub like: Block,
    pub repeats: Vec<Block>,
}

/// A row of the timeline: a tick, or repeated attempts folded into one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    Tick(usize),
    Folded {
        /// The first and last attempt folded, and the one they repeat.
        from: u32,
        to: u32,
        like: u32,
        /// How many ticks the row stands for, and the first of them.
        ticks: usize,
        first: usize,
    },
}

impl Row {
    /// `attempts #4–#9: same as #3 (18 ticks)`.
    pub fn words(&self) -> Option<String> {
        match *self {
            Row::Tick(_) => None,
            Row::Folded {
                from,
                to,
                like,
                ticks,
                ..
            } => Some(if from == to {
                format!("attempt #{from}: same as #{like} ({ticks} ticks)")
            } else {
                format!("attempts #{from}–#{to}: same as #{like} ({ticks} ticks)")
            }),
        }
    }
}

/// What a tick looks like on the timeline, its attempt's number left out.
#[derive(PartialEq, Eq)]
struct Shape {
    actor: Actor,
    kind: TickKind,
    message: Option<(Actor, Actor, String)>,
    label: String,
}

fn shape(trace: &Trace, told: &Told, i: usize) -> Shape {
    let t = &trace.ticks[i];
    Shape {
        actor: t.actor,
        kind: t.kind,
        message: t
            .message
            .as_ref()
            .map(|Message { from, to, fate }| (*from, *to, format!("{fate:?}"))),
        label: unnumbered(&told.labels[i]),
    }
}

/// A label with every attempt number (`#12`, `#2.3`) reduced to `#`.
fn unnumbered(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    let mut chars = label.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '#' {
            while chars.next_if(|c| c.is_ascii_digit() || *c == '.').is_some() {}
        }
    }
    out
}

/// Every run of attempts that repeat the attempt before them, in the order of the story.
pub fn runs(trace: &Trace, told: &Told) -> Vec<Run> {
    // The attempts, each a stretch of consecutive ticks.
    let mut blocks: Vec<(Option<usize>, Block)> = Vec::new();
    for (i, t) in trace.ticks.iter().enumerate() {
        let Some(attempt) = t.attempt else {
            continue;
        };
        match blocks.last_mut() {
            Some((intent, b)) if *intent == t.intent && b.attempt == attempt && b.last + 1 == i => {
                b.last = i;
            }
            _ => blocks.push((
                t.intent,
                Block {
                    attempt,
                    first: i,
                    last: i,
                },
            )),
        }
    }
    let same = |a: &Block, b: &Block| {
        a.ticks() == b.ticks()
            && (0..a.ticks())
                .all(|k| shape(trace, told, a.first + k) == shape(trace, told, b.first + k))
    };
    let mut runs: Vec<Run> = Vec::new();
    let mut open: Option<Run> = None;
    for pair in blocks.windows(2) {
        let ((ia, a), (ib, b)) = (&pair[0], &pair[1]);
        if ia == ib && a.last + 1 == b.first && same(a, b) {
            open.get_or_insert_with(|| Run {
                like: *a,
                repeats: Vec::new(),
            })
            .repeats
            .push(*b);
        } else if let Some(run) = open.take() {
            runs.push(run);
        }
    }
    runs.extend(open);
    runs
}

/// The last `n` rows of the timeline up to `current`, repeats folded, and how many rows come
/// before them. The current tick always has its own row: a repeat it stands in is not folded,
/// nor are those after it.
pub fn visible(runs: &[Run], current: usize, n: usize) -> (Vec<Row>, usize) {
    // The stretches folded at this moment: each run's repeats wholly before the current tick.
    let folded: Vec<(usize, usize, Row)> = runs
        .iter()
        .take_while(|r| r.like.first <= current)
        .filter_map(|r| {
            let before: Vec<&Block> = r.repeats.iter().filter(|b| b.last < current).collect();
            let (first, last) = (before.first()?, before.last()?);
            let ticks = last.last + 1 - first.first;
            (ticks >= 2).then_some((
                first.first,
                last.last,
                Row::Folded {
                    from: first.attempt,
                    to: last.attempt,
                    like: r.like.attempt,
                    ticks,
                    first: first.first,
                },
            ))
        })
        .collect();
    let hidden_ticks: usize = folded.iter().map(|(a, b, _)| b + 1 - a).sum();
    let total = current + 1 - hidden_ticks + folded.len();
    let mut rows = Vec::with_capacity(n.min(total));
    let mut next = folded.len();
    let mut i = current as isize;
    while rows.len() < n && i >= 0 {
        let at = i as usize;
        while next > 0 && folded[next - 1].0 > at {
            next -= 1;
        }
        match folded.get(next.wrapping_sub(1)) {
            Some((first, last, row)) if next > 0 && *last == at => {
                rows.push(*row);
                i = *first as isize - 1;
                next -= 1;
            }
            _ => {
                rows.push(Row::Tick(at));
                i -= 1;
            }
        }
    }
    rows.reverse();
    let shown = rows.len();
    (rows, total - shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_left_out_of_labels() {
        assert_eq!(
            unnumbered("charge $1.00 key K7Q4 #12"),
            "charge $1.00 key K7Q4 #"
        );
        assert_eq!(unnumbered("no answer to #2.3"), "no answer to #");
        assert_eq!(unnumbered("order #"), "order #");
    }

    fn block(attempt: u32, first: usize, len: usize) -> Block {
        Block {
            attempt,
            first,
            last: first + len - 1,
        }
    }

    #[test]
    fn the_current_tick_keeps_its_row() {
        // Ticks 0–1 before, attempt 1 at 2–4, attempts 2–5 repeat it at 5–16.
        let runs = vec![Run {
            like: block(1, 2, 3),
            repeats: (0..4)
                .map(|k| block(2 + k, 5 + 3 * k as usize, 3))
                .collect(),
        }];
        // Past the run: every repeat folds into one row.
        let (rows, earlier) = visible(&runs, 18, 100);
        assert_eq!(earlier, 0);
        assert_eq!(rows.len(), 5 + 1 + 2);
        assert_eq!(
            rows[5],
            Row::Folded {
                from: 2,
                to: 5,
                like: 1,
                ticks: 12,
                first: 5
            }
        );
        assert_eq!(rows.last(), Some(&Row::Tick(18)));
        // Inside attempt 4: attempts 2–3 fold, attempt 4 shows up to the current tick.
        let (rows, _) = visible(&runs, 12, 100);
        assert_eq!(
            rows[5],
            Row::Folded {
                from: 2,
                to: 3,
                like: 1,
                ticks: 6,
                first: 5
            }
        );
        assert_eq!(&rows[6..], &[Row::Tick(11), Row::Tick(12)]);
        // Only the last rows when the box is short, and the count of those above.
        let (rows, earlier) = visible(&runs, 18, 3);
        assert_eq!(rows, vec![rows[0], Row::Tick(17), Row::Tick(18)]);
        assert!(matches!(rows[0], Row::Folded { .. }));
        assert_eq!(earlier, 5);
    }
}
