//! A what-if saved with `S`: the file it writes reads back as the same story, in whichever TOML
//! form the trainer wrote the original, and passes `idem check`: the expectations the added
//! faults falsify are rewritten or dropped, and blocks whose tick is gone are taken out.

use crate::common;

use common::TempDir;
use idem::cli::check::{self, CheckArgs, CheckOutcome};
use idem::scenario::{self, Scenario, fork, fork_toml};
use idem::sim::config::{CrashPoint, Direction, FailPoint, Fault, FaultAction};
use idem::sim::{Design, TickKind};
use proptest::prelude::*;

fn parse(text: &str) -> Scenario {
    scenario::parse("t.toml", "t", text).unwrap_or_else(|e| panic!("{e}\n---\n{text}"))
}

fn check_text(dir: &TempDir, text: &str) -> CheckOutcome {
    let path = dir.file("saved.toml", text);
    check::run(&CheckArgs {
        files: vec![path.into()],
        json: false,
    })
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
    let text = fork_toml::to_toml(&original, &added).expect("written");
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
    let text = fork_toml::to_toml(&original, &added).expect("written");
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
    let story = parse(base).run(Design::WithCharge).expect("simulates");
    let lost = story
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Lost)
        .map(|i| story.told.labels[i].clone())
        .expect("a lost answer");
    let source = format!(
        "{base}\n[[quiz]]\nlabel = \"{lost}\"\nquestion = \"Charged?\"\nchoices = [\"yes\", \"no\"]\nanswer = 1\n"
    );
    let original = parse(&source);
    assert_eq!(original.quizzes.len(), 1);
    // Lose the request of attempt 1 too: no answer to it is ever sent, or lost.
    let added = [lose(0, 1, Direction::Request)];
    let forked = fork::with_faults(&original, &added);
    for d in Design::ALL {
        let story = forked.run(d).expect("simulates");
        assert!(
            !story.told.labels.contains(&lost),
            "{d:?}: the fork still has a tick labelled {lost:?}"
        );
    }
    let text = fork_toml::to_toml(&original, &added).expect("written");
    let saved = parse(&text);
    assert!(saved.quizzes.is_empty(), "{text}");
    assert!(text.contains("A [[quiz]] was taken out"), "{text}");
    assert!(text.contains("# question = \"Charged?\""), "{text}");
}

// ---------------------------------------------------------------- round trip, both TOML forms

/// Faults written inline get the added fault in the same list: a `[[fault]]` after
/// `fault = [...]` would be a duplicate key, and the file unreadable.
#[test]
fn inline_faults_stay_inline() {
    let source = "title = \"inline\"\nfault = [ { attempt = 1, lose = \"reply\" } ]\n\n\
        [[intent]]\norder = \"5531\"\namount = \"$48.60\"\nat = \"14:02:07\"\n";
    let original = parse(source);
    let added = [lose(0, 2, Direction::Reply)];
    let text = fork_toml::to_toml(&original, &added).expect("written");
    assert!(!text.contains("[[fault]]"), "{text}");
    assert!(
        text.starts_with(
            "title = \"inline\"\nfault = [ { attempt = 1, lose = \"reply\" }, { intent = \"5531\", attempt = 2, lose = \"reply\" } ]\n"
        ),
        "{text}"
    );
    let saved = parse(&text);
    assert_eq!(
        config_of(&saved),
        config_of(&fork::with_faults(&original, &added))
    );
}

/// How a list of blocks is written.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// `[[fault]]` blocks.
    Tables,
    /// `fault = [{ … }, { … }]` on the top level.
    Inline,
}

fn form() -> impl Strategy<Value = Form> {
    prop_oneof![Just(Form::Tables), Just(Form::Inline)]
}

/// Writes blocks (each a list of `key = value`) under `key` in `form`: the inline ones go
/// in `top` (before any table), the tables in `rest`.
fn write_blocks(
    key: &str,
    blocks: &[Vec<String>],
    form: Form,
    top: &mut String,
    rest: &mut String,
) {
    if blocks.is_empty() {
        return;
    }
    match form {
        Form::Tables => {
            for b in blocks {
                rest.push_str(&format!("\n[[{key}]]\n{}\n", b.join("\n")));
            }
        }
        Form::Inline => {
            let items: Vec<String> = blocks
                .iter()
                .map(|b| format!("{{ {} }}", b.join(", ")))
                .collect();
            top.push_str(&format!("{key} = [\n  {},\n]\n", items.join(",\n  ")));
        }
    }
}

