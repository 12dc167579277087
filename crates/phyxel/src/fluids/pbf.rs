//! Position-based fluids (Macklin & Müller 2013, "Position Based Fluids", SIGGRAPH): one density
//! constraint per particle, C_i = ρ_i/ρ₀ − 1 (eq. 1), solved on predicted positions x* by Jacobi
//! iterations:
//!
//! - λ_i = −C_i / (Σ_k |∇_k C_i|² + ε) (eq. 11) with ∇_k C_i = (1/ρ₀) Σ_j m ∇W_ij for k = i and
//!   −(m/ρ₀) ∇W_ik for a neighbour k (eq. 8); a wall particle b adds (1/ρ₀) ρ₀ V_b ∇W_ib to ∇_i C_i and,
//!   being static, no term of its own;
//! - Δx_i = (1/ρ₀) [Σ_j m (λ_i + λ_j + s_corr) ∇W_ij + Σ_b ρ₀ V_b λ_i ∇W_ib] (eqs. 12, 14), with the
//!   tensile-instability term s_corr = −k (W_ij / W(Δq))ⁿ (eq. 13; k = 0 turns it off).
//!
//! Every iteration evaluates the kernel once per pair, in the density pass ([`Fluid::compute_densities`]
//! keeps W and ∇W per pair for λ and Δx at the same positions).
//!
//! Only compression is a violation (C_i clamped at 0: the free surface). The iterations stop when every
//! C_i is below `tolerance` or at `max_iterations`; then v = (x* − x)/Δt and XSPH (eq. 17). The
//! pressure shown is the one WCSPH's force would need to move the particles as far: p_i = −ρ₀ Σ λ_i/Δt².
//!
//! ## One search a step
//! As in Algorithm 1, the neighbours are found once, at x*; the iterations, the final densities and
//! XSPH use those lists. The loop always ends on a density pass after the last correction, so ρ_i,
//! W_ij and the largest C_i are those of the final positions; only pairs that came closer than h
//! while the particles were corrected are left out, and they sit where W and ∇W vanish: in the test
//! `pbf_brings_every_density_constraint_below_its_tolerance` they add at most 1.1·10⁻⁵ ρ₀ to any
//! density (0.1 % of the tolerance). A second search and density pass at the final positions (as
//! here until 2026-12-03) cost 17 % of the 2D lesson's step at 71 across (62 → 74 steps/s natively)
//! and 30 % of the 3D dam break's at 29 across (12.6 → 17.7).
//!
//! ## Chebyshev's acceleration
//! Jacobi's iterations remove a compression that spans the whole column (the weight of the water
//! each step's gravity pushes into the floor) a little per sweep: at 71 across the lesson's dam break
//! took 17.7 of them a step. Wang 2015 ("A Chebyshev semi-iterative approach for accelerating
//! projective and position-based dynamics", SIGGRAPH Asia, §4) accelerates such iterations with the
//! weights ω₁ = 1, ω₂ = 2/(2 − ρ²), ω_(k+1) = 4/(4 − ρ² ω_k) (ρ an estimate of the Jacobi iteration's
//! spectral radius, [`Pbf::spectral_radius`]). Here they act on the multipliers:
//! λ̃_i^k = ω_k λ_i^k + (ω_k − 1) λ̃_i^(k−1), and Δx is formed from λ̃ (eqs. 12–14 as above). With the
//! kernels frozen that is Wang's update of the positions, x^(k+1) = ω_k (x^k + Δx^k − x^(k−1)) +
//! x^(k−1), because Δx is linear in λ; taken on the multipliers it keeps what the plain iterations
//! have: each fluid pair's corrections stay equal and opposite (momentum), λ̃ ≤ 0 (particles are only
//! pushed apart), and the pressure shown and the walls' reactions are those of λ̃, the multipliers
//! that moved the particles.
//!
//! What it costs: a constraint that has stopped being violated still pushes with its λ̃'s momentum
//! for a few iterations, and the unilateral constraint never pulls that expansion back. The larger ρ,
//! the more: the 3D dam break's early front (6 across) runs 33 % ahead of Martin & Moyce with
//! ρ = 0.85 and 42 % with 0.9, against 29 % for the plain iterations at 1 % and 35 % at 0.1 % (its
//! converged direction), so ρ = 0.85 stays within what the plain solver gives. Tried and not kept
//! (2026-12-03): carrying no momentum where λ_i = 0 (13.4 iterations a step at ρ = 0.9, 12.7 at
//! 0.95–0.97: the acceleration lost), the same keeping the last λ̃ for later (blew up), starting the
//! weights after 3 or 5 plain iterations (at ρ = 0.95 7.7–8.5 iterations with the early front as far
//! ahead as ρ = 0.9's; at 0.9 9.5 with 0.85's front), the weights on the positions (the same front;
//! pressure and reactions no longer from the multipliers).
//!
//! ## A body inside the solve
//! A floating body ([`crate::fluids::coupling`]) coupled explicitly — the walls' reactions of one step
//! applied to the body after it — set a light body bobbing ever harder until it threw water out of
//! the tank (0.5 ρ₀ in the coupling tests' calm tank at Δx = 0.02 m: a particle out at t = 1.74 s
//! with Δt ≤ 1 ms, 1.54 s with Δt ≤ 1/240 s; 2026-12-03). So the body moves inside the
//! iterations, as its rigid modes u_m (two translations and the rotation about its centre of mass,
//! modal masses M_m; [`RigidModes`]) carry it:
//!
//! - its particles start at their predicted positions x*_k = x_k + Δt (v_k + Δt g), as the fluid's;
//! - the momentum each iteration's Δx pushes into body particle k, J_k (the walls' reactions above,
//!   and those of the hard constraint against the walls), moves mode m by Δq_m = Δt Σ_k J_k·u_m(x_k)
//!   / M_m, and k sits at x*_k + Σ_m Δq_m u_m(x_k) ([`Pbf::move_body`]);
//! - a constraint C_i that touches the body counts the body's motion in λ_i's denominator: with
//!   ∂C_i/∂q_m = −Σ_k V_k ∇W_ik·u_m(x_k), the term Σ_m (m/M_m)(∂C_i/∂q_m)² ([`body_inverse_mass_term`];
//!   the body moves m/M_m as far as a fluid particle for the same correction);
//! - the hard constraint against the walls is applied every iteration (Algorithm 1, lines 13–16),
//!   as the body can squeeze water against a wall, and each Δx_i is shortened to at most
//!   [`MAX_CORRECTION`] h (its pushes on the body alike), as a film squeezed between the body and
//!   the floor otherwise asks for corrections longer than the kernel's support.
//!
//! After the step the coupling forms the body's velocity from the same J_k (spread by the modes), so
//! the body ends where the iterations left it. Measured (2026-12-07, the coupling's tests): the calm
//! tank floats 0.5 ρ₀ submerged 0.4914 / 0.5043 at Δx 0.02 / 0.01 m (Δt ≤ 1 ms) and 0.4883 at PBF's own
//! step; on the page's dam break, 20, 30 and 40 across with bodies of 0.3, 0.5 and 3 ρ₀, 4 s each,
//! no particle left the tank or entered the body, light bodies float and the heavy one lands on the
//! floor (2–3 steps of each heavy run retried at half the Δt, none of the light ones';
//! [`crate::fluids::coupling::RETRIES`]).

