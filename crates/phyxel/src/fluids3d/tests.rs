//! The 3D fluid's claims, against theory (hydrostatics, conservation, the walls standing in for
//! fluid) — the 2D fluid's tests where they carry over, at the sizes a debug-profile test affords
//! (phyxel itself is built at opt-level 3 in the test profile).

use super::grid::{closer_than, CellGrid, NeighbourLists};
use super::kernel::Vector;
use super::*;
use crate::fluids::experiment::MARTIN_MOYCE_FRONT;

const G: f64 = 9.81;

/// A column 0.1 m wide, 0.2 m high and 0.1 m deep filling its box's floor, `per_width` particles
/// across.
fn column(per_width: usize) -> Column {
    let mut c = Column::martin_moyce(0.1, 2.0, 1.0, 1.0, per_width);
    c.box_height = 0.25;
    c
}

fn simulation(c: &Column, solver: Solver) -> FluidSimulation {
    let fluid = c.build().expect("the test's column is valid");
    let wcsph = wcsph::Wcsph::for_height(c.gravity, c.column_height);
    FluidSimulation::new(fluid, solver, wcsph, 0.002).expect("valid time step")
}

/// The fluid's height at exactly its rest density: the lattice's layers × Δx.
fn rest_height(f: &Fluid, per_width: usize) -> f64 {
    (f.len() / (per_width * per_width)) as f64 * f.spacing()
}

/// p(0) of the least-squares line p = p(0) + β y through the pressures of the particles whose
/// kernel support lies inside the fluid: more than h from the side walls and the floor, and below the
/// rest height H by more than h. Next to a wall the 3 × 3 layers of Akinci's volumes leave a few per
/// cent of excess density (see the walls' test), a pressure boundary layer that in 3D holds most of a
/// coarse column (64 % of the particles at 10 across lie within h of a side wall, against 40 % in 2D).
fn bottom_pressure(f: &Fluid, c: &Column, height: f64) -> f64 {
    let h = f.kernel.h;
    let (mut n, mut sy, mut sp, mut syy, mut syp) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for i in 0..f.len() {
        let x = f.x[i];
        let inside = [
            x.x,
            x.y,
            x.z,
            c.column_width - x.x,
            c.depth - x.z,
            height - x.y,
        ]
        .iter()
        .all(|d| *d > h);
        if !inside {
            continue;
        }
        let (y, p) = (x.y, f.pressure[i]);
        n += 1.0;
        sy += y;
        sp += p;
        syy += y * y;
        syp += y * p;
    }
    let beta = (n * syp - sy * sp) / (n * syy - sy * sy);
    (sp - beta * sy) / n
}

/// The 3D cell grid's neighbour lists are exactly the pairs closer than h, by brute force, on
/// scattered points (the 3 × 3 × 3 scan, the grid's edges included).
#[test]
fn neighbour_lists_are_the_pairs_closer_than_h_in_3d() {
    let mut seed = 987654321u64;
    let mut random = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let points: Vec<Vector> = (0..1500)
        .map(|_| Vector::new(random(), 0.5 * random(), 0.3 * random()))
        .collect();
    let h = 0.08;
    let mut grid = CellGrid::new(Vector::ZERO, Vector::new(1.0, 0.5, 0.3), h);
    assert_eq!(grid.cells(), 13 * 7 * 4);
    grid.build(&points).expect("inside");
    let mut lists = NeighbourLists::default();
    lists.build(&points, &grid, &points, h);
    let mut pairs = 0;
    for (i, &xi) in points.iter().enumerate() {
        let mut found: Vec<u32> = lists.of(i).to_vec();
        found.sort_unstable();
        assert_eq!(found, closer_than(&points, xi, h), "particle {i}");
        pairs += found.len();
    }
    assert!(pairs > 10 * points.len(), "{pairs} pairs");
    assert!(grid.build(&[Vector::new(0.5, 0.2, 0.33)]).is_err());
}

