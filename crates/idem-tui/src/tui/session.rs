//! The one terminal session every full-screen loop runs in (the replay, `present`, `notes`,
//! `window --tui`): raw mode and the alternate screen on the way in, and the terminal given
//! back on every way out — quit, error, panic, and the signals that end or suspend a program.
//!
//! - SIGTERM, SIGINT, SIGHUP and SIGQUIT, or a terminal that hangs up without a signal: the
//!   loop is told to end; once the session is dropped
//!   (terminal restored) the signal's own default action ends the process, so the shell sees
//!   what ended it.
//! - Ctrl-Z (a key in raw mode) and SIGTSTP: the terminal is restored and the process stops;
//!   on `fg` (SIGCONT) it takes the screen again and everything is redrawn.
//!
//! The signals are caught with `signal-hook` and only looked at between events, on the
//! loop's own thread, so restoring never races with drawing.

use super::backend::Direct;
use super::program::Wake;
use ratatui::Terminal;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::{cursor, execute, terminal};
use signal_hook::consts::signal::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
use signal_hook::iterator::Signals;
use std::io;
use std::time::{Duration, Instant};

/// The longest the loop waits for input before it looks at the signals again.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// The terminal a session draws on.
pub type Screen = Terminal<Direct<FrameOut<io::Stdout>>>;

/// Output for a frame: what ratatui writes while drawing is gathered, and goes out in one
/// write when it flushes the backend after the frame, rather than in the pieces of a kilobyte
/// that standard output's line buffer sends. Every other command the backend is given (the
/// cursor shown or hidden, the screen cleared) flushes at once, so nothing is pending when
/// the session writes to the terminal itself; and a frame cut short by a panic in its
/// drawing has queued nothing yet, since the backend is written only after the whole frame
/// is drawn.
pub struct FrameOut<W: io::Write> {
    pending: Vec<u8>,
    out: W,
}

impl<W: io::Write> FrameOut<W> {
    pub fn new(out: W) -> FrameOut<W> {
        FrameOut {
            pending: Vec::with_capacity(1 << 16),
            out,
        }
    }
}

impl<W: io::Write> io::Write for FrameOut<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let written = self.out.write_all(&self.pending);
        // Sent or not (a terminal that hung up), a frame is never sent twice.
        self.pending.clear();
        written?;
        self.out.flush()
    }
}

/// A full-screen terminal, restored when dropped.
pub struct Session {
    terminal: Screen,
    signals: Signals,
    /// The signal that ended the session, re-raised once the terminal is restored.
    ended_by: Option<i32>,
    /// Standard input is the terminal, so it can be waited on directly.
    stdin_is_terminal: bool,
    /// A thread watches for the terminal hanging up (started by the first wait, once the
    /// first frame is out).
    watching: bool,
    /// Nothing has been drawn yet.
    blank: bool,
    /// The terminal reports clicks and the wheel (taken again after a suspend).
    mouse: bool,
}

impl Session {
    /// Catches the signals, then takes the terminal (raw mode, alternate screen, and a panic
    /// hook that restores it before the report).
    pub fn start() -> io::Result<Session> {
        let signals = Signals::new([SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT])?;
        let terminal = take_terminal()?;
        let stdin_is_terminal = io::IsTerminal::is_terminal(&io::stdin());
        Ok(Session {
            terminal,
            signals,
            ended_by: None,
            stdin_is_terminal,
            watching: false,
            blank: true,
            mouse: false,
        })
    }

    /// As [`Session::start`], with the terminal reporting clicks and the wheel; a panic,
    /// like every other way out, turns the reports off again before the terminal is left.
    pub fn start_with_mouse() -> io::Result<Session> {
        let mut session = Session::start()?;
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = execute!(io::stdout(), event::DisableMouseCapture);
            before(info);
        }));
        execute!(io::stdout(), event::EnableMouseCapture)?;
        session.mouse = true;
        Ok(session)
    }

    /// Waits up to `timeout` for a terminal event, handling signals and Ctrl-Z meanwhile.
    pub fn wait(&mut self, timeout: Duration) -> io::Result<Wake> {
        if self.stdin_is_terminal && !self.watching {
            watch_for_hangup();
            self.watching = true;
        }
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(wake) = self.take_signals()? {
                return Ok(wake);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let slice = left.min(SIGNAL_CHECK);
            // Wait on the terminal here, not inside the event reader: a terminal that hung up
            // reads as an endless EOF, which the reader would spin on without returning. (When
            // standard input is not the terminal, the reader opens the terminal itself.)
            let reader_waits = if self.stdin_is_terminal {
                if stdin_wait(slice) == Stdin::HungUp {
                    self.ended_by = Some(SIGHUP);
                    return Ok(Wake::End);
                }
                // Keys were waited for above; a resize waits in the reader's own queue.
                Duration::ZERO
            } else {
                slice
            };
            if event::poll(reader_waits)? {
                let event = event::read()?;
                if is_suspend_key(&event) {
                    self.suspend()?;
                    return Ok(Wake::Redraw);
                }
                return Ok(Wake::Event(event));
            }
            if left.is_zero() {
                return Ok(Wake::Timeout);
            }
        }
    }

    /// What the signals that came since the last look ask for, the strongest first.
    fn take_signals(&mut self) -> io::Result<Option<Wake>> {
        let pending: Vec<i32> = self.signals.pending().collect();
        if let Some(&end) = pending
            .iter()
            .find(|s| [SIGTERM, SIGINT, SIGHUP, SIGQUIT].contains(s))
        {
            self.ended_by = Some(end);
            return Ok(Some(Wake::End));
        }
        if pending.contains(&SIGTSTP) {
            self.suspend()?;
            return Ok(Some(Wake::Redraw));
        }
        if pending.contains(&SIGCONT) {
            // Resumed after a stop this program did not ask for: the screen may be stale.
            self.terminal.clear()?;
            return Ok(Some(Wake::Redraw));
        }
        Ok(None)
    }

    /// Gives the terminal back, stops until `fg`, then takes it again for a full redraw.
    fn suspend(&mut self) -> io::Result<()> {
        restore();
        stop_process_group()?;
        terminal::enable_raw_mode()?;
        execute!(io::stdout(), terminal::EnterAlternateScreen)?;
        if self.mouse {
            execute!(io::stdout(), event::EnableMouseCapture)?;
        }
        self.terminal.clear()
    }
}

