//! `idem window --config`: any text is refused with a positioned error, or gives a stack
//! whose report, text and JSON can be worked out. Nothing may panic.
//!
//! The body is `idem::fuzzing::window_config`, built and run over this target's seeds by `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idem::fuzzing::window_config(data));
