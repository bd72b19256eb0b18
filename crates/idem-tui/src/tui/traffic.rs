//! The day of traffic drawn: duplicates per design (BarChart), the chosen design's store
//! over the period (Chart), its hit rate and attempts per hour (Sparkline) and its figures.
//! One drawing for the replay's screen and the SVG export, from a finished report.

use super::cells::wrap::Laid;
use super::theme::Theme;
use crate::sim::Design;
use crate::traffic::words::{count, rate};
use crate::traffic::{DesignReport, Report};
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{
    Axis, Bar, BarChart, BarGroup, Block, Borders, Chart, Clear, Dataset, GraphType, Paragraph,
    Sparkline, Wrap,
};

/// What the drawing needs besides the report.
pub struct Look<'a> {
    /// The design whose store and series are drawn.
    pub selected: usize,
    /// A design as the room may see it (its number alone while names are hidden).
    pub name: &'a dyn Fn(Design) -> String,
    /// Braille for a terminal; half blocks for an SVG, whose fonts may lack braille.
    pub marker: Marker,
    /// The keys line at the foot, or none for an export.
    pub keys: Option<&'a str>,
    /// What the day assumed that its scenario did not say, under the heading.
    pub note: Option<&'a str>,
}

/// Hours from the period's start, as the chart's axis reads them.
fn hours(ms: u64) -> String {
    let h = ms as f64 / 3_600_000.0;
    if h.fract() == 0.0 {
        format!("{h:.0} h")
    } else {
        format!("{h:.1} h")
    }
}

/// The whole drawing, over `area` (cleared first).
pub fn draw(frame: &mut Frame<'_>, area: Rect, report: &Report, look: &Look<'_>, theme: &Theme) {
    frame.render_widget(Clear, area);
    let title = format!(" A day of traffic · {} ", report.scenario);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, theme.title()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(d) = report
        .designs
        .get(look.selected)
        .or_else(|| report.designs.first())
    else {
        frame.render_widget(Paragraph::new("No design was run."), inner);
        return;
    };
    let s = &report.settings;
    let mut heading = vec![Line::from(vec![
        Span::styled(
            format!(
                "{} orders over {}",
                count(s.orders),
                crate::units::duration_ms(s.over_ms)
            ),
            theme.bold(),
        ),
        Span::raw(format!(
            " · {}",
            crate::traffic::words::faults_joined(&report.settings, " · ")
        )),
    ])];
    if let Some(line) = crate::traffic::words::reruns(&report.settings) {
        heading.push(Line::raw(line));
    }
    if let Some(note) = look.note {
        heading.push(Line::styled(note.to_string(), theme.dim()));
    }
    if report.partial {
        heading.push(Line::styled(crate::traffic::words::PARTIAL, theme.lost()));
    }
    // Each laid out once, at the width both are drawn at.
    let figures = Text::from(figure_lines(report, d, look, theme));
    let figures_laid = Laid::new(&figures, inner.width, true);
    let foot_rows = u16::try_from(figures_laid.rows()).unwrap_or(u16::MAX);
    let heading = Text::from(heading);
    let heading_laid = Laid::new(&heading, inner.width, true);
    let head_rows = u16::try_from(heading_laid.rows()).unwrap_or(u16::MAX);
    let [head, middle, sparks, foot] = Layout::vertical([
        Constraint::Length(head_rows),
        Constraint::Min(6),
        Constraint::Length(4),
        Constraint::Length(foot_rows),
    ])
    .areas(inner);
    heading_laid.draw(&heading, frame.buffer_mut(), head, 0);
    let bars_width = (middle.width / 3).clamp(24, 40);
    let [bars, chart] =
        Layout::horizontal([Constraint::Length(bars_width), Constraint::Min(20)]).areas(middle);
    duplicates(frame, bars, report, look, theme);
    store(frame, chart, report, d, look, theme);
    series(frame, sparks, report, d, theme);
    figures_laid.draw(&figures, frame.buffer_mut(), foot, 0);
}

/// Orders that ended wrong, one bar per design: charged twice, charged and not believed
/// paid, or believed paid and never charged. Any of them is harm, so a design that charges
/// once and leaves the shop unaware is drawn as the harm it is, not as a safe zero.
fn duplicates(frame: &mut Frame<'_>, area: Rect, report: &Report, look: &Look<'_>, theme: &Theme) {
    let label_width = area.width.saturating_sub(12) as usize;
    let bars: Vec<Bar<'_>> = report
        .designs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let name = crate::text::shorten(&(look.name)(d.design), label_width.max(3));
            let style = if i == look.selected {
                theme.current()
            } else {
                theme.text()
            };
            Bar::default()
                .value(d.ended_wrong)
                .text_value(count(d.ended_wrong))
                .label(Line::styled(name, style))
                .style(if d.ended_wrong > 0 {
                    theme.lost()
                } else {
                    theme.dim()
                })
        })
        .collect();
    let chart = BarChart::default()
        .block(
            Block::default()
                .borders(Borders::ALL)
                .title(Span::styled(" orders ended wrong ", theme.bold())),
        )
        .direction(Direction::Horizontal)
        .bar_width(1)
        .bar_gap(0)
        .data(BarGroup::default().bars(&bars));
    frame.render_widget(chart, area);
}

