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

use super::{grid, one_line, GpuEngine};
use crate::engine::corner::Lines;
use crate::engine::{EngineError, Timings};
use crate::games::corner::Piece;
use crate::progress::Progress;
use crate::table::Packed;
use crate::table::packed::payload_len;
use std::time::Instant;
use wgpu::util::DeviceExt;

const SHADER: &str = include_str!("../../../shaders/corner.wgsl");

/// Threads per workgroup; must match `WORKGROUP` in the shader.
const WORKGROUP: u32 = 64;

/// Bindings the table may be split over (the shader declares this many).
const VALUE_BINDINGS: u64 = 4;

/// The corner pipelines (queen, rook, king) and their bind group layout, built once a device.
pub(super) struct Pipelines {
    layout: wgpu::BindGroupLayout,
    pipelines: [wgpu::ComputePipeline; 3],
}

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
fn plan(piece: Piece, n: u64, per_binding: u64, max_buffer: u64, stride: u64) -> Result<Plan, (String, u64)> {
    let lines = Lines::new(piece, n, 32);
    let count = Lines::count(piece, n);
    let row_words = if count == 0 { 0 } else { lines.offsets[2 * n as usize] };
    let words = |w: u64| (w * 4).max(4);
    let (row_set_bytes, diag_set_bytes) = (words(row_words), words(lines.total() - row_words));
    let state_bytes = words(2 * count + 1);
    for (what, bytes) in
        [("row and column sets", row_set_bytes), ("diagonal sets", diag_set_bytes), ("floors", state_bytes)]
    {
        if bytes > per_binding {
            return Err((format!("{} of {what} in one storage buffer", in_mib(bytes)), bytes));
        }
    }
    let params = (2 * n - 1) * stride;
    if params > max_buffer {
        return Err((format!("{} of anti-diagonal parameters in one buffer", in_mib(params)), params));
    }
    let bits = piece.value_bits(n);
    // Whole rows a binding, a multiple of 8 (whole bytes), as many as fit.
    let chunk_bytes = |rows: u64| payload_len(rows * n, bits).next_multiple_of(4);
    let table = chunk_bytes(n);
    if table <= per_binding {
        return Ok(Plan { row_set_bytes, diag_set_bytes, rows_per_chunk: n, chunk_bytes: table, chunks: 1 });
    }
    let mut rows = (per_binding * 8 / (n * bits as u64)) / 8 * 8;
    while rows > 0 && chunk_bytes(rows) > per_binding {
        rows -= 8;
    }
    let chunks = if rows == 0 { u64::MAX } else { n.div_ceil(rows) };
    if chunks > VALUE_BINDINGS {
        return Err((format!("{} of table, split over at most {VALUE_BINDINGS} storage buffers", in_mib(table)), table));
    }
    Ok(Plan { row_set_bytes, diag_set_bytes, rows_per_chunk: rows, chunk_bytes: chunk_bytes(rows), chunks })
}

/// A size for messages: whole MiB, or bytes when under one.
fn in_mib(bytes: u64) -> String {
    if bytes < 1 << 20 { format!("{bytes} bytes") } else { format!("{} MiB", bytes >> 20) }
}

impl GpuEngine {
    /// The value of every cell of a `piece` board of side `n`, packed at the piece's working
    /// width (the caller shrinks). Records "upload", "kernel (wall)", "kernel (gpu timestamps)"
    /// where the device has them, and "readback".
    pub fn corner(&self, piece: Piece, n: u32, progress: &Progress, timings: &mut Timings) -> Result<Packed, EngineError> {
        let plan = self.corner_plan(piece, n)?;
        let pipelines = self.corner_pipelines()?;
        let scopes =
            [wgpu::ErrorFilter::OutOfMemory, wgpu::ErrorFilter::Validation].map(|f| self.device.push_error_scope(f));
        let built = self.corner_build(pipelines, piece, n, plan, progress, timings);
        for scope in scopes.into_iter().rev() {
            if let Some(e) = pollster::block_on(scope.pop()) {
                return Err(EngineError(format!(
                    "GPU build of {}:{n} failed on {}: {}",
                    piece.name(),
                    self.info.name,
                    one_line(e)
                )));
            }
        }
        let bytes = built?;
        let n64 = n as u64;
        Packed::from_payload(piece.value_bits(n64), n64 * n64, bytes).map_err(|e| EngineError(format!("GPU table: {e}")))
    }

