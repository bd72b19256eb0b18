//! Envoy route configurations and Istio VirtualServices (which Istio turns
//! into Envoy routes, so both share Envoy's backoff).
//!
//! Envoy's documented behaviour, as counted here:
//! - a route with a `retry_policy` retries `num_retries` times (1 when the
//!   field is absent); one without a policy (on the route or its virtual
//!   host) sends once;
//! - between tries it waits a random time up to `(2^n − 1) × base` before
//!   retry `n`, never more than `max_interval`; `base` is 25 ms and
//!   `max_interval` ten times `base` unless written;
//! - `per_try_timeout` bounds each try; without it a try waits until the
//!   route's `timeout`, which covers all tries together (15 s when absent,
//!   none when `0s`).
//!
//! Istio: `retries.attempts` is the number of retries; with no `retries`
//! block at all Istio still writes a policy of 2 retries into Envoy (on
//! connection failures, refused streams and 503), the layer nobody wrote
//! down. `timeout` covers all tries; Istio sets none by default.

use std::time::Duration;

use super::durations::Style;
use super::fields::Doc;
use super::tree::Node;
use super::{Imported, pick};
use crate::window::{Jitter, Layer, Provenance, Schedule, WindowError};

/// Envoy's backoff before the first retry when none is written.
pub(super) const BASE: Duration = Duration::from_millis(25);
/// Envoy's route timeout when none is written.
const ROUTE_TIMEOUT: Duration = Duration::from_secs(15);
/// The retries Istio adds when a route has no `retries` block.
const ISTIO_RETRIES: u64 = 2;

/// Whether the tree holds an Envoy route configuration.
pub fn present(root: &Node) -> bool {
    !route_tables(root).is_empty()
}

/// Every list of virtual hosts in the tree, with its path (a route
/// configuration alone, or inside a listener's HTTP connection manager).
fn route_tables(root: &Node) -> Vec<(String, &Node)> {
    let mut found = Vec::new();
    walk(root, String::new(), &mut found, 0);
    found
}

fn walk<'a>(node: &'a Node, path: String, found: &mut Vec<(String, &'a Node)>, depth: usize) {
    if depth > 32 {
        return;
    }
    // Matched loosely, as the lookups inside are: config dumps, Kuma and Envoy Gateway
    // write the same fields in camelCase (`virtualHosts`, `retryPolicy`, `numRetries`).
    if let Some(hosts) = node.get("virtual_hosts") {
        let at = if path.is_empty() {
            "virtual_hosts".to_owned()
        } else {
            format!("{path}.virtual_hosts")
        };
        found.push((at, hosts));
        return;
    }
    for (key, child) in node.entries() {
        let next = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        walk(child, next, found, depth + 1);
    }
    for (i, child) in node.items().iter().enumerate() {
        walk(child, format!("{path}[{i}]"), found, depth + 1);
    }
}

/// The waits Envoy may draw, at their longest: `(2^n − 1) × base` up to the
/// cap, listed until they reach it (the last then repeats).
pub(super) fn envoy_waits(base: Duration, max: Duration) -> Vec<Duration> {
    let mut waits = Vec::new();
    let mut factor: u32 = 1;
    loop {
        let wait = base.saturating_mul(factor).min(max);
        waits.push(wait);
        if wait >= max || waits.len() >= 64 {
            return waits;
        }
        factor = factor.saturating_mul(2).saturating_add(1);
    }
}

/// The retry policy's backoff: base and cap, each noted where it came from.
fn backoff(doc: &Doc<'_>, policy: &Node, source: &mut Provenance) -> Result<Schedule, WindowError> {
    let back_off = policy.get("retry_back_off");
    let base = match back_off.and_then(|b| b.get("base_interval")) {
        Some(n) => {
            let base = doc.duration(n, Style::Go, "retry_back_off.base_interval")?;
            if base.is_zero() {
                return Err(doc.error(n, "retry_back_off.base_interval must be longer than zero"));
            }
            source.note(format!(
                "waits from {} (retry_back_off.base_interval)",
                span(base)
            ));
            base
        }
        None => {
            source.note("waits from 25 ms: Envoy's default base interval (not written)");
            BASE
        }
    };
    let max = match back_off.and_then(|b| b.get("max_interval")) {
        Some(n) => {
            let max = doc.duration(n, Style::Go, "retry_back_off.max_interval")?;
            if max < base {
                return Err(doc.error(
                    n,
                    "retry_back_off.max_interval must be at least base_interval",
                ));
            }
            source.note(format!(
                "at most {} each (retry_back_off.max_interval)",
                span(max)
            ));
            max
        }
        None => {
            let max = base.saturating_mul(10);
            source.note(format!(
                "at most {} each: ten times the base (Envoy's default)",
                span(max)
            ));
            max
        }
    };
    source.note(
        "each wait drawn at random up to (2^n − 1) × base before retry n: counted at the top",
    );
    Ok(Schedule::List(envoy_waits(base, max)))
}

