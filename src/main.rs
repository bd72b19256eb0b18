//! The `idem` command: parse the arguments, load and validate the scenario, then hand over to
//! a command or the interactive replay.
#![deny(clippy::unwrap_used)]

use clap::{CommandFactory, Parser, Subcommand};
use idem::cli::failure::{self, Failure};
use idem::cli::{load_scenario, print_warnings};
use idem::scenario::values::ClockTime;
use idem::scenario::values::{DesignChoice, parse_one_design};
use idem::sim::Design;
use idem::tui::app::Launch;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

const EXAMPLES: &str = "\
Examples:
  idem                                  replay the default story (order-5531) in the terminal
  idem reply-lost --design no-key       replay a built-in scenario under one design
  idem run reply-lost --design all      every design's outcome side by side, as text
  idem list                             the built-in scenarios
  idem new my-story && idem check my-story.toml
  idem window --require-covered         does the key window outlast every retry?
  idem export reply-lost --format md --out handout.md
  idem serve --design log-after-charge  a real processor over HTTP, for curl and idem drill
  idem drill http://127.0.0.1:8080/charges
  idem completions bash > ~/.local/share/bash-completion/completions/idem";

/// Replays, tick by tick, how a retry turns one payment into two charges, and how an
/// idempotency key stored with the charge stops it.
#[derive(Parser, Debug)]
#[command(
    name = "idem",
    version,
    args_conflicts_with_subcommands = true,
    after_help = EXAMPLES
)]
#[derive(Default)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    replay: ReplayArgs,
}

/// What opens the interactive replay, and where.
#[derive(clap::Args, Debug, Default)]
struct ReplayArgs {
    /// A scenario file, or the name of a built-in scenario (default: order-5531). A file's
    /// name need not be UTF-8.
    scenario: Option<std::ffi::OsString>,
    /// The design to open with: an id or its number 1–6.
    #[arg(long, short, value_parser = parse_one_design)]
    design: Option<Design>,
    /// Open at this moment of the replay: HH:MM, HH:MM:SS or HH:MM:SS.mmm, optionally after
    /// a weekday or a day number, e.g. 14:02, 14:02:38.250, "Fri 18:00" or "day 2 09:30".
    #[arg(long, value_parser = idem::scenario::values::parse_clock)]
    at: Option<ClockTime>,
    /// Key the scenario's steps after payment another way: derived, per-attempt or none (as m
    /// does in the replay).
    #[arg(long, value_name = "MODE", value_parser = idem::scenario::values::KeyModeId::parse)]
    step_keys: Option<idem::sim::config::KeyMode>,
    /// Key the checkout's attempts another way, every layer alike: per-intent, per-attempt or
    /// none (as K does in the replay).
    #[arg(long, value_name = "STRATEGY", value_parser = idem::scenario::values::KeyChoice::parse)]
    key_strategy: Option<idem::sim::config::KeyStrategy>,
    /// Leave the mouse to the terminal: no clicks or wheel in the replay, and the terminal's
    /// own text selection works without Shift.
    #[arg(long)]
    no_mouse: bool,
}

