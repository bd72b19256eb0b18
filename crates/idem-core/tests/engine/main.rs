//! The engine's tests, one binary: its rules and the model's tables, its timers, each design's
//! memory, the downstream steps, the lookup, the reconciliation, the layers' keys, and
//! properties over random scenarios. They build the core crate alone (no terminal, no
//! network, no database), so `cargo mutants -p idem-core` runs them and nothing else.

// The tests name the crate as the `idem` crate re-exports it.
extern crate idem_core as idem;

mod common;
mod engine_downstream;
mod engine_downstream_legs;
mod engine_inprogress_record;
mod engine_layer_keys;
mod engine_lookup;
mod engine_names;
mod engine_outcome;
mod engine_reconcile;
mod engine_rules;
mod engine_spec_table;
mod engine_timers;
mod engine_wire;
mod engine_words_off_path;
mod proptest_engine;
