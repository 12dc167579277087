//! Pass 1 on the GPU: the hash grid and the neighbour lists with their reverse lists, built by
//! counting sorts (`shaders/hash_grid.wgsl`, `neighbours.wgsl`, `reverse_neighbours.wgsl`,
//! `neighbour_search.wgsl`, `prefix_sum.wgsl`) — the twin of `phyxel::meshless::neighbours`. One plan,
//! [`NeighbourSearch`], runs both in [`build_neighbourhoods`] (the parity tests' entry point) and inside
//! the solver's steps at each reference update (`crate::reference_update`).

use crate::context::{GpuContext, GpuError};
use crate::edge_windows::{EdgeWindowPlan, EdgeWindows};
use crate::layout::{Count, GridParams};
use crate::passes::{encode, u32_buffer, uniform, Pass};
use crate::prefix_sum::prefix_sum;
use crate::readback::read_u32s;
use crate::wgsl::{source, workgroups, WORKGROUP_SIZE};
use glam::DVec3;
use phyxel::meshless::neighbours::Neighbourhoods;

/// Buckets of the hash table for `phyxels` phyxels (odd, about two per phyxel), at most one fewer
/// than `max_items`, the items one dispatch reaches (`max_compute_workgroups_per_dimension` ×
/// [`WORKGROUP_SIZE`]): `clear_counts` and `keep_bucket_starts` run a thread per bucket and one more.
/// Beyond about 2.1 million phyxels on WebGPU's default limit the table has fewer buckets than two per
/// phyxel (more phyxels share a bucket; the rows found are the same).
fn hash_table_size(phyxels: u32, max_items: u32) -> u32 {
    let largest = max_items.saturating_sub(2).max(1) | 1;
    (phyxels.saturating_mul(2).max(1) | 1).min(largest)
}

/// The neighbour search over the points of one buffer (xyz: position, w: support radius h_i): its
/// parameters and the counting sorts' buffers, and the passes that run it — first [`Self::count`]
/// (the rows' starts, `start`), then [`Self::rows`] (the rows and reverse lists, in edge windows).
pub struct NeighbourSearch {
    phyxels: u32,
    table: u32,
    /// [`GridParams`] (uniform).
    pub grid: wgpu::Buffer,
    points: wgpu::Buffer,
    /// The rows' starts: `start[i]..start[i + 1]` are phyxel i's edges (`start[n]` edges in all).
    pub start: wgpu::Buffer,
    bucket_of: wgpu::Buffer,
    bucket_fill: wgpu::Buffer,
    bucket_start: wgpu::Buffer,
    sorted: wgpu::Buffer,
    reverse_fill: wgpu::Buffer,
    /// `Count` of phyxels (uniform: the reverse-list passes').
    count: wgpu::Buffer,
}

impl NeighbourSearch {
    /// The search of `points` (`phyxels` of them) on cells of edge `cell` (the largest support radius);
    /// `edge_capacity` and `update_strain` go to the reference update's gates (its [`GridParams`]).
    pub fn new(
        device: &wgpu::Device,
        points: &wgpu::Buffer,
        phyxels: u32,
        cell: f32,
        edge_capacity: u32,
        update_strain: f32,
    ) -> Self {
        let n = phyxels as usize;
        let max_items = device
            .limits()
            .max_compute_workgroups_per_dimension
            .saturating_mul(WORKGROUP_SIZE);
        let table = hash_table_size(phyxels, max_items);
        let grid = GridParams {
            phyxels,
            table_size: table,
            edge_capacity,
            cell,
            update_strain,
            ..GridParams::default()
        };
        Self {
            phyxels,
            table,
            grid: uniform(device, "grid", &grid),
            points: points.clone(),
            start: u32_buffer(device, "start", &vec![0; n + 1]),
            bucket_of: u32_buffer(device, "bucket of", &vec![0; n]),
            bucket_fill: u32_buffer(device, "bucket fill", &vec![0; table as usize + 1]),
            bucket_start: u32_buffer(device, "bucket start", &vec![0; table as usize + 1]),
            sorted: u32_buffer(device, "sorted", &vec![0; n]),
            reverse_fill: u32_buffer(device, "reverse fill", &vec![0; n + 1]),
            count: uniform(device, "phyxels", &Count::of(phyxels)),
        }
    }

