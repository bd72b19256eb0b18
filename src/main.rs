//! The `idem` command: parse the arguments, load and validate the scenario, then hand over to
//! a command or the interactive replay.
#![deny(clippy::unwrap_used)]

use clap::{Parser, Subcommand};
use idem::cli::run::{DesignChoice, parse_design_choice};
use idem::cli::{load_scenario, print_warnings};
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
                Err(e) => return usage_error(&e.to_string()),
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
        None => usage_error("the interactive replay is not built yet; use `idem run`"),
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}
