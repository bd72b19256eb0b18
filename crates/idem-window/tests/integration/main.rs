//! The window calculator's integration tests, in one test binary: the arithmetic of attempts,
//! delays and windows, and the report's JSON. They build this crate and the core alone. The
//! tests of `idem window` on the command line and of its screen live with those, in the
//! root's and `idem-tui`'s tests.

// The crate answers to `idem`, as in the other crates' tests: `idem::window`, ….
extern crate idem_window as idem;

mod window_magnitudes;
mod window_math;
mod window_schedules;
mod window_simulator;
