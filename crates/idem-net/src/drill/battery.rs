//! The drill's battery: the requests it sends, in order, within a count and a time it fixes
//! before the first one leaves, and what came back.

use super::client::{self, KeySent, Seen, Send};
use super::target::Target;
use crate::sim::Cents;
use serde::Serialize;
use serde_json::Value;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// The most requests sent at once with one key.
pub const MAX_CONCURRENCY: usize = 16;

/// The longest key the draft's readers commonly take (Stripe's limit); the drill sends one
/// character more.
pub const LONG_KEY: usize = 256;

/// A published key expiry, and the retry stack to hold it against.
#[derive(Clone, Debug)]
pub struct Expiry {
    pub published_ms: u64,
    pub stack: crate::window::Stack,
    /// Where the stack came from, in words.
    pub source: String,
    /// The user gave the stack (`--stack`); otherwise it is the calculator's worked example,
    /// which shows what the check means but judges nobody's service.
    pub own_stack: bool,
}

/// Everything the drill will do, fixed before it sends anything.
#[derive(Clone, Debug)]
pub struct Plan {
    pub target: Target,
    pub body: Value,
    /// The body sent with a used key; none when the drill cannot make one.
    pub other_body: Option<Value>,
    pub read_back: Option<Target>,
    pub concurrency: usize,
    /// The limit on each request.
    pub timeout: Duration,
    /// The limit on the whole drill.
    pub max_time: Duration,
    pub expiry: Option<Expiry>,
    /// Makes this run's keys its own, so a server that remembers keys starts afresh.
    pub tag: String,
    /// The shape of the keys sent.
    pub key_format: KeyFormat,
    /// `--expiry-wait`: how long to wait after a first request before its key is used again,
    /// past the expiry the API states, to see the key processed anew, once.
    pub expiry_wait: Option<Duration>,
    /// `--kept-for`: how long to wait after a first request before sending it again, to see
    /// its key still kept.
    pub kept_for: Option<Duration>,
    /// How the keys are written in the header.
    pub key_syntax: KeySyntax,
}

/// How a key is written in the `Idempotency-Key` header: bare, as client libraries send it
/// (Stripe's, and most HTTP clients given a header value), or as the draft writes it, a
/// Structured Field string in double quotes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeySyntax {
    #[default]
    Bare,
    SfString,
}

impl KeySyntax {
    pub const ALL: [(&'static str, KeySyntax); 2] = [
        ("bare", KeySyntax::Bare),
        ("sf-string", KeySyntax::SfString),
    ];

    pub fn id(self) -> &'static str {
        match self {
            KeySyntax::Bare => "bare",
            KeySyntax::SfString => "sf-string",
        }
    }

    /// The other way of writing a key.
    pub fn other(self) -> KeySyntax {
        match self {
            KeySyntax::Bare => KeySyntax::SfString,
            KeySyntax::SfString => KeySyntax::Bare,
        }
    }

    /// `key` as this syntax writes it in the header.
    pub fn write(self, key: &str) -> String {
        match self {
            KeySyntax::Bare => key.to_string(),
            KeySyntax::SfString => quoted(key),
        }
    }

    /// `in quotes` or `bare`: how a key so written looks, in words.
    pub fn words(self) -> &'static str {
        match self {
            KeySyntax::Bare => "bare",
            KeySyntax::SfString => "in quotes",
        }
    }
}

/// The shape of the keys the drill sends: its own readable tokens, or UUIDs for an endpoint
/// that takes nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyFormat {
    /// `idem-drill-k3m9tq-replay`: readable, and tells each check's key apart.
    #[default]
    Token,
    /// A random version-4 UUID for each check.
    Uuid,
}

impl KeyFormat {
    pub const ALL: [(&'static str, KeyFormat); 2] =
        [("token", KeyFormat::Token), ("uuid", KeyFormat::Uuid)];
}

/// A UUID for one of a run's checks, fixed by the run's tag and the check's name.
fn uuid_for(tag: &str, role: &str) -> String {
    let mut rng = fastrand::Rng::with_seed(
        tag.bytes()
            .chain(role.bytes())
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            }),
    );
    let mut bytes = [0u8; 16];
    rng.fill(&mut bytes);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}

