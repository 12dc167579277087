//! Position-based dynamics with distance constraints: PBD (Müller, Heidelberger, Hennix, Ratcliff 2006)
//! and XPBD (Macklin, Müller, Chentanez 2016), in 2D as on the examples site's `pbd.html`.
//!
//! One step: predict p = x + Δt v + Δt² g; project the constraints `iterations` times (Gauss–Seidel);
//! v = (p − x)/Δt, x = p. For a distance constraint C = |p_a − p_b| − d with n = (p_a − p_b)/|p_a − p_b|:
//!
//! * PBD:  Δλ = −k C / (w_a + w_b)  (stiffness k ∈ [0, 1] per iteration);
//! * XPBD: Δλ = (−C − α̃ λ) / (w_a + w_b + α̃),  α̃ = α / Δt²,  λ ← λ + Δλ  (compliance α = 1/stiffness, m/N);
//!
//! then p_a += w_a Δλ n and p_b −= w_b Δλ n, with w = 1/m (0 for fixed particles).

use crate::params::Param;
use glam::DVec2;
use serde::{Deserialize, Serialize};

/// The lesson's parameters (the classic cloth of the examples site: 2 iterations, Δt = 0.005, mass
/// 0.5): the page's controls take their ranges and defaults from here (`PbdLesson.parameters()`), and
/// the bindings check values against the same.
pub mod param {
    use crate::params::Param;
    pub const ITERATIONS: Param = Param::integer("iterations", 1.0, 100.0, 2.0);
    pub const STIFFNESS: Param = Param::real("stiffness", 0.0, 1.0, 1.0);
    pub const COMPLIANCE: Param = Param::real("compliance", 0.0, 10.0, 1e-4);
    pub const DT: Param = Param::real("dt", 1e-4, 0.05, 0.005);
    pub const GRAVITY: Param = Param::real("gravity", 0.0, 50.0, 9.81);
    pub const MASS: Param = Param::real("mass", 0.01, 100.0, 0.5);
}

/// Every parameter of the lesson, by its public name.
pub const PARAMETERS: &[Param] = &[
    param::ITERATIONS,
    param::STIFFNESS,
    param::COMPLIANCE,
    param::DT,
    param::GRAVITY,
    param::MASS,
];

/// |p_a − p_b| = rest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceConstraint {
    pub a: usize,
    pub b: usize,
    pub rest: f64,
}

/// How constraints are projected.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "solver", rename_all = "kebab-case")]
pub enum Projection {
    /// PBD with stiffness k ∈ [0, 1].
    Pbd { stiffness: f64 },
    /// XPBD with compliance α ≥ 0 (m/N).
    Xpbd { compliance: f64 },
}

/// Particles joined by distance constraints.
#[derive(Clone, Debug, Default)]
pub struct PbdSystem {
    pub positions: Vec<DVec2>,
    pub velocities: Vec<DVec2>,
    /// w = 1/m; 0 pins a particle.
    pub inverse_masses: Vec<f64>,
    pub constraints: Vec<DistanceConstraint>,
    /// A floor y = floor that particles cannot pass (projected after the constraints).
    pub floor: Option<f64>,
    /// XPBD's Lagrange multipliers of the current step.
    lambdas: Vec<f64>,
    predicted: Vec<DVec2>,
}

impl PbdSystem {
    /// Particles at `positions`, each of mass `mass`, joined by `pairs` at their current distances.
    pub fn new(positions: Vec<DVec2>, mass: f64, pairs: &[(usize, usize)]) -> Self {
        let constraints = pairs
            .iter()
            .map(|&(a, b)| DistanceConstraint {
                a,
                b,
                rest: positions[a].distance(positions[b]),
            })
            .collect::<Vec<_>>();
        let n = positions.len();
        Self {
            velocities: vec![DVec2::ZERO; n],
            inverse_masses: vec![1.0 / mass; n],
            lambdas: vec![0.0; constraints.len()],
            predicted: positions.clone(),
            positions,
            constraints,
            floor: None,
        }
    }

    /// Pin (or release) particle i.
    pub fn set_fixed(&mut self, i: usize, mass: f64, fixed: bool) {
        self.inverse_masses[i] = if fixed { 0.0 } else { 1.0 / mass };
        if fixed {
            self.velocities[i] = DVec2::ZERO;
        }
    }

