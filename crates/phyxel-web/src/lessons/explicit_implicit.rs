//! Bindings and drawing for the "Explicit vs implicit" lesson
//! ([`phyxel::lessons::explicit_implicit`]): two clamped beams side by side, seen from the side.

use crate::check;
use crate::view::{device_pixel_ratio, View};
use phyxel::lessons::explicit_implicit::{param, Beam, ExplicitVsImplicit, PARAMETERS};
use phyxel::meshless::implicit::{CorotatedImplicit, SolveStats};
use phyxel::meshless::material::Material;
use phyxel::meshless::simulation::Simulation;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

/// Free length and thickness of the lesson's beam (m).
const LENGTH: f64 = 0.5;
const THICKNESS: f64 = 0.1;

#[wasm_bindgen]
pub struct ExplicitImplicitLesson {
    lesson: ExplicitVsImplicit,
    /// The last frame: explicit substeps, implicit CG iterations (total) and last solve.
    explicit_steps: usize,
    implicit_iterations: usize,
    implicit_steps: usize,
    last_solve: Option<SolveStats>,
    /// Each panel's world window: x from the wall, y up.
    view: View,
}

#[wasm_bindgen]
impl ExplicitImplicitLesson {
    /// The parameter table [{ name, min, max, integer, default }] the page builds its controls from.
    pub fn parameters() -> Result<JsValue, JsError> {
        crate::parameters(PARAMETERS)
    }

