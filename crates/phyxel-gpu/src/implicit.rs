//! The corotated implicit Euler step on the GPU: the twin of `phyxel::meshless::implicit`
//! (`velocity_change` with `conjugate_gradient::solve`) and of `Simulation::advance_implicit`, in the
//! passes of `shaders/corotated.wgsl`, `conjugate_gradient.wgsl` and `implicit.wgsl` (their headers
//! list the order). CG runs entirely on the device: the host queues a number of iterations, and the
//! kernels stop changing anything once CG has converged, so a step needs no read-back. The CG
//! statistics come back with the state ([`crate::GpuState::last_solve`]).
//!
//! How many iterations to queue: each costs five dispatches whether CG still runs or not, so queuing
//! the iteration limit (500 by default) for a solve that converges in 30 wastes most of a step. The
//! solver starts with the limit and, from each read-back, queues twice the iterations the last step
//! needed plus 16 (never more than the limit); a step that was cut short by this budget reports
//! `converged: false`, and the next read-back doubles the budget.

use crate::solver::{Pass, SolverBuffers};
use glam::{DMat3, DVec3};
use phyxel::meshless::body::Body;
use phyxel::meshless::implicit::{CorotatedImplicit, SolveStats};
use phyxel::meshless::kernel::poly6;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Sections of n vec4 in the work buffer (shaders/implicit_work.wgsl), then 4 scalars, then partials.
const SECTIONS: usize = 11;
/// Σ_j x̄_ij w_ij per phyxel (A_i⁻¹ times it is Σ_j d_ij): implicit_work.wgsl's OWN_OFFSETS.
const OWN_OFFSETS: usize = 9;
const SCALARS: usize = 4;

/// Bytes of the implicit step's largest buffers for `phyxels` phyxels: the work buffer (sections,
/// scalars, one partial sum per workgroup) and the frames (rotation, F_p⁻¹, preconditioner block).
pub(crate) fn largest_buffer_bytes(phyxels: usize) -> u64 {
    let groups = phyxels
        .div_ceil(crate::solver::WORKGROUP_SIZE as usize)
        .max(1);
    let work = (SECTIONS * phyxels + SCALARS + groups) * 16;
    let frames = phyxels * 36 * 4;
    work.max(frames) as u64
}

/// The implicit step's pipelines, bindings and buffers.
pub(crate) struct ImplicitStep {
    pub settings: CorotatedImplicit,
    /// CG iterations queued per solve (see the module docs); read-backs update it.
    pub budget: Arc<AtomicUsize>,
    /// Sections, CG scalars and partial sums (shaders/implicit_work.wgsl).
    pub work: wgpu::Buffer,
    phyxels: usize,
    corotated_stresses: Pass,
    gather_forces: Pass,
    implicit_begin: Pass,
    stiffness_stresses: Pass,
    implicit_rhs: Pass,
    stiffness_diagonal: Pass,
    cg_start: Pass,
    cg_reduce_start: Pass,
    cg_stiffness_stresses: Pass,
    cg_product: Pass,
    cg_reduce_curvature: Pass,
    cg_update: Pass,
    cg_reduce_direction: Pass,
    cg_finish: Pass,
    contact_impulses: Pass,
    cg_restart: Pass,
    implicit_integrate: Pass,
    rotation_per_step: Pass,
    implicit_collide: Pass,
    plastic_flow_multiplicative: Pass,
    /// F_p⁻¹ per phyxel, in each frame (read back as the plastic deformation).
    pub frames: wgpu::Buffer,
}

