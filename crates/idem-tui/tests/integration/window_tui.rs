//! The window screen: every key without a terminal, the scenario Enter
//! builds (simulated), and renders on ratatui's test backend, each snapshot
//! paired with plain assertions so a blindly accepted snapshot cannot hide a
//! regression.

use crate::common;

use std::time::Duration;

use common::{PLAIN, key, screen_text};
use idem::sim::Design;
use idem::tui::theme::Theme;
use idem::tui::window::{
    MAX_ATTEMPTS, MAX_LAYERS, MAX_PATHS, MIN_HEIGHT, MIN_WIDTH, Row, WindowAction, WindowScreen,
    render,
};
use idem::window::scenario::{MAX_REPLAY_ATTEMPTS, scenario_from_stack};
use idem::window::{HumanPath, Layer, Stack};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

const HOUR: u64 = 3600;
const DAY: u64 = 24 * HOUR;

/// A character key, with Shift held for a capital (the window screen's own keys need it).
fn ch(c: char) -> KeyEvent {
    let modifiers = if c.is_ascii_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    KeyEvent::new(KeyCode::Char(c), modifiers)
}

/// Presses each key in turn; every one must leave the screen open.
fn press(screen: &mut WindowScreen, keys: &[KeyEvent]) {
    for k in keys {
        let action = screen.handle_key(idem::tui::keymap::key(*k));
        assert!(
            matches!(action, WindowAction::None),
            "{k:?} should keep the screen open, got {action:?}"
        );
    }
}

fn worked() -> WindowScreen {
    WindowScreen::new(Stack::worked_example())
}

fn attempts(screen: &WindowScreen) -> u128 {
    screen
        .report()
        .and_then(|r| r.attempts.exact())
        .expect("the editor only builds stacks the calculator accepts")
}

/// Moves the selection to `row` with ↓ from the top.
fn select(screen: &mut WindowScreen, row: Row) {
    press(screen, &[ch('g')]);
    for _ in 0..20 {
        if screen.selected() == row {
            return;
        }
        press(screen, &[key(KeyCode::Down)]);
    }
    panic!("row {row:?} cannot be reached");
}

/// The screen as text: one line per row, trailing spaces kept.
fn draw(screen: &WindowScreen, width: u16, height: u16, theme: &Theme) -> String {
    screen_text(width, height, |frame| {
        render(frame, frame.area(), screen, theme)
    })
}

fn plain(screen: &WindowScreen, width: u16, height: u16) -> String {
    draw(screen, width, height, &PLAIN)
}

// ---------------------------------------------------------------- keys

#[test]
fn arrows_and_vi_keys_walk_layers_then_paths_then_window_then_safety() {
    let mut s = worked();
    assert_eq!(s.selected(), Row::Layer(0));
    let expected = [
        Row::Layer(1),
        Row::Layer(2),
        Row::Path(0),
        Row::Path(1),
        Row::Window,
        Row::Safety,
        Row::Safety,
    ];
    for (i, row) in expected.iter().enumerate() {
        let k = if i % 2 == 0 {
            key(KeyCode::Down)
        } else {
            ch('j')
        };
        press(&mut s, &[k]);
        assert_eq!(s.selected(), *row);
    }
    press(&mut s, &[ch('k'), key(KeyCode::Up)]);
    assert_eq!(s.selected(), Row::Path(1));
    for _ in 0..10 {
        press(&mut s, &[key(KeyCode::Up)]);
    }
    assert_eq!(s.selected(), Row::Layer(0));
}

#[test]
fn left_and_right_change_attempts_and_the_report_follows() {
    let mut s = worked();
    assert_eq!(attempts(&s), 27);
    press(&mut s, &[key(KeyCode::Right)]);
    assert_eq!(s.stack().layers[0].attempts, 4);
    assert_eq!(attempts(&s), 36);
    press(&mut s, &[ch('h'), ch('h')]);
    assert_eq!(attempts(&s), 18);
    press(&mut s, &[ch('h'), ch('h')]);
    assert_eq!(s.stack().layers[0].attempts, 1, "never below one attempt");
    assert_eq!(attempts(&s), 9);
    assert!(s.notice().is_some_and(|n| n.contains("at least 1")));
    for _ in 0..15 {
        press(&mut s, &[ch('l')]);
    }
    assert_eq!(s.stack().layers[0].attempts, MAX_ATTEMPTS);
    assert_eq!(attempts(&s), 90);
    assert!(s.notice().is_some_and(|n| n.contains("at most 10")));
    // The next key clears the notice.
    press(&mut s, &[ch('j')]);
    assert_eq!(s.notice(), None);
}

