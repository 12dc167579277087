//! The reference-shape update inside a GPU step (`shaders/reference_update.wgsl`), the twin of
//! `Simulation::update_reference` with `Body::rebuild_reference`: queued after every plastic flow,
//! it does nothing unless this step's largest total strain passed the threshold — the device decides,
//! through indirect dispatches whose workgroup counts it writes itself, so no read-back interrupts the
//! steps. Then it searches the deformed shape's neighbourhoods (hash grid, counting sorts), and if they
//! fit the edge buffers moves the rest shape, keeps each phyxel's elastic strain, and rebuilds the
//! rows, reverse lists, volumes, moment matrices and MLS weights in the solver's own buffers.

use crate::edge_windows::EdgeWindows;
use crate::neighbours::{grid_params, hash_table_size, u32_buffer, uniform};
use crate::passes::{pipeline, storage_buffer};
use crate::prefix_sum::{prefix_sum, Dispatch};
use crate::solver::WORKGROUP_SIZE;

/// The solver's buffers the update reads and rewrites.
pub(crate) struct UpdatedBuffers<'a> {
    pub reference: &'a wgpu::Buffer,
    pub displacement: &'a wgpu::Buffer,
    pub start: &'a wgpu::Buffer,
    /// The rows and reverse lists, bound in windows.
    pub edges: &'a EdgeWindows,
    pub reverse_start: &'a wgpu::Buffer,
    /// The MLS frames (A_i⁻¹, x̄_i, h_i) moment_matrices rewrites.
    pub mls_frame: &'a wgpu::Buffer,
    pub plastic_strain: &'a wgpu::Buffer,
    pub phyxel: &'a wgpu::Buffer,
    /// m_i as f32 (moment_matrices.wgsl weighs the densities with it).
    pub mass: &'a wgpu::Buffer,
    pub status: &'a wgpu::Buffer,
}

/// Which gate opens a pass (`SEARCH` and `COMMIT` in the shader).
#[derive(Clone, Copy)]
#[repr(u32)]
enum Gate {
    /// Opened by `reference_update_due`: the search of the deformed shape.
    Search = 0,
    /// Opened by `neighbour_capacity`: the update itself, when the new rows fit.
    Commit = 1,
}

/// The update's passes, encoded after each plastic flow.
pub(crate) struct ReferenceUpdate {
    /// `reference_update_due`: opens or closes the search.
    due: Dispatch,
    /// The search, each pass with its offset in `dispatch_args`.
    search: Vec<(Dispatch, u64)>,
    /// `neighbour_capacity`: opens the commit when the new rows fit.
    capacity: Dispatch,
    /// The update itself, as `search`.
    commit: Vec<(Dispatch, u64)>,
    /// Passes of others that follow the rest shape (the drawn surfaces: [`crate::GpuSurfaces`]), run
    /// first in the commit; each with its reserved slot.
    followers: Vec<(Dispatch, u64)>,
    /// Their slots' first index, and the table of workgroups when open (written when they change).
    first_follower: usize,
    gated_passes: wgpu::Buffer,
    dispatch_args: wgpu::Buffer,
}

/// Slots reserved for passes that follow the rest shape.
pub(crate) const FOLLOWER_SLOTS: usize = 3;

