//! Bindings and drawing for the cracks lesson. The physics is [`phyxel::lessons::cracks`]: the crack
//! weights (seed 002 eq. 70), the particle cloud of the first figure and the notched plate of the
//! second.

use super::sph_approximation::stroke_path;
use crate::check;
use crate::colour::colour_scale;
use crate::view::{device_pixel_ratio, View};
use glam::DVec2;
use phyxel::lessons::cracks::cloud::Cloud;
use phyxel::lessons::cracks::crack::{Crack, Criterion};
use phyxel::lessons::cracks::faces;
use phyxel::lessons::cracks::solid::{EventKind, Solid};
use phyxel::lessons::cracks::{
    notched_plate, param, plate_dt, plate_material, DUCTILE, PARAMETERS, PLATE_PARTICLES,
    PLATE_SPACING, RESAMPLING_CAP,
};
use phyxel::meshless::plasticity::Plasticity;
use serde::Serialize;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

/// The cloud's lattice spacing, support ratio, jitter and seed: 10 × 10 particles over [−1, 1]².
const CLOUD_SPACING: f64 = 0.2;
const CLOUD_SUPPORT_RATIO: f64 = 3.5;
const CLOUD_JITTER: f64 = 0.5;
const CLOUD_SEED: u64 = 4;
/// Heat-map cells across one panel of the cloud figure.
const CELLS: usize = 72;

fn criterion(name: &str, kappa: f64) -> Result<Criterion, JsError> {
    match name {
        "visibility" => Ok(Criterion::Visibility),
        "transparency" => Ok(Criterion::Transparency { kappa }),
        other => Err(JsError::new(&format!(
            "unknown criterion “{other}” (known: visibility, transparency)"
        ))),
    }
}

/// The plate's material behaviour: "brittle" (elastic until it cracks) or "ductile" (plastic flow
/// before it cracks, [`DUCTILE`]).
fn behaviour(name: &str) -> Result<Option<Plasticity>, JsError> {
    match name {
        "brittle" => Ok(None),
        "ductile" => Ok(Some(DUCTILE)),
        other => Err(JsError::new(&format!(
            "unknown material “{other}” (known: brittle, ductile)"
        ))),
    }
}

#[derive(Serialize)]
struct Event {
    step: u64,
    kind: &'static str,
    x: f64,
    y: f64,
    /// Angle of the crack normal from the load axis y, degrees.
    normal_from_load: f64,
}

#[derive(Serialize)]
struct PlateReport {
    particles: usize,
    cracks: usize,
    fronts: usize,
    events: usize,
    first: Option<Event>,
    /// Distance of the first event from the notch tip, in lattice spacings.
    first_from_tip: Option<f64>,
    recomputed_last: usize,
    recomputed_total: usize,
    rank_deficient: usize,
    isolated: usize,
    max_stress_ratio: f64,
    strain_energy: f64,
    kinetic_energy: f64,
    /// Energy the crack events took (`Solid::dissipated`).
    dissipated: f64,
    /// Energy plastic flow took (`Solid::plastic_work`) and the largest accumulated plastic strain.
    plastic_work: f64,
    largest_plastic_strain: f64,
    /// Resampling: particles split, particles inserted, insertions refused for the cap, the cap.
    splits: usize,
    inserted: usize,
    refused: usize,
    cap: usize,
    steps: u64,
}

#[derive(Serialize)]
struct CloudReport {
    chosen: usize,
    x: f64,
    y: f64,
    /// ω'_i(x) and Φ_i(x) at the probe point under visibility and transparency.
    probe: [f64; 2],
    visibility: [f64; 2],
    transparency: [f64; 2],
    uncut: f64,
    /// |Σ_j Φ_j(x) − 1| at the probe under each criterion.
    unity_error: [f64; 2],
}

/// The notched plate (the page's first figure; it runs in the lesson worker).
#[wasm_bindgen]
pub struct CracksLesson {
    plate: Solid,
    notch_tip: DVec2,
    strength: f64,
    c_prop: f64,
    kappa: f64,
    pull: f64,
    omega_min: f64,
    criterion: String,
    material: String,
    dt: f64,
    view: View,
    /// The particles' reference cells (`faces::reference_cells`) and what they were built for: they
    /// change only with the particles and the cracks, so a frame only carries them.
    cells: RefCell<(CellsKey, Vec<Vec<DVec2>>)>,
}

