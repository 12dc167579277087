//! Bindings and drawing for the MLS-gradient lesson. The estimates are
//! [`phyxel::lessons::mls_gradient`] — the phyxel solver's MLS weights and safe inverse, and the SPH
//! difference formula — on samples the user can drag.

use super::sph_approximation::{draw_samples, draw_square, stroke_path};
use crate::colour::colour_scale;
use crate::view::{device_pixel_ratio, View};
use crate::{check, check_range};
use glam::DVec3;
use phyxel::lessons::mls_gradient::MlsGradient;
use phyxel::lessons::mls_gradient::{param, PARAMETERS};
use phyxel::lessons::sph_approximation::ErrorStats;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

/// The condition numbers the colour scale spans: κ from 1 to 10^CONDITION_DECADES.
pub const CONDITION_DECADES: f64 = 1.0;
/// How far from the square a sample may be moved.
pub const MAX_COORDINATE: f64 = 10.0;
/// The colour of samples whose moment matrix is rank-deficient (regularized by the safe inverse).
pub const RANK_DEFICIENT_COLOUR: &str = "#e11d48";

/// The colour of condition number κ: log₁₀ κ over [0, 1] (κ from 1 to 10) on the colour scale; rank-deficient (κ = ∞)
/// samples get their own colour. The page's legend uses this too.
#[wasm_bindgen]
pub fn condition_colour(kappa: f64) -> String {
    if kappa.is_finite() {
        colour_scale(kappa.max(1.0).log10() / CONDITION_DECADES)
    } else {
        RANK_DEFICIENT_COLOUR.to_string()
    }
}

/// The chosen sample.
#[derive(Serialize)]
struct Chosen {
    index: usize,
    x: f64,
    y: f64,
    neighbours: usize,
    rank: u8,
    /// In-plane λ₁/λ₂ of the moment matrix; `None` for ∞.
    condition: Option<f64>,
    exact: [f64; 2],
    sph: [f64; 2],
    mls: [f64; 2],
}

#[derive(Serialize)]
struct Report {
    /// |∇f_SPH − ∇f| and |∇f_MLS − ∇f| over all samples.
    sph: ErrorStats,
    mls: ErrorStats,
    regularized: usize,
    chosen: Chosen,
}

#[derive(Serialize)]
struct ShapeFunctions {
    /// Offset s from the chosen sample along x, and Φ_i(x_i + s e_x) for MLS and V_i W(|s|) for SPH;
    /// `None` outside the samples' bounding box, where MLS would extrapolate.
    s: Vec<f64>,
    mls: Vec<Option<f64>>,
    sph: Vec<Option<f64>>,
}

/// The exact and estimated gradients of the last evaluation, for the arrows.
#[derive(Clone, Copy, Default)]
struct Arrows {
    exact: DVec3,
    sph: DVec3,
    mls: DVec3,
}

#[wasm_bindgen]
pub struct MlsGradientLesson {
    lesson: MlsGradient,
    spacing: f64,
    view: View,
    chosen: usize,
    arrows: Arrows,
}

fn xy(v: DVec3) -> [f64; 2] {
    [v.x, v.y]
}

#[wasm_bindgen]
impl MlsGradientLesson {
    /// The parameter table [{ name, min, max, integer, default }] the page builds its controls from.
    pub fn parameters() -> Result<JsValue, JsError> {
        crate::parameters(PARAMETERS)
    }

    /// Samples on the jittered lattice of spacing Δx over [−1, 1]², support radius h = ratio · Δx.
    #[wasm_bindgen(constructor)]
    pub fn new(
        spacing: f64,
        support_ratio: f64,
        jitter: f64,
        seed: f64,
    ) -> Result<MlsGradientLesson, JsError> {
        let lesson = MlsGradient::jittered(
            check(param::SPACING, spacing)?,
            check(param::JITTER, jitter)?,
            check(param::SEED, seed)? as u64,
            check(param::SUPPORT_RATIO, support_ratio)?,
        );
        let spacing = lesson.sph.volume.sqrt();
        // Start with a sample near the bottom-left corner chosen: its neighbourhood is cut off.
        let chosen = (0..lesson.positions().len())
            .min_by(|&a, &b| {
                let d = |i: usize| lesson.positions()[i].distance(DVec3::new(-0.85, -0.85, 0.0));
                d(a).total_cmp(&d(b))
            })
            .unwrap_or(0);
        Ok(MlsGradientLesson {
            lesson,
            spacing,
            view: View::equal_aspect(-1.1, 1.1, -1.1, 1.1),
            chosen,
            arrows: Arrows::default(),
        })
    }

    pub fn count(&self) -> usize {
        self.lesson.positions().len()
    }

    pub fn spacing(&self) -> f64 {
        self.spacing
    }

