//! The pointer's cut and strike in the demo's fracture scenes, as the page sends them.

use super::*;

/// A fracture scene as the page builds it (10 across: the bar 24 × 5 × 5, the slab 20 × 3 × 20), the
/// grips' load `load` × σ_t.
fn scene(name: &str, load: f64) -> Demo {
    let mut demo = Demo::new(name, 10, false, 1e5, 0.3, 1000.0, 5e4, false).unwrap();
    demo.set_fracture(
        STRENGTH.default,
        C_PROP.default,
        "visibility",
        KAPPA.default,
        OMEGA_MIN.default,
        load,
        BALL_SPEED.default,
    )
    .unwrap();
    demo.set_damping_and_friction(DAMPING.default, FRICTION.default)
        .unwrap();
    demo
}

/// An eye 2 m in front of the bar and a stroke down across it at x = `x` (the bar spans y and z from
/// 0 to 0.2 m): [eye, first ray, last ray].
fn stroke_at(x: f64) -> [Vec<f64>; 3] {
    let eye = [x, 0.1, 2.0];
    let ray = |y: f64| vec![0.0, y - eye[1], 0.1 - eye[2]];
    [eye.to_vec(), ray(0.5), ray(-0.3)]
}

/// The bar, pulled at a fifth of its strength (it does not crack), cut across between a grip and the
/// notch while it runs: two fragments in the readouts; the page's copy, given the state, shows them,
/// and a second cut there (its body first cut alike from the state's cracks) cuts as the worker's does.
/// Measured (printed): what the cut did.
#[test]
fn a_stroke_across_the_running_bar_cuts_it_in_two() {
    let (mut worker, mut page) = (scene(NOTCHED_BAR, 0.2), scene(NOTCHED_BAR, 0.2));
    let dt = 0.1 * worker.cfl_time_step();
    worker.step(dt, 300).unwrap();
    assert_eq!(worker.fracture_readouts()[2], 1.0, "one piece before");
    let [eye, start, end] = stroke_at(0.3);
    let report = worker.cut(&eye, &start, &end).unwrap();
    println!("cut: {report:?}");
    let [touched, refitted, _, fragments, free, before, after] = report[..] else {
        panic!("{report:?}")
    };
    assert!(touched > 0.0 && refitted > 0.0 && refitted <= 2.0 * 25.0 * 3.0);
    assert_eq!((fragments, free), (2.0, 0.0));
    assert!(after <= before, "U {before} → {after}");
    assert_eq!(worker.fracture_readouts()[..3], [2.0, 0.0, 2.0]);
    worker.step(dt, 100).unwrap();
    assert_eq!(worker.fracture_readouts()[2], 2.0, "still two");
    page.restore(worker.snapshot(false)).unwrap();
    assert_eq!(page.fracture_readouts()[2], 2.0, "the page shows them");
    let [eye, start, end] = stroke_at(0.8);
    let (here, there) = (
        page.cut(&eye, &start, &end).unwrap(),
        worker.cut(&eye, &start, &end).unwrap(),
    );
    assert_eq!(here, there, "the copy cut as the worker did");
    assert_eq!(page.fracture_readouts()[2], 3.0, "three pieces");
}

/// Bad strokes and strikes are refused with the reason, changing nothing: a stroke that misses the
/// bar, one of no length, a ray of two numbers, a strike beside the body, a strike speed out of the
/// table's range; and the cube takes neither tool.
#[test]
fn the_tools_refuse_what_they_cannot_do_with_the_reason() {
    let mut bar = scene(NOTCHED_BAR, 0.2);
    let [eye, start, _] = stroke_at(0.3);
    let above = vec![0.0, 0.3, 0.1 - 2.0];
    let cases = [
        (bar.cut(&eye, &start, &above), "misses the body"),
        (bar.cut(&eye, &start, &start), "no length"),
        (bar.cut(&eye, &[0.0, 1.0], &above), "three finite numbers"),
        (
            bar.strike(&[0.3, 2.0, 0.1], &[0.0, 1.0, 0.0], 2.0),
            "meets no phyxel",
        ),
        (
            bar.strike(&[0.3, 1.0, 0.1], &[0.0, -1.0, 0.0], 0.0),
            "strike speed",
        ),
    ];
    for (result, reason) in cases {
        let error = result.unwrap_err();
        assert!(error.0.contains(reason), "{error} (wanted “{reason}”)");
    }
    assert_eq!(bar.fracture_readouts()[0], 1.0, "the notch alone");
    assert!(bar.sim.body.velocity.iter().all(|v| *v == DVec3::ZERO));
    let mut cube = Demo::<CpuOnly>::new("cube", 6, false, 1e5, 0.3, 1000.0, 5e4, false).unwrap();
    let [eye, start, end] = stroke_at(0.2);
    assert!(cube.cut(&eye, &start, &end).unwrap_err().0.contains("only"));
    assert!(cube
        .strike(&eye, &start, 2.0)
        .unwrap_err()
        .0
        .contains("only"));
}

/// A strike from above on the slab: the momentum it adds is the impulse it reports, to rounding, and
/// at the table's default speed the slab cracks where it was hit. Measured (printed): the report and
/// the momentum's relative error.
#[test]
fn a_strike_on_the_slab_adds_its_impulse_and_cracks_it() {
    let mut slab = scene(STRUCK_SLAB, LOAD.default);
    let momentum = |demo: &Demo| -> DVec3 {
        let body = &demo.sim.body;
        body.velocity
            .iter()
            .zip(&body.mass)
            .map(|(v, m)| *m * *v)
            .sum()
    };
    let before = momentum(&slab);
    let report = slab
        .strike(&[0.25, 2.0, 0.3], &[0.0, -1.0, 0.0], STRIKE_SPEED.default)
        .unwrap();
    let impulse = DVec3::new(report[2], report[3], report[4]);
    let error = (momentum(&slab) - before - impulse).length() / impulse.length();
    println!("strike: {report:?}, momentum error {error:e}");
    assert!(error < 1e-14);
    assert!(report[0] >= 1.0 && impulse.y < 0.0);
    let dt = 0.1 * slab.cfl_time_step();
    slab.step(dt, 200).unwrap();
    assert!(slab.fracture_readouts()[0] > 0.0, "cracked");
}
