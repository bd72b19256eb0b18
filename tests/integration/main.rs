//! The `idem` crate's integration tests, in one test binary: each file of this folder is a
//! module, and `common` holds what they share (the `idem-tui` tests use it too). These are
//! the tests that run the real binary (the command line, tmux, signals), the network tools,
//! the handouts and what crosses crates; each crate beneath has its own binary of the tests
//! that need nothing above it (`crates/*/tests/`).

mod common;

mod architecture;
mod bad_input;
mod big_inputs;
mod check_cli;
mod claims_hold;
mod cli_conventions;
mod cli_run;
mod clock_times;
mod docs_links;
mod drill_truth;
mod explore;
mod export;
mod file_writes;
mod fork_save;
mod fuzz_seeds;
mod hostile_input;
mod hostile_outputs;
mod import;
mod interop_real;
mod narration_bound;
mod narration_truth;
mod present;
mod serve_drill;
mod session;
mod signals_tty;
mod story_phrases;
mod traffic;
mod traffic_store;
mod tui_share;
mod tui_tmux;
mod tui_whatif;
mod unreadable_files;
mod window_args;
mod window_cli;
mod window_corpus;
mod window_simulator;
mod window_sources;
