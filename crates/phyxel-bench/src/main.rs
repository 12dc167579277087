//! `cargo run --release -p phyxel-bench -- cube --n 20 [--threads N] [--steps S] [--backend cpu|gpu]`
//! `cargo run --release -p phyxel-bench -- implicit --n 10 [--threads N] [--steps S] [--backend cpu|gpu]`
//! `cargo run --release -p phyxel-bench -- cracks [--steps S]` (the cracks lesson's plate: [`cracks`])
//! `cargo run --release -p phyxel-bench -- fracture3d [--across R,…] [--threads N]` (the 3D
//! demo's notched bar and struck slab at resolution R, cracking against uncut: [`fracture3d`])
//! `cargo run --release -p phyxel-bench -- sph [--across 35,71] [--solver wcsph,dfsph,pbf] [--steps S] [--threads N]`
//! (the SPH fluids lesson's dam break per solver: [`sph`])
//! `cargo run --release -p phyxel-bench -- sph3d [--across 10,29] [--solver …] [--steps S] [--threads N]`
//! (the 3D fluid's dam break on the CPU: [`sph::run_3d`]); with `--backend gpu [--particles N,… |
//! --across N,…] [--steps S]` stepped by WCSPH on the GPU, up to about a million particles
//! ([`sph_gpu`]).
//! (`--window-bytes B` with `--backend gpu`: bind the rows and reverse lists in windows of B bytes, to
//! measure what windowed passes cost on a body that fits one binding.)
//!
//! The standard scene: an elastic cube of n × n × n phyxels on a cubic lattice with support radius
//! 1.9 × spacing (≈ 26–30 neighbours inside), dropped onto the ground. Prints one JSON object with the
//! throughput and the time of each pass. `--backend gpu` runs the same scene on the WebGPU compute
//! passes (`phyxel-gpu`, natively on Vulkan) and times whole submissions of `steps` steps.
//!
//! `implicit`: the same cube (support 2.2 × spacing, ν = 0.3, ρ = 1000 kg/m³, no volume term) with
//! corotated implicit Euler at Δt = 1/60 s for E = 10⁵, 10⁷ and 10⁹ Pa, dropped 5 cm onto the ground:
//! CG iterations per step and steps per second, one JSON object per stiffness.
//!
//! `--integration quadrature` (implicit and demo scenes, either backend): the same cube's particles with the elastic
//! energy integrated at the Gauss points of a background grid (Brunet et al. 2019 §3.3; 2 × 2 × 2 points
//! per cell of one spacing, shape-function support 1.8 spacings), next to the nodal model's numbers
//! for the same particles: steps/s, and the time of one force evaluation and one stiffness product
//! per particle, and the time of each pass of the step (`ms_per_phase`, CPU). On the GPU each step is
//! read back for its CG iterations, then as many steps again go in one submission
//! (`batched_steps_per_s`).
//!
//! `demo`: the same implicit step on the 3D demo's default scene (the jelly cube of 10 phyxels
//! across, E = 10⁵ Pa, dropped from 0.3 m; with `--integration quadrature` the demo's own quadrature,
//! 8000 points), one JSON object.
//!
//! Where to start reading: `main` parses the options and picks `run` (the CPU cube), `run_gpu` or
//! `run_implicit`; each fills a report that is printed as JSON. Measured numbers, with their machines
//! and dates, are in docs/benchmarks.md.

mod cpu_time;
mod cracks;
mod fracture3d;
mod sph;
mod sph_gpu;

use glam::DVec3;
use phyxel::meshless::body::{Body, SupportRadius};
use phyxel::meshless::implicit::{CorotatedImplicit, SolveStats};
use phyxel::meshless::material::Material;
use phyxel::meshless::quadrature::QuadratureSettings;
use phyxel::meshless::sampling::{sample, Lattice, Shape};
use phyxel::meshless::scene::{benchmark_cube, SceneDescription};
use phyxel::meshless::simulation::{Environment, Simulation};
use serde::Serialize;
use std::time::Instant;

