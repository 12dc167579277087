//! The MLS-gradient lesson: the gradient of a function known at scattered samples, estimated by the
//! SPH difference formula (tutorial eq. 13) and by first-order moving least squares — the phyxel
//! solver's own [`MlsWeights`] (tutorial eqs. 37–38; MKN04 §4):
//!
//! A_i = Σ_j w_ij x_ij x_ijᵀ,   ∇f_i = A_i⁻¹ Σ_j w_ij (f_j − f_i) x_ij.
//!
//! MLS is exact for linear fields wherever A_i is invertible; SPH is not, at the boundary. The samples
//! lie in the plane z = 0, so A_i has rank 2 at most (as in the deformation lesson); neighbourhoods
//! that are collinear or hold a single sample have rank 1 or 0 and the solver's safe inverse
//! regularizes them. The lesson also evaluates the MLS shape functions Φ_i(x) of a linear basis
//! (tutorial eqs. 27–29) with the same weight function and safe inverse.

use super::sph_approximation::{jittered_samples, Particles};
use crate::kernels::Kernel;
use crate::meshless::kernel::poly6;
use crate::meshless::mls::{
    condition_number, moment_matrix, outer, safe_inverse, MlsWeights, DEFAULT_RELATIVE_THRESHOLD,
};
use crate::meshless::neighbours::Neighbourhoods;
use glam::{DMat3, DVec3};

/// The lesson's parameters: the jittered lattice as in the SPH-approximation lesson (the same ranges),
/// with defaults of its own. The page's controls take their ranges and defaults from here
/// (`MlsGradientLesson.parameters()`), and the bindings check values against the same.
pub mod param {
    use super::super::sph_approximation::param as sph;
    use crate::params::Param;
    pub const SPACING: Param = Param {
        default: 0.1,
        ..sph::SPACING
    };
    pub const SUPPORT_RATIO: Param = Param {
        default: 2.5,
        ..sph::SUPPORT_RATIO
    };
    pub const JITTER: Param = Param {
        default: 0.6,
        ..sph::JITTER
    };
    pub const SEED: Param = sph::SEED;
}

/// Every parameter of the lesson, by its public name.
pub const PARAMETERS: &[crate::params::Param] = &[
    param::SPACING,
    param::SUPPORT_RATIO,
    param::JITTER,
    param::SEED,
];

/// The rank of a regular moment matrix in the plane.
pub const PLANAR_RANK: u8 = 2;

/// Scattered samples with the SPH data (volumes, cubic-spline kernel) and the phyxel solver's MLS
/// data (neighbourhoods, moment matrices, weights d_ij) over the same support radius h.
#[derive(Clone, Debug)]
pub struct MlsGradient {
    pub sph: Particles,
    radii: Vec<f64>,
    hoods: Neighbourhoods,
    mls: MlsWeights,
}

impl MlsGradient {
    /// Samples at `positions` (z = 0) of volume `volume` each, support radius h.
    pub fn new(positions: Vec<DVec3>, volume: f64, support_radius: f64) -> Self {
        let sph = Particles::new(positions, volume, support_radius, Kernel::CubicSpline);
        let radii = vec![support_radius; sph.positions.len()];
        let hoods = Neighbourhoods::build(&sph.positions, &radii);
        let mls = MlsWeights::compute(&sph.positions, &radii, &hoods);
        Self {
            sph,
            radii,
            hoods,
            mls,
        }
    }

    /// The jittered lattice of the SPH lesson ([`jittered_samples`]), V_j = Δx², h = `support_ratio` · Δx.
    pub fn jittered(spacing: f64, jitter: f64, seed: u64, support_ratio: f64) -> Self {
        let (positions, dx) = jittered_samples(spacing, jitter, seed);
        Self::new(positions, dx * dx, support_ratio * dx)
    }

    pub fn positions(&self) -> &[DVec3] {
        &self.sph.positions
    }

    pub fn support_radius(&self) -> f64 {
        self.sph.support_radius
    }

    /// Move sample i to `position` (in the plane) and recompute the neighbourhoods and MLS weights.
    pub fn move_sample(&mut self, i: usize, position: DVec3) {
        if i >= self.radii.len() || !position.is_finite() {
            return;
        }
        self.sph.set_position(i, position);
        self.hoods = Neighbourhoods::build(&self.sph.positions, &self.radii);
        self.mls = MlsWeights::compute(&self.sph.positions, &self.radii, &self.hoods);
    }

    /// ∇f_i by MLS (tutorial eq. 37), for `values[j]` = f_j.
    pub fn mls_gradient(&self, i: usize, values: &[f64]) -> DVec3 {
        self.mls.scalar_gradient(i, values, &self.hoods)
    }

