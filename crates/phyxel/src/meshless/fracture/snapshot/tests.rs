use super::super::crack::Crack;
use super::super::scenes::{notched_bar, PulledBar};
use super::super::{Fracture, FractureSettings};
use crate::meshless::material::Material;
use glam::{DMat3, DVec3};

/// The fracture tests' notched jelly bar (24 × 5 × 5, σ_t = 2 kPa, c_prop = 2 m/s), pulled to `load`
/// σ_t over 1.1 s.
fn bar(load: f64) -> PulledBar {
    let settings = FractureSettings::new(2.0e3, 2.0).unwrap();
    notched_bar(5, Material::JELLY, settings, load, 1.1, 5.0).unwrap()
}

/// `b` stepped until its cracks have grown in `events` steps.
fn grown(mut b: PulledBar, events: usize) -> PulledBar {
    let dt = b.simulation.recommended_time_step();
    let mut grown = 0;
    while grown < events {
        b.step(dt).unwrap();
        grown += usize::from(!fracture(&b).events.is_empty());
    }
    b
}

fn fracture(b: &PulledBar) -> &Fracture {
    b.simulation.fracture.as_ref().unwrap()
}

/// `copy` given `original`'s state and cracks.
fn restore(copy: &mut PulledBar, original: &PulledBar) {
    let state = original.simulation.snapshot(false);
    copy.simulation.restore(&state).unwrap();
    let numbers = fracture(original).to_numbers(&original.simulation.body);
    let sim = &mut copy.simulation;
    let fracture = sim.fracture.as_mut().unwrap();
    fracture.restore_numbers(&mut sim.body, &numbers).unwrap();
}

/// Every weight, d_ij (to 10⁻¹²), rest correction and crack of `copy` as `original`'s.
fn assert_cut_alike(copy: &PulledBar, original: &PulledBar) {
    let (a, b) = (&copy.simulation.body, &original.simulation.body);
    for k in 0..a.neighbours.neighbour.len() {
        assert_eq!(
            fracture(copy).weight(k),
            fracture(original).weight(k),
            "edge {k}"
        );
        let scale = b.mls.d()[k].length().max(1.0);
        assert!(
            (a.mls.d()[k] - b.mls.d()[k]).length() <= 1e-12 * scale,
            "edge {k}: d {} against {}",
            a.mls.d()[k],
            b.mls.d()[k]
        );
    }
    assert_eq!(a.rest_correction, b.rest_correction);
    assert_eq!(fracture(copy).cracks, fracture(original).cracks);
    assert_eq!(fracture(copy).events, fracture(original).events);
}

/// A state carried with its fracture's numbers goes on in the copy as in the original: the same
/// weights, d_ij, rest corrections and cracks, then 300 more steps of growth alike; carried without
/// them, the copy's uncut body does not.
#[test]
fn a_copy_given_the_fracture_numbers_cuts_and_grows_its_cracks_alike() {
    let mut original = grown(bar(1.1), 40);
    let corrected = original
        .simulation
        .body
        .rest_correction
        .iter()
        .filter(|g| **g != DMat3::IDENTITY)
        .count();
    // A copy with a crack of its own (a disc at a quarter of the bar's length, which the original
    // does not have), and one with none.
    let mut cut_here = bar(1.1);
    let sim = &mut cut_here.simulation;
    let own = Crack::disc(DVec3::new(0.3, 0.125, 0.125), DVec3::X, 0.1, 12);
    sim.fracture.as_mut().unwrap().add_crack(&mut sim.body, own);
    restore(&mut cut_here, &original);
    assert_cut_alike(&cut_here, &original);
    let mut uncut = bar(1.1);
    uncut
        .simulation
        .restore(&original.simulation.snapshot(false))
        .unwrap();
    let dt = original.simulation.recommended_time_step();
    let cracks_before = fracture(&original).cracks.len();
    for _ in 0..300 {
        original.step(dt).unwrap();
        cut_here.step(dt).unwrap();
        uncut.step(dt).unwrap();
    }
    let gap = |b: &PulledBar| {
        b.simulation
            .body
            .displacement
            .iter()
            .zip(&original.simulation.body.displacement)
            .map(|(x, y)| x.distance(*y))
            .fold(0.0, f64::max)
    };
    let (carried, lost) = (gap(&cut_here), gap(&uncut));
    eprintln!(
        "{} cracks ({cracks_before} when carried), {corrected} rest corrections; 300 steps on: \
         {carried:.2e} m with the numbers, {lost:.2e} m without",
        fracture(&original).cracks.len()
    );
    assert!(carried <= 1e-9, "the copy drifted by {carried} m");
    assert_eq!(
        fracture(&cut_here).events.len(),
        fracture(&original).events.len()
    );
    assert_eq!(fracture(&cut_here).cracks, fracture(&original).cracks);
    assert!(lost > 1e-4, "the uncut copy moved alike: {lost} m");
}

/// Numbers that do not fit the body are refused with the reason and change nothing.
#[test]
fn numbers_that_do_not_fit_are_refused_and_change_nothing() {
    let original = grown(bar(1.1), 20);
    let numbers = fracture(&original).to_numbers(&original.simulation.body);
    let mut copy = bar(1.1);
    let before = copy.simulation.body.mls.d().to_vec();
    // The format, the phyxels, nothing resampled (appended, split parents, splits, refused), the
    // crack count, a crack's four vectors, its started flag and vertex count.
    let crack_numbers = 7 + 12 + 2;
    let mut nan = numbers.clone();
    nan[3] = f64::NAN;
    let mut format = numbers.clone();
    format[0] = 7.0;
    let mut beyond = numbers.clone();
    beyond.push(0.0);
    let cases = [
        (&numbers[..numbers.len() - 1], "end early"),
        (&nan[..], "not finite"),
        (&format[..], "unknown format"),
        (&beyond[..], "left over"),
        (&numbers[..crack_numbers - 1], "end early"),
    ];
    for (bad, why) in cases {
        let sim = &mut copy.simulation;
        let fracture = sim.fracture.as_mut().unwrap();
        let error = fracture.restore_numbers(&mut sim.body, bad).unwrap_err();
        assert!(error.0.contains(why), "{error}");
        assert_eq!(sim.body.mls.d(), before);
        assert!(fracture.cracks.iter().all(|c| c.normal != DVec3::ZERO));
    }
    // A released phyxel beyond the body's phyxels (no crack, one released, nothing else).
    let n = copy.simulation.body.len() as f64;
    let beyond = [
        2.0, n, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, n, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    ];
    let sim = &mut copy.simulation;
    let fracture = sim.fracture.as_mut().unwrap();
    let error = fracture
        .restore_numbers(&mut sim.body, &beyond)
        .unwrap_err();
    assert!(error.0.contains("not a whole number below"), "{error}");
    assert_eq!(sim.body.mls.d(), before);
}
