//! The replay on a real terminal (a [`Session`]): the replay as a [`Program`], and its
//! [`Runtime`], the part that touches the world.

use super::keymap::map_key;
use super::program::{self, Program, Runtime};
use super::session::Session;
use super::theme::Theme;
use super::view;
use crate::present::link::{Position, Publisher, socket_place};
use crate::replay::app::App;
use crate::replay::effect::{Effect, run_now};
use crate::replay::msg::Msg;
use crate::replay::prepare::{After, Job, Prepared, prepare_job};
use crate::replay::update::update;
use ratatui::Frame;
use ratatui::crossterm::event::Event;
use std::io;
use std::path::{Path, PathBuf};
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

/// Why the full-screen interface cannot be shown here, if it cannot: standard output or input
/// is not a terminal (`idem > file`, `idem | cat`, input from a file), or `TERM=dumb` says the
/// terminal moves no cursor and draws no colour. The screen would be a stream of escape
/// sequences, so nothing is drawn and the caller points at a plain-text command instead.
pub fn unable_to_draw() -> Option<&'static str> {
    use std::io::IsTerminal;
    if std::env::var("TERM").is_ok_and(|t| t == "dumb") {
        return Some("this terminal (TERM=dumb) cannot draw the full-screen interface");
    }
    if !std::io::stdout().is_terminal() {
        return Some(
            "idem's screens need a terminal, and standard output is not one (a file or a pipe)",
        );
    }
    if !std::io::stdin().is_terminal() {
        return Some(
            "idem's screens need a terminal to read keys from, and standard input is not one",
        );
    }
    None
}

impl Program for App {
    type Msg = Msg;
    type Effect = Effect;
    type Hits = view::Hits;

    /// As [`Program::message_at`] with no frame drawn: a click then chooses nothing.
    fn message(&self, event: &Event) -> Option<Msg> {
        self.message_at(event, &view::Hits::default())
    }

    fn message_at(&self, event: &Event, hits: &view::Hits) -> Option<Msg> {
        match event {
            Event::Key(key) => map_key(*key, self),
            Event::Mouse(mouse) if self.screens.mouse => {
                super::keymap::map_mouse(*mouse, self, hits)
            }
            _ => None,
        }
    }

    fn update(&mut self, msg: Msg) -> Vec<Effect> {
        update(self, msg)
    }

    fn view(&self, frame: &mut Frame, theme: &Theme) {
        view::draw(frame, self, theme);
    }

    fn view_hits(&self, frame: &mut Frame, theme: &Theme) -> view::Hits {
        view::drawn(frame, self, theme)
    }

    /// The first frame may have been drawn from the story's opening alone: every later one
    /// is drawn from the whole story. The glossary's search, which the first frame did
    /// without, is built on the spare thread.
    fn shown(&mut self) {
        self.version.runs().open();
        crate::replay::spare::lend(crate::story::glossary::prepare);
    }

    fn done(&self) -> bool {
        self.quit
    }
}

/// The terminal being taken (raw mode, the alternate screen, the signals, the screen's
/// buffers) on another thread while this one reads and tells the story: the first frame waits
/// for the longer of the two, not for both. Dropped unused, it waits for the taking and gives
/// the terminal back, so a reason the replay cannot open is printed on the screen it was
/// called from.
pub struct Taking(Option<std::thread::JoinHandle<io::Result<Session>>>);

impl Taking {
    /// Starts taking the terminal, with click and wheel reports when `mouse` says so.
    pub fn start(mouse: bool) -> Taking {
        Taking(Some(std::thread::spawn(move || {
            if mouse {
                Session::start_with_mouse()
            } else {
                Session::start()
            }
        })))
    }

    /// The terminal, once taken.
    fn session(mut self) -> io::Result<Session> {
        match self.0.take() {
            Some(taking) => taking
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => Err(io::Error::other("the terminal was already taken")),
        }
    }
}

impl Drop for Taking {
    fn drop(&mut self) {
        if let Some(taking) = self.0.take() {
            // The session, if one was made, is dropped here: the terminal is given back.
            let _ = taking.join();
        }
    }
}

