//! The generic engine: the table of any game given by its options ([`Source`]: a
//! [`Moves`](crate::games::Moves) in
//! Rust, a script), as the mex over the options' values, on all cores. It is the reference of
//! every game whose definition is "mex over the options".
//!
//! A position's options do not depend on any value, so they are enumerated on every core, one
//! [`Worker`] a thread (a script's interpreter cannot cross threads: each worker lives and dies
//! on its own thread, and is handed lists of positions). The values are then taken in an order
//! where every option is known first, found one of three ways:
//!
//! - **By rank** (the game gives a rank that every option's positions have smaller): the ranks
//!   are computed first, then all positions of one rank at once, each thread taking the mex of
//!   its own (every option is of a lower rank, so known). Memory: the table, the ranks and the
//!   order (20 bytes a position).
//! - **By index** (no rank; every option below its position, checked as it goes): blocks of
//!   positions in index order. An option whose positions all lie before the block is worth a
//!   value already known: the thread that enumerates it folds it to that value at once, so the
//!   block keeps 4 bytes for it; an option that reaches into the block is kept as its positions
//!   and folded when its turn comes. Blocks are sized to keep about [`BLOCK_ENTRIES`] entries, so
//!   memory is the table and one block's options, whatever the game.
//! - **By the move graph** (an option at or past its position, and no rank): every option of
//!   every position is stored, and the values are taken depth first, each once its options'
//!   positions are done. Memory grows with the options (8 bytes a position named in one); a
//!   cycle is refused naming positions on it.
//!
//! The mex of a position with k options is at most k, so values above k are not marked: a game
//! whose sums reach 2^32 costs no more than one whose values are small.

use super::EngineError;
use crate::games::{GameError, Source, Worker};
use crate::progress::Progress;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::mpsc;

/// Entries (values and positions) kept for one block, across its threads: 16 to 32 MiB.
pub const BLOCK_ENTRIES: usize = 1 << 22;
/// Positions in a block, at most (and the first block's size).
const MAX_BLOCK: u64 = 1 << 16;
const FIRST_BLOCK: u64 = 256;
/// Positions a thread takes at a time when ranking, or in one layer of a ranked game.
const CHUNK: usize = 1 << 14;

/// The table of `source` on `threads` threads (at least one).
pub fn compute<S: Source + ?Sized>(source: &S, threads: usize, progress: &Progress) -> Result<Vec<u32>, EngineError> {
    let count = source.count();
    let len = usize::try_from(count).map_err(|_| EngineError(format!("{count} positions do not fit in memory here")))?;
    let table: Vec<AtomicU32> = crate::memory::filled(len, 0u32, "its values")?.into_iter().map(AtomicU32::new).collect();
    let threads = threads.clamp(1, len.max(1));
    std::thread::scope(|s| {
        let mut pool = Pool::start(s, source, &table, threads);
        let done = if source.ranked() {
            by_rank(&mut pool, &table, progress)
        } else {
            match by_index(&mut pool, &table, progress) {
                Err(Stop::NotBelow(p, q)) => {
                    progress.set_label(format!(
                        "storing the move graph (position {} has an option {} not below it; memory grows with the options)",
                        source.name(p),
                        source.name(q)
                    ));
                    by_graph(&mut pool, &table, progress)
                }
                other => other,
            }
        };
        done.map_err(|stop| stop.error(source))
    })?;
    Ok(table.into_iter().map(AtomicU32::into_inner).collect())
}

/// Why a build stopped.
enum Stop {
    /// Position p has an option naming q ≥ p, and the order is by index.
    NotBelow(u64, u64),
    /// Position p has an option naming q outside the table.
    Outside(u64, u64),
    /// A ranked game's option of no lower rank: position, option, their ranks.
    Rank(u64, u64, i64, i64),
    /// Positions on a cycle of moves, in move order.
    Cycle(Vec<u64>),
    Game(GameError),
    Engine(EngineError),
}

