//! Chess (HDU 5724), generalised to a row of W cells.
//!
//! A row is a bitmask: column p (1 = left, W = right) is bit W−p, so the rightmost column is
//! bit 0. A move takes one chip to the nearest empty cell to its right, jumping over the run of
//! chips that follows it; in bit terms, a chip on bit i moves to the highest empty bit j < i.
//! The successor is numerically smaller, keeps the popcount and lowers the sum of the set bits'
//! indices, which is what the layered engines rely on.

use super::SpecError;
use super::{Family, Game, Positions, parse};
use crate::progress::Progress;
use crate::values::Packed;
use std::sync::Arc;

/// Widest chess row: a row is a bitmask held in a `u32`.
pub const MAX_WIDTH: u32 = 32;
/// The judge's board width (HDU 5724).
pub const DEFAULT_WIDTH: u32 = 20;

const GRAMMAR: &str = "chess[:W] (a row of W cells, W 1 to 32, default 20)";

pub static FAMILY: Family = Family { name: "chess", grammar: GRAMMAR, parse: parse_spec };

fn parse_spec(spec: &str) -> Option<Result<Arc<dyn Game>, SpecError>> {
    let rest = parse::named(spec, "chess")?;
    Some(
        parse::bounded(
            spec,
            "chess width",
            rest,
            DEFAULT_WIDTH as u64,
            (1, MAX_WIDTH as u64),
            GRAMMAR,
        )
        .map(|w| Arc::new(Chess { width: w as u32 }) as Arc<dyn Game>),
    )
}

/// A row of `width` cells; the table has 2^width entries, one per bitmask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chess {
    pub width: u32,
}

impl Game for Chess {
    fn family(&self) -> &'static Family {
        &FAMILY
    }

    fn canonical(&self) -> String {
        format!("chess:{}", self.width)
    }

    fn len(&self) -> u64 {
        1 << self.width
    }

    fn positions(&self) -> Positions {
        Positions::Row { width: self.width }
    }

    fn reference(&self, progress: &Progress) -> Result<Packed, super::GameError> {
        Ok(Packed::from_values(&reference(self.width, progress)))
    }

    fn moves(&self) -> Option<&dyn super::Moves> {
        Some(self)
    }

    fn with_size(&self, width: u64) -> Option<Arc<dyn Game>> {
        (1..=MAX_WIDTH as u64)
            .contains(&width)
            .then(|| Arc::new(Chess { width: width as u32 }) as Arc<dyn Game>)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A row as its options, the row bitmask its index: what the generic engine reads.
impl super::Moves for Chess {
    fn count(&self) -> u64 {
        1 << self.width
    }

    fn options(&self, row: u64, f: &mut dyn FnMut(&[u64])) {
        for next in options(row as u32) {
            f(&[next as u64]);
        }
    }
}

/// The row reached by moving the chip on `bit`, or `None` if no cell to its right is empty.
/// `bit` must hold a chip.
pub fn move_chip(row: u32, bit: u32) -> Option<u32> {
    debug_assert!(row >> bit & 1 == 1);
    (0..bit).rev().find(|&j| row >> j & 1 == 0).map(|j| row & !(1 << bit) | 1 << j)
}

/// Every row reachable in one move from `row` (a row of at most 32 cells).
pub fn options(row: u32) -> impl Iterator<Item = u32> {
    (0..32).filter(move |&i| row >> i & 1 == 1).filter_map(move |i| move_chip(row, i))
}

/// The row for a set of chip columns (1..=width), as the judge gives them.
pub fn row_from_columns(width: u32, columns: &[u32]) -> u32 {
    columns.iter().fold(0, |row, &p| row | 1 << (width - p))
}

/// Scalar reference: the value of every row of `width` cells, in increasing row order (every
/// option of a row is a smaller row, so it is already known).
pub fn reference(width: u32, progress: &Progress) -> Vec<u8> {
    assert!((1..=32).contains(&width));
    let len = 1u64 << width;
    let mut table = vec![0u8; len as usize];
    for row in 0..len {
        let mut seen = 0u64;
        for next in options(row as u32) {
            seen |= 1 << table[next as usize];
        }
        table[row as usize] = (!seen).trailing_zeros() as u8;
        if row & 0xFFFF == 0xFFFF {
            progress.tick(row + 1, len);
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_jump_over_runs() {
        // columns 18,19 filled, 20 empty in a width-20 row: bits 2,1 set, bit 0 empty.
        assert_eq!(move_chip(0b110, 2), Some(0b011));
        assert_eq!(move_chip(0b110, 1), Some(0b101));
        assert_eq!(move_chip(0b011, 1), None);
        assert_eq!(options(0b1011).collect::<Vec<_>>(), vec![0b0111]);
    }

    #[test]
    fn judge_sample_rows() {
        let t = reference(20, &Progress::silent());
        // 19 and 20 filled: no move at all.
        assert_eq!(t[row_from_columns(20, &[19, 20]) as usize], 0);
        // 19 and 18 as two rows: one chip one step from the edge, one two steps.
        let a = t[row_from_columns(20, &[19]) as usize];
        let b = t[row_from_columns(20, &[18]) as usize];
        assert_ne!(a, b);
    }
}
