//! The `idem window` command: flags, how they combine with a config file,
//! and the text or JSON it prints.
//!
//! Where the stack comes from:
//! 1. `--config FILE` when given; otherwise
//! 2. the worked example when no `--layer`, `--from` or `--preset` is given;
//!    otherwise
//! 3. an empty stack (no human paths, 24 h window, safety factor 2).
//!
//! Layers are then added outside those of the base, innermost first: those
//! read with each `--from FILE` (in order), then each `--preset`, then each
//! `--layer`. Lists add, values replace:
//! - `--layer NAME=...` whose NAME matches a layer already in the stack
//!   replaces its backoff and attempts in place (and its timeout, when the
//!   flag gives one); any other `--layer` is added outside the existing
//!   layers, in the order given. Unnamed layers are called "layer N" after
//!   their final position.
//! - human paths implied by the files come after the base's; `--path
//!   NAME=...` whose NAME matches an existing path replaces its delay; any
//!   other `--path` (or path preset) is added after the existing paths.
//! - `--window`, `--keys-kept` and `--safety` replace the base values.

use std::path::PathBuf;

use crate::window::Report;
use crate::window::Schedule;
use crate::window::WindowError;
use crate::window::config;
use crate::window::json;
use crate::window::parse::{self, LayerSpec};
use crate::window::sources::{self, presets};
use crate::window::{Layer, Stack};

const AFTER_HELP: &str = "\
Without --layer, --from, --preset or --config the worked example is used: http \
client 2s:3, calling service 1m:3, job scheduler 1h:3, dead-letter replay 26h, \
operator rerun 72h, window 24h, safety 2.

Layers are added innermost first: --from files in order, then --preset, then \
--layer. --from reads Envoy routes, Istio VirtualServices, ~/.aws/config, \
Resilience4j application.yml or .properties, Polly options in \
appsettings.json, SQS queue attributes, Lambda EventInvokeConfig, \
CloudFormation templates and Kubernetes Jobs and CronJobs; FILE#NAME picks \
one route, profile, instance or resource when the file has several.

With --config, flags adjust the file: a --layer or --path whose name matches \
one in the file replaces it; others are added (layers outermost). --window \
and --safety replace the file's values.

With --require-covered, the report is printed as usual and the exit status is 1 when any \
path is NOT covered by the window, so a CI pipeline can hold a configuration to its window.

