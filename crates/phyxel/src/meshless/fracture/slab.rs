//! The "brittle slab struck by a ball" (seed 000 §4.1.3, seed 002 §7.3): a square slab held
//! by its rim — a pane in its frame — struck near its centre by a rigid ball ([`BALL_OFFSET`]: a
//! fraction of a spacing off, so that the lattice's symmetry leaves the first crack one place). The ball is the scenes'
//! sphere obstacle ([`Collider::Sphere`], resolved by [`resolve_contact`]) made to move: each step it
//! travels Δt V, and the phyxels inside it are resolved in its own frame (v − V), so that contact
//! removes the velocity *relative to the ball* into it; the momentum the phyxels gain is taken from
//! the ball (−Σ_i m_i Δv_i / M), so momentum is conserved and the contact, perfectly inelastic, never
//! adds kinetic energy: with P = Σ_i m_i Δv_i the change is −½ Σ_i m_i |Δv_i|² + |P|²/2M (frictionless;
//! friction only takes more), ≤ 0 by Cauchy–Schwarz while M ≥ Σ_i m_i of the phyxels struck in a step
//! (the ball is 33 kg, a phyxel 0.064 kg at the default resolution).
//!
//! **Why the rim, and no gravity.** Held along its whole rim (a pane in its frame) the slab bends in
//! two directions under the impact, so its flexural tension under the ball is radial and hoop alike,
//! not the one direction of a plate on two supports. Jelly at σ_t = 2 kPa would crack under its own
//! weight: a clamped square plate's edge moment is 0.0513 q L² (Timoshenko & Woinowsky-Krieger,
//! Theory of Plates and Shells, table 35), σ = 6M/t² ≈ 0.31 ρ g L²/t ≈ 10 kPa over the free 0.64 m at
//! t = 0.12 m — so the scene, like the notched bar, has no gravity: only the ball loads the slab.
//!
//! **Where it cracks** (measured, `slab/tests.rs`). At the demo's default 3 m/s the first crack starts
//! at the top face at the edge of the ball's contact patch (Hertzian contact's radial tension), and a
//! piece around the impact is knocked out; struck much slower the first crack comes from bending, at
//! the far face under the ball.
//!
//! **The ball's contact is part of the step** ([`Simulation::step_with_contacts`]): after the motion,
//! before the step's fracture, so that the stress that decides where the slab cracks is that of the
//! state the contact leaves — on the CPU as on the GPU, whose host cuts the cracks after the device's
//! steps (phyxel-gpu's `move_ball`, `strike`, `ball_recoil`).

use super::{FractureError, FractureSettings};
use crate::meshless::body::{Body, SupportRadius};
use crate::meshless::collision::{resolve_contact, Collider};
use crate::meshless::material::Material;
use crate::meshless::simulation::{BlowUp, Environment, Simulation};
use glam::DVec3;

/// The slab's edge (m): its spacing is this over the phyxels along an edge.
pub const SLAB_SPAN: f64 = 0.8;

/// The ball's radius (m).
pub const BALL_RADIUS: f64 = 0.1;

/// The ball's density (kg/m³): steel, so that the ball (33 kg) is of the order of the jelly slab
/// (77 kg at 0.12 m thick) and carries on through it once it has cracked.
pub const BALL_DENSITY: f64 = 7800.0;

/// How long (s) the ball flies before it reaches the slab: the scene is seen whole first, and a copy
/// of the solver that takes over its state in that time (the 3D demo's worker, from the page's copy)
/// takes it uncut, as the notched bar's grips leave it uncut for about half a second.
pub const LEAD_TIME: f64 = 0.5;

/// How far the ball's axis lies from the slab's centre, along x and z (in lattice spacings): a blow
/// on the centre would meet the square lattice's eight symmetric twins of every phyxel alike, and
/// which twin cracks first — and so how the slab breaks — would be decided by rounding (a nudge of
/// 10⁻⁹ m, or another backend's arithmetic, picks another). Off the centre by less than a spacing,
/// unequally along x and z, the first crack has one place.
pub const BALL_OFFSET: [f64; 2] = [0.3, 0.1];

/// Layers of phyxels held along each edge of the rim.
pub const RIM_LAYERS: usize = 2;

/// The slab's phyxels along x, y (its thickness) and z at `across` (the notched bar's measure of
/// resolution): 4 × `across` along each edge, 3/5 of `across` (at least 3) through the thickness —
/// 20 × 3 × 20 at `across` = 5, a slab 0.8 m square and 0.12 m thick.
pub fn struck_slab_cells(across: usize) -> [usize; 3] {
    [4 * across, (3 * across / 5).max(3), 4 * across]
}

/// A rigid ball of mass M moving at V (no gravity acts on it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    pub centre: DVec3,
    pub velocity: DVec3,
    pub radius: f64,
    pub mass: f64,
}

impl Ball {
    /// The ball as the scenes' sphere obstacle, where it is now.
    pub fn collider(&self) -> Collider {
        Collider::Sphere {
            center: self.centre,
            radius: self.radius,
        }
    }

