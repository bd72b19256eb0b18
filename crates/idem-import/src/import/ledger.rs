//! A ledger export given with `--ledger FILE`: the charges that really moved money, each with
//! the key it was made under. JSON: a list of charges, or an object holding one under
//! `charges` (as the interop endpoints' `GET /ledger` answers); each charge has `key` (or
//! `idempotency_key`), and optionally `id`, `order` and `amount`.

use crate::import::error::ImportError;
use crate::import::model::bare_key;
use serde::Deserialize;
use std::path::Path;

#[derive(Clone, Debug)]
pub struct Charge {
    pub id: Option<String>,
    pub key: Option<String>,
    pub order: Option<String>,
    pub amount: Option<String>,
    pub origin: String,
}

/// A list of charges, or an object holding one under `charges`; told apart as it is read, so
/// an error keeps its place in the file.
struct File(Vec<Row>);

impl<'de> Deserialize<'de> for File {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<File, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = File;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of charges, or an object with \"charges\"")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<File, A::Error> {
                let mut rows = Vec::new();
                while let Some(r) = seq.next_element::<Row>()? {
                    rows.push(r);
                }
                Ok(File(rows))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<File, A::Error> {
                let mut rows = None;
                while let Some(k) = map.next_key::<String>()? {
                    if k == "charges" {
                        rows = Some(map.next_value::<Vec<Row>>()?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                rows.map(File)
                    .ok_or_else(|| serde::de::Error::missing_field("charges"))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
struct Row {
    #[serde(default, deserialize_with = "crate::import::tags::scalar_text")]
    id: Option<String>,
    #[serde(
        default,
        alias = "idempotency_key",
        deserialize_with = "crate::import::tags::scalar_text"
    )]
    key: Option<String>,
    #[serde(default, deserialize_with = "crate::import::tags::scalar_text")]
    order: Option<String>,
    #[serde(default, deserialize_with = "crate::import::tags::scalar_text")]
    amount: Option<String>,
}

pub const EXPECTED: &str =
    "a ledger: a list of charges, or {\"charges\": [...]}, each with a \"key\"";

pub fn read(path: &Path, shown: &str, notes: &mut Vec<String>) -> Result<Vec<Charge>, ImportError> {
    let mut out = Vec::new();
    crate::import::read::each_value::<crate::import::read::Owned<File>>(
        path,
        shown,
        EXPECTED,
        notes,
        |file, line| {
            for (i, r) in file.0.into_iter().enumerate() {
                out.push(Charge {
                    id: r.id,
                    key: r.key.map(|k| bare_key(&k).to_string()),
                    order: r.order,
                    amount: r.amount,
                    origin: format!("{shown}:{line} charge {}", i + 1),
                });
            }
            Ok(())
        },
    )?;
    Ok(out)
}
