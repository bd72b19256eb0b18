//! `idem explore`: every fault plan of up to K faults over a scenario's attempts, for each
//! design; a matrix of verdicts and the shortest counterexample for each, as text or JSON.

use crate::explore::{Exploration, Search, explore};
use crate::scenario::Scenario;
use crate::scenario::fork::describe;
use crate::scenario::fork_toml::plan_toml;
use crate::scenario::values::DesignChoice;
use crate::sim::{Design, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How long a search runs before it shows its progress.
const QUIET_FOR: std::time::Duration = std::time::Duration::from_millis(700);

/// The largest K the command accepts: the plans grow by a factor of about a hundred per fault.
pub const MAX_FAULTS: usize = 3;

/// Arguments of `idem explore`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
What it proves: every plan it enumerates (lose, delay past the timeout, duplicate, crash at each
point, a slow attempt, a handler error, on the attempts each run sends), under the model's
assumptions. Nothing beyond them.

Examples:
  idem explore
  idem explore reply-lost --faults 3 --design no-key
  idem explore order-5531 --json | jq '.designs[] | {design, verdicts}'")]
pub struct ExploreArgs {
    /// A scenario file, or the name of a built-in scenario (default: order-5531).
    pub scenario: Option<std::ffi::OsString>,
    /// The most faults in one plan (1 to 3).
    #[arg(long, short = 'k', default_value_t = 2)]
    pub faults: usize,
    /// A design id, its number 1–6, or `all` (the default).
    #[arg(long, short, value_parser = clap::value_parser!(DesignChoice))]
    pub design: Option<DesignChoice>,
    /// Search on top of the scenario's own faults instead of without them.
    #[arg(long)]
    pub keep_faults: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `idem explore --json`.
#[derive(Serialize, Debug)]
pub struct ExploreJson {
    pub scenario: String,
    pub faults_max: usize,
    /// The search was stopped (Ctrl-C) before it ran every plan: the counts are partial.
    pub partial: bool,
    /// Whether the scenario's own faults were kept under every plan.
    pub kept_faults: bool,
    pub plans: usize,
    pub designs: Vec<DesignJson>,
}

#[derive(Serialize, Debug)]
pub struct DesignJson {
    pub design: &'static str,
    pub verdicts: BTreeMap<&'static str, usize>,
    pub max_charges: usize,
    pub counterexamples: Vec<CounterexampleJson>,
}

#[derive(Serialize, Debug)]
pub struct CounterexampleJson {
    pub verdict: &'static str,
    /// Each fault in words.
    pub faults: Vec<String>,
    /// A scenario that `idem run` reproduces the verdict with.
    pub scenario_toml: String,
}

/// Runs the search as the arguments say; the text to print, or why it cannot run.
pub fn run(scenario: &Scenario, args: &ExploreArgs) -> anyhow::Result<String> {
    if !(1..=MAX_FAULTS).contains(&args.faults) {
        anyhow::bail!(
            "--faults takes 1 to {MAX_FAULTS}, not {}: the plans grow about a hundredfold per fault",
            args.faults
        );
    }
    let designs = match args.design {
        None | Some(DesignChoice::All) => Design::ALL.to_vec(),
        Some(DesignChoice::One(d)) => vec![d],
    };
    // Refused at once when the search would run for minutes and take gigabytes: said with
    // its size, and the smaller search that fits.
    let cost = crate::explore::estimate(scenario, args.faults).map_err(anyhow::Error::msg)?;
    if cost.work() > crate::explore::MAX_WORK {
        let fits = (1..args.faults).rev().find(|&k| {
            crate::explore::estimate(scenario, k)
                .is_ok_and(|e| e.work() <= crate::explore::MAX_WORK)
        });
        let instead = match fits {
            Some(k) => format!("give --faults {k}, or a scenario with fewer orders or attempts"),
            None => "give a scenario with fewer orders or attempts".to_string(),
        };
        anyhow::bail!(
            "every plan of up to {} faults here is about {} plans ({} places a fault can go) of {} ticks each, under each design: more than this search takes; {instead}",
            args.faults,
            crate::units::group_digits(cost.plans),
            cost.places,
            cost.ticks
        );
    }
    // Ctrl-C stops the search; the counts so far are printed, marked partial.
    let stop = Arc::new(AtomicBool::new(false));
    let progress = Arc::new(AtomicUsize::new(0));
    let search = Search {
        faults_max: args.faults,
        keep_faults: args.keep_faults,
        designs,
        progress: Some(Arc::clone(&progress)),
        stop: Some(Arc::clone(&stop)),
        // Faults open places the plain run did not: the estimate, with room, bounds it.
        max_plans: usize::try_from(cost.plans.saturating_mul(20)).ok(),
    };
    let started = std::time::Instant::now();
    let found = super::progress::run(
        &stop,
        QUIET_FOR,
        indicatif::ProgressBar::new_spinner,
        |bar| {
            bar.set_message(format!(
                "{} plans searched (Ctrl-C stops and prints what is counted)",
                progress.load(Ordering::Relaxed)
            ));
            bar.tick();
        },
        || explore(scenario, &search),
    );
    let found = found.map_err(anyhow::Error::msg)?;
    let took = started.elapsed();
    if args.json {
        let json = to_json(scenario, &found)?;
        return Ok(serde_json::to_string_pretty(&json)?);
    }
    Ok(text(scenario, &found, took))
}

/// The JSON contract, counterexamples written as scenarios.
pub fn to_json(scenario: &Scenario, found: &Exploration) -> anyhow::Result<ExploreJson> {
    let mut designs = Vec::new();
    for d in &found.designs {
        let mut counterexamples = Vec::new();
        for (verdict, plan) in &d.counterexamples {
            counterexamples.push(CounterexampleJson {
                verdict: verdict.id(),
                faults: plan.iter().map(|f| describe(scenario, f)).collect(),
                scenario_toml: plan_toml(scenario, found.keep_faults, plan, d.design)
                    .map_err(anyhow::Error::msg)?,
            });
        }
        designs.push(DesignJson {
            design: d.design.id(),
            verdicts: d.verdicts.iter().map(|(v, n)| (v.id(), *n)).collect(),
            max_charges: d.max_charges,
            counterexamples,
        });
    }
    Ok(ExploreJson {
        scenario: scenario.name.clone(),
        faults_max: found.faults_max,
        partial: found.partial(),
        kept_faults: found.keep_faults,
        plans: found.plans(),
        designs,
    })
}

fn text(scenario: &Scenario, found: &Exploration, took: std::time::Duration) -> String {
    let mut out = String::new();
    let own = if found.keep_faults {
        "on top of the scenario's own faults"
    } else {
        "with the scenario's own faults taken out"
    };
    let _ = writeln!(
        out,
        "{} — every plan of at most {} {}, {own}\n",
        scenario.name,
        found.faults_max,
        if found.faults_max == 1 {
            "fault"
        } else {
            "faults"
        }
    );
    let _ = write!(out, "{:<19}", "design");
    for v in Verdict::ALL {
        let _ = write!(out, " {:>width$}", v.id(), width = v.id().len().max(5));
    }
    let _ = writeln!(out, "  most charges");
    for d in &found.designs {
        let _ = write!(out, "{:<19}", d.design.id());
        for v in Verdict::ALL {
            let n = d.verdicts.get(&v).copied().unwrap_or(0);
            let _ = write!(out, " {:>width$}", n, width = v.id().len().max(5));
        }
        let _ = writeln!(out, "  {}", d.max_charges);
    }
    let _ = writeln!(
        out,
        "\nShortest counterexamples (fewest faults, then earliest):"
    );
    for d in &found.designs {
        if d.counterexamples.is_empty() {
            let _ = writeln!(out, "  {:<18} none: every plan ends correct", d.design.id());
        }
        for (verdict, plan) in &d.counterexamples {
            let faults: Vec<String> = plan.iter().map(|f| describe(scenario, f)).collect();
            let what = if faults.is_empty() {
                "with no fault at all".to_string()
            } else {
                faults.join("; ")
            };
            let _ = writeln!(out, "  {:<18} {:<21} {what}", d.design.id(), verdict.id());
        }
    }
    if found.partial() {
        let _ = writeln!(
            out,
            "\nPARTIAL: the search was stopped before it ran every plan; these counts cover only the plans it ran."
        );
    }
    let plans = found.plans();
    let rate = plans as f64 / took.as_secs_f64().max(1e-9);
    let _ = writeln!(
        out,
        "\n{plans} plans in {:.0} ms ({:.0} plans per second). `idem explore --json` writes each counterexample as a scenario that `idem run` reproduces.",
        took.as_secs_f64() * 1000.0,
        rate
    );
    out
}
