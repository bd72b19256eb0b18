//! `idem window --config`: any text is refused with a positioned error, or gives a stack
//! whose report, text and JSON can be worked out. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match idem::window::parse_stack(text, Path::new("fuzz.toml")) {
        Ok(stack) => {
            if let Ok(report) = stack.report() {
                let _ = report.to_text();
                let _ = idem::window::json::to_json(&report);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
