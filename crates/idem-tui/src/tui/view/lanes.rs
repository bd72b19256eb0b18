//! The timeline as a sequence diagram: a column per lane, a row per tick, arrows for messages.
//! Ticks after the current one are not drawn, so the room cannot read ahead.

use super::fit;
use crate::replay::app::App;
use crate::scenario::LaneNames;
use crate::sim::trace::{Fate, Message};
use crate::sim::{Actor, Tick, TickKind, Trace};
use crate::story::Told;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

use unicode_width::UnicodeWidthStr;

/// The mark a tick leaves on its lane: each kind of event has its own.
pub fn mark(kind: TickKind) -> &'static str {
    match kind {
        TickKind::Pay | TickKind::Receive | TickKind::Answer => "●",
        TickKind::Send | TickKind::Call | TickKind::Reply => "→",
        TickKind::Lost | TickKind::Unanswered => "✗",
        TickKind::Delayed => "⧗",
        TickKind::Duplicated => "⧉",
        TickKind::Charge => "$",
        TickKind::Effect => "✦",
        TickKind::KeyWrite => "✎",
        TickKind::Decline | TickKind::Reject => "⊘",
        TickKind::Replay => "⟲",
        TickKind::Conflict => "◔",
        TickKind::Mismatch => "≠",
        TickKind::Dropped => "∅",
        TickKind::Timeout => "◷",
        TickKind::Lookup => "⌕",
        TickKind::GiveUp => "?",
        TickKind::Crash => "✸",
        TickKind::Restart => "↻",
        TickKind::Expire => "⌫",
        TickKind::Rerun => "↺",
        TickKind::Reconcile => "⇄",
        TickKind::Refund => "↩",
        TickKind::MarkPaid => "✓",
        TickKind::Alert => "!",
        TickKind::Statement => "≡",
    }
}

/// One lane of the diagram: an actor's, or, when the checkout's layers are drawn apart, one
/// layer's (0 the innermost, which sends the requests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lane {
    Actor(Actor),
    Layer(usize),
}

/// Where the lanes sit inside the diagram area.
struct Lanes<'a> {
    /// The names over the lanes, and which layers are drawn apart.
    names: &'a LaneNames,
    left: u16,
    width: u16,
    /// The downstream services the story calls, left to right after the processor.
    services: Vec<Actor>,
}

impl Lanes<'_> {
    /// The customer's lane is narrow (it acts twice); the others share the rest, so the
    /// charge request between checkout and processor has room for its label. Downstream
    /// services, when the story has any, take the right-hand part; the checkout's layers,
    /// drawn apart, share the checkout's part, outermost on the left.
    fn x(&self, lane: Lane) -> u16 {
        let plain = self.services.is_empty();
        let layers = self.layers();
        let per_mille: u32 = match lane {
            Lane::Layer(layer) if layers > 1 => {
                let (from, to) = if plain { (190, 470) } else { (120, 300) };
                let from_left = (layers - 1 - layer.min(layers - 1)) as u32;
                from + (to - from) * from_left / (layers as u32 - 1)
            }
            Lane::Layer(_) => return self.x(Lane::Actor(Actor::Checkout)),
            Lane::Actor(actor) => match (plain, layers > 1, actor) {
                (true, false, Actor::Customer) => 70,
                (true, false, Actor::Checkout) => 350,
                (true, false, Actor::Network) => 640,
                (true, true, Actor::Customer) => 60,
                (true, true, Actor::Checkout) => 470,
                (true, true, Actor::Network) => 690,
                (true, _, _) => 930,
                (false, _, Actor::Customer) => 40,
                (false, false, Actor::Checkout) => 230,
                (false, true, Actor::Checkout) => 300,
                (false, _, Actor::Network) => 430,
                (false, _, Actor::Processor) => 610,
                (false, _, service) => {
                    let i = self
                        .services
                        .iter()
                        .position(|a| *a == service)
                        .unwrap_or(0) as u32;
                    let n = self.services.len() as u32;
                    // Spread over 730..=960.
                    730 + 230 * (2 * i + 1) / (2 * n)
                }
            },
        };
        self.left + (u32::from(self.width) * per_mille / 1000) as u16
    }

    /// The checkout's layers drawn as lanes of their own; 0 when the checkout is one lane.
    fn layers(&self) -> usize {
        self.names.layers.len()
    }

    fn center(&self, actor: Actor) -> u16 {
        self.x(Lane::Actor(actor))
    }

    /// Every lane, left to right.
    fn all(&self) -> Vec<Lane> {
        let mut lanes = vec![Lane::Actor(Actor::Customer)];
        if self.layers() > 1 {
            lanes.extend((0..self.layers()).rev().map(Lane::Layer));
        } else {
            lanes.push(Lane::Actor(Actor::Checkout));
        }
        lanes.extend(
            [Actor::Network, Actor::Processor]
                .into_iter()
                .chain(self.services.iter().copied())
                .map(Lane::Actor),
        );
        lanes
    }

    /// The lane a tick's `actor` stands on: a checkout tick on its layer's lane when the
    /// layers are drawn apart.
    fn of(&self, actor: Actor, tick: &Tick) -> Lane {
        match self.names.layer_of(tick) {
            Some(layer) if actor == Actor::Checkout => Lane::Layer(layer),
            _ => Lane::Actor(actor),
        }
    }
}

