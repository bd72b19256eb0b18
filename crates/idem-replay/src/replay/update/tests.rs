//! The update's own tests: each part of it driven through the router with the default story,
//! without a terminal or a key table.

use super::settle;
use crate::replay::app::{App, Overlay, Screen};
use crate::replay::msg::Msg;
use crate::scenario::library::default_scenario;
use crate::sim::Design;

fn app() -> App {
    let scenario = default_scenario().expect("the default story reads");
    App::new(scenario, "order-5531".into()).expect("the default story simulates")
}

#[test]
fn stepping_moves_one_tick_and_stops_at_either_end() {
    let mut app = app();
    settle(&mut app, Msg::Prev);
    assert_eq!(app.place.tick, 0);
    settle(&mut app, Msg::Next);
    assert_eq!(app.place.tick, 1);
    settle(&mut app, Msg::First);
    assert_eq!(app.place.tick, 0);
}

#[test]
fn another_design_keeps_the_moment() {
    let mut app = app();
    for _ in 0..4 {
        settle(&mut app, Msg::Next);
    }
    let at = app.trace().ticks[app.place.tick].at;
    settle(&mut app, Msg::SwitchDesign(Design::NoKey));
    assert_eq!(app.place.design, Design::NoKey);
    assert!(app.trace().ticks[app.place.tick].at <= at);
}

#[test]
fn compare_keeps_at_least_two_columns() {
    let mut app = app();
    settle(&mut app, Msg::ToggleCompare);
    assert_eq!(app.screens.screen, Screen::Compare);
    while app.screens.compared.len() > 2 {
        let d = app.screens.compared[0];
        settle(&mut app, Msg::ToggleCompared(d));
    }
    let d = app.screens.compared[0];
    settle(&mut app, Msg::ToggleCompared(d));
    assert_eq!(app.screens.compared.len(), 2, "never fewer than two");
    settle(&mut app, Msg::Back);
    assert_eq!(app.screens.screen, Screen::Replay);
}

#[test]
fn esc_closes_what_is_open_and_never_quits() {
    let mut app = app();
    settle(&mut app, Msg::ToggleHelp);
    assert_eq!(app.screens.overlay, Overlay::Help);
    settle(&mut app, Msg::Back);
    assert_eq!(app.screens.overlay, Overlay::None);
    settle(&mut app, Msg::Back);
    assert!(!app.quit);
    assert!(app.screens.notice.is_some(), "says q quits");
    settle(&mut app, Msg::Quit);
    assert!(app.quit);
}

#[test]
fn typing_goes_to_the_dialog_that_is_open() {
    let mut app = app();
    settle(&mut app, Msg::OpenGoto);
    for c in "3".chars() {
        settle(&mut app, Msg::Type(c));
    }
    settle(&mut app, Msg::Confirm);
    assert_eq!(app.screens.overlay, Overlay::None);
    assert_eq!(app.place.tick, 2, "tick 3, counted from 1");
}

#[test]
fn a_what_if_changes_the_story_and_undo_takes_it_back() {
    let mut app = app();
    settle(&mut app, Msg::Next);
    let before = app.version.revision;
    settle(
        &mut app,
        Msg::Fork(crate::scenario::fork::WhatIf::DropInFlight),
    );
    assert_ne!(app.version.revision, before);
    settle(&mut app, Msg::Unfork);
    assert!(app.version.added.is_empty());
}
