//! A deformable phyxel body in the fluid, coupled both ways (issue 19 item 4), after Akinci, Ihmsen,
//! Akinci, Solenthaler and Teschner 2012, "Versatile rigid-fluid coupling for incompressible SPH",
//! §3.3–3.4, with the rigid body replaced by the 2D meshless elastic solid of the cracks lesson
//! ([`Solid`]: MKN04's MLS deformation gradient, plane stress, fracture off).
//!
//! - The fluid sees the body's particles k as moving boundary particles with volumes V_k, in its
//!   density ρ₀ V_k W_ik and its pressure acceleration −ρ₀ V_k (p_i/ρ_i²) ∇W_ik, as it sees the walls
//!   ([`super::boundary`]). V_k is the phyxel's own volume m_k/ρ_body (a² on the lattice), not
//!   Akinci's V_k = 1/Σ_l W(x_k − x_l) over the body's particles (their eq. 4, kept as
//!   [`FloatingBody::akinci_volumes`]): eq. 4 is made for a single layer of boundary samples, and on a
//!   filled body it gives the outer layer, which has neighbours on one side only, about 1.4 a² — the
//!   water beside it is over-dense and pushes too hard. Measured (WCSPH, ρ_body = 0.5 ρ₀, a tank 1 m
//!   wide at Δx = 0.02 m, mean over 3–4 s): submerged fraction 0.445 with eq. 4 (−11 %), 0.475 with
//!   m_k/ρ_body (−5 %); the tests' tank gives 0.484 and 0.495 at Δx = 0.02 and 0.01 m.
//! - Each body particle takes the reaction F_k = m ρ₀ V_k (p_i/ρ_i²) ∇W_ik summed over the fluid
//!   particles i (their eq. 10): equal and opposite, so the coupling exchanges momentum exactly. The
//!   solvers book it as an impulse in [`super::fluid::Fluid::boundary_impulse`] (DFSPH: each
//!   iteration's κ_i/ρ_i in place of p_i/ρ_i²; PBF: the momentum m Δx_i/Δt its wall term moves; the
//!   walls' hard constraint: the momentum it takes from a particle, in PBF the momentum m d n̂/Δt its
//!   push d n̂ of a predicted position gives, [`Fluid::keep_off_walls_predicted`]).
//! - The body then steps over the fluid's Δt with those forces, its elastic forces and gravity,
//!   by symplectic Euler in substeps of at most 0.25 a/c (c its plane-stress wave speed). Its particles
//!   are kept in the tank (inelastically) by the walls' box.
//!
//! DFSPH's Dρ/Dt takes the body particles' velocities v_b (Akinci et al. 2012 §3.4: Σ_b ρ₀ V_b
//! (v_i − v_b)·∇W_ib), set with their positions at the start of the step.
//!
//! **Stability (measured, 2026-11-24).** The coupling is explicit (the fluid steps against the body's
//! positions at the start of the step, the body then against the fluid's impulses), and a body lighter
//! than the water it moves is the hard case for that. WCSPH, whose pressure answers through sound waves
//! at its small CFL step, floats ρ_body = 0.5 ρ₀ calmly. DFSPH so coupled, at its usual 1/240 s and at
//! 2 ms, threw the same body out of the water within 3 s (the bobbing grew each period); at 1 ms
//! ([`COUPLED_DT_MAX`]) it floated at Δx = 0.02 m, but at Δx = 0.01 m a particle left the tank at t
//! = 0.75 s (measured again 2026-12-03).
//!
//! **DFSPH: the body inside the solves (2026-12-03).** So with DFSPH the body takes part in both
//! pressure solves as a rigid body ([`RigidModes`], built by [`FloatingBody::rigid_modes`]: its
//! translations and its rotation about the centre of mass): its predicted velocity v_k + Δt g enters
//! the density rates, the solves find the pressures of water and body together (the coupled
//! system A + B of `super::rigid_modes`), and the body receives the fluid's impulses as its modes carry them
//! ([`RigidModes::spread`]: the same momentum and angular momentum, each particle's share m_k times the
//! rigid velocity change), so it moves as the solves took it to. Measured in the coupling tests' calm
//! tank (ρ_body = 0.5 ρ₀, over 2–4 s): submerged 0.4957 / 0.5036 at Δx = 0.02 / 0.01 m with Δt ≤ 1 ms,
//! 0.4911 / 0.5028 at 2 ms and 0.4920 / 0.5048 at 1/240 s, no particle out of the tank. Its parts
//! alone: with the impulses spread but the body outside the solves it floats too (0.4823–0.5072 over
//! the same six runs); with the body in the solves but the impulses left
//! where they fell, a particle left the tank at t = 0.26 s (Δx = 0.02 m, 1 ms) — the body's particles
//! under the water take the whole push, and an elastic wave crosses the body in 6 ms, six of these
//! steps. The body still deforms under its weight and its elastic forces; only the fluid's push is
//! spread. So DFSPH steps a body at its own Δt ([`FloatingBody::solved_dt_max`]).
//!
//! **PBF: the body inside the position solve (2026-12-07).** PBF so coupled explicitly set the same
//! light body bobbing harder each period until it threw a particle out of the calm tank (t = 1.74 s,
//! Δx = 0.02 m, Δt ≤ 1 ms; measured 2026-12-03). Now the body starts at its predicted positions with
//! the fluid's x*, each iteration's pushes move it as its rigid modes carry them, and the constraints
//! it touches count its inverse modal masses (`super::pbf`, "A body inside the solve"); after the step
//! its velocity comes from the same impulses, spread as with DFSPH. Calm tank, ρ_body = 0.5 ρ₀:
//! submerged 0.4914 / 0.5043 at Δx = 0.02 / 0.01 m (Δt ≤ 1 ms) and 0.4883 at PBF's own step (up to
//! 1/240 s), so PBF too steps a body at its own Δt.
//!
//! **Retries.** Where a heavy body squeezes a film of water against the floor, the water leaves faster
//! than the step's CFL bound (taken from the velocities before the step) foresaw and the fluid refuses
//! the step as a blow-up; the coupled step is then taken again at half the Δt, up to [`RETRIES`] times
//! (on the page's dam break with a 3 ρ₀ body, 4 s: 2–3 retries with PBF at 20–40 across).

