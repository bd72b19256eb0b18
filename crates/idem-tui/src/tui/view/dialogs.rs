//! The dialogs drawn over the replay: the scenario picker and the save prompt.

use super::fit;
use crate::replay::app::{App, SavePrompt};
use crate::replay::dialog::Open;
use crate::replay::msg::Msg;
use crate::replay::picker::Picker;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Clear};

/// The end of a path, which tells files apart, when the whole does not fit.
fn fit_left(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count + 1 - width).collect();
    format!("…{tail}")
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = area.width.min(width);
    let height = area.height.min(height);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

/// The picker's keys, under its list.
const PICKER_KEYS: &str =
    "type to filter, or a path · ↑/↓ (j/k before typing) choose · Enter opens · Esc cancels";

pub fn picker(frame: &mut Frame<'_>, area: Rect, picker: &Picker, theme: &Theme) {
    let rect = centered(area, 110, area.height.saturating_sub(4).max(10));
    let inner_width = rect.width.saturating_sub(2) as usize;
    // The error, or the keys, wraps rather than being cut: the list gives up the rows it
    // needs.
    let foot = picker
        .error
        .clone()
        .unwrap_or_else(|| PICKER_KEYS.to_string());
    let foot_rows =
        super::wrap::rows_wrapped(&Text::from(foot.as_str()), inner_width as u16, false).max(1);
    let rows = (rect.height as usize).saturating_sub(5 + foot_rows);
    // Only what matches the typed text, with the selection kept in sight.
    let visible = picker.visible();
    let at = visible
        .iter()
        .position(|&i| i == picker.selected)
        .unwrap_or(visible.len());
    let start = (at + 1).saturating_sub(rows.max(1));
    let mut lines: Vec<Line> = visible
        .iter()
        .map(|&i| (i, &picker.entries[i]))
        .skip(start)
        .take(rows)
        .map(|(i, e)| {
            let style = if i == picker.selected {
                theme.current()
            } else {
                Style::new()
            };
            let origin = if e.builtin { "built-in" } else { "file" };
            let head = format!("{:<28} {:<8} ", fit_left(&e.source, 28), origin);
            let rest = format!("{} — {}", e.title, e.summary);
            Line::from(vec![
                Span::styled(head.clone(), style.patch(theme.bold())),
                Span::styled(
                    fit(&rest, inner_width.saturating_sub(head.chars().count())),
                    style,
                ),
            ])
        })
        .collect();
    if visible.is_empty() {
        lines.push(Line::styled(
            "nothing listed matches: Enter opens what you typed as a path",
            theme.dim(),
        ));
    }
    let typing = picker.selected >= picker.entries.len();
    let path_style = if typing {
        theme.current()
    } else {
        Style::new()
    };
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("filter or path: ", theme.bold()),
        Span::styled(format!("{}▏", picker.typed), path_style),
    ]));
    let foot_style = if picker.error.is_some() {
        theme.lost()
    } else {
        theme.dim()
    };
    lines.push(Line::styled(foot, foot_style));
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Open a scenario ")
        .title_style(theme.title());
    frame.render_widget(Clear, rect);
    let inside = block.inner(rect);
    frame.render_widget(block, rect);
    super::wrap::draw_wrapped(frame.buffer_mut(), inside, &Text::from(lines), false, 0);
}

pub fn save(frame: &mut Frame<'_>, area: Rect, prompt: &SavePrompt, theme: &Theme) {
    let mut lines = vec![
        Line::raw("Save the scenario with its what-if faults as a new file:"),
        Line::from(vec![
            Span::styled("file: ", theme.bold()),
            Span::styled(format!("{}▏", prompt.path), theme.current()),
        ]),
    ];
    match &prompt.error {
        Some(e) => lines.push(Line::styled(e.clone(), theme.lost())),
        None => lines.push(Line::styled(
            "Enter saves · Esc cancels · an existing file is never replaced without asking",
            theme.dim(),
        )),
    }
    super::popup(frame, area, (80, 7), "Save the what-if", lines, theme);
}

