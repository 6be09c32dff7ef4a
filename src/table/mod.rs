//! Tables: values with the game they belong to and the rule found in them, and the `.sgt`
//! file format that stores them.

pub mod diff;
pub mod format;
pub mod import;
pub mod packed;
pub mod rule;

pub use packed::Packed;
pub use rule::Rule;

use crate::spec::GameSpec;

/// A built table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub spec: GameSpec,
    pub values: Packed,
    pub rule: Option<Rule>,
}

impl Table {
    /// Wraps freshly computed values, finding their rule (and proving it where the game allows).
    pub fn new(spec: GameSpec, values: Packed) -> Table {
        assert_eq!(spec.len(), values.len());
        let rule = find_rule(&spec, &values);
        Table { spec, values, rule }
    }

    /// g(n) for any n: from the table below its length, from the rule beyond it (`None` past
    /// the table without a rule, or where the rule's value would not fit in 64 bits).
    pub fn value(&self, n: u64) -> Option<u64> {
        if n < self.values.len() {
            return Some(self.values.get(n) as u64);
        }
        // As Rule::extend, but checked: a rule from a file may have any saltus.
        let r = self.rule?;
        let past = n.checked_sub(r.pre)?;
        let (k, i) = (past.checked_div(r.period)?, r.pre + past % r.period);
        (i < self.values.len()).then_some(())?;
        (self.values.get(i) as u64).checked_add(k.checked_mul(r.saltus)?)
    }
}

/// The rule a table's values support, proven where the game has a theorem that makes the check
/// a proof. Games whose index is not a heap (chess rows) skip the search.
///
/// The rule is the one that starts earliest, then has the smallest period, among those the
/// values support with margin ([`Rule::find`]); where the game's theorem proves some of them,
/// the earliest-starting of those instead (a proven rule holds for ever, the others only as far
/// as they were checked).
pub fn find_rule(spec: &GameSpec, values: &Packed) -> Option<Rule> {
    find_rule_in(spec, values.len(), |i| values.get(i) as u64)
}

/// [`find_rule`] over the first `len` values given by `get`, for values not yet packed (a
/// table still growing, `crate::build`).
pub fn find_rule_in(spec: &GameSpec, len: u64, get: impl Fn(u64) -> u64) -> Option<Rule> {
    if !spec.has_rule() {
        return None;
    }
    let proves = |r: &Rule| spec.theorem(r).is_some_and(|t| r.checked >= t.needs);
    let (mut best, mut proven): (Option<Rule>, Option<Rule>) = (None, None);
    // One pass: candidates come in increasing period, so a strictly earlier start replaces.
    Rule::each(len, get, |r| {
        if best.is_none_or(|b| r.pre < b.pre) {
            best = Some(r);
        }
        if proven.is_none_or(|b| r.pre < b.pre) && proves(&r) {
            proven = Some(Rule { proven: true, ..r });
        }
    });
    proven.or(best)
}

/// The rare/common split of a table's values, as the field makes it (Gangolli and Plambeck;
/// Flammenkamp's octal-game tables): a bit mask M splits the values into *rare* ones, with an
/// even number of bits in common with M (0 among them), and *common* ones, with an odd number.
/// The rare values are closed under XOR and the XOR of two common values is rare, so a solver
/// finds most mexes by scanning only the few rare heaps. The mask taken is the one that leaves
/// the fewest entries rare (the smallest such mask on a tie).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RareSplit {
    pub mask: u32,
    /// The rare values that occur in the table, ascending.
    pub rare: Vec<u32>,
    /// How many entries hold a rare value.
    pub rare_entries: u64,
    /// How many distinct values occur, rare and common.
    pub distinct: usize,
}

/// [`rare_split`] tries every mask over the bits of the largest value, up to this many bits
/// (2^20 masks: 8 MiB of counts and about 20 million additions).
pub const RARE_SPLIT_BITS: u32 = 20;

