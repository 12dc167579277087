//! The corotated model against its defining properties: polar factors, zero force under rigid motion,
//! forces as the energy gradient, and a stiffness product that is the symmetric, negative
//! semidefinite derivative of the forces.

use super::*;
use crate::meshless::body::SupportRadius;
use crate::meshless::material::Material;
use crate::meshless::mls::symmetric_eigen;
use crate::meshless::sampling::{sample, Lattice, Shape};

/// Deterministic pseudo-random numbers in [−1, 1).
fn jitter(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    2.0 * ((*seed >> 11) as f64 / (1u64 << 53) as f64) - 1.0
}

fn random_vector(seed: &mut u64) -> DVec3 {
    DVec3::new(jitter(seed), jitter(seed), jitter(seed))
}

fn random_matrix(seed: &mut u64) -> DMat3 {
    DMat3::from_cols(
        random_vector(seed),
        random_vector(seed),
        random_vector(seed),
    )
}

const SPACING: f64 = 0.1;

/// A 6×5×4 block on a lattice jittered by up to 25 % of the spacing, with a stiff material.
fn irregular_block(seed: &mut u64) -> Body {
    let shape = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::new(0.5, 0.4, 0.3),
    };
    let points = sample(&shape, SPACING, Lattice::Cubic)
        .into_iter()
        .map(|p| p + 0.25 * SPACING * random_vector(seed))
        .collect();
    let material = Material {
        young: 1e7,
        ..Material::JELLY
    };
    Body::new(
        points,
        SPACING.powi(3),
        SPACING,
        material,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    )
}

/// A volume-preserving deformation near I + 0.3·(random): det = 1.
fn random_plastic_deformation(seed: &mut u64) -> DMat3 {
    let m = DMat3::IDENTITY + 0.3 * random_matrix(seed);
    m / m.determinant().cbrt()
}

/// The block as it is, and with a different random plastic deformation F_p in every phyxel.
fn elastic_and_plastic_blocks(seed: &mut u64) -> [Body; 2] {
    let elastic = irregular_block(seed);
    let mut plastic = elastic.clone();
    plastic.plastic_deformation = (0..plastic.len())
        .map(|_| random_plastic_deformation(seed))
        .collect();
    [elastic, plastic]
}

fn largest_entry(m: DMat3) -> f64 {
    m.abs().to_cols_array().into_iter().fold(0.0, f64::max)
}

fn max_norm(v: &[DVec3]) -> f64 {
    v.iter().map(|f| f.abs().max_element()).fold(0.0, f64::max)
}

fn dot(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a.dot(*b)).sum()
}

fn assert_rotation(r: DMat3, what: &str) {
    assert!(
        largest_entry(r.transpose() * r - DMat3::IDENTITY) < 1e-12,
        "{what}: RᵀR ≠ I: {r}"
    );
    assert!(
        (r.determinant() - 1.0).abs() < 1e-12,
        "{what}: det R = {}",
        r.determinant()
    );
}

