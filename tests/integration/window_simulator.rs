//! The window calculator held to the simulator where the command line or the replay's screen
//! build the stack; the calculator's own figures are held to the simulator in `idem-window`'s
//! tests (`crates/idem-window/tests/integration/window_simulator.rs`).

use crate::common;

use idem::scenario;

#[test]
fn a_layer_given_a_timeout_on_the_command_line_counts_it() {
    let stack = idem::cli::window::stack_from_args(&idem::cli::window::WindowArgs {
        layers: vec!["http=2s:3:30s".into(), "job=1m:2".into()],
        ..Default::default()
    })
    .expect("valid flags");
    let report = stack.report().expect("valid");
    // Inner: 3 × 30 s + 2 × 2 s = 94 s; outer: 2 × 94 s + 1 min = 248 s, the
    // last request 30 s before that.
    assert_eq!(report.gives_up.whole_seconds(), Some(248));
    assert_eq!(report.automatic_delay.whole_seconds(), Some(218));
    assert!(report.to_text().contains("Gives up after           248 s"));
}

#[test]
fn enter_on_the_window_screen_replays_the_scenarios_own_purchase() {
    use idem::tui::app::Screen;
    use ratatui::crossterm::event::KeyCode;

    let source = r#"
title = "A shop of its own"
merchant = "PAPER LANTERN"

[[checkout.layer]]
name = "checkout"
attempts = 2
timeout = "10s"
backoff = "2s"

[network]
latency = "80ms"

[processor]
processing = "350ms"

[[intent]]
order = "7001"
key = "Q9ZZ"
amount = "$12.34"
items = ["lantern"]
at = "09:15:00"
"#;
    let custom = scenario::parse("own.toml", "own", source).expect("parses");
    let mut app = idem::tui::App::new(custom, "own".into()).expect("simulates");
    common::press(&mut app, common::ch('w'));
    assert_eq!(app.screens.screen, Screen::Window);
    common::press(&mut app, common::key(KeyCode::Enter));
    assert_eq!(app.screens.screen, Screen::Replay);
    let config = &app.version.scenario().config;
    let intent = &config.intents[0];
    assert_eq!(&*intent.order, "7001");
    assert_eq!(&*intent.key, "Q9ZZ");
    assert_eq!(intent.amount.to_string(), "$12.34");
    assert_eq!(intent.items, ["lantern"]);
    assert_eq!(intent.at.0, 9 * 3_600_000 + 15 * 60_000);
    assert_eq!(config.merchant, "PAPER LANTERN");
    assert_eq!(config.latency_ms, 80);
    assert_eq!(config.processing_ms, 350);
    assert_eq!(config.timeout_ms, 10_000);
}
