//! The card processor of `idem serve`: each design of the simulation, done for real on
//! SQLite, in the same order of writes, so that what `curl` sees is what the replay shows.
//!
//! - `with-charge`: a completed key record is replayed, one in progress (an in-memory mark)
//!   answered 409, one first used for another body 422; new work writes the charge and the
//!   key record in one transaction.
//! - `log-after-charge`: the charge is written and answered, then the key is logged.
//! - `log-before-charge`: the key is logged, then the charge is written.
//! - `no-key`: every request is a new charge.
//! - `content-hash`: a body already charged is refused; a new one is charged together with
//!   its hash.
//! - `inprogress-record`: a durable in-progress record, the charge, then the record
//!   completed in a write of its own.

use super::problem::{self, Kind as Problem};
use super::request::{ChargeBody, KeyHeader};
use super::response::{PROBLEM, Response};
use super::store::{Answer, Charge, Kind, NewCharge, NewEntry, State, Store};
use crate::sim::{Cents, Design};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The exit status of a crash asked for with `--crash-between`.
pub const CRASH_EXIT: i32 = 3;

/// How the processor behaves: the design and the trainer's switches.
#[derive(Clone, Debug)]
pub struct Settings {
    pub design: Design,
    /// How long each charge takes.
    pub processing: Duration,
    /// How long a key (or a body hash) is remembered.
    pub ttl_ms: u64,
    /// `inprogress-record`: how long its in-progress record blocks the key.
    pub in_progress_expiry_ms: u64,
    /// Exit between the design's two writes.
    pub crash_between: bool,
    /// No in-progress mark, and the key record is written last-writer-wins.
    pub no_lock: bool,
    /// `with-charge`: replay a key's answer whatever the body.
    pub no_fingerprint: bool,
}

/// What the processor did with a request: the answer, a line for the log, and work to do
/// once the answer has left.
pub struct Handled {
    pub response: Response,
    pub summary: String,
    pub after: Option<Box<dyn FnOnce() + Send>>,
}

impl Handled {
    fn now(response: Response, summary: String) -> Handled {
        Handled {
            response,
            summary,
            after: None,
        }
    }
}

pub struct Processor {
    settings: Settings,
    store: Mutex<Store>,
    /// `with-charge`: keys whose first request is being worked on, with its fingerprint.
    /// Held in memory only, as the simulation holds them: a crash forgets them.
    marks: Mutex<HashMap<String, u64>>,
}

/// A lock that a panic elsewhere does not poison for good: the data behind it is a
/// database handle and a set of keys, both still usable.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn problem(kind: Problem, detail: &str) -> Handled {
    Handled::now(
        kind.response(detail),
        format!("{} {}", kind.status, kind.name),
    )
}

fn store_failed(e: &str) -> Handled {
    problem(problem::STORE_FAILED, e)
}

/// The answer to a charge that moved money.
fn charged(line: &Charge) -> Answer {
    Answer {
        status: 200,
        body: json!({
            "id": line.id,
            "status": "charged",
            "order": line.order,
            "amount": Cents(line.amount_cents).to_string(),
        })
        .to_string(),
    }
}

/// What `log-before-charge` logs before the money has moved: an approval with no charge.
fn approved(body: &ChargeBody) -> Answer {
    Answer {
        status: 200,
        body: json!({
            "status": "approved",
            "order": body.order,
            "amount": body.amount.to_string(),
        })
        .to_string(),
    }
}

fn answer(a: &Answer, summary: String) -> Handled {
    let kind = if a.status < 400 {
        "application/json"
    } else {
        PROBLEM
    };
    Handled::now(Response::new(a.status, kind, a.body.clone()), summary)
}

fn replay(a: &Answer) -> Handled {
    let mut h = answer(a, format!("{} replayed", a.status));
    h.response = h.response.with("Idempotent-Replayed", "true");
    h
}

