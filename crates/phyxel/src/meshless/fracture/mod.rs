//! Brittle fracture of the nodal MKN04 body on the CPU (seed 000 §4.1.3; seed 002 §7.3 after Pauly et
//! al. 2005): cracks start where the largest principal stress exceeds the tensile strength (mode I,
//! the crack plane normal to its eigenvector), their fronts advance at c_prop, and the crack surfaces,
//! kept in the reference configuration ([`crack`]), cut the MLS weights by the visibility criterion
//! or the transparency method ([`weights`]). [`stress`] gives the stress that decides, this file the
//! bookkeeping of a step, [`scenes`] the pulled (notched) bar, [`slab`] the slab struck by a ball,
//! [`ductile`] the plastic bar pulled until it necks and tears, [`tool`] the pointer's cut (a stroke
//! pulled back into a crack) and strike, [`cells`] the closed surface drawn of a cracked lattice body.
//!
//! **What is cut.** Each neighbour edge (i → j) carries a modified weight ω'_ij: the uncut
//! w(|X_ij|, h_i) (MKN04 eq. 7), or where the segment X_i–X_j crosses a crack 0 (visibility) or the
//! transparency method's weight, seed 002 eq. 70 ([`modified_weight`]). When a crack changes,
//! only the phyxels within h_i of it are re-weighed (under visibility, of a growing crack only those
//! within h_i of the area its fronts swept), and only those whose weights changed get their
//! moment matrix A_i = Σ_j ω'_ij X_ij X_ijᵀ and vectors d_ij = A_i⁻¹ X_ij ω'_ij refitted
//! ([`super::mls::MlsWeights::refit`]); the gather then needs nothing else, since a pair with d = 0
//! exchanges no force. Volumes V_i stay: cutting moves no mass. A refit whose safe inverse drops a
//! direction (below [`REFIT_THRESHOLD`] of the largest eigenvalue: a sliver of neighbours), or that
//! would tie its neighbourhood more stiffly than the explicit step allows ([`STIFFNESS_MARGIN`]),
//! zeroes the phyxel's d_ij — it then holds no energy and its neighbours carry it, a free particle once
//! all its weights are cut.
//!
//! **Energy through a crack event** (the 2D lesson's safeguard, `lessons::cracks::solid`, ported).
//! Cutting at fixed displacements can only release energy in the continuum, but MKN04's nodal energy
//! is no sum over pairs: refitting ∇u_i from the neighbours a crack left can raise U_i. So a phyxel
//! whose refit would raise its energy keeps its elastic state: it gets a rest correction G_i
//! ([`Body::rest_correction`]) with J_i G_i equal to its elastic gradient before the event. G_i then
//! relaxes towards I at the rate c_prop / h_i, by steps taken only when they lower U_i; what refits
//! release and relaxations let go is booked in [`Fracture::dissipated`]. A crack event never raises U.
//!
//! **With plasticity** (MKN04's additive flow; seed 002 fig. 8, [`ductile`]): the stress that decides
//! is the elastic one, ε − ε_p ([`second_piola`]); the rest corrections keep a refitted phyxel's
//! elastic gradient with its plastic strain unchanged; a released phyxel (d_ij = 0, ∇u_i = 0) drops
//! its plastic strain with its energy; the rest shape never moves while the body can crack (the
//! cracks live in it: the simulation skips its reference update), and a front also advances into
//! phyxels whose ductility is used up ([`Fracture::ductility`]).
//!
//! **Scope.** The nodal MKN04 model with explicit integration only: the background quadrature
//! (`meshless::quadrature`) and the corotated/implicit models are not cut yet
//! ([`FractureError`] refuses them). The GPU's explicit passes take the cuts as this bookkeeping leaves
//! them ([`Fracture::weight_factors`], the rest corrections and the refit moment inverses; phyxel-gpu's
//! `GpuSolver::set_cut_weights`), but no stepping loop runs this bookkeeping on the device's state
//! yet. Cracks are planar (no turning); resampling (seed 002 eq. 71) is the 2D lesson's only.

pub mod cells;
pub mod crack;
pub mod ductile;
pub mod resample;
pub mod resampling;
pub mod scenes;
pub mod slab;
pub mod snapshot;
pub mod stress;
pub mod tool;
pub mod weights;

pub use self::resampling::{Resampling, ResamplingState};
pub use self::stress::{largest_eigenvalue, largest_principal, second_piola};
pub use self::weights::{fragments, modified_weight, Criterion};

