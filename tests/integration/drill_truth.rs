//! The drill against services nobody here wrote, reproduced on loopback: small HTTP servers
//! with the behaviours real idempotency middlewares have, each drilled by the real binary. The
//! design the drill names, its summary, its exit status and the scenario it writes must agree
//! with every row: a row that saw a second effect rules out every design that never makes one.

use crate::common;

use common::{TempDir, idem_command, run_with_timeout, unique_name};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How a test server treats a key it has seen.
#[derive(Clone, Copy)]
enum Behaviour {
    /// A completed repeat with the same body gets 409 carrying the stored answer; nothing
    /// locks a key while it is worked on, and the key is stored with its body, so another
    /// body under a used key is charged anew (as one registry middleware does).
    Conflict409WithBody,
    /// A repeat with the key gets the stored answer, marked with the header `replayed`
    /// writes (`Idempotency-Replayed: true` is a common spelling of the draft's
    /// `Idempotent-Replayed`). The key is stored before the first answer goes, or, when
    /// `after_answer`, `hold` after it has gone (as `idem serve --design log-after-charge`
    /// logs it after answering).
    ReplaysByKey {
        replayed: &'static str,
        after_answer: bool,
    },
    /// One request at a time, answered at once; a completed repeat gets 409 with the stored
    /// answer, a little after the first answer has gone: a fast handler whose 409s answer a
    /// completed request, never one in flight.
    FastSerial409,
    /// Takes only UUID keys: any other key crashes the handler (500), as one registry
    /// middleware does; with a UUID it stores the answer with the key and replays it.
    UuidOnly,
    /// Reads the key as a Structured Field string (quotes are syntax, a bare key is the same
    /// key) and refuses another body under a used key with 417 Expectation Failed, as one
    /// registry middleware does.
    Refuses417,
    /// Keys expire `ttl` after their answer is stored, and a key in progress is answered 409.
    Expiring { ttl: Duration, bug: ExpiryBug },
    /// Every answer is 200 with a body of 10 MB, the same every time.
    HugeBody,
    /// Every answer declares a body of a gigabyte and sends a byte of it every 100 ms.
    EndlessBody,
    /// Every answer is `307 Temporary Redirect` to /v2/charges.
    Redirect307,
    /// Answers the first request at once and never answers another: the connection stays
    /// open, silent, until the drill gives up on it.
    FirstThenHang,
    /// Every answer carries the status 999, which is no HTTP status, and the same body.
    Status999,
    /// One request at a time is charged (a lock around look-up, charge and store); the
    /// answer is stored, then sent `hold` later, and a repeat that finds it stored gets 409
    /// with that answer at once. So its 409s come back before the first 201 while answering a
    /// request already completed: no sign of a conflict in flight.
    StoresBeforeSending,
    /// A repeat of a key in progress waits until the first request is done (which takes
    /// `hold`), then gets the first's answer: held and replayed, no 409.
    HoldsAndReplays,
    /// Takes only keys of `[A-Za-z0-9._~:-]`, as one registry middleware does: a key in
    /// quotes is refused with 400 "Invalid Idempotency-Key". A request without a key is
    /// charged. Otherwise it stores the answer with the key and replays it.
    BareTokensOnly,
    /// Charges a key's first request, then refuses every later one with 422, repeats with
    /// the same body included: it hashes the payload one way when it stores it and another
    /// when it reads it back (a real bug). Requests that overlap the first get 409. It
    /// charges each key once, however the replay row reads.
    HashesWrongly,
    /// Replays a key's stored answer, but makes two charges for every new request (as a
    /// framework hook that runs the route twice does); `GET` lists every charge made, as
    /// `{"count": n, "charges": [...]}`, for `--read-back`.
    ChargesEachTwice,
}

/// A service that replays by key and marks a replay `Idempotency-Replayed: true`.
const MISSPELT_REPLAYS: Behaviour = Behaviour::ReplaysByKey {
    replayed: "Idempotency-Replayed: true\r\n",
    after_answer: false,
};

/// What an expiring store gets wrong once a key has expired.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ExpiryBug {
    /// Nothing: an expired key is taken on anew, once.
    None,
    /// An expired key is processed without being marked in progress, so requests that come
    /// together after the expiry are each charged.
    RaceAfterExpiry,
    /// The in-progress mark is never cleared, so once the answer expires the key is refused
    /// for ever.
    PendingForever,
}

/// An expiring store's entry for a key.
#[derive(Clone)]
enum Entry {
    Pending,
    Done(String, std::time::Instant),
}

struct TestServer {
    addr: String,
    charges: Arc<AtomicU32>,
    /// Every charge made, by the key header as it came (quotes and all) and the body.
    ledger: Ledger,
    stop: Arc<AtomicBool>,
}

type Ledger = Arc<Mutex<HashMap<(String, String), u32>>>;

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the stop.
        let _ = TcpStream::connect(&self.addr);
    }
}

/// One request, read whole: the Idempotency-Key header (if any) and the body.
fn read_request(stream: &mut TcpStream) -> Option<(String, Option<String>, String)> {
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > 64 * 1024 {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.lines();
    let method = lines.next()?.split_whitespace().next()?.to_string();
    let mut key = None;
    let mut length = 0usize;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "idempotency-key" => key = Some(value.trim().to_string()),
                "content-length" => length = value.trim().parse().unwrap_or(0),
                _ => {}
            }
        }
    }
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..]).to_string();
    Some((method, key, body))
}

fn answer(stream: &mut TcpStream, status: u16, body: &str) {
    answer_with(stream, status, body, "");
}

