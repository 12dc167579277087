//! The GPU passes against the CPU solver they mirror, on whatever Vulkan adapter the machine has (Mesa
//! lavapipe here and in CI: `./dev setup` installs mesa-vulkan-drivers). Small sizes: a software GPU
//! is slow, and correctness is the point. (The browser's twin of this file is tests/browser.rs.)
#![cfg(not(target_arch = "wasm32"))]

use glam::{DMat3, DVec3};
use phyxel::lessons::explicit_implicit::Beam;
use phyxel::meshless::body::{Body, SupportRadius};
use phyxel::meshless::fracture::crack::Crack;
use phyxel::meshless::fracture::scenes::{notched_bar, PulledBar};
use phyxel::meshless::fracture::FractureSettings;
use phyxel::meshless::implicit::{CorotatedImplicit, Rayleigh, SolveStats};
use phyxel::meshless::material::Material;
use phyxel::meshless::plasticity::plastic_stretch;
use phyxel::meshless::quadrature::points::box_face_points;
use phyxel::meshless::quadrature::QuadratureSettings;
use phyxel::meshless::sampling::{sample, Lattice, Shape};
use phyxel::meshless::scene::{Objects, SceneDescription};
use phyxel::meshless::simulation::{Elasticity, Environment, Simulation};
use phyxel_gpu::{GpuContext, GpuSolver, GpuState};
use pollster::block_on;

fn gpu() -> GpuContext {
    block_on(GpuContext::new()).expect("a Vulkan adapter (./dev setup installs Mesa lavapipe)")
}

/// A 6 × 6 × 6 jelly cube dropped from 0.3 m, sheared a little so elastic forces act from the start.
fn sheared_cube() -> Simulation {
    sheared_cube_of(6)
}

