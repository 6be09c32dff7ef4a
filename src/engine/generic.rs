//! The generic engine: the table of any game given by its options ([`Source`]: a
//! [`Moves`](crate::games::Moves) in Rust, a script), as the mex over the options' values, on
//! all cores. It is the reference of every game whose definition is "mex over the options".
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
//!   and folded when its turn comes. A block keeps at most about [`BLOCK_ENTRIES`] entries
//!   (16 to 32 MiB) across its threads, whatever the game: each thread stops taking positions
//!   once its share is full, and the positions it did not take start the next block, which is
//!   sized by the largest position seen. Only a single position's own options can pass the
//!   bound, and those are held by its interpreter first (a script's `--lua-memory`).
//! - **By the move graph** (an option at or past its position, and no rank): every option of
//!   every position is stored, and the values are taken depth first, each once its options'
//!   positions are done. Memory grows with the options (8 bytes a position named in one), and
//!   running out of it is an error; a cycle is refused naming positions on it.
//!
//! The mex of a position with k options is at most k, so values above k are not marked: a game
//! whose sums reach 2^32 costs no more than one whose values are small.
//!
//! Before the table is returned, a sample of its positions is asked again of a fresh worker
//! (`check`): a position whose options there give another value means the moves depend on
//! something besides the position, and the table is refused rather than written.

use super::EngineError;
use crate::games::summary::Summaries;
use crate::games::{GameError, Source, Worker};
use crate::progress::Progress;
use marks::{Marks, fold};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::mpsc;

mod check;
mod marks;
mod orders;
mod summary;

/// Entries (values and positions) kept for one block, across its threads: 16 to 32 MiB.
pub const BLOCK_ENTRIES: usize = 1 << 22;
/// Positions in a block, at most (and the first block's size).
const MAX_BLOCK: u64 = 1 << 16;
const FIRST_BLOCK: u64 = 256;
/// Positions a thread takes at a time when ranking, or in one layer of a ranked game.
const CHUNK: usize = 1 << 14;
/// Positions a worker is handed at once within a task whose options are kept.
const STEP: usize = 256;
/// A worker thread's stack, and the address space left free besides it before one is started
/// (its signal stack, a malloc arena of the C library: a thread that starts without room for
/// those aborts the process instead of failing to start).
const STACK: usize = 2 << 20;
const HEADROOM: u64 = 64 << 20;

/// The table of `source` on `threads` threads (at least one).
pub fn compute<S: Source + ?Sized>(
    source: &S,
    threads: usize,
    progress: &Progress,
) -> Result<Vec<u32>, EngineError> {
    computed(source, threads, progress).map(|(table, _)| table)
}

/// [`compute`], and the table's largest value (found once, for the check and the packing).
pub(crate) fn computed<S: Source + ?Sized>(
    source: &S,
    threads: usize,
    progress: &Progress,
) -> Result<(Vec<u32>, u32), EngineError> {
    let count = source.count();
    let len = usize::try_from(count)
        .map_err(|_| EngineError::memory(format!("{count} positions do not fit in memory here")))?;
    let table: Vec<AtomicU32> = crate::memory::zeroed(len, "its values")?;
    let threads = threads.clamp(1, len.max(1));
    std::thread::scope(|s| {
        let mut pool = Pool::start(s, source, &table, threads)?;
        let done = if source.ranked() {
            orders::by_rank(&mut pool, &table, source.summarizes(), progress)
        } else {
            let by_index = if source.summarizes() { summary::by_index } else { by_index };
            match by_index(&mut pool, &table, progress) {
                Err(Stop::NotBelow(p, q)) => {
                    progress.set_label(format!(
                        "storing the move graph (position {} has an option {} not below it; \
                            memory grows with the options)",
                        source.name(p),
                        source.name(q)
                    ));
                    orders::by_graph(&mut pool, &table, progress)
                }
                other => other,
            }
        };
        done.map_err(|stop| stop.error(source))
    })?;
    let mut table = std::mem::ManuallyDrop::new(table);
    // SAFETY: AtomicU32 has the size, alignment and bit validity of u32, so the allocation is
    // a Vec<u32>'s of the same length and capacity (a pass over the table saved); the threads
    // that wrote it have ended.
    let mut table = unsafe {
        Vec::from_raw_parts(table.as_mut_ptr().cast::<u32>(), table.len(), table.capacity())
    };
    let most = table.iter().copied().max().unwrap_or(0);
    check::recheck(source, as_atomic(&mut table), most)?;
    Ok((table, most))
}

