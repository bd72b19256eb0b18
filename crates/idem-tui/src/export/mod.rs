//! `idem export`: handouts for trainers. A Markdown handout of every design, one frame of the
//! replay as an SVG picture, or the whole replay as an asciinema recording. Every export is
//! deterministic: the same scenario and options give the same bytes.

pub mod cast;
pub mod frame;
pub mod svg;

/// The Markdown handout needs no terminal: it is the model crate's.
pub use idem_replay::export::markdown;

use crate::scenario::Scenario;
use crate::scenario::values::ClockTime;
use crate::sim::{Design, Instant};
use crate::tui::App;
use crate::tui::view::{MIN_HEIGHT, MIN_WIDTH};
pub use markdown::Audience;
pub use svg::SvgTheme;

/// The screen size exports are drawn at unless told otherwise.
pub const DEFAULT_WIDTH: u16 = 120;
pub const DEFAULT_HEIGHT: u16 = 36;
/// The largest screen an export draws: far more than any projector shows.
pub const MAX_WIDTH: u16 = 400;
pub const MAX_HEIGHT: u16 = 200;

/// What kind of file to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A Markdown handout: the story up to each question and the questions, and in the
    /// longer forms what happened next and the answers.
    Md,
    /// One frame of the replay as an SVG picture.
    Svg,
    /// The whole replay of one design as an asciinema v2 recording.
    Cast,
    /// The trainer's crib sheet, in Markdown: per part the questions, the right answer under
    /// each design, why, the notes, the keys and the time.
    Crib,
}

