//! How long a person waits for the first frame: the real `idem` binary started under a
//! pseudo-terminal of 100×30, timed until its screen shows the story's title, side by side
//! in one run with a bare ratatui program (this benchmark itself, started with
//! `IDEM_BARE_RATATUI` set: it enters the alternate screen, draws one bordered paragraph and
//! waits for a key). Both are killed once their frame is seen.

use criterion::{Criterion, criterion_group};
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "common/storm.rs"]
mod common_storm;

/// What the bare program draws, and what is looked for to know it has drawn (one word: a
/// terminal program moves the cursor over spaces rather than writing them).
const BARE_TITLE: &str = "bare-ratatui";

/// The bare ratatui program: one frame, then it waits for a key.
fn bare() {
    let mut terminal = ratatui::init();
    let _ = terminal.draw(|frame| {
        let text = ratatui::widgets::Paragraph::new("order 5531: one intent, one key, one charge")
            .block(ratatui::widgets::Block::bordered().title(BARE_TITLE));
        frame.render_widget(text, frame.area());
    });
    let _ = ratatui::crossterm::event::read();
    ratatui::restore();
}

/// Starts `program` on a new pseudo-terminal and waits until `marker` is on its screen: the
/// time that took.
fn time_to_frame(program: &str, args: &[&str], env: &[(&str, &str)], marker: &str) -> Duration {
    let (mut master, slave) = pty();
    let mut command = Command::new(program);
    command
        .args(args)
        .env("TERM", "xterm-256color")
        .envs(env.iter().copied())
        .stdin(Stdio::from(dup(&slave)))
        .stdout(Stdio::from(dup(&slave)))
        .stderr(Stdio::from(slave));
    // SAFETY: setsid and ioctl are async-signal-safe; the child gets a session of its own
    // whose controlling terminal is the new pseudo-terminal, as a terminal emulator does.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            libc::ioctl(0, libc::TIOCSCTTY, 0);
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => panic!("cannot start {program}: {e}"),
    };
    // The parent's copies of the program's side are closed.
    drop(command);
    let mut seen = Vec::new();
    let mut chunk = [0u8; 65536];
    let deadline = start + Duration::from_secs(20);
    let found = loop {
        if Instant::now() > deadline {
            break false;
        }
        let mut poll = libc::pollfd {
            fd: master.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, for the length given.
        if unsafe { libc::poll(&mut poll, 1, 1000) } <= 0 {
            continue;
        }
        match master.read(&mut chunk) {
            Ok(0) | Err(_) => break false,
            Ok(n) => seen.extend_from_slice(&chunk[..n]),
        }
        if seen.windows(marker.len()).any(|w| w == marker.as_bytes()) {
            break true;
        }
    };
    let took = start.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        found,
        "{program} drew no {marker:?}: {}",
        String::from_utf8_lossy(&seen)
    );
    took
}

/// A new pseudo-terminal of 100×30: its master side, and the side the program is given.
fn pty() -> (std::fs::File, OwnedFd) {
    idem_testkit::pty::pty(100, 30)
}

fn dup(fd: &OwnedFd) -> OwnedFd {
    match fd.try_clone() {
        Ok(fd) => fd,
        Err(e) => panic!("cannot share the pseudo-terminal: {e}"),
    }
}

