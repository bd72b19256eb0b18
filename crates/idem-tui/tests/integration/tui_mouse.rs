//! The mouse in the replay: the wheel steps through the story, a click on a design's tab
//! switches to it, a click on a timeline row goes to that tick. Events are mapped against
//! where the last frame drew things, as the terminal's loop does.

use crate::common;

use common::{app, ch, press, render};
use idem::scenario::library::default_scenario;
use idem::sim::Design;
use idem::tui::app::{Overlay, Screen};
use idem::tui::keymap::map_mouse;
use idem::tui::program::Program;
use idem::tui::view::Hits;
use idem::tui::{App, Msg, settle};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

fn mouse(kind: MouseEventKind, column: u16, row: u16) -> MouseEvent {
    MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }
}

fn click(column: u16, row: u16) -> MouseEvent {
    mouse(MouseEventKind::Down(MouseButton::Left), column, row)
}

/// Where a frame of the replay at `width`×`height` drew what a click can choose, as the
/// loop keeps it.
fn drawn(app: &App, width: u16, height: u16) -> Hits {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    let mut hits = Hits::default();
    terminal
        .draw(|f| hits = idem::tui::view::drawn(f, app, &common::PLAIN))
        .expect("drawing never fails");
    hits
}

/// Draws the replay at 80×24, then maps and applies the event, as the loop does.
fn act(app: &mut App, event: MouseEvent) -> Option<Msg> {
    let hits = drawn(app, 80, 24);
    let msg = map_mouse(event, app, &hits);
    if let Some(m) = msg.clone() {
        settle(app, m);
    }
    msg
}

/// Where `text` starts on the screen: (column, row), counted in characters.
fn find(screen: &str, text: &str) -> (u16, u16) {
    for (row, line) in screen.lines().enumerate() {
        if let Some(byte) = line.find(text) {
            return (line[..byte].chars().count() as u16, row as u16);
        }
    }
    panic!("{text:?} is not on the screen:\n{screen}");
}

#[test]
fn a_click_on_a_design_tab_switches_to_it_keeping_the_moment() {
    let mut app = app();
    for _ in 0..5 {
        press(&mut app, ch('l'));
    }
    let tick = app.place.tick;
    let (x, y) = find(&render(&app, 80, 24), "3 no key");
    assert_eq!(
        act(&mut app, click(x + 2, y)),
        Some(Msg::SwitchDesign(Design::NoKey))
    );
    assert_eq!(app.place.design, Design::NoKey);
    assert_eq!(app.place.tick, tick, "the same moment, another design");
    // The bar between two tabs belongs to neither.
    let (x, y) = find(&render(&app, 80, 24), "│ 4 log first");
    assert_eq!(map_mouse(click(x, y), &app, &drawn(&app, 80, 24)), None);
}

#[test]
fn the_wheel_steps_through_the_story() {
    let mut app = app();
    assert_eq!(
        act(&mut app, mouse(MouseEventKind::ScrollDown, 40, 10)),
        Some(Msg::Next)
    );
    assert_eq!(app.place.tick, 1);
    act(&mut app, mouse(MouseEventKind::ScrollDown, 40, 10));
    assert_eq!(app.place.tick, 2);
    assert_eq!(
        act(&mut app, mouse(MouseEventKind::ScrollUp, 40, 10)),
        Some(Msg::Prev)
    );
    assert_eq!(app.place.tick, 1);
}

#[test]
fn a_click_on_a_timeline_row_goes_to_that_tick() {
    let mut app = app();
    for _ in 0..6 {
        press(&mut app, ch('l'));
    }
    assert_eq!(app.place.tick, 6);
    // The first row is the customer pressing Pay; the one under it is tick 2.
    let (x, y) = find(&render(&app, 80, 24), "presses Pay");
    assert_eq!(act(&mut app, click(x, y + 1)), Some(Msg::GoToTick(1)));
    assert_eq!(app.place.tick, 1);
    // Outside the rows: nothing.
    assert_eq!(map_mouse(click(79, 23), &app, &drawn(&app, 80, 24)), None);
}

