//! A text wrapped at word boundaries to a box's width, as ratatui's `Paragraph` with
//! `Wrap { trim }` lays it out, worked out once and kept as rows of pieces of the text: the
//! narration box is measured for the layout and then drawn, and `Paragraph` wraps the whole
//! text again for each (`line_count`, then `render`). One difference: a number and its unit
//! (`30 s`, `11 h 58 m`) stay on one row, as `Paragraph` keeps them when a no-break space
//! joins them; the property test holds the box to that.

use ratatui::buffer::{Buffer, CellWidth};
use ratatui::layout::{Alignment, Rect};
use ratatui::text::Text;
use std::collections::VecDeque;
use unicode_segmentation::UnicodeSegmentation;

/// Bytes `from..to` of span `span` of line `line`: a stretch of graphemes that sit side by
/// side both in the text and on a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    line: usize,
    span: usize,
    from: usize,
    to: usize,
}

/// A text laid out at a width: [`Wrapped`]'s rows, or, when a line is aligned other than left,
/// `Paragraph`'s, which it counts and draws itself. Measured once, then drawn.
pub(crate) struct Laid {
    wrapped: Option<Wrapped>,
    rows: usize,
    width: u16,
    trim: bool,
}

impl Laid {
    /// `text` wrapped to `width` columns, leading blanks of a row dropped when `trim`.
    pub(crate) fn new(text: &Text<'_>, width: u16, trim: bool) -> Laid {
        let wrapped = Wrapped::new(text, width, trim);
        let rows = match &wrapped {
            Some(w) => w.rows(),
            None => paragraph(text, trim).line_count(width),
        };
        Laid {
            wrapped,
            rows,
            width,
            trim,
        }
    }

    /// How many rows the text takes.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// The width it was laid out at.
    pub(crate) fn width(&self) -> u16 {
        self.width
    }

    /// Draws `text` (the text it was laid out from) into `area` from row `first` on.
    pub(crate) fn draw(&self, text: &Text<'_>, buf: &mut Buffer, area: Rect, first: usize) {
        match &self.wrapped {
            Some(w) => w.draw(text, buf, area, first),
            None => ratatui::widgets::Widget::render(
                paragraph(text, self.trim).scroll((u16::try_from(first).unwrap_or(u16::MAX), 0)),
                area,
                buf,
            ),
        }
    }
}

/// The wrapped `Paragraph` a [`Laid`] falls back on.
fn paragraph<'a>(text: &Text<'a>, trim: bool) -> ratatui::widgets::Paragraph<'a> {
    ratatui::widgets::Paragraph::new(text.clone()).wrap(ratatui::widgets::Wrap { trim })
}

/// How many rows `text` takes wrapped to `width` columns, as [`draw_wrapped`] draws it.
pub(crate) fn rows_wrapped(text: &Text<'_>, width: u16, trim: bool) -> usize {
    Laid::new(text, width, trim).rows()
}

/// `text` wrapped to `area`'s width and drawn into it from row `first` on.
pub(crate) fn draw_wrapped(
    buf: &mut Buffer,
    area: Rect,
    text: &Text<'_>,
    trim: bool,
    first: usize,
) {
    Laid::new(text, area.width, trim).draw(text, buf, area, first);
}

/// One grapheme of the text, where it is, how wide, and whether it is blank.
#[derive(Clone, Copy, Debug)]
struct Grapheme {
    piece: Piece,
    width: u32,
    blank: bool,
}

/// The rows of a text wrapped to a width.
#[derive(Clone, Debug)]
pub(crate) struct Wrapped {
    pieces: Vec<Piece>,
    /// Where each row's pieces start in `pieces`.
    starts: Vec<usize>,
}

impl Wrapped {
    /// `text` wrapped to `width` columns, leading blanks of a row dropped when `trim`; `None`
    /// when a line is aligned other than to the left, which is left to `Paragraph`.
    pub(crate) fn new(text: &Text<'_>, width: u16, trim: bool) -> Option<Wrapped> {
        let left = |a: Option<Alignment>| a.is_none_or(|a| a == Alignment::Left);
        if !left(text.alignment) || !text.lines.iter().all(|l| left(l.alignment)) {
            return None;
        }
        let mut wrapped = Wrapped {
            pieces: Vec::new(),
            starts: Vec::new(),
        };
        if width == 0 {
            return Some(wrapped);
        }
        let mut rows = Rows::new(u32::from(width), trim);
        for (l, line) in text.lines.iter().enumerate() {
            let graphemes = line.spans.iter().enumerate().flat_map(|(s, span)| {
                graphemes_of(&span.content).map(move |(from, to, width, blank)| Grapheme {
                    piece: Piece {
                        line: l,
                        span: s,
                        from,
                        to,
                    },
                    width,
                    blank,
                })
            });
            rows.line(graphemes, &mut wrapped);
        }
        Some(wrapped)
    }

