//! Implicit dynamics and statics of the corotated model against theory.

use super::*;
use crate::meshless::body::SupportRadius;
use crate::meshless::material::Material;
use crate::meshless::plasticity::Plasticity;
use crate::meshless::sampling::{sample, Lattice, Shape};
use crate::meshless::simulation::{Environment, Simulation};

/// An n×n×n cube on a cubic lattice of spacing `spacing`, lowest layer at `height`.
fn cube(n: usize, spacing: f64, height: f64, material: Material) -> Body {
    let edge = spacing * (n - 1) as f64;
    let shape = Shape::Box {
        min: DVec3::new(0.0, height, 0.0),
        max: DVec3::new(edge, height + edge, edge),
    };
    Body::new(
        sample(&shape, spacing, Lattice::Cubic),
        spacing.powi(3),
        spacing,
        material,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    )
}

/// The highest phyxel's height.
fn top(sim: &Simulation) -> f64 {
    sim.body
        .positions()
        .iter()
        .map(|p| p.y)
        .fold(f64::NEG_INFINITY, f64::max)
}

fn bottom(sim: &Simulation) -> f64 {
    sim.body
        .positions()
        .iter()
        .map(|p| p.y)
        .fold(f64::INFINITY, f64::min)
}

fn stiff() -> Material {
    Material {
        young: 1e9,
        poisson: 0.3,
        density: 1000.0,
        volume_stiffness: 0.0,
    }
}

#[test]
fn a_stiff_cube_at_60_hz_stays_bounded_implicitly_and_blows_up_explicitly() {
    // 4×4×4 phyxels, edge 0.15 m, E = 1 GPa: the explicit bound h√(ρ/E) = 0.11 ms is 0.7 % of 1/60 s.
    // Dropped from 0.3 m it lands at 2.4 m/s, 4 cm per step: the first contact step finds its lowest
    // layer pushed out of the ground and squeezed, and the next pushes back hard without turning.
    let dt = 1.0 / 60.0;
    let edge = 0.15;
    let height = 0.3;
    let mut sim = Simulation::new(cube(4, 0.05, height, stiff()), Environment::default());
    assert!(sim.cfl_time_step() < 0.01 * dt);
    let settings = CorotatedImplicit::default();
    sim.set_corotated_implicit(Some(settings));
    let mut iterations = Vec::new();
    for step in 0..1000 {
        sim.step(dt)
            .unwrap_or_else(|e| panic!("implicit step {step}: {e}"));
        let solve = sim
            .last_solve()
            .expect("the implicit step reports its solve");
        assert!(
            solve.converged && solve.relative_residual <= settings.tolerance,
            "step {step}: {solve:?}"
        );
        iterations.push(solve.iterations);
        assert!(bottom(&sim) >= -1e-12, "below the ground");
        assert!(top(&sim) < height + edge + 1e-6, "bounced above the start");
    }
    let mean = iterations.iter().sum::<usize>() as f64 / iterations.len() as f64;
    let (top, kinetic) = (top(&sim), sim.kinetic_energy());
    eprintln!(
        "stiff cube, 1000 implicit steps at 60 Hz: CG iterations mean {mean:.1}, max {}; \
         top {top:.7} m (edge {edge}), kinetic energy {kinetic:.1e} J",
        iterations.iter().max().unwrap()
    );
    // At rest on the ground with its shape: self-weight compression ρ g H² / (2E) ≈ 1e-7 m.
    assert!((top - edge).abs() < 1e-5, "top at {top}");
    assert!(kinetic < 1e-9, "still moving: {kinetic} J");

    // Symplectic Euler at the same step is caught by the blow-up detection.
    let mut explicit = Simulation::new(cube(4, 0.05, height, stiff()), Environment::default());
    explicit.elasticity = crate::meshless::simulation::Elasticity::CorotatedLinear;
    let blown = (0..1000).find_map(|k| explicit.step(dt).err().map(|e| (k, e)));
    let (k, error) = blown.expect("explicit integration at 60 Hz must blow up");
    eprintln!("explicit symplectic Euler at 60 Hz: blow-up caught at step {k}");
    assert!(!error.implicit && error.to_string().contains("h·√(ρ/E)"));
    assert!(explicit.body.positions().iter().all(|p| p.is_finite()));
}

