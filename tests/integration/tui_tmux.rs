//! End to end: the real binary in a real terminal (tmux), driven by key presses and read
//! back from the screen. Without tmux they fail when `CI` is set, and skip with a note otherwise
//! (`tmux_ready` in `tests/common`, whose rule is tested here without tmux).

use crate::common;

use common::{Tmux, TmuxPlan, header, tmux_plan, tmux_ready};
use idem::scenario::library::default_scenario;
use idem::sim::Design;

const WIDTH: u16 = 120;
const HEIGHT: u16 = 36;

/// The one tmux session the replay runs in.
const SESSION: &str = "replay";

/// The card statement's charge lines: the rows between its title and the next box's title.
fn statement_lines(screen: &str) -> usize {
    let rows: Vec<&str> = screen.lines().collect();
    let top = rows
        .iter()
        .position(|r| r.contains(" Card statement "))
        .unwrap_or_else(|| panic!("no card statement on screen:\n{screen}"));
    rows[top + 1..]
        .iter()
        .take_while(|r| !r.contains(" Checkout & counters "))
        .filter(|r| r.contains("INKWELL STATIONERY"))
        .count()
}

#[test]
fn replay_in_a_real_terminal() {
    if !tmux_ready("the end-to-end replay test") {
        return;
    }
    let app = idem::tui::App::new(
        default_scenario().expect("the default scenario loads"),
        "order-5531".into(),
    )
    .expect("every design simulates");
    let ticks_1 = app.version.trace_of(Design::WithCharge).ticks.len();
    let ticks_3 = app.version.trace_of(Design::NoKey).ticks.len();

    let mut tmux = Tmux::start("replay");
    tmux.session(SESSION, WIDTH, HEIGHT);
    assert_eq!(
        tmux.format(SESSION, "#{window_width}x#{window_height}"),
        format!("{WIDTH}x{HEIGHT}")
    );
    let bin = env!("CARGO_BIN_EXE_idem");
    assert!(!bin.contains('\''), "the binary's path is quoted with '");
    tmux.type_text(SESSION, &format!("'{bin}'"));
    tmux.press(SESSION, "Enter");

    // The whole first frame, to its last box: under load tmux can be read while the frame
    // is still being written, header first.
    let screen = tmux.wait_for(SESSION, "the replay's first frame", |s| {
        header(s).contains("◷ 14:02:07.000")
            && header(s).contains("tick 1/")
            && s.contains(" Card statement ")
            && s.contains(" Checkout & counters ")
    });
    assert!(screen.contains("idem Order 5531: the answer that never came"));
    assert_eq!(
        tmux.format(SESSION, "#{alternate_on}"),
        "1",
        "the replay uses the alternate screen"
    );
    assert_eq!(statement_lines(&screen), 0);

    // End stops at the question for the room; answer it (once), then go on to the end.
    tmux.press(SESSION, "G");
    tmux.wait_for(SESSION, "the quiz", |s| s.contains("Question for the room"));
    // a, then the number: the room's answer; Enter reveals it.
    tmux.press(SESSION, "a");
    tmux.wait_for(SESSION, "answer mode", |s| s.contains("Answer mode"));
    tmux.press(SESSION, "2");
    tmux.wait_for(SESSION, "the room's answer", |s| {
        s.contains("The room says 2")
    });
    tmux.press(SESSION, "Enter");
    tmux.wait_for(SESSION, "the answer", |s| s.contains("✓ Right."));
    // End: with the key stored with the charge, one line on the statement.
    tmux.press(SESSION, "G");
    let end_1 = format!("tick {ticks_1}/{ticks_1}");
    let screen = tmux.wait_for(SESSION, "the last tick under design 1", |s| {
        header(s).contains(&end_1) && s.contains("Charged once")
    });
    assert!(header(&screen).contains("design key stored with the charge"));
    assert!(screen.contains("✓ Charged once — $48.60"), "{screen}");
    assert_eq!(statement_lines(&screen), 1, "{screen}");
    assert!(
        screen
            .lines()
            .any(|l| l.contains("INKWELL STATIONERY") && l.contains("$48.60")),
        "{screen}"
    );

    // 3 keeps the moment (14:02:38.100): no key has not charged again yet.
    tmux.press(SESSION, "3");
    let screen = tmux.wait_for(SESSION, "design 3", |s| header(s).contains("design no key"));
    assert!(header(&screen).contains("◷ 14:02:38.050"), "{screen}");
    assert_eq!(statement_lines(&screen), 1, "{screen}");
    // Its own end: two lines on the statement.
    tmux.press(SESSION, "G");
    let end_3 = format!("tick {ticks_3}/{ticks_3}");
    let screen = tmux.wait_for(SESSION, "the last tick under design 3", |s| {
        header(s).contains(&end_3) && s.contains("Charged twice")
    });
    assert!(screen.contains("✗ Charged twice — $97.20"), "{screen}");
    assert_eq!(statement_lines(&screen), 2, "{screen}");

    // q: the terminal is given back, and the shell works.
    tmux.press(SESSION, "q");
    tmux.wait_for(SESSION, "the replay to close", |s| !s.contains("◷ "));
    let token = format!("idem-done-{}-marker", std::process::id());
    tmux.type_text(SESSION, &format!("echo \"exit=$? {token}\""));
    tmux.press(SESSION, "Enter");
    // The typed line may be echoed before the shell prints its prompt again, so the answer can
    // share a line with that prompt: it only has to end the line.
    let answer = format!("exit=0 {token}");
    let screen = tmux.wait_for(SESSION, "the shell to answer", |s| {
        s.lines().any(|l| l.trim_end().ends_with(&answer))
    });
    assert_eq!(
        tmux.format(SESSION, "#{alternate_on}"),
        "0",
        "the alternate screen was left"
    );
    assert!(!screen.contains("Timeline"), "{screen}");
    assert!(!screen.contains("tick "), "{screen}");
}

