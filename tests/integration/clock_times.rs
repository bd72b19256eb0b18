//! A clock time written in a file (`[[quiz]] at`, `[[narration]] at`, `[[note]] at`,
//! `[reconcile] at`) or typed at `:` names one moment by one rule: the first such moment at
//! or after the story's start. An overnight story is where the rules used to part: `02:00`
//! meant the next night to the reconcile job and the first day to a question.

use crate::common;

use common::{TempDir, builtin_source, ch, key, press};
use idem::cli::check::{self, CheckArgs};
use idem::scenario::{self, NarrationTarget, Scenario};
use idem::sim::fact::Fact;
use idem::sim::{Design, Instant};
use idem::tui::{App, Msg, settle};
use ratatui::crossterm::event::KeyCode;

const DAY: u64 = 86_400_000;
const HOUR: u64 = 3_600_000;

/// A purchase at 23:00 whose answer is lost, a night job at 02:00, and a question, a note and
/// a narration all at `at`.
fn overnight(at: &str) -> String {
    format!(
        r#"title = "overnight"
seed = 1

[[checkout.layer]]
attempts = 3
timeout = "30s"
backoff = "1s"

[[intent]]
order = "5531"
key = "K7Q4"
amount = "$48.60"
at = "23:00:00"

[[fault]]
attempt = 1
lose = "reply"

[reconcile]
at = "02:00"

[[quiz]]
at = "{at}"
question = "The night job starts. What does it find?"
choices = ["Nothing", "One charge", "Two charges"]
answer = "charges"

[[note]]
at = "{at}"
text = "Ask the room before the job speaks."

[[narration]]
at = "{at}"
text = "Two hours after midnight the shop checks its books."
mode = "append"
"#
    )
}

fn parse(source: &str) -> Scenario {
    scenario::parse("overnight.toml", "overnight", source)
        .unwrap_or_else(|e| panic!("the scenario does not parse:\n{e}\n---\n{source}"))
}

/// The tick on which the reconcile job starts, under `design`.
fn reconcile_tick(s: &Scenario, design: Design) -> usize {
    let trace = s
        .simulate(design)
        .unwrap_or_else(|e| panic!("{design}: {e}"));
    trace
        .ticks
        .iter()
        .position(|t| matches!(t.fact, Fact::Reconcile { .. }))
        .unwrap_or_else(|| panic!("{design}: the reconcile job never runs"))
}

/// The tick `target` names under `design`.
fn tick_of(s: &Scenario, target: &NarrationTarget, design: Design) -> Option<usize> {
    let trace = s
        .simulate(design)
        .unwrap_or_else(|e| panic!("{design}: {e}"));
    let told = s.tell(&trace);
    target.find(&trace, &told)
}

#[test]
fn a_question_at_two_in_the_morning_waits_for_the_night_job() {
    let s = parse(&overnight("02:00"));
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(
        s.config.reconcile.as_ref().map(|r| r.at),
        Some(Instant(DAY + 2 * HOUR)),
        "the job runs the next night"
    );
    assert_eq!(
        s.quizzes[0].target,
        NarrationTarget::At(Instant(DAY + 2 * HOUR))
    );
    for design in Design::ALL {
        let job = reconcile_tick(&s, design);
        assert!(job > 0, "{design}");
        assert_eq!(
            tick_of(&s, &s.quizzes[0].target, design),
            Some(job),
            "{design}: quiz"
        );
        assert_eq!(
            tick_of(&s, &s.notes[0].target, design),
            Some(job),
            "{design}: note"
        );
        assert_eq!(
            tick_of(&s, &s.narration[0].target, design),
            Some(job),
            "{design}: narration"
        );
    }
}

/// The built-in nightly story asks its question as the job starts; written as a bare `02:00`,
/// the way its `[reconcile]` is, the question lands there too.
#[test]
fn nightly_reconcile_asks_at_02_00_on_the_jobs_tick() {
    let source = builtin_source("nightly-reconcile").replace("\"day 2 02:00:00\"", "\"02:00\"");
    let s = scenario::parse("nightly.toml", "nightly", &source).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    for design in Design::ALL {
        let job = reconcile_tick(&s, design);
        assert_eq!(
            tick_of(&s, &s.quizzes[0].target, design),
            Some(job),
            "{design}"
        );
    }
}

/// The start's own instant is at or after the start: a question there is on the first tick,
/// and the same words in `[reconcile]` run the job at that instant, not a day later.
#[test]
fn the_start_itself_counts() {
    let s = parse(&overnight("23:00").replace("at = \"02:00\"", "at = \"23:00\""));
    assert_eq!(s.quizzes[0].target, NarrationTarget::At(Instant(23 * HOUR)));
    assert_eq!(
        tick_of(&s, &s.quizzes[0].target, Design::WithCharge),
        Some(0)
    );
    assert_eq!(
        s.config.reconcile.as_ref().map(|r| r.at),
        Some(Instant(23 * HOUR))
    );
}

/// A day written out names that day, even one before the start.
#[test]
fn a_written_day_is_kept() {
    let s = parse(&overnight("day 2 02:00"));
    assert_eq!(
        s.quizzes[0].target,
        NarrationTarget::At(Instant(DAY + 2 * HOUR))
    );
    let err = scenario::parse("overnight.toml", "overnight", &overnight("day 1 02:00"))
        .expect_err("a time before the story starts is refused");
    let text = err.to_string();
    assert!(text.contains("overnight.toml:"), "{text}");
    assert!(text.contains("before the story starts"), "{text}");
}

/// `idem check` names a question whose time no tick reaches, or that comes before the story
/// starts, at the line and column of its `at`.
#[test]
fn check_points_at_a_time_no_tick_has() {
    let dir = TempDir::new("clock-times");
    let source = overnight("day 9 02:00");
    let quiz_line = source
        .lines()
        .position(|l| l == "[[quiz]]")
        .expect("a quiz")
        + 2;
    for (name, at) in [("late.toml", "day 9 02:00"), ("early.toml", "day 1 02:00")] {
        let path = dir.file(name, &overnight(at));
        let out = check::run(&CheckArgs {
            files: vec![path.clone().into()],
            json: false,
        });
        assert_eq!(out.exit, 2, "{name}: {}\n{}", out.text, out.errors);
        let here = format!("error: {path}:{quiz_line}:6: ");
        assert!(
            out.errors.contains(&here),
            "{name}: wanted {here}\n{}",
            out.errors
        );
        assert!(out.errors.contains("[[quiz]]"), "{name}: {}", out.errors);
    }
}

/// `:` with a time lands on the tick a question at that time stops on: the night job's first
/// tick, not the first day's 02:00 and not the last of the ticks at 02:00.
#[test]
fn colon_goes_where_a_question_at_that_time_stops() {
    for source in [
        overnight("02:00"),
        builtin_source("nightly-reconcile").replace("\"day 2 02:00:00\"", "\"02:00\""),
    ] {
        let mut s = parse(&source);
        let design = Design::NoKey;
        let asked = tick_of(&s, &s.quizzes[0].target, design);
        let job = reconcile_tick(&s, design);
        assert_eq!(asked, Some(job));
        s.quizzes.clear();
        let mut app = App::new(s, "overnight".to_string()).expect("simulates");
        settle(&mut app, Msg::SwitchDesign(design));
        press(&mut app, ch(':'));
        for c in "02:00".chars() {
            press(&mut app, ch(c));
        }
        press(&mut app, key(KeyCode::Enter));
        assert_eq!(app.screens.overlay, idem::tui::app::Overlay::None);
        assert_eq!(app.place.tick, job);
    }
}