impl Stop {
    fn error<S: Source + ?Sized>(self, source: &S) -> EngineError {
        let name = |p: u64| source.name(p);
        EngineError(match self {
            Stop::NotBelow(p, q) => format!("position {} has an option {} not below it", name(p), name(q)),
            Stop::Outside(p, q) => format!("position {} has an option at index {q}, outside the table's {} positions", name(p), source.count()),
            Stop::Rank(p, q, rp, rq) => {
                format!("position {} (rank {rp}) has an option {} of rank {rq}: every option's positions must have a smaller rank", name(p), name(q))
            }
            Stop::Cycle(cycle) => {
                let shown: Vec<String> = cycle.iter().take(8).map(|&p| name(p)).collect();
                let more = if cycle.len() > 8 { " → ..." } else { "" };
                format!("the moves have a cycle, so the game has no SG values: {} → {}{more}", shown.join(" → "), name(cycle[0]))
            }
            Stop::Game(e) => e.0,
            Stop::Engine(e) => e.0,
        })
    }
}

impl From<GameError> for Stop {
    fn from(e: GameError) -> Stop {
        Stop::Game(e)
    }
}

impl From<crate::memory::MemoryError> for Stop {
    fn from(e: crate::memory::MemoryError) -> Stop {
        Stop::Engine(e.into())
    }
}

impl From<EngineError> for Stop {
    fn from(e: EngineError) -> Stop {
        Stop::Engine(e)
    }
}

/// Work for one thread's worker.
enum Task {
    /// Enumerate these positions' options; fold those whose positions are all below `known`.
    Block { positions: Vec<u64>, known: u64, found: Found },
    /// The ranks of these positions.
    Ranks { positions: Vec<u64>, out: Vec<i64> },
    /// Take the mex of these positions of one rank (of ranks `ranks`), writing the table.
    Layer { positions: Vec<u64>, rank: i64, ranks: *const [i64] },
    /// Store every option of these positions.
    Graph { positions: Vec<u64>, found: Found },
}

// SAFETY: `Layer::ranks` points into a slice that the sending thread keeps alive and unchanged
// until the reply to the task is received (`Pool::round`): it is only read meanwhile.
unsafe impl Send for Task {}

enum Reply {
    Found(Vec<u64>, Found),
    Ranks(Vec<i64>),
    Layer,
    Failed(Stop),
}

/// What one thread found for its positions of a block.
#[derive(Default)]
struct Found {
    /// Values of the options folded at once, position after position.
    values: Vec<u32>,
    /// For each position: where its values end in `values`, and its kept options in `kept`.
    ends: Vec<(usize, usize)>,
    /// Options kept as positions: their length, then their positions.
    kept: Vec<u64>,
}

impl Found {
    fn clear(&mut self) {
        self.values.clear();
        self.ends.clear();
        self.kept.clear();
    }
}

/// The worker threads: one task out and one reply back each, in rounds.
struct Pool {
    tasks: Vec<mpsc::Sender<Task>>,
    replies: Vec<mpsc::Receiver<Reply>>,
    /// Buffers handed back by the last round, to reuse.
    spare: Vec<Found>,
}

