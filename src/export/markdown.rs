//! The Markdown handout. For students (the default): the story, each design's timeline and
//! outcome, the outcomes side by side, the questions, and their answers alone on a last page.
//! For the trainer: the questions up front with their answers inline, and the trainer's notes.

use crate::scenario::{LaneNames, NarrationTarget, Quiz, QuizAnswer, Scenario};
use crate::sim::{ClockStyle, Design, Trace};
use crate::story::Told;
use crate::story::outcome::{headline, verdict_meaning};
use std::fmt::Write;

/// Who a handout is written for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Audience {
    /// The room: no trainer's notes, and the answers kept apart, on the last page.
    #[default]
    Students,
    /// The trainer: the questions first with their answers inline, then the notes.
    Trainer,
}

/// The students' handout, simulated under every design.
pub fn markdown(scenario: &Scenario) -> Result<String, String> {
    handout(scenario, Audience::Students)
}

/// The whole handout for `audience`, simulated under every design.
pub fn handout(scenario: &Scenario, audience: Audience) -> Result<String, String> {
    let traces = Design::ALL
        .iter()
        .map(|d| {
            scenario
                .simulate(*d)
                .map_err(|e| format!("cannot simulate {} under {}: {e}", scenario.name, d.id()))
        })
        .collect::<Result<Vec<Trace>, String>>()?;
    Ok(render(scenario, &traces, audience))
}

