//! Nim or not Nim? (HDU 3032): heaps up to 2^31 − 1, far past any table, answered from the
//! rule stored with the `lasker` table (g(n + p) = g(n) + s for n ≥ pre) by the same
//! [`Lookup`] as `sgq sum` (Lasker's Nim, period 4 and saltus 4, takes its offset table).

use super::JudgeError;
use super::input::{Buf, Scanner};
use super::lookup::{Lookup, with_value};
use super::parallel::{self, Body, Cases, Parallel, Sum, Walked};
use crate::table::Table;
use std::io::{Read, Write};

const MAX_CASES: u64 = 100;
const MAX_HEAPS: u64 = 1_000_000;
const MAX_HEAP: u64 = (1 << 31) - 1;

/// The lookup for `table`, or why it cannot answer every heap up to 2^31 − 1.
fn lookup(table: &Table) -> Result<Lookup<'_>, JudgeError> {
    let g = Lookup::new(table)?;
    if g.ext.is_none() {
        return Err(JudgeError::Table(format!("table {} has no rule, so it cannot answer heaps beyond its {} entries", table.spec, g.len)));
    }
    if g.limit < MAX_HEAP {
        return Err(JudgeError::Table(format!("the rule of table {} gives values past 64 bits below heap {MAX_HEAP}", table.spec)));
    }
    Ok(g)
}

pub fn answer(table: &Table, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Result<(), JudgeError> {
    let g = lookup(table)?;
    let cases = input.next(1, MAX_CASES, &"the case count T")?;
    answer_from(&g, input, out, cases, 1)
}

/// Cases `from..=cases` of the input and the check that nothing follows them.
fn answer_from(g: &Lookup, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write, cases: u64, from: u64) -> Result<(), JudgeError> {
    for case in from..=cases {
        let n = input.next(1, MAX_HEAPS, &format_args!("the heap count N of case {case}"))?;
        let what = format_args!("a heap size in case {case}");
        let x = with_value!(g, |value| input.fold(n, 1, MAX_HEAP, &what, 0, |x, h| x ^ value(h))?);
        out.write_all(if x != 0 { b"Alice\n" } else { b"Bob\n" })?;
    }
    input.expect_end(&format!("the {cases} cases"))?;
    Ok(())
}

/// The same answers for an input all in memory, on `par.threads` threads ([`parallel::cases`]):
/// heaps are body tokens, a case's count its header.
pub fn answer_bytes(table: &Table, data: &[u8], par: Parallel, out: &mut impl Write) -> Result<(), JudgeError> {
    let g = lookup(table)?;
    let format = Cases { cases: (1, MAX_CASES), count: (1, MAX_HEAPS) };
    let mut say = |_, s: Sum| out.write_all(if s.xor != 0 { b"Alice\n" } else { b"Bob\n" }).map_err(JudgeError::from);
    let walked = with_value!(&g, |value| {
        let body = Body { min: 1, max: MAX_HEAP, value: move |h| Sum::of(value(h), false) };
        parallel::cases(data, par, format, &body, &mut say)?
    });
    match walked {
        Walked::Done => Ok(()),
        Walked::Resume { at: None, offset } => answer(table, &mut Scanner::resume(data, offset), out),
        Walked::Resume { at: Some((cases, from)), offset } => answer_from(&g, &mut Scanner::resume(data, offset), out, cases, from),
    }
}
