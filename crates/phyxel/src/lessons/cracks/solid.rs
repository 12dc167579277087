//! A 2D meshless elastic solid that cracks: MKN04's MLS displacement gradient in the plane with the
//! crack-modified weights, St Venant–Kirchhoff plane stress, symplectic Euler, and brittle fracture after
//! seed 000 §4.1.3 — initiation where the largest principal stress exceeds the tensile strength (mode I,
//! the crack normal to its eigenvector), fronts advancing at c_prop step by step, crack polylines kept
//! in the reference configuration (seed 002 §7.3).
//!
//! Weights live in the reference configuration, so they change only when a crack changes: then the
//! particles near that crack get their modified weights ω'_ij re-evaluated, and only those whose weights
//! changed get their moment matrices A_i and MLS vectors d_ij recomputed (seed 002 §7.3, "only a small
//! number of shape functions have to be re-evaluated").
//!
//! **Energy through a crack event.** Cutting material at fixed displacements can only lower the stored
//! energy of the continuum (G = −∂U/∂a ≥ 0), but MKN04's nodal energy is not a sum over pairs: re-fitting
//! F_i from the neighbours a crack left — one-sided, near the tip of a √r field — can raise Ψ_i. Measured
//! on a free notched plate (2026-11-24), single updates added up to 0.7 E₀ and the total reached 10 E₀.
//! So a particle whose refit would raise its energy keeps its elastic state: it gets a rest correction
//! G_i with F_i G_i equal to its elastic gradient before the event (a rotation, for one that held no
//! energy), and its energy is Ψ(F_i G_i). The correction then relaxes towards I at the rate c_prop / h
//! (the front passes a support radius in h / c_prop) but only by steps that lower Ψ — plastic-like flow
//! that dissipates, booked with what refits release as [`Solid::dissipated`], the energy the cracks take.
//! A crack event never raises U; the dynamics between events keep the symplectic step's energy.

use super::crack::{modified_weight, omega, Crack, CrackEnd, Criterion};
pub use crate::meshless::fracture::resampling::share_mass;
use crate::meshless::mls::safe_inverse;
use crate::meshless::plasticity::Plasticity;
use glam::{DMat2, DMat3, DVec2};

/// A linear-elastic material with a brittle tensile strength.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Young's modulus E (Pa).
    pub young: f64,
    /// Poisson's ratio ν.
    pub poisson: f64,
    /// Density ρ (kg/m², per unit thickness).
    pub density: f64,
    /// Tensile strength σ_t (Pa): a crack starts where the largest principal stress exceeds it.
    pub strength: f64,
    /// Crack propagation speed c_prop (m/s): how far a front advances per second while it is loaded.
    pub c_prop: f64,
}

impl Material {
    /// Plane-stress Lamé constants (λ', μ): λ' = Eν/(1 − ν²), μ = E/(2(1 + ν)).
    pub fn lame(&self) -> (f64, f64) {
        let (e, nu) = (self.young, self.poisson);
        (e * nu / (1.0 - nu * nu), e / (2.0 * (1.0 + nu)))
    }

    /// The second Piola–Kirchhoff stress of St Venant–Kirchhoff for the deformation gradient F
    /// (MKN04 eqs. 3–4 with Green's strain): S = λ' tr(ε) I + 2μ ε, ε = ½(FᵀF − I).
    pub fn second_piola(&self, f: DMat2) -> DMat2 {
        let (lambda, mu) = self.lame();
        let strain = green_strain(f);
        DMat2::IDENTITY * (lambda * trace(strain)) + strain * (2.0 * mu)
    }

    /// The strain energy density Ψ(F) = ½ λ' tr(ε)² + μ ε:ε.
    pub fn energy_density(&self, f: DMat2) -> f64 {
        let (lambda, mu) = self.lame();
        let e = green_strain(f);
        0.5 * lambda * trace(e).powi(2) + mu * double_dot(e, e)
    }

    /// The Cauchy stress σ = F S Fᵀ / det F.
    pub fn cauchy(&self, f: DMat2) -> DMat2 {
        let j = f.determinant();
        let s = self.second_piola(f);
        if j > 0.0 {
            f * s * f.transpose() / j
        } else {
            s
        }
    }
}

/// Green's strain ε = ½(FᵀF − I).
pub fn green_strain(f: DMat2) -> DMat2 {
    (f.transpose() * f - DMat2::IDENTITY) * 0.5
}

fn trace(m: DMat2) -> f64 {
    m.x_axis.x + m.y_axis.y
}

fn double_dot(a: DMat2, b: DMat2) -> f64 {
    a.x_axis.dot(b.x_axis) + a.y_axis.dot(b.y_axis)
}

/// a bᵀ.
fn outer2(a: DVec2, b: DVec2) -> DMat2 {
    DMat2::from_cols(a * b.x, a * b.y)
}

/// The largest eigenvalue of a symmetric 2×2 matrix and its unit eigenvector.
pub fn largest_principal(s: DMat2) -> (f64, DVec2) {
    let (a, b, c) = (s.x_axis.x, 0.5 * (s.x_axis.y + s.y_axis.x), s.y_axis.y);
    let mean = 0.5 * (a + c);
    let radius = (0.25 * (a - c).powi(2) + b * b).sqrt();
    let lambda = mean + radius;
    let v = if b.abs() > 1e-300 {
        DVec2::new(lambda - c, b)
    } else if a >= c {
        DVec2::X
    } else {
        DVec2::Y
    };
    (lambda, v.normalize_or(DVec2::X))
}

/// Eigenvalues of A_i below this fraction of the largest count as zero. Stricter than the solver's 10⁻⁴:
/// a particle that cracks have left with a sliver of neighbours would otherwise get d_ij large enough to
/// make the explicit step unstable; with 0.05 it counts as rank-deficient instead (a half-plane
/// neighbourhood, at a crack face or a free edge, has λ₂/λ₁ ≈ 0.3 and stays regular).
pub const RELATIVE_THRESHOLD: f64 = 0.05;

/// The smallest |det F_i| of a refit that a rest correction may invert ([`Solid`]'s crack events).
pub const SMALLEST_REFIT_DETERMINANT: f64 = 0.1;

