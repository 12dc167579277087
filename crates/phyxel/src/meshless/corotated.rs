//! Corotated linear elasticity on the MLS deformation gradient (Zhou et al. 2013 §3.1; Brunet et al.
//! 2019 §3.4; Müller & Gross 2004 for the corotational idea in FEM).
//!
//! Per phyxel i:
//!
//! * deformation gradient F_i = Q_i W_i P_iᵀ (P_i W_i P_iᵀ)⁻¹ (Zhou eq. 5) — with the MLS weights
//!   d_ij = A_i⁻¹ x̄_ij w_ij this is F_i = I + ∇u_i = I + Σ_j (u_j − u_i) d_ijᵀ (for a regular A_i);
//! * rotation R_i: the orthogonal polar factor of F_i = R_i S_i (Zhou: from the SVD F = U F̂ Vᵀ,
//!   R = U Vᵀ; Brunet §3.4: "extract a rotation matrix from the transformation matrix");
//! * multiplicative plasticity (Zhou §3.2, after Bargteil et al. 2007): F_i = F_e,i F_p,i (Zhou
//!   eq. 13), the plastic part F_p,i kept per phyxel ([`Body::plastic_deformation`]), so the elastic
//!   part is F_e,i = F_i F_p,i⁻¹ — the same as measuring F against the plastically deformed rest shape
//!   F_p,i x̄_ij (Zhou eq. 15). Elastic bodies have F_p = I and F_e = F;
//! * rotation R_i: the polar rotation of F_e,i;
//! * linear strain in the rotated frame ε_i = sym(R_iᵀ F_e,i) − I (Zhou eq. 6);
//! * Hooke stress σ_i = λ tr(ε_i) I + 2μ ε_i, energy U_i = V_i ½ ε_i:σ_i (Zhou eq. 7);
//! * first Piola stress ∂U_i/∂F_i = V_i R_i σ_i F_p,i⁻ᵀ, so the force matrix is M_i = −V_i R_i σ_i F_p,i⁻ᵀ
//!   and the forces are gathered exactly as for MKN04 ([`Body::gather_forces`]): Zhou eq. 8 with the
//!   rotations held fixed, which for the polar rotation is also the exact gradient of Σ_i U_i (the
//!   derivative of R drops out because RᵀδR is skew and σ symmetric).
//!
//! With the rotations frozen the forces are linear in the displacements, f = K u + f₀, and
//! K = ∂f/∂u is applied matrix-free by [`FrozenStiffness`] (Zhou eqs. 19–22: f = −Lᵀ C L Q + …;
//! Brunet eq. 14: K_ij = Σ_I v_I R B_iᵀ C B_j Rᵀ). Sign convention: K here is ∂f/∂x — symmetric and
//! negative semidefinite, the Baraff–Witkin sign of [`crate::integrators::LinearizedDynamics`].
//! The plastic part is frozen within a step too: [`super::plasticity::Plasticity::flow_multiplicative`]
//! updates it after the step (Zhou §3.2: "at the end of the time step we compute the plastic
//! deformations").
//! The volume-conservation term k_v of MKN04 is not part of this model (λ already penalizes volume
//! change).

use super::body::Body;
pub use super::elasticity::corotated_stress;
use super::elasticity::{
    corotated_diagonal_block, corotated_force_differential, hooke_stress, plastic_inverse_of,
    PhyxelStress,
};
pub use super::polar::{polar_rotation, symmetric_part};
use super::quadrature;
use crate::parallel::map_indices;
use glam::{DMat3, DVec3};

/// F_i = I + ∇u_i = I + Σ_j (u_j − u_i) d_ijᵀ (Zhou et al. 2013 eq. 5 with the MLS weights).
pub fn deformation_gradient(body: &Body, i: usize, displacement: &[DVec3]) -> DMat3 {
    DMat3::IDENTITY
        + body
            .mls
            .displacement_gradient(i, displacement, &body.neighbours)
}

/// F_p,i⁻¹, the inverse plastic deformation of phyxel i (the identity for an elastic phyxel).
pub fn plastic_inverse(body: &Body, i: usize) -> DMat3 {
    plastic_inverse_of(body.plastic_deformation[i])
}

