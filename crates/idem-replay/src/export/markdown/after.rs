//! What a handout says after the story and its questions: the compact form's designs and the
//! ticks where they part ways, the full form's timelines, the trainer's answers and notes,
//! each design's outcome, and the answers.

use super::*;

impl Page<'_> {
    /// After the questions: the designs shown, the tick where they part ways and only the
    /// ticks that differ from there on, how each ended, the answers, and the author's summary.
    pub(super) fn compact(&self, out: &mut String) {
        let shown = self.shown();
        out.push_str(PAGE_BREAK);
        let _ = writeln!(out, "## What happened next\n");
        let names: Vec<String> = shown.iter().map(|d| self.withheld.design(*d)).collect();
        let parted = self.first_difference(&shown);
        let hidden_note = if self.withheld.shows_design() {
            ""
        } else {
            " The designs are numbered as on the replay's screen; their names stay hidden."
        };
        match parted.and_then(|i| self.of(self.opening).and_then(|(t, _)| t.ticks.get(i))) {
            Some(tick) => {
                let trace = self.of(self.opening).map(|(t, _)| t);
                let _ = writeln!(
                    out,
                    "Under {} the story is the same until {}; from there on, only the ticks where each parts ways with the others.{hidden_note}\n",
                    inline(&crate::text::and_list(
                        &names.iter().map(String::as_str).collect::<Vec<_>>()
                    )),
                    trace.map_or(String::new(), |t| t.format_time(tick.at)),
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "Under {} the story is the same to the end.{hidden_note}\n",
                    inline(&crate::text::and_list(
                        &names.iter().map(String::as_str).collect::<Vec<_>>()
                    )),
                );
            }
        }
        for design in &shown {
            let Some((trace, told)) = self.of(*design) else {
                continue;
            };
            let _ = writeln!(out, "### {}\n", heading(&self.withheld.design(*design)));
            if let Some(from) = parted {
                let own = self.own_ticks(*design, &shown, from);
                if own.is_empty() {
                    let _ = writeln!(out, "No tick of its own: the others part ways with it.\n");
                } else {
                    let _ = writeln!(out, "| Time | Lane | What happened |");
                    let _ = writeln!(out, "|---|---|---|");
                    for i in own.iter().take(self.compact_rows) {
                        self.short_row(out, trace, told, *i);
                    }
                    if own.len() > self.compact_rows {
                        let choose = if self.withheld.shows_design() {
                            design.id().to_string()
                        } else {
                            design.hotkey().to_string()
                        };
                        let how = match self.run_command(&choose) {
                            Some(command) => format!("`{}` prints every tick", code_span(&command)),
                            None => "the replay shows every tick".to_string(),
                        };
                        let _ = writeln!(
                            out,
                            "\n*{} more of its own ticks are left out: {how}.*",
                            own.len() - self.compact_rows,
                        );
                    }
                    out.push('\n');
                }
            }
            if self.withheld.shows_outcome() {
                let (_, head) = headline(&trace.outcome);
                let _ = writeln!(
                    out,
                    "**Outcome:** {} · verdict `{}`.\n",
                    inline(&head),
                    trace.outcome.verdict.id()
                );
            }
        }
        let traces: Vec<&Trace> = shown
            .iter()
            .filter_map(|d| self.of(*d).map(|(t, _)| t))
            .collect();
        self.answers(out, &traces, false);
    }

    /// The ticks of `design` from `from` on that no other of `designs` shares: none has a
    /// tick at the same moment with the same label.
    pub(super) fn own_ticks(&self, design: Design, designs: &[Design], from: usize) -> Vec<usize> {
        let Some((trace, told)) = self.of(design) else {
            return Vec::new();
        };
        let others: Vec<(&Trace, &Told)> = designs
            .iter()
            .filter(|d| **d != design)
            .filter_map(|d| self.of(*d))
            .collect();
        (from..trace.ticks.len())
            .filter(|&i| {
                let (tick, label) = (&trace.ticks[i], &told.labels[i]);
                others.iter().any(|(t, w)| {
                    !t.ticks
                        .iter()
                        .zip(&w.labels)
                        .any(|(u, l)| u.at == tick.at && l == label)
                })
            })
            .collect()
    }

    /// After the questions, everything: every design's whole timeline, the outcomes side by
    /// side, the author's summary, and the answers last.
    pub(super) fn full(&self, out: &mut String) {
        out.push_str(PAGE_BREAK);
        let _ = writeln!(out, "## What happened\n");
        let sections = self.timelines(out);
        out.push_str(&sections);
        if self.withheld.shows_outcome() {
            self.comparison(out);
        }
        self.summary(out);
        let traces: Vec<&Trace> = self.traces.iter().collect();
        self.answers(out, &traces, true);
    }

    /// Every design's timeline and outcome, with a notice in `out` first when one is cut.
    pub(super) fn timelines(&self, out: &mut String) -> String {
        let mut sections = String::new();
        let mut cut = false;
        for (trace, told) in self.traces.iter().zip(self.told) {
            cut |= self.design_section(&mut sections, trace, told, &self.scenario.lanes);
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
        sections
    }

    /// The trainer's handout: the author's summary, the questions with their answers inline,
    /// every timeline, the outcomes side by side, and the notes.
    pub(super) fn trainer(&self, out: &mut String) {
        let scenario = self.scenario;
        let _ = writeln!(
            out,
            "Scenario `{}`, replayed by idem under each of the {} processor designs.\n",
            code_span(&scenario.name),
            self.traces.len()
        );
        if !scenario.description.trim().is_empty() && self.withheld.shows_design() {
            let _ = writeln!(out, "## The story\n");
            out.push_str(&block(&scenario.description));
            out.push_str("\n\n");
        }
        let sections = self.timelines(out);
        if !scenario.quizzes.is_empty() {
            let traces: Vec<&Trace> = self.traces.iter().collect();
            let most = crate::scenario::most_charges(self.traces);
            let _ = writeln!(out, "## Questions for the room\n");
            let _ = writeln!(
                out,
                "Stop the replay at each of these moments and let the room answer before going on. Each answer follows its question.\n"
            );
            for (n, quiz) in scenario.quizzes.iter().enumerate() {
                self.question(out, n, quiz, most);
                self.answer(out, quiz, &traces, true);
            }
        }
        out.push_str(&sections);
        if self.withheld.shows_outcome() {
            self.comparison(out);
        }
        if !scenario.notes.is_empty() {
            let _ = writeln!(out, "## Notes for the trainer\n");
            for note in &scenario.notes {
                let _ = writeln!(
                    out,
                    "- **{}{}:** {}",
                    inline(&self.withheld.text(&target_text(&note.target, self.clock()))),
                    scope_text(&note.designs, self.withheld),
                    inline(&self.withheld.text(&one_line(&note.text)))
                );
            }
            out.push('\n');
        }
    }

    /// The presenter's keys a trainer reaches for with a room, as the presenter's help lists
    /// them.
    pub(super) fn room_keys(out: &mut String) {
        const FOR_THE_ROOM: [&str; 7] = ["→ ← / l h", "1 – 6", "a", "v", "Enter", "n", "c"];
        let _ = writeln!(out, "| Key | In the room |");
        let _ = writeln!(out, "|---|---|");
        for (key, what) in crate::replay::keymap::PRESENTER_KEYS
            .iter()
            .filter(|(key, _)| FOR_THE_ROOM.contains(key))
        {
            let _ = writeln!(out, "| {} | {} |", cell(key), cell(what));
        }
        out.push('\n');
    }

    /// The crib sheet of one scenario: the design it opens on, each question with the right
    /// answer under each design it is asked under and why, and the trainer's notes.
    pub(super) fn crib(&self, out: &mut String) {
        let d = self.opening;
        let _ = writeln!(
            out,
            "Scenario `{}`, opens on {} · {} (`{}`).\n",
            code_span(&self.scenario.name),
            d.hotkey(),
            d.name(),
            d.id()
        );
        if !self.in_session {
            Self::room_keys(out);
        }
        let traces: Vec<&Trace> = self.traces.iter().collect();
        let most = crate::scenario::most_charges(self.traces);
        if self.scenario.quizzes.is_empty() {
            let _ = writeln!(out, "No questions: play it through and discuss.\n");
        }
        for (n, quiz) in self.scenario.quizzes.iter().enumerate() {
            let _ = writeln!(
                out,
                "**Question {}** ({}{}). {}\n",
                n + 1,
                inline(&target_text(&quiz.target, self.clock())),
                scope_text(&quiz.designs, self.withheld),
                inline(&quiz.question)
            );
            for (i, choice) in quiz.shown_choices(most).iter().enumerate() {
                let _ = write!(
                    out,
                    "{}{}. {}",
                    if i == 0 { "" } else { " · " },
                    i + 1,
                    inline(choice)
                );
            }
            out.push_str("\n\n");
            self.answer(out, quiz, &traces, true);
        }
        if !self.scenario.notes.is_empty() {
            let _ = writeln!(out, "Notes:\n");
            for note in &self.scenario.notes {
                let _ = writeln!(
                    out,
                    "- **{}{}:** {}",
                    inline(&target_text(&note.target, self.clock())),
                    scope_text(&note.designs, self.withheld),
                    inline(&one_line(&note.text))
                );
            }
            out.push('\n');
        }
    }

    /// The author's summary of the story, which says how it ends: after the answers only, and
    /// not at all while the outcome is hidden.
    pub(super) fn summary(&self, out: &mut String) {
        let text = self.scenario.description.trim();
        if text.is_empty() || !self.withheld.shows_outcome() {
            return;
        }
        let _ = writeln!(out, "## The story in brief\n");
        // The author's summary talks of the designs in its own words, which no word-swap can
        // hide faithfully: while names are hidden it is left out, and says so.
        if !self.withheld.shows_design() {
            let _ = writeln!(
                out,
                "The scenario's own summary names the designs, so it is left out while their names are hidden.\n"
            );
            return;
        }
        out.push_str(&block(&self.withheld.text(text)));
        out.push_str("\n\n");
    }

    /// One design: its timeline as a table (cut at [`MAX_HANDOUT_ROWS`] rows or
    /// [`MAX_TIMELINE_BYTES`], saying so), then how it ended. Returns whether it was cut.
    pub(super) fn design_section(
        &self,
        out: &mut String,
        trace: &Trace,
        told: &Told,
        lanes: &LaneNames,
    ) -> bool {
        let d = trace.design;
        let w = self.withheld;
        if w.shows_design() {
            let _ = writeln!(out, "## {} · {} (`{}`)\n", d.hotkey(), d.name(), d.id());
        } else {
            let _ = writeln!(out, "## {}\n", w.design(d));
        }
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
            let mut narration = cell(&w.narration(tick.kind, &told.narrations[index]));
            for (term, meaning) in crate::story::glossary::introduced_at(&first, index) {
                let _ = write!(narration, "<br>*{term}*: {}", cell(meaning));
            }
            let _ = writeln!(
                out,
                "| {} | {} | {} | {narration} |",
                cell(&trace.format_time(tick.at)),
                cell(lanes.of_tick(tick)),
                cell(&w.label(tick.kind, &told.labels[index])),
            );
        }
        let left_out = trace.ticks.len() - shown;
        if left_out > 0 {
            let choose = if w.shows_design() {
                d.id().to_string()
            } else {
                d.hotkey().to_string()
            };
            let _ = writeln!(
                out,
                "\n*The timeline is cut here: {left_out} more of its {} ticks are not shown. \
                 `idem run` on this scenario with `--design {choose}` prints every one.*",
                trace.ticks.len(),
            );
        }
        if w.shows_outcome() {
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
        } else {
            out.push('\n');
        }
        for warning in &trace.warnings {
            let _ = writeln!(out, "- Note: {}", inline(&w.text(&one_line(warning))));
        }
        out.push('\n');
        left_out > 0
    }

    /// Every design's outcome in one table.
    pub(super) fn comparison(&self, out: &mut String) {
        let _ = writeln!(out, "## Outcome across designs\n");
        let _ = writeln!(
            out,
            "| Design | Charges | Amount | Verdict | What the checkout believes |"
        );
        let _ = writeln!(out, "|---|--:|--:|---|---|");
        for trace in self.traces {
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
            let design = if self.withheld.shows_design() {
                format!(
                    "{} {}",
                    trace.design.hotkey(),
                    self.withheld.design_with_id(trace.design)
                )
            } else {
                self.withheld.design(trace.design)
            };
            let _ = writeln!(
                out,
                "| {design} | {} | {} | {} | {} |",
                o.charges,
                cell(&o.charged_cents.to_string()),
                o.verdict.id(),
                cell(&beliefs)
            );
        }
        out.push('\n');
    }

    /// The answers on a page of their own, after everything else so a reader meets the
    /// questions first; each under `traces`' designs where it depends on the design. While
    /// the outcome is hidden the answers (most of them outcomes) wait for the session.
    pub(super) fn answers(&self, out: &mut String, traces: &[&Trace], explained: bool) {
        let quizzes = &self.scenario.quizzes;
        if quizzes.is_empty() {
            return;
        }
        out.push_str(PAGE_BREAK);
        let _ = writeln!(out, "## Answers\n");
        if !self.withheld.shows_outcome() {
            let _ = writeln!(
                out,
                "The outcome is hidden from this handout, so the answers are given in the session.\n"
            );
            return;
        }
        for (n, quiz) in quizzes.iter().enumerate() {
            let scope = scope_text(&quiz.designs, self.withheld);
            let _ = writeln!(
                out,
                "**Question {}.**{} {}\n",
                n + 1,
                if scope.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", scope.trim_start_matches("; "))
                },
                inline(&self.withheld.text(&quiz.question))
            );
            self.answer(out, quiz, traces, explained);
        }
    }

    /// One question's answer (under each design when it depends on the design), and why (under
    /// each design when the explanation does).
    pub(super) fn answer(&self, out: &mut String, quiz: &Quiz, traces: &[&Trace], why: bool) {
        let w = self.withheld;
        // A question scoped to some designs is answered under those only.
        let traces: Vec<&Trace> = traces
            .iter()
            .copied()
            .filter(|t| quiz.designs.covers(t.design))
            .collect();
        let traces = traces.as_slice();
        // The author's explanations talk of the designs in their own words, which no
        // word-swap can hide faithfully: while names are hidden they are left out.
        let has_words = quiz.explanation.varies() || !quiz.explanation.other.trim().is_empty();
        let left_out = why && !w.shows_design() && has_words;
        let why = why && w.shows_design();
        let most = crate::scenario::most_charges(self.traces);
        let explained = |trace: &Trace| -> String {
            let text = if why {
                one_line(quiz.explanation.for_design(trace.design))
            } else {
                String::new()
            };
            if text.is_empty() {
                String::new()
            } else {
                format!(" — {}", inline(&w.text(&text)))
            }
        };
        match quiz.answer {
            QuizAnswer::Choice(_) => {
                let right = traces.first().and_then(|t| quiz.correct(t, most));
                let _ = writeln!(out, "Answer: {}\n", choice_text(quiz, most, right, w));
                if quiz.explanation.varies() {
                    for trace in traces {
                        let _ = writeln!(
                            out,
                            "- {}{}",
                            w.design_with_id(trace.design),
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
                        "- {}: {}{why}",
                        w.design_with_id(trace.design),
                        choice_text(quiz, most, quiz.correct(trace, most), w)
                    );
                }
                out.push('\n');
            }
        }
        let same = &quiz.explanation.other;
        if why && !quiz.explanation.varies() && !same.trim().is_empty() {
            out.push_str(&block(&w.text(same)));
            out.push_str("\n\n");
        }
        if left_out {
            let _ = writeln!(
                out,
                "(The scenario's explanation names the designs, so it is left out while their names are hidden.)\n"
            );
        }
    }
}
