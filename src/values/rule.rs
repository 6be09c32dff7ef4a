//! Rules found in a table: g(n + p) = g(n) + s for every n ≥ pre (s = 0 is plain periodicity,
//! s > 0 is arithmetic periodicity with saltus s). A rule is only ever claimed over the range
//! that was checked; `proven` is set only where the game's theory makes the check a proof.
//!
//! Which rule: among the rules that hold from their start to the end of the table with margin
//! (at least three periods and 16 values past the start), the one that **starts earliest**,
//! then the one with the smallest period. It explains the most of the table: a short period
//! that happens to fit a stretch at the end (23 values of period 4 closing a table of period
//! 52) must not win over a period that holds from the start. Every multiple of a period holds
//! from exactly where the period does (g(pre − 1 + kp) = g(pre − 1 + p) + (k − 1)s), and two
//! periods holding over at least p + q values force their gcd to hold there too (Fine and
//! Wilf), so the rule chosen has the least period of the table's longest periodic tail.

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

/// The search reads the table's first differences in windows of `WINDOW` values (memory: 12
/// bytes a value of the window), so it finds every rule whose period is below WINDOW / 3 in a
/// table of any length, in time linear in the table's length.
const WINDOW: u64 = 1 << 22;

/// Values a rule must hold over past its start: three periods, and 16 values at least.
pub fn margin(period: u64) -> u64 {
    period.saturating_mul(3).max(period.saturating_add(16))
}

impl Rule {
    /// The rule the table supports (see the module docs): the earliest start, then the
    /// smallest period, among the rules that hold with margin up to the end of the table.
    pub fn find(len: u64, get: impl Fn(u64) -> u64) -> Option<Rule> {
        Rule::find_where(len, get, |_| true)
    }

    /// As [`Rule::find`], among the rules that pass `accept` (which sees each candidate with
    /// its exact pre-period): [`crate::table::find_rule`] asks for the rules the game's
    /// theorem proves.
    pub fn find_where(
        len: u64,
        get: impl Fn(u64) -> u64,
        accept: impl Fn(&Rule) -> bool,
    ) -> Option<Rule> {
        let mut best: Option<Rule> = None;
        Rule::each(len, get, |rule| {
            if accept(&rule) && best.is_none_or(|b| rule.pre < b.pre) {
                best = Some(rule);
            }
        });
        best
    }

    /// Calls `visit` with every rule that holds with margin up to the end of the first `len`
    /// values: one a period (1 ≤ p ≤ min(len, 2^22) / 3), with its lowest pre-period, in
    /// increasing order of period. `checked` is `len`, `proven` false.
    ///
    /// Linear in `len`: g(n+p) = g(n) + s for every n in [pre, len − p) exactly when the first
    /// differences D(n) = g(n+1) − g(n) repeat with period p on [pre, len − 1). Read backwards
    /// from the end, that is a prefix of the reversed differences R with period p, and the
    /// longest such prefix is p + Z\[p\], Z the Z-function of R (linear time). So one pass over
    /// a window gives, for every p at once, how far down the rule reaches. The periods that
    /// reach the window's far end go on into the next window, which overlaps this one by the
    /// largest period, so each comparison R(i) = R(i + p) is made in one window or the next;
    /// windows advance by two thirds of their length. Differences are taken modulo 2^64, exact
    /// for values below 2^63, so no candidate needs confirming on the values.
    pub fn each(len: u64, get: impl Fn(u64) -> u64, visit: impl FnMut(Rule)) {
        each_in(len, get, WINDOW, visit)
    }

    /// g(n) for any n, from the `len` values given by `get`: the value itself below `len`, and
    /// past it g(pre + r) + k·saltus for n = pre + k·period + r. `None` past the values where
    /// the rule would need a value it does not have, or its value does not fit in 64 bits (a
    /// rule read from a file may have any saltus). The one way every part of sgtab extends a
    /// table by its rule: building fills from it, tables and `sgq` answer past their end by it.
    pub fn extend(&self, n: u64, len: u64, get: impl Fn(u64) -> u64) -> Option<u64> {
        if n < len {
            return Some(get(n));
        }
        let past = n.checked_sub(self.pre)?;
        let (k, i) = (past.checked_div(self.period)?, self.pre + past % self.period);
        (i < len).then_some(())?;
        get(i).checked_add(k.checked_mul(self.saltus)?)
    }
}

