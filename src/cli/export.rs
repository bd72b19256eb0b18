//! `idem export`: its flags, and writing what the export module draws to a file.

use crate::export::{ExportOptions, Format, check_options, render};
use crate::scenario::values::{ClockTime, parse_clock, parse_one_design};
use crate::sim::Design;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use std::path::PathBuf;

/// Write a handout for trainers: a Markdown page, an SVG frame or an asciinema recording.
#[derive(clap::Args, Debug, Clone)]
pub struct ExportArgs {
    /// A scenario file, or the name of a built-in scenario such as order-5531.
    pub scenario: String,
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

    /// What the flags ask the drawing to be.
    pub fn options(&self) -> ExportOptions {
        ExportOptions {
            format: self.format,
            design: self.design,
            at: self.at,
            width: self.width,
            height: self.height,
        }
    }
}

/// Loads the scenario, renders the export, writes it; returns one line for standard output.
pub fn run(args: &ExportArgs) -> Result<String, String> {
    let options = args.options();
    check_options(&options)?;
    let scenario = crate::scenario::resolve(&args.scenario).map_err(|e| e.to_string())?;
    let source = crate::text::sanitize_line(&args.scenario);
    let (bytes, what) = render(&scenario, &source, &options)?;
    crate::files::write_file(&args.out, bytes.as_bytes(), args.force)?;
    let shown = crate::text::sanitize_line(&args.out.display().to_string());
    Ok(format!("wrote {shown}: {what}, {} bytes", bytes.len()))
}
