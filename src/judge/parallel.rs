//! `sgq` on every core: an input that is all in memory (a mapped file) is cut into
//! pieces at whitespace, the pieces are folded on all cores, and the per-piece results are
//! combined per case, in order. The output is byte for byte what the streaming path writes, and
//! any error is the streaming path's own: the parallel path never writes an error itself.
//!
//! # Which formats go through it
//!
//! A sum of games is an XOR, and XOR is associative and its own inverse, so the sum over any run
//! of tokens is the difference of two prefix sums. That fits a format whose cases are a count
//! header and then that many *body* tokens whose value depends on the token alone: `lasker`
//! (`T`, then `N` and N heaps) and `sgq sum` over heaps or rows (`T`, then `n` and n
//! positions). Headers are few (one a case) and body tokens are all the rest, so:
//!
//! 1. **In parallel, per piece** (all the per-token work): every token is read *as a body
//!    token* (range check, value, XOR into a running sum), and every 4096 tokens a mark keeps
//!    (token index, byte offset, running sum). A token that is not a valid body token (a bad
//!    character, out of the body's range) is noted as *odd* and adds nothing; a mark follows it.
//!    A header read as a body token adds its value to the running sum like any other token,
//!    which does no harm: a case's sum is taken between its header and the next.
//! 2. **In order, per case** (the sequential part: per header, not per token): the header of
//!    case k is token h (h = 1 for the first case, then h + 1 + n). Its prefix sum and value
//!    come from the nearest mark before it and at most 4096 tokens read again from there. The
//!    case's sum is P(h + 1 + n) − P(h + 1); it is answered if no odd token lies inside it.
//!
//! Anything unusual (a header out of its range or not a number, an odd token inside a case, the
//! input ending inside a case, input after the last case, a piece with too many odd tokens)
//! stops the walk at the start of that case: the cases before it are answered, and the
//! streaming scanner takes over from the byte where that case's header starts, with the line
//! number from counting the newlines before it. So the first error in the input wins even if a
//! later piece finished first, and its message, line, column and byte are the streaming path's.
//!
//! The other formats go through the second parallel path, [`tokens`](super::tokens): every
//! token of a piece read in parallel into a compact array, then the problem's own walk over
//! them in order. That fits formats where headers are many and a token's meaning depends on
//! the ones before it:
//! - `chess`: a row is `m` and m columns combined into one mask (with a check for repeats),
//!   so every row has a header: headers are a third of the tokens, and walking them in order
//!   is most of the parse. `snim` likewise (a position every ≤ 101 tokens, and each case's
//!   table is built from its own move set: the tables are built on all cores too); `funny`
//!   (cases of ≤ 24 tokens, answered in batches on all cores); `stones` (pairs).
//! - `sgq sum` on a board: a position is two tokens, `x y` (a token's value depends on its
//!   partner, so a piece would need both pairings): the walk pairs them.
//!
//! `sgq value` needs neither: every position is a line of output of its own, so each piece is
//! read *and its lines written* on a thread of its own, and the lines written in order
//! ([`query::value_bytes`](super::query::value_bytes)). On a board a position is two tokens:
//! pieces are cut after a newline ([`cut_lines`]) and read as starting with an x, and the
//! in-order walk reads a piece again on its own thread where the piece before left an x waiting.

use super::input::{self, Halt, Scanner};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Threads and piece size of the parallel path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parallel {
    pub threads: usize,
    /// Bytes a piece (pieces end at whitespace, so a piece can be longer).
    pub piece: usize,
    /// The input lies in a read-only mapping of a file ([`Parallel::over_mapped_file`]).
    pub(crate) mapped_file: bool,
}

impl Parallel {
    /// A few MiB: big enough that the per-piece work (a thread's start, its marks) is noise,
    /// small enough that 2 to 16 threads share a 100 MB input evenly.
    pub const PIECE: usize = 4 << 20;

    /// `threads` threads (at least 1, at most [`most_threads`](Parallel::most_threads)) and
    /// pieces of [`PIECE`](Parallel::PIECE) bytes.
    pub fn new(threads: usize) -> Parallel {
        Parallel { threads: threads.clamp(1, Parallel::most_threads()), piece: Parallel::PIECE, mapped_file: false }
    }

    /// The most threads asked for that are started: four a core, and at least 16. More cannot
    /// help work that keeps every thread busy, and each costs a start and a stack: `--threads
    /// 100000` once took 4.3 s and 190 MB on a 28 MB chess input (the token path starts its
    /// threads before it knows how many pieces there are).
    pub fn most_threads() -> usize {
        (4 * cores()).max(16)
    }

