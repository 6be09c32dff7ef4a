//! A Funny Stone Game (UVa 1378): each stone is worth the `funny` table's value for the number
//! of piles to its right; the answer is the lexicographically first winning move.

use super::input::{Buf, Scanner};
use super::JudgeError;
use crate::table::Table;
use std::io::{Read, Write};

const MAX_PILES: u64 = 23;
const MAX_STONES: u64 = 1000;

/// The first move (i, j, k) that leaves a position of value 0, if the position is won.
/// `counts[i]` is pile i's stone count and `g[r]` a stone's value with r piles to its right.
pub fn winning_move(counts: &[u64], g: &[u64]) -> Option<(usize, usize, usize)> {
    let n = counts.len();
    let right = |i: usize| g[n - 1 - i];
    let total = (0..n).filter(|&i| counts[i] % 2 == 1).fold(0, |x, i| x ^ right(i));
    if total == 0 {
        return None;
    }
    (0..n).filter(|&i| counts[i] > 0).find_map(|i| {
        (i + 1..n).find_map(|j| (j..n).find(|&k| total ^ right(i) ^ right(j) ^ right(k) == 0).map(|k| (i, j, k)))
    })
}

pub fn answer(table: &Table, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Result<(), JudgeError> {
    if table.values.len() < MAX_PILES {
        return Err(JudgeError::Table(format!("table {} is too short: the judge needs {MAX_PILES} entries", table.spec)));
    }
    let g: Vec<u64> = (0..MAX_PILES).map(|r| table.values.get(r) as u64).collect();
    let mut counts = Vec::new();
    for case in 1u64.. {
        let n = input.next(0, MAX_PILES, &format_args!("the pile count n of game {case} (0 ends the input)"))?;
        if n == 0 {
            input.expect_end("the closing 0")?;
            return Ok(());
        }
        counts.clear();
        for pile in 0..n {
            counts.push(input.next(0, MAX_STONES, &format_args!("the stone count of pile {pile} in game {case}"))?);
        }
        match winning_move(&counts, &g) {
            Some((i, j, k)) => writeln!(out, "Game {case}: {i} {j} {k}")?,
            None => writeln!(out, "Game {case}: -1 -1 -1")?,
        }
    }
    unreachable!()
}
