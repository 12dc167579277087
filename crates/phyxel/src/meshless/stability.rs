//! The step bound of symplectic Euler for a discretized body, measured rather than estimated.
//!
//! Linearized at rest, the body is M ü = K u (K = ∂f/∂u, negative semidefinite; the fixed phyxels
//! removed), a set of undamped oscillators of frequencies ω² = eigenvalues of −M⁻¹K. Symplectic Euler
//! is stable for one oscillator exactly while ω Δt ≤ 2 (its amplification matrix has eigenvalues of
//! modulus one for ωΔt < 2 and one beyond one above: Hairer, Lubich & Wanner 2006 §I.1), so the
//! discretization's bound is Δt_crit = 2 / ω_max. The thesis' estimate h√(ρ/E) (its eq. 3.59, the CFL
//! condition with the speed of sound) only sets the scale: the bound of a phyxel body lies well below it
//! (the stiffness resolves the lattice spacing, not h; pressure waves run faster than √(E/ρ)).
//!
//! ω_max² is the largest eigenvalue of the symmetric B = M^−½ (−K) M^−½, found by the Lanczos process
//! (Golub & Van Loan 2013 §10.1) and the largest eigenvalue of its tridiagonal matrix by Sturm-sequence
//! bisection (§8.4.1): the extreme Ritz value converges in a few tens of products with K, where the
//! power method needs hundreds (it approaches λ_max from below, so an unconverged run would give too
//! large a bound: the tests compare it with a run three times as long).
//!
//! A held surface taken implicitly by the explicit step ([`crate::meshless::quadrature::HeldSurface`])
//! is left out of K. The step's recurrence is then (M + Δt²P) ξ² − (2M − Δt²|K|) ξ + M = 0, stable
//! while Δt²|K| ≺ 4M + Δt²P: 2/ω_max of the material alone is a sufficient bound, within the hold's
//! small share of the highest modes of the exact one.

use crate::meshless::body::Body;
use crate::meshless::corotated;
use glam::DVec3;

/// Lanczos steps: the extreme Ritz value of the lesson's beams settles to 10⁻⁶ within this (tested).
pub const LANCZOS_STEPS: usize = 80;

/// Where a held surface's penalty goes when the bound is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// Left out of K: the explicit step takes it implicitly (what [`crate::meshless::simulation`] does).
    Implicit,
    /// In K, as if the step took it explicitly (to show what the implicit hold buys).
    Explicit,
}

/// Δt_crit = 2/ω_max of symplectic Euler on `body` at rest with the phyxels `fixed` held (module
/// docs). The corotated stiffness at rest, which is also the linearization of MKN04's Green strain
/// without its volume term.
pub fn symplectic_euler_bound(body: &Body, fixed: &[bool]) -> f64 {
    2.0 / largest_frequency_squared(body, fixed, Hold::Implicit, LANCZOS_STEPS).sqrt()
}

/// ω_max² = λ_max(M^−½ (−K) M^−½), fixed phyxels removed, a held surface's penalty in K or not
/// (`hold`), from `steps` Lanczos steps.
pub fn largest_frequency_squared(body: &Body, fixed: &[bool], hold: Hold, steps: usize) -> f64 {
    let n = body.len();
    let free = |i: usize| !fixed.get(i).copied().unwrap_or(false);
    let rotations = corotated::rotations(body, &vec![DVec3::ZERO; n]);
    let held = body
        .quadrature()
        .and_then(|q| q.held.as_ref())
        .filter(|_| hold == Hold::Implicit);
    let inverse_root_mass: Vec<f64> = body.mass.iter().map(|m| 1.0 / m.sqrt()).collect();
    // B w = −M^−½ K M^−½ w on the free phyxels.
    let apply = |w: &[DVec3]| -> Vec<DVec3> {
        let scaled: Vec<DVec3> = (0..n)
            .map(|i| {
                if free(i) {
                    w[i] * inverse_root_mass[i]
                } else {
                    DVec3::ZERO
                }
            })
            .collect();
        let mut product = corotated::stiffness_product(body, &rotations, &scaled);
        if let Some(held) = held {
            for (p, h) in product.iter_mut().zip(held.stiffness_times(&scaled)) {
                *p += h;
            }
        }
        (0..n)
            .map(|i| {
                if free(i) {
                    -product[i] * inverse_root_mass[i]
                } else {
                    DVec3::ZERO
                }
            })
            .collect()
    };
    let dot = |a: &[DVec3], b: &[DVec3]| a.iter().zip(b).map(|(a, b)| a.dot(*b)).sum::<f64>();
    // A start with every free component (a fixed pattern, no two phyxels alike).
    let mut q: Vec<DVec3> = (0..n)
        .map(|i| {
            let s = i as f64 + 1.0;
            if free(i) {
                DVec3::new((0.37 * s).sin(), (0.91 * s).cos(), (1.31 * s).sin() + 0.5)
            } else {
                DVec3::ZERO
            }
        })
        .collect();
    let norm = dot(&q, &q).sqrt();
    if norm == 0.0 {
        return 0.0;
    }
    q.iter_mut().for_each(|x| *x /= norm);
    let mut previous = vec![DVec3::ZERO; n];
    let (mut alpha, mut beta) = (Vec::new(), Vec::new());
    let mut beta_before = 0.0;
    for _ in 0..steps.min(3 * n) {
        let mut w = apply(&q);
        let a = dot(&w, &q);
        for i in 0..n {
            w[i] -= a * q[i] + beta_before * previous[i];
        }
        alpha.push(a);
        let b = dot(&w, &w).sqrt();
        if b <= 1e-14 * a.abs() {
            break;
        }
        beta.push(b);
        beta_before = b;
        previous = std::mem::replace(&mut q, w.iter().map(|x| *x / b).collect());
    }
    beta.truncate(alpha.len() - 1);
    largest_tridiagonal_eigenvalue(&alpha, &beta)
}

/// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal `alpha` and off-diagonal
/// `beta` (len − 1), by bisection on the Sturm count (Golub & Van Loan §8.4.1) inside the Gershgorin
/// interval, to rounding.
pub fn largest_tridiagonal_eigenvalue(alpha: &[f64], beta: &[f64]) -> f64 {
    let n = alpha.len();
    let radius = |i: usize| {
        (if i > 0 { beta[i - 1].abs() } else { 0.0 }) + beta.get(i).map_or(0.0, |b| b.abs())
    };
    let mut lo = (0..n)
        .map(|i| alpha[i] - radius(i))
        .fold(f64::INFINITY, f64::min);
    let mut hi = (0..n)
        .map(|i| alpha[i] + radius(i))
        .fold(f64::NEG_INFINITY, f64::max);
    // Eigenvalues below x: the negative pivots of T − xI's LDLᵀ.
    let below = |x: f64| {
        let mut count = 0;
        let mut d = 1.0;
        for i in 0..n {
            let b2 = if i > 0 {
                beta[i - 1] * beta[i - 1]
            } else {
                0.0
            };
            d = alpha[i] - x - if i > 0 { b2 / d } else { 0.0 };
            if d == 0.0 {
                d = -f64::EPSILON * (x.abs() + 1.0);
            }
            if d < 0.0 {
                count += 1;
            }
        }
        count
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if below(mid) == n {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests;