/// `values` as the atomics that workers read (what the unstable `AtomicU32::from_mut_slice`
/// does).
fn as_atomic(values: &mut [u32]) -> &[AtomicU32] {
    // SAFETY: AtomicU32 has the size, alignment and bit validity of u32, and the exclusive
    // borrow makes the returned slice the only access to `values` while it lives.
    unsafe { &*(values as *mut [u32] as *const [AtomicU32]) }
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
        EngineError::game(match self {
            Stop::NotBelow(p, q) => {
                format!("position {} has an option {} not below it", name(p), name(q))
            }
            Stop::Outside(p, q) => format!(
                "position {} has an option at index {q}, outside the table's {} positions",
                name(p),
                source.count()
            ),
            Stop::Rank(p, q, rp, rq) => {
                format!(
                    "position {} (rank {rp}) has an option {} of rank {rq}: every option's \
                        positions must have a smaller rank",
                    name(p),
                    name(q)
                )
            }
            Stop::Cycle(cycle) => format!(
                "the moves have a cycle, so the game has no SG values: {}",
                cycle_text(&cycle, name)
            ),
            Stop::Game(e) => return e.into(),
            Stop::Engine(e) => return e,
        })
    }
}

/// A cycle in words, every arrow a move: `0 → 1 → 2 → 0`; a long one as its first four
/// positions, how many are left out, and its last three (`0 → 1 → 2 → 3 → (92 more) → 96 →
/// 97 → 98 → 0 (a cycle of 99 positions)`).
fn cycle_text(cycle: &[u64], name: impl Fn(u64) -> String) -> String {
    let mut shown: Vec<String> = Vec::new();
    if cycle.len() <= 8 {
        shown.extend(cycle.iter().map(|&p| name(p)));
    } else {
        shown.extend(cycle[..4].iter().map(|&p| name(p)));
        shown.push(format!("({} more)", cycle.len() - 7));
        shown.extend(cycle[cycle.len() - 3..].iter().map(|&p| name(p)));
    }
    let size = if cycle.len() > 8 {
        format!(" (a cycle of {} positions)", cycle.len())
    } else {
        String::new()
    };
    format!("{} → {}{size}", shown.join(" → "), name(cycle[0]))
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
    /// Enumerate these positions' options, keeping at most `budget` entries (always the first
    /// position's); fold those whose positions are all below `known`.
    Block { positions: Vec<u64>, known: u64, found: Found, budget: usize },
    /// The ranks of these positions.
    Ranks { positions: Vec<u64>, out: Vec<i64> },
    /// Take the mex of these positions of one rank (of ranks `ranks`), writing the table; by
    /// summaries where `summaries` (no known value is above `vmax`).
    Layer { positions: Vec<u64>, rank: i64, ranks: *const [i64], summaries: bool, vmax: u32 },
    /// Summarise these positions, those below `known` known ([`summary`]).
    Summaries { positions: Vec<u64>, known: u64, vmax: u32, out: Summaries },
    /// Store every option of these positions, up to `budget` entries as a block.
    Graph { positions: Vec<u64>, found: Found, budget: usize },
}

// SAFETY: `Layer::ranks` points into a slice that the sending thread keeps alive and unchanged
// until the reply to the task is received (`Pool::round`): it is only read meanwhile.
unsafe impl Send for Task {}

enum Reply {
    /// The positions done (a prefix of the task's: where the budget ran out, the rest is left
    /// for the next round) and what was found for them.
    Found(Vec<u64>, Found),
    Ranks(Vec<i64>),
    /// A layer done, and the largest value it stored.
    Layer(u32),
    /// The positions, their summaries, and the seconds the worker took.
    Summaries(Vec<u64>, Summaries, f64),
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

