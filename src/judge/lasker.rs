//! Nim or not Nim? (HDU 3032): heaps up to 2^31 − 1, far past any table, answered from the
//! rule stored with the `lasker` table (g(n + p) = g(n) + s for n ≥ pre) by the same
//! [`Lookup`] as `sgq sum` (Lasker's Nim, period 4 and saltus 4, takes its offset table). The
//! input is counted cases ([`Counted`]), read by the stream and on every core alike.

use super::Answered;
use super::JudgeError;
use super::input::cases::Counted;
use super::input::mapped::Parallel;
use super::input::mapped::prefix::{Body, Sum};
use super::input::{Buf, Scanner};
use super::lookup::{Lookup, with_value};
use crate::table::Table;
use std::io::{Read, Write};

pub(crate) const MAX_HEAP: u64 = (1 << 31) - 1;

/// The grammar: `T` (1 to 100) cases, each `N` (1 to 10^6) and N heap sizes.
pub(crate) const FORMAT: Counted = Counted {
    cases: (1, 100),
    count: (1, 1_000_000),
    count_name: "the heap count N",
    body_name: "a heap size",
};

/// The lookup for `table`, or why it cannot answer every heap up to 2^31 − 1.
fn lookup(table: &Table) -> Result<Lookup<'_>, JudgeError> {
    let g = Lookup::new(table)?;
    if g.ext.is_none() {
        return Err(JudgeError::Table(format!(
            "table {} has no rule, so it cannot answer heaps beyond its {} entries",
            table.spec, g.len
        )));
    }
    if g.limit < MAX_HEAP {
        return Err(JudgeError::Table(format!(
            "the rule of table {} gives values past 64 bits below heap {MAX_HEAP}",
            table.spec
        )));
    }
    Ok(g)
}

/// The heaps of a case: their range, and each one's value by `value` (the lookup's).
fn heaps(value: impl Fn(u64) -> u64) -> Body<impl Fn(u64) -> Sum> {
    Body { min: 1, max: MAX_HEAP, value: move |h| Sum::of(value(h), false) }
}

/// A case's line: who wins.
fn say(out: &mut impl Write) -> impl FnMut(u64, Sum) -> Answered {
    |_, s| out.write_all(if s.xor != 0 { b"Alice\n" } else { b"Bob\n" }).map_err(JudgeError::from)
}

pub fn answer(
    table: &Table,
    input: &mut Scanner<impl Read, impl Buf>,
    out: &mut impl Write,
) -> Answered {
    let g = lookup(table)?;
    with_value!(&g, |value| FORMAT.answer_stream(&heaps(value), None, input, &mut say(out)))
}

/// The same answers for an input all in memory, on `par.threads` threads.
pub fn answer_bytes(table: &Table, data: &[u8], par: Parallel, out: &mut impl Write) -> Answered {
    let g = lookup(table)?;
    with_value!(&g, |value| FORMAT.answer_mapped(&heaps(value), None, data, par, &mut say(out)))
}
