//! `idem export`: handouts for trainers. A Markdown handout of every design, one frame of the
//! replay as an SVG picture, or the whole replay as an asciinema recording. Every export is
//! deterministic: the same scenario and options give the same bytes.

pub mod cast;
pub mod frame;
pub mod markdown;
pub mod svg;
pub mod write;

use crate::scenario::Scenario;
use crate::scenario::values::{ClockTime, parse_clock};
use crate::sim::{Design, Instant};
use crate::tui::App;
use crate::tui::view::{MIN_HEIGHT, MIN_WIDTH};
use std::path::PathBuf;

/// The screen size exports are drawn at unless told otherwise.
pub const DEFAULT_WIDTH: u16 = 120;
pub const DEFAULT_HEIGHT: u16 = 36;
/// The largest screen an export draws: far more than any projector shows.
pub const MAX_WIDTH: u16 = 400;
pub const MAX_HEIGHT: u16 = 200;

/// What kind of file to write.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A Markdown handout: the story, every design's timeline and outcome, the quiz.
    #[value(name = "md", alias = "markdown")]
    Md,
    /// One frame of the replay as an SVG picture.
    Svg,
    /// The whole replay of one design as an asciinema v2 recording.
    Cast,
}

impl Format {
    pub fn id(self) -> &'static str {
        match self {
            Format::Md => "md",
            Format::Svg => "svg",
            Format::Cast => "cast",
        }
    }
}

/// The most ticks a recording holds: one frame each, a whole screen per frame.
pub const MAX_CAST_FRAMES: usize = 2_000;

/// Write a handout for trainers: a Markdown page, an SVG frame or an asciinema recording.
#[derive(clap::Args, Debug, Clone)]
pub struct ExportArgs {
    /// A scenario file, or the name of a built-in scenario such as order-5531.
    pub scenario: String,
    /// What to write: md, svg or cast.
    #[arg(long, value_enum)]
    pub format: Format,
    /// For svg and cast: the design to show, an id or its number 1–6 (default: the
    /// scenario's own design).
    #[arg(long, short, value_parser = crate::cli::run::parse_one_design)]
    pub design: Option<Design>,
    /// For svg: the moment to draw, e.g. 14:02:38 or "Fri 18:00:00"; the last tick at or
    /// before it is shown (default: the last tick).
    #[arg(long, value_parser = parse_clock)]
    pub at: Option<ClockTime>,
    /// The file to write.
    #[arg(long, short)]
    pub out: PathBuf,
    /// Replace the file if it already exists.
    #[arg(long)]
    pub force: bool,
    /// For svg and cast: the screen width in columns (default 120).
    #[arg(long)]
    pub width: Option<u16>,
    /// For svg and cast: the screen height in rows (default 36).
    #[arg(long)]
    pub height: Option<u16>,
}

impl ExportArgs {
    /// Arguments for a scenario, a format and an output file, everything else by default.
    pub fn new(scenario: &str, format: Format, out: impl Into<PathBuf>) -> ExportArgs {
        ExportArgs {
            scenario: scenario.to_string(),
            format,
            design: None,
            at: None,
            out: out.into(),
            force: false,
            width: None,
            height: None,
        }
    }
}

/// Loads the scenario, renders the export, writes it; returns one line for standard output.
pub fn run(args: &ExportArgs) -> Result<String, String> {
    check_options(args)?;
    let scenario = crate::scenario::resolve(&args.scenario).map_err(|e| e.to_string())?;
    let source = crate::text::sanitize_line(&args.scenario);
    let (bytes, what) = render(&scenario, &source, args)?;
    write::write_file(&args.out, bytes.as_bytes(), args.force)?;
    let shown = crate::text::sanitize_line(&args.out.display().to_string());
    Ok(format!("wrote {shown}: {what}, {} bytes", bytes.len()))
}

/// The export's text and a short description of it, without touching the disk.
pub fn render(
    scenario: &Scenario,
    source: &str,
    args: &ExportArgs,
) -> Result<(String, String), String> {
    check_options(args)?;
    let (width, height) = size(args);
    match args.format {
        Format::Md => {
            let text = markdown::markdown(scenario)?;
            let what = format!(
                "Markdown handout of {} under {} designs",
                scenario.name,
                Design::ALL.len()
            );
            Ok((text, what))
        }
        Format::Svg => {
            let mut app = app_for(scenario, source, args.design)?;
            app.tick = match args.at {
                Some(at) => tick_at(&app, at)?,
                None => app.last_tick(),
            };
            let buffer = frame::render(&app, width, height)?;
            let trace = app.trace();
            let clock = trace
                .ticks
                .get(app.tick)
                .map_or(String::new(), |t| trace.format_time(t.at));
            let title = format!(
                "idem replay of {}: {} under “{}” at {clock}",
                scenario.name,
                scenario.title,
                app.design.name()
            );
            let what = format!(
                "SVG frame of {} under {} at {clock} (tick {}/{}, {width}×{height})",
                scenario.name,
                app.design.id(),
                app.tick + 1,
                trace.ticks.len()
            );
            Ok((svg::svg(&buffer, &title), what))
        }
        Format::Cast => {
            let mut app = app_for(scenario, source, args.design)?;
            let frames = app.trace().ticks.len();
            if frames > MAX_CAST_FRAMES {
                return Err(format!(
                    "this replay has {frames} ticks; a recording is limited to {MAX_CAST_FRAMES} frames (about {} minutes at the replay's pace): export a smaller scenario, or a Markdown handout",
                    MAX_CAST_FRAMES * 18 / 600
                ));
            }
            let title = format!("idem · {} · {}", scenario.title, app.design.name());
            let text = cast::cast(&mut app, width, height, &title)?;
            let ticks = app.trace().ticks.len();
            let what = format!(
                "asciinema recording of {} under {}, {ticks} ticks ({width}×{height})",
                scenario.name,
                app.design.id()
            );
            Ok((text, what))
        }
    }
}

/// Refuses options that do not apply to the chosen format, and sizes the replay cannot use.
fn check_options(args: &ExportArgs) -> Result<(), String> {
    let format = args.format.id();
    if args.format == Format::Md {
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

fn size(args: &ExportArgs) -> (u16, u16) {
    (
        args.width.unwrap_or(DEFAULT_WIDTH),
        args.height.unwrap_or(DEFAULT_HEIGHT),
    )
}

fn app_for(scenario: &Scenario, source: &str, design: Option<Design>) -> Result<App, String> {
    let mut app = App::new(scenario.clone(), source.to_string())
        .map_err(|e| format!("cannot simulate {}: {e}", scenario.name))?;
    if let Some(d) = design {
        app.design = d;
    }
    Ok(app)
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
            app.scenario.name,
            app.design.id(),
            trace.format_time(first.at)
        )),
        _ => Ok(trace.tick_at_or_before(t)),
    }
}