/// The rotation R of the polar decomposition F = R S (2D: the angle of F + cof F).
pub fn rotation_of(f: DMat2) -> DMat2 {
    let (a, b, c, d) = (f.x_axis.x, f.y_axis.x, f.x_axis.y, f.y_axis.y);
    // F + cof(F) = [[a + d, b − c], [c − b, a + d]] is a multiple of R where det F > 0.
    let angle = (c - b).atan2(a + d);
    DMat2::from_angle(angle)
}

/// The rank of a regular moment matrix in the plane.
pub const PLANAR_RANK: u8 = 2;

/// The largest angle (radians) a crack front turns per lattice spacing it grows.
pub const MAX_TURN: f64 = std::f64::consts::FRAC_PI_6;

/// No crack starts within this many support radii of a crack front: the front's own stress field
/// exceeds the strength there, and the front, growing, relieves it.
pub const FRONT_ZONE: f64 = 3.0;

/// What happened to a crack, for the readouts and the tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EventKind {
    /// A new crack started at a particle whose largest principal stress exceeded the strength.
    Initiation,
    /// An existing front (a notch's tip, or an arrested crack) started to advance.
    FrontStarted,
}

/// A crack event: when, where (reference configuration), and the crack's normal there (the eigenvector
/// of the largest principal stress).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrackEvent {
    pub step: u64,
    pub kind: EventKind,
    pub position: DVec2,
    pub normal: DVec2,
    /// The largest principal stress that triggered it, over the strength.
    pub stress_ratio: f64,
}

/// Adaptive resampling after seed 002 eq. 71 (Pauly et al. 2005): a particle whose weights a crack
/// changed and whose Ω_i = Σ_j ω'_ij/ω_ij fell below Ω_min gets ⌈Ω_min − Ω_i⌉ new particles beside it
/// on its side of the crack; it shares its mass with them evenly, and they take its velocity and its
/// elastic state.
///
/// **Ω_min in 2D.** The seed's Ω_min = 10 is for 3D neighbourhoods: the project's 3D lattice
/// (h = 2.2 a) gives 32 neighbours inside, 22 at a flat face. Here (h = 2.5 a) a particle has 20 inside,
/// 12 at a flat face (a crack face or the plate's edge) and 7 at a corner; the same share of the full
/// neighbourhood, 10 · 20/32, is 6 — below a flat face and a corner, so only a particle that lost more
/// than the material of a corner is resampled (a sliver between two cracks, the tip region of a crack
/// that meets another). [`OMEGA_MIN_2D`] is that default; the page lets it be raised (10 resamples every
/// corner a crack cuts, 13 every particle beside a crack face).
///
/// **Support radii.** The k particles that share m_i (the old one and the new ones) each have volume
/// V_i / k, so the sampling there is k times denser: the new ones get h_i / √k, which keeps h over the
/// local spacing √(V/k) as it was, but never less than the minimal support radius
/// [`Resampling::min_support`], and a particle at that minimum is not split again (seed 002: "particle
/// splitting is restricted by prescribing a minimal support radius"); here, more strictly, a particle
/// resampling has split or made is not split again (without this, cascades of splits made particles
/// of m/12 in the soaked plate). The old particle keeps h_i: the
/// new particles then lie in its support, uncut, and raise its Ω_i to Ω_min as eq. 71 intends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resampling {
    pub enabled: bool,
    /// Ω_min (positive).
    pub omega_min: f64,
    /// The minimal support radius h_min (m).
    pub min_support: f64,
    /// At most this many particles inserted over the run; a split beyond it is refused and counted
    /// ([`Solid::refused`]): the work of a step stays bounded.
    pub cap: usize,
}

/// The 2D default Ω_min ([`Resampling`]'s doc: the seed's 10 scaled by 20/32).
pub const OMEGA_MIN_2D: f64 = 6.0;

/// h_min over the lattice's h: 0.6 h = 1.5 a, so that a new particle's support still reaches the
/// lattice neighbours beside it.
pub const MIN_SUPPORT_RATIO: f64 = 0.6;

/// How far from its parent (in the parent's h over the lattice's h, times a) a new particle is put.
pub const SPLIT_DISTANCE: f64 = 0.3;

/// The directions tried for new particles around their parent.
const SPLIT_DIRECTIONS: usize = 12;

impl Resampling {
    /// Resampling on at `omega_min`, h_min = [`MIN_SUPPORT_RATIO`] h, at most `cap` particles inserted.
    pub fn on(omega_min: f64, h: f64, cap: usize) -> Self {
        Self {
            enabled: true,
            omega_min,
            min_support: MIN_SUPPORT_RATIO * h,
            cap,
        }
    }

    /// Resampling off.
    pub fn off(h: f64) -> Self {
        Self {
            enabled: false,
            ..Self::on(OMEGA_MIN_2D, h, 0)
        }
    }
}

/// Neighbour lists (CSR: `start`, `neighbour`) and uncut weights ω(|X_ij|/h_i) of particles at
/// `reference` with supports `support`: j is a neighbour of i where |X_j − X_i| < h_i (a cell grid of
/// the largest support).
fn neighbourhoods(reference: &[DVec2], support: &[f64]) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
    let n = reference.len();
    let size = support.iter().cloned().fold(0.0, f64::max).max(1e-300);
    let cell = |p: DVec2| ((p.x / size).floor() as i64, (p.y / size).floor() as i64);
    let mut grid: std::collections::HashMap<(i64, i64), Vec<usize>> =
        std::collections::HashMap::new();
    for (i, &p) in reference.iter().enumerate() {
        grid.entry(cell(p)).or_default().push(i);
    }
    let mut start = Vec::with_capacity(n + 1);
    let mut neighbour = Vec::new();
    let mut uncut = Vec::new();
    for (i, &x_i) in reference.iter().enumerate() {
        start.push(neighbour.len());
        let h = support[i];
        let (cx, cy) = cell(x_i);
        let mut found = Vec::new();
        for gx in cx - 1..=cx + 1 {
            for gy in cy - 1..=cy + 1 {
                for &j in grid.get(&(gx, gy)).map_or(&[][..], |v| v) {
                    let q = x_i.distance(reference[j]) / h;
                    if j != i && q < 1.0 {
                        found.push((j, omega(q, h)));
                    }
                }
            }
        }
        found.sort_by_key(|&(j, _)| j);
        for (j, w) in found {
            neighbour.push(j);
            uncut.push(w);
        }
    }
    start.push(neighbour.len());
    (start, neighbour, uncut)
}

