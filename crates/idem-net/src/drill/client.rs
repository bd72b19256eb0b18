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
    /// The `Location` header, for a redirect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The body was not read whole: `body` holds only its first bytes, and says nothing of
    /// what the answer was. Such an answer is never the same as another.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unread: Option<Unread>,
    /// Why no answer came (a refused connection, a timeout).
    pub error: Option<String>,
    pub millis: u64,
    /// When the request left, when its answer's status line and headers had come, and when
    /// its body had been read, from the drill's start: what the rows that weigh timings
    /// (the concurrent ones) judge from, and what `--json` carries so a report can be
    /// judged again. None for an answer made by hand in a test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub times: Option<Times>,
}

/// When one exchange happened, in microseconds from the drill's start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Times {
    pub left_us: u64,
    /// The status line and headers had come: the server had finished what it does before it
    /// answers. Equal to `done_us` when no answer came.
    pub head_us: u64,
    pub done_us: u64,
}

/// Why an answer's body was not read whole.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unread {
    /// The bytes read before the drill stopped.
    pub bytes: u64,
    /// `bound` (longer than [`MAX_BODY`]) or `failed` (it did not end: a timeout, a broken
    /// connection).
    pub cut: Cut,
    /// What went wrong, for `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cut {
    Bound,
    Failed,
}

impl Unread {
    /// `could not be read whole (65536 bytes, cut at the bound of 65536 bytes)`.
    pub fn describe(&self) -> String {
        match (self.cut, &self.why) {
            (Cut::Bound, _) => format!(
                "could not be read whole ({} bytes, cut at the bound of {MAX_BODY} bytes)",
                self.bytes
            ),
            (Cut::Failed, Some(why)) => {
                format!("could not be read whole ({} bytes, then {why})", self.bytes)
            }
            (Cut::Failed, None) => format!(
                "could not be read whole ({} bytes, then it stopped)",
                self.bytes
            ),
        }
    }
}

impl Seen {
    /// The body was read to its end.
    pub fn whole(&self) -> bool {
        self.unread.is_none()
    }

    /// A 3xx answer: the drill follows no redirect.
    pub fn redirected(&self) -> bool {
        self.status.is_some_and(|s| (300..400).contains(&s))
    }

    /// `307 Temporary Redirect to /v2/charges`.
    pub fn redirect_text(&self) -> String {
        match &self.location {
            Some(to) => format!("{} to {to}", self.status_text()),
            None => format!("{} with no Location", self.status_text()),
        }
    }

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

/// Sends `s`, and returns what came back, timed from `origin` (the drill's start).
pub fn send(agent: &ureq::Agent, s: &Send, origin: Instant) -> Seen {
    let micros = move || u64::try_from(origin.elapsed().as_micros()).unwrap_or(u64::MAX);
    let started = Instant::now();
    let left_us = micros();
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
    let head_us = micros();
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
            let location = header("location")
                .map(|l| crate::text::shorten(&crate::text::sanitize_line(&l), 120));
            let content_type =
                crate::text::sanitize_line(&header("content-type").unwrap_or_default());
            let status = response.status().as_u16();
            let (bytes, unread) = read_body(&mut response.body_mut().as_reader());
            let times = Some(Times {
                left_us,
                head_us,
                done_us: micros(),
            });
            Seen {
                status: Some(status),
                body: String::from_utf8_lossy(&bytes).into_owned(),
                content_type,
                replayed,
                link,
                location,
                unread,
                error: None,
                millis,
                times,
            }
        }
        Err(e) => Seen {
            error: Some(describe(&e)),
            millis,
            times: Some(Times {
                left_us,
                head_us,
                done_us: head_us,
            }),
            ..Seen::default()
        },
    }
}

/// Reads at most [`MAX_BODY`] bytes of a body: what was read, and why it is not the whole
/// body when it is not (longer than the bound, or it did not end).
pub fn read_body(reader: &mut impl std::io::Read) -> (Vec<u8>, Option<Unread>) {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let room = usize::try_from(MAX_BODY)
            .unwrap_or(usize::MAX)
            .saturating_sub(bytes.len());
        // At the bound, one byte more tells a body that ends there from a longer one.
        let want = room.clamp(1, chunk.len());
        match reader.read(&mut chunk[..want]) {
            Ok(0) => return (bytes, None),
            Ok(_) if room == 0 => {
                let cut = Unread {
                    bytes: bytes.len() as u64,
                    cut: Cut::Bound,
                    why: None,
                };
                return (bytes, Some(cut));
            }
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                let timed_out = matches!(
                    e.kind(),
                    std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
                );
                let why = match ureq::Error::from(e) {
                    ureq::Error::Timeout(_) => "it timed out".to_string(),
                    _ if timed_out => "it timed out".to_string(),
                    other => describe(&other),
                };
                let cut = Unread {
                    bytes: bytes.len() as u64,
                    cut: Cut::Failed,
                    why: Some(why),
                };
                return (bytes, Some(cut));
            }
        }
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
