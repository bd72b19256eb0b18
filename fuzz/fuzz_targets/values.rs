//! The small parsers of times, durations and amounts, in scenario files and on the command
//! line: any text is accepted or refused with a message. Nothing may panic.
//!
//! The body is `idem::fuzzing::values`, built and run over this target's seeds by `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idem::fuzzing::values(data));
