//! `idem window --from FILE`, `--preset`, path presets and `--keys-kept`:
//! every fixture under tests/fixtures/window/ gives the stack written next to
//! it here, with the file and field each value came from; every broken file
//! is refused at its line and column; the imported stack still agrees with
//! the simulator when replayed.

use crate::common;

use std::time::Duration;

use idem::cli::window::{WindowArgs, stack_from_args};
use idem::sim::{Design, TickKind};
use idem::window::scenario::{Purchase, replay_scenario};
use idem::window::sources::{self, Imported};
use idem::window::{Jitter, Layer, PathStart, Schedule, Stack};

fn fixture(name: &str) -> String {
    common::manifest(&format!("tests/fixtures/window/{name}"))
}

fn read(name: &str) -> Imported {
    sources::read(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn only_layer(imported: &Imported) -> &Layer {
    assert_eq!(imported.layers.len(), 1, "{imported:#?}");
    &imported.layers[0]
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// The field a layer says it came from, and the notes on its values.
fn field(layer: &Layer) -> (&str, String) {
    let source = layer
        .provenance
        .as_ref()
        .expect("a layer read from a file knows where");
    (source.field.as_str(), source.values.join(" | "))
}

fn error(name: &str) -> String {
    sources::read(&fixture(&format!("broken/{name}")))
        .expect_err("a broken file is refused")
        .to_string()
}

// ------------------------------------------------------------------ formats

#[test]
fn an_envoy_route_gives_its_retry_policy_and_route_timeout() {
    let imported = read("envoy-route.yaml");
    let layer = only_layer(&imported);
    assert_eq!(layer.name, "envoy route authorize");
    assert_eq!(layer.attempts, 4, "num_retries 3 + 1");
    assert_eq!(layer.timeout, Some(secs(2)), "per_try_timeout");
    assert_eq!(
        layer.deadline,
        Some(secs(9)),
        "the route timeout covers all tries"
    );
    // (2^n − 1) × 100 ms, at most 1 s.
    assert_eq!(
        layer.schedule,
        Schedule::List(vec![ms(100), ms(300), ms(700), ms(1000)])
    );
    assert_eq!(layer.jitter, Jitter::Full);
    let (field, values) = field(layer);
    assert_eq!(field, "virtual_hosts[0].routes[0].route.retry_policy");
    assert!(values.contains("num_retries 3 + 1"), "{values}");
    assert_eq!(layer.provenance.as_ref().and_then(|s| s.line), Some(13));
    assert!(
        imported.notes.iter().any(|n| n.contains("2 routes")),
        "{:?}",
        imported.notes
    );
}

#[test]
fn a_camel_case_envoy_route_gives_the_same_numbers() {
    // What Kuma, Envoy Gateway and config dumps emit: the same fields in camelCase.
    let imported = read("envoy-route-camel.json");
    let layer = only_layer(&imported);
    assert_eq!(layer.attempts, 4, "numRetries 3 + 1");
    assert_eq!(layer.timeout, Some(secs(2)), "perTryTimeout");
    assert_eq!(layer.deadline, Some(secs(9)), "the route timeout");
    assert_eq!(
        layer.schedule,
        Schedule::List(vec![ms(100), ms(300), ms(700), ms(1000)])
    );
}

#[test]
fn an_envoy_route_without_a_policy_sends_once_within_fifteen_seconds() {
    let imported = sources::read(&format!("{}#status", fixture("envoy-route.yaml")))
        .expect("the second route");
    let layer = only_layer(&imported);
    assert_eq!(layer.name, "envoy route status");
    assert_eq!(layer.attempts, 1);
    assert_eq!(
        layer.deadline,
        Some(secs(15)),
        "Envoy's default route timeout"
    );
    assert_eq!(
        layer.timeout,
        Some(secs(15)),
        "a try waits until the route timeout"
    );
    let report = Stack {
        layers: imported.layers,
        ..Stack::default()
    }
    .report()
    .expect("valid");
    assert_eq!(report.gives_up.whole_seconds(), Some(15));
}

#[test]
fn istio_counts_the_retries_it_adds_when_none_are_written() {
    let written = read("istio-virtualservice.yaml");
    let postings = only_layer(&written);
    assert_eq!(postings.name, "istio ledger/postings");
    assert_eq!(postings.attempts, 5, "retries.attempts 4 + 1");
    assert_eq!(postings.timeout, Some(ms(2500)));
    assert_eq!(postings.deadline, Some(secs(12)));
    assert!(postings.warnings.is_empty());

    let hidden = sources::read(&format!(
        "{}#ledger/refunds",
        fixture("istio-virtualservice.yaml")
    ))
    .expect("the route without retries");
    let refunds = only_layer(&hidden);
    assert_eq!(refunds.attempts, 3, "Istio's implicit 2 retries");
    assert_eq!(refunds.deadline, None, "Istio sets no route timeout");
    assert!(
        refunds.warnings.iter().any(|w| w.contains("hidden layer")),
        "{:?}",
        refunds.warnings
    );
    let (field, _) = field(refunds);
    assert_eq!(field, "spec.http[1]");
}

#[test]
fn an_aws_profile_gives_standard_mode_backoff() {
    let imported =
        sources::read(&format!("{}#settlement", fixture("aws-config"))).expect("the profile");
    let layer = only_layer(&imported);
    assert_eq!(layer.name, "AWS SDK (settlement)");
    assert_eq!(layer.attempts, 6);
    assert_eq!(
        layer.schedule,
        Schedule::Exponential {
            initial: secs(1),
            multiplier: 2.0,
            cap: Some(secs(20)),
        }
    );
    assert_eq!(layer.jitter, Jitter::Full);
    let (field, values) = field(layer);
    assert_eq!(field, "[profile settlement]");
    assert!(values.contains("max_attempts"), "{values}");
    // The default profile has neither setting: boto3 then retries in legacy mode, 5
    // attempts, the most a documented default makes; the warning gives the range.
    let default = read("aws-config");
    let layer = only_layer(&default);
    assert_eq!(layer.attempts, 5);
    assert!(
        layer
            .warnings
            .iter()
            .any(|w| w.contains("retry_mode") && w.contains("3 attempts") && w.contains("boto3")),
        "{:?}",
        layer.warnings
    );
}

#[test]
fn a_polly_field_polly_does_not_read_is_warned_with_the_field_it_meant() {
    let imported = read("appsettings-misspelt.json");
    let layer = only_layer(&imported);
    assert!(
        layer
            .warnings
            .iter()
            .any(|w| w.contains("Retry.Backoff") && w.contains("did you mean BackoffType?")),
        "{:?}",
        layer.warnings
    );
    // The spelt-right file warns of nothing.
    let right = read("appsettings.json");
    assert!(
        !only_layer(&right)
            .warnings
            .iter()
            .any(|w| w.contains("not a field")),
        "{:?}",
        only_layer(&right).warnings
    );
}

#[test]
fn an_envoy_field_envoy_does_not_have_is_warned_with_the_field_it_meant() {
    let imported = read("envoy-route-misspelt.yaml");
    let layer = only_layer(&imported);
    let warned = |field: &str, meant: &str| {
        layer
            .warnings
            .iter()
            .any(|w| w.contains(field) && w.contains(&format!("did you mean {meant}?")))
    };
    assert!(
        warned("retry_policy.per_try_timout", "per_try_timeout"),
        "{:?}",
        layer.warnings
    );
    assert!(
        warned("retry_back_off.max_intreval", "max_interval"),
        "{:?}",
        layer.warnings
    );
    // The route spelt right, in either case, warns of nothing.
    for right in ["envoy-route.yaml", "envoy-route-camel.json"] {
        let imported = read(right);
        for layer in &imported.layers {
            assert!(
                !layer.warnings.iter().any(|w| w.contains("not a field")),
                "{right}: {:?}",
                layer.warnings
            );
        }
    }
}

#[test]
fn sdk_names_the_default_mode_an_aws_config_without_one_retries_in() {
    use idem::window::sources::aws::Sdk;
    let attempts = |sdk| {
        let options = sources::ReadOptions {
            sdk,
            ..sources::ReadOptions::default()
        };
        let imported =
            sources::read_with(&fixture("aws-config"), &options).expect("the default profile");
        only_layer(&imported).attempts
    };
    assert_eq!(attempts(Some(Sdk::Boto3)), 5, "boto3's legacy default");
    assert_eq!(attempts(Some(Sdk::Cli)), 3, "the CLI v2's standard default");
    assert_eq!(attempts(Some(Sdk::GoV2)), 3);
    assert_eq!(attempts(None), 5, "without --sdk, the most a default makes");
    // From the command line.
    let report = stack_from_args(&args(&["--from", &fixture("aws-config"), "--sdk", "cli"]))
        .expect("valid")
        .report()
        .expect("valid");
    assert_eq!(report.attempts.exact(), Some(3));
}

#[test]
fn a_cloudformation_template_takes_its_parameters_defaults_and_its_conditions() {
    // !Ref to parameters, !If on a condition of !Equals: the Defaults, said in the notes.
    let imported = read("cloudformation-parameters.yaml");
    let layer = only_layer(&imported);
    assert_eq!(
        layer.attempts, 4,
        "maxReceiveCount: !Ref MaxReceives, Default 4"
    );
    assert_eq!(
        layer.schedule,
        Schedule::Constant(secs(120)),
        "VisibilitySeconds 120"
    );
    assert_eq!(layer.deadline, Some(secs(1_209_600)), "IsProd, so 14 days");
    for note in ["parameter Environment = prod", "condition IsProd is true"] {
        assert!(
            imported.notes.iter().any(|n| n.contains(note)),
            "{:?}",
            imported.notes
        );
    }
    // The JSON forms, with a parameter that has no Default: named, then given.
    let json = fixture("cloudformation-parameters.json");
    let err = sources::read(&json).expect_err("VisibilitySeconds has no Default");
    assert!(
        err.to_string().contains("--param VisibilitySeconds=VALUE"),
        "{err}"
    );
    let report = stack_from_args(&args(&["--from", &json, "--param", "VisibilitySeconds=45"]))
        .expect("valid")
        .report()
        .expect("valid");
    assert_eq!(
        report.attempts.exact(),
        Some(3),
        "from the command line too"
    );
    let options = sources::ReadOptions {
        params: vec![("VisibilitySeconds".into(), "45".into())],
        ..sources::ReadOptions::default()
    };
    let imported = sources::read_with(&json, &options).expect("with the parameter given");
    let layer = only_layer(&imported);
    assert_eq!(layer.schedule, Schedule::Constant(secs(45)));
    assert_eq!(layer.attempts, 3);
    assert_eq!(
        layer.deadline,
        Some(secs(86_400)),
        "staging: IsProd is false"
    );
    // A parameter the template does not declare is refused.
    let options = sources::ReadOptions {
        params: vec![
            ("VisibilitySeconds".into(), "45".into()),
            ("Nope".into(), "1".into()),
        ],
        ..sources::ReadOptions::default()
    };
    let err =
        sources::read_all(std::slice::from_ref(&json), &options).expect_err("no such parameter");
    assert!(
        err.to_string()
            .contains("no file given declares a parameter or variable of that name"),
        "{err}"
    );
}

#[test]
fn a_terraform_sqs_queue_gives_its_redrive_numbers() {
    // variable default 90 s, local max_receives 5, jsonencode'd redrive policy naming the
    // dead-letter queue, which keeps messages 14 days.
    let imported = read("sqs-queue.tf");
    let layer = only_layer(&imported);
    assert_eq!(layer.name, "SQS payout");
    assert_eq!(layer.attempts, 5);
    assert_eq!(layer.schedule, Schedule::Constant(secs(90)));
    assert_eq!(layer.deadline, Some(secs(345_600)));
    assert_eq!(imported.paths.len(), 1, "the dead-letter redrive");
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.contains("var.visibility_seconds = 90 (its default")),
        "{:?}",
        imported.notes
    );
    let options = sources::ReadOptions {
        params: vec![("visibility_seconds".into(), "30".into())],
        ..sources::ReadOptions::default()
    };
    let given = sources::read_with(&fixture("sqs-queue.tf"), &options).expect("with --param");
    assert_eq!(only_layer(&given).schedule, Schedule::Constant(secs(30)));
    // What it cannot evaluate is named at its line, not guessed.
    let err = sources::read(&fixture("broken/sqs-queue-data.tf")).expect_err("a data source");
    let text = err.to_string();
    assert!(text.contains("sqs-queue-data.tf:2:"), "{text}");
    assert!(text.contains("visibility_timeout_seconds"), "{text}");
}

#[test]
fn a_bare_aws_section_says_to_write_profile() {
    let err = sources::read(&fixture("aws-config-bare-profile")).expect_err("[dev] is no profile");
    let text = err.to_string();
    assert!(text.contains("[profile dev]"), "{text}");
    let err = sources::read(&format!("{}#dev", fixture("aws-config-bare-profile")))
        .expect_err("[dev] is no profile");
    assert!(err.to_string().contains("[profile dev]"), "{err}");
}

#[test]
fn resilience4j_yaml_inherits_and_takes_its_time_limiter() {
    let imported = read("resilience4j-application.yml");
    let layer = only_layer(&imported);
    assert_eq!(layer.name, "resilience4j acquirer");
    assert_eq!(layer.attempts, 4, "from configs.default");
    assert_eq!(
        layer.schedule,
        Schedule::Exponential {
            initial: ms(750),
            multiplier: 2.0,
            cap: Some(secs(5)),
        }
    );
    assert_eq!(layer.jitter, Jitter::Proportional(0.25));
    assert_eq!(layer.timeout, Some(secs(3)), "the TimeLimiter");
    let (_, values) = field(layer);
    assert!(values.contains("configs.default.maxAttempts"), "{values}");
    // Spring's relaxed names (max-attempts) are read too.
    let mailer = sources::read(&format!(
        "{}#mailer",
        fixture("resilience4j-application.yml")
    ))
    .expect("the second instance");
    assert_eq!(only_layer(&mailer).attempts, 2);
    assert_eq!(only_layer(&mailer).timeout, None, "no time limiter for it");
}

#[test]
fn resilience4j_properties_use_the_defaults_they_leave_out() {
    let imported = read("resilience4j-application.properties");
    let layer = only_layer(&imported);
    assert_eq!(layer.attempts, 5);
    assert_eq!(
        layer.schedule,
        Schedule::Exponential {
            initial: secs(2),
            multiplier: 1.5,
            cap: None,
        },
        "PT2S, and Resilience4j's default multiplier"
    );
    assert_eq!(
        layer.timeout,
        Some(secs(4)),
        "the default time limiter config"
    );
}

#[test]
fn resilience4j_backends_the_name_before_instances_are_read() {
    // Resilience4j's Spring Boot starters before 1.0 named instances `backends`, and their
    // attempts `maxRetryAttempts`; a bare number for a duration is milliseconds in Spring.
    let text = "resilience4j.retry:\n    backends:\n        backendA:\n            \
                maxRetryAttempts: 4\n            waitDuration: 100\n";
    let imported = sources::parse(text, "application.yml", None).expect("read");
    let layer = only_layer(&imported);
    assert_eq!(layer.name, "resilience4j backendA");
    assert_eq!(layer.attempts, 4);
    assert_eq!(layer.schedule, Schedule::Constant(ms(100)));
}

#[test]
fn a_sidekiq_yml_gives_sidekiqs_retries_with_its_max_retries() {
    // Sidekiq's options file: `:max_retries:` is the retries of a job whose class sets none;
    // without it, Sidekiq's 25. It used to be "found nothing with retry settings".
    let with = sources::parse(
        "---\n:concurrency: 5\n:max_retries: 3\n:queues:\n  - default\n",
        "config/sidekiq.yml",
        None,
    )
    .expect("read");
    let layer = only_layer(&with);
    assert_eq!(layer.attempts, 4);
    let sidekiq = idem::window::sources::presets::layer("sidekiq").expect("preset");
    assert_eq!(layer.schedule, sidekiq.schedule, "Sidekiq's own waits");
    assert!(
        with.notes
            .iter()
            .any(|n| n.contains(":concurrency:") && n.contains(":queues:")),
        "{:?}",
        with.notes
    );
    let without = sources::parse("---\n:concurrency: 25\n", "sidekiq.yml", None).expect("read");
    assert_eq!(only_layer(&without).attempts, 26);
}

#[test]
fn envoy_retries_only_the_methods_its_retriable_request_headers_let_through() {
    // Envoy retries a request only when it matches retriable_request_headers: a policy for
    // GET leaves a POST charge with its one try. A route matching GET alone is said not to
    // carry a POST, and the route's idle_timeout ends a stream that hears nothing.
    let text = "virtual_hosts:\n- name: api\n  domains: ['*']\n  routes:\n  - match:\n      \
                prefix: /\n      headers:\n      - name: ':method'\n        string_match: \
                {exact: GET}\n    route:\n      cluster: api\n      idle_timeout: 5s\n      \
                retry_policy:\n        num_retries: 3\n        per_try_timeout: 2s\n        \
                retriable_request_headers:\n        - name: ':method'\n          \
                string_match: {exact: GET}\n";
    let imported = sources::parse(text, "route.yaml", None).expect("read");
    let layer = only_layer(&imported);
    assert_eq!(layer.attempts, 1, "{layer:#?}");
    assert_eq!(layer.deadline, Some(secs(5)), "the idle timeout");
    assert!(
        layer.warnings.iter().any(|w| w.contains("POST")),
        "{:?}",
        layer.warnings
    );
    let all = text.replace(
        "string_match: {exact: GET}\n",
        "string_match: {exact: POST}\n",
    );
    let layer = only_layer(&sources::parse(&all, "route.yaml", None).expect("read")).clone();
    assert_eq!(layer.attempts, 4);
    assert!(layer.warnings.is_empty(), "{:?}", layer.warnings);
}

#[test]
fn a_kuma_meshretry_is_read_as_kuma_translates_it() {
    // Kuma makes each to[] entry's default.http an Envoy retry policy: numRetries (Envoy's one
    // retry when absent), perTryTimeout, backOff; an entry for one service takes what it
    // leaves out from the entry for the whole Mesh; numRetries 0 writes no policy.
    let text = "apiVersion: kuma.io/v1alpha1\nkind: MeshRetry\nmetadata:\n  name: retries\n\
                spec:\n  targetRef:\n    kind: Mesh\n  to:\n  - targetRef:\n      kind: Mesh\n    \
                default:\n      http:\n        numRetries: 3\n        perTryTimeout: 2s\n        \
                backOff:\n          baseInterval: 1s\n          maxInterval: 4s\n  - targetRef:\n      \
                kind: MeshService\n      name: payments\n    default:\n      http:\n        \
                numRetries: 1\n";
    let mesh = sources::parse(text, "meshretry.yaml", None).expect("read");
    let layer = only_layer(&mesh);
    assert_eq!(layer.attempts, 4);
    assert_eq!(layer.timeout, Some(secs(2)));
    assert_eq!(
        layer.schedule,
        Schedule::List(vec![secs(1), secs(3), secs(4)])
    );
    let payments = sources::parse(text, "meshretry.yaml", Some("retries/payments")).expect("read");
    let layer = only_layer(&payments);
    assert_eq!(layer.attempts, 2, "its own numRetries");
    assert_eq!(
        layer.timeout,
        Some(secs(2)),
        "the Mesh entry's perTryTimeout"
    );
    let none = text.replace("numRetries: 1", "numRetries: 0");
    let none = sources::parse(&none, "meshretry.yaml", Some("retries/payments")).expect("read");
    assert_eq!(only_layer(&none).attempts, 1);
}

#[test]
fn an_httproute_takes_its_own_retry_then_a_policy_on_the_route_then_on_its_gateway() {
    // Envoy Gateway: the HTTPRoute's own retry (GEP-1731) wins over a BackendTrafficPolicy,
    // and a policy on the route over one on its Gateway; numRetries defaults to 2.
    let route = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  \
                 name: pay\nspec:\n  parentRefs:\n  - name: edge\n  rules:\n  - backendRefs:\n    \
                 - name: pay\n      port: 80\n    timeouts:\n      backendRequest: 1s\n";
    let on_gateway = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: \
                      BackendTrafficPolicy\nmetadata:\n  name: gw\nspec:\n  targetRef:\n    \
                      group: gateway.networking.k8s.io\n    kind: Gateway\n    name: edge\n  \
                      retry:\n    perRetry:\n      backoff:\n        baseInterval: 1s\n";
    let on_route = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: \
                    BackendTrafficPolicy\nmetadata:\n  name: rt\nspec:\n  targetRefs:\n  - \
                    group: gateway.networking.k8s.io\n    kind: HTTPRoute\n    name: pay\n  \
                    retry:\n    numRetries: 4\n";
    let read =
        |text: &str| only_layer(&sources::parse(text, "gw.yaml", None).expect("read")).clone();
    assert_eq!(read(route).attempts, 1, "no retry anywhere");
    let gw = read(&format!("{route}{on_gateway}"));
    assert_eq!(gw.attempts, 3, "Envoy Gateway's default of 2 retries");
    assert_eq!(gw.timeout, Some(secs(1)), "timeouts.backendRequest");
    assert_eq!(read(&format!("{route}{on_gateway}{on_route}")).attempts, 5);
    let own = route.replace(
        "    timeouts:\n",
        "    retry:\n      attempts: 1\n    timeouts:\n",
    );
    assert_eq!(read(&format!("{own}{on_gateway}{on_route}")).attempts, 2);
}

#[test]
fn celery_spring_retry_and_temporal_are_read_in_the_source_that_holds_them() {
    // Written here, after each product's documentation: a Celery task's decorator, Spring
    // Retry's @Retryable and Temporal's RetryPolicy with the activity's start-to-close
    // timeout. They used to be refused as YAML that does not parse.
    let celery = "@shared_task(\n    bind=True,\n    autoretry_for=(ConnectionError,),  # down\n    \
                  retry_kwargs={\"max_retries\": 5, \"countdown\": 60},\n    retry_backoff=True,\n    \
                  retry_backoff_max=16,\n)\ndef charge(self, order_id):\n    pass\n\n\
                  @app.task(max_retries=2, default_retry_delay=30)\ndef refund(order_id):\n    pass\n";
    let charge = sources::parse(celery, "tasks.py", None).expect("read");
    let layer = only_layer(&charge);
    assert_eq!(layer.name, "celery charge");
    assert_eq!(layer.attempts, 6, "retry_kwargs' max_retries");
    assert_eq!(
        layer.schedule,
        Schedule::Exponential {
            initial: secs(1),
            multiplier: 2.0,
            cap: Some(secs(16))
        }
    );
    assert_eq!(layer.jitter, Jitter::Full, "retry_jitter is on by default");
    let refund = sources::parse(celery, "tasks.py", Some("refund")).expect("read");
    assert_eq!(only_layer(&refund).attempts, 3);
    assert_eq!(only_layer(&refund).schedule, Schedule::Constant(secs(30)));
    assert!(
        only_layer(&refund)
            .warnings
            .iter()
            .any(|w| w.contains("self.retry()"))
    );

    let java = "class Billing {\n    @Retryable(retryFor = IOException.class, maxAttempts = 4,\n      \
                backoff = @Backoff(delay = 500, multiplier = 2, maxDelay = 1500))\n    public \
                Receipt charge(Order order) { return null; }\n    @Retryable\n    public void \
                refund(Order order) {}\n}\n";
    let layer = only_layer(&sources::parse(java, "Billing.java", None).expect("read")).clone();
    assert_eq!(layer.attempts, 4);
    assert_eq!(
        layer.schedule,
        Schedule::Exponential {
            initial: ms(500),
            multiplier: 2.0,
            cap: Some(ms(1500))
        }
    );
    let plain = sources::parse(java, "Billing.java", Some("refund")).expect("read");
    assert_eq!(only_layer(&plain).attempts, 3, "Spring Retry's default");
    assert_eq!(only_layer(&plain).schedule, Schedule::Constant(secs(1)));

    let go = "ao := workflow.ActivityOptions{\n\tStartToCloseTimeout: 10 * time.Second,\n\t\
              RetryPolicy: &temporal.RetryPolicy{\n\t\tInitialInterval: time.Second,\n\t\t\
              BackoffCoefficient: 2.0,\n\t\tMaximumInterval: time.Minute,\n\t\tMaximumAttempts: 5,\n\t},\n}\n";
    let layer = only_layer(&sources::parse(go, "workflow.go", None).expect("read")).clone();
    assert_eq!(layer.attempts, 5);
    assert_eq!(layer.timeout, Some(secs(10)));
    assert_eq!(
        layer.schedule,
        Schedule::Exponential {
            initial: secs(1),
            multiplier: 2.0,
            cap: Some(secs(60))
        }
    );
    let ts = "proxyActivities({\n  startToCloseTimeout: '30 seconds',\n  retry: {\n    \
              initialInterval: '2s',\n    backoffCoefficient: 3,\n  },\n});\n";
    let layer = only_layer(&sources::parse(ts, "workflows.ts", None).expect("read")).clone();
    assert!(layer.forever, "no maximumAttempts: no limit");
    assert_eq!(layer.timeout, Some(secs(30)));
    let bad = go.replace("MaximumAttempts: 5", "MaximumAttempts: attempts()");
    let err = sources::parse(&bad, "workflow.go", None).expect_err("computed");
    assert!(err.to_string().contains("workflow.go:7:20"), "{err}");
    assert!(err.to_string().contains("--layer"), "{err}");
}

#[test]
fn sqs_delay_seconds_takes_its_time_from_the_retention_counted_from_the_arrival() {
    // A delay queue hands a message out DelaySeconds after it arrives; the retention, and a
    // standard dead-letter queue's, count from the arrival, so the receives have less of it.
    let text = r#"{"Attributes": {"VisibilityTimeout": "60", "MessageRetentionPeriod": "3600",
        "DelaySeconds": "600", "RedrivePolicy": "{\"maxReceiveCount\":3,\"deadLetterTargetArn\":\"arn:aws:sqs:eu-west-1:1:dlq\"}"}}"#;
    let imported = sources::parse(text, "queue.json", None).expect("read");
    let layer = only_layer(&imported);
    assert_eq!(layer.deadline, Some(secs(3000)));
    assert_eq!(imported.paths[0].delay, secs(4 * 86_400 - 600));
    let none = text.replace(r#""DelaySeconds": "600","#, "");
    let imported = sources::parse(&none, "queue.json", None).expect("read");
    assert_eq!(only_layer(&imported).deadline, Some(secs(3600)));
    assert_eq!(imported.paths[0].delay, secs(4 * 86_400));
}

