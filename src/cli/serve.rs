//! `idem serve`: the flags of the HTTP card processor, and printing what it says.

use crate::serve::Config;
use crate::serve::processor::Settings;
use crate::sim::Design;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub const AFTER_HELP: &str = "\
The first line printed is `listening on http://ADDRESS`; then one line per request. POST \
/charges takes a JSON body {\"order\": \"5531\", \"amount\": \"$48.60\"} and an \
Idempotency-Key header holding a key, in quotes as the draft writes it or bare as client libraries send it; GET /charges?key=K looks a key up, GET \
/charges?order=O lists an order's charges. Errors are application/problem+json, replays carry \
Idempotent-Replayed: true.

Bounds: a request head of 8 KiB and 64 header lines, a body of 16 KiB, --request-timeout (10 s) \
to send the whole request, 64 open connections (when all are taken, the one that has been \
sending its request longest is closed to make room, or else the newcomer is answered 503). \
It listens on loopback only unless --allow-remote is given. With --crash-between the process exits with status 3 between the \
design's two writes.

Examples:
  idem serve                                        with-charge on 127.0.0.1:8080, in memory
  idem serve --design log-after-charge --db shop.db --crash-between
  idem serve --design with-charge --slow 45s        the retry arrives while the charge is working
  idem serve --no-lock --port 0                     any free port, no in-progress mark
  idem drill http://127.0.0.1:8080/charges          (in another terminal)";

/// Flags of `idem serve`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct ServeArgs {
    /// The design to run: an id or its number 1–6.
    #[arg(long, short, value_parser = crate::scenario::values::parse_one_design, default_value = "with-charge")]
    pub design: Design,
    /// The port to listen on; 0 picks a free one.
    #[arg(long, short, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Keep the ledger and the keys in this SQLite file (created if missing), so they survive
    /// a restart; without it they live in memory.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Exit between the design's two writes (the charge and the key), as a crash would.
    #[arg(long)]
    pub crash_between: bool,
    /// How long each charge takes [default: 200ms, the simulation's processing time].
    #[arg(long, value_name = "DURATION", value_parser = crate::scenario::values::parse_duration)]
    pub slow: Option<u64>,
    /// How long a key is remembered before a request carrying it is taken as new.
    #[arg(long, value_name = "DURATION", value_parser = positive_duration, default_value = "24h")]
    pub ttl: u64,
    /// inprogress-record only: how long its in-progress record blocks the key.
    #[arg(long, value_name = "DURATION", value_parser = positive_duration, default_value = "60s")]
    pub in_progress_expiry: u64,
    /// No in-progress mark, and the key record written last-writer-wins: overlapping
    /// requests with one key are each charged.
    #[arg(long)]
    pub no_lock: bool,
    /// with-charge only: replay a key's answer whatever body comes with it, instead of 422.
    #[arg(long)]
    pub no_fingerprint: bool,
    /// How long a client has to send a whole request, head and body; a slower one is
    /// answered 408 and closed.
    #[arg(long, value_name = "DURATION", value_parser = positive_duration, default_value = "10s")]
    pub request_timeout: u64,
    /// Listen on an address other than loopback (127.0.0.0/8, ::1, localhost): anyone who
    /// can reach it can charge, and read the ledger and the keys.
    #[arg(long)]
    pub allow_remote: bool,
}

/// What a server on a non-loopback address lets others do.
const EXPOSED: &str = "anyone who can reach it can POST charges and read the ledger (every order and amount) and the keys it remembers, with no password";

/// Whether `host` is on the loopback interface: a loopback address, or `localhost`. Nothing
/// is looked up.
pub fn loopback_host(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => bare.eq_ignore_ascii_case("localhost"),
    }
}

/// The processing time of the simulation's processor.
const DEFAULT_PROCESSING_MS: u64 = 200;

/// The longest `--slow` taken: a charge held longer than this would only hang the room.
const MAX_SLOW_MS: u64 = 600_000;

/// The longest `--request-timeout` taken.
const MAX_REQUEST_TIMEOUT_MS: u64 = 600_000;

fn positive_duration(text: &str) -> Result<u64, String> {
    match crate::scenario::values::parse_duration(text)? {
        0 => Err("must be longer than zero".into()),
        ms => Ok(ms),
    }
}

impl ServeArgs {
    pub fn config(&self) -> anyhow::Result<Config> {
        let processing = self.slow.unwrap_or(DEFAULT_PROCESSING_MS);
        if processing > MAX_SLOW_MS {
            anyhow::bail!(
                "--slow {} is longer than the 10 minutes idem serve holds a request",
                crate::units::duration_ms(processing)
            );
        }
        if self.request_timeout > MAX_REQUEST_TIMEOUT_MS {
            anyhow::bail!(
                "--request-timeout {} is longer than the 10 minutes idem serve waits for a request",
                crate::units::duration_ms(self.request_timeout)
            );
        }
        if !loopback_host(&self.host) && !self.allow_remote {
            let shown = crate::text::shorten(&crate::text::sanitize_line(&self.host), 60);
            anyhow::bail!(
                "--host {shown} is not a loopback address: {EXPOSED}; listen on 127.0.0.1 (the default) or ::1, or pass --allow-remote to expose it"
            );
        }
        Ok(Config {
            settings: Settings {
                design: self.design,
                processing: Duration::from_millis(processing),
                ttl_ms: self.ttl,
                in_progress_expiry_ms: self.in_progress_expiry,
                crash_between: self.crash_between,
                no_lock: self.no_lock,
                no_fingerprint: self.no_fingerprint,
            },
            host: self.host.clone(),
            port: self.port,
            db: self.db.clone(),
            request_timeout: Duration::from_millis(self.request_timeout),
        })
    }
}

/// Runs the server, printing its lines on standard output as they come. Returns only on a
/// failure to start or to serve.
pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    let config = args.config()?;
    if !loopback_host(&config.host) {
        let shown = crate::text::shorten(&crate::text::sanitize_line(&config.host), 60);
        crate::cli::failure::eprint(&format!(
            "warning: --host {shown} is not loopback: {EXPOSED}\n"
        ));
    }
    let log: crate::serve::Log = Arc::new(|line: &str| {
        let mut out = std::io::stdout().lock();
        // A reader that went away is no reason to stop serving.
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    });
    crate::serve::run(&config, log).map_err(anyhow::Error::msg)
}
