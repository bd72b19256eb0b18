//! The one event loop every full-screen program of idem runs in: the replay (and presenter
//! mode), the retention calculator on its own, and the speaker notes.
//!
//! A [`Program`] is pure: it turns terminal events into messages, updates itself with a
//! message (the only way its state changes) and draws itself. Its effects, and the news that
//! comes from outside (timers, files, other threads, sockets), belong to its [`Runtime`]. The
//! loop is generic over the [`Host`] (a real terminal, or a `TestBackend` with a scripted
//! stream of events), so tests drive the very loop the binary runs.

use super::theme::Theme;
use ratatui::crossterm::event::Event;
use ratatui::{Frame, Terminal, backend::Backend};
use std::collections::VecDeque;
use std::io;
use std::time::Duration;

/// What a wait for input brought.
#[derive(Debug)]
pub enum Wake {
    /// A key, a resize or another terminal event (the host handles Ctrl-Z itself, never
    /// passing it on).
    Event(Event),
    /// Nothing came within the time given.
    Timeout,
    /// The program was suspended and resumed: draw everything again.
    Redraw,
    /// A signal asked the program to end: return, so the session is dropped.
    End,
}

/// A full-screen program: messages in, effects out, a frame drawn from its state.
pub trait Program {
    type Msg;
    type Effect;
    /// What a frame says about where it drew things a click can choose: the loop keeps the
    /// last frame's and hands it to [`Program::message_at`]. The state never holds it, so
    /// drawing changes nothing in it. `()` for a program no click acts on.
    type Hits: Default;
    /// The message a terminal event stands for, if any.
    fn message(&self, event: &Event) -> Option<Self::Msg>;
    /// The message a terminal event stands for, read against where the last frame drew
    /// things: by default, as [`Program::message`].
    fn message_at(&self, event: &Event, hits: &Self::Hits) -> Option<Self::Msg> {
        let _ = hits;
        self.message(event)
    }
    /// Applies a message; the only place the program's state changes.
    fn update(&mut self, msg: Self::Msg) -> Vec<Self::Effect>;
    fn view(&self, frame: &mut Frame, theme: &Theme);
    /// Draws a frame and says where it drew what a click can choose: by default, as
    /// [`Program::view`], with nothing to choose.
    fn view_hits(&self, frame: &mut Frame, theme: &Theme) -> Self::Hits {
        self.view(frame, theme);
        Self::Hits::default()
    }
    /// Told once, when the first frame is on the screen.
    fn shown(&mut self) {}
    /// Whether the program has finished.
    fn done(&self) -> bool;
}

/// Where a program's effects run, and where news from outside comes from.
pub trait Runtime<P: Program> {
    /// Starts an effect; what comes of it arrives later through [`Runtime::news`].
    fn run(&mut self, effect: P::Effect, program: &P);
    /// Messages from outside since the last look, oldest first.
    fn news(&mut self, program: &P) -> Vec<P::Msg>;
    /// How long the loop may wait for a key before it must look at the news again.
    fn patience(&self, program: &P) -> Duration;
}

/// A runtime with no effects and no news: for programs that only answer keys.
pub struct Quiet;

impl<P: Program> Runtime<P> for Quiet {
    fn run(&mut self, _: P::Effect, _: &P) {}
    fn news(&mut self, _: &P) -> Vec<P::Msg> {
        Vec::new()
    }
    fn patience(&self, _: &P) -> Duration {
        Duration::from_secs(3600)
    }
}

/// A screen to draw on and a source of events.
pub trait Host {
    type Backend: Backend;
    fn terminal(&mut self) -> &mut Terminal<Self::Backend>;
    /// Waits up to `timeout` for an event.
    fn wait(&mut self, timeout: Duration) -> io::Result<Wake>;
    /// True the first time it is asked when nothing has been drawn on the terminal since it
    /// was made: its screen and ratatui's buffers are blank, and the first frame is found by
    /// comparing it with blank cells ([`super::first`]).
    fn first_frame(&mut self) -> bool;
}

/// Runs `program` until it is done or the host asks it to end.
pub fn run<H: Host, P: Program, R: Runtime<P>>(
    host: &mut H,
    program: &mut P,
    runtime: &mut R,
    theme: &Theme,
) -> io::Result<()> {
    let mut dirty = true;
    let mut shown = false;
    let mut hits = P::Hits::default();
    loop {
        for msg in runtime.news(program) {
            dispatch(program, runtime, msg);
            dirty = true;
        }
        if program.done() {
            return Ok(());
        }
        if dirty {
            let first = host.first_frame();
            let terminal = host.terminal();
            let paint = |frame: &mut ratatui::Frame| hits = program.view_hits(frame, theme);
            let drawn = if first {
                super::first::draw_on_blank(terminal, paint)
            } else {
                terminal.draw(paint).map(|_| ())
            };
            drawn.map_err(|e| io::Error::other(e.to_string()))?;
            dirty = false;
            if !shown {
                shown = true;
                program.shown();
            }
        }
        match host.wait(runtime.patience(program))? {
            Wake::Event(event) => {
                if let Some(msg) = program.message_at(&event, &hits) {
                    dispatch(program, runtime, msg);
                    dirty = true;
                }
                dirty |= matches!(event, Event::Resize(..));
            }
            Wake::Redraw => dirty = true,
            Wake::Timeout => {}
            Wake::End => return Ok(()),
        }
        if program.done() {
            return Ok(());
        }
    }
}

fn dispatch<P: Program, R: Runtime<P>>(program: &mut P, runtime: &mut R, msg: P::Msg) {
    for effect in program.update(msg) {
        runtime.run(effect, program);
    }
}

/// A host for tests: any backend (a `TestBackend`), and events from a script. When the
/// script runs out the program is asked to end, so a test never waits.
pub struct Scripted<B: Backend> {
    pub terminal: Terminal<B>,
    pub events: VecDeque<Wake>,
    /// Every wait the loop asked for, in order.
    pub waits: Vec<Duration>,
    /// Nothing has been drawn yet.
    blank: bool,
}

impl<B: Backend> Scripted<B> {
    pub fn new(backend: B, events: impl IntoIterator<Item = Wake>) -> io::Result<Scripted<B>> {
        Ok(Scripted {
            terminal: Terminal::new(backend).map_err(|e| io::Error::other(e.to_string()))?,
            events: events.into_iter().collect(),
            waits: Vec::new(),
            blank: true,
        })
    }
}

impl<B: Backend> Host for Scripted<B> {
    type Backend = B;

    fn terminal(&mut self) -> &mut Terminal<B> {
        &mut self.terminal
    }

    fn wait(&mut self, timeout: Duration) -> io::Result<Wake> {
        self.waits.push(timeout);
        let wake = self.events.pop_front().unwrap_or(Wake::End);
        if matches!(wake, Wake::Timeout) {
            // A scripted timeout lets a little real time pass, for work on other threads.
            std::thread::sleep(timeout.min(Duration::from_millis(20)));
        }
        Ok(wake)
    }

    fn first_frame(&mut self) -> bool {
        std::mem::replace(&mut self.blank, false)
    }
}
