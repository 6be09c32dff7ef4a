//! A Python game's values in index order, on the calling thread: each position's options are
//! listed (by `moves` or `batch`, a block of positions a call) and folded at once into the mex,
//! every option's positions being below it and so known already.
//!
//! Python runs one call at a time (the GIL), so listing options on several threads gains
//! nothing; what is left is the mex and the XOR of each option's values, which this does straight
//! from what `moves` or `batch` returned, with no buffer between. That is several times cheaper
//! than handing each option to the library's generic engine (measured in docs/python.md), which
//! remains the engine of every game this order cannot take: a game with a `rank`, or one where
//! some option is not below its position (the engine then orders the move graph, and refuses a
//! cycle).

use crate::batch::Batch;
use crate::game::Running;
use crate::plain::Plain;
use pyo3::prelude::*;

/// Positions listed in one call of the lister at most (from the first block on, doubling).
const MAX_BLOCK: u64 = 1 << 16;
const FIRST_BLOCK: u64 = 256;

/// The values of `game` in index order; `Ok(None)` where some option is not below its position
/// (the library's engine takes the game then); an error as the engine words one.
pub fn in_order(game: &Running) -> Result<Option<Vec<u32>>, String> {
    let count = game.shape.iter().product::<u64>();
    let len = usize::try_from(count)
        .map_err(|_| format!("{count} positions do not fit in memory here"))?;
    let mut values: Vec<u32> = Vec::new();
    values.try_reserve_exact(len).map_err(|_| {
        format!("its {len} values ({} bytes) do not fit in memory here", len.saturating_mul(4))
    })?;
    values.resize(len, 0);
    let mut lister = Form::of(game);
    let mut fold = Fold {
        values: &mut values,
        current: 0,
        low: 0,
        high: Vec::new(),
        seen: Vec::new(),
        stamp: 0,
        forward: false,
    };
    let (mut lo, mut block) = (0u64, FIRST_BLOCK);
    let mut positions: Vec<u64> = Vec::new();
    while lo < count {
        let hi = count.min(lo + block);
        // Ctrl-C between blocks: KeyboardInterrupt stops the build (kept, and raised by build).
        Python::attach(|py| py.check_signals().map_err(|e| game.raise(py, e, String::new())))?;
        positions.clear();
        positions.extend(lo..hi);
        let mut each = |p: u64, parts: &[u64]| fold.option(p, parts);
        match &mut lister {
            Form::Plain(l) => l.list(&positions, &mut each)?,
            Form::Batch(l) => l.list(&positions, &mut each)?,
        }
        if fold.forward {
            return Ok(None);
        }
        fold.finish_until(hi);
        lo = hi;
        block = (block * 2).min(MAX_BLOCK);
    }
    Ok(Some(values))
}

/// The mex of each position in turn, from its options as they come: values below 64 as bits of
/// a word, larger ones (rare) kept aside for a position whose word fills up.
struct Fold<'v> {
    values: &'v mut [u32],
    /// The position whose options are coming (those before it are done).
    current: u64,
    /// Bit v: an option of the current position is worth v (v < 64).
    low: u64,
    /// Its options' values of 64 and more.
    high: Vec<u32>,
    /// `seen[v - 64] == stamp`: v is among `high` (marks reused from position to position).
    seen: Vec<u32>,
    stamp: u32,
    /// Some option named a position not below its own.
    forward: bool,
}

impl Fold<'_> {
    /// Option `parts` of position `p` (positions come in order, each's options together).
    #[inline]
    fn option(&mut self, p: u64, parts: &[u64]) {
        if p != self.current {
            if self.forward {
                return;
            }
            self.finish_until(p);
        }
        let mut x = 0;
        for &q in parts {
            if q >= p {
                self.forward = true;
                return;
            }
            x ^= self.values[q as usize];
        }
        if x < 64 {
            self.low |= 1 << x;
        } else {
            self.high.push(x);
        }
    }

    /// Finishes every position before `end`: their options are all in (none, for one never named).
    fn finish_until(&mut self, end: u64) {
        while self.current < end {
            let v =
                if self.low != u64::MAX { (!self.low).trailing_zeros() } else { self.mex_high() };
            self.values[self.current as usize] = v;
            self.low = 0;
            self.high.clear();
            self.current += 1;
        }
    }

    /// The mex where every value below 64 is taken: the least from 64 on not among `high`
    /// (at most 64 + their count, so larger values are not marked).
    fn mex_high(&mut self) -> u32 {
        let limit = self.high.len();
        if self.seen.len() <= limit {
            self.seen.resize(limit + 1, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        for &v in &self.high {
            let i = (v - 64) as usize;
            if i <= limit {
                self.seen[i] = self.stamp;
            }
        }
        64 + (0..=limit).find(|&i| self.seen[i] != self.stamp).unwrap_or(limit + 1) as u32
    }
}

/// The lister `in_order` drives, of the game's form: its own type, so that the fold is compiled
/// into its loop.
enum Form<'a> {
    Plain(Plain<'a>),
    Batch(Batch<'a>),
}

impl<'a> Form<'a> {
    fn of(game: &'a Running) -> Form<'a> {
        if game.batch.is_some() {
            Form::Batch(Batch::new(game))
        } else {
            Form::Plain(Plain::new(game))
        }
    }
}