#[derive(Serialize)]
struct PassTimes {
    /// Neighbours, densities, moment matrices and d_ij (once per reference shape).
    rebuild_reference_ms: f64,
    /// Displacement gradient, strain, stress and force matrix of every phyxel.
    phyxel_stresses_ms: f64,
    /// The force gather.
    gather_forces_ms: f64,
    /// One whole step (forces + integration + contact).
    step_ms: f64,
}

#[derive(Serialize)]
struct Report {
    scene: &'static str,
    backend: &'static str,
    /// The GPU adapter (GPU backend only).
    #[serde(skip_serializing_if = "Option::is_none")]
    adapter: Option<String>,
    phyxels: usize,
    mean_neighbours: f64,
    /// CPU threads (CPU backend only).
    #[serde(skip_serializing_if = "Option::is_none")]
    threads: Option<usize>,
    steps: usize,
    steps_per_s: f64,
    phyxel_steps_per_s: f64,
    neighbour_interactions_per_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ms_per_pass: Option<PassTimes>,
    /// GPU time of each pass of one step (mean of 5 profiled steps, timestamp queries), GPU backend
    /// only; absent where the device writes no timestamps.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_ms_per_pass: Option<Vec<GpuPassTime>>,
    /// Windows the rows and reverse lists are bound in (GPU backend only; 1: one binding each).
    #[serde(skip_serializing_if = "Option::is_none")]
    edge_windows: Option<u32>,
}

#[derive(Serialize)]
struct GpuPassTime {
    pass: String,
    ms: f64,
}

struct Options {
    implicit: bool,
    /// The implicit step on the 3D demo's default scene instead of the `implicit` cube.
    demo: bool,
    /// The cracks lesson's plate ([`cracks`]).
    cracks: bool,
    /// The 3D demo's fracture scenes ([`fracture3d`]), at the resolutions in `across`.
    fracture3d: bool,
    /// The SPH fluids lesson's dam break ([`sph`]), at these particle counts across, by these solvers.
    sph: bool,
    /// The 3D fluid's dam break ([`sph::run_3d`]).
    sph3d: bool,
    across: Vec<usize>,
    solvers: Vec<phyxel::fluids::Solver>,
    /// Whether `--solver` was given (`sph3d --backend gpu` steps WCSPH only).
    solvers_given: bool,
    n: usize,
    threads: usize,
    /// Whether `--threads` was given (the sph scenes run on one thread unless it was).
    threads_given: bool,
    steps: usize,
    gpu: bool,
    /// `--window-bytes`: bind the rows in windows of at most this many bytes (GPU backend).
    window_bytes: Option<u64>,
    /// `--integration quadrature`: background quadrature instead of nodal integration (implicit and
    /// demo scenes, both backends).
    quadrature: bool,
}

