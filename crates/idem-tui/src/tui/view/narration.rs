//! The narration of the current moment, and the outcome once the last tick is reached.

use super::fit;
use super::wrap::Laid;
use crate::replay::app::{App, Overlay, Screen};
use crate::story::outcome::{Tone, headline, reconcile_line, verdict_meaning};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span, Text};

/// The words the narration box shows at this moment (none while a question is asked).
pub fn narration_text(app: &App) -> Option<String> {
    match app.screens.screen {
        Screen::Replay if app.quiz_here().is_some() => None,
        Screen::Replay | Screen::Window => {
            let kind = app.trace().ticks.get(app.place.tick)?.kind;
            app.told()
                .narrations
                .get(app.place.tick)
                .map(|n| app.withheld().narration(kind, n))
        }
        Screen::Compare => Some(format!(
            "{} processors, the same requests, the same faults, one row per moment. Step with ← and →: all columns move together; ◆ marks the first tick where they stop agreeing. 1–6 add or take away a column (two to five).",
            crate::story::outcome::count_word(app.screens.compared.len())
        )),
    }
}

/// What the narration box holds at this moment: the narration, or a question and its answer;
/// whether its rows are trimmed of leading blanks; the box's title and the title's style.
fn story<'a>(app: &'a App, text: &'a str, theme: &Theme) -> (Text<'a>, bool, &'static str, Style) {
    if app.screens.screen == Screen::Replay
        && let Some((index, quiz)) = app.quiz_here()
    {
        let (lines, title) = question(app, index, quiz, theme);
        // Not trimmed: the hands' column keeps its alignment.
        return (Text::from(lines), false, title, theme.changed());
    }
    let mut glossary = super::glossary::marked(text, app, theme);
    if app.screens.screen == Screen::Replay
        && let Some(caveat) = app.trainer_caveat_here()
    {
        glossary.lines.push(Line::styled(caveat, theme.dim()));
    }
    (glossary, true, " What happens ", theme.bold())
}

/// The narration box's content at this moment, made and wrapped once a frame: the layout
/// asks how many rows it needs, then the same rows are drawn.
pub struct StoryBox<'a> {
    text: Text<'a>,
    trim: bool,
    title: &'static str,
    style: Style,
    /// The text laid out inside the box, its borders not counted.
    laid: Laid,
}

impl<'a> StoryBox<'a> {
    /// The content for a box `width` columns wide, borders included; `text` is
    /// [`narration_text`]'s.
    pub fn new(app: &'a App, text: &'a str, width: u16, theme: &Theme) -> StoryBox<'a> {
        let (text, trim, title, style) = story(app, text, theme);
        let laid = Laid::new(&text, width.saturating_sub(2), trim);
        StoryBox {
            text,
            trim,
            title,
            style,
            laid,
        }
    }

    /// The rows the content needs, borders not counted.
    pub fn rows(&self) -> usize {
        self.laid.rows()
    }
}

/// The narration box. Words that do not fit are never dropped in silence: the title says how
/// many rows are hidden above and below, and ↓ / ↑ scroll them into view.
pub fn narration(frame: &mut Frame<'_>, area: Rect, app: &App, story: StoryBox<'_>, theme: &Theme) {
    let StoryBox {
        text,
        trim,
        title,
        style,
        laid,
    } = story;
    let inside = area.width.saturating_sub(2);
    // Drawn at another width than it was measured for (never, as the screens lay it out).
    let laid = if laid.width() == inside {
        laid
    } else {
        Laid::new(&text, inside, trim)
    };
    let rows = laid.rows();
    let shown = usize::from(area.height.saturating_sub(2));
    let hidden = rows.saturating_sub(shown);
    let offset = usize::from(app.place.story_offset()).min(hidden);
    let title = if hidden == 0 {
        title.to_string()
    } else {
        let below = hidden - offset;
        let marks = match (offset, below) {
            (0, b) => format!("↓ {b} more"),
            (a, 0) => format!("↑ {a} above"),
            (a, b) => format!("↑ {a} above, ↓ {b} more"),
        };
        format!("{title}· {marks} · ↓↑ scroll ")
    };
    let title_style = if hidden > 0 { theme.changed() } else { style };
    let inner = super::outline(frame.buffer_mut(), area, &title, title_style);
    laid.draw(&text, frame.buffer_mut(), inner, offset);
}

