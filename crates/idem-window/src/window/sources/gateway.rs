//! The retry policies people write for Envoy-based gateways and meshes, read as their
//! controllers document they translate them into Envoy's route retry policy:
//!
//! - Gateway API `HTTPRoute` (v1.2, GEP-1731 and GEP-1742): a rule's `retry.attempts` is the
//!   retries after the first try, `retry.backoff` the least wait between tries (Envoy-based
//!   implementations make it Envoy's base interval, growing with full jitter to ten times
//!   it); `timeouts.backendRequest` bounds each try and `timeouts.request` the whole
//!   exchange, retries included. A rule without `retry` gets what the implementation adds.
//! - Envoy Gateway `BackendTrafficPolicy` (v1.3): `retry.numRetries` (2 when absent),
//!   `retry.perRetry.timeout`, `retry.perRetry.backoff.baseInterval` / `maxInterval`, and
//!   `timeout.http.requestTimeout`, attached to an `HTTPRoute` or to the `Gateway` its rules
//!   hang from; a policy on the route wins over one on its Gateway, and the route's own
//!   `retry` (GEP-1731) wins over both, as Envoy Gateway's retry task says.
//! - Kuma `MeshRetry` (2.9): each `to[]` entry's `default.http` — `numRetries` (Envoy's 1
//!   when absent; 0 writes no retry policy at all), `perTryTimeout`, `backOff.baseInterval`
//!   / `maxInterval` — with an entry for a named service taking what it does not set from the
//!   entry for the whole `Mesh`, as Kuma merges its policies.
//!
//! Files may be several YAML documents, or lists under `httpRoutes`, `gateways` and
//! `backendTrafficPolicies` as Envoy Gateway's own translation tests write them.

use std::time::Duration;

use super::durations::Style;
use super::envoy::{BASE, envoy_waits, span};
use super::fields::Doc;
use super::tree::Node;
use super::{Imported, pick};
use crate::window::{Jitter, Layer, Provenance, Schedule, WindowError};

/// Envoy Gateway's documented default number of retries once a retry policy is given.
const EG_RETRIES: u64 = 2;

fn kind(node: &Node) -> Option<String> {
    node.get_exact("kind")
        .or_else(|| node.get_exact("type"))
        .and_then(Node::scalar_text)
}

fn name(node: &Node) -> Option<String> {
    node.get("metadata")
        .and_then(|m| m.get("name"))
        .or_else(|| node.get_exact("name"))
        .and_then(Node::scalar_text)
}

/// Every object in the documents: each document, and each item of its lists under the keys
/// Envoy Gateway's translation tests use.
fn objects(documents: &[Node]) -> Vec<&Node> {
    let mut out = Vec::new();
    for d in documents {
        if kind(d).is_some() {
            out.push(d);
        }
        for key in [
            "httpRoutes",
            "grpcRoutes",
            "gateways",
            "backendTrafficPolicies",
            "items",
        ] {
            if let Some(list) = d.get_exact(key) {
                out.extend(list.items().iter().filter(|n| kind(n).is_some()));
            }
        }
    }
    out
}

/// Whether the documents hold an object this reader reads.
pub fn present(documents: &[Node]) -> bool {
    objects(documents).iter().any(|o| {
        matches!(
            kind(o).as_deref(),
            Some("HTTPRoute" | "BackendTrafficPolicy" | "MeshRetry")
        )
    })
}

/// The envoy-style policy a reader found: what the layer is made of.
struct Policy<'a> {
    retries: Option<(&'a Node, &'static str)>,
    per_try: Option<(&'a Node, &'static str)>,
    base: Option<(&'a Node, &'static str)>,
    max: Option<(&'a Node, &'static str)>,
    deadline: Option<(&'a Node, &'static str)>,
}

