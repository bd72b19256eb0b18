//! Helpers shared by the integration tests: running the real binary with a time limit,
//! temporary directories, the built-in scenarios' text, drawing the replay on a test terminal,
//! key presses, and driving a real terminal in tmux (which CI requires). Each test file that
//! needs them says `mod common;`; not every file uses every helper.

#![allow(dead_code)]

// The checkers of the engine and its words are the test kit's (`crates/idem-testkit`), which
// the engine's own tests use too. Not every test binary that shares this file uses each.
#[allow(unused_imports)]
pub use idem_testkit::{claims, end_state, inline, truth};

use idem::scenario::library::{BUILTIN, default_scenario};
use idem::sim::{Fact, TickKind, Trace};
use idem::tui::keymap::map_key;
use idem::tui::theme::Theme;
use idem::tui::view::draw;
use idem::tui::{App, Msg, settle};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::{Frame, Terminal};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------- names and paths

/// A name no other test is using: `idem-<tag>-<process id>-<counter>`. Kept short: a Unix
/// socket's path may not be longer than about 100 bytes, and some tests need a temp path short
/// enough to show whole on a 120-column screen.
pub fn unique_name(tag: &str) -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    format!("idem-{tag}-{}-{n}", std::process::id())
}

/// The workspace's root, where `scenarios/`, `assets/` and `tests/` are: the nearest folder
/// at or above the crate whose tests these are that holds `Cargo.lock`.
pub fn root() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(crate_dir)
        .to_path_buf()
}

/// Every built-in scenario and every file under `scenarios/`, by name (a file by its path),
/// the built-ins first, the files in name order.
pub fn every_scenario() -> Vec<(String, idem::scenario::Scenario)> {
    let mut all: Vec<(String, idem::scenario::Scenario)> = BUILTIN
        .iter()
        .map(|b| {
            let s = b.load().unwrap_or_else(|e| panic!("{}: {e}", b.name));
            (b.name.to_string(), s)
        })
        .collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("scenarios"))
        .expect("scenarios/ is readable")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    for path in files {
        let s = idem::scenario::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        all.push((path.display().to_string(), s));
    }
    all
}

/// The path of `rel` (relative to the workspace's root), as a string for a command line.
pub fn manifest(rel: &str) -> String {
    root().join(rel).display().to_string()
}

/// The path of a file of the bad-input corpus, `tests/bad_scenarios/<name>`.
pub fn corpus(name: &str) -> String {
    manifest(&format!("tests/bad_scenarios/{name}"))
}

/// A directory of its own under the system temp dir, removed on drop (pass or panic).
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates a fresh, empty directory named after `tag`.
    pub fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(unique_name(tag));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the temp dir can be created");
        TempDir(dir)
    }

    /// The directory itself.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The path of `name` inside the directory (nothing is created).
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes `contents` to `name` inside the directory and returns its path.
    pub fn write(&self, name: &str, contents: &(impl AsRef<[u8]> + ?Sized)) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents.as_ref()).expect("the temp file can be written");
        path
    }

    /// Writes `contents` to `name` inside the directory and returns its path as a string, for
    /// a command line.
    pub fn file(&self, name: &str, contents: &(impl AsRef<[u8]> + ?Sized)) -> String {
        self.write(name, contents).display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------- the real binary

/// The real binary, as Cargo built it for the integration tests of the `idem` crate. A crate
/// beneath it has no binary to run, and its tests run none.
pub const IDEM: &str = match option_env!("CARGO_BIN_EXE_idem") {
    Some(path) => path,
    None => "the idem binary is built only for the root crate's tests",
};

/// How long one run of the binary may take before the test fails.
pub const LIMIT: Duration = Duration::from_secs(10);

/// A command that runs the real binary with `args`.
pub fn idem_command(args: &[&str]) -> Command {
    let mut cmd = Command::new(IDEM);
    cmd.args(args);
    cmd
}

/// Runs `cmd` with stdin closed and its output collected (on threads, so a full pipe never
/// stalls it). Fails the test, naming the command `what`, if it is still running after
/// `limit` (it is killed first) or if it panicked.
pub fn run_with_timeout(mut cmd: Command, what: &str, limit: Duration) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().expect("the idem binary starts");
    let mut out_pipe = child.stdout.take().expect("stdout is piped");
    let mut err_pipe = child.stderr.take().expect("stderr is piped");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe.read_to_end(&mut buf);
        buf
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting on idem") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} was still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let output = Output {
        status,
        stdout: out_reader.join().expect("reader"),
        stderr: err_reader.join().expect("reader"),
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{what} panicked:\n{stderr}");
    output
}

/// Runs the binary with `args` in `dir` (or the current directory) through
/// [`run_with_timeout`], with the usual 10 s limit.
pub fn run_idem_in(dir: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = idem_command(args);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    run_with_timeout(cmd, &format!("idem {args:?}"), LIMIT)
}