    /// How many rows the text takes.
    pub(crate) fn rows(&self) -> usize {
        self.starts.len()
    }

    /// Draws the rows from `first` on into `area`, one a row, as `Paragraph` draws them on
    /// cells nothing else has drawn in this frame.
    pub(crate) fn draw(&self, text: &Text<'_>, buf: &mut Buffer, area: Rect, first: usize) {
        let area = area.intersection(buf.area);
        for (row, y) in (first..self.starts.len()).zip(area.top()..area.bottom()) {
            let end = self
                .starts
                .get(row + 1)
                .copied()
                .unwrap_or(self.pieces.len());
            let mut x = area.x;
            for p in &self.pieces[self.starts[row]..end] {
                let line = &text.lines[p.line];
                let span = &line.spans[p.span];
                let style = text.style.patch(line.style).patch(span.style);
                let room = usize::from(area.right().saturating_sub(x));
                x = super::text_at(buf, x, y, &span.content[p.from..p.to], room, style);
            }
        }
    }

    /// Ends a row of `graphemes`, joining those that sit side by side in the text.
    fn push_row(&mut self, graphemes: impl IntoIterator<Item = Grapheme>) {
        self.starts.push(self.pieces.len());
        let first = self.pieces.len();
        for g in graphemes {
            let n = self.pieces.len();
            if n > first {
                let p = &mut self.pieces[n - 1];
                if p.line == g.piece.line && p.span == g.piece.span && p.to == g.piece.from {
                    p.to = g.piece.to;
                    continue;
                }
            }
            self.pieces.push(g.piece);
        }
    }
}

/// Units a number is written with (`30 s`, `200 ms`, `3 d 2 h`, `57.6 MB`, `2 × notebook`):
/// the space between the number and its unit is no place to end a row.
const UNITS: [&str; 16] = [
    "ms", "s", "min", "m", "h", "d", "days", "hours", "minutes", "seconds", "B", "KB", "MB", "GB",
    "TB", "×",
];

/// Whether the space at byte `at` of `text` joins a number to its unit: a digit before it,
/// one of [`UNITS`] after it, and no letter or digit after the unit.
fn joins_unit(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b' ') || at == 0 || !bytes[at - 1].is_ascii_digit() {
        return false;
    }
    let rest = &text[at + 1..];
    UNITS.iter().any(|unit| {
        rest.strip_prefix(unit)
            .is_some_and(|after| !after.starts_with(char::is_alphanumeric))
    })
}

/// The graphemes of `text` that are drawn (no control characters), each as its bytes, its
/// width and whether it is blank, as ratatui measures them. A printable ASCII character
/// between two others (or the text's ends) is a grapheme of its own, one column wide; only
/// the stretches around anything else are split into graphemes and measured. The space that
/// joins a number to its unit ([`joins_unit`]) is not blank: it is kept as a no-break space
/// is, so `30 s` is never split over two rows.
fn graphemes_of(text: &str) -> impl Iterator<Item = (usize, usize, u32, bool)> + '_ {
    let printable = |b: u8| (b' '..=b'~').contains(&b);
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut stretch: Option<(usize, unicode_segmentation::GraphemeIndices<'_>)> = None;
    std::iter::from_fn(move || {
        loop {
            if let Some((from, graphemes)) = &mut stretch {
                match graphemes.next() {
                    Some((_, g)) if g.contains(char::is_control) => continue,
                    Some((i, g)) => {
                        let start = *from + i;
                        let blank = g == "\u{200b}"
                            || (g.chars().all(char::is_whitespace)
                                && g != "\u{a0}"
                                && !joins_unit(text, start));
                        return Some((start, start + g.len(), u32::from(g.cell_width()), blank));
                    }
                    None => stretch = None,
                }
            }
            let i = at;
            if i >= bytes.len() {
                return None;
            }
            let alone = printable(bytes[i])
                && (i == 0 || printable(bytes[i - 1]))
                && bytes.get(i + 1).is_none_or(|&b| printable(b));
            if alone {
                at = i + 1;
                return Some((i, i + 1, 1, bytes[i] == b' ' && !joins_unit(text, i)));
            }
            // Up to the next two printable ASCII characters side by side, between which a
            // grapheme always ends.
            let mut end = i + 1;
            while end < bytes.len() && !(printable(bytes[end - 1]) && printable(bytes[end])) {
                end += 1;
            }
            at = end;
            stretch = Some((i, text[i..end].grapheme_indices(true)));
        }
    })
}