fn action() -> impl Strategy<Value = FaultAction> {
    let way = prop_oneof![Just(Direction::Request), Just(Direction::Reply)];
    prop_oneof![
        way.clone()
            .prop_map(|direction| FaultAction::Lose { direction }),
        (way.clone(), 1u64..60_000)
            .prop_map(|(direction, by_ms)| FaultAction::Delay { direction, by_ms }),
        (way, 1u64..100)
            .prop_map(|(direction, gap_ms)| FaultAction::Duplicate { direction, gap_ms }),
        (
            prop_oneof![
                Just(CrashPoint::Receive),
                Just(CrashPoint::Key),
                Just(CrashPoint::Charge),
                Just(CrashPoint::Reply)
            ],
            1u64..5_000
        )
            .prop_map(|(after, restart_after_ms)| FaultAction::Crash {
                after,
                restart_after_ms
            }),
        (1u64..60_000).prop_map(|processing_ms| FaultAction::Slow { processing_ms }),
        Just(FaultAction::Decline),
        prop_oneof![Just(FailPoint::Receive), Just(FailPoint::Charge)]
            .prop_map(|after| FaultAction::Fail { after }),
    ]
}

fn fault(intents: usize) -> impl Strategy<Value = Fault> {
    (0..intents, 1u32..=3, action()).prop_map(|(intent, attempt, action)| Fault {
        intent,
        attempt,
        action,
    })
}

/// A fault as the keys of a block.
fn fault_keys(f: &Fault) -> Vec<String> {
    let way = |d: Direction| match d {
        Direction::Request => "\"request\"",
        Direction::Reply => "\"reply\"",
    };
    let mut keys = vec![
        format!("intent = \"o{}\"", f.intent),
        format!("attempt = {}", f.attempt),
    ];
    match f.action {
        FaultAction::Lose { direction } => keys.push(format!("lose = {}", way(direction))),
        FaultAction::Delay { direction, by_ms } => {
            keys.push(format!("delay = {}", way(direction)));
            keys.push(format!("by = \"{by_ms}ms\""));
        }
        FaultAction::Duplicate { direction, gap_ms } => {
            keys.push(format!("duplicate = {}", way(direction)));
            keys.push(format!("gap = \"{gap_ms}ms\""));
        }
        FaultAction::Crash {
            after,
            restart_after_ms,
        } => {
            keys.push(format!("crash_after = \"{}\"", after.id()));
            keys.push(format!("restart_after = \"{restart_after_ms}ms\""));
        }
        FaultAction::Slow { processing_ms } => {
            keys.push(format!("processing = \"{processing_ms}ms\""))
        }
        FaultAction::Decline => keys.push("decline = true".into()),
        FaultAction::Fail { after } => keys.push(format!("fail_after = \"{}\"", after.id())),
    }
    keys
}

