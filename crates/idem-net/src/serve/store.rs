//! The processor's durable state in SQLite: the ledger of charges, and the memory of keys
//! (key records, key-log lines, in-progress records, body hashes). Every method is one
//! write or one read; a method that says "in one transaction" commits both of its writes
//! together or neither.

use rusqlite::{Connection, OptionalExtension, params};
use std::path::Path;

/// What a remembered entry is, so that one database can hold every design's memory apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `with-charge` and `inprogress-record`: the key record.
    Record,
    /// `log-after-charge` and `log-before-charge`: a line of the key log.
    Log,
    /// `content-hash`: the hash of a charged body.
    BodyHash,
}

impl Kind {
    fn id(self) -> &'static str {
        match self {
            Kind::Record => "record",
            Kind::Log => "log",
            Kind::BodyHash => "hash",
        }
    }
}

/// Whether the work behind an entry is finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    InProgress,
    Completed,
}

/// An answer as it was sent, kept to be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub body: String,
}

/// A remembered entry that has not expired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub state: State,
    /// What the key was first used for, where the design keeps it.
    pub fingerprint: Option<u64>,
    pub answer: Option<Answer>,
    /// Unix time in milliseconds after which the entry is forgotten.
    pub expires: i64,
}

/// A line of the ledger.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Charge {
    pub id: String,
    pub order: String,
    pub amount_cents: i64,
    pub key: Option<String>,
}

/// A charge about to be written.
pub struct NewCharge<'a> {
    pub order: &'a str,
    pub amount_cents: i64,
    pub key: Option<&'a str>,
    pub now: i64,
}

/// An entry about to be remembered.
pub struct NewEntry<'a> {
    pub kind: Kind,
    pub key: &'a str,
    pub fingerprint: Option<u64>,
    pub state: State,
    pub expires: i64,
    /// Replace an entry already under this key (last writer wins) instead of failing.
    pub replace: bool,
}

/// The most ledger lines a listing returns.
pub const LIST_LIMIT: usize = 100;