    /// One PBD/XPBD step.
    pub fn step(&mut self, dt: f64, iterations: usize, gravity: DVec2, projection: Projection) {
        for i in 0..self.positions.len() {
            let w = self.inverse_masses[i];
            let v = if w > 0.0 {
                self.velocities[i] + dt * gravity
            } else {
                self.velocities[i]
            };
            self.predicted[i] = self.positions[i] + dt * v;
        }
        self.lambdas.iter_mut().for_each(|l| *l = 0.0);
        for _ in 0..iterations {
            for (c, lambda) in self.constraints.iter().zip(self.lambdas.iter_mut()) {
                let (wa, wb) = (self.inverse_masses[c.a], self.inverse_masses[c.b]);
                let w = wa + wb;
                let d = self.predicted[c.a] - self.predicted[c.b];
                let length = d.length();
                if w == 0.0 || length == 0.0 {
                    continue;
                }
                let n = d / length;
                let violation = length - c.rest;
                let delta = match projection {
                    Projection::Pbd { stiffness } => -stiffness * violation / w,
                    Projection::Xpbd { compliance } => {
                        let alpha = compliance / (dt * dt);
                        let delta = (-violation - alpha * *lambda) / (w + alpha);
                        *lambda += delta;
                        delta
                    }
                };
                self.predicted[c.a] += wa * delta * n;
                self.predicted[c.b] -= wb * delta * n;
            }
        }
        if let Some(floor) = self.floor {
            self.predicted.iter_mut().for_each(|p| p.y = p.y.max(floor));
        }
        for i in 0..self.positions.len() {
            self.velocities[i] = (self.predicted[i] - self.positions[i]) / dt;
            self.positions[i] = self.predicted[i];
        }
    }

    /// The largest relative violation |C| / d over all constraints.
    pub fn max_relative_error(&self) -> f64 {
        self.constraints
            .iter()
            .map(|c| (self.positions[c.a].distance(self.positions[c.b]) - c.rest).abs() / c.rest)
            .fold(0.0, f64::max)
    }

    /// The particle nearest to `p` within `radius`.
    pub fn nearest(&self, p: DVec2, radius: f64) -> Option<usize> {
        self.positions
            .iter()
            .enumerate()
            .map(|(i, x)| (i, x.distance(p)))
            .filter(|&(_, d)| d <= radius)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }
}

/// The classic cloth of the examples site: `width` × `height` particles `spacing` apart, hanging from its
/// two top corners, with structural (horizontal, vertical) and shear (both diagonals) constraints.
/// 40 × 30 gives 39·30 + 40·29 + 2·39·29 = 4592 constraints.
pub fn cloth(width: usize, height: usize, spacing: f64, mass: f64) -> PbdSystem {
    let index = |i: usize, j: usize| j * width + i;
    let positions = (0..height)
        .flat_map(|j| {
            (0..width).map(move |i| DVec2::new(i as f64 * spacing, -(j as f64) * spacing))
        })
        .collect();
    let mut pairs = Vec::new();
    for j in 0..height {
        for i in 0..width {
            if i + 1 < width {
                pairs.push((index(i, j), index(i + 1, j)));
            }
            if j + 1 < height {
                pairs.push((index(i, j), index(i, j + 1)));
            }
            if i + 1 < width && j + 1 < height {
                pairs.push((index(i, j), index(i + 1, j + 1)));
                pairs.push((index(i + 1, j), index(i, j + 1)));
            }
        }
    }
    let mut system = PbdSystem::new(positions, mass, &pairs);
    system.set_fixed(index(0, 0), mass, true);
    system.set_fixed(index(width - 1, 0), mass, true);
    system
}

/// A rope of `segments` links of length `spacing`, hanging straight down from a fixed top particle.
pub fn rope(segments: usize, spacing: f64, mass: f64) -> PbdSystem {
    let positions = (0..=segments)
        .map(|i| DVec2::new(0.0, -(i as f64) * spacing))
        .collect();
    let pairs: Vec<_> = (0..segments).map(|i| (i, i + 1)).collect();
    let mut system = PbdSystem::new(positions, mass, &pairs);
    system.set_fixed(0, mass, true);
    system
}

/// A soft box: an `n` × `n` grid of particles with structural, shear and bending (skip-one)
/// constraints, resting in the air with nothing fixed — it falls.
pub fn soft_box(n: usize, spacing: f64, mass: f64) -> PbdSystem {
    let index = |i: usize, j: usize| j * n + i;
    let positions = (0..n)
        .flat_map(|j| (0..n).map(move |i| DVec2::new(i as f64 * spacing, j as f64 * spacing)))
        .collect();
    let mut pairs = Vec::new();
    for j in 0..n {
        for i in 0..n {
            for (di, dj) in [(1, 0), (0, 1), (1, 1), (2, 0), (0, 2)] {
                if i + di < n && j + dj < n {
                    pairs.push((index(i, j), index(i + di, j + dj)));
                }
            }
            if i + 1 < n && j + 1 < n {
                pairs.push((index(i + 1, j), index(i, j + 1)));
            }
        }
    }
    PbdSystem::new(positions, mass, &pairs)
}

