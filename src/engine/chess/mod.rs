//! The fast CPU engine for chess rows (`--backend simd`): eight rows a step through `wide`, blocks
//! of rows spread over every core.
//!
//! # Formulation
//!
//! A row is `H << 3 | L`: the high part `H` picks a *vector*, the low three bits `L` a lane. The
//! table is stored as it is shipped, 5 bits a value, least significant bit first, so vector `H`
//! is exactly the 5 bytes at offset `5·H` (lane `L` in bits `5L..5L+5`). The working buffer is
//! the output: peak memory is the table plus a few small lists.
//!
//! The options of the eight rows of vector `H`, by where the moving chip is (`H` has `W − 3`
//! bits; tables narrower than 3 cells are a prefix of the 3-cell one):
//!
//! - a chip on bit `k` of `H` with an empty bit of `H` below it lands inside `H`: the options
//!   are vector `H'` (the chip moved down to the highest empty bit), lane for lane. Its 5 bytes
//!   are read as two overlapping 4-byte words, unpacked to a `u32x8` by per-lane shifts, and
//!   `seen |= 1 << value`.
//! - a chip on bit `k` of `H` whose lower bits in `H` are all chips (`k` below the trailing ones
//!   of `H`) lands in the low three bits, on the highest empty bit of `L`: the option of lane
//!   `L` is lane `[4, 5, 6, 7, 6, 7, 7][L]` of vector `H − 2^k`, and lane 7 has no such move.
//!   The unpack shifts are permuted to match, so this too is a load and a few vector ops.
//! - a chip inside `L` moves inside the same vector: lane 2 depends on lane 1, 4 on 2, 5 on 3,
//!   and 6 on 3 and 5. After the vector part the eight `seen` sets go to scalar code that
//!   takes each lane's mex (the count of trailing ones) in the order 0, 1, 3, 7, 2, 5, 4, 6,
//!   adding the in-vector options as their values become known.
//!
//! # Schedule
//!
//! Every option of a row is a smaller row, so vectors in increasing order are correct on one
//! core. For several cores the vectors are cut into blocks `H = T << b | B` (2^9 vectors,
//! 2.5 KiB, contiguous, so no two threads write one cache line but at block edges). A move of
//! a chip of `B` or `L` stays in the block (a smaller `H`, earlier in the block); a move of a
//! chip of `T` reaches block `T'`, where `T'` is `T` with that chip moved down inside `T`, or
//! taken out of `T` when the bits of `T` below it are all chips: the vector rule one level up.
//! Give block `T` the weight `Σ (k + 1)` over its set bits `k`: every such `T'` weighs less.
//! This is the GPU engine's layer schedule (a move keeps the popcount and lowers the sum of
//! set-bit indices) applied to the block index instead of the row, with the chip that leaves
//! `T` counted as gone.
//!
//! The blocks are listed by weight; workers take them two at a time from a shared counter and
//! start a block as soon as the (at most `popcount(T)`) blocks it moves to are finished, one flag
//! a block: no barrier between weights, so a thin weight does not stall the other threads.
//! Two blocks of equal weight never move to each other, so a worker computes such a pair
//! interleaved vector by vector: a vector usually moves to the one just before it, so it waits
//! on that one's finish, and the other block's vector fills the wait.
//! Small tables run on fewer threads (one per 2^15 vectors at most).
//!
//! # Instruction set
//!
//! `wide` picks AVX2 at compile time only. The per-lane shifts the kernel lives on are AVX2
//! instructions (`vpsllvd`/`vpsrlvd`); an SSE2 build emulates them lane by lane. So the kernel is
//! one `#[inline(always)]` function compiled twice: inside a `#[target_feature(enable =
//! "avx2,bmi1,lzcnt")]` function, where LLVM turns `wide`'s lane-by-lane fallback back into
//! AVX2 vector shifts, and as plain x86-64; [`crate::isa`] picks one at run time.
//! Other architectures get the plain kernel. Measured at W = 20 on one thread (AMD EPYC, best
//! of many runs): plain SSE2 kernel 4.46 ms, dispatched AVX2 kernel 2.16 ms, and a whole build
//! with `-C target-cpu=x86-64-v3` (`wide`'s own 256-bit path) 2.08 ms. The dispatch keeps 96 %
//! of that without giving up CPUs older than AVX2 (Haswell, 2013).

pub mod textbook;