    /// The buffers of a board on this device, or why it does not fit and the widest that does.
    fn corner_plan(&self, piece: Piece, n: u32) -> Result<Plan, EngineError> {
        let limits = self.device.limits();
        let mut limited_by = format!(
            "max_storage_buffer_binding_size {}, max_buffer_size {}",
            limits.max_storage_buffer_binding_size, limits.max_buffer_size
        );
        let mut per_binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        if let Some(cap) = self.binding_cap.filter(|&cap| cap < per_binding) {
            limited_by += &format!(", capped by the caller to {cap}");
            per_binding = cap;
        }
        let stride = self.corner_stride();
        let fits = |m: u64| plan(piece, m, per_binding, limits.max_buffer_size, stride);
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
        Err(EngineError(format!(
            "board side {n} needs {what}, more than this device allows: at most {} per storage buffer \
             ({limited_by}), so its widest {} board here is {}; use --backend simd",
            in_mib(per_binding),
            piece.name(),
            if lo == 0 { "none".to_string() } else { lo.to_string() },
        )))
    }

    /// Bytes between anti-diagonals' parameters (the dynamic offset alignment).
    fn corner_stride(&self) -> u64 {
        (size_of::<DiagonalParams>() as u64).next_multiple_of(self.device.limits().min_uniform_buffer_offset_alignment as u64)
    }

    /// The corner pipelines, built on first use.
    fn corner_pipelines(&self) -> Result<&Pipelines, EngineError> {
        match self.corner.get_or_init(|| pipelines(&self.device)) {
            Ok(p) => Ok(p),
            Err(e) => Err(EngineError(e.clone())),
        }
    }

    /// A query set for the pass's start and end, the buffer it resolves into and a readable copy.
    fn stamp_buffers(&self) -> (wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer) {
        let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("kernel"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolved = self.buffer("timestamps", 16, wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
        let readable = self.buffer("timestamps read", 16, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        (set, resolved, readable)
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
            state[(count + line) as usize] = (if line < 2 * n64 { at } else { at - row_words }) as u32;
        }
        let stride = self.corner_stride() as usize;
        let diagonals = 2 * n - 1;
        let mut params = vec![0u8; stride * diagonals as usize];
        for (s, slot) in params.chunks_mut(stride).enumerate() {
            let s = s as u32;
            let x_lo = s.saturating_sub(n - 1);
            let p = DiagonalParams {
                s,
                x_lo,
                count: s.min(n - 1) - x_lo + 1,
                n,
                bits,
                rows_per_chunk: plan.rows_per_chunk as u32,
                lines: count as u32,
                pad: 0,
            };
            slot[..size_of::<DiagonalParams>()].copy_from_slice(bytemuck::bytes_of(&p));
        }
        let init = |label, contents: &[u8], usage| {
            self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents, usage })
        };
        let params_buffer = init("anti-diagonal params", &params, wgpu::BufferUsages::UNIFORM);
        let state = init("floors and offsets", bytemuck::cast_slice(&state), wgpu::BufferUsages::STORAGE);
        let storage = |label, size| self.buffer(label, size, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST);
        let row_sets = storage("row and column sets", plan.row_set_bytes);
        let diag_sets = storage("diagonal sets", plan.diag_set_bytes);
        let values: Vec<wgpu::Buffer> = (0..VALUE_BINDINGS)
            .map(|i| {
                // Bindings past the table's chunks are never touched: a word or two holds them.
                let size = if i < plan.chunks { plan.chunk_bytes } else { 8 };
                self.buffer(
                    "values",
                    size,
                    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                )
            })
            .collect();
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for buffer in values.iter().chain([&row_sets, &diag_sets]) {
            encoder.clear_buffer(buffer, 0, None);
        }
        self.submit_and_wait(encoder)?;
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &params_buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(size_of::<DiagonalParams>() as u64),
                }),
            },
            wgpu::BindGroupEntry { binding: 1, resource: row_sets.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 2, resource: diag_sets.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 3, resource: state.as_entire_binding() },
        ];
        entries.extend(
            values.iter().zip(4..).map(|(b, binding)| wgpu::BindGroupEntry { binding, resource: b.as_entire_binding() }),
        );
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("corner"),
            layout: &pipelines.layout,
            entries: &entries,
        });
        timings.add("upload", start.elapsed());

        let start = Instant::now();
        let stamps = self.timestamps.then(|| self.stamp_buffers());
        let max_groups = self.device.limits().max_compute_workgroups_per_dimension;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let timestamp_writes = stamps.as_ref().map(|(set, ..)| wgpu::ComputePassTimestampWrites {
                query_set: set,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            });
            let mut pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("anti-diagonals"), timestamp_writes });
            pass.set_pipeline(&pipelines.pipelines[piece as usize]);
            for s in 0..diagonals {
                let cells = s.min(n - 1) - s.saturating_sub(n - 1) + 1;
                pass.set_bind_group(0, &bind_group, &[s * stride as u32]);
                let (x, y) = grid(cells.div_ceil(WORKGROUP), max_groups);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        if let Some((set, resolved, readable)) = &stamps {
            encoder.resolve_query_set(set, 0..2, resolved, 0);
            encoder.copy_buffer_to_buffer(resolved, 0, readable, 0, 16);
        }
        self.submit_and_wait(encoder)?;
        timings.add("kernel (wall)", start.elapsed());
        if let Some((.., readable)) = &stamps {
            timings.add("kernel (gpu timestamps)", self.read_stamps(readable)?);
        }
        progress.tick(1, 2);

        let start = Instant::now();
        let staging =
            self.buffer("values read", plan.chunk_bytes, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        let total = payload_len(n64 * n64, bits) as usize;
        let per_chunk = payload_len(plan.rows_per_chunk * n64, bits) as usize;
        let mut bytes = Vec::with_capacity(total);
        for buffer in &values[..plan.chunks as usize] {
            let mut encoder = self.device.create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, plan.chunk_bytes);
            self.submit_and_wait(encoder)?;
            let chunk = self.map_read(&staging)?;
            bytes.extend_from_slice(&chunk[..per_chunk.min(total - bytes.len())]);
        }
        timings.add("readback", start.elapsed());
        progress.tick(2, 2);
        progress.finish();
        Ok(bytes)
    }
}