/// `mm:ss.mmm`, the time column with its day and hour left out.
const COMPACT_TIME: u16 = 9;

/// The day and hour every tick from `start` to `last` shares (`14:`, `day 2 02:`), if they share
/// one.
fn shared_prefix(trace: &Trace, start: usize, last: usize) -> Option<String> {
    let cut = |t: &str| t.len().checked_sub(usize::from(COMPACT_TIME));
    let first = trace.format_time(trace.ticks.get(start)?.at);
    let prefix = first[..cut(&first)?].to_string();
    trace.ticks[start..=last]
        .iter()
        .all(|t| {
            trace
                .format_time(t.at)
                .strip_prefix(prefix.as_str())
                .is_some_and(|r| r.len() == usize::from(COMPACT_TIME))
        })
        .then_some(prefix)
}

/// The lanes of the downstream services a trace's story calls, in its order of steps.
fn service_lanes(trace: &Trace) -> Vec<Actor> {
    trace.ticks.first().map_or_else(Vec::new, |t| {
        t.state
            .services
            .iter()
            .map(|s| Actor::of(s.service))
            .collect()
    })
}

pub fn timeline(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) -> Vec<(Rect, usize)> {
    // Rows scrolled off the top are counted in the title. Later ticks are not hidden rows:
    // the room is not shown what has not happened yet.
    let rows = usize::from(area.height.saturating_sub(3));
    let earlier = crate::replay::repeats::visible(app.folds(), app.place.tick, rows).1;
    let title = match earlier {
        0 => " Timeline ".to_string(),
        n => format!(" Timeline · ↑ {n} earlier "),
    };
    let inner = super::outline(frame.buffer_mut(), area, &title, theme.bold());
    app_rows(frame, inner, app, theme)
}

/// The app's story in `inner`: its rows up to the current tick, and where each went, for a
/// click to find.
pub fn app_rows(
    frame: &mut Frame<'_>,
    inner: Rect,
    app: &App,
    theme: &Theme,
) -> Vec<(Rect, usize)> {
    render_rows(
        frame.buffer_mut(),
        inner,
        app.trace(),
        app.told(),
        (&app.version.scenario().lanes, app.withheld()),
        (app.place.tick, app.folds()),
        theme,
    )
}