pub(super) fn span(d: Duration) -> String {
    crate::window::Span::from_duration(d).to_string()
}

/// The route's overall timeout: written, 15 s by default, none when `0s`.
fn route_timeout(
    doc: &Doc<'_>,
    action: &Node,
    default: Option<Duration>,
    source: &mut Provenance,
    who: &str,
) -> Result<Option<Duration>, WindowError> {
    match action.get("timeout") {
        Some(n) => {
            let t = doc.duration(n, Style::Go, "timeout")?;
            if t.is_zero() {
                source.note("timeout 0s: no overall deadline");
                Ok(None)
            } else {
                source.note(format!("all tries within {} (timeout)", span(t)));
                Ok(Some(t))
            }
        }
        None => {
            match default {
                Some(d) => source.note(format!(
                    "all tries within {}: {who}'s default route timeout (not written)",
                    span(d)
                )),
                None => source.note(format!("no overall timeout ({who} sets none by default)")),
            }
            Ok(default)
        }
    }
}

/// Reads an Envoy route configuration.
pub fn read_envoy(
    doc: &Doc<'_>,
    root: &Node,
    selector: Option<&str>,
) -> Result<Imported, WindowError> {
    let mut candidates = Vec::new();
    for (path, hosts) in route_tables(root) {
        for (h, host) in doc.list(hosts, "virtual_hosts")?.iter().enumerate() {
            let host_name = host
                .get("name")
                .and_then(Node::scalar_text)
                .map(|n| crate::text::sanitize_line(&n))
                .unwrap_or_else(|| format!("host {}", h + 1));
            let Some(routes) = host.get("routes") else {
                continue;
            };
            for (r, route) in doc.list(routes, "routes")?.iter().enumerate() {
                if route.get("route").is_none() {
                    continue;
                }
                let name = route
                    .get("name")
                    .and_then(Node::scalar_text)
                    .map(|n| crate::text::sanitize_line(&n))
                    .unwrap_or_else(|| format!("{host_name}/{}", r + 1));
                let field = format!("{path}[{h}].routes[{r}]");
                candidates.push((name, (host, route, field)));
            }
        }
    }
    let mut notes = Vec::new();
    let (name, (host, route, field)) = pick(doc, "route", candidates, selector, &mut notes)?;
    let layer = envoy_layer(doc, &name, host, route, &field)?;
    Ok(Imported {
        layers: vec![layer],
        paths: Vec::new(),
        notes,
        ..Imported::default()
    })
}

/// The fields of Envoy's `config.route.v3.RetryPolicy`.
const RETRY_POLICY_FIELDS: [&str; 13] = [
    "retry_on",
    "num_retries",
    "per_try_timeout",
    "per_try_idle_timeout",
    "retry_priority",
    "retry_host_predicate",
    "retry_options_predicates",
    "host_selection_retry_max_attempts",
    "retriable_status_codes",
    "retry_back_off",
    "rate_limited_retry_back_off",
    "retriable_headers",
    "retriable_request_headers",
];

/// The methods a list of Envoy header matchers lets through on `:method`, or `None` when the
/// list says nothing of the method. Exact, prefix and the old `exact_match` are read; a
/// matcher of another kind (a regex) counts as letting every method through.
fn methods(matchers: Option<&Node>) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut any = false;
    for m in matchers?.items() {
        if m.get("name").and_then(Node::scalar_text).as_deref() != Some(":method") {
            continue;
        }
        any = true;
        if m.get("invert_match")
            .and_then(Node::scalar_text)
            .is_some_and(|t| t == "true")
        {
            return None;
        }
        let exact = m
            .get("string_match")
            .and_then(|s| s.get("exact").or_else(|| s.get("prefix")))
            .or_else(|| m.get("exact_match"))
            .or_else(|| m.get("prefix_match"))
            .and_then(Node::scalar_text);
        match exact {
            Some(method) => out.push(method.to_ascii_uppercase()),
            None => return None,
        }
    }
    any.then_some(out)
}

