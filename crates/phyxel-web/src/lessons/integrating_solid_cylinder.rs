//! Bindings and drawing for the two-material cylinder of the "Integrating a meshless solid" lesson
//! ([`phyxel::lessons::integrating_solid::two_materials`], seed 003 §4.2): a cylinder held at its
//! centre section, its left half soft and its right half `ratio` times stiffer, solved statically under
//! its own weight and drawn from the side with its phyxels coloured by the Young's modulus their
//! integration points give them.

use crate::check;
use crate::view::{device_pixel_ratio, View};
use phyxel::lessons::integrating_solid::param;
use phyxel::lessons::integrating_solid::two_materials::{TwoMaterialCylinder, TwoMaterialSolution};
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

/// The soft half's colour (E) and the stiff half's (r·E); between them on a log scale.
const SOFT: [f64; 3] = [37.0, 99.0, 235.0];
const STIFF: [f64; 3] = [234.0, 88.0, 12.0];

/// A cylinder from the page's numbers, each checked against the lesson's parameter table.
fn cylinder(
    diameter: f64,
    slenderness: f64,
    across: f64,
    young: f64,
    poisson: f64,
    density: f64,
    ratio: f64,
) -> Result<TwoMaterialCylinder, JsError> {
    let across = check(param::CYLINDER_ACROSS, across)? as usize;
    TwoMaterialCylinder::new(
        diameter,
        slenderness,
        across,
        young,
        poisson,
        density,
        ratio,
    )
    .map_err(|e| JsError::new(&e.to_string()))
}

