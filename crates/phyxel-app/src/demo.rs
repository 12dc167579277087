//! The demo as the page drives it: a scene of phyxel objects, its settings, stepping (on the CPU, or on
//! an [`Accelerator`] that phyxel-view supplies), the pointer's tools (drag, heat; in the fracture
//! scenes cut and strike) and the readouts.
//! Every number from the page is checked against [`crate::parameters`].

use crate::parameters::{
    BALL_SPEED, CG_ITERATIONS, CG_TOLERANCE, CREEP, C_PROP, DAMPING, DENSITY, FRICTION,
    HEAT_RADIUS, HEAT_RATE, KAPPA, LOAD, MAX_STRAIN, OMEGA_MIN, POISSON, RESOLUTION, STEP_DT,
    STRENGTH, STRIKE_SPEED, VOLUME_STIFFNESS, YIELD, YOUNG,
};
use glam::DVec3;
use phyxel::integrators::Method;
use phyxel::meshless::body::{Integration, NodalVolume};
use phyxel::meshless::fracture::cells::CellSurface;
use phyxel::meshless::fracture::ductile::{ductile_bar, PullingGrips, DUCTILE_PLASTICITY};
use phyxel::meshless::fracture::scenes::{
    notched_bar, notched_bar_cells, GripPath, Grips, NOTCHED_BAR_WIDTH,
};
use phyxel::meshless::fracture::slab::{struck_slab, struck_slab_cells, Ball, SLAB_SPAN};
use phyxel::meshless::fracture::tool::{strike, Stroke};
use phyxel::meshless::fracture::weights::fragments;
use phyxel::meshless::fracture::FractureSettings;
use phyxel::meshless::implicit::{CorotatedImplicit, SolveStats};
use phyxel::meshless::material::Material;
use phyxel::meshless::melting::{HeatSource, Melting};
use phyxel::meshless::plasticity::Plasticity;
use phyxel::meshless::quadrature::Quadrature;
use phyxel::meshless::sampling::Lattice;
use phyxel::meshless::scene::{Objects, SceneDescription};
use phyxel::meshless::simulation::snapshot::Snapshot;
use phyxel::meshless::simulation::{Drag, Elasticity, Simulation};
use phyxel::parallel::in_pool;
use phyxel::params::check_range;
use std::fmt;

/// The most phyxels the single-threaded CPU solver is offered (a step then takes about 0.1 s).
pub const MAX_CPU_PHYXELS: usize = 60_000;

/// The most phyxels the implicit integrator integrates by background quadrature (about 150
/// shape-function edges and 7 kB per phyxel, built on the page's copy and the worker's alike: 20 000
/// phyxels take about 130 MB each); above it the implicit integrator uses the nodal model and says
/// why.
pub const MAX_QUADRATURE_PHYXELS: usize = 20_000;

/// The id of the fracture scene "notched bar pulled apart" (fracture::scenes::notched_bar).
pub const NOTCHED_BAR: &str = "notched-bar";

/// The id of the fracture scene "brittle slab struck by a ball" (fracture::slab::struck_slab).
pub const STRUCK_SLAB: &str = "struck-slab";

/// The id of the fracture scene "ductile bar torn" (fracture::ductile::ductile_bar).
pub const DUCTILE_BAR: &str = "ductile-bar";

/// The fracture scenes' ids.
pub const FRACTURE_SCENES: [&str; 3] = [NOTCHED_BAR, STRUCK_SLAB, DUCTILE_BAR];

/// What loads a fracture scene: the notched bar's grips, the ball that strikes the slab, or the
/// ductile bar's grips moving apart.
#[derive(Clone, Debug)]
enum Loading {
    Grips(Grips),
    Ball(Ball),
    Pull(PullingGrips),
}

/// The time (s) over which the notched bar's grips reach their load.
pub const RAMP_TIME: f64 = 1.0;

/// What the fracture scene shows of its cracks, computed by the demo that steps it (the solver
/// worker's) and carried to the page's copy with each state ([`Demo::snapshot`]): a snapshot carries
/// no cracks, so the page's copy cannot compute them itself.
#[derive(Clone, Debug, PartialEq)]
struct FractureView {
    /// Cracks (the notch is one), and how many of them have grown (a front started or a new crack).
    cracks: usize,
    grown: usize,
    /// Pieces of two or more phyxels that still interact, and phyxels with no neighbour left.
    fragments: usize,
    free: usize,
    /// The largest principal stress over the strength of the phyxels the grips (the rim) do not hold.
    peak: f64,
    /// The grips' load as a fraction of the full load; the ball's speed (m/s) in the struck slab; the
    /// elongation the grips hold (m) in the ductile bar.
    load_fraction: f64,
    /// The largest plastic strain ‖ε_p‖ of the phyxels the grips (the rim) do not hold.
    plastic: f64,
    /// The ball's centre (m) and velocity (m/s) in the struck slab (zero in the notched bar): the
    /// page's copy draws it, and steps on with it after a change of backend.
    ball: [f64; 6],
    /// The cutting so far, to tell a state cut elsewhere: refits, crack events.
    refits: usize,
    events: usize,
    /// Each phyxel's piece (pieces of two or more numbered 0, 1, … by their lowest phyxel; a free
    /// particle u32::MAX) and its σ₁/σ_t.
    piece: Vec<u32>,
    ratio: Vec<f64>,
    /// The lattice faces the cracks opened ([`CellSurface::open_faces`]): the drawn surface's crack
    /// faces.
    open: Vec<u32>,
}

