//! The fluid solvers' claims, against theory (hydrostatics, conservation, the wall standing in for
//! fluid) and experiment (Martin & Moyce 1952's dam break). Times measured on the 2-core build
//! machine in the test profile (phyxel at opt-level 3), 2026-11-24, are in each test's comment (run
//! alone, before DFSPH cached its kernel gradients, which made its runs about 4× faster; the whole
//! file with the lesson's tests took 26–61 s as other work shared the machine).

use super::experiment::{LOBOVSKY_FRONT_H300, LOBOVSKY_FRONT_H600, MARTIN_MOYCE_FRONT};
use super::grid::{closer_than, CellGrid, NeighbourLists};
use super::kernel::Vector;
use super::*;

const G: f64 = 9.81;

/// The column's (and its box's) width, m.
const WIDTH: f64 = 0.1;

/// A column 0.1 m wide and 0.2 m high filling its box's width, `per_width` particles across.
fn column(per_width: usize) -> Column {
    let mut c = Column::martin_moyce(WIDTH, 2.0, 1.0, per_width);
    c.box_height = 0.25;
    c
}

fn simulation(c: &Column, solver: Solver) -> FluidSimulation {
    let fluid = c.build().expect("the test's column is valid");
    let wcsph = wcsph::Wcsph::for_height(c.gravity, c.column_height);
    FluidSimulation::new(fluid, solver, wcsph, 0.002).expect("valid time step")
}

/// The column after `seconds` of settling from the lattice.
fn settled(solver: Solver, per_width: usize, seconds: f64) -> FluidSimulation {
    let mut sim = simulation(&column(per_width), solver);
    sim.advance(seconds)
        .expect("the column settles without a blow-up");
    sim
}

/// The fluid's height if it had exactly its rest density: H = N m / (ρ₀ W), here the lattice's
/// rows × Δx (the mass is defined so that the lattice is at ρ₀).
fn rest_height(f: &Fluid, per_width: usize) -> f64 {
    (f.len() / per_width) as f64 * f.spacing()
}

/// p(0) of the least-squares line p = p(0) + β y through the points (y_k, p_k): the pressure at the
/// bottom without the particle-to-particle noise of the rows next to the wall.
fn pressure_line(points: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut n, mut sy, mut sp, mut syy, mut syp) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (y, p) in points {
        n += 1.0;
        sy += y;
        sp += p;
        syy += y * y;
        syp += y * p;
    }
    let beta = (n * syp - sy * sp) / (n * syy - sy * sy);
    (sp - beta * sy) / n
}

/// WCSPH (c = 10 √(2gH)): p(0)/(ρ₀ g H) averaged over 1 s after 1 s of settling, as DFSPH's and
/// PBF's ([`bottom_pressure_converges_to_rho_g_h`]). Measured: 1.098 at 10 across, 1.050 at 20,
/// extrapolated 1.003; 1.012 at 20 across away from the side walls. (Until 2026-11-29 this test took
/// the pressure line of the one state at 1 s and read 1.0025 at 20 across, but the settling column
/// still rings: once `FluidSimulation::advance` stopped ending on a sliver of a step, the state at
/// 1 s was a few steps' phase away and read 1.0997. The average over 1 s scatters by 0.2 % under
/// such changes.) About 8 s.
#[test]
fn hydrostatic_pressure_at_the_bottom_is_rho_g_h() {
    bottom_pressure_converges_to_rho_g_h(Solver::Wcsph);
}

/// p(0)/(ρ₀ g H) of the least-squares line through the particles' pressures averaged over `average`
/// seconds of steps after `settle` seconds of settling (positions averaged alike), fitted only where
/// every particle's kernel support lies inside the fluid (more than h above the floor and below the
/// rest height H): the row on the floor carries the wall's boundary-layer artefact (+60 % at every
/// resolution, every solver) and the top rows the free surface's clamped pressure. H is the rest
/// height N m/(ρ₀ W) = 0.2 m: the bottom carries the weight per width whatever the compression.
///
/// Averaged, because the incompressible solvers' pressure is an impulse per step: DFSPH's p_i = ρ_i
/// Σκ_i and PBF's p_i = −ρ₀ Σλ_i/Δt² are the pressures whose symmetric force (seed 002 eq. 51)
/// applied for Δt gives the step's correction, and a step may correct little (PBF stops as soon as
/// every C_i ≤ 1 %, and then its λ are 0) while the next corrects more. Over many steps the
/// corrections must carry the column's weight, so the averaged pressure is what hydrostatics predicts.
fn averaged_bottom_pressure(
    solver: Solver,
    per_width: usize,
    settle: f64,
    average: f64,
) -> BottomPressure {
    let mut sim = settled(solver, per_width, settle);
    let n = sim.fluid.len();
    let (mut p, mut x, mut steps) = (vec![0.0; n], vec![Vector::ZERO; n], 0);
    let end = sim.fluid.time + average;
    while sim.fluid.time < end {
        sim.step()
            .expect("the column stays at rest without a blow-up");
        for i in 0..n {
            p[i] += sim.fluid.pressure[i];
            x[i] += sim.fluid.x[i];
        }
        steps += 1;
    }
    let (p, x): (Vec<f64>, Vec<Vector>) = (0..n)
        .map(|i| (p[i] / steps as f64, x[i] / steps as f64))
        .unzip();
    let height = rest_height(&sim.fluid, per_width);
    let h = sim.fluid.kernel.h;
    let rho_g_h = sim.fluid.rest_density() * G * height;
    let fit = |beside_walls: bool| {
        let interior = (0..n)
            .filter(|&i| {
                let away = x[i].x > 2.0 * h && x[i].x < WIDTH - 2.0 * h;
                x[i].y > h && x[i].y < height - h && (beside_walls || away)
            })
            .map(|i| (x[i].y, p[i]));
        pressure_line(interior) / rho_g_h
    };
    BottomPressure {
        whole_width: fit(true),
        away_from_side_walls: fit(false),
    }
}

/// p(0)/(ρ₀gH) of a column's pressure line (every particle more than h from the floor and from the
/// rest height H), fitted through the whole width, and only through the particles more than 2h from
/// either side wall, where no wall particle is in any neighbour's support.
#[derive(Clone, Copy, Debug)]
struct BottomPressure {
    whole_width: f64,
    away_from_side_walls: f64,
}

