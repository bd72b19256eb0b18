//! The `idem window` command: flags, how they combine with a config file,
//! and the text or JSON it prints.
//!
//! Where the stack comes from:
//! 1. `--config FILE` when given; otherwise
//! 2. the worked example when no `--layer` is given; otherwise
//! 3. an empty stack (no human paths, 24 h window, safety factor 2).
//!
//! Flags then adjust that base. Lists add, values replace:
//! - `--layer NAME=...` whose NAME matches a layer already in the stack
//!   replaces its backoff and attempts in place (and its timeout, when the
//!   flag gives one); any other `--layer` is added outside the existing
//!   layers, in the order given. Unnamed layers are called "layer N" after
//!   their final position.
//! - `--path NAME=...` whose NAME matches an existing path replaces its
//!   delay; any other `--path` is added after the existing paths.
//! - `--window` and `--safety` replace the base values.

use std::path::PathBuf;

use super::config;
use super::error::WindowError;
use super::json;
use super::parse::{self, LayerSpec};
use super::report::Report;
use super::schedule::Schedule;
use super::stack::{Layer, Stack};

const AFTER_HELP: &str = "\
Without --layer or --config the worked example is used: http client 2s:3, \
calling service 1m:3, job scheduler 1h:3, dead-letter replay 26h, operator \
rerun 72h, window 24h, safety 2.

With --config, flags adjust the file: a --layer or --path whose name matches \
one in the file replaces it; others are added (layers outermost). --window \
and --safety replace the file's values.

Example: idem window --layer \"http client=2s:3\" --layer 1m:3 --path \"operator rerun=72h\" --window 3d";

/// Flags of `idem window`: how long must idempotency keys be kept?
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct WindowArgs {
    /// A retrying layer, innermost first; repeat for each layer, e.g. "http client=2s:3".
    /// A third part is how long one try may last, e.g. "http client=2s:3:30s": for the
    /// innermost layer the wait for an answer, for an outer one a deadline on each of its
    /// attempts.
    #[arg(long = "layer", value_name = "[NAME=]BACKOFF:ATTEMPTS[:TIMEOUT]")]
    pub layers: Vec<String>,

    /// A human recovery path and its delay; repeat for each path, e.g. "dead-letter replay=26h".
    #[arg(long = "path", value_name = "NAME=DURATION")]
    pub paths: Vec<String>,

    /// How long idempotency keys are kept [default: 24h].
    #[arg(long, value_name = "DURATION")]
    pub window: Option<String>,

    /// Multiplier applied to the longest path, at least 1 [default: 2].
    #[arg(long, value_name = "FACTOR", allow_negative_numbers = true)]
    pub safety: Option<String>,

    /// Read the stack from a TOML file (see assets/window-stack.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Print one JSON object instead of the text report.
    #[arg(long)]
    pub json: bool,

    /// Open the interactive screen instead of printing (handled by the caller).
    #[arg(long)]
    pub tui: bool,
}

/// Builds the stack described by `args` (see the module docs for the rules).
pub fn stack_from_args(args: &WindowArgs) -> Result<Stack, WindowError> {
    // Read every flag first so a bad value is reported even if the file is fine.
    let layers = args
        .layers
        .iter()
        .map(|l| parse::layer(l))
        .collect::<Result<Vec<_>, _>>()?;
    let paths = args
        .paths
        .iter()
        .map(|p| parse::path(p))
        .collect::<Result<Vec<_>, _>>()?;
    let window = args.window.as_deref().map(parse::window).transpose()?;
    let safety = args.safety.as_deref().map(parse::safety).transpose()?;

    let mut stack = match &args.config {
        Some(file) => config::load_stack(file)?,
        None if layers.is_empty() => Stack::worked_example(),
        None => Stack::default(),
    };
    for spec in layers {
        add_layer(&mut stack, spec);
    }
    for path in paths {
        match stack.paths.iter_mut().find(|p| p.name == path.name) {
            Some(existing) => existing.delay = path.delay,
            None => stack.paths.push(path),
        }
    }
    if let Some(window) = window {
        stack.window = window;
    }
    if let Some(safety) = safety {
        stack.safety = safety;
    }
    Ok(stack)
}

/// Replaces the layer of the same name, or adds the layer outermost.
fn add_layer(stack: &mut Stack, spec: LayerSpec) {
    if let Some(name) = &spec.name
        && let Some(existing) = stack.layers.iter_mut().find(|l| &l.name == name)
    {
        existing.schedule = Schedule::Constant(spec.backoff);
        existing.attempts = spec.attempts;
        existing.forever = false;
        if spec.timeout.is_some() {
            existing.timeout = spec.timeout;
        }
        return;
    }
    let name = spec
        .name
        .unwrap_or_else(|| format!("layer {}", stack.layers.len() + 1));
    let mut layer = Layer::new(name, spec.backoff, spec.attempts);
    layer.timeout = spec.timeout;
    stack.layers.push(layer);
}

/// Builds the stack described by `args` and computes its report. This is
/// what a caller honouring `--tui` needs.
pub fn report_from_args(args: &WindowArgs) -> Result<Report, WindowError> {
    stack_from_args(args)?.report()
}

/// Runs `idem window`: returns the text report, or the JSON object with
/// `--json`, ready to print. `--tui` is ignored here; the caller checks
/// `args.tui` and uses [`report_from_args`] to draw its screen instead.
pub fn run(args: &WindowArgs) -> Result<String, WindowError> {
    let report = report_from_args(args)?;
    if args.json {
        let mut text = json::to_json(&report)?;
        text.push('\n');
        Ok(text)
    } else {
        Ok(report.to_text())
    }
}