/// A short random tag for a run's keys.
pub fn fresh_tag() -> String {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstvwxyz23456789";
    (0..6)
        .map(|_| char::from(ALPHABET[fastrand::usize(..ALPHABET.len())]))
        .collect()
}

/// The body with the amount changed by $3.50 (order 5531's $48.60 becomes key-reuse's
/// $52.10), when it has an amount the drill can read.
pub fn other_body(body: &Value) -> Option<Value> {
    let mut other = body.clone();
    let fields = other.as_object_mut()?;
    let changed = match fields.get("amount")? {
        Value::String(s) => {
            let cents = crate::sim::money::parse_money(s).ok()?;
            Value::String(Cents(cents.0.checked_add(350)?).to_string())
        }
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::from(i.checked_add(350)?),
            (None, Some(f)) => Value::from(f + 3.5),
            _ => return None,
        },
        _ => return None,
    };
    fields.insert("amount".into(), changed);
    Some(other)
}

/// An sf-string (RFC 8941) holding `key`, as the header carries it.
pub fn quoted(key: &str) -> String {
    match sfv::StringRef::from_str(key) {
        Ok(s) => sfv::ItemSerializer::new().bare_item(s).finish(),
        // The drill's own keys are printable ASCII; anything else is sent as it is.
        Err(_) => key.to_string(),
    }
}

impl Plan {
    /// The key of one check, in the run's key format.
    fn key(&self, role: &str) -> String {
        match self.key_format {
            KeyFormat::Token => format!("idem-drill-{}-{role}", self.tag),
            KeyFormat::Uuid => uuid_for(&self.tag, role),
        }
    }

    pub fn replay_key(&self) -> String {
        self.key("replay")
    }

    pub fn race_key(&self) -> String {
        self.key("race")
    }

    pub fn bare_key(&self) -> String {
        self.key("bare")
    }

    pub fn expiry_key(&self) -> String {
        self.key("expiry")
    }

    pub fn kept_key(&self) -> String {
        self.key("kept")
    }

    /// A key one character longer than most readers take (always the drill's own token
    /// shape: no UUID is that long).
    pub fn long_key(&self) -> String {
        let stem = format!("idem-drill-{}-long-", self.tag);
        let pad = LONG_KEY.saturating_sub(stem.len());
        format!("{stem}{}", "k".repeat(pad))
    }

    fn body_text(&self) -> String {
        self.body.to_string()
    }

    fn post(&self, key: KeySent, body: String) -> Send {
        Send {
            method: "POST",
            url: self.target.url.clone(),
            key,
            body: Some(body),
        }
    }

    fn read_back_send(&self) -> Option<Send> {
        self.read_back.as_ref().map(|t| Send {
            method: "GET",
            url: t.url.replace("{key}", &self.replay_key()),
            key: KeySent::None,
            body: None,
        })
    }

    /// How many requests the drill sends in all.
    pub fn request_count(&self) -> usize {
        let reads = if self.read_back.is_some() { 3 } else { 0 };
        let mismatch = usize::from(self.other_body.is_some());
        let after_expiry = if self.expiry_wait.is_some() {
            1 + self.concurrency
        } else {
            0
        };
        let kept = if self.kept_for.is_some() { 2 } else { 0 };
        3 + mismatch + self.concurrency + 3 + reads + after_expiry + kept
    }