/// [`Rule::each`] with windows of `window` values (a parameter so that tests cross windows on
/// small tables).
fn each_in(len: u64, get: impl Fn(u64) -> u64, window: u64, mut visit: impl FnMut(Rule)) {
    let max_period = len.min(window) / 3;
    if len < 2 || max_period == 0 {
        return;
    }
    // R(i) = D(len − 2 − i), for i in 0..len − 1.
    let diffs = len - 1;
    let w = len.min(window) - 1; // differences in one window
    // The periods whose rule still holds at the window's far end (in the first window, every
    // period: `None`), and the rules that stopped with margin, as (period, pre): a rule that
    // stops short of its margin is dropped at once.
    let mut alive: Option<Vec<u32>> = None;
    let mut found: Vec<(u64, u64)> = Vec::new();
    let mut start = 0u64;
    loop {
        let end = (start + w).min(diffs);
        let (n, last) = (end - start, end == diffs);
        let mut d = Differences::new(|t| get(len - 1 - start - t), n as usize);
        let upto = max_period as usize + 1;
        let mut goes_on = |p: u32, z: u32| {
            let p = p as u64;
            // Windows overlap by max_period, so p < n here.
            let prefix = (z as u64).min(n - p);
            if prefix == n - p && !last {
                return true;
            }
            // The rule reaches `start + p + prefix` differences from the end: it holds from
            // pre = len − 1 − reach.
            let pre = len - 1 - (start + p + prefix).min(diffs);
            if len - pre >= margin(p) {
                found.push((p, pre));
            }
            false
        };
        match &mut alive {
            Some(periods) => {
                // A period goes on from where the last window left it, however short its
                // prefix here: every entry is needed exactly.
                let z = d.z(upto);
                periods.retain(|&p| goes_on(p, z[p as usize]));
            }
            None => {
                let long = d.long_prefixes(upto).into_iter();
                alive = Some(long.filter(|&(p, z)| goes_on(p, z)).map(|(p, _)| p).collect());
            }
        }
        if alive.as_ref().is_none_or(|a| a.is_empty()) || last {
            break;
        }
        start = end - max_period;
    }
    found.sort_unstable();
    for (period, pre) in found {
        let Some(saltus) = get(pre + period).checked_sub(get(pre)) else { continue };
        visit(Rule { pre, period, saltus, checked: len, proven: false });
    }
}

/// A window's differences R(t) = v(t) − v(t + 1) (`v` the table read backwards from a window's
/// start), read from the table only as far as the search looks: for a table with no rule that
/// is little past the longest period asked, a third of the window. Kept as u32 while every
/// one read lies in the i32 range (two such differences are equal exactly when their low 32 bits
/// are: half the memory of u64), else as u64 from then on.
struct Differences<V> {
    narrow: Vec<u32>,
    wide: Vec<u64>,
    is_wide: bool,
    /// The table backwards from the window's start, and the last value read.
    v: V,
    before: u64,
    /// Differences in the window.
    n: usize,
}

/// The fewest differences a rule repeats past its period ([`margin`] asks for 16 values past
/// its start).
const RULE_PREFIX: u32 = 15;

/// Differences a period must repeat from the window's start to be compared further (fewer than
/// [`RULE_PREFIX`]).
const SHORT: usize = 8;

/// Periods screened at a time: lanes of one comparison.
const SCREEN: usize = 8;

/// The periods p in 1..upto with d\[p..p + SHORT\] = d\[..SHORT\] (`d` holds
/// `upto + SCREEN + SHORT` differences at least), in increasing order: the ones worth comparing
/// out. Eight periods at a time, each comparison one vector instruction where the target has
/// them. `None` where more than one period in 64 passes (a table that repeats short patterns:
/// the Z-algorithm is cheaper there than comparing each out).
fn screened(d: &[u32], upto: usize) -> Option<Vec<u32>> {
    let head: [u32; SHORT] = d[..SHORT].try_into().unwrap();
    let mut passed = Vec::new();
    let allowed = upto / 64 + 16;
    for p in (1..upto).step_by(SCREEN) {
        let window = &d[p..p + SCREEN + SHORT - 1];
        let mut same = [true; SCREEN];
        for (k, &h) in head.iter().enumerate() {
            for (l, s) in same.iter_mut().enumerate() {
                *s &= window[k + l] == h;
            }
        }
        if same.contains(&true) {
            // The last eight may reach past upto: those lanes are not periods asked.
            let at = same.iter().enumerate().filter(|&(l, &s)| s && p + l < upto);
            passed.extend(at.map(|(l, _)| (p + l) as u32));
            if passed.len() > allowed {
                return None;
            }
        }
    }
    Some(passed)
}