/// The colour of a Young's modulus between `soft` and `stiff`, as `#rrggbb` (log scale).
fn young_colour(young: f64, soft: f64, stiff: f64) -> String {
    let t = if stiff > soft * (1.0 + 1e-9) {
        ((young / soft).ln() / (stiff / soft).ln()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let t = if t.is_nan() { 0.0 } else { t };
    let c: Vec<u8> = (0..3)
        .map(|k| (SOFT[k] + t * (STIFF[k] - SOFT[k])).round() as u8)
        .collect();
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

#[wasm_bindgen]
pub struct TwoMaterialCylinderLesson {
    cylinder: TwoMaterialCylinder,
    /// The solution and each phyxel's E, once solved.
    solved: Option<(TwoMaterialSolution, Vec<f64>)>,
    failure: Option<String>,
}

#[wasm_bindgen]
impl TwoMaterialCylinderLesson {
    /// How many phyxels the cylinder of this diameter, L/D and resolution has: what the page bounds
    /// its work by before a solve.
    pub fn phyxel_count(diameter: f64, slenderness: f64, across: f64) -> Result<usize, JsError> {
        let c = cylinder(
            diameter,
            slenderness,
            across,
            param::YOUNG.default,
            param::POISSON.default,
            param::DENSITY.default,
            param::RATIO.default,
        )?;
        Ok(c.phyxels().len())
    }

    /// The cylinder (D in m, L/D, phyxels across D, the soft half's E in Pa, ν, ρ in kg/m³, and
    /// E_stiff/E_soft); refused, with the reason, when a number is out of range. Not solved yet.
    #[wasm_bindgen(constructor)]
    pub fn new(
        diameter: f64,
        slenderness: f64,
        across: f64,
        young: f64,
        poisson: f64,
        density: f64,
        ratio: f64,
    ) -> Result<TwoMaterialCylinderLesson, JsError> {
        Ok(Self {
            cylinder: cylinder(
                diameter,
                slenderness,
                across,
                young,
                poisson,
                density,
                ratio,
            )?,
            solved: None,
            failure: None,
        })
    }

    /// The static solve; returns why it failed, or nothing.
    pub fn solve(&mut self) -> Option<String> {
        match self.cylinder.solve() {
            Ok(solution) => {
                let young = TwoMaterialCylinder::phyxel_young(&solution.body);
                self.solved = Some((solution, young));
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

    /// [phyxels, integration points]; 0 before a solve.
    pub fn counts(&self) -> Vec<u32> {
        self.solved.as_ref().map_or_else(
            || vec![0, 0],
            |(s, _)| {
                vec![
                    s.body.len() as u32,
                    s.body.quadrature().map_or(0, |q| q.len()) as u32,
                ]
            },
        )
    }

    /// End deflections (m, downwards) and ratios: [soft end, stiff end (NaN before a solve),
    /// Timoshenko's soft end, Timoshenko's stiff end, the solved δ_soft/δ_stiff (NaN before), beam
    /// theory's ratio].
    pub fn ends(&self) -> Vec<f64> {
        let c = &self.cylinder;
        let (soft, stiff, ratio) = self
            .solved
            .as_ref()
            .map_or((f64::NAN, f64::NAN, f64::NAN), |(s, _)| {
                (s.soft_end, s.stiff_end, s.ratio())
            });
        vec![
            soft,
            stiff,
            c.timoshenko_end(&c.soft),
            c.timoshenko_end(&c.stiff()),
            ratio,
            c.theory_ratio(),
        ]
    }

    /// The static solve's report: [Newton steps, CG iterations, relative residual]; empty before.
    pub fn report(&self) -> Vec<f64> {
        self.solved.as_ref().map_or_else(Vec::new, |(s, _)| {
            vec![
                s.report.newton_iterations as f64,
                s.report.cg_iterations as f64,
                s.report.relative_residual,
            ]
        })
    }

    /// The colours of the soft and the stiff material, for the page's legend.
    pub fn colours() -> Vec<String> {
        vec![young_colour(1.0, 1.0, 2.0), young_colour(2.0, 1.0, 2.0)]
    }

    /// The cylinder from the side (looking along −z): every phyxel at its displaced position (the
    /// displacements multiplied by `magnification`), nearest last, coloured by its E; the undeformed
    /// outline dotted, the held centre section hatched, and Timoshenko's end deflections dashed.
    pub fn draw(
        &self,
        ctx: &CanvasRenderingContext2d,
        width: f64,
        height: f64,
        magnification: f64,
    ) {
        let dpr = device_pixel_ratio();
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        let c = &self.cylinder;
        let (length, r, a) = (c.length, c.radius(), c.spacing());
        let top = 40.0 * dpr;
        let theory_soft = -magnification * c.timoshenko_end(&c.soft);
        let theory_stiff = -magnification * c.timoshenko_end(&c.stiff());
        let mut points: Vec<(glam::DVec3, f64)> = match &self.solved {
            Some((s, young)) => (0..s.body.len())
                .map(|i| {
                    (
                        s.body.reference[i] + magnification * s.body.displacement[i],
                        young[i],
                    )
                })
                .collect(),
            None => c
                .phyxels()
                .into_iter()
                .map(|x| {
                    let e = if x.x > 0.5 * length {
                        c.stiff().young
                    } else {
                        c.soft.young
                    };
                    (x, e)
                })
                .collect(),
        };
        points.sort_by(|p, q| p.0.z.total_cmp(&q.0.z));
        let (mut y_min, mut y_max) = (-r + theory_soft.min(theory_stiff), r);
        for (p, _) in &points {
            y_min = y_min.min(p.y);
            y_max = y_max.max(p.y);
        }
        let margin = a + 0.03 * length;
        let view = View::equal_aspect(-margin, length + margin, y_min - margin, y_max + margin);
        let picture_height = (height - top).max(1.0);
        let px = |x: f64, y: f64| {
            let (cx, cy) = view.to_canvas(x, y, width, picture_height);
            (cx, cy + top)
        };
        let scale = {
            let (p0, _) = px(0.0, 0.0);
            let (p1, _) = px(1.0, 0.0);
            (p1 - p0).abs()
        };
        // The undeformed outline, dotted.
        let (ox0, oy0) = px(0.0, r);
        let (ox1, oy1) = px(length, -r);
        let _ = ctx.set_line_dash(&dash(&[2.0 * dpr, 3.0 * dpr]));
        ctx.set_stroke_style_str("#94a3b8");
        ctx.set_line_width(dpr);
        ctx.stroke_rect(ox0, oy0, ox1 - ox0, oy1 - oy0);
        // The held centre section.
        let (hx, hy0) = px(0.5 * length, r + 0.6 * a);
        let (_, hy1) = px(0.5 * length, -r - 0.6 * a);
        let _ = ctx.set_line_dash(&dash(&[]));
        ctx.set_stroke_style_str("#1e293b");
        ctx.set_line_width(3.0 * dpr);
        ctx.begin_path();
        ctx.move_to(hx, hy0);
        ctx.line_to(hx, hy1);
        ctx.stroke();
        // Timoshenko's end deflections of the axis, displaced as much as the drawing.
        let _ = ctx.set_line_dash(&dash(&[6.0 * dpr, 4.0 * dpr]));
        ctx.set_stroke_style_str("#16a34a");
        ctx.set_line_width(2.0 * dpr);
        for (x0, x1, y) in [
            (-0.6 * margin, 1.5 * a, theory_soft),
            (length - 1.5 * a, length + 0.6 * margin, theory_stiff),
        ] {
            let (p0, py) = px(x0, y);
            let (p1, _) = px(x1, y);
            ctx.begin_path();
            ctx.move_to(p0, py);
            ctx.line_to(p1, py);
            ctx.stroke();
        }
        let _ = ctx.set_line_dash(&dash(&[]));
        // The phyxels, back to front.
        let radius = (0.3 * a * scale).max(1.5 * dpr);
        let (soft, stiff) = (c.soft.young, c.stiff().young);
        for (p, young) in &points {
            let (cx, cy) = px(p.x, p.y);
            ctx.set_fill_style_str(&young_colour(*young, soft, stiff));
            ctx.begin_path();
            let _ = ctx.arc(cx, cy, radius, 0.0, std::f64::consts::TAU);
            ctx.fill();
            ctx.set_stroke_style_str("#334155");
            ctx.set_line_width(0.5 * dpr);
            ctx.stroke();
        }
        // Title and subtitle.
        ctx.set_font(&format!("{}px system-ui, sans-serif", (13.0 * dpr).round()));
        ctx.set_fill_style_str("#1b1f24");
        let _ = ctx.fill_text_with_max_width(
            &format!(
                "E (left) and {}·E (right), held at the centre · displacements ×{}",
                c.ratio, magnification
            ),
            8.0 * dpr,
            16.0 * dpr,
            (width - 16.0 * dpr).max(1.0),
        );
        ctx.set_font(&format!("{}px system-ui, sans-serif", (12.0 * dpr).round()));
        let (subtitle, colour) = match (&self.solved, &self.failure) {
            (_, Some(_)) => ("Not solved: see the notice", "#b91c1c"),
            (None, None) => ("Solving…", "#5b6470"),
            (Some(_), None) => (
                "Side view, all phyxels; dashed: Timoshenko's end deflections",
                "#5b6470",
            ),
        };
        ctx.set_fill_style_str(colour);
        let _ = ctx.fill_text_with_max_width(
            subtitle,
            8.0 * dpr,
            32.0 * dpr,
            (width - 16.0 * dpr).max(1.0),
        );
    }
}

/// A canvas line-dash pattern ([] for solid).
fn dash(pattern: &[f64]) -> JsValue {
    let array = js_sys::Array::new();
    for &length in pattern {
        array.push(&JsValue::from_f64(length));
    }
    array.into()
}