use self::crack::{swept_edges, Crack, SweptEdge};
use self::weights::uncut_weights;
use super::body::Body;
use super::mls::{symmetric_eigen, MlsWeights, RowFit};
use super::neighbours::HashGrid;
use super::plasticity::norm;
use crate::parallel::map_indices;
use glam::{DMat3, DVec3};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Eigenvalues of a refitted A_i below this fraction of the largest count as zero (the solver's own
/// threshold is 10⁻⁴): a phyxel cracks left with a sliver of neighbours would otherwise get d_ij large
/// enough to make the explicit step unstable. A half-space neighbourhood (a crack face) keeps
/// λ_min/λ_max ≈ 0.5 and a cube corner's octant ≈ 0.3, both well above it.
pub const REFIT_THRESHOLD: f64 = 0.05;

/// How much stiffer than the stiffest phyxel of the uncut body a refit may be ([`stiffness`], times
/// the square of the rest correction's largest singular value) before it is released instead (its d_ij
/// zeroed). The default explicit step is 0.1 of h√(ρ/E), and a jittered cube is measured stable up to
/// 0.2 ([`super::simulation::RECOMMENDED_CFL_FRACTION`]): a factor 2 in Δt, 4 in stiffness; 2 keeps
/// half of that. (Measured: a ball dropped on a brittle cube left refits with d_ij up to 2.8 times
/// the uncut body's largest.)
pub const STIFFNESS_MARGIN: f64 = 2.0;

/// A measure of how stiffly phyxel i's own neighbourhood ties it and its neighbours: the square of the
/// reaction's vector, |Σ_j d_ij|², plus Σ_j |d_ij|² (the force on a neighbour j is M_i d_ij, on i
/// −M_i Σ_j d_ij; a stiffness scales with their squares).
pub fn stiffness(body: &Body, i: usize) -> f64 {
    row_stiffness(body.mls.row_sum(i), &body.mls.d()[body.neighbours.edges(i)])
}

/// [`stiffness`] of a row of d_ij whose sum is `sum`: |Σ_j d_ij|² + Σ_j |d_ij|².
fn row_stiffness(sum: DVec3, row: &[DVec3]) -> f64 {
    sum.length_squared() + row.iter().map(|d| d.length_squared()).sum::<f64>()
}

/// The largest singular value of `g`.
fn largest_singular_value(g: DMat3) -> f64 {
    let (values, _) = symmetric_eigen(g.transpose() * g);
    values.max_element().max(0.0).sqrt()
}

/// A phyxel whose plastic strain reaches this fraction of the ductility has used it up (the flow
/// scales ε_p back onto the cap, ‖ε_p‖ = c_max up to rounding).
pub const EXHAUSTED: f64 = 0.999;

/// The smallest |det J_i| of a refit that a rest correction may invert.
pub const SMALLEST_REFIT_DETERMINANT: f64 = 0.1;

/// No crack starts within this many support radii of a crack front: the front's own stress field
/// exceeds the strength there, and the front, growing, relieves it.
pub const FRONT_ZONE: f64 = 3.0;

/// The vertices of a newly started crack's outline (a regular polygon; growth refines it).
pub const SEED_VERTICES: usize = 8;

/// A brittle material's fracture parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FractureSettings {
    /// Tensile strength σ_t (Pa): a crack starts where the largest principal stress exceeds it.
    pub strength: f64,
    /// Crack propagation speed c_prop (m/s): how far a loaded front advances per second.
    pub c_prop: f64,
    /// Visibility (the default) or transparency.
    pub criterion: Criterion,
    /// Adaptive resampling's Ω_min (seed 002 eq. 71, [`resample`]); None: no resampling.
    #[serde(default)]
    pub omega_min: Option<f64>,
}

impl FractureSettings {
    /// Settings with a positive, finite strength and propagation speed; anything else is refused with
    /// the reason.
    pub fn new(strength: f64, c_prop: f64) -> Result<Self, FractureError> {
        if !(strength > 0.0 && strength.is_finite()) {
            return Err(FractureError(format!(
                "the tensile strength must be a positive number of pascals (got {strength})"
            )));
        }
        if !(c_prop > 0.0 && c_prop.is_finite()) {
            return Err(FractureError(format!(
                "the crack propagation speed c_prop must be a positive number of m/s (got {c_prop})"
            )));
        }
        Ok(Self {
            strength,
            c_prop,
            criterion: Criterion::Visibility,
            omega_min: None,
        })
    }

    /// These settings with adaptive resampling at Ω_min (positive and finite, else refused): a cut
    /// phyxel that sees less than Ω_min of its neighbourhood gets new phyxels beside it ([`resample`]).
    pub fn with_resampling(self, omega_min: f64) -> Result<Self, FractureError> {
        if !(omega_min > 0.0 && omega_min.is_finite()) {
            return Err(FractureError(format!(
                "resampling's Ω_min must be a positive number (got {omega_min})"
            )));
        }
        Ok(Self {
            omega_min: Some(omega_min),
            ..self
        })
    }

    /// These settings with the transparency method at κ (positive and finite, else refused).
    pub fn with_transparency(self, kappa: f64) -> Result<Self, FractureError> {
        if !(kappa > 0.0 && kappa.is_finite()) {
            return Err(FractureError(format!(
                "the transparency method's κ must be a positive number (got {kappa})"
            )));
        }
        Ok(Self {
            criterion: Criterion::Transparency { kappa },
            ..self
        })
    }
}

/// Fracture settings or a model that fracture refuses, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FractureError(pub String);

impl fmt::Display for FractureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FractureError {}

/// What happened to a crack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A new crack started at a phyxel whose largest principal stress exceeded the strength.
    Initiation,
    /// An existing crack's front (a notch's tip) started to advance.
    FrontStarted,
}

/// A crack event: when (step), where (reference configuration), the crack's normal, and the largest
/// principal stress over the strength that triggered it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrackEvent {
    pub step: u64,
    pub kind: EventKind,
    pub crack: usize,
    pub position: DVec3,
    pub normal: DVec3,
    pub stress_ratio: f64,
}

