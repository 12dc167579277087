//! The SPH-approximation lesson: a function known only at scattered samples x_j, reconstructed
//! anywhere by the SPH sum, with and without the Shepard filter, and its gradient by the SPH
//! difference formula, with and without the kernel-gradient correction of Bonet & Lok (1999).
//!
//! * SPH approximation (tutorial eq. 3; KBST19 §2): ⟨A⟩(x) = Σ_j V_j A_j W(x − x_j).
//! * Shepard filter (Shepard 1968; tutorial §2): ⟨A⟩(x) = Σ_j V_j A_j W(x − x_j) / Σ_k V_k W(x − x_k).
//! * Difference formula (tutorial eq. 13): ⟨∇A⟩(x) = Σ_j V_j (A_j − A(x)) ∇W(x − x_j).
//! * Kernel-gradient correction (Bonet & Lok 1999; KBST19): ∇W̃ = L ∇W with
//!   L(x) = (Σ_j V_j ∇W(x − x_j) ⊗ (x_j − x))⁻¹.
//!
//! The samples lie in the plane z = 0 and the kernels are the 2D-normalized ones of
//! [`crate::kernels`]. Every sample stands for one cell of the jittered lattice: V_j = Δx².

use crate::kernels::{Dimension, Kernel};
use crate::meshless::mls::{outer, safe_inverse, SafeInverse, DEFAULT_RELATIVE_THRESHOLD};
use crate::meshless::neighbours::HashGrid;
use glam::{DMat3, DVec3};

/// The samples cover the square [−HALF_WIDTH, HALF_WIDTH]².
pub const HALF_WIDTH: f64 = 1.0;

/// The lesson's parameters: the jittered lattice (spacing Δx, support radius h / Δx, jitter as a
/// fraction of a cell, random seed) and the line (offset, angle θ in degrees). The page's controls
/// take their ranges and defaults from here (`SphApproximationLesson.parameters()`), and the bindings
/// check values against the same.
pub mod param {
    use crate::params::Param;
    pub const SPACING: Param = Param::real("spacing", 0.02, 0.25, 0.05);
    pub const SUPPORT_RATIO: Param = Param::real("ratio", 1.0, 6.0, 3.0);
    pub const JITTER: Param = Param::real("jitter", 0.0, 1.0, 0.5);
    pub const SEED: Param = Param::integer("seed", 0.0, 1_000_000.0, 1.0);
    pub const OFFSET: Param = Param::real("offset", -super::HALF_WIDTH, super::HALF_WIDTH, 0.3);
    pub const ANGLE: Param = Param::real("angle", -90.0, 90.0, 0.0);
}

/// Every parameter of the lesson, by its public name.
pub const PARAMETERS: &[crate::params::Param] = &[
    param::SPACING,
    param::SUPPORT_RATIO,
    param::JITTER,
    param::SEED,
    param::OFFSET,
    param::ANGLE,
];

/// The largest number of lattice cells along one side (so at most 200² samples).
pub const MAX_CELLS: usize = 200;