/// A prediction checkpoint: the question while it waits, what the room said (an answer or
/// hands per choice) until the reveal, then the right answer and the explanation for the
/// design on screen.
fn question(
    app: &App,
    index: usize,
    quiz: &crate::scenario::Quiz,
    theme: &Theme,
) -> (Vec<Line<'static>>, &'static str) {
    let response = app.talk.room.get(index, app.place.design);
    let choices = app.choices(quiz);
    let voting = match app.screens.overlay {
        Overlay::Voting { selected, .. } => Some(selected),
        _ => None,
    };
    let answering = app.screens.overlay == Overlay::Answering;
    let given = response.and_then(|r| r.answer());
    let revealed = response.and_then(|r| r.revealed);
    let votes: &[u32] = response.map_or(&[], |r| r.votes.as_slice());
    let mut lines = Vec::new();
    // The trainer's own words for this tick reach the room before the question.
    if let Some(Some(words)) = app.told().trainer.get(app.place.tick) {
        lines.push(Line::raw(words.to_string()));
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled(quiz.question.clone(), theme.bold()));
    // The question was written for the story in the file; say so when the screen's differs.
    let changes = app.version.changed_from_written();
    if let Some(caveat) = crate::story::written::written_for_the_file(&changes) {
        let mut first = caveat.chars();
        let caveat: String = first
            .next()
            .map(|c| c.to_uppercase().chain(first).collect())
            .unwrap_or_default();
        lines.push(Line::styled(caveat, theme.dim()));
    }
    if voting.is_some() || votes.iter().any(|v| *v > 0) {
        // One line per choice, with its hands and a bar, so the room sees itself counted.
        let most = votes.iter().copied().max().unwrap_or(0).max(1);
        let label_width = choices
            .iter()
            .map(|c| unicode_width::UnicodeWidthStr::width(c.as_str()))
            .max()
            .unwrap_or(0)
            // Room for the marks, the count and a 20-cell bar beside it at 80 columns.
            .min(44);
        for (i, c) in choices.iter().enumerate() {
            let n = votes.get(i).copied().unwrap_or(0);
            let chosen = voting == Some(i);
            let style = if chosen {
                theme.current()
            } else if revealed.is_some_and(|r| r == Some(i)) {
                theme.tone(Tone::Good)
            } else {
                Style::new()
            };
            let bar = "█".repeat((n * 20).div_ceil(most) as usize);
            lines.push(Line::from(vec![
                Span::styled(if chosen { "▸ " } else { "  " }, theme.key()),
                Span::styled(format!("{} ", i + 1), theme.key()),
                Span::styled(format!("{:<label_width$}", fit(c, label_width)), style),
                Span::styled(format!(" {n:>4} "), theme.bold()),
                Span::styled(bar, theme.dim()),
            ]));
        }
    } else {
        // Short choices share a line; long ones take a line each, so the box never wraps a
        // choice in the middle and leaves its end under the next one's number.
        let together: usize = choices
            .iter()
            .map(|c| unicode_width::UnicodeWidthStr::width(c.as_str()) + 6)
            .sum();
        let one_per_line = together > 56;
        let mut spans: Vec<Span> = Vec::new();
        for (i, c) in choices.iter().enumerate() {
            let style = if given == Some(i) {
                theme.current()
            } else {
                Style::new()
            };
            spans.push(Span::styled(format!("{} ", i + 1), theme.key()));
            spans.push(Span::styled(c.clone(), style));
            if one_per_line {
                lines.push(Line::from(std::mem::take(&mut spans)));
            } else {
                spans.push(Span::raw("    "));
            }
        }
        if !spans.is_empty() {
            lines.push(Line::from(spans));
        }
    }
    let n = choices.len();
    let title = match revealed {
        // A recording has no keys to press: it pauses, then shows the answer itself.
        None if app.export.is_some() => {
            lines.push(Line::styled(
                "Think it over: the answer follows in a moment.",
                theme.dim(),
            ));
            " Question for the room "
        }
        None if answering => {
            lines.push(Line::styled(
                format!("Answer mode: press 1 to {n} for the room's answer · Esc leaves"),
                theme.changed(),
            ));
            " Answer mode "
        }
        None if voting.is_some() => {
            lines.push(Line::styled(
                "Type each choice's hands · ↑↓ choose · Enter reveals · Esc leaves",
                theme.changed(),
            ));
            " Counting hands "
        }
        None => {
            let waiting = given.map(|i| {
                format!(
                    "The room says {} {}. → or Enter reveals · u takes it back · a changes it",
                    i + 1,
                    choices.get(i).map_or("", String::as_str)
                )
            });
            let text = match waiting {
                Some(w) => w,
                None if app.talk.room.revealed_anywhere(index) => format!(
                    "Not asked under {} yet: a or v asks again, → goes on. {}",
                    design_name(app),
                    asked_before(app, index, &choices)
                ),
                None => "The replay waits: a, then a number, for the room's answer · v counts hands · 1–6 switch design".to_string(),
            };
            lines.push(Line::styled(text, theme.dim()));
            " Question for the room "
        }
        // Revealed for a story that has changed since (K, m, a what-if), whose right answer
        // is not this one's: the room's answer is told as an answer to that story.
        Some(then) if then != app.correct(quiz, app.place.design) => {
            let said = match given.and_then(|i| choices.get(i).map(|c| (i, c))) {
                Some((i, c)) => {
                    let verdict = if response.is_some_and(|r| r.right()) {
                        "right"
                    } else {
                        "wrong"
                    };
                    format!(
                        "The room's answer, {} {c}, was {verdict} for the story before it changed.",
                        i + 1
                    )
                }
                None => "The room was split on the story before it changed.".to_string(),
            };
            // The run's own outcome always, since the room's answer was to another story.
            let text = format!("{said} {}", explanation(app, quiz, &changes, true));
            lines.push(Line::from(vec![Span::styled(text, theme.tone(Tone::Warn))]));
            " The answer, for the story before "
        }
        Some(correct) => {
            let right = correct.and_then(|i| choices.get(i).map(|c| (i, c)));
            let room_right = response.is_some_and(|r| r.right());
            let split = given.is_none();
            let mut spans = vec![match (room_right, right) {
                (true, Some((i, c))) if app.export.is_some() => Span::styled(
                    format!("✓ The answer is {} {c}. ", i + 1),
                    theme.tone(Tone::Good),
                ),
                (true, _) => Span::styled("✓ Right. ", theme.tone(Tone::Good)),
                (false, Some((i, c))) if split => Span::styled(
                    format!("The room was split. The answer is {} {c}. ", i + 1),
                    theme.tone(Tone::Warn),
                ),
                (false, Some((i, c))) => Span::styled(
                    format!("✗ The answer is {} {c}. ", i + 1),
                    theme.tone(Tone::Bad),
                ),
                // More charges than even the grown choices name: the room is told what the
                // run did instead of a bare mark.
                (false, None) => Span::styled(
                    format!(
                        "✗ None of the choices: this run ends with {}. ",
                        crate::story::plural(app.trace().outcome.charges, "charge")
                    ),
                    theme.tone(Tone::Bad),
                ),
            }];
            if let Some(r) = response.filter(|r| r.hands() > 0) {
                let score = r.score();
                spans.push(Span::styled(
                    format!("{} of {} hands right. ", score.hands_right, score.hands),
                    theme.bold(),
                ));
            }
            spans.push(Span::raw(explanation(app, quiz, &changes, false)));
            lines.push(Line::from(spans));
            " The answer "
        }
    };
    (lines, title)
}