/// The sheared cube with `resolution`³ phyxels.
fn sheared_cube_of(resolution: u32) -> Simulation {
    let mut sim = SceneDescription {
        objects: Objects::Cube,
        resolution,
        ..SceneDescription::default()
    }
    .build(2_000_000)
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

/// How a test binds the rows and reverse lists: as the device allows (one binding, for these small
/// bodies), or in windows of 16 KiB (4096 edges) — as a body beyond one binding is — so that every
/// pass over them runs once per window (or pair of windows).
#[derive(Clone, Copy, Debug)]
enum Edges {
    Whole,
    Windowed,
}

fn upload(gpu: &GpuContext, sim: &Simulation, edges: Edges) -> GpuSolver {
    match edges {
        Edges::Whole => {
            let solver = GpuSolver::new(gpu, sim).unwrap();
            assert_eq!(solver.edge_windows().count, 1);
            solver
        }
        Edges::Windowed => {
            let solver = GpuSolver::with_edge_windows(gpu, sim, 16 << 10).unwrap();
            let windows = solver.edge_windows();
            assert!(windows.count >= 2, "{windows:?}");
            eprintln!("edge windows: {windows:?}");
            solver
        }
    }
}

#[test]
fn gpu_and_cpu_agree_after_200_steps_of_the_elastic_cube() {
    elastic_cube_parity(Edges::Whole);
}

#[test]
fn gpu_and_cpu_agree_on_the_elastic_cube_with_its_rows_in_edge_windows() {
    elastic_cube_parity(Edges::Windowed);
}

fn elastic_cube_parity(edges: Edges) {
    let gpu = gpu();
    let mut cpu = sheared_cube();
    let mut solver = upload(&gpu, &cpu, edges);
    // 200 steps of 0.1 h√(ρ/E) ≈ 1.5 ms: 0.29 s, long enough to fall 0.3 m and hit the ground.
    let dt = cpu.recommended_time_step();
    for _ in 0..200 {
        cpu.step(dt).unwrap();
    }
    assert!(solver.step(&gpu, dt, 200), "the device took the steps");
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

/// Largest distance between two lists of vectors.
fn worst_gap(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.distance(*y))
        .fold(0.0, f64::max)
}

#[test]
fn a_profiled_step_times_each_pass_where_the_device_writes_timestamps() {
    let gpu = gpu();
    let sim = sheared_cube();
    let mut solver = GpuSolver::new(&gpu, &sim).unwrap();
    let dt = sim.recommended_time_step();
    match solver.profile_step(&gpu, dt) {
        None => assert!(!gpu.timestamps, "timestamps granted but no profile"),
        Some(profile) => {
            let times = block_on(profile).unwrap();
            let names: Vec<&str> = times.iter().map(|(name, _)| name.as_str()).collect();
            assert_eq!(names, ["phyxel_stresses", "gather_forces", "integrate"]);
            assert!(
                times.iter().all(|(_, ms)| ms.is_finite() && *ms >= 0.0),
                "{times:?}"
            );
            eprintln!("pass times on {}: {times:?}", gpu.adapter.name);
        }
    }
    // The profiled step is a real step: the cube moved.
    let state = block_on(solver.read_state(&gpu)).unwrap();
    assert!(worst_gap(&state.displacement, &sim.body.displacement) > 0.0);
}

#[test]
fn gpu_and_cpu_agree_on_a_melting_cube_pulled_by_the_drag_spring() {
    melting_cube_parity(Edges::Whole);
}

#[test]
fn gpu_and_cpu_agree_on_a_melting_cube_with_its_rows_in_edge_windows() {
    melting_cube_parity(Edges::Windowed);
}

fn melting_cube_parity(edges: Edges) {
    use phyxel::meshless::melting::{HeatSource, Melting};
    use phyxel::meshless::simulation::Drag;
    let gpu = gpu();
    let mut cpu = sheared_cube();
    // A fierce heater at the top corner, and the opposite corner pulled sideways.
    let top = cpu
        .body
        .reference
        .iter()
        .cloned()
        .fold(DVec3::NEG_INFINITY, DVec3::max);
    cpu.melting = Some(Melting {
        melting_point: 100.0,
        molten_stiffness: 0.005,
        diffusivity: 5.0,
        heat_source: Some(HeatSource {
            position: top,
            radius: 0.2,
            rate: 3000.0,
        }),
    });
    let dt = cpu.recommended_time_step();
    cpu.drag = Some(Drag {
        phyxel: 0,
        target: cpu.body.reference[0] + DVec3::new(-0.3, 0.1, 0.0),
        stiffness: 0.2 * cpu.body.mass[0] / (dt * dt),
        max_stretch: 0.0667,
    });
    let mut solver = upload(&gpu, &cpu, edges);
    for _ in 0..200 {
        cpu.step(dt).unwrap();
    }
    assert!(solver.step(&gpu, dt, 200), "the device took the steps");
    let state = block_on(solver.read_state(&gpu)).unwrap();
    assert!(!state.blown_up);
    let hottest = cpu.body.temperature.iter().cloned().fold(0.0, f64::max);
    assert!(hottest > 150.0, "the corner melted ({hottest} °C)");
    let softest = cpu.body.stiffness_scale.iter().cloned().fold(1.0, f64::min);
    assert!(softest < 0.01, "stiffness fell to {softest}");
    let temperature_gap = cpu
        .body
        .temperature
        .iter()
        .zip(&state.temperature)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let gpu_hottest = state.temperature.iter().cloned().fold(0.0, f64::max);
    assert!(
        temperature_gap < 1e-2,
        "temperatures differ by {temperature_gap} K (hottest: CPU {hottest}, GPU {gpu_hottest})"
    );
    let gap = worst_gap(&cpu.body.displacement, &state.displacement);
    eprintln!("melting: positions {gap:.2e} m, temperatures {temperature_gap:.2e} K apart");
    assert!(gap <= 1e-4 * 0.4, "GPU and CPU positions differ by {gap} m");
}

/// The sheared cube, perfectly plastic: no yield threshold, so every phyxel flows (a threshold would
/// make f32 and f64 runs part ways wherever a strain sits right at it).
fn plastic_sheared_cube() -> Simulation {
    let mut sim = sheared_cube();
    sim.plasticity = Some(phyxel::meshless::plasticity::Plasticity {
        yield_strain: 0.0,
        creep: 20.0,
        max_strain: 0.5,
    });
    sim
}

#[test]
fn gpu_and_cpu_agree_on_a_plastic_cube_whose_landing_moves_its_rest_shape() {
    plastic_landing_parity(Edges::Whole);
}

#[test]
fn the_device_rebuilds_the_rows_and_reverse_lists_window_by_window_at_a_reference_update() {
    plastic_landing_parity(Edges::Windowed);
}

fn plastic_landing_parity(edges: Edges) {
    use phyxel::meshless::plasticity::norm;
    let gpu = gpu();
    let mut cpu = plastic_sheared_cube();
    let mut solver = upload(&gpu, &cpu, edges);
    // 200 steps: the sheared cube flows while it falls, and the impact strains it past the
    // reference-update threshold — the device moves the rest shape and rebuilds the neighbourhoods,
    // volumes and MLS weights inside the same submission.
    let dt = cpu.recommended_time_step();
    let mut first_update = None;
    for step in 0..200 {
        cpu.step(dt).unwrap();
        if cpu.reference_updates > 0 && first_update.is_none() {
            first_update = Some(step);
        }
    }
    assert!(solver.step(&gpu, dt, 200), "the device took the steps");
    let state = block_on(solver.read_state(&gpu)).unwrap();
    assert!(!state.blown_up);
    assert_eq!(state.neighbour_overflow, None);
    assert!(
        cpu.reference_updates > 0,
        "the landing moved the rest shape (the test covers the update)"
    );
    assert_eq!(state.reference_updates as usize, cpu.reference_updates);
    let most = cpu
        .body
        .plastic_strain
        .iter()
        .map(|e| norm(*e))
        .fold(0.0, f64::max);
    assert!(most > 0.002, "plastic strain {most}");
    let strain_gap = cpu
        .body
        .plastic_strain
        .iter()
        .zip(&state.plastic_strain)
        .map(|(a, b)| norm(*a - *b))
        .fold(0.0, f64::max);
    let gpu_positions: Vec<DVec3> = state
        .reference
        .iter()
        .zip(&state.displacement)
        .map(|(x, u)| *x + *u)
        .collect();
    let gap = worst_gap(&cpu.body.positions(), &gpu_positions);
    let rest_gap = worst_gap(&cpu.body.reference, &state.reference);
    eprintln!(
        "plastic: {} reference update(s), the first at step {first_update:?}; positions {gap:.2e} m, \
         rest shapes {rest_gap:.2e} m, plastic strains {strain_gap:.2e} apart",
        cpu.reference_updates
    );
    assert!(
        strain_gap < 1e-3 * most.max(cpu.reference_update_strain),
        "plastic strains differ by {strain_gap}"
    );
    assert!(gap <= 1e-4 * 0.4, "GPU and CPU positions differ by {gap} m");
    assert!(
        rest_gap <= 1e-4 * 0.4,
        "the rest shapes differ by {rest_gap} m"
    );
    // The device's own rebuild found exactly the CPU's neighbourhoods of the new rest shape.
    let hoods = block_on(solver.read_neighbourhoods(&gpu)).unwrap();
    assert_eq!(hoods, cpu.body.neighbours);
}

#[test]
fn a_reference_update_whose_neighbour_lists_outgrow_the_buffers_is_refused_and_said() {
    let gpu = gpu();
    let cpu = plastic_sheared_cube();
    let edges = cpu.body.neighbours.neighbour.len() as u32;
    let rest = cpu.body.reference.clone();
    let mut solver = GpuSolver::new(&gpu, &cpu).unwrap();
    solver.limit_edge_capacity(edges / 2);
    assert!(solver.step(&gpu, cpu.recommended_time_step(), 200));
    let state = block_on(solver.read_state(&gpu)).unwrap();
    // The landing made an update due (as in the test above); its rows did not fit half the room.
    let needed = state.neighbour_overflow.expect("the overflow is reported");
    assert!(needed > edges / 2, "needed {needed} edges");
    assert_eq!(state.reference_updates, 0);
    assert!(
        worst_gap(&state.reference, &rest) < 1e-6,
        "the rest shape stayed"
    );
    assert!(!state.blown_up);
    // The host's way on: the update on the CPU, uploaded with room for it.
    let mut cpu = sheared_cube();
    cpu.body.displacement = state.displacement.clone();
    cpu.update_reference();
    let resized = GpuSolver::new(&gpu, &cpu).unwrap();
    let hoods = block_on(resized.read_neighbourhoods(&gpu)).unwrap();
    assert_eq!(hoods, cpu.body.neighbours);
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
    assert!(
        solver.step(&gpu, 1.0 / 60.0, 20),
        "the device took the steps"
    );
    assert!(block_on(solver.read_state(&gpu)).unwrap().blown_up);
    let mut leap_frog = sheared_cube();
    leap_frog
        .set_integrator(phyxel::integrators::Method::LeapFrog)
        .unwrap();
    let refused = GpuSolver::new(&gpu, &leap_frog).err().unwrap();
    assert!(
        refused
            .to_string()
            .contains("corotated implicit Euler only"),
        "{refused}"
    );
    // An implicit step that shears a neighbourhood by Δt·‖∇v‖ > 0.4 is flagged as on the CPU.
    let mut torn = sheared_cube();
    torn.set_corotated_implicit(Some(Default::default()));
    let dt = 1.0 / 60.0;
    torn.body.velocity = torn
        .body
        .reference
        .iter()
        .map(|x| DVec3::new(x.y / dt, 0.0, 0.0))
        .collect();
    let mut solver = GpuSolver::new(&gpu, &torn).unwrap();
    assert!(solver.step(&gpu, dt, 1), "the device took the steps");
    assert!(block_on(solver.read_state(&gpu)).unwrap().blown_up);
    assert!(torn.step(dt).unwrap_err().implicit);
    // Objects that touch through their surfaces (the CPU's meshless::contact) stay on the CPU.
    let collide = SceneDescription {
        objects: Objects::Collide,
        resolution: 4,
        ..SceneDescription::default()
    }
    .build(10_000)
    .unwrap()
    .simulation;
    let refused = GpuSolver::new(&gpu, &collide).err().unwrap();
    assert!(
        refused.to_string().contains("no contact between objects"),
        "{refused}"
    );
    // A body with background quadrature steps implicitly only.
    let mut explicit = quadrature_cube();
    explicit.set_corotated_implicit(None);
    let refused = GpuSolver::new(&gpu, &explicit).err().unwrap();
    assert!(
        refused
            .to_string()
            .contains("background quadrature with corotated implicit"),
        "{refused}"
    );
}

/// A pass runs a thread per phyxel (and one more) in one dispatch: a body needing more workgroups than
/// the device runs is refused at the upload with the limit named, not failed by the device's
/// validation at the first step (an 8-million-phyxel cube on an H100, 125 000 workgroups against
/// 65 535, did that before).
#[test]
fn a_body_with_more_phyxels_than_one_dispatch_reaches_is_refused_with_the_limit() {
    let mut gpu = gpu();
    let cube = sheared_cube();
    let n = cube.body.len() as u32;
    let needed = (n + 1).div_ceil(64);
    gpu.limits.max_compute_workgroups_per_dimension = needed;
    assert!(
        GpuSolver::new(&gpu, &cube).is_ok(),
        "exactly enough workgroups"
    );
    gpu.limits.max_compute_workgroups_per_dimension = needed - 1;
    let refused = GpuSolver::new(&gpu, &cube).err().unwrap().to_string();
    assert!(
        refused.contains(&format!("{n} phyxels need {needed} workgroups per pass"))
            && refused.contains(&format!("dispatches at most {}", needed - 1))
            && refused.contains("lower the resolution"),
        "{refused}"
    );
}

#[test]
fn a_body_larger_than_one_storage_binding_is_refused_with_the_size_it_needs() {
    use phyxel_gpu::largest_binding_bytes;
    let mut gpu = gpu();
    let cube = sheared_cube();
    let (n, edges) = (cube.body.len(), cube.body.neighbours.neighbour.len());
    // The MLS frames (64 bytes per phyxel) are the largest buffer an explicit body binds whole: the
    // weights d_ij are formed from the frames, not stored per edge, and the rows and reverse lists
    // (a u32 per neighbour pair) are bound in windows.
    let largest = largest_binding_bytes(n, false);
    assert_eq!(largest, n as u64 * 64);
    assert!(
        edges * 4 > n * 64,
        "the rows need more than one binding here"
    );
    // So two million phyxels fit lavapipe's 128 MiB binding, whatever their neighbour counts.
    assert!(largest_binding_bytes(2_000_000, false) <= 128 << 20);
    assert!(largest_binding_bytes(2_200_000, false) > 128 << 20);
    gpu.limits.max_storage_buffer_binding_size = largest;
    let solver = GpuSolver::new(&gpu, &cube).unwrap();
    assert!(
        solver.edge_windows().count > 1,
        "exactly one binding's worth of frames fits; the rows take windows"
    );
    gpu.limits.max_storage_buffer_binding_size = largest - 1;
    let refused = GpuSolver::new(&gpu, &cube).err().unwrap().to_string();
    let size = format!("{:.1} KiB", largest as f64 / 1024.0);
    assert!(
        refused.contains(&format!("{n} phyxels need a {size} buffer"))
            && refused.contains("lower the resolution"),
        "{refused}"
    );
    // The rows must fit one buffer (max_buffer_size), which may be larger than a binding.
    gpu.limits.max_storage_buffer_binding_size = largest;
    gpu.limits.max_buffer_size = edges as u64 * 4 - 4;
    let refused = GpuSolver::new(&gpu, &cube).err().unwrap().to_string();
    assert!(
        refused.contains(&format!("{edges} neighbour pairs")) && refused.contains("largest buffer"),
        "{refused}"
    );
    // The implicit step's work buffer (12 vec4 per phyxel, 5 scalars, three partial sums per
    // workgroup) and frames (three mat3x3 per phyxel) count too: they are its largest.
    let groups = n.div_ceil(64);
    let implicit_largest = ((12 * n + 5 + 3 * groups) * 16).max(n * 144) as u64;
    assert_eq!(largest_binding_bytes(n, true), implicit_largest);
    assert!(largest_binding_bytes(n, false) < implicit_largest);
}

/// CG settings tight enough that f32 and f64 solves agree well inside the parity bound.
fn tight_cg() -> CorotatedImplicit {
    CorotatedImplicit {
        tolerance: 1e-5,
        max_iterations: 200,
        rayleigh: Rayleigh {
            mass: 0.5,
            stiffness: 0.002,
        },
    }
}

/// `steps` implicit steps of `dt` on the CPU and on the GPU: the largest position gap, and both
/// solves' statistics of the last step.
fn implicit_gap(
    cpu: Simulation,
    dt: f64,
    steps: usize,
    edges: Edges,
) -> (f64, SolveStats, SolveStats) {
    let (cpu, state) = implicit_steps(cpu, dt, steps, edges);
    let gap = worst_gap(&cpu.body.displacement, &state.displacement);
    (gap, cpu.last_solve().unwrap(), state.last_solve.unwrap())
}

/// `steps` implicit steps of `dt` on the CPU and on the GPU: the CPU simulation and the GPU's state.
fn implicit_steps(
    mut cpu: Simulation,
    dt: f64,
    steps: usize,
    edges: Edges,
) -> (Simulation, GpuState) {
    let gpu = gpu();
    cpu.set_corotated_implicit(Some(tight_cg()));
    let mut solver = upload(&gpu, &cpu, edges);
    for _ in 0..steps {
        cpu.step(dt).unwrap();
    }
    assert!(
        solver.step(&gpu, dt, steps as u32),
        "the device took the steps"
    );
    let state = block_on(solver.read_state(&gpu)).unwrap();
    assert!(!state.blown_up, "the GPU flagged a blow-up");
    (cpu, state)
}

/// Explicit steps hold fixed phyxels as the CPU's do (`Settle::phyxel`: where they were, at rest,
/// after the colliders): the lesson's cantilever at 1 MPa with MKN04's model, clamped by its face and
/// one layer inside the wall, sags under gravity alike on both.
#[test]
fn gpu_and_cpu_explicit_steps_agree_on_a_cantilever_clamped_by_fixed_phyxels() {
    let mut cpu = cantilever().simulation(0.0);
    cpu.elasticity = Elasticity::Mkn04;
    let held: Vec<usize> = (0..cpu.body.len()).filter(|&i| cpu.fixed[i]).collect();
    assert!(!held.is_empty() && held.len() < cpu.body.len());
    let gpu = gpu();
    let mut solver = upload(&gpu, &cpu, Edges::Whole);
    // 400 steps of 0.1 h√(ρ/E): about 0.09 s, the tip sagging by centimetres.
    let dt = cpu.recommended_time_step();
    let steps = 400;
    for _ in 0..steps {
        cpu.step(dt).unwrap();
    }
    assert!(solver.step(&gpu, dt, steps), "the device took the steps");
    let state = block_on(solver.read_state(&gpu)).unwrap();
    assert!(!state.blown_up, "the GPU flagged a blow-up");
    for &i in &held {
        assert_eq!(state.displacement[i], DVec3::ZERO, "held phyxel {i} moved");
        assert_eq!(
            state.velocity[i],
            DVec3::ZERO,
            "held phyxel {i} has a velocity"
        );
    }
    let sag = cpu
        .body
        .displacement
        .iter()
        .map(|u| -u.y)
        .fold(0.0, f64::max);
    let gap = worst_gap(&cpu.body.displacement, &state.displacement);
    eprintln!("cantilever, {steps} explicit steps: tip sag {sag:.3e} m, GPU vs CPU {gap:.2e} m");
    assert!(sag > 5e-3, "the beam sagged {sag} m: the forces acted");
    assert!(gap <= 1e-4 * 0.5, "positions differ by {gap} m");
}

/// The lesson's cantilever at 1 MPa: 0.5 m long, 0.1 m thick, 3 phyxels across, nodal (its face and
/// one layer inside the wall fixed).
fn cantilever() -> Beam {
    Beam {
        length: 0.5,
        thickness: 0.1,
        across: 3,
        material: Material {
            young: 1e6,
            poisson: 0.3,
            density: 1000.0,
            volume_stiffness: 0.0,
        },
        integration: phyxel::lessons::integrating_solid::Integration::NodalKernelDensity,
    }
}

#[test]
fn gpu_and_cpu_implicit_steps_agree_on_a_clamped_beam() {
    let sim = cantilever().simulation(0.0);
    let (gap, cpu, gpu) = implicit_gap(sim, 1.0 / 60.0, 20, Edges::Whole);
    eprintln!(
        "clamped beam, 20 implicit steps of 1/60 s: GPU vs CPU {gap:.2e} m; CG {cpu:?} vs {gpu:?}"
    );
    assert!(gap <= 1e-4 * 0.5, "positions differ by {gap} m");
    assert!(gpu.converged && gpu.relative_residual <= 1e-5, "{gpu:?}");
    let ratio = gpu.iterations as f64 / cpu.iterations as f64;
    assert!(
        (0.7..=1.5).contains(&ratio),
        "CG iterations {} (GPU) vs {} (CPU)",
        gpu.iterations,
        cpu.iterations
    );
}

/// E = 1 MPa, ν = 0.3, ρ = 1000 kg/m³.
fn jelly() -> Material {
    Material {
        young: 1e6,
        poisson: 0.3,
        density: 1000.0,
        volume_stiffness: 0.0,
    }
}

/// Particles on the lattice of spacing `a` over `lattice`, integrated over `region` by background
/// quadrature with the default settings (seed 003 §3.3: Gauss points of a grid of cell a, shape
/// functions over 1.8 a).
fn quadrature_body(lattice: &Shape, region: &Shape, a: f64) -> Body {
    let mut body = Body::new(
        sample(lattice, a, Lattice::Cubic),
        a.powi(3),
        a,
        jelly(),
        SupportRadius::SpacingMultiple { factor: 2.2 },
    );
    body.set_quadrature(region, a, QuadratureSettings::default())
        .unwrap();
    body
}

/// A 0.4 m cube of 4 × 4 × 4 particles integrated by background quadrature, dropped from 0.3 m,
/// sheared a little, stepped by corotated implicit Euler.
fn quadrature_cube() -> Simulation {
    let a = 0.1;
    let region = Shape::Box {
        min: DVec3::new(0.0, 0.3, 0.0),
        max: DVec3::new(0.4, 0.7, 0.4),
    };
    // The particles at the centres of the region's cells.
    let lattice = Shape::Box {
        min: DVec3::new(0.05, 0.35, 0.05),
        max: DVec3::new(0.35, 0.65, 0.35),
    };
    let mut body = quadrature_body(&lattice, &region, a);
    body.displacement = body
        .reference
        .iter()
        .map(|x| DVec3::new(0.05 * (x.y - 0.5), 0.0, 0.02 * x.x))
        .collect();
    let mut sim = Simulation::new(body, Environment::default());
    sim.elasticity = Elasticity::CorotatedLinear;
    sim.set_corotated_implicit(Some(tight_cg()));
    sim
}

/// `sim`, a body integrated by background quadrature, on the device with its shape-function rows and
/// reverse lists bound as `edges` says: whole (one window), or in windows of 64 KiB (4096 edges of 16
/// bytes: several for these bodies), as a quadrature beyond one storage binding is.
fn upload_quadrature(gpu: &GpuContext, sim: &Simulation, edges: Edges) -> GpuSolver {
    match edges {
        Edges::Whole => {
            let solver = GpuSolver::new(gpu, sim).unwrap();
            assert_eq!(solver.quadrature_edge_windows().unwrap().count, 1);
            solver
        }
        Edges::Windowed => {
            let solver = GpuSolver::with_edge_windows(gpu, sim, 64 << 10).unwrap();
            let windows = solver.quadrature_edge_windows().unwrap();
            assert!(windows.count > 1, "{windows:?}");
            eprintln!("quadrature edge windows: {windows:?}");
            solver
        }
    }
}

/// `steps` implicit steps of 1/60 s of `cpu` on the CPU and the GPU (its quadrature's per-edge buffers
/// bound as `edges` says), read back every 20 steps (so the device's CG budget follows the solves): the
/// largest position gap after each read-back, and the last step's solves.
fn quadrature_gap(
    mut cpu: Simulation,
    steps: usize,
    edges: Edges,
) -> (f64, Simulation, SolveStats, SolveStats) {
    let gpu = gpu();
    cpu.set_corotated_implicit(Some(tight_cg()));
    let mut solver = upload_quadrature(&gpu, &cpu, edges);
    let dt = 1.0 / 60.0;
    let mut gap = 0.0f64;
    let mut state = None;
    for _ in 0..steps.div_ceil(20) {
        for _ in 0..20 {
            cpu.step(dt).unwrap();
        }
        assert!(solver.step(&gpu, dt, 20), "the device took the steps");
        let read = block_on(solver.read_state(&gpu)).unwrap();
        assert!(!read.blown_up, "the GPU flagged a blow-up");
        gap = gap.max(worst_gap(&cpu.body.displacement, &read.displacement));
        state = Some(read);
    }
    let gpu_solve = state.unwrap().last_solve.unwrap();
    let cpu_solve = cpu.last_solve().unwrap();
    (gap, cpu, cpu_solve, gpu_solve)
}

/// One implicit step of the same body on the CPU and the GPU: both solves and the largest gaps after it.
struct ComparedStep {
    cpu: SolveStats,
    gpu: SolveStats,
    /// max_i |v_i(GPU) − v_i(CPU)| (m/s).
    velocity_gap: f64,
    /// max_i |u_i(GPU) − u_i(CPU)| (m).
    position_gap: f64,
}

/// `steps` implicit steps of 1/60 s of `cpu` on the CPU and the GPU, read back after every step (the
/// device's CG budget follows each solve): the CPU simulation and each step's comparison.
fn compare_each_step(mut cpu: Simulation, steps: usize) -> (Simulation, Vec<ComparedStep>) {
    let gpu = gpu();
    cpu.set_corotated_implicit(Some(tight_cg()));
    let mut solver = GpuSolver::new(&gpu, &cpu).unwrap();
    let dt = 1.0 / 60.0;
    let compared = (0..steps)
        .map(|_| {
            cpu.step(dt).unwrap();
            assert!(solver.step(&gpu, dt, 1), "the device took the step");
            let state = block_on(solver.read_state(&gpu)).unwrap();
            assert!(!state.blown_up, "the GPU flagged a blow-up");
            ComparedStep {
                cpu: cpu.last_solve().unwrap(),
                gpu: state.last_solve.unwrap(),
                velocity_gap: worst_gap(&cpu.body.velocity, &state.velocity),
                position_gap: worst_gap(&cpu.body.displacement, &state.displacement),
            }
        })
        .collect();
    (cpu, compared)
}

/// The CG iterations a step on the device may take beyond the CPU's (and beyond 1.5× them): what its
/// single precision still costs while a body settles. Measured 2026-11-25 on the quadrature landing
/// cube: at most 3 (steps 41–100, 192 against 140 in all); at rest (steps 101–200) the two agree, 52
/// against 48. Before the corotated strain was summed from small terms (elasticity.wgsl's
/// `corotated_stress`) the device took 4–6 a step at rest where the CPU took 0–1 (476 against 48):
/// stress noise of E·6·10⁻⁸ that CG solved for at every step.
const SETTLING_ITERATIONS: usize = 4;

#[test]
fn gpu_and_cpu_implicit_steps_agree_on_a_quadrature_cube_landing_on_the_ground() {
    // Lands after 0.25 s (15 steps) and rests: the contacts, their release and friction act on the
    // particles of a body whose forces come from its integration points. Both solves are deflated
    // along the translations the ground leaves free (the cube holds no surface).
    let sim = quadrature_cube();
    let q = sim.body.quadrature().unwrap();
    let (points, edges) = (q.len(), q.shape.particle.len());
    assert!(!sim.body.holds_a_surface());
    // The Δv a solve may miss by: CG stops at ‖r‖ ≤ τ Δt‖M g‖ (its reference norm) and A ≥ M, so
    // ‖δΔv‖ ≤ τ Δt‖M g‖ / min_i m_i.
    let dt = 1.0 / 60.0;
    let weight_impulse = dt
        * sim.environment.gravity.length()
        * sim.body.mass.iter().map(|m| m * m).sum::<f64>().sqrt();
    let lightest = sim.body.mass.iter().cloned().fold(f64::INFINITY, f64::min);
    let velocity_bound = tight_cg().tolerance * weight_impulse / lightest;
    let (cpu, steps) = compare_each_step(sim, 200);
    let fell = cpu
        .body
        .displacement
        .iter()
        .map(|u| -u.y)
        .fold(0.0, f64::max);
    let iterations = |range: std::ops::Range<usize>, gpu: bool| -> usize {
        steps[range]
            .iter()
            .map(|s| if gpu { s.gpu } else { s.cpu }.iterations)
            .sum()
    };
    // Steps 1–40: the fall, the landing and the bounce, where CG has work to do; 101–200: at rest.
    let (moving_cpu, moving_gpu) = (iterations(0..40, false), iterations(0..40, true));
    let (resting_cpu, resting_gpu) = (iterations(100..200, false), iterations(100..200, true));
    let position_gap = steps.iter().map(|s| s.position_gap).fold(0.0, f64::max);
    let velocity_gap = steps.iter().map(|s| s.velocity_gap).fold(0.0, f64::max);
    let last = steps.last().unwrap();
    eprintln!(
        "quadrature cube ({points} points, {edges} edges), 200 implicit steps of 1/60 s, read back \
         after each: positions GPU vs CPU within {position_gap:.2e} m, velocities {velocity_gap:.2e} m/s \
         (bound {velocity_bound:.2e}); fell {fell:.3} m; CG iterations over steps 1–40 {moving_gpu} \
         (GPU) vs {moving_cpu} (CPU), over steps 101–200 at rest {resting_gpu} vs {resting_cpu}; last \
         step {:?} vs {:?}",
        last.gpu, last.cpu
    );
    assert!(fell > 0.25, "the cube fell {fell} m and reached the ground");
    let size = 0.4;
    assert!(
        position_gap <= 1e-4 * size,
        "quadrature cube: GPU and CPU positions differ by {position_gap:.2e} m (bound {:.0e} m)",
        1e-4 * size
    );
    assert!(
        velocity_gap <= velocity_bound,
        "quadrature cube: GPU and CPU velocities differ by {velocity_gap:.2e} m/s (bound \
         {velocity_bound:.2e} m/s)"
    );
    // While it moves, the device's solves take the CPU's iterations (measured 2026-11-25: 661 vs
    // 644, 1.03×), as the nodal landing cube's do.
    let ratio = moving_gpu as f64 / moving_cpu as f64;
    assert!(
        (0.7..=1.5).contains(&ratio),
        "steps 1–40: {moving_gpu} CG iterations on the GPU, {moving_cpu} on the CPU"
    );
    // At rest too (measured: 52 vs 48, 1.08×; 476 vs 48 with the strain formed next to the identity).
    let ratio = resting_gpu as f64 / resting_cpu as f64;
    assert!(
        (0.7..=1.5).contains(&ratio),
        "steps 101–200: {resting_gpu} CG iterations on the GPU, {resting_cpu} on the CPU"
    );
    // And every step within 1.5× the CPU's or `SETTLING_ITERATIONS` above them.
    for (step, s) in steps.iter().enumerate() {
        let allowed = (3 * s.cpu.iterations)
            .div_ceil(2)
            .max(s.cpu.iterations + SETTLING_ITERATIONS);
        assert!(
            s.gpu.converged && s.gpu.iterations <= allowed,
            "step {}: {:?} on the GPU, {:?} on the CPU",
            step + 1,
            s.gpu,
            s.cpu
        );
    }
}

#[test]
fn gpu_and_cpu_plastic_flow_at_integration_points_agree() {
    plastic_points_parity(Edges::Whole);
}

#[test]
fn gpu_and_cpu_plastic_flow_at_integration_points_agree_with_the_rows_in_edge_windows() {
    // point_plastic_flow runs once per window of the rows.
    plastic_points_parity(Edges::Windowed);
}

fn plastic_points_parity(edges: Edges) {
    // The sheared cube yields at once (c_yield 0.01 below its 0.05 shear, c_creep Δt ≥ 1: perfect
    // plasticity) and keeps flowing as it lands: F_p,I at every point, on both, read back.
    let mut sim = quadrature_cube();
    sim.plasticity = Some(phyxel::meshless::plasticity::Plasticity {
        yield_strain: 0.01,
        creep: 100.0,
        max_strain: 0.5,
    });
    let gpu = gpu();
    let mut cpu = sim;
    cpu.set_corotated_implicit(Some(tight_cg()));
    let mut solver = upload_quadrature(&gpu, &cpu, edges);
    let dt = 1.0 / 60.0;
    for _ in 0..60 {
        cpu.step(dt).unwrap();
    }
    assert!(solver.step(&gpu, dt, 60), "the device took the steps");
    let state = block_on(solver.read_state(&gpu)).unwrap();
    assert!(!state.blown_up);
    let gap = worst_gap(&cpu.body.displacement, &state.displacement);
    let q = cpu.body.quadrature().unwrap();
    let points = state
        .point_plastic_deformation
        .expect("the points' F_p read back");
    assert_eq!(points.len(), q.len());
    let (mut worst, mut largest) = (0.0f64, 0.0f64);
    for (cpu_fp, gpu_fp) in q.plastic_deformation.iter().zip(&points) {
        worst = worst.max(
            (*cpu_fp - *gpu_fp)
                .to_cols_array()
                .iter()
                .map(|d| d.abs())
                .fold(0.0, f64::max),
        );
        largest = largest.max(
            (*cpu_fp - DMat3::IDENTITY)
                .to_cols_array()
                .iter()
                .map(|d| d.abs())
                .fold(0.0, f64::max),
        );
    }
    eprintln!(
        "plastic quadrature cube ({edges:?}), 60 implicit steps: positions GPU vs CPU {gap:.2e} m; F_p,I differ by \
         {worst:.2e} at most, flowed up to {largest:.3} from I"
    );
    assert!(largest > 0.01, "the points flowed ({largest})");
    assert!(gap <= 1e-4 * 0.4, "positions differ by {gap} m");
    assert!(worst <= 1e-3 * largest.max(1.0), "F_p,I differ by {worst}");
}

#[test]
fn gpu_and_cpu_melting_at_integration_points_agree() {
    melting_points_parity(Edges::Whole);
}

#[test]
fn gpu_and_cpu_melting_at_integration_points_agree_with_the_rows_in_edge_windows() {
    // soften runs once per window of the rows, binding the shape values φ_i(x_I) (4 bytes per edge)
    // at the same edges as the rows (16).
    melting_points_parity(Edges::Windowed);
}

fn melting_points_parity(edges: Edges) {
    // A heat source at the cube's centre softens its phyxels; each point interpolates their factors
    // (s_I = Σ φ_i s_i, clamped), its λ_I, μ_I follow, and the softened cube sags alike on both.
    let mut cpu = quadrature_cube();
    cpu.melting = Some(phyxel::meshless::melting::Melting {
        heat_source: Some(phyxel::meshless::melting::HeatSource {
            position: DVec3::new(0.2, 0.5, 0.2),
            radius: 0.3,
            rate: 3000.0,
        }),
        ..phyxel::meshless::melting::Melting::default()
    });
    let (gap, cpu, _, _) = quadrature_gap(cpu, 120, edges);
    let q = cpu.body.quadrature().unwrap();
    let softest = q.softening.iter().cloned().fold(1.0, f64::min);
    eprintln!("melting quadrature cube ({edges:?}), 120 implicit steps: GPU vs CPU {gap:.2e} m; softest point s_I = {softest:.3}");
    assert!(softest < 0.5, "the points softened ({softest})");
    assert!(gap <= 1e-4 * 0.4, "positions differ by {gap} m");
}

#[test]
fn gpu_and_cpu_implicit_steps_agree_on_a_quadrature_beam_held_by_its_face() {
    held_quadrature_beam_parity(Edges::Whole, 60);
}

#[test]
fn gpu_and_cpu_implicit_steps_agree_on_the_held_quadrature_beam_with_its_rows_in_edge_windows() {
    // Every point pass runs once per window of the rows (the held face's points among them), every
    // particle pass once per window of the reverse lists; the bounds are the unwindowed test's. A
    // window's indexing shows in the first step; 40 steps take the beam through its first swing.
    held_quadrature_beam_parity(Edges::Windowed, 40);
}

/// `steps` implicit steps of 1/60 s of a held beam on both. A cantilever 0.5 m long, 0.1 m thick, 4
/// particles across (a = 0.1/3), its face x = 0 held by the quadrature's penalty
/// (`Quadrature::hold_surface`, β = 100): it sags under its weight and swings. Its first period, a
/// cantilever's ω₁ = 3.516√(EI/(ρAL⁴)) with its static sag δ = ρAgL⁴/(8EI), is
/// T = 2π√(8δ/g)/3.516 ≈ 0.48 s (E = 1 MPa, δ ≈ 0.09 m): 40 steps see it fall and turn back, 60 a
/// whole swing (200 steps took 195 s on lavapipe, 268 s in windows).
fn held_quadrature_beam_parity(edges: Edges, steps: usize) {
    let (length, height) = (0.5, 0.1);
    let a = height / 3.0;
    let beam = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::new(length, height, height),
    };
    let mut body = quadrature_body(&beam, &beam, a);
    let face = box_face_points(DVec3::ZERO, DVec3::new(length, height, height), 0, false, a);
    body.hold_surface(&face, 100.0, a).unwrap();
    let mut sim = Simulation::new(
        body,
        Environment {
            colliders: vec![],
            damping: 0.0,
            ..Environment::default()
        },
    );
    sim.elasticity = Elasticity::CorotatedLinear;
    let (gap, cpu, cpu_solve, gpu_solve) = quadrature_gap(sim, steps, edges);
    let sag = cpu
        .body
        .displacement
        .iter()
        .map(|u| -u.y)
        .fold(0.0, f64::max);
    eprintln!(
        "quadrature beam held by its face ({edges:?}), {steps} implicit steps of 1/60 s: GPU vs CPU {gap:.2e} m; \
         tip sag {sag:.2e} m; CG {cpu_solve:?} vs {gpu_solve:?}"
    );
    assert!(sag > 1e-3, "the beam sags {sag} m");
    assert!(
        gap <= 1e-4 * length,
        "held quadrature beam: GPU and CPU positions differ by {gap:.2e} m (bound {:.0e} m)",
        1e-4 * length
    );
    assert_similar_solves(cpu_solve, gpu_solve);
}