    /// Entries held, a kept position counting two (8 bytes against a value's 4).
    fn entries(&self) -> usize {
        self.values.len() + 2 * self.kept.len()
    }
}

/// Room for `more` elements in `v` (growing it as a push would), or the error that the memory
/// ran out.
#[inline]
fn room<T>(v: &mut Vec<T>, more: usize) -> Option<Stop> {
    if v.capacity() - v.len() >= more {
        return None;
    }
    v.try_reserve(more).err().map(|_| {
        let need = ((v.len() + more) as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        Stop::Engine(
            crate::memory::short("the options of a block", need, crate::memory::room()).into(),
        )
    })
}

/// The threads: the calling thread's worker takes the first task of each round, each other
/// thread's worker one task, replying once done. So a pool of one thread runs on the calling
/// thread alone, and in index order the run that computes a block's first positions itself runs
/// here: no round trip for it, and the table stays in one core's caches between the worker's
/// stores and this thread's reads of them (the HDU 5724 row at W = 22 took a tenth longer with
/// its one worker on a thread of its own, 0.40 s against 0.37 s).
struct Pool<'e> {
    here: Here<'e>,
    tasks: Vec<mpsc::Sender<Task>>,
    replies: Vec<mpsc::Receiver<Reply>>,
    /// Buffers handed back by the last round, to reuse.
    spare: Vec<Found>,
    spare_summaries: Vec<Summaries>,
}

/// The calling thread's worker.
struct Here<'e> {
    worker: Result<Box<dyn Worker + 'e>, GameError>,
    table: &'e [AtomicU32],
    marks: Marks,
}

impl Here<'_> {
    fn run(&mut self, task: Task) -> Reply {
        match &mut self.worker {
            Ok(w) => run(&mut **w, task, self.table, &mut self.marks),
            Err(e) => Reply::Failed(Stop::Game(e.clone())),
        }
    }
}

