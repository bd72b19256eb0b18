//! Reading a file of records: regular files only, opened without waiting on a pipe, never
//! more than a limit, and streamed: a JSON-lines file a line at a time, any other JSON as a
//! stream of values, so only one value (one export batch, one HAR log) is held at a time.

use crate::import::error::ImportError;
use idem_core::bounded_read::{ReadError, open_regular_file, read_head};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::marker::PhantomData;
use std::path::Path;

/// The most of a file read: larger files are refused before anything is read.
pub const MAX_FILE: u64 = 16 << 30;
/// The longest line of a JSON-lines file (one export batch).
pub const MAX_LINE: usize = 512 << 20;

/// Opens the regular file at `path` for reading, refusing anything else without a wait, and
/// a file longer than [`MAX_FILE`]; it is read through `take(MAX_FILE)` all the same.
pub fn open(path: &Path, shown: &str) -> Result<std::io::Take<File>, ImportError> {
    let file = open_regular_file(path, MAX_FILE).map_err(|e| ImportError::read(shown, e))?;
    Ok(file.take(MAX_FILE))
}

/// The first `n` bytes of the file.
pub fn head(path: &Path, shown: &str, n: u64) -> Result<Vec<u8>, ImportError> {
    read_head(path, n).map_err(|e| ImportError::read(shown, e))
}

/// Reads one line into `line` (without its newline), at most [`MAX_LINE`] bytes; false at
/// the end of the file.
fn read_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    shown: &str,
    number: usize,
) -> Result<bool, ImportError> {
    line.clear();
    // read_until finds the newline a word at a time; the bound stops a line without one.
    let limit = MAX_LINE as u64 + 1;
    let n = reader
        .by_ref()
        .take(limit)
        .read_until(b'\n', line)
        .map_err(|e| ImportError::read(shown, ReadError::from(e)))?;
    if line.last() == Some(&b'\n') {
        line.pop();
    } else if n as u64 == limit {
        return Err(ImportError::read(
            shown,
            format!("line {number} is longer than {MAX_LINE} bytes, the most read as one record"),
        ));
    }
    Ok(n > 0)
}

/// What a file's values are read as: a type that may borrow its strings from the line it is
/// read from (a JSON-lines file is read a line at a time, and a value's strings need not be
/// copied), and owns them when read from a stream.
pub trait Record {
    type Value<'a>: Deserialize<'a>;
}

/// A value that owns its strings, read the same from a line or a stream.
pub struct Owned<T>(PhantomData<T>);

impl<T: DeserializeOwned> Record for Owned<T> {
    type Value<'a> = T;
}

/// Every top-level JSON value of the file, handed to `each` with the line it starts on.
/// A JSON-lines file is read a line at a time; other JSON (one pretty-printed document, or
/// several) as a stream. A last value cut off by the end of the file is said in `notes`
/// and the rest is kept; malformed JSON anywhere else is an error at its `file:line:column`.
pub fn each_value<R: Record>(
    path: &Path,
    shown: &str,
    what: &str,
    notes: &mut Vec<String>,
    mut each: impl for<'b> FnMut(R::Value<'b>, usize) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let file = open(path, shown)?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut line = Vec::new();
    let mut number = 0;
    // The first line that holds something decides: a whole JSON value, or the start of one.
    loop {
        number += 1;
        if !read_line(&mut reader, &mut line, shown, number)? {
            return Err(ImportError::refused(
                shown,
                format!("is empty; expected {what}"),
            ));
        }
        if line.iter().any(|b| !b.is_ascii_whitespace()) {
            break;
        }
    }
    let first_is_whole = match serde_json::from_slice::<serde::de::IgnoredAny>(&line) {
        Ok(_) => true,
        Err(e) => e.classify() != serde_json::error::Category::Eof,
    };
    if !first_is_whole {
        return stream::<R>(path, shown, what, notes, each);
    }
    loop {
        if line.iter().any(|b| !b.is_ascii_whitespace()) {
            match serde_json::from_slice::<R::Value<'_>>(&line) {
                Ok(v) => each(v, number)?,
                Err(e) => {
                    let eof = e.classify() == serde_json::error::Category::Eof;
                    let mut probe = Vec::new();
                    let last = eof && !read_line(&mut reader, &mut probe, shown, number + 1)?;
                    if last && number > 1 {
                        notes.push(format!(
                            "{shown}:{number}: the last line is cut off (the file ends in the middle of a record); the lines before it were read"
                        ));
                        return Ok(());
                    }
                    return Err(ImportError::json(shown, &e, number - 1, what));
                }
            }
        }
        number += 1;
        if !read_line(&mut reader, &mut line, shown, number)? {
            return Ok(());
        }
    }
}

fn stream<R: Record>(
    path: &Path,
    shown: &str,
    what: &str,
    notes: &mut Vec<String>,
    mut each: impl for<'b> FnMut(R::Value<'b>, usize) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let file = open(path, shown)?;
    let reader = BufReader::with_capacity(1 << 20, file);
    let mut values = serde_json::Deserializer::from_reader(reader).into_iter::<R::Value<'static>>();
    let mut read = 0usize;
    loop {
        match values.next() {
            None => return Ok(()),
            Some(Ok(v)) => {
                read += 1;
                each(v, 1)?;
            }
            Some(Err(e)) => {
                if e.classify() == serde_json::error::Category::Eof && read > 0 {
                    notes.push(format!(
                        "{shown}:{}:{}: the file is cut off in the middle of a value; the {read} before it were read",
                        e.line(),
                        e.column()
                    ));
                    return Ok(());
                }
                return Err(ImportError::json(shown, &e, 0, what));
            }
        }
    }
}
