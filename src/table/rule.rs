//! Rules found in a table: g(n + p) = g(n) + s for every n ≥ pre (s = 0 is plain periodicity,
//! s > 0 is arithmetic periodicity with saltus s). A rule is only ever claimed over the range
//! that was checked; `proven` is set only where the game's theory makes the check a proof.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// First index from which the rule holds.
    pub pre: u64,
    pub period: u64,
    pub saltus: u64,
    /// The rule was checked for every n with pre ≤ n and n + period < checked.
    pub checked: u64,
    /// True when the check proves the rule for every n ≥ pre.
    pub proven: bool,
}

/// Most comparisons the search may make, as a multiple of the table's length: a table with no
/// rule (a chess table) is searched in linear time and reported as having none.
const WORK_PER_ENTRY: u64 = 32;

impl Rule {
    /// The smallest period (then the smallest pre-period) that the table supports with margin:
    /// the relation must hold over at least three periods and 16 values past `pre`.
    pub fn find(len: u64, get: impl Fn(u64) -> u64) -> Option<Rule> {
        let mut budget = WORK_PER_ENTRY.saturating_mul(len.max(64));
        for period in 1..=len / 3 {
            let last = len - 1;
            let Some(saltus) = get(last).checked_sub(get(last - period)) else { continue };
            // Walk down from the end while the relation holds.
            let mut pre = last - period;
            loop {
                budget = budget.saturating_sub(1);
                if pre == 0 || budget == 0 {
                    break;
                }
                if get(pre - 1 + period) != get(pre - 1) + saltus {
                    break;
                }
                pre -= 1;
            }
            if budget == 0 {
                return None;
            }
            let span = len - pre;
            if span >= 3 * period && span >= period + 16 {
                return Some(Rule { pre, period, saltus, checked: len, proven: false });
            }
        }
        None
    }

    /// g(n) for any n, from the table values below `checked`; exact where the rule holds.
    pub fn extend(&self, n: u64, get: impl Fn(u64) -> u64) -> u64 {
        if n < self.checked {
            return get(n);
        }
        let k = (n - self.pre) / self.period;
        let r = (n - self.pre) % self.period;
        get(self.pre + r) + k * self.saltus
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g(n+{}) = g(n)", self.period)?;
        if self.saltus != 0 {
            write!(f, " + {}", self.saltus)?;
        }
        write!(f, " for n >= {}", self.pre)?;
        if self.proven {
            write!(f, " (proven)")
        } else {
            write!(f, " (checked up to n = {}, not proven beyond)", self.checked - 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_periods_and_saltus() {
        let alt: Vec<u64> = (0..100).map(|n| n % 2).collect();
        let r = Rule::find(100, |i| alt[i as usize]).unwrap();
        assert_eq!((r.pre, r.period, r.saltus), (0, 2, 0));

        let lasker: Vec<u64> = (0..200u64)
            .map(|n| match n % 4 { 0 if n > 0 => n - 1, 3 => n + 1, _ => n })
            .collect();
        let r = Rule::find(200, |i| lasker[i as usize]).unwrap();
        assert_eq!((r.pre, r.period, r.saltus), (1, 4, 4));
        for n in [1u64, 2, 3, 4, 5, 1000, (1 << 31) - 1] {
            let want = match n % 4 { 0 => n - 1, 3 => n + 1, _ => n };
            assert_eq!(r.extend(n, |i| lasker[i as usize]), want);
        }
    }

    #[test]
    fn no_rule_without_margin() {
        // Periodic only over the last 20 values with period 10: not enough.
        let v: Vec<u64> = (0..100u64).map(|n| if n < 80 { n * 7919 % 97 } else { n % 10 }).collect();
        assert!(Rule::find(100, |i| v[i as usize]).is_none_or(|r| r.period != 10));
        let noise: Vec<u64> = (0..1000u64).map(|n| n.wrapping_mul(0x9E3779B97F4A7C15) >> 58).collect();
        assert_eq!(Rule::find(1000, |i| noise[i as usize]), None);
    }
}