/// The wrapping of one line after another at a width: the row being filled, and the word and
/// the blanks not yet placed on it.
struct Rows {
    width: u32,
    trim: bool,
    row: Vec<Grapheme>,
    row_width: u32,
    word: Vec<Grapheme>,
    word_width: u32,
    blanks: VecDeque<Grapheme>,
    blanks_width: u32,
}

impl Rows {
    fn new(width: u32, trim: bool) -> Rows {
        Rows {
            width,
            trim,
            row: Vec::new(),
            row_width: 0,
            word: Vec::new(),
            word_width: 0,
            blanks: VecDeque::new(),
            blanks_width: 0,
        }
    }

    /// Moves the word, and the blanks before it (unless they would start a trimmed row),
    /// onto the row.
    fn place_word(&mut self) {
        if !self.row.is_empty() || !self.trim {
            self.row.extend(self.blanks.drain(..));
            self.row_width += self.blanks_width;
        }
        self.row.append(&mut self.word);
        self.row_width += self.word_width;
        self.blanks.clear();
        self.blanks_width = 0;
        self.word_width = 0;
    }

    /// Ends the row being filled, and empties it. `Paragraph` can let a row run past the box
    /// (a line's last word is put on its row whatever its width, and blanks two columns wide
    /// are counted as they come): it then draws over the box's border and past it. Here such
    /// a row is cut before the character that would cross the edge, and the rest starts a
    /// row of its own, so nothing is hidden or drawn outside.
    fn push_fitting(&mut self, out: &mut Wrapped) {
        let (mut start, mut width, mut i) = (0, 0, 0);
        while let Some(g) = self.row.get(i) {
            if width + g.width > self.width && i > start {
                out.push_row(self.row[start..i].iter().copied());
                (start, width) = (i, 0);
                if self.trim {
                    while self.row.get(start).is_some_and(|g| g.blank) {
                        start += 1;
                    }
                }
                i = start;
                continue;
            }
            width += g.width;
            i += 1;
        }
        if start == 0 || start < self.row.len() {
            out.push_row(self.row.drain(start..));
        }
        self.row.clear();
    }

    /// Wraps one line of the text into `out`: at least one row, empty if the line is.
    fn line(&mut self, graphemes: impl Iterator<Item = Grapheme>, out: &mut Wrapped) {
        let rows_before = out.rows();
        self.row.clear();
        self.row_width = 0;
        self.word.clear();
        self.word_width = 0;
        self.blanks.clear();
        self.blanks_width = 0;
        let mut after_word = false;
        for g in graphemes {
            // A grapheme wider than the box is never shown.
            if g.width > self.width {
                continue;
            }
            let starting = self.row.is_empty();
            let word_ends = after_word && g.blank;
            let overflows = if self.trim {
                self.word_width + g.width > self.width || self.blanks_width + g.width > self.width
            } else {
                self.word_width + self.blanks_width + g.width > self.width
            };
            if word_ends || (starting && overflows) {
                self.place_word();
            }
            let full = self.row_width >= self.width
                || (g.width > 0
                    && self.row_width + self.blanks_width + self.word_width >= self.width);
            if full {
                let mut left = self.width.saturating_sub(self.row_width);
                self.push_fitting(out);
                self.row_width = 0;
                // Blanks that still fit at the end of the row just ended go with it.
                while let Some(b) = self.blanks.front() {
                    if b.width > left {
                        break;
                    }
                    left -= b.width;
                    self.blanks_width -= b.width;
                    self.blanks.pop_front();
                }
                if g.blank && self.blanks.is_empty() {
                    continue;
                }
            }
            if g.blank {
                self.blanks_width += g.width;
                self.blanks.push_back(g);
            } else {
                self.word_width += g.width;
                self.word.push(g);
            }
            after_word = !g.blank;
        }
        if self.trim && self.row.is_empty() && self.word.is_empty() && !self.blanks.is_empty() {
            out.push_row([]);
        }
        if !self.row.is_empty() || !self.trim {
            self.row.extend(self.blanks.drain(..));
        }
        self.row.append(&mut self.word);
        if !self.row.is_empty() {
            self.push_fitting(out);
        }
        if out.rows() == rows_before {
            out.push_row([]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Wrapped;
    use proptest::prelude::*;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Modifier, Style};
    use ratatui::text::{Line, Span, Text};
    use ratatui::widgets::{Paragraph, Widget, Wrap};

    /// Words and blanks of every kind a narration or a trainer's file can hold: long and
    /// short words, runs of spaces, wide and zero-width characters, combining marks, joined
    /// emoji, no-break and zero-width spaces, tabs and other control characters.
    fn words() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{1,9}( {1,3}[a-z.,]{1,12}){0,8} ?",
            "[ab $.注é\u{301}\u{200b}\u{a0}\t\u{3000}⚠\u{fe0f}👩\u{200d}💻→]{0,30}",
            "( |[A-Z]{1,20}){0,6}",
            "([a-z]{1,6} ){0,2}[0-9]{1,3} (s|ms|min|h|m|d|×|days|MB|sx|more|3)([ .,][a-z]{1,5}){0,3}",
        ]
    }