/// The walls stand in for the missing fluid in 3D too: in the fresh lattice every particle of the
/// column's lower half is within 5 % of ρ₀ (next to one wall, two or three — the corners — Akinci's
/// volumes on three layers give a few per cent over; the interior is ρ₀ by the mass's definition),
/// and without the walls a particle on the floor would lack about a third of its density.
#[test]
fn the_walls_stand_in_for_fluid_at_rest_density_in_3d() {
    for per_width in [6, 10] {
        let c = column(per_width);
        let sim = simulation(&c, Solver::Wcsph);
        let f = &sim.fluid;
        let (mut worst, mut interior) = (0.0f64, 0.0f64);
        for (rho, x) in f.density.iter().zip(&f.x) {
            if x.y > 0.5 * c.column_height {
                continue;
            }
            let error = (rho / f.rest_density() - 1.0).abs();
            worst = worst.max(error);
            let inside = [x.x, x.y, x.z, c.column_width - x.x, c.depth - x.z]
                .iter()
                .all(|d| *d > f.kernel.h);
            if inside {
                interior = interior.max(error);
            }
        }
        println!("{per_width} across: worst |ρ/ρ₀ − 1| in the lower half {worst:.4}, interior {interior:.1e}");
        assert!(worst < 0.05, "{per_width} across: {worst}");
        assert!(interior < 1e-12, "{per_width} across: interior {interior}");
        // The floor's particles without the walls: a third short or more.
        let mut bare = Fluid::new(
            f.x.clone(),
            Vec::new(),
            FluidSettings {
                rest_density: 1000.0,
                spacing: c.spacing,
                gravity: Vector::new(0.0, -G, 0.0),
                xsph: 0.0,
            },
        )
        .expect("a fluid without walls");
        bare.find_neighbours().expect("inside its grid");
        bare.compute_densities();
        let floor_corner = bare.density[0] / bare.rest_density();
        assert!(floor_corner < 0.7, "corner without walls: {floor_corner}");
    }
}

/// WCSPH's hydrostatic column in 3D (its stiffness for the column's height, c = 10 √(2gH)): after
/// 0.6 s of settling from the lattice, the bottom pressure p(0) of the interior's line, averaged over
/// the next 0.2 s (the column still rings at its acoustic period 4H/c = 0.04 s), against ρ₀ g H; the
/// mean density error stays below 1 % (the bound for WCSPH) and the mass is kept bit for bit.
/// Measured 2026-11-24 at 6, 8, 10, 12 across: 0.992, 1.022, 1.019, 1.019 (mean density error
/// 0.27–0.29 %): within 3 % at every resolution, but not the 2 % with room, and with no
/// convergence trend at these sizes (the interior is 2–8 particles across). 0.996 and 1.022 at 6 and
/// 10 across on 2026-11-29 (pair kernels in single precision, Verlet's lists). About 12 s.
#[test]
fn hydrostatic_pressure_at_the_bottom_is_rho_g_h_in_3d() {
    for per_width in [6, 10] {
        let c = column(per_width);
        let mut sim = simulation(&c, Solver::Wcsph);
        let mass = sim.fluid.total_mass();
        sim.advance(0.6).expect("the column settles");
        let (mut sum, mut samples) = (0.0, 0);
        while sim.fluid.time < 0.8 {
            sim.step().expect("the column stays at rest");
            let f = &sim.fluid;
            sum += bottom_pressure(f, &c, rest_height(f, per_width));
            samples += 1;
        }
        let f = &sim.fluid;
        let rho_g_h = f.rest_density() * G * rest_height(f, per_width);
        let ratio = sum / samples as f64 / rho_g_h;
        let density_error = f.density_error();
        println!(
            "{per_width} across ({} particles): p(0)/(ρ₀gH) = {ratio:.4}, mean density error {density_error:.5}",
            f.len()
        );
        assert!(density_error < 0.01, "{per_width} across: {density_error}");
        assert_eq!(f.total_mass().to_bits(), mass.to_bits());
        assert!((ratio - 1.0).abs() < 0.03, "{per_width} across: {ratio:.4}");
    }
}

/// DFSPH in 3D keeps the settled column at its density: mean error below 0.1 % (the bound for
/// the incompressible solver) at 8 across after 0.4 s (measured 0.073 % when written, 0.045 % with
/// the warm start, 2026-11-29), with no eruption: the fastest particle, one of the free surface's,
/// under ½ √(gH) (measured 0.28 m/s, then 0.26 m/s; DFSPH's defect in
/// 2D, `crate::fluids::dfsph`, throws particles at several √(gH)).
#[test]
fn dfsph_keeps_a_3d_column_at_its_density() {
    let mut sim = simulation(&column(8), Solver::Dfsph);
    sim.advance(0.4).expect("the column settles");
    let error = sim.fluid.density_error();
    let fastest = sim.fluid.v.iter().map(|v| v.length()).fold(0.0, f64::max);
    let at = sim
        .fluid
        .v
        .iter()
        .zip(&sim.fluid.x)
        .max_by(|a, b| a.0.length().total_cmp(&b.0.length()))
        .map(|(_, x)| *x);
    println!("DFSPH 8 across: mean density error {error:.5}, fastest {fastest:.3} m/s at {at:?}");
    assert!(error < 0.001, "{error}");
    assert!(fastest < 0.5 * (G * 0.2f64).sqrt(), "{fastest} m/s");
}

