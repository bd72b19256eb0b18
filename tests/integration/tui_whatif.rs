//! What-if forks in the replay (`x` loses the request, `!` crashes the processor, `s` slows the
//! attempt, `u` undoes), driven through `map_key` and `update`: the past is kept, the future is
//! re-simulated, and the header says so. Then saving a fork as a scenario file with `S`.

use crate::common;

use common::{TempDir, at_first_send, ch, header, key, press, render, render_full, story};
use idem::scenario::fork::WhatIf;
use idem::sim::config::FaultAction;
use idem::sim::{Belief, Design, TickKind, Trace, Verdict};
use idem::tui::app::Overlay;
use idem::tui::{App, Msg};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use std::path::Path;

/// Every design's ticks up to and including `upto` are the same before and after a fork.
fn past_is_kept(before: &[Trace], app: &App, upto: usize) {
    for (design, old) in Design::ALL.iter().zip(before) {
        let new = app.version.trace_of(*design);
        assert!(new.ticks.len() > upto, "{design:?}");
        assert_eq!(
            story(old)[..=upto],
            story(new)[..=upto],
            "{design:?}: the past up to the fork is unchanged"
        );
    }
}

#[test]
fn x_loses_the_request_on_the_wire() {
    let mut app = at_first_send();
    let before = app.version.runs().traces().clone();
    press(&mut app, ch('3'));
    assert_eq!(app.place.design, Design::NoKey);
    assert_eq!(
        app.trace().outcome.charges,
        2,
        "as written, no-key charges twice"
    );
    assert!(!header(&render_full(&app)).contains("WHAT-IF"));

    assert_eq!(
        press(&mut app, ch('x')),
        Some(Msg::Fork(WhatIf::DropInFlight))
    );
    assert_eq!(app.version.added.len(), 1);
    assert_eq!(
        app.version.added[0].action,
        FaultAction::Lose {
            direction: idem::sim::config::Direction::Request
        }
    );
    assert_eq!(app.version.added[0].attempt, 1);
    assert_eq!(app.place.tick, 1, "the moment is kept");
    assert_eq!(app.trace().outcome.charges, 1, "no-key now charges once");
    assert_eq!(app.trace().outcome.verdict, Verdict::Correct);
    assert_eq!(app.trace().ticks[2].kind, TickKind::Lost);
    assert_eq!(app.told().labels[2], "request #1 lost");
    assert_eq!(
        app.screens.notice.as_deref(),
        Some(
            "what if: request #1 of order 5531 lost — the future is re-simulated; the run now has 10 ticks (it had 15)"
        )
    );
    past_is_kept(before.values(), &app, 1);
    let screen = render_full(&app);
    assert!(
        header(&screen).contains("⑂ WHAT-IF (u undoes): request #1 of order 5531 lost"),
        "{screen}"
    );

    press(&mut app, ch('u'));
    assert!(app.version.added.is_empty());
    assert_eq!(app.trace().outcome.charges, 2);
    assert_eq!(
        story(app.trace()),
        story(&before[Design::NoKey]),
        "the original no-key story"
    );
    assert_eq!(
        app.screens.notice.as_deref(),
        Some("back to the scenario as written (r redoes)")
    );
    assert!(!header(&render_full(&app)).contains("WHAT-IF"));
    // Undoing again says there is nothing to undo.
    press(&mut app, ch('u'));
    assert_eq!(
        app.screens.notice.as_deref(),
        Some("this is the scenario as written: there is no what-if to undo")
    );
}

