//! Signals sent to the full-screen programs (the replay, `present`, `notes`, `window --tui`)
//! in a real pseudo-terminal (tmux): each of SIGTERM, SIGINT, SIGHUP and SIGQUIT ends the
//! program by that signal with the terminal given back — the alternate screen left
//! (`ESC[?1049l`), the cursor shown (`ESC[?25h`), the tty mode as it was (`stty -g` before and
//! after). Ctrl-Z and SIGTSTP suspend it the same way, and `fg` brings the screen back.
//!
//! Everything the program writes is captured with `pipe-pane`, so the restore sequences are
//! checked byte for byte; the replay's bytes are also searched for escape sequences from a
//! hostile scenario. Without tmux they fail when `CI` is set, and skip with a note otherwise.

use crate::common;

use common::{TempDir, Tmux, tmux_ready};
use std::path::PathBuf;

const SESSION: &str = "sig";

/// One program under test, in its own tmux server and scratch folder.
struct Bench {
    tmux: Tmux,
    dir: TempDir,
    log: PathBuf,
    runs: usize,
}

impl Bench {
    fn start(tag: &str) -> Bench {
        let dir = TempDir::new(tag);
        let mut tmux = Tmux::start(tag);
        tmux.session(SESSION, 120, 36);
        let log = dir.join("pane.log");
        let out = tmux.run(&[
            "pipe-pane",
            "-t",
            SESSION,
            &format!("cat >> '{}'", log.display()),
        ]);
        assert!(out.status.success(), "pipe-pane: {out:?}");
        let mut bench = Bench {
            tmux,
            dir,
            log,
            runs: 0,
        };
        // No core file from SIGQUIT; the tty mode as the shell keeps it, for comparison.
        bench.shell(&format!(
            "ulimit -c 0; cd '{}'; stty -g > before",
            bench.dir.path().display()
        ));
        bench
    }

    /// Types a command line, waits until the shell has run it, and returns the line that
    /// reports its status (`done-N=STATUS`).
    fn shell(&mut self, line: &str) -> String {
        self.runs += 1;
        let token = format!("done-{}=", self.runs);
        self.tmux
            .type_text(SESSION, &format!("{line}; echo \"{token}$?\""));
        self.tmux.press(SESSION, "Enter");
        // Typed while the shell was still taking the terminal back, the line may not have
        // been echoed: its output then follows the prompt on the prompt's own line.
        let report = |l: &str| l.trim_start_matches("$ ").starts_with(&token);
        let screen = self
            .tmux
            .wait_for(SESSION, &token, |s| s.lines().any(report));
        let done = screen
            .lines()
            .find(|l| report(l))
            .unwrap_or_default()
            .trim_start_matches("$ ")
            .trim_end()
            .to_string();
        self.tmux.type_text(SESSION, "clear");
        self.tmux.press(SESSION, "Enter");
        done
    }

    fn log_len(&self) -> usize {
        std::fs::read(&self.log).map_or(0, |b| b.len())
    }

    /// Starts `idem ARGS` in the foreground, its process id written to `pid`, and waits for
    /// its screen to show `marker`. Returns where its output starts in the log.
    fn launch(&mut self, args: &str, marker: &str) -> usize {
        let _ = std::fs::remove_file(self.dir.join("pid"));
        let from = self.log_len();
        let bin = env!("CARGO_BIN_EXE_idem");
        let socket = self.dir.join("p.sock");
        self.tmux.type_text(
            SESSION,
            &format!(
                "sh -c 'echo $$ > pid; exec env IDEM_SOCKET={} {bin} {args}'",
                socket.display()
            ),
        );
        self.tmux.press(SESSION, "Enter");
        self.tmux.wait_for(SESSION, marker, |s| s.contains(marker));
        assert_eq!(self.tmux.format(SESSION, "#{alternate_on}"), "1");
        from
    }

    fn pid(&self) -> String {
        let path = self.dir.join("pid");
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .trim()
            .to_string()
    }

    fn kill(&self, signal: &str) {
        let ok = std::process::Command::new("kill")
            .args(["-s", signal, &self.pid()])
            .status()
            .expect("kill runs")
            .success();
        assert!(ok, "kill -s {signal}");
    }

