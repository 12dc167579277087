//! Fracture scenes: a bar held by its end layers and pulled along its axis, with or without a notch —
//! the "notched bar pulled apart", for the tests and for the 3D demo to build on. The grips
//! impose the displacement of MKN04's uniaxial stress state ([`uniaxial_stretch`]), lateral
//! contraction included, so that away from a notch the bar's stress is uniform and no grip corner
//! concentrates it.

use super::crack::{Crack, OutlineVertex};
use super::{FractureError, FractureSettings};
use crate::meshless::body::{Body, SupportRadius};
use crate::meshless::elasticity::phyxel_stress;
use crate::meshless::material::Material;
use crate::meshless::simulation::{BlowUp, Environment, Simulation};
use glam::{DMat3, DVec3};

/// The stretches (λ_axial, λ_lateral) of MKN04's material under uniaxial stress: the total second
/// Piola–Kirchhoff stress S = J⁻¹ P(J) of J = diag(λ_a, λ_l, λ_l) (Green–St Venant strain, Hooke's
/// law and the volume term k_v (det J − 1) cof J; MKN04 eqs. 9–12) has S_xx = `stress` and
/// S_yy = S_zz = 0. Found by nested bisection (S_yy rises with λ_l, S_xx with λ_a); `stress` must lie
/// between −E/2 and E/2.
pub fn uniaxial_stretch(material: &Material, stress: f64) -> (f64, f64) {
    let (lambda, mu) = material.lame();
    let kv = material.volume_stiffness;
    let piola = |a: f64, l: f64| {
        let grad = DMat3::from_diagonal(DVec3::new(a, l, l)) - DMat3::IDENTITY;
        -phyxel_stress(grad, DMat3::ZERO, 1.0, lambda, mu, kv).force_matrix
    };
    let bisect = |mut lo: f64, mut hi: f64, f: &dyn Fn(f64) -> f64| {
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if f(mid) > 0.0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        0.5 * (lo + hi)
    };
    let lateral = |a: f64| bisect(0.3, 1.7, &|l| piola(a, l).y_axis.y);
    let axial = bisect(0.5, 1.5, &|a| piola(a, lateral(a)).x_axis.x / a - stress);
    (axial, lateral(axial))
}

/// A bar of `cells` phyxels (x along its axis) on a cubic lattice of spacing `spacing`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BarDescription {
    pub cells: [usize; 3],
    pub spacing: f64,
    /// h = factor × spacing.
    pub support_factor: f64,
    pub material: Material,
    pub fracture: FractureSettings,
    /// The uniaxial stress the grips reach, as a fraction of the strength.
    pub load: f64,
    /// The time over which the grips reach it (0: the bar starts at it, in the uniform state).
    pub ramp_time: f64,
    /// Mass-proportional damping (1/s).
    pub damping: f64,
    /// Layers of phyxels held at each end (a grip as deep as 2h leaves no phyxel whose force sums
    /// reach a truncated neighbourhood of the end face).
    pub grip_layers: usize,
    /// Layers of phyxels a notch at mid-length cuts in from the top (y) face (0: no notch).
    pub notch_layers: usize,
}

/// A bar held by its two end layers and pulled apart ([`BarDescription`]).
#[derive(Clone, Debug)]
pub struct PulledBar {
    pub simulation: Simulation,
    /// The held end layers.
    pub grips: Vec<usize>,
    /// The bar's centre: the grips' displacement is `stretch` ⊙ (X − centre).
    pub centre: DVec3,
    /// (λ_a − 1, λ_l − 1, λ_l − 1) at the full load.
    pub stretch: DVec3,
    pub ramp_time: f64,
}