/// What opens presenter mode: a scenario or a session file, and what the room does not see
/// until it is revealed.
#[derive(clap::Args, Debug)]
struct PresentArgs {
    #[command(flatten)]
    replay: ReplayArgs,
    /// Hide the design's name from the room until `n` reveals it (so the room predicts first).
    #[arg(long)]
    hide_design: bool,
    /// Hide the card statement's line until `n` reveals it.
    #[arg(long)]
    hide_statement: bool,
    /// Hide the outcome at the last tick until `n` reveals it.
    #[arg(long)]
    hide_outcome: bool,
    /// At the end, write what the room answered to FILE: per part and per question, the
    /// answers, hands, right or wrong, and time against the budget (CSV for a .csv name,
    /// JSON otherwise). Checked before the talk starts.
    #[arg(long, value_name = "FILE")]
    results: Option<std::path::PathBuf>,
    /// Let --results replace a file that exists.
    #[arg(long)]
    force: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Replay a scenario without the terminal UI and print its timeline and outcome.
    #[command(after_help = "\
Examples:
  idem run
  idem run reply-lost --design no-key
  idem run my-story.toml --design all
  idem run reply-lost --json | jq '.verdict'")]
    Run {
        /// A scenario file, or the name of a built-in scenario (default: order-5531).
        scenario: Option<std::ffi::OsString>,
        /// A design id (with-charge, log-after-charge, no-key, log-before-charge,
        /// content-hash, inprogress-record), its number 1–6, or `all` for every design side by side.
        #[arg(long, short, value_parser = clap::value_parser!(DesignChoice))]
        design: Option<DesignChoice>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Key the checkout's attempts another way, every layer alike: per-intent,
        /// per-attempt or none (as K does in the replay).
        #[arg(long, value_name = "STRATEGY", value_parser = idem::scenario::values::KeyChoice::parse)]
        key_strategy: Option<idem::sim::config::KeyStrategy>,
        /// Key the scenario's steps after payment another way: derived, per-attempt or none
        /// (as m does in the replay).
        #[arg(long, value_name = "MODE", value_parser = idem::scenario::values::KeyModeId::parse)]
        step_keys: Option<idem::sim::config::KeyMode>,
    },
    /// Every fault plan of up to K faults, for each design: verdicts and shortest counterexamples.
    Explore(idem::cli::explore::ExploreArgs),
    /// Validate scenario files and check their [[expect]] blocks, like a test runner.
    Check(idem::cli::check::CheckArgs),
    /// List the built-in scenarios.
    List(idem::cli::list::ListArgs),
    /// Write a commented starter scenario to NAME.toml (never over an existing file).
    #[command(
        after_help = "Examples:\n  idem new my-story\n  idem new my-story && idem check my-story.toml && idem my-story.toml"
    )]
    New(idem::cli::new::NewArgs),
    /// A day of orders through a scenario's checkout under each design: duplicates and
    /// their money, the dedupe store's hit rate and size, as text, JSON or an SVG chart.
    Traffic(idem::cli::traffic::TrafficArgs),
    /// Work out what a retry configuration permits: attempts, delays, the window it needs.
    Window(idem::cli::window::WindowArgs),
    /// Turn an incident's records (OTLP, Jaeger or Zipkin traces, a HAR, an access log) into
    /// a scenario that replays it, and say which designs reproduce it.
    Import(idem::cli::import::ImportArgs),
    /// Present a scenario to a room: large narration, less chrome, remote-control keys.
    #[command(after_help = "\
Examples:
  idem present reply-lost
  idem present reply-lost --design no-key --at 14:02 --hide-design
  idem present scenarios/sessions/payments-45min.toml    (a session: several scenarios in order)
  idem notes                  (in a second terminal, for the speaker's notes)")]
    Present(PresentArgs),
    /// Speaker notes: follow `idem present` from a second terminal.
    #[command(
        after_help = "Examples:\n  idem present reply-lost     (in the terminal the room sees)\n  idem notes                  (in a second one, for the speaker)"
    )]
    Notes,
    /// Write a handout: Markdown, an SVG frame, or an asciinema recording.
    Export(idem::cli::export::ExportArgs),
    /// Run a small card processor over HTTP that implements a design for real, on SQLite.
    Serve(idem::cli::serve::ServeArgs),
    /// Check an HTTP endpoint's idempotency keys against the IETF draft: a bounded battery
    /// of requests, loopback only unless allowed.
    Drill(idem::cli::drill::DrillArgs),
    /// Print a shell completion script for idem.
    #[command(after_help = "\
Examples:
  idem completions bash > ~/.local/share/bash-completion/completions/idem
  idem completions zsh > \"${fpath[1]}/_idem\"
  idem completions fish > ~/.config/fish/completions/idem.fish")]
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of idem or of one command, or write them all to a folder.
    #[command(after_help = "\
Examples:
  idem man | man -l -
  idem man run | man -l -
  idem man --out ~/.local/share/man/man1    (idem.1 and one page per command)")]
    Man {
        /// The command whose page to print (`run`, `window` …); idem's own page without it.
        command: Option<String>,
        /// Write every page (idem.1, idem-run.1 …) into this folder instead of printing one.
        #[arg(long, value_name = "DIR", conflicts_with = "command")]
        out: Option<std::path::PathBuf>,
        /// Replace pages already in the folder.
        #[arg(long, requires = "out")]
        force: bool,
    },
}

