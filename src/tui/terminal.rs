//! The replay's event loop on a real terminal (a [`Session`]), redrawing only when something
//! changed.

use super::app::App;
use super::keymap::map_key;
use super::msg::Msg;
use super::session::{Session, Wake};
use super::story::{After, Job, Prepared, prepare};
use super::theme::Theme;
use super::update::update;
use super::view;
use crate::present::link::{Position, Publisher, socket_place};
use ratatui::crossterm::event::Event;
use std::io;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

/// How often the loaded file is looked at for changes.
const WATCH_EVERY: Duration = Duration::from_millis(400);

/// Notices when the scenario file changes on disk, by its modification time and size.
struct Watch {
    path: Option<PathBuf>,
    seen: Option<(SystemTime, u64)>,
}

impl Watch {
    fn new(path: Option<PathBuf>) -> Watch {
        let seen = path.as_deref().and_then(stamp);
        Watch { path, seen }
    }

    fn changed(&mut self) -> bool {
        let Some(path) = self.path.as_deref() else {
            return false;
        };
        let now = stamp(path);
        // A file being rewritten may vanish for a moment: wait for it to come back.
        if now.is_none() || now == self.seen {
            return false;
        }
        self.seen = now;
        true
    }
}

fn stamp(path: &std::path::Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// Why this terminal cannot show the full-screen interface, if it cannot. `TERM=dumb` says
/// the terminal moves no cursor and draws no colour: the screen would be a stream of escape
/// sequences, so nothing is drawn and the caller points at a plain-text command instead.
pub fn unable_to_draw() -> Option<&'static str> {
    match std::env::var("TERM") {
        Ok(term) if term == "dumb" => {
            Some("this terminal (TERM=dumb) cannot draw the full-screen interface")
        }
        _ => None,
    }
}

/// Runs the replay until the viewer quits.
pub fn run(mut app: App) -> io::Result<()> {
    let theme = Theme::from_env();
    // Restored on every way out: quit, error, panic, and the signals that end or suspend it.
    let mut session = Session::start()?;
    let mut dirty = true;
    let mut next_step = Instant::now() + app.pace();
    let mut watch = Watch::new(app.path.clone());
    let started = Instant::now();
    // In presenter mode the position goes out to `idem notes` over a local socket.
    let mut link = app.present.map(|_| NotesLink::new());
    // New stories (what-ifs, reloads, other scenarios) are simulated on another thread.
    app.background = true;
    let mut simulation: Option<Simulation> = None;
    loop {
        if let Some(job) = app.job.take() {
            simulation = Some(Simulation::start(job, app.present.is_some()));
            dirty = true;
        }
        if let Some(result) = simulation.as_ref().and_then(Simulation::result) {
            if let Some(s) = simulation.take() {
                app.finish(s.after, result);
            }
            dirty = true;
        }
        if let Some(p) = app.present.as_mut() {
            let secs = started.elapsed().as_secs();
            if secs != p.elapsed_secs {
                p.elapsed_secs = secs;
                dirty |= p.show_elapsed;
            }
        }
        if watch.path != app.path {
            watch = Watch::new(app.path.clone());
        }
        // A change to the file waits for the story being simulated, then is read.
        if simulation.is_none() && watch.changed() {
            app.reload(watch.path.as_deref().map(crate::scenario::load));
            dirty = true;
        }
        // Before drawing: the socket is there, or the notice says why not, by the first frame.
        if let Some(link) = link.as_mut() {
            dirty |= link.publish(&mut app);
        }
        if dirty {
            session.draw(|frame| view::draw(frame, &app, &theme))?;
            dirty = false;
        }
        // A watched file and presenter mode (its clock, and notes that may connect at any
        // moment) both need the loop to wake now and then; otherwise it sleeps until a key.
        let idle = if simulation.is_some() {
            SIMULATION_CHECK
        } else if app.path.is_some() || app.present.is_some() {
            WATCH_EVERY
        } else {
            Duration::from_secs(3600)
        };
        let timeout = if app.playing {
            next_step
                .saturating_duration_since(Instant::now())
                .min(idle)
        } else {
            idle
        };
        match session.wait(timeout)? {
            Wake::Event(Event::Key(key)) => {
                if let Some(msg) = map_key(key, &app) {
                    let was_playing = app.playing;
                    update(&mut app, msg);
                    if app.playing && !was_playing {
                        next_step = Instant::now() + app.pace();
                    }
                    dirty = true;
                }
            }
            Wake::Event(Event::Resize(_, _)) | Wake::Redraw => dirty = true,
            Wake::Event(_) => {}
            Wake::End => return Ok(()),
            Wake::Timeout => {
                if app.playing && Instant::now() >= next_step {
                    update(&mut app, Msg::PlayStep);
                    next_step = Instant::now() + app.pace();
                    dirty = true;
                }
            }
        }
        if app.quit {
            return Ok(());
        }
    }
}

