//! The fast CPU engine for corner games (queen, rook, king on an N×N board), on all cores.
//!
//! # Line sets (queen and rook)
//!
//! The options of a queen on (x, y) are every earlier cell of its row, its column and its
//! diagonal, so its value is the smallest value not yet taken in any of the three lines. Each
//! line keeps the set of values taken in it as a bitset, and its *floor*: the smallest value not
//! in it (every value below is taken). A cell's value is the first zero of the OR of its three
//! sets, at or above the highest of the three floors: the engine ORs 256 bits of each set at a
//! time as `wide::u8x32` vectors, finds the first byte that is not all ones with one compare and
//! one mask, and the bit inside it with a trailing-ones count. The value then joins the three
//! sets and a floor it equals moves up past the run of taken values. The rook is the same with
//! rows and columns only.
//!
//! A set holds every value its line can take, and a value is at most the number of options
//! (the values of one line's earlier cells are all distinct, each being an option of the next):
//! the queen's (x, y) has x + y + min(x, y), so row x takes values up to 2x + N − 1, column y up
//! to 2y + N − 1, and the diagonal y − x = ±a (cells (i, i + a)) up to 3N − 3 − 2a. One more bit
//! keeps a free bit above the values of a full line, where a floor's walk stops. Each line is
//! padded to whole vectors; all the queen's sets take about N² bytes (the table itself about
//! 2N² bytes at 16 bits a value). [`Lines`] is that layout, shared with the GPU engine.
//!
//! # The king
//!
//! Its three options are neighbours; a cell's value is the mex of three small numbers (at most 3),
//! straight from the table, with no sets.
//!
//! # Schedule
//!
//! The board is cut into tiles of 64×64 cells. Every option of a cell lies in its own tile or in
//! a tile of a lower tile anti-diagonal X + Y, and two tiles of one tile anti-diagonal share no
//! row, no column and no diagonal (their diagonals y − x lie in disjoint bands 2·64 apart), so
//! they touch disjoint sets and can run at once with no locking. Workers take the tiles of one
//! tile anti-diagonal from a shared counter, then meet at a barrier. Inside a tile, cells go in
//! row-major order. A tile works on 64 rows, 64 columns and 127 diagonals, near their floors,
//! which stay in cache.
//!
//! Values are written packed as the `.sgt` payload, at the bits that hold the largest possible
//! value ([`Piece::value_bits`]); the caller shrinks them. A tile writes each of its row
//! segments as one bit run; only the first and last byte of a run can hold another tile's
//! bits, and those two are ORed in atomically.

use super::EngineError;
use crate::games::corner::Piece;
use crate::progress::Progress;
use crate::values::Packed;
use crate::values::packed::{BitWriter, payload_len};
use std::sync::Barrier;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use wide::u8x32;

pub use super::threads;

/// Side of a tile, the unit of work a thread takes.
const TILE: u32 = 64;
/// Bytes of one vector of a set.
const VECTOR: u64 = 32;
/// Zero bytes kept past the payload (the layout `Packed` keeps).
const PAD: usize = 8;
/// Boards with fewer cells than this run on one thread (a thread costs more than it saves).
const MIN_CELLS_FOR_THREADS: u64 = 1 << 16;

/// The line sets of a board: rows 0..N, then columns, then (queen) diagonals, each a run of
/// whole `unit_bits`-bit units.
pub struct Lines {
    /// Offset of each line's set in units, and the total at the end.
    pub offsets: Vec<u64>,
}

impl Lines {
    /// Number of lines with sets: 2N for the rook, 4N − 1 for the queen, none for the king.
    pub fn count(piece: Piece, n: u64) -> u64 {
        match piece {
            Piece::Queen => 4 * n - 1,
            Piece::Rook => 2 * n,
            Piece::King => 0,
        }
    }

