//! The one place idem writes files (an export, a saved scenario, a new one), never leaving a
//! half-written file behind: the bytes go to a temporary file beside the target, are flushed
//! to disk, and only then take the target's name. A new file never replaces anything.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Tells apart the temporary files of one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The longest part of the target's name carried into a temporary file's name.
const NAME_ROOM: usize = 96;

/// Writes `bytes` to `path`. An existing regular file (or a link to one) is replaced only
/// when `force` is set; anything else there (a directory, a device, a FIFO) never is. On any
/// failure the temporary file is removed and the target is left as it was.
pub fn write_file(path: &Path, bytes: &[u8], force: bool) -> Result<(), String> {
    write_new_or_forced(path, bytes, force).map_err(|e| match e {
        WriteError::Exists(shown) => {
            format!("`{shown}` already exists; pass --force to overwrite it")
        }
        WriteError::Other(message) => message,
    })
}

/// Why a file was not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    /// Something is already at the path (shown, made safe) and replacing it was not allowed.
    Exists(String),
    /// Anything else, said in full.
    Other(String),
}

/// Writes a file that must not exist yet: nothing already at `path` is ever replaced, even
/// one that appears while the bytes are written.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_new_or_forced(path, bytes, false)
}

/// Where a file would be written: what is there now, its folder and its name.
struct Destination {
    existing: Option<fs::Metadata>,
    dir: PathBuf,
    name: String,
}

/// Checks, without writing anything, that `path` names a file that could be written: its
/// folder exists and is a folder, and nothing is there but a regular file (only with
/// `force`).
fn destination(path: &Path, force: bool) -> Result<Destination, WriteError> {
    let shown = crate::text::sanitize_line(&path.display().to_string());
    let existing = existing_file(path).map_err(WriteError::Other)?;
    if existing.is_some() && !force {
        return Err(WriteError::Exists(shown));
    }
    let Some(name) = path.file_name() else {
        return Err(WriteError::Other(format!("`{shown}` does not name a file")));
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        let dir_shown = crate::text::sanitize_line(&dir.display().to_string());
        let why = if dir.exists() {
            format!("`{dir_shown}` is not a folder")
        } else {
            format!("the folder `{dir_shown}` does not exist")
        };
        return Err(WriteError::Other(format!("cannot write `{shown}`: {why}")));
    }
    Ok(Destination {
        existing,
        dir,
        name: name.to_string_lossy().into_owned(),
    })
}

/// Checks before any work is done that `write_file(path, _, force)` could succeed: the
/// folder exists and takes a new file (one is made there and removed at once), and what is
/// at `path`, if anything, may be replaced.
pub fn check_writable(path: &Path, force: bool) -> Result<(), String> {
    let d = destination(path, force).map_err(|e| match e {
        WriteError::Exists(shown) => {
            format!("`{shown}` already exists; pass --force to overwrite it")
        }
        WriteError::Other(message) => message,
    })?;
    match create_temp(&d.dir, &d.name) {
        Ok((temp, file)) => {
            drop(file);
            let _ = fs::remove_file(&temp);
            Ok(())
        }
        Err(e) => Err(format!(
            "cannot write `{}`: {}",
            crate::text::sanitize_line(&path.display().to_string()),
            describe(&e)
        )),
    }
}

fn write_new_or_forced(path: &Path, bytes: &[u8], force: bool) -> Result<(), WriteError> {
    let shown = crate::text::sanitize_line(&path.display().to_string());
    let Destination {
        existing,
        dir,
        name,
    } = destination(path, force)?;
    replace(path, &dir, &name, bytes, force, existing.as_ref()).map_err(|e| match e {
        Publish::Exists => WriteError::Exists(shown.clone()),
        Publish::Io(e) => WriteError::Other(format!("cannot write `{shown}`: {}", describe(&e))),
    })?;
    sync_dir(&dir);
    Ok(())
}

