//! Terraform: the SQS queues a module makes, read as Terraform reads the module (see
//! `module`): a folder's `.tf` files together, or the files given with the other `.tf` files
//! of their folder. Queues come from `aws_sqs_queue` resources (each instance of a `count` or
//! `for_each`; `count = 0` makes none), from `aws_sqs_queue_redrive_policy` resources, from
//! modules in folders beside them, and from the registry module `terraform-aws-modules/sqs/aws`
//! (`registry`). Each queue is then read as the CloudFormation reader reads one, so both give
//! the same numbers.
//!
//! A value the window does not need (a queue's name, a dead-letter queue's ARN from another
//! stack) may stay unknown; one it needs and cannot know is named with the `--param` that
//! gives it.

mod eval;
mod funcs;
mod module;
mod registry;
mod value;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hcl_edit::Span;

use self::eval::{Ctx, Fail};
use self::module::{Instances, Module, TfFile};
use self::value::{CLOSE, Input, OPEN, RESOURCE, Tv, marked};
use super::fields::Doc;
use super::tree::{At, Node, Value, error_at};
use super::{Imported, queues};
use crate::window::WindowError;

/// At most this many `.tf` files in one module, as a bound on what is read.
const FILES: usize = 256;

/// The arguments of `aws_sqs_queue` read, and the CloudFormation property each one is.
const QUEUE_ARGUMENTS: [(&str, &str); 5] = [
    ("visibility_timeout_seconds", "VisibilityTimeout"),
    ("message_retention_seconds", "MessageRetentionPeriod"),
    ("redrive_policy", "RedrivePolicy"),
    ("fifo_queue", "FifoQueue"),
    ("delay_seconds", "DelaySeconds"),
];

/// Whether the text is Terraform: a `.tf` file, or a block such as `resource "aws_sqs_queue"`.
pub fn present(lower_name: &str, text: &str) -> bool {
    lower_name.ends_with(".tf")
        || text.lines().map(str::trim_start).any(|l| {
            l.starts_with("resource \"aws_sqs_queue\"")
                || (l.starts_with("terraform {") && text.contains("resource \""))
        })
}

/// Whether a folder holds a Terraform module.
pub fn is_module_dir(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "tf"))
    })
}

/// An error at a place in a module's file.
fn fail_error(m: &Module, fail: &Fail) -> WindowError {
    let (file, at) = m.position(fail.file, fail.span.clone());
    error_at(&file, at, crate::text::sanitize_line(&fail.message))
}

fn parse_file(label: &str, text: String) -> Result<TfFile, WindowError> {
    let body = hcl_edit::parser::parse_body(&text).map_err(|e| {
        let l = e.location();
        error_at(
            label,
            (l.line(), l.column()),
            format!(
                "not Terraform this reader can parse: {}; expected HCL blocks and attributes",
                crate::text::sanitize_line(e.message())
            ),
        )
    })?;
    Ok(TfFile {
        label: label.to_owned(),
        text,
        body,
    })
}

/// The `.tf` files of a folder, in name order.
fn tf_files(dir: &Path) -> Result<Vec<PathBuf>, WindowError> {
    let entries = std::fs::read_dir(dir).map_err(|e| WindowError::ReadConfig {
        file: dir.to_path_buf(),
        reason: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "tf") && p.is_file())
        .collect();
    files.sort();
    if files.len() > FILES {
        return Err(WindowError::ReadConfig {
            file: dir.to_path_buf(),
            reason: format!(
                "{} .tf files; a module of more than {FILES} is not read",
                files.len()
            ),
        });
    }
    Ok(files)
}

fn load(path: &Path) -> Result<TfFile, WindowError> {
    let text = super::read_bounded(path)?;
    parse_file(
        &crate::text::sanitize_line(&path.display().to_string()),
        text,
    )
}

fn load_dir(dir: &Path) -> Result<Vec<TfFile>, WindowError> {
    tf_files(dir)?.iter().map(|p| load(p)).collect()
}

