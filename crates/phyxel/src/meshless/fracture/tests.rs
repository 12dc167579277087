use super::crack::{Crack, OutlineVertex};
use super::scenes::{BarDescription, PulledBar};
use super::*;
use crate::meshless::kernel::poly6;
use crate::meshless::material::Material;
use glam::{DMat3, DVec3};

/// Jelly with σ_t = 2 kPa (a strain of about 2 %) and c_prop = 2 m/s.
fn settings() -> FractureSettings {
    FractureSettings::new(2.0e3, 2.0).unwrap()
}

/// The transparency method's κ in the tests (the 2D lesson's).
const KAPPA: f64 = 0.5;

/// `bar` with the weights under `criterion` (re-applied to its notch).
fn under(mut b: PulledBar, criterion: Criterion) -> PulledBar {
    let fracture = b.simulation.fracture.as_mut().unwrap();
    fracture.settings.criterion = criterion;
    fracture.reapply(&mut b.simulation.body);
    b
}

const CRITERIA: [Criterion; 2] = [
    Criterion::Visibility,
    Criterion::Transparency { kappa: KAPPA },
];

fn bar(
    cells: [usize; 3],
    grip_layers: usize,
    load: f64,
    ramp_time: f64,
    damping: f64,
    notch_layers: usize,
) -> PulledBar {
    PulledBar::new(BarDescription {
        cells,
        grip_layers,
        spacing: 0.05,
        support_factor: 2.2,
        material: Material::JELLY,
        fracture: settings(),
        load,
        ramp_time,
        damping,
        notch_layers,
    })
    .unwrap()
}

/// The lattice spacing of the test bars (m).
const A: f64 = 0.05;

/// A square crack in the plane x = `x`, centred on the bar's axis (y = z = 2a), of half-width `half`,
/// with no front.
fn square_crack(x: f64, half: f64) -> Crack {
    let centre = DVec3::new(x, 2.0 * A, 2.0 * A);
    let mut crack = Crack::in_plane(centre, DVec3::X);
    for (dy, dz) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
        let position = crack.plane_coordinates(centre + DVec3::new(0.0, dy, dz) * half);
        crack.push_vertex(OutlineVertex {
            position,
            direction: position.normalize(),
            is_front: false,
        });
    }
    crack
}

#[test]
fn settings_refuse_a_non_positive_strength_or_propagation_speed() {
    for strength in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let error = FractureSettings::new(strength, 1.0).unwrap_err();
        assert!(error.0.contains("strength"), "{error}");
    }
    for c_prop in [0.0, -2.0, f64::NAN] {
        let error = FractureSettings::new(1.0, c_prop).unwrap_err();
        assert!(error.0.contains("c_prop"), "{error}");
    }
    assert!(FractureSettings::new(1.0, 1.0).is_ok());
    for kappa in [0.0, -0.5, f64::NAN] {
        let error = settings().with_transparency(kappa).unwrap_err();
        assert!(error.0.contains("κ"), "{error}");
    }
    // The corotated model is not cut: refused with the reason.
    let mut b = bar([6, 3, 3], 1, 0.0, 0.0, 0.0, 0);
    b.simulation.fracture = None;
    b.simulation.elasticity = crate::meshless::simulation::Elasticity::CorotatedLinear;
    let error = b.simulation.enable_fracture(settings()).unwrap_err();
    assert!(error.0.contains("corotated"), "{error}");
}

