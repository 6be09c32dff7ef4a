//! Grundy's game: a move splits one heap into two unequal non-empty heaps.

use super::{FastEngines, Game, MexSet, heap_family};
use crate::engine::{Backend, EngineError, Engines, Timings, octal};
use crate::progress::Progress;
use crate::spec::MAX_LEN;
use crate::table::Packed;

/// Heaps tabulated when the spec names no count.
pub const DEFAULT_LEN: u64 = 1024;

const GRAMMAR: &str = "grundy[:N] (Grundy's game: split a heap into two unequal heaps; N heaps, default 1024)";

heap_family! {
    /// Grundy's game with `len` entries.
    Grundy, name: "grundy", default: DEFAULT_LEN, bounds: (1, MAX_LEN), grammar: GRAMMAR,
    reference: reference,
    options: options,
}

/// The fast engine: the rare/common split of `crate::engine::octal`.
pub static FAST: FastEngines = FastEngines { family: &FAMILY, engines: &[Backend::Simd], compute: fast };

fn fast(game: &dyn Game, _: Backend, _: &Engines, progress: &Progress, timings: &mut Timings) -> Result<Packed, EngineError> {
    let Some(g) = game.as_any().downcast_ref::<Grundy>() else {
        return Err(EngineError("not Grundy's game".into()));
    };
    octal::grundy_compute(g.len, progress, timings)
}

/// The options of a heap of `n`: the pairs (a, n − a) with 1 ≤ a < n − a.
pub fn options(n: u64) -> impl Iterator<Item = (u64, u64)> {
    (1..n.div_ceil(2)).map(move |a| (a, n - a))
}

/// Scalar reference: values of heaps 0..len (quadratic).
pub fn reference(len: u64, progress: &Progress) -> Vec<u32> {
    let mut table: Vec<u32> = Vec::with_capacity(len as usize);
    let mut mex = MexSet::new(64);
    for n in 0..len {
        mex.clear();
        for (a, b) in options(n) {
            mex.mark((table[a as usize] ^ table[b as usize]) as u64);
        }
        table.push(mex.mex() as u32);
        if n & 0x3FF == 0x3FF {
            progress.tick(n + 1, len);
        }
    }
    table
}

#[cfg(test)]
mod tests {
    #[test]
    fn starts_as_published() {
        // OEIS A002188: 0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0.
        let t = super::reference(21, &crate::progress::Progress::silent());
        assert_eq!(t, [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0]);
    }
}