/// The elastic part F_e,i = F_i F_p,i⁻¹ of phyxel i's deformation gradient (Zhou et al. 2013 eq. 13).
pub fn elastic_deformation_gradient(body: &Body, i: usize, displacement: &[DVec3]) -> DMat3 {
    deformation_gradient(body, i, displacement) * plastic_inverse(body, i)
}

/// The rotation R_i (polar rotation of F_e,i) of every phyxel at the displacements `displacement` —
/// or, for a body with background quadrature, R_I of every integration point.
pub fn rotations(body: &Body, displacement: &[DVec3]) -> Vec<DMat3> {
    if let Some(q) = body.quadrature() {
        return q.rotations(displacement);
    }
    map_indices(body.len(), |i| {
        polar_rotation(elastic_deformation_gradient(body, i, displacement))
    })
}

/// λ_i and μ_i of phyxel i (the material's, scaled by its stiffness factor).
fn lame(body: &Body, i: usize) -> (f64, f64) {
    let (lambda, mu) = body.material.lame();
    let s = body.stiffness_scale[i];
    (s * lambda, s * mu)
}

/// The corotated elastic state of every phyxel at `displacement` with the rotations `rotations` (the
/// nodal model; a body with background quadrature keeps its state at the integration points instead:
/// [`crate::meshless::quadrature::Quadrature::rotations`] and its `point_stress`).
pub fn stresses(body: &Body, displacement: &[DVec3], rotations: &[DMat3]) -> Vec<PhyxelStress> {
    map_indices(body.len(), |i| {
        let (lambda, mu) = lame(body, i);
        let plastic_inverse = plastic_inverse(body, i);
        corotated_stress(
            deformation_gradient(body, i, displacement) * plastic_inverse,
            rotations[i],
            plastic_inverse,
            body.volume[i],
            lambda,
            mu,
        )
    })
}

/// Elastic forces f = −∂U/∂u of the corotated model at `displacement` (rotations from the same
/// displacements).
pub fn forces(body: &Body, displacement: &[DVec3]) -> Vec<DVec3> {
    elastic_forces(body, displacement, &rotations(body, displacement))
}

/// The frames ([`rotations`]) and the elastic forces with them ([`elastic_forces`]) at
/// `displacement`: for a body with background quadrature in one pass over its points
/// ([`crate::meshless::quadrature::Quadrature::rotations_and_forces`]).
pub fn rotations_and_forces(body: &Body, displacement: &[DVec3]) -> (Vec<DMat3>, Vec<DVec3>) {
    if let Some(q) = body.quadrature() {
        return q.rotations_and_forces(displacement);
    }
    let rotations = rotations(body, displacement);
    let forces = elastic_forces(body, displacement, &rotations);
    (rotations, forces)
}

/// Elastic forces at `displacement` with the frames `rotations` (from [`rotations`]): the nodal
/// model's gather of [`stresses`], or the quadrature's sum over integration points.
pub fn elastic_forces(body: &Body, displacement: &[DVec3], rotations: &[DMat3]) -> Vec<DVec3> {
    match body.quadrature() {
        Some(q) => q.forces(displacement, rotations),
        None => body.gather_forces(&stresses(body, displacement, rotations)),
    }
}

/// Stored energy U = Σ_i V_i ½ ε_i:σ_i of the corotated model at `displacement`.
pub fn energy(body: &Body, displacement: &[DVec3]) -> f64 {
    if let Some(q) = body.quadrature() {
        return q.energy(displacement);
    }
    let rotations = rotations(body, displacement);
    stresses(body, displacement, &rotations)
        .iter()
        .map(|s| s.energy)
        .sum()
}

/// K = ∂f/∂u at frozen rotations (negative semidefinite; Zhou et al. 2013 eqs. 19–22, Brunet et
/// al. 2019 eq. 14), applied without assembling it: what the products and the diagonal blocks of
/// one solve share — the nodal model's rotations, or the quadrature's per-point frames in f32,
/// prepared once ([`quadrature::elasticity::FrozenStiffness`]). The displacements themselves do not
/// enter (K does not depend on them once the rotations are frozen).
pub enum FrozenStiffness<'a> {
    Nodal {
        body: &'a Body,
        rotations: &'a [DMat3],
    },
    Quadrature(quadrature::elasticity::FrozenStiffness<'a>),
}

