//! Dynamics of phyxel bodies: rest on the ground, energy, plastic memory, blow-up detection.

use super::*;
use crate::meshless::body::SupportRadius;
use crate::meshless::collision::Collider;
use crate::meshless::material::Material;
use crate::meshless::melting::{HeatSource, Melting};
use crate::meshless::sampling::{sample, Lattice, Shape};

const SPACING: f64 = 0.1;

fn cube(min: DVec3, edge: f64, material: Material) -> Body {
    let shape = Shape::Box {
        min,
        max: min + DVec3::splat(edge),
    };
    Body::new(
        sample(&shape, SPACING, Lattice::Cubic),
        SPACING.powi(3),
        SPACING,
        material,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    )
}

#[test]
fn an_elastic_cube_dropped_on_the_ground_comes_to_rest_without_gaining_energy() {
    let mut sim = Simulation::new(
        cube(DVec3::new(0.0, 0.3, 0.0), 0.3, Material::JELLY),
        Environment::default(),
    );
    let dt = sim.recommended_time_step();
    let e0 = sim.energy();
    let mut max_energy = e0;
    for _ in 0..10_000 {
        sim.step(dt)
            .expect("Δt is a quarter of the stability bound");
        max_energy = max_energy.max(sim.energy());
    }
    assert!(sim
        .body
        .displacement
        .iter()
        .chain(&sim.body.velocity)
        .all(|v| v.is_finite()));
    assert!(
        max_energy <= e0 * 1.001,
        "energy grew from {e0} to {max_energy}"
    );
    let kinetic = sim.kinetic_energy();
    assert!(
        kinetic < 1e-6 * e0,
        "still moving: kinetic {kinetic} J of {e0} J"
    );
    // Resting on the ground: the lowest phyxels touch it, and the cube kept its height within a few
    // per cent (ρgH/E ≈ 1 % static compression).
    let positions = sim.body.positions();
    let bottom = positions.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    assert!(bottom.abs() < 1e-3, "bottom at {bottom}");
    let height = extent(&sim, 1);
    assert!((height / 0.3 - 1.0).abs() < 0.05, "height {height}");
}

/// No gravity, no obstacles, velocity damping c (1/s).
fn weightless(damping: f64) -> Environment {
    Environment {
        gravity: DVec3::ZERO,
        colliders: vec![],
        friction: 0.0,
        damping,
    }
}

/// The extent max − min of the body along `axis` (0 = x, 1 = y, 2 = z).
fn extent(sim: &Simulation, axis: usize) -> f64 {
    let values: Vec<f64> = sim.body.positions().iter().map(|p| p[axis]).collect();
    values.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - values.iter().cloned().fold(f64::INFINITY, f64::min)
}

/// Stretch a bar by 30 % along x and hold it for 200 steps, then release it without gravity and let
/// it relax; returns the remaining stretch (length / original − 1).
fn remaining_stretch(plasticity: Option<Plasticity>) -> f64 {
    let environment = weightless(20.0);
    let mut sim = Simulation::new(cube(DVec3::ZERO, 0.3, Material::JELLY), environment);
    sim.plasticity = plasticity;
    let dt = sim.recommended_time_step();
    let hold = sim
        .body
        .reference
        .iter()
        .map(|x| DVec3::new(0.3 * x.x, 0.0, 0.0))
        .collect::<Vec<_>>();
    for _ in 0..200 {
        sim.body.displacement.clone_from(&hold);
        sim.body.velocity.iter_mut().for_each(|v| *v = DVec3::ZERO);
        sim.step(dt).unwrap();
    }
    for _ in 0..3000 {
        sim.step(dt).unwrap();
    }
    let length = extent(&sim, 0);
    length / 0.3 - 1.0
}

#[test]
fn a_plastic_block_keeps_its_deformation_and_an_elastic_one_recovers() {
    let elastic = remaining_stretch(None);
    let plastic = remaining_stretch(Some(Plasticity {
        yield_strain: 0.02,
        creep: 200.0,
        max_strain: 1.0,
    }));
    assert!(
        elastic.abs() < 0.01,
        "the elastic bar did not recover: {elastic}"
    );
    assert!(
        plastic > 0.15,
        "the plastic bar kept only {plastic} of a 0.3 stretch"
    );
}

