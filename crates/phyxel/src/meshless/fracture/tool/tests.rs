use super::*;
use crate::meshless::fracture::scenes::{BarDescription, PulledBar};
use crate::meshless::fracture::slab::struck_slab;
use crate::meshless::fracture::FractureSettings;
use crate::meshless::material::Material;

/// The lattice spacing of the test bar (m).
const A: f64 = 0.05;

/// Jelly with σ_t = 2 kPa and c_prop = 2 m/s (the demo's defaults).
fn settings() -> FractureSettings {
    FractureSettings::new(2.0e3, 2.0).unwrap()
}

/// A 16 × 5 × 5 bar held by two layers at each end and stretched uniformly (no ramp) to `load` × σ_t:
/// every phyxel at u = s ⊙ (X − centre), the affine state the MLS gradient reproduces exactly.
fn held_bar(load: f64) -> PulledBar {
    PulledBar::new(BarDescription {
        cells: [16, 5, 5],
        spacing: A,
        support_factor: 2.2,
        material: Material::JELLY,
        fracture: settings(),
        load,
        ramp_time: 0.0,
        damping: 0.0,
        grip_layers: 2,
        notch_layers: 0,
    })
    .unwrap()
}

/// The current position of the reference point X in the bar's affine state.
fn current(bar: &PulledBar, x: DVec3) -> DVec3 {
    x + bar.stretch * (x - bar.centre)
}

/// The reference point of the current point x in the bar's affine state.
fn reference(bar: &PulledBar, x: DVec3) -> DVec3 {
    bar.centre + (x - bar.centre) / (DVec3::ONE + bar.stretch)
}

/// An oblique stroke seen from an eye off to the side and above: from above the bar to below it,
/// across it at the current position of the reference point (7.5 a, ·, 2 a) — between the lattice
/// layers 7 and 8, at mid-length.
fn stroke_across(bar: &PulledBar) -> (Stroke, [DVec3; 3]) {
    let at = |y: f64| current(bar, DVec3::new(7.5 * A, y, 2.0 * A));
    let eye = at(2.0 * A) + DVec3::new(0.4, 0.6, 2.5);
    let (top, bottom) = (at(1.0), at(-0.8));
    (
        Stroke {
            eye,
            start: top - eye,
            end: bottom - eye,
        },
        [eye, top, bottom],
    )
}

