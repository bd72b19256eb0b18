//! The state of the window screen: the stack being edited, which row is
//! selected, and the last thing the screen had to say. Every edit goes through
//! a method here, so the editor's limits hold whichever key asked for it.

use std::time::Duration;

use crate::window::scenario::Purchase;
use crate::window::{HumanPath, Layer, Report, Stack};

/// The most layers the editor builds: the attempts matrix stops at four.
pub const MAX_LAYERS: usize = 4;
/// The most human paths the editor adds: more no longer fit on an 80×24 screen.
pub const MAX_PATHS: usize = 4;
/// Attempts per layer the editor steps through.
pub const MIN_ATTEMPTS: u64 = 1;
/// See [`MIN_ATTEMPTS`].
pub const MAX_ATTEMPTS: u64 = 10;

const MS: u64 = 1;
const S: u64 = 1000 * MS;
const MIN: u64 = 60 * S;
const H: u64 = 60 * MIN;
const D: u64 = 24 * H;

/// The backoffs a layer steps through, in milliseconds.
pub const BACKOFF_LADDER_MS: [u64; 17] = [
    0,
    100 * MS,
    500 * MS,
    S,
    2 * S,
    5 * S,
    10 * S,
    30 * S,
    MIN,
    5 * MIN,
    10 * MIN,
    30 * MIN,
    H,
    2 * H,
    6 * H,
    12 * H,
    D,
];

/// The timeouts a layer steps through, in milliseconds; below the first rung
/// a layer has no timeout (a try costs no time, as the seed counts).
pub const TIMEOUT_LADDER_MS: [u64; 14] = [
    100 * MS,
    500 * MS,
    S,
    2 * S,
    5 * S,
    10 * S,
    15 * S,
    30 * S,
    MIN,
    2 * MIN,
    5 * MIN,
    15 * MIN,
    30 * MIN,
    H,
];

/// The delays a human path steps through, in milliseconds.
pub const DELAY_LADDER_MS: [u64; 18] = [
    MIN,
    5 * MIN,
    15 * MIN,
    30 * MIN,
    H,
    2 * H,
    6 * H,
    12 * H,
    D,
    2 * D,
    3 * D,
    4 * D,
    5 * D,
    7 * D,
    10 * D,
    14 * D,
    21 * D,
    30 * D,
];

/// The retention windows the window row steps through, in milliseconds.
pub const WINDOW_LADDER_MS: [u64; 18] = [
    H,
    2 * H,
    6 * H,
    12 * H,
    D,
    2 * D,
    3 * D,
    4 * D,
    5 * D,
    6 * D,
    7 * D,
    10 * D,
    14 * D,
    21 * D,
    30 * D,
    45 * D,
    60 * D,
    90 * D,
];

/// The safety factors the safety row steps through.
pub const SAFETY_LADDER: [f64; 9] = [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0];

/// Names given to added layers, outermost candidates first; the first one not
/// already in the stack is used.
const LAYER_NAMES: [&str; 5] = [
    "queue redelivery",
    "workflow engine",
    "job scheduler",
    "calling service",
    "http client",
];

/// Human paths offered by `A`, in order, with their delays.
const PATH_CHOICES: [(&str, u64); 4] = [
    ("restore from backup", 7 * D),
    ("dead-letter replay", 26 * H),
    ("operator rerun", 3 * D),
    ("support ticket replay", 14 * D),
];

/// One selectable row of the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// A retrying layer, by index (innermost first).
    Layer(usize),
    /// A human path, by index.
    Path(usize),
    /// The retention window.
    Window,
    /// The safety factor.
    Safety,
}

/// Which way a value moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Down,
    Up,
}

/// The window screen: a retry stack being edited, and where the user stands.
#[derive(Clone, Debug)]
pub struct WindowScreen {
    stack: Stack,
    /// The stack the screen was opened on, before any edit.
    opened_on: Stack,
    /// What Enter's replay buys: the scenario's own purchase when the screen
    /// was opened from one, order 5531 otherwise.
    purchase: Purchase,
    /// Index into the rows: layers, then paths, then window, then safety.
    selected: usize,
    /// What the last key could not do, or what it did that is not visible.
    notice: Option<String>,
}

