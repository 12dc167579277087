//! Bindings and drawing for the SPH-approximation lesson. The approximation, the Shepard filter, the
//! difference formula and its correction are [`phyxel::lessons::sph_approximation`]; the page samples
//! the function (its own expression) at the positions given here and passes the values in.

use crate::check;
use crate::colour::colour_scale;
use crate::view::{device_pixel_ratio, View};
use glam::DVec3;
use phyxel::kernels::Kernel;
use phyxel::lessons::sph_approximation::{param, PARAMETERS};
use phyxel::lessons::sph_approximation::{ErrorStats, Line, Particles, HALF_WIDTH};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

/// Points sampled along the line.
const LINE_POINTS: usize = 241;

/// What the page plots and reads out.
#[derive(Serialize)]
struct Report {
    /// Arc length along the line, and ⟨f⟩, ⟨∂f/∂x⟩, ⟨∂f/∂y⟩ there.
    s: Vec<f64>,
    value: Vec<f64>,
    gradient_x: Vec<f64>,
    gradient_y: Vec<f64>,
    /// |⟨f⟩ − f| and |⟨∇f⟩ − ∇f| along the line and over all samples.
    value_line: ErrorStats,
    gradient_line: ErrorStats,
    value_samples: ErrorStats,
    gradient_samples: ErrorStats,
    /// |⟨f⟩_j − f_j| and |⟨∇f⟩_j − ∇f_j| at each sample (for the colours).
    value_error: Vec<f64>,
    gradient_error: Vec<f64>,
}

/// Checks that `values` has `n` entries (one per point) and that they are finite.
fn expect(name: &str, values: &[f64], n: usize) -> Result<(), JsError> {
    if values.len() != n {
        return Err(JsError::new(&format!(
            "{name}: expected {n} values, got {}",
            values.len()
        )));
    }
    if values.iter().any(|v| !v.is_finite()) {
        return Err(JsError::new(&format!("{name}: every value must be finite")));
    }
    Ok(())
}

/// Interleaved (x, y) of points in the plane.
fn interleave(points: impl Iterator<Item = DVec3>) -> Vec<f64> {
    points.flat_map(|p| [p.x, p.y]).collect()
}

/// Dots of `radius` at canvas `points`, each in its colour.
pub(crate) fn draw_samples(
    ctx: &CanvasRenderingContext2d,
    points: impl Iterator<Item = (f64, f64)>,
    colours: &[String],
    radius: f64,
) {
    for ((x, y), colour) in points.zip(colours) {
        ctx.set_fill_style_str(colour);
        ctx.begin_path();
        let _ = ctx.arc(x, y, radius, 0.0, std::f64::consts::TAU);
        ctx.fill();
    }
}

/// A polyline through canvas points, solid or dashed.
pub(crate) fn stroke_path(
    ctx: &CanvasRenderingContext2d,
    points: &[(f64, f64)],
    colour: &str,
    width: f64,
    dash: Option<f64>,
) {
    ctx.set_stroke_style_str(colour);
    ctx.set_line_width(width);
    let pattern = js_sys::Array::new();
    if let Some(d) = dash {
        pattern.push(&JsValue::from(d));
        pattern.push(&JsValue::from(0.7 * d));
    }
    let _ = ctx.set_line_dash(&pattern);
    ctx.begin_path();
    for (k, &(x, y)) in points.iter().enumerate() {
        if k == 0 {
            ctx.move_to(x, y);
        } else {
            ctx.line_to(x, y);
        }
    }
    ctx.stroke();
    let _ = ctx.set_line_dash(&js_sys::Array::new());
}

/// The outline of the sampled square.
pub(crate) fn draw_square(ctx: &CanvasRenderingContext2d, view: View, width: f64, height: f64) {
    let corners: Vec<(f64, f64)> = [
        (-1.0, -1.0),
        (1.0, -1.0),
        (1.0, 1.0),
        (-1.0, 1.0),
        (-1.0, -1.0),
    ]
    .iter()
    .map(|&(x, y)| view.to_canvas(x * HALF_WIDTH, y * HALF_WIDTH, width, height))
    .collect();
    let dpr = device_pixel_ratio();
    stroke_path(ctx, &corners, "#9ca3af", dpr, Some(4.0 * dpr));
}

#[wasm_bindgen]
pub struct SphApproximationLesson {
    particles: Particles,
    line: Line,
    view: View,
    /// The colour of each sample, set by [`SphApproximationLesson::colour_by`].
    colours: Vec<String>,
}

