//! The canonical scenarios, compiled into the binary so an installed `idem` needs no files.

use super::{Scenario, ScenarioError};

/// One built-in scenario.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    pub name: &'static str,
    pub text: &'static str,
    /// The scenario as read from `text`, kept as JSON (`built/NAME.json`): reading that is a
    /// fraction of reading the TOML, and the first frame waits for it. A test holds it to
    /// what reading `text` gives now.
    read: &'static str,
}

impl Builtin {
    pub fn load(&self) -> Result<Scenario, ScenarioError> {
        let mut scenario = match self.read_before() {
            Some(scenario) => scenario,
            None => self.parse()?,
        };
        scenario.origin = super::Origin::BuiltIn(self.name);
        Ok(scenario)
    }

    /// The scenario read from its TOML text.
    fn parse(&self) -> Result<Scenario, ScenarioError> {
        let file = format!("{} (built-in)", self.name);
        super::parse_surveyed(&file, self.name, self.text, super::Survey::Done)
    }

    /// The scenario as its kept reading has it, unless that reading was of other text than
    /// the built-in's (an edit not yet written again: then the TOML is read).
    fn read_before(&self) -> Option<Scenario> {
        let mut scenario: Scenario = serde_json::from_str(self.read).ok()?;
        if scenario.text != self.text {
            return None;
        }
        // What is worked out from the fields is not kept.
        scenario.config.digest_intents();
        Some(scenario)
    }
}

macro_rules! builtin {
    ($name:literal) => {
        Builtin {
            name: $name,
            text: include_str!(concat!("../../../../scenarios/", $name, ".toml")),
            read: include_str!(concat!("built/", $name, ".json")),
        }
    };
}

/// The canonical scenarios of docs/model.md §3, the default first.
pub const BUILTIN: &[Builtin] = &[
    builtin!("order-5531"),
    builtin!("reply-lost"),
    builtin!("request-lost"),
    builtin!("slow-processor"),
    builtin!("crash-after-key"),
    builtin!("key-reuse"),
    builtin!("second-purchase"),
    builtin!("per-attempt-key"),
    builtin!("monday-rerun"),
    builtin!("powertools-handler-error"),
    builtin!("lookup-first"),
    builtin!("nightly-reconcile"),
    builtin!("courier-retry"),
    builtin!("inprogress-crash"),
    builtin!("mobile-gateway"),
    builtin!("webhook-redelivery"),
    builtin!("queue-redelivery"),
];

/// The scenario `idem` replays when given none.
pub fn default_scenario() -> Result<Scenario, ScenarioError> {
    BUILTIN[0].load()
}

pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTIN.iter().find(|b| b.name == name)
}

#[cfg(test)]
mod tests {
    use super::BUILTIN;

    /// Every built-in's kept reading is what reading its TOML gives today, field for field,
    /// and loading one gives that. `IDEM_REGENERATE=1 cargo test -p idem-core built_in`
    /// writes them again after a scenario or the reader changes.
    #[test]
    fn a_built_in_is_loaded_as_its_toml_reads() {
        let regenerate = std::env::var_os("IDEM_REGENERATE").is_some();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scenario/built");
        let mut stale = Vec::new();
        for b in BUILTIN {
            let parsed = b.parse().unwrap_or_else(|e| panic!("{}: {e}", b.name));
            let mut written =
                serde_json::to_string_pretty(&parsed).unwrap_or_else(|e| panic!("{}: {e}", b.name));
            written.push('\n');
            if regenerate {
                let path = dir.join(format!("{}.json", b.name));
                std::fs::write(&path, &written)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                continue;
            }
            if written != b.read {
                stale.push(b.name);
                continue;
            }
            let kept = b
                .read_before()
                .unwrap_or_else(|| panic!("{}: not read", b.name));
            assert_eq!(format!("{kept:?}"), format!("{parsed:?}"), "{}", b.name);
            let loaded = b.load().unwrap_or_else(|e| panic!("{}: {e}", b.name));
            assert_eq!(loaded.origin, super::super::Origin::BuiltIn(b.name));
        }
        assert!(
            stale.is_empty(),
            "the kept readings of {stale:?} are out of date: run \
             `IDEM_REGENERATE=1 cargo test -p idem-core built_in` and commit \
             crates/idem-core/src/scenario/built/"
        );
    }

    /// A kept reading of other text than the scenario's is not used: the TOML is read.
    #[test]
    fn a_reading_of_other_text_is_not_used() {
        let mut b = BUILTIN[0];
        b.text = BUILTIN[1].text;
        assert!(b.read_before().is_none());
        let loaded = b.load().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loaded.name, BUILTIN[0].name);
        assert_eq!(loaded.text, BUILTIN[1].text);
    }

    /// A built-in is read without surveying its ticks under every design or checking its
    /// shape: this holds that the survey finds nothing in any of them, neither error nor
    /// warning, and that the shape is within bounds, so skipping them changes nothing a
    /// person sees.
    #[test]
    fn the_survey_finds_nothing_in_a_built_in() {
        for b in BUILTIN {
            let shape = super::super::check_shape(b.name, b.text);
            assert!(shape.is_ok(), "{}: {shape:?}", b.name);
            let loaded = b.load().unwrap_or_else(|e| panic!("{}: {e}", b.name));
            let found = super::super::targets::check(&loaded);
            assert!(found.is_empty(), "{}: {found:?}", b.name);
            let read = super::super::parse(b.name, b.name, b.text)
                .unwrap_or_else(|e| panic!("{}: {e}", b.name));
            assert!(read.warnings.is_empty(), "{}: {:?}", b.name, read.warnings);
        }
    }
}
