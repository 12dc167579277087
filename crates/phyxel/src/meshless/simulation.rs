//! Time stepping of a phyxel body: elastic forces, gravity, damping, collisions with friction,
//! plastic flow, and blow-up detection against the explicit stability bound.

use super::body::Body;
use super::collision::{resolve_contact, Collider};
use super::melting::Melting;
use super::plasticity::{norm, Plasticity};
use super::surface::EmbeddedSurface;
use crate::integrators::{Dynamics, Integrator, Method, NeedsLinearization, State};
use glam::DVec3;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Everything around the body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    /// Gravitational acceleration (m/s²).
    pub gravity: DVec3,
    /// Static obstacles: ground, walls, spheres.
    pub colliders: Vec<Collider>,
    /// Coulomb friction coefficient at every collider.
    pub friction: f64,
    /// Mass-proportional damping c (1/s): a force −c·m·v on every phyxel. With position Verlet
    /// (velocity (u(t) − u(t − Δt))/Δt), c·Δt = 0.01 is the thesis' damped Verlet, eq. 3.45:
    /// u(t + Δt) = 1.99 u(t) − 0.99 u(t − Δt) + Δt² f/m.
    pub damping: f64,
}

impl Default for Environment {
    fn default() -> Self {
        Self {
            gravity: DVec3::new(0.0, -9.81, 0.0),
            colliders: vec![Collider::ground(0.0)],
            friction: 0.5,
            damping: 0.5,
        }
    }
}

/// A phyxel pulled towards a target point by a spring (the pointer drag).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drag {
    pub phyxel: usize,
    pub target: DVec3,
    /// Spring stiffness k (N/m): the pull is k·(target − x) ...
    pub stiffness: f64,
    /// ... with target − x shortened to at most this length (m), so that a far target pulls firmly
    /// but never hard enough to fling the phyxel across its neighbourhood in one step.
    pub max_stretch: f64,
}

/// The body's equations of motion: ü = (f_elastic(u) + f_drag)/m + g − c·u̇.
struct BodyDynamics<'a> {
    body: &'a Body,
    gravity: DVec3,
    damping: f64,
    drag: Option<Drag>,
}

impl Dynamics for BodyDynamics<'_> {
    type Vector = Vec<DVec3>;
    fn acceleration(&self, _t: f64, u: &Vec<DVec3>, v: &Vec<DVec3>) -> Vec<DVec3> {
        let stresses = self.body.phyxel_stresses_at(u);
        let mut forces = self.body.gather_forces(&stresses);
        if let Some(drag) = self.drag {
            let x = self.body.reference[drag.phyxel] + u[drag.phyxel];
            forces[drag.phyxel] +=
                drag.stiffness * (drag.target - x).clamp_length_max(drag.max_stretch.max(0.0));
        }
        forces
            .iter()
            .zip(&self.body.mass)
            .zip(v)
            .map(|((f, m), v)| *f / *m + self.gravity - self.damping * *v)
            .collect()
    }
}

/// The fraction of the bound h√(ρ/E) used as the default step. Measured on a jittered 4×4×4 jelly
/// cube (ν = 0.3, k_v = E/2, h = 2.2 × spacing, symplectic Euler): stable at 0.2, unstable at 0.25.
/// The bound is optimistic because pressure waves travel at √((λ + 2μ + k_v)/ρ) ≈ 1.4√(E/ρ) and the
/// discrete stiffness resolves the lattice spacing, not the support radius.
pub const RECOMMENDED_CFL_FRACTION: f64 = 0.1;

/// The most a phyxel may travel in one step, as a fraction of the smallest support radius: the
/// advective CFL condition Δt ≤ λ h / v_max with λ = 0.4 (Monaghan 1992; Koschier et al. 2019 §4).
/// A stable explicit step moves phyxels far less; an unstable one crosses it within a few steps of
/// exponential growth, long before anything overflows or visibly explodes.
pub const MAX_TRAVEL_PER_STEP: f64 = 0.4;

/// A step that would have moved phyxels farther than [`MAX_TRAVEL_PER_STEP`] support radii or produced
/// non-finite values; the simulation keeps its last state.
#[derive(Clone, Debug, PartialEq)]
pub struct BlowUp {
    pub time: f64,
    pub dt: f64,
    /// The explicit stability bound Δt ≤ h√(ρ/E) of the current material.
    pub cfl_time_step: f64,
}