use super::boundary::Boundary;
use super::error::FluidError;
use super::fluid::{Fluid, StepReport};
use super::kernel::Vector;
use super::rigid_modes::RigidModes;
use super::simulation::{FluidSimulation, Solver};
use crate::lessons::cracks::crack::Criterion;
use crate::lessons::cracks::solid::{rotation_of, Material, Solid};

/// The body's support radius over its spacing (the cracks lesson's 2.5).
pub const BODY_SUPPORT_RATIO: f64 = 2.5;
/// The body's plane-stress wave speed over √(g H) (H its height): its own weight then strains it by
/// about (1/20)² — a deformable body that keeps its shape.
pub const WAVE_SPEED_RATIO: f64 = 20.0;
/// The CFL number of the body's speed: the coupled step moves no body particle farther than this times Δx.
pub const BODY_CFL: f64 = 0.4;

/// The longest coupled step (s) with WCSPH, whose body is coupled explicitly: DFSPH's explicit
/// coupling with a light body diverged at 2 ms and floated it at 1 ms (see the module's note). With
/// DFSPH and PBF, the body inside their solves, the step is the solver's own
/// ([`FloatingBody::solved_dt_max`]).
pub const COUPLED_DT_MAX: f64 = 1e-3;

/// How many times a refused coupled step is taken again at half the Δt ([`FloatingBody::step`]).
pub const RETRIES: u32 = 3;

/// A rectangular block of the body's material: its lower-left corner, size and density ρ_body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Block {
    pub lower_left: Vector,
    pub width: f64,
    pub height: f64,
    /// ρ_body (kg/m², per unit depth in 2D).
    pub density: f64,
}

