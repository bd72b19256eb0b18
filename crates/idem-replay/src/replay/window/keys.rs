//! From a key press to an edit of the window screen: a pure function of the
//! screen and the key, so every key can be tested without a terminal.

use crate::replay::key::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use std::time::Duration;

use super::state::{
    BACKOFF_LADDER_MS, DELAY_LADDER_MS, Direction, MAX_ATTEMPTS, MIN_ATTEMPTS, Row, SAFETY_LADDER,
    WINDOW_LADDER_MS, WindowScreen,
};
use crate::scenario::Scenario;
use crate::window::scenario::replay_scenario;
use crate::window::{PathStart, Span, human_span};

/// What the caller should do after a key.
#[derive(Clone, Debug)]
// The scenario is handed over once, by value, when the screen closes; boxing it
// would only add an indirection the caller has to undo.
#[allow(clippy::large_enum_variant)]
pub enum WindowAction {
    /// Stay on the screen (it may have changed: draw it again).
    None,
    /// Leave the screen: Esc, q or w.
    Close,
    /// Enter: replay the current stack, which this scenario describes.
    OpenScenario(Scenario),
}

/// The keys of the window screen, as its footer lists them.
pub const KEYS: &[(&str, &str)] = &[
    (
        "↑↓ / k j",
        "select a row: layers, human paths, window, safety",
    ),
    (
        "←→ / h l",
        "less / more of the selected value (a layer's attempts)",
    ),
    (
        "[ ] / Shift+←→",
        "shorter / longer backoff of the selected layer",
    ),
    ("{ }", "shorter / longer timeout of the selected layer"),
    ("a", "add a layer outside the others"),
    ("A", "add a human path"),
    ("x / Delete", "remove the selected layer or path"),
    ("r", "reset to the worked example"),
    ("Enter", "replay this stack tick by tick"),
    ("Esc / q / w", "close"),
];

/// Everything the window screen can be asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowMsg {
    Close,
    Select(Direction),
    /// Home or End: the first row, or the last.
    SelectEnd {
        first: bool,
    },
    /// ←/→: the selected row's value.
    StepValue(Direction),
    /// [ ]: the selected layer's backoff.
    StepBackoff(Direction),
    /// { }: the selected layer's timeout.
    StepTimeout(Direction),
    AddLayer,
    AddPath,
    Remove,
    Reset,
    /// Enter: replay the stack.
    Replay,
}

/// The message a key asks for, if any; key releases ask for nothing.
pub fn message(key: KeyEvent) -> Option<WindowMsg> {
    use WindowMsg as M;
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    Some(match key.code {
        KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => M::Close,
        KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('w') => M::Close,
        KeyCode::Up | KeyCode::Char('k') => M::Select(Direction::Up),
        KeyCode::Down | KeyCode::Char('j') => M::Select(Direction::Down),
        KeyCode::Home | KeyCode::Char('g') => M::SelectEnd { first: true },
        KeyCode::End | KeyCode::Char('G') => M::SelectEnd { first: false },
        KeyCode::Left if shift => M::StepBackoff(Direction::Down),
        KeyCode::Right if shift => M::StepBackoff(Direction::Up),
        KeyCode::Char('H') | KeyCode::Char('[') => M::StepBackoff(Direction::Down),
        KeyCode::Char('L') | KeyCode::Char(']') => M::StepBackoff(Direction::Up),
        KeyCode::Char('{') => M::StepTimeout(Direction::Down),
        KeyCode::Char('}') => M::StepTimeout(Direction::Up),
        KeyCode::Left | KeyCode::Char('h') => M::StepValue(Direction::Down),
        KeyCode::Right | KeyCode::Char('l') => M::StepValue(Direction::Up),
        KeyCode::Char('a') => M::AddLayer,
        KeyCode::Char('A') => M::AddPath,
        KeyCode::Char('x') | KeyCode::Delete => M::Remove,
        KeyCode::Char('r') => M::Reset,
        KeyCode::Enter => M::Replay,
        _ => return None,
    })
}

