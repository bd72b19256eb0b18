//! Key handling without a terminal: a key event goes through `map_key`, the message through
//! `update`, and the tests read the state.

use crate::common;

use common::{app, ch, key, press};
use idem::scenario::library::{BUILTIN, default_scenario};
use idem::sim::{Design, Instant, TickKind};
use idem::tui::app::{Overlay, SPEEDS, Screen};
use idem::tui::keymap::map_key;
use idem::tui::{App, Msg, settle};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

fn app_with_quiz() -> App {
    let scenario = default_scenario().expect("the default scenario loads");
    assert_eq!(scenario.quizzes.len(), 1, "order-5531 asks one question");
    App::new(scenario, "order-5531".to_string()).expect("every design simulates")
}

fn press_all(app: &mut App, events: &[KeyEvent]) {
    for e in events {
        press(app, *e);
    }
}

/// The first index where two designs tell a different story (time, lane, kind or label),
/// or the shorter length when one is a prefix of the other. Written here independently of
/// the app's own helper.
fn first_split(app: &App, da: Design, db: Design) -> Option<usize> {
    let (a, b) = (app.version.trace_of(da), app.version.trace_of(db));
    let (la, lb) = (
        &app.version.told_of(da).labels,
        &app.version.told_of(db).labels,
    );
    let n = a.ticks.len().min(b.ticks.len());
    for i in 0..n {
        let (x, y) = (&a.ticks[i], &b.ticks[i]);
        if (x.at, x.actor, x.kind, &la[i]) != (y.at, y.actor, y.kind, &lb[i]) {
            return Some(i);
        }
    }
    (a.ticks.len() != b.ticks.len()).then_some(n)
}

#[test]
fn keys_map_to_messages() {
    let app = app();
    let cases = [
        (key(KeyCode::Right), Msg::Next),
        (ch('l'), Msg::Next),
        (key(KeyCode::Left), Msg::Prev),
        (ch('h'), Msg::Prev),
        (key(KeyCode::Home), Msg::First),
        (ch('g'), Msg::First),
        (key(KeyCode::End), Msg::Last),
        (ch('G'), Msg::Last),
        (ch(' '), Msg::TogglePlay),
        (ch('+'), Msg::Faster),
        (ch('='), Msg::Faster),
        (ch('-'), Msg::Slower),
        (ch('d'), Msg::JumpToDivergence),
        (ch('c'), Msg::ToggleCompare),
        (ch('?'), Msg::ToggleHelp),
        (key(KeyCode::Esc), Msg::Back),
        (ch('q'), Msg::Quit),
        (ch('1'), Msg::SwitchDesign(Design::WithCharge)),
        (ch('2'), Msg::SwitchDesign(Design::LogAfterCharge)),
        (ch('3'), Msg::SwitchDesign(Design::NoKey)),
        (ch('4'), Msg::SwitchDesign(Design::LogBeforeCharge)),
        (ch('5'), Msg::SwitchDesign(Design::ContentHash)),
        (ch('6'), Msg::SwitchDesign(Design::InProgressRecord)),
    ];
    for (event, msg) in cases {
        assert_eq!(map_key(event, &app), Some(msg), "{event:?}");
    }
    // Terminals report a capital letter with Shift held; it is still the same key.
    let shift_g = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
    assert_eq!(map_key(shift_g, &app), Some(Msg::Last));
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(map_key(ctrl_c, &app), Some(Msg::QuitNow));
    assert_eq!(map_key(ch('0'), &app), Some(Msg::AsWritten));
    for unused in [ch('7'), ch('z'), key(KeyCode::Tab), key(KeyCode::F(1))] {
        assert_eq!(map_key(unused, &app), None, "{unused:?}");
    }
    // A key's release is not a second press.
    let mut release = key(KeyCode::Right);
    release.kind = KeyEventKind::Release;
    assert_eq!(map_key(release, &app), None);
}