/// The body in the fluid and what the coupling keeps of it.
#[derive(Clone, Debug)]
pub struct FloatingBody {
    pub solid: Solid,
    pub block: Block,
    /// The index of the body's first boundary particle in the fluid's (the walls come before it).
    pub first: usize,
    /// Akinci's volumes V_k of the body's particles at their current positions.
    pub volume: Vec<f64>,
    /// The box the body's particles stay in (the tank's inside, half a spacing in from the walls).
    pub container: (Vector, Vector),
    pub gravity: Vector,
    /// Whether the body's volumes are Akinci's eq. 4 (true) or its particles' own V_k = m_k/ρ_body
    /// (false, the default: eq. 4 floated the body 11 % high, see the module's note).
    pub akinci_volumes: bool,
    /// The longest coupled step (s) with WCSPH, [`COUPLED_DT_MAX`] unless changed.
    pub dt_max: f64,
    /// The longest coupled step (s) with DFSPH and PBF, which take the body inside their solves:
    /// unbounded (the solver's own step) unless changed. Measured with DFSPH at DFSPH's own step (up to 1/240 s): the calm tank
    /// floats 0.5 ρ₀ within 1.6 %, and the page's dam break with bodies of 0.3, 0.5 and 3 ρ₀ at 20,
    /// 30 and 40 across ran 4 s with no particle out of the tank or inside the body (2026-12-03); with
    /// PBF the same nine runs too (2026-12-07).
    pub solved_dt_max: f64,
    /// The total force the fluid put on the body in the last step, Σ_k F_k (N per metre of depth).
    pub fluid_force: Vector,
    /// The steps taken again at half the Δt so far ([`FloatingBody::step`]).
    pub retries: u64,
}

impl FloatingBody {
    /// A block of particles at spacing Δx (the fluid's) filling `block`, added to `simulation`'s
    /// boundary, kept inside `container` (the tank's inside). Refused: a density that is not a positive
    /// number, a block of fewer than 2 × 2 particles, out of the container, or overlapping the fluid.
    pub fn new(
        simulation: &mut FluidSimulation,
        block: Block,
        container: (Vector, Vector),
    ) -> Result<Self, FluidError> {
        let fluid = &simulation.fluid;
        let a = fluid.spacing();
        if !(block.density.is_finite() && block.density > 0.0) {
            return Err(FluidError::BadInput(format!(
                "body: the density ρ_body = {} must be a positive number",
                block.density
            )));
        }
        let nx = (block.width / a).round();
        let ny = (block.height / a).round();
        if !(nx >= 2.0 && ny >= 2.0 && nx * ny <= 20_000.0 && block.lower_left.is_finite()) {
            return Err(FluidError::BadInput(format!(
                "body: a block {} × {} m is not 2 to 20 000 particles of Δx = {a} m",
                block.width, block.height
            )));
        }
        let (nx, ny) = (nx as usize, ny as usize);
        let reference: Vec<Vector> = (0..ny)
            .flat_map(|j| {
                (0..nx).map(move |i| {
                    block.lower_left + Vector::new((i as f64 + 0.5) * a, (j as f64 + 0.5) * a)
                })
            })
            .collect();
        let inner = (
            container.0 + Vector::splat(0.5 * a),
            container.1 - Vector::splat(0.5 * a),
        );
        if reference
            .iter()
            .any(|p| p.cmplt(inner.0 - 1e-9).any() || p.cmpgt(inner.1 + 1e-9).any())
        {
            return Err(FluidError::BadInput(
                "body: the block must lie inside the tank".into(),
            ));
        }
        let (lo, hi) = (
            block.lower_left,
            block.lower_left + Vector::new(nx as f64 * a, ny as f64 * a),
        );
        if fluid
            .x
            .iter()
            .any(|p| p.cmpgt(lo - 0.5 * a).all() && p.cmplt(hi + 0.5 * a).all())
        {
            return Err(FluidError::BadInput(
                "body: the block overlaps the fluid; drop it from above the surface".into(),
            ));
        }
        let g = fluid.settings.gravity.length();
        let speed = WAVE_SPEED_RATIO * (g.max(1.0) * block.height).sqrt();
        let poisson = 0.3;
        let material = Material {
            young: block.density * speed * speed * (1.0 - poisson * poisson),
            poisson,
            density: block.density,
            strength: f64::INFINITY,
            c_prop: 0.0,
        };
        let mut solid = Solid::new(
            reference,
            a,
            BODY_SUPPORT_RATIO * a,
            material,
            Criterion::Visibility,
            Vec::new(),
        );
        solid.fracture = false;
        let mut body = Self {
            solid,
            block,
            first: fluid.boundary.x.len(),
            volume: Vec::new(),
            container,
            gravity: fluid.settings.gravity,
            akinci_volumes: false,
            dt_max: COUPLED_DT_MAX,
            solved_dt_max: f64::INFINITY,
            fluid_force: Vector::ZERO,
            retries: 0,
        };
        body.place(simulation)?;
        Ok(body)
    }