    /// Every core this process may use (never more than [`most_threads`](Parallel::most_threads),
    /// so not clamped: the system is asked once).
    pub fn all_cores() -> Parallel {
        Parallel { threads: cores(), piece: Parallel::PIECE, mapped_file: false }
    }

    /// The same, for input in a mapped file: each piece's pages are mapped in one system call
    /// before the piece is read (not a page fault every 64 KiB) and dropped from this process
    /// after it (the page cache keeps them), so the threads share the mapping's teardown and the
    /// resident set stays near threads × piece, not the file's size. Reading a dropped page
    /// again (a case's header, or where the streaming path takes over) maps the same bytes back.
    ///
    /// # Safety
    /// Every input this is used with must lie in a read-only mapping of a file that this
    /// process never writes. (Dropping pages of anonymous memory, such as a `Vec`, would zero
    /// them.)
    pub unsafe fn over_mapped_file(self) -> Parallel {
        Parallel { mapped_file: true, ..self }
    }

    /// After a piece is read: its pages dropped from this process, if the input is a mapped
    /// file, so that the resident set stays near threads × piece (peak RSS of `sgq lasker` on a
    /// 105 MB input: 12.6 MiB on 2 threads, against the 100 MiB of the whole file; `cargo bench
    /// --bench sgq`). Pages are not mapped ahead (`MADV_POPULATE_READ`): that cost 6% of the
    /// run here (20.7 against 19.5 ms, medians of 15 alternating runs, file in the page cache).
    pub(crate) fn release(&self, bytes: &[u8]) {
        #[cfg(target_os = "linux")]
        if self.mapped_file {
            // SAFETY: the input lies in a read-only file mapping (the contract of
            // `over_mapped_file`), where MADV_DONTNEED only unmaps pages: the next read of one
            // maps the same bytes again from the page cache. Pages shared with the next piece
            // are dropped too, and come back the same way if that piece is still being read.
            unsafe { madvise(bytes, libc::MADV_DONTNEED) };
        }
    }
}

/// The cores this process may use (1 if the system does not say; the system reads its cgroup
/// files to say, so this is asked once a run).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `madvise` over the pages that hold `bytes`; failure is ignored (it is advice).
///
/// # Safety
/// As for the advice given.
#[cfg(target_os = "linux")]
unsafe fn madvise(bytes: &[u8], advice: libc::c_int) {
    const PAGE: usize = 4096;
    let start = bytes.as_ptr() as usize & !(PAGE - 1);
    let end = bytes.as_ptr() as usize + bytes.len();
    if bytes.is_empty() {
        return;
    }
    // SAFETY: the caller's; the range is the pages of `bytes`, all mapped.
    unsafe { libc::madvise(start as *mut libc::c_void, end - start, advice) };
}

/// Tokens between marks: a header is found by reading at most this many tokens again.
const MARK_EVERY: u64 = 4096;
/// Odd tokens a piece notes before it gives up (the walk then hands over to the streaming
/// path there): valid input has none, so this only bounds the memory bad input can take.
const MAX_ODD: usize = 64;

/// Bytes past which a token is too long to look for its end: an odd token in phase 1, or one
/// that a piece's nominal end falls in when cutting. Any number's token is far shorter, unless
/// it has a megabyte of leading zeros (valid, and still read: on one thread).
const LONG_TOKEN: usize = 1 << 20;

/// A sum of body tokens: the XOR of their values and how many were flagged (`sgq sum` flags
/// positions past the table, for its note). Both parts have an inverse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sum {
    pub xor: u64,
    pub flagged: u64,
}

impl Sum {
    #[inline(always)]
    pub fn of(xor: u64, flagged: bool) -> Sum {
        Sum { xor, flagged: flagged as u64 }
    }

    #[inline(always)]
    fn add(self, o: Sum) -> Sum {
        Sum { xor: self.xor ^ o.xor, flagged: self.flagged.wrapping_add(o.flagged) }
    }

    #[inline(always)]
    fn sub(self, o: Sum) -> Sum {
        Sum { xor: self.xor ^ o.xor, flagged: self.flagged.wrapping_sub(o.flagged) }
    }
}

/// The body tokens of a case: their range and each one's value.
pub struct Body<F> {
    pub min: u64,
    pub max: u64,
    pub value: F,
}

