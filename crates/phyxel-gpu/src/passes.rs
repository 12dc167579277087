//! Building and running compute passes: buffers, pipelines from WGSL sources (the prelude of
//! [`crate::wgsl`] first, then the files concatenated in order), bind groups by binding number
//! (automatic layouts hold exactly the bindings an entry point uses), and [`Pass`] — one dispatch of
//! one entry point, once per bind group — which every stage of the solver is made of.

use crate::context::{GpuContext, GpuError};
use crate::readback::read_buffer;
use bytemuck::Pod;
use std::future::Future;
use wgpu::util::DeviceExt;

/// A storage buffer holding `bytes` (copyable both ways, for uploads and read-backs). Zero-sized
/// bindings are invalid, so an empty list gets one zeroed element.
pub fn storage_buffer(device: &wgpu::Device, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    let contents = if bytes.is_empty() {
        &[0u8; 16][..]
    } else {
        bytes
    };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
    })
}

/// A storage buffer of `u32` values.
pub fn u32_buffer(device: &wgpu::Device, label: &str, values: &[u32]) -> wgpu::Buffer {
    storage_buffer(device, label, bytemuck::cast_slice(values))
}

/// A zeroed storage buffer of `bytes` bytes.
pub fn zeroed(device: &wgpu::Device, label: &str, bytes: usize) -> wgpu::Buffer {
    storage_buffer(device, label, &vec![0u8; bytes])
}

/// A uniform buffer holding `value` (writable: `queue.write_buffer`).
pub fn uniform<T: Pod>(device: &wgpu::Device, label: &str, value: &T) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::bytes_of(value),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}

/// A compute pipeline for `entry` from the prelude and the WGSL `sources` concatenated in order, with
/// its own (automatic) layout.
pub fn pipeline(device: &wgpu::Device, sources: &[&str], entry: &str) -> wgpu::ComputePipeline {
    let mut source = crate::wgsl::prelude();
    for file in sources {
        source += "\n";
        source += file;
    }
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(entry),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A bind group for `pipeline` from (binding, resource) entries.
pub fn bind_entries(
    device: &wgpu::Device,
    pipeline: &wgpu::ComputePipeline,
    entries: &[wgpu::BindGroupEntry],
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries,
    })
}

/// A bind group for `pipeline` from (binding, buffer) pairs, each buffer bound whole.
pub fn bind(
    device: &wgpu::Device,
    pipeline: &wgpu::ComputePipeline,
    buffers: &[(u32, &wgpu::Buffer)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .map(|(binding, buffer)| wgpu::BindGroupEntry {
            binding: *binding,
            resource: buffer.as_entire_binding(),
        })
        .collect();
    bind_entries(device, pipeline, &entries)
}

/// The bindings `a` followed by `b`.
pub fn joined<'a>(
    a: &[(u32, &'a wgpu::Buffer)],
    b: &[(u32, &'a wgpu::Buffer)],
) -> Vec<(u32, &'a wgpu::Buffer)> {
    [a, b].concat()
}

/// One compute pass: a WGSL entry point's pipeline, dispatched with the same workgroup count once per
/// bind group (a pass over the per-edge buffers has one per edge window: `EdgeWindows::pass`).
#[derive(Clone)]
pub struct Pass {
    /// The WGSL entry point.
    pub name: String,
    pipeline: wgpu::ComputePipeline,
    bindings: Vec<wgpu::BindGroup>,
    /// Workgroups per dispatch.
    pub workgroups: u32,
}

impl Pass {
    pub fn new(
        name: &str,
        pipeline: wgpu::ComputePipeline,
        bindings: Vec<wgpu::BindGroup>,
        workgroups: u32,
    ) -> Self {
        Self {
            name: name.to_string(),
            pipeline,
            bindings,
            workgroups,
        }
    }

    /// The entry point `entry` of `sources`, its `buffers` bound whole (a pass that reads no per-edge
    /// buffer).
    pub fn whole(
        device: &wgpu::Device,
        sources: &[&str],
        entry: &str,
        buffers: &[(u32, &wgpu::Buffer)],
        workgroups: u32,
    ) -> Self {
        let pipeline = pipeline(device, sources, entry);
        let group = bind(device, &pipeline, buffers);
        Self::new(entry, pipeline, vec![group], workgroups)
    }

    /// Dispatch into `compute`.
    pub fn dispatch(&self, compute: &mut wgpu::ComputePass) {
        compute.set_pipeline(&self.pipeline);
        for bindings in &self.bindings {
            compute.set_bind_group(0, bindings, &[]);
            compute.dispatch_workgroups(self.workgroups, 1, 1);
        }
    }

    /// Dispatch into `compute` with the workgroup count the device wrote at `offset` of `arguments`
    /// (the reference update's gates).
    pub fn dispatch_indirect(
        &self,
        compute: &mut wgpu::ComputePass,
        arguments: &wgpu::Buffer,
        offset: u64,
    ) {
        compute.set_pipeline(&self.pipeline);
        for bindings in &self.bindings {
            compute.set_bind_group(0, bindings, &[]);
            compute.dispatch_workgroups_indirect(arguments, offset);
        }
    }
}

/// Encode `passes` in order into `encoder`, in one compute pass.
pub fn encode(encoder: &mut wgpu::CommandEncoder, passes: &[Pass]) {
    let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
    for pass in passes {
        pass.dispatch(&mut compute);
    }
}

/// (Entry point, GPU milliseconds) of each pass of a profiled step, in the step's order.
pub type PassTimes = Result<Vec<(String, f64)>, GpuError>;

/// Run `passes` once, each in a compute pass of its own timed by timestamp queries, in one
/// submission labelled `label` (the device must write timestamps: `GpuContext::timestamps`; the
/// caller writes its parameters before). Resolves to each pass's time.
pub fn profile_passes(
    gpu: &GpuContext,
    passes: &[&Pass],
    label: &str,
) -> impl Future<Output = PassTimes> + 'static {
    let names: Vec<String> = passes.iter().map(|p| p.name.clone()).collect();
    let count = 2 * passes.len() as u32;
    let queries = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some(label),
        ty: wgpu::QueryType::Timestamp,
        count,
    });
    let resolved = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: u64::from(count) * 8,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
    for (k, pass) in passes.iter().enumerate() {
        let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&pass.name),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &queries,
                beginning_of_pass_write_index: Some(2 * k as u32),
                end_of_pass_write_index: Some(2 * k as u32 + 1),
            }),
        });
        pass.dispatch(&mut compute);
    }
    encoder.resolve_query_set(&queries, 0..count, &resolved, 0);
    gpu.queue.submit([encoder.finish()]);
    let nanoseconds_per_tick = f64::from(gpu.queue.get_timestamp_period());
    let (device, queue) = (gpu.device.clone(), gpu.queue.clone());
    async move {
        let raw = read_buffer(&device, &queue, &resolved, u64::from(count) * 8)
            .await
            .map_err(GpuError)?;
        let ticks = bytemuck::pod_collect_to_vec::<u8, u64>(&raw);
        Ok(names
            .into_iter()
            .zip(ticks.chunks(2))
            .map(|(name, t)| {
                let elapsed = t[1].saturating_sub(t[0]) as f64 * nanoseconds_per_tick;
                (name, elapsed * 1e-6)
            })
            .collect())
    }
}