/// The top height every `every` steps of Δt over `duration`, for a soft cube dropped 5 cm.
fn top_trajectory(implicit: bool, dt: f64, duration: f64, samples: usize) -> Vec<f64> {
    let mut sim = Simulation::new(
        cube(4, 0.1, 0.05, Material::JELLY),
        Environment {
            damping: 0.0,
            ..Environment::default()
        },
    );
    sim.elasticity = crate::meshless::simulation::Elasticity::CorotatedLinear;
    if implicit {
        sim.set_corotated_implicit(Some(CorotatedImplicit {
            tolerance: 1e-8,
            ..CorotatedImplicit::default()
        }));
    }
    let steps = (duration / dt).round() as usize;
    let every = steps / samples;
    let mut heights = Vec::new();
    for step in 1..=steps {
        sim.step(dt).unwrap();
        if step % every == 0 {
            heights.push(top(&sim));
        }
    }
    heights
}

#[test]
fn implicit_euler_converges_to_the_explicit_reference_as_the_step_shrinks() {
    // A jelly cube (E = 100 kPa, edge 0.3 m) dropped 5 cm: lands at t ≈ 0.1 s and squashes. The
    // reference is explicit symplectic Euler well below the stability bound (h√(ρ/E) = 22 ms).
    let duration = 0.2;
    let samples = 25;
    let reference = top_trajectory(false, 0.1e-3, duration, samples);
    let mut errors = Vec::new();
    for dt in [4e-3, 2e-3, 1e-3, 0.5e-3] {
        let implicit = top_trajectory(true, dt, duration, samples);
        let error = implicit
            .iter()
            .zip(&reference)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        eprintln!("implicit Δt = {dt:e} s: max |top − reference| over 0.2 s = {error:.3e} m");
        errors.push(error);
    }
    let squash = 0.35 - reference.iter().cloned().fold(f64::INFINITY, f64::min);
    eprintln!("reference: the top falls {squash:.3} m");
    for pair in errors.windows(2) {
        assert!(
            pair[1] < 0.75 * pair[0],
            "no first-order convergence: {errors:?}"
        );
    }
    assert!(
        errors[3] < 0.05 * squash,
        "{errors:?} vs a fall of {squash}"
    );
}

/// The extent max − min of the body along `axis`.
fn extent(sim: &Simulation, axis: usize) -> f64 {
    let values: Vec<f64> = sim.body.positions().iter().map(|p| p[axis]).collect();
    values.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - values.iter().cloned().fold(f64::INFINITY, f64::min)
}

/// A 5×5×5 block (E = 1 MPa) held for one step of 1/60 s at the isochoric stretch
/// F = diag(s, s^−½, s^−½), then released weightless and integrated implicitly until it rests.
fn stretch_hold_and_release(plasticity: Option<Plasticity>, stretch: f64) -> Simulation {
    let material = Material {
        young: 1e6,
        ..Material::JELLY
    };
    let environment = Environment {
        gravity: DVec3::ZERO,
        colliders: vec![],
        friction: 0.0,
        damping: 1.0,
    };
    let mut sim = Simulation::new(cube(5, 0.05, 0.0, material), environment);
    sim.set_corotated_implicit(Some(CorotatedImplicit::default()));
    sim.plasticity = plasticity;
    let hold = DMat3::from_diagonal(DVec3::new(stretch, stretch.powf(-0.5), stretch.powf(-0.5)));
    sim.body.displacement = sim
        .body
        .reference
        .iter()
        .map(|x| (hold - DMat3::IDENTITY) * *x)
        .collect();
    sim.fixed = vec![true; sim.body.len()];
    sim.step(1.0 / 60.0).unwrap();
    sim.fixed.clear();
    for _ in 0..240 {
        sim.step(1.0 / 60.0).unwrap();
    }
    sim
}