    /// Bits line `line` gets: room for the largest value of any of its cells, and one bit more,
    /// so that a set always has a free bit above its values (it has more bits than cells).
    pub fn bits(piece: Piece, n: u64, line: u64) -> u64 {
        let (kind, i) = (line / n, line % n);
        let largest = match (piece, kind) {
            // row i or column i: its largest option count is at its far end.
            (Piece::Queen, 0 | 1) => 2 * i + n - 1,
            (Piece::Rook, 0 | 1) => i + n - 1,
            (Piece::Queen, _) => {
                // diagonal k = y − x + N − 1 (0..2N − 1), |y − x| = a: cells (i, i + a),
                // i < N − a, each with at most 3i + a options.
                let a = (line - 2 * n).abs_diff(n - 1);
                3 * (n - 1 - a) + a
            }
            _ => unreachable!("no line {line} for {piece:?}"),
        };
        largest + 2
    }

    /// The layout with every line padded to whole units of `unit_bits`.
    pub fn new(piece: Piece, n: u64, unit_bits: u64) -> Lines {
        let mut offsets = Vec::with_capacity(Lines::count(piece, n) as usize + 1);
        let mut at = 0;
        offsets.push(0);
        for line in 0..Lines::count(piece, n) {
            at += Lines::bits(piece, n, line).div_ceil(unit_bits);
            offsets.push(at);
        }
        Lines { offsets }
    }

    /// Total size in units.
    pub fn total(&self) -> u64 {
        *self.offsets.last().unwrap()
    }

    /// Bytes all sets of an n×n board take in units of `unit_bits`, without keeping the layout.
    pub fn bytes(piece: Piece, n: u64, unit_bits: u64) -> u64 {
        (0..Lines::count(piece, n))
            .map(|line| Lines::bits(piece, n, line).div_ceil(unit_bits))
            .sum::<u64>()
            * unit_bits
            / 8
    }
}

/// Bytes the CPU engine holds for an n×n board: the table at its working width, the line sets
/// and their floors.
pub fn memory_needed(piece: Piece, n: u64) -> u64 {
    payload_len(n * n, piece.value_bits(n))
        + Lines::bytes(piece, n, VECTOR * 8)
        + Lines::count(piece, n) * 4
}

/// Refuses, before any work, a board whose table and sets do not fit in the memory available.
pub fn check_memory(piece: Piece, n: u32) -> Result<(), EngineError> {
    // The tightest of MemAvailable, ulimit -v and the cgroup's memory.max.
    let Some(available) = crate::memory::room() else { return Ok(()) };
    let need = memory_needed(piece, n as u64);
    if need <= available {
        return Ok(());
    }
    // The need grows with n: the widest board that fits by bisection.
    let (mut lo, mut hi) = (0u64, n as u64);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if memory_needed(piece, mid) <= available { lo = mid } else { hi = mid }
    }
    let widest = lo;
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    Err(EngineError::memory(format!(
        "{}:{n} needs {:.1} GiB of memory ({:.1} GiB of table and {:.1} GiB of line sets), more \
            than the {:.1} GiB that fit here (ulimit -v / cgroup memory.max / MemAvailable); the \
            widest {} board that fits is {widest}",
        piece.name(),
        gib(need),
        gib(payload_len(n as u64 * n as u64, piece.value_bits(n as u64))),
        gib(need - payload_len(n as u64 * n as u64, piece.value_bits(n as u64))),
        gib(available),
        piece.name()
    )))
}