#[test]
fn backoff_steps_through_its_ladder_with_brackets_and_shift() {
    let mut s = worked();
    let delay = |s: &WindowScreen| s.report().map(|r| r.automatic_delay.seconds_text());
    assert_eq!(delay(&s).as_deref(), Some("7,596 s"));
    press(&mut s, &[ch(']')]);
    assert_eq!(s.stack().layers[0].backoff(), Duration::from_secs(5));
    // 5 s × 2 = 10 s innermost; 60×2 + 3×10 = 150; 3600×2 + 3×150 = 7,650.
    assert_eq!(delay(&s).as_deref(), Some("7,650 s"));
    press(&mut s, &[ch('['), ch('['), ch('H')]);
    assert_eq!(s.stack().layers[0].backoff(), Duration::from_millis(500));
    press(
        &mut s,
        &[KeyEvent::new(KeyCode::Right, KeyModifiers::SHIFT), ch('L')],
    );
    assert_eq!(s.stack().layers[0].backoff(), Duration::from_secs(2));
    assert_eq!(s.stack().layers[0].attempts, 3, "attempts untouched");
    for _ in 0..20 {
        press(&mut s, &[ch('[')]);
    }
    assert_eq!(s.stack().layers[0].backoff(), Duration::ZERO);
    for _ in 0..20 {
        press(&mut s, &[ch(']')]);
    }
    assert_eq!(s.stack().layers[0].backoff(), Duration::from_secs(DAY));
}

#[test]
fn layers_are_added_outermost_up_to_four_and_removed_down_to_one() {
    let mut s = worked();
    press(&mut s, &[ch('a')]);
    assert_eq!(s.stack().layers.len(), 4);
    let added = &s.stack().layers[3];
    assert_eq!(
        (added.backoff(), added.attempts),
        (Duration::from_secs(60), 3)
    );
    assert_eq!(s.selected(), Row::Layer(3), "the new layer is selected");
    assert_eq!(attempts(&s), 81);
    press(&mut s, &[ch('a')]);
    assert_eq!(s.stack().layers.len(), MAX_LAYERS);
    assert!(s.notice().is_some_and(|n| n.contains("at most 4")));

    press(&mut s, &[ch('x')]);
    assert_eq!(s.stack().layers.len(), 3);
    assert_eq!(s.selected(), Row::Layer(2), "the new outermost layer");
    select(&mut s, Row::Layer(0));
    press(&mut s, &[key(KeyCode::Delete), ch('x')]);
    assert_eq!(s.stack().layers.len(), 1);
    assert_eq!(s.stack().layers[0].name, "job scheduler");
    press(&mut s, &[ch('x')]);
    assert_eq!(s.stack().layers.len(), 1, "the last layer stays");
    assert!(s.notice().is_some_and(|n| n.contains("at least one layer")));
    assert_eq!(attempts(&s), 3);
}

#[test]
fn human_paths_are_added_and_removed_and_move_the_required_window() {
    let mut s = worked();
    let required = |s: &WindowScreen| s.report().map(|r| r.required_window.to_string());
    assert_eq!(required(&s).as_deref(), Some("6 days"));
    press(&mut s, &[ch('A')]);
    assert_eq!(s.stack().paths.len(), 3);
    assert_eq!(s.stack().paths[2].name, "restore from backup");
    assert_eq!(s.stack().paths[2].delay, Duration::from_secs(7 * DAY));
    assert_eq!(s.selected(), Row::Path(2));
    assert_eq!(required(&s).as_deref(), Some("14 days"));
    press(&mut s, &[key(KeyCode::Right)]);
    assert_eq!(s.stack().paths[2].delay, Duration::from_secs(10 * DAY));
    assert_eq!(required(&s).as_deref(), Some("20 days"));
    press(&mut s, &[ch('A'), ch('A')]);
    assert_eq!(s.stack().paths.len(), MAX_PATHS);
    assert!(s.notice().is_some_and(|n| n.contains("at most 4")));
    while !s.stack().paths.is_empty() {
        select(&mut s, Row::Path(0));
        press(&mut s, &[ch('x')]);
    }
    assert_eq!(s.selected(), Row::Window, "the selection stays on a row");
    let report = s.report().expect("report");
    assert_eq!(report.paths.len(), 1);
    assert_eq!(report.uncovered_count(), 0);
    // Only the automatic path is left: 7,596 s × 2.
    assert_eq!(report.required_window.seconds_text(), "15,192 s");
}

