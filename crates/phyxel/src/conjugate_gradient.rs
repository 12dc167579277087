//! Matrix-free preconditioned conjugate gradients (Hestenes & Stiefel 1952; Shewchuk, "An introduction
//! to the conjugate gradient method without the agonizing pain", 1994, §12 and Algorithm B3).
//!
//! Solves A x = b for a symmetric positive definite A that is only available as a product x ↦ A x, with
//! a symmetric positive definite preconditioner given as r ↦ M⁻¹ r. The implicit phyxel step (Brunet et
//! al. 2019 §3.6; Zhou et al. 2013 §4, "Conjugate Gradient solver ... relative tolerance 10⁻⁴") and the
//! static Newton solve use it with A = M − Δt·D − Δt²·K and A = −K, never assembling either.

use crate::integrators::VectorSpace;
use glam::{DMat3, DVec3};

/// A vector space with an inner product: what conjugate gradients needs beyond `y ← y + α·x`.
pub trait InnerProduct: VectorSpace {
    /// ⟨self, other⟩.
    fn dot(&self, other: &Self) -> f64;
    /// The zero vector of the same shape.
    fn zeros_like(&self) -> Self;
}

impl InnerProduct for f64 {
    fn dot(&self, other: &Self) -> f64 {
        self * other
    }
    fn zeros_like(&self) -> Self {
        0.0
    }
}

impl InnerProduct for DVec3 {
    fn dot(&self, other: &Self) -> f64 {
        DVec3::dot(*self, *other)
    }
    fn zeros_like(&self) -> Self {
        DVec3::ZERO
    }
}

impl<T: InnerProduct> InnerProduct for Vec<T> {
    fn dot(&self, other: &Self) -> f64 {
        assert_eq!(self.len(), other.len(), "vectors differ in length");
        self.iter().zip(other).map(|(a, b)| a.dot(b)).sum()
    }
    fn zeros_like(&self) -> Self {
        self.iter().map(InnerProduct::zeros_like).collect()
    }
}

/// When to stop: once ‖b − A x‖ ≤ `relative_residual` · max(‖b‖, `reference_norm`), or after
/// `max_iterations`.
///
/// The floor `reference_norm` is a scale of b below which a residual does not matter. Without it a
/// purely relative test chases round-off wherever b itself vanishes: an implicit step of a body at rest
/// under gravity has b = Δt(f_elastic + M g) → 0 as it settles, and each step then asks for 10⁻⁴ of an
/// ever smaller b (measured 2026-11-24 on the explicit-vs-implicit lesson's beam at rest: 115–130 CG
/// iterations every step, 17 ms, against 0–2 with the step's weight impulse Δt‖M g‖ as the floor).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tolerance {
    /// Stop once ‖b − A x‖ / max(‖b‖, `reference_norm`) is at most this.
    pub relative_residual: f64,
    /// ... or after this many iterations (one product with A each).
    pub max_iterations: usize,
    /// The smallest norm the residual is measured against (0: purely relative to ‖b‖).
    #[serde(default)]
    pub reference_norm: f64,
}

/// What a solve did.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution<V> {
    pub x: V,
    /// Iterations run (products with A, not counting the one for the initial residual).
    pub iterations: usize,
    /// ‖b − A x‖ / max(‖b‖, reference norm) of the returned x (the recurrence's residual; 0 when
    /// b = 0).
    pub relative_residual: f64,
    /// Whether the tolerance was reached (false: the iteration limit was hit, or A turned out not to
    /// be positive definite along some search direction).
    pub converged: bool,
}

/// Preconditioned conjugate gradients from the initial guess `x0` (Shewchuk 1994, Algorithm B3):
///
/// r₀ = b − A x₀,  z₀ = M⁻¹ r₀,  p₀ = z₀;  for k = 0, 1, …:
/// α = ⟨r, z⟩ / ⟨p, A p⟩,  x ← x + α p,  r ← r − α A p,  z = M⁻¹ r,  β = ⟨r, z⟩_new / ⟨r, z⟩_old,
/// p ← z + β p.
///
/// In exact arithmetic it terminates in at most n iterations for an n-dimensional system. A
/// non-positive curvature ⟨p, A p⟩ ≤ 0 (A not positive definite) stops it with `converged: false`.
/// A guess x₀ whose residual exceeds ‖b‖ is replaced by x₀ = 0 (no extra product: r₀ = b).
pub fn solve<V, A, P>(apply: A, b: &V, x0: V, precondition: P, tolerance: Tolerance) -> Solution<V>
where
    V: InnerProduct,
    A: Fn(&V) -> V,
    P: Fn(&V) -> V,
{
    let b_norm = b.dot(b).sqrt();
    if b_norm == 0.0 {
        return Solution::zero(b);
    }
    let (x, r) = start(&apply, b, x0);
    let scale = b_norm.max(tolerance.reference_norm);
    iterate(apply, x, r, precondition, tolerance, scale)
}

