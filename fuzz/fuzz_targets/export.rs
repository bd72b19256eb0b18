//! Every export of any scenario at a small screen the first two bytes choose: idem::fuzzing::export.
//!
//! The body is built and run over this target's seeds by `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idem::fuzzing::export(data));
