//! The Markdown handout, in four forms. Every form but the trainer's puts the questions
//! first and gives nothing away before them:
//!
//! - the pre-read (the default): the story as the room sees it up to each question, and the
//!   questions with their choices; no outcome, no answer, no later tick;
//! - the compact handout: the pre-read, then the designs shown in the session and only the
//!   ticks where they part ways, how each ended, and the answers;
//! - the full handout: the pre-read, then every design's whole timeline, the outcomes side by
//!   side, the author's summary and the answers, on pages after the questions;
//! - the trainer's: the questions up front with their answers inline, every timeline, and the
//!   trainer's notes.
//!
//! What the room is not to see (`--hide-design`, a session's `hide`) is decided by
//! [`Withheld`], the one policy the replay's view and every export share.

use crate::present::Withheld;
use crate::scenario::{LaneNames, NarrationTarget, Quiz, QuizAnswer, Scenario, Scope};
use crate::sim::{ClockStyle, Design, Trace};
use crate::story::Told;
use crate::story::outcome::{headline, verdict_meaning};
use std::fmt::Write;

mod after;

/// Who a handout is written for, and how much it holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Audience {
    /// For the room before the session: the story up to each question, and the questions.
    #[default]
    PreRead,
    /// For the room after it: the pre-read, then the designs shown and only the ticks where
    /// they part ways, their outcomes and the answers.
    Compact,
    /// For the room after it, everything: the pre-read, then every design's whole timeline,
    /// the outcomes and the answers.
    Students,
    /// The trainer: the questions first with their answers inline, then the notes.
    Trainer,
    /// The trainer's crib sheet (`--format crib`): per part the questions, the right answer
    /// under each design, the explanations, the notes, the keys and the time; no timelines.
    Crib,
}

impl Audience {
    /// The names `--handout` takes, in order.
    pub const NAMES: [&'static str; 4] = ["pre-read", "compact", "full", "trainer"];

    pub fn id(self) -> &'static str {
        match self {
            Audience::PreRead => "pre-read",
            Audience::Compact => "compact",
            Audience::Students => "full",
            Audience::Trainer => "trainer",
            Audience::Crib => "crib",
        }
    }

    /// How the line that says what was written names this form.
    /// Whether this form is the trainer's own, which shows everything a session hides from
    /// the room.
    pub fn for_trainer(self) -> bool {
        matches!(self, Audience::Trainer | Audience::Crib)
    }

    pub fn words(self) -> &'static str {
        match self {
            Audience::PreRead => "pre-read handout",
            Audience::Compact => "compact handout",
            Audience::Students => "full handout",
            Audience::Trainer => "handout for the trainer",
            Audience::Crib => "crib sheet for the trainer",
        }
    }
}

impl std::str::FromStr for Audience {
    type Err = String;

    fn from_str(text: &str) -> Result<Audience, String> {
        match text {
            "pre-read" | "preread" | "student" | "students" => Ok(Audience::PreRead),
            "compact" => Ok(Audience::Compact),
            "full" => Ok(Audience::Students),
            "trainer" => Ok(Audience::Trainer),
            _ => Err(format!(
                "unknown handout `{}`: expected {}",
                crate::text::sanitize_line(text),
                Audience::NAMES.join(", ")
            )),
        }
    }
}

/// The students' pre-read, simulated under every design.
pub fn markdown(scenario: &Scenario) -> Result<String, String> {
    handout(scenario, Audience::PreRead)
}

/// The whole handout for `audience`, simulated under every design, nothing hidden, opening
/// on the scenario's own design.
pub fn handout(scenario: &Scenario, audience: Audience) -> Result<String, String> {
    handout_with(scenario, audience, Withheld::NONE, scenario.design)
}

/// The handout for `audience` with what `withheld` hides kept out, the story told under
/// `opening`, the design the room sees first.
pub fn handout_with(
    scenario: &Scenario,
    audience: Audience,
    withheld: Withheld,
    opening: Design,
) -> Result<String, String> {
    let mut made = handouts(
        scenario,
        audience,
        withheld,
        opening,
        &[MAX_COMPACT_ROWS],
        false,
    )?;
    Ok(made.pop().unwrap_or_default())
}

