//! The GPU engine's schedule, worked out on the CPU: which rows form each layer, how a GPU
//! thread finds its row from its index in the layer, and how the packed table is split over
//! storage bindings.
//!
//! A row with `c` chips whose chips sit on bits b₁ < … < b_c has index sum Σbᵢ ≥ c(c−1)/2; its
//! *excess* is d = Σbᵢ − c(c−1)/2, between 0 and c(W−c). A move keeps `c` and lowers the sum, so
//! it lowers the excess: layer d (every row of excess d, all popcounts together) depends only on
//! layers below d. The engine computes layers 0, 1, …, ⌊W²/4⌋ in order, one dispatch each.
//!
//! Thread t of a layer *unranks* t: the layer lists popcount 0's rows first, then popcount 1's,
//! and so on (`LayerParams::ends`), and within one popcount the rows in order of the count table
//! below, deciding bit n−1, n−2, … 0 in turn: of the N(n, c, d) c-chip rows of bits [0, n) with
//! excess d, the first N(n−1, c, d) leave bit n−1 empty and the rest set it, which leaves c−1
//! chips on bits [0, n−1) with excess d − (n − c).

use super::EngineError;
use super::kernel::{VALUE_BINDINGS, in_mib};

/// Bits a value takes.
pub const VALUE_BITS: u64 = 5;

/// Highest excess of a row of `width` cells: c(W−c) is largest at c = ⌊W/2⌋.
pub fn max_excess(width: u32) -> u32 {
    width * width / 4
}

/// N(n, c, d) for every n, c ≤ `width` and d ≤ `max_excess(width)`, flattened as the shader
/// reads it: index (n·(W+1) + c)·(D+1) + d.
pub fn count_table(width: u32) -> Vec<u32> {
    let (w, d_len) = (width as usize, max_excess(width) as usize + 1);
    let at = |n: usize, c: usize, d: usize| (n * (w + 1) + c) * d_len + d;
    let mut counts = vec![0u32; (w + 1) * (w + 1) * d_len];
    counts[at(0, 0, 0)] = 1;
    for n in 1..=w {
        for c in 0..=n {
            for d in 0..d_len {
                let without = counts[at(n - 1, c, d)];
                let with =
                    if c > 0 && d >= n - c { counts[at(n - 1, c - 1, d - (n - c))] } else { 0 };
                counts[at(n, c, d)] = without.checked_add(with).expect("row counts fit u32");
            }
        }
    }
    counts
}

/// One layer's parameters, as the shader's `Layer` uniform (at a dynamic offset per layer).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LayerParams {
    /// d: the excess every row of the layer has.
    pub excess: u32,
    /// Rows in the layer (threads that do work).
    pub members: u32,
    pub width: u32,
    /// Each value binding holds 2^chunk_shift rows.
    pub chunk_shift: u32,
    /// ends[c]: rows of the layer with popcount ≤ c (the shader reads these as 9 vec4s).
    pub ends: [u32; 36],
}

/// Every layer of a table of `width` cells, in the order they must run.
pub fn layers(width: u32, chunk_shift: u32, counts: &[u32]) -> Vec<LayerParams> {
    let (w, d_len) = (width as usize, max_excess(width) as usize + 1);
    (0..d_len)
        .map(|d| {
            let mut ends = [0u32; 36];
            let mut total = 0u32;
            for (c, end) in ends.iter_mut().enumerate().take(w + 1) {
                total += counts[(w * (w + 1) + c) * d_len + d];
                *end = total;
            }
            LayerParams { excess: d as u32, members: total, width, chunk_shift, ends }
        })
        .collect()
}

/// How the packed values are laid out on the device: `chunks` bindings of 2^chunk_shift rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    pub chunk_shift: u32,
    pub chunks: u32,
}

impl Split {
    /// Bytes one binding holds: its rows' values in whole u32 words.
    pub fn chunk_bytes(&self) -> u64 {
        words_for(self.chunk_shift) * 4
    }
}

/// u32 words that the values of 2^shift rows fill.
fn words_for(shift: u32) -> u64 {
    ((1u64 << shift) * VALUE_BITS).div_ceil(32)
}

