//! Pass 1 on the GPU: the hash grid and the neighbour lists with their reverse lists, built by
//! counting sorts (`shaders/hash_grid.wgsl`, `neighbours.wgsl`, `reverse_neighbours.wgsl`,
//! `prefix_sum.wgsl`) — the twin of `phyxel::meshless::neighbours`.

use crate::context::{GpuContext, GpuError};
use crate::edge_windows::{EdgeWindowPlan, EdgeWindows};
use crate::passes::{bind, dispatch, pipeline, storage_buffer};
use crate::prefix_sum::{self, prefix_sum};
use crate::readback::read_buffer;
use glam::DVec3;
use phyxel::meshless::neighbours::Neighbourhoods;
use wgpu::util::DeviceExt;

/// A storage buffer of `u32` values.
pub(crate) fn u32_buffer(device: &wgpu::Device, label: &str, values: &[u32]) -> wgpu::Buffer {
    storage_buffer(device, label, bytemuck::cast_slice(values))
}

/// A small uniform buffer of `u32` values.
pub(crate) fn uniform(device: &wgpu::Device, values: [u32; 4]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("pass parameters"),
        contents: bytemuck::cast_slice(&values),
        usage: wgpu::BufferUsages::UNIFORM,
    })
}

/// The hash-grid parameters of `shaders/hash.wgsl` (`GridParams`): phyxels, table size, `extra`
/// (the reference update's edge capacity), cell edge and `threshold` (its strain threshold).
pub(crate) fn grid_params(
    device: &wgpu::Device,
    phyxels: u32,
    table: u32,
    extra: u32,
    cell: f32,
    threshold: f32,
) -> wgpu::Buffer {
    let mut bytes = bytemuck::cast_slice::<u32, u8>(&[phyxels, table, extra, 0]).to_vec();
    bytes.extend_from_slice(bytemuck::cast_slice(&[cell, threshold, 0.0, 0.0]));
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("grid"),
        contents: &bytes,
        usage: wgpu::BufferUsages::UNIFORM,
    })
}

/// Buckets of the hash table for `phyxels` phyxels (odd, about two per phyxel).
pub(crate) fn hash_table_size(phyxels: u32) -> u32 {
    (2 * phyxels).max(1) | 1
}

