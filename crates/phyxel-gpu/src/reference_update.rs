//! The reference-shape update inside a GPU step (`shaders/reference_update.wgsl`), the twin of
//! `Simulation::update_reference` with `Body::rebuild_reference`: queued after every plastic flow,
//! it does nothing unless this step's largest total strain passed the threshold — the device decides,
//! through indirect dispatches whose workgroup counts it writes itself, so no read-back interrupts the
//! steps. Then it searches the deformed shape's neighbourhoods (hash grid, counting sorts), and if they
//! fit the edge buffers moves the rest shape, keeps each phyxel's elastic strain, and rebuilds the
//! rows, reverse lists, volumes, moment matrices and MLS weights in the solver's own buffers. The search
//! and the rebuild are the plans of [`crate::neighbours::NeighbourSearch`] and
//! [`crate::mls::moment_matrices`], the same the parity tests run through `build_neighbourhoods` and
//! `compute_mls_weights`.

use crate::body::BodyBuffers;
use crate::layout::Count;
use crate::mls::{moment_matrices, MomentBuffers};
use crate::neighbours::NeighbourSearch;
use crate::passes::{storage_buffer, uniform, zeroed, Pass};
use crate::wgsl::{gate, source};

/// The update's passes, encoded after each plastic flow.
pub struct ReferenceUpdate {
    /// `reference_update_due`: opens or closes the search.
    due: Pass,
    /// The search, each pass with its offset in `dispatch_args`.
    search: Vec<(Pass, u64)>,
    /// `neighbour_capacity`: opens the commit when the new rows fit.
    capacity: Pass,
    /// The update itself, as `search`.
    commit: Vec<(Pass, u64)>,
    /// Passes of others that follow the rest shape (the drawn surfaces: [`crate::GpuSurfaces`]), run
    /// first in the commit; each with its reserved slot.
    followers: Vec<(Pass, u64)>,
    /// Their slots' first index, and the table of workgroups when open (written when they change).
    first_follower: usize,
    gated_passes: wgpu::Buffer,
    dispatch_args: wgpu::Buffer,
}

/// Slots reserved for passes that follow the rest shape.
pub const FOLLOWER_SLOTS: usize = 3;

/// Bytes of one indirect dispatch's arguments (x, y, z workgroups).
const DISPATCH_ARGS_BYTES: u64 = 12;