#[test]
fn window_and_safety_change_coverage_and_the_required_window() {
    let mut s = worked();
    select(&mut s, Row::Window);
    let report = s.report().expect("report");
    assert_eq!(report.uncovered_count(), 2);
    press(&mut s, &[key(KeyCode::Right)]);
    assert_eq!(s.stack().window, Duration::from_secs(2 * DAY));
    assert_eq!(s.report().map(|r| r.uncovered_count()), Some(1));
    press(&mut s, &[key(KeyCode::Right)]);
    let report = s.report().expect("report");
    assert_eq!(report.uncovered_count(), 0, "3 days covers the 72 h rerun");
    assert!(!report.window_is_enough(), "but not with the margin");
    press(&mut s, &[ch('l'), ch('l'), ch('l')]);
    assert_eq!(s.stack().window, Duration::from_secs(6 * DAY));
    assert!(s.report().is_some_and(|r| r.window_is_enough()));
    press(&mut s, &[ch('h'); 20]);
    assert_eq!(
        s.stack().window,
        Duration::from_secs(HOUR),
        "the shortest window"
    );
    assert!(s.notice().is_some_and(|n| n.contains("shortest")));

    select(&mut s, Row::Safety);
    press(&mut s, &[key(KeyCode::Left)]);
    assert_eq!(s.stack().safety, 1.5);
    let report = s.report().expect("report");
    assert_eq!(report.required_window.to_string(), "4.5 days");
    press(&mut s, &[key(KeyCode::Left), key(KeyCode::Left)]);
    assert_eq!(s.stack().safety, 1.0);
    assert_eq!(
        s.report().map(|r| r.required_window.to_string()).as_deref(),
        Some("3 days")
    );
    press(&mut s, &[ch('l'); 20]);
    assert_eq!(s.stack().safety, 5.0);
    assert_eq!(
        s.report().map(|r| r.required_window.to_string()).as_deref(),
        Some("15 days")
    );
    // x on the window or the safety row removes nothing.
    press(&mut s, &[ch('x')]);
    assert_eq!(s.stack().layers.len(), 3);
    assert_eq!(s.stack().paths.len(), 2);
}

#[test]
fn values_off_the_ladders_step_to_the_nearest_rung() {
    let stack = Stack {
        layers: vec![Layer::new("odd", Duration::from_secs(3), 50)],
        paths: vec![HumanPath::new("odd path", Duration::from_secs(26 * HOUR))],
        window: Duration::from_secs(100 * DAY),
        safety: 7.3,
        ..Stack::default()
    };
    let mut s = WindowScreen::new(stack);
    press(&mut s, &[ch('h'), ch('[')]);
    assert_eq!(s.stack().layers[0].attempts, MAX_ATTEMPTS);
    assert_eq!(s.stack().layers[0].backoff(), Duration::from_secs(2));
    press(&mut s, &[ch('j'), ch('l')]);
    assert_eq!(s.stack().paths[0].delay, Duration::from_secs(2 * DAY));
    press(&mut s, &[ch('j'), ch('h')]);
    assert_eq!(s.stack().window, Duration::from_secs(90 * DAY));
    press(&mut s, &[ch('j'), ch('h')]);
    assert_eq!(s.stack().safety, 5.0);
}

#[test]
fn r_resets_to_the_worked_example() {
    let mut s = worked();
    press(
        &mut s,
        &[ch('a'), ch('l'), ch('l'), ch('A'), ch('x'), ch('j')],
    );
    assert_ne!(s.stack(), &Stack::worked_example());
    press(&mut s, &[ch('r')]);
    assert_eq!(s.stack(), &Stack::worked_example());
    assert_eq!(s.selected(), Row::Layer(0));
    assert_eq!(attempts(&s), 27);
}