    pub fn mls_gradients(&self, values: &[f64]) -> Vec<DVec3> {
        (0..self.radii.len())
            .map(|i| self.mls_gradient(i, values))
            .collect()
    }

    /// ∇f_i by the SPH difference formula, uncorrected (tutorial eq. 13).
    pub fn sph_gradients(&self, values: &[f64]) -> Vec<DVec3> {
        self.sph.gradients(values, false)
    }

    /// The moment matrix A_i (tutorial eq. 38).
    pub fn moment_matrix(&self, i: usize) -> DMat3 {
        moment_matrix(i, &self.sph.positions, &self.radii, &self.hoods)
    }

    /// The in-plane condition number λ₁/λ₂ of A_i (∞ when rank-deficient).
    pub fn condition_number(&self, i: usize) -> f64 {
        condition_number(self.moment_matrix(i), PLANAR_RANK as usize)
    }

    /// The rank the safe inverse kept for A_i: 2 regular, 1 collinear or a single neighbour, 0 alone.
    pub fn rank(&self, i: usize) -> u8 {
        self.mls.rank[i]
    }

    /// How many samples have a rank-deficient moment matrix (rank < 2 in the plane).
    pub fn regularized(&self) -> usize {
        self.mls.rank.iter().filter(|&&r| r < PLANAR_RANK).count()
    }

    /// The neighbours j ≠ i with |x_j − x_i| < h.
    pub fn neighbours(&self, i: usize) -> Vec<usize> {
        self.hoods
            .edges(i)
            .map(|k| self.hoods.neighbour[k] as usize)
            .collect()
    }

