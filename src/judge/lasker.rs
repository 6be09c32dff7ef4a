//! Nim or not Nim? (HDU 3032): heaps up to 2^31 − 1, far past any table, answered from the
//! rule stored with the `lasker` table (g(n + p) = g(n) + s for n ≥ pre).
//!
//! The rule is applied without a division by the run-time period: a power-of-two period is a
//! shift and a mask, any other a multiply by a precomputed reciprocal (exact for n < 2^32).

use super::input::{Buf, Scanner};
use super::parallel::{self, Body, Cases, Parallel, Sum, Walked};
use super::JudgeError;
use crate::table::Table;
use std::io::{Read, Write};

const MAX_CASES: u64 = 100;
const MAX_HEAPS: u64 = 1_000_000;
const MAX_HEAP: u64 = (1 << 31) - 1;

/// g(n) for any n < 2^32, from a table's first values and its rule.
pub struct RuleValue {
    /// g(0 .. pre + period)
    head: Vec<u64>,
    pre: u64,
    saltus: u64,
    split: Split,
}

enum Split {
    /// period = saltus = 2^k ≤ 64 (Lasker's Nim: g(4k + 3) = 4k + 4): then g(n) − n repeats with
    /// the period, and g(n) = n + offset[(n − pre) mod period] (mod 2^64) needs no shift, no
    /// multiply, and no bounds check (the table has 64 entries, indexed below 64).
    Offset { mask: u64, offset: Box<[u64; 64]> },
    /// period = 2^shift
    Pow2 { shift: u32, mask: u64 },
    /// q = (n · magic) >> 64 with magic = ⌈2^64 / period⌉, exact for n < 2^32.
    Magic { magic: u64, period: u64 },
}

impl RuleValue {
    /// The rule's value function, or why the table cannot give one.
    pub fn new(table: &Table) -> Result<RuleValue, String> {
        let rule = table.rule.ok_or_else(|| format!("table {} has no rule, so it cannot answer heaps beyond its {} entries", table.spec, table.values.len()))?;
        let head: Vec<u64> = (0..rule.pre + rule.period).map(|n| table.values.get(n) as u64).collect();
        let p = rule.period;
        let split = if p.is_power_of_two() && p <= 64 && rule.saltus == p {
            let mut offset = Box::new([0u64; 64]);
            for r in 0..p {
                offset[r as usize] = head[(rule.pre + r) as usize].wrapping_sub(rule.pre + r);
            }
            Split::Offset { mask: p - 1, offset }
        } else if p.is_power_of_two() {
            Split::Pow2 { shift: p.trailing_zeros(), mask: p - 1 }
        } else {
            Split::Magic { magic: (u64::MAX / p).wrapping_add(1), period: p }
        };
        Ok(RuleValue { head, pre: rule.pre, saltus: rule.saltus, split })
    }

    /// g(n); n must be below 2^32.
    #[inline]
    pub fn get(&self, n: u64) -> u64 {
        match self.split {
            Split::Offset { mask, ref offset } => self.offset_value(n, mask, offset),
            Split::Pow2 { shift, mask } => self.value(n, |x| (x >> shift, x & mask)),
            Split::Magic { magic, period } => self.value(n, |x| magic_divide(x, magic, period)),
        }
    }

    /// g(n) by [`Split::Offset`].
    #[inline(always)]
    fn offset_value(&self, n: u64, mask: u64, offset: &[u64; 64]) -> u64 {
        if n < self.pre {
            return self.head[n as usize];
        }
        n.wrapping_add(offset[((n - self.pre) & mask) as usize & 63])
    }

    /// g(n) with `split` dividing by the period: (quotient, remainder).
    #[inline(always)]
    fn value(&self, n: u64, split: impl Fn(u64) -> (u64, u64)) -> u64 {
        if n < self.pre {
            return self.head[n as usize];
        }
        let (q, r) = split(n - self.pre);
        self.head[(self.pre + r) as usize] + q * self.saltus
    }
}

/// (x / period, x % period) by a multiply with magic = ⌈2^64 / period⌉; exact for x < 2^32.
#[inline(always)]
fn magic_divide(x: u64, magic: u64, period: u64) -> (u64, u64) {
    let q = ((x as u128 * magic as u128) >> 64) as u64;
    (q, x - q * period)
}

pub fn answer(table: &Table, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write) -> Result<(), JudgeError> {
    let g = RuleValue::new(table).map_err(JudgeError::Table)?;
    let cases = input.next(1, MAX_CASES, &"the case count T")?;
    answer_from(&g, input, out, cases, 1)
}