/// What the reference cells depend on: the particle count, the cracks' vertices (count and a sum of
/// their coordinates) and the weight updates (`Solid::recomputed_total`).
type CellsKey = (usize, usize, u64, usize);

fn cells_key(plate: &Solid) -> CellsKey {
    let vertices = plate.cracks.iter().flat_map(|c| c.vertices.iter());
    let (count, sum) = vertices.fold((0, 0.0), |(n, s), v| (n + 1, s + v.x + 2.0 * v.y));
    (
        plate.len(),
        count,
        f64::to_bits(sum),
        plate.recomputed_total,
    )
}

/// The particle cloud with a crack the user drags (the page's second figure, on the page's thread).
#[wasm_bindgen]
pub struct CrackCloudLesson {
    cloud: Cloud,
    kappa: f64,
    view: View,
    chosen: usize,
    /// The crack end (0, 1) held by the pointer.
    held_end: Option<usize>,
    /// Where the readouts compare the weights: a point just across the crack from the chosen particle.
    probe: DVec2,
}

#[wasm_bindgen]
impl CracksLesson {
    /// The parameter table [{ name, min, max, integer, default }] the page builds its controls from.
    pub fn parameters() -> Result<JsValue, JsError> {
        crate::parameters(PARAMETERS)
    }

    /// The notched plate (strength σ_t, c_prop, κ, pull speed, Ω_min of resampling; `criterion`
    /// "visibility" or "transparency"; `material_name` "brittle" or "ductile").
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        strength: f64,
        c_prop: f64,
        kappa: f64,
        pull: f64,
        omega_min: f64,
        criterion_name: &str,
        material_name: &str,
    ) -> Result<CracksLesson, JsError> {
        let strength = check(param::STRENGTH, strength)?;
        let c_prop = check(param::C_PROP, c_prop)?;
        let kappa = check(param::KAPPA, kappa)?;
        let pull = check(param::PULL, pull)?;
        let omega_min = check(param::OMEGA_MIN, omega_min)?;
        let chosen_criterion = criterion(criterion_name, kappa)?;
        let plasticity = behaviour(material_name)?;
        let material = plate_material(strength, c_prop);
        let mut plate = notched_plate(material, chosen_criterion, pull);
        plate.resampling.omega_min = omega_min;
        plate.plasticity = plasticity;
        let notch_tip = *plate.cracks[0].vertices.last().unwrap();
        let width = (PLATE_PARTICLES - 1) as f64 * PLATE_SPACING;
        Ok(CracksLesson {
            dt: plate_dt(&material),
            plate,
            notch_tip,
            strength,
            c_prop,
            kappa,
            pull,
            omega_min,
            criterion: criterion_name.to_string(),
            material: material_name.to_string(),
            view: View::equal_aspect(-0.35 * width, 1.35 * width, -0.2 * width, 1.2 * width),
            cells: RefCell::new(((0, 0, 0, 0), Vec::new())),
        })
    }

    /// The plate's time step (s): 0.25 a / c.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    pub fn time(&self) -> f64 {
        self.plate.steps as f64 * self.dt
    }

    /// Back to the uncracked, unloaded plate (with the parameters in force).
    pub fn restart(&mut self) -> Result<(), JsError> {
        let material = plate_material(self.strength, self.c_prop);
        self.plate = notched_plate(material, criterion(&self.criterion, self.kappa)?, self.pull);
        self.plate.resampling.omega_min = self.omega_min;
        self.plate.plasticity = behaviour(&self.material)?;
        Ok(())
    }

    /// Change σ_t, c_prop, κ, the pull speed and Ω_min; they act on the running plate (κ re-weighs
    /// it; Ω_min applies from the next crack update).
    pub fn set_parameters(
        &mut self,
        strength: f64,
        c_prop: f64,
        kappa: f64,
        pull: f64,
        omega_min: f64,
    ) -> Result<(), JsError> {
        let strength = check(param::STRENGTH, strength)?;
        let c_prop = check(param::C_PROP, c_prop)?;
        let kappa = check(param::KAPPA, kappa)?;
        let pull = check(param::PULL, pull)?;
        let omega_min = check(param::OMEGA_MIN, omega_min)?;
        self.omega_min = omega_min;
        self.plate.resampling.omega_min = omega_min;
        self.strength = strength;
        self.c_prop = c_prop;
        self.plate.material.strength = strength;
        self.plate.material.c_prop = c_prop;
        if pull != self.pull {
            self.pull = pull;
            // The bottom rows move down, the top rows up.
            let middle = 0.5 * (PLATE_PARTICLES - 1) as f64 * PLATE_SPACING;
            for i in 0..self.plate.len() {
                if self.plate.held[i] {
                    let down = self.plate.reference[i].y < middle;
                    self.plate.held_velocity[i] = DVec2::new(0.0, if down { -pull } else { pull });
                }
            }
        }
        if kappa != self.kappa {
            self.kappa = kappa;
            self.plate.criterion = criterion(&self.criterion, kappa)?;
            self.plate.rebuild_weights();
        }
        Ok(())
    }

    /// The plate's criterion: "visibility" or "transparency" (re-weighs the running plate).
    pub fn set_criterion(&mut self, name: &str) -> Result<(), JsError> {
        self.plate.criterion = criterion(name, self.kappa)?;
        self.criterion = name.to_string();
        self.plate.rebuild_weights();
        Ok(())
    }

    /// The plate's material: "brittle" or "ductile" (acts on the running plate: plastic flow starts or
    /// stops; what has flowed stays).
    pub fn set_material(&mut self, name: &str) -> Result<(), JsError> {
        self.plate.plasticity = behaviour(name)?;
        self.material = name.to_string();
        Ok(())
    }

    /// `steps` steps of the plate.
    pub fn step(&mut self, steps: u32) {
        for _ in 0..steps {
            self.plate.step(self.dt);
        }
    }

    /// The plate's readouts.
    pub fn report(&self) -> Result<JsValue, JsError> {
        let p = &self.plate;
        let first = p.events.first().map(|e| Event {
            step: e.step,
            kind: match e.kind {
                EventKind::Initiation => "initiation",
                EventKind::FrontStarted => "notch front",
            },
            x: e.position.x,
            y: e.position.y,
            normal_from_load: e
                .normal
                .dot(DVec2::Y)
                .abs()
                .clamp(0.0, 1.0)
                .acos()
                .to_degrees(),
        });
        let report = PlateReport {
            particles: p.len(),
            cracks: p.cracks.len(),
            fronts: p.cracks.iter().map(|c| c.fronts().count()).sum(),
            events: p.events.len(),
            first_from_tip: p
                .events
                .first()
                .map(|e| e.position.distance(self.notch_tip) / PLATE_SPACING),
            first,
            recomputed_last: p.recomputed_last,
            recomputed_total: p.recomputed_total,
            rank_deficient: p.regularised(),
            isolated: p.isolated(),
            max_stress_ratio: (0..p.len())
                .filter(|&i| !p.held[i])
                .map(|i| p.stress_ratio(i).0)
                .fold(0.0, f64::max),
            strain_energy: p.strain_energy(),
            kinetic_energy: p.kinetic_energy(),
            dissipated: p.dissipated,
            plastic_work: p.plastic_work,
            largest_plastic_strain: p.plastic_strain.iter().cloned().fold(0.0, f64::max),
            splits: p.splits,
            inserted: p.inserted,
            refused: p.refused,
            cap: RESAMPLING_CAP,
            steps: p.steps,
        };
        serde_wasm_bindgen::to_value(&report).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The plate in its deformed shape: each particle's cell (`faces`: closed along the crack faces)
    /// coloured by σ₁/σ_t (held ones grey), the particles as dots on it, cracks red.
    pub fn draw(&self, ctx: &CanvasRenderingContext2d, width: f64, height: f64) {
        let dpr = device_pixel_ratio();
        let px = |p: DVec2| self.view.to_canvas(p.x, p.y, width, height);
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        let (x0, _) = px(DVec2::ZERO);
        let (x1, _) = px(DVec2::X * PLATE_SPACING);
        let radius = (0.16 * (x1 - x0)).clamp(0.8 * dpr, 3.0 * dpr);
        let p = &self.plate;
        let mut cells = self.cells.borrow_mut();
        let key = cells_key(p);
        if cells.0 != key || cells.1.len() != p.len() {
            *cells = (key, faces::reference_cells(p));
        }
        for (i, cell) in faces::deform_cells(p, &cells.1).iter().enumerate() {
            let colour = if p.held[i] {
                "#9ca3af".to_string()
            } else {
                colour_scale(p.stress_ratio(i).0)
            };
            ctx.set_fill_style_str(&colour);
            ctx.set_stroke_style_str(&colour);
            ctx.set_line_width(1.5 * dpr);
            ctx.begin_path();
            for (k, &corner) in cell.iter().enumerate() {
                let (x, y) = px(corner);
                if k == 0 {
                    ctx.move_to(x, y);
                } else {
                    ctx.line_to(x, y);
                }
            }
            ctx.close_path();
            ctx.fill();
            // An outline in the fill's colour closes the seams between cells: each cell follows its
            // own particle's F_i, so neighbours' edges part by a pixel or so where F_i varies (a
            // crack's faces part by the fragments' separation, and the crack is drawn red besides).
            ctx.stroke();
        }
        // A particle resampling made is drawn with the area of its share of the mass.
        let lattice_mass = p.material.density * PLATE_SPACING * PLATE_SPACING;
        ctx.set_fill_style_str("rgba(17, 24, 39, 0.55)");
        for i in 0..p.len() {
            let size = radius * (p.mass(i) / lattice_mass).sqrt().clamp(0.3, 1.0);
            let (x, y) = px(p.positions[i]);
            ctx.begin_path();
            let _ = ctx.arc(x, y, size, 0.0, std::f64::consts::TAU);
            ctx.fill();
        }
        // Cracks live in the reference configuration: drawn moved by the mean displacement of the
        // particles within h (so they sit in the middle of the opening gap).
        for crack in &p.cracks {
            let path: Vec<(f64, f64)> = crack
                .vertices
                .iter()
                .map(|&v| px(v + self.mean_displacement(v)))
                .collect();
            stroke_path(ctx, &path, "#dc2626", 2.0 * dpr, None);
            for front in crack.fronts() {
                let (x, y) = px(front + self.mean_displacement(front));
                ctx.set_fill_style_str("#dc2626");
                ctx.begin_path();
                let _ = ctx.arc(x, y, 3.5 * dpr, 0.0, std::f64::consts::TAU);
                ctx.fill();
            }
        }
    }

    fn mean_displacement(&self, x: DVec2) -> DVec2 {
        let p = &self.plate;
        let (sum, count) = (0..p.len())
            .filter(|&i| p.reference[i].distance(x) < p.h)
            .fold((DVec2::ZERO, 0.0), |(s, n), i| {
                (s + p.positions[i] - p.reference[i], n + 1.0)
            });
        if count > 0.0 {
            sum / count
        } else {
            DVec2::ZERO
        }
    }
}

