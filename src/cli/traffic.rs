//! `idem traffic`: a day of orders through a scenario's checkout, under each design: the
//! duplicates and their money, the dedupe store's hit rate and size, as text, JSON or an
//! SVG chart.

use crate::scenario::Scenario;
use crate::scenario::traffic::{self as plan, TrafficPlan};
use crate::scenario::values::DesignChoice;
use crate::sim::{Cents, Design};
use crate::traffic::words::{self, count, rate};
use crate::traffic::{Progress, Report, Settings};
use std::fmt::Write;
use std::sync::atomic::Ordering;

/// Arguments of `idem traffic`.
#[derive(clap::Args, Debug, Default)]
#[command(after_help = "\
Each order is a copy of the scenario's first order as a purchase of its own (no key or request
body shared with another order), through the scenario's checkout (its layers, keys and
timeouts) and processor (its retention). The
scenario's own faults are set aside: each attempt draws its faults at the rates given.
A [traffic] table in the scenario file can hold any of these settings; flags win.

Examples:
  idem traffic --orders 1000000 --lose-reply 0.5%
  idem traffic mobile-gateway --outage 14:00+10m --outage-loses answers
  idem traffic monday-rerun --lose-reply 50% --rerun-after 72h --design with-charge
  idem traffic --lose-reply 0.5% --json | jq '.designs[] | {design, duplicate_orders}'
  idem traffic --lose-reply 0.5% --svg day.svg")]
pub struct TrafficArgs {
    /// A scenario file, or the name of a built-in scenario (default: order-5531).
    pub scenario: Option<std::ffi::OsString>,
    /// How many orders arrive (default 100000).
    #[arg(long, value_parser = parse_orders)]
    pub orders: Option<u64>,
    /// The period they arrive over, e.g. 24h or 7d (default 24h).
    #[arg(long, value_parser = parse_period)]
    pub over: Option<u64>,
    /// steady (the default) or daily: quiet nights, a midday rise, an evening peak.
    #[arg(long, value_parser = plan::parse_arrivals)]
    pub arrivals: Option<plan::Arrivals>,
    /// A design id, its number 1–6, or `all` (the default).
    #[arg(long, short, value_parser = clap::value_parser!(DesignChoice))]
    pub design: Option<DesignChoice>,
    /// The share of answers the network loses, e.g. 0.5%.
    #[arg(long, value_name = "RATE", value_parser = plan::parse_rate)]
    pub lose_reply: Option<f64>,
    /// The share of requests the network loses.
    #[arg(long, value_name = "RATE", value_parser = plan::parse_rate)]
    pub lose_request: Option<f64>,
    /// The share of attempts the processor is slow on: twice the checkout's timeout.
    #[arg(long, value_name = "RATE", value_parser = plan::parse_rate)]
    pub slow: Option<f64>,
    /// How often the processor crashes, e.g. 2/h or 10/d.
    #[arg(long, value_name = "RATE", value_parser = plan::parse_per_hour)]
    pub crash: Option<f64>,
    /// How long a crashed processor stays down (default 30s).
    #[arg(long, value_name = "DURATION", value_parser = crate::scenario::values::parse_duration)]
    pub restart_after: Option<u64>,
    /// An outage of the network to the processor, START+LENGTH, e.g. 14:00+10m.
    #[arg(long, value_name = "START+LENGTH", value_parser = plan::parse_outage)]
    pub outage: Option<(u64, u64)>,
    /// What the outage loses: all (the default: nothing gets through) or answers (the
    /// processor keeps charging and nobody hears back).
    #[arg(long, value_name = "WHAT", value_parser = plan::parse_loses)]
    pub outage_loses: Option<plan::Loses>,
    /// A person reruns every order the checkout gave up on, this long after it gave up, e.g.
    /// 72h.
    #[arg(long, value_name = "DURATION", value_parser = crate::scenario::values::parse_duration)]
    pub rerun_after: Option<u64>,
    /// The size of one stored key and its answer, in bytes (default 600).
    #[arg(long, value_name = "BYTES", value_parser = parse_record_bytes)]
    pub record_bytes: Option<u64>,
    /// Threads to run the designs on (default: the machine's cores). The figures are the
    /// same however many.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also draw the day as an SVG chart into this file, for a slide.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
    /// Let --svg replace a file that exists.
    #[arg(long)]
    pub force: bool,
    /// Print one order of the day (numbered from 0) as a scenario file with the faults it
    /// ran with, which `idem run` and the replay tell tick by tick; needs one --design.
    #[arg(long, value_name = "N")]
    pub order: Option<u64>,
}

