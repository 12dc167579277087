//! The corotated implicit Euler step on the GPU: the twin of `phyxel::meshless::implicit`
//! (`velocity_change` with `deflation::solve_deflated`, or `conjugate_gradient::solve` for a quadrature
//! body holding a surface) and of `Simulation::advance_implicit`, in the
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
//!
//! Single precision and the iteration count: the corotated stress ε = sym(Rᵀ F_e) − I,
//! σ = λ tr(ε) I + 2μ ε (Zhou et al. 2013 §3.1), formed next to the identity (F_e = I + ∇u, R from its
//! polar decomposition) resolves the strain to about 2⁻²⁴ ≈ 6·10⁻⁸ and the stress to E·6·10⁻⁸ only. A
//! body at rest has a right-hand side b = Δt (f_elastic + M g) + … made of nothing else, while CG
//! stops at 10⁻⁵ of Δt‖M g‖ (`Tolerance::reference_norm`), so the device solved that noise at every
//! step: measured 2026-11-25 on the quadrature landing cube (tests/parity.rs, step 120), it started CG
//! at a relative residual of 2.3·10⁻⁴ (2.3·10⁻³ at E = 10 MPa: in proportion to E) against the CPU's
//! 0.8–1.3·10⁻⁵, and took 4–6 iterations a step at rest where the CPU took 0–1 (476 against 48 over
//! steps 101–200). elasticity.wgsl's `corotated_stress` therefore takes H = F_e − I and sums
//! ε = sym(H + Wᵀ + Wᵀ H) with W = R − I from R's quaternion (`rotation_deviation`), and the
//! quadrature's rows sum Σ_i (u_i − u_o) ∇φ_i without the common translation: 52 against 48 at rest
//! now, 661 against 644 over the first 40 steps (670 before), and the nodal landing cube's 40th step
//! 20 iterations against the CPU's 19 (22 before).

use crate::body::BodyBuffers;
use crate::context::{GpuContext, GpuError};
use crate::edge_windows::EdgeWindowPlan;
use crate::explicit::gather_forces;
use crate::layout::{gpu_mat3, vec4, ImplicitFrame};
use crate::passes::{joined, storage_buffer, zeroed, Pass};
use crate::quadrature::{QuadratureStep, StepBuffers};
use crate::wgsl::{source, work};
use glam::{DMat3, DVec3};
use phyxel::meshless::body::Body;
use phyxel::meshless::implicit::{CorotatedImplicit, SolveStats};
use phyxel::meshless::kernel::poly6;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The implicit step's pipelines, bindings and buffers.
pub struct ImplicitStep {
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
    cg_drop_guess: Pass,
    /// The deflation by the rigid translations (conjugate_gradient.wgsl), None where the CPU solves
    /// undeflated (`Body::holds_a_surface`).
    deflation: Option<[Pass; 4]>,
    cg_stiffness_stresses: Pass,
    cg_product: Pass,
    cg_reduce_curvature: Pass,
    cg_update: Pass,
    cg_reduce_direction: Pass,
    cg_finish: Pass,
    contact_impulses: Pass,
    prescribed_rhs: Pass,
    cg_restart: Pass,
    implicit_integrate: Pass,
    rotation_per_step: Pass,
    implicit_collide: Pass,
    plastic_flow_multiplicative: Pass,
    /// A body integrated by background quadrature: the passes that take the nodal model's place.
    quadrature: Option<QuadratureStep>,
    /// [`ImplicitFrame`] per phyxel (F_p⁻¹ read back as the plastic deformation).
    pub frames: wgpu::Buffer,
}

