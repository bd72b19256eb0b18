//! The first frame on a terminal just taken. Ratatui's `Terminal::draw` finds what to write by
//! comparing every cell with the frame before, measuring each cell's symbol on both sides;
//! before the first frame that frame is blank, so what it finds is the cells that are not
//! blank, which one pass finds for half the work (at 100×30 the comparison was a fifth of the
//! instructions run before the first frame). The cells found are those ratatui's comparison
//! finds, which a property test holds; later frames are drawn by `Terminal::draw` itself.

use ratatui::Frame;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::buffer::{Buffer, Cell, CellDiffOption, CellWidth};
use ratatui::style::Color;

/// Draws one frame as `Terminal::draw` does, on a terminal whose screen and buffers are blank
/// (nothing drawn since it was made). The frame must not place the cursor: it is hidden, as
/// `Terminal::draw` hides it for a frame that places none.
pub fn draw_on_blank<B: Backend>(
    terminal: &mut Terminal<B>,
    paint: impl FnOnce(&mut Frame),
) -> Result<(), B::Error> {
    terminal.autoresize()?;
    let mut frame = terminal.get_frame();
    paint(&mut frame);
    // The buffer is lent to the comparison while the backend writes what it found.
    let buffer = std::mem::take(terminal.current_buffer_mut());
    let drawn = terminal
        .backend_mut()
        .draw(against_blank(&buffer).into_iter());
    *terminal.current_buffer_mut() = buffer;
    drawn?;
    terminal.hide_cursor()?;
    terminal.swap_buffers();
    terminal.backend_mut().flush()
}

/// The cells of `next` that ratatui's `Buffer::diff` finds against a blank buffer of the same
/// area, with their places, in its order.
pub fn against_blank(next: &Buffer) -> Vec<(u16, u16, &Cell)> {
    let cells = &next.content;
    let columns = usize::from(next.area.width.max(1));
    // A place in the buffer's area, whose columns and rows fit in u16.
    let found = |at: usize| -> (u16, u16, &Cell) {
        let x = (at % columns) as u16 + next.area.x;
        let y = (at / columns) as u16 + next.area.y;
        (x, y, &cells[at])
    };
    // Room for every cell, made once: a first frame writes about half of them.
    let mut out = Vec::with_capacity(cells.len());
    let mut measured = None;
    let mut i = 0;
    while let Some(cell) = cells.get(i) {
        let at = i;
        i += 1;
        if is_skipped(cell) {
            continue;
        }
        match cell.diff_option {
            // Passed over above.
            CellDiffOption::Skip => {}
            CellDiffOption::ForcedWidth(forced) => {
                // Never equal to a blank cell, whose option is none.
                i = i.saturating_add(usize::from(forced.get() - 1));
                out.push(found(at));
            }
            CellDiffOption::None | CellDiffOption::AlwaysUpdate => {
                // A blank cell is a space, one column wide: nothing to pass over after it.
                if is_blank(cell) {
                    continue;
                }
                let width = width_of(cell, &mut measured);
                out.push(found(at));
                if width > 1 && cell.symbol().contains('\u{FE0F}') {
                    // An emoji presented wide: each cell it covers is written too when it
                    // holds anything but a space, each after the last one's width.
                    let mut end = (at + width).min(cells.len());
                    let mut j = at + 1;
                    while j < end {
                        let covered = &cells[j];
                        let after = j + width_of(covered, &mut measured).max(1);
                        end = end.max(after).min(cells.len());
                        if !is_skipped(covered) && !matches!(covered.symbol().as_bytes(), [b' ']) {
                            out.push(found(j));
                        }
                        j = after;
                    }
                    i = end;
                } else if width > 1 {
                    i += width - 1;
                }
            }
        }
    }
    out
}

/// Whether ratatui's comparison passes over `cell` whatever it holds.
#[allow(deprecated)]
#[inline]
fn is_skipped(cell: &Cell) -> bool {
    cell.diff_option == CellDiffOption::Skip
        || (cell.skip && cell.diff_option == CellDiffOption::None)
}

/// Whether `cell` equals a blank cell, as ratatui compares cells (a cell without a symbol
/// is a space; a blank cell's option is none): its plain fields first, which rule out most
/// cells that are not.
#[allow(deprecated)]
#[inline]
fn is_blank(cell: &Cell) -> bool {
    cell.fg == Color::Reset
        && cell.bg == Color::Reset
        && cell.underline_color == Color::Reset
        && cell.modifier.is_empty()
        && !cell.skip
        && cell.diff_option == CellDiffOption::None
        && matches!(cell.symbol().as_bytes(), [b' '])
}

