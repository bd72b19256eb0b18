//! Session files: a playlist of scenarios read with every problem placed at its line and
//! column, played in presenter mode (PageDown at a scenario's end opens the next, the score and
//! the timer carry over, each part counts down its budget), followed by the notes, and written
//! as one handout.

use crate::common;

use common::{TempDir, Tmux, ch, collapse, key, manifest, press, render, tmux_ready};
use idem::present::playlist::{self, MAX_SECTIONS, MAX_SESSION_BYTES, Playlist};
use idem::sim::Design;
use idem::tui::app::Launch;
use idem::tui::{App, Msg, settle};
use ratatui::crossterm::event::KeyCode;
use std::path::Path;

fn scenarios_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

fn three() -> Playlist {
    common::three_parts()
}

fn presenting(playlist: Playlist) -> App {
    let first = playlist.sections[0].clone();
    let launch = Launch {
        present: true,
        design: Some(first.design),
        playlist: Some(playlist),
        ..Launch::default()
    };
    App::launch(first.scenario, first.source, launch).expect("simulates")
}

/// Steps to the question of the scenario on screen, answers `choice` (1-based) in answer mode
/// and reveals it.
fn answer(app: &mut App, choice: char) {
    for _ in 0..100 {
        if app.quiz_pending() {
            break;
        }
        press(app, key(KeyCode::PageDown));
    }
    assert!(
        app.quiz_pending(),
        "{} asks a question",
        app.version.scenario().name
    );
    press(app, ch('a'));
    press(app, ch(choice));
    press(app, key(KeyCode::Enter));
}

fn clock(app: &mut App, secs: u64) {
    settle(app, Msg::Clock(secs));
}

#[test]
fn a_session_reads_its_scenarios_in_order() {
    let p = three();
    assert_eq!(p.title, "Three stories");
    let names: Vec<&str> = p
        .sections
        .iter()
        .map(|s| s.scenario.name.as_str())
        .collect();
    assert_eq!(names, ["order-5531", "reply-lost", "request-lost"]);
    assert_eq!(p.sections[1].source, "reply-lost.toml");
    assert_eq!(p.sections[1].design, Design::NoKey);
    assert_eq!(p.sections[0].design, p.sections[0].scenario.design);
    assert_eq!(p.sections[2].title, "The last one");
    assert_eq!(p.sections[0].title, p.sections[0].scenario.title);
    assert_eq!(p.sections[2].budget, None);
    assert_eq!(p.budget(), None, "not every part has a budget");
    // Text from the file is made safe to show.
    let p = playlist::parse(
        "t.toml",
        "title = \"Bell\\u0007 and \\u001b[31mred\"\n[[section]]\nscenario = \"order-5531\"\ntitle = \"a\\u0000b\"\n",
        Path::new("."),
    )
    .expect("reads");
    assert_eq!(p.title, "Bell and [31mred");
    assert_eq!(p.sections[0].title, "ab");
}

/// Each file of `tests/bad_sessions` says on its first line where its error is
/// (`# expect: LINE:COLUMN: words`, or `-` for the file as a whole); the library and the binary
/// both report it there.
#[test]
fn every_bad_session_is_placed_at_its_line_and_column() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_sessions");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the corpus")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    for name in &names {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).expect("reads");
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| panic!("{name} says where its error is"));
        let (place, words) = expect.split_once(": ").unwrap_or((expect, ""));
        assert!(playlist::is_session(&text), "{name} is a session file");
        let err = playlist::load(&path).expect_err(name);
        let shown = path.display().to_string();
        let first = err.one_line();
        let head = if place == "-" {
            format!("{shown}: ")
        } else {
            format!("{shown}:{place}: ")
        };
        assert!(first.starts_with(&head), "{name}: {first}");
        assert!(first.contains(words.trim()), "{name}: {first}");
        // The binary refuses it the same way, before any screen is drawn.
        let out = common::run_idem_in(None, &["present", &shown]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&head.trim_end().to_string()),
            "{name}: {stderr}"
        );
        assert!(!stderr.contains('\u{1b}'), "{name}");
    }
}

