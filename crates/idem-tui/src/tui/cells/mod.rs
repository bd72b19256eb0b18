//! Drawing primitives: the few ways the screens write into ratatui's buffer, each doing less
//! work than the ratatui code it stands for and writing the same cells, which the tests beside
//! each hold. Nothing here knows the program's state.

pub mod split;
pub mod wrap;

use ratatui::layout::{Alignment, Rect};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

/// `lines` written into `area` one a row from the top, each cut at the area's right edge: what
/// `Paragraph::new(lines)` draws on cells nothing else has drawn in this frame, without its
/// passes over every cell of the area. A line aligned to the centre or the right is left to
/// `Paragraph`, and so is an area one column wide, where `Paragraph` skips a character too
/// wide for it and goes on with the next.
pub(crate) fn rows(buf: &mut ratatui::buffer::Buffer, area: Rect, lines: Vec<Line<'_>>) {
    if area.width < 2
        || lines
            .iter()
            .any(|l| l.alignment.is_some_and(|a| a != Alignment::Left))
    {
        ratatui::widgets::Widget::render(Paragraph::new(lines), area, buf);
        return;
    }
    let area = area.intersection(buf.area);
    for (line, y) in lines.iter().zip(area.top()..area.bottom()) {
        // As `Buffer::set_line` writes a line: span after span, in the line's style.
        let mut x = area.x;
        let mut room = usize::from(area.width);
        for span in &line.spans {
            if room == 0 {
                break;
            }
            let end = text_at(buf, x, y, &span.content, room, line.style.patch(span.style));
            room = room.saturating_sub(usize::from(end - x));
            x = end;
        }
    }
}

/// Writes `text` from `(x, y)` in `style`, at most `max_width` columns and never past the
/// buffer's right edge; returns the column after it. What `Buffer::set_stringn` does, which
/// splits all of its text into graphemes and measures each. Here a plain unit (a printable
/// ASCII character, or one of the symbols of [`plain_symbol`]) between two others (or the
/// text's ends) is a grapheme of its own and goes into its cell as it is; only the stretches
/// around anything else are split into graphemes.
pub(crate) fn text_at(
    buf: &mut ratatui::buffer::Buffer,
    x: u16,
    y: u16,
    text: &str,
    max_width: usize,
    style: ratatui::style::Style,
) -> u16 {
    use ratatui::buffer::CellWidth;
    use unicode_segmentation::UnicodeSegmentation;
    if !buf.area.contains((x, y).into()) {
        return buf.set_stringn(x, y, text, max_width, style).0;
    }
    let bytes = text.as_bytes();
    // The length in bytes of the plain unit at byte `i`, if there is one.
    let plain = |i: usize| -> Option<usize> {
        let b = *bytes.get(i)?;
        if (b' '..=b'~').contains(&b) {
            return Some(1);
        }
        if b < 0x80 {
            return None;
        }
        let c = text.get(i..)?.chars().next()?;
        plain_symbol(c).then(|| c.len_utf8())
    };
    let mut room = usize::from(buf.area.right() - x).min(max_width);
    let mut at = x;
    // Where the row's cells start among the buffer's: (x, y) is on the buffer.
    let row = usize::from(y - buf.area.y) * usize::from(buf.area.width);
    let mut i = 0;
    // Every unit before `i` was plain, or a stretch that ended before two plain units.
    while i < bytes.len() {
        if let Some(n) = plain(i).filter(|&n| i + n == bytes.len() || plain(i + n).is_some()) {
            if n == 1 {
                if room == 0 {
                    break;
                }
                if let Some(cell) = buf.content.get_mut(row + usize::from(at - buf.area.x)) {
                    // A blank cell already shows a space (a cell with no symbol is one).
                    if bytes[i] != b' ' || cell.symbol() != " " {
                        cell.set_symbol(&text[i..=i]);
                    }
                    cell.set_style(style);
                }
                at += 1;
                room -= 1;
            } else {
                let unit = &text[i..i + n];
                match put_grapheme(buf, (at, y), unit, unit.cell_width(), &mut room, style) {
                    Some(next) => at = next,
                    None => return at,
                }
            }
            i += n;
            continue;
        }
        // Up to the next two plain units side by side, between which a grapheme always
        // ends: the stretch is split and measured as `set_stringn` would.
        let mut end = i;
        let mut last_plain = false;
        while end < bytes.len() {
            let here = plain(end);
            if end > i && last_plain && here.is_some() {
                break;
            }
            last_plain = here.is_some();
            end += here.unwrap_or_else(|| text[end..].chars().next().map_or(1, char::len_utf8));
        }
        for grapheme in text[i..end].graphemes(true) {
            if grapheme.contains(char::is_control) {
                continue;
            }
            match put_grapheme(
                buf,
                (at, y),
                grapheme,
                grapheme.cell_width(),
                &mut room,
                style,
            ) {
                Some(next) => at = next,
                None => return at,
            }
        }
        i = end;
    }
    at
}

