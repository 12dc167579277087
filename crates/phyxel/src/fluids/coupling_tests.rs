//! The coupled body's claims (issue 19 item 4), against Archimedes and the conservation laws:
//! a light body floats with the submerged fraction ρ_body/ρ₀, a heavy one sinks, the coupling
//! exchanges momentum exactly and conserves mass bit for bit, and no fluid particle enters the body or
//! leaves the tank.

use super::coupling::{Block, FloatingBody, COUPLED_DT_MAX};
use super::error::FluidError;
use super::fluid::{Fluid, FluidSettings};
use super::kernel::Vector;
use super::scene::Column;
use super::simulation::{FluidSimulation, Solver};
use super::wcsph::Wcsph;

/// The tank: 0.8 m wide, 0.6 m high, open.
const TANK: (f64, f64) = (0.8, 0.6);

/// The tank holding water 0.24 m deep at spacing Δx, and a block 0.32 × 0.16 m of density
/// `ratio` ρ₀ with its bottom one Δx above the surface, in the middle.
fn tank(spacing: f64, ratio: f64, solver: Solver) -> (FluidSimulation, FloatingBody) {
    tank_with_lid(spacing, ratio, solver, false)
}

/// [`tank`], closed by a lid where `lid`: a heavy body's fall splashes water up the side walls (all
/// three solvers measured 3.0–4.3 m/s at the splash's tip, enough to climb 0.5–0.9 m), and in the open
/// tank a drop can leave over a wall (PBF at its own step, DFSPH at Δx = 0.01 m; 2026-12-07).
fn tank_with_lid(
    spacing: f64,
    ratio: f64,
    solver: Solver,
    lid: bool,
) -> (FluidSimulation, FloatingBody) {
    let column = Column {
        column_width: TANK.0,
        column_height: 0.24,
        box_width: TANK.0,
        box_height: TANK.1,
        spacing,
        rest_density: 1000.0,
        gravity: 9.81,
        xsph: 0.05,
        lid,
    };
    let fluid = column.build().expect("builds");
    let wcsph = Wcsph::for_height(9.81, 0.24);
    let mut simulation = FluidSimulation::new(fluid, solver, wcsph, 1.0 / 240.0).expect("builds");
    let block = Block {
        lower_left: Vector::new(0.24, 0.24 + spacing),
        width: 0.32,
        height: 0.16,
        density: ratio * 1000.0,
    };
    let body = FloatingBody::new(
        &mut simulation,
        block,
        (Vector::ZERO, Vector::new(TANK.0, TANK.1)),
    )
    .expect("builds");
    (simulation, body)
}

/// What a run to `end` seconds shows: the mean submerged fraction over its second half (whole bobbing
/// periods of about 0.8 s are averaged out), the most fluid particles ever inside the body, the most
/// ever outside the tank, and the body's lowest particle's cell bottom at the end.
struct Run {
    fraction: f64,
    inside: usize,
    outside: usize,
    bottom: f64,
    steps: u64,
    /// Steps taken again at half the Δt ([`FloatingBody::retries`]).
    retries: u64,
}

fn settle(spacing: f64, ratio: f64, solver: Solver, end: f64) -> Run {
    settle_with_step(spacing, ratio, solver, end, COUPLED_DT_MAX)
}

/// [`settle`] with the coupled step at most `dt_max`.
fn settle_with_step(spacing: f64, ratio: f64, solver: Solver, end: f64, dt_max: f64) -> Run {
    let (simulation, body) = tank(spacing, ratio, solver);
    settle_from(simulation, body, end, dt_max)
}

/// [`settle_with_step`] from the tank and body given.
fn settle_from(
    mut simulation: FluidSimulation,
    mut body: FloatingBody,
    end: f64,
    dt_max: f64,
) -> Run {
    body.dt_max = dt_max;
    body.solved_dt_max = dt_max;
    let (mass_fluid, mass_body) = (simulation.fluid.total_mass(), body.mass());
    let (mut sum, mut count) = (0.0, 0.0);
    let (mut inside, mut outside) = (0, 0);
    let mut steps = 0u64;
    while simulation.fluid.time < end {
        body.step(&mut simulation).expect("no blow-up");
        steps += 1;
        let f = &simulation.fluid;
        outside = outside.max(
            f.x.iter()
                .filter(|p| p.x < 0.0 || p.x > TANK.0 || p.y < 0.0)
                .count(),
        );
        if steps.is_multiple_of(20) {
            inside = inside.max(body.fluid_inside(f));
        }
        if f.time > 0.5 * end {
            sum += body.submerged_in(f).expect("water");
            count += 1.0;
        }
    }
    // Mass: particles are neither made nor lost, on either side (bit for bit).
    assert_eq!(simulation.fluid.total_mass(), mass_fluid);
    assert_eq!(body.mass(), mass_body);
    Run {
        fraction: sum / count,
        inside,
        outside,
        bottom: body.bottom(),
        steps,
        retries: body.retries,
    }
}