/// Splits a table of `width` cells over at most `VALUE_BINDINGS` bindings of at most
/// `per_binding` bytes each, or says why it cannot; `limited_by` names the device limits that
/// set `per_binding`, for the message. A binding holds a power of two of rows, at least 32 when
/// there are several, so that no value straddles two bindings, and at most 2^31 so that a row's
/// place in its binding times 5 stays within the shader's u32 arithmetic.
pub fn split(width: u32, per_binding: u64, limited_by: &str) -> Result<Split, EngineError> {
    if !(1..=32).contains(&width) {
        return Err(EngineError::refused(format!(
            "chess rows are 1 to 32 cells wide, not {width}"
        )));
    }
    if let Some(split) = fit(width, per_binding) {
        return Ok(split);
    }
    let widest = (1..=32).rev().find(|&w| fit(w, per_binding).is_some());
    Err(EngineError::refused(format!(
        "width {width} needs {} of 5-bit values, more than this device allows: at most {} per \
            storage buffer ({limited_by}) and the engine splits the table over at most \
            {VALUE_BINDINGS} buffers, so its widest row here is {}; use --backend simd",
        in_mib(words_for(width) * 4),
        in_mib(per_binding),
        widest.map_or("none".into(), |w| w.to_string()),
    )))
}

/// The fewest bindings of at most `per_binding` bytes that hold a table of `width` cells.
fn fit(width: u32, per_binding: u64) -> Option<Split> {
    let mut shift = width.min(31);
    while shift > 5 && words_for(shift) * 4 > per_binding {
        shift -= 1;
    }
    let chunks = 1u64 << (width - shift);
    (words_for(shift) * 4 <= per_binding && chunks <= VALUE_BINDINGS as u64)
        .then_some(Split { chunk_shift: shift, chunks: chunks as u32 })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shader's unranking, step for step.
    fn unrank(params: &LayerParams, counts: &[u32], t: u32) -> u32 {
        let (w, d_len) = (params.width, max_excess(params.width) + 1);
        let mut c = params.ends.iter().position(|&end| t < end).unwrap() as u32;
        let mut r = t - if c > 0 { params.ends[c as usize - 1] } else { 0 };
        let (mut d, mut n, mut row) = (params.excess, w, 0u32);
        while c > 0 && c < n {
            n -= 1;
            let without = counts[((n * (w + 1) + c) * d_len + d) as usize];
            if r >= without {
                r -= without;
                row |= 1 << n;
                d -= n + 1 - c;
                c -= 1;
            }
        }
        if c > 0 {
            row |= u32::MAX >> (32 - c);
        }
        row
    }

    fn excess(row: u32) -> u32 {
        let c = row.count_ones();
        (0..32).filter(|&i| row >> i & 1 == 1).sum::<u32>() - c * (c.max(1) - 1) / 2
    }

    #[test]
    fn layers_unrank_every_row_once_in_its_layer() {
        for width in 1..=12 {
            let counts = count_table(width);
            let mut seen = vec![false; 1 << width];
            for params in layers(width, width, &counts) {
                for t in 0..params.members {
                    let row = unrank(&params, &counts, t);
                    assert!(row < 1 << width && !seen[row as usize], "width {width} row {row:b}");
                    assert_eq!(excess(row), params.excess);
                    seen[row as usize] = true;
                }
            }
            assert!(seen.iter().all(|&s| s), "width {width}");
        }
    }

    #[test]
    fn counts_of_width_32_fit() {
        let counts = count_table(32);
        let total: u64 = layers(32, 31, &counts).iter().map(|l| l.members as u64).sum();
        assert_eq!(total, 1 << 32);
    }

    #[test]
    fn splits_follow_the_limits() {
        const MIB: u64 = 1 << 20;
        let lavapipe = |w| split(w, 128 * MIB, "lavapipe");
        assert_eq!(lavapipe(20).unwrap(), Split { chunk_shift: 20, chunks: 1 });
        assert_eq!(lavapipe(26).unwrap(), Split { chunk_shift: 26, chunks: 1 });
        assert_eq!(lavapipe(29).unwrap(), Split { chunk_shift: 27, chunks: 4 });
        let err = lavapipe(30).unwrap_err().line;
        assert!(err.contains("640 MiB") && err.contains("widest row here is 29"), "{err}");
        let big = |w| split(w, (1 << 31) - 1, "2 GiB");
        assert_eq!(big(30).unwrap(), Split { chunk_shift: 30, chunks: 1 });
        assert_eq!(big(32).unwrap(), Split { chunk_shift: 31, chunks: 2 });
        assert!(split(33, u64::MAX, "none").is_err());
        assert_eq!(split(3, 128 * MIB, "lavapipe").unwrap().chunk_bytes(), 8);
        assert_eq!(split(12, 640, "test").unwrap(), Split { chunk_shift: 10, chunks: 4 });
    }
}
