use super::*;
use crate::meshless::body::SupportRadius;
use crate::meshless::fracture::crack::{Crack, OutlineVertex};
use crate::meshless::fracture::resampling::OMEGA_MIN;
use crate::meshless::fracture::scenes::notched_bar;
use crate::meshless::fracture::weights::modified_weight;
use crate::meshless::fracture::FractureSettings;
use crate::meshless::material::Material;
use crate::meshless::simulation::{Environment, Simulation};

/// The lattice spacing of the test bodies (m).
const A: f64 = 0.05;

/// A jelly bar of `cells` phyxels at spacing [`A`], h = 2.2 a, that can crack (σ_t = 2 kPa, c_prop =
/// 2 m/s), resampling at `omega_min`; no gravity.
fn bar(cells: [usize; 3], omega_min: f64) -> Simulation {
    let [nx, ny, nz] = cells;
    let points: Vec<DVec3> = (0..nz)
        .flat_map(|z| {
            (0..ny).flat_map(move |y| {
                (0..nx).map(move |x| DVec3::new(x as f64, y as f64, z as f64) * A)
            })
        })
        .collect();
    let body = Body::new(
        points,
        A * A * A,
        A,
        Material::JELLY,
        SupportRadius::SpacingMultiple { factor: 2.2 },
    );
    let environment = Environment {
        gravity: DVec3::ZERO,
        colliders: Vec::new(),
        friction: 0.0,
        damping: 0.0,
    };
    let mut sim = Simulation::new(body, environment);
    let settings = FractureSettings::new(2.0e3, 2.0)
        .unwrap()
        .with_resampling(omega_min)
        .unwrap();
    sim.enable_fracture(settings).unwrap();
    sim
}

/// A crack through the whole section in the plane x = `x` (no front).
fn section_crack(x: f64) -> Crack {
    let mut crack = Crack::in_plane(DVec3::new(x, 2.0 * A, 2.0 * A), DVec3::X);
    for angle in 0..4 {
        let d = glam::DVec2::from_angle(std::f64::consts::FRAC_PI_2 * angle as f64 + 0.3);
        crack.push_vertex(OutlineVertex {
            position: d * (10.0 * A),
            direction: d,
            is_front: false,
        });
    }
    crack
}

/// Σ m_i, Σ m_i v_i, Σ V_i.
fn totals(body: &Body) -> (f64, DVec3, f64) {
    let mass = body.mass.iter().sum();
    let momentum = body
        .mass
        .iter()
        .zip(&body.velocity)
        .map(|(m, v)| *m * *v)
        .sum();
    (mass, momentum, body.volume.iter().sum())
}

/// Without a crack Ω_i is the count of phyxels in i's support (seed 002 after eq. 71); a crack
/// through the section takes those across it off.
#[test]
fn omega_counts_the_neighbours_a_phyxel_still_sees() {
    let mut sim = bar([10, 5, 5], OMEGA_MIN);
    let fracture = sim.fracture.as_ref().unwrap();
    let body = &sim.body;
    for i in 0..body.len() {
        assert_eq!(
            fracture.omega(body, i),
            body.neighbours.edges(i).len() as f64
        );
    }
    // Inside a lattice at h = 2.2 a: 6 + 12 + 8 + 6 = 32 neighbours.
    assert_eq!(body.neighbours.edges(2 + 10 * (2 + 5 * 2) + 2).len(), 32);
    let fracture = sim.fracture.as_mut().unwrap();
    fracture.add_crack(&mut sim.body, section_crack(4.5 * A));
    let body = &sim.body;
    for i in 0..body.len() {
        let seen = body
            .neighbours
            .edges(i)
            .filter(|&k| {
                let j = body.neighbours.neighbour[k] as usize;
                (body.reference[i].x < 4.5 * A) == (body.reference[j].x < 4.5 * A)
            })
            .count();
        assert!(
            (fracture.omega(body, i) - seen as f64).abs() < 1e-12,
            "phyxel {i}"
        );
    }
}