#[test]
fn bang_crashes_the_processor_at_its_next_step() {
    let mut app = at_first_send();
    let before = app.version.runs().traces().clone();
    let original_faults = app.version.scenario().config.faults.len();
    assert_eq!(press(&mut app, ch('!')), Some(Msg::Fork(WhatIf::CrashNext)));
    assert_eq!(app.version.added.len(), 1);
    assert!(
        matches!(
            app.version.added[0].action,
            FaultAction::Crash {
                after: idem::sim::config::CrashPoint::Receive,
                restart_after_ms: 2_000
            }
        ),
        "{:?}",
        app.version.added[0]
    );
    assert_eq!(app.version.added[0].attempt, 1);
    assert_eq!(
        app.version.scenario().config.faults.len(),
        original_faults + 1
    );
    assert_eq!(app.place.tick, 1);
    // The processor now dies on receiving #1: before it charges anything.
    let trace = app.trace();
    let crash = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Crash)
        .expect("a crash in the re-simulated trace");
    assert!(crash > app.place.tick);
    assert_eq!(app.told().labels[crash - 1], "receives #1");
    assert_eq!(trace.ticks[crash].at, trace.ticks[crash - 1].at);
    assert_eq!(trace.ticks[crash + 1].kind, TickKind::Restart);
    assert!(
        trace.ticks[..crash]
            .iter()
            .all(|t| t.kind != TickKind::Charge),
        "no charge before the crash"
    );
    // So every design charges exactly once, on the retry.
    for design in Design::CORE {
        assert_eq!(
            app.version.trace_of(design).outcome.charges,
            1,
            "{design:?}"
        );
    }
    assert_eq!(before[Design::NoKey].outcome.charges, 2);
    // The fork stands at tick 1; tick 2, where the processor receives #1, is where it acts.
    past_is_kept(before.values(), &app, 1);
    assert!(header(&render_full(&app)).contains("⑂ WHAT-IF (u undoes): crash after"));

    press(&mut app, ch('u'));
    assert!(app.version.added.is_empty());
    for (design, old) in Design::ALL.iter().zip(before.values()) {
        assert_eq!(
            story(app.version.trace_of(*design)),
            story(old),
            "{design:?}"
        );
        assert_eq!(
            app.version.trace_of(*design).outcome,
            old.outcome,
            "{design:?}"
        );
    }
}

#[test]
fn s_slows_the_attempt_past_the_timeout() {
    let mut app = at_first_send();
    let before = app.version.runs().traces().clone();
    assert_eq!(
        press(&mut app, ch('s')),
        Some(Msg::Fork(WhatIf::SlowAttempt))
    );
    assert_eq!(app.version.added.len(), 1);
    let FaultAction::Slow { processing_ms } = app.version.added[0].action else {
        panic!("a slow fault: {:?}", app.version.added[0]);
    };
    assert!(processing_ms > 30_000, "slower than the 30 s timeout");
    assert_eq!(processing_ms, 45_000);
    assert_eq!(app.version.added[0].attempt, 1);
    past_is_kept(before.values(), &app, 2);

    // What the engine does with it: #1 is still in progress when #2 and #3 arrive, so both
    // are answered 409; the checkout gives up not knowing, and only then does #1 charge.
    let trace = app.version.trace_of(Design::WithCharge);
    let kinds: Vec<(String, TickKind)> = trace
        .ticks
        .iter()
        .map(|t| (trace.format_time(t.at), t.kind))
        .collect();
    let told = app.version.told_of(Design::WithCharge);
    let conflicts: Vec<&str> = trace
        .ticks
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == TickKind::Conflict)
        .map(|(i, _)| told.labels[i].as_str())
        .collect();
    assert_eq!(
        conflicts,
        ["#2: 409 K7Q4 in progress", "#3: 409 K7Q4 in progress"],
        "{kinds:?}"
    );
    assert!(
        trace.ticks.iter().all(|t| t.kind != TickKind::Dropped),
        "the crash after the charge means no late answer is ever sent: {kinds:?}"
    );
    let give_up = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::GiveUp)
        .expect("the checkout gives up");
    let charge = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Charge)
        .expect("#1 charges in the end");
    assert!(charge > give_up, "{kinds:?}");
    assert_eq!(trace.format_time(trace.ticks[charge].at), "14:02:52.050");
    assert_eq!(trace.outcome.charges, 1);
    assert_eq!(trace.outcome.verdict, Verdict::ChargedUnconfirmed);
    assert_eq!(trace.outcome.intents[0].client_view, Belief::Unknown);
    // No key: the retry charges while #1 is still working, and #1 charges again later.
    assert_eq!(app.version.trace_of(Design::NoKey).outcome.charges, 2);
    // At 120 columns the header has room for the start of the description only.
    assert!(header(&render_full(&app)).contains("⑂ WHAT-IF (u undoes): #1 takes"));
    assert!(
        header(&render(&app, 160, 36))
            .contains("⑂ WHAT-IF (u undoes): #1 takes 45 s at the processor")
    );

    press(&mut app, ch('u'));
    assert!(app.version.added.is_empty());
    let trace = app.version.trace_of(Design::WithCharge);
    assert_eq!(trace.outcome.verdict, Verdict::Correct);
    assert_eq!(trace.outcome.charges, 1);
    assert_eq!(story(trace), story(&before[Design::WithCharge]));
}