fn parse_orders(text: &str) -> Result<u64, String> {
    let n: u64 = text
        .trim()
        .replace('_', "")
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number of orders"))?;
    plan::check_orders(n)
}

fn parse_period(text: &str) -> Result<u64, String> {
    plan::check_period(crate::scenario::values::parse_duration(text)?)
}

fn parse_record_bytes(text: &str) -> Result<u64, String> {
    let n: u64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number of bytes"))?;
    plan::check_record_bytes(n)
}

impl TrafficArgs {
    /// What the command line says, as a plan to put over the file's.
    pub fn plan(&self) -> TrafficPlan {
        TrafficPlan {
            orders: self.orders,
            over_ms: self.over,
            arrivals: self.arrivals,
            lose_reply: self.lose_reply,
            lose_request: self.lose_request,
            slow: self.slow,
            crash_per_hour: self.crash,
            restart_after_ms: self.restart_after,
            outage: self.outage,
            outage_loses: self.outage_loses,
            rerun_after_ms: self.rerun_after,
            record_bytes: self.record_bytes,
        }
    }

    fn designs(&self) -> Vec<Design> {
        match self.design {
            None | Some(DesignChoice::All) => Design::ALL.to_vec(),
            Some(DesignChoice::One(d)) => vec![d],
        }
    }
}

/// The settings for `scenario` with the command line over its `[traffic]` table.
pub fn settings(scenario: &Scenario, args: &TrafficArgs) -> anyhow::Result<Settings> {
    Settings::from_plan(
        &scenario.traffic.overlaid(&args.plan()),
        scenario.config.seed,
    )
    .map_err(anyhow::Error::msg)
}

/// A run takes this long before it shows a progress bar.
const QUIET_FOR: std::time::Duration = std::time::Duration::from_secs(1);

/// Runs the day as the arguments say: the text or JSON to print, or why it cannot run.
pub fn run(scenario: &Scenario, args: &TrafficArgs) -> anyhow::Result<String> {
    let settings = settings(scenario, args)?;
    let designs = args.designs();
    if let Some(n) = args.order {
        let [design] = designs[..] else {
            anyhow::bail!("--order prints one order under one design; add --design");
        };
        return order_toml(scenario, &settings, design, n);
    }
    if let Some(path) = &args.svg {
        // Checked before the work, so a run is never wasted on a file that cannot be written.
        crate::files::check_writable(path, args.force).map_err(anyhow::Error::msg)?;
    }
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    if threads == 0 {
        anyhow::bail!("--threads takes 1 or more");
    }
    let progress = Progress::default();
    let total = settings.orders.saturating_mul(designs.len() as u64);
    let report = super::progress::run(
        &progress.stop,
        QUIET_FOR,
        || {
            let bar = indicatif::ProgressBar::new(total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} orders × designs, {eta} left (Ctrl-C stops and prints what is counted)",
            ) {
                bar.set_style(style);
            }
            bar
        },
        |bar| bar.set_position(progress.done.load(Ordering::Relaxed)),
        || crate::traffic::run(scenario, &settings, &designs, threads, &progress),
    );
    let report = report.map_err(anyhow::Error::msg)?;
    if let Some(path) = &args.svg {
        let picture = crate::export::TrafficPicture {
            design: match args.design {
                Some(crate::scenario::values::DesignChoice::One(d)) => Some(d),
                _ => None,
            },
            ..crate::export::TrafficPicture::default()
        };
        let svg = crate::export::traffic_svg(&report, &picture).map_err(anyhow::Error::msg)?;
        crate::files::write_file(path, svg.as_bytes(), args.force).map_err(anyhow::Error::msg)?;
    }
    if args.json {
        return Ok(serde_json::to_string_pretty(&report)?);
    }
    Ok(text(scenario, &report))
}

