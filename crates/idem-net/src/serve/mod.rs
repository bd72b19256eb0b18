//! `idem serve`: a small HTTP card processor that runs the simulation's designs for real, on
//! an embedded SQLite database, so a room can `curl` it and see the story the replay tells.
//!
//! - [`http`]: the bounded HTTP/1.1 server;
//! - [`request`]: the `Idempotency-Key` header and the charge in the body;
//! - [`processor`]: each design's reads and writes, and the trainer's switches;
//! - [`store`]: the ledger and the key memory in SQLite;
//! - [`problem`]: the `application/problem+json` answers and their pages.
//!
//! Neither the engine nor the replay knows this module.

pub mod http;
pub mod problem;
pub mod processor;
pub mod request;
pub mod response;
pub mod store;

use http::{Outcome, Request};
use processor::{Handled, Processor, Settings};
use response::Response;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;

/// Everything `idem serve` is asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    pub settings: Settings,
    pub host: String,
    pub port: u16,
    /// The database file; in memory when absent.
    pub db: Option<PathBuf>,
    /// How long a client has to send a whole request, head and body.
    pub request_timeout: std::time::Duration,
}

/// Where the server writes its lines: the address first, then one line per request.
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// Opens the database, listens, says where (the first line is `listening on http://ADDR`),
/// and serves until the process is stopped.
pub fn run(config: &Config, log: Log) -> Result<(), String> {
    let store = store::Store::open(config.db.as_deref())?;
    let listener = TcpListener::bind((config.host.as_str(), config.port)).map_err(|e| {
        crate::text::sanitize_line(&format!(
            "cannot listen on {}:{}: {e}",
            config.host, config.port
        ))
    })?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot tell which port the server listens on: {e}"))?;
    let base = format!("http://{addr}");
    log(&format!("listening on {base}"));
    for line in introduction(config, &base) {
        log(&line);
    }
    let processor = Arc::new(Processor::new(config.settings.clone(), store));
    let handler = Arc::new(move |req: &Request| {
        let handled = route(&processor, req);
        log(&log_line(req, &handled.summary));
        Outcome {
            response: handled.response,
            after: handled.after,
        }
    });
    let limits = http::Limits {
        request_timeout: config.request_timeout,
        ..http::Limits::default()
    };
    http::serve(listener, limits, handler).map_err(|e| format!("the server stopped: {e}"))
}

/// What the server tells the trainer when it starts: the design, the switches, what to try.
pub fn introduction(config: &Config, base: &str) -> Vec<String> {
    let s = &config.settings;
    let d = s.design;
    let db = match &config.db {
        Some(p) => format!(
            "database {}",
            crate::text::sanitize_line(&p.display().to_string())
        ),
        None => "database in memory (gone when the server stops; --db FILE keeps it)".into(),
    };
    let mut lines = vec![format!(
        "design {} ({}); each charge takes {}; keys kept {}; {db}",
        d.id(),
        d.name(),
        crate::units::duration_ms(u64::try_from(s.processing.as_millis()).unwrap_or(u64::MAX)),
        crate::units::duration_ms(s.ttl_ms),
    )];
    lines.extend(notes(config).into_iter().map(|n| format!("note: {n}")));
    lines.push("try:".into());
    lines.push(format!(
        "  curl -i {base}/charges -H 'Idempotency-Key: \"K7Q4\"' -d '{{\"order\": \"5531\", \"amount\": \"$48.60\"}}'"
    ));
    lines.push(format!("  curl {base}/charges?order=5531"));
    lines.push(format!("  curl {base}/charges?key=K7Q4"));
    lines
}