/// Builds the layer: `default_retries` when none is written.
fn layer(
    doc: &Doc<'_>,
    label: String,
    policy: &Policy<'_>,
    default_retries: (u64, &str),
    source: &mut Provenance,
) -> Result<Layer, WindowError> {
    let mut layer = Layer::new(label, Duration::ZERO, 1);
    let retries = match policy.retries {
        Some((n, what)) => {
            let r = doc.count(n, what)?;
            source.note(format!("attempts {} = {what} {r} + 1", r + 1));
            r
        }
        None => {
            source.note(format!(
                "attempts {}: {}",
                default_retries.0 + 1,
                default_retries.1
            ));
            default_retries.0
        }
    };
    layer.attempts = retries.saturating_add(1);
    if retries == 0 {
        layer.schedule = Schedule::Constant(Duration::ZERO);
        return finish(doc, layer, policy, source);
    }
    let base = match policy.base {
        Some((n, what)) => {
            let b = doc.duration(n, Style::Go, what)?;
            if b.is_zero() {
                return Err(doc.error(n, format!("{what} must be longer than zero")));
            }
            source.note(format!("waits from {} ({what})", span(b)));
            b
        }
        None => {
            source.note("waits from 25 ms: Envoy's default base interval");
            BASE
        }
    };
    let max = match policy.max {
        Some((n, what)) => {
            let m = doc.duration(n, Style::Go, what)?;
            if m < base {
                return Err(doc.error(n, format!("{what} must be at least the base interval")));
            }
            source.note(format!("at most {} each ({what})", span(m)));
            m
        }
        None => {
            let m = base.saturating_mul(10);
            source.note(format!(
                "at most {} each: ten times the base (Envoy's default)",
                span(m)
            ));
            m
        }
    };
    source.note(
        "each wait drawn at random up to (2^n − 1) × base before retry n: counted at the top",
    );
    layer.schedule = Schedule::List(envoy_waits(base, max));
    layer.jitter = Jitter::Full;
    finish(doc, layer, policy, source)
}

/// The per-try timeout and the deadline of `layer`.
fn finish(
    doc: &Doc<'_>,
    mut layer: Layer,
    policy: &Policy<'_>,
    source: &mut Provenance,
) -> Result<Layer, WindowError> {
    if let Some((n, what)) = policy.per_try {
        let t = doc.duration(n, Style::Go, what)?;
        if !t.is_zero() {
            source.note(format!("each try waits {} ({what})", span(t)));
            layer.timeout = Some(t);
        }
    }
    if let Some((n, what)) = policy.deadline {
        let t = doc.duration(n, Style::Go, what)?;
        if t.is_zero() {
            source.note(format!("{what} 0s: no overall deadline"));
        } else {
            source.note(format!("all tries within {} ({what})", span(t)));
            layer.deadline = Some(t);
            if layer.timeout.is_none() {
                layer.timeout = Some(t);
            }
        }
    }
    Ok(layer)
}

/// Whether `policy` (a BackendTrafficPolicy) is attached to the object of `kind` named `name`.
fn targets(policy: &Node, kind_wanted: &str, name_wanted: &str) -> bool {
    let Some(spec) = policy.get("spec") else {
        return false;
    };
    let one = spec.get("targetRef").into_iter();
    let many = spec
        .get("targetRefs")
        .map(Node::items)
        .unwrap_or_default()
        .iter();
    one.chain(many).any(|r| {
        r.get("kind").and_then(Node::scalar_text).as_deref() == Some(kind_wanted)
            && r.get("name").and_then(Node::scalar_text).as_deref() == Some(name_wanted)
    })
}

