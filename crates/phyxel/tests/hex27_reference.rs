//! The finite-element reference of `support/hex27.rs` (triquadratic 27-node hexahedra, consistent
//! loads, Jacobi-preconditioned conjugate gradients) checked against theory, never against its own
//! earlier output: the patch test (Zienkiewicz, Taylor & Zhu, "The Finite Element Method: Its Basis
//! and Fundamentals", 7th ed., the chapter on the patch test) on distorted elements, uniaxial tension
//! (Hooke's law: ε_x = σ/E, ε_y = ε_z = −ν σ/E), the symmetry argument behind the quarter model, and
//! Timoshenko beam theory for a slender cantilever (δ = PL³/(3EI) + PL/(κGA), κ = 10(1+ν)/(12+11ν):
//! Timoshenko & Gere, "Mechanics of Materials"; Cowper, J. Appl. Mech. 33, 1966). Then it gives the
//! converged deflections of the reference beam of Brunet et al. 2019 (20 × 20 × 200 mm, E = 50
//! N/mm², ν = 0.45) under a tip load and under its own weight, Richardson-extrapolated from three
//! graded meshes (Roache, "Verification and Validation in Computational Science and Engineering",
//! 1998), with the mesh-to-mesh differences required to shrink and the estimated discretisation
//! error to stay below 0.1 %.

mod support;

use std::time::Instant;
use support::hex27::*;

/// The reference beam of Brunet et al. 2019: 20 × 20 × 200 mm, E = 50 N/mm² = 5·10⁷ Pa, ν = 0.45.
const BRUNET: Beam = Beam {
    length: 0.2,
    height: 0.02,
    width: 0.02,
    young: 5e7,
    poisson: 0.45,
};

/// The largest |a_i − b_i| over the indices where `keep` holds.
fn max_difference(a: &[f64], b: &[f64], keep: impl Fn(usize) -> bool) -> f64 {
    (0..a.len())
        .filter(|&i| keep(i))
        .map(|i| (a[i] - b[i]).abs())
        .fold(0.0, f64::max)
}

/// Whether grid node `node` of `mesh` lies on the box's boundary.
fn on_boundary(mesh: &BoxMesh, node: usize) -> bool {
    let [nx, ny, nz] = mesh.node_dims();
    let (i, j, k) = (node / (ny * nz), (node / nz) % ny, node % nz);
    i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1
}

#[test]
fn an_affine_displacement_prescribed_on_the_boundary_of_a_distorted_patch_is_reproduced_inside() {
    let regular = BoxMesh::new([1.0, 0.8, 0.6], [2, 2, 2]);
    let mesh = regular.clone().distorted(0.2, 2019);
    let moved = regular
        .nodes
        .iter()
        .zip(&mesh.nodes)
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(
        moved, 27,
        "every interior node (3×3×3 of them) is moved off the grid"
    );

    // u = c + G x with a general (non-symmetric) G: strain, stress and a rotation.
    let c = [1e-3, -2e-3, 0.5e-3];
    let g = [
        [1.0e-3, 2.0e-3, -1.5e-3],
        [0.7e-3, -0.4e-3, 1.1e-3],
        [-0.9e-3, 0.3e-3, 0.6e-3],
    ];
    let exact: Vec<f64> = mesh
        .nodes
        .iter()
        .flat_map(|x| {
            std::array::from_fn::<f64, 3, _>(|i| c[i] + (0..3).map(|j| g[i][j] * x[j]).sum::<f64>())
        })
        .collect();
    let interior = |dof: usize| !on_boundary(&mesh, dof / 3);
    let stiffness = Stiffness::new(&mesh, 2e11, 0.3);

    // The affine field is in equilibrium at every interior node: its nodal forces there vanish
    // (to rounding, against the boundary reactions of its constant stress).
    let mut forces = vec![0.0; mesh.dofs()];
    stiffness.apply(&exact, &mut forces);
    let reaction = forces.iter().fold(0.0, |m: f64, f| m.max(f.abs()));
    let interior_force = (0..forces.len())
        .filter(|&i| interior(i))
        .fold(0.0, |m: f64, i| m.max(forces[i].abs()));
    println!("interior nodal force of the affine field: {interior_force:.2e} (reactions up to {reaction:.2e})");
    assert!(interior_force <= 1e-11 * reaction);

    // Prescribed on the boundary, it is what the solve finds inside.
    let fixed: Vec<Option<f64>> = (0..mesh.dofs())
        .map(|i| (!interior(i)).then_some(exact[i]))
        .collect();
    let (u, iterations) = stiffness.solve(&vec![0.0; mesh.dofs()], &fixed, 1e-14);
    let scale = exact.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
    let error = max_difference(&u, &exact, interior) / scale;
    println!("patch test: largest interior error {error:.2e} of the largest displacement, {iterations} CG iterations");
    assert!(error <= 1e-9);
}

