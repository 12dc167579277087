//! The phyxel solver on WebGPU compute. Each pass of the CPU solver (`phyxel::meshless`, and the 3D SPH
//! fluid's WCSPH step of `phyxel::fluids3d`) has a WGSL twin in `shaders/` with the same name.
//!
//! Where to start reading — the modules, each one stage with a paragraph of its own, bottom up (a
//! module uses only those before it):
//!
//! - `context` (the device), `readback` (buffers back to the host);
//! - `layout` and `wgsl`: what Rust and WGSL share — the structs and constants, written into the
//!   prelude every shader is compiled with (shaders/README.md);
//! - `passes`: buffers, pipelines and `Pass`, one entry point's dispatches;
//! - `edge_windows`: the per-edge buffers and the windows they are bound in;
//! - the rebuild of the rest shape's data, in step order: `prefix_sum`, `neighbours` (pass 1,
//!   `NeighbourSearch`), `mls` (pass 2, `moment_matrices`);
//! - `body`: the body's buffers, uploaded, with the limit checks;
//! - a step, in step order: `explicit` (passes 3–5 and 7) or `implicit` (the corotated implicit
//!   step; for a body integrated by background quadrature with the passes of `quadrature`, which
//!   uploads its integration points and shape functions), `heat` (pass 6), `reference_update` (pass
//!   7's update of the rest shape, on the device); `loading`, a fracture scene's grips (before each
//!   step) and struck ball (after it);
//! - `state`: the read-back; `solver`: [`GpuSolver`], which drives the stages;
//! - `instances` and `surface`: what the 3D view draws, computed from the solver's buffers;
//! - `fluid`: the 3D SPH fluid's WCSPH step ([`GpuFluid`]; its neighbour grid in `fluid/cells.rs`, its
//!   read-back in `fluid/state.rs`), apart from the solid's stages.
//!
//! The passes, CPU ↔ GPU:
//!
//! | CPU pass | WGSL entry point |
//! | --- | --- |
//! | `HashGrid::build` (pass 1: count, prefix sum, scatter) | `clear_counts`, `hash_cells`, `scan_blocks` + `add_block_offsets`, `keep_bucket_starts`, `scatter_cells` |
//! | `Neighbourhoods::build` (pass 1: rows and reverse lists) | `count_neighbours`, `write_neighbours`, `count_reverse`, `keep_reverse_starts`, `scatter_reverse`, `sort_reverse` |
//! | `Body::rebuild_reference`, `MlsWeights::compute` (pass 2: densities, moment matrices, safe inverses, d_ij) | `moment_matrices` (and `mls_weights`, for the tests) |
//! | `Body::phyxel_stresses_at` (pass 3: ∇u, strain, stress, force matrix) | `phyxel_stresses` |
//! | `Body::gather_forces` (pass 4: the force gather) | `gather_forces` |
//! | `Simulation::step` with symplectic Euler, the drag spring, collisions (pass 5) | `integrate` |
//! | `Melting::heat` (pass 6) | `heat`, `commit_temperature` |
//! | plastic flow in `Simulation::step` (pass 7) | `plastic_flow` |
//! | `Simulation::update_reference` (pass 7, when the strain passed the threshold) with `Body::rebuild_reference` | `reference_update_due`, `deformed_points`, pass 1 on the deformed shape, `neighbour_capacity`, `update_reference`, `move_reference`, pass 1's rows, `commit_starts`, `moment_matrices`, `store_volumes` |
//! | `corotated::rotations` + `corotated::stresses` | `corotated_stresses` |
//! | `corotated::stiffness_product` (per phyxel; then the force gather) | `stiffness_stresses`, `cg_stiffness_stresses` |
//! | `corotated::stiffness_diagonal` + the block-Jacobi inverses | `stiffness_diagonal` |
//! | `Quadrature::rotations_and_forces`' per-point half (`Quadrature::rotations` + `Quadrature::point_stress`; background quadrature: F_I, R_I, M_I = −v_I R_I σ_I F_p,I⁻ᵀ; seed 003 eqs. 9–12) | `point_stress` (quadrature.wgsl) |
//! | `Quadrature::scatter`, the per-particle half of `Quadrature::rotations_and_forces` (f_i = Σ_I M_I ∇φ_i(x_I); the CPU scatters each point's shares into per-range sums, the GPU gathers them over particle i's reverse list: the same sum; with `HeldSurface::add_forces`) | `gather`, `cg_gather` |
//! | `Quadrature::stiffness_product` (per integration point, seed 003 eq. 14; then the CPU's scatter, the GPU's gather) | `stiffness_product`, `cg_stiffness_product`, and `cg_gathered_product` in CG's place of `cg_product` |
//! | `Quadrature::stiffness_diagonal` (with `HeldSurface::add_diagonal`) + the block-Jacobi inverses | `stiffness_diagonal` (quadrature.wgsl) |
//! | `corotated_stress`, `corotated_force_differential`, `corotated_diagonal_block` (`meshless/elasticity.rs`), `polar_rotation` (`meshless/polar.rs`): the corotated point of both models | functions of `elasticity.wgsl` and `polar.wgsl` |
//! | `implicit::velocity_change`: right-hand side, contacts, impulses, second solve | `implicit_begin`, `implicit_rhs`, `contact_impulses`, `cg_restart`, `prescribed_rhs` |
//! | `conjugate_gradient::solve` | `cg_start`, `cg_reduce_start`, `cg_drop_guess`, `cg_product`, `cg_reduce_curvature`, `cg_update`, `cg_reduce_direction`, `cg_direction`, `cg_finish` |
//! | `Simulation::advance_implicit` + the implicit blow-up check + collisions | `implicit_integrate`, `rotation_per_step`, `implicit_collide` |
//! | `Simulation::flow_multiplicative` (`Plasticity::flow_multiplicative`, shared: `flow_multiplicative` of `plasticity.wgsl`) | `plastic_flow_multiplicative`; at the integration points `point_plastic_flow` (quadrature.wgsl) |
//! | `Quadrature::soften` (after `Melting::heat`) | `soften` (quadrature.wgsl) |
//! | `Grips::step`, `PullingGrips::step` (`fracture::scenes`, `fracture::ductile`: the held phyxels at u_i = s a_i before a step) | `hold_grips`, `next_grip_step` (grips.wgsl) |
//! | `Ball::step`, `Ball::strike` (`fracture::slab`: the ball moved, the phyxels inside it struck, its recoil; `collision::resolve_contact` in `collision.wgsl`) | `move_ball`, `strike`, `ball_recoil` (ball.wgsl) |
//!
//! The 3D SPH fluid ([`GpuFluid`], `phyxel::fluids3d` with WCSPH; `shaders/sph_fluid.wgsl` and
//! `shaders/fluid_cells.wgsl`), in step order:
//!
//! | CPU pass (`fluids/wcsph.rs`, `fluids/fluid.rs`) | WGSL entry point |
//! | --- | --- |
//! | `Wcsph::pressure` over the particles (seed 002 eqs. 47, 54), with p/ρ² | `pressure` |
//! | `Fluid::non_pressure_accelerations` (gravity; stirring is refused) | `non_pressure_accelerations` |
//! | `pressure_accelerations` (eq. 51, Akinci et al. 2012's wall term) | `pressure_accelerations` |
//! | `Wcsph::step`'s v += Δt a | `accelerate` |
//! | `Fluid::xsph_viscosity` (eq. 53), its swap of v and the scratch | `xsph_viscosity`, `keep_xsph_velocities` |
//! | `Fluid::drift`'s x += Δt v (`Fluid::check_step`'s travel limit, flagged) | `drift` |
//! | `Fluid::find_neighbours` (`CellGrid::build`: count, prefix sum, scatter, cells in index order; each pass scans the 27 cells for the pairs the lists hold) | `clear_cells`, `count_cells`, `scan_blocks` + `add_block_offsets`, `scatter_cells`, `sort_cells` |
//! | `Fluid::keep_off_walls` (§6.4) | `keep_off_walls` |
//! | `Fluid::compute_densities` (eq. 55, Ψ_b = ρ₀ V_b) | `compute_densities` |
//!
//! For the 3D view, when it shares the solver's device ([`GpuContext::shared`]), two more files in
//! `shaders/render/` write what it draws straight from the solver's buffers, mirroring what the page
//! computes from its copy of the state:
//!
//! | CPU | WGSL entry point |
//! | --- | --- |
//! | `PhyxelDemo::frame_data`'s phyxel positions and colour values | `phyxel_instances` ([`PhyxelInstances`]) |
//! | `Body::displacement_gradients` | `displacement_gradients` ([`GpuSurfaces`]) |
//! | `EmbeddedSurface::deformed_vertices` + `interpolate` | `deformed_vertices` |
//! | `primitive_mesh::vertex_normals` | `vertex_normals` |
//!
//! The corotated implicit step ([`GpuSolver`] built from a simulation with
//! `Simulation::set_corotated_implicit`) runs CG entirely on the device: the iteration limit's worth of
//! iterations is queued in one submission, and the kernels stop changing anything once CG has
//! converged, so no read-back interrupts a step. It steps a body integrated by background quadrature
//! (`Body::set_quadrature`, seed 003 §3.3–3.4) too: the quadrature's static data — points, volumes,
//! per-point λ and μ, F_p⁻¹, the shape functions' gradients in rows and reverse lists, a held surface's
//! points — is built on the CPU and uploaded once, and the quadrature passes take the nodal model's
//! place (a held surface rides along as extra points: shaders/quadrature.wgsl). Such a body is refused
//! for explicit GPU steps (they are MKN04's, nodal) and when plastic (the device carries no flow at
//! integration points).
//!
//! The solver is uploaded with the CPU's neighbour lists and MLS weights; from then on it rebuilds
//! them itself. When a step's plastic flow strains some phyxel past `reference_update_strain`, the
//! reference update runs inside the same submission: every pass of it is dispatched indirectly, with
//! workgroup counts the device writes (zero when no update is due), so the steps never wait for a
//! read-back. The per-edge buffers have room for twice the upload's edges; an update whose rows do
//! not fit is not made and is reported ([`GpuState::neighbour_overflow`]) for the host to make on the
//! CPU.
//!
//! The per-edge buffers — rows and reverse lists, a u32 per neighbour pair (the device's reverse lists
//! name the owners i of the edges i → k, so no pass reads at a far edge index) — are bound in **edge
//! windows** ([`EdgeWindowPlan`], `shaders/edge_window.wgsl`) where they exceed one storage binding
//! (`max_storage_buffer_binding_size`): every pass over them runs once per window, handling the
//! phyxels whose rows start in it, and the windows overlap by as many edges as the body has phyxels (no
//! row or reverse list can be longer). Per-phyxel buffers are
//! bound whole: the MLS frames (64 B per phyxel) cap an explicit body at 2.1 M phyxels per 128 MiB
//! binding, the implicit step's work buffer (176 B) at 760 000; a larger body is refused with the size
//! it needs. A quadrature's rows and reverse lists (16 B per shape-function edge, ∇φ with its index;
//! about 200 edges per particle inside a body at the default settings) and its rows' values φ_i(x_I)
//! take edge windows of their own where they exceed one binding (`quadrature.rs`; they may fill
//! `max_buffer_size`); its point frames (96 B per point) are bound whole, and a quadrature with more
//! points than one binding holds is refused with the size they need ([`quadrature_binding_bytes`]). Drawn surfaces ([`GpuSurfaces::follow_reference_updates`]) take their deformed shape as rest
//! shape at each update.
//!
//! Natively wgpu runs on Vulkan (Mesa lavapipe in CI); in the browser on WebGPU.