    pub fn support_radius(&self) -> f64 {
        self.lesson.support_radius()
    }

    /// The samples' positions, interleaved (x₀, y₀, x₁, y₁, …).
    pub fn positions(&self) -> Vec<f64> {
        self.lesson
            .positions()
            .iter()
            .flat_map(|p| [p.x, p.y])
            .collect()
    }

    pub fn chosen(&self) -> usize {
        self.chosen
    }

    /// The sample nearest to canvas point (px, py) if it lies within `max_distance` pixels; −1 if none.
    pub fn pick(&self, px: f64, py: f64, width: f64, height: f64, max_distance: f64) -> i32 {
        let nearest = self
            .lesson
            .positions()
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (x, y) = self.view.to_canvas(p.x, p.y, width, height);
                (i, (x - px).hypot(y - py))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match nearest {
            Some((i, d)) if d <= max_distance => i as i32,
            _ => -1,
        }
    }

    /// Choose sample `index` (a whole number; one beyond the last sample changes nothing).
    pub fn choose(&mut self, index: f64) -> Result<(), JsError> {
        let index = crate::whole("the sample", index, 0.0, f64::from(u32::MAX))?;
        if index < self.count() {
            self.chosen = index;
        }
        Ok(())
    }

    /// Where a sample dropped at canvas point (px, py) goes: the world point, kept in view, snapped to a
    /// grid of Δx/4 when `snap` (so that samples are easily lined up). Returns (x, y).
    pub fn drop_position(&self, px: f64, py: f64, width: f64, height: f64, snap: bool) -> Vec<f64> {
        // Kept within the visible part of the plane (wider than the view's rectangle on a wide canvas).
        let (x0, y0) = self.view.to_world(0.0, height, width, height);
        let (x1, y1) = self.view.to_world(width, 0.0, width, height);
        let (mut x, mut y) = self.view.to_world(px, py, width, height);
        x = x.clamp(x0.min(x1), x0.max(x1));
        y = y.clamp(y0.min(y1), y0.max(y1));
        if snap {
            let grid = 0.25 * self.spacing;
            x = (x / grid).round() * grid;
            y = (y / grid).round() * grid;
        }
        vec![x, y]
    }

    /// Move the chosen sample to (x, y) and recompute the neighbourhoods and MLS data.
    pub fn move_chosen(&mut self, x: f64, y: f64) -> Result<(), JsError> {
        let x = check_range("x", x, -MAX_COORDINATE, MAX_COORDINATE)?;
        let y = check_range("y", y, -MAX_COORDINATE, MAX_COORDINATE)?;
        self.lesson.move_sample(self.chosen, DVec3::new(x, y, 0.0));
        Ok(())
    }