impl PulledBar {
    /// The bar of `description`, fracture on; refused for fracture settings the solver refuses.
    pub fn new(description: BarDescription) -> Result<Self, FractureError> {
        let [nx, ny, nz] = description.cells;
        let a = description.spacing;
        let points: Vec<DVec3> = (0..nz)
            .flat_map(|z| {
                (0..ny).flat_map(move |y| {
                    (0..nx).map(move |x| DVec3::new(x as f64, y as f64, z as f64) * a)
                })
            })
            .collect();
        let body = Body::new(
            points,
            a * a * a,
            a,
            description.material,
            SupportRadius::SpacingMultiple {
                factor: description.support_factor,
            },
        );
        let environment = Environment {
            gravity: DVec3::ZERO,
            colliders: Vec::new(),
            friction: 0.0,
            damping: description.damping,
        };
        let mut simulation = Simulation::new(body, environment);
        let grips: Vec<usize> = (0..simulation.body.len())
            .filter(|&i| {
                let x = i % nx;
                x < description.grip_layers || x + description.grip_layers >= nx
            })
            .collect();
        simulation.fixed = vec![false; simulation.body.len()];
        for &i in &grips {
            simulation.fixed[i] = true;
        }
        simulation.enable_fracture(description.fracture)?;
        let top = (ny - 1) as f64 * a;
        let centre = DVec3::new((nx - 1) as f64, (ny - 1) as f64, (nz - 1) as f64) * (0.5 * a);
        if description.notch_layers > 0 {
            let x = ((nx / 2) as f64 - 0.5) * a;
            let tip = top - (description.notch_layers as f64 - 0.5) * a;
            let notch = notch(
                DVec3::new(x, tip, centre.z),
                top + description.support_factor * a,
                (nz as f64 + 1.0) * a,
                a,
            );
            let fracture = simulation.fracture.as_mut().expect("enabled above");
            fracture.add_crack(&mut simulation.body, notch);
        }
        let (axial, lateral) = uniaxial_stretch(
            &description.material,
            description.load * description.fracture.strength,
        );
        let mut bar = Self {
            simulation,
            grips,
            centre,
            stretch: DVec3::new(axial - 1.0, lateral - 1.0, lateral - 1.0),
            ramp_time: description.ramp_time,
        };
        if bar.ramp_time <= 0.0 {
            let body = &mut bar.simulation.body;
            for i in 0..body.len() {
                body.displacement[i] = bar.stretch * (body.reference[i] - bar.centre);
            }
        }
        Ok(bar)
    }

    /// The fraction of the full load the grips hold at time t.
    pub fn load_fraction(&self, t: f64) -> f64 {
        if self.ramp_time > 0.0 {
            (t / self.ramp_time).min(1.0)
        } else {
            1.0
        }
    }

    /// Move the grips to their place at the end of the step, then step the simulation.
    pub fn step(&mut self, dt: f64) -> Result<(), BlowUp> {
        self.grips().step(&mut self.simulation, dt)
    }

    /// The grips' motion alone ([`Grips`]), for a driver that keeps the simulation itself.
    pub fn grips(&self) -> Grips {
        Grips {
            phyxels: self.grips.clone(),
            centre: self.centre,
            stretch: self.stretch,
            ramp_time: self.ramp_time,
        }
    }
}

/// Held phyxels moved along fixed directions by one law of time, u_i(t) = s(t) a_i: the notched bar's
/// grips ([`Grips`]: s the load fraction, a_i = stretch ⊙ (X_i − centre)) and the ductile bar's
/// (`ductile::PullingGrips`: s = d(t), a_i = ±x̂). What a backend that steps the body elsewhere needs to
/// hold them as the CPU does (phyxel-gpu's `hold_grips`, given s at each step's end).
#[derive(Clone, Debug, PartialEq)]
pub struct GripPath {
    pub phyxels: Vec<usize>,
    /// a_i of each held phyxel (m per unit of s).
    pub direction: Vec<DVec3>,
}

/// The grips of a [`PulledBar`] apart from its simulation: the held phyxels reach the displacement
/// `stretch` ⊙ (X − centre) over `ramp_time` (the 3D demo keeps the simulation and steps it with these).
#[derive(Clone, Debug, PartialEq)]
pub struct Grips {
    pub phyxels: Vec<usize>,
    pub centre: DVec3,
    pub stretch: DVec3,
    pub ramp_time: f64,
}

impl Grips {
    /// The fraction of the full load the grips hold at time t.
    pub fn load_fraction(&self, t: f64) -> f64 {
        if self.ramp_time > 0.0 {
            (t / self.ramp_time).min(1.0)
        } else {
            1.0
        }
    }

