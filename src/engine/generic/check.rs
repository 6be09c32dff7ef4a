//! The check before a table is returned: a sample of positions asked again of a fresh worker.
//!
//! A table is the same on every run and thread count only if a position's options are the same
//! whenever they are asked. A script can break that (a counter kept in an upvalue across
//! calls, a cache filled in an order that depends on which thread saw what): a fresh worker
//! (for a script, a new interpreter that runs its top level again) is asked for a sample of
//! positions in another order than the build's, from the last down, and the mex of each one's
//! options over the table's values must be the value the table holds; the first [`REPEAT`]
//! positions it was asked are then asked again, after all the others, and must give the same
//! options (as a set). A difference is refused in one line, and nothing is written. A source
//! that summarises (a native game) gives the values of the rest by their summaries in one
//! request, and its first positions are asked by their options only until they have crossed
//! [`CROSSED`] options (at least one position is).
//!
//! The sample is the first [`FIRST`] positions and one in [`EVERY`] of the rest, spread evenly,
//! [`SPREAD`] at most: about 0.4% of a large table's positions, and one more start of the
//! worker (a script's top level once more).

use super::marks::Marks;
use super::summary::Reader;
use super::{EngineError, Stop};
use crate::games::summary::{Ask, Summaries};
use crate::games::{Source, Worker};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The first positions, all sampled.
const FIRST: u64 = 64;
/// One position in this many is sampled past the first ones...
const EVERY: u64 = 256;
/// ... and this many at most.
const SPREAD: u64 = 4096;
/// Positions asked a second time...
const REPEAT: usize = 16;
/// ... and, from a source that summarises, only while the options they cross (one at a time,
/// each about 10 ns, where the build folds one in under a nanosecond) are fewer than this: the
/// 16 last positions of Grundy's game to 60,000 cross a million options, 3% of its build.
const CROSSED: usize = 1 << 16;

/// The sampled positions, in increasing order.
fn sample(count: u64) -> Vec<u64> {
    let mut sample: Vec<u64> = (0..count.min(FIRST)).collect();
    if count > FIRST {
        let rest = count - FIRST;
        let spread = (rest / EVERY).min(SPREAD);
        sample.extend((0..spread).map(|i| FIRST + rest * (2 * i + 1) / (2 * spread)));
    }
    sample.dedup();
    sample
}

/// Checks `table`, the table of `source` (no value above `vmax`), on a sample of its positions
/// (see the module docs).
pub(super) fn recheck<S: Source + ?Sized>(
    source: &S,
    table: &[AtomicU32],
    vmax: u32,
) -> Result<(), EngineError> {
    let sample = sample(table.len() as u64);
    let value = |p: u64| table[p as usize].load(Relaxed);
    let differs = |p: u64, got: u32| {
        EngineError::game(format!(
            "position {} is worth {got} by its options asked again of a fresh worker (for a \
                script, a new interpreter), but {} in the build: the moves depend on something \
                besides the position (state kept between calls?), so the table could differ \
                from run to run; nothing was written",
            source.name(p),
            value(p)
        ))
    };
    let mut worker = source.worker().map_err(EngineError::from)?;
    let mut marks = Marks::default();
    // From the last position down: the first ones by their options (compared again below),
    // the rest by their options too, or, from a source that summarises, by their summaries in
    // one request (with the whole table known a position's summary is its value, and its
    // options need not cross one by one).
    let summarizes = source.summarizes();
    let mut asked: Vec<(u64, u64)> = Vec::new();
    let mut rest: Vec<u64> = Vec::new();
    let mut crossed = 0;
    for (k, p) in sample.iter().rev().copied().enumerate() {
        if summarizes && (k >= REPEAT || crossed >= CROSSED) {
            rest.push(p);
            continue;
        }
        let (got, options, count) =
            ask(&mut *worker, p, table, &mut marks).map_err(|stop| stop.error(source))?;
        crossed += count;
        if got != value(p) {
            return Err(differs(p, got));
        }
        if k < REPEAT {
            asked.push((p, options));
        }
    }
    if !rest.is_empty() {
        let got =
            summarized(&mut *worker, &rest, table, vmax).map_err(|stop| stop.error(source))?;
        if let Some((&p, &v)) = rest.iter().zip(&got).find(|&(&p, &v)| v != value(p)) {
            return Err(differs(p, v));
        }
    }
    for (p, options) in asked {
        let (_, again, _) =
            ask(&mut *worker, p, table, &mut marks).map_err(|stop| stop.error(source))?;
        if again != options {
            return Err(EngineError::game(format!(
                "position {} has other options when a fresh worker (for a script, a new \
                    interpreter) is asked for them a second time: the moves depend on something \
                    besides the position (state kept between calls?), so the table could differ \
                    from run to run; nothing was written",
                source.name(p)
            )));
        }
    }
    Ok(())
}

/// The values of `positions` by their summaries with every position of `table` known.
fn summarized(
    worker: &mut dyn Worker,
    positions: &[u64],
    table: &[AtomicU32],
    vmax: u32,
) -> Result<Vec<u32>, Stop> {
    let mut out = Summaries::default();
    let count = table.len() as u64;
    let ask = Ask { positions, values: table, known: count, ranks: None, vmax, fill: false };
    worker.summaries(&ask, &mut out).map_err(Stop::Game)?;
    let mut reader = Reader::new(&out.words);
    let mut values = Vec::with_capacity(positions.len());
    for &p in positions {
        let (value, _) = reader.next(p, |p, q| {
            if q < count { Ok(table[q as usize].load(Relaxed)) } else { Err(Stop::Outside(p, q)) }
        })?;
        values.push(value);
    }
    if !reader.done() {
        return Err(super::summary::malformed());
    }
    Ok(values)
}

/// Position `p`'s value by its options over `table`, a digest of its options (the same for the
/// same options in any order), and how many it has.
fn ask(
    worker: &mut dyn Worker,
    p: u64,
    table: &[AtomicU32],
    marks: &mut Marks,
) -> Result<(u32, u64, usize), Stop> {
    let mut found: Vec<u32> = Vec::new();
    let (mut digest, mut bad) = (0u64, None);
    worker.options(&[p], &mut |_, option| {
        let mut h = 0xcbf2_9ce4_8422_2325u64 ^ option.len() as u64;
        let mut x = 0;
        for &q in option {
            h = (h ^ q).wrapping_mul(0x0000_0100_0000_01b3);
            match table.get(q as usize) {
                Some(v) => x ^= v.load(Relaxed),
                None if bad.is_none() => bad = Some(Stop::Outside(p, q)),
                None => {}
            }
        }
        digest = digest.wrapping_add(h ^ (h >> 29));
        if found.try_reserve(1).is_ok() {
            found.push(x);
        } else if bad.is_none() {
            bad = Some(Stop::Engine(
                crate::memory::short(
                    "the options of one position",
                    (found.len() as u64 + 1) * 4,
                    crate::memory::room(),
                )
                .into(),
            ));
        }
    })?;
    if let Some(stop) = bad {
        return Err(stop);
    }
    Ok((marks.mex_of(&found)?, digest, found.len()))
}

#[cfg(test)]
mod tests {
    use super::sample;

    #[test]
    fn the_sample_takes_the_first_positions_and_spreads_over_the_rest() {
        assert_eq!(sample(10), (0..10).collect::<Vec<u64>>());
        let s = sample(1 << 22);
        assert_eq!(s.len(), 64 + 4096);
        assert!(
            s.windows(2).all(|w| w[0] < w[1])
                && *s.last().unwrap() < 1 << 22
                && *s.last().unwrap() > (1 << 22) - 1100
        );
    }
}
