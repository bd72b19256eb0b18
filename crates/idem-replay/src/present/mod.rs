//! Teaching a room: the link that lets `idem notes` in a second terminal follow the
//! presenter over a local Unix socket, the session file that strings scenarios into one talk,
//! and what the presenter keeps from the room until it is revealed. The screens on either end
//! belong to the terminal UI.

pub mod link;
pub mod playlist;

/// What the presenter keeps from the room until the trainer reveals it, so the room predicts
/// before it sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hide {
    /// The design's name.
    pub design: bool,
    /// The card statement's line.
    pub statement: bool,
    /// The outcome at the last tick.
    pub outcome: bool,
}

impl Hide {
    /// The names a session file and the notes use, in order.
    pub const NAMES: [&'static str; 3] = ["design", "statement", "outcome"];

    pub fn any(self) -> bool {
        self.design || self.statement || self.outcome
    }

    /// What either hides.
    pub fn or(self, other: Hide) -> Hide {
        Hide {
            design: self.design || other.design,
            statement: self.statement || other.statement,
            outcome: self.outcome || other.outcome,
        }
    }

    /// Hides one more thing, by its name; false for a name it does not know.
    pub fn set(&mut self, name: &str) -> bool {
        match name {
            "design" => self.design = true,
            "statement" => self.statement = true,
            "outcome" => self.outcome = true,
            _ => return false,
        }
        true
    }

    /// What is hidden, in words: `the design's name and the card statement`.
    pub fn words(self) -> String {
        let mut parts = Vec::new();
        if self.design {
            parts.push("the design's name");
        }
        if self.statement {
            parts.push("the card statement");
        }
        if self.outcome {
            parts.push("the outcome");
        }
        crate::text::and_list(&parts)
    }
}

/// What one screen or one handout keeps from the room, decided in this one place: what the
/// trainer chose to hide, and whether a question stands open there. While a question is
/// open, the checkout's key strategy and the memory of the processor (and of the services
/// behind the shop), up or down, are kept back too, because either may answer it. The replay's
/// view and every export ask this type, so nothing hidden slips out through one of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Withheld {
    /// What the trainer hides until the reveal.
    pub hide: Hide,
    /// A question stands open here, its answer not yet given.
    pub asking: bool,
}

impl Withheld {
    /// Nothing kept back.
    pub const NONE: Withheld = Withheld {
        hide: Hide {
            design: false,
            statement: false,
            outcome: false,
        },
        asking: false,
    };

    pub fn new(hide: Hide) -> Withheld {
        Withheld {
            hide,
            asking: false,
        }
    }

    /// The same, with a question open or not.
    pub fn asking(self, asking: bool) -> Withheld {
        Withheld { asking, ..self }
    }

    /// A design as the room may see it: its name, or a neutral `design 3` while names are
    /// hidden (the number is the key that selects it).
    pub fn design(self, design: crate::sim::Design) -> String {
        if self.hide.design {
            format!("design {}", design.hotkey())
        } else {
            design.name().to_string()
        }
    }

    /// A design's name with its id, `no key (`no-key`)` in Markdown, or the neutral label.
    pub fn design_with_id(self, design: crate::sim::Design) -> String {
        if self.hide.design {
            self.design(design)
        } else {
            format!("{} (`{}`)", design.name(), design.id())
        }
    }

    /// Whether the design's name may be shown.
    pub fn shows_design(self) -> bool {
        !self.hide.design
    }

    /// Whether the card statement (and the ledger that lists the same charges) may be shown.
    pub fn shows_statement(self) -> bool {
        !self.hide.statement
    }

    /// Whether an outcome, a verdict or a count of charges at the end may be shown.
    pub fn shows_outcome(self) -> bool {
        !self.hide.outcome
    }

    /// Whether the checkout's key strategy (and the steps' key mode) may be shown.
    pub fn shows_keys(self) -> bool {
        !self.asking
    }

    /// Whether the processor's memory, its up or down state, and the services' memory may be
    /// shown.
    pub fn shows_memory(self) -> bool {
        !self.asking
    }

