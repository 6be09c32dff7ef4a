//! A Funny Stone Game (UVa 1378): each stone is worth the `funny` table's value for the number
//! of piles to its right; the answer is the lexicographically first winning move.

use super::Answered;
use super::JudgeError;
use super::input::cases::answer_cases;
use super::input::mapped::Parallel;
use super::input::mapped::tokens;
use super::input::{Buf, Numbers, Scanner};
use crate::table::Table;
use std::io::{Read, Write};

pub(crate) const MAX_PILES: u64 = 23;
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
        (i + 1..n).find_map(|j| {
            (j..n).find(|&k| total ^ right(i) ^ right(j) ^ right(k) == 0).map(|k| (i, j, k))
        })
    })
}

/// The stone values g(0..MAX_PILES) of the table, or why it cannot give them.
fn stone_values(table: &Table) -> Result<Vec<u64>, JudgeError> {
    if table.values.len() < MAX_PILES {
        return Err(JudgeError::Table(format!(
            "table {} is too short: the judge needs {MAX_PILES} entries",
            table.spec
        )));
    }
    Ok((0..MAX_PILES).map(|r| table.values.get(r) as u64).collect())
}

/// A game's output line.
fn say(out: &mut impl Write, case: u64, counts: &[u64], g: &[u64]) -> Answered {
    match winning_move(counts, g) {
        Some((i, j, k)) => writeln!(out, "Game {case}: {i} {j} {k}")?,
        None => writeln!(out, "Game {case}: -1 -1 -1")?,
    }
    Ok(())
}

pub fn answer(
    table: &Table,
    input: &mut Scanner<impl Read, impl Buf>,
    out: &mut impl Write,
) -> Answered {
    let g = stone_values(table)?;
    answer_cases(input, 1, 1, out, read_game, &|case, game, out| answer_game(case, game, &g, out))
}

/// Games a batch on the threads (a few hundred KiB of output at most).
const BATCH: usize = 4096;

/// The same answers for an input all in memory: its tokens read on `par.threads` threads, the
/// games answered in batches on `par.threads` threads (finding a winning move is most of the
/// work) and written in order.
pub fn answer_bytes(table: &Table, data: &[u8], par: Parallel, out: &mut impl Write) -> Answered {
    let g = stone_values(table)?;
    let answer = |case, game: &FunnyGame, out: &mut Vec<u8>| answer_game(case, game, &g, out);
    tokens::read(data, 0, par, MAX_STONES as u16, |input| {
        answer_cases(input, par.threads, BATCH, out, read_game, &answer)
    })
}

/// A game: its piles' stone counts.
struct FunnyGame {
    piles: u8,
    counts: [u64; MAX_PILES as usize],
}

/// Game `case`, or `None` at the closing 0 (nothing may follow it). The grammar, for both paths.
fn read_game(input: &mut impl Numbers, case: u64) -> Result<Option<FunnyGame>, JudgeError> {
    let n = input.next(
        0,
        MAX_PILES,
        &format_args!("the pile count n of game {case} (0 ends the input)"),
    )?;
    if n == 0 {
        input.expect_end("the closing 0")?;
        return Ok(None);
    }
    let mut game = FunnyGame { piles: n as u8, counts: [0; MAX_PILES as usize] };
    for pile in 0..n as usize {
        game.counts[pile] = input.next(
            0,
            MAX_STONES,
            &format_args!("the stone count of pile {pile} in game {case}"),
        )?;
    }
    Ok(Some(game))
}

/// A game's output line.
fn answer_game(case: u64, game: &FunnyGame, g: &[u64], out: &mut Vec<u8>) {
    // Writing to a Vec cannot fail.
    let _ = say(out, case, &game.counts[..game.piles as usize], g);
}