use super::error::FluidError;
use super::fluid::{Fluid, ParticlePairs, StepReport};
use super::kernel::Vector;
use super::rigid_modes::RigidModes;

/// ρ of Chebyshev's weights (module notes): the 2D lesson's dam break at 71 across (300 steps from
/// rest, one thread, natively) takes 9.8 iterations a step with it against 17.7 plain (8.2 with
/// ρ = 0.9, whose early front runs too far ahead; 0.99 blows up at the first step), 41–44 → 66–67
/// steps/s, the builds alternated (2026-12-03; docs/benchmarks.md, "PBF with Chebyshev's weights").
pub const SPECTRAL_RADIUS: f64 = 0.85;

/// The longest correction Δx_i of one iteration, as a fraction of h, in a step with a body (module
/// notes, "A body inside the solve"); without one the corrections are not shortened.
pub const MAX_CORRECTION: f64 = 0.1;

/// Chebyshev's weight ω_k of iteration k ≥ 1 from ω_(k−1) (Wang 2015, §4): 1, 2/(2 − ρ²), then
/// 4/(4 − ρ² ω_(k−1)); it rises from 1 toward 2/(1 + √(1 − ρ²)).
fn chebyshev_weight(k: u32, omega_before: f64, rho: f64) -> f64 {
    match k {
        0 | 1 => 1.0,
        2 => 2.0 / (2.0 - rho * rho),
        _ => 4.0 / (4.0 - rho * rho * omega_before),
    }
}