/// One order of the day as a scenario file.
fn order_toml(
    scenario: &Scenario,
    settings: &Settings,
    design: Design,
    n: u64,
) -> anyhow::Result<String> {
    let case =
        crate::traffic::order_case(scenario, settings, design, n).map_err(anyhow::Error::msg)?;
    crate::traffic::order_scenario_toml(scenario, settings, design, &case)
        .map_err(anyhow::Error::msg)
}

/// The report as a person reads it: what each design cost, then its store.
pub fn text(scenario: &Scenario, r: &Report) -> String {
    let s = &r.settings;
    let mut out = String::new();
    let order = scenario
        .config
        .intents
        .first()
        .map_or_else(String::new, |i| format!("order {} ({})", i.order, i.amount));
    for line in words::heading(r, &order) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(
        out,
        "The processor keeps keys for {}.",
        crate::units::duration_ms(scenario.config.retention_ms)
    );
    if r.partial {
        let _ = writeln!(out, "{}", words::PARTIAL);
    }
    out.push('\n');
    design_table(
        &mut out,
        &[
            "design",
            "sent/o",
            "charges",
            "dup.ord",
            "dup. money",
            "unpaid",
            "unconf.",
        ],
        r,
        |d| {
            vec![
                format!("{:.3}", d.amplification()),
                count(d.charges),
                count(d.duplicate_orders),
                Cents(d.duplicate_cents).to_string(),
                count(d.unpaid),
                count(d.charged_unconfirmed),
            ]
        },
    );
    out.push('\n');
    design_table(
        &mut out,
        &[
            "design",
            "hit rate",
            "409s",
            "422s",
            "stored",
            "evicted",
            "peak keys",
            "peak size",
        ],
        r,
        |d| {
            vec![
                rate(d.hit_rate()),
                count(d.conflicts_409),
                count(d.mismatches_422),
                count(d.keys_stored),
                count(d.keys_evicted),
                count(d.peak_keys),
                crate::units::bytes_si(u128::from(d.peak_bytes)),
            ]
        },
    );
    if r.designs
        .iter()
        .any(|d| d.refunds + d.marked_paid + d.alerts > 0)
    {
        out.push('\n');
        design_table(
            &mut out,
            &["reconcile", "refunds", "refunded", "marked pd", "alerts"],
            r,
            |d| {
                vec![
                    count(d.refunds),
                    Cents(d.refunded_cents).to_string(),
                    count(d.marked_paid),
                    count(d.alerts),
                ]
            },
        );
    }
    if s.rerun_after_ms.is_some() {
        out.push('\n');
        design_table(&mut out, &["design", "orders rerun by a person"], r, |d| {
            vec![count(d.reruns)]
        });
    }
    out.push('\n');
    for line in words::week_of_keys(r, scenario.config.retention_ms) {
        let _ = writeln!(out, "{line}");
    }
    out.push_str(
        "\nsent/o: attempts sent per order. dup.ord: orders charged more than once; dup. money: the\ncharges beyond the first. unpaid: believed paid, never charged. unconf.: charged, and the\nshop does not know. hit rate: requests answered from memory, of those received. evicted:\nkeys that left the store before the period ended; peak keys: the most held at once.\n",
    );
    out
}

/// One row a design under `header`, the design's id to the left and its figures to the right.
fn design_table(
    out: &mut String,
    header: &[&str],
    r: &Report,
    cells: impl Fn(&crate::traffic::DesignReport) -> Vec<String>,
) {
    use crate::text::Align;
    let mut rows = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    rows.extend(r.designs.iter().map(|d| {
        let mut row = vec![d.design.id().to_string()];
        row.extend(cells(d));
        row
    }));
    let mut align = vec![Align::Left];
    align.resize(header.len(), Align::Right);
    for line in crate::text::columns(&rows, &align, " ").0 {
        let _ = writeln!(out, "{line}");
    }
}