/// The cracks of one body and the weights they cut.
#[derive(Clone, Debug)]
pub struct Fracture {
    pub settings: FractureSettings,
    pub cracks: Vec<Crack>,
    /// Whether each crack's fronts have advanced yet.
    started: Vec<bool>,
    /// ω'_ij per edge of the body's neighbourhoods.
    weight: Vec<f64>,
    /// The lattice spacing a (the median nearest-neighbour distance): a new crack's size, and the
    /// longest edge between two fronts.
    pub spacing: f64,
    /// The reference positions hashed by the largest support radius.
    grid: HashGrid,
    largest_support: f64,
    /// The largest [`stiffness`] of the uncut body's phyxels.
    stiffest: f64,
    /// Refits released for [`STIFFNESS_MARGIN`] (or a singular J_i, or lost rank).
    pub released: usize,
    pub events: Vec<CrackEvent>,
    /// Phyxels whose MLS data the last step refitted, and in all.
    pub recomputed_last: usize,
    pub recomputed_total: usize,
    /// Energy the cracks took out of the elastic energy (J): what refits released and what relaxing
    /// rest corrections let go.
    pub dissipated: f64,
    pub steps: u64,
    /// A plastic body's ductility: the plastic strain ‖ε_p‖ at which its material can flow no more
    /// (MKN04's cap c_max; the simulation sets it each step from its plasticity, None if elastic). A
    /// front advances into phyxels whose ductility is used up as into phyxels above the strength
    /// ([`Fracture::step`]).
    pub ductility: Option<f64>,
    /// The phyxels the last step refitted (resampling looks at them).
    changed_last: Vec<usize>,
    /// Per phyxel, the crack that last kept a new crack from starting there (u32::MAX: none) —
    /// the phyxel lay within h_i of it or within [`FRONT_ZONE`] h_i of its front
    /// ([`Fracture::initiate`]): a crack only grows and its fronts move slowly, so that crack
    /// mostly keeps doing so, and testing it first spares testing the phyxel against all of them.
    /// A hint only, tested again each time (cracks replaced by a restored state leave it stale,
    /// not wrong).
    rejected_by: Vec<u32>,
    /// Adaptive resampling's settings (None: off) and what it did ([`resample`]).
    pub resampling_settings: Option<Resampling>,
    pub resampling: ResamplingState,
}

impl Fracture {
    /// Fracture of `body` with `settings`, no crack yet: every weight uncut.
    pub fn new(settings: FractureSettings, body: &Body) -> Self {
        let largest_support = body.support_radius.iter().cloned().fold(0.0, f64::max);
        Self {
            settings,
            cracks: Vec::new(),
            started: Vec::new(),
            weight: uncut_weights(body),
            spacing: lattice_spacing(body),
            grid: HashGrid::build(&body.reference, largest_support.max(1e-12)),
            largest_support,
            stiffest: (0..body.len())
                .map(|i| stiffness(body, i))
                .fold(0.0, f64::max),
            released: 0,
            events: Vec::new(),
            recomputed_last: 0,
            recomputed_total: 0,
            dissipated: 0.0,
            steps: 0,
            ductility: None,
            changed_last: Vec::new(),
            rejected_by: Vec::new(),
            resampling_settings: settings
                .omega_min
                .map(|omega| Resampling::new(omega, largest_support, body.len())),
            resampling: ResamplingState::default(),
        }
    }

    /// Whether each crack's fronts have advanced yet (a new crack's from the start; a notch's once its
    /// front first moved).
    pub fn started(&self) -> &[bool] {
        &self.started
    }

    /// The modified weight ω'_ij of edge k.
    pub fn weight(&self, edge: usize) -> f64 {
        self.weight[edge]
    }

    /// Each edge's factor t_ij = ω'_ij / ω_ij of its modified weight over the uncut one, zero for the
    /// rows a refit released (their d_ij are zero): what a solver that forms d_ij from the uncut kernel
    /// needs to form the cut ones, d_ij = A_i⁻¹ X_ij ω_ij t_ij with A_i⁻¹ the refit's
    /// ([`super::mls::MlsWeights::moment_inverse`]) — the GPU's passes (phyxel-gpu's `cut_weights`).
    /// An edge outside the support (ω_ij = 0) has ω'_ij = 0 too (a cut only lowers a weight) and
    /// gets 0.
    pub fn weight_factors(&self, body: &Body) -> Vec<f64> {
        let uncut = uncut_weights(body);
        (0..uncut.len())
            .map(|k| {
                if body.mls.d()[k] == DVec3::ZERO || uncut[k] <= 0.0 {
                    0.0
                } else {
                    self.weight[k] / uncut[k]
                }
            })
            .collect()
    }

    /// Phyxels with no neighbour left (every weight cut): free particles.
    pub fn isolated(&self, body: &Body) -> usize {
        (0..body.len())
            .filter(|&i| body.neighbours.edges(i).all(|k| self.weight[k] == 0.0))
            .count()
    }

    /// Cut `crack` into the body (a notch, or a cut from a tool); its fronts have not moved.
    pub fn add_crack(&mut self, body: &mut Body, crack: Crack) {
        self.cracks.push(crack);
        self.started.push(false);
        self.update_weights_near(body, &[self.cracks.len() - 1]);
    }

    /// After the body's neighbourhoods were rebuilt (a reference update): every weight re-evaluated
    /// and every cut phyxel refitted; rest corrections restart at I.
    pub fn reapply(&mut self, body: &mut Body) {
        self.weight = uncut_weights(body);
        self.grid = HashGrid::build(&body.reference, self.largest_support.max(1e-12));
        body.rest_correction
            .iter_mut()
            .for_each(|g| *g = DMat3::IDENTITY);
        let all: Vec<usize> = (0..self.cracks.len()).collect();
        self.update_weights_near(body, &all);
    }

    /// Each phyxel's largest principal stress ([`second_piola`]) over the strength, and its eigenvector.
    pub fn stress_ratios(&self, body: &Body) -> Vec<(f64, DVec3)> {
        let strength = self.settings.strength;
        map_indices(body.len(), |i| {
            let (largest, v) = largest_principal(self.second_piola_of(body, i));
            (largest / strength, v)
        })
    }

