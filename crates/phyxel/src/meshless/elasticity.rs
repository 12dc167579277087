//! Strain, stress, energy and the per-phyxel force matrix (MKN04 §4; thesis §3.2.3–3.2.4, §3.4).

use super::mls::outer;
use super::polar::{cofactor, symmetric_part};
use glam::{DMat3, DVec3};

/// Green–Saint-Venant strain ε = ½(∇u + ∇uᵀ + ∇uᵀ∇u) = ½(JᵀJ − I), with J = I + ∇u.
/// (The thesis, eq. 3.34, drops the ½; MKN04 eq. 9 keeps it.)
pub fn green_strain(grad_u: DMat3) -> DMat3 {
    0.5 * (grad_u + grad_u.transpose() + grad_u.transpose() * grad_u)
}

/// Hooke's law for an isotropic material: σ = λ tr(ε) I + 2μ ε.
pub fn hooke_stress(strain: DMat3, lambda: f64, mu: f64) -> DMat3 {
    let trace = strain.x_axis.x + strain.y_axis.y + strain.z_axis.z;
    DMat3::from_diagonal(glam::DVec3::splat(lambda * trace)) + 2.0 * mu * strain
}

/// The double contraction A:B = Σ_ab A_ab B_ab.
pub fn contract(a: DMat3, b: DMat3) -> f64 {
    a.x_axis.dot(b.x_axis) + a.y_axis.dot(b.y_axis) + a.z_axis.dot(b.z_axis)
}

/// Elastic state of one phyxel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhyxelStress {
    /// Elastic Green strain ε − ε_plastic.
    pub strain: DMat3,
    /// Hooke stress of the elastic strain.
    pub stress: DMat3,
    /// The force matrix M_i = −V_i ∂(energy density)/∂∇u: phyxel j ∈ N(i) receives M_i d_ij and i the
    /// reaction −M_i Σ_j d_ij.
    pub force_matrix: DMat3,
    /// Stored energy V_i (½ ε:σ + ½ k_v (det J − 1)²).
    pub energy: f64,
}

/// Strain, stress, energy and force matrix of phyxel i.
///
/// With U_i = V_i (½ ε:σ + ½ k_v (det J − 1)²) and ε = ½(JᵀJ − I), the exact derivative is
/// ∂U_i/∂∇u = V_i (J σ + k_v (det J − 1) cof J), so the force on neighbour j is
/// f_j = −V_i (J σ + k_v (det J − 1) cof J) d_ij and the reaction on i is minus their sum.
/// This is MKN04 eq. 13 / thesis eqs. 3.42–3.43 and 3.62 written without the thesis' assumption that J
/// is symmetric (which would make the forces non-conservative); the factor 2 there comes from its strain
/// without the ½.
pub fn phyxel_stress(
    grad_u: DMat3,
    plastic_strain: DMat3,
    volume: f64,
    lambda: f64,
    mu: f64,
    volume_stiffness: f64,
) -> PhyxelStress {
    let j = DMat3::IDENTITY + grad_u;
    let strain = green_strain(grad_u) - plastic_strain;
    let stress = hooke_stress(strain, lambda, mu);
    let volume_error = j.determinant() - 1.0;
    let piola = j * stress + volume_stiffness * volume_error * cofactor(j);
    PhyxelStress {
        strain,
        stress,
        force_matrix: -volume * piola,
        energy: volume
            * (0.5 * contract(strain, stress)
                + 0.5 * volume_stiffness * volume_error * volume_error),
    }
}

/// F_p⁻¹ of a plastic deformation F_p (the identity, uninverted, for an elastic F_p = I).
pub fn plastic_inverse_of(plastic: DMat3) -> DMat3 {
    if plastic == DMat3::IDENTITY {
        DMat3::IDENTITY
    } else {
        plastic.inverse()
    }
}

/// Strain, stress, force matrix and energy of one corotated integration point (a phyxel, or a Gauss
/// point of the background quadrature) with elastic deformation gradient `elastic`, rotation
/// `rotation` (held fixed) and inverse plastic deformation `plastic_inverse` (Zhou et al. 2013 eqs.
/// 6–8, 13):
///
/// ε = sym(RᵀF_e) − I,  σ = λ tr(ε) I + 2μ ε,  M = −V R σ F_p⁻ᵀ,  U = V ½ ε:σ.
pub fn corotated_stress(
    elastic: DMat3,
    rotation: DMat3,
    plastic_inverse: DMat3,
    volume: f64,
    lambda: f64,
    mu: f64,
) -> PhyxelStress {
    let strain = symmetric_part(rotation.transpose() * elastic) - DMat3::IDENTITY;
    let stress = hooke_stress(strain, lambda, mu);
    PhyxelStress {
        strain,
        stress,
        force_matrix: -volume * (rotation * stress * plastic_inverse.transpose()),
        energy: volume * 0.5 * contract(strain, stress),
    }
}

