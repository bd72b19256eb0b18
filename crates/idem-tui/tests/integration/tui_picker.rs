//! The scenario picker (`o`): files first, then the built-ins; opening a file (and watching it)
//! or a built-in; a broken file or a missing path keeps it open with an error on one line.

use crate::common;

use common::{TempDir, app, bash_word, builtin_source, ch, flat, key, panel, press, render_full};
use idem::scenario::library::BUILTIN;
use idem::sim::Design;
use idem::tui::app::Overlay;
use idem::tui::{Msg, settle};
use ratatui::crossterm::event::KeyCode;
use std::path::PathBuf;

/// A temp dir with one good scenario and one broken one (plus a file that is not a scenario).
fn picker_dir() -> (TempDir, PathBuf, PathBuf) {
    let dir = TempDir::new("picker");
    // Written in the reverse of their sorted order.
    let broken = dir.write(
        "b-broken.toml",
        "title = \"Broken\"\n[[intent]]\norder = \"1\"\namount = \"$1.00\"\natempts = 3\n",
    );
    let good = dir.write(
        "a-good.toml",
        &builtin_source("reply-lost").replace(
            "title = \"Reply lost: charged, and nobody told\"",
            "title = \"My own reply-lost\"",
        ),
    );
    dir.write("notes.txt", "not a scenario");
    (dir, good, broken)
}

#[test]
fn picker_lists_files_then_builtins_and_opens_one() {
    let (dir, good, broken) = picker_dir();
    let picker = idem::tui::picker::list(dir.path());
    assert_eq!(picker.entries.len(), 2 + BUILTIN.len());
    assert_eq!(BUILTIN.len(), 17);
    assert_eq!(picker.selected, 0);
    assert_eq!(picker.typed, "");
    assert_eq!(picker.error, None);
    let (a, b) = (&picker.entries[0], &picker.entries[1]);
    assert_eq!(a.source, good.display().to_string());
    assert_eq!(a.title, "My own reply-lost");
    assert!(!a.builtin);
    assert!(
        a.summary.starts_with("The processor charges $48.60"),
        "{a:?}"
    );
    assert_eq!(b.source, broken.display().to_string());
    assert_eq!(b.title, "(this file has errors)");
    assert!(!b.builtin);
    assert!(b.summary.contains("atempts"), "{b:?}");
    let builtins: Vec<&str> = picker.entries[2..]
        .iter()
        .map(|e| e.source.as_str())
        .collect();
    let names: Vec<&str> = BUILTIN.iter().map(|b| b.name).collect();
    assert_eq!(builtins, names);
    assert!(picker.entries[2..].iter().all(|e| e.builtin));
    assert_eq!(
        picker.entries[2].title,
        "Order 5531: the answer that never came"
    );

    // Open it over a replay that has moved on, and choose reply-lost with the arrow keys.
    let mut app = app();
    press(&mut app, ch('3'));
    for _ in 0..4 {
        press(&mut app, key(KeyCode::Right));
    }
    app.screens.overlay = Overlay::Picker(picker);
    let reply_lost = 2 + names
        .iter()
        .position(|n| *n == "reply-lost")
        .expect("built in");
    for _ in 0..reply_lost + 2 {
        press(&mut app, key(KeyCode::Down));
    }
    press(&mut app, key(KeyCode::Up));
    press(&mut app, key(KeyCode::Up));
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("the picker is open");
    };
    assert_eq!(p.selected, reply_lost);
    assert_eq!(press(&mut app, key(KeyCode::Enter)), Some(Msg::Confirm));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert_eq!(app.version.scenario().name, "reply-lost");
    assert_eq!(
        app.version.scenario().title,
        "Reply lost: charged, and nobody told"
    );
    assert_eq!(app.source, "reply-lost");
    assert_eq!(app.version.watched(), None, "a built-in is not watched");
    assert_eq!(app.place.tick, 0);
    assert_eq!(
        app.place.design,
        Design::WithCharge,
        "the scenario's own design"
    );
    assert!(app.version.added.is_empty());
    assert!(app.told().labels.iter().any(|l| l == "answer to #1 lost"));
}

/// A file whose name holds control characters is listed without them, and still opens: the
/// picker keeps its real name. The share line then names it escaped, so a shell reads back the
/// same bytes and the terminal never sees them raw.
#[test]
fn the_picker_opens_a_file_whose_name_holds_control_characters() {
    let dir = TempDir::new("picker-ctl");
    let real = dir.write(
        "bell\u{7}\u{1b}[31m red.toml",
        &builtin_source("reply-lost"),
    );
    let picker = idem::tui::picker::list(dir.path());
    let entry = &picker.entries[0];
    assert!(!entry.builtin);
    assert!(!entry.source.chars().any(char::is_control), "{entry:?}");
    assert!(entry.source.ends_with("bell[31m red.toml"), "{entry:?}");
    let mut app = app();
    app.screens.overlay = Overlay::Picker(picker);
    assert_eq!(press(&mut app, key(KeyCode::Enter)), Some(Msg::Confirm));
    assert_eq!(app.screens.overlay, Overlay::None, "opened");
    assert_eq!(
        app.version.scenario().title,
        "Reply lost: charged, and nobody told"
    );
    assert_eq!(
        app.version.watched(),
        Some(real.as_path()),
        "watched by its real name"
    );

    let share = app.share_command();
    assert!(!share.chars().any(char::is_control), "{share:?}");
    assert!(share.contains(r"bell\x07\x1b[31m red.toml'"), "{share}");
    assert_eq!(bash_word(&share), real.display().to_string());
}

