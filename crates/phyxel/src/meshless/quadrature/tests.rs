//! The quadrature against theory: affine fields reproduced exactly (the patch test), volumes of the
//! shapes, rigid motions and conservation, forces as the energy's gradient, and the interior residual
//! of a uniform stress against nodal integration. The continuum checks (tension, vibration, cantilever
//! convergence to an FEM reference, two materials) are in `tests/quadrature_solids.rs`.

use super::*;
use crate::meshless::sampling::{sample, Lattice, Shape};
use glam::{DMat4, DVec4};
use points::Region;

fn beam_material(young: f64, poisson: f64) -> Material {
    Material {
        young,
        poisson,
        density: 1000.0,
        volume_stiffness: 0.0,
    }
}

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

/// A 0.5 × 0.4 × 0.3 block sampled at `spacing`, interior particles jittered by up to `jitter_fraction`
/// of the spacing (the surface ones stay on the faces), with its quadrature.
fn block(spacing: f64, jitter_fraction: f64, seed: &mut u64) -> (Shape, Vec<DVec3>, Quadrature) {
    sized_block(DVec3::new(0.5, 0.4, 0.3), spacing, jitter_fraction, seed)
}

fn sized_block(
    size: DVec3,
    spacing: f64,
    jitter_fraction: f64,
    seed: &mut u64,
) -> (Shape, Vec<DVec3>, Quadrature) {
    let shape = Shape::Box {
        min: DVec3::ZERO,
        max: size,
    };
    let (lo, hi) = shape.bounds();
    let particles: Vec<DVec3> = sample(&shape, spacing, Lattice::Cubic)
        .into_iter()
        .map(|p| {
            let on_face = (p - lo).min_element() < 1e-9 || (hi - p).min_element() < 1e-9;
            if on_face {
                p
            } else {
                p + jitter_fraction * spacing * random_vector(seed)
            }
        })
        .collect();
    let q = Quadrature::new(
        &shape,
        &particles,
        spacing,
        &beam_material(1e6, 0.3),
        QuadratureSettings::default(),
    )
    .expect("a block several spacings thick has a quadrature");
    (shape, particles, q)
}

#[test]
fn the_safe_inverse_inverts_a_regular_moment_matrix_and_reports_a_flat_one() {
    let a = DMat4::from_cols(
        DVec4::new(4.0, 1.0, 0.5, 0.2),
        DVec4::new(1.0, 3.0, 0.3, 0.1),
        DVec4::new(0.5, 0.3, 2.0, 0.4),
        DVec4::new(0.2, 0.1, 0.4, 1.5),
    );
    let (inverse, rank) = shape_functions::safe_inverse4(a);
    assert_eq!(rank, 4);
    let error = (inverse * a - DMat4::IDENTITY).abs().to_cols_array();
    assert!(error.iter().all(|e| *e < 1e-12), "{error:?}");
    // Particles all in the plane z = 0: no information along z.
    let flat: Vec<DVec3> = (0..9)
        .map(|k| DVec3::new((k % 3) as f64, (k / 3) as f64, 0.0) * 0.1)
        .collect();
    let (values, full_rank) = shape_functions::at_point(DVec3::new(0.1, 0.1, 0.0), &flat, 0.25);
    assert!(!full_rank);
    assert!(values
        .iter()
        .all(|(phi, g)| phi.is_finite() && g.is_finite()));
}

#[test]
fn shape_functions_reproduce_affine_fields_exactly_on_a_jittered_set() {
    let mut seed = 7;
    let (_, particles, q) = block(0.1, 0.25, &mut seed);
    let shape = &q.shape;
    for k in 0..q.len() {
        let x = q.points.position[k];
        let mut sum = 0.0;
        let mut first = DVec3::ZERO;
        let mut gradient_sum = DVec3::ZERO;
        let mut identity = DMat3::ZERO;
        for e in shape.edges(k) {
            let xi = particles[shape.particle[e] as usize];
            sum += shape.value[e];
            first += shape.value[e] * xi;
            gradient_sum += shape.gradient[e];
            identity += crate::meshless::mls::outer(xi, shape.gradient[e]);
        }
        assert!((sum - 1.0).abs() < 1e-10, "Σφ = {sum}");
        assert!(first.distance(x) < 1e-10, "Σφx = {first} at {x}");
        assert!(gradient_sum.length() < 1e-8, "Σ∇φ = {gradient_sum}");
        let off = (identity - DMat3::IDENTITY).abs().to_cols_array();
        assert!(off.iter().all(|e| *e < 1e-9), "Σ x ∇φᵀ = {identity}");
    }
    // The patch test: u = G x + c gives F = I + G at every integration point.
    let g = DMat3::from_cols(
        DVec3::new(0.01, -0.02, 0.005),
        DVec3::new(0.003, 0.015, -0.01),
        DVec3::new(-0.004, 0.002, 0.02),
    );
    let u: Vec<DVec3> = particles
        .iter()
        .map(|x| g * *x + DVec3::new(0.1, -0.2, 0.3))
        .collect();
    for k in 0..q.len() {
        let f = q.deformation_gradient(k, &u);
        let error = (f - DMat3::IDENTITY - g).abs().to_cols_array();
        let worst = error.iter().cloned().fold(0.0, f64::max);
        assert!(worst <= 1e-8 * 0.02, "point {k}: F − I − G = {worst:e}");
    }
    assert!(q.shape.degenerate.is_empty());
}