    /// The body's particles as the fluid's moving boundary at their current positions, with their
    /// volumes V_k (m_k/ρ_body; Akinci et al. 2012 eq. 4 over the body's own particles where
    /// `akinci_volumes`); the fluid's neighbours and densities are retaken and DFSPH's α forgotten.
    pub fn place(&mut self, simulation: &mut FluidSimulation) -> Result<(), FluidError> {
        let fluid = &mut simulation.fluid;
        if self.akinci_volumes {
            let boundary = Boundary::new(self.solid.positions.clone(), &fluid.kernel)?;
            self.volume = boundary.volume;
        } else {
            let density = self.block.density;
            self.volume.clear();
            self.volume
                .extend(self.solid.masses().iter().map(|m| m / density));
        }
        fluid.boundary_velocity.clear();
        fluid.boundary_velocity.resize(self.first, Vector::ZERO);
        fluid
            .boundary_velocity
            .extend_from_slice(&self.solid.velocities);
        fluid.set_moving_boundary(self.first, &self.solid.positions, &self.volume)?;
        fluid.find_neighbours()?;
        fluid.compute_densities();
        simulation.dfsph.invalidate();
        Ok(())
    }

    /// The fastest body particle's speed.
    pub fn max_speed(&self) -> f64 {
        self.solid
            .velocities
            .iter()
            .map(|v| v.length())
            .fold(0.0, f64::max)
    }

    /// The coupled step's Δt: the solver's (or the fixed one), at most `dt_max` (with DFSPH and PBF
    /// `solved_dt_max`) and [`BODY_CFL`] Δx / v_body.
    pub fn time_step(&self, simulation: &FluidSimulation) -> f64 {
        let dt = simulation
            .fixed_dt
            .unwrap_or_else(|| simulation.time_step());
        let dt = dt.min(match simulation.solver {
            Solver::Dfsph | Solver::Pbf => self.solved_dt_max,
            Solver::Wcsph => self.dt_max,
        });
        let v = self.max_speed();
        if v > 0.0 {
            dt.min(BODY_CFL * simulation.fluid.spacing() / v)
        } else {
            dt
        }
    }

    /// The body's explicit substep bound 0.25 a / c, c = √(E / (ρ (1 − ν²))) (as the cracks lesson's).
    pub fn stable_step(&self) -> f64 {
        let m = &self.solid.material;
        let c = (m.young / (m.density * (1.0 - m.poisson * m.poisson))).sqrt();
        0.25 * self.solid.spacing / c
    }

    /// One coupled step: the body placed as boundary, the fluid stepped by its solver booking the body
    /// particles' reactions, then the body stepped over the same Δt with them. A refused fluid step
    /// leaves both as they were.
    ///
    /// A step the fluid refuses as a blow-up (a particle moved more than half its support radius,
    /// `Fluid::check_step`) is taken again at half the Δt, up to [`RETRIES`] times: where the body
    /// squeezes a film of water against a wall, the water leaves faster than the step's CFL bound
    /// (taken from the velocities before the step) foresaw.
    pub fn step(&mut self, simulation: &mut FluidSimulation) -> Result<StepReport, FluidError> {
        let mut dt = self.time_step(simulation);
        let mut retries = 0u32;
        loop {
            match self.step_over(simulation, dt) {
                Err(FluidError::BlowUp(_)) if retries < RETRIES => {
                    retries += 1;
                    dt *= 0.5;
                }
                result => {
                    self.retries += u64::from(retries);
                    return result;
                }
            }
        }
    }

