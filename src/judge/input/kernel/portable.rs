//! The portable kernel of [`super::blocks`]: 64-byte blocks classified with `wide`'s SSE2
//! compares (scalar code off x86-64), numbers converted 16 bytes at a time; and the helpers the
//! AVX2 kernel shares with it.

use super::{Run, prefetch};
use crate::judge::input::{CLASS, SPACE};

/// The portable kernel of [`super::blocks`].
#[inline(always)]
pub(super) fn portable<A>(run: Run, acc: A, f: &mut impl FnMut(A, u64) -> A) -> (A, u64, usize) {
    let (Run { window, mut pos, mut left, min, max }, mut acc) = (run, acc);
    // Blocks of 64 bytes, with the 16 bytes before each in view too, so that the 16
    // bytes that end at a token's end can be loaded.
    while left > 0 && pos >= 16 && pos + 64 <= window.len() {
        let block: &[u8; 80] = window[pos - 16..pos + 64].try_into().unwrap();
        prefetch(window, pos);
        let (space, other) = classify(block[16..].try_into().unwrap());
        if other != 0 {
            break;
        }
        let (mut starts, mut ends, short) = block_marks(space, left);
        let mut end = 0;
        while ends != 0 {
            let s = starts.trailing_zeros() as usize;
            end = ends.trailing_zeros() as usize;
            starts &= starts - 1;
            ends &= ends - 1;
            let len = end - s;
            let value = digits_before(block[end..end + 16].try_into().unwrap(), len);
            if len > 16 || !(min..=max).contains(&value) {
                pos += s;
                return (acc, left, pos);
            }
            acc = f(acc, value);
            left -= 1;
        }
        let next = after_block(short, end, starts);
        if next == 0 {
            break; // one token fills the whole block: too long, let `next` say so
        }
        pos += next;
    }
    (acc, left, pos)
}

/// The token marks of a 64-byte block with whitespace mask `space`, for a walk (of either
/// kernel) that stands at whitespace or at a token's start at the block's first byte, with
/// `left` numbers still wanted: (starts, ends, short). Bit 0 may start a token, and a token
/// ends (at a whitespace byte) only after it started in this block. No block holds 64 tokens,
/// so only near the end of the run can `left` stop short of the block's last token: then only
/// the first `left` ends are kept, and `short` says that some were dropped.
#[inline(always)]
pub(super) fn block_marks(space: u64, left: u64) -> (u64, u64, bool) {
    let starts = !space & (space << 1 | 1);
    let mut ends = space & !space << 1;
    let mut short = false;
    if left < 64 {
        let (mut rest, mut kept) = (ends, 0u64);
        for _ in 0..left {
            kept |= rest & rest.wrapping_neg();
            rest &= rest.wrapping_sub(1);
        }
        short = rest != 0;
        ends = kept;
    }
    (starts, ends, short)
}

/// Bytes from a block's start to where the walk goes on, after the tokens that ended in it were
/// taken (`end`: the last one's end; `starts`: the starts not yet taken): just past the last
/// token taken if `left` ran out (`short`), else the start of a token that runs on past the
/// block, else the next block. 0 means one token fills the whole block.
#[inline(always)]
pub(super) fn after_block(short: bool, end: usize, starts: u64) -> usize {
    if short {
        end
    } else if starts != 0 {
        starts.trailing_zeros() as usize
    } else {
        64
    }
}

/// Newlines in `bytes`, counted in blocks whose byte-wide sums the compiler vectorises.
pub(in crate::judge::input) fn count_newlines(bytes: &[u8]) -> u64 {
    let mut blocks = bytes.chunks_exact(128);
    let mut n: u64 =
        (&mut blocks).map(|b| b.iter().map(|&c| (c == b'\n') as u8).sum::<u8>() as u64).sum();
    n += blocks.remainder().iter().filter(|&&c| c == b'\n').count() as u64;
    n
}