#[test]
fn integration_point_volumes_add_up_to_the_shape_volume() {
    // Exact for a box tiled by the grid; within 1 % for curved primitives (sphere, torus, cylinder) and for the bunny mesh
    // (against its signed volume), and closer on a finer grid.
    let unit_box = Shape::Box {
        min: DVec3::new(-0.1, 0.2, 0.0),
        max: DVec3::new(0.4, 0.5, 0.2),
    };
    let grid = |cell: f64, region: &dyn Region| {
        points::integration_points(region, points::BackgroundGrid::new(region.bounds().0, cell))
    };
    let v = grid(0.05, &unit_box).total_volume();
    assert!((v / unit_box.volume() - 1.0).abs() < 1e-12, "box: {v}");
    let sphere = Shape::Sphere {
        center: DVec3::new(0.1, 0.2, 0.3),
        radius: 0.5,
    };
    let torus = Shape::Torus {
        center: DVec3::ZERO,
        ring: 0.6,
        tube: 0.25,
    };
    // A cylinder along x whose length the grid does not tile (its end faces cut the cells too).
    let cylinder = Shape::Cylinder {
        center: DVec3::new(0.05, 0.1, -0.2),
        radius: 0.3,
        length: 1.13,
    };
    for shape in [sphere, torus, cylinder] {
        let coarse = (grid(0.125, &shape).total_volume() / shape.volume() - 1.0).abs();
        let fine = (grid(0.05, &shape).total_volume() / shape.volume() - 1.0).abs();
        assert!(fine < 0.01 && coarse < 0.01, "{shape:?}: {coarse} → {fine}");
        assert!(fine < coarse, "{shape:?}: no convergence {coarse} → {fine}");
    }
    let bunny = crate::meshless::mesh::bunny();
    let mut settings = points::BackgroundGrid::new(bunny.bounds().0, 0.1);
    settings.surface_samples = 2;
    let v = points::integration_points(&bunny, settings).total_volume();
    let error = (v / bunny.volume() - 1.0).abs();
    assert!(error < 0.01, "bunny: Σv = {v}, mesh {}", bunny.volume());
}

#[test]
fn rigid_motions_give_no_force_and_the_forces_conserve_momentum() {
    let mut seed = 3;
    let (_, particles, q) = block(0.1, 0.2, &mut seed);
    let rotation = DMat3::from_axis_angle(DVec3::new(1.0, -2.0, 0.5).normalize(), 0.9);
    let rigid: Vec<DVec3> = particles
        .iter()
        .map(|x| rotation * *x - *x + DVec3::new(0.3, -0.1, 2.0))
        .collect();
    let stretch: Vec<DVec3> = particles
        .iter()
        .map(|x| DVec3::new(0.01 * x.x, 0.0, 0.0))
        .collect();
    let scale = q
        .forces(&stretch, &q.rotations(&stretch))
        .iter()
        .map(|f| f.length())
        .fold(0.0, f64::max);
    let f = q.forces(&rigid, &q.rotations(&rigid));
    let worst = f.iter().map(|f| f.length()).fold(0.0, f64::max);
    assert!(
        worst < 1e-9 * scale,
        "rigid motion: |f| = {worst:e} (a 1 % stretch gives {scale:e})"
    );
    // A random deformation: Σ f = 0 and Σ x × f = 0 (x the current positions).
    let u: Vec<DVec3> = particles
        .iter()
        .map(|_| 0.02 * random_vector(&mut seed))
        .collect();
    let f = q.forces(&u, &q.rotations(&u));
    let total: DVec3 = f.iter().sum();
    let torque: DVec3 = particles
        .iter()
        .zip(&u)
        .zip(&f)
        .map(|((x, u), f)| (*x + *u).cross(*f))
        .sum();
    let magnitude: f64 = f.iter().map(|f| f.length()).sum();
    assert!(total.length() < 1e-10 * magnitude, "Σf = {total}");
    assert!(torque.length() < 1e-10 * magnitude, "Σ x × f = {torque}");
}

