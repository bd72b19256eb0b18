//! The replay's teaching features, driven through `map_key` and `update` and read back from
//! the state and from frames drawn on ratatui's test backend: the trainer's narration, what-if
//! forks and saving them, live reload of a watched file, the scenario picker, the checklist
//! and the glossary. Every snapshot is paired with plain assertions.

mod common;

use common::{PLAIN, TempDir, app, ch, collapse, header, key, panel, press, render, render_full};
use idem::scenario::fork::WhatIf;
use idem::scenario::library::BUILTIN;
use idem::scenario::{NarrationMode, NarrationTarget};
use idem::sim::config::FaultAction;
use idem::sim::{Belief, Design, Fact, Instant, TickKind, Trace, Verdict};
use idem::tui::app::Overlay;
use idem::tui::checklist::CHECKLIST;
use idem::tui::keymap::map_key;
use idem::tui::view::glossary::{TERMS, marked};
use idem::tui::{App, Effect, Msg, settle, update};

/// The simulation among the effects an update asked for, if it asked for one.
fn simulation(effects: Vec<Effect>) -> Option<idem::tui::story::Job> {
    effects.into_iter().find_map(|e| match e {
        Effect::Simulate(job) => Some(job),
        _ => None,
    })
}
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Modifier;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn builtin_source(name: &str) -> &'static str {
    BUILTIN
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no built-in {name}"))
        .source
}