#[test]
fn forks_stack_and_the_header_counts_them() {
    let mut app = at_first_send();
    press(&mut app, ch('!'));
    press(&mut app, ch('s'));
    assert_eq!(app.version.added.len(), 2);
    // The header names the last one and counts the others (given the room: 160 columns).
    let screen = render(&app, 160, 36);
    assert!(
        header(&screen).contains("⑂ WHAT-IF (u undoes): #1 takes 45 s at the processor (+1 more)"),
        "{screen}"
    );
    assert!(header(&render_full(&app)).contains("⑂ WHAT-IF (u undoes): #1 takes"));
    // u takes back one what-if at a time, the last first, and r brings it back.
    let both = app.version.added.clone();
    press(&mut app, ch('u'));
    assert_eq!(app.version.added, both[..1]);
    assert_eq!(
        app.screens.notice.as_deref(),
        Some("the last what-if is taken back; 1 still in force (r redoes)")
    );
    press(&mut app, ch('r'));
    assert_eq!(app.version.added, both);
    press_twice_u(&mut app);
    assert!(app.version.added.is_empty());
    press(&mut app, ch('r'));
    press(&mut app, ch('r'));
    assert_eq!(app.version.added, both, "redo brings them back in order");
    press(&mut app, ch('r'));
    assert_eq!(
        app.screens.notice.as_deref(),
        Some("nothing to redo: u takes back a what-if first")
    );
}

fn press_twice_u(app: &mut App) {
    press(app, ch('u'));
    press(app, ch('u'));
}

/// `q` with what-ifs that were never saved asks first; `n` stays, `y` quits, and after a save
/// `q` quits at once. Ctrl-C never asks.
#[test]
fn q_asks_before_losing_unsaved_what_ifs() {
    let mut app = at_first_send();
    press(&mut app, ch('x'));
    assert_eq!(app.version.added.len(), 1);
    press(&mut app, ch('q'));
    assert!(!app.quit);
    assert_eq!(app.screens.overlay, Overlay::ConfirmQuit);
    assert!(render_full(&app).contains("1 what-if in this replay are not saved"));
    press(&mut app, ch('n'));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert!(!app.quit);
    press(&mut app, ch('q'));
    press(&mut app, ch('y'));
    assert!(app.quit);

    let mut app = at_first_send();
    press(&mut app, ch('x'));
    press(&mut app, ch('S'));
    assert!(matches!(app.screens.overlay, Overlay::Save(_)));
    // The file was written: what the replay holds is saved.
    idem::tui::settle(
        &mut app,
        Msg::Saved {
            path: std::path::PathBuf::from("saved.toml"),
            result: Ok(()),
        },
    );
    assert_eq!(app.screens.overlay, Overlay::None);
    press(&mut app, ch('q'));
    assert!(app.quit, "saved what-ifs: nothing to lose");

    let mut app = at_first_send();
    press(&mut app, ch('x'));
    press(
        &mut app,
        KeyEvent::new(
            KeyCode::Char('c'),
            ratatui::crossterm::event::KeyModifiers::CONTROL,
        ),
    );
    assert!(app.quit, "Ctrl-C quits at once");
}

// ---------------------------------------------------------------------------------------------
// Saving a fork
// ---------------------------------------------------------------------------------------------

/// Replaces the save prompt's path with `path`, key by key.
fn type_save_path(app: &mut App, path: &Path) {
    let Overlay::Save(prompt) = &app.screens.overlay else {
        panic!("the save prompt is open: {:?}", app.screens.overlay);
    };
    for _ in 0..prompt.path.chars().count() {
        press(app, key(KeyCode::Backspace));
    }
    let Overlay::Save(prompt) = &app.screens.overlay else {
        panic!("still the save prompt");
    };
    assert_eq!(prompt.path, "", "every character was deleted");
    for c in path.to_str().expect("a UTF-8 temp path").chars() {
        assert_eq!(press(app, ch(c)), Some(Msg::Type(c)));
    }
}

#[test]
fn the_save_prompt_refuses_a_fifo_without_asking_to_replace_it() {
    let dir = TempDir::new("save-fifo");
    let fifo = dir.join("fork.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let mut app = at_first_send();
    press(&mut app, ch('x'));
    press(&mut app, ch('S'));
    type_save_path(&mut app, &fifo);
    press(&mut app, key(KeyCode::Enter));
    let Overlay::Save(prompt) = &app.screens.overlay else {
        panic!("the prompt stays open: {:?}", app.screens.overlay);
    };
    assert!(!prompt.confirm_overwrite, "no offer to replace a device");
    let error = prompt.error.clone().unwrap_or_default();
    assert!(error.contains("is a FIFO (named pipe)"), "{error}");
    // Enter again changes nothing: the FIFO is still there.
    press(&mut app, key(KeyCode::Enter));
    let meta = std::fs::symlink_metadata(&fifo).expect("the FIFO");
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()));
}