/// A small deterministic pseudo-random sequence in [0, 1) (a 64-bit LCG; no dependency needed).
fn uniform(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

/// One sample per cell of an n × n lattice over the square, n = round(2 / `spacing`): the cell centre
/// displaced by up to ±`jitter`/2 of the cell in x and in y (`jitter` = 0: the lattice; 1: anywhere
/// in the cell), deterministic for a given `seed`. Returns the samples (z = 0) and the lattice
/// spacing Δx = 2 / n actually used.
pub fn jittered_samples(spacing: f64, jitter: f64, seed: u64) -> (Vec<DVec3>, f64) {
    let cells = if spacing.is_finite() && spacing > 0.0 {
        ((2.0 * HALF_WIDTH / spacing).round() as usize).clamp(1, MAX_CELLS)
    } else {
        1
    };
    let dx = 2.0 * HALF_WIDTH / cells as f64;
    let jitter = if jitter.is_finite() {
        jitter.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut state = seed
        .wrapping_mul(2_862_933_555_777_941_757)
        .wrapping_add(3_037_000_493);
    let mut samples = Vec::with_capacity(cells * cells);
    for j in 0..cells {
        for i in 0..cells {
            let centre = DVec3::new(
                -HALF_WIDTH + (i as f64 + 0.5) * dx,
                -HALF_WIDTH + (j as f64 + 0.5) * dx,
                0.0,
            );
            let offset = DVec3::new(uniform(&mut state) - 0.5, uniform(&mut state) - 0.5, 0.0);
            samples.push(centre + jitter * dx * offset);
        }
    }
    (samples, dx)
}

/// Scattered samples x_j with volumes V_j and an SPH kernel of support radius h.
#[derive(Clone, Debug)]
pub struct Particles {
    pub positions: Vec<DVec3>,
    /// V_j, the same for every sample (Δx² for the jittered lattice).
    pub volume: f64,
    pub support_radius: f64,
    pub kernel: Kernel,
    grid: HashGrid,
}

/// Summary of the errors |estimate − exact| over a set of points.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ErrorStats {
    pub max: f64,
    /// √(mean of the squared errors).
    pub rms: f64,
}

impl ErrorStats {
    /// Max and RMS of `errors` (zero for none).
    pub fn of(errors: impl IntoIterator<Item = f64>) -> Self {
        let (mut max, mut sum, mut n) = (0.0f64, 0.0, 0usize);
        for e in errors {
            let e = e.abs();
            max = max.max(e);
            sum += e * e;
            n += 1;
        }
        Self {
            max,
            rms: if n == 0 { 0.0 } else { (sum / n as f64).sqrt() },
        }
    }
}

impl Particles {
    /// Samples at `positions` (z = 0), each of volume `volume`, with `kernel` of support radius `h`.
    /// `h` must be positive and finite (the lesson's controls check it).
    pub fn new(positions: Vec<DVec3>, volume: f64, support_radius: f64, kernel: Kernel) -> Self {
        let grid = HashGrid::build(&positions, support_radius);
        Self {
            positions,
            volume,
            support_radius,
            kernel,
            grid,
        }
    }

    /// The jittered lattice of [`jittered_samples`] with V_j = Δx² and h = `support_ratio` · Δx.
    pub fn jittered(
        spacing: f64,
        jitter: f64,
        seed: u64,
        support_ratio: f64,
        kernel: Kernel,
    ) -> Self {
        let (positions, dx) = jittered_samples(spacing, jitter, seed);
        Self::new(positions, dx * dx, support_ratio * dx, kernel)
    }

    /// Move sample i (the hash grid is rebuilt).
    pub fn set_position(&mut self, i: usize, position: DVec3) {
        if let Some(p) = self.positions.get_mut(i) {
            *p = DVec3::new(position.x, position.y, 0.0);
            self.grid = HashGrid::build(&self.positions, self.support_radius);
        }
    }

    /// Every sample j within the support of x, with x − x_j.
    pub fn within_support(&self, x: DVec3) -> impl Iterator<Item = (usize, DVec3)> + '_ {
        self.grid.candidates(x).filter_map(move |j| {
            let r = x - self.positions[j as usize];
            (r.length() < self.support_radius).then_some((j as usize, r))
        })
    }

    /// W(x − x_j) for r = x − x_j, normalized in 2D.
    pub fn kernel_value(&self, r: DVec3) -> f64 {
        self.kernel
            .value(r.length(), self.support_radius, Dimension::Two)
    }

    /// ∇W(x − x_j) with respect to x: (x − x_j)/|x − x_j| · W′ (tutorial eq. 10); zero at r = 0.
    pub fn kernel_gradient(&self, r: DVec3) -> DVec3 {
        let length = r.length();
        if length == 0.0 {
            return DVec3::ZERO;
        }
        r / length
            * self
                .kernel
                .derivative(length, self.support_radius, Dimension::Two)
    }

    /// Σ_j V_j W(x − x_j): one inside a uniformly filled support, less where the support is cut by
    /// the boundary — the denominator of the Shepard filter.
    pub fn kernel_sum(&self, x: DVec3) -> f64 {
        self.within_support(x)
            .map(|(_, r)| self.volume * self.kernel_value(r))
            .sum()
    }

    /// ⟨A⟩(x) = Σ_j V_j A_j W(x − x_j) (tutorial eq. 3), or with the Shepard filter divided by
    /// Σ_k V_k W(x − x_k) so that constants are reproduced exactly. `values[j]` = A_j. Where no sample
    /// is within reach there is nothing to average: 0.
    pub fn approximate(&self, x: DVec3, values: &[f64], shepard: bool) -> f64 {
        let (mut sum, mut weights) = (0.0, 0.0);
        for (j, r) in self.within_support(x) {
            let vw = self.volume * self.kernel_value(r);
            sum += vw * values[j];
            weights += vw;
        }
        if shepard && weights > 0.0 {
            sum / weights
        } else {
            sum
        }
    }

    /// The kernel-gradient correction L(x) = (Σ_j V_j ∇W(x − x_j) ⊗ (x_j − x))⁻¹ (Bonet & Lok 1999).
    /// For a radial kernel ∇W(x − x_j) = −W′/r · (x_j − x) with −W′/r ≥ 0, so the matrix is symmetric
    /// positive semi-definite — a moment matrix — and the phyxel solver's safe inverse inverts it (rank
    /// 2 in the plane; less where the samples are collinear or missing).
    pub fn gradient_correction(&self, x: DVec3) -> SafeInverse {
        let m = self.within_support(x).fold(DMat3::ZERO, |m, (_, r)| {
            m + outer(self.kernel_gradient(r), -r) * self.volume
        });
        // Symmetrize the round-off before the eigen-decomposition.
        safe_inverse(0.5 * (m + m.transpose()), DEFAULT_RELATIVE_THRESHOLD)
    }

    /// The difference formula ⟨∇A⟩(x) = Σ_j V_j (A_j − A(x)) ∇W(x − x_j) (tutorial eq. 13), with the
    /// correction L(x) ∇W when `corrected`. `value_at_x` = A(x) (A_i at a sample).
    pub fn gradient(&self, x: DVec3, value_at_x: f64, values: &[f64], corrected: bool) -> DVec3 {
        let sum = self.within_support(x).fold(DVec3::ZERO, |g, (j, r)| {
            g + self.volume * (values[j] - value_at_x) * self.kernel_gradient(r)
        });
        if corrected {
            self.gradient_correction(x).inverse * sum
        } else {
            sum
        }
    }

    /// ⟨∇A⟩_i at every sample.
    pub fn gradients(&self, values: &[f64], corrected: bool) -> Vec<DVec3> {
        self.positions
            .iter()
            .enumerate()
            .map(|(i, &x)| self.gradient(x, values[i], values, corrected))
            .collect()
    }

    /// Mean number of other samples within the support of a sample.
    pub fn mean_neighbours(&self) -> f64 {
        if self.positions.is_empty() {
            return 0.0;
        }
        let pairs: usize = self
            .positions
            .iter()
            .map(|&x| self.within_support(x).count() - 1)
            .sum();
        pairs as f64 / self.positions.len() as f64
    }
}