impl<'a> FrozenStiffness<'a> {
    /// K of `body` at the frames `rotations` (from [`rotations`]: one per phyxel, or per
    /// integration point for a quadrature).
    pub fn at(body: &'a Body, rotations: &'a [DMat3]) -> Self {
        match body.quadrature() {
            Some(q) => Self::Quadrature(q.frozen_stiffness(rotations)),
            None => Self::Nodal { body, rotations },
        }
    }

    /// K δu: for the nodal model δF_e,i = Σ_j (δu_j − δu_i) d_ijᵀ F_p,i⁻¹, δσ_i = C sym(R_iᵀ
    /// δF_e,i), δM_i = −V_i R_i δσ_i F_p,i⁻ᵀ, then the same gather as the forces; for the quadrature
    /// the same at its points ([`quadrature::elasticity::FrozenStiffness::product`]).
    pub fn product(&self, du: &[DVec3]) -> Vec<DVec3> {
        match self {
            Self::Nodal { body, rotations } => nodal_stiffness_product(body, rotations, du),
            Self::Quadrature(k) => k.product(du),
        }
    }

    /// The 3 × 3 diagonal blocks K_kk of K, for block-Jacobi preconditioning (for the nodal model
    /// see `nodal_stiffness_diagonal`).
    pub fn diagonal(&self) -> Vec<DMat3> {
        match self {
            Self::Nodal { body, rotations } => nodal_stiffness_diagonal(body, rotations),
            Self::Quadrature(k) => k.diagonal(),
        }
    }
}

/// K·δu at frozen rotations, for one product ([`FrozenStiffness::product`]; a solve prepares the
/// [`FrozenStiffness`] once).
pub fn stiffness_product(body: &Body, rotations: &[DMat3], du: &[DVec3]) -> Vec<DVec3> {
    FrozenStiffness::at(body, rotations).product(du)
}

/// The diagonal blocks of K at frozen rotations ([`FrozenStiffness::diagonal`]).
pub fn stiffness_diagonal(body: &Body, rotations: &[DMat3]) -> Vec<DMat3> {
    FrozenStiffness::at(body, rotations).diagonal()
}

/// The nodal model's K·δu ([`FrozenStiffness::product`]).
fn nodal_stiffness_product(body: &Body, rotations: &[DMat3], du: &[DVec3]) -> Vec<DVec3> {
    let differentials = map_indices(body.len(), |i| {
        let (lambda, mu) = lame(body, i);
        let plastic_inverse = plastic_inverse(body, i);
        let df = body.mls.displacement_gradient(i, du, &body.neighbours) * plastic_inverse;
        let (r, volume) = (rotations[i], body.volume[i]);
        let dsigma = hooke_stress(symmetric_part(r.transpose() * df), lambda, mu);
        PhyxelStress {
            strain: DMat3::ZERO,
            stress: dsigma,
            force_matrix: corotated_force_differential(df, r, plastic_inverse, volume, lambda, mu),
            energy: 0.0,
        }
    });
    body.gather_forces(&differentials)
}

/// The nodal model's 3×3 diagonal blocks K_kk of K = ∂f/∂u at frozen rotations.
///
/// Phyxel i's energy depends on u_k through δF_e,i = δu_k c_ikᵀ with c_ik = F_p,i⁻ᵀ d_ik (k a
/// neighbour) or c_ii = −F_p,i⁻ᵀ Σ_j d_ij, and δ²U_i = V_i wᵀ (μ|c|² I + (λ + μ) c cᵀ) w with
/// w = R_iᵀ δu_k, so K_kk = −Σ_i V_i R_i (μ|c_ik|² I + (λ + μ) c_ik c_ikᵀ) R_iᵀ — gathered per phyxel
/// like the forces.
fn nodal_stiffness_diagonal(body: &Body, rotations: &[DMat3]) -> Vec<DMat3> {
    let block = |i: usize, d: DVec3| {
        let (lambda, mu) = lame(body, i);
        let c = plastic_inverse(body, i).transpose() * d;
        corotated_diagonal_block(c, rotations[i], body.volume[i], lambda, mu)
    };
    map_indices(body.len(), |k| {
        let own = body.mls.row_sum(k);
        body.mls
            .fold_incoming(k, &body.neighbours, block(k, -own), |sum, i, d| {
                sum + block(i, d)
            })
    })
}

#[cfg(test)]
mod tests;
