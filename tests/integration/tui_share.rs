//! The share line in the footer: paths quoted so a shell reads them back, and an `--at` that
//! reopens the same moment, day numbers included.

use crate::common;

use common::{TempDir, bash_word, builtin_source};
use idem::scenario::library::BUILTIN;
use idem::sim::{Design, Instant};
use idem::tui::{App, Msg, settle};
use std::path::Path;

/// Paths with spaces or shell characters are quoted in the share line.
#[test]
fn the_share_line_quotes_paths() {
    let dir = TempDir::new("share quoting");
    for name in ["my drill.toml", "it's $HOME; & more.toml"] {
        let path = dir.write(name, &builtin_source("reply-lost"));
        let scenario = idem::scenario::load(&path).expect("loads");
        let app = App::new(scenario, path.display().to_string()).expect("simulates");
        let share = app.share_command();
        let words = shlex::split(&share).unwrap_or_else(|| panic!("{share}"));
        assert_eq!(words[1], path.display().to_string(), "{share}");
        assert_eq!(words[2..4], ["--design", "with-charge"], "{share}");
        assert_eq!(bash_word(&share), path.display().to_string());
    }
}

/// The `--at` of the share line, read back the way `idem --at` reads it.
fn share_at(app: &App) -> Instant {
    let command = app.share_command();
    // Read as a shell reads it.
    let words = shlex::split(&command).unwrap_or_else(|| panic!("{command}"));
    let at = words
        .iter()
        .skip_while(|w| *w != "--at")
        .nth(1)
        .unwrap_or_else(|| panic!("no --at in {command}"));
    let clock =
        idem::scenario::values::parse_clock(at).unwrap_or_else(|e| panic!("{command}: {e}"));
    clock.resolve(app.trace().ticks[0].at)
}

/// The share line reopens the moment it was taken at: for every built-in, every design and
/// every tick, `--at` read back lands on a tick at the same time.
#[test]
fn the_share_line_reopens_the_same_moment() {
    for builtin in BUILTIN {
        let scenario = builtin.load().expect("loads");
        let mut app = App::new(scenario, builtin.name.to_string()).expect("simulates");
        for design in Design::ALL {
            settle(&mut app, Msg::SwitchDesign(design));
            for tick in 0..=app.last_tick() {
                app.show_tick(tick);
                let at = share_at(&app);
                let back = app.trace().tick_at_or_before(at);
                assert_eq!(
                    app.trace().ticks[back].at,
                    app.now(),
                    "{} {design} tick {tick}",
                    builtin.name
                );
            }
        }
    }
}

/// A story without weekdays that runs past midnight writes `day 2 …`, and that reads back too.
#[test]
fn the_share_line_reads_back_day_numbers() {
    let text = "title = \"midnight\"\n[[checkout.layer]]\nattempts = 2\ntimeout = \"30s\"\n\
                [[intent]]\norder = \"1\"\nkey = \"K1\"\namount = \"$1\"\nat = \"23:59:50\"\n\
                [[fault]]\nlose = \"reply\"\n";
    let dir = TempDir::new("mid");
    let path = dir.file("midnight.toml", text);
    let scenario = idem::scenario::load(Path::new(&path)).expect("loads");
    let mut app = App::new(scenario, path.clone()).expect("simulates");
    app.show_tick(app.last_tick());
    assert!(
        app.share_command().contains("--at 'day 2 "),
        "{}",
        app.share_command()
    );
    assert_eq!(share_at(&app), app.now());
}

/// Where a scenario came from is part of it: a file reopens by its path, a built-in by its
/// name, and one made in this session (here, from the retention screen's stack) by nothing.
#[test]
fn the_share_line_follows_where_the_scenario_came_from() {
    use idem::scenario::Origin;
    let builtin = idem::scenario::resolve("reply-lost").expect("a built-in");
    assert_eq!(builtin.origin, Origin::BuiltIn("reply-lost"));
    let app = App::new(builtin, "reply-lost".into()).expect("simulates");
    assert_eq!(app.version.watched(), None);
    assert!(app.share_command().starts_with("idem reply-lost --design"));

    let dir = TempDir::new("origin");
    let path = dir.write("mine.toml", &builtin_source("reply-lost"));
    let file = idem::scenario::resolve(&path.display().to_string()).expect("a file");
    assert_eq!(file.origin, Origin::File(path.clone()));

    let made = idem::scenario::parse("made", "made", builtin_source("reply-lost")).expect("text");
    assert_eq!(made.origin, Origin::Made);
    let app = App::new(made, "made".into()).expect("simulates");
    assert!(
        app.share_command().contains("lives only in this session"),
        "{}",
        app.share_command()
    );
}

/// A story with steps after payment shares how they are keyed now, which `m` changes, and
/// `idem --step-keys` reads it back; a story without steps takes no such flag.
#[test]
fn the_share_line_carries_the_step_keys() {
    let scenario = idem::scenario::library::find("courier-retry")
        .expect("built in")
        .load()
        .expect("loads");
    let mut app = App::new(scenario, "courier-retry".to_string()).expect("simulates");
    assert!(
        app.share_command().contains(" --step-keys derived "),
        "{}",
        app.share_command()
    );
    settle(&mut app, Msg::CycleStepKeys);
    let share = app.share_command();
    assert!(share.contains(" --step-keys per-attempt "), "{share}");
    let words = shlex::split(&share).unwrap_or_else(|| panic!("{share}"));
    let mode = words
        .iter()
        .skip_while(|w| *w != "--step-keys")
        .nth(1)
        .expect("a mode");
    assert_eq!(
        idem::scenario::values::KeyModeId::parse(mode),
        Ok(idem::sim::config::KeyMode::PerAttempt)
    );
    let plain = common::app();
    assert!(!plain.share_command().contains("--step-keys"));

    let out = common::run_idem_in(None, &["order-5531", "--step-keys", "none"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("has no [[step]]"), "{stderr}");
}

/// `idem --key-strategy` reads back what the share line writes, and names the choices when
/// it is given something else.
#[test]
fn the_key_strategy_flag_reads_its_choices() {
    for id in ["per-intent", "per-attempt", "none"] {
        assert!(idem::scenario::values::KeyChoice::parse(id).is_ok(), "{id}");
    }
    let out = common::run_idem_in(None, &["order-5531", "--key-strategy", "per-order"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("per-intent, per-attempt, none"), "{stderr}");
}
