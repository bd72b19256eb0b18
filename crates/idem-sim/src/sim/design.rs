//! The six processor designs the simulation can run.

use serde::{Deserialize, Serialize};

/// How the processor remembers (or fails to remember) a request it has seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Design {
    /// The key record and the ledger line are committed in one atomic write.
    WithCharge,
    /// The charge is written, then the key is appended to a separate log.
    LogAfterCharge,
    /// The key is appended to a separate log, then the charge is written.
    LogBeforeCharge,
    /// No memory at all: every request is a new charge.
    NoKey,
    /// No key: the processor remembers a hash of each charged request body.
    ContentHash,
    /// A durable in-progress record written before the charge, completed in a separate
    /// write after it, and deleted when the handler fails (the AWS Lambda Powertools shape).
    /// Written by its id, as everywhere else (kebab-case would split "inprogress").
    #[serde(rename = "inprogress-record")]
    InProgressRecord,
}

impl Design {
    /// Every design, in the order of their number keys.
    pub const ALL: [Design; 6] = [
        Design::WithCharge,
        Design::LogAfterCharge,
        Design::NoKey,
        Design::LogBeforeCharge,
        Design::ContentHash,
        Design::InProgressRecord,
    ];

    /// The three designs the product is built around (keys 1, 2 and 3).
    pub const CORE: [Design; 3] = [Design::WithCharge, Design::LogAfterCharge, Design::NoKey];

    /// The id used in files and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            Design::WithCharge => "with-charge",
            Design::LogAfterCharge => "log-after-charge",
            Design::LogBeforeCharge => "log-before-charge",
            Design::NoKey => "no-key",
            Design::ContentHash => "content-hash",
            Design::InProgressRecord => "inprogress-record",
        }
    }

    /// The name shown on screen.
    pub fn name(self) -> &'static str {
        match self {
            Design::WithCharge => "key stored with the charge",
            Design::LogAfterCharge => "key logged separately",
            Design::LogBeforeCharge => "key logged first",
            Design::NoKey => "no key",
            Design::ContentHash => "dedupe on content",
            Design::InProgressRecord => "in-progress record",
        }
    }

    /// The number key (1–6) that selects the design.
    pub fn hotkey(self) -> u8 {
        match self {
            Design::WithCharge => 1,
            Design::LogAfterCharge => 2,
            Design::NoKey => 3,
            Design::LogBeforeCharge => 4,
            Design::ContentHash => 5,
            Design::InProgressRecord => 6,
        }
    }

    pub fn from_hotkey(n: u8) -> Option<Design> {
        Design::ALL.into_iter().find(|d| d.hotkey() == n)
    }

    /// Whether this design reads the idempotency key at all.
    pub fn uses_key(self) -> bool {
        matches!(
            self,
            Design::WithCharge
                | Design::LogAfterCharge
                | Design::LogBeforeCharge
                | Design::InProgressRecord
        )
    }
}

impl std::fmt::Display for Design {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}
/// The one reader of a design's name, wherever one is written: a scenario's `design`, the
/// `--design` flag, the presenter's position. It takes an id (`with-charge`) or the number
/// key that selects the design in the replay (`1`).
impl std::str::FromStr for Design {
    type Err = String;

    fn from_str(text: &str) -> Result<Design, String> {
        if let Ok(n) = text.parse::<u8>()
            && let Some(d) = Design::from_hotkey(n)
        {
            return Ok(d);
        }
        crate::text::choice(text, "design", &Design::ALL.map(|d| (d.id(), d)))
            .map_err(|e| format!("{e} (or a number 1–{})", Design::ALL.len()))
    }
}