#[test]
fn esc_q_w_and_ctrl_c_close_and_releases_do_nothing() {
    for k in [
        key(KeyCode::Esc),
        ch('q'),
        ch('w'),
        KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
    ] {
        assert!(
            matches!(
                worked().handle_key(idem::tui::keymap::key(k)),
                WindowAction::Close
            ),
            "{k:?}"
        );
    }
    let mut s = worked();
    let mut release = key(KeyCode::Right);
    release.kind = KeyEventKind::Release;
    press(&mut s, &[release]);
    assert_eq!(s.stack(), &Stack::worked_example());
    press(&mut s, &[ch('z'), key(KeyCode::F(5)), ch('c')]);
    assert_eq!(s.stack(), &Stack::worked_example());
}

#[test]
fn enter_opens_a_scenario_with_the_stack_layers() {
    let mut s = worked();
    press(&mut s, &[ch('l'), ch('A')]);
    let WindowAction::OpenScenario(scenario) =
        s.handle_key(idem::tui::keymap::key(key(KeyCode::Enter)))
    else {
        panic!("Enter should open a scenario");
    };
    let layers: Vec<(&str, u32, u64)> = scenario
        .config
        .layers
        .iter()
        .map(|l| (l.name.as_str(), l.attempts, l.backoff.initial_ms))
        .collect();
    assert_eq!(
        layers,
        [
            ("http client", 4, 2_000),
            ("calling service", 3, 60_000),
            ("job scheduler", 3, 3_600_000)
        ]
    );
    assert_eq!(scenario.config.timeout_ms, 30_000);
    assert!(
        scenario
            .config
            .layers
            .iter()
            .all(|l| l.backoff.multiplier == 1.0)
    );
    assert_eq!(scenario.config.retention_ms, DAY * 1000);
    let paths: Vec<(&str, u64)> = scenario
        .config
        .reruns
        .iter()
        .map(|p| (p.name.as_str(), p.after_ms))
        .collect();
    // The stack gives no timeout, so the replay waits 30 s for each answer:
    // 4 × 30 s + 3 × 2 s = 126 s, 3 × 126 s + 2 × 1 min = 498 s,
    // 3 × 498 s + 2 × 1 h = 8,694 s until the automatic run gives up. Each
    // person starts when the run before has given up, at the path's delay
    // from the first request.
    let gives_up = 8_694_000;
    assert_eq!(
        paths,
        [
            ("dead-letter replay", 26 * HOUR * 1000 - gives_up),
            ("operator rerun", (72 - 26) * HOUR * 1000 - gives_up),
            (
                "restore from backup",
                (7 * 24 - 72) * HOUR * 1000 - gives_up
            )
        ]
    );
    assert_eq!(
        scenario.config.faults.len(),
        36 * 3,
        "every answer lost, but for the last person's rerun"
    );
    assert!(
        scenario.description.contains("waits 30 s for each answer"),
        "{}",
        scenario.description
    );
    assert_eq!(
        scenario.title,
        "Your retry stack: 36 attempts, a 24 h window"
    );
    assert_eq!(scenario.design, Design::WithCharge);
    assert_eq!(
        s.stack().layers[0].attempts,
        4,
        "the screen keeps its stack"
    );
}

#[test]
fn enter_refuses_a_stack_too_large_to_replay_and_says_why() {
    let mut s = worked();
    press(&mut s, &[ch('a')]);
    for row in 0..4 {
        select(&mut s, Row::Layer(row));
        press(&mut s, &[ch('l'); 10]);
    }
    assert_eq!(attempts(&s), 10_000);
    let action = s.handle_key(idem::tui::keymap::key(key(KeyCode::Enter)));
    assert!(matches!(action, WindowAction::None));
    let notice = s.notice().expect("a reason");
    let screen = plain(&s, 80, 24);
    let footer: String = screen.lines().skip(22).collect::<Vec<_>>().join(" ");
    assert!(footer.contains("Too many attempts to replay"), "{screen}");
    assert!(
        footer.contains("or remove a path."),
        "the whole reason shows:\n{screen}"
    );
    assert!(notice.contains("10,000 per run × 3 runs"), "{notice}");
    assert_eq!(MAX_REPLAY_ATTEMPTS, 12_500);
    assert!(
        notice.contains("the 12,500 the replay can show"),
        "{notice}"
    );
    // Without the human paths 10,000 attempts still fit the engine.
    let mut without_paths = s.stack().clone();
    without_paths.paths.clear();
    assert!(scenario_from_stack(&without_paths).is_ok());
}

