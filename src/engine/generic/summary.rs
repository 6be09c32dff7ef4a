//! Orders by summaries ([`crate::games::summary`]), for sources that fold options where they
//! make them (a native game): positions in, a few words a position out.
//!
//! **By index.** Blocks of positions: each thread summarises its run of the block with every
//! position below the block known, then the positions are finished in order on this thread,
//! each from its kept options (all inside the block, so already finished) and its gaps. A
//! kept option costs this serial pass a few steps, and a block costs a round trip to the
//! threads, so the block size is chosen by work counted (options enumerated, parts kept), not
//! time: it doubles or halves, whichever lowered the overhead per option last time, the
//! overhead being [`ROUND`] option-equivalents a block and [`KEPT`] a kept part.
//!
//! The first thread's run of a block starts at the first unknown position, so it computes it
//! itself, each position from those before it; the other threads' runs are summarised, and
//! their kept parts finished here, while the threads wait. So a position of the first run
//! costs one computation, one of the others a summary on its thread and its finishing here:
//! the first run's share of the block is chosen from the seconds each took per position so far
//! ([`Split`]) so that the threads finish together and the finishing here does not outweigh
//! what the other threads take off the first. Where the blocks shared so far took longer per
//! position, whole (the rounds' waits, a busy machine), than the first thread computing alone,
//! the first thread takes whole blocks, and shares one block in [`PROBE`] to measure again.
//!
//! **By rank.** Every option of a position of one rank is of a lower rank, so known: each
//! thread's positions are summarised to their values and stored at once.

use super::{Pool, Reply, Stop, Task};
use crate::games::Worker;
use crate::games::summary::{Ask, Summaries};
use crate::progress::Progress;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// A block's round trip to the threads, in options enumerated (about 1 ns each).
const ROUND: u64 = 20_000;
/// A kept part, finished on one thread, in options enumerated.
const KEPT: u64 = 4;
/// Positions in a block, at most.
const MAX_BLOCK: u64 = 1 << 16;

/// The summaries of `positions` with those below `known` (or, with `ranks`, those of a lower
/// rank) known.
pub(super) fn summarize(
    worker: &mut dyn Worker,
    positions: &[u64],
    known: u64,
    ranks: Option<(&[i64], i64)>,
    vmax: u32,
    table: &[AtomicU32],
    out: &mut Summaries,
) -> Result<(), Stop> {
    // Positions come in increasing order (a block's run, or a rank's positions in index
    // order), so the first and the last say whether they run on from `known`.
    debug_assert!(positions.windows(2).all(|w| w[0] < w[1]), "positions in increasing order");
    let fill = ranks.is_none()
        && positions.first() == Some(&known)
        && positions.last().is_some_and(|&l| l - known + 1 == positions.len() as u64);
    let ask = Ask { positions, values: table, known, ranks, vmax, fill };
    worker.summaries(&ask, out).map_err(Stop::Game)
}

pub(super) fn malformed() -> Stop {
    Stop::Engine(super::EngineError::game(
        "the game's summaries are malformed (a library that does not keep to sgtab.h's word \
            format?)",
    ))
}

/// Reads words one at a time, refusing to run past their end.
pub(super) struct Reader<'a> {
    words: &'a [u64],
    at: usize,
    /// Kept options' values, and marks of those values (`seen[v] == stamp`).
    values: Vec<u32>,
    seen: Vec<u32>,
    stamp: u32,
}

