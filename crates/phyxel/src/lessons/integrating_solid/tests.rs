use super::*;

#[test]
fn the_parameter_table_takes_its_ends_and_defaults_and_refuses_beyond() {
    crate::params::check_table(PARAMETERS).unwrap();
}

#[test]
fn at_the_defaults_only_the_quadrature_counts_the_volume_and_deflects_near_the_3d_solution() {
    // Σ V_i: exact for cell volumes and the quadrature; the kernel densities over-count the surface.
    // The tip: nodal m/ρ far too stiff, nodal cell volumes too soft, the quadrature within 3.5 % of
    // the 3-D FEM solution at 4 across (its convergence to it: tests/quadrature_solids.rs).
    let beam = Cantilever::default();
    let (fem, name) = beam.reference_tip();
    assert_eq!(name, "fem");
    let volume = beam.volume();
    let kernel = beam.solve(Integration::NodalKernelDensity).unwrap();
    let cell = beam.solve(Integration::NodalCellVolume).unwrap();
    let quadrature = beam.solve(Integration::Quadrature).unwrap();
    let points = quadrature.body.quadrature().unwrap().points.total_volume();
    assert!((points / volume - 1.0).abs() < 1e-12, "Σ v_I = {points}");
    assert!((quadrature.total_volume / volume - 1.0).abs() < 1e-9);
    assert!((cell.total_volume / volume - 1.0).abs() < 1e-12);
    assert!(
        kernel.total_volume > 1.5 * volume,
        "ΣV = {}",
        kernel.total_volume
    );
    let error = |s: &Solution| s.tip_deflection / fem - 1.0;
    println!(
        "tip errors against the FEM: nodal m/ρ {:+.3}, cell {:+.3}, quadrature {:+.3}",
        error(&kernel),
        error(&cell),
        error(&quadrature)
    );
    assert!(error(&kernel) < -0.3);
    assert!(error(&cell) > 0.05);
    assert!(error(&quadrature).abs() < 0.035);
    // The quadrature's volume shares are 1 for every phyxel to within the shape functions'
    // smoothing: ½ … 2 at most, where the kernel densities reach past 2 at the corners.
    let shares = beam.volume_shares(&quadrature);
    assert!(shares.iter().all(|s| (0.5..2.0).contains(s)), "{shares:?}");
    let kernel_shares = beam.volume_shares(&kernel);
    assert!(kernel_shares.iter().cloned().fold(0.0, f64::max) > 2.0);
}

#[test]
fn the_quadrature_converges_under_refinement_and_the_kernel_density_volumes_do_not() {
    let beam = Cantilever::default();
    let errors = |integration| -> Vec<f64> {
        [3, 4, 6]
            .map(|across| {
                beam.convergence_point(integration, across)
                    .unwrap()
                    .relative_error
                    .abs()
            })
            .to_vec()
    };
    let quadrature = errors(Integration::Quadrature);
    let kernel = errors(Integration::NodalKernelDensity);
    println!("|error| at 3, 4, 6 across: quadrature {quadrature:?}, nodal m/ρ {kernel:?}");
    assert!(quadrature.windows(2).all(|w| w[1] < w[0]));
    assert!(quadrature[2] < 0.015);
    assert!(kernel.iter().all(|e| *e > 0.3));
}

#[test]
fn bad_parameters_are_refused_with_their_names() {
    let e = Cantilever::new(0.1, 10.0, 99, 1e8, 0.3, 1000.0).unwrap_err();
    assert_eq!(e.param, "across");
    let e = Cantilever::new(0.1, 10.0, 4, f64::NAN, 0.3, 1000.0).unwrap_err();
    assert_eq!(e.param, "young");
    assert!(Cantilever::default().with_across(2).is_err());
}

#[test]
#[ignore]
fn explore_two_materials() {
    use two_materials::TwoMaterialCylinder;
    for (across, ratio, sl) in [(5, 1.0, 10.0), (5, 100.0, 10.0), (4, 10.0, 4.0), (4, 10.0, 16.0), (7,10.0,16.0)] {
        let c = TwoMaterialCylinder::new(0.1, sl, across, 1e8, 0.45, 1000.0, ratio).unwrap();
        let t = std::time::Instant::now();
        let s = c.solve().unwrap();
        println!("{across} {ratio} {sl}: n={} ratio {:.3} theory {:.3} soft/T {:.3} {:?}", s.body.len(), s.ratio(), c.theory_ratio(), s.soft_end / c.timoshenko_end(&c.soft), t.elapsed());
    }
}