#[test]
fn a_stretched_plastic_block_keeps_the_stretch_the_flow_rule_predicts() {
    // The isochoric stretch ln F = a diag(1, −½, −½), a = ln s, has deviatoric Hencky strain
    // ‖e‖ = a √(3/2). With c_creep Δt ≥ 1 the flow leaves ‖e_elastic‖ = c_yield, so the plastic part
    // is F_p = diag(e^(a_p), e^(−a_p/2), e^(−a_p/2)) with a_p = a − c_yield √(2/3); released, the block
    // springs back to exactly that shape (the rest shape F_p x̄ is stress-free).
    let stretch: f64 = 1.3;
    let plasticity = Plasticity {
        yield_strain: 0.05,
        creep: 100.0,
        max_strain: 1.0,
    };
    let a = stretch.ln();
    let a_plastic = a - plasticity.yield_strain * (2.0f64 / 3.0).sqrt();
    let expected = DMat3::from_diagonal(DVec3::new(
        a_plastic.exp(),
        (-0.5 * a_plastic).exp(),
        (-0.5 * a_plastic).exp(),
    ));
    let plastic = stretch_hold_and_release(Some(plasticity), stretch);
    for (i, f_p) in plastic.body.plastic_deformation.iter().enumerate() {
        let error = (*f_p - expected)
            .abs()
            .to_cols_array()
            .into_iter()
            .fold(0.0, f64::max);
        assert!(error < 1e-9, "phyxel {i}: F_p = {f_p}, expected {expected}");
    }
    let (length, width) = (extent(&plastic, 0) / 0.2, extent(&plastic, 1) / 0.2);
    eprintln!(
        "released plastic block: length × {length:.5} (flow rule {:.5}), width × {width:.5} ({:.5})",
        a_plastic.exp(),
        (-0.5 * a_plastic).exp()
    );
    assert!(
        (length / a_plastic.exp() - 1.0).abs() < 2e-3,
        "length × {length}"
    );
    assert!(
        (width / (-0.5 * a_plastic).exp() - 1.0).abs() < 2e-3,
        "width × {width}"
    );
    // Without plasticity the same block springs back to its own shape.
    let elastic = stretch_hold_and_release(None, stretch);
    let length = extent(&elastic, 0) / 0.2;
    eprintln!("released elastic block: length × {length:.5}");
    assert!((length - 1.0).abs() < 2e-3, "length × {length}");
    assert!(elastic
        .body
        .plastic_deformation
        .iter()
        .all(|f_p| *f_p == DMat3::IDENTITY));
}

#[test]
fn implicit_steps_allow_any_rigid_speed_but_stop_a_neighbourhood_torn_in_one_step() {
    let environment = Environment {
        colliders: vec![],
        damping: 0.0,
        ..Environment::default()
    };
    let mut sim = Simulation::new(cube(4, 0.05, 1.0, stiff()), environment.clone());
    sim.set_corotated_implicit(Some(CorotatedImplicit::default()));
    let dt = 1.0 / 60.0;
    // Free fall, far faster than 0.4 support radii per step by the end: implicit Euler gives
    // v_n = g n Δt and y_n = y_0 + ½ g n (n + 1) Δt², with no deformation at all.
    let steps = 40;
    for _ in 0..steps {
        sim.step(dt).expect("a falling body is not a blow-up");
    }
    let n = steps as f64;
    let expected = -0.5 * 9.81 * n * (n + 1.0) * dt * dt;
    let fell = sim.body.displacement[0].y;
    assert!(
        (fell / expected - 1.0).abs() < 1e-6,
        "fell {fell} m, expected {expected} m"
    );
    let speed = sim.body.velocity[0].length();
    assert!(speed * dt > 0.4 * sim.body.support_radius[0], "{speed} m/s");
    // A shear of Δt·∂v/∂y = 1 in one step turns the neighbourhood by ½ rad, beyond the linearization:
    // stopped, state kept.
    let mut sim = Simulation::new(cube(4, 0.05, 1.0, stiff()), environment);
    sim.set_corotated_implicit(Some(CorotatedImplicit::default()));
    sim.body.velocity = sim
        .body
        .reference
        .iter()
        .map(|x| DVec3::new(x.y / dt, 0.0, 0.0))
        .collect();
    let before = sim.body.displacement.clone();
    let failure = sim.step(dt).unwrap_err();
    assert!(failure.implicit);
    assert!(
        failure.to_string().contains("more than 23° in one step"),
        "{failure}"
    );
    assert_eq!(sim.body.displacement, before);
}

