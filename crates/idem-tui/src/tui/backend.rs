//! The backend a session draws through: ratatui's crossterm backend, except that a frame's
//! cells are written by hand rather than each through `write!`. A cell's symbol goes out as
//! its bytes, a cursor move as its digits and an attribute as its code; a change of colour,
//! rarer, still goes through crossterm's own commands. The bytes are those ratatui's backend
//! writes for the same cells, which a property test holds; on the first frame the formatting
//! machinery was most of the time spent writing it out. The terminal's size is asked of
//! standard output, where the frames go.

use ratatui::backend::{Backend, ClearType, CrosstermBackend, IntoCrossterm, WindowSize};
use ratatui::buffer::Cell;
use ratatui::crossterm::queue;
use ratatui::crossterm::style::{
    Attribute, Color as CrosstermColor, Colors, SetAttribute, SetBackgroundColor, SetColors,
    SetForegroundColor, SetUnderlineColor,
};
use ratatui::layout::Position;
pub use ratatui::layout::Size;
use ratatui::style::{Color, Modifier};
use std::io::{self, Write};

/// Ratatui's crossterm backend, drawing frames by hand (see the module's note), on at most
/// [`MAX_COLS`] × [`MAX_ROWS`] cells of the terminal.
pub struct Direct<W: Write> {
    out: CrosstermBackend<W>,
    /// The terminal's own size when it is larger than a frame may be, as last asked.
    larger: std::cell::Cell<Option<Size>>,
}

/// The most columns and rows a frame covers. A frame's buffers grow with its area, so a
/// terminal that reports a huge size (65,535 × 65,535) would cost gigabytes: beyond these,
/// nothing is drawn, and a line just past the frame says so.
pub const MAX_COLS: u16 = 1_000;
pub const MAX_ROWS: u16 = 400;

impl<W: Write> Direct<W> {
    pub fn new(out: W) -> Direct<W> {
        Direct {
            out: CrosstermBackend::new(out),
            larger: std::cell::Cell::new(None),
        }
    }
}

/// The size a frame is drawn at on a terminal of `real`, and whether that is less than all.
pub fn bounded(real: Size) -> (Size, bool) {
    let size = Size {
        width: real.width.min(MAX_COLS),
        height: real.height.min(MAX_ROWS),
    };
    (size, size != real)
}

/// What a terminal larger than a frame is told, just past the frame.
pub fn not_drawn(real: Size) -> String {
    format!(
        "idem draws the top-left {} × {} of this {} × {} terminal",
        real.width.min(MAX_COLS),
        real.height.min(MAX_ROWS),
        real.width,
        real.height
    )
}

/// Writes the command that moves the cursor to column `x`, row `y` (both from 0): what
/// crossterm's `MoveTo` writes, `ESC [ row ; column H`, counted from 1.
fn move_to(out: &mut impl Write, x: u16, y: u16) -> io::Result<()> {
    let mut row = itoa::Buffer::new();
    let mut column = itoa::Buffer::new();
    let parts: [&[u8]; 5] = [
        b"\x1b[",
        row.format(u32::from(y) + 1).as_bytes(),
        b";",
        column.format(u32::from(x) + 1).as_bytes(),
        b"H",
    ];
    // At most 2 + 5 + 1 + 5 + 1 bytes, gathered for one write.
    let mut bytes = [0u8; 14];
    let mut at = 0;
    for part in parts {
        bytes[at..at + part.len()].copy_from_slice(part);
        at += part.len();
    }
    out.write_all(&bytes[..at])
}

/// The attribute commands that turn what `from` shows into what `to` shows, in the order
/// and form ratatui's crossterm backend writes them.
fn change_modifier(out: &mut impl Write, from: Modifier, to: Modifier) -> io::Result<()> {
    let removed = from - to;
    if removed.contains(Modifier::REVERSED) {
        sgr(out, Attribute::NoReverse)?;
    }
    // Bold and dim are undone together, by normal intensity; what stays is set again.
    let reset_intensity = removed.intersects(Modifier::BOLD | Modifier::DIM);
    if reset_intensity {
        sgr(out, Attribute::NormalIntensity)?;
        if to.contains(Modifier::DIM) {
            sgr(out, Attribute::Dim)?;
        }
        if to.contains(Modifier::BOLD) {
            sgr(out, Attribute::Bold)?;
        }
    }
    for (modifier, off) in [
        (Modifier::ITALIC, Attribute::NoItalic),
        (Modifier::UNDERLINED, Attribute::NoUnderline),
        (Modifier::CROSSED_OUT, Attribute::NotCrossedOut),
        (Modifier::HIDDEN, Attribute::NoHidden),
    ] {
        if removed.contains(modifier) {
            sgr(out, off)?;
        }
    }
    if removed.intersects(Modifier::SLOW_BLINK | Modifier::RAPID_BLINK) {
        sgr(out, Attribute::NoBlink)?;
    }
    let added = to - from;
    for (modifier, on, unless_reset) in [
        (Modifier::REVERSED, Attribute::Reverse, false),
        (Modifier::BOLD, Attribute::Bold, true),
        (Modifier::ITALIC, Attribute::Italic, false),
        (Modifier::UNDERLINED, Attribute::Underlined, false),
        (Modifier::DIM, Attribute::Dim, true),
        (Modifier::CROSSED_OUT, Attribute::CrossedOut, false),
        (Modifier::HIDDEN, Attribute::Hidden, false),
        (Modifier::SLOW_BLINK, Attribute::SlowBlink, false),
        (Modifier::RAPID_BLINK, Attribute::RapidBlink, false),
    ] {
        if added.contains(modifier) && !(unless_reset && reset_intensity) {
            sgr(out, on)?;
        }
    }
    Ok(())
}