#[derive(Serialize)]
struct ImplicitReport {
    scene: &'static str,
    integration: &'static str,
    backend: &'static str,
    /// The GPU adapter (GPU backend only).
    #[serde(skip_serializing_if = "Option::is_none")]
    adapter: Option<String>,
    /// How the elastic energy is integrated: "nodal" (MKN04 volumes) or "quadrature" (background grid).
    energy_integration: &'static str,
    /// Integration points and shape-function edges (quadrature only).
    #[serde(skip_serializing_if = "Option::is_none")]
    integration_points: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shape_function_edges: Option<usize>,
    /// One elastic force evaluation and one stiffness product K·v (rotations frozen), mean of 20, per
    /// particle (µs) — the two passes the CG steps repeat (CPU only).
    #[serde(skip_serializing_if = "Option::is_none")]
    force_us_per_particle: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stiffness_product_us_per_particle: Option<f64>,
    /// The passes of one implicit step, ms per call (the fastest of 20, CPU only), at the body's state at
    /// the end of the run (resting on the ground, so the rotations are not all the identity).
    #[serde(skip_serializing_if = "Option::is_none")]
    ms_per_phase: Option<ImplicitPhases>,
    young: f64,
    dt: f64,
    /// The explicit stability bound h√(ρ/E), for comparison with Δt.
    cfl_time_step: f64,
    phyxels: usize,
    mean_neighbours: f64,
    /// CPU threads (CPU backend only).
    #[serde(skip_serializing_if = "Option::is_none")]
    threads: Option<usize>,
    steps: usize,
    /// CG tolerance (relative residual) and iteration limit.
    tolerance: f64,
    max_iterations: usize,
    cg_iterations_mean: f64,
    cg_iterations_max: usize,
    /// CG iterations of each step, in order.
    cg_iterations: Vec<usize>,
    worst_relative_residual: f64,
    unconverged_steps: usize,
    /// Steps per second; on the GPU each step is followed by a read-back of its CG statistics.
    steps_per_s: f64,
    /// GPU only: steps per second when `steps` further steps go in one submission with one read-back
    /// at the end (as the page queues a frame's steps), the body then resting on the ground.
    #[serde(skip_serializing_if = "Option::is_none")]
    batched_steps_per_s: Option<f64>,
    /// GPU only: the CG iterations of those batched steps' last one (the read-back's).
    #[serde(skip_serializing_if = "Option::is_none")]
    batched_last_cg_iterations: Option<usize>,
    /// GPU only: the windows the rows and reverse lists are bound in — the phyxels' and, with
    /// quadrature, the integration points' (1: one binding each).
    #[serde(skip_serializing_if = "Option::is_none")]
    edge_windows: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    quadrature_edge_windows: Option<u32>,
    /// CPU time of all the process's threads per step (ms; Linux only, from
    /// /proc/self/task/*/schedstat): on a shared, loaded machine the wall clock counts the waits for
    /// a core too, this does not (with several threads it counts their spinning as well).
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_ms_per_step: Option<f64>,
    /// The body's top height at the end (m) and its edge: it should rest on the ground, undeformed
    /// for a stiff material.
    final_top: f64,
    edge: f64,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        implicit: false,
        demo: false,
        cracks: false,
        fracture3d: false,
        sph: false,
        sph3d: false,
        across: vec![35, 71],
        solvers: phyxel::fluids::Solver::ALL.to_vec(),
        solvers_given: false,
        n: 20,
        threads: rayon::current_num_threads(),
        threads_given: false,
        steps: 100,
        gpu: false,
        window_bytes: None,
        quadrature: false,
    };
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("cube") | None => {}
        Some("implicit") => {
            options.implicit = true;
            options.n = 10;
        }
        Some("demo") => {
            options.implicit = true;
            options.demo = true;
            options.n = 10;
        }
        Some("cracks") => {
            options.cracks = true;
            options.steps = 4000;
        }
        Some("fracture3d") => {
            options.fracture3d = true;
            options.across = vec![10, 22];
        }
        Some("sph3d") => {
            options.sph3d = true;
            options.steps = 200;
            options.across = vec![10, 29];
        }
        Some("sph") => {
            options.sph = true;
            options.steps = 200;
        }
        Some(other) => {
            return Err(format!(
                "unknown scene {other:?} (known: cube, implicit, demo, cracks, sph, sph3d)"
            ))
        }
    }
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        if flag == "--backend" {
            options.gpu = match value.as_str() {
                "cpu" => false,
                "gpu" => true,
                other => return Err(format!("--backend {other:?}: known are cpu and gpu")),
            };
            continue;
        }
        if flag == "--integration" {
            options.quadrature = match value.as_str() {
                "nodal" => false,
                "quadrature" => true,
                other => {
                    return Err(format!(
                        "--integration {other:?}: known are nodal and quadrature"
                    ))
                }
            };
            continue;
        }
        if flag == "--across" {
            options.across = value
                .split(',')
                .map(|v| v.parse().ok().filter(|&n: &usize| n > 0))
                .collect::<Option<_>>()
                .ok_or(format!(
                    "--across {value:?}: positive integers separated by commas"
                ))?;
            continue;
        }
        if flag == "--particles" {
            options.across = value
                .split(',')
                .map(|v| v.parse().ok().filter(|&n: &usize| n > 0))
                .collect::<Option<Vec<usize>>>()
                .ok_or(format!(
                    "--particles {value:?}: positive integers separated by commas"
                ))?
                .into_iter()
                .map(sph_gpu::across_for)
                .collect();
            continue;
        }
        if flag == "--solver" {
            options.solvers_given = true;
            options.solvers = value
                .split(',')
                .map(phyxel::fluids::Solver::from_id)
                .collect::<Result<_, _>>()
                .map_err(|e| format!("--solver: {e}"))?;
            continue;
        }
        let number: usize = value
            .parse()
            .map_err(|_| format!("{flag}: {value:?} is not a positive integer"))?;
        if number == 0 {
            return Err(format!("{flag} must be at least 1"));
        }
        match flag.as_str() {
            "--n" => options.n = number,
            "--threads" => {
                options.threads = number;
                options.threads_given = true;
            }
            "--steps" => options.steps = number,
            "--window-bytes" => options.window_bytes = Some(number as u64),
            _ => {
                return Err(format!(
                "unknown option {flag} (known: --n, --threads, --steps, --backend, --window-bytes, --integration, --across, --particles, --solver)"
            ))
            }
        }
    }
    Ok(options)
}