/// The bottom pressure of a solver's column against ρ₀ g H (interior fit, averaged over 1 s after 1 s).
/// Measured p(0)/(ρ₀gH) at 10 and 20 across and 2 p₂₀ − p₁₀ (Richardson's extrapolation, were the
/// error first order): WCSPH 1.098, 1.050, 1.003; DFSPH 1.111, 1.058, 1.004; PBF 1.083, 1.042, 1.000.
/// Fitted away from the side walls at 20 across: WCSPH 1.012, DFSPH 1.020, PBF 1.003. Across the
/// whole width every solver is 4–6 % high at 20 across, most of it the side walls' layer; the error
/// is first order only up to 20 across (at 40 and 80 it falls about 1.5× per halving, and the bulk
/// away from the side walls stays 1–2 % high: [`bottom_pressure_at_finer_resolutions`]), so the
/// extrapolation is a check of the trend, not the limit. Asserted: the error falls by at least 1.5×
/// from 10 to 20 across (measured 1.9–2.0×), the extrapolation is within 2 % of ρ₀ g H, at 20 across
/// the whole width's error is below 7 %, and away from the side walls it is below 2 % (the issue's
/// bound; 2.5 % for DFSPH, whose 1.0199 is too close to 2 % to assert it at 20 across). The 1 s
/// average is what makes this a measurement: with ∇W changed by ±10⁻⁷ or 10⁻¹³ the whole width's
/// values moved by at most 0.2 % at 20 across and 0.6 % at 10 (PBF), against 0.8 % and 3.7 % for a
/// 0.25 s average (docs/benchmarks.md, "The hydrostatic column's clock").
fn bottom_pressure_converges_to_rho_g_h(solver: Solver) {
    let coarse = averaged_bottom_pressure(solver, 10, 1.0, 1.0);
    let fine = averaged_bottom_pressure(solver, 20, 1.0, 1.0);
    let (p10, p20) = (coarse.whole_width, fine.whole_width);
    let extrapolated = 2.0 * p20 - p10;
    let bulk = fine.away_from_side_walls;
    println!(
        "{solver:?}: p(0)/(ρ₀gH) at 10, 20 across {p10:.4}, {p20:.4}; extrapolated {extrapolated:.4}; \
         at 20 across away from the side walls {bulk:.4} (at 10: {:.4})",
        coarse.away_from_side_walls
    );
    let (e10, e20) = ((p10 - 1.0).abs(), (p20 - 1.0).abs());
    assert!(
        e10 > 1.5 * e20,
        "{solver:?}: no first-order convergence: {e10} → {e20}"
    );
    assert!(
        (extrapolated - 1.0).abs() < 0.02,
        "{solver:?}: {extrapolated}"
    );
    assert!(e20 < 0.07, "{solver:?} at 20 across: {p20}");
    // DFSPH's bulk reads 1.0199 at 20 across, too close to the 2 % to assert it there; it
    // reads 1.017 at 40 (`bottom_pressure_at_finer_resolutions`).
    let bound = if solver == Solver::Dfsph { 0.025 } else { 0.02 };
    assert!(
        (bulk - 1.0).abs() < bound,
        "{solver:?} at 20 across, away from the side walls: {bulk}"
    );
}

/// Every solver's column at 10, 20 and 40 across, WCSPH's also at 80 (12 800 particles; about 4 min
/// in release, so ignored: `cargo test --release -p phyxel --lib finer -- --ignored --nocapture`):
/// p(0)/(ρ₀gH) fitted across the whole width and away from the side walls. Measured 2026-11-29
/// (whole width, away from the side walls; DFSPH with its warm start — before it 1.096, 1.020 at
/// 10; 1.056, 1.020 at 20; 1.035, 1.016 at 40):
///
/// | across | WCSPH | DFSPH | PBF |
/// | --- | --- | --- | --- |
/// | 10 | 1.098, 1.025 | 1.111, 1.038 | 1.083, 1.015 |
/// | 20 | 1.050, 1.012 | 1.058, 1.020 | 1.042, 1.003 |
/// | 40 | 1.034, 1.016 | 1.036, 1.017 | 1.015, 0.997 |
/// | 80 | 1.023, 1.013 | | |
///
/// The whole width's error falls 1.95×, 1.46×, 1.50× per halving of Δx with WCSPH (first order
/// only up to 20 across), and what is left beyond 20 is mostly the side walls' layer: Akinci's wall
/// takes p_i once, not twice as pressure mirroring would (Koschier et al. 2019 eq. 85), so the
/// particles beside a wall carry more pressure to be held (the row on the floor 1.6 ρ₀gH at every
/// resolution). (Mirroring, tried with WCSPH, took that excess away but threw a particle out of the
/// box at its present time step.) Asserted: the whole width's error falls at every halving, and away
/// from the side walls p(0) is within 2 % of ρ₀gH from 40 across on, every solver.
#[test]
#[ignore]
fn bottom_pressure_at_finer_resolutions() {
    for (solver, finest) in [(Solver::Wcsph, 80), (Solver::Dfsph, 40), (Solver::Pbf, 40)] {
        let mut last = f64::INFINITY;
        let mut across = 10;
        while across <= finest {
            let p = averaged_bottom_pressure(solver, across, 1.0, 1.0);
            let (whole, bulk) = (p.whole_width, p.away_from_side_walls);
            println!(
                "{solver:?} at {across} across: p(0)/(ρ₀gH) {whole:.4} whole width, {bulk:.4} away \
                 from the side walls"
            );
            assert!(
                (whole - 1.0).abs() < last,
                "{solver:?} at {across} across: {whole}, no closer than {last}"
            );
            last = (whole - 1.0).abs();
            if across >= 40 {
                assert!(
                    (bulk - 1.0).abs() < 0.02,
                    "{solver:?} at {across} across, away from the side walls: {bulk}"
                );
            }
            across *= 2;
        }
    }
}

/// DFSPH's pressure p_i = ρ_i Σκ_i over both solves (Bender & Koschier 2015: the pressure whose force
/// over Δt is the step's velocity correction). About 10 s.
#[test]
fn dfsph_bottom_pressure_converges_to_rho_g_h() {
    bottom_pressure_converges_to_rho_g_h(Solver::Dfsph);
}

/// PBF has no equation of state: its λ_i are position corrections, and −ρ₀ λ_i/Δt² is the pressure
/// whose symmetric force would move particle i as far in one step (Macklin & Müller's eq. 12 matched
/// with seed 002 eq. 51 at ρ ≈ ρ₀); a pressure only on average over steps. About 10 s.
#[test]
fn pbf_time_averaged_bottom_pressure_converges_to_rho_g_h() {
    bottom_pressure_converges_to_rho_g_h(Solver::Pbf);
}

/// `FluidSimulation::advance` lands on its end without a sliver of a step: DFSPH's constant-density
/// solve removes the density error left within one Δt, so a step of a fiftieth of the CFL step asks
/// fifty times the velocity of a whole one. A column at rest (20 across, settled 0.5 s) advanced by 3
/// CFL steps and a fiftieth stays at rest: before 2026-11-29, when the last step was shortened to
/// what was left, that sliver threw the column up (here the largest speed 0.12 → 1.34 m/s; in a
/// hydrostatic test's run that ended its settling on a 1/35 step, 0.06 → 0.6 m/s). About 2 s.
#[test]
fn advancing_by_a_sliver_more_than_whole_steps_keeps_a_dfsph_column_at_rest() {
    let mut sim = settled(Solver::Dfsph, 20, 0.5);
    let at_rest = sim.fluid.max_speed();
    let start = sim.fluid.time;
    let dt = sim.time_step();
    let steps = sim.advance(3.0 * dt + dt / 50.0).expect("no blow-up");
    assert!(
        (sim.fluid.time - (start + 3.02 * dt)).abs() < 1e-12,
        "lands on its end"
    );
    let after = sim.fluid.max_speed();
    println!("Δt = {dt:.3e} s, {steps} steps; largest speed {at_rest:.4} → {after:.4} m/s");
    assert!(
        after < 1.5 * at_rest + 0.01,
        "largest speed {at_rest} → {after} m/s"
    );
}