    /// Each phyxel's largest principal stress over the strength, the value alone
    /// ([`largest_eigenvalue`]): what the page's colours and peak readout show.
    pub fn stress_ratio_values(&self, body: &Body) -> Vec<f64> {
        let strength = self.settings.strength;
        map_indices(body.len(), |i| {
            largest_eigenvalue(self.second_piola_of(body, i)) / strength
        })
    }

    /// Each phyxel's ratio σ₁/σ_t, exactly only where it may reach 1: a phyxel whose Gershgorin bound
    /// max_r (S_rr + Σ_c≠r |S_rc|) ≥ σ₁ lies below the strength reports that bound over the strength;
    /// the others the closed-form σ₁ ([`largest_eigenvalue`]). What the fronts and the initiation
    /// compare with 1; only the phyxel a crack starts at needs its eigenvector
    /// ([`Fracture::initiate`] takes it then). `gradients`: every phyxel's ∇u_i.
    fn screened_ratios(&self, body: &Body, gradients: &[DMat3]) -> Vec<f64> {
        let strength = self.settings.strength;
        map_indices(body.len(), |i| {
            let s = second_piola(body, i, gradients[i]);
            let (x, y, z) = (s.x_axis, s.y_axis, s.z_axis);
            let bound = (x.x + y.x.abs() + z.x.abs())
                .max(y.y + x.y.abs() + z.y.abs())
                .max(z.z + x.z.abs() + y.z.abs());
            if bound < strength {
                bound / strength
            } else {
                largest_eigenvalue(s) / strength
            }
        })
    }

    /// Phyxel i's second Piola–Kirchhoff stress S at its current displacement ([`second_piola`]).
    fn second_piola_of(&self, body: &Body, i: usize) -> DMat3 {
        let grad_u = body
            .mls
            .displacement_gradient(i, &body.displacement, &body.neighbours);
        second_piola(body, i, grad_u)
    }

    /// One fracture step after a time step of Δt (seed 000 §4.1.3): the rest corrections relax; every
    /// crack front advances by c_prop Δt along its direction while the largest principal stress of the
    /// phyxels ahead of it within h exceeds the strength, or, in a plastic body, while one of them has
    /// used up its ductility (‖ε_p‖ at the cap: [`Fracture::ductility`]) — a tip in material that can
    /// flow no more is not blunted by flow, the critical-plastic-strain criterion of ductile fracture
    /// (Johnson & Cook 1985: fracture where the equivalent plastic strain reaches the fracture strain)
    /// — (or, with no phyxel ahead or none within a spacing, leaves the body);
    /// then at most one crack starts, at the free phyxel with the largest ratio above 1 that lies
    /// farther than h from every crack and [`FRONT_ZONE`] h from every front and is not a held
    /// phyxel or the neighbour of one (a grip concentrates stress artificially). The weights near
    /// changed cracks are re-evaluated and the phyxels whose weights changed refitted.
    pub fn step(&mut self, body: &mut Body, fixed: &[bool], dt: f64) {
        self.steps += 1;
        self.recomputed_last = 0;
        self.changed_last.clear();
        // Every phyxel's ∇u_i, once: the relaxation and the ratios both take it (the rest corrections
        // change J_e = (I + ∇u_i) G_i, not ∇u_i).
        let gradients = map_indices(body.len(), |i| {
            body.mls
                .displacement_gradient(i, &body.displacement, &body.neighbours)
        });
        self.relax_rest_corrections(body, dt, &gradients);
        let ratios = self.screened_ratios(body, &gradients);
        let advance = self.settings.c_prop * dt;
        // What lies ahead of every front vertex of every crack (in parallel: growing one crack
        // changes no other's fronts, and the phyxels and ratios not at all).
        let fronts: Vec<Front> = self
            .cracks
            .iter()
            .enumerate()
            .flat_map(|(c, crack)| {
                crack.fronts().map(move |(k, tip, direction)| Front {
                    crack: c,
                    vertex: k,
                    tip,
                    direction,
                })
            })
            .collect();
        let scans = map_indices(fronts.len(), |n| {
            self.ahead(body, &ratios, fronts[n].tip, fronts[n].direction)
        });
        let mut changed = Vec::new();
        let mut moved = Vec::new();
        // (a crack without fronts does not grow)
        let mut start = 0;
        for of_crack in fronts.chunk_by(|a, b| a.crack == b.crack) {
            let c = of_crack[0].crack;
            let ahead = &scans[start..start + of_crack.len()];
            start += of_crack.len();
            let swept = self.grow(c, of_crack, ahead, advance);
            if !swept.is_empty() {
                changed.push(c);
                moved.push((c, swept));
            }
        }
        match self.settings.criterion {
            // Under visibility a front's advance changes only the crossings in the area it swept.
            Criterion::Visibility => self.update_weights_around(body, &moved),
            // Under transparency d_s changes wherever the nearest front moved.
            Criterion::Transparency { .. } => self.update_weights_near(body, &changed),
        }
        if let Some(c) = self.initiate(body, fixed, &ratios) {
            self.update_weights_near(body, &[c]);
        }
        if let Some(settings) = self.resampling_settings {
            let mut changed = std::mem::take(&mut self.changed_last);
            changed.sort_unstable();
            changed.dedup();
            self.resample(body, fixed, &changed, settings);
        }
    }

