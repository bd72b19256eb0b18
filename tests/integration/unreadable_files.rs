//! Paths that are not small regular files: a device that never ends, a FIFO nobody writes
//! to, a directory, a `/proc` file. Every command that reads a file refuses them at once with
//! a clear message; none grows without bound or waits forever. Each run has a time limit, so
//! a regression fails the test instead of hanging it.

use crate::common;

use common::{TempDir, Tmux, run_with_timeout, tmux_ready};
use idem::tui::{Msg, settle};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// A FIFO in `dir` that nobody writes to.
fn fifo(dir: &TempDir, name: &str) -> PathBuf {
    let path = dir.join(name);
    let status = Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
    path
}

/// Every command that reads a scenario or a config file, with `path` in its place.
fn commands(path: &str, out: &str) -> Vec<Vec<String>> {
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        words(&["check", path]),
        words(&["run", path]),
        words(&["export", path, "--format", "md", "--out", out]),
        words(&["export", path, "--format", "svg", "--out", out]),
        words(&["window", "--config", path]),
        words(&["window", "--config", path, "--json"]),
        // The replay and the presenter read the file before the terminal changes.
        words(&[path]),
        words(&["present", path]),
    ]
}

/// Runs every command on `path` and checks that each is refused, naming the path and
/// holding `needle`; returns nothing written to `out`.
fn refused_everywhere(path: &str, needle: &str) {
    let dir = TempDir::new("unreadable-out");
    let out = dir.join("out").display().to_string();
    for args in commands(path, &out) {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let what = format!("idem {argv:?}");
        let output = run_with_timeout(common::idem_command(&argv), &what, Duration::from_secs(10));
        common::assert_exited(&output, &what);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{what}: {stderr}");
        assert!(stderr.contains(path), "{what} names the path: {stderr}");
        assert!(stderr.contains(needle), "{what}: {needle:?} in {stderr}");
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        assert!(!Path::new(&out).exists(), "{what} wrote a file");
    }
}

#[test]
fn an_endless_device_is_refused_without_reading_it() {
    refused_everywhere("/dev/zero", "is a character device, not a regular file");
}

#[test]
fn a_fifo_with_no_writer_is_refused_without_waiting() {
    let dir = TempDir::new("fifo");
    let path = fifo(&dir, "story.toml");
    refused_everywhere(
        &path.display().to_string(),
        "is a FIFO (named pipe), not a regular file",
    );
}

#[test]
fn a_directory_is_refused() {
    let dir = TempDir::new("a-dir");
    let path = dir.join("looks-like.toml");
    std::fs::create_dir(&path).expect("a directory");
    refused_everywhere(
        &path.display().to_string(),
        "is a directory, not a regular file",
    );
}

#[test]
fn a_proc_file_is_read_within_the_limit_and_refused_as_text() {
    let path = "/proc/self/status";
    if !Path::new(path).exists() {
        println!("note: no /proc here; skipped");
        return;
    }
    // It is a regular file to the kernel, of length 0: read within the limit, then refused
    // as what it is, text that is not a scenario, with a position.
    refused_everywhere(path, &format!("{path}:1:"));
}

/// Runs `f` on a thread and fails the test if it has not finished within ten seconds.
fn within_ten_seconds<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("{what} was still running after 10 s"))
}

#[test]
fn the_library_loaders_refuse_a_fifo_at_once() {
    let dir = TempDir::new("fifo-lib");
    let path = fifo(&dir, "story.toml");
    let p = path.clone();
    let err = within_ten_seconds("scenario::load", move || {
        idem::scenario::load(&p).expect_err("a FIFO is refused")
    });
    assert!(err.to_string().contains("FIFO"), "{err}");
    let p = path.clone();
    let err = within_ten_seconds("retention::load_stack", move || {
        idem::window::load_stack(&p).expect_err("a FIFO is refused")
    });
    assert!(err.to_string().contains("FIFO"), "{err}");
}

#[test]
fn the_pickers_typed_path_refuses_a_fifo() {
    let dir = TempDir::new("fifo-pick");
    let path = fifo(&dir, "story.toml").display().to_string();
    let error = within_ten_seconds("the picker", move || {
        let mut app = common::app();
        settle(&mut app, Msg::OpenPicker);
        for c in path.chars() {
            settle(&mut app, Msg::Type(c));
        }
        settle(&mut app, Msg::Confirm);
        match &app.screens.overlay {
            idem::tui::app::Overlay::Picker(p) => p.error.clone(),
            other => panic!("the picker closed: {other:?}"),
        }
    });
    let error = error.expect("the picker says why");
    assert!(error.contains("FIFO (named pipe)"), "{error}");
}

/// A watched scenario replaced by a FIFO: the replay reports it and still answers keys.
#[test]
fn a_watched_file_swapped_for_a_fifo_does_not_freeze_the_replay() {
    if !tmux_ready("the FIFO-swap test") {
        return;
    }
    let dir = TempDir::new("swap");
    let story = dir.join("story.toml");
    std::fs::copy(common::manifest("scenarios/reply-lost.toml"), &story).expect("a copy");
    let mut tmux = Tmux::start("swap");
    tmux.session("swap", 120, 36);
    let bin = env!("CARGO_BIN_EXE_idem");
    tmux.type_text(
        "swap",
        &format!("'{bin}' '{}'; echo \"exit=$?\"", story.display()),
    );
    tmux.press("swap", "Enter");
    tmux.wait_for("swap", "the replay", |s| s.contains("tick 1/"));
    std::fs::remove_file(&story).expect("the file goes");
    fifo(&dir, "story.toml");
    tmux.wait_for("swap", "the reload error", |s| s.contains("FIFO"));
    tmux.press("swap", "l");
    tmux.wait_for("swap", "a step", |s| s.contains("tick 2/"));
    tmux.press("swap", "q");
    tmux.wait_for("swap", "the replay to close", |s| s.contains("exit=0"));
}

/// A file whose name is not UTF-8 (Latin-1 `café.toml`) opens like any other: the name is
/// passed to the file system as the bytes it is, and shown with a replacement character.
#[cfg(unix)]
#[test]
fn a_file_named_in_latin_1_is_read_by_every_command() {
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new("latin1-name");
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.toml");
    let source =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/reply-lost.toml"))
            .expect("reply-lost.toml");
    std::fs::write(dir.path().join(name), source).expect("the file is written");
    let run = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_idem"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("idem runs")
    };
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    for args in [
        vec![os("check"), name],
        vec![os("run"), name, os("--design"), os("all")],
        vec![os("run"), name, os("--json")],
        vec![
            os("export"),
            name,
            os("--format"),
            os("md"),
            os("--out"),
            os("out.md"),
        ],
        vec![os("traffic"), name, os("--orders"), os("100")],
        vec![os("explore"), name],
    ] {
        let out = run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        assert!(!stderr.contains("invalid UTF-8"), "{args:?}: {stderr}");
    }
    assert!(dir.path().join("out.md").exists());
    // The replay reads the file before it finds it has no terminal to draw on.
    let out = run(&[name]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("invalid UTF-8"), "{stderr}");
    assert!(stderr.contains("caf\u{fffd}.toml"), "{stderr}");
}
