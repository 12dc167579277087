//! Deflated PCG against plain PCG on systems with a known low mode: the solution is the same (checked
//! against the exact one), the coarse mode is solved before the first iteration, and the iterations
//! fall.

use super::*;
use crate::conjugate_gradient::{jacobi, solve};
use crate::integrators::VectorSpace;

/// (A x)_k = m_k x_k + s (2x_k − x_{k−1} − x_{k+1}) with free ends: masses on a chain of springs of
/// stiffness s, whose spring part annihilates the uniform vector, as an elastic body's stiffness
/// annihilates a rigid translation.
fn chain(mass: &[f64], s: f64) -> impl Fn(&Vec<f64>) -> Vec<f64> + '_ {
    move |x| {
        let n = x.len();
        (0..n)
            .map(|k| {
                let mut spring = 0.0;
                if k > 0 {
                    spring += x[k] - x[k - 1];
                }
                if k + 1 < n {
                    spring += x[k] - x[k + 1];
                }
                mass[k] * x[k] + s * spring
            })
            .collect()
    }
}

fn diagonal(mass: &[f64], s: f64) -> Vec<f64> {
    let n = mass.len();
    (0..n)
        .map(|k| mass[k] + s * (f64::from(u8::from(k > 0)) + f64::from(u8::from(k + 1 < n))))
        .collect()
}

fn tolerance(relative_residual: f64) -> Tolerance {
    Tolerance {
        relative_residual,
        max_iterations: 10_000,
        reference_norm: 0.0,
    }
}

#[test]
fn a_uniform_load_on_a_free_chain_is_solved_before_the_first_iteration() {
    // Free fall: b = M g, so x = g everywhere (the springs stay unstretched). Jacobi scales the ends
    // (one spring) differently from the middle (two), so plain PCG needs iterations to rebuild the
    // uniform x; with Z = the uniform vector it is the coarse solve.
    let n = 200;
    let mass = vec![1.0; n];
    let s = 50.0;
    let a = chain(&mass, s);
    let g = -9.81;
    let b: Vec<f64> = mass.iter().map(|m| m * g).collect();
    let d = diagonal(&mass, s);
    let plain = solve(&a, &b, vec![0.0; n], jacobi(&d), tolerance(1e-8));
    let uniform = vec![1.0; n];
    let coarse = CoarseSpace::new(vec![uniform.clone()], vec![a(&uniform)]).expect("E > 0");
    let deflated = solve_deflated(&a, &b, vec![0.0; n], jacobi(&d), &coarse, tolerance(1e-8));
    assert!(plain.converged && plain.iterations >= 5, "{plain:?}");
    assert!(
        deflated.converged && deflated.iterations == 0,
        "{deflated:?}"
    );
    for x in &deflated.x {
        assert!((x - g).abs() < 1e-12 * g.abs(), "{x}");
    }
}

#[test]
fn deflation_finds_the_same_solution_in_fewer_iterations() {
    // Uneven masses and a right-hand side with a large mean and a ripple: the exact solution is
    // recovered to the tolerance by both, and deflating the uniform mode saves iterations.
    let n = 300;
    let mass: Vec<f64> = (0..n)
        .map(|k| 1.0 + 0.5 * (0.37 * k as f64).sin())
        .collect();
    let s = 400.0;
    let a = chain(&mass, s);
    let exact: Vec<f64> = (0..n)
        .map(|k| 3.0 + 0.2 * (0.05 * k as f64).cos() + 0.01 * (1.3 * k as f64).sin())
        .collect();
    let b = a(&exact);
    let d = diagonal(&mass, s);
    let uniform = vec![1.0; n];
    let coarse = CoarseSpace::new(vec![uniform.clone()], vec![a(&uniform)]).expect("E > 0");
    let plain = solve(&a, &b, vec![0.0; n], jacobi(&d), tolerance(1e-10));
    let deflated = solve_deflated(&a, &b, vec![0.0; n], jacobi(&d), &coarse, tolerance(1e-10));
    assert!(plain.converged && deflated.converged);
    assert!(
        deflated.iterations < plain.iterations,
        "deflated {} vs plain {}",
        deflated.iterations,
        plain.iterations
    );
    // The reported residual is the true one, and x is the exact solution.
    let r = b.plus_scaled(-1.0, &a(&deflated.x));
    let true_residual = r.dot(&r).sqrt() / b.dot(&b).sqrt();
    assert!(true_residual <= 1.01e-10, "{true_residual}");
    let error = exact
        .iter()
        .zip(&deflated.x)
        .map(|(e, x)| (e - x).abs())
        .fold(0.0, f64::max);
    assert!(error < 1e-6, "max error {error}");
}

#[test]
fn a_singular_coarse_matrix_is_refused() {
    let n = 10;
    let mass = vec![1.0; n];
    let a = chain(&mass, 1.0);
    let u = vec![1.0; n];
    let twice = vec![2.0; n];
    // Dependent vectors: E is singular.
    assert!(CoarseSpace::new(vec![u.clone(), twice.clone()], vec![a(&u), a(&twice)]).is_none());
    // No vectors, or a zero one.
    assert!(CoarseSpace::<Vec<f64>>::new(Vec::new(), Vec::new()).is_none());
    assert!(CoarseSpace::new(vec![vec![0.0; n]], vec![vec![0.0; n]]).is_none());
    assert_eq!(
        CoarseSpace::new(vec![u.clone()], vec![a(&u)])
            .expect("one vector")
            .dimension(),
        1
    );
}
