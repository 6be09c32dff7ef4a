//! Lasker's Nim (HDU 3032, "Nim or not Nim?"): a move takes any positive number of stones from
//! one heap, or splits a heap into two non-empty heaps.

use super::heap_family;

/// Entries when the spec names no count.
pub const DEFAULT_LEN: u64 = 1024;
/// The reference is quadratic in its length.
pub const MAX_LEN: u64 = 1 << 16;

const GRAMMAR: &str = "lasker[:N] (Lasker's Nim, N heaps up to 65536, default 1024)";

heap_family! {
    /// Lasker's Nim with `len` entries.
    Lasker, name: "lasker", default: DEFAULT_LEN, bounds: (1, MAX_LEN), grammar: GRAMMAR,
    reference: |len, _| reference(len),
    options: options,
}

/// The options of a heap of `heap` stones, each as the pair of heaps left (0 for none).
pub fn options(heap: u64) -> impl Iterator<Item = (u64, u64)> {
    let takes = (0..heap).map(|rest| (rest, 0));
    let splits = (1..=heap / 2).map(move |a| (a, heap - a));
    takes.chain(splits)
}

/// Scalar reference: values of heaps 0..len (a pair of heaps is worth the XOR of the two).
pub fn reference(len: u64) -> Vec<u32> {
    super::pair_table(len, &crate::progress::Progress::silent(), options)
}