/// The bind group layout of `shaders/corner.wgsl` and its pipelines for the queen, the rook and
/// the king (the `PIECE` override), in [`Piece`] order.
fn pipelines(device: &wgpu::Device) -> Result<Pipelines, String> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let storage = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: wgpu::BufferSize::new(size_of::<DiagonalParams>() as u64),
        },
        count: None,
    }];
    entries.extend((1..4 + VALUE_BINDINGS as u32).map(storage));
    let layout =
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some("corner"), entries: &entries });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("corner"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("corner.wgsl"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipelines = Piece::ALL.map(|piece| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(piece.name()),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &[("PIECE", piece as u8 as f64)],
                ..Default::default()
            },
            cache: None,
        })
    });
    match pollster::block_on(scope.pop()) {
        Some(e) => Err(format!("the corner shader does not build on this device: {}", one_line(e))),
        None => Ok(Pipelines { layout, pipelines }),
    }
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
        assert!(p.chunk_bytes <= 600_000 && p.chunks * p.rows_per_chunk >= 1000 && p.chunks <= 4, "{p:?}");
        // The splits tests/gpu_corner.rs runs.
        let chunks = |piece, n, cap| plan(piece, n, cap, 1 << 30, 256).map(|p| (p.chunks, p.rows_per_chunk)).unwrap();
        assert_eq!(chunks(Piece::King, 300, 6000), (4, 80));
        assert_eq!(chunks(Piece::Rook, 200, 20000), (3, 88));
        assert_eq!(chunks(Piece::Queen, 200, 25000), (3, 96));
        let (what, _) = plan(Piece::King, 1000, 50_000, 1 << 30, 256).unwrap_err();
        assert_eq!(what, "250000 bytes of table, split over at most 4 storage buffers");
        let (what, bytes) = plan(Piece::Queen, 1000, 100_000, 1 << 30, 256).unwrap_err();
        assert!(what.ends_with("of row and column sets in one storage buffer") && bytes > 100_000, "{what}");
    }
}
