//! The scenario loader, end to end: any text either is refused with a positioned error or
//! loads, simulates under every design, takes a what-if, and saves to a file that loads
//! again as the same story. Nothing may panic.
//!
//! The body is `idem::fuzzing::scenario`, built and run over this target's seeds by `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idem::fuzzing::scenario(data));
