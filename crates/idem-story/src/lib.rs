//! The words of a run (`story`): each tick's label and narration, the outcome's words and the
//! glossary, made from the engine's facts (`idem-sim`) and nowhere else. The scenario files
//! (`idem-core`) check a trainer's labels and narrations against it; every view shows it.

pub mod story;
pub use idem_sim::{sim, text, units};
