//! Chess (HDU 5724): rows of 20 columns, answered from the `chess:20` table.

use super::JudgeError;
use super::input::{Buf, Scanner};
use super::parallel::Parallel;
use super::tokens::{self, END, Walked};
use crate::games::chess::row_from_columns;
use crate::table::Table;
use std::io::{Read, Write};

const WIDTH: u32 = 20;
const MAX_ROWS: u64 = 1000;

pub fn answer(table: &Table, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Result<(), JudgeError> {
    let cases = input.next(0, u64::MAX, &"the case count T")?;
    answer_from(table, input, out, cases, 1)
}

/// Cases `from..=cases` of the input and the check that nothing follows them.
fn answer_from(table: &Table, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write, cases: u64, from: u64) -> Result<(), JudgeError> {
    let values = &table.values;
    for case in from..=cases {
        let n = input.next(1, MAX_ROWS, &format_args!("the row count n of case {case}"))?;
        let mut x = 0;
        for row in 1..=n {
            let m = input.next(0, WIDTH as u64, &format_args!("the chip count of row {row} in case {case}"))?;
            let mut mask = 0u32;
            for _ in 0..m {
                let p = input.next(1, WIDTH as u64, &format_args!("a chip column in row {row} of case {case}"))? as u32;
                let bit = row_from_columns(WIDTH, &[p]);
                if mask & bit != 0 {
                    return Err(input.error_at_last(format!("column {p} is given twice in row {row} of case {case}")).into());
                }
                mask |= bit;
            }
            x ^= values.get(mask as u64);
        }
        out.write_all(if x != 0 { b"YES\n" } else { b"NO\n" })?;
    }
    input.expect_end(&format!("the {cases} cases"))?;
    Ok(())
}

/// The same answers for an input all in memory, its tokens read on `par.threads` threads
/// ([`tokens`]) and walked here in order. The case count T (any u64) is read first, on its own;
/// anything the walk does not expect hands over to `answer_from` at the start of its case.
pub fn answer_bytes(table: &Table, data: &[u8], par: Parallel, out: &mut impl Write) -> Result<(), JudgeError> {
    let mut head = Scanner::over(data, 0, 0, 0);
    let Ok(Some(cases)) = head.next_in(0, u64::MAX, &"the case count T") else {
        return answer(table, &mut Scanner::over(data, 0, 0, 0), out);
    };
    let values = &table.values;
    // The bit of each column 1..=WIDTH, at index column − 1.
    let bits: [u32; WIDTH as usize] = std::array::from_fn(|c| row_from_columns(WIDTH, &[c as u32 + 1]));
    let mut masks = Vec::with_capacity(MAX_ROWS as usize);
    let walked = tokens::walk(data, head.offset() as usize, par, MAX_ROWS as u16, |t| {
        for case in 1..=cases {
            let start = t.index();
            let n = t.read();
            if !(1..=MAX_ROWS as u16).contains(&n) {
                return Ok(Some((case, start)));
            }
            // The rows first, then their values: the table lookups (random reads of a table
            // larger than a core's cache) then overlap instead of waiting on each row's parse.
            masks.clear();
            for _ in 0..n {
                let Some(mask) = row(t, &bits) else { return Ok(Some((case, start))) };
                masks.push(mask);
            }
            let x = masks.iter().fold(0, |x, &mask| x ^ values.get(mask as u64));
            out.write_all(if x != 0 { b"YES\n" } else { b"NO\n" })?;
        }
        let start = t.index();
        Ok((t.read() != END).then_some((cases + 1, start)))
    })?;
    match walked {
        Walked::Done => Ok(()),
        Walked::Resume { case, offset } => answer_from(table, &mut Scanner::resume(data, offset), out, cases, case),
    }
}

/// The next row of the walk as a mask, `None` if it is not a valid row (a count past WIDTH, a
/// column out of 1..=WIDTH or given twice, an odd token, the end).
#[inline(always)]
fn row(t: &mut tokens::Tokens, bits: &[u32; WIDTH as usize]) -> Option<u32> {
    let rest = t.rest();
    if let Some(&m) = rest.first().filter(|&&m| m <= WIDTH as u16 && (m as usize) < rest.len()) {
        // The whole row is in this piece: no branch per column. Column c is bit WIDTH − c
        // (as `row_from_columns` puts it); a shift of WIDTH or more marks a column out of
        // range, a bit already set a repeated column.
        let (mut mask, mut bad) = (0u32, false);
        for &c in &rest[1..=m as usize] {
            let shift = (WIDTH as u16).wrapping_sub(c);
            let bit = 1 << (shift & 31);
            bad |= shift >= WIDTH as u16 || mask & bit != 0;
            mask |= bit;
        }
        t.skip(1 + m as usize);
        return (!bad).then_some(mask);
    }
    // A row that runs into the next piece, token by token.
    let m = t.read();
    if m > WIDTH as u16 {
        return None;
    }
    let mut mask = 0u32;
    for _ in 0..m {
        // Columns 1..=WIDTH; 0, ODD and END wrap past WIDTH − 1.
        let c = t.read().wrapping_sub(1) as usize;
        mask |= *bits.get(c).filter(|&&bit| mask & bit == 0)?;
    }
    Some(mask)
}