#[test]
fn visibility_cuts_exactly_the_pairs_whose_segment_crosses_a_crack() {
    let mut b = bar([12, 5, 5], 1, 0.0, 0.0, 0.0, 0);
    // A square inside the section, in the plane x = 5.5a between two lattice layers.
    let (x0, half) = (5.5 * A, 1.3 * A);
    let body = &mut b.simulation.body;
    let fracture = b.simulation.fracture.as_mut().unwrap();
    fracture.add_crack(body, square_crack(x0, half));
    let hoods = &body.neighbours;
    let mut cut_phyxels = vec![false; body.len()];
    let mut cut = 0;
    for k in 0..hoods.neighbour.len() {
        let (i, j) = (hoods.owner[k] as usize, hoods.neighbour[k] as usize);
        let (p, q) = (body.reference[i], body.reference[j]);
        // The segment meets the plane x = x0 between its ends at a point inside the square.
        let t = (x0 - p.x) / (q.x - p.x);
        let m = p + (q - p) * t;
        let crosses = (p.x - x0) * (q.x - x0) < 0.0
            && (m.y - 2.0 * A).abs() < half
            && (m.z - 2.0 * A).abs() < half;
        if crosses {
            cut += 1;
            cut_phyxels[i] = true;
            assert_eq!(fracture.weight(k), 0.0, "edge {i} → {j}");
            assert_eq!(body.mls.d()[k], DVec3::ZERO, "edge {i} → {j}");
        } else {
            let uncut = poly6(p.distance(q), body.support_radius[i]);
            assert_eq!(fracture.weight(k), uncut, "edge {i} → {j}");
        }
    }
    assert!(cut > 100, "{cut} edges cut");
    // Only the phyxels that lost a neighbour were refitted.
    let refitted = cut_phyxels.iter().filter(|&&c| c).count();
    assert_eq!(fracture.recomputed_total, refitted);
    assert!(refitted < body.len() / 2, "{refitted} of {}", body.len());
    // MLS reproduces linear fields on whatever neighbours it keeps (MKN04 eq. 8): Σ_j d_ij X_ijᵀ = I
    // for every refitted phyxel (none released here: a crack face is no stiffer than a free face),
    // for every refitted phyxel that was not released as too stiff.
    assert_eq!(fracture.released, 0);
    for i in (0..body.len()).filter(|&i| cut_phyxels[i]) {
        assert_eq!(body.mls.rank[i], 3, "phyxel {i}");
        let consistency = hoods.edges(i).fold(DMat3::ZERO, |m, k| {
            let x_ij = body.reference[hoods.neighbour[k] as usize] - body.reference[i];
            m + crate::meshless::mls::outer(body.mls.d()[k], x_ij)
        });
        assert!(
            consistency.abs_diff_eq(DMat3::IDENTITY, 1e-9),
            "phyxel {i}: {consistency}"
        );
    }
}

/// Deterministic pseudo-random numbers in [−1, 1).
fn noise(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    2.0 * ((*seed >> 11) as f64 / (1u64 << 53) as f64) - 1.0
}

#[test]
fn fully_separated_fragments_exert_no_force_on_each_other_and_keep_rigid_motion_invariance() {
    let mut b = bar([12, 5, 5], 1, 0.0, 0.0, 0.0, 0);
    let x0 = 5.5 * A;
    let mut uncut = b.simulation.body.clone();
    let body = &mut b.simulation.body;
    let fracture = b.simulation.fracture.as_mut().unwrap();
    // A square far wider than the section: it cuts the bar in two.
    fracture.add_crack(body, square_crack(x0, 10.0 * A));
    assert!(body.mls.rank.iter().all(|&r| r == 3));
    let left: Vec<bool> = body.reference.iter().map(|x| x.x < x0).collect();
    // Fragment A (left) deformed at random, B at rest: B feels nothing — and without the crack it
    // would (the control).
    let mut seed = 11;
    for (i, u) in body.displacement.iter_mut().enumerate() {
        *u = if left[i] {
            DVec3::new(noise(&mut seed), noise(&mut seed), noise(&mut seed)) * (0.1 * A)
        } else {
            DVec3::ZERO
        };
    }
    uncut.displacement = body.displacement.clone();
    let forces = body.elastic_forces();
    let scale = forces.iter().map(|f| f.length()).fold(0.0, f64::max);
    assert!(scale > 0.0);
    for i in (0..body.len()).filter(|&i| !left[i]) {
        assert_eq!(forces[i], DVec3::ZERO, "phyxel {i}");
    }
    let control = uncut.elastic_forces();
    let pushed = (0..body.len())
        .filter(|&i| !left[i])
        .map(|i| control[i].length())
        .fold(0.0, f64::max);
    assert!(pushed > 1e-3 * scale, "uncut, A pushes B: {pushed}");
    // Each fragment moved rigidly, differently: no elastic force anywhere (rotations have no strain
    // and no volume change, MKN04 eqs. 9–12), though the motion tears the uncut body.
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
    let centre = DVec3::new(x0, 2.0 * A, 2.0 * A);
    for i in 0..body.len() {
        let (r, t) = motions[usize::from(!left[i])];
        body.displacement[i] = (r - DMat3::IDENTITY) * (body.reference[i] - centre) + t;
    }
    let largest = body
        .elastic_forces()
        .iter()
        .map(|f| f.length())
        .fold(0.0, f64::max);
    assert!(largest < 1e-9 * scale, "{largest} against {scale}");
    uncut.displacement = body.displacement.clone();
    let torn = uncut
        .elastic_forces()
        .iter()
        .map(|f| f.length())
        .fold(0.0, f64::max);
    assert!(torn > scale, "the uncut body resists: {torn}");
}

