//! The 3D fluid page ("SPH fluids in 3D", issue 19 item 3): a dam break in a channel and water poured
//! into a glass, stepped by WCSPH, DFSPH or PBF from [`crate::fluids3d`] (the 2D lesson's solvers
//! compiled in 3D) and switched at run time. This file holds the page's parameter table, its two
//! scenes and what its readouts say: the surge front against Martin & Moyce (1952), and how much of
//! the poured water the glass holds and how high it stands against V/(π a²).

use crate::fluids::experiment::MARTIN_MOYCE_FRONT;
use crate::fluids3d::kernel::Vector;
use crate::fluids3d::wcsph::Wcsph;
use crate::fluids3d::{
    Column, FluidError, FluidSimulation, Glass, Nozzle, Pour, Solver, StepReport, Stir,
};

/// The page's parameters. The page's controls take their ranges and defaults from here
/// (`SphFluids3d.parameters()`), and the bindings check values against the same.
pub mod param {
    use crate::params::Param;
    /// Particles across the length a (the dam-break column's width, the glass's radius). The dam
    /// break holds 2 across³ particles (14: 5 488; 36: 93 312), the glass 3.8 across³ once poured
    /// (14: 10 344). The glass goes to 27 across: at 28 and 29 its walls (box and glass: 212 232 at
    /// 28) and from 30 its water exceed the budgets, refused with the limit named.
    pub const ACROSS: Param = Param::integer("across", 6.0, 36.0, 14.0);
    /// XSPH's ξ (seed 002 eq. 53).
    pub const XSPH: Param = Param::real("xsph", 0.0, 0.5, 0.01);
    /// The most pressure-solver iterations a step takes (DFSPH: each of its two solves; PBF).
    pub const ITERATIONS: Param = Param::integer("iterations", 1.0, 200.0, 100.0);
    /// WCSPH's speed of sound over the free-fall speed √(2 g 2a) (10: about 1 % compression).
    pub const SOUND: Param = Param::real("sound", 2.0, 40.0, 10.0);
}

/// Every parameter of the page, by its public name.
pub const PARAMETERS: &[crate::params::Param] =
    &[param::ACROSS, param::XSPH, param::ITERATIONS, param::SOUND];

/// The length a (m): the dam-break column's width (Martin & Moyce's was 2.25 in = 5.7 cm) and the
/// glass's radius.
pub const A: f64 = 0.05;
/// The longest step the incompressible solvers take (s).
pub const DT_MAX: f64 = 1.0 / 240.0;
/// The water's height in the glass once poured, over a.
pub const FILL: f64 = 1.2;
/// The time the water is given to settle after the pour before its height is read (s).
pub const SETTLE: f64 = 0.5;
/// The channel's length over a: the dam break's front cannot pass Z = 4.
pub const CHANNEL: f64 = 4.0;

/// The page's scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scene {
    /// Martin & Moyce's column a × 2a, a deep, released along a channel 4a long (closed by a lid).
    DamBreak,
    /// A glass of radius a and height 3a filled from a nozzle 3.5a above the floor.
    Glass,
}

impl Scene {
    pub const ALL: [Scene; 2] = [Scene::DamBreak, Scene::Glass];

    /// The id the page and the URL use.
    pub fn id(self) -> &'static str {
        match self {
            Scene::DamBreak => "dam-break",
            Scene::Glass => "glass",
        }
    }

    pub fn from_id(id: &str) -> Result<Scene, FluidError> {
        Scene::ALL
            .into_iter()
            .find(|s| s.id() == id)
            .ok_or_else(|| {
                FluidError::BadInput(format!("scene: “{id}” is not one of dam-break, glass"))
            })
    }
}

/// The page's settings, each checked against [`PARAMETERS`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub across: usize,
    pub xsph: f64,
    pub iterations: u32,
    pub sound: f64,
}

impl Settings {
    pub fn new(across: f64, xsph: f64, iterations: f64, sound: f64) -> Result<Self, FluidError> {
        let check = |p: crate::params::Param, v: f64| {
            p.check(v).map_err(|e| FluidError::BadInput(e.to_string()))
        };
        Ok(Self {
            across: check(param::ACROSS, across)? as usize,
            xsph: check(param::XSPH, xsph)?,
            iterations: check(param::ITERATIONS, iterations)? as u32,
            sound: check(param::SOUND, sound)?,
        })
    }

    /// The same particles with ξ, the iteration limit and the speed of sound changed (a new
    /// `across` is a new scene), each checked against [`PARAMETERS`].
    pub fn retuned(&self, xsph: f64, iterations: f64, sound: f64) -> Result<Self, FluidError> {
        Self::new(self.across as f64, xsph, iterations, sound)
    }