/// Draws the lane header and the rows up to `current`, scrolled so `current` is visible;
/// the runs of repeated attempts given (none unless folding is on) take a row each;
/// returns where each row went, with its tick.
pub fn render_rows(
    buf: &mut Buffer,
    inner: Rect,
    trace: &Trace,
    told: &Told,
    (names, withheld): (&LaneNames, crate::present::Withheld),
    (current, folds): (usize, &[crate::replay::repeats::Run]),
    theme: &Theme,
) -> Vec<(Rect, usize)> {
    if inner.height < 2 || inner.width < 30 {
        return Vec::new();
    }
    let rows = (inner.height - 1) as usize;
    let last = current.min(trace.ticks.len().saturating_sub(1));
    let plan = crate::replay::repeats::visible(folds, last, rows).0;
    let start = match plan.first() {
        Some(crate::replay::repeats::Row::Tick(i)) => *i,
        _ => (current + 1).saturating_sub(rows),
    };
    let full_width = trace
        .ticks
        .iter()
        .map(|t| trace.format_time(t.at).len() as u16)
        .max()
        .unwrap_or(12);
    // On a narrow screen the time column gives up its repeated part first, so the arrows keep
    // their words: when every row shown shares its day and hour, the rows show minutes,
    // seconds and milliseconds, and the shared part stands once above them.
    let shared = (inner.width.saturating_sub(full_width + 1) < 48)
        .then(|| shared_prefix(trace, start, last))
        .flatten();
    let time_width = match &shared {
        Some(_) => COMPACT_TIME,
        None => full_width,
    };
    let lanes = Lanes {
        names,
        left: inner.x + time_width + 1,
        width: inner.width.saturating_sub(time_width + 1),
        services: service_lanes(trace),
    };
    if let Some(prefix) = &shared {
        write(
            buf,
            inner.x,
            inner.y,
            fit(prefix, usize::from(time_width)),
            theme.dim(),
        );
    }
    // Full lane names where they fit, short ones on a narrow screen, and for services packed
    // close together, their initials.
    let short = lanes.width < if lanes.services.is_empty() { 56 } else { 100 };
    let service_gap = match lanes.services.as_slice() {
        [a, b, ..] => lanes.center(*b).saturating_sub(lanes.center(*a)),
        _ => u16::MAX,
    };
    let all = lanes.all();
    // Where the name drawn last ends: a name never starts over the one before it.
    let mut free = lanes.left;
    for (i, &lane) in all.iter().enumerate() {
        let (full, brief) = match lane {
            Lane::Layer(layer) => {
                let name = names.layers.get(layer).cloned().unwrap_or_default();
                let first = name.split_whitespace().next().unwrap_or("").to_string();
                (name, first)
            }
            Lane::Actor(actor) if Actor::ALL.contains(&actor) || service_gap > 5 => (
                names.of(actor).to_string(),
                names.short(actor, short_name(actor)),
            ),
            Lane::Actor(actor) => (names.of(actor).to_string(), actor.name()[..1].to_string()),
        };
        // The room a name has: up to halfway to the next lane, or to the right edge.
        let center = lanes.x(lane);
        let right = all.get(i + 1).map_or(inner.x + inner.width, |next| {
            center + (lanes.x(*next) - center) / 2
        });
        // Centred over the lane, or moved left as far as the name before it allows, so it
        // ends inside its room.
        let place = |name: &str| {
            let width = name.width() as u16;
            center
                .saturating_sub(width / 2)
                .min(right.saturating_sub(width))
                .max(free)
        };
        let fits = |name: &str| place(name) + name.width() as u16 <= right;
        let name = if !short && fits(&full) { full } else { brief };
        let x = place(&name);
        let room = usize::from(right.max(x + 1) - x);
        let shown = fit(&name, room);
        free = x + shown.width() as u16 + 1;
        write(buf, x, inner.y, shown, theme.bold());
    }
    let mut drawn = Vec::with_capacity(plan.len());
    for (row, planned) in plan.iter().enumerate() {
        let y = inner.y + 1 + row as u16;
        let index = match planned {
            crate::replay::repeats::Row::Tick(i) => *i,
            folded => {
                // Repeated attempts, one row: said once, dimmed, across the lanes. A click
                // on it goes back to the first tick it stands for, where it unfolds.
                let words = folded.words().unwrap_or_default();
                write(
                    buf,
                    lanes.left,
                    y,
                    fit(format!("⋮ {words}"), usize::from(lanes.width)),
                    theme.dim(),
                );
                if let crate::replay::repeats::Row::Folded { first, .. } = folded {
                    drawn.push((Rect::new(inner.x, y, inner.width, 1), *first));
                }
                continue;
            }
        };
        let tick = &trace.ticks[index];
        let style = if index == current {
            theme.current()
        } else {
            Style::new()
        };
        if index == current {
            buf.set_style(Rect::new(inner.x, y, inner.width, 1), style);
        }
        for &lane in &all {
            super::put(buf, lanes.x(lane), y, "│", theme.lane().patch(style));
        }
        let time = trace.format_time(tick.at);
        let time = match &shared {
            Some(prefix) => &time[prefix.len()..],
            None => &time[..],
        };
        write(buf, inner.x, y, time, theme.dim().patch(style));
        let label = withheld.label(tick.kind, &told.labels[index]);
        let words = Words {
            label: label.as_str(),
            arrow: told.arrows[index].as_deref(),
            shorter: told.arrows_short.get(index).map_or(&[][..], Vec::as_slice),
            lost: told
                .lost_later
                .get(index)
                .copied()
                .flatten()
                .map(|at| at <= current),
        };
        draw_tick(buf, &lanes, y, tick, &words, style, theme);
        drawn.push((Rect::new(inner.x, y, inner.width, 1), index));
    }
    drawn
}

