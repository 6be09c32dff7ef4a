//! Corner games on an N×N board: one piece at (x, y), 0 ≤ x, y < N, moves toward the corner
//! (0, 0). The queen (Wythoff's game, "Corner the Lady") moves any distance left, down, or
//! diagonally down-left; the rook left or down (two-heap Nim); the king one step left, down or
//! diagonally down-left. Entry x·N + y holds the value of the piece on (x, y).
//!
//! The three families share one game type, [`Corner`]. A move always lowers x + y, so the cells
//! of one anti-diagonal are independent: the fast engines (on the CPU and the GPU)
//! compute the board anti-diagonal by anti-diagonal.

use super::SpecError;
use super::{Family, Game, MexSet, Positions, parse};
use crate::progress::Progress;
use crate::values::packed::bits_for;
use crate::values::{Packed, Rule};
use std::sync::Arc;

/// Largest board side: N² = 2^32 entries.
pub const MAX_N: u64 = 1 << 16;
/// Board side when the spec gives none.
pub const DEFAULT_N: u64 = 1024;

/// Which piece walks to the corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    Queen,
    Rook,
    King,
}

impl Piece {
    pub const ALL: [Piece; 3] = [Piece::Queen, Piece::Rook, Piece::King];

    /// The family word: `queen`, `rook`, `king`.
    pub fn name(self) -> &'static str {
        match self {
            Piece::Queen => "queen",
            Piece::Rook => "rook",
            Piece::King => "king",
        }
    }

    pub fn family(self) -> &'static Family {
        match self {
            Piece::Queen => &QUEEN,
            Piece::Rook => &ROOK,
            Piece::King => &KING,
        }
    }

    /// The number of options of (x, y), which bounds its value (a mex of k values is at most k).
    /// For the queen and rook the option values along one row, column or diagonal are also all
    /// distinct (each of those cells is an option of the next), so a cell's value is the first
    /// value missing from at most this many.
    pub fn options_count(self, x: u64, y: u64) -> u64 {
        match self {
            Piece::Queen => x + y + x.min(y),
            Piece::Rook => x + y,
            Piece::King => (x > 0) as u64 + (y > 0) as u64 + (x > 0 && y > 0) as u64,
        }
    }

    /// The largest value any cell of an n×n board can have, by [`Piece::options_count`].
    pub fn max_value(self, n: u64) -> u64 {
        self.options_count(n - 1, n - 1)
    }

    /// Bits a value of an n×n board is computed at (then shrunk to the fewest that hold them).
    pub fn value_bits(self, n: u64) -> u32 {
        bits_for(self.max_value(n))
    }

    /// Every option of (x, y), straight from the moves.
    pub fn options(self, x: u32, y: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        match self {
            Piece::Queen | Piece::Rook => {
                out.extend((0..x).map(|i| (i, y)));
                out.extend((0..y).map(|j| (x, j)));
                if self == Piece::Queen {
                    out.extend((1..=x.min(y)).map(|k| (x - k, y - k)));
                }
            }
            Piece::King => {
                if x > 0 {
                    out.push((x - 1, y));
                }
                if y > 0 {
                    out.push((x, y - 1));
                }
                if x > 0 && y > 0 {
                    out.push((x - 1, y - 1));
                }
            }
        }
        out
    }
}

const QUEEN_GRAMMAR: &str = "queen[:N] (Wythoff's game: a queen moving toward the corner of an \
    N×N board, N 1 to 65536, default 1024)";
const ROOK_GRAMMAR: &str =
    "rook[:N] (a rook moving toward the corner of an N×N board, N 1 to 65536, default 1024)";
const KING_GRAMMAR: &str =
    "king[:N] (a king moving toward the corner of an N×N board, N 1 to 65536, default 1024)";

pub static QUEEN: Family =
    Family { name: "queen", grammar: QUEEN_GRAMMAR, parse: |s| parse_spec(s, Piece::Queen) };
pub static ROOK: Family =
    Family { name: "rook", grammar: ROOK_GRAMMAR, parse: |s| parse_spec(s, Piece::Rook) };
pub static KING: Family =
    Family { name: "king", grammar: KING_GRAMMAR, parse: |s| parse_spec(s, Piece::King) };

fn parse_spec(spec: &str, piece: Piece) -> Option<Result<Arc<dyn Game>, SpecError>> {
    let rest = parse::named(spec, piece.name())?;
    let grammar = piece.family().grammar;
    Some(
        parse::bounded(spec, "board side", rest, DEFAULT_N, (1, MAX_N), grammar)
            .map(|n| Arc::new(Corner { piece, n: n as u32 }) as Arc<dyn Game>),
    )
}

/// A piece on an n×n board; the table has n² entries, entry x·n + y for the piece on (x, y).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Corner {
    pub piece: Piece,
    pub n: u32,
}

