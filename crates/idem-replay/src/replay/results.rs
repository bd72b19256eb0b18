//! What the room answered, written out at the end of a talk (`idem present --results FILE`):
//! per part and per question, under each design it was asked under, the answer, the hands
//! counted, whether it was revealed and right, and the part's time against its budget. JSON
//! or CSV, by the file's extension.

use super::App;
use super::room::{Response, Room};
use crate::scenario::Scenario;
use serde::Serialize;

/// The whole talk's results.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// The session's title, or the scenario's.
    pub title: String,
    /// Seconds since the talk started.
    pub elapsed_secs: u64,
    pub parts: Vec<Part>,
}

/// One part of the talk (the only one, without a session file).
#[derive(Clone, Debug, Serialize)]
pub struct Part {
    /// 1-based.
    pub part: usize,
    pub title: String,
    pub scenario: String,
    /// Whether the part was on screen at all.
    pub shown: bool,
    pub secs: u64,
    pub budget_secs: Option<u64>,
    pub questions: Vec<Question>,
}

/// One question's response under one design.
#[derive(Clone, Debug, Serialize)]
pub struct Question {
    /// 1-based, in the file's order.
    pub question: usize,
    pub text: String,
    pub design: String,
    /// The room's answer, 1-based, and its words.
    pub answer: Option<usize>,
    pub answer_text: Option<String>,
    /// Hands counted for each choice, in order; empty when none were counted.
    pub hands: Vec<u32>,
    pub revealed: bool,
    /// The right choice (1-based) at the reveal, when one fitted the run.
    pub right_choice: Option<usize>,
    pub right: Option<bool>,
}

/// The results of the talk as it stands.
pub fn results(app: &App) -> Results {
    let elapsed = app.talk.present.map_or(0, |p| p.elapsed_secs);
    let mut parts = Vec::new();
    match &app.talk.agenda {
        Some(agenda) => {
            for (i, section) in agenda.playlist.sections.iter().enumerate() {
                let room = if i == agenda.at {
                    &app.talk.room
                } else {
                    agenda.parts.get(i).map_or(&app.talk.room, |p| &p.room)
                };
                let secs = if i == agenda.at {
                    agenda.section_secs(elapsed)
                } else {
                    agenda.parts.get(i).map_or(0, |p| p.spent)
                };
                let scenario = if i == agenda.at {
                    app.version.scenario()
                } else {
                    &section.scenario
                };
                parts.push(Part {
                    part: i + 1,
                    title: section.title.clone(),
                    scenario: section.source.clone(),
                    shown: agenda.parts.get(i).is_some_and(|p| p.shown),
                    secs,
                    budget_secs: section.budget.map(|b| b.as_secs()),
                    questions: questions(scenario, room),
                });
            }
        }
        None => parts.push(Part {
            part: 1,
            title: app.version.scenario().title.clone(),
            scenario: app.source.clone(),
            shown: true,
            secs: elapsed,
            budget_secs: None,
            questions: questions(app.version.scenario(), &app.talk.room),
        }),
    }
    let title = app.talk.agenda.as_ref().map_or_else(
        || app.version.scenario().title.clone(),
        |a| a.playlist.title.clone(),
    );
    Results {
        title,
        elapsed_secs: elapsed,
        parts,
    }
}

/// Every response the room gave to the scenario's questions, question by question.
fn questions(scenario: &Scenario, room: &Room) -> Vec<Question> {
    let mut out = Vec::new();
    for (q, quiz) in scenario.quizzes.iter().enumerate() {
        let Some(responses) = room.quizzes.get(q) else {
            continue;
        };
        for (design, r) in responses.iter().filter(|(_, r)| r.started()) {
            out.push(question(q, &quiz.question, &quiz.choices, *design, r));
        }
    }
    out
}

fn question(
    q: usize,
    text: &str,
    choices: &[String],
    design: crate::sim::Design,
    r: &Response,
) -> Question {
    let answer = r.answer();
    Question {
        question: q + 1,
        text: crate::text::sanitize_line(text),
        design: design.id().to_string(),
        answer: answer.map(|a| a + 1),
        answer_text: answer.and_then(|a| choices.get(a).map(|c| crate::text::sanitize_line(c))),
        hands: r.votes.clone(),
        revealed: r.is_revealed(),
        right_choice: r.revealed.flatten().map(|c| c + 1),
        right: r.revealed.map(|_| r.right()),
    }
}

/// The results as JSON, pretty-printed, ending in a newline.
pub fn to_json(results: &Results) -> String {
    serde_json::to_string_pretty(results)
        .map_or_else(|e| format!("{{\"error\": \"{e}\"}}\n"), |t| t + "\n")
}

/// The results as CSV: one row per question per design asked, with the part's columns
/// repeated; a part with no response has one row with its question columns empty.
pub fn to_csv(results: &Results) -> String {
    let mut out = String::from(
        "part,part_title,scenario,shown,secs,budget_secs,question,question_text,design,answer,answer_text,hands,revealed,right_choice,right\n",
    );
    let opt = |n: Option<usize>| n.map_or(String::new(), |n| n.to_string());
    for p in &results.parts {
        let head = format!(
            "{},{},{},{},{},{}",
            p.part,
            cell(&p.title),
            cell(&p.scenario),
            p.shown,
            p.secs,
            p.budget_secs.map_or(String::new(), |b| b.to_string())
        );
        if p.questions.is_empty() {
            out.push_str(&format!("{head},,,,,,,,,\n"));
        }
        for q in &p.questions {
            let hands: Vec<String> = q.hands.iter().map(u32::to_string).collect();
            out.push_str(&format!(
                "{head},{},{},{},{},{},{},{},{},{}\n",
                q.question,
                cell(&q.text),
                q.design,
                opt(q.answer),
                cell(q.answer_text.as_deref().unwrap_or_default()),
                cell(&hands.join(" ")),
                q.revealed,
                opt(q.right_choice),
                q.right.map_or(String::new(), |r| r.to_string())
            ));
        }
    }
    out
}

/// One CSV field: quoted when it holds a comma, a quote or a line break; a leading `=`, `+`,
/// `-` or `@` is kept from being read as a formula by a spreadsheet.
fn cell(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// The results in the format the file's name asks for: `.csv` is CSV, anything else JSON.
pub fn render(results: &Results, path: &std::path::Path) -> String {
    if path
        .extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("csv"))
    {
        to_csv(results)
    } else {
        to_json(results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_are_quoted_and_never_formulas() {
        assert_eq!(cell("plain"), "plain");
        assert_eq!(cell("a, b"), "\"a, b\"");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(cell("=SUM(A1)"), "'=SUM(A1)");
    }
}
