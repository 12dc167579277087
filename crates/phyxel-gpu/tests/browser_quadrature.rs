//! The GPU solver's background quadrature (shaders/quadrature.wgsl) on the browser's WebGPU (headless
//! Chromium with `--enable-unsafe-webgpu`: SwiftShader) against the CPU: tests/parity.rs's quadrature
//! cube and held beam, smaller and shorter. A file of its own beside tests/browser.rs because
//! wasm-bindgen-test-runner gives each test file 20 s (`WASM_BINDGEN_TEST_TIMEOUT`), which that one
//! nearly fills.
#![cfg(target_arch = "wasm32")]

use glam::DVec3;
use phyxel::meshless::implicit::CorotatedImplicit;
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

/// tests/parity.rs's quadrature bodies: particles on a lattice of spacing `a` over `lattice`, E = 1 MPa,
/// integrated over `region` by background quadrature with the default settings (seed 003 §3.3).
fn quadrature_body(
    lattice: &phyxel::meshless::sampling::Shape,
    region: &phyxel::meshless::sampling::Shape,
    a: f64,
) -> phyxel::meshless::body::Body {
    use phyxel::meshless::body::{Body, SupportRadius};
    use phyxel::meshless::material::Material;
    use phyxel::meshless::sampling::{sample, Lattice};
    let material = Material {
        young: 1e6,
        poisson: 0.3,
        density: 1000.0,
        volume_stiffness: 0.0,
    };
    let support = SupportRadius::SpacingMultiple { factor: 2.2 };
    let mut body = Body::new(
        sample(lattice, a, Lattice::Cubic),
        a.powi(3),
        a,
        material,
        support,
    );
    body.set_quadrature(region, a, Default::default()).unwrap();
    body
}

/// `steps` implicit steps of 1/60 s of `cpu` on WebGPU and the CPU (CG to 1e-5, at most 200
/// iterations), read back every 5 steps (the test runner allows the whole file some 20 s), the device
/// given `budget` CG iterations a step throughout (its own budget follows the last read-back's solve,
/// which a landing between read-backs can outgrow): the largest position gap at the read-backs.
async fn quadrature_gap(
    mut cpu: phyxel::meshless::simulation::Simulation,
    steps: u32,
    budget: usize,
) -> f64 {
    let gpu = GpuContext::new()
        .await
        .expect("a WebGPU adapter (webdriver.json passes --enable-unsafe-webgpu)");
    cpu.elasticity = phyxel::meshless::simulation::Elasticity::CorotatedLinear;
    cpu.set_corotated_implicit(Some(CorotatedImplicit {
        tolerance: 1e-5,
        max_iterations: 200,
        ..CorotatedImplicit::default()
    }));
    let mut solver = GpuSolver::new(&gpu, &cpu).unwrap();
    let dt = 1.0 / 60.0;
    let mut gap = 0.0f64;
    for _ in 0..steps.div_ceil(5) {
        for _ in 0..5 {
            cpu.step(dt).unwrap();
        }
        solver.set_iteration_budget(budget);
        assert!(solver.step(&gpu, dt, 5), "the device took the steps");
        let state = solver.read_state(&gpu).await.unwrap();
        assert!(!state.blown_up);
        let (cpu_solve, gpu_solve) = (cpu.last_solve().unwrap(), state.last_solve.unwrap());
        assert!(gpu_solve.converged, "{gpu_solve:?} (CPU: {cpu_solve:?})");
        gap = gap.max(worst_gap(&cpu.body.displacement, &state.displacement));
    }
    gap
}

#[wasm_bindgen_test]
async fn webgpu_and_cpu_implicit_steps_agree_on_a_quadrature_cube() {
    use phyxel::meshless::sampling::Shape;
    use phyxel::meshless::simulation::{Environment, Simulation};
    // The 0.4 m cube of 4 × 4 × 4 particles at its cells' centres, dropped from 0.3 m: 20 steps (it
    // lands at step 15).
    let region = Shape::Box {
        min: DVec3::new(0.0, 0.3, 0.0),
        max: DVec3::new(0.4, 0.7, 0.4),
    };
    let lattice = Shape::Box {
        min: DVec3::new(0.05, 0.35, 0.05),
        max: DVec3::new(0.35, 0.65, 0.35),
    };
    let cube = Simulation::new(
        quadrature_body(&lattice, &region, 0.1),
        Environment::default(),
    );
    // The CPU's solves take up to 34 iterations (the landing, step 15): 32 a step cut the device's
    // short there once its strain was summed from small terms (it had needed at most 32).
    let gap = quadrature_gap(cube, 20, 64).await;
    assert!(
        gap <= 1e-4 * 0.4,
        "quadrature cube: WebGPU and CPU differ by {gap} m"
    );
    console_log!("quadrature cube, 20 implicit steps: WebGPU vs CPU {gap:.2e} m");
}

#[wasm_bindgen_test]
async fn webgpu_and_cpu_implicit_steps_agree_on_a_quadrature_beam_held_by_its_face() {
    use phyxel::meshless::quadrature::points::box_face_points;
    use phyxel::meshless::sampling::Shape;
    use phyxel::meshless::simulation::{Environment, Simulation};
    // A 0.3 m cantilever, 3 particles across its 0.1 m, held by its face x = 0: 10 steps of its sag.
    let (length, height) = (0.3, 0.1);
    let a = height / 2.0;
    let beam = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::new(length, height, height),
    };
    let mut body = quadrature_body(&beam, &beam, a);
    let face = box_face_points(DVec3::ZERO, DVec3::new(length, height, height), 0, false, a);
    body.hold_surface(&face, 100.0, a).unwrap();
    let environment = Environment {
        colliders: vec![],
        damping: 0.0,
        ..Environment::default()
    };
    let gap = quadrature_gap(Simulation::new(body, environment), 10, 96).await;
    assert!(
        gap <= 1e-4 * length,
        "held beam: WebGPU and CPU differ by {gap} m"
    );
    console_log!("quadrature beam held by its face, 10 implicit steps: WebGPU vs CPU {gap:.2e} m");
}
