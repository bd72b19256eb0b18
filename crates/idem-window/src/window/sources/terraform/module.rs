//! A Terraform module as Terraform reads one: every `.tf` file of a folder together, its
//! variables (with `--param`, `terraform.tfvars` and `*.auto.tfvars` over their defaults),
//! its locals, its resources with their `count` or `for_each`, and the modules it calls
//! (a folder on disk, or the registry's `terraform-aws-modules/sqs/aws`, see `registry`).
//! Everything is worked out when first asked for, so a value nobody needs is never evaluated.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use hcl_edit::Span;
use hcl_edit::expr::Expression;
use hcl_edit::structure::{Block, Body};

use super::eval::{Ctx, Fail, Scope};
use super::registry;
use super::value::Tv;
use super::value::{Input, queue_object, shown_value};

/// At most this many modules deep, and this many instances of one block.
pub const MODULE_DEPTH: usize = 8;
const INSTANCES: usize = 1000;

/// One `.tf` file of a module.
pub struct TfFile {
    pub label: String,
    pub text: String,
    pub body: Body,
}

/// One instance of a block: its key in the address (`[0]`, `["a"]`), `count.index`, and
/// `each.key` with `each.value`.
pub type Instance = (String, Option<Tv>, Option<(Tv, Tv)>);

/// How many of a block there are.
#[derive(Clone, Debug)]
pub enum Instances {
    One,
    Count(usize),
    Each(BTreeMap<String, Tv>),
    Unknown(String),
}

impl Instances {
    /// Each instance: its key in the address (`[0]`, `["a"]`), `count.index` and `each`.
    pub fn each(&self) -> Vec<Instance> {
        match self {
            Instances::One => vec![(String::new(), None, None)],
            Instances::Count(n) => (0..*n)
                .map(|i| (format!("[{i}]"), Some(Tv::Num(i as f64)), None))
                .collect(),
            Instances::Each(m) => m
                .iter()
                .map(|(k, v)| {
                    (
                        format!("[{k:?}]"),
                        None,
                        Some((Tv::Str(k.clone()), v.clone())),
                    )
                })
                .collect(),
            Instances::Unknown(_) => Vec::new(),
        }
    }
}

/// What a `module` block calls.
pub enum Called {
    Folder(Vec<(String, Module)>),
    Registry(Vec<(String, registry::SqsModule)>),
    Missing(String),
}

pub struct Module {
    /// `""` for the module given, `module.NAME[KEY]` for one it calls.
    pub address: String,
    pub dir: Option<PathBuf>,
    pub files: Vec<TfFile>,
    pub depth: usize,
    /// Values for variables: `--param` for the module given, the call's arguments otherwise.
    inputs: BTreeMap<String, Input>,
    locals: RefCell<BTreeMap<String, Tv>>,
    deciding: RefCell<Vec<String>>,
    instances: RefCell<BTreeMap<String, Instances>>,
    pub called: RefCell<BTreeMap<String, Called>>,
    /// The modules called, in the order written.
    pub called_order: RefCell<Vec<String>>,
    pub notes: RefCell<Vec<String>>,
    /// Whether the variables read are said in the notes: only while the queues are read, so
    /// the notes hold what the window rests on.
    pub recording: std::cell::Cell<bool>,
}

/// A block of a file, found by kind and labels.
pub struct Found<'a> {
    pub file: usize,
    pub block: &'a Block,
}

impl Scope for Module {
    fn variable(&self, name: &str) -> Tv {
        self.variable_of(name)
    }
    fn local(&self, name: &str, file: usize, span: Option<Range<usize>>) -> Result<Tv, Fail> {
        self.local_of(name, file, span)
    }
    fn dir_text(&self) -> String {
        self.dir_text_of()
    }
    fn module_value(&self, name: &str) -> Tv {
        self.module_value_of(name)
    }
    fn resource(&self, kind: &str, name: &str) -> Tv {
        self.resource_of(kind, name)
    }
}

