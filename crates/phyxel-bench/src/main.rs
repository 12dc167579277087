//! `cargo run --release -p phyxel-bench -- cube --n 20 [--threads N] [--steps S] [--backend cpu|gpu]`
//!
//! The standard scene: an elastic cube of n × n × n phyxels on a cubic lattice with support radius
//! 1.9 × spacing (≈ 26–30 neighbours inside), dropped onto the ground. Prints one JSON object with the
//! throughput and the time of each pass. `--backend gpu` runs the same scene on the WebGPU compute
//! passes (`phyxel-gpu`, natively on Vulkan) and times whole submissions of `steps` steps.

use glam::DVec3;
use phyxel::meshless::body::{Body, SupportRadius};
use phyxel::meshless::material::Material;
use phyxel::meshless::sampling::{sample, Lattice, Shape};
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
}

struct Options {
    n: usize,
    threads: usize,
    steps: usize,
    gpu: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        n: 20,
        threads: rayon::current_num_threads(),
        steps: 100,
        gpu: false,
    };
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("cube") | None => {}
        Some(other) => return Err(format!("unknown scene {other:?} (known: cube)")),
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
        let number: usize = value
            .parse()
            .map_err(|_| format!("{flag}: {value:?} is not a positive integer"))?;
        if number == 0 {
            return Err(format!("{flag} must be at least 1"));
        }
        match flag.as_str() {
            "--n" => options.n = number,
            "--threads" => options.threads = number,
            "--steps" => options.steps = number,
            _ => {
                return Err(format!(
                    "unknown option {flag} (known: --n, --threads, --steps, --backend)"
                ))
            }
        }
    }
    Ok(options)
}

fn millis(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(o) => o,
        Err(message) => {
            eprintln!("phyxel-bench: {message}\nusage: phyxel-bench cube [--n 20] [--threads N] [--steps 100] [--backend cpu|gpu]");
            std::process::exit(2);
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .expect("thread pool");
    let report = if options.gpu {
        run_gpu(&options).unwrap_or_else(|e| {
            eprintln!("phyxel-bench: {e}");
            std::process::exit(1);
        })
    } else {
        pool.install(|| run(&options))
    };
    println!("{}", serde_json::to_string_pretty(&report).expect("JSON"));
}

/// The standard cube, before any step.
fn standard_cube(n: usize) -> (Simulation, f64) {
    let spacing = 0.05;
    let edge = spacing * (n - 1) as f64;
    let shape = Shape::Box {
        min: DVec3::new(0.0, 0.1, 0.0),
        max: DVec3::new(edge, 0.1 + edge, edge),
    };
    let material = Material::JELLY;
    let points = sample(&shape, spacing, Lattice::Cubic);
    let start = Instant::now();
    let body = Body::new(
        points,
        spacing.powi(3),
        spacing,
        material,
        SupportRadius::SpacingMultiple { factor: 1.9 },
    );
    let rebuild_reference_ms = millis(start);
    (
        Simulation::new(body, Environment::default()),
        rebuild_reference_ms,
    )
}

/// The cube on the GPU: warm-up, then `steps` steps in one submission, timed to the read-back.
fn run_gpu(options: &Options) -> Result<Report, phyxel_gpu::GpuError> {
    let (sim, _) = standard_cube(options.n);
    let dt = sim.recommended_time_step();
    let gpu = pollster::block_on(phyxel_gpu::GpuContext::new())?;
    let mut solver = phyxel_gpu::GpuSolver::new(&gpu, &sim)?;
    solver.step(&gpu, dt, 5);
    pollster::block_on(solver.read_state(&gpu))?;
    let start = Instant::now();
    solver.step(&gpu, dt, options.steps as u32);
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
    })
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
        ms_per_pass: Some(PassTimes {
            rebuild_reference_ms,
            phyxel_stresses_ms,
            gather_forces_ms,
            step_ms,
        }),
    }
}