/// Lines joined and runs of whitespace collapsed, so wrapped text can be searched whole.
fn flat(lines: &[String]) -> String {
    lines
        .iter()
        .flat_map(|l| l.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The (time, label) of each tick, to compare traces' stories.
fn story(trace: &Trace) -> Vec<(Instant, Fact)> {
    trace.ticks.iter().map(|t| (t.at, t.fact.clone())).collect()
}

fn footer_last(screen: &str) -> String {
    screen.lines().last().unwrap_or("").to_string()
}

// ---------------------------------------------------------------------------------------------
// 1. The trainer's narration
// ---------------------------------------------------------------------------------------------

const REPLACED: &str = "The money has moved. Nobody on the shop's side will ever hear of it.";
const APPENDED: &str = "Ask the room what the checkout should do now.";

/// `reply-lost` with extra `[[narration]]` blocks appended.
fn reply_lost_with(narration: &str) -> String {
    format!("{}\n{narration}", builtin_source("reply-lost"))
}

#[test]
fn trainer_narration_replaces_and_appends() {
    let dir = TempDir::new("narration");
    let plain = idem::scenario::load(&dir.write("plain.toml", builtin_source("reply-lost")))
        .expect("reply-lost loads");
    let path = dir.write(
        "narrated.toml",
        &reply_lost_with(&format!(
            "[[narration]]\nlabel = \"answer to #1 lost\"\ntext = \"{REPLACED}\"\nmode = \"replace\"\n\n\
             [[narration]]\nat = \"14:02:37\"\ntext = \"{APPENDED}\"\nmode = \"append\"\n"
        )),
    );
    let narrated = idem::scenario::load(&path).expect("the narrated scenario loads");
    assert_eq!(narrated.narration.len(), 2);
    assert_eq!(
        narrated.narration[0].target,
        NarrationTarget::Label("answer to #1 lost".into())
    );
    assert_eq!(narrated.narration[0].mode, NarrationMode::Replace);
    assert_eq!(narrated.narration[1].mode, NarrationMode::Append);

    for design in Design::ALL {
        let before = plain.run(design).expect("simulates");
        let after = narrated.run(design).expect("simulates");
        assert_eq!(story(&before), story(&after), "{design:?}: same events");
        let lost = before
            .told
            .labels
            .iter()
            .position(|l| l == "answer to #1 lost")
            .unwrap_or_else(|| panic!("{design:?}: the answer is lost in every design"));
        let timeout = before
            .ticks
            .iter()
            .position(|t| t.at == Instant(14 * 3_600_000 + 2 * 60_000 + 37_000))
            .unwrap_or_else(|| panic!("{design:?}: a tick at 14:02:37"));
        assert_eq!(before.ticks[timeout].kind, TickKind::Timeout);
        for (i, (b, a)) in before.ticks().into_iter().zip(after.ticks()).enumerate() {
            if i == lost {
                assert_eq!(a.narration, REPLACED, "{design:?}: replaced exactly");
                assert_ne!(b.narration, REPLACED);
            } else if i == timeout {
                assert_eq!(
                    a.narration,
                    format!("{} {APPENDED}", b.narration),
                    "{design:?}: appended after the engine's sentence"
                );
                assert!(
                    b.narration
                        .starts_with("At 14:02:37 attempt #1 has waited 30 s")
                );
            } else {
                assert_eq!(a.narration, b.narration, "{design:?}: tick {i} untouched");
            }
        }
    }
}

/// A narration whose label or time no design reaches would never be seen: the file is
/// refused, with each such block pointed at, rather than loaded with words that vanish.
#[test]
fn a_narration_naming_no_tick_is_refused() {
    let text = reply_lost_with(
        "[[narration]]\nlabel = \"the moon falls\"\ntext = \"never shown\"\n\n\
         [[narration]]\nat = \"15:00:00\"\ntext = \"never shown either\"\nmode = \"append\"\n\n\
         [[narration]]\nat = \"23:59:59\"\ntext = \"after the last tick\"\n",
    );
    let err = idem::scenario::parse("idle", "reply-lost", &text).expect_err("refused");
    let errors: Vec<_> = err.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 3, "{err}");
    assert!(
        errors[0]
            .message
            .contains("no tick is labelled `the moon falls`"),
        "{err}"
    );
    for d in &errors[1..] {
        assert!(
            d.message.contains("no tick comes at or after this time"),
            "{err}"
        );
    }
    // In the order of the file.
    assert!(errors.windows(2).all(|w| w[0].line < w[1].line), "{err}");
}

// ---------------------------------------------------------------------------------------------
// 2. What-if forks
// ---------------------------------------------------------------------------------------------

/// The app standing at the first send of order 5531 (tick 1).
fn at_first_send() -> App {
    let mut app = app();
    press(&mut app, key(KeyCode::Right));
    assert_eq!(app.tick, 1);
    assert_eq!(app.trace().ticks[1].kind, TickKind::Send);
    assert_eq!(app.told().labels[1], "charge $48.60 key K7Q4 #1");
    app
}

/// Every design's ticks up to and including `upto` are the same before and after a fork.
fn past_is_kept(before: &[Trace], app: &App, upto: usize) {
    for (design, old) in Design::ALL.iter().zip(before) {
        let new = app.trace_of(*design);
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
    let before = app.traces.clone();
    press(&mut app, ch('3'));
    assert_eq!(app.design, Design::NoKey);
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
    assert_eq!(app.added.len(), 1);
    assert_eq!(
        app.added[0].action,
        FaultAction::Lose {
            direction: idem::sim::config::Direction::Request
        }
    );
    assert_eq!(app.added[0].attempt, 1);
    assert_eq!(app.tick, 1, "the moment is kept");
    assert_eq!(app.trace().outcome.charges, 1, "no-key now charges once");
    assert_eq!(app.trace().outcome.verdict, Verdict::Correct);
    assert_eq!(app.trace().ticks[2].kind, TickKind::Lost);
    assert_eq!(app.told().labels[2], "request #1 lost");
    assert_eq!(
        app.notice.as_deref(),
        Some("what if: request #1 of order 5531 lost — the future is re-simulated")
    );
    past_is_kept(&before, &app, 1);
    let screen = render_full(&app);
    assert!(
        header(&screen).contains("⑂ WHAT-IF (u undoes): request #1 of order 5531 lost"),
        "{screen}"
    );

    press(&mut app, ch('u'));
    assert!(app.added.is_empty());
    assert_eq!(app.trace().outcome.charges, 2);
    assert_eq!(
        story(app.trace()),
        story(&before[2]),
        "the original no-key story"
    );
    assert_eq!(
        app.notice.as_deref(),
        Some("back to the scenario as written")
    );
    assert!(!header(&render_full(&app)).contains("WHAT-IF"));
    // Undoing again says there is nothing to undo.
    press(&mut app, ch('u'));
    assert_eq!(
        app.notice.as_deref(),
        Some("this is the scenario as written: there is no what-if to undo")
    );
}

#[test]
fn bang_crashes_the_processor_at_its_next_step() {
    let mut app = at_first_send();
    let before = app.traces.clone();
    let original_faults = app.scenario.config.faults.len();
    assert_eq!(press(&mut app, ch('!')), Some(Msg::Fork(WhatIf::CrashNext)));
    assert_eq!(app.added.len(), 1);
    assert!(
        matches!(
            app.added[0].action,
            FaultAction::Crash {
                after: idem::sim::config::CrashPoint::Receive,
                restart_after_ms: 2_000
            }
        ),
        "{:?}",
        app.added[0]
    );
    assert_eq!(app.added[0].attempt, 1);
    assert_eq!(app.scenario.config.faults.len(), original_faults + 1);
    assert_eq!(app.tick, 1);
    // The processor now dies on receiving #1: before it charges anything.
    let trace = app.trace();
    let crash = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Crash)
        .expect("a crash in the re-simulated trace");
    assert!(crash > app.tick);
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
        assert_eq!(app.trace_of(design).outcome.charges, 1, "{design:?}");
    }
    assert_eq!(before[2].outcome.charges, 2);
    // The fork stands at tick 1; tick 2, where the processor receives #1, is where it acts.
    past_is_kept(&before, &app, 1);
    assert!(header(&render_full(&app)).contains("⑂ WHAT-IF (u undoes): crash after"));

    press(&mut app, ch('u'));
    assert!(app.added.is_empty());
    for (design, old) in Design::ALL.iter().zip(&before) {
        assert_eq!(story(app.trace_of(*design)), story(old), "{design:?}");
        assert_eq!(app.trace_of(*design).outcome, old.outcome, "{design:?}");
    }
}