// ------------------------------------------------------------ scenario

fn charges(stack: &Stack, design: Design) -> usize {
    let scenario = scenario_from_stack(stack).expect("the stack replays");
    scenario
        .simulate(design)
        .expect("the engine runs it")
        .outcome
        .charges
}

#[test]
fn the_worked_example_layers_charge_once_with_a_key_and_27_times_without() {
    let mut stack = Stack::worked_example();
    stack.paths.clear();
    assert_eq!(charges(&stack, Design::WithCharge), 1);
    assert_eq!(charges(&stack, Design::NoKey), 27);
}

#[test]
fn a_72h_rerun_past_a_24h_window_charges_twice_even_with_the_key() {
    let mut stack = Stack::worked_example();
    stack.paths = vec![HumanPath::new(
        "operator rerun",
        Duration::from_secs(72 * HOUR),
    )];
    assert_eq!(stack.window, Duration::from_secs(DAY));
    assert_eq!(charges(&stack, Design::WithCharge), 2);
    // Keep the key for the 6 days the calculator asks for, and it holds.
    stack.window = Duration::from_secs(6 * DAY);
    assert_eq!(charges(&stack, Design::WithCharge), 1);
}

#[test]
fn the_full_worked_example_charges_again_at_each_human_path() {
    // 26 h and 72 h are both past the 24 h window: the dead-letter replay,
    // hearing nothing either, charges a second time, and the operator's rerun
    // 72 h after the first request a third.
    assert_eq!(charges(&Stack::worked_example(), Design::WithCharge), 3);
}

#[test]
fn the_scenario_is_an_ordinary_file() {
    let mut stack = Stack::worked_example();
    stack.layers[0].name = "quoted \"client\"\nnext".to_owned();
    let scenario = scenario_from_stack(&stack).expect("names are escaped");
    assert!(scenario.text.contains("[[checkout.layer]]"));
    assert!(scenario.text.contains("retention = \"1d\""));
    // The replay's run gives up after 8,406 s (30 s per try), and the
    // dead-letter replay starts 26 h after the first request.
    assert!(
        scenario.text.contains("after = \"85194s\""),
        "{}",
        scenario.text
    );
    assert!(scenario.text.contains("lose = \"reply\""));
    assert!(scenario.warnings.is_empty(), "{:?}", scenario.warnings);
    let again = idem::scenario::parse("again", "again", &scenario.text).expect("parses again");
    assert_eq!(again.config.layers.len(), 3);
}

#[test]
fn stacks_the_engine_cannot_replay_are_refused_with_a_reason() {
    let mut zero_path = Stack::worked_example();
    zero_path.paths[0].delay = Duration::ZERO;
    let err = scenario_from_stack(&zero_path).expect_err("zero delay");
    assert!(
        err.contains("dead-letter replay")
            && err.contains("before the run ahead of it has given up"),
        "{err}"
    );

    let mut fine = Stack::worked_example();
    fine.layers[0].schedule = idem::window::Schedule::Constant(Duration::from_micros(1500));
    let err = scenario_from_stack(&fine).expect_err("sub-millisecond backoff");
    assert!(
        err.contains("millisecond") && err.contains("http client"),
        "{err}"
    );

    let mut long = Stack::worked_example();
    long.window = Duration::from_secs(100 * 365 * DAY);
    let err = scenario_from_stack(&long).expect_err("a century");
    assert!(err.contains("window") && err.contains("30 years"), "{err}");

    let mut huge = Stack::worked_example();
    huge.layers = (0..30)
        .map(|i| Layer::new(format!("l{i}"), Duration::from_secs(1), 1000))
        .collect();
    let err = scenario_from_stack(&huge).expect_err("10^90 attempts");
    assert!(err.contains("1.0e90 per run × 3 runs"), "{err}");

    let empty = Stack {
        layers: Vec::new(),
        ..Stack::worked_example()
    };
    let scenario = scenario_from_stack(&empty).expect("no layer is one attempt");
    assert_eq!(scenario.config.attempts_per_run(), 1);
}

