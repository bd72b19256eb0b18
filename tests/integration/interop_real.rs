//! The drill against real idempotency middleware from npm and PyPI, each in front of the same
//! small charge endpoint (`interop/`): every app that `interop/install` put into the folder
//! named by `IDEM_INTEROP_DIR` is started on a free loopback port, drilled with `--json
//! --read-back`, and every verdict is held to the app's own ledger and to the table of
//! `docs/interop.md`. An app whose install failed, or a folder that is not there, is skipped
//! with a line naming the package and why; an app that was installed and does not start, or
//! whose drill does not run, fails the test.

use crate::common;

use common::{TempDir, idem_command, root, run_with_timeout};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Designs that never make a second effect for one key where the drill looks.
const ONE_EFFECT: [&str; 3] = ["with-charge", "log-before-charge", "inprogress-record"];

/// Rows the drill leaves unexercised without flags this test does not give; not in the table.
const UNJUDGED: [&str; 3] = ["expiry", "after-expiry", "kept-for"];

/// How long an app may take to print its address: NestJS and Django's migrations are slow to
/// start on a busy machine.
const START_LIMIT: Duration = Duration::from_secs(90);

/// One line of `interop/apps.tsv`.
#[derive(Clone, Debug)]
struct App {
    name: String,
    registry: String,
    package: String,
    version: String,
    dir: String,
    flags: Vec<String>,
}

fn apps() -> Vec<App> {
    let text = std::fs::read_to_string(root().join("interop/apps.tsv")).expect("interop/apps.tsv");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(
                f.len(),
                7,
                "interop/apps.tsv: seven fields, tab-separated: {l}"
            );
            App {
                name: f[0].to_string(),
                registry: f[1].to_string(),
                package: f[2].to_string(),
                version: f[3].to_string(),
                dir: f[5].to_string(),
                flags: if f[6] == "-" {
                    Vec::new()
                } else {
                    f[6].split_whitespace().map(str::to_string).collect()
                },
            }
        })
        .collect()
}

