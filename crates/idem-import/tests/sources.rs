//! Each source's reader on small files in the shapes its tools write: the access-log mapping
//! (Envoy's and nginx's field names, a field named on the command line), clock skew stated,
//! several traces for one key, a key written in quotes, errors at their place.

use idem_import::import::{Options, accesslog::Mapping, import, write};
use std::path::PathBuf;

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("idem-import-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("a temp folder");
        Dir(d)
    }
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).expect("written");
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn an_envoy_log_and_an_nginx_log_are_read_with_their_own_field_names() {
    let d = Dir::new("logs");
    let envoy = d.file(
        "envoy.jsonl",
        concat!(
            r#"{"start_time":"2024-05-03T14:02:07.000Z","method":"POST","path":"/charges","response_code":200,"duration":210,"idempotency_key":"K7Q4"}"#,
            "\n",
            r#"{"start_time":"2024-05-03T14:02:38.000Z","method":"POST","path":"/charges","response_code":200,"duration":12,"idempotency_key":"K7Q4"}"#,
            "\n"
        ),
    );
    let nginx = d.file(
        "nginx.jsonl",
        concat!(
            r#"{"msec":"1714744927.210","request_method":"POST","request_uri":"/charges","status":"200","request_time":"0.210","http_idempotency_key":"\"K7Q4\""}"#,
            "\n",
            r#"{"msec":"1714744958.012","request_method":"POST","request_uri":"/charges","status":"200","request_time":"0.012","http_idempotency_key":"K7Q4"}"#,
            "\n"
        ),
    );
    for path in [envoy, nginx] {
        let inc = import(std::slice::from_ref(&path), &Options::default()).expect("imports");
        assert_eq!(
            inc.orders.len(),
            1,
            "{}: one key, quoted or bare",
            path.display()
        );
        let o = &inc.orders[0];
        assert_eq!(o.key, "K7Q4");
        assert_eq!(o.attempts.len(), 2);
        let first = o.attempts[0].server.as_ref().expect("a server record");
        assert_eq!(first.start_us, 1_714_744_927_000_000, "{}", path.display());
        let (text, _) = write::scenario(&inc, Some(idem_core::sim::Design::NoKey), "test");
        assert!(text.contains("at = \"14:02:07.000\""), "{text}");
        assert!(text.contains("timeout = \"31000ms\""), "{text}");
        assert!(text.contains("lose = \"reply\""), "{text}");
    }
}

#[test]
fn a_field_named_on_the_command_line_holds_its_role() {
    let d = Dir::new("mapping");
    let log = d.file(
        "log.jsonl",
        "{\"ts\":\"2024-05-03T14:02:07Z\",\"verb\":\"POST\",\"code\":201,\"idem\":\"A1\"}\n",
    );
    assert!(
        import(std::slice::from_ref(&log), &Options::default()).is_err(),
        "no usual field holds the key"
    );
    let mut mapping = Mapping::default();
    for spec in ["key=idem", "start=ts", "method=verb", "status=code"] {
        mapping.add(spec).expect("a role");
    }
    assert!(mapping.add("colour=red").is_err());
    let inc = import(
        &[log],
        &Options {
            mapping,
            ..Options::default()
        },
    )
    .expect("imports");
    assert_eq!(inc.orders[0].key, "A1");
    assert_eq!(
        inc.orders[0].attempts[0]
            .server
            .as_ref()
            .and_then(|s| s.status),
        Some(201)
    );
}

const ZIPKIN: &str = r#"[
 {"traceId":"aa","id":"c1","kind":"CLIENT","name":"post","timestamp":1714744927000000,"duration":30000000,
  "localEndpoint":{"serviceName":"checkout"},"tags":{"http.method":"POST","http.url":"http://pay/charges","http.request.header.idempotency-key":"K7Q4","error":"timeout"}},
 {"traceId":"aa","id":"s1","parentId":"c1","kind":"SERVER","name":"post","timestamp":1714744925000000,"duration":200000,
  "localEndpoint":{"serviceName":"payments"},"tags":{"http.method":"POST","http.status_code":"200"}},
 {"traceId":"bb","id":"c2","kind":"CLIENT","name":"post","timestamp":1714744958000000,"duration":60000,
  "localEndpoint":{"serviceName":"checkout"},"tags":{"http.method":"POST","http.status_code":"200","http.request.header.idempotency-key":"K7Q4"}}
]"#;

#[test]
fn skew_and_several_traces_are_stated_and_nothing_is_corrected() {
    let d = Dir::new("skew");
    let z = d.file("zipkin.json", ZIPKIN);
    let inc = import(&[z], &Options::default()).expect("imports");
    let notes = inc.notes.join("\n");
    assert!(notes.contains("2000 ms behind the client's"), "{notes}");
    assert!(notes.contains("not corrected"), "{notes}");
    assert!(notes.contains("spread over 2 traces"), "{notes}");
    let o = &inc.orders[0];
    let server = o.attempts[0].server.as_ref().expect("paired by its parent");
    assert_eq!(
        server.start_us, 1_714_744_925_000_000,
        "the time as recorded"
    );
    let (text, _) = write::scenario(&inc, None, "test");
    assert!(
        text.contains("lose = \"reply\""),
        "the server answered, the client heard nothing: {text}"
    );
    assert!(text.contains("timeout = \"30000ms\""), "{text}");
}

