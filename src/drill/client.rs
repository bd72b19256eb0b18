//! Sending one request of the drill and keeping what came back: a bounded answer, no
//! redirects followed, a time limit on every request.

use serde::Serialize;
use std::time::{Duration, Instant};

/// The most of an answer's body the drill reads.
pub const MAX_BODY: u64 = 64 * 1024;

/// The `Idempotency-Key` header the drill sends, as written on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeySent {
    None,
    /// This exact header value.
    Raw(String),
}

/// One request to send.
#[derive(Clone, Debug)]
pub struct Send {
    pub method: &'static str,
    pub url: String,
    pub key: KeySent,
    pub body: Option<String>,
}

/// What came back, or why nothing did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Seen {
    /// The status code; none when no answer came.
    pub status: Option<u16>,
    /// The body, cut at [`MAX_BODY`] bytes, as text.
    pub body: String,
    pub content_type: String,
    /// The answer carried `Idempotent-Replayed: true` (or another common spelling of it).
    pub replayed: bool,
    /// The answer carried a `Link` header.
    pub link: bool,
    /// Why no answer came (a refused connection, a timeout).
    pub error: Option<String>,
    pub millis: u64,
    /// For a request sent with others at once: when it left and when its answer was read,
    /// in microseconds from the moment they were released together.
    pub span: Option<(u64, u64)>,
}

impl Seen {
    pub fn ok(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }

    /// `417 Expectation Failed`: the status with its reason phrase, for a refusal the reader
    /// may not know by number; `no answer (…)` when none came.
    pub fn status_text(&self) -> String {
        match self.status {
            Some(code) => match http::StatusCode::from_u16(code)
                .ok()
                .and_then(|s| s.canonical_reason())
            {
                Some(reason) => format!("{code} {reason}"),
                None => code.to_string(),
            },
            None => self.short(),
        }
    }

    /// `200`, or `no answer (…)`.
    pub fn short(&self) -> String {
        match (self.status, &self.error) {
            (Some(s), _) => s.to_string(),
            (None, Some(e)) => format!("no answer ({e})"),
            (None, None) => "no answer".into(),
        }
    }

    pub fn is_problem(&self) -> bool {
        self.content_type
            .to_ascii_lowercase()
            .starts_with("application/problem+json")
    }
}

/// The agent every request of one drill goes through.
/// The headers that mark an answer as a replay: the draft's, and other common spellings.
pub const REPLAY_HEADERS: [&str; 4] = [
    "idempotent-replayed",
    "idempotency-replayed",
    "x-idempotent-replayed",
    "x-idempotency-replayed",
];

pub fn agent(timeout: Duration, use_proxy: bool) -> ureq::Agent {
    let proxy = if use_proxy {
        ureq::Proxy::try_from_env()
    } else {
        None
    };
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .max_redirects_will_error(false)
        .proxy(proxy)
        .user_agent(concat!("idem-drill/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// Sends `s`, and returns what came back.
pub fn send(agent: &ureq::Agent, s: &Send) -> Seen {
    let started = Instant::now();
    let result = match s.method {
        "GET" => {
            let mut r = agent.get(&s.url);
            if let KeySent::Raw(v) = &s.key {
                r = r.header("Idempotency-Key", v);
            }
            r.call()
        }
        _ => {
            let mut r = agent
                .post(&s.url)
                .header("Content-Type", "application/json");
            if let KeySent::Raw(v) = &s.key {
                r = r.header("Idempotency-Key", v);
            }
            r.send(s.body.clone().unwrap_or_default())
        }
    };
    let millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match result {
        Ok(mut response) => {
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(|v| v.trim().to_string())
            };
            // The draft's header, and the spellings middlewares use for the same mark.
            let replayed = REPLAY_HEADERS
                .iter()
                .any(|h| header(h).is_some_and(|v| v.eq_ignore_ascii_case("true")));
            let link = header("link").is_some();
            let content_type =
                crate::text::sanitize_line(&header("content-type").unwrap_or_default());
            let status = response.status().as_u16();
            let (body, error) = match response
                .body_mut()
                .with_config()
                .limit(MAX_BODY)
                .read_to_vec()
            {
                Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), None),
                Err(e) => (String::new(), Some(describe(&e))),
            };
            Seen {
                status: Some(status),
                body,
                content_type,
                replayed,
                link,
                error,
                millis,
                span: None,
            }
        }
        Err(e) => Seen {
            error: Some(describe(&e)),
            millis,
            ..Seen::default()
        },
    }
}

fn describe(e: &ureq::Error) -> String {
    let text = match e {
        ureq::Error::Timeout(_) => "timed out".to_string(),
        ureq::Error::BodyExceedsLimit(_) => format!("the body is longer than {MAX_BODY} bytes"),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connection refused: is the server running?".to_string()
        }
        other => other.to_string(),
    };
    crate::text::shorten(&crate::text::sanitize_line(&text), 120)
}
