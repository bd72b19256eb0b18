//! Large valid inputs cost what they must and no more: a recording too long is refused before
//! the whole replay is prepared, a session that names one scenario many times simulates it
//! once, a handout of a story too long for one is refused after one run, and neither `run
//! --design all` nor one frame of one design holds every design's run in memory at once.

mod common;

use common::{TempDir, idem_command};
use idem::cli::export::{ExportArgs, run};
use idem::export::Format;
use idem::sim::runs_on_this_thread;
use std::fmt::Write;
use std::time::{Duration, Instant};

/// A scenario of 64 purchases whose every attempt but the last loses its reply, so that each
/// of the `attempts` is made: about six ticks an attempt under every design.
fn many_attempts(attempts: u32) -> String {
    let mut text = format!(
        "title = \"Every attempt\"\nseed = 1\ndesign = \"no-key\"\n\n[checkout]\nkey_strategy = \"per-intent\"\n\n[[checkout.layer]]\nname = \"checkout\"\nattempts = {attempts}\ntimeout = \"1s\"\nbackoff = \"10ms\"\n"
    );
    for i in 0..64 {
        let _ = write!(
            text,
            "\n[[intent]]\norder = \"{}\"\nkey = \"K{i:02}\"\namount = \"$48.60\"\nat = \"14:{:02}:{:02}\"\n",
            10 + i,
            i / 60,
            i % 60
        );
    }
    for i in 0..64 {
        for a in 1..attempts {
            let _ = write!(
                text,
                "\n[[fault]]\nintent = \"{}\"\nattempt = {a}\nlose = \"reply\"\n",
                10 + i
            );
        }
    }
    text
}

#[test]
fn a_recording_too_long_is_refused_after_one_simulation() {
    let dir = TempDir::new("cast-long");
    let path = dir.write("long.toml", &many_attempts(10));
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
    let path = dir.write("long.toml", &many_attempts(50));
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
    dir.write("twice.toml", &many_attempts(3));
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

/// The most memory any child of this test process has used, in bytes.
fn children_max_rss() -> u64 {
    // SAFETY: getrusage only fills the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}

/// Runs idem with `args` to its end (two minutes at most) and gives what it printed.
fn output_of(args: &[&str]) -> String {
    let mut child = idem_command(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("idem starts");
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("{args:?} still running after two minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{args:?}: {status}");
    reader.join().expect("the reader")
}

#[test]
fn a_long_story_costs_the_memory_of_one_design() {
    // The only test in this file that starts processes, so the children's peak is theirs.
    let dir = TempDir::new("json-stream");
    // About 37,000 ticks under each design. Every design's run held at once took about
    // 480 MB for the JSON, 210 MB for the table of outcomes and 395 MB for one SVG frame;
    // one design at a time (and the others' outcomes alone), about 100 MB each.
    let path = dir.write("many.toml", &many_attempts(97));
    let path = path.to_str().expect("a UTF-8 path");
    let limit = 160 << 20;

    let text = output_of(&["run", path, "--design", "all", "--json"]);
    // Every design's run, whole: read without building the whole value in this process.
    assert!(text.starts_with("[\n  {\n") && text.ends_with("\n  }\n]\n"));
    assert_eq!(
        text.matches("\n    \"design_name\": ").count(),
        idem::sim::Design::ALL.len()
    );
    assert!(text.len() > 50 << 20, "{} bytes", text.len());
    let peak = children_max_rss();
    assert!(
        peak < limit,
        "idem run --design all --json used {} MB",
        peak >> 20
    );

    let table = output_of(&["run", path, "--design", "all"]);
    for d in idem::sim::Design::ALL {
        assert!(
            table.contains(&format!("  {}  ", d.id())),
            "{d:?}:\n{table}"
        );
    }
    let peak = children_max_rss();
    assert!(peak < limit, "idem run --design all used {} MB", peak >> 20);

    let svg = output_of(&["export", path, "--format", "svg", "--out", "-"]);
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..svg.len().min(80)]
    );
    let peak = children_max_rss();
    assert!(
        peak < limit,
        "idem export --format svg used {} MB",
        peak >> 20
    );
}