impl Processor {
    pub fn new(settings: Settings, store: Store) -> Processor {
        Processor {
            settings,
            store: Mutex::new(store),
            marks: Mutex::new(HashMap::new()),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Ends the process between two writes, as `--crash-between` asks.
    fn crash(&self, between: &str) -> ! {
        eprintln!(
            "idem serve crashed {between}, as --crash-between asked; start it again with the same --db and retry"
        );
        std::process::exit(CRASH_EXIT)
    }

    fn work(&self) {
        std::thread::sleep(self.settings.processing);
    }

    fn expiry(&self, now: i64) -> i64 {
        now.saturating_add(i64::try_from(self.settings.ttl_ms).unwrap_or(i64::MAX))
    }

    /// `POST /charges`.
    pub fn charge(self: &Arc<Self>, key: KeyHeader, body: &ChargeBody) -> Handled {
        let design = self.settings.design;
        if !design.uses_key() {
            return match design {
                Design::ContentHash => self.content_hash(body),
                _ => self.plain_charge(None, body),
            };
        }
        let key = match key {
            KeyHeader::Key(k) => k,
            KeyHeader::Invalid(why) => return problem(problem::KEY_INVALID, &why),
            KeyHeader::Missing => {
                return match design {
                    Design::WithCharge | Design::InProgressRecord => problem(
                        problem::KEY_MISSING,
                        "send an Idempotency-Key header, as in Idempotency-Key: \"K7Q4\"",
                    ),
                    // The key logs have nothing to log: the request is charged as new.
                    _ => self.plain_charge(None, body),
                };
            }
        };
        match design {
            Design::WithCharge => self.with_charge(key, body),
            Design::LogAfterCharge => self.log_after_charge(key, body),
            Design::LogBeforeCharge => self.log_before_charge(key, body),
            _ => self.in_progress_record(key, body),
        }
    }

    fn plain_charge(&self, key: Option<&str>, body: &ChargeBody) -> Handled {
        self.work();
        let mut store = lock(&self.store);
        let charge = NewCharge {
            order: &body.order,
            amount_cents: body.amount.0,
            key,
            now: now_ms(),
        };
        match store.charge(&charge, charged) {
            Ok((line, a)) => answer(&a, format!("200 charged {}", line.id)),
            Err(e) => store_failed(&e),
        }
    }

    fn with_charge(&self, key: String, body: &ChargeBody) -> Handled {
        let fp = body.fingerprint();
        let s = &self.settings;
        {
            // The lookup and the mark happen under one lock, so two requests cannot both
            // find the key free.
            let mut marks = lock(&self.marks);
            let store = lock(&self.store);
            let found = match store.find(Kind::Record, &key, now_ms()) {
                Ok(f) => f,
                Err(e) => return store_failed(&e),
            };
            let first = found
                .as_ref()
                .and_then(|e| e.fingerprint)
                .or_else(|| marks.get(&key).copied());
            if !s.no_fingerprint && first.is_some_and(|f| f != fp) {
                return problem(
                    problem::KEY_REUSED,
                    "this key was first used for a different order, amount or items",
                );
            }
            if let Some(a) = found.and_then(|e| e.answer) {
                return replay(&a);
            }
            if !s.no_lock {
                if marks.contains_key(&key) {
                    return problem(
                        problem::KEY_IN_PROGRESS,
                        "the first request with this key is still being charged",
                    );
                }
                marks.insert(key.clone(), fp);
            }
        }
        self.work();
        let result = {
            let mut marks = lock(&self.marks);
            let mut store = lock(&self.store);
            let now = now_ms();
            let charge = NewCharge {
                order: &body.order,
                amount_cents: body.amount.0,
                key: Some(&key),
                now,
            };
            let entry = NewEntry {
                kind: Kind::Record,
                key: &key,
                fingerprint: Some(fp),
                state: State::Completed,
                expires: self.expiry(now),
                replace: s.no_lock,
            };
            let r = store.charge_and_remember(&charge, &entry, charged);
            marks.remove(&key);
            r
        };
        match result {
            Ok((line, a)) => {
                if s.crash_between {
                    self.crash(&format!(
                        "right after the one transaction that wrote {} and its key (with-charge has no gap between the two), before answering",
                        line.id
                    ));
                }
                answer(&a, format!("200 charged {}", line.id))
            }
            Err(e) => store_failed(&e),
        }
    }

    /// The key log's answer for `key`, if it holds one.
    fn logged(&self, key: &str) -> Result<Option<Answer>, String> {
        Ok(lock(&self.store)
            .find(Kind::Log, key, now_ms())?
            .and_then(|e| e.answer))
    }

    fn log_entry<'a>(&self, key: &'a str, now: i64) -> NewEntry<'a> {
        NewEntry {
            kind: Kind::Log,
            key,
            fingerprint: None,
            state: State::Completed,
            expires: self.expiry(now),
            replace: true,
        }
    }

