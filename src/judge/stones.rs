//! Taking stones with moves of 1, 3 or 9 (Nowcoder 122 B): pairs of heaps until the end of the
//! input, answered from the `sub:1,3,9` table. Messages count pairs, not lines (a pair may span
//! lines, or share one), and the position before each says the line.
//!
//! The grammar is written once (`pairs`), over [`Numbers`]: the streaming scanner, or the
//! tokens of an input in memory read on every core ([`tokens::read`]).

use super::Answered;
use super::JudgeError;
use super::input::mapped::Parallel;
use super::input::mapped::tokens;
use super::input::{Buf, Numbers, Scanner};
use crate::table::Table;
use std::io::{Read, Write};

const MAX_HEAP: u64 = 100;

pub fn answer(
    table: &Table,
    input: &mut Scanner<impl Read, impl Buf>,
    out: &mut impl Write,
) -> Answered {
    pairs(table, input, out)
}

/// The same answers for an input all in memory, its tokens read on `par.threads` threads.
pub fn answer_bytes(table: &Table, data: &[u8], par: Parallel, out: &mut impl Write) -> Answered {
    tokens::read(data, 0, par, MAX_HEAP as u16, |input| pairs(table, input, out))
}

/// Every pair to the end of the input.
fn pairs(table: &Table, input: &mut impl Numbers, out: &mut impl Write) -> Answered {
    let value = |n: u64| {
        table.value(n).ok_or_else(|| {
            JudgeError::Table(format!("table {} holds no value for a heap of {n}", table.spec))
        })
    };
    // The values of heaps 1..=MAX_HEAP, looked up once.
    let values = (1..=MAX_HEAP).map(value).collect::<Result<Vec<u64>, _>>()?;
    for case in 1.. {
        let Some(n1) =
            input.next_in(1, MAX_HEAP, &format_args!("the first heap n1 of pair {case}"))?
        else {
            return Ok(());
        };
        let n2 = input.next(1, MAX_HEAP, &format_args!("the second heap n2 of pair {case}"))?;
        out.write_all(if values[n1 as usize - 1] ^ values[n2 as usize - 1] != 0 {
            b"win\n"
        } else {
            b"lose\n"
        })?;
    }
    Ok(())
}