    /// Re-weigh the phyxels within h_i + δ of the edges (a b, δ) ([`swept_edges`]) of the cracks that
    /// grew, each against those of the cracks whose edges it lies so near, and refit those whose
    /// weights changed (visibility only: a crack only grows, so a pair cut stays cut, and an uncut
    /// pair (i, j) is cut now only where a crack that grew swept its crossing point x_s, which lies
    /// within δ of such an edge; with |X_i − x_s| ≤ |X_ij| ≤ h_i, X_i then lies within h_i + δ of it).
    fn update_weights_around(&mut self, body: &mut Body, grown: &[(usize, Vec<SweptEdge>)]) {
        if grown.is_empty() {
            return;
        }
        // The phyxels within h_i + δ of a grown crack's swept edge, found in the grid's cells near
        // the edge (within h_max + δ of it; the edges in parallel), each phyxel once per edge, with
        // the edges (g, e) — edge e of `grown[g]` — it lies so near, in `grown`'s order.
        debug_assert_eq!(
            self.grid.sorted.len(),
            body.len(),
            "the grid holds every phyxel"
        );
        let h_max = self.largest_support;
        let edges: Vec<(u32, u32)> = grown
            .iter()
            .enumerate()
            .flat_map(|(g, (_, edges))| (0..edges.len()).map(move |e| (g as u32, e as u32)))
            .collect();
        let found = map_indices(edges.len(), |n| {
            let (g, e) = edges[n];
            let edge = &grown[g as usize].1[e as usize];
            // Every phyxel the edge holds lies within its bound for h_max (h_j ≤ h_max), and the
            // cells' walk gets a margin more for its own rounding.
            let radius = edge.bound(h_max) + edge.margin(h_max);
            self.grid
                .candidates_near_segment(edge.a, edge.b, radius)
                .filter(|&j| {
                    let j = j as usize;
                    edge.holds(body.reference[j], body.support_radius[j])
                })
                .collect::<Vec<u32>>()
        });
        let mut edges_of: Vec<Vec<(u32, u32)>> = vec![Vec::new(); body.len()];
        let mut touched = Vec::new();
        for (&edge, found) in edges.iter().zip(found) {
            for j in found {
                let listed = &mut edges_of[j as usize];
                if listed.is_empty() {
                    touched.push(j as usize);
                }
                listed.push(edge);
            }
        }
        touched.sort_unstable();
        let near: Vec<(usize, Vec<(u32, u32)>)> = touched
            .into_iter()
            .map(|i| (i, std::mem::take(&mut edges_of[i])))
            .collect();
        let weights = map_indices(near.len(), |n| {
            let (i, edges) = &near[n];
            self.visible_weights(body, *i, edges, grown)
        });
        let near: Vec<usize> = near.into_iter().map(|(i, _)| i).collect();
        self.take_weights_and_refit(body, &near, weights);
    }

    /// What lies ahead of the front vertex at `tip` growing along `direction`: the phyxels j with
    /// |X_j − tip| < h_j on its far side, their largest stress ratio, whether one has used up its
    /// ductility, and the distance to the nearest phyxel of all.
    fn ahead(&self, body: &Body, ratios: &[f64], tip: DVec3, direction: DVec3) -> Ahead {
        let mut scan = Ahead {
            count: 0,
            peak: 0.0,
            exhausted: false,
            nearest: f64::INFINITY,
        };
        for j in self.grid.candidates(tip) {
            let j = j as usize;
            let r = body.reference[j] - tip;
            scan.nearest = scan.nearest.min(r.length());
            if r.length() >= body.support_radius[j] || r.dot(direction) <= 0.0 {
                continue;
            }
            scan.count += 1;
            scan.peak = scan.peak.max(ratios[j]);
            scan.exhausted |= self
                .ductility
                .is_some_and(|cap| norm(body.plastic_strain[j]) >= EXHAUSTED * cap);
        }
        scan
    }

    /// Advance the fronts of crack c (`fronts`: its own; `ahead`: what lies ahead of each,
    /// [`Fracture::ahead`]); the outline's edges that moved, each with a reach around it that holds
    /// the area it swept ([`swept_edges`]; none: the crack did not change).
    fn grow(
        &mut self,
        c: usize,
        fronts: &[Front],
        ahead: &[Ahead],
        advance: f64,
    ) -> Vec<SweptEdge> {
        let before = self.cracks[c].outline.clone();
        let mut changed = false;
        for (front, scan) in fronts.iter().zip(ahead) {
            let (k, tip) = (front.vertex, front.tip);
            let Ahead {
                count: ahead,
                peak,
                exhausted,
                nearest,
            } = *scan;
            if nearest > self.spacing || ahead == 0 {
                // The front has left the body (no phyxel within a spacing, or none ahead): moved a
                // support radius farther out, so that no chord between two such vertices cuts a
                // corner of the body.
                self.cracks[c].advance(k, self.largest_support, false);
                changed = true;
            } else if peak >= 1.0 || exhausted {
                if !self.started[c] {
                    self.started[c] = true;
                    self.events.push(CrackEvent {
                        step: self.steps,
                        kind: EventKind::FrontStarted,
                        crack: c,
                        position: tip,
                        normal: self.cracks[c].normal,
                        stress_ratio: peak,
                    });
                }
                self.cracks[c].advance(k, advance, true);
                changed = true;
            }
        }
        if !changed {
            return Vec::new();
        }
        let crack = &mut self.cracks[c];
        let swept = swept_edges(crack, &before, &crack.outline);
        // Refinement inserts vertices on the edges: it changes no area.
        crack.refine(self.spacing);
        swept
    }

