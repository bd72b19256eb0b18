//! `idem notes`: the speaker's second terminal. It follows the presenter's position and shows
//! what comes next, the trainer's notes for this tick, and the answer to any question.

use super::program::{self, Program, Runtime};
use super::session::Session;
use super::theme::Theme;
use crate::present::link::{Follower, Position, socket_place};
use crate::scenario::{self, Scenario};
use crate::sim::{Design, PerDesign, Trace};
use ratatui::Frame;
use ratatui::crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Paragraph};
use std::io;
use std::time::{Duration, Instant};

/// What the notes show for one position of the presenter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sheet {
    pub title: String,
    pub design: String,
    /// `tick 5/11 · 14:02:09.250`.
    pub position: String,
    pub now: String,
    pub narration: String,
    /// The next tick, or that this is the last.
    pub next: String,
    /// The trainer's notes for this tick.
    pub notes: Vec<String>,
    /// The question at this tick or the next one to come, with its answer under this design.
    pub quiz: Option<String>,
    /// What the presenter's screen says about itself, and what the room has answered.
    pub shown: crate::present::link::Shown,
    /// This is the last tick of the story on the presenter's screen.
    pub last: bool,
}

/// A scenario rebuilt from what the presenter sent, kept while the presenter shows it.
struct Loaded {
    text: String,
    scenario: Scenario,
    traces: PerDesign<Trace>,
}

fn load(text: &str) -> Result<Loaded, String> {
    let scenario = scenario::parse("presenter", "presenter", text).map_err(|e| e.to_string())?;
    let traces = PerDesign::try_new(|d| scenario.simulate(d)).map_err(|e| e.to_string())?;
    Ok(Loaded {
        text: text.to_string(),
        scenario,
        traces,
    })
}

/// Works out the sheet for a position.
pub fn sheet(position: &Position) -> Result<Sheet, String> {
    sheet_from(&load(&position.scenario)?, position)
}

fn sheet_from(loaded: &Loaded, position: &Position) -> Result<Sheet, String> {
    let design: Design = position
        .design
        .parse()
        .map_err(|_| "the presenter sent an unknown design")?;
    let trace = &loaded.traces[design];
    let told = loaded.scenario.tell(trace);
    let tick = trace
        .ticks
        .get(position.tick)
        .ok_or("the presenter is past the end")?;
    let next = match trace.ticks.get(position.tick + 1) {
        Some(n) => format!(
            "{} {} — {}",
            trace.format_time(n.at),
            loaded.scenario.lanes.of_tick(n),
            told.labels[position.tick + 1]
        ),
        None => "this is the last tick: the outcome is on the presenter's screen".to_string(),
    };
    let notes = loaded
        .scenario
        .notes
        .iter()
        .filter(|n| n.tick(trace, &told) == Some(position.tick))
        .map(|n| n.text.clone())
        .collect();
    let most = crate::scenario::most_charges(loaded.traces.values());
    let quiz = loaded
        .scenario
        .quizzes
        .iter()
        .filter_map(|q| q.tick(trace, &told).map(|at| (at, q)))
        .filter(|(at, _)| *at >= position.tick)
        .min_by_key(|(at, _)| *at)
        .map(|(at, q)| {
            let choices = q.shown_choices(most);
            let answer = q
                .correct(trace, most)
                .and_then(|i| choices.get(i).map(|c| format!("{} {c}", i + 1)))
                .unwrap_or_else(|| "none of the choices".to_string());
            let when = if at == position.tick {
                "asked now".to_string()
            } else {
                format!("asked at tick {}", at + 1)
            };
            let changed = &position.shown.changed;
            let why = if changed.is_empty() {
                q.explanation.for_design(design).to_string()
            } else {
                let changed: Vec<&str> = changed.iter().map(String::as_str).collect();
                format!(
                    "The file's explanation is for the story it tells; {} changed it here.",
                    crate::text::and_list(&changed)
                )
            };
            format!(
                "{} ({when}) Answer under {}: {answer}. {why}",
                q.question,
                design.name()
            )
        });
    Ok(Sheet {
        title: loaded.scenario.title.clone(),
        design: design.name().to_string(),
        position: format!(
            "tick {}/{} · {}",
            position.tick + 1,
            trace.ticks.len(),
            trace.format_time(tick.at)
        ),
        now: format!(
            "{} — {}",
            loaded.scenario.lanes.of_tick(tick),
            told.labels[position.tick]
        ),
        narration: match crate::story::written::trainer_written_for_the_file(
            matches!(told.trainer.get(position.tick), Some(Some(_))),
            &position.shown.changed,
        ) {
            Some(caveat) => format!("{} {caveat}", told.narrations[position.tick]),
            None => told.narrations[position.tick].clone(),
        },
        next,
        notes,
        quiz,
        shown: position.shown.clone(),
        last: position.tick + 1 == trace.ticks.len(),
    })
}

