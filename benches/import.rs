//! How fast `idem import` reads a large OTLP JSON export: a generated file of JSON lines (one
//! export request of 1,000 spans a line, as the collector's file exporter writes them), five
//! spans an order (the checkout's own span, two client attempts with the key captured, the two
//! server spans that answered them), every attribute the OpenTelemetry SDK writes for an HTTP
//! span. Read whole with every order kept, and with `--order` keeping one.
//!
//! IDEM_IMPORT_BENCH_SPANS sets the size (default 100,000 spans, about 100 MB; the goal is
//! 1,000,000 spans and 1 GB in 10 s). IDEM_IMPORT_BENCH_KEEP=PATH writes the file there and
//! leaves it, for `idem import PATH` under /usr/bin/time (docs/performance.md).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idem::import::{Options, import};
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

const PER_LINE: u64 = 1000;

fn attr(out: &mut String, key: &str, value: &str) {
    out.push_str(&format!(
        "{{\"key\":\"{key}\",\"value\":{{\"stringValue\":\"{value}\"}}}},"
    ));
}

fn int_attr(out: &mut String, key: &str, value: u64) {
    out.push_str(&format!(
        "{{\"key\":\"{key}\",\"value\":{{\"intValue\":{value}}}}},"
    ));
}

/// One span of order `o`: which one of its five, at nanosecond `t`.
fn span(out: &mut String, o: u64, which: u64, t: u64) {
    let trace = format!("{:032x}", o + 1);
    let root = format!("{:016x}", o * 8 + 1);
    let id = format!("{:016x}", o * 8 + 2 + which);
    let (kind, parent, start, end, status) = match which {
        0 => (1, String::new(), t, t + 2_600_000_000, None),
        1 => (3, root.clone(), t, t + 2_001_000_000, None),
        2 => (
            2,
            format!("{:016x}", o * 8 + 3),
            t + 1_000_000,
            t + 301_000_000,
            Some(201),
        ),
        3 => (
            3,
            root.clone(),
            t + 2_501_000_000,
            t + 2_530_000_000,
            Some(201),
        ),
        _ => (
            2,
            format!("{:016x}", o * 8 + 5),
            t + 2_502_000_000,
            t + 2_510_000_000,
            Some(201),
        ),
    };
    out.push_str(&format!(
        "{{\"traceId\":\"{trace}\",\"spanId\":\"{id}\",\"parentSpanId\":\"{parent}\",\"name\":\"{}\",\"kind\":{kind},\"startTimeUnixNano\":\"{start}\",\"endTimeUnixNano\":\"{end}\",\"attributes\":[",
        if which == 0 { "checkout" } else { "POST" }
    ));
    if which > 0 {
        attr(out, "http.request.method", "POST");
        attr(out, "url.scheme", "http");
        attr(out, "server.address", "127.0.0.1");
        int_attr(out, "server.port", 8080);
        attr(out, "network.peer.address", "127.0.0.1");
        int_attr(out, "network.peer.port", 40_000 + o % 20_000);
        attr(out, "network.protocol.version", "1.1");
        attr(out, "user_agent.original", "axios/1.21.1");
        if kind == 3 {
            attr(out, "url.full", "http://127.0.0.1:8080/charges");
        } else {
            attr(out, "url.path", "/charges");
            attr(out, "client.address", "127.0.0.1");
        }
        out.push_str(&format!(
            "{{\"key\":\"http.request.header.idempotency_key\",\"value\":{{\"arrayValue\":{{\"values\":[{{\"stringValue\":\"K{o}\"}}]}}}}}},"
        ));
        if let Some(s) = status {
            int_attr(out, "http.response.status_code", s);
        }
    } else {
        attr(out, "app.order.id", &o.to_string());
    }
    if out.ends_with(',') {
        out.pop();
    }
    out.push_str("],\"droppedAttributesCount\":0,\"events\":[");
    if which == 1 {
        out.push_str(&format!("{{\"timeUnixNano\":\"{end}\",\"name\":\"exception\",\"attributes\":[{{\"key\":\"exception.message\",\"value\":{{\"stringValue\":\"timeout of 2000ms exceeded\"}}}}]}}"));
    }
    let code = if which == 1 { 2 } else { 0 };
    out.push_str(&format!("],\"droppedEventsCount\":0,\"status\":{{\"code\":{code}}},\"links\":[],\"droppedLinksCount\":0}},"));
}

/// Writes `spans` spans to `path`; returns its size in bytes.
pub fn generate(path: &Path, spans: u64) -> u64 {
    let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut written = 0u64;
    let mut n = 0u64;
    let base = 1_796_657_972_000_000_000u64;
    while n < spans {
        let mut line = String::from(
            "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"checkout\"}}],\"droppedAttributesCount\":0},\"scopeSpans\":[{\"scope\":{\"name\":\"@opentelemetry/instrumentation-http\",\"version\":\"0.202.0\"},\"spans\":[",
        );
        for _ in 0..PER_LINE.min(spans - n) {
            let (o, which) = (n / 5, n % 5);
            span(&mut line, o, which, base + o * 3_000_000_000);
            n += 1;
        }
        line.pop();
        line.push_str("]}]}]}\n");
        w.write_all(line.as_bytes())
            .unwrap_or_else(|e| panic!("write: {e}"));
        written += line.len() as u64;
    }
    w.flush().unwrap_or_else(|e| panic!("flush: {e}"));
    written
}

fn bench(c: &mut Criterion) {
    let spans: u64 = std::env::var("IDEM_IMPORT_BENCH_SPANS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let keep = std::env::var_os("IDEM_IMPORT_BENCH_KEEP").map(PathBuf::from);
    let path = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("idem-import-bench-{}.jsonl", std::process::id()))
    });
    let bytes = generate(&path, spans);
    eprintln!("{}: {spans} spans, {bytes} bytes", path.display());
    let mut group = c.benchmark_group("import-otlp");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(bytes));
    let files = vec![path.clone()];
    group.bench_function(format!("{spans}-spans-every-order"), |b| {
        b.iter(|| {
            let incident = import(black_box(&files), &Options::default())
                .unwrap_or_else(|e| panic!("the export imports: {e}"));
            black_box(incident.orders.len())
        })
    });
    let one = Options {
        order: Some("K7".to_string()),
        ..Options::default()
    };
    group.bench_function(format!("{spans}-spans-one-order"), |b| {
        b.iter(|| {
            let incident = import(black_box(&files), &one)
                .unwrap_or_else(|e| panic!("the export imports: {e}"));
            black_box(incident.orders.len())
        })
    });
    group.finish();
    if keep.is_none() {
        let _ = std::fs::remove_file(&path);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
