//! Solids integrated by background quadrature (Brunet et al. 2019 §3.3–3.6) against continuum
//! theory: a bar's Young's modulus and Poisson's ratio under uniaxial tension, its free axial
//! vibration period, and cantilever deflections under refinement against an independent reference.
//! Every beam is held in a rigid wall: the particles of its end face and one layer of particles
//! inside the wall are fixed (the explicit-vs-implicit lesson's clamp).

use glam::{DMat3, DVec3};
use phyxel::meshless::body::{Body, SupportRadius};
use phyxel::meshless::corotated;
use phyxel::meshless::implicit::{solve_static, Loads, StaticSolve};
use phyxel::meshless::material::Material;
use phyxel::meshless::quadrature::{Quadrature, QuadratureSettings};
use phyxel::meshless::sampling::{sample, Lattice, Shape};

/// A bar [0, L] × [0, H] × [0, H] with `across` particles across its height (on the faces, spacing
/// H/(across − 1)) and `wall_layers` layers of particles inside the wall at x < 0, integrated by
/// background quadrature. Returns the body, its particle spacing and which particles are held.
fn bar(
    length: f64,
    height: f64,
    across: usize,
    material: Material,
    wall_layers: usize,
) -> (Body, f64, Vec<bool>) {
    let a = height / (across - 1) as f64;
    let shape = Shape::Box {
        min: DVec3::ZERO,
        max: DVec3::new(length, height, height),
    };
    let inside = sample(&shape, a, Lattice::Cubic);
    let mut points = inside.clone();
    for layer in 1..=wall_layers {
        points.extend(
            inside
                .iter()
                .filter(|p| p.x < 1e-9)
                .map(|p| *p - DVec3::X * (layer as f64 * a)),
        );
    }
    let held: Vec<bool> = points.iter().map(|p| p.x < 1e-9).collect();
    let mut body = Body::new(
        points,
        a.powi(3),
        a,
        material,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    );
    body.set_quadrature(&shape, a, QuadratureSettings::default())
        .expect("the bar has a quadrature");
    (body, a, held)
}

/// 2 × 2 Gauss points on each a × a cell of the face x = `x` of a bar of height H, with their areas.
fn face_points(x: f64, height: f64, a: f64) -> Vec<(DVec3, f64)> {
    let g = 0.5 / 3f64.sqrt();
    let cells = (height / a).round() as usize;
    let mut points = Vec::new();
    for cy in 0..cells {
        for cz in 0..cells {
            for (sy, sz) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
                let y = (cy as f64 + 0.5 + sy * g) * a;
                let z = (cz as f64 + 0.5 + sz * g) * a;
                points.push((DVec3::new(x, y, z), 0.25 * a * a));
            }
        }
    }
    points
}

/// A uniform traction `traction` (Pa) on the face x = `x`, as particle forces f_i = Σ_s A_s φ_i(x_s) t
/// (seed 003 eq. 17).
fn traction_load(
    q: &Quadrature,
    x: f64,
    height: f64,
    a: f64,
    traction: DVec3,
) -> Vec<(usize, DVec3)> {
    let mut forces = vec![DVec3::ZERO; q.particle_count()];
    for (at, area) in face_points(x, height, a) {
        for (i, f) in q.point_load(at, area * traction) {
            forces[i] += f;
        }
    }
    forces
        .into_iter()
        .enumerate()
        .filter(|(_, f)| *f != DVec3::ZERO)
        .collect()
}

/// ũ(x) = Σ φ_i(x) u_i.
fn displacement_at(q: &Quadrature, u: &[DVec3], x: DVec3) -> DVec3 {
    q.point_load(x, DVec3::ONE)
        .iter()
        .map(|(i, phi)| phi.x * u[*i])
        .sum()
}

fn settings() -> StaticSolve {
    let mut s = StaticSolve::default();
    s.linear.max_iterations = 20_000;
    s
}

