//! Presenter mode: what a room reads from the back. Less chrome, the story in large type
//! (as large as a terminal allows: bold, spaced, with wide margins), the money at the bottom.
//! It shows its own state too: a what-if in force, a broken edit, the designs compared, a
//! session's part and its countdown, and at the end the room's score.

use super::{Hits, fit};
use crate::replay::app::{App, Overlay, Presenting, Screen};
use crate::replay::shown::{banners, clock};
use crate::story::outcome::headline;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Margin, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders};

/// The fewest rows the diagram keeps.
const DIAGRAM_LEAST: u16 = 6;

/// Draws presenter mode, and says where it drew what a click can choose.
pub fn presenter(frame: &mut Frame<'_>, app: &App, p: &Presenting, theme: &Theme) -> Hits {
    let mut hits = Hits::default();
    let area = frame.area();
    if p.blank {
        // A blank screen, as a projector remote's "black" key gives.
        return hits;
    }
    if let (Some(card), Some(agenda)) = (app.talk.card(), app.talk.agenda.as_deref()) {
        talk_card(frame, area, app, agenda, card, theme);
        return hits;
    }
    let roomy = area.height >= 30;
    let state = banners(app);
    let banner_height = (state.len() as u16).min(2);
    // At each scenario's last tick, the room's score so far (over the whole session at its end).
    let score = (app.screens.screen == Screen::Replay && app.at_end())
        .then(|| app.talk.session_score().text())
        .flatten();
    let money_height = 1 + u16::from(score.is_some());
    let fixed = 1 + 1 + banner_height + money_height + 1;
    let room = area.height.saturating_sub(fixed + DIAGRAM_LEAST);
    // A question, its choices (or its hands) and its answer, or compare's words, go in the
    // narration box; anything else in big letters.
    let text = super::narration::narration_text(app).unwrap_or_default();
    let story_box = (app.question_here().is_some() || app.screens.screen == Screen::Compare)
        .then(|| super::narration::StoryBox::new(app, &text, area.width, theme));
    let story_height = if let Some(story_box) = &story_box {
        // A question, its choices (or its hands) and its answer need their rows.
        let rows = story_box.rows() as u16 + 2;
        rows.clamp(5, room.max(5))
    } else if roomy {
        9
    } else {
        7
    };
    let [head, designs, banner, diagram, story, money, foot] = super::split::split(
        area,
        Direction::Vertical,
        [
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Length(banner_height),
            Constraint::Min(DIAGRAM_LEAST),
            Constraint::Length(story_height),
            Constraint::Length(money_height),
            Constraint::Length(1),
        ],
    );
    title_line(frame, head, app, p, theme);
    hits.designs = super::header::design_bar(frame, designs, app, theme);
    let lines: Vec<Line> = state
        .iter()
        .map(|l| Line::styled(fit(format!(" {l}"), banner.width as usize), theme.changed()))
        .collect();
    super::rows(frame.buffer_mut(), banner, lines);
    match app.screens.screen {
        Screen::Compare => super::compare::compare(frame, diagram, app, theme),
        _ => {
            let (timeline, side) = if p.panels {
                let side = if area.width >= 110 { 46 } else { 32 };
                let [t, s] = super::split::split(
                    diagram,
                    Direction::Horizontal,
                    [Constraint::Min(40), Constraint::Length(side)],
                );
                (t, Some(s))
            } else {
                (diagram, None)
            };
            let inner = super::rules(frame.buffer_mut(), timeline, theme.dim());
            hits.rows = super::lanes::app_rows(frame, inner, app, theme);
            if let Some(side) = side {
                if app.quiz_pending() {
                    // An open question: the memory, the ledger, the statement and the counters
                    // would answer it, so the room sees none of them until the reveal.
                    let block = Block::default()
                        .borders(Borders::ALL)
                        .title(" kept back until the answer ")
                        .title_style(theme.dim());
                    frame.render_widget(block, side);
                } else if p.hidden().statement {
                    let block = Block::default()
                        .borders(Borders::ALL)
                        .title(" Ledger · hidden (n reveals) ")
                        .title_style(theme.dim());
                    frame.render_widget(block, side);
                } else {
                    super::panels::panels(frame, side, app, theme);
                }
            }
        }
    }
    match story_box {
        Some(story_box) => super::narration::narration(frame, story, app, story_box, theme),
        None => big_narration(frame, story, app, theme),
    }
    money_line(frame, money, app, p, score.as_deref(), theme);
    footer(frame, foot, app, theme);
    hits
}

/// The talk's end: the last tick of the last scenario (or of the only one).
fn at_the_end(app: &App) -> bool {
    app.screens.screen == Screen::Replay
        && app.at_end()
        && app
            .talk
            .agenda
            .as_ref()
            .is_none_or(|a| a.at + 1 == a.playlist.sections.len())
}