impl Module {
    pub fn new(
        address: String,
        dir: Option<PathBuf>,
        files: Vec<TfFile>,
        depth: usize,
        inputs: BTreeMap<String, Input>,
    ) -> Self {
        Self {
            address,
            dir,
            files,
            depth,
            inputs,
            locals: RefCell::default(),
            deciding: RefCell::default(),
            instances: RefCell::default(),
            called: RefCell::default(),
            called_order: RefCell::default(),
            notes: RefCell::default(),
            recording: std::cell::Cell::new(false),
        }
    }

    /// A note about a variable's value, kept only while the queues are read.
    fn value_note(&self, note: String) {
        if self.recording.get() {
            self.note(note);
        }
    }

    pub fn note(&self, note: String) {
        let mut notes = self.notes.borrow_mut();
        if !notes.contains(&note) {
            notes.push(note);
        }
    }

    fn dir_text_of(&self) -> String {
        self.dir
            .as_deref()
            .map_or_else(|| ".".to_owned(), |d| d.display().to_string())
    }

    /// Every block of `kind`, in file order.
    pub fn blocks<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = Found<'a>> + 'a {
        self.files.iter().enumerate().flat_map(move |(file, f)| {
            f.body
                .blocks()
                .filter(move |b| b.ident.as_str() == kind)
                .map(move |block| Found { file, block })
        })
    }

    pub fn label(block: &Block, i: usize) -> Option<&str> {
        block.labels.get(i).map(|l| l.as_str())
    }

    fn find<'a>(&'a self, kind: &'a str, labels: &[&str]) -> Option<Found<'a>> {
        self.blocks(kind).find(|f| {
            labels
                .iter()
                .enumerate()
                .all(|(i, l)| Self::label(f.block, i) == Some(l))
        })
    }

    /// `file:line` of a place, for the notes.
    pub fn place(&self, file: usize, span: Option<Range<usize>>) -> String {
        let f = &self.files[file];
        let (line, _) = crate::window::line_column(&f.text, span.map_or(0, |s| s.start));
        format!("{}:{line}", f.label)
    }

    /// The file and `(line, column)` of a place.
    pub fn position(&self, file: usize, span: Option<Range<usize>>) -> (String, (usize, usize)) {
        let f = &self.files[file];
        (
            f.label.clone(),
            crate::window::line_column(&f.text, span.map_or(0, |s| s.start)),
        )
    }

    /// The variables this module declares.
    pub fn declared(&self) -> Vec<String> {
        self.blocks("variable")
            .filter_map(|f| Self::label(f.block, 0).map(str::to_owned))
            .collect()
    }

    /// `var.NAME`: its input, else its default, else unknown with how to give it.
    fn variable_of(&self, name: &str) -> Tv {
        let shown = crate::text::sanitize_line(name);
        let Some(declared) = self.find("variable", &[name]) else {
            return Tv::unknown(format!("var.{shown} is not declared in the files given"));
        };
        if let Some(input) = self.inputs.get(name) {
            let value = convert(declared.block, &input.value);
            self.value_note(format!(
                "{}var.{shown} = {} ({})",
                self.prefix(),
                shown_value(&value),
                input.from
            ));
            return value;
        }
        match declared.block.body.get_attribute("default") {
            Some(default) => {
                let value = Ctx::new(self, declared.file)
                    .eval(&default.value)
                    .unwrap_or_else(|f| Tv::unknown(f.message));
                let hint = if self.address.is_empty() {
                    format!("; --param {shown}=VALUE to use another")
                } else {
                    String::new()
                };
                self.value_note(format!(
                    "{}var.{shown} = {} (its default, {}{hint})",
                    self.prefix(),
                    shown_value(&value),
                    self.place(declared.file, default.value.span())
                ));
                value
            }
            None if self.address.is_empty() => Tv::unknown(format!(
                "var.{shown} has no default; give its value with --param {shown}=VALUE"
            )),
            None => Tv::unknown(format!(
                "{} does not set its variable {shown}, which has no default",
                self.address
            )),
        }
    }

    fn prefix(&self) -> String {
        if self.address.is_empty() {
            String::new()
        } else {
            format!("{}: ", self.address)
        }
    }

