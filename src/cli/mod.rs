//! The command-line commands other than the interactive replay.

pub mod check;
pub mod drill;
pub mod explore;
pub mod export;
pub mod failure;
pub mod import;
pub mod json;
pub mod list;
pub mod manual;
pub mod new;
pub mod progress;
pub mod run;
pub mod serve;
pub mod traffic;
pub mod window;

pub use failure::Failure;

use crate::scenario::{self, Scenario, ScenarioError};

/// Loads the scenario named on the command line, or the built-in default.
pub fn load_scenario(arg: Option<&str>) -> Result<Scenario, ScenarioError> {
    match arg {
        Some(a) => scenario::resolve(a),
        None => scenario::library::default_scenario(),
    }
}

/// Prints a scenario's warnings to standard error.
pub fn print_warnings(s: &Scenario, file: &str) {
    let file = crate::text::sanitize_line(file);
    for w in &s.warnings {
        failure::eprint(&failure::diagnostic_text(&file, w));
    }
}