    /// The terminal is as it was before the program: main screen, cursor shown, same mode,
    /// and the bytes written since `from` end by restoring it. Returns the status the shell
    /// saw for the program (or for its stop).
    fn assert_restored(&mut self, from: usize, what: &str) -> Option<i32> {
        self.tmux.wait_for(SESSION, "the main screen", |_| {
            self.tmux.format(SESSION, "#{alternate_on}") == "0"
        });
        assert_eq!(
            self.tmux.format(SESSION, "#{cursor_flag}"),
            "1",
            "{what}: the cursor is shown"
        );
        // `$?` first, before any other command replaces it.
        let status = self.shell("echo \"$?\" > status; stty -g > after; cmp -s before after");
        assert!(
            status.ends_with("=0"),
            "{what}: the tty mode changed ({status})"
        );
        let log = std::fs::read(&self.log).expect("the pane's log");
        let bytes = &log[from.min(log.len())..];
        // From the last time it took the screen (a suspend writes only the way out).
        let after = &bytes[find_last(bytes, b"\x1b[?1049h").unwrap_or(0)..];
        assert!(
            find_last(after, b"\x1b[?1049l").is_some(),
            "{what}: no ESC[?1049l after the last ESC[?1049h"
        );
        let hidden = find_last(after, b"\x1b[?25l").unwrap_or(0);
        assert!(
            find_last(&after[hidden..], b"\x1b[?25h").is_some(),
            "{what}: the cursor was not shown after it was last hidden"
        );
        std::fs::read_to_string(self.dir.join("status"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
    }
}

fn find_last(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// Ctrl-Z, then `fg`; then SIGTSTP, then `fg`: each time the terminal is restored while the
/// program is stopped, and its screen comes back after.
fn suspend_and_resume(bench: &mut Bench, args: &str, marker: &str) {
    let from = bench.launch(args, marker);
    for (how, stop) in [("Ctrl-Z", None), ("SIGTSTP", Some("TSTP"))] {
        let what = format!("idem {args} after {how}");
        let from = bench.log_len();
        match stop {
            None => bench.tmux.press(SESSION, "C-z"),
            Some(signal) => bench.kill(signal),
        }
        let status = bench.assert_restored(from, &what);
        assert_eq!(
            status,
            Some(128 + 19),
            "{what}: the shell saw it stop (SIGSTOP)"
        );
        bench.tmux.type_text(SESSION, "fg");
        bench.tmux.press(SESSION, "Enter");
        bench
            .tmux
            .wait_for(SESSION, "the screen to come back", |s| s.contains(marker));
        assert_eq!(
            bench.tmux.format(SESSION, "#{alternate_on}"),
            "1",
            "{what}: back on the alternate screen"
        );
    }
    bench.tmux.press(SESSION, "q");
    let status = bench.assert_restored(from, &format!("idem {args} quit after fg"));
    assert_eq!(status, Some(0), "q after fg");
}

/// Runs the whole check for one program.
fn check_program(tag: &str, args: &str, marker: &str) -> Option<Bench> {
    if !tmux_ready("the signal tests") {
        return None;
    }
    let mut bench = Bench::start(tag);
    ending_signals(&mut bench, args, marker);
    suspend_and_resume(&mut bench, args, marker);
    Some(bench)
}

/// For each signal that ends a program: it ends by that signal (the shell sees 128 + its
/// number), and the terminal is restored.
fn ending_signals(bench: &mut Bench, args: &str, marker: &str) {
    for (signal, number) in [("TERM", 15), ("INT", 2), ("HUP", 1), ("QUIT", 3)] {
        let what = format!("idem {args} on SIG{signal}");
        let from = bench.launch(args, marker);
        bench.kill(signal);
        let status = bench.assert_restored(from, &what);
        assert_eq!(status, Some(128 + number), "{what}");
    }
}

#[test]
fn the_replay_restores_the_terminal_on_every_signal() {
    let story = common::corpus("control-chars.toml");
    let Some(bench) = check_program("sig-replay", &format!("'{story}'"), "tick 1/") else {
        return;
    };
    // The hostile scenario's escape sequences never reached the terminal: once the screen's
    // own CSI sequences are taken out, no ESC, BEL, C1 or bidi control is left.
    let log = std::fs::read(&bench.log).expect("the pane's log");
    assert_only_csi(&log, "the replay's output");
}

#[test]
fn present_restores_the_terminal_on_every_signal() {
    check_program("sig-present", "present", "⏲");
}

#[test]
fn notes_restore_the_terminal_on_every_signal() {
    check_program("sig-notes", "notes", "No presenter is running");
}

#[test]
fn the_window_screen_restores_the_terminal_on_every_signal() {
    check_program("sig-window", "window --tui", "retry window");
}

/// The terminal is taken while the story is read: a story that cannot be opened gives it
/// back first, so its reason is printed on the screen the program was started from, and the
/// tty is as it was.
#[test]
fn a_story_that_cannot_open_gives_the_terminal_back_before_its_reason() {
    if !tmux_ready("the signal tests") {
        return;
    }
    let mut bench = Bench::start("sig-refused");
    let bad = bench.dir.join("bad.toml");
    std::fs::write(&bad, "[scenario]\nname = 3\n").expect("a scratch scenario");
    let bin = env!("CARGO_BIN_EXE_idem");
    for (args, reason) in [
        (format!("'{}'", bad.display()), "unknown field `scenario`"),
        ("--step-keys none".to_string(), "no [[step]]"),
    ] {
        let from = bench.log_len();
        let done = bench.shell(&format!(
            "{bin} {args} 2> reason; echo \"$?\" > status; stty -g > after; cmp -s before after"
        ));
        assert!(done.ends_with("=0"), "idem {args}: the tty mode changed");
        let status = std::fs::read_to_string(bench.dir.join("status")).unwrap_or_default();
        assert_eq!(status.trim(), "2", "idem {args}");
        let said = std::fs::read_to_string(bench.dir.join("reason")).unwrap_or_default();
        assert!(said.contains(reason), "idem {args} said {said:?}");
        assert_eq!(bench.tmux.format(SESSION, "#{alternate_on}"), "0");
        // Whatever it took of the screen, it gave back: the last alternate screen entered
        // is left, and the cursor shown.
        let log = std::fs::read(&bench.log).expect("the pane's log");
        let bytes = &log[from.min(log.len())..];
        if let Some(entered) = find_last(bytes, b"\x1b[?1049h") {
            assert!(
                find_last(&bytes[entered..], b"\x1b[?1049l").is_some(),
                "idem {args}: the alternate screen was not left"
            );
            assert!(
                find_last(&bytes[entered..], b"\x1b[?25h").is_some(),
                "idem {args}: the cursor was not shown again"
            );
        }
    }
}

/// Fails if anything but CSI sequences (`ESC [` … final byte), line ends and text is in
/// `bytes`: no OSC, no BEL, no C1 control, no bidi control.
fn assert_only_csi(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            let next = chars.next();
            match next {
                Some('[') => {
                    for f in chars.by_ref() {
                        if ('@'..='~').contains(&f) {
                            break;
                        }
                    }
                }
                // Save and restore the cursor, as a shell or tmux may send.
                Some('7' | '8' | '=' | '>') => {}
                other => panic!("{what}: ESC followed by {other:?}"),
            }
            continue;
        }
        let bad = (c.is_control() && !matches!(c, '\n' | '\r' | '\u{8}'))
            || matches!(c, '\u{80}'..='\u{9f}' | '\u{061c}' | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}');
        assert!(!bad, "{what}: {c:?} reached the terminal");
    }
}

/// Whether a process is still running (a zombie counts as gone).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| !stat.split(") ").nth(1).is_some_and(|s| s.starts_with('Z')))
}

