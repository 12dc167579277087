//! "Pour into a glass" (issue 19, item 3): a glass of wall particles standing on the floor of a closed
//! box, and a nozzle above it that lets the water in layer by layer ([`Fluid::emit`]) until the
//! volume to pour has run in. The glass is a cylinder shell of [`WALL_LAYERS`] rings of particles, so
//! Akinci et al.'s boundary volumes (2012) see a curved wall as they see the box's flat ones.

use super::boundary::MAX_BOUNDARY_PARTICLES;
use super::fluid::{Fluid, FluidSettings, MAX_FLUID_PARTICLES};
use super::kernel::Vector;
use super::scene::{box_walls_within, WALL_LAYERS};
use super::simulation::FluidSimulation;
use crate::fluids::error::FluidError;
use std::f64::consts::PI;

/// A glass: an open cylinder of inner radius `radius` standing on the floor y = 0, axis at
/// (`axis_x`, `axis_z`), rim at `height`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glass {
    pub axis_x: f64,
    pub axis_z: f64,
    pub radius: f64,
    pub height: f64,
}

impl Glass {
    /// The glass's wall: `layers` rings at radii r + (l + ½) Δx, each sampled at an arc spacing of
    /// about Δx, in rows at heights (j + ½) Δx up to the rim (the box's floor is its bottom).
    pub fn walls(&self, spacing: f64, layers: usize) -> Vec<Vector> {
        let rows = (self.height / spacing).round() as usize;
        let mut points = Vec::new();
        for layer in 0..layers {
            let r = self.radius + (layer as f64 + 0.5) * spacing;
            let around = (2.0 * PI * r / spacing).round().max(3.0) as usize;
            for j in 0..rows {
                let y = (j as f64 + 0.5) * spacing;
                for k in 0..around {
                    // Each row turned by half a spacing from the one below: no straight seams.
                    let angle = 2.0 * PI * (k as f64 + 0.5 * (j % 2) as f64) / around as f64;
                    points.push(Vector::new(
                        self.axis_x + r * angle.cos(),
                        y,
                        self.axis_z + r * angle.sin(),
                    ));
                }
            }
        }
        points
    }

    /// How many particles [`Glass::walls`] makes (counted without making them).
    pub fn wall_count(&self, spacing: f64, layers: usize) -> usize {
        let rows = (self.height / spacing).round() as usize;
        (0..layers)
            .map(|layer| {
                let r = self.radius + (layer as f64 + 0.5) * spacing;
                rows * (2.0 * PI * r / spacing).round().max(3.0) as usize
            })
            .sum()
    }

    /// Whether `x` is in the glass: within its inner radius of the axis and below its rim.
    pub fn holds(&self, x: Vector) -> bool {
        let (dx, dz) = (x.x - self.axis_x, x.z - self.axis_z);
        dx * dx + dz * dz <= self.radius * self.radius && x.y >= 0.0 && x.y <= self.height
    }

    /// The height water of volume `volume` stands at in the glass: V / (π r²).
    pub fn level(&self, volume: f64) -> f64 {
        volume / (PI * self.radius * self.radius)
    }
}

/// A nozzle pointing down: its outlet a disc of `radius` centred at `outlet`, letting water out at
/// `speed`, one layer of particles each time the last has moved Δx away, `particles` in all.
#[derive(Clone, Debug, PartialEq)]
pub struct Nozzle {
    pub outlet: Vector,
    pub radius: f64,
    pub speed: f64,
    /// Particles to let out in all (whole layers: the last one may overshoot by less than a layer).
    pub particles: usize,
    /// Particles let out so far.
    pub emitted: usize,
    /// The time the last layer went in, once it has.
    pub done_at: Option<f64>,
    spacing: f64,
    /// The time the next layer is due at.
    next: f64,
}

impl Nozzle {
    /// A nozzle that lets out `particles` of spacing `spacing`; the first layer is due at t = 0.
    pub fn new(outlet: Vector, radius: f64, speed: f64, particles: usize, spacing: f64) -> Self {
        Self {
            outlet,
            radius,
            speed,
            particles,
            emitted: 0,
            done_at: None,
            spacing,
            next: 0.0,
        }
    }

    /// One layer at the outlet, moved `down` below it: the points of the Δx lattice of the outlet's
    /// plane within its radius.
    pub fn layer(&self, down: f64) -> Vec<Vector> {
        let reach = (self.radius / self.spacing).floor() as i64;
        let mut points = Vec::new();
        for k in -reach..=reach {
            for i in -reach..=reach {
                let (x, z) = (i as f64 * self.spacing, k as f64 * self.spacing);
                if x * x + z * z <= self.radius * self.radius {
                    points.push(self.outlet + Vector::new(x, -down, z));
                }
            }
        }
        points
    }

    /// Particles in one layer.
    pub fn per_layer(&self) -> usize {
        self.layer(0.0).len()
    }

    /// Particles the nozzle lets out in all: whole layers.
    pub fn total(&self) -> usize {
        let layer = self.per_layer().max(1);
        self.particles.div_ceil(layer) * layer
    }

    /// The time the next layer is due at ([`Nozzle::due`] lets it in from 10⁻¹² s before); None
    /// once everything has run out.
    pub fn next_due(&self) -> Option<f64> {
        (!self.done()).then_some(self.next)
    }

    /// Whether everything has run out.
    pub fn done(&self) -> bool {
        self.emitted >= self.particles
    }