/// One handout for a whole session file: the agenda (each part with the design it opens on and
/// its time), then each scenario's handout in turn, its headings one level down.
pub fn session_handout(
    playlist: &crate::present::playlist::Playlist,
    audience: Audience,
) -> Result<String, String> {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", heading(&playlist.title));
    if !playlist.description.trim().is_empty() {
        out.push_str(&block(&playlist.description));
        out.push_str("\n\n");
    }
    let total = playlist
        .budget()
        .map(|b| format!(", {} in all", minutes(b)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "A session of {} scenario{} replayed by idem{total}.\n",
        playlist.sections.len(),
        if playlist.sections.len() == 1 {
            ""
        } else {
            "s"
        }
    );
    let _ = writeln!(out, "| Part | Scenario | Opens on | Time |");
    let _ = writeln!(out, "|--:|---|---|--:|");
    for (i, s) in playlist.sections.iter().enumerate() {
        let _ = writeln!(
            out,
            "| {} | {} (`{}`) | {} | {} |",
            i + 1,
            cell(&s.title),
            code_span(&s.scenario.name),
            s.design.name(),
            s.budget.map_or_else(|| "—".to_string(), minutes)
        );
    }
    out.push('\n');
    // A scenario is the same handout wherever it comes back: simulated and written once.
    let mut made: std::collections::HashMap<(&str, &str), String> =
        std::collections::HashMap::new();
    for (i, s) in playlist.sections.iter().enumerate() {
        let key = (s.scenario.name.as_str(), s.scenario.text.as_str());
        let part = match made.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(handout(&s.scenario, audience)?)
            }
        };
        out.push_str(PAGE_BREAK);
        let _ = writeln!(out, "# Part {}: {}\n", i + 1, heading(&s.title));
        // Every heading of the part goes one level down, under the part's own.
        for line in part.lines() {
            if line.starts_with('#') {
                out.push('#');
            }
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    Ok(out)
}

/// `10 min`, `1 h 30 min`, `45 s`.
fn minutes(d: std::time::Duration) -> String {
    let secs = d.as_secs();
    match (secs / 3600, secs % 3600 / 60, secs % 60) {
        (0, 0, s) => format!("{s} s"),
        (0, m, 0) => format!("{m} min"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

fn render(scenario: &Scenario, traces: &[Trace], audience: Audience) -> String {
    let clock = traces.first().map_or(ClockStyle::TimeOfDay, |t| t.clock);
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", heading(&scenario.title));
    let _ = writeln!(
        out,
        "Scenario `{}`, replayed by idem under each of the {} processor designs.\n",
        code_span(&scenario.name),
        traces.len()
    );
    if !scenario.description.trim().is_empty() {
        let _ = writeln!(out, "## The story\n");
        out.push_str(&block(&scenario.description));
        out.push_str("\n\n");
    }
    let mut sections = String::new();
    let mut cut = false;
    for trace in traces {
        cut |= design_section(&mut sections, trace, &scenario.tell(trace), &scenario.lanes);
    }
    if cut {
        let _ = writeln!(
            out,
            "> **This handout is shortened.** A timeline here shows at most {MAX_HANDOUT_ROWS} ticks \
             (and about {} KiB) per design; where one is cut, a line under its table says how \
             many ticks are left out and how to see them all.\n",
            MAX_TIMELINE_BYTES / 1024
        );
    }
    let trainer = audience == Audience::Trainer;
    if trainer && !scenario.quizzes.is_empty() {
        questions(&mut out, &scenario.quizzes, clock, traces, true);
    }
    out.push_str(&sections);
    comparison(&mut out, traces);
    if !trainer && !scenario.quizzes.is_empty() {
        questions(&mut out, &scenario.quizzes, clock, traces, false);
    }
    if trainer && !scenario.notes.is_empty() {
        let _ = writeln!(out, "## Notes for the trainer\n");
        for note in &scenario.notes {
            let _ = writeln!(
                out,
                "- **{}:** {}",
                inline(&target_text(&note.target, clock)),
                inline(&one_line(&note.text))
            );
        }
        out.push('\n');
    }
    if !trainer && !scenario.quizzes.is_empty() {
        answers(&mut out, &scenario.quizzes, traces);
    }
    // One newline at the end, whatever the last section left.
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The questions, with their choices (grown as the replay grows them), and where in the replay
/// they stand; for the trainer each with its answer under it.
fn questions(
    out: &mut String,
    quizzes: &[Quiz],
    clock: ClockStyle,
    traces: &[Trace],
    inline_answers: bool,
) {
    let most = crate::scenario::most_charges(traces);
    if inline_answers {
        let _ = writeln!(out, "## Questions for the room\n");
        let _ = writeln!(
            out,
            "Stop the replay at each of these moments and let the room answer before going on. Each answer follows its question.\n"
        );
    } else {
        let _ = writeln!(out, "## Questions\n");
        let _ = writeln!(
            out,
            "Each question stands at a moment of the replay. Work out your answer before you turn to the last page.\n"
        );
    }
    for (n, quiz) in quizzes.iter().enumerate() {
        let _ = writeln!(
            out,
            "**Question {}** ({}). {}\n",
            n + 1,
            inline(&target_text(&quiz.target, clock)),
            inline(&quiz.question)
        );
        for (i, choice) in quiz.shown_choices(most).iter().enumerate() {
            let _ = writeln!(out, "{}. {}", i + 1, inline(choice));
        }
        out.push('\n');
        if inline_answers {
            answer(out, quiz, traces);
        }
    }
}

/// The most ticks one design's timeline shows: as many as a recording holds.
pub const MAX_HANDOUT_ROWS: usize = super::MAX_CAST_FRAMES;
/// The most text one design's timeline takes, long narration and all.
pub const MAX_TIMELINE_BYTES: usize = 512 * 1024;

/// One design: its timeline as a table (cut at [`MAX_HANDOUT_ROWS`] rows or
/// [`MAX_TIMELINE_BYTES`], saying so), then how it ended. Returns whether it was cut.
fn design_section(out: &mut String, trace: &Trace, told: &Told, lanes: &LaneNames) -> bool {
    let d = trace.design;
    let _ = writeln!(out, "## {} · {} (`{}`)\n", d.hotkey(), d.name(), d.id());
    let _ = writeln!(out, "| Time | Lane | What happened | Narration |");
    let _ = writeln!(out, "|---|---|---|---|");
    let first = crate::story::glossary::first_uses(told);
    let table_start = out.len();
    let mut shown = 0;
    for (index, tick) in trace.ticks.iter().enumerate() {
        if shown == MAX_HANDOUT_ROWS || out.len() - table_start >= MAX_TIMELINE_BYTES {
            break;
        }
        shown += 1;
        let mut narration = cell(&told.narrations[index]);
        for (term, meaning) in crate::story::glossary::introduced_at(&first, index) {
            let _ = write!(narration, "<br>*{term}*: {}", cell(meaning));
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {narration} |",
            cell(&trace.format_time(tick.at)),
            cell(lanes.of_tick(tick)),
            cell(&told.labels[index]),
        );
    }
    let left_out = trace.ticks.len() - shown;
    if left_out > 0 {
        let _ = writeln!(
            out,
            "\n*The timeline is cut here: {left_out} more of its {} ticks are not shown. \
             `idem run` on this scenario with `--design {}` prints every one.*",
            trace.ticks.len(),
            d.id()
        );
    }
    let o = &trace.outcome;
    let (_, head) = headline(o);
    let _ = writeln!(
        out,
        "\n**Outcome:** {} · verdict `{}`: {}.\n",
        inline(&head),
        o.verdict.id(),
        verdict_meaning(o)
    );
    for i in &o.intents {
        let _ = writeln!(
            out,
            "- Order {} ({}): {}, {}; the checkout believes {}.",
            inline(&i.id),
            i.key
                .as_deref()
                .map_or("no key".to_string(), |k| format!("key {}", inline(k))),
            charges_text(i.charges),
            inline(&i.charged_cents.to_string()),
            i.client_view.label()
        );
    }
    for w in &trace.warnings {
        let _ = writeln!(out, "- Note: {}", inline(&one_line(w)));
    }
    out.push('\n');
    left_out > 0
}

/// Every design's outcome in one table.
fn comparison(out: &mut String, traces: &[Trace]) {
    let _ = writeln!(out, "## Outcome across designs\n");
    let _ = writeln!(
        out,
        "| Design | Charges | Amount | Verdict | What the checkout believes |"
    );
    let _ = writeln!(out, "|---|--:|--:|---|---|");
    for trace in traces {
        let o = &trace.outcome;
        let beliefs = if o.intents.len() == 1 {
            o.intents[0].client_view.label().to_string()
        } else {
            o.intents
                .iter()
                .map(|i| format!("order {}: {}", i.id, i.client_view.label()))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let _ = writeln!(
            out,
            "| {} {} (`{}`) | {} | {} | {} | {} |",
            trace.design.hotkey(),
            trace.design.name(),
            trace.design.id(),
            o.charges,
            cell(&o.charged_cents.to_string()),
            o.verdict.id(),
            cell(&beliefs)
        );
    }
    out.push('\n');
}

/// Where a printed handout starts a new page (Markdown renderers that print to paper, and
/// HTML, honour it; elsewhere it is invisible).
const PAGE_BREAK: &str = "<div style=\"page-break-before: always\"></div>\n\n";

/// The answers on a page of their own, after everything else so a reader meets the
/// questions first.
fn answers(out: &mut String, quizzes: &[Quiz], traces: &[Trace]) {
    out.push_str(PAGE_BREAK);
    let _ = writeln!(out, "## Answers\n");
    for (n, quiz) in quizzes.iter().enumerate() {
        let _ = writeln!(out, "**Question {}.** {}\n", n + 1, inline(&quiz.question));
        answer(out, quiz, traces);
    }
}

/// One question's answer (under each design when it depends on the design), and why (under
/// each design when the explanation does).
fn answer(out: &mut String, quiz: &Quiz, traces: &[Trace]) {
    let most = crate::scenario::most_charges(traces);
    let explained = |trace: &Trace| -> String {
        let text = one_line(quiz.explanation.for_design(trace.design));
        if text.is_empty() {
            String::new()
        } else {
            format!(" — {}", inline(&text))
        }
    };
    match quiz.answer {
        QuizAnswer::Choice(_) => {
            let right = traces.first().and_then(|t| quiz.correct(t, most));
            let _ = writeln!(out, "Answer: {}\n", choice_text(quiz, most, right));
            if quiz.explanation.varies() {
                for trace in traces {
                    let _ = writeln!(
                        out,
                        "- {} (`{}`){}",
                        trace.design.name(),
                        trace.design.id(),
                        explained(trace)
                    );
                }
                out.push('\n');
            }
        }
        QuizAnswer::Charges => {
            let _ = writeln!(
                out,
                "The answer depends on the design: it is the number of charges the run ends with.\n"
            );
            for trace in traces {
                let why = if quiz.explanation.varies() {
                    explained(trace)
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "- {} (`{}`): {}{why}",
                    trace.design.name(),
                    trace.design.id(),
                    choice_text(quiz, most, quiz.correct(trace, most))
                );
            }
            out.push('\n');
        }
    }
    let same = &quiz.explanation.other;
    if !quiz.explanation.varies() && !same.trim().is_empty() {
        out.push_str(&block(same));
        out.push_str("\n\n");
    }
}

fn choice_text(quiz: &Quiz, most: usize, right: Option<usize>) -> String {
    let choices = quiz.shown_choices(most);
    match right.and_then(|i| choices.get(i).map(|c| (i, c))) {
        Some((i, c)) => format!("**{}. {}**", i + 1, inline(c)),
        None => "none of the choices fits this run".to_string(),
    }
}

fn charges_text(n: usize) -> String {
    if n == 1 {
        "1 charge".to_string()
    } else {
        format!("{n} charges")
    }
}

/// Where a quiz or note stands: a time, or a tick's label.
fn target_text(target: &NarrationTarget, clock: ClockStyle) -> String {
    match target {
        NarrationTarget::At(at) => format!("at {}", clock.format_short(*at)),
        NarrationTarget::Label(label) => format!("at the tick “{label}”"),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text for a table cell: on one line, with every character Markdown would act on escaped.
pub fn cell(text: &str) -> String {
    inline(&one_line(text))
}

/// Inline text with Markdown's significant characters escaped, so it shows as written.
pub fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '$' | '~' | '&' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A heading's text: inline escapes, and `#` too, which would otherwise close the heading.
fn heading(text: &str) -> String {
    inline(&one_line(text)).replace('#', "\\#")
}

/// Text inside a code span: a backtick cannot be escaped there, so it is replaced.
fn code_span(text: &str) -> String {
    text.replace('`', "'")
}

/// A block of the trainer's prose: paragraphs kept, each line escaped, and a line that would
/// start a list, a heading, a quote or a rule made plain.
fn block(text: &str) -> String {
    text.trim()
        .lines()
        .map(|line| {
            let line = inline(line.trim());
            let starts_block = line.starts_with(['#', '-', '+', '='])
                || line
                    .find(|c: char| !c.is_ascii_digit())
                    .is_some_and(|i| i > 0 && line[i..].starts_with(['.', ')']));
            if !starts_block {
                return line;
            }
            match line.find(|c: char| !c.is_ascii_digit()) {
                Some(i) if i > 0 => format!("{}\\{}", &line[..i], &line[i..]),
                _ => format!("\\{line}"),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_cells_and_blocks() {
        assert_eq!(cell("a | b\n*c* $1"), "a \\| b \\*c\\* \\$1");
        assert_eq!(
            block("# not a heading\n1. not a list\n- nor this\nplain"),
            "\\# not a heading\n1\\. not a list\n\\- nor this\nplain"
        );
        assert_eq!(heading("Order #1"), "Order \\#1");
    }
}
