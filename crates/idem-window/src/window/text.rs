//! The plain-text report printed by `idem window`.
//!
//! Coverage is spelled out in words ("covered" / "NOT covered") so the output
//! reads the same without colour, in logs and in tests.

use std::fmt::Write as _;

use super::calculation::Report;

/// Left column width of the summary lines.
const LABEL_WIDTH: usize = 25;

/// Pads `text` with spaces to `width` columns.
fn pad(text: &str, width: usize) -> String {
    crate::text::pad(text, width, crate::text::Align::Left)
}

/// The widest of `texts` in columns of the terminal, and at least `at_least`.
fn widest<'a>(texts: impl Iterator<Item = &'a str>, at_least: usize) -> usize {
    use unicode_width::UnicodeWidthStr;
    texts.map(UnicodeWidthStr::width).fold(at_least, usize::max)
}

impl Report {
    /// One sentence saying whether the window is long enough and, if not, why.
    pub fn verdict(&self) -> String {
        if self.required_window.is_unbounded() {
            let endless = self.layers.iter().filter(|l| l.forever).count().max(1);
            let layers = if endless == 1 {
                "a layer retries"
            } else {
                "layers retry"
            };
            return format!(
                "No window is long enough: {layers} without a bound, and the duplicates never \
                 stop. Give it a number of attempts or a deadline."
            );
        }
        let window = self.window.to_string();
        let required = self.required_window.to_string();
        let uncovered = self.uncovered_count();
        let total = self.paths.len();
        if uncovered > 0 {
            // "1 of 3 paths arrives", "2 of 3 paths arrive", "1 of 1 path arrives".
            let noun = if total == 1 { "path" } else { "paths" };
            let verb = if uncovered == 1 { "arrives" } else { "arrive" };
            format!(
                "The window of {window} is too short: {uncovered} of {total} {noun} {verb} \
                 after it expires; it needs {required}."
            )
        } else if !self.window_is_enough() {
            format!(
                "The window of {window} covers every path, but without the safety factor of {}; it needs {required}.",
                self.safety
            )
        } else {
            format!(
                "The window of {window} is long enough: it covers every path with a safety factor of {} (it needs {required}).",
                self.safety
            )
        }
    }

