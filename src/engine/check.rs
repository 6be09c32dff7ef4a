//! The self-check every GPU table passes before it is written: a sample of positions, each
//! recomputed on the CPU from the table's own values. A position's value must be the mex of its
//! options' values (an option that leaves several games side by side is worth the XOR of
//! theirs), read from the same table; the options come from the game's own definition
//! ([`Moves`]), not from the engine, so the check shares nothing with the kernel it checks.
//!
//! The sample is every position of the first layers the engine computed (a wrong start spreads
//! to everything above it, and small boards are all first layers), the last position, and
//! [`SPREAD`] positions drawn evenly over the whole table by a fixed generator (the same sample
//! on every run). A table that passes is not proven right (`sgtab verify` and
//! `build --cross-check` recompute every value); one that fails is certainly wrong, and its
//! first wrong position is named.
//!
//! Cost: the options of the sampled positions, read on every core. docs/engines.md gives the
//! measured share of a GPU build.

use crate::games::{MexSet, Moves, Positions};
use crate::values::Packed;

/// Positions drawn over the whole table, besides the first layers.
pub const SPREAD: u64 = 2048;

/// A sampled position whose stored value is not the mex of its options' values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wrong {
    /// The position, as a table index.
    pub index: u64,
    /// What the table holds there.
    pub held: u32,
    /// The mex of its options' values, read from the table.
    pub mex: u32,
}

impl Wrong {
    /// The position in the game's own words: see [`position`].
    pub fn position(&self, positions: Positions) -> String {
        position(positions, self.index)
    }
}

/// Table index `i` as a position in the game's own words: `(3, 4)` on a board, `row 7
/// (0b00111)` for a chess row, `heap 7`, `(1, 2, 3)` in a box.
pub fn position(positions: Positions, i: u64) -> String {
    match positions {
        Positions::Board { n } => format!("({}, {})", i / n, i % n),
        Positions::Row { width } => format!("row {i} ({:#0w$b})", i, w = width as usize + 2),
        Positions::Heap => format!("heap {i}"),
        Positions::Grid(dims) => dims.name(i),
    }
}

/// The positions to check: `first` (the first layers, in any order), the last position, and
/// [`SPREAD`] more drawn over `0..len`, sorted and without repeats.
pub fn sample(len: u64, first: impl IntoIterator<Item = u64>) -> Vec<u64> {
    let mut positions: Vec<u64> = first.into_iter().filter(|&p| p < len).collect();
    positions.push(len - 1);
    // SplitMix64 from a fixed seed: one position in each of SPREAD equal stretches.
    let mut state = 0x5347_5441_4253_454Cu64;
    let stretches = SPREAD.min(len);
    for k in 0..stretches {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let (lo, hi) = (len * k / stretches, len * (k + 1) / stretches);
        positions.push(lo + z % (hi - lo).max(1));
    }
    positions.sort_unstable();
    positions.dedup();
    positions
}

/// The first of `positions` (sorted) whose value in `values` is not the mex of its options'
/// values in `values`, checked on `threads` threads; `None` when every one holds.
pub fn check(
    game: &dyn Moves,
    values: &Packed,
    positions: &[u64],
    threads: usize,
) -> Option<Wrong> {
    let threads = threads.clamp(1, positions.len().max(1));
    let per = positions.len().div_ceil(threads).max(1);
    let check_part = |part: &[u64]| {
        let mut mex = MexSet::new(64);
        part.iter().find_map(|&p| {
            mex.clear();
            game.options(p, &mut |option| {
                mex.mark_growing(option.iter().fold(0, |x, &q| x ^ values.get(q)) as usize)
            });
            let (held, mex) = (values.get(p), mex.mex() as u32);
            (held != mex).then_some(Wrong { index: p, held, mex })
        })
    };
    if threads == 1 {
        return check_part(positions);
    }
    // Each part's first wrong position; the first part that has one has the first overall.
    std::thread::scope(|s| {
        let parts: Vec<_> =
            positions.chunks(per).map(|part| s.spawn(move || check_part(part))).collect();
        parts.into_iter().find_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    })
}