/// The length of the common prefix of `d` and `d[i..]` within `d`, known to be at least `k`.
#[inline(always)]
fn prefix<T: PartialEq>(d: &[T], i: usize, mut k: usize) -> usize {
    let tail = &d[i..];
    while k < tail.len() && d[k] == tail[k] {
        k += 1;
    }
    k
}

impl<V: Fn(u64) -> u64> Differences<V> {
    fn new(v: V, n: usize) -> Differences<V> {
        // Reserved whole: pages never written are never touched.
        let before = v(0);
        let narrow = Vec::with_capacity(n);
        crate::memory::huge_pages(&narrow);
        Differences { narrow, wide: Vec::new(), is_wide: false, v, before, n }
    }

    fn len(&self) -> usize {
        if self.is_wide { self.wide.len() } else { self.narrow.len() }
    }

    /// The length of the longest common prefix of R and R[i..] (1 ≤ i < n), known to be at
    /// least `k`: compared on the differences read so far, reading more only where the prefix
    /// reaches their end.
    #[inline(always)]
    fn common(&mut self, i: usize, mut k: usize) -> usize {
        loop {
            let have = self.len();
            if i + k >= have {
                if have == self.n {
                    return k;
                }
                self.fill(i + k + 1);
                continue;
            }
            k = if self.is_wide { prefix(&self.wide, i, k) } else { prefix(&self.narrow, i, k) };
            if i + k < self.len() || self.len() == self.n {
                return k;
            }
        }
    }

    /// Reads at least `want` differences (an eighth more, so that reading goes in runs).
    #[cold]
    #[inline(never)]
    fn fill(&mut self, want: usize) {
        self.fill_to((want + want / 8).max(want + 4096));
    }

    /// Reads the differences up to `target` (at most n).
    fn fill_to(&mut self, target: usize) {
        let target = target.min(self.n);
        let mut t = self.len();
        if !self.is_wide && t < target {
            // Every difference read as if it fit in 32 bits, in a loop that keeps its state in
            // registers; where one does not fit, the pass is undone and the differences go
            // wide from here on (those read so far widened).
            let (v, mut before, mut fits) = (&self.v, self.before, true);
            self.narrow.resize(target, 0);
            for (t, slot) in (t..).zip(&mut self.narrow[t..]) {
                let next = v(t as u64 + 1);
                let d = before.wrapping_sub(next);
                before = next;
                fits &= d as i64 == d as u32 as i32 as i64;
                *slot = d as u32;
            }
            if fits {
                self.before = before;
                return;
            }
            self.narrow.truncate(t);
            self.wide = Vec::with_capacity(self.n);
            crate::memory::huge_pages(&self.wide);
            self.wide.extend(self.narrow.iter().map(|&x| x as i32 as i64 as u64));
            self.narrow = Vec::new();
            self.is_wide = true;
        }
        while t < target {
            let next = (self.v)(t as u64 + 1);
            self.wide.push(self.before.wrapping_sub(next));
            self.before = next;
            t += 1;
        }
    }