/// The time (µs per particle) of one corotated force evaluation and of one stiffness product at the
/// rest state, means of 20 — what every implicit step and every CG iteration cost.
/// The per-step passes of the corotated implicit step, ms per call.
#[derive(Serialize)]
struct ImplicitPhases {
    /// R of every phyxel or integration point (polar decompositions).
    rotations: f64,
    /// The elastic forces at frozen rotations.
    forces: f64,
    /// Both, as the implicit step takes them (`corotated::rotations_and_forces`: one pass over the
    /// integration points, F_I gathered once; the nodal model's two passes).
    rotations_and_forces: f64,
    /// K at the frozen rotations, prepared once per solve (`corotated::FrozenStiffness::at`: the
    /// quadrature's per-point frames in f32; nothing for the nodal model).
    frozen_stiffness: f64,
    /// One stiffness product K·v (CG runs one per iteration), K prepared.
    stiffness_product: f64,
    /// The diagonal blocks of K (block-Jacobi preconditioner), K prepared.
    stiffness_diagonal: f64,
}

/// [`ImplicitPhases`] of `body` at its current displacement.
fn implicit_phases(body: &Body) -> ImplicitPhases {
    use phyxel::meshless::corotated;
    let repeat = 20;
    // The fastest of the calls: on a shared, loaded machine the mean measures the other loads too.
    let time = |f: &mut dyn FnMut()| {
        (0..repeat)
            .map(|_| {
                let start = Instant::now();
                f();
                millis(start)
            })
            .fold(f64::INFINITY, f64::min)
    };
    let u = &body.displacement;
    let rotations = corotated::rotations(body, u);
    let probe: Vec<DVec3> = (0..body.len())
        .map(|i| DVec3::new(1.0, (i % 7) as f64, -(i as f64).sqrt()) * 1e-3)
        .collect();
    let stiffness = corotated::FrozenStiffness::at(body, &rotations);
    ImplicitPhases {
        rotations: time(&mut || {
            std::hint::black_box(corotated::rotations(body, u));
        }),
        forces: time(&mut || {
            std::hint::black_box(corotated::elastic_forces(body, u, &rotations));
        }),
        rotations_and_forces: time(&mut || {
            std::hint::black_box(corotated::rotations_and_forces(body, u));
        }),
        frozen_stiffness: time(&mut || {
            std::hint::black_box(corotated::FrozenStiffness::at(body, &rotations));
        }),
        stiffness_product: time(&mut || {
            std::hint::black_box(stiffness.product(&probe));
        }),
        stiffness_diagonal: time(&mut || {
            std::hint::black_box(stiffness.diagonal());
        }),
    }
}

fn pass_costs(body: &Body) -> (f64, f64) {
    use phyxel::meshless::corotated;
    let n = body.len() as f64;
    let rotations = corotated::rotations(body, &body.displacement);
    let probe: Vec<DVec3> = (0..body.len())
        .map(|i| DVec3::new(1.0, (i % 7) as f64, -(i as f64).sqrt()))
        .collect();
    let repeat = 20;
    let start = Instant::now();
    for _ in 0..repeat {
        std::hint::black_box(corotated::elastic_forces(body, &probe, &rotations));
    }
    let force = millis(start) * 1e3 / (repeat as f64 * n);
    let stiffness = corotated::FrozenStiffness::at(body, &rotations);
    let start = Instant::now();
    for _ in 0..repeat {
        std::hint::black_box(stiffness.product(&probe));
    }
    let product = millis(start) * 1e3 / (repeat as f64 * n);
    (force, product)
}

