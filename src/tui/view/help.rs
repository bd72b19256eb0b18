//! The help overlay: every key, the designs, and what the model leaves out.

use crate::sim::Design;
use crate::tui::app::App;
use crate::tui::keymap::KEYS;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

pub fn help(frame: &mut Frame<'_>, area: Rect, _app: &App, theme: &Theme) {
    let mut lines: Vec<Line> = KEYS
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!(" {k:<10}"), theme.key()),
                Span::raw(*what),
            ])
        })
        .collect();
    // On a short screen the design list gives way (the design bar already shows it), then
    // what the model leaves out; a line says what was left, in place of the blank line.
    let roomy = area.height >= KEYS.len() as u16 + 15;
    let leaves_out = area.height >= KEYS.len() as u16 + 9;
    lines.push(match (roomy, leaves_out) {
        (true, _) => Line::raw(""),
        (false, true) => Line::styled(" ↓ a taller terminal also lists the designs", theme.dim()),
        (false, false) => Line::styled(
            " ↓ a taller terminal also lists the designs and what the model leaves out",
            theme.dim(),
        ),
    });
    if roomy {
        lines.push(Line::styled(" Designs", theme.bold()));
        for d in Design::ALL {
            lines.push(Line::from(vec![
                Span::styled(format!(" {:<10}", d.hotkey()), theme.key()),
                Span::raw(format!("{} ({})", d.name(), d.id())),
            ]));
        }
    }
    if leaves_out {
        lines.push(Line::styled(" What this model leaves out", theme.bold()));
        lines.push(Line::raw(
            " One processor and one database per design; the network only loses, delays or duplicates messages (no partial partitions); clocks never drift; money moves in whole cents.",
        ));
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled(
        " g opens the glossary · Esc or ? closes this help",
        theme.dim(),
    ));
    super::popup(
        frame,
        area,
        (76, KEYS.len() as u16 + 18),
        "Keys",
        lines,
        theme,
    );
}