    /// One coupled step of `dt` ([`FloatingBody::step`]).
    fn step_over(
        &mut self,
        simulation: &mut FluidSimulation,
        dt: f64,
    ) -> Result<StepReport, FluidError> {
        self.place(simulation)?;
        if simulation.solver != Solver::Wcsph {
            // Inside DFSPH's or PBF's solve: the body's predicted velocity v_k + Δt g.
            for v in &mut simulation.fluid.boundary_velocity[self.first..] {
                *v += dt * self.gravity;
            }
        }
        match simulation.solver {
            // DFSPH's solves take the predicted velocity and the rigid modes.
            Solver::Dfsph => simulation.dfsph.body = Some(self.rigid_modes()),
            Solver::Pbf => {
                // PBF's position solve starts from the predicted positions x_k + Δt (v_k + Δt g),
                // as the fluid's x*, and moves them by the rigid modes.
                let fluid = &mut simulation.fluid;
                let predicted: Vec<Vector> = self
                    .solid
                    .positions
                    .iter()
                    .zip(&fluid.boundary_velocity[self.first..])
                    .map(|(x, v)| *x + dt * *v)
                    .collect();
                fluid.set_moving_boundary(self.first, &predicted, &self.volume)?;
                simulation.pbf.body = Some(self.rigid_modes());
            }
            Solver::Wcsph => {}
        }
        let fluid = &mut simulation.fluid;
        fluid.boundary_impulse.clear();
        fluid
            .boundary_impulse
            .resize(fluid.boundary.x.len(), Vector::ZERO);
        let saved = simulation.fixed_dt;
        simulation.fixed_dt = Some(dt);
        let result = simulation.step();
        simulation.fixed_dt = saved;
        let modes = simulation
            .dfsph
            .body
            .take()
            .or_else(|| simulation.pbf.body.take());
        let report = result?;
        let impulse = std::mem::take(&mut simulation.fluid.boundary_impulse);
        match modes {
            // The body answers as the solves took it to: the fluid's impulses as its modes carry them.
            Some(modes) => {
                let spread = modes.spread(&impulse[self.first..], self.solid.masses());
                self.advance(&spread, dt);
            }
            None => self.advance(&impulse[self.first..], dt),
        }
        simulation.fluid.boundary_impulse = impulse;
        Ok(report)
    }

    /// Symplectic Euler over Δt in substeps of at most [`FloatingBody::stable_step`], with the fluid's
    /// impulses J_k spread evenly (F_k = J_k/Δt), gravity and the elastic forces; particles leaving the
    /// container are put back on its side and lose their velocity into it.
    fn advance(&mut self, impulse: &[Vector], dt: f64) {
        let substeps = (dt / self.stable_step()).ceil().max(1.0) as usize;
        let h = dt / substeps as f64;
        let a = self.solid.spacing;
        let (lo, hi) = (
            self.container.0 + Vector::splat(0.5 * a),
            self.container.1 - Vector::splat(0.5 * a),
        );
        self.fluid_force = impulse.iter().copied().sum::<Vector>() / dt;
        for _ in 0..substeps {
            self.solid.evaluate();
            let s = &mut self.solid;
            let masses = s.masses().to_vec();
            let forces = s.forces().to_vec();
            for k in 0..masses.len() {
                let force = forces[k] + impulse[k] / dt + masses[k] * self.gravity;
                s.velocities[k] += force * (h / masses[k]);
                s.positions[k] += s.velocities[k] * h;
                let p = s.positions[k];
                let clamped = p.clamp(lo, hi);
                if clamped != p {
                    s.positions[k] = clamped;
                    if clamped.x != p.x {
                        s.velocities[k].x = 0.0;
                    }
                    if clamped.y != p.y {
                        s.velocities[k].y = 0.0;
                    }
                }
            }
        }
        self.solid.steps += 1;
    }

    /// The body's rigid modes as the fluid's boundary particles first..: the two translations and the
    /// rotation about its centre of mass, u(x_k) = ẑ × (x_k − c) (orthogonal in the mass matrix).
    pub fn rigid_modes(&self) -> RigidModes {
        let n = self.solid.len();
        let c = self.centre();
        let rotation = self
            .solid
            .positions
            .iter()
            .map(|x| (*x - c).perp())
            .collect();
        RigidModes::new(
            self.first,
            self.solid.masses(),
            vec![vec![Vector::X; n], vec![Vector::Y; n], rotation],
        )
    }