impl WindowScreen {
    /// Opens the screen on `stack`, the first row selected.
    pub fn new(stack: Stack) -> Self {
        Self::buying(stack, Purchase::default())
    }

    /// Opens the screen on `stack`, Enter replaying it with `purchase`.
    pub fn buying(stack: Stack, purchase: Purchase) -> Self {
        Self {
            opened_on: stack.clone(),
            stack,
            purchase,
            selected: 0,
            notice: None,
        }
    }

    /// The stack the screen was opened on, before any edit.
    pub fn opened_on(&self) -> &Stack {
        &self.opened_on
    }

    /// The stack as edited so far.
    pub fn stack(&self) -> &Stack {
        &self.stack
    }

    /// What Enter's replay buys.
    pub fn purchase(&self) -> &Purchase {
        &self.purchase
    }

    /// The calculation for the current stack; `None` only for a stack the
    /// calculator refuses (which the editor never builds, but a caller might
    /// pass in).
    pub fn report(&self) -> Option<Report> {
        self.stack.report().ok()
    }

    /// Why the current stack cannot be computed, if it cannot.
    pub fn problem(&self) -> Option<String> {
        self.stack.report().err().map(|e| e.to_string())
    }

    /// The selected row.
    pub fn selected(&self) -> Row {
        self.row_at(self.selected)
    }

    /// What the screen has to say after the last key, if anything.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// How many rows can be selected.
    pub fn row_count(&self) -> usize {
        self.stack.layers.len() + self.stack.paths.len() + 2
    }

    /// The row at `index` in selection order.
    pub fn row_at(&self, index: usize) -> Row {
        let layers = self.stack.layers.len();
        let paths = self.stack.paths.len();
        if index < layers {
            Row::Layer(index)
        } else if index < layers + paths {
            Row::Path(index - layers)
        } else if index == layers + paths {
            Row::Window
        } else {
            Row::Safety
        }
    }

    pub fn clear_notice(&mut self) {
        self.notice = None;
    }

    pub fn say(&mut self, text: impl Into<String>) {
        self.notice = Some(text.into());
    }

    /// Moves the selection one row up or down, stopping at either end.
    pub fn select(&mut self, direction: Direction) {
        self.selected = match direction {
            Direction::Up => self.selected.saturating_sub(1),
            Direction::Down => (self.selected + 1).min(self.row_count() - 1),
        };
    }

    /// Selects the first row (`true`) or the last one.
    pub fn select_end(&mut self, first: bool) {
        self.selected = if first { 0 } else { self.row_count() - 1 };
    }

    /// Steps the selected row's main value: a layer's attempts, a path's
    /// delay, the window or the safety factor.
    pub fn step_value(&mut self, direction: Direction) {
        match self.selected() {
            Row::Layer(i) => self.step_attempts(i, direction),
            Row::Path(i) => self.step_delay(i, direction),
            Row::Window => self.step_window(direction),
            Row::Safety => self.step_safety(direction),
        }
    }

    /// Steps the selected layer's backoff; on any other row, the same as
    /// [`step_value`](Self::step_value).
    pub fn step_second(&mut self, direction: Direction) {
        match self.selected() {
            Row::Layer(i) => self.step_backoff(i, direction),
            _ => self.step_value(direction),
        }
    }

    fn step_attempts(&mut self, i: usize, direction: Direction) {
        let Some(layer) = self.stack.layers.get_mut(i) else {
            return;
        };
        if layer.forever {
            // A layer without a limit gets one, starting from the top rung.
            layer.forever = false;
            layer.attempts = MAX_ATTEMPTS;
            let text = format!("{}: now limited to {MAX_ATTEMPTS} attempts", layer.name);
            self.say(text);
            return;
        }
        let ladder: Vec<u64> = (MIN_ATTEMPTS..=MAX_ATTEMPTS).collect();
        match step(&ladder, layer.attempts, direction) {
            Some(next) => layer.attempts = next,
            None => {
                let limit = match direction {
                    Direction::Up => format!("at most {MAX_ATTEMPTS} attempts per layer here"),
                    Direction::Down => {
                        "at least 1 attempt: a layer always makes its first try".to_owned()
                    }
                };
                let text = format!("{}: {limit}", layer.name);
                self.say(text);
            }
        }
    }