/// Why a demo holding a state cut elsewhere does not step it.
pub const CUT_ELSEWHERE: &str =
    "this body's cracks were cut by another copy of the solver and the \
     state's cracks do not fit this copy's body: it cannot go on from it (restart the scene)";

/// Numbers of [`FractureView`] before its per-phyxel lists in a snapshot.
const FRACTURE_HEADER: usize = 16;

impl FractureView {
    /// Its numbers before the per-phyxel lists, in the snapshot's order: the page's readouts (cracks,
    /// grown, fragments, free, peak, load fraction, ball speed or elongation, peak plastic strain),
    /// then refits, crack events, the ball's centre and velocity, and the phyxels (resampling appends
    /// some) the lists hold.
    fn header(&self) -> [f64; FRACTURE_HEADER] {
        [
            self.cracks as f64,
            self.grown as f64,
            self.fragments as f64,
            self.free as f64,
            self.peak,
            self.load_fraction,
            self.plastic,
            self.refits as f64,
            self.events as f64,
            self.ball[0],
            self.ball[1],
            self.ball[2],
            self.ball[3],
            self.ball[4],
            self.ball[5],
            self.piece.len() as f64,
        ]
    }

    /// Each phyxel's piece as a number: 0, 1, … ; −1 for a free particle.
    fn piece_numbers(&self) -> impl Iterator<Item = f64> + '_ {
        self.piece
            .iter()
            .map(|&p| if p == u32::MAX { -1.0 } else { f64::from(p) })
    }

    /// The view whose [`FractureView::header`] is `header`, with the pieces (a negative number: a
    /// free particle), ratios and open faces of the state's lists: the inverse of the snapshot's
    /// encoding.
    fn from_numbers(header: &[f64], piece: &[f64], ratio: &[f64], open: &[f64]) -> Self {
        let count = |x: f64| x.max(0.0) as usize;
        Self {
            cracks: count(header[0]),
            grown: count(header[1]),
            fragments: count(header[2]),
            free: count(header[3]),
            peak: header[4],
            load_fraction: header[5],
            plastic: header[6],
            refits: count(header[7]),
            events: count(header[8]),
            ball: std::array::from_fn(|k| header[9 + k]),
            piece: piece
                .iter()
                .map(|&p| if p < 0.0 { u32::MAX } else { p as u32 })
                .collect(),
            ratio: ratio.to_vec(),
            open: open.iter().map(|&c| c as u32).collect(),
        }
    }
}

/// The lattice of the struck slab (`slab`) or of the fracture scenes' bars at `across`: cells along
/// x, y, z and the spacing (m).
fn lattice(slab: bool, across: usize) -> ([usize; 3], f64) {
    if slab {
        let cells = struck_slab_cells(across);
        (cells, SLAB_SPAN / cells[0] as f64)
    } else {
        (notched_bar_cells(across), NOTCHED_BAR_WIDTH / across as f64)
    }
}

/// Why the demo refused a request (a parameter out of range, an unknown name, a state that does not
/// fit); the bindings hand the message to JavaScript as it is.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoError(pub String);

impl fmt::Display for DemoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<E: std::error::Error> From<E> for DemoError {
    fn from(error: E) -> Self {
        Self(error.to_string())
    }
}

/// What moves a fracture scene's body during a batch of steps on an accelerator besides its forces:
/// the CPU's drivers around `Simulation::step` (`Grips::step`, `PullingGrips::step`, `Ball::step`).
#[derive(Clone, Debug, PartialEq)]
pub enum BatchLoads {
    /// Nothing (the scenes of objects).
    None,
    /// The held phyxels of the grips, and their law s at the end of each step of the batch.
    Grips { path: GripPath, scales: Vec<f64> },
    /// The ball that strikes the slab as the demo holds it: taken when the accelerator takes the
    /// simulation anew; from then on the accelerator moves it and reads it back with the state
    /// ([`Demo::took_accelerator_state`]).
    Ball(Ball),
}

/// A backend that steps the demo's simulation elsewhere — phyxel-view's GPU backend — while the
/// demo's own [`Simulation`] holds the last state read back from it.
pub trait Accelerator {
    /// Queue `steps` steps of `dt` from `sim`'s state and settings, moved by `loads` too: Ok(true)
    /// when queued (simulated time moves on), Ok(false) when still busy with earlier steps
    /// (simulated time waits for it). Err says why it refuses (an integrator it does not mirror, say):
    /// the demo then drops it and steps on the CPU.
    fn step(
        &mut self,
        sim: &Simulation,
        loads: &BatchLoads,
        dt: f64,
        steps: u32,
    ) -> Result<bool, String>;

    /// The material, damping or integrator changed: take `sim` anew before the next step.
    fn mark_stale(&mut self);

    /// The simulation's state was changed here (a tool, a state restored, the scene built anew): take
    /// `sim` anew before the next step, and drop a read-back under way (its state is older).
    fn take_state_anew(&mut self);

    /// The CG statistics of its last implicit step read back.
    fn last_solve(&self) -> Option<SolveStats>;
}

/// No accelerator: the demo of a module without a GPU backend (the solver worker's).
pub enum CpuOnly {}

impl Accelerator for CpuOnly {
    fn step(&mut self, _: &Simulation, _: &BatchLoads, _: f64, _: u32) -> Result<bool, String> {
        match *self {}
    }

    fn mark_stale(&mut self) {
        match *self {}
    }

