//! A thread the replay starts before it reads its story, kept for work the screen's thread
//! would otherwise do alone: it runs whatever is lent to it, in turn (the glossary's search,
//! built once the first frame is drawn; a later short story's other designs, simulated while
//! the thread that prepares that story tells the design it shows). That thread is already
//! running, where a new one can take longer to start than the work takes.
//!
//! It is started first for a reason of its own: the first thread the replay starts often
//! begins to run late (by more than a millisecond, half the time, when the terminal's thread
//! was started first), the next ones promptly, so the thread that takes the terminal, started
//! second, starts at once. Until the first frame is drawn it is lent
//! nothing: the two threads that frame waits for have the machine's two cores to themselves.

use std::sync::OnceLock;
use std::sync::mpsc::{Sender, channel};

/// Work lent to the spare thread.
type Chore = Box<dyn FnOnce() + Send>;

/// Where work for the spare thread is sent, once it is started.
static SPARE: OnceLock<Sender<Chore>> = OnceLock::new();

/// Starts the spare thread, which runs every chore lent to it. Once only: a second call does
/// nothing.
pub fn start() {
    let (tx, chores) = channel::<Chore>();
    if SPARE.set(tx).is_err() {
        return;
    }
    // A thread that cannot be made drops `chores`, and lending fails from then on.
    let _ = std::thread::Builder::new().spawn(move || {
        for chore in chores {
            chore();
        }
    });
}

/// Lends `chore` to the spare thread, to run once it has done what it was doing: false,
/// and `chore` is dropped, when there is none (not started, or it could not be made).
pub fn lend(chore: impl FnOnce() + Send + 'static) -> bool {
    SPARE
        .get()
        .is_some_and(|tx| tx.send(Box::new(chore)).is_ok())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    /// A chore lent after the start runs on the spare thread; a second start changes
    /// nothing.
    #[test]
    fn a_lent_chore_runs_on_the_spare_thread() {
        super::start();
        super::start();
        let (tx, rx) = std::sync::mpsc::channel();
        let here = std::thread::current().id();
        assert!(super::lend(move || {
            let _ = tx.send(std::thread::current().id());
        }));
        let there = rx.recv_timeout(Duration::from_secs(10));
        assert!(matches!(there, Ok(id) if id != here), "{there:?}");
    }
}
