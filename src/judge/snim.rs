//! S-Nim (HDU 1536): the move set comes with each case, so its table is built here, in
//! process, with the same scalar reference `sgtab` uses for `sub:` tables.

use super::input::{Buf, Scanner};
use super::parallel::Parallel;
use super::tokens::{self, Walked, END};
use super::JudgeError;
use crate::games::sub;
use std::io::{Read, Write};

const MAX_K: u64 = 100;
const MAX_MOVE: u64 = 10_000;
const MAX_M: u64 = 100;
const MAX_L: u64 = 100;
const MAX_HEAP: u64 = 10_000;

pub fn answer(input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Result<(), JudgeError> {
    answer_from(input, out, 1)
}

/// Cases from `from` on, up to the closing 0 and the check that nothing follows it.
fn answer_from(input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write, from: u64) -> Result<(), JudgeError> {
    let mut moves = Vec::new();
    let mut line = Vec::new();
    for case in from.. {
        let k = input.next(0, MAX_K, &format_args!("the set size k of case {case} (0 ends the input)"))?;
        if k == 0 {
            input.expect_end("the closing 0")?;
            return Ok(());
        }
        moves.clear();
        for _ in 0..k {
            moves.push(input.next(1, MAX_MOVE, &format_args!("a move of the set in case {case}"))? as u32);
        }
        moves.sort_unstable();
        moves.dedup();
        let table = sub::reference(&moves, MAX_HEAP + 1);
        let m = input.next(1, MAX_M, &format_args!("the position count m of case {case}"))?;
        line.clear();
        for position in 1..=m {
            let l = input.next(1, MAX_L, &format_args!("the heap count of position {position} in case {case}"))?;
            let what = format_args!("a heap size in position {position} of case {case}");
            let x = input.fold(l, 0, MAX_HEAP, &what, 0, |x, h| x ^ table[h as usize])?;
            line.push(if x != 0 { b'W' } else { b'L' });
        }
        line.push(b'\n');
        out.write_all(&line)?;
    }
    unreachable!()
}

/// A case read by the walk: its move set, and its positions (heap counts, then all heaps).
struct Case {
    moves: Vec<u32>,
    counts: Vec<u16>,
    heaps: Vec<u16>,
}

/// A case's output line: its table built, its positions looked up.
fn answer_case(mut case: Case) -> Vec<u8> {
    case.moves.sort_unstable();
    case.moves.dedup();
    let table = sub::reference(&case.moves, MAX_HEAP + 1);
    let mut heaps = case.heaps.iter();
    let mut line: Vec<u8> = case.counts.iter().map(|&l| {
        let x = heaps.by_ref().take(l as usize).fold(0, |x, &h| x ^ table[h as usize]);
        if x != 0 { b'W' } else { b'L' }
    }).collect();
    line.push(b'\n');
    line
}

/// The same answers for an input all in memory: its tokens read on `par.threads` threads
/// ([`tokens`]) and walked here in order; each case's table (most of the work: 10 001 values
/// from up to 100 moves) is built and its positions answered on `par.threads` threads too, and
/// the lines written in order. Anything the walk does not expect hands over to
/// [`answer_from`] at the start of its case, after the lines of the cases before it.
pub fn answer_bytes(data: &[u8], par: Parallel, out: &mut impl Write) -> Result<(), JudgeError> {
    let walked = tokens::walk(data, 0, par, MAX_HEAP as u16, |t| {
        tokens::ordered(par.threads, &answer_case, |cases| {
            let mut stop = None;
            for case in 1u64.. {
                let start = t.index();
                let k = t.next();
                if k == 0 {
                    // Nothing may follow the closing 0: if something does, the walk hands over
                    // at the 0, and the streaming path reads it and says so.
                    stop = (t.next() != END).then_some((case, start));
                    break;
                }
                let mut c = Case { moves: Vec::with_capacity(k as usize), counts: Vec::new(), heaps: Vec::new() };
                let ok = k <= MAX_K as u16
                    && (0..k).all(|_| {
                        let v = t.next();
                        c.moves.push(v as u32);
                        (1..=MAX_MOVE as u16).contains(&v)
                    });
                let m = if ok { t.next() } else { 0 };
                let ok = ok
                    && (1..=MAX_M as u16).contains(&m)
                    && (0..m).all(|_| {
                        let l = t.next();
                        c.counts.push(l);
                        (1..=MAX_L as u16).contains(&l)
                            && (0..l).all(|_| {
                                let h = t.next();
                                c.heaps.push(h);
                                h <= MAX_HEAP as u16
                            })
                    });
                if !ok {
                    stop = Some((case, start));
                    break;
                }
                if cases.in_flight() >= cases.window {
                    out.write_all(&cases.recv().unwrap_or_default())?;
                }
                cases.send(c);
            }
            while let Some(line) = cases.recv() {
                out.write_all(&line)?;
            }
            Ok(stop)
        })
    })?;
    match walked {
        Walked::Done => Ok(()),
        Walked::Resume { case, offset } => answer_from(&mut Scanner::resume(data, offset), out, case),
    }
}
