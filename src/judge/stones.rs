//! Taking stones with moves of 1, 3 or 9 (Nowcoder 122 B): pairs of heaps until the end of the
//! input, answered from the `sub:1,3,9` table. Messages count pairs, not lines (a pair may span
//! lines, or share one), and the position before each says the line.

use super::JudgeError;
use super::input::{Buf, Scanner};
use super::parallel::Parallel;
use super::tokens::{self, END, Walked};
use crate::table::Table;
use std::io::{Read, Write};

const MAX_HEAP: u64 = 100;

pub fn answer(table: &Table, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Result<(), JudgeError> {
    answer_from(table, input, out, 1)
}

/// Pairs from `from` on, to the end of the input.
fn answer_from(table: &Table, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write, from: u64) -> Result<(), JudgeError> {
    let value = |n: u64| table.value(n).ok_or_else(|| JudgeError::Table(format!("table {} holds no value for a heap of {n}", table.spec)));
    for case in from.. {
        let Some(n1) = input.next_in(1, MAX_HEAP, &format_args!("the first heap n1 of pair {case}"))? else {
            return Ok(());
        };
        let n2 = input.next(1, MAX_HEAP, &format_args!("the second heap n2 of pair {case}"))?;
        out.write_all(if value(n1)? ^ value(n2)? != 0 { b"win\n" } else { b"lose\n" })?;
    }
    unreachable!()
}

/// The same answers for an input all in memory, its tokens read on `par.threads` threads
/// ([`tokens`]) and walked here in pairs; anything the walk does not expect (a heap out of
/// range, one the table holds no value for, an odd last token) hands over to `answer_from`
/// at that pair.
pub fn answer_bytes(table: &Table, data: &[u8], par: Parallel, out: &mut impl Write) -> Result<(), JudgeError> {
    // The value of every token: heaps 1..=MAX_HEAP that the table holds, else NONE (heap 0,
    // one out of range or with no value, an odd token, the end).
    const NONE: u64 = u64::MAX;
    let mut values = vec![NONE; 1 << 16];
    for n in 1..=MAX_HEAP {
        values[n as usize] = table.value(n).unwrap_or(NONE);
    }
    // The answers go out through a buffer of their own: a line is a few bytes.
    let mut lines = Vec::with_capacity(1 << 16);
    let walked = tokens::walk(data, 0, par, MAX_HEAP as u16, |t| {
        let mut case = 1u64;
        loop {
            // The whole pairs in this piece, read in place.
            let rest = t.rest();
            let pairs = rest.len() / 2;
            let mut done = 0;
            for pair in rest[..2 * pairs].chunks_exact(2) {
                let (g1, g2) = (values[pair[0] as usize], values[pair[1] as usize]);
                if g1 == NONE || g2 == NONE {
                    break;
                }
                lines.extend_from_slice(if g1 ^ g2 != 0 { b"win\n" } else { b"lose\n" });
                done += 1;
            }
            t.skip(2 * done);
            case += done as u64;
            if lines.len() > 60_000 {
                out.write_all(&lines)?;
                lines.clear();
            }
            if done == pairs {
                // A pair that runs into the next piece, or the end.
                let start = t.index();
                let n1 = t.read();
                if n1 == END {
                    break Ok(None);
                }
                let (g1, g2) = (values[n1 as usize], values[t.read() as usize]);
                if g1 == NONE || g2 == NONE {
                    break Ok(Some((case, start)));
                }
                lines.extend_from_slice(if g1 ^ g2 != 0 { b"win\n" } else { b"lose\n" });
                case += 1;
            } else {
                break Ok(Some((case, t.index())));
            }
        }
    });
    out.write_all(&lines)?;
    let walked = walked?;
    match walked {
        Walked::Done => Ok(()),
        Walked::Resume { case, offset } => answer_from(table, &mut Scanner::resume(data, offset), out, case),
    }
}