/// What the notes show: a wait (and why), or the sheet for the presenter's position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Waiting(String),
    Following(Result<Box<Sheet>, String>),
}

/// What can happen to the notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotesMsg {
    Quit,
    /// News from the presenter's socket.
    Show(Status),
    /// A second went by: the part's countdown moves on.
    Second,
    /// Scrolls the sheet by this many rows (down is positive), when it is longer than the
    /// screen.
    Scroll(i16),
}

/// The notes terminal as a program.
pub struct Notes {
    pub status: Status,
    pub quit: bool,
    /// When the sheet on screen arrived: its countdown counts from then.
    pub received: Instant,
    /// How far the sheet is scrolled; back to the top when the presenter moves.
    pub scroll: u16,
}

impl Program for Notes {
    type Msg = NotesMsg;
    type Effect = std::convert::Infallible;
    type Hits = ();

    fn message(&self, event: &Event) -> Option<NotesMsg> {
        match event {
            // q, Esc, and Ctrl-C (in raw mode a key like any other, not a signal).
            Event::Key(k)
                if k.kind != KeyEventKind::Release
                    && (matches!(k.code, KeyCode::Char('q') | KeyCode::Esc)
                        || (k.code == KeyCode::Char('c')
                            && k.modifiers.contains(KeyModifiers::CONTROL))) =>
            {
                Some(NotesMsg::Quit)
            }
            Event::Key(k) if k.kind != KeyEventKind::Release => match k.code {
                KeyCode::Down | KeyCode::Char('j') => Some(NotesMsg::Scroll(1)),
                KeyCode::Up | KeyCode::Char('k') => Some(NotesMsg::Scroll(-1)),
                KeyCode::PageDown => Some(NotesMsg::Scroll(10)),
                KeyCode::PageUp => Some(NotesMsg::Scroll(-10)),
                _ => None,
            },
            _ => None,
        }
    }

    fn update(&mut self, msg: NotesMsg) -> Vec<Self::Effect> {
        match msg {
            NotesMsg::Quit => self.quit = true,
            NotesMsg::Show(status) => {
                let place = |s: &Status| match s {
                    Status::Following(Ok(sheet)) => {
                        Some((sheet.design.clone(), sheet.position.clone()))
                    }
                    _ => None,
                };
                if place(&status) != place(&self.status) {
                    self.scroll = 0;
                }
                self.status = status;
                self.received = Instant::now();
            }
            NotesMsg::Second => {}
            NotesMsg::Scroll(by) => self.scroll = self.scroll.saturating_add_signed(by),
        }
        Vec::new()
    }

    fn view(&self, frame: &mut Frame, theme: &Theme) {
        draw(
            frame,
            &self.status,
            (self.received.elapsed().as_secs(), self.scroll),
            theme,
        );
    }

    fn done(&self) -> bool {
        self.quit
    }
}

/// The notes' side of the world: the socket to the presenter, and the scenario it sent,
/// simulated once per version.
struct Follow {
    place: crate::present::link::SocketPlace,
    follower: Option<Follower>,
    loaded: Option<Loaded>,
    /// When the notes last tried to reach the presenter; `None` before the first try.
    last_try: Option<Instant>,
    /// The last waiting message reported, so an unchanged one is not sent again.
    said: Option<String>,
    /// When the last [`NotesMsg::Second`] was sent.
    second: Instant,
}