/// A format of cases: `T` in `cases`, then T cases, each a count in `count` and that many body
/// tokens.
#[derive(Clone, Copy, Debug)]
pub struct Cases {
    pub cases: (u64, u64),
    pub count: (u64, u64),
}

/// Where the walk stopped.
#[derive(Debug, PartialEq, Eq)]
pub enum Walked {
    /// Every case answered and nothing after them.
    Done,
    /// The streaming path takes over at byte `offset` (where the scanner stands before the next
    /// header), at case `case` of `cases`; `case` = cases + 1 is the check that nothing follows.
    /// `None`: from the start (the case count itself was not right).
    Resume { at: Option<(u64, u64)>, offset: usize },
}

/// A point of a piece to start reading from: local token index, absolute byte offset, and the
/// piece's sum of the tokens before it.
#[derive(Clone, Copy, Debug)]
struct Mark {
    token: u64,
    offset: usize,
    sum: Sum,
}

/// What phase 1 knows of a piece.
struct Piece {
    range: Range<usize>,
    /// Tokens read (through the last odd one when `stopped`).
    tokens: u64,
    total: Sum,
    marks: Vec<Mark>,
    /// Local indexes of odd tokens.
    odd: Vec<u64>,
    /// Gave up after too many odd tokens: nothing past `tokens` is known.
    stopped: bool,
}

/// Cuts `data` into pieces of about `piece` bytes for `threads` threads, each ending at
/// whitespace (or the end), so that no token is split. The last pieces are smaller
/// (`piece_at`), so that the threads finish together.
pub fn cut(data: &[u8], piece: usize, threads: usize) -> Vec<Range<usize>> {
    cut_where(data, piece, threads, |_, end| end)
}

/// How far past a piece's end [`cut_lines`] looks for a newline.
const LINE_REACH: usize = 4096;

/// [`cut`], but each piece ends just after a newline where one lies within 4 KiB of where it
/// would end (for formats whose lines hold whole records: `sgq value` on a board).
pub fn cut_lines(data: &[u8], piece: usize, threads: usize) -> Vec<Range<usize>> {
    cut_where(data, piece, threads, |data, end| {
        let reach = &data[end - 1..(end + LINE_REACH).min(data.len())];
        reach.iter().position(|&b| b == b'\n').map_or(end, |i| end + i)
    })
}

/// The least piece [`piece_at`] cuts (unless `piece` itself is less).
const LEAST_PIECE: usize = 256 << 10;

/// The size of the next piece when `left` bytes are left: `piece`, until a share of what is
/// left (half of it over the threads) is less; then that share, down to [`LEAST_PIECE`]
/// ("guided" scheduling). Pieces handed out in order then end close together, so no thread
/// is left reading a whole `piece` while the others wait: with 4 MiB pieces that wait was up
/// to a piece's time on 2 threads, and on 16 threads a 100 MB input was only 25 pieces.
fn piece_at(piece: usize, threads: usize, left: usize) -> usize {
    let piece = piece.max(1);
    (left / (2 * threads.max(1))).clamp(piece.min(LEAST_PIECE), piece)
}

/// Pieces of [`piece_at`] bytes, each ending at whitespace, then at `settle(data, end)` (an
/// end at whitespace or `data`'s end, not before `end`).
fn cut_where(data: &[u8], piece: usize, threads: usize, settle: impl Fn(&[u8], usize) -> usize) -> Vec<Range<usize>> {
    let mut pieces = Vec::with_capacity(data.len() / piece.max(1) + 1);
    let mut start = 0;
    while start < data.len() {
        let nominal = start.saturating_add(piece_at(piece, threads, data.len() - start)).min(data.len());
        let reach = nominal.saturating_add(LONG_TOKEN).min(data.len());
        let Some(space) = data[nominal - 1..reach].iter().position(|&b| input::is_space(b)) else {
            // No whitespace within a long token's length: the rest is one piece, not scanned
            // here to its end (a sparse file of NULs would be read, and mapped, whole).
            pieces.push(start..data.len());
            break;
        };
        let end = settle(data, nominal + space);
        pieces.push(start..end);
        start = end;
    }
    pieces
}