    /// `local.NAME`, worked out once.
    fn local_of(&self, name: &str, file: usize, span: Option<Range<usize>>) -> Result<Tv, Fail> {
        if let Some(v) = self.locals.borrow().get(name) {
            return Ok(v.clone());
        }
        if self.deciding.borrow().iter().any(|n| n == name) {
            return Err(Fail {
                file,
                span,
                message: format!("local.{name} depends on itself"),
            });
        }
        let found = self.blocks("locals").find_map(|f| {
            f.block
                .body
                .get_attribute(name)
                .map(|a| (f.file, a.value.clone()))
        });
        let Some((at, expr)) = found else {
            return Err(Fail {
                file,
                span,
                message: format!("no local named {name}"),
            });
        };
        self.deciding.borrow_mut().push(name.to_owned());
        let value = Ctx::new(self, at).eval(&expr);
        self.deciding.borrow_mut().pop();
        let value = value?;
        self.locals
            .borrow_mut()
            .insert(name.to_owned(), value.clone());
        Ok(value)
    }

    /// How many instances a `resource` or `module` block has.
    pub fn instances(&self, found: &Found<'_>) -> Result<Instances, Fail> {
        let key: Vec<&str> = std::iter::once(found.block.ident.as_str())
            .chain(found.block.labels.iter().map(|l| l.as_str()))
            .collect();
        let key = key.join(".");
        if let Some(i) = self.instances.borrow().get(&key) {
            return Ok(i.clone());
        }
        let ctx = Ctx::new(self, found.file);
        let body = &found.block.body;
        let instances = if let Some(count) = body.get_attribute("count") {
            match ctx.eval(&count.value)? {
                v if v.why_unknown().is_some() => {
                    Instances::Unknown(v.why_unknown().unwrap_or_default())
                }
                v => {
                    let n = v
                        .to_number()
                        .filter(|n| *n >= 0.0 && n.fract() == 0.0)
                        .ok_or_else(|| Fail {
                            file: found.file,
                            span: count.value.span(),
                            message: format!(
                                "count must be a whole number; found {}",
                                v.type_name()
                            ),
                        })?;
                    if n > INSTANCES as f64 {
                        return Err(Fail {
                            file: found.file,
                            span: count.value.span(),
                            message: format!(
                                "count of {n} is more than this reader works out ({INSTANCES})"
                            ),
                        });
                    }
                    Instances::Count(n as usize)
                }
            }
        } else if let Some(each) = body.get_attribute("for_each") {
            match ctx.eval(&each.value)? {
                Tv::Unknown(why) => Instances::Unknown(why),
                Tv::Map(m) => Instances::Each(m.into_iter().take(INSTANCES).collect()),
                Tv::List(items) => {
                    let mut m = BTreeMap::new();
                    for item in items.into_iter().take(INSTANCES) {
                        match item.to_text() {
                            Some(k) if item.why_unknown().is_none() => {
                                m.insert(k, item);
                            }
                            _ => {
                                return Ok(Instances::Unknown(item.why_unknown().unwrap_or_else(
                                    || "for_each over a set of values not strings".to_owned(),
                                )));
                            }
                        }
                    }
                    Instances::Each(m)
                }
                other => {
                    return Err(Fail {
                        file: found.file,
                        span: each.value.span(),
                        message: format!(
                            "for_each takes a map or a set of strings; found {}",
                            other.type_name()
                        ),
                    });
                }
            }
        } else {
            Instances::One
        };
        self.instances.borrow_mut().insert(key, instances.clone());
        Ok(instances)
    }

    /// The address a queue of this module has in the report: `NAME` here, `module.M.NAME` in a
    /// module called.
    pub fn queue_id(&self, name: &str, key: &str) -> String {
        if self.address.is_empty() {
            format!("{name}{key}")
        } else {
            format!("{}.{name}{key}", self.address)
        }
    }

