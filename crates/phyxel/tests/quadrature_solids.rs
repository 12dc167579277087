//! Solids integrated by background quadrature (Brunet et al. 2019 §3.3–3.6) against continuum
//! theory: a bar's Young's modulus and Poisson's ratio under uniaxial tension, its free axial
//! vibration period, and cantilever deflections under refinement against an independent reference.
//! A clamped end is its face held by a penalty at surface quadrature points (MLS shape functions do
//! not interpolate, so holding the face's particles would not hold the face).

use glam::{DMat3, DVec3};
use phyxel::integrators::Method;
use phyxel::meshless::body::{Body, SupportRadius};
use phyxel::meshless::implicit::{solve_static, Loads, StaticSolve};
use phyxel::meshless::material::Material;
use phyxel::meshless::quadrature::points::box_face_points;
use phyxel::meshless::quadrature::{Quadrature, QuadratureSettings};
use phyxel::meshless::sampling::{sample, Lattice, Shape};
use phyxel::meshless::simulation::{Environment, Simulation};

/// The penalty factor β of the held face (α = β E / a).
const HOLD: f64 = 100.0;

/// A bar [0, L] × [0, H] × [0, W] with `across` particles across its height (on the faces, spacing
/// a = H/(across − 1)), integrated by background quadrature; `clamped`: its face x = 0 held by a
/// penalty at 2 × 2 Gauss points per a × a cell (seed 003 eq. 5's ũ = 0 on Γ_D). Returns the body
/// and a.
fn bar(
    length: f64,
    height: f64,
    width: f64,
    across: usize,
    material: Material,
    clamped: bool,
) -> (Body, f64) {
    let a = height / (across - 1) as f64;
    let max = DVec3::new(length, height, width);
    let shape = Shape::Box {
        min: DVec3::ZERO,
        max,
    };
    let mut body = Body::new(
        sample(&shape, a, Lattice::Cubic),
        a.powi(3),
        a,
        material,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    );
    body.set_quadrature(&shape, a, QuadratureSettings::default())
        .expect("the bar has a quadrature");
    if clamped {
        body.hold_surface(&box_face_points(DVec3::ZERO, max, 0, false, a), HOLD, a)
            .unwrap();
    }
    (body, a)
}

