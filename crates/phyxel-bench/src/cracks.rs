//! `phyxel-bench cracks [--steps S]`: the cracks lesson's notched plate at the page's defaults
//! (32 × 32 particles, transparency, σ_t = 2.5 kPa, c_prop = 2 m/s, the grips pulled apart at 0.01 m/s)
//! stepped S times while it cracks, against the same plate uncut (no notch, fracture off) for the same
//! steps: the cost of a step with active cracks — crack growth, re-weighting, the refits and rest
//! corrections — against the plain elastic step (issue 18's bench). One JSON object.

use phyxel::lessons::cracks::crack::Criterion;
use phyxel::lessons::cracks::solid::Solid;
use phyxel::lessons::cracks::{notched_plate, param, plate_dt, plate_material, uncut_plate};
use serde::Serialize;
use std::time::Instant;

#[derive(Serialize)]
pub struct CracksReport {
    scene: &'static str,
    particles: usize,
    steps: usize,
    /// Steps per second of the plate while it cracks, and of the same plate uncut.
    cracking_steps_per_s: f64,
    uncut_steps_per_s: f64,
    /// Cost of a cracking step over an uncut one.
    cost_ratio: f64,
    crack_events: usize,
    cracks: usize,
    /// Moment matrices recomputed over the run (only the particles whose weights changed).
    moment_matrices_recomputed: usize,
    isolated_particles: usize,
}

/// Steps per second of `solid` over `steps` steps of `dt`.
fn rate(solid: &mut Solid, steps: usize, dt: f64) -> f64 {
    let start = Instant::now();
    for _ in 0..steps {
        solid.step(dt);
    }
    steps as f64 / start.elapsed().as_secs_f64()
}

pub fn run(steps: usize) -> CracksReport {
    let material = plate_material(param::STRENGTH.default, param::C_PROP.default);
    let dt = plate_dt(&material);
    let criterion = Criterion::Transparency {
        kappa: param::KAPPA.default,
    };
    let mut cracking = notched_plate(material, criterion, param::PULL.default);
    let mut uncut = uncut_plate(material, criterion, param::PULL.default);
    let cracking_rate = rate(&mut cracking, steps, dt);
    let uncut_rate = rate(&mut uncut, steps, dt);
    CracksReport {
        scene: "cracks",
        particles: cracking.len(),
        steps,
        cracking_steps_per_s: cracking_rate,
        uncut_steps_per_s: uncut_rate,
        cost_ratio: uncut_rate / cracking_rate,
        crack_events: cracking.events.len(),
        cracks: cracking.cracks.len(),
        moment_matrices_recomputed: cracking.recomputed_total,
        isolated_particles: cracking.isolated(),
    }
}
