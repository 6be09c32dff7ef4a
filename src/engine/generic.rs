//! The generic engine: the table of any game given by its options ([`Moves`]), as the mex over
//! the options' values, on all cores.
//!
//! Positions are taken in index order, every option being below its position (checked as it
//! goes: an option at or past its position is refused, naming both). A position's options do
//! not depend on any value, so they are enumerated for a block of positions on all cores, and
//! the mexes are then taken in index order on one:
//!
//! - an option whose positions all lie before the block is worth a value already known: the
//!   thread that enumerates it folds it to that value at once, so the block keeps 4 bytes for it;
//! - an option that reaches into the block is kept as its positions, and folded when its turn
//!   comes.
//!
//! Blocks are sized to the options seen so far (about [`BLOCK_ENTRIES`] kept entries each), so
//! memory is the table and one block's options, whatever the game. The mex of a position with k
//! options is at most k, so values above k are not marked: a game whose sums reach 2^32 costs no
//! more than one whose values are small.

use super::EngineError;
use crate::games::Moves;
use crate::progress::Progress;

/// Entries (values and positions) kept for one block, across its threads: 16 to 32 MiB.
pub const BLOCK_ENTRIES: usize = 1 << 22;
/// Positions in a block, at most (and the first block's size).
const MAX_BLOCK: u64 = 1 << 16;
const FIRST_BLOCK: u64 = 256;

/// What one thread found for its positions of a block.
#[derive(Default)]
struct Found {
    /// Values of the options folded at once, position after position.
    values: Vec<u32>,
    /// For each position: where its values end in `values`, and its kept options in `kept`.
    ends: Vec<(usize, usize)>,
    /// Options reaching into the block: their length, then their positions.
    kept: Vec<u64>,
}

/// The table of `moves` on `threads` threads (at least one).
pub fn compute(moves: &dyn Moves, threads: usize, progress: &Progress) -> Result<Vec<u32>, EngineError> {
    let count = moves.count();
    let len = usize::try_from(count).map_err(|_| EngineError(format!("{count} positions do not fit in memory here")))?;
    let mut table: Vec<u32> = Vec::new();
    table.try_reserve_exact(len).map_err(|_| EngineError(format!("{count} positions ({} MiB of values) do not fit in memory here", count * 4 >> 20)))?;
    let threads = threads.max(1);
    let mut block = FIRST_BLOCK;
    let mut marks = Marks::default();
    let mut lo = 0u64;
    while lo < count {
        let hi = count.min(lo + block);
        let found = enumerate(moves, &table, lo, hi, threads)?;
        let mut entries = 0;
        for (part, f) in found.iter().enumerate() {
            entries += f.values.len() + f.kept.len();
            let first = lo + part_start(hi - lo, found.len(), part);
            let (mut v0, mut k0) = (0, 0);
            for (i, &(v1, k1)) in f.ends.iter().enumerate() {
                let p = first + i as u64;
                table.push(fold(p, &f.values[v0..v1], &f.kept[k0..k1], &table, &mut marks));
                (v0, k0) = (v1, k1);
            }
        }
        progress.tick(hi, count);
        // The next block keeps about BLOCK_ENTRIES entries, at the rate this one kept them.
        let per = (entries as u64).div_ceil(hi - lo).max(1);
        block = (BLOCK_ENTRIES as u64 / per).clamp(1, MAX_BLOCK);
        lo = hi;
    }
    Ok(table)
}

/// Where part `part` of `threads` starts in a block of `n` positions.
fn part_start(n: u64, threads: usize, part: usize) -> u64 {
    n * part as u64 / threads as u64
}

/// The options of positions lo..hi, enumerated on up to `threads` threads, one part each.
fn enumerate(moves: &dyn Moves, table: &[u32], lo: u64, hi: u64, threads: usize) -> Result<Vec<Found>, EngineError> {
    let parts = threads.min((hi - lo) as usize).max(1);
    let run = |part: usize| {
        let (a, b) = (lo + part_start(hi - lo, parts, part), lo + part_start(hi - lo, parts, part + 1));
        let mut found = Found::default();
        let mut bad = None;
        for p in a..b {
            moves.options(p, &mut |option| {
                if bad.is_some() {
                    return;
                }
                if let Some(&q) = option.iter().find(|&&q| q >= p) {
                    bad = Some((p, q));
                } else if option.iter().all(|&q| q < lo) {
                    found.values.push(option.iter().fold(0, |x, &q| x ^ table[q as usize]));
                } else {
                    found.kept.push(option.len() as u64);
                    found.kept.extend_from_slice(option);
                }
            });
            found.ends.push((found.values.len(), found.kept.len()));
        }
        match bad {
            Some((p, q)) => Err(not_below(moves, p, q)),
            None => Ok(found),
        }
    };
    if parts == 1 {
        return Ok(vec![run(0)?]);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..parts).map(|part| s.spawn(move || run(part))).collect();
        let mut all = vec![run(0)?];
        for h in handles {
            all.push(h.join().map_err(|_| EngineError("a thread enumerating options stopped".into()))??);
        }
        Ok(all)
    })
}