    /// `KIND.NAME`, as a reference: a queue gives its ARN and URL (which name it for the
    /// queue reader); any other resource is known only once Terraform applies.
    fn resource_of(&self, kind: &str, name: &str) -> Tv {
        let shown = format!(
            "{}.{}",
            crate::text::sanitize_line(kind),
            crate::text::sanitize_line(name)
        );
        let Some(found) = self.find("resource", &[kind, name]) else {
            return Tv::unknown(format!("{shown} is not declared in the files given"));
        };
        if kind != "aws_sqs_queue" {
            return Tv::unknown(format!(
                "{shown} is another resource, whose attributes Terraform knows once it applies"
            ));
        }
        let object = |key: &str| queue_object(&self.queue_id(name, key));
        match self.instances(&found) {
            Err(fail) => Tv::unknown(fail.message),
            Ok(Instances::Unknown(why)) => Tv::Unknown(why),
            Ok(Instances::One) => object(""),
            Ok(Instances::Count(n)) => {
                Tv::List((0..n).map(|i| object(&format!("[{i}]"))).collect())
            }
            Ok(Instances::Each(m)) => Tv::Map(
                m.keys()
                    .map(|k| (k.clone(), object(&format!("[{k:?}]"))))
                    .collect(),
            ),
        }
    }

    /// `module.NAME`: the outputs of the module called (a list or map of them with `count`
    /// or `for_each`).
    fn module_value_of(&self, name: &str) -> Tv {
        let called = self.called.borrow();
        let Some(called) = called.get(name) else {
            return Tv::unknown(format!(
                "module.{} is not worked out before it is used",
                crate::text::sanitize_line(name)
            ));
        };
        let single = |items: Vec<(String, Tv)>| -> Tv {
            match items.as_slice() {
                [(key, v)] if key.is_empty() => v.clone(),
                _ if items.iter().all(|(k, _)| k.starts_with("[\"")) => Tv::Map(
                    items
                        .into_iter()
                        .map(|(k, v)| {
                            (
                                k.trim_start_matches("[\"")
                                    .trim_end_matches("\"]")
                                    .to_owned(),
                                v,
                            )
                        })
                        .collect(),
                ),
                _ => Tv::List(items.into_iter().map(|(_, v)| v).collect()),
            }
        };
        match called {
            Called::Missing(why) => Tv::Unknown(why.clone()),
            Called::Folder(children) => single(
                children
                    .iter()
                    .map(|(key, child)| (key.clone(), child.outputs()))
                    .collect(),
            ),
            Called::Registry(queues) => single(
                queues
                    .iter()
                    .map(|(key, q)| (key.clone(), q.outputs()))
                    .collect(),
            ),
        }
    }

    /// This module's outputs, as a module calling it sees them.
    pub fn outputs(&self) -> Tv {
        let mut out = BTreeMap::new();
        for found in self.blocks("output") {
            let Some(name) = Self::label(found.block, 0) else {
                continue;
            };
            let value = match found.block.body.get_attribute("value") {
                Some(v) => Ctx::new(self, found.file)
                    .eval(&v.value)
                    .unwrap_or_else(|f| Tv::unknown(f.message)),
                None => Tv::Null,
            };
            out.insert(name.to_owned(), value);
        }
        Tv::Map(out)
    }