/// The iterations of [`solve`] from an x whose residual r = b − A x is given, stopping once ‖r‖ ≤
/// `tolerance.relative_residual · scale`.
pub(crate) fn iterate<V, A, P>(
    apply: A,
    mut x: V,
    mut r: V,
    precondition: P,
    tolerance: Tolerance,
    scale: f64,
) -> Solution<V>
where
    V: InnerProduct,
    A: Fn(&V) -> V,
    P: Fn(&V) -> V,
{
    let mut residual = r.dot(&r).sqrt();
    let target = tolerance.relative_residual * scale;
    if residual <= target {
        return Solution {
            x,
            iterations: 0,
            relative_residual: residual / scale,
            converged: true,
        };
    }
    let mut z = precondition(&r);
    let mut p = z.clone();
    let mut rz = r.dot(&z);
    let mut iterations = 0;
    let mut converged = false;
    while iterations < tolerance.max_iterations {
        let ap = apply(&p);
        let curvature = p.dot(&ap);
        // Stop on non-positive (or NaN) curvature: A is not positive definite along p.
        if curvature.is_nan() || curvature <= 0.0 || !rz.is_finite() {
            break;
        }
        let alpha = rz / curvature;
        x.add_scaled(alpha, &p);
        r.add_scaled(-alpha, &ap);
        iterations += 1;
        residual = r.dot(&r).sqrt();
        if residual <= target {
            converged = true;
            break;
        }
        z = precondition(&r);
        let rz_next = r.dot(&z);
        let beta = rz_next / rz;
        rz = rz_next;
        // p ← z + β p
        let mut next = z;
        next.add_scaled(beta, &p);
        p = next;
    }
    Solution {
        x,
        iterations,
        relative_residual: residual / scale,
        converged,
    }
}

impl<V: InnerProduct> Solution<V> {
    /// The solution of A x = 0: x = 0, no iteration.
    pub(crate) fn zero(b: &V) -> Self {
        Solution {
            x: b.zeros_like(),
            iterations: 0,
            relative_residual: 0.0,
            converged: true,
        }
    }
}

/// The starting point (x₀, r₀ = b − A x₀) of [`solve`] for a b ≠ 0: a guess worse than none (a warm
/// start from a step whose motion has died out, ‖r₀‖ > ‖b‖) is replaced by x₀ = 0, whose residual is
/// b itself. A zero x₀ takes no product.
pub(crate) fn start<V, A>(apply: &A, b: &V, x0: V) -> (V, V)
where
    V: InnerProduct,
    A: Fn(&V) -> V,
{
    if x0.dot(&x0) == 0.0 {
        return (x0, b.clone());
    }
    let r = b.plus_scaled(-1.0, &apply(&x0));
    if r.dot(&r) > b.dot(b) {
        (b.zeros_like(), b.clone())
    } else {
        (x0, r)
    }
}

/// No preconditioning: M = I.
pub fn identity<V: Clone>(r: &V) -> V {
    r.clone()
}

/// Jacobi preconditioning for a vector of scalars: z_k = r_k / A_kk (entries with A_kk ≤ 0 are passed
/// through unscaled).
pub fn jacobi(diagonal: &[f64]) -> impl Fn(&Vec<f64>) -> Vec<f64> + '_ {
    move |r| {
        r.iter()
            .zip(diagonal)
            .map(|(r, d)| if *d > 0.0 { r / d } else { *r })
            .collect()
    }
}

/// The inverses of the 3×3 diagonal blocks A_kk for block-Jacobi preconditioning of a system over
/// lists of 3D vectors: z_k = A_kk⁻¹ r_k. A block that is not invertible (or not finite) is replaced by
/// the inverse of its largest diagonal entry times I, or by I.
pub fn block_jacobi_inverses(blocks: &[DMat3]) -> Vec<DMat3> {
    blocks
        .iter()
        .map(|block| {
            let det = block.determinant();
            let scale = block
                .to_cols_array()
                .iter()
                .fold(0.0f64, |m, e| m.max(e.abs()));
            if det.is_finite() && scale > 0.0 && det.abs() > 1e-12 * scale.powi(3) {
                block.inverse()
            } else {
                let diagonal = block.x_axis.x.max(block.y_axis.y).max(block.z_axis.z);
                if diagonal > 0.0 && diagonal.is_finite() {
                    DMat3::IDENTITY / diagonal
                } else {
                    DMat3::IDENTITY
                }
            }
        })
        .collect()
}

