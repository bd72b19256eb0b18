//! Teaching a room, key by key: a question answered in answer mode or by counted hands,
//! taken back before the reveal, asked again under another design; digits that never answer
//! by accident; what is hidden from the room until it is revealed; repeated attempts folded;
//! and the presenter's keys, help and screens at 80×24.

use crate::common;

use common::{ch, collapse, flat, key, panel, press, render};
use idem::scenario::library::default_scenario;
use idem::sim::Design;
use idem::tui::app::{Launch, Overlay};
use idem::tui::keymap::{PRESENTER_KEYS, map_key};
use idem::tui::{App, Msg, settle};
use ratatui::crossterm::event::{KeyCode, KeyEvent};

fn replay() -> App {
    App::new(default_scenario().expect("loads"), "order-5531".into()).expect("simulates")
}

fn presenting(hide: idem::present::Hide) -> App {
    presenting_scenario(default_scenario().expect("loads"), hide)
}

/// `scenario` opened in presenter mode with `hide`.
fn presenting_scenario(scenario: idem::scenario::Scenario, hide: idem::present::Hide) -> App {
    let launch = Launch {
        present: true,
        hide,
        ..Launch::default()
    };
    App::launch(scenario, "order-5531".into(), launch).expect("simulates")
}

/// Steps until order 5531's question stops the replay; returns its tick.
fn to_question(app: &mut App) -> usize {
    for _ in 0..50 {
        if app.quiz_pending() {
            return app.place.tick;
        }
        press(app, key(KeyCode::PageDown));
    }
    panic!("no question on the way");
}

fn keys(app: &mut App, events: &[KeyEvent]) {
    for e in events {
        press(app, *e);
    }
}

#[test]
fn digits_at_a_question_switch_design_and_never_answer() {
    for mut app in [replay(), presenting(Default::default())] {
        let at = to_question(&mut app);
        // 1–6 switch design, as everywhere: the room's answer is untouched.
        for (c, design) in [
            ('3', Design::NoKey),
            ('5', Design::ContentHash),
            ('1', Design::WithCharge),
        ] {
            assert_eq!(press(&mut app, ch(c)), Some(Msg::SwitchDesign(design)));
            assert_eq!(app.place.design, design);
            assert_eq!(app.place.tick, at, "the same moment");
            assert!(
                app.quiz_pending(),
                "the question still waits under {design}"
            );
            assert!(!app.talk.room.any(), "no answer recorded by {c}");
        }
        // The step still waits, and says how to answer.
        press(&mut app, key(KeyCode::PageDown));
        assert_eq!(app.place.tick, at);
        assert!(
            app.screens
                .notice
                .as_deref()
                .is_some_and(|n| n.contains("a, then")),
            "{:?}",
            app.screens.notice
        );
    }
}

#[test]
fn a_then_a_number_answers_and_esc_leaves_answer_mode() {
    let mut app = replay();
    to_question(&mut app);
    assert_eq!(press(&mut app, ch('a')), Some(Msg::OpenAnswer));
    assert_eq!(app.screens.overlay, Overlay::Answering);
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Answer mode"), "the box says so:\n{screen}");
    assert!(
        screen.contains("1-9 the room's answer"),
        "the hint bar:\n{screen}"
    );
    // In answer mode the number is the answer, not a design.
    assert_eq!(map_key(ch('3'), &app), Some(Msg::Answer(2)));
    assert_eq!(map_key(ch('q'), &app), None, "nothing else acts");
    assert_eq!(press(&mut app, key(KeyCode::Esc)), Some(Msg::Back));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert!(!app.talk.room.any(), "Esc left without an answer");
    // A choice the question does not have is refused, and the mode stays.
    keys(&mut app, &[ch('a'), ch('7')]);
    assert_eq!(app.screens.overlay, Overlay::Answering);
    assert!(!app.talk.room.any());
    press(&mut app, ch('2'));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert!(app.answer_waiting());
    assert_eq!(map_key(key(KeyCode::Enter), &app), Some(Msg::Reveal));
    press(&mut app, key(KeyCode::Enter));
    let r = app.response_here().expect("a response");
    assert_eq!(r.choice, Some(1));
    assert!(r.is_revealed() && r.right(), "once, under with-charge");
}

#[test]
fn an_answer_is_taken_back_until_the_reveal() {
    let mut app = replay();
    let at = to_question(&mut app);
    keys(&mut app, &[ch('a'), ch('1')]);
    assert!(app.answer_waiting());
    // u takes it back (not a what-if undo), and the question waits again.
    assert_eq!(map_key(ch('u'), &app), Some(Msg::TakeBack));
    press(&mut app, ch('u'));
    assert!(!app.answer_waiting());
    assert!(!app.talk.room.any());
    assert!(app.quiz_pending());
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.place.tick, at, "nothing to reveal: the step waits");
    // Backspace too.
    keys(&mut app, &[ch('a'), ch('3')]);
    assert_eq!(map_key(key(KeyCode::Backspace), &app), Some(Msg::TakeBack));
    press(&mut app, key(KeyCode::Backspace));
    assert!(!app.talk.room.any());
    // a again changes an answer before the reveal.
    keys(&mut app, &[ch('a'), ch('1'), ch('a'), ch('2')]);
    assert_eq!(app.response_here().and_then(|r| r.choice), Some(1));
    // The step reveals; after that the answer stands, and u is the what-if undo again.
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.place.tick, at, "the step revealed, it did not move");
    assert!(app.response_here().is_some_and(|r| r.is_revealed()));
    assert_eq!(map_key(ch('u'), &app), Some(Msg::Unfork));
    settle(&mut app, Msg::TakeBack);
    assert!(
        app.response_here().is_some_and(|r| r.is_revealed()),
        "a revealed answer cannot be taken back"
    );
    assert_eq!(app.talk.score().right, 1);
}