impl Pool {
    fn start<'s, 'e: 's, S: Source + ?Sized>(s: &'s std::thread::Scope<'s, 'e>, source: &'e S, table: &'e [AtomicU32], threads: usize) -> Pool {
        let (mut tasks, mut replies) = (Vec::new(), Vec::new());
        for _ in 0..threads {
            let (task_tx, task_rx) = mpsc::channel::<Task>();
            let (reply_tx, reply_rx) = mpsc::channel::<Reply>();
            s.spawn(move || {
                let mut worker = source.worker();
                let mut marks = Marks::default();
                while let Ok(task) = task_rx.recv() {
                    let reply = match &mut worker {
                        Ok(w) => run(&mut **w, task, table, &mut marks),
                        Err(e) => Reply::Failed(Stop::Game(e.clone())),
                    };
                    if reply_tx.send(reply).is_err() {
                        return;
                    }
                }
            });
            tasks.push(task_tx);
            replies.push(reply_rx);
        }
        Pool { tasks, replies, spare: Vec::new() }
    }

    fn threads(&self) -> usize {
        self.tasks.len()
    }

    /// Sends one task to each of the first `tasks.len()` threads and collects their replies in
    /// order; the first failure is returned (after every reply is in, so no task still reads
    /// what the caller may free).
    fn round(&mut self, tasks: Vec<Task>) -> Result<Vec<Reply>, Stop> {
        let n = tasks.len();
        for (i, task) in tasks.into_iter().enumerate() {
            self.tasks[i].send(task).map_err(|_| EngineError("a worker thread stopped".into()))?;
        }
        let mut replies = Vec::with_capacity(n);
        let mut failed = None;
        for rx in &self.replies[..n] {
            match rx.recv() {
                Ok(Reply::Failed(stop)) => failed = failed.or(Some(stop)),
                Ok(reply) => replies.push(reply),
                Err(_) => failed = failed.or(Some(Stop::Engine(EngineError("a worker thread stopped".into())))),
            }
        }
        match failed {
            Some(stop) => Err(stop),
            None => Ok(replies),
        }
    }

    fn found(&mut self) -> Found {
        let mut f = self.spare.pop().unwrap_or_default();
        f.clear();
        f
    }
}

/// Runs one task on this thread's worker.
fn run(worker: &mut dyn Worker, task: Task, table: &[AtomicU32], marks: &mut Marks) -> Reply {
    match task {
        Task::Block { positions, known, found } => block(worker, positions, known, found, table),
        Task::Ranks { positions, mut out } => {
            out.clear();
            match worker.ranks(&positions, &mut out) {
                Ok(()) if out.len() == positions.len() => Reply::Ranks(out),
                Ok(()) => Reply::Failed(Stop::Engine(EngineError("the game gave a wrong number of ranks".into()))),
                Err(e) => Reply::Failed(Stop::Game(e)),
            }
        }
        Task::Layer { positions, rank, ranks } => {
            // SAFETY: see `Task`: the slice outlives the task and is not written meanwhile.
            layer(worker, positions, rank, unsafe { &*ranks }, table, marks)
        }
        Task::Graph { positions, found } => graph(worker, positions, found, table.len() as u64),
    }
}

/// The options of `positions` into `found`, each as `each` files it (a folded value, or kept as
/// its positions), the entries of each position closed in order; `each` may refuse an option.
fn gather(worker: &mut dyn Worker, positions: Vec<u64>, mut found: Found, mut each: impl FnMut(u64, &[u64], &mut Found) -> Option<Stop>) -> Reply {
    let mut bad = None;
    let mut last = None;
    let result = worker.options(&positions, &mut |p, option| {
        if bad.is_some() {
            return;
        }
        // Close the positions before p (those with no options included).
        if last != Some(p) {
            close_until(&mut found, &positions, &mut last, p);
        }
        bad = each(p, option, &mut found);
    });
    if let Err(e) = result {
        return Reply::Failed(Stop::Game(e));
    }
    if let Some(stop) = bad {
        return Reply::Failed(stop);
    }
    close_until(&mut found, &positions, &mut last, u64::MAX);
    Reply::Found(positions, found)
}

/// A block in index order: each option folded to its value where all its positions are below
/// `known`, kept as positions otherwise (for the caller to finish in order).
fn block(worker: &mut dyn Worker, positions: Vec<u64>, known: u64, found: Found, table: &[AtomicU32]) -> Reply {
    let count = table.len() as u64;
    let value = |q: u64| table[q as usize].load(Relaxed);
    gather(worker, positions, found, |p, option, found| {
        if let Some(&q) = option.iter().find(|&&q| q >= p) {
            return Some(if q >= count { Stop::Outside(p, q) } else { Stop::NotBelow(p, q) });
        }
        if option.iter().all(|&q| q < known) {
            found.values.push(option.iter().fold(0, |x, &q| x ^ value(q)));
        } else {
            found.kept.push(option.len() as u64);
            found.kept.extend_from_slice(option);
        }
        None
    })
}

