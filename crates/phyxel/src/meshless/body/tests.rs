//! The phyxel body against theory: MLS consistency, conservative forces, invariance, conservation.

use super::*;
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

const SPACING: f64 = 0.1;

/// Jelly phyxels at `points`, each standing for a cell of SPACING³, h = 2.2 spacings.
fn jelly(points: Vec<DVec3>) -> Body {
    Body::new(
        points,
        SPACING.powi(3),
        SPACING,
        Material::JELLY,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    )
}

/// A 6×5×4 block on a lattice jittered by up to 25 % of the spacing: irregular neighbourhoods.
fn irregular_block(seed: &mut u64, rule: SupportRadius) -> Body {
    let shape = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::new(0.5, 0.4, 0.3),
    };
    let points = sample(&shape, SPACING, Lattice::Cubic)
        .into_iter()
        .map(|p| p + 0.25 * SPACING * random_vector(seed))
        .collect();
    Body::new(points, SPACING.powi(3), SPACING, Material::JELLY, rule)
}

const RULES: [SupportRadius; 2] = [
    SupportRadius::SpacingMultiple { factor: 2.2 },
    SupportRadius::KNearest { k: 10, scale: 2.0 },
];

#[test]
fn mls_reproduces_any_linear_displacement_field_exactly() {
    let mut seed = 1;
    for rule in RULES {
        let mut body = irregular_block(&mut seed, rule);
        assert_eq!(
            body.mls.regularized, 0,
            "{rule:?}: a full block has no degenerate neighbourhood"
        );
        let g = DMat3::from_cols(
            random_vector(&mut seed),
            random_vector(&mut seed),
            random_vector(&mut seed),
        ) * 0.3;
        let c = random_vector(&mut seed);
        body.displacement = body.reference.iter().map(|x| g * *x + c).collect();
        for i in 0..body.len() {
            let grad = body
                .mls
                .displacement_gradient(i, &body.displacement, &body.neighbours);
            let error = (grad - g)
                .abs()
                .to_cols_array()
                .into_iter()
                .fold(0.0, f64::max);
            assert!(
                error <= 1e-5 * g.abs().to_cols_array().into_iter().fold(0.0, f64::max),
                "{rule:?} phyxel {i}: {error}"
            );
        }
    }
}

/// The largest |component| of a list of vectors.
fn max_norm(v: &[DVec3]) -> f64 {
    v.iter().map(|f| f.abs().max_element()).fold(0.0, f64::max)
}

#[test]
fn forces_are_minus_the_energy_gradient() {
    let mut seed = 2;
    let mut body = irregular_block(&mut seed, SupportRadius::KNearest { k: 10, scale: 2.0 });
    body.displacement = (0..body.len())
        .map(|_| 0.05 * SPACING * random_vector(&mut seed))
        .collect();
    let forces = body.elastic_forces();
    let scale = max_norm(&forces);
    let h = 1e-6 * SPACING;
    for i in (0..body.len()).step_by(7) {
        for axis in 0..3 {
            let u = body.displacement[i];
            body.displacement[i][axis] = u[axis] + h;
            let plus = body.elastic_energy();
            body.displacement[i][axis] = u[axis] - h;
            let minus = body.elastic_energy();
            body.displacement[i] = u;
            let derivative = (plus - minus) / (2.0 * h);
            assert!(
                (derivative + forces[i][axis]).abs() <= 1e-4 * scale,
                "phyxel {i} axis {axis}: −∂U/∂u = {}, force {}",
                -derivative,
                forces[i][axis]
            );
        }
    }
}

#[test]
fn rigid_motions_have_no_strain_and_no_force() {
    let mut seed = 3;
    let mut body = irregular_block(&mut seed, SupportRadius::SpacingMultiple { factor: 2.2 });
    // The force scale of a 1 % stretch, to measure "zero" against.
    body.displacement = body
        .reference
        .iter()
        .map(|x| DVec3::new(0.01 * x.x, 0.0, 0.0))
        .collect();
    let scale = max_norm(&body.elastic_forces());
    let rotation = DMat3::from_axis_angle(DVec3::new(0.3, -1.0, 0.5).normalize(), 0.8);
    let translation = DVec3::new(0.3, -0.2, 1.5);
    for (name, motion) in [("translation", DMat3::IDENTITY), ("rotation", rotation)] {
        body.displacement = body
            .reference
            .iter()
            .map(|x| (motion - DMat3::IDENTITY) * *x + translation)
            .collect();
        let stresses = body.phyxel_stresses();
        let strain = stresses
            .iter()
            .map(|s| {
                s.strain
                    .abs()
                    .to_cols_array()
                    .into_iter()
                    .fold(0.0, f64::max)
            })
            .fold(0.0, f64::max);
        assert!(strain <= 1e-6 * 0.01, "{name}: strain {strain}");
        let force = max_norm(&body.gather_forces(&stresses));
        assert!(
            force <= 1e-6 * scale,
            "{name}: force {force} vs scale {scale}"
        );
    }
}

