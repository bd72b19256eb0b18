//! The bodies of the fuzz targets in `fuzz/`, one function a target: any bytes in, a panic
//! only when the property the target holds is broken, which is how a fuzzer reports it. They
//! live here rather than in the fuzz crate so they are built with everything else (a change
//! to an interface they use fails the build, not a fuzz run weeks later), and `cargo test`
//! runs them over every seed and reproducer in `fuzz/` (`tests/integration/fuzz_seeds.rs`).

use crate::scenario::{self, fork, fork_toml};
use crate::sim::Design;
use std::path::Path;

/// The scenario loader, end to end: any text is refused with a positioned error, or loads,
/// simulates under every design, takes a what-if, and saves to a file that loads again as
/// the same story.
pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(s) = scenario::parse("fuzz.toml", "fuzz", text) else {
        return;
    };
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
        let config = |c: &crate::sim::SimConfig| serde_json::to_string(c).unwrap_or_default();
        assert_eq!(
            config(&again.config),
            config(&expected.config),
            "the saved scenario tells another story:\n{saved}"
        );
    }
}

/// The small parsers of times, durations and amounts, in scenario files and on the command
/// line, and `idem window`'s flags: any text is accepted or refused with a message.
pub fn values(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(at) = scenario::values::parse_clock(text) {
        let _ = at.resolve(crate::sim::Instant(0));
        let _ = at.resolve(crate::sim::Instant(u64::MAX / 2));
    }
    let _ = scenario::values::parse_duration(text);
    if let Ok(cents) = crate::sim::money::parse_money(text) {
        let _ = cents.to_string();
    }
    let _ = text.parse::<scenario::values::DesignChoice>();
    // The window command's flags: a layer, a path, a window and a safety factor.
    let args = crate::cli::window::WindowArgs {
        layers: vec![text.to_string()],
        paths: vec![text.to_string()],
        ..Default::default()
    };
    let _ = crate::cli::window::run(&args);
    let args = crate::cli::window::WindowArgs {
        window: Some(text.to_string()),
        safety: Some(text.to_string()),
        ..Default::default()
    };
    let _ = crate::cli::window::run(&args);
}

/// `idem window --config`: any text is refused with a positioned error, or gives a stack
/// whose report, text and JSON can be worked out.
pub fn window_config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match crate::window::parse_stack(text, Path::new("fuzz.toml")) {
        Ok(stack) => {
            if let Ok(report) = stack.report() {
                let _ = report.to_text();
                let _ = crate::window::json::to_json(&report);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}