#[test]
fn stepping_stays_in_bounds() {
    let mut app = app();
    let last = app.last_tick();
    assert!(last > 5);
    for k in [key(KeyCode::Left), ch('h'), key(KeyCode::Home), ch('g')] {
        press(&mut app, k);
        assert_eq!(app.place.tick, 0, "{k:?} at the first tick");
    }
    press(&mut app, key(KeyCode::Right));
    assert_eq!(app.place.tick, 1);
    press(&mut app, ch('l'));
    assert_eq!(app.place.tick, 2);
    press(&mut app, key(KeyCode::Left));
    assert_eq!(app.place.tick, 1);
    press(&mut app, ch('h'));
    assert_eq!(app.place.tick, 0);
    for i in 1..=last + 5 {
        press(&mut app, key(KeyCode::Right));
        assert_eq!(app.place.tick, i.min(last));
    }
    assert!(app.at_end());
    for k in [key(KeyCode::Right), ch('l'), key(KeyCode::End), ch('G')] {
        press(&mut app, k);
        assert_eq!(app.place.tick, last, "{k:?} at the last tick");
    }
    press(&mut app, key(KeyCode::Home));
    assert_eq!(app.place.tick, 0);
    press(&mut app, ch('G'));
    assert_eq!(app.place.tick, last);
    press(&mut app, ch('g'));
    assert_eq!(app.place.tick, 0);
    press(&mut app, key(KeyCode::End));
    assert_eq!(app.place.tick, last);
    for i in (0..last + 5).rev() {
        press(&mut app, ch('h'));
        assert_eq!(app.place.tick, i.saturating_sub(5));
    }
    assert_eq!(app.place.tick, 0);
    assert!(!app.quit);
}

#[test]
fn switching_design_keeps_the_moment() {
    let mut app = app();
    let send = app
        .trace()
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Send && app.trace().format_time(t.at) == "14:02:38.000")
        .expect("a send at 14:02:38 under with-charge");
    while app.place.tick < send {
        press(&mut app, key(KeyCode::Right));
    }
    let here = app.trace().ticks[app.place.tick].clone();
    press(&mut app, ch('3'));
    assert_eq!(app.place.design, Design::NoKey);
    let there = &app.trace().ticks[app.place.tick];
    assert_eq!(there.at, here.at);
    assert_eq!((there.kind, &there.fact), (here.kind, &here.fact));
    assert_eq!(app.now(), here.at);
    press(&mut app, ch('1'));
    assert_eq!(app.place.design, Design::WithCharge);
    assert_eq!(
        app.place.tick, send,
        "switching back lands where it started"
    );

    // The crash is the second tick at 14:02:07.250 under 1 and under 2: the same one.
    settle(&mut app, Msg::First);
    while app.trace().ticks[app.place.tick].kind != TickKind::Crash {
        press(&mut app, key(KeyCode::Right));
    }
    press(&mut app, ch('2'));
    assert_eq!(app.trace().ticks[app.place.tick].kind, TickKind::Crash);
}