/// The force matrix of a displacement differential at frozen rotation (the stiffness product's part
/// of one integration point, Zhou et al. 2013 eqs. 19–22): δσ = C sym(Rᵀ δF_e),
/// δM = −V R δσ F_p⁻ᵀ, with δF_e the differential of the elastic deformation gradient.
pub fn corotated_force_differential(
    elastic_differential: DMat3,
    rotation: DMat3,
    plastic_inverse: DMat3,
    volume: f64,
    lambda: f64,
    mu: f64,
) -> DMat3 {
    let dsigma = hooke_stress(
        symmetric_part(rotation.transpose() * elastic_differential),
        lambda,
        mu,
    );
    -volume * (rotation * dsigma * plastic_inverse.transpose())
}

/// One integration point's share of a diagonal stiffness block, for a particle whose displacement
/// enters its elastic deformation gradient as δF_e = δu cᵀ: δ²U = V wᵀ (μ|c|² I + (λ + μ) c cᵀ) w
/// with w = Rᵀ δu, so the share of K = ∂f/∂u is −V R (μ|c|² I + (λ + μ) c cᵀ) Rᵀ
/// = −V (μ|c|² I + (λ + μ) (Rc)(Rc)ᵀ), as R Rᵀ = I and |Rc| = |c| (R is a rotation): one
/// matrix–vector product instead of two matrix products.
pub fn corotated_diagonal_block(
    c: DVec3,
    rotation: DMat3,
    volume: f64,
    lambda: f64,
    mu: f64,
) -> DMat3 {
    let rc = rotation * c;
    -volume
        * (DMat3::from_diagonal(DVec3::splat(mu * c.length_squared()))
            + (lambda + mu) * outer(rc, rc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniaxial_stretch_gives_the_hooke_stress_of_e_and_nu() {
        // A bar stretched by ε along x and free to contract laterally by −νε (small strain): the only
        // stress is σ_xx = E ε (linearized; Green strain adds ε²/2 terms, checked to second order).
        let (young, nu) = (1.0e6, 0.3);
        let lambda = young * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
        let mu = young / (2.0 * (1.0 + nu));
        let e = 1e-6;
        let grad_u = DMat3::from_diagonal(DVec3::new(e, -nu * e, -nu * e));
        let s = hooke_stress(green_strain(grad_u), lambda, mu);
        assert!(
            (s.x_axis.x / (young * e) - 1.0).abs() < 1e-5,
            "σ_xx = {}",
            s.x_axis.x
        );
        assert!(s.y_axis.y.abs() < 1e-5 * young * e && s.z_axis.z.abs() < 1e-5 * young * e);
        assert!(s.x_axis.y == 0.0 && s.x_axis.z == 0.0 && s.y_axis.z == 0.0);
    }

    #[test]
    fn rotations_have_no_green_strain_and_no_force() {
        let r = DMat3::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 1.1);
        let grad_u = r - DMat3::IDENTITY;
        let strain = green_strain(grad_u);
        assert!(strain.abs().to_cols_array().iter().all(|e| *e < 1e-15));
        let s = phyxel_stress(grad_u, DMat3::ZERO, 1.0, 1e5, 1e5, 1e5);
        assert!(
            s.force_matrix
                .abs()
                .to_cols_array()
                .iter()
                .all(|e| *e < 1e-9),
            "{:?}",
            s.force_matrix
        );
    }

    #[test]
    fn the_force_matrix_is_minus_the_energy_gradient() {
        // Central differences of the energy w.r.t. each entry of ∇u reproduce −M (volume term included).
        let grad_u = DMat3::from_cols(
            DVec3::new(0.1, -0.05, 0.02),
            DVec3::new(0.03, 0.2, -0.1),
            DVec3::new(-0.04, 0.06, -0.15),
        );
        let (lambda, mu, kv, volume) = (2e4, 1e4, 3e4, 0.7);
        let energy = |g: DMat3| phyxel_stress(g, DMat3::ZERO, volume, lambda, mu, kv).energy;
        let m = phyxel_stress(grad_u, DMat3::ZERO, volume, lambda, mu, kv).force_matrix;
        let h = 1e-6;
        for col in 0..3 {
            for row in 0..3 {
                let mut bump = DMat3::ZERO;
                bump.col_mut(col)[row] = h;
                let derivative = (energy(grad_u + bump) - energy(grad_u - bump)) / (2.0 * h);
                let analytic = -m.col(col)[row];
                assert!(
                    (derivative - analytic).abs() < 1e-6 * analytic.abs().max(1.0),
                    "({row},{col}): {derivative} vs {analytic}"
                );
            }
        }
    }
}
