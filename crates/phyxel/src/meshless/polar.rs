//! The polar decomposition F = R S of a deformation gradient, and the symmetric part of a matrix:
//! the rotation every corotated model takes out (Zhou et al. 2013 §3.1; Brunet et al. 2019 §3.4), per
//! phyxel in [`super::corotated`] and per integration point in [`super::quadrature`].

use super::mls::symmetric_eigen;
use glam::{DMat3, DVec3};

/// Singular values below this fraction of the largest are treated as zero by [`polar_rotation`].
const DEGENERATE_SINGULAR_VALUE: f64 = 1e-10;

/// The symmetric part ½(A + Aᵀ).
pub fn symmetric_part(a: DMat3) -> DMat3 {
    0.5 * (a + a.transpose())
}

/// Any unit vector orthogonal to the unit vector `a`.
fn orthogonal_unit(a: DVec3) -> DVec3 {
    let helper = if a.x.abs() < 0.6 { DVec3::X } else { DVec3::Y };
    a.cross(helper).normalize()
}

/// The rotation R of the polar decomposition F = R S, from the singular value decomposition
/// F = U Σ Vᵀ (Zhou et al. 2013 §3.1, after Irving et al. 2004): R = U Vᵀ.
///
/// V and Σ² come from the eigen-decomposition of FᵀF (cyclic Jacobi), sorted so that σ₁ ≥ σ₂ ≥ σ₃,
/// with V made a proper rotation. Then u₁ = F v₁/|F v₁|, u₂ = the part of F v₂ orthogonal to u₁,
/// normalized, and u₃ = u₁ × u₂, so that R = U Vᵀ is always a rotation (det R = +1):
///
/// * an inverted F (det F < 0) gives the "rotation variant" SVD of Irving et al. 2004, whose smallest
///   singular value is negative, instead of a reflection;
/// * a degenerate F (rank 2, 1 or 0, or non-finite) completes U with arbitrary orthogonal directions
///   instead of dividing by zero; F = 0 gives R = I.
pub fn polar_rotation(f: DMat3) -> DMat3 {
    if !f.is_finite() {
        return DMat3::IDENTITY;
    }
    let (eigenvalues, eigenvectors) = symmetric_eigen(f.transpose() * f);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&a, &b| eigenvalues[b].total_cmp(&eigenvalues[a]));
    let mut v = DMat3::from_cols(
        eigenvectors.col(order[0]),
        eigenvectors.col(order[1]),
        eigenvectors.col(order[2]),
    );
    if v.determinant() < 0.0 {
        v.z_axis = -v.z_axis;
    }
    let largest = eigenvalues[order[0]].max(0.0).sqrt();
    if largest == 0.0 {
        return DMat3::IDENTITY;
    }
    let threshold = DEGENERATE_SINGULAR_VALUE * largest;
    let u1 = (f * v.x_axis) / largest;
    let u1 = u1.normalize();
    let fv2 = f * v.y_axis;
    let fv2 = fv2 - fv2.dot(u1) * u1;
    let u2 = if fv2.length() > threshold {
        fv2.normalize()
    } else {
        orthogonal_unit(u1)
    };
    let u = DMat3::from_cols(u1, u2, u1.cross(u2));
    u * v.transpose()
}