#[test]
fn switching_design_keeps_the_moment_everywhere() {
    for builtin in BUILTIN {
        let scenario = builtin.load().expect("built-in scenarios load");
        let mut app = App::new(scenario, builtin.name.to_string()).expect("simulates");
        for from in Design::ALL {
            for to in Design::ALL {
                for tick in 0..app.version.trace_of(from).ticks.len() {
                    app.show(from, tick);
                    let at = app.trace().ticks[tick].at;
                    press(&mut app, ch((b'0' + to.hotkey()) as char));
                    assert_eq!(app.place.design, to);
                    let other = app.trace();
                    let name = builtin.name;
                    let landed = other.ticks[app.place.tick].at;
                    if other.ticks.iter().any(|t| t.at == at) {
                        assert_eq!(landed, at, "{name} {from:?}→{to:?} tick {tick}");
                    } else {
                        // No tick at that instant: the last one before it, if any.
                        let before = other.ticks.iter().rposition(|t| t.at < at);
                        assert_eq!(
                            Some(app.place.tick),
                            before.or(Some(0)),
                            "{name} {from:?}→{to:?} tick {tick}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn d_jumps_to_the_first_divergence() {
    for design in Design::ALL {
        let mut app = app();
        press(&mut app, ch((b'0' + design.hotkey()) as char));
        let expected = Design::ALL
            .iter()
            .filter(|d| **d != design)
            .filter_map(|d| first_split(&app, design, *d))
            .min()
            .expect("order-5531 tells a different story under each design");
        let expected = expected.min(app.last_tick());
        // From the start, from the end, and from the compare screen, `d` lands there.
        for setup in [&[][..], &[ch('G')][..], &[ch('c'), ch('G')][..]] {
            settle(&mut app, Msg::First);
            press_all(&mut app, setup);
            assert_eq!(press(&mut app, ch('d')), Some(Msg::JumpToDivergence));
            assert_eq!(app.screens.screen, Screen::Replay, "{design:?}");
            assert_eq!(app.place.tick, expected, "{design:?} after {setup:?}");
            let notice = app.screens.notice.clone().unwrap_or_default();
            assert!(notice.contains("part ways here"), "{notice}");
            assert!(notice.contains(design.name()), "{notice}");
        }
        assert!(expected > 0, "the designs agree on how the story starts");
    }
    // For order-5531 the first split is the charge, at 14:02:07.250.
    let mut app = app();
    press(&mut app, ch('d'));
    assert_eq!(app.trace().format_time(app.now()), "14:02:07.250");
    assert_eq!(app.trace().ticks[app.place.tick].kind, TickKind::Charge);
    // Another key clears the notice.
    press(&mut app, key(KeyCode::Right));
    assert_eq!(app.screens.notice, None);
}

#[test]
fn c_toggles_compare_and_steps_all_designs_together() {
    let mut app = app();
    press(&mut app, key(KeyCode::Right));
    let start = app.now();
    press(&mut app, ch('c'));
    assert_eq!(app.screens.screen, Screen::Compare);
    assert_eq!(
        app.place.compare_at, start,
        "compare opens at the same moment"
    );
    // Every instant any of the three designs reaches, in order, once each.
    let mut instants: Vec<Instant> = Design::CORE
        .iter()
        .flat_map(|d| app.version.trace_of(*d).ticks.iter().map(|t| t.at))
        .filter(|t| *t > start)
        .collect();
    instants.sort();
    instants.dedup();
    let mut seen = Vec::new();
    for _ in 0..instants.len() + 5 {
        let before = app.place.compare_at;
        press(&mut app, key(KeyCode::Right));
        assert!(
            app.place.compare_at >= before,
            "compare never moves back on →"
        );
        if app.place.compare_at > before {
            seen.push(app.place.compare_at);
        }
    }
    assert_eq!(seen, instants, "→ visits every instant in order");
    let end = app.place.compare_at;
    press(&mut app, ch('l'));
    assert_eq!(app.place.compare_at, end, "the end is the end");
    // ← walks back the same way.
    let mut back = Vec::new();
    while app.place.compare_at > start {
        let before = app.place.compare_at;
        press(&mut app, key(KeyCode::Left));
        assert!(app.place.compare_at < before);
        back.push(before);
    }
    back.reverse();
    assert_eq!(back, instants);
    press(&mut app, ch('G'));
    assert_eq!(app.place.compare_at, end);
    // Leaving compare lands on the tick of the current design at or before that moment.
    press(&mut app, ch('c'));
    assert_eq!(app.screens.screen, Screen::Replay);
    assert_eq!(app.place.tick, app.trace().tick_at_or_before(end));
    assert!(app.at_end());
}

#[test]
fn help_opens_and_esc_closes_then_quits() {
    let mut app = app();
    press(&mut app, ch('?'));
    assert_eq!(app.screens.overlay, Overlay::Help);
    // While the help is open, stepping keys do nothing.
    assert_eq!(press(&mut app, key(KeyCode::Right)), None);
    assert_eq!(press(&mut app, ch('3')), None);
    assert_eq!((app.place.tick, app.place.design), (0, Design::WithCharge));
    assert_eq!(press(&mut app, key(KeyCode::Esc)), Some(Msg::ToggleHelp));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert!(!app.quit, "the first Esc only closes the help");
    press(&mut app, key(KeyCode::Esc));
    assert!(!app.quit, "Esc never quits the replay");
    assert_eq!(
        app.screens.notice.as_deref(),
        Some("nothing open to close: q quits")
    );

    // `?` and Enter close it too; in compare, Esc goes back to the replay before quitting.
    let mut app = self::app();
    press_all(&mut app, &[ch('?'), ch('?')]);
    assert_eq!(app.screens.overlay, Overlay::None);
    press_all(&mut app, &[ch('?'), key(KeyCode::Enter)]);
    assert_eq!(app.screens.overlay, Overlay::None);
    press_all(&mut app, &[ch('c'), ch('?')]);
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(
        (app.screens.overlay.clone(), app.screens.screen),
        (Overlay::None, Screen::Compare)
    );
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.screens.screen, Screen::Replay);
    assert!(!app.quit);
    press(&mut app, key(KeyCode::Esc));
    assert!(!app.quit);
    press(&mut app, ch('q'));
    assert!(app.quit, "q quits when nothing is unsaved");
}

#[test]
fn q_quits_from_anywhere() {
    let mut app = app();
    press(&mut app, ch('q'));
    assert!(app.quit);
    for setup in [&[ch('?')][..], &[ch('c')][..], &[ch('c'), ch('?')][..]] {
        let mut app = self::app();
        press_all(&mut app, setup);
        assert!(!app.quit);
        press(&mut app, ch('q'));
        assert!(app.quit, "q after {setup:?}");
    }
}

#[test]
fn space_plays_and_play_steps_stop_at_the_end() {
    let mut app = app();
    let last = app.last_tick();
    // Not playing: the timer does nothing.
    settle(&mut app, Msg::PlayStep);
    assert_eq!(app.place.tick, 0);
    press(&mut app, ch(' '));
    assert!(app.place.playing);
    for i in 1..=last {
        settle(&mut app, Msg::PlayStep);
        assert_eq!(app.place.tick, i);
        assert_eq!(app.place.playing, i < last, "tick {i}");
    }
    assert!(app.at_end());
    settle(&mut app, Msg::PlayStep);
    assert_eq!(app.place.tick, last);
    assert!(!app.place.playing);
    // Space at the end plays again from the top.
    press(&mut app, ch(' '));
    assert!(app.place.playing);
    assert_eq!(app.place.tick, 0);
    settle(&mut app, Msg::PlayStep);
    assert_eq!(app.place.tick, 1);
    // Space pauses; stepping by hand pauses too.
    press(&mut app, ch(' '));
    assert!(!app.place.playing);
    settle(&mut app, Msg::PlayStep);
    assert_eq!(app.place.tick, 1);
    press(&mut app, ch(' '));
    press(&mut app, key(KeyCode::Right));
    assert!(!app.place.playing);
    assert_eq!(app.place.tick, 2);
    settle(&mut app, Msg::PlayStep);
    assert_eq!(app.place.tick, 2);
}

#[test]
fn plus_and_minus_clamp_the_speed() {
    let mut app = app();
    let start = app.place.speed;
    assert_eq!(SPEEDS[start], 1.0);
    let mut pace = app.place.pace();
    for _ in 0..SPEEDS.len() + 3 {
        press(&mut app, ch('+'));
        assert!(app.place.pace() <= pace);
        pace = app.place.pace();
    }
    assert_eq!(app.place.speed, SPEEDS.len() - 1);
    press(&mut app, ch('='));
    assert_eq!(app.place.speed, SPEEDS.len() - 1);
    for _ in 0..SPEEDS.len() + 3 {
        press(&mut app, ch('-'));
        assert!(app.place.pace() >= pace);
        pace = app.place.pace();
    }
    assert_eq!(app.place.speed, 0);
    press(&mut app, ch('+'));
    assert_eq!(app.place.speed, 1);
    // Speed does not move the replay.
    assert_eq!(app.place.tick, 0);
}

/// Steps forward until a question stops the replay; returns its tick.
fn step_to_quiz(app: &mut App) -> usize {
    for _ in 0..100 {
        if app.quiz_pending() {
            return app.place.tick;
        }
        press(app, key(KeyCode::Right));
    }
    panic!("no quiz on the way");
}

#[test]
fn the_quiz_holds_the_replay_until_answered() {
    let mut app = app_with_quiz();
    let at = step_to_quiz(&mut app);
    assert_eq!(
        app.trace().format_time(app.trace().ticks[at].at),
        "14:02:38.000",
        "asked just before the retry arrives"
    );
    // Stepping, End and autoplay all wait for the answer.
    press(&mut app, key(KeyCode::Right));
    assert_eq!(app.place.tick, at);
    settle(&mut app, Msg::First);
    press(&mut app, ch('G'));
    assert_eq!(app.place.tick, at, "End stops at the question");
    press(&mut app, ch(' '));
    settle(&mut app, Msg::PlayStep);
    assert_eq!(app.place.tick, at);
    assert!(!app.place.playing);
    // A number still switches design at a question: it never answers by accident.
    assert_eq!(
        map_key(ch('3'), &app),
        Some(Msg::SwitchDesign(Design::NoKey))
    );
    // a, then a number: the room's answer, kept until the reveal.
    press_all(&mut app, &[ch('a'), ch('2')]);
    assert_eq!(app.place.design, Design::WithCharge);
    assert!(app.answer_waiting());
    assert_eq!(
        app.talk.score().asked,
        0,
        "nothing counts before the reveal"
    );
    // The next step reveals it; the one after goes on.
    press(&mut app, key(KeyCode::Right));
    assert_eq!(app.place.tick, at, "the step revealed the answer");
    assert_eq!(
        app.talk.score().right,
        1,
        "with-charge charges once: choice 2"
    );
    press(&mut app, key(KeyCode::Right));
    assert_eq!(app.place.tick, at + 1, "answered: the replay goes on");
}

#[test]
fn the_answer_follows_the_design_in_force() {
    let mut app = app_with_quiz();
    press(&mut app, ch('3'));
    assert_eq!(app.place.design, Design::NoKey);
    step_to_quiz(&mut app);
    press_all(&mut app, &[ch('a'), ch('2'), key(KeyCode::Enter)]);
    assert_eq!(
        (app.talk.score().right, app.talk.score().asked),
        (0, 1),
        "no-key charges twice: once is wrong"
    );
}

#[test]
fn an_answer_cannot_be_changed_by_stepping_back() {
    let mut app = app_with_quiz();
    let at = step_to_quiz(&mut app);
    press_all(&mut app, &[ch('a'), ch('1'), key(KeyCode::Enter)]);
    assert_eq!((app.talk.score().right, app.talk.score().asked), (0, 1));
    press(&mut app, key(KeyCode::Left));
    press(&mut app, key(KeyCode::Right));
    assert_eq!(app.place.tick, at);
    assert!(!app.quiz_pending(), "the question is not asked again");
    // A number is a design switch, not a second answer.
    assert_eq!(
        map_key(ch('2'), &app),
        Some(Msg::SwitchDesign(Design::LogAfterCharge))
    );
    // Answer mode under the same design says the answer stands, and opens nothing.
    press(&mut app, ch('a'));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert_eq!(
        (app.talk.score().right, app.talk.score().asked),
        (0, 1),
        "no second chance"
    );
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("revealed and stays")),
        "{:?}",
        app.screens.notice
    );
}

#[test]
fn what_if_keys_fork_and_undo() {
    let mut app = app();
    press(&mut app, key(KeyCode::Right));
    assert_eq!(
        app.trace().ticks[app.place.tick].kind,
        idem::sim::TickKind::Send
    );
    let before = app.trace().outcome.charges;
    press(&mut app, ch('3'));
    assert_eq!(app.trace().outcome.charges, 2);
    // Lose the request on the wire: even no-key now charges once.
    press(&mut app, ch('x'));
    assert_eq!(app.version.added.len(), 1);
    assert_eq!(app.trace().outcome.charges, 1);
    assert_eq!(
        app.trace().ticks[app.place.tick].kind,
        idem::sim::TickKind::Send,
        "the moment is kept"
    );
    press(&mut app, ch('u'));
    assert!(app.version.added.is_empty());
    assert_eq!(app.trace().outcome.charges, 2);
    press(&mut app, ch('1'));
    assert_eq!(app.trace().outcome.charges, before);
    // Nothing on the wire at the first tick: a notice, no fork.
    settle(&mut app, Msg::First);
    press(&mut app, ch('x'));
    assert!(app.version.added.is_empty());
    assert!(app.screens.notice.is_some());
}

#[test]
fn w_opens_the_window_calculator_on_this_checkout_and_enter_replays_the_stack() {
    let mut app = app();
    press(&mut app, ch('w'));
    assert_eq!(app.screens.screen, Screen::Window);
    let window = app.screens.window.as_ref().expect("the calculator is open");
    // order-5531's checkout: one layer of three attempts, keys kept 24 h.
    let report = window.report().expect("the stack is valid");
    assert_eq!(report.attempts.to_string(), "3");
    // Its own keys: → adds an attempt to the selected layer; q closes, not quits.
    press(&mut app, key(KeyCode::Right));
    let report = app
        .screens
        .window
        .as_ref()
        .and_then(|w| w.report())
        .expect("valid");
    assert_eq!(report.attempts.to_string(), "4");
    press(&mut app, ch('q'));
    assert!(!app.quit);
    assert_eq!(app.screens.screen, Screen::Replay);
    // Opened again, it keeps the edit; Enter builds the scenario from the stack and replays
    // it from the start.
    press(&mut app, ch('w'));
    press(&mut app, key(KeyCode::Enter));
    assert_eq!(app.screens.screen, Screen::Replay);
    assert_eq!(app.version.scenario().name, "your-stack");
    assert_eq!(app.place.tick, 0);
    assert_eq!(
        app.version.trace_of(Design::NoKey).outcome.charges,
        4,
        "every answer lost: each attempt charges"
    );
    assert_eq!(app.version.trace_of(Design::WithCharge).outcome.charges, 1);
}

/// `]` and `[` move between the ticks that matter (a charge, a crash, a lost message, …), and
/// say where they landed; the timeline's title counts the rows scrolled off the top.
#[test]
fn brackets_jump_between_events_that_matter() {
    let mut app = app();
    press(&mut app, ch('3'));
    let kinds: Vec<TickKind> = app.trace().ticks.iter().map(|t| t.kind).collect();
    let matters = |k: TickKind| {
        matches!(
            k,
            TickKind::Charge
                | TickKind::Crash
                | TickKind::Lost
                | TickKind::Expire
                | TickKind::GiveUp
        )
    };
    let expected: Vec<usize> = (1..kinds.len()).filter(|&i| matters(kinds[i])).collect();
    assert!(expected.len() >= 3, "{kinds:?}");
    let mut visited = Vec::new();
    for _ in 0..expected.len() {
        press(&mut app, ch(']'));
        visited.push(app.place.tick);
    }
    assert_eq!(visited, expected);
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.starts_with(&format!("tick {}: ", app.place.tick + 1))),
        "{:?}",
        app.screens.notice
    );
    press(&mut app, ch(']'));
    assert_eq!(
        app.place.tick,
        *expected.last().unwrap(),
        "nothing after the last"
    );
    assert_eq!(
        app.screens.notice.as_deref(),
        Some("nothing more that matters after this tick")
    );
    press(&mut app, ch('['));
    assert_eq!(app.place.tick, expected[expected.len() - 2]);

    // On a short screen the timeline says how many rows are above its top.
    press(&mut app, key(KeyCode::End));
    let screen = common::render(&app, 80, 24);
    assert!(screen.contains(" Timeline · ↑ "), "{screen}");
}

/// `:` asks for a tick number or a time; a bad answer is explained in the prompt, which stays.
#[test]
fn colon_goes_to_a_tick_or_a_time() {
    let mut app = app();
    press(&mut app, ch(':'));
    assert!(matches!(app.screens.overlay, Overlay::Goto { .. }));
    for c in "5".chars() {
        press(&mut app, ch(c));
    }
    press(&mut app, key(KeyCode::Enter));
    assert_eq!(
        (app.screens.overlay.clone(), app.place.tick),
        (Overlay::None, 4)
    );

    press(&mut app, ch(':'));
    for c in "14:02:38".chars() {
        press(&mut app, ch(c));
    }
    press(&mut app, key(KeyCode::Enter));
    assert_eq!(app.screens.overlay, Overlay::None);
    let t = &app.trace().ticks[app.place.tick];
    assert!(t.at <= Instant(50_558_000), "{:?}", t.at);
    assert!(
        app.trace()
            .ticks
            .get(app.place.tick + 1)
            .is_none_or(|n| n.at > Instant(50_558_000)),
        "the one tick at 14:02:38, where a question at that time stops"
    );

    press(&mut app, ch(':'));
    for c in "99".chars() {
        press(&mut app, ch(c));
    }
    press(&mut app, key(KeyCode::Enter));
    match &app.screens.overlay {
        Overlay::Goto { error: Some(e), .. } => assert!(e.contains("there is no tick 99"), "{e}"),
        other => panic!("{other:?}"),
    }
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.screens.overlay, Overlay::None);
}