/// Runs the replay on a real terminal until the viewer quits; gives the replay back as it
/// ended, for a summary once the terminal is restored.
pub fn run(app: App) -> io::Result<App> {
    let mouse = app.screens.mouse;
    run_taken(app, Taking::start(mouse), None)
}

/// Where the room's answers are written while a talk runs (`idem present --results FILE`),
/// and how the last write went.
#[derive(Clone, Debug)]
pub struct ResultsOut {
    pub path: std::path::PathBuf,
    /// The user let an existing file be replaced.
    pub force: bool,
    /// After the talk: `Ok` once the answers as they ended are in the file, or why not.
    pub outcome: std::sync::Arc<std::sync::Mutex<Option<Result<(), String>>>>,
}

impl ResultsOut {
    pub fn new(path: std::path::PathBuf, force: bool) -> ResultsOut {
        ResultsOut {
            path,
            force,
            outcome: std::sync::Arc::default(),
        }
    }

    /// How the last write went, once the talk is over.
    pub fn outcome(&self) -> Option<Result<(), String>> {
        self.outcome.lock().ok().and_then(|o| o.clone())
    }
}

/// Writes the room's answers as they change, on a thread of its own so the screen never
/// waits for a disk, each write whole or not at all (a new file renamed over the old), so
/// however the talk ends (a quit, a signal, the terminal closing, SIGKILL) the file holds
/// the answers given so far.
struct ResultsWriter {
    out: ResultsOut,
    tx: Option<mpsc::Sender<String>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The answers last sent, without the clock, and when: the clock alone moves the file
    /// at most every [`CLOCK_EVERY`].
    last: Option<(String, Instant)>,
}

/// How often the talk's clock alone is written to the results.
const CLOCK_EVERY: Duration = Duration::from_secs(10);

impl ResultsWriter {
    fn start(out: ResultsOut) -> ResultsWriter {
        let (tx, rx) = mpsc::channel::<String>();
        let (path, force, outcome) = (out.path.clone(), out.force, out.outcome.clone());
        let thread = std::thread::Builder::new()
            .name("results".into())
            .spawn(move || {
                let mut ours = false;
                while let Ok(mut text) = rx.recv() {
                    // Only the newest answers matter: skip what a later change replaced.
                    while let Ok(newer) = rx.try_recv() {
                        text = newer;
                    }
                    // The first write may replace a file only when the user said so; after
                    // that the file is this talk's own.
                    let result = crate::files::write_file(&path, text.as_bytes(), force || ours);
                    ours |= result.is_ok();
                    if let Ok(mut o) = outcome.lock() {
                        *o = Some(result);
                    }
                }
            })
            .ok();
        ResultsWriter {
            out,
            tx: Some(tx),
            thread,
            last: None,
        }
    }

    /// Sends the answers as they stand, when they changed (or only the clock did, now and
    /// then), or always with `now`.
    fn offer(&mut self, app: &App, now: bool) {
        let made = crate::replay::results::results(app);
        let mut still = made.clone();
        still.elapsed_secs = 0;
        still.parts.iter_mut().for_each(|p| p.secs = 0);
        let key = crate::replay::results::render(&still, &self.out.path);
        let due = match &self.last {
            None => true,
            Some((last, at)) => *last != key || at.elapsed() >= CLOCK_EVERY,
        };
        if (due || now)
            && let Some(tx) = &self.tx
        {
            let _ = tx.send(crate::replay::results::render(&made, &self.out.path));
            self.last = Some((key, Instant::now()));
        }
    }

