//! The "ductile bar torn" (seed 002 §7.3 and fig. 8, "stretch, neck, tear"; seed 000
//! §4.1.2–4.1.3): a bar of MKN04's additive plastic material ([`Plasticity::flow`]) whose grips move
//! apart at a constant speed — displacement control, so that it keeps stretching after it yields —
//! with fracture on. It yields long before it cracks, flows plastically, necks and tears in the neck.
//!
//! **Why it cracks at all: the cap c_max.** MKN04's flow ε_p += c_creep Δt ε_e (where ‖ε_e‖ > c_yield)
//! holds the elastic strain near c_yield while the grips pull (a viscoplastic plateau at
//! ‖ε_e‖ ≈ max(c_yield, ε̇/c_creep)): with c_yield E below σ_t the stress never reaches the strength,
//! and a perfectly plastic bar would stretch for ever. The flow stops where ‖ε_p‖ reaches the cap
//! c_max; from there the phyxel hardens elastically again, its stress rises to σ_t and it cracks. The
//! bar's elongation at the first crack is then about the plastic strain at the cap plus the elastic
//! strain at the strength, times the free length: several times the brittle bar's σ_t/E.
//!
//! **Where it necks: an honest imperfection.** A perfectly uniform bar would flow uniformly, and the
//! MKN04 model (Green strain, the second Piola–Kirchhoff stress, no softening) has no instability of
//! its own that would pick a place. So the section is made slightly smaller at mid-length: the
//! lattice's y and z are scaled about the axis by 1 − δ (1 + cos(π (x − x_c)/w))/2 within w of the
//! middle ([`NECK_DEPTH`] δ, [`NECK_HALF_LENGTH`] w in spacings), the phyxels' masses by its square —
//! a specimen machined with a shallow waist, as real tensile specimens localise at their weakest
//! section. The stress there is larger by 1/(1 − δ)², so the waist yields first, flows farthest and
//! reaches c_max first: it contracts laterally more than the rest, and the first crack starts there.
//! The waist must be deep enough, and the yield stress high enough, for the waist to reach σ_t while
//! the rest still flows below it: with a 5 % waist and c_yield = 0.004 (measured) the whole bar
//! reached the cap and the first crack started beside a grip, where the clamp's lateral constraint
//! raises the stress; at 10 % and c_yield = 0.012 (the grips then hold about 0.6 σ_t) it starts in the
//! neck.
//!
//! **How it tears.** The first crack starts where the stress first reaches σ_t — in the waist, once
//! its plastic strain is at the cap; its fronts then run at c_prop through the waist, whose phyxels
//! are at the cap too: a front advances into material whose ductility is used up as into material
//! above the strength ([`super::Fracture::ductility`]), since a tip there cannot be blunted by flow.
//! (Without that, a ligament at a corner of the section, its stress spread thin by the MLS fit of its
//! neighbours, could hold the two halves together while the grips pull them apart.)
//!
//! **Measured** (`ductile/tests.rs`, 24 × 5 × 5 phyxels, jelly, σ_t = 2 kPa, [`DUCTILE_PLASTICITY`],
//! grips at [`GRIP_SPEED`]): the same bar without plasticity cracks at an elongation of 11.4 mm
//! (σ_t/E of the free length is 15 mm); the ductile bar first cracks at 119.8 mm (10.5 times), with
//! ‖ε_p‖ 0.27 in the neck and 0.13 beside the grips, the neck's width down 8.9 % and the width beside
//! the grips 5.1 %; the crack starts half a spacing from mid-length, normal 0.7° off the axis, and the
//! bar is in two pieces 163 steps later, at 137.7 mm.
//!
//! **The grips** hold [`GRIP_LAYERS`] layers at each end, clamped (no lateral motion), and move apart
//! along x, each at `speed`, reached smoothly over [`ACCELERATION_TIME`] so that no stress wave
//! starts at the grips ([`PullingGrips`]). No gravity (as the notched bar).
//!
//! **Reference shape.** The cracks live in the reference configuration, so with fracture on the
//! simulation never moves the rest shape ([`Simulation::update_reference`] is skipped): the plastic
//! strain alone carries the permanent stretch, up to c_max.

use super::scenes::{notched_bar_cells, GripPath, NOTCHED_BAR_WIDTH};
use super::{FractureError, FractureSettings};
use crate::meshless::body::{Body, SupportRadius};
use crate::meshless::material::Material;
use crate::meshless::plasticity::Plasticity;
use crate::meshless::simulation::{BlowUp, Environment, Simulation};
use glam::DVec3;

/// The waist's depth δ: the mid-length section is 1 − δ of the others across (in y and z).
pub const NECK_DEPTH: f64 = 0.1;