/// DFSPH's column at 40 across released from the lattice with the tests' Δt cap of 2 ms stays at rest
/// for 0.3 s: largest speed below 0.75 m/s, every ρ within 10 % of ρ₀, nothing out of the box. Without
/// the hydrostatic speed in its CFL step (`Dfsph::hydrostatic_speed`, Δt ≤ λ Δx/√(g H) = 0.72 ms here)
/// it erupted: the bottom row at +31 % by step 5, 1.8 m/s at t = 0.05 s, particles out of the box by
/// t = 0.1 s (SPlisHSPlasH's own DFSPH does the same: docs/benchmarks.md). With it, measured with the
/// bounded CG density solve: 0.51 m/s and ρ ≤ 1.057 ρ₀ (the first steps from the lattice). The bound
/// was 0.5 m/s while the solve was Jacobi's (0.37–0.43 m/s): its sweeps under-solve, and that damps the
/// settling from the lattice. Solved tighter the column moves faster, not slower (2026-12-03, mean
/// tolerance 2·10⁻⁶): Jacobi with 1 000 sweeps 0.59 m/s, a bounded CG 0.68 m/s. About 7 s.
#[test]
fn dfsph_column_at_40_across_stays_at_rest() {
    let c = column(40);
    let mut sim = simulation(&c, Solver::Dfsph);
    let (mut fastest, mut densest) = (0.0f64, 0.0f64);
    while sim.fluid.time < 0.3 - 1e-9 {
        sim.step().expect("no blow-up");
        fastest = fastest.max(sim.fluid.max_speed());
        densest = densest.max(sim.fluid.max_density_error());
        let out = sim
            .fluid
            .x
            .iter()
            .filter(|x| !(0.0..=c.box_width).contains(&x.x) || !(0.0..=c.box_height).contains(&x.y))
            .count();
        assert_eq!(out, 0, "t = {:.4}: {out} particles out", sim.fluid.time);
    }
    println!("40 across, 0.3 s: largest speed {fastest:.3} m/s, largest ρ/ρ₀ − 1 {densest:.4}");
    assert!(fastest < 0.75, "largest speed {fastest} m/s");
    assert!(densest < 0.1, "largest ρ/ρ₀ − 1 {densest}");
}

/// DFSPH's density solve both ways on the SPH lesson's dam break (its page's settings), 300 steps
/// from rest, at 35 and 71 across (2 500 and 10 082 particles): Jacobi's sweeps grow with the
/// resolution (the conditioning of A = Δt² D G), the bounded CG's products (the default,
/// [`crate::bounded_cg`]) much less, so at 71 across the CG at a mean tolerance of 0.01 % takes
/// under three quarters of the sweeps Jacobi takes at twice that tolerance; both fronts agree within
/// 2 %. Measured (2026-12-03): 35 across 14.9 products a step against 23.0 sweeps (fronts 1.928 and
/// 1.903 m), 71 across 14.7 against 28.4 (1.086 and 1.088 m). About 8 s.
#[test]
fn dfsph_bounded_cg_outgrows_jacobi_with_the_resolution() {
    use crate::lessons::sph_fluids::{dam_break, Settings};
    let run = |across: usize, conjugate_gradients: bool| {
        let mut sim = dam_break(Settings::page_defaults(across), Solver::Dfsph)
            .expect("the lesson's dam break");
        sim.dfsph.conjugate_gradients = conjugate_gradients;
        if !conjugate_gradients {
            sim.dfsph.density_tolerance = 0.0002;
        }
        let mut passes = 0u64;
        for _ in 0..300 {
            sim.step().expect("no blow-up");
            passes += u64::from(sim.dfsph.last_iterations.0);
        }
        let front = sim.fluid.x.iter().map(|x| x.x).fold(0.0, f64::max);
        (passes as f64 / 300.0, front)
    };
    let mut ratios = Vec::new();
    for across in [35, 71] {
        let (cg, jacobi) = (run(across, true), run(across, false));
        println!(
            "{across} across: bounded CG {:.1} products a step, Jacobi {:.1} sweeps; fronts {:.4} / {:.4} m",
            cg.0, jacobi.0, cg.1, jacobi.1
        );
        assert!(
            (cg.1 / jacobi.1 - 1.0).abs() < 0.02,
            "{cg:?} against {jacobi:?}"
        );
        ratios.push(cg.0 / jacobi.0);
    }
    assert!(ratios[1] < 0.75 && ratios[1] < ratios[0], "{ratios:?}");
}

/// PBF's iterations with Chebyshev's weights (the default, [`crate::fluids::pbf`]) and without
/// (ρ = 0) on the SPH lesson's dam break (its page's settings), 300 steps from rest, at 35 and 71
/// across: both end every step with every constraint below the tolerance (or at the cap), the
/// accelerated ones in well under three quarters of the iterations at 71 across, with the fronts
/// within 2 % and the water as compressed on average (within 0.05 % of ρ₀). Measured (2026-12-03):
/// 35 across 5.7 against 10.8 iterations a step, 71 across 9.8 against 17.7 (fronts within 0.5 %,
/// mean density errors 0.137 % / 0.144 % and 0.131 % / 0.138 %). About 10 s.
#[test]
fn pbf_chebyshev_weights_cut_the_iterations_not_the_physics() {
    use crate::lessons::sph_fluids::{dam_break, Settings};
    let run = |across: usize, spectral_radius: f64| {
        let mut sim = dam_break(Settings::page_defaults(across), Solver::Pbf)
            .expect("the lesson's dam break");
        sim.pbf.spectral_radius = spectral_radius;
        let (mut iterations, mut mean_error) = (0u64, 0.0);
        for step in 0..300 {
            let report = sim.step().expect("no blow-up");
            iterations += u64::from(report.iterations);
            if report.iterations < sim.pbf.max_iterations {
                assert!(
                    sim.pbf.last_max_constraint <= sim.pbf.tolerance,
                    "ρ = {spectral_radius}, step {step}: {}",
                    sim.pbf.last_max_constraint
                );
            }
            mean_error += sim.fluid.density_error() / 300.0;
        }
        let front = sim.fluid.x.iter().map(|x| x.x).fold(0.0, f64::max);
        (iterations as f64 / 300.0, front, mean_error)
    };
    let mut ratios = Vec::new();
    for across in [35, 71] {
        let (fast, plain) = (run(across, pbf::SPECTRAL_RADIUS), run(across, 0.0));
        println!(
            "{across} across: Chebyshev {:.2} iterations a step, plain {:.2}; fronts {:.4} / {:.4} m; \
             mean density error {:.5} / {:.5}",
            fast.0, plain.0, fast.1, plain.1, fast.2, plain.2
        );
        assert!(
            (fast.1 / plain.1 - 1.0).abs() < 0.02,
            "{fast:?} against {plain:?}"
        );
        assert!(
            (fast.2 - plain.2).abs() < 0.0005,
            "{fast:?} against {plain:?}"
        );
        ratios.push(fast.0 / plain.0);
    }
    assert!(ratios[1] < 0.7, "{ratios:?}");
}

