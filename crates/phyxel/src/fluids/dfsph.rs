//! Divergence-free SPH (Bender & Koschier 2015, "Divergence-Free Smoothed Particle Hydrodynamics",
//! SCA; the same scheme in their 2017 TVCG paper, Algorithm 1): two pressure solves per step, both
//! Jacobi-style iterations on one per-particle stiffness κ_i:
//!
//! - the *constant-density solver* before the particles move: it corrects the predicted velocities v*
//!   until the predicted density ρ*_i = ρ_i + Δt Σ_j m (v*_i − v*_j)·∇W_ij is ρ₀ on average (within
//!   `density_tolerance`): κ_i = (ρ*_i − ρ₀)/Δt² · α_i;
//! - the *divergence-free solver* after they moved: it corrects v until Dρ_i/Dt =
//!   Σ_j m (v_i − v_j)·∇W_ij is zero on average (within `divergence_tolerance` per Δt): κᵛ_i =
//!   (Dρ_i/Dt)/Δt · α_i.
//!
//! Both apply v_i −= Δt Σ_j m (κ_i/ρ_i + κ_j/ρ_j) ∇W_ij + Δt Σ_b ρ₀ V_b (κ_i/ρ_i) ∇W_ib, which is WCSPH's
//! symmetric pressure force (seed 002 eq. 51) with p_i/ρ_i² = κ_i/ρ_i. The factor
//!
//! α_i = ρ_i / (|Σ_j m ∇W_ij + Σ_b ρ₀ V_b ∇W_ib|² + Σ_j |m ∇W_ij|²)
//!
//! makes κ_i alone cancel particle i's error (the Jacobi diagonal); it depends on the positions only, so
//! it is computed once per position. Only compression is corrected: each solve's Σκ_i stays ≥ 0 (an
//! increment may be negative, undoing an earlier push or the warm start's guess, down to 0), so the
//! free surface is not pulled in. The pressure shown is p_i = ρ_i Σ κ_i over the step's iterations of
//! both solvers.
//!
//! **The density solve as a bounded quadratic program** (by default; [`Dfsph::conjugate_gradients`]).
//! With y_i = κ_i/ρ_i the velocity update is Δv = −Δt G y, (G y)_i = Σ_j m (y_i + y_j) ∇W_ij + Σ_b ρ₀ V_b
//! y_i ∇W_ib, and the predicted density rate is D v, (D v)_i = Σ_j m (v_i − v_j)·∇W_ij + Σ_b ρ₀ V_b
//! v_i·∇W_ib. D = Gᵀ (swap i and j in the pair sums, ∇W_ji = −∇W_ij), so the predicted compression
//! c(y) = c⁰ − A y, c⁰_i = ρ_i + Δt (D v*)_i − ρ₀, has A = Δt² D G = Δt² Gᵀ G symmetric positive
//! semidefinite, with A_ii = Δt² ρ_i/α_i (the denominator of α_i is |G e_i|²). "Push only, until
//! nothing is compressed" — y ≥ 0, c(y) ≤ 0, and c_i(y) = 0 wherever y_i > 0 — are the optimality
//! conditions of min ½ yᵀA y − c⁰ᵀy subject to y ≥ 0, which [`crate::bounded_cg`] solves by conjugate
//! gradients on the pushing particles (Jacobi's diagonal as preconditioner), the set taken again every
//! [`INNER_ITERATIONS`] steps. Each product A p is one pass of G and one of D: a Jacobi iteration's
//! work. It stops on the same measure as Jacobi's iteration — the mean over the particles of |c_i|
//! where y_i > 0 and max(c_i, 0) where y_i = 0 — and on its largest
//! ([`Dfsph::largest_density_error`]). Measured on the lesson's dam break at 71 across (300 steps from
//! rest, one thread, 2026-12-03): 16.7 products a step at a mean tolerance of 0.01 % against Jacobi's
//! 30.4 iterations at 0.02 %, 108 against 68 steps/s.
//!
//! The time step (measured 2026-11-24; tables in docs/benchmarks.md, "SPlisHSPlasH side by side").
//! With the CFL step on the particles' speed alone, a column released at rest *erupts* — the bottom row
//! is pressed towards the floor to ρ ≈ 1.3–1.8 ρ₀ within 5–10 steps, then particles are flung at
//! metres per second — once Δt √(g H)/Δx is too large, H the column's height (√(g H) = √(p/ρ₀) at its
//! bottom): on the tests' column (0.1 × 0.2 m, 100 iterations, mean tolerance 0.02 %) calm at ≤ 0.56,
//! marginal at 0.78–0.84 (ρ to 1.2–1.4 ρ₀, nothing out), erupting at ≥ 1.12, alike at 20, 40 and 80
//! across. With the tests' cap of 2 ms that is 0.56, 1.12, 2.24 at 20, 40, 80 across: the "defect that
//! grows with the resolution" of earlier notes. SPlisHSPlasH 2.19's DFSPH, given the same discrete
//! problem (Phyxel's wall particles, lattice, kernel, tolerances; its initial densities equal this
//! code's to the digit), erupts the same way at the same numbers, and harder (241 m/s at 40 across,
//! 2 642 m/s at 80, Δt ≤ 2 ms), so this is a property of the scheme, not a departure from the
//! reference. Ruled out before (at 40 or 80 across, Δt ≤ 2 ms, each still erupting): 2 000–3 000
//! iterations (1 000 in SPlisHSPlasH); SPlisHSPlasH's relaxed Jacobi with warm start reimplemented
//! line by line; spiky-kernel gradients; the Wendland C2 kernel (support 2 Δx); a stopping test on
//! the largest error; the walls' volumes (V_b = Δx²); a start settled by WCSPH; supports of 2.5–3 Δx.
//!
//! Hence [`Dfsph::hydrostatic_speed`] (on by default): the CFL step counts √(|g| H), H the fluid's
//! extent along gravity, beside the largest speed, Δt ≤ λ Δx / max(v_max, √(|g| H)) (λ = 0.4 keeps
//! Δt √(g H)/Δx ≤ 0.4). Measured with it at the 2 ms cap: the column calm at 40 across (0.37 m/s, none
//! out, 0.5 s) and at 80 (0.51 m/s); the lesson's dam break at 71 across no longer erupts at the start
//! (largest speed 10 m/s against 20, ρ ≤ 1.08 ρ₀ against 1.56) and its front matches the 35-across one
//! within 1 %, at 4 % more steps over 1 s (Δt is shorter only while the fluid stands higher than it
//! moves fast). A bound on √(Δx/g) alone, tried before, was dropped: it does not scale with the column
//! and cost the dam break accuracy. Not established: the mechanism inside a step — why a longer step
//! lets the bottom row collapse even with 1 000 iterations. The solver's own pressure is no substitute
//! for √(g H) in the bound: its corrective part grows as 1/Δt², and Δt then shrinks without end
//! (measured: Δt → 10⁻⁵ s within 6 steps).
//! Both codes' runs: `crates/phyxel-bench/splishsplash/README.md` and the ignored tests
//! `dfsph_column_side_by_side`, `dfsph_dam_break_side_by_side`.

