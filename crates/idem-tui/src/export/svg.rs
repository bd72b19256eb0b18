//! A drawn frame as an SVG picture: a monospace `<text>` per stretch of cells that look alike,
//! a rectangle under every stretch with a background, on a dark page or a light one.

use super::frame::{Glyph, row};
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use std::fmt::Write;

/// The size of one terminal cell in the picture, in pixels.
pub const CELL_WIDTH: u32 = 9;
pub const CELL_HEIGHT: u32 = 18;
/// 0.6 em per column is the advance of the common monospace fonts.
const FONT_SIZE: u32 = 15;
/// From the top of a row to the baseline of its text.
const BASELINE: u32 = 13;
/// The margin around the screen.
const PADDING: u32 = 12;
const FONTS: &str = "ui-monospace, 'SFMono-Regular', 'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace";

/// The page and the text where the terminal would use its own defaults, on the dark page.
pub const DEFAULT_FG: &str = "#d7dae0";
pub const DEFAULT_BG: &str = "#16181d";

/// The page a picture is drawn on: dark like a terminal, or light for a slide or paper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SvgTheme {
    #[default]
    Dark,
    Light,
}

impl SvgTheme {
    /// Every name a theme is known by.
    pub const NAMES: [&'static str; 2] = ["dark", "light"];

    fn palette(self) -> &'static Palette {
        match self {
            SvgTheme::Dark => &DARK,
            SvgTheme::Light => &LIGHT,
        }
    }
}

impl std::str::FromStr for SvgTheme {
    type Err = String;

    fn from_str(text: &str) -> Result<SvgTheme, String> {
        match text {
            "dark" => Ok(SvgTheme::Dark),
            "light" => Ok(SvgTheme::Light),
            _ => Err(format!(
                "unknown theme `{}`: expected dark or light",
                crate::text::sanitize_line(text)
            )),
        }
    }
}

/// The colours of a page: its default text and background, and the 16 named terminal
/// colours (black, red, … white, then their bright forms) as they read on it.
struct Palette {
    fg: &'static str,
    bg: &'static str,
    named: [&'static str; 16],
}

const DARK: Palette = Palette {
    fg: DEFAULT_FG,
    bg: DEFAULT_BG,
    named: [
        "#3f4451", "#ef6b73", "#8fd18a", "#e8c170", "#68aaf0", "#d08ae6", "#5fc4d0", "#b4bac4",
        "#80868f", "#ff8f96", "#b2e8a6", "#f5d898", "#94c5ff", "#e5aef5", "#8fe0ea", "#f4f6f8",
    ],
};

/// Darker inks than the dark page's, so each colour keeps its contrast on white; "white"
/// and "gray" become near-black and mid-grey, which is what they mean on paper.
const LIGHT: Palette = Palette {
    fg: "#24292f",
    bg: "#fbfbfc",
    named: [
        "#24292f", "#c0262f", "#1f7a2e", "#8a6100", "#0b5cc2", "#8a3fb0", "#0e7583", "#57606a",
        "#6e7781", "#d1242f", "#2d8a3e", "#9a6d00", "#0969da", "#9b4dca", "#1b7c83", "#1f2328",
    ],
};

/// Renders the buffer as a standalone SVG document; `title` becomes its accessible name.
pub fn svg(buffer: &Buffer, title: &str) -> String {
    svg_themed(buffer, title, SvgTheme::Dark)
}

/// Renders the buffer as a standalone SVG document on the page of `theme`.
pub fn svg_themed(buffer: &Buffer, title: &str, theme: SvgTheme) -> String {
    let palette = theme.palette();
    let cols = u32::from(buffer.area.width);
    let rows = u32::from(buffer.area.height);
    let width = cols * CELL_WIDTH + 2 * PADDING;
    let height = rows * CELL_HEIGHT + 2 * PADDING;
    let mut backgrounds = String::new();
    let mut texts = String::new();
    for y in 0..buffer.area.height {
        let glyphs = row(buffer, y);
        let looks: Vec<Look> = glyphs.iter().map(|g| Look::of(g, palette)).collect();
        write_backgrounds(&mut backgrounds, &glyphs, &looks, u32::from(y));
        write_texts(&mut texts, &glyphs, &looks, u32::from(y));
    }
    let mut out = String::with_capacity(backgrounds.len() + texts.len() + 1024);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" xml:space=\"preserve\">"
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(
        out,
        "<style>text {{ font-family: {FONTS}; font-size: {FONT_SIZE}px; white-space: pre; }}</style>"
    );
    let _ = writeln!(
        out,
        "<rect width=\"{width}\" height=\"{height}\" rx=\"8\" fill=\"{}\"/>",
        palette.bg
    );
    out.push_str(&backgrounds);
    let _ = writeln!(out, "<g fill=\"{}\">", palette.fg);
    out.push_str(&texts);
    out.push_str("</g>\n</svg>\n");
    out
}

/// How a cell reads once reverse video is applied: the colours as the eye gets them.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Look {
    /// `None` is the default text colour.
    fg: Option<String>,
    /// `None` is the page.
    bg: Option<String>,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
    strike: bool,
    hidden: bool,
}

