//! The presenter's position, published over a local Unix socket (never the network) as one
//! JSON line per change, and followed by the speaker-notes terminal.

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Read, Write};
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
    /// What the presenter's screen says about itself (absent from an older presenter).
    #[serde(default)]
    pub shown: Shown,
}

/// What the presenter shows about its own state, for the trainer's notes. None of it changes
/// the story; all of it is text already made safe to show.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Shown {
    /// The presenter's state lines: a what-if in force and how the run's length changed, a
    /// broken edit of the file, which designs `d` or compare set side by side.
    pub banners: Vec<String>,
    /// What has made the story on screen differ from the one its file tells ("the checkout's
    /// keys (K)"): a question's explanation in the file is about the story as written.
    pub changed: Vec<String>,
    /// What the room does not see until it is revealed.
    pub hidden: Option<String>,
    /// A session file's part on screen: `part 2 of 4: Reply lost`.
    pub section: Option<String>,
    /// Seconds left of the part's budget when this was sent; negative once over it.
    pub left_secs: Option<i64>,
    /// What the room has said to the question here, under this design.
    pub room: Option<String>,
    /// The room's score over the talk so far.
    pub score: Option<String>,
    /// Whether the replay plays or waits, at what speed, and whether the room's screen is
    /// blanked.
    pub play: Option<String>,
}

/// Where the presenter's socket lives, and whether idem chose the folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SocketPlace {
    pub path: PathBuf,
    /// The folder idem names for itself (`idem-$USER`): used only if it is ours and private.
    /// `None` when `IDEM_SOCKET` chose the path: that folder is the user's business.
    pub private_folder: Option<PathBuf>,
}

/// The socket both sides agree on: `$IDEM_SOCKET`, else `idem-$USER/presenter.sock` in
/// `$XDG_RUNTIME_DIR` or, without one, in the temporary directory.
pub fn socket_place() -> SocketPlace {
    socket_place_from(
        std::env::var_os("IDEM_SOCKET"),
        std::env::var_os("XDG_RUNTIME_DIR"),
        std::env::var("USER").ok(),
    )
}

/// [`socket_place`] from the environment's values, for tests.
pub fn socket_place_from(
    idem_socket: Option<OsString>,
    runtime_dir: Option<OsString>,
    user: Option<String>,
) -> SocketPlace {
    if let Some(p) = idem_socket.filter(|p| !p.is_empty()) {
        return SocketPlace {
            path: PathBuf::from(p),
            private_folder: None,
        };
    }
    let base = runtime_dir
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let user = user.unwrap_or_else(|| "user".to_string());
    let folder = base.join(format!(
        "idem-{}",
        crate::text::sanitize_line(&user).replace('/', "_")
    ));
    SocketPlace {
        path: folder.join("presenter.sock"),
        private_folder: Some(folder),
    }
}

/// The socket's path, wherever it is.
pub fn socket_path() -> PathBuf {
    socket_place().path
}

/// Makes `folder` (mode 0700) if it is missing, then uses it only if it is a real folder (not
/// a link), owned by this user, that nobody else can enter: in a shared temporary directory
/// another user could have made it first, to take the socket over.
pub fn private_folder(folder: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o700).create(folder) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    check_private(folder, &std::fs::symlink_metadata(folder)?, effective_uid())
}

/// The rule of [`private_folder`], on metadata already read, for a given user.
pub fn check_private(folder: &Path, meta: &std::fs::Metadata, uid: u32) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let shown = crate::text::sanitize_line(&folder.display().to_string());
    let refuse = |why: String| {
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{shown} {why}, so it is not used; remove it, or set IDEM_SOCKET"),
        ))
    };
    if !meta.file_type().is_dir() {
        return refuse("is not a folder".to_string());
    }
    if meta.uid() != uid {
        return refuse(format!("belongs to another user (uid {})", meta.uid()));
    }
    if meta.mode() & 0o777 != 0o700 {
        return refuse(format!(
            "can be entered by others (mode {:o}, not 700)",
            meta.mode() & 0o777
        ));
    }
    Ok(())
}

fn effective_uid() -> u32 {
    // SAFETY: geteuid(2) takes nothing and cannot fail.
    unsafe { libc::geteuid() }
}

/// The longest socket path the system takes (`sun_path` holds 108 bytes with its NUL).
const MAX_SOCKET_PATH: usize = 107;

/// What a follower past [`MAX_FOLLOWERS`] is sent before it is closed.
const FULL: &[u8] = b"full\n";

/// The most followers served at once: a trainer's notes, a second screen, a few to spare.
/// One more that connects is closed at once.
pub const MAX_FOLLOWERS: usize = 16;

/// How long a follower may leave a line unread before it is dropped as stalled.
const STALL: std::time::Duration = std::time::Duration::from_secs(30);

/// One follower: the line on its way to it (shared with the others, with how much has gone),
/// and the newest position waiting behind that line. A follower needs only the newest
/// position, so nothing older is kept for it: however slowly it reads, it holds at most two
/// lines, both shared.
struct Peer {
    stream: UnixStream,
    sending: Option<(std::sync::Arc<[u8]>, usize)>,
    next: Option<std::sync::Arc<[u8]>>,
    /// Since when a line has waited for it without a byte going.
    stalled_since: Option<std::time::Instant>,
}

impl Peer {
    fn new(stream: UnixStream, first: Option<std::sync::Arc<[u8]>>) -> Peer {
        Peer {
            stream,
            sending: None,
            next: first,
            stalled_since: None,
        }
    }