use crate::progress::Progress;
use crate::values::Packed;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use wide::u32x8;

/// Bits per stored value.
const VALUE_BITS: u32 = 5;
/// Low row bits that pick a lane.
const LANE_BITS: u32 = 3;
/// Bytes per vector of 8 values.
const VECTOR_BYTES: usize = 5;
/// Zero bytes kept past the payload (the layout `Packed` keeps).
const PAD: usize = 8;
/// log2 of the vectors in a block, the unit of work a thread takes (2.5 KiB, about 8 µs).
const BLOCK_BITS: u32 = 9;
/// log2 of the fewest vectors worth a thread of their own (about half a millisecond of work;
/// starting a thread for less costs more than it saves).
const MIN_VECTORS_PER_THREAD_BITS: u32 = 15;

/// Values of every row of `width` cells (1..=32), packed 5 bits a value (the caller shrinks),
/// computed on `threads` threads; fails, before any work, where the table cannot be allocated.
pub fn chess(
    width: u32,
    threads: usize,
    progress: &Progress,
) -> Result<Packed, super::EngineError> {
    assert!((1..=32).contains(&width));
    if width < LANE_BITS {
        // A row's value does not depend on the width, so a narrow table is a prefix of a wider one.
        let values: Vec<u32> = chess(LANE_BITS, 1, progress)?.iter().take(1 << width).collect();
        return Ok(Packed::with_bits(&values, VALUE_BITS));
    }
    let vectors = 1usize << (width - LANE_BITS);
    let mut bytes = crate::memory::filled(vectors * VECTOR_BYTES + PAD, 0u8, "its values")?;
    let table = Table(bytes.as_mut_ptr());
    let scheduler = Scheduler::new(width - LANE_BITS);
    let kernel = RowKernel::detect();
    let threads = threads.clamp(1, (vectors >> MIN_VECTORS_PER_THREAD_BITS).max(1));
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(|| scheduler.work(table, kernel, progress));
        }
        scheduler.work(table, kernel, progress);
    });
    Ok(Packed::from_payload(VALUE_BITS, 1 << width, bytes)
        .expect("the engine writes exactly the payload"))
}

/// The table being computed, shared by the workers.
///
/// Safety invariant: vector `H` is written by the one worker that owns its block, and is read
/// only after that (by the same worker later in the block, or by another worker once the
/// [`Scheduler`] has seen the block finished). Reads and writes touch exactly the vector's 5
/// bytes, so neighbouring vectors of other blocks are never touched.
#[derive(Clone, Copy)]
struct Table(*mut u8);

// SAFETY: see the invariant above; the pointer outlives the scoped workers.
unsafe impl Send for Table {}
unsafe impl Sync for Table {}

impl Table {
    /// Vector `h` as two overlapping words: bits 0..32 and bits 8..40 (lanes 0–3 and 4–7 both
    /// start inside a word). Only the vector's own 5 bytes are read.
    #[inline(always)]
    unsafe fn read(self, h: u32) -> (u32, u32) {
        // SAFETY: h is a vector of the table (the caller's invariant).
        unsafe {
            let at = self.0.add(h as usize * VECTOR_BYTES);
            (at.cast::<u32>().read_unaligned(), at.add(1).cast::<u32>().read_unaligned())
        }
    }

    /// Stores vector `h`'s 40 bits.
    #[inline(always)]
    unsafe fn write(self, h: u32, values: u64) {
        // SAFETY: h is a vector of the caller's block.
        unsafe {
            let at = self.0.add(h as usize * VECTOR_BYTES);
            at.cast::<u32>().write_unaligned(values as u32);
            at.add(4).write((values >> 32) as u8);
        }
    }
}

/// Unpack shifts for a vector read lane for lane: lanes 0–3 from the low word, lanes 4–7
/// (bits 20.. of the vector) from the high word, which starts at bit 8.
const SAME_SHIFTS: [u32; 8] = [0, 5, 10, 15, 12, 17, 22, 27];
/// Unpack shifts for a chip landing in the low bits: lane L reads lane [4,5,6,7,6,7,7][L], all
/// from the high word.
const LANDING_SHIFTS: [u32; 8] = [12, 17, 22, 27, 22, 27, 27, 0];
/// Lane 7 (all three low cells full) has no landing move.
const LANDING_LANES: [u32; 8] = [!0, !0, !0, !0, !0, !0, !0, 0];