use super::error::FluidError;
use super::fluid::{Fluid, StepReport};
use super::grid::PIECE;
use super::kernel::Vector;
use super::rigid_modes::RigidModes;

/// DFSPH's tolerances and its per-particle buffers.
#[derive(Clone, Debug)]
pub struct Dfsph {
    /// The constant-density solver stops when the mean predicted compression is below this (of ρ₀):
    /// 0.01 %. (0.02 % while the solve was Jacobi's only; with the bounded CG at 0.02 % a body of half
    /// water's density floated 11 % higher than Archimedes says, 0.444 submerged, at 0.01 % 0.471, and
    /// Jacobi's 0.490.)
    pub density_tolerance: f64,
    /// The divergence-free solver stops when the mean Dρ/Dt · Δt is below this (of ρ₀).
    pub divergence_tolerance: f64,
    pub min_iterations: u32,
    pub max_iterations: u32,
    /// The CFL number λ of Δt = λ Δx / v_max.
    pub cfl: f64,
    /// α_i at the current positions (valid when `ready`).
    alpha: Vec<f64>,
    kappa: Vec<f64>,
    /// κ_i/ρ_i of the iteration being applied.
    kappa_over_rho: Vec<f64>,
    kappa_sum: Vec<f64>,
    /// The solve's Σκ_i so far (its warm guess and its iterations).
    kappa_total: Vec<f64>,
    /// m ∇W_ij for every fluid pair and ρ₀ V_b ∇W_ib for every wall pair, in the neighbour lists'
    /// order, taken with α (the positions do not move during a solve): the iterations then only
    /// form dot products.
    grad_fluid: Vec<Vector>,
    grad_boundary: Vec<Vector>,
    /// The density solve's Σκ in the last step and that step's Δt: the next step's first guess (warm
    /// start, Bender & Koschier 2017 §4.4).
    warm_density: Vec<f64>,
    warm_dt: f64,
    /// Whether the density solve starts from half the last step's Σκ (on by default). Measured on the
    /// lesson's dam break at 71 across, 300 steps from rest, one thread: 50.3 → 30.4 iterations a step,
    /// 39–40 → 60–65 steps/s (runs alternated); on the 3D dam break (48 778 particles, 2 threads)
    /// 20.1 → 17.4 iterations, 10.6 → 11.1 steps/s. A guess that pushes too hard is undone by the
    /// iterations (the solve's Σκ_i may fall back to 0, not below). Before that was so (2026-11-25),
    /// only positive increments were taken, and with the warm start the dam-break front at 10 across
    /// ran 28–30 % ahead of Martin & Moyce early on (14–16 % without); now 15–17 %. The divergence
    /// solve starts from 0: guessing it too changed neither iterations nor speed beyond noise, and put
    /// the 3D dam break's front at 6 across 0.4 % further ahead. The bounded CG solve
    /// ([`Dfsph::conjugate_gradients`]) starts from the whole of the last Σκ: on the lesson's dam
    /// break at 71 across 13.7 products a step against 18.8 from half of it (2026-12-03, both at a
    /// mean tolerance of 0.02 %).
    pub warm_start: bool,
    /// Whether the CFL step also counts the hydrostatic speed √(|g| H), H the fluid's extent along
    /// gravity (√(p/ρ₀) at the bottom of a column of height H at rest), beside the particles' largest
    /// speed. See the module notes: without it a column at rest erupts once Δt √(g H)/Δx exceeds
    /// about 0.8. (Not the solver's own pressure: its corrective part grows as 1/Δt², and a step bound
    /// on it shrinks Δt without end.)
    pub hydrostatic_speed: bool,
    /// Whether the constant-density solve is the bounded conjugate gradients of [`crate::bounded_cg`]
    /// (on by default) instead of Jacobi's iteration: the same problem (module notes, "The density
    /// solve as a bounded quadratic program") to the same mean tolerance, with the full last Σκ as its
    /// first guess (Jacobi: half of it).
    pub conjugate_gradients: bool,
    /// With [`Dfsph::conjugate_gradients`], the solve goes on until no particle's predicted
    /// compression (or the expansion of one still pushing) exceeds this (of ρ₀) either. Jacobi's
    /// sweeps spread what error they leave; CG's may sit on a few particles, and a mean test passes a
    /// single particle compressed by 16 % among 8 000 (measured on the column at 40 across).
    pub largest_density_error: f64,
    /// The density solve's unknowns y_i = κ_i/ρ_i, its right-hand side (the compression without
    /// pressure), A's diagonal and the velocity field of a search direction.
    y: Vec<f64>,
    compression: Vec<f64>,
    diagonal: Vec<f64>,
    direction_velocity: Vec<Vector>,
    bounded: crate::bounded_cg::Buffers,
    /// ρ*_i (density solver) or Dρ_i/Dt (divergence solver).
    source: Vec<f64>,
    /// Each particle's error in the iteration being tested (summed in the particles' order).
    error: Vec<f64>,
    ready: bool,
    /// Iterations of the last step: (constant density, divergence-free).
    pub last_iterations: (u32, u32),
    /// A body among the boundary particles whose rigid motion answers the pressure inside both
    /// solves ([`RigidModes`]; then both are bounded CG solves of the coupled system A + B). Its
    /// particles' `Fluid::boundary_velocity` is its predicted velocity at the step's start; each solve
    /// adds the body's response to it.
    pub body: Option<RigidModes>,
    /// c_im of the body's modes for every fluid particle (row i, one entry per mode).
    modal: Vec<f64>,
}

