//! The wgpu engine for chess rows. (Placeholder until it is built.)

use super::{EngineError, Timings};
use crate::progress::Progress;
use crate::table::Packed;

pub struct GpuEngine {}

impl GpuEngine {
    pub fn new() -> Result<GpuEngine, EngineError> {
        Err(EngineError("the GPU engine is not built yet; use --backend scalar or simd".into()))
    }

    pub fn describe(&self) -> String {
        String::new()
    }

    pub fn chess(&self, _width: u32, _progress: &Progress, _timings: &mut Timings) -> Result<Packed, EngineError> {
        Err(EngineError("the GPU engine is not built yet".into()))
    }
}
