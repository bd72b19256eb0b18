//! `idem import`: an incident's records (traces, a HAR, an access log) into a scenario. The
//! reading is the idem-import crate's; this file holds the arguments and what is printed.

use crate::import::{ImportError, Options};
use crate::text::sanitize_line;
use std::path::PathBuf;

/// Arguments of `idem import`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Reads OTLP JSON traces, Jaeger JSON, Zipkin v2 JSON, HAR 1.2 and JSON-lines access logs
(Envoy, nginx); docs/import.md says what is read from each. Nothing is fetched from the network.

Examples:
  idem import otel-export.json --ledger ledger.json --design with-charge --out incident.toml
  idem import otel-export.json --ledger ledger.json --which
  idem import checkout.har access.log --order 5531
  idem import access.log --log-field key=idem_key --log-field duration_ms=upstream_ms")]
pub struct ImportArgs {
    /// The records: trace exports, HAR files, access logs (each file's format is detected).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write the scenario to this file (refused if it exists, unless --force); without it the
    /// scenario is printed.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Let --out replace a file that exists.
    #[arg(long)]
    pub force: bool,
    /// Keep only this order: its idempotency key, or its order id.
    #[arg(long, value_name = "ID")]
    pub order: Option<String>,
    /// The design the service runs (the records cannot say): the [[expect]] block is for it.
    #[arg(long, short, value_name = "D", value_parser = crate::scenario::values::parse_one_design)]
    pub design: Option<crate::sim::Design>,
    /// A ledger export (JSON): the charges that really moved money, each with its key.
    #[arg(long, value_name = "FILE")]
    pub ledger: Option<PathBuf>,
    /// Simulate the scenario under all six designs and say which reproduce what happened.
    #[arg(long)]
    pub which: bool,
    /// For an access log: which field plays a role (key, start, end, epoch, status, method,
    /// path, duration_ms, duration_s, duration_us, attempts), as ROLE=FIELD. Repeatable.
    #[arg(long, value_name = "ROLE=FIELD")]
    pub log_field: Vec<String>,
}

fn command_line(args: &ImportArgs) -> String {
    let mut words = vec!["idem import".to_string()];
    for f in &args.files {
        words.push(crate::text::shell_word(&f.display().to_string()));
    }
    if let Some(o) = &args.order {
        words.push(format!("--order {}", crate::text::shell_word(o)));
    }
    if let Some(d) = args.design {
        words.push(format!("--design {}", d.id()));
    }
    if let Some(l) = &args.ledger {
        words.push(format!(
            "--ledger {}",
            crate::text::shell_word(&l.display().to_string())
        ));
    }
    for f in &args.log_field {
        words.push(format!("--log-field {}", crate::text::shell_word(f)));
    }
    words.join(" ")
}

/// Imports the records; returns what goes to standard output.
pub fn run(args: &ImportArgs) -> anyhow::Result<String> {
    if let Some(out) = &args.out
        && let Err(why) = crate::files::check_writable(out, args.force)
    {
        anyhow::bail!("--out: {why}");
    }
    let mut opts = Options {
        order: args.order.clone(),
        ledger: args.ledger.clone(),
        ..Options::default()
    };
    for spec in &args.log_field {
        opts.mapping.add(spec).map_err(anyhow::Error::msg)?;
    }
    let incident = crate::import::import(&args.files, &opts)
        .map_err(|e: ImportError| anyhow::Error::msg(e.to_string()))?;
    let (text, facts) = crate::import::write::scenario(&incident, args.design, &command_line(args));
    for n in &incident.notes {
        super::failure::eprint(&format!("warning: {}\n", sanitize_line(n)));
    }
    let mut out = String::new();
    if let Some(path) = &args.out {
        crate::files::write_file(path, text.as_bytes(), args.force).map_err(anyhow::Error::msg)?;
        let shown = sanitize_line(&path.display().to_string());
        out.push_str(&format!(
            "Wrote {shown}: {} from {}.\n",
            match incident.orders.len() {
                1 => "1 order".to_string(),
                n => format!("{n} orders"),
            },
            incident
                .sources
                .iter()
                .map(|s| s.file.clone())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let arg = crate::text::shell_word(&path.display().to_string());
        out.push_str(&format!(
            "  idem check {arg}               does the design named reproduce it?\n  idem run {arg} --design all    every design's outcome side by side\n  idem {arg}                     replay it tick by tick\n"
        ));
    } else if !args.which {
        out.push_str(&text);
    }
    if args.which {
        let rows = crate::import::which::which(&text, &facts).map_err(anyhow::Error::msg)?;
        out.push_str(&crate::import::which::table(&rows, &facts));
    }
    Ok(out)
}
