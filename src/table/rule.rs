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

/// The search looks at the last `WINDOW` values at most (memory: 8 bytes a value searched), so
/// it finds every rule whose period is below about WINDOW / 3; a rule found is then extended
/// down the whole table by direct comparison.
const WINDOW: u64 = 1 << 22;

impl Rule {
    /// The smallest period (then the smallest pre-period) that the table supports with margin:
    /// the relation must hold over at least three periods and 16 values past `pre`, up to the
    /// end of the table.
    ///
    /// Near-linear: g(n+p) = g(n) + s for every n in [pre, len − p) exactly when the first
    /// differences D(n) = g(n+1) − g(n) repeat with period p on [pre, len − 1). Read backwards
    /// from the end, that is a prefix of the reversed differences R with period p, and the
    /// longest such prefix is p + Z\[p\], Z the Z-function of R (computed in linear time). So one
    /// pass gives, for every p at once, how far down the rule reaches. Differences are taken
    /// modulo 2^32; each candidate is confirmed on the values themselves before it is returned.
    pub fn find(len: u64, get: impl Fn(u64) -> u64) -> Option<Rule> {
        Rule::find_where(len, get, |_| true)
    }

    /// As [`Rule::find`], but the smallest period (then pre-period) whose rule also passes
    /// `accept`: [`crate::table::find_rule`] asks for the smallest period that the game's
    /// theorem proves, so that a short stretch at the end of the table that happens to repeat
    /// does not hide the rule a proof stands behind. `accept` sees each candidate before its
    /// values are confirmed (so a rejected one costs O(1), not a pass over the table), first with
    /// the lowest pre-period it could have; `accept` must therefore reject a rule whenever it
    /// rejects the same rule with a smaller pre-period (as "a theorem proves it by `checked`"
    /// does). Beyond the last 2^22 values the search gives up early rather than go quadratic:
    /// it may return `None` where a rule exists, never a rule that does not hold.
    pub fn find_where(len: u64, get: impl Fn(u64) -> u64, accept: impl Fn(&Rule) -> bool) -> Option<Rule> {
        if len < 2 {
            return None;
        }
        let w = len.min(WINDOW);
        // r[i] = D(len − 2 − i): differences from the end of the table backwards.
        let r: Vec<u32> = (0..w - 1).map(|i| (get(len - 1 - i) as u32).wrapping_sub(get(len - 2 - i) as u32)).collect();
        let z = z_function(&r);
        // Rules that reach the window's edge cost a pass over the table each; after one of them
        // is rejected, the rest (mostly its multiples) are skipped, so the search stays linear.
        let mut rejected_whole = false;
        for period in 1..=w / 3 {
            let reach = (period as usize + (z[period as usize] as usize).min(r.len() - period as usize)) as u64;
            // The rule holds from pre = len − 1 − reach (relative to the window).
            let mut pre = len - 1 - reach;
            let span = len - pre;
            if span < 3 * period || span < period + 16 {
                continue;
            }
            let Some(saltus) = get(pre + period).checked_sub(get(pre)) else { continue };
            let holds = |n: u64| get(n + period) == get(n) + saltus;
            // A rule that reaches the window's edge may hold further down: its pre-period is
            // found by walking down past the window, so it can only get smaller.
            let whole = reach == w - 1;
            let lowest = if whole { 0 } else { pre };
            if whole && rejected_whole || !accept(&Rule { pre: lowest, period, saltus, checked: len, proven: false }) {
                continue;
            }
            if !(pre..len - period).all(holds) {
                continue; // a difference collided modulo 2^32
            }
            while pre > 0 && whole && holds(pre - 1) {
                pre -= 1;
            }
            let rule = Rule { pre, period, saltus, checked: len, proven: false };
            if accept(&rule) {
                return Some(rule);
            }
            rejected_whole = true;
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

/// Z[i] = the length of the longest common prefix of `s` and `s[i..]` (Z[0] = len), in linear
/// time (Gusfield's Z-algorithm).
/// Entries are u32 (the window is below 2^32 values): 4 bytes a value, so the whole search takes
/// 8 bytes a value searched, which is most of a `--prove` run's memory beyond the table itself.
fn z_function(s: &[u32]) -> Vec<u32> {
    let n = s.len();
    assert!(n < u32::MAX as usize, "the rule search window fits in u32");
    let mut z = vec![0u32; n.max(1)];
    if n == 0 {
        return z;
    }
    z[0] = n as u32;
    let (mut l, mut r) = (0usize, 0usize);
    for i in 1..n {
        let mut k = if i < r { (z[i - l] as usize).min(r - i) } else { 0 };
        while i + k < n && s[k] == s[i + k] {
            k += 1;
        }
        z[i] = k as u32;
        if i + k > r {
            l = i;
            r = i + k;
        }
    }
    z
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

/// A small deterministic generator for tests: `rnd(m)` is in 0..m.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |m| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
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

    /// The obvious finder: for each period in turn, walk down from the end while the relation
    /// holds (quadratic).
    fn slow_find(v: &[u64]) -> Option<Rule> {
        slow_find_where(v, |_| true)
    }

    /// The obvious search for the smallest period whose rule passes `accept`.
    fn slow_find_where(v: &[u64], accept: impl Fn(&Rule) -> bool) -> Option<Rule> {
        let len = v.len() as u64;
        for period in 1..=len / 3 {
            let last = len - 1;
            let Some(saltus) = v[last as usize].checked_sub(v[(last - period) as usize]) else { continue };
            let mut pre = last - period;
            while pre > 0 && v[(pre - 1 + period) as usize] == v[(pre - 1) as usize] + saltus {
                pre -= 1;
            }
            let span = len - pre;
            let rule = Rule { pre, period, saltus, checked: len, proven: false };
            if span >= 3 * period && span >= period + 16 && accept(&rule) {
                return Some(rule);
            }
        }
        None
    }

    #[test]
    fn search_for_a_proven_period_equals_the_obvious_one() {
        let mut rnd = xorshift(0x2545F4914F6CDD1D);
        for case in 0..2000 {
            let len = 1 + rnd(400);
            let (period, pre, t) = (1 + rnd(40), rnd(len), rnd(20));
            let head: Vec<u64> = (0..pre + period).map(|_| rnd(3)).collect();
            // A period whose block ends in a run of equal values, so that shorter periods at
            // the end compete with it.
            let run = rnd(period + 1);
            let block = |i: u64| if i >= pre && (i - pre) % period >= period - run { 7 } else { head[i as usize] };
            let v: Vec<u64> = (0..len).map(|n| block(if n < pre + period { n } else { pre + (n - pre) % period })).collect();
            // "Guy-Smith with last digit t": proven once checked ≥ 2·pre + 2·period + t.
            let accept = |r: &Rule| r.saltus == 0 && r.checked >= 2 * r.pre + 2 * r.period + t;
            assert_eq!(Rule::find_where(len, |i| v[i as usize], accept), slow_find_where(&v, accept), "case {case}: {v:?}");
        }
    }

    #[test]
    fn near_linear_finder_equals_the_obvious_one() {
        let mut rnd = xorshift(0x2545F4914F6CDD1D);
        for case in 0..3000 {
            let len = 1 + rnd(400);
            let period = 1 + rnd(60);
            let pre = rnd(len);
            let saltus = if rnd(3) == 0 { rnd(5) } else { 0 };
            let alphabet = 1 + rnd(4);
            let head: Vec<u64> = (0..pre + period).map(|_| rnd(alphabet) + 8).collect();
            let v: Vec<u64> = (0..len)
                .map(|n| if n < pre + period { head[n as usize] } else { head[(pre + (n - pre) % period) as usize] + (n - pre) / period * saltus })
                .collect();
            // Damage one value now and then, anywhere.
            let mut v = v;
            if rnd(4) == 0 {
                let at = rnd(len) as usize;
                v[at] += 1;
            }
            assert_eq!(Rule::find(len, |i| v[i as usize]), slow_find(&v), "case {case}: {v:?}");
        }
    }

    #[test]
    fn long_periods_in_long_tables() {
        let period = 100_003u64;
        let pre = 12_345u64;
        let len = 1_000_000u64;
        let g = |n: u64| if n < pre { n % 7 + 1000 } else { ((n - pre) % period).wrapping_mul(0x9E3779B97F4A7C15) >> 54 };
        let r = Rule::find(len, g).unwrap();
        assert_eq!((r.pre, r.period, r.saltus), (pre, period, 0));
    }
}