/// Writes what crossterm's `SetAttribute(attribute)` writes, `ESC [ code m`, for the
/// attributes a cell's modifier turns on and off; any other through crossterm itself.
fn sgr(out: &mut impl Write, attribute: Attribute) -> io::Result<()> {
    let command: &[u8] = match attribute {
        Attribute::Bold => b"\x1b[1m",
        Attribute::Dim => b"\x1b[2m",
        Attribute::Italic => b"\x1b[3m",
        Attribute::Underlined => b"\x1b[4m",
        Attribute::SlowBlink => b"\x1b[5m",
        Attribute::RapidBlink => b"\x1b[6m",
        Attribute::Reverse => b"\x1b[7m",
        Attribute::Hidden => b"\x1b[8m",
        Attribute::CrossedOut => b"\x1b[9m",
        Attribute::NormalIntensity => b"\x1b[22m",
        Attribute::NoItalic => b"\x1b[23m",
        Attribute::NoUnderline => b"\x1b[24m",
        Attribute::NoBlink => b"\x1b[25m",
        Attribute::NoReverse => b"\x1b[27m",
        Attribute::NoHidden => b"\x1b[28m",
        Attribute::NotCrossedOut => b"\x1b[29m",
        other => return queue!(out, SetAttribute(other)),
    };
    out.write_all(command)
}

impl<W: Write> Backend for Direct<W> {
    type Error = io::Error;

