//! Every claim the story makes holds of its trace, for every built-in and every file under
//! `scenarios/`, under every design, every way `K` keys the checkout and every way `m` keys the
//! steps after payment; the counters keep their identities on every tick; and the sentences
//! that were false in combinations nobody had tried are true now, one test each.

use crate::common;

use common::inline::{ORDER, one_layer};
use idem::scenario::{self, Scenario, library};
use idem::sim::Design;
use idem::sim::config::{KeyMode, KeyStrategy};
use idem::sim::fact::Fact;
use idem::story::{Claim, Story, Told};

fn parse(source: &str) -> Scenario {
    scenario::parse("inline.toml", "inline", source)
        .unwrap_or_else(|e| panic!("the inline scenario does not parse:\n{e}\n---\n{source}"))
}

fn builtin(name: &str) -> Scenario {
    library::find(name)
        .unwrap_or_else(|| panic!("no built-in {name}"))
        .load()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn run(s: &Scenario, design: Design) -> Story {
    s.run(design).unwrap_or_else(|e| panic!("{design}: {e}"))
}

/// The ticks a question stops at, for this run.
fn questions(s: &Scenario, story: &Story) -> Vec<usize> {
    s.quizzes
        .iter()
        .filter_map(|q| q.target.find(&story.trace, &story.told))
        .collect()
}

/// Every rule of this file, on one run: the claims, hindsight before the questions, the
/// counters. Returns the number of claims checked.
fn every_rule(name: &str, s: &Scenario, story: &Story) -> usize {
    let n =
        common::claims::check(&story.trace, &story.told).unwrap_or_else(|e| panic!("{name}: {e}"));
    common::claims::no_hindsight_before(&story.trace, &story.told, &questions(s, story))
        .unwrap_or_else(|e| panic!("{name}, {}: {e}", story.trace.design));
    common::claims::counters_add_up(&story.trace).unwrap_or_else(|e| panic!("{name}: {e}"));
    common::claims::labels_name_one_thing(&story.trace, &story.told.labels)
        .unwrap_or_else(|e| panic!("{name}, {}: {e}", story.trace.design));
    n
}

#[test]
fn every_sentence_of_every_scenario_carries_a_claim() {
    let mut sentences = 0;
    for (name, s) in common::every_scenario() {
        for design in Design::ALL {
            let story = run(&s, design);
            for (i, said) in story.told.sentences.iter().enumerate() {
                for sentence in said {
                    assert!(
                        !sentence.claims.is_empty(),
                        "{name}, {design}, tick {i} `{}`: {:?} carries no claim",
                        story.told.labels[i],
                        sentence.text
                    );
                    sentences += 1;
                }
            }
        }
    }
    assert!(sentences > 1_000, "{sentences}");
}

#[test]
fn every_scenario_every_design_every_key_strategy_and_step_keys_makes_no_false_claim() {
    let mut checked = 0;
    for (name, s) in common::every_scenario() {
        let mut variants: Vec<(String, Scenario)> = vec![("as written".into(), s.clone())];
        for strategy in [
            KeyStrategy::PerIntent,
            KeyStrategy::PerAttempt,
            KeyStrategy::None,
        ] {
            let mut v = s.clone();
            v.config.set_key_strategy(strategy);
            variants.push((format!("K {strategy:?}"), v));
        }
        if !s.config.steps.is_empty() {
            for (label, base) in variants.clone() {
                for mode in KeyMode::ALL {
                    let mut v = base.clone();
                    for step in &mut v.config.steps {
                        step.key_mode = mode;
                    }
                    variants.push((format!("{label}, m {mode:?}"), v));
                }
            }
        }
        for (how, v) in &variants {
            for design in Design::ALL {
                checked += every_rule(&format!("{name} ({how})"), v, &run(v, design));
            }
        }
    }
    assert!(checked > 1000, "only {checked} claims were checked");
}

// ------------------------------------------------------------ the eleven, one test each

fn narration_of(story: &Story, pick: impl Fn(&Fact) -> bool) -> Vec<String> {
    story
        .trace
        .ticks
        .iter()
        .zip(&story.told.narrations)
        .filter(|(t, _)| pick(&t.fact))
        .map(|(_, n)| n.clone())
        .collect()
}

/// A one-layer checkout that looks the key up before retrying, with the answer to attempt 1
/// lost and no question to hold hindsight back.
fn lookup_story() -> Scenario {
    parse(&one_layer(
        3,
        "backoff = \"1s\"",
        "[checkout]\nlookup = true\n[[fault]]\nattempt = 1\nlose = \"reply\"\n",
    ))
}

#[test]
fn item_1_after_a_lookup_finds_the_payment_no_second_attempt_is_promised() {
    let story = run(&lookup_story(), Design::WithCharge);
    let timeout = narration_of(&story, |f| matches!(f, Fact::TimedOut { .. }));
    assert!(
        !timeout[0].contains("tries again"),
        "the timeout promises a retry the lookup makes needless: {}",
        timeout[0]
    );
    assert!(timeout[0].contains("asks the processor"), "{}", timeout[0]);
    let lost = narration_of(&story, |f| matches!(f, Fact::LostReply { .. }));
    assert!(
        !lost[0].contains("another attempt's answer") && lost[0].contains("looks K7Q4 up"),
        "{}",
        lost[0]
    );
    every_rule("lookup", &lookup_story(), &story);
}

#[test]
fn item_2_a_409_after_the_crash_says_the_work_is_gone_not_going_on() {
    let s = builtin("inprogress-crash");
    let story = run(&s, Design::InProgressRecord);
    let reads = narration_of(&story, |f| matches!(f, Fact::Read { .. }));
    let conflict = reads
        .iter()
        .find(|n| n.contains("409"))
        .expect("the checkout reads a 409");
    assert!(!conflict.contains("still working"), "{conflict}");
    assert!(conflict.contains("no work stands behind it"), "{conflict}");
    let glossary = idem::story::glossary::TERMS
        .iter()
        .find(|(t, _)| *t == "in progress")
        .map(|(_, m)| *m)
        .unwrap_or_default();
    assert!(glossary.contains("outlive"), "{glossary}");
    every_rule("inprogress-crash", &s, &story);
}

#[test]
fn item_3_a_declined_card_whose_answer_is_lost_is_not_called_a_charge() {
    let s = parse(&one_layer(
        3,
        "backoff = \"1s\"",
        "[[fault]]\nattempt = 1\ndecline = true\n[[fault]]\nattempt = 1\nlose = \"reply\"\n",
    ));
    for design in Design::ALL {
        let story = run(&s, design);
        for n in narration_of(&story, |f| matches!(f, Fact::LostReply { .. })) {
            assert!(
                !n.contains("does not mean the charge failed"),
                "{design}: {n}"
            );
        }
        every_rule("decline + lost answer", &s, &story);
    }
}

#[test]
fn item_4_a_handler_that_fails_on_receipt_does_not_start_charging() {
    let s = parse(&one_layer(
        3,
        "backoff = \"1s\"",
        "[[fault]]\nattempt = 1\nfail_after = \"receive\"\n",
    ));
    for design in Design::ALL {
        let story = run(&s, design);
        let takes = &story.told.narrations[story
            .trace
            .ticks
            .iter()
            .position(|t| matches!(t.fact, Fact::Takes { .. }))
            .expect("attempt 1 is taken on")];
        assert!(!takes.contains("starts charging"), "{design}: {takes}");
        assert!(!takes.contains("that takes"), "{design}: {takes}");
        every_rule("fail_after receive", &s, &story);
    }
}

#[test]
fn item_5_a_late_first_attempt_overwrites_the_completed_record_and_says_so() {
    // Attempt 1 takes 45 s; its in-progress record expires after 10 s, so attempt 2 charges
    // and completes the record first, and attempt 1 then writes over it.
    let s = parse(&one_layer(
        3,
        "backoff = \"1s\"",
        "[processor]\nin_progress_expiry = \"10s\"\n[[fault]]\nattempt = 1\nprocessing = \"45s\"\n",
    ));
    let story = run(&s, Design::InProgressRecord);
    let completes = narration_of(&story, |f| matches!(f, Fact::RecordCompleted { .. }));
    assert!(completes.len() >= 2, "{completes:#?}");
    let late = completes.last().expect("a late completion");
    assert!(late.contains("over the record"), "{late}");
    assert!(
        late.contains("already completed with 200 charged ch_"),
        "{late}"
    );
    let overwrote = story.told.sentences.iter().flatten().any(|s| {
        s.claims
            .iter()
            .any(|c| matches!(c, Claim::Overwrites { .. }))
    });
    assert!(overwrote);
    // One key, however many times its record was written.
    let last = story.trace.ticks.last().expect("ticks");
    assert_eq!(
        last.state.counters.keys_stored - last.state.counters.keys_evicted,
        last.state.memory.len() as u32
    );
    every_rule("late first attempt", &s, &story);
}

#[test]
fn item_6_the_outcome_line_after_a_reconciliation_tells_what_the_job_did() {
    let s = builtin("nightly-reconcile");
    for design in Design::ALL {
        let story = run(&s, design);
        let meaning = idem::story::outcome::verdict_meaning(&story.trace.outcome);
        let reconciled = story.trace.outcome.intents.iter().any(|i| {
            i.reconcile
                .as_ref()
                .is_some_and(|r| r.refunds > 0 || r.marked_paid || r.alert)
        });
        if reconciled {
            assert!(
                !meaning.contains("does not know it")
                    && !meaning.contains("thinks it was paid and no money moved\""),
                "{design}: {meaning}"
            );
            assert!(meaning.contains("reconciliation"), "{design}: {meaning}");
        }
    }
    let marked = parse(&one_layer(
        1,
        "",
        "[reconcile]\nat = \"02:00\"\nunconfirmed = \"mark-paid\"\n[[fault]]\nattempt = 1\nlose = \"reply\"\n",
    ));
    let story = run(&marked, Design::WithCharge);
    let mark = narration_of(&story, |f| matches!(f, Fact::MarkPaid { .. }));
    assert!(!mark[0].contains("can now ship"), "{}", mark[0]);
    let meaning = idem::story::outcome::verdict_meaning(&story.trace.outcome);
    assert!(meaning.contains("marked the order paid"), "{meaning}");
    every_rule("mark-paid", &marked, &story);
}

#[test]
fn item_7_the_counters_add_up_on_every_tick() {
    for name in [
        "inprogress-crash",
        "powertools-handler-error",
        "lookup-first",
    ] {
        let s = builtin(name);
        for design in Design::ALL {
            common::claims::counters_add_up(&run(&s, design).trace)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
    // content-hash's 400 is a refusal, not an answer from memory.
    let s = parse(&one_layer(
        3,
        "backoff = \"1s\"",
        "[[fault]]\nattempt = 1\nlose = \"reply\"\n",
    ));
    let story = run(&s, Design::ContentHash);
    let c = story.trace.outcome.counters;
    assert_eq!((c.dedupe_hits, c.refusals_400), (0, 1));
    // A lookup that found the payment is a hit.
    let story = run(&lookup_story(), Design::WithCharge);
    assert_eq!(story.trace.outcome.counters.dedupe_hits, 1);
}

#[test]
fn item_8_a_key_that_expired_is_not_called_remembered() {
    let s = builtin("inprogress-crash");
    for design in Design::ALL {
        let story = run(&s, design);
        for n in &story.told.narrations {
            assert!(!n.contains("new again, so it"), "{design}: {n}");
        }
        every_rule("inprogress-crash", &s, &story);
    }
}

#[test]
fn item_9_tick_1_keeps_the_answer_to_a_later_question() {
    for name in ["per-attempt-key", "mobile-gateway"] {
        let s = builtin(name);
        assert!(!s.quizzes.is_empty(), "{name} asks a question");
        for design in Design::ALL {
            let story = run(&s, design);
            assert!(
                !story.told.narrations[0].contains("brand-new purchase"),
                "{name}, {design}: {}",
                story.told.narrations[0]
            );
        }
    }
}

#[test]
fn item_10_an_appended_narration_on_a_question_tick_shows_the_trainers_words_alone() {
    let s = parse(&one_layer(
        3,
        "backoff = \"1s\"",
        "[[fault]]\nattempt = 1\nlose = \"reply\"\n\
         [[narration]]\nlabel = \"answer to #1 lost\"\nmode = \"append\"\ntext = \"Nobody knows yet.\"\n\
         [[quiz]]\nlabel = \"answer to #1 lost\"\nquestion = \"How many charges?\"\nchoices = [\"Once\", \"Twice\"]\nanswer = \"charges\"\nexplanation = \"It depends.\"\n",
    ));
    let story = run(&s, Design::WithCharge);
    let at = story
        .told
        .labels
        .iter()
        .position(|l| l == "answer to #1 lost")
        .expect("the lost answer");
    assert_eq!(story.told.trainer[at].as_deref(), Some("Nobody knows yet."));
    assert!(story.told.narrations[at].ends_with("Nobody knows yet."));
}

#[test]
fn item_11_each_services_ticks_have_labels_of_their_own() {
    let s = builtin("courier-retry");
    for design in Design::ALL {
        let story = run(&s, design);
        let timeouts: Vec<&String> = story
            .trace
            .ticks
            .iter()
            .zip(&story.told.labels)
            .filter(|(t, _)| matches!(t.fact, Fact::TimedOut { .. } | Fact::CallTimedOut { .. }))
            .map(|(_, l)| l)
            .collect();
        let mut unique = timeouts.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), timeouts.len(), "{design}: {timeouts:?}");
        assert!(
            story
                .told
                .labels
                .iter()
                .any(|l| l == "courier: no answer to try 1"),
            "{design}: {:?}",
            story.told.labels
        );
    }
}

#[test]
fn the_checker_can_fail() {
    // A claim that is false of the trace is caught: the checker is not a rubber stamp.
    let story = run(&lookup_story(), Design::NoKey);
    let charge = story.trace.outcome.charges;
    assert!(charge > 0);
    let id = story.trace.ticks.last().expect("ticks").state.ledger()[0].id;
    let false_claim = Claim::NeverHears { charge: id };
    let heard = story.trace.ticks.iter().any(|t| match &t.fact {
        Fact::Read { reply, .. } => story.trace.replies[*reply].response.charge == Some(id),
        _ => false,
    });
    assert_eq!(
        common::claims::holds(&story.trace, &false_claim).is_ok(),
        !heard
    );
    let wrong = Claim::NextIsLookup {
        intent: 0,
        after: story.trace.ticks.len() - 1,
        at: story.trace.ticks[0].at,
    };
    assert!(common::claims::holds(&story.trace, &wrong).is_err());
    let _ = ORDER;
}

// ------------------------------------------------- the fix K and m show, checked like the rest

#[test]
fn idem_run_keys_the_story_as_k_and_m_do() {
    let out = common::run_idem_in(
        None,
        &[
            "run",
            "per-attempt-key",
            "--design",
            "with-charge",
            "--key-strategy",
            "per-intent",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(text.contains("Verdict: correct"), "{text}");
    let out = common::run_idem_in(
        None,
        &[
            "run",
            "courier-retry",
            "--design",
            "with-charge",
            "--step-keys",
            "none",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("courier booked twice"), "{text}");
    // m needs steps to key.
    let out = common::run_idem_in(None, &["run", "order-5531", "--step-keys", "none"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no [[step]]"));
}

#[test]
fn an_expectation_under_k_is_checked_against_the_rekeyed_run() {
    let dir = std::env::temp_dir().join(common::unique_name("expect-keys"));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let write = |name: &str, expect: &str| {
        let path = dir.join(name);
        let body = one_layer(
            3,
            "backoff = \"1s\"\nkey = \"per-attempt\"",
            &format!(
                "[[fault]]\nattempt = 1\nlose = \"reply\"\n[[expect]]\ndesign = \"with-charge\"\n{expect}\n"
            ),
        );
        std::fs::write(&path, body).expect("the scenario is written");
        path.display().to_string()
    };
    let fixed = write("fixed.toml", "key_strategy = \"per-intent\"\ncharges = 1");
    let out = common::run_idem_in(None, &["check", &fixed]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("one key per order"));
    // The same claim without K is false of the file's own keys, and check says so.
    let broken = write("broken.toml", "charges = 1");
    let out = common::run_idem_in(None, &["check", &broken]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let no_steps = write("no-steps.toml", "step_keys = \"none\"\ncharges = 1");
    let out = common::run_idem_in(None, &["check", &no_steps]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no [[step]]"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A lost answer, a question at the retry, and the trainer's own words on three ticks.
const TRAINER_BLOCKS: &str = r#"
[[fault]]
attempt = 1
lose = "reply"

[[quiz]]
at = "14:02:38"
question = "How many charges?"
choices = ["None", "One", "Two"]
answer = "charges"

[[narration]]
label = "charge $48.60 key K7Q4 #1"
text = "First the trainer's words."
mode = "replace"

[[narration]]
label = "charge $48.60 key K7Q4 #1"
text = "Then more of them."
mode = "append"

[[narration]]
at = "14:02:38"
text = "The retry leaves."
mode = "append"
"#;

/// Every scenario of [`common::every_scenario`] and one with [`TRAINER_BLOCKS`], each run
/// under every design and told whole, handed to `check` with its name.
fn each_run_told(mut check: impl FnMut(&str, &Scenario, &idem::sim::Trace, &Told)) {
    let mut all = common::every_scenario();
    let text = one_layer(3, "backoff = \"1s\"", TRAINER_BLOCKS);
    let own = scenario::parse("own.toml", "own", &text).unwrap_or_else(|e| panic!("{e}"));
    all.push(("own".into(), own));
    for (name, s) in &all {
        for design in Design::ALL {
            let trace = s.simulate(design).unwrap_or_else(|e| panic!("{name}: {e}"));
            check(name, s, &trace, &s.tell(&trace));
        }
    }
}

/// `idem run --json` tells a story a tick at a time (`Scenario::tell_each`) rather than whole
/// (`Scenario::tell`): the two must give every tick the same label and narration, with the
/// hindsight held back before questions and the trainer's blocks applied.
#[test]
fn telling_tick_by_tick_gives_the_same_words_as_telling_whole() {
    let mut ticks = 0;
    let mut rewritten = 0;
    each_run_told(|name, s, trace, whole| {
        let design = trace.design;
        rewritten += whole.rewritten.len();
        let mut seen = 0;
        s.tell_each(trace, |i, label, narration, own| {
            assert_eq!(i, seen, "{name}, {design}: ticks in order");
            assert_eq!(label, whole.labels[i], "{name}, {design}, tick {i}");
            assert_eq!(narration, whole.narrations[i], "{name}, {design}, tick {i}");
            assert_eq!(
                own,
                whole.trainer[i].is_some(),
                "{name}, {design}, tick {i}"
            );
            seen += 1;
        });
        assert_eq!(seen, trace.ticks.len(), "{name}, {design}");
        ticks += seen;
    });
    assert!(ticks > 1_000, "{ticks}");
    assert!(
        rewritten >= 6 * 2,
        "the trainer's blocks were applied: {rewritten}"
    );
}

/// The replay draws its first frame from the opening's words (`Scenario::tell_opening`),
/// then tells the rest: up to the tick it is told through, the opening must be the whole
/// story's words, the trainer's blocks and the hindsight held back included, and after it
/// differ only in the narrations, sentences and shorter arrow labels it leaves empty.
#[test]
fn the_opening_is_the_whole_story_up_to_its_tick() {
    // The words an opening tells up to its tick alone, over `ticks`.
    let words = |t: &Told, ticks: std::ops::Range<usize>| {
        (
            t.narrations[ticks.clone()].to_vec(),
            t.sentences[ticks.clone()].to_vec(),
            t.arrows_short[ticks].to_vec(),
        )
    };
    // Everything else.
    let rest = |t: Told| Told {
        narrations: Vec::new(),
        sentences: Vec::new(),
        arrows_short: Vec::new(),
        ..t
    };
    let mut compared = 0;
    each_run_told(|name, s, trace, whole| {
        let n = trace.ticks.len();
        for through in [0, 1, n / 2, n.saturating_sub(1), n + 3] {
            let opening = s.tell_opening(trace, through);
            let at = format!("{name}, {}, through tick {through}", trace.design);
            let kept = (through + 1).min(n);
            assert_eq!(words(&opening, 0..kept), words(whole, 0..kept), "{at}");
            let untold = n - kept;
            let empty = (
                vec![String::new(); untold],
                vec![Vec::new(); untold],
                vec![Vec::new(); untold],
            );
            assert_eq!(words(&opening, kept..n), empty, "{at}");
            assert_eq!(rest(opening), rest(whole.clone()), "{at}");
            compared += 1;
        }
    });
    assert!(compared > 100, "{compared}");
}
