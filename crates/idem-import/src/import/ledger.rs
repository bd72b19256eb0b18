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

#[derive(Deserialize)]
#[serde(untagged)]
enum File {
    List(Vec<Row>),
    Object { charges: Vec<Row> },
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
    crate::import::read::each_value::<File>(path, shown, EXPECTED, notes, |file, line| {
        let rows = match file {
            File::List(r) | File::Object { charges: r } => r,
        };
        for (i, r) in rows.into_iter().enumerate() {
            out.push(Charge {
                id: r.id,
                key: r.key.map(|k| bare_key(&k).to_string()),
                order: r.order,
                amount: r.amount,
                origin: format!("{shown}:{line} charge {}", i + 1),
            });
        }
        Ok(())
    })?;
    Ok(out)
}
