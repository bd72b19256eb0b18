//! The event loop on a real terminal: raw mode and the alternate screen on the way in, restored
//! on every way out (quit, error, panic), redrawing only when something changed.

use super::app::App;
use super::keymap::map_key;
use super::msg::Msg;
use super::theme::Theme;
use super::update::update;
use super::view;
use ratatui::crossterm::event::{self, Event};
use std::io;
use std::time::Instant;

/// Restores the terminal when dropped, whichever way the replay ends.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// Runs the replay until the viewer quits.
pub fn run(mut app: App) -> io::Result<()> {
    let theme = Theme::from_env();
    // `try_init` also installs a panic hook that restores the terminal before the report.
    let mut terminal = ratatui::try_init()?;
    let _restore = Restore;
    let mut dirty = true;
    let mut next_step = Instant::now() + app.pace();
    loop {
        if dirty {
            terminal.draw(|frame| view::draw(frame, &app, &theme))?;
            dirty = false;
        }
        let timeout = if app.playing {
            next_step.saturating_duration_since(Instant::now())
        } else {
            std::time::Duration::from_secs(3600)
        };
        if event::poll(timeout)? {
            match event::read()? {
                Event::Key(key) => {
                    if let Some(msg) = map_key(key, &app) {
                        let was_playing = app.playing;
                        update(&mut app, msg);
                        if app.playing && !was_playing {
                            next_step = Instant::now() + app.pace();
                        }
                        dirty = true;
                    }
                }
                Event::Resize(_, _) => dirty = true,
                _ => {}
            }
        } else if app.playing {
            update(&mut app, Msg::PlayStep);
            next_step = Instant::now() + app.pace();
            dirty = true;
        }
        if app.quit {
            return Ok(());
        }
    }
}
