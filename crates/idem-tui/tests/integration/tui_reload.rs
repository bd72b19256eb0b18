//! Live reload of a watched scenario file: the moment, the design and the what-ifs are kept,
//! and a broken edit is reported in the footer, with its position, while the last good version
//! keeps running.

use crate::common;

use common::{TempDir, builtin_source, ch, file_changed, key, press, render_full, story};
use idem::sim::{Design, TickKind};
use idem::tui::{App, Msg, settle};
use ratatui::crossterm::event::KeyCode;

fn footer_last(screen: &str) -> String {
    screen.lines().last().unwrap_or("").to_string()
}

#[test]
fn reload_keeps_the_moment_and_reports_a_broken_edit() {
    let dir = TempDir::new("r");
    let source = builtin_source("order-5531");
    assert!(source.contains("restart_after = \"2s\""));
    let path = dir.write("o.toml", source);
    let loaded = idem::scenario::load(&path).expect("loads");
    let mut app = App::new(loaded, path.display().to_string()).expect("simulates");
    press(&mut app, ch('3'));
    for _ in 0..3 {
        press(&mut app, key(KeyCode::Right));
    }
    assert_eq!((app.place.design, app.place.tick), (Design::NoKey, 3));
    let at = app.now();
    assert_eq!(app.trace().format_time(at), "14:02:07.250");

    // A good edit: the processor stays down for 5 s instead of 2.
    std::fs::write(
        &path,
        source.replace("restart_after = \"2s\"", "restart_after = \"5s\""),
    )
    .expect("writable");
    file_changed(&mut app, &path);
    assert_eq!(app.error, None);
    assert_eq!(
        app.screens.notice.as_deref(),
        Some("the scenario file changed: reloaded")
    );
    assert_eq!(app.place.design, Design::NoKey, "the design is kept");
    assert_eq!(app.place.tick, 3);
    assert_eq!(app.now(), at, "the moment is kept");
    let restart = |app: &App| {
        let t = app.trace();
        t.ticks
            .iter()
            .find(|k| k.kind == TickKind::Restart)
            .map(|k| t.format_time(k.at))
    };
    assert_eq!(
        restart(&app).as_deref(),
        Some("14:02:12.250"),
        "the edit shows"
    );
    let good_story = story(app.trace());
    let good_outcome = app.trace().outcome.clone();

    // A broken edit: a duration that is not one, on a known line.
    let broken = source.replace("restart_after = \"2s\"", "restart_after = \"soon\"");
    let line = broken
        .lines()
        .position(|l| l.contains("\"soon\""))
        .expect("the edited line")
        + 1;
    std::fs::write(&path, &broken).expect("writable");
    let err = idem::scenario::load(&path).expect_err("the broken edit is refused");
    settle(&mut app, Msg::FileChanged(Err(err.one_line())));
    let error = app.error.clone().expect("the error is kept for the footer");
    assert_eq!(
        app.screens.notice, None,
        "no stale \"reloaded\" beside a broken file"
    );
    // file:line:column, the column being where the bad value starts.
    let col = broken
        .lines()
        .nth(line - 1)
        .expect("the line")
        .find("\"soon\"")
        .expect("found")
        + 1;
    let prefix = format!("{}:{line}:{col}: ", path.display());
    assert!(
        error.starts_with(&prefix),
        "{error:?} starts with {prefix:?}"
    );
    assert!(
        error[prefix.len()..].starts_with("`soon` is not a duration"),
        "{error:?}"
    );
    // The last good version keeps running, where it stood.
    assert_eq!(
        (app.place.design, app.place.tick, app.now()),
        (Design::NoKey, 3, at)
    );
    assert_eq!(story(app.trace()), good_story);
    assert_eq!(app.trace().outcome, good_outcome);
    assert_eq!(restart(&app).as_deref(), Some("14:02:12.250"));

    // On screen: the footer shows the error with its position, in place of the share line.
    let screen = render_full(&app);
    let foot = footer_last(&screen);
    assert!(foot.starts_with(" ⚠ "), "{screen}");
    assert!(
        foot.contains(&format!("o.toml:{line}:{col}: `soon` is not a duration")),
        "{foot}"
    );
    assert!(!screen.contains("share: "), "{screen}");

    // A short error leaves room to say the last good version keeps running.
    let short = source.replace("seed = 5531", "seed = \"x\"");
    std::fs::write(&path, &short).expect("writable");
    file_changed(&mut app, &path);
    let error = app.error.clone().expect("an error");
    assert_eq!(
        error,
        format!(
            "{}:10:8: seed must be a whole number, like 5531",
            path.display()
        )
    );
    let expected = format!(" ⚠ the last good version keeps running · {error}");
    assert!(
        expected.chars().count() <= 120,
        "the temp path is short enough for this check: {expected}"
    );
    let foot = footer_last(&render_full(&app));
    assert_eq!(foot.trim_end(), expected);
    assert_eq!(story(app.trace()), good_story);

    // Fixing the file clears the error.
    std::fs::write(&path, source).expect("writable");
    file_changed(&mut app, &path);
    assert_eq!(app.error, None);
    assert_eq!(restart(&app).as_deref(), Some("14:02:09.250"));
    assert_eq!(
        (app.place.design, app.place.tick, app.now()),
        (Design::NoKey, 3, at)
    );
}

