//! A session file: the scenarios of one talk, in order, each with the design it opens on and
//! the time it may take. `idem present session.toml` walks a room through them (PageDown at a
//! scenario's last tick opens the next), and `idem export session.toml --format md` writes one
//! handout for all of them.
//!
//! ```toml
//! title = "Retries that charge twice"
//! hide = ["design"]            # optional: design, statement, outcome
//!
//! [[section]]
//! scenario = "order-5531"      # a built-in name, or a path relative to this file
//! design = "no-key"            # optional: the design to open on
//! budget = "10m"               # optional: the time this part may take
//! hide = ["outcome"]           # optional: hidden in this part too, besides the session's
//! ```
//!
//! Every scenario is read and checked when the session is, so a broken one is reported before
//! the room sees anything, at the line and column of the section that names it.

use super::Hide;
use crate::scenario::diagnostic::{Diagnostic, Severity};
use crate::scenario::values::did_you_mean;
use crate::scenario::{Scenario, ScenarioError, library};
use crate::sim::Design;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// The largest session file read: a playlist is a few lines per scenario.
pub const MAX_SESSION_BYTES: u64 = 64 * 1024;
/// The most scenarios one session plays.
pub const MAX_SECTIONS: usize = 50;
/// The longest budget a section may have.
const MAX_BUDGET_MS: u64 = 24 * 3_600_000;

/// A session, read and checked, every scenario loaded.
#[derive(Clone, Debug)]
pub struct Playlist {
    pub title: String,
    pub description: String,
    /// The file as messages name it.
    pub file: String,
    /// Where the session was read from, to read it again when it changes; `None` for one
    /// made from text.
    pub path: Option<PathBuf>,
    /// What the room does not see until the trainer reveals it.
    pub hide: Hide,
    pub sections: Vec<Section>,
}

/// One scenario of a session.
#[derive(Clone, Debug)]
pub struct Section {
    /// The scenario as the file names it (a built-in name or a path), for display.
    pub source: String,
    /// What the agenda calls it: the section's own title, else the scenario's.
    pub title: String,
    /// The session file gives the section a title of its own (else it follows the scenario's).
    pub own_title: bool,
    pub scenario: Scenario,
    /// The design to open on (default: the scenario's own).
    pub design: Design,
    /// How long this part of the talk may take.
    pub budget: Option<Duration>,
    /// The keys the command line chose for the whole session (`--key-strategy`,
    /// `--step-keys`), applied to this part each time it is read.
    pub keys: Keys,
    /// What this part hides from the room besides what the whole session hides.
    pub hide: Hide,
}

/// Keys chosen for every part of a session: the checkout's strategy, and how the steps after
/// payment key their calls (for the parts that have steps).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Keys {
    pub strategy: Option<crate::sim::config::KeyStrategy>,
    pub steps: Option<crate::sim::config::KeyMode>,
}

impl Keys {
    /// `scenario` keyed so; a part without steps keeps its own (it has none to key).
    pub fn apply(self, scenario: &Scenario) -> Scenario {
        let steps = self.steps.filter(|_| !scenario.config.steps.is_empty());
        scenario
            .rekeyed(self.strategy, steps)
            .unwrap_or_else(|_| scenario.clone())
    }
}

impl Section {
    /// The part's scenario as just read from its file: without a title of its own, the part
    /// takes the scenario's, so the agenda and the notes name it as the file now does.
    pub fn take(&mut self, scenario: Scenario) {
        if !self.own_title {
            self.title = scenario.title.clone();
        }
        self.scenario = scenario;
    }
}

impl Playlist {
    /// Keys every part as `keys` says, now and each time a part is read again.
    pub fn keyed(mut self, keys: Keys) -> Playlist {
        for section in &mut self.sections {
            section.keys = keys;
            section.scenario = keys.apply(&section.scenario);
        }
        self
    }

    /// What reading the session again needs: its file and the keys its parts are given;
    /// `None` when it was not read from a file.
    pub fn source(&self) -> Option<(PathBuf, Keys)> {
        let keys = self.sections.first().map(|s| s.keys).unwrap_or_default();
        Some((self.path.clone()?, keys))
    }