/// The value of every cell of an n×n board, packed at [`Piece::value_bits`] (the caller
/// shrinks), computed on `threads` threads; fails, before any work, where the table and its
/// sets cannot be allocated.
pub fn corner(
    piece: Piece,
    n: u32,
    threads: usize,
    progress: &Progress,
) -> Result<Packed, EngineError> {
    let n64 = n as u64;
    let bits = piece.value_bits(n64);
    let len = n64 * n64;
    let mut out = crate::memory::filled(payload_len(len, bits) as usize + PAD, 0u8, "its values")?;
    let lines = Lines::new(piece, n64, VECTOR * 8);
    let mut sets = crate::memory::filled((lines.total() * VECTOR) as usize, 0u8, "its line sets")?;
    let mut floors =
        crate::memory::filled(Lines::count(piece, n64) as usize, 0u32, "its line floors")?;
    let board = Board {
        piece,
        n,
        bits,
        out: out.as_mut_ptr(),
        sets: sets.as_mut_ptr(),
        offsets: &lines.offsets,
        floors: floors.as_mut_ptr(),
    };
    let tiles = n.div_ceil(TILE);
    let diagonals = 2 * tiles - 1;
    let claimed: Vec<AtomicUsize> = (0..diagonals).map(|_| AtomicUsize::new(0)).collect();
    let threads = if len < MIN_CELLS_FOR_THREADS { 1 } else { threads.clamp(1, tiles as usize) };
    let barrier = Barrier::new(threads);
    let kernel = BoardKernel::detect();
    let work = |report: bool| {
        let mut row = Vec::with_capacity(TILE as usize + 1);
        let mut prev = Vec::with_capacity(TILE as usize + 1);
        for t in 0..diagonals {
            let first = t.saturating_sub(tiles - 1);
            let count = (t.min(tiles - 1) - first + 1) as usize;
            loop {
                let i = claimed[t as usize].fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let tx = first + i as u32;
                // SAFETY: tiles of one tile anti-diagonal touch disjoint sets, floors and output
                // bytes but the shared end bytes of a row run (written atomically); each tile is
                // claimed once; the barrier orders every earlier tile anti-diagonal before this.
                unsafe { (kernel.0)(&board, tx, t - tx, &mut row, &mut prev) };
            }
            barrier.wait();
            if report {
                progress.tick(t as u64 + 1, diagonals as u64);
            }
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(|| work(false));
        }
        work(true);
    });
    drop((sets, floors));
    Ok(Packed::from_payload(bits, len, out).expect("the engine writes exactly the payload"))
}

/// The board being computed, shared by the workers. See the safety comment in [`corner`]: a
/// worker touches only the sets, floors and output of the tile it claimed.
struct Board<'a> {
    piece: Piece,
    n: u32,
    bits: u32,
    out: *mut u8,
    sets: *mut u8,
    /// Offsets of the line sets in vectors.
    offsets: &'a [u64],
    floors: *mut u32,
}

// SAFETY: workers share the board only as described on `corner`.
unsafe impl Sync for Board<'_> {}

/// A king's option that does not exist: 1 << ABSENT is outside the bits a mex looks at.
const ABSENT: u8 = 4;