// Alphabetical (rustfmt's order); the reading order, bottom up, is in the crate docs above, and
// `tests::each_module_uses_only_the_stages_below_it` keeps every module to those below it.
mod body;
mod context;
mod edge_windows;
mod explicit;
mod fluid;
mod heat;
mod implicit;
mod instances;
mod layout;
mod loading;
mod mls;
mod neighbours;
mod passes;
mod prefix_sum;
mod quadrature;
mod readback;
mod reference_update;
mod solver;
mod state;
mod surface;
mod wgsl;

pub use body::largest_binding_bytes;
pub use context::{watch_failures, GpuContext, GpuError};
pub use edge_windows::EdgeWindowPlan;
pub use fluid::{GpuFluid, GpuFluidState, MAX_GPU_FLUID_PARTICLES};
pub use instances::{InstanceColouring, PhyxelInstances};
pub use loading::MAX_GRIP_SCALES;
pub use mls::{compute_mls_weights, GpuMlsWeights};
pub use neighbours::build_neighbourhoods;
pub use quadrature::quadrature_binding_bytes;
pub use solver::GpuSolver;
pub use state::GpuState;
pub use surface::{GpuSurfaces, SURFACE_VERTEX_FLOATS};

#[cfg(test)]
mod tests {
    /// The modules bottom up, as the crate docs list them, with their sources.
    const STAGES: [(&str, &str); 21] = [
        ("context", include_str!("context.rs")),
        ("readback", include_str!("readback.rs")),
        ("layout", include_str!("layout.rs")),
        ("wgsl", include_str!("wgsl.rs")),
        ("passes", include_str!("passes.rs")),
        ("edge_windows", include_str!("edge_windows.rs")),
        ("prefix_sum", include_str!("prefix_sum.rs")),
        ("neighbours", include_str!("neighbours.rs")),
        ("mls", include_str!("mls.rs")),
        ("body", include_str!("body.rs")),
        ("explicit", include_str!("explicit.rs")),
        ("heat", include_str!("heat.rs")),
        ("loading", include_str!("loading.rs")),
        ("quadrature", include_str!("quadrature.rs")),
        ("implicit", include_str!("implicit.rs")),
        ("reference_update", include_str!("reference_update.rs")),
        ("state", include_str!("state.rs")),
        ("solver", include_str!("solver.rs")),
        ("instances", include_str!("instances.rs")),
        ("surface", include_str!("surface.rs")),
        ("fluid", include_str!("fluid.rs")),
    ];

    /// No import circles: a module's code (not its comments) names only modules below it.
    #[test]
    fn each_module_uses_only_the_stages_below_it() {
        for (k, (module, source)) in STAGES.iter().enumerate() {
            let code: String = source
                .lines()
                .map(|line| line.split("//").next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join("\n");
            for (above, _) in &STAGES[k..] {
                assert!(
                    !code.contains(&format!("crate::{above}::"))
                        && !code.contains(&format!("crate::{above};")),
                    "{module} uses {above}, which is not below it"
                );
            }
        }
    }
}