    /// Works out the modules this one calls, in the order written (a call may use the outputs
    /// of one written before it), each instance with its arguments.
    pub fn call_modules(
        &self,
        load: &dyn Fn(&Path) -> Result<Vec<TfFile>, crate::window::WindowError>,
    ) -> Result<(), crate::window::WindowError> {
        let calls: Vec<(String, usize, Block)> = self
            .blocks("module")
            .filter_map(|f| Some((Self::label(f.block, 0)?.to_owned(), f.file, f.block.clone())))
            .collect();
        for (name, file, block) in calls {
            let found = Found {
                file,
                block: &block,
            };
            let address = |key: &str| {
                if self.address.is_empty() {
                    format!("module.{name}{key}")
                } else {
                    format!("{}.module.{name}{key}", self.address)
                }
            };
            let source = block
                .body
                .get_attribute("source")
                .and_then(|a| match &a.value {
                    Expression::String(s) => Some(s.value().clone()),
                    _ => None,
                })
                .unwrap_or_default();
            let version = block
                .body
                .get_attribute("version")
                .and_then(|a| match &a.value {
                    Expression::String(s) => Some(s.value().clone()),
                    _ => None,
                });
            let instances = match self.instances(&found) {
                Ok(Instances::Unknown(why)) => {
                    self.note(format!(
                        "module.{name} is not read: how many instances it has cannot be worked out ({why})"
                    ));
                    self.called
                        .borrow_mut()
                        .insert(name.clone(), Called::Missing(why));
                    continue;
                }
                Ok(i) => i,
                Err(fail) => return Err(super::fail_error(self, &fail)),
            };
            let mut each_inputs = Vec::new();
            for (key, count, each) in instances.each() {
                let mut ctx = Ctx::new(self, file);
                ctx.count = count;
                ctx.each = each;
                let mut inputs = BTreeMap::new();
                for attr in block.body.attributes() {
                    let arg = attr.key.as_str();
                    if matches!(
                        arg,
                        "source" | "version" | "count" | "for_each" | "providers" | "depends_on"
                    ) {
                        continue;
                    }
                    let value = ctx
                        .eval(&attr.value)
                        .unwrap_or_else(|f| Tv::unknown(f.message));
                    inputs.insert(
                        arg.to_owned(),
                        Input {
                            value,
                            from: format!(
                                "set by module.{name}, {}",
                                self.place(file, attr.value.span())
                            ),
                        },
                    );
                }
                each_inputs.push((key, inputs));
            }
            let called = if let Some(major) = registry::known(&source, version.as_deref()) {
                Called::Registry(
                    each_inputs
                        .into_iter()
                        .map(|(key, inputs)| {
                            let q = registry::SqsModule::new(
                                address(&key),
                                major,
                                version.clone(),
                                inputs,
                                self.position(file, block.ident.span()),
                            );
                            (key, q)
                        })
                        .collect(),
                )
            } else if source.starts_with("./") || source.starts_with("../") {
                match self.dir.as_deref().map(|d| normalized(&d.join(&source))) {
                    Some(dir) if dir.is_dir() => {
                        if self.depth + 1 >= MODULE_DEPTH {
                            return Err(super::fail_error(
                                self,
                                &Fail {
                                    file,
                                    span: block.ident.span(),
                                    message: format!("modules nest more than {MODULE_DEPTH} deep"),
                                },
                            ));
                        }
                        let mut children = Vec::new();
                        for (key, inputs) in each_inputs {
                            let child = Module::new(
                                address(&key),
                                Some(dir.clone()),
                                load(&dir)?,
                                self.depth + 1,
                                inputs,
                            );
                            child.call_modules(load)?;
                            children.push((key, child));
                        }
                        Called::Folder(children)
                    }
                    _ => {
                        let why = format!(
                            "module.{name}'s source {} is not a folder beside the files given",
                            crate::text::sanitize_line(&source)
                        );
                        self.note(format!("{why}, so its queues are not read"));
                        Called::Missing(why)
                    }
                }
            } else {
                let why = format!(
                    "module.{name}'s source {} is neither a folder given nor a registry module this reader knows (terraform-aws-modules/sqs/aws)",
                    crate::text::sanitize_line(&source)
                );
                self.note(format!("{why}, so its queues are not read"));
                Called::Missing(why)
            };
            self.called_order.borrow_mut().push(name.clone());
            self.called.borrow_mut().insert(name, called);
        }
        Ok(())
    }
}

/// A value given as text (`--param`) made the type the variable declares.
fn convert(block: &Block, value: &Tv) -> Tv {
    let Tv::Str(text) = value else {
        return value.clone();
    };
    let kind = block.body.get_attribute("type").map(|t| match &t.value {
        Expression::Variable(v) => v.as_str().to_owned(),
        _ => "complex".to_owned(),
    });
    match kind.as_deref() {
        Some("string") => value.clone(),
        Some("number") => text.trim().parse::<f64>().map_or(value.clone(), Tv::Num),
        Some("bool") => value.to_bool().map_or(value.clone(), Tv::Bool),
        // Anything else is read as Terraform reads `-var`: an expression, or else the text.
        _ => hcl_edit::parser::parse_expr(text)
            .ok()
            .filter(|e| !matches!(e, Expression::Variable(_) | Expression::Traversal(_)))
            .and_then(|e| {
                let empty = Module::new(String::new(), None, Vec::new(), 0, BTreeMap::new());
                Ctx::new(&empty, 0).eval(&e).ok()
            })
            .unwrap_or_else(|| value.clone()),
    }
}

/// A path with `.` and `..` worked out as far as its text goes (`infra/dev/../../modules` is
/// `modules`), so the notes name module folders as a person would.
fn normalized(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}
