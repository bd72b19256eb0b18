//! The room in front of the replay, as the state holds it: presenter mode's own state, a
//! session's agenda (where the talk stands and what each part kept), and the talk around
//! the room's answers.

use super::*;

/// Presenter mode's own state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Presenting {
    /// The screen is blanked (`.`), as a projector remote does.
    pub blank: bool,
    /// The elapsed-time display is shown (`t` hides it).
    pub show_elapsed: bool,
    /// Whole seconds since the talk started, kept by the event loop.
    pub elapsed_secs: u64,
    /// What the room does not see until `n` reveals it.
    pub hide: crate::present::Hide,
    /// What the command line and the whole session hide: each part of a session hides this
    /// and what the part's own `hide` adds.
    pub base_hide: crate::present::Hide,
    /// `n` revealed what is hidden; another design or another scenario hides it again.
    pub revealed: bool,
    /// The side panels (memory, ledger, statement) beside the timeline (`L`).
    pub panels: bool,
}

impl Presenting {
    /// The presenter's own keys: the blank screen, the clock, what is hidden and the panels.
    /// Returns the notice to show, if the key has one; any other message changes nothing.
    pub fn update(&mut self, msg: &Msg) -> Option<String> {
        match msg {
            Msg::Blank => self.blank = !self.blank,
            Msg::ToggleElapsed => self.show_elapsed = !self.show_elapsed,
            Msg::TogglePanels => self.panels = !self.panels,
            Msg::ToggleHidden if self.hide.any() => {
                self.revealed = !self.revealed;
                let what = self.hide.words();
                return Some(if self.revealed {
                    format!("revealed: {what} (n hides it again)")
                } else {
                    format!("hidden from the room: {what} (n reveals)")
                });
            }
            Msg::ToggleHidden => {
                return Some(
                    "nothing is hidden: idem present --hide-design (or --hide-statement, --hide-outcome) hides it"
                        .into(),
                );
            }
            _ => {}
        }
        None
    }

    /// What is hidden from the room right now.
    #[inline]
    pub fn hidden(&self) -> crate::present::Hide {
        if self.revealed {
            crate::present::Hide::default()
        } else {
            self.hide
        }
    }
}

/// A session file being played: where the talk stands, and what each scenario kept.
#[derive(Clone, Debug)]
pub struct Agenda {
    pub playlist: crate::present::playlist::Playlist,
    /// The section on screen.
    pub at: usize,
    /// What each section of the playlist kept, one for each, in its order.
    pub parts: Vec<PartKept>,
    /// The talk's elapsed seconds when the section on screen was entered.
    pub entered: u64,
    /// A card on screen in place of the story: the agenda before the first part, or the end
    /// after the last (`idem present SESSION` shows both; the library's callers opt in).
    pub card: Option<Card>,
    /// Whether the talk opens on the agenda and ends on an end card.
    pub cards: bool,
}

/// What one part of a session kept while the talk was elsewhere.
#[derive(Clone, Debug, Default)]
pub struct PartKept {
    /// Its answers; the part on screen's live in [`Talk::room`] meanwhile.
    pub room: Room,
    /// Seconds spent on it before it was last entered.
    pub spent: u64,
    /// Whether it has been on screen.
    pub shown: bool,
}

/// A card of the talk's own, shown in place of a part's story.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Card {
    /// Before the first part: the session's title, what it is about, and its parts.
    Agenda,
    /// After the last part's last tick: the parts shown and the room's score.
    End,
}

impl Agenda {
    pub fn new(playlist: crate::present::playlist::Playlist) -> Agenda {
        Agenda {
            parts: playlist
                .sections
                .iter()
                .enumerate()
                .map(|(i, s)| PartKept {
                    room: Room::new(s.scenario.quizzes.len()),
                    spent: 0,
                    shown: i == 0,
                })
                .collect(),
            card: None,
            cards: false,
            playlist,
            at: 0,
            entered: 0,
        }
    }

    pub fn section(&self) -> Option<&crate::present::playlist::Section> {
        self.playlist.sections.get(self.at)
    }

    /// How many sections have been on screen.
    pub fn parts_shown(&self) -> usize {
        self.parts.iter().filter(|p| p.shown).count()
    }

