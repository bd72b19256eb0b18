//! The `idem` command: parse the arguments, load and validate the scenario, then hand over to
//! a command or the interactive replay.
#![deny(clippy::unwrap_used)]

use clap::{Parser, Subcommand};
use idem::cli::{load_scenario, print_warnings};
use idem::scenario::values::ClockTime;
use idem::scenario::values::{DesignChoice, parse_one_design};
use idem::sim::Design;
use idem::tui::app::Launch;
use std::process::ExitCode;

/// Replays, tick by tick, how a retry turns one payment into two charges, and how an
/// idempotency key stored with the charge stops it.
#[derive(Parser, Debug)]
#[command(name = "idem", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    replay: ReplayArgs,
}

/// What opens the interactive replay, and where.
#[derive(clap::Args, Debug)]
struct ReplayArgs {
    /// A scenario file, or the name of a built-in scenario (default: order-5531).
    scenario: Option<String>,
    /// The design to open with: an id or its number 1–6.
    #[arg(long, short, value_parser = parse_one_design)]
    design: Option<Design>,
    /// Open at this moment of the replay, e.g. 14:02:38 or "Fri 18:00:00".
    #[arg(long, value_parser = idem::scenario::values::parse_clock)]
    at: Option<ClockTime>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Replay a scenario without the terminal UI and print its timeline and outcome.
    Run {
        /// A scenario file, or the name of a built-in scenario (default: order-5531).
        scenario: Option<String>,
        /// A design id (with-charge, log-after-charge, no-key, log-before-charge,
        /// content-hash, inprogress-record), its number 1–6, or `all` for every design side by side.
        #[arg(long, short, value_parser = clap::value_parser!(DesignChoice))]
        design: Option<DesignChoice>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Validate scenario files and check their [[expect]] blocks, like a test runner.
    Check(idem::cli::check::CheckArgs),
    /// List the built-in scenarios.
    List,
    /// Write a commented starter scenario to NAME.toml (never over an existing file).
    New(idem::cli::new::NewArgs),
    /// Work out what a retry configuration permits: attempts, delays, the window it needs.
    Window(idem::cli::window::RetentionArgs),
    /// Present a scenario to a room: large narration, less chrome, remote-control keys.
    Present(ReplayArgs),
    /// Speaker notes: follow `idem present` from a second terminal.
    Notes,
    /// Write a handout: Markdown, an SVG frame, or an asciinema recording.
    Export(idem::cli::export::ExportArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Run {
            scenario,
            design,
            json,
        }) => run(scenario.as_deref(), design, json),
        Some(Command::Check(args)) => {
            let outcome = idem::cli::check::run(&args);
            print!("{}", outcome.text);
            eprint!("{}", outcome.errors);
            ExitCode::from(outcome.exit)
        }
        Some(Command::List) => {
            print!("{}", idem::cli::list::run());
            ExitCode::SUCCESS
        }
        Some(Command::New(args)) => done(idem::cli::new::run(&args)),
        Some(Command::Window(args)) => window(&args),
        Some(Command::Present(args)) => replay(&args, true),
        Some(Command::Notes) => match idem::tui::terminal::unable_to_draw() {
            Some(why) => usage_error(&format!(
                "{why}; run the speaker notes in a terminal that can"
            )),
            None => notes(),
        },
        Some(Command::Export(args)) => done(idem::cli::export::run(&args)),
        None => replay(&cli.replay, false),
    }
}

fn notes() -> ExitCode {
    match idem::tui::notes::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: the terminal failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(scenario: Option<&str>, design: Option<DesignChoice>, json: bool) -> ExitCode {
    let loaded = match load_scenario(scenario) {
        Ok(s) => s,
        Err(e) => return scenario_error(&e),
    };
    print_warnings(&loaded, scenario.unwrap_or("order-5531"));
    let choice = design.unwrap_or(DesignChoice::One(loaded.design));
    done(idem::cli::run::run(&loaded, &choice, json).map_err(|e| format!("{e:#}")))
}

fn window(args: &idem::cli::window::RetentionArgs) -> ExitCode {
    if !args.tui {
        return done(idem::cli::window::run(args).map_err(|e| e.to_string()));
    }
    let stack = match idem::cli::window::stack_from_args(args) {
        Ok(s) => s,
        Err(e) => return usage_error(&e.to_string()),
    };
    if let Some(why) = idem::tui::terminal::unable_to_draw() {
        return usage_error(&format!(
            "{why}; without --tui, `idem window` prints the same as text"
        ));
    }
    // Enter in the calculator hands over a scenario built from the stack, to be replayed.
    match idem::tui::retention::run_standalone(stack) {
        Ok(Some(scenario)) => match idem::tui::App::new(scenario, "your-stack".into()) {
            Ok(app) => terminal(app),
            Err(e) => usage_error(&e.to_string()),
        },
        Ok(None) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: the terminal failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Loads and checks everything before the screen changes, then opens the replay.
fn replay(args: &ReplayArgs, present: bool) -> ExitCode {
    let scenario = args.scenario.as_deref();
    let loaded = match load_scenario(scenario) {
        Ok(s) => s,
        Err(e) => return scenario_error(&e),
    };
    if let Some(why) = idem::tui::terminal::unable_to_draw() {
        let arg = idem::text::shell_word(scenario.unwrap_or("order-5531"));
        return usage_error(&format!(
            "{why}; `idem run {arg} --design all` prints the story as text"
        ));
    }
    let source = idem::text::sanitize_line(scenario.unwrap_or("order-5531"));
    // A scenario read from a file is watched, and reloaded when it changes.
    let launch = Launch {
        design: args.design,
        at: args.at,
        present,
    };
    let app = match idem::tui::App::launch(loaded, source, launch) {
        Ok(app) => app,
        Err(e) => return usage_error(&e.to_string()),
    };
    terminal(app)
}

fn terminal(app: idem::tui::App) -> ExitCode {
    match idem::tui::terminal::run(app) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: the terminal failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints a command's result: its text on success, its error with exit code 2 otherwise.
fn done(result: Result<String, String>) -> ExitCode {
    match result {
        Ok(text) if text.ends_with('\n') => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => usage_error(&e),
    }
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
