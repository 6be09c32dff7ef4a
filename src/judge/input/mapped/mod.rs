//! Input all in memory (a mapped file) read on every core. The input is cut into pieces at
//! whitespace ([`cut`]), the pieces are read on `--threads` threads, a sliding window of them
//! ahead of the reading ([`Ordered`]), and the results are walked in order on one thread. The
//! output is byte for byte what the streaming path writes, and any error is the streaming
//! path's own: a walk never writes an error itself. Where it meets anything unusual it stops
//! ([`Walked::Resume`]) at the byte where that case (or token) starts, and the streaming
//! [`Scanner`](super::Scanner) takes over there, with the line counted from the newlines
//! before it. So the first error in the input wins even if a later piece finished first.
//!
//! Two walks, for two shapes of format:
//!
//! - [`prefix`]: counted cases whose numbers each count on their own (`lasker`, `sgq sum` on
//!   heaps and rows). Every token of a piece is read as a body number into running XOR sums,
//!   and a case's sum is the difference of two prefix sums: the walk in order is per case,
//!   not per token.
//! - [`tokens`]: formats where a number's meaning depends on the ones before it (a chess row's
//!   columns, a snim case's moves, a board's `x y`). Every token of a piece is read into a
//!   compact array, and the problem's own grammar reads the arrays in order through
//!   [`TokenNumbers`](tokens::TokenNumbers).
//!
//! `sgq value` needs neither: every position is a line of output of its own, so each piece is
//! read *and its lines written* on a thread, and the lines are written in order.

mod ordered;
pub mod prefix;
mod threads;
pub mod tokens;

pub use ordered::{Ordered, ordered};

use super::is_space;
use std::ops::Range;