/// The waist's half-length w in lattice spacings.
pub const NECK_HALF_LENGTH: f64 = 3.0;

/// Layers of phyxels held at each end (≥ 2h at h = 2.2 spacings, as the notched bar's).
pub const GRIP_LAYERS: usize = 5;

/// The time (s) over which the grips reach their speed (a constant acceleration).
pub const ACCELERATION_TIME: f64 = 0.2;

/// The ductile bar's plasticity (MKN04 §5.1): it yields at an elastic strain ‖ε_e‖ of 1.2 % (on
/// jelly, E = 100 kPa, the grips then hold about 0.6 of the demo's σ_t = 2 kPa), creeps at 500/s (the
/// neck's strain rate, about 0.3/s, adds ε̇/c_creep ≈ 0.06 % to the elastic strain while it flows)
/// and stores at most a plastic strain ‖ε_p‖ of 0.3 — the cap that lets it crack (the module's doc).
pub const DUCTILE_PLASTICITY: Plasticity = Plasticity {
    yield_strain: 0.012,
    creep: 500.0,
    max_strain: 0.3,
};

/// The grips' default speed (m/s, each grip): the bar lengthens at twice it.
pub const GRIP_SPEED: f64 = 0.05;

/// The grips of a [`DuctileBar`]: the phyxels held at each end, displaced along x by −d(t) (the
/// lower end) and +d(t) (the upper end), d(t) = v t²/(2 t_a) for t < t_a and v (t − t_a/2) after
/// (t_a = [`ACCELERATION_TIME`]), with no lateral motion.
#[derive(Clone, Debug, PartialEq)]
pub struct PullingGrips {
    pub phyxels: Vec<usize>,
    /// −1 for the lower end's phyxels, +1 for the upper end's.
    pub side: Vec<f64>,
    /// The speed v of each grip (m/s).
    pub speed: f64,
}

impl PullingGrips {
    /// How far each grip has moved at time t, d(t).
    pub fn offset(&self, t: f64) -> f64 {
        let t_a = ACCELERATION_TIME;
        if t < t_a {
            self.speed * t * t / (2.0 * t_a)
        } else {
            self.speed * (t - 0.5 * t_a)
        }
    }

    /// How much longer the grips hold the bar at time t: 2 d(t).
    pub fn elongation(&self, t: f64) -> f64 {
        2.0 * self.offset(t)
    }

    /// The held phyxels' path, u_i(t) = d(t) a_i with a_i = ±x̂ ([`PullingGrips::offset`]).
    pub fn path(&self) -> GripPath {
        GripPath {
            phyxels: self.phyxels.clone(),
            direction: self.side.iter().map(|&s| DVec3::new(s, 0.0, 0.0)).collect(),
        }
    }

    /// Move the grips of `simulation` to their place at the end of the step, then step it.
    pub fn step(&self, simulation: &mut Simulation, dt: f64) -> Result<(), BlowUp> {
        let d = self.offset(simulation.time + dt);
        let body = &mut simulation.body;
        for (&i, &side) in self.phyxels.iter().zip(&self.side) {
            body.displacement[i] = d * DVec3::new(side, 0.0, 0.0);
        }
        simulation.step(dt)
    }
}

/// A plastic bar pulled apart at a constant speed ([`ductile_bar`]).
#[derive(Clone, Debug)]
pub struct DuctileBar {
    pub simulation: Simulation,
    pub grips: PullingGrips,
    /// The phyxels along x, y and z, and the spacing (m).
    pub cells: [usize; 3],
    pub spacing: f64,
}

impl DuctileBar {
    /// Step the bar with its grips ([`PullingGrips::step`]).
    pub fn step(&mut self, dt: f64) -> Result<(), BlowUp> {
        self.grips.step(&mut self.simulation, dt)
    }

    /// The bar's centre at rest (m).
    pub fn centre(&self) -> DVec3 {
        let [nx, ny, nz] = self.cells;
        DVec3::new((nx - 1) as f64, (ny - 1) as f64, (nz - 1) as f64) * (0.5 * self.spacing)
    }

    /// The free length between the grips at rest (m): from the last held layer to the first.
    pub fn free_length(&self) -> f64 {
        (self.cells[0] - 2 * GRIP_LAYERS + 1) as f64 * self.spacing
    }

    /// The lattice layer (along x) of phyxel i.
    pub fn layer(&self, i: usize) -> usize {
        i % self.cells[0]
    }