#[test]
fn a_step_beyond_the_stability_bound_is_stopped_and_explained() {
    let steel = Material {
        young: 2e11,
        poisson: 0.3,
        density: 7800.0,
        volume_stiffness: 0.0,
    };
    let mut sim = Simulation::new(
        cube(DVec3::new(0.0, 0.2, 0.0), 0.3, steel),
        Environment::default(),
    );
    let dt = 1.0 / 60.0; // thousands of times the bound
    sim.body.displacement = sim
        .body
        .reference
        .iter()
        .map(|x| DVec3::new(0.01 * x.x, 0.0, 0.0))
        .collect();
    let error = (0..100)
        .find_map(|_| sim.step(dt).err())
        .expect("explicit steel at 60 Hz must blow up");
    assert!(sim
        .body
        .displacement
        .iter()
        .chain(&sim.body.velocity)
        .all(|v| v.is_finite()));
    let message = error.to_string();
    assert!(message.contains("h·√(ρ/E)"), "{message}");
    assert!((error.cfl_time_step - 0.22 * (7800.0f64 / 2e11).sqrt()).abs() < 1e-12);
}

#[test]
fn an_instability_is_caught_while_the_body_still_looks_whole() {
    // Jelly at half the bound h√(ρ/E) (stable only up to ≈ 0.2 of it): the instability grows
    // exponentially; the travel criterion stops it while every phyxel is still within a few
    // spacings of where it was, so the state the page keeps showing is not an explosion.
    let mut sim = Simulation::new(
        cube(DVec3::new(0.0, 0.0, 0.0), 0.3, Material::JELLY),
        weightless(0.0),
    );
    sim.body.velocity = sim
        .body
        .reference
        .iter()
        .map(|x| DVec3::new(0.01 * (37.0 * x.y).sin(), 0.0, 0.0))
        .collect();
    let dt = 0.5 * sim.cfl_time_step();
    let steps = (0..10_000).position(|_| sim.step(dt).is_err());
    assert!(steps.is_some(), "half the bound must blow up");
    let worst = sim
        .body
        .displacement
        .iter()
        .map(|u| u.length())
        .fold(0.0, f64::max);
    assert!(
        worst < 3.0 * SPACING,
        "the kept state moved a phyxel {worst} m"
    );
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_and_serial_solvers_agree() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            assert_eq!(crate::parallel::thread_count(), threads);
            let mut sim = Simulation::new(
                cube(DVec3::new(0.0, 0.1, 0.0), 0.3, Material::JELLY),
                Environment::default(),
            );
            sim.plasticity = Some(Plasticity {
                yield_strain: 0.01,
                creep: 50.0,
                max_strain: 0.5,
            });
            let dt = sim.recommended_time_step();
            for _ in 0..200 {
                sim.step(dt).unwrap();
            }
            sim.body.positions()
        })
    };
    let (serial, parallel) = (run(1), run(4));
    let worst = serial
        .iter()
        .zip(&parallel)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0, f64::max);
    assert!(
        worst <= 1e-6 * 0.3,
        "parallel and serial differ by {worst} m"
    );
}

#[test]
fn the_reference_update_keeps_positions_and_elastic_strain() {
    let mut sim = Simulation::new(
        cube(DVec3::ZERO, 0.3, Material::JELLY),
        Environment {
            colliders: vec![],
            ..Environment::default()
        },
    );
    sim.body.displacement = sim
        .body
        .reference
        .iter()
        .map(|x| DVec3::new(0.3 * x.x, 0.1 * x.y * x.x, 0.0))
        .collect();
    sim.body.plastic_strain =
        vec![glam::DMat3::from_diagonal(DVec3::new(0.05, 0.0, 0.0)); sim.body.len()];
    let surface = crate::meshless::sampling::Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::splat(0.3),
    }
    .surface_mesh(6);
    sim.surfaces = vec![EmbeddedSurface::bind(&surface, &sim.body)];
    let before = (sim.body.positions(), sim.body.phyxel_stresses());
    let surface_before = sim.surface_vertices();
    sim.update_reference();
    let after = (sim.body.positions(), sim.body.phyxel_stresses());
    assert_eq!(before.0, after.0, "positions must not move");
    // The surface is rebound where it was: it does not jump (u = 0 and ∇u = 0 after the update).
    for (b, a) in surface_before[0].iter().zip(&sim.surface_vertices()[0]) {
        assert!(
            b.distance(*a) < 1e-12,
            "surface vertex moved from {b} to {a}"
        );
    }
    assert!(
        surface_before[0]
            .iter()
            .zip(&surface.vertices)
            .any(|(b, x)| b.distance(*x) > 0.01),
        "the surface was deformed before the update"
    );
    assert!(sim.body.displacement.iter().all(|u| *u == DVec3::ZERO));
    for (b, a) in before.1.iter().zip(&after.1) {
        assert!(
            crate::meshless::plasticity::norm(b.strain - a.strain) < 1e-12,
            "elastic strain changed"
        );
    }
}