/// Reads the module the paths make: one folder, or `.tf` files with the other `.tf` files of
/// their folders. Queues of the files given come first.
pub fn read_paths(
    paths: &[PathBuf],
    selector: Option<&str>,
    params: &[(String, String)],
) -> Result<Imported, WindowError> {
    let mut files = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut given = 0;
    let key = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    for path in paths {
        let list = if path.is_dir() {
            dirs.push(path.clone());
            tf_files(path)?
        } else {
            vec![path.clone()]
        };
        for p in list {
            if !seen.contains(&key(&p)) {
                seen.push(key(&p));
                files.push(load(&p)?);
                given += 1;
            }
        }
        let dir = if path.is_dir() {
            path.clone()
        } else {
            path.parent().map_or_else(
                || PathBuf::from("."),
                |p| {
                    if p.as_os_str().is_empty() {
                        PathBuf::from(".")
                    } else {
                        p.to_path_buf()
                    }
                },
            )
        };
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    let mut siblings = Vec::new();
    for dir in &dirs {
        for p in tf_files(dir)? {
            if !seen.contains(&key(&p)) {
                seen.push(key(&p));
                siblings.push(p.display().to_string());
                files.push(load(&p)?);
            }
        }
        if files.len() > FILES {
            return Err(WindowError::ReadConfig {
                file: dir.clone(),
                reason: format!("a module of more than {FILES} .tf files is not read"),
            });
        }
    }
    let mut notes = Vec::new();
    if !siblings.is_empty() {
        notes.push(format!(
            "read with the other .tf files of its folder, as Terraform reads a module: {}",
            crate::text::sanitize_line(&siblings.join(", "))
        ));
    }
    let dir = dirs.first().cloned();
    let tfvars = dir.as_deref().map(tfvars).transpose()?.unwrap_or_default();
    let label = paths
        .first()
        .map(|p| crate::text::sanitize_line(&p.display().to_string()))
        .unwrap_or_default();
    read_module(&label, files, given, dir, tfvars, selector, params, notes)
}

/// Reads Terraform text alone, with no folder around it.
pub fn read(
    _doc: &Doc<'_>,
    file: &str,
    text: &str,
    selector: Option<&str>,
    params: &[(String, String)],
) -> Result<Imported, WindowError> {
    let files = vec![parse_file(file, text.to_owned())?];
    read_module(
        file,
        files,
        1,
        None,
        Vec::new(),
        selector,
        params,
        Vec::new(),
    )
}

/// `terraform.tfvars`, then each `*.auto.tfvars` in name order, as Terraform loads them.
fn tfvars(dir: &Path) -> Result<Vec<(String, Tv, String)>, WindowError> {
    let mut paths = Vec::new();
    let main = dir.join("terraform.tfvars");
    if main.is_file() {
        paths.push(main);
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut auto: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".auto.tfvars") && p.is_file())
            .collect();
        auto.sort();
        paths.extend(auto.into_iter().take(FILES));
    }
    let mut out = Vec::new();
    for path in paths {
        let file = load(&path)?;
        let empty = Module::new(String::new(), None, Vec::new(), 0, BTreeMap::new());
        for attr in file.body.attributes() {
            let value = Ctx::new(&empty, 0)
                .eval(&attr.value)
                .unwrap_or_else(|f| Tv::unknown(f.message));
            let (line, _) =
                crate::window::line_column(&file.text, attr.value.span().map_or(0, |s| s.start));
            out.push((
                attr.key.as_str().to_owned(),
                value,
                format!("from {}:{line}", file.label),
            ));
        }
    }
    Ok(out)
}

/// A queue found in the module, by CloudFormation's names.
struct Queue {
    id: String,
    file: String,
    at: At,
    props: Vec<(String, Tv, At)>,
}

/// A redrive policy resource, to attach to its queue.
struct Redrive {
    address: String,
    place: String,
    queue: Tv,
    policy: Tv,
}