/// Coulomb's law on the ground, inside the solve (module docs, "Obstacles inside the solve"): a cube
/// resting on the ground (μ = 0.5, no damping) and pushed sideways at 1 m/s slides with the
/// deceleration μ g = 4.905 m/s² until it stops (v₀/(μ g) = 0.204 s), then stays put. The friction
/// is lagged on the last step's normal impulses, so the deceleration holds only if the held contacts
/// carry the weight (Σ J = M g Δt) and the friction spends exactly μ J of it; the stop, only if the
/// sticking drag stays within the cone. Measured 2026-11-25 at Δt = 1/240 s: 4.902 m/s² (the centre
/// of mass's velocity between 0.9 and 0.3 m/s; 4.727 with a drag μ J/|s| for sliding), stopped at
/// 0.208 s (0.18 s with an uncapped sticking drag), |v| 10⁻⁷ m/s a second after the push.
#[test]
fn a_cube_pushed_along_the_ground_slides_with_the_coulomb_deceleration_and_stops() {
    let material = Material {
        young: 1e6,
        ..stiff()
    };
    let environment = Environment {
        damping: 0.0,
        ..Environment::default()
    };
    let (mu, g) = (environment.friction, environment.gravity.length());
    let mut sim = Simulation::new(cube(4, 0.05, 0.0, material), environment);
    sim.set_corotated_implicit(Some(CorotatedImplicit::default()));
    let dt = 1.0 / 240.0;
    let mass: f64 = sim.body.mass.iter().sum();
    let centre_velocity = |sim: &Simulation| -> DVec3 {
        sim.body
            .mass
            .iter()
            .zip(&sim.body.velocity)
            .map(|(m, v)| *m * *v)
            .sum::<DVec3>()
            / mass
    };
    // Settle on the ground first.
    for _ in 0..240 {
        sim.step(dt).unwrap();
    }
    for v in sim.body.velocity.iter_mut() {
        v.x += 1.0;
    }
    let (mut fast, mut slow, mut stopped) = (None, None, None);
    for step in 1..=240 {
        sim.step(dt).unwrap();
        let t = step as f64 * dt;
        let v = centre_velocity(&sim).x;
        if v <= 0.9 && fast.is_none() {
            fast = Some((t, v));
        }
        if v <= 0.3 && slow.is_none() {
            slow = Some((t, v));
        }
        if v <= 0.0 && stopped.is_none() {
            stopped = Some(t);
        }
    }
    let ((t1, v1), (t2, v2)) = (fast.unwrap(), slow.unwrap());
    let deceleration = (v1 - v2) / (t2 - t1);
    let stopped = stopped.expect("the cube stops");
    let rest = centre_velocity(&sim).length();
    eprintln!(
        "pushed cube: deceleration {deceleration:.4} m/s² (μ g = {:.4}), stopped {stopped:.3} s \
         after the push (v₀/(μ g) = {:.3} s), |v| at the end {rest:.1e} m/s",
        mu * g,
        1.0 / (mu * g)
    );
    assert!(
        (deceleration / (mu * g) - 1.0).abs() < 0.03,
        "deceleration {deceleration} m/s², μ g = {}",
        mu * g
    );
    assert!(
        (stopped * mu * g - 1.0).abs() < 0.05,
        "stopped after {stopped} s"
    );
    assert!(rest < 1e-3, "still moving at {rest} m/s");
}