/// How often the loop looks for a finished simulation while one runs.
const SIMULATION_CHECK: Duration = Duration::from_millis(30);

/// A story being simulated on its own thread.
struct Simulation {
    after: After,
    done: mpsc::Receiver<Result<Prepared, String>>,
}

impl Simulation {
    /// Simulates `job` on a thread of its own; `for_notes` also writes the story as a file.
    fn start(job: Job, for_notes: bool) -> Simulation {
        let (tx, done) = mpsc::channel();
        let Job {
            original,
            added,
            after,
        } = job;
        std::thread::spawn(move || {
            let prepared = prepare(original, added);
            let _ = tx.send(if for_notes {
                prepared.map(Prepared::with_file)
            } else {
                prepared
            });
        });
        Simulation { after, done }
    }

    /// The outcome, once there is one.
    fn result(&self) -> Option<Result<Prepared, String>> {
        match self.done.try_recv() {
            Ok(result) => Some(result),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => {
                Some(Err("the simulation stopped without an answer".into()))
            }
        }
    }
}

/// How often the presenter tries again to open the notes' socket while the notes are off.
const RETRY_NOTES_EVERY: Duration = Duration::from_secs(2);

/// The presenter's side of the speaker notes: the socket, or why there is none (kept in
/// `app.notes_off`, and tried again now and then), and the scenario's text as last sent.
struct NotesLink {
    publisher: Option<Publisher>,
    last_try: Option<Instant>,
    /// The scenario as TOML for `app.revision`: worked out once per story, not per wake.
    scenario: Option<(u64, String)>,
    /// The story, design and tick last published.
    sent: Option<(u64, crate::sim::Design, usize)>,
}

impl NotesLink {
    fn new() -> NotesLink {
        NotesLink {
            publisher: None,
            last_try: None,
            scenario: None,
            sent: None,
        }
    }

    /// Opens the socket if it is not open (at most every few seconds) and sends the
    /// position; returns whether the notice on screen changed.
    fn publish(&mut self, app: &mut App) -> bool {
        let due = self
            .last_try
            .is_none_or(|t| t.elapsed() >= RETRY_NOTES_EVERY);
        let before = app.notes_off.clone();
        if self.publisher.is_none() && due {
            self.last_try = Some(Instant::now());
            match Publisher::bind_at(&socket_place()) {
                Ok(p) => {
                    self.publisher = Some(p);
                    app.notes_off = None;
                }
                Err(e) => app.notes_off = Some(crate::text::sanitize_line(&e.to_string())),
            }
        }
        if let Some(p) = self.publisher.as_mut() {
            let now = (app.revision, app.design, app.tick);
            if self.sent != Some(now) {
                if self
                    .scenario
                    .as_ref()
                    .is_none_or(|(r, _)| *r != app.revision)
                {
                    // Written along with the simulation, off this thread, when it could be;
                    // the file as loaded if the what-if cannot be written.
                    let text = match &app.file {
                        Some((revision, text)) if *revision == app.revision => text.clone(),
                        _ => crate::scenario::fork::to_toml(&app.original, &app.added)
                            .unwrap_or_else(|_| app.original.source.clone()),
                    };
                    self.scenario = Some((app.revision, text));
                }
                let scenario = self
                    .scenario
                    .as_ref()
                    .map_or(String::new(), |(_, t)| t.clone());
                p.publish(&Position {
                    source: app.source.clone(),
                    scenario,
                    design: app.design.id().to_string(),
                    tick: app.tick,
                });
                self.sent = Some(now);
            } else {
                p.serve();
            }
        }
        before != app.notes_off
    }
}
