//! The two orders besides blocks by index: by rank, and by the move graph (see the module docs
//! of [`super`]).

use super::marks::{Marks, fold};
use super::{BLOCK_ENTRIES, CHUNK, Found, Pool, Reply, Stop, Task, gather, room};
use crate::games::Worker;
use crate::progress::Progress;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The positions of one rank: every option is of a smaller rank, so of a known value; the mex
/// of each position goes straight into the table.
pub(super) fn layer(
    worker: &mut dyn Worker,
    positions: Vec<u64>,
    rank: i64,
    ranks: &[i64],
    table: &[AtomicU32],
    marks: &mut Marks,
) -> Reply {
    let count = table.len() as u64;
    let value = |q: u64| table[q as usize].load(Relaxed);
    let mut bad = None;
    let mut values: Vec<u32> = Vec::new();
    let mut current = None;
    let finish = |p: Option<u64>, values: &mut Vec<u32>, marks: &mut Marks| -> Result<(), Stop> {
        if let Some(p) = p {
            table[p as usize].store(marks.mex_of(values)?, Relaxed);
        }
        values.clear();
        Ok(())
    };
    let mut next = 0;
    let result = worker.options(&positions, &mut |p, option| {
        if bad.is_some() {
            return;
        }
        while current != Some(p) {
            if let Err(stop) = finish(current, &mut values, marks) {
                bad = Some(stop);
                return;
            }
            current = positions.get(next).copied();
            next += 1;
            if current.is_none() {
                return;
            }
        }
        for &q in option {
            if q >= count {
                bad = Some(Stop::Outside(p, q));
                return;
            }
            if ranks[q as usize] >= rank {
                bad = Some(Stop::Rank(p, q, rank, ranks[q as usize]));
                return;
            }
        }
        if let Some(stop) = room(&mut values, 1) {
            bad = Some(stop);
            return;
        }
        values.push(option.iter().fold(0, |x, &q| x ^ value(q)));
    });
    if let Err(e) = result {
        return Reply::Failed(Stop::Game(e));
    }
    if let Some(stop) = bad {
        return Reply::Failed(stop);
    }
    // The last position with options, then those after it with none.
    let rest = positions[next.min(positions.len())..].iter().map(|&p| Some(p));
    for p in std::iter::once(current).chain(rest) {
        if let Err(stop) = finish(p, &mut values, marks) {
            return Reply::Failed(stop);
        }
    }
    Reply::Layer(0)
}

/// Every option of these positions, kept, for the move graph.
pub(super) fn graph(
    worker: &mut dyn Worker,
    positions: Vec<u64>,
    found: Found,
    budget: usize,
    count: u64,
) -> Reply {
    gather(worker, positions, found, budget, |p, option, found| {
        if let Some(&q) = option.iter().find(|&&q| q >= count) {
            return Some(Stop::Outside(p, q));
        }
        if let Some(stop) = room(&mut found.kept, option.len() + 1) {
            return Some(stop);
        }
        found.kept.push(option.len() as u64);
        found.kept.extend_from_slice(option);
        None
    })
}

/// Rank by rank.
pub(super) fn by_rank(
    pool: &mut Pool,
    table: &[AtomicU32],
    summaries: bool,
    progress: &Progress,
) -> Result<(), Stop> {
    let count = table.len();
    let mut ranks: Vec<i64> = crate::memory::filled(count, 0i64, "the ranks")?;
    // The ranks, CHUNK positions a task.
    let mut at = 0;
    while at < count {
        let mut tasks = Vec::new();
        let mut starts = Vec::new();
        while tasks.len() < pool.threads() && at < count {
            let end = (at + CHUNK).min(count);
            starts.push(at);
            tasks.push(Task::Ranks {
                positions: (at as u64..end as u64).collect(),
                out: Vec::new(),
            });
            at = end;
        }
        for (reply, start) in pool.round(tasks)?.into_iter().zip(starts) {
            let Reply::Ranks(out) = reply else { unreachable!("ranks give Ranks") };
            ranks[start..start + out.len()].copy_from_slice(&out);
        }
        progress.tick(at as u64 / 8, count as u64);
    }
    // Positions in order of rank, then index.
    let mut order: Vec<u64> = crate::memory::filled(count, 0u64, "the order of the ranks")?;
    for (i, o) in order.iter_mut().enumerate() {
        *o = i as u64;
    }
    order.sort_by_key(|&p| ranks[p as usize]);
    let mut start = 0;
    let mut vmax = 0;
    while start < count {
        let rank = ranks[order[start] as usize];
        let end = start + order[start..].partition_point(|&p| ranks[p as usize] == rank);
        // One layer, CHUNK positions a task at most, every thread at once.
        let mut at = start;
        while at < end {
            let mut tasks = Vec::new();
            let left = end - at;
            let parts = pool.threads().min(left.div_ceil(64)).max(1);
            let each = left.div_ceil(parts).min(CHUNK);
            while tasks.len() < pool.threads() && at < end {
                let stop = (at + each).min(end);
                let ranks: *const [i64] = &ranks[..];
                tasks.push(Task::Layer {
                    positions: order[at..stop].to_vec(),
                    rank,
                    ranks,
                    summaries,
                    vmax,
                });
                at = stop;
            }
            for reply in pool.round(tasks)? {
                if let Reply::Layer(most) = reply {
                    vmax = vmax.max(most);
                }
            }
        }
        progress.tick(count as u64 / 8 + end as u64 * 7 / 8, count as u64);
        start = end;
    }
    Ok(())
}