/// The words of one row: the tick's label, its arrow's label, and shorter forms of that.
struct Words<'a> {
    label: &'a str,
    arrow: Option<&'a str>,
    shorter: &'a [String],
    /// For a message the network loses further on: whether the replay has reached the loss
    /// (`true`: drawn cut there) or not yet (`false`: heading for the network, its end untold).
    lost: Option<bool>,
}

impl Words<'_> {
    /// The longest form of the arrow's label that fits in `room` columns (padding included),
    /// cut with a mark only when even the shortest does not.
    fn arrow_fitting(&self, room: usize) -> String {
        let full = self.arrow.unwrap_or(self.label);
        let forms = || std::iter::once(full).chain(self.shorter.iter().map(String::as_str));
        if let Some(l) = forms().find(|l| l.width() + 2 <= room) {
            return format!(" {l} ");
        }
        // Tight: the words without the spaces around them, before anything is cut.
        if let Some(l) = forms().find(|l| l.width() <= room) {
            return l.to_string();
        }
        let last = self.shorter.last().map_or(full, String::as_str);
        fit(last, room)
    }
}

/// Draws one tick's row: an arrow with its label, or the tick's mark on its lane with the
/// tick's label beside it.
fn draw_tick(
    buf: &mut Buffer,
    lanes: &Lanes,
    y: u16,
    tick: &Tick,
    words: &Words<'_>,
    row: Style,
    theme: &Theme,
) {
    match &tick.message {
        Some(m) => {
            // A message the network loses further on heads for the network, its end untold
            // until the loss is on screen; from then on its send row is drawn cut there too.
            let m = match words.lost {
                Some(true) => Message {
                    fate: Fate::Lost,
                    ..*m
                },
                _ => *m,
            };
            draw_arrow(buf, lanes, y, &m, words, tick, row, theme)
        }
        None => {
            let x = lanes.x(lanes.of(tick.actor, tick));
            let mark_style = match tick.kind {
                TickKind::Crash | TickKind::Lost => theme.lost(),
                TickKind::Charge => theme.money(),
                _ => theme.bold(),
            }
            .patch(row);
            write(buf, x, y, mark(tick.kind), mark_style);
            let label = words.label;
            let room_right = (lanes.left + lanes.width).saturating_sub(x + 2) as usize;
            let room_left = x.saturating_sub(lanes.left + 1) as usize;
            let text_style = theme.text().patch(row);
            if label.width() <= room_right || room_right >= room_left {
                write(buf, x + 2, y, fit(label, room_right), text_style);
            } else {
                let text = fit(label, room_left);
                let start = x.saturating_sub(text.width() as u16 + 1);
                write(buf, start, y, text, text_style);
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn draw_arrow(
    buf: &mut Buffer,
    lanes: &Lanes,
    y: u16,
    m: &Message,
    words: &Words<'_>,
    tick: &Tick,
    row: Style,
    theme: &Theme,
) {
    let kind = tick.kind;
    let from = lanes.x(lanes.of(m.from, tick));
    // A lost message is cut where the network lost it; one it will lose stops there.
    let heading_out = words.lost == Some(false);
    let to = match m.fate {
        Fate::Lost => lanes.center(Actor::Network),
        _ if heading_out => lanes.center(Actor::Network),
        _ => lanes.x(lanes.of(m.to, tick)),
    };
    let (lo, hi) = (from.min(to), from.max(to));
    let rightward = to > from;
    let line_style = match m.fate {
        Fate::Lost | Fate::Unanswered => theme.lost(),
        Fate::Sent => theme.bold(),
    }
    .patch(row);
    for x in lo..=hi {
        super::put(buf, x, y, "─", line_style);
    }
    let head = match (m.fate, rightward) {
        (Fate::Lost | Fate::Unanswered, _) => "✗",
        // Heading out: no head, for nobody knows yet where it ends.
        (Fate::Sent, _) if heading_out => "─",
        (Fate::Sent, true) => "▶",
        (Fate::Sent, false) => "◀",
    };
    write(buf, to, y, head, line_style);
    write(buf, from, y, mark_at_sender(kind), line_style);
    let room = (hi - lo).saturating_sub(3) as usize;
    let label = words.arrow_fitting(room);
    let text_style = theme.text().patch(row).patch(theme.bold());
    // A cut arrow whose words need more room than its stretch gets them past the cut, on
    // the side it was heading to, where the row is empty.
    if m.fate == Fate::Lost && label.trim_end().ends_with('…') {
        let dest = lanes.x(lanes.of(m.to, tick));
        let beyond = if rightward {
            dest.saturating_sub(to + 2)
        } else {
            to.saturating_sub(dest + 2)
        } as usize;
        let there = words.arrow_fitting(beyond);
        if !there.trim_end().ends_with('…') || beyond > room {
            let width = there.width() as u16;
            let start = if rightward {
                to + 1
            } else {
                to.saturating_sub(width)
            };
            write(buf, start, y, there, text_style);
            return;
        }
    }
    let start = lo
        + 2
        + (hi - lo)
            .saturating_sub(3)
            .saturating_sub(label.width() as u16)
            / 2;
    write(buf, start, y, label, text_style);
}

/// Writes `text` from `(x, y)` as `Buffer::set_string` does, printable ASCII a byte a cell.
fn write(buf: &mut Buffer, x: u16, y: u16, text: impl AsRef<str>, style: Style) {
    super::text_at(buf, x, y, text.as_ref(), usize::MAX, style);
}

fn short_name(actor: Actor) -> &'static str {
    match actor {
        Actor::Customer => "Cust",
        Actor::Checkout => "Checkout",
        Actor::Network => "Net",
        Actor::Processor => "Proc",
        Actor::Warehouse => "Ware",
        Actor::Mailer => "Mail",
        Actor::Courier => "Cour",
    }
}

fn mark_at_sender(kind: TickKind) -> &'static str {
    match kind {
        TickKind::Send
        | TickKind::Call
        | TickKind::Reply
        | TickKind::Lost
        | TickKind::Unanswered => "├",
        other => mark(other),
    }
}