impl ImplicitStep {
    /// The step for `body`, uploaded as `b`; a body with background quadrature is refused beyond the
    /// device's limits.
    pub fn new(
        gpu: &GpuContext,
        b: &BodyBuffers,
        body: &Body,
        settings: CorotatedImplicit,
    ) -> Result<Self, GpuError> {
        let device = &gpu.device;
        let n = body.len();
        // The work buffer: zero but for Σ_j x̄_ij w_ij (w_ij = poly6(|x̄_ij|, h_i), MKN04 eq. 7).
        let mut work = vec![[0f32; 4]; work::len(n)];
        let own_offsets = work::OWN_OFFSETS as usize * n;
        for (i, slot) in work[own_offsets..own_offsets + n].iter_mut().enumerate() {
            let own: DVec3 = body
                .neighbours
                .edges(i)
                .map(|e| {
                    let x_ij =
                        body.reference[body.neighbours.neighbour[e] as usize] - body.reference[i];
                    x_ij * poly6(x_ij.length(), body.support_radius[i])
                })
                .sum();
            *slot = vec4(own);
        }
        // The deflation's switch (`implicit::velocity_change` deflates unless the body is a quadrature
        // body holding a surface by a penalty, whose K pulls a translation back).
        let deflated = !body.holds_a_surface();
        let deflation_slot = work::SECTIONS as usize * n + work::DEFLATION_SLOT as usize;
        work[deflation_slot][3] = if deflated { 1.0 } else { 0.0 };
        let work = storage_buffer(device, "implicit work", bytemuck::cast_slice(&work));
        let frames: Vec<ImplicitFrame> = body
            .plastic_deformation
            .iter()
            .map(|f_p| ImplicitFrame {
                rotation: gpu_mat3(DMat3::IDENTITY),
                plastic_inverse: gpu_mat3(f_p.inverse()),
                precondition: gpu_mat3(DMat3::IDENTITY),
            })
            .collect();
        let frames = storage_buffer(device, "frames", bytemuck::cast_slice(&frames));
        let contact = zeroed(device, "contacts", n * 16);
        let (neighbour, reverse) = (&b.edges.neighbour, &b.edges.reverse);
        let (common, mls_weight, layout) =
            (source::COMMON, source::MLS_WEIGHT, source::IMPLICIT_WORK);
        let corotated_sources = [
            common,
            mls_weight,
            source::UNCUT_WEIGHTS,
            source::MLS,
            source::SYMMETRIC_EIGEN,
            source::POLAR,
            source::ELASTICITY,
            layout,
            source::PLASTICITY,
            source::COROTATED,
        ];
        let cg_sources = [common, mls_weight, layout, source::CONJUGATE_GRADIENT];
        let implicit_sources = [
            common,
            mls_weight,
            layout,
            source::COLLISION,
            source::COLLIDERS,
            source::IMPLICIT,
        ];
        let groups = b.workgroups();
        // Each entry point binds exactly what it uses (automatic layouts hold nothing else), the step
        // parameters at binding 0; the reductions run in one workgroup.
        let pass = |sources: &[&str], entry: &str, buffers: &[(u32, &wgpu::Buffer)]| {
            let workgroups = if entry.starts_with("cg_reduce") {
                1
            } else {
                groups
            };
            let bound = joined(&[(0, &b.params)], buffers);
            b.edges.pass(device, sources, entry, &bound, workgroups)
        };
        let corotated =
            |entry, buffers: &[(u32, &wgpu::Buffer)]| pass(&corotated_sources, entry, buffers);
        let implicit =
            |entry, buffers: &[(u32, &wgpu::Buffer)]| pass(&implicit_sources, entry, buffers);
        let cg = |entry: &str| {
            let buffers: &[(u32, &wgpu::Buffer)] = match entry {
                "cg_start" => &[
                    (1, &b.forces),
                    (2, &b.phyxel),
                    (3, &work),
                    (4, &contact),
                    (5, &frames),
                ],
                "cg_product" => &[
                    (2, &b.phyxel),
                    (3, &work),
                    (4, &contact),
                    (6, &b.force_matrix),
                    (7, &b.mls_frame),
                    (8, &b.reverse_start),
                    (9, reverse),
                ],
                "cg_drop_guess" | "cg_update" | "cg_deflate_start" => {
                    &[(2, &b.phyxel), (3, &work), (4, &contact), (5, &frames)]
                }
                "translations" => &[(2, &b.phyxel), (3, &work), (4, &contact)],
                "cg_finish" => &[(2, &b.phyxel), (3, &work), (4, &contact)],
                _ => &[(3, &work)],
            };
            pass(&cg_sources, entry, buffers)
        };
        let stiffness_bindings = [
            (2, &b.start),
            (3, neighbour),
            (4, &b.mls_frame),
            (5, &b.phyxel),
            (6, &frames),
            (7, &b.force_matrix),
            (8, &work),
            (12, &contact),
        ];
        let gradient = joined(&b.gradient_bindings(), &[(6, &frames)]);
        let step_buffers = [(4, &b.forces), (5, &b.phyxel), (8, &work), (9, &contact)];
        let quadrature = match body.quadrature() {
            Some(q) => Some(QuadratureStep::new(
                device,
                &gpu.limits,
                b,
                q,
                StepBuffers {
                    work: &work,
                    frames: &frames,
                    contact: &contact,
                },
            )?),
            None => None,
        };
        Ok(Self {
            settings,
            budget: Arc::new(AtomicUsize::new(settings.max_iterations)),
            phyxels: n,
            corotated_stresses: corotated(
                "corotated_stresses",
                &joined(&gradient, &[(7, &b.force_matrix)]),
            ),
            gather_forces: gather_forces(device, b),
            implicit_begin: implicit(
                "implicit_begin",
                &joined(
                    &step_buffers,
                    &[
                        (1, &b.reference),
                        (2, &b.displacement),
                        (3, &b.velocity),
                        (6, &b.colliders),
                    ],
                ),
            ),
            stiffness_stresses: corotated("stiffness_stresses", &stiffness_bindings),
            implicit_rhs: implicit("implicit_rhs", &joined(&step_buffers, &[])),
            stiffness_diagonal: corotated(
                "stiffness_diagonal",
                &[
                    (4, &b.mls_frame),
                    (5, &b.phyxel),
                    (6, &frames),
                    (8, &work),
                    (9, &b.reverse_start),
                    (10, reverse),
                    (12, &contact),
                ],
            ),
            cg_start: cg("cg_start"),
            cg_reduce_start: cg("cg_reduce_start"),
            cg_drop_guess: cg("cg_drop_guess"),
            deflation: deflated.then(|| {
                [
                    cg("translations"),
                    cg("cg_reduce_translations"),
                    cg("cg_deflate_start"),
                    cg("cg_reduce_deflated_start"),
                ]
            }),
            cg_stiffness_stresses: corotated("cg_stiffness_stresses", &stiffness_bindings),
            cg_product: cg("cg_product"),
            cg_reduce_curvature: cg("cg_reduce_curvature"),
            cg_update: cg("cg_update"),
            cg_reduce_direction: cg("cg_reduce_direction"),
            cg_finish: cg("cg_finish"),
            contact_impulses: implicit(
                "contact_impulses",
                &joined(&step_buffers, &[(3, &b.velocity)]),
            ),
            cg_restart: implicit("cg_restart", &[(8, &work)]),
            prescribed_rhs: implicit("prescribed_rhs", &step_buffers),
            implicit_integrate: implicit(
                "implicit_integrate",
                &[
                    (2, &b.displacement),
                    (3, &b.velocity),
                    (5, &b.phyxel),
                    (7, &b.status),
                    (8, &work),
                ],
            ),
            rotation_per_step: implicit(
                "rotation_per_step",
                &[
                    (3, &b.velocity),
                    (7, &b.status),
                    (10, &b.start),
                    (11, neighbour),
                    (12, &b.mls_frame),
                ],
            ),
            implicit_collide: implicit(
                "implicit_collide",
                &[
                    (1, &b.reference),
                    (2, &b.displacement),
                    (3, &b.velocity),
                    (5, &b.phyxel),
                    (6, &b.colliders),
                ],
            ),
            plastic_flow_multiplicative: corotated("plastic_flow_multiplicative", &gradient),
            quadrature,
            work,
            frames,
        })
    }

