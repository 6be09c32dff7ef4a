//! Chess (HDU 5724): rows of 20 columns, answered from the `chess:20` table.

use super::input::{Buf, Scanner};
use super::JudgeError;
use crate::games::chess::row_from_columns;
use crate::table::Table;
use std::io::{Read, Write};

const WIDTH: u32 = 20;
const MAX_ROWS: u64 = 1000;

pub fn answer(table: &Table, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Result<(), JudgeError> {
    let values = &table.values;
    let cases = input.next(0, u64::MAX, &"the case count T")?;
    for case in 1..=cases {
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