/// Both solves converged in a similar number of CG iterations: the device's preconditioner (its
/// stiffness diagonal) is the CPU's.
fn assert_similar_solves(cpu: SolveStats, gpu: SolveStats) {
    assert!(gpu.converged, "{gpu:?}");
    let ratio = gpu.iterations as f64 / cpu.iterations as f64;
    assert!(
        (0.7..=1.5).contains(&ratio),
        "CG iterations {} (GPU) vs {} (CPU)",
        gpu.iterations,
        cpu.iterations
    );
}

#[test]
fn gpu_and_cpu_implicit_steps_agree_on_a_quadrature_beam_clamped_by_fixed_phyxels() {
    // A cantilever 0.5 m long, 0.1 m thick, 3 particles across (a = 0.05 m), one lattice layer of it
    // inside the wall (the integration region too) and the particles at x ≤ 0 held fixed: the device
    // keeps fixed rows out of CG as the CPU does.
    let (length, height) = (0.5, 0.1);
    let a = height / 2.0;
    let embedded = Shape::Box {
        min: DVec3::new(-a, 0.0, 0.0),
        max: DVec3::new(length, height, height),
    };
    let body = quadrature_body(&embedded, &embedded, a);
    let fixed = body.reference.iter().map(|x| x.x < 1e-9 * a).collect();
    let mut sim = Simulation::new(
        body,
        Environment {
            colliders: vec![],
            damping: 0.0,
            ..Environment::default()
        },
    );
    sim.fixed = fixed;
    sim.elasticity = Elasticity::CorotatedLinear;
    assert!(sim.body.quadrature().is_some() && sim.fixed.iter().any(|&f| f));
    let (gap, cpu, cpu_solve, gpu_solve) = quadrature_gap(sim, 200, Edges::Whole);
    let sag = cpu
        .body
        .displacement
        .iter()
        .map(|u| -u.y)
        .fold(0.0, f64::max);
    eprintln!(
        "quadrature beam clamped by fixed phyxels, 200 implicit steps of 1/60 s: GPU vs CPU \
         {gap:.2e} m; tip sag {sag:.2e} m; CG {cpu_solve:?} vs {gpu_solve:?}"
    );
    assert!(sag > 1e-3, "the beam sags {sag} m");
    assert!(
        gap <= 1e-4 * 0.5,
        "clamped quadrature beam: GPU and CPU positions differ by {gap:.2e} m (bound 5e-5 m)"
    );
    assert_similar_solves(cpu_solve, gpu_solve);
}