/// The footer should keep its promise whatever the length of the error: with a typical
/// mistake (a bad duration), the error fills the line and the words "the last good version
/// keeps running" are cut off.
#[test]
fn a_long_reload_error_still_says_the_last_good_version_runs() {
    let dir = TempDir::new("r");
    let source = builtin_source("order-5531");
    let path = dir.write("o.toml", source);
    let mut app =
        App::new(idem::scenario::load(&path).expect("loads"), "x".into()).expect("simulates");
    std::fs::write(
        &path,
        source.replace("restart_after = \"2s\"", "restart_after = \"soon\""),
    )
    .expect("writable");
    file_changed(&mut app, &path);
    assert!(app.error.is_some());
    let foot = footer_last(&render_full(&app));
    assert!(foot.contains(":39:17:"), "{foot}");
    assert!(
        foot.contains("the last good version keeps running"),
        "{foot}"
    );
}

#[test]
fn reload_keeps_the_what_ifs() {
    let dir = TempDir::new("reload-fork");
    let source = builtin_source("order-5531");
    let path = dir.write("order-5531.toml", source);
    let mut app =
        App::new(idem::scenario::load(&path).expect("loads"), "x".into()).expect("simulates");
    press(&mut app, key(KeyCode::Right));
    press(&mut app, ch('x'));
    assert_eq!(app.version.added.len(), 1);
    std::fs::write(
        &path,
        source.replace("restart_after = \"2s\"", "restart_after = \"5s\""),
    )
    .expect("writable");
    file_changed(&mut app, &path);
    assert_eq!(app.error, None);
    assert_eq!(
        app.version.added.len(),
        1,
        "the what-if survives the reload"
    );
    assert_eq!(app.place.tick, 1);
    assert_eq!(app.version.trace_of(Design::NoKey).outcome.charges, 1);
}

/// What K and m chose stays in force through a live edit, as the what-ifs do, and the footer
/// says so; `0` still goes back to the keys the file writes.
#[test]
fn reload_keeps_the_keys_chosen_with_k_and_m() {
    let dir = TempDir::new("reload-keys");
    let source = builtin_source("courier-retry");
    let path = dir.write("courier.toml", source);
    let mut app =
        App::new(idem::scenario::load(&path).expect("loads"), "x".into()).expect("simulates");
    let written = app.version.original.config.keying();
    press(&mut app, ch('K'));
    press(&mut app, ch('m'));
    let keyed = app.version.original.config.keying();
    assert!(keyed.checkout_differs(&written) && keyed.steps_differ(&written));
    std::fs::write(
        &path,
        source.replacen("title = \"", "title = \"Edited: ", 1),
    )
    .expect("writable");
    file_changed(&mut app, &path);
    assert_eq!(app.error, None);
    assert!(
        app.version.scenario().title.starts_with("Edited: "),
        "{}",
        app.version.scenario().title
    );
    assert_eq!(
        app.version.original.config.keying(),
        keyed,
        "K and m survive the edit"
    );
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("reloaded")
                && n.contains("the checkout's keys and the steps' keys still in force")),
        "{:?}",
        app.screens.notice
    );
    press(&mut app, ch('0'));
    assert_eq!(app.version.original.config.keying(), written);
    assert!(app.version.changed_from_written().is_empty());
}
