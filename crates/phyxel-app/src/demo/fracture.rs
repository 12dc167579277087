//! The demo's fracture scene, "notched bar pulled apart" (seed 000 §4.1.3, seed 002 §7.3): the bar
//! built with its grips (`phyxel::meshless::fracture::scenes::notched_bar`), its fracture settings
//! from the page's controls, and what the page shows of its cracks (cracks, fragments, free
//! particles, σ₁/σ_t), computed by the demo that steps it and carried to the page's copy with each
//! state. Nothing here computes physics: the cracks, stresses and fragments are the solver's.

use super::*;

impl<A: Accelerator> Demo<A> {
    /// The notched bar pulled apart ([`notched_bar`]) with the table's fracture defaults.
    pub(super) fn notched_bar(
        resolution: u32,
        bcc: bool,
        material: Material,
        obstacle: bool,
    ) -> Result<Self, DemoError> {
        RESOLUTION.check(f64::from(resolution))?;
        if bcc {
            return Err(DemoError(
                "the notched bar is built on a cubic lattice only (its notch lies between two \
                 lattice layers)"
                    .into(),
            ));
        }
        if obstacle {
            return Err(DemoError(
                "the notched bar hangs between its grips with no gravity: it has no ball".into(),
            ));
        }
        let across = resolution.div_ceil(2).max(3) as usize;
        let description = SceneDescription {
            lattice: Lattice::Cubic,
            resolution,
            material,
            ..SceneDescription::default()
        };
        let (sim, grips) = build_bar(
            across,
            material,
            FractureSettings::new(STRENGTH.default, C_PROP.default)?,
            LOAD.default,
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
            grips: Some((grips, across)),
            mirrored: None,
            cut_elsewhere: false,
        })
    }

    /// The notched bar's fracture: tensile strength σ_t (Pa), crack speed c_prop (m/s), the weights
    /// ("visibility" or "transparency", seed 002 §7.3 / eq. 70) with κ, and the grips' load as a
    /// fraction of σ_t. Builds the bar anew (from rest, the material and damping kept): call it
    /// before the other setters. Refused, changing nothing, for values the solver refuses (each
    /// positive), or in another scene (only the notched bar cracks).
    pub fn set_fracture(
        &mut self,
        strength: f64,
        c_prop: f64,
        weights: &str,
        kappa: f64,
        load: f64,
    ) -> Result<(), DemoError> {
        let Some((_, across)) = &self.grips else {
            return Err(DemoError(format!(
                "only the notched bar (scene “{NOTCHED_BAR}”) cracks"
            )));
        };
        let settings = FractureSettings::new(STRENGTH.check(strength)?, C_PROP.check(c_prop)?)?;
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
        let (mut sim, grips) = build_bar(
            across,
            self.description.material,
            settings,
            LOAD.check(load)?,
            self.sim.environment.damping,
        )?;
        sim.environment = self.sim.environment.clone();
        self.object_of = vec![0; sim.body.len()];
        self.object_start = vec![0, sim.body.len()];
        self.sim = sim;
        self.grips = Some((grips, across));
        self.steps = 0;
        self.error = None;
        self.mirrored = None;
        self.cut_elsewhere = false;
        self.mark_stale();
        Ok(())
    }

    /// Why the GPU backend cannot step this scene, if it cannot: the page asks before it stops the
    /// worker for a switch.
    pub fn gpu_refusal(&self) -> Option<String> {
        self.grips.is_some().then(|| GPU_CANNOT_CUT.to_string())
    }

    /// Whether this is the fracture scene.
    pub fn is_fracture_scene(&self) -> bool {
        self.grips.is_some()
    }

    /// The fracture scene's cracks as computed here from the simulation.
    pub(super) fn own_fracture_view(&self) -> Option<FractureView> {
        let (grips, _) = self.grips.as_ref()?;
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
        let ratio: Vec<f64> = fracture
            .stress_ratios(body)
            .into_iter()
            .map(|(r, _)| r)
            .collect();
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
            load_fraction: grips.load_fraction(self.sim.time),
            refits: fracture.recomputed_total,
            events: fracture.events.len(),
            piece,
            ratio,
        })
    }

    /// The fracture scene's cracks: as the demo that stepped them sent them, else computed here.
    pub(super) fn fracture_view(&self) -> Option<FractureView> {
        self.mirrored.clone().or_else(|| self.own_fracture_view())
    }

    /// The fracture scene's readouts: [cracks, cracks grown, fragments (pieces of two or more
    /// phyxels that still interact), free particles (phyxels with no neighbour left), the peak σ₁/σ_t
    /// of the phyxels the grips do not hold, the grips' load as a fraction of the full load]; empty in
    /// another scene.
    pub fn fracture_readouts(&self) -> Vec<f64> {
        self.fracture_view()
            .map_or_else(Vec::new, |v| v.header()[..6].to_vec())
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
        self.fracture_view().map(|v| {
            (
                v.piece
                    .iter()
                    .map(|&p| if p == u32::MAX { -1.0 } else { f64::from(p) })
                    .collect(),
                v.ratio,
            )
        })
    }
}

/// The notched bar of `across` phyxels across ([`notched_bar`], grips ramped over [`RAMP_TIME`]) as a
/// simulation and its grips; refused beyond [`MAX_CPU_PHYXELS`].
fn build_bar(
    across: usize,
    material: Material,
    settings: FractureSettings,
    load: f64,
    damping: f64,
) -> Result<(Simulation, Grips), DemoError> {
    let cells: usize = notched_bar_cells(across).iter().product();
    if cells > MAX_CPU_PHYXELS {
        return Err(DemoError(format!(
            "the notched bar of {cells} phyxels is more than the CPU solver is offered \
             ({MAX_CPU_PHYXELS}): lower the resolution"
        )));
    }
    let bar = notched_bar(across, material, settings, load, RAMP_TIME, damping)?;
    let grips = bar.grips();
    Ok((bar.simulation, grips))
}