/// The same settled columns: WCSPH (c = 10 √(2gH)) 0.23 % and 0.25 %; DFSPH (tolerances 0.02 % and
/// 0.1 %) 0.010 % and 0.020 % with its warm start (0.023 % and 0.037 % before it, 2026-11-29; 0.071 %
/// at 20 across before the hydrostatic speed entered its time step). About 9 s.
#[test]
fn a_column_at_rest_keeps_its_density() {
    for per_width in [10, 20] {
        let wcsph = settled(Solver::Wcsph, per_width, 1.0);
        let dfsph = settled(Solver::Dfsph, per_width, 1.0);
        let (ew, ed) = (wcsph.fluid.density_error(), dfsph.fluid.density_error());
        println!("{per_width} across: mean density error WCSPH {ew:.5}, DFSPH {ed:.5}");
        assert!(ew < 0.01, "WCSPH {per_width} across: {ew}");
        assert!(ed < 0.001, "DFSPH {per_width} across: {ed}");
    }
}

/// The wall particles stand in for the fluid that is missing beyond the wall (Akinci's volumes): in
/// the fresh lattice, a particle next to the floor or a side wall has ρ = 1.030 ρ₀ and one in a
/// corner 1.045 ρ₀ (at 10 and 20 across alike), every other particle of the lower half ρ₀ to 10⁻¹⁵;
/// without the walls the rows next to them would lack about a third of their density. The 3 %
/// excess is Akinci's formula on a wall three layers thick: its inner layer has no wall particles on
/// the fluid's side, so its V_b comes out larger than Δx².
#[test]
fn the_walls_stand_in_for_fluid_at_rest_density() {
    for per_width in [10, 20] {
        let sim = simulation(&column(per_width), Solver::Dfsph);
        let f = &sim.fluid;
        let worst = f
            .density
            .iter()
            .zip(&f.x)
            .filter(|(_, x)| x.y < 0.5 * 0.2) // the lower half: far from the free surface
            .map(|(rho, _)| (rho / f.rest_density() - 1.0).abs())
            .fold(0.0, f64::max);
        println!("{per_width} across: worst |ρ/ρ₀ − 1| in the lower half {worst:.4}");
        assert!(worst < 0.05, "{per_width} across: {worst}");
    }
}

/// The front's relative deviation Z_sim/Z_exp − 1 at each of `data`'s times T (t = T `time_scale`),
/// Z the front's distance from the back wall over the column's width `a`.
fn front_deviation(
    mut sim: FluidSimulation,
    a: f64,
    time_scale: f64,
    data: &[(f64, f64)],
) -> Vec<f64> {
    data.iter()
        .map(|&(t, z)| {
            sim.advance(t * time_scale - sim.fluid.time)
                .expect("no blow-up");
            let front = sim.fluid.x.iter().map(|x| x.x).fold(0.0, f64::max);
            front / a / z - 1.0
        })
        .collect()
}

/// The front's relative deviation at each of Martin & Moyce's times (T = t √(2g/a)).
fn dam_break_front(solver: Solver, per_width: usize) -> Vec<f64> {
    let a = 2.25 * 0.0254;
    let c = Column::martin_moyce(a, 2.0, 16.0, per_width);
    let time_scale = (a / (2.0 * c.gravity)).sqrt();
    front_deviation(simulation(&c, solver), a, time_scale, &MARTIN_MOYCE_FRONT)
}

/// Every solver at 10 and 20 particles across a (200 and 800 particles), over the experiment's whole
/// range T = 0.83 … 9.24 (Z up to 14). Measured (free-slip floor, ξ = 0.01): the front runs ahead of
/// the experiment early — +11 … +20 % for T < 2.6 (all solvers, both resolutions), the delay of the
/// experiment's released gate that every inviscid simulation shows — and later lies within 10 %
/// except at T = 4.03 (+7 … +15 %, a point 5 % off its neighbours' trend in the data); DFSPH at 20
/// across, +10.5 % at T = 9.24 before the hydrostatic speed entered its time step, was +9.1 %
/// (2026-11-24) and is +8.5 % with its warm start (2026-11-29; early on +19.6 % against +18.4 %).
/// The claim asserted is the one that holds: every point within 20 %, the mean |deviation| over the
/// range within 12 %, and from T = 4.4 on within 11 %.
/// NOT the "within 10 % over the whole range": that fails (see docs). An experiment whose
/// gate was lifted fast and timed from its first motion has the converged fluid 4–10 % *behind* it
/// early instead (`the_dam_break_front_follows_lobovskys_fast_gate`). About 5 s.
#[test]
fn the_dam_break_front_follows_martin_and_moyce() {
    for solver in Solver::ALL {
        for per_width in [10, 20] {
            let deviation = dam_break_front(solver, per_width);
            let mean = deviation.iter().map(|d| d.abs()).sum::<f64>() / deviation.len() as f64;
            let worst = deviation.iter().map(|d| d.abs()).fold(0.0, f64::max);
            let late = deviation[6..].iter().map(|d| d.abs()).fold(0.0, f64::max);
            println!(
                "{solver:?} {per_width} across: mean |dev| {mean:.3}, worst {worst:.3}, from T = 4.4 {late:.3}: {deviation:.3?}"
            );
            assert!(worst < 0.2, "{solver:?} {per_width}: {deviation:?}");
            assert!(mean < 0.12, "{solver:?} {per_width}: {deviation:?}");
            assert!(late < 0.11, "{solver:?} {per_width}: {deviation:?}");
        }
    }
}

/// The front's relative deviation Z_sim/Z_exp − 1 in Lobovský et al.'s tank (a column 0.6 m wide
/// and `height` high, the far wall 1.01 m from the gate, `per_width` particles across the width),
/// at each of `data`'s T = t √(g/H), Z the distance from the back wall over the column's width.
fn lobovsky_front(solver: Solver, height: f64, per_width: usize, data: &[(f64, f64)]) -> Vec<f64> {
    let width = 0.6;
    let mut c = Column::martin_moyce(width, height / width, (width + 1.01) / width, per_width);
    c.box_height = 2.0 * height;
    let time_scale = (height / c.gravity).sqrt();
    front_deviation(simulation(&c, solver), width, time_scale, data)
}