/// Fails the test, naming the command `what`, if the run was ended by a signal instead of
/// exiting with a code.
pub fn assert_exited(output: &Output, what: &str) {
    assert!(
        output.status.code().is_some(),
        "{what} was killed by a signal ({:?}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

// ---------------------------------------------------------------- the replay, without a terminal

/// Colour off, built directly: snapshots hold only text and never depend on `NO_COLOR`.
pub const PLAIN: Theme = Theme { color: false };

/// The default scenario (order-5531) without its quiz, so stepping is never held up by a
/// question; the quiz has tests of its own.
pub fn app() -> App {
    let mut scenario = default_scenario().expect("the default scenario loads");
    scenario.quizzes.clear();
    App::new(scenario, "order-5531".to_string()).expect("every design simulates")
}

/// The app standing at the first send of order 5531 (tick 1).
pub fn at_first_send() -> App {
    let mut app = app();
    press(&mut app, key(KeyCode::Right));
    assert_eq!(app.place.tick, 1);
    assert_eq!(app.trace().ticks[1].kind, TickKind::Send);
    assert_eq!(app.told().labels[1], "charge $48.60 key K7Q4 #1");
    app
}

/// The TOML text of the built-in scenario `name`.
pub fn builtin_source(name: &str) -> &'static str {
    BUILTIN
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no built-in {name}"))
        .text
}

/// The (time, fact) of each tick, to compare traces' stories.
pub fn story(trace: &Trace) -> Vec<(idem::sim::Instant, Fact)> {
    trace.ticks.iter().map(|t| (t.at, t.fact.clone())).collect()
}

/// A key press without modifiers.
pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// A character key without modifiers.
pub fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

/// Tells the replay its watched file changed, read back as the terminal's loop reads it.
pub fn file_changed(app: &mut App, path: &Path) {
    settle(
        app,
        Msg::FileChanged(idem::scenario::load(path).map_err(|e| e.one_line())),
    );
}

/// Presses a key in the replay: maps it in the current state and applies the message, if any.
pub fn press(app: &mut App, event: KeyEvent) -> Option<Msg> {
    let msg = map_key(event, app);
    if let Some(msg) = msg.clone() {
        settle(app, msg);
    }
    msg
}

/// Draws with `paint` on a `width`×`height` test terminal and returns the screen as text: one
/// line per row, trailing spaces kept so the width is visible.
pub fn screen_text(width: u16, height: u16, paint: impl FnOnce(&mut Frame)) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(paint).expect("drawing never fails");
    let buffer = terminal.backend().buffer();
    let (w, h) = (buffer.area.width as usize, buffer.area.height as usize);
    let mut out = String::new();
    for y in 0..h {
        for cell in &buffer.content[y * w..(y + 1) * w] {
            // The cell after a wide character holds an empty symbol, so pushing each
            // symbol in turn keeps the row as wide as it looks.
            out.push_str(cell.symbol());
        }
        out.push('\n');
    }
    out
}

/// The replay's screen as text at `width`×`height`, colour off.
pub fn render(app: &App, width: u16, height: u16) -> String {
    screen_text(width, height, |f| draw(f, app, &PLAIN))
}

/// The replay's screen as text at the full size, 120×36.
pub fn render_full(app: &App) -> String {
    render(app, 120, 36)
}

/// The inner lines of the box whose top border starts with `title`, cut to the box's columns.
pub fn panel(screen: &str, title: &str) -> Vec<String> {
    let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let title: Vec<char> = std::iter::once('┌').chain(title.chars()).collect();
    let (top, left) = rows
        .iter()
        .enumerate()
        .find_map(|(y, r)| {
            r.windows(title.len())
                .position(|w| w == title.as_slice())
                .map(|x| (y, x))
        })
        .unwrap_or_else(|| panic!("no box titled {title:?} in\n{screen}"));
    let right = (left + title.len()..rows[top].len())
        .find(|&x| rows[top][x] == '┐')
        .expect("the box has a top-right corner");
    rows[top + 1..]
        .iter()
        .take_while(|row| row[left] != '└')
        .map(|row| row[left + 1..right].iter().collect())
        .collect()
}