#[wasm_bindgen]
impl SphApproximationLesson {
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
        kernel: &str,
    ) -> Result<SphApproximationLesson, JsError> {
        let kernel = Kernel::from_id(kernel)
            .ok_or_else(|| JsError::new(&format!("unknown kernel “{kernel}”")))?;
        let particles = Particles::jittered(
            check(param::SPACING, spacing)?,
            check(param::JITTER, jitter)?,
            check(param::SEED, seed)? as u64,
            check(param::SUPPORT_RATIO, support_ratio)?,
            kernel,
        );
        let n = particles.positions.len();
        Ok(SphApproximationLesson {
            particles,
            line: Line {
                offset: 0.0,
                angle: 0.0,
            },
            view: View::equal_aspect(-1.1, 1.1, -1.1, 1.1),
            colours: vec!["#6b7280".into(); n],
        })
    }

    pub fn count(&self) -> usize {
        self.particles.positions.len()
    }

    /// The lattice spacing Δx actually used (2 / round(2 / spacing)).
    pub fn spacing(&self) -> f64 {
        self.particles.volume.sqrt()
    }

    pub fn support_radius(&self) -> f64 {
        self.particles.support_radius
    }

    pub fn mean_neighbours(&self) -> f64 {
        self.particles.mean_neighbours()
    }

    /// The samples' positions, interleaved (x₀, y₀, x₁, y₁, …).
    pub fn positions(&self) -> Vec<f64> {
        interleave(self.particles.positions.iter().copied())
    }

    /// The line x · n = offset, n = (−sin θ, cos θ), θ in degrees.
    pub fn set_line(&mut self, offset: f64, angle_deg: f64) -> Result<(), JsError> {
        self.line = Line {
            offset: check(param::OFFSET, offset)?,
            angle: check(param::ANGLE, angle_deg)?.to_radians(),
        };
        Ok(())
    }

    /// The points sampled along the line, interleaved (x, y).
    pub fn line_points(&self) -> Vec<f64> {
        interleave(self.line.points(LINE_POINTS).into_iter().map(|(_, p)| p))
    }

    /// The offset of the line through canvas point (px, py) with the current angle, clamped to the
    /// allowed range (the page's drag).
    pub fn offset_through(&self, px: f64, py: f64, width: f64, height: f64) -> f64 {
        let (x, y) = self.view.to_world(px, py, width, height);
        DVec3::new(x, y, 0.0)
            .dot(self.line.normal())
            .clamp(param::OFFSET.min, param::OFFSET.max)
    }

    /// Approximate the function with values f_j at the samples (`values`), exact gradients (∂f/∂x,
    /// ∂f/∂y) interleaved in `gradients`, and the exact values and gradients at the line points.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate(
        &mut self,
        values: &[f64],
        gradients: &[f64],
        line_values: &[f64],
        line_gradients: &[f64],
        shepard: bool,
        corrected: bool,
    ) -> Result<JsValue, JsError> {
        let n = self.count();
        let line = self.line.points(LINE_POINTS);
        expect("values", values, n)?;
        expect("gradients", gradients, 2 * n)?;
        expect("line values", line_values, line.len())?;
        expect("line gradients", line_gradients, 2 * line.len())?;
        let exact = |g: &[f64], k: usize| DVec3::new(g[2 * k], g[2 * k + 1], 0.0);
        let p = &self.particles;

        let value: Vec<f64> = line
            .iter()
            .map(|&(_, x)| p.approximate(x, values, shepard))
            .collect();
        let gradient: Vec<DVec3> = line
            .iter()
            .enumerate()
            .map(|(k, &(_, x))| p.gradient(x, line_values[k], values, corrected))
            .collect();
        let sample_values: Vec<f64> = p
            .positions
            .iter()
            .map(|&x| p.approximate(x, values, shepard))
            .collect();
        let sample_gradients = p.gradients(values, corrected);

        let value_error: Vec<f64> = sample_values
            .iter()
            .zip(values)
            .map(|(a, f)| (a - f).abs())
            .collect();
        let gradient_error: Vec<f64> = sample_gradients
            .iter()
            .enumerate()
            .map(|(k, g)| (*g - exact(gradients, k)).length())
            .collect();
        let report = Report {
            s: line.iter().map(|&(s, _)| s).collect(),
            value_line: ErrorStats::of(value.iter().zip(line_values).map(|(a, f)| a - f)),
            gradient_line: ErrorStats::of(
                gradient
                    .iter()
                    .enumerate()
                    .map(|(k, g)| (*g - exact(line_gradients, k)).length()),
            ),
            value_samples: ErrorStats::of(value_error.iter().copied()),
            gradient_samples: ErrorStats::of(gradient_error.iter().copied()),
            value_error,
            gradient_error,
            value,
            gradient_x: gradient.iter().map(|g| g.x).collect(),
            gradient_y: gradient.iter().map(|g| g.y).collect(),
        };
        serde_wasm_bindgen::to_value(&report).map_err(|e| JsError::new(&e.to_string()))
    }

    /// Colour the samples by `scalars` (one per sample) mapped from [lo, hi] onto the colour scale.
    pub fn colour_by(&mut self, scalars: &[f64], lo: f64, hi: f64) -> Result<(), JsError> {
        if scalars.len() != self.count() {
            return Err(JsError::new("one colour value per sample is needed"));
        }
        let span = if hi > lo { hi - lo } else { 1.0 };
        self.colours = scalars
            .iter()
            .map(|v| colour_scale((v - lo) / span))
            .collect();
        Ok(())
    }

    /// The samples (coloured), the square they fill, the line and the support circle at its start.
    pub fn draw(&self, ctx: &CanvasRenderingContext2d, width: f64, height: f64) {
        let dpr = device_pixel_ratio();
        let px = |p: DVec3| self.view.to_canvas(p.x, p.y, width, height);
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        draw_square(ctx, self.view, width, height);
        let (x0, _) = px(DVec3::ZERO);
        let (x1, _) = px(DVec3::X * self.spacing());
        let radius = (0.3 * (x1 - x0)).clamp(1.0 * dpr, 5.0 * dpr);
        draw_samples(
            ctx,
            self.particles.positions.iter().map(|&p| px(p)),
            &self.colours,
            radius,
        );
        let line = self.line.points(2);
        if let [(_, a), (_, b)] = line[..] {
            stroke_path(ctx, &[px(a), px(b)], "#d62828", 2.5 * dpr, None);
            // The support of the first point on the line, for scale.
            let circle: Vec<(f64, f64)> = (0..=64)
                .map(|k| {
                    let t = k as f64 / 64.0 * std::f64::consts::TAU;
                    px(a + self.particles.support_radius * DVec3::new(t.cos(), t.sin(), 0.0))
                })
                .collect();
            stroke_path(ctx, &circle, "#d62828", 1.2 * dpr, Some(4.0 * dpr));
        }
    }
}