/// Neighbour lists of `points` with support radii `radii` (j ∈ N(i) ⇔ j ≠ i, |x_j − x_i| < h_i), built
/// on the GPU and read back: equal to `Neighbourhoods::build` on the same input.
pub async fn build_neighbourhoods(
    gpu: &GpuContext,
    points: &[DVec3],
    radii: &[f64],
) -> Result<Neighbourhoods, GpuError> {
    assert_eq!(points.len(), radii.len());
    let device = &gpu.device;
    let n = points.len() as u32;
    let cell = radii.iter().cloned().fold(0.0, f64::max);
    if n == 0 || cell <= 0.0 {
        return Ok(Neighbourhoods::build(points, radii));
    }
    let table = hash_table_size(n);
    let groups = n.div_ceil(64);
    let hash = include_str!("../../../shaders/hash.wgsl");
    let grid_params = grid_params(device, n, table, 0, cell as f32, 0.0);
    let packed: Vec<[f32; 4]> = points
        .iter()
        .zip(radii)
        .map(|(p, h)| [p.x as f32, p.y as f32, p.z as f32, *h as f32])
        .collect();
    let points_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("points"),
        contents: bytemuck::cast_slice(&packed),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let bucket_of = u32_buffer(device, "bucket of", &vec![0; n as usize]);
    let bucket_fill = u32_buffer(device, "bucket fill", &vec![0; table as usize + 1]);
    let bucket_start = u32_buffer(device, "bucket start", &vec![0; table as usize + 1]);
    let sorted = u32_buffer(device, "sorted", &vec![0; n as usize]);
    let start = u32_buffer(device, "start", &vec![0; n as usize + 1]);

    // Grid: count, prefix sum, keep the starts, scatter. Then count neighbours and sum them up.
    let grid_source = include_str!("../../../shaders/hash_grid.wgsl");
    let hash_cells = pipeline(device, &[hash, grid_source], "hash_cells");
    let scatter_cells = pipeline(device, &[hash, grid_source], "scatter_cells");
    let hood_source = include_str!("../../../shaders/neighbours.wgsl");
    let window = include_str!("../../../shaders/edge_window.wgsl");
    let count_neighbours = pipeline(device, &[window, hash, hood_source], "count_neighbours");
    let write_neighbours = pipeline(device, &[window, hash, hood_source], "write_neighbours");
    let counting_cells = [
        (0, &grid_params),
        (1, &points_buffer),
        (2, &bucket_of),
        (3, &bucket_fill),
    ];
    let mut encoder = device.create_command_encoder(&Default::default());
    dispatch(
        &mut encoder,
        &hash_cells,
        &bind(device, &hash_cells, &counting_cells),
        groups,
    );
    prefix_sum::encode(&mut encoder, &prefix_sum(device, &bucket_fill, table + 1));
    encoder.copy_buffer_to_buffer(&bucket_fill, 0, &bucket_start, 0, u64::from(table + 1) * 4);
    let scattering_cells = [
        (0, &grid_params),
        (2, &bucket_of),
        (3, &bucket_fill),
        (4, &sorted),
    ];
    dispatch(
        &mut encoder,
        &scatter_cells,
        &bind(device, &scatter_cells, &scattering_cells),
        groups,
    );
    // Counting does not write rows, but shares the search with write_neighbours: a placeholder.
    let no_rows = u32_buffer(device, "no rows", &[]);
    let count_group = bind(
        device,
        &count_neighbours,
        &[
            (0, &grid_params),
            (1, &points_buffer),
            (2, &bucket_start),
            (3, &sorted),
            (4, &start),
            (5, &no_rows),
        ],
    );
    dispatch(&mut encoder, &count_neighbours, &count_group, groups);
    prefix_sum::encode(&mut encoder, &prefix_sum(device, &start, n + 1));
    gpu.queue.submit([encoder.finish()]);
    let starts = read_u32(gpu, &start, n as usize + 1).await?;
    gpu.check()?;
    let edges = starts[n as usize];

    // Rows: write them sorted; then the reverse lists by a counting sort of the edges on their target.
    // Both in edge windows where they exceed one binding (overlapping by n edges: no row or reverse
    // list is longer).
    let plan = EdgeWindowPlan::new(
        edges,
        gpu.limits.max_storage_buffer_binding_size,
        gpu.limits.min_storage_buffer_offset_alignment,
        n,
    )
    .map_err(GpuError)?;
    let windows = EdgeWindows::new(device, plan, &[], &[]);
    let (neighbour, reverse) = (&windows.neighbour, &windows.reverse);
    let reverse_fill = u32_buffer(device, "reverse fill", &vec![0; n as usize + 1]);
    let reverse_start = u32_buffer(device, "reverse start", &vec![0; n as usize + 1]);
    let edge_params = uniform(device, [n, 0, 0, 0]);
    let reverse_source = include_str!("../../../shaders/reverse_neighbours.wgsl");
    let reverse_pass = |name: &str| pipeline(device, &[window, reverse_source], name);
    let (count_reverse, scatter_reverse) = (
        reverse_pass("count_reverse"),
        reverse_pass("scatter_reverse"),
    );
    let sort_reverse = reverse_pass("sort_reverse");
    let mut encoder = device.create_command_encoder(&Default::default());
    let windowed = |encoder: &mut wgpu::CommandEncoder,
                    pipeline: &wgpu::ComputePipeline,
                    buffers: &[(u32, &wgpu::Buffer)]| {
        for group in windows.bind(device, pipeline, buffers) {
            dispatch(encoder, pipeline, &group, groups);
        }
    };
    let writing = [
        (0, &grid_params),
        (1, &points_buffer),
        (2, &bucket_start),
        (3, &sorted),
        (4, &start),
        (5, neighbour),
    ];
    windowed(&mut encoder, &write_neighbours, &writing);
    let counting = [
        (0, &edge_params),
        (1, neighbour),
        (2, &reverse_fill),
        (5, &start),
    ];
    windowed(&mut encoder, &count_reverse, &counting);
    prefix_sum::encode(&mut encoder, &prefix_sum(device, &reverse_fill, n + 1));
    encoder.copy_buffer_to_buffer(&reverse_fill, 0, &reverse_start, 0, u64::from(n + 1) * 4);
    let scattering = [
        (0, &edge_params),
        (1, neighbour),
        (2, &reverse_fill),
        (3, reverse),
        (4, &reverse_start),
        (5, &start),
    ];
    windowed(&mut encoder, &scatter_reverse, &scattering);
    let sorting = [(0, &edge_params), (3, reverse), (4, &reverse_start)];
    windowed(&mut encoder, &sort_reverse, &sorting);
    gpu.queue.submit([encoder.finish()]);
    let hoods = from_reverse_owners(
        starts,
        read_u32(gpu, neighbour, edges as usize).await?,
        read_u32(gpu, &reverse_start, n as usize + 1).await?,
        &read_u32(gpu, reverse, edges as usize).await?,
    );
    gpu.check()?;
    Ok(hoods)
}

/// The CPU's form of neighbourhoods whose reverse lists name owners (as the device holds them): the
/// edge (i → k) of each owner i is found in i's sorted row, and each edge's owner is its row's phyxel.
/// An owner whose row lacks k (a corrupt list) gives edge `u32::MAX`, which no comparison with the
/// CPU's lists passes.
pub(crate) fn from_reverse_owners(
    start: Vec<u32>,
    neighbour: Vec<u32>,
    reverse_start: Vec<u32>,
    reverse_owners: &[u32],
) -> Neighbourhoods {
    let n = start.len().saturating_sub(1);
    let row = |i: usize| start[i] as usize..start[i + 1] as usize;
    let mut owner = vec![0; neighbour.len()];
    for i in 0..n {
        owner[row(i)].fill(i as u32);
    }
    let mut reverse = Vec::with_capacity(reverse_owners.len());
    for k in 0..n {
        for &i in &reverse_owners[reverse_start[k] as usize..reverse_start[k + 1] as usize] {
            let i = i as usize;
            let edge = if i < n {
                neighbour[row(i)]
                    .binary_search(&(k as u32))
                    .map_or(u32::MAX, |slot| start[i] + slot as u32)
            } else {
                u32::MAX
            };
            reverse.push(edge);
        }
    }
    Neighbourhoods {
        start,
        neighbour,
        reverse_start,
        reverse,
        owner,
    }
}

async fn read_u32(
    gpu: &GpuContext,
    buffer: &wgpu::Buffer,
    len: usize,
) -> Result<Vec<u32>, GpuError> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let bytes = read_buffer(&gpu.device, &gpu.queue, buffer, len as u64 * 4)
        .await
        .map_err(GpuError)?;
    Ok(bytemuck::cast_slice(&bytes).to_vec())
}