/// The explorer's matrix: designs by verdicts, the chosen cell's shortest plan under it.
pub fn explore(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &crate::tui::App,
    found: &crate::explore::Exploration,
    (row, col): (usize, usize),
    theme: &Theme,
) {
    use crate::sim::Verdict;
    // Narrower columns and words on a narrow screen, so the matrix is never cut.
    let wide = area.width >= 96;
    let (name_w, cell_w) = if wide { (20, 12) } else { (18, 10) };
    let short = |v: Verdict| match (v, wide) {
        (Verdict::Duplicate, true) => "charged 2+",
        (Verdict::Duplicate, false) => "2 charges",
        (Verdict::Unpaid, _) => "unpaid",
        (Verdict::DownstreamDuplicate, _) => "step 2+",
        (Verdict::ChargedUnconfirmed, true) => "unconfirmed",
        (Verdict::ChargedUnconfirmed, false) => "unconfirm.",
        (Verdict::NotCharged, true) => "not charged",
        (Verdict::NotCharged, false) => "no charge",
        (Verdict::Correct, _) => "correct",
    };
    let mut head = vec![Span::styled(format!("{:<name_w$}", "design"), theme.bold())];
    for v in Verdict::ALL {
        head.push(Span::styled(format!("{:>cell_w$}", short(v)), theme.bold()));
    }
    let first = if found.partial() {
        format!(
            "Partial: the search stopped after {} plans of up to {} faults; the counts are of those:",
            found.plans(),
            found.faults_max
        )
    } else {
        format!(
            "Every plan of up to {} faults on top of this scenario's own, {} in all:",
            found.faults_max,
            found.plans()
        )
    };
    let mut lines = vec![Line::raw(first), Line::from(head)];
    for (r, d) in found.designs.iter().enumerate() {
        let mut spans = vec![Span::raw(format!("{:<name_w$}", d.design.id()))];
        for (c, v) in Verdict::ALL.into_iter().enumerate() {
            let n = d.verdicts.get(&v).copied().unwrap_or(0);
            let style = if (r, c) == (row, col) {
                theme.current()
            } else if n > 0 && v != Verdict::Correct {
                theme.lost()
            } else {
                Style::new()
            };
            spans.push(Span::styled(format!("{n:>cell_w$}"), style));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::raw(""));
    let chosen = found.designs.get(row).and_then(|d| {
        let v = *Verdict::ALL.get(col)?;
        Some((d, v, d.counterexamples.iter().find(|(cv, _)| *cv == v)))
    });
    let words = match chosen {
        Some((d, v, Some((_, plan)))) => {
            let faults: Vec<String> = plan
                .iter()
                .map(|f| crate::scenario::fork::describe(app.version.scenario(), f))
                .collect();
            format!(
                "Shortest plan ending {} under {}: {}. Enter replays it as a what-if; S then saves it.",
                v.id(),
                d.design.id(),
                if faults.is_empty() {
                    "no fault at all".to_string()
                } else {
                    faults.join("; ")
                }
            )
        }
        Some((d, v, None)) if v == Verdict::Correct => format!(
            "{} plans end correct under {}.",
            d.verdicts.get(&v).copied().unwrap_or(0),
            d.design.id()
        ),
        Some((d, v, None)) if found.partial() => format!(
            "No plan the search ran ends {} under {}; it stopped before the rest.",
            v.id(),
            d.design.id()
        ),
        Some((d, v, None)) => format!("No plan ends {} under {}.", v.id(), d.design.id()),
        None => String::new(),
    };
    lines.push(Line::raw(words));
    lines.push(Line::styled(
        "←→↑↓ choose a cell · Enter replays its plan · Esc closes",
        theme.dim(),
    ));
    super::popup(
        frame,
        area,
        (96, 16),
        "Every way it can go wrong",
        lines,
        theme,
    );
}

/// `:` asks where to go.
pub fn goto(frame: &mut Frame<'_>, area: Rect, typed: &str, error: Option<&str>, theme: &Theme) {
    let lines = vec![
        Line::raw("Go to a tick number, or a time as the header writes it:"),
        Line::from(vec![
            Span::styled("go to: ", theme.bold()),
            Span::styled(format!("{typed}▏"), theme.current()),
        ]),
        match error {
            Some(e) => Line::styled(e.to_string(), theme.lost()),
            None => Line::styled(
                "12 · 14:02:38 · 14:02:38.250 · day 2 02:00 · Enter goes · Esc cancels",
                theme.dim(),
            ),
        },
    ];
    super::popup(frame, area, (76, 7), "Go to", lines, theme);
}

/// `q` with what-ifs that were never saved, or in front of a room that has answered: what
/// leaving loses, and the way to stay.
pub fn confirm_quit(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let mut lines = Vec::new();
    let unsaved = if app.version.unsaved() {
        app.version.added.len()
    } else {
        0
    };
    if unsaved > 0 {
        let what = if unsaved == 1 {
            "1 what-if".to_string()
        } else {
            format!("{unsaved} what-ifs")
        };
        lines.push(Line::raw(format!(
            "{what} in this replay are not saved, and quitting loses them."
        )));
    }
    if app.talk.present.is_some() && app.talk.room_answered() {
        let score = app
            .talk
            .session_score()
            .text()
            .map_or(String::new(), |s| format!(" ({s})"));
        lines.push(Line::raw(format!(
            "The room has answered{score}; leaving ends the session and its score."
        )));
    }
    lines.push(Line::raw(""));
    let mut keys = vec![Span::styled("y", theme.key()), Span::raw(" quit anyway · ")];
    if unsaved > 0 {
        keys.push(Span::styled("S", theme.key()));
        keys.push(Span::raw(" save first · "));
    }
    keys.push(Span::styled("n", theme.key()));
    keys.push(Span::raw(" / Esc stay"));
    lines.push(Line::from(keys));
    let height = lines.len() as u16 + 3;
    super::popup(frame, area, (70, height), "Quit?", lines, theme);
}

pub fn checklist(frame: &mut Frame<'_>, area: Rect, selected: usize, theme: &Theme) {
    let roomy = area.height >= 22;
    let mut lines = Vec::new();
    for (i, c) in crate::replay::checklist::CHECKLIST.iter().enumerate() {
        let style = if i == selected {
            theme.current()
        } else {
            theme.bold()
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{}. {}", i + 1, c.question), style),
            Span::styled(format!("  → {}", c.scenario), theme.dim()),
        ]));
        if i == selected || roomy {
            lines.push(Line::raw(format!("   {}", c.why)));
        }
    }
    lines.push(Line::styled(
        "↑/↓ choose · Enter opens the scenario that shows it · Esc closes",
        theme.dim(),
    ));
    super::popup(
        frame,
        area,
        (96, 22),
        "Before you trust a retry",
        lines,
        theme,
    );
}

/// Any dialog of the model's `replay/dialog/`, drawn the one way they all are: its rows in a
/// box with its title, the chosen one marked and kept in sight, its footer under them.
pub fn listed(frame: &mut Frame<'_>, area: Rect, app: &App, open: &Open<App, Msg>, theme: &Theme) {
    let dialog = &open.0;
    let rows = dialog.rows(app);
    let height = area.height.saturating_sub(4).clamp(6, 24);
    let room = usize::from(height.saturating_sub(4)).max(1);
    let selected = dialog.selected();
    let start = (selected + 1).saturating_sub(room);
    let width = usize::from(area.width.min(96).saturating_sub(2));
    let mut lines: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(start)
        .take(room)
        .map(|(i, row)| {
            let style = if i == selected {
                theme.current()
            } else {
                Style::default()
            };
            Line::styled(fit(row.as_str(), width), style)
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled(dialog.footer().to_string(), theme.dim()));
    super::popup(frame, area, (96, height), dialog.title(), lines, theme);
}
