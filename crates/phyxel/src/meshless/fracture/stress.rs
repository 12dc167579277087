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

/// The largest eigenvalue of a symmetric matrix in closed form (the trigonometric solution of the
/// characteristic cubic, O. K. Smith, "Eigenvalues of a symmetric 3 × 3 matrix", CACM 4(4), 1961):
/// with q = tr S / 3, p = √(‖S − qI‖²_F / 6) and r = det((S − qI)/p) / 2, λ₁ = q + 2p cos(acos(r)/3).
/// For the readouts and colours, which need the value alone: a few dozen operations where the Jacobi
/// sweeps of [`largest_principal`] take hundreds. Exact to rounding, except where the largest value
/// is a double root (r = −1, where acos loses half the digits): to about 10⁻⁸ of ‖S‖ there.
pub fn largest_eigenvalue(s: DMat3) -> f64 {
    let off = s.y_axis.x.powi(2) + s.z_axis.x.powi(2) + s.z_axis.y.powi(2);
    let q = (s.x_axis.x + s.y_axis.y + s.z_axis.z) / 3.0;
    let deviation = (s.x_axis.x - q).powi(2) + (s.y_axis.y - q).powi(2) + (s.z_axis.z - q).powi(2);
    let p = ((deviation + 2.0 * off) / 6.0).sqrt();
    if p <= 1e-300 {
        return q;
    }
    let b = (s - DMat3::from_diagonal(glam::DVec3::splat(q))) * (1.0 / p);
    let r = (0.5 * b.determinant()).clamp(-1.0, 1.0);
    q + 2.0 * p * (r.acos() / 3.0).cos()
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

#[cfg(test)]
mod tests;
