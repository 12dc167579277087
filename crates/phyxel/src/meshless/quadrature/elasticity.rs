//! Corotated linear elasticity summed over the integration points (seed 003 §3.4–3.5, eqs. 9–14), in
//! the deformation-gradient form of the nodal corotated model (Zhou et al. 2013 §3.1):
//!
//! F_I = I + Σ_i u_i ∇φ_iᵀ (at x_I),  F_e,I = F_I F_p,I⁻¹,  R_I = polar(F_e,I),
//! ε_I = sym(R_Iᵀ F_e,I) − I,  σ_I = λ_I tr(ε_I) I + 2μ_I ε_I,  P_I = R_I σ_I F_p,I⁻ᵀ,
//!
//! U = Σ_I v_I ½ ε_I:σ_I and f_i = −∂U/∂u_i = −Σ_I v_I P_I ∇φ_i(x_I) — seed 003 eq. 12 with the
//! rotation taken per integration point (its eq. 11 builds R_I from the neighbourhood; the polar
//! rotation of F_I is the same frame for an affine neighbourhood). With the rotations frozen, the
//! stiffness product is K δu: δF_I = Σ_j δu_j ∇φ_jᵀ F_p,I⁻¹, δP_I = R_I C(sym(R_Iᵀ δF_I)) F_p,I⁻ᵀ,
//! (K δu)_i = −Σ_I v_I δP_I ∇φ_i — eq. 14 without assembling K. Every particle gathers over the edges
//! that reach it, so no two threads write one force. A held surface ([`super::HeldSurface`]) adds its
//! penalty's (linear) force, energy and stiffness to each.

use super::{Lame, Quadrature};
use crate::meshless::elasticity::{
    corotated_diagonal_block, corotated_force_differential, corotated_stress, plastic_inverse_of,
    PhyxelStress,
};
use crate::meshless::mls::outer;
use crate::meshless::polar::polar_rotation;
use crate::parallel::map_indices;
use glam::{DMat3, DVec3};

impl Quadrature {
    /// F_I = I + Σ_i u_i ∇φ_iᵀ at integration point I.
    pub fn deformation_gradient(&self, point: usize, displacement: &[DVec3]) -> DMat3 {
        let shape = &self.shape;
        shape.edges(point).fold(DMat3::IDENTITY, |f, e| {
            f + outer(displacement[shape.particle[e] as usize], shape.gradient[e])
        })
    }

    fn plastic_inverse(&self, point: usize) -> DMat3 {
        plastic_inverse_of(self.plastic_deformation[point])
    }

    /// R_I = polar(F_I F_p,I⁻¹) of every integration point.
    pub fn rotations(&self, displacement: &[DVec3]) -> Vec<DMat3> {
        map_indices(self.len(), |k| {
            polar_rotation(self.deformation_gradient(k, displacement) * self.plastic_inverse(k))
        })
    }

    /// The corotated state of integration point I ([`corotated_stress`] with v_I): its force matrix
    /// is M_I = −v_I P_I.
    fn point_stress(&self, point: usize, displacement: &[DVec3], rotation: DMat3) -> PhyxelStress {
        self.point_stress_with(point, displacement, |_| rotation)
    }

    /// [`Quadrature::point_stress`] with the rotation taken from the elastic deformation gradient
    /// F_I F_p,I⁻¹ by `rotation_of`.
    fn point_stress_with(
        &self,
        point: usize,
        displacement: &[DVec3],
        rotation_of: impl Fn(DMat3) -> DMat3,
    ) -> PhyxelStress {
        let plastic_inverse = self.plastic_inverse(point);
        let elastic = self.deformation_gradient(point, displacement) * plastic_inverse;
        let Lame { lambda, mu } = self.point_lame(point);
        let volume = self.points.volume[point];
        corotated_stress(
            elastic,
            rotation_of(elastic),
            plastic_inverse,
            volume,
            lambda,
            mu,
        )
    }