#[test]
fn a_quadrature_s_points_beyond_one_storage_binding_are_refused_and_its_edges_take_windows() {
    let mut gpu = gpu();
    let mut cube = quadrature_cube();
    let q = cube.body.quadrature().unwrap();
    // The largest buffer bound whole: the points' frames, 96 bytes per point; the shape-function
    // rows (16 bytes per edge) are larger, and are bound in windows.
    let largest = phyxel_gpu::quadrature_binding_bytes(q);
    assert_eq!(largest, q.len() as u64 * 96);
    let edge_bytes = q.shape.particle.len() as u64 * 16;
    assert!(largest > phyxel_gpu::largest_binding_bytes(cube.body.len(), true));
    assert!(
        edge_bytes > 2 * largest,
        "{edge_bytes} B of edges, {largest} B of frames"
    );
    gpu.limits.max_storage_buffer_binding_size = largest;
    let mut solver = GpuSolver::new(&gpu, &cube).unwrap();
    let windows = solver.quadrature_edge_windows().unwrap();
    eprintln!(
        "quadrature cube ({} points, {edge_bytes} B of rows) on a device binding {largest} B: \
         {windows:?}",
        q.len()
    );
    assert!(windows.count > 2, "{windows:?}");
    assert!(u64::from(windows.span) * 16 <= largest, "{windows:?}");
    // The windowed body steps as the CPU does (20 steps: it falls, lands and bounces).
    cube.set_corotated_implicit(Some(tight_cg()));
    let dt = 1.0 / 60.0;
    for _ in 0..20 {
        cube.step(dt).unwrap();
    }
    assert!(solver.step(&gpu, dt, 20), "the device took the steps");
    let state = block_on(solver.read_state(&gpu)).unwrap();
    assert!(!state.blown_up);
    let gap = worst_gap(&cube.body.displacement, &state.displacement);
    eprintln!("after 20 steps GPU vs CPU {gap:.2e} m");
    assert!(gap <= 1e-4 * 0.4, "positions differ by {gap} m");
    // One byte less and the frames no longer fit: refused with the size they need.
    gpu.limits.max_storage_buffer_binding_size = largest - 1;
    let refused = GpuSolver::new(&gpu, &quadrature_cube())
        .err()
        .unwrap()
        .to_string();
    let size = format!("{:.1} KiB", largest as f64 / 1024.0);
    assert!(
        refused.contains(&format!("need a {size} buffer for their frames"))
            && refused.contains("max_storage_buffer_binding_size"),
        "{refused}"
    );
}

