//! The scalar engine: each game's reference, straight from its definition.

use crate::games::{chess, funny, lasker, sub};
use crate::progress::Progress;
use crate::spec::GameSpec;
use crate::table::Packed;

/// Computes `spec`'s table with its scalar reference.
pub fn compute(spec: &GameSpec, progress: &Progress) -> Packed {
    match spec {
        GameSpec::Chess { width } => Packed::from_values(&chess::reference(*width, progress)),
        GameSpec::Sub { moves, len } => Packed::from_values(&sub::reference(moves, *len)),
        GameSpec::Lasker { len } => Packed::from_values(&lasker::reference(*len)),
        GameSpec::Funny { len } => Packed::from_values(&funny::reference(*len)),
    }
}