/// Cut through the middle of a bar held at half its strength: two fragments, one each side of the
/// cut's plane pulled back to the rest shape (found here from three points of the current plane, by
/// the bar's own affine map, not by the cut's); every pair whose rest segment crosses that plane has
/// weight exactly 0 and d_ij = 0 (visibility), every other pair keeps its weight; only phyxels within
/// h of the plane were refitted; the elastic energy did not rise (in this affine state the refitted
/// MLS gradients reproduce it exactly: U stays). Measured (printed): of 400 phyxels the wedge touched
/// 110 and the cut refitted 100, none released; U = 0.30397 J before and after.
#[test]
fn a_cut_through_the_middle_of_a_held_bar_separates_it_into_two_fragments() {
    let mut bar = held_bar(0.5);
    let (stroke, points) = stroke_across(&bar);
    // The plane through the rest images of the eye and the stroke's two points.
    let [e, p, q] = points.map(|x| reference(&bar, x));
    let uncut: Vec<f64> = {
        let f = bar.simulation.fracture.as_ref().unwrap();
        (0..bar.simulation.body.neighbours.neighbour.len())
            .map(|k| f.weight(k))
            .collect()
    };
    let sim = &mut bar.simulation;
    let fracture = sim.fracture.as_mut().unwrap();
    let report = fracture.cut(&mut sim.body, stroke).unwrap();
    println!("{report:?}");
    let body = &sim.body;
    let fracture = sim.fracture.as_ref().unwrap();
    let normal = (p - e).cross(q - e).normalize();
    assert!(
        report.normal.cross(normal).length() < 1e-9,
        "{} against {normal}",
        report.normal
    );
    let side = |x: DVec3| normal.dot(x - e);
    let hoods = &body.neighbours;
    let mut crossing = 0;
    for (k, &uncut) in uncut.iter().enumerate() {
        let (i, j) = (hoods.owner[k] as usize, hoods.neighbour[k] as usize);
        let (si, sj) = (side(body.reference[i]), side(body.reference[j]));
        assert!(si.abs() > 1e-6 && sj.abs() > 1e-6, "no phyxel on the plane");
        if (si > 0.0) != (sj > 0.0) {
            crossing += 1;
            assert_eq!(fracture.weight(k), 0.0, "edge {k} crosses the cut");
            assert_eq!(body.mls.d()[k], DVec3::ZERO, "edge {k} crosses the cut");
        } else {
            assert_eq!(fracture.weight(k), uncut, "edge {k} does not cross");
        }
    }
    assert!(crossing > 100, "{crossing} pairs cross");
    let (count, label) = fragments(body);
    assert_eq!(count, 2);
    assert_eq!(report.fragments, 2);
    for (i, &label) in label.iter().enumerate() {
        assert_eq!(
            label,
            u32::from(side(body.reference[i]) > 0.0) ^ u32::from(side(body.reference[0]) > 0.0),
            "phyxel {i}"
        );
    }
    let within_h = (0..body.len())
        .filter(|&i| side(body.reference[i]).abs() < body.support_radius[i])
        .count();
    assert!(
        report.refitted > 0 && report.refitted <= within_h,
        "{} refitted, {within_h} within h",
        report.refitted
    );
    assert!(report.energy_before > 0.0);
    assert!(
        report.energy_after <= report.energy_before,
        "U {} → {}",
        report.energy_before,
        report.energy_after
    );
    assert_eq!(report.energy_after, body.elastic_energy());
}

/// Cut while the held bar rings from a blow (a state far from affine, where refits change the MLS
/// gradients): no cut raises the elastic energy, and the kinetic energy it leaves alone. Cut at five
/// moments, each along a stroke a spacing farther along the bar. Measured (printed): U before and after
/// each cut and its refits.
#[test]
fn a_cut_never_raises_the_energy_of_a_ringing_bar() {
    let mut bar = held_bar(0.5);
    let fixed = bar.simulation.fixed.clone();
    let centre = bar.simulation.body.positions()[7 + 16 * 4 + 16 * 5 * 2];
    let body = &mut bar.simulation.body;
    strike(
        body,
        &fixed,
        centre,
        DVec3::new(0.2, -1.0, 0.4),
        1.0,
        2.5 * A,
    )
    .unwrap();
    let dt = bar.simulation.recommended_time_step();
    let mut lowered = 0;
    for cut in 0..5 {
        for _ in 0..40 {
            bar.step(dt).unwrap();
        }
        let (mut stroke, [eye, top, bottom]) = stroke_across(&bar);
        let along = DVec3::X * (A * (cut as f64 - 2.0));
        (stroke.start, stroke.end) = (top + along - eye, bottom + along - eye);
        let kinetic = bar.simulation.kinetic_energy();
        let sim = &mut bar.simulation;
        let fracture = sim.fracture.as_mut().unwrap();
        let report = fracture.cut(&mut sim.body, stroke).unwrap();
        println!(
            "cut {cut}: U {:.6e} → {:.6e} J, {} refitted, {} released",
            report.energy_before, report.energy_after, report.refitted, report.released
        );
        assert!(report.refitted > 0);
        assert!(
            report.energy_after <= report.energy_before,
            "cut {cut}: U {} → {}",
            report.energy_before,
            report.energy_after
        );
        lowered += usize::from(report.energy_after < report.energy_before);
        assert_eq!(sim.kinetic_energy(), kinetic);
    }
    assert!(lowered > 0, "some cut released energy");
}

