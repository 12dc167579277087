//! Bindings and drawing for the "Integrating a meshless solid" lesson
//! ([`phyxel::lessons::integrating_solid`]): one clamped beam under its own weight, solved statically
//! with the integration the page chooses, drawn from the side (one layer of phyxels) beside its
//! cross-section at mid-span, every phyxel coloured by its volume share; and the convergence points
//! the page's second worker computes one by one.

use crate::check;
use crate::colour::volume_share_colour;
use crate::view::{device_pixel_ratio, View};
use phyxel::lessons::integrating_solid::{param, Cantilever, Integration, Solution, PARAMETERS};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

/// The page's names for the integrations, by their ids (`Integration::id`).
fn integration_name(integration: Integration) -> &'static str {
    match integration {
        Integration::NodalKernelDensity => "Nodal, V_i = m_i/ρ_i (MKN04)",
        Integration::NodalCellVolume => "Nodal, cell volumes V_i = m_i/ρ₀",
        Integration::Quadrature => "Background quadrature (Gauss points)",
    }
}

/// Shorter names, for the canvas.
fn integration_short_name(integration: Integration) -> &'static str {
    match integration {
        Integration::NodalKernelDensity => "Nodal, m/ρ",
        Integration::NodalCellVolume => "Nodal, cell volumes",
        Integration::Quadrature => "Background quadrature",
    }
}

fn integration(id: &str) -> Result<Integration, JsError> {
    Integration::from_id(id).ok_or_else(|| {
        let ids: Vec<&str> = Integration::ALL.iter().map(|i| i.id()).collect();
        JsError::new(&format!(
            "integration: “{id}” is not one of {}",
            ids.join(", ")
        ))
    })
}

/// A beam from the page's numbers, each checked against the lesson's parameter table.
fn cantilever(
    height: f64,
    slenderness: f64,
    across: f64,
    young: f64,
    poisson: f64,
    density: f64,
) -> Result<Cantilever, JsError> {
    let across = check(param::ACROSS, across)? as usize;
    Cantilever::new(height, slenderness, across, young, poisson, density)
        .map_err(|e| JsError::new(&e.to_string()))
}

#[derive(Serialize)]
struct Integrations {
    id: &'static str,
    name: &'static str,
}

#[derive(Serialize)]
struct LegendStop {
    share: f64,
    colour: String,
}

/// One point of the convergence plot, for the page.
#[derive(Serialize)]
struct ConvergencePoint {
    integration: &'static str,
    across: usize,
    /// a (m) and a/H.
    spacing: f64,
    spacing_over_height: f64,
    tip_deflection: f64,
    /// (δ − δ_Timoshenko)/δ_Timoshenko.
    relative_error: f64,
    /// What `relative_error` is measured against: "fem" or "timoshenko".
    reference: &'static str,
    cg_iterations: usize,
}

#[wasm_bindgen]
pub struct IntegratingSolidLesson {
    beam: Cantilever,
    integration: Integration,
    /// The solution and each phyxel's volume share, once solved.
    solved: Option<(Solution, Vec<f64>)>,
    /// Why the solve failed, if it did.
    failure: Option<String>,
}

#[wasm_bindgen]
impl IntegratingSolidLesson {
    /// The parameter table [{ name, min, max, integer, default }] the page builds its controls from.
    pub fn parameters() -> Result<JsValue, JsError> {
        crate::parameters(PARAMETERS)
    }

