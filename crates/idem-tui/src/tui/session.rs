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

use super::program::Wake;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::{cursor, execute, terminal};
use ratatui::{DefaultTerminal, Frame};
use signal_hook::consts::signal::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
use signal_hook::iterator::Signals;
use std::io;
use std::time::{Duration, Instant};

/// The longest the loop waits for input before it looks at the signals again.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// A full-screen terminal, restored when dropped.
pub struct Session {
    terminal: DefaultTerminal,
    signals: Signals,
    /// The signal that ended the session, re-raised once the terminal is restored.
    ended_by: Option<i32>,
    /// Standard input is the terminal, so it can be waited on directly.
    stdin_is_terminal: bool,
    /// The terminal reports clicks and the wheel (taken again after a suspend).
    mouse: bool,
}

impl Session {
    /// Catches the signals, then takes the terminal (raw mode, alternate screen, and a panic
    /// hook that restores it before the report).
    pub fn start() -> io::Result<Session> {
        let signals = Signals::new([SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT])?;
        let terminal = ratatui::try_init()?;
        let stdin_is_terminal = io::IsTerminal::is_terminal(&io::stdin());
        if stdin_is_terminal {
            watch_for_hangup();
        }
        Ok(Session {
            terminal,
            signals,
            ended_by: None,
            stdin_is_terminal,
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

    pub fn draw(&mut self, paint: impl FnOnce(&mut Frame)) -> io::Result<()> {
        self.terminal.draw(paint).map(|_| ())
    }

    /// Waits up to `timeout` for a terminal event, handling signals and Ctrl-Z meanwhile.
    pub fn wait(&mut self, timeout: Duration) -> io::Result<Wake> {
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
    type Backend = ratatui::backend::CrosstermBackend<io::Stdout>;

    fn terminal(&mut self) -> &mut DefaultTerminal {
        &mut self.terminal
    }

    fn wait(&mut self, timeout: Duration) -> io::Result<Wake> {
        Session::wait(self, timeout)
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