#[test]
fn the_corotated_reference_update_keeps_positions_and_elastic_stress() {
    // Zhou et al. 2013 eq. 15: the new rest offsets are F_e⁻¹ (x_j − x_i), i.e. F_p ← F_e⁻¹.
    let mut sim = Simulation::new(
        cube(DVec3::ZERO, 0.3, Material::JELLY),
        Environment {
            colliders: vec![],
            ..Environment::default()
        },
    );
    sim.elasticity = Elasticity::CorotatedLinear;
    let rotation = glam::DMat3::from_axis_angle(DVec3::new(0.3, 1.0, 0.2).normalize(), 0.8);
    sim.body.displacement = sim
        .body
        .reference
        .iter()
        .map(|x| rotation * DVec3::new(1.2 * x.x, x.y + 0.1 * x.x * x.x, x.z) - *x)
        .collect();
    sim.body.plastic_deformation =
        vec![glam::DMat3::from_diagonal(DVec3::new(1.1, 1.0 / 1.1, 1.0)); sim.body.len()];
    let stresses = |sim: &Simulation| sim.elasticity.stresses(&sim.body, &sim.body.displacement);
    let before = (sim.body.positions(), stresses(&sim));
    sim.update_reference();
    let after = (sim.body.positions(), stresses(&sim));
    assert_eq!(before.0, after.0, "positions must not move");
    assert!(sim.body.displacement.iter().all(|u| *u == DVec3::ZERO));
    let scale = before.1.iter().map(|s| norm(s.stress)).fold(0.0, f64::max);
    assert!(scale > 0.0);
    for (b, a) in before.1.iter().zip(&after.1) {
        assert!(norm(b.stress - a.stress) < 1e-9 * scale, "stress changed");
    }
}

#[test]
fn large_plastic_deformation_uses_reference_updates_and_stays_stable() {
    // A 100 % stretch held long enough to flow, then released: far beyond what one reference shape
    // can represent, so the rest shape is moved along, and the bar keeps most of its new length.
    let environment = weightless(20.0);
    let mut sim = Simulation::new(cube(DVec3::ZERO, 0.3, Material::JELLY), environment);
    sim.plasticity = Some(Plasticity {
        yield_strain: 0.02,
        creep: 200.0,
        max_strain: 0.5,
    });
    let dt = sim.recommended_time_step();
    let reference = sim.body.reference.clone();
    for step in 1..=400 {
        // Pull the ends apart gradually: x ↦ x (1 + s), s rising to 1.
        let s = step as f64 / 400.0;
        let target: Vec<DVec3> = reference
            .iter()
            .map(|x| DVec3::new(x.x * (1.0 + s), x.y, x.z))
            .collect();
        sim.body.displacement = target
            .iter()
            .zip(&sim.body.reference)
            .map(|(t, r)| *t - *r)
            .collect();
        sim.body.velocity.iter_mut().for_each(|v| *v = DVec3::ZERO);
        sim.step(dt).unwrap();
    }
    for _ in 0..3000 {
        sim.step(dt).expect("stable after the reference updates");
    }
    assert!(sim.reference_updates > 0);
    let length = extent(&sim, 0);
    assert!(
        length / 0.3 - 1.0 > 0.6,
        "kept only a stretch of {}",
        length / 0.3 - 1.0
    );
}

#[test]
fn the_drag_spring_pulls_the_picked_phyxel_and_then_the_body() {
    let environment = Environment {
        gravity: DVec3::ZERO,
        colliders: vec![],
        friction: 0.0,
        damping: 2.0,
    };
    let mut sim = Simulation::new(cube(DVec3::ZERO, 0.3, Material::JELLY), environment);
    // Pick along a ray down the +z axis through the corner column x = y = 0.3.
    let picked = sim
        .pick(DVec3::new(0.3, 0.3, -1.0), DVec3::Z, 0.01)
        .expect("a phyxel on the ray");
    assert!(
        sim.body.reference[picked].distance(DVec3::new(0.3, 0.3, 0.0)) < 1e-12,
        "the nearest along the ray"
    );
    assert_eq!(sim.pick(DVec3::new(5.0, 5.0, -1.0), DVec3::Z, 0.01), None);
    let target = DVec3::new(1.3, 0.3, 0.0);
    sim.drag = Some(Drag {
        phyxel: picked,
        target,
        stiffness: 50.0,
        max_stretch: f64::INFINITY,
    });
    let dt = sim.recommended_time_step();
    sim.step(dt).unwrap();
    // At rest the elastic and damping forces vanish: after one symplectic Euler step v = Δt·k(target − x)/m.
    let expected = dt * 50.0 * (target - DVec3::new(0.3, 0.3, 0.0)) / sim.body.mass[picked];

    assert!((sim.body.velocity[picked] - expected).length() < 1e-9 * expected.length());
    let centre = |s: &Simulation| s.body.positions().iter().sum::<DVec3>() / s.body.len() as f64;
    let start = centre(&sim);
    for _ in 0..2000 {
        sim.step(dt).unwrap();
    }
    assert!(
        centre(&sim).x - start.x > 0.3,
        "the body follows the drag: {:?}",
        centre(&sim) - start
    );
}