#[test]
fn a_session_file_is_bounded() {
    let dir = TempDir::new("big-session");
    let mut text = String::from("title = \"Huge\"\n");
    while text.len() as u64 <= MAX_SESSION_BYTES {
        text.push_str("# filler filler filler filler filler filler filler filler\n");
    }
    let big = dir.write("big.toml", &text);
    let err = playlist::load(&big).expect_err("too large");
    assert!(
        err.one_line().contains("at most 65536 bytes"),
        "{}",
        err.one_line()
    );
    let mut many = String::from("title = \"Many\"\n");
    for _ in 0..=MAX_SECTIONS {
        many.push_str("[[section]]\nscenario = \"order-5531\"\n");
    }
    let err = playlist::parse("many.toml", &many, Path::new(".")).expect_err("too many");
    let line = 2 + 2 * MAX_SECTIONS;
    assert!(
        err.one_line().starts_with(&format!(
            "many.toml:{line}:1: a session plays at most 50 scenarios"
        )),
        "{}",
        err.one_line()
    );
}

#[test]
fn pagedown_at_the_end_opens_the_next_scenario_and_the_score_carries_over() {
    let mut app = presenting(three());
    let first = render(&app, 80, 24);
    let title = first.lines().next().expect("a title line");
    assert!(title.contains("1/3 · Order 5531"), "{title}");
    assert!(title.contains("⏲ 00:00 · 10:00 left"), "{title}");

    clock(&mut app, 100);
    answer(&mut app, '2');
    assert_eq!(app.talk.session_score().right, 1);
    press(&mut app, key(KeyCode::End));
    assert!(app.at_end());
    // PageDown at the last tick: the next scenario, on the design the session names.
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.version.scenario().name, "reply-lost");
    assert_eq!(app.place.design, Design::NoKey);
    assert_eq!(app.place.tick, 0);
    assert!(
        !app.talk.room.any(),
        "a new scenario's questions are unanswered"
    );
    assert_eq!(app.talk.session_score().right, 1, "the score carries over");
    clock(&mut app, 160);
    let second = render(&app, 80, 24);
    let title = second.lines().next().expect("a title line");
    assert!(title.contains("2/3 · "), "{title}");
    assert!(
        title.contains("⏲ 02:40 · 04:00 left"),
        "the talk's time goes on; the part counts down its own: {title}"
    );

    answer(&mut app, '1');
    let asked = app.talk.session_score().asked;
    assert_eq!(asked, 2);
    press(&mut app, key(KeyCode::End));
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.version.scenario().name, "request-lost");
    assert_eq!(app.place.design, app.version.scenario().design);
    // PageUp at the first tick goes back, to the previous scenario's end, answers kept.
    press(&mut app, key(KeyCode::PageUp));
    assert_eq!(app.version.scenario().name, "reply-lost");
    assert!(app.at_end());
    assert!(app.talk.room.any(), "its answer is still there");
    assert_eq!(app.talk.session_score().asked, 2);
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.version.scenario().name, "request-lost");
    // No budget: no countdown.
    let third = render(&app, 80, 24);
    assert!(
        !third.lines().next().expect("title").contains(" left"),
        "{third}"
    );

    answer(&mut app, '1');
    press(&mut app, key(KeyCode::End));
    let end = render(&app, 80, 24);
    let score = app.talk.session_score().text().expect("a score");
    assert!(
        end.contains(&format!("The room, over the session: {score}")),
        "{end}"
    );
    assert_eq!(app.talk.session_score().asked, 3);
    // The last tick of the last scenario: PageDown stays.
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.version.scenario().name, "request-lost");
    assert!(app.at_end());
    // Leaving asks first, and the summary has the whole session's score.
    press(&mut app, ch('q'));
    assert!(!app.quit);
    press(&mut app, ch('y'));
    assert!(app.quit);
    let summary = idem::tui::terminal::summary(&app).expect("a summary");
    assert!(summary.contains(&score), "{summary}");
    assert!(summary.contains("3 of 3 parts shown"), "{summary}");
}