/// A uniform traction `traction` (Pa) on the end face x = L, as particle forces
/// f_i = Σ_s A_s φ_i(x_s) t (seed 003 eq. 17).
fn end_traction(q: &Quadrature, max: DVec3, a: f64, traction: DVec3) -> Vec<(usize, DVec3)> {
    let mut forces = vec![DVec3::ZERO; q.particle_count()];
    for (at, area) in box_face_points(DVec3::ZERO, max, 0, true, a) {
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
        let (mut body, a) = bar(length, height, height, across, material, true);
        let q = body.quadrature().unwrap().clone();
        let max = DVec3::new(length, height, height);
        let extra = end_traction(&q, max, a, DVec3::new(sigma, 0.0, 0.0));
        let loads = Loads {
            gravity: DVec3::ZERO,
            extra: &extra,
            fixed: &[],
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
                strain += (0.5 * (f + f.transpose()) - DMat3::IDENTITY) * v;
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
    // The simulation's own explicit step (symplectic Euler, no gravity, no damping) at Δt = T/4000
    // adds a period error of (ωΔt)²/24 ≈ 1e-7.
    let (height, length) = (0.1, 0.8);
    let material = Material {
        young: 1e6,
        poisson: 0.0,
        density: 1000.0,
        volume_stiffness: 0.0,
    };
    let period = 2.0 * length / (material.young / material.density).sqrt();
    for across in [4, 6] {
        let (mut body, _) = bar(length, height, height, across, material, false);
        let amplitude = 1e-4 * length;
        body.displacement = body
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
        let mut sim = Simulation::new(
            body,
            Environment {
                gravity: DVec3::ZERO,
                colliders: vec![],
                damping: 0.0,
                ..Environment::default()
            },
        );
        assert_eq!(sim.integrator(), Method::SymplecticEuler);
        let dt = period / 4000.0;
        let mut crossings = Vec::new();
        let mut previous = stretch(&sim.body.displacement);
        let mut t = 0.0;
        while crossings.len() < 3 && t < 3.0 * period {
            sim.step(dt).expect("a stable explicit step");
            t += dt;
            let now = stretch(&sim.body.displacement);
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
    let (body, _) = bar(0.5, 0.1, 0.1, 4, material, true);
    let mut statics = body.clone();
    let loads = Loads {
        gravity: DVec3::new(0.0, -9.81, 0.0),
        extra: &[],
        fixed: &[],
        contacts: &[],
    };
    assert!(solve_static(&mut statics, loads, settings()).converged);
    let environment = Environment {
        colliders: vec![],
        damping: 20.0,
        ..Environment::default()
    };
    let mut sim = Simulation::new(body, environment);
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

mod support;

/// The tip load over E H²: 0.2 N, a deflection of 0.4 % of the length, where the linear FEM
/// reference applies (the seed's 1e-3 bends the beam by 40 % of its length).
const TIP_LOAD_FACTOR: f64 = 1e-5;

/// The tip deflection (centre of the end face, positive down) of the Brunet et al. 2019 beam
/// (20 × 20 × 200 mm, E = 50 N/mm², ν = 0.45, ρ = 1000 kg/m³) clamped at x = 0, with `across`
/// particles across, under a tip load (`tip`) or its own weight.
fn brunet_tip(across: usize, tip: bool) -> (f64, usize) {
    let material = Material {
        young: 5e7,
        poisson: 0.45,
        density: 1000.0,
        volume_stiffness: 0.0,
    };
    let max = DVec3::new(0.2, 0.02, 0.02);
    let (mut body, a) = bar(max.x, max.y, max.z, across, material, true);
    let q = body.quadrature().unwrap().clone();
    let load = TIP_LOAD_FACTOR * material.young * max.y * max.z;
    let extra = if tip {
        end_traction(&q, max, a, DVec3::new(0.0, -load / (max.y * max.z), 0.0))
    } else {
        Vec::new()
    };
    let gravity = if tip {
        DVec3::ZERO
    } else {
        DVec3::new(0.0, -9.81, 0.0)
    };
    let loads = Loads {
        gravity,
        extra: &extra,
        fixed: &[],
        contacts: &[],
    };
    let report = solve_static(&mut body, loads, settings());
    assert!(report.converged, "{across} across: {report:?}");
    let centre = DVec3::new(max.x, 0.5 * max.y, 0.5 * max.z);
    (
        -q.displacement_at(centre, &body.displacement).y,
        report.cg_iterations,
    )
}

#[test]
fn a_cantilever_converges_to_the_finite_element_reference_under_refinement() {
    // Seed 003's beam, under a tip load and under its own weight: the error against a converged
    // 27-node hexahedral FEM solution (tests/support/hex27.rs: graded meshes, Richardson
    // extrapolation, ≤ 0.03 % discretization error) falls with every refinement 3 → 4 → 6 → 8
    // across, and is at most 3 % at 6 and 1.5 % at 8 across.
    use support::hex27;
    let fem_beam = hex27::Beam {
        length: 0.2,
        height: 0.02,
        width: 0.02,
        young: 5e7,
        poisson: 0.45,
    };
    let cases = [
        (
            true,
            hex27::Load::TipShear {
                force: TIP_LOAD_FACTOR * 5e7 * 0.02 * 0.02,
            },
        ),
        (
            false,
            hex27::Load::OwnWeight {
                weight_density: 1000.0 * 9.81,
            },
        ),
    ];
    for (tip, load) in cases {
        let (reference, fem_error) = hex27::converged_cantilever(&fem_beam, load);
        assert!(
            fem_error < 1e-3,
            "the FEM reference is converged: {fem_error}"
        );
        let mut errors = Vec::new();
        for across in [3, 4, 6, 8] {
            let (deflection, cg) = brunet_tip(across, tip);
            let error = deflection / reference - 1.0;
            println!(
                "{load:?}, {across} across: tip {deflection:.5e} m, FEM {reference:.5e} m ({:+.2} %), Timoshenko {:.5e} m, {cg} CG iterations",
                100.0 * error,
                fem_beam.timoshenko(load)
            );
            errors.push(error.abs());
        }
        for pair in errors.windows(2) {
            assert!(
                pair[1] < pair[0],
                "{load:?}: the error must fall with refinement: {errors:?}"
            );
        }
        assert!(
            errors[2] <= 0.03 && errors[3] <= 0.015,
            "{load:?}: {errors:?}"
        );
    }
}