fn main() -> ExitCode {
    // `idem` alone, the commonest start, is read without building clap's whole command tree
    // (every subcommand and its arguments): that took a tenth of the time to the first frame.
    // A test holds this to what clap reads from no arguments.
    let bare = std::env::args_os().len() <= 1;
    let parsed = if bare {
        Ok(Cli::default())
    } else {
        Cli::try_parse()
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // `idem rnu reply-lost`: clap sees a scenario and a stray argument; the first
            // word is more likely a mistyped command.
            if e.kind() != clap::error::ErrorKind::DisplayHelp
                && e.kind() != clap::error::ErrorKind::DisplayVersion
                && let Some(first) = std::env::args_os().nth(1)
                && let Some(message) = first.to_str().and_then(mistyped_command)
            {
                return usage_error(&message);
            }
            e.exit()
        }
    };
    // `idem rnu`: read as a scenario name, but it names no file or built-in, and is close to a
    // command.
    if cli.command.is_none()
        && let Some(word) = cli.replay.scenario.as_deref().and_then(|w| w.to_str())
        && let Some(message) = mistyped_command(word)
    {
        return usage_error(&message);
    }
    match cli.command {
        Some(Command::Run {
            scenario,
            design,
            json,
            key_strategy,
            step_keys,
        }) => run(scenario.as_deref(), design, json, (key_strategy, step_keys)),
        Some(Command::Explore(args)) => {
            let loaded = match args.scenario.as_deref() {
                Some(arg) => idem::scenario::resolve_os(arg),
                None => load_scenario(None),
            };
            let loaded = match loaded {
                Ok(s) => s,
                Err(e) => return report(&e.into()),
            };
            done(idem::cli::explore::run(&loaded, &args))
        }
        Some(Command::Check(args)) => {
            let outcome = idem::cli::check::run(&args);
            failure::eprint(&outcome.errors);
            match write_stdout(outcome.text.as_bytes()) {
                ExitCode::SUCCESS => ExitCode::from(outcome.exit),
                failed => failed,
            }
        }
        Some(Command::List(args)) if args.json => match idem::cli::list::json() {
            Ok(text) => write_stdout(text.as_bytes()),
            Err(e) => command_error(&e),
        },
        Some(Command::List(_)) => {
            let fit = std::io::stdout().is_terminal();
            write_stdout(idem::cli::list::run(fit).as_bytes())
        }
        Some(Command::New(args)) => done(idem::cli::new::run(&args)),
        Some(Command::Traffic(args)) => {
            let loaded = match args.scenario.as_deref() {
                Some(arg) => idem::scenario::resolve_os(arg),
                None => load_scenario(None),
            };
            match loaded {
                Ok(s) => done(idem::cli::traffic::run(&s, &args)),
                Err(e) => report(&e.into()),
            }
        }
        Some(Command::Window(args)) => window(&args),
        Some(Command::Import(args)) => done(idem::cli::import::run(&args)),
        Some(Command::Present(args)) => present(&args),
        Some(Command::Notes) => match idem::tui::terminal::unable_to_draw() {
            Some(why) => usage_error(&format!(
                "{why}; run the speaker notes in a terminal that can"
            )),
            None => notes(),
        },
        Some(Command::Export(args)) => match idem::cli::export::run(&args) {
            Ok(idem::cli::export::Exported::File(line)) => done(Ok(line)),
            Ok(idem::cli::export::Exported::Stdout(bytes)) => write_stdout(bytes.as_bytes()),
            Err(e) => report(&e),
        },
        Some(Command::Serve(args)) => match idem::cli::serve::run(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => command_error(&e),
        },
        Some(Command::Drill(args)) => match idem::cli::drill::run(&args) {
            Ok(outcome) => {
                let printed = write_stdout(outcome.text.as_bytes());
                if let Some(e) = &outcome.error {
                    failure::eprint(&failure::message_text(e));
                }
                match (printed, outcome.exit) {
                    (ExitCode::SUCCESS, code) => ExitCode::from(code),
                    (failed, _) => failed,
                }
            }
            Err(e) => command_error(&e),
        },
        Some(Command::Completions { shell }) => {
            let mut script = Vec::new();
            let mut cmd = idem::cli::manual::for_completion(Cli::command());
            clap_complete::generate(shell, &mut cmd, "idem", &mut script);
            write_stdout(&script)
        }
        Some(Command::Man {
            command,
            out,
            force,
        }) => match (command, out) {
            (_, Some(dir)) => match idem::cli::manual::write_pages(Cli::command(), &dir, force) {
                Ok(written) => {
                    let shown = idem::text::sanitize_line(&dir.display().to_string());
                    write_stdout(
                        format!(
                            "wrote {} pages to {shown}: {}\n",
                            written.len(),
                            written.join(" ")
                        )
                        .as_bytes(),
                    )
                }
                Err(e) => command_error(&anyhow::anyhow!(e)),
            },
            (Some(name), None) => match idem::cli::manual::page_of(Cli::command(), &name) {
                Ok(page) => write_stdout(&page),
                Err(e) => usage_error(&e),
            },
            (None, None) => match idem::cli::manual::pages(Cli::command()) {
                Ok(pages) => match pages.into_iter().next() {
                    Some((_, page)) => write_stdout(&page),
                    None => usage_error("cannot write the manual page"),
                },
                Err(e) => usage_error(&format!("cannot write the manual page: {e}")),
            },
        },
        None => replay(&cli.replay, None, None),
    }
}

