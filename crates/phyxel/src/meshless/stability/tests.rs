use super::*;
use crate::lessons::integrating_solid::{Cantilever, Integration};
use crate::meshless::simulation::{Elasticity, Environment, Simulation};

#[test]
fn the_tridiagonal_eigenvalue_is_the_laplacian_s_largest() {
    // tridiag(−1, 2, −1) of order n: λ_k = 4 sin²(kπ / (2(n + 1))), the largest at k = n.
    for n in [1usize, 2, 7, 40] {
        let alpha = vec![2.0; n];
        let beta = vec![-1.0; n - 1];
        let theta = n as f64 * std::f64::consts::PI / (2.0 * (n + 1) as f64);
        let exact = 4.0 * theta.sin().powi(2);
        let found = largest_tridiagonal_eigenvalue(&alpha, &beta);
        assert!((found - exact).abs() < 1e-12, "n = {n}: {found} vs {exact}");
    }
}

/// Largest |u| after `steps` explicit steps of Δt from a small displacement with every mode in it,
/// or None if the simulation caught a blow-up.
fn largest_after(integration: Integration, dt_fraction: f64, steps: usize) -> Option<f64> {
    let beam = Cantilever::new(0.1, 5.0, 4, 1e6, 0.3, 1000.0).unwrap();
    let (mut body, held) = beam.body(integration).unwrap();
    let bound = symplectic_euler_bound(&body, &held);
    let amplitude = 1e-6 * beam.height;
    for (i, u) in body.displacement.iter_mut().enumerate() {
        if !held[i] {
            let s = i as f64 + 1.0;
            *u = amplitude * DVec3::new((1.7 * s).sin(), (2.3 * s).cos(), (0.7 * s).sin());
        }
    }
    let mut sim = Simulation::new(
        body,
        Environment {
            gravity: DVec3::ZERO,
            colliders: vec![],
            damping: 0.0,
            ..Environment::default()
        },
    );
    sim.fixed = held;
    sim.elasticity = Elasticity::CorotatedLinear;
    let dt = dt_fraction * bound;
    let mut largest = 0.0f64;
    for _ in 0..steps {
        sim.step(dt).ok()?;
        largest = sim
            .body
            .displacement
            .iter()
            .fold(largest, |m, u| m.max(u.length()));
    }
    Some(largest / amplitude)
}

#[test]
fn symplectic_euler_is_stable_just_below_the_measured_bound_and_not_just_above() {
    // ω_max Δt = 2 separates bounded from growing solutions. The quadrature beam's held face is
    // taken implicitly by the step, so its penalty (100 E/a) does not enter the bound.
    for integration in [Integration::NodalKernelDensity, Integration::Quadrature] {
        let below = largest_after(integration, 0.97, 600);
        assert!(
            below.is_some_and(|growth| growth < 20.0),
            "{integration:?} at 0.97 Δt_crit: {below:?}"
        );
        let above = largest_after(integration, 1.03, 600);
        assert!(
            above.is_none_or(|growth| growth > 1e3),
            "{integration:?} at 1.03 Δt_crit: {above:?}"
        );
    }
}

#[test]
fn the_held_face_taken_implicitly_leaves_the_bound_to_the_material() {
    // The quadrature beam's face penalty (100 E/a) taken explicitly would set the bound by itself,
    // about seven times lower; taken implicitly the bound is the material's, of the order of (and
    // below) the thesis' estimate h√(ρ/E).
    let beam = Cantilever::new(0.1, 5.0, 4, 1e6, 0.3, 1000.0).unwrap();
    let (body, held) = beam.body(Integration::Quadrature).unwrap();
    let bound = |hold| 2.0 / largest_frequency_squared(&body, &held, hold, LANCZOS_STEPS).sqrt();
    let (implicit, explicit) = (bound(Hold::Implicit), bound(Hold::Explicit));
    println!("implicit hold {implicit} s, explicit hold {explicit} s");
    assert!(
        implicit / explicit > 5.0 && implicit / explicit < 10.0,
        "{implicit} s vs {explicit} s"
    );
    let h = 2.2 * beam.spacing();
    let estimate = h * (1000.0f64 / 1e6).sqrt();
    assert!(
        implicit > 0.3 * estimate && implicit < estimate,
        "{implicit} s vs h√(ρ/E) = {estimate} s"
    );
}

#[test]
fn lanczos_has_settled_within_its_steps() {
    // The largest Ritz value grows towards λ_max: three times the steps change it by < 10⁻⁶.
    for integration in [Integration::NodalKernelDensity, Integration::Quadrature] {
        let beam = Cantilever::new(0.1, 5.0, 4, 1e6, 0.3, 1000.0).unwrap();
        let (body, held) = beam.body(integration).unwrap();
        let short = largest_frequency_squared(&body, &held, Hold::Implicit, LANCZOS_STEPS);
        let long = largest_frequency_squared(&body, &held, Hold::Implicit, 3 * LANCZOS_STEPS);
        assert!(
            (long / short - 1.0).abs() < 1e-6,
            "{integration:?}: {short} after {LANCZOS_STEPS} steps, {long} after three times as many"
        );
    }
}