/// The columns `cell` takes, as ratatui measures it: a printable ASCII symbol without asking,
/// and a symbol beyond ASCII as the last one measured when it is the same (a border's run).
#[inline]
fn width_of<'a>(cell: &'a Cell, last: &mut Option<(&'a str, usize)>) -> usize {
    let symbol = cell.symbol();
    match (cell.diff_option, symbol.as_bytes()) {
        (CellDiffOption::ForcedWidth(_), _) => usize::from(cell.cell_width()),
        (_, [b]) if (b' '..=b'~').contains(b) => 1,
        _ => match *last {
            Some((seen, width)) if seen == symbol => width,
            _ => {
                let width = usize::from(cell.cell_width());
                *last = Some((symbol, width));
                width
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::against_blank;
    use proptest::prelude::*;
    use ratatui::buffer::{Buffer, Cell, CellDiffOption};
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Modifier};

    fn symbol() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => Just(" ".to_string()),
            8 => "[a-z]",
            2 => Just("│".to_string()),
            2 => Just("注".to_string()),
            1 => Just("❤\u{fe0f}".to_string()),
            1 => Just("👍".to_string()),
            1 => Just("e\u{301}".to_string()),
            1 => Just("".to_string()),
            1 => Just("ﾞ".to_string()),
        ]
    }

    #[allow(deprecated)]
    fn cell() -> impl Strategy<Value = Cell> {
        let color = prop_oneof![
            6 => Just(Color::Reset),
            1 => Just(Color::Red),
            1 => Just(Color::Indexed(7)),
        ];
        let option = prop_oneof![
            12 => Just(CellDiffOption::None),
            1 => Just(CellDiffOption::Skip),
            1 => Just(CellDiffOption::AlwaysUpdate),
            1 => (1u16..4).prop_map(|w| CellDiffOption::ForcedWidth(
                std::num::NonZeroU16::new(w).unwrap_or(std::num::NonZeroU16::MIN)
            )),
        ];
        (
            symbol(),
            color.clone(),
            color.clone(),
            color,
            prop_oneof![6 => Just(0u16), 1 => 0u16..0x200],
            option,
            prop_oneof![12 => Just(false), 1 => Just(true)],
            prop_oneof![4 => Just(false), 1 => Just(true)],
        )
            .prop_map(
                |(symbol, fg, bg, underline, modifier, option, skip, none)| {
                    let mut cell = Cell::EMPTY;
                    if !(none && symbol == " ") {
                        cell.set_symbol(&symbol);
                    }
                    cell.fg = fg;
                    cell.bg = bg;
                    cell.underline_color = underline;
                    cell.modifier = Modifier::from_bits_truncate(modifier);
                    cell.diff_option = option;
                    cell.skip = skip;
                    cell
                },
            )
    }

    fn buffer() -> impl Strategy<Value = Buffer> {
        (1u16..9, 1u16..5, 0u16..3, 0u16..3).prop_flat_map(|(w, h, x, y)| {
            proptest::collection::vec(cell(), usize::from(w * h)).prop_map(move |cells| {
                let mut buffer = Buffer::empty(Rect::new(x, y, w, h));
                buffer.content = cells;
                buffer
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(8192))]
        /// For any buffer, the cells found are those ratatui's comparison with a blank buffer
        /// finds, at the same places and in the same order.
        #[test]
        fn the_cells_found_are_ratatuis(next in buffer()) {
            let blank = Buffer::empty(next.area);
            let theirs: Vec<(u16, u16, Cell)> =
                blank.diff(&next).into_iter().map(|(x, y, c)| (x, y, c.clone())).collect();
            let ours: Vec<(u16, u16, Cell)> =
                against_blank(&next).into_iter().map(|(x, y, c)| (x, y, c.clone())).collect();
            prop_assert_eq!(ours, theirs);
        }
    }

    /// The replay's first frame, drawn on a blank terminal, leaves the screen and the cursor
    /// as `Terminal::draw` leaves them, for every built-in story, at every size tried.
    #[test]
    fn the_first_frame_is_the_one_terminal_draw_draws() {
        use ratatui::Terminal;
        use ratatui::backend::{Backend, TestBackend};
        let theme = crate::tui::theme::Theme { color: true };
        for builtin in crate::scenario::library::BUILTIN {
            let scenario = match builtin.load() {
                Ok(s) => s,
                Err(e) => panic!("{}: {e}", builtin.name),
            };
            let app = match crate::tui::App::new(scenario, builtin.name.into()) {
                Ok(app) => app,
                Err(e) => panic!("{}: {e}", builtin.name),
            };
            for (w, h) in [(80, 24), (100, 30), (200, 50), (41, 13)] {
                let mut theirs = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
                let mut ours = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
                theirs
                    .draw(|f| crate::tui::view::draw(f, &app, &theme))
                    .expect("draws");
                super::draw_on_blank(&mut ours, |f| crate::tui::view::draw(f, &app, &theme))
                    .expect("draws");
                let what = format!("{} at {w}x{h}", builtin.name);
                assert_eq!(ours.backend().buffer(), theirs.backend().buffer(), "{what}");
                assert_eq!(
                    ours.backend_mut().get_cursor_position().ok(),
                    theirs.backend_mut().get_cursor_position().ok(),
                    "{what}"
                );
                // The next frame is found against this one, as after `Terminal::draw`.
                ours.draw(|f| crate::tui::view::draw(f, &app, &theme))
                    .expect("draws");
                theirs
                    .draw(|f| crate::tui::view::draw(f, &app, &theme))
                    .expect("draws");
                assert_eq!(ours.backend().buffer(), theirs.backend().buffer(), "{what}");
            }
        }
    }
}
