//! Summaries of positions: what the generic engine needs of a block of positions, in a few words
//! each, instead of every option ([`super::Worker::summaries`]).
//!
//! An option whose positions are all known (below the block in index order; of a lower rank in
//! rank order) is folded at once into the position's marks; the others are kept. A position
//! with none kept is summarised by its value; one with r kept by those r options and the first
//! r + 1 values its folded options miss (its "gaps"): once the kept options' values are known,
//! its value is the first gap none of them has. So a summary is O(r) words, not O(options).
//!
//! The words, position after position: r; then, where r = 0, the value; otherwise the r kept
//! options, each as k and k table indices (a sum of k positions), then the r + 1 gaps in
//! increasing order. It is the word stream of sgtab's C interface (`sgtab.h`), which a
//! native game's library writes itself.

use super::{GameError, Worker};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Which positions' values are known to a summary, and where the table is.
pub struct Ask<'a> {
    /// The positions to summarise, in the order their summaries are wanted.
    pub positions: &'a [u64],
    /// The table: final below `known`, or (with `ranks`) where the rank is below `rank`.
    pub values: &'a [AtomicU32],
    /// Positions below this index are known (0 with `ranks`).
    pub known: u64,
    /// By rank: the rank of every position, and the rank of the positions asked.
    pub ranks: Option<(&'a [i64], i64)>,
    /// No known value is above this.
    pub vmax: u32,
    /// The positions are consecutive from `known` up, and the worker may compute them itself,
    /// in order, storing each value into `values` ([`Summaries::filled`]).
    pub fill: bool,
}

/// The summaries of the positions of an [`Ask`], as words (see the module docs).
#[derive(Default)]
pub struct Summaries {
    pub words: Vec<u64>,
    /// Options enumerated, for progress by work done.
    pub options: u64,
    /// The worker stored the positions' values into the table itself ([`Ask::fill`]); no words.
    pub filled: bool,
    /// Where filling met an option not below its position: the position and the option's.
    pub below: Option<(u64, u64)>,
    /// Where the worker filled: the largest value known (at least the `vmax` it was asked
    /// with), where it says; else the engine reads the values it stored.
    pub vmax: Option<u32>,
}

/// [`Worker::summaries`] from the worker's options: the default for workers that give only
/// options (scripts). An option naming a position outside the table or (by rank) of no lower
/// rank is kept, for the engine to refuse with its own message.
pub fn from_options<W: Worker + ?Sized>(
    worker: &mut W,
    ask: &Ask,
    out: &mut Summaries,
) -> Result<(), GameError> {
    let count = ask.values.len() as u64;
    let known = |q: u64| match ask.ranks {
        Some((ranks, rank)) => q < count && ranks[q as usize] < rank,
        None => q < ask.known,
    };
    let mut one = Position::default();
    let mut at = 0;
    out.words.clear();
    out.options = 0;
    out.filled = false;
    out.below = None;
    out.vmax = None;
    let options = &mut out.options;
    let words = &mut out.words;
    worker.options(ask.positions, &mut |p, option| {
        while at < ask.positions.len() && ask.positions[at] != p {
            one.finish(words);
            at += 1;
        }
        *options += 1;
        if option.iter().all(|&q| known(q)) {
            one.folded
                .push(option.iter().fold(0, |x, &q| x ^ ask.values[q as usize].load(Relaxed)));
        } else {
            one.kept.push(option.len() as u64);
            one.kept.extend_from_slice(option);
            one.r += 1;
        }
    })?;
    while at < ask.positions.len() {
        one.finish(words);
        at += 1;
    }
    Ok(())
}

/// One position's options as they come.
#[derive(Default)]
struct Position {
    folded: Vec<u32>,
    kept: Vec<u64>,
    r: u64,
    marks: Vec<bool>,
}

impl Position {
    /// Appends the summary and starts the next position.
    fn finish(&mut self, words: &mut Vec<u64>) {
        // The gaps lie at or below the number of options.
        let top = self.folded.len() + self.r as usize + 1;
        self.marks.clear();
        self.marks.resize(top, false);
        for &v in &self.folded {
            if (v as usize) < top {
                self.marks[v as usize] = true;
            }
        }
        let mut gaps = (0..top as u64).filter(|&v| !self.marks[v as usize]);
        words.push(self.r);
        if self.r == 0 {
            words.push(gaps.next().unwrap_or(0));
        } else {
            words.extend_from_slice(&self.kept);
            words.extend(gaps.take(self.r as usize + 1));
        }
        self.folded.clear();
        self.kept.clear();
        self.r = 0;
    }
}
