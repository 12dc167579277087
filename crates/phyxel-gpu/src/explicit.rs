//! The MKN04 explicit step on the device (Müller et al. 2004; `Simulation::step` with symplectic
//! Euler), in step order: pass 3, `phyxel_stresses` (∇u_i = Σ_j (u_j − u_i) d_ijᵀ, MKN04 eq. 8; the
//! Green strain, Hooke's stress and the force matrix M_i = −V_i (J σ + k_v (det J − 1) cof J), MKN04
//! §4); pass 4, `gather_forces` (phyxel k receives −M_k Σ_j d_kj plus M_i d_ik from every
//! neighbourhood i holding it, over the reverse lists); pass 5, `integrate`
//! (v ← v + Δt ((f + f_drag)/m + g − c v), u ← u + Δt v, the travel bound, the colliders); and after
//! the heat passes (`crate::heat`) pass 7, `plastic_flow` (the additive flow of ε_p, MKN04 §5.1). A
//! body with fracture forms its d_ij with the cracks' weight factors and its stresses at the rest
//! corrections (shaders/cut_weights.wgsl, `BodyBuffers::cut`).

use crate::body::BodyBuffers;
use crate::passes::{joined, Pass};
use crate::wgsl::source;

/// Pass 4, the force gather: `forces` from the force matrices (shared with the implicit step, which
/// gathers K p the same way).
pub fn gather_forces(device: &wgpu::Device, b: &BodyBuffers) -> Pass {
    let sources = [
        source::COMMON,
        source::MLS_WEIGHT,
        b.weights_source(),
        source::GATHER_FORCES,
    ];
    let bindings = [
        (0, &b.params),
        (1, &b.force_matrix),
        (2, &b.start),
        (3, &b.mls_frame),
        (4, &b.reverse_start),
        (5, &b.edges.reverse),
        (7, &b.forces),
        (8, &b.edges.neighbour),
    ];
    let bindings = joined(&bindings, &b.cut_bindings(&[10, 11]));
    b.edges
        .pass(device, &sources, "gather_forces", &bindings, b.workgroups())
}

/// The explicit step's passes.
pub struct ExplicitStep {
    pub phyxel_stresses: Pass,
    pub gather_forces: Pass,
    pub integrate: Pass,
    /// Run when the material is plastic, after the heat passes.
    pub plastic_flow: Pass,
}

impl ExplicitStep {
    pub fn new(device: &wgpu::Device, b: &BodyBuffers) -> Self {
        // phyxel_stresses and plastic_flow share the MLS gradient and the Green strain (mls.wgsl).
        let weights = b.weights_source();
        let gradient = |file| {
            [
                source::COMMON,
                source::MLS_WEIGHT,
                weights,
                source::MLS,
                file,
            ]
        };
        let pass = |sources: &[&str], entry, buffers: &[(u32, &wgpu::Buffer)]| {
            let bound = joined(&[(0, &b.params)], buffers);
            b.edges.pass(device, sources, entry, &bound, b.workgroups())
        };
        let gradient_bindings = joined(&b.gradient_bindings(), &[(6, &b.plastic_strain)]);
        let gradient_bindings = joined(&gradient_bindings, &b.cut_bindings(&[10, 12]));
        Self {
            phyxel_stresses: pass(
                &gradient(source::PHYXEL_STRESSES),
                "phyxel_stresses",
                &joined(&gradient_bindings, &[(7, &b.force_matrix)]),
            ),
            gather_forces: gather_forces(device, b),
            integrate: pass(
                &[
                    source::COMMON,
                    source::COLLISION,
                    source::COLLIDERS,
                    source::INTEGRATE,
                ],
                "integrate",
                &[
                    (1, &b.reference),
                    (2, &b.displacement),
                    (3, &b.velocity),
                    (4, &b.forces),
                    (5, &b.phyxel),
                    (6, &b.colliders),
                    (7, &b.status),
                ],
            ),
            plastic_flow: pass(
                &gradient(source::PLASTIC_FLOW),
                "plastic_flow",
                &joined(&gradient_bindings, &[(7, &b.status)]),
            ),
        }
    }

    /// Passes 3 to 5, in step order.
    pub fn elastic(&self) -> [&Pass; 3] {
        [&self.phyxel_stresses, &self.gather_forces, &self.integrate]
    }
}