impl Runtime<Notes> for Follow {
    fn run(&mut self, effect: std::convert::Infallible, _: &Notes) {
        match effect {}
    }

    fn news(&mut self, _: &Notes) -> Vec<NotesMsg> {
        let mut news = Vec::new();
        let due = self
            .last_try
            .is_none_or(|t| t.elapsed() >= Duration::from_secs(1));
        if self.follower.is_none() && due {
            self.last_try = Some(Instant::now());
            match Follower::connect_at(&self.place) {
                Ok(f) => {
                    self.follower = Some(f);
                    news.push(self.waiting("Connected: waiting for the presenter's position…"));
                }
                // A folder that is not private, or a socket that is not ours: say why.
                Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                    let why = format!("These notes cannot follow a presenter: {e}");
                    if self.said.as_deref() != Some(why.as_str()) {
                        news.push(self.waiting(&why));
                    }
                }
                Err(_) => {}
            }
        }
        if self.second.elapsed() >= Duration::from_secs(1) {
            self.second = Instant::now();
            news.push(NotesMsg::Second);
        }
        if let Some(f) = self.follower.as_mut() {
            match f.next(Duration::from_millis(150)) {
                Ok(Some(position)) => {
                    if self
                        .loaded
                        .as_ref()
                        .is_none_or(|l| l.text != position.scenario)
                    {
                        self.loaded = load(&position.scenario).ok();
                    }
                    let sheet = match &self.loaded {
                        Some(l) => sheet_from(l, &position),
                        None => Err("the presenter's scenario could not be read".into()),
                    };
                    self.said = None;
                    news.push(NotesMsg::Show(Status::Following(sheet.map(Box::new))));
                }
                Ok(None) => {}
                Err(_) => {
                    self.follower = None;
                    news.push(
                        self.waiting("The presenter has stopped. Waiting for it to come back…"),
                    );
                }
            }
        }
        news
    }

    fn patience(&self, _: &Notes) -> Duration {
        Duration::from_millis(if self.follower.is_some() { 10 } else { 200 })
    }
}

impl Follow {
    fn waiting(&mut self, why: &str) -> NotesMsg {
        self.said = Some(why.to_string());
        NotesMsg::Show(Status::Waiting(why.to_string()))
    }
}

/// Runs the notes terminal until `q`.
pub fn run() -> io::Result<()> {
    let place = socket_place();
    let theme = Theme::from_env();
    let mut session = Session::start()?;
    let mut notes = Notes {
        status: Status::Waiting(format!(
            "No presenter is running. Start `idem present` in another terminal; these notes will follow it. (socket: {})",
            crate::text::sanitize_line(&place.path.display().to_string())
        )),
        quit: false,
        scroll: 0,
        received: Instant::now(),
    };
    let mut follow = Follow {
        place,
        follower: None,
        loaded: None,
        last_try: None,
        said: None,
        second: Instant::now(),
    };
    program::run(&mut session, &mut notes, &mut follow, &theme)
}

/// The lines the notes show about the presenter's state: the session's part and its
/// countdown (`since` seconds after the sheet arrived), what is hidden from the room, the
/// presenter's banners, what the room said, and the score.
pub fn state_lines(sheet: &Sheet, since: u64) -> Vec<String> {
    let s = &sheet.shown;
    let mut lines = Vec::new();
    if let Some(section) = &s.section {
        let left = s.left_secs.map_or(String::new(), |left| {
            let now = left - since as i64;
            if now < 0 {
                format!(" · {} over", crate::replay::shown::clock(-now))
            } else {
                format!(" · {} left", crate::replay::shown::clock(now))
            }
        });
        lines.push(format!("{section}{left}"));
    }
    lines.extend(s.play.iter().cloned());
    lines.extend(s.hidden.iter().cloned());
    lines.extend(s.banners.iter().cloned());
    lines.extend(s.room.iter().cloned());
    if let Some(score) = &s.score {
        let when = if sheet.last {
            "the room's score"
        } else {
            "the room's score so far"
        };
        lines.push(format!("{when}: {score}"));
    }
    lines
}

