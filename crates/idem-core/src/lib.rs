//! idem's core: the deterministic engine (`sim`), the scenario files a trainer writes
//! (`scenario`), and the words told from a run (`story`), with the small pieces beneath them.
//! It knows nothing of terminals, networks or databases; the `idem` crate builds the replay,
//! the calculator, the drill and the command line on top of it.

pub mod bounded_read;
pub mod files;
pub mod scenario;
pub mod sim;
pub mod story;
pub mod text;
pub mod units;
