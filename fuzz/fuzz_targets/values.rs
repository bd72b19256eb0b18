//! The small parsers of times, durations and amounts, in scenario files and on the command
//! line: any text is accepted or refused with a message. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(at) = idem::scenario::values::parse_clock(text) {
        let _ = at.resolve(idem::sim::Instant(0));
        let _ = at.resolve(idem::sim::Instant(u64::MAX / 2));
    }
    let _ = idem::scenario::values::parse_duration(text);
    if let Ok(cents) = idem::sim::money::parse_money(text) {
        let _ = cents.to_string();
    }
    let _ = text.parse::<idem::scenario::values::DesignChoice>();
    // The window command's flags: a layer, a path, a window and a safety factor.
    let args = idem::cli::window::WindowArgs {
        layers: vec![text.to_string()],
        paths: vec![text.to_string()],
        ..Default::default()
    };
    let _ = idem::cli::window::run(&args);
    let args = idem::cli::window::WindowArgs {
        window: Some(text.to_string()),
        safety: Some(text.to_string()),
        ..Default::default()
    };
    let _ = idem::cli::window::run(&args);
});