/// A second experiment, with a gate lifted fast and the time counted from its first motion
/// (Lobovský et al. 2014, the ETSIN tank: a column L = 0.6 m wide, H = 0.6 m and 0.3 m high), every
/// solver at 40 and 80 particles across L. Measured (2026-12-03), Z as Martin & Moyce's z/a:
///
/// - H = 0.6 m: the three solvers converge together (at 80 across within 1.3 % of each other, and
///   within 0.9 % of their own fronts at 60 across) onto a front 4–10 % *behind* the experiment
///   for T < 0.77 (worst −9.3 … −9.5 % at T = 0.34) and within 4.4 % from T = 0.89 to the far
///   wall; at 40 across worst −9.6 % (WCSPH), −7.2 % (DFSPH), −9.4 % (PBF). At 10 and 20 across
///   DFSPH and PBF are not converged (DFSPH +34 % at 10 across), hence 40 and 80.
/// - H = 0.3 m: within 6.0 % at every point (−6.0 … +5.7 %).
///
/// So early on the computed front is ahead of one experiment (Martin & Moyce's n² = 2 column,
/// +11 … +20 %) and behind the other (this n² = 1 column); later it meets both within 10 %.
/// Asserted: every point within 10 % (H = 0.6 m) and 7 % (H = 0.3 m), from T = 0.89 within 5 %,
/// and at 80 across the three solvers within 2 % of each other and behind the experiment for
/// T < 0.77. About 15 s.
#[test]
fn the_dam_break_front_follows_lobovskys_fast_gate() {
    // The lower column's X = x/H from the gate, as Z: (L + X H)/L.
    let low_data: Vec<(f64, f64)> = LOBOVSKY_FRONT_H300
        .iter()
        .map(|&(t, x)| (t, (0.6 + x * 0.3) / 0.6))
        .collect();
    let late = LOBOVSKY_FRONT_H600.iter().position(|p| p.0 > 0.88).unwrap();
    let early = LOBOVSKY_FRONT_H600.iter().filter(|p| p.0 < 0.77).count();
    let worst = |d: &[f64]| d.iter().map(|d| d.abs()).fold(0.0, f64::max);
    let mut converged = Vec::new();
    for per_width in [40, 80] {
        for solver in Solver::ALL {
            let tall = lobovsky_front(solver, 0.6, per_width, &LOBOVSKY_FRONT_H600);
            let low = lobovsky_front(solver, 0.3, per_width, &low_data);
            println!(
                "{solver:?} {per_width} across: H = 0.6 m worst {:.3} {tall:.3?}; H = 0.3 m worst {:.3} {low:.3?}",
                worst(&tall),
                worst(&low)
            );
            assert!(worst(&tall) < 0.10, "{solver:?} {per_width}: {tall:?}");
            assert!(
                worst(&tall[late..]) < 0.05,
                "{solver:?} {per_width}: {tall:?}"
            );
            assert!(worst(&low) < 0.07, "{solver:?} {per_width}: {low:?}");
            if per_width == 80 {
                assert!(
                    tall[..early].iter().all(|d| *d < 0.0),
                    "{solver:?}: {tall:?}"
                );
                converged.push(tall);
            }
        }
    }
    for k in 0..LOBOVSKY_FRONT_H600.len() {
        let at: Vec<f64> = converged.iter().map(|d| d[k]).collect();
        let spread = at.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b))
            - at.iter().fold(f64::INFINITY, |a, &b| a.min(b));
        assert!(spread < 0.02, "T = {}: {at:?}", LOBOVSKY_FRONT_H600[k].0);
    }
}

/// 10 000 steps of the dam break (10 across, box 4a long so the wave hits the far wall, climbs it and
/// comes back) per solver: no particle is ever outside the box [0, 4a] × [0, ∞), and the mass N m is
/// what it was, bit for bit. The walls are particles only (no box clamp); without
/// `Fluid::keep_off_walls` (seed 002 §6.4's hard constraint, applied to the wall particles) WCSPH let
/// a particle 0.01 Δx into the left wall at step 4 275, its clamped pressure not repelling a thin
/// splash; the test prints how often the constraint acted.
#[test]
fn no_particle_crosses_a_wall_in_ten_thousand_steps_and_mass_is_kept() {
    for solver in Solver::ALL {
        let a = 0.05;
        let mut c = Column::martin_moyce(a, 2.0, 4.0, 10);
        c.box_height = 5.0 * a;
        let mut sim = simulation(&c, solver);
        let (count, mass) = (sim.fluid.len(), sim.fluid.total_mass());
        let mut lowest = f64::INFINITY;
        let mut contacts = 0;
        for step in 0..10_000 {
            sim.step()
                .unwrap_or_else(|e| panic!("{solver:?} step {step}: {e}"));
            contacts += sim.fluid.wall_contacts;
            for x in &sim.fluid.x {
                lowest = lowest.min(x.x).min(x.y).min(c.box_width - x.x);
                assert!(
                    x.x > 0.0 && x.x < c.box_width && x.y > 0.0,
                    "{solver:?} step {step}: a particle at {x:?} crossed a wall"
                );
            }
        }
        println!(
            "{solver:?}: t = {:.3} s, closest approach to a wall {:.3} Δx, hard-constraint contacts {contacts}",
            sim.fluid.time,
            lowest / c.spacing
        );
        assert_eq!(sim.fluid.len(), count);
        assert_eq!(sim.fluid.total_mass().to_bits(), mass.to_bits());
    }
}

/// PBF with its stated tolerance (every C_i ≤ 1 %) and at most 100 iterations, the dam break at 20
/// across until T = 9.2 (731 steps): after every step, the densities recomputed at the final
/// positions with fresh neighbour lists have every constraint below the tolerance, and no step needed
/// the limit (measured: at most 45 iterations with Chebyshev's weights, 83 without, in the first
/// steps, where the walls' 3 % excess is pushed through the column's 40 rows). The step's own
/// densities, over the lists it found at x*, miss only the pairs that came within h as the particles
/// were corrected: at most 1.1·10⁻⁵ ρ₀ (asserted below 1 % of the tolerance). The wall constraint runs
/// on x* before the iterations: run after them it pushed particles back into compression (max C
/// 1.09 %). About 2 s.
#[test]
fn pbf_brings_every_density_constraint_below_its_tolerance() {
    let a = 2.25 * 0.0254;
    let c = Column::martin_moyce(a, 2.0, 16.0, 20);
    let duration = 9.24 * (a / (2.0 * G)).sqrt();
    let mut sim = simulation(&c, Solver::Pbf);
    let (mut limited, mut most, mut steps, mut worst_missed) = (0, 0, 0, 0.0f64);
    while sim.fluid.time < duration {
        let report = sim.step().expect("no blow-up");
        steps += 1;
        // The step's densities are summed over the lists it found at x*; taken again here over
        // fresh lists (on a copy), every pair closer than h at the final positions counts.
        assert_eq!(sim.fluid.max_density_error(), sim.pbf.last_max_constraint);
        let mut fresh = sim.fluid.clone();
        fresh.find_neighbours().expect("inside");
        fresh.compute_densities();
        let max_c = fresh.max_density_error();
        let missed = fresh
            .density
            .iter()
            .zip(&sim.fluid.density)
            .map(|(a, b)| (a - b).abs() / fresh.rest_density())
            .fold(0.0, f64::max);
        worst_missed = worst_missed.max(missed);
        if report.iterations < sim.pbf.max_iterations {
            most = most.max(report.iterations);
            assert!(
                max_c <= sim.pbf.tolerance,
                "t = {}: max C = {max_c}",
                sim.fluid.time
            );
        } else {
            limited += 1;
            assert!(
                sim.fluid.time < 0.05 && max_c < 0.012,
                "t = {}: max C = {max_c}",
                sim.fluid.time
            );
        }
    }
    println!(
        "PBF: {steps} steps, {limited} at the iteration limit, at most {most} iterations otherwise; \
         the pairs that came closer than h during the iterations add at most {worst_missed:.2e} ρ₀"
    );
    assert!(worst_missed < 0.01 * sim.pbf.tolerance, "{worst_missed}");
}

