//! The GPU passes against the CPU solver they mirror, on whatever Vulkan adapter the machine has (Mesa
//! lavapipe here and in CI: `./dev setup` installs mesa-vulkan-drivers). Small sizes: a software GPU
//! is slow, and correctness is the point. (The browser's twin of this file is tests/browser.rs.)
#![cfg(not(target_arch = "wasm32"))]

use glam::DVec3;
use phyxel::meshless::material::Material;
use phyxel::meshless::scene::{Objects, SceneDescription};
use phyxel::meshless::simulation::Simulation;
use phyxel_gpu::{GpuContext, GpuSolver};
use pollster::block_on;

fn gpu() -> GpuContext {
    block_on(GpuContext::new()).expect("a Vulkan adapter (./dev setup installs Mesa lavapipe)")
}

/// A 6 × 6 × 6 jelly cube dropped from 0.3 m, sheared a little so elastic forces act from the start.
fn sheared_cube() -> Simulation {
    let mut sim = SceneDescription {
        objects: Objects::Cube,
        resolution: 6,
        ..SceneDescription::default()
    }
    .build(10_000)
    .unwrap()
    .simulation;
    let body = &mut sim.body;
    body.displacement = body
        .reference
        .iter()
        .map(|x| DVec3::new(0.05 * (x.y - 0.5), 0.0, 0.02 * x.x))
        .collect();
    sim
}

#[test]
fn gpu_and_cpu_agree_after_200_steps_of_the_elastic_cube() {
    let gpu = gpu();
    let mut cpu = sheared_cube();
    let mut solver = GpuSolver::new(&gpu, &cpu).unwrap();
    // 200 steps of 0.1 h√(ρ/E) ≈ 1.5 ms: 0.29 s, long enough to fall 0.3 m and hit the ground.
    let dt = cpu.recommended_time_step();
    for _ in 0..200 {
        cpu.step(dt).unwrap();
    }
    solver.step(&gpu, dt, 200);
    let state = block_on(solver.read_state(&gpu)).unwrap();
    assert!(!state.blown_up);
    let size = 0.4;
    let worst = cpu
        .body
        .displacement
        .iter()
        .zip(&state.displacement)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0, f64::max);
    let fell = cpu
        .body
        .displacement
        .iter()
        .map(|u| -u.y)
        .fold(0.0, f64::max);
    assert!(fell > 0.25, "the cube fell {fell} m and reached the ground");
    eprintln!(
        "GPU vs CPU after 200 steps: {worst:.2e} m apart ({})",
        gpu.adapter.name
    );
    assert!(
        worst <= 1e-4 * size,
        "GPU and CPU positions differ by {worst} m (adapter: {})",
        gpu.adapter.name
    );
}

#[test]
fn the_gpu_flags_a_blow_up_and_refuses_what_it_does_not_mirror() {
    let gpu = gpu();
    let mut steel = sheared_cube();
    steel.body.material = Material {
        young: 2e11,
        poisson: 0.3,
        density: 7800.0,
        volume_stiffness: 0.0,
    };
    let mut solver = GpuSolver::new(&gpu, &steel).unwrap();
    solver.step(&gpu, 1.0 / 60.0, 20);
    assert!(block_on(solver.read_state(&gpu)).unwrap().blown_up);
    let mut plastic = sheared_cube();
    plastic.plasticity = Some(phyxel::meshless::plasticity::Plasticity {
        yield_strain: 0.1,
        creep: 1.0,
        max_strain: 0.5,
    });
    let refused = GpuSolver::new(&gpu, &plastic).err().unwrap();
    assert!(
        refused.to_string().contains("CPU backend only"),
        "{refused}"
    );
}