/// The bottom line: what is being worked on, what a key just did, why the notes are off, or
/// the keys that work now (a question's own keys while one waits).
fn footer(frame: &mut Frame<'_>, foot: Rect, app: &App, theme: &Theme) {
    let width = foot.width as usize;
    let line = if app.jobs.simulating.is_some() {
        Line::styled(
            fit(
                format!(
                    " ⧗ simulating… {}",
                    app.jobs.simulating.as_deref().unwrap_or_default()
                ),
                width,
            ),
            theme.key(),
        )
    } else if let Some(n) = &app.screens.notice {
        // What a key just did reaches the room's screen too.
        Line::styled(fit(format!(" {n}"), width), theme.changed())
    } else if let Some(why) = &app.talk.notes_off {
        Line::styled(
            fit(format!(" speaker notes are off: {why}"), width),
            theme.tone(crate::story::outcome::Tone::Warn),
        )
    } else {
        Line::styled(fit(hints(app), width), theme.dim())
    };
    super::rows(frame.buffer_mut(), foot, vec![line]);
}

/// The keys that matter now, on one line.
fn hints(app: &App) -> &'static str {
    match app.screens.overlay {
        Overlay::Answering => " 1–9 the room's answer · Esc leaves answer mode",
        Overlay::Voting { .. } => {
            " digits: hands for the marked choice · ↑↓ choose · Enter reveals · Esc leaves"
        }
        _ if app.answer_waiting() => " → / Enter reveals · u takes it back · a changes it",
        _ if app.quiz_pending() => {
            " a answer · v count hands · 1–6 design · ← back · ? keys · q quit"
        }
        _ if app.screens.screen == Screen::Compare => {
            " ←→ step · 1–6 columns · c / Esc back · ? keys · q quit"
        }
        _ => " PgDn/→ next · PgUp/← back · . blank · t timer · 1–6 design · ? keys · q quit",
    }
}

fn title_line(frame: &mut Frame<'_>, area: Rect, app: &App, p: &Presenting, theme: &Theme) {
    let trace = app.trace();
    let position = match app.screens.screen {
        Screen::Compare => "COMPARE".to_string(),
        _ => format!("{}/{}", app.place.tick + 1, trace.ticks.len()),
    };
    let play = if app.place.playing {
        format!("▶ {}×   ", crate::replay::app::SPEEDS[app.place.speed])
    } else {
        String::new()
    };
    let mut right = format!("{play}◷ {}   {position}", trace.format_time(app.now()));
    // The room must know when it is looking at a what-if rather than the scenario as written.
    if !app.version.added.is_empty() {
        right = format!("⑂ WHAT-IF   {right}");
    }
    let mut spans = vec![];
    if p.show_elapsed {
        right.push_str(&format!("   ⏲ {}", clock(p.elapsed_secs as i64)));
    }
    // A session's part: its countdown beside the talk's elapsed time.
    let left_secs = app
        .talk
        .agenda
        .as_ref()
        .and_then(|a| a.left(p.elapsed_secs));
    let countdown = left_secs.filter(|_| p.show_elapsed).map(|left| {
        if left < 0 {
            (
                format!(" · {} over ", clock(-left)),
                theme.tone(crate::story::outcome::Tone::Bad),
            )
        } else {
            (format!(" · {} left ", clock(left)), theme.bold())
        }
    });
    let part = app
        .talk
        .agenda
        .as_ref()
        .map(|a| format!("{}/{} · ", a.at + 1, a.playlist.sections.len()))
        .unwrap_or_default();
    let tail = countdown.as_ref().map_or(0, |(t, _)| t.chars().count());
    let room = (area.width as usize).saturating_sub(right.chars().count() + tail + 3);
    let left = fit(format!(" {part}{}", app.version.scenario().title), room);
    let pad = (area.width as usize)
        .saturating_sub(left.chars().count() + right.chars().count() + tail + 1);
    spans.push(Span::styled(left, theme.bold()));
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(right, theme.bold()));
    if let Some((text, style)) = countdown {
        spans.push(Span::styled(text, style));
    }
    super::rows(frame.buffer_mut(), area, vec![Line::from(spans)]);
}

fn big_narration(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let said = app
        .told()
        .narrations
        .get(app.place.tick)
        .map(String::as_str)
        .unwrap_or_default();
    // As the room may see it: the statement's tick tells how it ended.
    let text = match app.trace().ticks.get(app.place.tick) {
        Some(t) => app.withheld().narration(t.kind, said),
        None => said.to_string(),
    };
    let inner = area.inner(Margin::new(4, 1));
    let mut lines = vec![Line::styled(text, theme.bold())];
    if let Some(caveat) = app.trainer_caveat_here() {
        lines.push(Line::styled(caveat, theme.dim()));
    }
    super::wrap::draw_wrapped(frame.buffer_mut(), inner, &Text::from(lines), true, 0);
}