    fn take_state_anew(&mut self) {
        match *self {}
    }

    fn last_solve(&self) -> Option<SolveStats> {
        match *self {}
    }
}

/// The demo: the phyxel solver as the page sees it.
pub struct Demo<A = CpuOnly> {
    /// The simulation: the CPU's own, or — while an accelerator steps — the last state it read back.
    pub sim: Simulation,
    description: SceneDescription,
    /// The object of each phyxel (for colouring).
    object_of: Vec<u32>,
    /// All surfaces' triangles, indices offset into one vertex array.
    pub(crate) triangles: Vec<u32>,
    /// The last blow-up, explained; the simulation then stays at its last good state.
    error: Option<String>,
    steps: u64,
    /// Stepping elsewhere instead, if chosen; `sim` then holds the last state read back.
    pub accelerator: Option<A>,
    /// Why the demo left its accelerator on its own, for the page to say once.
    notice: Option<String>,
    /// CG settings of the implicit integration (kept while an explicit method is chosen).
    implicit_settings: CorotatedImplicit,
    /// Phyxels `object_start[k]..object_start[k + 1]` make object k.
    object_start: Vec<usize>,
    /// How the implicit integrator integrates the elastic energy.
    implicit_model: ImplicitModel,
    /// The background quadrature while an explicit method integrates (its points keep their
    /// plastic state), with the reference updates it was built after.
    parked_quadrature: Option<(Box<Quadrature>, usize)>,
    /// What loads the fracture scene (the notched bar's grips, the slab's ball) and its measure of
    /// resolution, phyxels across (None: not a fracture scene).
    loading: Option<(Loading, usize)>,
    /// The fracture scene's lattice, whose cells' faces are the surface drawn.
    cells: Option<CellSurface>,
    /// The fracture scene's cracks as the demo that stepped them last sent them ([`Demo::restore`]):
    /// shown until this demo steps. With `cut_elsewhere` its own body is not cut as that state's is:
    /// the state's cracks (`Fracture::to_numbers`), kept in `carried_cracks`, cut it alike before it
    /// steps or takes a tool.
    mirrored: Option<FractureView>,
    cut_elsewhere: bool,
    carried_cracks: Option<Vec<f64>>,
    /// A fracture scene's batch of steps on the accelerator whose cracks are not cut yet: the next
    /// batch waits for its state to come back ([`Demo::took_accelerator_state`]).
    batch: Batch,
    /// After the last batch on the accelerator was cut: the fracture scene's peak σ₁/σ_t and its rise
    /// per step over that batch (None before the first, or after the state changed here): how long
    /// the next batch may be.
    quiet: Option<Quiet>,
}

/// What the last batch on the accelerator left, for the length of the next: the peak σ₁/σ_t and
/// peak plastic strain ‖ε_p‖ of the free phyxels, and how fast each rose per step over that batch.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Quiet {
    peak: f64,
    peak_rise: f64,
    plastic: f64,
    plastic_rise: f64,
}

impl Quiet {
    /// The most steps before `value`, rising at `rise` per step, could reach `limit`, with a margin
    /// of two (the rise may quicken): 0 at or above it.
    fn steps_below(value: f64, rise: f64, limit: f64) -> f64 {
        if value >= limit {
            0.0
        } else if rise > 0.0 {
            (limit - value) / (2.0 * rise)
        } else {
            f64::INFINITY
        }
    }
}

/// What cutting a fracture scene's cracks after a batch of steps on an accelerator changed, for the
/// accelerator to take ([`Demo::took_accelerator_state`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CutChange {
    /// Weights changed and phyxels were refitted: the weight factors, rest corrections and MLS frames
    /// (`GpuSolver::set_cut_weights`), and a plastic body's plastic strains (a released phyxel drops
    /// its own).
    pub refitted: bool,
    /// Only rest corrections relaxed.
    pub relaxed: bool,
    /// Resampling appended phyxels: the body must be taken anew.
    pub resampled: bool,
}

/// A fracture scene's batch of `steps` steps of `dt` on the accelerator, until its state is back and
/// its cracks are cut.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Batch {
    /// None under way.
    Done,
    /// Queued; the next read-back brings it.
    Queued { dt: f64, steps: u32 },
    /// A read-back of its state is under way.
    Reading { dt: f64, steps: u32 },
}

/// How the corotated implicit Euler integrates the elastic energy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImplicitModel {
    /// Gauss points of a background grid over each object (Brunet et al. 2019 §3.3: the body's
    /// stiffness converges to the continuum's under refinement) — the default.
    Quadrature,
    /// At the phyxels, with MKN04's volumes m_i/ρ_i (too stiff near the surface).
    Nodal,
}

impl ImplicitModel {
    pub const ALL: [ImplicitModel; 2] = [ImplicitModel::Quadrature, ImplicitModel::Nodal];

    /// The name used in URLs and messages.
    pub fn id(self) -> &'static str {
        match self {
            ImplicitModel::Quadrature => "quadrature",
            ImplicitModel::Nodal => "nodal",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.id() == id)
    }
}