    /// Start a crack at the most stressed eligible phyxel ([`Fracture::step`]): a disc of diameter a
    /// normal to its eigenvector, centred half a spacing off the phyxel along the normal (so the plane
    /// passes between lattice layers rather than through phyxels). Returns its index.
    fn initiate(&mut self, body: &Body, fixed: &[bool], ratios: &[f64]) -> Option<usize> {
        let held = |i: usize| fixed.get(i).copied().unwrap_or(false);
        let mut candidates: Vec<usize> = (0..body.len()).filter(|&i| ratios[i] > 1.0).collect();
        candidates.sort_by(|&a, &b| ratios[b].total_cmp(&ratios[a]));
        // Each crack's fronts in space, once (each candidate is tested against all of them).
        let fronts: Vec<Vec<DVec3>> = self
            .cracks
            .iter()
            .map(|c| c.fronts().map(|(_, f, _)| f).collect())
            .collect();
        let mut hints = std::mem::take(&mut self.rejected_by);
        hints.resize(body.len(), u32::MAX);
        let verdict = |i: usize| {
            let hoods = &body.neighbours;
            let x = body.reference[i];
            let h = body.support_radius[i];
            if held(i)
                || hoods.edges(i).any(|k| held(hoods.neighbour[k] as usize))
                || body.mls.rank[i] != 3
            {
                return Verdict::Ineligible;
            }
            // Crack c rejects it: it lies within h of c's surface, or within FRONT_ZONE h of one of
            // c's fronts (far from c's origin it does neither).
            let rejects = |c: usize| {
                let crack = &self.cracks[c];
                crack.origin.distance(x) <= crack.reach() + FRONT_ZONE * h
                    // (the distance to the plane bounds the distance to the crack from below)
                    && ((crack.signed_distance(x).abs() < h && crack.distance(x) < h)
                        || fronts[c].iter().any(|f| f.distance(x) < FRONT_ZONE * h))
            };
            let hint = hints[i] as usize;
            if hint < self.cracks.len() && rejects(hint) {
                return Verdict::Rejected(hint as u32);
            }
            if let Some(c) = (0..self.cracks.len()).find(|&c| rejects(c)) {
                return Verdict::Rejected(c as u32);
            }
            Verdict::Eligible
        };
        // The first eligible one in that order, tested in parallel a batch at a time, each batch
        // twice the last (near the cracks most of the most stressed are not, and a parallel pass
        // costs a hand-over to the threads).
        let mut chosen = None;
        let mut found = Vec::new();
        let (mut start, mut size) = (0, INITIATION_BATCH);
        while start < candidates.len() {
            let batch = &candidates[start..(start + size).min(candidates.len())];
            (start, size) = (start + batch.len(), 2 * size);
            let verdicts = map_indices(batch.len(), |m| verdict(batch[m]));
            for (&i, verdict) in batch.iter().zip(verdicts) {
                match verdict {
                    Verdict::Eligible => {
                        chosen = Some(i);
                        break;
                    }
                    Verdict::Rejected(c) => found.push((i, c)),
                    Verdict::Ineligible => {}
                }
            }
            if chosen.is_some() {
                break;
            }
        }
        for (i, c) in found {
            hints[i] = c;
        }
        self.rejected_by = hints;
        let chosen = chosen?;
        let (largest, normal) = largest_principal(self.second_piola_of(body, chosen));
        let ratio = largest / self.settings.strength;
        let centre = body.reference[chosen] + normal * (0.5 * self.spacing);
        let crack = Crack::disc(centre, normal, 0.5 * self.spacing, SEED_VERTICES);
        self.cracks.push(crack);
        self.started.push(true);
        let c = self.cracks.len() - 1;
        self.events.push(CrackEvent {
            step: self.steps,
            kind: EventKind::Initiation,
            crack: c,
            position: centre,
            normal,
            stress_ratio: ratio,
        });
        Some(c)
    }

    /// Re-weigh the phyxels within h_i of the cracks `changed` and refit those whose weights changed,
    /// keeping their elastic state where a refit would raise their energy (the module's safeguard).
    fn update_weights_near(&mut self, body: &mut Body, changed: &[usize]) {
        let cracks = &self.cracks;
        let near = phyxels_where(body, |x, h| {
            changed.iter().any(|&c| {
                let crack = &cracks[c];
                crack.signed_distance(x).abs() < h && crack.distance(x) < h
            })
        });
        self.reweigh_and_refit(body, &near);
    }

    /// Re-weigh the phyxels `near` (in parallel: each phyxel's weights depend on the cracks and the
    /// rest shape only), then, in their order, take the new weights and refit each phyxel whose
    /// weights changed: the same weights and refits as one phyxel after the other.
    fn reweigh_and_refit(&mut self, body: &mut Body, near: &[usize]) {
        let weights = map_indices(near.len(), |n| self.reweigh(body, near[n]));
        self.take_weights_and_refit(body, near, weights);
    }

    /// Take `weights[n]`, the new weights of the edges of phyxel `near[n]`, in the phyxels' order, and
    /// refit each phyxel whose weights changed.
    fn take_weights_and_refit(&mut self, body: &mut Body, near: &[usize], weights: Vec<Vec<f64>>) {
        let mut changed = Vec::new();
        for (&i, weights) in near.iter().zip(weights) {
            let mut any = false;
            for (k, w) in body.neighbours.edges(i).zip(weights) {
                if w != self.weight[k] {
                    self.weight[k] = w;
                    any = true;
                }
            }
            if any {
                changed.push(i);
            }
        }
        // A refit reads and writes its own phyxel's data only: planned in parallel, taken in order
        // (the same as refitting one after the other).
        let plans = map_indices(changed.len(), |m| {
            let i = changed[m];
            let (elastic, before) = Self::elastic_before(body, i);
            self.plan_refit(body, i, REFIT_THRESHOLD, elastic, before)
        });
        for (i, plan) in changed.into_iter().zip(plans) {
            self.take_refit(body, i, plan);
        }
    }

