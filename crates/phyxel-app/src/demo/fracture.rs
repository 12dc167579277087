//! The demo's fracture scenes (seed 000 §4.1.3, seed 002 §7.3), "notched bar pulled apart",
//! "brittle slab struck by a ball" and "ductile bar torn": the bar built with its grips
//! (`phyxel::meshless::fracture::scenes::notched_bar`), the slab with its ball
//! (`phyxel::meshless::fracture::slab::struck_slab`), the plastic bar with its moving grips
//! (`phyxel::meshless::fracture::ductile::ductile_bar`), their fracture settings from the page's
//! controls, and what the page shows of their cracks (cracks, fragments, free particles, σ₁/σ_t,
//! the peak plastic strain), computed by the demo that steps them and carried to the page's copy with
//! each state; and the pointer's cut and strike (`phyxel::meshless::fracture::tool`), which the page
//! sends to the demo that steps. Nothing here computes physics: the cracks, stresses, fragments, cuts,
//! blows and the ball's motion are the solver's.

use super::*;
use phyxel::meshless::fracture::cells::CellMesh;
use phyxel::meshless::fracture::ductile::GRIP_SPEED;
use phyxel::meshless::plasticity::norm;

impl<A: Accelerator> Demo<A> {
    /// The fracture scene `scene` ([`NOTCHED_BAR`]: [`notched_bar`]; [`STRUCK_SLAB`]:
    /// [`struck_slab`]; [`DUCTILE_BAR`]: [`ductile_bar`]) with the table's fracture defaults.
    pub(super) fn fracture_scene(
        scene: &str,
        resolution: u32,
        bcc: bool,
        material: Material,
        obstacle: bool,
    ) -> Result<Self, DemoError> {
        RESOLUTION.check(f64::from(resolution))?;
        let name = scene_name(scene);
        if bcc {
            return Err(DemoError(format!(
                "the {name} is built on a cubic lattice only (its cracks and rim follow the lattice \
                 layers)"
            )));
        }
        if obstacle {
            return Err(DemoError(format!(
                "the {name} has no gravity and no ground: it takes no ball on the ground"
            )));
        }
        let across = resolution.div_ceil(2).max(3) as usize;
        let description = SceneDescription {
            lattice: Lattice::Cubic,
            resolution,
            material,
            ..SceneDescription::default()
        };
        let (sim, loading, cells) = build(
            scene,
            across,
            material,
            FractureSettings::new(STRENGTH.default, C_PROP.default)?
                .with_resampling(OMEGA_MIN.default)?,
            LOAD.default,
            BALL_SPEED.default,
            DAMPING.default,
        )?;
        Ok(Self {
            object_of: vec![0; sim.body.len()],
            object_start: vec![0, sim.body.len()],
            sim,
            description,
            triangles: Vec::new(),
            error: None,
            steps: 0,
            accelerator: None,
            notice: None,
            implicit_settings: CorotatedImplicit::default(),
            implicit_model: ImplicitModel::Quadrature,
            parked_quadrature: None,
            loading: Some((loading, across)),
            cells: Some(cells),
            mirrored: None,
            cut_elsewhere: false,
            carried_cracks: None,
            batch: Batch::Done,
            quiet: None,
        })
    }

