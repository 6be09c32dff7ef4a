//! The bulk number kernels: one walk over 64-byte blocks (classify every byte, find the token
//! starts and ends as bit masks, convert each number with no loop over its digits), in two
//! variants with one contract: `portable` (SSE2 through `wide`, any x86-64; scalar code
//! elsewhere) and, where the CPU has it, `avx2` (hand-written `std::arch`). `blocks` is the
//! one entry point: it runs the kernel [`NumberKernel::chosen`] picked once for the process.
//! `sgq` is built for plain x86-64, so `wide` alone would never use AVX2.

use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
mod avx2;
mod portable;

use portable::portable;
#[cfg(test)]
use portable::swar;
pub(super) use portable::{count_newlines, digits_before, token_len};

/// A bulk read: up to `left` numbers in `min..=max` from `window[pos..]`, `pos` at whitespace
/// or at a token's start.
#[derive(Clone, Copy)]
pub(crate) struct Run<'w> {
    pub window: &'w [u8],
    pub pos: usize,
    pub left: u64,
    pub min: u64,
    pub max: u64,
}

/// The bulk path of [`Scanner::fold_some`](super::Scanner::fold_some) over `run`: 64-byte blocks
/// whose bytes SIMD compares classify as whitespace, digit or other, so that all token boundaries
/// of a block are known at once as bit masks and each number is converted independently of the one
/// before (no serial byte loop, no branch per byte). Returns the fold, the count left and where it
/// stopped: at a block holding another byte, an over-long token or an out-of-range number (which
/// the caller's byte-at-a-time path then reads), or where fewer than 64 bytes are left.
///
/// Runs of 64 numbers or more go to the AVX2 kernel where [`NumberKernel::chosen`] says so.
#[inline(always)]
pub(crate) fn blocks<A>(run: Run, acc: A, f: &mut impl FnMut(A, u64) -> A) -> (A, u64, usize) {
    blocks_on(NumberKernel::chosen(), run, acc, f)
}

/// [`blocks`] on `kernel`, which must be [`available`](NumberKernel::available).
#[inline(always)]
fn blocks_on<A>(
    kernel: NumberKernel,
    run: Run,
    acc: A,
    f: &mut impl FnMut(A, u64) -> A,
) -> (A, u64, usize) {
    #[cfg(target_arch = "x86_64")]
    if run.left >= 64 && kernel == NumberKernel::Avx2 {
        assert!(avx2::available(), "the AVX2 kernel on a CPU without AVX2");
        // SAFETY: the CPU has AVX2, BMI1 and POPCNT (just checked; the check is cached).
        return unsafe { avx2::blocks(run, acc, f) };
    }
    portable(run, acc, f)
}

/// Which bulk kernel reads numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberKernel {
    /// SSE2 (any x86-64) or scalar code through `wide`: every machine.
    Portable,
    /// AVX2, chosen at run time on a CPU that has it.
    Avx2,
}

impl NumberKernel {
    /// The fastest kernel this CPU runs, unless the environment variable `SGQ_KERNEL` is
    /// `portable` (for timing the two side by side). Decided once.
    pub fn chosen() -> NumberKernel {
        static CHOSEN: OnceLock<NumberKernel> = OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let forced = std::env::var_os("SGQ_KERNEL").is_some_and(|k| k == "portable");
            if !forced && NumberKernel::Avx2.available() {
                NumberKernel::Avx2
            } else {
                NumberKernel::Portable
            }
        })
    }

    /// Whether this CPU runs the kernel.
    pub fn available(self) -> bool {
        match self {
            NumberKernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            NumberKernel::Avx2 => avx2::available(),
            #[cfg(not(target_arch = "x86_64"))]
            NumberKernel::Avx2 => false,
        }
    }
}

/// Bytes ahead of the block being read that the kernels ask the cache for. A mapped file's
/// pages are 4 KiB, and the hardware's stream prefetcher stops at each page's end; asking a
/// kilobyte ahead keeps the next page coming.
const PREFETCH: usize = 1024;

/// Asks for `window[pos + PREFETCH]` to be brought into the cache (a hint, if it exists).
#[inline(always)]
fn prefetch(window: &[u8], pos: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(ahead) = window.get(pos + PREFETCH) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is only a hint: it reads nothing into the program, and it cannot
        // fault even where the address were not mapped (this one is: it is in `window`).
        unsafe { _mm_prefetch::<_MM_HINT_T0>((ahead as *const u8).cast()) };
    }
}

#[cfg(test)]
mod tests;