#[wasm_bindgen]
impl CrackCloudLesson {
    /// The jittered cloud (10 × 10 over [−1, 1]², h = 3.5 Δx) with one crack; κ of the transparency panels.
    #[wasm_bindgen(constructor)]
    pub fn new(kappa: f64) -> Result<CrackCloudLesson, JsError> {
        let kappa = check(param::KAPPA, kappa)?;
        let mut cloud = Cloud::jittered(
            CLOUD_SPACING,
            CLOUD_JITTER,
            CLOUD_SEED,
            CLOUD_SUPPORT_RATIO,
            Criterion::Visibility,
        );
        cloud.cracks.push(Crack::segment(
            DVec2::new(-0.75, 0.05),
            DVec2::new(0.15, 0.05),
            true,
            true,
        ));
        let chosen = cloud.nearest(DVec2::new(-0.2, 0.3)).unwrap_or(0);
        let mut lesson = CrackCloudLesson {
            cloud,
            kappa,
            view: View::equal_aspect(-1.15, 1.15, -1.15, 1.15),
            chosen,
            held_end: None,
            probe: DVec2::ZERO,
        };
        lesson.place_probe();
        Ok(lesson)
    }

    /// κ of the transparency panels.
    pub fn set_kappa(&mut self, kappa: f64) -> Result<(), JsError> {
        self.kappa = check(param::KAPPA, kappa)?;
        Ok(())
    }

