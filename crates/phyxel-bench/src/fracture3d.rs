//! `phyxel-bench fracture3d [--across R,…] [--threads N]`: the 3D demo's fracture scenes as
//! the page runs them (`phyxel_app::Demo`: "notched-bar" and "struck-slab" at resolution R, the
//! parameter table's fracture defaults — σ_t = 2 kPa, c_prop = 2 m/s, visibility — its damping and
//! friction, symplectic Euler at the page's automatic Δt, 0.1 h√(ρ/E)), each timed over the half
//! second in which it cracks ([`WINDOW`]: the bar's notch opens under the grips' ramp, the ball
//! strikes the slab at 0.5 s) after stepping untimed to its start, against the same scene with a strength no load reaches (10⁹ Pa, the bar's
//! grips pulling as hard: the fracture bookkeeping runs, no crack grows) for the same steps: the cost of a step with active
//! cracks — crack growth, the visibility tests, the refits — against the uncut step (issue 18's
//! bench, in 3D). One JSON object per scene and resolution. Issue 18's target: ≥ 5 000 phyxels at
//! ≥ 60 steps/s on the browser's CPU worker (2 threads), cracks included.

use phyxel_app::parameters::{
    BALL_SPEED, C_PROP, DAMPING, DENSITY, FRICTION, KAPPA, LOAD, OMEGA_MIN, POISSON, STRENGTH,
    VOLUME_STIFFNESS, YOUNG,
};
use phyxel_app::Demo;
use serde::Serialize;
use std::time::Instant;

/// The strength of the uncut run (Pa): above any stress the scenes reach (the slab's peak is 18 σ_t).
const UNREACHED_STRENGTH: f64 = 1e9;

/// The simulated time (s) over which the steps are timed: at the default settings the bar's first
/// crack grows from the notch at about 0.46 s and it parts by 0.6 s; the ball (`slab::LEAD_TIME`
/// 0.5 s above the slab) strikes at 0.5 s and the slab breaks by 0.85 s.
const WINDOW: (f64, f64) = (0.45, 0.95);

#[derive(Serialize)]
pub struct Fracture3dReport {
    scene: &'static str,
    resolution: u32,
    phyxels: usize,
    threads: usize,
    /// Steps timed, over [`WINDOW`].
    steps: usize,
    dt: f64,
    /// Simulated time at the end of the run (s).
    simulated_s: f64,
    cracking_steps_per_s: f64,
    uncut_steps_per_s: f64,
    /// Cost of a cracking step over an uncut one.
    cost_ratio: f64,
    /// The CPU time of all the process's threads per step (ms; Linux only), cracking and uncut: what
    /// a machine shared with other work inflates less than the wall clock.
    cracking_cpu_ms_per_step: Option<f64>,
    uncut_cpu_ms_per_step: Option<f64>,
    /// The cracking run's readouts at its end: cracks, fragments, free particles.
    cracks: f64,
    fragments: f64,
    free_particles: f64,
    /// What the worker does per state it sends, at the end of the cracking run (ms): the state
    /// ([`Demo::snapshot`]: its cracks, fragments and every phyxel's σ₁/σ_t), and what the page
    /// does per frame with the surface shown ([`Demo::frame`]: the cell faces split along the
    /// cracks), on a copy given that state.
    state_ms: f64,
    surface_frame_ms: f64,
    /// The surface's cell faces at the end, and of them on cracks.
    faces: f64,
    crack_faces: f64,
}

/// The mean time (ms) of `repeats` calls of `f`.
fn mean_ms(repeats: u32, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..repeats {
        f();
    }
    start.elapsed().as_secs_f64() * 1e3 / f64::from(repeats)
}

