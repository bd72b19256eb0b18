//! The glossary: the overlay (`?` then `g`) lists every term with its meaning, and the narration
//! underlines a term where it is first used.

use crate::common;

use common::{PLAIN, app, ch, collapse, flat, key, panel, press, render_full};
use idem::tui::app::Overlay;
use idem::tui::view::glossary::{TERMS, marked};
use idem::tui::{Msg, settle};
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Modifier;

#[test]
fn glossary_lists_every_term() {
    let mut app = app();
    assert_eq!(press(&mut app, ch('?')), Some(Msg::ToggleHelp));
    assert_eq!(app.screens.overlay, Overlay::Help);
    assert_eq!(press(&mut app, ch('g')), Some(Msg::OpenGlossary));
    assert_eq!(app.screens.overlay, Overlay::Glossary);
    let screen = render_full(&app);
    let inner = panel(&screen, " Glossary ");
    let text = flat(&inner);
    assert_eq!(TERMS.len(), 8);
    for (term, meaning) in TERMS {
        assert!(
            inner.iter().any(|l| l.starts_with(&format!("{term}: "))),
            "{term} starts a line:\n{screen}"
        );
        assert!(
            text.contains(&format!("{term}: {}", collapse(meaning))),
            "{term} with its meaning in {text}"
        );
    }
    assert_eq!(press(&mut app, key(KeyCode::Esc)), Some(Msg::Back));
    assert_eq!(app.screens.overlay, Overlay::None);
}

/// The underlined stretches of a marked text.
fn underlined(text: &ratatui::text::Text<'_>) -> Vec<String> {
    text.lines
        .iter()
        .flat_map(|l| &l.spans)
        .filter(|s| s.style.add_modifier.contains(Modifier::UNDERLINED))
        .map(|s| s.content.to_string())
        .collect()
}

fn plain_text(text: &ratatui::text::Text<'_>) -> String {
    text.lines
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn glossary_terms_are_marked_where_first_used() {
    let mut app = app();
    let first = app.told().narrations[0].clone();
    assert!(first.contains("idempotency key"));
    let marked0 = marked(&first, &app, &PLAIN);
    assert_eq!(plain_text(&marked0), first, "marking keeps the text");
    let marks = underlined(&marked0);
    assert!(
        marks.iter().any(|m| m == "idempotency key"),
        "{marks:?} in {first}"
    );
    assert_eq!(marks, ["idempotency key", "intent", "attempt"], "{first}");

    // Tick 1 uses "attempt" again, but it was first used at tick 0: nothing is marked.
    settle(&mut app, Msg::Next);
    let second = app.told().narrations[1].clone();
    assert!(second.contains("attempt"));
    assert_eq!(
        underlined(&marked(&second, &app, &PLAIN)),
        Vec::<String>::new()
    );
    // The first tick's own words, read at a later tick, are not marked either.
    assert_eq!(
        underlined(&marked(&first, &app, &PLAIN)),
        Vec::<String>::new()
    );

    // "retention window" is first used at the charge (tick 3) under with-charge.
    let uses: Vec<usize> = app
        .told()
        .narrations
        .iter()
        .enumerate()
        .filter(|(_, n)| n.contains("retention window"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(uses[0], 3, "{uses:?}");
    settle(&mut app, Msg::Next);
    settle(&mut app, Msg::Next);
    let third = app.told().narrations[3].clone();
    assert_eq!(
        underlined(&marked(&third, &app, &PLAIN)),
        ["fingerprint", "retention window"]
    );
    // On screen: the narration box shows the tick's words.
    let screen = render_full(&app);
    assert!(
        flat(&panel(&screen, " What happens ")).contains("retention window of 24 h"),
        "{screen}"
    );
}

/// Where each term is first used, found in one pass that stops once every term is found, is
/// where a search of the whole story for each term in turn finds it: for every built-in
/// scenario under every design.
#[test]
fn first_uses_are_the_first_narrations_that_use_each_term() {
    use idem::story::glossary::{TERMS, first_uses, whole_word};
    for builtin in idem::scenario::library::BUILTIN {
        let scenario = builtin.load().expect("a built-in loads");
        for design in idem::sim::Design::ALL {
            let trace = scenario.simulate(design).expect("simulates");
            let told = scenario.tell(&trace);
            let slow: Vec<Option<usize>> = TERMS
                .iter()
                .map(|(term, _)| {
                    told.narrations
                        .iter()
                        .position(|n| whole_word(&n.to_lowercase(), term).is_some())
                })
                .collect();
            assert_eq!(first_uses(&told), slow, "{} under {design:?}", builtin.name);
        }
    }
}