    /// The full text report, ending with a newline.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write_layers(&mut out);
        self.write_sources(&mut out);
        out.push('\n');
        let line = |out: &mut String, label: &str, value: &str| {
            let _ = writeln!(out, "{}{value}", pad(label, LABEL_WIDTH));
        };
        line(
            &mut out,
            "Attempts for one intent",
            &self.attempts.to_string(),
        );
        // Seconds, then the same span in larger units, unless that reads the same.
        let both = |seconds: String, human: String| {
            if seconds == human {
                seconds
            } else {
                format!("{seconds} ({human})")
            }
        };
        let automatic = if self.automatic_delay.is_unbounded() {
            self.automatic_delay.to_string()
        } else {
            both(
                self.automatic_delay.seconds_text(),
                self.automatic_delay.to_string(),
            )
        };
        line(&mut out, "Automatic delay", &automatic);
        if self.timeouts_known && !self.gives_up.is_unbounded() {
            let gives_up = both(self.gives_up.seconds_text(), self.gives_up.to_string());
            line(&mut out, "Gives up after", &gives_up);
        }
        if self.sends != self.attempts {
            let sent = format!("{} (deadlines cut the others short)", self.sends);
            line(&mut out, "Requests sent", &sent);
        }
        out.push('\n');
        self.write_paths(&mut out);
        out.push('\n');
        let longest = format!("{}, {}", self.longest.name, self.longest.delay);
        line(&mut out, "Longest path", &longest);
        line(&mut out, "Safety factor", &self.safety.to_string());
        let required = if self.required_window.is_unbounded() {
            "none is long enough".to_owned()
        } else {
            format!(
                "{} ({})",
                self.required_window,
                self.required_window.seconds_text()
            )
        };
        line(&mut out, "Required window", &required);
        line(&mut out, "Current window", &self.window.to_string());
        out.push('\n');
        out.push_str(&self.verdict());
        out.push('\n');
        if let Some(sentence) = self.keys_sentence() {
            out.push_str(&sentence);
            out.push('\n');
        }
        if let Some(advice) = self.provider_advice() {
            out.push_str(&advice);
            out.push('\n');
        }
        if !self.notes.is_empty() {
            out.push_str("\nNotes\n");
            for note in &self.notes {
                let _ = writeln!(out, "  {note}");
            }
        }
        out
    }

    /// With `--keys-kept` and a path the window does not cover: what closes the gap when
    /// the provider, not the team, sets how long keys are kept.
    pub fn provider_advice(&self) -> Option<String> {
        let by = self.keys_kept_by.as_deref()?;
        if self.uncovered_count() == 0 || self.required_window.is_unbounded() {
            return None;
        }
        Some(format!(
            "{by} sets the window of {}, and no setting of yours makes it longer. Close the gap \
             from your side: make the slowest path shorter (rerun sooner, or retry for less \
             long), before a rerun look the order up among the charges already made (yours, or \
             the provider's list) and charge only if none is found, since an expired key \
             proves nothing, and reconcile charges against orders so a duplicate that slips through \
             is found and refunded.",
            self.window
        ))
    }

    /// With `--keys-kept`: how long the retries last against how long the
    /// provider keeps keys, in one sentence.
    pub fn keys_sentence(&self) -> Option<String> {
        let by = self.keys_kept_by.as_deref()?;
        let automatic = &self.paths[0];
        let verdict = if automatic.covered {
            "long enough for them"
        } else {
            "the last retries arrive after the key is gone"
        };
        Some(format!(
            "Your retries last {}; {by} keeps keys {}: {verdict}.",
            super::two_units(self.automatic_delay),
            super::two_units(self.window),
        ))
    }

    /// Where each layer and path was read, what was assumed, and what to
    /// watch out for.
    fn write_sources(&self, out: &mut String) {
        let layers = self
            .layers
            .iter()
            .enumerate()
            .filter(|(_, l)| l.provenance.is_some() || !l.warnings.is_empty());
        let paths = self.paths.iter().filter(|p| p.provenance.is_some());
        let mut wrote_title = false;
        let mut title = |out: &mut String| {
            if !wrote_title {
                out.push_str("\nWhere the values were read\n");
                wrote_title = true;
            }
        };
        for (i, layer) in layers {
            title(out);
            let place = layer
                .provenance
                .as_ref()
                .map_or_else(|| "typed in".to_owned(), super::Provenance::place);
            let _ = writeln!(out, "  {} {}: {place}", i + 1, layer.name);
            if let Some(source) = &layer.provenance {
                for value in &source.values {
                    let _ = writeln!(out, "      {value}");
                }
            }
            if layer.jitter != super::Jitter::None {
                let _ = writeln!(out, "      {}", layer.jitter.worst_case());
            }
            for warning in &layer.warnings {
                let _ = writeln!(out, "    ⚠ {warning}");
            }
        }
        for path in paths {
            title(out);
            if let Some(source) = &path.provenance {
                let _ = writeln!(out, "  {}: {}", path.name, source.place());
                for value in &source.values {
                    let _ = writeln!(out, "      {value}");
                }
            }
        }
    }

    fn write_layers(&self, out: &mut String) {
        if self.layers.is_empty() {
            out.push_str("Retry stack: no retrying layers (one attempt, nothing to wait for)\n");
            return;
        }
        // A layer that makes one attempt never waits to retry: it has no backoff to list.
        let backoffs: Vec<String> = self
            .layers
            .iter()
            .map(|l| {
                if l.attempts <= 1 && !l.forever {
                    "- (no retry)".to_owned()
                } else {
                    l.schedule.describe()
                }
            })
            .collect();
        let attempts: Vec<String> = self
            .layers
            .iter()
            .map(|l| {
                if l.forever {
                    "no limit".to_owned()
                } else {
                    super::group_digits(u128::from(l.attempts))
                }
            })
            .collect();
        let with_timeouts = self
            .layers
            .iter()
            .any(|l| l.timeout.is_some() || l.deadline.is_some());
        let timeouts: Vec<String> = self
            .layers
            .iter()
            .map(|l| {
                l.timeout.map_or_else(
                    || "-".to_owned(),
                    |t| super::Span::from_duration(t).to_string(),
                )
            })
            .collect();
        let number_width = self.layers.len().to_string().len();
        let name_width = widest(self.layers.iter().map(|l| l.name.as_str()), "layer".len());
        let backoff_width = widest(backoffs.iter().map(String::as_str), "backoff".len());
        let attempts_width = widest(attempts.iter().map(String::as_str), "attempts".len());
        let deadlines: Vec<String> = self
            .layers
            .iter()
            .map(|l| {
                l.deadline.map_or_else(
                    || "-".to_owned(),
                    |t| super::Span::from_duration(t).to_string(),
                )
            })
            .collect();
        let with_deadlines = self.layers.iter().any(|l| l.deadline.is_some());
        let timeout_width = widest(timeouts.iter().map(String::as_str), "timeout".len());
        let deadline_width = widest(deadlines.iter().map(String::as_str), "deadline".len());

        out.push_str("Retry stack, innermost layer first\n");
        let row = |out: &mut String, cells: [&str; 6]| {
            let [n, name, backoff, count, t, d] = cells;
            let _ = write!(
                out,
                "  {n:>number_width$}  {}  {}  {count:>attempts_width$}",
                pad(name, name_width),
                pad(backoff, backoff_width),
            );
            if with_timeouts {
                let _ = write!(out, "  {t:>timeout_width$}");
            }
            if with_deadlines {
                let _ = write!(out, "  {d:>deadline_width$}");
            }
            out.push('\n');
        };
        row(
            out,
            ["#", "layer", "backoff", "attempts", "timeout", "deadline"],
        );
        for (i, layer) in self.layers.iter().enumerate() {
            let number = (i + 1).to_string();
            row(
                out,
                [
                    &number,
                    &layer.name,
                    &backoffs[i],
                    &attempts[i],
                    &timeouts[i],
                    &deadlines[i],
                ],
            );
        }
    }

    fn write_paths(&self, out: &mut String) {
        let delays: Vec<String> = self.paths.iter().map(|p| p.delay.to_string()).collect();
        let name_width = widest(self.paths.iter().map(|p| p.name.as_str()), "path".len());
        let delay_width = widest(delays.iter().map(String::as_str), "delay".len());
        let _ = writeln!(
            out,
            "{}  {}  within {}?",
            pad("Path", name_width),
            pad("delay", delay_width),
            self.window
        );
        for (path, delay) in self.paths.iter().zip(&delays) {
            let status = if path.covered {
                "covered"
            } else {
                "NOT covered"
            };
            let _ = writeln!(
                out,
                "{}  {}  {status}",
                pad(&path.name, name_width),
                pad(delay, delay_width)
            );
        }
    }
}