    /// `text` with every space that joins a number to its unit made a no-break space: what
    /// the box lays out as `Paragraph` lays this out. Found word by word, apart from the
    /// box's own test.
    fn units_joined(text: &Text<'static>) -> Text<'static> {
        const UNITS: [&str; 16] = [
            "ms", "s", "min", "m", "h", "d", "days", "hours", "minutes", "seconds", "B", "KB",
            "MB", "GB", "TB", "×",
        ];
        let mut joined = text.clone();
        for span in joined.lines.iter_mut().flat_map(|l| l.spans.iter_mut()) {
            let content = span.content.to_string();
            let chars: Vec<char> = content.chars().collect();
            let mut out = String::new();
            for (i, &c) in chars.iter().enumerate() {
                let after_digit = i > 0 && chars[i - 1].is_ascii_digit();
                // The word after the space: its letters and digits, or one other character.
                let rest = &chars[(i + 1).min(chars.len())..];
                let mut word: String = rest.iter().take_while(|c| c.is_alphanumeric()).collect();
                if word.is_empty()
                    && let Some(first) = rest.first()
                    && !rest.get(1).is_some_and(|c| c.is_alphanumeric())
                {
                    word.push(*first);
                }
                let unit = UNITS.contains(&word.as_str());
                out.push(if c == ' ' && after_digit && unit {
                    '\u{a0}'
                } else {
                    c
                });
            }
            span.content = out.into();
        }
        joined
    }

    /// `buf` with its no-break spaces drawn as spaces, which look the same.
    fn spaced(mut buf: Buffer) -> Buffer {
        for cell in &mut buf.content {
            if cell.symbol() == "\u{a0}" {
                cell.set_symbol(" ");
            }
        }
        buf
    }

    fn styles() -> impl Strategy<Value = Style> {
        prop_oneof![
            Just(Style::new()),
            Just(Style::new().fg(Color::Yellow)),
            Just(Style::new().add_modifier(Modifier::BOLD).bg(Color::Blue)),
        ]
    }

    fn text() -> impl Strategy<Value = Text<'static>> {
        let span = (words(), styles()).prop_map(|(w, s)| Span::styled(w, s));
        let line = (proptest::collection::vec(span, 0..4), styles())
            .prop_map(|(spans, s)| Line::from(spans).style(s));
        (proptest::collection::vec(line, 0..5), styles())
            .prop_map(|(lines, s)| Text::from(lines).style(s))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// The rows are as many as `Paragraph` counts, and drawn from any row on they are
        /// the cells `Paragraph` draws scrolled to it, trimmed or not, at any width.
        #[test]
        fn wrapped_rows_are_what_a_paragraph_draws(
            text in text(),
            width in 0u16..24,
            height in 0u16..8,
            scroll in 0usize..6,
            trim in any::<bool>(),
        ) {
            // The box keeps a number and its unit together, as `Paragraph` keeps them when a
            // no-break space joins them.
            let joined = units_joined(&text);
            let paragraph = Paragraph::new(joined.clone()).wrap(Wrap { trim });
            let wrapped = Wrapped::new(&text, width, trim).expect("every line is aligned left");
            let counted = paragraph.line_count(width);
            let screen = Rect::new(0, 0, 26, 9);
            let area = Rect::new(1, 1, width, height);
            let mut want = Buffer::empty(screen);
            paragraph
                .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
                .render(area, &mut want);
            let mut got = Buffer::empty(screen);
            wrapped.draw(&text, &mut got, area, scroll);
            // Nothing is drawn outside the box.
            let outside = |buf: &Buffer, area: Rect| {
                buf.area.positions().any(|p| {
                    let cell = &buf[p];
                    let ends = p.x + unicode_width::UnicodeWidthStr::width(cell.symbol()) as u16;
                    if area.contains(p) {
                        ends > area.right()
                    } else {
                        *cell != ratatui::buffer::Cell::EMPTY
                    }
                })
            };
            prop_assert!(!outside(&got, area));
            // `Paragraph` lets a row run past the box's right edge when it ends in a
            // character two columns wide: there the box keeps to its width instead. Whether
            // it does is seen with every row drawn.
            let rows = u16::try_from(counted).unwrap_or(u16::MAX);
            let every_area = Rect::new(1, 1, width, rows);
            let mut every_row = Buffer::empty(Rect::new(0, 0, width + 4, rows + 2));
            Paragraph::new(joined.clone())
                .wrap(Wrap { trim })
                .render(every_area, &mut every_row);
            let visible = visible_graphemes(&text, width);
            // `Paragraph` also drops what follows a zero-width joiner and space that start a
            // row one column wide ("\u{200d}\u{200b}$a" shows only `$`): there the box,
            // which loses nothing (below), has more rows.
            let keeps_all = shown_graphemes(&every_row, every_area) == visible;
            if !outside(&every_row, every_area) && keeps_all {
                prop_assert_eq!(wrapped.rows(), counted);
                prop_assert_eq!(spaced(got), spaced(want));
            } else {
                prop_assert!(wrapped.rows() >= counted);
            }
            // Nothing is lost: drawn whole from the top, the rows show every visible
            // grapheme of the text that is not blank, in order.
            if width > 0 {
                let tall = Rect::new(0, 0, width, u16::try_from(wrapped.rows()).unwrap_or(u16::MAX));
                let mut whole = Buffer::empty(tall);
                wrapped.draw(&text, &mut whole, tall, 0);
                prop_assert_eq!(shown_graphemes(&whole, tall), visible);
            }
        }
    }

