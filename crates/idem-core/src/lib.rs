//! idem's core: the deterministic engine (`sim`), the scenario files a trainer writes
//! (`scenario`), the words told from a run (`story`), and what the engine works out over many
//! runs (`explore`, every fault plan; `traffic`, a day of orders), with the small pieces
//! beneath them. It knows nothing of terminals, networks or databases: the window calculator
//! (`idem-window`), the network tools (`idem-net`), the terminal UI (`idem-tui`) and the
//! command line (`idem`) are built on top of it.

pub mod bounded_read;
pub mod explore;
pub mod files;
pub mod scenario;
pub mod sim;
pub mod story;
pub mod text;
pub mod traffic;
pub mod units;