#[test]
fn s_capital_saves_the_fork_and_asks_before_replacing() {
    let dir = TempDir::new("save");
    let target = dir.path().join("fork.toml");
    let mut app = at_first_send();
    let written = app.version.original.config.faults.len();

    press(&mut app, ch('x'));
    assert_eq!(press(&mut app, ch('S')), Some(Msg::OpenSave));
    let Overlay::Save(prompt) = &app.screens.overlay else {
        panic!("S opens the save prompt: {:?}", app.screens.overlay);
    };
    assert_eq!(prompt.path, "order-5531-what-if.toml");
    assert!(!prompt.confirm_overwrite);
    type_save_path(&mut app, &target);
    assert!(!target.exists());
    assert_eq!(press(&mut app, key(KeyCode::Enter)), Some(Msg::Confirm));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert_eq!(
        app.screens.notice.as_deref(),
        Some(format!("saved to {}", target.display()).as_str())
    );
    let saved = idem::scenario::load(&target).expect("the saved fork loads");
    assert_eq!(saved.config.faults.len(), written + 1);
    assert_eq!(saved.config.faults.last(), app.version.added.last());
    assert_eq!(
        saved
            .simulate(Design::NoKey)
            .expect("simulates")
            .outcome
            .charges,
        1,
        "the saved file tells the forked story"
    );
    let first = std::fs::read(&target).expect("readable");

    // A second what-if, saved to the same path: the first Enter only asks.
    press(&mut app, ch('!'));
    assert_eq!(app.version.added.len(), 2);
    press(&mut app, ch('S'));
    type_save_path(&mut app, &target);
    press(&mut app, key(KeyCode::Enter));
    let Overlay::Save(prompt) = &app.screens.overlay else {
        panic!("the prompt stays open to ask: {:?}", app.screens.overlay);
    };
    assert!(prompt.confirm_overwrite);
    assert!(
        prompt
            .error
            .as_deref()
            .is_some_and(|e| e.contains("that file exists")),
        "{prompt:?}"
    );
    assert_eq!(
        std::fs::read(&target).expect("readable"),
        first,
        "unchanged"
    );
    let screen = render_full(&app);
    assert!(
        screen.contains("that file exists: Enter again replaces it"),
        "{screen}"
    );

    press(&mut app, key(KeyCode::Enter));
    assert_eq!(app.screens.overlay, Overlay::None);
    let replaced = idem::scenario::load(&target).expect("the replaced fork loads");
    assert_eq!(replaced.config.faults.len(), written + 2);
    assert_ne!(std::fs::read(&target).expect("readable"), first);
    // Nothing else was left in the directory (no temp files from the atomic write).
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("listable")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    assert_eq!(names, ["fork.toml"]);
}

#[test]
fn s_capital_without_a_fork_only_says_so() {
    let mut app = at_first_send();
    assert_eq!(press(&mut app, ch('S')), Some(Msg::OpenSave));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert_eq!(
        app.screens.notice.as_deref(),
        Some("nothing to save yet: add a what-if with x, ! or s first")
    );
}

#[test]
fn esc_cancels_the_save_prompt_without_writing() {
    let dir = TempDir::new("save-esc");
    let target = dir.path().join("never.toml");
    let mut app = at_first_send();
    press(&mut app, ch('x'));
    press(&mut app, ch('S'));
    type_save_path(&mut app, &target);
    assert_eq!(press(&mut app, key(KeyCode::Esc)), Some(Msg::Back));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert!(!app.quit, "Esc closed the prompt, it did not quit");
    assert!(!target.exists());
}