#[allow(clippy::too_many_arguments)]
fn read_module(
    label: &str,
    files: Vec<TfFile>,
    given: usize,
    dir: Option<PathBuf>,
    tfvars: Vec<(String, Tv, String)>,
    selector: Option<&str>,
    params: &[(String, String)],
    mut notes: Vec<String>,
) -> Result<Imported, WindowError> {
    let given_labels: Vec<String> = files.iter().take(given).map(|f| f.label.clone()).collect();
    let mut inputs = BTreeMap::new();
    for (name, value, from) in tfvars {
        inputs.insert(name, Input { value, from });
    }
    for (name, value) in params {
        inputs.insert(
            name.clone(),
            Input {
                value: Tv::Str(value.clone()),
                from: "from --param".to_owned(),
            },
        );
    }
    let root = Module::new(String::new(), dir, files, 0, inputs);
    root.call_modules(&load_dir)?;
    let mut queues = Vec::new();
    let mut redrives = Vec::new();
    collect(&root, &mut queues, &mut redrives)?;
    attach(&mut queues, redrives, &mut notes);
    // The queues of the files given first, as their reader would look for them.
    queues.sort_by_key(|q| !given_labels.contains(&q.file));
    let resources: Vec<(String, Node)> = queues.iter().map(resource_node).collect();
    let root_node = Node::new(
        (1, 1),
        Value::Map(vec![(
            "Resources".to_owned(),
            Node::new((1, 1), Value::Map(resources)),
        )]),
    );
    gather_notes(&root, &mut notes);
    let targets = root_node
        .get_exact("Resources")
        .map(queues::dead_letter_targets)
        .unwrap_or_default();
    let candidates: Vec<(String, String)> = queues
        .iter()
        .filter(|q| !targets.contains(&q.id))
        .map(|q| (q.id.clone(), q.file.clone()))
        .collect();
    if candidates.is_empty() {
        let why = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        };
        return Err(error_at(
            label,
            (1, 1),
            format!(
                "no SQS queue in this Terraform module{why}; the calculator reads aws_sqs_queue \
                 resources, aws_sqs_queue_redrive_policy and the module terraform-aws-modules/sqs/aws"
            ),
        ));
    }
    let doc = Doc::new(label);
    let (id, file) = super::pick(&doc, "SQS queue", candidates, selector, &mut notes)?;
    let doc = Doc::new(&file);
    let mut imported =
        queues::read(&doc, &root_node, Some(&id), &[]).map_err(|e| terraform_names(e, &id))?;
    notes.extend(imported.notes.clone());
    // Places are named as Terraform names them: the queue's address, not a template's path.
    let sources = imported
        .layers
        .iter_mut()
        .filter_map(|l| l.provenance.as_mut())
        .chain(
            imported
                .paths
                .iter_mut()
                .filter_map(|p| p.provenance.as_mut()),
        );
    for source in sources {
        if let Some(rest) = source
            .field
            .strip_prefix(&format!("Resources.{id}.Properties"))
        {
            source.field = format!("{id}{rest}");
        }
    }
    Ok(Imported {
        notes,
        declared: root.declared(),
        ..imported
    })
}

fn gather_notes(m: &Module, notes: &mut Vec<String>) {
    for note in m.notes.borrow().iter() {
        if !notes.contains(note) {
            notes.push(note.clone());
        }
    }
    let order = m.called_order.borrow().clone();
    let all = m.called.borrow();
    for called in order.iter().filter_map(|name| all.get(name)) {
        if let module::Called::Folder(children) = called {
            for (_, child) in children {
                gather_notes(child, notes);
            }
        }
    }
}

/// Every queue and redrive policy of `m` and the modules it calls.
fn collect(
    m: &Module,
    queues: &mut Vec<Queue>,
    redrives: &mut Vec<Redrive>,
) -> Result<(), WindowError> {
    // From here on, the variables read are the queues' own: those are the ones said.
    m.recording.set(true);
    for found in m.blocks("resource") {
        let kind = Module::label(found.block, 0).unwrap_or_default();
        if kind != "aws_sqs_queue" && kind != "aws_sqs_queue_redrive_policy" {
            continue;
        }
        let name = Module::label(found.block, 1).unwrap_or_default().to_owned();
        let instances = m.instances(&found).map_err(|f| fail_error(m, &f))?;
        if let Instances::Unknown(why) = &instances {
            m.note(format!(
                "{kind}.{name} is not read: how many instances it has cannot be worked out ({why})"
            ));
            continue;
        }
        if let Instances::Count(0) = instances {
            m.note(format!("{kind}.{name} has count = 0, so it is not created"));
        }
        for (key, count, each) in instances.each() {
            let mut ctx = Ctx::new(m, found.file);
            ctx.count = count;
            ctx.each = each;
            let body = &found.block.body;
            let eval = |arg: &str| -> Result<Option<(Tv, At)>, WindowError> {
                let Some(attr) = body.get_attribute(arg) else {
                    return Ok(None);
                };
                let v = ctx.eval(&attr.value).map_err(|f| fail_error(m, &f))?;
                Ok(Some((v, m.position(found.file, attr.value.span()).1)))
            };
            if kind == "aws_sqs_queue_redrive_policy" {
                let queue = eval("queue_url")?.map_or(Tv::Null, |(v, _)| v);
                let policy = eval("redrive_policy")?.map_or(Tv::Null, |(v, _)| v);
                redrives.push(Redrive {
                    address: format!("{kind}.{name}{key}"),
                    place: m.place(found.file, found.block.ident.span()),
                    queue,
                    policy,
                });
                continue;
            }
            let mut props = Vec::new();
            for (tf, cfn) in QUEUE_ARGUMENTS {
                if let Some((v, at)) = eval(tf)?
                    && v != Tv::Null
                {
                    props.push((cfn.to_owned(), v, at));
                }
            }
            // A queue named `….fifo` is FIFO only with fifo_queue = true; the name is not read.
            let (file, at) = m.position(found.file, found.block.ident.span());
            queues.push(Queue {
                id: m.queue_id(&name, &key),
                file,
                at,
                props,
            });
        }
    }
    let order = m.called_order.borrow().clone();
    let all = m.called.borrow();
    for called in order.iter().filter_map(|name| all.get(name)) {
        match called {
            module::Called::Folder(children) => {
                for (_, child) in children {
                    collect(child, queues, redrives)?;
                }
            }
            module::Called::Registry(calls) => {
                for (_, call) in calls {
                    for made in call.queues() {
                        for note in &made.notes {
                            m.note(note.clone());
                        }
                        queues.push(Queue {
                            id: made.id,
                            file: call.file.clone(),
                            at: call.at,
                            props: made
                                .props
                                .into_iter()
                                .map(|(k, v)| (k.to_owned(), v, call.at))
                                .collect(),
                        });
                    }
                }
            }
            module::Called::Missing(_) => {}
        }
    }
    Ok(())
}