    /// Queue one implicit step (without the melting passes, which the solver adds after it).
    pub fn encode(&self, compute: &mut wgpu::ComputePass) {
        let run = |compute: &mut wgpu::ComputePass, passes: &[&Pass]| {
            for pass in passes {
                pass.dispatch(compute);
            }
        };
        // The elastic model's passes: the nodal one's, or the quadrature's (quadrature.rs).
        let nodal_forces = [&self.corotated_stresses, &self.gather_forces];
        // K applied to Q (stiffness_stresses), gathered into forces.
        let nodal_stiffness = [&self.stiffness_stresses, &self.gather_forces];
        let nodal_cg_product = [&self.cg_stiffness_stresses, &self.cg_product];
        let (forces, stiffness, diagonal, cg_product): (&[&Pass], &[&Pass], &[&Pass], &[&Pass]) =
            match &self.quadrature {
                Some(q) => (&q.forces(), &q.stiffness(), &q.diagonal(), &q.cg_product()),
                None => (
                    &nodal_forces,
                    &nodal_stiffness,
                    &[&self.stiffness_diagonal],
                    &nodal_cg_product,
                ),
            };
        run(compute, forces);
        run(compute, &[&self.implicit_begin]);
        run(compute, stiffness);
        run(compute, &[&self.implicit_rhs]);
        for solve in 0..2 {
            if solve == 1 {
                // The changed contacts' K Δz̄ for the prescribed right-hand side.
                run(compute, &[&self.cg_restart]);
                run(compute, stiffness);
                run(compute, &[&self.prescribed_rhs]);
            }
            run(compute, diagonal);
            run(compute, stiffness);
            run(
                compute,
                &[&self.cg_start, &self.cg_reduce_start, &self.cg_drop_guess],
            );
            if let Some(deflation) = &self.deflation {
                run(compute, &deflation.each_ref());
            }
            for _ in 0..self.budget.load(Ordering::Relaxed) {
                run(compute, cg_product);
                run(
                    compute,
                    &[
                        &self.cg_reduce_curvature,
                        &self.cg_update,
                        &self.cg_reduce_direction,
                    ],
                );
            }
            run(compute, &[&self.cg_finish]);
            run(compute, stiffness);
            run(compute, &[&self.contact_impulses]);
        }
        run(
            compute,
            &[
                &self.implicit_integrate,
                &self.rotation_per_step,
                &self.implicit_collide,
            ],
        );
    }

