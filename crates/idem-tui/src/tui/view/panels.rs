//! The side panels: processor memory, ledger, card statement, and the checkout and counters.
//! Whatever changed at the current tick is highlighted, found by comparing with the tick before.

use super::fit;
use crate::replay::app::App;
use crate::sim::state::{Counters, EntryKind, MemoryEntry, Snapshot, StatementLine};
use crate::sim::{Instant, Trace};
use crate::tui::theme::Theme;
use crate::units::duration_ms;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::sync::Arc;

/// The fewest rows the side panels need so that no charge or refund on the statement is cut:
/// the statement box (ledger folded in), a row of processor memory and a row of counters.
pub fn least_height(app: &App) -> u16 {
    let state = app.trace().ticks.get(app.place.tick).map(|t| &t.state);
    let lines = state.map_or(0, |s| s.ledger().len() + s.refunds().len()) as u16;
    // The statement's lines and its total, in a box; a box of memory, a box of counters.
    (lines + 1 + 2) + 3 + 3
}

pub fn panels(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let trace = app.trace();
    let Some(tick) = trace.ticks.get(app.place.tick) else {
        return;
    };
    let now = &tick.state;
    // The first tick is compared with itself: nothing has changed before the story starts.
    let before = app
        .place
        .tick
        .checked_sub(1)
        .and_then(|i| trace.ticks.get(i))
        .map_or(now, |t| &t.state);
    let width = area.width.saturating_sub(2) as usize;
    let memory = memory_lines(now, before, tick.at, width, theme);
    let ledger = ledger_lines(now, before, trace, width, theme);
    let statement = statement_lines(now, before, app, width, theme);
    let counters = counter_lines(now, before, app.withheld().shows_memory(), width, theme);
    let counter_h = (counters.len() + 2) as u16;
    let ledger_h = (ledger.len() + 2) as u16;
    let statement_h = (statement.len() + 2) as u16;
    // The money panels come first: the memory box gives up rows before a charge is hidden,
    // and on a short screen the ledger folds into the statement, which lists the same charges.
    let compact = area.height < counter_h + ledger_h + statement_h + 4;
    // Money is never cut: the counters give up rows before the statement does.
    let ledger_rows = if compact { 0 } else { ledger_h };
    let counter_rows = counter_h.min(
        area.height
            .saturating_sub(3 + ledger_rows + statement_h)
            .max(3),
    );
    let [mem_area, ledger_area, statement_area, counter_area] = super::split::split(
        area,
        Direction::Vertical,
        [
            Constraint::Min(3),
            Constraint::Length(ledger_rows),
            Constraint::Length(statement_h),
            Constraint::Length(counter_rows),
        ],
    );
    let statement = if compact {
        statement_lines_with_ids(now, before, app, width, theme)
    } else {
        statement
    };
    let withheld = app.withheld();
    if withheld.shows_memory() {
        memory_boxes(frame, mem_area, app, (now, before), (memory, width), theme);
    } else {
        // A question is open: the memory, and whether the processor is up, may answer it.
        let title = " Memory · kept back until the answer ";
        boxed(frame, mem_area, title, false, Vec::new(), theme);
    }
    let (ledger, statement) = if withheld.shows_statement() {
        (ledger, statement)
    } else {
        let line = || {
            vec![Line::styled(
                fit("hidden until the reveal", width),
                theme.dim(),
            )]
        };
        (line(), line())
    };
    if !compact {
        boxed(
            frame,
            ledger_area,
            " Ledger ",
            now.ledger() != before.ledger() || now.refunds().len() != before.refunds().len(),
            ledger,
            theme,
        );
    }
    boxed(
        frame,
        statement_area,
        if compact {
            " Ledger → card statement "
        } else {
            " Card statement "
        },
        now.ledger().len() != before.ledger().len()
            || now.refunds().len() != before.refunds().len(),
        statement,
        theme,
    );
    boxed(
        frame,
        counter_area,
        " Checkout & counters ",
        now.counters != before.counters || !now.same_clients(before),
        counters,
        theme,
    );
}

