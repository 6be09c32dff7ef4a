//! Chess (HDU 5724): rows of 20 columns, answered from the `chess:20` table.
//!
//! The grammar is written once (`cases`), over [`Numbers`]: the streaming scanner, or the
//! tokens of an input in memory read on every core ([`tokens::read`]).

use super::Answered;
use super::input::mapped::Parallel;
use super::input::mapped::tokens;
use super::input::{Buf, Numbers, Scanner};
use crate::games::chess::row_from_columns;
use crate::table::Table;
use std::io::{Read, Write};

pub(crate) const WIDTH: u32 = 20;
pub(crate) const MAX_ROWS: u64 = 1000;

pub fn answer(
    table: &Table,
    input: &mut Scanner<impl Read, impl Buf>,
    out: &mut impl Write,
) -> Answered {
    let count = input.next(0, u64::MAX, &"the case count T")?;
    cases(table, input, out, count)
}

/// The same answers for an input all in memory, its tokens read on `par.threads` threads. The
/// case count T (any u64, past the tokens' bound) is read first, on its own.
pub fn answer_bytes(table: &Table, data: &[u8], par: Parallel, out: &mut impl Write) -> Answered {
    let mut head = Scanner::over(data, 0, 0, 0);
    let count = head.next(0, u64::MAX, &"the case count T")?;
    tokens::read(data, head.offset() as usize, par, MAX_ROWS as u16, |input| {
        cases(table, input, out, count)
    })
}

/// The `count` cases and the check that nothing follows them.
fn cases(table: &Table, input: &mut impl Numbers, out: &mut impl Write, count: u64) -> Answered {
    let values = &table.values;
    let mut masks = Vec::with_capacity(MAX_ROWS as usize);
    for case in 1..=count {
        let n = input.next(1, MAX_ROWS, &format_args!("the row count n of case {case}"))?;
        masks.clear();
        for row in 1..=n {
            let m = input.next(
                0,
                WIDTH as u64,
                &format_args!("the chip count of row {row} in case {case}"),
            )?;
            let mut mask = 0u32;
            for _ in 0..m {
                let p = input.next(
                    1,
                    WIDTH as u64,
                    &format_args!("a chip column in row {row} of case {case}"),
                )? as u32;
                let bit = row_from_columns(WIDTH, &[p]);
                if mask & bit != 0 {
                    return Err(input
                        .error_at_last(format!(
                            "column {p} is given twice in row {row} of case {case}"
                        ))
                        .into());
                }
                mask |= bit;
            }
            masks.push(mask);
        }
        // The rows first, then their values: the table lookups (random reads of a table larger
        // than a core's cache) then overlap instead of waiting on each row's parse.
        let x = masks.iter().fold(0, |x, &mask| x ^ values.get(mask as u64));
        out.write_all(if x != 0 { b"YES\n" } else { b"NO\n" })?;
    }
    input.expect_end(&format!("the {count} cases"))?;
    Ok(())
}