/// The notes hear which part of the session is on, its countdown, and the score.
#[test]
fn the_notes_are_told_the_part_and_the_score() {
    let mut app = presenting(three());
    answer(&mut app, '2');
    let shown = idem::tui::shown::shown(&app);
    assert_eq!(
        shown.section.as_deref(),
        Some("part 1 of 3: Order 5531: the answer that never came · budget 10:00")
    );
    assert_eq!(shown.score.as_deref(), Some("1 of 1 answer right"));
    assert!(
        shown
            .room
            .as_deref()
            .is_some_and(|r| r.starts_with("the room says 2 Once; revealed: right")),
        "{:?}",
        shown.room
    );
    let position = idem::present::link::Position {
        source: app.source.clone(),
        scenario: app.version.scenario().text.clone(),
        design: app.place.design.id().to_string(),
        tick: app.place.tick,
        shown: idem::present::link::Shown {
            left_secs: Some(61),
            ..shown
        },
    };
    let sheet = idem::tui::notes::sheet(&position).expect("a sheet");
    let lines = idem::tui::notes::state_lines(&sheet, 2);
    assert_eq!(
        lines[0],
        "part 1 of 3: Order 5531: the answer that never came · budget 10:00 · 00:59 left"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "the room's score so far: 1 of 1 answer right"),
        "{lines:?}"
    );
    let over = idem::tui::notes::state_lines(&sheet, 75);
    assert!(over[0].ends_with("00:14 over"), "{over:?}");
}

