//! The replay's state: the scenario, its trace under every design, where the viewer stands,
//! and what is on screen. Everything the view draws is read from here.

use crate::replay::msg::Msg;
use crate::replay::picker::Picker;
use crate::replay::room::{Response, Room, Score};
use crate::scenario::{Origin, Scenario};
use crate::sim::{Design, Instant, SimError, Trace};
use crate::story::Told;
use std::time::Duration;

mod talk;
pub use talk::{Agenda, Card, PartKept, Presenting, Talk};

/// The screens of the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    Replay,
    Compare,
    /// The retry-window calculator, on the scenario's own stack.
    Window,
}

/// Something drawn over the screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Glossary,
    Picker(Picker),
    Save(SavePrompt),
    /// The five questions to ask before trusting a retry; the number is the selected one.
    Checklist(usize),
    /// `q` with what-ifs that are not saved: quit anyway, or stay.
    ConfirmQuit,
    /// The fault-space explorer's matrix: designs (rows) by verdicts (columns), and the cell
    /// chosen.
    Explore {
        found: crate::explore::Exploration,
        row: usize,
        col: usize,
    },
    /// `:` asks for a tick number or a time to go to; the text typed so far, and why the last
    /// one could not be used.
    Goto {
        typed: String,
        error: Option<String>,
    },
    /// `a` at a question: the next number key is the room's answer (Esc leaves). Drawn in the
    /// question's own box.
    Answering,
    /// `v` at a question: hands counted per choice, typed as the room raises them; `selected`
    /// is the choice being counted, and `fresh` says the next digit starts its count anew.
    Voting {
        selected: usize,
        fresh: bool,
    },
    /// `T`: a day of traffic through every design, once counted beside the replay.
    Traffic(TrafficView),
    /// A dialog of `replay/dialog/`, behind its trait.
    Dialog(crate::replay::dialog::Open<App, crate::replay::msg::Msg>),
}

/// The traffic screen: the day's figures, the design whose store is drawn, and what the
/// screen assumed that the file did not say.
#[derive(Clone, Debug)]
pub struct TrafficView {
    pub report: std::sync::Arc<crate::traffic::Report>,
    /// Index into the report's designs.
    pub selected: usize,
    pub note: Option<String>,
}

/// Two views are the same when they show the same counted day the same way: a day has no
/// cheap equality, and a new count is a new day.
impl PartialEq for TrafficView {
    fn eq(&self, other: &TrafficView) -> bool {
        std::sync::Arc::ptr_eq(&self.report, &other.report)
            && self.selected == other.selected
            && self.note == other.note
    }
}

impl Eq for TrafficView {}

/// Asking where to save the forked scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavePrompt {
    pub path: String,
    /// The file exists and the next Enter overwrites it.
    pub confirm_overwrite: bool,
    pub error: Option<String>,
}

/// Where `d` found two designs parting ways: the tick (of `this` design's trace) and the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parted {
    pub tick: usize,
    pub this: Design,
    pub other: Design,
}

/// How the command line opens the replay.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    pub design: Option<Design>,
    /// Clicks and the wheel drive the replay (off keeps the terminal's own text selection).
    pub mouse: bool,
    /// The moment to open at: the last tick at or before it.
    pub at: Option<crate::scenario::values::ClockTime>,
    /// Presenter mode.
    pub present: bool,
    /// Presenter mode: what the room does not see until it is revealed.
    pub hide: crate::present::Hide,
    /// Presenter mode: a session file's scenarios, played in order from the first.
    pub playlist: Option<crate::present::playlist::Playlist>,
    /// With a playlist: open on the agenda card and end on the end card.
    pub cards: bool,
}

/// The autoplay speeds a room can read, as multiples of the base pace.
pub const SPEEDS: [f32; 5] = [0.5, 1.0, 1.5, 2.0, 4.0];
/// One tick every this long at 1×.
const BASE_PACE: Duration = Duration::from_millis(1800);