fn answer_with(stream: &mut TcpStream, status: u16, body: &str, extra: &str) {
    let reason = match status {
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        409 => "Conflict",
        417 => "Expectation Failed",
        _ => "Other",
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn start(behaviour: Behaviour, hold: Duration) -> TestServer {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let addr = listener.local_addr().expect("its address").to_string();
    let charges = Arc::new(AtomicU32::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    // Completed keys: the key and body, with the answer stored for them.
    let done: Arc<Mutex<HashMap<(String, String), String>>> = Arc::default();
    let entries: Arc<Mutex<HashMap<(String, String), Entry>>> = Arc::default();
    let ledger: Ledger = Arc::default();
    let (c, s, l) = (charges.clone(), stop.clone(), ledger.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            if s.load(Ordering::SeqCst) {
                break;
            }
            let Ok(mut stream) = stream else { continue };
            let (c, done, entries, l) = (c.clone(), done.clone(), entries.clone(), l.clone());
            std::thread::spawn(move || {
                let Some((method, key, body)) = read_request(&mut stream) else {
                    return;
                };
                let entry = (key.clone().unwrap_or_default(), body.clone());
                // Makes a charge: counted, and written to the ledger under its key and body.
                let charge = || {
                    *l.lock()
                        .expect("the ledger")
                        .entry(entry.clone())
                        .or_default() += 1;
                    c.fetch_add(1, Ordering::SeqCst) + 1
                };
                match behaviour {
                    Behaviour::HugeBody => {
                        let _ = write!(
                            stream,
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            10 * 1024 * 1024
                        );
                        let block = [b'x'; 64 * 1024];
                        for _ in 0..160 {
                            if stream.write_all(&block).is_err() {
                                return;
                            }
                        }
                        return;
                    }
                    Behaviour::EndlessBody => {
                        let _ = stream.write_all(
                            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\nConnection: close\r\n\r\n{",
                        );
                        for _ in 0..200 {
                            std::thread::sleep(Duration::from_millis(100));
                            if stream.write_all(b" ").is_err() {
                                return;
                            }
                        }
                        return;
                    }
                    Behaviour::Redirect307 => {
                        let _ = stream.write_all(
                            b"HTTP/1.1 307 Temporary Redirect\r\nLocation: /v2/charges\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                        );
                        return;
                    }
                    Behaviour::FirstThenHang => {
                        if c.fetch_add(1, Ordering::SeqCst) == 0 {
                            answer(&mut stream, 201, r#"{"id":"ch_1"}"#);
                        } else {
                            std::thread::sleep(Duration::from_secs(20));
                        }
                        return;
                    }
                    Behaviour::Status999 => {
                        let _ = stream.write_all(
                            b"HTTP/1.1 999 Odd\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                        );
                        return;
                    }
                    _ => {}
                }
                if method != "POST" && matches!(behaviour, Behaviour::ChargesEachTwice) {
                    let n = c.load(Ordering::SeqCst);
                    let ids: Vec<String> =
                        (1..=n).map(|i| format!(r#"{{"id":"ch_{i}"}}"#)).collect();
                    let list = format!(r#"{{"count":{n},"charges":[{}]}}"#, ids.join(","));
                    answer(&mut stream, 200, &list);
                    return;
                }
                if method != "POST" {
                    answer(&mut stream, 200, "{}");
                    return;
                }
                match behaviour {
                    Behaviour::HugeBody
                    | Behaviour::EndlessBody
                    | Behaviour::Redirect307
                    | Behaviour::FirstThenHang
                    | Behaviour::Status999 => {}
                    Behaviour::HashesWrongly => {
                        let key = key.unwrap_or_default();
                        let slot = (key, "hashed".to_string());
                        let mut store = entries.lock().expect("the store");
                        match store.get(&slot) {
                            Some(Entry::Pending) => {
                                drop(store);
                                answer(&mut stream, 409, r#"{"error":"in progress"}"#);
                                return;
                            }
                            Some(Entry::Done(..)) => {
                                drop(store);
                                answer(
                                    &mut stream,
                                    422,
                                    r#"{"error":"payload does not match the key"}"#,
                                );
                                return;
                            }
                            None => {
                                store.insert(slot.clone(), Entry::Pending);
                            }
                        }
                        drop(store);
                        std::thread::sleep(hold);
                        let n = charge();
                        let made = format!(r#"{{"id":"ch_{n}"}}"#);
                        entries
                            .lock()
                            .expect("the store")
                            .insert(slot, Entry::Done(made.clone(), std::time::Instant::now()));
                        answer(&mut stream, 201, &made);
                    }
                    Behaviour::ChargesEachTwice => {
                        let slot = (key.unwrap_or_default(), String::new());
                        let mut store = done.lock().expect("the store");
                        if let Some(stored) = store.get(&slot).cloned() {
                            drop(store);
                            answer(&mut stream, 201, &stored);
                            return;
                        }
                        charge();
                        let n = charge();
                        let made = format!(r#"{{"id":"ch_{n}"}}"#);
                        store.insert(slot, made.clone());
                        drop(store);
                        answer(&mut stream, 201, &made);
                    }
                    Behaviour::StoresBeforeSending => {
                        let key = key.unwrap_or_default();
                        let mut store = done.lock().expect("the store");
                        if let Some(stored) = store.get(&(key.clone(), String::new())).cloned() {
                            drop(store);
                            answer(&mut stream, 409, &stored);
                            return;
                        }
                        let n = charge();
                        let made = format!(r#"{{"id":"ch_{n}"}}"#);
                        store.insert((key, String::new()), made.clone());
                        drop(store);
                        std::thread::sleep(hold);
                        answer(&mut stream, 201, &made);
                    }
                    Behaviour::HoldsAndReplays => {
                        let slot = (key.unwrap_or_default(), "held".to_string());
                        let mut first = false;
                        loop {
                            let mut store = entries.lock().expect("the store");
                            match store.get(&slot) {
                                Some(Entry::Done(body, _)) => {
                                    let body = body.clone();
                                    drop(store);
                                    answer(&mut stream, 201, &body);
                                    return;
                                }
                                Some(Entry::Pending) => {}
                                None => {
                                    store.insert(slot.clone(), Entry::Pending);
                                    first = true;
                                }
                            }
                            drop(store);
                            if first {
                                break;
                            }
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        std::thread::sleep(hold);
                        let n = charge();
                        let made = format!(r#"{{"id":"ch_{n}"}}"#);
                        entries
                            .lock()
                            .expect("the store")
                            .insert(slot, Entry::Done(made.clone(), std::time::Instant::now()));
                        answer(&mut stream, 201, &made);
                    }
                    Behaviour::BareTokensOnly => {
                        let Some(key) = key else {
                            let n = charge();
                            answer(&mut stream, 201, &format!(r#"{{"id":"ch_{n}"}}"#));
                            return;
                        };
                        let token = !key.is_empty()
                            && key
                                .chars()
                                .all(|ch| ch.is_ascii_alphanumeric() || "._~:-".contains(ch));
                        if !token {
                            answer(&mut stream, 400, r#"{"error":"Invalid Idempotency-Key"}"#);
                            return;
                        }
                        let mut store = done.lock().expect("the store");
                        if let Some(stored) = store.get(&(key.clone(), String::new())).cloned() {
                            drop(store);
                            answer(&mut stream, 201, &stored);
                            return;
                        }
                        let n = charge();
                        let made = format!(r#"{{"id":"ch_{n}"}}"#);
                        store.insert((key, String::new()), made.clone());
                        answer(&mut stream, 201, &made);
                    }
                    Behaviour::Expiring { ttl, bug } => {
                        let key = key.unwrap_or_default();
                        let slot = (key.clone(), "expiring".to_string());
                        let now = std::time::Instant::now();
                        let mut store = entries.lock().expect("the store");
                        let fresh_start = match store.get(&slot) {
                            Some(Entry::Done(body, at)) if now.duration_since(*at) < ttl => {
                                let body = body.clone();
                                drop(store);
                                answer_with(
                                    &mut stream,
                                    201,
                                    &body,
                                    "Idempotent-Replayed: true\r\n",
                                );
                                return;
                            }
                            Some(Entry::Pending) => {
                                drop(store);
                                answer(&mut stream, 409, r#"{"error":"in progress"}"#);
                                return;
                            }
                            Some(Entry::Done(..)) if bug == ExpiryBug::PendingForever => {
                                drop(store);
                                answer(&mut stream, 409, r#"{"error":"in progress"}"#);
                                return;
                            }
                            Some(Entry::Done(..)) => false,
                            None => true,
                        };
                        if fresh_start || bug != ExpiryBug::RaceAfterExpiry {
                            store.insert(slot.clone(), Entry::Pending);
                        }
                        drop(store);
                        std::thread::sleep(hold);
                        let n = charge();
                        let made = format!(r#"{{"id":"ch_{n}"}}"#);
                        entries
                            .lock()
                            .expect("the store")
                            .insert(slot, Entry::Done(made.clone(), std::time::Instant::now()));
                        answer(&mut stream, 201, &made);
                    }
                    Behaviour::Refuses417 => {
                        let Some(key) = key else {
                            answer(&mut stream, 400, r#"{"error":"key required"}"#);
                            return;
                        };
                        let key = key.trim_matches('"').to_string();
                        let mut store = done.lock().expect("the store");
                        let stored = store.iter().find(|((k, _), _)| *k == key);
                        match stored {
                            Some(((_, b), answer_body)) if *b == body => {
                                let answer_body = answer_body.clone();
                                drop(store);
                                answer_with(
                                    &mut stream,
                                    201,
                                    &answer_body,
                                    "Idempotent-Replayed: true\r\n",
                                );
                            }
                            Some(_) => {
                                drop(store);
                                answer(&mut stream, 417, r#"{"error":"body differs"}"#);
                            }
                            None => {
                                let n = charge();
                                let made = format!(r#"{{"id":"ch_{n}"}}"#);
                                store.insert((key, body), made.clone());
                                answer(&mut stream, 201, &made);
                            }
                        }
                    }
                    Behaviour::UuidOnly => {
                        let Some(key) = key else {
                            answer(&mut stream, 400, r#"{"error":"key required"}"#);
                            return;
                        };
                        let bare = key.trim_matches('"');
                        let uuid = bare.len() == 36
                            && bare.chars().enumerate().all(|(i, ch)| {
                                if [8, 13, 18, 23].contains(&i) {
                                    ch == '-'
                                } else {
                                    ch.is_ascii_hexdigit()
                                }
                            });
                        if !uuid {
                            answer(&mut stream, 500, r#"{"error":"internal"}"#);
                            return;
                        }
                        let mut store = done.lock().expect("the store");
                        if let Some(stored) = store.get(&(bare.to_string(), String::new())).cloned()
                        {
                            drop(store);
                            answer_with(&mut stream, 201, &stored, "Idempotent-Replayed: true\r\n");
                            return;
                        }
                        let n = charge();
                        let made = format!(r#"{{"id":"ch_{n}"}}"#);
                        store.insert((bare.to_string(), String::new()), made.clone());
                        answer(&mut stream, 201, &made);
                    }
                    Behaviour::FastSerial409 => {
                        let key = key.unwrap_or_default();
                        let mut store = done.lock().expect("the store");
                        let stored = store.get(&(key.clone(), body.clone())).cloned();
                        if let Some(stored) = stored {
                            drop(store);
                            std::thread::sleep(Duration::from_millis(50));
                            answer(&mut stream, 409, &stored);
                            return;
                        }
                        let n = charge();
                        let made = format!(r#"{{"id":"ch_{n}"}}"#);
                        store.insert((key, body), made.clone());
                        answer(&mut stream, 201, &made);
                    }
                    Behaviour::ReplaysByKey {
                        replayed,
                        after_answer,
                    } => {
                        let slot = (key.unwrap_or_default(), String::new());
                        let stored = done.lock().expect("the store").get(&slot).cloned();
                        if let Some(stored) = stored {
                            answer_with(&mut stream, 201, &stored, replayed);
                            return;
                        }
                        let n = charge();
                        let made = format!(r#"{{"id":"ch_{n}"}}"#);
                        if after_answer {
                            answer(&mut stream, 201, &made);
                            drop(stream);
                            std::thread::sleep(hold);
                            done.lock().expect("the store").insert(slot, made);
                        } else {
                            done.lock().expect("the store").insert(slot, made.clone());
                            answer(&mut stream, 201, &made);
                        }
                    }
                    Behaviour::Conflict409WithBody => {
                        let Some(key) = key else {
                            answer(&mut stream, 400, r#"{"error":"Idempotency-Key required"}"#);
                            return;
                        };
                        let stored = done
                            .lock()
                            .expect("the store")
                            .get(&(key.clone(), body.clone()))
                            .cloned();
                        if let Some(stored) = stored {
                            answer(&mut stream, 409, &stored);
                            return;
                        }
                        std::thread::sleep(hold);
                        let n = charge();
                        let made = format!(r#"{{"id":"ch_{n}","status":"succeeded"}}"#);
                        done.lock()
                            .expect("the store")
                            .insert((key, body), made.clone());
                        answer(&mut stream, 201, &made);
                    }
                }
            });
        }
    });
    TestServer {
        addr,
        charges,
        ledger,
        stop,
    }
}

fn drill(args: &[&str]) -> std::process::Output {
    let mut all = vec!["drill"];
    all.extend_from_slice(args);
    run_with_timeout(idem_command(&all), "idem drill", Duration::from_secs(60))
}

fn rows(v: &Value) -> HashMap<String, String> {
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["check"].as_str().unwrap_or_default().to_string(),
                r["verdict"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Designs that never make a second effect for one key where the drill looks.
const ONE_EFFECT: [&str; 3] = ["with-charge", "log-before-charge", "inprogress-record"];

#[test]
fn a_409_with_the_stored_body_and_five_charges_is_never_called_safe() {
    let server = start(Behaviour::Conflict409WithBody, Duration::from_millis(300));
    let url = format!("http://{}/charges", server.addr);
    let dir = std::env::temp_dir().join(unique_name("drill-truth"));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let scenario = dir.join("drilled.toml");
    let out = drill(&[
        &url,
        "--json",
        "--scenario",
        scenario.to_str().expect("a UTF-8 path"),
    ]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&out.stderr)));
    let rows = rows(&v);
    // The rows saw the second effects: the overlap each charged, the reused key charged.
    assert_eq!(rows["concurrent"], "fail", "{}", v["rows"]);
    assert_eq!(rows["key-reuse"], "fail", "{}", v["rows"]);
    assert!(server.charges.load(Ordering::SeqCst) >= 3);
    // So nothing may say it keeps one charge.
    let nearest = v["nearest_design"]["id"].as_str().unwrap_or_default();
    assert!(
        !ONE_EFFECT.contains(&nearest),
        "named {nearest}: {}",
        v["nearest_design"]
    );
    assert_eq!(v["summary"]["conforms"], false);
    assert_eq!(out.status.code(), Some(1));
    // The scenario it writes tells a story with more than one charge, and idem check agrees.
    let written = std::fs::read_to_string(&scenario).expect("the scenario was written");
    assert!(
        written.contains(&format!("it behaves like {nearest}")),
        "{written}"
    );
    let check = run_with_timeout(
        idem_command(&["run", scenario.to_str().unwrap_or_default(), "--json"]),
        "idem run",
        Duration::from_secs(30),
    );
    let run: Value = serde_json::from_slice(&check.stdout).expect("the run's JSON");
    assert!(
        run["charges"].as_u64().unwrap_or(0) > 1,
        "{}",
        run["verdict"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A service that stores a key just after answering (20 ms here) is given the moment a
/// client would take before retrying: the drill's retry finds the key stored and the answer
/// replayed, rather than racing the store.
#[test]
fn the_retry_waits_for_a_service_that_stores_the_key_just_after_answering() {
    let server = start(
        Behaviour::ReplaysByKey {
            replayed: "Idempotent-Replayed: true\r\n",
            after_answer: true,
        },
        Duration::from_millis(20),
    );
    let url = format!("http://{}/charges", server.addr);
    let out = drill(&[&url, "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&out.stderr)));
    let replay = row_of(&v, "replay");
    assert_eq!(replay["verdict"], "pass", "{replay}");
}

#[test]
fn a_replay_marked_with_another_spelling_of_the_header_is_called_marked() {
    let server = start(MISSPELT_REPLAYS, Duration::ZERO);
    let url = format!("http://{}/charges", server.addr);
    let out = drill(&[&url, "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&out.stderr)));
    let replay = v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["check"] == "replay")
        .expect("the replay row");
    assert_eq!(replay["verdict"], "pass", "{replay}");
    let seen = replay["seen"].as_str().unwrap_or_default();
    assert!(seen.contains("marked as a replay"), "{seen}");
}

/// The row named `check`, whole.
fn row_of(v: &Value, check: &str) -> Value {
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["check"] == check)
        .unwrap_or_else(|| panic!("no {check} row: {}", v["rows"]))
        .clone()
}

#[test]
fn a_quoted_key_passes_key_syntax_only_when_it_was_read_as_syntax() {
    // This server keeps the field as written, quotes and all: the same key sent bare is a
    // new key to it, and a new charge.
    let literal = start(MISSPELT_REPLAYS, Duration::ZERO);
    let out = drill(&[&format!("http://{}/charges", literal.addr), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let row = row_of(&v, "key-syntax");
    assert_eq!(row["verdict"], "variant", "{row}");
    let seen = row["seen"].as_str().unwrap_or_default();
    assert!(seen.contains("kept as part of the key"), "{seen}");
    // This one parses it: the bare key gets the first answer back.
    let parsing = start(Behaviour::Refuses417, Duration::ZERO);
    let out = drill(&[&format!("http://{}/charges", parsing.addr), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let row = row_of(&v, "key-syntax");
    assert_eq!(row["verdict"], "pass", "{row}");
    let seen = row["seen"].as_str().unwrap_or_default();
    assert!(seen.contains("read as syntax"), "{seen}");
}

#[test]
fn a_417_refusal_is_named_and_counted_a_refusal() {
    let server = start(Behaviour::Refuses417, Duration::ZERO);
    let out = drill(&[&format!("http://{}/charges", server.addr), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let row = row_of(&v, "key-reuse");
    assert_eq!(row["verdict"], "variant", "{row}");
    let seen = row["seen"].as_str().unwrap_or_default();
    assert!(
        seen.contains("417 Expectation Failed") && seen.contains("refused"),
        "{seen}"
    );
    // One charge for each key the drill used (the replay's, the race's, the bare and the
    // long key): the refusal made none.
    assert_eq!(server.charges.load(Ordering::SeqCst), 4, "{}", v["rows"]);
}

#[test]
fn a_fast_handler_s_409s_are_not_taken_for_conflicts_in_flight() {
    let server = start(Behaviour::FastSerial409, Duration::ZERO);
    let url = format!("http://{}/charges", server.addr);
    let out = drill(&[&url, "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&out.stderr)));
    let row = v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["check"] == "concurrent")
        .expect("the concurrent row")
        .clone();
    assert_eq!(row["verdict"], "not-run", "{row}");
    let seen = row["seen"].as_str().unwrap_or_default();
    assert!(
        seen.contains("not tested") && seen.contains("slower handler"),
        "{seen}"
    );
}

#[test]
fn an_endpoint_that_takes_only_uuids_is_told_so_first_and_nothing_else_is_judged() {
    let server = start(Behaviour::UuidOnly, Duration::ZERO);
    let url = format!("http://{}/charges", server.addr);
    let out = drill(&[&url, "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&out.stderr)));
    let all = v["rows"].as_array().expect("rows");
    assert_eq!(all[0]["check"], "key-format", "{}", v["rows"]);
    assert_eq!(all[0]["verdict"], "fail");
    assert!(
        all[0]["seen"]
            .as_str()
            .unwrap_or_default()
            .contains("--key-format uuid"),
        "{}",
        all[0]
    );
    for r in &all[1..] {
        assert_eq!(r["verdict"], "not-run", "{r}");
    }
    assert!(v["nearest_design"].is_null(), "{}", v["nearest_design"]);
    assert_eq!(out.status.code(), Some(1));
    // With UUIDs it is drilled as it is: replays pass, and the key-format row is gone.
    let out = drill(&[&url, "--json", "--key-format", "uuid"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rows = rows(&v);
    assert!(!rows.contains_key("key-format"), "{}", v["rows"]);
    assert_eq!(rows["replay"], "pass", "{}", v["rows"]);
}

/// The after-expiry row for a store whose keys live 1 s, drilled with a wait of 1.5 s.
fn after_expiry_row(bug: ExpiryBug) -> Value {
    let server = start(
        Behaviour::Expiring {
            ttl: Duration::from_secs(1),
            bug,
        },
        Duration::from_millis(300),
    );
    let url = format!("http://{}/charges", server.addr);
    let out = drill(&[&url, "--json", "--expiry-wait", "1500ms"]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&out.stderr)));
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["check"] == "after-expiry")
        .expect("the after-expiry row")
        .clone()
}

#[test]
fn after_expiry_a_key_is_processed_anew_once_and_the_two_expiry_bugs_fail() {
    std::thread::scope(|scope| {
        let right = scope.spawn(|| after_expiry_row(ExpiryBug::None));
        let race = scope.spawn(|| after_expiry_row(ExpiryBug::RaceAfterExpiry));
        let stuck = scope.spawn(|| after_expiry_row(ExpiryBug::PendingForever));
        let right = right.join().expect("the correct store");
        assert_eq!(right["verdict"], "pass", "{right}");
        let race = race.join().expect("the racing store");
        assert_eq!(race["verdict"], "fail", "{race}");
        assert!(
            race["seen"]
                .as_str()
                .unwrap_or_default()
                .contains("several"),
            "{race}"
        );
        let stuck = stuck.join().expect("the stuck store");
        assert_eq!(stuck["verdict"], "fail", "{stuck}");
        assert!(
            stuck["seen"]
                .as_str()
                .unwrap_or_default()
                .contains("refused"),
            "{stuck}"
        );
    });
}

#[test]
fn an_expiry_wait_that_does_not_fit_is_refused_before_anything_is_sent() {
    let out = drill(&["http://127.0.0.1:9/charges", "--expiry-wait", "2m"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-time"));
    let out = drill(&[
        "http://127.0.0.1:9/charges",
        "--expiry-wait",
        "10s",
        "--expiry",
        "1m",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("longer than the expiry"));
}

/// The replay row of a drill of `behaviour` with `extra` flags, and the report's text.
fn replay_row_of(behaviour: Behaviour, extra: &[&str]) -> (Value, String) {
    let (v, text) = drilled(behaviour, extra);
    (row_of(&v, "replay"), text)
}

/// The JSON report of a drill of `behaviour` with `extra` flags, and the report's text.
fn drilled(behaviour: Behaviour, extra: &[&str]) -> (Value, String) {
    let server = start(behaviour, Duration::ZERO);
    let url = format!("http://{}/charges", server.addr);
    let mut args = vec![url.as_str()];
    args.extend_from_slice(extra);
    let text = drill(&args);
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    args.push("--json");
    let out = drill(&args);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&out.stderr)));
    (v, text)
}

/// A body that was cut at the bound, or never ended, is not "the same body": the row says
/// what happened, and does not pass.
#[test]
fn a_body_too_long_or_endless_is_no_replay() {
    std::thread::scope(|scope| {
        let huge = scope.spawn(|| {
            let (v, text) = drilled(Behaviour::HugeBody, &["--max-time", "10s"]);
            // Five cut bodies alike say nothing of how many charges were made either.
            let concurrent = row_of(&v, "concurrent");
            assert_ne!(concurrent["verdict"], "pass", "{concurrent}");
            (row_of(&v, "replay"), text)
        });
        let endless = scope.spawn(|| {
            replay_row_of(
                Behaviour::EndlessBody,
                &["--timeout", "500ms", "--max-time", "3s"],
            )
        });
        for (what, (row, text), want) in [
            (
                "10 MB",
                huge.join().expect("the huge body"),
                "cut at the bound",
            ),
            (
                "endless",
                endless.join().expect("the endless body"),
                "then it timed out",
            ),
        ] {
            let seen = row["seen"].as_str().unwrap_or_default();
            assert_eq!(row["verdict"], "fail", "{what}: {row}");
            assert!(
                seen.contains("could not be read whole") && seen.contains(want),
                "{what}: {seen}"
            );
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with("replay"))
                .unwrap_or_default();
            assert!(!text.contains("the same body"), "{what}: {text}");
            assert!(line.contains("FAIL"), "{what}: {text}");
        }
    });
}

/// A redirect is not a replay: the row names it, and where it points.
#[test]
fn a_redirect_is_no_replay() {
    let (row, text) = replay_row_of(Behaviour::Redirect307, &[]);
    assert_eq!(row["verdict"], "fail", "{row}");
    let seen = row["seen"].as_str().unwrap_or_default();
    assert!(
        seen.contains("redirected (307 Temporary Redirect to /v2/charges)"),
        "{seen}"
    );
    assert!(!text.contains("the same body"), "{text}");
}

/// A drill that exercised no MUST row does not exit as a pass: a server that answers the first
/// request and then hangs leaves the MUST rows unexercised, and the status and the summary say
/// so.
#[test]
fn a_drill_that_exercised_no_must_row_exits_with_its_own_status() {
    let run = |json: bool| {
        let server = start(Behaviour::FirstThenHang, Duration::ZERO);
        let url = format!("http://{}/charges", server.addr);
        let mut args = vec![url.as_str(), "--timeout", "1s", "--max-time", "8s"];
        if json {
            args.push("--json");
        }
        drill(&args)
    };
    let out = run(true);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["summary"]["conforms"], false, "{}", v["rows"]);
    assert!(
        v["summary"]["must_unexercised"]
            .as_u64()
            .is_some_and(|n| n > 0),
        "{}",
        v["summary"]
    );
    assert_eq!(out.status.code(), Some(3), "{}", v["rows"]);
    let out = run(false);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("No requirement failed"), "{text}");
    assert!(text.contains("could not be exercised"), "{text}");
    assert_eq!(out.status.code(), Some(3), "{text}");
}

/// Two answers with a status no HTTP server gives (999) are not a replay, however alike.
#[test]
fn a_status_outside_http_is_never_a_replay_pass() {
    let (row, _) = replay_row_of(Behaviour::Status999, &[]);
    assert_ne!(row["verdict"], "pass", "{row}");
    assert!(
        row["seen"].as_str().is_some_and(|s| s.contains("999")),
        "{row}"
    );
}

fn drilled_with_hold(behaviour: Behaviour, hold: Duration, extra: &[&str]) -> Value {
    let server = start(behaviour, hold);
    let url = format!("http://{}/charges", server.addr);
    let mut args = vec![url.as_str(), "--json"];
    args.extend_from_slice(extra);
    let out = drill(&args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&out.stderr)))
}

/// A server that stores its answer before sending it answers the repeats with 409 and that
/// answer, ahead of the first 201: those 409s answered a completed request, so the
/// concurrency row was not tested, whatever the order the answers came back in.
#[test]
fn a_409_carrying_the_stored_answer_never_passes_the_concurrency_row() {
    for _ in 0..3 {
        let v = drilled_with_hold(
            Behaviour::StoresBeforeSending,
            Duration::from_millis(60),
            &[],
        );
        let row = row_of(&v, "concurrent");
        assert_eq!(row["verdict"], "not-run", "{row}");
        let seen = row["seen"].as_str().unwrap_or_default();
        assert!(seen.contains("already completed"), "{seen}");
    }
}

/// Repeats held until the first finished, then answered with its answer, all open together
/// for half a second: a pass named for what it is, from the drill's own timings.
#[test]
fn repeats_held_and_replayed_are_named_from_the_timings() {
    let v = drilled_with_hold(Behaviour::HoldsAndReplays, Duration::from_millis(500), &[]);
    let row = row_of(&v, "concurrent");
    assert_eq!(row["verdict"], "pass", "{row}");
    let seen = row["seen"].as_str().unwrap_or_default();
    assert!(
        seen.contains("held until the first finished, then replayed")
            && seen.contains("were open together for"),
        "{seen}"
    );
    // The JSON carries each exchange with its times, so the row can be judged again.
    let race: Vec<&Value> = v["exchanges"]
        .as_array()
        .expect("exchanges")
        .iter()
        .filter(|e| e["step"] == "concurrent")
        .collect();
    assert_eq!(race.len(), 5, "{}", v["exchanges"]);
    let last_left = race
        .iter()
        .filter_map(|e| e["answer"]["times"]["left_us"].as_u64())
        .max()
        .expect("times");
    let first_done = race
        .iter()
        .filter_map(|e| e["answer"]["times"]["done_us"].as_u64())
        .min()
        .expect("times");
    assert!(first_done - last_left > 400_000, "{race:?}");
}

/// An endpoint that takes only bare tokens refuses every quoted key with 400. Drilled with
/// quoted keys, it is told so first and nothing that needs a taken key is judged (two alike
/// 400s are no replay); drilled bare, as clients send keys, it replays, and the key-syntax
/// row fails for the key in quotes it refused.
#[test]
fn an_endpoint_that_refuses_quoted_keys_is_told_so_and_judged_bare() {
    let v = drilled_with_hold(
        Behaviour::BareTokensOnly,
        Duration::ZERO,
        &["--key-syntax", "sf-string"],
    );
    let all = v["rows"].as_array().expect("rows");
    assert_eq!(all[0]["check"], "key-format", "{}", v["rows"]);
    assert_eq!(all[0]["verdict"], "fail");
    let seen = all[0]["seen"].as_str().unwrap_or_default();
    assert!(seen.contains("--key-syntax bare"), "{seen}");
    for r in &all[1..] {
        assert_ne!(r["verdict"], "pass", "{r}");
    }
    assert!(v["nearest_design"].is_null(), "{}", v["nearest_design"]);
    let v = drilled_with_hold(Behaviour::BareTokensOnly, Duration::ZERO, &[]);
    let rows = rows(&v);
    assert!(!rows.contains_key("key-format"), "{}", v["rows"]);
    assert_eq!(rows["replay"], "pass", "{}", v["rows"]);
    assert_eq!(rows["key-syntax"], "fail", "{}", v["rows"]);
    assert_eq!(v["key_syntax"], "bare");
}

/// Every test server of ours, drilled with `--scenario`: when a design is named, its
/// scenario, replayed, charges order 5531 more than once exactly when the server's own ledger
/// shows a repeat charged (the retry after the first completed, or requests sent together),
/// and charges the order that reuses the key exactly when the server charged the used key
/// with another body. When no design makes those charges, none is named and no file written.
#[test]
fn the_design_named_makes_the_charges_the_server_made() {
    let servers: Vec<(&str, Behaviour, u64, Vec<&str>)> = vec![
        ("409 with body", Behaviour::Conflict409WithBody, 300, vec![]),
        ("replays by key", MISSPELT_REPLAYS, 0, vec![]),
        (
            "stores after answering",
            Behaviour::ReplaysByKey {
                replayed: "",
                after_answer: true,
            },
            20,
            vec![],
        ),
        ("fast serial 409", Behaviour::FastSerial409, 0, vec![]),
        (
            "uuid only",
            Behaviour::UuidOnly,
            0,
            vec!["--key-format", "uuid"],
        ),
        ("refuses with 417", Behaviour::Refuses417, 0, vec![]),
        (
            "expiring",
            Behaviour::Expiring {
                ttl: Duration::from_secs(60),
                bug: ExpiryBug::None,
            },
            200,
            vec![],
        ),
        (
            "stores before sending",
            Behaviour::StoresBeforeSending,
            60,
            vec![],
        ),
        ("holds and replays", Behaviour::HoldsAndReplays, 300, vec![]),
        ("bare tokens only", Behaviour::BareTokensOnly, 0, vec![]),
        ("hashes wrongly", Behaviour::HashesWrongly, 300, vec![]),
        ("charges each twice", Behaviour::ChargesEachTwice, 0, vec![]),
    ];
    let dir = TempDir::new("drill-reproduce");
    let mut named = 0;
    for (name, behaviour, hold, extra) in servers {
        let server = start(behaviour, Duration::from_millis(hold));
        let url = format!("http://{}/charges", server.addr);
        let out_file = dir.path().join(format!("{}.toml", name.replace(' ', "-")));
        let out_path = out_file.display().to_string();
        let mut args = vec![url.as_str(), "--json", "--scenario", out_path.as_str()];
        args.extend(extra.iter().copied());
        // Two charges for one request show only in a read-back.
        if matches!(behaviour, Behaviour::ChargesEachTwice) {
            args.extend(["--read-back", url.as_str()]);
        }
        let out = drill(&args);
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", String::from_utf8_lossy(&out.stderr)));
        let step = |which: &str| -> (String, String) {
            let e = v["exchanges"]
                .as_array()
                .expect("exchanges")
                .iter()
                .find(|e| e["step"] == which)
                .unwrap_or_else(|| panic!("{name}: no {which} exchange"));
            (
                e["key"].as_str().unwrap_or_default().to_string(),
                e["body"].as_str().unwrap_or_default().to_string(),
            )
        };
        let ledger = server.ledger.lock().expect("the ledger").clone();
        let charged = |k: &(String, String)| ledger.get(k).copied().unwrap_or(0);
        let (first, reuse, race) = (step("first"), step("key-reuse"), step("concurrent"));
        let again = charged(&first) > 1 || charged(&race) > 1;
        let reused = charged(&reuse) > 0;
        let what = format!("{name}: ledger {ledger:?}\n{}", v["rows"]);
        match v["nearest_design"]["id"].as_str() {
            Some(id) => {
                named += 1;
                let design = idem::sim::Design::ALL
                    .into_iter()
                    .find(|d| d.id() == id)
                    .unwrap_or_else(|| panic!("{what}: no design {id}"));
                let text = std::fs::read_to_string(&out_file)
                    .unwrap_or_else(|e| panic!("{what}: no scenario written: {e}"));
                let scenario = idem::scenario::parse(&out_path, "drill", &text)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let trace = scenario
                    .simulate(design)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let intents = &trace.outcome.intents;
                let first_charges = intents[0].charges;
                if again {
                    assert!(first_charges > 1, "{what}: {id} charges once");
                } else {
                    assert_eq!(first_charges, 1, "{what}: {id}");
                }
                if let Some(second) = intents.get(1) {
                    assert_eq!(second.charges > 0, reused, "{what}: {id}");
                }
            }
            None => {
                assert!(!out_file.exists(), "{what}: a scenario was written");
                assert!(
                    v["no_design_fits"].is_string() || out.status.code() == Some(2),
                    "{what}"
                );
            }
        }
    }
    assert!(named >= 8, "only {named} servers had a design named");
}

/// A service that makes two charges for every new request and replays repeats fails the
/// one-effect row when the read-back counts two more charges after the first request alone,
/// though the retry adds none; and the drill names no design that charges once.
#[test]
fn one_request_that_made_two_charges_fails_one_effect() {
    let server = start(Behaviour::ChargesEachTwice, Duration::ZERO);
    let url = format!("http://{}/charges", server.addr);
    let out = drill(&[&url, "--json", "--read-back", &url]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let row = row_of(&v, "one-effect");
    assert_eq!(row["verdict"], "fail", "{row}");
    assert!(
        row["seen"].as_str().unwrap_or_default().contains("made 2"),
        "{row}"
    );
    assert_ne!(out.status.code(), Some(0));
    if let Some(id) = v["nearest_design"]["id"].as_str() {
        let design = idem::sim::Design::ALL
            .into_iter()
            .find(|d| d.id() == id)
            .expect("a design");
        assert!(
            !matches!(
                design,
                idem::sim::Design::WithCharge | idem::sim::Design::InProgressRecord
            ),
            "{v}"
        );
    }
}

/// `--kept-for` spot-checks a stated retention: a store that forgets after 1 s, said to keep
/// keys 24 h, is caught in 2 s, and the row says the key went earlier than stated; one that
/// keeps its keys passes.
#[test]
fn kept_for_catches_a_key_forgotten_earlier_than_stated() {
    let forgetful = drilled_with_hold(
        Behaviour::Expiring {
            ttl: Duration::from_secs(1),
            bug: ExpiryBug::None,
        },
        Duration::ZERO,
        &["--kept-for", "2s", "--expiry", "24h"],
    );
    let row = row_of(&forgetful, "kept-for");
    assert_eq!(row["verdict"], "fail", "{row}");
    let seen = row["seen"].as_str().unwrap_or_default();
    assert!(
        seen.contains("forgotten within 2 s")
            && seen.contains("earlier than the stated expiry of 24 h"),
        "{seen}"
    );
    let keeper = drilled_with_hold(
        Behaviour::Expiring {
            ttl: Duration::from_secs(60),
            bug: ExpiryBug::None,
        },
        Duration::ZERO,
        &["--kept-for", "1s"],
    );
    let row = row_of(&keeper, "kept-for");
    assert_eq!(row["verdict"], "pass", "{row}");
    assert!(
        row["seen"]
            .as_str()
            .unwrap_or_default()
            .contains("kept at least 1 s"),
        "{row}"
    );
}

/// A store that never forgets and answers a completed repeat 409 with the stored answer: past
/// any wait its key reads "kept at least", never "refused as if still in progress".
#[test]
fn a_key_never_forgotten_reads_kept_not_stuck() {
    let v = drilled_with_hold(
        Behaviour::FastSerial409,
        Duration::ZERO,
        &["--expiry-wait", "1s", "--kept-for", "1s"],
    );
    let after = row_of(&v, "after-expiry");
    assert_ne!(after["verdict"], "fail", "{after}");
    let seen = after["seen"].as_str().unwrap_or_default();
    assert!(
        seen.contains("kept at least 1 s") && !seen.contains("as if still in progress"),
        "{seen}"
    );
    assert_eq!(row_of(&v, "kept-for")["verdict"], "pass");
}