/// The line the page samples the approximation along: the points x with x · n = `offset`,
/// n = (−sin θ, cos θ), i.e. through offset · n in the direction d = (cos θ, sin θ).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub offset: f64,
    /// θ in radians.
    pub angle: f64,
}

impl Line {
    pub fn direction(self) -> DVec3 {
        DVec3::new(self.angle.cos(), self.angle.sin(), 0.0)
    }

    pub fn normal(self) -> DVec3 {
        DVec3::new(-self.angle.sin(), self.angle.cos(), 0.0)
    }

    /// The point at arc length s from the foot offset · n.
    pub fn at(self, s: f64) -> DVec3 {
        self.offset * self.normal() + s * self.direction()
    }

    /// The range of s for which the line lies in the sampled square (slab clipping); `None` when it
    /// misses the square.
    pub fn clip(self) -> Option<(f64, f64)> {
        let (origin, d) = (self.at(0.0), self.direction());
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        for (o, d) in [(origin.x, d.x), (origin.y, d.y)] {
            if d.abs() < 1e-12 {
                if o.abs() > HALF_WIDTH {
                    return None;
                }
                continue;
            }
            let (a, b) = ((-HALF_WIDTH - o) / d, (HALF_WIDTH - o) / d);
            lo = lo.max(a.min(b));
            hi = hi.min(a.max(b));
        }
        (lo < hi).then_some((lo, hi))
    }