/// Switching solvers mid-flow keeps every particle where it is and as fast as it was, and the next
/// steps go on without a blow-up.
#[test]
fn switching_solver_keeps_the_particles() {
    let c = Column::martin_moyce(0.05, 2.0, 4.0, 10);
    let mut sim = simulation(&c, Solver::Wcsph);
    sim.advance(0.05).expect("no blow-up");
    for solver in [Solver::Dfsph, Solver::Pbf, Solver::Wcsph, Solver::Dfsph] {
        let (x, v) = (sim.fluid.x.clone(), sim.fluid.v.clone());
        sim.set_solver(solver);
        assert_eq!(sim.fluid.x, x);
        assert_eq!(sim.fluid.v, v);
        sim.advance(0.05).expect("no blow-up after the switch");
        assert_eq!(sim.fluid.len(), x.len());
    }
}

/// A column finer than the solver holds is refused with the limit named; a NaN or negative spacing,
/// an unknown solver and a column bigger than its box are refused with what is wrong.
#[test]
fn bad_input_is_refused_with_its_reason() {
    let mut c = column(10);
    c.spacing = 0.0001; // 1000 × 2000 particles
    match c.build() {
        Err(e @ FluidError::TooManyParticles { .. }) => {
            let text = e.to_string();
            assert!(text.contains("2000000") && text.contains("50000"), "{text}");
        }
        other => panic!("not refused: {other:?}"),
    }
    for spacing in [f64::NAN, -0.01, 0.0] {
        let mut c = column(10);
        c.spacing = spacing;
        assert!(matches!(c.build(), Err(FluidError::BadInput(_))));
    }
    let mut c = column(10);
    c.column_height = 1.0;
    assert!(c.build().unwrap_err().to_string().contains("fit"));
    assert!(Solver::from_id("sph")
        .unwrap_err()
        .to_string()
        .contains("wcsph"));
}

/// A WCSPH step beyond its CFL bound is refused before it is taken; DFSPH and PBF at a step 25 × too
/// long are stopped (a particle would travel more than h/2, or the density error explodes) before any
/// value turns to NaN — an error, never a panic — and the state is the last good one.
#[test]
fn a_blow_up_is_caught_before_nan_and_explained() {
    let c = Column::martin_moyce(0.05, 2.0, 4.0, 10);
    let mut sim = simulation(&c, Solver::Wcsph);
    sim.fixed_dt = Some(10.0 * sim.time_step());
    let error = sim.step().unwrap_err().to_string();
    assert!(error.contains("CFL"), "{error}");
    assert_eq!(sim.steps(), 0);
    for solver in [Solver::Dfsph, Solver::Pbf] {
        let mut sim = simulation(&c, solver);
        sim.fixed_dt = Some(0.05);
        let mut caught = None;
        for _ in 0..200 {
            match sim.step() {
                Ok(_) => assert!(sim.fluid.x.iter().all(|x| x.is_finite())),
                Err(e) => {
                    caught = Some(e);
                    break;
                }
            }
        }
        let error = caught.unwrap_or_else(|| panic!("{solver:?}: no blow-up caught"));
        println!("{solver:?}: {error}");
        assert!(matches!(
            error,
            FluidError::BlowUp(_) | FluidError::LeftDomain { .. }
        ));
        assert!(sim
            .fluid
            .x
            .iter()
            .chain(&sim.fluid.v)
            .all(|x| x.is_finite()));
        assert!(sim.fluid.density.iter().all(|r| r.is_finite()));
    }
}

/// Numbers uniform in [0, 1) from a linear congruential generator (Knuth's MMIX constants): the
/// neighbour tests' random points, the same on every run.
fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The cell grid's neighbour lists are exactly the pairs closer than h, found by brute force, on
/// scattered points (cells at the grid's edges included), and each list keeps the order in which
/// the grid visits the candidates (the sums over a list, and so a run, do not depend on how the
/// close ones are picked out). Sparse points (a few per cell) and dense ones (about a thousand
/// candidates a row: `push_within` tests them 64 at a time).
#[test]
fn neighbour_lists_are_the_pairs_closer_than_h() {
    let mut random = uniform(12345);
    let h = 0.07;
    for (count, size) in [(500, Vector::new(1.0, 0.5)), (3000, Vector::new(0.2, 0.1))] {
        let points: Vec<Vector> = (0..count)
            .map(|_| Vector::new(random(), random()) * size)
            .collect();
        let mut grid = CellGrid::new(Vector::ZERO, size, h);
        grid.build(&points).expect("inside");
        let mut lists = NeighbourLists::default();
        lists.build(&points, &grid, &points, h);
        let mut longest = 0;
        for (i, &xi) in points.iter().enumerate() {
            let mut visited = Vec::new();
            grid.for_each_near(xi, |j| visited.push(j as u32));
            longest = longest.max(visited.len());
            visited.retain(|&j| (xi - points[j as usize]).length_squared() < h * h);
            assert_eq!(lists.of(i), visited, "particle {i}: the grid's order");
            let mut found: Vec<u32> = lists.of(i).to_vec();
            found.sort_unstable();
            assert_eq!(found, closer_than(&points, xi, h), "particle {i}");
        }
        println!("{count} points: up to {longest} candidates");
        if count == 3000 {
            assert!(longest > 1000, "the dense case fills rows: {longest}");
        }
    }
    let mut grid = CellGrid::new(Vector::ZERO, Vector::new(1.0, 0.5), h);
    assert!(grid.build(&[Vector::new(2.0, 0.0)]).is_err());
}

