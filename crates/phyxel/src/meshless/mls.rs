//! Moving least squares on a phyxel neighbourhood (MKN04 §4; thesis eqs. 3.28–3.33; tutorial eqs. 37–38).
//!
//! Fitting u(x_i + Δx) ≈ u_i + ∇u_i Δx to the neighbours in the weighted least-squares sense gives
//!
//! A_i = Σ_j x_ij x_ijᵀ w_ij  (the moment matrix),   ∇u_i = Σ_j (u_j − u_i) d_ijᵀ,   d_ij = A_i⁻¹ x_ij w_ij,
//!
//! with x_ij = x̄_j − x̄_i in the reference configuration and w_ij = w(|x_ij|, h_i). The weights d_ij depend
//! only on the reference, so they are computed once per reference shape.

use super::kernel::poly6;
use super::neighbours::Neighbourhoods;
use crate::parallel::map_indices;
use glam::{DMat3, DVec3};

/// Eigenvalues below this fraction of the largest are treated as zero by [`safe_inverse`].
pub const DEFAULT_RELATIVE_THRESHOLD: f64 = 1e-4;

/// The result of [`safe_inverse`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SafeInverse {
    pub inverse: DMat3,
    /// Number of eigenvalues kept (3 = regular).
    pub rank: u8,
}

