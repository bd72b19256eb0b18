//! The replay's state: the scenario, its trace under every design, where the viewer stands,
//! and what is on screen. Everything the view draws is read from here.

use crate::scenario::Scenario;
use crate::sim::{Design, Instant, SimError, Trace};
use std::time::Duration;

/// The screens of the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    Replay,
    Compare,
}

/// Something drawn over the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
}

/// The autoplay speeds a room can read, as multiples of the base pace.
pub const SPEEDS: [f32; 5] = [0.5, 1.0, 1.5, 2.0, 4.0];
/// One tick every this long at 1×.
const BASE_PACE: Duration = Duration::from_millis(1800);

/// The whole state of the terminal UI.
#[derive(Debug)]
pub struct App {
    pub scenario: Scenario,
    /// How the scenario was named on the command line, for the shareable command.
    pub source: String,
    /// The trace under each design, in `Design::ALL` order.
    pub traces: Vec<Trace>,
    pub design: Design,
    /// Index of the current tick in the current design's trace.
    pub tick: usize,
    /// In the compare screen, the virtual time all designs stand at.
    pub compare_at: Instant,
    pub screen: Screen,
    pub overlay: Overlay,
    pub playing: bool,
    pub speed: usize,
    /// A one-line notice for the footer, such as where `d` jumped.
    pub notice: Option<String>,
    pub quit: bool,
}

impl App {
    /// Simulates every design up front, so switching and stepping never wait.
    pub fn new(scenario: Scenario, source: String) -> Result<App, SimError> {
        let traces = Design::ALL
            .iter()
            .map(|d| scenario.simulate(*d))
            .collect::<Result<Vec<_>, _>>()?;
        let design = scenario.design;
        Ok(App {
            scenario,
            source,
            traces,
            design,
            tick: 0,
            compare_at: Instant(0),
            screen: Screen::Replay,
            overlay: Overlay::None,
            playing: false,
            speed: 1,
            notice: None,
            quit: false,
        })
    }

    pub fn trace_of(&self, design: Design) -> &Trace {
        let i = Design::ALL.iter().position(|d| *d == design).unwrap_or(0);
        &self.traces[i]
    }

    pub fn trace(&self) -> &Trace {
        self.trace_of(self.design)
    }

    pub fn last_tick(&self) -> usize {
        self.trace().ticks.len().saturating_sub(1)
    }

    pub fn at_end(&self) -> bool {
        self.tick >= self.last_tick()
    }

    /// The current virtual time.
    pub fn now(&self) -> Instant {
        match self.screen {
            Screen::Replay => self
                .trace()
                .ticks
                .get(self.tick)
                .map_or(Instant(0), |t| t.at),
            Screen::Compare => self.compare_at,
        }
    }

    /// Moves to the tick of `design` that stands where the current tick stands in time: the
    /// same tick among those at the same instant, else the last one before it.
    pub fn position_in(&self, design: Design) -> usize {
        let trace = self.trace();
        let Some(here) = trace.ticks.get(self.tick) else {
            return 0;
        };
        let ordinal = trace.ticks[..self.tick]
            .iter()
            .rev()
            .take_while(|t| t.at == here.at)
            .count();
        let other = self.trace_of(design);
        let first_same = other.ticks.partition_point(|t| t.at < here.at);
        let same = other.ticks[first_same..]
            .iter()
            .take_while(|t| t.at == here.at)
            .count();
        if same > 0 {
            first_same + ordinal.min(same - 1)
        } else {
            first_same.saturating_sub(1)
        }
    }

    /// The first tick where the current design's trace departs from another design's, and
    /// the design it departs from (the earliest such tick over all the others).
    pub fn divergence(&self) -> Option<(usize, Design)> {
        let mine = self.trace();
        Design::ALL
            .iter()
            .filter(|d| **d != self.design)
            .filter_map(|d| first_difference(mine, self.trace_of(*d)).map(|i| (i, *d)))
            .min_by_key(|(i, _)| *i)
    }

    /// How long autoplay waits between ticks at the current speed.
    pub fn pace(&self) -> Duration {
        BASE_PACE.div_f32(SPEEDS[self.speed])
    }

    /// The command that reopens exactly this view.
    pub fn share_command(&self) -> String {
        let at = self.trace().clock.format_short(self.now());
        let at = if at.contains(' ') {
            format!("\"{at}\"")
        } else {
            at
        };
        format!(
            "idem {} --design {} --at {at}",
            self.source,
            self.design.id()
        )
    }
}

/// The index of the first tick that differs in what happened (time, lane, kind or label).
pub fn first_difference(a: &Trace, b: &Trace) -> Option<usize> {
    let same = |x: &crate::sim::Tick, y: &crate::sim::Tick| {
        x.at == y.at && x.actor == y.actor && x.kind == y.kind && x.label == y.label
    };
    let common = a.ticks.len().min(b.ticks.len());
    (0..common)
        .find(|&i| !same(&a.ticks[i], &b.ticks[i]))
        .or((a.ticks.len() != b.ticks.len()).then_some(common))
}