#[test]
fn an_empty_sqs_redrive_policy_is_no_policy() {
    // "" removes a queue's redrive policy, and old Terraform modules pass "" for "none": it
    // used to be refused as "RedrivePolicy is empty".
    let text = r#"{"Attributes": {"VisibilityTimeout": "60", "RedrivePolicy": ""}}"#;
    let imported = sources::parse(text, "queue.json", None).expect("read");
    assert!(only_layer(&imported).forever, "no limit on receives");
    assert!(imported.paths.is_empty());
}

#[test]
fn linkerd_retry_annotations_on_an_httproute_are_read_as_its_policy_controller_reads_them() {
    // Linkerd 2.16+: any retry.linkerd.io annotation turns retries on, limit 1 when absent or
    // 0, no wait between tries, retry.linkerd.io/timeout a try, timeout.linkerd.io/request all.
    let text = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: \
                api-write\n  annotations:\n    retry.linkerd.io/http: 5xx\n    \
                retry.linkerd.io/limit: \"3\"\n    retry.linkerd.io/timeout: 400ms\n    \
                timeout.linkerd.io/request: 2s\nspec:\n  parentRefs:\n  - name: api\n    kind: \
                Service\n    group: core\n  rules:\n  - backendRefs:\n    - name: api\n      port: 80\n";
    let layer = only_layer(&sources::parse(text, "route.yaml", None).expect("read")).clone();
    assert_eq!(layer.attempts, 4);
    assert_eq!(layer.timeout, Some(ms(400)));
    assert_eq!(layer.deadline, Some(secs(2)));
    assert_eq!(layer.schedule, Schedule::Constant(Duration::ZERO));
    let profile = "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata:\n  name: \
                   api\nspec:\n  routes:\n  - name: POST /charge\n    isRetryable: true\n";
    let err = sources::parse(profile, "profile.yaml", None).expect_err("refused");
    assert!(err.to_string().contains("retryBudget"), "{err}");
    let zero = text.replace("limit: \"3\"", "limit: \"0\"");
    let layer = only_layer(&sources::parse(&zero, "route.yaml", None).expect("read")).clone();
    assert_eq!(layer.attempts, 2, "0 is Linkerd's default of 1");
}