/// The 2D solid: particles on a lattice in the reference configuration, with neighbour lists (CSR),
/// uncut weights ω_ij, modified weights ω'_ij and MLS vectors d_ij = A_i⁻¹ x_ij ω'_ij.
#[derive(Clone, Debug)]
pub struct Solid {
    /// Reference (material) positions X_i.
    pub reference: Vec<DVec2>,
    pub positions: Vec<DVec2>,
    pub velocities: Vec<DVec2>,
    /// Held particles move with their prescribed velocity; the rest are free.
    pub held: Vec<bool>,
    pub held_velocity: Vec<DVec2>,
    pub material: Material,
    pub criterion: Criterion,
    pub cracks: Vec<Crack>,
    /// Lattice spacing a: a lattice particle's volume a², mass ρa².
    pub spacing: f64,
    /// The lattice's support radius h (that of every particle the body started with).
    pub h: f64,
    /// Mass m_i of each particle (ρa² but where resampling shared a particle's mass); its volume is
    /// V_i = m_i / ρ.
    mass: Vec<f64>,
    /// Support radius h_i of each particle (h but for particles resampling inserted or split).
    support: Vec<f64>,
    /// Adaptive resampling (seed 002 eq. 71): when and how far particles are split.
    pub resampling: Resampling,
    /// Particles resampling inserted, and those it refused for the cap ([`Resampling::cap`]).
    pub inserted: usize,
    pub refused: usize,
    /// Resampling events (particles split).
    pub splits: usize,
    /// Whether resampling has split this particle or made it: neither is split again.
    resampled: Vec<bool>,
    /// Held particles and those within h of one: no crack starts there.
    near_held: Vec<bool>,
    /// Velocity damping (1/s); 0 for the energy tests.
    pub damping: f64,
    /// Whether cracks start and grow (off: the weights stay as they are).
    pub fracture: bool,
    start: Vec<usize>,
    neighbour: Vec<usize>,
    uncut: Vec<f64>,
    weight: Vec<f64>,
    d: Vec<DVec2>,
    rank: Vec<u8>,
    /// Cauchy stress at each particle, from the last force evaluation.
    pub stress: Vec<DMat2>,
    /// The rest correction G_i of each particle: its elastic gradient is F_i G_i (I but after a crack
    /// event whose refit would have raised Ψ_i).
    rest_correction: Vec<DMat2>,
    /// The inverse plastic deformation Q_i = F_p,i⁻¹ of a ductile plate (I where nothing flowed): the
    /// elastic gradient is F_i Q_i G_i.
    plastic_inverse: Vec<DMat2>,
    /// The accumulated plastic strain ε̄_p,i = Σ γ ‖e‖ of each particle (at most c_max).
    pub plastic_strain: Vec<f64>,
    /// Plastic flow (von Mises on the deviatoric Hencky strain, multiplicative, as the 3D solver's
    /// [`Plasticity::flow_multiplicative`] in the plane): `None` for a brittle plate.
    pub plasticity: Option<Plasticity>,
    /// The energy plastic flow took out of the strain energy, J (each flow step's V ΔΨ ≤ 0).
    pub plastic_work: f64,
    /// Energy the cracks took out of the strain energy, J: what refits at crack events released (a
    /// refit never adds any) and what relaxing rest corrections let go since.
    pub dissipated: f64,
    forces: Vec<DVec2>,
    pub events: Vec<CrackEvent>,
    /// Whether each crack's start and end fronts have advanced yet (a notch's tip starts still).
    front_moved: Vec<[bool; 2]>,
    /// How many particles had their moment matrix recomputed at the last crack update, and in all.
    pub recomputed_last: usize,
    pub recomputed_total: usize,
    /// The step (+ 1) at which each particle's moment matrix was last recomputed: a particle a crack
    /// and then a resampling both touch in one step counts once.
    recomputed_at: Vec<u64>,
    pub steps: u64,
}

impl Solid {
    /// Particles at `reference` (spacing a, support radius h), at rest in the reference configuration,
    /// with `cracks` already cut (a notch).
    pub fn new(
        reference: Vec<DVec2>,
        spacing: f64,
        h: f64,
        material: Material,
        criterion: Criterion,
        cracks: Vec<Crack>,
    ) -> Self {
        let n = reference.len();
        let support = vec![h; n];
        let (start, neighbour, uncut) = neighbourhoods(&reference, &support);
        let edges = neighbour.len();
        let front_moved = vec![[false; 2]; cracks.len()];
        let mut solid = Self {
            positions: reference.clone(),
            velocities: vec![DVec2::ZERO; n],
            held: vec![false; n],
            held_velocity: vec![DVec2::ZERO; n],
            near_held: vec![false; n],
            reference,
            material,
            criterion,
            cracks,
            spacing,
            h,
            mass: vec![material.density * spacing * spacing; n],
            support,
            resampling: Resampling::off(h),
            inserted: 0,
            refused: 0,
            splits: 0,
            resampled: vec![false; n],
            damping: 0.0,
            fracture: true,
            start,
            neighbour,
            weight: uncut.clone(),
            uncut,
            d: vec![DVec2::ZERO; edges],
            rank: vec![0; n],
            stress: vec![DMat2::ZERO; n],
            rest_correction: vec![DMat2::IDENTITY; n],
            plastic_inverse: vec![DMat2::IDENTITY; n],
            plastic_strain: vec![0.0; n],
            plasticity: None,
            plastic_work: 0.0,
            dissipated: 0.0,
            forces: vec![DVec2::ZERO; n],
            events: Vec::new(),
            front_moved,
            recomputed_last: 0,
            recomputed_total: 0,
            recomputed_at: vec![0; n],
            steps: 0,
        };
        let all: Vec<usize> = (0..n).collect();
        solid.reweigh(&all);
        for i in 0..n {
            solid.update_mls(i);
        }
        solid.recomputed_last = 0;
        solid.recomputed_total = 0;
        solid.recomputed_at.iter_mut().for_each(|s| *s = 0);
        solid.evaluate();
        solid
    }

