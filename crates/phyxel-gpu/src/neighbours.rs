//! Pass 1 on the GPU: the hash grid and the neighbour lists with their reverse lists, built by
//! counting sorts (`shaders/hash_grid.wgsl`, `neighbours.wgsl`, `reverse_neighbours.wgsl`,
//! `prefix_sum.wgsl`) — the twin of `phyxel::meshless::neighbours`.

use crate::context::{GpuContext, GpuError};
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
    let count_neighbours = pipeline(device, &[hash, hood_source], "count_neighbours");
    let write_neighbours = pipeline(device, &[hash, hood_source], "write_neighbours");
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
    // Counting does not write rows, but shares the search with write_neighbours: placeholders.
    // (Two of them: WebGPU forbids binding one buffer twice as writable storage.)
    let no_rows = u32_buffer(device, "no rows", &[]);
    let no_owners = u32_buffer(device, "no owners", &[]);
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
            (6, &no_owners),
        ],
    );
    dispatch(&mut encoder, &count_neighbours, &count_group, groups);
    prefix_sum::encode(&mut encoder, &prefix_sum(device, &start, n + 1));
    gpu.queue.submit([encoder.finish()]);
    let starts = read_u32(gpu, &start, n as usize + 1).await?;
    gpu.check()?;
    let edges = starts[n as usize];

    // Rows: write them sorted; then the reverse lists by a counting sort of the edges on their target.
    let neighbour = u32_buffer(device, "neighbour", &vec![0; edges as usize]);
    let owner = u32_buffer(device, "owner", &vec![0; edges as usize]);
    let reverse_fill = u32_buffer(device, "reverse fill", &vec![0; n as usize + 1]);
    let reverse_start = u32_buffer(device, "reverse start", &vec![0; n as usize + 1]);
    let reverse = u32_buffer(device, "reverse", &vec![0; edges as usize]);
    let edge_params = uniform(device, [n, 0, 0, 0]);
    let reverse_source = include_str!("../../../shaders/reverse_neighbours.wgsl");
    let count_reverse = pipeline(device, &[reverse_source], "count_reverse");
    let scatter_reverse = pipeline(device, &[reverse_source], "scatter_reverse");
    let sort_reverse = pipeline(device, &[reverse_source], "sort_reverse");
    let mut encoder = device.create_command_encoder(&Default::default());
    let write_group = bind(
        device,
        &write_neighbours,
        &[
            (0, &grid_params),
            (1, &points_buffer),
            (2, &bucket_start),
            (3, &sorted),
            (4, &start),
            (5, &neighbour),
            (6, &owner),
        ],
    );
    dispatch(&mut encoder, &write_neighbours, &write_group, groups);
    let counting = [
        (0, &edge_params),
        (1, &neighbour),
        (2, &reverse_fill),
        (5, &start),
    ];
    dispatch(
        &mut encoder,
        &count_reverse,
        &bind(device, &count_reverse, &counting),
        groups,
    );
    prefix_sum::encode(&mut encoder, &prefix_sum(device, &reverse_fill, n + 1));
    encoder.copy_buffer_to_buffer(&reverse_fill, 0, &reverse_start, 0, u64::from(n + 1) * 4);
    let scattering = [
        (0, &edge_params),
        (1, &neighbour),
        (2, &reverse_fill),
        (3, &reverse),
        (5, &start),
    ];
    dispatch(
        &mut encoder,
        &scatter_reverse,
        &bind(device, &scatter_reverse, &scattering),
        groups,
    );
    let sorting = bind(
        device,
        &sort_reverse,
        &[(0, &edge_params), (3, &reverse), (4, &reverse_start)],
    );
    dispatch(&mut encoder, &sort_reverse, &sorting, groups);
    gpu.queue.submit([encoder.finish()]);
    let hoods = Neighbourhoods {
        start: starts,
        neighbour: read_u32(gpu, &neighbour, edges as usize).await?,
        reverse_start: read_u32(gpu, &reverse_start, n as usize + 1).await?,
        reverse: read_u32(gpu, &reverse, edges as usize).await?,
        owner: read_u32(gpu, &owner, edges as usize).await?,
    };
    gpu.check()?;
    Ok(hoods)
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
