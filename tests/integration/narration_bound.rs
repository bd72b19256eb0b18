//! A story's `[[narration]]` blocks may add only so much text in all: a text counts once for
//! every tick it lands on, so blocks on hundreds of ticks cannot turn a small file into
//! gigabytes of story. Every label names one tick (a repeat gets its count, `crashes (2nd)`),
//! so the probe puts a block on each crash's label.

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
    for n in 1..=24 {
        out.push_str(&format!(
            "[[narration]]\nlabel = \"{}\"\nmode = \"append\"\ntext = \"{text}\"\n\n",
            crash_label(n)
        ));
    }
    out
}

/// The label of the `n`th crash of a run: `crashes`, `crashes (2nd)`, …
fn crash_label(n: u32) -> String {
    match n {
        1 => "crashes".to_string(),
        n => format!("crashes ({})", idem::story::ordinal(n)),
    }
}

/// The most ticks labelled as a crash under any design.
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
                .filter(|l| l.starts_with("crashes"))
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// The line and column (both from 1) where the text value of the block aimed at the `n`th
/// crash opens.
fn text_position(source: &str, n: usize) -> (usize, usize) {
    let (n, line) = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("text = "))
        .nth(n - 1)
        .expect("the file has the text");
    (n + 1, line.find('"').expect("a quoted text") + 1)
}

// A file is read only up to 1 MiB, and each block lands on one tick, so no file can reach the
// bound: it guards the loader itself, which these tests call in-process with a larger text.

#[test]
fn a_narration_just_over_the_bound_is_refused_at_its_text() {
    let ticks = most_crashes();
    assert!(ticks > 10, "the probe crashes often: {ticks}");
    let source = crashing(&"x".repeat(MAX_TOLD_BYTES / ticks + 1));
    let all = match idem::scenario::parse("over.toml", "over", &source) {
        Ok(_) => panic!("a story over the bound was accepted"),
        Err(e) => e.to_string(),
    };
    // The block that takes the story over the bound is the one aimed at its last crash.
    let (line, column) = text_position(&source, ticks);
    assert!(all.contains(&format!("over.toml:{line}:{column}")), "{all}");
    assert!(all.contains("4.0 MiB (4,194,304 bytes)"), "{all}");
    let label = crash_label(u32::try_from(ticks).expect("a few crashes"));
    assert!(
        all.contains(&format!("the label `{label}` matches 1 tick")),
        "{all}"
    );
    assert!(all.contains("narrow the label"), "{all}");
    assert!(all.contains("shorten the text"), "{all}");
}

#[test]
fn a_narration_just_under_the_bound_is_accepted_and_runs() {
    let ticks = most_crashes();
    let source = crashing(&"x".repeat(MAX_TOLD_BYTES / ticks));
    let scenario =
        idem::scenario::parse("under.toml", "under", &source).unwrap_or_else(|e| panic!("{e}"));
    for design in Design::ALL {
        let story = scenario.run(design).expect("it simulates");
        assert!(story.told.labels.iter().any(|l| l == "crashes"), "{design}");
        let mut told = 0;
        scenario.tell_each(&story.trace, |_, _, narration, _| told += narration.len());
        assert!(told > 0, "{design}: the run tells its ticks");
    }
}

#[test]
fn one_blocks_text_is_held_once_for_every_tick_it_lands_on() {
    let scenario = idem::scenario::parse("shared.toml", "shared", &crashing("Again."))
        .expect("the scenario loads");
    let story = scenario.run(Design::NoKey).expect("it simulates");
    let own: Vec<&std::sync::Arc<str>> = story.told.trainer.iter().flatten().collect();
    assert!(
        own.len() > 10,
        "the blocks land on many ticks: {}",
        own.len()
    );
    for words in &own {
        assert_eq!(&***words, "Again.");
        assert!(
            scenario
                .narration
                .iter()
                .any(|block| std::sync::Arc::ptr_eq(words, &block.text)),
            "each tick shares its block's text rather than copying it"
        );
    }
}