#[test]
fn gpu_and_cpu_implicit_steps_agree_on_a_cube_landing_on_the_ground() {
    implicit_landing_parity(Edges::Whole);
}

#[test]
fn gpu_and_cpu_implicit_steps_agree_with_the_rows_in_edge_windows() {
    implicit_landing_parity(Edges::Windowed);
}

fn implicit_landing_parity(edges: Edges) {
    // Dropped from 0.3 m, the cube lands after 0.25 s and rests: contacts, their release and friction.
    let mut sim = sheared_cube();
    sim.body.material.young = 1e6;
    sim.elasticity = phyxel::meshless::simulation::Elasticity::CorotatedLinear;
    let (gap, cpu, gpu) = implicit_gap(sim, 1.0 / 60.0, 40, edges);
    eprintln!(
        "landing cube, 40 implicit steps of 1/60 s: GPU vs CPU {gap:.2e} m; CG {cpu:?} vs {gpu:?}"
    );
    assert!(gap <= 1e-4 * 0.4, "positions differ by {gap} m");
    // Resting on the ground, x and z are free: both solves are deflated along them (measured
    // 2026-11-25 at the last step: 19 iterations on the CPU, 20 on the GPU — 22 with the corotated
    // strain formed next to the identity in f32 —; 30 on the GPU undeflated).
    assert_similar_solves(cpu, gpu);
}