#[test]
fn one_handout_for_the_whole_session() {
    let dir = TempDir::new("session-md");
    let session = dir.write(
        "talk.toml",
        &format!(
            "title = \"Two parts\"\n[[section]]\nscenario = \"{}\"\nbudget = \"90s\"\n[[section]]\nscenario = \"reply-lost\"\ndesign = \"no-key\"\nbudget = \"1h30m\"\n",
            scenarios_dir().join("order-5531.toml").display()
        ),
    );
    let out = dir.join("handout.md");
    let run = common::run_idem_in(
        None,
        &[
            "export",
            &session.display().to_string(),
            "--format",
            "md",
            "--handout",
            "compact",
            "--out",
            &out.display().to_string(),
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let md = std::fs::read_to_string(&out).expect("written");
    assert!(md.starts_with("# Two parts\n"), "{md}");
    assert!(md.contains("| 1 | Order 5531: the answer that never came (`order-5531`) | key stored with the charge | 1 min 30 s |"), "{md}");
    assert!(
        md.contains(
            "| 2 | Reply lost: charged, and nobody told (`reply-lost`) | no key | 1 h 30 min |"
        ),
        "{md}"
    );
    assert!(
        md.contains("# Part 1: Order 5531: the answer that never came"),
        "{md}"
    );
    assert!(md.contains("# Part 2: Reply lost"), "{md}");
    // Each scenario's own headings sit under its part.
    assert!(
        md.contains("\n## Order 5531: the answer that never came\n"),
        "{md}"
    );
    assert!(md.contains("\n### Answers\n"), "{md}");
    assert_eq!(md.matches("\n### Answers\n").count(), 2, "{md}");
    // A session is one Markdown handout, nothing else.
    let svg = common::run_idem_in(
        None,
        &[
            "export",
            &session.display().to_string(),
            "--format",
            "svg",
            "--out",
            "-",
        ],
    );
    assert_eq!(svg.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&svg.stderr).contains("--format md"));
    // The shipped example exports too.
    let example = manifest("scenarios/sessions/payments-45min.toml");
    let run = common::run_idem_in(
        None,
        &[
            "export",
            &example,
            "--format",
            "md",
            "--trainer",
            "--out",
            "-",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let md = String::from_utf8_lossy(&run.stdout);
    assert!(md.contains("45 min in all"), "{md}");
    assert!(md.contains("## Notes for the trainer"), "{md}");
}

#[test]
fn the_example_session_reads() {
    let p = playlist::load(Path::new(&manifest(
        "scenarios/sessions/payments-45min.toml",
    )))
    .expect("the example reads");
    assert_eq!(p.budget(), Some(std::time::Duration::from_secs(45 * 60)));
    assert!(p.hide.design);
    assert!(p.sections.iter().all(|s| !s.scenario.quizzes.is_empty()));
    // A scenario file plainly opened as a session's says what it is.
    let out = common::run_idem_in(
        None,
        &["run", &manifest("scenarios/sessions/payments-45min.toml")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        collapse(&String::from_utf8_lossy(&out.stderr)).contains("looks like a session file"),
        "{out:?}"
    );
}

const WIDTH: u16 = 100;
const HEIGHT: u16 = 30;

/// `idem notes` in one tmux session and `idem present SESSION` in another, both on `socket`.
fn present_with_notes(tag: &str, socket: &Path, session: &Path) -> Tmux {
    let mut tmux = Tmux::start(tag);
    tmux.session("present", WIDTH, HEIGHT);
    tmux.session("notes", WIDTH, HEIGHT);
    let bin = env!("CARGO_BIN_EXE_idem");
    for (name, args) in [
        ("notes", "notes".to_string()),
        ("present", format!("present '{}'", session.display())),
    ] {
        tmux.type_text(
            name,
            &format!("IDEM_SOCKET='{}' '{bin}' {args}", socket.display()),
        );
        tmux.press(name, "Enter");
    }
    tmux
}

/// In the presenter's tmux session: `steps` PageDowns to the part's question, the room's
/// answer 1 and its reveal, then the part's end and PageDown to the next part.
fn answer_then_next_part(tmux: &Tmux, steps: usize) {
    for _ in 0..steps {
        tmux.press("present", "NPage");
    }
    tmux.wait_for("present", "the question", |s| {
        s.contains("Question for the room")
    });
    for key in ["a", "1", "Enter"] {
        tmux.press("present", key);
    }
    tmux.wait_for("present", "the answer", |s| s.contains(" The answer "));
    tmux.press("present", "End");
    tmux.wait_for("present", "the last tick", |s| {
        s.contains("The room so far: ")
    });
    tmux.press("present", "NPage");
}

/// `idem present session.toml` in a real terminal: PageDown at the end of the first scenario
/// opens the second, and `idem notes` follows it there over the real socket.
#[test]
fn present_a_session_in_tmux_and_the_notes_follow() {
    if !tmux_ready("the session end-to-end test") {
        return;
    }
    let dir = TempDir::new("sess");
    let socket = dir.join("p.sock");
    let session = dir.write(
        "talk.toml",
        "title = \"Two parts\"\n[[section]]\nscenario = \"request-lost\"\nbudget = \"10m\"\n[[section]]\nscenario = \"reply-lost\"\ndesign = \"no-key\"\n",
    );
    let tmux = present_with_notes("sess", &socket, &session);
    // The talk opens on its agenda; PageDown starts part 1.
    tmux.wait_for("present", "the agenda", |s| {
        s.contains("PageDown starts part 1")
    });
    tmux.wait_for("notes", "the notes on the agenda", |s| {
        collapse(s).contains("the agenda is on screen")
    });
    tmux.press("present", "NPage");
    tmux.wait_for("present", "the first part", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("1/2 · Request lost"))
    });
    tmux.wait_for("notes", "the notes on part 1", |s| {
        collapse(s).contains("part 1 of 2: Request lost")
    });
    // To the question; the room answers; on to the end, then the next part.
    answer_then_next_part(&tmux, 12);
    let screen = tmux.wait_for("present", "the second part", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("2/2 · Reply lost"))
    });
    assert!(screen.contains("3 no key"), "{screen}");
    let notes = tmux.wait_for("notes", "the notes on part 2", |s| {
        collapse(s).contains("part 2 of 2: Reply lost")
    });
    assert!(collapse(&notes).contains("no key · tick 1/"), "{notes}");
    assert!(
        collapse(&notes).contains("the room's score so far: "),
        "{notes}"
    );
    // Leaving asks first; then the summary is printed.
    tmux.press("present", "q");
    tmux.wait_for("present", "the question to leave", |s| s.contains("Quit?"));
    tmux.press("present", "y");
    tmux.wait_for("present", "the summary", |s| {
        s.contains("the room: ") && s.contains("1 of 2 parts") || s.contains("2 of 2 parts")
    });
    tmux.press("notes", "q");
}