    /// The fracture scene's settings: tensile strength σ_t (Pa), crack speed c_prop (m/s), the
    /// weights ("visibility" or "transparency", seed 002 §7.3 / eq. 70) with κ, resampling's Ω_min
    /// (seed 002 eq. 71), the notched bar's grips' load as a fraction of σ_t and the struck slab's
    /// ball speed (m/s) — each checked in every fracture scene, used in its own (the ductile bar uses
    /// neither of the last two: its grips move apart at [`GRIP_SPEED`]). Builds the scene anew (from
    /// rest, the material and damping kept): call it before the other setters. Refused, changing
    /// nothing, for values the solver refuses (each positive, the speed 0 or more), or in another
    /// scene (only the fracture scenes crack).
    #[allow(clippy::too_many_arguments)]
    pub fn set_fracture(
        &mut self,
        strength: f64,
        c_prop: f64,
        weights: &str,
        kappa: f64,
        omega_min: f64,
        load: f64,
        ball_speed: f64,
    ) -> Result<(), DemoError> {
        let Some((loading, across)) = &self.loading else {
            return Err(DemoError(format!(
                "only the fracture scenes (“{NOTCHED_BAR}”, “{STRUCK_SLAB}”, “{DUCTILE_BAR}”) crack"
            )));
        };
        let scene = match loading {
            Loading::Grips(_) => NOTCHED_BAR,
            Loading::Ball(_) => STRUCK_SLAB,
            Loading::Pull(_) => DUCTILE_BAR,
        };
        let settings = FractureSettings::new(STRENGTH.check(strength)?, C_PROP.check(c_prop)?)?
            .with_resampling(OMEGA_MIN.check(omega_min)?)?;
        let settings = match weights {
            "visibility" => settings,
            "transparency" => settings.with_transparency(KAPPA.check(kappa)?)?,
            other => {
                return Err(DemoError(format!(
                    "unknown weights “{other}” (known: visibility, transparency)"
                )))
            }
        };
        let across = *across;
        let (mut sim, loading, cells) = build(
            scene,
            across,
            self.description.material,
            settings,
            LOAD.check(load)?,
            BALL_SPEED.check(ball_speed)?,
            self.sim.environment.damping,
        )?;
        sim.environment = self.sim.environment.clone();
        self.object_of = vec![0; sim.body.len()];
        self.object_start = vec![0, sim.body.len()];
        self.sim = sim;
        self.loading = Some((loading, across));
        self.cells = Some(cells);
        self.steps = 0;
        self.error = None;
        self.mirrored = None;
        self.cut_elsewhere = false;
        self.carried_cracks = None;
        self.take_state_anew();
        Ok(())
    }

    /// Whether this is a fracture scene.
    pub fn is_fracture_scene(&self) -> bool {
        self.loading.is_some()
    }

    /// The struck slab's ball (None in another scene).
    pub(crate) fn ball(&self) -> Option<&Ball> {
        match &self.loading {
            Some((Loading::Ball(ball), _)) => Some(ball),
            _ => None,
        }
    }

    /// The fracture scene's cracks as computed here from the simulation.
    pub(super) fn own_fracture_view(&self) -> Option<FractureView> {
        let (loading, _) = self.loading.as_ref()?;
        let fracture = self.sim.fracture.as_ref()?;
        let body = &self.sim.body;
        let (_, label) = fragments(body);
        let mut size = vec![0usize; body.len()];
        label.iter().for_each(|&l| size[l as usize] += 1);
        let mut number = vec![u32::MAX; body.len()];
        let mut fragments = 0;
        let piece = label
            .iter()
            .map(|&l| {
                let l = l as usize;
                if size[l] < 2 {
                    return u32::MAX;
                }
                if number[l] == u32::MAX {
                    number[l] = fragments;
                    fragments += 1;
                }
                number[l]
            })
            .collect::<Vec<u32>>();
        let plastic = body
            .plastic_strain
            .iter()
            .zip(&self.sim.fixed)
            .filter(|(_, &held)| !held)
            .map(|(p, _)| norm(*p))
            .fold(0.0, f64::max);
        let ratio = fracture.stress_ratio_values(body);
        let peak = ratio
            .iter()
            .zip(&self.sim.fixed)
            .filter(|(_, &held)| !held)
            .map(|(r, _)| *r)
            .fold(0.0, f64::max);
        let mut grown: Vec<usize> = fracture.events.iter().map(|e| e.crack).collect();
        grown.sort_unstable();
        grown.dedup();
        Some(FractureView {
            cracks: fracture.cracks.len(),
            grown: grown.len(),
            fragments: fragments as usize,
            free: piece.iter().filter(|&&p| p == u32::MAX).count(),
            peak,
            load_fraction: match loading {
                Loading::Grips(grips) => grips.load_fraction(self.sim.time),
                Loading::Ball(ball) => ball.velocity.length(),
                Loading::Pull(grips) => grips.elongation(self.sim.time),
            },
            plastic,
            refits: fracture.recomputed_total,
            events: fracture.events.len(),
            ball: match loading {
                Loading::Grips(_) | Loading::Pull(_) => [0.0; 6],
                Loading::Ball(b) => {
                    let (c, v) = (b.centre, b.velocity);
                    [c.x, c.y, c.z, v.x, v.y, v.z]
                }
            },
            open: self.own_open_faces(&label),
            piece,
            ratio,
        })
    }