/// The deflated solve ([`crate::deflation`], the rigid translations as its coarse space) returns the
/// Δv of the system itself: (1 + Δt α) M Δv − (Δt β + Δt²) K Δv = b, checked with the model's own
/// product on a deformed, moving, unconstrained cube — nodal and by quadrature — and on a quadrature
/// cube whose face is held by a penalty (whose K does not annihilate a translation, so the solve
/// must not assume it does). A coarse product that is not A's would leave a residual of the size of
/// the translation it got wrong.
#[test]
fn the_deflated_step_solves_the_step_s_system() {
    use crate::meshless::corotated::{elastic_forces, rotations, stiffness_product};
    use crate::meshless::quadrature::QuadratureSettings;
    let spacing = 0.05;
    let n = 5;
    let edge = spacing * (n - 1) as f64;
    let shape = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::splat(edge),
    };
    let soft = Material {
        young: 1e5,
        ..stiff()
    };
    let nodal = cube(n, spacing, 0.0, soft);
    let mut quadrature = nodal.clone();
    quadrature
        .set_quadrature(&shape, spacing, QuadratureSettings::default())
        .expect("the cube has a quadrature");
    let mut held = quadrature.clone();
    let face: Vec<(DVec3, f64)> = (0..n)
        .flat_map(|j| (0..n).map(move |k| (j, k)))
        .map(|(j, k)| {
            let at = DVec3::new(0.0, j as f64, k as f64) * (edge / (n - 1) as f64);
            (at, (edge / (n - 1) as f64).powi(2))
        })
        .collect();
    held.hold_surface(&face, 100.0, spacing)
        .expect("a quadrature body holds a face");
    assert!(held.holds_a_surface() && !quadrature.holds_a_surface());
    let dt = 1.0 / 60.0;
    let mass_damping = 0.5;
    // The quadrature's product runs in single precision (about 10⁻⁶ of K Δv): CG stops at 10⁻⁶.
    let settings = CorotatedImplicit {
        tolerance: 1e-6,
        ..CorotatedImplicit::default()
    };
    for (name, mut body) in [("nodal", nodal), ("quadrature", quadrature), ("held", held)] {
        // A bend and a twist, moving with a spin and a shear.
        body.displacement = body
            .reference
            .iter()
            .map(|x| DVec3::new(0.02 * (x.y / edge).powi(2), 0.01 * x.z / edge, -0.015 * x.x))
            .collect();
        let velocity: Vec<DVec3> = body
            .reference
            .iter()
            .map(|x| DVec3::new(-x.y, x.x + 0.3 * x.z, 0.1) * 2.0)
            .collect();
        let gravity = DVec3::new(0.0, -9.81, 0.0);
        let loads = Loads {
            gravity,
            extra: &[],
            fixed: &[],
            contacts: &[],
        };
        let step = velocity_change(
            &body,
            &velocity,
            dt,
            loads,
            SurfacePenalty::default(),
            mass_damping,
            settings,
            None,
        );
        let r = rotations(&body, &body.displacement);
        let f = elastic_forces(&body, &body.displacement, &r);
        let kv = stiffness_product(&body, &r, &velocity);
        let kdv = stiffness_product(&body, &r, &step.dv);
        let (mut residual, mut scale) = (0.0f64, 0.0f64);
        for i in 0..body.len() {
            let m = body.mass[i];
            let b = dt * (f[i] + m * gravity - mass_damping * m * velocity[i]) + dt * dt * kv[i];
            let a_dv = (1.0 + dt * mass_damping) * m * step.dv[i] - dt * dt * kdv[i];
            residual += (a_dv - b).length_squared();
            scale += b.length_squared();
        }
        let relative = (residual / scale).sqrt();
        println!(
            "{name}: {} iterations, ‖A Δv − b‖/‖b‖ = {relative:.2e}",
            step.stats.iterations
        );
        assert!(step.stats.converged, "{name}: {:?}", step.stats);
        assert!(relative < 1e-5, "{name}: relative residual {relative:.3e}");
    }
}
