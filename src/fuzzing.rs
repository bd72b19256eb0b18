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

/// A day of traffic from any scenario the loader takes, at most a few thousand orders under
/// every design: it runs or is refused with a message, and its figures agree with each other.
pub fn traffic(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(s) = scenario::parse("fuzz.toml", "fuzz", text) else {
        return;
    };
    let Ok((mut settings, _)) = crate::traffic::Settings::of_scenario_or_assumed(&s) else {
        return;
    };
    settings.orders = settings.orders.min(2_000);
    let progress = crate::traffic::Progress::default();
    let Ok(report) = crate::traffic::run(&s, &settings, &Design::ALL, 1, &progress) else {
        return;
    };
    for d in &report.designs {
        let id = d.design.id();
        assert_eq!(
            d.ended_wrong + d.correct + d.not_charged,
            d.orders,
            "{id}: every order ends once"
        );
        assert!(
            d.duplicate_orders <= d.ended_wrong,
            "{id}: duplicates are harm"
        );
        assert!(
            d.peak_keys <= d.keys_stored,
            "{id}: a peak of keys never written"
        );
        assert!(
            d.keys_evicted + d.keys_held_at_end <= d.keys_stored,
            "{id}: keys left that were never written"
        );
        assert!(
            d.week_peak_keys <= d.keys_stored,
            "{id}: a week of keys never written"
        );
        assert_eq!(d.peak_bytes, d.peak_keys * settings.record_bytes, "{id}");
        let _ = crate::traffic::words::design_figures(&report, d);
    }
    let _ = crate::traffic::words::week_of_keys(&report, s.config.retention_ms);
}

/// Every export of any scenario the loader takes, at a small screen the bytes choose: each
/// handout, an SVG frame and a recording are written, or refused with a message.
pub fn export(data: &[u8]) {
    use crate::export::{ExportOptions, Format, markdown::Audience};
    let (width, height, rest) = match data {
        [w, h, rest @ ..] => (20 + u16::from(*w % 100), 8 + u16::from(*h % 40), rest),
        _ => return,
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(s) = scenario::parse("fuzz.toml", "fuzz", text) else {
        return;
    };
    for audience in [
        Audience::PreRead,
        Audience::Compact,
        Audience::Students,
        Audience::Trainer,
    ] {
        let mut md = ExportOptions::new(Format::Md);
        md.audience = audience;
        let _ = crate::export::render(&s, "fuzz", &md);
    }
    for format in [Format::Svg, Format::Cast] {
        let mut o = ExportOptions::new(format);
        o.width = Some(width);
        o.height = Some(height);
        let _ = crate::export::render(&s, "fuzz", &o);
    }
}

/// The replay's screen on a terminal of any size the first four bytes say, 0 × 0 and
/// 65,535 × 65,535 included: the frame is drawn at its bounded size, never larger, and
/// drawing never panics. The rest of the bytes are a scenario, or the default one.
pub fn terminal_size(data: &[u8]) {
    let (width, height, rest) = match data {
        [a, b, c, d, rest @ ..] => (
            u16::from_le_bytes([*a, *b]),
            u16::from_le_bytes([*c, *d]),
            rest,
        ),
        _ => return,
    };
    let scenario = std::str::from_utf8(rest)
        .ok()
        .and_then(|t| scenario::parse("fuzz.toml", "fuzz", t).ok())
        .or_else(|| scenario::library::default_scenario().ok());
    let Some(scenario) = scenario else {
        return;
    };
    let Ok(app) =
        crate::tui::App::launch(scenario, "fuzz".into(), crate::tui::app::Launch::default())
    else {
        return;
    };
    let real = crate::tui::backend::Size { width, height };
    let drawn = crate::tui::view::draw_on_bounded_screen(&app, real);
    assert!(
        drawn.width <= crate::tui::backend::MAX_COLS
            && drawn.height <= crate::tui::backend::MAX_ROWS
            && drawn.width <= width
            && drawn.height <= height,
        "{width}×{height} drawn at {drawn:?}"
    );
}
