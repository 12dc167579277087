//! `phyxel-bench sph [--across 35,71] [--steps S] [--threads N]`: the SPH fluids lesson's dam break (a column a × 2a
//! in a closed box 4a × 3a, a = 0.5 m, `crate::lessons::sph_fluids::dam_break` with the page's ξ,
//! iteration limit and speed of sound) at `across` particles across a (2 across² particles: 35 →
//! 2 450, 71 → 10 082), stepped S times from the release by each solver (WCSPH, DFSPH, PBF) on
//! `--threads` threads (1 by default), each at its own CFL step. Per run: steps/s, the cost of a particle-step, the simulated time
//! reached, the pressure solver's mean iterations per step, the mean and worst of the steps' mean
//! density errors, the largest speed.
//! `phyxel-bench sph3d [--across 10,29] …`: the same for the 3D fluid's dam break ([`run_3d`]).
//! One JSON object with the machine and the date (issue 19's bench).

use phyxel::fluids::{FluidSimulation, Solver};
use phyxel::lessons::sph_fluids::{dam_break, Settings};
use serde::Serialize;
use std::time::Instant;

#[derive(Serialize)]
pub struct SphRun {
    solver: &'static str,
    across: usize,
    particles: usize,
    steps: usize,
    steps_per_s: f64,
    /// Wall time of one particle-step (ns): the step's time over the particle count.
    ns_per_particle_step: f64,
    /// Simulated time at the end of the timed steps (s).
    simulated_s: f64,
    /// Pressure-solver iterations per step (DFSPH: density + divergence; PBF: its Jacobi iterations;
    /// WCSPH: 1).
    mean_iterations: f64,
    max_iterations: u32,
    /// The mean over the steps of each step's mean density error (compression, of ρ₀), and the worst step's.
    mean_density_error: f64,
    worst_density_error: f64,
    /// The largest speed over the run (m/s); the collapse's free fall from 2a is √(2 g 2a) = 4.4 m/s.
    max_speed: f64,
    /// Mean fluid neighbours per particle (itself included) at the end.
    mean_neighbours: f64,
    /// Σ_i (x_i + y_i) at the end, all digits: equal in two builds when a change left the arithmetic
    /// bit for bit as it was.
    position_checksum: String,
}

#[derive(Serialize)]
pub struct SphReport {
    scene: &'static str,
    machine: String,
    date: String,
    threads: usize,
    runs: Vec<SphRun>,
}

fn run_one(solver: Solver, across: usize, steps: usize) -> SphRun {
    // The page's defaults (ξ = 0.01, 100 iterations, c = 10 √(2 g 2a)); `across` may exceed the page's
    // range (`Settings::page_defaults` does not check it).
    let mut sim: FluidSimulation =
        dam_break(Settings::page_defaults(across), solver).expect("the dam break builds");
    let timed = time_steps(steps, || {
        let report = sim.step().map_err(|e| e.to_string())?;
        Ok((
            report.iterations,
            report.density_error,
            sim.fluid.max_speed(),
        ))
    })
    .unwrap_or_else(|e| panic!("{} at {across} across: {e}", solver.name()));
    let particles = sim.fluid.len();
    timed.run(
        solver.name(),
        across,
        particles,
        sim.fluid.time,
        sim.fluid.fluid_neighbours.pairs() as f64 / particles as f64,
        sim.fluid.x.iter().map(|x| x.x + x.y).sum(),
    )
}

/// What a run of timed steps gathered ([`time_steps`]).
struct Timed {
    steps: usize,
    seconds: f64,
    iterations: u64,
    most: u32,
    error_sum: f64,
    worst: f64,
    fastest: f64,
}

/// Times `steps` calls of `step`, which returns each step's solver iterations, mean density error
/// and largest speed (or why the step was refused, with its index added here).
fn time_steps(
    steps: usize,
    mut step: impl FnMut() -> Result<(u32, f64, f64), String> + Send,
) -> Result<Timed, String> {
    let mut timed = Timed {
        steps,
        seconds: 0.0,
        iterations: 0,
        most: 0,
        error_sum: 0.0,
        worst: 0.0,
        fastest: 0.0,
    };
    let start = Instant::now();
    // The timed steps as one batch on the pool (as the browser's worker runs its steps).
    phyxel::parallel::in_pool(|| {
        for k in 0..steps {
            let (iterations, error, speed) = step().map_err(|e| format!("step {k}: {e}"))?;
            timed.iterations += u64::from(iterations);
            timed.most = timed.most.max(iterations);
            timed.error_sum += error;
            timed.worst = timed.worst.max(error);
            timed.fastest = timed.fastest.max(speed);
        }
        Ok::<(), String>(())
    })?;
    timed.seconds = start.elapsed().as_secs_f64();
    Ok(timed)
}