#[test]
fn internal_forces_sum_to_zero_and_exert_no_net_torque() {
    let mut seed = 4;
    for rule in RULES {
        let mut body = irregular_block(&mut seed, rule);
        body.displacement = (0..body.len())
            .map(|_| 0.1 * SPACING * random_vector(&mut seed))
            .collect();
        let forces = body.elastic_forces();
        let scale: f64 = forces.iter().map(|f| f.length()).sum();
        let net: DVec3 = forces.iter().sum();
        let torque: DVec3 = body
            .positions()
            .iter()
            .zip(&forces)
            .map(|(x, f)| x.cross(*f))
            .sum();
        assert!(net.length() <= 1e-10 * scale, "{rule:?}: net force {net}");
        // Σ x × f = 0 follows from the rotation invariance of U (exact for the MLS gradient).
        assert!(
            torque.length() <= 1e-9 * scale,
            "{rule:?}: net torque {torque}"
        );
    }
}

#[test]
fn a_collinear_neighbourhood_yields_finite_values() {
    // A single row of phyxels: every moment matrix has rank 1.
    let points: Vec<DVec3> = (0..8)
        .map(|i| DVec3::new(i as f64 * SPACING, 0.0, 0.0))
        .collect();
    let mut body = jelly(points);
    assert_eq!(body.mls.regularized, body.len());
    body.displacement = body
        .reference
        .iter()
        .map(|x| DVec3::new(0.1 * x.x, 0.05 * x.x, 0.0))
        .collect();
    let forces = body.elastic_forces();
    assert!(forces.iter().all(|f| f.is_finite()) && body.elastic_energy().is_finite());
    // Along the row the stretch is still seen: ∂u_x/∂x = 0.1.
    let grad = body
        .mls
        .displacement_gradient(3, &body.displacement, &body.neighbours);
    assert!((grad.x_axis.x - 0.1).abs() < 1e-12 && (grad.x_axis.y - 0.05).abs() < 1e-12);
}

#[test]
fn interior_density_is_close_to_the_rest_density() {
    // Mass = ρ₀ s³ per lattice point and Σ_j s³ w_ij ≈ ∫ w dV = 1 inside the body.
    let shape = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::splat(1.0),
    };
    let body = Body::new(
        sample(&shape, SPACING, Lattice::Cubic),
        SPACING.powi(3),
        SPACING,
        Material::JELLY,
        SupportRadius::SpacingMultiple { factor: 3.0 },
    );
    let centre = body
        .reference
        .iter()
        .position(|x| x.distance(DVec3::splat(0.5)) < 1e-9)
        .unwrap();
    assert!(
        (body.density[centre] / 1000.0 - 1.0).abs() < 0.05,
        "ρ = {}",
        body.density[centre]
    );
    assert!((body.volume[centre] / SPACING.powi(3) - 1.0).abs() < 0.05);
    let mean_neighbours = body.neighbours.mean_count();
    assert!(
        mean_neighbours > 60.0 && mean_neighbours < 130.0,
        "{mean_neighbours}"
    );
}

#[test]
fn a_new_density_rescales_the_masses_so_that_the_total_is_density_times_volume() {
    // A cube sampled on a cubic lattice, each of its N points standing for a cell of SPACING³: the
    // sampled volume V = N · SPACING³.
    let shape = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::splat(0.4),
    };
    let points = sample(&shape, SPACING, Lattice::Cubic);
    let cells = points.len() as f64;
    let mut body = jelly(points);
    let volumes = body.volume.clone();
    let steel = Material {
        density: 7800.0,
        ..Material::JELLY
    };
    body.set_material(steel);
    // Σ m_i = ρ′ · V.
    let total: f64 = body.mass.iter().sum();
    let expected = steel.density * cells * SPACING.powi(3);
    assert!(
        (total / expected - 1.0).abs() < 1e-12,
        "{total} kg, ρV = {expected} kg"
    );
    // ρ_i is what Σ_j m_j w_ij gives for the new masses (the rebuild computes it afresh), and
    // V_i = m_i / ρ_i has not moved.
    let mut rebuilt = body.clone();
    rebuilt.rebuild_reference();
    let close = |a: f64, b: f64| (a / b - 1.0).abs() < 1e-12;
    for (i, &volume) in volumes.iter().enumerate() {
        assert!(close(body.density[i], rebuilt.density[i]));
        assert!(close(body.mass[i] / body.density[i], volume));
        assert!(close(rebuilt.volume[i], volume));
    }
    assert_eq!(body.material, steel);
}