    /// The whole time the sections' budgets add up to, when every section has one.
    pub fn budget(&self) -> Option<Duration> {
        self.sections.iter().map(|s| s.budget).sum()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    title: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    hide: Vec<Spanned<String>>,
    #[serde(default)]
    section: Vec<Spanned<SectionSpec>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SectionSpec {
    scenario: Spanned<String>,
    title: Option<String>,
    design: Option<Spanned<String>>,
    budget: Option<Spanned<String>>,
    #[serde(default)]
    hide: Vec<Spanned<String>>,
}

/// Whether a file's text is a session rather than a scenario: it lists `[[section]]`s.
pub fn is_session(text: &str) -> bool {
    match text.parse::<toml::Table>() {
        Ok(table) => table.contains_key("section"),
        // Broken TOML: a session's own header still says what it was meant to be.
        Err(_) => text
            .lines()
            .any(|l| l.trim_start().starts_with("[[section]]")),
    }
}

/// Whether `arg` names a session file: an existing file whose text is a session.
pub fn names_session(arg: &str) -> bool {
    names_session_at(Path::new(arg))
}

/// [`names_session`] for a path, which need not be UTF-8.
pub fn names_session_at(path: &Path) -> bool {
    path.is_file()
        && crate::bounded_read::read_regular_file(path, MAX_SESSION_BYTES)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .is_some_and(|text| is_session(&text))
}

/// Reads a session file and every scenario it names.
pub fn load(path: &Path) -> Result<Playlist, ScenarioError> {
    let (file, text) = crate::scenario::read_text(path, MAX_SESSION_BYTES, "a session file")?;
    let base = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let mut playlist = parse(&file, &text, &base)?;
    playlist.path = Some(path.to_path_buf());
    Ok(playlist)
}

/// The session at `path` as the file says now, every part keyed as `keys` says. Reads every
/// scenario it names, so it belongs off the screen's thread.
pub fn reread(path: &Path, keys: Keys) -> Result<Playlist, String> {
    load(path).map(|p| p.keyed(keys)).map_err(|e| e.one_line())
}

/// Reads a session from its text; `file` names it in messages, and the scenarios' paths are
/// relative to `base`.
pub fn parse(file: &str, text: &str, base: &Path) -> Result<Playlist, ScenarioError> {
    crate::scenario::check_shape(file, text)?;
    let parsed: File = toml::from_str(text).map_err(|e| ScenarioError {
        file: file.to_string(),
        diagnostics: vec![crate::scenario::toml_diagnostic(text, &e)],
    })?;
    let mut problems: Vec<Diagnostic> = Vec::new();
    let title = crate::text::sanitize_line(parsed.title.trim());
    if title.is_empty() {
        problems.push(Diagnostic::whole(
            Severity::Error,
            "the session's title is empty: give the talk a title".into(),
        ));
    }
    if parsed.section.is_empty() {
        problems.push(Diagnostic::whole(
            Severity::Error,
            "a session plays at least one scenario: add a [[section]] with scenario = \"…\"".into(),
        ));
    }
    let mut error = |span: std::ops::Range<usize>, message: String| {
        problems.push(Diagnostic::at(Severity::Error, text, span, message));
    };
    let hide = hide_of(&parsed.hide, &mut error);
    if let Some(extra) = parsed.section.get(MAX_SECTIONS) {
        error(
            extra.span(),
            format!("a session plays at most {MAX_SECTIONS} scenarios; split it into two sessions"),
        );
    }
    let mut sections = Vec::new();
    // A scenario named again is read and checked once; each section gets its own copy.
    let mut loaded: std::collections::HashMap<&str, Result<Scenario, String>> =
        std::collections::HashMap::new();
    for spec in parsed.section.iter().take(MAX_SECTIONS) {
        let s = spec.get_ref();
        let section_hide = hide_of(&s.hide, &mut error);
        let design = match &s.design {
            None => None,
            Some(d) => match d.get_ref().parse::<Design>() {
                Ok(design) => Some(design),
                Err(e) => {
                    let ids: Vec<&str> = Design::ALL.iter().map(|d| d.id()).collect();
                    let hint = did_you_mean(d.get_ref(), ids.iter().copied())
                        .map(|s| format!(" (did you mean `{s}`?)"))
                        .unwrap_or_default();
                    error(
                        d.span(),
                        format!("{}{hint}", crate::text::sanitize_line(&e)),
                    );
                    continue;
                }
            },
        };
        let budget = match &s.budget {
            None => None,
            Some(b) => match crate::scenario::values::parse_duration(b.get_ref()) {
                Ok(ms) if (1_000..=MAX_BUDGET_MS).contains(&ms) => Some(Duration::from_millis(ms)),
                Ok(_) => {
                    error(
                        b.span(),
                        "a section's budget is between 1 s and 24 h, such as \"10m\"".into(),
                    );
                    continue;
                }
                Err(e) => {
                    error(b.span(), crate::text::sanitize_line(&e));
                    continue;
                }
            },
        };
        let named = s.scenario.get_ref();
        let scenario = match loaded
            .entry(named.as_str())
            .or_insert_with(|| resolve_in(base, named))
        {
            Ok(scenario) => scenario.clone(),
            Err(why) => {
                error(s.scenario.span(), why.clone());
                continue;
            }
        };
        let own_title = s
            .title
            .as_deref()
            .map(|t| crate::text::sanitize_line(t.trim()))
            .filter(|t| !t.is_empty());
        sections.push(Section {
            source: crate::text::sanitize_line(named),
            own_title: own_title.is_some(),
            title: own_title.unwrap_or_else(|| scenario.title.clone()),
            design: design.unwrap_or(scenario.design),
            scenario,
            budget,
            hide: section_hide,
            keys: Keys::default(),
        });
    }
    if !problems.is_empty() {
        return Err(ScenarioError {
            file: file.to_string(),
            diagnostics: problems,
        });
    }
    Ok(Playlist {
        title,
        description: crate::text::reflow(&parsed.description),
        file: file.to_string(),
        path: None,
        hide,
        sections,
    })
}

/// What a `hide` list names, each name it does not know reported as an error.
fn hide_of(
    names: &[Spanned<String>],
    error: &mut impl FnMut(std::ops::Range<usize>, String),
) -> Hide {
    let mut hide = Hide::default();
    for name in names {
        if !hide.set(name.get_ref()) {
            error(
                name.span(),
                format!(
                    "`{}` cannot be hidden; expected {}",
                    crate::text::shorten(&crate::text::sanitize_line(name.get_ref()), 40),
                    Hide::NAMES.join(", ")
                ),
            );
        }
    }
    hide
}

/// The scenario a section names: a file relative to the session's folder, else a built-in by
/// name; or why neither, in one line.
fn resolve_in(base: &Path, named: &str) -> Result<Scenario, String> {
    let shown = crate::text::shorten(&crate::text::sanitize_line(named), 80);
    if named.trim().is_empty() {
        return Err("name a scenario: a built-in such as \"order-5531\", or a file".into());
    }
    let path = base.join(named);
    if path.exists() {
        if crate::present::playlist::names_session_at(&path) {
            return Err(format!(
                "`{shown}` is a session file itself; a section plays a scenario"
            ));
        }
        return crate::scenario::load(&path)
            .map_err(|e| format!("the scenario `{shown}` does not load: {}", e.one_line()));
    }
    if !named.contains('/')
        && let Some(builtin) = library::find(named.strip_suffix(".toml").unwrap_or(named))
    {
        return builtin
            .load()
            .map_err(|e| format!("the built-in `{shown}` does not load: {}", e.one_line()));
    }
    let hint = did_you_mean(named, library::BUILTIN.iter().map(|b| b.name))
        .map(|s| format!(" (did you mean the built-in `{s}`?)"))
        .unwrap_or_default();
    Err(format!(
        "no file `{shown}` next to the session file, and no built-in scenario by that name{hint}; `idem list` shows the built-in ones"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_told_apart_from_a_scenario() {
        assert!(is_session(
            "title = \"x\"\n[[section]]\nscenario = \"order-5531\"\n"
        ));
        assert!(
            is_session("title = \n[[section]]\n"),
            "broken, but a session"
        );
        assert!(!is_session(
            library::find("order-5531").expect("built in").text
        ));
    }

    #[test]
    fn budgets_add_up_when_every_section_has_one() {
        let text = "title = \"Talk\"\n[[section]]\nscenario = \"order-5531\"\nbudget = \"10m\"\n[[section]]\nscenario = \"reply-lost\"\ndesign = \"no-key\"\nbudget = \"5m\"\n";
        let p = parse("t.toml", text, Path::new(".")).expect("parses");
        assert_eq!(p.budget(), Some(Duration::from_secs(900)));
        assert_eq!(p.sections[1].design, Design::NoKey);
        assert_eq!(p.sections[0].design, p.sections[0].scenario.design);
    }
}
