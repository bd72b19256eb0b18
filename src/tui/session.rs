//! The one terminal session every full-screen loop runs in (the replay, `present`, `notes`,
//! `window --tui`): raw mode and the alternate screen on the way in, and the terminal given
//! back on every way out — quit, error, panic, and the signals that end or suspend a program.
//!
//! - SIGTERM, SIGINT, SIGHUP and SIGQUIT: the loop is told to end; once the session is dropped
//!   (terminal restored) the signal's own default action ends the process, so the shell sees
//!   what ended it.
//! - Ctrl-Z (a key in raw mode) and SIGTSTP: the terminal is restored and the process stops;
//!   on `fg` (SIGCONT) it takes the screen again and everything is redrawn.
//!
//! The signals are caught with `signal-hook` and only looked at between events, on the
//! loop's own thread, so restoring never races with drawing.

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::{cursor, execute, terminal};
use ratatui::{DefaultTerminal, Frame};
use signal_hook::consts::signal::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
use signal_hook::iterator::Signals;
use std::io;
use std::time::{Duration, Instant};

/// The longest the loop waits for input before it looks at the signals again.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// What a wait for input brought.
#[derive(Debug)]
pub enum Wake {
    /// A key, a resize or another terminal event (Ctrl-Z is handled here, never passed on).
    Event(Event),
    /// Nothing came within the time given.
    Timeout,
    /// The program was suspended and resumed: draw everything again.
    Redraw,
    /// A signal asked the program to end: return, so the session is dropped.
    End,
}

/// A full-screen terminal, restored when dropped.
pub struct Session {
    terminal: DefaultTerminal,
    signals: Signals,
    /// The signal that ended the session, re-raised once the terminal is restored.
    ended_by: Option<i32>,
}

impl Session {
    /// Catches the signals, then takes the terminal (raw mode, alternate screen, and a panic
    /// hook that restores it before the report).
    pub fn start() -> io::Result<Session> {
        let signals = Signals::new([SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT])?;
        let terminal = ratatui::try_init()?;
        Ok(Session {
            terminal,
            signals,
            ended_by: None,
        })
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
            if event::poll(left.min(SIGNAL_CHECK))? {
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

fn is_suspend_key(event: &Event) -> bool {
    matches!(event, Event::Key(k)
        if k.kind != KeyEventKind::Release
            && k.code == KeyCode::Char('z')
            && k.modifiers.contains(KeyModifiers::CONTROL))
}

/// Leaves raw mode and the alternate screen, and shows the cursor again.
fn restore() {
    // Raw mode first: leaving it has more effects than leaving the alternate screen.
    let _ = terminal::disable_raw_mode();
    let _ = execute!(io::stdout(), terminal::LeaveAlternateScreen, cursor::Show);
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