impl Timed {
    /// The run's JSON row, with the fluid's state at the end.
    fn run(
        &self,
        solver: &'static str,
        across: usize,
        particles: usize,
        simulated_s: f64,
        mean_neighbours: f64,
        checksum: f64,
    ) -> SphRun {
        let steps = self.steps as f64;
        SphRun {
            solver,
            across,
            particles,
            steps: self.steps,
            steps_per_s: steps / self.seconds,
            ns_per_particle_step: self.seconds * 1e9 / (steps * particles as f64),
            simulated_s,
            mean_iterations: self.iterations as f64 / steps,
            max_iterations: self.most,
            mean_density_error: self.error_sum / steps,
            worst_density_error: self.worst,
            max_speed: self.fastest,
            mean_neighbours,
            position_checksum: format!("{checksum:e}"),
        }
    }
}

/// The 3D dam break (`phyxel::fluids3d`): Martin & Moyce's column a × 2a × a (a = 0.5 m) in a closed
/// channel 4a × 3a × a, `across` particles across a (2 across³ particles: 29 → 48 778), WCSPH's
/// speed of sound 10 √(2 g 2a), Δt ≤ 2 ms, stepped `steps` times from the release.
/// Refused, with the reason, beyond the CPU's caps (`--backend gpu` goes further: [`crate::sph_gpu`]).
fn run_one_3d(
    solver: phyxel::fluids3d::Solver,
    across: usize,
    steps: usize,
) -> Result<SphRun, String> {
    use phyxel::fluids3d::{wcsph::Wcsph, Column, FluidSimulation};
    let a = 0.5;
    let mut column = Column::martin_moyce(a, 2.0, 4.0, 1.0, across);
    column.box_height = 3.0 * a;
    column.lid = true;
    let fluid = column.build().map_err(|e| {
        format!("the 3D dam break at {across} across on the CPU: {e} (--backend gpu goes further)")
    })?;
    let wcsph = Wcsph::for_height(column.gravity, column.column_height);
    let mut sim = FluidSimulation::new(fluid, solver, wcsph, 0.002).map_err(|e| e.to_string())?;
    let timed = time_steps(steps, || {
        let report = sim.step().map_err(|e| e.to_string())?;
        Ok((
            report.iterations,
            report.density_error,
            sim.fluid.max_speed(),
        ))
    })
    .map_err(|e| format!("{} at {across} across: {e}", solver.name()))?;
    let particles = sim.fluid.len();
    Ok(timed.run(
        solver.name(),
        across,
        particles,
        sim.fluid.time,
        sim.fluid.fluid_neighbours.pairs() as f64 / particles as f64,
        sim.fluid.x.iter().map(|x| x.x + x.y + x.z).sum(),
    ))
}

/// The 3D dam break ([`run_one_3d`]) at each count across by each solver.
pub fn run_3d(across: &[usize], steps: usize, solvers: &[Solver]) -> Result<SphReport, String> {
    let mut runs = Vec::new();
    for &n in across {
        for &solver in solvers {
            let solver = match solver {
                Solver::Wcsph => phyxel::fluids3d::Solver::Wcsph,
                Solver::Dfsph => phyxel::fluids3d::Solver::Dfsph,
                Solver::Pbf => phyxel::fluids3d::Solver::Pbf,
            };
            runs.push(run_one_3d(solver, n, steps)?);
        }
    }
    Ok(SphReport {
        scene: "3D sph dam break (channel 4a × 3a × a, closed)",
        machine: machine(),
        date: date(),
        threads: phyxel::parallel::thread_count(),
        runs,
    })
}

/// The CPU's model name (Linux's /proc/cpuinfo) and the number of hardware threads.
pub(crate) fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "{model}, {threads} hardware threads, {}",
        std::env::consts::OS
    )
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock (days to civil date: Hinnant's algorithm).
pub(crate) fn date() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

pub fn run(across: &[usize], steps: usize, solvers: &[Solver]) -> SphReport {
    let mut runs = Vec::new();
    for &n in across {
        for &solver in solvers {
            runs.push(run_one(solver, n, steps));
        }
    }
    SphReport {
        scene: "sph dam break (lesson's box, closed)",
        machine: machine(),
        date: date(),
        threads: phyxel::parallel::thread_count(),
        runs,
    }
}
