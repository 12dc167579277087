//! The exclusive prefix sum of the counting sorts (`shaders/prefix_sum.wgsl`), planned once for a
//! buffer and a length: the passes that scan it, so that it can be encoded directly (a one-off build)
//! or behind a gate (the reference update inside a step).

use crate::layout::Count;
use crate::passes::{uniform, zeroed, Pass};
use crate::wgsl::{source, workgroups, SCAN_BLOCK};

/// The passes that scan `values[..len]` in place: the blocks, then (for more than one block) the
/// blocks' totals, recursively, and the totals added back.
pub fn prefix_sum(device: &wgpu::Device, values: &wgpu::Buffer, len: u32) -> Vec<Pass> {
    let mut plan = Vec::new();
    plan_level(device, values, len, &mut plan);
    plan
}

fn plan_level(device: &wgpu::Device, values: &wgpu::Buffer, len: u32, plan: &mut Vec<Pass>) {
    let blocks = workgroups(len, SCAN_BLOCK);
    let block_sums = zeroed(device, "block sums", blocks as usize * 4);
    let count = uniform(device, "scan parameters", &Count::of(len));
    let buffers = [(0, &count), (1, values), (2, &block_sums)];
    let pass = |entry| Pass::whole(device, &[source::PREFIX_SUM], entry, &buffers, blocks);
    plan.push(pass("scan_blocks"));
    if blocks > 1 {
        plan_level(device, &block_sums, blocks, plan);
        plan.push(pass("add_block_offsets"));
    }
}