/// Keys chosen on the command line hold for every part of a session, each time a part is
/// read; `--step-keys` needs a part with steps, and `--at` belongs to one scenario.
#[test]
fn a_session_takes_its_keys_from_the_command_line_for_every_part() {
    use idem::present::playlist::Keys;
    use idem::sim::config::KeyStrategy;
    let keys = Keys {
        strategy: Some(KeyStrategy::PerAttempt),
        steps: Some(idem::sim::config::KeyMode::PerAttempt),
    };
    let mut app = presenting(three().keyed(keys));
    assert_eq!(
        app.version.scenario().config.key_strategy,
        KeyStrategy::PerAttempt
    );
    answer(&mut app, '2');
    press(&mut app, key(KeyCode::End));
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.version.scenario().name, "reply-lost");
    assert_eq!(
        app.version.scenario().config.key_strategy,
        KeyStrategy::PerAttempt
    );
    assert_eq!(app.version.keys_set(), Some(KeyStrategy::PerAttempt));
    assert!(
        app.version
            .changed_from_written()
            .contains(&"the checkout's keys"),
        "the room is told the keys are not the file's"
    );
    for (flag, value, says) in [
        (
            "--step-keys",
            "per-attempt",
            "no scenario of this session has a [[step]]",
        ),
        ("--at", "14:02:38", "--at belongs to one scenario"),
    ] {
        let out = common::run_idem_in(
            None,
            &[
                "present",
                "scenarios/sessions/payments-45min.toml",
                flag,
                value,
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
    }
}

/// A part written to a file of its own, without its question, titled `title`.
fn part_text(title: &str) -> String {
    let base = std::fs::read_to_string(scenarios_dir().join("reply-lost.toml")).expect("reads");
    let body = base.split("[[quiz]]").next().expect("the story");
    body.replacen(
        "title = \"Reply lost: charged, and nobody told\"",
        &format!("title = \"{title}\""),
        1,
    )
}

#[test]
fn a_part_come_back_to_shows_its_file_as_it_is_on_disk_now() {
    let dir = TempDir::new("session-edit");
    std::fs::write(dir.join("a.toml"), part_text("First as written")).expect("writes");
    std::fs::write(dir.join("b.toml"), part_text("Second")).expect("writes");
    let text = "title = \"Edits\"\n\n[[section]]\nscenario = \"a.toml\"\n\n[[section]]\nscenario = \"b.toml\"\n";
    let playlist = playlist::parse("s.toml", text, dir.path()).expect("reads");
    let mut app = presenting(playlist);
    assert_eq!(app.version.scenario().title, "First as written");
    press(&mut app, key(KeyCode::End));
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.version.scenario().title, "Second");
    // The trainer edits the first part while the second is on screen.
    std::fs::write(dir.join("a.toml"), part_text("First, edited")).expect("writes");
    press(&mut app, key(KeyCode::PageUp));
    assert_eq!(
        app.version.scenario().title,
        "First, edited",
        "the edit is not undone"
    );
    // A file that no longer reads keeps the version read before, and says so.
    press(&mut app, key(KeyCode::End));
    press(&mut app, key(KeyCode::PageDown));
    std::fs::write(dir.join("a.toml"), "title = \n").expect("writes");
    press(&mut app, key(KeyCode::PageUp));
    assert_eq!(app.version.scenario().title, "First, edited");
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("has an error")),
        "{:?}",
        app.screens.notice
    );
}

#[test]
fn the_checklist_never_replaces_a_part_and_its_answers() {
    let mut app = presenting(three());
    answer(&mut app, '2');
    assert!(app.talk.room.any());
    press(&mut app, ch('k'));
    press(&mut app, key(KeyCode::Enter));
    assert_eq!(app.version.scenario().name, "order-5531", "the part stays");
    assert!(app.talk.room.any(), "and so do its answers");
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("session file")),
        "{:?}",
        app.screens.notice
    );
    // Quitting asks, and the summary counts the parts shown, not the part on screen.
    press(&mut app, ch('q'));
    assert!(!app.quit, "it asks first");
    press(&mut app, ch('y'));
    let summary = idem::tui::terminal::summary(&app).expect("a summary");
    assert!(summary.contains("1 of 3 parts shown"), "{summary}");
}

#[test]
fn the_results_of_a_talk_name_every_part_question_and_answer() {
    let mut app = presenting(three());
    clock(&mut app, 90);
    answer(&mut app, '2');
    press(&mut app, key(KeyCode::End));
    press(&mut app, key(KeyCode::PageDown));
    clock(&mut app, 150);
    let made = idem::tui::results::results(&app);
    assert_eq!(made.parts.len(), 3);
    let first = &made.parts[0];
    assert!(first.shown && made.parts[1].shown && !made.parts[2].shown);
    assert_eq!(first.budget_secs, Some(600));
    assert_eq!(first.secs, 90, "the first part's time is kept");
    let q = &first.questions[0];
    assert_eq!((q.answer, q.revealed), (Some(2), true));
    assert_eq!(q.right, Some(q.right_choice == Some(2)));
    assert_eq!(q.design, "with-charge");
    assert_eq!(
        made.parts[1].secs, 60,
        "the part on screen counts from its start"
    );
    // The same, as CSV and as JSON, by the file's name.
    let csv = idem::tui::results::render(&made, Path::new("r.csv"));
    let mut lines = csv.lines();
    assert!(
        lines
            .next()
            .is_some_and(|h| h.starts_with("part,part_title"))
    );
    assert!(csv.contains(",with-charge,2,"), "{csv}");
    let json = idem::tui::results::render(&made, Path::new("r.json"));
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["parts"][0]["questions"][0]["answer"], 2);
}

