//! The integrators measured against theory: convergence orders, exact energy maps, stability bounds.

use super::*;
use crate::integrators::{Integrator, Method, State};

/// Integrate the spring from (x₀, 0) to time `t_end` with `steps` steps and return the phase-space
/// error √((x − x_exact)² + ((v − v_exact)/ω)²).
fn spring_error(method: Method, spring: Spring, t_end: f64, steps: usize) -> f64 {
    let dt = t_end / steps as f64;
    let mut state = State::new(1.0, 0.0);
    let mut integrator = Integrator::new(method);
    for _ in 0..steps {
        integrator.step(&spring, &mut state, dt);
    }
    let (x, v) = spring.exact(1.0, 0.0, state.t);
    ((state.x - x).powi(2) + ((state.v - v) / spring.omega()).powi(2)).sqrt()
}

#[test]
fn halving_dt_divides_the_error_by_two_to_the_order() {
    // ω = 1, integrate to t = 2 (sin ωt = 0.91, far from a node of the phase error).
    let spring = Spring {
        stiffness: 3.0,
        mass: 3.0,
    };
    for method in Method::ALL {
        // RK4's error reaches round-off quickly: measure it at coarser steps.
        let steps = if method == Method::Rk4 { 20 } else { 400 };
        let coarse = spring_error(method, spring, 2.0, steps);
        let fine = spring_error(method, spring, 2.0, 2 * steps);
        let ratio = coarse / fine;
        let expected = 2f64.powi(method.order() as i32);
        assert!(
            (ratio / expected - 1.0).abs() < 0.1,
            "{}: error ratio {ratio:.3}, expected ≈ {expected} (errors {coarse:.3e} → {fine:.3e})",
            method.name()
        );
    }
}

#[test]
fn projectile_is_exact_for_second_order_methods_and_off_by_half_g_dt_t_for_euler() {
    // Constant acceleration: x(t) = v₀t + ½gt² is a quadratic, which every second-order method
    // reproduces exactly. Euler's sums give x_n = v₀t + ½g·t(t ∓ Δt): an error of exactly ½gΔt·t.
    let projectile = Projectile {
        gravity: 9.81,
        mass: 1.0,
    };
    let v0 = DVec2::new(3.0, 8.0);
    let dt = 0.01;
    let steps = 150;
    for method in Method::ALL {
        let mut state = State::new(DVec2::ZERO, v0);
        let mut integrator = Integrator::new(method);
        for _ in 0..steps {
            integrator.step(&projectile, &mut state, dt);
        }
        let (exact, exact_v) = projectile.exact(DVec2::ZERO, v0, state.t);
        let error = state.x - exact;
        // Position Verlet's velocity is a difference quotient: its round-off is ε·|x|/Δt ≈ 1e-12.
        assert!(
            (state.v - exact_v).length() < 1e-10,
            "{}: velocity",
            method.name()
        );
        assert!(
            error.x.abs() < 1e-12,
            "{}: horizontal motion is uniform",
            method.name()
        );
        let expected = match method {
            Method::ExplicitEuler => 0.5 * 9.81 * dt * state.t,
            Method::SymplecticEuler | Method::ImplicitEuler => -0.5 * 9.81 * dt * state.t,
            _ => 0.0,
        };
        assert!(
            (error.y - expected).abs() < 1e-11,
            "{}: height error {:.3e}, theory {expected:.3e}",
            method.name(),
            error.y
        );
    }
}

/// Energy after each of `steps` steps, relative to the initial energy.
fn spring_energy_ratios(method: Method, spring: Spring, dt: f64, steps: usize) -> Vec<f64> {
    let mut state = State::new(1.0, 0.0);
    let mut integrator = Integrator::new(method);
    let e0 = spring.energy(1.0, 0.0);
    (0..steps)
        .map(|_| {
            integrator.step(&spring, &mut state, dt);
            spring.energy(state.x, state.v) / e0
        })
        .collect()
}