#[test]
fn s_slows_the_attempt_past_the_timeout() {
    let mut app = at_first_send();
    let before = app.traces.clone();
    assert_eq!(
        press(&mut app, ch('s')),
        Some(Msg::Fork(WhatIf::SlowAttempt))
    );
    assert_eq!(app.added.len(), 1);
    let FaultAction::Slow { processing_ms } = app.added[0].action else {
        panic!("a slow fault: {:?}", app.added[0]);
    };
    assert!(processing_ms > 30_000, "slower than the 30 s timeout");
    assert_eq!(processing_ms, 45_000);
    assert_eq!(app.added[0].attempt, 1);
    past_is_kept(&before, &app, 2);

    // What the engine does with it: #1 is still in progress when #2 and #3 arrive, so both
    // are answered 409; the checkout gives up not knowing, and only then does #1 charge.
    let trace = app.trace_of(Design::WithCharge);
    let kinds: Vec<(String, TickKind)> = trace
        .ticks
        .iter()
        .map(|t| (trace.format_time(t.at), t.kind))
        .collect();
    let told = app.told_of(Design::WithCharge);
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
    assert_eq!(app.trace_of(Design::NoKey).outcome.charges, 2);
    // At 120 columns the header has room for the start of the description only.
    assert!(header(&render_full(&app)).contains("⑂ WHAT-IF (u undoes): #1 takes"));
    assert!(
        header(&render(&app, 160, 36))
            .contains("⑂ WHAT-IF (u undoes): #1 takes 45 s at the processor")
    );

    press(&mut app, ch('u'));
    assert!(app.added.is_empty());
    let trace = app.trace_of(Design::WithCharge);
    assert_eq!(trace.outcome.verdict, Verdict::Correct);
    assert_eq!(trace.outcome.charges, 1);
    assert_eq!(story(trace), story(&before[0]));
}

