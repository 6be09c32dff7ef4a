//! The bulk number kernel on AVX2: the same contract as [`super::portable`], chosen at run time
//! on a CPU that has AVX2 (`sgq` is built for plain x86-64, and `wide` picks its instructions
//! when the crate is compiled, so only `std::arch` by hand reaches AVX2 here). The same walk as
//! the portable kernel, with two differences: a 64-byte block is classified by two 32-byte
//! nibble lookups, not four 16-byte compares, and tokens are converted two at a time, one in
//! each 128-bit half of a register (the 16 bytes that end at the token's end, the bytes before
//! its start cleared).
//!
//! Tests hold it to the portable kernel and to a plain reading on random and exhaustive inputs
//! (`super::tests`).

use super::Run;
use super::portable::{KEEP, after_block, block_marks, digits_before};
use std::arch::x86_64::*;

/// Whether this CPU runs the kernel.
pub fn available() -> bool {
    crate::isa::features().avx2_with_bit_scans()
}

/// [`super::blocks`] on AVX2: folds the numbers of `run` and returns the fold, the count left and
/// where it stopped (at whitespace or a token's start): at a block holding a byte that is neither
/// digit nor whitespace, a token of more than 16 bytes or out of range, or where fewer than 64
/// bytes are left.
///
/// # Safety
/// The CPU must have AVX2, BMI1 and POPCNT ([`available`]).
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub unsafe fn blocks<A>(run: Run, acc: A, f: &mut impl FnMut(A, u64) -> A) -> (A, u64, usize) {
    let (Run { window, mut pos, mut left, min, max }, mut acc) = (run, acc);
    if min > max {
        return (acc, left, pos); // nothing is in range: the byte-at-a-time path says so
    }
    let span = max - min;
    let in_range = |len: usize, v: u64| len <= 16 && v.wrapping_sub(min) <= span;
    // Blocks of 64 bytes, with the 16 bytes before each in view too, so that the 16 bytes that
    // end at a token's end can be loaded.
    while left > 0 && pos >= 16 && pos + 64 <= window.len() {
        let block: &[u8; 80] = window[pos - 16..pos + 64].try_into().unwrap();
        super::prefetch(window, pos);
        let Some(space) = classify(block[16..].try_into().unwrap()) else { break };
        let (mut starts, mut ends, short) = block_marks(space, left);
        let mut end = 0;
        // Two tokens at a time; `end` indexes `block` at the token's end (16 bytes on).
        while ends != 0 {
            let s0 = starts.trailing_zeros() as usize;
            let e0 = ends.trailing_zeros() as usize;
            starts &= starts - 1;
            ends &= ends - 1;
            if ends == 0 {
                let v0 = digits_before(block[e0..e0 + 16].try_into().unwrap(), e0 - s0);
                if !in_range(e0 - s0, v0) {
                    return (acc, left, pos + s0);
                }
                acc = f(acc, v0);
                left -= 1;
                end = e0;
                break;
            }
            let s1 = starts.trailing_zeros() as usize;
            let e1 = ends.trailing_zeros() as usize;
            starts &= starts - 1;
            ends &= ends - 1;
            let (l0, l1) = (e0 - s0, e1 - s1);
            if l0 > 16 || l1 > 16 {
                // A token too long to convert: the one before it (if any) is folded, and the
                // walk stops at it. (Checked before converting, so that `two` needs no clamp.)
                if l0 > 16 {
                    return (acc, left, pos + s0);
                }
                let v0 = digits_before(block[e0..e0 + 16].try_into().unwrap(), l0);
                if !in_range(l0, v0) {
                    return (acc, left, pos + s0);
                }
                return (f(acc, v0), left - 1, pos + s1);
            }
            let (v0, v1) = two(
                block[e0..e0 + 16].try_into().unwrap(),
                l0,
                block[e1..e1 + 16].try_into().unwrap(),
                l1,
            );
            if v0.wrapping_sub(min) > span {
                return (acc, left, pos + s0);
            }
            acc = f(acc, v0);
            if v1.wrapping_sub(min) > span {
                return (acc, left - 1, pos + s1);
            }
            acc = f(acc, v1);
            left -= 2;
            end = e1;
        }
        let next = after_block(short, end, starts);
        if next == 0 {
            break; // one token fills the whole block: too long, let the caller say so
        }
        pos += next;
    }
    (acc, left, pos)
}