/// A 3D dam break along a channel (6 across, 4a long, a deep), every solver for 1 500 steps (past
/// the wave's run up the far wall): no particle ever leaves the box — walls of particles only — and
/// the mass is what it was, bit for bit.
#[test]
fn no_particle_leaves_the_3d_box_and_mass_is_kept() {
    for solver in Solver::ALL {
        let a = 0.05;
        let mut c = Column::martin_moyce(a, 2.0, 4.0, 1.0, 6);
        c.box_height = 5.0 * a;
        let mut sim = simulation(&c, solver);
        let (count, mass) = (sim.fluid.len(), sim.fluid.total_mass());
        for step in 0..1_500 {
            sim.step()
                .unwrap_or_else(|e| panic!("{solver:?} step {step}: {e}"));
            for x in &sim.fluid.x {
                assert!(
                    x.x > 0.0 && x.x < c.box_width && x.y > 0.0 && x.z > 0.0 && x.z < c.depth,
                    "{solver:?} step {step}: a particle at {x:?} crossed a wall"
                );
            }
        }
        println!("{solver:?}: t = {:.3} s", sim.fluid.time);
        assert_eq!(sim.fluid.len(), count);
        assert_eq!(sim.fluid.total_mass().to_bits(), mass.to_bits());
    }
}

/// Sizes beyond what the 3D fluid holds are refused with the limit named, before any particle is
/// made.
#[test]
fn a_3d_column_beyond_the_budget_is_refused_with_its_limit() {
    let mut c = column(10);
    c.spacing = 0.1 / 200.0;
    let error = c.build().unwrap_err().to_string();
    assert!(
        error.contains("100000") || error.contains("100 000"),
        "{error}"
    );
    let walls = scene::box_walls([10.0, 10.0, 10.0], 0.01, 3, true).unwrap_err();
    assert!(walls.to_string().contains("boundary"), "{walls}");
}

/// A fluid built within limits of its own (`Fluid::with_limits`, for a stepper other than the CPU's)
/// is refused beyond each of them with that limit named, and holds what the CPU's caps refuse; the
/// CPU's paths keep [`fluid::Limits::CPU`].
#[test]
fn a_fluid_within_limits_of_its_own_is_refused_beyond_each_and_only_there() {
    let c = column(10);
    let fluid = c.build().unwrap();
    assert_eq!(fluid.limits(), fluid::Limits::CPU);
    let (n, walls) = (fluid.len(), fluid.boundary.x.len());
    assert_eq!((n, fluid.density[0]), (2000, 1000.0));
    let roomy = fluid::Limits {
        fluid: n,
        boundary: walls,
        cells: 100_000,
    };
    assert_eq!(c.build_within(roomy).unwrap().limits(), roomy);
    for (limits, named) in [
        (
            fluid::Limits {
                fluid: n - 1,
                ..roomy
            },
            format!("{n} fluid particles is more than the limit of {}", n - 1),
        ),
        (
            fluid::Limits {
                boundary: walls - 1,
                ..roomy
            },
            format!(
                "{walls} boundary particles is more than the limit of {}",
                walls - 1
            ),
        ),
        (
            fluid::Limits {
                cells: 1000,
                ..roomy
            },
            "(at most 1000)".to_string(),
        ),
    ] {
        let error = c.build_within(limits).unwrap_err().to_string();
        assert!(error.contains(&named), "{error}");
    }
    // Beyond the CPU's 100 000: refused by `build`, held by `build_within` (no neighbours searched).
    let mut big = column(10);
    big.spacing = 0.1 / 48.0;
    assert!(big.build().is_err());
    let within = fluid::Limits {
        fluid: 300_000,
        boundary: 300_000,
        cells: 4_000_000,
    };
    let fluid = big.build_within(within).unwrap();
    assert_eq!(fluid.len(), 48 * 96 * 48);
    assert_eq!(fluid.fluid_neighbours.pairs(), 0);
}