/// After the cut each fragment may move rigidly on its own: turning and shifting each fragment's
/// current state by its own rigid motion turns its elastic forces with it (f_i → R f_i, MKN04's
/// energy depends on FᵀF only), the cut's rest corrections included — and the uncut bar, moved
/// alike, is torn (the control).
#[test]
fn each_fragment_of_a_cut_bar_keeps_rigid_motion_invariance() {
    let mut bar = held_bar(0.5);
    let mut uncut = bar.simulation.body.clone();
    let (stroke, _) = stroke_across(&bar);
    let sim = &mut bar.simulation;
    let fracture = sim.fracture.as_mut().unwrap();
    fracture.cut(&mut sim.body, stroke).unwrap();
    let body = &mut sim.body;
    let (_, label) = fragments(body);
    let forces = body.elastic_forces();
    let scale = forces.iter().map(|f| f.length()).fold(0.0, f64::max);
    assert!(scale > 0.0, "the held bar is stressed");
    let motions = [
        (
            DMat3::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7),
            DVec3::new(0.1, -0.2, 0.3),
        ),
        (
            DMat3::from_axis_angle(DVec3::new(-2.0, 1.0, 0.5).normalize(), -1.1),
            DVec3::new(-0.4, 0.1, 0.0),
        ),
    ];
    let moved = |body: &mut Body, label: &[u32]| {
        for i in 0..body.len() {
            let (r, t) = motions[label[i] as usize];
            let x = body.reference[i] + body.displacement[i];
            body.displacement[i] = r * x + t - body.reference[i];
        }
    };
    moved(body, &label);
    let turned = body.elastic_forces();
    for i in 0..body.len() {
        let (r, _) = motions[label[i] as usize];
        assert!(
            (turned[i] - r * forces[i]).length() < 1e-9 * scale,
            "phyxel {i}: {} against {}",
            turned[i],
            r * forces[i]
        );
    }
    let control = uncut.elastic_forces();
    moved(&mut uncut, &label);
    let torn = uncut
        .elastic_forces()
        .iter()
        .zip(&control)
        .map(|(f, c)| (*f - *c).length())
        .fold(0.0, f64::max);
    assert!(
        torn > scale,
        "the uncut bar resists: {torn} against {scale}"
    );
}

/// A stroke above the bar misses it: refused with the reason, and nothing changed — no crack, the
/// same MLS data and weights.
#[test]
fn a_cut_that_misses_the_body_changes_nothing_and_says_so() {
    let mut bar = held_bar(0.5);
    let (mut stroke, [eye, top, _]) = stroke_across(&bar);
    stroke.end = top - DVec3::Y * 0.5 - eye;
    let sim = &mut bar.simulation;
    let before = sim.body.clone();
    let fracture = sim.fracture.as_mut().unwrap();
    let cracks = fracture.cracks.len();
    let error = fracture.cut(&mut sim.body, stroke).unwrap_err();
    assert!(error.0.contains("misses the body"), "{error}");
    assert_eq!(fracture.cracks.len(), cracks);
    assert_eq!(fracture.recomputed_total, 0);
    assert_eq!(sim.body.mls.d(), before.mls.d());
    assert_eq!(sim.body.displacement, before.displacement);
}

/// Strokes that are no strokes are refused with a reason, changing nothing: no length (a click), a
/// NaN or infinite eye, a zero ray, end rays a right angle apart or more.
#[test]
fn bad_strokes_are_refused_with_a_reason() {
    let mut bar = held_bar(0.5);
    let (good, _) = stroke_across(&bar);
    let cases = [
        (
            Stroke {
                end: good.start * 2.0,
                ..good
            },
            "no length",
        ),
        (
            Stroke {
                eye: DVec3::new(f64::NAN, 0.0, 0.0),
                ..good
            },
            "finite",
        ),
        (
            Stroke {
                start: DVec3::new(0.0, f64::INFINITY, 0.0),
                ..good
            },
            "finite",
        ),
        (
            Stroke {
                start: DVec3::ZERO,
                ..good
            },
            "zero",
        ),
        (
            Stroke {
                end: -good.start,
                ..good
            },
            "right angle",
        ),
    ];
    let sim = &mut bar.simulation;
    let fracture = sim.fracture.as_mut().unwrap();
    for (stroke, reason) in cases {
        let error = fracture.cut(&mut sim.body, stroke).unwrap_err();
        assert!(error.0.contains(reason), "{stroke:?}: {error}");
    }
    assert!(fracture.cracks.is_empty());
    assert_eq!(fracture.recomputed_total, 0);
}

