//! From exchanges to an incident: the two sides of each attempt paired (a server span to the
//! client span it answered, by trace context, or by key and time), the attempts grouped into
//! orders by their key, and what cannot be read said rather than guessed: an attribute that is
//! missing, one key in several traces, clocks that disagree, records cut off.

use crate::import::error::ImportError;
use crate::import::ledger::Charge;
use crate::import::model::{Exchange, Format, Side, bare_key};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One file read.
#[derive(Clone, Debug)]
pub struct Source {
    pub file: String,
    pub format: Format,
    pub records: u64,
    pub kept: u64,
    pub creator: Option<String>,
}

/// One attempt: what the caller saw, what the service saw, or both.
#[derive(Clone, Debug, Default)]
pub struct Attempt {
    pub client: Option<Exchange>,
    pub server: Option<Exchange>,
}

impl Attempt {
    /// When it left, on the client's clock when the client recorded it.
    pub fn start_us(&self) -> i64 {
        self.client
            .as_ref()
            .or(self.server.as_ref())
            .map_or(0, |x| x.start_us)
    }

    pub fn origin(&self) -> String {
        match (&self.client, &self.server) {
            (Some(c), Some(s)) => format!("{} and {}", c.origin, s.origin),
            (Some(c), None) => c.origin.clone(),
            (None, Some(s)) => s.origin.clone(),
            (None, None) => String::new(),
        }
    }
}

/// One purchase: its key, its attempts in the order they left, and its charges.
#[derive(Clone, Debug, Default)]
pub struct Order {
    pub key: String,
    pub order: Option<String>,
    pub amount: Option<String>,
    pub attempts: Vec<Attempt>,
    pub traces: BTreeSet<String>,
    /// The charges the ledger holds under this key, when a ledger was given.
    pub ledger: Option<Vec<Charge>>,
}

impl Order {
    /// The order's id: the one the records name, else its key.
    pub fn id(&self) -> &str {
        self.order.as_deref().unwrap_or(&self.key)
    }

    /// The charges named in the records (answers' bodies, span events), distinct.
    pub fn charges_named(&self) -> BTreeSet<String> {
        self.attempts
            .iter()
            .flat_map(|a| [&a.client, &a.server])
            .flatten()
            .filter_map(|x| x.charge.clone())
            .collect()
    }
}

/// What the records show.
#[derive(Clone, Debug, Default)]
pub struct Incident {
    pub sources: Vec<Source>,
    pub orders: Vec<Order>,
    /// The ledger's file, when one was given.
    pub ledger_file: Option<String>,
    /// Whether any file records the service's side (server spans, access logs).
    pub server_seen: bool,
    /// Whether any file records the caller's side.
    pub client_seen: bool,
    /// What could not be read, or was read with a doubt: one sentence each.
    pub notes: Vec<String>,
}

/// The most orders a scenario holds.
pub const MAX_ORDERS: usize = 64;