/// By the move graph.
pub(super) fn by_graph(
    pool: &mut Pool,
    table: &[AtomicU32],
    progress: &Progress,
) -> Result<(), Stop> {
    let count = table.len();
    let (ends, kept) = move_graph(pool, count, progress)?;
    let options = |p: usize| -> &[u64] {
        let start = if p == 0 { 0 } else { ends[p - 1] as usize };
        &kept[start..ends[p] as usize]
    };
    depth_first(count, options, table, progress)
}

/// Every position's options, on the pool: `ends[p]` is where p's end in `kept` (each option its
/// length, then its positions). Tasks are sized by the densest position seen so that each
/// holds about its share of [`BLOCK_ENTRIES`]; where one stops at its share, the tasks after it
/// are done again in the next round (positions are laid out in order).
fn move_graph(
    pool: &mut Pool,
    count: usize,
    progress: &Progress,
) -> Result<(Vec<u64>, Vec<u64>), Stop> {
    let mut ends: Vec<u64> = crate::memory::filled(count, 0u64, "the move graph")?;
    let mut kept: Vec<u64> = Vec::new();
    let budget = BLOCK_ENTRIES / pool.threads();
    let (mut at, mut span) = (0, 256);
    while at < count {
        let (mut tasks, mut wanted) = (Vec::new(), Vec::new());
        let mut start = at;
        while tasks.len() < pool.threads() && start < count {
            let end = (start + span).min(count);
            tasks.push(Task::Graph {
                positions: (start as u64..end as u64).collect(),
                found: pool.found(),
                budget,
            });
            wanted.push(end - start);
            start = end;
        }
        let (mut most, mut whole) = (1, true);
        for (reply, want) in pool.round(tasks)?.into_iter().zip(wanted) {
            let Reply::Found(positions, found) = reply else {
                unreachable!("a graph task gives Found")
            };
            if whole {
                crate::memory::reserve(&mut kept, found.kept.len(), "the move graph")?;
                let base = kept.len() as u64;
                kept.extend_from_slice(&found.kept);
                let mut k0 = 0;
                for (&p, &(_, k1)) in positions.iter().zip(&found.ends) {
                    ends[p as usize] = base + k1 as u64;
                    most = most.max(2 * (k1 - k0));
                    k0 = k1;
                    at = p as usize + 1;
                }
                whole = positions.len() == want;
            }
            pool.spare.push(found);
        }
        span = (budget / most).clamp(1, CHUNK);
        progress.tick(at as u64 / 2, count as u64);
    }
    Ok((ends, kept))
}

/// The values of the move graph's positions, depth first, iteratively: a position is computed
/// once every position its options name is; one met again while it is on the path closes a
/// cycle, which is refused naming its positions.
fn depth_first<'a>(
    count: usize,
    options: impl Fn(usize) -> &'a [u64],
    table: &[AtomicU32],
    progress: &Progress,
) -> Result<(), Stop> {
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state: Vec<u8> = crate::memory::filled(count, NEW, "the move graph")?;
    // (position, next entry of its options to look at, where its next option starts).
    let mut path: Vec<(usize, usize, usize)> = Vec::new();
    let mut marks = Marks::default();
    let mut done = 0u64;
    for root in 0..count {
        if state[root] != NEW {
            continue;
        }
        state[root] = ON_PATH;
        path.push((root, 0, 0));
        while let Some(&mut (p, ref mut cursor, ref mut option_at)) = path.last_mut() {
            let opts = options(p);
            // The next named position not yet done.
            let mut next = None;
            while *cursor < opts.len() {
                let i = *cursor;
                *cursor += 1;
                if i == *option_at {
                    // An option's length: its positions follow.
                    *option_at = i + 1 + opts[i] as usize;
                    continue;
                }
                let q = opts[i] as usize;
                match state[q] {
                    DONE => {}
                    ON_PATH => {
                        let from = path.iter().position(|&(r, _, _)| r == q).unwrap_or(0);
                        return Err(Stop::Cycle(
                            path[from..].iter().map(|&(r, _, _)| r as u64).collect(),
                        ));
                    }
                    _ => {
                        next = Some(q);
                        break;
                    }
                }
            }
            match next {
                Some(q) => {
                    state[q] = ON_PATH;
                    path.push((q, 0, 0));
                }
                None => {
                    table[p].store(fold(&[], opts, table, &mut marks)?, Relaxed);
                    state[p] = DONE;
                    path.pop();
                    done += 1;
                    progress.tick(count as u64 / 2 + done / 2, count as u64);
                }
            }
        }
    }
    Ok(())
}
