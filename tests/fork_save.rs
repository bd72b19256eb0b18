//! A what-if saved with `S`: the file it writes reads back as the same story, in whichever TOML
//! form the trainer wrote the original, and passes `idem check`: the expectations the added
//! faults falsify are rewritten or dropped, and blocks whose tick is gone are taken out.

mod common;

use common::TempDir;
use idem::cli::check::{self, CheckArgs, CheckOutcome};
use idem::scenario::{self, Scenario, fork};
use idem::sim::config::{Direction, Fault, FaultAction};
use idem::sim::{Design, TickKind};

fn parse(text: &str) -> Scenario {
    scenario::parse("t.toml", "t", text).unwrap_or_else(|e| panic!("{e}\n---\n{text}"))
}

fn check_text(dir: &TempDir, text: &str) -> CheckOutcome {
    let path = dir.file("saved.toml", text);
    check::run(&CheckArgs { files: vec![path] })
}

fn lose(intent: usize, attempt: u32, direction: Direction) -> Fault {
    Fault {
        intent,
        attempt,
        action: FaultAction::Lose { direction },
    }
}

/// The engine's configuration, compared as data.
fn config_of(s: &Scenario) -> serde_json::Value {
    serde_json::to_value(&s.config).expect("the configuration serialises")
}

#[test]
fn a_saved_what_if_rewrites_the_expectations_it_falsifies() {
    let original = scenario::resolve("reply-lost").expect("built in");
    // Attempt 1's request is lost as well: no design charges twice any more.
    let added = [lose(0, 1, Direction::Request)];
    let text = fork::to_toml(&original, &added).expect("written");
    let dir = TempDir::new("fork-expect");
    let out = check_text(&dir, &text);
    assert_eq!(out.exit, 0, "{}{}\n---\n{text}", out.text, out.errors);
    assert!(!out.text.contains("FAIL"), "{}", out.text);
    let saved = parse(&text);
    let no_key = saved
        .expectations
        .iter()
        .find(|e| e.design == Design::NoKey)
        .expect("the no-key expectation is kept, rewritten");
    assert_eq!(no_key.charges, Some(1));
    assert!(
        text.contains("charges = 1  # was 2 before the what-if"),
        "{text}"
    );
    assert!(text.contains("[[expect]] for no-key on line"), "{text}");
    // The file as written is kept: its description and the order of its blocks.
    assert!(
        text.starts_with(
            "title = \"Reply lost: charged, and nobody told\"\ndescription = \"\"\"\n"
        )
    );
    assert_eq!(saved.expectations.len(), original.expectations.len());
    assert_eq!(
        config_of(&saved),
        config_of(&fork::with_faults(&original, &added))
    );
}

#[test]
fn an_expectation_left_checking_nothing_is_dropped() {
    let source = "title = \"two orders\"\n\n\
        [[intent]]\norder = \"1\"\namount = \"$5\"\nat = \"10:00:00\"\n\n\
        [[intent]]\norder = \"2\"\namount = \"$6\"\nat = \"10:05:00\"\n\n\
        # Both orders are paid.\n[[expect]]\ndesign = \"with-charge\"\nclient = \"paid\"\n";
    let original = parse(source);
    let added = [Fault {
        intent: 1,
        attempt: 1,
        action: FaultAction::Decline,
    }];
    let text = fork::to_toml(&original, &added).expect("written");
    let saved = parse(&text);
    assert!(saved.expectations.is_empty(), "{text}");
    assert!(
        text.contains("[[expect]] for with-charge on line"),
        "{text}"
    );
    assert!(
        text.contains("dropped (client paid no longer holds for every order)"),
        "{text}"
    );
    assert!(text.contains("# client = \"paid\""), "{text}");
    let dir = TempDir::new("fork-drop");
    assert_eq!(check_text(&dir, &text).exit, 0);
}

#[test]
fn a_quiz_whose_tick_is_gone_is_taken_out() {
    let base = "title = \"lost answer\"\n\n[[intent]]\norder = \"5531\"\namount = \"$48.60\"\n\
        at = \"14:02:07\"\n\n[[fault]]\nattempt = 1\nlose = \"reply\"\n";
    // The label of the tick where the answer is lost, as the engine writes it.
    let lost = parse(base)
        .simulate(Design::WithCharge)
        .expect("simulates")
        .ticks
        .iter()
        .find(|t| t.kind == TickKind::Lost)
        .expect("a lost answer")
        .label
        .clone();
    let source = format!(
        "{base}\n[[quiz]]\nlabel = \"{lost}\"\nquestion = \"Charged?\"\nchoices = [\"yes\", \"no\"]\nanswer = 1\n"
    );
    let original = parse(&source);
    assert_eq!(original.quizzes.len(), 1);
    // Lose the request of attempt 1 too: no answer to it is ever sent, or lost.
    let added = [lose(0, 1, Direction::Request)];
    let forked = fork::with_faults(&original, &added);
    for d in Design::ALL {
        let t = forked.simulate(d).expect("simulates");
        if t.ticks.iter().any(|k| k.label == lost) {
            // The engine still shows that label: nothing to take out.
            return;
        }
    }
    let text = fork::to_toml(&original, &added).expect("written");
    let saved = parse(&text);
    assert!(saved.quizzes.is_empty(), "{text}");
    assert!(text.contains("A [[quiz]] was taken out"), "{text}");
    assert!(text.contains("# question = \"Charged?\""), "{text}");
}