fn millis(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(o) => o,
        Err(message) => {
            eprintln!("phyxel-bench: {message}\nusage: phyxel-bench cube [--n 20] [--threads N] [--steps 100] [--backend cpu|gpu] [--window-bytes B]\n       phyxel-bench implicit [--n 10] [--threads N] [--steps 100] [--backend cpu|gpu] [--window-bytes B] [--integration nodal|quadrature]\n       phyxel-bench demo [--threads N] [--steps 100] [--backend cpu|gpu] [--integration nodal|quadrature]\n       phyxel-bench cracks [--steps 4000]\n       phyxel-bench fracture3d [--across 10,22] [--threads N]\n       phyxel-bench sph [--across 35,71] [--solver wcsph,dfsph,pbf] [--steps 200] [--threads 1]\n       phyxel-bench sph3d [--across 10,29] [--solver wcsph,dfsph,pbf] [--steps 200] [--threads 1]\n       phyxel-bench sph3d --backend gpu [--particles N,… | --across 10,29] [--steps 200]");
            std::process::exit(2);
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .expect("thread pool");
    if options.quadrature && !options.implicit {
        eprintln!("phyxel-bench: --integration quadrature runs the implicit and demo scenes only");
        std::process::exit(2);
    }
    if options.cracks {
        let report = cracks::run(options.steps);
        println!("{}", serde_json::to_string_pretty(&report).expect("JSON"));
        return;
    }
    if options.fracture3d {
        let report = pool.install(|| fracture3d::run(&options.across));
        let report = report.unwrap_or_else(|e| {
            eprintln!("phyxel-bench: {e}");
            std::process::exit(1);
        });
        println!("{}", serde_json::to_string_pretty(&report).expect("JSON"));
        return;
    }
    // The fluid's passes on a pool of --threads threads (one by default), each run's steps one batch.
    let sph_pool = || {
        rayon::ThreadPoolBuilder::new()
            .num_threads(if options.threads_given {
                options.threads
            } else {
                1
            })
            .build()
            .expect("thread pool")
    };
    if options.sph3d && options.gpu {
        let wcsph_only = options.solvers == [phyxel::fluids::Solver::Wcsph];
        if options.solvers_given && !wcsph_only {
            eprintln!("phyxel-bench: sph3d --backend gpu steps WCSPH only (--solver wcsph)");
            std::process::exit(2);
        }
        let report = sph_gpu::run(&options.across, options.steps).unwrap_or_else(|e| {
            eprintln!("phyxel-bench: {e}");
            std::process::exit(1);
        });
        println!("{}", serde_json::to_string_pretty(&report).expect("JSON"));
        return;
    }
    if options.sph3d {
        let report =
            sph_pool().install(|| sph::run_3d(&options.across, options.steps, &options.solvers));
        let report = report.unwrap_or_else(|e| {
            eprintln!("phyxel-bench: {e}");
            std::process::exit(1);
        });
        println!("{}", serde_json::to_string_pretty(&report).expect("JSON"));
        return;
    }
    if options.sph {
        let report =
            sph_pool().install(|| sph::run(&options.across, options.steps, &options.solvers));
        println!("{}", serde_json::to_string_pretty(&report).expect("JSON"));
        return;
    }
    if options.implicit {
        let stiffnesses: &[f64] = if options.demo {
            &[0.0]
        } else {
            &[1e5, 1e7, 1e9]
        };
        let reports: Vec<ImplicitReport> = pool.install(|| {
            stiffnesses
                .iter()
                .copied()
                .map(|young| run_implicit(&options, young))
                .collect()
        });
        println!("{}", serde_json::to_string_pretty(&reports).expect("JSON"));
        return;
    }
    let report = if options.gpu {
        run_gpu(&options).unwrap_or_else(|e| {
            eprintln!("phyxel-bench: {e}");
            std::process::exit(1);
        })
    } else {
        // The batch of timed steps as the browser runs one (parallel::in_pool).
        pool.install(|| phyxel::parallel::in_pool(|| run(&options)))
    };
    println!("{}", serde_json::to_string_pretty(&report).expect("JSON"));
}

/// The standard cube ([`benchmark_cube`]) and the time its reference shape took to build (ms).
fn standard_cube(n: usize) -> (Simulation, f64) {
    let start = Instant::now();
    let sim = benchmark_cube(n);
    (sim, millis(start))
}

/// The cube on the GPU: warm-up, then `steps` steps in one submission, timed to the read-back.
fn run_gpu(options: &Options) -> Result<Report, phyxel_gpu::GpuError> {
    let (sim, _) = standard_cube(options.n);
    let dt = sim.recommended_time_step();
    let gpu = pollster::block_on(phyxel_gpu::GpuContext::new())?;
    let mut solver = upload(&gpu, &sim, options)?;
    assert!(solver.step(&gpu, dt, 5), "the device took the steps");
    pollster::block_on(solver.read_state(&gpu))?;
    let start = Instant::now();
    assert!(
        solver.step(&gpu, dt, options.steps as u32),
        "the device took the steps"
    );
    let state = pollster::block_on(solver.read_state(&gpu))?;
    let seconds = start.elapsed().as_secs_f64();
    if state.blown_up {
        return Err(phyxel_gpu::GpuError("the GPU run blew up".into()));
    }
    let phyxels = sim.body.len();
    let steps_per_s = options.steps as f64 / seconds;
    Ok(Report {
        scene: "cube",
        backend: "gpu",
        adapter: Some(gpu.adapter.name.clone()),
        phyxels,
        mean_neighbours: sim.body.neighbours.mean_count(),
        threads: None,
        steps: options.steps,
        steps_per_s,
        phyxel_steps_per_s: phyxels as f64 * steps_per_s,
        neighbour_interactions_per_s: sim.body.neighbours.neighbour.len() as f64 * steps_per_s,
        ms_per_pass: None,
        gpu_ms_per_pass: profile_passes(&gpu, &mut solver, dt)?,
        edge_windows: Some(solver.edge_windows().count),
    })
}

/// The scene on the device, its rows bound in windows of `--window-bytes` where given.
fn upload(
    gpu: &phyxel_gpu::GpuContext,
    sim: &phyxel::meshless::simulation::Simulation,
    options: &Options,
) -> Result<phyxel_gpu::GpuSolver, phyxel_gpu::GpuError> {
    match options.window_bytes {
        Some(bytes) => phyxel_gpu::GpuSolver::with_edge_windows(gpu, sim, bytes),
        None => phyxel_gpu::GpuSolver::new(gpu, sim),
    }
}

/// Mean GPU time per pass over 5 profiled steps, or None without timestamp queries.
fn profile_passes(
    gpu: &phyxel_gpu::GpuContext,
    solver: &mut phyxel_gpu::GpuSolver,
    dt: f64,
) -> Result<Option<Vec<GpuPassTime>>, phyxel_gpu::GpuError> {
    const PROFILED_STEPS: usize = 5;
    let mut totals: Vec<GpuPassTime> = Vec::new();
    for _ in 0..PROFILED_STEPS {
        let Some(profile) = solver.profile_step(gpu, dt) else {
            return Ok(None);
        };
        for (k, (pass, ms)) in pollster::block_on(profile)?.into_iter().enumerate() {
            match totals.get_mut(k) {
                Some(total) => total.ms += ms,
                None => totals.push(GpuPassTime { pass, ms }),
            }
        }
    }
    for total in &mut totals {
        total.ms /= PROFILED_STEPS as f64;
    }
    Ok(Some(totals))
}

fn run(options: &Options) -> Report {
    let (mut sim, rebuild_reference_ms) = standard_cube(options.n);
    let dt = sim.recommended_time_step();

    // Each pass is run a few times untimed first (caches, page faults, the pool's threads).
    let repeat = |f: &mut dyn FnMut()| {
        for _ in 0..5 {
            f();
        }
        let start = Instant::now();
        for _ in 0..options.steps {
            f();
        }
        millis(start) / options.steps as f64
    };
    let phyxel_stresses_ms = repeat(&mut || {
        std::hint::black_box(sim.body.phyxel_stresses());
    });
    let stresses = sim.body.phyxel_stresses();
    let gather_forces_ms = repeat(&mut || {
        std::hint::black_box(sim.body.gather_forces(&stresses));
    });
    let step_ms = repeat(&mut || {
        sim.step(dt).expect("the recommended step is stable");
    });

    let phyxels = sim.body.len();
    let edges = sim.body.neighbours.neighbour.len();
    let steps_per_s = 1e3 / step_ms;
    Report {
        scene: "cube",
        backend: "cpu",
        adapter: None,
        phyxels,
        mean_neighbours: sim.body.neighbours.mean_count(),
        threads: Some(phyxel::parallel::thread_count()),
        steps: options.steps,
        steps_per_s,
        phyxel_steps_per_s: phyxels as f64 * steps_per_s,
        neighbour_interactions_per_s: edges as f64 * steps_per_s,
        gpu_ms_per_pass: None,
        edge_windows: None,
        ms_per_pass: Some(PassTimes {
            rebuild_reference_ms,
            phyxel_stresses_ms,
            gather_forces_ms,
            step_ms,
        }),
    }
}

/// The `implicit` scene's cube for Young's modulus `young`, and its edge.
fn implicit_cube(options: &Options, young: f64) -> (Simulation, f64) {
    let spacing = 0.05;
    let n = options.n.max(2);
    let edge = spacing * (n - 1) as f64;
    let shape = Shape::Box {
        min: DVec3::new(0.0, 0.05, 0.0),
        max: DVec3::new(edge, 0.05 + edge, edge),
    };
    let material = Material {
        young,
        poisson: 0.3,
        density: 1000.0,
        volume_stiffness: 0.0,
    };
    let mut body = Body::new(
        sample(&shape, spacing, Lattice::Cubic),
        spacing.powi(3),
        spacing,
        material,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    );
    if options.quadrature {
        body.set_quadrature(&shape, spacing, QuadratureSettings::default())
            .expect("the cube has a quadrature");
    }
    (Simulation::new(body, Environment::default()), edge)
}

/// The 3D demo's default scene ([`SceneDescription::default`]: the jelly cube of 10 phyxels across,
/// dropped from 0.3 m), with the demo's background quadrature if `quadrature`, and the cube's edge.
fn demo_scene(quadrature: bool) -> (Simulation, f64) {
    let description = SceneDescription::default();
    let scene = description
        .build(usize::MAX)
        .expect("the default scene builds");
    let mut sim = scene.simulation;
    if quadrature {
        let objects: Vec<_> = scene.object_start.windows(2).map(|w| w[0]..w[1]).collect();
        description
            .set_quadrature(&mut sim, &objects)
            .expect("the default scene has a quadrature");
    }
    (sim, phyxel::meshless::scene::OBJECT_SIZE)
}

/// The cube with corotated implicit Euler at 60 Hz for Young's modulus `young` (`implicit`), or
/// the 3D demo's default scene (`demo`, its own material).
fn run_implicit(options: &Options, young: f64) -> ImplicitReport {
    let (mut sim, edge) = if options.demo {
        demo_scene(options.quadrature)
    } else {
        implicit_cube(options, young)
    };
    let young = sim.body.material.young;
    let (force_us, product_us) = if options.gpu {
        (None, None)
    } else {
        let (f, k) = pass_costs(&sim.body);
        (Some(f), Some(k))
    };
    let settings = CorotatedImplicit::default();
    sim.set_corotated_implicit(Some(settings));
    let settings = CorotatedImplicit::default();
    sim.set_corotated_implicit(Some(settings));
    let dt = 1.0 / 60.0;
    let mut cg_iterations = Vec::with_capacity(options.steps);
    let mut worst_relative_residual: f64 = 0.0;
    let mut unconverged_steps = 0;
    let mut record = |solve: SolveStats| {
        cg_iterations.push(solve.iterations);
        worst_relative_residual = worst_relative_residual.max(solve.relative_residual);
        unconverged_steps += usize::from(!solve.converged);
    };
    let mut adapter = None;
    let mut batched = None;
    let mut windows = (None, None);
    let start = Instant::now();
    let cpu_start = cpu_time::cpu_seconds();
    if options.gpu {
        let gpu = pollster::block_on(phyxel_gpu::GpuContext::new()).expect("a GPU adapter");
        let mut solver = upload(&gpu, &sim, options).expect("the GPU takes the scene");
        windows = (
            Some(solver.edge_windows().count),
            solver.quadrature_edge_windows().map(|plan| plan.count),
        );
        for _ in 0..options.steps {
            assert!(solver.step(&gpu, dt, 1), "the device took the steps");
            let state = pollster::block_on(solver.read_state(&gpu)).expect("a read-back");
            assert!(!state.blown_up, "implicit steps stay bounded");
            record(
                state
                    .last_solve
                    .expect("an implicit step reports its solve"),
            );
            sim.body.displacement = state.displacement;
        }
        // The same number of steps again, queued as one submission and read back once.
        let batch_start = Instant::now();
        assert!(
            solver.step(&gpu, dt, options.steps as u32),
            "the device took the steps"
        );
        let state = pollster::block_on(solver.read_state(&gpu)).expect("a read-back");
        assert!(!state.blown_up, "implicit steps stay bounded");
        batched = Some((
            options.steps as f64 / batch_start.elapsed().as_secs_f64(),
            state.last_solve.map_or(0, |solve| solve.iterations),
        ));
        adapter = Some(gpu.adapter.name.clone());
    } else {
        for _ in 0..options.steps {
            sim.step(dt).expect("implicit steps stay bounded");
            record(
                sim.last_solve()
                    .expect("an implicit step reports its solve"),
            );
        }
    }
    let seconds = start.elapsed().as_secs_f64()
        - batched.map_or(0.0, |(per_s, _)| options.steps as f64 / per_s);
    let cpu_ms_per_step = cpu_start
        .zip(cpu_time::cpu_seconds())
        .map(|(start, end)| (end - start) * 1e3 / options.steps as f64);
    let final_top = sim
        .body
        .positions()
        .iter()
        .map(|p| p.y)
        .fold(f64::NEG_INFINITY, f64::max);
    let quadrature = sim.body.quadrature();
    let ms_per_phase = (!options.gpu).then(|| implicit_phases(&sim.body));
    ImplicitReport {
        scene: "cube",
        integration: "corotated-implicit-euler",
        energy_integration: if options.quadrature {
            "quadrature"
        } else {
            "nodal"
        },
        integration_points: quadrature.map(|q| q.len()),
        shape_function_edges: quadrature.map(|q| q.shape.particle.len()),
        force_us_per_particle: force_us,
        stiffness_product_us_per_particle: product_us,
        ms_per_phase,
        backend: if options.gpu { "gpu" } else { "cpu" },
        adapter,
        young,
        dt,
        cfl_time_step: sim.cfl_time_step(),
        phyxels: sim.body.len(),
        mean_neighbours: sim.body.neighbours.mean_count(),
        threads: (!options.gpu).then(phyxel::parallel::thread_count),
        steps: options.steps,
        tolerance: settings.tolerance,
        max_iterations: settings.max_iterations,
        cg_iterations_mean: cg_iterations.iter().sum::<usize>() as f64 / options.steps as f64,
        cg_iterations_max: cg_iterations.iter().copied().max().unwrap_or(0),
        cg_iterations,
        worst_relative_residual,
        unconverged_steps,
        steps_per_s: options.steps as f64 / seconds,
        batched_steps_per_s: batched.map(|(per_s, _)| per_s),
        batched_last_cg_iterations: batched.map(|(_, iterations)| iterations),
        edge_windows: windows.0,
        quadrature_edge_windows: windows.1,
        cpu_ms_per_step,
        final_top,
        edge,
    }
}