    /// A lattice of nx × ny particles, spacing a, lower-left particle at the origin, h = `support_ratio` · a.
    pub fn lattice(
        nx: usize,
        ny: usize,
        spacing: f64,
        support_ratio: f64,
        material: Material,
        criterion: Criterion,
        cracks: Vec<Crack>,
    ) -> Self {
        let reference = (0..ny)
            .flat_map(|y| (0..nx).map(move |x| DVec2::new(x as f64, y as f64) * spacing))
            .collect();
        Self::new(
            reference,
            spacing,
            support_ratio * spacing,
            material,
            criterion,
            cracks,
        )
    }

    pub fn len(&self) -> usize {
        self.reference.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reference.is_empty()
    }

    /// Particle i's mass m_i (ρ a² on the lattice).
    pub fn mass(&self, i: usize) -> f64 {
        self.mass[i]
    }

    /// The particles' masses.
    pub fn masses(&self) -> &[f64] {
        &self.mass
    }

    /// Particle i's volume V_i = m_i / ρ.
    pub fn volume(&self, i: usize) -> f64 {
        self.mass[i] / self.material.density
    }

    /// Particle i's support radius h_i.
    pub fn support(&self, i: usize) -> f64 {
        self.support[i]
    }

    /// Seed 002 eq. 71: Ω_i = Σ_j ω'_ij / ω_ij, the neighbours particle i still sees (the count of its
    /// neighbours where no crack cuts them).
    pub fn omega_sum(&self, i: usize) -> f64 {
        self.edges(i)
            .filter(|&k| self.uncut[k] > 0.0)
            .map(|k| self.weight[k] / self.uncut[k])
            .sum()
    }

    /// Moment matrices the safe inverse regularised (rank below 2: a direction dropped).
    pub fn regularised(&self) -> usize {
        self.rank.iter().filter(|&&r| r < PLANAR_RANK).count()
    }

    /// The edges (indices into the neighbour arrays) of particle i.
    pub fn edges(&self, i: usize) -> std::ops::Range<usize> {
        self.start[i]..self.start[i + 1]
    }

    /// Neighbour j, uncut weight ω_ij, modified weight ω'_ij of edge k.
    pub fn edge(&self, k: usize) -> (usize, f64, f64) {
        (self.neighbour[k], self.uncut[k], self.weight[k])
    }

    /// The rank the safe inverse kept for A_i: 2 regular, 1 or 0 where cracks left too few neighbours.
    pub fn rank(&self, i: usize) -> u8 {
        self.rank[i]
    }

    /// The particles with no neighbour left (every weight cut): free particles.
    pub fn isolated(&self) -> usize {
        (0..self.len())
            .filter(|&i| self.edges(i).all(|k| self.weight[k] == 0.0))
            .count()
    }

    /// Re-evaluate ω'_ij for the edges of `particles`; returns the particles whose weights changed.
    fn reweigh(&mut self, particles: &[usize]) -> Vec<usize> {
        let mut changed = Vec::new();
        for &i in particles {
            let mut any = false;
            for k in self.edges(i) {
                let j = self.neighbour[k];
                let w = if self.uncut[k] == 0.0 {
                    0.0
                } else {
                    modified_weight(
                        self.reference[i],
                        self.reference[j],
                        self.support[i],
                        &self.cracks,
                        self.criterion,
                    )
                };
                if w != self.weight[k] {
                    self.weight[k] = w;
                    any = true;
                }
            }
            if any {
                changed.push(i);
            }
        }
        changed
    }

    /// The moment matrix A_i = Σ_j ω'_ij X_ij X_ijᵀ (MKN04 eq. 8 with the modified weights) and the MLS
    /// vectors d_ij = A_i⁻¹ X_ij ω'_ij (MKN04 eq. 9), with the solver's safe inverse (A_i embedded in
    /// 3×3, so a full-rank plane has rank 2) at [`RELATIVE_THRESHOLD`].
    fn update_mls(&mut self, i: usize) {
        let x_i = self.reference[i];
        let mut a = DMat2::ZERO;
        for k in self.edges(i) {
            let x_ij = self.reference[self.neighbour[k]] - x_i;
            a += outer2(x_ij, x_ij) * self.weight[k];
        }
        let a3 = DMat3::from_cols(
            a.x_axis.extend(0.0),
            a.y_axis.extend(0.0),
            glam::DVec3::ZERO,
        );
        let inverse = safe_inverse(a3, RELATIVE_THRESHOLD);
        let inv = DMat2::from_cols(
            inverse.inverse.x_axis.truncate(),
            inverse.inverse.y_axis.truncate(),
        );
        self.rank[i] = inverse.rank;
        for k in self.edges(i) {
            let x_ij = self.reference[self.neighbour[k]] - x_i;
            self.d[k] = inv * x_ij * self.weight[k];
        }
        if self.recomputed_at[i] != self.steps + 1 {
            self.recomputed_at[i] = self.steps + 1;
            self.recomputed_last += 1;
            self.recomputed_total += 1;
        }
    }

    /// The displacement gradient's MLS estimate, F_i = I + Σ_j (u_j − u_i) d_ijᵀ (MKN04 eq. 9).
    pub fn deformation_gradient(&self, i: usize) -> DMat2 {
        let u_i = self.positions[i] - self.reference[i];
        self.edges(i).fold(DMat2::IDENTITY, |f, k| {
            let j = self.neighbour[k];
            let u_j = self.positions[j] - self.reference[j];
            f + outer2(u_j - u_i, self.d[k])
        })
    }

    /// The elastic gradient F_i G_i: the MLS gradient times the rest correction of the crack events.
    pub fn elastic_gradient(&self, i: usize) -> DMat2 {
        self.plastic_gradient(i) * self.rest_correction[i]
    }