/// PBF's iteration settings and its per-particle buffers.
#[derive(Clone, Debug)]
pub struct Pbf {
    /// Every density constraint C_i must end below this (0.01: 1 % compression).
    pub tolerance: f64,
    pub max_iterations: u32,
    /// ε of eq. 11 (relaxation), as a fraction of the constraint gradient's scale (1/Δx)².
    pub relaxation: f64,
    /// k of eq. 13 (0: no tensile-instability correction).
    pub scorr_k: f64,
    /// n of eq. 13.
    pub scorr_n: i32,
    /// Δq of eq. 13 as a fraction of h.
    pub scorr_dq: f64,
    /// The CFL number λ of Δt = λ Δx / v_max.
    pub cfl: f64,
    /// ρ of Chebyshev's weights (module notes; 0: plain Jacobi iterations).
    pub spectral_radius: f64,
    /// λ̃ of the iteration running (the multipliers Δx is formed from).
    lambda: Vec<f64>,
    /// λ̃ of the iteration before.
    lambda_before: Vec<f64>,
    lambda_sum: Vec<f64>,
    x_old: Vec<Vector>,
    /// The largest C_i after the last step's iterations.
    pub last_max_constraint: f64,
    /// A body among the boundary particles that moves inside the position solve as its rigid modes
    /// (module notes, "A body inside the solve"); taken for one step, dropped if it has no mode.
    pub body: Option<RigidModes>,
    /// The body's particles' positions when the iterations start (its predicted positions).
    body_start: Vec<Vector>,
}

impl Default for Pbf {
    fn default() -> Self {
        Self {
            tolerance: 0.01,
            max_iterations: 100,
            relaxation: 1e-4,
            scorr_k: 0.0,
            scorr_n: 4,
            scorr_dq: 0.2,
            cfl: 0.4,
            spectral_radius: SPECTRAL_RADIUS,
            lambda: Vec::new(),
            lambda_before: Vec::new(),
            lambda_sum: Vec::new(),
            x_old: Vec::new(),
            last_max_constraint: 0.0,
            body: None,
            body_start: Vec::new(),
        }
    }
}

impl Pbf {
    /// Δt = λ Δx / v_max, at most `dt_max`.
    pub fn time_step(&self, fluid: &Fluid, dt_max: f64) -> f64 {
        fluid.cfl_time_step(self.cfl, dt_max)
    }

