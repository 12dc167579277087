//! The GPU passes on the browser's WebGPU (headless Chromium with `--enable-unsafe-webgpu`:
//! SwiftShader) against the CPU solver: the same parity as tests/parity.rs, smaller and shorter,
//! because a software GPU in a browser is slow. (Bodies integrated by background quadrature are in
//! tests/browser_quadrature.rs: the test runner gives each file 20 s, which this one nearly fills.)
#![cfg(target_arch = "wasm32")]

use glam::DVec3;
use phyxel::meshless::implicit::CorotatedImplicit;
use phyxel::meshless::scene::{Objects, SceneDescription};
use phyxel_gpu::{GpuContext, GpuSolver};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Largest distance between two lists of vectors.
fn worst_gap(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.distance(*y))
        .fold(0.0, f64::max)
}

/// A jelly cube of `resolution`³ phyxels dropped from 0.3 m, sheared a little so elastic forces act
/// from the start (as tests/parity.rs's).
fn sheared_cube(resolution: u32) -> phyxel::meshless::simulation::Simulation {
    let mut sim = SceneDescription {
        objects: Objects::Cube,
        resolution,
        ..SceneDescription::default()
    }
    .build(10_000)
    .unwrap()
    .simulation;
    sim.body.displacement = sim
        .body
        .reference
        .iter()
        .map(|x| DVec3::new(0.05 * (x.y - 0.5), 0.0, 0.02 * x.x))
        .collect();
    sim
}

#[wasm_bindgen_test]
async fn webgpu_and_cpu_agree_on_the_falling_cube() {
    let gpu = GpuContext::new()
        .await
        .expect("a WebGPU adapter (webdriver.json passes --enable-unsafe-webgpu)");
    let mut cpu = sheared_cube(4);
    let mut solver = GpuSolver::new(&gpu, &cpu).unwrap();
    let dt = cpu.recommended_time_step();
    for _ in 0..100 {
        cpu.step(dt).unwrap();
    }
    assert!(solver.step(&gpu, dt, 100), "the device took the steps");
    let state = solver.read_state(&gpu).await.unwrap();
    assert!(!state.blown_up);
    let worst = worst_gap(&cpu.body.displacement, &state.displacement);
    let moved = cpu
        .body
        .displacement
        .iter()
        .map(|u| u.length())
        .fold(0.0, f64::max);
    assert!(moved > 0.05, "the cube moved {moved} m");
    assert!(
        worst <= 1e-4 * 0.4,
        "WebGPU and CPU differ by {worst} m ({})",
        gpu.adapter.name
    );
}

#[wasm_bindgen_test]
async fn webgpu_moves_the_rest_shape_of_a_plastic_cube_as_the_cpu_does() {
    plastic_landing(None).await;
}

#[wasm_bindgen_test]
async fn webgpu_steps_and_rebuilds_the_rows_in_edge_windows() {
    // Rows and reverse lists bound 16 KiB at a time, at WebGPU's 256-byte offset alignment: every
    // pass over them, the device's rebuild included, runs window by window.
    plastic_landing(Some(16 << 10)).await;
}

/// The plastic cube's landing on WebGPU and the CPU, the rows bound whole or in windows of
/// `window_bytes`.
async fn plastic_landing(window_bytes: Option<u64>) {
    use phyxel::meshless::plasticity::Plasticity;
    let gpu = GpuContext::new().await.expect("a WebGPU adapter");
    let mut cpu = sheared_cube(6);
    cpu.plasticity = Some(Plasticity {
        yield_strain: 0.0,
        creep: 20.0,
        max_strain: 0.5,
    });
    let mut solver = match window_bytes {
        None => GpuSolver::new(&gpu, &cpu).unwrap(),
        Some(bytes) => {
            let solver = GpuSolver::with_edge_windows(&gpu, &cpu, bytes).unwrap();
            assert!(
                solver.edge_windows().count >= 2,
                "{:?}",
                solver.edge_windows()
            );
            solver
        }
    };
    let dt = cpu.recommended_time_step();
    for _ in 0..200 {
        cpu.step(dt).unwrap();
    }
    assert!(solver.step(&gpu, dt, 200), "the device took the steps");
    let state = solver.read_state(&gpu).await.unwrap();
    assert!(!state.blown_up);
    assert!(
        cpu.reference_updates > 0,
        "the landing moved the rest shape"
    );
    assert_eq!(state.reference_updates as usize, cpu.reference_updates);
    let positions: Vec<DVec3> = state
        .reference
        .iter()
        .zip(&state.displacement)
        .map(|(x, u)| *x + *u)
        .collect();
    let worst = worst_gap(&cpu.body.positions(), &positions);
    assert!(worst <= 1e-4 * 0.4, "WebGPU and CPU differ by {worst} m");
    let hoods = solver.read_neighbourhoods(&gpu).await.unwrap();
    assert_eq!(hoods, cpu.body.neighbours);
}

