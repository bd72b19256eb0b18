//! Through the real binary: what a written file's mode is, that temporary files do not outlive
//! an export (a signal, a killed process), and files that are odd to open: one of NUL bytes,
//! one whose name is not UTF-8.

use crate::common;

use common::{LIMIT, TempDir, idem_command, manifest, run_idem_in, run_with_timeout};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Above Linux's highest possible PID (2^22): never a live process.
const GONE: u32 = 4_194_999;

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("readable")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temp path")
}

#[test]
fn forcing_over_a_setuid_file_writes_an_ordinary_one() {
    let dir = TempDir::new("mode");
    let old = dir.write("old.md", "old");
    fs::set_permissions(&old, fs::Permissions::from_mode(0o6777)).expect("chmod 6777");
    let link = dir.join("link.md");
    std::os::unix::fs::symlink(&old, &link).expect("a link");
    for target in [&link, &old] {
        let out = run_idem_in(
            None,
            &[
                "export",
                "reply-lost",
                "--format",
                "md",
                "--force",
                "--out",
                path_str(target),
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let meta = fs::symlink_metadata(target).expect("written");
        assert!(meta.is_file());
        let mode = meta.permissions().mode() & 0o7777;
        assert_eq!(mode & 0o7000, 0, "{target:?} is {mode:o}");
        assert_eq!(
            mode & 0o111,
            0,
            "{target:?} is {mode:o}: a handout is not a program"
        );
    }
}

#[test]
fn an_export_sweeps_stale_temporary_files_of_its_target() {
    let dir = TempDir::new("sweep");
    let stale = format!(".out.md.tmp-{GONE}-1");
    // This test's own process is alive: its temporary file may be a write in flight.
    let live = format!(".out.md.tmp-{}-1", std::process::id());
    dir.write(&stale, "half");
    dir.write(&live, "half");
    let out = run_idem_in(
        None,
        &[
            "export",
            "reply-lost",
            "--format",
            "md",
            "--out",
            path_str(&dir.join("out.md")),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(names(dir.path()), [live, "out.md".to_string()]);
}

/// A scenario whose recording is large, so that writing it takes long enough to be caught.
fn long_scenario(dir: &TempDir) -> PathBuf {
    let story =
        common::inline::many_orders(40, 3, "30s", "\n[[fault]]\nattempt = 1\nlose = \"reply\"\n");
    dir.write("long.toml", &format!("design = \"no-key\"\n{story}"))
}

#[test]
fn a_terminating_signal_during_the_write_leaves_no_temporary_file() {
    // Written on the disk the crate is built on, where a file's sync takes real time.
    let dir = TempDir::new("signal");
    let scenario = long_scenario(&dir);
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(common::unique_name("sig"));
    fs::create_dir_all(&out_dir).expect("an output folder");
    let target = out_dir.join("out.cast");
    let mut caught = 0;
    for _ in 0..8 {
        if caught >= 2 {
            break;
        }
        let _ = fs::remove_file(&target);
        let mut child = idem_command(&[
            "export",
            path_str(&scenario),
            "--format",
            "cast",
            // As large as a recording of this story may be.
            "--width",
            "240",
            "--height",
            "72",
            "--out",
            path_str(&target),
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("idem starts");
        let started = Instant::now();
        let pid = libc::pid_t::try_from(child.id()).expect("a pid");
        let mut seen = false;
        while started.elapsed() < Duration::from_secs(60) {
            if names(&out_dir).iter().any(|n| n.contains(".tmp-")) {
                // SAFETY: signals a child this test started and has not yet waited on.
                unsafe { libc::kill(pid, libc::SIGTERM) };
                seen = true;
                break;
            }
            if child.try_wait().expect("waiting").is_some() {
                break;
            }
        }
        let status = child.wait().expect("idem ends");
        let left: Vec<String> = names(&out_dir)
            .into_iter()
            .filter(|n| n.contains(".tmp-"))
            .collect();
        assert!(left.is_empty(), "left behind: {left:?} ({status:?})");
        if seen {
            caught += 1;
        }
    }
    let _ = fs::remove_dir_all(&out_dir);
    // Whether a signal came in mid-write depends on timing; at least once it should have.
    assert!(caught > 0, "the temporary file was never seen");
}

#[test]
fn a_file_of_nul_bytes_is_pointed_at_within_itself() {
    let dir = TempDir::new("nul");
    let path = dir.write("zeros.toml", &[0u8; 64]);
    for cmd in ["check", "run"] {
        let out = run_idem_in(None, &[cmd, path_str(&path)]);
        assert!(!out.status.success(), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        let position = format!("{}:", path_str(&path));
        let at = err
            .find(&position)
            .map(|i| &err[i + position.len()..])
            .unwrap_or_else(|| panic!("{cmd}: no position in\n{err}"));
        let mut parts = at.split(':');
        let line: usize = parts.next().and_then(|l| l.parse().ok()).expect("a line");
        let column: usize = parts.next().and_then(|c| c.parse().ok()).expect("a column");
        assert_eq!(line, 1, "{cmd}:\n{err}");
        assert!((1..=65).contains(&column), "{cmd}:\n{err}");
        assert!(err.contains("NUL"), "{cmd}: says what is wrong:\n{err}");
        assert!(!err.contains('\0'), "{cmd}: no raw NUL in the message");
    }
}

#[test]
fn a_scenario_whose_name_is_not_utf8_opens() {
    let dir = TempDir::new("latin1");
    let text = fs::read(manifest("scenarios/order-5531.toml")).expect("a scenario");
    let path = dir.path().join(OsStr::from_bytes(b"caf\xe9.toml"));
    fs::write(&path, text).expect("written");
    // The name goes to the binary as it is, not through a `&str`.
    let on = |verb: &str| {
        let mut c = idem_command(&[verb]);
        c.arg(&path);
        run_with_timeout(c, &format!("idem {verb} caf\\xe9.toml"), LIMIT)
    };
    let run = on("run");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("Order 5531"),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let check = on("check");
    let out = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(out.contains("caf\u{FFFD}.toml"), "shown lossily:\n{out}");
    // A name that is not UTF-8 and names no file is said to be missing, not a crash.
    let missing = dir.path().join(OsStr::from_bytes(b"gone\xff.toml"));
    let gone = run_with_timeout(
        {
            let mut c = idem_command(&["check"]);
            c.arg(&missing);
            c
        },
        "idem check gone\\xff.toml",
        LIMIT,
    );
    assert_eq!(gone.status.code(), Some(2));
    let err = String::from_utf8_lossy(&gone.stderr);
    assert!(err.contains("no such file"), "{err}");
}