impl WindowScreen {
    /// Applies one message and says what the caller should do next.
    pub fn update(&mut self, msg: WindowMsg) -> WindowAction {
        use WindowMsg as M;
        self.clear_notice();
        match msg {
            M::Close => return WindowAction::Close,
            M::Select(direction) => self.select(direction),
            M::SelectEnd { first } => self.select_end(first),
            M::StepBackoff(direction) => self.step_second(direction),
            M::StepTimeout(direction) => self.step_timeout(direction),
            M::StepValue(direction) => self.step_value(direction),
            M::AddLayer => self.add_layer(),
            M::AddPath => self.add_path(),
            M::Remove => self.remove_selected(),
            M::Reset => self.reset(),
            M::Replay => match replay_scenario(self.stack(), self.purchase()) {
                Ok(scenario) => return WindowAction::OpenScenario(scenario),
                Err(problem) => self.say(problem),
            },
        }
        WindowAction::None
    }

    /// Applies the message a key asks for, if any.
    pub fn handle_key(&mut self, key: KeyEvent) -> WindowAction {
        match message(key) {
            Some(msg) => self.update(msg),
            None => WindowAction::None,
        }
    }

    /// What ←/→ change on the selected row, for the footer.
    pub fn value_name(&self) -> &'static str {
        match self.selected() {
            Row::Layer(_) => "attempts",
            Row::Path(_) => "delay",
            Row::Window => "window",
            Row::Safety => "safety",
        }
    }

    /// One sentence about the selected row and the range its keys cover.
    pub fn editing_hint(&self) -> String {
        let stack = self.stack();
        match self.selected() {
            Row::Layer(i) => stack.layers.get(i).map_or_else(String::new, |l| {
                let attempts = if l.forever {
                    "attempts without limit".to_owned()
                } else {
                    format!("{} attempts", l.attempts)
                };
                let timeout = l.timeout.map_or_else(
                    || "no timeout (a try costs no time)".to_owned(),
                    |t| format!("tries of {}", spell(t)),
                );
                let mut text = format!(
                    "{}: {attempts}, waits {}, {timeout}. ←→ attempts {MIN_ATTEMPTS} to \
                     {MAX_ATTEMPTS}; [ ] backoff {}; {{ }} timeout.",
                    l.name,
                    l.schedule.describe(),
                    ladder_range(&BACKOFF_LADDER_MS),
                );
                if let Some(source) = &l.provenance {
                    text.push_str(&format!(" From {}.", source.place()));
                }
                for warning in &l.warnings {
                    text.push_str(&format!(" ⚠ {warning}"));
                }
                text
            }),
            Row::Path(i) => stack.paths.get(i).map_or_else(String::new, |p| {
                let when = match p.start {
                    PathStart::FirstAttempt => {
                        format!("{} after the first attempt", spell(p.delay))
                    }
                    PathStart::AfterGiveUp => {
                        format!("{} after the run before it gave up", spell(p.delay))
                    }
                };
                let mut text = format!(
                    "{}: a person sends the payment again {when}. ←→ delay {}; x removes it.",
                    p.name,
                    ladder_range(&DELAY_LADDER_MS)
                );
                if let Some(source) = &p.provenance {
                    text.push_str(&format!(" From {}.", source.place()));
                }
                text
            }),
            Row::Window => format!(
                "The processor keeps each key for {}. ←→ window {}.",
                spell(stack.window),
                ladder_range(&WINDOW_LADDER_MS)
            ),
            Row::Safety => format!(
                "The required window is the longest path × {}. ←→ safety factor {} to {} \
                 in steps of 0.5.",
                stack.safety,
                SAFETY_LADDER.first().copied().unwrap_or(1.0),
                SAFETY_LADDER.last().copied().unwrap_or(5.0)
            ),
        }
    }
}

fn spell(duration: Duration) -> String {
    human_span(Span::from_duration(duration))
}

/// "0 s to 1 day" for a ladder in milliseconds.
fn ladder_range(ladder_ms: &[u64]) -> String {
    let end =
        |ms: Option<&u64>| ms.map_or_else(String::new, |&ms| spell(Duration::from_millis(ms)));
    format!("{} to {}", end(ladder_ms.first()), end(ladder_ms.last()))
}
