//! S-Nim (HDU 1536): the move set comes with each case, so its table is built here, in
//! process, with the same scalar reference `sgtab` uses for `sub:` tables.

use super::input::{Buf, Scanner};
use super::JudgeError;
use crate::games::sub;
use std::io::{Read, Write};

const MAX_K: u64 = 100;
const MAX_MOVE: u64 = 10_000;
const MAX_M: u64 = 100;
const MAX_L: u64 = 100;
const MAX_HEAP: u64 = 10_000;

pub fn answer(input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Result<(), JudgeError> {
    let mut moves = Vec::new();
    let mut line = Vec::new();
    for case in 1u64.. {
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
