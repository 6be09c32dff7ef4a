//! The wgpu engine for chess rows.
//!
//! **Schedule.** Rows are grouped into layers by their *excess* (index sum of the chips minus
//! the least sum that many chips can have); a move lowers the excess, so layer d needs only
//! layers below it, and all popcounts share one layer. A table of W cells has ⌊W²/4⌋ + 1
//! layers (170 for W = 26). All of them are recorded as one dispatch each into a single compute
//! pass and one submission; nothing returns to the CPU between layers (storage writes of one
//! dispatch are visible to the next). Each dispatch gets its layer's parameters through a
//! dynamic uniform offset.
//!
//! **Unranking.** No row list is kept: thread t of a layer computes its row from t with a small
//! count table N(n, c, d) (c-chip rows of bits [0, n) with excess d; about 1 MiB at W = 32),
//! deciding one bit per step from the top. See `schedule`.
//!
//! **Packing.** Values stay packed 5 bits a row on the device, LSB first, exactly the `.sgt`
//! payload: the readback is the table's bytes. A buffer starts zeroed, rows of one layer own
//! disjoint bits, and the shader ORs each value in atomically (a value can straddle two u32
//! words). Tables larger than one storage binding are split over up to four bindings of a power
//! of two of rows each; a width that does not fit is refused before any work starts.
//!
//! The plumbing around the kernel (limits, buffers, the pass, the readback) is shared with the
//! corner engine in `kernel`.

mod corner;
mod kernel;
mod schedule;

use super::{EngineError, Timings};
use crate::progress::Progress;
use crate::values::Packed;
use crate::values::packed::payload_len;
use kernel::{Chunks, GpuKernel};
use schedule::{LayerParams, Split, VALUE_BITS};
use std::time::Instant;

const SHADER: &str = include_str!("../../shaders/chess.wgsl");

/// Threads per workgroup; must match `WORKGROUP` in the shader.
const WORKGROUP: u32 = 64;

/// An opened GPU: device, queue and the compiled chess pipeline, reused for every table.
pub struct GpuEngine {
    info: wgpu::AdapterInfo,
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// The chess pipeline for tables in one binding, and for tables split over several.
    chess: GpuKernel<2>,
    /// Most bytes put in one storage binding, when the caller wants less than the device allows.
    binding_cap: Option<u64>,
    /// Whether the device can time the kernel with GPU timestamps.
    timestamps: bool,
    /// The corner-game pipelines, built when a corner board is first asked for.
    corner: std::sync::OnceLock<Result<corner::Pipelines, String>>,
}

/// The best adapter wgpu finds (backends from `WGPU_BACKEND`, else all built in).
fn best_adapter() -> Result<wgpu::Adapter, EngineError> {
    let desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    let tried = desc.backends & wgpu::Instance::enabled_backend_features();
    let instance = wgpu::Instance::new(desc);
    let options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    };
    pollster::block_on(instance.request_adapter(&options)).map_err(|_| no_adapter(tried))
}

fn describe(info: &wgpu::AdapterInfo) -> String {
    format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
}

