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

/// ∇u_i = Σ_j (u_j − u_i) d_ijᵀ over phyxel i's edges, `row` their d_ij in order.
fn row_gradient(i: usize, row: &[DVec3], displacement: &[DVec3], hoods: &Neighbourhoods) -> DMat3 {
    let u_i = displacement[i];
    hoods.edges(i).zip(row).fold(DMat3::ZERO, |g, (k, d)| {
        g + outer(displacement[hoods.neighbour[k] as usize] - u_i, *d)
    })
}

/// One phyxel's refit, computed and not yet taken ([`MlsWeights::fit`], [`MlsWeights::take`]).
#[derive(Clone, Debug)]
pub struct RowFit {
    /// d_ij of the row's edges, in their order.
    pub d: Vec<DVec3>,
    pub moment_inverse: DMat3,
    pub rank: u8,
}

impl RowFit {
    /// Σ_j d_ij in the row's order (what [`MlsWeights::row_sum`] will hold).
    pub fn sum(&self) -> DVec3 {
        self.d.iter().copied().sum()
    }

    /// ∇u_i with this row ([`MlsWeights::displacement_gradient`], the same sum in the same order).
    pub fn displacement_gradient(
        &self,
        i: usize,
        displacement: &[DVec3],
        hoods: &Neighbourhoods,
    ) -> DMat3 {
        row_gradient(i, &self.d, displacement, hoods)
    }

    /// Every d_ij 0 ([`MlsWeights::release`]: the moment inverse and rank stay).
    pub fn release(&mut self) {
        self.d.fill(DVec3::ZERO);
    }
}