    /// The periods p in 1..upto whose Z[p] is [`RULE_PREFIX`] or more or reaches the window's
    /// end, with Z[p], in increasing p: in the first window, the only periods that can be a
    /// rule (1 + p + Z[p] ≥ margin(p) ≥ p + 16) or go on into the next window (Z[p] = n − p).
    ///
    /// A period whose first `SHORT` differences do not repeat, most of them where the table has
    /// no rule, is ruled out by comparisons done eight periods at a time, and the few others
    /// compared out one by one; no Z-array is made. Where that comparing grows long (a table
    /// with a rule: every multiple of its period compares out to the rule's start), the
    /// Z-algorithm takes over, linear in any case.
    fn long_prefixes(&mut self, upto: usize) -> Vec<(u32, u32)> {
        let n = self.n;
        let upto = upto.min(n).max(1);
        let long = |p: usize, z: usize| z >= RULE_PREFIX as usize || z >= n - p;
        if upto > 2 * SCREEN && n > upto + SCREEN + SHORT {
            self.fill_to(upto + SCREEN + SHORT);
            // Differences past 32 bits (rare) take the Z-algorithm: one screen to keep small.
            let passed = if self.is_wide { None } else { screened(&self.narrow, upto) };
            if let Some(passed) = passed {
                // Compared out, reading past the differences read so far where they reach.
                let (budget, mut spent) = (n / 8, 0);
                let mut found = Vec::new();
                for p in passed {
                    let z = self.common(p as usize, SHORT);
                    spent += z;
                    if spent > budget {
                        break;
                    }
                    if long(p as usize, z) {
                        found.push((p, z as u32));
                    }
                }
                if spent <= budget {
                    return found;
                }
            }
        }
        let z = self.z(upto);
        (1..upto).filter(|&p| long(p, z[p] as usize)).map(|p| (p as u32, z[p])).collect()
    }

    /// Z[t] for t < `upto` (at most n): the length of the longest common prefix of R and R[t..]
    /// (Z[0] = n), in linear time (Gusfield's Z-algorithm; Z[t] reads only Z[j] for j < t, so
    /// the first entries need no later ones). Entries are u32 (a window is below 2^32 values).
    fn z(&mut self, upto: usize) -> Vec<u32> {
        let n = self.n;
        assert!(n < u32::MAX as usize, "the rule search window fits in u32");
        let upto = upto.min(n).max(1);
        let mut z = Vec::with_capacity(upto);
        crate::memory::huge_pages(&z);
        z.resize(upto, 0u32);
        if n == 0 {
            return z;
        }
        z[0] = n as u32;
        let (mut l, mut r) = (0usize, 0usize);
        for i in 1..upto {
            let k = self.common(i, if i < r { (z[i - l] as usize).min(r - i) } else { 0 });
            z[i] = k as u32;
            if i + k > r {
                l = i;
                r = i + k;
            }
        }
        z
    }
}

