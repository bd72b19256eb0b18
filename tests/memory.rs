//! What a long story costs the process that tells it: `run --design all` (as JSON and as the
//! table of outcomes) and one SVG frame each hold one design's run at a time, never all six.
//!
//! A test binary of its own, apart from `tests/integration`: a child's peak memory counts the
//! memory of the process it was started from, and here that process is small.

#[path = "../crates/idem-core/tests/engine/common/inline.rs"]
#[allow(dead_code)] // the shared story makers; this binary needs one of them
mod inline;

use inline::every_attempt_lost;
use std::time::{Duration, Instant};

/// A folder of its own under the system temp dir, removed on drop.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn idem_command(args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_idem"));
    cmd.args(args);
    cmd
}

/// Runs idem with `args` to its end (two minutes at most): what it printed, and the most
/// memory it used, in bytes, from its own resource usage (not from every child of this
/// process, which other tests start too).
// The child is reaped by `wait4`, which gives its resource usage too; `Child::wait` gives none.
#[allow(clippy::zombie_processes)]
fn output_of(args: &[&str]) -> (String, u64) {
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
    let pid = libc::pid_t::try_from(child.id()).expect("a process id");
    let started = Instant::now();
    let (status, peak) = loop {
        let mut status = 0;
        // SAFETY: wait4 only fills the status and the usage it is given, for our own child.
        let (done, usage) = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            let done = libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage);
            (done, usage)
        };
        if done == pid {
            break (status, u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024);
        }
        assert!(done == 0, "waiting for {args:?} failed");
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("{args:?} still running after two minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{args:?}: status {status}"
    );
    (reader.join().expect("the reader"), peak)
}

#[test]
fn a_long_story_costs_the_memory_of_one_design() {
    let dir = Scratch(std::env::temp_dir().join(format!("idem-memory-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("a temp folder");
    // About 37,000 ticks under each design. Every design's run held at once took about
    // 480 MB for the JSON, 210 MB for the table of outcomes and 395 MB for one SVG frame;
    // one design at a time (and the others' outcomes alone), about 100 MB each.
    let path = dir.0.join("many.toml");
    std::fs::write(&path, every_attempt_lost(97)).expect("writable");
    let path = path.to_str().expect("a UTF-8 path");
    let limit = 160 << 20;

    let (text, peak) = output_of(&["run", path, "--design", "all", "--json"]);
    // Every design's run, whole: read without building the whole value in this process.
    assert!(text.starts_with("[\n  {\n") && text.ends_with("\n  }\n]\n"));
    assert_eq!(
        text.matches("\n    \"design_name\": ").count(),
        idem::sim::Design::ALL.len()
    );
    assert!(text.len() > 50 << 20, "{} bytes", text.len());
    assert!(
        peak < limit,
        "idem run --design all --json used {} MB",
        peak >> 20
    );

    let (table, peak) = output_of(&["run", path, "--design", "all"]);
    for d in idem::sim::Design::ALL {
        assert!(
            table.contains(&format!("  {}  ", d.id())),
            "{d:?}:\n{table}"
        );
    }
    assert!(peak < limit, "idem run --design all used {} MB", peak >> 20);

    let (svg, peak) = output_of(&["export", path, "--format", "svg", "--out", "-"]);
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..svg.len().min(80)]
    );
    assert!(
        peak < limit,
        "idem export --format svg used {} MB",
        peak >> 20
    );
}

/// A day of orders whose layer allows 4,096 attempts, half the answers lost: each order
/// draws its faults only as far as the runs remembered need, and a run is remembered by the
/// faults of the attempts it sent, so a day of 100,000 orders under all six designs holds a
/// few megabytes (it took 1.7 GB for one design when every order's 4,096 draws were a key).
#[test]
fn a_day_of_many_attempts_each_costs_the_faults_that_acted() {
    let dir = Scratch(std::env::temp_dir().join(format!("idem-memory-day-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("a temp folder");
    let file = dir.0.join("many.toml");
    std::fs::write(
        &file,
        "title = \"Many attempts\"\nseed = 3\n\n[[checkout.layer]]\nname = \"checkout\"\nattempts = 4096\ntimeout = \"1s\"\nbackoff = \"1ms\"\n\n[[intent]]\norder = \"1\"\nkey = \"K1\"\namount = \"$1.00\"\nat = \"09:00:00\"\n",
    )
    .expect("the scenario");
    let path = file.display().to_string();
    let (out, peak) = output_of(&[
        "traffic",
        &path,
        "--lose-reply",
        "50%",
        "--orders",
        "100000",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("the day as JSON");
    assert_eq!(v["designs"].as_array().map(Vec::len), Some(6), "{out}");
    assert!(
        peak < 150 * 1024 * 1024,
        "a day of 100,000 orders of 4,096 attempts took {} MB",
        peak / 1024 / 1024
    );
}