#[test]
fn a_freely_falling_body_s_deflated_solve_takes_the_cpu_s_iterations() {
    // An undeformed cube falling with Rayleigh mass damping: every step's right-hand side is
    // Δt m_i (g − α v), a translation, which the deflation by the translations solves exactly (CPU:
    // 0 CG iterations a step). Undeflated, block-Jacobi breaks the uniform residual apart (a surface
    // phyxel's block is lighter than an inner one's) and CG needs many iterations to put it back
    // together: 23 iterations in the first step on the GPU here (measured 2026-11-25 with the
    // deflation's passes left out), 0 deflated.
    let mut cpu = sheared_cube();
    cpu.body.displacement = vec![DVec3::ZERO; cpu.body.len()];
    cpu.set_corotated_implicit(Some(tight_cg()));
    let gpu = gpu();
    let mut solver = upload(&gpu, &cpu, Edges::Whole);
    let dt = 1.0 / 60.0;
    // Five steps: the cube (dropped from 0.3 m) is still in the air.
    for step in 1..=5 {
        let before = cpu.body.velocity.clone();
        cpu.step(dt).unwrap();
        assert!(solver.step(&gpu, dt, 1), "the device took the step");
        let state = block_on(solver.read_state(&gpu)).unwrap();
        let (cpu_solve, gpu_solve) = (cpu.last_solve().unwrap(), state.last_solve.unwrap());
        let cpu_dv: Vec<DVec3> = cpu
            .body
            .velocity
            .iter()
            .zip(&before)
            .map(|(v, b)| *v - *b)
            .collect();
        let largest_dv = cpu_dv.iter().map(|dv| dv.length()).fold(0.0, f64::max);
        let velocity_gap = worst_gap(&cpu.body.velocity, &state.velocity);
        let gap = worst_gap(&cpu.body.displacement, &state.displacement);
        eprintln!(
            "free fall, step {step}: CG {cpu_solve:?} (CPU) vs {gpu_solve:?} (GPU); Δv {largest_dv:.3e} \
             m/s, velocities differ by {velocity_gap:.2e} m/s, positions by {gap:.2e} m"
        );
        assert!(cpu_solve.converged && gpu_solve.converged, "{gpu_solve:?}");
        assert!(
            gpu_solve.iterations <= cpu_solve.iterations + 1,
            "step {step}: {} CG iterations on the GPU, {} on the CPU",
            gpu_solve.iterations,
            cpu_solve.iterations
        );
        // Δv (and so v) as on the CPU: the parity bound of the positions, 10⁻⁴ of the size, and
        // 10⁻⁴ of the step's Δv.
        assert!(
            velocity_gap <= 1e-4 * largest_dv,
            "velocities differ by {velocity_gap} m/s"
        );
        assert!(gap <= 1e-4 * 0.4, "positions differ by {gap} m");
    }
}

#[test]
fn the_gpu_hash_grid_finds_exactly_the_cpu_neighbour_sets() {
    hash_grid_parity(gpu());
}

#[test]
fn the_gpu_hash_grid_writes_its_rows_and_reverse_lists_window_by_window() {
    // A device that binds 16 KiB at most: the 960 points' ≈ 20 000 edges take several windows.
    let mut gpu = gpu();
    gpu.limits.max_storage_buffer_binding_size = 16 << 10;
    hash_grid_parity(gpu);
}

fn hash_grid_parity(gpu: GpuContext) {
    // Jittered lattice points with per-phyxel radii, across negative coordinates and cell borders;
    // enough of them that the prefix sums span several blocks (table of 2n + 1 > 256 entries).
    let mut state = 12345u64;
    let mut random = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut points = Vec::new();
    let mut radii = Vec::new();
    for i in -6..6 {
        for j in -5..5 {
            for k in -4..4 {
                let jitter = DVec3::new(random(), random(), random()) - 0.5;
                points.push(0.1 * (DVec3::new(i as f64, j as f64, k as f64) + 0.6 * jitter));
                radii.push(0.1 * (1.5 + random()));
            }
        }
    }
    let cpu = phyxel::meshless::neighbours::Neighbourhoods::build(&points, &radii);
    let on_gpu = block_on(phyxel_gpu::build_neighbourhoods(&gpu, &points, &radii)).unwrap();
    eprintln!(
        "{} edges, {} bytes a binding",
        cpu.neighbour.len(),
        gpu.limits.max_storage_buffer_binding_size
    );
    assert_eq!(on_gpu.start, cpu.start, "row starts");
    assert_eq!(on_gpu.neighbour, cpu.neighbour, "neighbour lists");
    assert_eq!(on_gpu.owner, cpu.owner);
    assert_eq!(on_gpu.reverse_start, cpu.reverse_start);
    assert_eq!(on_gpu.reverse, cpu.reverse, "reverse lists");
    assert!(
        cpu.mean_count() > 10.0,
        "{} neighbours on average",
        cpu.mean_count()
    );
}

/// Pass 2 on the device for `body`'s reference shape and neighbourhoods.
fn mls_weights_on_gpu(
    gpu: &GpuContext,
    body: &phyxel::meshless::body::Body,
) -> phyxel_gpu::GpuMlsWeights {
    block_on(phyxel_gpu::compute_mls_weights(
        gpu,
        &body.reference,
        &body.support_radius,
        &body.mass,
        &body.neighbours,
    ))
    .unwrap()
}