#[test]
fn votes_are_tallied_per_choice_then_revealed() {
    let mut app = presenting(Default::default());
    to_question(&mut app);
    assert_eq!(press(&mut app, ch('v')), Some(Msg::OpenVotes));
    assert!(matches!(
        app.screens.overlay,
        Overlay::Voting { selected: 0, .. }
    ));
    // 3 hands for choice 1, 12 for choice 2, 5 for choice 3; a typo erased on the way.
    keys(
        &mut app,
        &[
            ch('3'),
            key(KeyCode::Down),
            ch('1'),
            ch('2'),
            ch('7'),
            key(KeyCode::Backspace),
            key(KeyCode::Tab),
            ch('4'),
            ch('+'),
        ],
    );
    let r = app.response_here().expect("counted");
    assert_eq!(r.votes, [3, 12, 5]);
    assert!(!r.is_revealed());
    // Digits counted hands: the design did not change.
    assert_eq!(app.place.design, Design::WithCharge);
    // Going back to a choice types its count anew.
    keys(
        &mut app,
        &[key(KeyCode::Up), ch('9'), key(KeyCode::Up), ch('3')],
    );
    assert_eq!(
        app.response_here().map(|r| r.votes.clone()),
        Some(vec![3, 9, 5])
    );
    keys(&mut app, &[key(KeyCode::Down), ch('1'), ch('2')]);

    // The counts are on the room's screen, each beside its choice.
    let counting = render(&app, 80, 24);
    insta::assert_snapshot!("presenter_counting_hands_80x24", counting);
    let rows = panel(&counting, " Counting hands ");
    for (choice, n) in [("1 Not at all", 3), ("2 Once", 12), ("3 Twice", 5)] {
        assert!(
            rows.iter()
                .any(|l| l.contains(choice) && l.contains(&format!(" {n} "))),
            "{choice}: {n}\n{counting}"
        );
    }

    press(&mut app, key(KeyCode::Enter));
    let r = app.response_here().expect("revealed");
    assert!(r.is_revealed());
    assert_eq!(r.choice, Some(1), "most hands went to Once");
    let score = app.talk.score();
    assert_eq!((score.right, score.asked), (1, 1));
    assert_eq!((score.hands_right, score.hands), (12, 20));
    let revealed = render(&app, 80, 24);
    assert!(revealed.contains("✓ Right."), "{revealed}");
    assert!(revealed.contains("12 of 20 hands right"), "{revealed}");
}

#[test]
fn a_question_is_asked_again_under_another_design() {
    let mut app = replay();
    let at = to_question(&mut app);
    keys(&mut app, &[ch('a'), ch('2'), key(KeyCode::Enter)]);
    assert!(!app.quiz_pending(), "answered: the replay may go on");
    // Under no key the question has not been asked: the box says so, and nothing holds the
    // replay up.
    press(&mut app, ch('3'));
    assert_eq!(app.place.tick, at);
    assert!(!app.quiz_pending());
    assert!(app.response_here().is_none());
    let screen = render(&app, 120, 36);
    let text = flat(&panel(&screen, " Question for the room "));
    assert!(text.contains("Not asked under no key yet"), "{screen}");
    assert!(
        text.contains("Under design 1 the room said 2 Once (✓)."),
        "{screen}"
    );
    // a asks it again under this design; its answer is kept apart.
    keys(&mut app, &[ch('a'), ch('2')]);
    assert!(app.quiz_pending(), "the new answer waits for its reveal");
    press(&mut app, key(KeyCode::PageDown));
    let here = app.response_here().expect("answered under no key");
    assert!(here.is_revealed() && !here.right(), "no key charges twice");
    let with_charge = app.talk.room.get(0, Design::WithCharge).expect("kept");
    assert!(with_charge.right());
    let score = app.talk.score();
    assert_eq!((score.right, score.asked), (1, 2));
    // The explanation follows the design on screen.
    let quiz = app.version.scenario().quizzes[0].clone();
    let screen = render(&app, 120, 36);
    let answer = flat(&panel(&screen, " The answer "));
    assert!(
        answer.contains(&collapse(quiz.explanation.for_design(Design::NoKey))),
        "{screen}"
    );
    assert!(answer.contains("✗ The answer is 3 Twice."), "{screen}");
    press(&mut app, ch('1'));
    let screen = render(&app, 120, 36);
    let answer = flat(&panel(&screen, " The answer "));
    assert!(
        answer.contains(&collapse(quiz.explanation.for_design(Design::WithCharge))),
        "{screen}"
    );
    assert!(
        !answer.contains(&collapse(quiz.explanation.for_design(Design::NoKey))),
        "{screen}"
    );
}

#[test]
fn an_explanation_table_is_read_per_design_and_a_bad_key_is_pointed_at() {
    let quiz = |explanation: &str| {
        common::inline::one_layer(
            3,
            "backoff = \"1s\"",
            &format!(
                "[[quiz]]\nat = \"14:02:07\"\nquestion = \"How many?\"\nchoices = [\"None\", \"One\"]\nanswer = 2\n{explanation}\n"
            ),
        )
    };
    let text =
        quiz("[quiz.explanation]\nno-key = \"Nothing to look up.\"\nother = \"The key is kept.\"");
    let s = idem::scenario::parse("q.toml", "q", &text).expect("parses");
    let e = &s.quizzes[0].explanation;
    assert_eq!(e.for_design(Design::NoKey), "Nothing to look up.");
    assert_eq!(e.for_design(Design::WithCharge), "The key is kept.");
    let text = quiz("explanation = { no-kye = \"x\" }");
    let err = idem::scenario::parse("q.toml", "q", &text).expect_err("refused");
    let line = text
        .lines()
        .position(|l| l.contains("no-kye"))
        .expect("written")
        + 1;
    let column = text
        .lines()
        .nth(line - 1)
        .and_then(|l| l.find("no-kye"))
        .expect("there")
        + 1;
    let first = err.one_line();
    assert!(
        first.starts_with(&format!(
            "q.toml:{line}:{column}: `no-kye` is not a design id (did you mean `no-key`?)"
        )),
        "{first}"
    );
    let err = idem::scenario::parse("q.toml", "q", &quiz("explanation = 3")).expect_err("refused");
    assert!(
        err.one_line().contains("an explanation is text in quotes"),
        "{err}"
    );
}