    fn step_backoff(&mut self, i: usize, direction: Direction) {
        let Some(layer) = self.stack.layers.get_mut(i) else {
            return;
        };
        match step_duration(&BACKOFF_LADDER_MS, layer.backoff(), direction) {
            Some(next) => layer.schedule = layer.schedule.with_first(next),
            None => {
                let name = layer.name.clone();
                self.say(end_of_ladder(
                    &name,
                    "backoff",
                    &BACKOFF_LADDER_MS,
                    direction,
                ));
            }
        }
    }

    /// Steps the selected layer's timeout: from none up the ladder, and back
    /// down to none.
    pub fn step_timeout(&mut self, direction: Direction) {
        let Row::Layer(i) = self.selected() else {
            self.say("only a layer has a timeout: select one with ↑↓");
            return;
        };
        let Some(layer) = self.stack.layers.get_mut(i) else {
            return;
        };
        let next = match (layer.timeout, direction) {
            (None, Direction::Up) => TIMEOUT_LADDER_MS.first().map(|&ms| Some(ms)),
            (None, Direction::Down) => None,
            (Some(t), Direction::Down) if t <= Duration::from_millis(TIMEOUT_LADDER_MS[0]) => {
                Some(None)
            }
            (Some(t), _) => step_duration(&TIMEOUT_LADDER_MS, t, direction)
                .map(|d| Some(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))),
        };
        match next {
            Some(ms) => layer.timeout = ms.map(Duration::from_millis),
            None => {
                let name = layer.name.clone();
                let text = match direction {
                    Direction::Down => format!("{name}: no timeout already (a try costs no time)"),
                    Direction::Up => end_of_ladder(&name, "timeout", &TIMEOUT_LADDER_MS, direction),
                };
                self.say(text);
            }
        }
    }

    fn step_delay(&mut self, i: usize, direction: Direction) {
        let Some(path) = self.stack.paths.get_mut(i) else {
            return;
        };
        match step_duration(&DELAY_LADDER_MS, path.delay, direction) {
            Some(next) => path.delay = next,
            None => {
                let name = path.name.clone();
                self.say(end_of_ladder(&name, "delay", &DELAY_LADDER_MS, direction));
            }
        }
    }

    fn step_window(&mut self, direction: Direction) {
        match step_duration(&WINDOW_LADDER_MS, self.stack.window, direction) {
            Some(next) => self.stack.window = next,
            None => self.say(end_of_ladder(
                "the window",
                "length",
                &WINDOW_LADDER_MS,
                direction,
            )),
        }
    }

    fn step_safety(&mut self, direction: Direction) {
        let next = match direction {
            Direction::Up => SAFETY_LADDER.iter().find(|&&f| f > self.stack.safety),
            Direction::Down => SAFETY_LADDER.iter().rev().find(|&&f| f < self.stack.safety),
        };
        match next {
            Some(&factor) => self.stack.safety = factor,
            None => self.say(match direction {
                Direction::Up => "the safety factor goes up to 5 here",
                Direction::Down => "the safety factor is at least 1 (1 means no margin)",
            }),
        }
    }

    /// Adds a layer outside the others (1 min backoff, 3 attempts) and
    /// selects it.
    pub fn add_layer(&mut self) {
        if self.stack.layers.len() >= MAX_LAYERS {
            self.say(format!(
                "at most {MAX_LAYERS} layers here, the rows of the attempts matrix"
            ));
            return;
        }
        let name = LAYER_NAMES
            .iter()
            .find(|n| !self.stack.layers.iter().any(|l| l.name == **n))
            .map_or_else(
                || format!("layer {}", self.stack.layers.len() + 1),
                |n| (*n).to_owned(),
            );
        let index = self.stack.layers.len();
        self.stack
            .layers
            .push(Layer::new(name, Duration::from_secs(60), 3));
        self.selected = index;
    }

    /// Adds a human path (the first of the usual ones not yet listed) and
    /// selects it.
    pub fn add_path(&mut self) {
        if self.stack.paths.len() >= MAX_PATHS {
            self.say(format!("at most {MAX_PATHS} human paths here"));
            return;
        }
        let (name, delay) = PATH_CHOICES
            .iter()
            .find(|(n, _)| !self.stack.paths.iter().any(|p| p.name == *n))
            .map_or_else(
                || (format!("human path {}", self.stack.paths.len() + 1), 7 * D),
                |(n, d)| ((*n).to_owned(), *d),
            );
        self.stack
            .paths
            .push(HumanPath::new(name, Duration::from_millis(delay)));
        self.selected = self.stack.layers.len() + self.stack.paths.len() - 1;
    }

    /// Removes the selected layer or human path; the last layer stays.
    pub fn remove_selected(&mut self) {
        match self.selected() {
            Row::Layer(i) => {
                if self.stack.layers.len() <= 1 {
                    self.say("a stack keeps at least one layer");
                    return;
                }
                let removed = self.stack.layers.remove(i);
                self.say(format!("removed the layer {}", removed.name));
                // Stay among the layers: the one that took its place, or the new outermost.
                self.selected = i.min(self.stack.layers.len() - 1);
            }
            Row::Path(i) => {
                let removed = self.stack.paths.remove(i);
                self.say(format!("removed the human path {}", removed.name));
                // The path that took its place, the one before it, or the window row.
                let paths = self.stack.paths.len();
                self.selected = self.stack.layers.len() + i.min(paths);
            }
            Row::Window | Row::Safety => {
                self.say("only layers and human paths can be removed");
            }
        }
    }

    /// Puts back the worked example of docs/model.md §4.
    pub fn reset(&mut self) {
        self.stack = Stack::worked_example();
        self.selected = 0;
        self.say("back to the worked example");
    }
}

