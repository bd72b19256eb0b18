//! Reading retry settings where they live: `idem window --from FILE` turns a
//! configuration file a team already has into layers (and, for queues, human
//! paths), each keeping the file and the field it came from, with the
//! product's documented defaults where a field is absent.
//!
//! What each file gives (the readers say where each value came from):
//! - Envoy route configuration: each route's `retry_policy` and `timeout`;
//! - Istio `VirtualService`: each HTTP route's `retries` and `timeout`,
//!   including the two retries Istio adds when no policy is written;
//! - `~/.aws/config`: a profile's `retry_mode` and `max_attempts`;
//! - Resilience4j `application.yml` or `.properties`: a retry instance, with
//!   its TimeLimiter's `timeoutDuration` as the per-try timeout;
//! - Polly / `HttpStandardResilienceOptions` in `appsettings.json`;
//! - SQS queue attributes (`RedrivePolicy`, `VisibilityTimeout`, retention),
//!   Lambda `EventInvokeConfig`, or a CloudFormation template holding them;
//! - Kubernetes `Job` or `CronJob` (`backoffLimit`, `activeDeadlineSeconds`,
//!   and the CronJob's next run as a human path);
//! - Sidekiq's `config/sidekiq.yml` (`:max_retries:`, with Sidekiq's own waits);
//! - Gateway API `HTTPRoute`, Envoy Gateway `BackendTrafficPolicy`, Kuma `MeshRetry`, as
//!   their controllers translate them into Envoy's retry policy;
//! - source files: a Celery task's decorator, Spring Retry's `@Retryable`, Temporal's
//!   `RetryPolicy`.
//!
//! A file holding several candidates (routes, profiles, instances...) gives
//! the first unless `FILE#NAME` names one. Files are read bounded (1 MiB,
//! regular files only); every bad value is reported as `FILE:LINE:COLUMN`.

pub mod aws;
mod cfn;
mod code;
mod durations;
mod envoy;
mod fields;
mod file;
mod gateway;
mod kubernetes;
mod lines;
mod polly;
pub mod presets;
mod queues;
mod resilience4j;
mod sidekiq;
mod terraform;
mod tree;

use std::path::{Path, PathBuf};

pub use file::{MAX_BYTES, read_bounded};

use self::fields::Doc;
use self::tree::{Node, Value};
use crate::window::{HumanPath, Layer, WindowError};

/// What one file gives.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Imported {
    /// Layers, innermost first as far as the file can tell.
    pub layers: Vec<Layer>,
    /// Human paths the file implies (a dead-letter queue, a CronJob's next run).
    pub paths: Vec<HumanPath>,
    /// What the reader chose or assumed, for the report.
    pub notes: Vec<String>,
    /// The names `--param` may give values for: a template's parameters, a Terraform
    /// module's variables.
    pub declared: Vec<String>,
}

/// The products this reader knows, as a message lists them.
const KNOWN: &str = "an Envoy route configuration, an Istio VirtualService, a Kuma MeshRetry, a \
     Gateway API HTTPRoute or Envoy Gateway BackendTrafficPolicy, ~/.aws/config, Resilience4j \
     application.yml or .properties, appsettings.json with Polly options, SQS queue attributes, \
     a Lambda EventInvokeConfig, a CloudFormation template, a Kubernetes Job or CronJob, \
     Sidekiq's config/sidekiq.yml, or a source file with a Celery task, a Spring @Retryable or a \
     Temporal RetryPolicy (stacks configured elsewhere: --preset sidekiq, celery, temporal)";

/// Reads `spec`: a file, optionally followed by `#NAME` to pick one of
/// several routes, profiles, instances or resources in it.
pub fn read(spec: &str) -> Result<Imported, WindowError> {
    read_with(spec, &ReadOptions::default())
}

/// What a reader is told besides the file: the AWS SDK that reads an `~/.aws/config` (its
/// defaults differ where the file says nothing), and the values of a CloudFormation
/// template's parameters.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    pub sdk: Option<aws::Sdk>,
    pub params: Vec<(String, String)>,
}

/// Reads a file as `read` does, with `options`. A folder, or a `.tf` file, is read as a
/// Terraform module (see `terraform`).
pub fn read_with(spec: &str, options: &ReadOptions) -> Result<Imported, WindowError> {
    let (path, selector) = split_selector(spec);
    if is_terraform(Path::new(path)) {
        return terraform::read_paths(&[PathBuf::from(path)], selector, &options.params);
    }
    if Path::new(path).is_dir() {
        return Err(WindowError::ReadConfig {
            file: PathBuf::from(path),
            reason: "a folder; a folder is read as a Terraform module, and this one has no .tf \
                     file"
                .to_owned(),
        });
    }
    let text = read_bounded(Path::new(path))?;
    let label = crate::text::sanitize_line(path);
    parse_with(&text, &label, selector, options)
}

