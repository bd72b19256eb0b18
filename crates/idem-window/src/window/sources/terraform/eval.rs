//! Evaluating a Terraform expression (`hcl-edit`'s syntax tree, which keeps where each part
//! was written) in a module: variables, locals, `count.index`, `each`, resources and module
//! outputs come from [`Module`]; operators, conditionals, `for` expressions, splats, templates
//! and functions are worked out here as Terraform's "Expressions" pages describe them.

use std::ops::Range;

use hcl_edit::Span;
use hcl_edit::expr::{
    BinaryOperator, Expression, ObjectKey, Traversal, TraversalOperator, UnaryOperator,
};
use hcl_edit::template::{Directive, Element, Template};

use super::funcs;
use super::value::{RESOURCE, Tv, marked};

/// How deep expressions may nest, and how many items a `for` may make.
const DEPTH: usize = 64;
const ITEMS: usize = 10_000;

/// Terraform's error for an expression: where, in which file of the module, and what.
#[derive(Clone, Debug)]
pub struct Fail {
    pub file: usize,
    pub span: Option<Range<usize>>,
    pub message: String,
}

/// What an expression can name outside itself: the module's variables, locals, path,
/// module calls and resources. The module implements it; evaluation needs nothing else of it.
pub trait Scope {
    fn variable(&self, name: &str) -> Tv;
    fn local(&self, name: &str, file: usize, span: Option<Range<usize>>) -> Result<Tv, Fail>;
    fn dir_text(&self) -> String;
    fn module_value(&self, name: &str) -> Tv;
    fn resource(&self, kind: &str, name: &str) -> Tv;
}

/// Where an expression is evaluated: the module, the file it is written in, and the names
/// `count`, `each` and `for` bring in.
#[derive(Clone)]
pub struct Ctx<'m> {
    pub m: &'m dyn Scope,
    pub file: usize,
    pub count: Option<Tv>,
    pub each: Option<(Tv, Tv)>,
    pub names: Vec<(String, Tv)>,
}

impl<'m> Ctx<'m> {
    pub fn new(m: &'m dyn Scope, file: usize) -> Self {
        Self {
            m,
            file,
            count: None,
            each: None,
            names: Vec::new(),
        }
    }

    fn fail(&self, span: Option<Range<usize>>, message: impl Into<String>) -> Fail {
        Fail {
            file: self.file,
            span,
            message: message.into(),
        }
    }

    pub fn eval(&self, e: &Expression) -> Result<Tv, Fail> {
        self.at(e, 0)
    }