/// When its terminal goes away (the window closed, the tmux server killed), every full-screen
/// program ends within a few seconds rather than spinning on a terminal that only says EOF.
#[test]
fn every_screen_ends_when_its_terminal_goes_away() {
    if !common::tmux_ready("a screen whose terminal goes away") {
        return;
    }
    for args in [
        &[][..],
        &["present"][..],
        &["notes"][..],
        &["window", "--tui"][..],
    ] {
        let tmux = common::Tmux::start("hangup");
        let mut command = vec![
            "new-session",
            "-d",
            "-s",
            "gone",
            "-x",
            "80",
            "-y",
            "24",
            common::IDEM,
        ];
        command.extend_from_slice(args);
        let out = tmux.run(&command);
        assert!(out.status.success(), "tmux new-session: {out:?}");
        std::thread::sleep(std::time::Duration::from_millis(800));
        let pid = tmux.format("gone", "#{pane_pid}");
        assert!(!pid.is_empty() && running(&pid), "idem {args:?} started");
        let _ = tmux.run(&["kill-server"]);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while running(&pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let alive = running(&pid);
        if alive {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid])
                .status();
        }
        assert!(
            !alive,
            "idem {args:?} kept running after its terminal went away"
        );
    }
}

/// A story of 64 orders, each tried 12 times: the explorer's plans run to millions.
fn big_story() -> String {
    common::inline::many_orders(64, 12, "2s", "")
}