impl Format {
    /// Every name a format is known by, `markdown` included.
    pub const NAMES: [&'static str; 5] = ["md", "markdown", "svg", "cast", "crib"];

    pub fn id(self) -> &'static str {
        match self {
            Format::Md => "md",
            Format::Svg => "svg",
            Format::Cast => "cast",
            Format::Crib => "crib",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Format, String> {
        match text {
            "md" | "markdown" => Ok(Format::Md),
            "svg" => Ok(Format::Svg),
            "cast" => Ok(Format::Cast),
            "crib" => Ok(Format::Crib),
            _ => Err(format!(
                "unknown format `{}`: expected md, svg, cast or crib",
                crate::text::sanitize_line(text)
            )),
        }
    }
}

/// The most ticks a recording holds: one frame each, a whole screen per frame.
pub const MAX_CAST_FRAMES: usize = 1_000;

/// How to draw an export: everything but where it goes.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportOptions {
    pub format: Format,
    /// For svg and cast: the design to show (default: the scenario's own).
    pub design: Option<Design>,
    /// For svg: the moment to draw (default: the last tick).
    pub at: Option<ClockTime>,
    /// For svg and cast: the screen size (default 120x36).
    pub width: Option<u16>,
    pub height: Option<u16>,
    /// For svg: the page, dark or light (default dark).
    pub theme: Option<SvgTheme>,
    /// For md: which handout, the pre-read (default), compact, full or the trainer's.
    pub audience: Audience,
    /// What every format keeps out: the design's name, the card statement, the outcome.
    pub hide: crate::present::Hide,
}

impl ExportOptions {
    /// A format with every other option at its default.
    pub fn new(format: Format) -> ExportOptions {
        ExportOptions {
            format,
            design: None,
            at: None,
            width: None,
            height: None,
            theme: None,
            audience: Audience::PreRead,
            hide: crate::present::Hide::default(),
        }
    }
}

/// The export's text and a short description of it, without touching the disk.
pub fn render(
    scenario: &Scenario,
    source: &str,
    args: &ExportOptions,
) -> Result<(String, String), String> {
    check_options(args)?;
    let (width, height) = size(args);
    // The one policy every format applies: what is hidden, and what an open question keeps
    // back (the frames ask it through the app, which knows where the questions stand).
    let withheld = crate::present::Withheld::new(args.hide);
    match args.format {
        Format::Crib => {
            let text = markdown::handout_with(scenario, Audience::Crib, withheld, scenario.design)?;
            let what = format!("Markdown {} of {}", Audience::Crib.words(), scenario.name);
            Ok((text, what))
        }
        Format::Md => {
            let text = markdown::handout_with(scenario, args.audience, withheld, scenario.design)?;
            let what = format!("Markdown {} of {}", args.audience.words(), scenario.name,);
            Ok((text, what))
        }
        Format::Svg => {
            let mut app = app_for(scenario, source, args)?;
            let tick = match args.at {
                Some(at) => tick_at(&app, at)?,
                None => app.last_tick(),
            };
            app.show_tick(tick);
            let buffer = frame::render(&app, width, height)?;
            let trace = app.trace();
            let clock = trace
                .ticks
                .get(app.place.tick)
                .map_or(String::new(), |t| trace.format_time(t.at));
            let title = format!(
                "idem replay of {}: {} under “{}” at {clock}",
                scenario.name,
                scenario.title,
                withheld.design(app.place.design)
            );
            let what = format!(
                "SVG frame of {} under {} at {clock} (tick {}/{}, {width}×{height})",
                scenario.name,
                design_id(withheld, app.place.design),
                app.place.tick + 1,
                trace.ticks.len()
            );
            let theme = args.theme.unwrap_or_default();
            Ok((svg::svg_themed(&buffer, &title, theme), what))
        }
        Format::Cast => {
            // Counted on the one design recorded, before the story of every design is told
            // for the replay: a recording too long is refused in the time of one simulation.
            let design = args.design.unwrap_or(scenario.design);
            let counted = scenario
                .simulate(design)
                .map_err(|e| format!("cannot simulate {}: {e}", scenario.name))?
                .ticks
                .len();
            if let Some(why) = too_much_to_record(counted, width, height) {
                return Err(why);
            }
            let mut app = app_for(scenario, source, args)?;
            let frames = app.trace().ticks.len();
            if let Some(why) = too_much_to_record(frames, width, height) {
                return Err(why);
            }
            let title = format!(
                "idem · {} · {}",
                scenario.title,
                withheld.design(app.place.design)
            );
            let text = cast::cast(&mut app, width, height, &title)?;
            let ticks = app.trace().ticks.len();
            let what = format!(
                "asciinema recording of {} under {}, {ticks} ticks ({width}×{height})",
                scenario.name,
                design_id(withheld, app.place.design)
            );
            Ok((text, what))
        }
    }
}

/// The most cells a recording draws in all (its frames times each frame's area): what it
/// costs in time and in file, about a second and 40 MB.
pub const MAX_CAST_CELLS: usize = 4_500_000;

/// Why a recording of `frames` at `width` × `height` is refused, if it is: too many frames,
/// or too many cells in all, with the size at which it would fit.
fn too_much_to_record(frames: usize, width: u16, height: u16) -> Option<String> {
    if frames > MAX_CAST_FRAMES {
        return Some(format!(
            "this replay has {frames} ticks; a recording is limited to {MAX_CAST_FRAMES} frames (about {} minutes at the replay's pace): export a smaller scenario, or a Markdown handout",
            MAX_CAST_FRAMES * 18 / 600
        ));
    }
    let area = usize::from(width) * usize::from(height);
    if frames.saturating_mul(area) <= MAX_CAST_CELLS {
        return None;
    }
    // The largest frame of the default shape (10 columns to 3 rows) that fits.
    let fits = MAX_CAST_CELLS / frames.max(1);
    let rows = ((fits * 3 / 10) as f64).sqrt().floor() as usize;
    let cols = fits / rows.max(1);
    Some(format!(
        "{frames} frames of {width}×{height} would draw {} cells, more than the {} a recording may: give --width {} --height {} or smaller, or export a Markdown handout",
        crate::units::group_digits(frames.saturating_mul(area) as u128),
        crate::units::group_digits(MAX_CAST_CELLS as u128),
        cols.clamp(1, usize::from(MAX_WIDTH)),
        rows.clamp(1, usize::from(MAX_HEIGHT))
    ))
}

/// Refuses options that do not apply to the chosen format, and sizes the replay cannot use.
pub fn check_options(args: &ExportOptions) -> Result<(), String> {
    let format = args.format.id();
    if matches!(args.format, Format::Md | Format::Crib) {
        let given: Vec<&str> = [
            (args.design.is_some(), "--design"),
            (args.at.is_some(), "--at"),
            (args.width.is_some(), "--width"),
            (args.height.is_some(), "--height"),
        ]
        .iter()
        .filter(|(set, _)| *set)
        .map(|(_, name)| *name)
        .collect();
        if !given.is_empty() {
            return Err(format!(
                "{} do{} not apply to --format md: the handout covers every design and every tick",
                given.join(", "),
                if given.len() == 1 { "es" } else { "" }
            ));
        }
    }
    if args.format != Format::Svg && args.theme.is_some() {
        return Err(format!(
            "--theme does not apply to --format {format}: only an SVG picture has a page colour"
        ));
    }
    if args.format != Format::Md && args.audience != Audience::default() {
        let flag = if args.audience == Audience::Trainer {
            "--trainer"
        } else {
            "--handout"
        };
        return Err(format!(
            "{flag} does not apply to --format {format}: it chooses what the Markdown handout shows"
        ));
    }
    if args.format == Format::Cast && args.at.is_some() {
        return Err("--at does not apply to --format cast: a recording plays every tick".into());
    }
    let (width, height) = size(args);
    if !(MIN_WIDTH..=MAX_WIDTH).contains(&width) {
        return Err(format!(
            "--width {width} is out of range for --format {format}: the replay needs {MIN_WIDTH} to {MAX_WIDTH} columns"
        ));
    }
    if !(MIN_HEIGHT..=MAX_HEIGHT).contains(&height) {
        return Err(format!(
            "--height {height} is out of range for --format {format}: the replay needs {MIN_HEIGHT} to {MAX_HEIGHT} rows"
        ));
    }
    Ok(())
}

fn size(args: &ExportOptions) -> (u16, u16) {
    (
        args.width.unwrap_or(DEFAULT_WIDTH),
        args.height.unwrap_or(DEFAULT_HEIGHT),
    )
}

/// A design's id, or its neutral label while names are hidden.
fn design_id(withheld: crate::present::Withheld, design: Design) -> String {
    if withheld.shows_design() {
        design.id().to_string()
    } else {
        withheld.design(design)
    }
}

fn app_for(scenario: &Scenario, source: &str, args: &ExportOptions) -> Result<App, String> {
    App::for_export(
        scenario.clone(),
        source.to_string(),
        args.design.unwrap_or(scenario.design),
        args.hide,
    )
    .map_err(|e| format!("cannot simulate {}: {e}", scenario.name))
}

/// The last tick at or before a clock time; a time before the first tick is refused rather
/// than quietly drawn as the first tick.
fn tick_at(app: &App, at: ClockTime) -> Result<usize, String> {
    let t = at.resolve(app.trace().ticks.first().map_or(Instant(0), |t| t.at));
    let trace = app.trace();
    match trace.ticks.first() {
        Some(first) if t < first.at => Err(format!(
            "--at {} comes before the first tick of {} under {} ({})",
            trace.clock.format_short(t),
            app.version.scenario().name,
            app.place.design.id(),
            trace.format_time(first.at)
        )),
        _ => Ok(trace.tick_at_or_before(t)),
    }
}

/// How a day of traffic is drawn for a slide.
#[derive(Clone, Debug, Default)]
pub struct TrafficPicture {
    /// The design whose store and series are drawn; by default the first that charged an
    /// order twice, or the first.
    pub design: Option<crate::sim::Design>,
    pub theme: Option<SvgTheme>,
    /// Designs by number, not by name.
    pub hide_design: bool,
    /// What the day assumed that its scenario did not say.
    pub note: Option<String>,
    pub width: Option<u16>,
    pub height: Option<u16>,
}

/// A day of traffic as an SVG chart for a slide: the traffic screen's drawing, without its
/// keys, 120 × 36 cells on a light page unless asked otherwise.
pub fn traffic_svg(
    report: &crate::traffic::Report,
    picture: &TrafficPicture,
) -> Result<String, String> {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let selected = match picture.design {
        Some(d) => report
            .designs
            .iter()
            .position(|r| r.design == d)
            .ok_or_else(|| format!("{} was not run in this day", d.id()))?,
        None => report
            .designs
            .iter()
            .position(|d| d.duplicate_orders > 0)
            .unwrap_or(0),
    };
    let withheld = crate::present::Withheld::new(crate::present::Hide {
        design: picture.hide_design,
        ..crate::present::Hide::default()
    });
    let name = |d: crate::sim::Design| withheld.design(d);
    let look = crate::tui::traffic::Look {
        selected,
        name: &name,
        marker: ratatui::symbols::Marker::HalfBlock,
        keys: None,
        note: picture.note.as_deref(),
    };
    let (width, height) = (picture.width.unwrap_or(120), picture.height.unwrap_or(36));
    if width < 60 || height < 20 || width > 400 || height > 200 {
        return Err(format!(
            "a day of traffic is drawn on 60×20 to 400×200 cells, not {width}×{height}"
        ));
    }
    let theme = crate::tui::theme::Theme { color: true };
    let mut terminal = Terminal::new(TestBackend::new(width, height))
        .map_err(|e| format!("cannot set up the off-screen terminal: {e}"))?;
    terminal
        .draw(|f| crate::tui::traffic::draw(f, f.area(), report, &look, &theme))
        .map_err(|e| format!("cannot draw the day: {e}"))?;
    let title = format!("A day of traffic: {}", report.scenario);
    Ok(svg::svg_themed(
        terminal.backend().buffer(),
        &title,
        picture.theme.unwrap_or(SvgTheme::Light),
    ))
}