#[test]
fn quitting_asks_first_once_the_room_has_answered() {
    let mut app = presenting(Default::default());
    to_question(&mut app);
    // Esc never leaves; before any answer it only says how to.
    press(&mut app, key(KeyCode::Esc));
    assert!(!app.quit);
    assert_eq!(app.screens.overlay, Overlay::None);
    keys(&mut app, &[ch('a'), ch('2')]);
    // Once the room has answered, Esc asks (and a second Esc stays).
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.screens.overlay, Overlay::ConfirmQuit);
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert!(!app.quit);
    press(&mut app, ch('q'));
    assert!(!app.quit, "asked first");
    assert_eq!(app.screens.overlay, Overlay::ConfirmQuit);
    let screen = render(&app, 80, 24);
    assert!(
        collapse(&screen).contains("The room has answered"),
        "{screen}"
    );
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.screens.overlay, Overlay::None);
    assert!(!app.quit);
    keys(&mut app, &[ch('q'), ch('y')]);
    assert!(app.quit);
    // Without answers, q quits at once.
    let mut quiet = presenting(Default::default());
    press(&mut quiet, ch('q'));
    assert!(quiet.quit);
}

#[test]
fn the_design_name_is_hidden_until_revealed() {
    let hide = idem::present::Hide {
        design: true,
        statement: true,
        outcome: true,
    };
    let mut app = presenting(hide);
    press(&mut app, ch('3'));
    let names: Vec<&str> = Design::ALL.iter().map(|d| d.name()).collect();
    let hidden = render(&app, 120, 36);
    for name in &names {
        assert!(!hidden.contains(name), "{name} shows:\n{hidden}");
    }
    assert!(hidden.contains("names hidden: n reveals"), "{hidden}");
    assert!(hidden.contains("Card statement: hidden"), "{hidden}");
    // The question on the way: answered (with counted hands), then on to the end.
    to_question(&mut app);
    keys(&mut app, &[ch('v'), ch('4'), key(KeyCode::Enter)]);
    // What the footer says of a revealed question, and of where designs part, names none.
    for k in ['a', 'd'] {
        press(&mut app, ch(k));
        assert!(app.screens.notice.is_some(), "{k} says something");
        let told = render(&app, 120, 36);
        for name in &names {
            assert!(!told.contains(name), "{k}: {name} shows:\n{told}");
        }
    }
    press(&mut app, key(KeyCode::End));
    assert!(app.at_end());
    let end = render(&app, 120, 36);
    assert!(end.contains("outcome hidden"), "{end}");
    assert!(!end.contains("Charged twice"), "{end}");
    // n reveals all three.
    assert_eq!(press(&mut app, ch('n')), Some(Msg::ToggleHidden));
    let shown = render(&app, 120, 36);
    assert!(shown.contains("no key"), "{shown}");
    assert!(shown.contains("Charged twice"), "{shown}");
    assert!(shown.contains("Card statement: 2 lines"), "{shown}");
    // Another design is hidden again until it too is revealed.
    press(&mut app, ch('1'));
    let again = render(&app, 120, 36);
    assert!(!again.contains("key stored with the charge"), "{again}");
}

/// Compare in front of the room hides what the replay hides: the names over its columns, the
/// ledgers and the outcomes, until revealed.
#[test]
fn compare_hides_what_the_replay_hides() {
    let hide = idem::present::Hide {
        design: true,
        statement: true,
        outcome: true,
    };
    // No question stops the way to the end.
    let mut scenario = default_scenario().expect("loads");
    scenario.quizzes.clear();
    let mut app = presenting_scenario(scenario, hide);
    press(&mut app, key(KeyCode::End));
    press(&mut app, ch('c'));
    let screen = render(&app, 120, 36);
    for d in Design::ALL {
        assert!(!screen.contains(d.name()), "{} shows:\n{screen}", d.name());
    }
    assert!(!screen.contains("Charged twice"), "{screen}");
    assert!(!screen.contains("$97.20"), "{screen}");
    assert!(screen.contains("hidden"), "{screen}");
    press(&mut app, ch('n'));
    let shown = render(&app, 120, 36);
    assert!(shown.contains("$97.20"), "{shown}");
}

#[test]
fn repeated_attempts_fold_into_one_row() {
    let text = "title = \"Eight tries\"\n[[checkout.layer]]\nattempts = 8\ntimeout = \"100ms\"\nbackoff = \"10ms\"\n[processor]\nprocessing = \"10h\"\n[[intent]]\norder = \"1\"\namount = \"$1.00\"\nat = \"10:00:00\"\n";
    let scenario = idem::scenario::parse("eight.toml", "eight", text).expect("parses");
    for present in [false, true] {
        let launch = Launch {
            present,
            ..Launch::default()
        };
        let mut app = App::launch(scenario.clone(), "eight".into(), launch).expect("simulates");
        press(&mut app, key(KeyCode::End));
        let every = render(&app, 120, 36);
        assert!(!every.contains("same as"), "{every}");
        assert_eq!(press(&mut app, ch('f')), Some(Msg::ToggleFold));
        let folded = render(&app, 120, 36);
        assert!(
            folded.contains("attempts #3–#7: same as #2 (20 ticks)"),
            "{folded}"
        );
        assert!(folded.contains("no answer to #8"), "{folded}");
        // Inside a run, the current attempt keeps its rows.
        let inside = app
            .told()
            .labels
            .iter()
            .position(|l| l == "no answer to #5")
            .expect("a fifth attempt");
        app.show_tick(inside);
        let middle = render(&app, 120, 36);
        assert!(
            middle.contains("attempts #3–#4: same as #2 (8 ticks)"),
            "{middle}"
        );
        assert!(middle.contains("no answer to #5"), "{middle}");
        press(&mut app, ch('f'));
        assert!(!render(&app, 120, 36).contains("same as"));
    }
}

