//! The checklist (`k`): its five questions with their answers, moving through them, and opening
//! the scenario that shows one.

use crate::common;

use common::{app, ch, collapse, flat, key, panel, press, render_full};
use idem::tui::Msg;
use idem::tui::app::Overlay;
use idem::tui::checklist::CHECKLIST;
use ratatui::crossterm::event::KeyCode;

#[test]
fn checklist_opens_moves_and_opens_a_scenario() {
    let mut app = app();
    assert_eq!(press(&mut app, ch('k')), Some(Msg::OpenChecklist));
    assert_eq!(app.screens.overlay, Overlay::Checklist(0));
    let screen = render_full(&app);
    insta::assert_snapshot!("checklist", screen);
    let inner = flat(&panel(&screen, " Before you trust a retry "));
    assert_eq!(CHECKLIST.len(), 5);
    for (i, c) in CHECKLIST.iter().enumerate() {
        let line = format!("{}. {} → {}", i + 1, c.question, c.scenario);
        assert!(inner.contains(&line), "{line:?} in {inner}");
    }
    // At 120×36 every answer is shown, not only the selected one.
    assert!(inner.contains(&collapse(CHECKLIST[4].why)), "{inner}");

    press(&mut app, key(KeyCode::Up));
    assert_eq!(
        app.screens.overlay,
        Overlay::Checklist(0),
        "Up stops at the first"
    );
    press(&mut app, key(KeyCode::Down));
    assert_eq!(app.screens.overlay, Overlay::Checklist(1));
    press(&mut app, key(KeyCode::Tab));
    assert_eq!(app.screens.overlay, Overlay::Checklist(2));
    assert_eq!(CHECKLIST[2].scenario, "monday-rerun");
    assert_eq!(press(&mut app, key(KeyCode::Enter)), Some(Msg::Confirm));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert_eq!(app.version.scenario().name, "monday-rerun");
    assert_eq!(app.source, "monday-rerun");
    assert_eq!(app.place.tick, 0);

    // Down stops at the last; k closes.
    press(&mut app, ch('k'));
    for _ in 0..10 {
        press(&mut app, key(KeyCode::Down));
    }
    assert_eq!(app.screens.overlay, Overlay::Checklist(4));
    assert_eq!(press(&mut app, ch('k')), Some(Msg::Back));
    assert_eq!(app.screens.overlay, Overlay::None);
}