/// The handout once for each cap on the compact handout's rows per design in `caps`, from one
/// simulation: a session's compact handout picks the largest that keeps it in its budget.
fn handouts(
    scenario: &Scenario,
    audience: Audience,
    withheld: Withheld,
    opening: Design,
    caps: &[usize],
    in_session: bool,
) -> Result<Vec<String>, String> {
    let simulate = |d: Design| {
        scenario
            .simulate(d)
            .map_err(|e| format!("cannot simulate {} under {}: {e}", scenario.name, d.id()))
    };
    // Counted on the design the room sees first, before the others are simulated: a story
    // too long for a handout is refused in the time of one run.
    let first = simulate(opening)?;
    if first.ticks.len() > MAX_HANDOUT_TICKS {
        return Err(too_long_for_a_handout(first.ticks.len(), opening));
    }
    let mut first = Some(first);
    let traces = Design::ALL
        .iter()
        .map(|d| match first.take_if(|t| t.design == *d) {
            Some(t) => Ok(t),
            None => simulate(*d),
        })
        .collect::<Result<Vec<Trace>, String>>()?;
    if let Some(t) = traces.iter().find(|t| t.ticks.len() > MAX_HANDOUT_TICKS) {
        return Err(too_long_for_a_handout(t.ticks.len(), t.design));
    }
    let told: Vec<Told> = traces.iter().map(|t| scenario.tell(t)).collect();
    Ok(caps
        .iter()
        .map(|&compact_rows| {
            Page {
                scenario,
                traces: &traces,
                told: &told,
                withheld,
                opening,
                compact_rows,
                in_session,
            }
            .render(audience)
        })
        .collect())
}

/// The words a session's compact handout keeps to: a six-part session reads in a sitting.
pub const COMPACT_SESSION_WORDS: usize = 3_000;

/// The caps on a compact handout's rows per design tried for a session, largest first.
const COMPACT_CAPS: [usize; 6] = [MAX_COMPACT_ROWS, 6, 5, 4, 3, 2];

/// The most ticks a design's run may have for a handout. Its tables show at most
/// [`MAX_STORY_ROWS`] ticks before each question, but finding which ticks every design shares
/// reads every design's whole run: past this, a handout would take over a second and 200 MB
/// for a page nobody could teach from.
pub const MAX_HANDOUT_TICKS: usize = 10_000;

fn too_long_for_a_handout(ticks: usize, design: Design) -> String {
    format!(
        "this story has {ticks} ticks under {}; a handout covers at most {MAX_HANDOUT_TICKS} ticks a design: export a shorter scenario, or an SVG frame of the moment that matters (--format svg --at TIME)",
        design.id()
    )
}