    /// The segment X_i X_j of edge k from phyxel i, taken from the lower index (so that (i, j) and
    /// (j, i) agree exactly).
    fn segment(body: &Body, i: usize, k: usize) -> (DVec3, DVec3) {
        let j = body.neighbours.neighbour[k] as usize;
        if i < j {
            (body.reference[i], body.reference[j])
        } else {
            (body.reference[j], body.reference[i])
        }
    }

    /// The visibility weights of phyxel i's edges after the cracks of `grown` grew: 0 where it was 0
    /// or where a crack that grew now crosses the segment, else as it was — [`modified_weight`] over
    /// every crack, as long as each weight was that before the growth. `swept`: the edges (g, e) —
    /// edge e of `grown[g]`, grouped by g — that phyxel i lies within h_i + δ of. A pair uncut before
    /// is cut now only where its crossing point x_s lies in the area a grown crack swept, within δ of
    /// one of that crack's swept edges ([`swept_edges`]), and then within h_i + δ of X_i: the
    /// crossing (a test against the whole outline) is tried only for a segment whose x_s lies so.
    fn visible_weights(
        &self,
        body: &Body,
        i: usize,
        swept: &[(u32, u32)],
        grown: &[(usize, Vec<SweptEdge>)],
    ) -> Vec<f64> {
        body.neighbours
            .edges(i)
            .map(|k| {
                let w = self.weight[k];
                if w == 0.0 {
                    return 0.0;
                }
                let (p, q) = Self::segment(body, i, k);
                let cut = swept.chunk_by(|x, y| x.0 == y.0).any(|near| {
                    let (c, edges) = &grown[near[0].0 as usize];
                    let crack = &self.cracks[*c];
                    let (sp, sq) = (crack.signed_distance(p), crack.signed_distance(q));
                    if (sp >= 0.0) == (sq >= 0.0) {
                        return false;
                    }
                    let x_s = p + (q - p) * (sp / (sp - sq));
                    near.iter().any(|&(_, e)| edges[e as usize].holds(x_s, 0.0))
                        && crack.crossing(p, q).is_some()
                });
                if cut {
                    0.0
                } else {
                    w
                }
            })
            .collect()
    }

    /// ω'_ij for the edges of phyxel i, in its edges' order ([`modified_weight`] on
    /// [`Fracture::segment`]).
    fn reweigh(&self, body: &Body, i: usize) -> Vec<f64> {
        body.neighbours
            .edges(i)
            .map(|k| {
                let (p, q) = Self::segment(body, i, k);
                modified_weight(
                    p,
                    q,
                    body.support_radius[i],
                    &self.cracks,
                    self.settings.criterion,
                )
            })
            .collect()
    }

    /// Phyxel i's elastic gradient J_e = (I + ∇u_i) G_i and energy U_i now: what its refit keeps.
    fn elastic_before(body: &Body, i: usize) -> (DMat3, f64) {
        let grad = body
            .mls
            .displacement_gradient(i, &body.displacement, &body.neighbours);
        let before = body.phyxel_stress_of(i, grad).energy;
        ((DMat3::IDENTITY + grad) * body.rest_correction[i], before)
    }

    /// The refit of phyxel i's MLS data with the modified weights (the safe inverse at
    /// `threshold`), keeping its energy from rising: where the refit releases energy it is booked
    /// as dissipated; where it would raise U_i above `before`, the rest correction
    /// G_i = J_i⁻¹ J_e,before restores the elastic gradient `elastic` of before the event
    /// ([`Fracture::elastic_before`]; resampling's refits: a new phyxel keeps its parent's). A refit
    /// that lost rank, whose J_i is too close to singular ([`SMALLEST_REFIT_DETERMINANT`]), or that
    /// would be stiffer than [`STIFFNESS_MARGIN`] allows (with its G_i) holds no energy (its d_ij are
    /// zeroed) and releases what it held. It reads phyxel i's own data only (its row, weights,
    /// state), so that many phyxels' refits can be planned in parallel and taken in order
    /// ([`Fracture::take_refit`]).
    fn plan_refit(
        &self,
        body: &Body,
        i: usize,
        threshold: f64,
        elastic: DMat3,
        before: f64,
    ) -> RefitPlan {
        let mut fit = MlsWeights::fit(
            i,
            &body.reference,
            &body.neighbours,
            &self.weight,
            threshold,
        );
        let limit = STIFFNESS_MARGIN * self.stiffest;
        let stiff = row_stiffness(fit.sum(), &fit.d);
        let outcome = 'outcome: {
            if fit.rank < 3 || stiff > limit {
                break 'outcome RefitOutcome::Released;
            }
            let grad = fit.displacement_gradient(i, &body.displacement, &body.neighbours);
            let after = body.phyxel_stress_with(i, grad, DMat3::IDENTITY).energy;
            if after <= before {
                break 'outcome RefitOutcome::Dissipated(before - after);
            }
            let j = DMat3::IDENTITY + grad;
            if j.determinant().abs() < SMALLEST_REFIT_DETERMINANT {
                break 'outcome RefitOutcome::Released;
            }
            let g = j.inverse() * elastic;
            if largest_singular_value(g).powi(2) * stiff > limit {
                break 'outcome RefitOutcome::Released;
            }
            RefitOutcome::Corrected(g)
        };
        if let RefitOutcome::Released = outcome {
            fit.release();
        }
        RefitPlan {
            fit,
            outcome,
            before,
        }
    }

    /// Take phyxel i's planned refit ([`Fracture::plan_refit`]): its row, its rest correction, and
    /// the energy it dissipated or released.
    fn take_refit(&mut self, body: &mut Body, i: usize, plan: RefitPlan) {
        body.mls.take(i, &body.neighbours, plan.fit);
        self.recomputed_last += 1;
        self.recomputed_total += 1;
        self.changed_last.push(i);
        body.rest_correction[i] = DMat3::IDENTITY;
        match plan.outcome {
            RefitOutcome::Dissipated(energy) => self.dissipated += energy,
            RefitOutcome::Corrected(g) => body.rest_correction[i] = g,
            RefitOutcome::Released => {
                // With d_ij = 0 its ∇u_i is 0: a plastic strain kept would leave it the elastic
                // strain −ε_p, energy it does not hold and a stress that could start a crack.
                body.plastic_strain[i] = DMat3::ZERO;
                self.dissipated += plan.before;
                self.released += 1;
            }
        }
    }

    /// Each rest correction G_i ≠ I moves a fraction β = min(c_prop Δt / h_i, 1) of the way to I when
    /// that lowers U_i, and stays otherwise; the energy let go is added to [`Fracture::dissipated`].
    /// Each phyxel's relaxation depends on its own G_i and ∇u_i alone: they are found in parallel and
    /// taken (and the energy let go summed) in the phyxels' order. `gradients`: every phyxel's ∇u_i.
    fn relax_rest_corrections(&mut self, body: &mut Body, dt: f64, gradients: &[DMat3]) {
        let corrected: Vec<usize> = (0..body.len())
            .filter(|&i| body.rest_correction[i] != DMat3::IDENTITY)
            .collect();
        let c_prop = self.settings.c_prop;
        let shared: &Body = body;
        let relaxed = map_indices(corrected.len(), |n| {
            let i = corrected[n];
            let g = shared.rest_correction[i];
            let beta = (c_prop * dt / shared.support_radius[i]).min(1.0);
            let trial = g + (DMat3::IDENTITY - g) * beta;
            let grad = gradients[i];
            let now = shared.phyxel_stress_of(i, grad).energy;
            let relaxed = shared.phyxel_stress_with(i, grad, trial).energy;
            if relaxed <= now {
                let trial = if trial.abs_diff_eq(DMat3::IDENTITY, 1e-12) {
                    DMat3::IDENTITY
                } else {
                    trial
                };
                Some((trial, now - relaxed))
            } else {
                None
            }
        });
        for (&i, relaxed) in corrected.iter().zip(relaxed) {
            if let Some((g, let_go)) = relaxed {
                body.rest_correction[i] = g;
                self.dissipated += let_go;
            }
        }
    }
}