fn envoy_layer(
    doc: &Doc<'_>,
    name: &str,
    host: &Node,
    route: &Node,
    field: &str,
) -> Result<Layer, WindowError> {
    let Some(action) = route.get("route") else {
        return Err(doc.error(route, "a route without a route action"));
    };
    let field = &format!("{field}.route")[..];
    let (policy, policy_field) = match (action.get("retry_policy"), host.get("retry_policy")) {
        (Some(p), _) => (Some(p), format!("{field}.retry_policy")),
        (None, Some(p)) => (Some(p), "the virtual host's retry_policy".to_owned()),
        (None, None) => (None, field.to_owned()),
    };
    let mut source = doc.provenance(policy.unwrap_or(action), policy_field);
    let mut layer = Layer::new(format!("envoy route {name}"), Duration::ZERO, 1);
    match policy {
        None => source.note("no retry_policy on the route or its virtual host: Envoy sends once"),
        Some(policy) => {
            doc.map(policy, "retry_policy")?;
            super::tree::unknown_fields(
                policy,
                &RETRY_POLICY_FIELDS,
                "retry_policy",
                "Envoy",
                &mut layer.warnings,
            );
            if let Some(back_off) = policy.get("retry_back_off") {
                super::tree::unknown_fields(
                    back_off,
                    &["base_interval", "max_interval"],
                    "retry_policy.retry_back_off",
                    "Envoy",
                    &mut layer.warnings,
                );
            }
            let retries = match policy.get("num_retries") {
                Some(n) => {
                    let retries = doc.count(n, "num_retries")?;
                    source.note(format!(
                        "attempts {} = num_retries {retries} + 1",
                        retries + 1
                    ));
                    retries
                }
                None => {
                    source.note("attempts 2: one retry, Envoy's default once a policy exists");
                    1
                }
            };
            layer.attempts = retries + 1;
            layer.schedule = backoff(doc, policy, &mut source)?;
            layer.jitter = Jitter::Full;
            if let Some(n) = policy.get("per_try_timeout") {
                let t = doc.duration(n, Style::Go, "per_try_timeout")?;
                if !t.is_zero() {
                    source.note(format!("each try waits {} (per_try_timeout)", span(t)));
                    layer.timeout = Some(t);
                }
            }
            if let Some(allowed) = methods(policy.get("retriable_request_headers"))
                && !allowed.iter().any(|m| m == "POST")
            {
                source.note(format!(
                    "attempts 1: retriable_request_headers lets only {} be retried, so a POST \
                     charge is sent once",
                    allowed.join(", ")
                ));
                layer.attempts = 1;
            } else if let Some(headers) = policy.get("retriable_request_headers")
                && methods(Some(headers)).is_none()
                && !headers.items().is_empty()
            {
                source.note(
                    "retriable_request_headers: only a request carrying one of those headers is \
                     retried; counted as if the charge carries one",
                );
            }
        }
    }
    if let Some(allowed) = methods(route.get("match").and_then(|m| m.get("headers")))
        && !allowed.iter().any(|m| m == "POST")
    {
        layer.warnings.push(format!(
            "this route matches only {} requests: a POST charge does not take it; name the \
             route that carries it with FILE#NAME",
            allowed.join(", ")
        ));
    }
    layer.deadline = route_timeout(doc, action, Some(ROUTE_TIMEOUT), &mut source, "Envoy")?;
    if let Some(n) = action.get("idle_timeout") {
        let idle = doc.duration(n, Style::Go, "idle_timeout")?;
        if !idle.is_zero() && layer.deadline.is_none_or(|d| idle < d) {
            source.note(format!(
                "the route's idle_timeout {} ends a stream that hears nothing back: with every \
                 answer lost, it is the deadline",
                span(idle)
            ));
            layer.deadline = Some(idle);
        }
    }
    if layer.timeout.is_none()
        && let Some(deadline) = layer.deadline
    {
        source.note("no per_try_timeout: a try waits until the route timeout");
        layer.timeout = Some(deadline);
    }
    layer.provenance = Some(source);
    Ok(layer)
}