#[test]
fn a_jaeger_file_is_read_with_its_references_and_tags() {
    let d = Dir::new("jaeger");
    let j = d.file(
        "jaeger.json",
        r#"{"data":[{"traceID":"t1","processes":{"p1":{"serviceName":"checkout"},"p2":{"serviceName":"payments"}},"spans":[
          {"traceID":"t1","spanID":"a","operationName":"POST","references":[],"startTime":1714744927000000,"duration":5000000,"processID":"p1",
           "tags":[{"key":"span.kind","type":"string","value":"client"},{"key":"http.method","type":"string","value":"POST"},{"key":"http.request.header.idempotency_key","type":"string","value":"K1"},{"key":"error","type":"bool","value":true}],
           "logs":[{"timestamp":1714744932000000,"fields":[{"key":"event","type":"string","value":"error"},{"key":"message","type":"string","value":"ETIMEDOUT"}]}]},
          {"traceID":"t1","spanID":"b","operationName":"POST","references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"a"}],"startTime":1714744927010000,"duration":9000000,"processID":"p2",
           "tags":[{"key":"span.kind","type":"string","value":"server"},{"key":"http.method","type":"string","value":"POST"},{"key":"http.status_code","type":"int64","value":201}]}
        ]}]}"#,
    );
    let inc = import(&[j], &Options::default()).expect("imports");
    let a = &inc.orders[0].attempts[0];
    assert!(a.client.as_ref().is_some_and(|c| c.timed_out()), "{a:?}");
    assert_eq!(a.server.as_ref().and_then(|s| s.status), Some(201));
    let (text, _) = write::scenario(&inc, None, "test");
    // Answered after 9 s, the client gave up at 5 s: slow, not lost.
    assert!(text.contains("processing = \"9000ms\""), "{text}");
}

#[test]
fn a_bad_value_is_an_error_at_its_place() {
    let d = Dir::new("badvalue");
    let z = d.file(
        "z.json",
        "[\n {\"traceId\": \"aa\", \"timestamp\": \"yesterday\"}\n]\n",
    );
    let err = import(std::slice::from_ref(&z), &Options::default()).expect_err("a bad timestamp");
    let shown = err.to_string();
    assert!(shown.starts_with(&format!("{}:2:", z.display())), "{shown}");
}

#[test]
fn a_refused_attempt_after_a_taken_one_is_a_crash_and_a_restart() {
    let d = Dir::new("restart");
    let z = d.file(
        "zipkin.json",
        r#"[
 {"traceId":"aa","id":"c1","kind":"CLIENT","timestamp":1714744927000000,"duration":30000000,
  "tags":{"http.method":"POST","http.request.header.idempotency-key":"K7Q4","error":"timeout of 30000ms exceeded"}},
 {"traceId":"aa","id":"s1","parentId":"c1","kind":"SERVER","timestamp":1714744927050000,"duration":200000,
  "tags":{"http.method":"POST","http.status_code":"201"}},
 {"traceId":"aa","id":"c2","kind":"CLIENT","timestamp":1714744958000000,"duration":2000,
  "tags":{"http.method":"POST","http.request.header.idempotency-key":"K7Q4","error":"connect ECONNREFUSED 127.0.0.1:8080"}},
 {"traceId":"aa","id":"c3","kind":"CLIENT","timestamp":1714744960000000,"duration":40000,
  "tags":{"http.method":"POST","http.status_code":"201","http.request.header.idempotency-key":"K7Q4"}},
 {"traceId":"aa","id":"s3","parentId":"c3","kind":"SERVER","timestamp":1714744960010000,"duration":20000,
  "tags":{"http.method":"POST","http.status_code":"201"}}
]"#,
    );
    let inc = import(&[z], &Options::default()).expect("imports");
    let (text, _) = write::scenario(&inc, Some(idem_core::sim::Design::LogAfterCharge), "test");
    assert!(
        text.contains("crash_after = \"reply\"\nrestart_after = \"32750ms\""),
        "{text}"
    );
    assert!(text.contains("attempt = 2\nlose = \"request\""), "{text}");
    let scenario = idem_core::scenario::parse("t.toml", "t", &text).expect("the scenario loads");
    for (design, charges) in [
        (idem_core::sim::Design::WithCharge, 1),
        (idem_core::sim::Design::LogAfterCharge, 2),
    ] {
        let trace = scenario.simulate(design).expect("simulates");
        assert_eq!(trace.outcome.charges, charges, "{design:?}");
    }
}

#[test]
fn only_the_earliest_orders_a_scenario_can_hold_are_kept() {
    let d = Dir::new("cap");
    let mut log = String::new();
    // 70 orders, written latest first, two attempts each.
    for i in (0..70u32).rev() {
        for attempt in 0..2 {
            let second = 7 + i * 60 + attempt * 31;
            log.push_str(&format!(
                "{{\"start_time\":\"2024-05-03T{:02}:{:02}:{:02}.000Z\",\"method\":\"POST\",\"response_code\":201,\"duration\":200,\"idempotency_key\":\"K{i}\"}}\n",
                14 + second / 3600,
                second / 60 % 60,
                second % 60
            ));
        }
    }
    let path = d.file("many.jsonl", &log);
    let inc = import(&[path], &Options::default()).expect("imports");
    assert_eq!(inc.orders.len(), 64);
    assert_eq!(inc.orders[0].key, "K0");
    assert_eq!(inc.orders[63].key, "K63");
    assert!(inc.orders.iter().all(|o| o.attempts.len() == 2));
    let notes = inc.notes.join("\n");
    assert!(
        notes.contains("70 orders (distinct keys) were found"),
        "{notes}"
    );
}