    fn at(&self, e: &Expression, depth: usize) -> Result<Tv, Fail> {
        if depth > DEPTH {
            return Err(self.fail(e.span(), "the expression nests too deep to work out"));
        }
        let d = depth + 1;
        Ok(match e {
            Expression::Null(_) => Tv::Null,
            Expression::Bool(b) => Tv::Bool(*b.value()),
            Expression::Number(n) => Tv::Num(n.value().as_f64().unwrap_or(0.0)),
            Expression::String(s) => Tv::Str(s.value().clone()),
            Expression::Array(items) => {
                let mut out = Vec::new();
                for item in items.iter() {
                    out.push(self.at(item, d)?);
                }
                Tv::List(out)
            }
            Expression::Object(object) => {
                let mut out = std::collections::BTreeMap::new();
                for (key, value) in object.iter() {
                    let key = match key {
                        ObjectKey::Ident(id) => id.as_str().to_owned(),
                        ObjectKey::Expression(k) => match self.at(k, d)? {
                            // `(var.name) = …` as a key: a bare name is the name itself.
                            Tv::Unknown(why) => return Ok(Tv::Unknown(why)),
                            v => v.to_text().ok_or_else(|| {
                                self.fail(k.span(), "an object's key must be a string")
                            })?,
                        },
                    };
                    out.insert(key, self.at(value.expr(), d)?);
                }
                Tv::Map(out)
            }
            Expression::StringTemplate(t) => self.template(t, d)?,
            Expression::HeredocTemplate(h) => self.template(&h.template, d)?,
            Expression::Parenthesis(p) => self.at(p.inner(), d)?,
            Expression::Variable(v) => match self.names.iter().rev().find(|(n, _)| n == v.as_str())
            {
                Some((_, value)) => value.clone(),
                None => {
                    return Err(self.fail(e.span(), format!("{} is not a value here", v.as_str())));
                }
            },
            Expression::Conditional(c) => match self.at(&c.cond_expr, d)? {
                Tv::Unknown(why) => Tv::Unknown(why),
                cond => match cond.to_bool() {
                    Some(true) => self.at(&c.true_expr, d)?,
                    Some(false) => self.at(&c.false_expr, d)?,
                    None => {
                        if let Some(why) = cond.why_unknown() {
                            return Ok(Tv::Unknown(why));
                        }
                        return Err(self.fail(
                            c.cond_expr.span(),
                            format!("a condition must be a bool; found {}", cond.type_name()),
                        ));
                    }
                },
            },
            Expression::FuncCall(f) => {
                let name = f.name.name.as_str();
                let args: Vec<&Expression> = f.args.iter().collect();
                if !f.name.namespace.is_empty() {
                    return Ok(Tv::unknown(format!(
                        "the provider function {name} is not worked out by this reader"
                    )));
                }
                match name {
                    "try" => {
                        let mut last = None;
                        for arg in &args {
                            match self.at(arg, d) {
                                Ok(v) => return Ok(v),
                                Err(fail) => last = Some(fail),
                            }
                        }
                        return Err(last.unwrap_or_else(|| {
                            self.fail(e.span(), "try takes at least one argument")
                        }));
                    }
                    "can" => {
                        return Ok(match args.as_slice() {
                            [arg] => match self.at(arg, d) {
                                Ok(Tv::Unknown(why)) => Tv::Unknown(why),
                                Ok(_) => Tv::Bool(true),
                                Err(_) => Tv::Bool(false),
                            },
                            _ => return Err(self.fail(e.span(), "can takes one argument")),
                        });
                    }
                    _ => {}
                }
                let mut values = Vec::new();
                for arg in &args {
                    values.push(self.at(arg, d)?);
                }
                if f.args.expand_final()
                    && let Some(Tv::List(last)) = values.pop()
                {
                    values.extend(last);
                }
                funcs::call(name, values).map_err(|m| self.fail(e.span(), m))?
            }
            Expression::Traversal(t) => self.traversal(t, d)?,
            Expression::UnaryOp(u) => {
                let v = self.at(&u.expr, d)?;
                if let Some(why) = v.why_unknown() {
                    return Ok(Tv::Unknown(why));
                }
                match u.operator.value() {
                    UnaryOperator::Neg => Tv::Num(
                        -v.to_number()
                            .ok_or_else(|| self.fail(u.expr.span(), "- takes a number"))?,
                    ),
                    UnaryOperator::Not => Tv::Bool(
                        !v.to_bool()
                            .ok_or_else(|| self.fail(u.expr.span(), "! takes a bool"))?,
                    ),
                }
            }
            Expression::BinaryOp(b) => {
                let l = self.at(&b.lhs_expr, d)?;
                let r = self.at(&b.rhs_expr, d)?;
                self.binary(*b.operator.value(), l, r, e.span())?
            }
            Expression::ForExpr(f) => {
                let collection = self.at(&f.intro.collection_expr, d)?;
                let pairs: Vec<(Tv, Tv)> = match collection {
                    Tv::Unknown(why) => return Ok(Tv::Unknown(why)),
                    Tv::List(items) => items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| (Tv::Num(i as f64), v))
                        .collect(),
                    Tv::Map(m) => m
                        .into_iter()
                        .filter(|(k, _)| k != RESOURCE)
                        .map(|(k, v)| (Tv::Str(k), v))
                        .collect(),
                    other => {
                        return Err(self.fail(
                            f.intro.collection_expr.span(),
                            format!("for takes a list or a map; found {}", other.type_name()),
                        ));
                    }
                };
                if pairs.len() > ITEMS {
                    return Err(self.fail(e.span(), "for: too many items to work out"));
                }
                let mut list = Vec::new();
                let mut map: std::collections::BTreeMap<String, Tv> = Default::default();
                for (k, v) in pairs {
                    let mut inner = self.clone();
                    if let Some(key_var) = &f.intro.key_var {
                        inner.names.push((key_var.as_str().to_owned(), k));
                    }
                    inner.names.push((f.intro.value_var.as_str().to_owned(), v));
                    if let Some(cond) = &f.cond {
                        match inner.at(&cond.expr, d)? {
                            Tv::Unknown(why) => return Ok(Tv::Unknown(why)),
                            c => match c.to_bool() {
                                Some(true) => {}
                                Some(false) => continue,
                                None => {
                                    return Err(
                                        self.fail(cond.expr.span(), "for's if must be a bool")
                                    );
                                }
                            },
                        }
                    }
                    let value = inner.at(&f.value_expr, d)?;
                    match &f.key_expr {
                        Some(key_expr) => {
                            let key = match inner.at(key_expr, d)? {
                                Tv::Unknown(why) => return Ok(Tv::Unknown(why)),
                                k => k.to_text().ok_or_else(|| {
                                    self.fail(key_expr.span(), "a for's key must be a string")
                                })?,
                            };
                            if f.grouping {
                                if let Tv::List(items) =
                                    map.entry(key).or_insert_with(|| Tv::List(Vec::new()))
                                {
                                    items.push(value);
                                }
                            } else {
                                map.insert(key, value);
                            }
                        }
                        None => list.push(value),
                    }
                }
                if f.key_expr.is_some() {
                    Tv::Map(map)
                } else {
                    Tv::List(list)
                }
            }
        })
    }

    fn template(&self, t: &Template, depth: usize) -> Result<Tv, Fail> {
        let elements: Vec<&Element> = t.iter().collect();
        // A template that is one interpolation is its value, of whatever type.
        if let [Element::Interpolation(i)] = elements.as_slice() {
            return self.at(&i.expr, depth + 1);
        }
        let mut out = String::new();
        for element in elements {
            match element {
                Element::Literal(s) => out.push_str(s.value()),
                Element::Interpolation(i) => {
                    let v = self.at(&i.expr, depth + 1)?;
                    out.push_str(&v.to_text().ok_or_else(|| {
                        self.fail(
                            i.expr.span(),
                            format!("cannot put {} in a string", v.type_name()),
                        )
                    })?);
                }
                Element::Directive(directive) => match directive.as_ref() {
                    Directive::If(i) => match self.at(&i.if_expr.cond_expr, depth + 1)? {
                        Tv::Unknown(why) => out.push_str(&Tv::as_part(&why)),
                        c => {
                            let chosen = if c.to_bool().unwrap_or(false) {
                                Some(&i.if_expr.template)
                            } else {
                                i.else_expr.as_ref().map(|e| &e.template)
                            };
                            if let Some(chosen) = chosen {
                                let v = self.template(chosen, depth + 1)?;
                                out.push_str(&v.to_text().unwrap_or_default());
                            }
                        }
                    },
                    Directive::For(f) => {
                        let items = match self.at(&f.for_expr.collection_expr, depth + 1)? {
                            Tv::List(items) => items
                                .into_iter()
                                .enumerate()
                                .map(|(i, v)| (Tv::Num(i as f64), v))
                                .collect::<Vec<_>>(),
                            Tv::Map(m) => m.into_iter().map(|(k, v)| (Tv::Str(k), v)).collect(),
                            other => {
                                out.push_str(&Tv::as_part(&other.why_unknown().unwrap_or_else(
                                    || "a template's for over something not a list".to_owned(),
                                )));
                                continue;
                            }
                        };
                        for (k, v) in items.into_iter().take(ITEMS) {
                            let mut inner = self.clone();
                            if let Some(key_var) = &f.for_expr.key_var {
                                inner.names.push((key_var.as_str().to_owned(), k));
                            }
                            inner
                                .names
                                .push((f.for_expr.value_var.as_str().to_owned(), v));
                            let v = inner.template(&f.for_expr.template, depth + 1)?;
                            out.push_str(&v.to_text().unwrap_or_default());
                        }
                    }
                },
            }
        }
        Ok(Tv::Str(out))
    }

    fn binary(
        &self,
        op: BinaryOperator,
        l: Tv,
        r: Tv,
        span: Option<Range<usize>>,
    ) -> Result<Tv, Fail> {
        use BinaryOperator as B;
        match op {
            B::And | B::Or => {
                let and = op == B::And;
                let (lb, rb) = (l.to_bool(), r.to_bool());
                // false && anything is false, true || anything is true, unknown or not.
                if lb == Some(!and) || rb == Some(!and) {
                    return Ok(Tv::Bool(!and));
                }
                if let (Some(_), Some(_)) = (lb, rb) {
                    return Ok(Tv::Bool(and));
                }
                if let Some(why) = l.why_unknown().or_else(|| r.why_unknown()) {
                    return Ok(Tv::Unknown(why));
                }
                Err(self.fail(span, format!("{} takes bools", op.as_str())))
            }
            B::Eq | B::NotEq => {
                if let Some(why) = l.why_unknown().or_else(|| r.why_unknown()) {
                    return Ok(Tv::Unknown(why));
                }
                let equal = equal(&l, &r);
                Ok(Tv::Bool(if op == B::Eq { equal } else { !equal }))
            }
            _ => {
                if let Some(why) = l.why_unknown().or_else(|| r.why_unknown()) {
                    return Ok(Tv::Unknown(why));
                }
                let (Some(a), Some(b)) = (l.to_number(), r.to_number()) else {
                    return Err(self.fail(
                        span,
                        format!(
                            "{} takes numbers; found {} and {}",
                            op.as_str(),
                            l.type_name(),
                            r.type_name()
                        ),
                    ));
                };
                Ok(match op {
                    B::LessEq => Tv::Bool(a <= b),
                    B::GreaterEq => Tv::Bool(a >= b),
                    B::Less => Tv::Bool(a < b),
                    B::Greater => Tv::Bool(a > b),
                    B::Plus => Tv::Num(a + b),
                    B::Minus => Tv::Num(a - b),
                    B::Mul => Tv::Num(a * b),
                    B::Div if b == 0.0 => return Err(self.fail(span, "division by zero")),
                    B::Div => Tv::Num(a / b),
                    B::Mod if b == 0.0 => return Err(self.fail(span, "modulo by zero")),
                    _ => Tv::Num(a % b),
                })
            }
        }
    }

    fn traversal(&self, t: &Traversal, depth: usize) -> Result<Tv, Fail> {
        let ops: Vec<&TraversalOperator> = t.operators.iter().map(|o| o.value()).collect();
        let attr = |i: usize| match ops.get(i) {
            Some(TraversalOperator::GetAttr(id)) => Some(id.as_str().to_owned()),
            _ => None,
        };
        let span = t.span();
        let (value, used) = match &t.expr {
            Expression::Variable(v) => {
                let name = v.as_str();
                if let Some((_, value)) = self.names.iter().rev().find(|(n, _)| n == name) {
                    (value.clone(), 0)
                } else {
                    match (name, attr(0)) {
                        ("var", Some(a)) => (self.m.variable(&a), 1),
                        ("local", Some(a)) => (self.m.local(&a, self.file, span.clone())?, 1),
                        ("count", Some(a)) if a == "index" => match &self.count {
                            Some(i) => (i.clone(), 1),
                            None => {
                                return Err(
                                    self.fail(span, "count.index outside a block with count")
                                );
                            }
                        },
                        ("each", Some(a)) if a == "key" || a == "value" => match &self.each {
                            Some((k, v)) => (if a == "key" { k.clone() } else { v.clone() }, 1),
                            None => {
                                return Err(self.fail(span, "each outside a block with for_each"));
                            }
                        },
                        ("path", Some(_)) => (Tv::Str(self.m.dir_text()), 1),
                        ("terraform", Some(a)) if a == "workspace" => {
                            (Tv::Str("default".into()), 1)
                        }
                        ("module", Some(a)) => (self.m.module_value(&a), 1),
                        ("data", Some(kind)) => {
                            let name = attr(1).unwrap_or_default();
                            return Ok(Tv::unknown(format!(
                                "data.{kind}.{name} is read from the provider when Terraform plans"
                            )));
                        }
                        ("self", _) => {
                            return Ok(Tv::unknown("self is known once the resource exists"));
                        }
                        (kind, Some(name)) => (self.m.resource(kind, &name), 1),
                        _ => return Err(self.fail(span, format!("{name} is not a value here"))),
                    }
                }
            }
            other => (self.at(other, depth + 1)?, 0),
        };
        self.apply(value, &ops[used..], depth)
    }

    fn apply(&self, mut value: Tv, ops: &[&TraversalOperator], depth: usize) -> Result<Tv, Fail> {
        for (i, op) in ops.iter().enumerate() {
            value = match op {
                TraversalOperator::GetAttr(id) => self.get(value, id.as_str(), id.span())?,
                TraversalOperator::Index(e) => {
                    let key = self.at(e, depth + 1)?;
                    self.index(value, key, e.span())?
                }
                TraversalOperator::LegacyIndex(n) => {
                    self.index(value, Tv::Num(*n.value() as f64), n.span())?
                }
                TraversalOperator::AttrSplat(_) | TraversalOperator::FullSplat(_) => {
                    let rest = &ops[i + 1..];
                    return Ok(match value {
                        Tv::Unknown(why) => Tv::Unknown(why),
                        Tv::Null => Tv::List(Vec::new()),
                        Tv::List(items) => {
                            let mut out = Vec::new();
                            for item in items {
                                out.push(self.apply(item, rest, depth + 1)?);
                            }
                            Tv::List(out)
                        }
                        other => Tv::List(vec![self.apply(other, rest, depth + 1)?]),
                    });
                }
            };
        }
        Ok(value)
    }

    fn get(&self, value: Tv, name: &str, span: Option<Range<usize>>) -> Result<Tv, Fail> {
        match value {
            Tv::Unknown(why) => Ok(Tv::Unknown(why)),
            Tv::Map(m) => match m.get(name) {
                Some(v) => Ok(v.clone()),
                None if m.contains_key(RESOURCE) => {
                    Ok(Tv::unknown(format!("the queue's {name} is not read")))
                }
                None => Err(self.fail(span, format!("no attribute {name}"))),
            },
            other => Err(self.fail(
                span,
                format!("no attribute {name} on {}", other.type_name()),
            )),
        }
    }

    fn index(&self, value: Tv, key: Tv, span: Option<Range<usize>>) -> Result<Tv, Fail> {
        if let Some(why) = key.why_unknown() {
            return Ok(Tv::Unknown(why));
        }
        match value {
            Tv::Unknown(why) => Ok(Tv::Unknown(why)),
            Tv::List(items) => {
                let i = key
                    .to_number()
                    .filter(|n| *n >= 0.0 && n.fract() == 0.0)
                    .ok_or_else(|| {
                        self.fail(span.clone(), "a list's index must be a whole number")
                    })?;
                items.get(i as usize).cloned().ok_or_else(|| {
                    self.fail(span, format!("index {i} of a list of {}", items.len()))
                })
            }
            Tv::Map(m) => {
                let k = key
                    .to_text()
                    .ok_or_else(|| self.fail(span.clone(), "a map's key must be a string"))?;
                m.get(&k)
                    .cloned()
                    .ok_or_else(|| self.fail(span, format!("no key {k:?}")))
            }
            other => Err(self.fail(span, format!("cannot index {}", other.type_name()))),
        }
    }
}

/// Terraform's `==`: numbers by value, everything else alike in type and value.
fn equal(a: &Tv, b: &Tv) -> bool {
    match (a, b) {
        (Tv::Num(x), Tv::Num(y)) => x == y,
        (Tv::List(x), Tv::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Tv::Map(x), Tv::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, a), (l, b))| k == l && equal(a, b))
        }
        _ => a == b && marked(&format!("{a:?}")).is_none(),
    }
}