impl ImplicitStep {
    pub fn new<'a>(
        device: &wgpu::Device,
        buffers: &'a SolverBuffers<'a>,
        body: &Body,
        settings: CorotatedImplicit,
    ) -> Self {
        let n = body.len();
        let groups = n.div_ceil(crate::solver::WORKGROUP_SIZE as usize);
        // The work buffer: zero but for Σ_j x̄_ij w_ij (w_ij = poly6(|x̄_ij|, h_i), MKN04 eq. 7).
        let mut work = vec![[0f32; 4]; SECTIONS * n + SCALARS + groups.max(1)];
        let range = OWN_OFFSETS * n..(OWN_OFFSETS + 1) * n;
        for (i, slot) in work[range].iter_mut().enumerate() {
            let own: DVec3 = body
                .neighbours
                .edges(i)
                .map(|e| {
                    let x_ij =
                        body.reference[body.neighbours.neighbour[e] as usize] - body.reference[i];
                    x_ij * poly6(x_ij.length(), body.support_radius[i])
                })
                .sum();
            *slot = crate::layout::vec4(own);
        }
        let work =
            crate::passes::storage_buffer(device, "implicit work", bytemuck::cast_slice(&work));
        // Frames: rotation (set each step), F_p⁻¹, preconditioner block.
        let frames: Vec<[f32; 36]> = body
            .plastic_deformation
            .iter()
            .map(|f_p| {
                let mut frame = [0f32; 36];
                frame[..12].copy_from_slice(&crate::layout::mat3(DMat3::IDENTITY));
                frame[12..24].copy_from_slice(&crate::layout::mat3(f_p.inverse()));
                frame[24..].copy_from_slice(&crate::layout::mat3(DMat3::IDENTITY));
                frame
            })
            .collect();
        let frames = crate::passes::storage_buffer(device, "frames", bytemuck::cast_slice(&frames));
        let contact = crate::passes::storage_buffer(device, "contacts", &vec![0u8; n * 16]);
        let b = buffers;
        let common = include_str!("../../../shaders/common.wgsl");
        let mls_weight = include_str!("../../../shaders/mls_weight.wgsl");
        let mls = include_str!("../../../shaders/mls.wgsl");
        let eigen = include_str!("../../../shaders/symmetric_eigen.wgsl");
        let layout = include_str!("../../../shaders/implicit_work.wgsl");
        let collision = include_str!("../../../shaders/collision.wgsl");
        let corotated_source = include_str!("../../../shaders/corotated.wgsl");
        let cg_source = include_str!("../../../shaders/conjugate_gradient.wgsl");
        let implicit_source = include_str!("../../../shaders/implicit.wgsl");
        let corotated_sources = [common, mls_weight, mls, eigen, layout, corotated_source];
        let cg_sources = [common, mls_weight, layout, cg_source];
        let implicit_sources = [common, mls_weight, layout, collision, implicit_source];
        let corotated = |name: &str, bindings: &[(u32, &wgpu::Buffer)]| {
            Pass::new(
                device,
                b.params,
                b.edges,
                &corotated_sources,
                name,
                bindings,
            )
        };
        // Each entry point binds exactly what it uses (automatic layouts hold nothing else).
        let cg = |name: &str| {
            let bindings: &[(u32, &wgpu::Buffer)] = match name {
                "cg_start" => &[
                    (1, b.forces),
                    (2, b.phyxel),
                    (3, &work),
                    (4, &contact),
                    (5, &frames),
                ],
                "cg_product" => &[
                    (2, b.phyxel),
                    (3, &work),
                    (4, &contact),
                    (6, b.force_matrix),
                    (7, b.mls_frame),
                    (8, b.reverse_start),
                    (9, b.reverse),
                ],
                "cg_update" => &[(3, &work), (5, &frames)],
                "cg_finish" => &[(2, b.phyxel), (3, &work), (4, &contact)],
                _ => &[(3, &work)],
            };
            Pass::new(device, b.params, b.edges, &cg_sources, name, bindings)
        };
        let implicit = |name: &str, bindings: &[(u32, &wgpu::Buffer)]| {
            Pass::new(device, b.params, b.edges, &implicit_sources, name, bindings)
        };
        let stiffness_bindings = [
            (2, b.start),
            (3, b.neighbour),
            (4, b.mls_frame),
            (5, b.phyxel),
            (6, &frames),
            (7, b.force_matrix),
            (8, &work),
            (12, &contact),
        ];
        let step_buffers = [(4, b.forces), (5, b.phyxel), (8, &work), (9, &contact)];
        let with_work = |extra: &[(u32, &'a wgpu::Buffer)]| joined(&step_buffers, extra);
        Self {
            settings,
            budget: Arc::new(AtomicUsize::new(settings.max_iterations)),
            phyxels: n,
            corotated_stresses: corotated(
                "corotated_stresses",
                &[
                    (1, b.displacement),
                    (2, b.start),
                    (3, b.neighbour),
                    (4, b.mls_frame),
                    (5, b.phyxel),
                    (6, &frames),
                    (7, b.force_matrix),
                ],
            ),
            gather_forces: crate::solver::gather_forces_pass(device, b),
            implicit_begin: implicit(
                "implicit_begin",
                &with_work(&[
                    (1, b.reference),
                    (2, b.displacement),
                    (3, b.velocity),
                    (6, b.colliders),
                ]),
            ),
            stiffness_stresses: corotated("stiffness_stresses", &stiffness_bindings),
            implicit_rhs: implicit("implicit_rhs", &with_work(&[])),
            stiffness_diagonal: corotated(
                "stiffness_diagonal",
                &[
                    (4, b.mls_frame),
                    (5, b.phyxel),
                    (6, &frames),
                    (8, &work),
                    (9, b.reverse_start),
                    (10, b.reverse),
                    (12, &contact),
                ],
            ),
            cg_start: cg("cg_start"),
            cg_reduce_start: cg("cg_reduce_start"),
            cg_stiffness_stresses: corotated("cg_stiffness_stresses", &stiffness_bindings),
            cg_product: cg("cg_product"),
            cg_reduce_curvature: cg("cg_reduce_curvature"),
            cg_update: cg("cg_update"),
            cg_reduce_direction: cg("cg_reduce_direction"),
            cg_finish: cg("cg_finish"),
            contact_impulses: implicit("contact_impulses", &with_work(&[])),
            cg_restart: implicit("cg_restart", &[(5, b.phyxel), (8, &work), (9, &contact)]),
            implicit_integrate: implicit(
                "implicit_integrate",
                &[
                    (2, b.displacement),
                    (3, b.velocity),
                    (5, b.phyxel),
                    (7, b.status),
                    (8, &work),
                    (9, &contact),
                ],
            ),
            rotation_per_step: implicit(
                "rotation_per_step",
                &[
                    (3, b.velocity),
                    (7, b.status),
                    (10, b.start),
                    (11, b.neighbour),
                    (12, b.mls_frame),
                ],
            ),
            implicit_collide: implicit(
                "implicit_collide",
                &[
                    (1, b.reference),
                    (2, b.displacement),
                    (3, b.velocity),
                    (5, b.phyxel),
                    (6, b.colliders),
                ],
            ),
            plastic_flow_multiplicative: corotated(
                "plastic_flow_multiplicative",
                &[
                    (1, b.displacement),
                    (2, b.start),
                    (3, b.neighbour),
                    (4, b.mls_frame),
                    (5, b.phyxel),
                    (6, &frames),
                ],
            ),
            work,
            frames,
        }
    }

    /// Queue one implicit step (without the melting passes, which the solver adds after it).
    pub fn encode(&self, compute: &mut wgpu::ComputePass) {
        let groups = (self.phyxels as u32).div_ceil(crate::solver::WORKGROUP_SIZE);
        let run = |compute: &mut wgpu::ComputePass, pass: &Pass| pass.dispatch(compute, groups);
        let reduce = |compute: &mut wgpu::ComputePass, pass: &Pass| pass.dispatch(compute, 1);
        run(compute, &self.corotated_stresses);
        run(compute, &self.gather_forces);
        run(compute, &self.implicit_begin);
        run(compute, &self.stiffness_stresses);
        run(compute, &self.gather_forces);
        run(compute, &self.implicit_rhs);
        for solve in 0..2 {
            if solve == 1 {
                run(compute, &self.cg_restart);
            }
            run(compute, &self.stiffness_diagonal);
            run(compute, &self.stiffness_stresses);
            run(compute, &self.gather_forces);
            run(compute, &self.cg_start);
            reduce(compute, &self.cg_reduce_start);
            for _ in 0..self.budget.load(Ordering::Relaxed) {
                run(compute, &self.cg_stiffness_stresses);
                run(compute, &self.cg_product);
                reduce(compute, &self.cg_reduce_curvature);
                run(compute, &self.cg_update);
                reduce(compute, &self.cg_reduce_direction);
            }
            run(compute, &self.cg_finish);
            run(compute, &self.stiffness_stresses);
            run(compute, &self.gather_forces);
            run(compute, &self.contact_impulses);
        }
        run(compute, &self.implicit_integrate);
        run(compute, &self.rotation_per_step);
        run(compute, &self.implicit_collide);
    }

    /// Queue the multiplicative plastic flow (after the step and the melting passes, as on the CPU).
    pub fn encode_plastic_flow(&self, compute: &mut wgpu::ComputePass) {
        let groups = (self.phyxels as u32).div_ceil(crate::solver::WORKGROUP_SIZE);
        self.plastic_flow_multiplicative.dispatch(compute, groups);
    }

    /// Where the CG scalars sit in the work buffer (bytes) and how many bytes they take.
    pub fn scalars_range(&self) -> (u64, u64) {
        ((SECTIONS * self.phyxels * 16) as u64, (SCALARS * 16) as u64)
    }
}

/// The bindings `a` followed by `b`.
fn joined<'a>(
    a: &[(u32, &'a wgpu::Buffer)],
    b: &[(u32, &'a wgpu::Buffer)],
) -> Vec<(u32, &'a wgpu::Buffer)> {
    [a, b].concat()
}

/// The iteration budget after a read-back of `solve` (module docs): 2 × its iterations + 16 when it
/// converged, else twice the budget; within [16, limit].
pub(crate) fn next_budget(solve: &SolveStats, budget: usize, limit: usize) -> usize {
    let wanted = if solve.converged {
        2 * solve.iterations + 16
    } else {
        2 * budget
    };
    wanted.clamp(16.min(limit), limit)
}

/// The CG statistics of the last step from the work buffer's scalars (shaders/implicit_work.wgsl).
pub(crate) fn solve_stats(scalars: &[f32]) -> SolveStats {
    let state = scalars[7];
    SolveStats {
        iterations: scalars[6] as usize,
        relative_residual: f64::from(scalars[11]),
        converged: state == 1.0 || state == 3.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_iteration_budget_follows_the_solves_within_the_limit() {
        let solve = |iterations, converged| SolveStats {
            iterations,
            relative_residual: 0.0,
            converged,
        };
        assert_eq!(next_budget(&solve(30, true), 500, 500), 76);
        assert_eq!(next_budget(&solve(300, true), 76, 500), 500);
        assert_eq!(next_budget(&solve(76, false), 76, 500), 152);
        assert_eq!(next_budget(&solve(0, true), 76, 500), 16);
        assert_eq!(
            next_budget(&solve(0, true), 5, 5),
            5,
            "never above the limit"
        );
    }
}
