//! The mex of a position's option values, with a reusable set of small values.

use super::Stop;
use crate::values::stamps::Stamps;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The mex of the values folded already and of the kept options (length, positions), every
/// position of which is computed.
pub(super) fn fold(
    values: &[u32],
    kept: &[u64],
    table: &[AtomicU32],
    marks: &mut Marks,
) -> Result<u32, Stop> {
    let mut options = values.len();
    let mut i = 0;
    while i < kept.len() {
        options += 1;
        i += 1 + kept[i] as usize;
    }
    marks.start(options)?;
    for &v in values {
        marks.mark(v);
    }
    let mut i = 0;
    while i < kept.len() {
        let n = kept[i] as usize;
        marks.mark(
            kept[i + 1..i + 1 + n].iter().fold(0, |x, &q| x ^ table[q as usize].load(Relaxed)),
        );
        i += 1 + n;
    }
    Ok(marks.mex())
}

/// The set a position's mex is taken from, reused between positions ([`Stamps`]): only values
/// up to the position's option count are kept (the mex is at most that).
#[derive(Default)]
pub(super) struct Marks {
    set: Stamps<u32>,
    limit: usize,
}

impl Marks {
    /// Starts a position of `options` options (an error where its marks do not fit in memory).
    pub(super) fn start(&mut self, options: usize) -> Result<(), Stop> {
        self.limit = options;
        if self.set.grow(options + 1).is_err() {
            let need = (options as u64 + 1).saturating_mul(4);
            let short = crate::memory::short("the options of a block", need, crate::memory::room());
            return Err(Stop::Engine(short.into()));
        }
        self.set.clear();
        Ok(())
    }

    #[inline]
    pub(super) fn mark(&mut self, v: u32) {
        if (v as usize) <= self.limit {
            self.set.mark(v as usize);
        }
    }

    pub(super) fn mex(&self) -> u32 {
        (0..=self.limit).find(|&v| !self.set.has(v)).unwrap_or(self.limit + 1) as u32
    }

    /// The mex of `values`.
    pub(super) fn mex_of(&mut self, values: &[u32]) -> Result<u32, Stop> {
        self.start(values.len())?;
        for &v in values {
            self.mark(v);
        }
        Ok(self.mex())
    }
}