    /// The lattice faces this demo's cracks opened, and those between its pieces `label`
    /// ([`CellSurface::open_faces`]).
    fn own_open_faces(&self, label: &[u32]) -> Vec<u32> {
        match (&self.cells, &self.sim.fracture) {
            (Some(cells), Some(fracture)) => cells.open_faces(fracture, label),
            _ => Vec::new(),
        }
    }

    /// The fracture scene's surface ([`CellSurface::mesh`]): its lattice's cell faces on the outside
    /// and along the cracks (as the demo that stepped them last sent them), at the current positions;
    /// None in another scene.
    pub(crate) fn cell_mesh(&self) -> Option<CellMesh> {
        let cells = self.cells.as_ref()?;
        let body = &self.sim.body;
        let open = match &self.mirrored {
            Some(view) => view.open.clone(),
            None => self.own_open_faces(&fragments(body).1),
        };
        Some(cells.mesh(&body.reference, &body.positions(), &open))
    }

    /// The fracture scene's drawn surface: [cell faces, of them on cracks]; empty in another scene.
    pub fn surface_faces(&self) -> Vec<f64> {
        let Some(cells) = &self.cells else {
            return Vec::new();
        };
        let open = match &self.mirrored {
            Some(view) => view.open.len(),
            None => self.own_open_faces(&fragments(&self.sim.body).1).len(),
        };
        vec![(cells.outer_faces() + 2 * open) as f64, (2 * open) as f64]
    }

    /// The fracture scene's cracks: as the demo that stepped them sent them, else computed here.
    pub(super) fn fracture_view(&self) -> Option<FractureView> {
        self.mirrored.clone().or_else(|| self.own_fracture_view())
    }

    /// The fracture scene's readouts: [cracks, cracks grown, fragments (pieces of two or more
    /// phyxels that still interact), free particles (phyxels with no neighbour left), the peak σ₁/σ_t
    /// of the phyxels the grips (the rim) do not hold, the grips' load as a fraction of the full load
    /// (the struck slab: the ball's speed, m/s; the ductile bar: the elongation the grips hold, m), the
    /// peak plastic strain ‖ε_p‖ of the phyxels the grips do not hold]; empty in another scene.
    pub fn fracture_readouts(&self) -> Vec<f64> {
        self.fracture_view()
            .map_or_else(Vec::new, |v| v.header()[..7].to_vec())
    }

    /// Each phyxel's fragment: 0, 1, … numbered by their lowest phyxel, −1 for a free particle
    /// (empty in another scene).
    pub fn fracture_pieces(&self) -> Vec<f64> {
        self.fracture_colours()
            .map_or_else(Vec::new, |(pieces, _)| pieces)
    }

    /// Each phyxel's fragment (0, 1, … ; −1 for a free particle) and σ₁/σ_t, for colouring (None
    /// in another scene).
    pub(crate) fn fracture_colours(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        self.fracture_view()
            .map(|v| (v.piece_numbers().collect(), v.ratio))
    }
}

/// Below this largest σ₁/σ_t of the free phyxels nothing cracks: the fracture scene's steps on an
/// accelerator then go in batches, its cracks cut after each ([`Demo::took_accelerator_state`]);
/// at or above it, and while the ball is about to strike or a crack front is inside the body, one step
/// at a time, as the CPU cuts them — so that the same scene cracks the same way on both.
pub const QUIET_RATIO: f64 = 0.8;

/// In a plastic body, below this fraction of the ductility c_max (the peak plastic strain ‖ε_p‖ of
/// the free phyxels) nothing cracks either: a phyxel at the cap flows no more, its stress rises
/// elastically and fast, and it cracks.
pub const QUIET_PLASTIC: f64 = 0.98;