/// Writes one grapheme `width` columns wide at `(at, y)`, as `set_stringn` writes it: nothing
/// when it is zero columns wide, and the cells a wide one covers cleared. The column after
/// it, or `None` when it does not fit in what is left of `room`.
fn put_grapheme(
    buf: &mut ratatui::buffer::Buffer,
    (at, y): (u16, u16),
    grapheme: &str,
    width: u16,
    room: &mut usize,
    style: ratatui::style::Style,
) -> Option<u16> {
    let width = usize::from(width);
    if width == 0 {
        return Some(at);
    }
    *room = room.checked_sub(width)?;
    if let Some(cell) = buf.cell_mut((at, y)) {
        cell.set_symbol(grapheme).set_style(style);
    }
    let next = at + width as u16;
    for x in at + 1..next {
        if let Some(cell) = buf.cell_mut((x, y)) {
            cell.reset();
        }
    }
    Some(next)
}

/// A symbol that is a grapheme of its own between printable ASCII characters and others of
/// its kind: never a mark, a joiner, a prepended, control or format character, a regional
/// indicator or a Hangul jamo, which join their neighbours or stand apart by other rules.
/// Latin-1's signs (the soft hyphen aside), general punctuation, arrows, mathematical and
/// technical signs, box drawing, shapes, dingbats and other symbols: what the screens draw.
fn plain_symbol(c: char) -> bool {
    matches!(
        u32::from(c),
        0xA1..=0xAC
            | 0xAE..=0xFF
            | 0x2010..=0x2027
            | 0x2030..=0x205E
            | 0x2190..=0x23FF
            | 0x2500..=0x27BF
            | 0x2900..=0x2BFF
    )
}

/// Writes one symbol a column wide into the cell at `(x, y)` in `style`, as `set_string`
/// would, without measuring it: borders, lanes and arrows write thousands a frame. Off the
/// buffer, nothing.
pub(crate) fn put(
    buf: &mut ratatui::buffer::Buffer,
    x: u16,
    y: u16,
    symbol: &str,
    style: ratatui::style::Style,
) {
    debug_assert_eq!(unicode_width::UnicodeWidthStr::width(symbol), 1);
    if let Some(cell) = buf.cell_mut((x, y)) {
        cell.set_symbol(symbol).set_style(style);
    }
}

/// A rule along the top and the bottom of `area` in `style`, as
/// `Block::default().borders(Borders::TOP | Borders::BOTTOM).border_style(style)` draws it,
/// without restyling the cells between. Returns the rows between.
pub(crate) fn rules(
    buf: &mut ratatui::buffer::Buffer,
    area: Rect,
    style: ratatui::style::Style,
) -> Rect {
    let between = Rect {
        y: area.y.saturating_add(1).min(area.bottom()),
        height: area.height.saturating_sub(2),
        ..area
    };
    let area = area.intersection(buf.area);
    if area.is_empty() {
        return between;
    }
    for y in [area.top(), area.bottom() - 1] {
        for x in area.left()..area.right() {
            put(buf, x, y, "─", style);
        }
    }
    between
}