#[test]
fn forces_are_minus_the_energy_gradient_and_the_stiffness_product_their_derivative() {
    let mut seed = 11;
    let (_, particles, q) = block(0.1, 0.2, &mut seed);
    let u: Vec<DVec3> = particles
        .iter()
        .map(|_| 0.01 * random_vector(&mut seed))
        .collect();
    let r = q.rotations(&u);
    let f = q.forces(&u, &r);
    let h = 1e-7;
    for i in [0, particles.len() / 3, particles.len() - 1] {
        for axis in 0..3 {
            let mut plus = u.clone();
            let mut minus = u.clone();
            plus[i][axis] += h;
            minus[i][axis] -= h;
            let derivative = (q.energy(&plus) - q.energy(&minus)) / (2.0 * h);
            assert!(
                (derivative + f[i][axis]).abs() < 1e-5 * f[i].length().max(1.0),
                "particle {i} axis {axis}: −∂U/∂u = {} vs f = {}",
                -derivative,
                f[i][axis]
            );
        }
    }
    // K δu = the change of the forces at frozen rotations, and ⟨δu, K δu⟩ ≤ 0.
    let du: Vec<DVec3> = particles.iter().map(|_| random_vector(&mut seed)).collect();
    let eps = 1e-6;
    let moved: Vec<DVec3> = u.iter().zip(&du).map(|(u, d)| *u + eps * *d).collect();
    // K δu of `q` at the rotations of u, checked against (f(u + ε δu) − f(u)) / ε at them.
    let product_is_the_forces_change = |q: &Quadrature, label: &str| {
        let r = q.rotations(&u);
        let (f, f_moved) = (q.forces(&u, &r), q.forces(&moved, &r));
        let k_du = q.stiffness_product(&r, &du);
        for i in 0..particles.len() {
            let finite = (f_moved[i] - f[i]) / eps;
            assert!(
                finite.distance(k_du[i]) < 1e-6 * k_du[i].length().max(1.0),
                "{label}: {finite} vs {}",
                k_du[i]
            );
        }
        k_du
    };
    let k_du = product_is_the_forces_change(&q, "elastic");
    let work: f64 = du.iter().zip(&k_du).map(|(a, b)| a.dot(*b)).sum();
    assert!(work < 0.0);
    // The same with every third point plastic (F_p ≠ I: its δM_I taken in double, the elastic
    // points' in f32 from their frozen frames), the product against the forces' change.
    let mut plastic = q.clone();
    for k in (0..plastic.len()).step_by(3) {
        plastic.plastic_deformation[k] = DMat3::IDENTITY
            + 0.05
                * DMat3::from_cols(
                    random_vector(&mut seed),
                    random_vector(&mut seed),
                    random_vector(&mut seed),
                );
    }
    let k_plastic = product_is_the_forces_change(&plastic, "plastic");
    assert!(k_plastic
        .iter()
        .zip(&k_du)
        .any(|(a, b)| a.distance(*b) > 1e-3 * b.length()));
    // K is linear to the f32 arithmetic's scale: δu scaled by 2⁻¹⁶⁰ (below f32's range, where
    // rounded directly it would be zero) and by 2⁶⁰ gives K δu scaled alike.
    for power in [-160, 60] {
        let s = 2f64.powi(power);
        let scaled: Vec<DVec3> = du.iter().map(|d| s * *d).collect();
        let k_scaled = q.stiffness_product(&r, &scaled);
        for (a, b) in k_scaled.iter().zip(&k_du) {
            assert!(
                (*a / s).distance(*b) < 1e-6 * b.length().max(1.0),
                "2^{power}: {} vs {b}",
                *a / s
            );
        }
    }
    // The diagonal blocks are those of the product: e_x at particle i alone (to the product's single
    // precision, ~10⁻⁷ relative, as the blocks are).
    let diagonal = q.stiffness_diagonal(&r);
    for i in [1, particles.len() / 2] {
        let mut unit = vec![DVec3::ZERO; particles.len()];
        unit[i] = DVec3::X;
        let column = q.stiffness_product(&r, &unit)[i];
        assert!(
            column.distance(diagonal[i].x_axis) < 1e-6 * column.length(),
            "{column} vs {}",
            diagonal[i].x_axis
        );
    }
}