/// Every row of `width` cells whose excess (index sum of its chips minus the least sum as many
/// chips can have) is below `layers`: the chess engines' first layers, any popcount.
pub fn chess_first_layers(width: u32, layers: u32) -> Vec<u64> {
    // A c-chip row of excess d is a partition of d into at most c parts of at most W − c: the
    // i-th chip from the right sits on bit (i − 1) + its part.
    fn rows(chips: u32, budget: u32, max_part: u32, base: u64, placed: u32, out: &mut Vec<u64>) {
        if placed == chips {
            out.push(base);
            return;
        }
        // Parts are taken from the highest chip down, each at most the one above it.
        let chip = chips - 1 - placed;
        for part in 0..=max_part.min(budget) {
            rows(chips, budget - part, part, base | 1 << (chip + part), placed + 1, out);
        }
    }
    let mut out = Vec::new();
    for chips in 0..=width {
        rows(chips, layers.saturating_sub(1), width - chips, 0, 0, &mut out);
    }
    out
}

/// Every cell of an n×n board with x + y below `layers`: the corner engines' first
/// anti-diagonals.
pub fn corner_first_layers(n: u64, layers: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for s in 0..layers.min(2 * n - 1) {
        for x in s.saturating_sub(n - 1)..=s.min(n - 1) {
            out.push(x * n + (s - x));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chess::Chess;
    use crate::games::corner::{Corner, Piece, reference};
    use crate::progress::Progress;

    #[test]
    fn first_layers_are_the_rows_of_low_excess() {
        let width = 10;
        let excess = |row: u64| {
            let c = row.count_ones() as u64;
            (0..width as u64).filter(|&b| row >> b & 1 == 1).sum::<u64>()
                - c * c.saturating_sub(1) / 2
        };
        let mut got = chess_first_layers(width, 4);
        got.sort_unstable();
        let want: Vec<u64> = (0..1 << width).filter(|&r| excess(r) < 4).collect();
        assert_eq!(got, want);
        assert_eq!(corner_first_layers(3, 2), vec![0, 1, 3]);
        assert_eq!(corner_first_layers(2, 10).len(), 4);
    }

    #[test]
    fn a_right_table_passes_and_a_wrong_value_is_named() {
        let game = Corner { piece: Piece::Queen, n: 40 };
        let good = reference(Piece::Queen, 40, &Progress::silent());
        let positions = sample(1600, corner_first_layers(40, 8));
        assert_eq!(check(&game, &good, &positions, 2), None);
        // One value wrong, on a sampled position: that position (or one whose options read it)
        // is reported, with what it holds and what it should.
        let bad_at = positions[positions.len() / 2];
        let mut values: Vec<u32> = good.iter().collect();
        values[bad_at as usize] ^= 1;
        let bad = Packed::with_bits(&values, good.bits());
        let wrong = check(&game, &bad, &positions, 2).expect("the flipped value is found");
        assert!(wrong.index <= bad_at, "{wrong:?}");
        assert_eq!(
            wrong.position(Positions::Board { n: 40 }),
            format!("({}, {})", wrong.index / 40, wrong.index % 40)
        );
    }

    #[test]
    fn every_chess_row_of_the_first_layers_is_checked() {
        let game = Chess { width: 12 };
        let good = Packed::from_values(&crate::games::chess::reference(12, &Progress::silent()));
        let positions = sample(1 << 12, chess_first_layers(12, 6));
        assert_eq!(check(&game, &good, &positions, 1), None);
        let mut values: Vec<u32> = good.iter().collect();
        values[0b111] ^= 3; // layer 0: three chips packed right, value 0
        let wrong = check(&game, &Packed::with_bits(&values, 5), &positions, 1).unwrap();
        assert_eq!((wrong.index, wrong.held, wrong.mex), (0b111, 3, 0));
        assert_eq!(wrong.position(Positions::Row { width: 12 }), "row 7 (0b000000000111)");
    }

    #[test]
    fn the_sample_spreads_over_the_whole_table() {
        let s = sample(1 << 20, []);
        assert!(s.len() as u64 >= SPREAD && s.len() as u64 <= SPREAD + 1);
        assert_eq!(*s.last().unwrap(), (1 << 20) - 1);
        // One in every stretch of 2^20 / SPREAD.
        let stretch = (1 << 20) / SPREAD;
        assert!(s.windows(2).all(|w| w[1] - w[0] < 2 * stretch));
        assert!(s[0] < stretch);
        assert_eq!(sample(5, [0, 1, 9]), vec![0, 1, 2, 3, 4]);
    }
}