#[test]
fn obstacles_and_walls_keep_the_body_out_and_in() {
    let sphere = Collider::Sphere {
        center: DVec3::new(0.15, 0.0, 0.15),
        radius: 0.2,
    };
    let walls = Collider::BoxWalls {
        min: DVec3::new(-0.5, 0.0, -0.5),
        max: DVec3::new(0.8, 2.0, 0.8),
    };
    let environment = Environment {
        colliders: vec![walls, sphere],
        ..Environment::default()
    };
    let mut sim = Simulation::new(
        cube(DVec3::new(0.0, 0.4, 0.0), 0.3, Material::JELLY),
        environment,
    );
    sim.body
        .velocity
        .iter_mut()
        .for_each(|v| *v = DVec3::new(3.0, 0.0, 0.0)); // thrown at the +x wall
    let dt = sim.recommended_time_step();
    for _ in 0..5000 {
        sim.step(dt).unwrap();
        for x in sim.body.positions() {
            assert!(
                sphere.signed_distance(x).0 >= -1e-9 && walls.signed_distance(x).0 >= -1e-9,
                "{x} inside a collider"
            );
        }
    }
}

#[test]
fn a_heated_block_melts_and_slumps_to_less_than_half_its_height() {
    let run = |heater_rate: f64| {
        let mut sim = Simulation::new(
            cube(DVec3::ZERO, 0.3, Material::JELLY),
            Environment::default(),
        );
        sim.plasticity = Some(Plasticity {
            yield_strain: 0.05,
            creep: 20.0,
            max_strain: 0.5,
        });
        let heat_source = Some(HeatSource {
            position: DVec3::new(0.15, 0.15, 0.15),
            radius: 0.6,
            rate: heater_rate,
        });
        sim.melting = Some(Melting {
            melting_point: 100.0,
            molten_stiffness: 0.005,
            diffusivity: 5.0,
            heat_source,
        });
        let dt = sim.recommended_time_step();
        for _ in 0..(4.0 / dt) as usize {
            sim.step(dt).expect("melting stays stable");
        }
        (extent(&sim, 1), sim)
    };
    let (cold, _) = run(0.0);
    assert!(
        (cold / 0.3 - 1.0).abs() < 0.05,
        "unheated, the block keeps its shape: {cold}"
    );
    let (molten, sim) = run(200.0);
    assert!(
        sim.body.temperature.iter().all(|t| *t > 100.0),
        "the heater melts every phyxel in 4 s"
    );
    assert!(
        molten < 0.5 * 0.3,
        "the molten block is still {molten} m high"
    );
    assert!(sim
        .body
        .positions()
        .iter()
        .all(|p| p.y >= -1e-9 && p.is_finite()));
}

#[test]
fn every_explicit_integrator_brings_the_dropped_cube_to_rest_with_the_thesis_damping() {
    use crate::integrators::Method;
    for method in [
        Method::SymplecticEuler,
        Method::LeapFrog,
        Method::PositionVerlet,
        Method::VelocityVerlet,
        Method::Rk4,
    ] {
        let mut sim = Simulation::new(
            cube(DVec3::new(0.0, 0.1, 0.0), 0.3, Material::JELLY),
            Environment::default(),
        );
        sim.set_integrator(method).unwrap();
        let dt = sim.recommended_time_step();
        sim.environment.damping = 0.01 / dt; // thesis eq. 3.45: c·Δt = 0.01
        let e0 = sim.energy();
        let mut max_energy = e0;
        for _ in 0..3000 {
            sim.step(dt).unwrap_or_else(|e| panic!("{method:?}: {e}"));
            max_energy = max_energy.max(sim.energy());
        }
        let kinetic = sim.kinetic_energy();
        assert!(
            max_energy <= e0 * 1.001,
            "{method:?}: energy grew from {e0} to {max_energy}"
        );
        assert!(kinetic < 1e-6 * e0, "{method:?}: still moving, {kinetic} J");
    }
    let mut sim = Simulation::new(
        cube(DVec3::ZERO, 0.3, Material::JELLY),
        Environment::default(),
    );
    let refused = sim.set_integrator(Method::ImplicitEuler).unwrap_err();
    assert!(refused.to_string().contains("stiffness matrix"));
    assert_eq!(
        sim.integrator(),
        Method::SymplecticEuler,
        "a refused choice keeps the current integrator"
    );
}