/// Computes vectors `first..first + count` in increasing order, and, if `second` is given,
/// `second..second + count` interleaved with them (vector by vector, so that the out-of-order
/// core overlaps one vector's dependency chain with the other block's work). Every option
/// outside a range must already be in the table, and the two ranges must not depend on each
/// other.
#[inline(always)]
unsafe fn blocks(table: Table, first: u32, second: Option<u32>, count: u32) {
    let consts = Consts::new();
    // Plain loops: a closure here would be compiled without the caller's target features.
    for i in 0..count {
        // SAFETY: the caller's.
        unsafe {
            vector(table, first + i, &consts);
            if let Some(second) = second {
                vector(table, second + i, &consts);
            }
        }
    }
}

/// The kernel's constant vectors.
struct Consts {
    same_shifts: u32x8,
    landing_shifts: u32x8,
    landing_lanes: u32x8,
    one: u32x8,
    five_bits: u32x8,
}

impl Consts {
    #[inline(always)]
    fn new() -> Consts {
        Consts {
            same_shifts: u32x8::from(SAME_SHIFTS),
            landing_shifts: u32x8::from(LANDING_SHIFTS),
            landing_lanes: u32x8::from(LANDING_LANES),
            one: u32x8::splat(1),
            five_bits: u32x8::splat(31),
        }
    }
}

/// Computes vector `h`; every smaller vector it moves to must be in the table.
#[inline(always)]
unsafe fn vector(table: Table, h: u32, c: &Consts) {
    let mut seen = u32x8::ZERO;
    let run = h.trailing_ones();
    for k in 0..run {
        // SAFETY: h − 2^k < h is in the table and already computed.
        let (_, hi) = unsafe { table.read(h - (1 << k)) };
        let v = (u32x8::splat(hi) >> c.landing_shifts) & c.five_bits;
        seen |= (c.one << v) & c.landing_lanes;
    }
    let mut chips = h >> run << run;
    while chips != 0 {
        let k = chips.trailing_zeros();
        chips &= chips - 1;
        let empty_below = !h & ((1 << k) - 1);
        let j = 31 - empty_below.leading_zeros();
        // SAFETY: the option is a smaller vector, already computed.
        let (lo, hi) = unsafe { table.read(h ^ (1 << k) ^ (1 << j)) };
        let v = (u32x8::from([lo, lo, lo, lo, hi, hi, hi, hi]) >> c.same_shifts) & c.five_bits;
        seen |= c.one << v;
    }
    // SAFETY: h is the caller's to write.
    unsafe { table.write(h, finish(seen.to_array())) };
}

/// The eight values of a vector from the `seen` sets of its options outside the vector, adding
/// the options inside it (2←1, 4←2, 5←3, 6←3,5) in dependency order; packed 5 bits a lane.
#[inline(always)]
fn finish(seen: [u32; 8]) -> u64 {
    let mex = |s: u32| (!s).trailing_zeros();
    let v0 = mex(seen[0]);
    let v1 = mex(seen[1]);
    let v3 = mex(seen[3]);
    let v7 = mex(seen[7]);
    let v2 = mex(seen[2] | 1 << v1);
    let v5 = mex(seen[5] | 1 << v3);
    let v4 = mex(seen[4] | 1 << v2);
    let v6 = mex(seen[6] | 1 << v3 | 1 << v5);
    [v0, v1, v2, v3, v4, v5, v6, v7].iter().rev().fold(0, |acc, &v| acc << VALUE_BITS | v as u64)
}

/// The block kernel, compiled for the best instruction set this CPU has.
#[derive(Clone, Copy)]
struct RowKernel(unsafe fn(Table, u32, Option<u32>, u32));

impl RowKernel {
    fn detect() -> RowKernel {
        #[cfg(target_arch = "x86_64")]
        if crate::isa::features().avx2_with_bit_scans() {
            return RowKernel(blocks_avx2);
        }
        RowKernel(blocks_plain)
    }
}

/// [`blocks`] with AVX2 (and BMI1/LZCNT for the bit scans).
///
/// # Safety
/// As [`blocks`]; the CPU must have AVX2, BMI1 and LZCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,lzcnt")]
unsafe fn blocks_avx2(table: Table, first: u32, second: Option<u32>, count: u32) {
    // SAFETY: forwarded.
    unsafe { blocks(table, first, second, count) }
}

