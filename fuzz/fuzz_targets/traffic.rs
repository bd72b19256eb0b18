//! A day of traffic from any scenario the loader takes: idem::fuzzing::traffic.
//!
//! The body is built and run over this target's seeds by `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idem::fuzzing::traffic(data));