    /// `count` evenly spaced points (s, x(s)) on the part of the line inside the square.
    pub fn points(self, count: usize) -> Vec<(f64, DVec3)> {
        let Some((lo, hi)) = self.clip() else {
            return Vec::new();
        };
        let n = count.max(2);
        (0..n)
            .map(|k| {
                let s = lo + (hi - lo) * k as f64 / (n - 1) as f64;
                (s, self.at(s))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_parameter_table_takes_its_ends_and_defaults_and_refuses_beyond() {
        crate::params::check_table(super::PARAMETERS).unwrap();
    }

    use super::*;

    fn jittered() -> Particles {
        // 40 × 40 samples, jittered by half a cell, h = 3Δx: about 28 neighbours inside.
        Particles::jittered(0.05, 0.5, 11, 3.0, Kernel::CubicSpline)
    }

    /// The sample nearest to p.
    fn nearest(particles: &Particles, p: DVec3) -> usize {
        (0..particles.positions.len())
            .min_by(|&a, &b| {
                particles.positions[a]
                    .distance(p)
                    .total_cmp(&particles.positions[b].distance(p))
            })
            .unwrap()
    }

    #[test]
    fn samples_are_jittered_within_their_cells_and_deterministic() {
        let (samples, dx) = jittered_samples(0.05, 1.0, 3);
        assert_eq!(samples.len(), 1600);
        assert!((dx - 0.05).abs() < 1e-15);
        assert!(samples
            .iter()
            .all(|p| p.x.abs() <= 1.0 && p.y.abs() <= 1.0 && p.z == 0.0));
        assert_eq!(samples, jittered_samples(0.05, 1.0, 3).0);
        assert_ne!(samples, jittered_samples(0.05, 1.0, 4).0);
        let (lattice, _) = jittered_samples(0.5, 0.0, 3);
        assert_eq!(lattice[0], DVec3::new(-0.75, -0.75, 0.0));
        // Bad input gives a valid sampling, not a panic.
        assert_eq!(jittered_samples(f64::NAN, f64::NAN, 0).0.len(), 1);
        assert_eq!(
            jittered_samples(1e-9, 0.3, 0).0.len(),
            MAX_CELLS * MAX_CELLS
        );
    }

    #[test]
    fn shepard_reproduces_constants_exactly_even_at_the_boundary_and_plain_sph_does_not() {
        let particles = jittered();
        let ones = vec![1.0; particles.positions.len()];
        // Interior, edge, corner, and every sample.
        let corner = nearest(&particles, DVec3::new(-1.0, -1.0, 0.0));
        let edge = nearest(&particles, DVec3::new(0.0, 1.0, 0.0));
        for x in [DVec3::new(0.1, -0.2, 0.0), DVec3::new(0.37, 0.99, 0.0)]
            .into_iter()
            .chain(particles.positions.iter().copied())
        {
            let shepard = particles.approximate(x, &ones, true);
            assert!((shepard - 1.0).abs() <= 1e-12, "x = {x}: {shepard}");
        }
        // Plain SPH: about right inside (the sum of V_j W is a quadrature of ∫W = 1) ...
        let inside = particles.approximate(DVec3::new(0.1, -0.2, 0.0), &ones, false);
        assert!((inside - 1.0).abs() < 0.05, "interior: {inside}");
        // ... but at the boundary part of the support is empty: the sample nearest an edge (half a
        // cell inside, h = 3Δx) sees a little more than half of it, the one nearest a corner a little
        // more than a quarter.
        let at_edge = particles.approximate(particles.positions[edge], &ones, false);
        let at_corner = particles.approximate(particles.positions[corner], &ones, false);
        assert!(at_edge > 0.5 && at_edge < 0.8, "edge: {at_edge}");
        assert!(at_corner > 0.25 && at_corner < 0.55, "corner: {at_corner}");
        assert!(1.0 - at_edge > 0.2 && 1.0 - at_corner > 0.45);
    }

    #[test]
    fn corrected_gradient_reproduces_linear_fields_exactly_and_the_plain_one_fails_at_the_boundary()
    {
        for kernel in Kernel::ALL {
            let particles = Particles::jittered(0.05, 0.8, 5, 3.0, kernel);
            let g = DVec3::new(0.7, -1.3, 0.0);
            let f: Vec<f64> = particles
                .positions
                .iter()
                .map(|x| 0.4 + g.dot(*x))
                .collect();
            let corrected = particles.gradients(&f, true);
            let worst = corrected
                .iter()
                .map(|e| (*e - g).length())
                .fold(0.0, f64::max);
            assert!(worst <= 1e-9, "{kernel:?}: corrected error {worst}");
            // Also between the samples, with A(x) the exact value there.
            let x = DVec3::new(-0.987, 0.33, 0.0);
            let between = particles.gradient(x, 0.4 + g.dot(x), &f, true);
            assert!((between - g).length() <= 1e-9);
            // The plain difference formula is off by tens of percent at the boundary.
            let corner = nearest(&particles, DVec3::new(1.0, -1.0, 0.0));
            let plain = particles.gradient(particles.positions[corner], f[corner], &f, false);
            assert!(
                (plain - g).length() > 0.2 * g.length(),
                "{kernel:?}: plain gradient at the corner {plain} vs {g}"
            );
        }
    }

    #[test]
    fn constants_have_zero_gradient_with_the_difference_formula() {
        let particles = jittered();
        let f = vec![2.5; particles.positions.len()];
        assert!(particles
            .gradients(&f, false)
            .iter()
            .all(|g| g.length() == 0.0));
    }

    #[test]
    fn lone_and_collinear_samples_give_finite_values() {
        let lone = Particles::new(vec![DVec3::ZERO], 1.0, 0.1, Kernel::CubicSpline);
        assert_eq!(
            lone.approximate(DVec3::new(5.0, 0.0, 0.0), &[1.0], true),
            0.0
        );
        assert_eq!(lone.gradient(DVec3::ZERO, 1.0, &[1.0], true), DVec3::ZERO);
        assert_eq!(lone.gradient_correction(DVec3::ZERO).rank, 0);
        let line: Vec<DVec3> = (0..5).map(|k| DVec3::X * 0.1 * k as f64).collect();
        let particles = Particles::new(line, 0.01, 0.25, Kernel::WendlandC2);
        let f: Vec<f64> = particles.positions.iter().map(|x| 2.0 * x.x).collect();
        assert_eq!(
            particles.gradient_correction(particles.positions[2]).rank,
            1
        );
        // Along the line the corrected gradient is still exact: the pseudo-inverse keeps that direction.
        let g = particles.gradient(particles.positions[2], f[2], &f, true);
        assert!((g - DVec3::new(2.0, 0.0, 0.0)).length() < 1e-12, "{g}");
    }

    #[test]
    fn the_line_is_clipped_to_the_square() {
        let horizontal = Line {
            offset: 0.25,
            angle: 0.0,
        };
        assert_eq!(horizontal.clip(), Some((-1.0, 1.0)));
        let points = horizontal.points(5);
        assert_eq!(points.len(), 5);
        assert!((points[0].1 - DVec3::new(-1.0, 0.25, 0.0)).length() < 1e-15);
        let diagonal = Line {
            offset: 0.0,
            angle: std::f64::consts::FRAC_PI_4,
        };
        let (lo, hi) = diagonal.clip().unwrap();
        assert!((hi - lo - 2.0 * 2f64.sqrt()).abs() < 1e-12);
        let outside = Line {
            offset: 1.5,
            angle: 0.0,
        };
        assert!(outside.points(10).is_empty());
    }
}