/// Every key of presenter mode's help acts there, and every key that acts there is in its help.
#[test]
fn presenter_help_lists_exactly_the_keys_that_work() {
    let mut plain = presenting(Default::default());
    press(&mut plain, key(KeyCode::PageDown));
    let mut asking = presenting(Default::default());
    to_question(&mut asking);
    let mut waiting = presenting(Default::default());
    to_question(&mut waiting);
    keys(&mut waiting, &[ch('a'), ch('2')]);
    let states = [&plain, &asking, &waiting];
    let acts = |code: KeyCode| states.iter().any(|app| map_key(key(code), app).is_some());

    // The keys the help names, by the names it writes them with.
    let named = |name: &str| -> Vec<KeyCode> {
        match name {
            "→" => vec![KeyCode::Right],
            "←" => vec![KeyCode::Left],
            "↓" => vec![KeyCode::Down],
            "↑" => vec![KeyCode::Up],
            "Space" => vec![KeyCode::Char(' ')],
            "Enter" => vec![KeyCode::Enter],
            "Esc" => vec![KeyCode::Esc],
            "1" => ('1'..='6').map(KeyCode::Char).collect(),
            // Not a key: the mouse has tests of its own.
            "6" | "/" | "–" | "mouse" => vec![],
            single if single.chars().count() == 1 => {
                vec![KeyCode::Char(single.chars().next().expect("one"))]
            }
            other => panic!("a key name the test does not know: {other}"),
        }
    };
    let mut listed: Vec<KeyCode> = Vec::new();
    for (keys, _) in PRESENTER_KEYS {
        for name in keys.split_whitespace() {
            listed.extend(named(name));
        }
    }
    // Named in the descriptions: a clicker's PageDown / PageUp, Home / End, Backspace, and
    // `=` for faster (no shift needed).
    listed.extend([
        KeyCode::Char('='),
        KeyCode::PageDown,
        KeyCode::PageUp,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::Backspace,
    ]);
    for code in &listed {
        assert!(acts(*code), "the help lists {code:?}, which does nothing");
    }
    let mut candidates: Vec<KeyCode> = (' '..='~').map(KeyCode::Char).collect();
    candidates.extend([
        KeyCode::Right,
        KeyCode::Left,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::PageDown,
        KeyCode::PageUp,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Backspace,
        KeyCode::Tab,
        KeyCode::Delete,
        KeyCode::Insert,
    ]);
    for code in candidates {
        if acts(code) {
            assert!(
                listed.contains(&code),
                "{code:?} acts in presenter mode but its help does not list it"
            );
        }
    }
    // The author's tools are not among them; m, which shows the fix after payment, is.
    assert!(
        acts(KeyCode::Char('m')),
        "m keys the steps in front of a room too"
    );
    for c in ['S', 'o', 'w', 'e', ':'] {
        assert!(!acts(KeyCode::Char(c)), "{c} acts in presenter mode");
    }
    // The help drawn there is that list.
    settle(&mut plain, Msg::ToggleHelp);
    let screen = render(&plain, 120, 50);
    assert!(screen.contains("Keys of presenter mode"), "{screen}");
    let help = flat(&panel(&screen, " Keys of presenter mode"));
    for (keys, what) in PRESENTER_KEYS {
        assert!(help.contains(&collapse(what)), "{keys}: {what}\n{screen}");
    }
}

/// Compare, the checklist and the ledger work in front of a room, and the presenter says
/// which designs it compares.
#[test]
fn compare_checklist_and_ledger_in_presenter_mode() {
    let mut app = presenting(Default::default());
    for _ in 0..4 {
        press(&mut app, key(KeyCode::PageDown));
    }
    assert_eq!(press(&mut app, ch('L')), Some(Msg::TogglePanels));
    let ledger = render(&app, 120, 36);
    assert!(ledger.contains("Card statement"), "{ledger}");
    assert!(ledger.contains("Processor memory"), "{ledger}");
    assert_eq!(press(&mut app, ch('c')), Some(Msg::ToggleCompare));
    let compare = render(&app, 120, 36);
    assert!(
        compare
            .contains("COMPARE: 1 key stored with the charge · 2 key logged separately · 3 no key"),
        "{compare}"
    );
    press(&mut app, ch('4'));
    assert!(render(&app, 120, 36).contains("· 4 key logged first"));
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(press(&mut app, ch('k')), Some(Msg::OpenChecklist));
    let checklist = render(&app, 80, 24);
    assert!(
        checklist.contains("Before you trust a retry"),
        "{checklist}"
    );
    press(&mut app, key(KeyCode::Esc));
    // d says which two designs it set apart, and keeps saying so at that tick.
    press(&mut app, ch('3'));
    press(&mut app, ch('d'));
    let parted = render(&app, 80, 24);
    assert!(
        collapse(&parted)
            .contains("◆ d: no key and key stored with the charge part ways at this tick")
            || collapse(&parted).contains("◆ d: no key and"),
        "{parted}"
    );
    press(&mut app, ch('t'));
    assert!(render(&app, 80, 24).contains("◆ d: no key and"));
}

/// The presenter at 80×24 with a question, then at the end with the room's score.
#[test]
fn presenter_question_and_score_at_80x24() {
    let mut app = presenting(Default::default());
    app.talk.present.as_mut().expect("presenting").elapsed_secs = 75;
    to_question(&mut app);
    let asked = render(&app, 80, 24);
    insta::assert_snapshot!("presenter_question_80x24", asked);
    assert!(asked.contains(" Question for the room "), "{asked}");
    assert!(asked.contains("1 Not at all"), "{asked}");
    assert!(asked.contains("a answer · v count hands"), "{asked}");
    keys(&mut app, &[ch('a'), ch('2'), key(KeyCode::PageDown)]);
    press(&mut app, key(KeyCode::End));
    assert!(app.at_end());
    let end = render(&app, 80, 24);
    insta::assert_snapshot!("presenter_score_80x24", end);
    assert!(end.contains("✓ Charged once"), "{end}");
    assert!(end.contains("The room: 1 of 1 answer right"), "{end}");
}

