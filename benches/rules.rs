//! The rule finder on large tables, in one run: `Rule::find` (the earliest start, then the
//! smallest period, with margin) and `Rule::find_where` with a Guy-Smith-like test (the rules
//! proven by the table's length), on packed tables of 10^6 values: pre-period 12 345 and period
//! 10^5, pre-period 53 and period 3 (the common case), and no rule at all (random bytes, and
//! values below 4, whose differences repeat more often); the 2^22 chess rows of HDU 5724 (small
//! values in stretches that repeat, no rule: what a user's row game gives); then 2^24 values,
//! past the search's window of 2^22, of period 3 and of one value repeated (every period holds
//! to the start, the most work the windows can take). The time per million values shows it
//! linear.
//!
//! Run: `cargo bench --bench rules` (RULES_BENCH_RUNS runs each, default 7): median and best;
//! RULES_BENCH_ONLY=TEXT runs the tables whose name holds TEXT.

use sgtab::values::{Packed, Rule};
use std::time::{Duration, Instant};

fn table(len: usize, pre: usize, period: usize, seed: u64) -> Packed {
    table_of(len, pre, period, seed, 0xFF)
}

/// As [`table`], with values below `mask + 1` (a power of two).
fn table_of(len: usize, pre: usize, period: usize, seed: u64, mask: u32) -> Packed {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 40) as u32 & mask
    };
    let head: Vec<u32> = (0..pre).map(|_| next()).collect();
    let block: Vec<u32> = (0..period).map(|_| next()).collect();
    let mut values: Vec<u32> =
        (0..len).map(|n| if n < pre { head[n] } else { block[(n - pre) % period] }).collect();
    if pre > 0 && pre < len {
        values[pre - 1] = values[pre - 1 + period] ^ 1;
    }
    Packed::from_values(&values)
}

/// The values of every chess row of `width` cells, indexed by the row's bits: small values
/// whose differences repeat in short stretches, the table a user's C++ row game gives.
fn chess_rows(width: u32) -> Packed {
    let values: Vec<u32> =
        sgtab::engine::chess::textbook::chess(width).into_iter().map(u32::from).collect();
    Packed::from_values(&values)
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut times = Vec::new();
    let mut out = None;
    for _ in 0..runs {
        let start = Instant::now();
        out = Some(f());
        times.push(start.elapsed());
    }
    times.sort();
    (times[times.len() / 2], times[0], out.unwrap())
}

fn main() {
    let runs: usize =
        std::env::var("RULES_BENCH_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let cases = [
        ("10^6 values, pre 12345, period 10^5", table(1_000_000, 12_345, 100_000, 1)),
        ("10^6 values, pre 53, period 3", table(1_000_000, 53, 3, 2)),
        ("10^6 values, no rule", table(1_000_000, 1_000_000, 1, 3)),
        ("10^6 values below 4, no rule", table_of(1_000_000, 1_000_000, 1, 6, 3)),
        ("2^22 chess rows (HDU 5724), no rule", chess_rows(22)),
        ("2^24 values, pre 53, period 3", table(1 << 24, 53, 3, 4)),
        ("2^24 values, all equal", table(1 << 24, 0, 1, 5)),
    ];
    println!(
        "{:<38} {:>11} {:>11} {:>13} {:>13} {:>10}  rule",
        "table", "find med", "find best", "proven med", "proven best", "med/10^6"
    );
    let only = std::env::var("RULES_BENCH_ONLY").unwrap_or_default();
    for (name, values) in cases.iter().filter(|(name, _)| name.contains(&only)) {
        let get = |i: u64| values.get(i) as u64;
        let proven = |r: &Rule| r.saltus == 0 && r.checked >= 2 * r.pre + 2 * r.period + 3;
        let (med, best, rule) = time(runs, || Rule::find(values.len(), get));
        let (pmed, pbest, prule) = time(runs, || Rule::find_where(values.len(), get, proven));
        assert_eq!(rule, prule, "{name}: both find the same rule here");
        let shown =
            rule.map_or("none".to_string(), |r| format!("pre {} period {}", r.pre, r.period));
        let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1e3);
        let per_million = med.div_f64(values.len() as f64 / 1e6);
        println!(
            "{name:<38} {:>11} {:>11} {:>13} {:>13} {:>10}  {shown}",
            ms(med),
            ms(best),
            ms(pmed),
            ms(pbest),
            ms(per_million)
        );
    }
}