/// The card statement, the outcome at the last tick, and at the talk's end the room's score
/// on a line of its own. What is hidden from the room says so instead.
fn money_line(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    p: &Presenting,
    score: Option<&str>,
    theme: &Theme,
) {
    let hidden = p.hidden();
    let state = app.trace().ticks.get(app.place.tick).map(|t| &t.state);
    let mut spans = vec![if app.quiz_pending() {
        Span::styled(
            " Card statement: kept back until the question is answered",
            theme.dim(),
        )
    } else if hidden.statement {
        Span::styled(" Card statement: hidden until revealed (n)", theme.dim())
    } else {
        let total = state.map_or_else(
            || "0 lines · total $0.00".to_string(),
            super::panels::statement_total,
        );
        Span::styled(format!(" Card statement: {total}"), theme.money())
    }];
    if app.at_end() && app.screens.screen == Screen::Replay {
        spans.push(Span::raw("   "));
        if hidden.outcome {
            spans.push(Span::styled("outcome hidden (n reveals)", theme.dim()));
        } else {
            let (tone, head) = headline(&app.trace().outcome);
            spans.push(Span::styled(head, theme.tone(tone)));
        }
    }
    let mut lines = vec![Line::from(spans)];
    if let Some(score) = score {
        let whose = match &app.talk.agenda {
            None => "The room",
            Some(_) if at_the_end(app) => "The room, over the session",
            Some(_) => "The room so far",
        };
        lines.push(Line::styled(
            fit(format!(" {whose}: {score}"), area.width as usize),
            theme.bold(),
        ));
    }
    super::rows(frame.buffer_mut(), area, lines);
}

/// The talk's own cards: its agenda before the first part, its end after the last.
fn talk_card(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    agenda: &crate::replay::app::Agenda,
    card: crate::replay::app::Card,
    theme: &Theme,
) {
    use crate::replay::app::Card;
    let w = app.withheld();
    let playlist = &agenda.playlist;
    let mut lines = vec![
        Line::styled(w.text(&playlist.title), theme.bold()),
        Line::raw(""),
    ];
    match card {
        Card::Agenda => {
            if !playlist.description.trim().is_empty() {
                lines.push(Line::raw(w.text(playlist.description.trim())));
                lines.push(Line::raw(""));
            }
            for (i, s) in playlist.sections.iter().enumerate() {
                let budget = s
                    .budget
                    .map(|b| format!(" · {}", clock(b.as_secs() as i64)))
                    .unwrap_or_default();
                lines.push(Line::raw(format!(
                    "{}. {}{budget}",
                    i + 1,
                    w.text(&s.title)
                )));
            }
            if let Some(total) = playlist.budget() {
                lines.push(Line::raw(""));
                lines.push(Line::styled(
                    format!("{} in all", clock(total.as_secs() as i64)),
                    theme.dim(),
                ));
            }
            lines.push(Line::raw(""));
            lines.push(Line::styled("PageDown starts part 1", theme.dim()));
        }
        Card::End => {
            let shown = agenda.parts_shown();
            lines.push(Line::raw(format!(
                "{shown} of {} parts shown",
                playlist.sections.len()
            )));
            if let Some(score) = app.talk.session_score().text() {
                lines.push(Line::raw(format!("The room, over the session: {score}")));
            }
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                "PageUp goes back to the last part · q ends the talk",
                theme.dim(),
            ));
        }
    }
    let inner = area.inner(Margin::new(4, 2));
    // Taller than the screen: the last rows give way to a line that says how many are left
    // out, so nothing is cut without a sign.
    let rows = usize::from(inner.height.saturating_sub(2));
    let width = inner.width.saturating_sub(2);
    let fits = |lines: &[Line<'static>]| {
        super::wrap::rows_wrapped(&Text::from(lines.to_vec()), width, true) <= rows
    };
    let mut dropped = 0;
    while !fits(&lines) && lines.len() > 2 {
        lines.truncate(lines.len() - 1 - usize::from(dropped > 0));
        dropped += 1;
        lines.push(Line::styled(
            format!("… {dropped} more lines: a taller screen shows them"),
            theme.dim(),
        ));
    }
    let inside = super::outline(frame.buffer_mut(), inner, "", Style::new());
    super::wrap::draw_wrapped(frame.buffer_mut(), inside, &Text::from(lines), true, 0);
}