impl Game for Corner {
    fn family(&self) -> &'static Family {
        self.piece.family()
    }

    fn canonical(&self) -> String {
        format!("{}:{}", self.piece.name(), self.n)
    }

    fn len(&self) -> u64 {
        self.n as u64 * self.n as u64
    }

    fn positions(&self) -> Positions {
        Positions::Board { n: self.n as u64 }
    }

    fn reference(&self, progress: &Progress) -> Result<Packed, super::GameError> {
        Ok(reference(self.piece, self.n, progress))
    }

    /// A rule along the flat index means nothing on a board; rows have theirs ([`row_rules`]).
    fn has_rule(&self) -> bool {
        false
    }

    fn moves(&self) -> Option<&dyn super::Moves> {
        Some(self)
    }

    fn with_size(&self, n: u64) -> Option<Arc<dyn Game>> {
        (1..=MAX_N)
            .contains(&n)
            .then(|| Arc::new(Corner { piece: self.piece, n: n as u32 }) as Arc<dyn Game>)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The board as its options, square (x, y) at index x·n + y: what the generic engine reads.
impl super::Moves for Corner {
    fn count(&self) -> u64 {
        self.len()
    }

    fn options(&self, p: u64, f: &mut dyn FnMut(&[u64])) {
        let n = self.n as u64;
        for (x, y) in self.piece.options((p / n) as u32, (p % n) as u32) {
            f(&[x as u64 * n + y as u64]);
        }
    }
}

/// Scalar reference: every cell's value as the mex of its options' values, cells in row-major
/// order (every option of (x, y) is in an earlier row, or earlier in row x). O(N) options a
/// cell, O(N³) in all: the judge of the fast engines, not a way to build large boards.
pub fn reference(piece: Piece, n: u32, progress: &Progress) -> Packed {
    assert!((1..=MAX_N).contains(&(n as u64)));
    let n64 = n as u64;
    let bits = piece.value_bits(n64);
    let mut table = BitTable::new(n64 * n64, bits);
    let mut seen = MexSet::new(piece.max_value(n64) as usize);
    for x in 0..n {
        for y in 0..n {
            seen.clear();
            for (i, j) in piece.options(x, y) {
                seen.mark_growing(table.get(i as u64 * n64 + j as u64) as usize);
            }
            table.set(x as u64 * n64 + y as u64, seen.mex() as u64);
        }
        progress.tick(x as u64 + 1, n64);
    }
    table.into_packed().shrink()
}

/// A table being filled in, `bits` bits a value, laid out as [`Packed`] lays it out.
struct BitTable {
    bits: u32,
    len: u64,
    bytes: Vec<u8>,
}

impl BitTable {
    fn new(len: u64, bits: u32) -> BitTable {
        // 8 bytes of room past the payload for the 8-byte windows below.
        BitTable {
            bits,
            len,
            bytes: vec![0; crate::values::packed::payload_len(len, bits) as usize + 8],
        }
    }

    fn window(&self, i: u64) -> (usize, u32, u64) {
        let bit = i * self.bits as u64;
        let at = (bit / 8) as usize;
        (at, (bit % 8) as u32, u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap()))
    }

    fn get(&self, i: u64) -> u64 {
        let (_, shift, word) = self.window(i);
        word >> shift & ((1 << self.bits) - 1)
    }

    fn set(&mut self, i: u64, v: u64) {
        debug_assert!(v >> self.bits == 0);
        let (at, shift, word) = self.window(i);
        let word = word & !(((1 << self.bits) - 1) << shift) | v << shift;
        self.bytes[at..at + 8].copy_from_slice(&word.to_le_bytes());
    }

    fn into_packed(self) -> Packed {
        Packed::from_payload(self.bits, self.len, self.bytes)
            .expect("the table is exactly the payload")
    }
}

/// The rule found along one row of a board table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowRule {
    pub x: u64,
    /// g(x, y + period) = g(x, y) + saltus for pre ≤ y < n − period, with margin (three periods
    /// and 16 values past `pre`); None when no such rule shows within the row.
    pub rule: Option<Rule>,
}

/// The rule of each of the first `rows` rows of an n×n board table (index x·n + y), found like
/// a heap game's rule, with y as the heap. Wythoff's rows are known to become additively
/// periodic (saltus = period), but only from some y on, so a short row may show none.
pub fn row_rules(values: &Packed, n: u64, rows: u64) -> Vec<RowRule> {
    (0..rows.min(n))
        .map(|x| RowRule { x, rule: Rule::find(n, |y| values.get(x * n + y) as u64) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_boards_by_hand() {
        // Wythoff's P-positions in a 6×6 corner: (0,0), (1,2), (2,1), (3,5), (5,3).
        let t = reference(Piece::Queen, 6, &Progress::silent());
        let zeros: Vec<(u64, u64)> =
            (0..36).filter(|&i| t.get(i) == 0).map(|i| (i / 6, i % 6)).collect();
        assert_eq!(zeros, vec![(0, 0), (1, 2), (2, 1), (3, 5), (5, 3)]);
        assert_eq!(t.get(7), 2, "(1, 1)");
        let k = reference(Piece::King, 3, &Progress::silent());
        assert_eq!(k.iter().collect::<Vec<_>>(), vec![0, 1, 0, 1, 2, 3, 0, 3, 0]);
    }

    #[test]
    fn queen_rows_one_and_two_are_additively_periodic() {
        let t = reference(Piece::Queen, 200, &Progress::silent());
        let rules = row_rules(&t, 200, 3);
        for r in &rules {
            let rule = r.rule.unwrap_or_else(|| panic!("row {} has no rule", r.x));
            assert_eq!(rule.period, rule.saltus, "row {}", r.x);
        }
        assert_eq!(rules[0].rule.map(|r| (r.pre, r.period)), Some((0, 1)));
        assert_eq!(rules[1].rule.map(|r| r.period), Some(3));
    }
}
