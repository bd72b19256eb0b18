//! Reading a file the user named (a scenario, a window config): regular files only, never
//! more than a limit, and never waiting on a pipe or a device.
//!
//! A device, a FIFO or a `/proc` file reports a length of 0, so the length cannot be trusted:
//! the read itself stops one byte past the limit. A FIFO with no writer would block an
//! ordinary `open`, so the path's type is checked first and the file is opened without
//! blocking; the opened file is checked again, so a FIFO swapped in between the two steps
//! is refused too, without a wait.

use std::fmt;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why a file was not read. Shown after the file's name, as in `x.toml: is a FIFO…`.
#[derive(Debug)]
pub enum ReadError {
    NotFound,
    PermissionDenied,
    /// A directory, a FIFO, a device or a socket: what it is, in words.
    NotAFile(&'static str),
    /// Longer than the limit; the size when the file system told it.
    TooLarge {
        limit: u64,
        size: Option<u64>,
    },
    /// Reading would have waited (a `/proc` or device file that has nothing to give yet).
    WouldBlock,
    Other(io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotFound => f.write_str("no such file"),
            ReadError::PermissionDenied => f.write_str("permission denied"),
            ReadError::NotAFile(kind) => write!(f, "is {kind}, not a regular file"),
            ReadError::TooLarge {
                limit,
                size: Some(size),
            } => write!(f, "is {size} bytes; at most {limit} bytes are read"),
            ReadError::TooLarge { limit, size: None } => {
                write!(f, "holds more than {limit} bytes; at most {limit} are read")
            }
            ReadError::WouldBlock => {
                f.write_str("has nothing to read yet and would make idem wait; name a regular file")
            }
            ReadError::Other(e) => write!(
                f,
                "cannot be read: {}",
                crate::text::sanitize_line(&e.to_string())
            ),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> ReadError {
        match e.kind() {
            io::ErrorKind::NotFound => ReadError::NotFound,
            io::ErrorKind::PermissionDenied => ReadError::PermissionDenied,
            io::ErrorKind::WouldBlock => ReadError::WouldBlock,
            _ => ReadError::Other(e),
        }
    }
}

/// What a path that is not a regular file is, in words; `None` for a regular file.
pub fn not_a_file(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    }
}

/// Reads at most `limit` bytes of the regular file at `path` (a link to one is followed);
/// anything longer, and anything that is not a regular file, is refused.
pub fn read_regular_file(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_at_most(open_regular_file(path, limit)?, limit)
}

/// Opens the regular file at `path` (a link to one is followed) for a reader that streams it:
/// anything that is not a regular file, or says it is longer than `limit`, is refused, without
/// a wait. The caller still reads at most `limit` bytes of it (a `/proc` file says it is empty).
pub fn open_regular_file(path: &Path, limit: u64) -> Result<File, ReadError> {
    let meta = std::fs::metadata(path)?;
    check(&meta, limit)?;
    // No wait even if a FIFO took the file's place since the check above.
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    check(&file.metadata()?, limit)?;
    Ok(file)
}

/// The first `limit` bytes of the regular file at `path` (a link to one is followed), however
/// long it is; anything that is not a regular file is refused, without a wait.
pub fn read_head(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let kind = |meta: &Metadata| not_a_file(meta).map_or(Ok(()), |k| Err(ReadError::NotAFile(k)));
    kind(&std::fs::metadata(path)?)?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    kind(&file.metadata()?)?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn check(meta: &Metadata, limit: u64) -> Result<(), ReadError> {
    if let Some(kind) = not_a_file(meta) {
        return Err(ReadError::NotAFile(kind));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            limit,
            size: Some(meta.len()),
        });
    }
    Ok(())
}

/// The file's bytes, or `TooLarge` once one byte past the limit has been read: a file that
/// reports a small length (as `/proc` files do) is bounded all the same.
fn read_at_most(file: File, limit: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit, size: None });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_longer_than_its_reported_length_is_cut_at_the_limit() {
        // /dev/zero never ends: refused as a device before anything is read.
        let err = read_regular_file(Path::new("/dev/zero"), 16).expect_err("a device");
        assert!(err.to_string().contains("character device"), "{err}");
        // The bounded read itself stops one byte past the limit.
        let zero = File::open("/dev/zero").expect("/dev/zero opens");
        let err = read_at_most(zero, 16).expect_err("more than 16 bytes");
        assert!(
            matches!(err, ReadError::TooLarge { size: None, .. }),
            "{err}"
        );
    }

    #[test]
    fn a_head_is_read_from_a_file_and_never_from_a_fifo() {
        let dir = std::env::temp_dir().join(format!("idem-head-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder");
        let fifo = dir.join("a.toml");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("a path");
        // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        let err = read_head(&fifo, 16).expect_err("a FIFO");
        assert!(err.to_string().contains("FIFO"), "{err}");
        let file = dir.join("b.toml");
        std::fs::write(&file, "title = \"x\"\n and more").expect("writes");
        assert_eq!(read_head(&file, 5).expect("reads"), b"title");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_directory_is_named_as_such() {
        let err = read_regular_file(Path::new("/"), 16).expect_err("a directory");
        assert_eq!(err.to_string(), "is a directory, not a regular file");
    }

    #[test]
    fn a_proc_file_is_read_within_the_limit() {
        // /proc files report a length of 0: the limit still holds.
        let path = Path::new("/proc/self/status");
        if path.exists() {
            assert!(matches!(
                read_regular_file(path, 8),
                Err(ReadError::TooLarge { size: None, .. })
            ));
            let text = read_regular_file(path, 1 << 20).expect("small enough");
            assert!(!text.is_empty());
        }
    }
}
