//! S-Nim (HDU 1536): the move set comes with each case, so its table is built here, in
//! process: 10 001 values from up to 100 moves, most of the work of an answer. [`table`]
//! builds it with a bit set for the mex (a value is at most k ≤ 100, so 128 bits hold the
//! values seen), held equal to the scalar reference `sgtab` uses for `sub:` tables by a test.

use super::Answered;
use super::JudgeError;
use super::input::cases::answer_cases;
use super::input::mapped::Parallel;
use super::input::mapped::tokens;
use super::input::{Buf, Numbers, Scanner};
use std::io::{Read, Write};

const MAX_K: u64 = 100;
const MAX_MOVE: u64 = 10_000;
pub(crate) const MAX_M: u64 = 100;
const MAX_L: u64 = 100;
const MAX_HEAP: u64 = 10_000;

/// The values of heaps 0..=MAX_HEAP with the moves in `moves` (1..=MAX_MOVE each; sorted and
/// deduplicated here). The value of a heap is the mex of at most k ≤ 100 values, so it is at
/// most k: a bit set holds the values seen (a `u64` when k < 64, else a `u128`), and the mex
/// is its first clear bit. Moves are sorted, so the moves that fit a heap are a prefix of them.
pub fn table(moves: &mut Vec<u32>) -> Vec<u8> {
    moves.sort_unstable();
    moves.dedup();
    if moves.len() < 64 { table_in::<u64>(moves) } else { table_in::<u128>(moves) }
}

/// A bit set of values below its width.
trait Bits: Copy + std::ops::BitOr<Output = Self> + std::ops::Not<Output = Self> {
    const NONE: Self;
    fn bit(v: u8) -> Self;
    fn first(self) -> u8;
}

/// [`Bits`] for an unsigned integer type of `$t::BITS` bits.
macro_rules! bits {
    ($t:ty) => {
        impl Bits for $t {
            const NONE: $t = 0;
            #[inline(always)]
            fn bit(v: u8) -> $t {
                1 << (v as u32 & (<$t>::BITS - 1))
            }
            #[inline(always)]
            fn first(self) -> u8 {
                self.trailing_zeros() as u8
            }
        }
    };
}
bits!(u64);
bits!(u128);

fn table_in<B: Bits>(moves: &[u32]) -> Vec<u8> {
    let mut values = vec![0u8; MAX_HEAP as usize + 1];
    let mut fit = 0;
    for h in 0..values.len() {
        while fit < moves.len() && moves[fit] as usize <= h {
            fit += 1;
        }
        let seen =
            moves[..fit].iter().fold(B::NONE, |seen, &s| seen | B::bit(values[h - s as usize]));
        values[h] = (!seen).first();
    }
    values
}

pub fn answer(input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Answered {
    answer_cases(input, 1, 1, out, read_case, &answer_case)
}

/// The same answers for an input all in memory: its tokens read on `par.threads` threads, and
/// each case's table (most of the work: 10 001 values from up to 100 moves) built and its
/// positions answered on `par.threads` threads too, the lines written in order.
pub fn answer_bytes(data: &[u8], par: Parallel, out: &mut impl Write) -> Answered {
    tokens::read(data, 0, par, MAX_HEAP as u16, |input| {
        answer_cases(input, par.threads, 1, out, read_case, &answer_case)
    })
}

/// A case: its move set, and its positions (heap counts, then all heaps).
struct Case {
    moves: Vec<u32>,
    counts: Vec<u16>,
    heaps: Vec<u16>,
}

/// Case `case`, or `None` at the closing 0 (nothing may follow it). The grammar, for both paths.
fn read_case(input: &mut impl Numbers, case: u64) -> Result<Option<Case>, JudgeError> {
    let k =
        input.next(0, MAX_K, &format_args!("the set size k of case {case} (0 ends the input)"))?;
    if k == 0 {
        input.expect_end("the closing 0")?;
        return Ok(None);
    }
    let mut c =
        Case { moves: Vec::with_capacity(k as usize), counts: Vec::new(), heaps: Vec::new() };
    for _ in 0..k {
        c.moves.push(
            input.next(1, MAX_MOVE, &format_args!("a move of the set in case {case}"))? as u32
        );
    }
    let m = input.next(1, MAX_M, &format_args!("the position count m of case {case}"))?;
    for position in 1..=m {
        let l = input.next(
            1,
            MAX_L,
            &format_args!("the heap count of position {position} in case {case}"),
        )?;
        c.counts.push(l as u16);
        let what = format_args!("a heap size in position {position} of case {case}");
        input.fold(l, 0, MAX_HEAP, &what, (), |(), h| c.heaps.push(h as u16))?;
    }
    Ok(Some(c))
}

/// A case's output line: its table built, its positions looked up.
fn answer_case(_: u64, case: &Case, out: &mut Vec<u8>) {
    let mut moves = case.moves.clone();
    let table = table(&mut moves);
    let mut heaps = case.heaps.iter();
    for &l in &case.counts {
        let x = heaps.by_ref().take(l as usize).fold(0, |x, &h| x ^ table[h as usize]);
        out.push(if x != 0 { b'W' } else { b'L' });
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::sub;

    #[test]
    fn table_agrees_with_the_reference() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        // Sets of every size, small moves (values up to 100) and large ones, repeats, unsorted.
        let mut sets: Vec<Vec<u32>> = vec![
            vec![1],
            vec![10_000],
            (1..=100).collect(),
            (1..=100).rev().collect(),
            vec![2, 2, 3, 3],
        ];
        for _ in 0..40 {
            let k = 1 + next(100);
            let span = [10, 200, 10_000][next(3) as usize];
            sets.push((0..k).map(|_| 1 + next(span) as u32).collect());
        }
        for mut moves in sets {
            let mut sorted = moves.clone();
            sorted.sort_unstable();
            sorted.dedup();
            let want: Vec<u8> = sub::reference(&sorted, MAX_HEAP + 1)
                .into_iter()
                .map(|v| u8::try_from(v).unwrap())
                .collect();
            assert_eq!(table(&mut moves), want, "moves {sorted:?}");
        }
    }
}