/// The length of the number at the start of `bytes`, if it has 1 to 15 digits and whitespace
/// follows it.
#[inline(always)]
pub(in crate::judge::input) fn token_len(bytes: &[u8; 16]) -> Option<usize> {
    let lo = u64::from_le_bytes(bytes[..8].try_into().unwrap());
    let hi = u64::from_le_bytes(bytes[8..].try_into().unwrap());
    let len = match swar::non_digits(lo) {
        0 => match swar::non_digits(hi) {
            0 => return None,
            m => 8 + m.trailing_zeros() as usize / 8,
        },
        m => m.trailing_zeros() as usize / 8,
    };
    (len > 0 && CLASS[bytes[len] as usize] == SPACE).then_some(len)
}

/// `KEEP[len]` keeps the last `len` of 16 bytes (all 16 from 16 on: any length a token in a
/// 64-byte block can have indexes it).
pub(super) static KEEP: [[u8; 16]; 64] = {
    let mut k = [[0; 16]; 64];
    let mut len = 0;
    while len < 64 {
        let mut i = 16usize.saturating_sub(len);
        while i < 16 {
            k[len][i] = 0xFF;
            i += 1;
        }
        len += 1;
    }
    k
};

/// The value of the `len` (1..=16) ASCII digits at the end of `bytes` (`len` up to 63 is
/// allowed but gives a meaningless value), with no branch on
/// `len`: the bytes before them are cleared (leading zeros) and all 16 are converted at once
/// in SSE registers (SSE2 only): pairs of digits by one 16-bit multiply, then pairs of pairs
/// and pairs of those by multiply-adds.
#[inline(always)]
pub(in crate::judge::input) fn digits_before(bytes: &[u8; 16], len: usize) -> u64 {
    use wide::{bytemuck::cast, i16x8, i32x4, u8x16, u64x2};
    let digits =
        (u8x16::new(*bytes) & u8x16::new(KEEP[len & 63])).saturating_sub(u8x16::splat(b'0'));
    // Lane = d0 + 256·d1 (d0 the higher digit); · (1 + 256·10) puts 10·d0 + d1 in the high byte.
    let pairs: i16x8 = (cast::<u8x16, i16x8>(digits) * i16x8::splat(1 + 256 * 10)) >> 8_i32;
    let quads: i32x4 = pairs.dot(i16x8::new([100, 1, 100, 1, 100, 1, 100, 1]));
    // Each quad is below 10^4: move the odd ones next to the even ones, as 16-bit lanes.
    let quads = cast::<i32x4, u64x2>(quads);
    let quads = cast::<u64x2, i16x8>(quads | quads >> 16);
    let eights: [u64; 2] = cast(quads.dot(i16x8::new([10_000, 1, 0, 0, 10_000, 1, 0, 0])));
    eights[0] * 100_000_000 + eights[1]
}

/// For 64 bytes: a bit mask of the bytes that are not ASCII digits, which are whitespace if the
/// second value is 0; otherwise some byte is neither whitespace nor a digit.
#[inline(always)]
pub(super) fn classify(block: &[u8; 64]) -> (u64, u32) {
    use wide::u8x16;
    let mut digit = 0u64;
    let mut valid = u8x16::splat(0xFF);
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        let v = u8x16::new(chunk.try_into().unwrap());
        let is_digit = (v - u8x16::splat(b'0')).simd_lt(u8x16::splat(10));
        // space, or \t \n \v \f \r (9..=13)
        let is_space =
            v.simd_eq(u8x16::splat(b' ')) | (v - u8x16::splat(9)).simd_lt(u8x16::splat(5));
        valid &= is_digit | is_space;
        digit |= (is_digit.to_bitmask() as u64) << (16 * i);
    }
    (!digit, !valid.to_bitmask() & 0xFFFF)
}

/// Eight bytes at a time in a `u64` (byte 0 = the first character).
pub(super) mod swar {
    const ZEROS: u64 = 0x3030_3030_3030_3030;

    /// The high bit of every byte of `x` that is not an ASCII digit is set (the lowest such
    /// byte is exact; carries may mark the bytes above it too, which callers ignore).
    #[inline(always)]
    pub fn non_digits(x: u64) -> u64 {
        let below = x.wrapping_sub(ZEROS); // '0'.. wraps below zero
        let above = x.wrapping_add(0x4646_4646_4646_4646); // past '9' reaches 0x80
        (x | below | above) & 0x8080_8080_8080_8080
    }
}
