//! Deterministic judge inputs of any size, for benchmarks and large tests: the same problem,
//! seed and sizes always give the same bytes.

use super::{Problem, chess, funny, lasker, snim};
use std::io::{self, Write};

/// How big an input to make. `None` fields take the problem's default ([`defaults`]).
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
type SizeRange = Option<(u64, u64)>;

impl Size {
    /// The legal range of each size for `problem`: (cases, per case, chips), `None` where the
    /// option does not apply.
    pub fn ranges(problem: Problem) -> (SizeRange, SizeRange, SizeRange) {
        match problem {
            Problem::Lasker => (Some(lasker::FORMAT.cases), Some(lasker::FORMAT.count), None),
            Problem::Chess => {
                (Some((1, MAX_CASES)), Some((1, chess::MAX_ROWS)), Some((0, chess::WIDTH as u64)))
            }
            Problem::Snim => (Some((1, MAX_CASES)), Some((1, snim::MAX_M)), None),
            Problem::Stones => (Some((1, MAX_CASES)), None, None),
            Problem::Funny => (Some((1, MAX_CASES)), Some((1, funny::MAX_PILES)), None),
        }
    }

    /// Refuses a size outside the problem's format (or one the problem has no use for), in one
    /// line that gives the range, rather than clamping it silently.
    pub fn check(&self, problem: Problem) -> Result<(), String> {
        let (cases, per_case, chips) = Size::ranges(problem);
        let name = problem.name();
        for (flag, given, range) in [
            ("--cases", self.cases, cases),
            ("--per-case", self.per_case, per_case),
            ("--chips", self.chips.map(u64::from), chips),
        ] {
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
fn numbers(
    out: &mut impl Write,
    count: u64,
    per_line: u64,
    mut next: impl FnMut() -> u64,
) -> io::Result<()> {
    for i in 0..count {
        let sep = if (i + 1) % per_line == 0 || i + 1 == count { '\n' } else { ' ' };
        write!(out, "{}{sep}", next())?;
    }
    Ok(())
}

/// Default sizes: a few MB of input for each problem (the largest legal lasker input is 1.05 GB:
/// ask for it with `--cases 100 --per-case 1000000`).
pub mod defaults {
    /// Lasker: cases, heaps a case (about 5 MB).
    pub const LASKER: (u64, u64) = (10, 50_000);
    /// Chess: cases, rows a case (about 2.8 MB).
    pub const CHESS: (u64, u64) = (100, 1000);
    /// S-Nim: move sets, positions a set (about 2.5 MB).
    pub const SNIM: (u64, u64) = (100, 100);
    /// Stones: lines (about 0.6 MB).
    pub const STONES: u64 = 100_000;
    /// Funny: games (about 0.5 MB).
    pub const FUNNY: u64 = 10_000;
}

/// The values the generator balances verdicts with: from the games' own definitions.
struct Values {
    /// Lasker's Nim: g(1..=4), the rule g(n + 4) = g(n) + 4 doing the rest.
    lasker: [u64; 4],
    /// Chess rows of 20 cells, and the rows of each chip count (21: any) by value.
    chess: Vec<u8>,
    chess_by: Vec<Vec<Vec<u32>>>,
    /// Taking 1, 3 or 9 stones: heaps 0..=100.
    stones: Vec<u32>,
    /// A Funny Stone Game: a stone with r piles to its right, r < 23.
    funny: Vec<u32>,
}

impl Values {
    fn new(problem: Problem) -> Values {
        let silent = crate::progress::Progress::silent();
        let mut v = Values {
            lasker: [0; 4],
            chess: vec![],
            chess_by: vec![],
            stones: vec![],
            funny: vec![],
        };
        match problem {
            Problem::Lasker => {
                let head = crate::games::lasker::reference(5);
                v.lasker = [head[1] as u64, head[2] as u64, head[3] as u64, head[4] as u64];
            }
            Problem::Chess => {
                v.chess = crate::games::chess::reference(20, &silent);
                let max = v.chess.iter().copied().max().unwrap_or(0) as usize;
                // By chip count (0..=20), and at 21 whatever the count.
                v.chess_by = vec![vec![Vec::new(); max + 1]; 22];
                for (row, &g) in v.chess.iter().enumerate() {
                    v.chess_by[(row as u32).count_ones() as usize][g as usize].push(row as u32);
                    v.chess_by[21][g as usize].push(row as u32);
                }
            }
            Problem::Stones => v.stones = crate::games::sub::reference(&[1, 3, 9], 101),
            Problem::Funny => v.funny = crate::games::funny::reference(23),
            Problem::Snim => {}
        }
        v
    }

    /// Lasker's Nim, heap h ≥ 1.
    fn lasker(&self, h: u64) -> u64 {
        self.lasker[((h - 1) % 4) as usize] + 4 * ((h - 1) / 4)
    }

    /// The heap of Lasker's Nim worth `v`, if one is (v ≥ 1): the rule maps each block of four
    /// onto itself.
    fn lasker_heap(&self, v: u64) -> Option<u64> {
        let base = (v.checked_sub(1)? / 4) * 4;
        (1..=4).map(|r| base + r).find(|&h| self.lasker(h) == v)
    }
}

/// A draw that is, in half the cases, the position's second player's win (its values XOR to
/// 0): the generator makes the last part of each case to the verdict drawn, so that a generated
/// file tests both branches of an answer.
fn want_zero(rng: &mut Rng) -> bool {
    rng.next() >> 63 == 1
}

/// Writes a legal input for `problem` to `out`. Sizes left out take the problem's defaults
/// ([`defaults`]); about half the cases (positions, for S-Nim) are second-player wins.
pub fn generate(problem: Problem, seed: u64, size: Size, out: &mut impl Write) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    let values = Values::new(problem);
    match problem {
        Problem::Lasker => lasker(&values, &mut rng, size, out)?,
        Problem::Chess => chess(&values, &mut rng, size, out)?,
        Problem::Snim => snim(&mut rng, size, out)?,
        Problem::Stones => {
            for _ in 0..size.cases.unwrap_or(defaults::STONES) {
                let n1 = rng.range(1, 100);
                let zero = want_zero(&mut rng);
                let mut n2 = rng.range(1, 100);
                // Heaps 1..=100 of either value are many: a few tries find one.
                for _ in 0..64 {
                    if (values.stones[n1 as usize] == values.stones[n2 as usize]) == zero {
                        break;
                    }
                    n2 = rng.range(1, 100);
                }
                writeln!(out, "{n1} {n2}")?;
            }
        }
        Problem::Funny => {
            for _ in 0..size.cases.unwrap_or(defaults::FUNNY) {
                let n = size.per_case.map_or_else(|| rng.range(1, 23), |n| n.clamp(1, 23)) as usize;
                let mut counts: Vec<u64> = (0..n).map(|_| rng.range(0, 1000)).collect();
                let zero = want_zero(&mut rng);
                funny_to(&values.funny, &mut counts, zero);
                writeln!(out, "{n}")?;
                numbers(out, n as u64, 23, {
                    let mut it = counts.iter();
                    move || *it.next().unwrap_or(&0)
                })?;
            }
            writeln!(out, "0")?;
        }
    }
    Ok(())
}

/// Lasker: each case's last heap made to the verdict drawn (Bob: the XOR of the heaps' values 0).
fn lasker(values: &Values, rng: &mut Rng, size: Size, out: &mut impl Write) -> io::Result<()> {
    let ((least, most), (fewest, heaps)) = (lasker::FORMAT.cases, lasker::FORMAT.count);
    let cases = size.cases.unwrap_or(defaults::LASKER.0).clamp(least, most);
    writeln!(out, "{cases}")?;
    for _ in 0..cases {
        let n = size.per_case.unwrap_or(defaults::LASKER.1).clamp(fewest, heaps);
        let zero = want_zero(rng);
        writeln!(out, "{n}")?;
        let mut x = 0;
        let mut i = 0;
        numbers(out, n, 16, || {
            i += 1;
            let h = rng.range(1, lasker::MAX_HEAP);
            if i < n {
                x ^= values.lasker(h);
                return h;
            }
            // The last heap: worth x (a zero sum) where a heap is, else anything else.
            match values.lasker_heap(x).filter(|&h| zero && h <= lasker::MAX_HEAP) {
                Some(h) => h,
                None if values.lasker(h) == x => h % (lasker::MAX_HEAP - 1) + 1,
                None => h,
            }
        })?;
    }
    Ok(())
}

/// Chess: each case's last rows made to the verdict drawn (NO: the XOR of the rows' values 0).
fn chess(values: &Values, rng: &mut Rng, size: Size, out: &mut impl Write) -> io::Result<()> {
    let cases = size.cases.unwrap_or(defaults::CHESS.0);
    let write_row = |out: &mut dyn Write, row: u32| -> io::Result<()> {
        // Column p is bit 20 − p.
        let cols: Vec<u32> = (0..20).rev().filter(|b| row >> b & 1 == 1).map(|b| 20 - b).collect();
        write!(out, "{}", cols.len())?;
        for c in &cols {
            write!(out, " {c}")?;
        }
        writeln!(out)
    };
    writeln!(out, "{cases}")?;
    for _ in 0..cases {
        let n = size.per_case.unwrap_or(defaults::CHESS.1).clamp(1, 1000);
        let zero = want_zero(rng);
        writeln!(out, "{n}")?;
        let mut x = 0u8;
        let random_row = |rng: &mut Rng| {
            let m = size.chips.map_or_else(|| rng.range(0, 20), |c| c.min(20) as u64) as usize;
            // A random m-subset of the columns 1..=20 (partial Fisher–Yates), as a row.
            let mut cols: Vec<u32> = (1..=20).collect();
            for i in 0..m {
                let j = rng.range(i as u64, 19) as usize;
                cols.swap(i, j);
            }
            crate::games::chess::row_from_columns(20, &cols[..m])
        };
        // The rows before the last one or two.
        let tail = n.min(2);
        for _ in 0..n - tail {
            let row = random_row(rng);
            x ^= values.chess[row as usize];
            write_row(out, row)?;
        }
        // The last rows: of the chip count --chips asks for, else of any, worth together x
        // (NO), or anything else (YES).
        let rows = &values.chess_by[size.chips.map_or(21, |c| c.min(20) as usize)];
        let pick = |rng: &mut Rng, v: usize| -> Option<u32> {
            let list = rows.get(v).filter(|l| !l.is_empty())?;
            Some(list[rng.range(0, list.len() as u64 - 1) as usize])
        };
        let mut last: Vec<u32> = (0..tail).map(|_| random_row(rng)).collect();
        if zero {
            let a = if tail == 2 { rng.range(0, rows.len() as u64 - 1) as usize } else { 0 };
            // The one before the last worth a (a value whose partner x ^ a has rows too).
            let found = (0..rows.len()).map(|d| (a + d) % rows.len()).find_map(|a| {
                let b = x as usize ^ a;
                if tail == 2 {
                    Some((pick(rng, a)?, pick(rng, b)?))
                } else {
                    (a == 0).then_some(())?;
                    Some((0, pick(rng, b)?))
                }
            });
            if let Some((r1, r2)) = found {
                if tail == 2 {
                    last[0] = r1;
                }
                last[tail as usize - 1] = r2;
            }
        } else {
            let sum = |last: &[u32]| last.iter().fold(x, |x, &r| x ^ values.chess[r as usize]);
            for _ in 0..64 {
                if sum(&last) != 0 {
                    break;
                }
                last[tail as usize - 1] = random_row(rng);
            }
        }
        for &row in &last {
            write_row(out, row)?;
        }
    }
    Ok(())
}

/// S-Nim: each case's table built from its move set, each position's last heap made to the
/// verdict drawn (L: the XOR of its heaps' values 0).
fn snim(rng: &mut Rng, size: Size, out: &mut impl Write) -> io::Result<()> {
    for _ in 0..size.cases.unwrap_or(defaults::SNIM.0) {
        let k = rng.range(1, 100);
        let mut moves: Vec<u32> = (0..k).map(|_| rng.range(1, 10_000) as u32).collect();
        write!(out, "{k} ")?;
        numbers(out, k, 100, {
            let mut it = moves.clone().into_iter();
            move || it.next().unwrap_or(1) as u64
        })?;
        let table = super::snim::table(&mut moves);
        let mut by: Vec<Vec<u16>> = vec![Vec::new(); 256];
        for (h, &g) in table.iter().enumerate() {
            by[g as usize].push(h as u16);
        }
        let m = size.per_case.unwrap_or(defaults::SNIM.1).clamp(1, 100);
        writeln!(out, "{m}")?;
        for _ in 0..m {
            let l = rng.range(1, 100);
            let zero = want_zero(rng);
            let mut heaps: Vec<u64> = (0..l).map(|_| rng.range(0, 10_000)).collect();
            let x = heaps[..heaps.len() - 1].iter().fold(0u8, |x, &h| x ^ table[h as usize]);
            let last = heaps.last_mut().expect("l ≥ 1");
            if zero {
                if let Some(hs) = by.get(x as usize).filter(|hs| !hs.is_empty()) {
                    *last = hs[rng.range(0, hs.len() as u64 - 1) as usize] as u64;
                }
            } else {
                for _ in 0..64 {
                    if table[*last as usize] != x {
                        break;
                    }
                    *last = rng.range(0, 10_000);
                }
            }
            write!(out, "{l} ")?;
            numbers(out, l, 100, {
                let mut it = heaps.into_iter();
                move || it.next().unwrap_or(0)
            })?;
        }
    }
    writeln!(out, "0")
}

/// A Funny Stone Game: the piles' parities changed so that the game's value (the XOR, over the
/// piles with an odd count, of g(piles to the right)) is 0 when `zero`, else not 0, where that
/// can be done; a pile's parity is changed by one stone.
fn funny_to(g: &[u32], counts: &mut [u64], zero: bool) {
    let n = counts.len();
    let value = |i: usize| g[n - 1 - i];
    let total = (0..n).filter(|&i| counts[i] % 2 == 1).fold(0, |x, i| x ^ value(i));
    let toggle = |c: &mut u64| *c = if *c < 1000 { *c + 1 } else { *c - 1 };
    if !zero {
        if total == 0
            && let Some(i) = (0..n).find(|&i| value(i) != 0)
        {
            toggle(&mut counts[i]);
        }
        return;
    }
    // A set of piles whose values XOR to the total, by elimination over GF(2): each basis
    // vector is a value and the piles that make it.
    let mut basis: Vec<(u32, u32)> = Vec::new();
    for i in 0..n {
        let (mut v, mut piles) = (value(i), 1u32 << i);
        for &(b, p) in &basis {
            if v ^ b < v {
                v ^= b;
                piles ^= p;
            }
        }
        if v != 0 {
            basis.push((v, piles));
            basis.sort_unstable_by_key(|b| std::cmp::Reverse(b.0));
        }
    }
    let (mut t, mut piles) = (total, 0u32);
    for &(b, p) in &basis {
        if t ^ b < t {
            t ^= b;
            piles ^= p;
        }
    }
    if t == 0 {
        for (i, c) in counts.iter_mut().enumerate() {
            if piles >> i & 1 == 1 {
                toggle(c);
            }
        }
    }
}