pub fn build(
    exchanges: Vec<Exchange>,
    sources: Vec<Source>,
    ledger: Option<(String, Vec<Charge>)>,
    mut notes: Vec<String>,
    want: Option<&str>,
) -> Result<Incident, ImportError> {
    let mut clients = Vec::new();
    let mut servers = Vec::new();
    let mut neither = 0usize;
    for x in exchanges {
        match x.side {
            Some(Side::Client) => clients.push(x),
            Some(Side::Server) => servers.push(x),
            None => neither += 1,
        }
    }
    if neither > 0 {
        notes.push(format!(
            "{neither} HTTP span{} neither client nor server (span kind internal or missing) left out",
            if neither == 1 { " was" } else { "s were" }
        ));
    }
    let server_seen = !servers.is_empty();
    let client_seen = !clients.is_empty();
    let mut attempts: Vec<Attempt> = clients
        .into_iter()
        .map(|c| Attempt {
            client: Some(c),
            server: None,
        })
        .collect();
    // Pair by trace context: the server span's parent is the client span.
    let by_span: HashMap<String, usize> = attempts
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            a.client
                .as_ref()
                .and_then(|c| c.span_id.clone())
                .map(|s| (s, i))
        })
        .collect();
    let mut unpaired = Vec::new();
    for s in servers {
        match s.parent_id.as_ref().and_then(|p| by_span.get(p)) {
            Some(&i) if attempts[i].server.is_none() => attempts[i].server = Some(s),
            Some(_) => {
                notes.push(format!(
                    "{}: a second server span for one client request (the request was duplicated on the way); read as an attempt of its own",
                    s.origin
                ));
                unpaired.push(s);
            }
            None => unpaired.push(s),
        }
    }
    // Keys known to one side only are given to the other.
    for a in &mut attempts {
        if let (Some(c), Some(s)) = (&mut a.client, &mut a.server) {
            if c.key.is_none() {
                c.key.clone_from(&s.key);
            }
            if s.key.is_none() {
                s.key.clone_from(&c.key);
            }
        }
    }
    // Without trace context (a HAR beside an access log), a server record with the same key
    // that falls within a client attempt's time is its other side.
    let mut alone = Vec::new();
    for s in unpaired {
        let key = s.key.as_deref().map(bare_key);
        let slot = attempts.iter().position(|a| {
            a.server.is_none()
                && a.client.as_ref().is_some_and(|c| {
                    c.key.as_deref().map(bare_key) == key
                        && key.is_some()
                        && s.start_us >= c.start_us - 5_000_000
                        && c.end_us.is_none_or(|e| s.start_us <= e + 5_000_000)
                })
        });
        match slot {
            Some(i) => attempts[i].server = Some(s),
            None => alone.push(Attempt {
                client: None,
                server: Some(s),
            }),
        }
    }
    attempts.extend(alone);
    let mut unkeyed = 0usize;
    let mut groups: BTreeMap<String, Vec<Attempt>> = BTreeMap::new();
    for a in attempts {
        let key = a
            .client
            .as_ref()
            .and_then(|c| c.key.clone())
            .or_else(|| a.server.as_ref().and_then(|s| s.key.clone()));
        match key {
            Some(k) => groups.entry(bare_key(&k).to_string()).or_default().push(a),
            None => unkeyed += 1,
        }
    }
    if unkeyed > 0 {
        notes.push(format!(
            "{unkeyed} HTTP request{} no idempotency key and {} left out (a lookup, a health check, or a request whose header was not captured)",
            if unkeyed == 1 { " carried" } else { "s carried" },
            if unkeyed == 1 { "was" } else { "were" }
        ));
    }
    let (ledger_file, charges) = match ledger {
        Some((f, c)) => (Some(f), Some(c)),
        None => (None, None),
    };
    let mut orders = Vec::new();
    for (key, mut list) in groups {
        list.sort_by_key(Attempt::start_us);
        let mut o = Order {
            key: key.clone(),
            ..Order::default()
        };
        for a in &list {
            for x in [&a.client, &a.server].into_iter().flatten() {
                if o.order.is_none() {
                    o.order.clone_from(&x.order);
                }
                if o.amount.is_none() {
                    o.amount.clone_from(&x.amount);
                }
                if let Some(t) = &x.trace_id {
                    o.traces.insert(t.clone());
                }
            }
        }
        if let Some(all) = &charges {
            let mine: Vec<Charge> = all
                .iter()
                .filter(|c| c.key.as_deref() == Some(key.as_str()))
                .cloned()
                .collect();
            for c in &mine {
                if o.order.is_none() {
                    o.order.clone_from(&c.order);
                }
                if o.amount.is_none() {
                    o.amount.clone_from(&c.amount);
                }
            }
            o.ledger = Some(mine);
        }
        o.attempts = list;
        orders.push(o);
    }
    if let Some(want) = want {
        orders.retain(|o| o.key == want || o.order.as_deref() == Some(want));
        if orders.is_empty() {
            return Err(ImportError::Usage(format!(
                "--order {}: no record carries that order id or key",
                idem_core::text::sanitize_line(want)
            )));
        }
    }
    if orders.is_empty() {
        return Err(ImportError::Usage(
            "the records hold no HTTP request with an idempotency key".to_string(),
        ));
    }
    orders.sort_by_key(|o| o.attempts.first().map_or(0, Attempt::start_us));
    if orders.len() > MAX_ORDERS {
        notes.push(format!(
            "{} orders were found; a scenario holds at most {MAX_ORDERS}, so the first {MAX_ORDERS} are kept (--order picks one)",
            orders.len()
        ));
        orders.truncate(MAX_ORDERS);
    }
    for o in &orders {
        check_order(o, &mut notes);
    }
    Ok(Incident {
        sources,
        orders,
        ledger_file,
        server_seen,
        client_seen,
        notes,
    })
}

/// What one order's records leave in doubt.
fn check_order(o: &Order, notes: &mut Vec<String>) {
    let key = idem_core::text::sanitize_line(&o.key);
    if o.traces.len() > 1 {
        notes.push(format!(
            "key {key}: its attempts are spread over {} traces; they are read as one order's attempts (a retry that started a new trace, or the key reused by another request)",
            o.traces.len()
        ));
    }
    let mut skew_us: Option<i64> = None;
    for a in &o.attempts {
        for x in [&a.client, &a.server].into_iter().flatten() {
            match x.end_us {
                None => notes.push(format!(
                    "{}: no end time (the record is cut off); read as an attempt that never heard back",
                    x.origin
                )),
                Some(e) if e < x.start_us => notes.push(format!(
                    "{}: ends before it starts; read as an attempt that never heard back",
                    x.origin
                )),
                _ => {}
            }
            if x.start_us == 0 {
                notes.push(format!("{}: no start time; placed at the epoch", x.origin));
            }
            if x.method.is_none() {
                notes.push(format!("{}: no request method recorded", x.origin));
            }
        }
        if let (Some(c), Some(s)) = (&a.client, &a.server) {
            // The service cannot receive before the request leaves, nor answer a request the
            // client had already heard back on.
            let early = c.start_us - s.start_us;
            let late = match (c.end_us, s.end_us, c.status) {
                (Some(ce), Some(se), Some(_)) => se - ce,
                _ => 0,
            };
            let off = early.max(late);
            if off > 1000 {
                let signed = if early >= late { -early } else { late };
                if skew_us.is_none_or(|k| k.abs() < off) {
                    skew_us = Some(signed);
                }
            }
        }
    }
    if let Some(k) = skew_us {
        let dir = if k < 0 { "behind" } else { "ahead of" };
        notes.push(format!(
            "key {key}: the service's clock is at least {} ms {dir} the client's (a server span outside the client span it answers); the times are left as each side recorded them and not corrected: the scenario's timeline is the client's clock, and latency is taken from durations, which skew does not change",
            k.abs() / 1000
        ));
    }
    let resends: Vec<u64> = o
        .attempts
        .iter()
        .filter_map(|a| a.client.as_ref().and_then(|c| c.resend))
        .collect();
    if !resends.is_empty() {
        let max = resends.iter().copied().max().unwrap_or(0);
        if max + 1 > resends.len() as u64 {
            notes.push(format!(
                "key {key}: http.request.resend_count reaches {max} but only {} attempts are recorded: some attempts are missing from the records (cut off, or sampled away)",
                resends.len()
            ));
        }
    }
    if let Some(l) = &o.ledger
        && l.is_empty()
    {
        notes.push(format!(
            "key {key}: the ledger holds no charge under this key"
        ));
    }
}