// -------------------------------------------------------------- render

fn assert_worked_example_facts(screen: &str) {
    assert!(screen.contains(" 27"), "attempts for one intent:\n{screen}");
    assert!(
        screen.contains("7,596 s") || screen.contains("2.1 h"),
        "automatic delay:\n{screen}"
    );
    assert!(screen.contains("6 days"), "required window:\n{screen}");
    assert_eq!(
        screen.matches("NOT covered").count(),
        2,
        "both human paths miss the window:\n{screen}"
    );
    assert!(screen.contains("64!!"), "red marker:\n{screen}");
    assert!(screen.contains("16!"), "amber marker:\n{screen}");
    assert!(screen.contains("▶27!"), "the user's own cell:\n{screen}");
    assert!(
        screen.contains("│") && screen.contains("┃"),
        "window markers"
    );
}

#[test]
fn worked_example_at_120x36() {
    let screen = plain(&worked(), 120, 36);
    assert_worked_example_facts(&screen);
    assert!(screen.contains("amber: 16 or more") && screen.contains("red: 64 or more"));
    assert!(screen.contains("job scheduler: 60 min × 2 + 3 × 132 s = 7,596 s"));
    insta::assert_snapshot!("worked_example_120x36", screen);
}

#[test]
fn worked_example_at_80x24() {
    let screen = plain(&worked(), MIN_WIDTH, MIN_HEIGHT);
    assert_worked_example_facts(&screen);
    assert!(
        screen.contains("!≥16") && screen.contains("!!≥64"),
        "legend"
    );
    assert!(screen.contains("Enter") && screen.contains("Esc"), "keys");
    insta::assert_snapshot!("worked_example_80x24", screen);
}

#[test]
fn an_edited_stack_at_both_sizes() {
    // Four layers of four (256, red), then a path selected and a longer window.
    let mut s = worked();
    press(&mut s, &[ch('a')]);
    for row in 0..4 {
        select(&mut s, Row::Layer(row));
        let steps = 4 - s.stack().layers[row].attempts;
        press(&mut s, &vec![ch('l'); steps as usize]);
    }
    select(&mut s, Row::Window);
    press(&mut s, &[ch('l'), ch('l')]);
    select(&mut s, Row::Path(1));
    let wide = plain(&s, 120, 36);
    assert!(wide.contains("▶256!!"), "{wide}");
    assert!(wide.contains("3 days covers every path"), "{wide}");
    assert_eq!(wide.matches("NOT covered").count(), 0);
    insta::assert_snapshot!("edited_120x36", wide);
    let compact = plain(&s, 80, 24);
    assert!(compact.contains("▶256!!"), "{compact}");
    insta::assert_snapshot!("edited_80x24", compact);
}

#[test]
fn a_mixed_stack_says_its_product_beside_the_matrix() {
    let mut s = worked();
    press(&mut s, &[ch('h'), ch('j'), ch('l'), ch('l')]);
    let screen = plain(&s, 120, 36);
    assert!(screen.contains("your stack: 2×5×3 = 30!"), "{screen}");
    assert!(!screen.contains("▶30"), "no cell is marked");
    let compact = plain(&s, 80, 24);
    assert!(compact.contains("your stack: 2×5×3 = 30!"), "{compact}");
}

#[test]
fn a_notice_and_a_refusal_show_in_the_footer() {
    let mut s = worked();
    press(&mut s, &[ch('a'), ch('a')]);
    let screen = plain(&s, 80, 24);
    assert!(screen.contains("at most 4 layers"), "{screen}");
    insta::assert_snapshot!("notice_80x24", screen);
}

#[test]
fn too_small_says_so() {
    let screen = plain(&worked(), 60, 20);
    assert!(screen.contains("needs a larger terminal"), "{screen}");
    assert!(screen.contains("60×20"), "{screen}");
    insta::assert_snapshot!("too_small_60x20", screen);
}