    /// The beam (E in Pa, ν, ρ in kg/m³, phyxels across the 0.1 m thickness), the explicit and the
    /// implicit Δt (s), mass damping c (1/s), CG tolerance and iteration limit.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        young: f64,
        poisson: f64,
        density: f64,
        across: f64,
        explicit_dt: f64,
        implicit_dt: f64,
        damping: f64,
        tolerance: f64,
        max_iterations: f64,
    ) -> Result<ExplicitImplicitLesson, JsError> {
        let beam = Beam {
            length: LENGTH,
            thickness: THICKNESS,
            across: check(param::ACROSS, across)? as usize,
            material: Material {
                young: check(param::YOUNG, young)?,
                poisson: check(param::POISSON, poisson)?,
                density: check(param::DENSITY, density)?,
                volume_stiffness: 0.0,
            },
            integration: phyxel::lessons::integrating_solid::Integration::Quadrature,
        };
        let settings = CorotatedImplicit {
            tolerance: check(param::TOLERANCE, tolerance)?,
            max_iterations: check(param::MAX_ITERATIONS, max_iterations)? as usize,
            ..CorotatedImplicit::default()
        };
        let lesson = ExplicitVsImplicit::new(
            beam,
            check(param::EXPLICIT_DT, explicit_dt)?,
            check(param::IMPLICIT_DT, implicit_dt)?,
            check(param::DAMPING, damping)?,
            settings,
        );
        Ok(ExplicitImplicitLesson {
            lesson,
            explicit_steps: 0,
            implicit_iterations: 0,
            implicit_steps: 0,
            last_solve: None,
            view: View::equal_aspect(-0.08, 0.58, -0.62, 0.14),
        })
    }

    /// Advance the explicit beam by `frame_time` seconds (in substeps of its Δt).
    pub fn advance_explicit(&mut self, frame_time: f64) {
        self.explicit_steps = self.lesson.advance_explicit(frame_time);
    }

    /// Advance the implicit beam by `frame_time` seconds (in steps of its Δt, each one CG solve).
    pub fn advance_implicit(&mut self, frame_time: f64) {
        let solves = self.lesson.advance_implicit(frame_time);
        self.implicit_steps = solves.len();
        self.implicit_iterations = solves.iter().map(|s| s.iterations).sum();
        if let Some(last) = solves.last() {
            self.last_solve = Some(*last);
        }
    }

    /// The thesis' estimate h·√(ρ/E) of the explicit step bound (s).
    pub fn cfl_time_step(&self) -> f64 {
        self.lesson.cfl_time_step()
    }

    /// The discretization's own explicit step bound 2/ω_max (s), measured.
    pub fn explicit_bound(&self) -> f64 {
        self.lesson.explicit_bound
    }

    pub fn phyxels(&self) -> usize {
        self.lesson.explicit.body.len()
    }

    pub fn explicit_time(&self) -> f64 {
        self.lesson.explicit.time
    }

    pub fn implicit_time(&self) -> f64 {
        self.lesson.implicit.time
    }

    /// Explicit substeps in the last frame.
    pub fn explicit_steps(&self) -> usize {
        self.explicit_steps
    }

    /// Implicit steps and their CG iterations (total) in the last frame.
    pub fn implicit_steps(&self) -> usize {
        self.implicit_steps
    }

    pub fn cg_iterations(&self) -> usize {
        self.implicit_iterations
    }

    /// The last CG solve: [iterations, relative residual, converged (1/0)]; empty before the first.
    pub fn last_solve(&self) -> Vec<f64> {
        self.last_solve.map_or_else(Vec::new, |s| {
            vec![
                s.iterations as f64,
                s.relative_residual,
                f64::from(u8::from(s.converged)),
            ]
        })
    }

    /// Why the explicit (or implicit) beam stopped, if it did.
    pub fn explicit_failure(&self) -> Option<String> {
        self.lesson.explicit_failure.as_ref().map(|f| f.to_string())
    }

    pub fn implicit_failure(&self) -> Option<String> {
        self.lesson.implicit_failure.as_ref().map(|f| f.to_string())
    }

    /// Tip deflections (m, downwards): explicit, implicit, Timoshenko's static one and the 3-D
    /// FEM's (NaN where the shape and ν have none).
    pub fn tip_deflections(&self) -> Vec<f64> {
        let beam = &self.lesson.beam;
        vec![
            self.lesson.tip_deflection(&self.lesson.explicit),
            self.lesson.tip_deflection(&self.lesson.implicit),
            beam.timoshenko_deflection(beam.length),
            beam.fem_tip().unwrap_or(f64::NAN),
        ]
    }

    /// Both beams side by side: the wall, Timoshenko's static curve (dashed), the phyxels seen
    /// from the side (any fixed ones grey; the quadrature beams are held by their end face, against
    /// the wall), and a stopped beam's reason in red.
    pub fn draw(&self, ctx: &CanvasRenderingContext2d, width: f64, height: f64) {
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        let half = width / 2.0;
        for (k, (sim, title, failed)) in [
            (
                &self.lesson.explicit,
                "Explicit (symplectic Euler)",
                self.lesson.explicit_failure.is_some(),
            ),
            (
                &self.lesson.implicit,
                "Implicit Euler + CG",
                self.lesson.implicit_failure.is_some(),
            ),
        ]
        .into_iter()
        .enumerate()
        {
            ctx.save();
            let _ = ctx.translate(k as f64 * half, 0.0);
            self.draw_panel(ctx, half, height, sim, title, failed);
            ctx.restore();
        }
        ctx.set_stroke_style_str("#d8dde3");
        ctx.begin_path();
        ctx.move_to(half, 0.0);
        ctx.line_to(half, height);
        ctx.stroke();
    }

    fn draw_panel(
        &self,
        ctx: &CanvasRenderingContext2d,
        width: f64,
        height: f64,
        sim: &Simulation,
        title: &str,
        failed: bool,
    ) {
        let dpr = device_pixel_ratio();
        let px = |x: f64, y: f64| self.view.to_canvas(x, y, width, height);
        let beam = &self.lesson.beam;
        // The wall the beam is clamped in.
        let (wx0, wy0) = px(-0.08, 0.14);
        let (wx1, wy1) = px(0.0, -0.62);
        ctx.set_fill_style_str("#e2e8f0");
        ctx.fill_rect(wx0, wy0, wx1 - wx0, wy1 - wy0);
        // Timoshenko's static deflection of the centre line.
        ctx.set_stroke_style_str("#16a34a");
        ctx.set_line_width(1.5 * dpr);
        let _ = ctx.set_line_dash(&js_sys_dash(dpr));
        ctx.begin_path();
        for step in 0..=40 {
            let x = beam.length * step as f64 / 40.0;
            let (cx, cy) = px(x, 0.5 * beam.thickness - beam.timoshenko_deflection(x));
            if step == 0 {
                ctx.move_to(cx, cy);
            } else {
                ctx.line_to(cx, cy);
            }
        }
        ctx.stroke();
        let _ = ctx.set_line_dash(&js_sys_dash(0.0));
        // The phyxels, fixed ones (the nodal models' clamp) grey.
        let radius = (0.35 * beam.spacing() * self.scale(width, height)).max(1.5 * dpr);
        for (i, p) in sim.body.positions().iter().enumerate() {
            let fixed = sim.fixed.get(i).copied().unwrap_or(false);
            ctx.set_fill_style_str(if fixed {
                "#94a3b8"
            } else if failed {
                "#fca5a5"
            } else {
                "#2563eb"
            });
            let (x, y) = px(p.x, p.y);
            ctx.begin_path();
            let _ = ctx.arc(x, y, radius, 0.0, std::f64::consts::TAU);
            ctx.fill();
        }
        ctx.set_fill_style_str(if failed { "#b91c1c" } else { "#1b1f24" });
        ctx.set_font(&format!("{}px system-ui, sans-serif", (14.0 * dpr).round()));
        let label = if failed {
            format!("{title}: stopped (unstable)")
        } else {
            title.to_string()
        };
        let _ = ctx.fill_text(&label, 10.0 * dpr, 22.0 * dpr);
    }

    /// Canvas pixels per metre of a panel.
    fn scale(&self, width: f64, height: f64) -> f64 {
        let (a, _) = self.view.to_canvas(0.0, 0.0, width, height);
        let (b, _) = self.view.to_canvas(1.0, 0.0, width, height);
        (b - a).abs()
    }
}

/// A canvas line-dash pattern ([] for solid).
fn js_sys_dash(dpr: f64) -> JsValue {
    let pattern = js_sys::Array::new();
    if dpr > 0.0 {
        pattern.push(&JsValue::from_f64(6.0 * dpr));
        pattern.push(&JsValue::from_f64(4.0 * dpr));
    }
    pattern.into()
}