/// Reads the HTTPRoute rule, MeshRetry entry or BackendTrafficPolicy `selector` names (or
/// the first).
pub fn read(
    doc: &Doc<'_>,
    documents: &[Node],
    selector: Option<&str>,
) -> Result<Imported, WindowError> {
    let all = objects(documents);
    let of_kind = |k: &str| -> Vec<&Node> {
        all.iter()
            .copied()
            .filter(|o| kind(o).as_deref() == Some(k))
            .collect()
    };
    let routes = of_kind("HTTPRoute");
    let policies = of_kind("BackendTrafficPolicy");
    let mesh_retries = of_kind("MeshRetry");
    let mut notes = Vec::new();
    if !of_kind("GRPCRoute").is_empty() {
        notes.push(format!(
            "{}: GRPCRoutes not read (a charge is an HTTP request)",
            doc.file
        ));
    }
    if !mesh_retries.is_empty() && routes.is_empty() {
        return read_mesh_retry(doc, &mesh_retries, selector, notes);
    }
    let mut candidates = Vec::new();
    for route in &routes {
        let route_name = name(route).unwrap_or_else(|| "HTTPRoute".to_owned());
        let Some(rules) = route.get("spec").and_then(|s| s.get("rules")) else {
            continue;
        };
        for (i, rule) in doc.list(rules, "spec.rules")?.iter().enumerate() {
            let rule_name = rule
                .get("name")
                .and_then(Node::scalar_text)
                .unwrap_or_else(|| (i + 1).to_string());
            let label = crate::text::sanitize_line(&format!("{route_name}/{rule_name}"));
            candidates.push((label, (*route, rule, i)));
        }
    }
    if candidates.is_empty() {
        return Err(super::tree::error_at(
            doc.file,
            documents.first().map_or((0, 0), |d| d.at),
            "found a BackendTrafficPolicy but no HTTPRoute with rules it applies to; give the \
             HTTPRoute in the same file",
        ));
    }
    let (label, (route, rule, i)) = pick(doc, "HTTPRoute rule", candidates, selector, &mut notes)?;
    let route_name = name(route).unwrap_or_default();
    let on_route = policies
        .iter()
        .copied()
        .find(|p| targets(p, "HTTPRoute", &route_name));
    let gateways: Vec<String> = route
        .get("spec")
        .and_then(|s| s.get("parentRefs"))
        .map(Node::items)
        .unwrap_or_default()
        .iter()
        .filter_map(|r| r.get("name").and_then(Node::scalar_text))
        .collect();
    let on_gateway = policies
        .iter()
        .copied()
        .find(|p| gateways.iter().any(|g| targets(p, "Gateway", g)));
    let btp = on_route.or(on_gateway);
    let mut source = doc.provenance(rule, format!("spec.rules[{i}]"));
    if let (Some(_), Some(_)) = (on_route, on_gateway) {
        source.note(
            "a BackendTrafficPolicy on the route and one on its Gateway: the route's is read",
        );
    }
    let btp_retry = btp.and_then(|p| p.get("spec")).and_then(|s| s.get("retry"));
    let route_retry = rule.get("retry");
    let timeouts = rule.get("timeouts");
    let btp_timeout = btp
        .and_then(|p| p.get("spec"))
        .and_then(|s| s.get("timeout"))
        .and_then(|t| t.get("http"))
        .and_then(|h| h.get("requestTimeout"));
    let btp_name = btp.and_then(name).unwrap_or_default();
    let mut policy = Policy {
        retries: None,
        per_try: None,
        base: None,
        max: None,
        deadline: None,
    };
    let default_retries;
    let mut warnings = Vec::new();
    match (route_retry, btp_retry) {
        (Some(r), other) => {
            if other.is_some() {
                source.note(format!(
                    "the rule's own retry wins over BackendTrafficPolicy {btp_name}'s (Envoy \
                     Gateway 1.3 and later)"
                ));
            }
            policy.retries = r.get("attempts").map(|n| (n, "retry.attempts"));
            policy.base = r.get("backoff").map(|n| (n, "retry.backoff"));
            default_retries = (
                EG_RETRIES,
                "retry.attempts not written, which the Gateway API leaves to the \
                 implementation: counted as Envoy Gateway's 2 retries",
            );
        }
        (None, Some(r)) => {
            source.note(format!("retry from BackendTrafficPolicy {btp_name}"));
            policy.retries = r.get("numRetries").map(|n| (n, "retry.numRetries"));
            let per = r.get("perRetry");
            policy.per_try = per
                .and_then(|p| p.get("timeout"))
                .map(|n| (n, "retry.perRetry.timeout"));
            let backoff = per.and_then(|p| p.get("backoff"));
            policy.base = backoff
                .and_then(|b| b.get("baseInterval"))
                .map(|n| (n, "retry.perRetry.backoff.baseInterval"));
            policy.max = backoff
                .and_then(|b| b.get("maxInterval"))
                .map(|n| (n, "retry.perRetry.backoff.maxInterval"));
            default_retries = (
                EG_RETRIES,
                "retry.numRetries not written: Envoy Gateway's default of 2",
            );
        }
        (None, None) => {
            warnings.push(
                "the rule writes no retry: the implementation decides (Envoy Gateway retries \
                 nothing without a BackendTrafficPolicy; Istio adds its default of 2)"
                    .to_owned(),
            );
            default_retries = (
                0,
                "no retry written on the rule or in a BackendTrafficPolicy",
            );
        }
    }
    if let Some(t) = timeouts {
        if let Some(n) = t.get("backendRequest") {
            policy.per_try = Some((n, "timeouts.backendRequest"));
        }
        if let Some(n) = t.get("request") {
            policy.deadline = Some((n, "timeouts.request"));
        }
    }
    if policy.deadline.is_none()
        && let Some(n) = btp_timeout
    {
        policy.deadline = Some((n, "timeout.http.requestTimeout"));
    }
    if policy.deadline.is_none() {
        source.note("no request timeout written: the implementation's own default is not counted");
    }
    let annotations = route.get("metadata").and_then(|m| m.get("annotations"));
    let linkerd = |key: &str| annotations.and_then(|a| a.get_exact(key));
    if [
        "retry.linkerd.io/http",
        "retry.linkerd.io/limit",
        "retry.linkerd.io/timeout",
    ]
    .iter()
    .any(|k| linkerd(k).is_some())
    {
        return linkerd_route(doc, &label, route, &policy, &mut source, notes);
    }
    if let Some(n) = linkerd("timeout.linkerd.io/request")
        && policy.deadline.is_none()
    {
        policy.deadline = Some((n, "timeout.linkerd.io/request"));
    }
    let mut layer = layer(
        doc,
        format!("httproute {label}"),
        &policy,
        default_retries,
        &mut source,
    )?;
    layer.warnings.extend(warnings);
    layer.provenance = Some(source);
    Ok(Imported {
        layers: vec![layer],
        notes,
        ..Imported::default()
    })
}