    /// The particle spacing Δx = a / across.
    pub fn spacing(&self) -> f64 {
        A / self.across as f64
    }
}

/// What the particles are coloured by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// ρ/ρ₀ from 0.98 to 1.02.
    Density,
    /// p over ρ₀ g 2a.
    Pressure,
    /// |v| over √(2 g 2a).
    Speed,
}

impl Colour {
    pub fn from_id(id: &str) -> Result<Colour, FluidError> {
        match id {
            "density" => Ok(Colour::Density),
            "pressure" => Ok(Colour::Pressure),
            "speed" => Ok(Colour::Speed),
            _ => Err(FluidError::BadInput(format!(
                "colour: “{id}” is not one of density, pressure, speed"
            ))),
        }
    }
}

/// A scene of the page, stepped.
#[derive(Clone, Debug)]
pub struct Fluid3dScene {
    pub scene: Scene,
    pub simulation: FluidSimulation,
    pub settings: Settings,
    /// The glass and its nozzle (the glass scene).
    pub glass: Option<(Glass, Nozzle)>,
}

impl Fluid3dScene {
    /// `scene` stepped by `solver`, its budgets checked before it is built.
    pub fn new(scene: Scene, solver: Solver, settings: Settings) -> Result<Self, FluidError> {
        let spacing = settings.spacing();
        let (fluid, glass) = match scene {
            Scene::DamBreak => {
                let mut column = Column::martin_moyce(A, 2.0, CHANNEL, 1.0, settings.across);
                column.box_height = 2.5 * A;
                column.lid = true;
                column.xsph = settings.xsph;
                (column.build()?, None)
            }
            Scene::Glass => {
                let pour = Pour {
                    radius: A,
                    spacing,
                    fill: FILL,
                    rest_density: 1000.0,
                    gravity: 9.81,
                    xsph: settings.xsph,
                };
                let (fluid, nozzle) = pour.build()?;
                (fluid, Some((pour.glass(), nozzle)))
            }
        };
        let g = fluid.settings.gravity.length();
        let wcsph = Wcsph::for_height(g, 2.0 * A);
        let mut simulation = FluidSimulation::new(fluid, solver, wcsph, DT_MAX)?;
        apply(&mut simulation, settings);
        Ok(Self {
            scene,
            simulation,
            settings,
            glass,
        })
    }

    /// One step: the nozzle's layers due now go in first (the glass), then the solver's CFL step.
    /// A refused step leaves the state before it.
    pub fn step(&mut self) -> Result<StepReport, FluidError> {
        if let Some((_, nozzle)) = &mut self.glass {
            nozzle.pour(&mut self.simulation)?;
        }
        self.simulation.step()
    }

    /// Take the state another solver of the same scene computed (the WebGPU step's read-back):
    /// positions, velocities, densities, pressures and the clock, so that the readouts, the drawing
    /// and the next CFL step ([`FluidSimulation::time_step`]) see it. The neighbour lists are not
    /// rebuilt (nothing read from this copy needs them). The state may hold more particles than the
    /// copy, up to the count the glass's nozzle has let out (the other solver poured them,
    /// advancing this nozzle): they are taken too, each of mass m, so the mass stays the count
    /// times m. Refused unless every list has one entry per particle, the count is the copy's or
    /// one the nozzle accounts for, and every value is finite.
    pub fn set_state(
        &mut self,
        x: &[Vector],
        v: &[Vector],
        density: &[f64],
        pressure: &[f64],
        time: f64,
    ) -> Result<(), FluidError> {
        let poured = self.glass.as_ref().map_or(0, |(_, nozzle)| nozzle.emitted);
        let f = &mut self.simulation.fluid;
        let (n, count) = (f.len(), x.len());
        if !(count == n || (count > n && count <= poured))
            || v.len() != count
            || density.len() != count
            || pressure.len() != count
        {
            return Err(FluidError::BadInput(format!(
                "a state of {count} particles for a fluid of {n}{}",
                if poured > n {
                    format!(" (and up to {} poured)", poured - n)
                } else {
                    String::new()
                }
            )));
        }
        let finite = x.iter().chain(v).all(|p| p.is_finite())
            && density.iter().chain(pressure).all(|p| p.is_finite())
            && time.is_finite();
        if !finite {
            return Err(FluidError::BlowUp(
                "the state holds a value that is not a finite number".into(),
            ));
        }
        f.x.clear();
        f.x.extend_from_slice(x);
        f.v.clear();
        f.v.extend_from_slice(v);
        f.density.clear();
        f.density.extend_from_slice(density);
        f.pressure.clear();
        f.pressure.extend_from_slice(pressure);
        f.scratch.resize(count, Vector::ZERO);
        f.time = time;
        Ok(())
    }