#[test]
fn the_polar_rotation_is_a_rotation_that_leaves_a_symmetric_stretch() {
    let mut seed = 11;
    for k in 0..200 {
        // Deformation gradients near and far from the identity, some of them inverted.
        let f = DMat3::IDENTITY + (0.05 + 0.01 * k as f64) * random_matrix(&mut seed);
        let f = DMat3::from_axis_angle(
            random_vector(&mut seed).normalize(),
            3.0 * jitter(&mut seed),
        ) * f;
        let r = polar_rotation(f);
        assert_rotation(r, &format!("F = {f}"));
        let s = r.transpose() * f;
        assert!(
            largest_entry(s - s.transpose()) < 1e-10 * largest_entry(f),
            "RᵀF not symmetric for F = {f}"
        );
        if f.determinant() > 0.0 {
            // For det F > 0 the polar rotation is unique: compare with Higham's iteration
            // R ← ½(R + R⁻ᵀ), which converges to it.
            let mut higham = f;
            for _ in 0..60 {
                higham = 0.5 * (higham + higham.inverse().transpose());
            }
            assert!(largest_entry(r - higham) < 1e-9, "F = {f}: {r} vs {higham}");
            // ... and S = RᵀF is then positive definite.
            let (eigenvalues, _) = symmetric_eigen(symmetric_part(s));
            assert!(eigenvalues.min_element() > 0.0);
        } else {
            // Inverted: the stretch has exactly one negative eigenvalue, the smallest in magnitude.
            let (eigenvalues, _) = symmetric_eigen(symmetric_part(s));
            let negative = eigenvalues.to_array().iter().filter(|e| **e < 0.0).count();
            assert_eq!(negative, 1, "F = {f}: stretch eigenvalues {eigenvalues}");
        }
    }
    // A pure rotation is its own polar factor.
    let q = DMat3::from_axis_angle(DVec3::new(1.0, -2.0, 0.5).normalize(), 2.9);
    assert!(largest_entry(polar_rotation(q) - q) < 1e-14);
    // Degenerate gradients: flattened onto a plane, onto a line, zero, non-finite.
    let flat = q * DMat3::from_diagonal(DVec3::new(1.2, 0.7, 0.0));
    let r = polar_rotation(flat);
    assert_rotation(r, "rank 2");
    assert!(
        largest_entry(r.transpose() * flat - DMat3::from_diagonal(DVec3::new(1.2, 0.7, 0.0)))
            < 1e-12
    );
    assert_rotation(
        polar_rotation(q * DMat3::from_diagonal(DVec3::new(0.0, 0.0, 2.0))),
        "rank 1",
    );
    assert_eq!(polar_rotation(DMat3::ZERO), DMat3::IDENTITY);
    assert_eq!(
        polar_rotation(DMat3::from_diagonal(DVec3::new(f64::NAN, 1.0, 1.0))),
        DMat3::IDENTITY
    );
    // A reflection (det F = −1) yields a rotation, not the reflection.
    assert_rotation(
        polar_rotation(DMat3::from_diagonal(DVec3::new(1.0, 1.0, -1.0))),
        "reflection",
    );
}

#[test]
fn newtons_polar_rotation_is_the_svds_to_round_off() {
    use crate::meshless::polar::{polar_rotation_by_newton, polar_rotation_by_svd};
    let mut seed = 23;
    let mut iterated = 0;
    for k in 0..400 {
        // Small strains (what a step sees) to large stretches, under any rotation.
        let f = DMat3::IDENTITY + (1e-4 + 0.004 * k as f64) * random_matrix(&mut seed);
        let f = DMat3::from_axis_angle(
            random_vector(&mut seed).normalize(),
            3.0 * jitter(&mut seed),
        ) * f;
        let svd = polar_rotation_by_svd(f);
        match polar_rotation_by_newton(f) {
            Some(newton) => {
                iterated += 1;
                assert!(
                    largest_entry(newton - svd) < 1e-12,
                    "F = {f}: {newton} vs {svd}"
                );
                assert_eq!(polar_rotation(f), newton);
            }
            None => assert_eq!(polar_rotation(f), svd),
        }
    }
    assert!(iterated > 300, "only {iterated} of 400 iterated");
    // Stretches far from 1 whose |F|² is still 3 (the first update unscaled) converge alike.
    for (s1, s2) in [(1.22, 0.75), (1.35, 0.55), (1.1, 0.9), (1.6, 0.2)] {
        let s3 = (3.0_f64 - s1 * s1 - s2 * s2).sqrt();
        let f = DMat3::from_axis_angle(DVec3::new(1.0, 2.0, -0.5).normalize(), 2.2)
            * DMat3::from_diagonal(DVec3::new(s1, s2, s3))
            * DMat3::from_axis_angle(DVec3::new(-0.3, 1.0, 0.8).normalize(), 0.7);
        let newton = polar_rotation_by_newton(f).expect("well conditioned");
        let svd = polar_rotation_by_svd(f);
        assert!(
            largest_entry(newton - svd) < 1e-12,
            "F = {f}: {newton} vs {svd}"
        );
    }
    // Inverted, flattened and non-finite gradients go to the SVD.
    for f in [
        DMat3::from_diagonal(DVec3::new(1.0, 1.0, -1.0)),
        DMat3::from_diagonal(DVec3::new(1.2, 0.7, 0.0)),
        DMat3::ZERO,
        DMat3::from_diagonal(DVec3::new(f64::NAN, 1.0, 1.0)),
    ] {
        assert_eq!(polar_rotation_by_newton(f), None, "F = {f}");
    }
}

