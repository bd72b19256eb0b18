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
