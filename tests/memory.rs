//! What a long story costs the process that tells it: `run --design all` (as JSON and as the
//! table of outcomes) and one SVG frame each hold one design's run at a time, never all six.
//!
//! A test binary of its own, apart from `tests/integration`: a child's peak memory counts the
//! memory of the process it was started from, and here that process is small.

use idem_testkit::inline::every_attempt_lost;
use std::time::{Duration, Instant};

/// A folder of its own under the system temp dir, removed on drop.
struct Scratch(std::path::PathBuf);

impl Scratch {
    /// A new folder named after `name` and this process.
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("idem-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp folder");
        Scratch(dir)
    }
}

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
    let dir = Scratch::new("memory");
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

/// The largest story `check` accepts (64 orders of 195 attempts, every answer but the last
/// lost: about 75,000 ticks under each design) told whole as JSON, one design at a time. The
/// checkout's views of the 64 orders are kept once each, not copied whole at every tick that
/// changes one of them: copied, they took 113 MB; kept once, about 70 MB.
#[test]
fn the_largest_valid_story_keeps_each_view_of_the_checkout_once() {
    let dir = Scratch::new("largest");
    let path = dir.0.join("largest.toml");
    std::fs::write(&path, every_attempt_lost(195)).expect("writable");
    let path = path.to_str().expect("a UTF-8 path");
    let (text, peak) = output_of(&["run", path, "--design", "all", "--json"]);
    assert_eq!(
        text.matches("\n    \"design_name\": ").count(),
        idem::sim::Design::ALL.len()
    );
    assert!(
        peak < 95 << 20,
        "idem run --design all --json of the largest story used {} MB",
        peak >> 20
    );
}

/// A day of orders whose layer allows 4,096 attempts, half the answers lost: each order
/// draws its faults only as far as the runs remembered need, and a run is remembered by the
/// faults of the attempts it sent, so a day of 100,000 orders under all six designs holds a
/// few megabytes (it took 1.7 GB for one design when every order's 4,096 draws were a key).
#[test]
fn a_day_of_many_attempts_each_costs_the_faults_that_acted() {
    let dir = Scratch::new("memory-day");
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

/// A terminal that reports 65,535 × 65,535: the replay draws a bounded frame, says on the
/// screen what it leaves out, quits on `q` and gives the terminal back, within a bounded
/// memory (every full-screen program took 2.35 GB at 5,000 × 5,000 and aborted at
/// 10,000 × 10,000, leaving the screen up).
#[test]
#[allow(clippy::zombie_processes)]
fn a_terminal_of_65535_by_65535_costs_a_bounded_frame() {
    use std::io::{Read, Write};
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let (master, slave) = idem_testkit::pty::pty(65_535, 65_535);
    let slave_fd = slave.as_raw_fd();
    let mut cmd = idem_command(&[]);
    cmd.stdin(slave.try_clone().expect("a copy"))
        .stdout(slave.try_clone().expect("a copy"))
        .stderr(slave.try_clone().expect("a copy"))
        .env("TERM", "xterm-256color");
    // SAFETY: between fork and exec only async-signal-safe calls: a session of its own, with
    // the pseudo-terminal as its controlling terminal, as a shell's child has.
    unsafe {
        cmd.pre_exec(move || {
            libc::setsid();
            libc::ioctl(slave_fd, libc::TIOCSCTTY, 0);
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("idem starts");
    drop(slave);
    let mut reading = master.try_clone().expect("a copy");
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 65_536];
        while let Ok(n) = reading.read(&mut chunk) {
            if n == 0 || tx.send(chunk[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let started = Instant::now();
    let note = b"idem draws the top-left 1000";
    while !seen.windows(note.len()).any(|w| w == note) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no note of what is not drawn; the screen so far ends {:?}",
            String::from_utf8_lossy(&seen[seen.len().saturating_sub(400)..])
        );
        if let Ok(bytes) = rx.recv_timeout(Duration::from_millis(200)) {
            seen.extend(bytes);
        }
    }
    let mut writing = master;
    writing.write_all(b"q").expect("q is typed");
    let pid = libc::pid_t::try_from(child.id()).expect("a process id");
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
        if started.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("idem did not quit on q");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "status {status}"
    );
    assert!(
        peak < 300 * 1024 * 1024,
        "a 65,535 × 65,535 terminal took {} MB",
        peak / 1024 / 1024
    );
    while let Ok(bytes) = rx.recv_timeout(Duration::from_millis(300)) {
        seen.extend(bytes);
    }
    let leave = b"\x1b[?1049l";
    assert!(
        seen.windows(leave.len()).any(|w| w == leave),
        "the alternate screen was left"
    );
}

/// A long recording at the largest screen (400 × 200): 2,000 ticks there once took
/// 21.8 s, 288 MB and a 265 MB file. It is refused at once with the size that fits, and that
/// size records within the bound.
#[test]
fn the_largest_recording_is_refused_with_a_size_that_fits() {
    let dir = Scratch::new("memory-cast");
    let file = dir.0.join("long.toml");
    std::fs::write(&file, every_attempt_lost(2)).expect("the scenario");
    let path = file.display().to_string();
    let out = dir.0.join("long.cast").display().to_string();
    let refused = idem_command(&[
        "export", &path, "--format", "cast", "--width", "400", "--height", "200", "--out", &out,
    ])
    .output()
    .expect("idem runs");
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr).to_string();
    assert!(
        err.contains("more than the 4,500,000 a recording may"),
        "{err}"
    );
    let size = |flag: &str| -> String {
        let at = err
            .find(flag)
            .unwrap_or_else(|| panic!("no {flag} in {err}"))
            + flag.len()
            + 1;
        err[at..]
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let (width, height) = (size("--width"), size("--height"));
    let (_, peak) = output_of(&[
        "export", &path, "--format", "cast", "--width", &width, "--height", &height, "--out", &out,
    ]);
    assert!(
        peak < 200 * 1024 * 1024,
        "a recording at {width}×{height} took {} MB",
        peak / 1024 / 1024
    );
    let written = std::fs::metadata(&out).expect("the recording").len();
    assert!(written < 100 * 1024 * 1024, "{written} bytes");
}

/// A search of every plan of two faults over forty orders once ran for minutes and held
/// 470 MB of plans waiting: it is refused at once with its size and the search that fits,
/// which runs within the bound.
#[test]
fn a_search_too_large_is_refused_with_the_one_that_fits() {
    let dir = Scratch::new("memory-explore");
    let mut text = String::from(
        "title = \"Wide\"\nseed = 1\n\n[[checkout.layer]]\nname = \"checkout\"\nattempts = 10\ntimeout = \"1s\"\nbackoff = \"10ms\"\n",
    );
    for i in 0..40 {
        text.push_str(&format!(
            "\n[[intent]]\norder = \"{}\"\nkey = \"K{i:02}\"\namount = \"$1.00\"\nat = \"14:00:{i:02}\"\n",
            10 + i
        ));
    }
    let file = dir.0.join("wide.toml");
    std::fs::write(&file, &text).expect("the scenario");
    let path = file.display().to_string();
    let started = Instant::now();
    let refused = idem_command(&["explore", &path, "--faults", "2"])
        .output()
        .expect("idem runs");
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr).to_string();
    assert!(
        err.contains("more than this search takes; give --faults 1"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "refused only after {:?}",
        started.elapsed()
    );
    let (out, peak) = output_of(&["explore", &path, "--faults", "1"]);
    assert!(out.contains("plans in"), "{out}");
    assert!(
        peak < 200 * 1024 * 1024,
        "the search took {} MB",
        peak / 1024 / 1024
    );
}