/// The whole state of the terminal UI, in parts: the story on screen ([`Version`]), where
/// the viewer stands in it ([`Place`]), what is on screen around it ([`Screens`]), the room
/// and the talk ([`Talk`]) and the work running beside the loop ([`Jobs`]). Only `update`
/// changes it; every view, the speaker notes and every export read it.
///
/// [`Version`]: crate::replay::version::Version
#[derive(Debug)]
pub struct App {
    /// The story on screen: the scenario, its what-ifs and every design's run of it.
    pub version: crate::replay::version::Version,
    /// Where the viewer stands in the story, and whether it plays.
    pub place: Place,
    /// What is on screen: the screen, what is drawn over it, and how it is drawn.
    pub screens: Screens,
    /// The room: its answers, the talk it is part of, what it is kept from seeing.
    pub talk: Talk,
    /// What runs beside the loop and is shown as running.
    pub jobs: Jobs,
    /// How the scenario was named on the command line, for the shareable command.
    pub source: String,
    /// Why the last reload failed; the last good version keeps running meanwhile.
    pub error: Option<String>,
    /// Drawn for an export (a slide, a recording), with what the export hides, as `--hide-*`
    /// or a session's `hide` ask: no key hints and no share line, since nobody can press a
    /// key in a picture. `None` on a terminal.
    pub export: Option<crate::present::Hide>,
    pub quit: bool,
}

/// Where the viewer stands in the story: the design, the tick, the moment compare stands at,
/// and whether the replay plays on its own.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub design: Design,
    /// Index of the current tick in the current design's trace.
    pub tick: usize,
    /// In the compare screen, the virtual time all designs stand at.
    pub compare_at: Instant,
    /// The tick the replay stood at when compare opened, the moment compare opened on and the
    /// story's revision then: leaving compare without moving, on the same story, comes back to
    /// that very tick, not the last one of its moment.
    pub compare_from: Option<(Design, usize, Instant, u64)>,
    /// The moment the viewer stood at before a re-keyed story moved the replay to an earlier
    /// tick (a story keyed another way may have nothing there): kept, so keying it back
    /// returns to that moment. Any move of the viewer's forgets it.
    pub anchor: Option<Instant>,
    /// How far the narration box is scrolled, and at which tick and design: another moment
    /// starts at the top.
    pub story_scroll: (usize, Design, u16),
    /// Where `d` last found two designs parting ways.
    pub parted: Option<Parted>,
    pub playing: bool,
    /// Index into [`SPEEDS`].
    pub speed: usize,
}

impl Place {
    /// At the first tick of `design`, paused at 1×.
    pub fn start(design: Design) -> Place {
        Place {
            design,
            tick: 0,
            compare_at: Instant(0),
            compare_from: None,
            anchor: None,
            story_scroll: (0, design, 0),
            parted: None,
            playing: false,
            speed: 1,
        }
    }

    /// How far the narration box is scrolled at this moment.
    pub fn story_offset(&self) -> u16 {
        let (tick, design, offset) = self.story_scroll;
        if (tick, design) == (self.tick, self.design) {
            offset
        } else {
            0
        }
    }

    /// How long autoplay waits between ticks at the current speed.
    pub fn pace(&self) -> Duration {
        BASE_PACE.div_f32(SPEEDS[self.speed])
    }

    /// One speed faster, up to the fastest.
    pub fn faster(&mut self) {
        self.speed = (self.speed + 1).min(SPEEDS.len() - 1);
    }

    /// One speed slower, down to the slowest.
    pub fn slower(&mut self) {
        self.speed = self.speed.saturating_sub(1);
    }
}

/// What is on screen around the story, and how it is drawn.
#[derive(Debug)]
pub struct Screens {
    pub screen: Screen,
    pub overlay: Overlay,
    /// How far the help overlay is scrolled.
    pub help_scroll: u16,
    /// The designs the compare screen shows side by side, in the design bar's order (two to
    /// five; a number key there adds or removes one).
    pub compared: Vec<Design>,
    /// Runs of attempts that repeat the one before are drawn as one row (`f`).
    pub fold: bool,
    /// Clicks and the wheel drive the replay; without them the terminal selects text as usual.
    pub mouse: bool,
    /// A one-line notice for the footer, such as where `d` jumped.
    pub notice: Option<String>,
    /// The retry-window calculator, once opened with `w`; it keeps its edits while open.
    pub window: Option<Box<crate::replay::window::WindowScreen>>,
}