    fn log_after_charge(self: &Arc<Self>, key: String, body: &ChargeBody) -> Handled {
        match self.logged(&key) {
            Ok(Some(a)) => return replay(&a),
            Ok(None) => {}
            Err(e) => return store_failed(&e),
        }
        let mut handled = self.plain_charge(Some(&key), body);
        if handled.response.status != 200 {
            return handled;
        }
        let answer = Answer {
            status: 200,
            body: handled.response.body.clone(),
        };
        // The after-response hook: the key reaches the log only once the answer has left.
        let me = Arc::clone(self);
        handled.after = Some(Box::new(move || {
            if me.settings.crash_between {
                me.crash(
                    "after the charge was written and answered, before its key reached the log",
                );
            }
            let now = now_ms();
            let entry = me.log_entry(&key, now);
            // A log write that fails leaves the charge unremembered, as a crash would.
            let _ = lock(&me.store).remember(&entry, Some(&answer), now);
        }));
        handled
    }

    fn log_before_charge(&self, key: String, body: &ChargeBody) -> Handled {
        {
            let mut store = lock(&self.store);
            let now = now_ms();
            match store.find(Kind::Log, &key, now) {
                Ok(Some(e)) => {
                    if let Some(a) = e.answer {
                        return replay(&a);
                    }
                }
                Ok(None) => {}
                Err(e) => return store_failed(&e),
            }
            let entry = self.log_entry(&key, now);
            if let Err(e) = store.remember(&entry, Some(&approved(body)), now) {
                return store_failed(&e);
            }
        }
        if self.settings.crash_between {
            self.crash("after the key was logged, before the charge was written");
        }
        self.plain_charge(Some(&key), body)
    }

    fn content_hash(&self, body: &ChargeBody) -> Handled {
        let hash = format!("{:016x}", body.content());
        match lock(&self.store).find(Kind::BodyHash, &hash, now_ms()) {
            Ok(Some(_)) => {
                return problem(
                    problem::DUPLICATE_REQUEST,
                    "a request with this amount and these items was charged already",
                );
            }
            Ok(None) => {}
            Err(e) => return store_failed(&e),
        }
        self.work();
        let mut store = lock(&self.store);
        let now = now_ms();
        let charge = NewCharge {
            order: &body.order,
            amount_cents: body.amount.0,
            key: None,
            now,
        };
        let entry = NewEntry {
            kind: Kind::BodyHash,
            key: &hash,
            fingerprint: None,
            state: State::Completed,
            expires: self.expiry(now),
            replace: true,
        };
        match store.charge_and_remember(&charge, &entry, charged) {
            Ok((line, a)) => {
                if self.settings.crash_between {
                    self.crash(&format!(
                        "right after the one transaction that wrote {} and its body hash, before answering",
                        line.id
                    ));
                }
                answer(&a, format!("200 charged {}", line.id))
            }
            Err(e) => store_failed(&e),
        }
    }