/// A folder holding `.tf` files, or a `.tf` file.
fn is_terraform(path: &Path) -> bool {
    if path.is_dir() {
        return terraform::is_module_dir(path);
    }
    path.extension().is_some_and(|x| x == "tf") && path.is_file()
}

/// Reads every `--from` given, in order: `.tf` files given one after another are one
/// Terraform module (with the other `.tf` files of their folders), read once. Each `--param`
/// must name a parameter or variable that some file declares.
pub fn read_all(specs: &[String], options: &ReadOptions) -> Result<Vec<Imported>, WindowError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < specs.len() {
        let (path, selector) = split_selector(&specs[i]);
        let tf_file = |p: &str| Path::new(p).is_file() && is_terraform(Path::new(p));
        if tf_file(path) {
            let mut paths = vec![PathBuf::from(path)];
            let mut selector = selector;
            while i + 1 < specs.len() {
                let (next, next_selector) = split_selector(&specs[i + 1]);
                if !tf_file(next) {
                    break;
                }
                paths.push(PathBuf::from(next));
                selector = selector.or(next_selector);
                i += 1;
            }
            out.push(terraform::read_paths(&paths, selector, &options.params)?);
        } else {
            out.push(read_with(&specs[i], options)?);
        }
        i += 1;
    }
    check_params(&out, &options.params)?;
    Ok(out)
}

/// Each `--param` names something a file declares, or it is refused with what they declare.
pub fn check_params(read: &[Imported], params: &[(String, String)]) -> Result<(), WindowError> {
    let declared: Vec<&String> = read.iter().flat_map(|r| r.declared.iter()).collect();
    match params.iter().find(|(name, _)| !declared.contains(&name)) {
        None => Ok(()),
        Some((name, value)) => Err(WindowError::Flag {
            flag: "--param",
            value: format!("{name}={value}"),
            problem: if declared.is_empty() {
                "no file given declares a parameter or variable; --param gives a value to a \
                 CloudFormation template's parameter or a Terraform variable"
                    .to_owned()
            } else {
                let close = declared
                    .iter()
                    .find(|d| strsim::levenshtein(d, name) <= 3)
                    .map_or_else(String::new, |d| format!(" (did you mean {d}?)"));
                format!(
                    "no file given declares a parameter or variable of that name{close}; they declare {}",
                    crate::text::shorten(
                        &declared
                            .iter()
                            .map(|d| d.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                        300
                    )
                )
            },
        }),
    }
}

/// `FILE#NAME` → (`FILE`, `Some(NAME)`), unless the whole text is a file.
fn split_selector(spec: &str) -> (&str, Option<&str>) {
    if Path::new(spec).exists() {
        return (spec, None);
    }
    match spec.rsplit_once('#') {
        Some((path, name)) if !path.is_empty() && !name.is_empty() => (path, Some(name)),
        _ => (spec, None),
    }
}

/// Reads `text` (from the file labelled `file`) as whichever product it is.
pub fn parse(text: &str, file: &str, selector: Option<&str>) -> Result<Imported, WindowError> {
    parse_with(text, file, selector, &ReadOptions::default())
}

/// `parse`, with `options`.
pub fn parse_with(
    text: &str,
    file: &str,
    selector: Option<&str>,
    options: &ReadOptions,
) -> Result<Imported, WindowError> {
    let doc = Doc::new(file);
    let lower = file.to_ascii_lowercase();
    if lower.ends_with(".properties") {
        let root = lines::parse_properties(text, file)?;
        return resilience4j::read(&doc, &[root], selector);
    }
    if let Some(language) = code::language(&lower) {
        return code::read(text, file, language, selector);
    }
    if terraform::present(&lower, text) {
        return terraform::read(&doc, file, text, selector, &options.params);
    }
    if looks_like_ini(&lower, text) {
        let root = lines::parse_ini(text, file)?;
        return aws::read(&doc, &root, selector, options.sdk);
    }
    let documents = tree::parse_yaml(text, file)?;
    let documents: Vec<Node> = documents
        .into_iter()
        .filter(|d| d.value != Value::Null)
        .collect();
    let Some(first) = documents.first() else {
        return Err(tree::error_at(
            file,
            (0, 0),
            format!("the file is empty; expected {KNOWN}"),
        ));
    };
    let kinds: Vec<String> = documents
        .iter()
        .filter_map(|d| d.get_exact("kind").and_then(Node::scalar_text))
        .collect();
    if kinds.iter().any(|k| k == "VirtualService") {
        return envoy::read_istio(&doc, &documents, selector);
    }
    if gateway::present(&documents) {
        return gateway::read(&doc, &documents, selector);
    }
    if kinds.iter().any(|k| k == "Job" || k == "CronJob") {
        return kubernetes::read(&doc, &documents, selector);
    }
    if resilience4j::present(&documents) {
        return resilience4j::read(&doc, &documents, selector);
    }
    if first.get_exact("Resources").is_some()
        || first.get_exact("Attributes").is_some()
        || first.get_exact("MaximumRetryAttempts").is_some()
        || first.get_exact("MaximumEventAgeInSeconds").is_some()
    {
        return queues::read(&doc, first, selector, &options.params);
    }
    if envoy::present(first) {
        return envoy::read_envoy(&doc, first, selector);
    }
    if polly::present(first) {
        return polly::read(&doc, first, selector);
    }
    if sidekiq::present(&lower, first) {
        return sidekiq::read(&doc, first);
    }
    if let Some(attempts) = tcp_connect_attempts(first) {
        return Err(tree::error_at(
            file,
            first.at,
            format!(
                "found an Envoy TCP proxy: maxConnectAttempts {attempts} retries the connection, \
                 not a request, and idem counts requests; give the HTTP route configuration \
                 (an http_connection_manager's routes) with --from, or the layer with --layer"
            ),
        ));
    }
    if kinds.iter().any(|k| k == "ServiceProfile") {
        return Err(tree::error_at(
            file,
            first.at,
            "found a Linkerd ServiceProfile: its retries (isRetryable routes) are bounded by the \
             retryBudget, a share of all the traffic, not per request, so one request's attempts \
             cannot be read from it; Linkerd 2.16 and later read retry.linkerd.io annotations on \
             an HTTPRoute (give that with --from), or give the layer with --layer",
        ));
    }
    if kinds.iter().any(|k| k == "DestinationRule") {
        return Err(tree::error_at(
            file,
            first.at,
            "found an Istio DestinationRule: it sets no retries of a request (Istio writes \
             those in the VirtualService for the host, or adds its default 2), only \
             connectionPool.http.maxRetries, a cap on retries in flight to the host at once; \
             give the VirtualService with --from",
        ));
    }
    let what = if let Some(kind) = kinds.first() {
        format!("a {} (kind: {kind})", "Kubernetes object")
    } else {
        "nothing with retry settings".to_owned()
    };
    Err(tree::error_at(
        file,
        first.at,
        format!("found {what}; expected {KNOWN}"),
    ))
}

/// An Envoy TCP proxy's `max_connect_attempts` somewhere in the tree, when it has one.
fn tcp_connect_attempts(node: &Node) -> Option<String> {
    fn walk(node: &Node, depth: usize) -> Option<String> {
        if depth > 32 {
            return None;
        }
        if let Some(n) = node
            .get_exact("maxConnectAttempts")
            .or_else(|| node.get_exact("max_connect_attempts"))
        {
            return n.scalar_text();
        }
        node.entries()
            .iter()
            .map(|(_, n)| n)
            .chain(node.items())
            .find_map(|n| walk(n, depth + 1))
    }
    walk(node, 0)
}

/// An AWS config or another INI file: named so, or starting with a
/// `[section]` line that YAML would not write that way.
fn looks_like_ini(lower_name: &str, text: &str) -> bool {
    let name = Path::new(lower_name)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    if name.ends_with(".ini") || name == "config" || name == "credentials" {
        return true;
    }
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(';'))
        .is_some_and(|l| {
            l.starts_with('[') && l.ends_with(']') && !l.contains(',') && !l.contains('"')
        })
}