    /// Stir at `centre` moving at `velocity` ([`stir`]), or stop (None). Refused, the stir as it
    /// was, for a value that is not a finite number.
    pub fn set_stir(&mut self, at: Option<(Vector, Vector)>) -> Result<(), FluidError> {
        if let Some((centre, velocity)) = at {
            if !(centre.is_finite() && velocity.is_finite()) {
                return Err(FluidError::BadInput(
                    "the stir's point or velocity is not a finite number".into(),
                ));
            }
        }
        self.simulation.fluid.stir = at.map(|(centre, velocity)| stir(centre, velocity));
        Ok(())
    }

    /// Set ξ, the iteration limits and the speed of sound on the running fluid.
    pub fn set(&mut self, settings: Settings) {
        apply(&mut self.simulation, settings);
        self.settings = settings;
    }

    /// The dam break's surge front against Martin & Moyce: (T, Z, Z_MM) with T = t √(2g/a), Z = z/a
    /// the front's distance from the column's back wall (its farthest particle), and the experiment's
    /// Z at T, interpolated in its table — None outside the table's range, and once the experiment's
    /// front is past this channel's far wall (Z_MM ≥ 4: the simulated one is stopped there). None for
    /// the glass.
    pub fn surge_front(&self) -> Option<(f64, f64, Option<f64>)> {
        if self.scene != Scene::DamBreak {
            return None;
        }
        let f = &self.simulation.fluid;
        let g = f.settings.gravity.length();
        let t = f.time * (2.0 * g / A).sqrt();
        let z = f.x.iter().map(|x| x.x).fold(0.0, f64::max) / A;
        Some((t, z, martin_moyce_at(t).filter(|mm| *mm < CHANNEL)))
    }

    /// The glass: (the fraction of the poured water it holds, the water's height in it over a, the
    /// height V/(π a²) of the volume poured so far over a, with V the particles' count times Δx³).
    /// The height is read once the pour is over and the water has had [`SETTLE`] to settle (None
    /// before: the stream falling into the glass is not a surface): the mean over the glass's top
    /// layer, the particles within Δx of the highest one in it, plus Δx/2 (a particle's centre lies
    /// half a spacing below the surface it bounds).
    pub fn in_glass(&self) -> Option<(f64, Option<f64>, f64)> {
        let (glass, nozzle) = self.glass.as_ref()?;
        let f = &self.simulation.fluid;
        let dx = f.spacing();
        let inside: Vec<f64> =
            f.x.iter()
                .filter(|x| glass.holds(**x))
                .map(|x| x.y)
                .collect();
        let fraction = inside.len() as f64 / f.len() as f64;
        let top = inside.iter().copied().fold(0.0, f64::max);
        let layer: Vec<f64> = inside.iter().copied().filter(|y| *y > top - dx).collect();
        let level = if layer.is_empty() {
            0.0
        } else {
            layer.iter().sum::<f64>() / layer.len() as f64 + 0.5 * dx
        };
        let volume = f.len() as f64 * dx.powi(3);
        let settled = nozzle.done_at.is_some_and(|t| f.time >= t + SETTLE);
        Some((
            fraction,
            settled.then_some(level / A),
            glass.level(volume) / A,
        ))
    }

    /// x, y, z and a colour value in [0, 1] per particle, for drawing.
    pub fn particles(&self, colour: Colour) -> Vec<f32> {
        let f = &self.simulation.fluid;
        let rho0 = f.rest_density();
        let g = f.settings.gravity.length();
        let mut out = Vec::with_capacity(4 * f.len());
        for i in 0..f.len() {
            let value = match colour {
                Colour::Density => (f.density[i] / rho0 - 0.98) / 0.04,
                Colour::Pressure => f.pressure[i] / (rho0 * g * 2.0 * A),
                Colour::Speed => f.v[i].length() / (2.0 * g * 2.0 * A).sqrt(),
            };
            let x: Vector = f.x[i];
            out.extend([
                x.x as f32,
                x.y as f32,
                x.z as f32,
                value.clamp(0.0, 1.0) as f32,
            ]);
        }
        out
    }