Examples:
  idem window
  idem window --layer \"http client=2s:3:30s\" --layer 1m:3 --path \"operator rerun=72h\" --window 3d
  idem window --from envoy.yaml --from ~/.aws/config#payments --preset sidekiq --keys-kept stripe
  idem window --config assets/window-stack.toml --require-covered --json > window.json
  idem window --tui";

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

    /// Read layers (and queue paths) from a configuration file, innermost first; repeat
    /// for each file. FILE#NAME picks one of several routes, profiles or instances.
    #[arg(long = "from", value_name = "FILE[#NAME]")]
    pub from: Vec<String>,

    /// The AWS SDK that reads an ~/.aws/config given with --from: its default retry mode
    /// counts where the file sets none (without it, the most a default makes is counted).
    #[arg(long, value_name = "SDK", value_parser = sdk)]
    pub sdk: Option<crate::window::sources::aws::Sdk>,

    /// The value of a CloudFormation template's parameter or a Terraform variable, in place of
    /// its default; repeat for each, e.g. --param VisibilitySeconds=120.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = param)]
    pub params: Vec<(String, String)>,

    /// A stack configured in code, with its documented schedule; repeat for each.
    #[arg(long = "preset", value_name = "NAME", value_parser = presets::LAYER_PRESETS)]
    pub presets: Vec<String>,

    /// A human recovery path and its delay after the first attempt, e.g. "dead-letter replay=26h";
    /// or a preset: dead-set (Sidekiq, 6 months), dlq-redrive (SQS, 4 days), cronjob-rerun (24 h).
    #[arg(long = "path", value_name = "NAME=DURATION|PRESET")]
    pub paths: Vec<String>,

    /// How long idempotency keys are kept [default: 24h].
    #[arg(long, value_name = "DURATION", conflicts_with = "keys_kept")]
    pub window: Option<String>,

    /// How long the payment provider keeps keys: a duration, or stripe (24 h) or adyen (31 days).
    #[arg(long = "keys-kept", value_name = "DURATION|PROVIDER")]
    pub keys_kept: Option<String>,

    /// Multiplier applied to the longest path, at least 1 [default: 2].
    #[arg(long, value_name = "FACTOR", allow_negative_numbers = true)]
    pub safety: Option<String>,

    /// Read the stack from a TOML file (see assets/window-stack.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Print one JSON object instead of the text report.
    #[arg(long)]
    pub json: bool,

    /// Exit with status 1 when any path is NOT covered by the window (the report is still
    /// printed), so a pipeline can fail on a retry configuration that outlives its keys.
    #[arg(long, conflicts_with = "tui")]
    pub require_covered: bool,

    /// Open the interactive calculator instead of printing the report.
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
        .map(|p| presets::path(p.trim()).map_or_else(|| parse::path(p), Ok))
        .collect::<Result<Vec<_>, _>>()?;
    let window = args.window.as_deref().map(parse::window).transpose()?;
    let keys_kept = args.keys_kept.as_deref().map(keys_kept).transpose()?;
    let safety = args.safety.as_deref().map(parse::safety).transpose()?;
    let imported = sources::read_all(
        &args.from,
        &sources::ReadOptions {
            sdk: args.sdk,
            params: args.params.clone(),
        },
    )?;
    let preset_layers = args
        .presets
        .iter()
        .map(|p| {
            presets::layer(p).ok_or_else(|| WindowError::Flag {
                flag: "--preset",
                value: p.clone(),
                problem: format!("expected one of {}", presets::LAYER_PRESETS.join(", ")),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;

    let from_elsewhere = !imported.is_empty() || !preset_layers.is_empty();
    let mut stack = match &args.config {
        Some(file) => config::load_stack(file)?,
        None if layers.is_empty() && !from_elsewhere => Stack::worked_example(),
        None => Stack::default(),
    };
    for file in imported {
        stack.layers.extend(file.layers);
        stack.paths.extend(file.paths);
        stack.notes.extend(file.notes);
    }
    stack.layers.extend(preset_layers);
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
    if let Some((window, by)) = keys_kept {
        stack.window = window;
        stack.keys_kept_by = Some(by);
    }
    if let Some(safety) = safety {
        stack.safety = safety;
    }
    Ok(stack)
}

/// Reads `--keys-kept`: a provider preset, or a duration.
fn keys_kept(value: &str) -> Result<(std::time::Duration, String), WindowError> {
    if let Some((label, window)) = presets::provider(value) {
        return Ok((window, label.to_owned()));
    }
    parse::duration(value)
        .map(|d| (d, "the provider".to_owned()))
        .map_err(|p| WindowError::Flag {
            flag: "--keys-kept",
            value: value.to_owned(),
            problem: format!(
                "{p}; or a provider: {}",
                presets::PROVIDERS
                    .iter()
                    .map(|(id, _, _)| *id)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
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
    printed(&report_from_args(args)?, args)
}

/// What `idem window` prints, and whether `--require-covered` fails the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowOutcome {
    /// The report, for standard output.
    pub text: String,
    /// With `--require-covered` and a path not covered: why the run fails, for standard
    /// error (exit status 1).
    pub uncovered: Option<String>,
}

/// Runs `idem window` and judges `--require-covered`.
pub fn run_checked(args: &WindowArgs) -> Result<WindowOutcome, WindowError> {
    let report = report_from_args(args)?;
    let text = printed(&report, args)?;
    let missing = report.uncovered_count();
    let uncovered = (args.require_covered && missing > 0).then(|| {
        let names: Vec<String> = report
            .paths
            .iter()
            .filter(|p| !p.covered)
            .map(|p| crate::text::sanitize_line(&p.name))
            .collect();
        format!(
            "{missing} of {} paths {} NOT covered by the window ({}); --require-covered fails the run",
            report.paths.len(),
            if missing == 1 { "is" } else { "are" },
            names.join(", ")
        )
    });
    Ok(WindowOutcome { text, uncovered })
}

fn printed(report: &Report, args: &WindowArgs) -> Result<String, WindowError> {
    if args.json {
        let mut text = json::to_json(report)?;
        text.push('\n');
        Ok(text)
    } else {
        Ok(report.to_text())
    }
}

/// `boto3`, `cli`, `js-v3` or `go-v2`, for `--sdk`.
fn sdk(text: &str) -> Result<crate::window::sources::aws::Sdk, String> {
    use crate::window::sources::aws::Sdk;
    Sdk::ALL
        .iter()
        .find(|(name, _)| *name == text)
        .map(|(_, s)| *s)
        .ok_or_else(|| {
            let names: Vec<&str> = Sdk::ALL.iter().map(|(n, _)| *n).collect();
            format!(
                "expected {}, found {}",
                crate::text::and_list(&names).replace(" and ", " or "),
                crate::text::sanitize_line(text)
            )
        })
}

/// `NAME=VALUE`, for `--param`.
fn param(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.trim().to_string()))
        }
        _ => Err(format!(
            "expected NAME=VALUE, such as VisibilitySeconds=120; found {}",
            crate::text::sanitize_line(text)
        )),
    }
}
