//! idem's lowest layer: the deterministic engine (`sim`), which turns a configuration and a
//! fault plan into a trace, with the two small pieces every layer above uses: how counts and
//! durations are written (`units`) and how text from a file is made safe to show (`text`).
//! It knows nothing of scenario files, of the words told from a run (`idem-story`), of
//! terminals or of networks.

pub mod sim;
pub mod text;
pub mod units;
