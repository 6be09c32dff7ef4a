//! Grundy's game: a move splits one heap into two unequal non-empty heaps.

use super::MAX_LEN;
use super::heap_family;
use crate::progress::Progress;

/// Heaps tabulated when the spec names no count.
pub const DEFAULT_LEN: u64 = 1024;

const GRAMMAR: &str =
    "grundy[:N] (Grundy's game: split a heap into two unequal heaps; N heaps, default 1024)";

heap_family! {
    /// Grundy's game with `len` entries.
    Grundy, name: "grundy", default: DEFAULT_LEN, bounds: (1, MAX_LEN), grammar: GRAMMAR,
    reference: reference,
    options: options,
}

/// The options of a heap of `n`: the pairs (a, n − a) with 1 ≤ a < n − a.
pub fn options(n: u64) -> impl Iterator<Item = (u64, u64)> {
    (1..n.div_ceil(2)).map(move |a| (a, n - a))
}

/// Scalar reference: values of heaps 0..len (quadratic).
pub fn reference(len: u64, progress: &Progress) -> Vec<u32> {
    super::pair_table(len, progress, options)
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