/// A scenario of 1–2 intents and 0–3 faults, with an expectation per design that holds, all
/// written in the chosen forms; and 1–2 faults to add.
fn case() -> impl Strategy<Value = (String, Vec<Fault>)> {
    (1usize..=2)
        .prop_flat_map(|n| {
            (
                Just(n),
                prop::collection::vec(fault(n), 0..=3),
                prop::collection::vec(fault(n), 1..=2),
                form(),
                form(),
                any::<bool>(),
            )
        })
        .prop_map(|(n, faults, added, fault_form, expect_form, comment)| {
            let mut top = String::from("title = \"generated\"\n");
            if comment {
                top.push_str("# The trainer's own comment, kept on save.\n");
            }
            let mut rest = String::new();
            for i in 0..n {
                rest.push_str(&format!(
                    "\n[[intent]]\norder = \"o{i}\"\namount = \"$1{i}.00\"\nat = \"14:0{i}:00\"\n"
                ));
            }
            let blocks: Vec<Vec<String>> = faults.iter().map(fault_keys).collect();
            write_blocks("fault", &blocks, fault_form, &mut top, &mut rest);
            // Expectations that hold on the original: what each design does.
            let plain = parse(&format!("{top}{rest}"));
            let mut expects = Vec::new();
            for d in Design::ALL {
                let o = plain.simulate(d).expect("simulates").outcome;
                let mut keys = vec![
                    format!("design = \"{}\"", d.id()),
                    format!("charges = {}", o.charges),
                    format!("verdict = \"{}\"", o.verdict.id()),
                ];
                if let Some(first) = o.intents.first()
                    && o.intents.iter().all(|i| i.client_view == first.client_view)
                {
                    keys.push(format!("client = \"{}\"", first.client_view.label()));
                }
                expects.push(keys);
            }
            write_blocks("expect", &expects, expect_form, &mut top, &mut rest);
            // A note near the end of the original story, which a fault may move out of reach.
            let last = Design::ALL
                .iter()
                .filter_map(|d| plain.simulate(*d).ok()?.ticks.last().map(|t| t.at))
                .max()
                .unwrap_or_default();
            let secs = last.0 / 1000;
            let at = format!(
                "{:02}:{:02}:{:02}",
                secs / 3600 % 24,
                secs / 60 % 60,
                secs % 60
            );
            let note = vec![
                format!("at = \"{at}\""),
                "text = \"near the end\"".to_string(),
            ];
            write_blocks("note", &[note], expect_form, &mut top, &mut rest);
            (format!("{top}{rest}"), added)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Fork, save, read back: the same story, and every expectation holds.
    #[test]
    fn a_saved_what_if_reads_back_as_the_same_story((source, added) in case()) {
        let original = parse(&source);
        let dir = TempDir::new("fork-prop");
        prop_assert_eq!(check_text(&dir, &source).exit, 0, "the generated file passes");
        let text = fork_toml::to_toml(&original, &added).expect("written");
        let saved = scenario::parse("saved.toml", "t", &text)
            .unwrap_or_else(|e| panic!("{e}\n---\n{text}"));
        let forked = fork::with_faults(&original, &added);
        prop_assert_eq!(config_of(&saved), config_of(&forked), "{}", text);
        let out = check_text(&dir, &text);
        prop_assert_eq!(out.exit, 0, "{}{}\n---\n{}", out.text, out.errors, text);
        // Saving the saved file again with nothing added changes nothing.
        prop_assert_eq!(fork_toml::to_toml(&saved, &[]).expect("written"), text.clone());
        if source.contains("# The trainer's own comment") {
            prop_assert!(text.contains("# The trainer's own comment, kept on save."));
        }
    }
}

/// A what-if saved after the replay changed how keys are chosen (`K` for the checkout, `m`
/// for the steps after payment) is saved with those choices, so the file tells the story that
/// was on screen and its expectations hold.
#[test]
fn a_saved_what_if_keeps_the_key_choices_made_in_the_replay() {
    use idem::sim::config::{KeyMode, KeyStrategy, LayerKey};
    let added = [lose(0, 1, Direction::Request)];

    let mut original = scenario::resolve("reply-lost").expect("built in");
    original.config.set_key_strategy(KeyStrategy::PerAttempt);
    let text = fork_toml::to_toml(&original, &added).expect("written");
    let saved = parse(&text);
    assert_eq!(saved.config.key_strategy, KeyStrategy::PerAttempt);
    assert_eq!(
        config_of(&saved),
        config_of(&fork::with_faults(&original, &added))
    );
    let dir = TempDir::new("fork-keys");
    let out = check_text(&dir, &text);
    assert_eq!(out.exit, 0, "{}{}\n---\n{text}", out.text, out.errors);

    // Layers that handled the key their own way go back to the strategy's default.
    let layered = "title = \"layers\"\n\
        [[checkout.layer]]\nname = \"gateway\"\nattempts = 2\nkey = \"none\"\n\
        [[checkout.layer]]\nname = \"app\"\nattempts = 2\nkey = \"per-attempt\"\n\
        [[intent]]\norder = \"5531\"\namount = \"$48.60\"\nat = \"14:02:07\"\n";
    let mut original = parse(layered);
    original.config.set_key_strategy(KeyStrategy::PerIntent);
    let text = fork_toml::to_toml(&original, &added).expect("written");
    let saved = parse(&text);
    assert!(
        saved
            .config
            .layers
            .iter()
            .all(|l| l.key == LayerKey::Forward),
        "{text}"
    );
    assert!(
        text.contains("name = \"app\""),
        "the layers themselves stay: {text}"
    );

    let mut original = scenario::resolve("courier-retry").expect("built in");
    for step in &mut original.config.steps {
        step.key_mode = KeyMode::None;
    }
    let text = fork_toml::to_toml(&original, &added).expect("written");
    let saved = parse(&text);
    assert!(
        saved
            .config
            .steps
            .iter()
            .all(|s| s.key_mode == KeyMode::None),
        "{text}"
    );

    // Nothing changed: the file's own choices are left as written.
    let original = parse(layered);
    let text = fork_toml::to_toml(&original, &added).expect("written");
    assert!(text.contains("key = \"per-attempt\""), "{text}");
    assert!(!text.contains("key_strategy"), "{text}");
}