impl Screens {
    /// The keys that change only what is drawn: help, the glossary, the checklist, folding,
    /// a listed folder's picker, and the explorer's column. Returns the notice to show, if
    /// the key has one; any other message changes nothing.
    pub fn update(&mut self, msg: Msg) -> Option<String> {
        match msg {
            Msg::ToggleHelp => {
                self.help_scroll = 0;
                self.overlay = match self.overlay {
                    Overlay::None => Overlay::Help,
                    _ => Overlay::None,
                }
            }
            Msg::OpenGlossary => self.overlay = Overlay::Glossary,
            Msg::OpenChecklist => self.overlay = Overlay::Checklist(0),
            Msg::Listed(picker) => self.overlay = Overlay::Picker(picker),
            Msg::ToggleFold => {
                self.fold = !self.fold;
                return Some(if self.fold {
                    "repeated attempts folded into one row each run (f shows every row)".into()
                } else {
                    "every row shown (f folds repeated attempts)".into()
                });
            }
            Msg::ScrollStory(by) => {
                if let Overlay::Explore { col, .. } = &mut self.overlay {
                    let last = crate::sim::Verdict::ALL.len() - 1;
                    *col = col.saturating_add_signed(isize::from(by)).min(last);
                }
            }
            _ => {}
        }
        None
    }
}

impl Default for Screens {
    /// The replay's screen with nothing over it, comparing the core designs when asked.
    fn default() -> Screens {
        Screens {
            screen: Screen::Replay,
            overlay: Overlay::None,
            help_scroll: 0,
            compared: Design::CORE.to_vec(),
            fold: false,
            mouse: false,
            notice: None,
            window: None,
        }
    }
}

/// Work running beside the loop, shown as running until its news comes.
#[derive(Debug, Default)]
pub struct Jobs {
    /// What is being simulated now, shown as "simulating…"; the story on screen stays live.
    pub simulating: Option<String>,
    /// The fault-space search running beside the replay (`e`), until its matrix comes.
    pub searching: Option<crate::replay::effect::Searching>,
    /// The day of traffic being counted beside the replay (`T`), and what its screen will
    /// say it assumed; Esc stops it.
    pub counting: Option<(std::sync::Arc<crate::traffic::Progress>, Option<String>)>,
}

impl App {
    /// The line the narration ends with here when the trainer's words are part of it and the
    /// story on screen is not the one they were written for.
    pub fn trainer_caveat_here(&self) -> Option<String> {
        let has_words = matches!(self.told().trainer.get(self.place.tick), Some(Some(_)));
        crate::story::written::trainer_written_for_the_file(
            has_words,
            &self.version.changed_from_written(),
        )
    }

    /// Simulates every design up front, so switching and stepping never wait, and tells the
    /// opening of the story under the file's design (see [`App::showing`]).
    pub fn new(scenario: Scenario, source: String) -> Result<App, SimError> {
        let design = scenario.design;
        App::showing(scenario, source, design, true)
    }

    /// As [`App::new`], open under `design`: before the first frame its story is told, or
    /// only its opening (`opening`, for a replay that opens on the story's first tick:
    /// [`crate::replay::prepare::Runs::words`]); every design is told whole when first wanted,
    /// or beside the terminal's loop.
    fn showing(
        scenario: Scenario,
        source: String,
        design: Design,
        opening: bool,
    ) -> Result<App, SimError> {
        let prepared = crate::replay::prepare::prepare_showing(scenario, design, opening)?;
        let mut app = App::from_prepared(source, prepared);
        app.place.design = design;
        Ok(app)
    }

    /// One still picture or recording of `design`, for an export: only that design's story
    /// is told, and the others keep their outcomes alone (all a frame of one design reads of
    /// them), so a long story costs the memory of one design, not six. What `hide` keeps out
    /// stays out of every frame.
    pub fn for_export(
        scenario: Scenario,
        source: String,
        design: Design,
        hide: crate::present::Hide,
    ) -> Result<App, SimError> {
        let prepared = crate::replay::prepare::prepare_one(scenario, design)?;
        let mut app = App::from_prepared(source, prepared);
        app.place.design = design;
        app.export = Some(hide);
        Ok(app)
    }

    fn from_prepared(source: String, prepared: crate::replay::prepare::Prepared) -> App {
        let version = crate::replay::version::Version::new(prepared);
        let design = version.original.design;
        let quizzes = version.original.quizzes.len();
        App {
            version,
            place: Place::start(design),
            screens: Screens::default(),
            talk: Talk::new(quizzes),
            jobs: Jobs::default(),
            source,
            error: None,
            export: None,
            quit: false,
        }
    }