/// The processor's memory (and the services' under it, sharing its room), up or down.
fn memory_boxes(
    frame: &mut Frame<'_>,
    mem_area: Rect,
    app: &App,
    (now, before): (&Snapshot, &Snapshot),
    (memory, width): (Vec<Line<'static>>, usize),
    theme: &Theme,
) {
    let trace = app.trace();
    let up = if now.processor_up { "up" } else { "DOWN" };
    let mem_title = format!(" Processor memory · {up} ");
    let changed_memory =
        !same(&now.memory, &before.memory) || now.processor_up != before.processor_up;
    // The downstream services' memory sits under the processor's, sharing its room; where
    // there is room for one box only, the services take it once the shop has called them,
    // and the title says the processor's memory is hidden.
    let mut mem_area = mem_area;
    if !now.services.is_empty() {
        let services = service_lines(now, before, width, theme);
        let changed = !Arc::ptr_eq(&now.services, &before.services);
        if mem_area.height >= 6 {
            let want = services.len() as u16 + 2;
            let [top, service_area] = super::split::split(
                mem_area,
                Direction::Vertical,
                [
                    Constraint::Min(3),
                    Constraint::Length(want.min(mem_area.height - 3)),
                ],
            );
            boxed(
                frame,
                service_area,
                " Services after payment ",
                changed,
                services,
                theme,
            );
            mem_area = top;
        } else if called_yet(trace, app.place.tick) {
            // One row: how many times each service did its work, which is the lesson.
            let summary: Vec<String> = now
                .services
                .iter()
                .map(|s| format!("{} {}", s.service.key_suffix(), s.effects.len()))
                .collect();
            let line = Line::styled(fit(summary.join(" · "), width), highlight(changed, theme));
            let title = " Services · processor hidden ";
            boxed(frame, mem_area, title, changed, vec![line], theme);
            mem_area = Rect::default();
        }
    }
    if !mem_area.is_empty() {
        boxed(frame, mem_area, &mem_title, changed_memory, memory, theme);
    }
}

/// Whether the shop has called a downstream service by tick `at`.
fn called_yet(trace: &Trace, at: usize) -> bool {
    trace.ticks[..=at.min(trace.ticks.len().saturating_sub(1))]
        .iter()
        .any(|t| matches!(t.fact, crate::sim::Fact::CallSent { .. }))
}

/// Each downstream service: how many times it did its work, and the keys it stores.
fn service_lines(
    now: &Snapshot,
    before: &Snapshot,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (i, s) in now.services.iter().enumerate() {
        let old = before.services.get(i);
        let (name, noun) = (s.service.id(), crate::story::service_words(s.service).noun);
        let count = s.effects.len();
        let style = highlight(old.is_none_or(|o| o.effects.len() != count), theme);
        let noun = if count == 1 {
            noun.to_string()
        } else {
            format!("{noun}s")
        };
        // An order served more than once is the lesson: the line says so.
        let most = s
            .effects
            .iter()
            .map(|e| s.effects_for(e.intent))
            .max()
            .unwrap_or(0);
        let repeated = if most > 1 {
            format!(" · {most}× one order")
        } else {
            String::new()
        };
        lines.push(Line::styled(
            fit(format!("{name}: {count} {noun}{repeated}"), width),
            style,
        ));
        if s.memory.is_empty() {
            lines.push(Line::styled(fit("  no keys stored", width), theme.dim()));
        }
        for e in &s.memory {
            let new = old.is_none_or(|o| !o.memory.iter().any(|m| m.key == e.key));
            lines.push(Line::styled(
                fit(format!("  {} → #{}", e.key, e.effect), width),
                highlight(new, theme),
            ));
        }
    }
    lines
}

/// Whether a shared list is unchanged: the same nodes, or (for lists small enough to be held
/// inline, which have no nodes to compare) the same values.
fn same<T: PartialEq>(a: &crate::sim::state::Shared<T>, b: &crate::sim::state::Shared<T>) -> bool {
    a.ptr_eq(b) || a == b
}

fn boxed(
    frame: &mut Frame<'_>,
    area: Rect,
    title: &str,
    changed: bool,
    lines: Vec<Line<'static>>,
    theme: &Theme,
) {
    let title_style = if changed {
        theme.changed()
    } else {
        theme.bold()
    };
    let marker = if changed {
        format!("{title}● ")
    } else {
        title.to_string()
    };
    // Rows that do not fit are counted on the last row that does, so nothing disappears
    // without a sign.
    let rows = usize::from(area.height.saturating_sub(2));
    let width = usize::from(area.width.saturating_sub(2));
    let mut lines = lines;
    if rows > 1 && lines.len() > rows {
        let hidden = lines.len() - (rows - 1);
        lines.truncate(rows - 1);
        lines.push(Line::styled(
            format!(
                "… {hidden} more {}",
                if hidden == 1 { "line" } else { "lines" }
            ),
            theme.dim(),
        ));
    } else if rows == 1 && lines.len() > 1 {
        // One row: the first line keeps what fits, and says how many follow it.
        let suffix = format!(" +{} more", lines.len() - 1);
        let text: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
        let style = lines[0].style;
        lines = vec![Line::from(vec![
            Span::styled(
                fit(text, width.saturating_sub(suffix.chars().count())),
                style,
            ),
            Span::styled(suffix, theme.dim()),
        ])];
    }
    let inner = super::outline(frame.buffer_mut(), area, &marker, title_style);
    super::rows(frame.buffer_mut(), inner, lines);
}

fn highlight(changed: bool, theme: &Theme) -> Style {
    if changed {
        theme.changed()
    } else {
        Style::new()
    }
}

fn memory_lines(
    now: &Snapshot,
    before: &Snapshot,
    at: Instant,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    if now.memory.is_empty() {
        return vec![Line::styled(fit("nothing remembered", width), theme.dim())];
    }
    let mut lines = Vec::new();
    for e in now.memory.iter() {
        let changed = !before.memory.iter().any(|b| b == e);
        let style = highlight(changed, theme);
        let what = match e.kind {
            EntryKind::KeyRecord => "key",
            EntryKind::LogEntry => "log",
            EntryKind::BodyHash => "body hash",
            EntryKind::Record => "record",
        };
        let durable = if e.durable() { "" } else { " (memory only)" };
        let answer = e
            .response
            .as_ref()
            .map_or(String::new(), |r| format!(" → {} {}", r.status, r.body));
        let head = format!("{what} {} · {}{durable}{answer}", e.key, e.status.label());
        lines.extend(wrapped(&head, width, (0, 2), style.patch(theme.bold())));
        lines.extend(wrapped(&detail(e, at), width, (2, 4), style));
    }
    lines
}

/// `text` on as many lines as it needs, the first indented by `indent.0` spaces and the rest
/// by `indent.1`.
fn wrapped(text: &str, width: usize, indent: (usize, usize), style: Style) -> Vec<Line<'static>> {
    crate::text::wrap(text, width.saturating_sub(indent.1).max(1))
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            let pad = if i == 0 { indent.0 } else { indent.1 };
            Line::styled(fit(format!("{:pad$}{line}", ""), width), style)
        })
        .collect()
}