    /// One step of Δt (Macklin & Müller 2013, Algorithm 1, without vorticity confinement). Leaves
    /// the densities and kernels of the new positions, summed over the neighbour lists found once,
    /// at x* (module notes, "One search a step").
    pub fn step(&mut self, fluid: &mut Fluid, dt: f64) -> Result<StepReport, FluidError> {
        let n = fluid.len();
        self.lambda.resize(n, 0.0);
        self.lambda_sum.clear();
        self.lambda_sum.resize(n, 0.0);
        self.x_old.clear();
        self.x_old.extend_from_slice(&fluid.x);
        // v ← v + Δt a_ext, x* ← x + Δt v
        fluid.non_pressure_accelerations();
        for i in 0..n {
            let a = fluid.scratch[i];
            fluid.v[i] += dt * a;
            let v = fluid.v[i];
            fluid.x[i] += dt * v;
        }
        fluid.find_neighbours()?;
        self.start_body(fluid)?;
        fluid.keep_off_walls_predicted(dt);
        let rho0 = fluid.rest_density();
        let epsilon = self.relaxation / (fluid.spacing() * fluid.spacing());
        let scorr_w = fluid.kernel.w(self.scorr_dq * fluid.kernel.h);
        let mut iterations = 0;
        let mut omega = 1.0;
        let mass = fluid.mass;
        let longest = match self.body {
            Some(_) => MAX_CORRECTION * fluid.kernel.h,
            None => f64::INFINITY,
        };
        loop {
            // ρ_i and, from the same pairs while they are in cache, λ_i (eq. 11); the λ of the pass
            // that ends the iterations are not used.
            let body = self.body.as_ref();
            fluid.compute_densities_then(&mut self.lambda, |p| {
                let constraint = (p.density / rho0 - 1.0).max(0.0);
                if constraint == 0.0 {
                    return 0.0;
                }
                let mut grad_i = Vector::ZERO;
                let mut sum_square = 0.0;
                for pair in p.fluid {
                    let g = (mass / rho0) * pair.grad();
                    grad_i += g;
                    sum_square += g.length_squared();
                }
                for (&b, pair) in p.boundary.iter().zip(p.boundary_kernels) {
                    grad_i += p.volume[b as usize] * pair.grad();
                }
                // 0 for a particle with no body particle among its neighbours.
                let moved_body = body.map_or(0.0, |modes| body_inverse_mass_term(modes, &p, mass));
                -constraint / (grad_i.length_squared() + sum_square + moved_body + epsilon)
            });
            let max_constraint = fluid.max_density_error();
            self.last_max_constraint = max_constraint;
            if max_constraint <= self.tolerance || iterations >= self.max_iterations {
                break;
            }
            iterations += 1;
            // λ̃ = ω λ + (ω − 1) λ̃_before (Chebyshev's weights, module notes).
            omega = chebyshev_weight(iterations, omega, self.spectral_radius);
            if iterations == 1 {
                self.lambda_before.clone_from(&self.lambda);
            } else {
                for (lambda, before) in self.lambda.iter_mut().zip(&mut self.lambda_before) {
                    *lambda = omega * *lambda + (omega - 1.0) * *before;
                    *before = *lambda;
                }
            }
            // Δx_i (eqs. 12–14), into scratch, then applied (Jacobi).
            let this = &*self;
            fluid.update_scratch(|fluid, i, impulse, dx| {
                *dx = this.correction(fluid, i, dt, scorr_w, longest, impulse)
            });
            for i in 0..n {
                let dx = fluid.scratch[i];
                fluid.x[i] += dx;
                self.lambda_sum[i] += self.lambda[i];
            }
            if self.body.is_some() {
                // Collision response in every iteration (Algorithm 1, lines 13–16) where a body
                // moves: water between it and a wall is pushed out of both (module notes).
                fluid.keep_off_walls_predicted(dt);
                self.move_body(fluid, dt);
            }
        }
        // The loop ended on a density pass after the last correction: ρ_i, W_ij and the largest C_i
        // are those of the final positions, over the step's lists (Algorithm 1 searches once).
        for i in 0..n {
            fluid.v[i] = (fluid.x[i] - self.x_old[i]) / dt;
            fluid.pressure[i] = -rho0 * self.lambda_sum[i] / (dt * dt);
        }
        fluid.xsph_viscosity();
        fluid.time += dt;
        Ok(StepReport {
            dt,
            iterations,
            density_error: fluid.density_error(),
        })
    }

    /// Takes the step's body ([`Pbf::body`]) at its predicted positions: dropped if it has no mode,
    /// refused if its particles are not among the boundary's; the walls' reactions are booked
    /// (`Fluid::boundary_impulse` sized to the boundary), as the body's motion is formed from them.
    fn start_body(&mut self, fluid: &mut Fluid) -> Result<(), FluidError> {
        if self.body.as_ref().is_some_and(RigidModes::is_empty) {
            self.body = None;
        }
        let Some(body) = &self.body else {
            return Ok(());
        };
        let end = body.first + body.particle_count();
        if end > fluid.boundary.x.len() {
            return Err(FluidError::BadInput(format!(
                "body: its particles {}..{end} are not among the {} boundary particles",
                body.first,
                fluid.boundary.x.len()
            )));
        }
        self.body_start.clear();
        self.body_start
            .extend_from_slice(&fluid.boundary.x[body.first..end]);
        let walls = fluid.boundary.x.len();
        if fluid.boundary_impulse.len() != walls {
            fluid.boundary_impulse.resize(walls, Vector::ZERO);
        }
        Ok(())
    }

