//! The time-integration lesson: every method of [`crate::integrators`] side by side on two systems
//! with analytic solutions (examples site, `time_integration.html` and `spring_plot.html`).
//!
//! * **Projectile**: a particle thrown with velocity v₀ under constant gravity g,
//!   x(t) = x₀ + v₀t + ½gt², v(t) = v₀ + gt.
//! * **Spring**: a mass m on a spring of stiffness k and rest length 0, f(x) = −kx,
//!   x(t) = x₀ cos(ωt) with ω = √(k/m) (released at rest).

use crate::integrators::{Dynamics, Integrator, LinearizedDynamics, Method, State, VectorSpace};
use glam::DVec2;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A 1D mass on a spring with rest length 0: f(x) = −k x.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spring {
    /// Stiffness k (N/m).
    pub stiffness: f64,
    /// Mass m (kg).
    pub mass: f64,
}

impl Spring {
    /// Angular frequency ω = √(k/m).
    pub fn omega(&self) -> f64 {
        (self.stiffness / self.mass).sqrt()
    }

    /// Analytic solution for a release from x₀ with velocity v₀: x(t) = x₀ cos ωt + (v₀/ω) sin ωt.
    pub fn exact(&self, x0: f64, v0: f64, t: f64) -> (f64, f64) {
        let w = self.omega();
        let (s, c) = (w * t).sin_cos();
        (x0 * c + v0 / w * s, -x0 * w * s + v0 * c)
    }

    /// Total energy E = ½mv² + ½kx².
    pub fn energy(&self, x: f64, v: f64) -> f64 {
        0.5 * self.mass * v * v + 0.5 * self.stiffness * x * x
    }
}

impl Dynamics for Spring {
    type Vector = f64;
    /// a = f(x)/m = −(k/m)·x.
    fn acceleration(&self, _t: f64, x: &f64, _v: &f64) -> f64 {
        -self.stiffness * x / self.mass
    }
}

impl LinearizedDynamics for Spring {
    /// (1 + Δt²k/m) Δv = Δt/m·(f(x) − Δt·k·v)   (`spring_plot.html`, implicit Euler).
    fn implicit_velocity_change(&self, _t: f64, x: &f64, v: &f64, dt: f64) -> f64 {
        let (k, m) = (self.stiffness, self.mass);
        let force = -k * x;
        (dt / m * (force - dt * k * v)) / (1.0 + dt * dt * k / m)
    }
}

/// A particle under constant gravity: a = g.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Projectile {
    /// Gravitational acceleration g (m/s²), pointing down: (0, −g).
    pub gravity: f64,
    /// Mass m (kg); only the energy depends on it.
    pub mass: f64,
}

impl Projectile {
    fn g(&self) -> DVec2 {
        DVec2::new(0.0, -self.gravity)
    }

    /// x(t) = x₀ + v₀t + ½gt²,  v(t) = v₀ + gt.
    pub fn exact(&self, x0: DVec2, v0: DVec2, t: f64) -> (DVec2, DVec2) {
        (x0 + v0 * t + 0.5 * self.g() * t * t, v0 + self.g() * t)
    }

    /// Total energy E = ½m|v|² + m·g·y.
    pub fn energy(&self, x: DVec2, v: DVec2) -> f64 {
        0.5 * self.mass * v.length_squared() + self.mass * self.gravity * x.y
    }
}

impl Dynamics for Projectile {
    type Vector = DVec2;
    fn acceleration(&self, _t: f64, _x: &DVec2, _v: &DVec2) -> DVec2 {
        self.g()
    }
}

impl LinearizedDynamics for Projectile {
    /// Gravity does not depend on x or v (K = D = 0), so M Δv = Δt·f exactly.
    fn implicit_velocity_change(&self, _t: f64, _x: &DVec2, _v: &DVec2, dt: f64) -> DVec2 {
        self.g() * dt
    }
}

/// Which system the lesson shows, with its parameters and initial state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "scene", rename_all = "kebab-case")]
pub enum Scene {
    /// Spring released at rest from x₀.
    Spring { spring: Spring, x0: f64 },
    /// Projectile thrown from the origin with speed v₀ at an angle (degrees) above the horizontal.
    Projectile {
        projectile: Projectile,
        speed: f64,
        angle_deg: f64,
    },
}

