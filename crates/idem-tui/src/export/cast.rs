//! The replay as an asciinema v2 recording: a header line, then one frame per tick, each a
//! cleared screen redrawn with SGR escapes written here from the drawn cells.

use super::frame::{Glyph, render, row};
use crate::tui::App;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use serde::Serialize;
use std::fmt::Write;

/// Time between frames: the replay's own autoplay pace at 1×.
pub const PACE_MS: u64 = 1800;
/// How long a question stays on screen before its answer is shown: time for the room to
/// think.
pub const QUIZ_PAUSE_MS: u64 = 6000;

/// Hides the cursor while the recording plays, and shows it again at the end.
const HIDE_CURSOR: &str = "\x1b[?25l";
const SHOW_CURSOR: &str = "\x1b[?25h";

#[derive(Serialize)]
struct Header<'a> {
    version: u8,
    width: u16,
    height: u16,
    title: &'a str,
}

/// Records every tick of the app's current design, the way autoplay shows them, one frame
/// every [`PACE_MS`].
pub fn cast(app: &mut App, width: u16, height: u16, title: &str) -> Result<String, String> {
    let header = Header {
        version: 2,
        width,
        height,
        title,
    };
    let mut out = serde_json::to_string(&header)
        .map_err(|e| format!("cannot encode the recording's header: {e}"))?;
    out.push('\n');
    let frames = app.trace().ticks.len().max(1);
    let mut ms = 0;
    for i in 0..frames {
        app.show_tick(i);
        // Autoplay runs until the last tick, and waits wherever a question stops the room.
        let question = app
            .quiz_here()
            .map(|(q, quiz)| (q, app.correct(quiz, app.place.design)));
        app.set_playing(i + 1 < frames && question.is_none());
        let mut data = String::new();
        if i == 0 {
            // Hidden while it plays: it would otherwise blink at the end of the last row.
            data.push_str(HIDE_CURSOR);
        }
        push_frame(&mut out, ms, &mut data, app, width, height)?;
        // While the outcome is hidden the recording gives no answer either: most are outcomes.
        let reveal = app.withheld().shows_outcome();
        if let Some((q, Some(choice))) = question.filter(|_| reveal) {
            // The room has had its pause: the right answer is given, as if someone chose it.
            ms += QUIZ_PAUSE_MS;
            let design = app.place.design;
            if let Some(r) = app.talk.room.entry(q, design) {
                r.choice = Some(choice);
                r.reveal(Some(choice));
            }
            app.set_playing(i + 1 < frames);
            push_frame(&mut out, ms, &mut String::new(), app, width, height)?;
        }
        ms += PACE_MS;
    }
    // The last frame stays up for one more beat, then the cursor comes back.
    event(&mut out, ms, SHOW_CURSOR)?;
    Ok(out)
}

/// Appends one frame at `ms`: `data` (what comes before it), a cleared screen, the replay.
fn push_frame(
    out: &mut String,
    ms: u64,
    data: &mut String,
    app: &App,
    width: u16,
    height: u16,
) -> Result<(), String> {
    let buffer = render(app, width, height)?;
    data.push_str("\x1b[H\x1b[2J");
    data.push_str(&ansi(&buffer));
    event(out, ms, data)
}

/// Appends one output event of the recording.
fn event(out: &mut String, ms: u64, data: &str) -> Result<(), String> {
    let encoded = serde_json::to_string(data)
        .map_err(|e| format!("cannot encode the recording at {ms} ms: {e}"))?;
    let _ = writeln!(out, "[{}.{:03}, \"o\", {encoded}]", ms / 1000, ms % 1000);
    Ok(())
}

/// The buffer as terminal text: rows joined by CR LF, styles as SGR sequences, each row
/// ending in the default style. No line break after the last row, so nothing scrolls.
pub fn ansi(buffer: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buffer.area.height {
        if y > 0 {
            out.push_str("\r\n");
        }
        let mut current = Style3::default();
        for g in row(buffer, y) {
            let style = Style3::of(&g);
            if style != current {
                out.push_str(&style.sgr());
                current = style;
            }
            out.push_str(g.text);
        }
        if current != Style3::default() {
            out.push_str("\x1b[0m");
        }
    }
    out
}

/// Foreground, background and modifiers of a cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Style3 {
    fg: Color,
    bg: Color,
    modifier: Modifier,
}

impl Style3 {
    fn of(g: &Glyph<'_>) -> Style3 {
        Style3 {
            fg: g.fg,
            bg: g.bg,
            modifier: g.modifier,
        }
    }

    /// A full SGR sequence: reset, then everything this style sets.
    fn sgr(&self) -> String {
        const FLAGS: [(Modifier, u8); 9] = [
            (Modifier::BOLD, 1),
            (Modifier::DIM, 2),
            (Modifier::ITALIC, 3),
            (Modifier::UNDERLINED, 4),
            (Modifier::SLOW_BLINK, 5),
            (Modifier::RAPID_BLINK, 6),
            (Modifier::REVERSED, 7),
            (Modifier::HIDDEN, 8),
            (Modifier::CROSSED_OUT, 9),
        ];
        let mut codes = String::from("\x1b[0");
        for (flag, code) in FLAGS {
            if self.modifier.contains(flag) {
                let _ = write!(codes, ";{code}");
            }
        }
        color_code(&mut codes, self.fg, false);
        color_code(&mut codes, self.bg, true);
        codes.push('m');
        codes
    }
}

fn color_code(out: &mut String, color: Color, background: bool) {
    let base: u8 = if background { 40 } else { 30 };
    let bright = base + 60;
    let code = match color {
        Color::Reset => return,
        Color::Black => base,
        Color::Red => base + 1,
        Color::Green => base + 2,
        Color::Yellow => base + 3,
        Color::Blue => base + 4,
        Color::Magenta => base + 5,
        Color::Cyan => base + 6,
        Color::Gray => base + 7,
        Color::DarkGray => bright,
        Color::LightRed => bright + 1,
        Color::LightGreen => bright + 2,
        Color::LightYellow => bright + 3,
        Color::LightBlue => bright + 4,
        Color::LightMagenta => bright + 5,
        Color::LightCyan => bright + 6,
        Color::White => bright + 7,
        Color::Rgb(r, g, b) => {
            let _ = write!(out, ";{};2;{r};{g};{b}", base + 8);
            return;
        }
        Color::Indexed(n) => {
            let _ = write!(out, ";{};5;{n}", base + 8);
            return;
        }
    };
    let _ = write!(out, ";{code}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn styles_become_sgr() {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 6, 2));
        buffer.set_string(
            1,
            0,
            "ok",
            Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
        );
        buffer.set_string(0, 1, "x", Style::new().bg(Color::Rgb(1, 2, 3)));
        assert_eq!(
            ansi(&buffer),
            " \x1b[0;1;32mok\x1b[0m   \r\n\x1b[0;48;2;1;2;3mx\x1b[0m     "
        );
    }
}