    /// The width (y extent, m) now of the section of lattice layers `layers`: the largest minus the
    /// smallest y of their current positions.
    pub fn width(&self, layers: std::ops::RangeInclusive<usize>) -> f64 {
        let body = &self.simulation.body;
        let (lo, hi) = (0..body.len())
            .filter(|&i| layers.contains(&self.layer(i)))
            .map(|i| body.reference[i].y + body.displacement[i].y)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
                (lo.min(y), hi.max(y))
            });
        hi - lo
    }

    /// [`DuctileBar::width`] at rest.
    pub fn rest_width(&self, layers: std::ops::RangeInclusive<usize>) -> f64 {
        let body = &self.simulation.body;
        let (lo, hi) = (0..body.len())
            .filter(|&i| layers.contains(&self.layer(i)))
            .map(|i| body.reference[i].y)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
                (lo.min(y), hi.max(y))
            });
        hi - lo
    }
}

/// The waist's scale of the section at x ([`NECK_DEPTH`], [`NECK_HALF_LENGTH`] spacings).
fn waist(x: f64, centre: f64, spacing: f64, depth: f64) -> f64 {
    let w = NECK_HALF_LENGTH * spacing;
    let r = (x - centre).abs();
    if r >= w {
        1.0
    } else {
        1.0 - depth * 0.5 * (1.0 + (std::f64::consts::PI * r / w).cos())
    }
}

/// The 3D demo's "ductile bar torn": the notched bar's lattice ([`notched_bar_cells`]`(across)`,
/// [`NOTCHED_BAR_WIDTH`] across, h = 2.2 spacings) without a notch, with a shallow waist at mid-length
/// (the module's doc), of `material` with `plasticity` and `fracture`, held by [`GRIP_LAYERS`] clamped
/// layers at each end that move apart at `speed` (m/s each), no gravity. Refused for fewer than 3
/// phyxels across, a speed that is not a positive finite number, or plasticity with a non-positive or
/// non-finite parameter.
pub fn ductile_bar(
    across: usize,
    material: Material,
    plasticity: Plasticity,
    fracture: FractureSettings,
    speed: f64,
    damping: f64,
) -> Result<DuctileBar, FractureError> {
    if across < 3 {
        return Err(FractureError(format!(
            "the ductile bar needs at least 3 phyxels across (got {across})"
        )));
    }
    if !(speed > 0.0 && speed.is_finite()) {
        return Err(FractureError(format!(
            "the grips' speed must be a positive number of m/s (got {speed})"
        )));
    }
    let Plasticity {
        yield_strain,
        creep,
        max_strain,
    } = plasticity;
    if ![yield_strain, creep, max_strain]
        .iter()
        .all(|p| *p > 0.0 && p.is_finite())
    {
        return Err(FractureError(format!(
            "the ductile bar's plasticity needs positive c_yield, c_creep and c_max (got \
             {yield_strain}, {creep}, {max_strain})"
        )));
    }
    let cells = notched_bar_cells(across);
    let [nx, ny, nz] = cells;
    let a = NOTCHED_BAR_WIDTH / across as f64;
    let centre = DVec3::new((nx - 1) as f64, (ny - 1) as f64, (nz - 1) as f64) * (0.5 * a);
    let points: Vec<DVec3> = (0..nz)
        .flat_map(|z| {
            (0..ny).flat_map(move |y| {
                (0..nx).map(move |x| DVec3::new(x as f64, y as f64, z as f64) * a)
            })
        })
        .map(|p| {
            let s = waist(p.x, centre.x, a, NECK_DEPTH);
            DVec3::new(
                p.x,
                centre.y + s * (p.y - centre.y),
                centre.z + s * (p.z - centre.z),
            )
        })
        .collect();
    let mut body = Body::new(
        points,
        a * a * a,
        a,
        material,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    );
    for i in 0..body.len() {
        body.mass[i] *= waist(body.reference[i].x, centre.x, a, NECK_DEPTH).powi(2);
    }
    body.rebuild_reference();
    let environment = Environment {
        gravity: DVec3::ZERO,
        colliders: Vec::new(),
        friction: 0.0,
        damping,
    };
    let mut simulation = Simulation::new(body, environment);
    simulation.plasticity = Some(plasticity);
    let (mut phyxels, mut side) = (Vec::new(), Vec::new());
    simulation.fixed = (0..simulation.body.len())
        .map(|i| {
            let x = i % nx;
            let held = x < GRIP_LAYERS || x + GRIP_LAYERS >= nx;
            if held {
                phyxels.push(i);
                side.push(if x < GRIP_LAYERS { -1.0 } else { 1.0 });
            }
            held
        })
        .collect();
    simulation.enable_fracture(fracture)?;
    Ok(DuctileBar {
        simulation,
        grips: PullingGrips {
            phyxels,
            side,
            speed,
        },
        cells,
        spacing: a,
    })
}

#[cfg(test)]
mod tests;
