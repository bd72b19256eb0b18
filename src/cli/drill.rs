//! `idem drill`: the flags, the plan told before anything is sent, the report, and the
//! scenario written from what was seen.

use crate::drill::{self, Expiry, Plan, battery, report, target};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

pub const AFTER_HELP: &str = "\
The drill sends a fixed number of requests, listed before the first one leaves: the same key \
and body twice, the same key written the other way (quoted for a bare key, bare for a quoted \
one), the same key with another amount, N at once with one key, one without a key, one with \
a key of its own written the other way and one with a 256-character key; keys go bare, as \
client libraries send them, unless --key-syntax sf-string; with --read-back, a GET before and \
after the first two. Each request has --timeout, the whole drill --max-time; no redirect is \
followed. Only loopback addresses (127.0.0.0/8, [::1], localhost) are drilled unless \
--allow-remote is given: every POST the endpoint takes may charge, so drill a test endpoint.

Each row is read against the IETF draft on the Idempotency-Key header, at its level (MUST, \
SHOULD, or - for what the draft leaves open). A reused key answered 400 (as Stripe does) or 409 \
(as GoCardless does) is a variant, not a failure. The exit status is 0 only when every MUST row was \
exercised and passed and no row failed; 1 when a MUST or SHOULD row fails; 3 when none failed \
but a MUST row could not be exercised (nothing answered, the time ran out); 2 when the drill \
itself could not run or write its scenario. So a pipeline can hold an API to the draft.

Examples:
  idem serve --port 8080 &                          a processor to drill
  idem drill http://127.0.0.1:8080/charges
  idem drill http://127.0.0.1:8080/charges --read-back 'http://127.0.0.1:8080/charges?order=5531'
  idem drill http://127.0.0.1:8080/charges --scenario my-api.toml && idem my-api.toml
  idem drill http://127.0.0.1:8080/charges --expiry 24h --stack assets/window-stack.toml
  idem drill http://localhost:3000/payments --body '{\"amount\": 1200, \"currency\": \"eur\"}' --json
  idem drill http://127.0.0.1:8080/charges --dry-run  only say what would be sent";

/// Flags of `idem drill`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct DrillArgs {
    /// The endpoint to drill: the URL a POST creates a charge (or any resource) at.
    pub url: String,
    /// The JSON body of every POST.
    #[arg(
        long,
        value_name = "JSON",
        default_value = r#"{"order": "5531", "amount": "$48.60"}"#
    )]
    pub body: String,
    /// The body sent with a used key [default: the body with its amount $3.50 higher].
    #[arg(long, value_name = "JSON")]
    pub other_body: Option<String>,
    /// A URL to GET before and after the first two requests, to see whether the retry made a
    /// second resource; `{key}` in it is replaced by the drill's key.
    #[arg(long, value_name = "URL")]
    pub read_back: Option<String>,
    /// The shape of the keys sent: token (the drill's own, readable) or uuid, for an
    /// endpoint that takes nothing else.
    #[arg(long, value_name = "FORMAT", default_value = "token", value_parser = key_format)]
    pub key_format: battery::KeyFormat,
    /// How the keys are written in the header: bare, as client libraries send them (Stripe's,
    /// and most HTTP clients), or sf-string, in double quotes as the draft writes them. The
    /// key-syntax row then sends the same key the other way.
    #[arg(long, value_name = "SYNTAX", default_value = "bare", value_parser = key_syntax)]
    pub key_syntax: battery::KeySyntax,
    /// How many requests are sent at once with one key (2–16).
    #[arg(long, short = 'n', value_name = "N", default_value_t = 5,
          value_parser = clap::value_parser!(u8).range(2..=battery::MAX_CONCURRENCY as i64))]
    pub concurrency: u8,
    /// The key expiry the API publishes, held against the retry window the calculator
    /// works out (the worked example of `idem window`, or --stack).
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub expiry: Option<u64>,
    /// The retry stack to hold --expiry against: a TOML file as `idem window --config` reads.
    #[arg(long, value_name = "FILE", requires = "expiry")]
    pub stack: Option<PathBuf>,
    /// Send a request, wait this long (past the API's key expiry), and send its key again
    /// from several requests at once: it must be processed anew, once (at most 5 minutes, and
    /// within --max-time).
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub expiry_wait: Option<u64>,
    /// Send a request, wait this long, and send it again: the key must still be kept, so a
    /// stated retention ("we keep keys 24 h") can be spot-checked in minutes (at most 30
    /// minutes, and within --max-time with --expiry-wait).
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub kept_for: Option<u64>,
    /// How long each request may take.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = positive_duration)]
    pub timeout: u64,
    /// How long the whole drill may take; what is left when it runs out is not sent.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = positive_duration)]
    pub max_time: u64,
    /// Print one JSON object instead of the table (the plan then goes to standard error).
    #[arg(long)]
    pub json: bool,
    /// Write a scenario that replays what was seen under the nearest design.
    #[arg(long = "scenario", value_name = "OUT.toml")]
    pub scenario_out: Option<PathBuf>,
    /// Overwrite the --scenario file if it exists.
    #[arg(long, requires = "scenario_out")]
    pub force: bool,
    /// Drill an endpoint that is not on this machine's loopback interface.
    #[arg(long)]
    pub allow_remote: bool,
    /// Say what would be sent, and send nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// The longest `--timeout` or `--max-time` taken.
