//! Soaks (issue 20): every 3D scene and every 2D lesson simulation at its defaults, stepped for a
//! long time with no NaN and its energy within a bound taken from physics, not from a previous run.
//!
//! Step counts: 100 000 steps of each. The 3D scenes run at the demo's default step (0.1 of
//! h√(ρ/E), symplectic Euler, damping 0.5/s) for [`SCENE_STEPS`] = 100 000 steps, at a reduced
//! resolution where the default one costs too much for the test run (see [`scene_resolution`]); the
//! resolution changes the spacing, the support radius and so the step (still 0.1 of the bound) but
//! none of the physics the bound relies on. The time-integration lesson's spring (every method) and
//! the PBD lesson's cloth run 100 000 steps at their defaults. Measured (test profile, phyxel at
//! opt-level 3, a shared 2-core machine, two tests at a time): cube 8 across 28 s, sphere 8 across
//! 20 s, torus 10 across 25 s, bunny 10 across 13 s, several 5 across 12 s, spring and cloth 14 s
//! together; 67 s for the file.
//!
//! Energy bounds. Nothing here adds energy (no drag, no heat, no plasticity): gravity does work
//! m·g·Δy as the objects fall, and damping, friction and contacts take energy out. The total
//! E = kinetic + gravitational + elastic may therefore never exceed its initial value E₀ but for the
//! integrator's own error. Symplectic Euler keeps a modified energy exactly; the true energy of a
//! mode of frequency ω oscillates about it by at most ωΔt/2 of that mode's energy, and
//! ω_max·Δt ≤ 2·Δt/(h√(ρ/E)) = 0.2 at the demo's step: at most 10 % of the energy in motion, which
//! never exceeds what gravity released, M·g·(drop height). So E(t) ≤ E₀ + 0.1·M·g·d. From below,
//! kinetic and elastic energies are ≥ 0 and no phyxel sinks below the ground by more than its
//! support radius h: E(t) ≥ −M·g·h.

use phyxel::meshless::scene::{Objects, SceneDescription};
use std::time::Instant;

/// Steps of every 3D scene.
const SCENE_STEPS: usize = 100_000;

/// The resolution each scene is soaked at, so that none takes much over 20 s in the test profile
/// (measured on a shared 2-core machine, two tests at a time): the demo's default, 10 across, for the
/// torus (456 phyxels, 19 s) and the bunny; 8 across for the cube (512 phyxels; 1000 at 10 across
/// took 38 s) and the sphere (552 at 10 across took 26 s); 5 across for "several" (three objects
/// and their contacts: 286 phyxels at 6 across took 27 s).
fn scene_resolution(objects: Objects) -> u32 {
    match objects {
        Objects::Cube | Objects::Sphere => 8,
        Objects::Several => 5,
        // Soaked for 10 000 steps at 6 across in `tests/surface_contact.rs`.
        Objects::Collide => 6,
        Objects::Torus | Objects::Bunny => SceneDescription::default().resolution,
    }
}

fn soak_scene(objects: Objects) {
    let description = SceneDescription {
        objects,
        resolution: scene_resolution(objects),
        ..SceneDescription::default()
    };
    let mut sim = description
        .build(60_000)
        .expect("the scene builds")
        .simulation;
    let dt = sim.recommended_time_step();
    let g = sim.environment.gravity.length();
    let mass: f64 = sim.body.mass.iter().sum();
    let h = sim
        .body
        .support_radius
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min);
    let e0 = sim.energy();
    let upper = e0 + 0.1 * mass * g * description.drop_height;
    let lower = -mass * g * h;
    let start = Instant::now();
    let mut highest = e0;
    for step in 0..SCENE_STEPS {
        sim.step(dt)
            .unwrap_or_else(|b| panic!("{objects:?}: step {step} blew up: {b}"));
        if step % 100 == 99 {
            let e = sim.energy();
            assert!(
                e.is_finite() && e <= upper && e >= lower,
                "{objects:?} after {} steps: E = {e} J outside [{lower}, {upper}] (E₀ = {e0})",
                step + 1
            );
            highest = highest.max(e);
        }
    }
    for p in sim.body.positions() {
        assert!(p.is_finite(), "{objects:?}: a position is not finite");
    }
    // Rested: 100 000 steps are over a minute of simulated time, and damping alone takes e^(−0.5 t).
    let kinetic = sim.kinetic_energy();
    assert!(
        kinetic < 1e-3 * mass * g * description.drop_height,
        "{objects:?}: still moving, kinetic {kinetic} J"
    );
    println!(
        "{objects:?} at {} across: {} phyxels, {SCENE_STEPS} steps of {:.3} ms ({:.1} s simulated) in {:.1} s; \
         E₀ = {e0:.4} J, highest {highest:.4} J (bound {upper:.4}), final {:.4} J",
        description.resolution,
        sim.body.len(),
        dt * 1e3,
        dt * SCENE_STEPS as f64,
        start.elapsed().as_secs_f64(),
        sim.energy()
    );
}

#[test]
fn soak_cube() {
    soak_scene(Objects::Cube);
}

#[test]
fn soak_sphere() {
    soak_scene(Objects::Sphere);
}

#[test]
fn soak_torus() {
    soak_scene(Objects::Torus);
}

#[test]
fn soak_bunny() {
    soak_scene(Objects::Bunny);
}

