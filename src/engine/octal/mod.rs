//! The fast engine for take-and-break games (octal and hexadecimal codes, codes with repeating
//! tails, Grundy's game): the rare/common split of values, as the field computes octal games
//! (Gangolli and Plambeck; Flammenkamp; the public solvers `beling/impartial-games`, methods
//! `rc`/`rc2`, and `rogalski-wmii-uni-lodz-pl/octal`).
//!
//! Heap n is worth the mex of its options. Removing and leaving one heap, or taking a whole
//! heap, are a handful of options each; splitting into two heaps, g(a) ⊕ g(s−a) for every a, is
//! the quadratic part. The split makes it near-linear where the game allows:
//!
//! - Each value is taken with the parity of its heap, a *pair* (v, n mod 2). Split moves fall
//!   in two classes by the parity of the beans removed, d (d0's split removes none: class 0).
//!   A class keeps a set C of *common* pairs chosen so that no c1 ⊕ c2 ⊕ (0, d) is in C (its
//!   *forbidden* set F = {c1 ⊕ c2 ⊕ (0, d)}); every other heap is *rare* for that class.
//! - A split of n in class d into two common heaps gives a pair in F (the pairs' parities add
//!   up to n − d). So every option of n whose pair is not in F comes from a split with a rare
//!   heap: those few splits are enumerated first, and the smallest value not seen whose pair is
//!   outside F of every class is the mex unless a smaller value, unseen and in some F, is an
//!   option after all. Those few *wanted* values are then looked for in the full scan of the
//!   classes where they are in F, which stops as soon as all are found; usually very early.
//!   This is exact whatever C is (an empty C is the plain quadratic scan); a good C only makes
//!   it fast. C is chosen greedily, most frequent pair first (by pair, or by value with both
//!   parities, whichever leaves fewer rare heaps), and rechosen as the counts change.
//! - The values met among a heap's splits are kept as stamps (`mark[v] = stamp`, a new stamp
//!   per heap, the array wiped once every 255 heaps): one store per split, no clearing and no
//!   read-modify-write chain through a bit set; the candidate is read straight from them.
//! - The full scan reads g(a) ⊕ g(s−a) a chunk at a time. Up to eight wanted values are compared
//!   lane by lane, written so that the compiler vectorises it (plain arrays: `wide` has no lane
//!   reversal, which the reversed half needs); more are marked and looked up per chunk, and
//!   the first few dozen splits (where most scans end) are marked too. The whole loop is also
//!   compiled for AVX2 and picked at run time. Scans longer than 2^17 splits are shared by the
//!   threads; the heaps themselves form one dependency chain (a split reads g(n−b−1)), so a
//!   single long table gains little from more cores.
//! - OctalMoves of a repeating tail (`0.[3]`, take any number) are infinitely many: they are kept
//!   as per-residue sets of the values (or split values) of every rest so far, each grown by one
//!   rest per heap, so a heap costs a few set unions instead of a pass over all smaller heaps.
//! - Splits into three heaps (digit 8) are enumerated in full: correct, cubic.
//!
//! Values are stored at the narrowest of u8, u16, u32 that holds them (widened when a value
//! outgrows the type) and packed in place at the end, so a table of small values costs one byte
//! a heap while it is built.
//!
//! A table can grow ([`Growing`]): the engine keeps its state between calls, so `sgtab build`
//! and `--prove` look for a rule at 4096, 16384, ... heaps and at the lengths the Guy–Smith
//! theorem asks for on one table, never recomputing a heap.
//!
//! By concern: this file holds the moves ([`OctalMoves`]) and the entry points; `heaps.rs` the
//! engine that takes heap after heap; `classes.rs` the rare/common classes; `scans.rs` the scans
//! over a heap's splits; `growing.rs` the growing table and its value store.

use super::EngineError;
use crate::games::takebreak::Code;
use crate::memory;
use crate::progress::Progress;
use crate::values::Packed;
use crate::values::packed::{BitWriter, bits_for};
use std::ops::BitXor;

mod classes;
mod growing;
mod heaps;
mod scans;

use classes::*;
pub use growing::{Growing, Word};
use heaps::*;
use scans::*;

/// The moves of a heap game as the engine uses them.
#[derive(Clone, Debug)]
pub struct OctalMoves {
    /// Digits d1..dm of the finite part (index k−1).
    finite: Vec<u8>,
    /// k ≤ m whose digit has 2: remove k, leave one heap.
    take: Vec<usize>,
    /// Beans removed before a split into two heaps (0 for d0's 4), finite part.
    split2: Vec<usize>,
    /// Beans removed before a split into three heaps (0 for d0's 8), finite part.
    split3: Vec<usize>,
    /// Digits repeating for ever after the finite part.
    tail: Vec<u8>,
    /// Grundy's game: the two heaps of a split must differ.
    unequal: bool,
}

impl OctalMoves {
    /// The moves of a take-and-break code.
    pub fn code(code: &Code) -> OctalMoves {
        let finite = code.digits.clone();
        let with =
            |bit: u8| (1..=finite.len()).filter(|&k| finite[k - 1] & bit != 0).collect::<Vec<_>>();
        let mut split2 = with(4);
        let mut split3 = with(8);
        if code.d0 & 4 != 0 {
            split2.insert(0, 0);
        }
        if code.d0 & 8 != 0 {
            split3.insert(0, 0);
        }
        OctalMoves {
            take: with(2),
            split2,
            split3,
            finite,
            tail: code.tail.clone(),
            unequal: false,
        }
    }

    /// Grundy's game: split a heap into two unequal non-empty heaps.
    pub fn grundy() -> OctalMoves {
        OctalMoves {
            finite: vec![],
            take: vec![],
            split2: vec![0],
            split3: vec![],
            tail: vec![],
            unequal: true,
        }
    }

    /// Whether a heap of exactly n may be taken whole.
    fn whole(&self, n: usize) -> bool {
        let m = self.finite.len();
        if n == 0 {
            false
        } else if n <= m {
            self.finite[n - 1] & 1 != 0
        } else if self.tail.is_empty() {
            false
        } else {
            self.tail[(n - m - 1) % self.tail.len()] & 1 != 0
        }
    }

    fn tail_has(&self, bit: u8) -> bool {
        self.tail.iter().any(|&d| d & bit != 0)
    }
}

/// Values of heaps 0..len of `code`, on up to `threads` threads.
pub fn takebreak(
    code: &Code,
    len: u64,
    threads: usize,
    progress: &Progress,
) -> Result<Packed, EngineError> {
    run(&OctalMoves::code(code), len, Par { threads, from: PARALLEL_SCAN }, progress)
}

/// Values of heaps 0..len of Grundy's game, on up to `threads` threads.
pub fn grundy(len: u64, threads: usize, progress: &Progress) -> Result<Packed, EngineError> {
    run(&OctalMoves::grundy(), len, Par { threads, from: PARALLEL_SCAN }, progress)
}

/// Threads for the long scans, and from how long a scan they are used.
#[derive(Clone, Copy, Debug)]
pub struct Par {
    pub threads: usize,
    pub from: usize,
}

/// Values of heaps 0..len of the game with `moves`; tests lower `par.from` so that short scans
/// take the threaded path too. Fails where the values do not fit in memory.
pub fn run(
    moves: &OctalMoves,
    len: u64,
    par: Par,
    progress: &Progress,
) -> Result<Packed, EngineError> {
    let mut table = Growing::new(moves, par);
    table.grow(len, progress)?;
    Ok(table.into_packed())
}