/// The highest stress ratio of the free phyxels that hold no grip and are no grip's neighbour.
fn free_peak(b: &PulledBar) -> f64 {
    let fixed = &b.simulation.fixed;
    let body = &b.simulation.body;
    let ratios = b.simulation.fracture.as_ref().unwrap().stress_ratios(body);
    (0..body.len())
        .filter(|&i| {
            let hoods = &body.neighbours;
            !fixed[i] && !hoods.edges(i).any(|k| fixed[hoods.neighbour[k] as usize])
        })
        .map(|i| ratios[i].0)
        .fold(0.0, f64::max)
}

#[test]
fn a_bar_at_90_percent_of_its_strength_never_cracks_and_at_110_percent_cracks_normal_to_its_axis() {
    // 24 × 5 × 5 phyxels, grips 5 layers deep (≥ 2h), loaded from rest over 1000 steps, damped.
    const STEPS: usize = 10_000;
    let ramp = 1.1;
    let mut held = bar([24, 5, 5], 5, 0.9, ramp, 5.0, 0);
    let dt = held.simulation.recommended_time_step();
    assert!(ramp / dt < 0.2 * STEPS as f64);
    let mut peak = 0.0f64;
    for step in 0..STEPS {
        held.step(dt).unwrap();
        if step % 50 == 0 {
            peak = peak.max(free_peak(&held));
        }
    }
    let fracture = held.simulation.fracture.as_ref().unwrap();
    assert!(fracture.events.is_empty() && fracture.cracks.is_empty());
    assert!(peak > 0.89 && peak < 1.0, "peak stress ratio {peak}");
    let final_ratio = free_peak(&held);
    assert!((final_ratio - 0.9).abs() < 2e-3, "at rest: {final_ratio}");
    // At 110 %: a crack starts, normal to the load axis x within 10°.
    let mut pulled = bar([24, 5, 5], 5, 1.1, ramp, 5.0, 0);
    let mut steps = 0;
    while pulled
        .simulation
        .fracture
        .as_ref()
        .unwrap()
        .events
        .is_empty()
    {
        pulled.step(dt).unwrap();
        steps += 1;
        assert!(steps < 2 * (ramp / dt) as usize, "no crack");
    }
    let first = pulled.simulation.fracture.as_ref().unwrap().events[0];
    assert_eq!(first.kind, EventKind::Initiation);
    let angle = first.normal.dot(DVec3::X).abs().acos().to_degrees();
    assert!(angle < 10.0, "crack normal {:?}: {angle}°", first.normal);
    // It cracked once the load passed the strength (the ramp's dynamic overshoot is under 3 %).
    let nominal = 1.1 * pulled.load_fraction(pulled.simulation.time);
    assert!(nominal > 0.97 && nominal < 1.05, "nominal {nominal}");
    let started = steps;
    while fragments(&pulled.simulation.body).0 < 2 {
        pulled.step(dt).unwrap();
        steps += 1;
        assert!(steps < started + 1000, "not parted");
    }
    println!(
        "110 %: first crack after {started} steps at nominal {nominal:.4}, normal {angle:.2}° off x; \
         parted after {} more",
        steps - started
    );
}

#[test]
fn a_notched_bar_cracks_first_at_the_notch_tip() {
    for criterion in CRITERIA {
        notched_bar_cracks_first_at_the_notch_tip(criterion);
    }
}

