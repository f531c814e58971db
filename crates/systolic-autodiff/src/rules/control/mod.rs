//! Control flow (`if`, `case`, `while`), both modes in one place. Their rules differ from the
//! per-op rules of the other families: they run the rules of the ops in their regions.
//!
//! - [`forward`]: forward mode differentiates branches and loop bodies in place (tangents
//!   become extra branch results and loop carries).
//! - [`reverse`]: reverse mode records a placeholder for the op while linearizing and, at
//!   transposition, emits its backward rule (a backward `case`, or a loop over the stacked
//!   carries of a `while` with a static trip count), recomputing what it needs.

pub(crate) mod forward;
pub(crate) mod reverse;

pub(crate) use forward::jvp;
pub(crate) use reverse::linearize_control;