/// Threads and piece size of the walks over input in memory.
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
        Parallel {
            threads: threads.clamp(1, Parallel::most_threads()),
            piece: Parallel::PIECE,
            mapped_file: false,
        }
    }

    /// The most threads asked for that are started: four a core, and at least 16. More cannot
    /// help work that keeps every thread busy, and each costs a start and a stack (the token
    /// walk starts its threads before it knows how many pieces there are).
    pub fn most_threads() -> usize {
        (4 * cores()).max(16)
    }

    /// Every core this process may use (never more than [`most_threads`](Parallel::most_threads),
    /// so not clamped: the system is asked once).
    pub fn all_cores() -> Parallel {
        Parallel { threads: cores(), piece: Parallel::PIECE, mapped_file: false }
    }

    /// The same, for input in a mapped file: each piece's pages are dropped from this process
    /// once the piece is read (the page cache keeps them), so the threads share the mapping's
    /// teardown and the resident set stays near threads × piece, not the file's size. Reading a
    /// dropped page again (a case's header, or where the streaming path takes over) maps the
    /// same bytes back.
    ///
    /// # Safety
    /// Every input this is used with must lie in a read-only mapping of a file that this
    /// process never writes. (Dropping pages of anonymous memory, such as a `Vec`, would zero
    /// them.)
    pub unsafe fn over_mapped_file(self) -> Parallel {
        Parallel { mapped_file: true, ..self }
    }

    /// After a piece is read: its pages dropped from this process, if the input is a mapped
    /// file, so that the resident set stays near threads × piece.
    fn release(&self, bytes: &[u8]) {
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

/// Bytes past which a token is too long to look for its end: an odd token in phase 1, or one
/// that a piece's nominal end falls in when cutting. Any number's token is far shorter, unless
/// it has a megabyte of leading zeros (valid, and still read: on one thread).
const LONG_TOKEN: usize = 1 << 20;

/// Where a walk over input in memory stopped.
#[derive(Debug, PartialEq, Eq)]
pub enum Walked {
    /// Every case answered, and nothing after them.
    Done,
    /// The streaming path takes over at case `case` (one past the last case: the check that
    /// nothing follows), from byte `offset`: where that case starts, or where the scanner
    /// stands before it (just past the token before).
    Resume { case: u64, offset: usize },
}

/// Cuts `data` into pieces of about `piece` bytes for `threads` threads, each ending at
/// whitespace (or the end), so that no token is split. The last pieces are smaller
/// (`piece_at`), so that the threads finish together.
pub fn cut(data: &[u8], piece: usize, threads: usize) -> Vec<Range<usize>> {
    cut_where(data, piece, threads, |_, end| end)
}

/// [`cut`] of `data[start..]` for `par`, as ranges of `data`.
fn cut_from(data: &[u8], start: usize, par: Parallel) -> Vec<Range<usize>> {
    cut(&data[start..], par.piece, par.threads)
        .into_iter()
        .map(|r| r.start + start..r.end + start)
        .collect()
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
/// is left reading a whole `piece` while the others wait, and many threads get pieces enough.
fn piece_at(piece: usize, threads: usize, left: usize) -> usize {
    let piece = piece.max(1);
    (left / (2 * threads.max(1))).clamp(piece.min(LEAST_PIECE), piece)
}

/// Pieces of [`piece_at`] bytes, each ending at whitespace, then at `settle(data, end)` (an
/// end at whitespace or `data`'s end, not before `end`).
fn cut_where(
    data: &[u8],
    piece: usize,
    threads: usize,
    settle: impl Fn(&[u8], usize) -> usize,
) -> Vec<Range<usize>> {
    let mut pieces = Vec::with_capacity(data.len() / piece.max(1) + 1);
    let mut start = 0;
    while start < data.len() {
        let nominal =
            start.saturating_add(piece_at(piece, threads, data.len() - start)).min(data.len());
        let reach = nominal.saturating_add(LONG_TOKEN).min(data.len());
        let Some(space) = data[nominal - 1..reach].iter().position(|&b| is_space(b)) else {
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

/// The byte offset where the token `skip` tokens after offset `from` starts (`from` at a token
/// or whitespace), or the end of `data` if there are not that many.
pub fn token_start(data: &[u8], from: usize, mut skip: u64) -> usize {
    let mut i = from;
    loop {
        while i < data.len() && is_space(data[i]) {
            i += 1;
        }
        if skip == 0 || i == data.len() {
            return i;
        }
        while i < data.len() && !is_space(data[i]) {
            i += 1;
        }
        skip -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_end_at_whitespace_and_cover_the_input() {
        let data = b"12 345\n6789  0 1\t22222222222222 3 ";
        for (piece, threads) in (1..=40).flat_map(|p| [(p, 1), (p, 2), (p, 7)]) {
            let pieces = cut(data, piece, threads);
            assert_eq!(pieces.first().map(|p| p.start), Some(0));
            assert_eq!(pieces.last().map(|p| p.end), Some(data.len()));
            for w in pieces.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert!(
                    is_space(data[w[0].end - 1]),
                    "piece {piece}: cut inside a token at {}",
                    w[0].end
                );
            }
            assert!(pieces.iter().all(|p| !p.is_empty()));
        }
        assert!(cut(b"", 4, 2).is_empty());
    }

    #[test]
    fn threads_asked_for_are_cut_to_what_can_help() {
        let most = Parallel::most_threads();
        assert!(most >= 16);
        assert_eq!(Parallel::new(0).threads, 1);
        assert_eq!(Parallel::new(7).threads, 7);
        assert_eq!(Parallel::new(100_000).threads, most);
        assert_eq!(Parallel::new(usize::MAX).threads, most);
        assert!(Parallel::all_cores().threads <= most);
    }

    #[test]
    fn late_pieces_shrink_so_threads_end_together() {
        const MIB: usize = 1 << 20;
        for threads in [1, 2, 7, 16] {
            // The sizes cut from a 105 MB input, as `cut_where` takes them (pieces of digits
            // and spaces end within a token's length of these).
            let (len, piece) = (104_825_743, 4 * MIB);
            let mut sizes = Vec::new();
            let mut left = len;
            while left > 0 {
                let size = piece_at(piece, threads, left).min(left);
                sizes.push(size);
                left -= size;
            }
            assert!(
                sizes.windows(2).all(|w| w[0] >= w[1]),
                "{threads} threads: sizes grow: {sizes:?}"
            );
            assert!(sizes.iter().all(|&s| s <= piece));
            assert!(sizes[..sizes.len() - 1].iter().all(|&s| s >= LEAST_PIECE));
            // Every thread gets many pieces, and the last ones are small.
            assert!(sizes.len() >= 4 * threads, "{threads} threads: only {} pieces", sizes.len());
            assert!(
                sizes[sizes.len() - threads..].iter().all(|&s| s <= LEAST_PIECE),
                "{threads} threads: {sizes:?}"
            );
            // Not many more pieces than whole `piece`s would be.
            assert!(
                sizes.len() <= len / piece + 1 + 2 * threads * 6,
                "{threads} threads: {} pieces",
                sizes.len()
            );
        }
        // A piece less than the least (the tests' small pieces) is kept as it is.
        assert_eq!(piece_at(7, 3, 1 << 30), 7);
        assert_eq!(piece_at(7, 3, 2), 7);
        assert_eq!(piece_at(0, 0, 5), 1);
    }
}
