//! A story's `[[narration]]` blocks may add only so much text in all: a text counts once for
//! every tick it lands on, so a label that matches hundreds of ticks cannot turn a small file
//! into gigabytes of story.

use crate::common;

use common::{TempDir, run_idem_in};
use idem::scenario::MAX_TOLD_BYTES;
use idem::sim::Design;

/// A processor that crashes on every attempt of every intent: the label `crashes` lands on
/// many ticks. `text` is appended to each of them.
fn crashing(text: &str) -> String {
    let mut out = String::from(
        "title = \"Crashes all day\"\n\n[[checkout.layer]]\nattempts = 6\ntimeout = \"30s\"\nbackoff = \"1s\"\n\n",
    );
    for i in 0..4 {
        out.push_str(&format!(
            "[[intent]]\norder = \"{}\"\nkey = \"K{i}\"\namount = \"$1.00\"\nat = \"10:00:{:02}\"\n\n",
            100 + i,
            i * 10
        ));
    }
    for i in 0..4 {
        for a in 1..=6 {
            out.push_str(&format!(
                "[[fault]]\nintent = \"{}\"\nattempt = {a}\ncrash_after = \"receive\"\nrestart_after = \"1s\"\n\n",
                100 + i
            ));
        }
    }
    out.push_str(&format!(
        "[[narration]]\nlabel = \"crashes\"\nmode = \"append\"\ntext = \"{text}\"\n"
    ));
    out
}

/// The most ticks labelled `crashes` under any design.
fn most_crashes() -> usize {
    let scenario = idem::scenario::parse("probe.toml", "probe", &crashing("x"))
        .expect("the probe scenario loads");
    Design::ALL
        .iter()
        .map(|d| {
            let trace = scenario.simulate(*d).expect("the probe simulates");
            idem::story::tell(&scenario.config, &trace)
                .labels
                .iter()
                .filter(|l| *l == "crashes")
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// The line and column (both from 1) where the narration's text value opens.
fn text_position(source: &str) -> (usize, usize) {
    let (n, line) = source
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("text = "))
        .expect("the file has a text");
    (n + 1, line.find('"').expect("a quoted text") + 1)
}

#[test]
fn a_narration_just_over_the_bound_is_refused_at_its_text() {
    let ticks = most_crashes();
    assert!(ticks > 10, "the probe crashes often: {ticks}");
    let source = crashing(&"x".repeat(MAX_TOLD_BYTES / ticks + 1));
    let dir = TempDir::new("narration-over");
    let path = dir.write("over.toml", &source);
    let path = path.to_str().expect("a UTF-8 path");
    let out = run_idem_in(None, &["check", path]);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(out.status.code(), Some(0), "{all}");
    let (line, column) = text_position(&source);
    assert!(all.contains(&format!("over.toml:{line}:{column}")), "{all}");
    assert!(all.contains("4.0 MiB (4,194,304 bytes)"), "{all}");
    assert!(all.contains(&format!("matches {ticks} ticks")), "{all}");
    assert!(all.contains("narrow the label"), "{all}");
    assert!(all.contains("shorten the text"), "{all}");
    // Every loader refuses it, not only `idem check`.
    assert!(idem::scenario::parse("over.toml", "over", &source).is_err());
}

#[test]
fn a_narration_just_under_the_bound_is_accepted_and_runs() {
    let ticks = most_crashes();
    let source = crashing(&"x".repeat(MAX_TOLD_BYTES / ticks));
    let dir = TempDir::new("narration-under");
    let path = dir.write("under.toml", &source);
    let path = path.to_str().expect("a UTF-8 path");
    let check = run_idem_in(None, &["check", path]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let run = run_idem_in(None, &["run", path, "--json"]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json = String::from_utf8_lossy(&run.stdout);
    assert!(
        json.contains("\"label\": \"crashes\""),
        "the run tells the crashes"
    );
    assert!(json.trim_end().ends_with('}'), "the JSON is complete");
}

#[test]
fn one_blocks_text_is_held_once_for_every_tick_it_lands_on() {
    let scenario = idem::scenario::parse("shared.toml", "shared", &crashing("Again."))
        .expect("the scenario loads");
    let story = scenario.run(Design::NoKey).expect("it simulates");
    let own: Vec<&std::sync::Arc<str>> = story.told.trainer.iter().flatten().collect();
    assert!(
        own.len() > 10,
        "the label lands on many ticks: {}",
        own.len()
    );
    for words in &own {
        assert_eq!(&***words, "Again.");
        assert!(
            std::sync::Arc::ptr_eq(words, &scenario.narration[0].text),
            "each tick shares the block's text rather than copying it"
        );
    }
}