#[cfg(feature = "parallel")]
#[test]
fn the_sums_over_the_points_do_not_depend_on_the_thread_count() {
    // The passes add fixed ranges of points into their own copies and the copies in order
    // (`Quadrature::sum_over_points`): one thread and three give the same forces, product and
    // diagonal to the bit, and the one-pass rotations and forces the two passes' bits.
    let mut seed = 5;
    let (_, particles, q) = block(0.1, 0.2, &mut seed);
    let u: Vec<DVec3> = particles
        .iter()
        .map(|_| 0.01 * random_vector(&mut seed))
        .collect();
    let du: Vec<DVec3> = particles.iter().map(|_| random_vector(&mut seed)).collect();
    let passes = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let r = q.rotations(&u);
            let f = q.forces(&u, &r);
            assert_eq!(q.rotations_and_forces(&u), (r.clone(), f.clone()));
            (f, q.stiffness_product(&r, &du), q.stiffness_diagonal(&r))
        })
    };
    assert_eq!(passes(1), passes(3));
}

/// The forces on the interior particles (≥ 2 spacings from every face): (largest, root mean square)
/// in newtons.
fn interior_residual(
    forces: &[DVec3],
    particles: &[DVec3],
    shape: &Shape,
    spacing: f64,
) -> (f64, f64) {
    let (lo, hi) = shape.bounds();
    let interior: Vec<f64> = particles
        .iter()
        .zip(forces)
        .filter(|(x, _)| {
            (**x - lo).min_element() > 2.0 * spacing && (hi - **x).min_element() > 2.0 * spacing
        })
        .map(|(_, f)| f.length())
        .collect();
    let largest = interior.iter().cloned().fold(0.0, f64::max);
    let rms = (interior.iter().map(|f| f * f).sum::<f64>() / interior.len() as f64).sqrt();
    (largest, rms)
}

#[test]
fn a_uniform_stress_leaves_a_smaller_residual_on_interior_particles_than_nodal_integration() {
    // The exact solution of a uniform stress has no force inside the body. On a jittered set, nodal
    // integration leaves one from its volumes and neighbourhoods, the quadrature only the quadrature
    // error of its non-polynomial shape functions. Both are reported in units of σ a² (the force on
    // a cell face): at a fixed jitter both methods are scale-free, so these ratios stay of one size
    // while the forces themselves (N) fall as a².
    use crate::meshless::body::{Body, SupportRadius};
    let stretch = 1e-3;
    let material = beam_material(1e6, 0.3);
    let sigma = material.young * stretch;
    let mut previous = f64::INFINITY;
    for spacing in [0.1, 0.05] {
        let mut seed = 5;
        let (shape, particles, q) = sized_block(DVec3::new(0.8, 0.6, 0.6), spacing, 0.2, &mut seed);
        let u: Vec<DVec3> = particles
            .iter()
            .map(|x| DVec3::new(stretch * x.x, 0.0, 0.0))
            .collect();
        let (q_max, q_rms) =
            interior_residual(&q.forces(&u, &q.rotations(&u)), &particles, &shape, spacing);
        let mut nodal = Body::new(
            particles.clone(),
            spacing.powi(3),
            spacing,
            material,
            SupportRadius::SpacingMultiple { factor: 2.2 },
        );
        nodal.displacement = u.clone();
        let (n_max, n_rms) = interior_residual(
            &crate::meshless::corotated::forces(&nodal, &u),
            &particles,
            &shape,
            spacing,
        );
        let unit = sigma * spacing * spacing;
        println!(
            "a = {spacing}: interior residual / σa², largest and rms: quadrature {:.3} {:.3}, nodal {:.3} {:.3}",
            q_max / unit, q_rms / unit, n_max / unit, n_rms / unit
        );
        assert!(
            q_rms < 0.5 * n_rms && q_max < n_max,
            "a = {spacing}: quadrature {q_rms}, nodal {n_rms}"
        );
        assert!(
            q_rms < 0.5 * previous,
            "no decrease: {previous} N → {q_rms} N"
        );
        previous = q_rms;
    }
}