    /// The graphemes drawn in `area` that are not blank, row by row.
    fn shown_graphemes(buf: &Buffer, area: Rect) -> Vec<String> {
        area.positions()
            .map(|p| buf[p].symbol().to_string())
            .filter(|g| g.trim().chars().any(|c| !c.is_whitespace()) && !g.is_empty())
            .collect()
    }

    /// The graphemes of `text` a box `width` columns wide can show that are not blank, in
    /// order.
    fn visible_graphemes(text: &Text, width: u16) -> Vec<String> {
        use unicode_segmentation::UnicodeSegmentation;
        text.lines
            .iter()
            .flat_map(|l| l.spans.iter())
            .flat_map(|span| {
                span.content
                    .graphemes(true)
                    .filter(|g| !g.contains(char::is_control))
                    .filter(|g| {
                        let w = ratatui::buffer::CellWidth::cell_width(*g);
                        w > 0 && w <= width
                    })
                    .filter(|g| g.chars().any(|c| !c.is_whitespace()))
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// A space joins a number to a unit written after it, and nothing else.
    #[test]
    fn a_space_joins_a_number_to_its_unit() {
        let joined = |text: &str| {
            (0..text.len())
                .filter(|&i| super::joins_unit(text, i))
                .collect::<Vec<_>>()
        };
        assert_eq!(joined("It waits 1 s and tries again."), [10]);
        assert_eq!(joined("in 2 s."), [4]);
        assert_eq!(joined("takes 200 ms, then 1.5 min"), [9, 22]);
        assert_eq!(joined("3 d 2 h 0 m"), [1, 5, 9]);
        assert_eq!(joined("(2 × notebook, fountain pen)"), [2]);
        assert_eq!(joined("57.6 MB"), [4]);
        assert!(joined("5 more ticks, attempt 2 of 3, 1 said, K7Q4 #1, a s, 2 ms2").is_empty());
    }

    /// The narration of every built-in, under every design, at widths from 20 to 118
    /// columns: no row ends in a number whose unit starts the next.
    #[test]
    fn no_row_parts_a_number_from_its_unit() {
        let units = [
            "ms", "s", "min", "m", "h", "d", "days", "B", "KB", "MB", "×",
        ];
        for b in crate::scenario::library::BUILTIN {
            let scenario = b.load().unwrap_or_else(|e| panic!("{}: {e}", b.name));
            for design in crate::sim::Design::ALL {
                let Ok(trace) = scenario.simulate(design) else {
                    continue;
                };
                for narration in scenario.tell(&trace).narrations {
                    let text = Text::from(narration.as_str());
                    for width in (20..120).step_by(7) {
                        let Some(wrapped) = Wrapped::new(&text, width, true) else {
                            continue;
                        };
                        let height = u16::try_from(wrapped.rows()).unwrap_or(u16::MAX);
                        let area = Rect::new(0, 0, width, height);
                        let mut buf = Buffer::empty(area);
                        wrapped.draw(&text, &mut buf, area, 0);
                        let rows: Vec<String> = (0..height)
                            .map(|y| (0..width).map(|x| buf[(x, y)].symbol()).collect())
                            .collect();
                        for pair in rows.windows(2) {
                            let ends_in_number =
                                pair[0].trim_end().ends_with(|c: char| c.is_ascii_digit());
                            let next = pair[1].trim_start();
                            let starts_with_unit = units.iter().any(|u| {
                                next.strip_prefix(u)
                                    .is_some_and(|r| !r.starts_with(char::is_alphanumeric))
                            });
                            assert!(
                                !(ends_in_number && starts_with_unit),
                                "{} under {design:?} at {width} columns:\n{}\n{}",
                                b.name,
                                pair[0],
                                pair[1]
                            );
                        }
                    }
                }
            }
        }
    }

    /// A row that would end in a wide character one column past the box ends before it, and
    /// the character starts the next row: `Paragraph` draws it over the box's border.
    #[test]
    fn a_wide_character_at_a_rows_end_goes_to_the_next_row() {
        for (text, width, last) in [
            ("同じ注文をAPIで二度送ると、二度請求される。", 11, "。"),
            ("abcd注", 5, "注"),
            ("注文注", 5, "注"),
        ] {
            let text = Text::from(text);
            let wrapped = Wrapped::new(&text, width, true).expect("aligned left");
            let area = Rect::new(0, 0, width, u16::try_from(wrapped.rows()).unwrap_or(9));
            let mut buf = Buffer::empty(area);
            wrapped.draw(&text, &mut buf, area, 0);
            let drawn: Vec<&str> = area.positions().map(|p| buf[p].symbol()).collect();
            assert_eq!(
                drawn.iter().rev().find(|s| s.trim() != ""),
                Some(&last),
                "{text:?} at {width}: {buf:?}"
            );
            // The boxes of presenter mode, the overlays and the picker draw through these.
            assert_eq!(super::rows_wrapped(&text, width, true), wrapped.rows());
            let mut again = Buffer::empty(area);
            super::draw_wrapped(&mut again, area, &text, true, 0);
            assert_eq!(again, buf);
        }
    }

    /// A centred line is not wrapped here: `Paragraph` draws it.
    #[test]
    fn a_line_not_aligned_left_is_left_to_the_paragraph() {
        let text = Text::from(vec![Line::from("left"), Line::from("middle").centered()]);
        assert!(Wrapped::new(&text, 10, true).is_none());
        let text = Text::from("right").right_aligned();
        assert!(Wrapped::new(&text, 10, true).is_none());
        // Laid out, it counts and draws what the paragraph does.
        let text = Text::from(vec![
            Line::from("a left line long enough to wrap"),
            Line::from("a centred line, wrapped too").centered(),
        ]);
        let paragraph = Paragraph::new(text.clone()).wrap(Wrap { trim: true });
        let laid = super::Laid::new(&text, 10, true);
        assert_eq!(laid.rows(), paragraph.line_count(10));
        let area = Rect::new(0, 0, 10, 4);
        let mut want = Buffer::empty(area);
        paragraph.scroll((2, 0)).render(area, &mut want);
        let mut got = Buffer::empty(area);
        laid.draw(&text, &mut got, area, 2);
        assert_eq!(got, want);
    }
}