impl<'a> Reader<'a> {
    pub(super) fn new(words: &'a [u64]) -> Reader<'a> {
        Reader { words, at: 0, values: Vec::new(), seen: Vec::new(), stamp: 0 }
    }

    fn word(&mut self) -> Result<u64, Stop> {
        let w = *self.words.get(self.at).ok_or_else(malformed)?;
        self.at += 1;
        Ok(w)
    }

    /// The value of the next position, p, whose kept parts are worth `part(q)` (or refused by
    /// it); also the number of parts it kept.
    pub(super) fn next(
        &mut self,
        p: u64,
        part: impl Fn(u64, u64) -> Result<u32, Stop>,
    ) -> Result<(u32, u64), Stop> {
        let r = self.word()?;
        if r == 0 {
            let v = self.word()?;
            return u32::try_from(v).map(|v| (v, 0)).map_err(|_| malformed());
        }
        if r > (self.words.len() - self.at) as u64 {
            return Err(malformed());
        }
        self.values.clear();
        let mut parts = 0;
        for _ in 0..r {
            let k = self.word()?;
            if k > (self.words.len() - self.at) as u64 {
                return Err(malformed());
            }
            let mut x = 0;
            for _ in 0..k {
                x ^= part(p, self.word()?)?;
            }
            parts += k;
            self.values.push(x);
        }
        let gaps = self.words.get(self.at..self.at + r as usize + 1).ok_or_else(malformed)?;
        self.at += r as usize + 1;
        // The first gap no kept option has: the kept values up to the last gap are marked.
        let last = u32::try_from(gaps[gaps.len() - 1]).map_err(|_| malformed())? as usize;
        if self.seen.len() <= last {
            let more = last + 1 - self.seen.len();
            if let Some(stop) = super::room(&mut self.seen, more) {
                return Err(stop);
            }
            self.seen.resize(last + 1, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        for &v in &self.values {
            if v as usize <= last {
                self.seen[v as usize] = self.stamp;
            }
        }
        let free = gaps
            .iter()
            .find(|&&g| g as usize <= last && self.seen[g as usize] != self.stamp)
            .ok_or_else(malformed)?;
        Ok((*free as u32, parts))
    }

    pub(super) fn done(&self) -> bool {
        self.at == self.words.len()
    }
}

/// Estimates the options left from those counted so far: the options of a position taken to
/// grow linearly with it, fitted to the average so far and the last block's.
struct Work {
    done: u64,
}

impl Work {
    fn total(&self, count: u64, lo: u64, last_per_position: f64) -> u64 {
        if lo == 0 {
            return self.done.max(1);
        }
        let (avg, now, lo_f, n) =
            (self.done as f64 / lo as f64, last_per_position, lo as f64, count as f64);
        let b = (2.0 * (now - avg) / lo_f).max(0.0);
        let a = (avg - b * lo_f / 2.0).max(0.0);
        let left = a * (n - lo_f) + b / 2.0 * (n * n - lo_f * lo_f);
        self.done + left as u64
    }
}

/// The first thread's share of a block, from the seconds per position measured so far (a
/// moving average): `fill` for a position it computes, `summary` for one summarised on another
/// thread, `finish` for finishing one here.
pub(super) struct Split {
    pub(super) fill: f64,
    pub(super) summary: f64,
    pub(super) finish: f64,
    /// A shared block's seconds per position, from sending its tasks to its last value.
    pub(super) shared: f64,
}

/// Blocks taken whole by the first thread between two shared ones, where sharing did not pay.
const PROBE: u64 = 8;

impl Split {
    /// The most of a block the first thread takes (it takes at least its even share): the
    /// others always get some, so that their costs stay measured.
    pub(super) const MOST: f64 = 0.9;

    /// The share that makes the threads finish together, or the most where the finishing here
    /// costs more than the other threads save.
    pub(super) fn share(&self, threads: usize) -> f64 {
        let least = 1.0 / threads as f64;
        if threads < 2 || !(self.fill > 0.0 && self.summary > 0.0) {
            return least;
        }
        let others = (threads - 1) as f64;
        // f * fill = (1 - f) / others * summary.
        let even = self.summary / (self.summary + others * self.fill);
        let cost = |f: f64| {
            (f * self.fill).max((1.0 - f) / others * self.summary) + (1.0 - f) * self.finish
        };
        let f = even.clamp(least, Self::MOST);
        if cost(f) <= cost(Self::MOST) { f } else { Self::MOST }
    }

    fn note(average: &mut f64, seconds: f64, positions: usize) {
        if positions > 0 {
            let now = seconds / positions as f64;
            *average = if *average > 0.0 { 0.75 * *average + 0.25 * now } else { now };
        }
    }
}

/// In index order, block by block (see the module docs).
pub(super) fn by_index(
    pool: &mut Pool,
    table: &[AtomicU32],
    progress: &Progress,
) -> Result<(), Stop> {
    let count = table.len() as u64;
    let (mut lo, mut block, mut vmax) = (0u64, 1u64, 0u32);
    let (mut grow, mut last) = (true, f64::INFINITY);
    let mut work = Work { done: 0 };
    let mut split = Split { fill: 0.0, summary: 0.0, finish: 0.0, shared: 0.0 };
    let mut blocks = 0u64;
    while lo < count {
        let hi = count.min(lo + block);
        let n = (hi - lo) as usize;
        blocks += 1;
        let alone = split.shared > split.fill && split.fill > 0.0 && !blocks.is_multiple_of(PROBE);
        let threads = pool.threads().min(n);
        let parts = if alone { 1 } else { threads };
        // The first run is `first` positions; the others share the rest evenly.
        let first = ((n as f64 * split.share(parts)).round() as usize).clamp(1, n + 1 - parts);
        let tasks = block_tasks(pool, lo, n, parts, first, vmax);
        let (mut kept, mut options) = (0u64, 0u64);
        let (mut summarised, mut slowest) = (0, 0.0f64);
        let sent = std::time::Instant::now();
        let replies = pool.round(tasks)?;
        let finishing = std::time::Instant::now();
        for reply in replies {
            let Reply::Summaries(positions, out, seconds) = reply else {
                unreachable!("summaries give Summaries")
            };
            if out.filled {
                Split::note(&mut split.fill, seconds, positions.len());
            } else {
                summarised += positions.len();
                slowest = slowest.max(seconds / positions.len().max(1) as f64);
            }
            kept += finish(table, &positions, &out, &mut vmax)?;
            options += out.options;
            pool.spare_summaries.push(out);
        }
        if summarised > 0 {
            Split::note(&mut split.summary, slowest * summarised as f64, summarised);
            Split::note(&mut split.finish, finishing.elapsed().as_secs_f64(), summarised);
            Split::note(&mut split.shared, sent.elapsed().as_secs_f64(), n);
        }
        work.done += options;
        progress.tick(work.done, work.total(count, hi, options as f64 / n as f64));
        lo = hi;
        if alone && threads > 1 {
            // Sized as the shared blocks are, so that the next one shared is no larger.
            continue;
        }
        // The overhead per position: a round, and the kept parts finished here. Neither grows
        // with the positions' options, so blocks far apart compare.
        let overhead = (ROUND + KEPT * kept) as f64 / n as f64;
        if overhead > last {
            grow = !grow;
        }
        last = overhead;
        block = if grow { block * 2 } else { block / 2 }.clamp(1, MAX_BLOCK);
    }
    Ok(())
}

/// The tasks of the block of `n` positions from `lo`: the first run `first` positions, the
/// other `parts - 1` sharing the rest evenly.
fn block_tasks(
    pool: &mut Pool,
    lo: u64,
    n: usize,
    parts: usize,
    first: usize,
    vmax: u32,
) -> Vec<Task> {
    let start = |part: usize| match part {
        0 => 0,
        _ if part >= parts => n,
        _ => first + super::part_start(n - first, parts - 1, part - 1),
    };
    (0..parts)
        .map(|part| {
            let (a, b) = (start(part) as u64, start(part + 1) as u64);
            Task::Summaries {
                positions: (lo + a..lo + b).collect(),
                known: lo,
                vmax,
                out: pool.summaries(),
            }
        })
        .collect()
}

/// The values of a block's run from its summaries, into the table (a run the worker computed
/// itself is there already); the parts kept.
fn finish(
    table: &[AtomicU32],
    positions: &[u64],
    out: &Summaries,
    vmax: &mut u32,
) -> Result<u64, Stop> {
    let count = table.len() as u64;
    let value = |q: u64| table[q as usize].load(Relaxed);
    if let Some((p, q)) = out.below {
        return Err(if q >= count { Stop::Outside(p, q) } else { Stop::NotBelow(p, q) });
    }
    if out.filled {
        // The worker computed its positions itself, each from the ones before.
        *vmax = match out.vmax {
            Some(most) => most,
            None => positions.iter().fold(*vmax, |m, &p| m.max(value(p))),
        };
        return Ok(0);
    }
    let mut reader = Reader::new(&out.words);
    let mut kept = 0;
    for &p in positions {
        let (v, k) = reader.next(p, |p, q| match q {
            q if q >= count => Err(Stop::Outside(p, q)),
            q if q >= p => Err(Stop::NotBelow(p, q)),
            q => Ok(value(q)),
        })?;
        table[p as usize].store(v, Relaxed);
        *vmax = (*vmax).max(v);
        kept += k;
    }
    if !reader.done() {
        return Err(malformed());
    }
    Ok(kept)
}

/// The positions of one rank, summarised with every lower rank known and stored; the largest
/// value stored.
pub(super) fn layer(
    worker: &mut dyn Worker,
    positions: &[u64],
    rank: i64,
    ranks: &[i64],
    vmax: u32,
    table: &[AtomicU32],
    out: &mut Summaries,
) -> Result<u32, Stop> {
    let count = table.len() as u64;
    summarize(worker, positions, 0, Some((ranks, rank)), vmax, table, out)?;
    let mut reader = Reader::new(&out.words);
    let mut most = 0;
    for &p in positions {
        let (v, _) = reader.next(p, |p, q| match q {
            q if q >= count => Err(Stop::Outside(p, q)),
            q if ranks[q as usize] >= rank => Err(Stop::Rank(p, q, rank, ranks[q as usize])),
            q => Ok(table[q as usize].load(Relaxed)),
        })?;
        table[p as usize].store(v, Relaxed);
        most = most.max(v);
    }
    if !reader.done() {
        return Err(malformed());
    }
    Ok(most)
}