#[test]
fn a_bar_pulled_by_a_uniform_end_traction_gives_back_young_s_modulus_and_poisson_s_ratio() {
    let (length, height, width) = (1.0, 0.2, 0.1);
    let (young, poisson, stress) = (7e10, 0.33, 1e6);
    let mesh = BoxMesh::new([length, height, width], [4, 2, 2]).distorted(0.15, 7);
    let [nx, ny, nz] = mesh.node_dims();
    let (mid_y, mid_z) = (ny / 2, nz / 2);

    // x = 0 held in x only; its centre node held in y and z, and the node at (0, H, W/2) in z, which
    // stops the rigid motions without resisting the lateral contraction.
    let mut fixed = vec![None; mesh.dofs()];
    for j in 0..ny {
        for k in 0..nz {
            fixed[3 * mesh.node(0, j, k)] = Some(0.0);
        }
    }
    let centre = mesh.node(0, mid_y, mid_z);
    fixed[3 * centre + 1] = Some(0.0);
    fixed[3 * centre + 2] = Some(0.0);
    fixed[3 * mesh.node(0, ny - 1, mid_z) + 2] = Some(0.0);

    let f = end_face_traction(&mesh, [stress, 0.0, 0.0]);
    let total: f64 = f.iter().step_by(3).sum();
    assert!(
        (total / (stress * height * width) - 1.0).abs() < 1e-12,
        "the end load sums to σ·H·W"
    );

    let (u, iterations) = Stiffness::new(&mesh, young, poisson).solve(&f, &fixed, CG_TOLERANCE);
    let end = |j: usize, k: usize| &u[3 * mesh.node(nx - 1, j, k)..3 * mesh.node(nx - 1, j, k) + 3];
    let strain = end_face_mean(&mesh, &u, 0) / length;
    for j in 0..ny {
        for k in 0..nz {
            assert!(
                (end(j, k)[0] / length / strain - 1.0).abs() < 1e-8,
                "the end face stays plane"
            );
        }
    }
    let young_back = stress / strain;
    let poisson_y = -(end(ny - 1, mid_z)[1] - end(0, mid_z)[1]) / height / strain;
    let poisson_z = -(end(mid_y, nz - 1)[2] - end(mid_y, 0)[2]) / width / strain;
    println!(
        "tension: E = {young_back:.9e} (given {young:e}), ν = {poisson_y:.9} across y and {poisson_z:.9} \
         across z (given {poisson}), {iterations} CG iterations"
    );
    assert!((young_back / young - 1.0).abs() < 1e-6);
    assert!((poisson_y - poisson).abs() < 1e-6);
    assert!((poisson_z - poisson).abs() < 1e-6);
}

#[test]
fn a_quarter_of_the_cantilever_under_symmetry_conditions_deflects_as_the_whole_beam() {
    // Width ≠ height, so that nothing rests on a square section.
    let beam = Beam {
        length: 0.1,
        height: 0.02,
        width: 0.03,
        ..BRUNET
    };
    let grading = Grading {
        root: 2.0,
        section: 2.0,
    };
    for load in [
        Load::TipShear { force: 1.0 },
        Load::OwnWeight {
            weight_density: 9810.0,
        },
    ] {
        let solve = |quarter| {
            let discretisation = Discretisation {
                elements: [10, 4, 4],
                grading,
                quarter,
            };
            solve_cantilever(&beam, &discretisation, load).deflection()
        };
        let (whole, quarter) = (solve(false), solve(true));
        println!("{load:?}: whole {whole:?}, quarter {quarter:?}");
        assert!((quarter.centre / whole.centre - 1.0).abs() < 1e-7);
        assert!((quarter.mean / whole.mean - 1.0).abs() < 1e-7);
    }
}

#[test]
fn a_slender_cantilever_under_tip_shear_bends_as_timoshenko_beam_theory_says() {
    // L/H = 40, square section, ν = 0.3.
    let beam = Beam {
        length: 0.4,
        height: 0.01,
        width: 0.01,
        young: 2e11,
        poisson: 0.3,
    };
    let load = Load::TipShear { force: 10.0 };
    let timoshenko = beam.timoshenko(load);
    let start = Instant::now();
    let plan = Plan {
        levels: vec![2, 4],
        along: 0.5,
        grading: Grading::UNIFORM,
        quarter: true,
    };
    let study = convergence_study(&beam, load, &plan);
    println!(
        "slender cantilever, Timoshenko δ = {timoshenko:.9e} m ({:.2} s)",
        start.elapsed().as_secs_f64()
    );
    let mut previous = [f64::INFINITY; 2];
    for (elements, deflection) in &study.meshes {
        let errors = [deflection.centre, deflection.mean].map(|d| (d / timoshenko - 1.0).abs());
        println!(
            "  {elements:?} elements: centre {:.9e} m, mean {:.9e} m, off Timoshenko by {:.3} % and {:.3} %, \
             {} CG iterations",
            deflection.centre,
            deflection.mean,
            100.0 * errors[0],
            100.0 * errors[1],
            deflection.cg_iterations
        );
        assert!(
            errors[0] < previous[0] && errors[1] < previous[1],
            "refining brings it closer"
        );
        previous = errors;
    }
    assert!(previous[0] < 0.005 && previous[1] < 0.005, "within 0.5 %");
}