/// Every state the keys reach, in order.
fn edited_states() -> Vec<WindowScreen> {
    let script: Vec<KeyEvent> = vec![
        ch('a'),
        ch('l'),
        ch(']'),
        ch('A'),
        ch('A'),
        ch('l'),
        ch('j'),
        ch('j'),
        ch('l'),
        ch('j'),
        ch('h'),
        ch('x'),
        ch('k'),
        ch('x'),
        ch('x'),
        ch('x'),
        ch('x'),
        ch('A'),
        ch('A'),
        ch('A'),
        ch('A'),
        ch('A'),
        key(KeyCode::Enter),
        ch('G'),
        ch('r'),
    ];
    let mut s = worked();
    let mut out = vec![s.clone()];
    for k in script {
        let _ = s.handle_key(idem::tui::keymap::key(k));
        out.push(s.clone());
    }
    // The largest stack the editor builds.
    let mut big = worked();
    press(&mut big, &[ch('a')]);
    for row in 0..4 {
        select(&mut big, Row::Layer(row));
        press(&mut big, &[ch('l'); 10]);
        press(&mut big, &[ch(']'); 20]);
    }
    press(&mut big, &[ch('A'), ch('A'), key(KeyCode::Enter)]);
    out.push(big);
    out
}

/// Stacks from elsewhere (flags, config files) that the editor never builds:
/// many layers, long names, huge numbers, no layer at all, an invalid one.
fn foreign_states() -> Vec<WindowScreen> {
    let long_name = "a layer whose name goes on and on and on well past any column";
    let many = Stack {
        layers: (0..40)
            .map(|i| Layer::new(format!("{long_name} {i}"), Duration::from_secs(3600), 1000))
            .collect(),
        paths: (0..9)
            .map(|i| HumanPath::new(format!("{long_name} {i}"), Duration::from_secs(i * DAY)))
            .collect(),
        window: Duration::ZERO,
        safety: 1.25,
        ..Stack::default()
    };
    let mut many_at_the_end = WindowScreen::new(many.clone());
    press(&mut many_at_the_end, &[ch('G'), ch('k'), ch('k')]);
    vec![
        WindowScreen::new(many),
        many_at_the_end,
        WindowScreen::new(Stack {
            layers: Vec::new(),
            paths: Vec::new(),
            window: Duration::from_secs(u64::MAX),
            safety: 1.0,
            ..Stack::default()
        }),
        WindowScreen::new(Stack {
            safety: 0.5,
            ..Stack::worked_example()
        }),
    ]
}

/// Sizes from 20×10 to 200×50, thick around the layout's thresholds.
fn sizes() -> Vec<(u16, u16)> {
    let widths = [20, 33, 47, 61, 79, 80, 81, 100, 109, 110, 120, 150, 200];
    let heights = [10, 15, 23, 24, 25, 29, 30, 36, 50];
    widths
        .iter()
        .flat_map(|&w| heights.iter().map(move |&h| (w, h)))
        .collect()
}

fn sweep(states: &[WindowScreen]) {
    let colour = Theme { color: true };
    for (i, state) in states.iter().enumerate() {
        for (width, height) in sizes() {
            let theme = if (width + height) % 2 == 0 {
                &PLAIN
            } else {
                &colour
            };
            let screen = draw(state, width, height, theme);
            if width >= MIN_WIDTH && height >= MIN_HEIGHT && state.report().is_some() {
                // The keys show, unless a long notice has taken the footer.
                let footer_ok = screen.contains("Esc") || state.notice().is_some();
                assert!(
                    screen.contains("retry window") && footer_ok,
                    "state {i} at {width}×{height}:\n{screen}"
                );
            }
        }
    }
}

#[test]
fn every_edited_state_renders_at_every_size_without_panicking() {
    sweep(&edited_states());
}

#[test]
fn foreign_stacks_render_at_every_size_without_panicking() {
    sweep(&foreign_states());
}

#[test]
fn the_selected_row_is_always_on_screen_and_marked() {
    let mut s = worked();
    press(&mut s, &[ch('a'), ch('A'), ch('A'), ch('g')]);
    for _ in 0..s.row_count() {
        // How the selected row starts on screen, after its marker.
        let row = match s.selected() {
            Row::Layer(i) => format!("▶ {} ", i + 1),
            Row::Path(i) => format!("▶ {}", s.stack().paths[i].name),
            Row::Window => "▶ window".to_owned(),
            Row::Safety => "▶ safety factor".to_owned(),
        };
        for (width, height) in [(80, 24), (120, 36)] {
            let screen = plain(&s, width, height);
            assert!(
                screen.contains(&row),
                "{:?} at {width}×{height}:\n{screen}",
                s.selected()
            );
        }
        press(&mut s, &[ch('j')]);
    }
    press(&mut s, &[ch('G')]);
    assert_eq!(s.selected(), Row::Safety);
}

