//! The narration of the current moment, and the outcome once the last tick is reached.

use super::fit;
use crate::report::{Tone, headline, reconcile_line, verdict_meaning};
use crate::tui::app::{App, Screen};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

/// The words the narration box shows at this moment (none while a question is asked).
pub fn narration_text(app: &App) -> Option<String> {
    match app.screen {
        Screen::Replay if app.quiz_here().is_some() => None,
        Screen::Replay | Screen::Window => app.told().narrations.get(app.tick).cloned(),
        Screen::Compare => Some(format!(
            "{} processors, the same requests, the same faults, one row per moment. Step with ← and →: all columns move together; ◆ marks the first tick where they stop agreeing. 1–6 add or take away a column (two to five).",
            crate::report::count_word(app.compared.len())
        )),
    }
}

/// What the narration box holds at this moment: the narration, or a question and its answer;
/// with the box's title and the title's style.
fn story<'a>(app: &'a App, text: &'a str, theme: &Theme) -> (Paragraph<'a>, &'static str, Style) {
    if app.screen == Screen::Replay
        && let Some((index, quiz)) = app.quiz_here()
    {
        let (lines, title) = question(app, index, quiz, theme);
        return (
            Paragraph::new(lines).wrap(Wrap { trim: true }),
            title,
            theme.changed(),
        );
    }
    let glossary = super::glossary::marked(text, app, theme);
    (
        Paragraph::new(glossary).wrap(Wrap { trim: true }),
        " What happens ",
        theme.bold(),
    )
}

/// The rows the narration box's content needs at `width` (the box's, borders included).
pub fn story_rows(app: &App, width: u16, theme: &Theme) -> usize {
    let text = narration_text(app).unwrap_or_default();
    let (paragraph, _, _) = story(app, &text, theme);
    paragraph.line_count(width.saturating_sub(2))
}

/// The narration box. Words that do not fit are never dropped in silence: the title says how
/// many rows are hidden above and below, and ↓ / ↑ scroll them into view.
pub fn narration(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let text = narration_text(app).unwrap_or_default();
    let (paragraph, title, style) = story(app, &text, theme);
    let rows = paragraph.line_count(area.width.saturating_sub(2));
    let shown = usize::from(area.height.saturating_sub(2));
    let hidden = rows.saturating_sub(shown);
    let offset = usize::from(app.story_offset()).min(hidden);
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
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .title_style(title_style);
    frame.render_widget(
        paragraph
            .scroll((u16::try_from(offset).unwrap_or(u16::MAX), 0))
            .block(block),
        area,
    );
}

/// A prediction checkpoint: the question while it waits, the answer once it is given.
fn question(
    app: &App,
    index: usize,
    quiz: &crate::scenario::Quiz,
    theme: &Theme,
) -> (Vec<Line<'static>>, &'static str) {
    let given = app.answers.get(index).copied().flatten();
    let mut lines = vec![Line::styled(quiz.question.clone(), theme.bold())];
    let mut choices: Vec<Span> = Vec::new();
    for (i, c) in quiz.choices.iter().enumerate() {
        let style = match given {
            Some(a) if a.choice == i => theme.current(),
            _ => ratatui::style::Style::new(),
        };
        choices.push(Span::styled(format!("{} ", i + 1), theme.key()));
        choices.push(Span::styled(c.clone(), style));
        choices.push(Span::raw("    "));
    }
    lines.push(Line::from(choices));
    let title = match given {
        // A recording has no keys to press: it pauses, then shows the answer itself.
        None if app.for_export => {
            lines.push(Line::styled(
                "Think it over: the answer follows in a moment.",
                theme.dim(),
            ));
            " Question for the room "
        }
        None => {
            lines.push(Line::styled(
                format!(
                    "Press 1 to {} to answer; the replay waits. An answer cannot be changed.",
                    quiz.choices.len()
                ),
                theme.dim(),
            ));
            " Question for the room "
        }
        Some(a) => {
            let right = quiz
                .correct(app.trace_of(a.design))
                .and_then(|i| quiz.choices.get(i).map(|c| (i, c)));
            let verdict = match (a.right, right) {
                (true, Some((i, c))) if app.for_export => Span::styled(
                    format!("✓ The answer is {} {c}. ", i + 1),
                    theme.tone(Tone::Good),
                ),
                (true, _) => Span::styled("✓ Right. ", theme.tone(Tone::Good)),
                (false, Some((i, c))) => Span::styled(
                    format!("✗ The answer is {} {c}. ", i + 1),
                    theme.tone(Tone::Bad),
                ),
                // `answer = "charges"` and more charges than choices: none of them is right,
                // and the room is told what the run did instead of a bare mark.
                (false, None) => Span::styled(
                    format!(
                        "✗ None of the choices: this run ends with {}. ",
                        crate::story::plural(app.trace_of(a.design).outcome.charges, "charge")
                    ),
                    theme.tone(Tone::Bad),
                ),
            };
            lines.push(Line::from(vec![
                verdict,
                Span::raw(quiz.explanation.clone()),
            ]));
            " The answer "
        }
    };
    (lines, title)
}

/// The outcome rows under the narration: at the last tick, the headline with the verdict on
/// one line and what it means on lines of its own, wrapped rather than cut; before it, a hint.
pub fn outcome_lines(app: &App, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    match app.screen {
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
            let left = app.last_tick() - app.tick;
            vec![Line::styled(
                fit(
                    &format!(
                        " Outcome at the last tick ({left} to go). How many times will the card be charged?"
                    ),
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

pub fn outcome(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let lines = outcome_lines(app, area.width as usize, theme);
    frame.render_widget(Paragraph::new(lines), area);
}