#[test]
fn results_that_cannot_be_written_are_refused_before_the_talk() {
    let dir = TempDir::new("results");
    std::fs::write(dir.join("taken.json"), "{}").expect("writes");
    for (path, says) in [
        (dir.join("no-such-folder").join("r.json"), "no-such-folder"),
        (dir.join("taken.json"), "--force"),
    ] {
        let out = common::run_idem_in(
            None,
            &["present", "--results", path.to_str().expect("UTF-8")],
        );
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--results") && err.contains(says), "{err}");
    }
}

#[test]
fn a_talk_opens_on_its_agenda_and_ends_on_its_end_card() {
    use idem::tui::app::Card;
    let playlist = three();
    let first = playlist.sections[0].clone();
    let launch = Launch {
        present: true,
        design: Some(first.design),
        playlist: Some(playlist),
        cards: true,
        ..Launch::default()
    };
    let mut app = App::launch(first.scenario, first.source, launch).expect("simulates");
    assert_eq!(app.talk.card(), Some(Card::Agenda));
    let screen = render(&app, 80, 24);
    for part in ["1. Order 5531", "3. The last one", "PageDown starts part 1"] {
        assert!(screen.contains(part), "{part}:\n{screen}");
    }
    assert!(app.question_here().is_none(), "no question over the agenda");
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!((app.talk.card(), app.place.tick), (None, 0));
    press(&mut app, key(KeyCode::PageUp));
    assert_eq!(app.talk.card(), Some(Card::Agenda));
    press(&mut app, key(KeyCode::PageDown));
    for _ in 0..3 {
        answer(&mut app, '2');
        press(&mut app, key(KeyCode::End));
        press(&mut app, key(KeyCode::PageDown));
    }
    assert_eq!(app.talk.card(), Some(Card::End));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("3 of 3 parts shown"), "{screen}");
    assert!(screen.contains("The room, over the session"), "{screen}");
    press(&mut app, key(KeyCode::PageUp));
    assert_eq!(app.talk.card(), None);
    assert_eq!(app.version.scenario().name, "request-lost");
    assert!(app.at_end());
}

#[test]
fn an_agenda_taller_than_the_screen_says_what_it_leaves_out() {
    let mut text = String::from("title = \"A long day\"\n");
    for i in 0..20 {
        text.push_str(&format!(
            "\n[[section]]\ntitle = \"Part {i}\"\nscenario = \"order-5531\"\n"
        ));
    }
    let playlist = playlist::parse("long.toml", &text, &scenarios_dir()).expect("reads");
    let first = playlist.sections[0].clone();
    let launch = Launch {
        present: true,
        design: Some(first.design),
        playlist: Some(playlist),
        cards: true,
        ..Launch::default()
    };
    let app = App::launch(first.scenario, first.source, launch).expect("simulates");
    let screen = render(&app, 80, 24);
    assert!(screen.contains("A long day"), "{screen}");
    assert!(
        screen.contains("more lines: a taller screen shows them"),
        "{screen}"
    );
    let tall = render(&app, 80, 50);
    assert!(tall.contains("20. Part 19"), "{tall}");
}