/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations: A = Q diag(λ) Qᵀ.
pub fn symmetric_eigen(a: DMat3) -> (DVec3, DMat3) {
    let mut m = a.to_cols_array_2d(); // m[col][row]; symmetric, so m[p][q] = m[q][p]
    let mut q = DMat3::IDENTITY.to_cols_array_2d();
    for _sweep in 0..50 {
        let off = m[0][1].powi(2) + m[0][2].powi(2) + m[1][2].powi(2);
        let diag = m[0][0].powi(2) + m[1][1].powi(2) + m[2][2].powi(2);
        if off <= 1e-30 * diag || off == 0.0 {
            break;
        }
        for (p, r) in [(0, 1), (0, 2), (1, 2)] {
            if m[p][r] == 0.0 {
                continue;
            }
            // Rotation that zeroes m[p][r] (Golub & Van Loan, Algorithm 8.4.1).
            let theta = (m[r][r] - m[p][p]) / (2.0 * m[p][r]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // Rows p and r (the row index is the second one), then columns p and r.
            for col in m.iter_mut() {
                let (mp, mr) = (col[p], col[r]);
                col[p] = c * mp - s * mr;
                col[r] = s * mp + c * mr;
            }
            let (cp, cr) = (m[p], m[r]);
            m[p] = std::array::from_fn(|k| c * cp[k] - s * cr[k]);
            m[r] = std::array::from_fn(|k| s * cp[k] + c * cr[k]);
            for row in q.iter_mut() {
                let (qp, qr) = (row[p], row[r]);
                row[p] = c * qp - s * qr;
                row[r] = s * qp + c * qr;
            }
        }
    }
    // q was accumulated as rows of the column-major array: transpose back.
    (
        DVec3::new(m[0][0], m[1][1], m[2][2]),
        DMat3::from_cols_array_2d(&q).transpose(),
    )
}

/// Pseudo-inverse of a symmetric positive semi-definite matrix: A⁺ = Q diag(1/λ_k) Qᵀ over the
/// eigenvalues λ_k > τ·λ_max, zero for the rest. Collinear, coplanar, too small or empty
/// neighbourhoods give a finite, rank-deficient inverse instead of ∞/NaN.
pub fn safe_inverse(a: DMat3, relative_threshold: f64) -> SafeInverse {
    if !a.is_finite() {
        return SafeInverse {
            inverse: DMat3::ZERO,
            rank: 0,
        };
    }
    let (lambda, q) = symmetric_eigen(a);
    let largest = lambda.abs().max_element();
    let mut inverse_diagonal = DVec3::ZERO;
    let mut rank = 0;
    for k in 0..3 {
        if largest > 0.0 && lambda[k] > relative_threshold * largest {
            inverse_diagonal[k] = 1.0 / lambda[k];
            rank += 1;
        }
    }
    SafeInverse {
        inverse: q * DMat3::from_diagonal(inverse_diagonal) * q.transpose(),
        rank,
    }
}

/// The outer product a bᵀ.
pub fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// The moment matrix of phyxel i, A_i = Σ_j x_ij x_ijᵀ w_ij (tutorial eq. 38; MKN04 eq. 8), with
/// x_ij = x̄_j − x̄_i and w_ij = w(|x_ij|, h_i).
pub fn moment_matrix(
    i: usize,
    reference: &[DVec3],
    support_radius: &[f64],
    hoods: &Neighbourhoods,
) -> DMat3 {
    hoods.edges(i).fold(DMat3::ZERO, |a, k| {
        let x_ij = reference[hoods.neighbour[k] as usize] - reference[i];
        a + outer(x_ij, x_ij) * poly6(x_ij.length(), support_radius[i])
    })
}

/// The condition number λ₁ / λ_d of a symmetric positive semi-definite matrix over its `dimensions`
/// largest eigenvalues λ₁ ≥ … ≥ λ_d (`dimensions` = 3 in space, 2 for a neighbourhood in the plane
/// z = 0, whose third eigenvalue is always zero). ∞ when λ_d is below the safe inverse's threshold
/// [`DEFAULT_RELATIVE_THRESHOLD`] · λ₁ — exactly when [`safe_inverse`] drops it, so a neighbourhood the
/// solver regularizes never shows a finite (round-off) condition number — and for a matrix that is
/// not finite.
pub fn condition_number(a: DMat3, dimensions: usize) -> f64 {
    if !a.is_finite() {
        return f64::INFINITY;
    }
    let (lambda, _) = symmetric_eigen(a);
    let mut sorted = lambda.to_array();
    sorted.sort_by(|p, q| q.total_cmp(p));
    let smallest = sorted[dimensions.clamp(1, 3) - 1];
    if smallest > DEFAULT_RELATIVE_THRESHOLD * sorted[0] && smallest > 0.0 {
        sorted[0] / smallest
    } else {
        f64::INFINITY
    }
}

/// Per-reference MLS data: one d_ij per neighbour edge.
#[derive(Clone, Debug, Default)]
pub struct MlsWeights {
    /// d_ij = A_i⁻¹ x_ij w_ij for edge (i → j), in the order of [`Neighbourhoods::neighbour`].
    pub d: Vec<DVec3>,
    /// The safe inverse A_i⁻¹ of each phyxel's moment matrix.
    pub moment_inverse: Vec<DMat3>,
    /// Phyxels whose moment matrix was rank-deficient (regularized by the pseudo-inverse).
    pub regularized: usize,
    /// The rank [`safe_inverse`] kept for each phyxel's moment matrix (3 = regular; a neighbourhood in
    /// a plane has rank 2 at most).
    pub rank: Vec<u8>,
}

impl MlsWeights {
    /// Moment matrices, their safe inverses and the weights d_ij from reference positions `x̄`.
    pub fn compute(reference: &[DVec3], support_radius: &[f64], hoods: &Neighbourhoods) -> Self {
        let x_ij =
            |k: usize| reference[hoods.neighbour[k] as usize] - reference[hoods.owner[k] as usize];
        let w_ij = |k: usize| poly6(x_ij(k).length(), support_radius[hoods.owner[k] as usize]);
        // One task per phyxel: A_i = Σ_j x_ij x_ijᵀ w_ij and its safe inverse.
        let inverses = map_indices(reference.len(), |i| {
            let a = moment_matrix(i, reference, support_radius, hoods);
            safe_inverse(a, DEFAULT_RELATIVE_THRESHOLD)
        });
        // One task per edge: d_ij = A_i⁻¹ x_ij w_ij.
        let d = map_indices(hoods.neighbour.len(), |k| {
            inverses[hoods.owner[k] as usize].inverse * x_ij(k) * w_ij(k)
        });
        Self {
            d,
            regularized: inverses.iter().filter(|s| s.rank < 3).count(),
            rank: inverses.iter().map(|s| s.rank).collect(),
            moment_inverse: inverses.into_iter().map(|s| s.inverse).collect(),
        }
    }

    /// Refit phyxel i with modified weights ω'_ij (`weight`, one per edge; fracture's cut weights):
    /// A_i = Σ_j ω'_ij x_ij x_ijᵀ and d_ij = A_i⁻¹ x_ij ω'_ij (MKN04 eq. 8 with ω' for w), the safe
    /// inverse at `relative_threshold`. Returns the rank kept; the count of regularized phyxels
    /// follows.
    pub fn refit(
        &mut self,
        i: usize,
        reference: &[DVec3],
        hoods: &Neighbourhoods,
        weight: &[f64],
        relative_threshold: f64,
    ) -> u8 {
        let x_ij = |k: usize| reference[hoods.neighbour[k] as usize] - reference[i];
        let a = hoods
            .edges(i)
            .fold(DMat3::ZERO, |a, k| a + outer(x_ij(k), x_ij(k)) * weight[k]);
        let safe = safe_inverse(a, relative_threshold);
        for k in hoods.edges(i) {
            self.d[k] = safe.inverse * x_ij(k) * weight[k];
        }
        let was_regular = self.rank[i] == 3;
        if was_regular != (safe.rank == 3) {
            if was_regular {
                self.regularized += 1;
            } else {
                self.regularized -= 1;
            }
        }
        self.rank[i] = safe.rank;
        self.moment_inverse[i] = safe.inverse;
        safe.rank
    }

    /// ∇u_i = Σ_j (u_j − u_i) d_ijᵀ, i.e. (∇u)_ab = ∂u_a/∂x_b.
    pub fn displacement_gradient(
        &self,
        i: usize,
        displacement: &[DVec3],
        hoods: &Neighbourhoods,
    ) -> DMat3 {
        let u_i = displacement[i];
        hoods.edges(i).fold(DMat3::ZERO, |g, k| {
            g + outer(displacement[hoods.neighbour[k] as usize] - u_i, self.d[k])
        })
    }

    /// The gradient of a scalar field f: ∇f_i = A_i⁻¹ Σ_j w_ij (f_j − f_i) x_ij = Σ_j (f_j − f_i) d_ij
    /// (tutorial eq. 37).
    pub fn scalar_gradient(&self, i: usize, values: &[f64], hoods: &Neighbourhoods) -> DVec3 {
        let f_i = values[i];
        hoods.edges(i).fold(DVec3::ZERO, |g, k| {
            g + (values[hoods.neighbour[k] as usize] - f_i) * self.d[k]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn condition_number_and_rank_of_planar_neighbourhoods() {
        // Four neighbours on the axes at distances 1 and 2 (h = 3): A = diag(w₁ + 4w₂, w₁ + 4w₂, 0)
        // is isotropic in the plane, so its in-plane condition number is 1.
        let mut points = vec![DVec3::ZERO];
        for r in [1.0, 2.0] {
            points.extend([DVec3::X * r, DVec3::Y * r]);
        }
        let radii = vec![3.0; points.len()];
        let hoods = Neighbourhoods::build(&points, &radii);
        let a = moment_matrix(0, &points, &radii, &hoods);
        let expected = poly6(1.0, 3.0) + 4.0 * poly6(2.0, 3.0);
        assert!((a.x_axis.x / expected - 1.0).abs() < 1e-12 && a.z_axis.z == 0.0);
        assert!((condition_number(a, 2) - 1.0).abs() < 1e-12);
        assert_eq!(condition_number(a, 3), f64::INFINITY);
        let mls = MlsWeights::compute(&points, &radii, &hoods);
        assert_eq!(mls.rank[0], 2, "planar: the z direction is dropped");
        // The scalar gradient of f = 3x − 2y + 1 is exact (tutorial eq. 37).
        let f: Vec<f64> = points.iter().map(|p| 3.0 * p.x - 2.0 * p.y + 1.0).collect();
        let g = mls.scalar_gradient(0, &f, &hoods);
        assert!((g - DVec3::new(3.0, -2.0, 0.0)).length() < 1e-12, "{g}");
        // Squeezing one axis by 4 makes the matrix anisotropic: κ = λ₁/λ₂ > 1.
        let stretched: Vec<DVec3> = points
            .iter()
            .map(|p| DVec3::new(p.x, 0.25 * p.y, 0.0))
            .collect();
        let hoods = Neighbourhoods::build(&stretched, &radii);
        let kappa = condition_number(moment_matrix(0, &stretched, &radii, &hoods), 2);
        assert!(kappa > 3.0 && kappa.is_finite(), "κ = {kappa}");
        // Collinear: rank 1, κ = ∞.
        let line: Vec<DVec3> = (0..5).map(|k| DVec3::X * k as f64).collect();
        let hoods = Neighbourhoods::build(&line, &radii);
        assert_eq!(
            condition_number(moment_matrix(0, &line, &radii, &hoods), 2),
            f64::INFINITY
        );
        assert_eq!(MlsWeights::compute(&line, &radii, &hoods).rank[0], 1);
        // A slanted line: round-off leaves a tiny second eigenvalue (≈ 1e-17 λ₁). The safe inverse
        // drops it, and the condition number agrees: ∞, not 1e16.
        let slanted: Vec<DVec3> = (0..5)
            .map(|k| DVec3::new(1.3, -0.5, 0.0) + DVec3::new(0.125, -0.075, 0.0) * k as f64)
            .collect();
        let hoods = Neighbourhoods::build(&slanted, &radii);
        let a = moment_matrix(0, &slanted, &radii, &hoods);
        assert_eq!(condition_number(a, 2), f64::INFINITY);
        assert_eq!(MlsWeights::compute(&slanted, &radii, &hoods).rank[0], 1);
        assert_eq!(
            condition_number(DMat3::from_diagonal(DVec3::NAN), 2),
            f64::INFINITY
        );
    }

    #[test]
    fn safe_inverse_is_the_inverse_for_regular_and_the_pseudo_inverse_for_singular_matrices() {
        let a = DMat3::from_cols(
            DVec3::new(4.0, 1.0, 0.5),
            DVec3::new(1.0, 3.0, 0.2),
            DVec3::new(0.5, 0.2, 2.0),
        );
        let safe = safe_inverse(a, DEFAULT_RELATIVE_THRESHOLD);
        assert_eq!(safe.rank, 3);
        assert!((safe.inverse * a - DMat3::IDENTITY)
            .abs()
            .to_cols_array()
            .iter()
            .all(|e| *e < 1e-12));
        // Collinear moment matrix x xᵀ (rank 1): A⁺ = x xᵀ / |x|⁴, and A A⁺ A = A.
        let x = DVec3::new(1.0, 2.0, -0.5);
        let singular = outer(x, x);
        let safe = safe_inverse(singular, DEFAULT_RELATIVE_THRESHOLD);
        assert_eq!(safe.rank, 1);
        let expected = singular / x.length_squared().powi(2);
        assert!((safe.inverse - expected)
            .abs()
            .to_cols_array()
            .iter()
            .all(|e| *e < 1e-12));
        assert_eq!(safe_inverse(DMat3::ZERO, 1e-4).rank, 0);
        assert_eq!(
            safe_inverse(DMat3::from_diagonal(DVec3::new(f64::NAN, 1.0, 1.0)), 1e-4).inverse,
            DMat3::ZERO
        );
    }
}