#[test]
fn the_screen_on_order_5531_counts_its_timeouts() {
    let order = idem::scenario::library::default_scenario().expect("loads");
    let stack = idem::window::scenario::stack_from_config(&order.config);
    let s = WindowScreen::new(stack);
    let wide = plain(&s, 120, 36);
    // Three tries of 30 s, 1 s apart: the last request 62 s after the first,
    // the checkout giving up at 92 s; the window needs twice 62 s.
    assert!(wide.contains("needs 2.1 min"), "{wide}");
    assert!(!wide.contains("needs 4 s"), "{wide}");
    assert!(wide.contains("62 s (ends 92 s)"), "{wide}");
    assert!(wide.contains("    30 s"), "the timeout column:\n{wide}");
    assert!(wide.contains("1 s × 2 + 3 × 30 s = 92 s"), "{wide}");
    let compact = plain(&s, 80, 24);
    assert!(compact.contains("62 s (ends 92 s)"), "{compact}");
}

#[test]
fn braces_step_the_selected_layers_timeout() {
    let mut s = worked();
    assert_eq!(s.stack().layers[0].timeout, None);
    press(&mut s, &[ch('}')]);
    assert_eq!(
        s.stack().layers[0].timeout,
        Some(Duration::from_millis(100))
    );
    press(&mut s, &[ch('}'); 7]);
    assert_eq!(s.stack().layers[0].timeout, Some(Duration::from_secs(30)));
    let report = s.report().expect("report");
    assert!(report.timeouts_known);
    // 3 × 30 s + 2 × 2 s = 94 s; 3 × 94 s + 2 min = 402 s; 3 × 402 s + 2 h.
    assert_eq!(report.gives_up.whole_seconds(), Some(3 * 402 + 7200));
    press(&mut s, &[ch('}'); 20]);
    assert_eq!(s.stack().layers[0].timeout, Some(Duration::from_secs(HOUR)));
    assert!(s.notice().is_some_and(|n| n.contains("longest timeout")));
    press(&mut s, &[ch('{'); 13]);
    assert_eq!(
        s.stack().layers[0].timeout,
        Some(Duration::from_millis(100))
    );
    press(&mut s, &[ch('{')]);
    assert_eq!(s.stack().layers[0].timeout, None);
    press(&mut s, &[ch('{')]);
    assert!(s.notice().is_some_and(|n| n.contains("no timeout already")));
    select(&mut s, Row::Window);
    press(&mut s, &[ch('}')]);
    assert!(
        s.notice()
            .is_some_and(|n| n.contains("only a layer has a timeout"))
    );
}

/// A path of a minute against a 24 h window is a sliver, not a full bar, and still shows;
/// a path name too long for its column ends in `…` at 80 and 120 columns.
#[test]
fn bars_follow_the_window_and_long_path_names_end_in_an_ellipsis() {
    let long = "replay of the dead-letter queue by the on-call engineer";
    let stack = Stack {
        layers: vec![Layer::new("http client", Duration::from_secs(20), 3)],
        paths: vec![HumanPath::new(long, Duration::from_secs(62))],
        window: Duration::from_secs(DAY),
        ..Stack::default()
    };
    let s = WindowScreen::new(stack);
    for (w, h) in [(80, 24), (120, 36)] {
        let screen = plain(&s, w, h);
        let row = screen
            .lines()
            .find(|l| l.contains("replay of the"))
            .unwrap_or_else(|| panic!("the path's row at {w}x{h}:\n{screen}"));
        assert!(
            !row.contains(long),
            "{w}x{h}: the name fits whole?\n{screen}"
        );
        assert!(row.contains('…'), "{w}x{h}: the cut is marked\n{screen}");
        let full = row.matches('█').count();
        assert!(full >= 1, "{w}x{h}: a tiny path still shows\n{screen}");
        assert!(full <= 2, "{w}x{h}: 62 s of 24 h is a sliver\n{screen}");
        assert!(
            !screen.contains("(40 s)"),
            "{w}x{h}: a span said twice\n{screen}"
        );
    }
}