impl Look {
    fn of(g: &Glyph<'_>, palette: &Palette) -> Look {
        let (mut fg, mut bg) = (hex(g.fg, palette), hex(g.bg, palette));
        if g.modifier.contains(Modifier::REVERSED) {
            let new_fg = Some(bg.unwrap_or_else(|| palette.bg.to_string()));
            bg = Some(fg.unwrap_or_else(|| palette.fg.to_string()));
            fg = new_fg;
        }
        Look {
            fg,
            bg,
            bold: g.modifier.contains(Modifier::BOLD),
            dim: g.modifier.contains(Modifier::DIM),
            italic: g.modifier.contains(Modifier::ITALIC),
            underline: g.modifier.contains(Modifier::UNDERLINED),
            strike: g.modifier.contains(Modifier::CROSSED_OUT),
            hidden: g.modifier.contains(Modifier::HIDDEN),
        }
    }

    /// Whether two looks draw text the same way (the background is drawn apart).
    fn same_text(&self, other: &Look) -> bool {
        (
            &self.fg,
            self.bold,
            self.dim,
            self.italic,
            self.underline,
            self.strike,
        ) == (
            &other.fg,
            other.bold,
            other.dim,
            other.italic,
            other.underline,
            other.strike,
        )
    }
}

/// One rectangle per stretch of adjacent cells with the same background.
fn write_backgrounds(out: &mut String, glyphs: &[Glyph<'_>], looks: &[Look], y: u32) {
    let mut i = 0;
    while i < glyphs.len() {
        let Some(bg) = &looks[i].bg else {
            i += 1;
            continue;
        };
        let start = u32::from(glyphs[i].col);
        let mut end = start;
        while i < glyphs.len() && looks[i].bg.as_ref() == Some(bg) {
            end = u32::from(glyphs[i].col) + u32::from(glyphs[i].width);
            i += 1;
        }
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{CELL_HEIGHT}\" fill=\"{bg}\"/>",
            PADDING + start * CELL_WIDTH,
            PADDING + y * CELL_HEIGHT,
            (end - start) * CELL_WIDTH
        );
    }
}

/// A stretch of text drawn as one `<text>`.
struct Run<'a> {
    start: u16,
    end: u16,
    text: String,
    look: &'a Look,
    wide: bool,
}

/// Text runs: a run ends where the look changes, at two blank cells in a row, and around a
/// wide character; each is stretched to exactly its columns, so a font whose box-drawing or
/// symbol glyphs are narrower or wider than its letters cannot shift the columns after them.
fn write_texts(out: &mut String, glyphs: &[Glyph<'_>], looks: &[Look], y: u32) {
    let mut current: Option<Run<'_>> = None;
    let mut blanks: Vec<&Glyph<'_>> = Vec::new();
    for (g, look) in glyphs.iter().zip(looks) {
        if g.is_blank() || look.hidden {
            if current.is_some() {
                blanks.push(g);
                if blanks.len() >= 2 {
                    flush(out, current.take(), y);
                    blanks.clear();
                }
            }
            continue;
        }
        let wide = g.width > 1;
        match &mut current {
            Some(run) if run.look.same_text(look) && !run.wide && !wide && blanks.len() <= 1 => {
                for b in blanks.drain(..) {
                    run.text.push_str(&" ".repeat(usize::from(b.width)));
                }
                run.text.push_str(g.text);
                run.end = g.col + g.width;
            }
            _ => {
                flush(out, current.take(), y);
                blanks.clear();
                current = Some(Run {
                    start: g.col,
                    end: g.col + g.width,
                    text: g.text.to_string(),
                    look,
                    wide,
                });
            }
        }
    }
    flush(out, current, y);
}

fn flush(out: &mut String, run: Option<Run<'_>>, y: u32) {
    let Some(run) = run else {
        return;
    };
    let look = run.look;
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\"",
        PADDING + u32::from(run.start) * CELL_WIDTH,
        PADDING + y * CELL_HEIGHT + BASELINE
    );
    if let Some(fg) = &look.fg {
        let _ = write!(out, " fill=\"{fg}\"");
    }
    if look.bold {
        out.push_str(" font-weight=\"bold\"");
    }
    if look.italic {
        out.push_str(" font-style=\"italic\"");
    }
    match (look.underline, look.strike) {
        (true, true) => out.push_str(" text-decoration=\"underline line-through\""),
        (true, false) => out.push_str(" text-decoration=\"underline\""),
        (false, true) => out.push_str(" text-decoration=\"line-through\""),
        (false, false) => {}
    }
    if look.dim {
        out.push_str(" opacity=\"0.6\"");
    }
    let _ = writeln!(
        out,
        " textLength=\"{}\" lengthAdjust=\"spacingAndGlyphs\">{}</text>",
        u32::from(run.end - run.start) * CELL_WIDTH,
        escape(&run.text)
    );
}

