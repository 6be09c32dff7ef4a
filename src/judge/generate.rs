//! Deterministic judge inputs of any size, for benchmarks and large tests: the same problem,
//! seed and sizes always give the same bytes.

use super::Problem;
use std::io::{self, Write};

/// How big an input to make. `None` fields take the problem's largest legal value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Size {
    /// Test cases (snim: move sets; stones: lines).
    pub cases: Option<u64>,
    /// Per case: heaps (lasker), rows (chess), positions (snim), piles (funny).
    pub per_case: Option<u64>,
    /// Chess only: chips in every row (default: a random count 0..=20).
    pub chips: Option<u32>,
}

/// Most cases `gen` writes for the problems whose format sets no bound on them.
pub const MAX_CASES: u64 = 1_000_000_000;

/// A size's legal range, inclusive; `None` where the option does not apply.
type Range = Option<(u64, u64)>;

impl Size {
    /// The legal range of each size for `problem`: (cases, per case, chips), `None` where the
    /// option does not apply.
    pub fn ranges(problem: Problem) -> (Range, Range, Range) {
        match problem {
            Problem::Lasker => (Some((1, 100)), Some((1, 1_000_000)), None),
            Problem::Chess => (Some((1, MAX_CASES)), Some((1, 1000)), Some((0, 20))),
            Problem::Snim => (Some((1, MAX_CASES)), Some((1, 100)), None),
            Problem::Stones => (Some((1, MAX_CASES)), None, None),
            Problem::Funny => (Some((1, MAX_CASES)), Some((1, 23)), None),
        }
    }

    /// Refuses a size outside the problem's format (or one the problem has no use for), in one
    /// line that gives the range, rather than clamping it silently.
    pub fn check(&self, problem: Problem) -> Result<(), String> {
        let (cases, per_case, chips) = Size::ranges(problem);
        let name = problem.name();
        for (flag, given, range) in [("--cases", self.cases, cases), ("--per-case", self.per_case, per_case), ("--chips", self.chips.map(u64::from), chips)] {
            let Some(v) = given else { continue };
            match range {
                None => return Err(format!("{flag} does not apply to {name}")),
                Some((lo, hi)) if v < lo || v > hi => {
                    return Err(format!("{flag} {v} is outside {lo} to {hi} for {name}"));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// xorshift64*: small, fast and the same everywhere.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// In lo..=hi.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + (((self.next() >> 32) * (hi - lo + 1)) >> 32)
    }
}

/// Writes numbers separated by single spaces, `per_line` to a line.
fn numbers(out: &mut impl Write, count: u64, per_line: u64, mut next: impl FnMut() -> u64) -> io::Result<()> {
    for i in 0..count {
        let sep = if (i + 1) % per_line == 0 || i + 1 == count { '\n' } else { ' ' };
        write!(out, "{}{sep}", next())?;
    }
    Ok(())
}

/// Writes a legal input for `problem` to `out`.
pub fn generate(problem: Problem, seed: u64, size: Size, out: &mut impl Write) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    match problem {
        Problem::Lasker => {
            let cases = size.cases.unwrap_or(100).clamp(1, 100);
            writeln!(out, "{cases}")?;
            for _ in 0..cases {
                let n = size.per_case.unwrap_or(1_000_000).clamp(1, 1_000_000);
                writeln!(out, "{n}")?;
                numbers(out, n, 16, || rng.range(1, (1 << 31) - 1))?;
            }
        }
        Problem::Chess => {
            let cases = size.cases.unwrap_or(100);
            writeln!(out, "{cases}")?;
            for _ in 0..cases {
                let n = size.per_case.unwrap_or(1000).clamp(1, 1000);
                writeln!(out, "{n}")?;
                for _ in 0..n {
                    let m = size.chips.map_or_else(|| rng.range(0, 20), |c| c.min(20) as u64);
                    // A random m-subset of the columns 1..=20 (partial Fisher–Yates).
                    let mut cols: Vec<u64> = (1..=20).collect();
                    for i in 0..m as usize {
                        let j = rng.range(i as u64, 19) as usize;
                        cols.swap(i, j);
                    }
                    write!(out, "{m}")?;
                    for c in &cols[..m as usize] {
                        write!(out, " {c}")?;
                    }
                    writeln!(out)?;
                }
            }
        }
        Problem::Snim => {
            for _ in 0..size.cases.unwrap_or(100) {
                let k = rng.range(1, 100);
                write!(out, "{k} ")?;
                numbers(out, k, 100, || rng.range(1, 10_000))?;
                let m = size.per_case.unwrap_or(100).clamp(1, 100);
                writeln!(out, "{m}")?;
                for _ in 0..m {
                    let l = rng.range(1, 100);
                    write!(out, "{l} ")?;
                    numbers(out, l, 100, || rng.range(0, 10_000))?;
                }
            }
            writeln!(out, "0")?;
        }
        Problem::Stones => {
            for _ in 0..size.cases.unwrap_or(100_000) {
                writeln!(out, "{} {}", rng.range(1, 100), rng.range(1, 100))?;
            }
        }
        Problem::Funny => {
            for _ in 0..size.cases.unwrap_or(10_000) {
                let n = size.per_case.map_or_else(|| rng.range(1, 23), |n| n.clamp(1, 23));
                writeln!(out, "{n}")?;
                numbers(out, n, 23, || rng.range(0, 1000))?;
            }
            writeln!(out, "0")?;
        }
    }
    Ok(())
}