/// The largest |x − target| over `steps` symplectic Euler steps (v ← v + Δt·f/m, x ← x + Δt·v, as
/// the simulation integrates the drag) of a phyxel of mass `mass` on the spring `drag`, released at
/// rest `offset` from its target.
fn drag_amplitude(drag: Drag, mass: f64, dt: f64, offset: DVec3, steps: usize) -> f64 {
    let (mut x, mut v) = (drag.target + offset, DVec3::ZERO);
    let mut amplitude: f64 = 0.0;
    for _ in 0..steps {
        v += dt * drag.force(x) / mass;
        x += dt * v;
        amplitude = amplitude.max(x.distance(drag.target));
    }
    amplitude
}

#[test]
fn the_drag_spring_is_stable_for_the_step_it_was_made_for() {
    // Light and heavy phyxels, short and long steps: ω·Δt = √(k/m)·Δt is the same √0.2 each time,
    // inside symplectic Euler's bound ω·Δt < 2, so the released phyxel oscillates about its target
    // with the amplitude of its modified energy, 1/√(1 − (ωΔt/2)²) ≈ 1.026 of the release, forever.
    let offset = DVec3::new(0.03, -0.04, 0.0); // 5 cm, within the stretch limit
    for (mass, dt) in [(1e-3, 1e-4), (0.064, 1.0 / 60.0), (10.0, 1e-2)] {
        let drag = Drag::stable(0, DVec3::new(0.1, 0.5, 0.2), mass, dt, 0.1);
        let omega_dt = (drag.stiffness / mass).sqrt() * dt;
        assert!(
            (omega_dt - 0.2f64.sqrt()).abs() < 1e-12,
            "ω·Δt = {omega_dt}"
        );
        let amplitude = drag_amplitude(drag, mass, dt, offset, 20_000);
        let bound = 0.05 / (1.0 - omega_dt * omega_dt / 4.0).sqrt();
        assert!(
            amplitude <= bound * (1.0 + 1e-9),
            "m = {mass} kg, Δt = {dt} s: amplitude {amplitude} m > {bound} m"
        );
    }
    // The same spring 22 times stiffer (ω·Δt = 2.1, past the bound): the phyxel is flung away.
    let (mass, dt) = (0.064, 1.0 / 60.0);
    let mut too_stiff = Drag::stable(0, DVec3::ZERO, mass, dt, 0.1);
    too_stiff.stiffness *= 2.1f64.powi(2) / Drag::OMEGA_DT_SQUARED;
    assert!(drag_amplitude(too_stiff, mass, dt, offset, 200) > 0.1);
}

#[test]
fn the_energy_of_a_body_integrated_by_quadrature_is_summed_at_its_points() {
    // u = ε x e_x on a box: ε_xx = ε alone, U = ½ (λ + 2μ) ε² V exactly (the corotated strain of a
    // pure stretch is the linear one, and Σ v_I is the box's volume), with no gravity and at rest.
    let shape = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::splat(0.4),
    };
    let material = Material {
        young: 1e5,
        poisson: 0.3,
        density: 1000.0,
        volume_stiffness: 0.0,
    };
    let mut body = cube(DVec3::ZERO, 0.4, material);
    body.set_quadrature(&shape, SPACING, Default::default())
        .unwrap();
    let strain = 1e-3;
    body.displacement = body
        .reference
        .iter()
        .map(|x| DVec3::new(strain * x.x, 0.0, 0.0))
        .collect();
    let environment = Environment {
        gravity: DVec3::ZERO,
        ..Environment::default()
    };
    let sim = Simulation::new(body, environment);
    let (lambda, mu) = material.lame();
    let expected = 0.5 * (lambda + 2.0 * mu) * strain * strain * 0.4f64.powi(3);
    let energy = sim.energy();
    assert!(
        (energy / expected - 1.0).abs() < 1e-6,
        "U = {energy}, ½(λ + 2μ)ε²V = {expected}"
    );
}
