//! The phyxel solver on WebGPU compute. Each pass of the CPU solver (`phyxel::meshless`) has a WGSL
//! twin in `shaders/` with the same name:
//!
//! | CPU pass | WGSL entry point |
//! | --- | --- |
//! | `HashGrid::build` (pass 1: count, prefix sum, scatter) | `hash_cells`, `scan_blocks` + `add_block_offsets`, `scatter_cells` |
//! | `Neighbourhoods::build` (pass 1: rows and reverse lists) | `count_neighbours`, `write_neighbours`, `count_reverse`, `scatter_reverse`, `sort_reverse` |
//! | `Body::rebuild_reference`, `MlsWeights::compute` (pass 2: densities, moment matrices, safe inverses, d_ij) | `moment_matrices`, `mls_weights` |
//! | `Body::phyxel_stresses_at` (pass 3: ∇u, strain, stress, force matrix) | `phyxel_stresses` |
//! | `Body::gather_forces` (pass 4: the force gather) | `gather_forces` |
//! | `Simulation::step` with symplectic Euler, the drag spring, collisions (pass 5) | `integrate` |
//! | `Melting::heat` (pass 6) | `heat`, `commit_temperature` |
//! | plastic flow in `Simulation::step` (pass 7) | `plastic_flow` |
//!
//! Passes 1 and 2 run on the GPU and are checked against the CPU's; the stepping solver
//! ([`GpuSolver`]) is still handed the CPU's neighbour lists and MLS weights, and the reference-shape
//! update that large plastic strains trigger is not mirrored yet ([`GpuState::largest_total_strain`]
//! reports when one is due).
//!
//! Natively wgpu runs on Vulkan (Mesa lavapipe in CI); in the browser on WebGPU.

mod context;
mod implicit;
mod layout;
mod mls;
mod neighbours;
mod passes;
mod readback;
mod solver;

pub use context::{watch_failures, GpuContext, GpuError};
pub use mls::{compute_mls_weights, GpuMlsWeights};
pub use neighbours::build_neighbourhoods;
pub use solver::{GpuSolver, GpuState};