fn notched_bar_cracks_first_at_the_notch_tip(criterion: Criterion) {
    // The notch cuts the top two layers at mid-length (plane x = 11.5a, tip at y = 2.5a).
    let mut b = under(bar([24, 5, 5], 5, 1.0, 1.1, 5.0, 2), criterion);
    let dt = b.simulation.recommended_time_step();
    let mut steps = 0;
    while b.simulation.fracture.as_ref().unwrap().events.is_empty() {
        b.step(dt).unwrap();
        steps += 1;
        assert!(steps < 2000, "no crack");
    }
    let first = b.simulation.fracture.as_ref().unwrap().events[0];
    assert_eq!((first.kind, first.crack), (EventKind::FrontStarted, 0));
    assert!((first.position.x - 11.5 * A).abs() < 1e-12);
    assert!((first.position.y - 2.5 * A).abs() < 1e-12);
    // The tip concentrates stress: it cracked while the nominal stress was still below the strength.
    let nominal = b.load_fraction(b.simulation.time);
    assert!(nominal < 0.95, "nominal {nominal}");
    // Pulled on, the bar parts in two at the notch.
    let started = steps;
    while fragments(&b.simulation.body).0 < 2 {
        b.step(dt).unwrap();
        steps += 1;
        assert!(steps < started + 1000, "not parted");
    }
    let (count, label) = fragments(&b.simulation.body);
    assert_eq!(count, 2);
    let body = &b.simulation.body;
    assert!((0..body.len()).all(|i| (label[i] == 0) == (body.reference[i].x < 11.5 * A)));
    assert!(body.displacement.iter().all(|u| u.is_finite()));
    println!(
        "notch ({criterion:?}): the tip started after {started} steps at nominal {nominal:.3}; parted \
         after {} more",
        steps - started
    );
}

#[test]
fn fracture_events_never_raise_the_energy_of_an_undamped_free_bar() {
    for criterion in CRITERIA {
        events_never_raise_the_energy(criterion);
    }
}

fn events_never_raise_the_energy(criterion: Criterion) {
    // A free bar (no grips, no damping, no gravity) released from a uniform stretch at 130 % of the
    // strength: it cracks while it vibrates, with no external work.
    let mut b = under(bar([16, 5, 5], 0, 1.3, 0.0, 0.0, 0), criterion);
    let dt = b.simulation.recommended_time_step();
    let start = b.simulation.energy();
    let mut largest = start;
    let mut events = 0;
    for _ in 0..1500 {
        let mut fracture = b.simulation.fracture.take().unwrap();
        b.simulation.step(dt).unwrap();
        let body = &mut b.simulation.body;
        let before = body.elastic_energy();
        let dissipated = fracture.dissipated;
        let cracks = fracture.cracks.len();
        fracture.step(body, &b.simulation.fixed, dt);
        let after = body.elastic_energy();
        assert!(after <= before * (1.0 + 1e-12), "{before} → {after}");
        let released = fracture.dissipated - dissipated;
        assert!(
            (released - (before - after)).abs() <= 1e-9 * before,
            "booked {released}, released {}",
            before - after
        );
        events += usize::from(fracture.cracks.len() > cracks || released > 0.0);
        b.simulation.fracture = Some(fracture);
        let energy = b.simulation.energy();
        assert!(energy.is_finite());
        largest = largest.max(energy);
    }
    let fracture = b.simulation.fracture.as_ref().unwrap();
    assert!(
        events > 10 && !fracture.cracks.is_empty(),
        "{events} events"
    );
    // Between events the symplectic step's energy fluctuates by O(Δt): the same bar uncut is the
    // yardstick, and the cracked bar stays within it.
    let mut control = bar([16, 5, 5], 0, 1.3, 0.0, 0.0, 0);
    control.simulation.fracture = None;
    let mut uncut_largest = start;
    for _ in 0..1500 {
        control.simulation.step(dt).unwrap();
        uncut_largest = uncut_largest.max(control.simulation.energy());
    }
    assert!(
        largest <= uncut_largest,
        "energy {start} → {largest} (uncut: {uncut_largest})"
    );
    println!(
        "free bar ({criterion:?}): {} cracks, {events} steps releasing energy, E max/E0 = {:.5} (uncut {:.5}), dissipated {:.3e} J of {start:.3e} J, isolated {}",
        fracture.cracks.len(),
        largest / start,
        uncut_largest / start,
        fracture.dissipated,
        fracture.isolated(&b.simulation.body)
    );
}