/// The most steps of a batch while nothing cracks.
pub const QUIET_BATCH: u32 = 64;

impl<A: Accelerator> Demo<A> {
    /// The most steps of `dt` a batch on the accelerator takes in this fracture scene: one while
    /// anything may crack; while nothing does ([`QUIET_RATIO`], [`QUIET_PLASTIC`]), as many as keep
    /// it so — at most [`QUIET_BATCH`], half as many as would let the peak σ₁/σ_t (or plastic strain)
    /// reach its limit at its rise over the last batch, fewer than would bring the ball within a
    /// spacing of the body.
    pub(super) fn fracture_batch_steps(&self, dt: f64) -> u32 {
        let Some(fracture) = &self.sim.fracture else {
            return u32::MAX;
        };
        let front_inside = fracture
            .cracks
            .iter()
            .zip(fracture.started())
            .any(|(crack, &started)| started && crack.fronts().next().is_some());
        let Some(quiet) = self.quiet.filter(|_| !front_inside) else {
            return 1;
        };
        let mut steps = f64::from(QUIET_BATCH).min(Quiet::steps_below(
            quiet.peak,
            quiet.peak_rise,
            QUIET_RATIO,
        ));
        if let Some(plasticity) = self.sim.plasticity {
            steps = steps.min(Quiet::steps_below(
                quiet.plastic,
                quiet.plastic_rise,
                QUIET_PLASTIC * plasticity.max_strain,
            ));
        }
        if let Some(ball) = self.ball() {
            let speed = ball.velocity.length();
            let gap = self
                .sim
                .body
                .positions()
                .iter()
                .map(|x| x.distance(ball.centre))
                .fold(f64::INFINITY, f64::min)
                - ball.radius
                - self.spacing();
            if speed > 0.0 {
                steps = steps.min(gap / (speed * dt));
            }
        }
        steps.floor().max(1.0) as u32
    }

    /// What moves the body besides its forces during `steps` steps of `dt` from now, for an
    /// accelerator: the grips' path with their law at the end of each step (the notched bar's load
    /// fraction, the ductile bar's offset), the ball, or nothing.
    pub fn batch_loads(&self, dt: f64, steps: u32) -> BatchLoads {
        let t = self.sim.time;
        let at_ends = |law: &dyn Fn(f64) -> f64| -> Vec<f64> {
            (1..=steps).map(|k| law(t + f64::from(k) * dt)).collect()
        };
        match self.loading.as_ref().map(|(loading, _)| loading) {
            None => BatchLoads::None,
            Some(Loading::Grips(grips)) => BatchLoads::Grips {
                path: grips.path(&self.sim.body),
                scales: at_ends(&|t| grips.load_fraction(t)),
            },
            Some(Loading::Pull(grips)) => BatchLoads::Grips {
                path: grips.path(),
                scales: at_ends(&|t| grips.offset(t)),
            },
            Some(Loading::Ball(ball)) => BatchLoads::Ball(*ball),
        }
    }

    /// The accelerator's read-back of its state is under way: a batch queued before it is what it
    /// brings.
    pub fn reading_accelerator_state(&mut self) {
        if let Batch::Queued { dt, steps } = self.batch {
            self.batch = Batch::Reading { dt, steps };
        }
    }