/// The relative error of `run`'s submerged fraction against Archimedes' ρ_body/ρ₀ = `ratio`, after
/// checking that no fluid particle entered the body or left the tank.
fn archimedes_error(run: &Run, ratio: f64) -> f64 {
    assert_eq!((run.inside, run.outside), (0, 0));
    run.fraction / ratio - 1.0
}

/// Archimedes: a block of ρ_body = 0.5 ρ₀ floats with half its height submerged, within 10 %, at Δx =
/// 0.02 and 0.01 m (8 and 16 particles over its height), the error not growing with refinement; no
/// fluid particle inside it or out of the tank, each run over 10⁴ steps or more. WCSPH.
#[test]
fn a_light_body_floats_by_archimedes_at_two_resolutions() {
    let coarse = settle(0.02, 0.5, Solver::Wcsph, 4.0);
    let fine = settle(0.01, 0.5, Solver::Wcsph, 4.0);
    let errors = [archimedes_error(&coarse, 0.5), archimedes_error(&fine, 0.5)];
    println!(
        "WCSPH ρ_body = 0.5 ρ₀: submerged fraction {:.4} (Δx 0.02), {:.4} (Δx 0.01); errors {errors:?}; \
         {} and {} steps",
        coarse.fraction, fine.fraction, coarse.steps, fine.steps
    );
    for run in [&coarse, &fine] {
        assert!(run.steps >= 10_000, "{}", run.steps);
    }
    assert!(errors.iter().all(|e| e.abs() < 0.10), "{errors:?}");
    assert!(errors[1].abs() <= errors[0].abs() + 0.02, "{errors:?}");
}

/// ρ_body = 0.7 ρ₀ floats with 70 % submerged within 10 % (WCSPH, Δx = 0.02 m).
#[test]
fn a_body_of_seven_tenths_floats_seven_tenths_submerged() {
    let run = settle(0.02, 0.7, Solver::Wcsph, 4.0);
    println!(
        "WCSPH ρ_body = 0.7 ρ₀: submerged fraction {:.4}",
        run.fraction
    );
    assert!(archimedes_error(&run, 0.7).abs() < 0.10, "{}", run.fraction);
}

/// DFSPH with the body inside its pressure solves (`super::rigid_modes`): ρ_body = 0.5 ρ₀ floats
/// half submerged within 10 % at Δx = 0.02 and 0.01 m with the coupled step at most 1 ms, and at Δx =
/// 0.02 m at DFSPH's own step (up to 1/240 s, the default with a body), where the explicit coupling (the body outside the solves, its
/// particles taking the impulses where they fell) threw water out of the tank within 1.6–1.7 s; no
/// fluid particle inside the body or out of the tank. Measured 2026-12-03: 0.4957, 0.5036, 0.4920.
#[test]
fn dfsph_floats_a_light_body_by_archimedes_with_the_body_inside_its_solves() {
    floats_a_light_body_with_the_body_inside_the_solve(Solver::Dfsph);
}

/// PBF with the body inside its position solve (`super::pbf`, "A body inside the solve"): ρ_body =
/// 0.5 ρ₀ floats half submerged within 10 % at Δx = 0.02 and 0.01 m with the coupled step at most 1
/// ms, and at Δx = 0.02 m at PBF's own step (up to 1/240 s), where the explicit coupling (the body
/// outside the solve) threw a particle out of the tank at t = 1.74 s (1 ms) and 1.54 s (1/240 s); no
/// fluid particle inside the body or out of the tank.
#[test]
fn pbf_floats_a_light_body_by_archimedes_with_the_body_inside_its_solve() {
    floats_a_light_body_with_the_body_inside_the_solve(Solver::Pbf);
}

/// ρ_body = 0.5 ρ₀ floats half submerged within 10 % with `solver` (DFSPH or PBF, the body inside
/// its solve) at Δx = 0.02 and 0.01 m with the coupled step at most 1 ms, and at Δx = 0.02 m at the
/// solver's own step; [`archimedes_error`] checks that no particle entered the body or left the tank.
fn floats_a_light_body_with_the_body_inside_the_solve(solver: Solver) {
    for (spacing, dt_max) in [(0.02, 1e-3), (0.01, 1e-3), (0.02, f64::INFINITY)] {
        let run = settle_with_step(spacing, 0.5, solver, 4.0, dt_max);
        let error = archimedes_error(&run, 0.5);
        println!(
            "{solver:?} ρ_body = 0.5 ρ₀, Δx = {spacing} m, Δt ≤ {dt_max:.5} s: submerged fraction \
             {:.4} ({error:+.3}), {} steps",
            run.fraction, run.steps
        );
        assert!(error.abs() < 0.10, "{solver:?}: {}", run.fraction);
    }
}