/// The question and its explanation are written for the story as the file tells it. After
/// `K` gives every attempt a key of its own, `with-charge` charges twice: the box says the
/// story changed, and the answer is explained from the run on screen, not with the author's
/// words about the one charge of the story as written.
#[test]
fn after_k_the_answer_is_explained_from_the_run_on_screen() {
    let mut app = replay();
    let written = app.version.scenario().quizzes[0]
        .explanation
        .for_design(Design::WithCharge)
        .to_string();
    assert!(app.version.changed_from_written().is_empty());
    press(&mut app, ch('K'));
    assert_eq!(app.version.changed_from_written(), ["the checkout's keys"]);
    // The speaker notes are told too.
    assert_eq!(
        idem::tui::shown::shown(&app).changed,
        ["the checkout's keys"]
    );
    assert_eq!(app.trace().outcome.charges, 2);
    to_question(&mut app);
    let asked = flat(&panel(&render(&app, 120, 40), " Question for the room "));
    assert!(
        asked.contains("Written for the file's story; the checkout's keys changed it here."),
        "{asked}"
    );
    keys(&mut app, &[ch('a'), ch('3'), key(KeyCode::Enter)]);
    assert!(app.response_here().is_some_and(|r| r.right()), "twice");
    let shown = flat(&panel(&render(&app, 120, 40), " The answer "));
    assert!(shown.contains("this story ends with 2 charges"), "{shown}");
    let opening = collapse(&written);
    let opening = &opening[..40];
    assert!(
        !shown.contains(opening),
        "the explanation of the story as written is left out:\n{shown}"
    );
    // K all the way round is the story as written again, and so is its explanation.
    press(&mut app, ch('K'));
    press(&mut app, ch('K'));
    assert!(app.version.changed_from_written().is_empty());
}

/// An answer revealed before `K` changed the story stays the room's answer to that story: it
/// is not marked right or wrong against a run it was not given for.
#[test]
fn an_answer_revealed_before_k_is_told_as_an_answer_to_that_story() {
    let mut app = replay();
    to_question(&mut app);
    keys(&mut app, &[ch('a'), ch('2'), key(KeyCode::Enter)]);
    assert!(app.response_here().is_some_and(|r| r.right()), "once");
    press(&mut app, ch('K'));
    assert_eq!(app.trace().outcome.charges, 2);
    let screen = render(&app, 120, 40);
    let shown = flat(&panel(&screen, " The answer, for the story before "));
    assert!(
        shown.contains(
            "The room's answer, 2 Once, was right for the story before it changed. \
             Under key stored with the charge this story ends with 2 charges"
        ),
        "{shown}"
    );
    assert!(!shown.contains("✓ Right"), "{shown}");
    // Back to the keys as written: the same right answer, and the usual box.
    press(&mut app, ch('K'));
    press(&mut app, ch('K'));
    let again = render(&app, 120, 40);
    assert!(
        flat(&panel(&again, " The answer ")).contains("✓ Right."),
        "{again}"
    );
}

/// A room split on the story before `K` is told so in a sentence of its own.
#[test]
fn a_split_room_before_k_is_told_so() {
    let mut app = replay();
    to_question(&mut app);
    keys(
        &mut app,
        &[
            ch('v'),
            ch('4'),
            key(KeyCode::Down),
            ch('4'),
            key(KeyCode::Enter),
        ],
    );
    assert!(
        app.response_here()
            .is_some_and(|r| r.is_revealed() && r.choice.is_none()),
        "a tie"
    );
    // The notes hear it as a tie, not as a wrong answer.
    let notes = idem::tui::shown::shown(&app).room.expect("the room's line");
    assert!(notes.contains("a tie, so no answer"), "{notes}");
    assert!(!notes.contains("wrong"), "{notes}");
    press(&mut app, ch('K'));
    let shown = flat(&panel(
        &render(&app, 120, 40),
        " The answer, for the story before ",
    ));
    assert!(
        shown.contains("The room was split on the story before it changed. Under"),
        "{shown}"
    );
}

// ---------------------------------------------------------------------------------------------
// One room: what the room sees, whatever key was pressed before
// ---------------------------------------------------------------------------------------------

fn builtin(name: &str) -> idem::scenario::Scenario {
    idem::scenario::library::find(name)
        .expect("a built-in")
        .load()
        .expect("loads")
}

#[test]
fn end_at_an_open_question_waits_for_the_room() {
    for mut app in [replay(), presenting(Default::default())] {
        let at = to_question(&mut app);
        press(&mut app, key(KeyCode::End));
        assert_eq!(app.place.tick, at, "End does not skip the question");
        assert!(app.quiz_pending());
        assert!(
            app.screens
                .notice
                .as_deref()
                .is_some_and(|n| n.contains("a, then")),
            "{:?}",
            app.screens.notice
        );
    }
}

#[test]
fn the_presenter_s_statement_line_takes_refunds_off_as_the_panel_does() {
    let launch = Launch {
        present: true,
        ..Launch::default()
    };
    let mut scenario = builtin("nightly-reconcile");
    scenario.quizzes.clear();
    let mut app = App::launch(scenario, "nightly-reconcile".into(), launch).expect("simulates");
    let refunded = app
        .trace()
        .ticks
        .iter()
        .position(|t| !t.state.refunds().is_empty())
        .expect("the job refunds");
    app.show_tick(refunded);
    let screen = render(&app, 100, 30);
    let state = &app.trace().ticks[refunded].state;
    let lines = state.ledger().len() + state.refunds().len();
    assert!(
        screen.contains(&format!(
            "Card statement: {lines} lines · net {}",
            state.net_total()
        )),
        "{screen}"
    );
}

#[test]
fn help_in_front_of_a_room_does_not_say_which_number_is_which_design() {
    let mut app = presenting(idem::present::Hide {
        design: true,
        ..Default::default()
    });
    settle(&mut app, Msg::ToggleHelp);
    let screen = render(&app, 120, 50);
    for d in Design::ALL {
        assert!(!screen.contains(d.name()), "{}:\n{screen}", d.name());
        assert!(!screen.contains(d.id()), "{}:\n{screen}", d.id());
    }
    assert!(screen.contains("hidden from the room"), "{screen}");
    // Revealed, the help names them again.
    settle(&mut app, Msg::ToggleHelp);
    settle(&mut app, Msg::ToggleHidden);
    settle(&mut app, Msg::ToggleHelp);
    let screen = render(&app, 120, 50);
    assert!(screen.contains(Design::WithCharge.id()), "{screen}");
}