    fn place_probe(&mut self) {
        // Just across the crack from the chosen particle, straight through it (if it is near enough).
        let x_i = self.cloud.positions[self.chosen];
        let crack = &self.cloud.cracks[0];
        let (a, b) = (crack.vertices[0], *crack.vertices.last().unwrap());
        let s = b - a;
        let t = ((x_i - a).dot(s) / s.length_squared().max(1e-300)).clamp(0.0, 1.0);
        let foot = a + s * t;
        self.probe = foot + (foot - x_i).normalize_or(DVec2::Y) * 0.1;
    }

    fn cloud_with(&self, criterion: Criterion) -> Cloud {
        Cloud {
            criterion,
            ..self.cloud.clone()
        }
    }

    /// The cloud figure's readouts: the chosen particle's weight and shape function at the probe point
    /// under both criteria.
    pub fn report(&self) -> Result<JsValue, JsError> {
        let i = self.chosen;
        let visibility = self.cloud_with(Criterion::Visibility);
        let transparency = self.cloud_with(Criterion::Transparency { kappa: self.kappa });
        let unity = |c: &Cloud| (c.shape_functions(self.probe).0.iter().sum::<f64>() - 1.0).abs();
        let x_i = self.cloud.positions[i];
        let report = CloudReport {
            chosen: i,
            x: x_i.x,
            y: x_i.y,
            probe: [self.probe.x, self.probe.y],
            visibility: [
                visibility.weight(i, self.probe),
                visibility.shape_function(i, self.probe),
            ],
            transparency: [
                transparency.weight(i, self.probe),
                transparency.shape_function(i, self.probe),
            ],
            uncut: self.cloud.uncut_weight(i, self.probe),
            unity_error: [unity(&visibility), unity(&transparency)],
        };
        serde_wasm_bindgen::to_value(&report).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The crack's ends in the cloud figure: [x₀, y₀, x₁, y₁].
    pub fn cloud_crack(&self) -> Vec<f64> {
        let c = &self.cloud.cracks[0];
        let (a, b) = (c.vertices[0], *c.vertices.last().unwrap());
        vec![a.x, a.y, b.x, b.y]
    }

    /// Set the cloud's crack ends (each coordinate within [−1.1, 1.1]).
    pub fn set_cloud_crack(&mut self, x0: f64, y0: f64, x1: f64, y1: f64) -> Result<(), JsError> {
        let mut v = [x0, y0, x1, y1];
        for (name, value) in ["x0", "y0", "x1", "y1"].into_iter().zip(v.iter_mut()) {
            *value = crate::check_range(name, *value, -1.1, 1.1)?;
        }
        self.cloud.cracks[0] =
            Crack::segment(DVec2::new(v[0], v[1]), DVec2::new(v[2], v[3]), true, true);
        self.place_probe();
        Ok(())
    }

    /// Which of the 2 × 2 panels canvas point (px, py) lies in, and its world point there.
    fn cloud_point(&self, px: f64, py: f64, width: f64, height: f64) -> DVec2 {
        let (w, h) = (0.5 * width, 0.5 * height);
        let (x, y) = self.view.to_world(px % w, py % h, w, h);
        DVec2::new(x, y)
    }

    /// Pointer down in the cloud figure: pick up a crack end within 14 CSS pixels (returns "end"),
    /// or choose the nearest particle (returns "particle").
    pub fn cloud_press(&mut self, px: f64, py: f64, width: f64, height: f64) -> String {
        let x = self.cloud_point(px, py, width, height);
        let (w, h) = (0.5 * width, 0.5 * height);
        let (ax, _) = self.view.to_world(0.0, 0.0, w, h);
        let (bx, _) = self.view.to_world(14.0 * device_pixel_ratio(), 0.0, w, h);
        let reach = (bx - ax).abs();
        let ends = self.cloud_crack();
        for k in 0..2 {
            if DVec2::new(ends[2 * k], ends[2 * k + 1]).distance(x) < reach {
                self.held_end = Some(k);
                return "end".into();
            }
        }
        if let Some(i) = self.cloud.nearest(x) {
            self.chosen = i;
            self.place_probe();
        }
        "particle".into()
    }

    /// Pointer moved: drag the held crack end there.
    pub fn cloud_drag(
        &mut self,
        px: f64,
        py: f64,
        width: f64,
        height: f64,
    ) -> Result<bool, JsError> {
        let Some(k) = self.held_end else {
            return Ok(false);
        };
        let x = self
            .cloud_point(px, py, width, height)
            .clamp(DVec2::splat(-1.1), DVec2::splat(1.1));
        let mut ends = self.cloud_crack();
        ends[2 * k] = x.x;
        ends[2 * k + 1] = x.y;
        self.set_cloud_crack(ends[0], ends[1], ends[2], ends[3])?;
        Ok(true)
    }

    pub fn cloud_release(&mut self) {
        self.held_end = None;
    }

    /// The cloud figure: four panels, rows visibility / transparency, columns ω'_i(x) / Φ_i(x), each a
    /// heat map over the chosen particle's support (colour: the value over the panel's largest; Φ < 0
    /// dark), the particles, the crack with its two handles, the chosen particle ringed.
    pub fn draw(&self, ctx: &CanvasRenderingContext2d, width: f64, height: f64) {
        let dpr = device_pixel_ratio();
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        let (w, h) = (0.5 * width, 0.5 * height);
        let criteria = [
            Criterion::Visibility,
            Criterion::Transparency { kappa: self.kappa },
        ];
        let x_i = self.cloud.positions[self.chosen];
        let support = self.cloud.h;
        for (row, criterion) in criteria.into_iter().enumerate() {
            let cloud = self.cloud_with(criterion);
            for column in 0..2 {
                let (ox, oy) = (column as f64 * w, row as f64 * h);
                let px = |p: DVec2| {
                    let (x, y) = self.view.to_canvas(p.x, p.y, w, h);
                    (x + ox, y + oy)
                };
                // Heat map over the support square of x_i.
                let cell = 2.0 * support / CELLS as f64;
                let values: Vec<(DVec2, f64)> = (0..CELLS * CELLS)
                    .map(|k| {
                        let c = x_i
                            + DVec2::new(
                                (k % CELLS) as f64 + 0.5 - 0.5 * CELLS as f64,
                                (k / CELLS) as f64 + 0.5 - 0.5 * CELLS as f64,
                            ) * cell;
                        let value = if column == 0 {
                            cloud.weight(self.chosen, c)
                        } else {
                            cloud.shape_function(self.chosen, c)
                        };
                        (c, value)
                    })
                    .collect();
                let largest = values.iter().map(|v| v.1).fold(0.0, f64::max);
                for (c, value) in values {
                    if value == 0.0 || largest <= 0.0 {
                        continue;
                    }
                    let (ax, ay) = px(c - DVec2::splat(0.5 * cell));
                    let (bx, by) = px(c + DVec2::splat(0.5 * cell));
                    ctx.set_fill_style_str(&colour_scale(value / largest));
                    ctx.fill_rect(
                        ax.min(bx),
                        ay.min(by),
                        (bx - ax).abs() + 0.5,
                        (by - ay).abs() + 0.5,
                    );
                }
                for &p in &cloud.positions {
                    let (x, y) = px(p);
                    ctx.set_fill_style_str("#111827");
                    ctx.begin_path();
                    let _ = ctx.arc(x, y, 2.2 * dpr, 0.0, std::f64::consts::TAU);
                    ctx.fill();
                }
                let ends = self.cloud_crack();
                let (a, b) = (DVec2::new(ends[0], ends[1]), DVec2::new(ends[2], ends[3]));
                stroke_path(ctx, &[px(a), px(b)], "#dc2626", 2.5 * dpr, None);
                for e in [a, b] {
                    let (x, y) = px(e);
                    ctx.set_stroke_style_str("#dc2626");
                    ctx.set_line_width(2.0 * dpr);
                    ctx.begin_path();
                    let _ = ctx.arc(x, y, 6.0 * dpr, 0.0, std::f64::consts::TAU);
                    ctx.stroke();
                }
                let (cx, cy) = px(x_i);
                ctx.set_stroke_style_str("#f97316");
                ctx.set_line_width(2.5 * dpr);
                ctx.begin_path();
                let _ = ctx.arc(cx, cy, 6.0 * dpr, 0.0, std::f64::consts::TAU);
                ctx.stroke();
                ctx.set_fill_style_str("#111827");
                ctx.set_font(&format!("{}px sans-serif", (13.0 * dpr).round()));
                let title = match (row, column) {
                    (0, 0) => "visibility: ω′ᵢ(x)",
                    (0, _) => "visibility: Φᵢ(x)",
                    (_, 0) => "transparency: ω′ᵢ(x)",
                    _ => "transparency: Φᵢ(x)",
                };
                let _ = ctx.fill_text(title, ox + 6.0 * dpr, oy + 16.0 * dpr);
            }
        }
        stroke_path(ctx, &[(w, 0.0), (w, height)], "#cbd5e1", 1.0 * dpr, None);
        stroke_path(ctx, &[(0.0, h), (width, h)], "#cbd5e1", 1.0 * dpr, None);
    }
}
