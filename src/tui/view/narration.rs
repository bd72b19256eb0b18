//! The narration of the current moment, and the outcome once the last tick is reached.

use super::fit;
use crate::report::{headline, verdict_meaning};
use crate::tui::app::{App, Screen};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

pub fn narration(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let text = match app.screen {
        Screen::Replay => app
            .trace()
            .ticks
            .get(app.tick)
            .map_or(String::new(), |t| t.narration.clone()),
        Screen::Compare => "Three processors, the same requests, the same faults. Step with ← and →: all three move together; ◆ marks the first tick where they stop agreeing.".to_string(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" What happens ")
        .title_style(theme.bold());
    frame.render_widget(
        Paragraph::new(text).wrap(Wrap { trim: true }).block(block),
        area,
    );
}

pub fn outcome(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let line = match app.screen {
        Screen::Replay if app.at_end() => {
            let o = &app.trace().outcome;
            let (tone, head) = headline(o);
            let beliefs: Vec<&str> = o.intents.iter().map(|i| i.client_view.label()).collect();
            let rest = format!(
                "  ·  verdict: {}  ·  checkout believes: {}  ·  {}",
                o.verdict.id(),
                beliefs.join(", "),
                verdict_meaning(o.verdict),
            );
            let room = (area.width as usize).saturating_sub(head.chars().count() + 1);
            Line::from(vec![
                Span::raw(" "),
                Span::styled(head, theme.tone(tone)),
                Span::raw(fit(&rest, room)),
            ])
        }
        Screen::Replay => {
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