/// The rare/common split of `values` (see [`RareSplit`]); `None` when every value is 0 (there
/// is nothing to split) or the largest value has more than [`RARE_SPLIT_BITS`] bits.
///
/// Every mask at once, in O(N + b·2^b) for values of b bits: with c\[v\] the number of entries
/// holding v, the entries that mask M leaves rare number (N + W\[M\]) / 2, where
/// W\[M\] = Σ_v c\[v\]·(−1)^popcount(v & M) is the Walsh–Hadamard transform of the histogram c
/// (the "Hadamard-optimal mask" of tczajka/octal-games).
pub fn rare_split(values: &Packed) -> Option<RareSplit> {
    let max = values.max();
    if max == 0 || packed::bits_for(max as u64) > RARE_SPLIT_BITS {
        return None;
    }
    let size = (max as usize + 1).next_power_of_two();
    let mut w = vec![0i64; size];
    for v in values.iter() {
        w[v as usize] += 1;
    }
    let counts: Vec<(u32, i64)> = w.iter().enumerate().filter(|&(_, &c)| c > 0).map(|(v, &c)| (v as u32, c)).collect();
    let mut h = 1;
    while h < size {
        for block in w.chunks_exact_mut(2 * h) {
            let (lo, hi) = block.split_at_mut(h);
            for (a, b) in lo.iter_mut().zip(hi) {
                (*a, *b) = (*a + *b, *a - *b);
            }
        }
        h *= 2;
    }
    let n = values.len() as i64;
    // Mask 0 leaves every entry rare; any other does at least as well.
    let (mask, rare_entries) = (1..size).map(|m| (m as u32, ((n + w[m]) / 2) as u64)).min_by_key(|&(m, r)| (r, m))?;
    let rare = counts.iter().filter(|&&(v, _)| (v & mask).count_ones().is_multiple_of(2)).map(|&(v, _)| v).collect();
    Some(RareSplit { mask, rare, rare_entries, distinct: counts.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts straight from the definition, one mask at a time.
    fn rare_entries(values: &[u32], mask: u32) -> u64 {
        values.iter().filter(|&&v| (v & mask).count_ones().is_multiple_of(2)).count() as u64
    }

    #[test]
    fn rare_split_takes_the_mask_with_fewest_rare_entries() {
        // Mostly 1, 2, 4 and 7 (an odd number of bits): mask 7 leaves only 0, 3 and 5 rare.
        let values: Vec<u32> = [1u32; 10].iter().chain(&[2; 8]).chain(&[4; 5]).chain(&[7, 7, 0, 3, 5]).copied().collect();
        let split = rare_split(&Packed::from_values(&values)).unwrap();
        assert_eq!((split.mask, split.rare.as_slice(), split.rare_entries), (7, &[0, 3, 5][..], 3));
        assert_eq!(rare_split(&Packed::from_values(&[0u32; 5])), None);
        assert_eq!(rare_split(&Packed::from_values(&[0u32, 1 << 20])), None);
    }

    #[test]
    fn rare_split_equals_trying_every_mask() {
        let mut rnd = rule::xorshift(0x9E3779B97F4A7C15);
        for case in 0..300 {
            let len = 1 + rnd(300) as usize;
            let top = 1 + rnd(200) as u32;
            // Skewed towards a few values, as real tables are.
            let values: Vec<u32> = (0..len).map(|_| if rnd(4) == 0 { rnd(top as u64 + 1) as u32 } else { (rnd(6) as u32 * 37) % (top + 1) }).collect();
            let Some(split) = rare_split(&Packed::from_values(&values)) else {
                assert!(values.iter().all(|&v| v == 0), "case {case}");
                continue;
            };
            let max = *values.iter().max().unwrap();
            let masks = 1..(max + 1).next_power_of_two();
            let best = masks.map(|m| (rare_entries(&values, m), m)).min().unwrap();
            assert_eq!((split.rare_entries, split.mask), best, "case {case}: {values:?}");
            let mut rare: Vec<u32> = values.iter().copied().filter(|&v| (v & split.mask).count_ones().is_multiple_of(2)).collect();
            rare.sort_unstable();
            rare.dedup();
            assert_eq!(split.rare, rare, "case {case}");
        }
    }

    #[test]
    fn a_period_from_the_start_wins_over_a_stretch_that_happens_to_repeat() {
        // Period 40 from n = 0 whose block ends in 20 equal values: a table that stops at the
        // end of a block ends with 20 equal values, which period 1 supports with margin.
        let block: Vec<u32> = (0..40).map(|i| if i < 20 { i * 7 % 11 } else { 5 }).collect();
        let values: Vec<u32> = (0..400).map(|n| block[n % 40]).collect();
        let packed = Packed::from_values(&values);
        let first = Rule::find(400, |i| packed.get(i) as u64).unwrap();
        assert_eq!((first.period, first.pre, first.proven), (40, 0, false));
        assert!(Rule::find_where(400, |i| packed.get(i) as u64, |r| r.period == 1).is_some_and(|r| r.pre == 380));
        // 0.07 is a finite octal code: Guy-Smith proves period 40 from n0 = 1 by 2·1 + 2·40 + 2.
        let rule = find_rule(&GameSpec::parse("0.07:400").unwrap(), &packed).unwrap();
        assert_eq!((rule.pre, rule.period, rule.saltus, rule.proven), (0, 40, 0, true));
        // Without a theorem (a code with a tail) the same rule stands, checked only.
        assert_eq!(find_rule(&GameSpec::parse("0.0[7]:400").unwrap(), &packed), Some(first));
    }
}