fn detail(e: &MemoryEntry, at: Instant) -> String {
    let mut parts = Vec::new();
    if let Some(fp) = &e.fingerprint {
        parts.push(format!("fp {fp}"));
    }
    if let Some(t) = e.expires_at {
        parts.push(format!(
            "expires in {}",
            duration_ms(t.0.saturating_sub(at.0))
        ));
    }
    parts.push(e.written_by.to_string());
    parts.join(" · ")
}

fn ledger_lines(
    now: &Snapshot,
    before: &Snapshot,
    trace: &Trace,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    if now.ledger().is_empty() {
        return vec![Line::styled(fit("no charges", width), theme.dim())];
    }
    now.ledger()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let key = c
                .key
                .as_deref()
                .map_or("no key".to_string(), |k| format!("key {k}"));
            let text = format!(
                "{} {} {key} #{} {}",
                c.id,
                c.amount,
                c.attempt,
                trace.clock.format_short(c.at)
            );
            Line::styled(
                fit(text, width),
                highlight(i >= before.ledger().len(), theme),
            )
        })
        .chain(now.refunds().iter().enumerate().map(|(i, r)| {
            let text = format!(
                "refund {} −{} {}",
                r.charge,
                r.amount,
                trace.clock.format_short(r.at)
            );
            Line::styled(
                fit(text, width),
                highlight(i >= before.refunds().len(), theme),
            )
        }))
        .collect()
}

/// The statement with each line's charge id, for when the ledger box has no room.
fn statement_lines_with_ids(
    now: &Snapshot,
    before: &Snapshot,
    app: &App,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    if now.ledger().is_empty() {
        return vec![Line::styled(fit("no charges", width), theme.dim())];
    }
    let trace = app.trace();
    let mut lines: Vec<Line<'static>> = now
        .ledger()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let key = c.key.as_deref().unwrap_or("no key");
            // The amount comes before anything that may be cut: money is never cut.
            let text = format!(
                "{} {} {key} {}",
                c.id,
                c.amount,
                trace.clock.format_short(c.at)
            );
            Line::styled(
                fit(text, width),
                highlight(i >= before.ledger().len(), theme).patch(theme.money()),
            )
        })
        .collect();
    lines.extend(now.refunds().iter().enumerate().map(|(i, r)| {
        let text = format!(
            "refund {} −{} {}",
            r.charge,
            r.amount,
            trace.clock.format_short(r.at)
        );
        Line::styled(
            fit(text, width),
            highlight(i >= before.refunds().len(), theme).patch(theme.money()),
        )
    }));
    lines.push(total_line(now, width, theme));
    lines
}