impl Default for Dfsph {
    fn default() -> Self {
        Self {
            density_tolerance: 0.0001,
            divergence_tolerance: 0.001,
            min_iterations: 2,
            max_iterations: 100,
            cfl: 0.4,
            alpha: Vec::new(),
            kappa: Vec::new(),
            kappa_over_rho: Vec::new(),
            kappa_sum: Vec::new(),
            kappa_total: Vec::new(),
            grad_fluid: Vec::new(),
            grad_boundary: Vec::new(),
            warm_density: Vec::new(),
            warm_dt: 0.0,
            warm_start: true,
            hydrostatic_speed: true,
            conjugate_gradients: true,
            largest_density_error: 0.01,
            y: Vec::new(),
            compression: Vec::new(),
            diagonal: Vec::new(),
            direction_velocity: Vec::new(),
            bounded: crate::bounded_cg::Buffers::default(),
            source: Vec::new(),
            error: Vec::new(),
            ready: false,
            last_iterations: (0, 0),
            body: None,
            modal: Vec::new(),
        }
    }
}

/// The fraction of a negative increment κ_i applied in an iteration. A whole Jacobi step back
/// overshoots: with 1 the lesson's dam break at 71 across moved a particle 0.64 h in its first step,
/// with 1/2 the 3D column left its box; with 1/4 every fluid test holds (measured 2026-11-29).
const RELEASE: f64 = 0.25;

/// CG steps of the bounded density solve on one set of pushing particles before the set is taken
/// again ([`crate::bounded_cg::Settings::inner_iterations`]). Measured on the lesson's dam break at 71
/// across (300 steps, one thread, 2026-12-03, half the last Σκ as the guess, mean tolerance 0.02 %):
/// 10 → 18.8 products a step, unbounded (each set solved to the tolerance) 19.5; on the column at rest
/// at 40 across 24.2 against 25.2, and 33.6 with 5.
const INNER_ITERATIONS: u32 = 10;