/// The positions of one rank: every option is of a smaller rank, so of a known value; the mex
/// of each position goes straight into the table.
fn layer(worker: &mut dyn Worker, positions: Vec<u64>, rank: i64, ranks: &[i64], table: &[AtomicU32], marks: &mut Marks) -> Reply {
    let count = table.len() as u64;
    let value = |q: u64| table[q as usize].load(Relaxed);
    let mut bad = None;
    let mut values: Vec<u32> = Vec::new();
    let mut current = None;
    let mut finish = |p: Option<u64>, values: &mut Vec<u32>| {
        if let Some(p) = p {
            table[p as usize].store(marks.mex_of(values), Relaxed);
        }
        values.clear();
    };
    let mut next = 0;
    let result = worker.options(&positions, &mut |p, option| {
        if bad.is_some() {
            return;
        }
        while current != Some(p) {
            finish(current, &mut values);
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
        values.push(option.iter().fold(0, |x, &q| x ^ value(q)));
    });
    if let Err(e) = result {
        return Reply::Failed(Stop::Game(e));
    }
    if let Some(stop) = bad {
        return Reply::Failed(stop);
    }
    // The last position with options, then those after it with none.
    finish(current, &mut values);
    for &p in &positions[next.min(positions.len())..] {
        finish(Some(p), &mut values);
    }
    Reply::Layer
}

/// Every option of these positions, kept, for the move graph.
fn graph(worker: &mut dyn Worker, positions: Vec<u64>, found: Found, count: u64) -> Reply {
    gather(worker, positions, found, |p, option, found| {
        if let Some(&q) = option.iter().find(|&&q| q >= count) {
            return Some(Stop::Outside(p, q));
        }
        found.kept.push(option.len() as u64);
        found.kept.extend_from_slice(option);
        None
    })
}

/// Ends the entries of every position of `positions` after `last` up to (not including) `p`:
/// a worker names only positions that have options, in order.
fn close_until(found: &mut Found, positions: &[u64], last: &mut Option<u64>, p: u64) {
    loop {
        let i = found.ends.len();
        if last.is_some() {
            // `last` is positions[i - 1]'s: end it.
            found.ends.push((found.values.len(), found.kept.len()));
            *last = None;
            continue;
        }
        match positions.get(i) {
            Some(&q) if q == p => {
                *last = Some(p);
                return;
            }
            Some(_) => found.ends.push((found.values.len(), found.kept.len())),
            None => return,
        }
    }
}

/// Splits `n` items into `parts` nearly equal runs: where run `part` starts.
fn part_start(n: usize, parts: usize, part: usize) -> usize {
    n * part / parts
}

/// In index order, block by block (see the module docs).
fn by_index(pool: &mut Pool, table: &[AtomicU32], progress: &Progress) -> Result<(), Stop> {
    let count = table.len() as u64;
    let mut block = FIRST_BLOCK;
    let mut marks = Marks::default();
    let mut lo = 0u64;
    while lo < count {
        let hi = count.min(lo + block);
        let n = (hi - lo) as usize;
        let parts = pool.threads().min(n);
        let mut tasks = Vec::with_capacity(parts);
        for part in 0..parts {
            let (a, b) = (part_start(n, parts, part) as u64, part_start(n, parts, part + 1) as u64);
            tasks.push(Task::Block { positions: (lo + a..lo + b).collect(), known: lo, found: pool.found() });
        }
        // The most entries one position kept: the next block is sized to it, so that a game
        // whose positions have more options the larger they are (most) stays within bounds.
        let mut most = 1;
        for reply in pool.round(tasks)? {
            let Reply::Found(positions, found) = reply else { unreachable!("a block gives Found") };
            let (mut v0, mut k0) = (0, 0);
            for (&p, &(v1, k1)) in positions.iter().zip(&found.ends) {
                // Kept options hold their positions (8 bytes each) and a length: count them double.
                most = most.max((v1 - v0) + 2 * (k1 - k0));
                // Every position was checked below p, and p is the next one to be computed.
                let v = fold(&found.values[v0..v1], &found.kept[k0..k1], table, &mut marks);
                table[p as usize].store(v, Relaxed);
                (v0, k0) = (v1, k1);
            }
            pool.spare.push(found);
        }
        progress.tick(hi, count);
        // The next block keeps about BLOCK_ENTRIES entries at the rate of this one's largest
        // position, and at most doubles the positions done (options grow with positions).
        block = (BLOCK_ENTRIES as u64 / most as u64).clamp(1, MAX_BLOCK).min(hi.max(FIRST_BLOCK));
        lo = hi;
    }
    Ok(())
}

/// Rank by rank (see the module docs).
fn by_rank(pool: &mut Pool, table: &[AtomicU32], progress: &Progress) -> Result<(), Stop> {
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
            tasks.push(Task::Ranks { positions: (at as u64..end as u64).collect(), out: Vec::new() });
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
                tasks.push(Task::Layer { positions: order[at..stop].to_vec(), rank, ranks });
                at = stop;
            }
            pool.round(tasks)?;
        }
        progress.tick(count as u64 / 8 + end as u64 * 7 / 8, count as u64);
        start = end;
    }
    Ok(())
}