/// When `word` names no file and no built-in scenario but is close to one of idem's
/// commands, the error that says so.
fn mistyped_command(word: &str) -> Option<String> {
    if word.starts_with('-')
        || std::path::Path::new(word).exists()
        || idem::scenario::library::BUILTIN
            .iter()
            .any(|b| b.name == word)
    {
        return None;
    }
    let command = Cli::command();
    let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
    if names.contains(&word) {
        return None;
    }
    let close = idem::scenario::values::did_you_mean(word, names.iter().copied())?;
    let shown = idem::text::sanitize_line(word);
    Some(format!(
        "`{shown}` is not a command, a file or a built-in scenario; did you mean `idem {close}`?"
    ))
}

/// Writes a command's output; a reader that has gone away (`| head`) is no failure.
fn write_stdout(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => usage_error(&format!("cannot write to standard output: {e}")),
    }
}

/// Whether an error is standard output closed early (`idem run --json | head`): not a failure.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| {
                c.downcast_ref::<serde_json::Error>()
                    .and_then(|j| j.io_error_kind())
            })
            == Some(std::io::ErrorKind::BrokenPipe)
    })
}

fn notes() -> ExitCode {
    match idem::tui::notes::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            failure::eprint(&failure::message_text(&format!("the terminal failed: {e}")));
            ExitCode::FAILURE
        }
    }
}

fn run(
    scenario: Option<&std::ffi::OsStr>,
    design: Option<DesignChoice>,
    json: bool,
    (key_strategy, step_keys): (
        Option<idem::sim::config::KeyStrategy>,
        Option<idem::sim::config::KeyMode>,
    ),
) -> ExitCode {
    // A path that is not UTF-8 is still a path: it is opened by its bytes.
    let loaded = match scenario {
        Some(path) => idem::scenario::resolve_os(path),
        None => load_scenario(None),
    };
    let loaded = match loaded {
        Ok(s) => s,
        Err(e) => return report(&e.into()),
    };
    let loaded = match loaded.rekeyed(key_strategy, step_keys) {
        Ok(s) => s,
        Err(why) => return usage_error(why),
    };
    let shown = scenario.map_or("order-5531".into(), |s| s.to_string_lossy());
    print_warnings(&loaded, &shown);
    let choice = design.unwrap_or(DesignChoice::One(loaded.design));
    if json {
        // Written as it is made: a run of every design is never held whole in memory.
        // Large writes: a long story's JSON runs to tens of megabytes.
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
        return match idem::cli::run::run_json(&loaded, &choice, &mut out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if broken_pipe(&e) => ExitCode::SUCCESS,
            Err(e) => {
                let _ = std::io::Write::flush(&mut out);
                usage_error(&format!("{e:#}"))
            }
        };
    }
    done(idem::cli::run::run(&loaded, &choice, json))
}