/// `m` keys the steps after the payment the next way (derived → a key per try → none →
/// derived), re-simulating every design; the header and the services panel follow, and a
/// story without steps says what m is for.
#[test]
fn m_keys_the_steps_after_payment_another_way() {
    use idem::sim::config::{KeyMode, Service};
    let mut scenario = idem::scenario::library::find("courier-retry")
        .expect("built in")
        .load()
        .expect("loads");
    // No question stops the way to the end.
    scenario.quizzes.clear();
    let mut app = App::new(scenario, "courier-retry".to_string()).expect("simulates");
    let bookings = |app: &App| {
        app.trace().outcome.intents[0]
            .steps
            .iter()
            .find(|s| s.service == Service::Courier)
            .map(|s| s.effects)
    };
    assert_eq!(bookings(&app), Some(1));
    press(&mut app, key(KeyCode::End));
    assert!(header(&render_full(&app)).contains("steps: derived keys"));
    assert!(render_full(&app).contains("courier: 1 booking"));

    assert_eq!(press(&mut app, ch('m')), Some(Msg::CycleStepKeys));
    assert_eq!(
        app.version.scenario().config.steps[0].key_mode,
        KeyMode::PerAttempt
    );
    assert_eq!(bookings(&app), Some(2));
    assert_eq!(app.trace().outcome.verdict, Verdict::DownstreamDuplicate);
    for design in Design::ALL {
        assert_eq!(
            app.version.trace_of(design).outcome.verdict,
            Verdict::DownstreamDuplicate,
            "{design}"
        );
    }
    press(&mut app, key(KeyCode::End));
    let screen = render_full(&app);
    assert!(header(&screen).contains("steps: a key per try"), "{screen}");
    assert!(
        screen.contains("courier: 2 bookings · 2× one order"),
        "{screen}"
    );
    assert!(screen.contains("courier was booked twice"), "{screen}");

    press(&mut app, ch('m'));
    assert_eq!(
        app.version.scenario().config.steps[0].key_mode,
        KeyMode::None
    );
    assert_eq!(bookings(&app), Some(2));
    press(&mut app, ch('m'));
    assert_eq!(
        app.version.scenario().config.steps[0].key_mode,
        KeyMode::Derived
    );
    assert_eq!(bookings(&app), Some(1));
    assert_eq!(app.trace().outcome.verdict, Verdict::Correct);

    let mut plain = common::app();
    press(&mut plain, ch('m'));
    assert!(
        plain
            .screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("no steps after the payment")),
        "{:?}",
        plain.screens.notice
    );
}

/// In presenter mode the room's screen says a what-if is in force, how the run's length
/// changed, and when the file on disk has an error.
#[test]
fn the_presenter_shows_a_what_if_and_a_broken_edit() {
    let launch = idem::tui::app::Launch {
        design: Some(Design::NoKey),
        present: true,
        ..Default::default()
    };
    let mut scenario = idem::scenario::library::default_scenario().expect("loads");
    scenario.quizzes.clear();
    let mut app = App::launch(scenario, "order-5531".into(), launch).expect("launches");
    press(&mut app, key(KeyCode::Right));
    press(&mut app, ch('x'));
    let screen = common::render(&app, 120, 36);
    let title = screen.lines().next().unwrap_or_default();
    assert!(title.contains("⑂ WHAT-IF"), "{screen}");
    assert!(
        screen.contains("the run now has 10 ticks (it had 15)"),
        "{screen}"
    );
    app.screens.notice = None;
    // Once the notice is gone, the banner still says what is in force and what it did.
    let screen = common::render(&app, 80, 24);
    assert!(
        screen.contains("⑂ WHAT-IF: ") && screen.contains("the run has 10 ticks; before"),
        "{screen}"
    );
    app.error = Some("order-5531.toml:3:9: `5x` is not a duration".into());
    let screen = common::render(&app, 120, 36);
    assert!(screen.contains("the file has an error"), "{screen}");
    assert!(screen.contains("is not a duration"), "{screen}");
    // The notes are told the same.
    let shown = idem::tui::shown::shown(&app);
    let position = idem::present::link::Position {
        source: app.source.clone(),
        scenario: idem::scenario::fork_toml::to_toml(&app.version.original, &app.version.added)
            .expect("writes"),
        design: app.place.design.id().to_string(),
        tick: app.place.tick,
        shown,
    };
    let sheet = idem::tui::notes::sheet(&position).expect("a sheet");
    let lines = idem::tui::notes::state_lines(&sheet, 0);
    assert!(
        lines.iter().any(|l| l.starts_with("⑂ WHAT-IF: ")
            && l.contains("the run has 10 ticks; before the what-ifs, 15")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("the file has an error") && l.contains("is not a duration")),
        "{lines:?}"
    );
    // And drawn on the notes' screen.
    let notes = idem::tui::notes::Notes {
        status: idem::tui::notes::Status::Following(Ok(Box::new(sheet))),
        quit: false,
        received: std::time::Instant::now(),
        scroll: 0,
    };
    let drawn = common::screen_text(100, 30, |f| {
        idem::tui::program::Program::view(&notes, f, &common::PLAIN)
    });
    assert!(drawn.contains("On the presenter"), "{drawn}");
    assert!(drawn.contains("⑂ WHAT-IF: "), "{drawn}");
}