    /// Whether the follower has closed its end: a follower never writes, so a read that
    /// ends the stream (rather than finding nothing yet) means it is gone.
    fn hung_up(&mut self) -> bool {
        let mut byte = [0u8; 1];
        match std::io::Read::read(&mut self.stream, &mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => !matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
            ),
        }
    }

    /// Sends what it can without waiting; false when the follower is gone or has read
    /// nothing for longer than `stall`.
    fn flush(&mut self, stall: std::time::Duration) -> bool {
        loop {
            if self.sending.is_none() {
                match self.next.take() {
                    Some(line) => self.sending = Some((line, 0)),
                    None => break,
                }
            }
            let Some((line, sent)) = self.sending.as_mut() else {
                break;
            };
            match self.stream.write(&line[*sent..]) {
                Ok(0) => return false,
                Ok(n) => {
                    *sent += n;
                    self.stalled_since = None;
                    if *sent >= line.len() {
                        self.sending = None;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
        if self.sending.is_none() {
            self.stalled_since = None;
            return !self.hung_up();
        }
        let since = *self
            .stalled_since
            .get_or_insert_with(std::time::Instant::now);
        since.elapsed() <= stall
    }
}

/// The presenter's end: accepts followers and sends each the position whenever it changes.
/// Nothing here waits: a follower that does not read is sent what its socket takes, and
/// dropped once too much is waiting for it.
pub struct Publisher {
    listener: UnixListener,
    path: PathBuf,
    followers: Vec<Peer>,
    last: Option<std::sync::Arc<[u8]>>,
    stall: std::time::Duration,
}

impl Publisher {
    /// Binds the socket at `place`, in a private folder when idem chose it.
    pub fn bind_at(place: &SocketPlace) -> io::Result<Publisher> {
        if let Some(folder) = &place.private_folder {
            private_folder(folder)?;
        }
        Publisher::bind(&place.path)
    }

    /// Binds the socket, replacing one left behind by a presenter that is gone; refuses when
    /// another presenter is still listening on it.
    pub fn bind(path: &Path) -> io::Result<Publisher> {
        let length = path.as_os_str().len();
        if length > MAX_SOCKET_PATH {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the socket path is {length} bytes, longer than the {MAX_SOCKET_PATH} a socket may have; set IDEM_SOCKET to a shorter path"
                ),
            ));
        }
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
            && !dir.exists()
        {
            // A folder made here holds only the socket: keep it private. A folder the user
            // chose is left as it is.
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
        }
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            use std::os::unix::fs::FileTypeExt;
            if !meta.file_type().is_socket() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "{} exists and is not a socket; it is left alone",
                        crate::text::sanitize_line(&path.display().to_string())
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
            stall: STALL,
        })
    }

    /// Sends `position` to everyone when it changed, then [`serve`](Self::serve)s. Never
    /// waits for a follower.
    pub fn publish(&mut self, position: &Position) {
        let line = match serde_json::to_string(position) {
            Ok(l) => l + "\n",
            Err(_) => return,
        };
        if self.last.as_deref() != Some(line.as_bytes()) {
            let line: std::sync::Arc<[u8]> = line.into_bytes().into();
            for peer in &mut self.followers {
                // What was waiting is older than this: only the newest goes.
                peer.next = Some(std::sync::Arc::clone(&line));
            }
            self.last = Some(line);
        }
        self.serve();
    }

    /// How long a follower may leave a line unread before it is dropped (30 s unless set).
    pub fn set_stall(&mut self, stall: std::time::Duration) {
        self.stall = stall;
    }

    /// Takes in new followers (each is sent the current position at once) and sends each
    /// follower what its socket takes now. Followers that went away, or that fell too far
    /// behind, are dropped.
    pub fn serve(&mut self) {
        // Followers that went away leave first, so their places are free for newcomers.
        let stall = self.stall;
        self.followers.retain_mut(|p| p.flush(stall));
        while let Ok((mut stream, _)) = self.listener.accept() {
            if self.followers.len() >= MAX_FOLLOWERS {
                // Past the bound, a newcomer is told why before it is closed, so it does not
                // take the closing for the presenter's end.
                let _ = stream.set_nonblocking(true);
                let _ = stream.write_all(FULL);
                continue;
            }
            if stream.set_nonblocking(true).is_ok() {
                let mut peer = Peer::new(stream, self.last.as_ref().map(std::sync::Arc::clone));
                if peer.flush(stall) {
                    self.followers.push(peer);
                }
            }
        }
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

/// The longest line read from the presenter: a position with the largest scenario.
const MAX_LINE: u64 = 8 * 1024 * 1024;

impl Follower {
    /// Connects to the socket at `place`, only through a private folder when idem chose it.
    pub fn connect_at(place: &SocketPlace) -> io::Result<Follower> {
        if let Some(folder) = &place.private_folder {
            check_private(folder, &std::fs::symlink_metadata(folder)?, effective_uid())?;
        }
        Follower::connect(&place.path)
    }

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
        let room = MAX_LINE.saturating_sub(self.pending.len() as u64);
        if room == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the presenter sent a line too long to be a position",
            ));
        }
        match (&mut self.reader).take(room).read_line(&mut self.pending) {
            Ok(0) => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the presenter has stopped",
            )),
            Ok(_) if self.pending.as_bytes() == FULL => Err(io::Error::new(
                io::ErrorKind::ConnectionRefused,
                format!(
                    "the presenter already serves {MAX_FOLLOWERS} idem notes at once; close one and start this again"
                ),
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