/// In compare, number keys add or take away columns (two to five), and the rows line up by
/// time: whatever two columns show on one row happened at the same moment.
#[test]
fn compare_chooses_its_columns_and_lines_rows_up_by_time() {
    let mut app = app();
    press(&mut app, key(KeyCode::End));
    press(&mut app, ch('c'));
    assert_eq!(app.screens.screen, Screen::Compare);
    assert_eq!(app.screens.compared, Design::CORE.to_vec());
    press(&mut app, ch('4'));
    press(&mut app, ch('6'));
    assert_eq!(
        app.screens.compared,
        [
            Design::WithCharge,
            Design::LogAfterCharge,
            Design::NoKey,
            Design::LogBeforeCharge,
            Design::InProgressRecord
        ]
    );
    press(&mut app, ch('5'));
    assert_eq!(app.screens.compared.len(), 5, "at most five");
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("at most five"))
    );
    for c in ['1', '2', '3', '4'] {
        press(&mut app, ch(c));
    }
    assert_eq!(
        app.screens.compared,
        [Design::LogBeforeCharge, Design::InProgressRecord],
        "at least two stay"
    );
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("at least two"))
    );

    // Aligned rows: at a moment where one design has a tick and another has none, the other
    // shows a blank cell on that row, never a later tick.
    let mut app = self::app();
    press(&mut app, key(KeyCode::End));
    press(&mut app, ch('c'));
    press(&mut app, ch('4'));
    let screen = common::render(&app, 160, 40);
    let time_rows = common::panel(&screen, " time ");
    let first = common::panel(&screen, " 1 ");
    let fourth = common::panel(&screen, " 4 ");
    let logs = fourth
        .iter()
        .position(|l| l.contains("logs K7Q4"))
        .expect("log-before-charge logs the key");
    assert!(first[logs].trim() == "·", "{}\n{screen}", first[logs]);
    assert!(time_rows[logs].starts_with("14:02:07.050"), "{screen}");
}