fn first_frame(c: &mut Criterion) {
    let idem = env!("CARGO_BIN_EXE_idem");
    let me = match std::env::current_exe() {
        Ok(p) => p.to_string_lossy().into_owned(),
        Err(e) => panic!("where is this benchmark? {e}"),
    };
    let dir = std::env::temp_dir().join(format!("idem-first-frame-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot make {}: {e}", dir.display());
    }
    let storm = dir.join("storm.toml");
    if let Err(e) = std::fs::write(&storm, common_storm::storm_source(10, 12, 100)) {
        panic!("cannot write {}: {e}", storm.display());
    }
    let storm = storm.to_string_lossy().into_owned();

    let mut group = c.benchmark_group("first-frame-100x30");
    group.sample_size(20);
    group.bench_function("bare ratatui", |b| {
        b.iter_custom(|n| {
            (0..n)
                .map(|_| time_to_frame(&me, &[], &[("IDEM_BARE_RATATUI", "1")], BARE_TITLE))
                .sum()
        })
    });
    group.bench_function("idem order-5531", |b| {
        b.iter_custom(|n| (0..n).map(|_| time_to_frame(idem, &[], &[], "5531")).sum())
    });
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for design in ["with-charge", "no-key"] {
        group.bench_function(format!("idem storm-12000 {design}"), |b| {
            b.iter_custom(|n| {
                (0..n)
                    .map(|_| time_to_frame(idem, &[&storm, "--design", design], &[], "Storm"))
                    .sum()
            })
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, first_frame);

/// The two first frames timed in turns, the order swapped every round, so a machine that
/// slows for a while slows both alike: criterion times one program's runs and then the
/// other's, and on a shared machine their ratio moved by a tenth between runs. Prints each
/// one's median and the median of the rounds' ratios, twice: for the files as the linker
/// wrote them, and for copies of them, as `cargo install` puts a program on the path. A file
/// the linker has just written through a memory map is cached in pages of 4 KiB, so a
/// program started from it takes a fault for every 64 KiB of code it first runs; a copy is
/// cached in larger pieces, mapped a few at a fault. The larger program pays more for that:
/// about 0.14 ms against 0.05 ms here.
fn side_by_side(idem: &str, me: &str) {
    let dir = std::env::temp_dir().join(format!("idem-side-by-side-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot make {}: {e}", dir.display());
    }
    let copy = |from: &str, name: &str| {
        let to = dir.join(name);
        if let Err(e) = std::fs::copy(from, &to) {
            panic!("cannot copy {from} to {}: {e}", to.display());
        }
        to.to_string_lossy().into_owned()
    };
    let (idem_copy, me_copy) = (copy(idem, "idem"), copy(me, "bare-ratatui"));
    in_turns("as linked", idem, me);
    in_turns("installed", &idem_copy, &me_copy);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Times `idem`'s first frame and the bare program's (`me`) in turns; prints the figures
/// under `how` the files were made.
fn in_turns(how: &str, idem: &str, me: &str) {
    const ROUNDS: usize = 100;
    let mut bare_times = Vec::with_capacity(ROUNDS);
    let mut idem_times = Vec::with_capacity(ROUNDS);
    let mut ratios = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS + 5 {
        let bare_first = round % 2 == 0;
        let time_bare = || time_to_frame(me, &[], &[("IDEM_BARE_RATATUI", "1")], BARE_TITLE);
        let time_idem = || time_to_frame(idem, &[], &[], "5531");
        let (b, i) = if bare_first {
            let b = time_bare();
            (b, time_idem())
        } else {
            let i = time_idem();
            (time_bare(), i)
        };
        // The first rounds warm the caches and are not counted.
        if round >= 5 {
            bare_times.push(b.as_secs_f64() * 1e3);
            idem_times.push(i.as_secs_f64() * 1e3);
            ratios.push(i.as_secs_f64() / b.as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[v.len() / 4], v[v.len() * 3 / 4])
    };
    let (b, _, _) = median(&mut bare_times);
    let (i, _, _) = median(&mut idem_times);
    let (r, r25, r75) = median(&mut ratios);
    println!(
        "first-frame-100x30 side by side, {how}, {ROUNDS} rounds in turns: bare ratatui \
         {b:.3} ms, idem order-5531 {i:.3} ms; idem ÷ bare {r:.3} (a quarter of the rounds \
         under {r25:.3}, a quarter over {r75:.3})"
    );
}

fn main() {
    if std::env::var_os("IDEM_BARE_RATATUI").is_some() {
        return bare();
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
    // With no filter, or one that picks the pair, the pair is also timed in turns (not when
    // only listing, or checking that the benchmarks run).
    let args: Vec<String> = std::env::args().skip(1).collect();
    let checking = args.iter().any(|a| a == "--list" || a == "--test");
    let pair = !checking
        && args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .all(|f| ["bare", "5531", "side"].iter().any(|k| f.contains(k)));
    if pair {
        let me = match std::env::current_exe() {
            Ok(p) => p.to_string_lossy().into_owned(),
            Err(e) => panic!("where is this benchmark? {e}"),
        };
        side_by_side(env!("CARGO_BIN_EXE_idem"), &me);
    }
}