#[test]
fn a_body_thinner_than_a_cell_or_without_particles_around_its_points_is_refused_with_the_reason() {
    let material = beam_material(1e6, 0.3);
    // A plate 1 mm thick on a 10 cm grid: the surface sampling of its cut cells finds nothing inside.
    let plate = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::new(0.5, 0.001, 0.5),
    };
    let particles = sample(&plate, 0.1, Lattice::Cubic);
    let error = Quadrature::new(
        &plate,
        &particles,
        0.1,
        &material,
        QuadratureSettings::default(),
    )
    .unwrap_err();
    assert!(error.0.contains("thinner than a grid cell"), "{error}");
    // A block whose particles were sampled four times too coarsely for its grid.
    let block = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::splat(0.4),
    };
    let sparse = sample(&block, 0.4, Lattice::Cubic);
    let error = Quadrature::new(
        &block,
        &sparse,
        0.1,
        &material,
        QuadratureSettings::default(),
    )
    .unwrap_err();
    assert!(error.0.contains("too few particles"), "{error}");
    // No spacing, no grid.
    assert!(Quadrature::new(
        &block,
        &sparse,
        f64::NAN,
        &material,
        QuadratureSettings::default()
    )
    .is_err());
}

#[test]
fn multiplicative_plasticity_is_carried_per_integration_point() {
    // Corotated implicit Euler with plastic flow on a quadrature body: a bar stretched past the yield
    // strain and released keeps a permanent elongation, stored in the points' F_p (det F_p = 1).
    use crate::meshless::body::{Body, SupportRadius};
    use crate::meshless::implicit::CorotatedImplicit;
    use crate::meshless::plasticity::Plasticity;
    use crate::meshless::simulation::{Environment, Simulation};
    let shape = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::new(0.4, 0.1, 0.1),
    };
    let a = 0.05;
    let mut body = Body::new(
        sample(&shape, a, Lattice::Cubic),
        a.powi(3),
        a,
        beam_material(1e5, 0.3),
        SupportRadius::SpacingMultiple { factor: 2.2 },
    );
    body.set_quadrature(&shape, a, QuadratureSettings::default())
        .unwrap();
    // Stretched by 20 % along x, at rest.
    body.displacement = body
        .reference
        .iter()
        .map(|x| DVec3::new(0.2 * x.x, 0.0, 0.0))
        .collect();
    let environment = Environment {
        gravity: DVec3::ZERO,
        colliders: vec![],
        damping: 5.0,
        ..Environment::default()
    };
    let mut sim = Simulation::new(body, environment);
    sim.plasticity = Some(Plasticity {
        yield_strain: 0.02,
        creep: 1000.0,
        max_strain: 1.0,
    });
    sim.set_corotated_implicit(Some(CorotatedImplicit::default()));
    // 0.3 s in millisecond steps: the bar's axial period is 2L/c = 0.08 s.
    for _ in 0..300 {
        sim.step(1e-3).unwrap();
    }
    let q = sim.body.quadrature().unwrap();
    let stretch: Vec<f64> = q.plastic_deformation.iter().map(|fp| fp.x_axis.x).collect();
    let mean = stretch.iter().sum::<f64>() / stretch.len() as f64;
    assert!(mean > 1.05, "F_p,xx = {mean}: no permanent set");
    assert!(q
        .plastic_deformation
        .iter()
        .all(|fp| (fp.determinant() - 1.0).abs() < 1e-6));
    let length = |sim: &Simulation| {
        let xs = sim.body.positions();
        xs.iter().map(|p| p.x).fold(f64::MIN, f64::max)
            - xs.iter().map(|p| p.x).fold(f64::MAX, f64::min)
    };
    assert!(
        length(&sim) > 1.04 * 0.4,
        "the bar springs back to {}",
        length(&sim)
    );
}