/// The session file is watched as a part's file is: an edit to it is read again, the agenda
/// takes the new list of parts (a part that stays where it was keeps its answers), and a
/// broken edit keeps the agenda read before, saying why.
#[test]
fn an_edited_session_file_changes_the_agenda_and_keeps_the_answers() {
    let dir = TempDir::new("session-edit");
    let three = "title = \"Three\"\n[[section]]\nscenario = \"order-5531\"\n[[section]]\nscenario = \"reply-lost\"\n[[section]]\nscenario = \"request-lost\"\n";
    let path = dir.write("talk.toml", three);
    let playlist = playlist::load(&path).expect("reads");
    assert_eq!(playlist.path.as_deref(), Some(path.as_path()));
    let mut app = presenting(playlist);
    answer(&mut app, '2');
    let score = app.talk.session_score();
    // A fourth part after the first, and a new title for the talk.
    dir.write(
        "talk.toml",
        &three
            .replace("title = \"Three\"", "title = \"Four\"")
            .replace(
                "[[section]]\nscenario = \"reply-lost\"",
                "[[section]]\nscenario = \"second-purchase\"\n[[section]]\nscenario = \"reply-lost\"",
            ),
    );
    let (from, keys) = app
        .talk
        .agenda
        .as_ref()
        .and_then(|a| a.playlist.source())
        .expect("read from a file");
    let reread = playlist::reread(&from, keys);
    settle(&mut app, Msg::SessionChanged(reread.map(Box::new)));
    let agenda = app.talk.agenda.as_ref().expect("a session");
    assert_eq!(agenda.playlist.title, "Four");
    assert_eq!(agenda.playlist.sections.len(), 4);
    assert_eq!(agenda.at, 0, "the part on screen stays");
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("4 parts, part 1 on screen")),
        "{:?}",
        app.screens.notice
    );
    assert_eq!(app.talk.session_score(), score, "part 1's answers are kept");
    // On to part 2, which is the new one, and back: part 1 still has its answers.
    press(&mut app, key(KeyCode::End));
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.talk.agenda.as_ref().map(|a| a.at), Some(1));
    assert_eq!(app.version.scenario().name, "second-purchase");
    press(&mut app, key(KeyCode::PageUp));
    press(&mut app, key(KeyCode::Home));
    press(&mut app, key(KeyCode::PageUp));
    assert_eq!(app.talk.agenda.as_ref().map(|a| a.at), Some(0));
    assert_eq!(app.talk.session_score(), score);
    // A broken edit keeps the agenda and says why.
    dir.write(
        "talk.toml",
        "title = \"Broken\"\n[[section]]\nscenario = 7\n",
    );
    let (from, keys) = app
        .talk
        .agenda
        .as_ref()
        .and_then(|a| a.playlist.source())
        .expect("read from a file");
    let reread = playlist::reread(&from, keys);
    assert!(reread.is_err());
    settle(&mut app, Msg::SessionChanged(reread.map(Box::new)));
    assert_eq!(
        app.talk.agenda.as_ref().map(|a| a.playlist.sections.len()),
        Some(4)
    );
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("the agenda read before is kept")),
        "{:?}",
        app.screens.notice
    );
}

