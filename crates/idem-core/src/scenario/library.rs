//! The canonical scenarios, compiled into the binary so an installed `idem` needs no files.

use super::{Scenario, ScenarioError};

/// One built-in scenario.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    pub name: &'static str,
    pub text: &'static str,
}

impl Builtin {
    pub fn load(&self) -> Result<Scenario, ScenarioError> {
        let file = format!("{} (built-in)", self.name);
        let mut scenario = super::parse_surveyed(&file, self.name, self.text, super::Survey::Done)?;
        scenario.origin = super::Origin::BuiltIn(self.name);
        Ok(scenario)
    }
}

macro_rules! builtin {
    ($name:literal) => {
        Builtin {
            name: $name,
            text: include_str!(concat!("../../../../scenarios/", $name, ".toml")),
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