#[test]
fn forks_stack_and_the_header_counts_them() {
    let mut app = at_first_send();
    press(&mut app, ch('!'));
    press(&mut app, ch('s'));
    assert_eq!(app.added.len(), 2);
    // The header names the last one and counts the others (given the room: 160 columns).
    let screen = render(&app, 160, 36);
    assert!(
        header(&screen).contains("⑂ WHAT-IF (u undoes): #1 takes 45 s at the processor (+1 more)"),
        "{screen}"
    );
    assert!(header(&render_full(&app)).contains("⑂ WHAT-IF (u undoes): #1 takes"));
    press(&mut app, ch('u'));
    assert!(app.added.is_empty());
}

// ---------------------------------------------------------------------------------------------
// 3. Saving a fork
// ---------------------------------------------------------------------------------------------

/// Replaces the save prompt's path with `path`, key by key.
fn type_save_path(app: &mut App, path: &Path) {
    let Overlay::Save(prompt) = &app.overlay else {
        panic!("the save prompt is open: {:?}", app.overlay);
    };
    for _ in 0..prompt.path.chars().count() {
        press(app, key(KeyCode::Backspace));
    }
    let Overlay::Save(prompt) = &app.overlay else {
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
    let Overlay::Save(prompt) = &app.overlay else {
        panic!("the prompt stays open: {:?}", app.overlay);
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
    let written = app.original.config.faults.len();

    press(&mut app, ch('x'));
    assert_eq!(press(&mut app, ch('S')), Some(Msg::OpenSave));
    let Overlay::Save(prompt) = &app.overlay else {
        panic!("S opens the save prompt: {:?}", app.overlay);
    };
    assert_eq!(prompt.path, "order-5531-what-if.toml");
    assert!(!prompt.confirm_overwrite);
    type_save_path(&mut app, &target);
    assert!(!target.exists());
    assert_eq!(press(&mut app, key(KeyCode::Enter)), Some(Msg::Confirm));
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(
        app.notice.as_deref(),
        Some(format!("saved to {}", target.display()).as_str())
    );
    let saved = idem::scenario::load(&target).expect("the saved fork loads");
    assert_eq!(saved.config.faults.len(), written + 1);
    assert_eq!(saved.config.faults.last(), app.added.last());
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
    assert_eq!(app.added.len(), 2);
    press(&mut app, ch('S'));
    type_save_path(&mut app, &target);
    press(&mut app, key(KeyCode::Enter));
    let Overlay::Save(prompt) = &app.overlay else {
        panic!("the prompt stays open to ask: {:?}", app.overlay);
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
    assert_eq!(app.overlay, Overlay::None);
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
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(
        app.notice.as_deref(),
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
    assert_eq!(app.overlay, Overlay::None);
    assert!(!app.quit, "Esc closed the prompt, it did not quit");
    assert!(!target.exists());
}

// ---------------------------------------------------------------------------------------------
// 4. Live reload
// ---------------------------------------------------------------------------------------------

#[test]
fn reload_keeps_the_moment_and_reports_a_broken_edit() {
    let dir = TempDir::new("r");
    let source = builtin_source("order-5531");
    assert!(source.contains("restart_after = \"2s\""));
    let path = dir.write("o.toml", source);
    let loaded = idem::scenario::load(&path).expect("loads");
    let mut app = App::new(loaded, path.display().to_string()).expect("simulates");
    app.path = Some(path.clone());
    press(&mut app, ch('3'));
    for _ in 0..3 {
        press(&mut app, key(KeyCode::Right));
    }
    assert_eq!((app.design, app.tick), (Design::NoKey, 3));
    let at = app.now();
    assert_eq!(app.trace().format_time(at), "14:02:07.250");

    // A good edit: the processor stays down for 5 s instead of 2.
    std::fs::write(
        &path,
        source.replace("restart_after = \"2s\"", "restart_after = \"5s\""),
    )
    .expect("writable");
    settle(
        &mut app,
        Msg::FileChanged(idem::scenario::load(&path).map_err(|e| e.one_line())),
    );
    assert_eq!(app.error, None);
    assert_eq!(
        app.notice.as_deref(),
        Some("the scenario file changed: reloaded")
    );
    assert_eq!(app.design, Design::NoKey, "the design is kept");
    assert_eq!(app.tick, 3);
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
    assert_eq!((app.design, app.tick, app.now()), (Design::NoKey, 3, at));
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
    settle(
        &mut app,
        Msg::FileChanged(idem::scenario::load(&path).map_err(|e| e.one_line())),
    );
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
    settle(
        &mut app,
        Msg::FileChanged(idem::scenario::load(&path).map_err(|e| e.one_line())),
    );
    assert_eq!(app.error, None);
    assert_eq!(restart(&app).as_deref(), Some("14:02:09.250"));
    assert_eq!((app.design, app.tick, app.now()), (Design::NoKey, 3, at));
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
    settle(
        &mut app,
        Msg::FileChanged(idem::scenario::load(&path).map_err(|e| e.one_line())),
    );
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
    assert_eq!(app.added.len(), 1);
    std::fs::write(
        &path,
        source.replace("restart_after = \"2s\"", "restart_after = \"5s\""),
    )
    .expect("writable");
    settle(
        &mut app,
        Msg::FileChanged(idem::scenario::load(&path).map_err(|e| e.one_line())),
    );
    assert_eq!(app.error, None);
    assert_eq!(app.added.len(), 1, "the what-if survives the reload");
    assert_eq!(app.tick, 1);
    assert_eq!(app.trace_of(Design::NoKey).outcome.charges, 1);
}

// ---------------------------------------------------------------------------------------------
// 5. The scenario picker
// ---------------------------------------------------------------------------------------------

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
    assert_eq!(BUILTIN.len(), 10);
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
    app.overlay = Overlay::Picker(picker);
    let reply_lost = 2 + names
        .iter()
        .position(|n| *n == "reply-lost")
        .expect("built in");
    for _ in 0..reply_lost + 2 {
        press(&mut app, key(KeyCode::Down));
    }
    press(&mut app, key(KeyCode::Up));
    press(&mut app, key(KeyCode::Up));
    let Overlay::Picker(p) = &app.overlay else {
        panic!("the picker is open");
    };
    assert_eq!(p.selected, reply_lost);
    assert_eq!(press(&mut app, key(KeyCode::Enter)), Some(Msg::Confirm));
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.scenario.name, "reply-lost");
    assert_eq!(app.scenario.title, "Reply lost: charged, and nobody told");
    assert_eq!(app.source, "reply-lost");
    assert_eq!(app.path, None, "a built-in is not watched");
    assert_eq!(app.tick, 0);
    assert_eq!(app.design, Design::WithCharge, "the scenario's own design");
    assert!(app.added.is_empty());
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
    app.overlay = Overlay::Picker(picker);
    assert_eq!(press(&mut app, key(KeyCode::Enter)), Some(Msg::Confirm));
    assert_eq!(app.overlay, Overlay::None, "opened");
    assert_eq!(app.scenario.title, "Reply lost: charged, and nobody told");
    assert_eq!(
        app.path.as_deref(),
        Some(real.as_path()),
        "watched by its real name"
    );

    let share = app.share_command();
    assert!(!share.chars().any(char::is_control), "{share:?}");
    assert!(share.contains(r"bell\x07\x1b[31m red.toml'"), "{share}");
    assert_eq!(bash_word(&share), real.display().to_string());
}

/// Paths with spaces or shell characters are quoted in the share line.
#[test]
fn the_share_line_quotes_paths() {
    let dir = TempDir::new("share quoting");
    for name in ["my drill.toml", "it's $HOME; & more.toml"] {
        let path = dir.write(name, &builtin_source("reply-lost"));
        let scenario = idem::scenario::load(&path).expect("loads");
        let mut app = App::new(scenario, path.display().to_string()).expect("simulates");
        app.path = Some(path.clone());
        let share = app.share_command();
        let words = shlex::split(&share).unwrap_or_else(|| panic!("{share}"));
        assert_eq!(words[1], path.display().to_string(), "{share}");
        assert_eq!(words[2..4], ["--design", "with-charge"], "{share}");
        assert_eq!(bash_word(&share), path.display().to_string());
    }
}

/// The scenario argument of a share line, as bash reads it.
fn bash_word(share: &str) -> String {
    let script = share.replacen("idem ", "printf %s ", 1);
    let script = script.split(" --design").next().expect("a design follows");
    let out = std::process::Command::new("bash")
        .args(["-c", script])
        .output()
        .expect("bash runs");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// `o` reads `./scenarios` (relative to where idem runs, by design); whatever is there, the
/// nine built-ins close the list.
#[test]
fn o_opens_the_picker_with_the_builtins_last() {
    let mut app = app();
    assert_eq!(press(&mut app, ch('o')), Some(Msg::OpenPicker));
    let Overlay::Picker(p) = &app.overlay else {
        panic!("o opens the picker: {:?}", app.overlay);
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
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn picker_opens_a_file_and_watches_it() {
    let (dir, good, _) = picker_dir();
    let mut app = app();
    app.overlay = Overlay::Picker(idem::tui::picker::list(dir.path()));
    press(&mut app, key(KeyCode::Enter));
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.scenario.title, "My own reply-lost");
    assert_eq!(app.scenario.name, "a-good");
    assert_eq!(app.path.as_deref(), Some(good.as_path()));
    assert_eq!(app.source, good.display().to_string());
}

#[test]
fn picker_keeps_a_broken_file_or_a_missing_path_open_with_an_error() {
    let (dir, _, _) = picker_dir();
    let mut app = app();
    app.overlay = Overlay::Picker(idem::tui::picker::list(dir.path()));
    // The broken file: the picker stays, with the file's position in the error.
    press(&mut app, key(KeyCode::Down));
    press(&mut app, key(KeyCode::Enter));
    let Overlay::Picker(p) = &app.overlay else {
        panic!("the picker stays open: {:?}", app.overlay);
    };
    let error = p.error.clone().expect("an error");
    assert!(error.contains("b-broken.toml:5:"), "{error}");
    assert_eq!(app.scenario.name, "order-5531");

    // A typed path that does not exist.
    let missing = dir.path().join("nowhere.toml");
    let typed = missing.display().to_string();
    for c in typed.chars() {
        press(&mut app, ch(c));
    }
    let Overlay::Picker(p) = &app.overlay else {
        panic!("the picker is open");
    };
    assert_eq!(p.typed, typed);
    assert_eq!(p.selected, p.entries.len(), "typing selects the path line");
    assert_eq!(p.error, None, "typing clears the error");
    press(&mut app, key(KeyCode::Enter));
    let Overlay::Picker(p) = &app.overlay else {
        panic!("the picker stays open: {:?}", app.overlay);
    };
    let error = p.error.clone().expect("an error");
    assert!(error.contains("no such file"), "{error}");
    assert_eq!(app.scenario.name, "order-5531", "nothing else was opened");
    let screen = render_full(&app);
    assert!(screen.contains("no such file"), "{screen}");

    // An empty path says what to do.
    for _ in 0..typed.chars().count() {
        press(&mut app, key(KeyCode::Backspace));
    }
    press(&mut app, key(KeyCode::Enter));
    let Overlay::Picker(p) = &app.overlay else {
        panic!("the picker stays open");
    };
    assert_eq!(p.error.as_deref(), Some("type a path to a scenario file"));
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.overlay, Overlay::None);
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
    app.overlay = Overlay::Picker(picker);
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
    assert!(inner.contains("↑/↓ choose · type a path · Enter opens · Esc cancels"));
}

// ---------------------------------------------------------------------------------------------
// 6. The checklist
// ---------------------------------------------------------------------------------------------

#[test]
fn checklist_opens_moves_and_opens_a_scenario() {
    let mut app = app();
    assert_eq!(press(&mut app, ch('k')), Some(Msg::OpenChecklist));
    assert_eq!(app.overlay, Overlay::Checklist(0));
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
    assert_eq!(app.overlay, Overlay::Checklist(0), "Up stops at the first");
    press(&mut app, key(KeyCode::Down));
    assert_eq!(app.overlay, Overlay::Checklist(1));
    press(&mut app, key(KeyCode::Tab));
    assert_eq!(app.overlay, Overlay::Checklist(2));
    assert_eq!(CHECKLIST[2].scenario, "monday-rerun");
    assert_eq!(press(&mut app, key(KeyCode::Enter)), Some(Msg::Confirm));
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.scenario.name, "monday-rerun");
    assert_eq!(app.source, "monday-rerun");
    assert_eq!(app.tick, 0);

    // Down stops at the last; k closes.
    press(&mut app, ch('k'));
    for _ in 0..10 {
        press(&mut app, key(KeyCode::Down));
    }
    assert_eq!(app.overlay, Overlay::Checklist(4));
    assert_eq!(press(&mut app, ch('k')), Some(Msg::Back));
    assert_eq!(app.overlay, Overlay::None);
}

// ---------------------------------------------------------------------------------------------
// 7. The glossary
// ---------------------------------------------------------------------------------------------

#[test]
fn glossary_lists_every_term() {
    let mut app = app();
    assert_eq!(press(&mut app, ch('?')), Some(Msg::ToggleHelp));
    assert_eq!(app.overlay, Overlay::Help);
    assert_eq!(press(&mut app, ch('g')), Some(Msg::OpenGlossary));
    assert_eq!(app.overlay, Overlay::Glossary);
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
    assert_eq!(app.overlay, Overlay::None);
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
                app.tick = tick;
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
    app.path = Some(PathBuf::from(&path));
    app.tick = app.last_tick();
    assert!(
        app.share_command().contains("--at 'day 2 "),
        "{}",
        app.share_command()
    );
    assert_eq!(share_at(&app), app.now());
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
    let Overlay::Picker(picker) = &app.overlay else {
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

// ---------------------------------------------------------------------------------------------
// A new story is simulated off the UI thread: the replay stays live and says so
// ---------------------------------------------------------------------------------------------

#[test]
fn in_the_terminal_a_what_if_is_simulated_while_the_replay_stays_live() {
    let mut app = at_first_send();
    // As the terminal's loop runs it: the update asks for the story, another thread works.
    let before = app.traces.clone();
    let msg = map_key(ch('x'), &app).expect("x is a what-if");
    let job = simulation(update(&mut app, msg)).expect("the what-if waits to be simulated");
    assert!(
        app.added.is_empty(),
        "nothing changes on screen before the outcome is known"
    );
    let stories = |traces: &[Trace]| traces.iter().map(story).collect::<Vec<_>>();
    assert_eq!(stories(&app.traces), stories(&before));
    let doing = app.simulating.clone().expect("it says it is simulating");
    assert!(doing.starts_with("what if:"), "{doing}");
    let screen = render_full(&app);
    assert!(
        screen.contains("⧗ simulating… what if:"),
        "the footer says so:\n{screen}"
    );

    // Meanwhile the replay answers: stepping and switching designs work, and a second change
    // to the story waits.
    press(&mut app, key(KeyCode::Right));
    assert_eq!(app.tick, 2);
    press(&mut app, key(KeyCode::Left));
    let msg = map_key(ch('!'), &app).expect("! is a what-if");
    assert!(
        simulation(update(&mut app, msg)).is_none(),
        "no second story while one is simulated"
    );
    assert_eq!(
        app.notice.as_deref(),
        Some("still simulating the last change: one moment")
    );

    // The engine's outcome, worked out elsewhere, is what the screen shows; in presenter mode
    // the story is also written as a file there, for the speaker notes.
    let after = job.after.clone();
    let result = idem::tui::story::prepare(job.original, job.added)
        .map(idem::tui::story::Prepared::with_file);
    settle(&mut app, Msg::Simulated { after, result });
    assert!(app.simulating.is_none());
    assert_eq!(app.added.len(), 1);
    let (revision, file) = app.file.clone().expect("the story as a file");
    assert_eq!(revision, app.revision, "written for the story on screen");
    assert!(
        file.contains("What-if faults added in the replay"),
        "{file}"
    );
    let mut at_once = at_first_send();
    press(&mut at_once, ch('x'));
    assert_eq!(
        stories(&app.traces),
        stories(&at_once.traces),
        "the same story as simulated at once"
    );
    assert_eq!(app.tick, 1, "the moment is kept");
    assert!(
        app.notice
            .as_deref()
            .is_some_and(|n| n.starts_with("what if:")),
        "{:?}",
        app.notice
    );
}

#[test]
fn in_the_terminal_a_reload_and_an_opened_scenario_are_simulated_elsewhere_too() {
    let dir = TempDir::new("bg-reload");
    let path = dir.write("story.toml", idem::scenario::library::BUILTIN[1].source);
    let mut app = app();
    let changed = Msg::FileChanged(idem::scenario::load(&path).map_err(|e| e.one_line()));
    let job = simulation(update(&mut app, changed)).expect("a reload waits to be simulated");
    assert_eq!(job.after, idem::tui::story::After::Reload);
    let result = idem::tui::story::prepare(job.original, job.added);
    settle(
        &mut app,
        Msg::Simulated {
            after: job.after,
            result,
        },
    );
    assert_eq!(
        app.notice.as_deref(),
        Some("the scenario file changed: reloaded")
    );

    // The picker's choice closes the picker; an error would bring it back.
    press(&mut app, ch('o'));
    let Overlay::Picker(picker) = &app.overlay else {
        panic!("the picker: {:?}", app.overlay);
    };
    let n = picker
        .entries
        .iter()
        .position(|e| e.builtin && e.source == "reply-lost")
        .expect("reply-lost is listed");
    for _ in 0..n {
        press(&mut app, key(KeyCode::Down));
    }
    let chosen = update(&mut app, Msg::Confirm);
    let [idem::tui::Effect::Load { .. }] = chosen.as_slice() else {
        panic!("the chosen scenario is read next: {chosen:?}");
    };
    let read = chosen
        .into_iter()
        .next()
        .and_then(idem::tui::effect::run_now);
    let job = simulation(update(&mut app, read.expect("the scenario was read")))
        .expect("the scenario waits to be simulated");
    assert_eq!(app.overlay, Overlay::None);
    let idem::tui::story::After::Open { errors_to, .. } = &job.after else {
        panic!("{:?}", job.after);
    };
    assert!(matches!(errors_to, idem::tui::story::ErrorsTo::Picker(_)));
    settle(
        &mut app,
        Msg::Simulated {
            after: job.after,
            result: Err("the engine refused it".into()),
        },
    );
    let Overlay::Picker(picker) = &app.overlay else {
        panic!("the picker is back: {:?}", app.overlay);
    };
    assert_eq!(picker.error.as_deref(), Some("the engine refused it"));
}
