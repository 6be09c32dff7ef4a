//! sgtab: Sprague–Grundy tables of impartial games.
//!
//! Data flows one way: a [`spec::GameSpec`] goes to an [`engine`], which computes a
//! [`table::Table`], which [`table::format`] stores as a `.sgt` file, which the [`judge`]
//! answers judge input from (the `sgq` binary). Every kind of game is resolved in one place,
//! [`spec::Resolver`]. docs/architecture.md describes the layers (each module imports only
//! those below it, which `tests/architecture.rs` checks), the data flow, and where each kind of
//! change goes.
//!
//! With the `lua` feature, the first script interpreter installs a process-wide handler for
//! `SIGURG` and starts a watchdog thread, which stop a script's call that runs past its time
//! bound; a `SIGURG` that is not such a stop goes on to the handler installed before
//! (`sgtab::lua::watchdog`).

/// An error that is one line of text for the user (`$name(pub String)`), shown as that line.
macro_rules! line_error {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        pub struct $name(pub String);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::error::Error for $name {}
    };
}

pub mod build;
pub mod dump;
pub mod engine;
pub mod export;
pub mod games;
pub mod isa;
pub mod judge;
#[cfg(feature = "lua")]
pub mod lua;
pub mod memory;
#[cfg(unix)]
pub mod native;
pub mod output;
pub mod plot;
pub mod progress;
pub mod sgt;
pub mod spec;
pub mod table;
pub mod values;