    /// The MLS shape function of sample i with the linear basis p(d) = (1, d_x/h, d_y/h), shifted and
    /// scaled for stability (tutorial eqs. 28–29):
    ///
    /// Φ_i(x) = w(|x − x_i|) p(0)ᵀ M̃(x)⁻¹ p((x_i − x)/h),   M̃(x) = Σ_j w(|x − x_j|) p((x_j − x)/h) p((x_j − x)/h)ᵀ,
    ///
    /// with the solver's weight w (poly6) and safe inverse. Σ_i Φ_i(x) = 1 and Σ_i Φ_i(x) x_i = x
    /// (consistency of order 1) wherever M̃ is regular.
    pub fn shape_function(&self, i: usize, x: DVec3) -> f64 {
        let h = self.sph.support_radius;
        let p = |d: DVec3| DVec3::new(1.0, d.x / h, d.y / h);
        let w = |r: DVec3| poly6(r.length(), h);
        let Some(&x_i) = self.sph.positions.get(i) else {
            return 0.0;
        };
        let w_i = w(x - x_i);
        if w_i == 0.0 {
            return 0.0;
        }
        let m = self
            .sph
            .within_support(x)
            .fold(DMat3::ZERO, |m, (_, r)| m + outer(p(-r), p(-r)) * w(r));
        let inverse = safe_inverse(m, DEFAULT_RELATIVE_THRESHOLD).inverse;
        w_i * p(DVec3::ZERO).dot(inverse * p(x_i - x))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_parameter_table_takes_its_ends_and_defaults_and_refuses_beyond() {
        crate::params::check_table(super::PARAMETERS).unwrap();
    }

    use super::*;
    use crate::lessons::sph_approximation::ErrorStats;

    /// 20 × 20 samples jittered by 0.8 of a cell, h = 2.5Δx.
    fn irregular() -> MlsGradient {
        MlsGradient::jittered(0.1, 0.8, 9, 2.5)
    }

    /// The samples within one support radius of the boundary.
    fn boundary(lesson: &MlsGradient) -> Vec<usize> {
        let h = lesson.support_radius();
        (0..lesson.positions().len())
            .filter(|&i| {
                let p = lesson.positions()[i];
                p.x.abs().max(p.y.abs()) > 1.0 - h
            })
            .collect()
    }

    #[test]
    fn mls_has_consistency_of_order_zero_and_one_everywhere_including_the_boundary() {
        let lesson = irregular();
        assert_eq!(lesson.regularized(), 0);
        assert!(boundary(&lesson).len() > 100);
        // Order 0: a constant has zero gradient.
        let constant = vec![3.7; lesson.positions().len()];
        assert!(lesson
            .mls_gradients(&constant)
            .iter()
            .all(|g| g.length() <= 1e-12));
        // Order 1: a linear field's gradient is exact at every sample.
        let g = DVec3::new(-0.6, 2.2, 0.0);
        let linear: Vec<f64> = lesson.positions().iter().map(|x| 1.5 + g.dot(*x)).collect();
        let errors = ErrorStats::of(
            lesson
                .mls_gradients(&linear)
                .iter()
                .map(|e| (*e - g).length()),
        );
        assert!(errors.max <= 1e-9, "MLS error {errors:?}");
    }

    #[test]
    fn the_sph_gradient_of_a_linear_field_fails_at_the_boundary() {
        let lesson = irregular();
        let g = DVec3::new(-0.6, 2.2, 0.0);
        let linear: Vec<f64> = lesson.positions().iter().map(|x| 1.5 + g.dot(*x)).collect();
        let sph = lesson.sph_gradients(&linear);
        let at_boundary =
            ErrorStats::of(boundary(&lesson).into_iter().map(|i| (sph[i] - g).length()));
        // Half the kernel is missing at an edge: the estimate is off by about half of |∇f|.
        assert!(
            at_boundary.max > 0.3 * g.length(),
            "SPH boundary error {at_boundary:?}"
        );
    }

    #[test]
    fn degenerate_neighbourhoods_stay_finite_and_are_counted_as_regularized() {
        // A collinear neighbourhood, a sample with one neighbour, and a lone sample.
        let points = vec![
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(0.1, 0.0, 0.0),
            DVec3::new(-0.1, 0.0, 0.0),
            DVec3::new(0.2, 0.0, 0.0),
            DVec3::new(5.0, 5.0, 0.0),
            DVec3::new(5.1, 5.1, 0.0),
            DVec3::new(-5.0, 0.0, 0.0),
        ];
        let lesson = MlsGradient::new(points, 0.01, 0.25);
        assert_eq!(
            (0..7).map(|i| lesson.rank(i)).collect::<Vec<_>>(),
            [1, 1, 1, 1, 1, 1, 0]
        );
        assert_eq!(lesson.regularized(), 7);
        assert_eq!(lesson.condition_number(0), f64::INFINITY);
        let f: Vec<f64> = lesson.positions().iter().map(|x| x.x + 2.0 * x.y).collect();
        for (i, g) in lesson.mls_gradients(&f).into_iter().enumerate() {
            assert!(g.is_finite(), "sample {i}: {g}");
        }
        // The safe inverse keeps the direction of the line: ∂f/∂x = 1 is still found there.
        assert!((lesson.mls_gradient(0, &f) - DVec3::X).length() < 1e-12);
        assert_eq!(lesson.mls_gradient(6, &f), DVec3::ZERO);
        assert!(lesson
            .shape_function(0, DVec3::new(0.05, 0.0, 0.0))
            .is_finite());
    }

    #[test]
    fn dragging_samples_onto_a_line_raises_the_regularized_count() {
        let mut lesson = MlsGradient::jittered(0.1, 0.5, 2, 3.0);
        assert_eq!(lesson.regularized(), 0);
        // Three samples dragged out of the square onto the line y = 0.
        for (k, i) in [0usize, 57, 210].into_iter().enumerate() {
            lesson.move_sample(i, DVec3::new(1.3 + 0.1 * k as f64, 0.0, 0.0));
        }
        assert_eq!(lesson.regularized(), 3);
        assert_eq!(lesson.rank(57), 1);
        assert_eq!(lesson.neighbours(57), [0, 210]);
        let f: Vec<f64> = lesson.positions().iter().map(|x| x.y.sin()).collect();
        assert!(lesson.mls_gradients(&f).iter().all(|g| g.is_finite()));
        assert!(lesson.sph_gradients(&f).iter().all(|g| g.is_finite()));
        // Out-of-range requests are ignored.
        lesson.move_sample(10_000, DVec3::ZERO);
        lesson.move_sample(1, DVec3::NAN);
        assert!(lesson.positions()[1].is_finite());
    }

    #[test]
    fn shape_functions_are_a_partition_of_unity_that_reproduces_linear_fields() {
        let lesson = irregular();
        for x in [
            DVec3::new(0.03, -0.41, 0.0),
            DVec3::new(0.99, 0.2, 0.0),
            DVec3::new(-1.0, -1.0, 0.0),
        ] {
            let phi: Vec<f64> = (0..lesson.positions().len())
                .map(|i| lesson.shape_function(i, x))
                .collect();
            let sum: f64 = phi.iter().sum();
            let first: DVec3 = phi
                .iter()
                .zip(lesson.positions())
                .map(|(p, x_i)| *p * *x_i)
                .sum();
            assert!((sum - 1.0).abs() < 1e-12, "Σ Φ_i({x}) = {sum}");
            assert!((first - x).length() < 1e-12, "Σ Φ_i x_i = {first} at {x}");
        }
        // Φ_i vanishes outside the support of sample i and peaks near x_i.
        let x_0 = lesson.positions()[0];
        assert_eq!(
            lesson.shape_function(0, x_0 + DVec3::X * lesson.support_radius()),
            0.0
        );
        assert!(lesson.shape_function(0, x_0) > 0.0);
    }
}