    /// The body's particles where the iterations so far have moved it (module notes): the momentum
    /// its particles took, J_k (`Fluid::boundary_impulse`, booked by [`Pbf::correction`] and the
    /// walls' hard constraint), moves each mode by Δq_m = Δt Σ_k J_k·u_m(x_k) / M_m, and particle k
    /// sits at x*_k + Σ_m Δq_m u_m(x_k).
    fn move_body(&self, fluid: &mut Fluid, dt: f64) {
        let Some(body) = &self.body else {
            return;
        };
        let first = body.first;
        let count = body.particle_count();
        let mut dq = body.modal_changes(&fluid.boundary_impulse[first..first + count]);
        dq.iter_mut().for_each(|q| *q *= dt);
        for (k, start) in self.body_start.iter().enumerate() {
            fluid.boundary.x[first + k] = *start + body.velocity_change(k, &dq);
        }
    }

    /// Δx_i (eqs. 12–14) of the current λ̃, at most `longest` (shortened along itself; infinite
    /// without a body, [`MAX_CORRECTION`] h with one); each wall particle b that particle i pushes takes the opposite of the momentum m Δx/Δt
    /// of its push (shortened alike) in `impulse[b]` where that is kept (a moving body,
    /// [`crate::fluids::coupling`]).
    #[inline(always)]
    fn correction(
        &self,
        fluid: &Fluid,
        i: usize,
        dt: f64,
        scorr_w: f64,
        longest: f64,
        impulse: &mut [Vector],
    ) -> Vector {
        let rho0 = fluid.rest_density();
        let li = self.lambda[i];
        let mut dx = Vector::ZERO;
        let range = fluid.fluid_neighbours.range(i);
        for (&j, pair) in fluid
            .fluid_neighbours
            .of(i)
            .iter()
            .zip(&fluid.fluid_kernels[range])
        {
            let scorr = if self.scorr_k > 0.0 {
                -self.scorr_k * (pair.w() / scorr_w).powi(self.scorr_n)
            } else {
                0.0
            };
            dx += (fluid.mass / rho0 * (li + self.lambda[j as usize] + scorr)) * pair.grad();
        }
        if li == 0.0 {
            return shortened(dx, longest).0;
        }
        let range = fluid.boundary_neighbours.range(i);
        let walls = fluid.boundary_neighbours.of(i);
        let kernels = &fluid.boundary_kernels[range];
        for (&b, pair) in walls.iter().zip(kernels) {
            dx += (fluid.boundary.volume[b as usize] * li) * pair.grad();
        }
        let (dx, scale) = shortened(dx, longest);
        if !impulse.is_empty() {
            for (&b, pair) in walls.iter().zip(kernels) {
                if let Some(impulse) = impulse.get_mut(b as usize) {
                    let push = (fluid.boundary.volume[b as usize] * li) * pair.grad();
                    *impulse -= (scale * fluid.mass / dt) * push;
                }
            }
        }
        dx
    }
}

/// `dx` shortened to at most `longest` along itself, and the factor it was scaled by (1 if not).
#[inline(always)]
fn shortened(dx: Vector, longest: f64) -> (Vector, f64) {
    let length_squared = dx.length_squared();
    if length_squared > longest * longest {
        let scale = longest / length_squared.sqrt();
        (scale * dx, scale)
    } else {
        (dx, 1.0)
    }
}

/// Σ_m (m/M_m) (∂C_i/∂q_m)² of fluid particle i's constraint against the body's rigid modes (module
/// notes): ∂C_i/∂q_m = −Σ_k V_k ∇W_ik·u_m(x_k) over its body neighbours k, and a mode of modal mass
/// M_m moves m/M_m as far as a fluid particle for the same correction (its inverse mass relative to
/// the fluid particle's mass m).
fn body_inverse_mass_term(modes: &RigidModes, p: &ParticlePairs, mass: f64) -> f64 {
    modes
        .velocity
        .iter()
        .zip(&modes.mass)
        .map(|(u, modal_mass)| {
            let gradient: f64 = p
                .boundary
                .iter()
                .zip(p.boundary_kernels)
                .filter_map(|(&b, pair)| {
                    let k = modes.particle(b as usize)?;
                    Some(p.volume[b as usize] * pair.grad().dot(u[k]))
                })
                .sum();
            mass / modal_mass * gradient * gradient
        })
        .sum()
}