fn draw(frame: &mut Frame<'_>, status: &Status, (since, scroll): (u64, u16), theme: &Theme) {
    let area = frame.area();
    let [head, body, foot] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(
        Paragraph::new(Line::styled(
            " q quits · ↓↑ scroll · these notes follow `idem present`",
            theme.dim(),
        )),
        foot,
    );
    match status {
        Status::Waiting(message) | Status::Following(Err(message)) => {
            let text = Text::from(vec![
                Line::styled(" idem notes", theme.title()),
                Line::raw(format!(" {message}")),
            ]);
            let room = Rect::new(area.x, area.y, area.width, area.height.saturating_sub(1));
            crate::tui::cells::wrap::draw_wrapped(frame.buffer_mut(), room, &text, false, 0);
        }
        Status::Following(Ok(sheet)) => {
            frame.render_widget(
                Paragraph::new(vec![
                    Line::from(vec![
                        Span::styled(" idem notes ", theme.title()),
                        Span::styled(sheet.title.clone(), theme.bold()),
                    ]),
                    Line::raw(format!(" {} · {}", sheet.design, sheet.position)),
                ]),
                head,
            );
            let mut lines = Vec::new();
            let state = state_lines(sheet, since);
            if !state.is_empty() {
                lines.push(Line::styled("On the presenter", theme.key()));
                lines.extend(
                    state
                        .into_iter()
                        .map(|l| Line::styled(l, theme.tone(crate::story::outcome::Tone::Warn))),
                );
                lines.push(Line::raw(""));
            }
            lines.extend([
                Line::styled("Now", theme.key()),
                Line::styled(sheet.now.clone(), theme.bold()),
                Line::raw(sheet.narration.clone()),
                Line::raw(""),
                Line::styled("Next", theme.key()),
                Line::raw(sheet.next.clone()),
                Line::raw(""),
                Line::styled("Your notes", theme.key()),
            ]);
            if sheet.notes.is_empty() {
                lines.push(Line::styled("(none for this tick)", theme.dim()));
            }
            lines.extend(sheet.notes.iter().map(|n| Line::raw(n.clone())));
            if let Some(q) = &sheet.quiz {
                lines.push(Line::raw(""));
                lines.push(Line::styled("Question", theme.key()));
                lines.push(Line::raw(q.clone()));
            }
            // A sheet longer than the screen scrolls, and its top line says how much is
            // out of sight.
            // Laid out once: the top rule leaves the body's width to the text.
            let text = Text::from(lines);
            let laid = crate::tui::cells::wrap::Laid::new(&text, body.width, true);
            let rows = laid.rows();
            let shown = usize::from(body.height.saturating_sub(1));
            let hidden = rows.saturating_sub(shown);
            let offset = usize::from(scroll).min(hidden);
            let mut block = Block::default().borders(Borders::TOP);
            if hidden > 0 {
                let marks = match (offset, hidden - offset) {
                    (0, below) => format!(" ↓ {below} more · ↓↑ scroll "),
                    (above, 0) => format!(" ↑ {above} above "),
                    (above, below) => format!(" ↑ {above} above, ↓ {below} more "),
                };
                block = block
                    .title(marks)
                    .title_style(theme.tone(crate::story::outcome::Tone::Warn));
            }
            let inside = block.inner(body);
            frame.render_widget(block, body);
            laid.draw(&text, frame.buffer_mut(), inside, offset);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEvent;

    #[test]
    fn ctrl_c_q_and_esc_end_the_notes() {
        let notes = Notes {
            status: Status::Waiting(String::new()),
            quit: false,
            received: Instant::now(),
            scroll: 0,
        };
        let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        assert!(matches!(notes.message(&ctrl_c), Some(NotesMsg::Quit)));
        let plain_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE));
        assert!(notes.message(&plain_c).is_none());
        for code in [KeyCode::Char('q'), KeyCode::Esc] {
            let key = Event::Key(KeyEvent::new(code, KeyModifiers::NONE));
            assert!(matches!(notes.message(&key), Some(NotesMsg::Quit)));
        }
    }
}
