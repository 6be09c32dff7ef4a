//! The wgpu engine for corner games (queen, rook, king on an N×N board): `shaders/corner.wgsl`.
//!
//! **Schedule.** A move lowers x + y, so anti-diagonal s = x + y depends only on lower ones and
//! its cells share no row, column or diagonal. The engine records 2N − 1 dispatches, one per
//! anti-diagonal and one thread per cell, into one compute pass and one submission; each gets
//! its anti-diagonal through a dynamic uniform offset. Nothing returns to the CPU in between.
//!
//! **Sets.** As in the CPU engine (`crate::engine::corner`): each row, column and (queen)
//! diagonal keeps the values taken in it as a bitset of 32-bit words plus its floor, and a cell's
//! value is the first zero of the OR of its lines' sets at or above the highest floor. The
//! layout is [`Lines`] with 32-bit units: row and column sets in one buffer, diagonal sets in
//! another, floors and word offsets in a third. The king reads its three neighbours from the
//! table instead.
//!
//! **Values** are ORed atomically into a zeroed table packed at [`Piece::value_bits`], the
//! `.sgt` layout; the caller shrinks it. A table larger than one binding is split by rows over
//! up to four bindings of R rows each (R a multiple of 8, so that each binding holds whole bytes
//! and the readback is their concatenation). A board that does not fit is refused before any
//! work, naming the limit and the widest board that fits.

use super::GpuEngine;
use super::kernel::{Chunks, GpuKernel, VALUE_BINDINGS, in_mib};
use crate::engine::corner::Lines;
use crate::engine::{EngineError, Timings};
use crate::games::corner::Piece;
use crate::progress::Progress;
use crate::values::Packed;
use crate::values::packed::payload_len;
use std::time::Instant;

const SHADER: &str = include_str!("../../../shaders/corner.wgsl");

/// Threads per workgroup; must match `WORKGROUP` in the shader.
const WORKGROUP: u32 = 64;

/// The corner pipelines (queen, rook, king, in [`Piece`] order) and their bind group layout,
/// built once a device.
pub(super) type Pipelines = GpuKernel<3>;

/// One anti-diagonal's parameters, as the shader's `Diagonal` uniform.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct DiagonalParams {
    s: u32,
    x_lo: u32,
    count: u32,
    n: u32,
    bits: u32,
    rows_per_chunk: u32,
    lines: u32,
    pad: u32,
}

/// How a board's buffers are sized on this device.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Bytes of the row and column sets, and of the diagonal sets.
    row_set_bytes: u64,
    diag_set_bytes: u64,
    /// Board rows per table binding, bytes of each binding, and how many.
    rows_per_chunk: u64,
    chunk_bytes: u64,
    chunks: u64,
}

/// The buffers a board needs, within `per_binding` bytes a binding and `max_buffer` a buffer;
/// the error names what does not fit and its size.
fn plan(
    piece: Piece,
    n: u64,
    per_binding: u64,
    max_buffer: u64,
    stride: u64,
) -> Result<Plan, (String, u64)> {
    let lines = Lines::new(piece, n, 32);
    let count = Lines::count(piece, n);
    let row_words = if count == 0 { 0 } else { lines.offsets[2 * n as usize] };
    let words = |w: u64| (w * 4).max(4);
    let (row_set_bytes, diag_set_bytes) = (words(row_words), words(lines.total() - row_words));
    let state_bytes = words(2 * count + 1);
    for (what, bytes) in [
        ("row and column sets", row_set_bytes),
        ("diagonal sets", diag_set_bytes),
        ("floors", state_bytes),
    ] {
        if bytes > per_binding {
            return Err((format!("{} of {what} in one storage buffer", in_mib(bytes)), bytes));
        }
    }
    let params = (2 * n - 1) * stride;
    if params > max_buffer {
        return Err((
            format!("{} of anti-diagonal parameters in one buffer", in_mib(params)),
            params,
        ));
    }
    let bits = piece.value_bits(n);
    // Whole rows a binding, a multiple of 8 (whole bytes), as many as fit.
    let chunk_bytes = |rows: u64| payload_len(rows * n, bits).next_multiple_of(4);
    let table = chunk_bytes(n);
    if table <= per_binding {
        return Ok(Plan {
            row_set_bytes,
            diag_set_bytes,
            rows_per_chunk: n,
            chunk_bytes: table,
            chunks: 1,
        });
    }
    let mut rows = (per_binding * 8 / (n * bits as u64)) / 8 * 8;
    while rows > 0 && chunk_bytes(rows) > per_binding {
        rows -= 8;
    }
    let chunks = if rows == 0 { u64::MAX } else { n.div_ceil(rows) };
    if chunks > VALUE_BINDINGS as u64 {
        return Err((
            format!(
                "{} of table, split over at most {VALUE_BINDINGS} storage buffers",
                in_mib(table)
            ),
            table,
        ));
    }
    Ok(Plan {
        row_set_bytes,
        diag_set_bytes,
        rows_per_chunk: rows,
        chunk_bytes: chunk_bytes(rows),
        chunks,
    })
}