pub struct Store {
    conn: Connection,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS charges (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ord TEXT NOT NULL,
    amount INTEGER NOT NULL,
    key TEXT,
    at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS memory (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint INTEGER,
    state TEXT NOT NULL,
    status INTEGER,
    body TEXT,
    expires INTEGER NOT NULL,
    PRIMARY KEY (kind, key)
);
";

fn failed(e: rusqlite::Error) -> String {
    crate::text::sanitize_line(&format!("the database failed: {e}"))
}

impl Store {
    /// Opens the database file at `path` (created if missing), or one held in memory.
    pub fn open(path: Option<&Path>) -> Result<Store, String> {
        let conn = match path {
            Some(p) => Connection::open(p).map_err(|e| {
                let shown = crate::text::sanitize_line(&p.display().to_string());
                crate::text::sanitize_line(&format!("cannot open the database `{shown}`: {e}"))
            })?,
            None => Connection::open_in_memory().map_err(failed)?,
        };
        // Another server on the same file holds its lock only for a transaction's moment.
        conn.busy_timeout(std::time::Duration::from_secs(2))
            .map_err(failed)?;
        conn.execute_batch(SCHEMA).map_err(|e| match path {
            Some(p) => crate::text::sanitize_line(&format!(
                "`{}` is not a database idem serve can use: {e}",
                p.display()
            )),
            None => failed(e),
        })?;
        Ok(Store { conn })
    }

    /// The live entry of this kind under `key`, if there is one that has not expired.
    pub fn find(&self, kind: Kind, key: &str, now: i64) -> Result<Option<Entry>, String> {
        self.conn
            .query_row(
                "SELECT state, fingerprint, status, body, expires FROM memory
                 WHERE kind = ?1 AND key = ?2 AND expires > ?3",
                params![kind.id(), key, now],
                |row| {
                    let state: String = row.get(0)?;
                    let fingerprint: Option<i64> = row.get(1)?;
                    let status: Option<i64> = row.get(2)?;
                    let body: Option<String> = row.get(3)?;
                    Ok(Entry {
                        state: if state == "in-progress" {
                            State::InProgress
                        } else {
                            State::Completed
                        },
                        fingerprint: fingerprint.map(|f| f as u64),
                        answer: match (status, body) {
                            (Some(s), Some(b)) => Some(Answer {
                                status: u16::try_from(s).unwrap_or(500),
                                body: b,
                            }),
                            _ => None,
                        },
                        expires: row.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(failed)
    }

    /// Writes a charge alone; `answer` builds the answer from the new ledger line.
    pub fn charge(
        &mut self,
        charge: &NewCharge<'_>,
        answer: impl FnOnce(&Charge) -> Answer,
    ) -> Result<(Charge, Answer), String> {
        let tx = self.conn.transaction().map_err(failed)?;
        let line = insert_charge(&tx, charge)?;
        let a = answer(&line);
        tx.commit().map_err(failed)?;
        Ok((line, a))
    }

    /// Writes a charge and the entry that remembers it, with the answer, in one transaction.
    pub fn charge_and_remember(
        &mut self,
        charge: &NewCharge<'_>,
        entry: &NewEntry<'_>,
        answer: impl FnOnce(&Charge) -> Answer,
    ) -> Result<(Charge, Answer), String> {
        let tx = self.conn.transaction().map_err(failed)?;
        let line = insert_charge(&tx, charge)?;
        let a = answer(&line);
        put(&tx, entry, Some(&a), charge.now)?;
        tx.commit().map_err(failed)?;
        Ok((line, a))
    }

    /// Remembers an entry on its own, with the answer to replay if there is one yet.
    pub fn remember(
        &mut self,
        entry: &NewEntry<'_>,
        answer: Option<&Answer>,
        now: i64,
    ) -> Result<(), String> {
        let tx = self.conn.transaction().map_err(failed)?;
        put(&tx, entry, answer, now)?;
        tx.commit().map_err(failed)
    }

    /// Marks an entry completed with its answer, kept until `expires`.
    pub fn complete(
        &mut self,
        kind: Kind,
        key: &str,
        answer: &Answer,
        expires: i64,
    ) -> Result<(), String> {
        self.conn
            .execute(
                "UPDATE memory SET state = 'completed', status = ?3, body = ?4, expires = ?5
                 WHERE kind = ?1 AND key = ?2",
                params![kind.id(), key, answer.status, answer.body, expires],
            )
            .map(|_| ())
            .map_err(failed)
    }

    /// The ledger lines of one order, or the last [`LIST_LIMIT`] of all, oldest first;
    /// with the number of lines in all.
    pub fn charges(&self, order: Option<&str>) -> Result<(Vec<Charge>, usize), String> {
        let total: i64 = match order {
            Some(o) => self.conn.query_row(
                "SELECT COUNT(*) FROM charges WHERE ord = ?1",
                params![o],
                |r| r.get(0),
            ),
            None => self
                .conn
                .query_row("SELECT COUNT(*) FROM charges", [], |r| r.get(0)),
        }
        .map_err(failed)?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, ord, amount, key FROM (
                   SELECT id, ord, amount, key FROM charges
                   WHERE ?1 IS NULL OR ord = ?1 ORDER BY id DESC LIMIT ?2
                 ) ORDER BY id",
            )
            .map_err(failed)?;
        let rows = stmt
            .query_map(params![order, LIST_LIMIT as i64], |row| {
                let id: i64 = row.get(0)?;
                Ok(Charge {
                    id: charge_id(id),
                    order: row.get(1)?,
                    amount_cents: row.get(2)?,
                    key: row.get(3)?,
                })
            })
            .map_err(failed)?;
        let lines = rows.collect::<Result<Vec<_>, _>>().map_err(failed)?;
        Ok((lines, usize::try_from(total).unwrap_or(0)))
    }
}

/// `ch_1`, `ch_2`, … as the simulation names its charges.
fn charge_id(id: i64) -> String {
    format!("ch_{id}")
}

fn insert_charge(tx: &rusqlite::Transaction<'_>, c: &NewCharge<'_>) -> Result<Charge, String> {
    tx.execute(
        "INSERT INTO charges (ord, amount, key, at) VALUES (?1, ?2, ?3, ?4)",
        params![c.order, c.amount_cents, c.key, c.now],
    )
    .map_err(failed)?;
    Ok(Charge {
        id: charge_id(tx.last_insert_rowid()),
        order: c.order.to_string(),
        amount_cents: c.amount_cents,
        key: c.key.map(str::to_string),
    })
}

/// Writes an entry. An expired entry under the same key gives way; a live one makes the
/// write fail unless the entry says to replace it.
fn put(
    tx: &rusqlite::Transaction<'_>,
    e: &NewEntry<'_>,
    answer: Option<&Answer>,
    now: i64,
) -> Result<(), String> {
    tx.execute(
        "DELETE FROM memory WHERE kind = ?1 AND key = ?2 AND expires <= ?3",
        params![e.kind.id(), e.key, now],
    )
    .map_err(failed)?;
    let verb = if e.replace {
        "INSERT OR REPLACE"
    } else {
        "INSERT"
    };
    let state = match e.state {
        State::InProgress => "in-progress",
        State::Completed => "completed",
    };
    tx.execute(
        &format!(
            "{verb} INTO memory (kind, key, fingerprint, state, status, body, expires)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
        ),
        params![
            e.kind.id(),
            e.key,
            e.fingerprint.map(|f| f as i64),
            state,
            answer.map(|a| a.status),
            answer.map(|a| a.body.as_str()),
            e.expires
        ],
    )
    .map(|_| ())
    .map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn charge<'a>(key: Option<&'a str>, now: i64) -> NewCharge<'a> {
        NewCharge {
            order: "5531",
            amount_cents: 4860,
            key,
            now,
        }
    }

    fn entry(key: &str, replace: bool) -> NewEntry<'_> {
        NewEntry {
            kind: Kind::Record,
            key,
            fingerprint: Some(7),
            state: State::Completed,
            expires: 1_000,
            replace,
        }
    }

    fn ok(c: &Charge) -> Answer {
        Answer {
            status: 200,
            body: c.id.clone(),
        }
    }

    #[test]
    fn a_charge_and_its_key_are_one_transaction() {
        let mut s = Store::open(None).expect("an in-memory database");
        let (line, answer) = s
            .charge_and_remember(&charge(Some("K7Q4"), 0), &entry("K7Q4", false), ok)
            .expect("the first write");
        assert_eq!(line.id, "ch_1");
        assert_eq!(answer.body, "ch_1");
        // The same key again without replace: the key write fails, and so does the charge.
        assert!(
            s.charge_and_remember(&charge(Some("K7Q4"), 1), &entry("K7Q4", false), ok)
                .is_err()
        );
        assert_eq!(s.charges(None).expect("a listing").1, 1, "rolled back");
        // With replace (no lock), both land.
        s.charge_and_remember(&charge(Some("K7Q4"), 2), &entry("K7Q4", true), ok)
            .expect("last writer wins");
        assert_eq!(s.charges(Some("5531")).expect("a listing").1, 2);
    }

    #[test]
    fn an_expired_entry_is_forgotten_and_gives_way() {
        let mut s = Store::open(None).expect("an in-memory database");
        s.remember(&entry("K", false), None, 0).expect("remembered");
        assert!(s.find(Kind::Record, "K", 999).expect("read").is_some());
        assert!(s.find(Kind::Record, "K", 1_000).expect("read").is_none());
        assert!(
            s.find(Kind::Log, "K", 0).expect("read").is_none(),
            "kinds apart"
        );
        s.remember(&entry("K", false), None, 1_000)
            .expect("the expired entry gives way");
    }
}
