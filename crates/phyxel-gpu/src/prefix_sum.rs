//! The exclusive prefix sum of the counting sorts (`shaders/prefix_sum.wgsl`), planned once for a
//! buffer and a length: every dispatch with its bind group and workgroup count, so that it can be
//! encoded directly (a one-off build) or behind a gate (the reference update inside a step).

use crate::passes::{bind, storage_buffer};
use wgpu::util::DeviceExt;

/// Values one `scan_blocks` workgroup scans.
const SCAN_BLOCK: u32 = 256;

/// One dispatch of a plan (once per bind group: a pass over per-edge buffers has one per edge
/// window, `EdgeWindows::bind`).
#[derive(Clone)]
pub(crate) struct Dispatch {
    pub pipeline: wgpu::ComputePipeline,
    pub bindings: Vec<wgpu::BindGroup>,
    pub workgroups: u32,
}

/// The dispatches that scan `values[..len]` in place: the blocks, then (for more than one block)
/// the blocks' totals, recursively, and the totals added back.
pub(crate) fn prefix_sum(device: &wgpu::Device, values: &wgpu::Buffer, len: u32) -> Vec<Dispatch> {
    let source = include_str!("../../../shaders/prefix_sum.wgsl");
    let scan_blocks = crate::passes::pipeline(device, &[source], "scan_blocks");
    let add_block_offsets = crate::passes::pipeline(device, &[source], "add_block_offsets");
    let mut plan = Vec::new();
    plan_level(
        device,
        &scan_blocks,
        &add_block_offsets,
        values,
        len,
        &mut plan,
    );
    plan
}

fn plan_level(
    device: &wgpu::Device,
    scan_blocks: &wgpu::ComputePipeline,
    add_block_offsets: &wgpu::ComputePipeline,
    values: &wgpu::Buffer,
    len: u32,
    plan: &mut Vec<Dispatch>,
) {
    let blocks = len.div_ceil(SCAN_BLOCK).max(1);
    let block_sums = storage_buffer(device, "block sums", &vec![0u8; blocks as usize * 4]);
    let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("scan parameters"),
        contents: bytemuck::cast_slice(&[len, 0, 0, 0]),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let buffers = [(0, &params), (1, values), (2, &block_sums)];
    plan.push(Dispatch {
        pipeline: scan_blocks.clone(),
        bindings: vec![bind(device, scan_blocks, &buffers)],
        workgroups: blocks,
    });
    if blocks > 1 {
        plan_level(
            device,
            scan_blocks,
            add_block_offsets,
            &block_sums,
            blocks,
            plan,
        );
        plan.push(Dispatch {
            pipeline: add_block_offsets.clone(),
            bindings: vec![bind(device, add_block_offsets, &buffers)],
            workgroups: blocks,
        });
    }
}

/// Encode `plan` directly into `encoder`.
pub(crate) fn encode(encoder: &mut wgpu::CommandEncoder, plan: &[Dispatch]) {
    for step in plan {
        for bindings in &step.bindings {
            crate::passes::dispatch(encoder, &step.pipeline, bindings, step.workgroups);
        }
    }
}
