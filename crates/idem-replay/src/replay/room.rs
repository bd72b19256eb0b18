//! What the room answered. Each question of the story on screen gets a response under each
//! design it is asked under: one answer (`a`, then its number), or hands counted per choice
//! (`v`). Until the reveal a response can be taken back; once revealed it is final, judged
//! against the run as it stood then. The score adds up the revealed responses.

use crate::sim::Design;
use std::collections::BTreeMap;

/// The most hands counted for one choice: a large room, with room to spare.
pub const MAX_VOTES: u32 = 9_999;

/// The room's response to one question under one design.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// The room's answer (0-based): given with `a`, or at the reveal the choice most hands
    /// went up for.
    pub choice: Option<usize>,
    /// Hands counted per choice with `v`; empty when nobody counted.
    pub votes: Vec<u32>,
    /// Set at the reveal: the right choice then, if one fits the run.
    pub revealed: Option<Option<usize>>,
}

impl Response {
    /// Whether anything has been given: an answer, or a hand counted.
    pub fn started(&self) -> bool {
        self.choice.is_some() || self.hands() > 0
    }

    /// Whether the answer and the explanation are on screen.
    pub fn is_revealed(&self) -> bool {
        self.revealed.is_some()
    }

    /// Given, and waiting for the reveal (and until then it can be taken back).
    pub fn waiting(&self) -> bool {
        self.started() && !self.is_revealed()
    }

    pub fn hands(&self) -> u32 {
        self.votes.iter().sum()
    }

    /// The choice most hands went up for; `None` without hands, or when two choices tie.
    pub fn most_voted(&self) -> Option<usize> {
        let top = *self.votes.iter().max()?;
        if top == 0 || self.votes.iter().filter(|v| **v == top).count() > 1 {
            return None;
        }
        self.votes.iter().position(|v| *v == top)
    }

    /// The room's answer as it stands: the one given, else the most voted.
    pub fn answer(&self) -> Option<usize> {
        self.choice.or_else(|| self.most_voted())
    }

    /// Makes it final: `correct` is the right choice for the run on screen now.
    pub fn reveal(&mut self, correct: Option<usize>) {
        self.choice = self.answer();
        self.revealed = Some(correct);
    }

    /// Whether the revealed answer was right.
    pub fn right(&self) -> bool {
        matches!(self.revealed, Some(Some(c)) if self.choice == Some(c))
    }

    /// This response's part of the score (nothing until it is revealed).
    pub fn score(&self) -> Score {
        let Some(correct) = self.revealed else {
            return Score::default();
        };
        Score {
            right: usize::from(self.right()),
            asked: usize::from(self.started()),
            hands_right: correct
                .and_then(|c| self.votes.get(c).copied())
                .unwrap_or(0),
            hands: self.hands(),
        }
    }
}

/// Every response the room gave in one story: for each of its questions, by design.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Room {
    pub quizzes: Vec<BTreeMap<Design, Response>>,
}

impl Room {
    /// A room that has answered nothing, for a story with `questions` questions.
    pub fn new(questions: usize) -> Room {
        Room {
            quizzes: vec![BTreeMap::new(); questions],
        }
    }

    pub fn get(&self, quiz: usize, design: Design) -> Option<&Response> {
        self.quizzes.get(quiz).and_then(|by| by.get(&design))
    }

    /// The response to a question under a design, made empty when there is none yet.
    pub fn entry(&mut self, quiz: usize, design: Design) -> Option<&mut Response> {
        self.quizzes
            .get_mut(quiz)
            .map(|by| by.entry(design).or_default())
    }

    /// Whether the question's answer has been revealed under any design.
    pub fn revealed_anywhere(&self, quiz: usize) -> bool {
        self.quizzes
            .get(quiz)
            .is_some_and(|by| by.values().any(Response::is_revealed))
    }

    /// Whether the room has given anything at all.
    pub fn any(&self) -> bool {
        self.quizzes
            .iter()
            .any(|by| by.values().any(Response::started))
    }

    pub fn score(&self) -> Score {
        self.quizzes
            .iter()
            .flat_map(|by| by.values())
            .map(Response::score)
            .fold(Score::default(), |a, b| a + b)
    }

    /// The designs the revealed answers were given under, in their order.
    pub fn designs(&self) -> Vec<Design> {
        let mut out: Vec<Design> = self
            .quizzes
            .iter()
            .flat_map(|by| by.iter())
            .filter(|(_, r)| r.is_revealed() && r.started())
            .map(|(d, _)| *d)
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// Answers right out of answers revealed, and hands right out of hands counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub right: usize,
    pub asked: usize,
    pub hands_right: u32,
    pub hands: u32,
}

impl std::ops::Add for Score {
    type Output = Score;

    fn add(self, other: Score) -> Score {
        Score {
            right: self.right + other.right,
            asked: self.asked + other.asked,
            hands_right: self.hands_right + other.hands_right,
            hands: self.hands + other.hands,
        }
    }
}

impl Score {
    /// `2 of 3 answers right · 41 of 60 hands right`, or `None` before the first reveal.
    pub fn text(&self) -> Option<String> {
        if self.asked == 0 {
            return None;
        }
        let mut text = format!(
            "{} of {} answer{} right",
            self.right,
            self.asked,
            if self.asked == 1 { "" } else { "s" }
        );
        if self.hands > 0 {
            text.push_str(&format!(
                " · {} of {} hands right",
                self.hands_right, self.hands
            ));
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn votes_give_the_answer_and_a_tie_gives_none() {
        let mut r = Response {
            votes: vec![3, 12, 5],
            ..Response::default()
        };
        assert_eq!(r.most_voted(), Some(1));
        assert!(r.waiting());
        r.reveal(Some(2));
        assert_eq!(r.choice, Some(1));
        assert!(!r.right());
        assert_eq!(
            r.score(),
            Score {
                right: 0,
                asked: 1,
                hands_right: 5,
                hands: 20
            }
        );
        let tie = Response {
            votes: vec![4, 4, 1],
            ..Response::default()
        };
        assert_eq!(tie.most_voted(), None);
        assert_eq!(Response::default().most_voted(), None);
    }

    #[test]
    fn nothing_counts_before_the_reveal() {
        let mut room = Room::new(2);
        room.entry(0, Design::NoKey).expect("a question").choice = Some(2);
        assert!(room.any());
        assert_eq!(room.score().text(), None);
        room.entry(0, Design::NoKey)
            .expect("a question")
            .reveal(Some(2));
        assert!(room.revealed_anywhere(0));
        assert!(!room.revealed_anywhere(1));
        assert_eq!(room.score().text().as_deref(), Some("1 of 1 answer right"));
        assert!(room.entry(5, Design::NoKey).is_none(), "no such question");
    }
}