/// The body's rigid modes carry the fluid's impulses with their total momentum and angular momentum
/// (about the centre of mass) to rounding, and leave impulses that already move the body rigidly as
/// they were.
#[test]
fn the_rigid_modes_keep_the_impulses_momentum_and_angular_momentum() {
    let (_, body) = tank(0.02, 0.5, Solver::Dfsph);
    let modes = body.rigid_modes();
    assert_eq!(modes.len(), 3);
    let masses = body.solid.masses();
    let c = body.centre();
    let x = &body.solid.positions;
    // Impulses on the bottom layer only, as the water under a landing body gives them.
    let bottom = x.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    let impulse: Vec<Vector> = x
        .iter()
        .map(|p| {
            if p.y < bottom + 1e-9 {
                Vector::new(0.3 * (p.x - c.x), 1.0 + p.x)
            } else {
                Vector::ZERO
            }
        })
        .collect();
    let spread = modes.spread(&impulse, masses);
    let total = |j: &[Vector]| j.iter().copied().sum::<Vector>();
    let moment =
        |j: &[Vector]| -> f64 { x.iter().zip(j).map(|(p, j)| (*p - c).perp_dot(*j)).sum() };
    let (p0, p1) = (total(&impulse), total(&spread));
    let (l0, l1) = (moment(&impulse), moment(&spread));
    println!("momentum {p0:?} → {p1:?}, angular momentum {l0} → {l1}");
    assert!((p1 - p0).length() < 1e-13 * p0.length(), "{p0:?} {p1:?}");
    assert!((l1 - l0).abs() < 1e-13 * p0.length(), "{l0} {l1}");
    // Spread: every particle's velocity change is the rigid motion V + ω ẑ × (x − c).
    let (v, omega) = (
        p0 / body.mass(),
        l0 / x
            .iter()
            .zip(masses)
            .map(|(p, m)| m * (*p - c).length_squared())
            .sum::<f64>(),
    );
    for ((j, p), m) in spread.iter().zip(x).zip(masses) {
        let rigid = v + omega * (*p - c).perp();
        assert!(
            (*j / *m - rigid).length() < 1e-12 * v.length(),
            "{j:?} {rigid:?}"
        );
    }
    let again = modes.spread(&spread, masses);
    for (a, b) in again.iter().zip(&spread) {
        assert!((*a - *b).length() < 1e-13 * p0.length());
    }
}

/// A body twice as dense as water sinks to the floor with every solver, in the closed tank (its fall
/// splashes water up to the lid, [`tank_with_lid`]): its lowest cell ends within one spacing of the
/// floor (a film of water at most one particle thick stays trapped under its flat bottom).
#[test]
fn a_heavy_body_sinks_to_the_floor() {
    for solver in Solver::ALL {
        // Each solver at the coupled step the page gives it (DFSPH and PBF their own).
        let dt_max = match solver {
            Solver::Wcsph => COUPLED_DT_MAX,
            Solver::Dfsph | Solver::Pbf => f64::INFINITY,
        };
        let (simulation, body) = tank_with_lid(0.02, 2.0, solver, true);
        let run = settle_from(simulation, body, 1.5, dt_max);
        println!(
            "{solver:?} ρ_body = 2 ρ₀: bottom at {:.4} m, {} steps, {} retried",
            run.bottom, run.steps, run.retries
        );
        assert_eq!((run.inside, run.outside), (0, 0), "{solver:?}");
        assert!(run.bottom < 0.02, "{solver:?}: {}", run.bottom);
    }
}