/// The design on screen as the room may see it: its name, or its number while hidden.
fn design_name(app: &App) -> String {
    crate::replay::shown::design_name(app, app.place.design)
}

/// Why the answer is what it is: the file's explanation while the story on screen is the one
/// the file tells, and once `changes` have changed it, what this run does instead. `outcome`
/// puts what this run does first even then.
fn explanation(app: &App, quiz: &crate::scenario::Quiz, changes: &[&str], outcome: bool) -> String {
    let o = &app.trace().outcome;
    let this_run = format!(
        "Under {} this story ends with {}: {}.",
        design_name(app),
        crate::story::plural(o.charges, "charge"),
        crate::story::outcome::verdict_meaning(o)
    );
    let why = if changes.is_empty() {
        app.withheld()
            .text(quiz.explanation.for_design(app.place.design))
    } else {
        "The file's explanation is for the story it tells, so it is not shown.".to_string()
    };
    if outcome || !changes.is_empty() {
        format!("{this_run} {why}")
    } else {
        why
    }
}

/// `Under design 1 the room said 2 Once (✓).`: what was answered under the other designs.
fn asked_before(app: &App, index: usize, choices: &[String]) -> String {
    let Some(by) = app.talk.room.quizzes.get(index) else {
        return String::new();
    };
    by.iter()
        .filter(|(d, r)| **d != app.place.design && r.is_revealed())
        .map(|(d, r)| {
            let said = r
                .choice
                .and_then(|i| choices.get(i).map(|c| format!("{} {c}", i + 1)))
                .unwrap_or_else(|| "nothing clear".to_string());
            let mark = if r.right() { "✓" } else { "✗" };
            format!("Under design {} the room said {said} ({mark}).", d.hotkey())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The outcome rows under the narration: at the last tick, the headline with the verdict on
/// one line and what it means on lines of its own, wrapped rather than cut; before it, a hint.
pub fn outcome_lines(app: &App, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    match app.screens.screen {
        Screen::Replay if app.at_end() && !app.withheld().shows_outcome() => vec![Line::styled(
            " The outcome is hidden until the reveal.",
            theme.dim(),
        )],
        Screen::Replay if app.at_end() => {
            let o = &app.trace().outcome;
            let (tone, head) = headline(o);
            let beliefs: Vec<&str> = o.intents.iter().map(|i| i.client_view.label()).collect();
            let facts = format!(
                "  ·  verdict: {}  ·  checkout believes: {}",
                o.verdict.id(),
                beliefs.join(", ")
            );
            let room = width.saturating_sub(head.chars().count() + 1);
            let mut lines = vec![Line::from(vec![
                Span::raw(" "),
                Span::styled(head, theme.tone(tone)),
                Span::raw(fit(&facts, room)),
            ])];
            let mut meaning = verdict_meaning(o);
            if let Some(r) = &o.reconcile {
                meaning.push_str(&format!("  ·  reconcile: {}", reconcile_line(r)));
            }
            if let Some(score) = app.score_text() {
                meaning = format!("{score}  ·  {meaning}");
            }
            for row in crate::text::wrap(&meaning, width.saturating_sub(2)) {
                lines.push(Line::styled(format!(" {row}"), theme.dim()));
            }
            lines
        }
        Screen::Replay | Screen::Window => {
            let left = app.last_tick() - app.place.tick;
            // The question the story asks next, in its own words; a story without questions
            // gets the one every story here is about.
            // A question on screen is in its own box: the line names the one after it.
            let from = app.place.tick + usize::from(app.question_here().is_some());
            let next = app
                .next_question(from)
                .and_then(|(_, i)| app.version.scenario().quizzes.get(i))
                .map(|q| crate::text::sanitize_line(&app.withheld().text(&q.question)));
            let ask = match next {
                Some(q) => format!(" Next question: {q}"),
                None if app.version.scenario().quizzes.is_empty() => {
                    " How many times will the card be charged?".to_string()
                }
                None => String::new(),
            };
            vec![Line::styled(
                fit(
                    format!(" Outcome at the last tick ({left} to go).{ask}"),
                    width,
                ),
                theme.dim(),
            )]
        }
        Screen::Compare => vec![Line::styled(
            " Each column shows its outcome once it reaches its last tick.",
            theme.dim(),
        )],
    }
}

pub fn outcome(frame: &mut Frame<'_>, area: Rect, lines: Vec<Line<'_>>) {
    super::rows(frame.buffer_mut(), area, lines);
}