/// The chosen design's store over the period: the most keys held in each bucket.
fn store(
    frame: &mut Frame<'_>,
    area: Rect,
    report: &Report,
    d: &DesignReport,
    look: &Look<'_>,
    theme: &Theme,
) {
    let bucket_h = report.bucket_ms as f64 / 3_600_000.0;
    let points: Vec<(f64, f64)> = d
        .series
        .iter()
        .enumerate()
        .flat_map(|(i, b)| {
            let x = i as f64 * bucket_h;
            [(x, b.peak_keys as f64), (x + bucket_h, b.peak_keys as f64)]
        })
        .collect();
    let end_ms = d.series.len() as u64 * report.bucket_ms;
    let top = d.peak_keys.max(1) as f64;
    let title = format!(
        " {} · keys held (peak {}) ",
        (look.name)(d.design),
        count(d.peak_keys)
    );
    let title = crate::text::shorten(&title, usize::from(area.width.saturating_sub(2)));
    let mut x_labels = vec![Span::raw("0 h")];
    if end_ms > 0 {
        x_labels.push(Span::raw(hours(end_ms / 2)));
        x_labels.push(Span::raw(hours(end_ms)));
    }
    let mut datasets = vec![
        Dataset::default()
            .marker(look.marker)
            .graph_type(GraphType::Line)
            .style(theme.money())
            .data(&points),
    ];
    // The period's end, so keys still held after the last order read as the tail they are.
    let period_end = [
        (report.settings.over_ms as f64 / 3_600_000.0, 0.0),
        (report.settings.over_ms as f64 / 3_600_000.0, top),
    ];
    if end_ms > report.settings.over_ms {
        datasets.push(
            Dataset::default()
                .marker(look.marker)
                .graph_type(GraphType::Line)
                .style(theme.dim())
                .data(&period_end),
        );
    }
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, theme.bold()));
    if d.peak_keys == 0 {
        let inner = block.inner(area);
        frame.render_widget(block, area);
        frame.render_widget(
            Paragraph::new(crate::traffic::words::NO_KEYS_HELD)
                .style(theme.dim())
                .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    }
    let chart = Chart::new(datasets)
        .block(block)
        .x_axis(
            Axis::default()
                .bounds([0.0, (end_ms as f64 / 3_600_000.0).max(1.0)])
                .labels(x_labels)
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, top])
                .labels(vec![Span::raw("0"), Span::raw(count(d.peak_keys))])
                .style(theme.dim()),
        );
    frame.render_widget(chart, area);
}

/// Hit rate and attempts, bucket by bucket, each with its largest value.
fn series(frame: &mut Frame<'_>, area: Rect, report: &Report, d: &DesignReport, theme: &Theme) {
    let per = match report.bucket_ms / 3_600_000 {
        0 | 1 => "per hour".to_string(),
        h => format!("per {h} h"),
    };
    let rows = Layout::vertical([Constraint::Length(2), Constraint::Length(2)]).split(area);
    // Rates in millionths, so a 0.01 % hour still shows above an hour of none.
    let hit: Vec<u64> = d
        .series
        .iter()
        .map(|b| (b.hit_rate() * 1_000_000.0).round() as u64)
        .collect();
    let attempts: Vec<u64> = d.series.iter().map(|b| b.attempts).collect();
    let most_hit = d.series.iter().map(|b| b.hit_rate()).fold(0.0, f64::max);
    let most_sent = attempts.iter().copied().max().unwrap_or(0);
    let rows_of: [(&str, String, &[u64], Style); 2] = [
        (
            "hit rate",
            format!("highest {}", rate(most_hit)),
            &hit,
            theme.changed(),
        ),
        (
            "attempts",
            format!("highest {}", count(most_sent)),
            &attempts,
            theme.text(),
        ),
    ];
    for (row, (label, most, data, style)) in rows.iter().zip(rows_of) {
        let [words, spark] =
            Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(*row);
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled(format!("{label} {per}"), theme.bold()),
                Span::styled(format!(" · {most}"), theme.dim()),
                Span::styled(
                    if data.len() > spark.width as usize {
                        format!(" · the first {} of {} shown", spark.width, data.len())
                    } else {
                        String::new()
                    },
                    theme.dim(),
                ),
            ])),
            words,
        );
        let stretched = stretch(data, usize::from(spark.width));
        frame.render_widget(Sparkline::default().data(&stretched).style(style), spark);
    }
}

/// Each value repeated so the series fills `width` columns as far as whole repeats go.
fn stretch(data: &[u64], width: usize) -> Vec<u64> {
    let each = if data.is_empty() {
        1
    } else {
        (width / data.len()).max(1)
    };
    data.iter()
        .flat_map(|&v| std::iter::repeat_n(v, each))
        .collect()
}

/// The chosen design's figures, and the keys.
fn figure_lines<'a>(
    report: &Report,
    d: &DesignReport,
    look: &Look<'_>,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let [charges, store] = crate::traffic::words::design_figures(report, d);
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("{}: ", (look.name)(d.design)), theme.bold()),
            Span::raw(charges),
        ]),
        Line::raw(store),
    ];
    if let Some(keys) = look.keys {
        lines.push(Line::styled(
            keys.to_string(),
            theme.dim().add_modifier(Modifier::ITALIC),
        ));
    }
    lines
}
