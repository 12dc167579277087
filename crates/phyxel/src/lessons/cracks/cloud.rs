//! The particle cloud of the page's first figure: scattered particles, one crack the user drags, and the
//! weight ω'_i(x) and MLS shape function Φ_i(x) of a chosen particle under the visibility criterion or
//! the transparency method (seed 002 figs. 9–10).

use super::crack::{modified_weight, omega, Crack, Criterion};
use crate::lessons::sph_approximation::jittered_samples;
use crate::meshless::mls::{outer, safe_inverse, DEFAULT_RELATIVE_THRESHOLD};
use glam::{DMat3, DVec2, DVec3};

/// Scattered particles with one support radius h and a set of cracks.
#[derive(Clone, Debug)]
pub struct Cloud {
    pub positions: Vec<DVec2>,
    pub h: f64,
    pub cracks: Vec<Crack>,
    pub criterion: Criterion,
}

impl Cloud {
    /// The SPH lesson's jittered lattice over [−1, 1]² ([`jittered_samples`]), h = `support_ratio` · Δx,
    /// with no crack yet.
    pub fn jittered(
        spacing: f64,
        jitter: f64,
        seed: u64,
        support_ratio: f64,
        criterion: Criterion,
    ) -> Self {
        let (positions, dx) = jittered_samples(spacing, jitter, seed);
        Self {
            positions: positions.iter().map(|p| p.truncate()).collect(),
            h: support_ratio * dx,
            cracks: Vec::new(),
            criterion,
        }
    }

    /// The weight of particle i seen from x: ω'(x, x_i), the uncut ω(‖x − x_i‖/h) modified by the cracks
    /// under the criterion in force (seed 002 eq. 70).
    pub fn weight(&self, i: usize, x: DVec2) -> f64 {
        self.positions.get(i).map_or(0.0, |&x_i| {
            modified_weight(x, x_i, self.h, &self.cracks, self.criterion)
        })
    }

    /// The uncut weight ω(‖x − x_i‖/h).
    pub fn uncut_weight(&self, i: usize, x: DVec2) -> f64 {
        self.positions
            .get(i)
            .map_or(0.0, |&x_i| omega(x.distance(x_i) / self.h, self.h))
    }

    /// The moment matrix of the linear basis at x with the modified weights (seed 002 eq. 28, shifted and
    /// scaled by h for stability): M(x) = Σ_j ω'(x, x_j) p((x_j − x)/h) p((x_j − x)/h)ᵀ, p(d) = (1, d_x, d_y).
    pub fn moment_matrix(&self, x: DVec2) -> DMat3 {
        (0..self.positions.len()).fold(DMat3::ZERO, |m, j| {
            let w = self.weight(j, x);
            if w == 0.0 {
                return m;
            }
            let p = basis((self.positions[j] - x) / self.h);
            m + outer(p, p) * w
        })
    }

    /// The MLS shape function of particle i at x with the modified weights (seed 002 eq. 27):
    /// Φ_i(x) = ω'(x, x_i) p(0)ᵀ M(x)⁻¹ p((x_i − x)/h), with the phyxel solver's safe inverse, so a
    /// particle that no weight reaches gives 0, and a rank-deficient M only the part it can fit.
    pub fn shape_function(&self, i: usize, x: DVec2) -> f64 {
        let w_i = self.weight(i, x);
        if w_i == 0.0 {
            return 0.0;
        }
        self.shape_with(&self.inverse_moment(x), i, x, w_i)
    }

    /// All shape functions at x (one inverse of M(x)), and the rank the safe inverse kept.
    pub fn shape_functions(&self, x: DVec2) -> (Vec<f64>, u8) {
        let inverse = safe_inverse(self.moment_matrix(x), DEFAULT_RELATIVE_THRESHOLD);
        let phi = (0..self.positions.len())
            .map(|i| {
                let w_i = self.weight(i, x);
                if w_i == 0.0 {
                    0.0
                } else {
                    self.shape_with(&inverse.inverse, i, x, w_i)
                }
            })
            .collect();
        (phi, inverse.rank)
    }

    fn inverse_moment(&self, x: DVec2) -> DMat3 {
        safe_inverse(self.moment_matrix(x), DEFAULT_RELATIVE_THRESHOLD).inverse
    }

    fn shape_with(&self, inverse: &DMat3, i: usize, x: DVec2, w_i: f64) -> f64 {
        w_i * basis(DVec2::ZERO).dot(*inverse * basis((self.positions[i] - x) / self.h))
    }

    /// The particle nearest to x.
    pub fn nearest(&self, x: DVec2) -> Option<usize> {
        (0..self.positions.len()).min_by(|&a, &b| {
            self.positions[a]
                .distance(x)
                .total_cmp(&self.positions[b].distance(x))
        })
    }
}

/// The linear basis p(d) = (1, d_x, d_y).
fn basis(d: DVec2) -> DVec3 {
    DVec3::new(1.0, d.x, d.y)
}