    /// Seconds spent on the section on screen, given the talk's elapsed seconds.
    pub fn section_secs(&self, elapsed: u64) -> u64 {
        self.parts.get(self.at).map_or(0, |p| p.spent) + elapsed.saturating_sub(self.entered)
    }

    /// Seconds left of the section's budget (negative once over it), if it has one.
    pub fn left(&self, elapsed: u64) -> Option<i64> {
        let budget = self.section()?.budget?.as_secs();
        Some(budget as i64 - self.section_secs(elapsed) as i64)
    }

    /// Takes the session file as it reads now. A part that names the same scenario at the
    /// same place keeps its answers, its time and whether it was shown; the part on screen
    /// stays on screen (its place kept, within the new list) until the trainer moves.
    pub fn replace(&mut self, playlist: crate::present::playlist::Playlist) {
        let n = playlist.sections.len();
        let kept = |i: usize| {
            self.playlist
                .sections
                .get(i)
                .zip(playlist.sections.get(i))
                .is_some_and(|(old, new)| old.source == new.source)
        };
        let same: Vec<bool> = (0..n).map(kept).collect();
        let mut old = std::mem::take(&mut self.parts).into_iter();
        self.parts = (0..n)
            .map(|i| {
                let old = old.next().unwrap_or_default();
                let quizzes = playlist.sections[i].scenario.quizzes.len();
                let room = if same[i] && old.room.quizzes.len() == quizzes {
                    old.room
                } else {
                    Room::new(quizzes)
                };
                PartKept {
                    room,
                    spent: if same[i] { old.spent } else { 0 },
                    shown: same[i] && old.shown,
                }
            })
            .collect();
        self.at = self.at.min(n.saturating_sub(1));
        self.playlist = playlist;
    }

    /// Leaves the section on screen at `elapsed` for `to`: its time is kept.
    pub fn move_to(&mut self, to: usize, elapsed: u64) {
        if let Some(part) = self.parts.get_mut(self.at) {
            part.spent += elapsed.saturating_sub(self.entered);
        }
        self.at = to;
        self.entered = elapsed;
        if let Some(part) = self.parts.get_mut(to) {
            part.shown = true;
        }
    }
}

/// The room in front of the replay: what it answered, the talk it is part of, presenter mode
/// and the speaker notes.
#[derive(Debug, Default)]
pub struct Talk {
    /// What the room answered to the scenario's questions, by question and design.
    pub room: Room,
    /// Presenter mode with a session file: the talk's playlist and where it stands.
    pub agenda: Option<Box<Agenda>>,
    /// Presenter mode, when the replay is projected in front of a room.
    pub present: Option<Presenting>,
    /// In presenter mode, why the speaker notes are off (shown until they come on).
    pub notes_off: Option<String>,
    /// Presenter mode: what was last sent to the speaker notes (story, design, tick, and what
    /// the screen said about itself).
    pub published: Option<(u64, Design, usize, crate::present::link::Shown)>,
}

impl Talk {
    /// A room with `quizzes` questions to answer and no talk around it.
    pub fn new(quizzes: usize) -> Talk {
        Talk {
            room: Room::new(quizzes),
            ..Talk::default()
        }
    }

    /// The talk's own card on screen instead of the story, if any.
    #[inline]
    pub fn card(&self) -> Option<Card> {
        self.agenda.as_ref().and_then(|a| a.card)
    }

    /// The room's score in the story on screen.
    pub fn score(&self) -> Score {
        self.room.score()
    }

    /// The room's score over the whole talk: every section of a playlist so far, this one
    /// included.
    pub fn session_score(&self) -> Score {
        let others = self.agenda.as_ref().map_or(Score::default(), |a| {
            a.parts
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != a.at)
                .map(|(_, p)| p.room.score())
                .fold(Score::default(), |x, y| x + y)
        });
        self.room.score() + others
    }

    /// Whether the room has answered anything in this talk, revealed or not.
    pub fn room_answered(&self) -> bool {
        self.room.any()
            || self.agenda.as_ref().is_some_and(|a| {
                a.parts
                    .iter()
                    .enumerate()
                    .any(|(i, p)| i != a.at && p.room.any())
            })
    }
}