/// A route Linkerd retries, as its policy controller reads the annotations: any of
/// `retry.linkerd.io/http`, `/limit`, `/timeout` turns retries on; `limit` is the retries
/// after the first try (1 when absent or 0); `timeout` bounds each try; Linkerd waits nothing
/// between tries. `timeout.linkerd.io/request` (or the rule's `timeouts.request`) bounds them
/// all.
fn linkerd_route(
    doc: &Doc<'_>,
    label: &str,
    route: &Node,
    policy: &Policy<'_>,
    source: &mut Provenance,
    notes: Vec<String>,
) -> Result<Imported, WindowError> {
    let annotations = route.get("metadata").and_then(|m| m.get("annotations"));
    let get = |key: &str| annotations.and_then(|a| a.get_exact(key));
    let mut layer = Layer::new(format!("linkerd {label}"), Duration::ZERO, 2);
    source.note("retries from Linkerd's retry.linkerd.io annotations");
    match get("retry.linkerd.io/limit") {
        Some(n) => {
            let limit = doc.count(n, "retry.linkerd.io/limit")?;
            let limit = if limit == 0 { 1 } else { limit };
            layer.attempts = limit.saturating_add(1);
            source.note(format!(
                "attempts {} = retry.linkerd.io/limit {limit} + 1 (0 counts as Linkerd's 1)",
                limit + 1
            ));
        }
        None => source.note("attempts 2: retry.linkerd.io/limit not written, Linkerd's 1 retry"),
    }
    source.note("no wait between tries: Linkerd retries at once");
    layer.schedule = Schedule::Constant(Duration::ZERO);
    if let Some(n) = get("retry.linkerd.io/timeout") {
        let t = doc.duration(n, Style::Go, "retry.linkerd.io/timeout")?;
        if !t.is_zero() {
            source.note(format!(
                "each try waits {} (retry.linkerd.io/timeout)",
                span(t)
            ));
            layer.timeout = Some(t);
        }
    }
    let deadline = policy
        .deadline
        .or_else(|| get("timeout.linkerd.io/request").map(|n| (n, "timeout.linkerd.io/request")));
    if let Some((n, what)) = deadline {
        let t = doc.duration(n, Style::Go, what)?;
        if !t.is_zero() {
            source.note(format!("all tries within {} ({what})", span(t)));
            layer.deadline = Some(t);
            if layer.timeout.is_none() {
                layer.timeout = Some(t);
            }
        }
    }
    if get("retry.linkerd.io/http").is_none() {
        source.note("no retry.linkerd.io/http: Linkerd retries on connection errors only");
    }
    layer.provenance = Some(source.clone());
    Ok(Imported {
        layers: vec![layer],
        notes,
        ..Imported::default()
    })
}