/// A what-if on a long story is simulated while the replay goes on answering: the footer says
/// "simulating…", a step is taken meanwhile, and the fork's outcome arrives after.
#[test]
fn a_what_if_on_a_long_story_keeps_the_replay_live() {
    if !tmux_ready("the long-story what-if test") {
        return;
    }
    let dir = common::TempDir::new("long-fork");
    let story = dir.file(
        "long.toml",
        "title = \"Two thousand attempts\"\n[[checkout.layer]]\nattempts = 2000\ntimeout = \"100ms\"\n\
         backoff = \"10ms\"\n[processor]\nprocessing = \"10h\"\n[[intent]]\norder = \"1\"\n\
         amount = \"$1.00\"\nat = \"10:00:00\"\n",
    );
    let mut tmux = Tmux::start("long-fork");
    tmux.session(SESSION, WIDTH, HEIGHT);
    let bin = env!("CARGO_BIN_EXE_idem");
    tmux.type_text(SESSION, &format!("'{bin}' '{story}'"));
    tmux.press(SESSION, "Enter");
    tmux.wait_for(SESSION, "the replay", |s| header(s).contains("tick 1/"));
    tmux.press(SESSION, "l");
    tmux.wait_for(SESSION, "tick 2", |s| header(s).contains("tick 2/"));
    tmux.press(SESSION, "x");
    tmux.wait_for(SESSION, "the simulating line", |s| {
        s.contains("⧗ simulating… what if:")
    });
    // The replay is not frozen while the engine works: a step back is taken at once.
    tmux.press(SESSION, "h");
    tmux.wait_for(SESSION, "the step", |s| header(s).contains("tick 1/"));
    let screen = tmux.wait_for(SESSION, "the what-if's outcome", |s| s.contains("WHAT-IF"));
    assert!(!screen.contains("simulating…"), "{screen}");
    tmux.press(SESSION, "q");
}

/// The rule every tmux test follows: with tmux it runs; without it, it fails when `CI` is set
/// and skips (with a note) only when it is not.
#[test]
fn tmux_tests_fail_in_ci_when_tmux_is_missing() {
    assert_eq!(tmux_plan(true, true), TmuxPlan::Run);
    assert_eq!(tmux_plan(false, true), TmuxPlan::Run);
    assert_eq!(tmux_plan(true, false), TmuxPlan::Fail);
    assert_eq!(tmux_plan(false, false), TmuxPlan::Skip);
}

/// From a real terminal, `idem > file` and `idem | cat` say in one line that the screens need
/// a terminal, exit 2, and write no escape codes to the file or the pipe.
#[test]
fn the_replay_refuses_an_output_that_is_not_a_terminal() {
    if !tmux_ready("the redirected-output test") {
        return;
    }
    let dir = common::TempDir::new("redirected");
    let file = dir.path().join("screen.out");
    let piped = dir.path().join("piped.out");
    let mut tmux = Tmux::start("redirect");
    tmux.session("out", 200, 20);
    let bin = env!("CARGO_BIN_EXE_idem");
    tmux.type_text(
        "out",
        &format!(
            "'{bin}' > '{}'; echo \"file=$?\"; {{ '{bin}'; echo \"pipe=$?\" >&2; }} | cat > '{}'",
            file.display(),
            piped.display()
        ),
    );
    tmux.press("out", "Enter");
    let screen = tmux.wait_for("out", "both commands to end", |s| {
        s.lines().any(|l| l.starts_with("file=")) && s.lines().any(|l| l.starts_with("pipe="))
    });
    assert!(screen.lines().any(|l| l == "file=2"), "{screen}");
    assert!(screen.lines().any(|l| l == "pipe=2"), "{screen}");
    assert!(screen.contains("standard output is not one"), "{screen}");
    for out in [&file, &piped] {
        let bytes = std::fs::read(out).unwrap_or_default();
        assert!(
            !bytes.contains(&0x1b),
            "escape codes reached {}",
            out.display()
        );
    }
    assert_eq!(tmux.format("out", "#{alternate_on}"), "0");
}