impl<'e> Pool<'e> {
    /// This thread's worker and `threads - 1` threads, each with its own; an error where a
    /// thread cannot start.
    fn start<'s, S: Source + ?Sized>(
        s: &'s std::thread::Scope<'s, 'e>,
        source: &'e S,
        table: &'e [AtomicU32],
        threads: usize,
    ) -> Result<Pool<'e>, EngineError> {
        let (mut tasks, mut replies) = (Vec::new(), Vec::new());
        for i in 1..threads {
            let cannot = |why: String| {
                EngineError::refused(format!(
                    "cannot start thread {} of {threads}: {why}; use fewer --threads",
                    i + 1
                ))
            };
            if let Some(room) =
                crate::memory::address_room().filter(|&room| room < STACK as u64 + HEADROOM)
            {
                return Err(cannot(format!(
                    "only {} of address space is left (ulimit -v)",
                    crate::memory::size(room)
                )));
            }
            let (task_tx, task_rx) = mpsc::channel::<Task>();
            let (reply_tx, reply_rx) = mpsc::channel::<Reply>();
            let spawned = std::thread::Builder::new()
                .name(format!("sgtab-generic-{i}"))
                .stack_size(STACK)
                .spawn_scoped(s, move || {
                    let mut here = Here { worker: source.worker(), table, marks: Marks::default() };
                    while let Ok(task) = task_rx.recv() {
                        if reply_tx.send(here.run(task)).is_err() {
                            return;
                        }
                    }
                });
            if let Err(e) = spawned {
                // The threads started so far end when `tasks` is dropped.
                return Err(cannot(e.to_string()));
            }
            tasks.push(task_tx);
            replies.push(reply_rx);
        }
        let here = Here { worker: source.worker(), table, marks: Marks::default() };
        Ok(Pool { here, tasks, replies, spare: Vec::new(), spare_summaries: Vec::new() })
    }

    fn threads(&self) -> usize {
        1 + self.tasks.len()
    }

    /// Hands the first task to this thread's worker and one to each other thread, and collects
    /// the replies in order; the first failure is returned (after every reply is in, so no
    /// task still reads what the caller may free).
    fn round(&mut self, tasks: Vec<Task>) -> Result<Vec<Reply>, Stop> {
        let mut tasks = tasks.into_iter();
        let Some(first) = tasks.next() else { return Ok(Vec::new()) };
        let mut sent = 0;
        for (i, task) in tasks.enumerate() {
            self.tasks[i]
                .send(task)
                .map_err(|_| EngineError::refused("a worker thread stopped"))?;
            sent += 1;
        }
        let mut replies = Vec::with_capacity(1 + sent);
        let mut failed = None;
        match self.here.run(first) {
            Reply::Failed(stop) => failed = Some(stop),
            reply => replies.push(reply),
        }
        for rx in &self.replies[..sent] {
            match rx.recv() {
                Ok(Reply::Failed(stop)) => failed = failed.or(Some(stop)),
                Ok(reply) => replies.push(reply),
                Err(_) => {
                    failed = failed
                        .or(Some(Stop::Engine(EngineError::refused("a worker thread stopped"))))
                }
            }
        }
        match failed {
            Some(stop) => Err(stop),
            None => Ok(replies),
        }
    }

    fn summaries(&mut self) -> Summaries {
        self.spare_summaries.pop().unwrap_or_default()
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
        Task::Block { positions, known, found, budget } => {
            block(worker, positions, known, found, budget, table)
        }
        Task::Ranks { positions, mut out } => {
            out.clear();
            match worker.ranks(&positions, &mut out) {
                Ok(()) if out.len() == positions.len() => Reply::Ranks(out),
                Ok(()) => Reply::Failed(Stop::Engine(EngineError::game(
                    "the game gave a wrong number of ranks",
                ))),
                Err(e) => Reply::Failed(Stop::Game(e)),
            }
        }
        Task::Layer { positions, rank, ranks, summaries: false, .. } => {
            // SAFETY: see `Task`: the slice outlives the task and is not written meanwhile.
            orders::layer(worker, positions, rank, unsafe { &*ranks }, table, marks)
        }
        Task::Layer { positions, rank, ranks, summaries: true, vmax } => {
            let mut out = Summaries::default();
            // SAFETY: as above.
            match summary::layer(
                worker,
                &positions,
                rank,
                unsafe { &*ranks },
                vmax,
                table,
                &mut out,
            ) {
                Ok(most) => Reply::Layer(most),
                Err(stop) => Reply::Failed(stop),
            }
        }
        Task::Summaries { positions, known, vmax, mut out } => {
            let start = std::time::Instant::now();
            match summary::summarize(worker, &positions, known, None, vmax, table, &mut out) {
                Ok(()) => Reply::Summaries(positions, out, start.elapsed().as_secs_f64()),
                Err(stop) => Reply::Failed(stop),
            }
        }
        Task::Graph { positions, found, budget } => {
            orders::graph(worker, positions, found, budget, table.len() as u64)
        }
    }
}

