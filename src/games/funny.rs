//! A Funny Stone Game (UVa 1378), one stone at a time.
//!
//! Piles 0..n−1; a move takes a stone from pile i and puts one on pile j and one on pile k,
//! i < j ≤ k. Every stone is a game of its own whose value depends only on how many piles lie
//! to its right: entry r of the table is a stone with r piles to its right. Its options are
//! pairs of stones with fewer piles to their right, worth the XOR of their two values.

use super::heap_family;

/// Entries when the spec names no count (the judge needs 23).
pub const DEFAULT_LEN: u64 = 32;
/// The judge's game has at most 23 piles, so a stone has at most 22 piles to its right.
pub const MIN_LEN: u64 = 23;
/// The reference is cubic in its length; beyond this it is not a table anyone needs.
pub const MAX_LEN: u64 = 4096;

const GRAMMAR: &str = "funny[:N] (A Funny Stone Game, N from 23 to 4096, default 32)";

heap_family! {
    /// One stone of A Funny Stone Game, entry i = the stone with i piles to its right.
    Funny, name: "funny", default: DEFAULT_LEN, bounds: (MIN_LEN, MAX_LEN), grammar: GRAMMAR,
    reference: |len, _| reference(len),
    options: options,
}

/// The options of a stone with `right` piles to its right: the two stones' `right` counts.
pub fn options(right: u64) -> impl Iterator<Item = (u64, u64)> {
    (0..right).flat_map(move |j| (j..right).map(move |k| (j, k)))
}

/// Scalar reference: values of a stone with 0..len piles to its right.
pub fn reference(len: u64) -> Vec<u32> {
    super::pair_table(len, &crate::progress::Progress::silent(), options)
}
