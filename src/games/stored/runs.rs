//! The one `Game` impl of every game run from code: what it is, it answers through its
//! [`Stored`] origin and shape.

use super::Stored;
use crate::games::{Family, Game, Positions, Source};
use std::fmt;

/// A game run from code (a script, C++ or a shared library): its options come from running it
/// (its [`Source`]), and where it came from and its shape, as its table stores them
/// ([`Stored`]), answer every other question about it.
pub trait Runs: Source + fmt::Debug + Send + Sync + 'static {
    fn as_stored(&self) -> &Stored;
}

impl<T: Runs> Game for T {
    fn family(&self) -> &'static Family {
        self.as_stored().family()
    }

    fn canonical(&self) -> String {
        self.as_stored().canonical()
    }

    fn len(&self) -> u64 {
        self.as_stored().len()
    }

    fn positions(&self) -> Positions {
        self.as_stored().positions()
    }

    fn source(&self) -> Option<&dyn Source> {
        Some(self)
    }

    fn stored(&self) -> Option<Stored> {
        Some(self.as_stored().clone())
    }

    fn file_name(&self) -> Option<String> {
        self.as_stored().file_name()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