/// The phyxels i, in index order, for which `near(X_i, h_i)` holds: tested in parallel in pieces of
/// [`PHYXELS_PER_PIECE`].
fn phyxels_where(body: &Body, near: impl Fn(DVec3, f64) -> bool + Sync + Send) -> Vec<usize> {
    let n = body.len();
    map_indices(n.div_ceil(PHYXELS_PER_PIECE), |piece| {
        (piece * PHYXELS_PER_PIECE..((piece + 1) * PHYXELS_PER_PIECE).min(n))
            .filter(|&i| near(body.reference[i], body.support_radius[i]))
            .collect::<Vec<usize>>()
    })
    .concat()
}

/// A phyxel's refit, planned ([`Fracture::plan_refit`]) and not yet taken.
struct RefitPlan {
    fit: RowFit,
    outcome: RefitOutcome,
    /// U_i before the refit.
    before: f64,
}

/// What a refit does with the energy a phyxel held.
enum RefitOutcome {
    /// Its energy fell (by this much, dissipated).
    Dissipated(f64),
    /// It would have risen: the rest correction G_i that keeps the elastic gradient.
    Corrected(DMat3),
    /// It holds none (its d_ij zeroed): lost rank, singular, or too stiff.
    Released,
}

/// Whether a crack may start at a phyxel ([`Fracture::initiate`]).
#[derive(Clone, Copy, Debug)]
enum Verdict {
    Eligible,
    /// Within h_i of crack c's surface or within [`FRONT_ZONE`] h_i of one of its fronts.
    Rejected(u32),
    /// Held, beside a held phyxel, or of lost rank.
    Ineligible,
}

/// Candidates for a new crack tested in the first parallel batch ([`Fracture::initiate`]).
const INITIATION_BATCH: usize = 64;

/// Phyxels per parallel piece of [`phyxels_where`].
const PHYXELS_PER_PIECE: usize = 256;

/// A front vertex of a crack at the start of a fracture step, in space.
#[derive(Clone, Copy, Debug)]
struct Front {
    crack: usize,
    /// Its index in the crack's outline.
    vertex: usize,
    tip: DVec3,
    direction: DVec3,
}

/// What lies ahead of a crack's front vertex ([`Fracture::ahead`]).
#[derive(Clone, Copy, Debug)]
struct Ahead {
    /// Phyxels j ahead (on the far side, |X_j − tip| < h_j).
    count: usize,
    /// Their largest stress ratio σ₁/σ_t.
    peak: f64,
    /// Whether one of them has used up its ductility.
    exhausted: bool,
    /// The distance from the tip to the nearest phyxel (ahead or not).
    nearest: f64,
}

/// The median distance from a phyxel to its nearest neighbour (the lattice spacing on a lattice).
fn lattice_spacing(body: &Body) -> f64 {
    let hoods = &body.neighbours;
    let mut nearest: Vec<f64> = (0..body.len())
        .filter_map(|i| {
            hoods
                .edges(i)
                .map(|k| body.reference[hoods.neighbour[k] as usize].distance(body.reference[i]))
                .min_by(f64::total_cmp)
        })
        .collect();
    if nearest.is_empty() {
        return body.support_radius.first().copied().unwrap_or(1.0);
    }
    nearest.sort_by(f64::total_cmp);
    nearest[nearest.len() / 2]
}

#[cfg(test)]
mod tests;
