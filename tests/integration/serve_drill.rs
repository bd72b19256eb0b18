//! `idem serve` and `idem drill` on loopback: the drill's conformance row for every design,
//! a crash between two writes and a restart on the same database, hostile requests, and the
//! drill's limits (loopback only, the plan before the requests, a scenario that reads back).
//! Every test starts its own server on a free port and kills it when done, pass or fail.

use crate::common;

use common::{LIMIT, TempDir, idem_command, run_idem_in, run_with_timeout};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `idem serve`, killed when dropped.
struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    base: String,
    /// Every line it printed after the first.
    lines: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Starts `idem serve --port 0 ARGS` and reads the address from its first line.
    fn start(args: &[&str]) -> Server {
        let mut cmd = Command::new(common::IDEM);
        cmd.args(["serve", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("idem serve starts");
        let stdout = child.stdout.take().expect("piped");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let kept = Arc::clone(&lines);
        std::thread::spawn(move || {
            let mut first = true;
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if first {
                    let _ = tx.send(line);
                    first = false;
                } else {
                    kept.lock().expect("the log").push(line);
                }
            }
        });
        let mut server = Server {
            child,
            base: String::new(),
            lines,
        };
        let first = rx
            .recv_timeout(LIMIT)
            .unwrap_or_else(|_| panic!("idem serve {args:?} printed no address"));
        let base = first
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("the first line is the address: {first}"));
        server.base = base.to_string();
        server
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn addr(&self) -> String {
        self.base.trim_start_matches("http://").to_string()
    }

    /// Waits for the process to end by itself; its exit code.
    fn wait_exit(&mut self) -> Option<i32> {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("waiting on idem serve") {
                return status.code();
            }
            assert!(started.elapsed() < LIMIT, "idem serve did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The lines printed after the first, once one of them holds `needle` (or the time
    /// limit has passed).
    fn said(&self, needle: &str) -> String {
        let started = Instant::now();
        loop {
            let text = self.lines.lock().expect("the log").join("\n");
            if text.contains(needle) || started.elapsed() > LIMIT {
                return text;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn alive(&mut self) -> bool {
        self.child
            .try_wait()
            .expect("waiting on idem serve")
            .is_none()
    }

    fn stderr(&mut self) -> String {
        let mut text = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            let _ = err.read_to_string(&mut text);
        }
        text
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(LIMIT))
        .proxy(None)
        .build()
        .into()
}

/// POSTs a charge of order 5531; its status, body and whether it was marked replayed, or
/// `None` when no answer came.
fn charge(server: &Server, key: Option<&str>, amount: &str) -> Option<(u16, Value, bool)> {
    let mut req = agent().post(server.url("/charges"));
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    let body = format!(r#"{{"order": "5531", "amount": "{amount}"}}"#);
    let mut resp = req.send(body).ok()?;
    let replayed = resp.headers().get("idempotent-replayed").is_some();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().ok()?;
    Some((status, serde_json::from_str(&text).expect("JSON"), replayed))
}

fn charges_of_5531(server: &Server) -> u64 {
    let mut resp = agent()
        .get(server.url("/charges?order=5531"))
        .call()
        .expect("the ledger answers");
    let v: Value =
        serde_json::from_str(&resp.body_mut().read_to_string().expect("a body")).expect("JSON");
    v["count"].as_u64().expect("a count")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn drill(args: &[&str]) -> Output {
    let mut all = vec!["drill"];
    all.extend_from_slice(args);
    run_with_timeout(
        idem_command(&all),
        &format!("idem {all:?}"),
        Duration::from_secs(60),
    )
}

// ---------------------------------------------------------------- the conformance rows

/// Each way of running the server, and what the drill must make of it: replay, concurrent,
/// key-reuse and missing-key, then the design it behaves like.
const ROWS: &[(&[&str], [&str; 4], &str)] = &[
    (
        &["--design", "with-charge"],
        ["pass", "pass", "pass", "pass"],
        "with-charge",
    ),
    (
        &["--design", "log-after-charge"],
        ["pass", "fail", "fail", "fail"],
        "log-after-charge",
    ),
    (
        &["--design", "log-before-charge"],
        ["fail", "fail", "fail", "fail"],
        "log-before-charge",
    ),
    (
        &["--design", "no-key"],
        ["fail", "fail", "fail", "fail"],
        "no-key",
    ),
    (
        &["--design", "content-hash"],
        ["fail", "fail", "fail", "pass"],
        "content-hash",
    ),
    (
        &["--design", "inprogress-record"],
        ["pass", "pass", "fail", "pass"],
        "inprogress-record",
    ),
    (
        &["--no-lock"],
        ["pass", "fail", "pass", "pass"],
        "log-after-charge",
    ),
    (
        &["--no-fingerprint"],
        ["pass", "pass", "fail", "pass"],
        "inprogress-record",
    ),
];

#[test]
fn the_drill_gives_each_design_its_conformance_row() {
    // Each server holds every charge for 300 ms, so the requests sent at once overlap.
    std::thread::scope(|scope| {
        for (args, want, nearest) in ROWS {
            scope.spawn(move || {
                let mut all = vec!["--slow", "300ms"];
                all.extend_from_slice(args);
                let server = Server::start(&all);
                let out = drill(&[&server.url("/charges"), "--json"]);
                let v: Value = serde_json::from_slice(&out.stdout)
                    .unwrap_or_else(|e| panic!("{args:?}: {e}\n{}", text(&out.stderr)));
                let verdict = |check: &str| {
                    v["rows"]
                        .as_array()
                        .expect("rows")
                        .iter()
                        .find(|r| r["check"] == check)
                        .and_then(|r| r["verdict"].as_str())
                        .unwrap_or_else(|| panic!("no row {check}"))
                        .to_string()
                };
                let got: Vec<String> = ["replay", "concurrent", "key-reuse", "missing-key"]
                    .iter()
                    .map(|c| verdict(c))
                    .collect();
                assert_eq!(got, want, "{args:?}: {}", v["rows"]);
                assert_eq!(v["nearest_design"]["id"], *nearest, "{args:?}");
                // Why it is nearest claims only what the drill saw.
                let why = v["nearest_design"]["why"].as_str().unwrap_or_default();
                match *nearest {
                    "with-charge" => assert_eq!(
                        why,
                        "retries are replayed, overlapping ones refused with 409 and a reused key with another body refused",
                        "{args:?}"
                    ),
                    "inprogress-record" => assert!(!why.contains("wait"), "{args:?}: {why}"),
                    _ => {}
                }
                // Whether the quotes were read as syntax shows only where a repeat is
                // recognised by its key.
                let syntax = if ["no-key", "content-hash"].contains(nearest) {
                    "info"
                } else {
                    "pass"
                };
                assert_eq!(verdict("key-syntax"), syntax, "{args:?}");
                let conforms = *want == ["pass"; 4];
                assert_eq!(v["summary"]["conforms"], conforms, "{args:?}");
                assert_eq!(
                    out.status.code(),
                    Some(if conforms { 0 } else { 1 }),
                    "{args:?}"
                );
                // The plan went to standard error before the requests, and the server saw
                // exactly as many requests as it announced.
                let plan = text(&out.stderr);
                assert!(plan.contains("idem drill sends 12 requests"), "{plan}");
                assert_eq!(v["sent"], 12);
            });
        }
    });
}

#[test]
fn a_read_back_sees_the_second_charge_of_no_key() {
    let checks = |server: &Server| {
        let read_back = server.url("/charges?order=5531");
        let out = drill(&[&server.url("/charges"), "--read-back", &read_back, "--json"]);
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let row = v["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r["check"] == "one-effect")
            .cloned()
            .expect("the one-effect row");
        (row["verdict"].clone(), row["seen"].clone())
    };
    let (verdict, seen) = checks(&Server::start(&["--design", "no-key", "--slow", "10ms"]));
    assert_eq!(verdict, "fail", "{seen}");
    assert!(seen.as_str().is_some_and(|s| s.contains("second resource")));
    let (verdict, _) = checks(&Server::start(&["--slow", "10ms"]));
    assert_eq!(verdict, "pass");
}

// ---------------------------------------------------------------- a crash between two writes

/// Charges under `design` with `--crash-between` on a database file, restarts on the same
/// file, retries: the retry's answer and the number of charges.
fn crash_then_retry(design: &str, extra: &[&str]) -> ((u16, Value, bool), u64) {
    let dir = TempDir::new("serve-crash");
    let db = dir.join("shop.db").display().to_string();
    let mut args = vec!["--design", design, "--db", db.as_str(), "--slow", "10ms"];
    args.extend_from_slice(extra);
    let mut first = Server::start(&[args.as_slice(), &["--crash-between"]].concat());
    let answered = charge(&first, Some("\"K7Q4\""), "$48.60");
    assert_eq!(first.wait_exit(), Some(3), "{design}: a crash exits with 3");
    let said = first.stderr();
    assert!(said.contains("crashed"), "{design}: {said}");
    // Under log-after-charge the answer left before the crash; otherwise nothing came back.
    assert_eq!(
        answered.is_some(),
        design == "log-after-charge",
        "{design}: {answered:?}"
    );
    let second = Server::start(&args);
    if design == "inprogress-record" {
        let blocked = charge(&second, Some("\"K7Q4\""), "$48.60").expect("an answer");
        assert_eq!(blocked.0, 409, "the record is still in progress");
        // The test's only wait: the record was made to expire after 1 s.
        std::thread::sleep(Duration::from_millis(1100));
    }
    let retry = charge(&second, Some("\"K7Q4\""), "$48.60").expect("the retry is answered");
    let count = charges_of_5531(&second);
    (retry, count)
}

#[test]
fn with_charge_survives_a_crash_with_one_charge() {
    let ((status, body, replayed), count) = crash_then_retry("with-charge", &[]);
    assert_eq!((status, replayed, count), (200, true, 1), "{body}");
    assert_eq!(body["id"], "ch_1");
}

#[test]
fn log_after_charge_forgets_the_charge_in_a_crash_and_charges_twice() {
    let ((status, body, replayed), count) = crash_then_retry("log-after-charge", &[]);
    assert_eq!((status, replayed, count), (200, false, 2), "{body}");
    assert_eq!(body["id"], "ch_2");
}

#[test]
fn log_before_charge_reports_a_payment_that_never_happened() {
    let ((status, body, replayed), count) = crash_then_retry("log-before-charge", &[]);
    assert_eq!((status, replayed, count), (200, true, 0), "{body}");
    assert_eq!(body["status"], "approved");
}

#[test]
fn an_in_progress_record_blocks_until_it_expires_then_charges_again() {
    let ((status, body, replayed), count) =
        crash_then_retry("inprogress-record", &["--in-progress-expiry", "1s"]);
    assert_eq!((status, replayed, count), (200, false, 2), "{body}");
}

#[test]
fn crash_between_says_what_it_does_where_there_is_no_between() {
    let server = Server::start(&["--design", "no-key", "--crash-between"]);
    let said = server.said("changes nothing");
    assert!(said.contains("changes nothing"), "{said}");
    let server = Server::start(&["--crash-between"]);
    // The design line names --db FILE too, so wait for the note's last words.
    let said = server.said("what survives it");
    assert!(said.contains("one transaction"), "{said}");
    assert!(
        said.contains("give --db FILE to see what survives it"),
        "in memory, a crash forgets all: {said}"
    );
}

// ---------------------------------------------------------------- hostile requests

/// Sends raw bytes and returns the status of the answer (0 when none came).
fn raw(server: &Server, bytes: &[u8]) -> u16 {
    raw_answer(server, bytes)
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

/// Sends raw bytes and returns the whole answer as text (empty when none came).
fn raw_answer(server: &Server, bytes: &[u8]) -> String {
    let mut s = TcpStream::connect(server.addr()).expect("connects");
    s.set_read_timeout(Some(LIMIT)).expect("a timeout");
    // A write may fail once the server has answered and closed; the answer is still there.
    let _ = s.write_all(bytes);
    let _ = s.shutdown(std::net::Shutdown::Write);
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// A body that is not a charge is refused with a link to the page that says what one is, as
/// every refusal a client can mend is.
#[test]
fn an_invalid_body_links_to_its_problem_page() {
    let server = Server::start(&[]);
    let answer = raw_answer(&server, &post("Idempotency-Key: \"k1\"\r\n", b"not json"));
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains("Link: </problems/invalid-body>; rel=\"describedby\""),
        "{answer}"
    );
}

/// A charge of nothing (or less) is no charge: refused as any other invalid body is, and
/// nothing is written to the ledger.
#[test]
fn a_charge_of_zero_or_less_is_an_invalid_body() {
    let server = Server::start(&["--slow", "1ms"]);
    for (n, amount) in ["\"$0.00\"", "\"0\"", "0", "\"$0\"", "-1"]
        .into_iter()
        .enumerate()
    {
        let body = format!(r#"{{"order": "5531", "amount": {amount}}}"#);
        let answer = raw_answer(
            &server,
            &post(&format!("Idempotency-Key: \"z{n}\"\r\n"), body.as_bytes()),
        );
        assert!(answer.starts_with("HTTP/1.1 400"), "{amount}: {answer}");
        assert!(
            answer.contains("Content-Type: application/problem+json")
                && answer.contains("Link: </problems/invalid-body>; rel=\"describedby\"")
                && answer.contains(r#""type":"/problems/invalid-body""#),
            "{amount}: {answer}"
        );
        if amount != "-1" {
            assert!(answer.contains("at least one cent"), "{amount}: {answer}");
        }
    }
    assert_eq!(charges_of_5531(&server), 0);
}

/// Sends raw bytes and returns the answer, waiting at most `limit` for it.
fn raw_answer_within(server: &Server, bytes: &[u8], limit: Duration) -> String {
    let mut s = TcpStream::connect(server.addr()).expect("connects");
    s.set_read_timeout(Some(limit)).expect("a timeout");
    let _ = s.write_all(bytes);
    let _ = s.shutdown(std::net::Shutdown::Write);
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// Opens a connection that sends a request head one byte every 100 ms, never finishing it,
/// for at most 15 s; how long the server let it go on (none if it never stopped it).
fn trickle(addr: String) -> std::thread::JoinHandle<Option<Duration>> {
    std::thread::spawn(move || {
        let mut s = TcpStream::connect(&addr).ok()?;
        let began = Instant::now();
        s.set_read_timeout(Some(Duration::from_millis(100))).ok()?;
        let head = b"POST /charges HTTP/1.1\r\nHost: x\r\nX-Slow: ";
        let mut sink = [0u8; 1024];
        let mut sent = 0;
        while began.elapsed() < Duration::from_secs(15) {
            let byte = head.get(sent).copied().unwrap_or(b'a');
            if s.write_all(&[byte]).is_err() {
                return Some(began.elapsed());
            }
            sent += 1;
            match s.read(&mut sink) {
                // An answer, or the connection closed: the server stopped it.
                Ok(_) => return Some(began.elapsed()),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => return Some(began.elapsed()),
            }
        }
        None
    })
}

/// Slowloris: as many connections as the server has slots, each trickling a request head a
/// byte at a time (so no single read ever waits long), and one more. None holds its slot
/// past --request-timeout, and meanwhile a proper charge is answered within 2 s.
#[test]
fn trickling_connections_hold_no_slot_and_a_charge_still_gets_through() {
    let server = Server::start(&["--slow", "1ms", "--request-timeout", "3s"]);
    let tricklers: Vec<_> = (0..64).map(|_| trickle(server.addr())).collect();
    // Every slot has been taken for longer than a second; one more trickler comes.
    std::thread::sleep(Duration::from_millis(1500));
    let extra = trickle(server.addr());
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    let answer = raw_answer_within(
        &server,
        &post(
            "Idempotency-Key: \"K7Q4\"\r\n",
            br#"{"order": "5531", "amount": "$48.60"}"#,
        ),
        Duration::from_secs(5),
    );
    let took = asked.elapsed();
    eprintln!("a charge among 65 trickling connections was answered in {took:?}");
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "after {took:?}: {answer}"
    );
    assert!(took < Duration::from_secs(2), "the charge took {took:?}");
    let mut longest = Duration::ZERO;
    for t in tricklers.into_iter().chain([extra]) {
        let held = t.join().expect("a trickling connection");
        let held = held.unwrap_or_else(|| panic!("a trickling connection was held 15 s"));
        longest = longest.max(held);
    }
    eprintln!("the longest trickling connection was held {longest:?}");
    // 3 s of --request-timeout, with room for a loaded machine.
    assert!(longest < Duration::from_secs(6), "held {longest:?}");
}

/// `--host` beyond loopback is refused unless --allow-remote, with what it would expose; with
/// it, the server warns of that before it listens.
#[test]
fn serve_listens_beyond_loopback_only_with_allow_remote() {
    for host in ["0.0.0.0", "::", "192.0.2.7", "shop.example"] {
        let out = run_idem_in(None, &["serve", "--host", host, "--port", "0"]);
        assert_eq!(out.status.code(), Some(2), "{host}");
        let err = text(&out.stderr);
        assert!(
            err.starts_with(&format!("error: --host {host} is not a loopback address"))
                && err.contains("--allow-remote")
                && err.contains("read the ledger"),
            "{host}: {err}"
        );
        assert!(out.stdout.is_empty(), "{host}");
    }
    // An address of no interface here: warned of, then it cannot listen.
    let out = run_idem_in(
        None,
        &[
            "serve",
            "--host",
            "192.0.2.7",
            "--port",
            "0",
            "--allow-remote",
        ],
    );
    let err = text(&out.stderr);
    assert!(
        err.starts_with("warning: --host 192.0.2.7 is not loopback: anyone who can reach it"),
        "{err}"
    );
    assert!(err.contains("error: cannot listen on 192.0.2.7"), "{err}");
    // Loopback needs nothing.
    for host in ["::1", "localhost", "127.0.0.2"] {
        let server = Server::start(&["--host", host]);
        assert!(server.base.starts_with("http://"), "{host}");
    }
}

fn post(headers: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "POST /charges HTTP/1.1\r\nHost: x\r\n{headers}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

#[test]
fn hostile_headers_and_bodies_get_a_4xx_and_the_server_lives_on() {
    let mut server = Server::start(&["--slow", "1ms"]);
    let good = br#"{"order": "5531", "amount": "$48.60"}"#;
    let key = "Idempotency-Key: \"K7Q4\"\r\n";
    let many_headers: String = (0..200).map(|i| format!("X-{i}: y\r\n")).collect();
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        (
            "a terabyte declared, nothing sent",
            b"POST /charges HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n".to_vec(),
            413,
        ),
        (
            "a length too large for any number",
            b"POST /charges HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n".to_vec(),
            400,
        ),
        ("a body of 100 KB", post(key, &vec![b'x'; 100_000]), 413),
        (
            "a header line of 20 KB",
            post(&format!("X-Big: {}\r\n", "a".repeat(20_000)), good),
            431,
        ),
        ("200 header lines", post(&many_headers, good), 431),
        (
            "a control character in a header",
            post("Idempotency-Key: \"a\u{1}b\"\r\n", good),
            400,
        ),
        (
            "a key that is not text",
            {
                let mut b = b"POST /charges HTTP/1.1\r\nIdempotency-Key: \"\xff\xfe\"\r\n".to_vec();
                b.extend_from_slice(format!("Content-Length: {}\r\n\r\n", good.len()).as_bytes());
                b.extend_from_slice(good);
                b
            },
            400,
        ),
        (
            "a key of 7,000 characters",
            post(
                &format!("Idempotency-Key: \"{}\"\r\n", "k".repeat(7000)),
                good,
            ),
            400,
        ),
        (
            "two keys",
            post("Idempotency-Key: \"a\"\r\nIdempotency-Key: \"b\"\r\n", good),
            400,
        ),
        (
            "a bare key with a space in it",
            post("Idempotency-Key: K7 Q4\r\n", good),
            400,
        ),
        (
            "a bare key with a mark no client sends",
            post("Idempotency-Key: K7(Q4)\r\n", good),
            400,
        ),
        (
            "a request line of garbage",
            b"GARBAGE\x01\r\n\r\n".to_vec(),
            400,
        ),
        ("a body that is not JSON", post(key, b"{\"order\": "), 400),
        (
            "control characters in the body",
            post(key, b"{\"order\": \"a\\u0007\", \"amount\": 1}"),
            400,
        ),
        ("a body that is not UTF-8", post(key, b"\xff\xff\xff"), 400),
        (
            "a negative amount",
            post(key, br#"{"order": "1", "amount": "-$5"}"#),
            400,
        ),
        (
            "a chunked body",
            b"POST /charges HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".to_vec(),
            411,
        ),
        (
            "lengths that disagree",
            b"POST /charges HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab".to_vec(),
            400,
        ),
        (
            "an unknown path",
            b"GET /../../etc/passwd HTTP/1.1\r\n\r\n".to_vec(),
            404,
        ),
        (
            "a method /charges does not take",
            b"DELETE /charges HTTP/1.1\r\n\r\n".to_vec(),
            405,
        ),
    ];
    for (what, bytes, want) in cases {
        assert_eq!(raw(&server, &bytes), want, "{what}");
        assert!(server.alive(), "the server died on {what}");
    }
    // A connection that says nothing and closes is no harm either.
    drop(TcpStream::connect(server.addr()).expect("connects"));
    // And a proper charge still goes through.
    let (status, body, _) = charge(&server, Some("\"K7Q4\""), "$48.60").expect("answered");
    assert_eq!(status, 200, "{body}");
    assert!(server.alive());
}

#[test]
fn a_taken_port_is_an_error_in_the_one_shape() {
    let server = Server::start(&[]);
    let port = server
        .addr()
        .rsplit(':')
        .next()
        .expect("a port")
        .to_string();
    let out = run_idem_in(None, &["serve", "--port", &port]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("error: cannot listen on 127.0.0.1:"),
        "{err}"
    );
}

// ---------------------------------------------------------------- the drill's own limits

#[test]
fn the_drill_refuses_a_remote_host_without_allow_remote() {
    for url in [
        "http://10.0.0.1/charges",
        "https://api.example.com/v1/charges",
        "http://192.168.0.10:8080/charges",
    ] {
        let out = drill(&[url]);
        assert_eq!(out.status.code(), Some(2), "{url}");
        assert!(out.stdout.is_empty(), "nothing is told or sent for {url}");
        let err = text(&out.stderr);
        assert!(
            err.starts_with("error: ") && err.contains("--allow-remote"),
            "{err}"
        );
    }
    let out = drill(&[
        "http://127.0.0.1:9/charges",
        "--read-back",
        "http://10.1.1.1/x",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--read-back"));
}

#[test]
fn a_dry_run_tells_the_plan_and_sends_nothing() {
    let server = Server::start(&[]);
    let out = drill(&[&server.url("/charges"), "--dry-run", "-n", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let plan = text(&out.stdout);
    assert!(plan.contains("sends 10 requests"), "{plan}");
    assert!(plan.contains("5-7. POST at once"), "{plan}");
    // Keys go bare, as client libraries send them, and the same key goes once in quotes.
    assert!(plan.contains("same key in quotes (\"idem-drill-"), "{plan}");
    assert!(plan.contains("(in quotes)"), "{plan}");
    assert_eq!(charges_of_5531(&server), 0, "no request reached the server");
    let out = drill(&[
        &server.url("/charges"),
        "--dry-run",
        "--key-syntax",
        "sf-string",
    ]);
    let plan = text(&out.stdout);
    assert!(
        plan.contains("1. POST with Idempotency-Key: \"idem-drill-"),
        "{plan}"
    );
    assert!(plan.contains("(bare)"), "{plan}");
}

#[test]
fn bad_drill_flags_are_usage_errors() {
    for (args, want) in [
        (
            &["http://127.0.0.1:9/", "--body", "{"][..],
            "--body is not JSON",
        ),
        (&["http://127.0.0.1:9/", "-n", "40"][..], "40"),
        (
            &["http://127.0.0.1:9/", "--timeout", "0s"][..],
            "longer than zero",
        ),
        (
            &["http://127.0.0.1:9/", "--max-time", "2h"][..],
            "40 minutes",
        ),
        (
            &[
                "http://127.0.0.1:9/",
                "--kept-for",
                "31m",
                "--max-time",
                "40m",
            ][..],
            "30 minutes",
        ),
        (
            &["http://127.0.0.1:9/", "--kept-for", "60s"][..],
            "does not fit in --max-time of 60 s",
        ),
        (&["ftp://127.0.0.1/"][..], "http://"),
        (
            &[
                "http://127.0.0.1:9/",
                "--other-body",
                r#"{"order": "5531", "amount": "$48.60"}"#,
            ][..],
            "the same as --body",
        ),
    ] {
        let out = drill(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.starts_with("error: ") && err.contains(want),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_server_that_is_not_there_is_reported_not_run() {
    // A port that was free a moment ago: nothing listens there.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        l.local_addr().expect("an address").port()
    };
    let out = drill(&[&format!("http://127.0.0.1:{port}/charges"), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["rows"][0]["verdict"], "not-run", "{}", v["rows"][0]);
    assert!(
        v["rows"][0]["seen"]
            .as_str()
            .is_some_and(|s| s.contains("refused"))
    );
    assert!(v["nearest_design"].is_null());
    // No row ran, the concurrent one included, so nothing conforms and the exit says so.
    let concurrent = v["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["check"] == "concurrent"))
        .expect("a concurrent row");
    assert_eq!(concurrent["verdict"], "not-run", "{concurrent}");
    assert_eq!(v["summary"]["conforms"], false);
    // Nothing failed and nothing was exercised: its own status, not a failure's nor a pass.
    assert_eq!(out.status.code(), Some(3));
    assert!(
        v["summary"]["must_unexercised"]
            .as_u64()
            .is_some_and(|n| n > 0)
    );
}

/// A loopback port that counts the connections made to it, closing each at once.
struct Counting {
    addr: String,
    seen: Arc<std::sync::atomic::AtomicUsize>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Counting {
    fn start() -> Counting {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        listener.set_nonblocking(true).expect("non-blocking");
        let addr = listener.local_addr().expect("an address").to_string();
        let seen = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (Arc::clone(&seen), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok(_) => {
                        s.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Counting { addr, seen, stop }
    }

    fn count(&self) -> usize {
        self.seen.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Drop for Counting {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// `--scenario OUT` that could not be written is found out before a single request is sent:
/// a missing folder, a file where the folder should be, a link to a device, a FIFO, a folder.
#[cfg(unix)]
#[test]
fn a_scenario_that_cannot_be_written_is_refused_before_any_request() {
    let target = Counting::start();
    let url = format!("http://{}/charges", target.addr);
    let dir = TempDir::new("drill-out");
    dir.write("taken.txt", "x");
    std::os::unix::fs::symlink("/dev/null", dir.join("null.toml")).expect("a link");
    std::fs::create_dir(dir.join("a-folder")).expect("a folder");
    let fifo = dir.join("pipe.toml");
    let made_fifo = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let mut cases = vec![
        (dir.join("missing/out.toml"), "the folder"),
        (dir.join("taken.txt/out.toml"), "is not a folder"),
        (dir.join("null.toml"), "a character device"),
        (dir.join("a-folder"), "a directory"),
    ];
    if made_fifo {
        cases.push((fifo, "a FIFO"));
    }
    for (path, want) in &cases {
        let shown = path.display().to_string();
        for force in [false, true] {
            let mut args = vec![
                url.as_str(),
                "--scenario",
                shown.as_str(),
                "--timeout",
                "1s",
                "--max-time",
                "3s",
            ];
            if force {
                args.push("--force");
            }
            let out = drill(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{shown} force {force}: {err}");
            assert!(
                err.starts_with("error: ") && err.contains(want),
                "{shown} force {force}: {err}"
            );
            assert!(out.stdout.is_empty(), "{shown}: the plan was told");
            assert_eq!(
                target.count(),
                0,
                "{shown} force {force}: a request was sent"
            );
        }
    }
}

#[test]
fn the_drills_scenario_reads_back_and_is_never_overwritten_unasked() {
    let server = Server::start(&["--design", "log-after-charge", "--slow", "300ms"]);
    let dir = TempDir::new("drill-scenario");
    let out_file = dir.join("our-api.toml").display().to_string();
    let url = server.url("/charges");
    let out = drill(&[&url, "--scenario", &out_file, "--expiry", "10s"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Wrote "),
        "{}",
        text(&out.stdout)
    );
    let written = std::fs::read_to_string(&out_file).expect("the scenario was written");
    assert!(
        written.contains("design = \"log-after-charge\""),
        "{written}"
    );
    assert!(written.contains("retention = \"10s\""), "{written}");
    // idem reads back what idem wrote: its expectations hold, and it runs.
    let check = run_idem_in(None, &["check", &out_file]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}{}",
        text(&check.stdout),
        text(&check.stderr)
    );
    let run = run_idem_in(None, &["run", &out_file, "--design", "all"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));

    // Again, without --force: refused before a single request is sent.
    let before = charges_of_5531(&server);
    let again = drill(&[&url, "--scenario", &out_file]);
    assert_eq!(again.status.code(), Some(2));
    let err = text(&again.stderr);
    assert!(
        err.contains("already exists") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&out_file).expect("kept"), written);
    assert_eq!(charges_of_5531(&server), before, "nothing was sent");

    // With --force it is replaced.
    let forced = drill(&[&url, "--scenario", &out_file, "--force"]);
    assert_eq!(forced.status.code(), Some(1), "{}", text(&forced.stderr));
    let rewritten = std::fs::read_to_string(&out_file).expect("rewritten");
    assert!(rewritten.contains("retention = \"24h\""), "{rewritten}");
}

/// A published expiry shorter than the story's retries shrinks the story to fit inside it:
/// the scenario shows what the drill saw (one charge for with-charge), not an expiry that the
/// drill never waited for.
#[test]
fn a_short_published_expiry_keeps_the_scenario_true_to_what_was_seen() {
    let server = Server::start(&["--design", "with-charge", "--slow", "200ms"]);
    let dir = TempDir::new("drill-short-expiry");
    let out_file = dir.join("short.toml").display().to_string();
    let out = drill(&[
        &server.url("/charges"),
        "--scenario",
        &out_file,
        "--expiry",
        "10s",
    ]);
    let written = std::fs::read_to_string(&out_file)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&out.stdout), text(&out.stderr)));
    assert!(written.contains("design = \"with-charge\""), "{written}");
    assert!(written.contains("retention = \"10s\""), "{written}");
    let scenario = idem::scenario::parse(&out_file, "short", &written).expect("it reads back");
    let trace = scenario
        .simulate(idem::sim::Design::WithCharge)
        .expect("it simulates");
    assert_eq!(trace.outcome.intents[0].charges, 1, "{written}");
    assert_eq!(trace.outcome.intents[1].charges, 0, "{written}");
}
