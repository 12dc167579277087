//! A fluid and the solver that steps it, chosen and switched at run time: WCSPH, DFSPH or PBF. The
//! time step follows the CFL condition of the solver in use; a refused step leaves the state as it was.

use super::dfsph::Dfsph;
use super::error::FluidError;
use super::fluid::{Fluid, StepReport};
use super::kernel::Vector;
use super::pbf::Pbf;
use super::wcsph::Wcsph;

/// The solvers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// Weakly compressible SPH (seed 002 §6).
    Wcsph,
    /// Divergence-free SPH (Bender & Koschier 2015).
    Dfsph,
    /// Position-based fluids (Macklin & Müller 2013).
    Pbf,
}

impl Solver {
    pub const ALL: [Solver; 3] = [Solver::Wcsph, Solver::Dfsph, Solver::Pbf];

    /// The public name (URL and message value).
    pub fn id(self) -> &'static str {
        match self {
            Solver::Wcsph => "wcsph",
            Solver::Dfsph => "dfsph",
            Solver::Pbf => "pbf",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Solver::Wcsph => "WCSPH",
            Solver::Dfsph => "DFSPH",
            Solver::Pbf => "PBF",
        }
    }

    pub fn from_id(id: &str) -> Result<Solver, FluidError> {
        Solver::ALL
            .into_iter()
            .find(|s| s.id() == id)
            .ok_or_else(|| {
                FluidError::BadInput(format!("solver: {id:?} is not one of wcsph, dfsph, pbf"))
            })
    }
}

/// A fluid stepped by one of the solvers.
#[derive(Clone, Debug)]
pub struct FluidSimulation {
    pub fluid: Fluid,
    pub solver: Solver,
    pub wcsph: Wcsph,
    pub dfsph: Dfsph,
    pub pbf: Pbf,
    /// The longest step the incompressible solvers take (s); WCSPH's is its CFL bound.
    pub dt_max: f64,
    /// A fixed Δt instead of the CFL step (the bad-input tests use it to violate the bound).
    pub fixed_dt: Option<f64>,
    /// The last step's report.
    pub last: StepReport,
    steps: u64,
}

impl FluidSimulation {
    /// `fluid` stepped by `solver`; neighbours and densities are computed for its positions.
    pub fn new(
        mut fluid: Fluid,
        solver: Solver,
        wcsph: Wcsph,
        dt_max: f64,
    ) -> Result<Self, FluidError> {
        if !(dt_max.is_finite() && dt_max > 0.0) {
            return Err(FluidError::BadInput(
                "the largest time step must be positive".into(),
            ));
        }
        fluid.find_neighbours()?;
        fluid.compute_densities();
        Ok(Self {
            fluid,
            solver,
            wcsph,
            dfsph: Dfsph::default(),
            pbf: Pbf::default(),
            dt_max,
            fixed_dt: None,
            last: StepReport::default(),
            steps: 0,
        })
    }

    /// Switch solvers; the particles, their velocities and the time carry over.
    pub fn set_solver(&mut self, solver: Solver) {
        if solver != self.solver {
            self.solver = solver;
            self.dfsph.invalidate();
        }
    }

    /// The step the CFL condition allows the current solver now.
    pub fn time_step(&self) -> f64 {
        match self.solver {
            Solver::Wcsph => self.wcsph.time_step(&self.fluid),
            Solver::Dfsph => self.dfsph.time_step(&self.fluid, self.dt_max),
            Solver::Pbf => self.pbf.time_step(&self.fluid, self.dt_max),
        }
    }

    /// One step (the CFL step or the fixed one). A refused step leaves the state before it.
    pub fn step(&mut self) -> Result<StepReport, FluidError> {
        let dt = self.fixed_dt.unwrap_or_else(|| self.time_step());
        self.fluid.save();
        let result = match self.solver {
            Solver::Wcsph => self.wcsph.step(&mut self.fluid, dt),
            Solver::Dfsph => self.dfsph.step(&mut self.fluid, dt),
            Solver::Pbf => self.pbf.step(&mut self.fluid, dt),
        };
        let report = match result {
            Ok(report) => report,
            Err(error) => {
                self.fluid.restore();
                self.dfsph.invalidate();
                return Err(error);
            }
        };
        if let Err(error) = self.fluid.check_step(dt, self.solver.name()) {
            self.dfsph.invalidate();
            return Err(error);
        }
        self.steps += 1;
        self.last = report;
        Ok(report)
    }

    /// Steps until `duration` more seconds are simulated, landing on it: each step divides what is
    /// left, T, into n = ⌈T/Δt⌉ equal parts (Δt the CFL or the fixed step) and takes one, T/n ≤ Δt.
    /// No step is then much shorter than Δt/2 unless `duration` itself is. (Until 2026-11-29 the
    /// last step was shortened to what was left, as short as it came: a DFSPH column at rest settled
    /// for 1 s ended with a step of 4·10⁻⁵ s, 1/35 of its CFL step, and its constant-density solve,
    /// which removes the density error left within that Δt, threw the column up 4 mm — kinetic energy
    /// 100× its rest value, the averaged bottom pressure over the next 0.25 s 0.91 ρ₀gH instead of
    /// 1.06. Which runs hit such a sliver was chance: a 10⁻⁷ change of ∇W decided it.)
    pub fn advance(&mut self, duration: f64) -> Result<u32, FluidError> {
        let end = self.fluid.time + duration;
        let mut steps = 0;
        while self.fluid.time < end - 1e-12 {
            let saved = self.fixed_dt;
            let dt = saved.unwrap_or_else(|| self.time_step());
            let left = end - self.fluid.time;
            self.fixed_dt = Some(left / (left / dt).ceil().max(1.0));
            let result = self.step();
            self.fixed_dt = saved;
            result?;
            steps += 1;
        }
        Ok(steps)
    }

    /// Add particles at `points` moving at `velocity` ([`Fluid::emit`]); DFSPH's warm start, which
    /// is per particle, starts over.
    pub fn emit(&mut self, points: &[Vector], velocity: Vector) -> Result<(), FluidError> {
        self.fluid.emit(points, velocity)?;
        self.dfsph.invalidate();
        Ok(())
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }
}