#[test]
fn k_comes_back_round_to_the_file_s_own_keys_at_the_same_moment() {
    let mut scenario = builtin("mobile-gateway");
    scenario.quizzes.clear();
    let mut app = App::new(scenario, "mobile-gateway".into()).expect("runs");
    assert!(app.version.changed_from_written().is_empty());
    app.show_tick(app.last_tick());
    let at = app.now();
    let written = app.version.scenario().config.keying();
    let mut seen = Vec::new();
    for _ in 0..4 {
        settle(&mut app, Msg::CycleKeyStrategy);
        seen.push(app.version.keys_set());
    }
    assert_eq!(
        seen,
        vec![
            Some(idem::sim::config::KeyStrategy::PerIntent),
            Some(idem::sim::config::KeyStrategy::PerAttempt),
            Some(idem::sim::config::KeyStrategy::None),
            None,
        ],
        "four presses go round, the file's own mix last"
    );
    assert_eq!(app.version.scenario().config.keying(), written);
    assert!(app.version.changed_from_written().is_empty());
    assert_eq!(
        app.now(),
        at,
        "the moment is kept through a way that ends sooner"
    );
    // u takes back K when no what-if is left, and 0 takes back everything at once.
    settle(&mut app, Msg::CycleKeyStrategy);
    assert!(!app.version.changed_from_written().is_empty());
    settle(&mut app, Msg::Unfork);
    assert!(
        app.version.changed_from_written().is_empty(),
        "{:?}",
        app.screens.notice
    );
    settle(&mut app, Msg::CycleKeyStrategy);
    settle(&mut app, Msg::Fork(idem::scenario::fork::WhatIf::CrashNext));
    settle(&mut app, Msg::AsWritten);
    assert!(
        app.version.changed_from_written().is_empty(),
        "{:?}",
        app.screens.notice
    );
    assert!(app.version.added.is_empty());
    assert_eq!(app.version.keys_set(), None);
}

#[test]
fn the_story_sent_to_the_notes_after_k_is_the_story_keyed_as_the_room_sees_it() {
    let mut app = App::new(builtin("per-attempt-key"), "per-attempt-key".into()).expect("runs");
    settle(&mut app, Msg::CycleKeyStrategy);
    let text = idem::scenario::fork_toml::to_toml(&app.version.original, &app.version.added)
        .expect("writes");
    let read = idem::scenario::parse("notes.toml", "per-attempt-key", &text).expect("reads");
    assert_eq!(read.config.keying(), app.version.scenario().config.keying());
    for design in Design::ALL {
        let theirs = read.simulate(design).expect("runs");
        assert_eq!(
            theirs.outcome.charges,
            app.version.trace_of(design).outcome.charges,
            "{design}"
        );
    }
}

#[test]
fn esc_out_of_compare_comes_back_to_the_very_tick() {
    let mut app = replay();
    // A tick that shares its moment with the next one.
    let ticks = &app.trace().ticks;
    let shared = (0..ticks.len() - 1)
        .find(|&i| ticks[i].at == ticks[i + 1].at)
        .expect("two ticks at one moment");
    app.show_tick(shared);
    settle(&mut app, Msg::ToggleCompare);
    settle(&mut app, Msg::Back);
    assert_eq!(app.place.tick, shared, "Esc does not move the story on");
}

#[test]
fn a_crash_the_story_already_has_is_not_added_again_in_silence() {
    let mut scenario = builtin("mobile-gateway");
    scenario.quizzes.clear();
    let mut app = App::new(scenario, "mobile-gateway".into()).expect("runs");
    // A tick whose next crash is one the story already has.
    let already = (0..app.trace().ticks.len()).find(|&t| {
        idem::scenario::fork::fault_for(
            app.version.scenario(),
            app.trace(),
            t,
            idem::scenario::fork::WhatIf::CrashNext,
        )
        .is_err_and(|why| why.contains("already has that"))
    });
    let at = already.expect("a tick whose next crash is the story's own");
    app.show_tick(at);
    settle(&mut app, Msg::Fork(idem::scenario::fork::WhatIf::CrashNext));
    assert!(app.version.added.is_empty(), "nothing added");
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("already has that")),
        "{:?}",
        app.screens.notice
    );
}

#[test]
fn the_window_screen_keeps_its_edits_when_closed_and_opened_again() {
    use idem::tui::window::WindowMsg;
    let mut app = replay();
    settle(&mut app, Msg::OpenWindow);
    settle(&mut app, Msg::Window(WindowMsg::AddLayer));
    let edited = app.screens.window.as_ref().expect("open").stack().clone();
    assert_ne!(
        &edited,
        app.screens.window.as_ref().expect("open").opened_on()
    );
    press(&mut app, ch('q'));
    assert_eq!(app.screens.screen, idem::tui::app::Screen::Replay);
    settle(&mut app, Msg::OpenWindow);
    assert_eq!(app.screens.window.as_ref().expect("open").stack(), &edited);
}

#[test]
fn the_presenter_s_big_narration_keeps_a_hidden_ending_hidden() {
    let launch = Launch {
        present: true,
        hide: idem::present::Hide {
            outcome: true,
            ..Default::default()
        },
        design: Some(Design::NoKey),
        ..Launch::default()
    };
    let mut scenario = default_scenario().expect("loads");
    scenario.quizzes.clear();
    let mut app = App::launch(scenario, "order-5531".into(), launch).expect("simulates");
    let statement = app
        .trace()
        .ticks
        .iter()
        .position(|t| t.kind == idem::sim::TickKind::Statement)
        .expect("a statement tick");
    app.show_tick(statement);
    let screen = render(&app, 100, 30);
    let told = &app.told().narrations[statement];
    assert!(!collapse(&screen).contains(&collapse(told)), "{screen}");
    assert!(screen.contains("hidden until the reveal"), "{screen}");
}

#[test]
fn the_window_screen_s_help_keeps_each_key_apart_from_its_words() {
    let mut app = replay();
    settle(&mut app, Msg::OpenWindow);
    settle(&mut app, Msg::ToggleHelp);
    let screen = render(&app, 80, 40);
    for (keys, what) in idem::tui::window::KEYS {
        let start: String = what.chars().take(12).collect();
        let line = screen
            .lines()
            .find(|l| l.contains(&format!(" {keys} ")) && l.contains(&start))
            .unwrap_or_else(|| panic!("{keys} and its words, apart:\n{screen}"));
        let key_at = line.find(&format!(" {keys} ")).unwrap_or(0);
        assert!(line.find(&start).unwrap_or(0) > key_at, "{line}");
    }
}

