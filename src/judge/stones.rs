//! Taking stones with moves of 1, 3 or 9 (Nowcoder 122 B): pairs of heaps until the end of the
//! input, answered from the `sub:1,3,9` table. Messages count pairs, not lines (a pair may span
//! lines, or share one), and the position before each says the line.

use super::input::{Buf, Scanner};
use super::JudgeError;
use crate::table::Table;
use std::io::{Read, Write};

const MAX_HEAP: u64 = 100;

pub fn answer(table: &Table, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Result<(), JudgeError> {
    let value = |n: u64| {
        table.value(n).ok_or_else(|| JudgeError::Table(format!("table {} holds no value for a heap of {n}", table.spec)))
    };
    for case in 1u64.. {
        let Some(n1) = input.next_in(1, MAX_HEAP, &format_args!("the first heap n1 of pair {case}"))? else {
            return Ok(());
        };
        let n2 = input.next(1, MAX_HEAP, &format_args!("the second heap n2 of pair {case}"))?;
        out.write_all(if value(n1)? ^ value(n2)? != 0 { b"win\n" } else { b"lose\n" })?;
    }
    unreachable!()
}