impl Board<'_> {
    /// The set of line `line` and its floor.
    #[inline(always)]
    unsafe fn line(&self, line: usize) -> (*mut u8, *mut u32) {
        // SAFETY: line < the line count; offsets are within `sets`.
        unsafe { (self.sets.add((self.offsets[line] * VECTOR) as usize), self.floors.add(line)) }
    }

    /// One tile of a queen (DIAG) or rook board: every cell's value from its line sets.
    #[inline(always)]
    unsafe fn lines_tile<const DIAG: bool>(&self, tx: u32, ty: u32, row: &mut Vec<u32>) {
        let n = self.n;
        let (x0, y0) = (tx * TILE, ty * TILE);
        let (x1, y1) = ((x0 + TILE).min(n), (y0 + TILE).min(n));
        for x in x0..x1 {
            row.clear();
            // SAFETY (all lines): the tile owns rows x0..x1, columns y0..y1 and their diagonals.
            let r = unsafe { self.line(x as usize) };
            for y in y0..y1 {
                let c = unsafe { self.line((n + y) as usize) };
                let d =
                    if DIAG { unsafe { self.line((2 * n + y + n - 1 - x) as usize) } } else { c };
                row.push(unsafe { place::<DIAG>(r, c, d) });
            }
            unsafe { self.write(x as u64 * n as u64 + y0 as u64, row) };
        }
    }

    /// One tile of a king board, from its row above and the column to its left.
    #[inline(always)]
    unsafe fn king_tile(&self, tx: u32, ty: u32, row: &mut Vec<u32>, prev: &mut Vec<u32>) {
        let n = self.n as u64;
        let (x0, y0) = (tx * TILE, ty * TILE);
        let (x1, y1) = ((x0 + TILE).min(self.n), (y0 + TILE).min(self.n));
        // prev[j] is cell (x − 1, y0 − 1 + j); row[j] likewise for x.
        let at = |x: u32, y: u32| unsafe { self.get(x as u64 * n + y as u64) };
        prev.clear();
        prev.extend(
            (y0..=y1).map(|j| if x0 > 0 && j > 0 { at(x0 - 1, j - 1) } else { ABSENT as u32 }),
        );
        for x in x0..x1 {
            row.clear();
            row.push(if y0 > 0 { at(x, y0 - 1) } else { ABSENT as u32 });
            for j in 1..=(y1 - y0) as usize {
                let seen = 1u32 << row[j - 1] | 1 << prev[j] | 1 << prev[j - 1];
                row.push((!seen).trailing_zeros());
            }
            unsafe { self.write(x as u64 * n + y0 as u64, &row[1..]) };
            std::mem::swap(row, prev);
        }
    }

    /// Writes `values` as entries `start..`, `bits` bits each. The run's first and last bytes may
    /// hold entries of other tiles, so they are ORed in atomically; the others are the run's own.
    unsafe fn write(&self, start: u64, values: &[u32]) {
        let bit = start * self.bits as u64;
        let first = (bit / 8) as usize;
        let mut writer = BitWriter::new((bit % 8) as u32);
        let mut bytes = [0u8; TILE as usize * 4 + 2];
        let mut k = 0;
        let mut emit = |b| {
            bytes[k] = b;
            k += 1;
        };
        for &v in values {
            writer.put(v as u64, self.bits, &mut emit);
        }
        writer.finish(&mut emit);
        // SAFETY: the bytes lie within the payload; interior bytes belong to this run only.
        unsafe {
            let or = |i: usize| {
                AtomicU8::from_ptr(self.out.add(first + i)).fetch_or(bytes[i], Ordering::Relaxed)
            };
            or(0);
            if k > 1 {
                std::ptr::copy_nonoverlapping(
                    bytes[1..k - 1].as_ptr(),
                    self.out.add(first + 1),
                    k - 2,
                );
                or(k - 1);
            }
        }
    }

    /// Entry `i`, from a finished tile. Read byte by byte atomically: a byte can be shared with
    /// an entry another worker is writing.
    unsafe fn get(&self, i: u64) -> u32 {
        let bit = i * self.bits as u64;
        let first = (bit / 8) as usize;
        let mut word = 0u64;
        for k in 0..(bit % 8 + self.bits as u64).div_ceil(8) as usize {
            // SAFETY: within the payload.
            let byte =
                unsafe { AtomicU8::from_ptr(self.out.add(first + k)).load(Ordering::Relaxed) };
            word |= (byte as u64) << (8 * k);
        }
        (word >> (bit % 8) & ((1 << self.bits) - 1)) as u32
    }
}

/// The value of a cell whose lines are `r`, `c` and (DIAG) `d`: the first value missing from
/// all of them, which then joins them.
#[inline(always)]
unsafe fn place<const DIAG: bool>(
    r: (*mut u8, *mut u32),
    c: (*mut u8, *mut u32),
    d: (*mut u8, *mut u32),
) -> u32 {
    // SAFETY (whole function): the three sets are long enough to hold every value their lines
    // can take, in whole vectors, and the first zero lies below that (see the module comment).
    unsafe {
        let mut from = (*r.1).max(*c.1);
        if DIAG {
            from = from.max(*d.1);
        }
        // Every bit below `from` is taken in the line whose floor it is: start at its vector.
        let mut at = (from as usize / 8) & !(VECTOR as usize - 1);
        let load =
            |p: *mut u8, at: usize| u8x32::new(p.add(at).cast::<[u8; 32]>().read_unaligned());
        let v = loop {
            let mut or = load(r.0, at) | load(c.0, at);
            if DIAG {
                or |= load(d.0, at);
            }
            let full = or.simd_eq(u8x32::splat(0xFF)).to_bitmask();
            if full != u32::MAX {
                let byte = at + (!full).trailing_zeros() as usize;
                let mut bits = *r.0.add(byte) | *c.0.add(byte);
                if DIAG {
                    bits |= *d.0.add(byte);
                }
                break (byte * 8) as u32 + bits.trailing_ones();
            }
            at += VECTOR as usize;
        };
        take(r, v);
        take(c, v);
        if DIAG {
            take(d, v);
        }
        v
    }
}