    /// The integrations the page offers: [{ id, name }].
    pub fn integrations() -> Result<JsValue, JsError> {
        let list: Vec<Integrations> = Integration::ALL
            .iter()
            .map(|&i| Integrations {
                id: i.id(),
                name: integration_name(i),
            })
            .collect();
        serde_wasm_bindgen::to_value(&list).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The volume-share colour scale for the page's legend: [{ share, colour }] from ½ to 2
    /// (log-spaced, as the canvas colours them).
    pub fn share_legend() -> Result<JsValue, JsError> {
        let stops: Vec<LegendStop> = (0..=10)
            .map(|k| {
                let share = 2f64.powf(-1.0 + 0.2 * k as f64);
                LegendStop {
                    share,
                    colour: volume_share_colour(share),
                }
            })
            .collect();
        serde_wasm_bindgen::to_value(&stops).map_err(|e| JsError::new(&e.to_string()))
    }

    /// How many phyxels (beam and wall) the beam of this height, slenderness L/H and resolution has:
    /// what the page bounds its work by before it starts a solve.
    pub fn phyxel_count(height: f64, slenderness: f64, across: f64) -> Result<usize, JsError> {
        let beam = cantilever(
            height,
            slenderness,
            across,
            param::YOUNG.default,
            param::POISSON.default,
            param::DENSITY.default,
        )?;
        Ok(beam.phyxels(Integration::NodalCellVolume).len())
    }

    /// One point of the convergence plot: the beam at `across` phyxels over its height, solved with
    /// `integration`: { integration, across, spacing, spacing_over_height, tip_deflection,
    /// relative_error, cg_iterations }. Rejects with the reason when the solve fails.
    #[allow(clippy::too_many_arguments)]
    pub fn convergence_point(
        height: f64,
        slenderness: f64,
        young: f64,
        poisson: f64,
        density: f64,
        integration_id: &str,
        across: f64,
    ) -> Result<JsValue, JsError> {
        let beam = cantilever(height, slenderness, across, young, poisson, density)?;
        let integration = integration(integration_id)?;
        let point = beam
            .convergence_point(integration, beam.across)
            .map_err(|e| JsError::new(&e))?;
        serde_wasm_bindgen::to_value(&ConvergencePoint {
            integration: integration.id(),
            across: point.across,
            spacing: point.spacing,
            spacing_over_height: point.spacing / beam.height,
            tip_deflection: point.tip_deflection,
            relative_error: point.relative_error,
            reference: beam.reference_tip().1,
            cg_iterations: point.cg_iterations,
        })
        .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The beam (H in m, L/H, phyxels across H, E in Pa, ν, ρ in kg/m³) and its integration (an id of
    /// `integrations()`); refused, with the reason, when a number is out of range. Not solved yet.
    #[wasm_bindgen(constructor)]
    pub fn new(
        height: f64,
        slenderness: f64,
        across: f64,
        young: f64,
        poisson: f64,
        density: f64,
        integration_id: &str,
    ) -> Result<IntegratingSolidLesson, JsError> {
        Ok(IntegratingSolidLesson {
            beam: cantilever(height, slenderness, across, young, poisson, density)?,
            integration: integration(integration_id)?,
            solved: None,
            failure: None,
        })
    }

    /// The static solve; returns why it failed (the beam is then drawn undeformed), or nothing.
    pub fn solve(&mut self) -> Option<String> {
        match self.beam.solve(self.integration) {
            Ok(solution) => {
                let shares = self.beam.volume_shares(&solution);
                self.solved = Some((solution, shares));
                self.failure = None;
            }
            Err(why) => {
                self.solved = None;
                self.failure = Some(why);
            }
        }
        self.failure.clone()
    }

    /// Why the last solve failed, if it did.
    pub fn failure(&self) -> Option<String> {
        self.failure.clone()
    }

    /// The lattice spacing a (m).
    pub fn spacing(&self) -> f64 {
        self.beam.spacing()
    }

    /// Phyxels (beam and wall) and how many of them the wall holds; 0 before a solve.
    pub fn phyxels(&self) -> Vec<u32> {
        self.solved.as_ref().map_or_else(
            || vec![0, 0],
            |(s, _)| {
                vec![
                    s.body.len() as u32,
                    s.held.iter().filter(|h| **h).count() as u32,
                ]
            },
        )
    }

    /// Integration points of the background quadrature (0 for the nodal integrations).
    pub fn integration_points(&self) -> usize {
        self.solved
            .as_ref()
            .and_then(|(s, _)| s.body.quadrature())
            .map_or(0, |q| q.len())
    }

    /// Volumes (m³): Σ V_i over the beam's phyxels (NaN before a solve), Σ v_I over the integration
    /// points (NaN for the nodal integrations), and the true L H².
    pub fn volumes(&self) -> Vec<f64> {
        let solution = self.solved.as_ref().map(|(s, _)| s);
        vec![
            solution.map_or(f64::NAN, |s| s.total_volume),
            solution
                .and_then(|s| s.body.quadrature())
                .map_or(f64::NAN, |q| q.points.total_volume()),
            self.beam.volume(),
        ]
    }

    /// Tip deflections (m, downwards): the solver's (NaN before a solve), Euler–Bernoulli's,
    /// Timoshenko's and the 3-D finite-element reference's (NaN where it is not known).
    pub fn tips(&self) -> Vec<f64> {
        vec![
            self.solved
                .as_ref()
                .map_or(f64::NAN, |(s, _)| s.tip_deflection),
            self.beam.euler_bernoulli_tip(),
            self.beam.timoshenko_tip(),
            self.beam.fem_tip().unwrap_or(f64::NAN),
        ]
    }

    /// The static solve's report: [Newton steps, CG iterations (all steps), relative residual];
    /// empty before a solve.
    pub fn report(&self) -> Vec<f64> {
        self.solved.as_ref().map_or_else(Vec::new, |(s, _)| {
            vec![
                s.report.newton_iterations as f64,
                s.report.cg_iterations as f64,
                s.report.relative_residual,
            ]
        })
    }

    /// The smallest and largest volume share of the beam's phyxels; empty before a solve.
    pub fn share_range(&self) -> Vec<f64> {
        self.solved.as_ref().map_or_else(Vec::new, |(s, shares)| {
            let beam: Vec<f64> = shares
                .iter()
                .zip(&s.body.reference)
                .filter(|(_, x)| x.x > -1e-9 * self.beam.spacing())
                .map(|(v, _)| *v)
                .collect();
            vec![
                beam.iter().copied().fold(f64::INFINITY, f64::min),
                beam.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ]
        })
    }

    /// The beam from the side (left: the layer of phyxels nearest mid-depth, at their displaced
    /// positions with the displacements multiplied by `magnification`) and its cross-section at
    /// mid-span (right, undeformed); phyxels coloured by volume share, held ones as outlined squares,
    /// and with `show_points` the integration points near the drawn layer and section as crosses.
    pub fn draw(
        &self,
        ctx: &CanvasRenderingContext2d,
        width: f64,
        height: f64,
        magnification: f64,
        show_points: bool,
    ) {
        let dpr = device_pixel_ratio();
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        let split = (0.74 * width).round();
        let top = 40.0 * dpr;
        ctx.save();
        ctx.begin_path();
        ctx.rect(0.0, top, split, height - top);
        ctx.clip();
        let _ = ctx.translate(0.0, top);
        self.draw_side(
            ctx,
            split,
            (height - top).max(1.0),
            magnification,
            show_points,
        );
        ctx.restore();
        ctx.save();
        ctx.begin_path();
        ctx.rect(split, top, width - split, height - top);
        ctx.clip();
        let _ = ctx.translate(split, top);
        self.draw_section(ctx, width - split, (height - top).max(1.0), show_points);
        ctx.restore();
        ctx.set_stroke_style_str("#d8dde3");
        ctx.set_line_width(dpr);
        ctx.begin_path();
        ctx.move_to(split, 0.0);
        ctx.line_to(split, height);
        ctx.stroke();
        // Titles, two lines over each panel, squeezed to the panel's width where it is narrow.
        let side_width = split - 16.0 * dpr;
        let section_width = width - split - 16.0 * dpr;
        let text = |line: &str, colour: &str, x: f64, y: f64, max_width: f64| {
            ctx.set_fill_style_str(colour);
            let _ = ctx.fill_text_with_max_width(line, x, y, max_width.max(1.0));
        };
        ctx.set_font(&format!("{}px system-ui, sans-serif", (13.0 * dpr).round()));
        text(
            &format!(
                "{} · displacements ×{}",
                integration_short_name(self.integration),
                magnification
            ),
            "#1b1f24",
            8.0 * dpr,
            16.0 * dpr,
            side_width,
        );
        text(
            &format!("Section x = {:.3} m", self.section_x()),
            "#1b1f24",
            split + 8.0 * dpr,
            16.0 * dpr,
            section_width,
        );
        ctx.set_font(&format!("{}px system-ui, sans-serif", (12.0 * dpr).round()));
        let (subtitle, colour) = match (&self.solved, &self.failure) {
            (_, Some(_)) => ("Not solved: see the notice".to_string(), "#b91c1c"),
            (None, None) => ("Solving…".to_string(), "#5b6470"),
            (Some(_), None) => (
                format!("Side view, layer z = {:.3} m", self.layer_z()),
                "#5b6470",
            ),
        };
        text(&subtitle, colour, 8.0 * dpr, 32.0 * dpr, side_width);
        text(
            "dashed: the side view's layer",
            "#5b6470",
            split + 8.0 * dpr,
            32.0 * dpr,
            section_width,
        );
    }
}

impl IntegratingSolidLesson {
    /// z of the layer of phyxels the side view draws: the one nearest mid-depth (inside the beam).
    fn layer_z(&self) -> f64 {
        (self.beam.across / 2) as f64 * self.beam.spacing()
    }

    /// x of the lattice layer nearest mid-span: the section drawn on the right.
    fn section_x(&self) -> f64 {
        let a = self.beam.spacing();
        (0.5 * self.beam.length / a).round() * a
    }

    /// The reference positions, displacements, shares and held flags to draw (the beam's phyxels
    /// undeformed when it is not solved).
    fn phyxels_to_draw(&self) -> Vec<(glam::DVec3, glam::DVec3, f64, bool)> {
        match &self.solved {
            Some((s, shares)) => (0..s.body.len())
                .map(|i| {
                    (
                        s.body.reference[i],
                        s.body.displacement[i],
                        shares[i],
                        s.held[i],
                    )
                })
                .collect(),
            None => match self.beam.body(Integration::NodalCellVolume) {
                // Unsolved: the undeformed lattice, uncoloured (share NaN draws as exact).
                Ok((body, held)) => (0..body.len())
                    .map(|i| (body.reference[i], glam::DVec3::ZERO, f64::NAN, held[i]))
                    .collect(),
                Err(_) => Vec::new(),
            },
        }
    }

    fn draw_side(
        &self,
        ctx: &CanvasRenderingContext2d,
        width: f64,
        height: f64,
        magnification: f64,
        show_points: bool,
    ) {
        let dpr = device_pixel_ratio();
        let a = self.beam.spacing();
        let (length, h) = (self.beam.length, self.beam.height);
        let z = self.layer_z();
        let layer: Vec<_> = self
            .phyxels_to_draw()
            .into_iter()
            .filter(|(x, ..)| (x.z - z).abs() < 1e-6 * a)
            .collect();
        let drawn = |x: glam::DVec3, u: glam::DVec3| x + magnification * u;
        // The window: the wall, the undeformed beam and the drawn one, and Timoshenko's tip.
        let tip_theory = 0.5 * h - magnification * self.beam.timoshenko_tip();
        let (mut y_min, mut y_max) = (tip_theory.min(0.0), h);
        let mut x_max = length;
        for (x, u, ..) in &layer {
            let p = drawn(*x, *u);
            y_min = y_min.min(p.y);
            y_max = y_max.max(p.y);
            x_max = x_max.max(p.x);
        }
        let margin = 0.8 * a + 0.04 * length;
        let view = View::equal_aspect(
            -2.0 * a - margin,
            x_max + 3.0 * a + margin,
            y_min - margin,
            y_max + margin,
        );
        // The right 90 px and the bottom 24 px are kept for the label of Timoshenko's tip.
        let picture = (width - 90.0 * dpr).max(0.5 * width);
        let picture_height = (height - 24.0 * dpr).max(0.5 * height);
        let px = |x: f64, y: f64| view.to_canvas(x, y, picture, picture_height);
        let scale = {
            let (p0, _) = px(0.0, 0.0);
            let (p1, _) = px(1.0, 0.0);
            (p1 - p0).abs()
        };
        // The wall.
        let (wx0, _) = px(-2.0 * a - margin, 0.0);
        let (wx1, _) = px(-0.5 * a, 0.0);
        ctx.set_fill_style_str("#f1f5f9");
        ctx.fill_rect(wx0, 0.0, wx1 - wx0, height);
        let (face, _) = px(0.0, 0.0);
        ctx.set_stroke_style_str("#94a3b8");
        ctx.set_line_width(1.5 * dpr);
        ctx.begin_path();
        ctx.move_to(face, 0.0);
        ctx.line_to(face, height);
        ctx.stroke();
        // The undeformed outline, dotted.
        let (ox0, oy0) = px(0.0, h);
        let (ox1, oy1) = px(length, 0.0);
        let _ = ctx.set_line_dash(&dash(&[2.0 * dpr, 3.0 * dpr]));
        ctx.set_stroke_style_str("#94a3b8");
        ctx.set_line_width(dpr);
        ctx.stroke_rect(ox0, oy0, ox1 - ox0, oy1 - oy0);
        // Timoshenko's tip deflection of the centre line, displaced as much as the drawing.
        let (tx0, ty) = px(length - a, tip_theory);
        let (tx1, _) = px(length + 2.5 * a, tip_theory);
        let _ = ctx.set_line_dash(&dash(&[6.0 * dpr, 4.0 * dpr]));
        ctx.set_stroke_style_str("#16a34a");
        ctx.set_line_width(2.0 * dpr);
        ctx.begin_path();
        ctx.move_to(tx0, ty);
        ctx.line_to(tx1, ty);
        ctx.stroke();
        let _ = ctx.set_line_dash(&dash(&[]));
        ctx.set_fill_style_str("#15803d");
        ctx.set_font(&format!("{}px system-ui, sans-serif", (12.0 * dpr).round()));
        let _ = ctx.fill_text("Timoshenko", tx1 + 4.0 * dpr, ty + 4.0 * dpr);
        let _ = ctx.fill_text("tip", tx1 + 4.0 * dpr, ty + 18.0 * dpr);
        // The phyxels of the layer.
        let radius = (0.3 * a * scale).max(2.0 * dpr);
        for (x, u, share, held) in &layer {
            let p = drawn(*x, *u);
            let (cx, cy) = px(p.x, p.y);
            phyxel(ctx, cx, cy, radius, *share, *held, dpr);
        }
        // The integration points beside the layer (within a/2 of it), displaced like the phyxels:
        // x_I + ũ(x_I), ũ interpolated by the shape functions.
        if show_points {
            if let Some((solution, _)) = &self.solved {
                if let Some(q) = solution.body.quadrature() {
                    let u = q.shape.interpolate(&solution.body.displacement);
                    let size = (0.1 * a * scale).clamp(1.5 * dpr, 4.0 * dpr);
                    ctx.set_stroke_style_str("#111827");
                    ctx.set_line_width(dpr);
                    ctx.begin_path();
                    for (x, u) in q.points.position.iter().zip(&u) {
                        if (x.z - z).abs() <= 0.5 * a {
                            let p = drawn(*x, *u);
                            let (cx, cy) = px(p.x, p.y);
                            cross(ctx, cx, cy, size);
                        }
                    }
                    ctx.stroke();
                }
            }
        }
    }

    fn draw_section(
        &self,
        ctx: &CanvasRenderingContext2d,
        width: f64,
        height: f64,
        show_points: bool,
    ) {
        let dpr = device_pixel_ratio();
        let a = self.beam.spacing();
        let h = self.beam.height;
        let x_section = self.section_x();
        let pad = 0.7 * a;
        let view = View::equal_aspect(-pad, h + pad, -pad, h + pad);
        let px = |z: f64, y: f64| view.to_canvas(z, y, width, height);
        let scale = {
            let (p0, _) = px(0.0, 0.0);
            let (p1, _) = px(1.0, 0.0);
            (p1 - p0).abs()
        };
        let (x0, y0) = px(0.0, h);
        let (x1, y1) = px(h, 0.0);
        ctx.set_stroke_style_str("#94a3b8");
        ctx.set_line_width(dpr);
        ctx.stroke_rect(x0, y0, x1 - x0, y1 - y0);
        // The layer the side view draws.
        let (lz, _) = px(self.layer_z(), 0.0);
        let _ = ctx.set_line_dash(&dash(&[4.0 * dpr, 3.0 * dpr]));
        ctx.begin_path();
        ctx.move_to(lz, y0 - 0.4 * a * scale);
        ctx.line_to(lz, y1 + 0.4 * a * scale);
        ctx.stroke();
        let _ = ctx.set_line_dash(&dash(&[]));
        let radius = (0.3 * a * scale).max(2.0 * dpr);
        for (x, _, share, held) in self.phyxels_to_draw() {
            if (x.x - x_section).abs() < 1e-6 * a {
                let (cx, cy) = px(x.z, x.y);
                phyxel(ctx, cx, cy, radius, share, held, dpr);
            }
        }
        if show_points {
            if let Some(q) = self.solved.as_ref().and_then(|(s, _)| s.body.quadrature()) {
                let size = (0.1 * a * scale).clamp(1.5 * dpr, 4.0 * dpr);
                ctx.set_stroke_style_str("#111827");
                ctx.set_line_width(dpr);
                ctx.begin_path();
                for x in &q.points.position {
                    if (x.x - x_section).abs() <= 0.5 * a {
                        let (cx, cy) = px(x.z, x.y);
                        cross(ctx, cx, cy, size);
                    }
                }
                ctx.stroke();
            }
        }
    }
}

/// A phyxel: a disc in its share's colour, a held one an outlined square.
fn phyxel(
    ctx: &CanvasRenderingContext2d,
    x: f64,
    y: f64,
    radius: f64,
    share: f64,
    held: bool,
    dpr: f64,
) {
    ctx.set_fill_style_str(&volume_share_colour(share));
    ctx.begin_path();
    if held {
        ctx.rect(x - radius, y - radius, 2.0 * radius, 2.0 * radius);
    } else {
        let _ = ctx.arc(x, y, radius, 0.0, std::f64::consts::TAU);
    }
    ctx.fill();
    ctx.set_stroke_style_str(if held { "#1e293b" } else { "#64748b" });
    ctx.set_line_width(if held { 2.0 * dpr } else { 0.75 * dpr });
    ctx.stroke();
}

/// An × of half-size `size` at (x, y), added to the current path.
fn cross(ctx: &CanvasRenderingContext2d, x: f64, y: f64, size: f64) {
    ctx.move_to(x - size, y - size);
    ctx.line_to(x + size, y + size);
    ctx.move_to(x - size, y + size);
    ctx.line_to(x + size, y - size);
}

/// A canvas line-dash pattern ([] for solid).
fn dash(pattern: &[f64]) -> JsValue {
    let array = js_sys::Array::new();
    for &length in pattern {
        array.push(&JsValue::from_f64(length));
    }
    array.into()
}
