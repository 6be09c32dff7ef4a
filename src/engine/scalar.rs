//! The scalar engine: each game's reference, straight from its definition.

use crate::progress::Progress;
use crate::spec::GameSpec;
use crate::values::Packed;

/// Computes `spec`'s table with its scalar reference.
pub fn compute(spec: &GameSpec, progress: &Progress) -> Result<Packed, crate::games::GameError> {
    spec.reference(progress)
}