impl GpuEngine {
    /// The value of every cell of a `piece` board of side `n`, packed at the piece's working
    /// width (the caller shrinks). Records "upload", "kernel (wall)", "kernel (gpu timestamps)"
    /// where the device has them, and "readback".
    pub fn corner(
        &self,
        piece: Piece,
        n: u32,
        progress: &Progress,
        timings: &mut Timings,
    ) -> Result<Packed, EngineError> {
        let plan = self.corner_plan(piece, n)?;
        let pipelines = self.corner_pipelines()?;
        let what = format!("{}:{n}", piece.name());
        let bytes =
            self.scoped(&what, || self.corner_build(pipelines, piece, n, plan, progress, timings))?;
        let n64 = n as u64;
        Packed::from_payload(piece.value_bits(n64), n64 * n64, bytes)
            .map_err(|e| EngineError::device(format!("GPU table: {e}")))
    }

    /// The buffers of a board on this device, or why it does not fit and the widest that does.
    fn corner_plan(&self, piece: Piece, n: u32) -> Result<Plan, EngineError> {
        let (per_binding, limited_by) = self.binding_limit();
        let max_buffer = self.device.limits().max_buffer_size;
        let stride = self.param_stride::<DiagonalParams>();
        let fits = |m: u64| plan(piece, m, per_binding, max_buffer, stride);
        let (what, _) = match fits(n as u64) {
            Ok(plan) => return Ok(plan),
            Err(e) => e,
        };
        // Every buffer grows with n: the widest board that fits by bisection.
        let (mut lo, mut hi) = (0u64, n as u64);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if fits(mid).is_ok() { lo = mid } else { hi = mid }
        }
        Err(EngineError::refused(format!(
            "board side {n} needs {what}, more than this device allows: at most {} per storage \
                buffer ({limited_by}), so its widest {} board here is {}; use --backend simd",
            in_mib(per_binding),
            piece.name(),
            if lo == 0 { "none".to_string() } else { lo.to_string() },
        )))
    }

    /// The corner pipelines, built on first use.
    fn corner_pipelines(&self) -> Result<&Pipelines, EngineError> {
        match self.corner.get_or_init(|| pipelines(&self.device)) {
            Ok(p) => Ok(p),
            Err(e) => Err(EngineError::device(e.clone())),
        }
    }

    fn corner_build(
        &self,
        pipelines: &Pipelines,
        piece: Piece,
        n: u32,
        plan: Plan,
        progress: &Progress,
        timings: &mut Timings,
    ) -> Result<Vec<u8>, EngineError> {
        let start = Instant::now();
        let n64 = n as u64;
        let bits = piece.value_bits(n64);
        let lines = Lines::new(piece, n64, 32);
        let count = Lines::count(piece, n64);
        let row_words = if count == 0 { 0 } else { lines.offsets[2 * n as usize] };
        // Floors (all zero), then each line's word offset within its own buffer.
        let mut state = vec![0u32; (2 * count + 1).max(1) as usize];
        for line in 0..count {
            let at = lines.offsets[line as usize];
            state[(count + line) as usize] =
                (if line < 2 * n64 { at } else { at - row_words }) as u32;
        }
        let params: Vec<DiagonalParams> = (0..2 * n - 1)
            .map(|s| {
                let x_lo = s.saturating_sub(n - 1);
                DiagonalParams {
                    s,
                    x_lo,
                    count: s.min(n - 1) - x_lo + 1,
                    n,
                    bits,
                    rows_per_chunk: plan.rows_per_chunk as u32,
                    lines: count as u32,
                    pad: 0,
                }
            })
            .collect();
        let (params_buffer, stride) = self.params_buffer("anti-diagonal params", &params);
        let state = self.buffer_init(
            "floors and offsets",
            bytemuck::cast_slice(&state),
            wgpu::BufferUsages::STORAGE,
        );
        let storage = |label, size| {
            self.buffer(label, size, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST)
        };
        let row_sets = storage("row and column sets", plan.row_set_bytes);
        let diag_sets = storage("diagonal sets", plan.diag_set_bytes);
        let table = Chunks {
            chunks: plan.chunks,
            chunk_bytes: plan.chunk_bytes,
            used: payload_len(plan.rows_per_chunk * n64, bits),
            total: payload_len(n64 * n64, bits),
        };
        let values = self.value_buffers(table);
        self.clear(values.iter().chain([&row_sets, &diag_sets]))?;
        let storage: Vec<&wgpu::Buffer> =
            [&row_sets, &diag_sets, &state].into_iter().chain(&values).collect();
        let bind_group = self.bind_group::<DiagonalParams>(
            "corner",
            &pipelines.layout,
            &params_buffer,
            &storage,
        );
        timings.add("upload", start.elapsed());

        // One dispatch an anti-diagonal, one thread a cell.
        let groups = params.iter().map(|p| p.count.div_ceil(WORKGROUP));
        self.run_pass(
            "anti-diagonals",
            &pipelines.pipelines[piece as usize],
            &bind_group,
            stride,
            groups,
            timings,
        )?;
        progress.tick(1, 2);

        let bytes = timings.time("readback", || self.read_table(&values, table));
        progress.tick(2, 2);
        progress.finish();
        bytes
    }
}