#[test]
fn source_files_cut_short_or_odd_are_refused_with_a_place_never_a_panic() {
    for (text, file) in [
        ("@app.task(max_retries=", "tasks.py"),
        (
            "@shared_task(retry_kwargs={\"max_retries\": }, retry_backoff=é)\ndef x(): pass",
            "t.py",
        ),
        ("@Retryable(backoff = @Backoff(", "A.java"),
        ("@Retryable(maxAttempts = \"ü\")\nvoid f() {}", "A.java"),
        ("RetryPolicy{InitialInterval: , MaximumAttempts: ✓}", "w.go"),
        ("retry: { initialInterval: '1 fortnight' }", "w.ts"),
        ("RetryOptions.newBuilder().setMaximumAttempts(", "W.java"),
        ("", "empty.py"),
    ] {
        match sources::parse(text, file, None) {
            Ok(imported) => assert!(!imported.layers.is_empty(), "{file}: {text:?}"),
            Err(e) => assert!(e.to_string().contains(file), "{file}: {e}"),
        }
    }
}

#[test]
fn polly_options_give_attempt_and_total_timeouts() {
    let imported = read("appsettings.json");
    let layer = only_layer(&imported);
    assert_eq!(layer.name, "polly Clients:Acquirer:Resilience");
    assert_eq!(layer.attempts, 6);
    assert_eq!(
        layer.schedule,
        Schedule::Exponential {
            initial: ms(1500),
            multiplier: 2.0,
            cap: Some(secs(20)),
        }
    );
    assert_eq!(layer.jitter, Jitter::UpTo(2.0));
    assert_eq!(layer.timeout, Some(secs(8)));
    assert_eq!(layer.deadline, Some(secs(90)));
}