    /// F_i Q_i: the MLS gradient with the plastic deformation taken out (F_i on a brittle plate).
    pub fn plastic_gradient(&self, i: usize) -> DMat2 {
        self.deformation_gradient(i) * self.plastic_inverse[i]
    }

    /// The strain energy V Ψ(F_i G_i) particle i holds (none where its moment matrix lost rank).
    pub fn particle_energy(&self, i: usize) -> f64 {
        if self.rank[i] < PLANAR_RANK {
            return 0.0;
        }
        self.volume(i) * self.material.energy_density(self.elastic_gradient(i))
    }

    /// Σ_j d_ij X_ijᵀ: the identity wherever A_i is invertible (linear consistency of the MLS gradient).
    pub fn consistency(&self, i: usize) -> DMat2 {
        self.edges(i).fold(DMat2::ZERO, |m, k| {
            m + outer2(
                self.reference[self.neighbour[k]] - self.reference[i],
                self.d[k],
            )
        })
    }

    /// Forces and stresses of the current positions: U = Σ_i V Ψ(F_i G_i), f = −∂U/∂x (MKN04 eqs.
    /// 14–16 in first-Piola form: with P_i = F_e S(F_e) at F_e = F_i G_i, ∂Ψ/∂F_i = P_i G_iᵀ; particle
    /// j gets −V P_i G_iᵀ d_ij and i gets V P_i G_iᵀ Σ_j d_ij).
    /// A particle whose moment matrix lost rank (cracks left its neighbours collinear, or one, or none)
    /// cannot measure a plane strain: it holds no energy and its neighbours' forces carry it. Returns U.
    pub fn evaluate(&mut self) -> f64 {
        self.forces.iter_mut().for_each(|f| *f = DVec2::ZERO);
        let mut energy = 0.0;
        for i in 0..self.len() {
            if self.rank[i] < PLANAR_RANK {
                self.stress[i] = DMat2::ZERO;
                continue;
            }
            let volume = self.volume(i);
            // ∂Ψ(F Q G)/∂F = P(F_e) (Q G)ᵀ.
            let g = self.plastic_inverse[i] * self.rest_correction[i];
            let f = self.deformation_gradient(i) * g;
            let s = self.material.second_piola(f);
            let p = f * s * g.transpose();
            energy += volume * self.material.energy_density(f);
            self.stress[i] = self.material.cauchy(f);
            let mut sum = DVec2::ZERO;
            for k in self.edges(i) {
                let force = p * self.d[k] * volume;
                self.forces[self.neighbour[k]] -= force;
                sum += force;
            }
            self.forces[i] += sum;
        }
        energy
    }

    /// The elastic forces of the last [`Solid::evaluate`].
    pub fn forces(&self) -> &[DVec2] {
        &self.forces
    }

    /// The strain energy U = Σ_i V Ψ(F_i G_i) of the current positions (no side effects on the forces).
    pub fn strain_energy(&self) -> f64 {
        (0..self.len()).map(|i| self.particle_energy(i)).sum()
    }