/// Kuma `MeshRetry`: one candidate per `to[]` entry with an `http` part.
fn read_mesh_retry(
    doc: &Doc<'_>,
    policies: &[&Node],
    selector: Option<&str>,
    mut notes: Vec<String>,
) -> Result<Imported, WindowError> {
    let mut candidates = Vec::new();
    for p in policies {
        let policy_name = name(p).unwrap_or_else(|| "MeshRetry".to_owned());
        let Some(to) = p.get("spec").and_then(|s| s.get("to")) else {
            continue;
        };
        let entries = doc.list(to, "spec.to")?;
        let mesh_wide = entries.iter().find(|e| {
            e.get("targetRef")
                .and_then(|t| t.get("kind"))
                .and_then(Node::scalar_text)
                .as_deref()
                == Some("Mesh")
        });
        for (i, entry) in entries.iter().enumerate() {
            let target = entry.get("targetRef");
            let target_kind = target
                .and_then(|t| t.get("kind"))
                .and_then(Node::scalar_text)
                .unwrap_or_else(|| "Mesh".to_owned());
            let target_name = target
                .and_then(|t| t.get("name"))
                .and_then(Node::scalar_text)
                .unwrap_or_else(|| target_kind.clone());
            let label = crate::text::sanitize_line(&format!("{policy_name}/{target_name}"));
            let base = mesh_wide.filter(|m| !std::ptr::eq(*m, entry));
            candidates.push((label, (entry, base, i)));
        }
    }
    let (label, (entry, base, i)) = pick(doc, "MeshRetry entry", candidates, selector, &mut notes)?;
    let http = |e: &Node| e.get("default").and_then(|d| d.get("http")).cloned();
    let own = http(entry);
    let inherited = base.and_then(http);
    if own.is_none() && inherited.is_none() {
        return Err(doc.error(
            entry,
            "this MeshRetry entry has no default.http: it retries no HTTP request (tcp and \
             grpc retries are not read)",
        ));
    }
    let get = |key: &str| -> Option<Node> {
        own.as_ref()
            .and_then(|h| h.get(key).cloned())
            .or_else(|| inherited.as_ref().and_then(|h| h.get(key).cloned()))
    };
    let retries = get("numRetries");
    let per_try = get("perTryTimeout");
    let back_off = get("backOff");
    let base_interval = back_off
        .as_ref()
        .and_then(|b| b.get("baseInterval").cloned());
    let max_interval = back_off
        .as_ref()
        .and_then(|b| b.get("maxInterval").cloned());
    let mut source = doc.provenance(entry, format!("spec.to[{i}].default.http"));
    if inherited.is_some() && own.is_some() {
        source.note("fields this entry leaves out are taken from the entry for the whole Mesh");
    }
    source.note(
        "the route timeout comes from MeshTimeout (Kuma's default policy: 15 s), not in this \
         file: not counted",
    );
    let policy = Policy {
        retries: retries.as_ref().map(|n| (n, "numRetries")),
        per_try: per_try.as_ref().map(|n| (n, "perTryTimeout")),
        base: base_interval.as_ref().map(|n| (n, "backOff.baseInterval")),
        max: max_interval.as_ref().map(|n| (n, "backOff.maxInterval")),
        deadline: None,
    };
    let mut layer = layer(
        doc,
        format!("kuma {label}"),
        &policy,
        (1, "numRetries not written: Envoy's default of one retry"),
        &mut source,
    )?;
    if layer.attempts == 1 {
        source.note("numRetries 0: Kuma writes no retry policy, and Envoy sends once");
    }
    layer.provenance = Some(source);
    Ok(Imported {
        layers: vec![layer],
        notes,
        ..Imported::default()
    })
}
