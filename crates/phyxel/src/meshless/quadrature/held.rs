//! A clamped face held by a penalty (seed 003 eq. 5's ũ = 0 on Γ_D, imposed weakly), and the part of
//! an explicit step that takes the penalty implicitly.
//!
//! The penalty α = β E / a is far stiffer than the material it holds: taken explicitly, it alone
//! bounds symplectic Euler's step (measured on the explicit-vs-implicit lesson's beam: 2/ω_max falls
//! from 0.48 h√(ρ/E) to 0.07 h√(ρ/E) at β = 100). It is linear and acts on the few particles
//! around the face, so an explicit step takes it implicitly (an implicit–explicit split, Ascher,
//! Ruuth & Wetton 1995): with the penalty force −P u, P = α Σ_s A_s φ(x_s) φ(x_s)ᵀ (the same for
//! each component), the step's velocity solves (M + Δt² P) v⁺ = M v* − Δt P u, v* the velocity of
//! the explicit forces alone — unconditionally stable for the hold, so the material's stiffness sets
//! the step bound again.

use crate::conjugate_gradient::{solve, Solution, Tolerance};
use glam::{DMat3, DVec3};

/// A part of the surface held at its rest position by a penalty (the essential boundary condition
/// ũ = 0 on Γ_D of seed 003 eq. 5, imposed weakly as in element-free Galerkin methods: Belytschko,
/// Lu & Gu 1994 §4 use Lagrange multipliers, the penalty form is Zhu & Atluri 1998): the energy
/// α/2 Σ_s A_s |ũ(x_s)|² over surface quadrature points x_s with areas A_s. MLS shape functions do
/// not interpolate, so fixing the particles on the face would not hold the face itself.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldSurface {
    /// α (N/m³).
    pub penalty: f64,
    /// The surface points' areas A_s.
    pub area: Vec<f64>,
    /// Edges of point s: `start[s]..start[s + 1]`, to `particle[e]` with φ_e.
    pub start: Vec<u32>,
    pub particle: Vec<u32>,
    pub value: Vec<f64>,
}

impl HeldSurface {
    /// ũ(x_s) at surface point s.
    pub fn displacement(&self, s: usize, u: &[DVec3]) -> DVec3 {
        (self.start[s] as usize..self.start[s + 1] as usize)
            .map(|e| self.value[e] * u[self.particle[e] as usize])
            .sum()
    }

    /// f_i −= α Σ_s A_s φ_i(x_s) ũ(x_s) (the penalty's force, or with δu its stiffness product).
    pub fn add_forces(&self, u: &[DVec3], forces: &mut [DVec3]) {
        for s in 0..self.area.len() {
            let us = self.penalty * self.area[s] * self.displacement(s, u);
            for e in self.start[s] as usize..self.start[s + 1] as usize {
                forces[self.particle[e] as usize] -= self.value[e] * us;
            }
        }
    }

    /// α/2 Σ_s A_s |ũ(x_s)|².
    pub fn energy(&self, u: &[DVec3]) -> f64 {
        (0..self.area.len())
            .map(|s| 0.5 * self.penalty * self.area[s] * self.displacement(s, u).length_squared())
            .sum()
    }

    /// The diagonal blocks −α Σ_s A_s φ_i(x_s)² I of its stiffness.
    pub fn add_diagonal(&self, blocks: &mut [DMat3]) {
        for s in 0..self.area.len() {
            for e in self.start[s] as usize..self.start[s + 1] as usize {
                let k = self.penalty * self.area[s] * self.value[e] * self.value[e];
                blocks[self.particle[e] as usize] -= DMat3::IDENTITY * k;
            }
        }
    }

    /// P w = α Σ_s A_s φ(x_s) w̃(x_s): the penalty's (positive) stiffness applied to `w`.
    pub fn stiffness_times(&self, w: &[DVec3]) -> Vec<DVec3> {
        let mut product = vec![DVec3::ZERO; w.len()];
        self.add_forces(w, &mut product);
        product.iter_mut().for_each(|p| *p = -*p);
        product
    }

    /// The velocities after an explicit step whose hold is taken implicitly: `velocity` holds v*
    /// (the step's velocity from every other force) and becomes v⁺ with
    /// (M + Δt² P) v⁺ = M v* − Δt P u (module docs) on the free particles, v⁺ = 0 on the `fixed` ones
    /// (their rows and columns left out, as in `implicit::velocity_change`), solved by conjugate
    /// gradients with the diagonal of M + Δt² P as preconditioner. The matrix is M plus a
    /// positive semidefinite term, so CG converges in a few dozen iterations; returns what it did
    /// (the solution is `velocity`).
    pub fn implicit_velocities(
        &self,
        mass: &[f64],
        fixed: &[bool],
        dt: f64,
        displacement: &[DVec3],
        velocity: &mut Vec<DVec3>,
    ) -> Solution<()> {
        let dt2 = dt * dt;
        let free = |i: usize| !fixed.get(i).copied().unwrap_or(false);
        let masked = |w: &[DVec3]| -> Vec<DVec3> {
            (0..w.len())
                .map(|i| if free(i) { w[i] } else { DVec3::ZERO })
                .collect()
        };
        let pu = self.stiffness_times(displacement);
        let rhs: Vec<DVec3> = (0..mass.len())
            .map(|i| {
                if free(i) {
                    mass[i] * velocity[i] - dt * pu[i]
                } else {
                    DVec3::ZERO
                }
            })
            .collect();
        let mut diagonal = vec![DMat3::ZERO; mass.len()];
        self.add_diagonal(&mut diagonal);
        let inverse: Vec<f64> = (0..mass.len())
            .map(|i| {
                if free(i) {
                    1.0 / (mass[i] - dt2 * diagonal[i].x_axis.x)
                } else {
                    1.0
                }
            })
            .collect();
        let apply = |w: &Vec<DVec3>| -> Vec<DVec3> {
            let w = masked(w);
            let pw = self.stiffness_times(&w);
            (0..w.len())
                .map(|i| {
                    if free(i) {
                        mass[i] * w[i] + dt2 * pw[i]
                    } else {
                        DVec3::ZERO
                    }
                })
                .collect()
        };
        let precondition = |r: &Vec<DVec3>| -> Vec<DVec3> {
            r.iter().zip(&inverse).map(|(r, s)| *s * *r).collect()
        };
        let tolerance = Tolerance {
            relative_residual: 1e-12,
            max_iterations: 500,
            reference_norm: 0.0,
        };
        let Solution {
            x,
            iterations,
            relative_residual,
            converged,
        } = solve(apply, &rhs, masked(velocity), precondition, tolerance);
        *velocity = x;
        Solution {
            x: (),
            iterations,
            relative_residual,
            converged,
        }
    }
}
