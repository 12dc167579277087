//! The polar decomposition F = R S of a deformation gradient, and the symmetric part of a matrix:
//! the rotation every corotated model takes out (Zhou et al. 2013 §3.1; Brunet et al. 2019 §3.4), per
//! phyxel in [`super::corotated`] and per integration point in [`super::quadrature`].

use super::mls::symmetric_eigen;
use glam::{DMat3, DVec3};

/// Singular values below this fraction of the largest are treated as zero by
/// [`polar_rotation_by_svd`].
const DEGENERATE_SINGULAR_VALUE: f64 = 1e-10;

/// [`polar_rotation`] iterates only where det F > this × (|F|²/3)^{3/2}, |F| the Frobenius norm (1
/// for a rotation; 0 for a flattened or inverted F, which the SVD handles).
const NEWTON_DETERMINANT: f64 = 1e-3;

/// The iteration stops once an update changes X by less than this (Frobenius). Near convergence the
/// iteration acts on each singular value alone, s ← ½(s + 1/s), so an update of size δ leaves the new
/// iterate within δ²/2 of R (Higham 1986 §3, quadratic convergence): at most 5·10⁻¹³ here. (Until
/// 2026-11-29 the bound was 10⁻⁹, which took one more iteration to confirm a result already right to
/// 10⁻¹³ or so; the rotations of the 3D demo's 8 000 integration points went 1.17 → 1.10 ms.)
const NEWTON_STEP: f64 = 1e-6;

/// Updates larger than this are scaled (Higham 1986 §3); the last few, near convergence, are not.
const NEWTON_SCALED_STEP: f64 = 1e-2;

/// The first update is left unscaled where ||F|² − 3| is below this (F near a rotation). Measured on
/// the 3D demo's 8 000 integration points (2026-12-03, one thread): with the determinant taken from
/// the update's cofactors and the step compared squared, their rotations 1.07 → 0.87 ms a step.
const NEWTON_SCALED_NORM: f64 = 3e-2;

/// Iterations before giving the decomposition to the SVD (well-conditioned F need 3–6).
const NEWTON_ITERATIONS: usize = 20;

/// ∂ det J / ∂J: the cofactor matrix, whose columns are the cross products of the other two columns
/// of J (thesis eq. 3.62's rows J|_v × J|_w, …). Defined for singular J too.
pub fn cofactor(j: DMat3) -> DMat3 {
    DMat3::from_cols(
        j.y_axis.cross(j.z_axis),
        j.z_axis.cross(j.x_axis),
        j.x_axis.cross(j.y_axis),
    )
}

/// The symmetric part ½(A + Aᵀ).
pub fn symmetric_part(a: DMat3) -> DMat3 {
    0.5 * (a + a.transpose())
}

/// Any unit vector orthogonal to the unit vector `a`.
fn orthogonal_unit(a: DVec3) -> DVec3 {
    let helper = if a.x.abs() < 0.6 { DVec3::X } else { DVec3::Y };
    a.cross(helper).normalize()
}

/// The rotation R of the polar decomposition F = R S: by Newton's iteration where F is well
/// conditioned and not inverted ([`polar_rotation_by_newton`]), otherwise by the singular value
/// decomposition ([`polar_rotation_by_svd`]). For det F > 0 the polar rotation is unique and the two
/// agree to round-off; the iteration is the cheaper (a few 3 × 3 inverses, against a Jacobi
/// eigen-decomposition of FᵀF).
pub fn polar_rotation(f: DMat3) -> DMat3 {
    polar_rotation_by_newton(f).unwrap_or_else(|| polar_rotation_by_svd(f))
}

/// |A|², the squared Frobenius norm.
fn frobenius_squared(a: DMat3) -> f64 {
    a.x_axis.length_squared() + a.y_axis.length_squared() + a.z_axis.length_squared()
}

/// The polar rotation of F by the scaled Newton iteration X ← ½(γ X + γ⁻¹ X⁻ᵀ) from X = F, with
/// γ = (|X⁻¹| / |X|)^{1/2} (Higham 1986, "Computing the polar decomposition — with applications",
/// §3; Frobenius norms; γ = 1 near convergence), which converges quadratically to R for any
/// non-singular F with det F > 0. `None` where F is inverted, nearly singular or not finite, or the
/// iteration did not settle in `NEWTON_ITERATIONS`.
pub fn polar_rotation_by_newton(f: DMat3) -> Option<DMat3> {
    let norm_squared = frobenius_squared(f);
    let det = f.determinant();
    let mean_squared = norm_squared / 3.0;
    let well_conditioned = det > NEWTON_DETERMINANT * mean_squared * mean_squared.sqrt();
    // NaN fails the comparison too.
    if !well_conditioned {
        return None;
    }
    let mut x = f;
    // The first update is scaled unless |F|² = Σσ² is within 3 ± 3 · 10⁻²: a gradient near a rotation
    // (most points in most steps), where γ ≈ 1 and the scaling's norms gain nothing. (The unscaled
    // update converges from any F with det F > 0 too, only more slowly far from a rotation.)
    let mut scaled = (norm_squared - 3.0).abs() > NEWTON_SCALED_NORM;
    for _ in 0..NEWTON_ITERATIONS {
        // X⁻ᵀ = cof(X) / det X, det X = x₁·cof(X)₁ from the same cofactors.
        let cof = cofactor(x);
        let inverse_transpose = cof * (1.0 / x.x_axis.dot(cof.x_axis));
        let next = if scaled {
            let gamma = (frobenius_squared(inverse_transpose) / frobenius_squared(x))
                .sqrt()
                .sqrt();
            0.5 * (gamma * x + inverse_transpose * (1.0 / gamma))
        } else {
            0.5 * (x + inverse_transpose)
        };
        let step_squared = frobenius_squared(next - x);
        x = next;
        if step_squared <= NEWTON_STEP * NEWTON_STEP {
            return x.is_finite().then_some(x);
        }
        scaled = step_squared > NEWTON_SCALED_STEP * NEWTON_SCALED_STEP;
    }
    None
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
pub fn polar_rotation_by_svd(f: DMat3) -> DMat3 {
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