/// What is at `path` now: nothing (`None`), or a regular file that may be replaced (its
/// metadata, a link followed). Anything else is refused with a message that says what it is;
/// `--force` would not change that, so the message does not offer it.
pub fn existing_file(path: &Path) -> Result<Option<fs::Metadata>, String> {
    let Ok(own) = fs::symlink_metadata(path) else {
        return Ok(None);
    };
    let shown = crate::text::sanitize_line(&path.display().to_string());
    let refuse = |what: String| {
        Err(format!(
            "`{shown}` {what}; idem replaces only a regular file: name a file instead"
        ))
    };
    let meta = if own.file_type().is_symlink() {
        match fs::metadata(path) {
            Ok(target) => target,
            Err(_) => return refuse("is a link that leads to no file".to_string()),
        }
    } else {
        own
    };
    match crate::bounded_read::not_a_file(&meta) {
        None => Ok(Some(meta)),
        Some(kind) => refuse(format!("is {kind}")),
    }
}

/// Writes a temporary file named after `name` in `dir`, then moves it to `path`; the
/// temporary file is removed whenever that fails.
fn replace(
    path: &Path,
    dir: &Path,
    name: &str,
    bytes: &[u8],
    force: bool,
    existing: Option<&fs::Metadata>,
) -> Result<(), Publish> {
    let (temp, file) = create_temp(dir, name)?;
    let result = fill(file, bytes, existing).and_then(|()| publish(&temp, path, force));
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

enum Publish {
    /// The target appeared while the file was being written, and `--force` was not given.
    Exists,
    Io(io::Error),
}

impl From<io::Error> for Publish {
    fn from(e: io::Error) -> Publish {
        Publish::Io(e)
    }
}

/// Creates `.NAME.tmp-<pid>-<n>` in `dir`, never reusing a file that is already there.
fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let mut cut = name.len().min(NAME_ROOM);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let stem = &name[..cut];
    let pid = std::process::id();
    let mut tries = 0;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{stem}.tmp-{pid}-{n}"));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 100 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Writes and syncs the bytes; an overwritten file's permissions carry over.
fn fill(mut file: File, bytes: &[u8], existing: Option<&fs::Metadata>) -> Result<(), Publish> {
    file.write_all(bytes)?;
    file.flush()?;
    if let Some(meta) = existing.filter(|m| m.is_file()) {
        file.set_permissions(meta.permissions())?;
    }
    file.sync_all()?;
    Ok(())
}

/// Gives the temporary file the target's name. Without `force` a hard link is tried first:
/// it fails rather than replace a file that appeared in the meantime.
fn publish(temp: &Path, target: &Path, force: bool) -> Result<(), Publish> {
    if !force {
        match fs::hard_link(temp, target) {
            Ok(()) => {
                // The target is in place; a leftover name for the same bytes is only untidy.
                let _ = fs::remove_file(temp);
                return Ok(());
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(Publish::Exists),
            // Some file systems have no hard links: check, then rename.
            Err(_) => {
                if fs::symlink_metadata(target).is_ok() {
                    return Err(Publish::Exists);
                }
            }
        }
    }
    fs::rename(temp, target)?;
    Ok(())
}

/// Makes the new name durable too, where the platform allows syncing a directory.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::NotFound => "the folder does not exist".to_string(),
        _ => crate::text::sanitize_line(&e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "idem-write-{name}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .expect("readable")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_failed_move_removes_the_temporary_file() {
        let dir = scratch("move");
        // A non-empty directory where the file should go: neither a link nor a rename
        // can put a file there.
        let target = dir.join("taken");
        fs::create_dir(&target).expect("a directory");
        fs::write(target.join("inside"), "x").expect("a file inside");
        for force in [false, true] {
            assert!(replace(&target, &dir, "taken", b"new", force, None).is_err());
            assert_eq!(names(&dir), ["taken"], "force {force}");
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn writes_and_replaces() {
        let dir = scratch("write");
        let target = dir.join("out.txt");
        write_file(&target, b"one", false).expect("a new file");
        let err = write_file(&target, b"two", false).expect_err("no clobbering");
        assert!(err.contains("--force"), "{err}");
        assert_eq!(fs::read(&target).expect("kept"), b"one");
        write_file(&target, b"two", true).expect("--force replaces");
        assert_eq!(fs::read(&target).expect("replaced"), b"two");
        assert_eq!(names(&dir), ["out.txt"]);
        let long = "n".repeat(200) + ".md";
        write_file(&dir.join(&long), b"x", false).expect("a long name still fits");
        let _ = fs::remove_dir_all(&dir);
    }
}