#[test]
fn transparency_equals_the_uncut_weight_at_the_front_and_is_continuous_across_it() {
    // A crack in the plane x = 0 covering y < 0 (|z| < 1), its front the edge y = 0: a pair along x
    // whose crossing point slides from y = −0.2h to 0.2h crosses the front.
    let h = 1.0;
    let mut crack = Crack::in_plane(DVec3::ZERO, DVec3::X);
    let at = |crack: &Crack, y: f64, z: f64| crack.plane_coordinates(DVec3::new(0.0, y, z));
    let ahead = crack.plane_coordinates(DVec3::Y);
    for (y, z, is_front) in [
        (0.0, -1.0, true),
        (0.0, 1.0, true),
        (-1.0, 1.0, false),
        (-1.0, -1.0, false),
    ] {
        let position = at(&crack, y, z);
        crack.push_vertex(OutlineVertex {
            position,
            direction: ahead,
            is_front,
        });
    }
    let cracks = [crack];
    let pair = |y: f64| (DVec3::new(-0.3, y, 0.1), DVec3::new(0.3, y, 0.1));
    let uncut = poly6(0.6, h);
    let transparency = Criterion::Transparency { kappa: KAPPA };
    // Behind the front the weight is seed 002 eq. 70's, d_s = |y|; ahead of it the uncut weight.
    for y in [-0.15, -0.05, -0.01] {
        let (p, q) = pair(y);
        let expected = poly6((0.6 / h + (y / (KAPPA * h)).powi(2)) * h, h);
        let w = modified_weight(p, q, h, &cracks, transparency);
        assert!(
            (w / expected - 1.0).abs() < 1e-12,
            "y = {y}: {w} vs {expected}"
        );
        assert_eq!(
            modified_weight(p, q, h, &cracks, Criterion::Visibility),
            0.0
        );
    }
    // At the front itself (d_s = 0) and ahead of it: the uncut weight, exactly.
    for y in [0.0, 0.01] {
        let (p, q) = pair(y);
        assert_eq!(modified_weight(p, q, h, &cracks, transparency), uncut);
    }
    // Sweeping past the front in steps of 10⁻⁵ h: transparency never jumps by more than 2·10⁻³ of the
    // uncut weight; visibility jumps by all of it.
    let sweep = |criterion: Criterion| {
        let mut largest = 0.0f64;
        let mut last: Option<f64> = None;
        for k in 0..=40_000 {
            let (p, q) = pair(-0.2 + 1e-5 * k as f64);
            let w = modified_weight(p, q, h, &cracks, criterion);
            if let Some(previous) = last {
                largest = largest.max((w - previous).abs());
            }
            last = Some(w);
        }
        largest / uncut
    };
    let (smooth, sharp) = (sweep(transparency), sweep(Criterion::Visibility));
    assert!(smooth < 2e-3, "transparency jumps by {smooth}");
    println!(
        "sweep past the front: transparency jumps by at most {smooth:.2e} of the uncut weight"
    );
    assert_eq!(sharp, 1.0);
    // A crack with no front left is opaque under either criterion.
    let mut through = cracks[0].clone();
    through.outline.iter_mut().for_each(|v| v.is_front = false);
    let (p, q) = pair(-0.01);
    assert_eq!(modified_weight(p, q, h, &[through], transparency), 0.0);
}

/// A notched bar under `criterion` pulled until its notch has grown in 40 steps (not yet through).
fn grown_notch(criterion: Criterion) -> PulledBar {
    let mut b = under(bar([24, 5, 5], 5, 1.0, 1.1, 5.0, 2), criterion);
    let dt = b.simulation.recommended_time_step();
    let mut grown = 0;
    while grown < 40 {
        b.step(dt).unwrap();
        grown += usize::from(!b.simulation.fracture.as_ref().unwrap().events.is_empty());
    }
    b
}

