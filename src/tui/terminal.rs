//! The replay's event loop on a real terminal (a [`Session`]), redrawing only when something
//! changed.

use super::app::App;
use super::keymap::map_key;
use super::msg::Msg;
use super::session::{Session, Wake};
use super::theme::Theme;
use super::update::update;
use super::view;
use ratatui::crossterm::event::Event;
use std::io;
use std::path::PathBuf;
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
    let mut fork_file = ForkFile::default();
    let mut publisher = match app.present {
        Some(_) => {
            match crate::present::link::Publisher::bind(&crate::present::link::socket_path()) {
                Ok(p) => Some(p),
                Err(e) => {
                    app.notice = Some(format!("speaker notes are off: {e}"));
                    None
                }
            }
        }
        None => None,
    };
    loop {
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
        if watch.changed() {
            app.reload(watch.path.as_deref().map(crate::scenario::load));
            dirty = true;
        }
        if dirty {
            session.draw(|frame| view::draw(frame, &app, &theme))?;
            dirty = false;
        }
        if let Some(p) = publisher.as_mut() {
            p.publish(&position(&app, fork_file.text(&app)));
        }
        // A watched file and presenter mode (its clock, and notes that may connect at any
        // moment) both need the loop to wake now and then; otherwise it sleeps until a key.
        let idle = if app.path.is_some() || app.present.is_some() {
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

/// The story on screen as a file, for the speaker notes: written again only when the what-ifs
/// or the file change, since writing a what-if simulates it.
#[derive(Default)]
struct ForkFile {
    added: Vec<crate::sim::config::Fault>,
    source: String,
    text: String,
}

impl ForkFile {
    fn text(&mut self, app: &App) -> &str {
        if self.added != app.added || self.source != app.original.source || self.text.is_empty() {
            self.added = app.added.clone();
            self.source = app.original.source.clone();
            // The file as loaded if the what-if cannot be written.
            self.text = crate::scenario::fork::to_toml(&app.original, &app.added)
                .unwrap_or_else(|_| app.original.source.clone());
        }
        &self.text
    }
}

/// Where the presenter stands, for the speaker notes.
fn position(app: &App, scenario: &str) -> crate::present::link::Position {
    crate::present::link::Position {
        source: app.source.clone(),
        scenario: scenario.to_string(),
        design: app.design.id().to_string(),
        tick: app.tick,
    }
}