/// The jobs that once ran on the screen's thread (the picker opening a FIFO named `*.toml`,
/// the explorer on a story of millions of plans) run beside it: every ending signal still
/// ends the program at once with the terminal given back, and Esc stops a search.
#[test]
fn long_jobs_never_hold_the_screen() {
    if !tmux_ready("the signal tests") {
        return;
    }
    let mut bench = Bench::start("sig-long");
    bench.shell("mkfifo a.toml");
    std::fs::write(bench.dir.join("big.toml"), big_story()).expect("writes");
    for (signal, number) in [("TERM", 15), ("INT", 2), ("HUP", 1)] {
        let what = format!("the picker beside a FIFO, on SIG{signal}");
        let from = bench.launch("reply-lost", "tick 1/");
        bench.tmux.press(SESSION, "o");
        bench
            .tmux
            .wait_for(SESSION, "the picker", |s| s.contains("Open a scenario"));
        bench.kill(signal);
        let status = bench.assert_restored(from, &what);
        assert_eq!(status, Some(128 + number), "{what}");

        let what = format!("the explorer on 64 orders, on SIG{signal}");
        let from = bench.launch("big.toml", "tick 1/");
        bench.tmux.press(SESSION, "e");
        bench.tmux.wait_for(SESSION, "the search's progress", |s| {
            s.contains("Esc stops")
        });
        bench.kill(signal);
        let status = bench.assert_restored(from, &what);
        assert_eq!(status, Some(128 + number), "{what}");
    }
    // Esc stops the search, and what it found so far is shown, marked partial.
    let from = bench.launch("big.toml", "tick 1/");
    bench.tmux.press(SESSION, "e");
    bench.tmux.wait_for(SESSION, "the search's progress", |s| {
        s.contains("Esc stops")
    });
    bench.tmux.press(SESSION, "Escape");
    bench
        .tmux
        .wait_for(SESSION, "the partial matrix", |s| s.contains("Partial:"));
    bench.tmux.press(SESSION, "Escape");
    bench.tmux.press(SESSION, "q");
    bench.assert_restored(from, "q after a stopped search");
}

/// `present --results`: the room's answers are in the file as soon as they are given, so a
/// talk ended by any signal (SIGKILL included, which nothing can catch) leaves them there,
/// whole.
#[test]
fn the_rooms_answers_survive_every_ending_of_the_talk() {
    if !tmux_ready("the results tests") {
        return;
    }
    let story = common::manifest("scenarios/crash-after-key.toml");
    for signal in ["TERM", "INT", "HUP", "QUIT", "KILL"] {
        let mut bench = Bench::start(&format!("results-{}", signal.to_lowercase()));
        let file = format!("answers-{signal}.json");
        let args = format!("present '{story}' --results {file}");
        bench.launch(&args, "⏲");
        let question = "Question for the room";
        for _ in 0..40 {
            if bench.tmux.screen(SESSION).contains(question) {
                break;
            }
            bench.tmux.press(SESSION, "Right");
            std::thread::sleep(std::time::Duration::from_millis(150));
        }
        bench
            .tmux
            .wait_for(SESSION, question, |s| s.contains(question));
        bench.tmux.press(SESSION, "a");
        bench.tmux.press(SESSION, "2");
        let path = bench.dir.join(&file);
        let answered = |text: &str| {
            serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| {
                v["parts"][0]["questions"]
                    .as_array()
                    .is_some_and(|q| q.iter().any(|q| q["answer"] == 2))
            })
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while !std::fs::read_to_string(&path).is_ok_and(|t| answered(&t)) {
            assert!(
                std::time::Instant::now() < deadline,
                "SIG{signal}: the answer never reached {}",
                path.display()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        bench.kill(signal);
        std::thread::sleep(std::time::Duration::from_millis(500));
        let text = std::fs::read_to_string(&path).expect("the results file");
        assert!(answered(&text), "SIG{signal}: {text}");
    }
}