impl GpuEngine {
    /// Opens the best adapter wgpu finds (backends from `WGPU_BACKEND`, else all built in) with
    /// the adapter's own limits, so that buffers as large as it allows can be made.
    pub fn new() -> Result<GpuEngine, EngineError> {
        let adapter = best_adapter()?;
        let info = adapter.get_info();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("sgtab"),
            required_features: if timestamps {
                wgpu::Features::TIMESTAMP_QUERY
            } else {
                wgpu::Features::empty()
            },
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| {
            EngineError::device(format!("could not open GPU device {}: {}", info.name, one_line(e)))
        })?;
        // Errors are caught in error scopes around each build; one that escapes must not panic,
        // nor may printing it (a failing stderr).
        device.on_uncaptured_error(std::sync::Arc::new(|e| {
            let _ = std::io::Write::write_fmt(
                &mut std::io::stderr().lock(),
                format_args!("sgtab: GPU error: {e}\n"),
            );
        }));
        let chess = GpuKernel::new::<LayerParams>(
            &device,
            "chess",
            SHADER,
            // Row counts (read only), then the table's four bindings.
            &[true, false, false, false, false],
            "SPLIT",
            [("chess", 0.0), ("chess", 1.0)],
        )
        .map_err(EngineError::device)?;
        Ok(GpuEngine {
            info,
            device,
            queue,
            chess,
            binding_cap: None,
            timestamps,
            corner: Default::default(),
        })
    }

    /// The adapter `new` would open, described, and whether it is a software rasteriser such
    /// as Mesa's llvmpipe (lavapipe): a real engine, but slower than the SIMD engine on the
    /// same CPU, so `--backend auto` passes it over. Opens no device, so it is cheap.
    pub fn probe() -> Result<(String, bool), EngineError> {
        let info = best_adapter()?.get_info();
        Ok((describe(&info), info.device_type == wgpu::DeviceType::Cpu))
    }

    /// Puts at most `bytes` in one storage binding, splitting tables sooner than the device's
    /// limits require (to leave room to other work, or to test the split path on any device).
    pub fn cap_binding_size(&mut self, bytes: u64) {
        self.binding_cap = Some(bytes);
    }

    /// Adapter name, backend and device type, e.g. "llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan,
    /// Cpu)".
    pub fn describe(&self) -> String {
        describe(&self.info)
    }

    /// The value of every row of `width` cells, packed 5 bits a value. Records "upload",
    /// "kernel (wall)", "kernel (gpu timestamps)" where the device has them, and "readback".
    pub fn chess(
        &self,
        width: u32,
        progress: &Progress,
        timings: &mut Timings,
    ) -> Result<Packed, EngineError> {
        let split = self.split(width)?;
        let bytes =
            self.scoped(&format!("width {width}"), || self.build(width, split, progress, timings))?;
        Packed::from_payload(VALUE_BITS as u32, 1 << width, bytes)
            .map_err(|e| EngineError::device(format!("GPU table: {e}")))
    }

    /// How a table of `width` cells is spread over bindings within the device's limits.
    fn split(&self, width: u32) -> Result<Split, EngineError> {
        let (per_binding, limited_by) = self.binding_limit();
        schedule::split(width, per_binding, &limited_by)
    }

    fn build(
        &self,
        width: u32,
        split: Split,
        progress: &Progress,
        timings: &mut Timings,
    ) -> Result<Vec<u8>, EngineError> {
        let start = Instant::now();
        let table = Chunks {
            chunks: split.chunks as u64,
            chunk_bytes: split.chunk_bytes(),
            used: split.chunk_bytes(),
            total: payload_len(1 << width, VALUE_BITS as u32),
        };
        let counts = schedule::count_table(width);
        let layers = schedule::layers(width, split.chunk_shift, &counts);
        let (params, stride) = self.params_buffer("layer params", &layers);
        let counts = self.buffer_init(
            "row counts",
            bytemuck::cast_slice(&counts),
            wgpu::BufferUsages::STORAGE,
        );
        let values = self.value_buffers(table);
        self.clear(&values)?;
        let storage: Vec<&wgpu::Buffer> = [&counts].into_iter().chain(&values).collect();
        let bind_group =
            self.bind_group::<LayerParams>("chess", &self.chess.layout, &params, &storage);
        timings.add("upload", start.elapsed());

        // One dispatch a layer, in order.
        let pipeline = &self.chess.pipelines[(split.chunks > 1) as usize];
        let groups = layers.iter().map(|layer| layer.members.div_ceil(WORKGROUP));
        self.run_pass("layers", pipeline, &bind_group, stride, groups, timings)?;
        progress.tick(1, 2);

        let bytes = timings.time("readback", || self.read_table(&values, table));
        progress.tick(2, 2);
        progress.finish();
        bytes
    }
}

/// wgpu's error text (often several indented lines) on one line.
fn one_line(e: impl std::fmt::Display) -> String {
    e.to_string().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The one-line error for a machine without a usable adapter.
fn no_adapter(tried: wgpu::Backends) -> EngineError {
    let names = [
        (wgpu::Backends::VULKAN, "vulkan"),
        (wgpu::Backends::METAL, "metal"),
        (wgpu::Backends::DX12, "dx12"),
        (wgpu::Backends::GL, "gl"),
        (wgpu::Backends::BROWSER_WEBGPU, "webgpu"),
    ];
    let tried: Vec<&str> =
        names.iter().filter(|(b, _)| tried.contains(*b)).map(|&(_, name)| name).collect();
    if tried.is_empty() {
        // wgpu reads WGPU_BACKEND and drops the names it does not know: say so, not "none".
        let set = std::env::var("WGPU_BACKEND").unwrap_or_default();
        return EngineError::device(format!(
            "WGPU_BACKEND=`{}` names no wgpu backend built into this sgtab; set it to one or more \
                of vulkan, metal, dx12, gl (comma-separated), or unset it",
            set.escape_debug()
        ));
    }
    EngineError::device(format!(
        "no GPU adapter found (tried wgpu backends: {}); install a GPU driver, or Mesa's software \
            one: apt-get install mesa-vulkan-drivers; or use --backend simd",
        tried.join(", ")
    ))
}