/// Phase 1 for one piece: every token read as a body token.
fn summarize<F: Fn(u64) -> Sum>(data: &[u8], range: Range<usize>, body: &Body<F>) -> Piece {
    let mut scan = Scanner::over(&data[range.clone()], range.start as u64, 0, 0);
    let mut sum = Sum::default();
    let mut tokens = 0;
    let mut marks = vec![Mark { token: 0, offset: range.start, sum }];
    let mut odd = Vec::new();
    loop {
        let (s, left, halt) = scan.fold_some(MARK_EVERY, body.min, body.max, &"", None, sum, |s, v| s.add((body.value)(v)));
        sum = s;
        tokens += MARK_EVERY - left;
        match halt {
            Some(Halt::End) => break,
            Some(Halt::Bad(_)) => {
                // A slice never fails to read, so stepping over the token cannot fail. A token
                // longer than any number's (a run of NULs in a sparse file, say) is not read to
                // its end here: the piece gives up, and the streaming path, which says what is
                // wrong from the token's first bytes, takes over before it.
                let ended = scan.skip_token_within(LONG_TOKEN).unwrap_or(false);
                odd.push(tokens);
                tokens += 1;
                if odd.len() > MAX_ODD || !ended {
                    return Piece { range, tokens, total: sum, marks, odd, stopped: true };
                }
            }
            None => {}
        }
        marks.push(Mark { token: tokens, offset: scan.offset() as usize, sum });
    }
    Piece { range, tokens, total: sum, marks, odd, stopped: false }
}

/// Phase 1 for every piece, on `threads` threads (this one among them), pieces handed out in
/// order. Plain scoped threads: `sgq` stays small (no thread pool crate).
fn summarize_all<F: Fn(u64) -> Sum + Sync>(data: &[u8], ranges: Vec<Range<usize>>, body: &Body<F>, par: Parallel) -> Vec<Piece> {
    let next = AtomicUsize::new(0);
    let work = || {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(range) = ranges.get(i) else { return mine };
            mine.push((i, summarize(data, range.clone(), body)));
            par.release(&data[range.clone()]);
        }
    };
    let done: Vec<(usize, Piece)> = std::thread::scope(|s| {
        let helpers = spawn_helpers(s, par.threads.min(ranges.len()).saturating_sub(1), work);
        let mut all = work();
        for h in helpers {
            all.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        all
    });
    in_order(done)
}

/// Starts `n` helper threads in `scope`, each running `work`, each on a core of its own where
/// the system lets this process say so (Linux); returns those the system started (a thread it
/// will not start is one fewer helper, not an error). Plain scoped threads: `sgq` stays small
/// (no thread pool crate).
///
/// Why not just spawn them: Linux starts a new thread on its parent's core, and an idle core
/// takes it over only at its next load balance. On these 2-core machines that was 0.3 to 4.6 ms
/// (median 1.6 ms, 30 runs) before a helper of `sgq lasker` read its first byte, where the
/// whole 105 MB input takes about 18 ms; a C program that starts one thread and spins on both
/// took 1.47 times as long as with the thread started on the other core (medians of 25 runs).
///
/// So each helper is started while the spawning thread's affinity is narrowed to one core that
/// no other thread of the phase has (the helper inherits it; the first helper gets the
/// spawning thread's own core), and the helper widens its own affinity back to the process's
/// as its first act; once all are started, the spawning thread moves to a core of its own (a
/// thread narrowing its own affinity moves at once) and widens its affinity back too. No
/// thread stays pinned: the scheduler moves them as usual from then on. Started this way a
/// helper reads its first byte 0.1 ms after the cut.
pub(crate) fn spawn_helpers<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    n: usize,
    work: impl Fn() -> T + Send + Copy + 'scope,
) -> Vec<std::thread::ScopedJoinHandle<'scope, T>> {
    let spread = Spread::new(n);
    let mut started = Vec::with_capacity(n);
    for k in 0..n {
        let own = spread.before(k);
        if let Ok(h) = std::thread::Builder::new().spawn_scoped(scope, move || {
            Spread::widen(own);
            work()
        }) {
            started.push(h);
        }
    }
    spread.before(n);
    started
}

/// Where [`spawn_helpers`] puts its threads: the cores this process may use, the spawning
/// thread's own first.
struct Spread {
    /// The affinity to give back (`None`: nothing is narrowed, as off Linux or where the
    /// system does not say).
    #[cfg(target_os = "linux")]
    all: Option<libc::cpu_set_t>,
    #[cfg(target_os = "linux")]
    cores: Vec<usize>,
    /// Helpers started on a core of their own (the rest start where the system puts them).
    #[cfg(target_os = "linux")]
    pinned: usize,
}

