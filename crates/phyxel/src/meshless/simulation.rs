//! Time stepping of a phyxel body: elastic forces, gravity, damping, collisions with friction,
//! plastic flow, and blow-up detection against the explicit stability bound.

use super::body::Body;
use super::collision::{resolve_contact, Collider};
use super::contact::{self, ContactReport, SurfaceContact};
use super::corotated;
use super::elasticity::PhyxelStress;
use super::fracture::{Fracture, FractureError, FractureSettings};
use super::implicit::{self, CorotatedImplicit, Loads, SolveStats, StaticReport, StaticSolve};
use super::melting::Melting;
use super::plasticity::{norm, Plasticity};
use super::surface::EmbeddedSurface;
use crate::integrators::{Dynamics, Integrator, Method, NeedsLinearization, State};
use crate::parallel::{map_indices, update_pairs};
use glam::{DMat3, DVec3};
use serde::{Deserialize, Serialize};
use std::fmt;

/// |det F_e| below which [`Simulation::update_reference`] treats a phyxel's elastic part as degenerate
/// (its rest shape then restarts from the current one).
const DEGENERATE_DETERMINANT: f64 = 1e-9;

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

impl Drag {
    /// (ω·Δt)² of the drag spring made by [`Drag::stable`].
    pub const OMEGA_DT_SQUARED: f64 = 0.2;

    /// A drag of `phyxel` (of mass m) towards `target` with a spring as stiff as a step of `dt`
    /// integrates stably: k = 0.2·m/Δt², so that ω·Δt = √(k/m)·Δt = √0.2 ≈ 0.45 — well inside the
    /// bound ω·Δt < 2 of symplectic Euler and the Verlet family on an undamped spring (the
    /// time-integration lesson: [`crate::lessons::time_integration::spring_instability`]), and
    /// stiffer than any slower pull would be felt. The pull is stretched at most `max_stretch`.
    pub fn stable(phyxel: usize, target: DVec3, mass: f64, dt: f64, max_stretch: f64) -> Self {
        Self {
            phyxel,
            target,
            stiffness: Self::OMEGA_DT_SQUARED * mass / (dt * dt),
            max_stretch,
        }
    }

    /// The spring force k·(target − x), the stretch clamped to `max_stretch`, on the phyxel at `x`.
    fn force(&self, x: DVec3) -> DVec3 {
        self.stiffness * (self.target - x).clamp_length_max(self.max_stretch.max(0.0))
    }
}

/// The elastic model the forces come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Elasticity {
    /// MKN04: Green strain, Hooke stress and the volume-conservation term k_v
    /// ([`super::elasticity::phyxel_stress`]).
    #[default]
    Mkn04,
    /// Corotated linear elasticity ([`super::corotated`]): linear strain in each phyxel's rotated frame,
    /// no volume term. The model of the implicit integration.
    CorotatedLinear,
}

impl Elasticity {
    /// The elastic state of every phyxel of `body` at `displacement`.
    pub fn stresses(self, body: &Body, displacement: &[DVec3]) -> Vec<PhyxelStress> {
        match self {
            Elasticity::Mkn04 => body.phyxel_stresses_at(displacement),
            Elasticity::CorotatedLinear => {
                let rotations = corotated::rotations(body, displacement);
                corotated::stresses(body, displacement, &rotations)
            }
        }
    }
}

/// The body's equations of motion: ü = (f_elastic(u) + f_drag)/m + g − c·u̇.
struct BodyDynamics<'a> {
    body: &'a Body,
    elasticity: Elasticity,
    gravity: DVec3,
    damping: f64,
    drag: Option<Drag>,
    /// Leave out a held surface's penalty (the step takes it implicitly:
    /// [`super::quadrature::HeldSurface`]).
    hold_apart: bool,
}

impl<'a> BodyDynamics<'a> {
    /// The equations of motion of `body` in `environment`, with the drag spring if it names one of
    /// its phyxels.
    fn new(
        body: &'a Body,
        elasticity: Elasticity,
        environment: &Environment,
        drag: Option<Drag>,
        hold_apart: bool,
    ) -> Self {
        Self {
            body,
            elasticity,
            gravity: environment.gravity,
            damping: environment.damping,
            drag: drag.filter(|d| d.phyxel < body.len()),
            hold_apart,
        }
    }
}

impl Dynamics for BodyDynamics<'_> {
    type Vector = Vec<DVec3>;
    fn acceleration(&self, _t: f64, u: &Vec<DVec3>, v: &Vec<DVec3>) -> Vec<DVec3> {
        if let Some(q) = self.body.quadrature() {
            // Background quadrature: the corotated forces summed over the integration points.
            let f = if self.hold_apart {
                q.material_forces_at(u)
            } else {
                corotated::forces(self.body, u)
            };
            return map_indices(self.body.len(), |k| {
                let drag = self
                    .drag
                    .filter(|d| d.phyxel == k)
                    .map_or(DVec3::ZERO, |d| d.force(self.body.reference[k] + u[k]));
                (f[k] + drag) / self.body.mass[k] + self.gravity - self.damping * v[k]
            });
        }
        let stresses = self.elasticity.stresses(self.body, u);
        map_indices(self.body.len(), |k| {
            self.acceleration_of(k, &stresses, u[k], v[k])
        })
    }
}