    /// Workgroups over `items` items.
    fn groups(items: u32) -> u32 {
        workgroups(items, WORKGROUP_SIZE)
    }

    /// The hash grid (`HashGrid::build`: count, prefix sum, scatter) and the rows' lengths, summed up
    /// into [`Self::start`]: clear_counts, hash_cells, the prefix sum, keep_bucket_starts,
    /// scatter_cells, count_neighbours, the prefix sum.
    pub fn count(&self, device: &wgpu::Device) -> Vec<Pass> {
        let (n, table) = (self.phyxels, self.table);
        let g = Self::groups(n);
        let grid = &self.grid;
        let search = |entry, buffers: &[(u32, &wgpu::Buffer)], workgroups| {
            Pass::whole(
                device,
                &[source::NEIGHBOUR_SEARCH],
                entry,
                buffers,
                workgroups,
            )
        };
        let cells = |entry, buffers: &[(u32, &wgpu::Buffer)]| {
            Pass::whole(
                device,
                &[source::HASH, source::HASH_GRID],
                entry,
                buffers,
                g,
            )
        };
        // Counting shares `search` with write_neighbours, which writes rows: a placeholder for them.
        let no_rows = u32_buffer(device, "no rows", &[0]);
        let mut passes = vec![
            search(
                "clear_counts",
                &[
                    (0, grid),
                    (1, &self.start),
                    (2, &self.bucket_fill),
                    (3, &self.reverse_fill),
                ],
                Self::groups(table.max(n) + 1),
            ),
            cells(
                "hash_cells",
                &[
                    (0, grid),
                    (1, &self.points),
                    (2, &self.bucket_of),
                    (3, &self.bucket_fill),
                ],
            ),
        ];
        passes.extend(prefix_sum(device, &self.bucket_fill, table + 1));
        passes.extend([
            search(
                "keep_bucket_starts",
                &[(0, grid), (2, &self.bucket_fill), (4, &self.bucket_start)],
                Self::groups(table + 1),
            ),
            cells(
                "scatter_cells",
                &[
                    (0, grid),
                    (2, &self.bucket_of),
                    (3, &self.bucket_fill),
                    (4, &self.sorted),
                ],
            ),
            Pass::whole(
                device,
                &[source::EDGE_WINDOW, source::HASH, source::NEIGHBOURS],
                "count_neighbours",
                &[
                    (0, grid),
                    (1, &self.points),
                    (2, &self.bucket_start),
                    (3, &self.sorted),
                    (4, &self.start),
                    (5, &no_rows),
                ],
                g,
            ),
        ]);
        passes.extend(prefix_sum(device, &self.start, n + 1));
        passes
    }

    /// After [`Self::count`]: the rows (write_neighbours, sorted by index) into `edges.neighbour`, then
    /// the reverse lists by a counting sort of the edges on their target (count_reverse, the prefix
    /// sum, keep_reverse_starts, scatter_reverse, sort_reverse) into `edges.reverse`, with their
    /// starts in `reverse_start` — each pass window by window.
    pub fn rows(
        &self,
        device: &wgpu::Device,
        edges: &EdgeWindows,
        reverse_start: &wgpu::Buffer,
    ) -> Vec<Pass> {
        let n = self.phyxels;
        let g = Self::groups(n);
        let (neighbour, reverse) = (&edges.neighbour, &edges.reverse);
        let reverse_pass = |entry, buffers: &[(u32, &wgpu::Buffer)]| {
            edges.pass(device, &[source::REVERSE_NEIGHBOURS], entry, buffers, g)
        };
        let mut passes = vec![
            edges.pass(
                device,
                &[source::HASH, source::NEIGHBOURS],
                "write_neighbours",
                &[
                    (0, &self.grid),
                    (1, &self.points),
                    (2, &self.bucket_start),
                    (3, &self.sorted),
                    (4, &self.start),
                    (5, neighbour),
                ],
                g,
            ),
            reverse_pass(
                "count_reverse",
                &[
                    (0, &self.count),
                    (1, neighbour),
                    (2, &self.reverse_fill),
                    (5, &self.start),
                ],
            ),
        ];
        passes.extend(prefix_sum(device, &self.reverse_fill, n + 1));
        passes.extend([
            Pass::whole(
                device,
                &[source::NEIGHBOUR_SEARCH],
                "keep_reverse_starts",
                &[(0, &self.grid), (3, &self.reverse_fill), (5, reverse_start)],
                Self::groups(n + 1),
            ),
            reverse_pass(
                "scatter_reverse",
                &[
                    (0, &self.count),
                    (1, neighbour),
                    (2, &self.reverse_fill),
                    (3, reverse),
                    (4, reverse_start),
                    (5, &self.start),
                ],
            ),
            reverse_pass(
                "sort_reverse",
                &[(0, &self.count), (3, reverse), (4, reverse_start)],
            ),
        ]);
        passes
    }
}