/// `?` opens the help of the screen it is pressed on: the window screen's keys there, the
/// presenter's (with `.`, `b` and `t`, without the replay's `c`, `o` and `k`) in presenter mode.
#[test]
fn help_belongs_to_its_screen() {
    let mut app = app();
    press(&mut app, ch('w'));
    assert_eq!(app.screens.screen, Screen::Window);
    press(&mut app, ch('?'));
    assert_eq!(app.screens.overlay, Overlay::Help);
    let screen = common::render(&app, 120, 40);
    assert!(screen.contains("Keys of the retry window"), "{screen}");
    assert!(
        screen.contains("replay this stack tick by tick"),
        "{screen}"
    );
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert_eq!(
        app.screens.screen,
        Screen::Window,
        "Esc closed the help only"
    );

    let mut app = app_presenting();
    press(&mut app, ch('?'));
    let screen = common::render(&app, 120, 40);
    assert!(screen.contains("Keys of presenter mode"), "{screen}");
    assert!(screen.contains("blank the screen"), "{screen}");
    assert!(screen.contains("show or hide the elapsed time"), "{screen}");
    assert!(!screen.contains("open another scenario"), "{screen}");
}

fn app_presenting() -> App {
    let launch = idem::tui::app::Launch {
        present: true,
        ..Default::default()
    };
    App::launch(default_scenario().unwrap(), "order-5531".into(), launch).expect("launches")
}