/// A box with a border on every side and `title` at the top left in `title_style`, as
/// `Block::bordered().title(title).title_style(title_style)` draws it, but without restyling
/// every cell inside: the replay's boxes cover the screen, and a frame would otherwise style
/// each cell once for its box and once more for the text in it. Returns the inside.
pub(crate) fn outline(
    buf: &mut ratatui::buffer::Buffer,
    area: Rect,
    title: &str,
    title_style: ratatui::style::Style,
) -> Rect {
    let inside = area.inner(ratatui::layout::Margin::new(1, 1));
    let area = area.intersection(buf.area);
    if area.is_empty() {
        return inside;
    }
    let (left, top) = (area.left(), area.top());
    let (right, bottom) = (area.right() - 1, area.bottom() - 1);
    // In `Block`'s order: the sides, then the corners over their ends. The border's style is
    // the default, which changes nothing in a cell, so only symbols are written; the area is
    // on the buffer, so its cells are found by their place in the buffer's rows.
    let width = usize::from(buf.area.width);
    let at = |x: u16, y: u16| usize::from(y - buf.area.y) * width + usize::from(x - buf.area.x);
    let mut mark = |x: u16, y: u16, symbol: &str| {
        if let Some(cell) = buf.content.get_mut(at(x, y)) {
            cell.set_symbol(symbol);
        }
    };
    for y in top..=bottom {
        mark(left, y, "│");
    }
    for x in left..=right {
        mark(x, top, "─");
    }
    for y in top..=bottom {
        mark(right, y, "│");
    }
    for x in left..=right {
        mark(x, bottom, "─");
    }
    for (x, y, corner) in [
        (right, bottom, "┘"),
        (right, top, "┐"),
        (left, bottom, "└"),
        (left, top, "┌"),
    ] {
        mark(x, y, corner);
    }
    let room = Rect {
        x: left.saturating_add(1),
        y: top,
        width: area.width.saturating_sub(2),
        height: 1,
    };
    if !room.is_empty() {
        let shown = Rect {
            width: u16::try_from(unicode_width::UnicodeWidthStr::width(title))
                .unwrap_or(u16::MAX)
                .min(room.width),
            ..room
        };
        buf.set_style(shown, title_style);
        // The title's own style is the default, which changes nothing in a cell.
        text_at(
            buf,
            shown.x,
            shown.y,
            title,
            usize::from(shown.width),
            ratatui::style::Style::new(),
        );
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::outline;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Modifier, Style};
    use ratatui::widgets::{Block, Widget};

    /// A buffer whose every cell already holds a styled letter, as a frame's earlier widgets
    /// leave it.
    fn drawn_on(area: Rect) -> Buffer {
        let mut buf = Buffer::empty(area);
        for y in area.top()..area.bottom() {
            for x in area.left()..area.right() {
                let letter = char::from(b'a' + ((x * 7 + y * 3) % 26) as u8).to_string();
                buf[(x, y)]
                    .set_symbol(&letter)
                    .set_style(Style::new().fg(Color::Indexed((x + y) as u8)));
            }
        }
        buf
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        /// `text_at` writes what `Buffer::set_stringn` writes, and ends where it ends, for
        /// any text at any column, cut at any width or at the buffer's edge: printable ASCII,
        /// control characters, CR LF, wide, combining and zero-width characters, a prepended
        /// mark, joined emoji, flags and halfwidth katakana with its sound mark.
        #[test]
        fn text_at_writes_what_set_stringn_writes(
            text in proptest::prop_oneof![
                "[ -~]{0,24}",
                "[a-z ~!.#\\t\\n\\r\\x07\\x7f注·é\u{301}\u{200b}⚠\u{fe0f}]{0,24}",
                "[ab1 \\r\\n\u{600}\u{301}\u{200d}👩💻🇫🇷\u{ff76}\u{ff9e}…→✓]{0,16}",
                // The plain symbols, the ends of their ranges, and what joins them or stands
                // between them: marks, joiners, variation selectors, the soft hyphen.
                "[ab ·×÷¡ÿ\u{ad}\u{a0}‐‧‰⁞\u{205f}\u{2060}←⏿─➿⤀⯿●◆⚠⚡✅\u{301}\u{200d}\u{fe0f}\u{200b}\u{2028}]{0,20}",
            ],
            x in 0u16..20,
            y in 0u16..5,
            max_width in 0usize..24,
        ) {
            let screen = Rect::new(0, 0, 16, 5);
            let style = Style::new().fg(Color::Cyan).add_modifier(Modifier::ITALIC);
            let mut want = drawn_on(screen);
            let want_end = want.set_stringn(x, y, &text, max_width, style).0;
            let mut got = drawn_on(screen);
            let got_end = super::text_at(&mut got, x, y, &text, max_width, style);
            proptest::prop_assert_eq!(got_end, want_end);
            proptest::prop_assert_eq!(got, want);
        }
    }

    /// Every plain symbol, whole ranges through, is a grapheme of its own beside printable
    /// ASCII, beside itself and beside other plain symbols, as `text_at` takes it to be.
    #[test]
    fn every_plain_symbol_stands_alone() {
        use unicode_segmentation::UnicodeSegmentation;
        let plain: Vec<char> = (0u32..0x3000)
            .filter_map(char::from_u32)
            .filter(|c| super::plain_symbol(*c))
            .collect();
        assert!(plain.len() > 2000, "{}", plain.len());
        for &c in &plain {
            for other in ['a', ' ', '~', c, '·', '→', '●', '✅', '⯿'] {
                for text in [format!("{c}{other}"), format!("{other}{c}")] {
                    let parts: Vec<&str> = text.graphemes(true).collect();
                    assert_eq!(parts.len(), 2, "{:?}", text);
                }
            }
        }
    }

    /// `rules` draws what a `Block` with a top and a bottom border draws, and gives the same
    /// rows between, at every small size and off the buffer's edge.
    #[test]
    fn rules_are_a_block_with_a_top_and_a_bottom() {
        use ratatui::widgets::Borders;
        let screen = Rect::new(0, 0, 14, 7);
        let style = Style::new().fg(Color::DarkGray);
        for (x, y) in [(0, 0), (3, 2), (10, 5)] {
            for w in 0..=8 {
                for h in 0..=5 {
                    let area = Rect::new(x, y, w, h);
                    let block = Block::default()
                        .borders(Borders::TOP | Borders::BOTTOM)
                        .border_style(style);
                    let mut want = drawn_on(screen);
                    let want_between = block.inner(area);
                    (&block).render(area, &mut want);
                    let mut got = drawn_on(screen);
                    let between = super::rules(&mut got, area, style);
                    assert_eq!(got, want, "{area:?}");
                    assert_eq!(between, want_between, "{area:?}");
                }
            }
        }
    }

    /// `rows` draws, cell for cell and style for style, what a `Paragraph` of the same lines
    /// draws on a fresh buffer: styled lines and spans, wide and zero-width characters, lines
    /// cut at every width, more lines than rows, areas that run off the buffer.
    #[test]
    fn rows_are_a_paragraph_of_left_aligned_lines() {
        use ratatui::text::{Line, Span};
        use ratatui::widgets::Paragraph;
        let screen = Rect::new(0, 0, 16, 5);
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let sets: Vec<Vec<Line<'static>>> = vec![
            vec![],
            vec![Line::from("ch_1 $48.60 K7Q4 14:02:07.250")],
            vec![
                Line::from(vec![
                    Span::styled("key ", bold),
                    Span::raw("K7Q4"),
                    Span::styled(" · completed", Style::new().fg(Color::Green)),
                ]),
                Line::styled("注文 5531 ✓ 請求", Style::new().fg(Color::Red)),
                Line::from("e\u{301}t\u{200b}e ⚠\u{fe0f} café"),
                Line::from(vec![Span::raw("a"), Span::styled("", bold), Span::raw("b")]),
                Line::from("…"),
                Line::from("one line too many"),
            ],
            vec![Line::from("centred").centered(), Line::from("left")],
        ];
        for lines in &sets {
            for (x, y) in [(0, 0), (2, 1), (12, 3)] {
                for w in 0..=12 {
                    for h in 0..=4 {
                        let area = Rect::new(x, y, w, h);
                        let mut want = Buffer::empty(screen);
                        Paragraph::new(lines.clone()).render(area, &mut want);
                        let mut got = Buffer::empty(screen);
                        super::rows(&mut got, area, lines.clone());
                        assert_eq!(got, want, "{lines:?} in {area:?}");
                    }
                }
            }
        }
    }

    /// `outline` draws, cell for cell and style for style, what ratatui's bordered `Block`
    /// with a title draws, and gives the same inside, for boxes of every small size, titles
    /// short, long and wide, and boxes that run off the buffer.
    #[test]
    fn an_outline_is_a_bordered_block_without_the_fill() {
        let screen = Rect::new(0, 0, 14, 7);
        let style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
        for title in ["", " Ledger ", " Processor memory ● ", " 注文 ·· ✓ ", "x"] {
            for (x, y) in [(0, 0), (3, 2), (10, 5)] {
                for w in 0..=8 {
                    for h in 0..=5 {
                        let area = Rect::new(x, y, w, h);
                        let mut want = drawn_on(screen);
                        let block = Block::bordered().title(title).title_style(style);
                        let want_inside = block.inner(area);
                        (&block).render(area, &mut want);
                        let mut got = drawn_on(screen);
                        let inside = outline(&mut got, area, title, style);
                        let at = format!("{title:?} in {area:?}");
                        assert_eq!(got, want, "{at}");
                        // The same box with its title a styled span, as compare's columns
                        // have it, their titles cut to fit first (a span styles only the
                        // cells it writes; a title style, every cell of the title's room).
                        let fitted = usize::from(area.width.saturating_sub(2));
                        if unicode_width::UnicodeWidthStr::width(title) <= fitted {
                            let mut spanned = drawn_on(screen);
                            let title_span = ratatui::text::Span::styled(title, style);
                            (&Block::bordered().title(title_span)).render(area, &mut spanned);
                            assert_eq!(got, spanned, "{at}, a styled span");
                        }
                        if !want_inside.is_empty() {
                            assert_eq!(inside, want_inside, "{at}");
                        }
                        assert_eq!(inside.is_empty(), want_inside.is_empty(), "{at}");
                    }
                }
            }
        }
    }
}