/// Particles with fewer neighbours (itself and walls counted) are left out of the divergence solve:
/// at a splash's edge Dρ/Dt says nothing about compression.
const MIN_DIVERGENCE_NEIGHBOURS: usize = 7;

impl Dfsph {
    /// Forget α: the positions changed outside the solver (a restart, another solver's steps).
    pub fn invalidate(&mut self) {
        self.ready = false;
        self.warm_dt = 0.0;
        self.warm_density.iter_mut().for_each(|k| *k = 0.0);
    }

    /// Δt = λ Δx / max(v_max, √(|g| H)), at most `dt_max`, H the fluid's extent along gravity; without
    /// `hydrostatic_speed`, λ Δx / v_max.
    pub fn time_step(&self, fluid: &Fluid, dt_max: f64) -> f64 {
        let dt = fluid.cfl_time_step(self.cfl, dt_max);
        let g = fluid.settings.gravity;
        if !self.hydrostatic_speed || g == Vector::ZERO || fluid.is_empty() {
            return dt;
        }
        let down = g.normalize();
        let (low, high) = fluid
            .x
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                let d = x.dot(down);
                (lo.min(d), hi.max(d))
            });
        let speed = (g.length() * (high - low)).sqrt();
        if speed > 0.0 {
            dt.min(self.cfl * fluid.spacing() / speed)
        } else {
            dt
        }
    }

    /// One step of Δt (Bender & Koschier 2017, Algorithm 1). Expects neighbours and densities at the
    /// current positions and leaves them at the new ones.
    pub fn step(&mut self, fluid: &mut Fluid, dt: f64) -> Result<StepReport, FluidError> {
        let n = fluid.len();
        if self.alpha.len() != n {
            self.alpha.resize(n, 0.0);
            self.kappa.resize(n, 0.0);
            self.kappa_sum.resize(n, 0.0);
            self.warm_density.clear();
            self.warm_density.resize(n, 0.0);
            self.source.resize(n, 0.0);
            self.error.resize(n, 0.0);
            self.ready = false;
        }
        if !self.ready {
            self.compute_alpha(fluid);
        }
        // A body without modes (none with mass) moves nothing: the walls' solves.
        if self.body.as_ref().is_some_and(RigidModes::is_empty) {
            self.body = None;
        }
        self.kappa_sum.iter_mut().for_each(|k| *k = 0.0);
        // v* = XSPH(v) + Δt a_nonpressure: viscosity and gravity are the non-pressure accelerations.
        fluid.xsph_viscosity();
        fluid.non_pressure_accelerations();
        for i in 0..n {
            let a = fluid.scratch[i];
            fluid.v[i] += dt * a;
        }
        let density_iterations = if self.conjugate_gradients || self.body.is_some() {
            self.solve_bounded(fluid, dt, Solve::Density)
        } else {
            self.solve(fluid, dt, Solve::Density)
        };
        fluid.drift(dt)?;
        self.compute_alpha(fluid);
        let divergence_iterations = if self.body.is_some() {
            self.solve_bounded(fluid, dt, Solve::Divergence)
        } else {
            self.solve(fluid, dt, Solve::Divergence)
        };
        for i in 0..n {
            fluid.pressure[i] = fluid.density[i] * self.kappa_sum[i];
        }
        self.last_iterations = (density_iterations, divergence_iterations);
        self.warm_dt = dt;
        Ok(StepReport {
            dt,
            iterations: density_iterations + divergence_iterations,
            density_error: fluid.density_error(),
        })
    }

    /// α_i (Bender & Koschier 2015, the DFSPH factor) at the current positions, and the pairs' kernel
    /// gradients the iterations use (from the fluid's, kept by its last density pass at these positions).
    fn compute_alpha(&mut self, fluid: &Fluid) {
        let rho0 = fluid.rest_density();
        let mut grad_fluid = std::mem::take(&mut self.grad_fluid);
        let mut grad_boundary = std::mem::take(&mut self.grad_boundary);
        grad_fluid.resize(fluid.fluid_neighbours.pairs(), Vector::ZERO);
        grad_boundary.resize(fluid.boundary_neighbours.pairs(), Vector::ZERO);
        let pieces: Vec<_> = self
            .alpha
            .chunks_mut(PIECE)
            .zip(fluid.fluid_neighbours.split_pairs(&mut grad_fluid))
            .zip(fluid.boundary_neighbours.split_pairs(&mut grad_boundary))
            .enumerate()
            .collect();
        crate::parallel::for_each_piece(pieces, |(p, ((alpha, grad_fluid), grad_boundary))| {
            let first = p * PIECE;
            let fluid_at = fluid.fluid_neighbours.range(first).start;
            let boundary_at = fluid.boundary_neighbours.range(first).start;
            for (k, alpha) in alpha.iter_mut().enumerate() {
                let i = first + k;
                let mut sum_grad = Vector::ZERO;
                let mut sum_square = 0.0;
                let range = fluid.fluid_neighbours.range(i);
                for (pair, out) in fluid.fluid_kernels[range.clone()]
                    .iter()
                    .zip(&mut grad_fluid[range.start - fluid_at..range.end - fluid_at])
                {
                    let g = fluid.mass * pair.grad();
                    *out = g;
                    sum_grad += g;
                    sum_square += g.length_squared();
                }
                let range = fluid.boundary_neighbours.range(i);
                for ((&b, pair), out) in fluid
                    .boundary_neighbours
                    .of(i)
                    .iter()
                    .zip(&fluid.boundary_kernels[range.clone()])
                    .zip(&mut grad_boundary[range.start - boundary_at..range.end - boundary_at])
                {
                    let g = rho0 * fluid.boundary.volume[b as usize] * pair.grad();
                    *out = g;
                    sum_grad += g;
                }
                let denominator = sum_grad.length_squared() + sum_square;
                *alpha = if denominator > 1e-12 * fluid.mass * fluid.mass / fluid.kernel.h.powi(6) {
                    fluid.density[i] / denominator
                } else {
                    0.0
                };
            }
        });
        self.grad_fluid = grad_fluid;
        self.grad_boundary = grad_boundary;
        self.ready = true;
    }

    /// Dρ_i/Dt = Σ_j m (v_i − v_j)·∇W_ij + Σ_b ρ₀ V_b (v_i − v_b)·∇W_ib (v_b = 0 for the walls).
    #[inline(always)]
    fn density_rate(&self, fluid: &Fluid, i: usize) -> f64 {
        let vi = fluid.v[i];
        let mut rate = self.fluid_divergence(fluid, &fluid.v, i);
        let range = fluid.boundary_neighbours.range(i);
        for (&b, g) in fluid
            .boundary_neighbours
            .of(i)
            .iter()
            .zip(&self.grad_boundary[range])
        {
            // v_b: a moving body's particle's (Akinci et al. 2012 §3.4), zero for the walls.
            let vb = fluid.boundary_velocity.get(b as usize).copied();
            rate += (vi - vb.unwrap_or(Vector::ZERO)).dot(*g);
        }
        rate
    }

    /// The constant-density solve as the bounded quadratic program of the module notes, by
    /// [`crate::bounded_cg::minimize`]: y = κ/ρ ≥ 0 minimizing ½ yᵀA y − c⁰ᵀy with A = Δt² D G, so that the
    /// compression c(y) = c⁰ − A y is ≤ 0 everywhere and 0 wherever y_i > 0. Started from the warm
    /// guess; the velocities are changed once, by the final κ (which books the walls' reactions on a
    /// moving body from it alone). Returns the products with A taken (each one pass of G and one of
    /// D, the work of one Jacobi iteration).
    ///
    /// With a body inside the solve ([`Dfsph::body`]) the system is A + B ([`RigidModes`]), and the
    /// divergence-free solve is taken the same way: c⁰_i = Δt Dρ_i/Dt (0 for a particle with fewer
    /// than [`MIN_DIVERGENCE_NEIGHBOURS`]), started from zero, to the divergence tolerance. The body's
    /// response to the final κ is added to its particles' boundary velocities.
    fn solve_bounded(&mut self, fluid: &mut Fluid, dt: f64, which: Solve) -> u32 {
        let n = fluid.len();
        let rho0 = fluid.rest_density();
        let dt2 = dt * dt;
        let mut compression = std::mem::take(&mut self.compression);
        let mut diagonal = std::mem::take(&mut self.diagonal);
        let mut y = std::mem::take(&mut self.y);
        let mut w = std::mem::take(&mut self.direction_velocity);
        compression.resize(n, 0.0);
        diagonal.resize(n, 0.0);
        y.resize(n, 0.0);
        w.resize(n, Vector::ZERO);
        {
            let this = &*self;
            let shared = &*fluid;
            // c⁰_i = ρ_i + Δt Dρ_i/Dt(v*) − ρ₀ (divergence: Δt Dρ_i/Dt(v)) and A_ii = Δt² ρ_i/α_i (0
            // for a particle without α).
            fill(&mut compression, |i| match which {
                Solve::Density => shared.density[i] + dt * this.density_rate(shared, i) - rho0,
                Solve::Divergence => {
                    let enough = shared.fluid_neighbours.of(i).len()
                        + shared.boundary_neighbours.of(i).len()
                        >= MIN_DIVERGENCE_NEIGHBOURS;
                    if enough {
                        dt * this.density_rate(shared, i)
                    } else {
                        0.0
                    }
                }
            });
            fill(&mut diagonal, |i| {
                let alpha = this.alpha[i];
                if alpha > 0.0 {
                    dt2 * shared.density[i] / alpha
                } else {
                    0.0
                }
            });
        }
        self.modal_coupling(fluid);
        let coupling = dt2 * fluid.mass;
        if let Some(body) = &self.body {
            // B's diagonal: Δt² m Σ_m c_im² / M_m.
            let modes = body.len();
            for (d, c) in diagonal.iter_mut().zip(self.modal.chunks_exact(modes)) {
                *d += coupling
                    * c.iter()
                        .zip(&body.mass)
                        .map(|(c, m)| c * c / m)
                        .sum::<f64>();
            }
        }
        // The warm guess: the last step's Σκ, rescaled to this Δt (κ ∝ 1/Δt²), as y = κ/ρ.
        let guess = which == Solve::Density && self.warm_start && self.warm_dt > 0.0;
        let scale = (self.warm_dt / dt).powi(2);
        for ((y, &warm), &rho) in y.iter_mut().zip(&self.warm_density).zip(&fluid.density) {
            *y = if guess { scale * warm / rho } else { 0.0 };
        }
        let tolerance = match which {
            Solve::Density => self.density_tolerance,
            Solve::Divergence => self.divergence_tolerance,
        };
        let settings = crate::bounded_cg::Settings {
            tolerance: tolerance * rho0 * n as f64,
            min_iterations: self.min_iterations,
            max_iterations: self.max_iterations,
            largest: self.largest_density_error * rho0,
            inner_iterations: INNER_ITERATIONS,
        };
        let mut bounded = std::mem::take(&mut self.bounded);
        let outcome = {
            let this = &*self;
            let shared = &*fluid;
            // A p = −Δt² D w with w = −G p, the velocity change per Δt a stiffness p would give,
            // and with a body B p = Δt² m Σ_m c_m (c_m·p) / M_m.
            let mut modal_p = Vec::new();
            let apply = |p: &[f64], out: &mut [f64]| {
                fill(&mut w, |i| this.gradient_of(shared, p, i));
                let w = &w[..];
                fill(out, |i| -dt2 * this.divergence_of(shared, w, i));
                if let Some(body) = &this.body {
                    this.modal_sums(body, p, &mut modal_p);
                    for (m, mass) in modal_p.iter_mut().zip(&body.mass) {
                        *m *= coupling / mass;
                    }
                    for (out, c) in out.iter_mut().zip(this.modal.chunks_exact(body.len())) {
                        *out += c.iter().zip(&modal_p).map(|(c, q)| c * q).sum::<f64>();
                    }
                }
            };
            crate::bounded_cg::minimize(
                apply,
                &compression,
                &diagonal,
                &mut y,
                settings,
                &mut bounded,
            )
        };
        for ((kappa, &y), &rho) in self.kappa.iter_mut().zip(&y).zip(&fluid.density) {
            *kappa = y * rho;
        }
        self.apply_kappa(fluid, dt);
        if which == Solve::Density {
            self.warm_density.copy_from_slice(&self.kappa);
        }
        if let Some(body) = &self.body {
            // The body's answer to the final κ: Δq_m = Δt m Σ_i y_i c_im / M_m.
            let mut dq = Vec::new();
            self.modal_sums(body, &y, &mut dq);
            for (q, mass) in dq.iter_mut().zip(&body.mass) {
                *q *= dt * fluid.mass / mass;
            }
            let count = body.particle_count();
            for k in 0..count {
                fluid.boundary_velocity[body.first + k] += body.velocity_change(k, &dq);
            }
        }
        self.bounded = bounded;
        self.compression = compression;
        self.diagonal = diagonal;
        self.y = y;
        self.direction_velocity = w;
        outcome.iterations
    }

    /// c_im = Σ_k ρ₀ V_k ∇W_ik·u_m(x_k) over the body's particles k near fluid particle i, for every
    /// fluid particle and mode ([`RigidModes`]), from the pairs' gradients of the last α; nothing
    /// without a body.
    fn modal_coupling(&mut self, fluid: &Fluid) {
        let Some(body) = &self.body else {
            self.modal.clear();
            return;
        };
        let modes = body.len();
        let mut modal = std::mem::take(&mut self.modal);
        modal.clear();
        modal.resize(fluid.len() * modes, 0.0);
        for (i, row) in modal.chunks_exact_mut(modes).enumerate() {
            let range = fluid.boundary_neighbours.range(i);
            for (&b, g) in fluid
                .boundary_neighbours
                .of(i)
                .iter()
                .zip(&self.grad_boundary[range])
            {
                if let Some(k) = body.particle(b as usize) {
                    for (c, u) in row.iter_mut().zip(&body.velocity) {
                        *c += g.dot(u[k]);
                    }
                }
            }
        }
        self.modal = modal;
    }

    /// Σ_i p_i c_im for every mode m, summed in the particles' order, into `sums`.
    fn modal_sums(&self, body: &RigidModes, p: &[f64], sums: &mut Vec<f64>) {
        sums.clear();
        sums.resize(body.len(), 0.0);
        for (p, c) in p.iter().zip(self.modal.chunks_exact(body.len())) {
            if *p != 0.0 {
                for (s, c) in sums.iter_mut().zip(c) {
                    *s += p * c;
                }
            }
        }
    }

    /// Σ_j m (v_i − v_j)·∇W_ij over particle i's fluid neighbours for the velocity field v: the fluid's
    /// part of [`Dfsph::density_rate`] and [`Dfsph::divergence_of`].
    #[inline(always)]
    fn fluid_divergence(&self, fluid: &Fluid, v: &[Vector], i: usize) -> f64 {
        let vi = v[i];
        let mut rate = 0.0;
        let range = fluid.fluid_neighbours.range(i);
        for (&j, g) in fluid
            .fluid_neighbours
            .of(i)
            .iter()
            .zip(&self.grad_fluid[range])
        {
            rate += (vi - v[j as usize]).dot(*g);
        }
        rate
    }

    /// (−G p)_i = −Σ_j m (p_i + p_j) ∇W_ij − Σ_b ρ₀ V_b p_i ∇W_ib: the velocity change per Δt that the
    /// stiffnesses p (as κ/ρ) give particle i.
    #[inline(always)]
    fn gradient_of(&self, fluid: &Fluid, p: &[f64], i: usize) -> Vector {
        let pi = p[i];
        let mut w = Vector::ZERO;
        let range = fluid.fluid_neighbours.range(i);
        for (&j, g) in fluid
            .fluid_neighbours
            .of(i)
            .iter()
            .zip(&self.grad_fluid[range])
        {
            w -= (pi + p[j as usize]) * *g;
        }
        if pi != 0.0 {
            let range = fluid.boundary_neighbours.range(i);
            for g in &self.grad_boundary[range] {
                w -= pi * *g;
            }
        }
        w
    }

    /// (D w)_i = Σ_j m (w_i − w_j)·∇W_ij + Σ_b ρ₀ V_b w_i·∇W_ib: [`Dfsph::density_rate`] of a velocity
    /// field w with the walls at rest (D = Gᵀ, module notes).
    #[inline(always)]
    fn divergence_of(&self, fluid: &Fluid, w: &[Vector], i: usize) -> f64 {
        let rate = self.fluid_divergence(fluid, w, i);
        let range = fluid.boundary_neighbours.range(i);
        let mut wall = Vector::ZERO;
        for g in &self.grad_boundary[range] {
            wall += *g;
        }
        rate + w[i].dot(wall)
    }

    /// Iterate one of the two solves; returns its iterations.
    fn solve(&mut self, fluid: &mut Fluid, dt: f64, which: Solve) -> u32 {
        let n = fluid.len();
        let rho0 = fluid.rest_density();
        let tolerance = match which {
            Solve::Density => self.density_tolerance,
            Solve::Divergence => self.divergence_tolerance,
        };
        // Warm start (the density solve only): half of the last step's Σκ (as SPlisHSPlasH does),
        // rescaled to this Δt (κ ∝ 1/Δt²), applied once before iterating. `total` is the solve's Σκ_i:
        // the guess and every iteration's increment.
        let guess = which == Solve::Density && self.warm_start && self.warm_dt > 0.0;
        let scale = 0.5 * (self.warm_dt / dt).powi(2);
        let mut total = std::mem::take(&mut self.kappa_total);
        total.resize(n, 0.0);
        for ((kappa, total), &warm) in self
            .kappa
            .iter_mut()
            .zip(total.iter_mut())
            .zip(&self.warm_density)
        {
            *kappa = if guess { scale * warm } else { 0.0 };
            *total = *kappa;
        }
        if guess {
            self.apply_kappa(fluid, dt);
        }
        let mut iterations = 0;
        while iterations < self.max_iterations {
            // Particle i's increment κ_i and its error. The increment may be negative (an over-push
            // undone, at the rate `RELEASE`) down to this solve's total Σκ_i = 0: the solve's pressure
            // stays a push, never a pull. A particle still pushing while expanded counts its
            // expansion in the error, so a solve does not stop on an over-push it has not undone.
            let kappa_and_error = |this: &Self, shared: &Fluid, total: &[f64], i: usize| {
                let rate = this.density_rate(shared, i);
                let (kappa, error) = match which {
                    Solve::Density => {
                        let compression = shared.density[i] + dt * rate - rho0;
                        (compression / (dt * dt) * this.alpha[i], compression)
                    }
                    Solve::Divergence => {
                        let enough = shared.fluid_neighbours.of(i).len()
                            + shared.boundary_neighbours.of(i).len()
                            >= MIN_DIVERGENCE_NEIGHBOURS;
                        let rate = if enough { rate } else { 0.0 };
                        (rate / dt * this.alpha[i], rate * dt)
                    }
                };
                let error = if total[i] > 0.0 {
                    error.abs()
                } else {
                    error.max(0.0)
                };
                let kappa = if kappa < 0.0 { RELEASE * kappa } else { kappa };
                (kappa.max(-total[i]), error)
            };
            // The errors are summed in the particles' order, whatever the thread count.
            let mut error_sum = 0.0;
            if crate::parallel::thread_count() > 1 {
                let mut kappa = std::mem::take(&mut self.kappa);
                let mut error = std::mem::take(&mut self.error);
                let pieces: Vec<_> = kappa
                    .chunks_mut(PIECE)
                    .zip(error.chunks_mut(PIECE))
                    .enumerate()
                    .collect();
                let (this, shared, total) = (&*self, &*fluid, &total[..]);
                crate::parallel::for_each_piece(pieces, |(p, (kappa, error))| {
                    for (k, (kappa, error)) in kappa.iter_mut().zip(error.iter_mut()).enumerate() {
                        (*kappa, *error) = kappa_and_error(this, shared, total, p * PIECE + k);
                    }
                });
                for &e in &error {
                    error_sum += e;
                }
                self.kappa = kappa;
                self.error = error;
            } else {
                for i in 0..n {
                    let (kappa, error) = kappa_and_error(self, fluid, &total, i);
                    self.kappa[i] = kappa;
                    error_sum += error;
                }
            }
            let mean_error = error_sum / (n as f64 * rho0);
            if iterations >= self.min_iterations && mean_error <= tolerance {
                break;
            }
            iterations += 1;
            self.apply_kappa(fluid, dt);
            for (total, kappa) in total.iter_mut().zip(&self.kappa) {
                *total += kappa;
            }
        }
        if which == Solve::Density {
            self.warm_density.copy_from_slice(&total);
        }
        self.kappa_total = total;
        iterations
    }

    /// v_i −= Δt Σ_j m (κ_i/ρ_i + κ_j/ρ_j) ∇W_ij + Δt Σ_b ρ₀ V_b (κ_i/ρ_i) ∇W_ib.
    /// κ_j/ρ_j is formed once per particle, not once per pair.
    fn apply_kappa(&mut self, fluid: &mut Fluid, dt: f64) {
        self.kappa_over_rho.clear();
        self.kappa_over_rho.extend(
            self.kappa
                .iter()
                .zip(&fluid.density)
                .map(|(&k, &rho)| k / rho),
        );
        let this = &*self;
        fluid.update_scratch(|fluid, i, impulse, dv| {
            *dv = this.velocity_change(fluid, i, dt, impulse)
        });
        for i in 0..fluid.len() {
            let dv = fluid.scratch[i];
            fluid.v[i] += dt * dv;
            self.kappa_sum[i] += self.kappa[i];
        }
    }

    /// −Σ_j m (κ_i/ρ_i + κ_j/ρ_j) ∇W_ij − Σ_b ρ₀ V_b (κ_i/ρ_i) ∇W_ib of particle i
    /// ([`Dfsph::gradient_of`] the stiffnesses κ/ρ); each wall particle b takes its reaction (Akinci et
    /// al. 2012 eq. 10) in `impulse[b]` where that is kept.
    #[inline(always)]
    fn velocity_change(&self, fluid: &Fluid, i: usize, dt: f64, impulse: &mut [Vector]) -> Vector {
        let ki = self.kappa_over_rho[i];
        if ki != 0.0 && !impulse.is_empty() {
            let range = fluid.boundary_neighbours.range(i);
            for (&b, g) in fluid
                .boundary_neighbours
                .of(i)
                .iter()
                .zip(&self.grad_boundary[range])
            {
                if let Some(impulse) = impulse.get_mut(b as usize) {
                    *impulse += (dt * fluid.mass * ki) * *g;
                }
            }
        }
        self.gradient_of(fluid, &self.kappa_over_rho, i)
    }
}

/// out_i = f(i) for every particle, in pieces of [`PIECE`] ([`crate::parallel::for_each_piece`]
/// runs them in a plain loop on one thread), each value computed alone, so the result is the same
/// on any thread count.
fn fill<T: Send>(out: &mut [T], f: impl Fn(usize) -> T + Sync + Send) {
    let pieces: Vec<_> = out.chunks_mut(PIECE).enumerate().collect();
    crate::parallel::for_each_piece(pieces, |(p, piece)| {
        for (k, slot) in piece.iter_mut().enumerate() {
            *slot = f(p * PIECE + k);
        }
    });
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Solve {
    Density,
    Divergence,
}
