//! A simulated story arriving on screen: asking for the simulation ("simulating…"), then
//! showing what came back (or why nothing could) as the job's [`After`] says, including
//! entering another part of a session with the answers it was given before.

use super::app::{App, Overlay, Screen};
use super::prepare::{After, ErrorsTo, Job, Prepared, checkout_keys, step_keys};

impl App {
    /// Starts putting a story on screen: says "simulating…" and asks for the simulation,
    /// which the terminal's loop runs on another thread (and tests run at once).
    pub fn start(&mut self, job: Job) -> crate::replay::effect::Effect {
        self.jobs.simulating = Some(job.after.doing());
        // The design the story will open under, told with the simulation: a part of a session
        // opens under its own, another scenario under its file's, anything else stays.
        let showing = match &job.after {
            After::Section { index, .. } => self
                .talk
                .agenda
                .as_ref()
                .and_then(|a| a.playlist.sections.get(*index))
                .map(|s| s.design),
            After::Open { .. } => None,
            _ => Some(self.place.design),
        };
        crate::replay::effect::Effect::Simulate { job, showing }
    }

    /// Shows a simulated story (or why it could not be simulated), as `after` says.
    pub fn finish(&mut self, after: After, result: Result<Prepared, String>) {
        self.jobs.simulating = None;
        let prepared = match result {
            Ok(p) => p,
            Err(e) => {
                match after {
                    After::Fork { .. } => {
                        self.screens.notice = Some(format!("that fork cannot be simulated: {e}"))
                    }
                    After::Unfork { .. }
                    | After::StepKeys { .. }
                    | After::KeyStrategy { .. }
                    | After::AsWritten
                    | After::Section { .. } => self.screens.notice = Some(e),
                    After::Reload => self.error = Some(e),
                    After::Open { errors_to, .. } => match errors_to {
                        ErrorsTo::Picker(mut picker) => {
                            picker.error = Some(e);
                            self.screens.overlay = Overlay::Picker(picker);
                        }
                        ErrorsTo::Notice => self.screens.notice = Some(e),
                        ErrorsTo::Window => {
                            self.screens.screen = Screen::Replay;
                            self.screens.notice = Some(e);
                        }
                    },
                }
                return;
            }
        };
        let design = prepared.original.design;
        let ticks_before = self.trace().ticks.len();
        // The room's answers to the scenario being left stay with its section.
        let leaving =
            matches!(after, After::Section { .. }).then(|| std::mem::take(&mut self.talk.room));
        let warning = prepared.warning.clone();
        self.apply(prepared);
        // A run that grew or shrank says so: the room sees the new length, not just a new end.
        let ticks_after = self.trace().ticks.len();
        let length = if ticks_after == ticks_before {
            String::new()
        } else {
            format!("; the run now has {ticks_after} ticks (it had {ticks_before})")
        };
        match after {
            After::Fork { words } => {
                self.screens.notice = Some(format!(
                    "what if: {words} — the future is re-simulated{length}"
                ))
            }
            After::Unfork { left: 0 } => {
                self.screens.notice = Some("back to the scenario as written (r redoes)".into())
            }
            After::Unfork { left } => {
                self.screens.notice = Some(format!(
                    "the last what-if is taken back; {left} still in force (r redoes)"
                ))
            }
            After::StepKeys { mode } => {
                self.screens.notice = Some(format!(
                    "steps after payment now sent with {} (m for the next way)",
                    step_keys(mode)
                ))
            }
            After::KeyStrategy { strategy } => {
                self.screens.notice = Some(match strategy {
                    Some(strategy) => format!(
                        "the checkout now sends {} (K for the next way){length}",
                        checkout_keys(strategy)
                    ),
                    None => format!(
                        "the checkout's keys are back as the file writes them (K for the next way){length}"
                    ),
                })
            }
            After::AsWritten => {
                self.version.undone.clear();
                self.screens.notice = Some(format!(
                    "back to the scenario as written: no what-if, the keys as the file writes them{length}"
                ))
            }
            After::Reload => {
                // A session's part read again is the one its agenda names and comes back to.
                if let Some(agenda) = self.talk.agenda.as_mut()
                    && let Some(section) = agenda.playlist.sections.get_mut(agenda.at)
                {
                    section.take(self.version.original.clone());
                }
                self.error = None;
                let kept = self.version.changed_from_written();
                self.screens.notice = Some(if kept.is_empty() {
                    "the scenario file changed: reloaded".into()
                } else {
                    format!(
                        "the scenario file changed: reloaded, {} still in force",
                        crate::text::and_list(&kept)
                    )
                });
            }
            After::Section { index, at_end, .. } => {
                self.enter_section(index, at_end, leaving);
                if let Some(w) = warning {
                    self.screens.notice = Some(w);
                }
            }
            After::Open { source, notice, .. } => {
                self.source = crate::text::sanitize_line(&source);
                self.place.design = design;
                self.place.tick = 0;
                self.screens.screen = Screen::Replay;
                self.screens.overlay = Overlay::None;
                self.error = None;
                self.place.playing = false;
                self.screens.notice = notice;
            }
        }
    }
}

impl App {
    /// Puts section `index` of the session on screen (its story just applied): its design,
    /// its first or last tick, and the answers it was given before; `leaving` are the answers
    /// of the section left.
    fn enter_section(
        &mut self,
        index: usize,
        at_end: bool,
        leaving: Option<crate::replay::room::Room>,
    ) {
        let elapsed = self.talk.present.map_or(0, |p| p.elapsed_secs);
        let quizzes = self.version.scenario().quizzes.len();
        let Some(agenda) = self.talk.agenda.as_mut() else {
            return;
        };
        if let (Some(room), Some(part)) = (leaving, agenda.parts.get_mut(agenda.at)) {
            part.room = room;
        }
        agenda.move_to(index, elapsed);
        // The part as just read from its file is the one to come back to, under its title.
        if let Some(section) = agenda.playlist.sections.get_mut(index) {
            section.take(self.version.original.clone());
        }
        let mut room = agenda
            .parts
            .get_mut(index)
            .map(|p| std::mem::take(&mut p.room))
            .unwrap_or_default();
        if room.quizzes.len() != quizzes {
            room = crate::replay::room::Room::new(quizzes);
        }
        let (design, source, title, count, part_hide) = match agenda.section() {
            Some(s) => (
                s.design,
                s.source.clone(),
                s.title.clone(),
                agenda.playlist.sections.len(),
                s.hide,
            ),
            None => (
                self.place.design,
                self.source.clone(),
                String::new(),
                0,
                crate::present::Hide::default(),
            ),
        };
        self.talk.room = room;
        self.place.design = design;
        self.source = source;
        self.screens.screen = Screen::Replay;
        self.screens.overlay = Overlay::None;
        self.error = None;
        self.place.playing = false;
        self.place.parted = None;
        self.version.undone.clear();
        self.version.saved_added.clear();
        self.place.tick = if at_end { self.last_tick() } else { 0 };
        if let Some(p) = self.talk.present.as_mut() {
            p.revealed = false;
            p.hide = p.base_hide.or(part_hide);
        }
        self.screens.notice = Some(format!("part {} of {count}: {title}", index + 1));
    }
}