#[test]
fn sqs_attributes_give_receives_retention_and_a_redrive_path() {
    let imported = read("sqs-queue-attributes.json");
    let layer = only_layer(&imported);
    assert_eq!(layer.name, "SQS capture-requests");
    assert_eq!(layer.attempts, 4);
    assert_eq!(layer.schedule, Schedule::Constant(secs(90)));
    assert_eq!(layer.deadline, Some(secs(2 * 86_400)));
    assert_eq!(imported.paths.len(), 1);
    let redrive = &imported.paths[0];
    assert_eq!(redrive.delay, secs(4 * 86_400), "SQS's default retention");
    assert_eq!(redrive.start, PathStart::FirstAttempt);
}

#[test]
fn a_lambda_event_invoke_config_waits_one_then_two_minutes() {
    let imported = read("lambda-event-invoke-config.json");
    let layer = only_layer(&imported);
    assert_eq!(layer.attempts, 2);
    assert_eq!(layer.schedule, Schedule::List(vec![secs(60), secs(120)]));
    assert_eq!(layer.deadline, Some(secs(3600)));
}

#[test]
fn a_cloudformation_template_resolves_its_dead_letter_queue() {
    let imported = read("cloudformation-queues.yaml");
    let layer = only_layer(&imported);
    assert_eq!(layer.name, "SQS PayoutQueue");
    assert_eq!(layer.attempts, 3);
    assert_eq!(layer.schedule, Schedule::Constant(secs(120)));
    assert_eq!(
        imported.paths[0].delay,
        secs(1_209_600),
        "the dead-letter queue's own retention, through !GetAtt"
    );
    let lambda = sources::read(&format!(
        "{}#NotifyAsync",
        fixture("cloudformation-queues.yaml")
    ))
    .expect("the Lambda config");
    assert_eq!(only_layer(&lambda).attempts, 3);
    assert_eq!(only_layer(&lambda).deadline, Some(secs(6 * 3600)));
}