    /// What the drill will send, in words, one line each, before it sends anything.
    pub fn describe(&self) -> Vec<String> {
        let url = crate::text::sanitize_line(&self.target.url);
        let place = if self.target.loopback {
            "on loopback"
        } else {
            "REMOTE, allowed by --allow-remote"
        };
        let mut lines = vec![format!(
            "idem drill sends {} requests to {url} ({place}), each within {}, all within {}:",
            self.request_count(),
            crate::units::duration_ms(ms(self.timeout)),
            crate::units::duration_ms(ms(self.max_time)),
        )];
        let body = crate::text::shorten(&crate::text::sanitize_line(&self.body_text()), 100);
        lines.push(format!("  the body: {body}"));
        let mut n = 0;
        let mut step = |count: usize, text: String, lines: &mut Vec<String>| {
            let label = if count == 1 {
                format!("{}", n + 1)
            } else {
                format!("{}-{}", n + 1, n + count)
            };
            n += count;
            lines.push(format!("  {label:>5}. {text}"));
        };
        let reads = self
            .read_back
            .as_ref()
            .map(|t| crate::text::shorten(&crate::text::sanitize_line(&t.url), 80));
        if let Some(r) = &reads {
            step(1, format!("GET {r} (before)"), &mut lines);
        }
        let replay = self.key_syntax.write(&self.replay_key());
        step(
            1,
            format!("POST with Idempotency-Key: {replay}"),
            &mut lines,
        );
        if reads.is_some() {
            step(1, "GET the read-back again".into(), &mut lines);
        }
        step(
            1,
            "POST the same key and body again: a retry".into(),
            &mut lines,
        );
        if reads.is_some() {
            step(1, "GET the read-back again".into(), &mut lines);
        }
        let other = self.key_syntax.other();
        step(
            1,
            format!(
                "POST the same key {} ({}), same body: one key or two?",
                other.words(),
                other.write(&self.replay_key())
            ),
            &mut lines,
        );
        if let Some(other) = &self.other_body {
            let other = crate::text::shorten(&crate::text::sanitize_line(&other.to_string()), 80);
            step(
                1,
                format!("POST the same key with another body: {other}"),
                &mut lines,
            );
        }
        step(
            self.concurrency,
            format!(
                "POST at once, all with Idempotency-Key: {}",
                self.key_syntax.write(&self.race_key())
            ),
            &mut lines,
        );
        step(1, "POST with no Idempotency-Key".into(), &mut lines);
        step(
            1,
            format!(
                "POST with Idempotency-Key: {} ({})",
                other.write(&self.bare_key()),
                other.words()
            ),
            &mut lines,
        );
        step(
            1,
            format!(
                "POST with a key of {LONG_KEY} characters, {}",
                self.key_syntax.words()
            ),
            &mut lines,
        );
        if let Some(wait) = self.expiry_wait {
            step(
                1,
                format!(
                    "POST with Idempotency-Key: {}, then wait {}",
                    self.key_syntax.write(&self.expiry_key()),
                    crate::units::duration_ms(ms(wait))
                ),
                &mut lines,
            );
            step(
                self.concurrency,
                "POST at once with that key again, past its expiry".into(),
                &mut lines,
            );
        }
        if let Some(kept) = self.kept_for {
            step(
                1,
                format!(
                    "POST with Idempotency-Key: {}, then wait {}",
                    self.key_syntax.write(&self.kept_key()),
                    crate::units::duration_ms(ms(kept))
                ),
                &mut lines,
            );
            step(
                1,
                "POST the same key and body again: still kept?".into(),
                &mut lines,
            );
        }
        lines.push(
            "Each POST the endpoint takes may charge: drill a test endpoint, never a live one."
                .into(),
        );
        lines
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// What came back from every request the drill sent; `None` where it did not send.
#[derive(Clone, Debug, Default)]
pub struct Observed {
    /// The read-back before the first request, after it, and after the retry.
    pub read_back: Option<[Seen; 3]>,
    pub first: Option<Seen>,
    pub retry: Option<Seen>,
    /// The first request's key again in the other syntax (bare for a quoted key, quoted for
    /// a bare one), with the same body: whether the endpoint read the quotes as syntax (one
    /// key) or as part of the key (two).
    pub other_syntax_repeat: Option<Seen>,
    pub mismatch: Option<Seen>,
    pub race: Option<Vec<Seen>>,
    pub missing: Option<Seen>,
    /// A key of its own in the other syntax.
    pub other_syntax: Option<Seen>,
    pub long: Option<Seen>,
    /// With `--expiry-wait`: the first request under the expiry key, and the requests sent
    /// at once with it after the wait.
    pub before_expiry: Option<Seen>,
    pub after_expiry: Option<Vec<Seen>>,
    /// With `--kept-for`: the first request under the kept key, and the same request after
    /// the wait.
    pub kept_first: Option<Seen>,
    pub kept_again: Option<Seen>,
    /// Every request the drill sent and what came back, in the order sent.
    pub exchanges: Vec<Exchange>,
    /// Requests sent, and how long the drill took.
    pub sent: usize,
    pub millis: u64,
    /// The checks left out because the time ran out.
    pub out_of_time: bool,
}

/// One request the drill sent, as it went on the wire, and its answer: what `--json` carries
/// so that a report can be judged again from the exchanges alone.
#[derive(Clone, Debug, Serialize)]
pub struct Exchange {
    /// The step of the battery it belongs to: `read-back`, `first`, `retry`,
    /// `same-key-other-syntax`, `key-reuse`, `concurrent`, `missing-key`, `other-syntax-key`,
    /// `long-key`, `before-expiry`, `after-expiry`, `kept-first` or `kept-again`.
    pub step: &'static str,
    pub method: &'static str,
    pub url: String,
    /// The `Idempotency-Key` header's value as sent; none when the request carried none.
    pub key: Option<String>,
    pub body: Option<String>,
    pub answer: Seen,
}

/// How long the retry waits after the first request's answer.
const RETRY_PAUSE: Duration = Duration::from_millis(50);

/// Runs the battery. Each step starts only while time is left, and waits at most what is
/// left.
pub fn run(plan: &Plan) -> Observed {
    let started = Instant::now();
    let mut seen = Observed::default();
    let agent = |started: &Instant| {
        let left = plan.max_time.saturating_sub(started.elapsed());
        (!left.is_zero()).then(|| client::agent(plan.timeout.min(left), !plan.target.loopback))
    };
    let body = plan.body_text();
    let syntax = plan.key_syntax;
    let one = |seen: &mut Observed, step: &'static str, s: &Send| -> Option<Seen> {
        let a = agent(&started)?;
        seen.sent += 1;
        let answer = client::send(&a, s, started);
        seen.exchanges.push(Exchange::of(step, s, answer.clone()));
        Some(answer)
    };
    let replay_key = KeySent::Raw(syntax.write(&plan.replay_key()));
    let read = plan.read_back_send();
    let mut reads = Vec::new();
    if let Some(r) = &read
        && let Some(s) = one(&mut seen, "read-back", r)
    {
        reads.push(s);
    }
    seen.first = one(
        &mut seen,
        "first",
        &plan.post(replay_key.clone(), body.clone()),
    );
    if let Some(r) = &read
        && let Some(s) = one(&mut seen, "read-back", r)
    {
        reads.push(s);
    }
    // No client retries the instant an answer arrives, and a service may finish its work for
    // a request just after answering it (`idem serve --design log-after-charge` logs the key
    // then): the retry waits a moment, so what it finds does not hang on that race.
    if seen.first.is_some() {
        std::thread::sleep(RETRY_PAUSE.min(plan.max_time.saturating_sub(started.elapsed())));
    }
    seen.retry = one(
        &mut seen,
        "retry",
        &plan.post(replay_key.clone(), body.clone()),
    );
    if let Some(r) = &read
        && let Some(s) = one(&mut seen, "read-back", r)
    {
        reads.push(s);
    }
    if let Ok(three) = <[Seen; 3]>::try_from(reads) {
        seen.read_back = Some(three);
    }
    seen.other_syntax_repeat = one(
        &mut seen,
        "same-key-other-syntax",
        &plan.post(
            KeySent::Raw(syntax.other().write(&plan.replay_key())),
            body.clone(),
        ),
    );
    if let Some(other) = &plan.other_body {
        seen.mismatch = one(
            &mut seen,
            "key-reuse",
            &plan.post(replay_key, other.to_string()),
        );
    }
    if let Some(a) = agent(&started) {
        let race = plan.post(KeySent::Raw(syntax.write(&plan.race_key())), body.clone());
        let answers = at_once(&a, &race, plan.concurrency, started);
        for answer in &answers {
            seen.exchanges
                .push(Exchange::of("concurrent", &race, answer.clone()));
        }
        seen.race = Some(answers);
        seen.sent += plan.concurrency;
    }
    seen.missing = one(
        &mut seen,
        "missing-key",
        &plan.post(KeySent::None, body.clone()),
    );
    seen.other_syntax = one(
        &mut seen,
        "other-syntax-key",
        &plan.post(
            KeySent::Raw(syntax.other().write(&plan.bare_key())),
            body.clone(),
        ),
    );
    seen.long = one(
        &mut seen,
        "long-key",
        &plan.post(KeySent::Raw(syntax.write(&plan.long_key())), body.clone()),
    );
    if let Some(wait) = plan.expiry_wait {
        let key = KeySent::Raw(syntax.write(&plan.expiry_key()));
        seen.before_expiry = one(
            &mut seen,
            "before-expiry",
            &plan.post(key.clone(), body.clone()),
        );
        let left = plan.max_time.saturating_sub(started.elapsed());
        if seen.before_expiry.is_some() && left > wait {
            std::thread::sleep(wait);
            if let Some(a) = agent(&started) {
                let again = plan.post(key, body.clone());
                let answers = at_once(&a, &again, plan.concurrency, started);
                for answer in &answers {
                    seen.exchanges
                        .push(Exchange::of("after-expiry", &again, answer.clone()));
                }
                seen.after_expiry = Some(answers);
                seen.sent += plan.concurrency;
            }
        }
    }
    if let Some(wait) = plan.kept_for {
        let key = KeySent::Raw(syntax.write(&plan.kept_key()));
        seen.kept_first = one(
            &mut seen,
            "kept-first",
            &plan.post(key.clone(), body.clone()),
        );
        let left = plan.max_time.saturating_sub(started.elapsed());
        if seen.kept_first.is_some() && left > wait {
            std::thread::sleep(wait);
            seen.kept_again = one(&mut seen, "kept-again", &plan.post(key, body.clone()));
        }
    }
    seen.out_of_time = seen.long.is_none();
    seen.millis = ms(started.elapsed());
    seen
}

impl Exchange {
    fn of(step: &'static str, s: &Send, answer: Seen) -> Exchange {
        Exchange {
            step,
            method: s.method,
            url: s.url.clone(),
            key: match &s.key {
                KeySent::None => None,
                KeySent::Raw(v) => Some(v.clone()),
            },
            body: s.body.clone(),
            answer,
        }
    }
}

/// Sends `n` copies of one request together: every thread waits at a barrier, so they
/// leave within a moment of each other. The answers come back in thread order, each timed
/// from `origin`.
fn at_once(agent: &ureq::Agent, s: &Send, n: usize, origin: Instant) -> Vec<Seen> {
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let (agent, s, barrier) = (agent.clone(), s.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                client::send(&agent, &s, origin)
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| {
            h.join().unwrap_or_else(|_| Seen {
                error: Some("the request's thread failed".into()),
                ..Seen::default()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn another_body_changes_the_amount() {
        let b = json!({"order": "5531", "amount": "$48.60"});
        assert_eq!(
            other_body(&b),
            Some(json!({"order": "5531", "amount": "$52.10"}))
        );
        assert_eq!(
            other_body(&json!({"amount": 4860})),
            Some(json!({"amount": 5210}))
        );
        assert_eq!(other_body(&json!({"order": "1"})), None);
        assert_eq!(other_body(&json!({"amount": "lots"})), None);
        assert_eq!(other_body(&json!([1])), None);
    }

    #[test]
    fn keys_are_quoted_and_the_long_one_is_long() {
        assert_eq!(quoted("K7Q4"), "\"K7Q4\"");
        let plan = Plan {
            target: Target {
                url: "http://127.0.0.1:1/charges".into(),
                loopback: true,
            },
            body: json!({"order": "5531", "amount": "$48.60"}),
            other_body: None,
            read_back: None,
            concurrency: 5,
            timeout: Duration::from_secs(1),
            max_time: Duration::from_secs(5),
            expiry: None,
            tag: "abc234".into(),
            key_format: KeyFormat::Token,
            expiry_wait: None,
            kept_for: None,
            key_syntax: KeySyntax::SfString,
        };
        assert_eq!(plan.long_key().len(), LONG_KEY);
        assert_eq!(plan.request_count(), 11);
        let text = plan.describe().join("\n");
        assert!(text.contains("sends 11 requests"), "{text}");
        assert!(text.contains("  4-8. POST at once"), "{text}");
    }
}