impl Rule {
    /// The rule as an equation, `g(n+12) = g(n) for n >= 71` or `g(n+4) = g(n) + 4 for n >= 1`:
    /// a saltus of 0 is left out, never written `+ 0`. Every place that shows a rule writes it
    /// this way (its [`Display`](fmt::Display) adds whether it is proven).
    pub fn equation(&self) -> String {
        let saltus = if self.saltus == 0 { String::new() } else { format!(" + {}", self.saltus) };
        format!("g(n+{}) = g(n){saltus} for n >= {}", self.period, self.pre)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.equation())?;
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
            .map(|n| match n % 4 {
                0 if n > 0 => n - 1,
                3 => n + 1,
                _ => n,
            })
            .collect();
        let r = Rule::find(200, |i| lasker[i as usize]).unwrap();
        assert_eq!((r.pre, r.period, r.saltus), (1, 4, 4));
        for n in [1u64, 2, 3, 4, 5, 1000, (1 << 31) - 1] {
            let want = match n % 4 {
                0 => n - 1,
                3 => n + 1,
                _ => n,
            };
            assert_eq!(r.extend(n, r.checked, |i| lasker[i as usize]), Some(want));
        }
    }

    #[test]
    fn no_rule_without_margin() {
        // Periodic only over the last 20 values with period 10: not enough.
        let v: Vec<u64> =
            (0..100u64).map(|n| if n < 80 { n * 7919 % 97 } else { n % 10 }).collect();
        assert!(Rule::find(100, |i| v[i as usize]).is_none_or(|r| r.period != 10));
        let noise: Vec<u64> =
            (0..1000u64).map(|n| n.wrapping_mul(0x9E3779B97F4A7C15) >> 58).collect();
        assert_eq!(Rule::find(1000, |i| noise[i as usize]), None);
    }

    /// The obvious finder: for each period in turn, walk down from the end while the relation
    /// holds (quadratic), and take the earliest start, then the smallest period.
    fn slow_find(v: &[u64]) -> Option<Rule> {
        slow_find_where(v, u64::MAX, |_| true)
    }

    /// The obvious search among the rules that pass `accept`, periods up to min(len, window) / 3.
    fn slow_find_where(v: &[u64], window: u64, accept: impl Fn(&Rule) -> bool) -> Option<Rule> {
        let len = v.len() as u64;
        let mut best: Option<Rule> = None;
        for period in 1..=len.min(window) / 3 {
            let last = len - 1;
            let Some(saltus) = v[last as usize].checked_sub(v[(last - period) as usize]) else {
                continue;
            };
            let mut pre = last - period;
            while pre > 0 && v[(pre - 1 + period) as usize] == v[(pre - 1) as usize] + saltus {
                pre -= 1;
            }
            let span = len - pre;
            let rule = Rule { pre, period, saltus, checked: len, proven: false };
            if span >= 3 * period
                && span >= period + 16
                && accept(&rule)
                && best.is_none_or(|b| pre < b.pre)
            {
                best = Some(rule);
            }
        }
        best
    }

    #[test]
    fn the_rule_that_starts_earliest_wins_over_a_short_period_at_the_end() {
        // Period 52 from n = 1, whose block ends in 23 values of period 4: in a table that ends
        // with a block the shortest period at the end is 4, the rule of the table 52 from 1.
        let mut rnd = xorshift(7);
        let mut block: Vec<u64> = (0..52).map(|_| 10 + rnd(50)).collect();
        for i in 29..52 {
            block[i] = [1, 2, 3, 4][i % 4];
        }
        let g = |n: u64| if n == 0 { 0 } else { block[((n - 1) % 52) as usize] };
        let len = 1 + 38 * 52;
        let v: Vec<u64> = (0..len).map(g).collect();
        let r = Rule::find(len, |i| v[i as usize]).unwrap();
        assert_eq!((r.pre, r.period, r.saltus), (1, 52, 0));
        let short = Rule::find_where(len, |i| v[i as usize], |r| r.period < 52).unwrap();
        assert_eq!((short.pre, short.period), (len - 23, 4));
        for n in [len, 5000, 98_023, 100_000] {
            assert_eq!(r.extend(n, r.checked, |i| v[i as usize]), Some(g(n)));
        }
    }

    /// A random table of at most `max_len` values that follows a random rule (period below
    /// `max_period` + 1, a saltus one time in three, values from an alphabet of up to `alphabet`
    /// letters), one value damaged one time in four, anywhere.
    fn ruled_table(
        rnd: &mut impl FnMut(u64) -> u64,
        max_len: u64,
        max_period: u64,
        alphabet: u64,
    ) -> (u64, Vec<u64>) {
        let len = 1 + rnd(max_len);
        let period = 1 + rnd(max_period);
        let pre = rnd(len);
        let saltus = if rnd(3) == 0 { rnd(5) } else { 0 };
        let alphabet = 1 + rnd(alphabet);
        let head: Vec<u64> = (0..pre + period).map(|_| rnd(alphabet) + 8).collect();
        let mut v: Vec<u64> = (0..len)
            .map(|n| {
                if n < pre + period {
                    head[n as usize]
                } else {
                    head[(pre + (n - pre) % period) as usize] + (n - pre) / period * saltus
                }
            })
            .collect();
        if rnd(4) == 0 {
            let at = rnd(len) as usize;
            v[at] += 1;
        }
        (len, v)
    }

    #[test]
    fn windows_find_what_one_window_would() {
        // Tables much longer than the window: the rules that reach a window's end go on into the
        // next, so the pre-periods found are exact, as the obvious search finds them.
        let mut rnd = xorshift(0x9E3779B97F4A7C15);
        for case in 0..3000 {
            let window = 3 + rnd(40);
            let (len, v) = ruled_table(&mut rnd, 500, window / 3 + 2, 3);
            let mut found: Option<Rule> = None;
            each_in(
                len,
                |i| v[i as usize],
                window,
                |r| {
                    if found.is_none_or(|b| r.pre < b.pre) {
                        found = Some(r)
                    }
                },
            );
            assert_eq!(
                found,
                slow_find_where(&v, window, |_| true),
                "case {case}, window {window}: {v:?}"
            );
        }
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
            let block = |i: u64| {
                if i >= pre && (i - pre) % period >= period - run { 7 } else { head[i as usize] }
            };
            let v: Vec<u64> = (0..len)
                .map(|n| block(if n < pre + period { n } else { pre + (n - pre) % period }))
                .collect();
            // "Guy-Smith with last digit t": proven once checked ≥ 2·pre + 2·period + t.
            let accept = |r: &Rule| r.saltus == 0 && r.checked >= 2 * r.pre + 2 * r.period + t;
            assert_eq!(
                Rule::find_where(len, |i| v[i as usize], accept),
                slow_find_where(&v, u64::MAX, accept),
                "case {case}: {v:?}"
            );
        }
    }

    #[test]
    fn long_prefixes_are_the_z_algorithms() {
        // The periods with long prefixes, screened and compared out, against those the full
        // Z-array gives, on tables with rules, near-rules and none, over small and wide
        // alphabets. Tables long enough to screen, so both ways are taken: the screen where
        // few periods repeat the first differences, the Z-algorithm where many do.
        let mut rnd = xorshift(0x5851F42D4C957F2D);
        for case in 0..2000 {
            let (len, v) = ruled_table(&mut rnd, 3000, 1200, [2, 4, 300][case % 3]);
            let n = (len - 1) as usize;
            let upto = (len / 3) as usize + 1;
            let differences = || Differences::new(|t| v[(len - 1 - t) as usize], n);
            let z = differences().z(upto);
            let want: Vec<(u32, u32)> = (1..z.len())
                .filter(|&p| z[p] >= RULE_PREFIX || z[p] as usize >= n - p)
                .map(|p| (p as u32, z[p]))
                .collect();
            assert_eq!(differences().long_prefixes(upto), want, "case {case}: {v:?}");
        }
    }

    #[test]
    fn near_linear_finder_equals_the_obvious_one() {
        let mut rnd = xorshift(0x2545F4914F6CDD1D);
        for case in 0..3000 {
            let (len, v) = ruled_table(&mut rnd, 400, 60, 4);
            assert_eq!(Rule::find(len, |i| v[i as usize]), slow_find(&v), "case {case}: {v:?}");
        }
    }

    /// Differences outside the i32 range (a value of 2^40 beside small ones), anywhere in the
    /// table: the search reads them as u64 from there on and finds what the obvious one does.
    #[test]
    fn wide_differences_read_as_u64() {
        let mut rnd = xorshift(0x9E3779B97F4A7C15);
        for case in 0..2000 {
            let (len, mut v) = ruled_table(&mut rnd, 300, 40, 3);
            let big = 1u64 << (31 + rnd(12));
            match rnd(3) {
                0 => v.iter_mut().for_each(|x| *x *= big),
                1 => v[rnd(len) as usize] += big,
                _ => {
                    let at = rnd(len) as usize;
                    v[at..].iter_mut().for_each(|x| *x += big)
                }
            }
            assert_eq!(Rule::find(len, |i| v[i as usize]), slow_find(&v), "case {case}: {v:?}");
        }
    }

    #[test]
    fn long_periods_in_long_tables() {
        let period = 100_003u64;
        let pre = 12_345u64;
        let len = 1_000_000u64;
        let g = |n: u64| {
            if n < pre {
                n % 7 + 1000
            } else {
                ((n - pre) % period).wrapping_mul(0x9E3779B97F4A7C15) >> 54
            }
        };
        let r = Rule::find(len, g).unwrap();
        assert_eq!((r.pre, r.period, r.saltus), (pre, period, 0));
    }

    #[test]
    fn a_rule_reads_without_a_saltus_of_0() {
        let rule = Rule { pre: 5, period: 22, saltus: 0, checked: 100, proven: true };
        assert_eq!(rule.to_string(), "g(n+22) = g(n) for n >= 5 (proven)");
        let rule = Rule { saltus: 3, proven: false, ..rule };
        assert_eq!(
            rule.to_string(),
            "g(n+22) = g(n) + 3 for n >= 5 (checked up to n = 99, not proven beyond)"
        );
    }
}