#[test]
fn symplectic_methods_keep_the_energy_in_a_bounded_band_over_1e5_steps() {
    // ω = 2, Δt = 0.05: z = ωΔt = 0.1. A symplectic method conserves a modified energy, so the true
    // energy oscillates in a band of width O(z) (symplectic Euler) or O(z²) (Verlet family) and does
    // not drift: the band in the last thousand steps equals the band in the first thousand.
    let spring = Spring {
        stiffness: 4.0,
        mass: 1.0,
    };
    let z: f64 = 0.1;
    for method in Method::ALL.into_iter().filter(|m| m.is_symplectic()) {
        let ratios = spring_energy_ratios(method, spring, 0.05, 100_000);
        let band = |slice: &[f64]| {
            let max = slice.iter().cloned().fold(f64::MIN, f64::max);
            let min = slice.iter().cloned().fold(f64::MAX, f64::min);
            (min, max)
        };
        let (first_min, first_max) = band(&ratios[..1000]);
        let (last_min, last_max) = band(&ratios[ratios.len() - 1000..]);
        let (all_min, all_max) = band(&ratios);
        let width = if method == Method::SymplecticEuler {
            z
        } else {
            z * z
        };
        assert!(
            all_max - 1.0 <= width && 1.0 - all_min <= width,
            "{}: band [{all_min}, {all_max}]",
            method.name()
        );
        assert!(
            (last_max - first_max).abs() < 1e-3 * width,
            "{}: upper edge drifted",
            method.name()
        );
        assert!(
            (last_min - first_min).abs() < 1e-3 * width,
            "{}: lower edge drifted",
            method.name()
        );
    }
}

#[test]
fn explicit_euler_multiplies_the_energy_by_one_plus_z_squared_and_implicit_euler_divides_it() {
    // Both Euler maps act on u = (x, v/ω) as I ± zJ-type matrices with J skew, so the energy changes
    // by exactly (1 + z²) per step: up for explicit, down for implicit Euler.
    let spring = Spring {
        stiffness: 4.0,
        mass: 1.0,
    };
    let (dt, z2) = (0.05, 0.01);
    let explicit = spring_energy_ratios(Method::ExplicitEuler, spring, dt, 1000);
    let implicit = spring_energy_ratios(Method::ImplicitEuler, spring, dt, 1000);
    for (n, (e, i)) in explicit.iter().zip(&implicit).enumerate() {
        let theory = (1.0f64 + z2).powi(n as i32 + 1);
        assert!(
            (e / theory - 1.0).abs() < 1e-9,
            "explicit step {n}: {e} vs {theory}"
        );
        assert!(
            (i * theory - 1.0).abs() < 1e-9,
            "implicit step {n}: {i} vs {}",
            1.0 / theory
        );
    }
    assert!(explicit[999] > 2e4 && implicit[999] < 5e-5);
}