#[test]
fn rigid_motions_give_zero_corotated_force() {
    let mut seed = 12;
    let body = irregular_block(&mut seed);
    assert_eq!(body.mls.regularized, 0);
    // The scale to measure "zero" against: the forces of a 1 % stretch.
    let stretch: Vec<DVec3> = body
        .reference
        .iter()
        .map(|x| DVec3::new(0.01 * x.x, 0.0, 0.0))
        .collect();
    let scale = max_norm(&forces(&body, &stretch));
    assert!(scale > 0.0);
    let mut worst: f64 = 0.0;
    for angle in [0.0, 0.3, 1.7, 3.1] {
        let rotation = DMat3::from_axis_angle(random_vector(&mut seed).normalize(), angle);
        let translation = random_vector(&mut seed);
        let displacement: Vec<DVec3> = body
            .reference
            .iter()
            .map(|x| (rotation - DMat3::IDENTITY) * *x + translation)
            .collect();
        let f = forces(&body, &displacement);
        let relative = max_norm(&f) / scale;
        worst = worst.max(relative);
        assert!(relative <= 1e-12, "angle {angle}: |f|/scale = {relative:e}");
        let e = energy(&body, &displacement);
        assert!(e.abs() <= 1e-20 * energy(&body, &stretch), "energy {e}");
    }
    eprintln!("rigid motion: max |f| / |f(1 % stretch)| = {worst:e}");
}

#[test]
fn a_plastically_deformed_body_is_stress_free_in_its_new_shape_however_it_is_moved() {
    let mut seed = 16;
    let mut body = irregular_block(&mut seed);
    // Every phyxel flowed by the same F_p: the rest shape is the affinely deformed block F_p x̄.
    let plastic = random_plastic_deformation(&mut seed);
    body.plastic_deformation = vec![plastic; body.len()];
    let original_shape: Vec<DVec3> = vec![DVec3::ZERO; body.len()];
    let scale = max_norm(&forces(&body, &original_shape));
    assert!(scale > 0.0, "the original shape is now strained");
    for angle in [0.0, 0.8, 2.9] {
        let rotation = DMat3::from_axis_angle(random_vector(&mut seed).normalize(), angle);
        let translation = random_vector(&mut seed);
        // F = R F_p: the elastic part F_e = F F_p⁻¹ = R is a pure rotation.
        let displacement: Vec<DVec3> = body
            .reference
            .iter()
            .map(|x| (rotation * plastic - DMat3::IDENTITY) * *x + translation)
            .collect();
        let relative = max_norm(&forces(&body, &displacement)) / scale;
        assert!(relative <= 1e-12, "angle {angle}: |f|/scale = {relative:e}");
        assert!(energy(&body, &displacement).abs() <= 1e-20 * energy(&body, &original_shape));
    }
}

#[test]
fn corotated_forces_are_minus_the_energy_gradient_and_rotation_invariant() {
    let mut seed = 13;
    for body in elastic_and_plastic_blocks(&mut seed) {
        forces_are_minus_the_energy_gradient_and_rotation_invariant(&body, &mut seed);
    }
}

fn forces_are_minus_the_energy_gradient_and_rotation_invariant(body: &Body, seed: &mut u64) {
    // A large rotation on top of a small random deformation.
    let rotation = DMat3::from_axis_angle(DVec3::new(0.2, 1.0, -0.4).normalize(), 1.2);
    let noise: Vec<DVec3> = (0..body.len())
        .map(|_| 0.02 * SPACING * random_vector(seed))
        .collect();
    let displacement: Vec<DVec3> = body
        .reference
        .iter()
        .zip(&noise)
        .map(|(x, n)| rotation * (*x + *n) - *x)
        .collect();
    let f = forces(body, &displacement);
    let scale = max_norm(&f);
    let h = 1e-7 * SPACING;
    let mut u = displacement.clone();
    for i in (0..body.len()).step_by(5) {
        for axis in 0..3 {
            let original = u[i][axis];
            u[i][axis] = original + h;
            let plus = energy(body, &u);
            u[i][axis] = original - h;
            let minus = energy(body, &u);
            u[i][axis] = original;
            let derivative = (plus - minus) / (2.0 * h);
            assert!(
                (derivative + f[i][axis]).abs() <= 1e-5 * scale,
                "phyxel {i} axis {axis}: −∂U/∂u = {} vs f = {}",
                -derivative,
                f[i][axis]
            );
        }
    }
    // Rotating the deformed body rotates its forces (corotation: no ghost forces).
    let unrotated: Vec<DVec3> = noise.clone();
    let f0 = forces(body, &unrotated);
    for (a, b) in f.iter().zip(&f0) {
        assert!((*a - rotation * *b).length() <= 1e-9 * scale);
    }
}