pub use crate::params::{check_range, Param, ParamError};

/// The lesson's parameters: the solver checks them here and the page's controls take their ranges and
/// defaults from the same table (`TimeIntegrationLesson.parameters()`).
pub mod param {
    use crate::params::Param;
    pub const DT: Param = Param::real("dt", 1e-4, 0.5, 0.02);
    pub const STIFFNESS: Param = Param::real("k", 0.01, 1e4, 40.0);
    pub const MASS: Param = Param::real("m", 0.01, 100.0, 1.0);
    pub const X0: Param = Param::real("x0", -5.0, 5.0, 1.0);
    pub const GRAVITY: Param = Param::real("g", 0.0, 100.0, 9.81);
    pub const SPEED: Param = Param::real("v0", 0.0, 50.0, 10.0);
    pub const ANGLE_DEG: Param = Param::real("angle", -90.0, 90.0, 60.0);
}

/// Every parameter of the lesson, by its public name.
pub const PARAMETERS: &[Param] = &[
    param::DT,
    param::STIFFNESS,
    param::MASS,
    param::X0,
    param::GRAVITY,
    param::SPEED,
    param::ANGLE_DEG,
];

impl Scene {
    /// Validate every parameter; the simulation is only ever built from a valid scene.
    pub fn validate(&self) -> Result<(), ParamError> {
        use param::*;
        match *self {
            Scene::Spring { spring, x0 } => {
                STIFFNESS.check(spring.stiffness)?;
                MASS.check(spring.mass)?;
                X0.check(x0)?;
            }
            Scene::Projectile {
                projectile,
                speed,
                angle_deg,
            } => {
                GRAVITY.check(projectile.gravity)?;
                MASS.check(projectile.mass)?;
                SPEED.check(speed)?;
                ANGLE_DEG.check(angle_deg)?;
            }
        }
        Ok(())
    }
}

/// A lesson problem: a system, its initial state, its exact solution and its energy.
pub trait Problem {
    type System: LinearizedDynamics;
    fn system(&self) -> &Self::System;
    fn initial_state(&self) -> State<Vector<Self>>;
    /// The analytic solution at time t.
    fn exact(&self, t: f64) -> State<Vector<Self>>;
    /// Total energy of a state.
    fn energy(&self, state: &State<Vector<Self>>) -> f64;
    /// A scale of the energy that is never zero: blow-up is measured against it.
    fn energy_scale(&self) -> f64;
    /// The position as a point in the plane of the view (the spring moves along x).
    fn plane_position(x: &Vector<Self>) -> (f64, f64);
    /// Why `method` blows up on this problem at step `dt`.
    fn explain_blow_up(&self, method: Method, dt: f64) -> String;
}

/// The state vector type of a problem.
pub type Vector<P> = <<P as Problem>::System as Dynamics>::Vector;

/// The spring released at rest from x₀.
#[derive(Clone, Copy, Debug)]
pub struct SpringRelease {
    pub spring: Spring,
    pub x0: f64,
}

impl Problem for SpringRelease {
    type System = Spring;
    fn system(&self) -> &Spring {
        &self.spring
    }
    fn initial_state(&self) -> State<f64> {
        State::new(self.x0, 0.0)
    }
    fn exact(&self, t: f64) -> State<f64> {
        let (x, v) = self.spring.exact(self.x0, 0.0, t);
        State { t, x, v }
    }
    fn energy(&self, s: &State<f64>) -> f64 {
        self.spring.energy(s.x, s.v)
    }
    fn energy_scale(&self) -> f64 {
        self.spring.energy(self.x0, 0.0).max(f64::MIN_POSITIVE)
    }
    fn plane_position(x: &f64) -> (f64, f64) {
        (*x, 0.0)
    }
    fn explain_blow_up(&self, method: Method, dt: f64) -> String {
        spring_instability(method, self.spring.omega() * dt)
    }
}

/// The projectile thrown from the origin with velocity v₀.
#[derive(Clone, Copy, Debug)]
pub struct ProjectileThrow {
    pub projectile: Projectile,
    pub v0: DVec2,
}