    /// The replay as the command line opens it: the file to watch, the design and the moment
    /// to open at, and whether a room is watching.
    pub fn launch(scenario: Scenario, source: String, options: Launch) -> Result<App, SimError> {
        let design = options.design.unwrap_or(scenario.design);
        // Opened at a later moment, the first frame reads the whole story: its opening would
        // be told for nothing.
        let mut app = App::showing(scenario, source, design, options.at.is_none())?;
        if let Some(at) = options.at {
            let t = at.resolve(app.trace().ticks.first().map_or(Instant(0), |t| t.at));
            app.place.tick = app.trace().tick_at_or_before(t);
        }
        app.screens.mouse = options.mouse;
        if options.present {
            let from_file = options
                .playlist
                .as_ref()
                .map_or_else(crate::present::Hide::default, |p| p.hide);
            let base_hide = options.hide.or(from_file);
            let first_part = options
                .playlist
                .as_ref()
                .and_then(|p| p.sections.first())
                .map_or_else(crate::present::Hide::default, |s| s.hide);
            app.talk.present = Some(Presenting {
                show_elapsed: true,
                hide: base_hide.or(first_part),
                base_hide,
                ..Presenting::default()
            });
            if let Some(playlist) = options.playlist {
                let mut agenda = Agenda::new(playlist);
                if options.cards {
                    agenda.cards = true;
                    agenda.card = Some(Card::Agenda);
                }
                app.talk.agenda = Some(Box::new(agenda));
            }
        }
        Ok(app)
    }

    /// Shows a simulated story, keeping the design and the moment.
    pub(super) fn apply(&mut self, prepared: crate::replay::prepare::Prepared) {
        let same_story = self.version.original.name == prepared.original.name;
        let quizzes = prepared.runs.scenario().quizzes.len();
        let now = match self.place.anchor {
            Some(at) if same_story => at,
            _ => self.now(),
        };
        let tick = self.place.tick;
        // A long story's words are many small pieces, and freeing them takes a while: the
        // story left is let go of beside the loop, not on the screen's thread.
        let left = self.version.take(prepared);
        if self.export.is_none() {
            // Without a thread to spare, it is let go of here.
            let _ = std::thread::Builder::new().spawn(move || drop(left));
        }
        if !same_story || self.talk.room.quizzes.len() != quizzes {
            self.talk.room = Room::new(quizzes);
            self.place.parted = None;
        }
        // A fork changes only what comes after the moment it was made, so the same tick
        // still stands there; anything else is found again by its time.
        self.place.tick = if same_story
            && tick < self.trace().ticks.len()
            && self.trace().ticks[tick].at == now
        {
            tick
        } else {
            self.trace().tick_at_or_before(now)
        };
        self.place.anchor = (same_story && self.now() != now).then_some(now);
    }

    /// What this frame keeps from the room: in presenter mode what is hidden until `n`; in
    /// an export what the export hides, and, while a question waits for its answer, whatever
    /// would answer it (the room in presenter mode sees no key strategy and no processor
    /// memory then either, unless `L` brings the panels in).
    #[inline]
    pub fn withheld(&self) -> crate::present::Withheld {
        use crate::present::Withheld;
        match self.talk.present {
            Some(p) => Withheld::new(p.hidden()),
            None => match self.export {
                Some(hide) => Withheld::new(hide).asking(self.quiz_pending()),
                None => Withheld::NONE,
            },
        }
    }