    /// The held phyxel at X's displacement at the full load, a = stretch ⊙ (X − centre).
    fn direction(&self, x: DVec3) -> DVec3 {
        self.stretch * (x - self.centre)
    }

    /// The held phyxels' path, u_i(t) = [`Grips::load_fraction`]\(t) a_i.
    pub fn path(&self, body: &Body) -> GripPath {
        GripPath {
            phyxels: self.phyxels.clone(),
            direction: self
                .phyxels
                .iter()
                .map(|&i| self.direction(body.reference[i]))
                .collect(),
        }
    }

    /// Move the grips of `simulation` to their place at the end of the step, then step it.
    pub fn step(&self, simulation: &mut Simulation, dt: f64) -> Result<(), BlowUp> {
        let s = self.load_fraction(simulation.time + dt);
        let body = &mut simulation.body;
        for &i in &self.phyxels {
            body.displacement[i] = s * self.direction(body.reference[i]);
        }
        simulation.step(dt)
    }
}

/// The notched bar's section width (m): its spacing is this over the phyxels across.
pub const NOTCHED_BAR_WIDTH: f64 = 0.25;

/// The notched bar's phyxels along x, y and z at `across` across (4.8 times as long as wide).
pub fn notched_bar_cells(across: usize) -> [usize; 3] {
    [(24 * across).div_ceil(5), across, across]
}

/// The 3D demo's "notched bar pulled apart": `across` × `across` phyxels in cross-section
/// ([`NOTCHED_BAR_WIDTH`] wide), 4.8 times as long ([`notched_bar_cells`]), h = 2.2 spacings, held by 5 layers at each end (≥ 2h), a notch through
/// the top 2/5 of the height at mid-length, pulled to `load` × the strength over `ramp_time` (s).
/// At `across` = 5 it is the bar of the tests (24 × 5 × 5 at 0.05 m). Refused for fracture settings
/// the solver refuses, fewer than 3 phyxels across, or a load the material cannot hold uniaxially
/// (|load × σ_t| ≥ E/2, the range of [`uniaxial_stretch`]).
pub fn notched_bar(
    across: usize,
    material: Material,
    fracture: FractureSettings,
    load: f64,
    ramp_time: f64,
    damping: f64,
) -> Result<PulledBar, FractureError> {
    if across < 3 {
        return Err(FractureError(format!(
            "the notched bar needs at least 3 phyxels across (got {across})"
        )));
    }
    let stress = load * fracture.strength;
    if stress.is_nan() || stress.abs() >= 0.5 * material.young {
        return Err(FractureError(format!(
            "the grips' stress, load × σ_t = {stress} Pa, must stay below E/2 = {} Pa",
            0.5 * material.young
        )));
    }
    PulledBar::new(BarDescription {
        cells: notched_bar_cells(across),
        spacing: NOTCHED_BAR_WIDTH / across as f64,
        support_factor: 2.2,
        material,
        fracture,
        load,
        ramp_time,
        damping,
        grip_layers: 5,
        notch_layers: (2 * across).div_ceil(5),
    })
}

/// A notch in the plane x = tip.x cut down from above: its front is the straight line y = tip.y across
/// the bar's width (`width`, centred on tip.z, with vertices every half spacing, growing in −y); its
/// top edge lies at y = `top`, outside the body.
pub fn notch(tip: DVec3, top: f64, width: f64, spacing: f64) -> Crack {
    let mut crack = Crack::in_plane(tip, DVec3::X);
    let down = crack.plane_coordinates(tip - DVec3::Y);
    let up = -down;
    let steps = (width / (0.5 * spacing)).ceil() as usize;
    let z0 = tip.z - 0.5 * width;
    let at = |y: f64, z: f64| crack.plane_coordinates(DVec3::new(tip.x, y, z));
    let mut vertices: Vec<OutlineVertex> = (0..=steps)
        .map(|k| OutlineVertex {
            position: at(tip.y, z0 + width * k as f64 / steps as f64),
            direction: down,
            is_front: true,
        })
        .collect();
    for z in [z0 + width, z0] {
        vertices.push(OutlineVertex {
            position: at(top, z),
            direction: up,
            is_front: false,
        });
    }
    for v in vertices {
        crack.push_vertex(v);
    }
    crack
}