    /// f_i = −Σ_I v_I P_I ∇φ_i(x_I) at `displacement` with the rotations `rotations`, and the held
    /// surface's penalty force.
    pub fn forces(&self, displacement: &[DVec3], rotations: &[DMat3]) -> Vec<DVec3> {
        let mut forces = self.material_forces(displacement, rotations);
        if let Some(held) = &self.held {
            held.add_forces(displacement, &mut forces);
        }
        forces
    }

    /// The material's part of [`Quadrature::forces`], without the held surface's penalty.
    pub fn material_forces(&self, displacement: &[DVec3], rotations: &[DMat3]) -> Vec<DVec3> {
        let force_matrices = map_indices(self.len(), |k| {
            self.point_stress(k, displacement, rotations[k])
                .force_matrix
        });
        self.gather(&force_matrices)
    }

    /// [`Quadrature::material_forces`] with each point's rotation taken from `displacement` in the
    /// same pass (F_I computed once per point): what an explicit step needs.
    pub fn material_forces_at(&self, displacement: &[DVec3]) -> Vec<DVec3> {
        let force_matrices = map_indices(self.len(), |k| {
            self.point_stress_with(k, displacement, polar_rotation)
                .force_matrix
        });
        self.gather(&force_matrices)
    }

    /// U = Σ_I v_I ½ ε_I:σ_I with the rotations of `displacement`.
    pub fn energy(&self, displacement: &[DVec3]) -> f64 {
        let rotations = self.rotations(displacement);
        let held = self.held.as_ref().map_or(0.0, |h| h.energy(displacement));
        held + (0..self.len())
            .map(|k| self.point_stress(k, displacement, rotations[k]).energy)
            .sum::<f64>()
    }

    /// K δu at frozen rotations (module docs).
    pub fn stiffness_product(&self, rotations: &[DMat3], du: &[DVec3]) -> Vec<DVec3> {
        let differentials = map_indices(self.len(), |k| {
            let plastic_inverse = self.plastic_inverse(k);
            let shape = &self.shape;
            let df = shape.edges(k).fold(DMat3::ZERO, |f, e| {
                f + outer(du[shape.particle[e] as usize], shape.gradient[e])
            }) * plastic_inverse;
            let Lame { lambda, mu } = self.point_lame(k);
            let volume = self.points.volume[k];
            corotated_force_differential(df, rotations[k], plastic_inverse, volume, lambda, mu)
        });
        let mut product = self.gather(&differentials);
        if let Some(held) = &self.held {
            held.add_forces(du, &mut product);
        }
        product
    }

    /// The 3 × 3 diagonal blocks K_ii = −Σ_I v_I R_I (μ|c|² I + (λ + μ) c cᵀ) R_Iᵀ with
    /// c = F_p,I⁻ᵀ ∇φ_i(x_I), for block-Jacobi preconditioning.
    pub fn stiffness_diagonal(&self, rotations: &[DMat3]) -> Vec<DMat3> {
        let shape = &self.shape;
        // F_p,I⁻ᵀ and λ_I, μ_I once per point, not once per edge.
        let points = map_indices(self.len(), |k| {
            (self.plastic_inverse(k).transpose(), self.point_lame(k))
        });
        let mut blocks = map_indices(self.particle_count(), |i| {
            shape.edges_into(i).iter().fold(DMat3::ZERO, |sum, &e| {
                let k = shape.owner[e as usize] as usize;
                let (plastic_inverse_transpose, Lame { lambda, mu }) = points[k];
                let c = plastic_inverse_transpose * shape.gradient[e as usize];
                let volume = self.points.volume[k];
                sum + corotated_diagonal_block(c, rotations[k], volume, lambda, mu)
            })
        });
        if let Some(held) = &self.held {
            held.add_diagonal(&mut blocks);
        }
        blocks
    }

    /// f_i = Σ_{edges e into i} M_{I(e)} ∇φ_e with the points' force matrices M_I = −v_I P_I.
    fn gather(&self, force_matrices: &[DMat3]) -> Vec<DVec3> {
        let shape = &self.shape;
        map_indices(self.particle_count(), |i| {
            shape.edges_into(i).iter().fold(DVec3::ZERO, |f, &e| {
                f + force_matrices[shape.owner[e as usize] as usize] * shape.gradient[e as usize]
            })
        })
    }
}