#[test]
fn uniaxial_tension_gives_back_young_s_modulus_and_poisson_s_ratio() {
    // σ on the free end; the strains are read between sections 2H and 4H from the wall, where the
    // wall's restraint of the lateral contraction has died out (Saint-Venant): E = σ/ε̄_xx,
    // ν = −ε̄_yy/ε̄_xx with ε̄ the mean strain there.
    let (height, length) = (0.1, 0.6);
    let material = Material {
        young: 1e6,
        poisson: 0.3,
        density: 1000.0,
        volume_stiffness: 0.0,
    };
    let sigma = 1e-4 * material.young;
    for across in [4, 6, 8] {
        let (mut body, a, held) = bar(length, height, across, material, 1);
        let q = body.quadrature().unwrap().clone();
        let extra = traction_load(&q, length, height, a, DVec3::new(sigma, 0.0, 0.0));
        let loads = Loads {
            gravity: DVec3::ZERO,
            extra: &extra,
            fixed: &held,
            contacts: &[],
        };
        let report = solve_static(&mut body, loads, settings());
        assert!(report.converged, "{across} across: {report:?}");
        // The volume-weighted mean strain of the integration points between the two sections.
        let (mut strain, mut volume) = (DMat3::ZERO, 0.0);
        for k in 0..q.len() {
            let x = q.points.position[k].x;
            if (2.0 * height..=4.0 * height).contains(&x) {
                let f = q.deformation_gradient(k, &body.displacement);
                let v = q.points.volume[k];
                strain += v * (0.5 * (f + f.transpose()) - DMat3::IDENTITY);
                volume += v;
            }
        }
        let strain = strain / volume;
        let axial = strain.x_axis.x;
        let lateral = 0.5 * (strain.y_axis.y + strain.z_axis.z);
        let young = sigma / axial;
        let poisson = -lateral / axial;
        println!("{across} across: {report:?}");
        println!(
            "{across} across: E = {young:.6e} ({:+.3} %), ν = {poisson:.5} ({:+.3} %)",
            (young / material.young - 1.0) * 100.0,
            (poisson / material.poisson - 1.0) * 100.0
        );
        assert!(
            (young / material.young - 1.0).abs() < 0.02,
            "{across} across: E = {young}"
        );
        assert!(
            (poisson / material.poisson - 1.0).abs() < 0.02,
            "{across} across: ν = {poisson}"
        );
    }
}

