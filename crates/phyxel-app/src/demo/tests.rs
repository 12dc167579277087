//! The demo's CPU solver as the page drives it.

use super::*;

/// The demo without an accelerator, as the solver worker builds it.
type PhyxelDemo = Demo;

/// The vertical extent of the body (m).
fn height_of(demo: &PhyxelDemo) -> f64 {
    let ys: Vec<f64> = demo
        .positions()
        .chunks(3)
        .map(|p| f64::from(p[1]))
        .collect();
    ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - ys.iter().cloned().fold(f64::INFINITY, f64::min)
}

#[test]
fn implicit_euler_lands_a_stiff_cube_at_60_hz_where_the_explicit_step_is_stopped() {
    // E = 1 GPa: the explicit bound h√(ρ/E) is about 0.1 ms, 170 times shorter than 1/60 s.
    let mut demo = PhyxelDemo::new("cube", 6, false, 1e9, 0.3, 1000.0, 0.0, false).unwrap();
    let edge = height_of(&demo);
    assert!(demo.cfl_time_step() < 1e-3);
    demo.set_implicit_solver(1e-5, 300).unwrap();
    demo.set_integrator("implicit-euler").unwrap();
    assert!(demo.is_implicit());
    assert_eq!(demo.cg_iterations(), -1.0, "no solve yet");
    for _ in 0..90 {
        assert!(demo.step(1.0 / 60.0, 1).unwrap(), "{:?}", demo.error());
    }
    assert!(demo.cg_iterations() > 0.0 && demo.cg_iterations() <= 300.0);
    assert!(
        demo.cg_residual() <= 1e-5,
        "residual {}",
        demo.cg_residual()
    );
    let lowest = demo
        .positions()
        .chunks(3)
        .map(|p| p[1])
        .fold(f32::INFINITY, f32::min);
    assert!(
        lowest.abs() < 1e-3,
        "rests on the ground: lowest phyxel at {lowest} m"
    );
    assert!(
        (height_of(&demo) / edge - 1.0).abs() < 0.01,
        "a stiff elastic cube keeps its shape: {} of {edge} m",
        height_of(&demo)
    );
    // The same material explicitly at 1/60 s: stopped, the bound named.
    demo.set_integrator("symplectic-euler").unwrap();
    assert!(!demo.is_implicit());
    assert!(!demo.step(1.0 / 60.0, 5).unwrap());
    assert!(demo.error().unwrap().contains("stability bound"));
}

#[test]
fn the_pages_copy_follows_the_workers_demo_through_snapshots() {
    // The worker's demo and the page's copy, built alike (web/js/lessons/phyxels.js).
    let build = || {
        let mut demo = PhyxelDemo::new("torus", 8, false, 1e5, 0.3, 1000.0, 5e4, false).unwrap();
        demo.set_plasticity(true, 0.01, 50.0, 0.5).unwrap();
        demo
    };
    let (mut worker, mut page) = (build(), build());
    let dt = worker.recommended_time_step();
    for _ in 0..6 {
        assert!(worker.step(dt, 100).unwrap());
        let with_reference = worker.reference_updates() != page.reference_updates();
        page.restore(worker.snapshot(with_reference)).unwrap();
        assert_eq!(page.positions(), worker.positions());
        assert_eq!(page.steps(), worker.steps());
        assert_eq!(page.time(), worker.time());
        let (a, b) = (
            page.frame_data("plastic").unwrap(),
            worker.frame_data("plastic").unwrap(),
        );
        assert_eq!(a.phyxels, b.phyxels);
        assert_eq!(
            a.surface_vertices, b.surface_vertices,
            "the surface follows too"
        );
    }
    assert!(
        worker.reference_updates() > 0,
        "the landing moved the rest shape"
    );
    // (A state of another scene is refused: phyxel's snapshot tests; JsError exists in wasm only.)
}

#[test]
fn releasing_the_heat_tool_switches_the_heat_source_off() {
    // The page ends a heat drag with a rate of 0, which must be accepted: a refusal would leave the
    // page's pointer action (and the heating) on after the button is released.
    let mut demo = PhyxelDemo::new("cube", 5, false, 1e5, 0.3, 1000.0, 5e4, false).unwrap();
    demo.set_heat_source(0.0, 0.2, 0.0, 0.12, 300.0).unwrap();
    assert!(demo.sim.melting.as_ref().unwrap().heat_source.is_some());
    demo.set_heat_source(0.0, 0.0, 0.0, 0.12, 0.0).unwrap();
    assert!(demo.sim.melting.as_ref().unwrap().heat_source.is_none());
    assert!(demo.set_heat_source(0.0, 0.0, 0.0, 0.12, -1.0).is_err());
}

#[test]
fn a_fine_bunny_is_refused_from_its_volume_before_it_is_sampled_the_limit_named() {
    use phyxel::meshless::sampling::Lattice;
    use phyxel::meshless::scene::{Objects, SceneDescription};
    // The estimate (volume / cell volume) agrees with the sampled count within 5 % where both are
    // known, so that refusing on it refuses what sampling would have refused.
    for (objects, resolution) in [
        (Objects::Bunny, 12),
        (Objects::Bunny, 20),
        (Objects::Several, 10),
    ] {
        let description = SceneDescription {
            objects,
            resolution,
            lattice: Lattice::Cubic,
            ..SceneDescription::default()
        };
        let sampled = description
            .build(MAX_CPU_PHYXELS)
            .unwrap()
            .simulation
            .body
            .len() as f64;
        let estimate = description.estimated_phyxels();
        assert!(
            (estimate / sampled - 1.0).abs() < 0.05,
            "{objects:?} at {resolution}: estimate {estimate}, sampled {sampled}"
        );
    }
    // Sampling the bunny at 60 across (BCC: about 180 000 phyxels) would take many seconds on the
    // page's thread; the refusal comes from its volume at once and names the cap.
    let start = std::time::Instant::now();
    let refusal = match PhyxelDemo::new("bunny", 60, true, 3e4, 0.3, 1000.0, 0.0, false) {
        Err(error) => error.to_string(),
        Ok(_) => panic!("a 60-across BCC bunny was built"),
    };
    let elapsed = start.elapsed().as_secs_f64();
    assert!(
        refusal
            .contains("phyxels are more than this backend handles (60000): lower the resolution"),
        "{refusal}"
    );
    assert!(
        elapsed < 0.5,
        "the refusal took {elapsed} s: it was sampled first"
    );
}