    /// The layers due by the fluid's clock at `time`: the layer due at t_k goes in v (t − t_k) below
    /// the outlet, so that layers keep their spacing Δx however long the step. Returns them, and
    /// counts them as let out.
    pub fn due(&mut self, time: f64) -> Vec<Vector> {
        let mut points = Vec::new();
        while !self.done() && time >= self.next - 1e-12 {
            let layer = self.layer(self.speed * (time - self.next));
            self.emitted += layer.len();
            points.extend(layer);
            self.next += self.spacing / self.speed;
        }
        if self.done() && self.done_at.is_none() {
            self.done_at = Some(time);
        }
        points
    }

    /// Let the layers due now into `simulation` (at the nozzle's speed, downwards). Returns how
    /// many particles went in. Refused ([`Fluid::emit`]): nothing goes in and the nozzle is as it was.
    pub fn pour(&mut self, simulation: &mut FluidSimulation) -> Result<usize, FluidError> {
        let mut after = self.clone();
        let points = after.due(simulation.fluid.time);
        if !points.is_empty() {
            simulation.emit(&points, Vector::new(0.0, -self.speed, 0.0))?;
        }
        *self = after;
        Ok(points.len())
    }
}

/// The scene: a glass of radius a and height 3a in the middle of a closed box 3a × 4a × 3a, a
/// nozzle of radius 0.3 a at 3.5 a letting out the water that fills the glass to `fill` a at 0.5 m/s.
#[derive(Clone, Copy, Debug)]
pub struct Pour {
    /// The glass's inner radius a (m).
    pub radius: f64,
    /// Particle spacing Δx.
    pub spacing: f64,
    /// The water's height in the glass once poured, over a.
    pub fill: f64,
    pub rest_density: f64,
    /// |g| (m/s²), along −y.
    pub gravity: f64,
    pub xsph: f64,
}

impl Pour {
    /// The glass of this scene.
    pub fn glass(&self) -> Glass {
        let a = self.radius;
        Glass {
            axis_x: 1.5 * a,
            axis_z: 1.5 * a,
            radius: a,
            height: 3.0 * a,
        }
    }

    /// The box around the glass: 3a × 4a × 3a, closed (a splash cannot leave it).
    pub fn tray(&self) -> [f64; 3] {
        let a = self.radius;
        [3.0 * a, 4.0 * a, 3.0 * a]
    }

    /// The nozzle of this scene, before it has let anything out.
    pub fn nozzle(&self) -> Nozzle {
        let a = self.radius;
        let glass = self.glass();
        let volume = PI * a * a * self.fill * a;
        let particles = (volume / self.spacing.powi(3)).round() as usize;
        Nozzle::new(
            Vector::new(glass.axis_x, 3.5 * a, glass.axis_z),
            0.3 * a,
            0.5,
            particles,
            self.spacing,
        )
    }

    /// The fluid (the nozzle's first layer) in the box and the glass, and the nozzle that lets out the
    /// rest. Every budget is checked before anything is built: the water to pour against
    /// [`MAX_FLUID_PARTICLES`], the walls against [`MAX_BOUNDARY_PARTICLES`].
    pub fn build(&self) -> Result<(Fluid, Nozzle), FluidError> {
        let values = [self.radius, self.spacing, self.fill, self.rest_density];
        if values.iter().any(|v| !(v.is_finite() && *v > 0.0)) || self.fill > 2.8 {
            return Err(FluidError::BadInput(
                "the glass, the spacing and the density must be positive, the fill at most 2.8 a"
                    .into(),
            ));
        }
        if self.radius / self.spacing < 4.0 {
            return Err(FluidError::BadInput(
                "the glass needs at least 4 particles across its radius".into(),
            ));
        }
        let mut nozzle = self.nozzle();
        let total = nozzle.total();
        if total > MAX_FLUID_PARTICLES {
            return Err(FluidError::TooManyParticles {
                what: "fluid",
                count: total,
                limit: MAX_FLUID_PARTICLES,
            });
        }
        let glass = self.glass();
        let glass_walls = glass.wall_count(self.spacing, WALL_LAYERS);
        if glass_walls > MAX_BOUNDARY_PARTICLES {
            return Err(FluidError::TooManyParticles {
                what: "boundary",
                count: glass_walls,
                limit: MAX_BOUNDARY_PARTICLES,
            });
        }
        // The box's walls counted before they are made, against what the glass leaves of the budget.
        let mut walls = box_walls_within(
            self.tray(),
            self.spacing,
            WALL_LAYERS,
            true,
            MAX_BOUNDARY_PARTICLES - glass_walls,
        )
        .map_err(|error| match error {
            FluidError::TooManyParticles { count, .. } => FluidError::TooManyParticles {
                what: "boundary",
                count: count + glass_walls,
                limit: MAX_BOUNDARY_PARTICLES,
            },
            other => other,
        })?;
        walls.extend(glass.walls(self.spacing, WALL_LAYERS));
        let first = nozzle.due(0.0);
        let mut fluid = Fluid::new(
            first,
            walls,
            FluidSettings {
                rest_density: self.rest_density,
                spacing: self.spacing,
                gravity: Vector::new(0.0, -self.gravity, 0.0),
                xsph: self.xsph,
            },
        )?;
        fluid.v.fill(Vector::new(0.0, -nozzle.speed, 0.0));
        Ok((fluid, nozzle))
    }
}