/// The area between a crack's outline before and after its fronts advanced lies within δ of the
/// swept edges ([`super::crack::swept_edges`]) — the bound the visibility update searches by: a disc
/// whose fronts advance by different amounts, one of them far (a front leaving the body), next to a
/// vertex that stays; every point of a fine grid that the new outline holds and the old did not is
/// held by a swept edge.
#[test]
fn the_area_a_crack_sweeps_lies_within_reach_of_its_swept_edges() {
    use super::crack::swept_edges;
    let mut crack = Crack::disc(DVec3::new(0.1, 0.2, 0.3), DVec3::new(1.0, 2.0, 2.0), A, 12);
    // Vertex 5 stopped earlier (no longer a front); vertex 4 leaves the body now.
    crack.advance(5, 0.5 * A, false);
    let old = crack.clone();
    let fronts: Vec<usize> = crack.fronts().map(|(k, _, _)| k).collect();
    for k in fronts {
        let distance = if k == 4 {
            2.0 * A
        } else {
            0.02 * A * (1 + k % 3) as f64
        };
        crack.advance(k, distance, k != 4);
    }
    let swept = swept_edges(&crack, &old.outline, &crack.outline);
    assert_eq!(swept.len(), 12, "every edge has a moved end");
    let mut gained = 0;
    for u in -400..=400 {
        for v in -400..=400 {
            let p = glam::DVec2::new(u as f64, v as f64) * (4.0 * A / 400.0);
            if crack.contains(p) && !old.contains(p) {
                gained += 1;
                let x = crack.to_space(p);
                assert!(
                    swept.iter().any(|e| e.holds(x, 0.0)),
                    "{p} swept, held by no edge"
                );
            }
        }
    }
    assert!(gained > 1000, "{gained} points gained");
}

#[test]
fn the_incremental_weight_update_equals_a_rebuild_from_scratch() {
    for criterion in CRITERIA {
        let b = grown_notch(criterion);
        let body = &b.simulation.body;
        let fracture = b.simulation.fracture.as_ref().unwrap();
        assert!(fracture.recomputed_total > 50);
        let hoods = &body.neighbours;
        let weights: Vec<f64> = (0..hoods.neighbour.len())
            .map(|k| {
                let (i, j) = (hoods.owner[k] as usize, hoods.neighbour[k] as usize);
                let (p, q) = if i < j {
                    (body.reference[i], body.reference[j])
                } else {
                    (body.reference[j], body.reference[i])
                };
                modified_weight(p, q, body.support_radius[i], &fracture.cracks, criterion)
            })
            .collect();
        let mut rebuilt =
            crate::meshless::mls::MlsWeights::compute(&body.reference, &body.support_radius, hoods);
        for (k, w) in weights.iter().enumerate() {
            assert_eq!(*w, fracture.weight(k), "edge {k}");
        }
        for i in 0..body.len() {
            let rank = rebuilt.refit(i, &body.reference, hoods, &weights, REFIT_THRESHOLD);
            for k in hoods.edges(i) {
                let expected = if rank < 3 {
                    DVec3::ZERO
                } else {
                    rebuilt.d()[k]
                };
                assert!(
                    (body.mls.d()[k] - expected).length() <= 1e-12 * expected.length().max(1.0),
                    "{criterion:?}: phyxel {i}, edge {k}"
                );
            }
        }
    }
}

/// Cracks through every lattice gap of a 4 × 4 × 4 body of spacing [`A`]: every pair is cut.
fn cut_at_every_gap(fracture: &mut Fracture, body: &mut Body) {
    for gap in [0.5, 1.5, 2.5] {
        for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
            let origin = DVec3::splat(1.5 * A) + axis * ((gap - 1.5) * A);
            let mut crack = Crack::in_plane(origin, axis);
            for angle in 0..4 {
                let d = glam::DVec2::from_angle(std::f64::consts::FRAC_PI_2 * angle as f64 + 0.3);
                crack.push_vertex(OutlineVertex {
                    position: d * (10.0 * A),
                    direction: d,
                    is_front: false,
                });
            }
            fracture.add_crack(body, crack);
        }
    }
}

