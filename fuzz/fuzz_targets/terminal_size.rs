//! The replay drawn for a terminal of any size the first four bytes say: idem::fuzzing::terminal_size.
//!
//! The body is built and run over this target's seeds by `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idem::fuzzing::terminal_size(data));