#[test]
fn a_kubernetes_job_and_a_cronjob() {
    let job = read("kubernetes-job.yaml");
    let layer = only_layer(&job);
    assert_eq!(layer.attempts, 4);
    assert_eq!(layer.timeout, Some(secs(300)), "the pod's deadline");
    assert_eq!(layer.deadline, Some(secs(1800)), "the Job's deadline");
    assert_eq!(
        layer.schedule,
        Schedule::Exponential {
            initial: secs(10),
            multiplier: 2.0,
            cap: Some(secs(360)),
        }
    );
    let cron = read("kubernetes-cronjob.yaml");
    assert_eq!(only_layer(&cron).attempts, 7, "the default backoffLimit");
    assert_eq!(cron.paths.len(), 1);
    assert_eq!(cron.paths[0].name, "next CronJob run");
    assert_eq!(cron.paths[0].delay, secs(86_400));
}

// ------------------------------------------------------------------ errors

#[test]
fn a_malformed_file_of_each_format_is_refused_at_its_place() {
    let cases = [
        ("envoy-route.yaml", "envoy-route.yaml:8:22:", "num_retries"),
        (
            "istio-virtualservice.yaml",
            "istio-virtualservice.yaml:10:22:",
            "perTryTimeout",
        ),
        ("aws-config", "aws-config:4:1:", "section header"),
        (
            "aws-config-mode",
            "aws-config-mode:2:14:",
            "standard, adaptive or legacy",
        ),
        (
            "resilience4j-application.yml",
            "resilience4j-application.yml:6:",
            "bracket",
        ),
        (
            "resilience4j-application.properties",
            "properties:2:53:",
            "waitDuration",
        ),
        ("appsettings.json", "appsettings.json:5:16:", "time span"),
        (
            "appsettings-syntax.json",
            "appsettings-syntax.json:4:",
            "expected",
        ),
        (
            "sqs-queue-attributes.json",
            "sqs-queue-attributes.json:3:30:",
            "VisibilityTimeout",
        ),
        (
            "lambda-event-invoke-config.json",
            "config.json:2:29:",
            "0, 1 or 2",
        ),
        (
            "kubernetes-job.yaml",
            "kubernetes-job.yaml:6:17:",
            "backoffLimit",
        ),
        (
            "unknown.yaml",
            "unknown.yaml:1:1:",
            "expected an Envoy route",
        ),
    ];
    for (file, place, words) in cases {
        let message = error(file);
        assert!(message.contains(place), "{file}: {message}");
        assert!(message.contains(words), "{file}: {message}");
    }
}

#[test]
fn a_name_that_is_not_in_the_file_is_refused_with_the_names_that_are() {
    let err = sources::read(&format!("{}#setlement", fixture("aws-config")))
        .expect_err("no such profile")
        .to_string();
    assert!(err.contains("did you mean \"settlement\""), "{err}");
    assert!(err.contains("default, settlement, reporting"), "{err}");
}

#[test]
fn hostile_files_are_bounded() {
    let dir = common::TempDir::new("window-sources");
    let huge = dir.file("huge.yaml", &"a: 1\n".repeat(300_000));
    let err = sources::read(&huge).expect_err("too big").to_string();
    assert!(err.contains("larger than 1024 KiB"), "{err}");
    let err = sources::read(&dir.path().display().to_string())
        .expect_err("a directory")
        .to_string();
    assert!(err.contains("this one has no .tf file"), "{err}");
    let binary = dir.write("blob.yaml", &[0xffu8, 0xfe, 0x00, 0x41]);
    let err = sources::read(&binary.display().to_string())
        .expect_err("not text")
        .to_string();
    assert!(err.contains("not UTF-8"), "{err}");
    // Deep nesting and alias bombs stop at the YAML reader's own limits.
    let deep = dir.file(
        "deep.yaml",
        &format!("{}1{}", "[".repeat(5000), "]".repeat(5000)),
    );
    assert!(sources::read(&deep).is_err());
    let bomb = dir.file(
        "bomb.yaml",
        "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
         c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
         e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n\
         g: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
    );
    let _ = sources::read(&bomb);
    let control = dir.file(
        "control.yaml",
        "virtual_hosts:\n- name: \"a\\u001b[31mred\"\n  routes:\n  - name: \"x\\u0007\"\n    route: {}\n",
    );
    let imported = sources::read(&control).expect("names are cleaned");
    assert!(!format!("{:?}", imported.layers[0].name).contains('\u{1b}'));
}

// ------------------------------------------------------------------ presets

#[test]
fn sidekiq_retries_for_about_twenty_days_and_ten_hours() {
    let layer = sources::presets::layer("sidekiq").expect("a preset");
    assert_eq!(layer.attempts, 26);
    let report = Stack {
        layers: vec![layer],
        ..Stack::default()
    }
    .report()
    .expect("valid");
    // Σ count⁴ + 15 s over 25 retries, plus the jitter at its top: 9 s × 325.
    assert_eq!(
        report.automatic_delay.whole_seconds(),
        Some(1_763_395 + 2_925)
    );
    assert_eq!(idem::window::two_units(report.automatic_delay), "20 d 10 h");
}

#[test]
fn an_unbounded_layer_is_flagged_and_a_deadline_bounds_it() {
    let temporal = sources::presets::layer("temporal").expect("a preset");
    assert!(temporal.forever);
    assert!(temporal.warnings.iter().any(|w| w.contains("no bound")));
    let report = Stack {
        layers: vec![temporal.clone()],
        ..Stack::default()
    }
    .report()
    .expect("valid");
    assert!(report.automatic_delay.is_unbounded());
    assert!(
        report.verdict().starts_with("No window is long enough"),
        "{}",
        report.verdict()
    );
    // A ScheduleToClose of 10 minutes ends it: requests at 0, 1, 3, 7 ... 127 s,
    // then every 100 s up to 527 s; the one due at 627 s never leaves.
    let mut bounded = temporal;
    bounded.deadline = Some(secs(600));
    let report = Stack {
        layers: vec![bounded],
        ..Stack::default()
    }
    .report()
    .expect("valid");
    assert_eq!(report.gives_up.whole_seconds(), Some(600));
    assert_eq!(report.sends.exact(), Some(12));
    assert_eq!(report.automatic_delay.whole_seconds(), Some(527));
}

#[test]
fn a_deadline_cuts_the_budget_short() {
    // Polly: 6 tries of 8 s with waits of 3, 6, 12, 24, 40 s at their longest
    // would take 133 s; the total timeout of 90 s stops it after 5 requests.
    let imported = read("appsettings.json");
    let mut stack = Stack {
        layers: imported.layers,
        ..Stack::default()
    };
    let report = stack.report().expect("valid");
    assert_eq!(report.gives_up.whole_seconds(), Some(90));
    assert_eq!(report.sends.exact(), Some(5));
    assert_eq!(report.attempts.exact(), Some(6));
    stack.layers[0].deadline = None;
    let uncut = stack.report().expect("valid");
    assert_eq!(
        uncut.gives_up.whole_seconds(),
        Some(6 * 8 + 3 + 6 + 12 + 24 + 40)
    );
}

fn args(flags: &[&str]) -> WindowArgs {
    use clap::Parser;
    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        window: WindowArgs,
    }
    let mut all = vec!["window"];
    all.extend_from_slice(flags);
    Cli::try_parse_from(all).expect("valid flags").window
}

#[test]
fn a_provider_window_too_short_gets_advice_besides_keeping_keys_longer() {
    let report = stack_from_args(&args(&["--preset", "sidekiq", "--keys-kept", "stripe"]))
        .expect("valid")
        .report()
        .expect("valid");
    let advice = report.provider_advice().expect("the window is too short");
    for fix in ["shorter", "look the order up", "reconcile"] {
        assert!(advice.contains(fix), "{advice}");
    }
    assert!(report.to_text().contains(&advice));
    // A window the team sets, or one long enough, gets none.
    let own = stack_from_args(&args(&["--preset", "sidekiq", "--window", "24h"]))
        .expect("valid")
        .report()
        .expect("valid");
    assert_eq!(own.provider_advice(), None);
}