#[test]
fn a_body_cut_into_single_phyxels_falls_as_free_particles() {
    let mut b = bar([4, 4, 4], 0, 0.0, 0.0, 0.0, 0);
    let body = &mut b.simulation.body;
    let fracture = b.simulation.fracture.as_mut().unwrap();
    cut_at_every_gap(fracture, body);
    assert_eq!(fracture.isolated(body), body.len());
    assert_eq!(fragments(body).0, body.len());
    // Under gravity each falls freely: symplectic Euler gives u_n = g Δt² n(n + 1)/2 exactly.
    let g = DVec3::new(0.0, -9.81, 0.0);
    b.simulation.environment.gravity = g;
    let dt = b.simulation.recommended_time_step();
    let steps = 200;
    for _ in 0..steps {
        b.step(dt).unwrap();
    }
    let expected = g * (dt * dt * (steps * (steps + 1)) as f64 / 2.0);
    for u in &b.simulation.body.displacement {
        assert!((*u - expected).length() < 1e-9 * expected.length(), "{u}");
    }
}

#[test]
fn the_demos_notched_bar_at_five_across_is_the_tests_bar_and_its_grips_step_it_alike() {
    use super::scenes::notched_bar;
    let mut tests = bar([24, 5, 5], 5, 1.0, 1.1, 5.0, 2);
    let demo = notched_bar(5, Material::JELLY, settings(), 1.0, 1.1, 5.0).unwrap();
    assert_eq!(
        demo.simulation.body.reference,
        tests.simulation.body.reference
    );
    assert_eq!(demo.grips(), tests.grips());
    let grips = demo.grips();
    let mut simulation = demo.simulation;
    let dt = simulation.recommended_time_step();
    for _ in 0..200 {
        tests.step(dt).unwrap();
        grips.step(&mut simulation, dt).unwrap();
    }
    assert_eq!(
        simulation.body.displacement,
        tests.simulation.body.displacement
    );
    assert_eq!(
        simulation.fracture.as_ref().unwrap().cracks.len(),
        tests.simulation.fracture.as_ref().unwrap().cracks.len()
    );
}

#[test]
fn the_demos_notched_bar_refuses_too_few_phyxels_and_a_load_beyond_half_of_e() {
    use super::scenes::notched_bar;
    let error = notched_bar(2, Material::JELLY, settings(), 1.0, 1.0, 0.5).unwrap_err();
    assert!(error.0.contains("at least 3"), "{error}");
    // σ_t = 2 kPa, E/2 = 50 kPa: a load of 25 σ_t is refused, 24 accepted.
    let error = notched_bar(3, Material::JELLY, settings(), 25.0, 1.0, 0.5).unwrap_err();
    assert!(error.0.contains("E/2"), "{error}");
    assert!(notched_bar(3, Material::JELLY, settings(), 24.0, 1.0, 0.5).is_ok());
}

#[test]
fn the_demos_notched_bar_parts_in_two_at_the_notch_at_the_demos_default_damping() {
    use super::scenes::notched_bar;
    // The demo's defaults: load 1.0 over 1 s, damping 0.5/s, the automatic step (0.1 of the bound).
    for across in [5, 6] {
        let mut b = notched_bar(across, Material::JELLY, settings(), 1.0, 1.0, 0.5).unwrap();
        let a = 0.25 / across as f64;
        let notch_x = ((b.simulation.body.len() / across / across / 2) as f64 - 0.5) * a;
        let dt = b.simulation.recommended_time_step();
        let mut steps = 0;
        while fragments(&b.simulation.body).0 < 2 {
            b.step(dt).unwrap();
            steps += 1;
            assert!(steps < 3000, "{across} across: not parted");
        }
        let first = b.simulation.fracture.as_ref().unwrap().events[0];
        assert_eq!((first.kind, first.crack), (EventKind::FrontStarted, 0));
        let (count, label) = fragments(&b.simulation.body);
        assert_eq!(count, 2);
        let body = &b.simulation.body;
        assert!((0..body.len()).all(|i| (label[i] == 0) == (body.reference[i].x < notch_x)));
        println!(
            "demo bar, {across} across: the notch tip started at step {}, parted at step {steps} \
             (t = {:.3} s, nominal load {:.3})",
            first.step,
            b.simulation.time,
            b.load_fraction(b.simulation.time)
        );
    }
}