impl Problem for ProjectileThrow {
    type System = Projectile;
    fn system(&self) -> &Projectile {
        &self.projectile
    }
    fn initial_state(&self) -> State<DVec2> {
        State::new(DVec2::ZERO, self.v0)
    }
    fn exact(&self, t: f64) -> State<DVec2> {
        let (x, v) = self.projectile.exact(DVec2::ZERO, self.v0, t);
        State { t, x, v }
    }
    fn energy(&self, s: &State<DVec2>) -> f64 {
        self.projectile.energy(s.x, s.v)
    }
    fn energy_scale(&self) -> f64 {
        // E₀ is 0 for a particle dropped from rest at y = 0: use a scale that cannot vanish.
        let m = self.projectile.mass;
        self.projectile
            .energy(DVec2::ZERO, self.v0)
            .abs()
            .max(m * (1.0 + self.v0.length_squared()))
    }
    fn plane_position(x: &DVec2) -> (f64, f64) {
        (x.x, x.y)
    }
    fn explain_blow_up(&self, _method: Method, _dt: f64) -> String {
        "its energy grew without bound".to_string()
    }
}

/// One method's run: its state and, once detected, why it blew up.
#[derive(Clone, Debug)]
pub struct Run<V> {
    pub integrator: Integrator<V>,
    pub state: State<V>,
    /// Set when the method's energy grew past [`BLOW_UP_ENERGY_RATIO`] times the initial energy; the
    /// state then stays frozen at the last bounded step.
    pub diverged: Option<String>,
}

/// A method is declared unstable when its energy exceeds this multiple of the initial energy
/// (for the spring: the amplitude grew 100-fold). Detected before any value overflows to ∞/NaN.
pub const BLOW_UP_ENERGY_RATIO: f64 = 1e4;

/// What the page shows of one method at the current time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MethodReadout {
    pub method: Method,
    /// Position in the plane of the view (the spring uses `x` only).
    pub x: f64,
    pub y: f64,
    pub energy: f64,
    /// |x − x_exact| at the method's own time.
    pub error: f64,
    pub diverged: bool,
}

/// Every method on one problem, advanced in lockstep.
struct Race<P: Problem> {
    problem: P,
    runs: Vec<Run<Vector<P>>>,
}

/// The operations of a [`Race`] that do not depend on the problem's types.
trait Lockstep {
    fn time(&self) -> f64;
    fn step(&mut self, dt: f64);
    fn readouts(&self) -> Vec<MethodReadout>;
    fn exact(&self, t: f64) -> (f64, f64, f64);
    fn divergence(&self, method: Method) -> Option<&str>;
}

impl<P: Problem> Race<P> {
    fn new(problem: P) -> Self {
        let runs = Method::ALL
            .iter()
            .map(|&m| Run {
                integrator: Integrator::new(m),
                state: problem.initial_state(),
                diverged: None,
            })
            .collect();
        Self { problem, runs }
    }
}

impl<P: Problem> Lockstep for Race<P> {
    fn time(&self) -> f64 {
        self.runs
            .iter()
            .filter(|r| r.diverged.is_none())
            .map(|r| r.state.t)
            .fold(self.runs[0].state.t, f64::max)
    }

    /// Step each bounded run on a copy; commit it only if the energy stays below the blow-up bound.
    fn step(&mut self, dt: f64) {
        let bound = BLOW_UP_ENERGY_RATIO * self.problem.energy_scale();
        for run in self.runs.iter_mut().filter(|r| r.diverged.is_none()) {
            let mut next = run.state.clone();
            let mut integrator = run.integrator.clone();
            integrator.step(self.problem.system(), &mut next, dt);
            let e = self.problem.energy(&next);
            if next.is_finite() && e.is_finite() && e.abs() <= bound {
                run.state = next;
                run.integrator = integrator;
            } else {
                let method = run.integrator.method();
                let why = self.problem.explain_blow_up(method, dt);
                run.diverged = Some(format!(
                    "{} stopped at t = {:.3} s: {why}.",
                    method.name(),
                    next.t
                ));
            }
        }
    }

