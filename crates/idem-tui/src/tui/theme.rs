//! Colours and emphasis. Named terminal colours read on dark and light backgrounds alike;
//! with `NO_COLOR` set, emphasis comes from bold, reverse and dim alone.

use crate::story::outcome::Tone;
use ratatui::style::{Color, Modifier, Style};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Honours the `NO_COLOR` convention: any non-empty value turns colour off.
    pub fn from_env() -> Theme {
        Theme::for_no_color(std::env::var_os("NO_COLOR").as_deref())
    }

    /// The theme for a value of `NO_COLOR`: set and not empty means no colour.
    pub fn for_no_color(value: Option<&std::ffi::OsStr>) -> Theme {
        Theme {
            color: value.is_none_or(|v| v.is_empty()),
        }
    }

    fn fg(&self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    pub fn title(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
    /// Plain text drawn over something coloured (a label across a lane line) takes the
    /// terminal's own colour rather than what lies beneath.
    pub fn text(&self) -> Style {
        if self.color {
            Style::new().fg(Color::Reset)
        } else {
            Style::new()
        }
    }
    pub fn dim(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }
    pub fn bold(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }
    /// The current tick's row.
    pub fn current(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }
    /// A value that changed at this tick.
    pub fn changed(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
    pub fn lane(&self) -> Style {
        self.fg(Color::DarkGray)
    }
    pub fn active_design(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }
    pub fn lost(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    pub fn money(&self) -> Style {
        self.fg(Color::Magenta)
    }
    pub fn tone(&self, tone: Tone) -> Style {
        let color = match tone {
            Tone::Good => Color::Green,
            Tone::Bad => Color::Red,
            Tone::Warn => Color::Yellow,
        };
        self.fg(color).add_modifier(Modifier::BOLD)
    }
    pub fn key(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::story::outcome::Tone;

    #[test]
    fn no_color_set_and_not_empty_turns_colour_off() {
        use std::ffi::OsStr;
        assert!(Theme::for_no_color(None).color);
        assert!(Theme::for_no_color(Some(OsStr::new(""))).color);
        assert!(!Theme::for_no_color(Some(OsStr::new("1"))).color);
    }

    #[test]
    fn without_colour_emphasis_comes_from_modifiers_alone() {
        let plain = Theme { color: false };
        for style in [
            plain.title(),
            plain.changed(),
            plain.lost(),
            plain.money(),
            plain.key(),
            plain.lane(),
            plain.text(),
            plain.tone(Tone::Good),
            plain.tone(Tone::Bad),
        ] {
            assert_eq!(style.fg, None, "{style:?}");
            assert_eq!(style.bg, None, "{style:?}");
        }
        assert!(plain.current().add_modifier.contains(Modifier::REVERSED));
        let colour = Theme { color: true };
        assert_eq!(colour.tone(Tone::Bad).fg, Some(Color::Red));
    }
}