#[test]
fn the_coverage_sentence_compares_the_retries_with_the_provider() {
    let report = stack_from_args(&args(&["--preset", "sidekiq", "--keys-kept", "stripe"]))
        .expect("valid")
        .report()
        .expect("valid");
    assert_eq!(
        report.keys_sentence().as_deref(),
        Some(
            "Your retries last 20 d 10 h; Stripe keeps keys 24 h: the last retries arrive after \
             the key is gone."
        )
    );
    let adyen = stack_from_args(&args(&["--preset", "sidekiq", "--keys-kept", "adyen"]))
        .expect("valid")
        .report()
        .expect("valid");
    assert_eq!(
        adyen.keys_sentence().as_deref(),
        Some("Your retries last 20 d 10 h; Adyen keeps keys 31 d: long enough for them.")
    );
    let plain = stack_from_args(&args(&["--preset", "celery", "--keys-kept", "36h"]))
        .expect("valid")
        .report()
        .expect("valid");
    assert!(
        plain
            .keys_sentence()
            .is_some_and(|s| s.contains("the provider keeps keys 36 h")),
        "{:?}",
        plain.keys_sentence()
    );
    assert!(report.to_text().contains("Stripe keeps keys 24 h"));
}

#[test]
fn files_presets_and_flags_stack_up_innermost_first() {
    let envoy = fixture("envoy-route.yaml");
    let aws = format!("{}#settlement", fixture("aws-config"));
    let stack = stack_from_args(&args(&[
        "--from",
        &envoy,
        "--from",
        &aws,
        "--preset",
        "lambda-async",
        "--layer",
        "cron=1h:2",
        "--path",
        "dead-set",
    ]))
    .expect("valid");
    let names: Vec<&str> = stack.layers.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "envoy route authorize",
            "AWS SDK (settlement)",
            "lambda async",
            "cron"
        ]
    );
    assert_eq!(stack.paths[0].name, "Sidekiq Dead set retry");
    assert_eq!(stack.paths[0].start, PathStart::AfterGiveUp);
    assert_eq!(stack.paths[0].delay, secs(180 * 86_400));
}

#[test]
fn the_json_carries_where_each_value_came_from() {
    let envoy = fixture("envoy-route.yaml");
    let report = stack_from_args(&args(&["--from", &envoy, "--preset", "temporal"]))
        .expect("valid")
        .report()
        .expect("valid");
    let json: serde_json::Value =
        serde_json::from_str(&idem::window::json::to_json(&report).expect("json"))
            .expect("valid json");
    let first = &json["layers"][0];
    assert_eq!(
        first["source"]["field"],
        "virtual_hosts[0].routes[0].route.retry_policy"
    );
    assert_eq!(first["source"]["line"], 13);
    assert!(
        first["source"]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("envoy-route.yaml"))
    );
    assert_eq!(first["schedule"]["kind"], "list");
    assert_eq!(first["jitter"]["kind"], "full");
    assert_eq!(first["deadline_s"], 9);
    assert_eq!(json["layers"][1]["attempts"], "unbounded");
    assert!(
        json["layers"][1]["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("no bound"))
    );
    assert_eq!(json["automatic_delay_s"], "unbounded");
    assert!(
        json["notes"][0]
            .as_str()
            .is_some_and(|n| n.contains("2 routes"))
    );
}

#[test]
fn the_text_says_where_each_value_came_from() {
    let text = idem::cli::window::run(&args(&["--from", &fixture("istio-virtualservice.yaml")]))
        .expect("runs");
    assert!(text.contains("Where the values were read"), "{text}");
    assert!(
        text.contains("istio-virtualservice.yaml:17 (spec.http[0].retries)"),
        "{text}"
    );
    assert!(
        text.contains("attempts 5 = retries.attempts 4 + 1"),
        "{text}"
    );
    assert!(text.contains("  timeout  deadline"), "{text}");
}

// ---------------------------------------------------------- the simulator

#[test]
fn an_imported_stack_replays_and_agrees_with_the_simulator() {
    // Resilience4j inside a Kubernetes Job: exponential waits with a cap and a
    // jitter taken at its top, a per-try timeout, a pod deadline cutting the
    // inner retries, and a Job deadline over all.
    let mut stack = stack_from_args(&args(&[
        "--from",
        &fixture("resilience4j-application.yml"),
        "--from",
        &fixture("kubernetes-job.yaml"),
    ]))
    .expect("valid");
    stack.window = secs(600);
    let report = stack.report().expect("valid");
    let scenario = replay_scenario(&stack, &Purchase::default()).expect("replays");
    assert!(!scenario.description.contains("evened out"));
    let trace = scenario.simulate(Design::WithCharge).expect("runs");
    let sends: Vec<u64> = trace
        .ticks
        .iter()
        .filter(|t| t.kind == TickKind::Send)
        .map(|t| t.at.0)
        .collect();
    let first = sends[0];
    let last = sends.last().copied().unwrap_or(first);
    assert_eq!(sends.len() as u128, report.sends.exact().expect("exact"));
    assert_eq!(
        u128::from(last - first) * 1_000_000,
        report.automatic_delay.as_nanos().expect("exact")
    );
    assert_eq!(report.uncovered_count() == 0, trace.outcome.charges == 1);
}

#[test]
fn enter_on_an_imported_stack_opens_its_replay() {
    use idem::tui::window::{WindowAction, WindowScreen};
    use ratatui::crossterm::event::KeyCode;
    let stack = stack_from_args(&args(&[
        "--from",
        &fixture("lambda-event-invoke-config.json"),
    ]))
    .expect("valid");
    let mut screen = WindowScreen::new(stack);
    let WindowAction::OpenScenario(scenario) =
        screen.handle_key(idem::tui::keymap::key(common::key(KeyCode::Enter)))
    else {
        panic!("Enter replays: {:?}", screen.notice());
    };
    // Lambda's 1 min then 2 min replay exactly; its event age becomes a
    // deadline around the whole run.
    let layers = &scenario.config.layers;
    assert_eq!(layers[0].attempts, 2);
    assert_eq!(layers[0].backoff.initial_ms, 60_000);
    assert_eq!(layers[1].deadline_ms, Some(3_600_000));
}

#[test]
fn a_sidekiq_replay_evens_its_waits_out_and_says_so() {
    let stack = stack_from_args(&args(&["--preset", "sidekiq"])).expect("valid");
    let scenario = replay_scenario(&stack, &Purchase::default()).expect("replays");
    assert!(
        scenario.description.contains("evened out"),
        "{}",
        scenario.description
    );
}

#[test]
fn the_screen_shows_where_the_selected_layer_was_read() {
    use idem::tui::window::{WindowScreen, render};
    let stack = stack_from_args(&args(&[
        "--from",
        &fixture("istio-virtualservice.yaml#ledger/refunds"),
        "--keys-kept",
        "stripe",
    ]))
    .expect("valid");
    let screen = WindowScreen::new(stack);
    let text = common::screen_text(120, 36, |frame| {
        render(frame, frame.area(), &screen, &common::PLAIN)
    });
    let flat = common::collapse(&text);
    assert!(flat.contains("▶ 1 ⚠ istio ledger"), "{text}");
    // The long file name may wrap, the line and field do not.
    assert!(flat.contains("yaml:22 (spec.http[1])"), "{text}");
    // The warning wraps where the checkout's path puts it: "a hidden" starts it.
    assert!(flat.contains("⚠ a hidden"), "{text}");
    assert!(flat.contains("Stripe keeps keys 24 h"), "{text}");
}