/// Block-Jacobi preconditioning z_k = B_k r_k with the block inverses B_k of [`block_jacobi_inverses`].
pub fn block_jacobi(inverses: &[DMat3]) -> impl Fn(&Vec<DVec3>) -> Vec<DVec3> + '_ {
    move |r| r.iter().zip(inverses).map(|(r, b)| *b * *r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (A x)_k = 2x_k − x_{k−1} − x_{k+1} + c_k x_k: the 1D Laplacian (Dirichlet ends) plus a diagonal.
    fn laplacian_plus_diagonal(c: &[f64]) -> impl Fn(&Vec<f64>) -> Vec<f64> + '_ {
        move |x| {
            let n = x.len();
            (0..n)
                .map(|k| {
                    let left = if k > 0 { x[k - 1] } else { 0.0 };
                    let right = if k + 1 < n { x[k + 1] } else { 0.0 };
                    (2.0 + c[k]) * x[k] - left - right
                })
                .collect()
        }
    }

    #[test]
    fn cg_solves_an_spd_system_to_tolerance_within_n_iterations() {
        let n = 50;
        let c: Vec<f64> = (0..n).map(|k| 0.01 * (1.0 + (k % 3) as f64)).collect();
        let a = laplacian_plus_diagonal(&c);
        let exact: Vec<f64> = (0..n)
            .map(|k| (0.3 * k as f64).sin() + 0.01 * k as f64)
            .collect();
        let b = a(&exact);
        let tolerance = Tolerance {
            relative_residual: 1e-10,
            max_iterations: 10 * n,
            reference_norm: 0.0,
        };
        let solution = solve(&a, &b, vec![0.0; n], identity, tolerance);
        assert!(solution.converged, "{solution:?}");
        assert!(
            solution.iterations <= n,
            "{} iterations for n = {n}",
            solution.iterations
        );
        let error = exact
            .iter()
            .zip(&solution.x)
            .map(|(e, x)| (e - x).abs())
            .fold(0.0, f64::max);
        assert!(error < 1e-7, "max error {error}");
        // The reported residual is the true one.
        let r = b.plus_scaled(-1.0, &a(&solution.x));
        let true_residual = r.dot(&r).sqrt() / b.dot(&b).sqrt();
        assert!(true_residual <= 1e-10 * 1.01, "{true_residual}");
        assert!((true_residual - solution.relative_residual).abs() < 1e-11);
        // A zero right-hand side needs no iterations; a too-small budget reports non-convergence.
        assert_eq!(
            solve(&a, &vec![0.0; n], vec![1.0; n], identity, tolerance).iterations,
            0
        );
        let short = Tolerance {
            max_iterations: 3,
            ..tolerance
        };
        let partial = solve(&a, &b, vec![0.0; n], identity, short);
        assert!(!partial.converged && partial.iterations == 3 && partial.relative_residual > 1e-10);
    }

    #[test]
    fn a_reference_norm_measures_a_vanishing_right_hand_side_against_a_fixed_scale() {
        let n = 50;
        let c = vec![0.01; n];
        let a = laplacian_plus_diagonal(&c);
        let b: Vec<f64> = (0..n).map(|k| 1e-9 * (0.3 * k as f64).sin()).collect();
        let b_norm = b.dot(&b).sqrt();
        let relative = Tolerance {
            relative_residual: 1e-4,
            max_iterations: 10 * n,
            reference_norm: 0.0,
        };
        // Purely relative: a tiny b is solved to 10⁻⁴ of itself, which takes iterations.
        let chased = solve(&a, &b, vec![0.0; n], identity, relative);
        assert!(chased.converged && chased.iterations > 5, "{chased:?}");
        // Against a scale 10⁶ × ‖b‖, x = 0 already leaves ‖r‖ = ‖b‖ ≤ 10⁻⁴ of it: no iteration, and the
        // residual is reported relative to that scale.
        let floored = Tolerance {
            reference_norm: 1e6 * b_norm,
            ..relative
        };
        let at_once = solve(&a, &b, vec![0.0; n], identity, floored);
        assert_eq!(at_once.iterations, 0);
        assert!(at_once.converged && (at_once.relative_residual - 1e-6).abs() < 1e-12);
        // A scale below ‖b‖ changes nothing.
        let below = Tolerance {
            reference_norm: 0.5 * b_norm,
            ..relative
        };
        assert_eq!(solve(&a, &b, vec![0.0; n], identity, below), chased);
    }

    #[test]
    fn a_guess_worse_than_none_is_dropped() {
        let n = 50;
        let c = vec![0.01; n];
        let a = laplacian_plus_diagonal(&c);
        let b: Vec<f64> = (0..n).map(|k| (0.3 * k as f64).sin()).collect();
        let tolerance = Tolerance {
            relative_residual: 1e-8,
            max_iterations: 10 * n,
            reference_norm: 0.0,
        };
        let from_zero = solve(&a, &b, vec![0.0; n], identity, tolerance);
        // ‖b − A x₀‖ ≫ ‖b‖: the solve is the one from zero, step for step.
        let far: Vec<f64> = (0..n).map(|k| 1e3 * (1.7 * k as f64).cos()).collect();
        assert_eq!(solve(&a, &b, far, identity, tolerance), from_zero);
        // A good guess is kept: the solution itself needs no iteration.
        let warm = solve(&a, &b, from_zero.x.clone(), identity, tolerance);
        assert!(warm.converged && warm.iterations == 0 && from_zero.iterations > 10);
    }

    #[test]
    fn jacobi_preconditioning_helps_on_a_badly_scaled_system() {
        // D A D with D spanning six orders of magnitude: plain CG needs far more iterations than
        // Jacobi-preconditioned CG, which undoes the scaling.
        let n = 40;
        let c = vec![0.5; n];
        let base = laplacian_plus_diagonal(&c);
        let scale: Vec<f64> = (0..n)
            .map(|k| 10f64.powf(6.0 * k as f64 / n as f64))
            .collect();
        let a = |x: &Vec<f64>| {
            let dx: Vec<f64> = x.iter().zip(&scale).map(|(x, d)| x * d).collect();
            base(&dx)
                .iter()
                .zip(&scale)
                .map(|(y, d)| y * d)
                .collect::<Vec<f64>>()
        };
        let diagonal: Vec<f64> = scale.iter().map(|d| 2.5 * d * d).collect();
        let b = vec![1.0; n];
        let tolerance = Tolerance {
            relative_residual: 1e-8,
            max_iterations: 2000,
            reference_norm: 0.0,
        };
        let plain = solve(a, &b, vec![0.0; n], identity, tolerance);
        let preconditioned = solve(a, &b, vec![0.0; n], jacobi(&diagonal), tolerance);
        assert!(preconditioned.converged && preconditioned.iterations <= n);
        assert!(
            preconditioned.iterations * 3 < plain.iterations,
            "Jacobi {} vs plain {} iterations",
            preconditioned.iterations,
            plain.iterations
        );
    }

    #[test]
    fn block_jacobi_helps_on_badly_scaled_3x3_blocks() {
        // A chain of 3D nodes coupled by springs, each node with its own badly scaled, rotated
        // 3×3 diagonal block: block-Jacobi removes the per-node scaling.
        let n = 30;
        let blocks: Vec<DMat3> = (0..n)
            .map(|k| {
                let r =
                    DMat3::from_axis_angle(DVec3::new(1.0, 2.0, 0.5).normalize(), 0.2 * k as f64);
                let s = 10f64.powf(4.0 * k as f64 / n as f64);
                r * DMat3::from_diagonal(DVec3::new(s, 10.0 * s, 100.0 * s)) * r.transpose()
            })
            .collect();
        let coupling = 0.5;
        let a = |x: &Vec<DVec3>| -> Vec<DVec3> {
            (0..n)
                .map(|k| {
                    let left = if k > 0 { x[k - 1] } else { DVec3::ZERO };
                    let right = if k + 1 < n { x[k + 1] } else { DVec3::ZERO };
                    blocks[k] * x[k] + coupling * (2.0 * x[k] - left - right)
                })
                .collect()
        };
        let diagonal_blocks: Vec<DMat3> = blocks
            .iter()
            .map(|b| *b + DMat3::IDENTITY * 2.0 * coupling)
            .collect();
        let inverses = block_jacobi_inverses(&diagonal_blocks);
        let b: Vec<DVec3> = (0..n).map(|k| DVec3::new(1.0, -0.5, k as f64)).collect();
        let tolerance = Tolerance {
            relative_residual: 1e-9,
            max_iterations: 1000,
            reference_norm: 0.0,
        };
        let plain = solve(a, &b, b.zeros_like(), identity, tolerance);
        let blocked = solve(a, &b, b.zeros_like(), block_jacobi(&inverses), tolerance);
        assert!(blocked.converged && plain.converged);
        assert!(
            blocked.iterations * 3 < plain.iterations,
            "block-Jacobi {} vs plain {}",
            blocked.iterations,
            plain.iterations
        );
        assert!(blocked.iterations <= 3 * n);
    }
}
