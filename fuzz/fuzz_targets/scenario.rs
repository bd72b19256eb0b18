//! The scenario loader, end to end: any text either is refused with a positioned error or
//! loads, simulates under every design, takes a what-if, and saves to a file that loads
//! again as the same story. Nothing may panic.
#![no_main]

use idem::scenario::{self, fork, fork_toml};
use idem::sim::Design;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(s) = scenario::parse("fuzz.toml", "fuzz", text) else {
        return;
    };
    // The error report of a refused file is exercised by `parse` itself; a loaded one runs.
    let mut added = Vec::new();
    for design in Design::ALL {
        let Ok(trace) = s.simulate(design) else {
            continue;
        };
        // A what-if at the middle tick, as the replay's `x`, `!` and `s` keys make them.
        if added.is_empty() {
            let at = trace.ticks.len() / 2;
            for what in [
                fork::WhatIf::DropInFlight,
                fork::WhatIf::CrashNext,
                fork::WhatIf::SlowAttempt,
            ] {
                if let Ok(fault) = fork::fault_for(&s, &trace, at, what) {
                    added.push(fault);
                    break;
                }
            }
        }
    }
    // Saving must round-trip: the saved file loads, and tells the same story.
    for faults in [&[][..], &added[..]] {
        let saved = fork_toml::to_toml(&s, faults)
            .unwrap_or_else(|e| panic!("a what-if on a loaded scenario cannot be saved: {e}"));
        let again = scenario::parse("saved.toml", "fuzz", &saved)
            .unwrap_or_else(|e| panic!("a saved scenario does not load:\n{e}\n---\n{saved}"));
        let expected = fork::with_faults(&s, faults);
        let config = |c: &idem::sim::SimConfig| serde_json::to_string(c).unwrap_or_default();
        assert_eq!(
            config(&again.config),
            config(&expected.config),
            "the saved scenario tells another story:\n{saved}"
        );
    }
});
