//! The help overlay: every key, the designs, and what the model leaves out. On a short
//! screen it scrolls (↓ / ↑), and its title says how much is above and below.

use crate::replay::app::{App, Screen};
use crate::replay::keymap::{KEYS, PRESENTER_KEYS};
use crate::sim::Design;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// The width of the key column.
const KEY_COLUMN: usize = 11;

pub fn help(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let width = area.width.min(78);
    let inner = usize::from(width.saturating_sub(2));
    let mut lines: Vec<Line> = Vec::new();
    // The help belongs to the screen it is opened on.
    let (keys, title, designs) = if app.screens.screen == Screen::Window {
        (
            crate::replay::window::KEYS,
            "Keys of the retry window",
            false,
        )
    } else if app.talk.present.is_some() {
        (PRESENTER_KEYS, "Keys of presenter mode", true)
    } else {
        (KEYS, "Keys", true)
    };
    // The key column is as wide as this page's longest key (at least KEY_COLUMN), so a key
    // never runs into its words.
    let column = keys
        .iter()
        .map(|(k, _)| k.chars().count() + 2)
        .max()
        .unwrap_or(0)
        .clamp(KEY_COLUMN, 20);
    // A description too long for one line goes on under itself, not back at column 0.
    let entry = |lines: &mut Vec<Line<'static>>, key: String, what: &str| {
        let rows = crate::text::wrap(what, inner.saturating_sub(column).max(10));
        for (i, row) in rows.into_iter().enumerate() {
            let key = if i == 0 { key.clone() } else { String::new() };
            lines.push(Line::from(vec![
                Span::styled(format!(" {key:<w$} ", w = column - 2), theme.key()),
                Span::raw(row),
            ]));
        }
    };
    for (k, what) in keys {
        entry(&mut lines, (*k).to_string(), what);
    }
    if designs {
        lines.push(Line::raw(""));
        lines.push(Line::styled(" Designs", theme.bold()));
        if app.talk.present.is_some_and(|p| p.hidden().design) {
            // The room reads the help too: which number is which stays hidden with the names.
            entry(
                &mut lines,
                "1–6".to_string(),
                "the designs, by number; their names are hidden from the room until n reveals them",
            );
        }
        for d in Design::ALL
            .into_iter()
            .filter(|_| !app.talk.present.is_some_and(|p| p.hidden().design))
        {
            entry(
                &mut lines,
                d.hotkey().to_string(),
                &format!("{} ({})", d.name(), d.id()),
            );
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(" What this model leaves out", theme.bold()));
    for row in crate::text::wrap(
        "One processor and one database per design; the network only loses, delays or duplicates messages (no partial partitions); clocks never drift; money moves in whole cents.",
        inner.saturating_sub(2),
    ) {
        lines.push(Line::raw(format!(" {row}")));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        " g opens the glossary · Esc or ? closes this help",
        theme.dim(),
    ));

    let height = area.height.min(lines.len() as u16 + 2);
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let shown = usize::from(height.saturating_sub(2));
    let hidden = lines.len().saturating_sub(shown);
    let offset = usize::from(app.screens.help_scroll).min(hidden);
    let title = match (hidden, offset) {
        (0, _) => format!(" {title} "),
        (h, 0) => format!(" {title} · ↓ {h} more · ↓↑ scroll "),
        (h, o) if o == h => format!(" {title} · ↑ {o} above · ↓↑ scroll "),
        (h, o) => format!(" {title} · ↑ {o} above, ↓ {} more ", h - o),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .title_style(theme.title());
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines)
            .scroll((u16::try_from(offset).unwrap_or(u16::MAX), 0))
            .block(block),
        rect,
    );
}
