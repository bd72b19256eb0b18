//! The presenter's position, published over a local Unix socket (never the network) as one
//! JSON line per change, and followed by the speaker-notes terminal.

use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

/// Where the presenter stands: enough for the notes to rebuild the same replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// How the scenario was named (a path or a built-in name), for display.
    pub source: String,
    /// The scenario as shown, what-if faults included, as TOML.
    pub scenario: String,
    pub design: String,
    pub tick: usize,
}

/// The socket both sides agree on: `$IDEM_SOCKET`, else a private folder in the runtime or
/// temporary directory.
pub fn socket_path() -> PathBuf {
    if let Some(p) = std::env::var_os("IDEM_SOCKET") {
        return PathBuf::from(p);
    }
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let user = std::env::var("USER").unwrap_or_else(|_| "user".to_string());
    base.join(format!(
        "idem-{}",
        crate::text::sanitize_line(&user).replace('/', "_")
    ))
    .join("presenter.sock")
}

/// The presenter's end: accepts followers and sends each the position whenever it changes.
pub struct Publisher {
    listener: UnixListener,
    path: PathBuf,
    followers: Vec<UnixStream>,
    last: Option<String>,
}

impl Publisher {
    /// Binds the socket, replacing one left behind by a presenter that is gone; refuses when
    /// another presenter is still listening on it.
    pub fn bind(path: &Path) -> io::Result<Publisher> {
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
            && !dir.exists()
        {
            // A folder made here holds only the socket: keep it private. A folder the user
            // chose is left as it is.
            std::fs::create_dir_all(dir)?;
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
        }
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            use std::os::unix::fs::FileTypeExt;
            if !meta.file_type().is_socket() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "{} exists and is not a socket; it is left alone",
                        path.display()
                    ),
                ));
            }
            if UnixStream::connect(path).is_ok() {
                return Err(io::Error::new(
                    io::ErrorKind::AddrInUse,
                    "another presenter is already running",
                ));
            }
            // A socket nobody answers on was left by a presenter that is gone.
            std::fs::remove_file(path)?;
        }
        let listener = UnixListener::bind(path)?;
        listener.set_nonblocking(true)?;
        Ok(Publisher {
            listener,
            path: path.to_path_buf(),
            followers: Vec::new(),
            last: None,
        })
    }

    /// Takes in new followers (each gets the current position at once) and sends `position`
    /// to everyone when it changed. Followers that went away are dropped.
    pub fn publish(&mut self, position: &Position) {
        let line = match serde_json::to_string(position) {
            Ok(l) => l + "\n",
            Err(_) => return,
        };
        let changed = self.last.as_deref() != Some(line.as_str());
        let mut fresh = Vec::new();
        while let Ok((stream, _)) = self.listener.accept() {
            let _ = stream.set_nonblocking(false);
            let _ = stream.set_write_timeout(Some(std::time::Duration::from_millis(200)));
            fresh.push(stream);
        }
        if changed {
            self.followers
                .retain_mut(|s| s.write_all(line.as_bytes()).is_ok());
        }
        for mut s in fresh {
            if s.write_all(line.as_bytes()).is_ok() {
                self.followers.push(s);
            }
        }
        self.last = Some(line);
    }

    pub fn followers(&self) -> usize {
        self.followers.len()
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The notes' end: a connection that yields positions as they come.
pub struct Follower {
    reader: BufReader<UnixStream>,
    /// A line read in part when a wait ran out; the rest comes with the next read.
    pending: String,
}

impl Follower {
    pub fn connect(path: &Path) -> io::Result<Follower> {
        let stream = UnixStream::connect(path)?;
        Ok(Follower {
            reader: BufReader::new(stream),
            pending: String::new(),
        })
    }

    /// Waits up to `timeout` for the next position; `Ok(None)` when none came in time.
    pub fn next(&mut self, timeout: std::time::Duration) -> io::Result<Option<Position>> {
        self.reader.get_ref().set_read_timeout(Some(timeout))?;
        match self.reader.read_line(&mut self.pending) {
            Ok(0) => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the presenter has stopped",
            )),
            Ok(_) if self.pending.ends_with('\n') => {
                let line = std::mem::take(&mut self.pending);
                serde_json::from_str(&line)
                    .map(Some)
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
            }
            Ok(_) => Ok(None),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}