/// The weight factors t_ij rebuild every cut d_ij from the uncut kernel and the refit moment inverse,
/// d_ij = A_i⁻¹ X_ij ω_ij t_ij — released rows (t = 0) included — as a solver that forms d_ij where it
/// uses them (the GPU's passes) needs.
#[test]
fn the_weight_factors_rebuild_every_cut_mls_weight_from_the_uncut_kernel() {
    for criterion in CRITERIA {
        let b = grown_notch(criterion);
        let body = &b.simulation.body;
        let fracture = b.simulation.fracture.as_ref().unwrap();
        let factors = fracture.weight_factors(body);
        let hoods = &body.neighbours;
        assert_eq!(factors.len(), hoods.neighbour.len());
        let cut = factors.iter().filter(|&&t| t == 0.0).count();
        let partial = factors.iter().filter(|&&t| t > 0.0 && t < 1.0).count();
        assert!(cut > 0, "{criterion:?}: no edge cut");
        if let Criterion::Transparency { .. } = criterion {
            assert!(partial > 0, "transparency weakened no edge partly");
        }
        for i in 0..body.len() {
            for k in hoods.edges(i) {
                let x_ij = body.reference[hoods.neighbour[k] as usize] - body.reference[i];
                let w = poly6(x_ij.length(), body.support_radius[i]);
                let d = body.mls.moment_inverse[i] * x_ij * (w * factors[k]);
                assert!(
                    (d - body.mls.d()[k]).length() <= 1e-12 * body.mls.d()[k].length().max(1.0),
                    "{criterion:?}: phyxel {i}, edge {k}: {d} against {}",
                    body.mls.d()[k]
                );
            }
        }
        eprintln!(
            "{criterion:?}: {cut} of {} edges cut, {partial} weakened, {} released",
            factors.len(),
            fracture.released
        );
    }
}

/// Fracture and MKN04 plasticity together: the cracks live in the reference configuration, so a
/// plastic body that can crack keeps its rest shape when its total strain passes the reference update's
/// threshold (the plastic strain alone carries the stretch), while the same body without fracture moves
/// its rest shape (the control).
#[test]
fn a_plastic_body_that_can_crack_keeps_its_rest_shape() {
    use crate::meshless::plasticity::Plasticity;
    for cracks in [true, false] {
        let mut b = bar([8, 4, 4], 0, 0.0, 0.0, 0.0, 0);
        if !cracks {
            b.simulation.fracture = None;
        }
        let sim = &mut b.simulation;
        sim.plasticity = Some(Plasticity {
            yield_strain: 0.01,
            creep: 100.0,
            max_strain: 0.5,
        });
        let rest = sim.body.reference.clone();
        // A uniform stretch of 40 % along x: a Green strain of 0.48, past the threshold 0.2.
        for (u, x) in sim.body.displacement.iter_mut().zip(&rest) {
            *u = DVec3::new(0.4 * x.x, 0.0, 0.0);
        }
        assert!(sim.reference_update_strain < 0.4);
        sim.step(1e-4).unwrap();
        assert_eq!(
            sim.reference_updates,
            usize::from(!cracks),
            "cracks: {cracks}"
        );
        assert_eq!(sim.body.reference == rest, cracks);
    }
}

/// A refit that leaves a phyxel no neighbour releases it (d_ij = 0, so ∇u_i = 0): with a plastic
/// strain kept it would be left the elastic strain −ε_p, energy it cannot hold and a stress that
/// could start a crack. Cut into single phyxels, a body whose phyxels all held plastic strain holds no
/// elastic energy and no stress, and the released energy is booked as dissipated.
#[test]
fn a_released_plastic_phyxel_holds_no_energy_and_no_stress() {
    let mut b = bar([4, 4, 4], 0, 0.0, 0.0, 0.0, 0);
    let body = &mut b.simulation.body;
    let plastic = DMat3::from_diagonal(DVec3::new(0.2, -0.05, -0.05));
    body.plastic_strain.iter_mut().for_each(|p| *p = plastic);
    let held = body.elastic_energy();
    assert!(held > 0.0);
    let fracture = b.simulation.fracture.as_mut().unwrap();
    cut_at_every_gap(fracture, body);
    assert_eq!(fracture.isolated(body), body.len());
    assert_eq!(body.elastic_energy(), 0.0);
    assert!(
        (fracture.dissipated - held).abs() <= 1e-12 * held,
        "{} of {held}",
        fracture.dissipated
    );
    let ratios = fracture.stress_ratios(body);
    assert!(ratios.iter().all(|r| r.0 == 0.0));
}