#[test]
fn the_gpu_moment_matrices_and_mls_weights_equal_the_cpu_ones() {
    let gpu = gpu();
    // The bunny (irregular boundary) plus a collinear and a lone phyxel far away: regular, rank-1
    // and rank-0 moment matrices in one run.
    let mut sim = SceneDescription {
        objects: Objects::Bunny,
        resolution: 10,
        ..SceneDescription::default()
    }
    .build(10_000)
    .unwrap()
    .simulation;
    let body = &mut sim.body;
    let spacing = body.support_radius[0] / 2.2;
    let far = DVec3::new(5.0, 5.0, 5.0);
    for k in 0..3 {
        body.reference.push(far + DVec3::X * spacing * k as f64);
    }
    body.reference.push(-far);
    let extra = body.reference.len() - body.support_radius.len();
    body.support_radius
        .extend(vec![body.support_radius[0]; extra]);
    body.mass.extend(vec![body.mass[0]; extra]);
    body.displacement.resize(body.reference.len(), DVec3::ZERO);
    body.velocity.resize(body.reference.len(), DVec3::ZERO);
    body.plastic_strain
        .resize(body.reference.len(), glam::DMat3::ZERO);
    body.temperature.resize(body.reference.len(), 20.0);
    body.stiffness_scale.resize(body.reference.len(), 1.0);
    body.density.resize(body.reference.len(), 0.0);
    body.volume.resize(body.reference.len(), 0.0);
    body.rebuild_reference();
    let on_gpu = mls_weights_on_gpu(&gpu, body);
    assert_eq!(on_gpu.rank, body.mls.rank, "ranks kept by the safe inverse");
    let n = body.len();
    assert_eq!(
        &on_gpu.rank[n - 4..],
        [1, 1, 1, 0],
        "collinear and lone phyxels"
    );
    assert!(body.mls.regularized >= 4);
    for i in 0..n {
        assert!(
            (on_gpu.density[i] / body.density[i] - 1.0).abs() < 1e-5,
            "density {i}"
        );
        assert!(
            (on_gpu.volume[i] / body.volume[i] - 1.0).abs() < 1e-5,
            "volume {i}"
        );
    }
    // d_ij relative to the largest of its phyxel (single precision, eigen-decomposition in f32).
    let largest = body.mls.d().iter().map(|d| d.length()).fold(0.0, f64::max);
    let worst = body
        .mls
        .d()
        .iter()
        .zip(&on_gpu.d)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0, f64::max);
    eprintln!(
        "MLS weights: worst |Δd| = {:.2e} of the largest |d|",
        worst / largest
    );
    assert!(
        worst <= 1e-4 * largest,
        "d_ij differ by {worst} (largest {largest})"
    );
}

#[test]
fn the_mls_weights_of_a_microscopic_body_stay_finite_in_single_precision() {
    // The cube of 10³ phyxels shrunk to support radius h = 4·10⁻⁵ m (about a millimetre across), where
    // h⁹ (3·10⁻⁴⁰) is below the smallest normal f32 — poly6's normalization 315/(64π h⁹) written that
    // way would be infinite.
    let gpu = gpu();
    let mut body = SceneDescription {
        resolution: 10,
        ..SceneDescription::default()
    }
    .build(1_000)
    .unwrap()
    .simulation
    .body;
    let scale = 4e-5 / body.support_radius[0];
    for x in &mut body.reference {
        *x *= scale;
    }
    for h in &mut body.support_radius {
        *h *= scale;
    }
    assert!(body.support_radius[0].powi(9) < f32::MIN_POSITIVE as f64);
    body.rebuild_reference();
    let on_gpu = mls_weights_on_gpu(&gpu, &body);
    assert_eq!(on_gpu.rank, body.mls.rank);
    let largest = body.mls.d().iter().map(|d| d.length()).fold(0.0, f64::max);
    for (a, b) in body.mls.d().iter().zip(&on_gpu.d) {
        assert!(a.distance(*b) <= 1e-4 * largest, "d_ij {a} vs {b}");
    }
    for (a, b) in body.density.iter().zip(&on_gpu.density) {
        assert!((a / b - 1.0).abs() < 1e-4, "density {a} vs {b}");
    }
}