/// By the move graph (see the module docs).
fn by_graph(pool: &mut Pool, table: &[AtomicU32], progress: &Progress) -> Result<(), Stop> {
    let count = table.len();
    let (ends, kept) = move_graph(pool, count, progress)?;
    let options = |p: usize| -> &[u64] {
        let start = if p == 0 { 0 } else { ends[p - 1] as usize };
        &kept[start..ends[p] as usize]
    };
    depth_first(count, options, table, progress)
}

/// Every position's options, on the pool: `ends[p]` is where p's end in `kept` (each option its
/// length, then its positions).
fn move_graph(pool: &mut Pool, count: usize, progress: &Progress) -> Result<(Vec<u64>, Vec<u64>), Stop> {
    let mut ends: Vec<u64> = crate::memory::filled(count, 0u64, "the move graph")?;
    let mut kept: Vec<u64> = Vec::new();
    let mut at = 0;
    while at < count {
        let mut tasks = Vec::new();
        while tasks.len() < pool.threads() && at < count {
            let end = (at + CHUNK).min(count);
            tasks.push(Task::Graph { positions: (at as u64..end as u64).collect(), found: pool.found() });
            at = end;
        }
        for reply in pool.round(tasks)? {
            let Reply::Found(positions, found) = reply else { unreachable!("a graph task gives Found") };
            crate::memory::reserve(&mut kept, found.kept.len(), "the move graph")?;
            let base = kept.len() as u64;
            kept.extend_from_slice(&found.kept);
            for (&p, &(_, k1)) in positions.iter().zip(&found.ends) {
                ends[p as usize] = base + k1 as u64;
            }
            pool.spare.push(found);
        }
        progress.tick(at as u64 / 2, count as u64);
    }
    Ok((ends, kept))
}

/// The values of the move graph's positions, depth first, iteratively: a position is computed
/// once every position its options name is; one met again while it is on the path closes a
/// cycle, which is refused naming its positions.
fn depth_first<'a>(count: usize, options: impl Fn(usize) -> &'a [u64], table: &[AtomicU32], progress: &Progress) -> Result<(), Stop> {
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
                        return Err(Stop::Cycle(path[from..].iter().map(|&(r, _, _)| r as u64).collect()));
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
                    table[p].store(fold(&[], opts, table, &mut marks), Relaxed);
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

/// The mex of the values folded already and of the kept options (length, positions), every
/// position of which is computed.
fn fold(values: &[u32], kept: &[u64], table: &[AtomicU32], marks: &mut Marks) -> u32 {
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
        marks.mark(kept[i + 1..i + 1 + n].iter().fold(0, |x, &q| x ^ table[q as usize].load(Relaxed)));
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

    /// The mex of `values`.
    fn mex_of(&mut self, values: &[u32]) -> u32 {
        self.start(values.len());
        for &v in values {
            self.mark(v);
        }
        self.mex()
    }
}

#[cfg(test)]
mod tests;