    /// The accelerator's state, read back after [`Demo::reading_accelerator_state`], is in the
    /// simulation, with `ball` as the accelerator moved it: in a fracture scene the batch it brings is
    /// cut here — the fracture step over the batch's Δt ([`Simulation::crack`]) — and the readouts it
    /// shows until the next are taken. Returns what changed, for the accelerator to take.
    pub fn took_accelerator_state(&mut self, ball: Option<Ball>) -> CutChange {
        if let (Some(moved), Some((Loading::Ball(own), _))) = (ball, &mut self.loading) {
            (own.centre, own.velocity) = (moved.centre, moved.velocity);
        }
        let Batch::Reading { dt, steps } = self.batch else {
            return CutChange::default();
        };
        self.batch = Batch::Done;
        let before = self.fracture_view().map(|v| (v.peak, v.plastic));
        let corrected = |body: &phyxel::meshless::body::Body| {
            body.rest_correction
                .iter()
                .any(|g| *g != glam::DMat3::IDENTITY)
        };
        let refits = |sim: &Simulation| sim.fracture.as_ref().map_or(0, |f| f.recomputed_total);
        let (refits_before, corrected_before) = (refits(&self.sim), corrected(&self.sim.body));
        let phyxels = self.sim.body.len();
        self.sim.crack(dt * f64::from(steps));
        let resampled = self.sim.body.len() > phyxels;
        self.follow_growth();
        let refitted = refits(&self.sim) > refits_before;
        let relaxed = !refitted && (corrected_before || corrected(&self.sim.body));
        self.mirrored = self.own_fracture_view();
        // The peaks and their rises per step over this batch: how long the next may be.
        let (peak, plastic) = self
            .mirrored
            .as_ref()
            .map_or((f64::INFINITY, f64::INFINITY), |v| (v.peak, v.plastic));
        let rise = |now: f64, then: f64| (now - then) / f64::from(steps);
        self.quiet = before.map(|(peak_before, plastic_before)| Quiet {
            peak,
            peak_rise: rise(peak, peak_before),
            plastic,
            plastic_rise: rise(plastic, plastic_before),
        });
        CutChange {
            refitted,
            relaxed,
            resampled,
        }
    }
}

impl<A: Accelerator> Demo<A> {
    /// After resampling appended phyxels (`fracture::resample`): they belong to the scene's one
    /// object, and the drawn lattice's faces are bound to the rebuilt neighbour lists.
    pub(super) fn follow_growth(&mut self) {
        let n = self.sim.body.len();
        if self.object_of.len() >= n {
            return;
        }
        self.object_of.resize(n, 0);
        if let Some(last) = self.object_start.last_mut() {
            *last = n;
        }
        if let Some((loading, across)) = &self.loading {
            let (cells, spacing) = lattice(matches!(loading, Loading::Ball(_)), *across);
            self.cells = CellSurface::new(&self.sim.body, cells, spacing).ok();
        }
    }
}

/// The radius (in lattice spacings) of the phyxels a strike moves around the phyxel it hits.
pub const STRIKE_RADIUS: f64 = 2.0;

impl<A: Accelerator> Demo<A> {
    /// Refused outside a fracture scene, or where this copy's body is not cut as its state's is.
    fn check_tool(&mut self, tool: &str) -> Result<(), DemoError> {
        if self.loading.is_none() {
            return Err(DemoError(format!(
                "only the fracture scenes (“{NOTCHED_BAR}”, “{STRUCK_SLAB}”) take the {tool} tool"
            )));
        }
        self.cut_as_carried()
    }

    /// Cut the fracture scene along a pointer stroke ([`phyxel::meshless::fracture::Fracture::cut`]):
    /// the eye and the eye rays of the stroke's start and end, each [x, y, z] (m). Returns [phyxels
    /// the stroke passed, phyxels refitted, of them released, fragments, free particles, elastic
    /// energy before (J), after (J)] — fragments and free particles counted as the readouts count
    /// them. Refused, changing nothing, with the solver's reason (a stroke of no length, not finite,
    /// one that misses the body), in another scene, or in a copy whose state's cracks do not fit it
    /// (a copy given a state cut elsewhere is first cut alike).
    pub fn cut(&mut self, eye: &[f64], start: &[f64], end: &[f64]) -> Result<Vec<f64>, DemoError> {
        self.check_tool("cut")?;
        let stroke = Stroke {
            eye: vector(eye, "the cut's eye")?,
            start: vector(start, "the cut's first ray")?,
            end: vector(end, "the cut's last ray")?,
        };
        let sim = &mut self.sim;
        let fracture = sim
            .fracture
            .as_mut()
            .ok_or_else(|| DemoError("this scene has no fracture to cut".into()))?;
        let report = fracture.cut(&mut sim.body, stroke)?;
        self.mirrored = None;
        self.take_state_anew();
        let view = self.own_fracture_view().expect("a fracture scene");
        Ok(vec![
            report.touched as f64,
            report.refitted as f64,
            report.released as f64,
            view.fragments as f64,
            view.free as f64,
            report.energy_before,
            report.energy_after,
        ])
    }