impl BodyDynamics<'_> {
    /// Phyxel k's ü_k = (f_k + f_drag)/m_k + g − c·u̇_k, f_k gathered from the phyxel stresses.
    fn acceleration_of(&self, k: usize, stresses: &[PhyxelStress], u: DVec3, v: DVec3) -> DVec3 {
        let body = self.body;
        let mut f = body.gather_force(k, stresses);
        if let Some(drag) = self.drag.filter(|d| d.phyxel == k) {
            f += drag.force(body.reference[k] + u);
        }
        f / body.mass[k] + self.gravity - self.damping * v
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

/// The most an implicit step may turn any neighbourhood (rad): Δt·|ω_i| with ω_i the angular velocity
/// of the MLS velocity gradient's spin W_i = ½(∇v_i − ∇v_iᵀ), |ω| = ‖W‖/√2. Implicit Euler is stable at
/// any Δt, but its linearization about the rotations at the start of the step (Zhou et al. 2013 §4: "as
/// long as the rotation and plastic deformations do not significantly change within each time step")
/// fails when a neighbourhood turns by tens of degrees in one step. Translation, however fast, and
/// stretching (a stiff body pushing back after a deep contact, say) are handled exactly and allowed.
pub const MAX_ROTATION_PER_STEP: f64 = 0.4;

/// A phyxel predicted within this fraction of the smallest support radius of an obstacle's surface
/// (or inside it) at the end of an implicit step touches it: the solve holds its normal velocity
/// (`implicit`'s module docs, "Obstacles inside the solve").
pub const CONTACT_DISTANCE: f64 = 1e-6;

/// What happens to each phyxel after it is integrated: the blow-up test on the integrated state, then
/// the colliders in their order (as the GPU's `resolve_contacts`), then a fixed phyxel is held where it
/// was. After a blow-up these changes are discarded with the rest of the step.
struct Settle<'a> {
    colliders: &'a [Collider],
    friction: f64,
    fixed: &'a [bool],
    /// The displacements before the step.
    held: &'a [DVec3],
    /// |u| beyond this is a runaway.
    runaway: f64,
    /// The advective bound on the speed (explicit steps only).
    max_speed: Option<f64>,
}

impl Settle<'_> {
    /// Settle phyxel i (rest position `reference[i]`, state u, v); the flags it raises.
    fn phyxel(&self, i: usize, reference: &[DVec3], u: &mut DVec3, v: &mut DVec3) -> u8 {
        let mut flags = 0;
        if !u.is_finite()
            || !v.is_finite()
            || u.length() > self.runaway
            || self.max_speed.is_some_and(|bound| v.length() > bound)
        {
            flags |= BLOWN_UP;
        }
        for collider in self.colliders {
            let correction = resolve_contact(collider, reference[i] + *u, v, self.friction);
            *u += correction;
            if correction != DVec3::ZERO {
                flags |= TOUCHED;
            }
        }
        if self.fixed.get(i).copied().unwrap_or(false) {
            *u = self.held[i];
            *v = DVec3::ZERO;
        }
        flags
    }
}

/// Flags of the per-phyxel pass after a step: some phyxel's state blew up…
const BLOWN_UP: u8 = 1;
/// … or touched a collider.
const TOUCHED: u8 = 2;

/// A step that would have moved phyxels farther than [`MAX_TRAVEL_PER_STEP`] support radii or produced
/// non-finite values; the simulation keeps its last state.
#[derive(Clone, Debug, PartialEq)]
pub struct BlowUp {
    pub time: f64,
    pub dt: f64,
    /// The explicit stability bound Δt ≤ h√(ρ/E) of the current material.
    pub cfl_time_step: f64,
    /// Whether the step was the corotated implicit one (then the bound does not apply).
    pub implicit: bool,
}