#[test]
fn gpu_and_cpu_agree_on_a_plastic_cube_flattened_by_its_landing() {
    // Multiplicative plasticity (Zhou §3.2): the landing flows the lower layers.
    let mut sim = sheared_cube();
    sim.body.material.young = 1e5;
    sim.plasticity = Some(phyxel::meshless::plasticity::Plasticity {
        yield_strain: 0.01,
        creep: 100.0,
        max_strain: 0.5,
    });
    let (cpu, state) = implicit_steps(sim, 1.0 / 60.0, 30, Edges::Whole);
    let gap = worst_gap(&cpu.body.displacement, &state.displacement);
    let gpu_plastic = state.plastic_deformation.unwrap();
    let flowed = cpu
        .body
        .plastic_deformation
        .iter()
        .map(|f| plastic_stretch(*f))
        .fold(0.0, f64::max);
    let plastic_gap = cpu
        .body
        .plastic_deformation
        .iter()
        .zip(&gpu_plastic)
        .map(|(a, b)| {
            (*a - *b)
                .abs()
                .to_cols_array()
                .into_iter()
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    eprintln!(
        "plastic landing, 30 implicit steps: GPU vs CPU {gap:.2e} m, F_p {plastic_gap:.2e}; largest ‖ln σ(F_p)‖ {flowed:.3}"
    );
    assert!(flowed > 0.02, "the landing flowed: {flowed}");
    assert!(gap <= 1e-4 * 0.4, "positions differ by {gap} m");
    assert!(plastic_gap <= 1e-4, "F_p differs by {plastic_gap}");
}

/// Run by hand (`cargo test --release -p phyxel-gpu --test parity -- --ignored`; about a minute and
/// 5 GiB here): a sheared cube of 1.5 M phyxels whose 48 M neighbour pairs exceed a 128 MiB binding,
/// stepped 20 times with its rows in edge windows at the device's own limit, against the CPU.
#[test]
#[ignore = "1.5 M phyxels: about a minute on lavapipe"]
fn a_body_beyond_one_storage_binding_steps_as_on_the_cpu() {
    let gpu = gpu();
    let mut cpu = sheared_cube_of(115);
    let pairs = cpu.body.neighbours.neighbour.len() as u64;
    assert!(pairs * 4 > gpu.limits.max_storage_buffer_binding_size);
    let mut solver = GpuSolver::new(&gpu, &cpu).unwrap();
    assert!(solver.edge_windows().count > 1);
    let dt = cpu.recommended_time_step();
    let initial = cpu.body.displacement.clone();
    for _ in 0..20 {
        cpu.step(dt).unwrap();
    }
    assert!(solver.step(&gpu, dt, 20));
    let state = block_on(solver.read_state(&gpu)).unwrap();
    assert!(!state.blown_up);
    let gap = worst_gap(&cpu.body.displacement, &state.displacement);
    let moved = worst_gap(&cpu.body.displacement, &initial);
    eprintln!(
        "{} phyxels, {pairs} pairs, {:?}: moved {moved:.2e} m, GPU vs CPU {gap:.2e} m",
        cpu.body.len(),
        solver.edge_windows()
    );
    assert!(moved > 1e-4, "moved {moved} m");
    assert!(gap <= 1e-4 * 0.4, "positions differ by {gap} m");
    assert!(
        gap <= 1e-3 * moved,
        "positions differ by {gap} m of {moved} m moved"
    );
}

/// A notched jelly bar 24 × 5 × 5 (the fracture tests' bar: σ_t = 2 kPa, c_prop = 2 m/s) pulled by its
/// grips to `load` σ_t over `ramp_time`.
fn notched_jelly_bar(load: f64, ramp_time: f64) -> PulledBar {
    let settings = FractureSettings::new(2.0e3, 2.0).unwrap();
    notched_bar(5, Material::JELLY, settings, load, ramp_time, 5.0).unwrap()
}

/// `steps` explicit steps of `dt` of `cpu` (its crack bookkeeping off: the weights, refit frames and
/// rest corrections as they are) and of `solver`: the largest gap between their positions.
fn cut_steps(gpu: &GpuContext, mut cpu: Simulation, solver: &mut GpuSolver, steps: u32) -> f64 {
    cpu.fracture = None;
    let dt = cpu.recommended_time_step();
    for _ in 0..steps {
        cpu.step(dt).unwrap();
    }
    assert!(solver.step(gpu, dt, steps), "the device took the steps");
    let state = block_on(solver.read_state(gpu)).unwrap();
    assert!(!state.blown_up, "the GPU flagged a blow-up");
    worst_gap(&cpu.body.displacement, &state.displacement)
}

/// The cracks' cut weights on the device (shaders/cut_weights.wgsl): a notched bar pulled until its
/// notch has grown (the CPU's crack bookkeeping), uploaded with its cuts and stepped on with its
/// cracks as they are, moves as on the CPU; the same body uploaded without them (its refit frames,
/// the kernel's weights) does not. Then a crack cut into a bar held at 80 % of its strength reaches
/// the running device through `set_cut_weights`, rest corrections included.
#[test]
fn gpu_and_cpu_agree_on_cracked_bars_with_their_weights_cut() {
    let gpu = gpu();
    let mut grown = notched_jelly_bar(1.1, 1.1);
    let dt = grown.simulation.recommended_time_step();
    let mut events = 0;
    while events < 40 {
        grown.step(dt).unwrap();
        events += usize::from(
            !grown
                .simulation
                .fracture
                .as_ref()
                .unwrap()
                .events
                .is_empty(),
        );
    }
    let cpu = grown.simulation;
    let factors = cpu.fracture.as_ref().unwrap().weight_factors(&cpu.body);
    let cut = factors.iter().filter(|&&t| t == 0.0).count();
    let mut solver = GpuSolver::new(&gpu, &cpu).unwrap();
    let mut uncut = cpu.clone();
    uncut.fracture = None;
    let mut uncut_solver = GpuSolver::new(&gpu, &uncut).unwrap();
    let gap = cut_steps(&gpu, cpu.clone(), &mut solver, 200);
    let uncut_gap = cut_steps(&gpu, cpu, &mut uncut_solver, 200);
    eprintln!(
        "grown notch ({cut} edges cut), 200 steps: GPU vs CPU {gap:.2e} m with the cuts, \
         {uncut_gap:.2e} m without"
    );
    assert!(gap <= 1e-4 * 0.25, "positions differ by {gap} m");
    assert!(
        uncut_gap > 100.0 * gap,
        "the cuts changed nothing: {uncut_gap} m"
    );

    // A crack cut into the held bar's section at a quarter of its length, sent to the running device.
    let mut held = notched_jelly_bar(0.8, 0.0).simulation;
    let mut solver = GpuSolver::new(&gpu, &held).unwrap();
    let length = held.body.reference.iter().map(|x| x.x).fold(0.0, f64::max);
    let centre = DVec3::new(0.25 * length + 0.01, 0.125, 0.125);
    let crack = Crack::disc(centre, DVec3::X, 0.1, 12);
    held.fracture
        .as_mut()
        .unwrap()
        .add_crack(&mut held.body, crack);
    let corrected = held
        .body
        .rest_correction
        .iter()
        .filter(|g| **g != DMat3::IDENTITY)
        .count();
    solver.set_cut_weights(&gpu, &held).unwrap();
    let gap = cut_steps(&gpu, held, &mut solver, 200);
    eprintln!("a crack cut in ({corrected} rest corrections), 200 steps: GPU vs CPU {gap:.2e} m");
    assert!(corrected > 0, "the cut left no rest correction to mirror");
    assert!(gap <= 1e-4 * 0.25, "positions differ by {gap} m");
}

/// `steps` steps of `dt` of a fracture scene's `cpu` body moved by `load` (its crack bookkeeping off:
/// the notch's weights as they are), and of the same body uploaded to the device with the load's
/// twin (`prepare`): the device's state after them.
fn loaded_steps(
    gpu: &GpuContext,
    cpu: &mut Simulation,
    steps: u32,
    mut load: impl FnMut(&mut Simulation, f64),
    prepare: impl FnOnce(&mut GpuSolver, f64),
) -> GpuState {
    let mut solver = GpuSolver::new(gpu, cpu).unwrap();
    cpu.fracture = None;
    // As with fracture on (the cracks live in the rest shape), on the device too.
    cpu.reference_update_strain = f64::INFINITY;
    let dt = cpu.recommended_time_step();
    prepare(&mut solver, dt);
    for _ in 0..steps {
        load(cpu, dt);
    }
    assert!(solver.step(gpu, dt, steps), "the device took the steps");
    let state = block_on(solver.read_state(gpu)).unwrap();
    assert!(!state.blown_up, "the GPU flagged a blow-up");
    state
}

/// The fracture scenes' loads on the device (shaders/grips.wgsl, shaders/ball.wgsl): the notched bar's
/// grips ramped to their load (`Grips::step`), the ductile bar's grips pulling its plastic body apart
/// (`PullingGrips::step`; its plastic flow on the device beside its cuts) and the ball that strikes
/// the slab (`Ball::step`, `Ball::strike`) move the bodies as on the CPU; the held phyxels lie where
/// the law puts them, and the ball recoils as on the CPU, its momentum given to the slab.
#[test]
fn gpu_and_cpu_agree_on_the_fracture_scenes_grips_and_ball() {
    use phyxel::meshless::fracture::ductile::{ductile_bar, DUCTILE_PLASTICITY, GRIP_SPEED};
    use phyxel::meshless::fracture::slab::struck_slab;
    let gpu = gpu();
    let settings = FractureSettings::new(2.0e3, 2.0).unwrap();

    // The notched bar, 200 steps into its ramp: the grips move the whole time.
    let bar = notched_jelly_bar(1.0, 1.0);
    let grips = bar.grips();
    let path = grips.path(&bar.simulation.body);
    let mut cpu = bar.simulation;
    let steps = 200;
    let state = loaded_steps(
        &gpu,
        &mut cpu,
        steps,
        |sim, dt| grips.step(sim, dt).unwrap(),
        |solver, dt| {
            solver.set_grips(&gpu, &path).unwrap();
            let scales: Vec<f64> = (1..=steps)
                .map(|k| grips.load_fraction(f64::from(k) * dt))
                .collect();
            solver.set_grip_scales(&gpu, &scales).unwrap();
        },
    );
    let gap = worst_gap(&cpu.body.displacement, &state.displacement);
    let stretched = worst_gap(&cpu.body.displacement, &vec![DVec3::ZERO; cpu.body.len()]);
    let held = path
        .phyxels
        .iter()
        .map(|&i| cpu.body.displacement[i].distance(state.displacement[i]))
        .fold(0.0, f64::max);
    eprintln!("notched bar, 200 steps of its ramp: GPU vs CPU {gap:.2e} m (grips {held:.2e} m), moved {stretched:.2e} m");
    assert!(stretched > 1e-3, "the grips moved {stretched} m");
    assert!(held <= 1e-6, "the grips differ by {held} m");
    assert!(gap <= 1e-4 * 0.25, "positions differ by {gap} m");

    // The ductile bar, its grips accelerating then at speed, past its yield: plastic flow on the
    // device, its rest shape kept (the cracks live in it).
    let ductile = ductile_bar(
        3,
        Material::JELLY,
        DUCTILE_PLASTICITY,
        settings,
        GRIP_SPEED,
        5.0,
    )
    .unwrap();
    let grips = ductile.grips.clone();
    let path = grips.path();
    let mut cpu = ductile.simulation;
    let steps = 300;
    let state = loaded_steps(
        &gpu,
        &mut cpu,
        steps,
        |sim, dt| grips.step(sim, dt).unwrap(),
        |solver, dt| {
            solver.set_grips(&gpu, &path).unwrap();
            let scales: Vec<f64> = (1..=steps)
                .map(|k| grips.offset(f64::from(k) * dt))
                .collect();
            solver.set_grip_scales(&gpu, &scales).unwrap();
        },
    );
    let gap = worst_gap(&cpu.body.displacement, &state.displacement);
    let flowed = cpu
        .body
        .plastic_strain
        .iter()
        .map(|e| e.to_cols_array().iter().map(|x| x * x).sum::<f64>().sqrt())
        .fold(0.0, f64::max);
    let plastic_gap = cpu
        .body
        .plastic_strain
        .iter()
        .zip(&state.plastic_strain)
        .map(|(a, b)| {
            (*a - *b)
                .to_cols_array()
                .iter()
                .map(|x| x.abs())
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    eprintln!(
        "ductile bar, {steps} steps: GPU vs CPU {gap:.2e} m, plastic strain {plastic_gap:.2e} of {flowed:.3}; {} reference updates",
        state.reference_updates
    );
    assert!(
        flowed > 2.0 * DUCTILE_PLASTICITY.yield_strain,
        "it flowed {flowed}"
    );
    assert_eq!(state.reference_updates, 0, "the rest shape stays");
    assert!(gap <= 1e-4 * 0.25, "positions differ by {gap} m");
    assert!(
        plastic_gap <= 1e-3 * flowed,
        "plastic strains differ by {plastic_gap}"
    );

    // The slab struck at 4 m/s, the ball started half a spacing above it: 150 steps from its first
    // touch on.
    let mut slab = struck_slab(3, Material::JELLY, settings, 4.0, 5.0).unwrap();
    slab.ball.centre.y = slab.top() + slab.ball.radius + 0.5 * slab.spacing;
    let ball = slab.ball;
    let mut cpu_ball = ball;
    let mut cpu = slab.simulation;
    let state = loaded_steps(
        &gpu,
        &mut cpu,
        150,
        |sim, dt| cpu_ball.step(sim, dt).unwrap(),
        |solver, _| solver.set_ball(&gpu, &ball).unwrap(),
    );
    let gpu_ball = state.ball.expect("the ball comes back with the state");
    let slowed = ball.velocity.y - cpu_ball.velocity.y;
    let gap = worst_gap(&cpu.body.displacement, &state.displacement);
    let recoil = (gpu_ball.velocity - cpu_ball.velocity).length();
    let moved = (gpu_ball.centre - cpu_ball.centre).length();
    let momentum: DVec3 = cpu
        .body
        .mass
        .iter()
        .zip(&state.velocity)
        .map(|(m, v)| *m * *v)
        .sum();
    eprintln!(
        "struck slab, 150 steps: GPU vs CPU {gap:.2e} m; the ball slowed by {slowed:.4} m/s (CPU), \
         its velocities {recoil:.2e} m/s and centres {moved:.2e} m apart; the slab's momentum on \
         the GPU {:.4} N·s",
        momentum.y
    );
    assert!(slowed < -1e-3, "the ball was slowed by {slowed} m/s");
    assert!(
        recoil <= 1e-2 * slowed.abs(),
        "the balls' velocities differ by {recoil} m/s"
    );
    assert!(moved <= 1e-4, "the balls are {moved} m apart");
    assert!(gap <= 1e-4 * 0.8, "positions differ by {gap} m");
}