impl fmt::Display for BlowUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the simulation became unstable at t = {:.3} s and was stopped before any value overflowed: \
             Δt = {:.2e} s exceeds what explicit integration can resolve (stability bound Δt ≤ h·√(ρ/E) = {:.2e} s); \
             lower Δt, use more substeps, or soften the material",
            self.time, self.dt, self.cfl_time_step
        )
    }
}

impl std::error::Error for BlowUp {}

/// A body in its environment, advanced in time.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub body: Body,
    pub environment: Environment,
    pub plasticity: Option<Plasticity>,
    /// The time integrator and its history (explicit methods only: see [`Simulation::set_integrator`]).
    integrator: Integrator<Vec<DVec3>>,
    pub time: f64,
    /// With plasticity: when some phyxel's total strain ‖ε‖ exceeds this, the rest shape is moved to
    /// the current shape ([`Simulation::update_reference`]).
    pub reference_update_strain: f64,
    /// How many reference-shape updates have happened.
    pub reference_updates: usize,
    /// The phyxel being dragged, if any.
    pub drag: Option<Drag>,
    /// Heating and softening, if the material melts.
    pub melting: Option<Melting>,
    /// Surface meshes carried along by the displacement field (rebound at each reference update).
    pub surfaces: Vec<EmbeddedSurface>,
    /// The body's size (bounding-box diagonal) at the start: a displacement 100 times larger is a blow-up.
    size: f64,
}

