//! The narration of the current moment, and the outcome once the last tick is reached.

use super::fit;
use crate::report::{Tone, headline, reconcile_line, verdict_meaning};
use crate::tui::app::{App, Screen};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

/// The words the narration box shows at this moment (none while a question is asked).
pub fn narration_text(app: &App) -> Option<String> {
    match app.screen {
        Screen::Replay if app.quiz_here().is_some() => None,
        Screen::Replay | Screen::Window => app.told().narrations.get(app.tick).cloned(),
        Screen::Compare => Some("Three processors, the same requests, the same faults. Step with ← and →: all three move together; ◆ marks the first tick where they stop agreeing.".to_string()),
    }
}

pub fn narration(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    if app.screen == Screen::Replay
        && let Some((index, quiz)) = app.quiz_here()
    {
        question(frame, area, app, index, quiz, theme);
        return;
    }
    let text = narration_text(app).unwrap_or_default();
    // Words that do not fit are never dropped silently: the title says so.
    let shown = area.height.saturating_sub(2) as usize;
    let cut = crate::text::wrap(&text, area.width.saturating_sub(2) as usize).len() > shown;
    let title = if cut {
        " What happens · cut: enlarge the terminal to read it all "
    } else {
        " What happens "
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .title_style(if cut { theme.changed() } else { theme.bold() });
    let glossary = super::glossary::marked(&text, app, theme);
    frame.render_widget(
        Paragraph::new(glossary)
            .wrap(Wrap { trim: true })
            .block(block),
        area,
    );
}

/// A prediction checkpoint: the question while it waits, the answer once it is given.
fn question(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    index: usize,
    quiz: &crate::scenario::Quiz,
    theme: &Theme,
) {
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
                (false, None) => Span::styled("✗ ", theme.tone(Tone::Bad)),
            };
            lines.push(Line::from(vec![
                verdict,
                Span::raw(quiz.explanation.clone()),
            ]));
            " The answer "
        }
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .title_style(theme.changed());
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(block),
        area,
    );
}

pub fn outcome(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let line = match app.screen {
        Screen::Replay if app.at_end() => {
            let o = &app.trace().outcome;
            let (tone, head) = headline(o);
            let beliefs: Vec<&str> = o.intents.iter().map(|i| i.client_view.label()).collect();
            let mut rest = format!(
                "  ·  verdict: {}  ·  checkout believes: {}  ·  {}",
                o.verdict.id(),
                beliefs.join(", "),
                verdict_meaning(o),
            );
            if let Some(r) = &o.reconcile {
                rest.push_str(&format!("  ·  reconcile: {}", reconcile_line(r)));
            }
            let rest = match app.score_text() {
                Some(score) => format!("  ·  {score}{rest}"),
                None => rest,
            };
            let room = (area.width as usize).saturating_sub(head.chars().count() + 1);
            Line::from(vec![
                Span::raw(" "),
                Span::styled(head, theme.tone(tone)),
                Span::raw(fit(&rest, room)),
            ])
        }
        Screen::Replay | Screen::Window => {
            let left = app.last_tick() - app.tick;
            Line::styled(
                format!(
                    " Outcome at the last tick ({left} to go). How many times will the card be charged?"
                ),
                theme.dim(),
            )
        }
        Screen::Compare => Line::styled(
            " Each column shows its outcome once it reaches its last tick.",
            theme.dim(),
        ),
    };
    frame.render_widget(Paragraph::new(line), area);
}
