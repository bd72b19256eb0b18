//! A pseudo-terminal of a given size, for tests and benchmarks that start the real binary in
//! a terminal of their own.

use std::os::fd::{FromRawFd, OwnedFd};

/// A new pseudo-terminal of `cols`×`rows`: its master side (closed on exec, so the program is
/// never handed it) and the side the program is given.
pub fn pty(cols: u16, rows: u16) -> (std::fs::File, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: both out-pointers are valid; no name is asked for; the size is read only.
    let made = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(
        made,
        0,
        "no pseudo-terminal: {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: openpty just opened both, and nothing else owns them.
    unsafe {
        libc::fcntl(master, libc::F_SETFD, libc::FD_CLOEXEC);
        (
            std::fs::File::from_raw_fd(master),
            OwnedFd::from_raw_fd(slave),
        )
    }
}