/// One of several named candidates: the one `selector` names, or the first.
/// Says in `notes` which was taken when there was a choice.
fn pick<'a, T>(
    doc: &Doc<'_>,
    what: &str,
    candidates: Vec<(String, T)>,
    selector: Option<&str>,
    notes: &mut Vec<String>,
) -> Result<(String, T), WindowError>
where
    T: 'a,
{
    let names: Vec<String> = candidates.iter().map(|(n, _)| n.clone()).collect();
    if candidates.is_empty() {
        return Err(tree::error_at(
            doc.file,
            (0, 0),
            format!("found no {what} in the file"),
        ));
    }
    match selector {
        Some(wanted) => {
            let mut candidates = candidates;
            match candidates.iter().position(|(n, _)| n == wanted) {
                Some(i) => Ok(candidates.swap_remove(i)),
                None => {
                    let close = names
                        .iter()
                        .find(|n| strsim::levenshtein(n, wanted) <= 3)
                        .map_or_else(|| ".".to_owned(), |n| format!("; did you mean {n:?}?"));
                    Err(tree::error_at(
                        doc.file,
                        (0, 0),
                        format!(
                            "no {what} named {:?}{close} The file has: {}",
                            crate::text::sanitize_line(wanted),
                            names.join(", ")
                        ),
                    ))
                }
            }
        }
        None => {
            if names.len() > 1 {
                notes.push(format!(
                    "{}: {} {what}s ({}); read {:?}, name another as {}#NAME",
                    doc.file,
                    names.len(),
                    names.join(", "),
                    names[0],
                    doc.file
                ));
            }
            let mut candidates = candidates;
            Ok(candidates.swap_remove(0))
        }
    }
}