/// A three-part session in a real terminal with the notes beside it: the notes follow the
/// presenter through `K`, a live edit of the part on screen, the next part and `m`, an edit
/// of the session file itself, and a return to the edited part, which comes back as its file
/// now reads.
#[test]
fn three_parts_with_notes_through_k_m_edits_and_a_return() {
    if !tmux_ready("the three-part session test") {
        return;
    }
    let dir = TempDir::new("sess3");
    let socket = dir.join("p.sock");
    let scenarios = scenarios_dir();
    let copy = |from: &str, to: &str| {
        let text = std::fs::read_to_string(scenarios.join(from)).expect("a scenario");
        dir.write(to, &text)
    };
    let first = copy("order-5531.toml", "a.toml");
    copy("courier-retry.toml", "c.toml");
    copy("reply-lost.toml", "b.toml");
    let talk = "title = \"Three parts\"\n[[section]]\nscenario = \"a.toml\"\n[[section]]\nscenario = \"c.toml\"\n[[section]]\nscenario = \"b.toml\"\n";
    let session = dir.write("talk.toml", talk);
    let tmux = present_with_notes("sess3", &socket, &session);
    tmux.wait_for("present", "the agenda", |s| {
        s.contains("PageDown starts part 1")
    });
    tmux.press("present", "NPage");
    tmux.wait_for("present", "part 1", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("1/3 · Order 5531"))
    });
    for _ in 0..5 {
        tmux.press("present", "NPage");
    }
    // K: both screens say the checkout's keys changed, and the notes' answer is for them.
    let k_line = "K: the checkout sends a new key on every attempt";
    tmux.press("present", "K");
    tmux.wait_for("present", "K in force", |s| s.contains(k_line));
    tmux.wait_for("notes", "the notes under K", |s| {
        let s = collapse(s);
        s.contains(k_line) && s.contains("the checkout's keys changed it here")
    });
    // A live edit of the part on screen: read again, K still in force, on both screens.
    let text = std::fs::read_to_string(&first).expect("reads");
    let edited = text.replacen("title = \"", "title = \"Edited · ", 1);
    assert_ne!(edited, text, "the part has a title to edit");
    std::fs::write(&first, &edited).expect("writable");
    tmux.wait_for("present", "the edit read again", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("1/3 · Edited · "))
            && s.contains("still in force")
            && s.contains(k_line)
    });
    tmux.wait_for("notes", "the notes on the edited part", |s| {
        s.lines().next().is_some_and(|l| l.contains("Edited · ")) && collapse(s).contains(k_line)
    });
    // The question, answered, then the end of the part and the next one.
    answer_then_next_part(&tmux, 8);
    tmux.wait_for("present", "part 2", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("2/3 · Courier retry"))
    });
    tmux.wait_for("notes", "the notes on part 2", |s| {
        let s = collapse(s);
        s.contains("part 2 of 3: Courier retry") && !s.contains(k_line)
    });
    // m: the steps' keys change, on both screens.
    let m_line = "m: the steps after payment are sent with a fresh key per try";
    tmux.press("present", "m");
    tmux.wait_for("present", "m in force", |s| s.contains(m_line));
    tmux.wait_for("notes", "the notes under m", |s| {
        let s = collapse(s);
        s.contains(m_line) && s.contains("the steps' keys changed it here")
    });
    // The session file itself is edited: the agenda takes it, the part on screen stays.
    std::fs::write(
        &session,
        talk.replace(
            "scenario = \"b.toml\"",
            "scenario = \"b.toml\"\ntitle = \"The last one, renamed\"",
        ),
    )
    .expect("writable");
    tmux.wait_for("present", "the session read again", |s| {
        collapse(s).contains("the session file changed: 3 parts, part 2 on screen")
    });
    // Back to part 1: it comes back as its file reads now, at its end, keyed as written.
    tmux.press("present", "Home");
    tmux.press("present", "PPage");
    tmux.wait_for("present", "part 1 again", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("1/3 · Edited · "))
            && !s.contains(k_line)
            && !s.contains(m_line)
    });
    tmux.wait_for("notes", "the notes back on part 1", |s| {
        let s = collapse(s);
        s.contains("part 1 of 3: Edited · ") && !s.contains(k_line) && !s.contains(m_line)
    });
    tmux.press("present", "q");
    tmux.wait_for("present", "the question to leave", |s| s.contains("Quit?"));
    tmux.press("present", "y");
    tmux.wait_for("present", "the summary", |s| s.contains("2 of 3 parts"));
    tmux.press("notes", "q");
}

/// A part without a title of its own is named as its file now names its scenario: after a
/// live edit of the title the agenda and the notes follow it; a part the session titles keeps
/// the session's title.
#[test]
fn a_retitled_part_is_named_anew_in_the_agenda_and_the_notes() {
    let dir = TempDir::new("session-retitle");
    let source = common::builtin_source("reply-lost");
    let part = dir.write("a.toml", source);
    dir.write("b.toml", source);
    let path = dir.write(
        "talk.toml",
        "title = \"Two\"\n[[section]]\nscenario = \"a.toml\"\n[[section]]\nscenario = \"b.toml\"\ntitle = \"Ours\"\n",
    );
    let mut app = presenting(playlist::load(&path).expect("reads"));
    std::fs::write(
        &part,
        source.replacen("title = \"", "title = \"Renamed: ", 1),
    )
    .expect("writable");
    common::file_changed(&mut app, &part);
    let agenda = app.talk.agenda.as_ref().expect("a session");
    assert!(agenda.playlist.sections[0].title.starts_with("Renamed: "));
    assert_eq!(agenda.playlist.sections[1].title, "Ours");
    let shown = idem::tui::shown::shown(&app);
    assert!(
        shown
            .section
            .as_deref()
            .is_some_and(|s| s.contains("part 1 of 2: Renamed: ")),
        "{:?}",
        shown.section
    );
}