/// For 64 bytes of digits and whitespace, the mask of the whitespace bytes; `None` if some byte
/// is neither. A byte's class is looked up by its low and its high four bits (two `vpshufb`)
/// and the two looked-up masks are and-ed: the top bit means a digit, a lower one whitespace,
/// and 0 neither.
#[target_feature(enable = "avx2")]
#[inline]
fn classify(block: &[u8; 64]) -> Option<u64> {
    // Classes: DIGIT (the top bit, which movemask reads), SPACE (0x20), CONTROL (\t \n \v \f \r).
    const DIGIT: i8 = -128;
    const SPACE: i8 = 1;
    const CONTROL: i8 = 2;
    #[rustfmt::skip]
    let by_low = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        DIGIT | SPACE, DIGIT, DIGIT, DIGIT, DIGIT, DIGIT, DIGIT, DIGIT,
        DIGIT, DIGIT | CONTROL, CONTROL, CONTROL, CONTROL, CONTROL, 0, 0,
    ));
    #[rustfmt::skip]
    let by_high = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        CONTROL, 0, SPACE, DIGIT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ));
    let nibble = _mm256_set1_epi8(0x0f);
    let mut digit = 0u64;
    let mut valid = true;
    for (i, half) in block.chunks_exact(32).enumerate() {
        // SAFETY: `half` is 32 bytes long; an unaligned load reads exactly those.
        let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast()) };
        let low = _mm256_shuffle_epi8(by_low, _mm256_and_si256(v, nibble));
        let high = _mm256_shuffle_epi8(by_high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
        let class = _mm256_and_si256(low, high);
        valid &= _mm256_movemask_epi8(_mm256_cmpeq_epi8(class, _mm256_setzero_si256())) == 0;
        digit |= (_mm256_movemask_epi8(class) as u32 as u64) << (32 * i);
    }
    valid.then_some(!digit)
}

/// The numbers of the last `l0` digits of `a` and the last `l1` of `b`, one in each half of a
/// register: the bytes before the digits are cleared, then pairs, quads and eights of digits
/// are formed by multiply-adds, and each value is its high eight digits times 10^8 plus its low
/// eight. Lengths are at most 16.
#[target_feature(enable = "avx2")]
#[inline]
fn two(a: &[u8; 16], l0: usize, b: &[u8; 16], l1: usize) -> (u64, u64) {
    let (ka, kb) = (&KEEP[l0], &KEEP[l1]);
    // SAFETY: each pointer is to 16 bytes, and each unaligned load reads exactly those.
    let (x, keep) = unsafe {
        (
            _mm256_loadu2_m128i(b.as_ptr().cast(), a.as_ptr().cast()),
            _mm256_loadu2_m128i(kb.as_ptr().cast(), ka.as_ptr().cast()),
        )
    };
    let digits = _mm256_and_si256(_mm256_subs_epu8(x, _mm256_set1_epi8(b'0' as i8)), keep);
    // Byte pairs (d0 the higher digit) as 10·d0 + d1, then [100, 1] and [10^4, 1].
    let pairs = _mm256_maddubs_epi16(digits, _mm256_set1_epi16(0x010A));
    let quads = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x0001_0064));
    let quads = _mm256_packus_epi32(quads, quads); // each below 10^4, as 16-bit lanes
    let eights = _mm256_madd_epi16(quads, _mm256_set1_epi32(0x0001_2710));
    // Per half: the high eight digits in the low 32 bits, the low eight just above.
    let value = _mm256_add_epi64(
        _mm256_mul_epu32(eights, _mm256_set1_epi64x(100_000_000)),
        _mm256_srli_epi64(eights, 32),
    );
    (_mm256_extract_epi64(value, 0) as u64, _mm256_extract_epi64(value, 2) as u64)
}

/// [`two`] for the tests.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(test)]
#[target_feature(enable = "avx2")]
pub unsafe fn two_for_tests(a: &[u8; 16], l0: usize, b: &[u8; 16], l1: usize) -> (u64, u64) {
    two(a, l0, b, l1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_knows_every_byte() {
        if !available() {
            eprintln!("SKIPPED: this CPU has no AVX2");
            return;
        }
        for b in 0..=255u8 {
            for at in [0, 5, 31, 32, 47, 63] {
                let mut block = [b'7'; 64];
                block[at] = b;
                // SAFETY: the CPU has AVX2 (checked above).
                let got = unsafe { classify(&block) };
                let want = if b.is_ascii_digit() {
                    Some(0)
                } else if crate::judge::input::is_space(b) {
                    Some(1 << at)
                } else {
                    None
                };
                assert_eq!(got, want, "byte {b:#04x} at {at}");
            }
        }
    }
}