impl ReferenceUpdate {
    /// The passes for the body `b`, whose rows may hold up to `edge_capacity` edges in all, updating
    /// when a step's largest ‖ε‖ passes `threshold`.
    pub fn new(device: &wgpu::Device, b: &BodyBuffers, edge_capacity: u32, threshold: f32) -> Self {
        let n = b.phyxels;
        let g = b.workgroups();
        // The neighbour search runs on the deformed shape x̄ + u (with h in w).
        let deformed = zeroed(device, "deformed points", n as usize * 16);
        let search = NeighbourSearch::new(
            device,
            &deformed,
            n,
            b.max_support_radius as f32,
            edge_capacity,
            threshold,
        );
        let grid = &search.grid;
        let counts = uniform(device, "phyxels", &Count::of(n));
        let density_volume_rank = zeroed(device, "density, volume, rank", n as usize * 16);
        let sources = [
            source::COMMON,
            source::HASH,
            source::MLS_WEIGHT,
            source::UNCUT_WEIGHTS,
            source::MLS,
            source::REFERENCE_UPDATE,
        ];
        let pass = |entry, buffers: &[(u32, &wgpu::Buffer)], workgroups| {
            b.edges.pass(device, &sources, entry, buffers, workgroups)
        };
        let moving = [
            (0, grid),
            (1, &b.displacement),
            (5, &b.reference),
            (6, &deformed),
        ];
        let search_passes: Vec<Pass> = std::iter::once(pass("deformed_points", &moving, g))
            .chain(search.count(device))
            .collect();
        let mut commit = vec![
            pass(
                "update_reference",
                &[
                    (0, grid),
                    (1, &b.displacement),
                    (2, &b.start),
                    (3, &b.edges.neighbour),
                    (4, &b.mls_frame),
                    (7, &b.plastic_strain),
                ],
                g,
            ),
            pass("move_reference", &moving, g),
        ];
        commit.extend(search.rows(device, &b.edges, &b.reverse_start));
        commit.extend([
            pass(
                "commit_starts",
                &[(0, grid), (2, &b.start), (9, &search.start)],
                crate::wgsl::workgroups(n + 1, crate::wgsl::WORKGROUP_SIZE),
            ),
            moment_matrices(
                device,
                &b.edges,
                &MomentBuffers {
                    count: &counts,
                    reference: &b.reference,
                    mass: &b.mass,
                    start: &b.start,
                    mls_frame: &b.mls_frame,
                    density_volume_rank: &density_volume_rank,
                },
                n,
            ),
            pass(
                "store_volumes",
                &[(0, grid), (16, &density_volume_rank), (17, &b.phyxel)],
                g,
            ),
        ]);

        // One slot of indirect arguments per gated pass — the search, then the commit — and the table
        // of their workgroups when open and their gates.
        // The followers' slots (reserved, closed until they are set) come last.
        let table_of_passes: Vec<[u32; 4]> = search_passes
            .iter()
            .map(|p| [p.workgroups, gate::SEARCH, 0, 0])
            .chain(commit.iter().map(|p| [p.workgroups, gate::COMMIT, 0, 0]))
            .chain([[0, gate::COMMIT, 0, 0]; FOLLOWER_SLOTS])
            .collect();
        // Created zeroed: every gate starts closed.
        let dispatch_args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("reference update dispatches"),
            size: table_of_passes.len() as u64 * DISPATCH_ARGS_BYTES,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
            mapped_at_creation: false,
        });
        let gated_passes = storage_buffer(
            device,
            "gated passes",
            bytemuck::cast_slice(&table_of_passes),
        );
        let gates = [
            (0, grid),
            (8, &b.status),
            (14, &dispatch_args),
            (15, &gated_passes),
        ];
        let due = pass("reference_update_due", &gates, 1);
        let capacity = pass(
            "neighbour_capacity",
            &[
                (0, grid),
                (8, &b.status),
                (9, &search.start),
                (14, &dispatch_args),
                (15, &gated_passes),
            ],
            1,
        );
        let first_commit = search_passes.len();
        let first_follower = first_commit + commit.len();
        Self {
            due,
            search: slots(search_passes, 0),
            capacity,
            commit: slots(commit, first_commit),
            followers: Vec::new(),
            first_follower,
            gated_passes,
            dispatch_args,
        }
    }

    /// Let `passes` (at most [`FOLLOWER_SLOTS`]) run at each update, before the rest shape moves.
    pub fn set_followers(&mut self, queue: &wgpu::Queue, passes: &[Pass]) {
        assert!(
            passes.len() <= FOLLOWER_SLOTS,
            "followers of the rest shape"
        );
        let mut table = [[0u32, gate::COMMIT, 0, 0]; FOLLOWER_SLOTS];
        for (row, pass) in table.iter_mut().zip(passes) {
            row[0] = pass.workgroups;
        }
        queue.write_buffer(
            &self.gated_passes,
            self.first_follower as u64 * 16,
            bytemuck::cast_slice(&table),
        );
        self.followers = slots(passes.to_vec(), self.first_follower);
    }

    /// Queue the update after a step's plastic flow.
    pub fn encode(&self, compute: &mut wgpu::ComputePass) {
        let gated = |compute: &mut wgpu::ComputePass, passes: &[(Pass, u64)]| {
            for (pass, offset) in passes {
                pass.dispatch_indirect(compute, &self.dispatch_args, *offset);
            }
        };
        self.due.dispatch(compute);
        gated(compute, &self.search);
        self.capacity.dispatch(compute);
        gated(compute, &self.followers);
        gated(compute, &self.commit);
    }
}

/// `passes` with their slots of indirect arguments, from slot `first` on.
fn slots(passes: Vec<Pass>, first: usize) -> Vec<(Pass, u64)> {
    passes
        .into_iter()
        .enumerate()
        .map(|(k, pass)| (pass, (first + k) as u64 * DISPATCH_ARGS_BYTES))
        .collect()
}
