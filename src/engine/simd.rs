//! The SIMD engine for chess rows: `wide` vectors, all cores. (Placeholder until it is built:
//! it computes with the scalar reference so that callers and tests have one interface.)

use crate::games::chess;
use crate::progress::Progress;
use crate::table::Packed;

/// Worker threads to use: every core the process may run on.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Values of every row of `width` cells, packed 5 bits a value (the caller shrinks).
pub fn chess(width: u32, _threads: usize, progress: &Progress) -> Packed {
    Packed::with_bits(&chess::reference(width, progress), 5)
}