/// Puts each `aws_sqs_queue_redrive_policy` on the queue its `queue_url` names.
fn attach(queues: &mut [Queue], redrives: Vec<Redrive>, notes: &mut Vec<String>) {
    for r in redrives {
        let target = match &r.queue {
            Tv::Str(s) if marked(s).is_none() => s.strip_suffix(".Url").map(str::to_owned),
            _ => None,
        };
        let Some(queue) = target.and_then(|t| queues.iter_mut().find(|q| q.id == t)) else {
            let why = r.queue.why_unknown().map_or_else(
                || "a queue these files do not declare".to_owned(),
                |w| format!("not known here: {w}"),
            );
            notes.push(format!(
                "{} ({}) is not read: its queue_url is {why}",
                r.address, r.place
            ));
            continue;
        };
        notes.push(format!(
            "{}: its redrive policy is {} ({})",
            queue.id, r.address, r.place
        ));
        let at = queue.at;
        queue.props.retain(|(k, _, _)| k != "RedrivePolicy");
        queue.props.push(("RedrivePolicy".to_owned(), r.policy, at));
    }
}

fn resource_node(q: &Queue) -> (String, Node) {
    let props = q
        .props
        .iter()
        .map(|(k, v, at)| {
            let v = if k == "RedrivePolicy" {
                decoded(v)
            } else {
                v.clone()
            };
            (k.clone(), to_node(&v, *at))
        })
        .collect();
    (
        q.id.clone(),
        Node::new(
            q.at,
            Value::Map(vec![
                (
                    "Type".to_owned(),
                    Node::new(q.at, Value::Text("AWS::SQS::Queue".to_owned())),
                ),
                ("Properties".to_owned(), Node::new(q.at, Value::Map(props))),
            ]),
        ),
    )
}

/// A redrive policy written as JSON text, as the map it encodes; an unknown part inside a
/// string stays there, one where a number belongs makes the policy unknown.
fn decoded(v: &Tv) -> Tv {
    let Tv::Str(text) = v else {
        return v.clone();
    };
    let escaped = text.replace(OPEN, "\\u0001").replace(CLOSE, "\\u0002");
    match serde_json::from_str::<serde_json::Value>(&escaped) {
        Ok(json) => Tv::from_json(&json),
        Err(_) => match marked(text) {
            Some(why) => Tv::Unknown(why),
            None => v.clone(),
        },
    }
}

/// A value as a tree node at `at`; unknown values stay unknown, with why.
fn to_node(v: &Tv, at: At) -> Node {
    let value = match v {
        Tv::Null => Value::Null,
        Tv::Bool(b) => Value::Bool(*b),
        Tv::Num(n) if n.fract() == 0.0 && n.abs() < 9e15 => Value::Int(*n as i64),
        Tv::Num(n) => Value::Float(*n),
        Tv::Str(s) => match marked(s) {
            Some(why) => Value::Unknown(why),
            None => Value::Text(s.clone()),
        },
        Tv::List(items) => Value::List(items.iter().map(|i| to_node(i, at)).collect()),
        Tv::Map(m) => Value::Map(
            m.iter()
                .filter(|(k, _)| k.as_str() != RESOURCE)
                .map(|(k, v)| (k.clone(), to_node(v, at)))
                .collect(),
        ),
        Tv::Unknown(why) => Value::Unknown(why.clone()),
    };
    Node::new(at, value)
}

/// An error of the queue reader in Terraform's words: the queue's address and the argument's
/// name rather than CloudFormation's.
fn terraform_names(err: WindowError, id: &str) -> WindowError {
    match err {
        WindowError::Config {
            file,
            position,
            mut message,
        } => {
            for (tf, cfn) in QUEUE_ARGUMENTS {
                message = message.replace(cfn, tf);
            }
            WindowError::Config {
                file,
                position,
                message: format!("queue {}: {message}", crate::text::sanitize_line(id)),
            }
        }
        other => other,
    }
}