    /// Points along the walls' edges, Δx apart, 4 floats each (x, y, z, 0), for drawing: the box's
    /// twelve edges and, with the glass, its rim, its foot and twelve lines up its side (its inner
    /// surface, so the water inside stays in view).
    pub fn outline(&self) -> Vec<f32> {
        let dx = self.simulation.fluid.spacing();
        let mut points: Vec<Vector> = Vec::new();
        let line = |points: &mut Vec<Vector>, from: Vector, to: Vector| {
            let n = ((to - from).length() / dx).ceil().max(1.0) as usize;
            points.extend((0..=n).map(|k| from.lerp(to, k as f64 / n as f64)));
        };
        let [x0, y0, z0, x1, y1, z1] = self.bounds();
        let corner = |i: usize| {
            Vector::new(
                if i & 1 == 0 { x0 } else { x1 },
                if i & 2 == 0 { y0 } else { y1 },
                if i & 4 == 0 { z0 } else { z1 },
            )
        };
        for i in 0..8 {
            for bit in [1, 2, 4] {
                if i & bit == 0 {
                    line(&mut points, corner(i), corner(i | bit));
                }
            }
        }
        if let Some((glass, _)) = &self.glass {
            let around = (2.0 * std::f64::consts::PI * glass.radius / dx).ceil() as usize;
            for k in 0..around {
                let angle = 2.0 * std::f64::consts::PI * k as f64 / around as f64;
                let (c, s) = (angle.cos(), angle.sin());
                let at = |y: f64| {
                    Vector::new(
                        glass.axis_x + glass.radius * c,
                        y,
                        glass.axis_z + glass.radius * s,
                    )
                };
                points.extend([at(0.0), at(glass.height)]);
                if k % around.div_ceil(12) == 0 {
                    line(&mut points, at(0.0), at(glass.height));
                }
            }
        }
        points
            .iter()
            .flat_map(|p| [p.x as f32, p.y as f32, p.z as f32, 0.0])
            .collect()
    }

    /// The box the scene stands in: its lower and upper corners (for framing the camera).
    pub fn bounds(&self) -> [f64; 6] {
        match self.scene {
            Scene::DamBreak => [0.0, 0.0, 0.0, 4.0 * A, 2.5 * A, A],
            Scene::Glass => [0.0, 0.0, 0.0, 3.0 * A, 4.0 * A, 3.0 * A],
        }
    }
}

/// The fastest the pointer's stir drives the water (m/s): about twice the collapse's free-fall speed
/// √(2 g 2a), so a flick of the pointer cannot ask for a step far below the CFL step of the flow.
pub const MAX_STIR_SPEED: f64 = 2.0;

/// The pointer's stir at `centre` moving at `velocity` (its speed capped at [`MAX_STIR_SPEED`]): a
/// ball of radius a/2 pulling the water in it to the pointer's velocity within a sixtieth of a
/// second (`Fluid::non_pressure_accelerations`, as the 2D lesson's disc). Larger and quicker than the
/// 2D lesson's a/4 and 1/20 s: a ball of a/4 holds a handful of particles at the coarse resolutions,
/// and against incompressible water and XSPH the slower pull barely moved them (measured at 6 across,
/// ξ = 0.5: the largest speed 0.17 m/s stirred at 0.5 m/s, against 0.16 unstirred; 0.41 now).
/// Rate × Δt stays below 1/3 at the page's longest step (1/240 s), so the pull cannot overshoot.
pub fn stir(centre: Vector, velocity: Vector) -> Stir {
    Stir {
        centre,
        velocity: velocity.clamp_length_max(MAX_STIR_SPEED),
        radius: 0.5 * A,
        rate: 60.0,
    }
}

/// Set ξ, the iteration limits and the speed of sound (`sound` × √(2 g 2a)) on a simulation.
pub fn apply(simulation: &mut FluidSimulation, settings: Settings) {
    simulation.fluid.settings.xsph = settings.xsph;
    simulation.dfsph.max_iterations = settings.iterations;
    simulation.pbf.max_iterations = settings.iterations;
    let g = simulation.fluid.settings.gravity.length();
    simulation.wcsph.speed_of_sound = settings.sound * (2.0 * g * 2.0 * A).sqrt();
}

/// Martin & Moyce's front Z at T, linearly interpolated in their table; None outside it.
pub fn martin_moyce_at(t: f64) -> Option<f64> {
    MARTIN_MOYCE_FRONT.windows(2).find_map(|w| {
        let ((t0, z0), (t1, z1)) = (w[0], w[1]);
        (t0..=t1)
            .contains(&t)
            .then(|| z0 + (z1 - z0) * (t - t0) / (t1 - t0))
    })
}

#[cfg(test)]
mod tests;