/// Neighbour lists of `points` with support radii `radii` (j ∈ N(i) ⇔ j ≠ i, |x_j − x_i| < h_i), built
/// on the GPU by the solver's own `NeighbourSearch` and read back: equal to `Neighbourhoods::build`
/// on the same input.
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
    let packed: Vec<[f32; 4]> = points
        .iter()
        .zip(radii)
        .map(|(p, h)| [p.x as f32, p.y as f32, p.z as f32, *h as f32])
        .collect();
    let points_buffer =
        crate::passes::storage_buffer(device, "points", bytemuck::cast_slice(&packed));
    let search = NeighbourSearch::new(device, &points_buffer, n, cell as f32, 0, 0.0);
    let read = |buffer, len| async move {
        read_u32s(device, &gpu.queue, buffer, len)
            .await
            .map_err(GpuError)
    };
    let mut encoder = device.create_command_encoder(&Default::default());
    encode(&mut encoder, &search.count(device));
    gpu.queue.submit([encoder.finish()]);
    let starts = read(&search.start, n as usize + 1).await?;
    gpu.check()?;
    let edges = starts[n as usize];

    // The rows and reverse lists in edge windows where they exceed one binding (overlapping by n edges:
    // no row or reverse list is longer).
    let plan = EdgeWindowPlan::new(
        edges,
        gpu.limits.max_storage_buffer_binding_size,
        gpu.limits.min_storage_buffer_offset_alignment,
        n,
    )
    .map_err(GpuError)?;
    let windows = EdgeWindows::new(device, plan, &[], &[]);
    let reverse_start = u32_buffer(device, "reverse start", &vec![0; n as usize + 1]);
    let mut encoder = device.create_command_encoder(&Default::default());
    encode(&mut encoder, &search.rows(device, &windows, &reverse_start));
    gpu.queue.submit([encoder.finish()]);
    let hoods = from_reverse_owners(
        starts,
        read(&windows.neighbour, edges as usize).await?,
        read(&reverse_start, n as usize + 1).await?,
        &read(&windows.reverse, edges as usize).await?,
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

#[cfg(test)]
mod tests {
    use super::hash_table_size;
    use crate::wgsl::{workgroups, WORKGROUP_SIZE};

    /// Two buckets per phyxel, odd, until a thread per bucket and one more would need more workgroups
    /// than one dispatch runs: then the largest odd table that fits (on WebGPU's default limit of
    /// 65 535 workgroups, from about 2.1 million phyxels; an 8-million-phyxel body's 16 million
    /// buckets failed the device's validation on an H100 before this bound).
    #[test]
    fn the_hash_table_has_two_buckets_per_phyxel_within_one_dispatch() {
        let max_items = 65_535 * WORKGROUP_SIZE;
        assert_eq!(hash_table_size(0, max_items), 1);
        assert_eq!(hash_table_size(1000, max_items), 2001);
        assert_eq!(hash_table_size(2_000_000, max_items), 4_000_001);
        for phyxels in [2_097_150, 2_097_151, 4_000_000, 8_000_000, u32::MAX] {
            let table = hash_table_size(phyxels, max_items);
            assert_eq!(table % 2, 1);
            assert!(
                workgroups(table + 1, WORKGROUP_SIZE) <= 65_535,
                "{phyxels}: {table}"
            );
            assert!(table >= max_items - 2, "{phyxels}: {table}");
        }
        assert_eq!(hash_table_size(8_000_000, max_items), max_items - 1);
    }
}
