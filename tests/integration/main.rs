//! Every integration test of idem, in one test binary: each file of this folder is a module,
//! and `common` holds what they share. One binary links the crate once, where a binary per
//! file linked it once each.

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
mod hostile_input;
mod hostile_outputs;
mod narration_bound;
mod narration_truth;
mod present;
mod room;
mod room_model;
mod serve_drill;
mod session;
mod signals_tty;
mod story_phrases;
mod traffic;
mod tui_background;
mod tui_checklist;
mod tui_glossary;
mod tui_keys;
mod tui_loop;
mod tui_mouse;
mod tui_narration;
mod tui_picker;
mod tui_reload;
mod tui_render;
mod tui_render_lanes;
mod tui_share;
mod tui_tmux;
mod tui_whatif;
mod unreadable_files;
mod window_args;
mod window_cli;
mod window_math;
mod window_simulator;
mod window_sources;
mod window_tui;