    /// ½ M |V|².
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self.mass * self.velocity.length_squared()
    }

    /// Step `simulation` by Δt with the ball moved by Δt V and striking ([`Ball::strike`]) after the
    /// motion, before the step's fracture ([`Simulation::step_with_contacts`]).
    pub fn step(&mut self, simulation: &mut Simulation, dt: f64) -> Result<(), BlowUp> {
        simulation.step_with_contacts(dt, &mut |simulation| {
            self.centre += dt * self.velocity;
            self.strike(simulation);
        })
    }

    /// Resolve every free phyxel inside the ball against it in the ball's frame ([`resolve_contact`]
    /// on v − V, with the environment's friction): projected onto its surface, the relative velocity
    /// into it removed; the ball takes the opposite of the momentum the phyxels gained. Returns that
    /// momentum (N·s).
    pub fn strike(&mut self, simulation: &mut Simulation) -> DVec3 {
        let collider = self.collider();
        let friction = simulation.environment.friction;
        let body = &mut simulation.body;
        let mut gained = DVec3::ZERO;
        for i in 0..body.len() {
            if simulation.fixed.get(i).copied().unwrap_or(false) {
                continue;
            }
            let x = body.reference[i] + body.displacement[i];
            let mut relative = body.velocity[i] - self.velocity;
            let correction = resolve_contact(&collider, x, &mut relative, friction);
            if correction == DVec3::ZERO {
                continue;
            }
            body.displacement[i] += correction;
            let v = relative + self.velocity;
            gained += body.mass[i] * (v - body.velocity[i]);
            body.velocity[i] = v;
        }
        self.velocity -= gained / self.mass;
        gained
    }
}

/// A slab held by its rim and the ball that strikes it.
#[derive(Clone, Debug)]
pub struct StruckSlab {
    pub simulation: Simulation,
    pub ball: Ball,
    /// The phyxels along x, y, z and the spacing (m).
    pub cells: [usize; 3],
    pub spacing: f64,
}

impl StruckSlab {
    /// Step the slab and the ball ([`Ball::step`]).
    pub fn step(&mut self, dt: f64) -> Result<(), BlowUp> {
        self.ball.step(&mut self.simulation, dt)
    }

    /// The slab's top face (y, m) at rest.
    pub fn top(&self) -> f64 {
        (self.cells[1] - 1) as f64 * self.spacing
    }
}

/// The 3D demo's "brittle slab struck by a ball": [`struck_slab_cells`]`(across)` phyxels on a cubic
/// lattice ([`SLAB_SPAN`] along each edge, y up), h = 2.2 spacings, held by [`RIM_LAYERS`] layers along
/// its four edges, no gravity, no ground; a steel ball ([`BALL_RADIUS`], [`BALL_DENSITY`]) above the
/// centre of its top face moving down at `speed` (m/s), one spacing plus `speed` × [`LEAD_TIME`] above it. Refused for fracture settings the
/// solver refuses, fewer than 3 across, or a speed that is not a finite number ≥ 0.
pub fn struck_slab(
    across: usize,
    material: Material,
    fracture: FractureSettings,
    speed: f64,
    damping: f64,
) -> Result<StruckSlab, FractureError> {
    if across < 3 {
        return Err(FractureError(format!(
            "the struck slab needs at least 3 phyxels across (got {across})"
        )));
    }
    if !(speed >= 0.0 && speed.is_finite()) {
        return Err(FractureError(format!(
            "the ball's speed must be a finite number of m/s, 0 or more (got {speed})"
        )));
    }
    let cells = struck_slab_cells(across);
    let [nx, ny, nz] = cells;
    let a = SLAB_SPAN / nx as f64;
    let points: Vec<DVec3> = (0..nz)
        .flat_map(|z| {
            (0..ny).flat_map(move |y| {
                (0..nx).map(move |x| DVec3::new(x as f64, y as f64, z as f64) * a)
            })
        })
        .collect();
    let rim: Vec<bool> = points
        .iter()
        .map(|p| {
            let (x, z) = ((p.x / a).round() as usize, (p.z / a).round() as usize);
            x < RIM_LAYERS || x + RIM_LAYERS >= nx || z < RIM_LAYERS || z + RIM_LAYERS >= nz
        })
        .collect();
    let body = Body::new(
        points,
        a * a * a,
        a,
        material,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    );
    let environment = Environment {
        gravity: DVec3::ZERO,
        colliders: Vec::new(),
        friction: 0.0,
        damping,
    };
    let mut simulation = Simulation::new(body, environment);
    simulation.fixed = rim;
    simulation.enable_fracture(fracture)?;
    let top = (ny - 1) as f64 * a;
    let centre = DVec3::new(
        (0.5 * (nx - 1) as f64 + BALL_OFFSET[0]) * a,
        top + BALL_RADIUS + a + speed * LEAD_TIME,
        (0.5 * (nz - 1) as f64 + BALL_OFFSET[1]) * a,
    );
    let ball = Ball {
        centre,
        velocity: DVec3::new(0.0, -speed, 0.0),
        radius: BALL_RADIUS,
        mass: BALL_DENSITY * 4.0 / 3.0 * std::f64::consts::PI * BALL_RADIUS.powi(3),
    };
    Ok(StruckSlab {
        simulation,
        ball,
        cells,
        spacing: a,
    })
}

#[cfg(test)]
mod tests;
