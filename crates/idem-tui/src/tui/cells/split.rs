//! Cutting an area into rows or columns without ratatui's constraint solver, for the one shape
//! of layout the screens use most: parts of fixed length around one part that takes the rest.

use ratatui::layout::{Constraint, Direction, Layout, Rect};

/// `area` cut along `direction` by `constraints`: what
/// `Layout::new(direction, constraints).areas(area)` gives, worked out by adding lengths when
/// every part is a `Length` but one `Min`, and there is room for them all. Any other layout,
/// or one with too little room, goes to `Layout` itself. The solver costs little once it has
/// met a layout (it keeps what it found), but meeting the screen's layouts for the first time
/// was most of the time the first frame took to draw.
pub(crate) fn split<const N: usize>(
    area: Rect,
    direction: Direction,
    constraints: [Constraint; N],
) -> [Rect; N] {
    let mut out = [Rect::default(); N];
    if cut(area, direction, &constraints, &mut out) {
        out
    } else {
        Layout::new(direction, constraints).areas(area)
    }
}

/// Fills `out` with the parts and says true when the layout is fixed lengths around one `Min`
/// with room for all; otherwise leaves it and says false.
fn cut(area: Rect, direction: Direction, constraints: &[Constraint], out: &mut [Rect]) -> bool {
    let mut fixed: u32 = 0;
    let mut grows = None;
    for (i, c) in constraints.iter().enumerate() {
        match *c {
            Constraint::Length(n) => fixed += u32::from(n),
            Constraint::Min(least) if grows.is_none() => grows = Some((i, least)),
            _ => return false,
        }
    }
    let Some((grower, least)) = grows else {
        return false;
    };
    let room = match direction {
        Direction::Vertical => area.height,
        Direction::Horizontal => area.width,
    };
    let Some(rest) = u32::from(room).checked_sub(fixed) else {
        return false;
    };
    // A rectangle that runs past the coordinates' end is left to `Layout`, which clips it.
    if area.x.checked_add(area.width).is_none() || area.y.checked_add(area.height).is_none() {
        return false;
    }
    if rest < u32::from(least) || out.len() != constraints.len() {
        return false;
    }
    let mut at = match direction {
        Direction::Vertical => area.y,
        Direction::Horizontal => area.x,
    };
    for (i, (c, slot)) in constraints.iter().zip(out.iter_mut()).enumerate() {
        let size = match *c {
            Constraint::Length(n) if i != grower => n,
            // `rest` is at most `room`, a u16.
            _ => u16::try_from(rest).unwrap_or(room),
        };
        *slot = match direction {
            Direction::Vertical => Rect {
                y: at,
                height: size,
                ..area
            },
            Direction::Horizontal => Rect {
                x: at,
                width: size,
                ..area
            },
        };
        at += size;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn constraint() -> impl Strategy<Value = Constraint> {
        prop_oneof![
            4 => (0u16..14).prop_map(Constraint::Length),
            1 => (0u16..12).prop_map(Constraint::Min),
            1 => (1u32..3, 2u32..5).prop_map(|(a, b)| Constraint::Ratio(a, b)),
        ]
    }

    /// A rectangle written out by hand can run past the coordinates' end, where `Rect::new`
    /// would clip it: `Layout` is given it.
    #[test]
    fn a_rectangle_past_the_end_is_left_to_the_solver() {
        let area = Rect {
            x: 0,
            y: 65235,
            width: 10,
            height: 301,
        };
        let parts = [Constraint::Length(1), Constraint::Min(0)];
        let want: [Rect; 2] = Layout::vertical(parts).areas(area);
        assert_eq!(split(area, Direction::Vertical, parts), want);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// Whatever the parts and however little the room, `split`'s sum gives what the
        /// solver gives; and it is the sum, not the solver, whenever one `Min` sits among
        /// lengths that fit.
        #[test]
        fn a_split_is_what_the_solver_gives(
            constraints in proptest::collection::vec(constraint(), 1..7),
            x in 0u16..6,
            y in 0u16..6,
            width in 0u16..48,
            height in 0u16..48,
            vertical in any::<bool>(),
        ) {
            let area = Rect::new(x, y, width, height);
            let direction = if vertical { Direction::Vertical } else { Direction::Horizontal };
            let want = Layout::new(direction, constraints.clone()).split(area);
            let mut got = vec![Rect::default(); constraints.len()];
            let summed = cut(area, direction, &constraints, &mut got);
            if summed {
                prop_assert_eq!(&got[..], &want[..]);
            }
            let mins = constraints.iter().filter(|c| matches!(c, Constraint::Min(_))).count();
            let only_lengths = constraints
                .iter()
                .all(|c| matches!(c, Constraint::Length(_) | Constraint::Min(_)));
            let need: u32 = constraints
                .iter()
                .map(|c| match c {
                    Constraint::Length(n) | Constraint::Min(n) => u32::from(*n),
                    _ => 0,
                })
                .sum();
            let room = u32::from(if vertical { height } else { width });
            prop_assert_eq!(summed, mins == 1 && only_lengths && need <= room);
        }
    }

    /// The screens' own layouts, at the sizes a terminal has, through the public function.
    #[test]
    fn the_screens_layouts_are_what_the_solver_gives() {
        for (w, h) in [(80, 24), (100, 30), (200, 50), (79, 23), (20, 5)] {
            let area = Rect::new(0, 0, w, h);
            let rows = [
                Constraint::Length(2),
                Constraint::Length(1),
                Constraint::Min(8),
                Constraint::Length(7),
                Constraint::Length(3),
                Constraint::Length(2),
            ];
            let want: [Rect; 6] = Layout::vertical(rows).areas(area);
            assert_eq!(split(area, Direction::Vertical, rows), want, "{w}x{h}");
            let columns = [Constraint::Min(40), Constraint::Length(46)];
            let want: [Rect; 2] = Layout::horizontal(columns).areas(area);
            assert_eq!(split(area, Direction::Horizontal, columns), want, "{w}x{h}");
        }
    }
}