    fn in_progress_record(&self, key: String, body: &ChargeBody) -> Handled {
        let s = &self.settings;
        {
            let mut store = lock(&self.store);
            let now = now_ms();
            match store.find(Kind::Record, &key, now) {
                Ok(Some(e)) if e.state == State::Completed => {
                    if let Some(a) = e.answer {
                        return replay(&a);
                    }
                }
                Ok(Some(_)) if !s.no_lock => {
                    return problem(
                        problem::KEY_IN_PROGRESS,
                        "an in-progress record holds this key until the first request completes or the record expires",
                    );
                }
                Ok(_) => {}
                Err(e) => return store_failed(&e),
            }
            if !s.no_lock {
                let entry = NewEntry {
                    kind: Kind::Record,
                    key: &key,
                    fingerprint: None,
                    state: State::InProgress,
                    expires: now
                        .saturating_add(i64::try_from(s.in_progress_expiry_ms).unwrap_or(i64::MAX)),
                    replace: false,
                };
                if let Err(e) = store.remember(&entry, None, now) {
                    return store_failed(&e);
                }
            }
        }
        let handled = self.plain_charge(Some(&key), body);
        if handled.response.status != 200 {
            return handled;
        }
        if s.crash_between {
            self.crash("after the charge was written, before its in-progress record was completed");
        }
        let a = Answer {
            status: 200,
            body: handled.response.body.clone(),
        };
        let mut store = lock(&self.store);
        let now = now_ms();
        let done = if s.no_lock {
            let entry = NewEntry {
                kind: Kind::Record,
                key: &key,
                fingerprint: None,
                state: State::Completed,
                expires: self.expiry(now),
                replace: true,
            };
            store.remember(&entry, Some(&a), now)
        } else {
            store.complete(Kind::Record, &key, &a, self.expiry(now))
        };
        match done {
            Ok(()) => handled,
            Err(e) => store_failed(&e),
        }
    }

    /// `GET /charges?key=K`: what the processor remembers under a key (docs/model.md §5.4).
    pub fn lookup(&self, key: &str) -> Handled {
        let design = self.settings.design;
        let kind = match design {
            Design::WithCharge | Design::InProgressRecord => Kind::Record,
            Design::LogAfterCharge | Design::LogBeforeCharge => Kind::Log,
            Design::NoKey | Design::ContentHash => {
                let body = json!({
                    "key": key,
                    "state": "not-found",
                    "note": format!("the {} design keeps no keys", design.id()),
                });
                return Handled::now(
                    Response::new(200, "application/json", body.to_string()),
                    "200 not-found".into(),
                );
            }
        };
        let marked = lock(&self.marks).contains_key(key);
        let found = match lock(&self.store).find(kind, key, now_ms()) {
            Ok(f) => f,
            Err(e) => return store_failed(&e),
        };
        let (state, stored) = match found {
            Some(e) if e.state == State::Completed => ("found", e.answer),
            Some(_) => ("in-progress", None),
            None if marked => ("in-progress", None),
            None => ("not-found", None),
        };
        let mut body = json!({ "key": key, "state": state });
        if let Some(a) = stored {
            let stored: serde_json::Value =
                serde_json::from_str(&a.body).unwrap_or(serde_json::Value::String(a.body));
            body["answer"] = json!({ "status": a.status, "body": stored });
        }
        Handled::now(
            Response::new(200, "application/json", body.to_string()),
            format!("200 {state}"),
        )
    }

    /// `GET /charges[?order=O]`: the ledger.
    pub fn ledger(&self, order: Option<&str>) -> Handled {
        let (lines, total) = match lock(&self.store).charges(order) {
            Ok(x) => x,
            Err(e) => return store_failed(&e),
        };
        let charges: Vec<serde_json::Value> = lines
            .iter()
            .map(|c| {
                json!({
                    "id": c.id,
                    "order": c.order,
                    "amount": Cents(c.amount_cents).to_string(),
                    "key": c.key,
                })
            })
            .collect();
        let mut body = json!({ "count": total, "charges": charges });
        if let Some(o) = order {
            body["order"] = json!(o);
        }
        Handled::now(
            Response::new(200, "application/json", body.to_string()),
            format!("200 {total} charge{}", if total == 1 { "" } else { "s" }),
        )
    }
}
