//! A Funny Stone Game (UVa 1378): each stone is worth the `funny` table's value for the number
//! of piles to its right; the answer is the lexicographically first winning move.

use super::JudgeError;
use super::input::{Buf, Scanner};
use super::parallel::Parallel;
use super::tokens::{self, END, Walked};
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
    (0..n).filter(|&i| counts[i] > 0).find_map(|i| (i + 1..n).find_map(|j| (j..n).find(|&k| total ^ right(i) ^ right(j) ^ right(k) == 0).map(|k| (i, j, k))))
}

/// The stone values g(0..MAX_PILES) of the table, or why it cannot give them.
fn stone_values(table: &Table) -> Result<Vec<u64>, JudgeError> {
    if table.values.len() < MAX_PILES {
        return Err(JudgeError::Table(format!("table {} is too short: the judge needs {MAX_PILES} entries", table.spec)));
    }
    Ok((0..MAX_PILES).map(|r| table.values.get(r) as u64).collect())
}

/// A game's output line.
fn say(out: &mut impl Write, case: u64, counts: &[u64], g: &[u64]) -> Result<(), JudgeError> {
    match winning_move(counts, g) {
        Some((i, j, k)) => writeln!(out, "Game {case}: {i} {j} {k}")?,
        None => writeln!(out, "Game {case}: -1 -1 -1")?,
    }
    Ok(())
}

pub fn answer(table: &Table, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Result<(), JudgeError> {
    answer_from(&stone_values(table)?, input, out, 1)
}

/// Games from `from` on, up to the closing 0 and the check that nothing follows it.
fn answer_from(g: &[u64], input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write, from: u64) -> Result<(), JudgeError> {
    let mut counts = Vec::new();
    for case in from.. {
        let n = input.next(0, MAX_PILES, &format_args!("the pile count n of game {case} (0 ends the input)"))?;
        if n == 0 {
            input.expect_end("the closing 0")?;
            return Ok(());
        }
        counts.clear();
        for pile in 0..n {
            counts.push(input.next(0, MAX_STONES, &format_args!("the stone count of pile {pile} in game {case}"))?);
        }
        say(out, case, &counts, g)?;
    }
    unreachable!()
}

/// Games read by the walk, answered together on a worker thread: their first game's number,
/// and each game's pile count and stone counts.
struct Games {
    first: u64,
    piles: Vec<u8>,
    counts: Vec<u64>,
}

/// Games a batch (a few hundred KiB of output at most).
const BATCH: usize = 4096;

/// The output lines of a batch of games.
fn answer_games(games: Games, g: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(games.piles.len() * 24);
    let mut counts = games.counts.as_slice();
    for (case, &n) in (games.first..).zip(&games.piles) {
        let (these, rest) = counts.split_at(n as usize);
        // Writing to a Vec cannot fail.
        let _ = say(&mut out, case, these, g);
        counts = rest;
    }
    out
}

/// The same answers for an input all in memory: its tokens read on `par.threads` threads
/// ([`tokens`]) and walked here in order, the games answered in batches on `par.threads`
/// threads (finding a winning move is most of the work) and written in order. Anything the
/// walk does not expect hands over to `answer_from` at the start of its game, after the
/// lines of the games before it.
pub fn answer_bytes(table: &Table, data: &[u8], par: Parallel, out: &mut impl Write) -> Result<(), JudgeError> {
    let g = stone_values(table)?;
    let answer = |games: Games| answer_games(games, &g);
    let walked = tokens::walk(data, 0, par, MAX_STONES as u16, |t| {
        tokens::ordered(par.threads, &answer, |batches| {
            let mut games = Games { first: 1, piles: Vec::with_capacity(BATCH), counts: Vec::new() };
            let mut stop = None;
            for case in 1u64.. {
                let start = t.index();
                let n = t.read();
                if n == 0 {
                    // Nothing may follow the closing 0: if something does, the streaming path
                    // reads the 0 again and says so.
                    stop = (t.read() != END).then_some((case, start));
                    break;
                }
                let before = games.counts.len();
                if n > MAX_PILES as u16
                    || !(0..n).all(|_| {
                        let c = t.read();
                        games.counts.push(c as u64);
                        c <= MAX_STONES as u16
                    })
                {
                    games.counts.truncate(before);
                    stop = Some((case, start));
                    break;
                }
                games.piles.push(n as u8);
                if games.piles.len() == BATCH {
                    if batches.in_flight() >= batches.window {
                        out.write_all(&batches.recv().unwrap_or_default())?;
                    }
                    let next = Games { first: case + 1, piles: Vec::with_capacity(BATCH), counts: Vec::new() };
                    batches.send(std::mem::replace(&mut games, next));
                }
            }
            batches.send(games);
            while let Some(lines) = batches.recv() {
                out.write_all(&lines)?;
            }
            Ok(stop)
        })
    })?;
    match walked {
        Walked::Done => Ok(()),
        Walked::Resume { case, offset } => answer_from(&g, &mut Scanner::resume(data, offset), out, case),
    }
}