/// The mouse in a real terminal: the replay asks for mouse reports, the wheel steps, a click
/// on a tab switches design, and the terminal's mouse mode is off again after quitting; with
/// `--no-mouse` it is never asked for.
#[test]
fn the_mouse_in_a_real_terminal() {
    if !tmux_ready("the mouse test") {
        return;
    }
    let mut tmux = Tmux::start("mouse");
    tmux.session(SESSION, WIDTH, HEIGHT);
    let bin = env!("CARGO_BIN_EXE_idem");
    tmux.type_text(SESSION, &format!("'{bin}'"));
    tmux.press(SESSION, "Enter");
    let screen = tmux.wait_for(SESSION, "the replay", |s| header(s).contains("tick 1/"));
    assert_eq!(tmux.format(SESSION, "#{mouse_any_flag}"), "1", "{screen}");
    // What the terminal sends for the wheel, in the SGR form (1-based column and row).
    tmux.type_text(SESSION, "\x1b[<65;40;12M");
    tmux.wait_for(SESSION, "the wheel's step", |s| {
        header(s).contains("tick 2/")
    });
    // A click on the third design's tab, on the design bar (the third row).
    let screen = tmux.screen(SESSION);
    let row = screen.lines().nth(2).expect("a design bar");
    let column = row
        .find("3 no key")
        .map(|b| row[..b].chars().count())
        .unwrap_or_else(|| panic!("the tab:\n{screen}"));
    tmux.type_text(
        SESSION,
        &format!("\x1b[<0;{};3M\x1b[<0;{};3m", column + 2, column + 2),
    );
    tmux.wait_for(SESSION, "the switch", |s| {
        header(s).contains("design no key")
    });
    tmux.press(SESSION, "q");
    tmux.wait_for(SESSION, "the shell", |s| !s.contains("design no key"));
    assert_eq!(tmux.format(SESSION, "#{mouse_any_flag}"), "0");

    tmux.type_text(SESSION, &format!("'{bin}' --no-mouse"));
    tmux.press(SESSION, "Enter");
    tmux.wait_for(SESSION, "the replay", |s| header(s).contains("tick 1/"));
    assert_eq!(tmux.format(SESSION, "#{mouse_any_flag}"), "0");
    tmux.press(SESSION, "q");
}

/// `--key-strategy` opens the replay with the checkout keyed that way: the header says so,
/// the story is the one with a new key per attempt, and the share line carries the flag.
#[test]
fn the_key_strategy_flag_opens_the_replay_keyed_that_way() {
    if !tmux_ready("the key-strategy flag test") {
        return;
    }
    let mut tmux = Tmux::start("keys");
    tmux.session(SESSION, WIDTH, HEIGHT);
    let bin = env!("CARGO_BIN_EXE_idem");
    tmux.type_text(
        SESSION,
        &format!("'{bin}' order-5531 --key-strategy per-attempt"),
    );
    tmux.press(SESSION, "Enter");
    tmux.wait_for(SESSION, "the replay", |s| {
        header(s).contains("keys: new on every attempt")
    });
    // The share line is read at the first tick: further on, a question takes its place.
    let screen = tmux.wait_for(SESSION, "the share line", |s| {
        s.contains("--key-strategy per-attempt")
    });
    assert!(screen.contains("key stored with the charge"), "{screen}");
    // Forward stops at the quiz's question, just after the retry has gone out: under this
    // strategy it carries a key of its own, not the first attempt's K7Q4.
    tmux.press(SESSION, "G");
    let screen = tmux.wait_for(SESSION, "the retry", |s| retry_row(s).is_some());
    let retry = retry_row(&screen).unwrap_or_default();
    assert!(
        !retry.contains("K7Q4"),
        "the retry kept the first key:\n{screen}"
    );
    tmux.press(SESSION, "q");
}

/// The timeline's row where the second attempt leaves the checkout.
fn retry_row(screen: &str) -> Option<&str> {
    screen
        .lines()
        .find(|l| l.contains("charge $48.60 key") && l.contains("#2"))
}
