//! `idem export`: its flags, and writing what the export module draws to a file.

use crate::export::{Audience, ExportOptions, Format, SvgTheme, check_options, render};
use crate::scenario::values::{ClockTime, parse_clock, parse_one_design};
use crate::sim::Design;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  idem export reply-lost --format md --out reply-lost.md
  idem export reply-lost --format md --out pre-read.md
  idem export reply-lost --format md --handout compact --hide-design --out after.md
  idem export reply-lost --format md --trainer --out trainer.md
  idem export reply-lost --format svg --design no-key --at 14:02 --theme light --out slide.svg
  idem export reply-lost --format cast --out reply-lost.cast && asciinema play reply-lost.cast
  idem export reply-lost --format md --out - | less
  idem export order-5531 --traffic --format svg --out day.svg";

/// Write a handout: a Markdown page, an SVG frame or an asciinema recording.
#[derive(clap::Args, Debug, Clone)]
#[command(after_help = EXAMPLES)]
pub struct ExportArgs {
    /// A scenario file, or the name of a built-in scenario such as order-5531. A file's name
    /// need not be UTF-8.
    pub scenario: std::ffi::OsString,
    /// What to write: md, svg or cast.
    #[arg(
        long,
        value_parser = PossibleValuesParser::new(Format::NAMES).try_map(|s| s.parse::<Format>())
    )]
    pub format: Format,
    /// For svg and cast: the design to show, an id or its number 1–6 (default: the
    /// scenario's own design).
    #[arg(long, short, value_parser = parse_one_design)]
    pub design: Option<Design>,
    /// For svg: the moment to draw, e.g. 14:02, 14:02:38.250, "Fri 18:00" or "day 2 09:30";
    /// the last tick at or before it is shown (default: the last tick).
    #[arg(long, value_parser = parse_clock)]
    pub at: Option<ClockTime>,
    /// The file to write, or - for standard output.
    #[arg(long, short)]
    pub out: PathBuf,
    /// For svg: the page, dark (like a terminal) or light (for slides and paper).
    #[arg(
        long,
        value_parser = PossibleValuesParser::new(SvgTheme::NAMES).try_map(|s| s.parse::<SvgTheme>())
    )]
    pub theme: Option<SvgTheme>,
    /// For md: the trainer's handout, with the trainer's notes and each answer under its
    /// question; the same as --handout trainer.
    #[arg(long, conflicts_with = "handout")]
    pub trainer: bool,
    /// For md: which handout. pre-read (the default): the story up to each question and the
    /// questions, nothing that answers them; compact: then the designs shown and the ticks
    /// where they part ways, their outcomes and the answers; full: then every design's whole
    /// timeline; trainer: the answers inline and the notes.
    #[arg(
        long,
        value_parser = PossibleValuesParser::new(Audience::NAMES).try_map(|s| s.parse::<Audience>())
    )]
    pub handout: Option<Audience>,
    /// Keep the design's name out of the export: designs are numbered instead.
    #[arg(long)]
    pub hide_design: bool,
    /// Keep the card statement (and the ledger) out of the export.
    #[arg(long)]
    pub hide_statement: bool,
    /// Keep the outcome, the verdicts and the answers out of the export.
    #[arg(long)]
    pub hide_outcome: bool,
    /// Replace the file if it already exists.
    #[arg(long)]
    pub force: bool,
    /// For svg and cast: the screen width in columns (default 120).
    #[arg(long)]
    pub width: Option<u16>,
    /// For svg and cast: the screen height in rows (default 36).
    #[arg(long)]
    pub height: Option<u16>,
    /// For svg: draw a day of traffic through every design instead of a tick, from the
    /// scenario's [traffic] table (100,000 orders with 0.5% of answers lost when it sets no
    /// faults); --design chooses the design whose store is drawn. `idem traffic` sets the
    /// day from the command line.
    #[arg(long, conflicts_with = "at")]
    pub traffic: bool,
}

impl ExportArgs {
    /// Arguments for a scenario, a format and an output file, everything else by default.
    pub fn new(scenario: &str, format: Format, out: impl Into<PathBuf>) -> ExportArgs {
        ExportArgs {
            scenario: scenario.into(),
            format,
            design: None,
            at: None,
            out: out.into(),
            force: false,
            width: None,
            height: None,
            theme: None,
            trainer: false,
            handout: None,
            hide_design: false,
            hide_statement: false,
            hide_outcome: false,
            traffic: false,
        }
    }

