//! What every GPU engine does around its kernel, written once for the chess and the corner
//! engines: the per-binding size limit, the bind group layout and pipelines, the per-dispatch
//! parameters behind a dynamic uniform offset, a table split over zeroed storage bindings, one
//! compute pass of many dispatches (each split into a 2-D grid within the device's limit) with
//! its timestamps, and the readback of the split table through one staging buffer.
//!
//! Every kernel binds the same way: binding 0 is its parameters (a uniform at a dynamic offset,
//! one slot per dispatch), bindings 1, 2, … its storage buffers, the table's bindings last.

use super::{GpuEngine, one_line};
use crate::engine::{EngineError, Timings};
use std::time::{Duration, Instant};
use wgpu::util::DeviceExt;

/// Bindings a table may be split over (each shader declares this many).
pub const VALUE_BINDINGS: u32 = 4;

/// A bind group layout and its pipelines, one per value of the shader's override constant.
pub struct GpuKernel<const K: usize> {
    pub layout: wgpu::BindGroupLayout,
    pub pipelines: [wgpu::ComputePipeline; K],
}

impl<const K: usize> GpuKernel<K> {
    /// Compiles `source` (`name`.wgsl, entry point `main`) with a uniform `P` at binding 0 and
    /// storage buffers at 1, 2, … (`read_only` of each), once for each `(label, value)` of the
    /// override constant `constant`.
    pub fn new<P>(
        device: &wgpu::Device,
        name: &str,
        source: &str,
        read_only: &[bool],
        constant: &str,
        variants: [(&str, f64); K],
    ) -> Result<GpuKernel<K>, String> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let entry = |binding, ty, min_binding_size| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: binding == 0,
                min_binding_size,
            },
            count: None,
        };
        let mut entries = vec![entry(
            0,
            wgpu::BufferBindingType::Uniform,
            wgpu::BufferSize::new(size_of::<P>() as u64),
        )];
        entries.extend(
            (read_only.iter().zip(1..)).map(|(&read_only, b)| {
                entry(b, wgpu::BufferBindingType::Storage { read_only }, None)
            }),
        );
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(name),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(name),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&format!("{name}.wgsl")),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipelines = variants.map(|(label, value)| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &[(constant, value)],
                    ..Default::default()
                },
                cache: None,
            })
        });
        match pollster::block_on(scope.pop()) {
            Some(e) => {
                Err(format!("the {name} shader does not build on this device: {}", one_line(e)))
            }
            None => Ok(GpuKernel { layout, pipelines }),
        }
    }
}

/// A table split over [`VALUE_BINDINGS`] storage buffers: `chunks` of them hold `used` bytes of
/// the table each (the last one possibly less), in `chunk_bytes` (whole u32 words); the rest are
/// never touched.
#[derive(Clone, Copy, Debug)]
pub struct Chunks {
    pub chunks: u64,
    pub chunk_bytes: u64,
    pub used: u64,
    /// Bytes of the whole table.
    pub total: u64,
}

/// A size for messages: whole MiB, or bytes when under one.
pub fn in_mib(bytes: u64) -> String {
    if bytes < 1 << 20 { format!("{bytes} bytes") } else { format!("{} MiB", bytes >> 20) }
}

/// A 2-D grid of at least `groups` workgroups with at most `max` per dimension.
pub fn grid(groups: u32, max: u32) -> (u32, u32) {
    if groups <= max { (groups, 1) } else { (max, groups.div_ceil(max)) }
}

impl GpuEngine {
    /// Most bytes one storage binding may hold here (the caller's cap included), and the
    /// limits that set it, for messages.
    pub(super) fn binding_limit(&self) -> (u64, String) {
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
        (per_binding, limited_by)
    }

    /// Runs `build` inside out-of-memory and validation error scopes: an error the device
    /// reports there fails the build of `what` with one line.
    pub(super) fn scoped<T>(
        &self,
        what: &str,
        build: impl FnOnce() -> Result<T, EngineError>,
    ) -> Result<T, EngineError> {
        let scopes = [wgpu::ErrorFilter::OutOfMemory, wgpu::ErrorFilter::Validation]
            .map(|f| self.device.push_error_scope(f));
        let built = build();
        for scope in scopes.into_iter().rev() {
            if let Some(e) = pollster::block_on(scope.pop()) {
                return Err(EngineError::device(format!(
                    "GPU build of {what} failed on {}: {}",
                    self.info.name,
                    one_line(e)
                )));
            }
        }
        built
    }

    /// Bytes between dispatches' parameters of type `P` (the dynamic offset alignment).
    pub(super) fn param_stride<P>(&self) -> u64 {
        (size_of::<P>() as u64)
            .next_multiple_of(self.device.limits().min_uniform_buffer_offset_alignment as u64)
    }

    /// A uniform buffer holding `params[i]` at `i` strides, and the stride.
    pub(super) fn params_buffer<P: bytemuck::Pod>(
        &self,
        label: &str,
        params: &[P],
    ) -> (wgpu::Buffer, u32) {
        let stride = self.param_stride::<P>() as usize;
        let mut bytes = vec![0u8; stride * params.len()];
        for (slot, p) in bytes.chunks_mut(stride).zip(params) {
            slot[..size_of::<P>()].copy_from_slice(bytemuck::bytes_of(p));
        }
        (self.buffer_init(label, &bytes, wgpu::BufferUsages::UNIFORM), stride as u32)
    }

