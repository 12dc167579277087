//! The stress that decides where a crack starts and whether a front advances (seed 000 §4.1.3): the
//! total second Piola–Kirchhoff stress of MKN04's model in the reference frame, where the cracks live,
//! and its largest principal value and direction.

use crate::meshless::body::Body;
use crate::meshless::elasticity::phyxel_stress;
use crate::meshless::mls::symmetric_eigen;
use glam::{DMat3, DVec3};

/// The largest eigenvalue of a symmetric matrix and its unit eigenvector.
pub fn largest_principal(s: DMat3) -> (f64, DVec3) {
    let (values, vectors) = symmetric_eigen(s);
    let k = (0..3)
        .max_by(|&a, &b| values[a].total_cmp(&values[b]))
        .unwrap_or(0);
    (values[k], vectors.col(k).normalize_or(DVec3::X))
}

/// The total second Piola–Kirchhoff stress of phyxel i at displacement gradient ∇u_i, in the reference
/// frame (where the cracks live): S = J_e⁻¹ P(J_e) with J_e = (I + ∇u_i) G_i and P MKN04's first
/// Piola stress, Hooke's part and the volume term k_v (det J_e − 1) cof J_e together — the stress whose
/// traction balances a load ([`phyxel_stress`]'s force matrix is −V P). A rigid rotation leaves it
/// unchanged. Near-inverted phyxels (det J_e ≤ 10⁻⁶) report the Hooke stress alone.
pub fn second_piola(body: &Body, i: usize, grad_u: DMat3) -> DMat3 {
    let (lambda, mu) = body.material.lame();
    let scale = body.stiffness_scale[i];
    let j = (DMat3::IDENTITY + grad_u) * body.rest_correction[i];
    let s = phyxel_stress(
        j - DMat3::IDENTITY,
        body.plastic_strain[i],
        1.0,
        scale * lambda,
        scale * mu,
        body.material.volume_stiffness,
    );
    if j.determinant() <= 1e-6 {
        return s.stress;
    }
    let total = j.inverse() * (-s.force_matrix);
    0.5 * (total + total.transpose())
}