    /// The first question still open under the design on screen (its answer not revealed
    /// under this design, whatever another design's room said) whose tick, under this
    /// design, is at or after `from`: its tick and its index. Stepping and the status line
    /// both ask this.
    pub fn next_question(&self, from: usize) -> Option<(usize, usize)> {
        self.version
            .scenario()
            .quizzes
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                !self
                    .talk
                    .room
                    .get(*i, self.place.design)
                    .is_some_and(Response::is_revealed)
            })
            .filter_map(|(i, q)| Some((q.tick(self.trace(), self.told())?, i)))
            .filter(|(t, _)| *t >= from)
            .min()
    }

    /// The quiz that stops the replay at the current tick, if any, with its index.
    #[inline]
    pub fn quiz_here(&self) -> Option<(usize, &crate::scenario::Quiz)> {
        self.version
            .scenario()
            .quizzes
            .iter()
            .enumerate()
            .find(|(_, q)| q.tick(self.trace(), self.told()) == Some(self.place.tick))
    }

    /// The question at this tick on the replay's screen (not in compare), if any.
    #[inline]
    pub fn question_here(&self) -> Option<(usize, &crate::scenario::Quiz)> {
        if self.talk.card().is_some() {
            return None;
        }
        match self.screens.screen {
            Screen::Replay => self.quiz_here(),
            _ => None,
        }
    }

    /// The room's response to the question here, under the design on screen.
    #[inline]
    pub fn response_here(&self) -> Option<&Response> {
        let (index, _) = self.question_here()?;
        self.talk.room.get(index, self.place.design)
    }

    /// The room has answered the question here and the answer waits for its reveal.
    #[inline]
    pub fn answer_waiting(&self) -> bool {
        self.response_here().is_some_and(Response::waiting)
    }

    /// A question stands at this tick and the replay waits for it: its answer has not been
    /// revealed under any design yet, or the room has answered it again under this design
    /// and the reveal is still to come.
    #[inline]
    pub fn quiz_pending(&self) -> bool {
        self.question_here().is_some_and(|(i, _)| {
            !self.talk.room.revealed_anywhere(i)
                || self
                    .talk
                    .room
                    .get(i, self.place.design)
                    .is_some_and(Response::waiting)
        })
    }

    /// The most charges any design's run ends with: how far a `"charges"` question's choices
    /// grow.
    pub fn most_charges(&self) -> usize {
        self.version.most_charges()
    }

    /// The choices a question shows in this story.
    pub fn choices(&self, quiz: &crate::scenario::Quiz) -> Vec<String> {
        quiz.shown_choices(self.most_charges())
    }

    /// The right choice of a question under a design, if one fits its run.
    pub fn correct(&self, quiz: &crate::scenario::Quiz, design: Design) -> Option<usize> {
        quiz.correct(self.version.trace_of(design), self.most_charges())
    }

    /// `2 of 3 answers right under key stored with the charge`: the score and the design (or
    /// designs) the answers were given under, which need not be the one on screen.
    pub fn score_text(&self) -> Option<String> {
        let text = self.talk.score().text()?;
        let under = match self.talk.room.designs().as_slice() {
            [one] => self.withheld().design(*one),
            many => {
                let keys: Vec<String> = many.iter().map(|d| d.hotkey().to_string()).collect();
                format!("designs {}", keys.join(", "))
            }
        };
        Some(format!("the room: {text} under {under}"))
    }

    /// The runs of repeated attempts the timeline folds, when folding is on (`f`).
    #[inline]
    pub fn folds(&self) -> &[crate::replay::repeats::Run] {
        if self.screens.fold {
            self.version.runs().repeats(self.place.design)
        } else {
            &[]
        }
    }

    /// Where each glossary term is first used in the current design's trace.
    #[inline]
    pub fn glossary_first(&self) -> &[Option<usize>] {
        self.version
            .runs()
            .glossary_through(self.place.design, self.place.tick)
    }

    #[inline]
    pub fn trace(&self) -> &Trace {
        self.version.trace_of(self.place.design)
    }

    /// The words of the current design's trace: those a frame at the current tick reads
    /// ([`crate::replay::prepare::Runs::words`]).
    #[inline]
    pub fn told(&self) -> &Told {
        self.version
            .runs()
            .words(self.place.design, self.place.tick)
    }

    #[inline]
    pub fn last_tick(&self) -> usize {
        self.trace().ticks.len().saturating_sub(1)
    }

    #[inline]
    pub fn at_end(&self) -> bool {
        self.place.tick >= self.last_tick()
    }

    /// Shows tick `tick` of the design on screen (its last tick if the story is shorter), on
    /// the replay: how an exporter, a benchmark or a test places the room at a moment without
    /// going through keys. A question on the way is not asked.
    pub fn show_tick(&mut self, tick: usize) {
        self.place.tick = tick.min(self.last_tick());
        if self.screens.screen == Screen::Compare {
            self.place.compare_at = self.now_on_replay();
        }
    }

    /// Runs or stops autoplay, as the space bar does, for a recording's frames.
    pub fn set_playing(&mut self, playing: bool) {
        self.place.playing = playing;
    }

    /// Shows `design` at its tick `tick`, as [`App::show_tick`] does.
    pub fn show(&mut self, design: Design, tick: usize) {
        self.place.design = design;
        self.show_tick(tick);
    }

    /// Shows the compare screen at the moment of tick `tick` of the design on screen.
    pub fn show_compare(&mut self, tick: usize) {
        self.screens.screen = Screen::Compare;
        self.show_tick(tick);
    }

    /// Shows the replay, at the tick it was on.
    pub fn show_replay(&mut self) {
        self.screens.screen = Screen::Replay;
    }

    /// The time of the current tick on the replay, whichever screen is up.
    fn now_on_replay(&self) -> Instant {
        self.trace()
            .ticks
            .get(self.place.tick)
            .map_or(Instant(0), |t| t.at)
    }

    /// The current virtual time.
    #[inline]
    pub fn now(&self) -> Instant {
        match self.screens.screen {
            Screen::Replay | Screen::Window => self.now_on_replay(),
            Screen::Compare => self.place.compare_at,
        }
    }

    /// Moves to the tick of `design` that stands where the current tick stands in time: the
    /// same tick among those at the same instant, else the last one before it.
    pub fn position_in(&self, design: Design) -> usize {
        let trace = self.trace();
        let Some(here) = trace.ticks.get(self.place.tick) else {
            return 0;
        };
        let ordinal = trace.ticks[..self.place.tick]
            .iter()
            .rev()
            .take_while(|t| t.at == here.at)
            .count();
        let other = self.version.trace_of(design);
        let first_same = other.ticks.partition_point(|t| t.at < here.at);
        let same = other.ticks[first_same..]
            .iter()
            .take_while(|t| t.at == here.at)
            .count();
        if same > 0 {
            first_same + ordinal.min(same - 1)
        } else {
            first_same.saturating_sub(1)
        }
    }

    /// The first tick where the current design's trace departs from another design's, and
    /// the design it departs from (the earliest such tick over all the others).
    pub fn divergence(&self) -> Option<(usize, Design)> {
        Design::ALL
            .iter()
            .filter(|d| **d != self.place.design)
            .filter_map(|d| {
                self.first_difference(self.place.design, *d)
                    .map(|i| (i, *d))
            })
            .min_by_key(|(i, _)| *i)
    }

    /// The index of the first tick where two designs' stories differ in what is drawn (time,
    /// lane, kind or label), or the shorter length when one is a prefix of the other.
    pub fn first_difference(&self, a: Design, b: Design) -> Option<usize> {
        let (ta, tb) = (self.version.trace_of(a), self.version.trace_of(b));
        let (la, lb) = (
            &self.version.told_of(a).labels,
            &self.version.told_of(b).labels,
        );
        let same = |i: usize| {
            let (x, y) = (&ta.ticks[i], &tb.ticks[i]);
            x.at == y.at && x.actor == y.actor && x.kind == y.kind && la[i] == lb[i]
        };
        let common = ta.ticks.len().min(tb.ticks.len());
        (0..common)
            .find(|&i| !same(i))
            .or((ta.ticks.len() != tb.ticks.len()).then_some(common))
    }

    /// The command that reopens this view (scenario, design and moment), or what to do first
    /// when the scenario exists only in this session.
    pub fn share_command(&self) -> String {
        if !self.version.added.is_empty() {
            return "this is a what-if: save it with S, then share the file".to_string();
        }
        // The file by its real name, quoted and escaped for a shell; a built-in by its name.
        let scenario = match &self.version.original.origin {
            Origin::File(path) => crate::text::shell_word(&path.to_string_lossy()),
            Origin::BuiltIn(name) => crate::text::shell_word(name),
            Origin::Made => {
                return "this scenario lives only in this session: save it with S to share it"
                    .to_string();
            }
        };
        let at = self.trace().clock.format_short(self.now());
        // The steps after payment as they are keyed now, which m may have changed.
        let steps = self
            .version
            .scenario()
            .config
            .steps
            .first()
            .map_or_else(String::new, |s| format!(" --step-keys {}", s.key_mode.id()));
        let keys = self
            .version
            .keys_set()
            .map_or_else(String::new, |k| format!(" --key-strategy {}", k.id()));
        format!(
            "idem {scenario} --design {}{keys}{steps} --at {}",
            self.place.design.id(),
            crate::text::shell_word(&at)
        )
    }
}
