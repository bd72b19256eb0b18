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
    match address(host) {
        Some(ip) => ip.is_loopback(),
        None => bare(host).eq_ignore_ascii_case("localhost"),
    }
}

/// The host without the brackets an IPv6 address may be written in.
fn bare(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

/// The address a host names when it is written as one: IPv4 and IPv6 as usual, in brackets or
/// not, an IPv4 address mapped into IPv6 as the IPv4 address it is, and the short IPv4 forms
/// the C library reads (`127.1` is 127.0.0.1, `10.1.2` is 10.1.0.2).
fn address(host: &str) -> Option<std::net::IpAddr> {
    use std::net::{IpAddr, Ipv4Addr};
    let bare = bare(host);
    match bare.parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) => Some(v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4)),
        Ok(ip) => Some(ip),
        Err(_) => {
            let parts: Vec<u32> = bare
                .split('.')
                .map(|p| {
                    (!p.is_empty() && p.len() <= 10 && p.bytes().all(|b| b.is_ascii_digit()))
                        .then(|| p.parse::<u32>().ok())
                        .flatten()
                })
                .collect::<Option<_>>()?;
            let n = match parts.as_slice() {
                [a, b] if *a < 256 && *b < 1 << 24 => (a << 24) | b,
                [a, b, c] if *a < 256 && *b < 256 && *c < 1 << 16 => (a << 24) | (b << 16) | c,
                _ => return None,
            };
            Some(IpAddr::V4(Ipv4Addr::from(n)))
        }
    }
}

/// The host as the server binds it: an address in its plain form, a name as given.
fn bind_host(host: &str) -> String {
    address(host).map_or_else(|| host.to_string(), |ip| ip.to_string())
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
            host: bind_host(&self.host),
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

#[cfg(test)]
mod host_tests {
    use super::*;

    /// Every way of writing a loopback address is loopback, and binds as its plain form.
    #[test]
    fn loopback_is_read_however_it_is_written() {
        for (host, bound) in [
            ("127.0.0.1", "127.0.0.1"),
            ("127.1", "127.0.0.1"),
            ("127.0.1", "127.0.0.1"),
            ("::ffff:127.0.0.1", "127.0.0.1"),
            ("[::1]", "::1"),
            ("::1", "::1"),
            ("localhost", "localhost"),
        ] {
            assert!(loopback_host(host), "{host}");
            assert_eq!(bind_host(host), bound, "{host}");
        }
        for host in [
            "10.1",
            "0.0.0.0",
            "::",
            "[::ffff:10.0.0.1]",
            "example.com",
            "127.1.2.3.4",
        ] {
            assert!(!loopback_host(host), "{host}");
        }
    }
}