#[test]
fn the_verlet_family_produces_one_trajectory() {
    // Leap-frog, position Verlet and velocity Verlet are algebraically the same map for forces that
    // do not depend on v; their positions and synchronized velocities agree to round-off.
    let spring = Spring {
        stiffness: 9.0,
        mass: 0.5,
    };
    let run = |method| {
        let mut s = State::new(1.0, 0.0);
        let mut integrator = Integrator::new(method);
        (0..5000)
            .map(|_| {
                integrator.step(&spring, &mut s, 0.01);
                (s.x, s.v)
            })
            .collect::<Vec<_>>()
    };
    let reference = run(Method::VelocityVerlet);
    for method in [Method::LeapFrog, Method::PositionVerlet] {
        for (n, (a, b)) in run(method).iter().zip(&reference).enumerate() {
            assert!(
                (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-8,
                "{method:?} step {n}: {a:?} vs {b:?}"
            );
        }
    }
}

#[test]
fn a_change_of_dt_restarts_the_multistep_history() {
    // A stale x(t − Δt) from the old step size would inject a wrong velocity; the restart keeps the
    // trajectory second-order accurate across the change.
    let spring = Spring {
        stiffness: 1.0,
        mass: 1.0,
    };
    for method in [Method::LeapFrog, Method::PositionVerlet] {
        let mut s = State::new(1.0, 0.0);
        let mut integrator = Integrator::new(method);
        for _ in 0..100 {
            integrator.step(&spring, &mut s, 0.01);
        }
        for _ in 0..200 {
            integrator.step(&spring, &mut s, 0.005);
        }
        let (x, v) = spring.exact(1.0, 0.0, s.t);
        assert!(
            (s.x - x).abs() < 1e-4 && (s.v - v).abs() < 1e-4,
            "{method:?}: {} vs {x}",
            s.x
        );
    }
}

/// Steps until the comparison flags `method` (None if it stays bounded for `max_steps`).
fn steps_until_flagged(method: Method, spring: Spring, dt: f64, max_steps: usize) -> Option<usize> {
    let mut comparison = Comparison::new(Scene::Spring { spring, x0: 1.0 }).unwrap();
    for n in 1..=max_steps {
        comparison.step(dt).unwrap();
        if comparison.divergence(method).is_some() {
            return Some(n);
        }
    }
    None
}

#[test]
fn blow_ups_are_detected_at_the_step_theory_predicts_and_explained() {
    let spring = Spring {
        stiffness: 400.0,
        mass: 1.0,
    }; // ω = 20
       // Explicit Euler: energy (1 + z²)ⁿ passes 10⁴ at n = ⌈ln 10⁴ / ln(1 + z²)⌉.
    let dt = 0.005;
    let expected = (BLOW_UP_ENERGY_RATIO.ln() / (1.0f64 + 0.01).ln()).ceil() as usize;
    assert_eq!(
        steps_until_flagged(Method::ExplicitEuler, spring, dt, 2000),
        Some(expected)
    );
    let mut comparison = Comparison::new(Scene::Spring { spring, x0: 1.0 }).unwrap();
    for _ in 0..expected {
        comparison.step(dt).unwrap();
    }
    let why = comparison.divergence(Method::ExplicitEuler).unwrap();
    assert!(why.contains("√(1 + (ωΔt)²) = 1.0050"), "{why}");
    for r in comparison.readouts() {
        assert!(r.x.is_finite() && r.energy.is_finite());
        assert_eq!(
            r.diverged,
            r.method == Method::ExplicitEuler,
            "{:?}",
            r.method
        );
    }

    // The Verlet family: bounded just below ωΔt = 2, flagged just above.
    assert_eq!(
        steps_until_flagged(Method::VelocityVerlet, spring, 0.095, 10_000),
        None
    );
    assert!(steps_until_flagged(Method::VelocityVerlet, spring, 0.105, 10_000).is_some());
    // RK4: stable up to ωΔt = 2√2 ≈ 2.83.
    assert_eq!(
        steps_until_flagged(Method::Rk4, spring, 0.135, 10_000),
        None
    );
    assert!(steps_until_flagged(Method::Rk4, spring, 0.145, 10_000).is_some());
    // Implicit Euler never blows up, even at ωΔt = 10.
    assert_eq!(
        steps_until_flagged(Method::ImplicitEuler, spring, 0.5, 10_000),
        None
    );
}

#[test]
fn invalid_parameters_are_rejected_with_the_parameter_named() {
    let bad = [
        (
            Scene::Spring {
                spring: Spring {
                    stiffness: -1.0,
                    mass: 1.0,
                },
                x0: 1.0,
            },
            "k",
        ),
        (
            Scene::Spring {
                spring: Spring {
                    stiffness: 1.0,
                    mass: f64::NAN,
                },
                x0: 1.0,
            },
            "m",
        ),
        (
            Scene::Spring {
                spring: Spring {
                    stiffness: 1.0,
                    mass: 1.0,
                },
                x0: 1e9,
            },
            "x0",
        ),
        (
            Scene::Projectile {
                projectile: Projectile {
                    gravity: 9.81,
                    mass: 1.0,
                },
                speed: f64::INFINITY,
                angle_deg: 45.0,
            },
            "v0",
        ),
    ];
    for (scene, param) in bad {
        let err = Comparison::new(scene).unwrap_err();
        assert_eq!(err.param, param, "{err}");
    }
    let mut comparison = Comparison::new(Scene::Spring {
        spring: Spring {
            stiffness: 1.0,
            mass: 1.0,
        },
        x0: 1.0,
    })
    .unwrap();
    for dt in [0.0, -0.01, f64::NAN, 10.0] {
        assert_eq!(comparison.step(dt).unwrap_err().param, "dt");
    }
    assert_eq!(
        comparison.time(),
        0.0,
        "a rejected step must not advance the simulation"
    );
}

#[test]
fn the_parameter_table_takes_its_ends_and_defaults_and_refuses_beyond() {
    crate::params::check_table(super::PARAMETERS).unwrap();
}