    /// Writes the answers as the talk ended, and waits for the write.
    fn finish(&mut self, app: &App) {
        self.offer(app, true);
        self.tx = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// As [`run`], on a terminal already being taken: `taking` was started before the story
/// was read, with the click reports `app` asks for. With `results`, the room's answers are
/// written to that file as they change, and once more as the talk ends, before the terminal
/// is given back (and before a signal that ended the talk takes the process).
pub fn run_taken(mut app: App, taking: Taking, results: Option<ResultsOut>) -> io::Result<App> {
    let theme = Theme::from_env();
    {
        // Restored on every way out: quit, error, panic, and the signals that end or suspend it.
        let mut session = taking.session()?;
        let mut runtime = Replay::new(&app);
        runtime.results = results.map(ResultsWriter::start);
        let ran = program::run(&mut session, &mut app, &mut runtime, &theme);
        if let Some(w) = runtime.results.as_mut() {
            w.finish(&app);
        }
        ran?;
    }
    Ok(app)
}

/// What a presenter prints once its terminal is given back: the room's score, the parts of
/// the session it went through and how long the talk took; `None` when the room answered
/// nothing.
pub fn summary(app: &App) -> Option<String> {
    app.talk.present?;
    let score = app.talk.session_score().text()?;
    let elapsed =
        crate::replay::shown::clock(app.talk.present.map_or(0, |p| p.elapsed_secs) as i64);
    let parts = app.talk.agenda.as_ref().map_or(String::new(), |a| {
        let shown = a.parts_shown();
        format!(" · {shown} of {} parts shown", a.playlist.sections.len())
    });
    Some(format!("the room: {score}{parts} · {elapsed}"))
}

/// The replay's side of the world: stories simulated on another thread, the autoplay timer,
/// the presenter's clock, the watched file, and the speaker notes' socket.
pub struct Replay {
    started: Instant,
    /// When autoplay takes its next step, while it plays.
    next_step: Option<Instant>,
    watch: Watch,
    /// The session file being played, when there is one.
    session: Watch,
    simulation: Option<Simulation>,
    /// Results of effects that ran at once, waiting to be delivered as news.
    ready: Vec<Msg>,
    /// In presenter mode, the link to `idem notes`.
    link: Option<NotesLink>,
    /// Jobs running beside the loop send their results here, then [`Msg::ChoreDone`].
    chores: (mpsc::Sender<Msg>, mpsc::Receiver<Msg>),
    chores_running: usize,
    /// The search progress last told to the replay.
    searched: usize,
    /// The story whose designs are being told beside the loop (by its revision).
    telling: Option<u64>,
    /// A story just on screen whose other designs are told beside the loop once its first
    /// frame is drawn (by its revision): before, that work would slow the frame down.
    to_tell: Option<u64>,
    /// With `--results`: the room's answers, written as they change.
    results: Option<ResultsWriter>,
}

impl Replay {
    pub fn new(app: &App) -> Replay {
        Replay {
            started: Instant::now(),
            next_step: None,
            watch: Watch::new(app.version.watched().map(Path::to_path_buf)),
            session: Watch::new(
                app.talk
                    .agenda
                    .as_ref()
                    .and_then(|a| a.playlist.path.clone()),
            ),
            simulation: None,
            ready: Vec::new(),
            link: app.talk.present.map(|_| NotesLink::new()),
            chores: mpsc::channel(),
            chores_running: 0,
            searched: 0,
            telling: None,
            to_tell: None,
            results: None,
        }
    }
}

impl Runtime<App> for Replay {
    fn run(&mut self, effect: Effect, app: &App) {
        match effect {
            Effect::Simulate { job, showing } => {
                self.simulation = Some(Simulation::start(job, showing, app.talk.present.is_some()));
            }
            Effect::Publish => {
                if let Some(link) = self.link.as_mut() {
                    link.publish(app);
                }
            }
            // Reading a folder or a file the user named, writing one, and a search may wait
            // or take long: beside the loop, so keys (Esc, q, Ctrl-C) are always read.
            other if crate::replay::effect::runs_beside(&other) => {
                let tx = self.chores.0.clone();
                self.chores_running += 1;
                std::thread::spawn(move || {
                    if let Some(msg) = run_now(other) {
                        let _ = tx.send(msg);
                    }
                    let _ = tx.send(Msg::ChoreDone);
                });
            }
            other => self.ready.extend(run_now(other)),
        }
    }

    fn news(&mut self, app: &App) -> Vec<Msg> {
        if let Some(w) = self.results.as_mut() {
            w.offer(app, false);
        }
        let mut news = std::mem::take(&mut self.ready);
        while let Ok(msg) = self.chores.1.try_recv() {
            match msg {
                Msg::ChoreDone => self.chores_running = self.chores_running.saturating_sub(1),
                msg => news.push(msg),
            }
        }
        if let Some(s) = &app.jobs.searching {
            let plans = s.plans_run();
            if plans != self.searched {
                self.searched = plans;
                news.push(Msg::Searched(plans));
            }
        }
        if let Some(result) = self.simulation.as_ref().and_then(Simulation::result)
            && let Some(s) = self.simulation.take()
        {
            news.push(Msg::Simulated {
                after: s.after,
                result,
            });
        }
        // A story just on screen: its other designs are told beside the loop, so switching
        // to one seldom waits (the design on screen first: drawing it waits for that alone).
        // They are started at the next look, once the story's first frame is drawn, so they
        // do not share the machine with it.
        let revision = app.version.revision;
        if self.telling != Some(revision) {
            if self.to_tell == Some(revision) {
                self.telling = Some(revision);
                self.to_tell = None;
                let (runs, first) = (app.version.runs().clone(), app.place.design);
                if !runs.all_told() {
                    // Without a thread to spare, each design is told when first wanted.
                    let _ =
                        std::thread::Builder::new().spawn(move || runs.tell_every_design(first));
                }
            } else {
                self.to_tell = Some(revision);
            }
        }
        // Autoplay: the first step a pace after play was pressed, then one per pace.
        match (app.place.playing, self.next_step) {
            (false, _) => self.next_step = None,
            (true, None) => self.next_step = Some(Instant::now() + app.place.pace()),
            (true, Some(due)) if Instant::now() >= due => {
                news.push(Msg::PlayStep);
                self.next_step = Some(Instant::now() + app.place.pace());
            }
            (true, Some(_)) => {}
        }
        if let Some(p) = app.talk.present {
            let secs = self.started.elapsed().as_secs();
            if secs != p.elapsed_secs {
                news.push(Msg::Clock(secs));
            }
        }
        if self.watch.path.as_deref() != app.version.watched() {
            self.watch = Watch::new(app.version.watched().map(Path::to_path_buf));
        }
        // A change to the file waits for the story being simulated, then is read.
        if self.simulation.is_none()
            && app.jobs.simulating.is_none()
            && self.watch.changed()
            && let Some(path) = self.watch.path.as_deref()
        {
            news.push(Msg::FileChanged(
                crate::scenario::load(path).map_err(|e| e.one_line()),
            ));
        }
        // The session file: read again beside the loop (it names every part's scenario).
        let session = app
            .talk
            .agenda
            .as_ref()
            .and_then(|a| a.playlist.path.as_deref());
        if self.session.path.as_deref() != session {
            self.session = Watch::new(session.map(Path::to_path_buf));
        }
        if self.session.changed()
            && let Some((path, keys)) = app.talk.agenda.as_ref().and_then(|a| a.playlist.source())
        {
            let tx = self.chores.0.clone();
            self.chores_running += 1;
            std::thread::spawn(move || {
                let read = crate::present::playlist::reread(&path, keys);
                let _ = tx.send(Msg::SessionChanged(read.map(Box::new)));
                let _ = tx.send(Msg::ChoreDone);
            });
        }
        if let Some(link) = self.link.as_mut()
            && let Some(off) = link.keep_open()
        {
            news.push(Msg::NotesLink(off));
        }
        news
    }

    fn patience(&self, app: &App) -> Duration {
        // A watched file and presenter mode (its clock, and notes that may connect at any
        // moment) both need the loop to wake now and then; otherwise it sleeps until a key.
        let idle = if self.to_tell.is_some() {
            // The story's other designs are to be told as soon as its frame is drawn.
            Duration::ZERO
        } else if self.chores_running > 0 {
            CHORE_CHECK
        } else if self.simulation.is_some() || !self.ready.is_empty() {
            SIMULATION_CHECK
        } else if app.version.watched().is_some() || app.talk.present.is_some() {
            WATCH_EVERY
        } else {
            Duration::from_secs(3600)
        };
        match self.next_step {
            Some(due) if app.place.playing => {
                due.saturating_duration_since(Instant::now()).min(idle)
            }
            // Play was just pressed: the step is scheduled at the next look.
            None if app.place.playing => Duration::ZERO,
            _ => idle,
        }
    }
}

/// How often the loop looks at a job running beside it (and at a search's progress).
const CHORE_CHECK: Duration = Duration::from_millis(100);

/// How often the loop looks for a finished simulation while one runs.
const SIMULATION_CHECK: Duration = Duration::from_millis(30);

/// A story being simulated on its own thread.
struct Simulation {
    after: After,
    done: mpsc::Receiver<Result<Prepared, String>>,
}

impl Simulation {
    /// Simulates `job` on a thread of its own, and tells the story under `design` (the
    /// file's own when `None`), the one the screen will show; `for_notes` also writes the
    /// story as a file.
    fn start(job: Job, showing: Option<crate::sim::Design>, for_notes: bool) -> Simulation {
        let (tx, done) = mpsc::channel();
        let Job {
            original,
            added,
            after,
        } = job;
        let doing = after.clone();
        std::thread::spawn(move || {
            let prepared = prepare_job(original, added, &doing, showing).map_err(|e| e.to_string());
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

/// The presenter's side of the speaker notes: the socket, or why there is none (tried again
/// now and then), and the scenario's text as last sent.
struct NotesLink {
    publisher: Option<Publisher>,
    last_try: Option<Instant>,
    /// Why the socket is not open, as last reported.
    off: Option<String>,
    reported: bool,
    /// The scenario as TOML for a revision: worked out once per story, not per wake.
    scenario: Option<(u64, String)>,
}

impl NotesLink {
    fn new() -> NotesLink {
        NotesLink {
            publisher: None,
            last_try: None,
            off: None,
            reported: false,
            scenario: None,
        }
    }

    /// Opens the socket if it is not open (at most every few seconds), and lets followers
    /// that connected since the last look catch up. Returns the socket's state when it
    /// changed: `Some(None)` once it is open, `Some(Some(why))` when it cannot be.
    fn keep_open(&mut self) -> Option<Option<String>> {
        if let Some(p) = self.publisher.as_mut() {
            p.serve();
            return None;
        }
        let due = self
            .last_try
            .is_none_or(|t| t.elapsed() >= RETRY_NOTES_EVERY);
        if !due {
            return None;
        }
        self.last_try = Some(Instant::now());
        let off = match Publisher::bind_at(&socket_place()) {
            Ok(p) => {
                self.publisher = Some(p);
                None
            }
            Err(e) => Some(crate::text::sanitize_line(&e.to_string())),
        };
        let changed = !self.reported || off != self.off;
        self.off = off.clone();
        self.reported = true;
        changed.then_some(off)
    }

    /// Sends where the presenter stands.
    fn publish(&mut self, app: &App) {
        let Some(p) = self.publisher.as_mut() else {
            return;
        };
        if self
            .scenario
            .as_ref()
            .is_none_or(|(r, _)| *r != app.version.revision)
        {
            // Written along with the simulation, off this thread, when it could be; the file
            // as loaded if the what-if cannot be written.
            let text = match &app.version.file {
                Some((revision, text)) if *revision == app.version.revision => text.clone(),
                _ => crate::scenario::fork_toml::to_toml(&app.version.original, &app.version.added)
                    .unwrap_or_else(|_| app.version.original.text.clone()),
            };
            self.scenario = Some((app.version.revision, text));
        }
        let scenario = self
            .scenario
            .as_ref()
            .map_or(String::new(), |(_, t)| t.clone());
        let mut shown = app
            .talk
            .published
            .as_ref()
            .map_or_else(|| crate::replay::shown::shown(app), |(.., s)| s.clone());
        shown.left_secs = app
            .talk
            .agenda
            .as_ref()
            .and_then(|a| a.left(app.talk.present.map_or(0, |p| p.elapsed_secs)));
        p.publish(&Position {
            source: app.source.clone(),
            scenario,
            design: app.place.design.id().to_string(),
            tick: app.place.tick,
            shown,
        });
    }
}