/// The momentum a strike adds is the impulse it reports, Σ m_i Δv, to rounding; held phyxels are not
/// struck; a bad strike (zero direction, non-positive speed, NaN point, a point off the body) is
/// refused and moves nothing. Measured (printed): the relative error of the momentum change.
#[test]
fn a_strike_adds_exactly_the_impulse_it_reports() {
    let mut bar = held_bar(0.5);
    let body = &mut bar.simulation.body;
    let fixed = bar.simulation.fixed.clone();
    let momentum = |body: &Body| -> DVec3 {
        body.velocity
            .iter()
            .zip(&body.mass)
            .map(|(v, m)| *m * *v)
            .sum()
    };
    let before = momentum(body);
    let centre = body.positions()[2 + 16 * 4 + 16 * 5 * 2];
    let direction = DVec3::new(0.3, -1.0, 0.2);
    let report = strike(body, &fixed, centre, direction, 3.0, 2.5 * A).unwrap();
    let gained = momentum(body) - before;
    let error = (gained - report.impulse).length() / report.impulse.length();
    println!("{report:?}, momentum error {error:e}");
    assert!(error < 1e-14, "{gained} against {}", report.impulse);
    assert!(
        (report.impulse - report.mass * 3.0 * direction.normalize()).length()
            < 1e-14 * report.impulse.length()
    );
    assert!(report.struck > 1, "{report:?}");
    let struck_held = (0..body.len()).filter(|&i| fixed[i] && body.velocity[i] != DVec3::ZERO);
    assert_eq!(struck_held.count(), 0, "held phyxels are not struck");
    let velocities = body.velocity.clone();
    for (c, d, s, reason) in [
        (centre, DVec3::ZERO, 3.0, "zero"),
        (centre, direction, 0.0, "positive"),
        (centre, direction, f64::NAN, "positive"),
        (DVec3::NAN, direction, 3.0, "finite"),
        (centre + DVec3::Y, direction, 3.0, "no free phyxel"),
    ] {
        let error = strike(body, &fixed, c, d, s, 2.5 * A).unwrap_err();
        assert!(error.0.contains(reason), "{error}");
    }
    assert_eq!(body.velocity, velocities);
}

/// Struck on its top face (off the ball's axis, the ball at rest above the centre) the demo's slab
/// cracks by its own criterion when struck hard, and not when struck gently: a blow of `speed` on the
/// phyxels within two spacings, then 0.15 s of steps. Measured (printed): the first crack's step.
fn strike_the_slab(speed: f64) -> usize {
    let mut slab = struck_slab(5, Material::JELLY, settings(), 0.0, 0.5).unwrap();
    let a = slab.spacing;
    let centre = DVec3::new(6.0 * a, slab.top(), 6.0 * a);
    let fixed = slab.simulation.fixed.clone();
    strike(
        &mut slab.simulation.body,
        &fixed,
        centre,
        -DVec3::Y,
        speed,
        2.0 * a,
    )
    .unwrap();
    let dt = slab.simulation.recommended_time_step();
    let mut first = None;
    while slab.simulation.time < 0.15 {
        slab.step(dt).unwrap();
        let fracture = slab.simulation.fracture.as_ref().unwrap();
        if first.is_none() && !fracture.events.is_empty() {
            first = Some(slab.simulation.time);
        }
    }
    let cracks = slab.simulation.fracture.as_ref().unwrap().cracks.len();
    println!("struck at {speed} m/s: {cracks} cracks, the first at t = {first:?} s");
    cracks
}

#[test]
fn a_strong_strike_cracks_the_slab_and_a_weak_one_does_not() {
    assert!(strike_the_slab(4.0) > 0, "a strong strike cracks");
    assert_eq!(strike_the_slab(0.1), 0, "a weak strike does not");
}