    /// The body's mass Σ m_k.
    pub fn mass(&self) -> f64 {
        self.solid.masses().iter().sum()
    }

    /// The body's momentum Σ m_k v_k.
    pub fn momentum(&self) -> Vector {
        self.solid.momentum()
    }

    /// The bottom of the body's lowest particle's cell (its lowest particle half a spacing below it).
    pub fn bottom(&self) -> f64 {
        let a = self.solid.spacing;
        self.solid
            .positions
            .iter()
            .map(|p| p.y - 0.5 * a)
            .fold(f64::INFINITY, f64::min)
    }

    /// The body's centre of mass.
    pub fn centre(&self) -> Vector {
        let s = &self.solid;
        s.positions
            .iter()
            .zip(s.masses())
            .map(|(x, m)| *x * *m)
            .sum::<Vector>()
            / self.mass()
    }

    /// The fraction of the body below the level y = `level`: each particle stands for its a × a cell
    /// and counts by the part of the cell's height below the level.
    pub fn submerged_fraction(&self, level: f64) -> f64 {
        let a = self.solid.spacing;
        let sum: f64 = self
            .solid
            .positions
            .iter()
            .map(|p| ((level - (p.y - 0.5 * a)) / a).clamp(0.0, 1.0))
            .sum();
        sum / self.solid.len() as f64
    }

    /// The fraction of the body below the free surface of `fluid`, measured away from the body
    /// ([`surface_level`] beyond its half-width and 2h); `None` without water there.
    pub fn submerged_in(&self, fluid: &Fluid) -> Option<f64> {
        let clearance = 0.5 * self.block.width + 2.0 * fluid.kernel.h;
        let level = surface_level(fluid, self.centre().x, clearance)?;
        Some(self.submerged_fraction(level))
    }

    /// The fluid particles inside the body: mapped back by the body's fitted rotation and centre, those
    /// inside the rectangle of its outermost particles' centres.
    pub fn fluid_inside(&self, fluid: &Fluid) -> usize {
        let s = &self.solid;
        let n = s.len() as f64;
        let c = s.positions.iter().copied().sum::<Vector>() / n;
        let c0 = s.reference.iter().copied().sum::<Vector>() / n;
        let (mut apq, mut aqq) = (glam::DMat2::ZERO, glam::DMat2::ZERO);
        for (x, x0) in s.positions.iter().zip(&s.reference) {
            let (p, q) = (*x - c, *x0 - c0);
            apq += outer(p, q);
            aqq += outer(q, q);
        }
        let rotation = rotation_of(apq * aqq.inverse());
        let (lo, hi) = super::boundary::bounds(&s.reference);
        fluid
            .x
            .iter()
            .filter(|&&p| {
                let q = rotation.transpose() * (p - c) + c0;
                q.cmpgt(lo).all() && q.cmplt(hi).all()
            })
            .count()
    }
}

fn outer(a: Vector, b: Vector) -> glam::DMat2 {
    glam::DMat2::from_cols(a * b.x, a * b.y)
}

/// The free surface's height away from the body: over the fluid particles farther than `clearance`
/// from x = `x_body` horizontally, in columns Δx wide, the median of each column's highest particle,
/// plus Δx/2 (the particle's cell). `None` without such particles.
pub fn surface_level(fluid: &Fluid, x_body: f64, clearance: f64) -> Option<f64> {
    let a = fluid.spacing();
    let mut tops: std::collections::BTreeMap<i64, f64> = std::collections::BTreeMap::new();
    for p in &fluid.x {
        if (p.x - x_body).abs() > clearance {
            let top = tops.entry((p.x / a).floor() as i64).or_insert(f64::MIN);
            *top = top.max(p.y);
        }
    }
    let mut heights: Vec<f64> = tops.into_values().collect();
    if heights.is_empty() {
        return None;
    }
    heights.sort_by(f64::total_cmp);
    Some(heights[heights.len() / 2] + 0.5 * a)
}
