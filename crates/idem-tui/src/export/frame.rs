//! One frame of the real replay view, drawn off screen, and the cells of it as the exporters
//! see them: visible glyphs with the style a reader's eye gets, wide characters resolved.

use crate::tui::App;
use crate::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use unicode_width::UnicodeWidthStr;

/// Draws the replay as it stands in `app` on an off-screen terminal of the given size, in
/// colour whatever `NO_COLOR` says: an export should look the same on every machine.
pub fn render(app: &App, width: u16, height: u16) -> Result<Buffer, String> {
    let theme = Theme { color: true };
    let mut terminal = Terminal::new(TestBackend::new(width, height))
        .map_err(|e| format!("cannot set up the off-screen terminal: {e}"))?;
    terminal
        .draw(|f| crate::tui::view::draw(f, app, &theme))
        .map_err(|e| format!("cannot draw the replay: {e}"))?;
    Ok(terminal.backend().buffer().clone())
}

/// One visible glyph: where it starts, how many columns it covers, and how it looks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glyph<'a> {
    pub col: u16,
    pub width: u16,
    pub text: &'a str,
    pub fg: Color,
    pub bg: Color,
    pub modifier: Modifier,
}

impl Glyph<'_> {
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

/// The glyphs of row `y`, left to right. A cell hidden behind a wide character before it is
/// left out, and the wide character covers its columns instead.
pub fn row(buffer: &Buffer, y: u16) -> Vec<Glyph<'_>> {
    let width = buffer.area.width;
    let mut out = Vec::with_capacity(width as usize);
    let mut x = 0;
    while x < width {
        let Some(cell) = buffer.cell((buffer.area.x + x, buffer.area.y + y)) else {
            break;
        };
        let mut symbol = cell.symbol();
        // The trace is sanitised before it is drawn; this keeps a stray control character
        // from ever reaching an exported file all the same.
        if symbol.chars().any(char::is_control) {
            symbol = " ";
        }
        let (text, columns) = match symbol.width() {
            // An empty symbol is the tail of a wide character drawn by other means: show a
            // space so the row keeps its width.
            0 if symbol.is_empty() => (" ", 1),
            0 => (symbol, 1),
            w => (symbol, w.min(usize::from(width - x)) as u16),
        };
        out.push(Glyph {
            col: x,
            width: columns,
            text,
            fg: cell.fg,
            bg: cell.bg,
            modifier: cell.modifier,
        });
        x += columns.max(1);
    }
    out
}
