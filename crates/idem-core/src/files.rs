//! The one place idem writes files (an export, a saved scenario, a new one), never leaving a
//! half-written file behind: the bytes go to a temporary file beside the target, are flushed
//! to disk, and only then take the target's name. A new file never replaces anything.
//!
//! A temporary file is named `.NAME.tmp-PID-N`. If the process is ended by SIGTERM, SIGINT,
//! SIGHUP or SIGQUIT while one exists (and nothing else in the process handles that signal),
//! the file is removed before the process ends as the signal would have ended it. A process
//! ended by SIGKILL cannot clean up: the next write to the same target removes the temporary
//! files of exactly that pattern whose process is gone.

use std::ffi::CString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};

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

/// Why a file was not written: a typed error at the core crate's border, which the replay
/// and the command line match on (an existing file asks before it is replaced).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// Something is already at the path (shown, made safe) and replacing it was not allowed.
    #[error("`{0}` already exists")]
    Exists(String),
    /// Anything else, said in full.
    #[error("{0}")]
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
        Ok((temp, file, pending)) => {
            drop(file);
            let _ = fs::remove_file(&temp);
            drop(pending);
            Ok(())
        }
        Err(e) => Err(format!(
            "cannot write `{}`: {}",
            crate::text::sanitize_line(&path.display().to_string()),
            describe(&e, &d.dir)
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
    sweep_stale(&dir, temp_stem(&name));
    replace(path, &dir, &name, bytes, force, existing.as_ref()).map_err(|e| match e {
        Publish::Exists => WriteError::Exists(shown.clone()),
        Publish::Io(e) => {
            WriteError::Other(format!("cannot write `{shown}`: {}", describe(&e, &dir)))
        }
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
    let (temp, file, pending) = create_temp(dir, name)?;
    let result = fill(file, bytes, existing).and_then(|()| publish(&temp, path, force));
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    drop(pending);
    result
}

/// The temporary file a terminating signal removes: a path that stays valid for as long as
/// the process lives, or null. Each path is leaked on purpose (a few bytes per write, and only
/// once the handlers are in place): a handler may read a pointer at any moment, so none is
/// ever freed.
static PENDING: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

/// Whether [`PENDING`] is watched by handlers of ours.
static HANDLED: AtomicBool = AtomicBool::new(false);

static INSTALL: Once = Once::new();

/// The signals that end a process by default and that a person or a supervisor sends.
const ENDING: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];

/// Marks a temporary file as the one to remove on a signal, until dropped.
struct Pending;

impl Pending {
    fn new(temp: &Path) -> Pending {
        INSTALL.call_once(install_handlers);
        if HANDLED.load(Ordering::SeqCst)
            && let Ok(c) = CString::new(temp.as_os_str().as_bytes())
        {
            PENDING.store(c.into_raw(), Ordering::SeqCst);
        }
        Pending
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        PENDING.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

/// Puts a handler on each ending signal whose action is still the default one. A signal the
/// process ignores, or handles itself (the terminal screen restores the terminal and leaves
/// on its own), is left alone: there the write finishes, or fails, and tidies up as usual.
fn install_handlers() {
    let mut any = false;
    for signal in ENDING {
        if !is_default(signal) {
            continue;
        }
        // SAFETY: the action only reads an atomic, calls unlink(2) on a path that is never
        // freed, and then ends the process as the default action would, all of which may be
        // done in a signal handler.
        let registered = unsafe {
            signal_hook::low_level::register(signal, move || {
                let temp = PENDING.swap(std::ptr::null_mut(), Ordering::SeqCst);
                if !temp.is_null() {
                    libc::unlink(temp);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
            })
        };
        any |= registered.is_ok();
    }
    HANDLED.store(any, Ordering::SeqCst);
}

/// Whether `signal` still has the action it started with (not ignored, not handled).
fn is_default(signal: libc::c_int) -> bool {
    // SAFETY: a null new action only reads the current one into `old`.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_DFL
    }
}

/// Removes `.STEM.tmp-PID-N` files in `dir` (exactly that pattern, regular files only) whose
/// process no longer runs: what a write ended by SIGKILL, or a power cut, left behind. This
/// process's own are left alone, and so is anything whose process is alive, even if only
/// someone else may signal it. Nothing here is reported: it is tidying, not the write.
fn sweep_stale(dir: &Path, stem: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{stem}.tmp-");
    let own = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(temp_pid)
        else {
            continue;
        };
        if pid == own || process_lives(pid) {
            continue;
        }
        let path = entry.path();
        if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file()) {
            let _ = fs::remove_file(&path);
        }
    }
}

/// The PID in the `PID-N` tail of a temporary file's name, when the tail is exactly that.
fn temp_pid(tail: &str) -> Option<u32> {
    let (pid, n) = tail.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(n) {
        return None;
    }
    pid.parse().ok().filter(|&p| p > 0)
}

/// Whether a process with this PID exists (a signal 0 reaches it, or would but for
/// permission). A PID too large to be one is not a live process.
fn process_lives(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return true;
    }
    io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
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

/// The part of the target's name that a temporary file's name carries.
fn temp_stem(name: &str) -> &str {
    let mut cut = name.len().min(NAME_ROOM);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    &name[..cut]
}

/// Creates `.NAME.tmp-<pid>-<n>` in `dir`, never reusing a file that is already there.
fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, File, Pending)> {
    let stem = temp_stem(name);
    let pid = std::process::id();
    let mut tries = 0;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{stem}.tmp-{pid}-{n}"));
        // Marked before it exists: a signal between its making and its marking would
        // otherwise leave it behind. A file of that name already there carries this process's
        // number, so it is a leftover of an earlier process that had the same one.
        let pending = Pending::new(&temp);
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file, pending)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 100 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Writes and syncs the bytes. The file starts with the user's ordinary mode (0o666 less the
/// umask, as the system gives any new file); when it replaces a file, only the read, write and
/// execute bits that the old file and that ordinary mode share are kept (see [`kept_mode`]).
fn fill(mut file: File, bytes: &[u8], existing: Option<&fs::Metadata>) -> Result<(), Publish> {
    file.write_all(bytes)?;
    file.flush()?;
    if let Some(meta) = existing.filter(|m| m.is_file()) {
        let fresh = file.metadata()?.permissions().mode();
        file.set_permissions(fs::Permissions::from_mode(kept_mode(
            fresh,
            meta.permissions().mode(),
        )))?;
    }
    file.sync_all()?;
    Ok(())
}

/// The mode a replacing file gets: never more than the user's ordinary mode for a new file
/// (`fresh`), and no more than the old file allowed, so a file kept private stays private.
/// Setuid, setgid and sticky (0o7000) never carry over, nor does anything the umask takes
/// away: the old file may belong to someone else (a link followed to it), and its bits are
/// no grant to the file written now.
fn kept_mode(fresh: u32, old: u32) -> u32 {
    fresh & old & 0o777
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

/// Why a file could not be made in `dir`, in a plain sentence.
fn describe(e: &io::Error, dir: &Path) -> String {
    match e.kind() {
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        // A folder that is there but makes no files of its own (/proc, /sys) answers the
        // same "not found" a missing folder does.
        io::ErrorKind::NotFound if dir.is_dir() => format!(
            "the folder `{}` is there but takes no new files (a system folder such as /proc or /sys)",
            crate::text::sanitize_line(&dir.display().to_string())
        ),
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
    fn a_forced_write_never_carries_setuid_setgid_or_sticky() {
        let dir = scratch("mode");
        let old = dir.join("old.md");
        fs::write(&old, "old").expect("a file");
        fs::set_permissions(&old, fs::Permissions::from_mode(0o7777)).expect("chmod 7777");
        // Straight over the file, and over a link that leads to it.
        let link = dir.join("link.md");
        std::os::unix::fs::symlink(&old, &link).expect("a link");
        let fresh = dir.join("fresh.md");
        write_file(&fresh, b"x", false).expect("a new file");
        let ordinary = fs::metadata(&fresh).expect("written").permissions().mode() & 0o7777;
        for target in [&link, &old] {
            write_file(target, b"new", true).expect("--force replaces");
            let own = fs::symlink_metadata(target).expect("written");
            assert!(own.is_file(), "{target:?} is a file of its own now");
            let mode = own.permissions().mode() & 0o7777;
            assert_eq!(mode & 0o7000, 0, "{target:?} has mode {mode:o}");
            assert_eq!(mode, ordinary, "{target:?}: no wider than a new file");
        }
        // A file kept private stays private.
        fs::set_permissions(&old, fs::Permissions::from_mode(0o600)).expect("chmod 600");
        write_file(&old, b"newer", true).expect("--force replaces");
        let mode = fs::metadata(&old).expect("written").permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600 & ordinary);
        let _ = fs::remove_dir_all(&dir);
    }

    /// Above Linux's highest possible PID (2^22), so never a live process.
    const GONE: u32 = 4_194_999;

    #[test]
    fn a_write_sweeps_temporary_files_whose_process_is_gone() {
        let dir = scratch("sweep");
        let own = std::process::id();
        let stale = format!(".out.md.tmp-{GONE}-1");
        let kept = [
            format!(".out.md.tmp-{own}-1"), // this process: maybe a write in flight
            ".out.md.tmp-1-7".to_string(),  // a live process (init)
            format!(".out.md.tmp-{GONE}-1x"), // not exactly the pattern
            format!(".out.md.tmp-{GONE}"),  // nor this
            format!(".other.md.tmp-{GONE}-1"), // another target's
            format!("out.md.tmp-{GONE}-1"), // no leading dot
        ];
        for name in kept.iter().chain([&stale]) {
            fs::write(dir.join(name), "x").expect("a temporary file");
        }
        let dir_like = format!(".out.md.tmp-{GONE}-2");
        fs::create_dir(dir.join(&dir_like)).expect("a directory of the pattern");
        write_file(&dir.join("out.md"), b"new", false).expect("written");
        let mut expected: Vec<String> = kept.to_vec();
        expected.push(dir_like);
        expected.push("out.md".to_string());
        expected.sort();
        assert_eq!(names(&dir), expected);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn temporary_names_are_read_exactly() {
        assert_eq!(temp_pid("12-3"), Some(12));
        for tail in ["12", "12-", "-3", "12-3-4", "a-3", "12-3x", "0-1", "+1-2"] {
            assert_eq!(temp_pid(tail), None, "{tail}");
        }
        assert!(process_lives(std::process::id()));
        assert!(!process_lives(GONE));
        assert!(!process_lives(u32::MAX));
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