/// [`blocks`] for the target's baseline instruction set.
///
/// # Safety
/// As [`blocks`].
unsafe fn blocks_plain(table: Table, first: u32, second: Option<u32>, count: u32) {
    // SAFETY: forwarded.
    unsafe { blocks(table, first, second, count) }
}

/// Hands blocks to workers in weight order; a block starts once the blocks it moves to are
/// finished.
struct Scheduler {
    /// log2 of the vectors per block.
    block_bits: u32,
    /// Block indices `T`, by weight.
    order: Vec<u32>,
    /// Next position in `order` to hand out.
    next: AtomicUsize,
    /// Per block index `T`: finished.
    finished: Vec<AtomicBool>,
    /// How many blocks are finished, for progress.
    count: AtomicUsize,
}

/// A block's weight: `Σ (k + 1)` over its set bits `k`.
fn weight(t: u32) -> usize {
    (0..32).filter(|k| t >> k & 1 == 1).map(|k| k as usize + 1).sum()
}

/// The other blocks a block's moves reach: per chip of `t`, `t` with that chip moved down to the
/// highest empty bit of `t` below it, or taken out of `t` if there is none. The same rule as a
/// vector's options, one level up.
fn sources(t: u32) -> impl Iterator<Item = u32> {
    (0..32).filter(move |k| t >> k & 1 == 1).map(move |k| {
        let empty_below = !t & ((1 << k) - 1);
        match empty_below {
            0 => t - (1 << k),
            _ => t ^ 1 << k ^ 1 << (31 - empty_below.leading_zeros()),
        }
    })
}

impl Scheduler {
    /// A schedule for `2^vector_bits` vectors.
    fn new(vector_bits: u32) -> Scheduler {
        let block_bits = vector_bits.min(BLOCK_BITS);
        let blocks = 1u32 << (vector_bits - block_bits);
        let mut order: Vec<u32> = (0..blocks).collect();
        order.sort_by_key(|&t| weight(t));
        let finished = (0..blocks).map(|_| AtomicBool::new(false)).collect();
        Scheduler {
            block_bits,
            order,
            next: AtomicUsize::new(0),
            finished,
            count: AtomicUsize::new(0),
        }
    }

    fn blocks(&self) -> usize {
        self.order.len()
    }

    /// Takes blocks until none is left: two at a time, computed interleaved when they have the
    /// same weight (then neither moves to the other).
    fn work(&self, table: Table, kernel: RowKernel, progress: &Progress) {
        let n = self.blocks();
        loop {
            let at = self.next.fetch_add(2, Ordering::Relaxed);
            if at >= n {
                return;
            }
            let first = self.order[at];
            match self.order.get(at + 1).copied() {
                Some(second) if weight(second) == weight(first) => {
                    self.run(table, kernel, first, Some(second), progress)
                }
                second => {
                    self.run(table, kernel, first, None, progress);
                    if let Some(second) = second {
                        self.run(table, kernel, second, None, progress);
                    }
                }
            }
        }
    }

    /// Computes block `t` (and block `also`, of the same weight) once their sources are finished.
    fn run(&self, table: Table, kernel: RowKernel, t: u32, also: Option<u32>, progress: &Progress) {
        for source in sources(t).chain(also.into_iter().flat_map(sources)) {
            self.wait_for(source);
        }
        let start = |t: u32| t << self.block_bits;
        // SAFETY: this worker alone owns these blocks, every option outside a block lies in one
        // of its sources, finished (and their writes acquired) by `wait_for`, and two blocks of
        // the same weight do not move to each other.
        unsafe { (kernel.0)(table, start(t), also.map(start), 1 << self.block_bits) };
        for t in std::iter::once(t).chain(also) {
            // Release: whoever sees the flag sees the block's values.
            self.finished[t as usize].store(true, Ordering::Release);
        }
        let ran = 1 + also.is_some() as usize;
        let count = self.count.fetch_add(ran, Ordering::Relaxed) + ran;
        progress.tick(count as u64, self.blocks() as u64);
    }

    /// Waits until block `t` is finished. Every source of a block comes earlier in `order`, and
    /// blocks are handed out in order, so the wait always ends.
    fn wait_for(&self, t: u32) {
        let mut spins = 0u32;
        while !self.finished[t as usize].load(Ordering::Acquire) {
            if spins < 100 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}
