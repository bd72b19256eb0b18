//! End to end: the real binary in a real terminal (tmux), driven by key presses and read
//! back from the screen. Skipped, with a note, where tmux is not installed.

use idem::scenario::library::default_scenario;
use idem::sim::Design;
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const WIDTH: u16 = 120;
const HEIGHT: u16 = 36;

/// A tmux server of our own (its own socket) with one detached session; both are killed on
/// drop, whether the test passes or panics.
struct Tmux {
    socket: String,
    session: String,
    /// The server's socket file, removed on drop (tmux leaves it behind).
    socket_path: Option<std::path::PathBuf>,
}

impl Tmux {
    fn start(tag: &str) -> Tmux {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let name = format!("idem-{tag}-{}-{nanos}", std::process::id());
        let mut tmux = Tmux {
            socket: name.clone(),
            session: name,
            socket_path: None,
        };
        let (w, h) = (WIDTH.to_string(), HEIGHT.to_string());
        // A plain POSIX shell with a fixed prompt and no rc files, colour allowed.
        let out = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            &tmux.session,
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
        let path = tmux.format("#{socket_path}");
        tmux.socket_path = (!path.is_empty()).then(|| path.into());
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux runs")
    }

    /// Types `text` literally, without pressing Enter.
    fn type_text(&self, text: &str) {
        let out = self.run(&["send-keys", "-t", &self.session, "-l", text]);
        assert!(out.status.success(), "send-keys: {out:?}");
    }

    /// Presses one key, in tmux's key names (`Enter`, `G`, `3`, `q`).
    fn press(&self, key: &str) {
        let out = self.run(&["send-keys", "-t", &self.session, key]);
        assert!(out.status.success(), "send-keys {key}: {out:?}");
    }

    fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", &self.session]);
        assert!(out.status.success(), "capture-pane: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn format(&self, format: &str) -> String {
        let out = self.run(&["display-message", "-p", "-t", &self.session, format]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Polls the screen every 100 ms until `done` holds, for up to ten seconds.
    fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            if Instant::now() >= deadline {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-session", "-t", &self.session]);
        let _ = self.run(&["kill-server"]);
        if let Some(path) = &self.socket_path {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The card statement's charge lines: the rows between its title and the next box's title.
fn statement_lines(screen: &str) -> usize {
    let rows: Vec<&str> = screen.lines().collect();
    let top = rows
        .iter()
        .position(|r| r.contains(" Card statement "))
        .unwrap_or_else(|| panic!("no card statement on screen:\n{screen}"));
    rows[top + 1..]
        .iter()
        .take_while(|r| !r.contains(" Checkout & counters "))
        .filter(|r| r.contains("INKWELL STATIONERY"))
        .count()
}

fn header(screen: &str) -> &str {
    screen.lines().nth(1).unwrap_or("")
}

#[test]
fn replay_in_a_real_terminal() {
    if !tmux_available() {
        println!("note: tmux is not on PATH; skipping the end-to-end replay test");
        return;
    }
    let app = idem::tui::App::new(
        default_scenario().expect("the default scenario loads"),
        "order-5531".into(),
    )
    .expect("every design simulates");
    let ticks_1 = app.trace_of(Design::WithCharge).ticks.len();
    let ticks_3 = app.trace_of(Design::NoKey).ticks.len();

    let tmux = Tmux::start("replay");
    assert_eq!(
        tmux.format("#{window_width}x#{window_height}"),
        format!("{WIDTH}x{HEIGHT}")
    );
    let bin = env!("CARGO_BIN_EXE_idem");
    assert!(!bin.contains('\''), "the binary's path is quoted with '");
    tmux.type_text(&format!("'{bin}'"));
    tmux.press("Enter");

    let screen = tmux.wait_for("the replay's header", |s| {
        header(s).contains("◷ 14:02:07.000") && header(s).contains("tick 1/")
    });
    assert!(screen.contains("idem Order 5531: the answer that never came"));
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "1",
        "the replay uses the alternate screen"
    );
    assert_eq!(statement_lines(&screen), 0);

    // End stops at the question for the room; answer it (once), then go on to the end.
    tmux.press("G");
    tmux.wait_for("the quiz", |s| s.contains("Question for the room"));
    tmux.press("2");
    tmux.wait_for("the answer", |s| s.contains("✓ Right."));
    // End: with the key stored with the charge, one line on the statement.
    tmux.press("G");
    let end_1 = format!("tick {ticks_1}/{ticks_1}");
    let screen = tmux.wait_for("the last tick under design 1", |s| {
        header(s).contains(&end_1) && s.contains("Charged once")
    });
    assert!(header(&screen).contains("design key stored with the charge"));
    assert!(screen.contains("✓ Charged once — $48.60"), "{screen}");
    assert_eq!(statement_lines(&screen), 1, "{screen}");
    assert!(
        screen
            .lines()
            .any(|l| l.contains("INKWELL STATIONERY") && l.contains("$48.60")),
        "{screen}"
    );

    // 3 keeps the moment (14:02:38.100): no key has not charged again yet.
    tmux.press("3");
    let screen = tmux.wait_for("design 3", |s| header(s).contains("design no key"));
    assert!(header(&screen).contains("◷ 14:02:38.050"), "{screen}");
    assert_eq!(statement_lines(&screen), 1, "{screen}");
    // Its own end: two lines on the statement.
    tmux.press("G");
    let end_3 = format!("tick {ticks_3}/{ticks_3}");
    let screen = tmux.wait_for("the last tick under design 3", |s| {
        header(s).contains(&end_3) && s.contains("Charged twice")
    });
    assert!(screen.contains("✗ Charged twice — $97.20"), "{screen}");
    assert_eq!(statement_lines(&screen), 2, "{screen}");

    // q: the terminal is given back, and the shell works.
    tmux.press("q");
    tmux.wait_for("the replay to close", |s| !s.contains("◷ "));
    let token = format!("idem-done-{}-marker", std::process::id());
    tmux.type_text(&format!("echo \"exit=$? {token}\""));
    tmux.press("Enter");
    let screen = tmux.wait_for("the shell to answer", |s| {
        s.lines().any(|l| l.trim_end() == format!("exit=0 {token}"))
    });
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "0",
        "the alternate screen was left"
    );
    assert!(!screen.contains("Timeline"), "{screen}");
    assert!(!screen.contains("tick "), "{screen}");
}