    /// Queue the multiplicative plastic flow (after the step and the melting passes, as on the CPU):
    /// at the phyxels, or at the integration points of a body with background quadrature.
    pub fn encode_plastic_flow(&self, compute: &mut wgpu::ComputePass) {
        match &self.quadrature {
            Some(q) => q.plastic_flow().dispatch(compute),
            None => self.plastic_flow_multiplicative.dispatch(compute),
        }
    }

    /// Queue the softening of the integration points from the phyxels' stiffness factors (after the
    /// melting passes, as `Quadrature::soften` follows `Melting::heat` on the CPU); nothing for the
    /// nodal model, whose phyxels carry their own factors.
    pub fn encode_softening(&self, compute: &mut wgpu::ComputePass) {
        if let Some(q) = &self.quadrature {
            q.soften().dispatch(compute);
        }
    }

    /// The integration points' frames (R_I, F_p,I⁻¹) and how many integration points lead them (the
    /// held surface's points follow), for reading F_p,I back; None for the nodal model.
    pub fn point_frames(&self) -> Option<(wgpu::Buffer, u32)> {
        self.quadrature
            .as_ref()
            .map(|q| (q.point_frame.clone(), q.integration_points))
    }

    /// Points of the background quadrature (integration and held-surface points; 0 for the nodal
    /// model): `Params::points`.
    pub fn points(&self) -> u32 {
        self.quadrature.as_ref().map_or(0, |q| q.points)
    }

    /// The windows a quadrature's rows and reverse lists are bound in, if the body has one.
    pub fn quadrature_edge_windows(&self) -> Option<EdgeWindowPlan> {
        self.quadrature.as_ref().map(|q| q.edge_windows)
    }

    /// Where the CG scalars sit in the work buffer (bytes) and how many bytes they take.
    pub fn scalars_range(&self) -> (u64, u64) {
        let sections = work::SECTIONS as usize * self.phyxels;
        ((sections * 16) as u64, u64::from(work::SCALAR_SLOTS) * 16)
    }
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
    // Slot 1: (α, β, iterations, state); slot 2: (solve, released, skipped, relative residual).
    let state = scalars[7];
    SolveStats {
        iterations: scalars[6] as usize,
        relative_residual: f64::from(scalars[11]),
        converged: state == work::CONVERGED || state == work::ZERO_RHS,
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
