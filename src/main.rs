//! The `idem` command: parse the arguments, load and validate the scenario, then hand over to
//! a command or the interactive replay.
#![deny(clippy::unwrap_used)]

use clap::{Parser, Subcommand};
use idem::cli::run::{DesignChoice, parse_design_choice};
use idem::cli::{load_scenario, print_warnings};
use idem::scenario::values::ClockTime;
use idem::sim::{Design, Instant, time::DAY_MS};
use std::process::ExitCode;

/// Replays, tick by tick, how a retry turns one payment into two charges, and how an
/// idempotency key stored with the charge stops it.
#[derive(Parser, Debug)]
#[command(name = "idem", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// A scenario file, or the name of a built-in scenario (default: order-5531).
    scenario: Option<String>,
    /// The design to open with: an id or its number 1–5.
    #[arg(long, short, value_parser = parse_one_design)]
    design: Option<Design>,
    /// Open at this moment of the replay, e.g. 14:02:38 or "Fri 18:00:00".
    #[arg(long, value_parser = parse_at)]
    at: Option<ClockTime>,
}

fn parse_one_design(text: &str) -> Result<Design, String> {
    match parse_design_choice(text)? {
        DesignChoice::One(d) => Ok(d),
        DesignChoice::All => {
            Err("the replay shows one design at a time; press c inside it to compare".into())
        }
    }
}

fn parse_at(text: &str) -> Result<ClockTime, String> {
    idem::scenario::values::parse_clock(text)
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Replay a scenario without the terminal UI and print its timeline and outcome.
    Run {
        /// A scenario file, or the name of a built-in scenario (default: order-5531).
        scenario: Option<String>,
        /// A design id (with-charge, log-after-charge, no-key, log-before-charge,
        /// content-hash), its number 1–5, or `all` for every design side by side.
        #[arg(long, short, value_parser = parse_design_choice)]
        design: Option<DesignChoice>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Work out what a retry configuration permits: attempts, delays, the window it needs.
    Window(idem::window::WindowArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Run {
            scenario,
            design,
            json,
        }) => {
            let loaded = match load_scenario(scenario.as_deref()) {
                Ok(s) => s,
                Err(e) => return scenario_error(&e),
            };
            print_warnings(&loaded, scenario.as_deref().unwrap_or("order-5531"));
            let choice = design.unwrap_or(DesignChoice::One(loaded.design));
            match idem::cli::run::run(&loaded, &choice, json) {
                Ok(text) => {
                    print!("{text}");
                    ExitCode::SUCCESS
                }
                Err(e) => usage_error(&format!("{e:#}")),
            }
        }
        Some(Command::Window(args)) => match idem::window::run(&args) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => usage_error(&e.to_string()),
        },
        None => replay(cli.scenario.as_deref(), cli.design, cli.at),
    }
}

/// Loads and checks everything before the screen changes, then opens the replay.
fn replay(scenario: Option<&str>, design: Option<Design>, at: Option<ClockTime>) -> ExitCode {
    let loaded = match load_scenario(scenario) {
        Ok(s) => s,
        Err(e) => return scenario_error(&e),
    };
    let source = idem::text::sanitize_line(scenario.unwrap_or("order-5531"));
    let mut app = match idem::tui::App::new(loaded, source) {
        Ok(app) => app,
        Err(e) => return usage_error(&e.to_string()),
    };
    // A scenario read from a file is watched, and reloaded when it changes.
    app.path = scenario
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_file());
    if let Some(d) = design {
        app.design = d;
    }
    if let Some(at) = at {
        let t = Instant(at.weekday.unwrap_or(0) * DAY_MS + at.ms_of_day);
        app.tick = app.trace().tick_at_or_before(t);
    }
    if let Err(e) = idem::tui::terminal::run(app) {
        eprintln!("error: the terminal failed: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// A scenario's problems carry their own `file:line:column: error:` prefix.
fn scenario_error(e: &idem::scenario::ScenarioError) -> ExitCode {
    eprintln!("{e}");
    ExitCode::from(2)
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}