/// Verlet's lists: candidates found within (1 + SKIN) h, then every point moved by up to SKIN h / 2
/// in a random direction; the candidates kept within h are exactly the pairs closer than h now
/// (brute force), in the candidates' order. Moved by 3 SKIN h, the same filter misses pairs: the
/// bound is what makes the lists right.
#[test]
fn candidates_within_the_skin_keep_exactly_the_pairs_closer_than_h() {
    let mut random = uniform(777);
    let h = 0.07;
    let reach = (1.0 + fluid::SKIN) * h;
    let size = Vector::new(0.4, 0.3);
    let points: Vec<Vector> = (0..2000)
        .map(|_| Vector::new(random(), random()) * size)
        .collect();
    let mut grid = CellGrid::new(Vector::splat(-0.1), size + 0.1, reach);
    grid.build(&points).expect("inside");
    let mut candidates = NeighbourLists::default();
    candidates.build(&points, &grid, &points, reach);
    let mut missed_far = 0;
    for (travel, far) in [
        (0.5 * fluid::SKIN * h, false),
        (3.0 * fluid::SKIN * h, true),
    ] {
        let moved: Vec<Vector> = points
            .iter()
            .map(|&x| {
                let angle = std::f64::consts::TAU * random();
                x + travel * random() * Vector::new(angle.cos(), angle.sin())
            })
            .collect();
        let mut lists = NeighbourLists::default();
        lists.keep_within(&candidates, &moved, &moved, h);
        for (i, &xi) in moved.iter().enumerate() {
            let kept: Vec<u32> = candidates
                .of(i)
                .iter()
                .copied()
                .filter(|&j| (xi - moved[j as usize]).length_squared() < h * h)
                .collect();
            assert_eq!(lists.of(i), kept, "particle {i}: the candidates' order");
            let mut found = kept;
            found.sort_unstable();
            let truth = closer_than(&moved, xi, h);
            if far {
                missed_far += truth.len() - found.len();
            } else {
                assert_eq!(found, truth, "particle {i} moved by at most SKIN h / 2");
            }
        }
    }
    println!("moved by 3 SKIN h: {missed_far} pairs missed");
    assert!(missed_far > 0, "the skin's bound is not needed?");
}

/// The fluid's lists, step after step of the dam break (WCSPH, whose short steps reuse the
/// candidates, and DFSPH, whose long ones search the grid each time), taken every tenth step: always
/// exactly the pairs closer than h, fluid and wall (brute force).
#[test]
fn a_fluids_neighbour_lists_stay_the_pairs_closer_than_h_as_it_moves() {
    for solver in [Solver::Wcsph, Solver::Dfsph] {
        let c = Column::martin_moyce(0.1, 2.0, 4.0, 10);
        let mut sim = simulation(&c, solver);
        for step in 0..120 {
            sim.step().expect("no blow-up");
            if step % 10 != 9 {
                continue;
            }
            // The step's own lists are those of its drift, before the walls' constraint moved
            // some particles (`Fluid::drift`): taken again here, at the positions now, from the
            // candidates the steps left (on a copy: the step's kernels belong to its lists).
            let mut f = sim.fluid.clone();
            f.find_neighbours().expect("inside");
            let h = f.kernel.h;
            for (i, &xi) in f.x.iter().enumerate() {
                let mut fluid: Vec<u32> = f.fluid_neighbours.of(i).to_vec();
                fluid.sort_unstable();
                assert_eq!(
                    fluid,
                    closer_than(&f.x, xi, h),
                    "{solver:?} step {step}, {i}"
                );
                let mut walls: Vec<u32> = f.boundary_neighbours.of(i).to_vec();
                walls.sort_unstable();
                assert_eq!(
                    walls,
                    closer_than(&f.boundary.x, xi, h),
                    "{solver:?} walls, {i}"
                );
            }
        }
    }
}

/// The marching-squares surface of the settled column (20 across, DFSPH) crosses the middle of the
/// column at the fluid's rest height H within Δx/2 (the volume fraction φ = ½ lies half a spacing
/// above the top particles' centres), and no segment leaves the box by more than Δx.
#[test]
fn the_free_surface_of_a_column_at_rest_is_at_its_height() {
    let sim = settled(Solver::Dfsph, 20, 0.5);
    let f = &sim.fluid;
    let dx = f.spacing();
    let height = rest_height(f, 20);
    let mut surface = surface::Surface::new(Vector::splat(-0.02), Vector::new(0.12, 0.3), dx / 2.0);
    surface.extract(f);
    assert!(!surface.segments.is_empty());
    let middle = 0.05;
    let crossing = surface
        .segments
        .iter()
        .filter(|(a, b)| (a.x - middle) * (b.x - middle) <= 0.0 && a.x != b.x)
        .map(|(a, b)| a.y + (b.y - a.y) * (middle - a.x) / (b.x - a.x))
        .fold(f64::NEG_INFINITY, f64::max);
    println!("surface at mid-width {crossing:.5} m, H = {height:.5} m, Δx = {dx}");
    assert!(
        (crossing - height).abs() < 0.5 * dx,
        "{crossing} vs {height}"
    );
    for (a, b) in &surface.segments {
        for p in [a, b] {
            assert!(p.x > -dx && p.x < 0.1 + dx && p.y > -dx, "{p:?}");
        }
    }
}

/// Not a claim: the DFSPH column of `crates/phyxel-bench/splishsplash/column_2d.py` (the same
/// lattice, walls, kernel, mass, tolerances, λ = 0.4, Δt ≤ 2 ms, ξ = 0.01) with the same printout,
/// for the side-by-side table in docs/benchmarks.md. `PHYXEL_COLUMN=ACROSS,SECONDS[,DT_MAX[,splash]]`
/// (default 40,0.5,0.002); `splash` gives the particles SPlisHSPlasH's mass ρ₀ Δx² (its DFSPH's
/// V = (2r)²) instead of Phyxel's ρ₀ / Σ_lattice W, 0.086 % less, so that the bulk starts at
/// 1.00086 ρ₀ as it does there:
///
///     PHYXEL_COLUMN=40,0.5 cargo test --release -p phyxel --lib dfsph_column_side_by_side -- --ignored --nocapture
#[test]
#[ignore]
fn dfsph_column_side_by_side() {
    let spec = SideBySide::from_env("PHYXEL_COLUMN", 40, 0.5, 0.002);
    let sim = simulation(&column(spec.across), Solver::Dfsph);
    side_by_side(sim, spec, (0.1, 0.25), None);
}

/// Not a claim: the lesson's dam break ([`crate::lessons::sph_fluids::dam_break`], its defaults, DFSPH)
/// as `column_2d.py --dam-break` runs it in SPlisHSPlasH, with the printout of
/// [`dfsph_column_side_by_side`] and the front in a. `PHYXEL_DAM_BREAK=ACROSS,SECONDS[,DT_MAX[,splash]]`
/// (default 35,1,1/240):
///
///     PHYXEL_DAM_BREAK=35,1 cargo test --release -p phyxel --lib dfsph_dam_break_side_by_side -- --ignored --nocapture
#[test]
#[ignore]
fn dfsph_dam_break_side_by_side() {
    use crate::lessons::sph_fluids::{dam_break, Settings, COLUMN_WIDTH, DT_MAX};
    let spec = SideBySide::from_env("PHYXEL_DAM_BREAK", 35, 1.0, DT_MAX);
    let sim = dam_break(Settings::page_defaults(spec.across), Solver::Dfsph)
        .expect("the dam break builds");
    side_by_side(
        sim,
        spec,
        (4.0 * COLUMN_WIDTH, 3.0 * COLUMN_WIDTH),
        Some(COLUMN_WIDTH),
    );
}