impl fmt::Display for BlowUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.implicit {
            return write!(
                f,
                "the implicit simulation turned a neighbourhood by more than {:.0}° in one step at \
                 t = {:.3} s (Δt = {:.2e} s) and was stopped: the linearization about the rotations at \
                 the start of the step does not hold for such large steps; lower Δt or raise the CG \
                 iteration limit",
                MAX_ROTATION_PER_STEP.to_degrees(),
                self.time, self.dt
            );
        }
        write!(
            f,
            "the simulation became unstable at t = {:.3} s and was stopped before any value overflowed: \
             Δt = {:.2e} s exceeds what explicit integration can resolve (the stability bound's estimate h·√(ρ/E) = {:.2e} s; the discretization's own bound lies below it); \
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
    /// The elastic model of the explicit integrators (the implicit one always uses the corotated one).
    pub elasticity: Elasticity,
    /// Corotated implicit Euler instead of the explicit integrator, when set.
    implicit: Option<CorotatedImplicit>,
    /// The last implicit step's Δv (the next CG's initial guess) and its solve.
    last_velocity_change: Vec<DVec3>,
    last_solve: Option<SolveStats>,
    /// Each phyxel's normal impulse J_i from the obstacles in the last implicit step (N·s; empty:
    /// none), on which this step's friction is lagged (`implicit::Friction`).
    last_obstacle_impulse: Vec<f64>,
    /// Phyxels held in place (Dirichlet conditions, e.g. a clamped end): zero velocity, displacement
    /// unchanged, in every integrator and in [`Simulation::solve_static`]. Empty: none.
    pub fixed: Vec<bool>,
    pub time: f64,
    /// With MKN04 plasticity: when some phyxel's total strain ‖ε‖ exceeds this, the rest shape is
    /// moved to the current shape ([`Simulation::update_reference`]) — unless the body can crack: its
    /// cracks live in the rest shape, which then stays. The corotated model's
    /// multiplicative plasticity keeps its rest shape in [`Body::plastic_deformation`] instead.
    pub reference_update_strain: f64,
    /// How many reference-shape updates have happened.
    pub reference_updates: usize,
    /// The phyxel being dragged, if any.
    pub drag: Option<Drag>,
    /// Heating and softening, if the material melts.
    pub melting: Option<Melting>,
    /// Surface meshes carried along by the displacement field (rebound at each reference update).
    pub surfaces: Vec<EmbeddedSurface>,
    /// Contact between the objects through their surfaces ([`contact`]; seed 003 §3.7), after every
    /// step, when set: each surface is one object's, and none touches itself. None: objects pass
    /// through one another.
    pub surface_contact: Option<SurfaceContact>,
    /// What the last step's surface contact did.
    last_contact: Option<ContactReport>,
    /// The implicit step's surface-contact candidates and those that pressed, as (surface, vertex),
    /// sorted: the next step's first guess of the pressing set.
    candidate_vertices: Vec<(usize, usize)>,
    pressing_vertices: Vec<(usize, usize)>,
    /// Brittle fracture of the nodal model ([`super::fracture`]), after every step when set (off by
    /// default: [`Simulation::enable_fracture`]); paused while another model is in use. Snapshots do
    /// not carry it.
    pub fracture: Option<Fracture>,
    /// The body's size (bounding-box diagonal) at the start: a displacement 100 times larger is a blow-up.
    size: f64,
    /// Where the fused symplectic Euler step writes the next displacements and velocities (kept between
    /// steps: the state before the step stays intact for a roll-back, and nothing is allocated).
    next_state: (Vec<DVec3>, Vec<DVec3>),
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
            elasticity: Elasticity::Mkn04,
            implicit: None,
            last_velocity_change: Vec::new(),
            last_obstacle_impulse: Vec::new(),
            last_solve: None,
            fixed: Vec::new(),
            time: 0.0,
            reference_update_strain: 0.2,
            reference_updates: 0,
            drag: None,
            melting: None,
            surfaces: Vec::new(),
            surface_contact: None,
            last_contact: None,
            candidate_vertices: Vec::new(),
            pressing_vertices: Vec::new(),
            fracture: None,
            size,
            next_state: (Vec::new(), Vec::new()),
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
    /// what the pointer picks ([`crate::picking::nearest_along_ray`]).
    pub fn pick(&self, origin: DVec3, direction: DVec3, radius: f64) -> Option<usize> {
        crate::picking::nearest_along_ray(self.body.positions(), origin, direction, radius)
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

    /// Integrate with corotated implicit Euler ([`implicit`]; Brunet et al. 2019 §3.6), stable for
    /// stiff materials at real-time steps, or (`None`) go back to the explicit integrator. Choosing it
    /// also switches [`Simulation::elasticity`] to [`Elasticity::CorotatedLinear`].
    pub fn set_corotated_implicit(&mut self, settings: Option<CorotatedImplicit>) {
        if settings.is_some() {
            self.elasticity = Elasticity::CorotatedLinear;
        }
        self.implicit = settings;
        self.last_velocity_change.clear();
        self.last_obstacle_impulse.clear();
        self.last_solve = None;
        self.integrator.reset();
    }

    /// The implicit integration's settings, if it is in use.
    pub fn corotated_implicit(&self) -> Option<CorotatedImplicit> {
        self.implicit
    }

    /// CG iterations and final relative residual of the last implicit step.
    pub fn last_solve(&self) -> Option<SolveStats> {
        self.last_solve
    }

    /// Static equilibrium under gravity with the fixed phyxels held ([`implicit::solve_static`]: Newton
    /// with the corotated tangent and CG). Sets the displacements, zeroes the velocities and switches
    /// to the corotated model; colliders and the drag are not part of it.
    pub fn solve_static(&mut self, settings: StaticSolve) -> StaticReport {
        self.elasticity = Elasticity::CorotatedLinear;
        let loads = Loads {
            gravity: self.environment.gravity,
            extra: &[],
            fixed: &self.fixed,
            contacts: &[],
        };
        let report = implicit::solve_static(&mut self.body, loads, settings);
        self.integrator.reset();
        report
    }

    /// Let the body crack with `settings` ([`super::fracture`]): only the nodal MKN04 model with an
    /// explicit integrator is cut; a body with background quadrature, the corotated model and the
    /// implicit integration are refused, with the reason.
    pub fn enable_fracture(&mut self, settings: FractureSettings) -> Result<(), FractureError> {
        if self.body.quadrature().is_some() {
            return Err(FractureError(
                "fracture cuts the nodal model's MLS weights; a body integrated by background \
                 quadrature is not cut yet"
                    .into(),
            ));
        }
        if self.implicit.is_some() || self.elasticity != Elasticity::Mkn04 {
            return Err(FractureError(
                "fracture runs with MKN04's elasticity and an explicit integrator; the corotated \
                 and implicit models are not cut yet"
                    .into(),
            ));
        }
        self.fracture = Some(Fracture::new(settings, &self.body));
        Ok(())
    }

    /// A step that explicit integration keeps stable: [`RECOMMENDED_CFL_FRACTION`] × the bound.
    pub fn recommended_time_step(&self) -> f64 {
        RECOMMENDED_CFL_FRACTION * self.cfl_time_step()
    }

    /// Advance by `dt`. On a blow-up the state is left as it was before the step.
    pub fn step(&mut self, dt: f64) -> Result<(), BlowUp> {
        self.step_with_contacts(dt, &mut |_| {})
    }

    /// [`Simulation::step`] with `contacts` — a driver's moving obstacle, such as the struck slab's
    /// ball (`fracture::slab::Ball::step`) — resolved after the motion and the environment's contacts,
    /// before what follows every step (heating, plastic flow, fracture): the stress that decides
    /// where the body cracks is that of the state the contacts leave.
    pub fn step_with_contacts(
        &mut self,
        dt: f64,
        contacts: &mut dyn FnMut(&mut Simulation),
    ) -> Result<(), BlowUp> {
        let max_speed = MAX_TRAVEL_PER_STEP * self.min_support_radius() / dt;
        let implicit = self.implicit.is_some();
        // The fused pass gathers the nodal stresses; a body with background quadrature sums its
        // forces over the integration points (`BodyDynamics::acceleration`) instead.
        let nodal = self.body.quadrature().is_none();
        if !implicit && nodal && self.integrator.method() == Method::SymplecticEuler {
            return self.step_symplectic_euler(dt, max_speed, contacts);
        }
        let before = (
            self.body.displacement.clone(),
            self.body.velocity.clone(),
            self.integrator.clone(),
        );
        match self.implicit {
            Some(settings) => self.advance_implicit(dt, settings),
            None => self.advance_explicit(dt),
        }
        let settle = Settle {
            colliders: &self.environment.colliders,
            friction: self.environment.friction,
            fixed: &self.fixed,
            held: &before.0,
            runaway: 100.0 * self.size,
            max_speed: (!implicit).then_some(max_speed),
        };
        let body = &mut self.body;
        let reference = &body.reference;
        let flags = update_pairs(&mut body.displacement, &mut body.velocity, |i, u, v| {
            settle.phyxel(i, reference, u, v)
        });
        let turned_too_far = implicit && self.largest_rotation_per_step(dt) > MAX_ROTATION_PER_STEP;
        let body = &mut self.body;
        if flags & BLOWN_UP != 0 || turned_too_far {
            (body.displacement, body.velocity, self.integrator) = before;
            self.last_velocity_change.clear();
            self.last_obstacle_impulse.clear();
            return Err(BlowUp {
                time: self.time,
                dt,
                cfl_time_step: self.cfl_time_step(),
                implicit,
            });
        }
        // The implicit step took the surfaces' contacts inside its solve (`advance_implicit`).
        let surfaces_touched = if implicit {
            self.last_contact.as_ref().is_some_and(|r| r.contacts > 0)
        } else {
            self.resolve_surface_contacts()
        };
        if flags & TOUCHED != 0 || surfaces_touched {
            // A multistep method's remembered x(t − Δt) or v(t − Δt/2) predates the correction.
            self.integrator.reset();
        }
        contacts(self);
        self.after_step(dt);
        Ok(())
    }

    /// The surfaces' contacts after a step ([`contact::resolve`]), if [`Simulation::surface_contact`]
    /// is set; whether any was found.
    fn resolve_surface_contacts(&mut self) -> bool {
        let Some(settings) = self.surface_contact else {
            return false;
        };
        let report = contact::resolve(
            &mut self.body,
            &self.surfaces,
            &self.fixed,
            self.environment.friction,
            settings,
        );
        let touched = report.contacts > 0;
        self.last_contact = Some(report);
        touched
    }

    /// What the last step's surface contact found and did (None without surface contact).
    pub fn last_contact(&self) -> Option<&ContactReport> {
        self.last_contact.as_ref()
    }

    /// [`Simulation::step`] with symplectic Euler, v ← v + Δt·a(u, v), u ← u + Δt·v, in one pass with
    /// the force gather: a_k needs every phyxel's stress but only phyxel k's own state, so each phyxel
    /// is gathered, integrated and settled at once, into [`Simulation::next_state`] — one pass fewer
    /// to wait for per step, and the state before the step stays as it was for a roll-back.
    fn step_symplectic_euler(
        &mut self,
        dt: f64,
        max_speed: f64,
        contacts: &mut dyn FnMut(&mut Simulation),
    ) -> Result<(), BlowUp> {
        let (mut next_u, mut next_v) = std::mem::take(&mut self.next_state);
        let body = &self.body;
        let stresses = self.elasticity.stresses(body, &body.displacement);
        let dynamics =
            BodyDynamics::new(body, self.elasticity, &self.environment, self.drag, false);
        let settle = Settle {
            colliders: &self.environment.colliders,
            friction: self.environment.friction,
            fixed: &self.fixed,
            held: &body.displacement,
            runaway: 100.0 * self.size,
            max_speed: Some(max_speed),
        };
        next_u.resize(body.len(), DVec3::ZERO);
        next_v.resize(body.len(), DVec3::ZERO);
        let flags = update_pairs(&mut next_u, &mut next_v, |k, u, v| {
            let (u_k, v_k) = (body.displacement[k], body.velocity[k]);
            *v = v_k + dt * dynamics.acceleration_of(k, &stresses, u_k, v_k);
            *u = u_k + dt * *v;
            settle.phyxel(k, &body.reference, u, v)
        });
        if flags & BLOWN_UP != 0 {
            self.next_state = (next_u, next_v);
            return Err(BlowUp {
                time: self.time,
                dt,
                cfl_time_step: self.cfl_time_step(),
                implicit: false,
            });
        }
        let body = &mut self.body;
        std::mem::swap(&mut body.displacement, &mut next_u);
        std::mem::swap(&mut body.velocity, &mut next_v);
        self.next_state = (next_u, next_v);
        self.resolve_surface_contacts();
        contacts(self);
        self.after_step(dt);
        Ok(())
    }

    /// What follows every step: heating and melting, plastic flow, the clock.
    fn after_step(&mut self, dt: f64) {
        let body = &mut self.body;
        if let Some(melting) = self.melting {
            melting.heat(body, dt);
            if let super::body::Integration::Quadrature(q) = &mut body.integration {
                q.soften(&body.stiffness_scale);
            }
        }
        // A body with background quadrature is always corotated (its forces are).
        let elasticity = if self.body.quadrature().is_some() {
            Elasticity::CorotatedLinear
        } else {
            self.elasticity
        };
        match (self.plasticity, elasticity) {
            (Some(plasticity), Elasticity::Mkn04) => self.flow_additive(plasticity, dt),
            (Some(plasticity), Elasticity::CorotatedLinear) => {
                self.flow_multiplicative(plasticity, dt)
            }
            (None, _) => {}
        }
        self.crack(dt);
        self.time += dt;
    }

    /// The fracture step ([`Fracture::step`]) after Δt of motion: after every step here, and after a
    /// batch of steps taken elsewhere (the GPU backend's, with the batch's Δt). Fracture cuts the nodal
    /// MKN04 model of the explicit integrators: switched to another model after it was enabled, it
    /// pauses (its cracks stay cut).
    pub fn crack(&mut self, dt: f64) {
        let cut = self.elasticity == Elasticity::Mkn04
            && self.implicit.is_none()
            && self.body.quadrature().is_none();
        if let Some(fracture) = self.fracture.as_mut().filter(|_| cut) {
            fracture.ductility = self.plasticity.map(|p| p.max_strain);
            let phyxels = self.body.len();
            fracture.step(&mut self.body, &self.fixed, dt);
            if self.body.len() > phyxels {
                // Resampling appended phyxels (`fracture::resample`): free ones, and a multistep
                // method's history no longer fits the body.
                if !self.fixed.is_empty() {
                    self.fixed.resize(self.body.len(), false);
                }
                self.integrator.reset();
            }
        }
    }

    /// MKN04's additive plastic flow after a step ([`Plasticity::flow`]), and the reference-shape
    /// update when some phyxel's total strain passed [`Simulation::reference_update_strain`].
    fn flow_additive(&mut self, plasticity: Plasticity, dt: f64) {
        let body = &mut self.body;
        let stresses = self.elasticity.stresses(body, &body.displacement);
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
        // The cracks live in the reference configuration (`super::fracture`): with fracture on, the
        // rest shape stays, and the plastic strain alone, up to c_max, carries the permanent stretch.
        if largest_total > self.reference_update_strain && self.fracture.is_none() {
            self.update_reference();
        }
    }

    /// The corotated model's multiplicative plastic flow after a step (Zhou et al. 2013 §3.2, step 6
    /// of their algorithm; [`Plasticity::flow_multiplicative`]): each phyxel's F = F_e F_p is split
    /// anew, moving its rest shape F_p x̄_ij towards the current shape. No reference update is needed:
    /// the rest shape lives in F_p, and det F_p = 1 keeps the rest volumes.
    fn flow_multiplicative(&mut self, plasticity: Plasticity, dt: f64) {
        let body = &self.body;
        if let Some(q) = body.quadrature() {
            // Background quadrature: F_p lives at the integration points, and a softened (warm)
            // point yields earlier, as a warm phyxel does below.
            let flowed = map_indices(q.len(), |k| {
                let softened = Plasticity {
                    yield_strain: plasticity.yield_strain * q.softening[k],
                    ..plasticity
                };
                let elastic = q.deformation_gradient(k, &body.displacement)
                    * q.plastic_deformation[k].inverse();
                softened.flow_multiplicative(elastic, q.plastic_deformation[k], dt)
            });
            if let super::body::Integration::Quadrature(q) = &mut self.body.integration {
                q.plastic_deformation = flowed;
            }
            return;
        }
        let flowed = map_indices(body.len(), |i| {
            // A softened (warm) phyxel also yields earlier: c_yield scales with its stiffness.
            let softened = Plasticity {
                yield_strain: plasticity.yield_strain * body.stiffness_scale[i],
                ..plasticity
            };
            let elastic = corotated::elastic_deformation_gradient(body, i, &body.displacement);
            softened.flow_multiplicative(elastic, body.plastic_deformation[i], dt)
        });
        self.body.plastic_deformation = flowed;
    }

    /// max_i Δt·|ω_i|: the largest angle (rad) the step turned a neighbourhood by (see
    /// [`MAX_ROTATION_PER_STEP`]).
    fn largest_rotation_per_step(&self, dt: f64) -> f64 {
        let body = &self.body;
        map_indices(body.len(), |i| {
            let grad_v = body
                .mls
                .displacement_gradient(i, &body.velocity, &body.neighbours);
            norm(0.5 * (grad_v - grad_v.transpose())) / std::f64::consts::SQRT_2
        })
        .into_iter()
        .fold(0.0, f64::max)
            * dt
    }

    /// One step of the explicit integrator with the model [`Simulation::elasticity`].
    fn advance_explicit(&mut self, dt: f64) {
        let held = self.body.quadrature().and_then(|q| q.held.as_ref());
        if held.is_some() && self.integrator.method() == Method::SymplecticEuler {
            return self.advance_symplectic_holding(dt);
        }
        let body = &mut self.body;
        let mut state = State {
            t: self.time,
            x: std::mem::take(&mut body.displacement),
            v: std::mem::take(&mut body.velocity),
        };
        {
            let dynamics =
                BodyDynamics::new(body, self.elasticity, &self.environment, self.drag, false);
            self.integrator
                .step_explicit(&dynamics, &mut state, dt)
                .expect("set_integrator admits explicit methods only");
        }
        body.displacement = state.x;
        body.velocity = state.v;
    }

    /// Symplectic Euler on a body whose held surface is taken implicitly
    /// ([`super::quadrature::HeldSurface`]): v* = v + Δt·a(u, v) from every force but the hold's,
    /// then (M + Δt² P) v⁺ = M v* − Δt P u, u ← u + Δt·v⁺.
    fn advance_symplectic_holding(&mut self, dt: f64) {
        let body = &self.body;
        let dynamics = BodyDynamics::new(body, self.elasticity, &self.environment, self.drag, true);
        let (u, v) = (&body.displacement, &body.velocity);
        let acceleration = dynamics.acceleration(self.time, u, v);
        let mut velocity: Vec<DVec3> = v
            .iter()
            .zip(&acceleration)
            .map(|(v, a)| *v + dt * *a)
            .collect();
        if let Some(held) = body.quadrature().and_then(|q| q.held.as_ref()) {
            let solve = held.implicit_velocities(&body.mass, &self.fixed, dt, u, &mut velocity);
            // M plus a small positive semidefinite term: CG does not fail on it (and a step it did
            // not finish would still be caught by the blow-up checks that follow).
            debug_assert!(solve.converged, "{} iterations", solve.iterations);
        }
        let body = &mut self.body;
        for (u, v) in body.displacement.iter_mut().zip(&velocity) {
            *u += dt * *v;
        }
        body.velocity = velocity;
    }

    /// One linearized implicit Euler step of the corotated model ([`implicit::velocity_change`]):
    /// v ← v + Δv, u ← u + Δt·v, the fixed phyxels held. The CG solve is kept in
    /// [`Simulation::last_solve`].
    fn advance_implicit(&mut self, dt: f64, settings: CorotatedImplicit) {
        let body = &mut self.body;
        let mut velocity = std::mem::take(&mut body.velocity);
        for (i, v) in velocity.iter_mut().enumerate() {
            if self.fixed.get(i).copied().unwrap_or(false) {
                *v = DVec3::ZERO;
            }
        }
        let drag: Vec<(usize, DVec3)> = self
            .drag
            .filter(|d| d.phyxel < body.len())
            .map(|d| {
                let x = body.reference[d.phyxel] + body.displacement[d.phyxel];
                (d.phyxel, d.force(x))
            })
            .into_iter()
            .collect();
        // Phyxels predicted near, on or in an obstacle at the end of the step (x̃ = x + Δt v): the
        // solve brings the normal velocity of those it holds to the obstacle's surface, with Coulomb
        // friction lagged on the last step's normal impulse (`implicit`'s module docs).
        let h_min = self
            .body
            .support_radius
            .iter()
            .cloned()
            .fold(f64::INFINITY, f64::min);
        let touching = CONTACT_DISTANCE * h_min;
        let margin = implicit::OBSTACLE_MARGIN * h_min;
        let body = &mut self.body;
        let friction = self.environment.friction;
        let contacts: Vec<implicit::ObstacleContact> = (0..body.len())
            .filter(|&i| !self.fixed.get(i).copied().unwrap_or(false))
            .filter_map(|i| {
                let x = body.reference[i] + body.displacement[i];
                self.environment.colliders.iter().find_map(|c| {
                    let (phi, normal) = c.signed_distance(x + dt * velocity[i]);
                    let last_impulse = self.last_obstacle_impulse.get(i).copied().unwrap_or(0.0);
                    let friction = implicit::Friction::start(
                        friction * last_impulse,
                        velocity[i] - normal.dot(velocity[i]) * normal,
                        body.mass[i],
                    );
                    (phi <= margin).then_some(implicit::ObstacleContact {
                        phyxel: i,
                        normal,
                        target: -c.signed_distance(x).0.max(0.0) / dt - normal.dot(velocity[i]),
                        held: phi <= touching,
                        friction,
                    })
                })
            })
            .collect();
        // Contacts between the objects' surfaces: found at the predicted displacements u + Δt v,
        // within the reach inside and the margin outside, and taken in the solve.
        let surface_contacts = match self.surface_contact {
            Some(contact) if self.surfaces.len() > 1 => {
                let predicted: Vec<DVec3> = body
                    .displacement
                    .iter()
                    .zip(&velocity)
                    .map(|(u, v)| *u + dt * *v)
                    .collect();
                let current = std::mem::replace(&mut body.displacement, predicted);
                let found = contact::find(
                    body,
                    &self.surfaces,
                    &self.fixed,
                    contact.reach,
                    contact.margin,
                );
                body.displacement = current;
                found
            }
            _ => Vec::new(),
        };
        let loads = Loads {
            gravity: self.environment.gravity,
            extra: &drag,
            fixed: &self.fixed,
            contacts: &contacts,
        };
        // The first solve presses with the vertices that pressed in the last step and with those
        // new to the candidates (the set then settles in a pass or two instead of ~log₂ of the
        // redundant vertices of a resting patch).
        let first_guess: Vec<bool> = surface_contacts
            .iter()
            .map(|c| {
                self.pressing_vertices.binary_search(&c.vertex).is_ok()
                    || self.candidate_vertices.binary_search(&c.vertex).is_err()
            })
            .collect();
        let penalty = implicit::SurfacePenalty {
            contacts: &surface_contacts,
            stiffness: self.surface_contact.map_or(0.0, |c| c.stiffness),
            first_guess: &first_guess,
            friction: self.environment.friction,
        };
        let guess = Some(self.last_velocity_change.as_slice()).filter(|g| !g.is_empty());
        let step = implicit::velocity_change(
            body,
            &velocity,
            dt,
            loads,
            penalty,
            self.environment.damping + settings.rayleigh.mass,
            settings,
            guess,
        );
        for (v, dv) in velocity.iter_mut().zip(&step.dv) {
            *v += *dv;
        }
        if self.surface_contact.is_some() {
            self.candidate_vertices = surface_contacts.iter().map(|c| c.vertex).collect();
            self.candidate_vertices.sort_unstable();
            self.pressing_vertices = surface_contacts
                .iter()
                .zip(&step.surface_impulses)
                .filter(|(_, &l)| l > 0.0)
                .map(|(c, _)| c.vertex)
                .collect();
            self.pressing_vertices.sort_unstable();
            self.last_contact = Some(ContactReport::of(
                self.surfaces.len(),
                &surface_contacts,
                &step.surface_impulses,
                &step.surface_friction,
                &step.surface_depths,
            ));
        }
        self.last_obstacle_impulse.clear();
        self.last_obstacle_impulse.resize(body.len(), 0.0);
        for (contact, &impulse) in contacts.iter().zip(&step.contact_impulses) {
            self.last_obstacle_impulse[contact.phyxel] = impulse;
        }
        for (i, v) in velocity.iter().enumerate() {
            if !self.fixed.get(i).copied().unwrap_or(false) {
                body.displacement[i] += dt * *v;
            }
        }
        body.velocity = velocity;
        self.last_velocity_change = step.dv;
        self.last_solve = Some(step.stats);
    }

    /// The reference-shape update for large plastic deformation (MKN04 §5.1; tutorial §7.3; the issue's
    /// "absorb the strain into the plastic state"): the rest shape moves to the current shape
    /// (x̄ ← x̄ + u, u ← 0), and the plastic strain becomes ε_plastic ← −ε_elastic so that every
    /// phyxel keeps its elastic strain (and stress) while its total strain, now measured from the new
    /// rest shape, restarts at zero. Neighbours, densities and moment matrices are rebuilt.
    ///
    /// In the corotated model the elastic part F_e of every phyxel is kept instead: F_p ← F_e⁻¹ (Zhou
    /// et al. 2013 eq. 15: the rest offsets become F_e⁻¹ (x_j − x_i)), so that F_e = F F_p⁻¹ holds with
    /// F = I at the new rest shape.
    pub fn update_reference(&mut self) {
        let deformed_surfaces = self.surface_vertices();
        let body = &mut self.body;
        match self.elasticity {
            Elasticity::Mkn04 => {
                let stresses = self.elasticity.stresses(body, &body.displacement);
                for (plastic, s) in body.plastic_strain.iter_mut().zip(&stresses) {
                    *plastic = -s.strain;
                }
            }
            Elasticity::CorotatedLinear => {
                let body_now: &Body = body;
                let rest = map_indices(body_now.len(), |i| {
                    let elastic = corotated::elastic_deformation_gradient(
                        body_now,
                        i,
                        &body_now.displacement,
                    );
                    if elastic.determinant().abs() > DEGENERATE_DETERMINANT {
                        elastic.inverse()
                    } else {
                        DMat3::IDENTITY
                    }
                });
                body.plastic_deformation = rest;
            }
        }
        body.reference = body.positions();
        body.displacement.iter_mut().for_each(|u| *u = DVec3::ZERO);
        body.rebuild_reference();
        if let Some(fracture) = self.fracture.as_mut() {
            fracture.reapply(body);
        }
        for (surface, rest) in self.surfaces.iter_mut().zip(deformed_surfaces) {
            surface.rebind(rest, body);
        }
        self.integrator.reset();
        self.reference_updates += 1;
    }

    /// Take a rest shape that a reference update moved elsewhere (the GPU solver's, read back) with
    /// the displacements `displacement` from it and `updates` updates so far: the surfaces are rebound
    /// at their current deformed shape (as [`Simulation::update_reference`] rebinds them), the
    /// neighbourhoods, volumes and MLS weights are rebuilt. The plastic state is the caller's to set.
    pub fn adopt_reference(
        &mut self,
        reference: Vec<DVec3>,
        displacement: Vec<DVec3>,
        updates: usize,
    ) {
        let body = &mut self.body;
        // The shape at the update (the new rest shape), as displacements from the rest shape the
        // surfaces are bound to: there they are bound again, and `displacement` carries them on.
        body.displacement = reference
            .iter()
            .zip(&body.reference)
            .map(|(x, bound)| *x - *bound)
            .collect();
        let deformed_surfaces = self.surface_vertices();
        let body = &mut self.body;
        body.reference = reference;
        body.displacement = displacement;
        body.rebuild_reference();
        if let Some(fracture) = self.fracture.as_mut() {
            fracture.reapply(body);
        }
        for (surface, rest) in self.surfaces.iter_mut().zip(deformed_surfaces) {
            surface.rebind(rest, body);
        }
        self.integrator.reset();
        self.reference_updates = updates;
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
        // A body with background quadrature stores its elastic energy at the integration points
        // (and in a held surface's penalty): U = Σ_I v_I ½ ε_I:σ_I.
        let elastic: f64 = match body.quadrature() {
            Some(q) => q.energy(&body.displacement),
            None => self
                .elasticity
                .stresses(body, &body.displacement)
                .iter()
                .map(|s| s.energy)
                .sum(),
        };
        motion + elastic
    }
}

// The state as numbers (Simulation::snapshot, Simulation::restore): this module's own
// `impl Simulation`, which uses nothing of it back.
pub mod snapshot;

#[cfg(test)]
mod tests;