    /// A tick's label as the room may see it: the card statement's tick says only that it
    /// is the statement while the statement or the outcome is hidden, since it counts the
    /// charges.
    pub fn label(self, kind: crate::sim::TickKind, label: &str) -> String {
        if kind == crate::sim::TickKind::Statement && !self.shows_ending() {
            return "statement".to_string();
        }
        self.text(label)
    }

    /// A tick's narration as the room may see it (see [`Withheld::label`]).
    pub fn narration(self, kind: crate::sim::TickKind, narration: &str) -> String {
        if kind == crate::sim::TickKind::Statement && !self.shows_ending() {
            return "Later the customer opens the card statement; what it shows is hidden until the reveal."
                .to_string();
        }
        self.text(narration)
    }

    /// Whether the card statement and the outcome may both be shown: the statement's tick
    /// tells both.
    fn shows_ending(self) -> bool {
        self.shows_statement() && self.shows_outcome()
    }

    /// Text written by the scenario's author (a narration, an explanation, a note) with every
    /// design's name and id put as the room may see them: unchanged unless names are hidden.
    pub fn text(self, text: &str) -> String {
        if !self.hide.design {
            return text.to_string();
        }
        let mut out = text.to_string();
        // Longer words first, so a name is never half replaced by a shorter one inside it.
        // "no key" is also plain English ("a request with no key"): only its id is a name.
        let mut words: Vec<(&str, crate::sim::Design)> = crate::sim::Design::ALL
            .iter()
            .flat_map(|d| [(d.id(), *d), (d.name(), *d)])
            .filter(|(w, _)| *w != "no key")
            .collect();
        words.sort_by_key(|(w, _)| std::cmp::Reverse(w.len()));
        for (word, design) in words {
            out = replace_whole(&out, word, &self.design(design));
        }
        out
    }
}

/// `text` with every whole-word `word` (not inside a longer word or a hyphenated one)
/// replaced by `with`, in any letter case: a name that starts a sentence ("Content-hash
/// refuses the retry") names the design as surely as one inside it.
fn replace_whole(text: &str, word: &str, with: &str) -> String {
    let joins = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    // ASCII lower case keeps every byte where it was, so a match in `lower` is one in `text`.
    let (lower, word) = (text.to_ascii_lowercase(), word.to_ascii_lowercase());
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for (at, _) in lower.match_indices(&word) {
        if at < done {
            continue;
        }
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(joins) && !after.is_some_and(joins) {
            out.push_str(&text[done..at]);
            out.push_str(with);
            done = at + word.len();
        }
    }
    out.push_str(&text[done..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Design;

    #[test]
    fn hidden_designs_become_numbers_everywhere() {
        let shown = Withheld::NONE;
        assert_eq!(shown.design(Design::NoKey), "no key");
        assert_eq!(shown.design_with_id(Design::NoKey), "no key (`no-key`)");
        let hidden = Withheld::new(Hide {
            design: true,
            ..Hide::default()
        });
        assert_eq!(hidden.design(Design::NoKey), "design 3");
        assert_eq!(hidden.design_with_id(Design::WithCharge), "design 1");
        assert_eq!(
            hidden.text("Under key stored with the charge (with-charge) and no-key alike"),
            "Under design 1 (design 1) and design 3 alike"
        );
        assert_eq!(shown.text("no-key"), "no-key");
        // A name that starts a sentence is still a name.
        assert_eq!(
            hidden.text("Content-hash refuses it. Key logged first, In-progress record."),
            "design 5 refuses it. design 4, design 6."
        );
        // Plain words stay plain: "no key" is English, and a name inside a word is no name.
        assert_eq!(
            hidden.text("a request with no key; the no-keys"),
            "a request with no key; the no-keys"
        );
    }

    #[test]
    fn an_open_question_keeps_back_keys_and_memory() {
        let open = Withheld::NONE.asking(true);
        assert!(!open.shows_keys() && !open.shows_memory());
        assert!(open.shows_statement() && open.shows_outcome() && open.shows_design());
        assert!(Withheld::NONE.shows_keys());
    }
}
