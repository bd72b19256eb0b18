//! Which lane a tick is drawn on when the checkout's layers each have a lane: the shop's own
//! work (the night job, its refunds and alerts) stands with what ends or restarts the run, on
//! the outermost layer's lane, never on the lane of the layer that sends the requests.

use crate::common;

use common::{builtin_source, panel, render};
use idem::sim::fact::Fact;
use idem::sim::{Design, TickKind};
use idem::tui::{App, Msg, settle};

/// mobile-gateway (an API gateway inside a mobile app, a lane each) with a night job at 02:00,
/// without its question.
fn gateway_with_a_night_job() -> App {
    let source = format!(
        "{}\n[reconcile]\nat = \"02:00\"\n",
        builtin_source("mobile-gateway")
    );
    let mut scenario = idem::scenario::parse("gateway-night.toml", "gateway-night", &source)
        .unwrap_or_else(|e| panic!("{e}"));
    // Its question would hold the replay up before the night.
    scenario.quizzes.clear();
    assert_eq!(scenario.lanes.layers, ["API gateway", "mobile app"]);
    let mut app = App::new(scenario, "gateway-night".to_string()).expect("simulates");
    settle(&mut app, Msg::SwitchDesign(Design::WithCharge));
    app
}

/// The column where `text` starts in `row`, in characters.
fn column(row: &str, text: &str) -> Option<usize> {
    row.find(text).map(|b| row[..b].chars().count())
}

#[test]
fn the_night_job_is_drawn_on_the_shops_lane_not_the_gateways() {
    let mut app = gateway_with_a_night_job();
    let trace = app.trace();
    let job = trace
        .ticks
        .iter()
        .position(|t| matches!(t.fact, Fact::Reconcile { .. }))
        .expect("the night job runs");
    let refund = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Refund)
        .expect("with-charge charges twice here, so the job refunds one");
    // Every tick of the job stands where the lane names say the app is.
    for tick in &trace.ticks[job..] {
        if tick.actor == idem::sim::Actor::Checkout {
            assert_eq!(
                app.version.scenario().lanes.of_tick(tick),
                "mobile app",
                "{:?}",
                tick.fact
            );
        }
    }
    settle(&mut app, Msg::GoToTick(refund));
    let screen = render(&app, 80, 24);
    insta::assert_snapshot!("night_job_on_the_app_lane_80x24", screen);
    let timeline = panel(&screen, " Timeline ");
    let names = &timeline[0];
    let app_lane = column(names, "mob").unwrap_or_else(|| panic!("{screen}"));
    let gateway_lane = column(names, "API").unwrap_or_else(|| panic!("{screen}"));
    // The comparison (⇄) and the refund (↩), each on a row of its own, under the app's name.
    for mark in ["⇄", "↩"] {
        let row = timeline
            .iter()
            .find(|r| r.contains(mark))
            .unwrap_or_else(|| panic!("no row with {mark}:\n{screen}"));
        let at = column(row, mark).unwrap_or(usize::MAX);
        assert!(
            at.abs_diff(app_lane) < at.abs_diff(gateway_lane),
            "{mark} at {at}, the app's lane at {app_lane}, the gateway's at {gateway_lane}:\n{screen}"
        );
    }
}