fn window(args: &idem::cli::window::WindowArgs) -> ExitCode {
    if !args.tui {
        return match idem::cli::window::run_checked(args) {
            Ok(outcome) => {
                let printed = done(Ok(outcome.text));
                match outcome.uncovered {
                    Some(why) => {
                        failure::eprint(&failure::message_text(&why));
                        ExitCode::FAILURE
                    }
                    None => printed,
                }
            }
            Err(e) => usage_error(&e.to_string()),
        };
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
    match idem::tui::window::run_standalone(stack) {
        Ok(Some(scenario)) => match idem::tui::App::new(scenario, "your-stack".into()) {
            Ok(app) => terminal(app, None, None),
            Err(e) => usage_error(&e.to_string()),
        },
        Ok(None) => ExitCode::SUCCESS,
        Err(e) => {
            failure::eprint(&failure::message_text(&format!("the terminal failed: {e}")));
            ExitCode::FAILURE
        }
    }
}

/// Presenter mode, on a scenario or on a session file's playlist.
fn present(args: &PresentArgs) -> ExitCode {
    // Where the results go is checked before the room sees anything: a talk's answers are
    // never lost to a path that cannot be written at the end.
    if let Some(path) = &args.results
        && let Err(why) = idem::files::check_writable(path, args.force)
    {
        return usage_error(&format!("--results: {why}"));
    }
    let results = args.results.as_deref().map(|p| (p, args.force));
    let hide = idem::present::Hide {
        design: args.hide_design,
        statement: args.hide_statement,
        outcome: args.hide_outcome,
    };
    let session = args
        .replay
        .scenario
        .as_deref()
        .filter(|s| idem::present::playlist::names_session_at(std::path::Path::new(s)));
    let Some(file) = session else {
        return replay(&args.replay, Some((hide, None)), results);
    };
    if args.replay.at.is_some() {
        return usage_error(
            "--at belongs to one scenario; a session file opens each of its scenarios at its start",
        );
    }
    let playlist = match idem::present::playlist::load(std::path::Path::new(file)) {
        Ok(p) => p,
        Err(e) => return report(&e.into()),
    };
    if args.replay.step_keys.is_some()
        && playlist
            .sections
            .iter()
            .all(|s| s.scenario.config.steps.is_empty())
    {
        return usage_error(
            "--step-keys keys the steps after payment, and no scenario of this session has a [[step]]",
        );
    }
    // The keys chosen here hold for every part, each time it is read; K and m still change
    // them in the room.
    let playlist = playlist.keyed(idem::present::playlist::Keys {
        strategy: args.replay.key_strategy,
        steps: args.replay.step_keys,
    });
    replay(&args.replay, Some((hide, Some(playlist))), results)
}

/// What `present` hands the replay: what to hide from the room, and the session's parts.
type Presenting = (
    idem::present::Hide,
    Option<idem::present::playlist::Playlist>,
);

/// Loads and checks everything, then opens the replay (in presenter mode when `present` says
/// what to hide, and on a session's first scenario when it has one). The terminal is taken on
/// another thread meanwhile; when the story cannot be opened it is given back before the
/// reason is printed.
fn replay(
    args: &ReplayArgs,
    present: Option<Presenting>,
    results: Option<(&std::path::Path, bool)>,
) -> ExitCode {
    // The spare thread first: the terminal's thread, started next, then starts at once
    // (see `tui/spare.rs`).
    idem::tui::spare::start();
    let unable = idem::tui::terminal::unable_to_draw();
    let taking = unable
        .is_none()
        .then(|| idem::tui::terminal::Taking::start(!args.no_mouse));
    let app = match open(args, present, unable) {
        Ok(app) => app,
        Err(failure) => {
            drop(taking);
            return report(&failure);
        }
    };
    terminal(app, taking, results)
}

/// The replay of what `args` name, or why it cannot be shown (`unable` says why this
/// terminal cannot draw it, if it cannot; said after what is wrong with the story).
fn open(
    args: &ReplayArgs,
    present: Option<Presenting>,
    unable: Option<&str>,
) -> Result<idem::tui::App, Failure> {
    let presenting = present.is_some();
    let (hide, playlist) = match present {
        Some((hide, playlist)) => (hide, playlist),
        None => (idem::present::Hide::default(), None),
    };
    let first = playlist.as_ref().and_then(|p| p.sections.first());
    let named = args.scenario.as_deref().map(|s| s.to_string_lossy());
    let scenario = match first {
        Some(s) => Some(s.source.as_str()),
        None => named.as_deref(),
    };
    let read = match args.scenario.as_deref() {
        Some(arg) => idem::scenario::resolve_os(arg),
        None => load_scenario(None),
    };
    let mut loaded = match (first, read) {
        (Some(s), _) => s.scenario.clone(),
        (None, Ok(s)) => s,
        (None, Err(e)) => return Err(e.into()),
    };
    // A session's parts are keyed already, each as it can be.
    if playlist.is_none() {
        loaded = loaded
            .rekeyed(args.key_strategy, args.step_keys)
            .map_err(|why| Failure::Message(why.to_string()))?;
    }
    if let Some(why) = unable {
        let arg = idem::text::shell_word(scenario.unwrap_or("order-5531"));
        return Err(Failure::Message(format!(
            "{why}; `idem run {arg} --design all` prints the story as text"
        )));
    }
    let source = idem::text::sanitize_line(scenario.unwrap_or("order-5531"));
    // A scenario read from a file is watched, and reloaded when it changes.
    let launch = Launch {
        design: args.design.or(first.map(|s| s.design)),
        mouse: !args.no_mouse,
        at: args.at,
        present: presenting,
        hide,
        // A session opens on its agenda and ends on its end card.
        cards: playlist.is_some(),
        playlist,
    };
    idem::tui::App::launch(loaded, source, launch).map_err(|e| Failure::Message(e.to_string()))
}

/// Runs the replay on the terminal `taking` is taking, or takes it now.
fn terminal(
    app: idem::tui::App,
    taking: Option<idem::tui::terminal::Taking>,
    results: Option<(&std::path::Path, bool)>,
) -> ExitCode {
    use idem::tui::terminal::{ResultsOut, Taking, run_taken};
    let out = results.map(|(path, force)| ResultsOut::new(path.to_path_buf(), force));
    let taking = taking.unwrap_or_else(|| Taking::start(app.screens.mouse));
    let ran = run_taken(app, taking, out.clone());
    match ran {
        Ok(app) => {
            let mut said = idem::tui::terminal::summary(&app);
            if let Some(out) = &out {
                let shown = idem::text::sanitize_line(&out.path.display().to_string());
                match out.outcome() {
                    Some(Ok(())) => {
                        let line = format!("the room's answers are in {shown}");
                        said = Some(said.map_or(line.clone(), |s| format!("{s}\n{line}")));
                    }
                    failed => {
                        // The talk is over and the answers are in memory only: print them.
                        let why = match failed {
                            Some(Err(why)) => why,
                            _ => "they were not written".to_string(),
                        };
                        let made = idem::tui::results::results(&app);
                        let text = idem::tui::results::render(&made, &out.path);
                        failure::eprint(&failure::message_text(&format!(
                            "--results: {why}; here they are instead"
                        )));
                        print!("{text}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            match said {
                Some(line) => done(Ok(line)),
                None => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            failure::eprint(&failure::message_text(&format!("the terminal failed: {e}")));
            ExitCode::FAILURE
        }
    }
}

/// Prints a command's result: its text (ending in a newline) on success, its error with exit
/// code 2 otherwise.
fn done(result: anyhow::Result<String>) -> ExitCode {
    match result {
        Ok(text) if text.ends_with('\n') => write_stdout(text.as_bytes()),
        Ok(text) => write_stdout(format!("{text}\n").as_bytes()),
        Err(e) => command_error(&e),
    }
}

/// Reports a failure on standard error in the one shape, `error: …`, with exit code 2.
fn report(failure: &Failure) -> ExitCode {
    failure::eprint(&failure.text());
    ExitCode::from(2)
}

fn usage_error(message: &str) -> ExitCode {
    report(&Failure::Message(message.to_string()))
}

/// A command's error with the whole of its chain, `outer: inner`, exit code 2.
fn command_error(e: &anyhow::Error) -> ExitCode {
    usage_error(&format!("{e:#}"))
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::Parser;

    /// `idem` with no arguments skips clap: what it starts with is what clap reads from none.
    #[test]
    fn no_arguments_read_as_clap_reads_them() {
        let read = Cli::try_parse_from(["idem"]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(format!("{read:?}"), format!("{:?}", Cli::default()));
    }
}
