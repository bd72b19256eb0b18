//! Reading a configuration file from disk, bounded: a regular file of at most
//! [`MAX_BYTES`], in UTF-8, read through the program's one bounded reader
//! ([`crate::bounded_read`]).

use std::path::Path;

use crate::window::WindowError;

/// The largest file read: retry settings never need more.
pub const MAX_BYTES: u64 = 1024 * 1024;

/// Reads `path` as text, refusing anything but a regular file of at most
/// [`MAX_BYTES`] holding UTF-8.
pub fn read_bounded(path: &Path) -> Result<String, WindowError> {
    let fail = |reason: String| WindowError::ReadConfig {
        file: path.to_path_buf(),
        reason,
    };
    // The program's one bounded reader: regular files only, never waiting on a FIFO.
    let bytes = crate::bounded_read::read_regular_file(path, MAX_BYTES).map_err(|e| match e {
        crate::bounded_read::ReadError::TooLarge { .. } => fail(format!(
            "larger than {} KiB; a retry configuration is never that big",
            MAX_BYTES / 1024
        )),
        other => fail(other.to_string()),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}
