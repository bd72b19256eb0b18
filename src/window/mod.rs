//! The retry-window arithmetic (SPEC §4); being written.