/// Adds `v` to a line's set, and moves its floor up past the taken values if it was `v`.
#[inline(always)]
unsafe fn take((set, floor): (*mut u8, *mut u32), v: u32) {
    // SAFETY: a line's set always has a free bit above every value it holds (it has more bits
    // than cells), so the walk stops inside it.
    unsafe {
        *set.add(v as usize / 8) |= 1 << (v % 8);
        if *floor == v {
            let mut f = v + 1;
            loop {
                let zeros = (!*set.add(f as usize / 8) as u32) >> (f % 8);
                if zeros != 0 {
                    f += zeros.trailing_zeros();
                    break;
                }
                f = (f | 7) + 1;
            }
            *floor = f;
        }
    }
}

/// The tile kernel, compiled for the best instruction set this CPU has.
#[derive(Clone, Copy)]
struct BoardKernel(unsafe fn(&Board, u32, u32, &mut Vec<u32>, &mut Vec<u32>));

impl BoardKernel {
    fn detect() -> BoardKernel {
        #[cfg(target_arch = "x86_64")]
        if crate::isa::features().avx2 {
            return BoardKernel(tile_avx2);
        }
        BoardKernel(tile_plain)
    }
}

/// One tile of any piece's board.
///
/// # Safety
/// The tile is claimed by this worker alone and every tile of lower tile anti-diagonals is done.
#[inline(always)]
unsafe fn tile(board: &Board, tx: u32, ty: u32, row: &mut Vec<u32>, prev: &mut Vec<u32>) {
    // SAFETY: forwarded.
    unsafe {
        match board.piece {
            Piece::Queen => board.lines_tile::<true>(tx, ty, row),
            Piece::Rook => board.lines_tile::<false>(tx, ty, row),
            Piece::King => board.king_tile(tx, ty, row, prev),
        }
    }
}

/// [`tile`] with AVX2 (`wide` uses 256-bit registers only when compiled for them).
///
/// # Safety
/// As [`tile`]; the CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn tile_avx2(board: &Board, tx: u32, ty: u32, row: &mut Vec<u32>, prev: &mut Vec<u32>) {
    // SAFETY: forwarded.
    unsafe { tile(board, tx, ty, row, prev) }
}

/// [`tile`] for the target's baseline instruction set.
///
/// # Safety
/// As [`tile`].
unsafe fn tile_plain(board: &Board, tx: u32, ty: u32, row: &mut Vec<u32>, prev: &mut Vec<u32>) {
    // SAFETY: forwarded.
    unsafe { tile(board, tx, ty, row, prev) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_bytes_bound_the_layout() {
        for piece in [Piece::Queen, Piece::Rook] {
            for n in [1u64, 2, 3, 64, 65, 1000] {
                let lines = Lines::new(piece, n, 256);
                assert_eq!(lines.total() * 32, Lines::bytes(piece, n, 256), "{piece:?} {n}");
                // Every line holds the largest value of each of its cells.
                for x in 0..n {
                    for y in 0..n {
                        let need = piece.options_count(x, y) + 2;
                        assert!(
                            Lines::bits(piece, n, x) >= need
                                && Lines::bits(piece, n, n + y) >= need
                        );
                        if piece == Piece::Queen {
                            assert!(
                                Lines::bits(piece, n, 2 * n + y + n - 1 - x) >= need,
                                "{n} {x} {y}"
                            );
                        }
                    }
                }
            }
        }
    }
}
