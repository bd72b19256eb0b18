//! idem's core: the scenario files a trainer writes (`scenario`) and what the engine works out
//! over many runs (`explore`, every fault plan; `traffic`, a day of orders), with the small
//! pieces beneath them. It stands on the engine (`sim`, from `idem-sim`) and the words told
//! from a run (`story`, from `idem-story`), and re-exports both, so the layers above name one
//! crate. It knows nothing of terminals, networks or databases: the window calculator
//! (`idem-window`), the network tools (`idem-net`), the terminal UI (`idem-tui`) and the
//! command line (`idem`) are built on top of it.

pub mod bounded_read;
pub mod explore;
pub mod files;
pub mod scenario;
pub mod traffic;
pub use idem_sim::{sim, text, units};
pub use idem_story::story;