#[test]
fn long_choices_are_never_cut_or_wrapped_in_the_middle() {
    let mut scenario = default_scenario().expect("loads");
    let long = [
        "Not at all: the charge never went through",
        "Once: the retry was answered from memory",
        "Twice: the retry was charged as new work",
    ];
    scenario.quizzes[0].choices = long.iter().map(|c| c.to_string()).collect();
    let mut app = App::new(scenario, "order-5531".into()).expect("simulates");
    to_question(&mut app);
    let screen = render(&app, 80, 24);
    for c in long {
        assert!(screen.lines().any(|l| l.contains(c)), "{c}:\n{screen}");
    }
    // Counting hands shows each choice whole beside its count.
    press(&mut app, ch('v'));
    let screen = render(&app, 80, 24);
    for c in long {
        assert!(screen.lines().any(|l| l.contains(c)), "{c}:\n{screen}");
    }
}

/// Order 5531 with its question asked under no-key only.
fn scoped_to_no_key() -> App {
    let source = common::builtin_source("order-5531").replacen(
        "answer = \"charges\"\n",
        "answer = \"charges\"\ndesigns = [\"no-key\"]\n",
        1,
    );
    assert!(source.contains("designs = [\"no-key\"]"));
    let scenario = idem::scenario::parse("scoped.toml", "scoped", &source).expect("parses");
    App::new(scenario, "scoped".into()).expect("simulates")
}

/// A question scoped to some designs does not stop the replay under the others: stepping
/// tick by tick, or jumping to what matters, goes straight past its tick. Under a design it
/// lists, the replay stops on it as before.
#[test]
fn a_scoped_question_is_asked_only_under_the_designs_it_lists() {
    let mut app = scoped_to_no_key();
    assert_eq!(app.place.design, Design::WithCharge);
    while app.place.tick < app.last_tick() {
        assert!(
            app.quiz_here().is_none(),
            "asked at tick {}",
            app.place.tick
        );
        assert!(!app.quiz_pending(), "held at tick {}", app.place.tick);
        press(&mut app, key(KeyCode::Right));
    }
    assert_eq!(
        app.place.tick,
        app.last_tick(),
        "stepped to the end unhindered"
    );

    let mut app = scoped_to_no_key();
    press(&mut app, key(KeyCode::PageDown));
    for _ in 0..50 {
        assert!(!app.quiz_pending(), "held at tick {}", app.place.tick);
        if app.place.tick == app.last_tick() {
            break;
        }
        press(&mut app, key(KeyCode::PageDown));
    }
    assert_eq!(
        app.place.tick,
        app.last_tick(),
        "jumped to the end unhindered"
    );

    let mut app = scoped_to_no_key();
    press(&mut app, ch('3'));
    assert_eq!(app.place.design, Design::NoKey);
    let at = to_question(&mut app);
    assert!(app.quiz_here().is_some_and(|(i, _)| i == 0), "tick {at}");
}

#[test]
fn the_presenter_and_the_notes_say_whether_it_plays_at_what_speed_and_whether_it_is_blank() {
    let mut scenario = default_scenario().expect("loads");
    scenario.quizzes.clear();
    let launch = Launch {
        present: true,
        ..Launch::default()
    };
    let mut app = App::launch(scenario, "order-5531".into(), launch).expect("simulates");
    let play = |app: &App| idem::tui::shown::shown(app).play.unwrap_or_default();
    assert_eq!(play(&app), "❚❚ paused · 1×");
    settle(&mut app, Msg::Faster);
    settle(&mut app, Msg::TogglePlay);
    assert_eq!(play(&app), "▶ playing · 1.5×");
    let title = render(&app, 80, 24)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(title.contains("▶ 1.5×"), "{title}");
    settle(&mut app, Msg::Blank);
    assert!(play(&app).contains("blank"), "{}", play(&app));
}

/// `G` stops at a question still open under the design on screen, even when another
/// design's room has had its answer revealed; a second `G` goes on to the end.
#[test]
fn g_stops_at_a_question_not_yet_asked_under_this_design() {
    let mut app = replay();
    let at = to_question(&mut app);
    keys(&mut app, &[ch('a'), ch('2'), key(KeyCode::Enter)]);
    assert!(
        app.talk.room.revealed_anywhere(0),
        "revealed under design 1"
    );
    press(&mut app, key(KeyCode::Home));
    press(&mut app, ch('3'));
    assert_eq!(app.place.tick, 0);
    press(&mut app, ch('G'));
    assert_eq!(
        app.place.tick, at,
        "G stops at the question not asked under no key"
    );
    assert!(app.response_here().is_none());
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("not asked under no key yet")),
        "{:?}",
        app.screens.notice
    );
    press(&mut app, ch('G'));
    assert!(app.at_end(), "the second G goes on to the end");
    // Under design 1, where the answer is revealed, G never stops there.
    press(&mut app, key(KeyCode::Home));
    press(&mut app, ch('1'));
    press(&mut app, ch('G'));
    assert!(app.at_end());
}

/// The timeline row of tick `row` on the replay's screen at tick `at` (every row shown, as in
/// a story this short).
fn row_at(app: &mut App, at: usize, row: usize) -> (String, String) {
    app.show_tick(at);
    let screen = render(app, 120, 36);
    let time = app.trace().format_time(app.trace().ticks[row].at);
    let same = app.trace().ticks[..row]
        .iter()
        .filter(|t| t.at == app.trace().ticks[row].at)
        .count();
    let line = screen
        .lines()
        .filter(|l| l.starts_with(&format!("│{time}")))
        .nth(same)
        .unwrap_or_else(|| panic!("no row for tick {row}:\n{screen}"))
        .to_string();
    (line, screen)
}

