//! Reading a configuration file from disk, bounded: a regular file of at most
//! [`MAX_BYTES`], in UTF-8. (A sibling of the scenario loader's own bounded
//! read; the two can become one helper.)

use std::io::Read as _;
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
    let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
    if !meta.is_file() {
        return Err(fail(
            "not a regular file (a directory, a device or a pipe); name a configuration file"
                .to_owned(),
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    // Read one byte past the limit, so a file that grows meanwhile is caught too.
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(fail(format!(
            "larger than {} KiB; a retry configuration is never that big",
            MAX_BYTES / 1024
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}