#[test]
fn a_free_bar_vibrates_axially_with_the_period_of_the_wave_equation() {
    // Free–free bar, ν = 0: u_x = A cos(πx/L) is its first axial mode, period T = 2L/√(E/ρ).
    // Leapfrog at Δt = T/4000 adds a period error of (ωΔt)²/24 ≈ 1e-7.
    let (height, length) = (0.1, 0.8);
    let material = Material {
        young: 1e6,
        poisson: 0.0,
        density: 1000.0,
        volume_stiffness: 0.0,
    };
    let period = 2.0 * length / (material.young / material.density).sqrt();
    for across in [4, 6] {
        let (body, _, _) = bar(length, height, across, material, 0);
        let amplitude = 1e-4 * length;
        let mut u: Vec<DVec3> = body
            .reference
            .iter()
            .map(|x| {
                DVec3::new(
                    amplitude * (std::f64::consts::PI * x.x / length).cos(),
                    0.0,
                    0.0,
                )
            })
            .collect();
        let mut v = vec![DVec3::ZERO; u.len()];
        let ends: Vec<f64> = body
            .reference
            .iter()
            .map(|x| {
                if x.x < 1e-9 {
                    -1.0
                } else if x.x > length - 1e-9 {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        let stretch = |u: &[DVec3]| -> f64 { u.iter().zip(&ends).map(|(u, s)| s * u.x).sum() };
        let dt = period / 4000.0;
        let mut crossings = Vec::new();
        let mut previous = stretch(&u);
        let mut t = 0.0;
        while crossings.len() < 3 && t < 3.0 * period {
            let f = corotated::forces(&body, &u);
            for i in 0..u.len() {
                v[i] += dt * f[i] / body.mass[i];
                u[i] += dt * v[i];
            }
            t += dt;
            let now = stretch(&u);
            if previous.signum() != now.signum() {
                crossings.push(t - dt * now / (now - previous));
            }
            previous = now;
        }
        assert_eq!(
            crossings.len(),
            3,
            "{across} across: the bar does not oscillate"
        );
        let measured = crossings[2] - crossings[0];
        println!(
            "{across} across: T = {measured:.6e} s, 2L/c = {period:.6e} s ({:+.3} %)",
            (measured / period - 1.0) * 100.0
        );
        assert!(
            (measured / period - 1.0).abs() < 0.02,
            "{across} across: T = {measured}, theory {period}"
        );
    }
}

#[test]
fn two_materials_in_one_bar_deflect_in_the_ratio_of_their_stiffnesses() {
    // Seed 003 §4.2, Fig. 8 (a cylinder fixed at its centre, one half much stiffer): here a square
    // bar held over its middle three layers of particles, its x < 0 half ten times stiffer. Each half
    // is a cantilever under its own weight, and beam theory (Euler–Bernoulli or Timoshenko, G ∝ E at
    // one ν) makes the deflection ∝ 1/E: the soft tip sinks ten times as far.
    let (height, half) = (0.1, 0.6);
    let soft = Material {
        young: 1e7,
        poisson: 0.3,
        density: 1000.0,
        volume_stiffness: 0.0,
    };
    let stiff = Material { young: 1e8, ..soft };
    let across = 4;
    let a = height / (across - 1) as f64;
    let shape = Shape::Box {
        min: DVec3::new(-half, 0.0, 0.0),
        max: DVec3::new(half, height, height),
    };
    let points = sample(&shape, a, Lattice::Cubic);
    let held: Vec<bool> = points.iter().map(|p| p.x.abs() < 1.01 * a).collect();
    let mut body = Body::new(
        points,
        a.powi(3),
        a,
        soft,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    );
    body.set_quadrature(&shape, a, QuadratureSettings::default())
        .unwrap();
    if let phyxel::meshless::body::Integration::Quadrature(q) = &mut body.integration {
        q.set_material_where(&stiff, |x| x.x < 0.0);
    }
    let loads = Loads {
        gravity: DVec3::new(0.0, -9.81, 0.0),
        extra: &[],
        fixed: &held,
        contacts: &[],
    };
    let report = solve_static(&mut body, loads, settings());
    assert!(report.converged, "{report:?}");
    let tip = |sign: f64| -> f64 {
        let ends: Vec<f64> = body
            .reference
            .iter()
            .zip(&body.displacement)
            .filter(|(x, _)| x.x * sign > half - 1e-9)
            .map(|(_, u)| -u.y)
            .collect();
        ends.iter().sum::<f64>() / ends.len() as f64
    };
    let ratio = tip(1.0) / tip(-1.0);
    println!(
        "soft tip {:.4e} m, stiff tip {:.4e} m, ratio {ratio:.3} (beam theory {})",
        tip(1.0),
        tip(-1.0),
        stiff.young / soft.young
    );
    assert!(
        (ratio / (stiff.young / soft.young) - 1.0).abs() < 0.1,
        "ratio {ratio}"
    );
}

#[test]
fn implicit_euler_on_the_quadrature_settles_where_the_static_solve_does() {
    // The corotated implicit Euler step (Brunet et al. 2019 §3.6) on a quadrature body, damped, comes
    // to rest at the static equilibrium of the same loads (Newton–Raphson, §3.5).
    use phyxel::meshless::implicit::CorotatedImplicit;
    use phyxel::meshless::simulation::{Environment, Simulation};
    let material = Material {
        young: 2e6,
        poisson: 0.3,
        density: 1000.0,
        volume_stiffness: 0.0,
    };
    let (body, _, held) = bar(0.5, 0.1, 4, material, 1);
    let mut statics = body.clone();
    let loads = Loads {
        gravity: DVec3::new(0.0, -9.81, 0.0),
        extra: &[],
        fixed: &held,
        contacts: &[],
    };
    assert!(solve_static(&mut statics, loads, settings()).converged);
    let environment = Environment {
        colliders: vec![],
        damping: 20.0,
        ..Environment::default()
    };
    let mut sim = Simulation::new(body, environment);
    sim.fixed = held.clone();
    sim.set_corotated_implicit(Some(CorotatedImplicit {
        tolerance: 1e-8,
        ..CorotatedImplicit::default()
    }));
    for _ in 0..300 {
        sim.step(1.0 / 60.0)
            .expect("the implicit step does not blow up");
    }
    let tip = |u: &[DVec3]| -> f64 {
        let ends: Vec<f64> = sim
            .body
            .reference
            .iter()
            .zip(u)
            .filter(|(x, _)| x.x > 0.5 - 1e-9)
            .map(|(_, u)| -u.y)
            .collect();
        ends.iter().sum::<f64>() / ends.len() as f64
    };
    let (dynamic, fixed_point) = (tip(&sim.body.displacement), tip(&statics.displacement));
    println!("implicit Euler after 5 s: {dynamic:.5e} m, static {fixed_point:.5e} m");
    assert!(
        (dynamic / fixed_point - 1.0).abs() < 0.01,
        "{dynamic} vs {fixed_point}"
    );
    let momentum: f64 = sim
        .body
        .velocity
        .iter()
        .map(|v| v.length())
        .fold(0.0, f64::max);
    assert!(
        momentum < 1e-3 * fixed_point * 60.0,
        "still moving: {momentum}"
    );
}