#[test]
fn a_point_whose_particles_span_too_little_widens_its_support_and_still_passes_the_patch_test() {
    // The bunny's ears and a torus's tube at coarse sampling leave some Gauss points with particles
    // that span less than three dimensions within h: those points reach further (WIDENING).
    use crate::meshless::inside::sample_mesh;
    use crate::meshless::inside::IndexedMesh;
    use crate::meshless::mesh::bunny;
    let mesh = bunny();
    let (lo, hi) = mesh.bounds();
    let spacing = (hi - lo).max_element() / 9.0;
    let particles = sample_mesh(&mesh, spacing, Lattice::Cubic);
    let region = IndexedMesh::new(mesh.clone());
    let q = Quadrature::new(
        &region,
        &particles,
        spacing,
        &beam_material(1e5, 0.3),
        QuadratureSettings::default(),
    )
    .unwrap();
    assert!(!q.shape.widened.is_empty(), "some points were widened");
    assert!(q.shape.degenerate.is_empty());
    let h = q.support_radius;
    for &k in &q.shape.widened {
        let k = k as usize;
        let x = q.points.position[k];
        let edges = q.shape.edges(k);
        // Within h alone the particles were not enough; the widened row reaches beyond h.
        assert!(edges
            .clone()
            .any(|e| particles[q.shape.particle[e] as usize].distance(x) >= h));
        let sum: f64 = edges.clone().map(|e| q.shape.value[e]).sum();
        let first: DVec3 = edges
            .clone()
            .map(|e| q.shape.value[e] * particles[q.shape.particle[e] as usize])
            .sum();
        let identity = edges.fold(DMat3::ZERO, |m, e| {
            m + crate::meshless::mls::outer(
                particles[q.shape.particle[e] as usize],
                q.shape.gradient[e],
            )
        });
        assert!((sum - 1.0).abs() < 1e-9, "Σφ = {sum}");
        assert!(
            first.distance(x) < 1e-9 * spacing.max(1.0),
            "Σφx = {first} at {x}"
        );
        let off = (identity - DMat3::IDENTITY).abs().to_cols_array();
        assert!(off.iter().all(|e| *e < 1e-7), "Σ x ∇φᵀ = {identity}");
    }
    // Σ v_I is the mesh's volume.
    let volume = q.points.total_volume();
    assert!(
        (volume / mesh.volume() - 1.0).abs() < 0.01,
        "{volume} vs {}",
        mesh.volume()
    );
}

#[test]
fn objects_of_one_body_take_their_shape_functions_from_their_own_particles_only() {
    // Two blocks 0.05 apart — less than the support radius 0.18 — integrated as two objects: no
    // shape function crosses the gap, each object's Σv_I is its volume, and each object's points
    // are those it would have alone.
    let spacing = 0.1;
    let material = beam_material(1e5, 0.3);
    let left = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::splat(0.4),
    };
    let right = Shape::Box {
        min: DVec3::new(0.45, 0.0, 0.0),
        max: DVec3::new(0.85, 0.4, 0.4),
    };
    let centred = |shape: &Shape| -> Vec<DVec3> {
        let (min, max) = shape.bounds();
        sample(
            &Shape::Box {
                min: min + 0.5 * spacing,
                max,
            },
            spacing,
            Lattice::Cubic,
        )
    };
    let (a, b) = (centred(&left), centred(&right));
    let particles: Vec<DVec3> = a.iter().chain(&b).copied().collect();
    let split = a.len();
    let objects: [(&dyn Region, std::ops::Range<usize>); 2] =
        [(&left, 0..split), (&right, split..particles.len())];
    let q = Quadrature::of_objects(
        &objects,
        &particles,
        spacing,
        &material,
        QuadratureSettings::default(),
    )
    .unwrap();
    let alone =
        Quadrature::new(&left, &a, spacing, &material, QuadratureSettings::default()).unwrap();
    for k in 0..q.len() {
        let on_left = q.points.position[k].x < 0.425;
        for e in q.shape.edges(k) {
            assert_eq!((q.shape.particle[e] as usize) < split, on_left, "point {k}");
        }
    }
    let left_volume: f64 = (0..q.len())
        .filter(|&k| q.points.position[k].x < 0.425)
        .map(|k| q.points.volume[k])
        .sum();
    assert!((left_volume - 0.064).abs() < 1e-12, "{left_volume}");
    assert!((q.points.total_volume() - 0.128).abs() < 1e-12);
    assert_eq!(
        q.shape.start[..alone.shape.start.len()],
        alone.shape.start[..]
    );
    assert_eq!(
        q.shape.value[..alone.shape.value.len()],
        alone.shape.value[..]
    );
    // The reverse lists name every edge once.
    let mut seen = vec![false; q.shape.particle.len()];
    for i in 0..particles.len() {
        for &e in q.shape.edges_into(i) {
            assert_eq!(q.shape.particle[e as usize] as usize, i);
            assert!(!std::mem::replace(&mut seen[e as usize], true));
        }
    }
    assert!(seen.iter().all(|s| *s));
}
