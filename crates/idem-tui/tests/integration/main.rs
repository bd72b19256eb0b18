//! The terminal UI's integration tests, in one test binary: the replay, presenter mode and the
//! window screen driven through their messages and drawn on a test terminal. They build this
//! crate and the ones beneath it alone: no SQLite, no TLS, no command line. The tests that run
//! the `idem` binary (tmux, the command line) live with it, in the root's `tests/integration`,
//! and share its helpers (`common`).

// The crate answers to `idem`, as in the root's tests: `idem::tui`, `idem::scenario`, ….
extern crate idem_tui as idem;

#[path = "../../../../tests/integration/common/mod.rs"]
mod common;

mod room;
mod room_model;
mod tui_background;
mod tui_checklist;
mod tui_glossary;
mod tui_keys;
mod tui_loop;
mod tui_mouse;
mod tui_narration;
mod tui_opening;
mod tui_picker;
mod tui_reload;
mod tui_render;
mod tui_render_lanes;
mod window_tui;
