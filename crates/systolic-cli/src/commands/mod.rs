//! The subcommands, one module each.

pub mod check;
pub mod chips;
pub mod profile;
pub mod run;
pub mod simulate;