/// A layer of phyxels between two cracks one spacing apart sees only its own plane (Ω ≈ 12 inside):
/// resampled at Ω_min = 14 each is split. The split keeps the total mass exactly, the momentum and
/// volume to rounding, raises no energy, leaves every fit of full rank, puts each new phyxel on its
/// parent's side of both cracks, and keeps the weights those of every crack; resampled phyxels are
/// not split again.
#[test]
fn a_split_keeps_mass_momentum_volume_and_energy_and_every_fit() {
    let mut sim = bar([12, 5, 5], 14.0);
    // Moving and strained: a shear and a stretch, each phyxel with its own velocity.
    for (i, x) in sim.body.reference.clone().iter().enumerate() {
        sim.body.displacement[i] = DVec3::new(0.02 * x.x + 0.01 * x.y, 0.005 * x.z, -0.01 * x.x);
        sim.body.velocity[i] = DVec3::new((i % 7) as f64 * 0.1, -((i % 3) as f64) * 0.2, 0.05);
    }
    let fracture = sim.fracture.as_mut().unwrap();
    for x in [5.5 * A, 6.5 * A] {
        fracture.add_crack(&mut sim.body, section_crack(x));
    }
    let n = sim.body.len();
    let before = totals(&sim.body);
    let masses = sim.body.mass.clone();
    let energy = sim.body.elastic_energy();
    // No cap here (the demo's is a quarter of the phyxels: the layer wants more).
    let settings = Resampling {
        cap: usize::MAX,
        ..fracture.resampling_settings.unwrap()
    };
    let all: Vec<usize> = (0..n).collect();
    let parents = fracture.resample(&mut sim.body, &[], &all, settings);
    let body = &sim.body;
    let after = totals(body);
    println!(
        "split {} phyxels into {} more ({} phyxels); mass {:e} → {:e}, momentum {:?} → {:?}, \
         volume {:e} → {:e}, energy {energy:e} → {:e}",
        fracture.resampling.splits,
        parents.len(),
        body.len(),
        before.0,
        after.0,
        before.1,
        after.1,
        before.2,
        after.2,
        body.elastic_energy()
    );
    assert!(
        fracture.resampling.splits >= 25,
        "the layer of 25 phyxels is split"
    );
    assert!(parents.iter().any(|&p| body.reference[p].x == 6.0 * A));
    assert_eq!(body.len(), n + parents.len());
    // Each parent's mass is shared exactly among it and its new phyxels.
    let mut shared = body.mass[..n].to_vec();
    for (c, &p) in parents.iter().enumerate() {
        shared[p] += body.mass[n + c];
    }
    for (p, m) in masses.iter().enumerate() {
        assert_eq!(shared[p], *m, "phyxel {p}'s mass");
    }
    assert!((after.0 - before.0).abs() <= 1e-15 * before.0, "mass");
    assert!((after.1 - before.1).length() <= 1e-12 * before.1.length());
    assert!((after.2 - before.2).abs() <= 1e-12 * before.2);
    assert!(
        body.elastic_energy() <= energy * (1.0 + 1e-9),
        "no split raises U"
    );
    // Every fit is of full rank, or the phyxel was released and counted.
    for i in 0..body.len() {
        let released = body
            .neighbours
            .edges(i)
            .all(|k| body.mls.d()[k] == DVec3::ZERO);
        assert!(body.mls.rank[i] == 3 || released, "phyxel {i}");
    }
    assert_eq!(
        body.mls.regularized,
        body.mls.rank.iter().filter(|&&r| r < 3).count()
    );
    // The force gather's copy of the weights is the resampled, cut and released rows'.
    body.mls.check_gather_copy(&body.neighbours).unwrap();
    for (c, &p) in parents.iter().enumerate() {
        let (parent, child) = (body.reference[p], body.reference[n + c]);
        for crack in &fracture.cracks {
            assert!(
                crack.crossing(parent, child).is_none(),
                "new phyxel {}",
                n + c
            );
        }
        assert!(body.support_radius[n + c] >= settings.min_support);
        assert!(body.mass[n + c] > 0.0 && body.volume[n + c] > 0.0);
    }
    // The kept weights are those of every crack.
    let hoods = &body.neighbours;
    for k in 0..hoods.neighbour.len() {
        let (i, j) = (hoods.owner[k] as usize, hoods.neighbour[k] as usize);
        let (p, q) = if i < j {
            (body.reference[i], body.reference[j])
        } else {
            (body.reference[j], body.reference[i])
        };
        let expected = modified_weight(
            p,
            q,
            body.support_radius[i],
            &fracture.cracks,
            fracture.settings.criterion,
        );
        assert_eq!(fracture.weight(k), expected, "edge {k}");
    }
    // Resampled phyxels are not split again.
    let all: Vec<usize> = (0..body.len()).collect();
    let again = fracture.resample(&mut sim.body, &[], &all, settings);
    assert!(again.is_empty(), "{} split again", again.len());
}