/// A side-by-side run's parameters, from `ACROSS,SECONDS[,DT_MAX[,splash]]` in an environment variable.
#[derive(Clone, Copy)]
struct SideBySide {
    across: usize,
    seconds: f64,
    dt_max: f64,
    splash_mass: bool,
}

impl SideBySide {
    fn from_env(name: &str, across: usize, seconds: f64, dt_max: f64) -> Self {
        let spec = std::env::var(name).unwrap_or_default();
        let mut parts = spec.split(',');
        let mut next = || parts.next().filter(|s| !s.is_empty());
        Self {
            across: next().and_then(|s| s.parse().ok()).unwrap_or(across),
            seconds: next().and_then(|s| s.parse().ok()).unwrap_or(seconds),
            dt_max: next().and_then(|s| s.parse().ok()).unwrap_or(dt_max),
            splash_mass: next() == Some("splash"),
        }
    }
}

/// Run `sim` for the spec's time printing what `column_2d.py` prints: the first 12 steps and then every
/// 0.05 s, and a JSON summary; with `front`, the largest x in units of that width.
fn side_by_side(mut sim: FluidSimulation, spec: SideBySide, walls: (f64, f64), front: Option<f64>) {
    let SideBySide {
        across,
        seconds,
        dt_max,
        splash_mass,
    } = spec;
    let (width, box_height) = walls;
    sim.dt_max = dt_max;
    let n = sim.fluid.len();
    if splash_mass {
        sim.fluid.mass = sim.fluid.rest_density() * sim.fluid.spacing().powi(2);
        sim.fluid.compute_densities();
    }
    let stats = |f: &Fluid| {
        let (mut worst, mut at) = (f64::NEG_INFINITY, Vector::ZERO);
        for (rho, x) in f.density.iter().zip(&f.x) {
            let e = rho / f.rest_density() - 1.0;
            if e > worst {
                (worst, at) = (e, *x);
            }
        }
        let out =
            f.x.iter()
                .filter(|x| !(0.0..=width).contains(&x.x) || !(0.0..=box_height).contains(&x.y))
                .count();
        (worst, at / f.spacing(), f.density_error(), out)
    };
    let front_text = |f: &Fluid| match front {
        Some(a) => format!(
            " | front {:.3} a",
            f.x.iter().map(|x| x.x).fold(f64::NEG_INFINITY, f64::max) / a
        ),
        None => String::new(),
    };
    let (worst, at, mean, _) = stats(&sim.fluid);
    println!(
        "{across} across: {n} particles, {} wall particles, mass {:.7} kg; initial lattice: max {worst:+.4} (at {:.2}, {:.2} dx) mean {mean:.5}",
        sim.fluid.boundary.x.len(),
        sim.fluid.mass,
        at.x,
        at.y
    );
    let (mut vmax, mut worst_all, mut worst_mean, mut most_out) = (0.0f64, worst, mean, 0);
    let (mut iterations, mut steps, mut solve) = (0u64, 0u64, 0.0f64);
    let mut report = 0.05;
    let mut first_iterations = (0, 0);
    while sim.fluid.time < seconds - 1e-9 {
        let start = std::time::Instant::now();
        let result = sim.step();
        solve += start.elapsed().as_secs_f64();
        if let Err(e) = result {
            println!(
                "step {} refused at t = {:.4}: {e}",
                steps + 1,
                sim.fluid.time
            );
            break;
        }
        steps += 1;
        let (d, v) = sim.dfsph.last_iterations;
        if steps == 1 {
            first_iterations = (d, v);
        }
        iterations += u64::from(d + v);
        let speed = sim.fluid.max_speed();
        let (worst, at, mean, out) = stats(&sim.fluid);
        vmax = vmax.max(speed);
        worst_all = worst_all.max(worst);
        worst_mean = worst_mean.max(mean);
        most_out = most_out.max(out);
        if steps <= 12 || sim.fluid.time >= report - 1e-9 {
            if steps > 12 {
                report += 0.05;
            }
            println!(
                "step {steps:4} t {:.4} dt {:.5} iterations {d:3} + {v:3} vmax {speed:.3} m/s out {out} | rho after step {steps}: max {worst:+.4} (at {:.2}, {:.2} dx) mean {mean:.5}{}",
                sim.fluid.time,
                sim.last.dt,
                at.x,
                at.y,
                front_text(&sim.fluid)
            );
        }
    }
    println!(
        "{{\"code\": \"Phyxel DFSPH\", \"scene\": \"{}\", \"splash_mass\": {splash_mass}, \"across\": {across}, \"dt_max\": {dt_max}, \"particles\": {n}, \"seconds\": {:.4}, \"steps\": {steps}, \"iterations_first_step\": [{}, {}], \"iterations_per_step\": {:.1}, \"largest_speed\": {vmax:.3}, \"largest_density_error\": {worst_all:.4}, \"largest_mean_density_error\": {worst_mean:.6}, \"most_particles_out\": {most_out}, \"ns_per_particle_step\": {:.0}}}",
        if front.is_some() { "dam break" } else { "column" },
        sim.fluid.time,
        first_iterations.0,
        first_iterations.1,
        iterations as f64 / steps.max(1) as f64,
        solve / steps.max(1) as f64 / n as f64 * 1e9
    );
}

/// The bits of every position, velocity and pressure after `steps` steps of a dam break (a column
/// 24 across, 1 152 particles: several pieces of a parallel pass) by `solver` on a pool of `threads`.
#[cfg(feature = "parallel")]
fn dam_break_bits(solver: Solver, threads: usize, steps: usize) -> Vec<u64> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        crate::parallel::in_pool(|| {
            assert_eq!(crate::parallel::thread_count(), threads);
            let c = Column::martin_moyce(0.1, 2.0, 4.0, 24);
            let mut sim = simulation(&c, solver);
            for step in 0..steps {
                sim.step()
                    .unwrap_or_else(|e| panic!("{solver:?} step {step}: {e}"));
            }
            let f = &sim.fluid;
            f.x.iter()
                .chain(&f.v)
                .flat_map(|v| [v.x, v.y])
                .chain(f.pressure.iter().copied())
                .map(f64::to_bits)
                .collect()
        })
    })
}

/// The passes split over threads (neighbour lists, densities and their pairs' kernels, pressure
/// forces, DFSPH's and PBF's iterations, XSPH, the walls' constraint) give the same bits on 1, 2 and
/// 3 threads: each particle's result is gathered by one thread, sums over particles in their order.
#[cfg(feature = "parallel")]
#[test]
fn the_dam_break_is_bit_for_bit_the_same_on_any_number_of_threads() {
    for solver in Solver::ALL {
        let one = dam_break_bits(solver, 1, 300);
        assert_eq!(one, dam_break_bits(solver, 2, 300), "{solver:?}, 2 threads");
        assert_eq!(one, dam_break_bits(solver, 3, 300), "{solver:?}, 3 threads");
    }
}