    /// What the flags ask the drawing to be.
    pub fn options(&self) -> ExportOptions {
        ExportOptions {
            format: self.format,
            design: self.design,
            at: self.at,
            width: self.width,
            height: self.height,
            theme: self.theme,
            audience: if self.trainer {
                Audience::Trainer
            } else {
                self.handout.unwrap_or_default()
            },
            hide: crate::present::Hide {
                design: self.hide_design,
                statement: self.hide_statement,
                outcome: self.hide_outcome,
            },
        }
    }
}

/// What an export produced, for the caller to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exported {
    /// Written to a file: one line saying what and where, for standard output.
    File(String),
    /// Asked for with `--out -`: the export itself, to go to standard output unchanged.
    Stdout(String),
}

/// A session file's handout: Markdown only, one document for every scenario it plays.
fn session(
    args: &ExportArgs,
    options: &crate::export::ExportOptions,
) -> Result<(String, String), super::Failure> {
    if !matches!(options.format, Format::Md | Format::Crib) {
        return Err(super::Failure::Message(format!(
            "a session file exports as one Markdown handout (--format md) or crib sheet (--format crib); for {} export one of its scenarios",
            options.format.id()
        )));
    }
    if args.design.is_some() || args.at.is_some() {
        return Err(super::Failure::Message(
            "--design and --at are for svg and cast; a session's handout shows every design".into(),
        ));
    }
    let playlist = crate::present::playlist::load(std::path::Path::new(&args.scenario))?;
    let audience = if options.format == Format::Crib {
        crate::export::Audience::Crib
    } else {
        options.audience
    };
    let text = crate::export::markdown::session_handout(&playlist, audience, options.hide)?;
    let what = format!(
        "Markdown {} of a session of {} scenarios",
        audience.words(),
        playlist.sections.len()
    );
    Ok((text, what))
}

/// A day of traffic as a chart for a slide.
fn traffic(args: &ExportArgs) -> Result<(String, String), super::Failure> {
    if args.format != Format::Svg {
        return Err(super::Failure::Message(format!(
            "--traffic draws a chart: it needs --format svg, not {}",
            args.format.id()
        )));
    }
    if args.hide_statement || args.hide_outcome {
        return Err(super::Failure::Message(
            "--hide-statement and --hide-outcome do not apply to --traffic: the chart has no statement, and its figures are the outcome".into(),
        ));
    }
    if crate::present::playlist::names_session_at(std::path::Path::new(&args.scenario)) {
        return Err(super::Failure::Message(
            "--traffic draws one scenario's day; name one of the session's scenarios".into(),
        ));
    }
    let scenario = crate::scenario::resolve_os(&args.scenario)?;
    let (settings, assumed) = crate::traffic::Settings::of_scenario_or_assumed(&scenario)
        .map_err(super::Failure::Message)?;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let report = crate::traffic::run(
        &scenario,
        &settings,
        &Design::ALL,
        threads,
        &crate::traffic::Progress::default(),
    )
    .map_err(super::Failure::Message)?;
    let picture = crate::export::TrafficPicture {
        design: args.design,
        theme: args.theme,
        hide_design: args.hide_design,
        note: assumed.then(crate::traffic::words::assumed),
        width: args.width,
        height: args.height,
    };
    let svg = crate::export::traffic_svg(&report, &picture).map_err(super::Failure::Message)?;
    let what = format!(
        "SVG chart of {} orders of {} through every design",
        crate::units::group_digits(u128::from(settings.orders)),
        crate::text::sanitize_line(&scenario.name)
    );
    Ok((svg, what))
}

/// Whether `--out` names standard output rather than a file.
pub fn is_stdout(out: &std::path::Path) -> bool {
    out.as_os_str() == "-"
}

/// Loads the scenario, renders the export, and writes it to its file, or hands it back
/// for standard output when `--out` is `-`.
pub fn run(args: &ExportArgs) -> Result<Exported, super::Failure> {
    let options = args.options();
    check_options(&options)?;
    let (bytes, what) = if args.traffic {
        traffic(args)?
    } else if crate::present::playlist::names_session_at(std::path::Path::new(&args.scenario)) {
        session(args, &options)?
    } else {
        let scenario = crate::scenario::resolve_os(&args.scenario)?;
        let source = crate::text::sanitize_line(&args.scenario.to_string_lossy());
        render(&scenario, &source, &options)?
    };
    if is_stdout(&args.out) {
        return Ok(Exported::Stdout(bytes));
    }
    crate::files::write_file(&args.out, bytes.as_bytes(), args.force)?;
    let shown = crate::text::sanitize_line(&args.out.display().to_string());
    Ok(Exported::File(format!(
        "wrote {shown}: {what}, {} bytes",
        bytes.len()
    )))
}