/// A copy of the body given the resampled body's numbers (`Fracture::to_numbers`: a restarted
/// worker, the page's copy) appends the same phyxels, with the same masses, volumes and supports, and
/// cuts alike: every weight and d_ij equal; a body that is not the lattice with a first part of them
/// is refused, unchanged.
#[test]
fn a_copy_given_the_numbers_appends_the_same_phyxels_and_cuts_alike() {
    let split = |sim: &mut Simulation| {
        let fracture = sim.fracture.as_mut().unwrap();
        for x in [5.5 * A, 6.5 * A] {
            fracture.add_crack(&mut sim.body, section_crack(x));
        }
        let settings = fracture.resampling_settings.unwrap();
        let all: Vec<usize> = (0..sim.body.len()).collect();
        fracture.resample(&mut sim.body, &[], &all, settings)
    };
    let mut original = bar([12, 5, 5], 14.0);
    let parents = split(&mut original);
    assert!(!parents.is_empty());
    let numbers = original
        .fracture
        .as_ref()
        .unwrap()
        .to_numbers(&original.body);
    let mut copy = bar([12, 5, 5], 14.0);
    let fracture = copy.fracture.as_mut().unwrap();
    fracture.restore_numbers(&mut copy.body, &numbers).unwrap();
    let (a, b) = (&original.body, &copy.body);
    assert_eq!(b.len(), a.len());
    assert_eq!(b.reference, a.reference);
    assert_eq!(b.mass, a.mass);
    assert_eq!(b.volume, a.volume);
    assert_eq!(b.support_radius, a.support_radius);
    assert_eq!(b.neighbours.neighbour, a.neighbours.neighbour);
    let (fa, fb) = (original.fracture.as_ref().unwrap(), fracture);
    for k in 0..a.neighbours.neighbour.len() {
        assert_eq!(fb.weight(k), fa.weight(k), "edge {k}");
        let d = a.mls.d()[k];
        assert!(
            (b.mls.d()[k] - d).length() <= 1e-12 * d.length().max(1.0),
            "edge {k}"
        );
    }
    assert_eq!(fb.resampling.parents, parents);
    // A second copy, resampled on its own (one crack only): not a first part of them, refused.
    let mut other = bar([12, 5, 5], 14.0);
    let fracture = other.fracture.as_mut().unwrap();
    fracture.add_crack(&mut other.body, section_crack(5.5 * A));
    fracture.add_crack(&mut other.body, section_crack(4.5 * A));
    let settings = fracture.resampling_settings.unwrap();
    let all: Vec<usize> = (0..other.body.len()).collect();
    assert!(!fracture
        .resample(&mut other.body, &[], &all, settings)
        .is_empty());
    let before = other.body.reference.clone();
    let fracture = other.fracture.as_mut().unwrap();
    let error = fracture
        .restore_numbers(&mut other.body, &numbers)
        .unwrap_err();
    assert!(error.0.contains("first part"), "{error}");
    assert_eq!(other.body.reference, before);
}

/// The demo's notched bar, resampled at Ω_min = 16 (at seed 002's 10 its one flat crack leaves no
/// phyxel below it: those along the bar's edges keep 10 of their neighbours; at 16 they are split),
/// pulled past its strength until it parts and on: 10⁴ steps without NaN, the mass as it was, and
/// undamped no fracture step (cracks, refits, splits) raises the elastic energy.
#[test]
fn a_resampled_notched_bar_runs_10000_steps_without_nan_and_no_split_raises_the_energy() {
    let settings = FractureSettings::new(2.0e3, 2.0)
        .unwrap()
        .with_resampling(16.0)
        .unwrap();
    let mut bar = notched_bar(5, Material::JELLY, settings, 1.2, 0.5, 0.0).unwrap();
    let grips = bar.grips();
    let sim = &mut bar.simulation;
    let mass: f64 = sim.body.mass.iter().sum();
    let dt = sim.recommended_time_step();
    let mut raised = 0.0f64;
    for _ in 0..10_000 {
        let mut fracture = sim.fracture.take().unwrap();
        grips.step(sim, dt).unwrap();
        let before = sim.body.elastic_energy();
        let n = sim.body.len();
        fracture.step(&mut sim.body, &sim.fixed, dt);
        if sim.body.len() > n {
            sim.fixed.resize(sim.body.len(), false);
        }
        raised = raised.max(sim.body.elastic_energy() - before);
        sim.fracture = Some(fracture);
        assert!(sim.body.displacement.iter().all(|u| u.is_finite()));
    }
    let fracture = sim.fracture.as_ref().unwrap();
    let now: f64 = sim.body.mass.iter().sum();
    println!(
        "resampled notched bar: {} splits, {} phyxels inserted ({} refused), {} cracks, largest rise \
         of U through a fracture step {raised:e} J, mass {mass} → {now}",
        fracture.resampling.splits,
        fracture.resampling.inserted,
        fracture.resampling.refused,
        fracture.cracks.len()
    );
    assert!(fracture.resampling.inserted > 0, "something was resampled");
    assert!((now - mass).abs() <= 1e-12 * mass, "mass {mass} → {now}");
    assert!(raised <= 1e-12, "a fracture step raised U by {raised} J");
    // After 10⁴ steps of cracks, refits, releases and splits the force gather reads the body's own
    // weights.
    sim.body
        .mls
        .check_gather_copy(&sim.body.neighbours)
        .unwrap();
}