/// One handout for a whole session file: the agenda (each part with the design it opens on and
/// its time), then each scenario's handout in turn, its headings one level down. Each part
/// hides what the session hides, what its own `hide` adds, and what `extra` (the command
/// line's `--hide-*`) adds.
pub fn session_handout(
    playlist: &crate::present::playlist::Playlist,
    audience: Audience,
    extra: crate::present::Hide,
) -> Result<String, String> {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", heading(&playlist.title));
    if !playlist.description.trim().is_empty() {
        out.push_str(&block(&playlist.description));
        out.push_str("\n\n");
    }
    let total = playlist
        .budget()
        .map(|b| format!(", {} in all", minutes(b)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "A session of {} scenario{} replayed by idem{total}.\n",
        playlist.sections.len(),
        if playlist.sections.len() == 1 {
            ""
        } else {
            "s"
        }
    );
    let _ = writeln!(
        out,
        "{}\n",
        match audience {
            Audience::PreRead => {
                "Each part gives the story as the room sees it up to each question, and the questions; what happens next, and the answers, wait for the session."
            }
            Audience::Trainer => {
                "Each part gives the questions with their answers, every design's timeline and the notes, with nothing hidden: this copy is the trainer's."
            }
            Audience::Crib => {
                "The trainer's crib sheet: each part's questions with the right answer under each design, why, the notes and the time, with nothing hidden."
            }
            _ => {
                "Each part gives the story up to each question and the questions first; what happened next, and the answers, are on the pages after them."
            }
        }
    );
    if audience == Audience::Crib {
        Page::room_keys(&mut out);
    }
    let _ = writeln!(out, "| Part | Scenario | Opens on | Time |");
    let _ = writeln!(out, "|--:|---|---|--:|");
    // The trainer's own forms show the trainer what the session hides from the room; only
    // what the export's own flags hide stays hidden.
    let withheld = |s: &crate::present::playlist::Section| {
        if audience.for_trainer() {
            Withheld::new(extra)
        } else {
            Withheld::new(playlist.hide.or(s.hide).or(extra))
        }
    };
    let hidden_from_room = |s: &crate::present::playlist::Section| {
        let hide = playlist.hide.or(s.hide).or(extra);
        crate::present::Hide::NAMES
            .iter()
            .zip([hide.design, hide.statement, hide.outcome])
            .filter(|(_, hidden)| *hidden)
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
    };
    for (i, s) in playlist.sections.iter().enumerate() {
        let _ = writeln!(
            out,
            "| {} | {} (`{}`) | {} | {} |",
            i + 1,
            cell(&s.title),
            code_span(&s.scenario.name),
            cell(&withheld(s).design(s.design)),
            s.budget.map_or_else(|| "—".to_string(), minutes)
        );
    }
    out.push('\n');
    // A scenario is the same handout wherever it comes back: simulated and written once. The
    // compact one is written at each cap on its rows, and the session takes the largest cap
    // that keeps it within its words.
    let caps: &[usize] = if audience == Audience::Compact {
        &COMPACT_CAPS
    } else {
        &COMPACT_CAPS[..1]
    };
    // A part's handout is the same for the same scenario, text, opening design and hiding.
    type Part<'a> = (&'a str, &'a str, crate::sim::Design, String);
    let mut made: std::collections::HashMap<Part<'_>, Vec<String>> =
        std::collections::HashMap::new();
    let mut parts: Vec<(usize, Part<'_>)> = Vec::new();
    let mut bytes = out.len();
    for (i, s) in playlist.sections.iter().enumerate() {
        let hide = withheld(s);
        let key = (
            s.scenario.name.as_str(),
            s.scenario.text.as_str(),
            s.design,
            format!("{hide:?}"),
        );
        if let std::collections::hash_map::Entry::Vacant(e) = made.entry(key.clone()) {
            e.insert(
                handouts(&s.scenario, audience, hide, s.design, caps, true)
                    .map_err(|e| format!("part {} ({}): {e}", i + 1, s.scenario.name))?,
            );
        }
        bytes += made[&key].first().map_or(0, String::len);
        if bytes > MAX_SESSION_HANDOUT_BYTES {
            return Err(format!(
                "this session's {} handout passes {} MB at part {} of {}: write a shorter one (--handout compact or the pre-read), or export the parts one scenario at a time",
                audience.id(),
                MAX_SESSION_HANDOUT_BYTES / 1_000_000,
                i + 1,
                playlist.sections.len()
            ));
        }
        parts.push((i, key));
    }
    let assemble = |cap: usize| -> String {
        let mut all = out.clone();
        for (i, key) in &parts {
            let s = &playlist.sections[*i];
            let part = made[key].get(cap).map_or("", String::as_str);
            // A crib sheet is read at a glance, parts one after another on as few pages as fit.
            all.push_str(if audience == Audience::Crib {
                "---\n\n"
            } else {
                PAGE_BREAK
            });
            let _ = writeln!(all, "# Part {}: {}\n", i + 1, heading(&s.title));
            if audience.for_trainer() {
                let hidden = hidden_from_room(s);
                let budget = s.budget.map(|b| format!("Time: {}.", minutes(b)));
                let room = (!hidden.is_empty())
                    .then(|| format!("Hidden from the room: {}.", hidden.join(", ")));
                let line: Vec<String> = budget.into_iter().chain(room).collect();
                if !line.is_empty() {
                    let _ = writeln!(all, "*{}*\n", line.join(" "));
                }
            }
            // Every heading of the part goes one level down, under the part's own.
            for line in part.lines() {
                if line.starts_with('#') {
                    all.push('#');
                }
                all.push_str(line);
                all.push('\n');
            }
            all.push('\n');
        }
        while all.ends_with("\n\n") {
            all.pop();
        }
        all
    };
    let mut out = assemble(0);
    for cap in 1..caps.len() {
        if out.split_whitespace().count() <= COMPACT_SESSION_WORDS {
            break;
        }
        out = assemble(cap);
    }
    Ok(out)
}

/// The longest handout of a whole session: what a reader opens and a printer takes, written in
/// about a second.
pub const MAX_SESSION_HANDOUT_BYTES: usize = 16_000_000;

/// `10 min`, `1 h 30 min`, `45 s`.
fn minutes(d: std::time::Duration) -> String {
    let secs = d.as_secs();
    match (secs / 3600, secs % 3600 / 60, secs % 60) {
        (0, 0, s) => format!("{s} s"),
        (0, m, 0) => format!("{m} min"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

/// One scenario's handout being written: its runs and their words under every design (in
/// [`Design::ALL`]'s order), what the room may not see, and the design the room sees first.
struct Page<'a> {
    scenario: &'a Scenario,
    traces: &'a [Trace],
    told: &'a [Told],
    withheld: Withheld,
    opening: Design,
    /// The most ticks the compact handout shows of one design where it parts ways.
    compact_rows: usize,
    /// A part of a session's handout, whose header says once how every part reads.
    in_session: bool,
}

/// The most ticks the story up to one question shows: the latest ones before it.
pub const MAX_STORY_ROWS: usize = 24;
/// The most ticks the compact handout shows of one design where it parts ways with the others.
pub const MAX_COMPACT_ROWS: usize = 8;

impl Page<'_> {
    fn clock(&self) -> ClockStyle {
        self.traces
            .first()
            .map_or(ClockStyle::TimeOfDay, |t| t.clock)
    }

    /// A design's run and its words.
    fn of(&self, design: Design) -> Option<(&Trace, &Told)> {
        self.traces
            .iter()
            .zip(self.told)
            .find(|(t, _)| t.design == design)
    }

    /// The designs the room is shown: the one it opens on, the others the compare screen
    /// starts with, and every design a question is asked under.
    fn shown(&self) -> Vec<Design> {
        let mut designs = vec![self.opening];
        let asked = self
            .scenario
            .quizzes
            .iter()
            .filter_map(|q| q.designs.listed())
            .flatten();
        for d in Design::CORE.iter().chain(asked) {
            if !designs.contains(d) {
                designs.push(*d);
            }
        }
        designs
    }

    /// How to run this scenario from a shell, when it can be: a built-in by its name, a file by
    /// its path; a story made in the session has neither.
    fn run_command(&self, design: &str) -> Option<String> {
        let target = match &self.scenario.origin {
            crate::scenario::Origin::BuiltIn(name) => (*name).to_string(),
            crate::scenario::Origin::File(path) => {
                shell_word(&crate::text::sanitize_line(&path.display().to_string()))
            }
            crate::scenario::Origin::Made => return None,
        };
        Some(format!("idem run {target} --design {design}"))
    }

    fn render(&self, audience: Audience) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# {}\n", heading(&self.scenario.title));
        if audience == Audience::Crib {
            self.crib(&mut out);
        } else if audience == Audience::Trainer {
            self.trainer(&mut out);
        } else {
            let intro = match audience {
                Audience::PreRead => {
                    "This is the pre-read: the story as the room sees it up to each question, and the questions. What happens next, and the answers, wait for the session."
                }
                _ => {
                    "The story up to each question and the questions come first. What happened next, and the answers, are on the pages after them: work out your answers before you turn."
                }
            };
            if self.in_session {
                let _ = writeln!(out, "Scenario `{}`.\n", code_span(&self.scenario.name));
            } else {
                let _ = writeln!(
                    out,
                    "Scenario `{}`, replayed by idem. {intro}\n",
                    code_span(&self.scenario.name)
                );
            }
            // The compact handout tells the story by its ticks' labels, to stay short.
            self.story_and_questions(&mut out, audience != Audience::Compact);
            match audience {
                Audience::Compact => self.compact(&mut out),
                Audience::Students => self.full(&mut out),
                Audience::PreRead | Audience::Trainer | Audience::Crib => {}
            }
        }
        // One newline at the end, whatever the last section left.
        while out.ends_with("\n\n") {
            out.pop();
        }
        out
    }

    /// The story as the room sees it up to each question, and each question with its
    /// choices. A question is told from the design the room watches when it is asked: the
    /// opening one, or the first the question names when it is asked under others only. Only
    /// the first question of each design's story gets the ticks before it; the ticks between
    /// two questions hold the answer to the earlier one, so a later question gets its moment
    /// alone. The question's own tick shows no label or narration, which would start to answer
    /// it. Without questions, the story the designs share before any of them parts ways.
    fn story_and_questions(&self, out: &mut String, narrated: bool) {
        let quizzes = &self.scenario.quizzes;
        if quizzes.is_empty() {
            let Some((trace, told)) = self.of(self.opening) else {
                return;
            };
            let shared = self
                .first_difference(&Design::ALL)
                .unwrap_or(trace.ticks.len());
            let _ = writeln!(out, "## The story\n");
            let rows: Vec<(usize, bool)> = (0..shared.min(trace.ticks.len()))
                .filter_map(|i| self.shared(trace, told, i).map(|same| (i, same)))
                .collect();
            self.story_rows(out, trace, told, &rows, None, narrated);
            return;
        }
        let most = crate::scenario::most_charges(self.traces);
        let mut told_so_far: Vec<Design> = Vec::new();
        for (n, quiz) in quizzes.iter().enumerate() {
            let design = self.story_design(quiz);
            if let Some((trace, told)) = self.of(design)
                && let Some(at) = quiz.tick(trace, told)
            {
                if told_so_far.contains(&design) {
                    let _ = writeln!(out, "## Question {}\n", n + 1);
                    let _ = writeln!(
                        out,
                        "*What happens after the question before is left for the session.*\n"
                    );
                } else {
                    told_so_far.push(design);
                    let _ = writeln!(out, "## The story up to question {}\n", n + 1);
                    if design != self.opening {
                        let _ = writeln!(
                            out,
                            "*As the replay tells it under {}, which this question is asked of.*\n",
                            inline(&self.withheld.design(design))
                        );
                    }
                    let rows: Vec<(usize, bool)> = (0..at)
                        .filter_map(|i| {
                            self.told_alike(told, i, &quiz.designs)
                                .map(|same| (i, same))
                        })
                        .collect();
                    self.story_rows(out, trace, told, &rows, Some(at), narrated);
                }
            }
            self.question(out, n, quiz, most);
        }
    }

    /// The design whose story a question is told from: the opening one when the question is
    /// asked under it, else the first design it names.
    fn story_design(&self, quiz: &Quiz) -> Design {
        match quiz.designs.listed() {
            Some(listed) if !listed.contains(&self.opening) => {
                listed.first().copied().unwrap_or(self.opening)
            }
            _ => self.opening,
        }
    }

    /// Question `n` (0-based) as the room reads it: where it stops, whom it is for, the
    /// question and its numbered choices.
    fn question(&self, out: &mut String, n: usize, quiz: &Quiz, most: usize) {
        let _ = writeln!(
            out,
            "**Question {}** ({}{}). {}\n",
            n + 1,
            inline(&self.withheld.text(&target_text(&quiz.target, self.clock()))),
            scope_text(&quiz.designs, self.withheld),
            inline(&self.withheld.text(&quiz.question))
        );
        for (i, choice) in quiz.shown_choices(most).iter().enumerate() {
            let _ = writeln!(out, "{}. {}", i + 1, inline(&self.withheld.text(choice)));
        }
        out.push('\n');
    }

    /// The ticks `rows` of one design's story as a table (the latest [`MAX_STORY_ROWS`] of
    /// them), then the question's tick `asked` by its time and lane alone.
    fn story_rows(
        &self,
        out: &mut String,
        trace: &Trace,
        told: &Told,
        rows: &[(usize, bool)],
        asked: Option<usize>,
        narrated: bool,
    ) {
        let start = rows.len().saturating_sub(MAX_STORY_ROWS);
        if start > 0 {
            let _ = writeln!(
                out,
                "*{start} earlier tick{} of this stretch are left out; the replay shows them all.*\n",
                if start == 1 { "" } else { "s" }
            );
        }
        let asked = asked.and_then(|i| trace.ticks.get(i));
        let stands = |out: &mut String, narrated: bool| {
            if let Some(tick) = asked {
                let _ = writeln!(
                    out,
                    "| {} | {} | *The question stands here.* |{}",
                    cell(&trace.format_time(tick.at)),
                    cell(self.scenario.lanes.of_tick(tick)),
                    if narrated { " |" } else { "" }
                );
            }
        };
        if !narrated {
            let _ = writeln!(out, "| Time | Lane | What happened |");
            let _ = writeln!(out, "|---|---|---|");
            for (i, _) in &rows[start..] {
                self.short_row(out, trace, told, *i);
            }
            stands(out, false);
            out.push('\n');
            return;
        }
        if rows.iter().any(|(_, same)| !same) {
            let _ = writeln!(
                out,
                "*A tick the designs narrate in different words is given without its narration: the replay tells it.*\n"
            );
        }
        let _ = writeln!(out, "| Time | Lane | What happened | Narration |");
        let _ = writeln!(out, "|---|---|---|---|");
        for (i, same) in &rows[start..] {
            let narration = match told.narrations.get(*i) {
                Some(n) if *same => cell(&self.withheld.narration(trace.ticks[*i].kind, n)),
                _ => String::new(),
            };
            self.row(out, trace, told, *i, &narration);
        }
        stands(out, true);
        out.push('\n');
    }

    /// Whether tick `i` of `trace` happens under every design, at the same moment with the
    /// same label; if so, whether every design narrates it in the same words.
    /// Whether tick `i` (of `told`'s run) is told, by the same label, under every design `scope`
    /// covers, at whatever moment each has it (a retry answered later under one design is
    /// still the same event); if so, whether each narrates it in the same words. A tick only
    /// some of them have (a write to memory) would start to answer a question about them.
    fn told_alike(&self, told: &Told, i: usize, scope: &Scope) -> Option<bool> {
        let (label, narration) = (told.labels.get(i)?, told.narrations.get(i)?);
        let mut same = true;
        for (t, w) in self.traces.iter().zip(self.told) {
            if !scope.covers(t.design) {
                continue;
            }
            let j = (0..t.ticks.len()).find(|&j| w.labels.get(j) == Some(label))?;
            same &= w.narrations.get(j) == Some(narration);
        }
        Some(same)
    }

    fn shared(&self, trace: &Trace, told: &Told, i: usize) -> Option<bool> {
        let (tick, label, narration) = (
            trace.ticks.get(i)?,
            told.labels.get(i)?,
            told.narrations.get(i)?,
        );
        let mut same = true;
        for (t, w) in self.traces.iter().zip(self.told) {
            let j = (0..t.ticks.len())
                .find(|&j| t.ticks[j].at == tick.at && w.labels.get(j) == Some(label))?;
            same &= w.narrations.get(j) == Some(narration);
        }
        Some(same)
    }

    /// One tick as a table row of three cells, without its narration.
    fn short_row(&self, out: &mut String, trace: &Trace, told: &Told, i: usize) {
        let (Some(tick), Some(label)) = (trace.ticks.get(i), told.labels.get(i)) else {
            return;
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(&trace.format_time(tick.at)),
            cell(self.scenario.lanes.of_tick(tick)),
            cell(&self.withheld.label(tick.kind, label)),
        );
    }

    /// One tick as a table row.
    fn row(&self, out: &mut String, trace: &Trace, told: &Told, i: usize, narration: &str) {
        let (Some(tick), Some(label)) = (trace.ticks.get(i), told.labels.get(i)) else {
            return;
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {narration} |",
            cell(&trace.format_time(tick.at)),
            cell(self.scenario.lanes.of_tick(tick)),
            cell(&self.withheld.label(tick.kind, label)),
        );
    }

    /// The first tick at which any two of `designs` tell different stories (time, lane, kind
    /// or label), or None when they all tell the same one.
    fn first_difference(&self, designs: &[Design]) -> Option<usize> {
        let runs: Vec<(&Trace, &Told)> = designs.iter().filter_map(|d| self.of(*d)).collect();
        let (first, rest) = runs.split_first()?;
        rest.iter()
            .filter_map(|other| first_difference(*first, *other))
            .min()
    }
}

/// The first tick where two runs differ in what the replay draws (time, lane, kind or
/// label), or the shorter length when one is a prefix of the other.
fn first_difference((ta, la): (&Trace, &Told), (tb, lb): (&Trace, &Told)) -> Option<usize> {
    let same = |i: usize| {
        let (x, y) = (&ta.ticks[i], &tb.ticks[i]);
        x.at == y.at && x.actor == y.actor && x.kind == y.kind && la.labels[i] == lb.labels[i]
    };
    let common = ta.ticks.len().min(tb.ticks.len());
    (0..common)
        .find(|&i| !same(i))
        .or((ta.ticks.len() != tb.ticks.len()).then_some(common))
}

/// The most ticks one design's timeline shows: as many as a recording holds.
pub const MAX_HANDOUT_ROWS: usize = 2_000;
/// The most text one design's timeline takes, long narration and all.
pub const MAX_TIMELINE_BYTES: usize = 512 * 1024;

/// Where a printed handout starts a new page (Markdown renderers that print to paper, and
/// HTML, honour it; elsewhere it is invisible).
const PAGE_BREAK: &str = "<div style=\"page-break-before: always\"></div>\n\n";

fn choice_text(quiz: &Quiz, most: usize, right: Option<usize>, w: Withheld) -> String {
    let choices = quiz.shown_choices(most);
    match right.and_then(|i| choices.get(i).map(|c| (i, c))) {
        Some((i, c)) => format!("**{}. {}**", i + 1, inline(&w.text(c))),
        None => "none of the choices fits this run".to_string(),
    }
}

fn charges_text(n: usize) -> String {
    if n == 1 {
        "1 charge".to_string()
    } else {
        format!("{n} charges")
    }
}

/// Where a quiz or note stands: a time, or a tick's label.
fn target_text(target: &NarrationTarget, clock: ClockStyle) -> String {
    match target {
        NarrationTarget::At(at) => format!("at {}", clock.format_short(*at)),
        NarrationTarget::Label(label) => format!("at the tick “{label}”"),
    }
}

/// `; for no key (`no-key`) only` for a block its `designs` key scopes (in
/// the neutral names while design names are hidden), else nothing.
fn scope_text(scope: &Scope, w: Withheld) -> String {
    let Some(listed) = scope.listed() else {
        return String::new();
    };
    let names: Vec<String> = listed.iter().map(|d| w.design_with_id(*d)).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    format!("; for {} only", crate::text::and_list(&names))
}

/// A word as a POSIX shell reads it back: as it is when it holds only safe characters, else in
/// single quotes.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_./-+:,@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text for a table cell: on one line, with every character Markdown would act on escaped.
pub fn cell(text: &str) -> String {
    inline(&one_line(text))
}

/// Inline text with Markdown's significant characters escaped, so it shows as written.
pub fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '$' | '~' | '&' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A heading's text: inline escapes, and `#` too, which would otherwise close the heading.
fn heading(text: &str) -> String {
    inline(&one_line(text)).replace('#', "\\#")
}

/// Text inside a code span: a backtick cannot be escaped there, so it is replaced.
fn code_span(text: &str) -> String {
    text.replace('`', "'")
}

/// A block of the trainer's prose: paragraphs kept, each line escaped, and a line that would
/// start a list, a heading, a quote or a rule made plain.
fn block(text: &str) -> String {
    text.trim()
        .lines()
        .map(|line| {
            let line = inline(line.trim());
            let starts_block = line.starts_with(['#', '-', '+', '='])
                || line
                    .find(|c: char| !c.is_ascii_digit())
                    .is_some_and(|i| i > 0 && line[i..].starts_with(['.', ')']));
            if !starts_block {
                return line;
            }
            match line.find(|c: char| !c.is_ascii_digit()) {
                Some(i) if i > 0 => format!("{}\\{}", &line[..i], &line[i..]),
                _ => format!("\\{line}"),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_cells_and_blocks() {
        assert_eq!(cell("a | b\n*c* $1"), "a \\| b \\*c\\* \\$1");
        assert_eq!(
            block("# not a heading\n1. not a list\n- nor this\nplain"),
            "\\# not a heading\n1\\. not a list\n\\- nor this\nplain"
        );
        assert_eq!(heading("Order #1"), "Order \\#1");
    }
}