    /// The kinetic energy ½ Σ m_i v_i².
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self
            .velocities
            .iter()
            .zip(&self.mass)
            .map(|(v, m)| m * v.length_squared())
            .sum::<f64>()
    }

    /// The momentum Σ m_i v_i.
    pub fn momentum(&self) -> DVec2 {
        self.velocities
            .iter()
            .zip(&self.mass)
            .map(|(v, m)| *v * *m)
            .sum()
    }

    /// How many substeps a step takes: ⌈√(ρa² / min m_i)⌉, 1 on the lattice. A particle that holds
    /// 1/k of a lattice particle's mass with a lattice particle's stiffness vibrates √k times faster,
    /// so the explicit step's bound shrinks by √k (measured: without substeps split particles of
    /// m/8 rattled at 0.5 m/s and the plate blew up after 32 000 steps).
    pub fn substeps(&self) -> usize {
        let lattice = self.material.density * self.spacing * self.spacing;
        let lightest = self.mass.iter().cloned().fold(lattice, f64::min);
        (lattice / lightest).sqrt().ceil().max(1.0) as usize
    }

    /// One step of Δt: forces from the current positions, symplectic Euler (held particles move with
    /// their prescribed velocity) in [`Solid::substeps`] substeps, then the cracks grow from this
    /// step's stresses.
    pub fn step(&mut self, dt: f64) {
        let substeps = self.substeps();
        let h = dt / substeps as f64;
        let damping = (1.0 - self.damping * h).max(0.0);
        for _ in 0..substeps {
            self.evaluate();
            for i in 0..self.len() {
                if self.held[i] {
                    self.velocities[i] = self.held_velocity[i];
                } else {
                    self.velocities[i] =
                        (self.velocities[i] + self.forces[i] * (h / self.mass[i])) * damping;
                }
                self.positions[i] += self.velocities[i] * h;
            }
        }
        self.steps += 1;
        self.relax_rest_corrections(dt);
        if let Some(plasticity) = self.plasticity {
            self.flow(&plasticity, dt);
        }
        if self.fracture {
            self.fracture_step(dt);
        }
    }

    /// Each rest correction G_i ≠ I moves a fraction β = min(c_prop Δt / h, 1) of the way to I when that
    /// lowers V Ψ(F_i G_i), and stays otherwise; the energy it lets go is added to [`Solid::dissipated`].
    fn relax_rest_corrections(&mut self, dt: f64) {
        let beta = (self.material.c_prop * dt / self.h).min(1.0);
        for i in 0..self.len() {
            let g = self.rest_correction[i];
            if g == DMat2::IDENTITY {
                continue;
            }
            if self.rank[i] < PLANAR_RANK {
                self.rest_correction[i] = DMat2::IDENTITY;
                continue;
            }
            let trial = g + (DMat2::IDENTITY - g) * beta;
            let f = self.plastic_gradient(i);
            let (now, relaxed) = (
                self.material.energy_density(f * g),
                self.material.energy_density(f * trial),
            );
            if relaxed <= now {
                self.dissipated += self.volume(i) * (now - relaxed);
                // Within rounding of I: I exactly, so that the particle drops out of this loop.
                let settled = (trial - DMat2::IDENTITY).abs_diff_eq(DMat2::ZERO, 1e-12);
                self.rest_correction[i] = if settled { DMat2::IDENTITY } else { trial };
            }
        }
    }

    /// One step of plastic flow at every particle that measures a plane strain: the 3D solver's
    /// multiplicative flow ([`Plasticity::flow_multiplicative`]) in the plane. With F_e = U diag(σ) Vᵀ
    /// and the deviatoric Hencky strain e = ln σ − ½ Σ ln σ_k (plane: volume change never flows), where
    /// ‖e‖ > c_yield the plastic deformation grows by P = V diag(exp(γ e)) Vᵀ, γ = min(c_creep Δt, 1)
    /// (‖e‖ − c_yield)/‖e‖ within what c_max leaves of ε̄_p, so that F_e ← F_e P⁻¹ =
    /// U diag(σ exp(−γ e)) Vᵀ (Q G ← Q G P⁻¹). A flow that would raise Ψ (St Venant–Kirchhoff far in
    /// compression) is not taken; the energy each flow releases, V ΔΨ, is booked as
    /// [`Solid::plastic_work`].
    fn flow(&mut self, plasticity: &Plasticity, dt: f64) {
        for i in 0..self.len() {
            if self.rank[i] < PLANAR_RANK {
                continue;
            }
            let elastic = self.elastic_gradient(i);
            if elastic.determinant() <= 0.0 {
                continue;
            }
            // FᵀF = V diag(σ²) Vᵀ.
            let c = elastic.transpose() * elastic;
            let (largest, v1) = largest_principal(c);
            let smallest = (c.x_axis.x + c.y_axis.y - largest).max(1e-12);
            let hencky = [0.5 * largest.max(1e-12).ln(), 0.5 * smallest.ln()];
            let mean = 0.5 * (hencky[0] + hencky[1]);
            let e = DVec2::new(hencky[0] - mean, hencky[1] - mean);
            let size = e.length();
            if size <= plasticity.yield_strain {
                continue;
            }
            let rate = (plasticity.creep * dt).min(1.0) * (size - plasticity.yield_strain) / size;
            let capacity = (plasticity.max_strain - self.plastic_strain[i]).max(0.0) / size;
            let gamma = rate.min(capacity);
            if gamma <= 0.0 {
                continue;
            }
            let v = DMat2::from_cols(v1, v1.perp());
            let inverse_increment = v
                * DMat2::from_diagonal(DVec2::new((-gamma * e.x).exp(), (-gamma * e.y).exp()))
                * v.transpose();
            let now = self.material.energy_density(elastic);
            let after = self.material.energy_density(elastic * inverse_increment);
            if after > now {
                continue;
            }
            // Q G ← Q G P⁻¹ with G kept: Q ← Q G P⁻¹ G⁻¹.
            let g = self.rest_correction[i];
            self.plastic_inverse[i] = self.plastic_inverse[i] * g * inverse_increment * g.inverse();
            self.plastic_strain[i] += gamma * size;
            self.plastic_work += self.volume(i) * (now - after);
        }
    }

    /// The largest principal stress over the strength at particle i, and its eigenvector.
    pub fn stress_ratio(&self, i: usize) -> (f64, DVec2) {
        let (s, v) = largest_principal(self.stress[i]);
        (s / self.material.strength, v)
    }

    /// Grow the cracks from the stresses of this step (seed 000 §4.1.3): every front advances by
    /// c_prop Δt while the largest principal stress near it exceeds the strength, in the direction normal
    /// to that stress's eigenvector; then at most one crack starts, at the free particle with the
    /// largest principal stress above the strength that lies farther than h from every crack. The
    /// weights of the particles near a changed crack are re-evaluated and the moment matrices of those
    /// whose weights changed recomputed.
    pub fn fracture_step(&mut self, dt: f64) {
        self.recomputed_last = 0;
        // The grips: held particles and their neighbours (the holds may have changed since the last step).
        for i in 0..self.len() {
            self.near_held[i] = self.held[i] || self.edges(i).any(|k| self.held[self.neighbour[k]]);
        }
        // Cracks added from outside (the page) start with fronts that have not moved.
        self.front_moved.resize(self.cracks.len(), [false; 2]);
        let advance = self.material.c_prop * dt;
        let mut changed_cracks = Vec::new();
        for c in 0..self.cracks.len() {
            let mut changed = false;
            for at_start in [true, false] {
                changed |= self.grow_front(c, at_start, advance);
            }
            if changed {
                changed_cracks.push(c);
            }
        }
        if let Some(c) = self.initiate(advance) {
            changed_cracks.push(c);
        }
        if !changed_cracks.is_empty() {
            let changed = self.update_weights_near(&changed_cracks);
            if self.resampling.enabled {
                self.resample(&changed);
            }
        }
    }

    /// Advance one end of crack c if it is a loaded front; true if the crack changed.
    fn grow_front(&mut self, c: usize, at_start: bool, advance: f64) -> bool {
        let crack = &self.cracks[c];
        let end = if at_start { crack.start } else { crack.end };
        if !end.is_front {
            return false;
        }
        let tip = if at_start {
            crack.vertices[0]
        } else {
            *crack.vertices.last().unwrap()
        };
        // The particles ahead of the front within h: their largest stress drives it.
        let mut nearest = f64::INFINITY;
        let mut ahead = 0;
        let mut peak = 0.0_f64;
        let mut averaged = DMat2::ZERO;
        for i in 0..self.len() {
            let r = self.reference[i] - tip;
            let distance = r.length();
            nearest = nearest.min(distance);
            if distance >= self.h || r.dot(end.direction) <= 0.0 {
                continue;
            }
            ahead += 1;
            let (ratio, _) = self.stress_ratio(i);
            peak = peak.max(ratio);
            averaged += self.stress[i] * omega(distance / self.h, self.h);
        }
        if nearest > self.spacing || ahead == 0 {
            // The front has left the body (no particle near it, or none ahead of it): it is surface
            // now, no longer a front.
            self.set_end(c, at_start, tip, end.direction, false);
            return true;
        }
        if peak < 1.0 {
            return false;
        }
        // Mode I: grow normal to the eigenvector of the largest principal stress ahead, onward, turning
        // by at most MAX_TURN per spacing of growth (the stress beside a running crack is unloaded and
        // its direction noisy; the limit keeps the path from zigzagging on it).
        let (_, normal) = largest_principal(averaged);
        let mut wanted = normal.perp();
        if wanted.dot(end.direction) < 0.0 {
            wanted = -wanted;
        }
        let turn = end.direction.angle_to(wanted);
        let limit = MAX_TURN * advance / self.spacing;
        let direction = DVec2::from_angle(turn.clamp(-limit, limit)).rotate(end.direction);
        let side = usize::from(!at_start);
        if !self.front_moved[c][side] {
            self.front_moved[c][side] = true;
            self.events.push(CrackEvent {
                step: self.steps,
                kind: EventKind::FrontStarted,
                position: tip,
                normal,
                stress_ratio: peak,
            });
        }
        self.set_end(c, at_start, tip + direction * advance, direction, true);
        true
    }

    /// Move an end of crack c to `tip`: the last segment is extended until it is half a spacing long,
    /// then a new vertex starts.
    fn set_end(&mut self, c: usize, at_start: bool, tip: DVec2, direction: DVec2, is_front: bool) {
        let half = 0.5 * self.spacing;
        let crack = &mut self.cracks[c];
        let n = crack.vertices.len();
        if at_start {
            if n > 2 && crack.vertices[1].distance(crack.vertices[0]) < half {
                crack.vertices[0] = tip;
            } else if crack.vertices[0] != tip {
                crack.vertices.insert(0, tip);
            }
            crack.start = CrackEnd {
                direction,
                is_front,
            };
        } else {
            if n > 2 && crack.vertices[n - 2].distance(crack.vertices[n - 1]) < half {
                crack.vertices[n - 1] = tip;
            } else if crack.vertices[n - 1] != tip {
                crack.vertices.push(tip);
            }
            crack.end = CrackEnd {
                direction,
                is_front,
            };
        }
    }

    /// Start a crack at the most stressed free particle above the strength that is farther than h from
    /// every crack, farther than [`FRONT_ZONE`] h from every crack front (the stress there is the
    /// front's, which grows it) and from every held particle (a grip concentrates stress artificially): a short segment normal to its eigenvector, half a spacing off the particle along
    /// the normal (so it passes between particles rather than through one). Returns its index.
    fn initiate(&mut self, advance: f64) -> Option<usize> {
        let mut best: Option<(usize, f64, DVec2)> = None;
        for i in 0..self.len() {
            if self.near_held[i] || self.edges(i).all(|k| self.weight[k] == 0.0) {
                continue;
            }
            let (ratio, normal) = self.stress_ratio(i);
            if ratio <= 1.0 || best.is_some_and(|(_, r, _)| ratio <= r) {
                continue;
            }
            let x = self.reference[i];
            let zone = FRONT_ZONE * self.h;
            if self
                .cracks
                .iter()
                .any(|c| c.distance(x) < self.h || c.fronts().any(|f| f.distance(x) < zone))
            {
                continue;
            }
            best = Some((i, ratio, normal));
        }
        let (i, ratio, normal) = best?;
        let centre = self.reference[i] + normal * (0.5 * self.spacing);
        let along = normal.perp() * advance.max(1e-9 * self.spacing);
        self.cracks
            .push(Crack::segment(centre - along, centre + along, true, true));
        self.front_moved.push([true; 2]);
        self.events.push(CrackEvent {
            step: self.steps,
            kind: EventKind::Initiation,
            position: centre,
            normal,
            stress_ratio: ratio,
        });
        Some(self.cracks.len() - 1)
    }

    /// Re-evaluate the weights of the particles within h of the changed cracks (only their pairs can
    /// cross them) and recompute the MLS data of those whose weights changed.
    /// Returns the particles whose weights changed.
    fn update_weights_near(&mut self, cracks: &[usize]) -> Vec<usize> {
        let candidates: Vec<usize> = (0..self.len())
            .filter(|&i| {
                cracks
                    .iter()
                    .any(|&c| self.cracks[c].distance(self.reference[i]) < self.support[i])
            })
            .collect();
        let changed = self.reweigh(&candidates);
        for &i in &changed {
            let before = self.particle_energy(i);
            let elastic = self.elastic_gradient(i);
            let held_energy = self.rank[i] == PLANAR_RANK;
            self.update_mls(i);
            self.keep_elastic_state(i, before, if held_energy { Some(elastic) } else { None });
        }
        changed
    }

    /// After particle i's refit: where its energy fell below `before`, the difference is what the crack
    /// released ([`Solid::dissipated`]); where it rose, the rest correction that gives back its elastic
    /// gradient from before the event — F_i G_i = `elastic`, or the rotation of F_i for a particle
    /// that held no energy (G_i = F_i⁻¹ R_i). A refit F_i too close to singular for that
    /// (|det F_i| < [`SMALLEST_REFIT_DETERMINANT`]) cannot carry a state: the particle holds no energy
    /// until its next refit, like one whose neighbourhood lost rank, and its energy is released.
    fn keep_elastic_state(&mut self, i: usize, before: f64, elastic: Option<DMat2>) {
        self.rest_correction[i] = DMat2::IDENTITY;
        let after = self.particle_energy(i);
        if after <= before {
            self.dissipated += before - after;
            return;
        }
        let f = self.plastic_gradient(i);
        if f.determinant().abs() < SMALLEST_REFIT_DETERMINANT {
            self.rank[i] = 0;
            self.dissipated += before;
            return;
        }
        let target = elastic.unwrap_or_else(|| rotation_of(f));
        self.rest_correction[i] = f.inverse() * target;
    }

    /// Seed 002 eq. 71 at the particles whose weights a crack update changed: each free one with
    /// h_i > h_min and Ω_i < Ω_min is split ([`Resampling`]). The new particles sit SPLIT_DISTANCE a
    /// (scaled by h_i / h) from their parent in directions whose segment from it crosses no crack (its
    /// side), at x = x_i + F_i (X − X_i) with F_i the parent's gradient, with its velocity; the parent's
    /// mass is shared exactly ([`share_mass`]). The neighbour lists are rebuilt; only the particles whose
    /// lists changed (the new ones, and those whose support now holds one) are re-weighed and get their
    /// moment matrices recomputed, and each keeps its elastic state as at a crack event
    /// (`keep_elastic_state`): the new ones that of their parent, so no split raises U.
    fn resample(&mut self, changed: &[usize]) {
        let r = self.resampling;
        // (parent, new reference positions)
        let mut splits: Vec<(usize, Vec<DVec2>)> = Vec::new();
        for &i in changed {
            if self.held[i] || self.resampled[i] || self.support[i] <= r.min_support {
                continue;
            }
            let omega_i = self.omega_sum(i);
            if omega_i >= r.omega_min {
                continue;
            }
            let wanted = (r.omega_min - omega_i).ceil() as usize;
            if self.inserted + wanted > r.cap {
                self.refused += wanted;
                continue;
            }
            let x_i = self.reference[i];
            let distance = SPLIT_DISTANCE * self.spacing * self.support[i] / self.h;
            let clear: Vec<DVec2> = (0..SPLIT_DIRECTIONS)
                .map(|m| {
                    let angle = std::f64::consts::TAU * (m as f64 + 0.25) / SPLIT_DIRECTIONS as f64;
                    x_i + DVec2::from_angle(angle) * distance
                })
                .filter(|&x| {
                    self.cracks
                        .iter()
                        .all(|c| c.crossing(x_i, x).is_none() && c.distance(x) > 0.25 * distance)
                })
                .collect();
            let count = wanted.min(clear.len());
            if count == 0 {
                continue;
            }
            let picked = (0..count).map(|m| clear[m * clear.len() / count]).collect();
            self.inserted += count;
            splits.push((i, picked));
        }
        if splits.is_empty() {
            return;
        }
        // The state before: each particle's elastic gradient and energy density, and its gradient.
        let old = self.len();
        let elastic: Vec<Option<DMat2>> = (0..old)
            .map(|i| (self.rank[i] == PLANAR_RANK).then(|| self.elastic_gradient(i)))
            .collect();
        let density: Vec<f64> = elastic
            .iter()
            .map(|e| e.map_or(0.0, |f| self.material.energy_density(f)))
            .collect();
        let (old_start, old_neighbour, old_weight, old_d) = (
            std::mem::take(&mut self.start),
            std::mem::take(&mut self.neighbour),
            std::mem::take(&mut self.weight),
            std::mem::take(&mut self.d),
        );
        // Whose elastic state each new particle takes.
        let mut parent_of = Vec::new();
        for (i, picked) in splits {
            let k = picked.len() + 1;
            let gradient = self.deformation_gradient_with(i, &old_start, &old_neighbour, &old_d);
            let parts = share_mass(self.mass[i], k);
            self.mass[i] = parts[0];
            self.resampled[i] = true;
            let h_new = (self.support[i] / (k as f64).sqrt()).max(r.min_support);
            for (x, m) in picked.into_iter().zip(&parts[1..]) {
                self.reference.push(x);
                self.positions
                    .push(self.positions[i] + gradient * (x - self.reference[i]));
                self.velocities.push(self.velocities[i]);
                self.held.push(false);
                self.held_velocity.push(DVec2::ZERO);
                self.near_held.push(false);
                self.mass.push(*m);
                self.support.push(h_new);
                self.stress.push(DMat2::ZERO);
                self.rest_correction.push(DMat2::IDENTITY);
                self.plastic_inverse.push(self.plastic_inverse[i]);
                self.plastic_strain.push(self.plastic_strain[i]);
                self.forces.push(DVec2::ZERO);
                self.rank.push(0);
                self.recomputed_at.push(0);
                self.resampled.push(true);
                parent_of.push(i);
            }
            self.splits += 1;
        }
        let (start, neighbour, uncut) = neighbourhoods(&self.reference, &self.support);
        let n = self.len();
        let mut weight = uncut.clone();
        let mut d = vec![DVec2::ZERO; neighbour.len()];
        let mut affected = Vec::new();
        for i in 0..n {
            let range = start[i]..start[i + 1];
            if i < old && neighbour[range.clone()] == old_neighbour[old_start[i]..old_start[i + 1]]
            {
                weight[range.clone()].copy_from_slice(&old_weight[old_start[i]..old_start[i + 1]]);
                d[range].copy_from_slice(&old_d[old_start[i]..old_start[i + 1]]);
            } else {
                affected.push(i);
            }
        }
        self.start = start;
        self.neighbour = neighbour;
        self.uncut = uncut;
        self.weight = weight;
        self.d = d;
        self.reweigh(&affected);
        for i in affected {
            let (before, state) = if i < old {
                (self.volume(i) * density[i], elastic[i])
            } else {
                let p = parent_of[i - old];
                (self.volume(i) * density[p], elastic[p])
            };
            self.update_mls(i);
            self.keep_elastic_state(i, before, state);
        }
    }

    /// F_i from neighbour arrays other than the solid's (those before a resampling rebuilt them).
    fn deformation_gradient_with(
        &self,
        i: usize,
        start: &[usize],
        neighbour: &[usize],
        d: &[DVec2],
    ) -> DMat2 {
        let u_i = self.positions[i] - self.reference[i];
        (start[i]..start[i + 1]).fold(DMat2::IDENTITY, |f, k| {
            let j = neighbour[k];
            f + outer2(self.positions[j] - self.reference[j] - u_i, d[k])
        })
    }

    /// Recompute every weight and every moment matrix from scratch (for checking the incremental update).
    pub fn rebuild_weights(&mut self) {
        let all: Vec<usize> = (0..self.len()).collect();
        self.reweigh(&all);
        for i in all {
            self.update_mls(i);
        }
    }

    /// The modified weights, edge by edge.
    pub fn weights(&self) -> &[f64] {
        &self.weight
    }
}