#[test]
fn soak_several() {
    soak_scene(Objects::Several);
}

/// The time-integration lesson's spring at its defaults (k = 40 N/m, m = 1 kg, x₀ = 1 m, Δt = 0.02 s,
/// ωΔt = 0.126), every method for 100 000 steps. On ẍ = −ω²x each Runge–Kutta method multiplies
/// z = x + i·v/ω by its stability function R(iωΔt), so its energy is exactly E₀·|R|^2n: explicit
/// Euler's grows by 1 + (ωΔt)² a step and the lesson must stop it (energy past 10⁴ × E₀), RK2's by
/// 1 + (ωΔt)⁴/4 (a factor ≈ 600 after 100 000 steps, under the lesson's bound), RK4's and implicit
/// Euler's |R| < 1 never let it exceed E₀. The symplectic methods keep a modified energy, from which
/// the true one departs by at most a fraction ωΔt/2: E ≤ E₀/(1 − ωΔt/2) ≤ E₀·(1 + ωΔt).
#[test]
fn soak_time_integration_spring() {
    use phyxel::integrators::Method;
    use phyxel::lessons::time_integration::{
        param, Comparison, Scene, Spring, BLOW_UP_ENERGY_RATIO,
    };
    let (k, m, x0, dt) = (
        param::STIFFNESS.default,
        param::MASS.default,
        param::X0.default,
        param::DT.default,
    );
    let mut lesson = Comparison::new(Scene::Spring {
        spring: Spring {
            stiffness: k,
            mass: m,
        },
        x0,
    })
    .expect("the defaults are valid");
    let e0 = 0.5 * k * x0 * x0;
    let w_dt = (k / m).sqrt() * dt;
    for n in 1..=100_000u32 {
        lesson.step(dt).expect("a valid step");
        if n % 1000 != 0 {
            continue;
        }
        for r in lesson.readouts() {
            assert!(
                r.x.is_finite() && r.energy.is_finite(),
                "{:?} after {n} steps",
                r.method
            );
            let bound = match r.method {
                Method::ExplicitEuler => BLOW_UP_ENERGY_RATIO * e0,
                Method::Rk2 => e0 * (1.0 + w_dt.powi(4) / 4.0).powi(n as i32) * (1.0 + 1e-9),
                Method::Rk4 | Method::ImplicitEuler => e0 * (1.0 + 1e-9),
                _ => e0 * (1.0 + w_dt),
            };
            assert!(
                r.energy <= bound,
                "{:?} after {n} steps: E = {} J > {bound} J",
                r.method,
                r.energy
            );
        }
    }
    assert!(
        lesson.divergence(Method::ExplicitEuler).is_some(),
        "explicit Euler's growth is stopped and explained"
    );
    for method in Method::ALL
        .into_iter()
        .filter(|&m| m != Method::ExplicitEuler)
    {
        assert!(lesson.divergence(method).is_none(), "{method:?} still runs");
    }
}

/// The PBD lesson's classic cloth at its defaults (40 × 30 particles of 0.5 kg, spacing 0.2 m, the
/// two top corners pinned, 2 iterations of PBD with stiffness 1, Δt = 5 ms, g = 9.81) for 100 000
/// steps (500 s). Position-based dynamics adds no energy: each step moves the particles by gravity
/// (symplectic Euler) and then projects them onto the constraints, a correction that takes energy out
/// (the velocity is what the projected positions imply). With the cloth released flat at rest, the
/// energy E = ½Σmv² + Σmgy never exceeds its initial E₀ but for gravity's own step error: the
/// symplectic Euler drift of m·g·(gΔt²/2) a step for a particle falling freely, which the
/// constraints stop within the first swing: E ≤ E₀ + M·g²·Δt²·(steps of a swing ≈ 1 s / Δt).
#[test]
fn soak_pbd_cloth() {
    use glam::DVec2;
    use phyxel::lessons::pbd::{cloth, param, Projection};
    let mass = param::MASS.default;
    let dt = param::DT.default;
    let g = param::GRAVITY.default;
    let iterations = param::ITERATIONS.default as usize;
    let projection = Projection::Pbd {
        stiffness: param::STIFFNESS.default,
    };
    let mut system = cloth(40, 30, 0.2, mass);
    let energy = |s: &phyxel::lessons::pbd::PbdSystem| -> f64 {
        s.positions
            .iter()
            .zip(&s.velocities)
            .zip(&s.inverse_masses)
            .filter(|(_, &w)| w > 0.0)
            .map(|((p, v), &w)| {
                let m = 1.0 / w;
                0.5 * m * v.length_squared() + m * g * p.y
            })
            .sum()
    };
    let free_mass: f64 = system
        .inverse_masses
        .iter()
        .filter(|&&w| w > 0.0)
        .map(|w| 1.0 / w)
        .sum();
    let e0 = energy(&system);
    let bound = e0 + free_mass * g * g * dt * dt * (1.0 / dt);
    for n in 1..=100_000 {
        system.step(dt, iterations, DVec2::new(0.0, -g), projection);
        if n % 1000 == 0 {
            let e = energy(&system);
            assert!(e.is_finite(), "after {n} steps: E = {e}");
            assert!(
                e <= bound,
                "after {n} steps: E = {e} J > {bound} J (E₀ = {e0})"
            );
            assert!(system.positions.iter().all(|p| p.is_finite()));
        }
    }
}