const MAX_TIME_MS: u64 = 40 * 60_000;
/// The longest body taken on the command line.
const MAX_BODY: usize = 16 * 1024;

fn positive_duration(text: &str) -> Result<u64, String> {
    match crate::scenario::values::parse_duration(text)? {
        0 => Err("must be longer than zero".into()),
        ms => Ok(ms),
    }
}

fn json_arg(flag: &str, text: &str) -> Result<serde_json::Value, String> {
    if text.len() > MAX_BODY {
        return Err(format!("{flag} is longer than {MAX_BODY} bytes"));
    }
    serde_json::from_str(text)
        .map_err(|e| crate::text::sanitize_line(&format!("{flag} is not JSON: {e}")))
}

/// Builds the plan from the flags; nothing is sent.
pub fn plan(args: &DrillArgs) -> anyhow::Result<Plan> {
    let target =
        target::check(&args.url, "the URL", args.allow_remote).map_err(anyhow::Error::msg)?;
    let read_back = args
        .read_back
        .as_deref()
        .map(|u| target::check(u, "--read-back", args.allow_remote))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let body = json_arg("--body", &args.body).map_err(anyhow::Error::msg)?;
    let other_body = match &args.other_body {
        Some(text) => Some(json_arg("--other-body", text).map_err(anyhow::Error::msg)?),
        None => battery::other_body(&body),
    };
    if other_body.as_ref() == Some(&body) {
        anyhow::bail!("--other-body is the same as --body; a reused key needs a different body");
    }
    for (flag, ms) in [("--timeout", args.timeout), ("--max-time", args.max_time)] {
        if ms > MAX_TIME_MS {
            anyhow::bail!("{flag} is longer than the 40 minutes a drill may take");
        }
    }
    if let Some(wait) = args.expiry_wait {
        if wait > 5 * 60_000 {
            anyhow::bail!("--expiry-wait is longer than the 5 minutes the drill waits at most");
        }
        if wait >= args.max_time {
            anyhow::bail!(
                "--expiry-wait of {} does not fit in --max-time of {}; give a longer --max-time",
                crate::units::duration_ms(wait),
                crate::units::duration_ms(args.max_time)
            );
        }
        if let Some(expiry) = args.expiry.filter(|e| wait <= *e) {
            anyhow::bail!(
                "--expiry-wait of {} does not pass the --expiry of {}; wait longer than the expiry",
                crate::units::duration_ms(wait),
                crate::units::duration_ms(expiry)
            );
        }
    }
    if let Some(kept) = args.kept_for {
        if kept > 30 * 60_000 {
            anyhow::bail!("--kept-for is longer than the 30 minutes the drill waits at most");
        }
        let waits = kept.saturating_add(args.expiry_wait.unwrap_or(0));
        if waits >= args.max_time {
            anyhow::bail!(
                "--kept-for of {} does not fit in --max-time of {}{}; give a longer --max-time",
                crate::units::duration_ms(kept),
                crate::units::duration_ms(args.max_time),
                if args.expiry_wait.is_some() {
                    " beside --expiry-wait"
                } else {
                    ""
                }
            );
        }
    }
    let expiry = match args.expiry {
        None => None,
        Some(published_ms) => {
            let (stack, source) = match &args.stack {
                Some(file) => (
                    crate::window::load_stack(file)
                        .map_err(|e| e.to_string())
                        .map_err(anyhow::Error::msg)?,
                    format!(
                        "the stack in {}",
                        crate::text::sanitize_line(&file.display().to_string())
                    ),
                ),
                None => (
                    crate::window::Stack::worked_example(),
                    "the worked example of idem window".to_string(),
                ),
            };
            Some(Expiry {
                published_ms,
                stack,
                source,
                own_stack: args.stack.is_some(),
            })
        }
    };
    Ok(Plan {
        target,
        body,
        other_body,
        read_back,
        concurrency: usize::from(args.concurrency),
        timeout: Duration::from_millis(args.timeout),
        max_time: Duration::from_millis(args.max_time),
        expiry,
        tag: battery::fresh_tag(),
        key_format: args.key_format,
        expiry_wait: args.expiry_wait.map(Duration::from_millis),
        kept_for: args.kept_for.map(Duration::from_millis),
        key_syntax: args.key_syntax,
    })
}