/// The error for an option at or past its position.
fn not_below(moves: &dyn Moves, p: u64, q: u64) -> EngineError {
    if q >= moves.count() {
        EngineError(format!("position {p} has an option at {q}, outside the table's 0..{}", moves.count()))
    } else {
        EngineError(format!(
            "position {p} has an option at {q}, not below it: the generic engine takes positions in index order, so every option must have a smaller index"
        ))
    }
}

/// The mex at `p` of the values folded already and of the kept options (length, positions).
fn fold(p: u64, values: &[u32], kept: &[u64], table: &[u32], marks: &mut Marks) -> u32 {
    let mut options = values.len();
    let mut i = 0;
    while i < kept.len() {
        options += 1;
        i += 1 + kept[i] as usize;
    }
    marks.start(options);
    for &v in values {
        marks.mark(v);
    }
    let mut i = 0;
    while i < kept.len() {
        let n = kept[i] as usize;
        let option = &kept[i + 1..i + 1 + n];
        // Every position was checked below p, and p is the next one to be computed.
        debug_assert!(option.iter().all(|&q| q < p));
        marks.mark(option.iter().fold(0, |x, &q| x ^ table[q as usize]));
        i += 1 + n;
    }
    marks.mex()
}

/// A reusable set of small values: `seen[v] == stamp` marks v for the current position, so
/// nothing is cleared between positions. Only values up to the option count are kept (the mex
/// is at most that).
#[derive(Default)]
struct Marks {
    seen: Vec<u32>,
    stamp: u32,
    limit: usize,
}

impl Marks {
    fn start(&mut self, options: usize) {
        self.limit = options;
        if self.seen.len() <= options {
            self.seen.resize(options + 1, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
    }

    fn mark(&mut self, v: u32) {
        if (v as usize) <= self.limit {
            self.seen[v as usize] = self.stamp;
        }
    }

    fn mex(&self) -> u32 {
        (0..=self.limit).find(|&v| self.seen[v] != self.stamp).unwrap_or(self.limit + 1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game from a closure, for tests.
    struct Closure<F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync>(u64, F);

    impl<F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync> Moves for Closure<F> {
        fn count(&self) -> u64 {
            self.0
        }
        fn options(&self, p: u64, f: &mut dyn FnMut(&[u64])) {
            (self.1)(p, f)
        }
    }

    #[test]
    fn nim_heaps_are_their_own_values() {
        let nim = Closure(300, |p, f| (0..p).for_each(|q| f(&[q])));
        for threads in 1..4 {
            assert_eq!(compute(&nim, threads, &Progress::silent()).unwrap(), (0..300).collect::<Vec<u32>>());
        }
    }

    #[test]
    fn an_option_not_below_its_position_is_refused_naming_both() {
        let cyclic = Closure(10, |p, f| f(&[(p + 1) % 10]));
        let e = compute(&cyclic, 2, &Progress::silent()).unwrap_err();
        assert!(e.0.starts_with("position 0 has an option at 1, not below it"), "{e}");
        let outside = Closure(10, |p, f| if p == 7 { f(&[3, 12]) });
        let e = compute(&outside, 1, &Progress::silent()).unwrap_err();
        assert!(e.0.starts_with("position 7 has an option at 12, outside the table's 0..10"), "{e}");
    }

    #[test]
    fn the_empty_option_is_worth_zero() {
        // Position p: one move that leaves nothing, and one to p − 1.
        let g = Closure(5, |p, f| {
            f(&[]);
            if p > 0 {
                f(&[p - 1]);
            }
        });
        assert_eq!(compute(&g, 1, &Progress::silent()).unwrap(), [1, 2, 1, 2, 1]);
    }
}
