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
//! deciding one bit per step from the top. See [`schedule`].
//!
//! **Packing.** Values stay packed 5 bits a row on the device, LSB first, exactly the `.sgt`
//! payload: the readback is the table's bytes. A buffer starts zeroed, rows of one layer own
//! disjoint bits, and the shader ORs each value in atomically (a value can straddle two u32
//! words). Tables larger than one storage binding are split over up to four bindings of a power
//! of two of rows each; a width that does not fit is refused before any work starts.

mod corner;
mod schedule;

use super::{EngineError, Timings};
use crate::progress::Progress;
use crate::table::Packed;
use schedule::{LayerParams, Split, VALUE_BINDINGS, VALUE_BITS};
use std::time::{Duration, Instant};
use wgpu::util::DeviceExt;

const SHADER: &str = include_str!("../../shaders/chess.wgsl");

/// Threads per workgroup; must match `WORKGROUP` in the shader.
const WORKGROUP: u32 = 64;

/// An opened GPU: device, queue and the compiled chess pipeline, reused for every table.
pub struct GpuEngine {
    info: wgpu::AdapterInfo,
    device: wgpu::Device,
    queue: wgpu::Queue,
    layout: wgpu::BindGroupLayout,
    /// The chess pipeline for tables in one binding, and for tables split over several.
    pipelines: [wgpu::ComputePipeline; 2],
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
    let options = wgpu::RequestAdapterOptions { power_preference: wgpu::PowerPreference::HighPerformance, ..Default::default() };
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
            required_features: if timestamps { wgpu::Features::TIMESTAMP_QUERY } else { wgpu::Features::empty() },
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| EngineError(format!("could not open GPU device {}: {}", info.name, one_line(e))))?;
        // Errors are caught in error scopes around each build; one that escapes must not panic.
        device.on_uncaptured_error(std::sync::Arc::new(|e| eprintln!("sgtab: GPU error: {e}")));
        let (layout, pipelines) = chess_pipelines(&device)?;
        Ok(GpuEngine { info, device, queue, layout, pipelines, binding_cap: None, timestamps, corner: Default::default() })
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

    /// Adapter name, backend and device type, e.g. "llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)".
    pub fn describe(&self) -> String {
        describe(&self.info)
    }

    /// The value of every row of `width` cells, packed 5 bits a value. Records "upload",
    /// "kernel (wall)", "kernel (gpu timestamps)" where the device has them, and "readback".
    pub fn chess(&self, width: u32, progress: &Progress, timings: &mut Timings) -> Result<Packed, EngineError> {
        let split = self.split(width)?;
        let scopes =
            [wgpu::ErrorFilter::OutOfMemory, wgpu::ErrorFilter::Validation].map(|f| self.device.push_error_scope(f));
        let built = self.build(width, split, progress, timings);
        for scope in scopes.into_iter().rev() {
            if let Some(e) = pollster::block_on(scope.pop()) {
                return Err(EngineError(format!(
                    "GPU build of width {width} failed on {}: {}",
                    self.info.name,
                    one_line(e)
                )));
            }
        }
        let bytes = built?;
        Packed::from_payload(VALUE_BITS as u32, 1 << width, bytes).map_err(|e| EngineError(format!("GPU table: {e}")))
    }

    /// How a table of `width` cells is spread over bindings within the device's limits.
    fn split(&self, width: u32) -> Result<Split, EngineError> {
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
        let job = self.upload(width, split)?;
        timings.add("upload", start.elapsed());

        let start = Instant::now();
        let stamps = self.run_layers(&job)?;
        timings.add("kernel (wall)", start.elapsed());
        if let Some(stamps) = stamps {
            timings.add("kernel (gpu timestamps)", self.read_stamps(&stamps)?);
        }
        progress.tick(1, 2);

        let start = Instant::now();
        let bytes = self.read_values(&job, width);
        timings.add("readback", start.elapsed());
        progress.tick(2, 2);
        progress.finish();
        bytes
    }

    /// Buffers for one table: zeroed values, the count table and every layer's parameters.
    fn upload(&self, width: u32, split: Split) -> Result<Job, EngineError> {
        let counts = schedule::count_table(width);
        let layers = schedule::layers(width, split.chunk_shift, &counts);
        let stride = size_of::<LayerParams>()
            .next_multiple_of(self.device.limits().min_uniform_buffer_offset_alignment as usize);
        let mut params = vec![0u8; stride * layers.len()];
        for (slot, layer) in params.chunks_mut(stride).zip(&layers) {
            slot[..size_of::<LayerParams>()].copy_from_slice(bytemuck::bytes_of(layer));
        }
        let init = |label, contents: &[u8], usage| {
            self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents, usage })
        };
        let params = init("layer params", &params, wgpu::BufferUsages::UNIFORM);
        let counts = init("row counts", bytemuck::cast_slice(&counts), wgpu::BufferUsages::STORAGE);

        let values: Vec<wgpu::Buffer> = (0..VALUE_BINDINGS)
            .map(|i| {
                // Bindings past the table's chunks are never touched: a word or two holds them.
                let size = if i < split.chunks { split.chunk_bytes() } else { 8 };
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("values"),
                    size,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })
            .collect();
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for buffer in &values {
            encoder.clear_buffer(buffer, 0, None);
        }
        self.submit_and_wait(encoder)?;

        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &params,
                    offset: 0,
                    size: wgpu::BufferSize::new(size_of::<LayerParams>() as u64),
                }),
            },
            wgpu::BindGroupEntry { binding: 1, resource: counts.as_entire_binding() },
        ];
        entries.extend(
            values
                .iter()
                .zip(2..)
                .map(|(b, binding)| wgpu::BindGroupEntry { binding, resource: b.as_entire_binding() }),
        );
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("chess"),
            layout: &self.layout,
            entries: &entries,
        });
        Ok(Job { layers, stride: stride as u32, split, values, bind_group })
    }

    /// Records every layer into one compute pass, submits it once and waits. Returns the
    /// buffer the pass's start and end timestamps were resolved into, if the device has them.
    fn run_layers(&self, job: &Job) -> Result<Option<wgpu::Buffer>, EngineError> {
        let stamps = self.timestamps.then(|| {
            let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("kernel"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolved =
                self.buffer("timestamps", 16, wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
            let readable =
                self.buffer("timestamps read", 16, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
            (set, resolved, readable)
        });
        let max_groups = self.device.limits().max_compute_workgroups_per_dimension;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let timestamp_writes = stamps.as_ref().map(|(set, ..)| wgpu::ComputePassTimestampWrites {
                query_set: set,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            });
            let mut pass =
                encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("layers"), timestamp_writes });
            pass.set_pipeline(&self.pipelines[(job.split.chunks > 1) as usize]);
            for (i, layer) in job.layers.iter().enumerate() {
                pass.set_bind_group(0, &job.bind_group, &[i as u32 * job.stride]);
                let (x, y) = grid(layer.members.div_ceil(WORKGROUP), max_groups);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        if let Some((set, resolved, readable)) = &stamps {
            encoder.resolve_query_set(set, 0..2, resolved, 0);
            encoder.copy_buffer_to_buffer(resolved, 0, readable, 0, 16);
        }
        self.submit_and_wait(encoder)?;
        Ok(stamps.map(|(.., readable)| readable))
    }

    /// The kernel's time between the pass's two timestamps.
    fn read_stamps(&self, readable: &wgpu::Buffer) -> Result<Duration, EngineError> {
        let bytes = self.map_read(readable)?;
        let ticks: [u64; 2] = bytemuck::pod_read_unaligned(&bytes);
        let ns = ticks[1].saturating_sub(ticks[0]) as f64 * self.queue.get_timestamp_period() as f64;
        Ok(Duration::from_nanos(ns as u64))
    }

    /// The packed table's bytes, one binding at a time through one staging buffer.
    fn read_values(&self, job: &Job, width: u32) -> Result<Vec<u8>, EngineError> {
        let chunk = job.split.chunk_bytes();
        let staging = self.buffer("values read", chunk, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        let mut bytes = Vec::with_capacity((chunk * job.split.chunks as u64) as usize);
        for values in &job.values[..job.split.chunks as usize] {
            let mut encoder = self.device.create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(values, 0, &staging, 0, chunk);
            self.submit_and_wait(encoder)?;
            bytes.extend_from_slice(&self.map_read(&staging)?);
        }
        bytes.truncate(((1u64 << width) * VALUE_BITS).div_ceil(8) as usize);
        Ok(bytes)
    }

    fn buffer(&self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }

    fn submit_and_wait(&self, encoder: wgpu::CommandEncoder) -> Result<(), EngineError> {
        let index = self.queue.submit([encoder.finish()]);
        self.wait(Some(index))
    }

    fn wait(&self, submission_index: Option<wgpu::SubmissionIndex>) -> Result<(), EngineError> {
        self.device
            .poll(wgpu::PollType::Wait { submission_index, timeout: None })
            .map(drop)
            .map_err(|e| EngineError(format!("waiting for the GPU ({}): {e}", self.info.name)))
    }

    /// A copy of a whole MAP_READ buffer's contents.
    fn map_read(&self, buffer: &wgpu::Buffer) -> Result<Vec<u8>, EngineError> {
        let (sender, receiver) = std::sync::mpsc::channel();
        buffer.map_async(wgpu::MapMode::Read, .., move |result| drop(sender.send(result)));
        self.wait(None)?;
        let mapped = receiver.recv().map_err(|e| EngineError(format!("GPU readback: {e}")))?;
        mapped.map_err(|e| EngineError(format!("GPU readback: {e}")))?;
        let bytes = buffer.get_mapped_range(..).map_err(|e| EngineError(format!("GPU readback: {e}")))?.to_vec();
        buffer.unmap();
        Ok(bytes)
    }
}

/// One table's device resources.
struct Job {
    layers: Vec<LayerParams>,
    /// Bytes between layers' parameters (the dynamic offset alignment).
    stride: u32,
    split: Split,
    values: Vec<wgpu::Buffer>,
    bind_group: wgpu::BindGroup,
}

/// A 2-D grid of at least `groups` workgroups with at most `max` per dimension.
fn grid(groups: u32, max: u32) -> (u32, u32) {
    if groups <= max { (groups, 1) } else { (max, groups.div_ceil(max)) }
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
    let tried: Vec<&str> = names.iter().filter(|(b, _)| tried.contains(*b)).map(|&(_, name)| name).collect();
    EngineError(format!(
        "no GPU adapter found (tried wgpu backends: {}); install a GPU driver, or Mesa's software one: \
         apt-get install mesa-vulkan-drivers; or use --backend simd",
        if tried.is_empty() { "none".to_string() } else { tried.join(", ") }
    ))
}

/// The bind group layout of `shaders/chess.wgsl` and its pipelines with `SPLIT` false and true.
fn chess_pipelines(device: &wgpu::Device) -> Result<(wgpu::BindGroupLayout, [wgpu::ComputePipeline; 2]), EngineError> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let mut entries = vec![
        wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: wgpu::BufferSize::new(size_of::<LayerParams>() as u64),
            },
            count: None,
        },
        storage(1, true),
    ];
    entries.extend((2..2 + VALUE_BINDINGS).map(|binding| storage(binding, false)));
    let layout =
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some("chess"), entries: &entries });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("chess"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("chess.wgsl"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipelines = [false, true].map(|split| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("chess"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &[("SPLIT", split as u8 as f64)],
                ..Default::default()
            },
            cache: None,
        })
    });
    match pollster::block_on(scope.pop()) {
        Some(e) => Err(EngineError(format!("the chess shader does not build on this device: {}", one_line(e)))),
        None => Ok((layout, pipelines)),
    }
}