    fn draw<'a, I>(&mut self, content: I) -> io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        let out = &mut self.out;
        let mut fg = Color::Reset;
        let mut bg = Color::Reset;
        let mut underline = Color::Reset;
        let mut modifier = Modifier::empty();
        let mut last: Option<(u16, u16)> = None;
        for (x, y, cell) in content {
            // The cursor moves unless the cell is the one after the last written.
            let next =
                matches!(last, Some((lx, ly)) if u32::from(x) == u32::from(lx) + 1 && y == ly);
            if !next {
                move_to(out, x, y)?;
            }
            last = Some((x, y));
            if cell.modifier != modifier {
                change_modifier(out, modifier, cell.modifier)?;
                modifier = cell.modifier;
            }
            if cell.fg != fg || cell.bg != bg {
                queue!(
                    out,
                    SetColors(Colors::new(
                        cell.fg.into_crossterm(),
                        cell.bg.into_crossterm()
                    ))
                )?;
                fg = cell.fg;
                bg = cell.bg;
            }
            if cell.underline_color != underline {
                let color: CrosstermColor = cell.underline_color.into_crossterm();
                queue!(out, SetUnderlineColor(color))?;
                underline = cell.underline_color;
            }
            out.write_all(cell.symbol().as_bytes())?;
        }
        queue!(
            out,
            SetForegroundColor(CrosstermColor::Reset),
            SetBackgroundColor(CrosstermColor::Reset),
            SetUnderlineColor(CrosstermColor::Reset),
            SetAttribute(Attribute::Reset),
        )?;
        if let Some(real) = self.larger.get() {
            // Below the frame when rows are cut, else to its right.
            let (x, y) = if real.height > MAX_ROWS {
                (0, MAX_ROWS)
            } else {
                (MAX_COLS, 0)
            };
            move_to(out, x, y)?;
            out.write_all(not_drawn(real).as_bytes())?;
        }
        Ok(())
    }

    fn append_lines(&mut self, n: u16) -> io::Result<()> {
        self.out.append_lines(n)
    }

    fn hide_cursor(&mut self) -> io::Result<()> {
        self.out.hide_cursor()
    }

    fn show_cursor(&mut self) -> io::Result<()> {
        self.out.show_cursor()
    }

    fn get_cursor_position(&mut self) -> io::Result<Position> {
        self.out.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> io::Result<()> {
        self.out.set_cursor_position(position)
    }

    fn clear(&mut self) -> io::Result<()> {
        self.out.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> io::Result<()> {
        self.out.clear_region(clear_type)
    }

    fn size(&self) -> io::Result<Size> {
        let real = self.real_size()?;
        let (size, cut) = bounded(real);
        self.larger.set(cut.then_some(real));
        Ok(size)
    }

    fn window_size(&mut self) -> io::Result<WindowSize> {
        let mut w = self.out.window_size()?;
        w.columns_rows = bounded(w.columns_rows).0;
        Ok(w)
    }

    fn flush(&mut self) -> io::Result<()> {
        Backend::flush(&mut self.out)
    }
}

impl<W: Write> Direct<W> {
    /// The terminal's own size, however large.
    fn real_size(&self) -> io::Result<Size> {
        // The screen drawn on is standard output: its size is asked of it, rather than of
        // /dev/tty opened and closed again before every frame, as crossterm does. What
        // crossterm answers stands when standard output cannot say.
        let mut size = libc::winsize {
            ws_row: 0,
            ws_col: 0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCGWINSZ writes one winsize, to the valid one given.
        let asked = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
        if asked == 0 && size.ws_col > 0 && size.ws_row > 0 {
            return Ok(Size {
                width: size.ws_col,
                height: size.ws_row,
            });
        }
        self.out.size()
    }
}

#[cfg(test)]
mod tests {
    use super::Direct;
    use proptest::prelude::*;
    use ratatui::backend::{Backend, CrosstermBackend};
    use ratatui::buffer::Cell;
    use ratatui::crossterm::queue;
    use ratatui::crossterm::style::{Attribute, SetAttribute};
    use ratatui::style::{Color, Modifier};

    /// A writer whose bytes can be read after the backend that owns it has written them.
    #[derive(Clone, Default)]
    struct Sink(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// What each backend writes for `cells`: ratatui's, then this one's.
    fn both(cells: &[(u16, u16, &Cell)]) -> (String, String) {
        let (theirs, ours) = (Sink::default(), Sink::default());
        let drawn = CrosstermBackend::new(theirs.clone()).draw(cells.iter().copied());
        assert!(drawn.is_ok());
        let drawn = Direct::new(ours.clone()).draw(cells.iter().copied());
        assert!(drawn.is_ok());
        let text = |s: Sink| String::from_utf8_lossy(&s.0.borrow()).into_owned();
        (text(theirs), text(ours))
    }

    fn color() -> impl Strategy<Value = Color> {
        prop_oneof![
            Just(Color::Reset),
            Just(Color::Black),
            Just(Color::Cyan),
            Just(Color::LightRed),
            Just(Color::Gray),
            Just(Color::DarkGray),
            Just(Color::White),
            any::<u8>().prop_map(Color::Indexed),
            (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(r, g, b)| Color::Rgb(r, g, b)),
        ]
    }

    fn cell() -> impl Strategy<Value = Cell> {
        let symbol = prop_oneof![
            Just(" ".to_string()),
            Just("a".to_string()),
            Just("│".to_string()),
            Just("界".to_string()),
            Just("e\u{301}".to_string()),
            Just("%".to_string()),
            "[a-z{}%]{0,2}",
        ];
        // Mostly plain cells, as on a screen, so runs of one style are common.
        let style = prop_oneof![
            3 => Just((Color::Reset, Color::Reset, Color::Reset, Modifier::empty())),
            2 => (color(), color(), color(), (0u16..=0x1ff).prop_map(Modifier::from_bits_truncate)),
        ];
        (symbol, style).prop_map(|(symbol, (fg, bg, underline, modifier))| {
            let mut cell = Cell::default();
            cell.set_symbol(&symbol);
            cell.fg = fg;
            cell.bg = bg;
            cell.underline_color = underline;
            cell.modifier = modifier;
            cell
        })
    }

    /// For any cells at any places, in any order (columns and rows past 10,000 included, short
    /// of the last, where ratatui's backend would overflow), the bytes written are those
    /// ratatui's crossterm backend writes.
    #[test]
    fn a_frame_is_written_as_ratatuis_backend_writes_it() {
        let place = prop_oneof![
            4 => (0u16..6, 0u16..4),
            1 => (0..u16::MAX - 1, 0..u16::MAX - 1),
        ];
        let content = proptest::collection::vec((place, cell()), 0..40);
        proptest!(ProptestConfig::with_cases(2048), |(content in content)| {
            let cells: Vec<(u16, u16, &Cell)> =
                content.iter().map(|((x, y), c)| (*x, *y, c)).collect();
            let (theirs, ours) = both(&cells);
            prop_assert_eq!(ours, theirs);
        });
    }

    /// Every attribute change, from any set of attributes to any other.
    #[test]
    fn every_change_of_attributes_is_written_as_ratatuis_backend_writes_it() {
        for from in 0u16..=0x1ff {
            for to in (0u16..=0x1ff).step_by(7) {
                let mut a = Cell::new("x");
                a.modifier = Modifier::from_bits_truncate(from);
                let mut b = Cell::new("y");
                b.modifier = Modifier::from_bits_truncate(to);
                let (theirs, ours) = both(&[(0, 0, &a), (1, 0, &b)]);
                assert_eq!(ours, theirs, "{from:#x} to {to:#x}");
            }
        }
    }

    /// Every attribute, written by hand or not, as crossterm's command writes it.
    #[test]
    fn every_attribute_is_written_as_crossterms_command_writes_it() {
        for attribute in Attribute::iterator() {
            let mut ours = Vec::new();
            let mut theirs = Vec::new();
            assert!(super::sgr(&mut ours, attribute).is_ok());
            assert!(queue!(theirs, SetAttribute(attribute)).is_ok());
            assert_eq!(ours, theirs, "{attribute:?}");
        }
    }
}