    /// The SPH and MLS gradients of the function with `values` f_j at the samples against the exact
    /// gradients (∂f/∂x, ∂f/∂y interleaved in `gradients`), and the chosen sample's moment matrix.
    pub fn evaluate(&mut self, values: &[f64], gradients: &[f64]) -> Result<JsValue, JsError> {
        let n = self.count();
        if values.len() != n || gradients.len() != 2 * n {
            return Err(JsError::new(&format!(
                "expected {n} values and {} gradient components",
                2 * n
            )));
        }
        if values.iter().chain(gradients).any(|v| !v.is_finite()) {
            return Err(JsError::new("every value must be finite"));
        }
        let exact: Vec<DVec3> = gradients
            .chunks_exact(2)
            .map(|g| DVec3::new(g[0], g[1], 0.0))
            .collect();
        let sph = self.lesson.sph_gradients(values);
        let mls = self.lesson.mls_gradients(values);
        let error = |estimate: &[DVec3]| {
            ErrorStats::of(estimate.iter().zip(&exact).map(|(e, g)| (*e - *g).length()))
        };
        let i = self.chosen;
        self.arrows = Arrows {
            exact: exact[i],
            sph: sph[i],
            mls: mls[i],
        };
        let p = self.lesson.positions()[i];
        let kappa = self.lesson.condition_number(i);
        let report = Report {
            sph: error(&sph),
            mls: error(&mls),
            regularized: self.lesson.regularized(),
            chosen: Chosen {
                index: i,
                x: p.x,
                y: p.y,
                neighbours: self.lesson.neighbours(i).len(),
                rank: self.lesson.rank(i),
                condition: kappa.is_finite().then_some(kappa),
                exact: xy(exact[i]),
                sph: xy(sph[i]),
                mls: xy(mls[i]),
            },
        };
        serde_wasm_bindgen::to_value(&report).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The chosen sample's MLS shape function Φ_i and SPH weight V_i W along the line through it
    /// parallel to x, at `count` offsets in [−1.25 h, 1.25 h].
    pub fn shape_functions(&self, count: f64) -> Result<JsValue, JsError> {
        let n = crate::whole("the count of offsets", count, 2.0, 2001.0)?;
        let h = self.lesson.support_radius();
        let i = self.chosen;
        let x_i = self.lesson.positions()[i];
        let s: Vec<f64> = (0..n)
            .map(|k| 1.25 * h * (2.0 * k as f64 / (n - 1) as f64 - 1.0))
            .collect();
        let sph = &self.lesson.sph;
        let (lo, hi) = sph.positions.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let inside = |x: DVec3| x.x >= lo.x && x.x <= hi.x && x.y >= lo.y && x.y <= hi.y;
        let curves = ShapeFunctions {
            mls: s
                .iter()
                .map(|&s| {
                    let x = x_i + DVec3::X * s;
                    inside(x).then(|| self.lesson.shape_function(i, x))
                })
                .collect(),
            sph: s
                .iter()
                .map(|&s| {
                    let x = x_i + DVec3::X * s;
                    inside(x).then(|| sph.volume * sph.kernel_value(DVec3::X * s))
                })
                .collect(),
            s,
        };
        serde_wasm_bindgen::to_value(&curves).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The samples coloured by the condition number of their moment matrix, the chosen one with its
    /// support and neighbours, and its gradient arrows: exact (black), SPH (orange), MLS (blue).
    pub fn draw(&self, ctx: &CanvasRenderingContext2d, width: f64, height: f64) {
        let dpr = device_pixel_ratio();
        let px = |p: DVec3| self.view.to_canvas(p.x, p.y, width, height);
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        draw_square(ctx, self.view, width, height);
        let positions = self.lesson.positions();
        let i = self.chosen.min(positions.len().saturating_sub(1));
        let x_i = positions[i];
        let h = self.lesson.support_radius();
        // Support circle and spokes to the neighbours.
        let circle: Vec<(f64, f64)> = (0..=96)
            .map(|k| {
                let t = k as f64 / 96.0 * std::f64::consts::TAU;
                px(x_i + h * DVec3::new(t.cos(), t.sin(), 0.0))
            })
            .collect();
        stroke_path(ctx, &circle, "#6b7280", 1.2 * dpr, Some(5.0 * dpr));
        for j in self.lesson.neighbours(i) {
            stroke_path(
                ctx,
                &[px(x_i), px(positions[j])],
                "#cbd5e1",
                1.0 * dpr,
                None,
            );
        }
        let (x0, _) = px(DVec3::ZERO);
        let (x1, _) = px(DVec3::X * self.spacing);
        let radius = (0.28 * (x1 - x0)).clamp(1.5 * dpr, 7.0 * dpr);
        let colours: Vec<String> = (0..positions.len())
            .map(|j| condition_colour(self.lesson.condition_number(j)))
            .collect();
        draw_samples(ctx, positions.iter().map(|&p| px(p)), &colours, radius);
        // The chosen sample, ringed.
        let (cx, cy) = px(x_i);
        ctx.set_stroke_style_str("#111");
        ctx.set_line_width(2.0 * dpr);
        ctx.begin_path();
        let _ = ctx.arc(cx, cy, radius + 3.0 * dpr, 0.0, std::f64::consts::TAU);
        ctx.stroke();
        // Gradient arrows, the longest drawn 0.9 h long.
        let a = self.arrows;
        let longest = a.exact.length().max(a.sph.length()).max(a.mls.length());
        if longest > 0.0 {
            let scale = 0.9 * h / longest;
            for (g, colour, width) in [
                (a.exact, "#111111", 4.0),
                (a.sph, "#ea580c", 2.5),
                (a.mls, "#2563eb", 2.5),
            ] {
                arrow(ctx, px(x_i), px(x_i + g * scale), colour, width * dpr);
            }
        }
    }
}

fn arrow(
    ctx: &CanvasRenderingContext2d,
    from: (f64, f64),
    to: (f64, f64),
    colour: &str,
    width: f64,
) {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let length = dx.hypot(dy);
    if length < 1e-9 {
        return;
    }
    stroke_path(ctx, &[from, to], colour, width, None);
    let (ux, uy) = (dx / length, dy / length);
    let head = (3.5 * width).min(0.5 * length);
    ctx.set_fill_style_str(colour);
    ctx.begin_path();
    ctx.move_to(to.0, to.1);
    ctx.line_to(
        to.0 - head * ux + 0.5 * head * uy,
        to.1 - head * uy - 0.5 * head * ux,
    );
    ctx.line_to(
        to.0 - head * ux - 0.5 * head * uy,
        to.1 - head * uy + 0.5 * head * ux,
    );
    ctx.close_path();
    ctx.fill();
}