/// `K` keys the checkout's attempts the next way, every layer alike (one key per order → a
/// new key per attempt → none), re-simulating every design; the header and the share line
/// follow. A story whose layers handle the key their own way goes to one key per order first.
#[test]
fn capital_k_keys_the_checkout_another_way() {
    use idem::sim::config::{KeySource, KeyStrategy};
    let mut app = common::app();
    let charges = |app: &App, design: Design| app.version.trace_of(design).outcome.charges;
    assert_eq!(charges(&app, Design::WithCharge), 1);
    assert!(!header(&render_full(&app)).contains("keys:"));

    assert_eq!(press(&mut app, ch('K')), Some(Msg::CycleKeyStrategy));
    assert_eq!(
        app.version.scenario().config.key_strategy,
        KeyStrategy::PerAttempt
    );
    // The retry carries a new key: even the key stored with the charge cannot see it.
    assert_eq!(charges(&app, Design::WithCharge), 2);
    assert!(
        header(&render_full(&app)).contains("keys: new on every attempt"),
        "{}",
        header(&render_full(&app))
    );
    let share = app.share_command();
    assert!(share.contains(" --key-strategy per-attempt "), "{share}");

    press(&mut app, ch('K'));
    assert_eq!(
        app.version.scenario().config.key_strategy,
        KeyStrategy::None
    );
    assert_eq!(
        charges(&app, Design::WithCharge),
        0,
        "no key, refused with 400"
    );
    assert!(header(&render_full(&app)).contains("keys: none"));

    // Round again: the keys as the file writes them, so nothing on screen says K is in force.
    press(&mut app, ch('K'));
    assert_eq!(
        app.version.scenario().config.key_strategy,
        KeyStrategy::PerIntent
    );
    assert_eq!(charges(&app, Design::WithCharge), 1);
    assert!(app.version.changed_from_written().is_empty());
    assert!(!header(&render_full(&app)).contains("keys:"));
    assert!(!app.share_command().contains("--key-strategy"));

    // An app that mints per attempt behind a forwarding gateway: the fix comes first.
    let source = format!(
        "title = \"layers\"\n\
         [[checkout.layer]]\nname = \"gateway\"\nattempts = 2\ntimeout = \"10s\"\n\
         [[checkout.layer]]\nname = \"app\"\nattempts = 2\nkey = \"per-attempt\"\n\
         [[intent]]\norder = \"5531\"\nkey = \"K7Q4\"\namount = \"$48.60\"\nat = \"14:02:07\"\n{}",
        (1..=4)
            .map(|n| format!("[[fault]]\nattempt = {n}\nlose = \"reply\"\n"))
            .collect::<String>()
    );
    let scenario = idem::scenario::parse("layers.toml", "layers", &source).expect("parses");
    let mut app = App::new(scenario, "layers.toml".to_string()).expect("simulates");
    assert_eq!(charges(&app, Design::WithCharge), 2);
    assert!(
        header(&render_full(&app)).contains("keys: new per app attempt"),
        "{}",
        header(&render_full(&app))
    );
    press(&mut app, ch('K'));
    assert_eq!(app.version.scenario().config.key_source(), KeySource::Order);
    assert_eq!(charges(&app, Design::WithCharge), 1);
}

/// The length a what-if is measured against is the story before the what-ifs as it is keyed
/// now: after `x` then `K`, the run before the what-if is the one `K` made, not the file's.
#[test]
fn a_what_if_is_measured_against_the_story_keyed_as_on_screen() {
    let mut app = common::app();
    press(&mut app, key(KeyCode::Right));
    press(&mut app, ch('x'));
    assert!(!app.version.added.is_empty());
    press(&mut app, ch('K'));
    for design in Design::ALL {
        let keyed = app
            .version
            .original
            .simulate(design)
            .expect("simulates")
            .ticks
            .len();
        assert_eq!(
            app.version.ticks_before_what_ifs(design),
            keyed,
            "{design:?}"
        );
    }
    let as_written = idem::scenario::library::default_scenario()
        .expect("loads")
        .simulate(Design::WithCharge)
        .expect("simulates")
        .ticks
        .len();
    assert_ne!(
        app.version.ticks_before_what_ifs(Design::WithCharge),
        as_written,
        "K changed the run"
    );
}