fn total_line(now: &Snapshot, width: usize, theme: &Theme) -> Line<'static> {
    Line::styled(fit(statement_total(now), width), theme.bold())
}

/// The card statement's lines and what they add up to, refunds taken off: the one wording
/// the panel and the presenter's money line both show.
pub(super) fn statement_total(now: &Snapshot) -> String {
    let count = now.ledger().len() + now.refunds().len();
    let plural = if count == 1 { "" } else { "s" };
    if now.refunds().is_empty() {
        format!("{count} line{plural} · total {}", now.charged_total())
    } else {
        format!("{count} line{plural} · net {}", now.net_total())
    }
}

fn statement_lines(
    now: &Snapshot,
    before: &Snapshot,
    app: &App,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let merchant = &app.version.scenario().config.merchant;
    let trace = app.trace();
    let mut lines: Vec<Line<'static>> = now
        .statement_lines()
        .into_iter()
        .map(|line| {
            // A statement shows the second, not the millisecond.
            let full = trace.clock.format_short(line.at());
            let day = full.split('.').next().unwrap_or(&full).to_string();
            let (name, amount, new) = match line {
                StatementLine::Charge(c) => (
                    merchant.to_string(),
                    c.amount.to_string(),
                    c.id.0 as usize > before.ledger().len(),
                ),
                StatementLine::Refund(r) => (
                    format!("refund {merchant}"),
                    format!("−{}", r.amount),
                    !before.refunds().iter().any(|b| b.charge == r.charge),
                ),
            };
            let name_room = width.saturating_sub(day.len() + amount.chars().count() + 2);
            let text = format!("{day} {:<name_room$} {amount}", fit(&name, name_room));
            Line::styled(fit(text, width), highlight(new, theme).patch(theme.money()))
        })
        .collect();
    if lines.is_empty() {
        lines.push(Line::styled(
            fit("no charges from this shop", width),
            theme.dim(),
        ));
    } else {
        lines.push(total_line(now, width, theme));
    }
    lines
}

fn counter_lines(
    now: &Snapshot,
    before: &Snapshot,
    store_shown: bool,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines: Vec<Line<'static>> = now
        .clients()
        .iter()
        .zip(
            before
                .clients()
                .iter()
                .map(Some)
                .chain(std::iter::repeat(None)),
        )
        .map(|(c, b)| {
            let changed = b != Some(c);
            Line::from(vec![
                Span::raw(fit(format!("order {}: ", c.order), width / 2)),
                Span::styled(
                    c.belief.label().to_string(),
                    highlight(changed, theme).patch(theme.bold()),
                ),
                Span::raw(format!(" · {} sent", c.attempts_sent)),
            ])
        })
        .collect();
    let Counters {
        attempts_sent,
        requests_received,
        dedupe_hits,
        conflicts_409,
        mismatches_422,
        keys_stored,
        keys_evicted,
        refusals_400,
        ..
    } = now.counters;
    let b = before.counters;
    let items = [
        ("sent", attempts_sent, b.attempts_sent),
        ("received", requests_received, b.requests_received),
        ("dedupe hits", dedupe_hits, b.dedupe_hits),
        ("409", conflicts_409, b.conflicts_409),
        ("422", mismatches_422, b.mismatches_422),
        // 400 refusals are rare (no key, a body already charged): counted once one comes, so
        // the panel keeps its room at 80 columns for the store's counters.
        ("400", refusals_400, b.refusals_400),
        ("stored", keys_stored, b.keys_stored),
        ("evicted", keys_evicted, b.keys_evicted),
        // What the store holds now, beside what it has stored and evicted over the run.
        ("held", now.memory.len() as u32, before.memory.len() as u32),
    ];
    // Fill lines greedily, so a narrow panel wraps instead of cutting a counter in half.
    let mut line: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for (name, value, old) in items {
        if name == "400" && value == 0 {
            continue;
        }
        // What the store holds is memory, kept back with it while a question is open.
        if !store_shown && matches!(name, "stored" | "evicted" | "held") {
            continue;
        }
        let text = format!("{name} {value}");
        let need = text.chars().count() + if used == 0 { 0 } else { 2 };
        if used > 0 && used + need > width {
            lines.push(Line::from(std::mem::take(&mut line)));
            used = 0;
        }
        if used > 0 {
            line.push(Span::raw("  "));
        }
        used += text.chars().count() + if used == 0 { 0 } else { 2 };
        line.push(Span::raw(format!("{name} ")));
        line.push(Span::styled(
            value.to_string(),
            highlight(value != old, theme).patch(theme.bold()),
        ));
    }
    if !line.is_empty() {
        lines.push(Line::from(line));
    }
    lines
}