/// A deformed, rotated state and its frozen rotations.
fn deformed_state(body: &Body, seed: &mut u64) -> (Vec<DVec3>, Vec<DMat3>) {
    let rotation = DMat3::from_axis_angle(DVec3::new(1.0, 0.3, -0.2).normalize(), 0.9);
    let displacement: Vec<DVec3> = body
        .reference
        .iter()
        .map(|x| rotation * (*x + 0.05 * SPACING * random_vector(seed)) - *x)
        .collect();
    let r = rotations(body, &displacement);
    (displacement, r)
}

#[test]
fn the_stiffness_product_is_the_derivative_of_the_forces_at_frozen_rotations() {
    let mut seed = 14;
    for body in elastic_and_plastic_blocks(&mut seed) {
        stiffness_product_is_the_derivative_of_the_forces(&body, &mut seed);
    }
}

fn stiffness_product_is_the_derivative_of_the_forces(body: &Body, seed: &mut u64) {
    let (u, r) = deformed_state(body, seed);
    let frozen = |u: &[DVec3]| body.gather_forces(&stresses(body, u, &r));
    let direction: Vec<DVec3> = (0..body.len()).map(|_| random_vector(seed)).collect();
    let kv = stiffness_product(body, &r, &direction);
    let h = 1e-4 * SPACING;
    let shifted =
        |s: f64| -> Vec<DVec3> { u.iter().zip(&direction).map(|(u, v)| *u + s * *v).collect() };
    let (plus, minus) = (frozen(&shifted(h)), frozen(&shifted(-h)));
    let scale = max_norm(&kv);
    let mut worst: f64 = 0.0;
    for ((p, m), k) in plus.iter().zip(&minus).zip(&kv) {
        let difference = (*p - *m) / (2.0 * h);
        worst = worst.max((difference - *k).abs().max_element() / scale);
    }
    eprintln!("K·v vs central difference of frozen-rotation forces: max relative error {worst:e}");
    assert!(worst <= 1e-6, "relative error {worst:e}");
}

#[test]
fn the_stiffness_is_symmetric_negative_semidefinite_and_ignores_translations() {
    let mut seed = 15;
    for body in elastic_and_plastic_blocks(&mut seed) {
        stiffness_is_symmetric_negative_semidefinite(&body, &mut seed);
    }
}

fn stiffness_is_symmetric_negative_semidefinite(body: &Body, seed: &mut u64) {
    let (_, r) = deformed_state(body, seed);
    let a: Vec<DVec3> = (0..body.len()).map(|_| random_vector(seed)).collect();
    let b: Vec<DVec3> = (0..body.len()).map(|_| random_vector(seed)).collect();
    let (ka, kb) = (
        stiffness_product(body, &r, &a),
        stiffness_product(body, &r, &b),
    );
    let (akb, bka) = (dot(&a, &kb), dot(&b, &ka));
    let asymmetry = (akb - bka).abs() / (dot(&a, &ka).abs() * dot(&b, &kb).abs()).sqrt();
    eprintln!("⟨a, K b⟩ = {akb:e}, ⟨b, K a⟩ = {bka:e}, relative asymmetry {asymmetry:e}");
    assert!(asymmetry <= 1e-12, "{asymmetry:e}");
    for _ in 0..5 {
        let v: Vec<DVec3> = (0..body.len()).map(|_| random_vector(seed)).collect();
        assert!(dot(&v, &stiffness_product(body, &r, &v)) < 0.0);
    }
    let scale = max_norm(&ka);
    let translation = vec![DVec3::new(0.3, -1.0, 2.0); body.len()];
    let kt = max_norm(&stiffness_product(body, &r, &translation));
    assert!(kt <= 1e-12 * scale, "K·translation = {kt:e} vs {scale:e}");
    // The diagonal blocks are those of K: K_kk e_a = (K e_(k,a))_k.
    let diagonal = stiffness_diagonal(body, &r);
    for k in (0..body.len()).step_by(11) {
        for axis in 0..3 {
            let mut unit = vec![DVec3::ZERO; body.len()];
            unit[k][axis] = 1.0;
            let column = stiffness_product(body, &r, &unit)[k];
            let expected = diagonal[k].col(axis);
            assert!(
                (column - expected).length() <= 1e-10 * expected.length(),
                "block {k}, axis {axis}: {column} vs {expected}"
            );
        }
        let (eigenvalues, _) = symmetric_eigen(diagonal[k]);
        assert!(eigenvalues.max_element() < 0.0, "K_kk is negative definite");
    }
}