/// The next value of `ladder` strictly above or below `current`. Values off
/// the ladder (from a config file, say) step to the nearest rung.
fn step<T: PartialOrd + Copy>(ladder: &[T], current: T, direction: Direction) -> Option<T> {
    match direction {
        Direction::Up => ladder.iter().copied().find(|&v| v > current),
        Direction::Down => ladder.iter().rev().copied().find(|&v| v < current),
    }
}

fn step_duration(ladder_ms: &[u64], current: Duration, direction: Direction) -> Option<Duration> {
    let ladder: Vec<Duration> = ladder_ms
        .iter()
        .map(|&ms| Duration::from_millis(ms))
        .collect();
    step(&ladder, current, direction)
}

fn end_of_ladder(name: &str, what: &str, ladder_ms: &[u64], direction: Direction) -> String {
    let (word, end) = match direction {
        Direction::Up => ("longest", ladder_ms.last()),
        Direction::Down => ("shortest", ladder_ms.first()),
    };
    let end = end.map_or_else(String::new, |&ms| {
        format!(
            " ({})",
            crate::window::human_span(crate::window::Span::from_duration(Duration::from_millis(
                ms
            )))
        )
    });
    format!("{name}: already the {word} {what} here{end}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_ladder_values_step_to_the_nearest_rung() {
        let ladder = [1, 3, 5];
        assert_eq!(step(&ladder, 4, Direction::Up), Some(5));
        assert_eq!(step(&ladder, 4, Direction::Down), Some(3));
        assert_eq!(step(&ladder, 9, Direction::Down), Some(5));
        assert_eq!(step(&ladder, 5, Direction::Up), None);
    }

    #[test]
    fn ladders_are_sorted() {
        for ladder in [&BACKOFF_LADDER_MS[..], &DELAY_LADDER_MS, &WINDOW_LADDER_MS] {
            assert!(ladder.windows(2).all(|w| w[0] < w[1]));
        }
        assert!(SAFETY_LADDER.windows(2).all(|w| w[0] < w[1]));
    }
}