/// The lesson's "box" scene: an 8 × 8 [`soft_box`] of spacing 0.25 with its lower-left particle at
/// (−0.9, 1), dropped on a floor at y = −3.
pub fn dropped_box(mass: f64) -> PbdSystem {
    let mut system = soft_box(8, 0.25, mass);
    system
        .positions
        .iter_mut()
        .for_each(|p| *p += DVec2::new(-0.9, 1.0));
    system.floor = Some(-3.0);
    system
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_parameter_table_takes_its_ends_and_defaults_and_refuses_beyond() {
        crate::params::check_table(super::PARAMETERS).unwrap();
    }

    use super::*;

    const GRAVITY: DVec2 = DVec2::new(0.0, -9.81);

    #[test]
    fn the_classic_cloth_has_4592_constraints() {
        let cloth = cloth(40, 30, 0.2, 0.5);
        assert_eq!(cloth.positions.len(), 1200);
        assert_eq!(cloth.constraints.len(), 4592);
        assert_eq!(
            cloth.inverse_masses.iter().filter(|w| **w == 0.0).count(),
            2
        );
    }

    #[test]
    fn a_pendulum_keeps_its_length() {
        // A fixed pivot and a bob released sideways: one constraint, projected exactly every step.
        let mut pendulum = PbdSystem::new(vec![DVec2::ZERO, DVec2::new(1.0, 0.0)], 1.0, &[(0, 1)]);
        pendulum.set_fixed(0, 1.0, true);
        let mut lowest: f64 = 0.0;
        for _ in 0..5000 {
            pendulum.step(0.005, 1, GRAVITY, Projection::Pbd { stiffness: 1.0 });
            let length = pendulum.positions[1].length();
            assert!((length - 1.0).abs() < 1e-12, "length {length}");
            lowest = lowest.min(pendulum.positions[1].y);
        }
        assert!(
            lowest < -0.99,
            "the bob swings through the bottom: {lowest}"
        );
    }

    #[test]
    fn xpbd_with_zero_compliance_equals_pbd_with_stiffness_one() {
        let mut pbd = cloth(12, 9, 0.2, 0.5);
        let mut xpbd = pbd.clone();
        for _ in 0..200 {
            pbd.step(0.005, 3, GRAVITY, Projection::Pbd { stiffness: 1.0 });
            xpbd.step(0.005, 3, GRAVITY, Projection::Xpbd { compliance: 0.0 });
        }
        let worst = pbd
            .positions
            .iter()
            .zip(&xpbd.positions)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0, f64::max);
        assert!(worst < 1e-12, "PBD and XPBD differ by {worst}");
    }

    /// Total stretch of a rope hanging at rest (damped by restarting from rest each step near the end).
    fn rope_stretch(projection: Projection, iterations: usize) -> f64 {
        let (segments, spacing, mass) = (10, 0.1, 0.1);
        let mut rope = rope(segments, spacing, mass);
        for step in 0..4000 {
            rope.step(0.005, iterations, GRAVITY, projection);
            // Critical damping of the swing: kill the velocities now and then so it settles.
            if step % 50 == 0 {
                rope.velocities.iter_mut().for_each(|v| *v = DVec2::ZERO);
            }
        }
        rope.velocities.iter_mut().for_each(|v| *v = DVec2::ZERO);
        for _ in 0..200 {
            rope.step(0.005, iterations, GRAVITY, projection);
            rope.velocities.iter_mut().for_each(|v| *v = DVec2::ZERO);
        }
        -rope.positions[segments].y - segments as f64 * spacing
    }

    #[test]
    fn the_stretch_of_a_hanging_rope_under_xpbd_matches_the_compliance() {
        // Link i (from the top, 1-based) carries the weight of the N − i + 1 particles below it, so
        // it stretches by α·m·g·(N − i + 1); in total α·m·g·N(N + 1)/2.
        let (n, m, g) = (10.0, 0.1, 9.81);
        for compliance in [1e-3, 1e-2] {
            let expected = compliance * m * g * n * (n + 1.0) / 2.0;
            let stretch = rope_stretch(Projection::Xpbd { compliance }, 100);
            assert!(
                (stretch / expected - 1.0).abs() < 0.02,
                "α = {compliance}: stretch {stretch}, theory {expected}"
            );
        }
    }

    #[test]
    fn pbd_stiffness_depends_on_the_iteration_count_and_xpbd_much_less() {
        let pbd = |iterations| rope_stretch(Projection::Pbd { stiffness: 0.1 }, iterations);
        let xpbd = |iterations| rope_stretch(Projection::Xpbd { compliance: 1e-2 }, iterations);
        let (pbd_ratio, xpbd_ratio) = (pbd(5) / pbd(50), xpbd(5) / xpbd(50));
        assert!(
            pbd_ratio > 3.0,
            "PBD: 5 iterations stretch {pbd_ratio}× as much as 50"
        );
        assert!(
            xpbd_ratio < pbd_ratio / 2.0,
            "XPBD ratio {xpbd_ratio} vs PBD {pbd_ratio}"
        );
    }
}