/// The page's demo of `scene` at `resolution` with the table's defaults and strength `strength`; the
/// bar's grips pull to the table's load × its default strength whatever `strength` is (the load is
/// a fraction of σ_t).
fn demo(scene: &str, resolution: u32, strength: f64) -> Result<Demo, String> {
    let mut demo = Demo::new(
        scene,
        resolution,
        false,
        YOUNG.default,
        POISSON.default,
        DENSITY.default,
        VOLUME_STIFFNESS.default,
        false,
    )
    .map_err(|e| e.0)?;
    demo.set_fracture(
        strength,
        C_PROP.default,
        "visibility",
        KAPPA.default,
        OMEGA_MIN.default,
        LOAD.default * STRENGTH.default / strength,
        BALL_SPEED.default,
    )
    .map_err(|e| e.0)?;
    demo.set_damping_and_friction(DAMPING.default, FRICTION.default)
        .map_err(|e| e.0)?;
    demo.set_integrator("symplectic-euler").map_err(|e| e.0)?;
    Ok(demo)
}

/// `batches` batches of 10 steps of `dt` (a frame's worth each).
fn advance(demo: &mut Demo, batches: usize, dt: f64) -> Result<(), String> {
    for _ in 0..batches {
        if !demo.step(dt, 10).map_err(|e| e.0)? {
            return Err(demo.error().unwrap_or_default());
        }
    }
    Ok(())
}

/// Steps per second of `demo` over [`WINDOW`] at `dt` (stepped untimed to its start), the steps
/// timed, and the CPU time per step (ms) of all the process's threads over them.
fn rate(demo: &mut Demo, dt: f64) -> Result<(f64, usize, Option<f64>), String> {
    advance(demo, (WINDOW.0 / (10.0 * dt)) as usize, dt)?;
    let batches = ((WINDOW.1 - WINDOW.0) / (10.0 * dt)).ceil() as usize;
    let (start, cpu_start) = (Instant::now(), crate::cpu_time::cpu_seconds());
    advance(demo, batches, dt)?;
    let steps = 10 * batches;
    let cpu_ms = cpu_start
        .zip(crate::cpu_time::cpu_seconds())
        .map(|(start, end)| (end - start) * 1e3 / steps as f64);
    Ok((steps as f64 / start.elapsed().as_secs_f64(), steps, cpu_ms))
}

/// The two scenes at each resolution of `resolutions`, on the current pool.
pub fn run(resolutions: &[usize]) -> Result<Vec<Fracture3dReport>, String> {
    let mut reports = Vec::new();
    for scene in [phyxel_app::demo::NOTCHED_BAR, phyxel_app::demo::STRUCK_SLAB] {
        for &resolution in resolutions {
            let resolution = resolution as u32;
            let mut cracking = demo(scene, resolution, STRENGTH.default)?;
            let mut uncut = demo(scene, resolution, UNREACHED_STRENGTH)?;
            let dt = 0.1 * cracking.cfl_time_step();
            let (cracking_rate, steps, cracking_cpu_ms) = rate(&mut cracking, dt)?;
            let (uncut_rate, _, uncut_cpu_ms) = rate(&mut uncut, dt)?;
            let readouts = cracking.fracture_readouts();
            let state_ms = mean_ms(20, || {
                cracking.snapshot(false);
            });
            let mut page = demo(scene, resolution, STRENGTH.default)?;
            page.restore(cracking.snapshot(false)).map_err(|e| e.0)?;
            let surface_frame_ms = mean_ms(20, || {
                page.frame("fragment", true, true)
                    .expect("the fracture colouring");
            });
            let faces = page.surface_faces();
            reports.push(Fracture3dReport {
                scene,
                resolution,
                phyxels: cracking.phyxel_count(),
                threads: phyxel::parallel::thread_count(),
                steps,
                dt,
                simulated_s: cracking.time(),
                cracking_steps_per_s: cracking_rate,
                uncut_steps_per_s: uncut_rate,
                cost_ratio: uncut_rate / cracking_rate,
                cracking_cpu_ms_per_step: cracking_cpu_ms,
                uncut_cpu_ms_per_step: uncut_cpu_ms,
                cracks: readouts[0],
                fragments: readouts[2],
                free_particles: readouts[3],
                state_ms,
                surface_frame_ms,
                faces: faces[0],
                crack_faces: faces[1],
            });
        }
    }
    Ok(reports)
}
