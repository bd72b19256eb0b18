//! Large valid inputs cost what they must and no more: a recording too long is refused before
//! the whole replay is prepared, a session that names one scenario many times simulates it
//! once, and a handout of a story too long for one is refused after one run. What a long story
//! costs a process in memory is measured in `tests/memory.rs`, a test binary of its own.

use crate::common;

use common::TempDir;
use common::inline::every_attempt_lost;
use idem::cli::export::{ExportArgs, run};
use idem::export::Format;
use idem::sim::runs_on_this_thread;
use std::fmt::Write;

#[test]
fn a_recording_too_long_is_refused_after_one_simulation() {
    let dir = TempDir::new("cast-long");
    let path = dir.write("long.toml", &every_attempt_lost(10));
    let out = dir.join("long.cast");
    let before = runs_on_this_thread();
    let err = run(&ExportArgs::new(
        path.to_str().expect("a UTF-8 path"),
        Format::Cast,
        &out,
    ))
    .expect_err("too long to record");
    assert!(
        err.text().contains("a recording is limited"),
        "{}",
        err.text()
    );
    assert_eq!(
        runs_on_this_thread() - before,
        1,
        "only the recorded design is simulated before the refusal"
    );
    assert!(!out.exists());
}

#[test]
fn a_handout_too_long_is_refused_after_one_simulation() {
    let dir = TempDir::new("md-long");
    // About 19,000 ticks a design: past what a handout covers.
    let path = dir.write("long.toml", &every_attempt_lost(50));
    let out = dir.join("long.md");
    for audience in idem::export::Audience::NAMES {
        let before = runs_on_this_thread();
        let mut args = ExportArgs::new(path.to_str().expect("a UTF-8 path"), Format::Md, &out);
        args.handout = Some(audience.parse().expect("a handout"));
        let err = run(&args).expect_err("too long for a handout");
        assert!(
            err.text().contains("a handout covers at most 10000 ticks"),
            "{}",
            err.text()
        );
        assert_eq!(
            runs_on_this_thread() - before,
            1,
            "only the opening design is simulated before the refusal"
        );
        assert!(!out.exists());
    }
    // A session that names it says which part is too long.
    let session = dir.write(
        "session.toml",
        "title = \"Long\"\n\n[[section]]\nscenario = \"reply-lost\"\n\n[[section]]\nscenario = \"long.toml\"\n",
    );
    let err = run(&ExportArgs::new(
        session.to_str().expect("a UTF-8 path"),
        Format::Md,
        &out,
    ))
    .expect_err("part 2 is too long");
    assert!(err.text().contains("part 2 (long)"), "{}", err.text());
    assert!(!out.exists());
}

#[test]
fn a_session_simulates_each_scenario_it_names_once() {
    let dir = TempDir::new("session-once");
    dir.write("twice.toml", &every_attempt_lost(3));
    let mut session = String::from("title = \"Again and again\"\n");
    for named in [
        "twice.toml",
        "reply-lost",
        "twice.toml",
        "twice.toml",
        "reply-lost",
    ] {
        let _ = write!(session, "\n[[section]]\nscenario = \"{named}\"\n");
    }
    let path = dir.write("session.toml", &session);
    let out = dir.join("session.md");
    // Loading a built-in may simulate it (to check what its narration points at): once.
    let before = runs_on_this_thread();
    idem::present::playlist::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let loading = runs_on_this_thread() - before;
    assert!(loading <= idem::sim::Design::ALL.len() as u64, "{loading}");
    let before = runs_on_this_thread();
    run(&ExportArgs::new(
        path.to_str().expect("a UTF-8 path"),
        Format::Md,
        &out,
    ))
    .unwrap_or_else(|e| panic!("{}", e.text()));
    let designs = idem::sim::Design::ALL.len() as u64;
    assert_eq!(
        runs_on_this_thread() - before,
        loading + 2 * designs,
        "two scenarios, each under every design"
    );
    let md = std::fs::read_to_string(&out).expect("written");
    for part in 1..=5 {
        assert!(md.contains(&format!("# Part {part}:")), "part {part}");
    }
    // The same scenario makes the same part wherever it comes back.
    let parts: Vec<&str> = md.split("# Part ").skip(1).collect();
    let body = |p: &str| p.split_once('\n').map(|(_, b)| b.to_string());
    assert!(body(parts[0]) == body(parts[2]) && body(parts[2]) == body(parts[3]));
    assert!(body(parts[1]).is_some_and(|b| b.starts_with(&body(parts[4]).unwrap_or_default())));
}

/// Fifty parts, each the full handout of a long story under one of three designs: the handout
/// would pass the bound, and is refused with the shorter forms that work, which do.
#[test]
fn a_session_handout_past_its_bound_is_refused_with_what_works() {
    let dir = TempDir::new("session-fifty");
    dir.write("long.toml", &every_attempt_lost(2));
    let mut session = String::from("title = \"Fifty parts\"\n");
    for i in 0..50 {
        let design = ["no-key", "with-charge", "content-hash"][i % 3];
        let _ = write!(
            session,
            "\n[[section]]\ntitle = \"Part {i}\"\nscenario = \"long.toml\"\ndesign = \"{design}\"\n"
        );
    }
    let path = dir.write("fifty.toml", &session);
    let out = dir.join("fifty.md");
    let mut full = ExportArgs::new(path.to_str().expect("a UTF-8 path"), Format::Md, &out);
    full.handout = Some(idem::export::markdown::Audience::Students);
    let err = run(&full).expect_err("too long");
    assert!(
        err.text().contains("passes 16 MB") && err.text().contains("--handout compact"),
        "{}",
        err.text()
    );
    assert!(!out.exists());
    let mut compact = ExportArgs::new(path.to_str().expect("a UTF-8 path"), Format::Md, &out);
    compact.handout = Some(idem::export::markdown::Audience::Compact);
    run(&compact).unwrap_or_else(|e| panic!("{}", e.text()));
    let written = std::fs::metadata(&out).expect("written").len();
    assert!(written <= 16_000_000, "{written}");
}
