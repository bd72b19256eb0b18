//! The checkers, one file each.

pub mod claims;
pub mod end_state;
pub mod inline;
pub mod truth;