/// In free flight (no gravity, no walls) a blob of fluid at 0.5 m/s hits a body at rest: the pair
/// forces sum to zero, so the total momentum Σ m v of fluid and body stays what it was to rounding
/// (measured 5e-16 relative), with every solver; mass is unchanged bit for bit. (PBF's walls' hard
/// constraint moves its predicted positions, which become its velocities: until that push was booked
/// on the body, [`Fluid::keep_off_walls_predicted`], the momentum drifted 0.85 % in this run.)
#[test]
fn the_coupling_exchanges_momentum_exactly() {
    for solver in Solver::ALL {
        let dx = 0.02;
        let x: Vec<Vector> = (0..10)
            .flat_map(|j| {
                (0..10).map(move |i| Vector::new((i as f64 + 0.5) * dx, (j as f64 + 0.5) * dx))
            })
            .collect();
        let settings = FluidSettings {
            rest_density: 1000.0,
            spacing: dx,
            gravity: Vector::ZERO,
            xsph: 0.0,
        };
        // Two lone wall particles far from everything only stretch the neighbour grid over the flight.
        let corners = vec![Vector::new(-0.3, -0.3), Vector::new(1.0, 0.5)];
        let mut fluid = Fluid::new(x, corners, settings).expect("builds");
        fluid.v.iter_mut().for_each(|v| *v = Vector::new(0.5, 0.1));
        let mut simulation =
            FluidSimulation::new(fluid, solver, Wcsph::for_height(9.81, 0.2), 1e-3)
                .expect("builds");
        let block = Block {
            lower_left: Vector::new(0.24, 0.04),
            width: 0.1,
            height: 0.1,
            density: 500.0,
        };
        let container = (Vector::splat(-10.0), Vector::splat(10.0));
        let mut body = FloatingBody::new(&mut simulation, block, container).expect("builds");
        let momentum = |s: &FluidSimulation, b: &FloatingBody| {
            s.fluid.v.iter().map(|v| s.fluid.mass * *v).sum::<Vector>() + b.momentum()
        };
        let (p0, mass) = (
            momentum(&simulation, &body),
            simulation.fluid.total_mass() + body.mass(),
        );
        let mut pushed = Vector::ZERO;
        while simulation.fluid.time < 0.4 {
            body.step(&mut simulation).expect("no blow-up");
            pushed += body.fluid_force * simulation.last.dt;
        }
        let p1 = momentum(&simulation, &body);
        println!(
            "{solver:?}: momentum {p0:?} → {p1:?}; the body took {pushed:?} N s; body momentum {:?}",
            body.momentum()
        );
        assert!(
            body.momentum().x > 0.05 * p0.x,
            "the blob did not hit the body"
        );
        assert!((p1 - p0).length() < 1e-12 * p0.length(), "{p0:?} {p1:?}");
        assert_eq!(simulation.fluid.total_mass() + body.mass(), mass);
    }
}

/// Bad bodies are refused with the reason: a density that is not positive, a block of one particle,
/// one outside the tank or in the water.
#[test]
fn bad_bodies_are_refused_with_the_reason() {
    let (mut simulation, body) = tank(0.02, 0.5, Solver::Wcsph);
    let container = body.container;
    let good = body.block;
    let cases = [
        (
            Block {
                density: -1.0,
                ..good
            },
            "density",
        ),
        (
            Block {
                density: f64::NAN,
                ..good
            },
            "density",
        ),
        (
            Block {
                width: 0.01,
                ..good
            },
            "particles",
        ),
        (
            Block {
                lower_left: Vector::new(0.7, 0.3),
                ..good
            },
            "inside the tank",
        ),
        (
            Block {
                lower_left: Vector::new(0.24, 0.1),
                ..good
            },
            "overlaps the fluid",
        ),
    ];
    for (block, reason) in cases {
        let mut copy = simulation.clone();
        match FloatingBody::new(&mut copy, block, container) {
            Err(FluidError::BadInput(message)) => assert!(message.contains(reason), "{message}"),
            other => panic!("{block:?} not refused: {other:?}"),
        }
    }
    assert!(FloatingBody::new(&mut simulation, good, container).is_ok());
}

/// With a body in the fluid the walls' reactions are booked in the particles' order (those passes
/// stay on one thread), and the rest is split over threads: the coupled run is bit for bit the same
/// on 1 and 2 threads.
#[cfg(feature = "parallel")]
#[test]
fn the_coupled_run_is_bit_for_bit_the_same_on_any_number_of_threads() {
    let run = |solver: Solver, threads: usize| -> Vec<u64> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let (mut simulation, mut body) = tank(0.02, 0.5, solver);
            for _ in 0..100 {
                body.step(&mut simulation).expect("no blow-up");
            }
            let f = &simulation.fluid;
            f.x.iter()
                .chain(&f.v)
                .chain(&f.boundary.x)
                .flat_map(|v| [v.x, v.y])
                .map(f64::to_bits)
                .collect()
        })
    };
    for solver in Solver::ALL {
        assert_eq!(run(solver, 1), run(solver, 2), "{solver:?}");
    }
}

/// A body without modes in DFSPH's solves or PBF's (none with mass) moves nothing: the step runs as
/// with the walls alone (an empty mode list would otherwise index rows of no entries).
#[test]
fn a_solver_steps_with_a_body_without_modes_as_without_one() {
    for solver in [Solver::Dfsph, Solver::Pbf] {
        let (mut simulation, _) = tank(0.02, 0.5, solver);
        let mut plain = simulation.clone();
        let empty = Some(super::rigid_modes::RigidModes::default());
        match solver {
            Solver::Dfsph => simulation.dfsph.body = empty,
            _ => simulation.pbf.body = empty,
        }
        let with = simulation.step().expect("steps");
        let without = plain.step().expect("steps");
        assert!(simulation.dfsph.body.is_none() && simulation.pbf.body.is_none());
        assert_eq!(with.iterations, without.iterations, "{solver:?}");
        assert_eq!(simulation.fluid.x, plain.fluid.x, "{solver:?}");
    }
}