/// The Brunet beam's convergence study under `load`, printed and checked.
/// The converged centre deflection.
fn brunet_converges(load: Load) -> f64 {
    converges("Brunet et al. 2019 beam", &BRUNET, load)
}

/// `beam`'s convergence study under `load`, printed and checked. The converged centre deflection.
fn converges(name: &str, beam: &Beam, load: Load) -> f64 {
    let start = Instant::now();
    let study = convergence_study(beam, load, &Plan::reference());
    let seconds = start.elapsed().as_secs_f64();
    let timoshenko = beam.timoshenko(load);
    println!("{name}, {load:?} ({seconds:.2} s for the three meshes):");
    for (elements, deflection) in &study.meshes {
        println!(
            "  {elements:?} elements (quarter solved): centre {:.9e} m, mean {:.9e} m, {} CG iterations",
            deflection.centre, deflection.mean, deflection.cg_iterations
        );
    }
    let values = |pick: fn(&Deflection) -> f64| -> Vec<f64> {
        study.meshes.iter().map(|(_, d)| pick(d)).collect()
    };
    for (name, values, (converged, order), error) in [
        (
            "centre",
            values(|d| d.centre),
            study.centre,
            study.centre_error(),
        ),
        ("mean", values(|d| d.mean), study.mean, study.mean_error()),
    ] {
        let differences: Vec<f64> = values
            .windows(2)
            .map(|w| (w[1] - w[0]) / converged)
            .collect();
        println!(
            "  {name}: converged {converged:.9e} m (observed order {order:.2}), finest mesh off by {:.4} %, \
             mesh-to-mesh differences {:?} %; Timoshenko {timoshenko:.9e} m, ratio {:.5}",
            100.0 * error,
            differences.iter().map(|d| format!("{:.4}", 100.0 * d)).collect::<Vec<_>>(),
            converged / timoshenko
        );
        assert!(
            differences.windows(2).all(|w| w[1].abs() < w[0].abs()),
            "{name}: differences shrink"
        );
        assert!(
            error < 1e-3,
            "{name}: estimated discretisation error below 0.1 %"
        );
        // A sanity bound only: the clamp (no Poisson contraction, no warping at x = 0) and the
        // stubby L/H = 10 put the 3D beam within a few per cent of beam theory.
        assert!(
            (converged / timoshenko - 1.0).abs() < 0.03,
            "{name}: near beam theory"
        );
    }
    study.centre.0
}

#[test]
fn the_brunet_reference_beam_converges_under_a_tip_load() {
    // P = 10⁻³·E·H² = 20 N.
    brunet_converges(Load::TipShear {
        force: 1e-3 * BRUNET.young * BRUNET.height * BRUNET.height,
    });
}

#[test]
fn the_brunet_reference_beam_converges_under_its_own_weight() {
    // ρ = 1000 kg/m³, g = 9.81 m/s².
    let load = Load::OwnWeight {
        weight_density: 1000.0 * 9.81,
    };
    let ratio = brunet_converges(load) / BRUNET.timoshenko(load);
    // The integrating-solid lesson compares its beam (same shape and ν) with this ratio.
    let lesson = phyxel::lessons::integrating_solid::FEM_OVER_TIMOSHENKO_L10_NU045;
    assert!(
        (ratio / lesson - 1.0).abs() < 1e-4,
        "FEM / Timoshenko = {ratio}, the lesson says {lesson}"
    );
}

#[test]
fn the_explicit_implicit_lesson_s_beam_converges_under_its_own_weight() {
    // Its beam: L/H = 5, ν = 0.3 (E and ρ scale out of the ratio).
    let beam = Beam {
        length: 0.5,
        height: 0.1,
        width: 0.1,
        young: 1e6,
        poisson: 0.3,
    };
    let load = Load::OwnWeight {
        weight_density: 1000.0 * 9.81,
    };
    let ratio =
        converges("The explicit-implicit lesson's beam", &beam, load) / beam.timoshenko(load);
    let lesson = phyxel::lessons::integrating_solid::FEM_OVER_TIMOSHENKO_L5_NU03;
    assert!(
        (ratio / lesson - 1.0).abs() < 1e-4,
        "FEM / Timoshenko = {ratio}, the lesson says {lesson}"
    );
}