#[test]
fn in_compare_a_click_on_a_tab_adds_or_removes_its_column() {
    let mut app = app();
    press(&mut app, ch('c'));
    assert_eq!(app.screens.screen, Screen::Compare);
    let before = app.screens.compared.clone();
    let (x, y) = find(&render(&app, 80, 24), "4 log first");
    assert_eq!(
        act(&mut app, click(x + 1, y)),
        Some(Msg::ToggleCompared(Design::LogBeforeCharge))
    );
    assert_ne!(app.screens.compared, before);
}

#[test]
fn a_click_never_answers_a_question() {
    let scenario = default_scenario().expect("loads");
    let mut app = App::new(scenario, "order-5531".to_string()).expect("simulates");
    while !app.quiz_pending() {
        press(&mut app, ch('l'));
    }
    let (x, y) = find(&render(&app, 80, 24), "2 log after");
    act(&mut app, click(x + 1, y));
    assert_eq!(app.place.design, Design::LogAfterCharge);
    assert!(!app.talk.room.any(), "{:?}", app.talk.room);
    assert!(app.quiz_pending(), "the question still waits");
    // The wheel forward is held by the question, as → is.
    let tick = app.place.tick;
    act(&mut app, mouse(MouseEventKind::ScrollDown, 40, 10));
    assert_eq!(app.place.tick, tick);
}

#[test]
fn over_the_help_the_wheel_scrolls_it_and_clicks_do_nothing() {
    let mut app = app();
    press(&mut app, ch('?'));
    assert_eq!(app.screens.overlay, Overlay::Help);
    assert_eq!(
        act(&mut app, mouse(MouseEventKind::ScrollDown, 40, 10)),
        Some(Msg::Down)
    );
    assert_eq!(app.screens.help_scroll, 1);
    assert_eq!(map_mouse(click(5, 2), &app, &drawn(&app, 80, 24)), None);
    assert_eq!(app.place.design, Design::WithCharge);
}

#[test]
fn without_the_mouse_the_replay_ignores_mouse_events() {
    let mut app = app();
    let _ = render(&app, 80, 24);
    let wheel = Event::Mouse(mouse(MouseEventKind::ScrollDown, 40, 10));
    assert_eq!(app.message(&wheel), None, "off unless launched with it");
    app.screens.mouse = true;
    assert_eq!(app.message(&wheel), Some(Msg::Next));
}

/// A click on a row of folded attempts goes back to the first tick it stands for, where the
/// attempts show one by one again.
#[test]
fn a_click_on_a_folded_row_goes_to_its_first_tick() {
    let text = "title = \"Eight tries\"\n[[checkout.layer]]\nattempts = 8\ntimeout = \"100ms\"\nbackoff = \"10ms\"\n[processor]\nprocessing = \"10h\"\n[[intent]]\norder = \"1\"\namount = \"$1.00\"\nat = \"10:00:00\"\n";
    let scenario = idem::scenario::parse("eight.toml", "eight", text).expect("parses");
    let mut app = App::new(scenario, "eight".into()).expect("simulates");
    settle(&mut app, Msg::Last);
    settle(&mut app, Msg::ToggleFold);
    // Tall enough for the folded row to be on screen.
    let screen = render(&app, 120, 40);
    let (x, y) = find(&screen, "attempts #3–#7: same as #2");
    let first = app
        .told()
        .labels
        .iter()
        .position(|l| l.contains("#3"))
        .expect("a third attempt");
    let msg = map_mouse(click(x, y), &app, &drawn(&app, 120, 40));
    assert_eq!(msg, Some(Msg::GoToTick(first)));
    settle(&mut app, Msg::GoToTick(first));
    assert_eq!(app.place.tick, first);
    assert!(
        !render(&app, 120, 40).contains("#3–#7: same as"),
        "unfolded where it stands"
    );
}