/// `o` reads `./scenarios` (relative to where idem runs, by design); whatever is there, the
/// nine built-ins close the list.
#[test]
fn o_opens_the_picker_with_the_builtins_last() {
    let mut app = app();
    assert_eq!(press(&mut app, ch('o')), Some(Msg::OpenPicker));
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("o opens the picker: {:?}", app.screens.overlay);
    };
    assert_eq!((p.selected, p.typed.as_str(), &p.error), (0, "", &None));
    let tail: Vec<&str> = p.entries[p.entries.len() - BUILTIN.len()..]
        .iter()
        .map(|e| e.source.as_str())
        .collect();
    let names: Vec<&str> = BUILTIN.iter().map(|b| b.name).collect();
    assert_eq!(tail, names);
    assert!(p.entries.iter().filter(|e| e.builtin).count() == BUILTIN.len());
    // Keys type into it rather than acting on the replay.
    assert_eq!(press(&mut app, ch('q')), Some(Msg::Type('q')));
    assert!(!app.quit);
    assert_eq!(press(&mut app, key(KeyCode::Esc)), Some(Msg::Back));
    assert_eq!(app.screens.overlay, Overlay::None);
}

#[test]
fn picker_opens_a_file_and_watches_it() {
    let (dir, good, _) = picker_dir();
    let mut app = app();
    app.screens.overlay = Overlay::Picker(idem::tui::picker::list(dir.path()));
    press(&mut app, key(KeyCode::Enter));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert_eq!(app.version.scenario().title, "My own reply-lost");
    assert_eq!(app.version.scenario().name, "a-good");
    assert_eq!(app.version.watched(), Some(good.as_path()));
    assert_eq!(app.source, good.display().to_string());
}

#[test]
fn picker_keeps_a_broken_file_or_a_missing_path_open_with_an_error() {
    let (dir, _, _) = picker_dir();
    let mut app = app();
    app.screens.overlay = Overlay::Picker(idem::tui::picker::list(dir.path()));
    // The broken file: the picker stays, with the file's position in the error.
    press(&mut app, key(KeyCode::Down));
    press(&mut app, key(KeyCode::Enter));
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("the picker stays open: {:?}", app.screens.overlay);
    };
    let error = p.error.clone().expect("an error");
    assert!(error.contains("b-broken.toml:5:"), "{error}");
    assert_eq!(app.version.scenario().name, "order-5531");

    // A typed path that does not exist.
    let missing = dir.path().join("nowhere.toml");
    let typed = missing.display().to_string();
    for c in typed.chars() {
        press(&mut app, ch(c));
    }
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("the picker is open");
    };
    assert_eq!(p.typed, typed);
    assert_eq!(p.selected, p.entries.len(), "typing selects the path line");
    assert_eq!(p.error, None, "typing clears the error");
    press(&mut app, key(KeyCode::Enter));
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("the picker stays open: {:?}", app.screens.overlay);
    };
    let error = p.error.clone().expect("an error");
    assert!(error.contains("no such file"), "{error}");
    assert_eq!(
        app.version.scenario().name,
        "order-5531",
        "nothing else was opened"
    );
    let screen = render_full(&app);
    assert!(screen.contains("no such file"), "{screen}");

    // An empty path says what to do: down past the list to the path line, then Enter.
    for _ in 0..typed.chars().count() {
        press(&mut app, key(KeyCode::Backspace));
    }
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("the picker is open");
    };
    for _ in 0..=p.entries.len() {
        press(&mut app, key(KeyCode::Down));
    }
    press(&mut app, key(KeyCode::Enter));
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("the picker stays open");
    };
    assert_eq!(p.error.as_deref(), Some("type a path to a scenario file"));
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert!(!app.quit);
}

