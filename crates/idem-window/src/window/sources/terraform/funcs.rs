//! The Terraform functions real SQS modules call, each as the Terraform documentation's
//! "Built-in Functions" pages describe it (Terraform v1.x). `try` and `can` take their
//! arguments unevaluated and live with the evaluator; a function not here gives an unknown
//! value naming it, never a guess.

use std::collections::BTreeMap;

use super::value::{Tv, number_text};

/// Calls `name` with `args`; `Err` is Terraform's own error for these arguments (which `try`
/// catches). An unknown argument makes the result unknown, as in Terraform.
pub fn call(name: &str, args: Vec<Tv>) -> Result<Tv, String> {
    if let Some(why) = args.iter().find_map(|a| match a {
        Tv::Unknown(why) => Some(why.clone()),
        _ => None,
    }) {
        return Ok(Tv::Unknown(why));
    }
    let one = |args: &[Tv]| -> Result<Tv, String> {
        match args {
            [a] => Ok(a.clone()),
            _ => Err(format!("{name} takes one argument")),
        }
    };
    match name {
        "coalesce" => args
            .into_iter()
            .find(|a| !matches!(a, Tv::Null) && *a != Tv::Str(String::new()))
            .ok_or_else(|| "coalesce: no non-null, non-empty argument".to_owned()),
        "coalescelist" => args
            .into_iter()
            .find(|a| a.items().is_some_and(|i| !i.is_empty()))
            .ok_or_else(|| "coalescelist: no non-empty list".to_owned()),
        "lookup" => {
            let (map, key, default) = match args.as_slice() {
                [m, k] => (m, k, None),
                [m, k, d] => (m, k, Some(d)),
                _ => return Err("lookup takes a map, a key and a default".to_owned()),
            };
            let key = key.to_text().ok_or("lookup: the key must be a string")?;
            match map {
                Tv::Map(m) => m
                    .get(&key)
                    .cloned()
                    .or_else(|| default.cloned())
                    .ok_or_else(|| format!("lookup: no key {key:?} and no default")),
                Tv::Null => default.cloned().ok_or_else(|| "lookup on null".to_owned()),
                other => Err(format!("lookup takes a map, not {}", other.type_name())),
            }
        }
        "merge" => {
            let mut out = BTreeMap::new();
            for a in args {
                match a {
                    Tv::Map(m) => out.extend(m),
                    Tv::Null => {}
                    other => return Err(format!("merge takes maps, not {}", other.type_name())),
                }
            }
            Ok(Tv::Map(out))
        }
        "jsonencode" => Ok(Tv::Str(one(&args)?.to_json().to_string())),
        "jsondecode" => {
            let text = one(&args)?;
            let text = text.to_text().ok_or("jsondecode takes a string")?;
            if let Some(why) = super::value::marked(&text) {
                return Ok(Tv::Unknown(why));
            }
            serde_json::from_str::<serde_json::Value>(&text)
                .map(|v| Tv::from_json(&v))
                .map_err(|e| format!("jsondecode: {e}"))
        }
        "tonumber" => match one(&args)? {
            Tv::Null => Ok(Tv::Null),
            v => v
                .to_number()
                .map(Tv::Num)
                .ok_or_else(|| format!("tonumber: cannot make a number of {}", v.type_name())),
        },
        "tostring" => match one(&args)? {
            Tv::Null => Ok(Tv::Null),
            v => v
                .to_text()
                .map(Tv::Str)
                .ok_or_else(|| format!("tostring: cannot make a string of {}", v.type_name())),
        },
        "tobool" => match one(&args)? {
            Tv::Null => Ok(Tv::Null),
            v => v
                .to_bool()
                .map(Tv::Bool)
                .ok_or_else(|| format!("tobool: cannot make a bool of {}", v.type_name())),
        },
        "tolist" | "toset" => match one(&args)? {
            v @ Tv::List(_) => Ok(if name == "toset" { distinct(v) } else { v }),
            other => Err(format!("{name}: not a list: {}", other.type_name())),
        },
        "tomap" => match one(&args)? {
            v @ Tv::Map(_) => Ok(v),
            other => Err(format!("tomap: not a map: {}", other.type_name())),
        },
        "max" | "min" => {
            let mut numbers = Vec::new();
            for a in &args {
                numbers.push(
                    a.to_number()
                        .ok_or_else(|| format!("{name} takes numbers"))?,
                );
            }
            let pick = if name == "max" { f64::max } else { f64::min };
            numbers
                .into_iter()
                .reduce(pick)
                .map(Tv::Num)
                .ok_or_else(|| format!("{name} takes at least one number"))
        }
        "abs" | "ceil" | "floor" => {
            let n = one(&args)?
                .to_number()
                .ok_or_else(|| format!("{name} takes a number"))?;
            Ok(Tv::Num(match name {
                "abs" => n.abs(),
                "ceil" => n.ceil(),
                _ => n.floor(),
            }))
        }
        "length" => match one(&args)? {
            Tv::List(items) => Ok(Tv::Num(items.len() as f64)),
            Tv::Map(m) => Ok(Tv::Num(m.len() as f64)),
            Tv::Str(s) => Ok(Tv::Num(s.chars().count() as f64)),
            other => Err(format!("length of {}", other.type_name())),
        },
        "concat" => {
            let mut out = Vec::new();
            for a in args {
                match a {
                    Tv::List(items) => out.extend(items),
                    other => return Err(format!("concat takes lists, not {}", other.type_name())),
                }
            }
            Ok(Tv::List(out))
        }
        "flatten" => {
            fn flat(v: Tv, out: &mut Vec<Tv>) {
                match v {
                    Tv::List(items) => items.into_iter().for_each(|i| flat(i, out)),
                    other => out.push(other),
                }
            }
            let mut out = Vec::new();
            flat(one(&args)?, &mut out);
            Ok(Tv::List(out))
        }
        "distinct" => Ok(distinct(one(&args)?)),
        "compact" => match one(&args)? {
            Tv::List(items) => Ok(Tv::List(
                items
                    .into_iter()
                    .filter(|i| !matches!(i, Tv::Null) && *i != Tv::Str(String::new()))
                    .collect(),
            )),
            other => Err(format!("compact takes a list, not {}", other.type_name())),
        },
        "element" => match args.as_slice() {
            [Tv::List(items), i] if !items.is_empty() => {
                let i = i.to_number().ok_or("element: the index must be a number")? as usize;
                Ok(items[i % items.len()].clone())
            }
            _ => Err("element takes a non-empty list and an index".to_owned()),
        },
        "one" => match one(&args)? {
            Tv::List(items) if items.len() <= 1 => Ok(items.into_iter().next().unwrap_or(Tv::Null)),
            _ => Err("one: a list of more than one element".to_owned()),
        },
        "contains" => match args.as_slice() {
            [Tv::List(items), v] => Ok(Tv::Bool(items.contains(v))),
            _ => Err("contains takes a list and a value".to_owned()),
        },
        "keys" | "values" => match one(&args)? {
            Tv::Map(m) => Ok(Tv::List(if name == "keys" {
                m.into_keys().map(Tv::Str).collect()
            } else {
                m.into_values().collect()
            })),
            other => Err(format!("{name} takes a map, not {}", other.type_name())),
        },
        "zipmap" => match args.as_slice() {
            [Tv::List(k), Tv::List(v)] if k.len() == v.len() => Ok(Tv::Map(
                k.iter()
                    .zip(v)
                    .filter_map(|(k, v)| Some((k.to_text()?, v.clone())))
                    .collect(),
            )),
            _ => Err("zipmap takes two lists of one length".to_owned()),
        },
        "lower" | "upper" | "trimspace" => {
            let s = one(&args)?
                .to_text()
                .ok_or_else(|| format!("{name} takes a string"))?;
            Ok(Tv::Str(match name {
                "lower" => s.to_lowercase(),
                "upper" => s.to_uppercase(),
                _ => s.trim().to_owned(),
            }))
        }
        "trimsuffix" | "trimprefix" | "startswith" | "endswith" => {
            let [s, part] = args.as_slice() else {
                return Err(format!("{name} takes two strings"));
            };
            let (Some(s), Some(part)) = (s.to_text(), part.to_text()) else {
                return Err(format!("{name} takes two strings"));
            };
            Ok(match name {
                "trimsuffix" => Tv::Str(s.strip_suffix(&part).unwrap_or(&s).to_owned()),
                "trimprefix" => Tv::Str(s.strip_prefix(&part).unwrap_or(&s).to_owned()),
                "startswith" => Tv::Bool(s.starts_with(&part)),
                _ => Tv::Bool(s.ends_with(&part)),
            })
        }
        "join" => match args.as_slice() {
            [sep, rest @ ..] => {
                let sep = sep
                    .to_text()
                    .ok_or("join: the separator must be a string")?;
                let mut parts = Vec::new();
                for list in rest {
                    for item in list.items().ok_or("join takes lists")? {
                        parts.push(item.to_text().ok_or("join joins strings")?);
                    }
                }
                Ok(Tv::Str(parts.join(&sep)))
            }
            _ => Err("join takes a separator and lists".to_owned()),
        },
        "split" => match args.as_slice() {
            [sep, s] => {
                let (Some(sep), Some(s)) = (sep.to_text(), s.to_text()) else {
                    return Err("split takes two strings".to_owned());
                };
                if sep.is_empty() {
                    return Err("split needs a separator".to_owned());
                }
                Ok(Tv::List(
                    s.split(sep.as_str())
                        .map(|p| Tv::Str(p.to_owned()))
                        .collect(),
                ))
            }
            _ => Err("split takes two strings".to_owned()),
        },
        "replace" => match args.as_slice() {
            // A pattern in slashes is a regular expression, which this reader does not run.
            [_, from, _]
                if from
                    .to_text()
                    .is_some_and(|f| f.len() > 1 && f.starts_with('/') && f.ends_with('/')) =>
            {
                Ok(Tv::unknown(
                    "replace with a regular expression is not worked out by this reader",
                ))
            }
            [s, from, to] => match (s.to_text(), from.to_text(), to.to_text()) {
                (Some(s), Some(from), Some(to)) if !from.is_empty() => {
                    Ok(Tv::Str(s.replace(&from, &to)))
                }
                _ => Err("replace takes three strings".to_owned()),
            },
            _ => Err("replace takes three strings".to_owned()),
        },
        "format" => format(&args),
        "sum" => {
            let items = one(&args)?;
            let mut total = 0.0;
            for i in items.items().ok_or("sum takes a list")? {
                total += i.to_number().ok_or("sum adds numbers")?;
            }
            Ok(Tv::Num(total))
        }
        "range" => {
            let numbers: Option<Vec<f64>> = args.iter().map(Tv::to_number).collect();
            let (start, end, step) = match numbers.as_deref() {
                Some([end]) => (0.0, *end, 1.0),
                Some([start, end]) => (*start, *end, 1.0),
                Some([start, end, step]) => (*start, *end, *step),
                _ => return Err("range takes one to three numbers".to_owned()),
            };
            if step == 0.0 || ((end - start) / step) > 1024.0 {
                return Err("range: too many elements".to_owned());
            }
            let mut out = Vec::new();
            let mut n = start;
            while (step > 0.0 && n < end) || (step < 0.0 && n > end) {
                out.push(Tv::Num(n));
                n += step;
            }
            Ok(Tv::List(out))
        }
        _ => Ok(Tv::unknown(format!(
            "the function {name} is not worked out by this reader"
        ))),
    }
}

fn distinct(v: Tv) -> Tv {
    match v {
        Tv::List(items) => {
            let mut out: Vec<Tv> = Vec::new();
            for i in items {
                if !out.contains(&i) {
                    out.push(i);
                }
            }
            Tv::List(out)
        }
        other => other,
    }
}

/// `format`, for the verbs configuration uses: `%s`, `%d`, `%v` and `%%`.
fn format(args: &[Tv]) -> Result<Tv, String> {
    let [spec, rest @ ..] = args else {
        return Err("format takes a format string".to_owned());
    };
    let spec = spec
        .to_text()
        .ok_or("format: the first argument must be a string")?;
    let mut out = String::new();
    let mut values = rest.iter();
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some('s' | 'v' | 'd') => {
                let v = values.next().ok_or("format: too few arguments")?;
                out.push_str(&match v {
                    Tv::Num(n) => number_text(*n),
                    other => other.to_text().ok_or("format: not a single value")?,
                });
            }
            _ => return Ok(Tv::unknown("a format verb this reader does not work out")),
        }
    }
    Ok(Tv::Str(out))
}