#[wasm_bindgen_test]
async fn webgpu_and_cpu_implicit_steps_agree_on_a_landing_cube() {
    // Corotated implicit Euler at 1/60 s, CG on the device: 3 × 3 × 3 phyxels dropped 0.3 m, 20 steps
    // (it lands at step 15: contacts and their release), CG limited to 40 iterations.
    let gpu = GpuContext::new()
        .await
        .expect("a WebGPU adapter (webdriver.json passes --enable-unsafe-webgpu)");
    let mut cpu = SceneDescription {
        objects: Objects::Cube,
        resolution: 3,
        ..SceneDescription::default()
    }
    .build(1_000)
    .unwrap()
    .simulation;
    cpu.body.material.young = 1e6;
    cpu.set_corotated_implicit(Some(CorotatedImplicit {
        tolerance: 1e-5,
        max_iterations: 40,
        ..CorotatedImplicit::default()
    }));
    let mut solver = GpuSolver::new(&gpu, &cpu).unwrap();
    let dt = 1.0 / 60.0;
    for _ in 0..20 {
        cpu.step(dt).unwrap();
    }
    assert!(solver.step(&gpu, dt, 20), "the device took the steps");
    let state = solver.read_state(&gpu).await.unwrap();
    assert!(!state.blown_up);
    let worst = worst_gap(&cpu.body.displacement, &state.displacement);
    let fell = cpu
        .body
        .displacement
        .iter()
        .map(|u| -u.y)
        .fold(0.0, f64::max);
    assert!(fell > 0.25, "the cube fell {fell} m");
    assert!(
        worst <= 1e-4 * 0.4,
        "WebGPU and CPU implicit steps differ by {worst} m ({})",
        gpu.adapter.name
    );
    let (cpu_solve, gpu_solve) = (cpu.last_solve().unwrap(), state.last_solve.unwrap());
    assert!(gpu_solve.converged, "{gpu_solve:?} (CPU: {cpu_solve:?})");
}

#[wasm_bindgen_test]
async fn the_webgpu_hash_grid_finds_exactly_the_cpu_neighbour_sets() {
    let gpu = GpuContext::new().await.unwrap();
    let mut points = Vec::new();
    for i in -4..4 {
        for j in -3..3 {
            for k in -3..3 {
                let wobble = DVec3::new((i * j) as f64, (j * k) as f64, (k * i) as f64).sin() * 0.3;
                points.push(0.1 * (DVec3::new(i as f64, j as f64, k as f64) + wobble));
            }
        }
    }
    let radii: Vec<f64> = (0..points.len())
        .map(|i| 0.15 + 0.01 * (i % 7) as f64)
        .collect();
    let cpu = phyxel::meshless::neighbours::Neighbourhoods::build(&points, &radii);
    let on_gpu = phyxel_gpu::build_neighbourhoods(&gpu, &points, &radii)
        .await
        .unwrap();
    assert_eq!(on_gpu, cpu);
    assert!(cpu.mean_count() > 5.0);
}

#[wasm_bindgen_test]
async fn webgpu_moment_matrices_and_mls_weights_equal_the_cpu_ones() {
    let gpu = GpuContext::new().await.unwrap();
    let body = SceneDescription {
        objects: Objects::Sphere,
        resolution: 5,
        ..SceneDescription::default()
    }
    .build(1_000)
    .unwrap()
    .simulation
    .body;
    let on_gpu = phyxel_gpu::compute_mls_weights(
        &gpu,
        &body.reference,
        &body.support_radius,
        &body.mass,
        &body.neighbours,
    )
    .await
    .unwrap();
    assert_eq!(on_gpu.rank, body.mls.rank);
    let largest = body.mls.d().iter().map(|d| d.length()).fold(0.0, f64::max);
    for (a, b) in body.mls.d().iter().zip(&on_gpu.d) {
        assert!(a.distance(*b) <= 1e-4 * largest, "{a} vs {b}");
    }
    for (a, b) in body.volume.iter().zip(&on_gpu.volume) {
        assert!((a / b - 1.0).abs() < 1e-5);
    }
}