/// The example docs/window.md prints is what the calculator prints for those three files.
#[test]
fn the_documented_example_holds() {
    let text = idem::cli::window::run(&args(&[
        "--from",
        &fixture("envoy-route.yaml"),
        "--from",
        &fixture("resilience4j-application.yml"),
        "--from",
        &fixture("kubernetes-cronjob.yaml"),
        "--keys-kept",
        "stripe",
    ]))
    .expect("runs");
    for line in [
        "  1  envoy route authorize    100 ms, 300 ms, 700 ms, 1 s         4      2 s       9 s",
        "  2  resilience4j acquirer    750 ms ×2 to 5 s                    4      3 s         -",
        "  3  cronjob nightly-charges  10 s ×2 to 6 min                    7        -         -",
        "Attempts for one intent  112",
        "Requests sent            56 (deadlines cut the others short)",
        "next CronJob run  24 h      covered",
        "The window of 24 h covers every path, but without the safety factor of 2; it needs 2 days.",
        "Your retries last 12 min 39 s; Stripe keeps keys 24 h: long enough for them.",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    let page = std::fs::read_to_string(common::manifest("docs/window.md")).expect("docs/window.md");
    assert!(page.contains("Attempts for one intent  112"));
}

// ------------------------------------------------------------------ Terraform modules

fn read_all(specs: &[String], params: &[(&str, &str)]) -> Result<Vec<Imported>, String> {
    let options = sources::ReadOptions {
        params: params
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
        ..sources::ReadOptions::default()
    };
    sources::read_all(specs, &options).map_err(|e| e.to_string())
}

#[test]
fn a_terraform_folder_is_one_module_and_param_sets_a_variable_of_any_of_its_files() {
    let dir = common::TempDir::new("tf-module");
    dir.file(
        "main.tf",
        "resource \"aws_sqs_queue\" \"orders\" {\n  name = var.name\n  visibility_timeout_seconds = var.visibility\n  \
         redrive_policy = jsonencode({\n    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn\n    \
         maxReceiveCount = local.receives\n  })\n}\n\nresource \"aws_sqs_queue\" \"orders_dlq\" {\n  \
         message_retention_seconds = 1209600\n}\n",
    );
    dir.file(
        "variables.tf",
        "variable \"name\" {}\nvariable \"visibility\" {\n  type = number\n  default = 45\n}\n\
         variable \"receives\" {\n  type = number\n  default = 3\n}\n",
    );
    dir.file(
        "locals.tf",
        "locals {\n  receives = max(var.receives, 2)\n}\n",
    );
    let folder = dir.path().display().to_string();
    let imported = read_all(std::slice::from_ref(&folder), &[]).expect("the folder");
    let layer = only_layer(&imported[0]);
    assert_eq!(layer.attempts, 3);
    assert_eq!(layer.schedule, Schedule::Constant(secs(45)));
    assert_eq!(imported[0].paths[0].delay, secs(1_209_600));
    // var.name has no default and names nothing the window needs: no refusal.
    let given = read_all(std::slice::from_ref(&folder), &[("receives", "6")]).expect("--param");
    assert_eq!(
        only_layer(&given[0]).attempts,
        6,
        "a variable of variables.tf"
    );
    // One .tf file reads the rest of its folder, and several are one module, read once.
    let main = dir.join("main.tf").display().to_string();
    let vars = dir.join("variables.tf").display().to_string();
    let both = read_all(&[main.clone(), vars], &[("visibility", "10")]).expect("two files");
    assert_eq!(both.len(), 1, "one module");
    assert_eq!(only_layer(&both[0]).schedule, Schedule::Constant(secs(10)));
    let err = read_all(&[main], &[("recieves", "6")]).expect_err("a misspelt variable");
    assert!(err.contains("did you mean receives?"), "{err}");
}

#[test]
fn a_terraform_value_the_window_needs_is_named_with_its_param_and_one_it_does_not_never_blocks() {
    let dir = common::TempDir::new("tf-unknown");
    dir.file(
        "main.tf",
        "variable \"dlq_arn\" {}\nvariable \"receives\" {}\n\n\
         resource \"aws_sqs_queue\" \"payouts\" {\n  redrive_policy = jsonencode({\n    \
         deadLetterTargetArn = var.dlq_arn\n    maxReceiveCount = var.receives\n  })\n}\n",
    );
    let folder = dir.path().display().to_string();
    let err = read_all(std::slice::from_ref(&folder), &[]).expect_err("receives is needed");
    assert!(
        err.contains("main.tf:5:")
            && err.contains(
                "var.receives has no default; give its value with --param receives=VALUE"
            ),
        "{err}"
    );
    assert!(!err.contains("dlq_arn"), "the ARN is not needed: {err}");
    let imported = read_all(&[folder], &[("receives", "4")]).expect("given");
    assert_eq!(only_layer(&imported[0]).attempts, 4);
    let source = imported[0].paths[0].provenance.as_ref().expect("a source");
    assert!(
        source
            .values
            .iter()
            .any(|v| v.contains("var.dlq_arn has no default")),
        "{:?}",
        source.values
    );
}

#[test]
fn terraform_counts_redrive_policy_resources_and_the_functions_sqs_modules_call() {
    let dir = common::TempDir::new("tf-functions");
    dir.file(
        "main.tf",
        "variable \"create_legacy\" {\n  default = false\n}\nvariable \"settings\" {\n  default = {\n    \
         visibility = null\n    receives = \"5\"\n  }\n}\nlocals {\n  \
         defaults = { visibility = 20, retention = 7200 }\n  merged = merge(local.defaults, { retention = 3600 })\n}\n\n\
         resource \"aws_sqs_queue\" \"legacy\" {\n  count = var.create_legacy ? 1 : 0\n  \
         visibility_timeout_seconds = 1\n}\n\nresource \"aws_sqs_queue\" \"jobs\" {\n  \
         visibility_timeout_seconds = coalesce(var.settings.visibility, lookup(local.defaults, \"visibility\", 30))\n  \
         message_retention_seconds = try(local.merged.retention, 60)\n}\n\n\
         resource \"aws_sqs_queue\" \"jobs_dlq\" {\n  message_retention_seconds = try(local.nope, 86400)\n}\n\n\
         resource \"aws_sqs_queue_redrive_policy\" \"jobs\" {\n  queue_url = aws_sqs_queue.jobs.id\n  \
         redrive_policy = jsonencode({\n    deadLetterTargetArn = aws_sqs_queue.jobs_dlq.arn\n    \
         maxReceiveCount = tonumber(var.settings.receives)\n  })\n}\n",
    );
    let imported = read_all(&[dir.path().display().to_string()], &[]).expect("read");
    let layer = only_layer(&imported[0]);
    assert_eq!(layer.name, "SQS jobs", "count = 0 makes no legacy queue");
    assert_eq!(layer.attempts, 5, "from the redrive policy resource");
    assert_eq!(layer.schedule, Schedule::Constant(secs(20)));
    assert_eq!(layer.deadline, Some(secs(3600)));
    assert_eq!(imported[0].paths[0].delay, secs(86_400));
    assert!(
        imported[0]
            .notes
            .iter()
            .any(|n| n.contains("aws_sqs_queue.legacy has count = 0")),
        "{:?}",
        imported[0].notes
    );
}

#[test]
fn the_registry_sqs_module_and_a_module_folder_are_read_as_their_sources_make_queues() {
    let dir = common::TempDir::new("tf-modules");
    dir.file(
        "main.tf",
        "module \"orders\" {\n  source  = \"terraform-aws-modules/sqs/aws\"\n  version = \"~> 4.0\"\n  \
         name = \"orders\"\n  visibility_timeout_seconds = 120\n  create_dlq = true\n  \
         dlq_message_retention_seconds = 1209600\n  redrive_policy = {\n    maxReceiveCount = 3\n  }\n}\n\n\
         module \"legacy\" {\n  source  = \"terraform-aws-modules/sqs/aws\"\n  version = \"3.5.0\"\n  \
         redrive_policy = \"{\\\"maxReceiveCount\\\": 2, \\\"deadLetterTargetArn\\\": \\\"arn:aws:sqs:eu-west-1:1:x\\\"}\"\n}\n\n\
         module \"workers\" {\n  source   = \"./modules/queue\"\n  for_each = { fast = 10, slow = 300 }\n  \
         visibility = each.value\n}\n",
    );
    std::fs::create_dir_all(dir.join("modules/queue")).expect("a folder");
    std::fs::create_dir_all(dir.join("plain")).expect("a folder");
    dir.file(
        "modules/queue/main.tf",
        "variable \"visibility\" {}\nresource \"aws_sqs_queue\" \"this\" {\n  \
         visibility_timeout_seconds = var.visibility\n  redrive_policy = jsonencode({\n    \
         deadLetterTargetArn = aws_sqs_queue.dlq.arn\n    maxReceiveCount = 2\n  })\n}\n\
         resource \"aws_sqs_queue\" \"dlq\" {}\noutput \"arn\" {\n  value = aws_sqs_queue.this.arn\n}\n",
    );
    let folder = dir.path().display().to_string();
    let imported = read_all(std::slice::from_ref(&folder), &[]).expect("read");
    let layer = only_layer(&imported[0]);
    assert_eq!(layer.name, "SQS module.orders");
    assert_eq!(layer.attempts, 3, "redrive_policy over the module's 5");
    assert_eq!(layer.schedule, Schedule::Constant(secs(120)));
    assert_eq!(
        imported[0].paths[0].delay,
        secs(1_209_600),
        "dlq_message_retention_seconds"
    );
    let legacy = read_all(&[format!("{folder}#module.legacy")], &[]).expect("v3");
    assert_eq!(
        only_layer(&legacy[0]).attempts,
        2,
        "v3 takes the policy as JSON text"
    );
    let slow =
        read_all(&[format!("{folder}#module.workers[\"slow\"].this")], &[]).expect("for_each");
    let slow = only_layer(&slow[0]);
    assert_eq!(
        (slow.attempts, slow.schedule.clone()),
        (2, Schedule::Constant(secs(300)))
    );
    // Without create_dlq, the module's 5 is not there: no policy, no limit but retention.
    let plain = dir.file(
        "plain/main.tf",
        "module \"q\" {\n  source = \"terraform-aws-modules/sqs/aws\"\n}\n",
    );
    let plain = read_all(&[plain], &[]).expect("defaults");
    assert!(only_layer(&plain[0]).forever);
    assert!(
        plain[0]
            .notes
            .iter()
            .any(|n| n.contains("no version pinned") && n.contains("v5.2.1")),
        "{:?}",
        plain[0].notes
    );
}

#[test]
fn terraform_that_does_not_parse_is_refused_at_its_line_and_column() {
    let dir = common::TempDir::new("tf-broken");
    let file = dir.file(
        "main.tf",
        "resource \"aws_sqs_queue\" \"q\" {\n  visibility_timeout_seconds = \n}\n",
    );
    let err = read_all(&[file], &[]).expect_err("broken").to_string();
    assert!(
        err.contains("main.tf:3:1:") || err.contains("main.tf:2:"),
        "{err}"
    );
    assert!(err.contains("expected HCL"), "{err}");
}

// ------------------------------------------------------------------ CloudFormation at its defaults

#[test]
fn cloudformation_no_value_removes_a_property_and_nested_short_forms_are_worked_out() {
    let dir = common::TempDir::new("cfn-defaults");
    let template = dir.file(
        "queue.yaml",
        "Parameters:\n  QueueName:\n    Type: String\n  DeadLetterArn:\n    Type: String\n    Default: \"\"\n  \
         Stage:\n    Type: String\n    Default: prod\nMappings:\n  Stages:\n    prod:\n      Visibility: 90\n\
         Conditions:\n  HasDeadLetter: !Not [!Equals [\"\", !Ref DeadLetterArn]]\n  \
         IsProd: !And [!Equals [!Ref Stage, prod], !Condition HasDeadLetter]\n\
         Resources:\n  Queue:\n    Type: AWS::SQS::Queue\n    Properties:\n      QueueName: !Sub \"${QueueName}-${AWS::Region}\"\n      \
         VisibilityTimeout: !FindInMap [Stages, !Ref Stage, Visibility]\n      \
         RedrivePolicy: !If\n        - HasDeadLetter\n        - deadLetterTargetArn: !Ref DeadLetterArn\n          maxReceiveCount: 4\n        \
         - !Ref AWS::NoValue\n  Spare:\n    Type: AWS::SQS::Queue\n    Condition: IsProd\n",
    );
    let imported = read_all(std::slice::from_ref(&template), &[]).expect("QueueName is not needed");
    let layer = only_layer(&imported[0]);
    assert!(layer.forever, "AWS::NoValue: no redrive policy at all");
    assert_eq!(
        layer.schedule,
        Schedule::Constant(secs(90)),
        "Fn::FindInMap"
    );
    assert!(
        imported[0]
            .notes
            .iter()
            .any(|n| n.contains("resource Spare is not created")),
        "{:?}",
        imported[0].notes
    );
    let given = read_all(
        std::slice::from_ref(&template),
        &[("DeadLetterArn", "arn:aws:sqs:eu-west-1:1:dlq")],
    )
    .expect("given");
    assert_eq!(only_layer(&given[0]).attempts, 4);
    // The JSON form of the same condition.
    let json = dir.file(
        "queue.json",
        r#"{"Parameters": {"Receives": {"Type": "Number"}},
            "Conditions": {"Many": {"Fn::Not": [{"Fn::Equals": [{"Ref": "Receives"}, "1"]}]}},
            "Resources": {"Q": {"Type": "AWS::SQS::Queue", "Properties": {
              "RedrivePolicy": {"Fn::If": ["Many", {"deadLetterTargetArn": "arn:aws:sqs:x:1:d", "maxReceiveCount": {"Ref": "Receives"}},
                                                   {"Ref": "AWS::NoValue"}]}}}}}"#,
    );
    let err = read_all(std::slice::from_ref(&json), &[]).expect_err("Receives is needed");
    assert!(
        err.contains(
            "parameter Receives has no Default; give its value with --param Receives=VALUE"
        ),
        "{err}"
    );
    let given = read_all(&[json], &[("Receives", "7")]).expect("given");
    assert_eq!(only_layer(&given[0]).attempts, 7);
}

