//! placeholder while the CPU engine is tested (replaced below)
use super::GpuEngine;
use crate::engine::{EngineError, Timings};
use crate::games::corner::Piece;
use crate::progress::Progress;
use crate::table::Packed;

impl GpuEngine {
    pub fn corner(&self, piece: Piece, n: u32, _p: &Progress, _t: &mut Timings) -> Result<Packed, EngineError> {
        Err(EngineError(format!("{piece:?} {n}: todo")))
    }
}