/// What `ratatui::try_init` does, on a buffered standard output: a panic hook that gives the
/// terminal back before the report, raw mode, and the alternate screen.
fn take_terminal() -> io::Result<Screen> {
    let before = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        ratatui::restore();
        before(info);
    }));
    terminal::enable_raw_mode()?;
    execute!(io::stdout(), terminal::EnterAlternateScreen)?;
    Terminal::new(Direct::new(FrameOut::new(io::stdout())))
}

/// Stops this process and the others of its job (a `cargo run` or a wrapper script), as the
/// terminal's own Ctrl-Z would; returns once `fg` continues them. SIGSTOP rather than SIGTSTP:
/// this process catches SIGTSTP itself.
fn stop_process_group() -> io::Result<()> {
    // SAFETY: kill(2) with pid 0 signals the caller's own process group; it takes no pointers.
    if unsafe { libc::kill(0, libc::SIGSTOP) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// What standard input (the terminal) has to say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stdin {
    /// Input is waiting, or nothing came in the time given.
    Quiet,
    /// The terminal went away: its window closed, its pty master shut.
    HungUp,
}

/// Waits up to `timeout` for the terminal on standard input to have input or to hang up.
fn stdin_wait(timeout: Duration) -> Stdin {
    let mut fd = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
    // SAFETY: poll(2) on one valid, initialised pollfd.
    let ready = unsafe { libc::poll(&mut fd, 1, ms) };
    if ready > 0 && fd.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
        Stdin::HungUp
    } else {
        Stdin::Quiet
    }
}

/// Ends the process once its terminal (on standard input) has been gone for a second, for the rare hangup that
/// lands while the event reader is reading (where it would spin): with no terminal left there
/// is nothing to restore.
fn watch_for_hangup() {
    std::thread::spawn(|| {
        let mut gone_since: Option<Instant> = None;
        loop {
            std::thread::sleep(Duration::from_millis(250));
            if stdin_wait(Duration::ZERO) == Stdin::HungUp {
                let since = *gone_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= Duration::from_secs(1) {
                    std::process::exit(128 + SIGHUP);
                }
            } else {
                gone_since = None;
            }
        }
    });
}

fn is_suspend_key(event: &Event) -> bool {
    matches!(event, Event::Key(k)
        if k.kind != KeyEventKind::Release
            && k.code == KeyCode::Char('z')
            && k.modifiers.contains(KeyModifiers::CONTROL))
}

/// Leaves raw mode and the alternate screen, stops mouse reports, and shows the cursor again.
fn restore() {
    // Raw mode first: leaving it has more effects than leaving the alternate screen.
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        event::DisableMouseCapture,
        terminal::LeaveAlternateScreen,
        cursor::Show
    );
}

impl super::program::Host for Session {
    type Backend = Direct<FrameOut<io::Stdout>>;

    fn terminal(&mut self) -> &mut Screen {
        &mut self.terminal
    }

    fn wait(&mut self, timeout: Duration) -> io::Result<Wake> {
        Session::wait(self, timeout)
    }

    fn first_frame(&mut self) -> bool {
        std::mem::replace(&mut self.blank, false)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        restore();
        if let Some(signal) = self.ended_by {
            // The terminal is back: now end as that signal would have ended the program.
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(128 + signal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FrameOut;
    use std::io::{self, Write};

    /// What the terminal was sent, and whether sending fails.
    struct Sink<'a> {
        sent: &'a mut Vec<Vec<u8>>,
        broken: bool,
    }

    impl Write for Sink<'_> {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if self.broken {
                return Err(io::Error::other("the terminal hung up"));
            }
            self.sent.push(bytes.to_vec());
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A frame goes out whole in one write when flushed, never twice, and a frame that was
    /// never flushed is never sent.
    #[test]
    fn a_frame_goes_out_in_one_write_when_flushed() {
        let mut sent = Vec::new();
        {
            let mut out = FrameOut::new(Sink {
                sent: &mut sent,
                broken: false,
            });
            for piece in ["\x1b[1;1H", "idem", "\x1b[39m", " order 5531"] {
                out.write_all(piece.as_bytes()).expect("gathered");
            }
            out.flush().expect("sent");
            out.flush().expect("nothing left to send");
            out.write_all(b"cut short").expect("gathered");
        }
        assert_eq!(sent, vec![b"\x1b[1;1Hidem\x1b[39m order 5531".to_vec()]);
    }

    /// A terminal that cannot be written to is said, and the frame is not kept to grow.
    #[test]
    fn a_frame_that_cannot_go_out_is_said_and_let_go() {
        let mut sent = Vec::new();
        let mut out = FrameOut::new(Sink {
            sent: &mut sent,
            broken: true,
        });
        out.write_all(b"a frame").expect("gathered");
        assert!(out.flush().is_err());
        assert!(out.pending.is_empty());
    }
}
