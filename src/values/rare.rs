//! The rare/common split of a table's values.

use super::packed::{self, Packed};

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
    let counts: Vec<(u32, i64)> =
        w.iter().enumerate().filter(|&(_, &c)| c > 0).map(|(v, &c)| (v as u32, c)).collect();
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
    let (mask, rare_entries) =
        (1..size).map(|m| (m as u32, ((n + w[m]) / 2) as u64)).min_by_key(|&(m, r)| (r, m))?;
    let rare = counts
        .iter()
        .filter(|&&(v, _)| (v & mask).count_ones().is_multiple_of(2))
        .map(|&(v, _)| v)
        .collect();
    Some(RareSplit { mask, rare, rare_entries, distinct: counts.len() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::rule;

    /// Counts straight from the definition, one mask at a time.
    fn rare_entries(values: &[u32], mask: u32) -> u64 {
        values.iter().filter(|&&v| (v & mask).count_ones().is_multiple_of(2)).count() as u64
    }

    #[test]
    fn rare_split_takes_the_mask_with_fewest_rare_entries() {
        // Mostly 1, 2, 4 and 7 (an odd number of bits): mask 7 leaves only 0, 3 and 5 rare.
        let values: Vec<u32> = [1u32; 10]
            .iter()
            .chain(&[2; 8])
            .chain(&[4; 5])
            .chain(&[7, 7, 0, 3, 5])
            .copied()
            .collect();
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
            let values: Vec<u32> = (0..len)
                .map(|_| {
                    if rnd(4) == 0 {
                        rnd(top as u64 + 1) as u32
                    } else {
                        (rnd(6) as u32 * 37) % (top + 1)
                    }
                })
                .collect();
            let Some(split) = rare_split(&Packed::from_values(&values)) else {
                assert!(values.iter().all(|&v| v == 0), "case {case}");
                continue;
            };
            let max = *values.iter().max().unwrap();
            let masks = 1..(max + 1).next_power_of_two();
            let best = masks.map(|m| (rare_entries(&values, m), m)).min().unwrap();
            assert_eq!((split.rare_entries, split.mask), best, "case {case}: {values:?}");
            let mut rare: Vec<u32> = values
                .iter()
                .copied()
                .filter(|&v| (v & split.mask).count_ones().is_multiple_of(2))
                .collect();
            rare.sort_unstable();
            rare.dedup();
            assert_eq!(split.rare, rare, "case {case}");
        }
    }
}