/// `e` searches every plan of up to two faults on top of the scenario's own and shows the
/// matrix; Enter on a cell replays its shortest plan as a what-if under that design.
#[test]
fn e_explores_and_enter_replays_a_counterexample() {
    // Order 5531 with nothing going wrong: every counterexample is the plan alone.
    let source = common::inline::one_layer(3, "backoff = \"1s\"", "");
    let scenario = idem::scenario::parse("inline.toml", "inline", &source).expect("parses");
    let mut app = App::new(scenario, "inline".into()).expect("simulates");
    press(&mut app, ch('e'));
    let Overlay::Explore { found, row, col } = app.screens.overlay.clone() else {
        panic!("the explorer opens: {:?}", app.screens.overlay);
    };
    assert_eq!((row, col), (0, 0));
    assert_eq!(found.designs.len(), Design::ALL.len());
    let screen = common::render(&app, 80, 24);
    assert!(screen.contains("Every way it can go wrong"), "{screen}");
    assert!(screen.contains("inprogress-record"), "{screen}");
    // no-key is the third row; its first column is "charged twice".
    press(&mut app, ch('j'));
    press(&mut app, ch('j'));
    let screen = common::render(&app, 100, 30);
    assert!(
        screen.contains(
            "Shortest plan ending duplicate under no-key: answer to #1 of order 5531 lost"
        ),
        "{screen}"
    );
    press(&mut app, key(KeyCode::Enter));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert_eq!(app.place.design, Design::NoKey);
    assert_eq!(app.version.added.len(), 1);
    assert_eq!(app.trace().outcome.charges, 2);
    assert!(common::header(&common::render(&app, 160, 40)).contains("⑂ WHAT-IF"));

    // S saves it as a scenario that opens on no-key, and reading it back tells the same story.
    let dir = common::TempDir::new("explore-save");
    let path = dir.path().join("plan.toml");
    settle(&mut app, Msg::OpenSave);
    let Overlay::Save(mut prompt) = app.screens.overlay.clone() else {
        panic!("the save prompt opens: {:?}", app.screens.overlay);
    };
    prompt.path = path.display().to_string();
    app.screens.overlay = Overlay::Save(prompt);
    settle(&mut app, Msg::Confirm);
    assert_eq!(
        app.screens.overlay,
        Overlay::None,
        "{:?}",
        app.screens.notice
    );
    let saved = idem::scenario::load(&path).expect("the saved file loads");
    assert_eq!(saved.design, Design::NoKey);
    let trace = saved.simulate(saved.design).expect("runs");
    assert_eq!(trace.outcome.verdict, idem::sim::Verdict::Duplicate);
}

/// Answers are kept per design: a question answered and revealed under one design has not
/// been asked under another, so `G` there stops at it once, then goes on to the end.
#[test]
fn end_stops_at_a_question_not_yet_asked_under_this_design() {
    let mut app = app_with_quiz();
    let at = step_to_quiz(&mut app);
    press_all(&mut app, &[ch('a'), ch('2'), key(KeyCode::Enter)]);
    assert_eq!(app.talk.score().asked, 1);
    press(&mut app, ch('G'));
    assert!(
        app.at_end(),
        "answered under with-charge: G goes to the end"
    );
    // Under no-key the room has not been asked.
    press(&mut app, ch('3'));
    settle(&mut app, Msg::First);
    press(&mut app, ch('G'));
    let here = app.place.tick;
    assert_eq!(
        app.trace().ticks[here].at,
        app.version.trace_of(Design::WithCharge).ticks[at].at,
        "G stops at the question under no-key"
    );
    assert!(app.question_here().is_some());
    press(&mut app, ch('G'));
    assert!(app.at_end(), "the second G goes on");
}