/// What `idem drill` prints, and how it ends.
pub struct Outcome {
    pub text: String,
    /// 0 when every MUST row was exercised and passed, 1 when a requirement failed, 3 when a
    /// MUST row was not exercised, 2 when the scenario could not be written.
    pub exit: u8,
    /// Why the scenario was not written, to be said after the report.
    pub error: Option<String>,
}

/// Writes the scenario of what was seen; returns the file as a shell word.
fn write_scenario(
    path: &std::path::Path,
    force: bool,
    plan: &Plan,
    drilled: &drill::Drilled,
) -> anyhow::Result<String> {
    let Some((design, why)) = &drilled.nearest else {
        if let Some(why) = &drilled.none_fits {
            anyhow::bail!("{why}; no scenario was written");
        }
        anyhow::bail!(
            "too little came back to tell which design the endpoint behaves like; no scenario was written"
        );
    };
    let toml = drill::scenario_out::write(plan, &drilled.observed, &drilled.rows, *design, why)
        .map_err(anyhow::Error::msg)?;
    crate::files::write_file(path, toml.as_bytes(), force).map_err(anyhow::Error::msg)?;
    Ok(crate::text::shell_word(&path.display().to_string()))
}

/// Runs the drill: tells the plan (on standard output, or standard error with --json),
/// sends, judges, writes the scenario if asked.
pub fn run(args: &DrillArgs) -> anyhow::Result<Outcome> {
    let plan = plan(args)?;
    if let Some(path) = &args.scenario_out {
        // Refuse before sending anything, rather than after: a missing folder, a device, a
        // file that is there without --force.
        crate::files::check_writable(path, args.force).map_err(anyhow::Error::msg)?;
    }
    let told = plan.describe().join("\n") + "\n";
    if args.dry_run {
        return Ok(Outcome {
            text: told,
            exit: 0,
            error: None,
        });
    }
    if args.json {
        crate::cli::failure::eprint(&told);
    } else {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(told.as_bytes());
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
    let drilled = drill::run(&plan);
    let mut text = if args.json {
        report::json(
            &plan,
            &drilled.rows,
            &drilled.observed,
            drilled.nearest.as_ref(),
            drilled.none_fits.as_deref(),
        )
        .map_err(anyhow::Error::msg)?
            + "\n"
    } else {
        report::text(
            &drilled.rows,
            &drilled.observed,
            drilled.nearest.as_ref(),
            drilled.none_fits.as_deref(),
        )
    };
    let mut error = None;
    if let Some(path) = &args.scenario_out {
        match write_scenario(path, args.force, &plan, &drilled) {
            Ok(arg) if !args.json => text.push_str(&format!(
                "Wrote {}: replay it with `idem {arg}`, check it with `idem check {arg}`.\n",
                crate::text::sanitize_line(&path.display().to_string())
            )),
            Ok(_) => {}
            Err(e) => error = Some(format!("{e:#}")),
        }
    }
    let exit = match &error {
        Some(_) => 2,
        None => report::standing(&drilled.rows).exit(),
    };
    Ok(Outcome { text, exit, error })
}

/// `bare` or `sf-string`, for `--key-syntax`.
fn key_syntax(text: &str) -> Result<battery::KeySyntax, String> {
    battery::KeySyntax::ALL
        .iter()
        .find(|(name, _)| *name == text)
        .map(|(_, f)| *f)
        .ok_or_else(|| {
            format!(
                "expected bare or sf-string, found {}",
                crate::text::sanitize_line(text)
            )
        })
}

/// `token` or `uuid`, for `--key-format`.
fn key_format(text: &str) -> Result<battery::KeyFormat, String> {
    battery::KeyFormat::ALL
        .iter()
        .find(|(name, _)| *name == text)
        .map(|(_, f)| *f)
        .ok_or_else(|| {
            format!(
                "expected token or uuid, found {}",
                crate::text::sanitize_line(text)
            )
        })
}
