//! Presenter mode: what a room reads from the back. Less chrome, the story in large type
//! (as large as a terminal allows: bold, spaced, with wide margins), the money at the bottom.

use super::fit;
use crate::report::headline;
use crate::tui::app::{App, Presenting};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

pub fn presenter(frame: &mut Frame<'_>, app: &App, p: &Presenting, theme: &Theme) {
    let area = frame.area();
    if p.blank {
        // A blank screen, as a projector remote's "black" key gives.
        return;
    }
    let roomy = area.height >= 30;
    let [head, designs, diagram, story, money, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(6),
        Constraint::Length(if roomy { 9 } else { 7 }),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    title_line(frame, head, app, p, theme);
    super::header::design_bar(frame, designs, app, theme);
    let block = Block::default()
        .borders(Borders::TOP | Borders::BOTTOM)
        .border_style(theme.dim());
    let inner = block.inner(diagram);
    frame.render_widget(block, diagram);
    let rows = super::lanes::render_rows(
        frame.buffer_mut(),
        inner,
        app.trace(),
        app.told(),
        &app.scenario.lanes,
        app.tick,
        theme,
    );
    app.hits.borrow_mut().rows = rows;
    if app.quiz_here().is_some() {
        super::narration::narration(frame, story, app, theme);
    } else {
        big_narration(frame, story, app, theme);
    }
    money_line(frame, money, app, theme);
    // While the speaker notes are off the footer says why, in place of the key reminder.
    let footer = match &app.notes_off {
        _ if app.simulating.is_some() => Line::styled(
            fit(
                &format!(
                    " ⧗ simulating… {}",
                    app.simulating.as_deref().unwrap_or_default()
                ),
                foot.width as usize,
            ),
            theme.key(),
        ),
        // A broken edit of the file, and what a key just did, reach the room's screen too.
        _ if app.error.is_some() => Line::styled(
            fit(
                &format!(
                    " the file has an error; the last good version keeps running · {}",
                    app.error.as_deref().unwrap_or_default()
                ),
                foot.width as usize,
            ),
            theme.lost(),
        ),
        _ if app.notice.is_some() => Line::styled(
            fit(
                &format!(" {}", app.notice.as_deref().unwrap_or_default()),
                foot.width as usize,
            ),
            theme.changed(),
        ),
        Some(why) => Line::styled(
            fit(
                &format!(" speaker notes are off: {why}"),
                foot.width as usize,
            ),
            theme.tone(crate::report::Tone::Warn),
        ),
        None => Line::styled(
            " PgDn/→ next · PgUp/← back · . blank · t timer · 1–6 design · ? keys · q quit",
            theme.dim(),
        ),
    };
    frame.render_widget(Paragraph::new(footer), foot);
}

fn title_line(frame: &mut Frame<'_>, area: Rect, app: &App, p: &Presenting, theme: &Theme) {
    let trace = app.trace();
    let mut right = format!(
        "◷ {}   {}/{}",
        trace.format_time(app.now()),
        app.tick + 1,
        trace.ticks.len()
    );
    // The room must know when it is looking at a what-if rather than the scenario as written.
    if !app.added.is_empty() {
        right = format!("⑂ WHAT-IF   {right}");
    }
    if p.show_elapsed {
        right.push_str(&format!(
            "   ⏲ {:02}:{:02}",
            p.elapsed_secs / 60,
            p.elapsed_secs % 60
        ));
    }
    let room = (area.width as usize).saturating_sub(right.chars().count() + 3);
    let left = fit(&format!(" {}", app.scenario.title), room);
    let pad =
        (area.width as usize).saturating_sub(left.chars().count() + right.chars().count() + 1);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(left, theme.bold()),
            Span::raw(" ".repeat(pad)),
            Span::styled(right, theme.bold()),
        ])),
        area,
    );
}

fn big_narration(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let text = app
        .told()
        .narrations
        .get(app.tick)
        .cloned()
        .unwrap_or_default();
    let inner = area.inner(Margin::new(4, 1));
    frame.render_widget(
        Paragraph::new(Line::styled(text, theme.bold()))
            .wrap(Wrap { trim: true })
            .alignment(Alignment::Left),
        inner,
    );
}

fn money_line(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let state = app.trace().ticks.get(app.tick).map(|t| &t.state);
    let charges = state.map_or(0, |s| s.ledger.len());
    let total = state.map_or(crate::sim::Cents(0), |s| s.charged_total());
    let statement = format!(
        " Card statement: {charges} line{} · {total}",
        if charges == 1 { "" } else { "s" }
    );
    let mut spans = vec![Span::styled(statement, theme.money())];
    if app.at_end() {
        let (tone, head) = headline(&app.trace().outcome);
        spans.push(Span::raw("   "));
        spans.push(Span::styled(head, theme.tone(tone)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