/// The 3D dam break along a channel a deep (the experiment's column, extruded; free-slip walls), every
/// solver at 6 and 10 particles across a (864 and 4 000 particles), over the experiment's range: the
/// front (the furthest particle along the channel) against Martin & Moyce. Measured 2026-11-24 (6 / 8
/// / 10 across): from T = 4.4 on every solver is within 8 % (WCSPH 6.2 / 4.4 / 3.1 %, PBF 4.9 / 3.1 /
/// 2.9 %, DFSPH 7.3 / 6.2 / 7.6 %, the last not converging; 7.5 % and 6.9 % at 6 and 10 across with
/// its warm start, 2026-11-29), the mean |deviation| over the whole range 6.6–11.6 %; the early points
/// run ahead, +20 … +34 % for T < 2.6 (the 2D fluid's +11 … +20 %): the
/// experiment's released gate, which no inviscid simulation has. Asserted: from T = 4.4 within 8 %,
/// the mean within 12 %, every point within 35 %, and WCSPH's and PBF's late error shrinking from 6
/// to 10 across. NOT the "within 10 % over the whole range". About 18 s.
#[test]
fn the_3d_dam_break_front_follows_martin_and_moyce() {
    let a = 2.25 * 0.0254;
    let mut failures = Vec::new();
    for solver in Solver::ALL {
        let mut late_errors = Vec::new();
        for per_width in [6, 10] {
            let c = Column::martin_moyce(a, 2.0, 16.0, 1.0, per_width);
            let mut sim = simulation(&c, solver);
            let time_scale = (a / (2.0 * c.gravity)).sqrt();
            let deviation: Vec<f64> = MARTIN_MOYCE_FRONT
                .iter()
                .map(|&(t, z)| {
                    sim.advance(t * time_scale - sim.fluid.time)
                        .expect("no blow-up");
                    let front = sim.fluid.x.iter().map(|x| x.x).fold(0.0, f64::max);
                    front / a / z - 1.0
                })
                .collect();
            let mean = deviation.iter().map(|d| d.abs()).sum::<f64>() / deviation.len() as f64;
            let worst = deviation.iter().map(|d| d.abs()).fold(0.0, f64::max);
            let late = deviation[6..].iter().map(|d| d.abs()).fold(0.0, f64::max);
            println!(
                "{solver:?} {per_width} across: mean |dev| {mean:.3}, worst {worst:.3}, from T = 4.4 {late:.3}: {deviation:.3?}"
            );
            failures.extend(
                (worst >= 0.35).then_some(format!("{solver:?} {per_width}: worst {worst}")),
            );
            failures
                .extend((mean >= 0.12).then_some(format!("{solver:?} {per_width}: mean {mean}")));
            failures
                .extend((late >= 0.08).then_some(format!("{solver:?} {per_width}: late {late}")));
            late_errors.push(late);
        }
        if solver != Solver::Dfsph && late_errors[1] >= late_errors[0] {
            failures.push(format!(
                "{solver:?}: no convergence from T = 4.4: {late_errors:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// The 3D dam break (8 across, 1 024 particles) is bit for bit the same on 1 and 2 threads, by every
/// solver (the 2D fluid's test, over the same passes compiled in 3D).
#[cfg(feature = "parallel")]
#[test]
fn the_3d_dam_break_is_bit_for_bit_the_same_on_any_number_of_threads() {
    let run = |solver: Solver, threads: usize| -> Vec<u64> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let a = 0.05;
            let mut c = Column::martin_moyce(a, 2.0, 4.0, 1.0, 8);
            c.box_height = 5.0 * a;
            let mut sim = simulation(&c, solver);
            for step in 0..150 {
                sim.step()
                    .unwrap_or_else(|e| panic!("{solver:?} step {step}: {e}"));
            }
            let f = &sim.fluid;
            f.x.iter()
                .chain(&f.v)
                .flat_map(|v| [v.x, v.y, v.z])
                .chain(f.pressure.iter().copied())
                .map(f64::to_bits)
                .collect()
        })
    };
    for solver in Solver::ALL {
        assert_eq!(run(solver, 1), run(solver, 2), "{solver:?}");
    }
}