/// What each switch does under this design, where it does something other than its name says.
pub fn notes(config: &Config) -> Vec<String> {
    use crate::sim::Design::*;
    let s = &config.settings;
    let d = s.design;
    let mut out = Vec::new();
    if s.crash_between {
        out.push(
            match d {
                WithCharge => "with-charge writes the charge and its key record in one transaction, so nothing lies between them: --crash-between exits right after that transaction, before the answer; after a restart the retry is replayed",
                ContentHash => "content-hash writes the charge and its body hash in one transaction: --crash-between exits right after it, before the answer",
                NoKey => "no-key writes only the charge: --crash-between has no second write to fall before, and changes nothing",
                LogAfterCharge => "--crash-between exits after the charge is written and answered, before its key reaches the log",
                LogBeforeCharge => "--crash-between exits after the key is logged, before the charge is written",
                InProgressRecord => "--crash-between exits after the charge is written, before the in-progress record is completed",
            }
            .to_string(),
        );
        if config.db.is_none() {
            out.push("the database is in memory, so a crash forgets everything: give --db FILE to see what survives it".into());
        }
    }
    if s.no_lock && !matches!(d, WithCharge | InProgressRecord) {
        out.push(format!(
            "{} takes no lock on a key anyway: --no-lock changes nothing",
            d.id()
        ));
    } else if s.no_lock {
        out.push("--no-lock: no in-progress mark, and the key record is written last-writer-wins, so requests that overlap are each charged".into());
    }
    if s.no_fingerprint && d != WithCharge {
        out.push(format!(
            "{} keeps no fingerprint anyway: --no-fingerprint changes nothing",
            d.id()
        ));
    }
    out
}

/// The query's value for `name`, percent-decoded.
fn query_value(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| {
            percent_encoding::percent_decode_str(v)
                .decode_utf8_lossy()
                .into_owned()
        })
    })
}

fn route(p: &Arc<Processor>, req: &Request) -> Handled {
    let (path, query) = req.target.split_once('?').unwrap_or((&req.target, ""));
    let plain = |status: u16, text: String| Handled {
        response: Response::new(status, "text/plain; charset=utf-8", text),
        summary: format!("{status}"),
        after: None,
    };
    let refuse = |kind: problem::Kind, detail: &str| Handled {
        response: kind.response(detail),
        summary: format!("{} {}", kind.status, kind.name),
        after: None,
    };
    match (req.method.as_str(), path) {
        ("POST", "/charges") => {
            let values = req.header_values("idempotency-key");
            let refs: Vec<&str> = values.iter().map(String::as_str).collect();
            let key = request::read_key(&refs);
            match request::read_body(&req.body) {
                Ok(body) => p.charge(key, &body),
                Err(why) => refuse(problem::INVALID_BODY, &why),
            }
        }
        ("GET", "/charges") => match query_value(query, "key") {
            Some(key) => p.lookup(&key),
            None => p.ledger(query_value(query, "order").as_deref()),
        },
        (_, "/charges") => {
            let mut h = refuse(
                problem::METHOD,
                "/charges takes POST to charge and GET to read",
            );
            h.response = h.response.with("Allow", "GET, POST");
            h
        }
        ("GET", "/") => plain(200, index(p.settings())),
        ("GET", page) if page.starts_with("/problems/") => {
            match problem::by_name(&page["/problems/".len()..]) {
                Some(k) => plain(200, format!("{}\n\n{}\n", k.title, k.page)),
                None => refuse(problem::NOT_FOUND, "no such problem page"),
            }
        }
        _ => refuse(problem::NOT_FOUND, "nothing at this path"),
    }
}

fn index(s: &Settings) -> String {
    format!(
        "idem serve: a card processor running the {} design ({}).\n\n\
         POST /charges          charge: a JSON body {{\"order\": \"5531\", \"amount\": \"$48.60\"}}\n\
         \x20                      with the header Idempotency-Key: \"K7Q4\"\n\
         GET  /charges?key=K    what the processor remembers under a key\n\
         GET  /charges?order=O  the charges of one order\n\
         GET  /charges          the last charges\n",
        s.design.id(),
        s.design.name()
    )
}

/// One line per request: what came in, and what was answered.
fn log_line(req: &Request, summary: &str) -> String {
    let path = req.target.split('?').next().unwrap_or("");
    let keys = req.header_values("idempotency-key");
    let key = match keys.as_slice() {
        [] => String::new(),
        [k] => format!(" key {}", crate::text::shorten(k, 40)),
        more => format!(" {} keys", more.len()),
    };
    crate::text::sanitize_line(&format!(
        "{} {}{key} -> {summary}",
        crate::text::shorten(&req.method, 10),
        crate::text::shorten(path, 60)
    ))
}
