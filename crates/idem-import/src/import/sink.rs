//! Where the sources put what they read: the HTTP exchanges kept (only those of the order
//! asked for, when one is), and counts of what was passed over, for the refusal that says
//! what a file held instead.

use crate::import::model::{Exchange, bare_key};

#[derive(Debug, Default)]
pub struct Sink {
    pub exchanges: Vec<Exchange>,
    /// Records seen in the current file: spans, entries or lines.
    pub records: u64,
    /// Of them, HTTP exchanges.
    pub http: u64,
    /// Of those, the ones that carried a key.
    pub keyed: u64,
    /// The names of a few records that were not HTTP, to say what the file held instead.
    pub other: Vec<String>,
    /// Keep only exchanges of this order or key (and those whose key is not known yet).
    pub filter: Option<String>,
    /// The program that wrote the current file, when it says (a HAR's creator).
    pub creator: Option<String>,
}

impl Sink {
    pub fn new(filter: Option<String>) -> Sink {
        Sink {
            filter,
            ..Sink::default()
        }
    }

    /// Starts the counts of a new file.
    pub fn start_file(&mut self) {
        self.records = 0;
        self.http = 0;
        self.keyed = 0;
        self.other.clear();
        self.creator = None;
    }

    /// One record read: kept when it is an HTTP exchange of the order asked for.
    pub fn push(&mut self, x: Exchange, name: &str) {
        self.records += 1;
        if x.method.is_none() && x.status.is_none() {
            if self.other.len() < 5 && !name.is_empty() && !self.other.iter().any(|o| o == name) {
                self.other.push(name.to_string());
            }
            return;
        }
        self.http += 1;
        if x.key.is_some() {
            self.keyed += 1;
        }
        if let (Some(want), Some(key)) = (&self.filter, &x.key)
            && bare_key(key) != want.as_str()
            && x.order.as_deref() != Some(want.as_str())
        {
            return;
        }
        self.exchanges.push(x);
    }
}