// ------------------------------------------------------------------ Kubernetes Jobs

#[test]
fn a_job_with_a_limit_per_index_retries_each_index_that_many_times() {
    let dir = common::TempDir::new("k8s-per-index");
    let job = dir.file(
        "job.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: settle\nspec:\n  completions: 10\n  \
         completionMode: Indexed\n  backoffLimitPerIndex: 1\n  template:\n    spec:\n      restartPolicy: Never\n",
    );
    let imported = read_all(std::slice::from_ref(&job), &[]).expect("read");
    let layer = only_layer(&imported[0]);
    assert_eq!(
        layer.attempts, 2,
        "backoffLimitPerIndex 1, not the default 6"
    );
    assert!(!layer.forever);
    let (_, notes) = field(layer);
    assert!(notes.contains("2,147,483,647"), "{notes}");
    // A Job-wide backoffLimit below it still stops the index sooner.
    let capped = dir.file(
        "capped.yaml",
        "kind: Job\nmetadata:\n  name: settle\nspec:\n  completionMode: Indexed\n  \
         backoffLimitPerIndex: 4\n  backoffLimit: 2\n  template:\n    spec: {}\n",
    );
    let imported = read_all(&[capped], &[]).expect("read");
    assert_eq!(only_layer(&imported[0]).attempts, 3);
}

#[test]
fn pod_failure_policy_rules_change_what_is_retried_and_say_so() {
    let dir = common::TempDir::new("k8s-policy");
    let job = dir.file(
        "job.yaml",
        "kind: Job\nmetadata:\n  name: payouts\nspec:\n  backoffLimit: 3\n  podFailurePolicy:\n    rules:\n    \
         - action: FailJob\n      onExitCodes:\n        operator: In\n        values: [42]\n    \
         - action: Ignore\n      onPodConditions:\n      - type: DisruptionTarget\n  \
         template:\n    spec:\n      restartPolicy: Never\n",
    );
    let imported = read_all(std::slice::from_ref(&job), &[]).expect("read");
    let layer = only_layer(&imported[0]);
    assert!(layer.forever, "disruptions are retried without counting");
    assert!(
        layer
            .warnings
            .iter()
            .any(|w| w.contains("DisruptionTarget") && w.contains("set activeDeadlineSeconds")),
        "{:?}",
        layer.warnings
    );
    let (_, notes) = field(layer);
    assert!(notes.contains("exit codes in 42): FailJob"), "{notes}");
    let bounded = dir.file(
        "bounded.yaml",
        "kind: Job\nmetadata:\n  name: payouts\nspec:\n  activeDeadlineSeconds: 600\n  podFailurePolicy:\n    \
         rules:\n    - action: Ignore\n      onPodConditions:\n      - type: DisruptionTarget\n  template:\n    spec: {}\n",
    );
    let imported = read_all(&[bounded], &[]).expect("read");
    let report = Stack {
        layers: imported[0].layers.clone(),
        ..Stack::default()
    }
    .report()
    .expect("bounded by the deadline");
    assert_eq!(report.gives_up.whole_seconds(), Some(600));
    let bad = dir.file(
        "bad.yaml",
        "kind: Job\nmetadata:\n  name: p\nspec:\n  podFailurePolicy:\n    rules:\n    - action: Retry\n  template:\n    spec: {}\n",
    );
    let err = read_all(&[bad], &[]).expect_err("no such action");
    assert!(
        err.contains("bad.yaml:7:") && err.contains("expected FailJob, FailIndex, Ignore or Count"),
        "{err}"
    );
}