impl Simulation {
    pub fn new(body: Body, environment: Environment) -> Self {
        let (min, max) = body
            .reference
            .iter()
            .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(*p), hi.max(*p))
            });
        let size = if body.is_empty() {
            1.0
        } else {
            (max - min).length().max(1e-6)
        };
        Self {
            body,
            environment,
            plasticity: None,
            integrator: Integrator::new(Method::SymplecticEuler),
            time: 0.0,
            reference_update_strain: 0.2,
            reference_updates: 0,
            drag: None,
            melting: None,
            surfaces: Vec::new(),
            size,
        }
    }

    /// Δt ≤ h√(ρ/E) with the smallest support radius (thesis eq. 3.59).
    pub fn cfl_time_step(&self) -> f64 {
        self.body.material.cfl_time_step(self.min_support_radius())
    }

    fn min_support_radius(&self) -> f64 {
        self.body
            .support_radius
            .iter()
            .cloned()
            .fold(f64::INFINITY, f64::min)
    }

    /// The phyxel nearest to the ray origin + s·direction (s ≥ 0) among those within `radius` of it:
    /// what the pointer picks.
    pub fn pick(&self, origin: DVec3, direction: DVec3, radius: f64) -> Option<usize> {
        let direction = direction.try_normalize()?;
        self.body
            .positions()
            .iter()
            .enumerate()
            .filter_map(|(i, x)| {
                let along = (*x - origin).dot(direction);
                let off_ray = (*x - origin - along * direction).length();
                (along >= 0.0 && off_ray <= radius).then_some((i, along))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }

    /// The time-integration method in use.
    pub fn integrator(&self) -> Method {
        self.integrator.method()
    }

    /// Choose the time integrator: any explicit method of the lesson (symplectic Euler, leap-frog,
    /// position or velocity Verlet, RK2, RK4, explicit Euler). Implicit Euler needs the stiffness matrix
    /// of the corotated model and is refused until that exists.
    pub fn set_integrator(&mut self, method: Method) -> Result<(), NeedsLinearization> {
        if method == Method::ImplicitEuler {
            return Err(NeedsLinearization(method));
        }
        self.integrator = Integrator::new(method);
        Ok(())
    }

    /// A step that explicit integration keeps stable: [`RECOMMENDED_CFL_FRACTION`] × the bound.
    pub fn recommended_time_step(&self) -> f64 {
        RECOMMENDED_CFL_FRACTION * self.cfl_time_step()
    }

    /// Advance by `dt`. On a blow-up the state is left as it was before the step.
    pub fn step(&mut self, dt: f64) -> Result<(), BlowUp> {
        let max_speed = MAX_TRAVEL_PER_STEP * self.min_support_radius() / dt;
        let body = &mut self.body;
        let mut state = State {
            t: self.time,
            x: std::mem::take(&mut body.displacement),
            v: std::mem::take(&mut body.velocity),
        };
        let before = (state.clone(), self.integrator.clone());
        {
            let drag = self.drag.filter(|d| d.phyxel < body.len());
            let dynamics = BodyDynamics {
                body,
                gravity: self.environment.gravity,
                damping: self.environment.damping,
                drag,
            };
            self.integrator
                .step_explicit(&dynamics, &mut state, dt)
                .expect("set_integrator admits explicit methods only");
        }
        let runaway = 100.0 * self.size;
        if !state.is_finite()
            || state.x.iter().any(|u| u.length() > runaway)
            || state.v.iter().any(|v| v.length() > max_speed)
        {
            let (state, integrator) = before;
            body.displacement = state.x;
            body.velocity = state.v;
            self.integrator = integrator;
            return Err(BlowUp {
                time: self.time,
                dt,
                cfl_time_step: self.cfl_time_step(),
            });
        }
        body.displacement = state.x;
        body.velocity = state.v;
        let mut contact = false;
        for collider in &self.environment.colliders {
            for i in 0..body.len() {
                let x = body.reference[i] + body.displacement[i];
                let correction = resolve_contact(
                    collider,
                    x,
                    &mut body.velocity[i],
                    self.environment.friction,
                );
                body.displacement[i] += correction;
                contact |= correction != DVec3::ZERO;
            }
        }
        if contact {
            // A multistep method's remembered x(t − Δt) or v(t − Δt/2) predates the correction.
            self.integrator.reset();
        }
        if let Some(melting) = self.melting {
            melting.heat(body, dt);
        }
        if let Some(plasticity) = self.plasticity {
            let stresses = body.phyxel_stresses();
            let mut largest_total = 0.0f64;
            for ((plastic, s), scale) in body
                .plastic_strain
                .iter_mut()
                .zip(&stresses)
                .zip(&body.stiffness_scale)
            {
                // s.strain is the elastic part ε − ε_plastic; the total is their sum. A softened
                // (warm) phyxel also yields earlier: c_yield scales with its stiffness.
                let total = s.strain + *plastic;
                largest_total = largest_total.max(norm(total));
                let softened = Plasticity {
                    yield_strain: plasticity.yield_strain * scale,
                    ..plasticity
                };
                *plastic = softened.flow(total, *plastic, dt);
            }
            if largest_total > self.reference_update_strain {
                self.update_reference();
            }
        }
        self.time += dt;
        Ok(())
    }

    /// The reference-shape update for large plastic deformation (MKN04 §5.1; tutorial §7.3; the issue's
    /// "absorb the strain into the plastic state"): the rest shape moves to the current shape
    /// (x̄ ← x̄ + u, u ← 0), and the plastic strain becomes ε_plastic ← −ε_elastic so that every
    /// phyxel keeps its elastic strain (and stress) while its total strain, now measured from the new
    /// rest shape, restarts at zero. Neighbours, densities and moment matrices are rebuilt.
    pub fn update_reference(&mut self) {
        let deformed_surfaces = self.surface_vertices();
        let body = &mut self.body;
        let stresses = body.phyxel_stresses();
        for (plastic, s) in body.plastic_strain.iter_mut().zip(&stresses) {
            *plastic = -s.strain;
        }
        body.reference = body.positions();
        body.displacement.iter_mut().for_each(|u| *u = DVec3::ZERO);
        body.rebuild_reference();
        for (surface, rest) in self.surfaces.iter_mut().zip(deformed_surfaces) {
            surface.rebind(rest, body);
        }
        self.integrator.reset();
        self.reference_updates += 1;
    }

    /// The deformed vertices of each surface (tutorial eq. 68).
    pub fn surface_vertices(&self) -> Vec<Vec<DVec3>> {
        if self.surfaces.is_empty() {
            return Vec::new();
        }
        let gradients = self.body.displacement_gradients();
        self.surfaces
            .iter()
            .map(|s| s.deformed_vertices(&self.body, &gradients))
            .collect()
    }

    /// Kinetic energy Σ ½ m |v|².
    pub fn kinetic_energy(&self) -> f64 {
        self.body
            .velocity
            .iter()
            .zip(&self.body.mass)
            .map(|(v, m)| 0.5 * m * v.length_squared())
            .sum()
    }

    /// Kinetic + gravitational (height measured from y = 0) + elastic energy.
    pub fn energy(&self) -> f64 {
        let body = &self.body;
        let g = self.environment.gravity;
        let motion: f64 = body
            .positions()
            .iter()
            .zip(&body.velocity)
            .zip(&body.mass)
            .map(|((x, v), m)| 0.5 * m * v.length_squared() - m * g.dot(*x))
            .sum();
        motion + body.elastic_energy()
    }
}

#[cfg(test)]
mod tests;