/// A terminal colour as it should read on the page; `None` for the default.
fn hex(color: Color, palette: &Palette) -> Option<String> {
    let named = |i: usize| Some(palette.named[i].to_string());
    match color {
        Color::Reset => None,
        Color::Black => named(0),
        Color::Red => named(1),
        Color::Green => named(2),
        Color::Yellow => named(3),
        Color::Blue => named(4),
        Color::Magenta => named(5),
        Color::Cyan => named(6),
        Color::Gray => named(7),
        Color::DarkGray => named(8),
        Color::LightRed => named(9),
        Color::LightGreen => named(10),
        Color::LightYellow => named(11),
        Color::LightBlue => named(12),
        Color::LightMagenta => named(13),
        Color::LightCyan => named(14),
        Color::White => named(15),
        Color::Rgb(r, g, b) => Some(format!("#{r:02x}{g:02x}{b:02x}")),
        Color::Indexed(n) => Some(indexed(n, palette)),
    }
}

/// The xterm 256-colour palette, with its first 16 entries read as the page's named colours.
fn indexed(n: u8, palette: &Palette) -> String {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    match n {
        0..=15 => palette.named[usize::from(n)].to_string(),
        16..=231 => {
            let i = n - 16;
            let (r, g, b) = (i / 36, (i / 6) % 6, i % 6);
            format!(
                "#{:02x}{:02x}{:02x}",
                LEVELS[usize::from(r)],
                LEVELS[usize::from(g)],
                LEVELS[usize::from(b)]
            )
        }
        _ => {
            let v = 8 + 10 * (n - 232);
            format!("#{v:02x}{v:02x}{v:02x}")
        }
    }
}

/// Escapes text for XML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 has no way to carry most control characters, even escaped.
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("a<b & 'c' \"d\">\u{1b}"),
            "a&lt;b &amp; &apos;c&apos; &quot;d&quot;&gt; "
        );
    }

    #[test]
    fn palette_covers_256_colours() {
        assert_eq!(indexed(16, &DARK), "#000000");
        assert_eq!(indexed(231, &DARK), "#ffffff");
        assert_eq!(indexed(232, &DARK), "#080808");
        assert_eq!(indexed(255, &DARK), "#eeeeee");
        assert_eq!(indexed(1, &DARK), "#ef6b73");
    }

    #[test]
    fn runs_split_on_style_gaps_and_wide_characters() {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 20, 1));
        buffer.set_string(0, 0, "ab c", Style::new());
        buffer.set_string(6, 0, "d", Style::new());
        buffer.set_string(7, 0, "漢x", Style::new().fg(Color::Red));
        buffer.set_string(
            10,
            0,
            "<rev>",
            Style::new().add_modifier(Modifier::REVERSED),
        );
        let svg = svg(&buffer, "t");
        assert!(svg.contains(">ab c</text>"), "{svg}");
        assert!(svg.contains(">d</text>"), "{svg}");
        assert!(svg.contains("textLength=\"18\" lengthAdjust=\"spacingAndGlyphs\">漢</text>"));
        assert!(svg.contains(">x</text>"), "{svg}");
        // Reverse video: the default colours swap places.
        assert!(svg.contains(&format!(
            "<rect x=\"102\" y=\"12\" width=\"45\" height=\"18\" fill=\"{DEFAULT_FG}\"/>"
        )));
        assert!(svg.contains(&format!("<text x=\"102\" y=\"25\" fill=\"{DEFAULT_BG}\"")));
        assert!(svg.contains("&lt;rev&gt;"));
        assert!(!svg.contains("<rev>"));
    }
}