/// The options of `positions` into `found`, each as `each` files it (a folded value, or kept as
/// its positions), the entries of each position closed in order; `each` may refuse an option.
/// Once `found` holds `budget` entries no further position is taken (the first one always is):
/// the reply names the positions done. The worker is handed one position, then twice as many
/// each time up to [`STEP`], as many as the densest position so far says fit.
fn gather(
    worker: &mut dyn Worker,
    mut positions: Vec<u64>,
    mut found: Found,
    budget: usize,
    mut each: impl FnMut(u64, &[u64], &mut Found) -> Option<Stop>,
) -> Reply {
    if let Some(stop) = room(&mut found.ends, positions.len()) {
        return Reply::Failed(stop);
    }
    let (mut bad, mut last, mut full) = (None, None, None);
    let (mut done, mut step) = (0, 0);
    // The most entries one position took so far, and the positions measured for it.
    let (mut most, mut measured, mut at) = (1, 0, (0, 0));
    while done < positions.len() && full.is_none() {
        let held = found.entries();
        if done > 0 && held >= budget {
            break;
        }
        step = ((budget - held) / most)
            .clamp(1, (2 * step).clamp(1, STEP))
            .min(positions.len() - done);
        let result = worker.options(&positions[done..done + step], &mut |p, option| {
            if bad.is_some() || full.is_some() {
                return;
            }
            if last != Some(p) {
                // A new position: taken while the budget lasts.
                if found.entries() >= budget && (last.is_some() || !found.ends.is_empty()) {
                    full = Some(p);
                    return;
                }
                // Close the positions before p (those with no options included).
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
        done = match full {
            Some(p) => positions.partition_point(|&q| q < p),
            None => done + step,
        };
        close_until(&mut found, &positions[..done], &mut last, u64::MAX);
        for &(v1, k1) in &found.ends[measured..] {
            most = most.max((v1 - at.0) + 2 * (k1 - at.1));
            at = (v1, k1);
        }
        measured = found.ends.len();
    }
    positions.truncate(done);
    Reply::Found(positions, found)
}

/// A block in index order: each option folded to its value where all its positions are below
/// `known`, kept as positions otherwise (for the caller to finish in order).
fn block(
    worker: &mut dyn Worker,
    positions: Vec<u64>,
    known: u64,
    found: Found,
    budget: usize,
    table: &[AtomicU32],
) -> Reply {
    let count = table.len() as u64;
    let value = |q: u64| table[q as usize].load(Relaxed);
    gather(worker, positions, found, budget, |p, option, found| {
        if let Some(&q) = option.iter().find(|&&q| q >= p) {
            return Some(if q >= count { Stop::Outside(p, q) } else { Stop::NotBelow(p, q) });
        }
        if option.iter().all(|&q| q < known) {
            if let Some(stop) = room(&mut found.values, 1) {
                return Some(stop);
            }
            found.values.push(option.iter().fold(0, |x, &q| x ^ value(q)));
        } else {
            if let Some(stop) = room(&mut found.kept, option.len() + 1) {
                return Some(stop);
            }
            found.kept.push(option.len() as u64);
            found.kept.extend_from_slice(option);
        }
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
        let budget = BLOCK_ENTRIES / parts;
        let mut tasks = Vec::with_capacity(parts);
        for part in 0..parts {
            let (a, b) = (part_start(n, parts, part) as u64, part_start(n, parts, part + 1) as u64);
            tasks.push(Task::Block {
                positions: (lo + a..lo + b).collect(),
                known: lo,
                found: pool.found(),
                budget,
            });
        }
        let wanted: Vec<usize> = (0..parts)
            .map(|part| part_start(n, parts, part + 1) - part_start(n, parts, part))
            .collect();
        // The most entries one position kept: the next block is sized to it, so that a game
        // whose positions have more options the larger they are (most) stays within bounds.
        let mut most = 1;
        let mut next = lo;
        let mut whole = true;
        for (reply, want) in pool.round(tasks)?.into_iter().zip(wanted) {
            let Reply::Found(positions, found) = reply else { unreachable!("a block gives Found") };
            if whole {
                let (mut v0, mut k0) = (0, 0);
                for (&p, &(v1, k1)) in positions.iter().zip(&found.ends) {
                    // Kept options hold their positions (8 bytes each) and a length: count them
                    // double.
                    most = most.max((v1 - v0) + 2 * (k1 - k0));
                    // Every position was checked below p, and p is the next one to be computed.
                    table[p as usize].store(
                        fold(&found.values[v0..v1], &found.kept[k0..k1], table, &mut marks)?,
                        Relaxed,
                    );
                    (v0, k0) = (v1, k1);
                    next = p + 1;
                }
                // A part that stopped at its budget: the parts after it are done again.
                whole = positions.len() == want;
            }
            pool.spare.push(found);
        }
        progress.tick(next, count);
        // The next block keeps about BLOCK_ENTRIES entries at the rate of this one's largest
        // position, and at most doubles the positions done (options grow with positions).
        block = (BLOCK_ENTRIES as u64 / most as u64).clamp(1, MAX_BLOCK).min(next.max(FIRST_BLOCK));
        lo = next;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
