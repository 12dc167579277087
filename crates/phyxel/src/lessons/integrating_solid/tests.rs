use super::*;

#[test]
fn the_parameter_table_takes_its_ends_and_defaults_and_refuses_beyond() {
    crate::params::check_table(PARAMETERS).unwrap();
}

#[test]
#[ignore]
fn survey() {
    let beam = Cantilever::default();
    println!(
        "EB {:e} Timoshenko {:e}",
        beam.euler_bernoulli_tip(),
        beam.timoshenko_tip()
    );
    for across in [4, 6, 8] {
        let beam = beam.with_across(across).unwrap();
        for integration in [Integration::Quadrature] {
            let s = beam.solve(integration).unwrap();
            println!(
                "{across} {:?}: tip {:.5e} ({:+.2} % of Timoshenko) ΣV/V {:.4} cg {}",
                integration,
                s.tip_deflection,
                (s.tip_deflection / beam.timoshenko_tip() - 1.0) * 100.0,
                s.total_volume / beam.volume(),
                s.report.cg_iterations
            );
        }
    }
}