/// Reads the HTTP routes of the VirtualServices in the documents.
pub fn read_istio(
    doc: &Doc<'_>,
    documents: &[Node],
    selector: Option<&str>,
) -> Result<Imported, WindowError> {
    let mut candidates = Vec::new();
    for (d, document) in documents.iter().enumerate() {
        if document
            .get_exact("kind")
            .and_then(Node::scalar_text)
            .as_deref()
            != Some("VirtualService")
        {
            continue;
        }
        let service = document
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::scalar_text)
            .unwrap_or_else(|| format!("document {}", d + 1));
        let Some(spec) = document.get("spec") else {
            return Err(doc.error(document, "a VirtualService needs a spec"));
        };
        let Some(http) = spec.get("http") else {
            continue;
        };
        for (i, route) in doc.list(http, "spec.http")?.iter().enumerate() {
            let route_name = route
                .get("name")
                .and_then(Node::scalar_text)
                .map(|n| format!("{service}/{n}"))
                .unwrap_or_else(|| format!("{service}/{}", i + 1));
            let name = crate::text::sanitize_line(&route_name);
            candidates.push((name, (route, format!("spec.http[{i}]"))));
        }
    }
    let mut notes = Vec::new();
    for rule in documents.iter().filter(|d| {
        d.get_exact("kind").and_then(Node::scalar_text).as_deref() == Some("DestinationRule")
    }) {
        let rule_name = rule
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::scalar_text)
            .map(|n| crate::text::sanitize_line(&n))
            .unwrap_or_default();
        let max_retries = rule
            .get("spec")
            .and_then(|s| s.get("trafficPolicy"))
            .and_then(|t| t.get("connectionPool"))
            .and_then(|c| c.get("http"))
            .and_then(|h| h.get("maxRetries"))
            .and_then(Node::scalar_text);
        notes.push(match max_retries {
            Some(n) => format!(
                "DestinationRule {rule_name}: connectionPool.http.maxRetries {n} caps the retries \
                 in flight to the host across all requests, not one request's: not counted"
            ),
            None => format!(
                "DestinationRule {rule_name}: sets no retries of a request (subsets, load \
                 balancing and connection pools are not read)"
            ),
        });
    }
    let (name, (route, field)) = pick(doc, "HTTP route", candidates, selector, &mut notes)?;
    let layer = istio_layer(doc, &name, route, &field)?;
    Ok(Imported {
        layers: vec![layer],
        paths: Vec::new(),
        notes,
        ..Imported::default()
    })
}

fn istio_layer(doc: &Doc<'_>, name: &str, route: &Node, field: &str) -> Result<Layer, WindowError> {
    let retries_node = route.get("retries");
    let mut source = doc.provenance(
        retries_node.unwrap_or(route),
        match retries_node {
            Some(_) => format!("{field}.retries"),
            None => field.to_owned(),
        },
    );
    let mut layer = Layer::new(format!("istio {name}"), Duration::ZERO, 1);
    for (key, what) in [
        ("fault", "injected delays or aborts, a test of the callers"),
        (
            "mirror",
            "a copy of each request to another host, whose answer is dropped",
        ),
    ] {
        if route.get(key).is_some() {
            source.note(format!("{key} not read: {what}, it sends no retry"));
        }
    }
    let retries = match retries_node {
        None => {
            layer.warnings.push(
                "a hidden layer: no retries are written, yet Istio retries twice (on connection \
                 failures, refused streams and 503)"
                    .to_owned(),
            );
            source.note("attempts 3: no retries block, so Istio's default of 2 retries applies");
            ISTIO_RETRIES
        }
        Some(block) => {
            doc.map(block, "retries")?;
            if let Some(t) = block.get("perTryTimeout") {
                let t = doc.duration(t, Style::Go, "retries.perTryTimeout")?;
                source.note(format!(
                    "each try waits {} (retries.perTryTimeout)",
                    span(t)
                ));
                layer.timeout = Some(t).filter(|t| !t.is_zero());
            }
            match block.get("attempts") {
                Some(n) => {
                    let retries = doc.count(n, "retries.attempts")?;
                    source.note(format!(
                        "attempts {} = retries.attempts {retries} + 1",
                        retries + 1
                    ));
                    retries
                }
                None => {
                    source.note("attempts 3: retries.attempts not written, Istio's default of 2");
                    ISTIO_RETRIES
                }
            }
        }
    };
    layer.attempts = retries + 1;
    layer.schedule = Schedule::List(envoy_waits(BASE, BASE.saturating_mul(10)));
    layer.jitter = Jitter::Full;
    source.note("waits 25 ms to 250 ms: Envoy's default backoff, which Istio keeps");
    layer.deadline = route_timeout(doc, route, None, &mut source, "Istio")?;
    if layer.timeout.is_none()
        && let Some(deadline) = layer.deadline
    {
        source.note("no perTryTimeout: a try waits until the route timeout");
        layer.timeout = Some(deadline);
    }
    layer.provenance = Some(source);
    Ok(layer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envoy_waits_double_and_stop_at_the_cap() {
        let waits = envoy_waits(BASE, BASE * 10);
        let ms: Vec<u128> = waits.iter().map(Duration::as_millis).collect();
        assert_eq!(ms, [25, 75, 175, 250]);
    }
}