/// Cases `from..=cases` of the input and the check that nothing follows them.
fn answer_from(g: &RuleValue, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write, cases: u64, from: u64) -> Result<(), JudgeError> {
    for case in from..=cases {
        let n = input.next(1, MAX_HEAPS, &format_args!("the heap count N of case {case}"))?;
        let what = format_args!("a heap size in case {case}");
        // One loop per kind of split, so that the hot loop holds its constants in registers.
        let x = match g.split {
            Split::Offset { mask, ref offset } => input.fold(n, 1, MAX_HEAP, &what, 0, |x, h| x ^ g.offset_value(h, mask, offset))?,
            Split::Pow2 { shift, mask } => {
                input.fold(n, 1, MAX_HEAP, &what, 0, |x, h| x ^ g.value(h, |y| (y >> shift, y & mask)))?
            }
            Split::Magic { magic, period } => {
                input.fold(n, 1, MAX_HEAP, &what, 0, |x, h| x ^ g.value(h, |y| magic_divide(y, magic, period)))?
            }
        };
        out.write_all(if x != 0 { b"Alice\n" } else { b"Bob\n" })?;
    }
    input.expect_end(&format!("the {cases} cases"))?;
    Ok(())
}

/// The same answers for an input all in memory, on `par.threads` threads ([`parallel::cases`]):
/// heaps are body tokens, a case's count its header.
pub fn answer_bytes(table: &Table, data: &[u8], par: Parallel, out: &mut impl Write) -> Result<(), JudgeError> {
    let g = RuleValue::new(table).map_err(JudgeError::Table)?;
    let format = Cases { cases: (1, MAX_CASES), count: (1, MAX_HEAPS) };
    let mut say = |_, s: Sum| out.write_all(if s.xor != 0 { b"Alice\n" } else { b"Bob\n" }).map_err(JudgeError::from);
    let walked = match g.split {
        Split::Offset { mask, ref offset } => {
            let body = Body { min: 1, max: MAX_HEAP, value: |h| Sum::of(g.offset_value(h, mask, offset), false) };
            parallel::cases(data, par, format, &body, &mut say)?
        }
        Split::Pow2 { shift, mask } => {
            let body = Body { min: 1, max: MAX_HEAP, value: |h| Sum::of(g.value(h, |y| (y >> shift, y & mask)), false) };
            parallel::cases(data, par, format, &body, &mut say)?
        }
        Split::Magic { magic, period } => {
            let body = Body { min: 1, max: MAX_HEAP, value: |h| Sum::of(g.value(h, |y| magic_divide(y, magic, period)), false) };
            parallel::cases(data, par, format, &body, &mut say)?
        }
    };
    match walked {
        Walked::Done => Ok(()),
        Walked::Resume { at: None, offset } => answer(table, &mut Scanner::resume(data, offset), out),
        Walked::Resume { at: Some((cases, from)), offset } => answer_from(&g, &mut Scanner::resume(data, offset), out, cases, from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::GameSpec;
    use crate::table::{Packed, Rule};

    #[test]
    fn magic_split_matches_division() {
        for period in [3u64, 5, 7, 12, 1000, 65537] {
            let len = 4 * period + 5;
            let values: Vec<u32> = (0..len).map(|n| (n % period + n / period * 3) as u32).collect();
            let mut table = Table::new(GameSpec::parse(&format!("sub:1:{len}")).unwrap(), Packed::from_values(&values));
            table.rule = Some(Rule { pre: 0, period, saltus: 3, checked: len, proven: false });
            let g = RuleValue::new(&table).unwrap();
            for n in (0..5000u64).chain([(1 << 31) - 1, (1 << 32) - 1, 4_000_000_007]) {
                assert_eq!(g.get(n), n % period + n / period * 3, "period {period}, n {n}");
            }
        }
    }

    #[test]
    fn offset_split_matches_the_rule() {
        // Saltus equal to a power-of-two period up to 64 takes the offset path; values below
        // n (g(n) < n) and a preperiod included.
        for (period, pre) in [(1u64, 0u64), (2, 3), (4, 1), (8, 0), (64, 5), (128, 2)] {
            let len = pre + 4 * period + 3;
            let base = |n: u64| if n < pre { 7 * n + 1 } else { (n - pre) % period * 5 % period + pre };
            let rule = |n: u64| if n < pre { base(n) } else { base(pre + (n - pre) % period) + (n - pre) / period * period };
            let values: Vec<u32> = (0..len).map(|n| rule(n) as u32).collect();
            let mut table = Table::new(GameSpec::parse(&format!("sub:1:{len}")).unwrap(), Packed::from_values(&values));
            table.rule = Some(Rule { pre, period, saltus: period, checked: len, proven: false });
            let g = RuleValue::new(&table).unwrap();
            assert_eq!(matches!(g.split, Split::Offset { .. }), period <= 64, "period {period}");
            for n in (0..5000u64).chain([(1 << 31) - 1, (1 << 32) - 1]) {
                assert_eq!(g.get(n), rule(n), "period {period}, pre {pre}, n {n}");
            }
        }
    }
}