impl ReferenceUpdate {
    /// The passes for `phyxels` phyxels whose rows may hold up to `edge_capacity` edges in all, hashed
    /// on cells of edge `cell` (the largest support radius), updating when ‖ε‖ passes `threshold`.
    pub fn new(
        device: &wgpu::Device,
        b: &UpdatedBuffers,
        phyxels: u32,
        edge_capacity: u32,
        cell: f32,
        threshold: f32,
    ) -> Self {
        let n = phyxels;
        let table = hash_table_size(n);
        let grid = grid_params(device, n, table, edge_capacity, cell, threshold);
        let counts = uniform(device, [n, 0, 0, 0]);
        let zeros = |label: &str, bytes: usize| storage_buffer(device, label, &vec![0u8; bytes]);
        let deformed = zeros("deformed points", n as usize * 16);
        let new_start = u32_buffer(device, "new row starts", &vec![0; n as usize + 1]);
        let bucket_of = u32_buffer(device, "bucket of", &vec![0; n as usize]);
        let bucket_fill = u32_buffer(device, "bucket fill", &vec![0; table as usize + 1]);
        let bucket_start = u32_buffer(device, "bucket start", &vec![0; table as usize + 1]);
        let sorted = u32_buffer(device, "sorted", &vec![0; n as usize]);
        let reverse_fill = u32_buffer(device, "reverse fill", &vec![0; n as usize + 1]);
        let density_volume_rank = zeros("density, volume, rank", n as usize * 16);
        // count_neighbours shares its search with write_neighbours, which writes rows: placeholders.
        let no_rows = u32_buffer(device, "no rows", &[0]);
        let (neighbour, reverse_owners) = (&b.edges.neighbour, &b.edges.reverse);

        let common = include_str!("../../../shaders/common.wgsl");
        let hash = include_str!("../../../shaders/hash.wgsl");
        let mls_weight = include_str!("../../../shaders/mls_weight.wgsl");
        let mls = include_str!("../../../shaders/mls.wgsl");
        let update = include_str!("../../../shaders/reference_update.wgsl");
        let grid_source = include_str!("../../../shaders/hash_grid.wgsl");
        let hoods = include_str!("../../../shaders/neighbours.wgsl");
        let reverse = include_str!("../../../shaders/reverse_neighbours.wgsl");
        let eigen = include_str!("../../../shaders/symmetric_eigen.wgsl");
        let moments = include_str!("../../../shaders/moment_matrices.wgsl");
        let window = include_str!("../../../shaders/edge_window.wgsl");
        let sources = |name: &str| -> Vec<&str> {
            let files: &[&str] = match name {
                "hash_cells" | "scatter_cells" => &[hash, grid_source],
                "count_neighbours" | "write_neighbours" => &[hash, hoods],
                "count_reverse" | "scatter_reverse" | "sort_reverse" => &[reverse],
                "moment_matrices" => &[eigen, mls_weight, moments],
                _ => &[common, hash, mls_weight, mls, update],
            };
            std::iter::once(&window)
                .chain(files)
                .flat_map(|s| [*s, "\n"])
                .collect()
        };
        let pass = |name: &str, buffers: &[(u32, &wgpu::Buffer)], workgroups: u32| {
            let pipeline = pipeline(device, &sources(name), name);
            let bindings = b.edges.bind(device, &pipeline, buffers);
            Dispatch {
                pipeline,
                bindings,
                workgroups,
            }
        };
        let groups = |threads: u32| threads.div_ceil(WORKGROUP_SIZE).max(1);
        let g = groups(n);

        let mut search = vec![
            pass(
                "deformed_points",
                &[
                    (0, &grid),
                    (1, b.displacement),
                    (5, b.reference),
                    (6, &deformed),
                ],
                g,
            ),
            pass(
                "clear_counts",
                &[
                    (0, &grid),
                    (9, &new_start),
                    (10, &bucket_fill),
                    (11, &reverse_fill),
                ],
                groups(table.max(n) + 1),
            ),
            pass(
                "hash_cells",
                &[
                    (0, &grid),
                    (1, &deformed),
                    (2, &bucket_of),
                    (3, &bucket_fill),
                ],
                g,
            ),
        ];
        search.extend(prefix_sum(device, &bucket_fill, table + 1));
        search.extend([
            pass(
                "keep_bucket_starts",
                &[(0, &grid), (10, &bucket_fill), (12, &bucket_start)],
                groups(table + 1),
            ),
            pass(
                "scatter_cells",
                &[(0, &grid), (2, &bucket_of), (3, &bucket_fill), (4, &sorted)],
                g,
            ),
            pass(
                "count_neighbours",
                &[
                    (0, &grid),
                    (1, &deformed),
                    (2, &bucket_start),
                    (3, &sorted),
                    (4, &new_start),
                    (5, &no_rows),
                ],
                g,
            ),
        ]);
        search.extend(prefix_sum(device, &new_start, n + 1));

        let mut commit = vec![
            pass(
                "update_reference",
                &[
                    (0, &grid),
                    (1, b.displacement),
                    (2, b.start),
                    (3, neighbour),
                    (4, b.mls_frame),
                    (7, b.plastic_strain),
                ],
                g,
            ),
            pass(
                "move_reference",
                &[
                    (0, &grid),
                    (1, b.displacement),
                    (5, b.reference),
                    (6, &deformed),
                ],
                g,
            ),
            pass(
                "write_neighbours",
                &[
                    (0, &grid),
                    (1, &deformed),
                    (2, &bucket_start),
                    (3, &sorted),
                    (4, &new_start),
                    (5, neighbour),
                ],
                g,
            ),
            pass(
                "commit_starts",
                &[(0, &grid), (2, b.start), (9, &new_start)],
                groups(n + 1),
            ),
            pass(
                "count_reverse",
                &[
                    (0, &counts),
                    (1, neighbour),
                    (2, &reverse_fill),
                    (5, b.start),
                ],
                g,
            ),
        ];
        commit.extend(prefix_sum(device, &reverse_fill, n + 1));
        commit.extend([
            pass(
                "keep_reverse_starts",
                &[(0, &grid), (11, &reverse_fill), (13, b.reverse_start)],
                groups(n + 1),
            ),
            pass(
                "scatter_reverse",
                &[
                    (0, &counts),
                    (1, neighbour),
                    (2, &reverse_fill),
                    (3, reverse_owners),
                    (4, b.reverse_start),
                    (5, b.start),
                ],
                g,
            ),
            pass(
                "sort_reverse",
                &[(0, &counts), (3, reverse_owners), (4, b.reverse_start)],
                g,
            ),
            pass(
                "moment_matrices",
                &[
                    (0, &counts),
                    (1, b.reference),
                    (2, b.mass),
                    (3, b.start),
                    (4, neighbour),
                    (6, b.mls_frame),
                    (7, &density_volume_rank),
                ],
                g,
            ),
            pass(
                "store_volumes",
                &[(0, &grid), (16, &density_volume_rank), (17, b.phyxel)],
                g,
            ),
        ]);

        // One slot of indirect arguments per gated pass — the search, then the commit — and the table
        // of their workgroups when open and their gates.
        // The followers' slots (reserved, closed until they are set) come last.
        let table_of_passes: Vec<[u32; 4]> = search
            .iter()
            .map(|d| [d.workgroups, Gate::Search as u32, 0, 0])
            .chain(
                commit
                    .iter()
                    .map(|d| [d.workgroups, Gate::Commit as u32, 0, 0]),
            )
            .chain([[0, Gate::Commit as u32, 0, 0]; FOLLOWER_SLOTS])
            .collect();
        // Created zeroed: every gate starts closed.
        let dispatch_args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("reference update dispatches"),
            size: table_of_passes.len() as u64 * 12,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
            mapped_at_creation: false,
        });
        let gated_passes = storage_buffer(
            device,
            "gated passes",
            bytemuck::cast_slice(&table_of_passes),
        );
        let gates = [
            (0, &grid),
            (8, b.status),
            (14, &dispatch_args),
            (15, &gated_passes),
        ];
        let due = pass("reference_update_due", &gates, 1);
        let capacity = pass(
            "neighbour_capacity",
            &[
                (0, &grid),
                (8, b.status),
                (9, &new_start),
                (14, &dispatch_args),
                (15, &gated_passes),
            ],
            1,
        );
        let first_commit = search.len();
        let first_follower = first_commit + commit.len();
        let slots = |passes: Vec<Dispatch>, first: usize| -> Vec<(Dispatch, u64)> {
            passes
                .into_iter()
                .enumerate()
                .map(|(k, dispatch)| (dispatch, (first + k) as u64 * 12))
                .collect()
        };
        Self {
            due,
            search: slots(search, 0),
            capacity,
            commit: slots(commit, first_commit),
            followers: Vec::new(),
            first_follower,
            gated_passes,
            dispatch_args,
        }
    }

    /// Let `passes` (at most [`FOLLOWER_SLOTS`]) run at each update, before the rest shape moves.
    pub fn set_followers(&mut self, queue: &wgpu::Queue, passes: &[Dispatch]) {
        assert!(
            passes.len() <= FOLLOWER_SLOTS,
            "followers of the rest shape"
        );
        let mut table = [[0u32, Gate::Commit as u32, 0, 0]; FOLLOWER_SLOTS];
        for (row, pass) in table.iter_mut().zip(passes) {
            row[0] = pass.workgroups;
        }
        queue.write_buffer(
            &self.gated_passes,
            self.first_follower as u64 * 16,
            bytemuck::cast_slice(&table),
        );
        self.followers = passes
            .iter()
            .enumerate()
            .map(|(k, pass)| (pass.clone(), (self.first_follower + k) as u64 * 12))
            .collect();
    }

    /// Queue the update after a step's plastic flow.
    pub fn encode(&self, compute: &mut wgpu::ComputePass) {
        let direct = |compute: &mut wgpu::ComputePass, dispatch: &Dispatch| {
            compute.set_pipeline(&dispatch.pipeline);
            for bindings in &dispatch.bindings {
                compute.set_bind_group(0, bindings, &[]);
                compute.dispatch_workgroups(1, 1, 1);
            }
        };
        let gated = |compute: &mut wgpu::ComputePass, passes: &[(Dispatch, u64)]| {
            for (dispatch, offset) in passes {
                compute.set_pipeline(&dispatch.pipeline);
                for bindings in &dispatch.bindings {
                    compute.set_bind_group(0, bindings, &[]);
                    compute.dispatch_workgroups_indirect(&self.dispatch_args, *offset);
                }
            }
        };
        direct(compute, &self.due);
        gated(compute, &self.search);
        direct(compute, &self.capacity);
        gated(compute, &self.followers);
        gated(compute, &self.commit);
    }
}