#[test]
fn picker_screen() {
    let (dir, _, _) = picker_dir();
    let mut picker = idem::tui::picker::list(dir.path());
    // Snapshots must not hold the temp dir's name: show the files as `scenarios/…`.
    let prefix = dir.path().display().to_string();
    for e in picker.entries.iter_mut().filter(|e| !e.builtin) {
        e.source = e.source.replace(&prefix, "scenarios");
    }
    picker.selected = 3;
    let mut app = app();
    app.screens.overlay = Overlay::Picker(picker);
    let screen = render_full(&app);
    insta::assert_snapshot!("picker", screen);
    let inner = flat(&panel(&screen, " Open a scenario "));
    assert!(
        inner.contains("scenarios/a-good.toml file My own reply-lost"),
        "{inner}"
    );
    assert!(
        inner.contains("scenarios/b-broken.toml file (this file has errors)"),
        "{inner}"
    );
    for b in BUILTIN {
        assert!(
            inner.contains(&format!("{} built-in", b.name)),
            "{}",
            b.name
        );
    }
    let a = inner.find("a-good.toml").expect("listed");
    let b = inner.find("b-broken.toml").expect("listed");
    let first_builtin = inner.find("order-5531 built-in").expect("listed");
    assert!(a < b && b < first_builtin, "{inner}");
    assert!(inner.contains("path: ▏"));
    assert!(inner.contains("type to filter, or a path · ↑/↓ (j/k before typing) choose"));
}

/// A broken file chosen in the picker is reported on one line, with its position, not as the
/// multi-line report of the command line squeezed together.
#[test]
fn the_picker_reports_a_broken_file_on_one_line() {
    let dir = TempDir::new("pick-bad");
    let path = dir.file(
        "bad.toml",
        "title = \"broken\"\n[[intent]]\norder = \"1\"\namount = \"lots\"\nat = \"10:00:00\"\n",
    );
    let mut app = app();
    settle(&mut app, Msg::OpenPicker);
    for c in path.chars() {
        settle(&mut app, Msg::Type(c));
    }
    settle(&mut app, Msg::Confirm);
    let Overlay::Picker(picker) = &app.screens.overlay else {
        panic!("the picker stays open");
    };
    let error = picker.error.clone().expect("an error");
    assert_eq!(
        error,
        format!(
            "{path}:4:10: `lots` is not an amount: expected dollars and cents such as \"$48.60\""
        )
    );
}

/// Typing filters the list by name or title (any letter case), the arrows move among what
/// matches, Enter opens the selected match; before anything is typed, j and k move.
#[test]
fn the_picker_filters_as_you_type() {
    let mut app = app();
    settle(&mut app, Msg::OpenPicker);
    press(&mut app, ch('j'));
    press(&mut app, ch('j'));
    press(&mut app, ch('k'));
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("the picker is open");
    };
    assert_eq!(
        (p.selected, p.typed.as_str()),
        (1, ""),
        "j and k move before typing"
    );
    for c in "COURIER".chars() {
        press(&mut app, ch(c));
    }
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("the picker is open");
    };
    let visible: Vec<&str> = p
        .visible()
        .iter()
        .map(|&i| p.entries[i].source.as_str())
        .collect();
    assert!(visible.contains(&"courier-retry"), "{visible:?}");
    assert!(!visible.contains(&"order-5531"), "{visible:?}");
    assert_eq!(p.entries[p.selected].source, visible[0]);
    let screen = render_full(&app);
    assert!(screen.contains("courier-retry"), "{screen}");
    assert!(!screen.contains("monday-rerun"), "filtered out:\n{screen}");
    // Nothing matches: the path line is selected, and the list says what Enter will do.
    for c in "zzz".chars() {
        press(&mut app, ch(c));
    }
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("the picker is open");
    };
    assert_eq!(p.selected, p.entries.len());
    assert!(render_full(&app).contains("nothing listed matches"));
    for _ in 0..3 {
        press(&mut app, key(KeyCode::Backspace));
    }
    let Overlay::Picker(p) = &app.screens.overlay else {
        panic!("the picker is open");
    };
    let first = p.visible()[0];
    assert_eq!(p.selected, first);
    press(&mut app, key(KeyCode::Enter));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert!(
        app.version.scenario().name.contains("courier"),
        "{}",
        app.version.scenario().name
    );
}

/// At 80×24 a long error and the picker's keys wrap under the list rather than being cut.
#[test]
fn the_pickers_error_and_keys_are_shown_whole_at_80_by_24() {
    // The screen's rows joined, borders and margins dropped, so wrapped words read on.
    let joined = |screen: &str| {
        screen
            .lines()
            .map(|l| l.trim_matches(|c| c == '│' || c == ' '))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut app = app();
    settle(&mut app, Msg::OpenPicker);
    let screen = common::render(&app, 80, 24);
    assert!(
        joined(&screen).contains("Enter opens · Esc cancels"),
        "{screen}"
    );
    let dir = TempDir::new("pick-long-error");
    let path = dir.file(
        "bad.toml",
        "title = \"broken\"\n[[intent]]\norder = \"1\"\namount = \"lots\"\nat = \"10:00:00\"\n",
    );
    for c in path.chars() {
        settle(&mut app, Msg::Type(c));
    }
    settle(&mut app, Msg::Confirm);
    let screen = common::render(&app, 80, 24);
    assert!(
        joined(&screen).contains("dollars and cents such as \"$48.60\""),
        "{screen}"
    );
}