    pub(super) fn buffer_init(
        &self,
        label: &str,
        contents: &[u8],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage,
        })
    }

    pub(super) fn buffer(&self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }

    /// The table's storage buffers, [`VALUE_BINDINGS`] of them (those past its chunks are never
    /// touched: a word or two holds them).
    pub(super) fn value_buffers(&self, table: Chunks) -> Vec<wgpu::Buffer> {
        (0..VALUE_BINDINGS as u64)
            .map(|i| {
                let size = if i < table.chunks { table.chunk_bytes } else { 8 };
                self.buffer(
                    "values",
                    size,
                    wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                )
            })
            .collect()
    }

    /// Zeroes `buffers` on the device and waits.
    pub(super) fn clear<'a>(
        &self,
        buffers: impl IntoIterator<Item = &'a wgpu::Buffer>,
    ) -> Result<(), EngineError> {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for buffer in buffers {
            encoder.clear_buffer(buffer, 0, None);
        }
        self.submit_and_wait(encoder)
    }

    /// A bind group of a kernel's `layout`: one `P` of `params` at binding 0 (the dispatch
    /// picks which by its dynamic offset), then `storage` at bindings 1, 2, ….
    pub(super) fn bind_group<P>(
        &self,
        label: &str,
        layout: &wgpu::BindGroupLayout,
        params: &wgpu::Buffer,
        storage: &[&wgpu::Buffer],
    ) -> wgpu::BindGroup {
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: params,
                offset: 0,
                size: wgpu::BufferSize::new(size_of::<P>() as u64),
            }),
        }];
        entries.extend(
            storage.iter().zip(1..).map(|(b, binding)| wgpu::BindGroupEntry {
                binding,
                resource: b.as_entire_binding(),
            }),
        );
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout,
            entries: &entries,
        })
    }

    /// Records one dispatch of `groups[i]` workgroups (parameters at `i` strides) for each entry
    /// of `groups` into one compute pass, submits it once and waits; nothing returns to the CPU
    /// in between. Records "kernel (wall)" and, where the device has timestamps, "kernel (gpu
    /// timestamps)".
    pub(super) fn run_pass(
        &self,
        label: &str,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
        stride: u32,
        groups: impl IntoIterator<Item = u32>,
        timings: &mut Timings,
    ) -> Result<(), EngineError> {
        let start = Instant::now();
        let stamps = self.timestamps.then(|| self.stamp_buffers());
        let max_groups = self.device.limits().max_compute_workgroups_per_dimension;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let timestamp_writes =
                stamps.as_ref().map(|(set, ..)| wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(label),
                timestamp_writes,
            });
            pass.set_pipeline(pipeline);
            for (i, groups) in groups.into_iter().enumerate() {
                pass.set_bind_group(0, bind_group, &[i as u32 * stride]);
                let (x, y) = grid(groups, max_groups);
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
        Ok(())
    }

    /// A query set for the pass's start and end, the buffer it resolves into and a readable copy.
    fn stamp_buffers(&self) -> (wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer) {
        let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("kernel"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolved = self.buffer(
            "timestamps",
            16,
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        );
        let readable = self.buffer(
            "timestamps read",
            16,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        (set, resolved, readable)
    }

    /// The kernel's time between the pass's two timestamps.
    fn read_stamps(&self, readable: &wgpu::Buffer) -> Result<Duration, EngineError> {
        let bytes = self.map_read(readable)?;
        let ticks: [u64; 2] = bytemuck::pod_read_unaligned(&bytes);
        let ns =
            ticks[1].saturating_sub(ticks[0]) as f64 * self.queue.get_timestamp_period() as f64;
        Ok(Duration::from_nanos(ns as u64))
    }

    /// The table's bytes from its storage buffers, one binding at a time through one staging
    /// buffer: the `used` bytes of each, concatenated, up to `total`.
    pub(super) fn read_table(
        &self,
        values: &[wgpu::Buffer],
        table: Chunks,
    ) -> Result<Vec<u8>, EngineError> {
        let staging = self.buffer(
            "values read",
            table.chunk_bytes,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let total = table.total as usize;
        let mut bytes = Vec::with_capacity(total);
        for buffer in &values[..table.chunks as usize] {
            let mut encoder = self.device.create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, table.chunk_bytes);
            self.submit_and_wait(encoder)?;
            let chunk = self.map_read(&staging)?;
            bytes.extend_from_slice(&chunk[..(table.used as usize).min(total - bytes.len())]);
        }
        Ok(bytes)
    }

    pub(super) fn submit_and_wait(&self, encoder: wgpu::CommandEncoder) -> Result<(), EngineError> {
        let index = self.queue.submit([encoder.finish()]);
        self.wait(Some(index))
    }

    fn wait(&self, submission_index: Option<wgpu::SubmissionIndex>) -> Result<(), EngineError> {
        self.device
            .poll(wgpu::PollType::Wait { submission_index, timeout: None })
            .map(drop)
            .map_err(|e| {
                EngineError::device(format!("waiting for the GPU ({}): {e}", self.info.name))
            })
    }

    /// A copy of a whole MAP_READ buffer's contents.
    fn map_read(&self, buffer: &wgpu::Buffer) -> Result<Vec<u8>, EngineError> {
        let (sender, receiver) = std::sync::mpsc::channel();
        buffer.map_async(wgpu::MapMode::Read, .., move |result| drop(sender.send(result)));
        self.wait(None)?;
        let mapped =
            receiver.recv().map_err(|e| EngineError::device(format!("GPU readback: {e}")))?;
        mapped.map_err(|e| EngineError::device(format!("GPU readback: {e}")))?;
        let bytes = buffer
            .get_mapped_range(..)
            .map_err(|e| EngineError::device(format!("GPU readback: {e}")))?
            .to_vec();
        buffer.unmap();
        Ok(bytes)
    }
}