/// What a helper widens its affinity to as it starts (`None`: it was not narrowed).
#[cfg(target_os = "linux")]
type Own = Option<libc::cpu_set_t>;
#[cfg(not(target_os = "linux"))]
type Own = ();

impl Spread {
    #[cfg(target_os = "linux")]
    #[inline(never)]
    fn new(n: usize) -> Spread {
        let none = Spread { all: None, cores: Vec::new(), pinned: 0 };
        // SAFETY: a zeroed cpu_set_t is the empty set; the calls write only into `all`, whose
        // size they are given.
        let (all, here) = unsafe {
            let mut all: libc::cpu_set_t = std::mem::zeroed();
            if n == 0 || libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut all) != 0 {
                return none; // over 1024 cores, say: started where the system puts them
            }
            (all, libc::sched_getcpu())
        };
        // SAFETY: CPU_ISSET reads the set, with any index below CPU_SETSIZE.
        let allowed = |c: usize| unsafe { libc::CPU_ISSET(c, &all) };
        let Some(here) = usize::try_from(here).ok().filter(|&h| h < libc::CPU_SETSIZE as usize && allowed(h)) else { return none };
        let cores: Vec<usize> = std::iter::once(here).chain((0..libc::CPU_SETSIZE as usize).filter(|&c| c != here && allowed(c))).collect();
        let pinned = n.min(cores.len() - 1);
        if pinned == 0 {
            return none;
        }
        Spread { all: Some(all), cores, pinned }
    }

    /// Before helper `k` is started (and with `k` = n once all are): if it is one of the
    /// pinned, the spawning thread's affinity is narrowed to the helper's core; once the
    /// pinned are started, the spawning thread moves to a core none of them was started on,
    /// and its affinity is given back. Returns what the helper widens to. (Not inlined: one
    /// copy in `sgq`, not one per fold.)
    #[cfg(target_os = "linux")]
    #[inline(never)]
    fn before(&self, k: usize) -> Own {
        let all = self.all?;
        if k > self.pinned {
            return None;
        }
        Spread::pin(self.cores[k]);
        if k < self.pinned {
            return Some(all);
        }
        Spread::widen(Some(all));
        None
    }

    /// The calling thread's affinity set to `core` alone; failure is ignored (the thread then
    /// runs where it would have).
    #[cfg(target_os = "linux")]
    fn pin(core: usize) {
        // SAFETY: the set is built in place and passed with its size; pid 0 is this thread.
        unsafe {
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(core, &mut one);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one);
        }
    }

    /// The calling thread's affinity given back (if it was narrowed).
    #[cfg(target_os = "linux")]
    fn widen(own: Own) {
        if let Some(all) = own {
            // SAFETY: `all` is a set the system gave; pid 0 is this thread.
            unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &all) };
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn new(_: usize) -> Spread {
        Spread {}
    }
    #[cfg(not(target_os = "linux"))]
    fn before(&self, _: usize) -> Own {}
    #[cfg(not(target_os = "linux"))]
    fn widen(_: Own) {}
}

/// The pieces of phase 1 in input order. Not inside the generic `summarize_all`: a closure
/// there would be a type of its own for every body, and so would the sort (several KB each, in
/// `sgq`, which must stay under 1 MiB).
fn in_order(mut done: Vec<(usize, Piece)>) -> Vec<Piece> {
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, p)| p).collect()
}

/// Token `i` as phase 2 sees it.
struct At {
    /// Sum of the body tokens before it.
    prefix: Sum,
    /// Where a scanner stands before it (just past the token before).
    offset: usize,
    /// Its value, if it was read as a header and is a number in the header's range.
    value: Option<u64>,
}

/// Phase 2: the pieces with their global token indexes, read again near a header.
struct Walk<'d, 'b, F> {
    data: &'d [u8],
    body: &'b Body<F>,
    pieces: Vec<Piece>,
    /// Global index of each piece's first token, and the sum of all pieces before it.
    first: Vec<u64>,
    before: Vec<Sum>,
    /// Tokens known (all of them unless a piece stopped), their sum, and whether that is all.
    known: u64,
    total: Sum,
    complete: bool,
    /// Global indexes of odd tokens, in order.
    odd: Vec<u64>,
    /// Just past the last header read: (piece, mark), to go on from there.
    cursor: Option<(usize, Mark)>,
}

