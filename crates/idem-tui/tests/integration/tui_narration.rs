//! The trainer's `[[narration]]` blocks, loaded from a scenario file: replacing and appending to
//! the engine's words at a labelled tick or a clock time, and refusing a block that names no
//! tick any design reaches.

use crate::common;

use common::{TempDir, builtin_source, story};
use idem::scenario::{NarrationMode, NarrationTarget};
use idem::sim::{Design, Instant, TickKind};

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

/// `answer = "charges"` with more charges than choices: the choice list grows to the count
/// the runs reach (the same list under every design, so it gives nothing away), and the run's
/// own count is among them.
#[test]
fn a_charges_answer_beyond_the_choices_grows_the_list() {
    use idem::tui::Msg;
    let source = common::inline::one_layer(
        3,
        "backoff = \"1s\"",
        "[[fault]]\nattempt = 1\nlose = \"reply\"\n\n[[quiz]]\nat = \"14:02:07\"\nquestion = \"How many charges?\"\nchoices = [\"None\", \"One\"]\nanswer = \"charges\"\nexplanation = \"It depends on the design.\"\n",
    );
    let scenario = idem::scenario::parse("q.toml", "q", &source).expect("parses");
    let mut app = idem::tui::App::new(scenario, "q".into()).expect("simulates");
    idem::tui::settle(&mut app, Msg::SwitchDesign(idem::sim::Design::NoKey));
    assert_eq!(app.trace().outcome.charges, 2);
    let most = app.most_charges();
    assert!(most >= 2);
    let quiz = app.version.scenario().quizzes[0].clone();
    let choices = app.choices(&quiz);
    assert_eq!(choices.len(), most + 1, "{choices:?}");
    assert_eq!(&choices[..3], ["None", "One", "Twice"]);
    assert!(app.quiz_pending());
    let asked = common::render(&app, 120, 40);
    assert!(
        asked.contains("3 Twice"),
        "the grown choice is offered:\n{asked}"
    );
    // The same list under a design that charges once.
    idem::tui::settle(&mut app, Msg::SwitchDesign(idem::sim::Design::WithCharge));
    assert_eq!(app.choices(&quiz), choices);
    idem::tui::settle(&mut app, Msg::SwitchDesign(idem::sim::Design::NoKey));
    idem::tui::settle(&mut app, Msg::OpenAnswer);
    idem::tui::settle(&mut app, Msg::Answer(2));
    idem::tui::settle(&mut app, Msg::Reveal);
    assert_eq!(app.talk.score().right, 1, "Twice is right under no-key");
    let screen = common::render(&app, 120, 40);
    assert!(screen.contains("✓ Right."), "{screen}");
}

/// Past nine choices the list stops growing and its last choice reads "or more".
#[test]
fn the_grown_list_stops_at_nine_choices() {
    let quiz = idem::scenario::Quiz {
        target: idem::scenario::NarrationTarget::Label("x".into()),
        target_span: 0..0,
        question: "How many?".into(),
        choices: vec!["None".into(), "One".into()],
        answer: idem::scenario::QuizAnswer::Charges,
        explanation: Default::default(),
        designs: Default::default(),
    };
    let grown = quiz.shown_choices(40);
    assert_eq!(grown.len(), idem::scenario::MAX_CHOICES);
    assert_eq!(grown[2], "Twice");
    assert_eq!(grown[3], "Three times");
    assert_eq!(grown[8], "Eight times or more");
    assert_eq!(quiz.shown_choices(1), ["None", "One"], "no growth needed");
    assert_eq!(
        quiz.shown_choices(8).last().map(String::as_str),
        Some("Eight times")
    );
}

/// A trainer's narration on a question's tick reaches the room: the question box shows it
/// above the question, whole at 80×24; a tick without one shows the question alone.
#[test]
fn a_trainer_narration_on_a_question_tick_is_shown_with_the_question() {
    let text = reply_lost_with(&format!(
        "[[narration]]\nlabel = \"no answer to #1\"\ntext = \"{REPLACED}\"\n"
    ));
    let scenario = idem::scenario::parse("reply-lost.toml", "reply-lost", &text).expect("parses");
    let mut app = idem::tui::App::new(scenario, "q".into()).expect("simulates");
    while !app.quiz_pending() {
        common::press(
            &mut app,
            common::key(ratatui::crossterm::event::KeyCode::Right),
        );
    }
    assert!(app.told().rewritten.contains(&app.place.tick));
    let screen = common::render(&app, 80, 24);
    let flat = common::collapse(&screen);
    assert!(flat.contains(&common::collapse(REPLACED)), "{screen}");
    assert!(
        screen.contains("times will the card end up charged?"),
        "{screen}"
    );

    // Without a narration of the trainer's, the question stands alone.
    let plain = idem::scenario::parse(
        "reply-lost.toml",
        "reply-lost",
        builtin_source("reply-lost"),
    )
    .expect("parses");
    let mut app = idem::tui::App::new(plain, "q".into()).expect("simulates");
    while !app.quiz_pending() {
        common::press(
            &mut app,
            common::key(ratatui::crossterm::event::KeyCode::Right),
        );
    }
    assert!(app.told().rewritten.is_empty());
    let screen = common::render(&app, 80, 24);
    let narration = common::collapse(&app.told().narrations[app.place.tick]);
    assert!(
        !common::collapse(&screen).contains(&narration[..40]),
        "{screen}"
    );
}

/// Three layers beneath the one that mints are listed as a sentence lists them.
#[test]
fn the_layers_beneath_a_minting_layer_read_as_a_list() {
    let text = "title = \"Four layers\"\n\
        [[checkout.layer]]\nname = \"http\"\nattempts = 1\ntimeout = \"1s\"\n\
        [[checkout.layer]]\nname = \"client\"\nattempts = 1\n\
        [[checkout.layer]]\nname = \"sdk\"\nattempts = 1\n\
        [[checkout.layer]]\nname = \"app\"\nattempts = 2\nkey = \"per-attempt\"\n\
        [[intent]]\norder = \"1\"\nkey = \"K1\"\namount = \"$1.00\"\nat = \"10:00:00\"\n";
    let scenario = idem::scenario::parse("four.toml", "four", text).expect("parses");
    let trace = scenario.simulate(Design::WithCharge).expect("simulates");
    let told = scenario.tell(&trace);
    assert!(
        told.narrations[0].contains("the sdk, client and http beneath it pass that key on"),
        "{}",
        told.narrations[0]
    );
}

/// What the presenter hides is listed the same way.
#[test]
fn what_is_hidden_reads_as_a_list() {
    let all = idem::present::Hide {
        design: true,
        statement: true,
        outcome: true,
    };
    assert_eq!(
        all.words(),
        "the design's name, the card statement and the outcome"
    );
}