/// Per-reference MLS data: one d_ij per neighbour edge.
///
/// The weights are kept twice: in the rows of their owners (`d`, what ∇u_i = Σ_j (u_j − u_i) d_ijᵀ
/// reads) and in the reverse lists' order with each edge's owner beside it ([`MlsWeights::incoming`],
/// what the force gather f_k = −M_k Σ_j d_kj + Σ_{i : k ∈ N(i)} M_i d_ik reads), with each row's sum
/// Σ_j d_kj. Read through the rows alone, the gather's second sum jumps to a different owner's row for
/// every term — a cache miss per edge once a body's rows outgrow the cache (measured: the explicit
/// step's cost per phyxel about 3× larger at 10 648 phyxels than at 1 000). Both copies change together:
/// `d` is written only through [`MlsWeights::refit`] and [`MlsWeights::release`]. Weights rebuilt by
/// fracture's resampling carry no copy ([`MlsWeights::from_rows_uncopied`]); the gather then reads
/// the rows, the same terms in the same order ([`MlsWeights::fold_incoming`]).
#[derive(Clone, Debug, Default)]
pub struct MlsWeights {
    /// d_ij = A_i⁻¹ x_ij w_ij for edge (i → j), in the order of [`Neighbourhoods::neighbour`].
    d: Vec<DVec3>,
    /// Σ_j d_ij of each phyxel's row, summed in the row's order.
    row_sum: Vec<DVec3>,
    /// `incoming[r]` = (i, d_ik) for the edge `hoods.reverse[r]` (i → k).
    incoming: Vec<(u32, DVec3)>,
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
        Self::from_rows(
            hoods,
            d,
            inverses.iter().map(|s| s.inverse).collect(),
            inverses.iter().map(|s| s.rank).collect(),
        )
    }

    /// The weights `d` (one per edge of `hoods`, in its rows' order) with each phyxel's A_i⁻¹ and rank;
    /// the count of regularized phyxels and the gather's copy follow.
    pub fn from_rows(
        hoods: &Neighbourhoods,
        d: Vec<DVec3>,
        moment_inverse: Vec<DMat3>,
        rank: Vec<u8>,
    ) -> Self {
        let incoming = map_indices(hoods.reverse.len(), |r| {
            let edge = hoods.reverse[r] as usize;
            (hoods.owner[edge], d[edge])
        });
        Self {
            incoming,
            ..Self::from_rows_uncopied(hoods, d, moment_inverse, rank)
        }
    }

    /// [`MlsWeights::from_rows`] without the gather's copy: the gather then reads the rows. For
    /// fracture's resampling, which rebuilds the weights after every split — at nearly every step
    /// while a body shatters — and for which building the copy each time (a pass that reads every
    /// edge's d and owner at random) cost as much as the gather it saves (measured: the struck slab's
    /// cracking steps 8–25 % slower).
    pub fn from_rows_uncopied(
        hoods: &Neighbourhoods,
        d: Vec<DVec3>,
        moment_inverse: Vec<DMat3>,
        rank: Vec<u8>,
    ) -> Self {
        assert_eq!(d.len(), hoods.neighbour.len(), "one weight per edge");
        assert_eq!(moment_inverse.len(), hoods.len());
        assert_eq!(rank.len(), hoods.len());
        let row_sum = map_indices(hoods.len(), |i| hoods.edges(i).map(|k| d[k]).sum());
        Self {
            d,
            row_sum,
            incoming: Vec::new(),
            regularized: rank.iter().filter(|&&r| r < 3).count(),
            moment_inverse,
            rank,
        }
    }

    /// d_ij of every edge, in the order of [`Neighbourhoods::neighbour`].
    pub fn d(&self) -> &[DVec3] {
        &self.d
    }

    /// Σ_j d_ij over phyxel i's row (in the row's order).
    pub fn row_sum(&self, i: usize) -> DVec3 {
        self.row_sum[i]
    }

    /// Whether the weights carry the gather's copy (not those of [`MlsWeights::from_rows_uncopied`]).
    fn has_gather_copy(&self) -> bool {
        self.incoming.len() == self.d.len()
    }

    /// (i, d_ik) for every edge (i → k) into phyxel k, in the order of
    /// [`Neighbourhoods::edges_into`], read in sequence — None where the weights were built without
    /// the gather's copy ([`MlsWeights::from_rows_uncopied`]): the gather then reads the rows.
    pub fn incoming<'a>(&'a self, k: usize, hoods: &Neighbourhoods) -> Option<&'a [(u32, DVec3)]> {
        if !self.has_gather_copy() {
            return None;
        }
        Some(&self.incoming[hoods.reverse_start[k] as usize..hoods.reverse_start[k + 1] as usize])
    }

    /// Σ_{i : k ∈ N(i)} term(i, d_ik) over the edges into phyxel k in the order of
    /// [`Neighbourhoods::edges_into`], starting from `first`: from the gather's copy where there is
    /// one, else from the rows (the same terms in the same order).
    pub fn fold_incoming<T>(
        &self,
        k: usize,
        hoods: &Neighbourhoods,
        first: T,
        term: impl Fn(T, usize, DVec3) -> T,
    ) -> T {
        match self.incoming(k, hoods) {
            Some(list) => list
                .iter()
                .fold(first, |sum, &(i, d)| term(sum, i as usize, d)),
            None => hoods.edges_into(k).iter().fold(first, |sum, &e| {
                term(sum, hoods.owner[e as usize] as usize, self.d[e as usize])
            }),
        }
    }

    /// Whether the gather's copy (every (i, d_ik) and row sum) is exactly what the rows `d` give
    /// for `hoods`; the first difference otherwise.
    pub fn check_gather_copy(&self, hoods: &Neighbourhoods) -> Result<(), String> {
        for k in 0..hoods.len() {
            let expected: Vec<(u32, DVec3)> = hoods
                .edges_into(k)
                .iter()
                .map(|&e| (hoods.owner[e as usize], self.d[e as usize]))
                .collect();
            if self
                .incoming(k, hoods)
                .is_some_and(|list| list != expected.as_slice())
            {
                return Err(format!("the edges into phyxel {k}"));
            }
            let sum: DVec3 = hoods.edges(k).map(|e| self.d[e]).sum();
            if self.row_sum[k] != sum {
                return Err(format!("phyxel {k}'s row sum"));
            }
        }
        Ok(())
    }

    /// Phyxel i's row after its d_ij changed: both copies and the row's sum.
    fn row_changed(&mut self, i: usize, hoods: &Neighbourhoods) {
        self.row_sum[i] = hoods.edges(i).map(|k| self.d[k]).sum();
        if !self.has_gather_copy() {
            return;
        }
        for k in hoods.edges(i) {
            // The edge's place in its neighbour's reverse list (~30 entries).
            let j = hoods.neighbour[k] as usize;
            let list = hoods.reverse_start[j] as usize..hoods.reverse_start[j + 1] as usize;
            let r = list.start
                + hoods.reverse[list]
                    .iter()
                    .position(|&e| e as usize == k)
                    .expect("every edge is in its neighbour's reverse list");
            self.incoming[r].1 = self.d[k];
        }
    }

    /// Phyxel i no longer measures its neighbourhood: every d_ij of its row 0 (fracture's released
    /// phyxels, whose ∇u_i is then 0; the moment matrix and rank stay what they were).
    pub fn release(&mut self, i: usize, hoods: &Neighbourhoods) {
        for k in hoods.edges(i) {
            self.d[k] = DVec3::ZERO;
        }
        self.row_changed(i, hoods);
    }

    /// Refit phyxel i with modified weights ω'_ij (`weight`, one per edge; fracture's cut weights):
    /// A_i = Σ_j ω'_ij x_ij x_ijᵀ and d_ij = A_i⁻¹ x_ij ω'_ij (MKN04 eq. 8 with ω' for w), the safe
    /// inverse at `relative_threshold`. Returns the rank kept; the count of regularized phyxels
    /// follows. ([`MlsWeights::fit`], then [`MlsWeights::take`].)
    pub fn refit(
        &mut self,
        i: usize,
        reference: &[DVec3],
        hoods: &Neighbourhoods,
        weight: &[f64],
        relative_threshold: f64,
    ) -> u8 {
        let fit = Self::fit(i, reference, hoods, weight, relative_threshold);
        self.take(i, hoods, fit)
    }

    /// The refit of phyxel i ([`MlsWeights::refit`]) computed, not taken: it reads phyxel i's
    /// edges and weights only, so that the refits of many phyxels can be found in parallel.
    pub fn fit(
        i: usize,
        reference: &[DVec3],
        hoods: &Neighbourhoods,
        weight: &[f64],
        relative_threshold: f64,
    ) -> RowFit {
        let x_ij = |k: usize| reference[hoods.neighbour[k] as usize] - reference[i];
        let a = hoods
            .edges(i)
            .fold(DMat3::ZERO, |a, k| a + outer(x_ij(k), x_ij(k)) * weight[k]);
        let safe = safe_inverse(a, relative_threshold);
        RowFit {
            d: hoods
                .edges(i)
                .map(|k| safe.inverse * x_ij(k) * weight[k])
                .collect(),
            moment_inverse: safe.inverse,
            rank: safe.rank,
        }
    }

    /// Take `fit` as phyxel i's row, moment inverse and rank; returns the rank.
    pub fn take(&mut self, i: usize, hoods: &Neighbourhoods, fit: RowFit) -> u8 {
        assert_eq!(
            fit.d.len(),
            hoods.edges(i).len(),
            "one d_ij per edge of the row"
        );
        self.d[hoods.edges(i)].copy_from_slice(&fit.d);
        self.row_changed(i, hoods);
        let was_regular = self.rank[i] == 3;
        if was_regular != (fit.rank == 3) {
            if was_regular {
                self.regularized += 1;
            } else {
                self.regularized -= 1;
            }
        }
        self.rank[i] = fit.rank;
        self.moment_inverse[i] = fit.moment_inverse;
        fit.rank
    }

    /// ∇u_i = Σ_j (u_j − u_i) d_ijᵀ, i.e. (∇u)_ab = ∂u_a/∂x_b.
    pub fn displacement_gradient(
        &self,
        i: usize,
        displacement: &[DVec3],
        hoods: &Neighbourhoods,
    ) -> DMat3 {
        row_gradient(i, &self.d[hoods.edges(i)], displacement, hoods)
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

    /// The gather's copy follows every change of the rows: computed, refitted with cut weights (some
    /// rows losing rank), released, and rebuilt from rows; on a jittered cloud whose support radii
    /// differ, so that the reverse lists are not the rows transposed.
    #[test]
    fn the_gather_copy_follows_every_change_of_the_weights() {
        let mut seed = 7u64;
        let mut uniform = || crate::meshless::neighbours::tests::uniform(&mut seed);
        let mut points = Vec::new();
        for z in 0..6 {
            for y in 0..6 {
                for x in 0..6 {
                    let jitter = DVec3::new(uniform(), uniform(), uniform()) - 0.5;
                    points.push(DVec3::new(x as f64, y as f64, z as f64) + 0.3 * jitter);
                }
            }
        }
        let radii: Vec<f64> = (0..points.len()).map(|_| 1.6 + 0.8 * uniform()).collect();
        let hoods = Neighbourhoods::build(&points, &radii);
        let mut mls = MlsWeights::compute(&points, &radii, &hoods);
        mls.check_gather_copy(&hoods).unwrap();
        // Cut weights: every third edge dropped, rows 0..40 refitted (corner rows lose rank).
        let weight: Vec<f64> = (0..hoods.neighbour.len())
            .map(|k| if k % 3 == 0 { 0.0 } else { 0.5 + uniform() })
            .collect();
        for i in 0..40 {
            mls.refit(i, &points, &hoods, &weight, 1e-2);
        }
        mls.check_gather_copy(&hoods).unwrap();
        assert!(mls.d().iter().any(|d| *d != DVec3::ZERO));
        for i in [3, 17, 100] {
            mls.release(i, &hoods);
            assert!(hoods.edges(i).all(|k| mls.d()[k] == DVec3::ZERO));
        }
        mls.check_gather_copy(&hoods).unwrap();
        let rebuilt = MlsWeights::from_rows(
            &hoods,
            mls.d().to_vec(),
            mls.moment_inverse.clone(),
            mls.rank.clone(),
        );
        rebuilt.check_gather_copy(&hoods).unwrap();
        assert_eq!(rebuilt.regularized, mls.regularized);
        // Without the copy the incoming terms come from the rows, the same in the same order.
        let uncopied = MlsWeights::from_rows_uncopied(
            &hoods,
            mls.d().to_vec(),
            mls.moment_inverse.clone(),
            mls.rank.clone(),
        );
        assert!(uncopied.incoming(0, &hoods).is_none());
        for k in 0..hoods.len() {
            let terms = |m: &MlsWeights| {
                m.fold_incoming(k, &hoods, Vec::new(), |mut v, i, d| {
                    v.push((i, d));
                    v
                })
            };
            assert_eq!(terms(&uncopied), terms(&rebuilt), "phyxel {k}");
            assert_eq!(uncopied.row_sum(k), rebuilt.row_sum(k));
        }
        // The check itself fails on a stale copy.
        let mut stale = mls.clone();
        stale.d[hoods.edges(50).start] += DVec3::X;
        assert!(stale.check_gather_copy(&hoods).is_err());
    }

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