/// A line the harness does not swallow, so a skip is seen in CI's log.
fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// An app's process, killed when dropped (pass or panic), and its scratch working folder.
struct Running {
    child: Child,
    base: String,
    log: PathBuf,
    _work: TempDir,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Running {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Starts `app` from its install in `scratch`, in a working folder of its own (one package
/// keeps its store in a file there), and waits for `listening on URL`.
fn start(app: &App, scratch: &Path) -> Result<Running, String> {
    let work = TempDir::new("interop");
    let log = work.join("app.log");
    let out = std::fs::File::create(&log).map_err(|e| format!("the log: {e}"))?;
    let err = out.try_clone().map_err(|e| format!("the log: {e}"))?;
    let here = root().join("interop");
    let installed = scratch.join(&app.dir);
    let mut cmd = if app.registry == "npm" {
        let mut c = Command::new("node");
        c.arg(here.join(&app.dir).join("app.js"))
            .env("NODE_PATH", installed.join("node_modules"));
        c
    } else {
        let mut c = Command::new(installed.join("venv/bin/python"));
        c.arg(here.join("python/serve.py"))
            .arg(here.join(&app.dir).join("app.py"));
        c
    };
    cmd.current_dir(work.path())
        .env("PORT", "0")
        .env("HOLD_MS", "300")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    let child = cmd.spawn().map_err(|e| format!("cannot start: {e}"))?;
    let mut running = Running {
        child,
        base: String::new(),
        log,
        _work: work,
    };
    let started = Instant::now();
    loop {
        let text = running.log();
        if let Some(rest) = text.lines().find_map(|l| l.strip_prefix("listening on ")) {
            running.base = rest.trim().to_string();
            return Ok(running);
        }
        if let Ok(Some(status)) = running.child.try_wait() {
            return Err(format!("it exited ({status}) before listening:\n{text}"));
        }
        if started.elapsed() > START_LIMIT {
            return Err(format!(
                "it printed no address within {START_LIMIT:?}:\n{text}"
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// GETs `path` from the app, with the connection closed after one answer; the JSON body.
fn get_json(base: &str, path: &str) -> Result<Value, String> {
    let addr = base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("GET {path}: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| format!("GET {path}: {e}"))?;
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .map_err(|e| format!("GET {path}: {e}"))?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("GET {path}: no answer's head in {text}"))?;
    if !head.starts_with("HTTP/1.1 200") && !head.starts_with("HTTP/1.0 200") {
        return Err(format!("GET {path}: {head}"));
    }
    // A chunked body (Node's default without a Content-Length): join the chunks.
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = String::new();
        let mut rest = body;
        while let Some((size, tail)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 || tail.len() < n {
                break;
            }
            out.push_str(&tail[..n]);
            rest = tail[n..].trim_start_matches("\r\n");
        }
        out
    } else {
        body.to_string()
    };
    serde_json::from_str(&body).map_err(|e| format!("GET {path}: {e}: {body}"))
}

/// What `docs/interop.md` says each row of a package's drill is: the verdicts its table
/// allows (`pass`, or `pass or not-run` where the timing decides), and whether the row is
/// marked a known misjudgement.
type Table = BTreeMap<String, (Vec<String>, bool)>;

/// The table under the heading `### PACKAGE VERSION` of `docs/interop.md`.
fn docs_table(docs: &str, app: &App) -> Option<Table> {
    let heading = format!("### {} {}", app.package, app.version);
    let mut lines = docs.lines().skip_while(|l| !l.starts_with(&heading));
    lines.next()?;
    let mut table = Table::new();
    for line in lines {
        if line.starts_with("### ") || line.starts_with("## ") {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let check = cells[1].trim_matches('`').to_string();
        let verdict = cells[2].to_lowercase();
        let head = verdict
            .split([':', '(', ';', ','])
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let allowed = head
            .split(" or ")
            .map(|v| v.trim().trim_matches('*').to_string())
            .collect();
        table.insert(check, (allowed, verdict.contains("known misjudgement")));
    }
    (!table.is_empty()).then_some(table)
}

/// The exchange of the drill's step `step` (the first, when several).
fn exchange<'a>(v: &'a Value, step: &str) -> Option<&'a Value> {
    v["exchanges"]
        .as_array()?
        .iter()
        .find(|e| e["step"] == step)
}

/// How many charges the ledger holds under the header value `key` (as sent, quotes and all)
/// for the body `body` (the JSON text as sent).
fn charged(ledger: &Value, key: &Value, body: &Value) -> usize {
    let body: Value = body
        .as_str()
        .and_then(|b| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    ledger["charges"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter(|c| c["key"] == *key && c["body"] == body)
                .count()
        })
        .unwrap_or(0)
}

/// Drills one running app and holds its rows to its ledger and the docs; what went wrong,
/// one line each, and notes on known misjudgements.
fn judge(app: &App, running: &Running, table: &Table) -> (Vec<String>, Vec<String>) {
    let url = format!("{}/charges", running.base);
    let read_back = format!("{}/charges?key={{key}}", running.base);
    let mut args = vec![
        "drill",
        url.as_str(),
        "--json",
        "--read-back",
        read_back.as_str(),
        "--timeout",
        "20s",
        "--max-time",
        "150s",
    ];
    args.extend(app.flags.iter().map(String::as_str));
    let out = run_with_timeout(
        idem_command(&args),
        &format!("idem drill of {}", app.package),
        Duration::from_secs(200),
    );
    let what = format!("{} {}", app.package, app.version);
    let v: Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => {
            return (
                vec![format!(
                    "{what}: the drill printed no JSON ({e}): {}\n{}",
                    String::from_utf8_lossy(&out.stderr),
                    running.log()
                )],
                vec![],
            );
        }
    };
    let ledger = match get_json(&running.base, "/ledger") {
        Ok(l) => l,
        Err(e) => return (vec![format!("{what}: its ledger: {e}")], vec![]),
    };
    let mut wrong = Vec::new();
    let mut notes = Vec::new();
    let rows: BTreeMap<String, String> = v["rows"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    (
                        r["check"].as_str().unwrap_or_default().to_string(),
                        r["verdict"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let seen = |check: &str| -> String {
        v["rows"]
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r["check"] == check))
            .map(|r| r["seen"].as_str().unwrap_or_default().to_string())
            .unwrap_or_default()
    };
    let context = format!(
        "the ledger: {}",
        ledger["charges"]
            .as_array()
            .map(|all| {
                all.iter()
                    .map(|c| {
                        let key = c["key"].as_str().unwrap_or("(none)");
                        let key: String = key.chars().take(40).collect();
                        format!("{} key {key} amount {}", c["id"], c["amount"])
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default()
    );

    // Each row as the docs' table says.
    for (check, verdict) in &rows {
        if UNJUDGED.contains(&check.as_str()) {
            continue;
        }
        match table.get(check) {
            None => wrong.push(format!(
                "{what}: docs/interop.md has no `{check}` row (the drill said {verdict}: {})",
                seen(check)
            )),
            Some((allowed, _)) if !allowed.contains(verdict) => wrong.push(format!(
                "{what}: `{check}` is {verdict}, docs/interop.md says {}: {}",
                allowed.join(" or "),
                seen(check)
            )),
            Some(_) => {}
        }
    }
    for check in table.keys() {
        if check != "nearest-design" && !rows.contains_key(check) {
            wrong.push(format!("{what}: the drill made no `{check}` row"));
        }
    }

    let (Some(first), Some(race)) = (exchange(&v, "first"), exchange(&v, "concurrent")) else {
        wrong.push(format!(
            "{what}: no first or concurrent exchange: {}",
            v["exchanges"]
        ));
        return (wrong, notes);
    };
    let replays = charged(&ledger, &first["key"], &first["body"]);
    let races = charged(&ledger, &race["key"], &race["body"]);
    let reused = exchange(&v, "key-reuse")
        .map(|e| charged(&ledger, &e["key"], &e["body"]))
        .unwrap_or(0);

    // Each row as the ledger says: a verdict the ledger contradicts fails, unless the docs
    // mark that row a known misjudgement, when it is noted.
    let mut hold = |check: &str, contradicted: bool, why: String| {
        if !contradicted {
            return;
        }
        let line = format!("{what}: `{check}` is {}: {why}; {context}", rows[check]);
        if table.get(check).is_some_and(|(_, known)| *known) {
            notes.push(line);
        } else {
            wrong.push(line);
        }
    };
    if rows.contains_key("one-effect") {
        hold(
            "one-effect",
            rows["one-effect"] == "pass" && replays > 1,
            format!("the ledger holds {replays} charges for the replay's key and body"),
        );
    }
    if rows.contains_key("replay") {
        hold(
            "replay",
            rows["replay"] == "pass" && replays > 1,
            format!("the ledger holds {replays} charges for the replay's key and body"),
        );
    }
    if rows.contains_key("concurrent") {
        hold(
            "concurrent",
            rows["concurrent"] == "pass" && races > 1,
            format!("the ledger holds {races} charges for the race's key"),
        );
    }
    if rows.contains_key("key-reuse") {
        hold(
            "key-reuse",
            matches!(rows["key-reuse"].as_str(), "pass" | "variant") && reused > 0,
            format!("the ledger holds {reused} charges for the used key with the other body"),
        );
    }
    let nearest = v["nearest_design"]["id"].as_str().unwrap_or_default();
    if ONE_EFFECT.contains(&nearest) && (replays > 1 || races > 1 || reused > 0) {
        let line = format!(
            "{what}: the nearest design is {nearest}, which makes one effect, while the ledger \
             holds {replays} charges for the replay, {races} for the race and {reused} for the \
             reused key; {context}"
        );
        if table.get("nearest-design").is_some_and(|(_, known)| *known) {
            notes.push(line);
        } else {
            wrong.push(line);
        }
    }
    if let Some((allowed, _)) = table.get("nearest-design") {
        let named = if nearest.is_empty() { "none" } else { nearest };
        if !allowed.iter().any(|a| a == named) {
            wrong.push(format!(
                "{what}: the nearest design is {named}, docs/interop.md says {}",
                allowed.join(" or ")
            ));
        }
    }
    (wrong, notes)
}

/// Every installed middleware of `interop/apps.tsv`, drilled and held to its ledger and to
/// `docs/interop.md`; the others are skipped by name.
#[test]
fn every_installed_middleware_is_judged_as_its_ledger_and_the_docs_say() {
    let apps = apps();
    assert!(
        apps.len() >= 8,
        "interop/apps.tsv lists {} apps",
        apps.len()
    );
    let docs = std::fs::read_to_string(root().join("docs/interop.md")).expect("docs/interop.md");
    let mut wrong = Vec::new();
    for app in &apps {
        if docs_table(&docs, app).is_none() {
            wrong.push(format!(
                "docs/interop.md has no table under `### {} {}`",
                app.package, app.version
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    let scratch = std::env::var_os("IDEM_INTEROP_DIR").map(PathBuf::from);
    let mut drilled = 0;
    let mut skipped = 0;
    for app in &apps {
        let why = match &scratch {
            None => Some("IDEM_INTEROP_DIR is not set (run interop/install SCRATCH)".to_string()),
            Some(s) if !s.is_dir() => Some(format!("{} is not a folder", s.display())),
            Some(s) if !s.join(&app.dir).join("installed").is_file() => Some(
                std::fs::read_to_string(s.join(&app.dir).join("failed"))
                    .map(|w| w.trim().to_string())
                    .unwrap_or_else(|_| format!("no install under {}", s.display())),
            ),
            Some(_) => None,
        };
        if let Some(why) = why {
            note(&format!("skip: {} not installed: {why}", app.package));
            skipped += 1;
            continue;
        }
        let scratch = scratch.as_deref().expect("a scratch folder");
        let running = match start(app, scratch) {
            Ok(r) => r,
            Err(e) => {
                wrong.push(format!(
                    "{} {} is installed but did not start: {e}",
                    app.package, app.version
                ));
                continue;
            }
        };
        let table = docs_table(&docs, app).expect("checked above");
        let (w, notes) = judge(app, &running, &table);
        for n in &notes {
            note(&format!("known misjudgement: {n}"));
        }
        if w.is_empty() {
            note(&format!(
                "interop: {} {} ({}, {}): every verdict as its ledger and docs/interop.md say",
                app.package, app.version, app.registry, app.name
            ));
        }
        wrong.extend(w);
        drilled += 1;
        drop(running);
    }
    note(&format!(
        "interop: {drilled} middleware drilled, {skipped} skipped as not installed"
    ));
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