/// The bind group layout of `shaders/corner.wgsl` and its pipelines for the queen, the rook and
/// the king (the `PIECE` override), in [`Piece`] order.
fn pipelines(device: &wgpu::Device) -> Result<Pipelines, String> {
    let variants = Piece::ALL.map(|piece| (piece.name(), piece as u8 as f64));
    // Row and column sets, diagonal sets, floors and offsets, then the table's four bindings.
    GpuKernel::new::<DiagonalParams>(
        device,
        "corner",
        SHADER,
        &[false; 3 + VALUE_BINDINGS as usize],
        "PIECE",
        variants,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_split_tables_by_whole_bytes_of_rows() {
        // queen:1000 at 12 bits: 1.43 MB of table.
        let p = plan(Piece::Queen, 1000, 1 << 30, 1 << 30, 256).unwrap();
        assert_eq!((p.chunks, p.rows_per_chunk), (1, 1000));
        let p = plan(Piece::Queen, 1000, 600_000, 1 << 30, 256).unwrap();
        assert_eq!(p.rows_per_chunk % 8, 0);
        assert!(
            p.chunk_bytes <= 600_000 && p.chunks * p.rows_per_chunk >= 1000 && p.chunks <= 4,
            "{p:?}"
        );
        // The splits tests/gpu_corner.rs runs.
        let chunks = |piece, n, cap| {
            plan(piece, n, cap, 1 << 30, 256).map(|p| (p.chunks, p.rows_per_chunk)).unwrap()
        };
        assert_eq!(chunks(Piece::King, 300, 6000), (4, 80));
        assert_eq!(chunks(Piece::Rook, 200, 20000), (3, 88));
        assert_eq!(chunks(Piece::Queen, 200, 25000), (3, 96));
        let (what, _) = plan(Piece::King, 1000, 50_000, 1 << 30, 256).unwrap_err();
        assert_eq!(what, "250000 bytes of table, split over at most 4 storage buffers");
        let (what, bytes) = plan(Piece::Queen, 1000, 100_000, 1 << 30, 256).unwrap_err();
        assert!(
            what.ends_with("of row and column sets in one storage buffer") && bytes > 100_000,
            "{what}"
        );
    }
}