impl<A: Accelerator> Demo<A> {
    /// A scene: `objects` ("cube", "sphere", "torus", "bunny", "several", "collide"), `resolution` phyxels across
    /// 0.4 m, on a cubic or body-centred cubic lattice — or a fracture scene, [`NOTCHED_BAR`] (its
    /// section ⌈resolution/2⌉ phyxels across), [`STRUCK_SLAB`] (4 × ⌈resolution/2⌉ along its edges)
    /// or [`DUCTILE_BAR`] (the notched bar's size, no notch, plastic),
    /// at least 3 across, cubic lattice, no ball on the ground, its fracture settings the table's
    /// defaults until [`Demo::set_fracture`] — Young's modulus E (Pa), Poisson's ratio ν,
    /// density ρ (kg/m³), volume stiffness k_v (Pa), and whether a ball lies on the ground.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        objects: &str,
        resolution: u32,
        bcc: bool,
        young: f64,
        poisson: f64,
        density: f64,
        volume_stiffness: f64,
        obstacle: bool,
    ) -> Result<Self, DemoError> {
        if FRACTURE_SCENES.contains(&objects) {
            return Self::fracture_scene(
                objects,
                resolution,
                bcc,
                material(young, poisson, density, volume_stiffness)?,
                obstacle,
            );
        }
        let objects = Objects::from_id(objects).ok_or_else(|| {
            let known: Vec<&str> = Objects::ALL.iter().map(|o| o.id()).collect();
            DemoError(format!(
                "unknown scene “{objects}” (known: {}, {})",
                known.join(", "),
                FRACTURE_SCENES.join(", ")
            ))
        })?;
        RESOLUTION.check(f64::from(resolution))?;
        let description = SceneDescription {
            objects,
            resolution,
            lattice: if bcc {
                Lattice::BodyCentredCubic
            } else {
                Lattice::Cubic
            },
            material: material(young, poisson, density, volume_stiffness)?,
            obstacle,
            ..SceneDescription::default()
        };
        let scene = description.build(MAX_CPU_PHYXELS)?;
        let object_of = scene.object_of_phyxels();
        let object_start = scene.object_start.clone();
        let mut triangles = Vec::new();
        let mut offset = 0;
        for surface in &scene.simulation.surfaces {
            triangles.extend(surface.triangles.iter().flatten().map(|k| k + offset));
            offset += surface.vertex_count() as u32;
        }
        Ok(Self {
            sim: scene.simulation,
            description,
            object_of,
            triangles,
            error: None,
            steps: 0,
            accelerator: None,
            notice: None,
            implicit_settings: CorotatedImplicit::default(),
            object_start,
            implicit_model: ImplicitModel::Quadrature,
            parked_quadrature: None,
            loading: None,
            cells: None,
            mirrored: None,
            cut_elsewhere: false,
            carried_cracks: None,
            batch: Batch::Done,
            quiet: None,
        })
    }

    /// Change the material in place: E, ν, k_v take effect at the next step; a new density scales
    /// every mass and density (volumes stay: [`phyxel::meshless::body::Body::set_material`]).
    pub fn set_material(
        &mut self,
        young: f64,
        poisson: f64,
        density: f64,
        volume_stiffness: f64,
    ) -> Result<(), DemoError> {
        let new = material(young, poisson, density, volume_stiffness)?;
        self.sim.body.set_material(new);
        self.description.material = new;
        self.mark_stale();
        Ok(())
    }

    /// Mass-proportional damping c (1/s) and the Coulomb friction coefficient at the obstacles.
    pub fn set_damping_and_friction(
        &mut self,
        damping: f64,
        friction: f64,
    ) -> Result<(), DemoError> {
        self.sim.environment.damping = DAMPING.check(damping)?;
        self.sim.environment.friction = FRICTION.check(friction)?;
        self.mark_stale();
        Ok(())
    }

    /// Choose the time integrator by id (see the time-integration lesson). "implicit-euler" is the
    /// corotated implicit Euler with CG (its elastic model is the corotated one, its plasticity
    /// multiplicative), integrated as [`Demo::set_implicit_model`] says — by background quadrature
    /// unless chosen otherwise; the explicit methods use MKN04's nodal model. Each model keeps its
    /// own plastic state. If the quadrature cannot be built, the implicit integrator takes the nodal
    /// model and [`Demo::take_notice`] says why.
    pub fn set_integrator(&mut self, id: &str) -> Result<(), DemoError> {
        let method =
            Method::from_id(id).ok_or_else(|| DemoError(format!("unknown integrator “{id}”")))?;
        if method == Method::ImplicitEuler && self.loading.is_some() {
            return Err(DemoError(
                "the fracture scenes crack with MKN04's nodal model and an explicit integrator: the \
                 corotated implicit model is not cut yet"
                    .into(),
            ));
        }
        self.mark_stale();
        if method == Method::ImplicitEuler {
            self.sim
                .set_corotated_implicit(Some(self.implicit_settings));
            if self.implicit_model == ImplicitModel::Quadrature {
                if let Err(refusal) = self.integrate_by_quadrature() {
                    self.notice = Some(format!(
                        "{refusal}; the implicit integrator uses the nodal model instead"
                    ));
                }
            }
            return Ok(());
        }
        self.integrate_at_phyxels();
        self.sim.set_corotated_implicit(None);
        self.sim.elasticity = Elasticity::Mkn04;
        Ok(self.sim.set_integrator(method)?)
    }

    /// How the implicit integrator integrates: "quadrature" (background Gauss points, seed 003 §3.3;
    /// the default) or "nodal" (at the phyxels, MKN04's volumes). Takes effect at once while it
    /// integrates (refused, keeping the model in use, if the quadrature cannot be built); an explicit
    /// method always integrates at the phyxels.
    pub fn set_implicit_model(&mut self, id: &str) -> Result<(), DemoError> {
        let model = ImplicitModel::from_id(id).ok_or_else(|| {
            DemoError(format!(
                "unknown implicit model “{id}” (known: quadrature, nodal)"
            ))
        })?;
        if self.is_implicit() {
            self.mark_stale();
            match model {
                ImplicitModel::Quadrature => self.integrate_by_quadrature()?,
                ImplicitModel::Nodal => self.integrate_at_phyxels(),
            }
        }
        self.implicit_model = model;
        Ok(())
    }

    /// The model the implicit integrator uses now: "quadrature" or "nodal" (an explicit method
    /// integrates at the phyxels: "nodal").
    pub fn integration(&self) -> &'static str {
        if self.sim.body.quadrature().is_some() {
            ImplicitModel::Quadrature.id()
        } else {
            ImplicitModel::Nodal.id()
        }
    }

    /// Integrate by background quadrature: the one parked when an explicit method took over, if the
    /// rest shape has not moved since, else a new one over each object
    /// ([`SceneDescription::set_quadrature`]).
    fn integrate_by_quadrature(&mut self) -> Result<(), DemoError> {
        if self.sim.body.quadrature().is_some() {
            return Ok(());
        }
        match self.parked_quadrature.take() {
            Some((mut quadrature, updates)) if updates == self.sim.reference_updates => {
                let (lambda, mu) = self.sim.body.material.lame();
                quadrature.set_uniform_material(lambda, mu);
                self.sim.body.adopt_quadrature(quadrature);
                Ok(())
            }
            _ => {
                let phyxels = self.sim.body.len();
                if phyxels > MAX_QUADRATURE_PHYXELS {
                    return Err(DemoError(format!(
                        "background quadrature: {phyxels} phyxels are more than it is built for \
                         ({MAX_QUADRATURE_PHYXELS}, about 7 kB of shape functions each): lower the \
                         resolution"
                    )));
                }
                let objects: Vec<_> = self.object_start.windows(2).map(|w| w[0]..w[1]).collect();
                Ok(self.description.set_quadrature(&mut self.sim, &objects)?)
            }
        }
    }

    /// Integrate at the phyxels with MKN04's volumes and the sampling's masses ρ₀ × cell volume,
    /// parking the quadrature (if any) with its plastic state.
    fn integrate_at_phyxels(&mut self) {
        let body = &mut self.sim.body;
        let Integration::Quadrature(quadrature) = std::mem::take(&mut body.integration) else {
            return;
        };
        self.parked_quadrature = Some((quadrature, self.sim.reference_updates));
        let cell_mass = self
            .description
            .lattice
            .cell_volume(self.description.spacing())
            * body.material.density;
        body.mass.iter_mut().for_each(|m| *m = cell_mass);
        body.set_nodal_volume(NodalVolume::KernelDensity);
    }

    /// The implicit integration's CG settings: relative residual tolerance and iteration limit.
    pub fn set_implicit_solver(
        &mut self,
        tolerance: f64,
        max_iterations: u32,
    ) -> Result<(), DemoError> {
        self.implicit_settings = CorotatedImplicit {
            tolerance: CG_TOLERANCE.check(tolerance)?,
            max_iterations: CG_ITERATIONS.check(f64::from(max_iterations))? as usize,
            ..self.implicit_settings
        };
        if self.sim.corotated_implicit().is_some() {
            self.sim
                .set_corotated_implicit(Some(self.implicit_settings));
            self.mark_stale();
        }
        Ok(())
    }

    /// Whether the corotated implicit Euler integrates (no stability bound applies).
    pub fn is_implicit(&self) -> bool {
        self.sim.corotated_implicit().is_some()
    }

    /// The last implicit step's solve: the accelerator's last read back while it steps, else the
    /// CPU's.
    fn last_solve(&self) -> Option<SolveStats> {
        if !self.is_implicit() {
            return None;
        }
        match &self.accelerator {
            Some(accelerator) => accelerator.last_solve(),
            None => self.sim.last_solve(),
        }
    }

    /// CG iterations of the last implicit step (−1 when none was taken).
    pub fn cg_iterations(&self) -> f64 {
        self.last_solve().map_or(-1.0, |s| s.iterations as f64)
    }

    /// Relative residual ‖b − A Δv‖/‖b‖ the last implicit step's CG ended with (−1 when none).
    pub fn cg_residual(&self) -> f64 {
        self.last_solve().map_or(-1.0, |s| s.relative_residual)
    }

    pub fn phyxel_count(&self) -> usize {
        self.sim.body.len()
    }

    pub fn mean_neighbours(&self) -> f64 {
        self.sim.body.neighbours.mean_count()
    }

    /// Moment matrices that needed the safe (pseudo-)inverse.
    pub fn regularized_count(&self) -> usize {
        self.sim.body.mls.regularized
    }

    pub fn reference_updates(&self) -> usize {
        self.sim.reference_updates
    }

    /// The explicit stability bound h√(ρ/E) (s).
    pub fn cfl_time_step(&self) -> f64 {
        self.sim.cfl_time_step()
    }

    /// The default step: a safe fraction of the bound.
    pub fn recommended_time_step(&self) -> f64 {
        self.sim.recommended_time_step()
    }

    pub fn time(&self) -> f64 {
        self.sim.time
    }

    /// Kinetic + gravitational + elastic energy (J).
    pub fn energy(&self) -> f64 {
        self.sim.energy()
    }

    /// Lattice spacing (m).
    pub fn spacing(&self) -> f64 {
        match &self.loading {
            Some((loading, across)) => lattice(matches!(loading, Loading::Ball(_)), *across).1,
            None => self.description.spacing(),
        }
    }

    /// Steps taken since the scene was built.
    pub fn steps(&self) -> f64 {
        self.steps as f64
    }

    /// The object of each phyxel.
    pub fn object_of(&self) -> &[u32] {
        &self.object_of
    }

    pub fn max_temperature(&self) -> f64 {
        self.sim
            .body
            .temperature
            .iter()
            .cloned()
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The tallest point of the body (m): how far a melting block has slumped.
    pub fn height(&self) -> f64 {
        self.sim
            .body
            .positions()
            .iter()
            .map(|p| p.y)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Centre and radius of the body's bounding sphere: [x, y, z, r].
    pub fn bounds(&self) -> Vec<f64> {
        let positions = self.sim.body.positions();
        let (lo, hi) = positions
            .iter()
            .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(*p), hi.max(*p))
            });
        let centre = 0.5 * (lo + hi);
        vec![centre.x, centre.y, centre.z, 0.5 * (hi - lo).length()]
    }

    /// Enable MKN04 plasticity (c_yield, c_creep in 1/s, c_max), or disable it with `enabled = false`.
    /// Refused in the ductile bar, whose plasticity is part of the scene ([`DUCTILE_PLASTICITY`]).
    pub fn set_plasticity(
        &mut self,
        enabled: bool,
        yield_strain: f64,
        creep: f64,
        max_strain: f64,
    ) -> Result<(), DemoError> {
        if let Some((Loading::Pull(_), _)) = self.loading {
            let p = DUCTILE_PLASTICITY;
            return Err(DemoError(format!(
                "the ductile bar's plasticity is part of the scene (c_yield {}, c_creep {} 1/s, \
                 c_max {}): the page's plasticity applies to the other scenes",
                p.yield_strain, p.creep, p.max_strain
            )));
        }
        self.sim.plasticity = if enabled {
            Some(Plasticity {
                yield_strain: YIELD.check(yield_strain)?,
                creep: CREEP.check(creep)?,
                max_strain: MAX_STRAIN.check(max_strain)?,
            })
        } else {
            None
        };
        Ok(())
    }

    /// Heat with a source at (x, y, z) of the given radius (m) and rate (K/s); rate 0 switches the
    /// source off (the heat already there keeps diffusing). The material melts as
    /// [`Melting::default`] says.
    pub fn set_heat_source(
        &mut self,
        x: f64,
        y: f64,
        z: f64,
        radius: f64,
        rate: f64,
    ) -> Result<(), DemoError> {
        let position = DVec3::new(x, y, z);
        if !position.is_finite() {
            return Err(DemoError("the heat source position must be finite".into()));
        }
        let rate = HEAT_RATE.check(rate)?;
        let heat_source = (rate > 0.0)
            .then(|| {
                Ok::<_, DemoError>(HeatSource {
                    position,
                    radius: HEAT_RADIUS.check(radius)?,
                    rate,
                })
            })
            .transpose()?;
        self.sim.melting = Some(Melting {
            heat_source,
            ..Melting::default()
        });
        Ok(())
    }

    /// Advance `steps` steps of `dt`. Returns false (and keeps the last good state) on a blow-up;
    /// [`Demo::error`] then explains it. With an accelerator the steps are queued there; if it
    /// refuses, the demo steps on the CPU from then on and says why once ([`Demo::take_notice`]).
    pub fn step(&mut self, dt: f64, steps: u32) -> Result<bool, DemoError> {
        let dt = check_range("Δt", dt, STEP_DT.0, STEP_DT.1)?;
        if let Err(error) = self.cut_as_carried() {
            self.error = Some(error.0);
            return Ok(false);
        }
        if self.accelerator.is_some() {
            // A fracture scene's cracks are cut here after each batch: the next waits for them, and
            // a batch is short enough that its fronts advance little at once.
            let steps = match &self.loading {
                Some(_) if self.batch != Batch::Done => return Ok(true),
                Some(_) => steps.min(self.fracture_batch_steps(dt)),
                None => steps,
            };
            let loads = self.batch_loads(dt, steps);
            let accelerator = self.accelerator.as_mut().expect("checked above");
            match accelerator.step(&self.sim, &loads, dt, steps) {
                Ok(queued) => {
                    if queued {
                        self.sim.time += dt * f64::from(steps);
                        self.steps += u64::from(steps);
                        self.error = None;
                        if self.loading.is_some() && steps > 0 {
                            self.batch = Batch::Queued { dt, steps };
                        }
                    }
                    return Ok(true);
                }
                Err(reason) => {
                    self.accelerator = None;
                    self.notice = Some(reason);
                }
            }
        }
        let sim = &mut self.sim;
        let mut loading = self.loading.as_mut().map(|(l, _)| l);
        self.mirrored = None;
        // The whole batch on one pool thread (the threaded build): see `parallel::in_pool`.
        let (taken, blow_up) = in_pool(|| {
            for taken in 0..steps {
                let stepped = match loading.as_deref_mut() {
                    Some(Loading::Grips(grips)) => grips.step(sim, dt),
                    Some(Loading::Ball(ball)) => ball.step(sim, dt),
                    Some(Loading::Pull(grips)) => grips.step(sim, dt),
                    None => sim.step(dt),
                };
                if let Err(blow_up) = stepped {
                    return (taken, Some(blow_up));
                }
            }
            (steps, None)
        });
        self.steps += u64::from(taken);
        self.error = blow_up.map(|b| b.to_string());
        self.follow_growth();
        Ok(self.error.is_none())
    }

    /// The simulation's state as one array of numbers — the demo's step count, then
    /// [`Simulation::snapshot`] — for the page to mirror the solver worker's simulation, or to carry
    /// the motion over to another backend. With `with_reference` the rest shape travels too (needed
    /// once a reference update has moved it).
    /// In the fracture scene the state carries, after the step count, what `FractureView` shows
    /// (its length, then its numbers) and the cracks themselves (their length, then
    /// `Fracture::to_numbers`), so that a demo given the state — a restarted worker — cuts its body
    /// alike.
    pub fn snapshot(&self, with_reference: bool) -> Vec<f64> {
        let mut state = vec![self.steps as f64];
        match self.fracture_view() {
            Some(v) => {
                state.push((FRACTURE_HEADER + 2 * v.piece.len() + v.open.len()) as f64);
                state.extend(v.header());
                state.extend(v.piece_numbers());
                state.extend(&v.ratio);
                state.extend(v.open.iter().map(|&c| f64::from(c)));
                let cracks = match (&self.carried_cracks, &self.sim.fracture) {
                    (Some(carried), _) if self.cut_elsewhere => carried.clone(),
                    (_, Some(fracture)) => fracture.to_numbers(&self.sim.body),
                    _ => Vec::new(),
                };
                state.push(cracks.len() as f64);
                state.extend(cracks);
            }
            None => state.push(0.0),
        }
        state.extend(self.sim.snapshot(with_reference).0);
        state
    }

    /// Take the state of [`Demo::snapshot`] from a demo of the same scene and settings. Refused,
    /// changing nothing, if it does not fit.
    pub fn restore(&mut self, state: Vec<f64>) -> Result<(), DemoError> {
        let (steps, rest) = match state.split_first() {
            Some((&steps, rest)) if steps >= 0.0 && steps.fract() == 0.0 => (steps, rest),
            _ => return Err(DemoError("the state must start with a step count".into())),
        };
        let mut carried = None;
        let (view, snapshot) = match rest.split_first() {
            Some((&0.0, snapshot)) if self.loading.is_none() => (None, snapshot),
            Some((&length, rest))
                if self.loading.is_some()
                    && length >= FRACTURE_HEADER as f64
                    && length.fract() == 0.0
                    && rest.len() as f64 >= length =>
            {
                let (numbers, rest) = rest.split_at(length as usize);
                let (header, lists) = numbers.split_at(FRACTURE_HEADER);
                let n = header[FRACTURE_HEADER - 1];
                if !(n >= 1.0 && n.fract() == 0.0 && lists.len() as f64 >= 2.0 * n) {
                    return Err(DemoError(
                        "the state is not one of this scene (its phyxel count does not fit)".into(),
                    ));
                }
                let n = n as usize;
                let (piece, lists) = lists.split_at(n);
                let (ratio, open) = lists.split_at(n);
                let faces = 3 * n as u32;
                if !open
                    .iter()
                    .all(|&c| c >= 0.0 && c.fract() == 0.0 && c < f64::from(faces))
                {
                    return Err(DemoError(format!(
                        "the state is not one of this scene (its open faces must be whole numbers \
                         below {faces})"
                    )));
                }
                let view = FractureView::from_numbers(header, piece, ratio, open);
                let (cracks, snapshot) = match rest.split_first() {
                    Some((&length, rest))
                        if length >= 0.0
                            && length.fract() == 0.0
                            && length <= rest.len() as f64 =>
                    {
                        rest.split_at(length as usize)
                    }
                    _ => {
                        return Err(DemoError(
                            "the state is not one of this scene (its cracks do not fit)".into(),
                        ))
                    }
                };
                carried = Some(cracks.to_vec());
                (Some(view), snapshot)
            }
            _ => {
                return Err(DemoError(
                    "the state is not one of this scene (its fracture part does not fit)".into(),
                ))
            }
        };
        // A state of more phyxels than this body (resampling appended them there): this body grows
        // and is cut alike first — on a copy, so that a state that does not fit changes nothing.
        let grows = view
            .as_ref()
            .is_some_and(|v| v.piece.len() != self.sim.body.len());
        if grows {
            let mut grown = self.sim.clone();
            let (Some(numbers), Some(fracture)) = (&carried, grown.fracture.as_mut()) else {
                return Err(DemoError(CUT_ELSEWHERE.into()));
            };
            fracture
                .restore_numbers(&mut grown.body, numbers)
                .map_err(|e| DemoError(format!("{CUT_ELSEWHERE} ({e})")))?;
            if !grown.fixed.is_empty() {
                grown.fixed.resize(grown.body.len(), false);
            }
            grown.restore(&Snapshot(snapshot.to_vec()))?;
            self.sim = grown;
            self.follow_growth();
        } else {
            self.sim.restore(&Snapshot(snapshot.to_vec()))?;
        }
        // The ball where the worker's is, as fast (the page's copy draws it).
        if let (Some(v), Some((Loading::Ball(ball), _))) = (&view, &mut self.loading) {
            let centre = DVec3::from_slice(&v.ball[..3]);
            let velocity = DVec3::from_slice(&v.ball[3..]);
            if centre.is_finite() && velocity.is_finite() {
                (ball.centre, ball.velocity) = (centre, velocity);
            }
        }
        // A state whose cracks were cut by another demo: shown, but this body is not cut alike.
        let own = self.own_fracture_view();
        self.cut_elsewhere = match (&view, &own) {
            (Some(v), Some(o)) => {
                !grows && (v.cracks, v.events, v.refits) != (o.cracks, o.events, o.refits)
            }
            _ => false,
        };
        self.carried_cracks = carried.filter(|_| self.cut_elsewhere);
        self.mirrored = view;
        self.steps = steps as u64;
        self.error = None;
        self.take_state_anew();
        Ok(())
    }

    /// A body whose state was cut elsewhere ([`Demo::restore`]) cut alike from the state's cracks,
    /// before it steps or takes a tool; refused (the body left as it was) if they do not fit it.
    fn cut_as_carried(&mut self) -> Result<(), DemoError> {
        if !self.cut_elsewhere {
            return Ok(());
        }
        let (Some(numbers), Some(fracture)) = (&self.carried_cracks, self.sim.fracture.as_mut())
        else {
            return Err(DemoError(CUT_ELSEWHERE.into()));
        };
        fracture
            .restore_numbers(&mut self.sim.body, numbers)
            .map_err(|e| DemoError(format!("{CUT_ELSEWHERE} ({e})")))?;
        self.cut_elsewhere = false;
        self.carried_cracks = None;
        self.take_state_anew();
        Ok(())
    }

    /// Why the last steps stopped (a blow-up, explained), if they did.
    pub fn error(&self) -> Option<String> {
        self.error.clone()
    }

    /// The accelerator stopped with `error` (a blow-up it read back): step on the CPU from the last
    /// state read, and say why.
    pub fn stop_accelerator(&mut self, error: String) {
        self.use_cpu();
        self.error = Some(error);
    }

    /// "gpu" while the accelerator (the GPU backend) steps, else "cpu".
    pub fn backend(&self) -> &'static str {
        if self.accelerator.is_some() {
            "gpu"
        } else {
            "cpu"
        }
    }

    /// Step on the CPU again, from the last state read back from the accelerator.
    pub fn use_cpu(&mut self) {
        self.accelerator = None;
        self.batch = Batch::Done;
        self.quiet = None;
    }

    /// Why the demo went back to the CPU by itself, once (then None).
    pub fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    /// Current positions as x, y, z triples.
    pub fn positions(&self) -> Vec<f32> {
        self.sim
            .body
            .positions()
            .iter()
            .flat_map(|p| [p.x as f32, p.y as f32, p.z as f32])
            .collect()
    }

    /// Per-phyxel temperatures (°C).
    pub fn temperatures(&self) -> Vec<f32> {
        self.sim
            .body
            .temperature
            .iter()
            .map(|&t| t as f32)
            .collect()
    }

    /// Pick the phyxel nearest along the ray `origin` + s·`direction` (each [x, y, z]) within `radius`
    /// of it; −1 if none.
    pub fn pick(&self, origin: &[f64], direction: &[f64], radius: f64) -> Result<i32, DemoError> {
        let (origin, direction) = (
            vector(origin, "ray origin")?,
            vector(direction, "ray direction")?,
        );
        Ok(self
            .sim
            .pick(origin, direction, radius)
            .map_or(-1, |i| i as i32))
    }

    /// Position of phyxel `phyxel`: [x, y, z] (empty for an invalid index).
    pub fn position(&self, phyxel: i32) -> Vec<f64> {
        let body = &self.sim.body;
        usize::try_from(phyxel)
            .ok()
            .filter(|&i| i < body.len())
            .map(|i| {
                (body.reference[i] + body.displacement[i])
                    .to_array()
                    .to_vec()
            })
            .unwrap_or_default()
    }

    /// Drag phyxel `phyxel` towards (x, y, z) with a spring that a step of `dt` integrates stably
    /// ([`Drag::stable`]), stretched at most one lattice spacing so that a far target pulls firmly
    /// without flinging the phyxel; a negative index releases it.
    pub fn drag(&mut self, phyxel: i32, x: f64, y: f64, z: f64, dt: f64) {
        let target = DVec3::new(x, y, z);
        let valid = usize::try_from(phyxel)
            .ok()
            .filter(|&i| i < self.sim.body.len() && target.is_finite() && dt > 0.0);
        self.sim.drag =
            valid.map(|i| Drag::stable(i, target, self.sim.body.mass[i], dt, self.spacing()));
    }

    fn mark_stale(&mut self) {
        if let Some(accelerator) = &mut self.accelerator {
            accelerator.mark_stale();
        }
    }

    /// The state was changed here ([`Accelerator::take_state_anew`]): no batch is under way any more.
    fn take_state_anew(&mut self) {
        self.batch = Batch::Done;
        self.quiet = None;
        if let Some(accelerator) = &mut self.accelerator {
            accelerator.take_state_anew();
        }
    }
}

fn material(
    young: f64,
    poisson: f64,
    density: f64,
    volume_stiffness: f64,
) -> Result<Material, DemoError> {
    Ok(Material {
        young: YOUNG.check(young)?,
        poisson: POISSON.check(poisson)?,
        density: DENSITY.check(density)?,
        volume_stiffness: VOLUME_STIFFNESS.check(volume_stiffness)?,
    })
}

fn vector(v: &[f64], name: &str) -> Result<DVec3, DemoError> {
    match v {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok(DVec3::new(*x, *y, *z)),
        _ => Err(DemoError(format!("{name} must be three finite numbers"))),
    }
}

mod fracture;

#[cfg(test)]
mod tests;