    fn readouts(&self) -> Vec<MethodReadout> {
        self.runs
            .iter()
            .map(|r| {
                let exact = self.problem.exact(r.state.t);
                let error = r.state.x.plus_scaled(-1.0, &exact.x).norm_squared().sqrt();
                let (x, y) = P::plane_position(&r.state.x);
                MethodReadout {
                    method: r.integrator.method(),
                    x,
                    y,
                    energy: self.problem.energy(&r.state),
                    error,
                    diverged: r.diverged.is_some(),
                }
            })
            .collect()
    }

    fn exact(&self, t: f64) -> (f64, f64, f64) {
        let state = self.problem.exact(t);
        let (x, y) = P::plane_position(&state.x);
        (x, y, self.problem.energy(&state))
    }

    fn divergence(&self, method: Method) -> Option<&str> {
        self.runs
            .iter()
            .find(|r| r.integrator.method() == method)?
            .diverged
            .as_deref()
    }
}

/// Every method on the same scene, advanced in lockstep.
pub struct Comparison {
    race: Box<dyn Lockstep>,
}

impl fmt::Debug for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Comparison")
            .field("time", &self.time())
            .finish_non_exhaustive()
    }
}

impl Comparison {
    /// Build the comparison for a validated scene.
    pub fn new(scene: Scene) -> Result<Self, ParamError> {
        scene.validate()?;
        let race: Box<dyn Lockstep> = match scene {
            Scene::Spring { spring, x0 } => Box::new(Race::new(SpringRelease { spring, x0 })),
            Scene::Projectile {
                projectile,
                speed,
                angle_deg,
            } => {
                let v0 = speed * DVec2::from_angle(angle_deg.to_radians());
                Box::new(Race::new(ProjectileThrow { projectile, v0 }))
            }
        };
        Ok(Self { race })
    }

    /// Simulated time (the same for every method that has not diverged).
    pub fn time(&self) -> f64 {
        self.race.time()
    }

    /// Advance every method that is still bounded by one step of `dt`.
    pub fn step(&mut self, dt: f64) -> Result<(), ParamError> {
        param::DT.check(dt)?;
        self.race.step(dt);
        Ok(())
    }

    /// Position, energy, error and status of every method.
    pub fn readouts(&self) -> Vec<MethodReadout> {
        self.race.readouts()
    }

    /// The analytic position (x, y) and energy at time t.
    pub fn exact(&self, t: f64) -> (f64, f64, f64) {
        self.race.exact(t)
    }

    /// Why `method` stopped, if it did.
    pub fn divergence(&self, method: Method) -> Option<&str> {
        self.race.divergence(method)
    }
}

/// Why a method blows up on the undamped spring, with the numbers of the current Δt.
///
/// Each method multiplies the mode (x, v/ω) by an amplification factor per step; with z = ωΔt:
/// explicit Euler |1 + iz| = √(1 + z²) > 1 always; RK2 (midpoint) |1 + iz − z²/2| = √(1 + z⁴/4) > 1
/// always; the Verlet family and symplectic Euler are stable for z < 2; RK4 for z ≤ 2√2.
pub fn spring_instability(method: Method, omega_dt: f64) -> String {
    let z = omega_dt;
    match method {
        Method::ExplicitEuler => format!(
            "explicit Euler adds energy to an undamped oscillator at every Δt — the amplitude grows by \
             √(1 + (ωΔt)²) = {:.4} per step",
            (1.0 + z * z).sqrt()
        ),
        Method::Rk2 => format!(
            "RK2 (midpoint) slowly adds energy to an undamped oscillator — the amplitude grows by \
             √(1 + (ωΔt)⁴/4) = {:.6} per step",
            (1.0 + z.powi(4) / 4.0).sqrt()
        ),
        Method::SymplecticEuler | Method::LeapFrog | Method::PositionVerlet | Method::VelocityVerlet => {
            format!("ωΔt = {z:.3} exceeds the stability bound ωΔt < 2 of {}: use Δt < 2/ω", method.name())
        }
        Method::Rk4 => format!("ωΔt = {z:.3} exceeds RK4's stability bound ωΔt ≤ 2√2 ≈ 2.83"),
        Method::ImplicitEuler => "implicit Euler is unconditionally stable; this should not happen".to_string(),
    }
}

#[cfg(test)]
mod tests;
