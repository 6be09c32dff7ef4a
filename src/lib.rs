//! sgtab: Sprague–Grundy tables of impartial games.
//!
//! Data flows one way: a [`spec::GameSpec`] goes to an [`engine`], which computes a
//! [`table::Table`], which [`table::format`] stores as a `.sgt` file, which the [`judge`]
//! answers judge input from (the `sgq` binary).

pub mod build;
pub mod engine;
pub mod export;
pub mod games;
pub mod isa;
pub mod judge;
#[cfg(feature = "lua")]
pub mod lua;
pub mod memory;
pub mod output;
pub mod plot;
pub mod progress;
pub mod spec;
pub mod table;