/// Runs of whitespace (line breaks too) collapsed to one space, so wrapped text can be
/// searched whole.
pub fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Lines joined and runs of whitespace collapsed, so wrapped text can be searched whole.
pub fn flat(lines: &[String]) -> String {
    lines
        .iter()
        .flat_map(|l| l.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The scenario argument of a share line, as bash reads it.
pub fn bash_word(share: &str) -> String {
    let script = share.replacen("idem ", "printf %s ", 1);
    let script = script.split(" --design").next().expect("a design follows");
    let out = std::process::Command::new("bash")
        .args(["-c", script])
        .output()
        .expect("bash runs");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The header line of the replay's screen (the row under the top border).
pub fn header(screen: &str) -> &str {
    screen.lines().nth(1).unwrap_or("")
}

// ---------------------------------------------------------------- a real terminal (tmux)

/// Whether tmux is installed and answers `tmux -V`. Tests ask [`tmux_ready`] instead, which
/// applies the CI rule.
fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether the environment variable `CI` is set to something (`.ci/run` sets `CI=1`).
pub fn ci_set() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// What a test that needs tmux does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TmuxPlan {
    /// tmux is there: the test runs.
    Run,
    /// No tmux, outside CI: the test skips, with a note on the terminal.
    Skip,
    /// No tmux in CI, where it is required: the test fails.
    Fail,
}

/// The rule for tests that need tmux: they run where it is installed; where it is not, they
/// fail in CI (a skipped end-to-end test there would hide a broken terminal) and skip with a
/// note elsewhere.
pub fn tmux_plan(ci_set: bool, tmux_present: bool) -> TmuxPlan {
    match (ci_set, tmux_present) {
        (_, true) => TmuxPlan::Run,
        (true, false) => TmuxPlan::Fail,
        (false, false) => TmuxPlan::Skip,
    }
}

/// Whether the test `what` can go on with tmux. Panics (the test fails) when tmux is missing
/// and `CI` is set; returns `false` after a note on stderr when tmux is missing outside CI, and
/// the caller returns. The note is written to stderr directly, not through `eprintln!`, so the
/// test harness does not swallow it: a skip is seen.
pub fn tmux_ready(what: &str) -> bool {
    match tmux_plan(ci_set(), tmux_available()) {
        TmuxPlan::Run => true,
        TmuxPlan::Fail => panic!(
            "{what} needs tmux, and tmux is not on PATH while CI is set: install tmux \
             (`.ci/run` does), or unset CI to skip this test"
        ),
        TmuxPlan::Skip => {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "note: tmux is not on PATH; skipping {what} (with CI set, this would fail)"
            );
            false
        }
    }
}

/// A tmux server of our own (its own socket, no config file), killed on drop whether the
/// test passes or panics.
pub struct Tmux {
    socket: String,
    /// The server's socket file, removed on drop (tmux leaves it behind).
    socket_path: Option<PathBuf>,
}

impl Tmux {
    /// A server on a socket named after `tag`; it starts with its first session.
    pub fn start(tag: &str) -> Tmux {
        Tmux {
            socket: unique_name(tag),
            socket_path: None,
        }
    }

    /// Runs a tmux command against this server.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux runs")
    }

    /// Opens a detached `width`×`height` session `name` running a plain POSIX shell with a
    /// fixed prompt and no rc files, colour allowed.
    pub fn session(&mut self, name: &str, width: u16, height: u16) {
        let (w, h) = (width.to_string(), height.to_string());
        let out = self.run(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            &w,
            "-y",
            &h,
            "env",
            "-u",
            "NO_COLOR",
            "-u",
            "ENV",
            "TERM=xterm-256color",
            "PS1=$ ",
            "sh",
        ]);
        assert!(out.status.success(), "tmux new-session: {out:?}");
        if self.socket_path.is_none() {
            let path = self.format(name, "#{socket_path}");
            self.socket_path = (!path.is_empty()).then(|| path.into());
        }
        assert_eq!(
            self.format(name, "#{window_width}x#{window_height}"),
            format!("{width}x{height}")
        );
    }

    /// Types `text` literally into a session, without pressing Enter.
    pub fn type_text(&self, session: &str, text: &str) {
        let out = self.run(&["send-keys", "-t", session, "-l", text]);
        assert!(out.status.success(), "send-keys: {out:?}");
    }

    /// Presses one key in a session, in tmux's key names (`Enter`, `G`, `3`, `q`).
    pub fn press(&self, session: &str, key: &str) {
        let out = self.run(&["send-keys", "-t", session, key]);
        assert!(out.status.success(), "send-keys {key}: {out:?}");
    }

    /// What a session's screen shows now.
    pub fn screen(&self, session: &str) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", session]);
        assert!(out.status.success(), "capture-pane: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A tmux format (`#{alternate_on}`, …) expanded for a session.
    pub fn format(&self, session: &str, format: &str) -> String {
        let out = self.run(&["display-message", "-p", "-t", session, format]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Polls a session's screen every 100 ms until `done` holds, for up to ten seconds.
    pub fn wait_for(&self, session: &str, what: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let screen = self.screen(session);
            if done(&screen) {
                return screen;
            }
            if Instant::now() >= deadline {
                panic!("timed out waiting for {what}; the {session} screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
        if let Some(path) = &self.socket_path {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A session of three parts (two built-ins and a file of `scenarios/`), with budgets on the
/// first two and a title of its own on the third: the session the room tests play.
pub const THREE_PARTS: &str = r#"
title = "Three stories"

[[section]]
scenario = "order-5531"
budget = "10m"

[[section]]
scenario = "reply-lost.toml"
design = "no-key"
budget = "5m"

[[section]]
title = "The last one"
scenario = "request-lost"
"#;

/// [`THREE_PARTS`], read.
pub fn three_parts() -> idem::present::playlist::Playlist {
    let dir = root().join("scenarios");
    idem::present::playlist::parse("three.toml", THREE_PARTS, &dir).expect("the session reads")
}