    /// Strike the fracture scene where the pointer's ray `origin` + s·`direction` (each [x, y, z])
    /// first meets it ([`Demo::pick`] within 0.75 spacing), along the ray at `speed` (m/s, the table's
    /// range): the free phyxels within `STRIKE_RADIUS` spacings of the phyxel hit gain Δv
    /// ([`strike`]). Returns [phyxels struck, their mass (kg), the impulse J (N·s) x, y, z]. Refused,
    /// changing nothing, for a ray that meets no phyxel, a speed out of range, in another scene, or in
    /// a copy whose state's cracks do not fit it.
    pub fn strike(
        &mut self,
        origin: &[f64],
        direction: &[f64],
        speed: f64,
    ) -> Result<Vec<f64>, DemoError> {
        self.check_tool("strike")?;
        let speed = STRIKE_SPEED.check(speed)?;
        let spacing = self.spacing();
        let hit = self.pick(origin, direction, 0.75 * spacing)?;
        let Ok(hit) = usize::try_from(hit) else {
            return Err(DemoError(
                "the strike misses the body: its ray meets no phyxel".into(),
            ));
        };
        let centre = self.sim.body.reference[hit] + self.sim.body.displacement[hit];
        let direction = vector(direction, "ray direction")?;
        let report = strike(
            &mut self.sim.body,
            &self.sim.fixed,
            centre,
            direction,
            speed,
            STRIKE_RADIUS * spacing,
        )?;
        self.mirrored = None;
        self.take_state_anew();
        let j = report.impulse;
        Ok(vec![report.struck as f64, report.mass, j.x, j.y, j.z])
    }
}

/// The scene's name in messages.
fn scene_name(scene: &str) -> &'static str {
    match scene {
        STRUCK_SLAB => "struck slab",
        DUCTILE_BAR => "ductile bar",
        _ => "notched bar",
    }
}

/// The fracture scene `scene` at `across` as a simulation, what loads it and its lattice of cells
/// (the surface drawn): the notched bar
/// ([`notched_bar`], grips ramped to `load` over [`RAMP_TIME`]), the struck slab ([`struck_slab`],
/// the ball at `ball_speed`) or the ductile bar ([`ductile_bar`], [`DUCTILE_PLASTICITY`], grips apart
/// at [`GRIP_SPEED`]); refused beyond [`MAX_CPU_PHYXELS`].
#[allow(clippy::too_many_arguments)]
fn build(
    scene: &str,
    across: usize,
    material: Material,
    settings: FractureSettings,
    load: f64,
    ball_speed: f64,
    damping: f64,
) -> Result<(Simulation, Loading, CellSurface), DemoError> {
    // The ductile bar is the notched bar's lattice (its waist moves the phyxels, not their count).
    let (lattice, spacing) = lattice(scene == STRUCK_SLAB, across);
    let cells: usize = lattice.iter().product();
    if cells > MAX_CPU_PHYXELS {
        return Err(DemoError(format!(
            "the {} of {cells} phyxels is more than the CPU solver is offered \
             ({MAX_CPU_PHYXELS}): lower the resolution",
            scene_name(scene)
        )));
    }
    let (simulation, loading) = if scene == STRUCK_SLAB {
        let slab = struck_slab(across, material, settings, ball_speed, damping)?;
        (slab.simulation, Loading::Ball(slab.ball))
    } else if scene == DUCTILE_BAR {
        let bar = ductile_bar(
            across,
            material,
            DUCTILE_PLASTICITY,
            settings,
            GRIP_SPEED,
            damping,
        )?;
        (bar.simulation, Loading::Pull(bar.grips))
    } else {
        let bar = notched_bar(across, material, settings, load, RAMP_TIME, damping)?;
        let grips = bar.grips();
        (bar.simulation, Loading::Grips(grips))
    };
    let surface = CellSurface::new(&simulation.body, lattice, spacing)?;
    Ok((simulation, loading, surface))
}

#[cfg(test)]
mod tests;