/// A message the network will lose is never drawn as delivered. On its send row it heads
/// for the network with no head, its end untold while the replay stands before the loss;
/// once the loss is on screen, the send row is cut there too. For a request and an answer.
#[test]
fn a_message_the_network_loses_heads_out_then_is_drawn_cut_on_its_send_row() {
    let text =
        std::fs::read_to_string(common::root().join("scenarios/request-lost.toml")).expect("reads");
    let request =
        idem::scenario::parse("request-lost.toml", "request-lost", &text).expect("parses");
    let answer = idem::scenario::library::find("order-5531")
        .expect("built in")
        .load()
        .expect("loads");
    for scenario in [request, answer] {
        let name = scenario.name.clone();
        let mut app = App::new(scenario, name.clone()).expect("simulates");
        app.show(Design::WithCharge, 0);
        let trace = app.trace().clone();
        let told = app.told().clone();
        let (send, lost) = (0..trace.ticks.len())
            .find_map(|i| told.lost_later[i].map(|at| (i, at)))
            .unwrap_or_else(|| panic!("{name}: a message is lost"));
        let (row, screen) = row_at(&mut app, send, send);
        for head in ['▶', '◀', '✗'] {
            assert!(
                !row.contains(head),
                "{name}: {head} before the loss:\n{screen}"
            );
        }
        assert!(row.contains('├'), "{name}: it leaves its sender:\n{screen}");
        let (row, screen) = row_at(&mut app, lost, send);
        assert!(row.contains('✗'), "{name}: cut once lost:\n{screen}");
        assert!(
            !row.contains('▶') && !row.contains('◀'),
            "{name}:\n{screen}"
        );
    }
}

/// Over every built-in scenario and design, the ticks drawn cut on their send row are exactly
/// the sends of what the network loses: one send row per lost request, and one answer row per
/// lost answer, the answer to that attempt.
#[test]
fn every_lost_message_and_only_those_are_drawn_cut_from_their_send_row() {
    use idem::sim::{Actor, Fact};
    for builtin in idem::scenario::library::BUILTIN {
        let scenario = builtin.load().expect("a built-in loads");
        for design in Design::ALL {
            let trace = scenario.simulate(design).expect("simulates");
            let told = scenario.tell(&trace);
            let what = format!("{} under {}", builtin.name, design.id());
            let mut lost_requests = Vec::new();
            let mut lost_answers = Vec::new();
            for t in &trace.ticks {
                match t.fact {
                    Fact::LostRequest { req } => lost_requests.push(req),
                    Fact::LostReply { reply } => {
                        let r = &trace.requests[trace.replies[reply].req];
                        lost_answers.push((r.intent, r.attempt));
                    }
                    _ => {}
                }
            }
            let cut: Vec<usize> = (0..trace.ticks.len())
                .filter(|&i| told.lost_later[i].is_some())
                .collect();
            let (mut sends, mut answers) = (Vec::new(), Vec::new());
            for &i in &cut {
                let t = &trace.ticks[i];
                match t.fact {
                    Fact::Send { req } => sends.push(req),
                    _ => {
                        assert!(
                            t.message.is_some_and(|m| m.from == Actor::Processor),
                            "{what}: tick {i} is cut but sends nothing"
                        );
                        answers
                            .push((t.intent.expect("an intent"), t.attempt.expect("an attempt")));
                    }
                }
            }
            sends.sort_unstable();
            lost_requests.sort_unstable();
            answers.sort_unstable();
            lost_answers.sort_unstable();
            assert_eq!(sends, lost_requests, "{what}: requests");
            assert_eq!(answers, lost_answers, "{what}: answers");
        }
    }
}

/// The trainer's words at a moment name the file's story (the queue's message "carrying the
/// order's idempotency key K7Q4"). Once `K` sends other keys, the replay's narration, the
/// presenter's and the speaker notes' all end by saying those words were written for the
/// file's story; a moment without the trainer's words, or the story as written, says nothing.
#[test]
fn the_trainers_words_say_they_were_written_for_the_file_once_k_changed_the_story() {
    let scenario = idem::scenario::library::find("queue-redelivery")
        .expect("a built-in")
        .load()
        .expect("loads");
    let caveat = "The trainer's words at this moment were written for the file's story; the checkout's keys changed it here.";
    let notes = |app: &App| {
        let position = idem::present::link::Position {
            source: app.source.clone(),
            scenario: idem::scenario::fork_toml::to_toml(&app.version.original, &app.version.added)
                .expect("written"),
            design: app.place.design.id().to_string(),
            tick: app.place.tick,
            shown: idem::tui::shown::shown(app),
        };
        idem::tui::notes::sheet(&position)
            .expect("a sheet")
            .narration
    };
    for present in [false, true] {
        let launch = Launch {
            present,
            ..Launch::default()
        };
        let mut app =
            App::launch(scenario.clone(), "queue-redelivery".into(), launch).expect("simulates");
        let words = app.told().trainer[0]
            .clone()
            .expect("the trainer's words open the story");
        assert!(words.contains("K7Q4"), "{words}");
        assert!(!collapse(&render(&app, 120, 40)).contains("trainer's words"));
        assert!(!notes(&app).contains("trainer's words"));
        press(&mut app, ch('K'));
        assert!(app.version.keys_set().is_some(), "K is in force");
        assert_eq!(app.place.tick, 0);
        let screen = collapse(&render(&app, 120, 40));
        assert!(screen.contains(caveat), "present {present}: {screen}");
        assert!(notes(&app).ends_with(caveat), "{}", notes(&app));
        // The next moment has no words of the trainer's.
        press(&mut app, key(KeyCode::Right));
        assert_eq!(app.told().trainer[app.place.tick], None);
        assert!(!collapse(&render(&app, 120, 40)).contains("trainer's words"));
        assert!(!notes(&app).contains("trainer's words"));
    }
}

/// At an open question the room sees nothing a design's answer depends on: with the side
/// panels on (`L`), no processor memory, no ledger, no counters and no statement, until the
/// answer is revealed.
#[test]
fn an_open_question_keeps_memory_ledger_and_statement_back() {
    let mut app = presenting(Default::default());
    press(&mut app, key(KeyCode::Char('L')));
    to_question(&mut app);
    let screen = render(&app, 120, 36);
    for word in [
        "Processor memory",
        "key K7Q4 ·",
        "Ledger ",
        "dedupe hits",
        "total $",
    ] {
        assert!(
            !screen.contains(word),
            "{word} shows at the question:\n{screen}"
        );
    }
    assert!(screen.contains("kept back until the answer"), "{screen}");
    // Answered and revealed, the panels come back.
    keys(
        &mut app,
        &[
            key(KeyCode::Char('a')),
            key(KeyCode::Char('2')),
            key(KeyCode::Enter),
        ],
    );
    assert!(!app.quiz_pending());
    let screen = render(&app, 120, 36);
    assert!(screen.contains("Processor memory"), "{screen}");
}