impl<'d, 'b, F: Fn(u64) -> Sum> Walk<'d, 'b, F> {
    fn new(data: &'d [u8], body: &'b Body<F>, mut pieces: Vec<Piece>) -> Self {
        let (mut first, mut before, mut odd) = (Vec::new(), Vec::new(), Vec::new());
        let (mut known, mut total, mut complete) = (0, Sum::default(), true);
        for p in &pieces {
            first.push(known);
            before.push(total);
            odd.extend(p.odd.iter().map(|&o| known + o));
            known += p.tokens;
            total = total.add(p.total);
            if p.stopped {
                complete = false;
                break;
            }
        }
        pieces.truncate(first.len());
        Walk { data, body, pieces, first, before, known, total, complete, odd, cursor: None }
    }

    /// Whether an odd token lies in tokens `from..to`.
    fn odd_in(&self, from: u64, to: u64) -> bool {
        let i = self.odd.partition_point(|&o| o < from);
        self.odd.get(i).is_some_and(|&o| o < to)
    }

    /// Token `i`, read as a header in `header` if given; `None` where it is not known.
    fn at(&mut self, i: u64, header: Option<(u64, u64)>) -> Option<At> {
        if i >= self.known {
            return (i == self.known && self.complete).then_some(At { prefix: self.total, offset: self.data.len(), value: None });
        }
        let p = self.first.partition_point(|&f| f <= i) - 1;
        let piece = &self.pieces[p];
        let local = i - self.first[p];
        let mut mark = piece.marks[piece.marks.partition_point(|m| m.token <= local) - 1];
        if let Some((cp, c)) = self.cursor
            && cp == p
            && c.token <= local
            && c.token > mark.token
        {
            mark = c;
        }
        let mut scan = Scanner::over(&self.data[mark.offset..piece.range.end], mark.offset as u64, 0, 0);
        let body = self.body;
        let (sum, _, halt) = scan.fold_some(local - mark.token, body.min, body.max, &"", None, mark.sum, |s, v| s.add((body.value)(v)));
        if halt.is_some() {
            return None; // no odd token lies between a mark and the next; never happens
        }
        let offset = scan.offset() as usize;
        let prefix = self.before[p].add(sum);
        let value = header.and_then(|(min, max)| scan.next_in(min, max, &"").ok().flatten());
        if let Some(v) = value {
            let own = if (body.min..=body.max).contains(&v) { (body.value)(v) } else { Sum::default() };
            self.cursor = Some((p, Mark { token: local + 1, offset: scan.offset() as usize, sum: sum.add(own) }));
        }
        Some(At { prefix, offset, value })
    }
}

/// Answers the cases of `format` in `data` on `par.threads` threads: `answer(case, sum)` for
/// each case answered, in order. Returns where the streaming path must take over, if anywhere.
pub fn cases<F, A>(data: &[u8], par: Parallel, format: Cases, body: &Body<F>, mut answer: A) -> Result<Walked, super::JudgeError>
where
    F: Fn(u64) -> Sum + Sync,
    A: FnMut(u64, Sum) -> Result<(), super::JudgeError>,
{
    let pieces = summarize_all(data, cut(data, par.piece, par.threads), body, par);
    let mut walk = Walk::new(data, body, pieces);
    let from_start = Walked::Resume { at: None, offset: 0 };
    let Some(At { value: Some(t), .. }) = walk.at(0, Some(format.cases)) else { return Ok(from_start) };
    // The header of the next case: its index, and what it is (read with the count's range).
    let mut h = 1;
    let Some(mut head) = walk.at(h, (t > 0).then_some(format.count)) else { return Ok(from_start) };
    for case in 1..=t {
        let resume = Walked::Resume { at: Some((t, case)), offset: head.offset };
        let Some(n) = head.value else { return Ok(resume) };
        let own = if (body.min..=body.max).contains(&n) { (body.value)(n) } else { Sum::default() };
        let start = h + 1;
        let Some(end) = start.checked_add(n).filter(|&e| e <= walk.known) else { return Ok(resume) };
        if walk.odd_in(start, end) {
            return Ok(resume);
        }
        let Some(next) = walk.at(end, (case < t).then_some(format.count)) else { return Ok(resume) };
        answer(case, next.prefix.sub(head.prefix.add(own)))?;
        (h, head) = (end, next);
    }
    if h == walk.known && walk.complete {
        return Ok(Walked::Done);
    }
    Ok(Walked::Resume { at: Some((t, t + 1)), offset: head.offset })
}

#[cfg(test)]
mod tests;
